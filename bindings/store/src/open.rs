//! A store from what an operator writes: a `postgres://` (or `postgresql://`) URL, or the path
//! of a SQLite file (created on first use).

use tool_intent::Result;

use crate::{DatabaseSpec, VersionStore};

/// The store `spec` names (`DatabaseSpec::parse`: a spec meant for another database is
/// refused, not made a new file). A kind this build leaves out (a feature) is
/// `invalid_argument` on `store`, naming the feature.
pub fn open(spec: &str) -> Result<Box<dyn VersionStore>> {
    match DatabaseSpec::parse(spec, "store")? {
        #[cfg(feature = "postgres")]
        DatabaseSpec::Postgres(url) => Ok(Box::new(crate::PostgresStore::connect(&url)?)),
        #[cfg(not(feature = "postgres"))]
        DatabaseSpec::Postgres(_) => Err(tool_intent::Error::argument(
            "store",
            "a PostgreSQL store needs the `postgres` feature of tool-intent-store",
        )),
        #[cfg(feature = "sqlite")]
        DatabaseSpec::SqliteFile(path) => Ok(Box::new(crate::SqliteStore::open(&path)?)),
        #[cfg(not(feature = "sqlite"))]
        DatabaseSpec::SqliteFile(_) => Err(tool_intent::Error::argument(
            "store",
            "a SQLite store needs the `sqlite` feature of tool-intent-store",
        )),
    }
}
