//! The SQLite store: schema, pragmas, the writer, and the loaders that feed resolution.
//!
//! **Invariant:** this is the only module with SQL that writes. Readers (ckg-query, export)
//! open their own read-only connections.
//!
//! One `ckg index` run is one write transaction: rows are inserted in batches through cached
//! prepared statements while facts stream in from the parser threads, and the generation is
//! bumped just before `COMMIT`. In WAL mode readers keep seeing the previous generation until
//! then, and a run killed at any moment leaves the previous generation intact.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

use crate::error::{Error, Result};
use crate::facts::{
    Diagnostic, FileRecord, ImportKind, LocalBinding, ParamUse, RefKind, SymbolKind, ValueSource, decode_list, encode_list,
};
use crate::lang::Lang;
use crate::refblob;

/// Bump when the schema or the meaning of stored facts changes; an index with another
/// version is rebuilt from scratch (it is derived data).
pub const SCHEMA_VERSION: i64 = 12;
/// `PRAGMA application_id` of ckg databases ("ckg1").
pub const APPLICATION_ID: i64 = 0x636b_6731;

const SCHEMA: &str = "
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
CREATE TABLE files(
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    lang TEXT NOT NULL,
    module TEXT NOT NULL,
    hash TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    lines INTEGER NOT NULL,
    parse_errors INTEGER NOT NULL
) STRICT;
CREATE TABLE symbols(
    id INTEGER PRIMARY KEY,
    qname TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    file_id INTEGER,
    parent_id INTEGER,
    line INTEGER NOT NULL,
    col INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    exported INTEGER NOT NULL,
    -- Base classes as written, one per line; the declared or obvious type (`type:Foo`).
    bases TEXT,
    ty TEXT,
    -- Decorators as written, one per line.
    decorators TEXT,
    -- Python: calls through parameters (JSON), bound at each call site.
    params TEXT
) STRICT;
-- Clustered by file: a file's references are read and replaced together.
-- A file's reference facts, as one compact blob (see refblob.rs): they are only ever read
-- whole, to resolve the file again without parsing it.
CREATE TABLE refs(
    file_id INTEGER PRIMARY KEY,
    data BLOB NOT NULL
) STRICT;
CREATE TABLE imports(
    file_id INTEGER NOT NULL,
    kind TEXT NOT NULL,
    specifier TEXT NOT NULL,
    imported TEXT,
    local TEXT,
    scope_id INTEGER NOT NULL,
    type_only INTEGER NOT NULL,
    -- One of several bindings that may be live (try / except ImportError).
    alternative INTEGER NOT NULL,
    line INTEGER NOT NULL,
    col INTEGER NOT NULL
) STRICT;
CREATE TABLE exports(
    file_id INTEGER NOT NULL,
    name TEXT NOT NULL,
    target TEXT,
    specifier TEXT,
    line INTEGER NOT NULL,
    col INTEGER NOT NULL
) STRICT;
CREATE TABLE diagnostics(
    path TEXT NOT NULL,
    kind TEXT NOT NULL,
    message TEXT NOT NULL,
    line INTEGER
) STRICT;
-- What resolving each file looked up (hashed keys: qnames, module paths, other files'
-- exports and imports). A change to any of them re-resolves the file; nothing else does.
-- One row per file: the keys' upper 32 bits, 4 bytes each, little-endian (see `lookup_blob`).
-- A shared 32-bit prefix can only re-resolve a file that did not need it, never miss one.
CREATE TABLE lookups(
    file_id INTEGER PRIMARY KEY,
    keys BLOB NOT NULL
) STRICT;
-- Project configuration read by module resolution (tsconfig, jsconfig, package.json).
CREATE TABLE configs(
    path TEXT PRIMARY KEY,
    content TEXT NOT NULL
) STRICT;
-- Edges are clustered by the file of their site: a file's edges have the ids
-- `file_id << EDGE_ID_BITS` and up (see `edge_ids`), so replacing them is a range delete on
-- the table itself and no index on file_id is needed.
CREATE TABLE edges(
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    src_id INTEGER NOT NULL,
    dst_id INTEGER,
    dst_name TEXT,
    file_id INTEGER NOT NULL,
    line INTEGER NOT NULL,
    col INTEGER NOT NULL,
    evidence TEXT NOT NULL,
    -- 0: a named target; 1: a dynamic site with an unnamed receiver; 2: a computed callee;
    -- 3: monkey-patching (the site rebinds the target).
    dynamic INTEGER NOT NULL,
    -- For unresolved edges: the last name of the written path (`a.b.run()` -> `run`), so
    -- completeness can find the sites that could be a target without scanning them all.
    dst_last TEXT
) STRICT;
";

/// Secondary indexes: created with the tables for an existing index, after the bulk load
/// for a fresh one (faster than maintaining them row by row).
const INDEXES: &str = "
CREATE INDEX symbols_file ON symbols(file_id);
CREATE INDEX symbols_name ON symbols(name);
CREATE INDEX imports_file ON imports(file_id);
CREATE INDEX exports_file ON exports(file_id);
CREATE INDEX diagnostics_path ON diagnostics(path);
CREATE INDEX edges_src ON edges(src_id);
CREATE INDEX edges_dst ON edges(dst_id);
CREATE INDEX edges_unresolved ON edges(dst_last) WHERE dst_id IS NULL;
CREATE INDEX edges_computed ON edges(file_id) WHERE dynamic = 2;
CREATE INDEX edges_patch ON edges(dst_id) WHERE dynamic = 3;
";

/// The stored state of a file, used to skip unchanged files.
#[derive(Clone, Debug)]
pub struct FileState {
    pub id: i64,
    pub hash: u64,
    pub size: u64,
    pub mtime_ns: i64,
    pub module: String,
}

/// Where an edge points.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dst {
    Symbol(i64),
    /// An external node by qname; interned on write.
    External(String),
    /// Kept with the written name.
    Unresolved(String),
}

/// An edge ready to be written.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EdgeRow {
    pub kind: &'static str,
    pub src: i64,
    pub dst: Dst,
    pub file: i64,
    pub line: u32,
    pub col: u32,
    pub evidence: &'static str,
    /// 0: a named target; 1: a dynamic site with an unnamed receiver; 2: a computed callee;
    /// 3: monkey-patching.
    pub dynamic: u8,
}

/// What opening the writer found.
#[derive(Debug, Default)]
pub struct OpenReport {
    /// Set when an index of another schema version was replaced.
    pub rebuilt: Option<String>,
    /// A new index is being built (none existed, `--rebuild`, or a schema change).
    pub created: bool,
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

fn configure_writer(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "temp_store", "MEMORY")?;
    conn.pragma_update(None, "cache_size", -65536)?;
    Ok(())
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
            conn.execute_batch(
                "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA temp_store = MEMORY;
                 PRAGMA cache_size = -131072; PRAGMA locking_mode = EXCLUSIVE;",
            )
            .map_err(sql)?;
            conn.execute_batch(SCHEMA).map_err(sql)?;
            conn.pragma_update(None, "application_id", APPLICATION_ID).map_err(sql)?;
            conn.pragma_update(None, "user_version", SCHEMA_VERSION).map_err(sql)?;
            conn.execute("INSERT INTO meta(key, value) VALUES ('generation', '0')", []).map_err(sql)?;
            // Tells a cache of this index apart from one of an earlier build of the same file.
            let build = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
            conn.execute("INSERT INTO meta(key, value) VALUES ('build_id', ?1)", [build.to_string()]).map_err(sql)?;
            report.created = true;
            return Ok((Store { conn, path: path.to_path_buf(), fresh: Some(tmp) }, report));
        }
        let sql = |e| Error::sqlite(path, e);
        let conn = Connection::open(path).map_err(sql)?;
        configure_writer(&conn).map_err(sql)?;
        Ok((Store { conn, path: path.to_path_buf(), fresh: None }, report))
    }

    /// True while building a new index (every file is new; nothing to load back).
    pub fn is_fresh(&self) -> bool {
        self.fresh.is_some()
    }

    /// Completes the run after its commit: a fresh build gets its indexes, switches to WAL and
    /// atomically replaces the previous file (whose WAL, if any, is checkpointed first so a
    /// kill between the two steps loses nothing).
    pub fn finish(self) -> Result<()> {
        let Some(tmp) = self.fresh else { return Ok(()) };
        let sql = |e| Error::sqlite(&tmp, e);
        // Index builds sort with helper threads.
        let threads = std::thread::available_parallelism().map(|n| n.get().min(4)).unwrap_or(1);
        self.conn.pragma_update(None, "threads", threads as i64).map_err(sql)?;
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
        Ok(())
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
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).map_err(|e| Error::sqlite(path, e))?;
        Ok(WriteTx { tx, path, externals: HashMap::new(), fresh: self.fresh.is_some() })
    }
}

/// The write transaction of one run.
pub struct WriteTx<'a> {
    tx: rusqlite::Transaction<'a>,
    path: &'a Path,
    externals: HashMap<String, i64>,
    /// A fresh build: nothing is stored yet, so there is nothing to delete or look up (and
    /// no secondary index to do it with).
    fresh: bool,
}

/// The last name of a written path: `a.b.run()` -> `run`, `handlers[k]` -> `handlers[k]`.
pub fn last_name(path: &str) -> &str {
    if path.ends_with(']') {
        return path;
    }
    path.rsplit(['.', '#']).next().unwrap_or(path).trim_end_matches("()")
}

/// A list stored as one text column, one item per line (NULL when empty).
fn encode_lines(items: &[String]) -> Option<String> {
    (!items.is_empty()).then(|| items.join("\n"))
}

fn hash_text(h: u64) -> String {
    format!("{h:016x}")
}

impl WriteTx<'_> {
    fn err(&self, e: rusqlite::Error) -> Error {
        Error::sqlite(self.path, e)
    }

    pub fn generation(&self) -> Result<i64> {
        let g: String = self.tx.query_row("SELECT value FROM meta WHERE key = 'generation'", [], |r| r.get(0)).map_err(|e| self.err(e))?;
        Ok(g.parse().unwrap_or(0))
    }

    /// The stored state of every file, by path.
    pub fn file_states(&self) -> Result<HashMap<String, FileState>> {
        let mut stmt = self.tx.prepare("SELECT path, id, hash, size, mtime_ns, module FROM files").map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                let hash: String = r.get(2)?;
                Ok((
                    r.get::<_, String>(0)?,
                    FileState {
                        id: r.get(1)?,
                        hash: u64::from_str_radix(&hash, 16).unwrap_or(0),
                        size: r.get::<_, i64>(3)? as u64,
                        mtime_ns: r.get(4)?,
                        module: r.get(5)?,
                    },
                ))
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>().map_err(|e| self.err(e))
    }

    /// Sets a value in `meta` (committed with the run).
    pub fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        self.tx
            .execute(
                "INSERT INTO meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                params![key, value],
            )
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// The stored project configuration files, by path.
    pub fn configs(&self) -> Result<std::collections::BTreeMap<String, String>> {
        let mut s = self.tx.prepare_cached("SELECT path, content FROM configs").map_err(|e| self.err(e))?;
        let rows = s.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>().map_err(|e| self.err(e))
    }

    /// Replaces the stored project configuration files.
    pub fn put_configs(&self, configs: &std::collections::BTreeMap<String, String>) -> Result<()> {
        self.tx.execute("DELETE FROM configs", []).map_err(|e| self.err(e))?;
        let mut s = self.tx.prepare_cached("INSERT INTO configs(path, content) VALUES (?1, ?2)").map_err(|e| self.err(e))?;
        for (p, c) in configs {
            s.execute(params![p, c]).map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    /// A value stored in `meta`, if any.
    pub fn meta(&self, key: &str) -> Result<Option<String>> {
        self.tx.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0)).optional().map_err(|e| self.err(e))
    }

    /// What other files can see of a stored file: its symbols (with kind, parent and export
    /// flag), its exports and its imports, as canonical lines. Resolution of other files
    /// depends on nothing else of it, so an edit that leaves this unchanged (a body-only
    /// edit) never re-resolves another file.
    pub fn interface(&self, file_id: i64) -> Result<Interface> {
        let e = |e| self.err(e);
        let mut out = Interface::default();
        let mut s = self
            .tx
            .prepare_cached(
                "SELECT s.qname, s.kind, coalesce(p.qname, ''), s.exported, s.bases, s.ty, s.decorators, s.params FROM symbols s LEFT JOIN symbols p ON p.id = s.parent_id
                 WHERE s.file_id = ?1",
            )
            .map_err(e)?;
        let rows = s
            .query_map([file_id], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    symbol_line(
                        &r.get::<_, String>(1)?,
                        &r.get::<_, String>(2)?,
                        r.get(3)?,
                        r.get::<_, Option<String>>(4)?.as_deref(),
                        r.get::<_, Option<String>>(5)?.as_deref(),
                        r.get::<_, Option<String>>(6)?.as_deref(),
                        r.get::<_, Option<String>>(7)?.as_deref(),
                    ),
                ))
            })
            .map_err(e)?;
        for r in rows {
            let (q, v) = r.map_err(e)?;
            out.symbols.insert(q, v);
        }
        let mut s = self.tx.prepare_cached("SELECT name, target, specifier FROM exports WHERE file_id = ?1").map_err(e)?;
        let rows = s
            .query_map([file_id], |r| {
                Ok(export_line(
                    &r.get::<_, String>(0)?,
                    r.get::<_, Option<String>>(1)?.as_deref(),
                    r.get::<_, Option<String>>(2)?.as_deref(),
                ))
            })
            .map_err(e)?;
        for r in rows {
            out.exports.insert(r.map_err(e)?);
        }
        let mut s = self
            .tx
            .prepare_cached(
                "SELECT i.kind, i.specifier, i.imported, i.local, i.type_only, sc.qname, i.alternative FROM imports i JOIN symbols sc ON sc.id = i.scope_id
                 WHERE i.file_id = ?1",
            )
            .map_err(e)?;
        let rows = s
            .query_map([file_id], |r| {
                Ok(import_line(
                    &r.get::<_, String>(0)?,
                    &r.get::<_, String>(1)?,
                    r.get::<_, Option<String>>(2)?.as_deref(),
                    r.get::<_, Option<String>>(3)?.as_deref(),
                    r.get(4)?,
                    &r.get::<_, String>(5)?,
                    r.get(6)?,
                ))
            })
            .map_err(e)?;
        for r in rows {
            out.imports.insert(r.map_err(e)?);
        }
        Ok(out)
    }

    /// The files whose last resolution looked up any of these keys (a scan of every file's
    /// key list: only updates that change an interface ask).
    pub fn files_looking_up(&self, keys: &std::collections::HashSet<i64>) -> Result<std::collections::HashSet<i64>> {
        let mut out = std::collections::HashSet::new();
        if keys.is_empty() {
            return Ok(out);
        }
        let wanted: std::collections::HashSet<u32> = keys.iter().map(|&k| short_key(k)).collect();
        let mut s = self.tx.prepare_cached("SELECT file_id, keys FROM lookups").map_err(|e| self.err(e))?;
        let mut rows = s.query([]).map_err(|e| self.err(e))?;
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            let blob = r.get_ref(1).map_err(|e| self.err(e))?.as_blob().unwrap_or(&[]);
            if blob.chunks_exact(4).any(|c| wanted.contains(&u32::from_le_bytes([c[0], c[1], c[2], c[3]]))) {
                out.insert(r.get::<_, i64>(0).map_err(|e| self.err(e))?);
            }
        }
        Ok(out)
    }

    /// Replaces what a file's resolution looked up.
    pub fn put_lookups(&self, file_id: i64, keys: &[i64]) -> Result<()> {
        self.tx
            .prepare_cached("INSERT OR REPLACE INTO lookups(file_id, keys) VALUES (?1, ?2)")
            .and_then(|mut s| s.execute(params![file_id, lookup_blob(keys)]))
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Records new metadata for a file whose content hash did not change.
    pub fn touch_file(&self, id: i64, size: u64, mtime_ns: i64) -> Result<()> {
        self.tx
            .prepare_cached("UPDATE files SET size = ?2, mtime_ns = ?3 WHERE id = ?1")
            .and_then(|mut s| s.execute(params![id, size as i64, mtime_ns]))
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Replaces everything stored for one file (its row, symbols and facts) atomically
    /// within the run's transaction. Symbol ids are kept for qnames that survive, so edges
    /// from other files stay valid.
    pub fn put_file(&self, rec: &FileRecord) -> Result<(i64, Vec<i64>)> {
        let e = |e| self.err(e);
        let facts = &rec.facts;
        let file_id: i64 = self
            .tx
            .prepare_cached(
                "INSERT INTO files(path, lang, module, hash, size, mtime_ns, lines, parse_errors)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                 ON CONFLICT(path) DO UPDATE SET lang = excluded.lang, module = excluded.module,
                   hash = excluded.hash, size = excluded.size, mtime_ns = excluded.mtime_ns,
                   lines = excluded.lines, parse_errors = excluded.parse_errors
                 RETURNING id",
            )
            .and_then(|mut s| {
                s.query_row(
                    params![
                        rec.path,
                        rec.lang.as_str(),
                        rec.module,
                        hash_text(rec.hash),
                        rec.size as i64,
                        rec.mtime_ns,
                        facts.lines,
                        facts.parse_errors
                    ],
                    |r| r.get(0),
                )
            })
            .map_err(e)?;
        if !self.fresh {
            self.delete_facts(file_id)?;
        }
        // Symbols: upsert by qname, then drop the file's symbols that are gone.
        let old: HashMap<String, i64> = if self.fresh {
            HashMap::new()
        } else {
            let mut s = self.tx.prepare_cached("SELECT qname, id FROM symbols WHERE file_id = ?1").map_err(e)?;
            s.query_map([file_id], |r| Ok((r.get(0)?, r.get(1)?))).map_err(e)?.collect::<rusqlite::Result<_>>().map_err(e)?
        };
        let mut ids: Vec<i64> = Vec::with_capacity(facts.symbols.len());
        {
            let mut s = self
                .tx
                .prepare_cached(
                    "INSERT INTO symbols(qname, name, kind, file_id, parent_id, line, col, end_line, exported, bases, ty, decorators, params)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
                     ON CONFLICT(qname) DO UPDATE SET name = excluded.name, kind = excluded.kind,
                       file_id = excluded.file_id, parent_id = excluded.parent_id, line = excluded.line,
                       col = excluded.col, end_line = excluded.end_line, exported = excluded.exported,
                       bases = excluded.bases, ty = excluded.ty, decorators = excluded.decorators, params = excluded.params
                     RETURNING id",
                )
                .map_err(e)?;
            for sym in &facts.symbols {
                let parent = sym.parent.map(|p| ids[p as usize]);
                let id: i64 = s
                    .query_row(
                        params![
                            sym.qname,
                            sym.name,
                            sym.kind.as_str(),
                            file_id,
                            parent,
                            sym.line,
                            sym.col,
                            sym.end_line,
                            sym.exported,
                            encode_lines(&sym.bases),
                            sym.ty.as_ref().map(ValueSource::encode),
                            encode_lines(&sym.decorators),
                            encode_list(&sym.param_uses)
                        ],
                        |r| r.get(0),
                    )
                    .map_err(e)?;
                ids.push(id);
            }
        }
        {
            let kept: std::collections::HashSet<i64> = ids.iter().copied().collect();
            let mut del = self.tx.prepare_cached("DELETE FROM symbols WHERE id = ?1").map_err(e)?;
            for (_, id) in old {
                if !kept.contains(&id) {
                    del.execute([id]).map_err(e)?;
                }
            }
        }
        {
            let mut s = self.tx.prepare_cached("INSERT INTO refs(file_id, data) VALUES (?1, ?2)").map_err(e)?;
            if !facts.refs.is_empty() {
                s.execute(params![file_id, refblob::encode(&facts.refs, &ids)]).map_err(e)?;
            }
        }
        {
            let mut s = self
                .tx
                .prepare_cached(
                    "INSERT INTO imports(file_id, kind, specifier, imported, local, scope_id, type_only, alternative, line, col)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                )
                .map_err(e)?;
            for i in &facts.imports {
                s.execute(params![
                    file_id,
                    i.kind.as_str(),
                    i.specifier,
                    i.imported,
                    i.local,
                    ids[i.scope as usize],
                    i.type_only,
                    i.alternative,
                    i.line,
                    i.col
                ])
                .map_err(e)?;
            }
        }
        {
            let mut s = self
                .tx
                .prepare_cached("INSERT INTO exports(file_id, name, target, specifier, line, col) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
                .map_err(e)?;
            for x in &facts.exports {
                s.execute(params![file_id, x.name, x.target, x.specifier, x.line, x.col]).map_err(e)?;
            }
        }
        self.put_diagnostics(&rec.path, &facts.diagnostics)?;
        Ok((file_id, ids))
    }

    fn delete_facts(&self, file_id: i64) -> Result<()> {
        for sql in [
            "DELETE FROM refs WHERE file_id = ?1",
            "DELETE FROM imports WHERE file_id = ?1",
            "DELETE FROM exports WHERE file_id = ?1",
            "DELETE FROM lookups WHERE file_id = ?1",
        ] {
            self.tx.prepare_cached(sql).and_then(|mut s| s.execute([file_id])).map_err(|e| self.err(e))?;
        }
        self.delete_edge_range(file_id)
    }

    /// Deletes the edges whose site is in `file_id` (one range of ids).
    fn delete_edge_range(&self, file_id: i64) -> Result<()> {
        let (lo, hi) = edge_ids(file_id);
        self.tx
            .prepare_cached("DELETE FROM edges WHERE id BETWEEN ?1 AND ?2")
            .and_then(|mut s| s.execute([lo, hi]))
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Replaces the diagnostics recorded for a path (indexed or skipped).
    pub fn put_diagnostics(&self, path: &str, diags: &[Diagnostic]) -> Result<()> {
        let e = |e| self.err(e);
        if !self.fresh {
            self.tx.prepare_cached("DELETE FROM diagnostics WHERE path = ?1").and_then(|mut s| s.execute([path])).map_err(e)?;
        }
        let mut s = self.tx.prepare_cached("INSERT INTO diagnostics(path, kind, message, line) VALUES (?1, ?2, ?3, ?4)").map_err(e)?;
        for d in diags {
            s.execute(params![path, d.kind.as_str(), d.message, d.line]).map_err(e)?;
        }
        Ok(())
    }

    /// Removes a file that is no longer part of the tree (or is now skipped), with its
    /// symbols, facts and outgoing edges. Inbound edges are re-resolved by the caller.
    pub fn delete_file(&self, id: i64) -> Result<()> {
        self.delete_facts(id)?;
        let e = |e| self.err(e);
        self.tx.prepare_cached("DELETE FROM symbols WHERE file_id = ?1").and_then(|mut s| s.execute([id])).map_err(e)?;
        self.tx.prepare_cached("DELETE FROM files WHERE id = ?1").and_then(|mut s| s.execute([id])).map_err(e)?;
        Ok(())
    }

    /// Deletes the diagnostics of paths that no longer exist in the tree.
    pub fn retain_diagnostics(&self, live: &std::collections::HashSet<&str>) -> Result<()> {
        let paths: Vec<String> = {
            let mut s = self.tx.prepare("SELECT DISTINCT path FROM diagnostics").map_err(|e| self.err(e))?;
            s.query_map([], |r| r.get(0)).map_err(|e| self.err(e))?.collect::<rusqlite::Result<_>>().map_err(|e| self.err(e))?
        };
        for p in paths {
            if !live.contains(p.as_str()) {
                self.put_diagnostics(&p, &[])?;
            }
        }
        Ok(())
    }

    /// Interns an external node (package, member or builtin) and returns its id.
    fn external_id(&mut self, qname: &str) -> Result<i64> {
        if let Some(&id) = self.externals.get(qname) {
            return Ok(id);
        }
        let name = qname.rsplit('.').next().unwrap_or(qname);
        let id: i64 = self
            .tx
            .prepare_cached(
                "INSERT INTO symbols(qname, name, kind, file_id, parent_id, line, col, end_line, exported)
                 VALUES (?1, ?2, 'external', NULL, NULL, 0, 0, 0, 1)
                 ON CONFLICT(qname) DO UPDATE SET qname = excluded.qname
                 RETURNING id",
            )
            .and_then(|mut s| s.query_row(params![qname, name], |r| r.get(0)))
            .map_err(|e| self.err(e))?;
        self.externals.insert(qname.to_string(), id);
        Ok(id)
    }

    /// Deletes the outgoing edges of the given files (before re-resolving them).
    pub fn delete_edges_of(&self, files: &[i64]) -> Result<()> {
        if self.fresh {
            return Ok(());
        }
        for &f in files {
            self.delete_edge_range(f)?;
        }
        Ok(())
    }

    /// Inserts the edges of files whose edges were deleted (or never written): each file's
    /// edges take the ids of its range, in order (edges sorted by file are appended to the
    /// table's B-tree, which keeps its pages full).
    pub fn insert_edges(&mut self, edges: &[EdgeRow]) -> Result<()> {
        let mut next: std::collections::HashMap<i64, i64> = std::collections::HashMap::new();
        for edge in edges {
            let (lo, hi) = edge_ids(edge.file);
            let id = next.entry(edge.file).or_insert(lo);
            if *id > hi {
                return Err(Error::Invalid(format!("more than {} edges in one file (file id {})", hi - lo + 1, edge.file)));
            }
            let edge_id = *id;
            *id += 1;
            let (dst_id, dst_name) = match &edge.dst {
                Dst::Symbol(id) => (Some(*id), None),
                Dst::External(q) => (Some(self.external_id(q)?), None),
                Dst::Unresolved(name) => (None, Some(name.as_str())),
            };
            self.tx
                .prepare_cached(
                    "INSERT INTO edges(id, kind, src_id, dst_id, dst_name, file_id, line, col, evidence, dynamic, dst_last)
                     VALUES (?11, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                )
                .and_then(|mut s| {
                    let last = dst_name.map(last_name);
                    s.execute(params![
                        edge.kind,
                        edge.src,
                        dst_id,
                        dst_name,
                        edge.file,
                        edge.line,
                        edge.col,
                        edge.evidence,
                        edge.dynamic,
                        last,
                        edge_id
                    ])
                })
                .map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    /// Drops external nodes that no edge points to any more.
    pub fn collect_garbage(&mut self) -> Result<()> {
        if self.fresh {
            return Ok(()); // every external node was interned for an edge of this run
        }
        self.tx
            .execute(
                "DELETE FROM symbols WHERE kind = 'external' AND file_id IS NULL
                 AND NOT EXISTS (SELECT 1 FROM edges WHERE edges.dst_id = symbols.id)",
                [],
            )
            .map_err(|e| self.err(e))?;
        self.externals.clear();
        Ok(())
    }

    /// Loads the stored facts that resolution reads.
    /// The reference facts of the given files (all when `None`).
    pub fn load_refs(&self, files: Option<&std::collections::HashSet<i64>>) -> Result<Vec<RefRow>> {
        load_refs(&self.tx, files).map_err(|e| self.err(e))
    }

    pub fn load_resolve_input(&self, refs_of: Option<&std::collections::HashSet<i64>>) -> Result<ResolveInput> {
        load_resolve_input(&self.tx, refs_of).map_err(|e| self.err(e))
    }

    /// Totals for the run summary, as seen inside the transaction.
    pub fn counts(&self) -> Result<Counts> {
        read_counts(&self.tx).map_err(|e| self.err(e))
    }

    /// Bumps the generation and commits the run. Nothing is visible to readers before this.
    pub fn commit(self, stats_json: &str, root: &Path) -> Result<i64> {
        let generation = self.generation()? + 1;
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
        for (k, v) in [
            ("generation", generation.to_string()),
            ("updated_at", now.to_string()),
            ("last_run", stats_json.to_string()),
            ("ckg_version", env!("CARGO_PKG_VERSION").to_string()),
            ("root", root.display().to_string()),
        ] {
            self.tx
                .execute(
                    "INSERT INTO meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    params![k, v],
                )
                .map_err(|e| Error::sqlite(self.path, e))?;
        }
        let path = self.path;
        self.tx.commit().map_err(|e| Error::sqlite(path, e))?;
        Ok(generation)
    }
}

/// What other files can see of one file (see [`WriteTx::interface`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Interface {
    /// qname -> "kind parent exported".
    pub symbols: std::collections::BTreeMap<String, String>,
    pub exports: std::collections::BTreeSet<String>,
    pub imports: std::collections::BTreeSet<String>,
}

impl Interface {
    /// The interface of facts about to be written (same canonical form as the stored one).
    pub fn of(rec: &FileRecord) -> Interface {
        let f = &rec.facts;
        let mut out = Interface::default();
        for s in &f.symbols {
            let parent = s.parent.map(|p| f.symbols[p as usize].qname.as_str()).unwrap_or("");
            out.symbols.insert(
                s.qname.clone(),
                symbol_line(
                    s.kind.as_str(),
                    parent,
                    s.exported,
                    encode_lines(&s.bases).as_deref(),
                    s.ty.as_ref().map(ValueSource::encode).as_deref(),
                    encode_lines(&s.decorators).as_deref(),
                    encode_list(&s.param_uses).as_deref(),
                ),
            );
        }
        for e in &f.exports {
            out.exports.insert(export_line(&e.name, e.target.as_deref(), e.specifier.as_deref()));
        }
        for i in &f.imports {
            let scope = &f.symbols[i.scope as usize].qname;
            out.imports.insert(import_line(
                i.kind.as_str(),
                &i.specifier,
                i.imported.as_deref(),
                i.local.as_deref(),
                i.type_only,
                scope,
                i.alternative,
            ));
        }
        out
    }
}

// The canonical interface lines. Both sides of the comparison (what is stored, what is about
// to be written) go through these, so they can only differ when the facts do.

fn symbol_line(
    kind: &str,
    parent: &str,
    exported: bool,
    bases: Option<&str>,
    ty: Option<&str>,
    decorators: Option<&str>,
    params: Option<&str>,
) -> String {
    format!("{kind} {parent} {exported} {bases:?} {ty:?} {decorators:?} {params:?}")
}

fn export_line(name: &str, target: Option<&str>, specifier: Option<&str>) -> String {
    format!("{name} {target:?} {specifier:?}")
}

fn import_line(
    kind: &str,
    specifier: &str,
    imported: Option<&str>,
    local: Option<&str>,
    type_only: bool,
    scope: &str,
    alternative: bool,
) -> String {
    format!("{kind} {specifier} {imported:?} {local:?} {type_only} {scope} {alternative}")
}

/// A file row as resolution needs it.
#[derive(Clone, Debug)]
pub struct FileRow {
    pub id: i64,
    pub path: String,
    pub lang: Lang,
    pub module: String,
}

#[derive(Clone, Debug)]
pub struct SymbolRow {
    pub id: i64,
    pub qname: String,
    pub name: String,
    pub kind: SymbolKind,
    pub file: Option<i64>,
    pub parent: Option<i64>,
    pub exported: bool,
    pub bases: Vec<String>,
    pub ty: Option<ValueSource>,
    pub decorators: Vec<String>,
    pub param_uses: Vec<ParamUse>,
}

#[derive(Clone, Debug)]
pub struct ImportRow {
    pub file: i64,
    pub kind: ImportKind,
    pub specifier: String,
    pub imported: Option<String>,
    pub local: Option<String>,
    pub scope: i64,
    pub type_only: bool,
    pub alternative: bool,
    pub line: u32,
    pub col: u32,
}

#[derive(Clone, Debug)]
pub struct ExportRow {
    pub file: i64,
    pub name: String,
    pub target: Option<String>,
    pub specifier: Option<String>,
    pub line: u32,
    pub col: u32,
}

#[derive(Clone, Debug)]
pub struct RefRow {
    pub file: i64,
    pub src: i64,
    pub kind: RefKind,
    pub path: String,
    pub text: String,
    pub binding: LocalBinding,
    pub line: u32,
    pub col: u32,
    pub computed: bool,
    pub args: Vec<(String, ValueSource)>,
}

/// Everything resolution reads, loaded in one pass.
#[derive(Debug, Default)]
pub struct ResolveInput {
    pub files: Vec<FileRow>,
    pub symbols: Vec<SymbolRow>,
    pub imports: Vec<ImportRow>,
    pub exports: Vec<ExportRow>,
    pub refs: Vec<RefRow>,
    /// Project configuration files: (path, content).
    pub configs: Vec<(String, String)>,
}

impl ResolveInput {
    /// Drops every row of these files (they changed or are gone).
    pub fn remove_files(&mut self, files: &std::collections::HashSet<i64>) {
        if files.is_empty() {
            return;
        }
        self.files.retain(|f| !files.contains(&f.id));
        self.symbols.retain(|s| s.file.is_none_or(|f| !files.contains(&f)));
        self.imports.retain(|i| !files.contains(&i.file));
        self.exports.retain(|e| !files.contains(&e.file));
        self.refs.retain(|r| !files.contains(&r.file));
    }

    /// Appends the rows of another input (files not in this one).
    pub fn extend(&mut self, other: ResolveInput) {
        self.files.extend(other.files);
        self.files.sort_by(|a, b| a.path.cmp(&b.path));
        self.symbols.extend(other.symbols);
        self.imports.extend(other.imports);
        self.exports.extend(other.exports);
        self.refs.extend(other.refs);
    }

    /// Adds a file just written (with the ids `put_file` gave its symbols), so a fresh build
    /// resolves from memory instead of reading its own rows back.
    pub fn add_file(&mut self, file_id: i64, rec: FileRecord, ids: &[i64]) {
        let facts = rec.facts;
        self.files.push(FileRow { id: file_id, path: rec.path, lang: rec.lang, module: rec.module });
        for (sym, &id) in facts.symbols.into_iter().zip(ids) {
            self.symbols.push(SymbolRow {
                id,
                qname: sym.qname,
                name: sym.name,
                kind: sym.kind,
                file: Some(file_id),
                parent: sym.parent.map(|p| ids[p as usize]),
                exported: sym.exported,
                bases: sym.bases,
                ty: sym.ty,
                decorators: sym.decorators,
                param_uses: sym.param_uses,
            });
        }
        for i in facts.imports {
            self.imports.push(ImportRow {
                file: file_id,
                kind: i.kind,
                specifier: i.specifier,
                imported: i.imported,
                local: i.local,
                scope: ids[i.scope as usize],
                type_only: i.type_only,
                alternative: i.alternative,
                line: i.line,
                col: i.col,
            });
        }
        for e in facts.exports {
            self.exports.push(ExportRow {
                file: file_id,
                name: e.name,
                target: e.target,
                specifier: e.specifier,
                line: e.line,
                col: e.col,
            });
        }
        for r in facts.refs {
            self.refs.push(RefRow {
                file: file_id,
                src: ids[r.src as usize],
                kind: r.kind,
                path: r.path,
                text: r.text,
                binding: r.binding,
                line: r.line,
                col: r.col,
                computed: r.computed,
                args: r.args,
            });
        }
    }
}

/// The reference facts of the given files (all when `None`), decoded from their blobs.
pub fn load_refs(conn: &Connection, files: Option<&std::collections::HashSet<i64>>) -> rusqlite::Result<Vec<RefRow>> {
    let corrupt = |file: i64| {
        rusqlite::Error::FromSqlConversionFailure(
            1,
            rusqlite::types::Type::Blob,
            format!("the references of file {file} do not decode").into(),
        )
    };
    let mut out = Vec::new();
    let mut push = |file: i64, data: Vec<u8>| -> rusqlite::Result<()> {
        out.extend(refblob::decode(file, &data).ok_or_else(|| corrupt(file))?);
        Ok(())
    };
    match files {
        None => {
            let mut s = conn.prepare("SELECT file_id, data FROM refs ORDER BY file_id")?;
            let mut rows = s.query([])?;
            while let Some(r) = rows.next()? {
                push(r.get(0)?, r.get(1)?)?;
            }
        }
        Some(files) => {
            let mut s = conn.prepare("SELECT data FROM refs WHERE file_id = ?1")?;
            let mut files: Vec<i64> = files.iter().copied().collect();
            files.sort();
            for f in files {
                if let Some(data) = s.query_row([f], |r| r.get(0)).optional()? {
                    push(f, data)?;
                }
            }
        }
    }
    Ok(out)
}

/// What resolution needs to bind names (no reference facts): for answering one position
/// (`def`) without indexing.
pub fn load_names(conn: &Connection) -> rusqlite::Result<ResolveInput> {
    load_resolve_input(conn, Some(&std::collections::HashSet::new()))
}

fn load_resolve_input(conn: &Connection, refs_of: Option<&std::collections::HashSet<i64>>) -> rusqlite::Result<ResolveInput> {
    let mut input = ResolveInput::default();
    let mut s = conn.prepare("SELECT id, path, lang, module FROM files ORDER BY path")?;
    input.files = s
        .query_map([], |r| {
            Ok(FileRow {
                id: r.get(0)?,
                path: r.get(1)?,
                lang: Lang::parse(&r.get::<_, String>(2)?).unwrap_or(Lang::TypeScript),
                module: r.get(3)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    // A plain table scan (no index): external nodes are skipped here, names are not needed.
    let mut s = conn.prepare("SELECT id, qname, kind, file_id, parent_id, exported, bases, ty, decorators, params FROM symbols")?;
    let mut rows = s.query([])?;
    while let Some(r) = rows.next()? {
        let Some(file) = r.get::<_, Option<i64>>(3)? else { continue };
        let kind = match r.get_ref(2)? {
            rusqlite::types::ValueRef::Text(t) => std::str::from_utf8(t).ok().and_then(SymbolKind::parse).unwrap_or(SymbolKind::Variable),
            _ => SymbolKind::Variable,
        };
        input.symbols.push(SymbolRow {
            id: r.get(0)?,
            qname: r.get(1)?,
            name: String::new(),
            kind,
            file: Some(file),
            parent: r.get(4)?,
            exported: r.get(5)?,
            bases: r.get::<_, Option<String>>(6)?.map(|b| b.lines().map(String::from).collect()).unwrap_or_default(),
            ty: r.get::<_, Option<String>>(7)?.as_deref().and_then(ValueSource::decode),
            decorators: r.get::<_, Option<String>>(8)?.map(|b| b.lines().map(String::from).collect()).unwrap_or_default(),
            param_uses: decode_list(r.get::<_, Option<String>>(9)?.as_deref()),
        });
    }
    let mut s =
        conn.prepare("SELECT file_id, kind, specifier, imported, local, scope_id, type_only, alternative, line, col FROM imports")?;
    input.imports = s
        .query_map([], |r| {
            Ok(ImportRow {
                file: r.get(0)?,
                kind: ImportKind::parse(&r.get::<_, String>(1)?).unwrap_or(ImportKind::SideEffect),
                specifier: r.get(2)?,
                imported: r.get(3)?,
                local: r.get(4)?,
                scope: r.get(5)?,
                type_only: r.get(6)?,
                alternative: r.get(7)?,
                line: r.get(8)?,
                col: r.get(9)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    let mut s = conn.prepare("SELECT file_id, name, target, specifier, line, col FROM exports")?;
    input.exports = s
        .query_map([], |r| {
            Ok(ExportRow { file: r.get(0)?, name: r.get(1)?, target: r.get(2)?, specifier: r.get(3)?, line: r.get(4)?, col: r.get(5)? })
        })?
        .collect::<rusqlite::Result<_>>()?;
    let mut s = conn.prepare("SELECT path, content FROM configs ORDER BY path")?;
    input.configs = s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<_>>()?;
    input.refs = load_refs(conn, refs_of)?;
    Ok(input)
}

/// Opens an index read-only (queries, export). Fails with a clear error when there is no
/// index, it is corrupt, or it has another schema version.
pub fn open_reader(path: &Path) -> Result<Connection> {
    if !path.exists() {
        return Err(Error::NoIndex(path.to_path_buf()));
    }
    let sql = |e| Error::sqlite(path, e);
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX).map_err(sql)?;
    conn.busy_timeout(std::time::Duration::from_secs(5)).map_err(sql)?;
    let app: i64 = conn.pragma_query_value(None, "application_id", |r| r.get(0)).map_err(sql)?;
    if app != APPLICATION_ID {
        return Err(Error::Foreign { path: path.to_path_buf() });
    }
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0)).map_err(sql)?;
    if version != SCHEMA_VERSION {
        return Err(Error::Invalid(format!(
            "the index at {} has schema version {version}, this ckg reads {SCHEMA_VERSION}; run `ckg index` to rebuild it",
            path.display()
        )));
    }
    Ok(conn)
}

/// How many low bits of an edge id count edges within its file.
pub const EDGE_ID_BITS: u32 = 20;

/// The range of edge ids (inclusive) of the edges whose site is in `file_id`.
pub fn edge_ids(file_id: i64) -> (i64, i64) {
    let lo = file_id << EDGE_ID_BITS;
    (lo, lo + (1 << EDGE_ID_BITS) - 1)
}

/// The stored form of a lookup key (its upper 32 bits).
fn short_key(key: i64) -> u32 {
    ((key as u64) >> 32) as u32
}

/// A file's lookup keys as stored: sorted, deduplicated short keys, 4 bytes each.
fn lookup_blob(keys: &[i64]) -> Vec<u8> {
    let mut short: Vec<u32> = keys.iter().map(|&k| short_key(k)).collect();
    short.sort_unstable();
    short.dedup();
    short.iter().flat_map(|k| k.to_le_bytes()).collect()
}

/// The committed generation of an index (read side).
pub fn read_generation(conn: &Connection) -> rusqlite::Result<i64> {
    let g: Option<String> = conn.query_row("SELECT value FROM meta WHERE key = 'generation'", [], |r| r.get(0)).optional()?;
    Ok(g.and_then(|g| g.parse().ok()).unwrap_or(0))
}

/// Totals over the whole index.
#[derive(Clone, Debug, Default)]
pub struct Counts {
    pub files_by_lang: std::collections::BTreeMap<String, u64>,
    pub lines: u64,
    pub bytes: u64,
    pub symbols: u64,
    pub externals: u64,
    pub edges_by_kind: std::collections::BTreeMap<String, u64>,
    pub edges_by_evidence: std::collections::BTreeMap<String, u64>,
    pub parse_errors: u64,
    pub files_with_parse_errors: u64,
}

/// Reads the totals of an index (works on a reader or inside the write transaction).
pub fn read_counts(conn: &Connection) -> rusqlite::Result<Counts> {
    let mut c = Counts::default();
    let group = |sql: &str| -> rusqlite::Result<std::collections::BTreeMap<String, u64>> {
        let mut s = conn.prepare(sql)?;
        let rows = s.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64)))?;
        rows.collect()
    };
    c.files_by_lang = group("SELECT lang, count(*) FROM files GROUP BY lang")?;
    c.edges_by_kind = group("SELECT kind, count(*) FROM edges GROUP BY kind")?;
    c.edges_by_evidence = group("SELECT evidence, count(*) FROM edges GROUP BY evidence")?;
    let (lines, bytes, errors, with_errors): (i64, i64, i64, i64) = conn.query_row(
        "SELECT coalesce(sum(lines), 0), coalesce(sum(size), 0), coalesce(sum(parse_errors), 0),
                coalesce(sum(parse_errors > 0), 0) FROM files",
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
    )?;
    c.lines = lines as u64;
    c.bytes = bytes as u64;
    c.parse_errors = errors as u64;
    c.files_with_parse_errors = with_errors as u64;
    c.symbols = conn.query_row("SELECT count(*) FROM symbols WHERE kind != 'external'", [], |r| r.get::<_, i64>(0))? as u64;
    c.externals = conn.query_row("SELECT count(*) FROM symbols WHERE kind = 'external'", [], |r| r.get::<_, i64>(0))? as u64;
    Ok(c)
}
