//! Legacy snapshot migration (`migrate`, `undo`, `audit`) and its keyword options. An option
//! left out (or None) takes the core's default (`MigrateOptions::default()`,
//! `AuditOptions::default()`); each `text_signature` shows those defaults, as `help()` and the
//! type stubs say them (`test_migrate.py` holds the two to what a run does).

use crate::*;

/// Migrates legacy snapshot rows of a session table (a SQLite file or a `postgresql://` URL)
/// to intents, keeping the originals in a backup table (the same run as `tool-intent
/// migrate`). `batch_size`: rows per transaction (default: one transaction on SQLite, 1000 on
/// PostgreSQL). `progress(done, total)` is called every 1% of the rows. An exception it
/// raises, or Ctrl-C (checked at the same points), stops the run and is raised: the
/// transaction under way rolls back, so a one-transaction run changes nothing and a batched
/// run keeps its committed batches (run it again to go on). Returns the report as a dict.
#[pyfunction]
#[pyo3(signature = (db, registry=tool_intent::Registry::embedded(), *, table=None, dry_run=None, batch_size=None, progress=None, **unknown),
       text_signature = "(db, registry=None, *, table='sessions', dry_run=False, batch_size=None, progress=None)")]
#[allow(clippy::too_many_arguments)]
pub(crate) fn migrate<'py>(
    py: Python<'py>,
    #[pyo3(from_py_with = args::db)] db: tool_intent_migrate::Database,
    #[pyo3(from_py_with = args::registry_or_embedded)] registry: tool_intent::Registry,
    #[pyo3(from_py_with = args::opt_table)] table: Option<String>,
    #[pyo3(from_py_with = args::opt_dry_run)] dry_run: Option<bool>,
    #[pyo3(from_py_with = args::batch_size)] batch_size: Option<usize>,
    #[pyo3(from_py_with = args::progress_function)] progress: Option<Py<PyAny>>,
    unknown: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    args::refuse_unknown(py, unknown, &["table", "dry_run", "batch_size", "progress"])?;
    let report = with_progress(py, progress, |progress| {
        let options = migrate_options(table, dry_run, batch_size, progress);
        tool_intent_migrate::migrate(&db, &registry, options)
    })?;
    to_py(py, &report)
}

/// The core's options with the ones the caller gave.
fn migrate_options(
    table: Option<String>,
    dry_run: Option<bool>,
    batch_size: Option<usize>,
    progress: tool_intent_migrate::Progress<'_>,
) -> tool_intent_migrate::MigrateOptions<'_> {
    let mut options = tool_intent_migrate::MigrateOptions {
        batch_size,
        progress: Some(progress),
        ..Default::default()
    };
    if let Some(table) = table {
        options.table = table;
    }
    if let Some(dry_run) = dry_run {
        options.dry_run = dry_run;
    }
    options
}

/// Runs `run` without the GIL. Each progress point takes it to check for Ctrl-C and call
/// `progress`; what either raises stops the run and is raised as it is (as
/// `SharedRegistry.change` does with its function's exception), the core's error standing in
/// for it meanwhile.
fn with_progress<T: Send>(
    py: Python<'_>,
    progress: Option<Py<PyAny>>,
    run: impl FnOnce(&mut dyn FnMut(u64, u64) -> tool_intent::Result<()>) -> tool_intent::Result<T>
        + Send,
) -> PyResult<T> {
    let mut raised: Option<PyErr> = None;
    let result = py.detach(|| {
        run(&mut |done, total| {
            Python::attach(|py| {
                let called = py.check_signals().and_then(|()| match &progress {
                    Some(f) => f.call1(py, (done, total)).map(drop),
                    None => Ok(()),
                });
                called.map_err(|e| {
                    raised = Some(e);
                    tool_intent::Error::argument("progress", "stopped by an exception")
                })
            })
        })
    });
    match raised {
        Some(e) => Err(e),
        None => lib(py, result),
    }
}

/// Restores the rows a migration rewrote from its backup table, each only if it still holds
/// what the migration wrote; rows written since are left alone and listed in
/// `rows_not_restored`. `progress(done, total)` counts the backed-up rows, and stops the undo,
/// as `migrate`'s does the run.
#[pyfunction]
#[pyo3(signature = (db, *, table=None, dry_run=None, batch_size=None, progress=None, **unknown),
       text_signature = "(db, *, table='sessions', dry_run=False, batch_size=None, progress=None)")]
pub(crate) fn undo<'py>(
    py: Python<'py>,
    #[pyo3(from_py_with = args::db)] db: tool_intent_migrate::Database,
    #[pyo3(from_py_with = args::opt_table)] table: Option<String>,
    #[pyo3(from_py_with = args::opt_dry_run)] dry_run: Option<bool>,
    #[pyo3(from_py_with = args::batch_size)] batch_size: Option<usize>,
    #[pyo3(from_py_with = args::progress_function)] progress: Option<Py<PyAny>>,
    unknown: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    args::refuse_unknown(py, unknown, &["table", "dry_run", "batch_size", "progress"])?;
    let report = with_progress(py, progress, |progress| {
        tool_intent_migrate::undo(&db, migrate_options(table, dry_run, batch_size, progress))
    })?;
    to_py(py, &report)
}

/// The rows that still hold a legacy snapshot: `[{rowid, matched, intent}]`.
#[pyfunction]
#[pyo3(signature = (db, registry=tool_intent::Registry::embedded(), *, table=None, **unknown),
       text_signature = "(db, registry=None, *, table='sessions')")]
pub(crate) fn audit<'py>(
    py: Python<'py>,
    #[pyo3(from_py_with = args::db)] db: tool_intent_migrate::Database,
    #[pyo3(from_py_with = args::registry_or_embedded)] registry: tool_intent::Registry,
    #[pyo3(from_py_with = args::opt_table)] table: Option<String>,
    unknown: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    args::refuse_unknown(py, unknown, &["table"])?;
    let mut options = tool_intent_migrate::AuditOptions::default();
    if let Some(table) = table {
        options.table = table;
    }
    let rows = lib(
        py,
        py.detach(|| tool_intent_migrate::audit(&db, &registry, &options)),
    )?;
    to_py(py, &rows)
}
