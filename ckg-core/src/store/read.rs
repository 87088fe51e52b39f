//! The read side: opening an index read-only (queries, export), its committed generation,
//! and its totals.

use std::path::Path;

use rusqlite::{Connection, OpenFlags, OptionalExtension};

use super::schema::{APPLICATION_ID, EDGE_KINDS, EVIDENCE, SCHEMA_VERSION};
use super::write::WriteTx;
use crate::error::{Error, Result};

/// Opens an index read-only (queries, export). Fails with a clear error when there is no
/// index, it is corrupt, or it has another schema version.
pub fn open_reader(path: &Path) -> Result<Connection> {
    match std::fs::metadata(path) {
        Err(_) => return Err(Error::NoIndexAt(path.to_path_buf())),
        Ok(m) if m.is_dir() => {
            return Err(Error::Invalid(format!(
                "{} is a directory, not an index file (the index of a repository is its .ckg/index.db)",
                path.display()
            )));
        }
        Ok(m) if m.len() == 0 => {
            return Err(Error::Invalid(format!("{} is empty, not a ckg index; run `ckg index` to build one", path.display())));
        }
        Ok(_) => {}
    }
    let sql = |e| Error::sqlite(path, e);
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX).map_err(sql)?;
    conn.busy_timeout(std::time::Duration::from_secs(5)).map_err(sql)?;
    let conn = match conn.pragma_query_value(None, "application_id", |r| r.get::<_, i64>(0)) {
        Err(e)
            if e.sqlite_error_code() == Some(rusqlite::ErrorCode::ReadOnly)
                || e.sqlite_error_code() == Some(rusqlite::ErrorCode::CannotOpen) =>
        {
            open_immutable(path).ok_or_else(|| sql(e))?
        }
        Err(e) => return Err(sql(e)),
        Ok(_) => conn,
    };
    let app: i64 = conn.pragma_query_value(None, "application_id", |r| r.get(0)).map_err(sql)?;
    if app != APPLICATION_ID {
        return Err(Error::Invalid(format!("{} is not a ckg index (an SQLite database another program made)", path.display())));
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

/// The root directory of an index's files: where it was built from (`stored`, its `meta`
/// root), unless the index sits in a repository's `.ckg` folder and was moved or copied there
/// with it (the root it was built from is gone, or has an index of its own, another file).
/// The folders are compared as the file system resolves them (a `.ckg` that is a link to a
/// cache is still the repository's).
pub fn indexed_root(db: &Path, stored: Option<String>) -> Option<String> {
    let db_abs = std::path::absolute(db).ok()?;
    let here = db_abs.parent().filter(|d| d.file_name().is_some_and(|n| n == ".ckg")).and_then(Path::parent);
    let (stored, here) = match (stored, here) {
        (stored, None) => return stored,
        (None, Some(here)) => return Some(here.display().to_string()),
        (Some(stored), Some(here)) => (stored, here),
    };
    let built = Path::new(&stored);
    if here.canonicalize().ok().as_deref() == Some(built) || here == built {
        return Some(stored);
    }
    let own = built.join(".ckg").join(db_abs.file_name()?);
    let same_file = |a: &Path, b: &Path| a.canonicalize().ok().is_some_and(|a| b.canonicalize().ok().is_some_and(|b| a == b));
    if !built.exists() || (own.exists() && !same_file(&own, &db_abs)) { Some(here.display().to_string()) } else { Some(stored) }
}

/// An index in a directory this process cannot write (a read-only mount, a cache, another
/// user's index), read as a file nothing changes: SQLite cannot make the shared-memory file a
/// reader of a WAL database needs there. Not when a write-ahead log with content is beside it:
/// what it holds would not be read. (A process that can write there and updates the index
/// meanwhile is not seen: such a reader sees the index as it was when it opened it, or fails
/// with a clear error.)
fn open_immutable(path: &Path) -> Option<Connection> {
    let wal = std::fs::metadata(format!("{}-wal", path.display())).map(|m| m.len()).unwrap_or(0);
    if wal > 0 {
        return None;
    }
    let escaped = path.display().to_string().replace('%', "%25").replace('?', "%3f").replace('#', "%23");
    let uri = format!("file:{escaped}?immutable=1");
    Connection::open_with_flags(uri, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI).ok()
}

/// The committed generation of an index (read side).
pub fn read_generation(conn: &Connection) -> rusqlite::Result<i64> {
    // Cached: a long-lived reader asks at the start of every snapshot.
    let g: Option<String> =
        conn.prepare_cached("SELECT value FROM meta WHERE key = 'generation'")?.query_row([], |r| r.get(0)).optional()?;
    Ok(g.and_then(|g| g.parse().ok()).unwrap_or(0))
}

/// Totals over the whole index.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
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
    // Kept by every write of edges (`edge_counts`), named as the view `edges` names them.
    let mut s = conn.prepare("SELECT kind, evidence, n FROM edge_counts WHERE n != 0")?;
    let mut rows = s.query([])?;
    while let Some(r) = rows.next()? {
        let (kind, evidence, n): (usize, usize, i64) = (r.get(0)?, r.get(1)?, r.get(2)?);
        let name = |list: &[&str], i: usize| list.get(i).copied().unwrap_or("unknown").to_string();
        *c.edges_by_kind.entry(name(&EDGE_KINDS, kind)).or_default() += n as u64;
        *c.edges_by_evidence.entry(name(&EVIDENCE, evidence)).or_default() += n as u64;
    }
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
    // External nodes are the symbols without a file (a count over `symbols_file`); the
    // table's own count needs no scan.
    let all = conn.query_row("SELECT count(*) FROM symbols", [], |r| r.get::<_, i64>(0))? as u64;
    c.externals = conn.query_row("SELECT count(*) FROM symbols WHERE file_id IS NULL", [], |r| r.get::<_, i64>(0))? as u64;
    c.symbols = all - c.externals;
    Ok(c)
}

impl WriteTx<'_> {
    /// Totals for the run summary, as seen inside the transaction.
    pub fn counts(&self) -> Result<Counts> {
        self.flush_edge_counts()?;
        read_counts(&self.tx).map_err(|e| self.err(e))
    }
}
