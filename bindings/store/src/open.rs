//! A store from what an operator writes: a `postgres://` (or `postgresql://`) URL, or the path
//! of a SQLite file (created on first use).

use tool_intent::{Error, Result};

use crate::VersionStore;

/// The store `spec` names. A kind this build leaves out (a feature) is `invalid_argument` on
/// `store`, naming the feature.
pub fn open(spec: &str) -> Result<Box<dyn VersionStore>> {
    if spec.is_empty() {
        return Err(Error::argument("store", "the store is the empty string"));
    }
    if spec.starts_with("postgres://") || spec.starts_with("postgresql://") {
        #[cfg(feature = "postgres")]
        return Ok(Box::new(crate::PostgresStore::connect(spec)?));
        #[cfg(not(feature = "postgres"))]
        return Err(Error::argument(
            "store",
            "a PostgreSQL store needs the `postgres` feature of tool-intent-store",
        ));
    }
    #[cfg(feature = "sqlite")]
    return Ok(Box::new(crate::SqliteStore::open(std::path::Path::new(
        spec,
    ))?));
    #[cfg(not(feature = "sqlite"))]
    Err(Error::argument(
        "store",
        "a SQLite store needs the `sqlite` feature of tool-intent-store",
    ))
}
