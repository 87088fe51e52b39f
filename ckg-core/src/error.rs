//! The one error type of ckg-core. Per-file problems are not errors: they are recorded as
//! [`crate::facts::Diagnostic`]s and the run goes on. These are the problems that stop a run.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },

    #[error("root {0} is not a directory")]
    NotADirectory(PathBuf),

    #[error(
        "the index at {path} is corrupt or not an SQLite database ({detail}); \
         delete it or run `ckg index --rebuild` to start over"
    )]
    Corrupt { path: PathBuf, detail: String },

    #[error(
        "{path} is an SQLite database that ckg did not create; refusing to overwrite it \
         (pass another --db path)"
    )]
    Foreign { path: PathBuf },

    #[error("no ckg index found at {0} or in any parent directory; run `ckg index` first")]
    NoIndex(PathBuf),

    /// An index file named (`--db`) that is not there.
    #[error("no ckg index at {0}; run `ckg index` (with `--db` for this path) first")]
    NoIndexAt(PathBuf),

    #[error("the index at {path} is being written by another process (database is locked)")]
    Locked { path: PathBuf },

    #[error("database error on {path}: {source}")]
    Sqlite { path: PathBuf, source: rusqlite::Error },

    #[error("invalid pattern {pattern:?}: {message}")]
    Pattern { pattern: String, message: String },

    #[error("{0}")]
    Invalid(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Wraps an SQLite error with the database path, telling corruption and locking apart.
    pub fn sqlite(path: &std::path::Path, e: rusqlite::Error) -> Error {
        use rusqlite::ErrorCode as C;
        let path = path.to_path_buf();
        match e.sqlite_error_code() {
            Some(C::DatabaseCorrupt | C::NotADatabase) => Error::Corrupt { path, detail: e.to_string() },
            Some(C::DatabaseBusy | C::DatabaseLocked) => Error::Locked { path },
            _ => Error::Sqlite { path, source: e },
        }
    }
}
