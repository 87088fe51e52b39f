//! ckg-query: the typed query API over a ckg index, shared by the CLI, the HTTP router and
//! ckg-agent.
//!
//! Queries open the index read-only (WAL readers never block the writer) and every answer
//! carries the generation it read. Graph walks are breadth-first over the `edges` table's
//! indexes (`edges_dst`; outbound, each file's range of edge ids and `edges_remote_src`), one
//! indexed lookup per visited node.
//!
//! ```no_run
//! let index = ckg_query::Index::open(&ckg_query::locate_db(None)?)?;
//! let answer = index.impact("express", &ckg_query::ImpactOptions::default())?;
//! println!("{} files impacted (generation {})", answer.files.len(), answer.generation);
//! # Ok::<(), ckg_query::Error>(())
//! ```

mod def;
mod graph;
pub mod http;
mod impact;
mod memgraph;
mod page;
pub mod paths;
mod sites;
mod sql;
mod stale;
#[cfg(test)]
mod testing;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use ckg_core::store::FileIdentity;
use rusqlite::{Connection, OptionalExtension};
use schemars::JsonSchema;
use serde::Serialize;

pub use ckg_core::lang::Lang;
pub use ckg_core::shapes;
pub use def::SharedNames;
pub use graph::{
    CALL_KINDS, CyclesAnswer, DefAnswer, Definition, Dep, DepsAnswer, DepthEdge, EDGE_KINDS, EdgesAnswer, MAX_DEPTH, MAX_RESULTS,
    PathAnswer, Site, SymbolsAnswer, UnusedAnswer, UnusedOptions, package_of,
};
pub use impact::{Completeness, EVIDENCE_TIERS, Gap, ImpactAnswer, ImpactFile, ImpactOptions};
pub use memgraph::ReverseGraph;
pub use page::{MAX_PAGE_SIZE, PageRequest, Paged, paginate};
pub use sites::{SiteEdge, SourceFile};
pub use sql::{SqlAnswer, check_read_only};
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
    /// The request's time limit passed; the statement running was interrupted.
    #[error("stopped after the time limit of {0:?}")]
    Timeout(Duration),
    #[error("invalid page token: {0}")]
    PageToken(String),
    /// A page token from an older generation: the answer it continues no longer exists.
    #[error("the page token belongs to generation {token}, the index is now at generation {current}; repeat the query without page_token")]
    PageTokenExpired { token: i64, current: i64 },
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
#[derive(Clone, Debug, Serialize, PartialEq, Eq, JsonSchema)]
pub struct Node {
    pub qname: String,
    pub kind: String,
    pub file: Option<String>,
    pub line: u32,
    /// 1-based column (UTF-8 bytes) of the name.
    pub col: u32,
}

/// A node from a row `qname, kind, path, line, col`.
pub(crate) fn row_node(r: &rusqlite::Row) -> rusqlite::Result<Node> {
    Ok(Node { qname: r.get(0)?, kind: r.get(1)?, file: r.get(2)?, line: r.get::<_, i64>(3)? as u32, col: r.get::<_, i64>(4)? as u32 })
}

/// An edge as queries report it: qnames at both ends (the written name when unresolved),
/// the site, and the evidence tier.
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize, PartialEq, Eq, JsonSchema)]
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
#[derive(Clone, Debug, Serialize, JsonSchema)]
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

/// A time limit shared between a query and SQLite's progress handler: statements that run
/// past it are interrupted, and graph walks check it between steps.
#[derive(Debug, Default)]
struct Deadline {
    /// Nanoseconds after [`epoch`]; 0 means no limit.
    at: AtomicU64,
    /// The limit as given, for the error message.
    limit_ms: AtomicU64,
}

/// A fixed origin for deadlines, so one `u64` can hold an instant.
fn epoch() -> Instant {
    static EPOCH: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

impl Deadline {
    fn set(&self, limit: Option<Duration>) {
        match limit {
            Some(d) => {
                let at = (Instant::now() + d).duration_since(epoch()).as_nanos() as u64;
                self.at.store(at.max(1), Ordering::Relaxed);
                self.limit_ms.store(d.as_millis() as u64, Ordering::Relaxed);
            }
            None => self.at.store(0, Ordering::Relaxed),
        }
    }

    fn passed(&self) -> bool {
        let at = self.at.load(Ordering::Relaxed);
        at != 0 && Instant::now().duration_since(epoch()).as_nanos() as u64 > at
    }

    fn limit(&self) -> Duration {
        Duration::from_millis(self.limit_ms.load(Ordering::Relaxed))
    }
}

/// A read-only view of an index.
///
/// Each query reads through one SQLite connection. [`Index::snapshot`] runs a group of
/// queries in one read transaction: in WAL mode that pins the committed generation they all
/// read, so an answer never mixes two generations, and the writer is never waited for.
pub struct Index {
    pub(crate) conn: Connection,
    pub(crate) path: PathBuf,
    pub generation: i64,
    deadline: Arc<Deadline>,
    /// The in-memory reverse graph of this snapshot's generation, when the caller has one.
    pub(crate) graph: Option<Arc<ReverseGraph>>,
    /// The stored facts resolution binds names with and the resolver over them (`def`),
    /// built by the first query that needs them in this snapshot.
    pub(crate) names: std::cell::RefCell<Option<Arc<ckg_core::resolve::BoundNames>>>,
    /// Where a long-lived caller keeps the names between snapshots ([`Index::share_names`]),
    /// and the identity of this index's database file there.
    pub(crate) shared_names: Option<(Arc<SharedNames>, Option<FileIdentity>)>,
    /// The indexed root ([`Index::root`]), found once: asking the file system for each file
    /// read (a rule's shapes, `def`) would repeat the same lookups.
    pub(crate) root: std::cell::OnceCell<Option<String>>,
}

impl Index {
    pub fn open(path: &Path) -> Result<Index> {
        let conn = ckg_core::store::open_reader(path)?;
        let generation = ckg_core::store::read_generation(&conn).map_err(|e| ckg_core::Error::sqlite(path, e))?;
        let deadline = Arc::new(Deadline::default());
        let d = Arc::clone(&deadline);
        conn.progress_handler(1000, Some(move || d.passed()));
        Ok(Index {
            conn,
            path: path.to_path_buf(),
            generation,
            deadline,
            graph: None,
            names: Default::default(),
            shared_names: None,
            root: Default::default(),
        })
    }

    /// Runs `f` in one read transaction (one committed generation, which `self.generation`
    /// names while `f` runs) with an optional time limit. Past the limit, the running
    /// statement is interrupted and `f` gets [`Error::Timeout`] from its next query.
    pub fn snapshot<T>(&mut self, limit: Option<Duration>, f: impl FnOnce(&mut Index) -> Result<T>) -> Result<T> {
        self.deadline.set(limit);
        let begun = self.conn.execute_batch("BEGIN DEFERRED").map_err(|e| self.db_err(e));
        let result = begun.and_then(|()| {
            // The first read starts the transaction's snapshot: every later read sees it.
            self.generation = ckg_core::store::read_generation(&self.conn).map_err(|e| self.db_err(e))?;
            f(self)
        });
        if !self.conn.is_autocommit() {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
        self.deadline.set(None);
        self.graph = None;
        self.names.replace(None);
        result
    }

    /// Time left before the current limit, if there is one.
    pub(crate) fn deadline_left(&self) -> Option<Duration> {
        let at = self.deadline.at.load(Ordering::Relaxed);
        (at != 0).then(|| Duration::from_nanos(at).saturating_sub(Instant::now().duration_since(epoch())))
    }

    /// Sets a limit of `limit` from now (for one statement inside a snapshot).
    pub(crate) fn tighten_deadline(&self, limit: Duration) {
        self.deadline.set(Some(limit));
    }

    /// Puts back the limit that was left before [`Index::tighten_deadline`].
    pub(crate) fn restore_deadline(&self, left: Option<Duration>) {
        self.deadline.set(left);
    }

    /// Takes and keeps the stored names in `shared`, which outlives this index's snapshots
    /// (see `http::Service`): one generation's names are built once, by the first query that
    /// needs them, while concurrent ones wait for them. `file` is the identity of this index's
    /// database file ([`ckg_core::store::file_identity`]): names of another file are not
    /// taken, whatever their generation.
    pub fn share_names(&mut self, shared: Arc<SharedNames>, file: Option<FileIdentity>) {
        self.shared_names = Some((shared, file));
    }

    /// Fails with [`Error::Timeout`] once the current snapshot's time limit has passed.
    pub(crate) fn check_deadline(&self) -> Result<()> {
        if self.deadline.passed() { Err(Error::Timeout(self.deadline.limit())) } else { Ok(()) }
    }

    pub(crate) fn db_err(&self, e: rusqlite::Error) -> Error {
        if e.sqlite_error_code() == Some(rusqlite::ErrorCode::OperationInterrupted) && self.deadline.passed() {
            return Error::Timeout(self.deadline.limit());
        }
        ckg_core::Error::sqlite(&self.path, e).into()
    }

    /// Symbols whose qname or name matches a glob (`*`, `?`), or contains the text.
    /// With a kind, only symbols of that kind (`function`, `class`, ...); at most `limit`.
    pub fn symbols(&self, pattern: &str, kind: Option<&str>, limit: usize) -> Result<SymbolsAnswer> {
        if pattern.is_empty() {
            return Err(Error::Invalid("empty pattern".into()));
        }
        if let Some(k) = kind
            && ckg_core::facts::SymbolKind::parse(k).is_none()
        {
            let kinds: Vec<&str> = ckg_core::facts::SymbolKind::ALL.iter().map(|k| k.as_str()).collect();
            return Err(Error::Invalid(format!("unknown symbol kind {k:?} (one of {})", kinds.join(", "))));
        }
        let glob = if pattern.contains(['*', '?']) { pattern.to_string() } else { format!("*{pattern}*") };
        let mut s = self
            .conn
            .prepare_cached(
                "SELECT s.qname, s.kind, f.path, s.line, s.col FROM symbols s LEFT JOIN files f ON f.id = s.file_id
                 WHERE (s.qname GLOB ?1 OR s.name GLOB ?1) AND (?3 IS NULL OR s.kind = ?3) ORDER BY s.qname LIMIT ?2",
            )
            .map_err(|e| self.db_err(e))?;
        let rows = s.query_map(rusqlite::params![glob, limit as i64 + 1, kind], row_node).map_err(|e| self.db_err(e))?;
        let mut symbols: Vec<Node> = rows.collect::<rusqlite::Result<_>>().map_err(|e| self.db_err(e))?;
        let truncated = symbols.len() > limit;
        symbols.truncate(limit);
        Ok(SymbolsAnswer { generation: self.generation, symbols, truncated, next_page_token: None })
    }

    /// What the index is: generation, when and how fast it was last updated, totals.
    pub fn status(&self) -> Result<Status> {
        let meta = |k: &str| -> Option<String> { self.conn.query_row("SELECT value FROM meta WHERE key = ?1", [k], |r| r.get(0)).ok() };
        let count = |sql: &str| -> Result<u64> {
            self.conn.query_row(sql, [], |r| r.get::<_, i64>(0)).map(|n| n as u64).map_err(|e| self.db_err(e))
        };
        Ok(Status {
            generation: self.generation,
            root: self.root(),
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
            .prepare_cached(
                "SELECT s.qname, s.kind, f.path, s.line, s.col FROM symbols s LEFT JOIN files f ON f.id = s.file_id WHERE s.id = ?1",
            )
            .and_then(|mut s| s.query_row([id], row_node).optional())
            .map_err(|e| self.db_err(e))
    }
}
