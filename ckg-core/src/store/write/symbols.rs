//! A file's symbols written: appended with their ids in a fresh build, compared with the
//! stored rows in an update, and the qname a second file defines settled (`claim_symbol`,
//! `shadowed`).

use std::collections::HashMap;

use rusqlite::params;
use rusqlite::types::{ToSqlOutput, Value, ValueRef};

use super::rows::{Params, RowsInsert};
use super::{WriteTx, encode_lines};
use crate::error::{Error, Result};
use crate::facts::{ValueSource, encode_param_uses};

/// The columns of `symbols` after its qname, as `put_symbols` compares them.
const SYMBOL_COLUMNS: usize = 13;

/// A symbol's row as written: its parent's id, and its lists and declared type encoded.
struct SymbolRow<'f> {
    sym: &'f crate::facts::SymbolFact,
    kind: &'static str,
    parent: Option<i64>,
    bases: Option<String>,
    ty: Option<String>,
    decorators: Option<String>,
    param_uses: Option<String>,
    param_types: Option<String>,
}

impl<'f> SymbolRow<'f> {
    fn new(sym: &'f crate::facts::SymbolFact, parent: Option<i64>) -> SymbolRow<'f> {
        SymbolRow {
            sym,
            kind: sym.kind.as_str(),
            parent,
            bases: encode_lines(&sym.bases),
            ty: sym.ty.as_ref().map(ValueSource::encode),
            decorators: encode_lines(&sym.decorators),
            param_uses: encode_param_uses(&sym.qname, &sym.param_uses),
            param_types: encode_lines(&sym.param_types),
        }
    }

    /// The row's columns from `qname` to `param_types`, in the table's order.
    fn values<'a>(&'a self, file_id: &'a i64) -> [&'a dyn rusqlite::ToSql; 14] {
        let sym = self.sym;
        [
            &sym.qname,
            &sym.name,
            &self.kind,
            file_id,
            &self.parent,
            &sym.line,
            &sym.col,
            &sym.end_line,
            &sym.exported,
            &self.bases,
            &self.ty,
            &self.decorators,
            &self.param_uses,
            &self.param_types,
        ]
    }

    /// Binds the row with its `id` from parameter `first` of a [`SYMBOL_APPEND`] statement,
    /// each column with its own type.
    fn bind(&self, p: &mut Params<'_, '_>, first: usize, id: i64, file_id: i64) -> rusqlite::Result<()> {
        let sym = self.sym;
        p.fresh_int(first, id)?;
        p.text(first + 1, &sym.qname)?;
        p.text(first + 2, &sym.name)?;
        p.text(first + 3, self.kind)?;
        p.int(first + 4, file_id)?;
        p.opt_int(first + 5, self.parent)?;
        p.fresh_int(first + 6, sym.line)?;
        p.fresh_int(first + 7, sym.col)?;
        p.fresh_int(first + 8, sym.end_line)?;
        p.int(first + 9, sym.exported)?;
        p.opt_text(first + 10, self.bases.as_deref())?;
        p.opt_text(first + 11, self.ty.as_deref())?;
        p.opt_text(first + 12, self.decorators.as_deref())?;
        p.opt_text(first + 13, self.param_uses.as_deref())?;
        p.opt_text(first + 14, self.param_types.as_deref())?;
        Ok(())
    }
}

/// A fresh build's symbol rows, with their ids ([`SymbolRow::bind`]).
static SYMBOL_APPEND: std::sync::LazyLock<RowsInsert> = std::sync::LazyLock::new(|| {
    RowsInsert::new(
        "INSERT INTO symbols(id, qname, name, kind, file_id, parent_id, line, col, end_line, exported, bases, ty, decorators, params,
           param_types)",
        15,
        &[16, 4, 1],
    )
});

/// A symbol row rewritten whole: `?1` its id, then the columns after its qname.
const SYMBOL_UPDATE: &str = "UPDATE symbols SET name = ?2, kind = ?3, file_id = ?4, parent_id = ?5, line = ?6, col = ?7, end_line = ?8,
   exported = ?9, bases = ?10, ty = ?11, decorators = ?12, params = ?13, param_types = ?14
 WHERE id = ?1";

/// [`SYMBOL_UPDATE`] of a row of the same file and name: no indexed column is set, so SQLite
/// leaves the indexes alone.
const SYMBOL_UPDATE_SAME_NAME: &str = "UPDATE symbols SET kind = ?3, parent_id = ?5, line = ?6, col = ?7, end_line = ?8,
   exported = ?9, bases = ?10, ty = ?11, decorators = ?12, params = ?13, param_types = ?14
 WHERE id = ?1";

/// Whether a stored value is the one a parameter binds.
fn same_value(stored: &Value, param: &dyn rusqlite::ToSql) -> bool {
    match param.to_sql() {
        Ok(ToSqlOutput::Borrowed(v)) => ValueRef::from(stored) == v,
        Ok(ToSqlOutput::Owned(v)) => *stored == v,
        _ => false,
    }
}

impl WriteTx<'_> {
    /// Stores a file's symbols and returns their ids, in order. Ids are kept for the qnames
    /// the file defined before (upserted by qname); its symbols that are gone are deleted. In
    /// an update, a symbol as stored is not written again, and one whose name is the same is
    /// updated without touching the indexes on qname, name and file.
    pub(super) fn put_symbols(&self, file_id: i64, path: &str, facts: &crate::facts::FileFacts) -> Result<Vec<i64>> {
        if self.fresh {
            return self.append_symbols(file_id, path, facts);
        }
        let e = |e| self.err(e);
        let mut s = self
            .tx
            .prepare_cached(
                "SELECT qname, id, name, kind, file_id, parent_id, line, col, end_line, exported, bases, ty, decorators, params,
                   param_types
                 FROM symbols WHERE file_id = ?1",
            )
            .map_err(e)?;
        let rows = s
            .query_map([file_id], |r| {
                Ok((r.get(0)?, (r.get(1)?, (2..2 + SYMBOL_COLUMNS).map(|k| r.get(k)).collect::<rusqlite::Result<_>>()?)))
            })
            .map_err(e)?;
        let mut old: HashMap<String, (i64, Vec<Value>)> = rows.collect::<rusqlite::Result<_>>().map_err(e)?;
        let mut ids: Vec<i64> = Vec::with_capacity(facts.symbols.len());
        for sym in &facts.symbols {
            let encoded = SymbolRow::new(sym, sym.parent.map(|p| ids[p as usize]));
            let row = encoded.values(&file_id);
            // A qname the file defined before: rewritten only where it differs. (A second
            // definition of it in the file takes the conflict's path below, as in a fresh
            // build.)
            if let Some((id, was)) = old.remove(&sym.qname) {
                if !was.iter().zip(&row[1..]).all(|(a, b)| same_value(a, *b)) {
                    let sql = if same_value(&was[0], row[1]) { SYMBOL_UPDATE_SAME_NAME } else { SYMBOL_UPDATE };
                    let values = std::iter::once(&id as &dyn rusqlite::ToSql).chain(row[1..].iter().copied());
                    self.tx.prepare_cached(sql).and_then(|mut s| s.execute(rusqlite::params_from_iter(values))).map_err(e)?;
                }
                ids.push(id);
                continue;
            }
            ids.push(self.insert_symbol(file_id, path, &row)?);
        }
        let kept: std::collections::HashSet<i64> = ids.iter().copied().collect();
        let mut del = self.tx.prepare_cached("DELETE FROM symbols WHERE id = ?1").map_err(e)?;
        for (_, (id, _)) in old {
            if !kept.contains(&id) {
                del.execute([id]).map_err(e)?;
            }
        }
        Ok(ids)
    }

    /// Inserts one symbol row (`row`: [`SymbolRow::values`]) and returns its id: a new row,
    /// or, when another row has its qname, that row's as [`WriteTx::claim_symbol`] decides.
    pub(super) fn insert_symbol(&self, file_id: i64, path: &str, row: &[&dyn rusqlite::ToSql]) -> Result<i64> {
        let e = |e| self.err(e);
        self.qname_index()?;
        let mut insert = self
            .tx
            .prepare_cached(
                "INSERT INTO symbols(qname, name, kind, file_id, parent_id, line, col, end_line, exported, bases, ty, decorators, params,
                   param_types)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
                 ON CONFLICT(qname) DO NOTHING",
            )
            .map_err(e)?;
        // Without `RETURNING` (its rows cost more than the insert): one row changed is an
        // insert, none a qname another file holds.
        match insert.execute(row).map_err(e)? {
            1 => Ok(self.tx.last_insert_rowid()),
            _ => self.claim_symbol(file_id, path, row),
        }
    }

    /// [`WriteTx::put_symbols`] in a fresh build, which stores no symbol before: ids are
    /// given in order, as SQLite would (one more than the last), and the rows written many
    /// to a statement ([`SYMBOL_APPEND`]; one statement a symbol was ~9k of a symbol's ~14k
    /// instructions, pytest). A qname whose hash is among those written may be taken: the
    /// rows before it are written, and it takes the one-row path that settles who owns it.
    pub(super) fn append_symbols(&self, file_id: i64, path: &str, facts: &crate::facts::FileFacts) -> Result<Vec<i64>> {
        let e = |e| self.err(e);
        let mut appended = self.appended.borrow_mut();
        let mut next_id = match appended.next_id {
            Some(id) => id,
            None => self.tx.query_row("SELECT coalesce(max(id), 0) + 1 FROM symbols", [], |r| r.get(0)).map_err(e)?,
        };
        let mut ids: Vec<i64> = Vec::with_capacity(facts.symbols.len());
        let mut pending: Vec<SymbolRow> = Vec::with_capacity(facts.symbols.len());
        let write = |pending: &mut Vec<SymbolRow>, next_id: i64| -> Result<()> {
            let first_id = next_id - pending.len() as i64;
            self.insert_rows(&SYMBOL_APPEND, pending, |p, param, at, row| row.bind(p, param, first_id + at as i64, file_id))?;
            if !pending.is_empty() && self.tx.last_insert_rowid() != next_id - 1 {
                return Err(Error::Invalid(format!("symbols of {path} written with ids other than {first_id}..{next_id}")));
            }
            pending.clear();
            Ok(())
        };
        for sym in &facts.symbols {
            let encoded = SymbolRow::new(sym, sym.parent.map(|p| ids[p as usize]));
            if appended.qnames.insert(xxhash_rust::xxh3::xxh3_64(sym.qname.as_bytes())) {
                ids.push(next_id);
                next_id += 1;
                pending.push(encoded);
                continue;
            }
            write(&mut pending, next_id)?;
            let id = self.insert_symbol(file_id, path, &encoded.values(&file_id))?;
            next_id = next_id.max(id + 1);
            ids.push(id);
        }
        write(&mut pending, next_id)?;
        appended.next_id = Some(next_id);
        Ok(ids)
    }

    /// A qname this file defines is taken (by its own previous version, or by another file).
    /// The file whose path sorts last owns it: the row is updated to this definition when
    /// that is this file, else this file's claim waits in `shadowed`. Returns the row's id.
    pub(super) fn claim_symbol(&self, file_id: i64, path: &str, row: &[&dyn rusqlite::ToSql]) -> Result<i64> {
        let e = |e| self.err(e);
        let qname: &dyn rusqlite::ToSql = row[0];
        // An external node of that name (no file) is replaced by the definition.
        let (id, owner, owner_path): (i64, Option<i64>, Option<String>) = self
            .tx
            .prepare_cached("SELECT s.id, s.file_id, f.path FROM symbols s LEFT JOIN files f ON f.id = s.file_id WHERE s.qname = ?1")
            .and_then(|mut s| s.query_row([qname], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))))
            .map_err(e)?;
        if let (Some(owner), Some(owner_path)) = (owner, owner_path)
            && owner != file_id
        {
            let kept = path < owner_path.as_str();
            self.qname_owners.borrow_mut().insert(id, if kept { owner } else { file_id });
            let mut shadow = self.tx.prepare_cached("INSERT OR IGNORE INTO shadowed(qname, file_id) VALUES (?1, ?2)").map_err(e)?;
            if kept {
                shadow.execute(params![qname, file_id]).map_err(e)?;
                return Ok(id);
            }
            shadow.execute(params![qname, owner]).map_err(e)?;
        }
        let values = std::iter::once(&id as &dyn rusqlite::ToSql).chain(row[1..].iter().copied());
        self.tx.prepare_cached(SYMBOL_UPDATE).and_then(|mut s| s.execute(rusqlite::params_from_iter(values))).map_err(e)?;
        Ok(id)
    }

    /// In a fresh build, the fact tables' secondary indexes, once their rows are stored (see
    /// `schema::FACT_INDEXES`); an update has them already.
    pub fn index_facts(&self) -> Result<()> {
        if self.fresh {
            self.tx.execute_batch(crate::store::schema::FACT_INDEXES).map_err(|e| Error::sqlite(self.path, e))?;
            self.qname_indexed.set(true);
        }
        Ok(())
    }

    /// Makes `symbols_qname` now if this fresh build has not yet: before a statement that looks
    /// a qname up or settles who owns it (`ON CONFLICT(qname)`). The table holds each qname
    /// once until then: a fresh build appends only symbols whose qname's hash it has not seen.
    pub(in crate::store) fn qname_index(&self) -> Result<()> {
        if !self.qname_indexed.get() {
            self.tx.execute_batch(crate::store::schema::QNAME_INDEX).map_err(|e| Error::sqlite(self.path, e))?;
            self.qname_indexed.set(true);
        }
        Ok(())
    }

    /// Whether two files defined one qname in this run (see `claim_symbol`).
    pub fn had_qname_conflicts(&self) -> bool {
        !self.qname_owners.borrow().is_empty()
    }

    /// The qnames two files defined in this run: the id of each one's symbol, and the file
    /// that owns it now (see `claim_symbol`).
    pub fn qname_owners(&self) -> crate::resolve::Map<i64, i64> {
        self.qname_owners.borrow().clone()
    }

    /// Files with a claim on a qname that no file owns any more: they are stored again, to
    /// take it over.
    pub fn files_reclaiming(&self) -> Result<Vec<String>> {
        let e = |e| self.err(e);
        let mut s = self
            .tx
            .prepare_cached(
                "SELECT DISTINCT f.path FROM shadowed sh JOIN files f ON f.id = sh.file_id
                 WHERE NOT EXISTS (SELECT 1 FROM symbols s WHERE s.qname = sh.qname) ORDER BY f.path",
            )
            .map_err(e)?;
        let paths = s.query_map([], |r| r.get(0)).map_err(e)?.collect::<rusqlite::Result<Vec<String>>>().map_err(e)?;
        Ok(paths)
    }
}
