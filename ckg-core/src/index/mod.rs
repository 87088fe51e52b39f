//! The indexing pipeline: discover -> read + hash -> parse + extract (parallel) -> store
//! (one writer) -> resolve -> commit.
//!
//! Unchanged files (same size and mtime, or same content hash) are not parsed again. The
//! whole run is one write transaction, so a killed run leaves the previous generation.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::discover::{self, DiscoverConfig, Discovery, SourceFile};
use crate::error::{Error, Result};
use crate::extract::{ExpandedTables, Extractor};
use crate::facts::Diagnostic;
use crate::lang::Grammar;
use crate::resolve;
use crate::store::{FileIdentity, FileState, Interface, SkippedState, Store, WriteTx, snapshot};

mod file;
mod kept;
mod pool;

use file::{Outcome, process};
pub use kept::Session;
use kept::{Cached, Preloading, SnapshotRows, valid_cache};
use pool::{FileQueue, parse_jobs};
pub use pool::{ParseTuning, parse_only};

/// Files modified this close to the previous scan are re-hashed even when their size and
/// mtime match (coarse filesystem timestamps; git's "racy clean" problem).
const RACY_WINDOW_NS: i64 = 200_000_000;

/// The `meta` key of when the scan that last checked every file started: the stored sizes
/// and times of files written [`RACY_WINDOW_NS`] or less before it are not trusted.
const FILES_CHECKED: &str = "files_checked_ns";

fn now_ns() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as i64).unwrap_or(0)
}

/// The lookup keys that change when a file's interface changes from `old` to `new` (either
/// may be absent: a file added or deleted, or whose module name changed).
fn interface_keys(
    path: &str,
    lang: crate::lang::Lang,
    old_module: Option<&str>,
    old: Option<&Interface>,
    new: Option<(&str, &Interface)>,
) -> Vec<String> {
    let mut keys = Vec::new();
    let new_module = new.map(|(m, _)| m);
    if old_module != new_module || old.is_none() || new.is_none() {
        for m in [old_module, new_module].into_iter().flatten() {
            keys.extend(resolve::module_keys(path, m, lang));
        }
    }
    let empty = Interface::default();
    let old = old.unwrap_or(&empty);
    let new = new.map(|(_, i)| i).unwrap_or(&empty);
    // A symbol added, removed or changed; its name, for heuristic bindings by unique name.
    let changed = old.symbols.iter().filter(|(q, v)| new.symbols.get(*q) != Some(*v)).map(|(q, _)| q);
    for q in changed.chain(new.symbols.keys().filter(|q| !old.symbols.contains_key(*q))) {
        keys.push(format!("q:{q}"));
        keys.push(format!("name:{}", crate::store::last_name(q)));
        // Whether its parent has members (`Resolver::has_members`).
        if let Some((parent, _)) = q.rsplit_once('.') {
            keys.push(format!("members:{parent}"));
        }
    }
    if old.exports != new.exports {
        keys.push(format!("exports:{path}"));
    }
    if old.imports != new.imports {
        keys.push(format!("imports:{path}"));
    }
    keys
}

/// Options for one indexing run.
#[derive(Clone, Debug)]
pub struct IndexConfig {
    pub root: PathBuf,
    /// Defaults to `ROOT/.ckg/index.db`.
    pub db: Option<PathBuf>,
    /// Worker threads for parsing; 0 means one per core.
    pub jobs: usize,
    pub discover: DiscoverConfig,
    /// Delete any existing index first.
    pub rebuild: bool,
    /// A file whose longest line exceeds this many bytes and whose average line is long is
    /// treated as minified and skipped.
    pub minified_line_len: usize,
    /// Compute index-wide totals for the summary (a few milliseconds on large indexes;
    /// the watcher turns it off).
    pub totals: bool,
    /// After a run that resolved, write the names snapshot the next process starts from
    /// (a few milliseconds; the watcher, which keeps the names in memory, turns it off).
    pub snapshot: bool,
    /// The process exits once the run returns (the shell's `ckg index`): what the run ends
    /// with is left to the exit rather than freed. Freed, a full index's references (half a
    /// million on django) took a thread ~90 ms beside the index builds, which returned the
    /// memory to the system page by page.
    pub exits_after: bool,
}

impl IndexConfig {
    pub fn new(root: impl Into<PathBuf>) -> IndexConfig {
        IndexConfig {
            root: root.into(),
            db: None,
            jobs: 0,
            discover: DiscoverConfig::default(),
            rebuild: false,
            minified_line_len: 2000,
            totals: true,
            snapshot: true,
            exits_after: false,
        }
    }

    pub fn db_path(&self) -> PathBuf {
        self.db.clone().unwrap_or_else(|| default_db_path(&self.root))
    }
}

/// Where the index of a root lives by default.
pub fn default_db_path(root: &std::path::Path) -> PathBuf {
    root.join(".ckg").join("index.db")
}

/// Progress reports, sent from the writer thread.
#[derive(Clone, Copy, Debug)]
pub enum Progress {
    Discovered { files: usize, to_parse: usize },
    Parsed { done: usize, total: usize },
    Resolving,
}

/// A file that was not indexed, and why.
#[derive(Clone, Debug, Serialize)]
pub struct SkippedFile {
    pub path: String,
    pub reason: &'static str,
    pub message: String,
}

/// What a run did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    pub root: String,
    pub db: String,
    pub generation: i64,
    /// False when nothing changed and the previous generation was kept.
    pub changed: bool,
    pub rebuilt: Option<String>,
    pub files_by_lang: BTreeMap<String, u64>,
    pub lines: u64,
    pub bytes: u64,
    pub symbols: u64,
    pub externals: u64,
    pub edges_by_kind: BTreeMap<String, u64>,
    pub edges_by_evidence: BTreeMap<String, u64>,
    pub parse_errors: u64,
    pub files_with_parse_errors: u64,
    pub parsed: u64,
    pub unchanged: u64,
    pub removed: u64,
    /// Files whose references were resolved again in this run.
    pub re_resolved: u64,
    /// The ids of the files whose edges (sites) this run replaced or deleted, and so whose
    /// symbols may have changed; `None` when the whole index was built. Lets a reader that
    /// keeps the graph in memory patch it instead of reloading it.
    #[serde(skip)]
    pub edge_files: Option<Vec<i64>>,
    /// The database file this run wrote ([`crate::store::file_identity`]).
    #[serde(skip)]
    pub db_identity: Option<FileIdentity>,
    pub skipped: Vec<SkippedFile>,
    /// Wall time per stage, in milliseconds.
    pub timings_ms: BTreeMap<String, f64>,
    pub jobs: usize,
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e5).round() / 100.0
}

/// Indexes (or updates the index of) a root.
pub fn index(config: &IndexConfig, progress: &(dyn Fn(Progress) + Sync)) -> Result<Summary> {
    let mut session = Session::default();
    let r = index_with(config, progress, &mut session);
    // What the session holds is only freed: not on this thread, so that a process that exits
    // now does not wait for it.
    let_go(session, config.exits_after);
    r
}

/// Lets `value` go without this thread waiting for it: left to the process's exit when it
/// `exits_after` ([`IndexConfig::exits_after`]), else dropped on a thread of its own
/// (`ckg-free`; here, when the thread cannot be started).
fn let_go<T: Send + 'static>(value: T, exits_after: bool) {
    if exits_after {
        std::mem::forget(value);
    } else {
        let _ = std::thread::Builder::new().name("ckg-free".into()).spawn(move || drop(value));
    }
}

/// [`index`], keeping what the next run can reuse in `session`.
///
/// The stages, each timed under its name: discover the tree; open the index and decide which
/// files to read; parse and extract them in parallel while this thread stores their facts;
/// delete what is gone and record what was skipped (`store`); store the project configuration;
/// load and resolve the files whose edges may have changed; write their edges; count the
/// totals; commit (or roll back when nothing changed) and finish; write the names snapshot
/// the next process loads from.
pub fn index_with(config: &IndexConfig, progress: &(dyn Fn(Progress) + Sync), session: &mut Session) -> Result<Summary> {
    let mut timings = BTreeMap::new();
    let run_started = Instant::now();
    let root = config.root.canonicalize().map_err(|e| Error::Io { path: config.root.clone(), source: e })?;
    if !root.is_dir() {
        return Err(Error::NotADirectory(root));
    }
    let db = config.db.clone().unwrap_or_else(|| default_db_path(&root));
    let (mut store, report) = Store::open(&db, config.rebuild)?;
    let fresh = store.is_fresh();
    let mut tx = store.begin()?;
    let build = tx.meta("build_id")?;
    let mut cache = valid_cache(session, &tx, fresh, &db, &build)?;
    let states = tx.file_states()?;
    let skipped = if fresh { HashMap::new() } else { tx.skipped_states()? };
    // Without facts kept from an earlier run, the stored ones are read on another thread as
    // soon as a file is seen with another size or time than stored (read while the walk, the
    // parse and the store go on), or its content is found changed. Not before: on two cores,
    // reading them beside the walk slowed a run that changed nothing by a third (django: 49
    // -> 68 ms).
    let mut preload = Preloading::new(cache.is_none() && !config.rebuild && !fresh, &db);
    let differs = |f: &SourceFile| {
        let stored = states.get(&f.path).map(|s| (s.size, s.mtime_ns)).or_else(|| skipped.get(&f.path).map(|s| (s.size, s.mtime_ns)));
        stored != Some((f.size, f.mtime_ns))
    };
    let walk_cache = db.with_extension("walk");
    let t = Instant::now();
    // Before the files are stat'ed: a file written after this is not trusted by the next run.
    let scan_started = now_ns();
    // A fresh index parses every file: a grammar's expanded table is started as soon as the
    // walk has seen enough of its files (made on a thread of its own while the walk goes on).
    let seen_of_grammar: [AtomicUsize; Grammar::ALL.len()] = Default::default();
    let (discovery, listing) = discover_tree(&root, config, &walk_cache, &|f| {
        if differs(f) {
            preload.start();
        }
        let grammar = f.lang.grammar();
        if fresh && seen_of_grammar[grammar.slot()].fetch_add(1, Ordering::Relaxed) + 1 == EXPANDED_TABLES_FROM {
            let _ = grammar.expanded_language_if_made();
        }
    })?;
    timings.insert("discover".to_string(), ms(t.elapsed()));

    let mut changes = Changes::new(fresh, cache.is_some() || preload.wanted, &discovery);
    let (to_parse, unchanged) = files_to_parse(&tx, &discovery, &states, &skipped, &mut changes)?;
    if fresh {
        changes.memory_input.reserve_for_source(to_parse.len(), to_parse.iter().map(|f| f.size).sum());
    }
    progress(Progress::Discovered { files: discovery.files.len(), to_parse: to_parse.len() });

    let jobs = parse_jobs(config.jobs);
    let t = Instant::now();
    let mut store_time =
        parse_and_store(&tx, &states, &to_parse, jobs, config.minified_line_len, progress, &mut changes, &mut || preload.start())?;
    timings.insert("parse_extract".to_string(), ms(t.elapsed()));
    let w = Instant::now();
    remove_gone_and_record_skipped(&tx, &discovery, &states, &skipped, &mut changes)?;
    if !fresh {
        reclaim_shadowed(&tx, &discovery, &states, config, &mut changes)?;
    }
    store_time += w.elapsed();
    timings.insert("store".to_string(), ms(store_time));
    let configs_changed = store_configs(&tx, &discovery, &mut changes)?;

    let changed = !changes.changed_files.is_empty()
        || changes.removed > 0
        || changes.diagnostics_changed
        || configs_changed
        || report.created
        || report.rebuilt.is_some();
    let resolved = if changed {
        progress(Progress::Resolving);
        let started = Instant::now();
        if cache.is_none() && !fresh {
            // Started here when nothing was parsed (files removed, configuration changed).
            preload.start();
            if let Some(p) = preload.take() {
                session.cached = p.join();
                cache = valid_cache(session, &tx, fresh, &db, &build)?;
            }
        }
        let (written, input) = resolve_changes(&mut tx, &mut changes, cache.take(), started, &mut timings)?;
        cache = Some(Cached::new(db.clone(), build.clone(), input, config.exits_after));
        Some(written)
    } else {
        None
    };
    if let Some(p) = preload.take() {
        p.cancel();
    }
    let snapshot_rows = match cache.take() {
        Some(c) if changed && config.snapshot => {
            Some(SnapshotRows::start(c, resolved.as_ref().and_then(|r| r.prior_snapshot.clone()), &changes))
        }
        kept => {
            cache = kept;
            None
        }
    };
    let t = Instant::now();
    let counts = totals(&tx, config.totals, &mut changes, changed)?;
    timings.insert("totals".to_string(), ms(t.elapsed()));
    let t = Instant::now();
    let re_resolved = resolved.as_ref().map_or(0, |r| r.re_resolved);
    let generation = if changed {
        commit_run(tx, scan_started, run_started, &changes, re_resolved, &serde_json::to_string(&timings).unwrap_or_default(), &root)?
    } else {
        keep_generation(tx, scan_started, changes.metadata_changed)?
    };
    timings.insert("commit".to_string(), ms(t.elapsed()));
    let t = Instant::now();
    let db_identity = store.finish()?;
    if let Some(listing) = listing {
        discover::cache::save(&listing, &walk_cache);
    }
    timings.insert("finish".to_string(), ms(t.elapsed()));
    if let Some(rows) = snapshot_rows {
        let t = Instant::now();
        cache = Some(rows.write(&db, &snapshot::Stamp { generation, scan_started_ns: scan_started, build: build.clone() }));
        timings.insert("snapshot".to_string(), ms(t.elapsed()));
    }
    session.cached = cache.map(|c| Cached { generation, ..c });
    Ok(Summary {
        root: root.display().to_string(),
        db: db.display().to_string(),
        generation,
        changed,
        rebuilt: report.rebuilt,
        files_by_lang: counts.files_by_lang,
        lines: counts.lines,
        bytes: counts.bytes,
        symbols: counts.symbols,
        externals: counts.externals,
        edges_by_kind: counts.edges_by_kind,
        edges_by_evidence: counts.edges_by_evidence,
        parse_errors: counts.parse_errors,
        files_with_parse_errors: counts.files_with_parse_errors,
        parsed: changes.changed_files.len() as u64,
        unchanged,
        removed: changes.removed,
        re_resolved,
        edge_files: resolved.map_or(Some(Vec::new()), |r| r.edge_files),
        db_identity,
        skipped: skipped_files(changes.skipped),
        timings_ms: timings,
        jobs,
    })
}

/// What resolving a run's changes wrote, for its summary and the names snapshot.
struct Written {
    re_resolved: u64,
    /// The files whose edges were replaced or deleted (`None` in a fresh build).
    edge_files: Option<Vec<i64>>,
    /// Where the names snapshot the cached facts were read from ends: the run's record goes
    /// there.
    prior_snapshot: Option<snapshot::Tail>,
}

/// Loads what resolution reads (`resolve_load`, timed from `started`), resolves the files whose
/// edges may have changed and writes their edges (`resolve`, of which `store_edges` writing);
/// returns what it wrote and the facts it read (cached for the next run).
fn resolve_changes(
    tx: &mut WriteTx,
    changes: &mut Changes,
    cache: Option<Cached>,
    started: Instant,
    timings: &mut BTreeMap<String, f64>,
) -> Result<(Written, crate::store::ResolveInput)> {
    let affected = affected_files(tx, changes)?;
    let prior_snapshot = cache.as_ref().and_then(|c| c.snapshot.clone());
    let input = resolve_input(tx, changes, cache, affected.as_ref())?;
    timings.insert("resolve_load".to_string(), ms(started.elapsed()));
    let files = resolve::files_to_resolve(&input, affected.as_ref());
    let writing = write_edges(tx, &input, &files, changes)?;
    timings.insert("resolve".to_string(), ms(started.elapsed()));
    timings.insert("store_edges".to_string(), ms(writing.time));
    Ok((Written { re_resolved: files.len() as u64, edge_files: writing.edge_files, prior_snapshot }, input))
}

/// The generation of a run that changed no fact. Files checked again (new times of the same
/// content) are recorded in it, so that they are trusted from now on; else the run is rolled
/// back.
fn keep_generation(tx: WriteTx, scan_started: i64, metadata_changed: bool) -> Result<i64> {
    let generation = tx.generation()?;
    if metadata_changed {
        tx.set_meta(FILES_CHECKED, &scan_started.to_string())?;
        tx.commit_metadata()?;
    }
    Ok(generation)
}

/// The files not indexed, by path, with the reason.
fn skipped_files(skipped: Vec<(String, Diagnostic)>) -> Vec<SkippedFile> {
    let mut files: Vec<SkippedFile> =
        skipped.into_iter().map(|(path, d)| SkippedFile { path, reason: d.kind.as_str(), message: d.message }).collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files
}

/// What the stages of one run hand on to the next: what changed so far, and the facts kept
/// in memory for resolution.
struct Changes {
    /// A fresh build: every file is new, and its facts are resolved from memory.
    fresh: bool,
    /// The previous run's facts are cached: the rows written are kept to update the cache.
    keep_rows: bool,
    /// The files written in this run.
    changed_files: HashSet<i64>,
    /// The files deleted in this run (gone from the tree, or now skipped).
    gone_files: HashSet<i64>,
    removed: u64,
    /// Files not indexed: skipped by discovery or by the parser threads.
    skipped: Vec<(String, Diagnostic)>,
    /// Lookup keys whose answer may have changed: the files that looked one up are resolved
    /// again.
    changed_keys: Vec<String>,
    /// A fresh build's facts, as written.
    memory_input: crate::store::ResolveInput,
    /// Diagnostics of skipped or vanished files were added, changed or deleted.
    diagnostics_changed: bool,
    /// The size and time of the files skipped for what they hold (see `skipped_for_content`).
    skipped_stats: HashMap<String, (u64, i64)>,
    /// What is recorded of the files changed, and none of their facts: new times of unchanged
    /// content, or of skipped files (committed without a new generation).
    metadata_changed: bool,
    /// Rows of the files written in this run, for the cache.
    cache_rows: crate::store::ResolveInput,
}

impl Changes {
    fn new(fresh: bool, keep_rows: bool, discovery: &Discovery) -> Changes {
        Changes {
            fresh,
            keep_rows,
            changed_files: HashSet::new(),
            gone_files: HashSet::new(),
            removed: 0,
            skipped: discovery.skipped.iter().map(|s| (s.path.clone(), s.diagnostic.clone())).collect(),
            changed_keys: Vec::new(),
            memory_input: crate::store::ResolveInput::default(),
            diagnostics_changed: false,
            skipped_stats: HashMap::new(),
            metadata_changed: false,
            cache_rows: crate::store::ResolveInput::default(),
        }
    }

    /// The files whose rows this run replaced (written or deleted), ascending.
    fn replaced_files(&self) -> Vec<i64> {
        let mut files: Vec<i64> = self.changed_files.union(&self.gone_files).copied().collect();
        files.sort_unstable();
        files
    }
}

/// The files under the (canonical) root, never our own database folder; with the walk's
/// listing when it changed (saved once the run is committed). A rebuild walks the tree whole.
fn discover_tree(
    root: &Path,
    config: &IndexConfig,
    cache: &Path,
    seen: &(dyn Fn(&SourceFile) + Sync),
) -> Result<(Discovery, Option<discover::cache::Listing>)> {
    let mut discover_config = config.discover.clone();
    // Never index our own database folder.
    discover_config.exclude.push(discover::OWN_FOLDER.into());
    if config.rebuild {
        // From scratch: the tree is walked whole, not brought up to date from the last walk.
        let _ = std::fs::remove_file(cache);
    }
    discover::discover_cached(root, &discover_config, cache, seen)
}

/// The files to read, and how many are unchanged. The files to read: those whose size, time or module name differ from what is stored, and
/// those written too close to the scan that recorded them. A file skipped for what it holds
/// and unchanged since is skipped again without reading it (into `changes`).
fn files_to_parse<'d>(
    tx: &WriteTx,
    discovery: &'d Discovery,
    states: &HashMap<String, FileState>,
    skipped: &HashMap<String, SkippedState>,
    changes: &mut Changes,
) -> Result<(Vec<&'d SourceFile>, u64)> {
    // Timestamps are coarse: a file written in the same tick as the scan that recorded it
    // could have changed again without a new mtime. Such "racily clean" files are always
    // re-hashed.
    let racy_after = tx.meta(FILES_CHECKED)?.and_then(|v| v.parse::<i64>().ok()).unwrap_or(i64::MAX).saturating_sub(RACY_WINDOW_NS);

    // Unchanged size, mtime and module name: trust the stored facts without reading the file.
    let mut to_parse: Vec<&SourceFile> = Vec::new();
    let mut unchanged = 0u64;
    for f in &discovery.files {
        let same = |size: u64, mtime_ns: i64| size == f.size && mtime_ns == f.mtime_ns && f.mtime_ns < racy_after;
        match (states.get(&f.path), skipped.get(&f.path)) {
            (Some(s), _) if same(s.size, s.mtime_ns) && s.module == f.module => unchanged += 1,
            (None, Some(SkippedState { size, mtime_ns, diagnostic: Some(d) })) if same(*size, *mtime_ns) => {
                changes.skipped.push((f.path.clone(), d.clone()));
                changes.skipped_stats.insert(f.path.clone(), (f.size, f.mtime_ns));
            }
            _ => to_parse.push(f),
        }
    }
    Ok((to_parse, unchanged))
}

/// How many files of a grammar a run parses from which it parses them with the grammar's
/// expanded tables ([`Extractor::with_expanded_tables`]): making a grammar's table takes about
/// as long as parsing a few files, once per process.
const EXPANDED_TABLES_FROM: usize = 32;

/// Reads, checks and extracts `to_parse` while storing each file's outcome; returns the time
/// spent storing. This thread is the writer and one of the `jobs` parser threads: between
/// two files of its own it stores what the other threads sent, and its own file as soon as
/// it is extracted. (With a writer thread of its own beside `jobs` parser threads, the writer
/// woke for each batch of files and took a core from a parser thread: django's full index
/// made 1,066 context switches, 277 with the writer parsing too.) `content_changed` is
/// called for each file found changed: for this thread's own files before they are
/// extracted (an edit's one file: the stored facts are read meanwhile, see `Preload`).
#[allow(clippy::too_many_arguments)] // the run's state, each part borrowed as the stage needs it
fn parse_and_store(
    tx: &WriteTx,
    states: &HashMap<String, FileState>,
    to_parse: &[&SourceFile],
    jobs: usize,
    minified_line_len: usize,
    progress: &(dyn Fn(Progress) + Sync),
    changes: &mut Changes,
    content_changed: &mut dyn FnMut(),
) -> Result<Duration> {
    // A file whose module name changed must be extracted again (qnames).
    let old_state = |f: &SourceFile| states.get(&f.path).filter(|s| s.module == f.module);
    let total = to_parse.len();
    let mut store_time = Duration::ZERO;
    let mut done = 0;
    let mut store = |outcome: Outcome| -> Result<()> {
        let w = Instant::now();
        store_outcome(tx, states, outcome, changes)?;
        store_time += w.elapsed();
        done += 1;
        progress(Progress::Parsed { done, total });
        Ok(())
    };
    // The expanded tables pay for themselves after a few files; one file's edit does without.
    let expanded = ExpandedTables::for_files(to_parse.iter().map(|f| f.lang), EXPANDED_TABLES_FROM);
    let new_extractor = move || Extractor::with_expanded_tables(expanded);
    // Files are taken one by one by whichever thread is free; after a failed store, none more.
    let queue = &FileQueue::new(to_parse);
    let helpers = parse_jobs(jobs).min(total).saturating_sub(1);
    let (sender, receiver) = mpsc::channel::<Outcome>();
    std::thread::scope(|scope| {
        for i in 0..helpers {
            let sender = sender.clone();
            let spawned = std::thread::Builder::new().name(format!("ckg-parse-{i}")).spawn_scoped(scope, move || {
                let mut ex = new_extractor();
                while let Some(f) = queue.take() {
                    if sender.send(process(&mut ex, f, old_state(f), minified_line_len, &mut || {})).is_err() {
                        break;
                    }
                }
            });
            if let Err(e) = spawned {
                queue.stop();
                return Err(Error::Invalid(format!("cannot start {} parser threads: {e}", helpers + 1)));
            }
        }
        drop(sender);
        let mut ex = None;
        let stored = (|| {
            // The other threads' outcomes as they came, then this thread's next file, until
            // the files run out; then the rest of theirs, as they finish.
            let mut own = queue.take();
            loop {
                let outcomes: &mut dyn Iterator<Item = Outcome> = match own {
                    Some(_) => &mut receiver.try_iter(),
                    None => &mut receiver.iter(),
                };
                for outcome in outcomes {
                    if matches!(outcome, Outcome::Indexed(_)) {
                        content_changed();
                    }
                    store(outcome)?;
                }
                let Some(f) = own else { return Ok(()) };
                store(process(ex.get_or_insert_with(new_extractor), f, old_state(f), minified_line_len, &mut *content_changed))?;
                own = queue.take();
            }
        })();
        if stored.is_err() {
            queue.stop();
        }
        stored
    })?;
    Ok(store_time)
}

/// Stores what the parser threads made of one file: its new facts, its new metadata, or (now
/// skipped) its removal.
fn store_outcome(tx: &WriteTx, states: &HashMap<String, FileState>, outcome: Outcome, changes: &mut Changes) -> Result<()> {
    match outcome {
        Outcome::Indexed(rec) => {
            if !changes.fresh {
                let old = match states.get(&rec.path) {
                    Some(s) => Some(tx.interface(s.id)?),
                    None => None,
                };
                let old_module = states.get(&rec.path).map(|s| s.module.as_str());
                changes.changed_keys.extend(interface_keys(
                    &rec.path,
                    rec.lang,
                    old_module,
                    old.as_ref(),
                    Some((&rec.module, &Interface::of(&rec))),
                ));
            }
            let (id, ids) = tx.put_file(&rec)?;
            changes.changed_files.insert(id);
            if changes.fresh {
                changes.memory_input.add_file(id, *rec, &ids);
            } else if changes.keep_rows {
                let mut rec = *rec;
                rec.facts.refs.clear(); // loaded for the affected files below
                changes.cache_rows.add_file(id, rec, &ids);
            }
        }
        Outcome::Touched { id, size, mtime_ns } => {
            tx.touch_file(id, size, mtime_ns)?;
            changes.metadata_changed = true;
        }
        Outcome::Skipped { path, diagnostic, stat } => {
            if let Some(s) = states.get(&path) {
                remove_file(tx, &path, s, changes)?;
            }
            if let Some(stat) = stat {
                changes.skipped_stats.insert(path.clone(), stat);
            }
            changes.skipped.push((path, diagnostic));
        }
    }
    Ok(())
}

/// Deletes a stored file, noting the lookup keys its interface answered.
fn remove_file(tx: &WriteTx, path: &str, state: &FileState, changes: &mut Changes) -> Result<()> {
    let old = tx.interface(state.id)?;
    let lang = crate::lang::Lang::from_path(path).unwrap_or(crate::lang::Lang::TypeScript);
    changes.changed_keys.extend(interface_keys(path, lang, Some(&state.module), Some(&old), None));
    tx.delete_file(state.id)?;
    changes.gone_files.insert(state.id);
    changes.removed += 1;
    Ok(())
}

/// Files whose claim on a qname is free again (its owner dropped the definition or went) are
/// extracted and stored again, so that the name ends up where a fresh index puts it.
fn reclaim_shadowed(
    tx: &WriteTx,
    discovery: &Discovery,
    states: &HashMap<String, FileState>,
    config: &IndexConfig,
    changes: &mut Changes,
) -> Result<()> {
    let paths = tx.files_reclaiming()?;
    if paths.is_empty() {
        return Ok(());
    }
    let wanted: HashSet<&str> = paths.iter().map(String::as_str).collect();
    let files: Vec<&SourceFile> = discovery.files.iter().filter(|f| wanted.contains(f.path.as_str())).collect();
    // Without their stored state, unchanged files are extracted and stored again.
    let states: HashMap<String, FileState> =
        states.iter().filter(|(p, _)| !wanted.contains(p.as_str())).map(|(p, s)| (p.clone(), s.clone())).collect();
    parse_and_store(tx, &states, &files, parse_jobs(config.jobs), config.minified_line_len, &|_| {}, changes, &mut || {})?;
    Ok(())
}

/// Deletes the files that are gone from the tree (deleted, now ignored, or now skipped) and
/// records the diagnostics of the skipped ones (and the size and time of those skipped for
/// their content).
fn remove_gone_and_record_skipped(
    tx: &WriteTx,
    discovery: &Discovery,
    states: &HashMap<String, FileState>,
    skipped: &HashMap<String, SkippedState>,
    changes: &mut Changes,
) -> Result<()> {
    // Files that are gone from the tree (deleted, now ignored, or now skipped).
    let live: HashSet<&str> = discovery.files.iter().map(|f| f.path.as_str()).collect();
    for (path, state) in states {
        if !live.contains(path.as_str()) {
            remove_file(tx, path, state, changes)?;
        }
    }
    // Python packages that appeared or disappeared change how dotted imports resolve; they
    // cannot unless a Python file came, went or changed module.
    let is_py = |p: &str| p.ends_with(".py") || p.ends_with(".pyi");
    let py_files = || discovery.files.iter().filter(|f| is_py(&f.path));
    let same_modules = || {
        py_files().count() == states.keys().filter(|p| is_py(p)).count()
            && py_files().all(|f| states.get(&f.path).is_some_and(|s| s.module == f.module))
    };
    if !changes.fresh && !same_modules() {
        let old_pkgs = resolve::python_packages(states.iter().filter(|(p, _)| is_py(p)).map(|(_, s)| s.module.as_str()));
        let new_pkgs = resolve::python_packages(py_files().map(|f| f.module.as_str()));
        changes.changed_keys.extend(old_pkgs.symmetric_difference(&new_pkgs).map(|p| format!("py:{p}")));
    }
    // A skipped file's diagnostic is all the index holds of it: a new one is a change.
    for (path, diag) in &changes.skipped {
        changes.diagnostics_changed |= tx.put_diagnostics(path, std::slice::from_ref(diag))?;
    }
    let mut live_paths: HashSet<&str> = live.clone();
    live_paths.extend(changes.skipped.iter().map(|(p, _)| p.as_str()));
    changes.diagnostics_changed |= tx.retain_diagnostics(&live_paths)?;
    changes.metadata_changed |= tx.update_skipped(skipped, &changes.skipped_stats)?;
    Ok(())
}

/// Stores the project configuration when it changed; returns whether it did.
fn store_configs(tx: &WriteTx, discovery: &Discovery, changes: &mut Changes) -> Result<bool> {
    // Project configuration: any change re-resolves the files that resolved bare specifiers.
    let mut configs = std::collections::BTreeMap::new();
    for (rel, abs) in &discovery.configs {
        if let Ok(content) = std::fs::read_to_string(abs)
            && content.len() <= 1 << 20
        {
            configs.insert(rel.clone(), content);
        }
    }
    let configs_changed = changes.fresh || tx.configs()? != configs;
    if configs_changed {
        tx.put_configs(&configs)?;
        changes.changed_keys.push("config".to_string());
    }
    changes.memory_input.configs = configs.into_iter().collect();
    Ok(configs_changed)
}

/// The files to resolve again (`None`: all of them, in a fresh build).
fn affected_files(tx: &WriteTx, changes: &Changes) -> Result<Option<HashSet<i64>>> {
    // Re-resolve the changed files and every file whose last resolution looked up
    // something that changed; nothing else can have different edges.
    if changes.fresh {
        return Ok(None);
    }
    let keys: HashSet<u32> = changes.changed_keys.iter().map(|k| resolve::lookup_key(k)).collect();
    let mut affected = tx.files_looking_up(&keys)?;
    affected.extend(changes.changed_files.iter().copied());
    Ok(Some(affected))
}

/// What resolution reads: a fresh build's facts from memory; else the cached facts with this
/// run's files replaced, or (no cache) the stored ones; with the references of the affected
/// files.
fn resolve_input(
    tx: &WriteTx,
    changes: &mut Changes,
    cache: Option<Cached>,
    affected: Option<&HashSet<i64>>,
) -> Result<crate::store::ResolveInput> {
    // Facts kept in memory hold every definition of a qname two files define; resolution
    // must see only the owner's, as the database holds them. (Read back from the database
    // instead, salt's facts took 176 ms, for one qname two files define.)
    let conflicts = tx.had_qname_conflicts();
    Ok(if changes.fresh {
        let mut input = std::mem::take(&mut changes.memory_input);
        input.keep_owned_definitions(&tx.qname_owners());
        input.files.sort_by(|a, b| a.path.cmp(&b.path));
        input
    } else if let Some(mut c) = cache.filter(|_| !conflicts) {
        // The cached facts, with this run's files replaced, and the references of the
        // files to resolve read back.
        c.input.remove_files(changes.replaced_files());
        c.input.extend(std::mem::take(&mut changes.cache_rows));
        c.input.refs = tx.load_refs(affected)?;
        c.input.configs = std::mem::take(&mut changes.memory_input.configs);
        c.input
    } else {
        tx.load_resolve_input(affected)?
    })
}

/// What [`write_edges`] did: the files whose edges were replaced or deleted (`None` in a fresh
/// build), and the time spent writing (while resolution went on).
struct EdgesWritten {
    edge_files: Option<Vec<i64>>,
    time: Duration,
}

/// Resolves `files` and replaces their edges and what their resolution looked up, writing each
/// batch of edges while the next one is resolved.
fn write_edges(tx: &mut WriteTx, input: &crate::store::ResolveInput, files: &[i64], changes: &Changes) -> Result<EdgesWritten> {
    let started = Instant::now();
    let edge_files = (!changes.fresh).then(|| {
        let mut all: Vec<i64> = files.iter().chain(&changes.gone_files).copied().collect();
        all.sort_unstable();
        all.dedup();
        all
    });
    let mut time = started.elapsed();
    let mut facts_indexed = false;
    resolve::resolve_into(input, files, |batch| {
        let w = Instant::now();
        // While the resolver is made and the first files resolve: the writer is otherwise
        // idle until they come.
        if !facts_indexed {
            tx.index_facts()?;
            facts_indexed = true;
        }
        for resolved in &batch {
            tx.write_edges(resolved.file, &resolved.edges)?;
            tx.put_lookups(resolved.file, &resolved.keys)?;
        }
        time += w.elapsed();
        Ok::<(), Error>(())
    })?;
    let w = Instant::now();
    tx.collect_garbage()?;
    Ok(EdgesWritten { edge_files, time: time + w.elapsed() })
}

/// The `meta` key of the index-wide totals, as the last run that computed them left them.
const TOTALS: &str = "totals";

/// The index-wide totals for the summary, when `wanted`: recorded in `meta` by the run that
/// computed them, and read back from there while nothing changes.
fn totals(tx: &WriteTx, wanted: bool, changes: &mut Changes, changed: bool) -> Result<crate::store::Counts> {
    if !wanted {
        if changed {
            tx.delete_meta(TOTALS)?;
        }
        return Ok(crate::store::Counts::default());
    }
    if !changed && let Some(counts) = tx.meta(TOTALS)?.and_then(|json| serde_json::from_str(&json).ok()) {
        return Ok(counts);
    }
    let counts = tx.counts()?;
    tx.set_meta(TOTALS, &serde_json::to_string(&counts).unwrap_or_default())?;
    // Kept by a run that changes nothing else too (in the same generation).
    changes.metadata_changed = true;
    Ok(counts)
}

/// Records the scan and the run in `meta`, bumps the generation and commits.
fn commit_run(
    tx: WriteTx,
    scan_started: i64,
    run_started: Instant,
    changes: &Changes,
    re_resolved: u64,
    stats_json: &str,
    root: &Path,
) -> Result<i64> {
    tx.set_meta("scan_started_ns", &scan_started.to_string())?;
    tx.set_meta(FILES_CHECKED, &scan_started.to_string())?;
    tx.set_meta("last_update_ms", &format!("{:.2}", run_started.elapsed().as_secs_f64() * 1e3))?;
    tx.set_meta(
        "last_update_files",
        &format!("{} parsed, {} removed, {} re-resolved", changes.changed_files.len(), changes.removed, re_resolved),
    )?;
    tx.commit(stats_json, root)
}

#[cfg(test)]
mod tests {
    use super::file::minified;
    use super::pool::{file_by_file, parse_pool};
    use super::*;
    use crate::facts::DiagnosticKind;
    use crate::lang::Lang;

    fn source(dir: &std::path::Path, name: &str) -> SourceFile {
        SourceFile { path: name.into(), abs: dir.join(name), lang: Lang::Python, size: 0, mtime_ns: 0, module: "m".into() }
    }

    #[test]
    fn a_file_that_vanishes_after_discovery_is_a_diagnostic() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("m.py"), "def f(): pass\n").unwrap();
        let file = source(dir.path(), "m.py");
        std::fs::remove_file(dir.path().join("m.py")).unwrap();
        match process(&mut Extractor::new(), &file, None, 2000, &mut || {}) {
            Outcome::Skipped { path, diagnostic, .. } => {
                assert_eq!(path, "m.py");
                assert_eq!(diagnostic.kind, DiagnosticKind::Vanished);
            }
            _ => panic!("expected a skip"),
        }
    }

    #[test]
    fn same_content_with_new_metadata_is_only_touched() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("m.py"), "def f(): pass\n").unwrap();
        let file = source(dir.path(), "m.py");
        let hash = xxhash_rust::xxh3::xxh3_64(b"def f(): pass\n");
        let old = FileState { id: 7, hash, size: 1, mtime_ns: 1, module: "m".into() };
        assert!(matches!(process(&mut Extractor::new(), &file, Some(&old), 2000, &mut || {}), Outcome::Touched { id: 7, .. }));
    }

    #[test]
    fn files_are_taken_one_by_one_in_order_and_each_once() {
        let files: Vec<SourceFile> = ["a", "b", "c", "d", "e"].iter().map(|n| source(std::path::Path::new("/"), n)).collect();
        let refs: Vec<&SourceFile> = files.iter().rev().collect();
        let seen = std::sync::Mutex::new(Vec::new());
        file_by_file(&parse_pool(1, refs.len()).unwrap(), &refs, Extractor::new, |_, f| seen.lock().unwrap().push(f.path.clone()));
        assert_eq!(seen.lock().unwrap().join(" "), "e d c b a");
        seen.lock().unwrap().clear();
        file_by_file(&parse_pool(2, refs.len()).unwrap(), &refs, Extractor::new, |_, f| seen.lock().unwrap().push(f.path.clone()));
        let mut all = seen.into_inner().unwrap();
        all.sort();
        assert_eq!(all.join(" "), "a b c d e");
    }

    /// A fresh build resolves from the facts it kept in memory as it stored them. Where two
    /// files define one qname (a package's `helper` and its module `pkg.helper`; a class
    /// `pkg.C` with a method, and a module `pkg/C.py` with a function of the same qname),
    /// those must be what the database holds, the owner's definitions only, whichever file
    /// is stored first.
    #[test]
    fn facts_kept_in_memory_are_the_stored_ones_when_two_files_define_a_qname() {
        let dir = tempfile::tempdir().unwrap();
        let files = [
            ("main.py", "main", "from pkg import helper\nimport pkg.helper\n\n\ndef go():\n    return helper() + pkg.helper.inner()\n"),
            ("pkg/C.py", "pkg.C", "def m():\n    return 2\n"),
            ("pkg/__init__.py", "pkg", "def helper():\n    return 1\n\n\nclass C:\n    def m(self):\n        return helper()\n"),
            ("pkg/helper.py", "pkg.helper", "X = 1\n\n\ndef inner():\n    return X\n"),
        ];
        std::fs::create_dir(dir.path().join("pkg")).unwrap();
        let sources: Vec<SourceFile> = files
            .iter()
            .map(|(path, module, text)| {
                std::fs::write(dir.path().join(path), text).unwrap();
                SourceFile { module: module.to_string(), ..source(dir.path(), path) }
            })
            .collect();
        // Loader order, without what the loader leaves out (a symbol's name), and each site
        // with its symbol's id (rather than where its file's list of ids has it).
        let comparable = |mut input: crate::store::ResolveInput| {
            input.sort_as_loaded();
            input.symbols.iter_mut().for_each(|s| s.name.clear());
            let site = |s: crate::store::RefSite| format!("{} {} {:?}", s.file, s.src, crate::facts::RefFact { src: 0, ..s.fact.clone() });
            let mut sites: Vec<String> = input.refs.iter().flat_map(|r| r.sites()).map(site).collect();
            sites.sort();
            format!("{:?}\n{:?}\n{:?}\n{:?}\n{sites:?}", input.files, input.symbols, input.imports, input.exports)
        };
        for reversed in [false, true] {
            let (mut store, _) = Store::open(&dir.path().join(format!("index-{reversed}.db")), true).unwrap();
            let tx = store.begin().unwrap();
            let mut changes = Changes::new(true, false, &Discovery::default());
            let mut order: Vec<&SourceFile> = sources.iter().collect();
            if reversed {
                order.reverse();
            }
            for f in order {
                store_outcome(&tx, &HashMap::new(), process(&mut Extractor::new(), f, None, 2000, &mut || {}), &mut changes).unwrap();
            }
            let owners = tx.qname_owners();
            assert_eq!(owners.len(), 3, "pkg.helper, pkg.C and pkg.C.m are each defined twice: {owners:?}");
            let kept = comparable(resolve_input(&tx, &mut changes, None, None).unwrap());
            assert_eq!(kept, comparable(tx.load_resolve_input(None).unwrap()), "stored in reverse path order: {reversed}");
        }
    }

    #[test]
    fn minified_detection_needs_long_lines_on_average() {
        assert!(minified(&vec![b'a'; 5000], 2000).is_some());
        let normal = "x = 1\n".repeat(2000);
        assert!(minified(normal.as_bytes(), 2000).is_none());
        let one_long = format!("{}\n{}", "a".repeat(3000), "b = 2\n".repeat(500));
        assert!(minified(one_long.as_bytes(), 2000).is_none());
    }
}
