//! Watch mode: keep the index fresh as files change.
//!
//! Events from `notify` are only a signal. After the first relevant event, events are
//! collected until the tree has been quiet for the debounce interval (or a batch has been
//! open for `max_batch`), then one incremental [`index`] run brings the index up to date in
//! one transaction. Because the run rescans sizes and mtimes rather than trusting the event
//! list, editors' write-temp-then-rename saves, directory moves and deletions, branch switches
//! and event overflows all end in the same, correct state. Readers keep answering from the
//! previous generation while a batch is applied.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::{RecursiveMode, Watcher};

use crate::discover::SKIPPED_DIRS;
use crate::error::{Error, Result};
use crate::index::{IndexConfig, Session, Summary, index_with};
use crate::lang::Lang;

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

/// Whether an event path can matter to the index: not inside ignored folders or `.ckg`, and
/// either an indexable file or something without an extension (a folder moved or deleted).
fn relevant(root: &Path, path: &Path) -> bool {
    let rel = path.strip_prefix(root).unwrap_or(path);
    for c in rel.components() {
        let c = c.as_os_str().to_string_lossy();
        if SKIPPED_DIRS.contains(&c.as_ref()) {
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

/// Indexes the root, then applies batches of changes until `stop` is set. `on_update` is
/// called after the initial index and after every batch.
pub fn watch(config: &WatchConfig, stop: &AtomicBool, on_update: &mut dyn FnMut(&Update)) -> Result<()> {
    let root: PathBuf = config.index.root.canonicalize().map_err(|e| Error::Io { path: config.index.root.clone(), source: e })?;
    let (tx, rx) = mpsc::channel::<notify::Result<notify::Event>>();
    let mut watcher = notify::recommended_watcher(tx).map_err(|e| Error::Invalid(format!("cannot start the file watcher: {e}")))?;
    watcher.watch(&root, RecursiveMode::Recursive).map_err(|e| Error::Invalid(format!("cannot watch {}: {e}", root.display())))?;

    let t = Instant::now();
    // The facts resolution reads stay in memory between batches.
    let mut session = Session::default();
    let summary = index_with(&config.index, &|_| {}, &mut session)?;
    on_update(&Update { event_paths: 0, rescan: true, latency: t.elapsed(), summary });

    while !stop.load(Ordering::Relaxed) {
        let first = match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(ev) => ev,
            Err(mpsc::RecvTimeoutError::Timeout) => continue,
            Err(mpsc::RecvTimeoutError::Disconnected) => return Err(Error::Invalid("the file watcher stopped".into())),
        };
        let started = Instant::now();
        let mut paths = std::collections::BTreeSet::new();
        let mut rescan = false;
        let absorb = |ev: notify::Result<notify::Event>, paths: &mut std::collections::BTreeSet<PathBuf>, rescan: &mut bool| match ev {
            // Reads are not changes: our own scan opens every folder it walks (and reads the
            // files it parses), and counting those would start the next batch, forever.
            Ok(ev) if is_read(&ev.kind) => {}
            Ok(ev) => {
                if ev.need_rescan() {
                    *rescan = true;
                }
                for p in ev.paths {
                    if relevant(&root, &p) {
                        paths.insert(p);
                    }
                }
            }
            Err(_) => *rescan = true,
        };
        absorb(first, &mut paths, &mut rescan);
        // Debounce: wait for quiet, but never longer than max_batch.
        loop {
            let left = config.max_batch.saturating_sub(started.elapsed());
            if left.is_zero() {
                break;
            }
            match rx.recv_timeout(config.debounce.min(left)) {
                Ok(ev) => absorb(ev, &mut paths, &mut rescan),
                Err(mpsc::RecvTimeoutError::Timeout) => break,
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        if paths.is_empty() && !rescan {
            continue;
        }
        let summary = index_with(&config.index, &|_| {}, &mut session)?;
        on_update(&Update { event_paths: paths.len(), rescan, latency: started.elapsed(), summary });
    }
    Ok(())
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
    fn relevance_of_event_paths() {
        let root = Path::new("/r");
        assert!(relevant(root, Path::new("/r/src/a.ts")));
        assert!(relevant(root, Path::new("/r/src/sub")));
        assert!(relevant(root, Path::new("/r/.gitignore")));
        assert!(!relevant(root, Path::new("/r/node_modules/x/index.js")));
        assert!(!relevant(root, Path::new("/r/.ckg/index.db-wal")));
        assert!(!relevant(root, Path::new("/r/README.md")));
        assert!(!relevant(root, Path::new("/r/src/a.ts.swp")));
    }
}
