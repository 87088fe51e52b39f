//! Edges as one run writes them: a fresh build appends each file's edges to its id range; an
//! update compares each re-resolved file's edges with the stored ones, position by position,
//! and writes only what differs — an edge that only moved (its site's line or column) is one
//! update of the table's row, which no secondary index holds, and an unchanged edge is not
//! written at all. External nodes are interned, and those that lost an edge in the run are
//! dropped when no edge points to them any more.

use std::borrow::Cow;

use rusqlite::{OptionalExtension, params};

use super::rows::{Params, RowsInsert};
use super::{Dst, EdgeRow, WriteTx, last_name};
use crate::error::{Error, Result};
use crate::store::schema::{EDGE_KINDS, EVIDENCE, code, edge_ids};

/// An edge as the table holds it (kind and evidence as codes, the target interned).
#[derive(Debug, PartialEq, Eq)]
struct Stored<'a> {
    kind: i64,
    src: i64,
    dst_id: Option<i64>,
    dst_name: Option<Cow<'a, str>>,
    line: u32,
    col: u32,
    evidence: i64,
    dynamic: u8,
    remote_src: bool,
}

impl Stored<'_> {
    /// The same edge but for its site's line and column.
    fn same_but_site(&self, other: &Stored) -> bool {
        (self.kind, self.src, self.dst_id, &self.dst_name, self.evidence, self.dynamic, self.remote_src)
            == (other.kind, other.src, other.dst_id, &other.dst_name, other.evidence, other.dynamic, other.remote_src)
    }
}

impl WriteTx<'_> {
    /// Makes the stored edges of `file` be `edges`, which were just resolved (files in
    /// ascending order): the edge at position `i` has the id `lo + i` (in a fresh build, which
    /// stores none before, each file's edges are appended to the table's B-tree in order,
    /// which keeps its pages full). In an update, what the file had is replaced; a file
    /// without edges loses those it had.
    pub fn write_edges(&mut self, file: i64, edges: &[EdgeRow]) -> Result<()> {
        let (lo, hi) = edge_ids(file);
        if edges.len() as i64 > hi - lo + 1 {
            return Err(too_many(file, hi - lo + 1));
        }
        if let Some(other) = edges.iter().find(|e| e.file != file) {
            return Err(Error::Invalid(format!("an edge of file {} written as one of file {file}", other.file)));
        }
        let old = if self.fresh { Vec::new() } else { self.stored_edges(lo, hi)? };
        // Collected from `Result`s, the list would grow from empty.
        let mut rows: Vec<Stored> = Vec::with_capacity(edges.len());
        for edge in edges {
            rows.push(self.stored(edge)?);
        }
        if old.is_empty() {
            return self.append_edges(lo, file, &rows);
        }
        // One statement for the file's new rows (a cached statement looked up per edge cost
        // a fifth of the insert).
        let mut insert = self.tx.prepare_cached(EDGE_INSERT.one()).map_err(|e| self.err(e))?;
        for (i, row) in rows.iter().enumerate() {
            let id = lo + i as i64;
            match old.binary_search_by_key(&id, |(id, _)| *id).ok().map(|k| &old[k].1) {
                Some(was) if was == row => {}
                Some(was) if was.same_but_site(row) => {
                    self.tx
                        .prepare_cached("UPDATE edge_rows SET line = ?2, col = ?3 WHERE id = ?1")
                        .and_then(|mut s| s.execute(params![id, row.line, row.col]))
                        .map_err(|e| self.err(e))?;
                }
                Some(was) => {
                    // Another edge at this position: its row replaced, index entries and all.
                    self.count_out(was);
                    let mut replace = self.tx.prepare_cached(EDGE_REPLACE.one()).map_err(|e| self.err(e))?;
                    self.put_edge(&mut replace, id, file, row)?;
                }
                None => self.put_edge(&mut insert, id, file, row)?,
            }
        }
        let first_gone = lo + edges.len() as i64;
        let gone: Vec<&Stored> = old.iter().filter(|(id, _)| *id >= first_gone).map(|(_, s)| s).collect();
        if !gone.is_empty() {
            for was in gone {
                self.count_out(was);
            }
            self.tx
                .prepare_cached("DELETE FROM edge_rows WHERE id BETWEEN ?1 AND ?2")
                .and_then(|mut s| s.execute([first_gone, hi]))
                .map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    /// The stored edges with ids in `lo..=hi`, ascending.
    fn stored_edges(&self, lo: i64, hi: i64) -> Result<Vec<(i64, Stored<'static>)>> {
        let mut s = self
            .tx
            .prepare_cached(
                "SELECT id, kind, src_id, dst_id, dst_name, line, col, evidence, dynamic, remote_src FROM edge_rows
                 WHERE id BETWEEN ?1 AND ?2 ORDER BY id",
            )
            .map_err(|e| self.err(e))?;
        let rows = s
            .query_map([lo, hi], |r| {
                Ok((
                    r.get(0)?,
                    Stored {
                        kind: r.get(1)?,
                        src: r.get(2)?,
                        dst_id: r.get(3)?,
                        dst_name: r.get::<_, Option<String>>(4)?.map(Cow::Owned),
                        line: r.get(5)?,
                        col: r.get(6)?,
                        evidence: r.get(7)?,
                        dynamic: r.get(8)?,
                        remote_src: r.get(9)?,
                    },
                ))
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>().map_err(|e| self.err(e))
    }

    /// An edge as it is stored (its external target interned).
    fn stored<'e>(&mut self, edge: &'e EdgeRow) -> Result<Stored<'e>> {
        let (dst_id, dst_name) = match &edge.dst {
            Dst::Symbol(id) => (Some(*id), None),
            Dst::External(q) => (Some(self.external_id(q)?), None),
            Dst::Unresolved(name) => (None, Some(Cow::Borrowed(name.as_str()))),
        };
        Ok(Stored {
            kind: code(&EDGE_KINDS, edge.kind),
            src: edge.src,
            dst_id,
            dst_name,
            line: edge.line,
            col: edge.col,
            evidence: code(&EVIDENCE, edge.evidence),
            dynamic: edge.dynamic,
            remote_src: edge.remote_src,
        })
    }

    /// Writes the edges of a file that has none stored (every file of a fresh build), ids from
    /// `lo` up, many rows to a statement ([`EDGE_INSERT`]).
    fn append_edges(&self, lo: i64, file: i64, rows: &[Stored]) -> Result<()> {
        for row in rows {
            self.count_in(row);
        }
        self.insert_rows(&EDGE_INSERT, rows, |p, first, at, row| bind_edge(p, first, lo + at as i64, file, row))
    }

    /// Writes an edge at `id` (counted in) with `statement`: a new row ([`EDGE_INSERT`]), or
    /// the row in place of the one there ([`EDGE_REPLACE`]).
    fn put_edge(&self, statement: &mut rusqlite::Statement<'_>, id: i64, file: i64, row: &Stored) -> Result<()> {
        self.count_in(row);
        bind_edge(&mut Params::once(statement), 1, id, file, row).map_err(|e| self.err(e))?;
        statement.raw_execute().map_err(|e| self.err(e))?;
        Ok(())
    }

    /// An edge written: counted in; its target interned before.
    fn count_in(&self, row: &Stored) {
        *self.edge_delta.borrow_mut().entry((row.kind, row.evidence)).or_default() += 1;
    }

    /// An edge deleted or rewritten: counted out, and its target, if an external node, may
    /// have no edge left ([`WriteTx::collect_garbage`]).
    fn count_out(&self, row: &Stored<'_>) {
        *self.edge_delta.borrow_mut().entry((row.kind, row.evidence)).or_default() -= 1;
        if let Some(dst) = row.dst_id {
            self.lost_edge.borrow_mut().push(dst);
        }
    }

    /// Deletes the edges whose site is in `file_id` (one range of ids), and counts them out.
    pub(super) fn delete_edge_range(&self, file_id: i64) -> Result<()> {
        let (lo, hi) = edge_ids(file_id);
        for (_, was) in self.stored_edges(lo, hi)? {
            self.count_out(&was);
        }
        self.tx
            .prepare_cached("DELETE FROM edge_rows WHERE id BETWEEN ?1 AND ?2")
            .and_then(|mut s| s.execute([lo, hi]))
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Interns an external node (package, member or builtin) and returns its id: the node of
    /// that qname when there is one (looked up first, so that an existing node's row and
    /// index entries are not written again), else a new one.
    fn external_id(&mut self, qname: &str) -> Result<i64> {
        if let Some(&id) = self.externals.get(qname) {
            return Ok(id);
        }
        self.qname_index()?;
        let by_qname = || {
            self.tx
                .prepare_cached("SELECT id FROM symbols WHERE qname = ?1")
                .and_then(|mut s| s.query_row([qname], |r| r.get(0)).optional())
                .map_err(|e| self.err(e))
        };
        // A fresh build interns most names once, new: inserted first, looked up only when a
        // symbol has the qname already. (The insert's own id is read back as the last row
        // inserted: an upsert `RETURNING id` cost ~28k instructions a name, 0.8 % of pytest's.)
        let existing: Option<i64> = if self.fresh { None } else { by_qname()? };
        let id = match existing {
            Some(id) => id,
            None => {
                let name = qname.rsplit('.').next().unwrap_or(qname);
                let inserted = self
                    .tx
                    .prepare_cached(
                        "INSERT INTO symbols(qname, name, kind, file_id, parent_id, line, col, end_line, exported)
                         VALUES (?1, ?2, 'external', NULL, NULL, 0, 0, 0, 1)
                         ON CONFLICT(qname) DO NOTHING",
                    )
                    .and_then(|mut s| s.execute(params![qname, name]))
                    .map_err(|e| self.err(e))?;
                match inserted {
                    1 => self.tx.last_insert_rowid(),
                    _ => by_qname()?.ok_or_else(|| Error::Invalid(format!("external node {qname:?} neither inserted nor found")))?,
                }
            }
        };
        self.externals.insert(qname.to_string(), id);
        Ok(id)
    }

    /// Adds the edges written and deleted so far to `edge_counts`.
    pub(in crate::store) fn flush_edge_counts(&self) -> Result<()> {
        let mut delta: Vec<((i64, i64), i64)> = self.edge_delta.borrow_mut().drain().filter(|(_, n)| *n != 0).collect();
        delta.sort_unstable();
        let mut s = self
            .tx
            .prepare_cached(
                "INSERT INTO edge_counts(kind, evidence, n) VALUES (?1, ?2, ?3)
                 ON CONFLICT(kind, evidence) DO UPDATE SET n = n + excluded.n",
            )
            .map_err(|e| self.err(e))?;
        for ((kind, evidence), n) in delta {
            s.execute(params![kind, evidence, n]).map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    /// Drops the external nodes that lost an edge in this run and have none left. (Every
    /// external node is interned for an edge, so only those can have none.)
    pub fn collect_garbage(&mut self) -> Result<()> {
        let mut lost = std::mem::take(&mut *self.lost_edge.borrow_mut());
        lost.sort_unstable();
        lost.dedup();
        let mut s = self
            .tx
            .prepare_cached(
                "DELETE FROM symbols WHERE id = ?1 AND kind = 'external' AND file_id IS NULL
                 AND NOT EXISTS (SELECT 1 FROM edge_rows WHERE dst_id = ?1)",
            )
            .map_err(|e| self.err(e))?;
        for id in lost {
            s.execute([id]).map_err(|e| self.err(e))?;
        }
        self.externals.clear();
        Ok(())
    }
}

fn too_many(file: i64, max: i64) -> Error {
    Error::Invalid(format!("more than {max} edges in one file (file id {file})"))
}

/// The columns of an edge row a statement writes, in the order [`bind_edge`] binds them.
const EDGE_COLUMNS: usize = 12;

/// `verb` (`INSERT` or `INSERT OR REPLACE`) `INTO edge_rows` and its columns.
fn edge_insert_head(verb: &str) -> String {
    format!("{verb} INTO edge_rows(id, kind, src_id, dst_id, dst_name, file_id, line, col, evidence, dynamic, dst_last, remote_src)")
}

/// New edge rows: in a fresh build 32 rows a statement, then 8, then one by one (when the
/// rest of a file's edges after the statements of 32 went one by one, they were 13 % of
/// django's); in an update one by one ([`RowsInsert::one`]).
static EDGE_INSERT: std::sync::LazyLock<RowsInsert> =
    std::sync::LazyLock::new(|| RowsInsert::new(&edge_insert_head("INSERT"), EDGE_COLUMNS, &[32, 8, 1]));
/// An edge row in place of the one at its id.
static EDGE_REPLACE: std::sync::LazyLock<RowsInsert> =
    std::sync::LazyLock::new(|| RowsInsert::new(&edge_insert_head("INSERT OR REPLACE"), EDGE_COLUMNS, &[1]));

/// Binds the row of the edge at `id` from parameter `first` of an [`EDGE_INSERT`] or [`EDGE_REPLACE`] statement.
/// Each column bound with its own type (a list of `&dyn ToSql` cost a dynamic call per value:
/// binding was ~2 % of django's full index).
fn bind_edge(p: &mut Params<'_, '_>, first: usize, id: i64, file: i64, row: &Stored) -> rusqlite::Result<()> {
    p.fresh_int(first, id)?;
    p.int(first + 1, row.kind)?;
    p.int(first + 2, row.src)?;
    p.opt_int(first + 3, row.dst_id)?;
    p.opt_text(first + 4, row.dst_name.as_deref())?;
    p.int(first + 5, file)?;
    p.fresh_int(first + 6, row.line)?;
    p.fresh_int(first + 7, row.col)?;
    p.int(first + 8, row.evidence)?;
    p.int(first + 9, row.dynamic)?;
    p.opt_text(first + 10, row.dst_name.as_deref().map(last_name))?;
    p.int(first + 11, row.remote_src)?;
    const { assert!(EDGE_COLUMNS == 12, "bind_edge binds every column of `edge_insert_head`") };
    Ok(())
}
