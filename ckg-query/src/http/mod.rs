//! The HTTP interface of the query API: versioned JSON under `/v1/…`, served by `ckg serve`.
//!
//! Each answer is the same serde type the CLI prints with `--json` (one serializer for both),
//! cut into pages where it is a list. Every endpoint is declared once in [`ENDPOINTS`]: its
//! path, its parameters ([`params::Param`]), its answer type; the router and the OpenAPI
//! document (`/openapi.json`) are both built from that table, so they cannot drift apart.
//!
//! A query runs on a blocking thread with a pooled read-only [`Index`], inside one read
//! transaction ([`Index::snapshot`]): it reads exactly one committed generation, which the
//! answer names, and never waits for the writer (SQLite WAL). A semaphore bounds the queries
//! in flight; past it a request waits briefly, then gets 503 with `Retry-After` (load is shed,
//! not queued without bound). A time limit interrupts the running SQLite statement and ends
//! the walk (504). Errors are RFC 9457 problems ([`problem::Problem`]).
//!
//! ```no_run
//! # async fn f() {
//! use std::sync::Arc;
//! let config = ckg_query::http::ServiceConfig::new("/repo".into(), "/repo/.ckg/index.db".into());
//! let service = Arc::new(ckg_query::http::Service::new(config));
//! service.set_state(ckg_query::http::IndexState::Ready);
//! let app = ckg_query::http::router(Arc::clone(&service));
//! # }
//! ```

// `Problem`, the error answer, is built once per failed request: its size on the `Err` path
// costs nothing worth a box.
#![allow(clippy::result_large_err)]

pub mod events;
pub mod guard;
pub mod openapi;
pub mod params;
pub mod problem;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get, post};
use ckg_core::store::{FileIdentity, file_identity};
use schemars::{JsonSchema, SchemaGenerator};
use serde::{Deserialize, Serialize};

use crate::{Index, Paged};
use params::{Kind, PAGE, Param, Params, confine, confine_target};
use problem::Problem;

pub use axum::http::Method;
pub use events::GenerationEvent;

/// The largest request body accepted (`POST /v1/sql`).
pub const MAX_BODY: usize = 64 * 1024;

/// How long a request waits for a free query slot before it is shed.
const QUEUE_WAIT: Duration = Duration::from_millis(50);

/// How the service runs: fixed at start.
#[derive(Clone, Debug)]
pub struct ServiceConfig {
    /// The indexed root (canonical): path parameters must stay inside it.
    pub root: PathBuf,
    pub db: PathBuf,
    /// Serve `/v1/sql` (read-only, time-limited).
    pub allow_sql: bool,
    /// Queries running at once; more wait up to 50 ms, then get 503.
    pub max_concurrency: usize,
    /// Per-request time limit for queries.
    pub timeout: Duration,
    /// Bearer token required on every route but `/v1/health`.
    pub token: Option<String>,
    /// `Host` values accepted (DNS-rebinding protection); empty accepts any.
    pub allowed_hosts: Vec<String>,
    /// `Origin` values accepted besides the allowed hosts' own origins.
    pub allowed_origins: Vec<String>,
}

impl ServiceConfig {
    pub fn new(root: PathBuf, db: PathBuf) -> ServiceConfig {
        ServiceConfig {
            root,
            db,
            allow_sql: false,
            max_concurrency: 32,
            timeout: Duration::from_secs(10),
            token: None,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
        }
    }
}

/// Where the service's index stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case", tag = "state", content = "detail")]
pub enum IndexState {
    /// The first index is being built; queries get 503 `not_ready`.
    Indexing,
    /// An index is loaded; queries are answered.
    Ready,
    /// Indexing failed (the message says why); the last committed generation, if any, is
    /// still served.
    Failed(String),
}

/// What changes while the service runs (published by the indexer, read by `/v1/status`).
struct Live {
    state: IndexState,
    watching: bool,
    last: Option<GenerationEvent>,
    watch_error: Option<String>,
}

/// The shared state of the HTTP service.
pub struct Service {
    pub config: ServiceConfig,
    pool: Mutex<Vec<(Index, Option<FileIdentity>)>>,
    /// The identity of the database file the pool, the graph and the names were read from.
    db_file: Mutex<Option<FileIdentity>>,
    permits: Arc<tokio::sync::Semaphore>,
    events: tokio::sync::broadcast::Sender<GenerationEvent>,
    closing: tokio::sync::watch::Sender<bool>,
    live: Mutex<Live>,
    started: SystemTime,
    /// The newest generation's reverse graph, for walks (see [`crate::ReverseGraph`]), with
    /// the identity of the file it was read from.
    graph: Mutex<Option<(Option<FileIdentity>, Arc<crate::ReverseGraph>)>>,
    /// Held while the graph is brought up to date (one update at a time).
    loading: Mutex<()>,
    /// Set while a background load started by a query runs.
    loading_in_background: std::sync::atomic::AtomicBool,
    /// The stored names `def` resolves with and the resolver over them, of one generation
    /// (built by the first `def` that needs them).
    names: Arc<crate::SharedNames>,
    /// Endpoints of other layers mounted with these (the agent layer's `/v1/roles`, …).
    extra: std::sync::OnceLock<&'static [Endpoint]>,
}

impl Service {
    /// Mounts endpoints of another layer with the service's own (once, before [`router`]).
    pub fn add_endpoints(&self, endpoints: &'static [Endpoint]) {
        let _ = self.extra.set(endpoints);
    }

    /// The endpoints mounted by [`Service::add_endpoints`].
    pub fn extra_endpoints(&self) -> &'static [Endpoint] {
        self.extra.get().copied().unwrap_or(&[])
    }

    pub fn new(config: ServiceConfig) -> Service {
        let (events, _) = tokio::sync::broadcast::channel(256);
        let (closing, _) = tokio::sync::watch::channel(false);
        Service {
            permits: Arc::new(tokio::sync::Semaphore::new(config.max_concurrency.max(1))),
            config,
            pool: Mutex::new(Vec::new()),
            db_file: Mutex::new(None),
            events,
            closing,
            live: Mutex::new(Live { state: IndexState::Indexing, watching: false, last: None, watch_error: None }),
            started: SystemTime::now(),
            graph: Mutex::new(None),
            loading: Mutex::new(()),
            loading_in_background: std::sync::atomic::AtomicBool::new(false),
            names: Arc::default(),
            extra: std::sync::OnceLock::new(),
        }
    }

    /// The reverse graph of the generation `ix` reads from the database file `file`, when the
    /// cached one is of that file and generation. When the cache is older and nothing is
    /// loading, a load starts in the background (an index updated by another process); this
    /// request walks through SQL.
    fn graph_for(self: &Arc<Self>, ix: &Index, file: Option<FileIdentity>) -> Option<Arc<crate::ReverseGraph>> {
        let cached = self.graph.lock().unwrap_or_else(|p| p.into_inner()).clone();
        if let Some((of, g)) = &cached {
            if *of != file {
                // Read from another file than this request's (one of them was replaced).
                return None;
            }
            if g.generation >= ix.generation {
                return (g.generation == ix.generation).then(|| Arc::clone(g));
            }
        }
        if !self.loading_in_background.swap(true, std::sync::atomic::Ordering::AcqRel) {
            let service = Arc::clone(self);
            let spawned = std::thread::Builder::new().name("ckg-graph".into()).spawn(move || {
                service.update_graph(None, None);
                service.loading_in_background.store(false, std::sync::atomic::Ordering::Release);
            });
            if spawned.is_err() {
                self.loading_in_background.store(false, std::sync::atomic::Ordering::Release);
            }
        }
        None
    }

    /// Brings the in-memory graph to the newest committed generation: patched from the
    /// cached one when `files` lists what the update to `generation` changed and the cache
    /// holds the generation before it, loaded whole otherwise. The indexer calls this after
    /// each commit, so queries rarely find the graph behind.
    pub fn update_graph(&self, files: Option<&[i64]>, generation: Option<i64>) {
        let _loading = self.loading.lock().unwrap_or_else(|p| p.into_inner());
        let Ok((mut ix, file)) = self.checkout() else { return };
        let cached = self.graph.lock().unwrap_or_else(|p| p.into_inner()).clone().filter(|(of, _)| *of == file).map(|(_, g)| g);
        let built = ix.snapshot(Some(Duration::from_secs(120)), |ix| {
            if cached.as_ref().is_some_and(|g| g.generation == ix.generation) {
                return Ok(None);
            }
            let graph = match (&cached, files) {
                (Some(old), Some(files)) if old.generation + 1 == ix.generation && generation == Some(ix.generation) => {
                    old.patched(ix, files)?
                }
                _ => crate::ReverseGraph::load(ix)?,
            };
            Ok(Some(Arc::new(graph)))
        });
        self.checkin((ix, file));
        if let Ok(Some(graph)) = built {
            // Not a graph of a file replaced while it loaded: generations of two files do not
            // compare, and `checkout` has already dropped what was read from the old one.
            let seen = self.db_file.lock().unwrap_or_else(|p| p.into_inner());
            if *seen != file {
                return;
            }
            let mut slot = self.graph.lock().unwrap_or_else(|p| p.into_inner());
            if slot.as_ref().is_none_or(|(of, g)| *of != file || g.generation < graph.generation) {
                *slot = Some((file, graph));
            }
        }
    }

    fn live(&self) -> std::sync::MutexGuard<'_, Live> {
        self.live.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn set_state(&self, state: IndexState) {
        self.live().state = state;
    }

    pub fn set_watching(&self, watching: bool) {
        self.live().watching = watching;
    }

    /// The last failed update's error, until an update succeeds again (None).
    pub fn set_watch_error(&self, error: Option<String>) {
        self.live().watch_error = error;
    }

    /// Records a committed generation and sends it to `/v1/events` subscribers. Pooled
    /// connections need nothing: each request's read transaction sees the newest commit.
    pub fn publish(&self, event: GenerationEvent) {
        self.live().last = Some(event.clone());
        // No subscribers is not an error; a slow one lags and is told so.
        let _ = self.events.send(event);
    }

    /// Ends event streams (at shutdown), so connections can close.
    pub fn close(&self) {
        let _ = self.closing.send(true);
    }

    /// A pooled connection to the database file now at the path. When the file was removed
    /// or replaced (a rebuild renames a new file into place), what was read from the old one
    /// (pooled connections, the graph, the names) is dropped: generations of two files do not
    /// compare.
    fn checkout(&self) -> crate::Result<(Index, Option<FileIdentity>)> {
        let current = file_identity(&self.config.db);
        let pooled = {
            let mut seen = self.db_file.lock().unwrap_or_else(|p| p.into_inner());
            let mut pool = self.pool.lock().unwrap_or_else(|p| p.into_inner());
            if *seen != current {
                *seen = current;
                pool.clear();
                *self.graph.lock().unwrap_or_else(|p| p.into_inner()) = None;
                self.names.reading(current);
            }
            pool.pop()
        };
        match pooled {
            Some(entry) => Ok(entry),
            None => {
                let ix = Index::open(&self.config.db)?;
                // Replaced between the look and the open, the file opened may be either: such
                // an index is of no known file, so it takes nothing kept and is not pooled.
                let file = if file_identity(&self.config.db) == current { current } else { None };
                Ok((ix, file))
            }
        }
    }

    fn checkin(&self, entry: (Index, Option<FileIdentity>)) {
        let seen = *self.db_file.lock().unwrap_or_else(|p| p.into_inner());
        let mut pool = self.pool.lock().unwrap_or_else(|p| p.into_inner());
        if entry.1 == seen && pool.len() < self.config.max_concurrency {
            pool.push(entry);
        }
    }

    /// Runs a query on a pooled index in one snapshot, with the concurrency and time limits.
    async fn run(self: Arc<Self>, query: impl FnOnce(&Index) -> Result<Vec<u8>, Problem> + Send + 'static) -> Response {
        if let IndexState::Indexing = self.live().state {
            return Problem::new("not_ready", "the first index is still being built; see /v1/status").retry_after(1).into_response();
        }
        let permit = match tokio::time::timeout(QUEUE_WAIT, Arc::clone(&self.permits).acquire_owned()).await {
            Ok(Ok(p)) => p,
            _ => {
                return Problem::new("overloaded", format!("more than {} queries in flight; retry shortly", self.config.max_concurrency))
                    .retry_after(1)
                    .into_response();
            }
        };
        let timeout = self.config.timeout;
        let service = Arc::clone(&self);
        let task = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let (mut ix, file) = service.checkout().map_err(Problem::from)?;
            let mut failure = None;
            ix.share_names(Arc::clone(&service.names), file);
            let out = ix.snapshot(Some(timeout), |ix| {
                let graph = service.graph_for(ix, file);
                ix.use_graph(graph);
                query(ix).map_err(|p| {
                    failure = Some(p);
                    crate::Error::Invalid(String::new())
                })
            });
            service.checkin((ix, file));
            match (out, failure) {
                (Ok(body), _) => Ok(body),
                (Err(_), Some(p)) => Err(p),
                (Err(e), None) => Err(Problem::from(e)),
            }
        });
        // The snapshot's own limit ends the query; this bound only guards against a query
        // that never reaches SQLite or a walk step again.
        match tokio::time::timeout(timeout + Duration::from_secs(1), task).await {
            Ok(Ok(Ok(body))) => json_response(body),
            Ok(Ok(Err(p))) => p.into_response(),
            Ok(Err(join)) => {
                eprintln!("ckg serve: a query panicked: {join}");
                Problem::new("internal", "the query failed inside the server; see the server's log").into_response()
            }
            Err(_) => Problem::new("timeout", format!("stopped after the time limit of {timeout:?}")).into_response(),
        }
    }
}

fn json_response(body: Vec<u8>) -> Response {
    let mut res = (StatusCode::OK, body).into_response();
    res.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    res
}

/// A query handler: reads checked parameters, asks the index, serializes the answer.
pub type QueryFn = fn(&Index, &Params, &ServiceConfig) -> Result<Vec<u8>, Problem>;

/// How an endpoint is served.
#[derive(Clone, Copy)]
pub enum Route {
    /// A GET query on the index, run by [`Service::run`].
    Query(QueryFn),
    /// Anything else, with its own handler.
    Custom(fn() -> MethodRouter<Arc<Service>>),
}

/// One endpoint: the single declaration the router and the OpenAPI document are built from.
pub struct Endpoint {
    pub path: &'static str,
    pub method: Method,
    pub summary: &'static str,
    pub description: &'static str,
    pub params: &'static [Param],
    /// The request body's schema (POST endpoints).
    pub body: Option<fn(&mut SchemaGenerator) -> schemars::Schema>,
    /// The answer's schema.
    pub answer: fn(&mut SchemaGenerator) -> schemars::Schema,
    /// `application/json` or `text/event-stream`.
    pub media: &'static str,
    pub route: Route,
}

/// The schema of an answer type, for [`Endpoint::answer`].
pub fn schema<T: JsonSchema>(g: &mut SchemaGenerator) -> schemars::Schema {
    g.subschema_for::<T>()
}

fn paged<T: Paged + Serialize>(mut answer: T, p: &Params, what: &str) -> Result<Vec<u8>, Problem> {
    crate::paginate(&mut answer, &p.page(what))?;
    encode(&answer)
}

/// An answer as the JSON body of a 200.
pub fn encode<T: Serialize>(answer: &T) -> Result<Vec<u8>, Problem> {
    serde_json::to_vec(answer).map_err(|e| Problem::new("internal", format!("serializing the answer: {e}")))
}

const TARGET_DOC: &str = "A qname (src/app.ts#createApp, pkg.mod.Class.method), a bare name, a file path, or an external package or member (express, express.static).";

const EVIDENCE: Kind = Kind::Enum(crate::EVIDENCE_TIERS);
const EDGE_KIND: Kind = Kind::Enum(crate::EDGE_KINDS);
/// `ckg_core::facts::SymbolKind::ALL` by name (a test checks they agree).
const SYMBOL_KINDS: &[&str] = &[
    "module",
    "function",
    "method",
    "class",
    "interface",
    "type",
    "enum",
    "variable",
    "property",
    "lambda",
    "external",
    "constant",
    "attribute",
    "namespace",
];

const IMPACT_PARAMS: &[Param] = &[
    Param::req("target", TARGET_DOC),
    Param::int("depth", 1, crate::MAX_DEPTH as i64, "3", "How many edges away to follow (1 = direct users)."),
    Param::opt("min_evidence", EVIDENCE, Some("heuristic"), "Weakest evidence tier followed."),
    Param::repeated("kind", EDGE_KIND, "Edge kinds followed (repeatable or comma-separated; default all)."),
    PAGE[0],
    PAGE[1],
];
const SYMBOLS_PARAMS: &[Param] = &[
    Param::req("pattern", "A glob over names and qnames (`*Service`, `src/*#create*`), or text they contain."),
    Param::opt("kind", Kind::Enum(SYMBOL_KINDS), None, "Only symbols of this kind."),
    PAGE[0],
    PAGE[1],
];
const DEF_PARAMS: &[Param] = &[
    Param::req("file", "A file path relative to the indexed root."),
    Param::req_int("line", 1, u32::MAX as i64, "1-based line."),
    Param::req_int("col", 1, u32::MAX as i64, "1-based column, in UTF-8 bytes (as `rg --column`)."),
];
const TARGET_PARAMS: &[Param] = &[Param::req("target", TARGET_DOC), PAGE[0], PAGE[1]];
const WALK_PARAMS: &[Param] = &[
    Param::req("target", TARGET_DOC),
    Param::int("depth", 1, crate::MAX_DEPTH as i64, "1", "How many edges away to follow."),
    PAGE[0],
    PAGE[1],
];
const FILE_PARAMS: &[Param] = &[Param::req("file", "A file path relative to the indexed root."), PAGE[0], PAGE[1]];
const PATH_PARAMS: &[Param] = &[
    Param::req("from", TARGET_DOC),
    Param::req("to", TARGET_DOC),
    Param::int("max_depth", 1, crate::MAX_DEPTH as i64, "16", "The longest chain searched."),
];
const UNUSED_PARAMS: &[Param] = &[
    Param::opt("include_exported", Kind::Bool, Some("false"), "Also report exported (public API) definitions."),
    Param::repeated_whole(
        "entry",
        Kind::Str,
        "Globs of files whose definitions are entry points (`tests/**`, `{src,lib}/main.ts`; repeatable).",
    ),
    PAGE[0],
    PAGE[1],
];

fn target(c: &ServiceConfig, p: &Params, name: &str) -> Result<String, Problem> {
    confine_target(&c.root, p.str(name))
}

fn q_impact(ix: &Index, p: &Params, c: &ServiceConfig) -> Result<Vec<u8>, Problem> {
    let opts = crate::ImpactOptions {
        depth: p.int("depth") as u32,
        min_evidence: p.str("min_evidence").to_string(),
        kinds: p.all("kind"),
        ..crate::ImpactOptions::default()
    };
    paged(ix.impact(&target(c, p, "target")?, &opts)?, p, "impact")
}

fn q_symbols(ix: &Index, p: &Params, _: &ServiceConfig) -> Result<Vec<u8>, Problem> {
    paged(ix.symbols(p.str("pattern"), p.get("kind"), crate::MAX_RESULTS)?, p, "symbols")
}

fn q_def(ix: &Index, p: &Params, c: &ServiceConfig) -> Result<Vec<u8>, Problem> {
    let file = confine(&c.root, p.str("file"))?;
    encode(&ix.def_at(&file, p.int("line") as u32, p.int("col") as u32)?)
}

fn q_refs(ix: &Index, p: &Params, c: &ServiceConfig) -> Result<Vec<u8>, Problem> {
    paged(ix.refs(&target(c, p, "target")?)?, p, "refs")
}

fn q_callers(ix: &Index, p: &Params, c: &ServiceConfig) -> Result<Vec<u8>, Problem> {
    paged(ix.callers(&target(c, p, "target")?, p.int("depth") as u32)?, p, "callers")
}

fn q_callees(ix: &Index, p: &Params, c: &ServiceConfig) -> Result<Vec<u8>, Problem> {
    paged(ix.callees(&target(c, p, "target")?, p.int("depth") as u32)?, p, "callees")
}

fn q_deps(ix: &Index, p: &Params, c: &ServiceConfig) -> Result<Vec<u8>, Problem> {
    paged(ix.deps(&confine(&c.root, p.str("file"))?)?, p, "deps")
}

fn q_rdeps(ix: &Index, p: &Params, c: &ServiceConfig) -> Result<Vec<u8>, Problem> {
    paged(ix.rdeps(&confine(&c.root, p.str("file"))?)?, p, "rdeps")
}

fn q_path(ix: &Index, p: &Params, c: &ServiceConfig) -> Result<Vec<u8>, Problem> {
    encode(&ix.path(&target(c, p, "from")?, &target(c, p, "to")?, p.int("max_depth") as u32)?)
}

fn q_cycles(ix: &Index, p: &Params, _: &ServiceConfig) -> Result<Vec<u8>, Problem> {
    paged(ix.cycles()?, p, "cycles")
}

fn q_unused(ix: &Index, p: &Params, _: &ServiceConfig) -> Result<Vec<u8>, Problem> {
    let opts = crate::UnusedOptions { include_exported: p.bool("include_exported"), entry_globs: p.all("entry") };
    paged(ix.unused(&opts)?, p, "unused")
}

/// The body of `POST /v1/sql`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SqlRequest {
    /// One read-only statement (SELECT, WITH, VALUES, EXPLAIN).
    pub query: String,
    /// At most this many rows are collected (1..=10000, default 1000); then paged.
    #[serde(default)]
    pub limit: Option<usize>,
    /// Page size (1..=1000, default 100) and the token of the previous page.
    #[serde(default)]
    pub page_size: Option<usize>,
    #[serde(default)]
    pub page_token: Option<String>,
}

/// `/v1/status`: the index's state and the service's.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ServiceStatus {
    /// The committed generation the counts were read from (0 before the first index).
    pub generation: i64,
    pub index: IndexState,
    /// True while the watcher keeps the index fresh (`--watch`).
    pub watching: bool,
    /// Totals of the index (absent before the first index).
    pub totals: Option<crate::Status>,
    /// The last committed update seen by this service.
    pub last_update: Option<GenerationEvent>,
    /// Under `--watch`: the error of the last update when it failed (rolled back; the last
    /// committed generation is served and the update is retried). Absent once one succeeds.
    pub watch_error: Option<String>,
    /// Why the index could not be read for this answer (totals and stale are then absent).
    pub read_error: Option<String>,
    /// Files changed or deleted on disk since the generation was committed (size and mtime),
    /// and source files added (see [`crate::Staleness`]).
    pub stale: Option<crate::Staleness>,
    pub uptime_s: u64,
}

/// `/v1/health` and `/v1/ready`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Health {
    pub status: String,
    pub generation: Option<i64>,
}

async fn status(State(s): State<Arc<Service>>) -> Response {
    let (state, watching, last, watch_error) = {
        let live = s.live();
        (live.state.clone(), live.watching, live.last.clone(), live.watch_error.clone())
    };
    let uptime_s = s.started.elapsed().map(|d| d.as_secs()).unwrap_or(0);
    let db_exists = s.config.db.exists();
    let service = Arc::clone(&s);
    let snapshot = if db_exists {
        let task = tokio::task::spawn_blocking(move || -> crate::Result<(crate::Status, crate::Staleness)> {
            let (mut ix, file) = service.checkout()?;
            let out = ix.snapshot(Some(service.config.timeout), |ix| Ok((ix.status()?, ix.staleness()?)));
            service.checkin((ix, file));
            out
        });
        // Within the time limit, as every query: status answers even when no thread is free.
        match tokio::time::timeout(s.config.timeout, task).await.unwrap_or_else(|_| Ok(Err(crate::Error::Timeout(s.config.timeout)))) {
            Ok(Ok(v)) => Ok(v),
            // Status answers while the index cannot be read (a damaged or replaced file under
            // --watch): the reason is in the answer, the watcher's retry in watch_error.
            Ok(Err(e)) if !matches!(state, IndexState::Indexing) => Err(Some(e.to_string())),
            _ => Err(None),
        }
    } else {
        Err(None)
    };
    let (totals, stale, read_error) = match snapshot {
        Ok((t, st)) => (Some(t), Some(st), None),
        Err(e) => (None, None, e),
    };
    let answer = ServiceStatus {
        generation: totals.as_ref().map_or(0, |t| t.generation),
        index: state,
        watching,
        totals,
        last_update: last,
        watch_error,
        read_error,
        stale,
        uptime_s,
    };
    match encode(&answer) {
        Ok(b) => json_response(b),
        Err(p) => p.into_response(),
    }
}

async fn health() -> Response {
    json_response(encode(&Health { status: "ok".into(), generation: None }).unwrap_or_default())
}

async fn ready(State(s): State<Arc<Service>>) -> Response {
    let state = s.live().state.clone();
    if state == IndexState::Indexing || !s.config.db.exists() {
        return Problem::new("not_ready", "the first index is still being built").retry_after(1).into_response();
    }
    s.run(|ix| encode(&Health { status: "ready".into(), generation: Some(ix.generation) })).await
}

async fn sql(State(s): State<Arc<Service>>, req: Request) -> Response {
    if !s.config.allow_sql {
        return Problem::new("sql_disabled", "/v1/sql is off; start the server with --allow-sql to enable read-only SQL").into_response();
    }
    let json = req.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|v| {
        let v = v.to_ascii_lowercase();
        v == "application/json" || v.starts_with("application/json;")
    });
    if !json {
        return Problem::new("unsupported_media_type", "send the query as a JSON body with Content-Type: application/json").into_response();
    }
    let body = match tokio::time::timeout(s.config.timeout, axum::body::to_bytes(req.into_body(), MAX_BODY)).await {
        Ok(Ok(b)) => b,
        Ok(Err(_)) => return Problem::new("body_too_large", format!("the body is larger than {MAX_BODY} bytes")).into_response(),
        Err(_) => return Problem::new("request_timeout", "the body did not arrive in time").into_response(),
    };
    let request: SqlRequest = match serde_json::from_slice(&body) {
        Ok(r) => r,
        Err(e) => return Problem::new("invalid_body", format!("the body is not a valid SQL request: {e}")).into_response(),
    };
    let limit = request.limit.unwrap_or(1000);
    let page_size = request.page_size.unwrap_or(100);
    if !(1..=10_000).contains(&limit) {
        return Problem::new("invalid_parameter", format!("limit must be between 1 and 10000, got {limit}")).into_response();
    }
    if request.query.contains('\0') || request.query.len() > MAX_BODY {
        return Problem::new("invalid_parameter", "the query contains a NUL character").into_response();
    }
    let timeout = s.config.timeout;
    s.run(move |ix| {
        let answer = ix.sql(&request.query, limit, timeout)?;
        let page =
            crate::PageRequest { size: page_size, token: request.page_token.clone(), query: format!("sql?{limit}&{}", request.query) };
        let mut answer = answer;
        crate::paginate(&mut answer, &page)?;
        encode(&answer)
    })
    .await
}

fn status_route() -> MethodRouter<Arc<Service>> {
    get(status)
}

fn health_route() -> MethodRouter<Arc<Service>> {
    get(health)
}

fn ready_route() -> MethodRouter<Arc<Service>> {
    get(ready)
}

fn sql_route() -> MethodRouter<Arc<Service>> {
    post(sql)
}

fn openapi_route() -> MethodRouter<Arc<Service>> {
    get(|State(s): State<Arc<Service>>| async move {
        let mut res = (StatusCode::OK, openapi::document_with(s.extra_endpoints()).to_string()).into_response();
        res.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        res
    })
}

macro_rules! query {
    ($path:literal, $summary:literal, $desc:literal, $params:expr, $answer:ty, $f:expr) => {
        Endpoint {
            path: $path,
            method: Method::GET,
            summary: $summary,
            description: $desc,
            params: $params,
            body: None,
            answer: schema::<$answer>,
            media: "application/json",
            route: Route::Query($f),
        }
    };
}

/// Every endpoint of the service.
pub static ENDPOINTS: &[Endpoint] = &[
    query!(
        "/v1/impact",
        "What is affected if a target changes",
        "Transitive reverse dependencies of a symbol, file or external package, grouped by file (paged by file), each with the chain of edges that makes it impacted, and completeness (gaps that could hide more).",
        IMPACT_PARAMS,
        crate::ImpactAnswer,
        q_impact
    ),
    query!(
        "/v1/symbols",
        "Find symbols",
        "Symbols whose name or qname matches a glob or contains the text.",
        SYMBOLS_PARAMS,
        crate::SymbolsAnswer,
        q_symbols
    ),
    query!("/v1/def", "Definition at a position", "The definition used or defined at FILE:LINE:COL.", DEF_PARAMS, crate::DefAnswer, q_def),
    query!("/v1/refs", "Every use of a target", "All inbound edges of a target, one level.", TARGET_PARAMS, crate::EdgesAnswer, q_refs),
    query!(
        "/v1/callers",
        "Who calls a target",
        "Calls and instantiations of a target, transitively to depth.",
        WALK_PARAMS,
        crate::EdgesAnswer,
        q_callers
    ),
    query!(
        "/v1/callees",
        "What a target calls",
        "Calls and instantiations made by a target, transitively to depth.",
        WALK_PARAMS,
        crate::EdgesAnswer,
        q_callees
    ),
    query!(
        "/v1/deps",
        "What a file depends on",
        "Files and external packages a file depends on, with edge counts.",
        FILE_PARAMS,
        crate::DepsAnswer,
        q_deps
    ),
    query!(
        "/v1/rdeps",
        "What depends on a file",
        "Files that depend on a file, with edge counts.",
        FILE_PARAMS,
        crate::DepsAnswer,
        q_rdeps
    ),
    query!(
        "/v1/path",
        "Why A depends on B",
        "The shortest chain of edges from one target to another.",
        PATH_PARAMS,
        crate::PathAnswer,
        q_path
    ),
    query!(
        "/v1/cycles",
        "Import and call cycles",
        "Import cycles between files and call cycles between symbols (paged as one list: imports, then calls).",
        PAGE_ONLY,
        crate::CyclesAnswer,
        q_cycles
    ),
    query!(
        "/v1/unused",
        "Definitions nothing uses",
        "Definitions with no inbound edges (runtime-called methods and, unless asked, exported API left out).",
        UNUSED_PARAMS,
        crate::UnusedAnswer,
        q_unused
    ),
    Endpoint {
        path: "/v1/sql",
        method: Method::POST,
        summary: "Read-only SQL",
        description: "One read-only statement over the index's tables, time-limited; rows are paged. Off unless the server runs with --allow-sql (403 sql_disabled).",
        params: &[],
        body: Some(schema::<SqlRequest>),
        answer: schema::<crate::SqlAnswer>,
        media: "application/json",
        route: Route::Custom(sql_route),
    },
    Endpoint {
        path: "/v1/status",
        method: Method::GET,
        summary: "State of the index and the service",
        description: "Generation, totals, indexing state, the last update and its latency, staleness.",
        params: &[],
        body: None,
        answer: schema::<ServiceStatus>,
        media: "application/json",
        route: Route::Custom(status_route),
    },
    Endpoint {
        path: "/v1/health",
        method: Method::GET,
        summary: "Liveness",
        description: "200 while the process serves requests. Needs no token.",
        params: &[],
        body: None,
        answer: schema::<Health>,
        media: "application/json",
        route: Route::Custom(health_route),
    },
    Endpoint {
        path: "/v1/ready",
        method: Method::GET,
        summary: "Readiness",
        description: "200 with the generation once an index is loaded; 503 not_ready before.",
        params: &[],
        body: None,
        answer: schema::<Health>,
        media: "application/json",
        route: Route::Custom(ready_route),
    },
    Endpoint {
        path: "/v1/events",
        method: Method::GET,
        summary: "Committed generations, as Server-Sent Events",
        description: "One `generation` event per committed update (generation, files parsed and removed, files re-resolved, latency); the first event (`hello`) describes the current generation. Wait for your edit's generation here instead of polling.",
        params: &[],
        body: None,
        answer: schema::<GenerationEvent>,
        media: "text/event-stream",
        route: Route::Custom(events::route),
    },
    Endpoint {
        path: "/openapi.json",
        method: Method::GET,
        summary: "This document",
        description: "The OpenAPI 3.1 description of the service, generated from the answer types.",
        params: &[],
        body: None,
        answer: schema::<serde_json::Value>,
        media: "application/json",
        route: Route::Custom(openapi_route),
    },
];

const PAGE_ONLY: &[Param] = &PAGE;

fn query_route(method: &Method, spec: &'static [Param], f: QueryFn) -> MethodRouter<Arc<Service>> {
    let handler = move |State(s): State<Arc<Service>>, req: Request<Body>| async move {
        let params = match Params::parse(req.uri().query(), spec) {
            Ok(p) => p,
            Err(problem) => return problem.into_response(),
        };
        let service = Arc::clone(&s);
        s.run(move |ix| f(ix, &params, &service.config)).await
    };
    // A POST of this kind takes its parameters in the query string too (no body).
    if *method == Method::POST { post(handler) } else { get(handler) }
}

/// The router of every endpoint in [`ENDPOINTS`], with a problem+json fallback for unknown
/// routes. Wrap it with [`guard::protect`] before serving.
pub fn router(service: Arc<Service>) -> Router {
    let mut r: Router<Arc<Service>> = Router::new();
    for e in ENDPOINTS.iter().chain(service.extra_endpoints()) {
        let method_router = match e.route {
            Route::Query(f) => query_route(&e.method, e.params, f),
            // Custom handlers take no query parameters: any is refused like a misspelt one.
            Route::Custom(make) => {
                let spec = e.params;
                make().layer(axum::middleware::from_fn(move |req: Request<Body>, next: axum::middleware::Next| async move {
                    match Params::parse(req.uri().query(), spec) {
                        Ok(_) => next.run(req).await,
                        Err(problem) => problem.into_response(),
                    }
                }))
            }
        };
        r = r.route(e.path, method_router);
    }
    r.fallback(|req: Request<Body>| async move {
        Problem::new("unknown_route", format!("no endpoint {} (see /openapi.json)", req.uri().path())).into_response()
    })
    .method_not_allowed_fallback(|req: Request<Body>| async move {
        Problem::new("method_not_allowed", format!("{} is not allowed on {}", req.method(), req.uri().path())).into_response()
    })
    .with_state(service)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower::ServiceExt;

    fn indexed() -> (tempfile::TempDir, ServiceConfig) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.ts"), "export function f() { return 1; }\n").unwrap();
        let config = ckg_core::index::IndexConfig::new(dir.path());
        ckg_core::index::index(&config, &|_| {}).unwrap();
        let service = ServiceConfig::new(dir.path().canonicalize().unwrap(), config.db_path());
        (dir, service)
    }

    async fn body(r: Response) -> String {
        String::from_utf8(axum::body::to_bytes(r.into_body(), 1 << 20).await.unwrap().to_vec()).unwrap()
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
    }

    #[test]
    fn a_panicking_query_is_a_500_without_internals_and_the_service_goes_on() {
        let (_dir, config) = indexed();
        let service = Arc::new(Service::new(config));
        service.set_state(IndexState::Ready);
        runtime().block_on(async {
            let r = Arc::clone(&service).run(|_| panic!("secret internals")).await;
            assert_eq!(r.status(), StatusCode::INTERNAL_SERVER_ERROR);
            let text = body(r).await;
            assert!(text.contains("\"code\":\"internal\"") && !text.contains("secret"), "{text}");
            let r = Arc::clone(&service).run(|ix| encode(&ix.generation)).await;
            assert_eq!((r.status(), body(r).await), (StatusCode::OK, "1".to_string()));
        });
    }

    #[test]
    fn a_panicking_handler_is_caught_by_the_guard() {
        let (_dir, config) = indexed();
        let service = Arc::new(Service::new(config));
        let app: Router = Router::new().route(
            "/boom",
            get(|| async {
                if std::hint::black_box(true) {
                    panic!("secret internals");
                }
                "unreachable"
            }),
        );
        let app = guard::protect(app, Arc::clone(&service));
        runtime().block_on(async {
            let req = Request::builder().uri("/boom").body(Body::empty()).unwrap();
            let r = app.clone().oneshot(req).await.unwrap();
            assert_eq!(r.status(), StatusCode::INTERNAL_SERVER_ERROR);
            let text = body(r).await;
            assert!(text.contains("\"code\":\"internal\"") && !text.contains("secret"), "{text}");
            let req = Request::builder().uri("/nope").body(Body::empty()).unwrap();
            assert_eq!(app.oneshot(req).await.unwrap().status(), StatusCode::NOT_FOUND);
        });
    }

    #[test]
    fn symbol_kinds_are_the_core_ones() {
        let core: Vec<&str> = ckg_core::facts::SymbolKind::ALL.iter().map(|k| k.as_str()).collect();
        assert_eq!(SYMBOL_KINDS, core.as_slice());
    }

    #[test]
    fn queries_wait_for_the_first_index() {
        let (_dir, config) = indexed();
        let service = Arc::new(Service::new(config));
        runtime().block_on(async {
            let r = Arc::clone(&service).run(|ix| encode(&ix.generation)).await;
            assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
            assert_eq!(r.headers().get(header::RETRY_AFTER).unwrap(), "1");
        });
    }
}
