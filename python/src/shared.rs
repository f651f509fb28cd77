//! The `SharedRegistry` class: a server process's registry following a registry version store
//! (`tool-intent-store`: a SQLite file, or a `postgres://` URL) that the fleet's processes
//! share. Each method translates arguments and results; the rules are the store crate's.

use std::cell::Cell;
use std::sync::Mutex;

use crate::registry::turn_request;
use crate::*;
use tool_intent_store::{open, Retention, SharedRegistry as CoreShared};

/// A server process's registry in a fleet: every request of a turn plans on the version the
/// turn began on, whichever process serves it, and a session's version only moves forward.
/// Calls from several Python threads take turns (the store is one connection).
#[pyclass(module = "tool_intent", frozen)]
pub(crate) struct SharedRegistry {
    inner: Mutex<CoreShared>,
}

thread_local! {
    /// The address of the `SharedRegistry` whose change function this thread runs (0: none).
    /// The function runs under the registry's lock, so a call on that registry from inside it
    /// would wait for itself for ever: it is refused instead.
    static CHANGING: Cell<usize> = const { Cell::new(0) };
}

impl SharedRegistry {
    fn with<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut CoreShared) -> tool_intent::Result<T> + Send,
    ) -> PyResult<T> {
        self.not_inside_change(py)?;
        locked(py, &self.inner, f)
    }

    fn address(&self) -> usize {
        self as *const SharedRegistry as usize
    }

    fn not_inside_change(&self, py: Python<'_>) -> PyResult<()> {
        if CHANGING.with(Cell::get) == self.address() {
            return Err(py_err(
                py,
                &tool_intent::Error::argument(
                    "change",
                    "the change function called the SharedRegistry it changes, whose calls \
                     wait for the change to end; use the Registry the function is given",
                ),
            ));
        }
        Ok(())
    }
}

#[pymethods]
impl SharedRegistry {
    /// Joins the store at `store` (a SQLite file's path, or a `postgres://` URL): the
    /// process plans on the store's newest version; an empty store first gets `initial`.
    #[new]
    #[pyo3(signature = (store, initial))]
    fn new(
        py: Python<'_>,
        #[pyo3(from_py_with = args::store)] store: String,
        #[pyo3(from_py_with = args::initial)] initial: tool_intent::Registry,
    ) -> PyResult<Self> {
        let shared = py.detach(|| CoreShared::open(open(&store)?, &initial));
        Ok(SharedRegistry {
            inner: Mutex::new(lib(py, shared)?),
        })
    }

    /// The registry new turns plan on (the store's newest version this process knows).
    #[getter]
    fn current(&self, py: Python<'_>) -> PyResult<Registry> {
        let inner = self.with(py, |s| Ok(s.current().clone()))?;
        Ok(Registry { inner })
    }

    /// The store's sequence number of `current`.
    #[getter]
    fn sequence(&self, py: Python<'_>) -> PyResult<u64> {
        self.with(py, |s| Ok(s.sequence()))
    }

    /// A turn boundary: adopts the store's newest version, and stamps the state with the
    /// version the turn runs on (never an older one than the state's).
    #[pyo3(signature = (state=None))]
    fn begin_turn<'py>(
        &self,
        py: Python<'py>,
        state: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let state = arg(py, state, "state", tool_intent::TurnState::from_value)?;
        let next = self.with(py, |s| s.begin_turn(&state))?;
        to_py(py, &next)
    }

    /// Gives every version this process plans on all-MiniLM-L6-v2's weights (`model`: the
    /// bytes of its `model.safetensors`) for `search(..., ranker="model")`, with the tool
    /// embeddings other processes with the same weights shared through the store: `{loaded,
    /// refused}` (rows read back and kept; rows refused as damaged). The embeddings this
    /// process computes are shared at its turn boundaries. In `tool-intent[hybrid]`.
    #[cfg(feature = "hybrid")]
    fn with_model<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = args::model)] model: Vec<u8>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let read = self.with(py, |s| s.with_model(&model))?;
        to_py(py, &read)
    }

    /// Starts a turn as `Registry.turn` does, on the version the state was stamped with (read
    /// back from the store when this process does not hold it).
    #[pyo3(signature = (tools_override=None, **options),
           text_signature = "($self, tools_override=None, *, source=None, profile=None, state=None, provider=None, mode=None, tool_changes=None, cache_control=None, view=None)")]
    fn turn<'py>(
        &self,
        py: Python<'py>,
        tools_override: Option<&Bound<'py, PyAny>>,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Turn> {
        let request = turn_request(py, tools_override, options)?;
        let turn = self.with(py, |s| s.turn(&request))?;
        Ok(Turn::new(turn))
    }

    /// Publishes `registry` (a deploy's) as the store's newest version: `{sequence,
    /// fingerprint, published_ms, tools, removed, used_ms}` (`used_ms`: when a turn was last
    /// planned on it, or None).
    fn publish<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = args::registry)] registry: tool_intent::Registry,
    ) -> PyResult<Bound<'py, PyAny>> {
        let row = self.with(py, |s| s.publish(&registry))?;
        to_py(py, &row)
    }

    /// Makes `change` (a function from the newest `Registry` to the next, e.g. one that calls
    /// `set_mcp_server` after a `list_changed`) and publishes its result; made again from the
    /// newest version when another process published first. Returns the version's row. An
    /// exception the function raises reaches the caller as it is; a result that is not a
    /// `Registry` is a `ToolIntentError` naming `change`.
    fn change<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = args::change_function)] change: Py<PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.not_inside_change(py)?;
        let address = self.address();
        // The store's work (a PostgreSQL round trip; SQLite waiting for another process's
        // write) runs with the GIL released, as every other call's does; the GIL is taken
        // back only to call the function. Nothing waits for this lock holding the GIL, so the
        // function taking it back cannot wait on a thread that waits on the lock.
        let done = py.detach(|| {
            let mut shared = self.inner.lock().map_err(|_| ())?;
            let mut raised: Option<PyErr> = None;
            let outer = CHANGING.with(|c| c.replace(address));
            let row = shared.change(|newest| {
                Python::attach(|py| {
                    let next = change.call1(
                        py,
                        (Registry {
                            inner: newest.clone(),
                        },),
                    );
                    match next {
                        Ok(next) => args::as_registry(next.bind(py)).ok_or_else(|| {
                            tool_intent::Error::argument(
                                "change",
                                "the change function returned something other than a Registry",
                            )
                        }),
                        Err(e) => {
                            raised = Some(e);
                            Err(tool_intent::Error::argument(
                                "change",
                                "the change function raised",
                            ))
                        }
                    }
                })
            });
            CHANGING.with(|c| c.set(outer));
            Ok((row, raised))
        });
        match done {
            Err(()) => Err(poisoned(py)),
            Ok((_, Some(e))) => Err(e),
            Ok((Ok(row), None)) => to_py(py, &row),
            Ok((Err(e), None)) => Err(py_err(py, &e)),
        }
    }

    /// Adopts the store's newest version if another process published one: its row, or None.
    fn follow<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self.with(py, |s| s.follow())? {
            tool_intent_store::Followed::Adopted(row) => to_py(py, &row),
            tool_intent_store::Followed::Unchanged => Ok(py.None().into_bound(py)),
        }
    }

    /// Every version of the store, oldest first.
    fn versions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let rows = self.with(py, |s| s.store().versions())?;
        to_py(py, &rows)
    }

    /// Removes versions no session should still name: all but the newest `keep_newest`, those
    /// that were the newest or had a turn planned on them within `keep_hours`, and the
    /// versions such a turn plans beside; then the tools no kept version has.
    #[pyo3(signature = (*, keep_newest=None, keep_hours=None, **unknown),
           text_signature = "($self, *, keep_newest=None, keep_hours=None)")]
    fn gc<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = args::opt_keep_newest)] keep_newest: Option<usize>,
        #[pyo3(from_py_with = args::opt_keep_hours)] keep_hours: Option<f64>,
        unknown: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        args::refuse_unknown(py, unknown, &["keep_newest", "keep_hours"])?;
        let retention = lib(py, Retention::from_options(keep_newest, keep_hours))?;
        let report = self.with(py, |s| {
            s.store().gc(&retention, tool_intent_store::now_ms(), &[])
        })?;
        to_py(py, &report)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        self.with(py, |s| {
            Ok(format!(
                "SharedRegistry({} store, sequence {}, {} tools)",
                s.store().kind(),
                s.sequence(),
                s.current().len()
            ))
        })
    }
}
