//! `sql`: read-only SQL over the index for questions the typed queries do not answer.
//!
//! Safety: the connection is opened read-only and set `query_only`; attaching other
//! databases is disabled (`SQLITE_LIMIT_ATTACHED = 0`); only one statement that reads
//! (`SELECT`, `WITH`, `VALUES`, `EXPLAIN`) is accepted, so transaction control and pragmas
//! cannot leave a pooled connection holding a lock or with its guard turned off; the
//! connection's progress handler stops a statement after the time limit; the number of
//! rows returned is capped.

use std::time::Duration;

use rusqlite::limits::Limit;
use rusqlite::types::ValueRef;
use schemars::JsonSchema;
use serde::Serialize;

use crate::{Error, Index, Result};

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct SqlAnswer {
    pub generation: i64,
    pub columns: Vec<String>,
    /// Each row's values: numbers, strings, null; blobs as `"<N bytes>"`.
    pub rows: Vec<Vec<serde_json::Value>>,
    /// True when more rows existed than the limit allowed.
    pub truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
}

/// The first keyword of a statement, after comments and whitespace.
fn first_keyword(sql: &str) -> String {
    let mut rest = sql;
    loop {
        rest = rest.trim_start();
        if let Some(r) = rest.strip_prefix("--") {
            rest = r.split_once('\n').map_or("", |(_, after)| after);
        } else if let Some(r) = rest.strip_prefix("/*") {
            rest = r.split_once("*/").map_or("", |(_, after)| after);
        } else {
            break;
        }
    }
    rest.chars().take_while(|c| c.is_ascii_alphabetic()).collect::<String>().to_ascii_uppercase()
}

/// Checks that `sql` is one statement that only reads.
pub fn check_read_only(conn: &rusqlite::Connection, sql: &str) -> Result<()> {
    let keyword = first_keyword(sql);
    if !matches!(keyword.as_str(), "SELECT" | "WITH" | "VALUES" | "EXPLAIN") {
        return Err(Error::Invalid(format!("sql: only SELECT, WITH, VALUES and EXPLAIN statements are allowed, not {keyword:?}")));
    }
    let stmt = conn.prepare(sql).map_err(|e| Error::Invalid(format!("sql: {e}")))?;
    if !stmt.readonly() {
        return Err(Error::Invalid("sql: only read-only statements are allowed".into()));
    }
    Ok(())
}

impl Index {
    /// Runs one read-only statement with a row limit and a time limit (the tighter of
    /// `timeout` and the snapshot's own limit).
    pub fn sql(&self, query: &str, max_rows: usize, timeout: Duration) -> Result<SqlAnswer> {
        let conn = &self.conn;
        conn.pragma_update(None, "query_only", true).map_err(|e| self.sql_err(e))?;
        let _ = conn.set_limit(Limit::SQLITE_LIMIT_ATTACHED, 0);
        check_read_only(conn, query)?;
        let outer = self.deadline_left();
        let limit = outer.map_or(timeout, |o| o.min(timeout));
        self.tighten_deadline(limit);
        let result = self.run_sql(query, max_rows);
        self.restore_deadline(outer);
        result
    }

    fn sql_err(&self, e: rusqlite::Error) -> Error {
        match self.db_err(e) {
            Error::Timeout(d) => Error::Timeout(d),
            Error::Core(ckg_core::Error::Sqlite { source, .. }) => Error::Invalid(format!("sql: {source}")),
            e => e,
        }
    }

    fn run_sql(&self, query: &str, max_rows: usize) -> Result<SqlAnswer> {
        let mut stmt = self.conn.prepare(query).map_err(|e| self.sql_err(e))?;
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
        Ok(SqlAnswer { generation: self.generation, columns, rows: out, truncated, next_page_token: None })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_keywords() {
        assert_eq!(first_keyword("  select 1"), "SELECT");
        assert_eq!(first_keyword("-- c\n/* d */ WITH x AS (SELECT 1) SELECT * FROM x"), "WITH");
        assert_eq!(first_keyword("/* unterminated"), "");
        assert_eq!(first_keyword("BEGIN IMMEDIATE"), "BEGIN");
        assert_eq!(first_keyword("pragma query_only = 0"), "PRAGMA");
    }

    #[test]
    fn only_reading_statements_pass_the_guard() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE t (x INTEGER)").unwrap();
        for ok in ["SELECT * FROM t", "with a as (select 1) select * from a", "VALUES (1)", "EXPLAIN SELECT 1"] {
            assert!(check_read_only(&conn, ok).is_ok(), "{ok}");
        }
        for bad in [
            "BEGIN IMMEDIATE",
            "COMMIT",
            "PRAGMA query_only = 0",
            "DELETE FROM t",
            "WITH a AS (SELECT 1) DELETE FROM t",
            "ATTACH 'x.db' AS x",
            "SELECT 1; DELETE FROM t",
            "VACUUM",
            "",
        ] {
            assert!(check_read_only(&conn, bad).is_err(), "{bad}");
        }
    }
}
