//! Watch mode: keep the index fresh as files change.
//!
//! Events from `notify` are only a signal. After the first relevant event, events are
//! collected until the tree has been quiet for the debounce interval (or a batch has been
//! open for `max_batch`), then one incremental [`index`] run brings the index up to date in
//! one transaction. Because the run rescans sizes and mtimes rather than trusting the event
//! list, editors' write-temp-then-rename saves, directory moves and deletions, branch switches
//! and event overflows all end in the same, correct state. Readers keep answering from the
//! previous generation while a batch is applied.
//!
//! A batch that fails (disk full, database read-only or locked, a file system error) rolls
//! back as one transaction: the index keeps its last committed generation, the failure is
//! reported, and the batch is tried again after a growing pause (or at the next change) until
//! it succeeds. A database file removed or replaced while watching is noticed within a tick
//! and indexed again from scratch.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::{RecursiveMode, Watcher};

use crate::discover::skipped_dir;
use crate::error::{Error, Result};
use crate::index::{IndexConfig, Session, Summary, index_with};
use crate::lang::Lang;
use crate::store::file_identity;

/// Options for watching.
#[derive(Clone, Debug)]
pub struct WatchConfig {
    pub index: IndexConfig,
    /// Quiet time that ends a batch.
    pub debounce: Duration,
    /// A batch is applied after this long even if events keep coming.
    pub max_batch: Duration,
}

impl WatchConfig {
    pub fn new(mut index: IndexConfig) -> WatchConfig {
        index.totals = false;
        index.snapshot = false;
        WatchConfig { index, debounce: Duration::from_millis(30), max_batch: Duration::from_millis(500) }
    }
}

/// One applied batch.
#[derive(Clone, Debug)]
pub struct Update {
    /// Paths the events named (deduplicated, relevant ones only; empty after an overflow).
    pub event_paths: usize,
    /// True when the watcher lost events and the update rescanned everything.
    pub rescan: bool,
    /// From the first event of the batch to the committed update.
    pub latency: Duration,
    pub summary: Summary,
}

/// What the watcher reports to its caller.
#[derive(Debug)]
pub enum WatchEvent<'a> {
    /// The initial index or a batch was applied (committed, or found nothing to commit).
    Updated(&'a Update),
    /// A batch failed and rolled back; the index keeps its last committed generation. The
    /// batch is tried again after `retry_in`, or sooner when files change.
    Failed { error: &'a Error, retry_in: Duration },
    /// The database file was removed or replaced by another file; the next batch indexes
    /// into the file now at the path (a new one if none).
    DatabaseReplaced { db: &'a Path },
}

/// The first pause after a failed batch; it doubles with each failure, up to `MAX_RETRY`.
const FIRST_RETRY: Duration = Duration::from_secs(1);
const MAX_RETRY: Duration = Duration::from_secs(30);

/// Whether an event path can matter to the index: not inside ignored folders or `.ckg`, and
/// either an indexable file or something without an extension (a folder moved or deleted).
fn relevant(root: &Path, path: &Path, build_dirs: bool) -> bool {
    let rel = path.strip_prefix(root).unwrap_or(path);
    for c in rel.components() {
        let c = c.as_os_str().to_string_lossy();
        if skipped_dir(&c, build_dirs) {
            return false;
        }
    }
    let s = rel.to_string_lossy();
    if Lang::from_path(&s).is_some() {
        return true;
    }
    let name = rel.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    // Folders (no extension) and ignore files change what is indexed.
    !name.contains('.') || name == ".gitignore" || name == ".ignore"
}

/// Whether an event only reports a read (an open, or a close without writing).
fn is_read(kind: &notify::EventKind) -> bool {
    use notify::event::{AccessKind, AccessMode, EventKind};
    matches!(kind, EventKind::Access(a) if !matches!(a, AccessKind::Close(AccessMode::Write)))
}

/// Indexes the root, then applies batches of changes until `stop` is set. `on_event` hears
/// about the initial index, every batch, every failed batch and a replaced database. Only a
/// failure of the initial index (or of the file watcher itself) ends the watch with an error.
pub fn watch(config: &WatchConfig, stop: &AtomicBool, on_event: &mut dyn FnMut(WatchEvent<'_>)) -> Result<()> {
    let root: PathBuf = config.index.root.canonicalize().map_err(|e| Error::Io { path: config.index.root.clone(), source: e })?;
    let db = config.index.db_path();
    let build_dirs = config.index.discover.build_dirs;
    let (tx, rx) = mpsc::channel::<notify::Result<notify::Event>>();
    let mut watcher = notify::recommended_watcher(tx).map_err(|e| Error::Invalid(format!("cannot start the file watcher: {e}")))?;
    watcher.watch(&root, RecursiveMode::Recursive).map_err(|e| Error::Invalid(format!("cannot watch {}: {e}", root.display())))?;

    let t = Instant::now();
    // The facts resolution reads stay in memory between batches.
    let mut session = Session::default();
    let summary = index_with(&config.index, &|_| {}, &mut session)?;
    // `--rebuild` is for the index the watch starts from; the batches update it.
    let index_config = IndexConfig { rebuild: false, ..config.index.clone() };
    // The file the run wrote, not what the path names after it: a database removed or replaced
    // as soon as the run is over (even before the caller reports it) differs from it.
    let mut identity = summary.db_identity;
    on_event(WatchEvent::Updated(&Update { event_paths: 0, rescan: true, latency: t.elapsed(), summary }));
    // Set after a failed batch: when to try again, and the pause after the next failure.
    let mut retry: Option<(Instant, Duration)> = None;

    while !stop.load(Ordering::Relaxed) {
        let mut batch = Batch::default();
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(ev) => {
                batch.started = Instant::now();
                batch.absorb(&root, build_dirs, ev);
                // Debounce: wait for quiet, but never longer than max_batch.
                loop {
                    let left = config.max_batch.saturating_sub(batch.started.elapsed());
                    if left.is_zero() {
                        break;
                    }
                    match rx.recv_timeout(config.debounce.min(left)) {
                        Ok(ev) => batch.absorb(&root, build_dirs, ev),
                        Err(_) => break,
                    }
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => batch.started = Instant::now(),
            Err(mpsc::RecvTimeoutError::Disconnected) => return Err(Error::Invalid("the file watcher stopped".into())),
        }
        if file_identity(&db) != identity {
            on_event(WatchEvent::DatabaseReplaced { db: &db });
            session = Session::default();
            identity = file_identity(&db);
            batch.rescan = true;
        }
        if retry.is_some_and(|(at, _)| Instant::now() >= at) {
            batch.rescan = true;
        }
        if batch.paths.is_empty() && !batch.rescan {
            continue;
        }
        match index_with(&index_config, &|_| {}, &mut session) {
            Ok(summary) => {
                retry = None;
                identity = summary.db_identity;
                let update = Update { event_paths: batch.paths.len(), rescan: batch.rescan, latency: batch.started.elapsed(), summary };
                on_event(WatchEvent::Updated(&update));
            }
            Err(error) => {
                // What the run kept in memory may be ahead of the rolled-back database.
                session = Session::default();
                let pause = retry.map_or(FIRST_RETRY, |(_, p)| (p * 2).min(MAX_RETRY));
                retry = Some((Instant::now() + pause, pause));
                on_event(WatchEvent::Failed { error: &error, retry_in: pause });
            }
        }
    }
    Ok(())
}

/// The changes collected for one batch.
struct Batch {
    started: Instant,
    /// Event paths that can matter (deduplicated).
    paths: std::collections::BTreeSet<PathBuf>,
    /// Events were lost (or a retry or a replaced database): everything is rescanned.
    rescan: bool,
}

impl Default for Batch {
    fn default() -> Batch {
        Batch { started: Instant::now(), paths: Default::default(), rescan: false }
    }
}

impl Batch {
    fn absorb(&mut self, root: &Path, build_dirs: bool, ev: notify::Result<notify::Event>) {
        match ev {
            // Reads are not changes: our own scan opens every folder it walks (and reads the
            // files it parses), and counting those would start the next batch, forever.
            Ok(ev) if is_read(&ev.kind) => {}
            Ok(ev) => {
                if ev.need_rescan() {
                    self.rescan = true;
                }
                self.paths.extend(ev.paths.into_iter().filter(|p| relevant(root, p, build_dirs)));
            }
            Err(_) => self.rescan = true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_not_changes() {
        use notify::event::{AccessKind, AccessMode, CreateKind, EventKind, ModifyKind};
        assert!(is_read(&EventKind::Access(AccessKind::Open(AccessMode::Any))));
        assert!(is_read(&EventKind::Access(AccessKind::Close(AccessMode::Read))));
        assert!(!is_read(&EventKind::Access(AccessKind::Close(AccessMode::Write))));
        assert!(!is_read(&EventKind::Modify(ModifyKind::Any)));
        assert!(!is_read(&EventKind::Create(CreateKind::File)));
    }

    #[test]
    fn a_database_removed_while_the_first_index_is_reported_is_noticed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("m.py"), "def f():\n    return 1\n").unwrap();
        let config = WatchConfig::new(IndexConfig::new(dir.path()));
        let db = config.index.db_path();
        let stop = AtomicBool::new(false);
        let (mut updates, mut replaced) = (0, 0);
        let started = Instant::now();
        let watched = std::thread::scope(|scope| {
            // Ends the watch if the removal is never noticed.
            scope.spawn(|| {
                while !stop.load(Ordering::Relaxed) && started.elapsed() < Duration::from_secs(10) {
                    std::thread::sleep(Duration::from_millis(10));
                }
                stop.store(true, Ordering::Relaxed);
            });
            watch(&config, &stop, &mut |event| match event {
                WatchEvent::Updated(_) => {
                    updates += 1;
                    if updates == 1 {
                        // The caller's first report is where a user learns the index exists.
                        for suffix in ["", "-wal", "-shm"] {
                            let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
                        }
                    } else {
                        stop.store(true, Ordering::Relaxed);
                    }
                }
                WatchEvent::DatabaseReplaced { .. } => replaced += 1,
                WatchEvent::Failed { error, .. } => panic!("{error}"),
            })
        });
        watched.unwrap();
        assert_eq!((replaced, updates), (1, 2), "the removal was not noticed within {:?}", started.elapsed());
        assert!(db.exists());
    }

    #[test]
    fn relevance_of_event_paths() {
        let root = Path::new("/r");
        assert!(relevant(root, Path::new("/r/src/a.ts"), false));
        assert!(relevant(root, Path::new("/r/src/sub"), false));
        assert!(relevant(root, Path::new("/r/.gitignore"), false));
        assert!(!relevant(root, Path::new("/r/node_modules/x/index.js"), true));
        assert!(!relevant(root, Path::new("/r/.ckg/index.db-wal"), true));
        assert!(!relevant(root, Path::new("/r/README.md"), false));
        assert!(!relevant(root, Path::new("/r/src/a.ts.swp"), false));
        assert!(!relevant(root, Path::new("/r/dist/bundle.js"), false));
        assert!(relevant(root, Path::new("/r/dist/bundle.js"), true));
    }
}
