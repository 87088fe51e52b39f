//! What a run keeps or reads ahead: the facts a watcher's [`Session`] holds between runs,
//! the stored facts preloaded on another thread (`Preload`), and the names snapshot written
//! after the commit (`SnapshotRows`).

use std::path::{Path, PathBuf};

use super::{Changes, let_go};
use crate::error::Result;
use crate::store::{WriteTx, snapshot};

/// What a long-running caller (the watcher) keeps between runs so that an update does not
/// reload what it already has: the facts resolution reads (without references), as of one
/// generation of one build of the index. Another writer in between (a new generation) or a
/// rebuild makes it stale, and it is then loaded again.
#[derive(Default)]
pub struct Session {
    pub(super) cached: Option<Cached>,
}

pub(super) struct Cached {
    pub(super) db: PathBuf,
    pub(super) build: Option<String>,
    pub(super) generation: i64,
    pub(super) input: crate::store::ResolveInput,
    /// Where the names snapshot ends, when it holds the state of `input`: the next run
    /// appends its record there.
    pub(super) snapshot: Option<snapshot::Tail>,
}

impl Cached {
    /// What resolution read, without what the next run reads again anyway (references and
    /// configuration); the generation is set once the run commits.
    pub(super) fn new(db: PathBuf, build: Option<String>, mut input: crate::store::ResolveInput, exits_after: bool) -> Cached {
        let refs = std::mem::take(&mut input.refs);
        // A full index's references (half a million on django, ~90 ms to free) are not freed
        // on this thread, which the index builds keep busy.
        if exits_after || refs.iter().map(|f| f.refs.len()).sum::<usize>() > 50_000 {
            let_go(refs, exits_after);
        }
        input.configs = Vec::new();
        Cached { db, build, generation: 0, input, snapshot: None }
    }
}

/// The stored facts read ahead for resolution ([`Preload`]): started at most once, from any
/// of the run's threads, when `wanted`.
pub(super) struct Preloading<'d> {
    pub(super) slot: std::sync::OnceLock<Option<Preload>>,
    pub(super) wanted: bool,
    pub(super) db: &'d Path,
}

impl<'d> Preloading<'d> {
    pub(super) fn new(wanted: bool, db: &'d Path) -> Preloading<'d> {
        Preloading { slot: std::sync::OnceLock::new(), wanted, db }
    }

    /// Starts the reading, unless it is not wanted or was tried already.
    pub(super) fn start(&self) {
        if self.wanted {
            self.slot.get_or_init(|| Preload::start(self.db));
        }
    }

    /// The reading started, if any.
    pub(super) fn take(&mut self) -> Option<Preload> {
        self.slot.take().flatten()
    }
}

/// What the run adds to the names snapshot, prepared while it commits: a record of the files
/// it wrote, for the log of the snapshot it started from; or else a new base, encoded on
/// another thread (which holds the run's facts meanwhile and hands them back). One per run:
/// the size of its larger variant does not matter.
#[allow(clippy::large_enum_variant)]
pub(super) enum SnapshotRows {
    Record { cached: Cached, tail: snapshot::Tail, replaced: Vec<i64>, rows: Vec<u8> },
    Base(std::thread::JoinHandle<(Vec<u8>, Cached)>),
}

impl SnapshotRows {
    pub(super) fn start(cached: Cached, prior: Option<snapshot::Tail>, changes: &Changes) -> SnapshotRows {
        if let Some(tail) = prior {
            let written = cached.input.of_files(changes.changed_files.iter().copied());
            let rows = snapshot::encode(&written);
            if snapshot::has_room(&tail, rows.len()) {
                return SnapshotRows::Record { cached, tail, replaced: changes.replaced_files(), rows };
            }
        }
        SnapshotRows::Base(std::thread::spawn(move || (snapshot::encode(&cached.input), cached)))
    }

    /// Writes the snapshot of the commit `stamp` and gives the facts back. Without a snapshot
    /// the next run reads the rows from the database, so a failed write is not an error; a
    /// panic of the encoder is a bug, raised here as it is.
    pub(super) fn write(self, db: &Path, stamp: &snapshot::Stamp) -> Cached {
        let path = snapshot::path_of(db);
        let (rows, mut cached) = match self {
            SnapshotRows::Record { mut cached, tail, replaced, rows } => {
                if let Some(tail) = snapshot::append(&path, &tail, stamp, &replaced, &rows) {
                    cached.snapshot = Some(tail);
                    return cached;
                }
                // The file is not where this run found it, or the append failed: a new base.
                (snapshot::encode(&cached.input), cached)
            }
            SnapshotRows::Base(thread) => thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        };
        cached.snapshot = snapshot::write(&path, stamp, &rows).ok();
        cached
    }
}

/// The stored facts that resolution reads, loaded on another thread while the tree is walked
/// and the changed files are parsed (what a [`Session`] keeps between a watcher's runs), from
/// the names snapshot of the last run when it is of this commit ([`snapshot`]). The
/// run checks that they are of the generation it writes on before using them. (One thread:
/// on two cores, splitting the load over two slowed the walk and the parse more than it saved;
/// django: an edit took 110–146 ms with two, 90–100 ms with one.)
pub(super) struct Preload {
    pub(super) thread: std::thread::JoinHandle<Option<Cached>>,
    pub(super) interrupt: rusqlite::InterruptHandle,
}

impl Preload {
    /// Starts reading an existing index; `None` when there is none that this ckg reads.
    pub(super) fn start(db: &Path) -> Option<Preload> {
        let conn = crate::store::open_reader(db).ok()?;
        let interrupt = conn.get_interrupt_handle();
        let db = db.to_path_buf();
        let thread = std::thread::Builder::new()
            .name("ckg-preload".into())
            .spawn(move || {
                // One read transaction: the generation, the build and the facts agree.
                let tx = conn.unchecked_transaction().ok()?;
                let (stamp, input, tail) = snapshot::load_names(&tx, &db).ok()?;
                Some(Cached { generation: stamp.generation, snapshot: tail, ..Cached::new(db, stamp.build, input, false) })
            })
            .ok()?;
        Some(Preload { thread, interrupt })
    }

    pub(super) fn join(self) -> Option<Cached> {
        self.thread.join().ok().flatten()
    }

    /// Stops the reading (nothing changed, so nothing is resolved): the statement running is
    /// interrupted, and the thread ends on its own without being waited for.
    pub(super) fn cancel(self) {
        self.interrupt.interrupt();
        drop(self.thread);
    }
}

/// The facts the session cached, if they are still those of this index: same file, same build
/// and no other writer since (the generation they were cached at).
pub(super) fn valid_cache(session: &mut Session, tx: &WriteTx, fresh: bool, db: &Path, build: &Option<String>) -> Result<Option<Cached>> {
    Ok(match session.cached.take() {
        Some(c) if !fresh && c.db == db && c.build == *build && c.generation == tx.generation()? => Some(c),
        _ => None,
    })
}
