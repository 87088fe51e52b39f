//! ckg-query: the typed query API over a ckg index, shared by the CLI, the HTTP router and
//! ckg-agent.
//!
//! Queries open the index read-only (WAL readers never block the writer) and every answer
//! carries the generation it read. Graph walks are breadth-first over the `edges` table's
//! indexes (`edges_dst`, `edges_src`), one indexed lookup per visited node.
//!
//! ```no_run
//! let index = ckg_query::Index::open(&ckg_query::locate_db(None)?)?;
//! let answer = index.impact("express", &ckg_query::ImpactOptions::default())?;
//! println!("{} files impacted (generation {})", answer.files.len(), answer.generation);
//! # Ok::<(), ckg_query::Error>(())
//! ```

mod graph;
mod impact;
mod sql;
mod stale;

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension};
use serde::Serialize;

pub use graph::{
    CALL_KINDS, CyclesAnswer, Definition, Dep, DepsAnswer, DepthEdge, EdgesAnswer, PathAnswer, UnusedAnswer, UnusedOptions, package_of,
};
pub use impact::{Completeness, Gap, ImpactAnswer, ImpactFile, ImpactOptions};
pub use sql::SqlAnswer;
pub use stale::Staleness;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Core(#[from] ckg_core::Error),
    #[error("no symbol, file or external package matches {0:?}")]
    NotFound(String),
    #[error("{name:?} is ambiguous; candidates:\n{}", candidates.iter().map(|c| format!("  {c}")).collect::<Vec<_>>().join("\n"))]
    Ambiguous { name: String, candidates: Vec<String> },
    #[error("invalid argument: {0}")]
    Invalid(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Finds the index: an explicit path, or `.ckg/index.db` in the current directory or the
/// nearest parent that has one (like git finds `.git`).
pub fn locate_db(explicit: Option<&Path>) -> Result<PathBuf> {
    if let Some(p) = explicit {
        return Ok(p.to_path_buf());
    }
    let cwd = std::env::current_dir().map_err(|e| ckg_core::Error::Io { path: ".".into(), source: e })?;
    let mut dir: Option<&Path> = Some(&cwd);
    while let Some(d) = dir {
        let candidate = ckg_core::index::default_db_path(d);
        if candidate.exists() {
            return Ok(candidate);
        }
        dir = d.parent();
    }
    Err(ckg_core::Error::NoIndex(cwd).into())
}

/// A node of the graph as queries report it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Node {
    pub qname: String,
    pub kind: String,
    pub file: Option<String>,
    pub line: u32,
}

/// An edge as queries report it: qnames at both ends (the written name when unresolved),
/// the site, and the evidence tier.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Edge {
    pub kind: String,
    pub src: String,
    pub dst: String,
    pub file: String,
    pub line: u32,
    pub col: u32,
    pub evidence: String,
}

/// The state of an index (`ckg status`).
#[derive(Clone, Debug, Serialize)]
pub struct Status {
    pub generation: i64,
    pub root: Option<String>,
    /// Seconds since the epoch of the last committed update.
    pub updated_at: Option<u64>,
    pub last_update_ms: Option<String>,
    pub last_update_files: Option<String>,
    pub files: u64,
    pub lines: u64,
    pub symbols: u64,
    pub edges: u64,
}

/// A read-only view of an index.
pub struct Index {
    pub(crate) conn: Connection,
    pub(crate) path: PathBuf,
    pub generation: i64,
}

impl Index {
    pub fn open(path: &Path) -> Result<Index> {
        let conn = ckg_core::store::open_reader(path)?;
        let generation = ckg_core::store::read_generation(&conn).map_err(|e| ckg_core::Error::sqlite(path, e))?;
        Ok(Index { conn, path: path.to_path_buf(), generation })
    }

    pub(crate) fn db_err(&self, e: rusqlite::Error) -> Error {
        ckg_core::Error::sqlite(&self.path, e).into()
    }

    /// Symbols whose qname or name matches a glob (`*`, `?`), or contains the text.
    /// With a kind, only symbols of that kind (`function`, `class`, ...).
    pub fn symbols(&self, pattern: &str, kind: Option<&str>, limit: usize) -> Result<Vec<Node>> {
        let glob = if pattern.contains(['*', '?']) { pattern.to_string() } else { format!("*{pattern}*") };
        let mut s = self
            .conn
            .prepare_cached(
                "SELECT s.qname, s.kind, f.path, s.line FROM symbols s LEFT JOIN files f ON f.id = s.file_id
                 WHERE (s.qname GLOB ?1 OR s.name GLOB ?1) AND (?3 IS NULL OR s.kind = ?3) ORDER BY s.qname LIMIT ?2",
            )
            .map_err(|e| self.db_err(e))?;
        let rows = s
            .query_map(rusqlite::params![glob, limit as i64, kind], |r| {
                Ok(Node { qname: r.get(0)?, kind: r.get(1)?, file: r.get(2)?, line: r.get::<_, i64>(3)? as u32 })
            })
            .map_err(|e| self.db_err(e))?;
        rows.collect::<rusqlite::Result<_>>().map_err(|e| self.db_err(e))
    }

    /// What the index is: generation, when and how fast it was last updated, totals.
    pub fn status(&self) -> Result<Status> {
        let meta = |k: &str| -> Option<String> { self.conn.query_row("SELECT value FROM meta WHERE key = ?1", [k], |r| r.get(0)).ok() };
        let count = |sql: &str| -> Result<u64> {
            self.conn.query_row(sql, [], |r| r.get::<_, i64>(0)).map(|n| n as u64).map_err(|e| self.db_err(e))
        };
        Ok(Status {
            generation: self.generation,
            root: meta("root"),
            updated_at: meta("updated_at").and_then(|v| v.parse().ok()),
            last_update_ms: meta("last_update_ms"),
            last_update_files: meta("last_update_files"),
            files: count("SELECT count(*) FROM files")?,
            lines: count("SELECT coalesce(sum(lines), 0) FROM files")?,
            symbols: count("SELECT count(*) FROM symbols WHERE file_id IS NOT NULL")?,
            edges: count("SELECT count(*) FROM edges")?,
        })
    }

    pub(crate) fn node(&self, id: i64) -> Result<Option<Node>> {
        self.conn
            .prepare_cached("SELECT s.qname, s.kind, f.path, s.line FROM symbols s LEFT JOIN files f ON f.id = s.file_id WHERE s.id = ?1")
            .and_then(|mut s| {
                s.query_row([id], |r| Ok(Node { qname: r.get(0)?, kind: r.get(1)?, file: r.get(2)?, line: r.get::<_, i64>(3)? as u32 }))
                    .optional()
            })
            .map_err(|e| self.db_err(e))
    }
}
