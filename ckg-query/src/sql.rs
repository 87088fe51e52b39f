//! `sql`: read-only SQL over the index for questions the typed queries do not answer.
//!
//! Safety: the connection is opened read-only and set `query_only`; attaching other
//! databases is disabled (`SQLITE_LIMIT_ATTACHED = 0`); a progress handler stops a statement
//! after the time limit; the number of rows returned is capped.

use std::time::{Duration, Instant};

use rusqlite::limits::Limit;
use rusqlite::types::ValueRef;
use serde::Serialize;

use crate::{Error, Index, Result};

#[derive(Clone, Debug, Serialize)]
pub struct SqlAnswer {
    pub generation: i64,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<serde_json::Value>>,
    /// True when more rows existed than the limit allowed.
    pub truncated: bool,
}

impl Index {
    /// Runs one read-only statement with a row limit and a time limit.
    pub fn sql(&self, query: &str, max_rows: usize, timeout: Duration) -> Result<SqlAnswer> {
        let conn = &self.conn;
        conn.pragma_update(None, "query_only", true).map_err(|e| self.sql_err(e))?;
        let _ = conn.set_limit(Limit::SQLITE_LIMIT_ATTACHED, 0);
        let start = Instant::now();
        conn.progress_handler(10_000, Some(move || start.elapsed() > timeout));
        let result = self.run_sql(query, max_rows);
        conn.progress_handler(0, None::<fn() -> bool>);
        result.map_err(|e| match e {
            Error::Invalid(msg) if msg.contains("interrupted") => {
                Error::Invalid(format!("query stopped after the time limit of {timeout:?}"))
            }
            e => e,
        })
    }

    fn sql_err(&self, e: rusqlite::Error) -> Error {
        Error::Invalid(format!("sql: {e}"))
    }

    fn run_sql(&self, query: &str, max_rows: usize) -> Result<SqlAnswer> {
        let mut stmt = self.conn.prepare(query).map_err(|e| self.sql_err(e))?;
        if !stmt.readonly() {
            return Err(Error::Invalid("sql: only read-only statements are allowed".into()));
        }
        let columns: Vec<String> = stmt.column_names().into_iter().map(String::from).collect();
        let mut rows = stmt.query([]).map_err(|e| self.sql_err(e))?;
        let mut out = Vec::new();
        let mut truncated = false;
        while let Some(r) = rows.next().map_err(|e| self.sql_err(e))? {
            if out.len() == max_rows {
                truncated = true;
                break;
            }
            let mut row = Vec::with_capacity(columns.len());
            for i in 0..columns.len() {
                row.push(match r.get_ref(i).map_err(|e| self.sql_err(e))? {
                    ValueRef::Null => serde_json::Value::Null,
                    ValueRef::Integer(n) => n.into(),
                    ValueRef::Real(f) => f.into(),
                    ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned().into(),
                    ValueRef::Blob(b) => format!("<{} bytes>", b.len()).into(),
                });
            }
            out.push(row);
        }
        Ok(SqlAnswer { generation: self.generation, columns, rows: out, truncated })
    }
}
