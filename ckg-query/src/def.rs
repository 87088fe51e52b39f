//! `def FILE:LINE:COL`: what a position defines or uses, on any name.
//!
//! Two paths. A position the graph already names (a definition's name, or the last name of a
//! use whose edge starts there) is answered from the index alone. Anything else (a local
//! variable or parameter, an intermediate member `a` or `b` of `a.b.c()`, an import
//! specifier, a module segment) is answered by reading the file as it is now: extraction
//! finds what the position is from the file's own scopes ([`PositionFact`]), and, when the
//! name leaves the file, the same resolver that built the index binds it, on the index's
//! stored facts (loaded once per query, or kept by the service per generation). Locals never
//! become graph rows: their binding site comes from the file.

use std::sync::Arc;

use ckg_core::extract::{Extractor, PositionFact};
use ckg_core::lang::Lang;
use ckg_core::resolve::{BoundNames, Found};
use ckg_core::store::FileIdentity;
use rusqlite::OptionalExtension;

use crate::graph::{DefAnswer, Definition, Site};
use crate::{Error, Index, Node, Result};

/// The indexed file a position is in.
struct FileRow {
    id: i64,
    lang: Lang,
    module: String,
    hash: String,
}

/// The identifier under a column of a line: (start column, text).
fn identifier_at(line: &str, col: u32) -> Option<(u32, &str)> {
    let bytes = line.as_bytes();
    let at = col as usize - 1;
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80;
    if at >= bytes.len() || !is_ident(bytes[at]) {
        return None;
    }
    let start = (0..=at).rev().take_while(|&i| is_ident(bytes[i])).last()?;
    let end = (at..bytes.len()).take_while(|&i| is_ident(bytes[i])).last()? + 1;
    Some((start as u32 + 1, line.get(start..end)?))
}

/// The stored names `def` resolves with, of one generation of the database file a long-lived
/// caller reads, kept across snapshots ([`Index::share_names`]).
#[derive(Default)]
pub struct SharedNames(std::sync::Mutex<KeptNames>);

#[derive(Clone, Default)]
struct KeptNames {
    /// The database file the caller reads ([`SharedNames::reading`]): only its names are kept.
    file: Option<FileIdentity>,
    /// Its names, of one generation.
    names: Option<(i64, Arc<BoundNames>)>,
}

impl SharedNames {
    /// The caller reads the database file `file` ([`ckg_core::store::file_identity`]) from now
    /// on: another file's names are dropped, and a snapshot of another file (a query still on
    /// the old one) binds with names of its own, not kept.
    pub fn reading(&self, file: Option<FileIdentity>) {
        let mut kept = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if kept.file != file {
            *kept = KeptNames { file, names: None };
        }
    }
}

impl Index {
    /// The definition at (or used at) a 1-based line and column (UTF-8 bytes) of a file.
    pub fn def_at(&self, file: &str, line: u32, col: u32) -> Result<DefAnswer> {
        if line == 0 || col == 0 {
            return Err(Error::Invalid("line and column are 1-based".into()));
        }
        let row = self.file_row(file)?;
        let source = self.read_source(file);
        let answer =
            |definition: Option<Definition>, file_changed: bool| Ok(DefAnswer { generation: self.generation, definition, file_changed });
        let Some(bytes) = source else {
            // The file is not readable (moved, deleted): only what the graph names.
            return answer(self.graph_definition(&row, line, col, None)?, true);
        };
        let changed = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&bytes)) != row.hash;
        let text = String::from_utf8_lossy(&bytes);
        let Some(line_text) = text.lines().nth(line as usize - 1) else {
            let lines = text.lines().count();
            return Err(Error::Invalid(format!("line {line} is past the end of {file} ({lines} lines); give a line within the file")));
        };
        // A name the graph has (the fast path); anything else, a module specifier's string
        // included, is read from the file.
        if let (Some(ident), false) = (identifier_at(line_text, col), changed)
            && let Some(d) = self.graph_definition(&row, line, ident.0, Some(ident.1))?
        {
            return answer(Some(d), false);
        }
        let (facts, fact) = Extractor::new().position(row.lang, &row.module, &bytes, line, col);
        let Some(fact) = fact else { return answer(None, changed) };
        let definition = match fact {
            PositionFact::Definition(q) => self.node_by_qname(&q)?.map(|node| Definition { node, via: None, hops: Vec::new() }),
            PositionFact::Local { name, line, col, parameter } => Some(Definition {
                node: Node {
                    qname: name,
                    kind: if parameter { "parameter" } else { "local" }.into(),
                    file: Some(file.to_string()),
                    line,
                    col,
                },
                via: None,
                hops: Vec::new(),
            }),
            fact => {
                let names = self.names()?;
                match names.resolver().answer(row.id, &fact, &facts.imports) {
                    None => None,
                    Some(a) => {
                        let node = match a.found {
                            Found::Symbol(id) => self.node(id)?,
                            Found::External(q) => Some(self.node_by_qname(&q)?.unwrap_or(Node {
                                qname: q,
                                kind: "external".into(),
                                file: None,
                                line: 0,
                                col: 0,
                            })),
                            Found::Package(p) => Some(Node { qname: p, kind: "package".into(), file: None, line: 0, col: 0 }),
                        };
                        let mut hops = Vec::new();
                        for h in a.hops {
                            if let Some(path) = self.file_path(h.file)? {
                                hops.push(Site { file: path, line: h.line, col: h.col });
                            }
                        }
                        node.map(|node| Definition { node, via: None, hops })
                    }
                }
            }
        };
        answer(definition, changed)
    }

    /// The stored facts resolution binds names with, and the resolver over them: this
    /// snapshot's, the shared ones of its generation, or loaded now (and shared).
    fn names(&self) -> Result<Arc<BoundNames>> {
        if let Some(n) = self.names.borrow().as_ref() {
            return Ok(Arc::clone(n));
        }
        let load = || -> Result<Arc<BoundNames>> {
            let (_, names, _) = ckg_core::store::snapshot::load_names(&self.conn, &self.path).map_err(|e| self.db_err(e))?;
            Ok(Arc::new(BoundNames::bind(names)))
        };
        let names = match &self.shared_names {
            // Held while loading: concurrent queries of the generation wait for one load.
            Some((shared, file)) => {
                let mut slot = shared.0.lock().unwrap_or_else(|p| p.into_inner());
                match &slot.names {
                    // Another file's snapshot: its own names, not kept.
                    _ if slot.file != *file => {
                        drop(slot);
                        load()?
                    }
                    Some((g, n)) if *g == self.generation => Arc::clone(n),
                    // A snapshot older than the shared names: its own, not kept.
                    Some((g, _)) if *g > self.generation => {
                        drop(slot);
                        load()?
                    }
                    _ => {
                        let n = load()?;
                        slot.names = Some((self.generation, Arc::clone(&n)));
                        n
                    }
                }
            }
            None => load()?,
        };
        self.names.replace(Some(Arc::clone(&names)));
        Ok(names)
    }

    /// A position the graph names: a definition's name there, or the last name of a use whose
    /// edge starts there (`ident` is the identifier written at the position, when known).
    fn graph_definition(&self, row: &FileRow, line: u32, col: u32, ident: Option<&str>) -> Result<Option<Definition>> {
        let mut s = self
            .conn
            .prepare_cached(
                "SELECT s.qname, s.kind, f.path, s.line, s.col, s.name FROM symbols s JOIN files f ON f.id = s.file_id
                 WHERE s.file_id = ?1 AND s.line = ?2 AND s.col <= ?3 AND s.kind != 'module' ORDER BY s.col DESC",
            )
            .map_err(|e| self.db_err(e))?;
        let rows = s
            .query_map(rusqlite::params![row.id, line, col], |r| Ok((crate::row_node(r)?, r.get::<_, String>(5)?)))
            .map_err(|e| self.db_err(e))?;
        for r in rows {
            let (node, name) = r.map_err(|e| self.db_err(e))?;
            let covers = match ident {
                Some(i) => node.col == col && name == i,
                None => col < node.col + name.len().max(1) as u32,
            };
            if covers {
                return Ok(Some(Definition { node, via: None, hops: Vec::new() }));
            }
        }
        let (lo, hi) = ckg_core::store::edge_ids(row.id);
        let mut s = self
            .conn
            .prepare_cached(&format!(
                "{} WHERE e.id BETWEEN ?1 AND ?2 AND e.line = ?3 AND e.col <= ?4 AND e.dst_id IS NOT NULL ORDER BY e.col DESC, e.kind",
                crate::graph::EDGE_SELECT
            ))
            .map_err(|e| self.db_err(e))?;
        let rows = s.query_map(rusqlite::params![lo, hi, line, col], crate::graph::row_edge).map_err(|e| self.db_err(e))?;
        for r in rows {
            let (_, dst, edge) = r.map_err(|e| self.db_err(e))?;
            let token = ckg_core::store::last_name(&edge.dst);
            let covers = match ident {
                Some(i) => edge.col == col && (token == i || self.imported_as(row.id, token, i)?),
                None => col < edge.col + token.len().max(1) as u32,
            };
            // Import positions are answered from the statement (an edge there may name the
            // module, not the imported name).
            if covers
                && edge.kind != "exports"
                && edge.kind != "imports"
                && let Some(node) = self.node(dst.unwrap_or(0))?
            {
                return Ok(Some(Definition { node, via: Some(edge), hops: Vec::new() }));
            }
        }
        Ok(None)
    }

    /// Whether the file imports `name` under another local name, `local` (`{ a as b }`,
    /// `from m import a as b`): a use of the alias is an edge to the imported name.
    fn imported_as(&self, file: i64, name: &str, local: &str) -> Result<bool> {
        self.conn
            .prepare_cached("SELECT 1 FROM imports WHERE file_id = ?1 AND local = ?2 AND imported = ?3 LIMIT 1")
            .and_then(|mut s| s.exists(rusqlite::params![file, local, name]))
            .map_err(|e| self.db_err(e))
    }

    fn file_row(&self, path: &str) -> Result<FileRow> {
        self.conn
            .prepare_cached("SELECT id, lang, module, hash FROM files WHERE path = ?1")
            .and_then(|mut s| {
                s.query_row([path], |r| {
                    Ok(FileRow {
                        id: r.get(0)?,
                        lang: Lang::parse(&r.get::<_, String>(1)?).unwrap_or(Lang::TypeScript),
                        module: r.get(2)?,
                        hash: r.get(3)?,
                    })
                })
                .optional()
            })
            .map_err(|e| self.db_err(e))?
            .ok_or_else(|| Error::NotFound(path.to_string()))
    }

    fn file_path(&self, id: i64) -> Result<Option<String>> {
        self.conn
            .prepare_cached("SELECT path FROM files WHERE id = ?1")
            .and_then(|mut s| s.query_row([id], |r| r.get(0)).optional())
            .map_err(|e| self.db_err(e))
    }

    fn node_by_qname(&self, qname: &str) -> Result<Option<Node>> {
        self.conn
            .prepare_cached(
                "SELECT s.qname, s.kind, f.path, s.line, s.col FROM symbols s LEFT JOIN files f ON f.id = s.file_id WHERE s.qname = ?1",
            )
            .and_then(|mut s| s.query_row([qname], crate::row_node).optional())
            .map_err(|e| self.db_err(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_under_a_column() {
        assert_eq!(identifier_at("  foo.bar(x)", 3), Some((3, "foo")));
        assert_eq!(identifier_at("  foo.bar(x)", 5), Some((3, "foo")));
        assert_eq!(identifier_at("  foo.bar(x)", 7), Some((7, "bar")));
        assert_eq!(identifier_at("  foo.bar(x)", 6), None);
        assert_eq!(identifier_at("x", 2), None);
        assert_eq!(identifier_at("$el = 1", 1), Some((1, "$el")));
    }

    /// Snapshots that share names build them once per generation: the second `def` that
    /// needs them (a file changed since the index, so read and bound) finds the first's.
    #[test]
    fn shared_names_are_built_once_per_generation() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("a.ts"), "export function f() { return 1; }\n").unwrap();
        std::fs::write(root.join("b.ts"), "import { f } from './a';\nexport function g() { return f(); }\n").unwrap();
        let config = ckg_core::index::IndexConfig::new(root);
        ckg_core::index::index(&config, &|_| {}).unwrap();
        // Changed since the index: positions in it are read from the file and bound.
        std::fs::write(root.join("b.ts"), "import { f } from './a';\nexport function g() { return f(); }\n// edited\n").unwrap();
        let shared = Arc::new(SharedNames::default());
        let kept = || shared.0.lock().unwrap().names.clone();
        let old_file = ckg_core::store::file_identity(&config.db_path());
        shared.reading(old_file);
        let mut answers = Vec::new();
        for _ in 0..2 {
            let mut ix = Index::open(&config.db_path()).unwrap();
            ix.share_names(Arc::clone(&shared), old_file);
            let a = ix.snapshot(None, |ix| ix.def_at("b.ts", 2, 30)).unwrap();
            answers.push(a.definition.map(|d| d.node.qname));
            if answers.len() == 1 {
                let (generation, first) = kept().expect("the first def that binds keeps the names");
                assert_eq!(generation, ix.generation);
                answers.push(Some(format!("{:p}", Arc::as_ptr(&first))));
            }
        }
        let (old_generation, after) = kept().unwrap();
        assert_eq!(answers[0].as_deref(), Some("a.ts#f"));
        assert_eq!(answers[2].as_deref(), Some("a.ts#f"));
        assert_eq!(answers[1], Some(format!("{:p}", Arc::as_ptr(&after))), "the second def built its own names");

        // The database rebuilt (a new file, at the same generation) where `f` became `h`.
        std::fs::write(root.join("a.ts"), "export function h() { return 1; }\n").unwrap();
        std::fs::write(root.join("b.ts"), "import { h } from './a';\nexport function g() { return h(); }\n").unwrap();
        let rebuilt = ckg_core::index::index(&ckg_core::index::IndexConfig { rebuild: true, ..config.clone() }, &|_| {}).unwrap();
        std::fs::write(root.join("b.ts"), "import { h } from './a';\nexport function g() { return h(); }\n// edited\n").unwrap();
        let new_file = ckg_core::store::file_identity(&config.db_path());
        assert_ne!(new_file, old_file);
        let def_in = |file| {
            let mut ix = Index::open(&config.db_path()).unwrap();
            assert_eq!((ix.generation, rebuilt.generation), (old_generation, old_generation), "the old file's generation");
            ix.share_names(Arc::clone(&shared), file);
            ix.snapshot(None, |ix| ix.def_at("b.ts", 2, 30)).unwrap().definition.map(|d| d.node.qname)
        };
        shared.reading(new_file);
        assert!(kept().is_none(), "the old file's names are dropped");
        // A late query still labelled with the old file binds on its own and keeps nothing.
        assert_eq!(def_in(old_file).as_deref(), Some("a.ts#h"));
        assert!(kept().is_none(), "a snapshot of another file kept its names");
        // The new file's names are the new ones, and kept.
        assert_eq!(def_in(new_file).as_deref(), Some("a.ts#h"));
        assert!(kept().is_some_and(|(_, n)| !Arc::ptr_eq(&n, &after)), "the new file's names are kept");
    }
}
