//! The reverse graph of one generation in memory, for a long-lived reader (`ckg serve`).
//!
//! A walk over SQLite costs one indexed lookup, four joins and four strings per visited node;
//! for an impact of depth 5 that is thousands of statements. Loaded once per generation (a
//! scan of `edges`, `symbols` and `files`), the inbound edges of every node sit in one
//! array (CSR layout: offsets per node id, edges sorted as the SQL walk sorts them), and a
//! walk step is a slice. The graph is immutable; the service swaps in a new one when a new
//! generation is committed, and a query only uses it when its own snapshot reads the same
//! generation, so an answer never mixes two.

use std::sync::Arc;

use crate::graph::Hit;
use crate::{Edge, Index, Result};

#[derive(Clone, Copy)]
struct InEdge {
    src: u32,
    kind: u8,
    evidence: u8,
    file: u32,
    line: u32,
    col: u32,
}

fn text(v: &[Box<str>], i: u32) -> &str {
    v.get(i as usize).map_or("", |s| s)
}

/// Inbound edges of every node of one generation.
pub struct ReverseGraph {
    pub generation: i64,
    /// `offsets[id]..offsets[id + 1]` are the inbound edges of symbol `id`.
    offsets: Vec<u32>,
    edges: Vec<InEdge>,
    qnames: Vec<Box<str>>,
    /// Whether node `id` is a module or an external node (an import of it carries impact on).
    module_like: Vec<bool>,
    paths: Vec<Box<str>>,
    /// Edge kinds and evidence tiers as written in the index.
    words: Vec<String>,
}

/// Runs `sql` (with `{}` standing for a list of ids) over `ids` in chunks, or once with no
/// list when `ids` is `None`.
fn for_ids(ix: &Index, sql: &str, ids: Option<&[i64]>, mut row: impl FnMut(&rusqlite::Row) -> rusqlite::Result<()>) -> Result<()> {
    let err = |e| ix.db_err(e);
    let chunks: Vec<String> = match ids {
        None => vec![sql.replace("{}", "SELECT id FROM files")],
        Some(ids) => ids.chunks(500).map(|c| sql.replace("{}", &c.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(","))).collect(),
    };
    for q in chunks {
        ix.check_deadline()?;
        let mut s = ix.conn.prepare(&q).map_err(err)?;
        let mut rows = s.query([]).map_err(err)?;
        while let Some(r) = rows.next().map_err(err)? {
            row(r).map_err(err)?;
        }
    }
    Ok(())
}

fn set<T: Clone>(v: &mut Vec<T>, id: i64, value: T, empty: T) {
    let id = usize::try_from(id).unwrap_or(0);
    if v.len() <= id {
        v.resize(id + 1, empty);
    }
    v[id] = value;
}

impl ReverseGraph {
    /// Loads the reverse graph of the generation `ix` reads (call inside a snapshot).
    pub fn load(ix: &Index) -> Result<ReverseGraph> {
        let mut g = ReverseGraph {
            generation: ix.generation,
            offsets: Vec::new(),
            edges: Vec::new(),
            qnames: Vec::new(),
            module_like: Vec::new(),
            paths: Vec::new(),
            words: crate::EDGE_KINDS.iter().chain(crate::EVIDENCE_TIERS).map(|w| w.to_string()).collect(),
        };
        g.read_names(ix, None)?;
        let mut raw = g.read_edges(ix, None)?;
        // The SQL walk's order: by dst, then file path, line, column, kind, source qname.
        // Paths are compared through their rank (one sort of the files, not one string
        // comparison per edge comparison).
        let mut by_path: Vec<u32> = (0..g.paths.len() as u32).collect();
        by_path.sort_unstable_by(|&a, &b| text(&g.paths, a).cmp(text(&g.paths, b)));
        let mut path_rank = vec![0u32; g.paths.len()];
        for (rank, &file) in by_path.iter().enumerate() {
            path_rank[file as usize] = rank as u32;
        }
        let rank = |f: u32| path_rank.get(f as usize).copied().unwrap_or(u32::MAX);
        raw.sort_unstable_by(|(da, a), (db, b)| {
            da.cmp(db)
                .then(rank(a.file).cmp(&rank(b.file)))
                .then(a.line.cmp(&b.line))
                .then(a.col.cmp(&b.col))
                .then_with(|| g.words[a.kind as usize].cmp(&g.words[b.kind as usize]))
                .then_with(|| text(&g.qnames, a.src).cmp(text(&g.qnames, b.src)))
        });
        g.set_edges(raw);
        Ok(g)
    }

    /// The graph of the generation `ix` reads, made from this one (the generation before it)
    /// by replacing the edges whose sites lie in `files`: what an incremental update changed
    /// (`Summary::edge_files`). Symbols of those files and external nodes are read again.
    pub fn patched(&self, ix: &Index, files: &[i64]) -> Result<ReverseGraph> {
        let mut g = ReverseGraph {
            generation: ix.generation,
            offsets: Vec::new(),
            edges: Vec::new(),
            qnames: self.qnames.clone(),
            module_like: self.module_like.clone(),
            paths: self.paths.clone(),
            words: self.words.clone(),
        };
        g.read_names(ix, Some(files))?;
        let mut fresh = g.read_edges(ix, Some(files))?;
        fresh.sort_unstable_by(|(da, a), (db, b)| da.cmp(db).then_with(|| g.order(a, b)));
        let replaced: std::collections::HashSet<u32> = files.iter().map(|&f| f as u32).collect();
        // Merge, node by node: the kept edges are in order already.
        let mut merged: Vec<(u32, InEdge)> = Vec::with_capacity(self.edges.len() + fresh.len());
        let mut fresh = fresh.into_iter().peekable();
        for dst in 0..self.offsets.len().saturating_sub(1) {
            let kept =
                self.edges[self.offsets[dst] as usize..self.offsets[dst + 1] as usize].iter().filter(|e| !replaced.contains(&e.file));
            for e in kept {
                while let Some((_, n)) = fresh.next_if(|(d, n)| *d as usize == dst && g.order(n, e).is_lt()) {
                    merged.push((dst as u32, n));
                }
                merged.push((dst as u32, *e));
            }
            while let Some(n) = fresh.next_if(|(d, _)| *d as usize == dst) {
                merged.push(n);
            }
        }
        // Nodes past the old ones (new symbols) are reached only by fresh edges.
        merged.extend(fresh);
        g.set_edges(merged);
        Ok(g)
    }

    /// The order of two edges to one node (file path, line, column, kind, source qname).
    fn order(&self, a: &InEdge, b: &InEdge) -> std::cmp::Ordering {
        text(&self.paths, a.file)
            .cmp(text(&self.paths, b.file))
            .then(a.line.cmp(&b.line))
            .then(a.col.cmp(&b.col))
            .then_with(|| self.words[a.kind as usize].cmp(&self.words[b.kind as usize]))
            .then_with(|| text(&self.qnames, a.src).cmp(text(&self.qnames, b.src)))
    }

    /// Reads qnames, module-likeness and paths: all, or those of `files` and every external
    /// node.
    fn read_names(&mut self, ix: &Index, files: Option<&[i64]>) -> Result<()> {
        let sql = if files.is_some() {
            "SELECT id, qname, kind IN ('module', 'external') FROM symbols WHERE file_id IS NULL OR file_id IN ({})"
        } else {
            "SELECT id, qname, kind IN ('module', 'external') FROM symbols"
        };
        let (qnames, module_like) = (&mut self.qnames, &mut self.module_like);
        for_ids(ix, sql, files, |r| {
            let id = r.get(0)?;
            set(qnames, id, r.get::<_, String>(1)?.into_boxed_str(), Box::from(""));
            set(module_like, id, r.get(2)?, false);
            Ok(())
        })?;
        let paths = &mut self.paths;
        for_ids(ix, "SELECT id, path FROM files WHERE id IN ({})", files, |r| {
            set(paths, r.get(0)?, r.get::<_, String>(1)?.into_boxed_str(), Box::from(""));
            Ok(())
        })
    }

    /// Reads the resolved edges whose sites lie in `files` (all when `None`).
    fn read_edges(&mut self, ix: &Index, files: Option<&[i64]>) -> Result<Vec<(u32, InEdge)>> {
        let words = &mut self.words;
        let mut word = |w: &str| -> u8 {
            match words.iter().position(|x| x == w) {
                Some(i) => i as u8,
                None => {
                    words.push(w.to_string());
                    (words.len() - 1) as u8
                }
            }
        };
        let mut raw = Vec::new();
        let mut push = |r: &rusqlite::Row| -> rusqlite::Result<()> {
            let kind = word(r.get_ref(2)?.as_str().unwrap_or(""));
            let evidence = word(r.get_ref(3)?.as_str().unwrap_or(""));
            raw.push((
                r.get::<_, i64>(0)? as u32,
                InEdge {
                    src: r.get::<_, i64>(1)? as u32,
                    kind,
                    evidence,
                    file: r.get::<_, i64>(4)? as u32,
                    line: r.get::<_, i64>(5)? as u32,
                    col: r.get::<_, i64>(6)? as u32,
                },
            ));
            Ok(())
        };
        const COLUMNS: &str = "SELECT dst_id, src_id, kind, evidence, file_id, line, col FROM edges WHERE dst_id IS NOT NULL";
        let err = |e| ix.db_err(e);
        match files {
            None => for_ids(ix, COLUMNS, None, push)?,
            Some(files) => {
                // A file's edges are one range of ids (see `ckg_core::store::edge_ids`).
                let mut s = ix.conn.prepare(&format!("{COLUMNS} AND id BETWEEN ?1 AND ?2")).map_err(err)?;
                for &f in files {
                    ix.check_deadline()?;
                    let (lo, hi) = ckg_core::store::edge_ids(f);
                    let mut rows = s.query([lo, hi]).map_err(err)?;
                    while let Some(r) = rows.next().map_err(err)? {
                        push(r).map_err(err)?;
                    }
                }
            }
        }
        Ok(raw)
    }

    /// Lays out edges sorted by node into the CSR arrays.
    fn set_edges(&mut self, sorted: Vec<(u32, InEdge)>) {
        let nodes = self.qnames.len().max(sorted.last().map_or(0, |(d, _)| *d as usize + 1));
        let mut offsets = vec![0u32; nodes + 1];
        for (dst, _) in &sorted {
            offsets[*dst as usize + 1] += 1;
        }
        for i in 1..offsets.len() {
            offsets[i] += offsets[i - 1];
        }
        self.offsets = offsets;
        self.edges = sorted.into_iter().map(|(_, e)| e).collect();
    }

    /// The inbound edges of `id`, as the SQL walk returns them.
    pub(crate) fn inbound(&self, id: i64) -> Vec<Hit> {
        let i = id as usize;
        if id < 0 || i + 1 >= self.offsets.len() {
            return Vec::new();
        }
        let dst = text(&self.qnames, id as u32);
        self.edges[self.offsets[i] as usize..self.offsets[i + 1] as usize]
            .iter()
            .map(|e| Hit {
                id: e.src as i64,
                edge: Edge {
                    kind: self.words[e.kind as usize].clone(),
                    src: text(&self.qnames, e.src).to_string(),
                    dst: dst.to_string(),
                    file: text(&self.paths, e.file).to_string(),
                    line: e.line,
                    col: e.col,
                    evidence: self.words[e.evidence as usize].clone(),
                },
            })
            .collect()
    }

    /// Whether `id` is a module or an external node; `None` for an id this graph lacks.
    pub(crate) fn is_module_like(&self, id: i64) -> Option<bool> {
        usize::try_from(id).ok().and_then(|i| self.module_like.get(i).copied())
    }

    /// Approximate heap size, for the status report.
    pub fn bytes(&self) -> usize {
        self.offsets.len() * 4
            + self.module_like.len()
            + self.edges.len() * std::mem::size_of::<InEdge>()
            + self.qnames.iter().map(|s| s.len() + 16).sum::<usize>()
            + self.paths.iter().map(|s| s.len() + 16).sum::<usize>()
    }
}

impl Index {
    /// Walks inbound edges through `graph` while this snapshot reads its generation (and
    /// through SQL otherwise). Returns whether the graph is used.
    pub fn use_graph(&mut self, graph: Option<Arc<ReverseGraph>>) -> bool {
        self.graph = graph.filter(|g| g.generation == self.generation);
        self.graph.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every inbound edge of every node, with names: what walks can observe.
    fn dump(g: &ReverseGraph) -> Vec<String> {
        let mut out = Vec::new();
        for id in 0..g.offsets.len().saturating_sub(1) {
            let inbound = g.inbound(id as i64);
            // Asked of a node a walk reaches through an inbound edge (ids of removed
            // symbols keep a stale answer, but no edge reaches them).
            if !inbound.is_empty() && g.is_module_like(id as i64) == Some(true) {
                out.push(format!("{id} module-like"));
            }
            for h in inbound {
                out.push(format!("{id} {:?}", h.edge));
            }
        }
        out
    }

    #[test]
    fn a_patched_graph_equals_a_loaded_one_after_every_edit() {
        let repo = crate::testing::TestRepo::new();
        for i in 0..8 {
            repo.write(
                &format!("src/m{i}.ts"),
                &format!("import {{ f{j} }} from './m{j}';\nexport function f{i}() {{ return f{j}(); }}\n", j = (i + 1) % 8),
            );
        }
        let mut session = ckg_core::index::Session::default();
        repo.index(&mut session);
        let mut ix = repo.open();
        let mut graph = ix.snapshot(None, |ix| ReverseGraph::load(ix)).unwrap();
        let edits: [&dyn Fn(&crate::testing::TestRepo); 6] = [
            &|r| r.write("src/m0.ts", "import { f1 } from './m1';\nexport function f0() { return f1() + f1(); }\n"),
            &|r| r.write("src/new.ts", "import { f0, f3 } from './m0';\nexport function g() { return f0(); }\n"),
            &|r| r.remove("src/m3.ts"),
            &|r| {
                r.write(
                    "src/m3.ts",
                    "import { g } from './new';\nexport function f3() { return g(); }\nexport function h() { return f3(); }\n",
                )
            },
            &|r| r.write("src/m5.ts", "export function f5() { return 5; }\n"),
            &|r| r.write("src/a/zz.ts", "import { f5 } from '../m5';\nimport { h } from '../m3';\nexport const k = () => f5() + h();\n"),
        ];
        for (n, edit) in edits.iter().enumerate() {
            let summary = repo.edit_and_index(&mut session, edit);
            let files = summary.edge_files.clone().expect("an incremental update lists its files");
            let (patched, loaded) = ix
                .snapshot(None, |ix| {
                    assert_eq!(ix.generation, graph.generation + 1);
                    Ok((graph.patched(ix, &files)?, ReverseGraph::load(ix)?))
                })
                .unwrap();
            assert!(dump(&loaded).len() >= 8, "edit {n}");
            assert_eq!(dump(&patched), dump(&loaded), "edit {n}");
            assert_eq!(patched.generation, loaded.generation);
            graph = patched;
        }
    }

    #[test]
    fn walks_through_the_graph_equal_walks_through_sql() {
        let repo = crate::testing::TestRepo::new();
        let w = |p: &str, s: &str| repo.write(p, s);
        w("src/a.ts", "import { b } from './b';\nexport function a() { return b() + b(); }\nexport class K { m() { return a(); } }\n");
        w("src/b.ts", "import { a, K } from './a';\nexport function b() { return new K().m(); }\nexport function c() { a(); b(); }\n");
        w("src/c.ts", "import * as A from './a';\nimport { c } from './b';\nexport const run = () => { A.a(); c(); };\n");
        w("p/m.py", "from p.n import g\n\n\ndef f():\n    return g()\n\n\nclass C:\n    def h(self):\n        return f()\n");
        w("p/n.py", "def g():\n    from p.m import C\n    return C().h()\n");
        w("p/__init__.py", "");
        repo.index(&mut ckg_core::index::Session::default());
        let mut ix = repo.open();
        let targets: Vec<String> = ix.symbols("*", None, 1000).unwrap().symbols.into_iter().map(|n| n.qname).collect();
        assert!(targets.len() > 10);
        let answers = |ix: &Index| -> Vec<String> {
            let mut out = Vec::new();
            for t in &targets {
                let opts = crate::ImpactOptions { depth: 5, ..Default::default() };
                out.push(format!(
                    "{:?}",
                    ix.impact(t, &opts).map(|a| (a.files.iter().map(|f| format!("{f:?}")).collect::<Vec<_>>(), a.symbols))
                ));
                out.push(format!("{:?}", ix.callers(t, 3).map(|a| format!("{:?}", a.edges))));
                out.push(format!("{:?}", ix.refs(t).map(|a| format!("{:?}", a.edges))));
            }
            out
        };
        let through_sql = ix.snapshot(None, |ix| Ok(answers(ix))).unwrap();
        let through_graph = ix
            .snapshot(None, |ix| {
                let graph = Arc::new(ReverseGraph::load(ix)?);
                assert!(ix.use_graph(Some(graph)));
                Ok(answers(ix))
            })
            .unwrap();
        assert_eq!(through_sql, through_graph);
        // A graph of another generation is never used.
        let mut stale = ix.snapshot(None, |ix| ReverseGraph::load(ix)).unwrap();
        stale.generation += 1;
        let used = ix.snapshot(None, |ix| Ok(ix.use_graph(Some(Arc::new(stale))))).unwrap();
        assert!(!used);
    }
}
