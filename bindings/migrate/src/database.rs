//! Where the session table lives — a SQLite file or a PostgreSQL database — and the store
//! that opens it. This file sits above both stores; they know only the trait in `store.rs`.

use std::path::{Path, PathBuf};

use super::postgres::PostgresStore;
use super::sqlite::SqliteStore;
use super::store::Store;
use tool_intent::error::Result;
use tool_intent_store::DatabaseSpec;

/// Where the session table lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Database {
    /// A SQLite file.
    Sqlite(PathBuf),
    /// A PostgreSQL connection string (`postgresql://user@host/db`, or key=value form).
    Postgres(String),
}

impl Database {
    /// `postgres://` and `postgresql://` URLs name a PostgreSQL database, and a path a SQLite
    /// file; a spec meant for another database (a `mysql://` or `sqlite://` URL, a libpq
    /// `key=value` string) or the empty string is `invalid_argument` on `db`
    /// (`tool_intent_store::DatabaseSpec`, which the registry store reads its spec with).
    pub fn parse(spec: &str) -> Result<Database> {
        Ok(match DatabaseSpec::parse(spec, "db")? {
            DatabaseSpec::Postgres(url) => Database::Postgres(url),
            DatabaseSpec::SqliteFile(path) => Database::Sqlite(path),
        })
    }

    /// The database for messages: a path, or a URL without its password.
    pub fn describe(&self) -> String {
        match self {
            Database::Sqlite(p) => p.display().to_string(),
            Database::Postgres(url) => hide_password(url),
        }
    }

    pub(crate) fn open(&self) -> Result<Box<dyn Store>> {
        match self {
            Database::Sqlite(path) => Ok(Box::new(SqliteStore::open(path)?)),
            Database::Postgres(url) => Ok(Box::new(PostgresStore::open(url)?)),
        }
    }
}

impl From<&Path> for Database {
    fn from(path: &Path) -> Database {
        Database::Sqlite(path.to_path_buf())
    }
}

impl From<PathBuf> for Database {
    fn from(path: PathBuf) -> Database {
        Database::Sqlite(path)
    }
}

/// `postgresql://user:secret@host/db` → `postgresql://user:***@host/db`.
fn hide_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let Some((userinfo, host)) = rest.split_once('@') else {
        return url.to_string();
    };
    match userinfo.split_once(':') {
        Some((user, _)) => format!("{scheme}://{user}:***@{host}"),
        None => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_name_postgres_and_hide_their_password() {
        let db = Database::parse("postgresql://app:s3cret@db.internal:5432/sessions").unwrap();
        assert!(matches!(db, Database::Postgres(_)));
        assert_eq!(
            db.describe(),
            "postgresql://app:***@db.internal:5432/sessions"
        );
        assert_eq!(
            Database::parse("sessions.db").unwrap(),
            Database::Sqlite(PathBuf::from("sessions.db"))
        );
        assert_eq!(
            Database::parse("postgres://u@h/d").unwrap().describe(),
            "postgres://u@h/d"
        );
    }

    #[test]
    fn a_spec_for_another_database_is_an_error_on_db() {
        for spec in ["host=db dbname=sessions", "mysql://db/app", ""] {
            let e = Database::parse(spec).unwrap_err();
            assert_eq!(
                (e.code(), e.input()),
                ("invalid_argument", Some("db")),
                "{spec}"
            );
        }
    }
}
