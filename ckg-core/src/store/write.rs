//! The write transaction of one run ([`WriteTx`]): a file's rows replaced in one go (in an
//! update, written only where they differ from the stored ones), edges written to their
//! file's id range and external nodes interned (`edges`), what each file's resolution looked
//! up, run metadata, and the commit that bumps the generation.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::types::{Value, ValueRef};
use rusqlite::{OptionalExtension, params};

use super::schema::lookup_blob;
use crate::error::{Error, Result};
use crate::facts::{Diagnostic, FileRecord};
use crate::refblob;

mod edges;
mod rows;
mod symbols;

use rows::RowsInsert;

/// The stored state of a file, used to skip unchanged files.
#[derive(Clone, Debug)]
pub struct FileState {
    pub id: i64,
    pub hash: u64,
    pub size: u64,
    pub mtime_ns: i64,
    pub module: String,
}

/// A file skipped for what it holds (binary, minified): its size and time when it was, and
/// its diagnostic.
#[derive(Clone, Debug)]
pub struct SkippedState {
    pub size: u64,
    pub mtime_ns: i64,
    /// `None` when its diagnostic is not the index's (then it is read again).
    pub diagnostic: Option<Diagnostic>,
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
    /// The source is not a symbol of the site's file (see `edge_rows.remote_src`). Known once
    /// the source's file is: the resolver's edges are made with `false`, and
    /// `Resolver::resolve_file` sets it for each.
    pub remote_src: bool,
}

/// The write transaction of one run.
pub struct WriteTx<'a> {
    pub(super) tx: rusqlite::Transaction<'a>,
    path: &'a Path,
    externals: HashMap<String, i64>,
    /// Edges written minus edges deleted in this run, by (kind, evidence) code, not yet added
    /// to `edge_counts`.
    edge_delta: std::cell::RefCell<crate::resolve::Map<(i64, i64), i64>>,
    /// A fresh build: nothing is stored yet, so there is nothing to delete or look up (and
    /// no secondary index to do it with, but for two partial ones of rare edges).
    fresh: bool,
    /// The qnames two files defined in this run, by the id of their symbol: the file that
    /// owns each now. Facts kept in memory hold every file's definition, the database only
    /// the owner's.
    qname_owners: std::cell::RefCell<crate::resolve::Map<i64, i64>>,
    /// The targets of edges deleted or rewritten in this run: the external nodes among them
    /// may have no edge left.
    lost_edge: std::cell::RefCell<Vec<i64>>,
    /// A fresh build's symbols as written so far: the hash of each qname, and the id the next
    /// symbol gets (see [`WriteTx::append_symbols`]).
    appended: std::cell::RefCell<Appended>,
    /// Whether `symbols_qname` exists (always in an update; see [`WriteTx::qname_index`]).
    qname_indexed: std::cell::Cell<bool>,
}

/// The symbols a fresh build has written: the hashes of their qnames (a qname whose hash is
/// not among them is not taken), and the next row id.
#[derive(Default)]
struct Appended {
    qnames: crate::resolve::Set<u64>,
    next_id: Option<i64>,
}

impl<'a> WriteTx<'a> {
    pub(super) fn new(tx: rusqlite::Transaction<'a>, path: &'a Path, fresh: bool) -> WriteTx<'a> {
        WriteTx {
            tx,
            path,
            externals: HashMap::new(),
            edge_delta: Default::default(),
            fresh,
            qname_owners: Default::default(),
            lost_edge: Default::default(),
            appended: Default::default(),
            qname_indexed: std::cell::Cell::new(!fresh),
        }
    }
}

/// The last name of a written path: `a.b.run()` -> `run`, `handlers[k]` -> `handlers[k]`.
pub fn last_name(path: &str) -> &str {
    if path.ends_with(']') {
        return path;
    }
    path.rsplit(['.', '#']).next().unwrap_or(path).trim_end_matches("()")
}

/// A list stored as one text column, one item per line (NULL when empty).
pub(super) fn encode_lines(items: &[String]) -> Option<String> {
    (!items.is_empty()).then(|| items.join("\n"))
}

/// A file's import rows.
static IMPORT_INSERT: std::sync::LazyLock<RowsInsert> = std::sync::LazyLock::new(|| {
    RowsInsert::new(
        "INSERT INTO imports(file_id, kind, specifier, imported, local, scope_id, type_only, alternative, line, col)",
        10,
        &[16, 4, 1],
    )
});

fn text(s: &str) -> ValueRef<'_> {
    ValueRef::Text(s.as_bytes())
}

fn opt_text(s: Option<&str>) -> ValueRef<'_> {
    s.map_or(ValueRef::Null, text)
}

fn hash_text(h: u64) -> String {
    format!("{h:016x}")
}

impl WriteTx<'_> {
    pub(super) fn err(&self, e: rusqlite::Error) -> Error {
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

    pub fn delete_meta(&self, key: &str) -> Result<()> {
        self.tx.execute("DELETE FROM meta WHERE key = ?1", [key]).map_err(|e| self.err(e))?;
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

    /// The files whose last resolution looked up any of these keys (a scan of every file's
    /// key list: only updates that change an interface ask).
    pub fn files_looking_up(&self, wanted: &std::collections::HashSet<u32>) -> Result<std::collections::HashSet<i64>> {
        let mut out = std::collections::HashSet::new();
        if wanted.is_empty() {
            return Ok(out);
        }
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

    /// Replaces what a file's resolution looked up (its keys ascending, each once), unless it
    /// is what is stored.
    pub fn put_lookups(&self, file_id: i64, keys: &[u32]) -> Result<()> {
        self.put_blob(&LOOKUPS_BLOB, file_id, Some(lookup_blob(keys)))
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
    /// from other files stay valid. In an update, rows equal to the stored ones are not
    /// written again (an edit writes what it changed, not the whole file); the file's edges
    /// and lookups are replaced when it is resolved, later in the run.
    pub fn put_file(&self, rec: &FileRecord) -> Result<(i64, Vec<i64>)> {
        let e = |e| self.err(e);
        let facts = &rec.facts;
        let row = params![
            rec.path,
            rec.lang.as_str(),
            rec.module,
            hash_text(rec.hash),
            rec.size as i64,
            rec.mtime_ns,
            facts.lines,
            facts.parse_errors
        ];
        // A fresh build inserts each path once, and reads the id back as the last row inserted
        // (`RETURNING` costs more than the insert).
        let file_id: i64 = if self.fresh {
            self.tx
                .prepare_cached("INSERT INTO files(path, lang, module, hash, size, mtime_ns, lines, parse_errors) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")
                .and_then(|mut s| s.execute(row))
                .map_err(e)?;
            self.tx.last_insert_rowid()
        } else {
            self.tx
                .prepare_cached(
                    "INSERT INTO files(path, lang, module, hash, size, mtime_ns, lines, parse_errors)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                     ON CONFLICT(path) DO UPDATE SET lang = excluded.lang, module = excluded.module,
                       hash = excluded.hash, size = excluded.size, mtime_ns = excluded.mtime_ns,
                       lines = excluded.lines, parse_errors = excluded.parse_errors
                     RETURNING id",
                )
                .and_then(|mut s| s.query_row(row, |r| r.get(0)))
                .map_err(e)?
        };
        if !self.fresh {
            self.tx.prepare_cached("DELETE FROM shadowed WHERE file_id = ?1").and_then(|mut s| s.execute([file_id])).map_err(e)?;
        }
        let ids = self.put_symbols(file_id, &rec.path, facts)?;
        self.put_blob(&REFS_BLOB, file_id, (!facts.refs.is_empty()).then(|| refblob::encode(&facts.refs, &ids)))?;
        let imports = || {
            facts.imports.iter().map(|i| {
                [
                    text(i.kind.as_str()),
                    text(&i.specifier),
                    opt_text(i.imported.as_deref()),
                    opt_text(i.local.as_deref()),
                    ValueRef::Integer(ids[i.scope as usize]),
                    ValueRef::Integer(i.type_only.into()),
                    ValueRef::Integer(i.alternative.into()),
                    ValueRef::Integer(i.line.into()),
                    ValueRef::Integer(i.col.into()),
                ]
            })
        };
        if !self.stored_rows_are(
            file_id,
            "imports",
            "kind, specifier, imported, local, scope_id, type_only, alternative, line, col",
            imports,
        )? {
            self.insert_rows(&IMPORT_INSERT, &facts.imports, |p, first, _, i| {
                p.int(first, file_id)?;
                p.text(first + 1, i.kind.as_str())?;
                p.text(first + 2, &i.specifier)?;
                p.opt_text(first + 3, i.imported.as_deref())?;
                p.opt_text(first + 4, i.local.as_deref())?;
                p.int(first + 5, ids[i.scope as usize])?;
                p.int(first + 6, i.type_only)?;
                p.int(first + 7, i.alternative)?;
                p.fresh_int(first + 8, i.line)?;
                p.fresh_int(first + 9, i.col)
            })?;
        }
        let exports = || {
            facts.exports.iter().map(|x| {
                [
                    text(&x.name),
                    opt_text(x.target.as_deref()),
                    opt_text(x.specifier.as_deref()),
                    ValueRef::Integer(x.line.into()),
                    ValueRef::Integer(x.col.into()),
                ]
            })
        };
        if !self.stored_rows_are(file_id, "exports", "name, target, specifier, line, col", exports)? {
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

    /// Makes a file's row of a one-blob-per-file table ([`LOOKUPS_BLOB`], [`REFS_BLOB`]) hold
    /// `blob` (no row for `None`); not written when it already does.
    fn put_blob(&self, table: &BlobTable, file_id: i64, blob: Option<Vec<u8>>) -> Result<()> {
        let e = |e| self.err(e);
        // A fresh build stores none before.
        let stored: Option<Vec<u8>> = match self.fresh {
            true => None,
            false => self.tx.prepare_cached(table.select).and_then(|mut s| s.query_row([file_id], |r| r.get(0)).optional()).map_err(e)?,
        };
        if stored == blob {
            return Ok(());
        }
        match blob {
            Some(blob) => self.tx.prepare_cached(table.put).and_then(|mut s| s.execute(params![file_id, blob])),
            None => self.tx.prepare_cached(table.delete).and_then(|mut s| s.execute([file_id])),
        }
        .map_err(e)?;
        Ok(())
    }

    /// Whether the file's rows of `table` (its `columns`, in the order they were written) are
    /// `rows`; when not, they are deleted, for the caller to write. Always false in a fresh
    /// build, which has none, without computing `rows`.
    fn stored_rows_are<'v, const N: usize, I>(&self, file_id: i64, table: &str, columns: &str, rows: impl FnOnce() -> I) -> Result<bool>
    where
        I: Iterator<Item = [ValueRef<'v>; N]>,
    {
        if self.fresh {
            return Ok(false);
        }
        let e = |e| self.err(e);
        let mut s = self.tx.prepare_cached(&format!("SELECT {columns} FROM {table} WHERE file_id = ?1 ORDER BY rowid")).map_err(e)?;
        let stored: Vec<[Value; N]> = s
            .query_map([file_id], |r| {
                let mut row: [Value; N] = std::array::from_fn(|_| Value::Null);
                for (k, v) in row.iter_mut().enumerate() {
                    *v = r.get(k)?;
                }
                Ok(row)
            })
            .map_err(e)?
            .collect::<rusqlite::Result<_>>()
            .map_err(e)?;
        let mut rows = rows();
        let mut stored_rows = stored.iter();
        let same = loop {
            match (stored_rows.next(), rows.next()) {
                (None, None) => break true,
                (Some(a), Some(b)) if a.iter().zip(b).all(|(a, b)| ValueRef::from(a) == b) => {}
                _ => break false,
            }
        };
        if !same {
            self.tx.prepare_cached(&format!("DELETE FROM {table} WHERE file_id = ?1")).and_then(|mut s| s.execute([file_id])).map_err(e)?;
        }
        Ok(same)
    }

    /// Deletes a file's facts, lookups and edges (the file is gone).
    fn delete_facts(&self, file_id: i64) -> Result<()> {
        for sql in [
            "DELETE FROM shadowed WHERE file_id = ?1",
            "DELETE FROM refs WHERE file_id = ?1",
            "DELETE FROM imports WHERE file_id = ?1",
            "DELETE FROM exports WHERE file_id = ?1",
            "DELETE FROM lookups WHERE file_id = ?1",
        ] {
            self.tx.prepare_cached(sql).and_then(|mut s| s.execute([file_id])).map_err(|e| self.err(e))?;
        }
        self.delete_edge_range(file_id)
    }

    /// Replaces the diagnostics recorded for a path (indexed or skipped); returns whether
    /// they differ from the stored ones.
    pub fn put_diagnostics(&self, path: &str, diags: &[Diagnostic]) -> Result<bool> {
        let e = |e| self.err(e);
        if !self.fresh {
            let mut old =
                self.tx.prepare_cached("SELECT kind, message, line FROM diagnostics WHERE path = ?1 ORDER BY rowid").map_err(e)?;
            let stored = old
                .query_map([path], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, Option<u32>>(2)?)))
                .map_err(e)?
                .collect::<rusqlite::Result<Vec<_>>>()
                .map_err(e)?;
            let same = stored.len() == diags.len()
                && stored.iter().zip(diags).all(|((k, m, l), d)| k == d.kind.as_str() && *m == d.message && *l == d.line);
            if same {
                return Ok(false);
            }
            self.tx.prepare_cached("DELETE FROM diagnostics WHERE path = ?1").and_then(|mut s| s.execute([path])).map_err(e)?;
        }
        let mut s = self.tx.prepare_cached("INSERT INTO diagnostics(path, kind, message, line) VALUES (?1, ?2, ?3, ?4)").map_err(e)?;
        for d in diags {
            s.execute(params![path, d.kind.as_str(), d.message, d.line]).map_err(e)?;
        }
        // A fresh build stored nothing before; an update got here because they differ.
        Ok(!self.fresh || !diags.is_empty())
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

    /// The files skipped for what they hold, by path.
    pub fn skipped_states(&self) -> Result<HashMap<String, SkippedState>> {
        let e = |e| self.err(e);
        let mut s = self
            .tx
            .prepare("SELECT s.path, s.size, s.mtime_ns, d.kind, d.message FROM skipped s LEFT JOIN diagnostics d ON d.path = s.path")
            .map_err(e)?;
        let rows = s
            .query_map([], |r| {
                let kind = r.get::<_, Option<String>>(3)?.and_then(|k| crate::facts::DiagnosticKind::parse(&k));
                let diagnostic = match (kind, r.get::<_, Option<String>>(4)?) {
                    (Some(kind), Some(message)) => Some(Diagnostic { kind, message, line: None }),
                    _ => None,
                };
                Ok((r.get::<_, String>(0)?, SkippedState { size: r.get::<_, i64>(1)? as u64, mtime_ns: r.get(2)?, diagnostic }))
            })
            .map_err(e)?;
        rows.collect::<rusqlite::Result<_>>().map_err(e)
    }

    /// Makes the skipped files recorded (`stored`, as [`WriteTx::skipped_states`] read them)
    /// those of this run, by path with their size and time; returns whether anything changed.
    pub fn update_skipped(&self, stored: &HashMap<String, SkippedState>, now: &HashMap<String, (u64, i64)>) -> Result<bool> {
        let e = |e| self.err(e);
        let mut changed = false;
        for (path, &(size, mtime_ns)) in now {
            if stored.get(path).is_none_or(|s| (s.size, s.mtime_ns) != (size, mtime_ns)) {
                self.tx
                    .prepare_cached("INSERT OR REPLACE INTO skipped(path, size, mtime_ns) VALUES (?1, ?2, ?3)")
                    .and_then(|mut s| s.execute(params![path, size as i64, mtime_ns]))
                    .map_err(e)?;
                changed = true;
            }
        }
        for path in stored.keys().filter(|p| !now.contains_key(*p)) {
            self.tx.prepare_cached("DELETE FROM skipped WHERE path = ?1").and_then(|mut s| s.execute([path])).map_err(e)?;
            changed = true;
        }
        Ok(changed)
    }

    /// Deletes the diagnostics of paths that are not live; returns whether there were any.
    pub fn retain_diagnostics(&self, live: &std::collections::HashSet<&str>) -> Result<bool> {
        let paths: Vec<String> = {
            let mut s = self.tx.prepare("SELECT DISTINCT path FROM diagnostics").map_err(|e| self.err(e))?;
            s.query_map([], |r| r.get(0)).map_err(|e| self.err(e))?.collect::<rusqlite::Result<_>>().map_err(|e| self.err(e))?
        };
        let mut deleted = false;
        for p in paths {
            if !live.contains(p.as_str()) {
                deleted |= self.put_diagnostics(&p, &[])?;
            }
        }
        Ok(deleted)
    }

    /// Commits a run that changed no fact, only what was recorded of the files (new times of
    /// unchanged content, of skipped files): the generation stays, so readers and the names
    /// snapshot of this generation stay valid.
    pub fn commit_metadata(self) -> Result<()> {
        let path = self.path;
        self.tx.commit().map_err(|e| Error::sqlite(path, e))
    }

    /// Bumps the generation and commits the run. Nothing is visible to readers before this.
    pub fn commit(self, stats_json: &str, root: &Path) -> Result<i64> {
        self.flush_edge_counts()?;
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

/// The statements of a table holding one blob per file (`file_id`, then the blob).
struct BlobTable {
    select: &'static str,
    put: &'static str,
    delete: &'static str,
}

/// What each file's resolution looked up.
const LOOKUPS_BLOB: BlobTable = BlobTable {
    select: "SELECT keys FROM lookups WHERE file_id = ?1",
    put: "INSERT OR REPLACE INTO lookups(file_id, keys) VALUES (?1, ?2)",
    delete: "DELETE FROM lookups WHERE file_id = ?1",
};

/// Each file's references ([`refblob`]).
const REFS_BLOB: BlobTable = BlobTable {
    select: "SELECT data FROM refs WHERE file_id = ?1",
    put: "INSERT OR REPLACE INTO refs(file_id, data) VALUES (?1, ?2)",
    delete: "DELETE FROM refs WHERE file_id = ?1",
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Lang;
    use crate::store::Store;
    use crate::store::schema::{EDGE_KINDS, EVIDENCE, code, edge_ids};

    const SOURCE: &str = "import os\n\nclass A:\n    def f(self):\n        return os.path.join('a')\n\ndef g():\n    A().f()\n";

    fn record(source: &str, mtime_ns: i64) -> FileRecord {
        let facts = crate::extract::Extractor::new().extract(Lang::Python, "m", source.as_bytes());
        let hash = xxhash_rust::xxh3::xxh3_64(source.as_bytes());
        FileRecord { path: "m.py".into(), lang: Lang::Python, hash, size: source.len() as u64, mtime_ns, module: "m".into(), facts }
    }

    /// An exact call from `src` at `line` of `file`.
    fn call(file: i64, src: i64, dst: Dst, line: u32) -> EdgeRow {
        EdgeRow { kind: "calls", src, dst, file, line, col: 4, evidence: "exact", dynamic: 0, remote_src: false }
    }

    /// An edge of each kind of target: a symbol, an external node, an unresolved name.
    fn edges(file: i64, ids: &[i64]) -> Vec<EdgeRow> {
        let edge = |dst, line| call(file, ids[0], dst, line);
        vec![edge(Dst::External("os.path.join".into()), 5), edge(Dst::Symbol(ids[1]), 8), edge(Dst::Unresolved("x.run".into()), 9)]
    }

    /// Writes `rec` and its edges in one run; returns how many rows the run changed.
    fn run(db: &Path, rec: &FileRecord) -> i64 {
        let (mut store, _) = Store::open(db, false).unwrap();
        let mut tx = store.begin().unwrap();
        let before = tx.tx.total_changes();
        let (file, ids) = tx.put_file(rec).unwrap();
        tx.write_edges(file, &edges(file, &ids)).unwrap();
        tx.put_lookups(file, &[1, 2, 3]).unwrap();
        tx.collect_garbage().unwrap();
        tx.flush_edge_counts().unwrap();
        let changed = (tx.tx.total_changes() - before) as i64;
        tx.commit("{}", db).unwrap();
        store.finish().unwrap();
        changed
    }

    /// A file stored again with the same facts and edges (a new time: an edit that changed
    /// nothing it is indexed by) changes one row, its own: no symbol, reference, import, edge,
    /// lookup or external node is written again.
    #[test]
    fn a_file_stored_again_unchanged_writes_only_its_own_row() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("index.db");
        let rec = record(SOURCE, 1);
        assert!(!rec.facts.symbols.is_empty() && !rec.facts.imports.is_empty() && !rec.facts.refs.is_empty());
        assert!(run(&db, &rec) > 5);
        assert_eq!(run(&db, &record(SOURCE, 2)), 1);
        // A change is written: the lines move, so symbols, references and imports do.
        assert!(run(&db, &record(&format!("\n{SOURCE}"), 3)) > 1);
    }

    /// A file's edges appended in a fresh build (many rows per statement, the rest one by one)
    /// are stored as written, each at its position's id; stored again in an update, where
    /// each is compared with the stored row, none is written again.
    #[test]
    fn appended_edges_are_stored_at_their_positions() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("index.db");
        let rec = record(SOURCE, 1);
        // Two statements' worth and a rest, every kind of target.
        let all = |file: i64, ids: &[i64]| -> Vec<EdgeRow> {
            (0..75u32)
                .map(|i| EdgeRow {
                    kind: if i % 3 == 0 { "references" } else { "calls" },
                    src: ids[(i as usize) % ids.len()],
                    dst: match i % 3 {
                        0 => Dst::Symbol(ids[1]),
                        1 => Dst::External(format!("os.f{}", i % 7)),
                        _ => Dst::Unresolved(format!("x.run{i}")),
                    },
                    file,
                    line: 10 + i,
                    col: i % 5,
                    evidence: if i % 2 == 0 { "exact" } else { "heuristic" },
                    dynamic: (i % 4) as u8,
                    remote_src: i % 5 == 0,
                })
                .collect()
        };
        let write = |mtime| {
            let (mut store, _) = Store::open(&db, false).unwrap();
            let mut tx = store.begin().unwrap();
            let (file, ids) = tx.put_file(&record(SOURCE, mtime)).unwrap();
            let before = tx.tx.total_changes();
            let edges = all(file, &ids);
            tx.write_edges(file, &edges).unwrap();
            let changed = tx.tx.total_changes() - before;
            tx.flush_edge_counts().unwrap();
            // id, kind, source, target qname, written name, line, col, evidence, dynamic, last name, remote source
            type Row = (i64, i64, i64, Option<String>, Option<String>, u32, u32, i64, u8, Option<String>, bool);
            let stored: Vec<Row> = tx
                .tx
                .prepare(
                    "SELECT e.id, e.kind, e.src_id, s.qname, e.dst_name, e.line, e.col, e.evidence, e.dynamic, e.dst_last, e.remote_src
                     FROM edge_rows e LEFT JOIN symbols s ON s.id = e.dst_id WHERE e.file_id = ?1 ORDER BY e.id",
                )
                .unwrap()
                .query_map([file], |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                        r.get(6)?,
                        r.get(7)?,
                        r.get(8)?,
                        r.get(9)?,
                        r.get(10)?,
                    ))
                })
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap();
            let (lo, _) = edge_ids(file);
            assert_eq!(stored.len(), edges.len());
            for (i, (edge, row)) in edges.iter().zip(&stored).enumerate() {
                let (dst_q, dst_name) = match &edge.dst {
                    Dst::Symbol(id) => (rec.facts.symbols.iter().zip(&ids).find(|(_, s)| *s == id).map(|(f, _)| f.qname.clone()), None),
                    Dst::External(q) => (Some(q.clone()), None),
                    Dst::Unresolved(n) => (None, Some(n.clone())),
                };
                let last = dst_name.as_deref().map(|n: &str| last_name(n).to_string());
                let want = (
                    lo + i as i64,
                    code(&EDGE_KINDS, edge.kind),
                    edge.src,
                    dst_q,
                    dst_name,
                    edge.line,
                    edge.col,
                    code(&EVIDENCE, edge.evidence),
                    edge.dynamic,
                    last,
                    edge.remote_src,
                );
                assert_eq!(row, &want, "edge {i}");
            }
            tx.commit("{}", &db).unwrap();
            store.finish().unwrap();
            changed
        };
        // Written: 2 statements of 32 rows, one of 8 and 3 of one, and the external nodes
        // interned.
        assert!(write(1) >= 75);
        assert_eq!(write(2), 0);
    }

    /// A fresh build writes symbols many to a statement, with ids it gives them; an update
    /// writes them one by one. Both store the same rows: ids, parents, and the owner of a
    /// qname that two files (and one file twice) define.
    #[test]
    fn symbols_appended_in_a_fresh_build_are_as_one_by_one() {
        let record_at = |path: &str, module: &str, source: &str| {
            let facts = crate::extract::Extractor::new().extract(Lang::Python, module, source.as_bytes());
            let hash = xxhash_rust::xxh3::xxh3_64(source.as_bytes());
            FileRecord { path: path.into(), lang: Lang::Python, hash, size: source.len() as u64, mtime_ns: 1, module: module.into(), facts }
        };
        // 2 x 16 + 4 + 3 rows before the second `g`; methods whose parent is in the same statement.
        let mut a = String::from("class A:\n    def f(self): pass\n    def h(self): pass\n");
        for i in 0..36 {
            a.push_str(&format!("def f{i}(): pass\n"));
        }
        a.push_str("def g(): pass\ndef g(): pass\nclass B:\n    def f(self): pass\n");
        // Every column written: bases, decorators, a declared type, calls through a parameter.
        a.push_str("@functools.cache\ndef deco(): pass\nclass C(A):\n    pass\ndef run(cb):\n    return cb()\nvalue: int = 1\n");
        let b = "def f3(): pass\nclass A:\n    def h(self): pass\ndef only_b(): pass\n";
        let (a, b) = (record_at("a.py", "m", &a), record_at("b.py", "m", b));
        // (id, qname, kind, file, parent qname, line, the other columns), and the claims
        // waiting in `shadowed`.
        type Rows = (Vec<(i64, String, String, Option<String>, Option<String>, u32, String)>, Vec<(String, String)>);
        let stored = |fresh: bool| -> Rows {
            let dir = tempfile::tempdir().unwrap();
            let db = dir.path().join("index.db");
            if !fresh {
                let (mut store, _) = Store::open(&db, false).unwrap();
                let tx = store.begin().unwrap();
                tx.put_file(&record_at("z.py", "z", "")).unwrap();
                tx.commit("{}", &db).unwrap();
                store.finish().unwrap();
            }
            let (mut store, _) = Store::open(&db, false).unwrap();
            assert_eq!(store.is_fresh(), fresh);
            let tx = store.begin().unwrap();
            let mut returned = Vec::new();
            for rec in [&a, &b] {
                let (_, ids) = tx.put_file(rec).unwrap();
                assert_eq!(ids.len(), rec.facts.symbols.len());
                returned.extend(rec.facts.symbols.iter().map(|s| s.qname.clone()).zip(ids));
            }
            type Row = (i64, String, String, Option<String>, Option<String>, u32, String);
            let symbols: Vec<Row> = tx
                .tx
                .prepare(
                    "SELECT s.id, s.qname, s.kind, f.path, p.qname, s.line,
                       printf('%d|%d|%d|%s|%s|%s|%s|%s', s.col, s.end_line, s.exported, quote(s.bases), quote(s.ty),
                         quote(s.decorators), quote(s.params), quote(s.param_types))
                     FROM symbols s LEFT JOIN files f ON f.id = s.file_id
                     LEFT JOIN symbols p ON p.id = s.parent_id WHERE f.path != 'z.py' ORDER BY s.id",
                )
                .unwrap()
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?)))
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap();
            // The ids `put_file` gave back are the rows of their qnames.
            for (qname, id) in &returned {
                assert_eq!(symbols.iter().find(|s| s.0 == *id).map(|s| &s.1), Some(qname), "{qname} as {id}");
            }
            // Ids from the first of these files' symbols on, since the file of the update
            // defines one before.
            let first = symbols[0].0;
            let symbols = symbols.into_iter().map(|(id, q, k, f, p, l, rest)| (id - first, q, k, f, p, l, rest)).collect();
            let shadowed = tx
                .tx
                .prepare("SELECT s.qname, f.path FROM shadowed s JOIN files f ON f.id = s.file_id ORDER BY 1, 2")
                .unwrap()
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .unwrap()
                .collect::<rusqlite::Result<Vec<_>>>()
                .unwrap();
            (symbols, shadowed)
        };
        let (symbols, shadowed) = stored(true);
        assert_eq!((symbols.clone(), shadowed.clone()), stored(false));
        let owner = |q: &str| symbols.iter().find(|s| s.1 == q).and_then(|s| s.3.clone());
        assert_eq!(owner("m.f3").as_deref(), Some("b.py"), "{symbols:?}");
        assert_eq!(owner("m.A.h").as_deref(), Some("b.py"));
        assert_eq!(owner("m.A.f").as_deref(), Some("a.py"));
        assert_eq!(symbols.iter().filter(|s| s.1 == "m.g").count(), 1);
        assert_eq!(symbols.iter().find(|s| s.1 == "m.B.f").and_then(|s| s.4.clone()).as_deref(), Some("m.B"));
        assert!(shadowed.contains(&("m.f3".to_string(), "a.py".to_string())), "{shadowed:?}");
        let rest = |q: &str| symbols.iter().find(|s| s.1 == q).map(|s| s.6.clone()).unwrap_or_default();
        assert!(rest("m.C").contains("'A'"), "{}", rest("m.C"));
        assert!(rest("m.deco").contains("'functools.cache'"), "{}", rest("m.deco"));
        assert!(rest("m.value").contains("'type:int'"), "{}", rest("m.value"));
        assert!(rest("m.run").contains("cb"), "{}", rest("m.run"));
        assert_eq!(symbols.len(), 48);
    }

    /// A fresh build keeps no index of qnames up while it appends symbols whose qnames it has
    /// not written: `symbols_qname` is made before the first qname written twice, or with the
    /// other fact indexes, and a finished index always has it, unique.
    #[test]
    fn a_fresh_build_makes_the_qname_index_when_a_qname_comes_twice_or_at_the_end() {
        // The unique indexes of `symbols` (a `UNIQUE` column would show as an autoindex).
        let qname_index = |tx: &WriteTx| -> Vec<String> {
            let mut s = tx.tx.prepare("SELECT name FROM pragma_index_list('symbols') WHERE \"unique\" ORDER BY 1").unwrap();
            s.query_map([], |r| r.get(0)).unwrap().collect::<rusqlite::Result<_>>().unwrap()
        };
        let made = vec!["symbols_qname".to_string()];
        let record_at = |path: &str, module: &str, source: &str| {
            let facts = crate::extract::Extractor::new().extract(Lang::Python, module, source.as_bytes());
            FileRecord {
                path: path.into(),
                lang: Lang::Python,
                hash: 1,
                size: source.len() as u64,
                mtime_ns: 1,
                module: module.into(),
                facts,
            }
        };
        for twice in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let db = dir.path().join("index.db");
            let (mut store, _) = Store::open(&db, false).unwrap();
            let tx = store.begin().unwrap();
            tx.put_file(&record_at("a.py", "a", "def f(): pass\ndef g(): pass\n")).unwrap();
            assert_eq!(qname_index(&tx), Vec::<String>::new(), "kept up while distinct qnames are appended");
            // The same module, `a.f` again; or another module.
            tx.put_file(&record_at("b.py", if twice { "a" } else { "b" }, "def f(): pass\n")).unwrap();
            assert_eq!(qname_index(&tx), if twice { made.clone() } else { Vec::new() }, "twice: {twice}");
            tx.index_facts().unwrap();
            assert_eq!(qname_index(&tx), made);
            tx.commit("{}", &db).unwrap();
            store.finish().unwrap();
            let conn = rusqlite::Connection::open(&db).unwrap();
            let unique: bool = conn
                .query_row("SELECT \"unique\" FROM pragma_index_list('symbols') WHERE name = 'symbols_qname'", [], |r| r.get(0))
                .unwrap();
            assert!(unique);
            let dup = conn.execute(
                "INSERT INTO symbols(qname, name, kind, line, col, end_line, exported) VALUES ('a.f', 'f', 'function', 1, 0, 1, 0)",
                [],
            );
            assert!(dup.is_err(), "a second row of a qname must be refused");
        }
    }

    /// An external node whose qname a stored symbol has is that symbol, in a fresh build (the
    /// insert finds the name taken) and in an update (the name is looked up first).
    #[test]
    fn an_external_node_named_like_a_symbol_is_that_symbol() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("index.db");
        for mtime in [1, 2] {
            let (mut store, _) = Store::open(&db, false).unwrap();
            assert_eq!(store.is_fresh(), mtime == 1);
            let mut tx = store.begin().unwrap();
            let rec = record(SOURCE, mtime);
            let (file, ids) = tx.put_file(&rec).unwrap();
            let a = ids[rec.facts.symbols.iter().position(|s| s.qname == "m.A").unwrap()];
            let edge = |dst, line| call(file, ids[0], dst, line);
            tx.write_edges(file, &[edge(Dst::External("m.A".into()), 8), edge(Dst::External("os.getcwd".into()), 9)]).unwrap();
            let dst: Vec<(i64, String)> = tx
                .tx
                .prepare("SELECT e.dst_id, s.qname FROM edge_rows e JOIN symbols s ON s.id = e.dst_id WHERE e.file_id = ?1 ORDER BY e.id")
                .unwrap()
                .query_map([file], |r| Ok((r.get(0)?, r.get(1)?)))
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap();
            assert_eq!(dst[0], (a, "m.A".to_string()));
            assert_eq!(dst[1].1, "os.getcwd");
            let rows: i64 = tx.tx.query_row("SELECT count(*) FROM symbols WHERE qname = 'm.A'", [], |r| r.get(0)).unwrap();
            assert_eq!(rows, 1);
            tx.flush_edge_counts().unwrap();
            tx.commit("{}", &db).unwrap();
            store.finish().unwrap();
        }
    }
}
