//! Opening an index for writing ([`Store`]): an existing index is updated in place, a new one
//! (or one of another schema version) is built in a temporary file and renamed into place
//! when the run is done.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use super::schema::{
    APPLICATION_ID, FACT_INDEXES, FRESH_BUILD_CACHE_KIB, FRESH_BUILD_PRAGMAS, INDEXES, RARE_ROW_INDEXES, SCHEMA, SCHEMA_VERSION,
    configure_writer,
};
use super::write::WriteTx;
use crate::error::{Error, Result};

/// What opening the writer found.
#[derive(Debug, Default)]
pub struct OpenReport {
    /// Set when an index of another schema version was replaced.
    pub rebuilt: Option<String>,
    /// A new index is being built (none existed, `--rebuild`, or a schema change).
    pub created: bool,
}

/// Which file is at a path: device, inode and birth time (an inode number is often reused by
/// the next file created). None when nothing is there. A database file removed or replaced
/// (by a rebuild's rename, or by hand) gets another identity; writes to it do not.
pub type FileIdentity = (u64, u64, Option<std::time::SystemTime>);

pub fn file_identity(path: &Path) -> Option<FileIdentity> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino(), m.created().ok()))
}

/// The writer: one per index, holding the connection that runs the write transaction.
///
/// A fresh index is built in a temporary file next to the final path, without a journal,
/// and renamed into place by [`Store::finish`]: the fastest bulk load, and atomic (a killed
/// build leaves the previous file, if any, untouched). An existing index is updated in a WAL
/// transaction, so readers keep the previous generation until the commit.
pub struct Store {
    conn: Connection,
    path: PathBuf,
    /// The temporary file of a fresh build.
    fresh: Option<PathBuf>,
    /// The file this store writes, as [`file_identity`] gives it (a fresh build's temporary
    /// file keeps it through the rename into place).
    identity: Option<FileIdentity>,
}

fn tmp_path(path: &Path) -> PathBuf {
    PathBuf::from(format!("{}.tmp-{}", path.display(), std::process::id()))
}

/// Removes temporary files left by fresh builds that were killed (their process is gone).
fn remove_stale_tmp(path: &Path) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else { return };
    let prefix = format!("{}.tmp-", name.to_string_lossy());
    let Ok(entries) = std::fs::read_dir(if dir.as_os_str().is_empty() { Path::new(".") } else { dir }) else { return };
    for e in entries.flatten() {
        let n = e.file_name().to_string_lossy().to_string();
        let Some(rest) = n.strip_prefix(&prefix) else { continue };
        let pid: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let alive = !pid.is_empty() && Path::new("/proc").join(&pid).exists() && pid != std::process::id().to_string();
        if !alive {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

fn remove_db_files(path: &Path) -> Result<()> {
    for suffix in ["", "-wal", "-shm"] {
        let p = PathBuf::from(format!("{}{suffix}", path.display()));
        match std::fs::remove_file(&p) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::Io { path: p, source: e }),
        }
    }
    Ok(())
}

impl Store {
    /// Opens (or creates) the index for writing. An index of another schema version is
    /// deleted and recreated; a corrupt file or a foreign database is an error, never
    /// silently overwritten unless `rebuild` is set.
    pub fn open(path: &Path, rebuild: bool) -> Result<(Store, OpenReport)> {
        let mut report = OpenReport::default();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| Error::Io { path: dir.to_path_buf(), source: e })?;
        }
        let mut fresh = rebuild || !path.exists();
        if rebuild && path.exists() {
            // Even --rebuild never replaces a database that ckg did not create.
            if let Err(e @ Error::Foreign { .. }) = Self::inspect(path) {
                return Err(e);
            }
        }
        if !fresh {
            match Self::inspect(path)? {
                Some(version) if version == SCHEMA_VERSION => {}
                Some(version) => {
                    report.rebuilt = Some(format!("index schema version {version} differs from this ckg's {SCHEMA_VERSION}; rebuilt it"));
                    fresh = true;
                }
                // An empty file (or an SQLite file with no tables) is ours to initialise.
                None => fresh = true,
            }
        }
        if fresh {
            remove_stale_tmp(path);
            let tmp = tmp_path(path);
            remove_db_files(&tmp)?;
            let sql = |e| Error::sqlite(&tmp, e);
            let conn = Connection::open(&tmp).map_err(sql)?;
            conn.execute_batch(FRESH_BUILD_PRAGMAS).map_err(sql)?;
            conn.pragma_update(None, "cache_size", -FRESH_BUILD_CACHE_KIB).map_err(sql)?;
            conn.execute_batch(SCHEMA).map_err(sql)?;
            conn.execute_batch(RARE_ROW_INDEXES).map_err(sql)?;
            conn.pragma_update(None, "application_id", APPLICATION_ID).map_err(sql)?;
            conn.pragma_update(None, "user_version", SCHEMA_VERSION).map_err(sql)?;
            conn.execute("INSERT INTO meta(key, value) VALUES ('generation', '0')", []).map_err(sql)?;
            // Tells a cache of this index apart from one of an earlier build of the same file.
            let build = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
            conn.execute("INSERT INTO meta(key, value) VALUES ('build_id', ?1)", [build.to_string()]).map_err(sql)?;
            report.created = true;
            let identity = file_identity(&tmp);
            return Ok((Store { conn, path: path.to_path_buf(), fresh: Some(tmp), identity }, report));
        }
        let sql = |e| Error::sqlite(path, e);
        let conn = Connection::open(path).map_err(sql)?;
        configure_writer(&conn).map_err(sql)?;
        // The file just opened, unless it was replaced within these few statements.
        let identity = file_identity(path);
        Ok((Store { conn, path: path.to_path_buf(), fresh: None, identity }, report))
    }

    /// True while building a new index (every file is new; nothing to load back).
    pub fn is_fresh(&self) -> bool {
        self.fresh.is_some()
    }

    /// Completes the run after its commit: a fresh build gets its indexes, switches to WAL and
    /// atomically replaces the previous file (whose WAL, if any, is checkpointed first so a
    /// kill between the two steps loses nothing). Returns the identity of the file this store
    /// wrote ([`file_identity`]), which the path may no longer name if the file was removed
    /// or replaced meanwhile.
    pub fn finish(self) -> Result<Option<FileIdentity>> {
        let identity = self.identity;
        let Some(tmp) = self.fresh else { return Ok(identity) };
        let sql = |e| Error::sqlite(&tmp, e);
        // Index builds sort with helper threads. SQLite's sorter starts them only when its
        // temporary files are not in memory, and hands them runs the size of the page cache
        // (sorted and written out while the table is still being read): so the builds sort on
        // files (unlinked, mostly in the OS's cache) in runs of 256 KiB. django's index builds
        // 816-886 -> 557-607 ms (`finish` of `ckg index --json`, 4 alternating runs) in runs of
        // 1 MiB; in runs of 256 KiB, which give the helpers a part of the smaller builds too,
        // `finish` (medians, alternating) 299 -> 272 ms on django, 77 -> 70 ms on pytest,
        // 54 -> 49 ms on ra-core (512 KiB: 295 ms on django).
        // A database that fits the build's page cache is sorted there, in memory, on this
        // thread: its pages are all cached, where the smaller cache would read them back and
        // the helpers' runs go through files (`finish` of `ckg index --json`, medians of 21
        // alternating runs: ra-core 14.1 -> 11.7 ms, pytest 22.8 -> 20.0 ms). Larger ones are
        // not: sorted so, effect's 23 MiB took 62 -> 77 ms, django's 48 MiB 106 -> 140 ms.
        let pragma = |name: &str| self.conn.pragma_query_value(None, name, |r| r.get::<_, i64>(0)).map_err(sql);
        let database_kib = pragma("page_count")? * pragma("page_size")? / 1024;
        if database_kib > FRESH_BUILD_CACHE_KIB {
            let threads = std::thread::available_parallelism().map(|n| n.get().min(4)).unwrap_or(1);
            self.conn.pragma_update(None, "threads", threads as i64).map_err(sql)?;
            self.conn.execute_batch("PRAGMA temp_store = FILE; PRAGMA cache_size = -256;").map_err(sql)?;
        }
        self.conn.execute_batch(FACT_INDEXES).map_err(sql)?;
        self.conn.execute_batch(INDEXES).map_err(sql)?;
        self.conn.execute_batch("PRAGMA locking_mode = NORMAL; PRAGMA journal_mode = WAL;").map_err(sql)?;
        self.conn.close().map_err(|(_, e)| sql(e))?;
        if let Ok(old) = Connection::open(&self.path) {
            let _ = old.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        }
        for suffix in ["-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", self.path.display()));
        }
        std::fs::rename(&tmp, &self.path).map_err(|e| Error::Io { path: self.path.clone(), source: e })?;
        Ok(identity)
    }

    /// Reads the schema version of an existing file: `Some(v)` for a ckg index, `None` for an
    /// empty database, an error for corrupt or foreign files.
    fn inspect(path: &Path) -> Result<Option<i64>> {
        let sql = |e| Error::sqlite(path, e);
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX).map_err(sql)?;
        let app: i64 = conn.pragma_query_value(None, "application_id", |r| r.get(0)).map_err(sql)?;
        let tables: i64 = conn.query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0)).map_err(sql)?;
        if app == APPLICATION_ID {
            let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0)).map_err(sql)?;
            return Ok(Some(version));
        }
        if tables == 0 && app == 0 {
            return Ok(None);
        }
        Err(Error::Foreign { path: path.to_path_buf() })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Starts the run's write transaction.
    pub fn begin(&mut self) -> Result<WriteTx<'_>> {
        let path = self.fresh.as_deref().unwrap_or(&self.path);
        // Room for every statement a run writes with (rusqlite keeps 16 by default; the rows of
        // symbols, imports and edges take three each, one for each number of rows).
        self.conn.set_prepared_statement_cache_capacity(32);
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).map_err(|e| Error::sqlite(path, e))?;
        Ok(WriteTx::new(tx, path, self.fresh.is_some()))
    }
}
