//! What an operator writes to name a database — a SQLite file's path or a PostgreSQL URL —
//! told apart once, for the registry store (`--store`, `store=`) and the session migration
//! (`--db`, `db=`).
//!
//! Anything that is not a `postgres://` (or `postgresql://`) URL is a path, and a SQLite store
//! is created at a path it does not find; so a spec meant for another database must be
//! refused here, or it silently becomes a new local file: a libpq `key=value` connection
//! string (`host=db dbname=tools`) would be a file of that name in the working directory, and
//! each process would "share" a store no other machine sees. Refused: a URL of another scheme
//! (`mysql://…`, `sqlite:///…`, `POSTGRES://…`: the driver, tokio-postgres's `Config`, reads
//! `postgres://` and `postgresql://` in lower case only) and a `key=value` string that starts
//! with a libpq keyword (PostgreSQL's "Connection Strings", libpq §34.1.1, lists them; the
//! driver would read it, but as a spec it cannot be told from a path, so it is asked for as a
//! URL).

use std::path::PathBuf;

use tool_intent::{Error, Result};

/// The database a spec names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DatabaseSpec {
    /// A SQLite file's path.
    SqliteFile(PathBuf),
    /// A PostgreSQL URL (`postgres://` or `postgresql://`), as written.
    Postgres(String),
}

/// The libpq keywords a `key=value` connection string most often starts with.
const LIBPQ_KEYWORDS: [&str; 8] = [
    "host", "hostaddr", "port", "dbname", "user", "password", "sslmode", "service",
];

impl DatabaseSpec {
    /// The database `spec` names; `argument` is what an error names (`store`, `db`).
    pub fn parse(spec: &str, argument: &'static str) -> Result<DatabaseSpec> {
        if spec.is_empty() {
            return Err(Error::argument(
                argument,
                "the database is the empty string",
            ));
        }
        if spec.starts_with("postgres://") || spec.starts_with("postgresql://") {
            return Ok(DatabaseSpec::Postgres(spec.to_string()));
        }
        let shown = tool_intent::error::quoted(spec);
        if let Some(scheme) = url_scheme(spec) {
            let lower = scheme.to_ascii_lowercase();
            let hint = match lower.as_str() {
                "sqlite" => "; for SQLite give the file's path, without sqlite://",
                // The driver reads the scheme in lower case only.
                "postgres" | "postgresql" => "; write the scheme in lower case",
                _ => "",
            };
            return Err(Error::argument(
                argument,
                format!(
                    "{shown} is a {scheme}:// URL; a database is a SQLite file's path or a \
                     postgres:// (postgresql://) URL{hint}"
                ),
            ));
        }
        if starts_with_libpq_keyword(spec) {
            return Err(Error::argument(
                argument,
                format!(
                    "{shown} is a PostgreSQL key=value connection string; give it as a URL, \
                     postgres://user@host:port/dbname (read as a path, it would be a new \
                     SQLite file of that name)"
                ),
            ));
        }
        Ok(DatabaseSpec::SqliteFile(PathBuf::from(spec)))
    }
}

/// The scheme of `scheme://…` (RFC 3986: a letter, then letters, digits, `+`, `-`, `.`).
fn url_scheme(spec: &str) -> Option<&str> {
    let (scheme, _) = spec.split_once("://")?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    let fits = first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    fits.then_some(scheme)
}

/// Whether the first word of `spec` is `keyword=…` for a libpq keyword.
fn starts_with_libpq_keyword(spec: &str) -> bool {
    let first = spec.split_whitespace().next().unwrap_or_default();
    first
        .split_once('=')
        .is_some_and(|(key, _)| LIBPQ_KEYWORDS.contains(&key))
}

#[cfg(test)]
mod tests {
    use super::DatabaseSpec;
    use std::path::PathBuf;

    fn refused(spec: &str) -> String {
        let e = DatabaseSpec::parse(spec, "store").unwrap_err();
        assert_eq!(e.code(), "invalid_argument", "{spec}");
        e.to_string()
    }

    #[test]
    fn urls_of_postgres_and_paths_are_read() {
        for url in [
            "postgres://u@h/d",
            "postgresql://u:p@h:5432/d?sslmode=require",
        ] {
            assert_eq!(
                DatabaseSpec::parse(url, "db").unwrap(),
                DatabaseSpec::Postgres(url.to_string())
            );
        }
        for path in [
            "sessions.db",
            "/var/lib/app/tools.sqlite",
            "./host=1/x.db",
            "C:\\data\\x.db",
            "a b.db",
        ] {
            assert_eq!(
                DatabaseSpec::parse(path, "db").unwrap(),
                DatabaseSpec::SqliteFile(PathBuf::from(path))
            );
        }
    }

    #[test]
    fn a_spec_meant_for_another_database_is_refused_by_name() {
        let e = refused("mysql://root@db/app");
        assert!(
            e.contains("\"mysql://root@db/app\" is a mysql:// URL"),
            "{e}"
        );
        let e = refused("sqlite:///var/lib/tools.db");
        assert!(e.contains("without sqlite://"), "{e}");
        let e = refused("host=db.internal dbname=tools user=app");
        assert!(e.contains("key=value connection string"), "{e}");
        assert!(e.contains("postgres://user@host:port/dbname"), "{e}");
        let e = refused("PostgreSQL://u@h/d");
        assert!(e.contains("write the scheme in lower case"), "{e}");
        let e = refused("dbname=tools");
        assert!(e.contains("key=value"), "{e}");
        let e = refused("");
        assert!(e.contains("empty string"), "{e}");
        assert!(
            e.starts_with("invalid store"),
            "the error names the argument: {e}"
        );
    }
}
