//! Legacy snapshot migration (native only). Filled in by the migration work.

use std::path::Path;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::registry::Registry;

#[derive(Debug, Clone)]
pub struct MigrateOptions {
    pub table: String,
    pub dry_run: bool,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct Report {}

impl Report {
    pub fn to_text(&self) -> String {
        String::new()
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct AuditRow {
    pub rowid: i64,
    pub matched: String,
    pub intent: String,
}

pub fn migrate(
    _db: &Path,
    _registry: &Registry,
    _o: &MigrateOptions,
    _p: &mut dyn FnMut(u64, u64),
) -> Result<Report> {
    Err(Error::Database {
        message: "not implemented yet".into(),
    })
}
pub fn undo(_db: &Path, _table: &str) -> Result<Report> {
    Err(Error::Database {
        message: "not implemented yet".into(),
    })
}
pub fn audit(_db: &Path, _table: &str, _registry: &Registry) -> Result<Vec<AuditRow>> {
    Err(Error::Database {
        message: "not implemented yet".into(),
    })
}
