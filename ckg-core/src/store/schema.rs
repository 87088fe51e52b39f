//! The schema of an index: its tables, secondary indexes, pragmas, and the version that says
//! whether this ckg can read a file; with the two layouts the tables rely on (each file's
//! range of edge ids, and the blob of lookup keys per file).

use rusqlite::Connection;

/// Bump when the schema or the meaning of stored facts changes; an index with another
/// version is rebuilt from scratch (it is derived data).
pub const SCHEMA_VERSION: i64 = 68;
/// `PRAGMA application_id` of ckg databases ("ckg1").
pub const APPLICATION_ID: i64 = 0x636b_6731;

pub(super) const SCHEMA: &str = "
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
-- Each qname once: `symbols_qname` ([`QNAME_INDEX`]), which a fresh build makes with the
-- other fact indexes, or at the first qname it writes twice.
CREATE TABLE symbols(
    id INTEGER PRIMARY KEY,
    qname TEXT NOT NULL,
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
    params TEXT,
    -- TS/JS: the declared types of a function's parameters, one per line (empty: none).
    param_types TEXT
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
-- Files skipped for what they hold (binary, minified), with the size and time they had: an
-- unchanged one is not read again (its diagnostic stays in `diagnostics`).
CREATE TABLE skipped(
    path TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
-- What resolving each file looked up (hashed keys: qnames, module paths, other files'
-- exports and imports). A change to any of them re-resolves the file; nothing else does.
-- One row per file: the keys' upper 32 bits, 4 bytes each, little-endian (see `lookup_blob`).
-- A shared 32-bit prefix can only re-resolve a file that did not need it, never miss one.
CREATE TABLE lookups(
    file_id INTEGER PRIMARY KEY,
    keys BLOB NOT NULL
) STRICT;
-- A qname defined by two files belongs to the one whose path sorts last (whatever order the
-- files were stored in, so that an update and a fresh index agree); the other files' claims
-- wait here, to take the name over when its owner lets it go.
CREATE TABLE shadowed(
    qname TEXT NOT NULL,
    file_id INTEGER NOT NULL,
    PRIMARY KEY(qname, file_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX shadowed_file ON shadowed(file_id);
-- Project configuration read by module resolution (tsconfig, jsconfig, package.json).
CREATE TABLE configs(
    path TEXT PRIMARY KEY,
    content TEXT NOT NULL
) STRICT;
-- Edges are clustered by the file of their site: a file's edges have the ids
-- `file_id << EDGE_ID_BITS` and up (see `edge_ids`), so replacing them is a range delete on
-- the table itself and no index on file_id is needed. Kind and evidence are stored as small
-- codes (`EDGE_KINDS`, `EVIDENCE`); the view `edges` names them, and is what queries read.
CREATE TABLE edge_rows(
    id INTEGER PRIMARY KEY,
    kind INTEGER NOT NULL,
    src_id INTEGER NOT NULL,
    dst_id INTEGER,
    dst_name TEXT,
    file_id INTEGER NOT NULL,
    line INTEGER NOT NULL,
    col INTEGER NOT NULL,
    evidence INTEGER NOT NULL,
    -- 0: a named target; 1: a dynamic site with an unnamed receiver; 2: a computed callee;
    -- 3: monkey-patching (the site rebinds the target).
    dynamic INTEGER NOT NULL,
    -- For unresolved edges: the last name of the written path (`a.b.run()` -> `run`), so
    -- completeness can find the sites that could be a target without scanning them all.
    dst_last TEXT,
    -- 1 when the source was not a symbol of the site's file as resolved (a call a function
    -- makes through its parameter, bound at its caller's site; a qname another file owns).
    -- An edge's source is found by these rows' index, or else in the range of the source's
    -- file (or of a file waiting in `shadowed` for its qname): see `edges_remote_src`.
    remote_src INTEGER NOT NULL
) STRICT;
-- How many edges there are of each kind and evidence (codes as in `edge_rows`), kept by
-- every write of edges, so the totals of a run never scan the edges.
CREATE TABLE edge_counts(
    kind INTEGER NOT NULL,
    evidence INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY(kind, evidence)
) STRICT, WITHOUT ROWID;
CREATE VIEW edges AS SELECT id,
    CASE kind WHEN 0 THEN 'calls' WHEN 1 THEN 'instantiates' WHEN 2 THEN 'imports' WHEN 3 THEN 'exports'
        WHEN 4 THEN 'references' WHEN 5 THEN 'inherits' WHEN 6 THEN 'implements' WHEN 7 THEN 'writes' END AS kind,
    src_id, dst_id, dst_name, file_id, line, col,
    CASE evidence WHEN 0 THEN 'exact' WHEN 1 THEN 'inferred' WHEN 2 THEN 'heuristic' ELSE 'unresolved' END AS evidence,
    dynamic, dst_last
FROM edge_rows;
";

/// Edge kinds by their stored code (the view `edges` spells the same list).
pub const EDGE_KINDS: [&str; 8] = ["calls", "instantiates", "imports", "exports", "references", "inherits", "implements", "writes"];

/// Evidence tiers by their stored code.
pub const EVIDENCE: [&str; 4] = ["exact", "inferred", "heuristic", "unresolved"];

/// The stored code of an edge kind or evidence tier.
pub(super) fn code(list: &[&str], name: &str) -> i64 {
    list.iter().position(|k| *k == name).unwrap_or_else(|| panic!("unknown edge kind or evidence {name:?}")) as i64
}

/// Secondary indexes: created after the bulk load of a fresh index (faster than maintaining
/// them row by row; an existing index has them from its fresh build). Tried and not kept:
/// creating the symbols', imports' and exports' indexes with the tables, so that the main
/// thread keeps them up while it waits for the parser threads (keys appended in file order,
/// names at random): in SQLite alone that cost less than building them after the load, but
/// in the run the stored facts took 0.4-0.6 s longer on gen-py-1m, for ~0.1-0.2 s less at
/// the end. `edges_dst` leaves out the unresolved edges (a fifth of django's 356k), which no
/// lookup by destination can find (`dst_id = ?` implies `dst_id IS NOT NULL`, so SQLite uses
/// the partial index): building it took 0.39 -> 0.27 s on django's edges in SQLite alone.
/// The fact tables' indexes ([`FACT_INDEXES`]) are usually built before this runs.
///
/// No index on `src_id`: an edge's site is nearly always in its source's file, so a source's
/// edges are read from that file's range of ids, and the others (`remote_src`, ~1 % of
/// django's edges) from their own partial index ([`RARE_ROW_INDEXES`]). Building an index of
/// every edge's source took 83 ms of django's 356k edges in SQLite alone (16 ms of pytest's
/// 63k), at the end of the run, when one core builds the indexes.
pub(super) const INDEXES: &str = "
CREATE INDEX edges_dst ON edge_rows(dst_id) WHERE dst_id IS NOT NULL;
CREATE INDEX edges_unresolved ON edge_rows(dst_last) WHERE dst_id IS NULL;
";

/// The statement of [`QNAME_INDEX`], written once for both constants that hold it.
macro_rules! qname_index {
    () => {
        "CREATE UNIQUE INDEX IF NOT EXISTS symbols_qname ON symbols(qname);"
    };
}

/// The fact tables' indexes. A fresh build makes them once the facts are stored, while
/// resolution runs on the other threads (the writer waits for its first edges then), rather
/// than with the edges' indexes at the end, when one core builds them and the other is idle;
/// `Store::finish` makes any it did not (a build that resolved nothing), before [`INDEXES`].
/// The first is [`QNAME_INDEX`].
pub(super) const FACT_INDEXES: &str = concat!(
    qname_index!(),
    "
CREATE INDEX IF NOT EXISTS symbols_file ON symbols(file_id);
CREATE INDEX IF NOT EXISTS symbols_name ON symbols(name);
CREATE INDEX IF NOT EXISTS imports_file ON imports(file_id);
CREATE INDEX IF NOT EXISTS exports_file ON exports(file_id);
CREATE INDEX IF NOT EXISTS diagnostics_path ON diagnostics(path);
"
);

/// Each symbol's qname, once. Not a constraint of the table: a fresh build, which knows the
/// qnames it wrote (their hashes), makes it after the load with the other fact indexes
/// (django's 66k symbols: their inserts ~53 ms with a unique column kept up row by row, ~24
/// ms less with the index built after them, in SQLite alone), or before the first symbol
/// whose qname's hash it has seen, whose insert and claim look the qname up
/// (`WriteTx::qname_index`).
pub(super) const QNAME_INDEX: &str = qname_index!();

/// Partial indexes of rare rows (a few hundred to a few thousand of django's 356k edges), created with the
/// tables of a fresh index: maintained as rows are written, they cost a test of the row each,
/// where building them after the load scanned the whole table each (~25 ms on django).
pub(super) const RARE_ROW_INDEXES: &str = "
CREATE INDEX edges_computed ON edge_rows(file_id) WHERE dynamic = 2;
CREATE INDEX edges_patch ON edge_rows(dst_id) WHERE dynamic = 3;
CREATE INDEX edges_remote_src ON edge_rows(src_id) WHERE remote_src = 1;
";

/// A fresh build writes a private temporary file: no journal, no syncs, one connection. A
/// page cache of 16 MiB ([`FRESH_BUILD_CACHE_KIB`]): with 128 MiB every page written stayed
/// in memory until the commit (the whole database: django's 51 MiB, salt's 60 MiB at the peak
/// of the run); now pages past it are written out as the facts are stored. Peak RSS django 220 → 196 MiB, salt
/// 422 → 390 MiB, the run's time unchanged (the commit 41 → 15 ms, the index builds, which
/// read the tables back, ~35 ms longer; `benches/full_ab.py`, `ckg index --json`).
pub(super) const FRESH_BUILD_PRAGMAS: &str = "
PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA temp_store = MEMORY;
PRAGMA locking_mode = EXCLUSIVE;
";

/// A fresh build's page cache, in KiB (set with [`FRESH_BUILD_PRAGMAS`]).
pub(super) const FRESH_BUILD_CACHE_KIB: i64 = 16 * 1024;

/// The writer of an existing index: WAL, so readers keep the previous generation meanwhile.
pub(super) fn configure_writer(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "temp_store", "MEMORY")?;
    conn.pragma_update(None, "cache_size", -65536)?;
    // Closing checkpoints (when no reader holds the file open): a write-ahead log left behind
    // is read whole and checksummed by the next process's first connection, which rebuilds
    // its index of the log (django: an edit's run 170 → 152 ms p50, a no-change run 82 →
    // 65 ms, against leaving the log to the auto-checkpoint).
    Ok(())
}

/// How many low bits of an edge id count edges within its file.
pub const EDGE_ID_BITS: u32 = 20;

/// The range of edge ids (inclusive) of the edges whose site is in `file_id`.
pub fn edge_ids(file_id: i64) -> (i64, i64) {
    let lo = file_id << EDGE_ID_BITS;
    (lo, lo + (1 << EDGE_ID_BITS) - 1)
}

/// A file's lookup keys as stored: ascending, each once, 4 bytes each.
pub(super) fn lookup_blob(keys: &[u32]) -> Vec<u8> {
    debug_assert!(keys.is_sorted_by(|a, b| a < b), "a file's lookup keys are ascending and distinct");
    keys.iter().flat_map(|k| k.to_le_bytes()).collect()
}
