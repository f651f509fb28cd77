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
        // The spec is not echoed: a URL or a connection string may hold a password, and the
        // error reaches logs. The scheme or the first keyword says enough.
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
                    "a {} URL; a database is a SQLite file's path or a postgres:// \
                     (postgresql://) URL{hint}",
                    tool_intent::error::quoted(&format!("{scheme}://"))
                ),
            ));
        }
        if let Some(keyword) = libpq_keyword(spec) {
            return Err(Error::argument(
                argument,
                format!(
                    "a PostgreSQL key=value connection string (it starts with {keyword}=); give \
                     it as a URL, postgres://user@host:port/dbname (read as a path, it would be \
                     a new SQLite file of that name)"
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

/// The libpq keyword of `spec`'s first word, if it is `keyword=…`.
fn libpq_keyword(spec: &str) -> Option<&'static str> {
    let (key, _) = spec.split_whitespace().next()?.split_once('=')?;
    LIBPQ_KEYWORDS.into_iter().find(|k| *k == key)
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
        assert!(e.contains("a \"mysql://\" URL"), "{e}");
        let e = refused("sqlite:///var/lib/tools.db");
        assert!(e.contains("without sqlite://"), "{e}");
        let e = refused("host=db.internal dbname=tools user=app");
        assert!(
            e.contains("key=value connection string (it starts with host=)"),
            "{e}"
        );
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

    #[test]
    fn a_refused_spec_is_not_echoed_so_its_password_stays_out_of_logs() {
        for spec in [
            "mysql://root:s3cret@db/app",
            "POSTGRES://app:s3cret@db/tools",
            "host=db password=s3cret",
        ] {
            let e = refused(spec);
            assert!(!e.contains("s3cret") && !e.contains("db/"), "{e}");
        }
    }
}
