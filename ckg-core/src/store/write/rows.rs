//! Rows written many to a statement ([`RowsInsert`], [`WriteTx::insert_rows`]), and the
//! parameters of those statements bound only where they change ([`Params`]).

use super::WriteTx;
use crate::error::Result;

/// An `INSERT` of many rows, as statements of a few sizes, largest first: rows are written
/// by as few statements as those sizes allow (SQLite runs one statement of many rows faster
/// than as many statements of one).
pub(super) struct RowsInsert {
    columns: usize,
    /// The statements' rows, and their text.
    statements: Vec<(usize, String)>,
}

impl RowsInsert {
    /// `head`: `INSERT INTO table(columns)`; `sizes`: rows per statement, descending, the
    /// last 1.
    pub(super) fn new(head: &str, columns: usize, sizes: &[usize]) -> RowsInsert {
        debug_assert!(sizes.is_sorted_by(|a, b| a > b) && sizes.last() == Some(&1), "sizes descend to 1");
        let row = |r: usize| format!("({})", (1..=columns).map(|c| format!("?{}", r * columns + c)).collect::<Vec<_>>().join(", "));
        let statements = sizes.iter().map(|&n| (n, format!("{head} VALUES {}", (0..n).map(row).collect::<Vec<_>>().join(", ")))).collect();
        RowsInsert { columns, statements }
    }

    /// The statement of one row.
    pub(super) fn one(&self) -> &str {
        &self.statements.last().expect("a statement of one row").1
    }
}

impl WriteTx<'_> {
    /// Writes `rows` by `insert`'s statements; `bind(parameters, first parameter, position in
    /// rows, row)` binds one row.
    pub(super) fn insert_rows<R>(
        &self,
        insert: &RowsInsert,
        rows: &[R],
        mut bind: impl FnMut(&mut Params<'_, '_>, usize, usize, &R) -> rusqlite::Result<()>,
    ) -> Result<()> {
        let e = |e| self.err(e);
        let mut done = 0;
        for (size, sql) in &insert.statements {
            let chunks = rows[done..].chunks_exact(*size);
            if chunks.len() == 0 {
                continue;
            }
            let mut s = self.tx.prepare_cached(sql).map_err(e)?;
            // What the parameters hold is only of use to a statement run again.
            let held = if chunks.len() > 1 { vec![Held::Unknown; size * insert.columns + 1] } else { Vec::new() };
            let mut params = Params { statement: &mut s, held };
            for chunk in chunks {
                for (at, row) in chunk.iter().enumerate() {
                    bind(&mut params, at * insert.columns + 1, done + at, row).map_err(e)?;
                }
                params.statement.raw_execute().map_err(e)?;
                done += size;
            }
        }
        Ok(())
    }
}

/// The parameters of a statement of [`WriteTx::insert_rows`], bound row after row. A statement
/// run again keeps the values its parameters were bound to (`raw_execute` resets it, which
/// leaves them bound), so an integer or a NULL that a parameter already holds from the rows
/// before is not bound again: the file of every edge of a file, most edges' `dynamic`,
/// `remote_src` and unnamed target. (Binding was ~1.4k instructions an edge, 12 parameters
/// at ~107 each.)
pub(super) struct Params<'s, 'c> {
    statement: &'s mut rusqlite::Statement<'c>,
    /// What each parameter holds, by index; empty for a statement run once.
    held: Vec<Held>,
}

/// What a parameter of [`Params`] was bound to, as far as it is compared.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Held {
    /// Not bound in this run of the statements, or bound to a text.
    Unknown,
    Null,
    Int(i64),
}

impl<'s, 'c> Params<'s, 'c> {
    /// The parameters of a statement run once (each value bound).
    pub(super) fn once(statement: &'s mut rusqlite::Statement<'c>) -> Params<'s, 'c> {
        Params { statement, held: Vec::new() }
    }

    /// Binds an integer that may repeat from row to row.
    #[inline]
    pub(super) fn int(&mut self, index: usize, value: impl Into<i64>) -> rusqlite::Result<()> {
        let value = value.into();
        self.bind_held(index, Held::Int(value), value)
    }

    /// Binds an integer that seldom repeats (an id, a line): not compared.
    #[inline]
    pub(super) fn fresh_int(&mut self, index: usize, value: impl Into<i64>) -> rusqlite::Result<()> {
        self.bind_unheld(index, value.into())
    }

    /// Binds an integer or NULL.
    #[inline]
    pub(super) fn opt_int(&mut self, index: usize, value: Option<i64>) -> rusqlite::Result<()> {
        self.bind_held(index, value.map_or(Held::Null, Held::Int), value)
    }

    /// Binds a text (each time: texts are not compared).
    pub(super) fn text(&mut self, index: usize, value: &str) -> rusqlite::Result<()> {
        self.bind_unheld(index, value)
    }

    /// Binds a text or NULL.
    pub(super) fn opt_text(&mut self, index: usize, value: Option<&str>) -> rusqlite::Result<()> {
        match value {
            Some(text) => self.text(index, text),
            None => self.bind_held(index, Held::Null, rusqlite::types::Null),
        }
    }

    /// Binds a value that is not compared: what the parameter holds is no longer known.
    #[inline]
    fn bind_unheld(&mut self, index: usize, value: impl rusqlite::ToSql) -> rusqlite::Result<()> {
        if let Some(held) = self.held.get_mut(index) {
            *held = Held::Unknown;
        }
        self.statement.raw_bind_parameter(index, value)
    }

    /// Binds `value` (which is `held`) unless the parameter holds it already.
    #[inline]
    fn bind_held(&mut self, index: usize, held: Held, value: impl rusqlite::ToSql) -> rusqlite::Result<()> {
        match self.held.get_mut(index) {
            Some(was) if *was == held => Ok(()),
            Some(was) => {
                self.statement.raw_bind_parameter(index, value)?;
                *was = held;
                Ok(())
            }
            None => self.statement.raw_bind_parameter(index, value),
        }
    }
}
