//! `sql_guard`: `ckg_query::check_read_only` against any statement text.
//!
//! The connection holds the ckg schema and the rows of a small index, copied into memory,
//! and is *not* set `query_only`: the property is the guard's own promise (what it accepts
//! only reads), not the belt-and-braces settings `Index::sql` adds around it. Each accepted
//! statement is run to the end (time-limited, as the service does) and the database must be
//! exactly as before: every table's rows, the schema, the header's versions and the
//! connection's change counter.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;
use std::time::{Duration, Instant};

use rusqlite::Connection;
use rusqlite::types::ValueRef;

/// How long an accepted statement may run (the service's limit is the same idea).
const TIME_LIMIT: Duration = Duration::from_millis(250);
/// Rows read from an accepted statement.
const MAX_ROWS: usize = 1000;

/// An in-memory database with the schema and rows of the index at `db`, and its fingerprint.
pub struct Guarded {
    conn: Connection,
    fingerprint: u64,
    changes: u64,
}

impl Guarded {
    pub fn copy_of(db: &Path) -> Guarded {
        let conn = Connection::open_in_memory().expect("in-memory database");
        conn.execute("ATTACH DATABASE ?1 AS src", [db.to_string_lossy()]).expect("attach the index");
        let schema: Vec<(String, String, String)> = {
            let mut s = conn
                .prepare("SELECT type, name, sql FROM src.sqlite_schema WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY type = 'table' DESC, name")
                .unwrap();
            s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap().map(Result::unwrap).collect()
        };
        for (kind, name, sql) in &schema {
            conn.execute_batch(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
            if kind == "table" {
                conn.execute_batch(&format!("INSERT INTO main.\"{name}\" SELECT * FROM src.\"{name}\"")).unwrap();
            }
        }
        for pragma in ["application_id", "user_version"] {
            let v: i64 = conn.query_row(&format!("PRAGMA src.{pragma}"), [], |r| r.get(0)).unwrap();
            conn.execute_batch(&format!("PRAGMA main.{pragma} = {v}")).unwrap();
        }
        conn.execute_batch("DETACH DATABASE src").unwrap();
        conn.progress_handler(1000, Some(move || DEADLINE.with(|d| d.get().is_some_and(|d| Instant::now() > d))));
        let fingerprint = fingerprint(&conn);
        let changes = conn.total_changes();
        Guarded { conn, fingerprint, changes }
    }

    /// The `sql_guard` target.
    pub fn fuzz(&self, data: &[u8]) {
        let sql = String::from_utf8_lossy(data);
        let first = ckg_query::check_read_only(&self.conn, &sql).is_ok();
        assert_eq!(first, ckg_query::check_read_only(&self.conn, &sql).is_ok(), "the guard is not deterministic");
        if !first {
            return;
        }
        self.run(&sql);
        let changes = self.conn.total_changes() - self.changes;
        assert_eq!(changes, 0, "an accepted statement changed {changes} rows: {sql:?}");
        assert!(self.conn.is_autocommit(), "an accepted statement left a transaction open: {sql:?}");
        assert_eq!(fingerprint(&self.conn), self.fingerprint, "an accepted statement changed the database: {sql:?}");
    }

    fn run(&self, sql: &str) {
        DEADLINE.with(|d| d.set(Some(Instant::now() + TIME_LIMIT)));
        // Errors while running (a division by zero, the time limit) are fine: the statement
        // was read-only, which is all the guard promised.
        if let Ok(mut stmt) = self.conn.prepare(sql) {
            let columns = stmt.column_count();
            if let Ok(mut rows) = stmt.query([]) {
                let mut n = 0;
                while let Ok(Some(row)) = rows.next() {
                    for i in 0..columns {
                        let _ = row.get_ref(i).map(|v| std::hint::black_box(v.data_type()));
                    }
                    n += 1;
                    if n == MAX_ROWS {
                        break;
                    }
                }
            }
        }
        DEADLINE.with(|d| d.set(None));
    }
}

thread_local! {
    static DEADLINE: std::cell::Cell<Option<Instant>> = const { std::cell::Cell::new(None) };
}

/// A hash of everything a write could change: the schema, every table's rows in rowid order,
/// and the header's versions.
fn fingerprint(conn: &Connection) -> u64 {
    let mut h = DefaultHasher::new();
    let tables: Vec<(String, String)> = {
        let mut s = conn.prepare("SELECT name, sql FROM sqlite_schema ORDER BY name").unwrap();
        s.query_map([], |r| Ok((r.get(0)?, r.get::<_, Option<String>>(1)?.unwrap_or_default()))).unwrap().map(Result::unwrap).collect()
    };
    tables.hash(&mut h);
    for (name, sql) in &tables {
        if !sql.starts_with("CREATE TABLE") {
            continue;
        }
        let mut s = conn.prepare(&format!("SELECT * FROM \"{name}\"")).unwrap();
        let columns = s.column_count();
        let mut rows = s.query([]).unwrap();
        while let Some(r) = rows.next().unwrap() {
            for i in 0..columns {
                match r.get_ref(i).unwrap() {
                    ValueRef::Null => 0u8.hash(&mut h),
                    ValueRef::Integer(n) => n.hash(&mut h),
                    ValueRef::Real(f) => f.to_bits().hash(&mut h),
                    ValueRef::Text(t) | ValueRef::Blob(t) => t.hash(&mut h),
                }
            }
        }
    }
    for pragma in ["schema_version", "user_version", "application_id", "page_count"] {
        let v: i64 = conn.query_row(&format!("PRAGMA {pragma}"), [], |r| r.get(0)).unwrap();
        v.hash(&mut h);
    }
    h.finish()
}
