//! `ckg export --format jsonl`: every file, diagnostic, symbol, external node and edge, one
//! JSON object per line, sorted, so the same tree always gives byte-identical output.
//!
//! This canonical export is also what the incremental-update tests compare. [`scip`] writes
//! the same graph as a SCIP index for code-intelligence tools.

use std::io::Write;

use rusqlite::Connection;

use crate::error::{Error, Result};

pub mod scip;

fn js(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// Writes the canonical JSONL export of an index.
pub fn export_jsonl(conn: &Connection, db: &std::path::Path, out: &mut dyn Write) -> Result<()> {
    let sql = |e| Error::sqlite(db, e);
    let io = |e| Error::Io { path: "<stdout>".into(), source: e };
    let mut s = conn.prepare("SELECT path, lang, hash, parse_errors FROM files ORDER BY path").map_err(sql)?;
    let mut rows = s.query([]).map_err(sql)?;
    while let Some(r) = rows.next().map_err(sql)? {
        let (path, lang, hash, errors): (String, String, String, i64) =
            (r.get(0).map_err(sql)?, r.get(1).map_err(sql)?, r.get(2).map_err(sql)?, r.get(3).map_err(sql)?);
        writeln!(out, r#"{{"type":"file","path":{},"lang":{},"hash":{},"parse_errors":{errors}}}"#, js(&path), js(&lang), js(&hash))
            .map_err(io)?;
    }
    let mut s = conn.prepare("SELECT path, kind, message, line FROM diagnostics ORDER BY path, kind, line, message").map_err(sql)?;
    let mut rows = s.query([]).map_err(sql)?;
    while let Some(r) = rows.next().map_err(sql)? {
        let (path, kind, message, line): (String, String, String, Option<i64>) =
            (r.get(0).map_err(sql)?, r.get(1).map_err(sql)?, r.get(2).map_err(sql)?, r.get(3).map_err(sql)?);
        let line = line.map(|l| l.to_string()).unwrap_or_else(|| "null".into());
        writeln!(out, r#"{{"type":"diagnostic","path":{},"kind":{},"message":{},"line":{line}}}"#, js(&path), js(&kind), js(&message))
            .map_err(io)?;
    }
    let mut s = conn
        .prepare(
            "SELECT s.qname, s.name, s.kind, f.path, s.line, s.col, s.end_line FROM symbols s JOIN files f ON f.id = s.file_id
             ORDER BY f.path, s.line, s.col, s.qname",
        )
        .map_err(sql)?;
    let mut rows = s.query([]).map_err(sql)?;
    while let Some(r) = rows.next().map_err(sql)? {
        let (qname, name, kind, file): (String, String, String, String) =
            (r.get(0).map_err(sql)?, r.get(1).map_err(sql)?, r.get(2).map_err(sql)?, r.get(3).map_err(sql)?);
        let (line, col, end): (i64, i64, i64) = (r.get(4).map_err(sql)?, r.get(5).map_err(sql)?, r.get(6).map_err(sql)?);
        writeln!(
            out,
            r#"{{"type":"symbol","qname":{},"name":{},"kind":{},"file":{},"line":{line},"col":{col},"end_line":{end}}}"#,
            js(&qname),
            js(&name),
            js(&kind),
            js(&file)
        )
        .map_err(io)?;
    }
    let mut s = conn.prepare("SELECT qname FROM symbols WHERE file_id IS NULL ORDER BY qname").map_err(sql)?;
    let mut rows = s.query([]).map_err(sql)?;
    while let Some(r) = rows.next().map_err(sql)? {
        let qname: String = r.get(0).map_err(sql)?;
        writeln!(out, r#"{{"type":"external","qname":{}}}"#, js(&qname)).map_err(io)?;
    }
    let mut s = conn
        .prepare(
            "SELECT e.kind, src.qname, coalesce(dst.qname, e.dst_name), f.path, e.line, e.col, e.evidence, e.dynamic
             FROM edges e JOIN symbols src ON src.id = e.src_id LEFT JOIN symbols dst ON dst.id = e.dst_id
             JOIN files f ON f.id = e.file_id
             ORDER BY f.path, e.line, e.col, e.kind, src.qname, 3",
        )
        .map_err(sql)?;
    let mut rows = s.query([]).map_err(sql)?;
    while let Some(r) = rows.next().map_err(sql)? {
        let (kind, src, dst, file, evidence): (String, String, Option<String>, String, String) =
            (r.get(0).map_err(sql)?, r.get(1).map_err(sql)?, r.get(2).map_err(sql)?, r.get(3).map_err(sql)?, r.get(6).map_err(sql)?);
        let (line, col, dynamic): (i64, i64, i64) = (r.get(4).map_err(sql)?, r.get(5).map_err(sql)?, r.get(7).map_err(sql)?);
        let dynamic = match dynamic {
            0 => "",
            3 => r#","monkey_patch":true"#,
            _ => r#","dynamic":true"#,
        };
        writeln!(
            out,
            r#"{{"type":"edge","kind":{},"src":{},"dst":{},"file":{},"line":{line},"col":{col},"evidence":{}{dynamic}}}"#,
            js(&kind),
            js(&src),
            js(dst.as_deref().unwrap_or("")),
            js(&file),
            js(&evidence)
        )
        .map_err(io)?;
    }
    Ok(())
}
