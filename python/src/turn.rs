//! The `Turn` class: one turn's calls (`plan`, `search`, `resolve`, `budget`).

use std::sync::Mutex;

use crate::*;

/// One turn: made by `registry.turn(tools_override, **options)`, it holds the registry
/// version, the expansion and the state, and answers the turn's calls without expanding
/// again. `search` records its loads in the turn's `state`. Threads may share it (a server
/// running a response's parallel tool calls at once): its calls take turns.
#[pyclass(module = "tool_intent", frozen)]
pub(crate) struct Turn {
    inner: Mutex<tool_intent::Turn>,
}

impl Turn {
    pub(crate) fn new(turn: tool_intent::Turn) -> Turn {
        Turn {
            inner: Mutex::new(turn),
        }
    }
}

#[pymethods]
impl Turn {
    /// The turn's plan: a [`TurnPlan`].
    pub(crate) fn plan(&self, py: Python<'_>) -> PyResult<TurnPlan> {
        // The GIL is released while the core works, so a threaded server runs turns in
        // parallel (the registry is shared read-only; its caches are thread-safe).
        Ok(TurnPlan {
            plan: locked(py, &self.inner, |turn| turn.plan())?,
            parsed: pyo3::sync::PyOnceLock::new(),
        })
    }

    /// Runs `tool_search`: `{hits, not_found, text, state, warnings?, provider_output?}`; the
    /// hits are recorded in the turn's `state` (they join the array at the next `begin_turn`). `ranker`: `"keyword"` (default), `"hybrid"` or `"model"`
    /// (installed with `pip install tool-intent[hybrid]`). `abstain=True`: a keyword query
    /// that names no tool and fits none well enough loads nothing, names the nearest tools
    /// in its text and warns `search_abstained`.
    #[pyo3(signature = (query, *, limit=None, ranker=None, abstain=None, **unknown),
           text_signature = "($self, query, *, limit=None, ranker=None, abstain=None)")]
    pub(crate) fn search<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = args::query)] query: String,
        #[pyo3(from_py_with = args::opt_limit)] limit: Option<Bound<'py, PyAny>>,
        #[pyo3(from_py_with = args::opt_ranker)] ranker: Option<String>,
        #[pyo3(from_py_with = args::opt_abstain)] abstain: Option<bool>,
        unknown: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let options: SearchOptions = Options::new(py)
            // An int as JSON, so the core judges its range (1 to 50) as it does JS's.
            .json("limit", limit.as_ref())?
            .text("ranker", ranker)?
            .flag("abstain", abstain)?
            .finish(unknown)?;
        let outcome = locked(py, &self.inner, |turn| {
            let ranker = options.ranker_for(turn.registry())?;
            turn.search(&options.call(&query, &ranker))
                .map_err(search_argument_error)?
                .to_json()
        })?;
        text_to_py(py, &outcome)
    }

    /// Dispatch: the full definition of a tool this turn may call (`source_name` is the name
    /// to send to its MCP server when it differs), or `ToolIntentError` `tool_not_available`
    /// (`tool_removed` for a tool its server removed since the turn began).
    pub(crate) fn resolve<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = args::name)] name: String,
    ) -> PyResult<Bound<'py, PyAny>> {
        let tool = locked(py, &self.inner, |turn| Ok(turn.resolve(&name)?.to_value()))?;
        py_value(py, &tool)
    }

    /// The token budget of the turn, half by half (`counter`: "estimate", "o200k" or
    /// "cl100k").
    #[pyo3(signature = (*, counter=None, **unknown),
           text_signature = "($self, *, counter=None)")]
    pub(crate) fn budget<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = args::opt_counter)] counter: Option<String>,
        unknown: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let options: BudgetOptions = Options::new(py).text("counter", counter)?.finish(unknown)?;
        let budget = locked(py, &self.inner, |turn| {
            turn.budget(tool_intent::counter::shared_counter(options.counter)?)
        })?;
        to_py(py, &budget)
    }

    /// The turn's state: the request's, with this turn's searches' loads recorded (persist it
    /// with the session).
    #[getter]
    pub(crate) fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        text_to_py(
            py,
            &locked(py, &self.inner, |turn| result_text(turn.state()))?,
        )
    }

    /// The turn's warnings: the expansion's, and `turn_registry_gone` when its version is no
    /// longer held.
    pub(crate) fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        text_to_py(
            py,
            &locked(py, &self.inner, |turn| result_text(&turn.warnings()))?,
        )
    }

    pub(crate) fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        locked(py, &self.inner, |turn| {
            Ok(format!(
                "Turn(provider={:?}, mode={:?}, turn={})",
                turn.provider().as_str(),
                turn.mode().as_str(),
                turn.state().turn
            ))
        })
    }
}
