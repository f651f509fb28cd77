//! `tool-intent migrate` and `tool-intent audit`: the session table's legacy snapshots
//! (`tool-intent-migrate`), rewritten to intents or listed, with progress on a terminal.

use std::io::IsTerminal;

use tool_intent_migrate as migrate;

use crate::args::{MigrateArgs, RegistryArgs, SessionTableArgs};
use crate::input::{pretty, CliError, Flag};
use crate::load::load_registry;
use crate::tables;

/// `migrate` (or `migrate --undo`): rewrites the table's legacy snapshots to intents.
pub(crate) fn migrate(args: MigrateArgs) -> Result<String, CliError> {
    let registry = load_registry(&args.registry)?;
    let progress =
        std::io::stderr().is_terminal() || std::env::var_os("TOOL_INTENT_PROGRESS").is_some();
    let started = std::time::Instant::now();
    let doing = if args.undo { "undo" } else { "migrate" };
    let mut on_progress = |done: u64, total: u64| {
        if progress {
            let secs = started.elapsed().as_secs_f64().max(1e-3);
            let rate = done as f64 / secs;
            let eta = (total.saturating_sub(done)) as f64 / rate.max(1e-9);
            eprint!("\r{doing}: {done}/{total} rows, {rate:.0} rows/s, ETA {eta:.0} s   ");
            if done == total {
                eprintln!();
            }
        }
        Ok(())
    };
    let SessionTableArgs { db: spec, table } = &args.sessions;
    let database = migrate::Database::parse(spec).flag("--db")?;
    let db = format!("--db {}", database.describe());
    let options = migrate::MigrateOptions {
        table: table.clone(),
        dry_run: args.dry_run,
        batch_size: args.batch_size,
        progress: Some(&mut on_progress),
    };
    let report = if args.undo {
        migrate::undo(&database, options).flag(&db)?
    } else {
        migrate::migrate(&database, &registry, options).flag(&db)?
    };
    Ok(if args.json {
        pretty(&report)?
    } else {
        report.to_text()
    })
}

/// `audit`: the rows that still hold a legacy snapshot, and what each would become.
pub(crate) fn audit(
    sessions: &SessionTableArgs,
    registry: &RegistryArgs,
    json: bool,
) -> Result<String, CliError> {
    let SessionTableArgs { db, table } = sessions;
    let registry = load_registry(registry)?;
    let database = migrate::Database::parse(db).flag("--db")?;
    let options = migrate::AuditOptions {
        table: table.clone(),
    };
    let rows = migrate::audit(&database, &registry, &options)
        .flag(&format!("--db {}", database.describe()))?;
    if json {
        return pretty(&rows);
    }
    let mut out = String::new();
    if rows.is_empty() {
        out.push_str(&format!(
            "audit: no row of {table} holds a legacy snapshot\n"
        ));
    }
    for r in &rows {
        out.push_str(&format!(
            "row {}: snapshot of {} -> {}\n",
            r.rowid, r.matched, r.intent
        ));
    }
    if !rows.is_empty() {
        out.push_str(&format!(
            "audit: {} legacy snapshots; `tool-intent migrate` with the same flags \
             rewrites them (--dry-run first shows what it would do)\n",
            tables::counted(rows.len(), "row still holds", "rows still hold")
        ));
    }
    Ok(out)
}
