//! Edges by where they are and what they name, for rules that read code by its sites (the
//! agent layer's roles and checks): every edge of one file keyed by its site, the edges to
//! any node whose qname starts with a prefix (`flask.Flask().`), the unresolved edges whose
//! written name ends with one of some names, and a file's source and shapes.

use std::collections::HashMap;

use ckg_core::lang::Lang;
use ckg_core::shapes::{Pos, Shapes};
use rusqlite::OptionalExtension;
use schemars::JsonSchema;
use serde::Serialize;

use crate::{Edge, Error, Index, Result};

/// An edge with what rules need beyond [`Edge`]: the kind of node at its far end (`None`
/// when unresolved or external) and whether it is a dynamic site.
#[derive(Clone, Debug, Serialize, JsonSchema, PartialEq, Eq)]
pub struct SiteEdge {
    #[serde(flatten)]
    pub edge: Edge,
    /// The kind of the target node (`function`, `class`, `variable`, `external`, …); `None`
    /// when unresolved.
    pub dst_kind: Option<String>,
    /// The file the target is defined in (repository definitions only).
    pub dst_file: Option<String>,
    /// The target's line and column (repository definitions only).
    pub dst_line: Option<u32>,
    pub dst_col: Option<u32>,
}

/// An indexed file: its language and its source as it is on disk now.
pub struct SourceFile {
    pub path: String,
    pub lang: Lang,
    pub source: Vec<u8>,
    /// True when the file changed since it was indexed.
    pub changed: bool,
}

const SITE_EDGE_SELECT: &str = "SELECT e.kind, s.qname, coalesce(d.qname, e.dst_name), f.path, e.line, e.col, e.evidence,
            d.kind, df.path, d.line, d.col
     FROM edges e JOIN symbols s ON s.id = e.src_id JOIN files f ON f.id = e.file_id
     LEFT JOIN symbols d ON d.id = e.dst_id LEFT JOIN files df ON df.id = d.file_id";

fn row_site_edge(r: &rusqlite::Row) -> rusqlite::Result<SiteEdge> {
    let dst_kind: Option<String> = r.get(7)?;
    Ok(SiteEdge {
        edge: Edge {
            kind: r.get(0)?,
            src: r.get(1)?,
            dst: r.get(2)?,
            file: r.get(3)?,
            line: r.get::<_, i64>(4)? as u32,
            col: r.get::<_, i64>(5)? as u32,
            evidence: r.get(6)?,
        },
        dst_kind,
        dst_file: r.get(8)?,
        dst_line: r.get::<_, Option<i64>>(9)?.map(|l| l as u32),
        dst_col: r.get::<_, Option<i64>>(10)?.map(|c| c as u32),
    })
}

impl Index {
    /// Every edge whose site is in `file`, keyed by its site.
    pub fn edges_in_file(&self, file: &str) -> Result<HashMap<Pos, Vec<SiteEdge>>> {
        let id = match self.file_id(file) {
            Ok(id) => id,
            Err(Error::NotFound(_)) => return Ok(HashMap::new()),
            Err(e) => return Err(e),
        };
        let (lo, hi) = ckg_core::store::edge_ids(id);
        let sql = format!("{SITE_EDGE_SELECT} WHERE e.id BETWEEN ?1 AND ?2");
        let mut out: HashMap<Pos, Vec<SiteEdge>> = HashMap::new();
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.db_err(e))?;
        let rows = stmt.query_map([lo, hi], row_site_edge).map_err(|e| self.db_err(e))?;
        for row in rows {
            let e = row.map_err(|e| self.db_err(e))?;
            out.entry(Pos { line: e.edge.line, col: e.edge.col }).or_default().push(e);
        }
        Ok(out)
    }

    /// Edges of the given kinds to any node whose qname is `prefix` or starts with it
    /// (with `files`, only edges whose site is in one of them).
    pub fn edges_to_prefix(&self, prefix: &str, kinds: &[&str], files: Option<&[String]>) -> Result<Vec<SiteEdge>> {
        // A range on the qname index: [prefix, prefix + U+10FFFF).
        let hi = format!("{prefix}\u{10FFFF}");
        self.site_edges("e.dst_id IN (SELECT id FROM symbols WHERE qname >= ? AND qname < ?)", &[prefix, &hi], kinds, files)
    }

    /// Unresolved edges of the given kinds whose written name's last segment is `last`.
    pub fn unresolved_named(&self, last: &str, kinds: &[&str], files: Option<&[String]>) -> Result<Vec<SiteEdge>> {
        self.site_edges("e.dst_id IS NULL AND e.dst_last = ?", &[last], kinds, files)
    }

    /// Edges of the given kinds and evidence to any node named `name` (its last name:
    /// `init_app`); every tier when `evidence` is `None`.
    pub fn edges_to_named(&self, name: &str, kinds: &[&str], evidence: Option<&str>, files: Option<&[String]>) -> Result<Vec<SiteEdge>> {
        match evidence {
            Some(ev) => {
                self.site_edges("e.dst_id IN (SELECT id FROM symbols WHERE name = ?) AND e.evidence = ?", &[name, ev], kinds, files)
            }
            None => self.site_edges("e.dst_id IN (SELECT id FROM symbols WHERE name = ?)", &[name], kinds, files),
        }
    }

    /// The edges matching a condition, of the given kinds, at sites in `files` (all when
    /// `None`).
    fn site_edges(&self, condition: &str, params: &[&str], kinds: &[&str], files: Option<&[String]>) -> Result<Vec<SiteEdge>> {
        self.check_deadline()?;
        let marks = |n: usize| vec!["?"; n].join(", ");
        let mut sql = format!("{SITE_EDGE_SELECT} WHERE {condition} AND e.kind IN ({})", marks(kinds.len()));
        if let Some(files) = files {
            sql.push_str(&format!(" AND f.path IN ({})", marks(files.len())));
        }
        let mut values: Vec<&str> = params.to_vec();
        values.extend(kinds);
        values.extend(files.unwrap_or_default().iter().map(String::as_str));
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.db_err(e))?;
        let rows = stmt.query_map(rusqlite::params_from_iter(values), row_site_edge).map_err(|e| self.db_err(e))?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(|e| self.db_err(e))
    }

    /// The repository files a file depends on through edges of the given kinds, each with
    /// the first such edge (by site).
    pub fn file_dependencies(&self, file: &str, kinds: &[&str]) -> Result<Vec<(String, Edge)>> {
        let mut firsts: std::collections::BTreeMap<String, Edge> = std::collections::BTreeMap::new();
        let mut by_site: Vec<SiteEdge> = self.edges_in_file(file)?.into_values().flatten().collect();
        by_site.sort_by_key(|e| (e.edge.line, e.edge.col));
        for e in by_site {
            if let Some(dst) = e.dst_file.filter(|d| d != file && kinds.contains(&e.edge.kind.as_str())) {
                firsts.entry(dst).or_insert(e.edge);
            }
        }
        Ok(firsts.into_iter().collect())
    }

    /// The indexed files in any of the languages, sorted.
    pub fn files_in(&self, langs: &[Lang]) -> Result<Vec<String>> {
        let mut stmt = self.conn.prepare_cached("SELECT path, lang FROM files ORDER BY path").map_err(|e| self.db_err(e))?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))).map_err(|e| self.db_err(e))?;
        let mut out = Vec::new();
        for row in rows {
            let (path, lang) = row.map_err(|e| self.db_err(e))?;
            if Lang::parse(&lang).is_some_and(|l| langs.contains(&l)) {
                out.push(path);
            }
        }
        Ok(out)
    }

    /// An indexed file as it is on disk now (`None` when it is not indexed or not readable).
    pub fn source_file(&self, path: &str) -> Result<Option<SourceFile>> {
        let row: Option<(String, String)> = self
            .conn
            .prepare_cached("SELECT lang, hash FROM files WHERE path = ?1")
            .and_then(|mut s| s.query_row([path], |r| Ok((r.get(0)?, r.get(1)?))).optional())
            .map_err(|e| self.db_err(e))?;
        let Some((lang, hash)) = row else { return Ok(None) };
        let Some(lang) = Lang::parse(&lang) else { return Ok(None) };
        let Some(source) = self.read_source(path) else { return Ok(None) };
        let changed = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&source)) != hash;
        Ok(Some(SourceFile { path: path.to_string(), lang, source, changed }))
    }

    /// The shapes of an indexed file's calls and functions, read from the file now.
    pub fn shapes_of(&self, path: &str) -> Result<Option<(SourceFile, Shapes)>> {
        let Some(file) = self.source_file(path)? else { return Ok(None) };
        let Some(tree) = ckg_core::extract::Extractor::new().parse(file.lang, &file.source) else {
            return Err(Error::Invalid(format!("{path}: could not be parsed")));
        };
        let shapes = ckg_core::shapes::shapes(file.lang, &tree, &file.source);
        Ok(Some((file, shapes)))
    }

    /// A value of the index's `meta` table (`root`, `build_id`, …).
    pub fn meta(&self, key: &str) -> Option<String> {
        self.conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0)).ok()
    }

    /// How many syntax errors an indexed file has (`None` when it is not indexed).
    pub fn parse_errors(&self, path: &str) -> Result<Option<u32>> {
        self.conn
            .prepare_cached("SELECT parse_errors FROM files WHERE path = ?1")
            .and_then(|mut s| s.query_row([path], |r| r.get::<_, i64>(0)).optional())
            .map(|v| v.map(|n| n as u32))
            .map_err(|e| self.db_err(e))
    }

    /// The module qname of an indexed file (`src/app.ts`, `pkg.mod`).
    pub fn module_of(&self, path: &str) -> Result<Option<String>> {
        self.conn
            .prepare_cached("SELECT module FROM files WHERE path = ?1")
            .and_then(|mut s| s.query_row([path], |r| r.get(0)).optional())
            .map_err(|e| self.db_err(e))
    }

    /// The root directory of the indexed files ([`ckg_core::store::indexed_root`]).
    pub fn root(&self) -> Option<String> {
        self.root.get_or_init(|| ckg_core::store::indexed_root(&self.path, self.meta("root"))).clone()
    }

    /// An indexed file's bytes as they are on disk now, from the indexed root; `None` when it
    /// is not there or not a regular file (a pipe put in its place would block).
    pub(crate) fn read_source(&self, path: &str) -> Option<Vec<u8>> {
        let path = std::path::Path::new(&self.root()?).join(path);
        std::fs::metadata(&path).ok().filter(std::fs::Metadata::is_file)?;
        std::fs::read(path).ok()
    }
}
