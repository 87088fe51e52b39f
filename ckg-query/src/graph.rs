//! Targets and edge walks: what a target names, inbound and outbound edges, `refs`,
//! `callers`/`callees`, `def`, `path`, `cycles`, `unused`, and file-level `deps`/`rdeps`.
//!
//! Walks are breadth-first with one indexed lookup per visited node (`edges_dst`; outbound,
//! the range of the source's file and `edges_remote_src`); `cycles` loads the edges of one
//! kind into a petgraph graph and runs Tarjan's SCC.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

use petgraph::graph::{DiGraph, NodeIndex};
use rusqlite::OptionalExtension;
use schemars::JsonSchema;
use serde::Serialize;

use crate::{Edge, Error, Index, Node, Result};

/// An edge found by a walk, with the node at its far end.
pub(crate) struct Hit {
    pub id: i64,
    pub edge: Edge,
}

/// Edge kinds that mean "runs code of".
pub const CALL_KINDS: &[&str] = &["calls", "instantiates"];

/// Every edge kind of the graph.
pub const EDGE_KINDS: &[&str] = &["calls", "exports", "implements", "imports", "inherits", "instantiates", "references", "writes"];

/// The deepest walk a query may ask for.
pub const MAX_DEPTH: u32 = 64;

/// The most edges (or symbols) one answer collects; past it the answer says `truncated`.
pub const MAX_RESULTS: usize = 100_000;

/// Edges found by a walk (`refs`, `callers`, `callees`).
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct EdgesAnswer {
    pub target: String,
    pub generation: i64,
    pub roots: Vec<Node>,
    /// Edges with the distance (1 = direct) from the target.
    pub edges: Vec<DepthEdge>,
    /// True when the walk stopped at the result cap ([`MAX_RESULTS`] edges).
    pub truncated: bool,
    /// Where the next page starts (paged answers only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct DepthEdge {
    pub depth: u32,
    #[serde(flatten)]
    pub edge: Edge,
}

/// Symbols matching a pattern.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct SymbolsAnswer {
    pub generation: i64,
    pub symbols: Vec<Node>,
    /// True when more symbols matched than the limit allowed.
    pub truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
}

/// What a position of a file defines or uses.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct DefAnswer {
    pub generation: i64,
    /// None when nothing is defined or used there.
    pub definition: Option<Definition>,
    /// True when the file changed on disk since it was indexed: the answer is read from the
    /// file as it is now and may not match the graph.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub file_changed: bool,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Definition {
    /// The definition (or external node) the position refers to; for a local variable or
    /// parameter (kind `local` / `parameter`), its binding site in the same file, named by
    /// its own name.
    pub node: Node,
    /// The edge whose site is at the position, when the position is a use the graph has.
    pub via: Option<Edge>,
    /// The import bindings and re-exports followed to reach the definition, in order.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub hops: Vec<Site>,
}

/// A place in a file.
#[derive(Clone, Debug, Serialize, JsonSchema, PartialEq, Eq)]
pub struct Site {
    pub file: String,
    pub line: u32,
    pub col: u32,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Dep {
    /// A file path, or an external package name.
    pub target: String,
    pub external: bool,
    /// How many edges connect the two.
    pub edges: u64,
    pub kinds: Vec<String>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct DepsAnswer {
    pub file: String,
    pub generation: i64,
    pub deps: Vec<Dep>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct PathAnswer {
    pub from: String,
    pub to: String,
    pub generation: i64,
    /// The shortest chain of edges from `from` to `to`; empty when there is none.
    pub edges: Vec<Edge>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct CyclesAnswer {
    pub generation: i64,
    /// Import cycles between files (strongly connected components of `imports`).
    pub imports: Vec<Vec<String>>,
    /// Call cycles between symbols (SCCs of `calls`), recursion included.
    pub calls: Vec<Vec<String>>,
    /// Paged as one list: the import cycles, then the call cycles.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct UnusedAnswer {
    pub generation: i64,
    pub symbols: Vec<Node>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
}

/// Options for `unused`.
#[derive(Clone, Debug, Default)]
pub struct UnusedOptions {
    /// Also report exported (public API) definitions.
    pub include_exported: bool,
    /// Files whose definitions are entry points (glob), e.g. `tests/**`, `src/main.ts`.
    pub entry_globs: Vec<String>,
}

pub(crate) const EDGE_SELECT: &str =
    "SELECT e.src_id, e.dst_id, e.kind, src.qname, coalesce(dst.qname, e.dst_name), f.path, e.line, e.col, e.evidence
     FROM edges e JOIN symbols src ON src.id = e.src_id LEFT JOIN symbols dst ON dst.id = e.dst_id
     JOIN files f ON f.id = e.file_id";

/// The order of a node's outbound edges: by site, then kind and target.
const OUTBOUND_ORDER: &str = "ORDER BY f.path, e.line, e.col, e.kind, 5";

pub(crate) fn row_edge(r: &rusqlite::Row) -> rusqlite::Result<(i64, Option<i64>, Edge)> {
    Ok((
        r.get(0)?,
        r.get(1)?,
        Edge {
            kind: r.get(2)?,
            src: r.get(3)?,
            dst: r.get::<_, Option<String>>(4)?.unwrap_or_default(),
            file: r.get(5)?,
            line: r.get::<_, i64>(6)? as u32,
            col: r.get::<_, i64>(7)? as u32,
            evidence: r.get(8)?,
        },
    ))
}

impl Index {
    /// The nodes a target names: an exact qname; an external package and every member used
    /// from it; a file path (its module and definitions); or a bare name (one candidate, or
    /// an error listing them).
    pub fn resolve_target(&self, target: &str) -> Result<Vec<i64>> {
        if target.trim().is_empty() {
            return Err(Error::Invalid("empty target".into()));
        }
        let ids = |sql: &str, arg: &str| -> Result<Vec<i64>> {
            let mut s = self.conn.prepare_cached(sql).map_err(|e| self.db_err(e))?;
            let rows = s.query_map([arg], |r| r.get(0)).map_err(|e| self.db_err(e))?;
            rows.collect::<rusqlite::Result<_>>().map_err(|e| self.db_err(e))
        };
        const MEMBERS: &str = "SELECT id FROM symbols WHERE file_id IS NULL AND (substr(qname, 1, length(?1) + 1) = ?1 || '.' OR substr(qname, 1, length(?1) + 1) = ?1 || '(') ORDER BY qname";
        let exact = ids("SELECT id FROM symbols WHERE qname = ?1", target)?;
        if let Some(&first) = exact.first() {
            let (kind, file): (String, Option<i64>) = self
                .conn
                .query_row("SELECT kind, file_id FROM symbols WHERE id = ?1", [first], |r| Ok((r.get(0)?, r.get(1)?)))
                .map_err(|e| self.db_err(e))?;
            match kind.as_str() {
                "external" => {
                    let mut all = exact;
                    all.extend(ids(MEMBERS, target)?);
                    return Ok(all);
                }
                "module" if let Some(file) = file => {
                    // A bare name that is a top-level Python module (`main`) and also names a
                    // function or a class (`def main`) is ambiguous: the candidates are listed.
                    // (Not a variable or an attribute: `app` of `app.py` is the module.)
                    if !target.contains(['.', '/', '#']) {
                        let named = ids("SELECT id FROM symbols WHERE name = ?1 AND kind IN ('function', 'class') ORDER BY qname", target)?;
                        if !named.is_empty() {
                            return Err(self.ambiguous(target, exact.into_iter().chain(named))?);
                        }
                    }
                    // A module, as its file's path names it: it and its definitions.
                    let mut s =
                        self.conn.prepare_cached("SELECT id FROM symbols WHERE file_id = ?1 ORDER BY qname").map_err(|e| self.db_err(e))?;
                    let rows = s.query_map([file], |r| r.get(0)).map_err(|e| self.db_err(e))?;
                    return rows.collect::<rusqlite::Result<_>>().map_err(|e| self.db_err(e));
                }
                _ => return Ok(exact),
            }
        }
        let members = ids(MEMBERS, target)?;
        if !members.is_empty() {
            return Ok(members);
        }
        let in_file = ids("SELECT s.id FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.path = ?1 ORDER BY s.qname", target)?;
        if !in_file.is_empty() {
            return Ok(in_file);
        }
        let by_name = ids("SELECT id FROM symbols WHERE name = ?1 AND kind != 'external' ORDER BY qname", target)?;
        match by_name.len() {
            0 => Err(Error::NotFound(target.to_string())),
            1 => Ok(by_name),
            _ => Err(self.ambiguous(target, by_name)?),
        }
    }

    /// The error of a name that several nodes have, listing them.
    fn ambiguous(&self, name: &str, ids: impl IntoIterator<Item = i64>) -> Result<Error> {
        let mut candidates = Vec::new();
        for id in ids {
            if let Some(n) = self.node(id)? {
                candidates.push(format!("{} ({}{})", n.qname, n.kind, n.file.map(|f| format!(", {f}:{}", n.line)).unwrap_or_default()));
            }
        }
        Ok(Error::Ambiguous { name: name.to_string(), candidates })
    }

    pub(crate) fn inbound(&self, id: i64) -> Result<Vec<Hit>> {
        if let Some(g) = &self.graph {
            self.check_deadline()?;
            return Ok(g.inbound(id));
        }
        self.walk_step(&format!("{EDGE_SELECT} WHERE e.dst_id = ?1 ORDER BY f.path, e.line, e.col, e.kind, src.qname"), id, true)
    }

    /// The edges whose source is `id`. The store keeps no index of every edge's source: they
    /// are the edges in the range of the source's file, the few whose source is another file's
    /// (`edges_remote_src`), and those in the range of a file whose claim to the source's
    /// qname waits in `shadowed`. (The three as one condition SQLite splits into three
    /// lookups, ~9 % faster than a union of them as a list of ids.)
    pub(crate) fn outbound(&self, id: i64) -> Result<Vec<Hit>> {
        static SQL: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
            let (bits, last) = (ckg_core::store::EDGE_ID_BITS, (1i64 << ckg_core::store::EDGE_ID_BITS) - 1);
            format!(
                "{EDGE_SELECT} WHERE e.src_id = ?1 AND (
                     e.id BETWEEN (SELECT file_id FROM symbols WHERE id = ?1) << {bits}
                         AND ((SELECT file_id FROM symbols WHERE id = ?1) << {bits}) + {last}
                     OR e.id IN (SELECT id FROM edge_rows WHERE src_id = ?1 AND remote_src = 1)
                     OR e.id IN (
                         SELECT r.id FROM symbols s JOIN shadowed sh ON sh.qname = s.qname
                         JOIN edge_rows r ON r.id BETWEEN sh.file_id << {bits} AND (sh.file_id << {bits}) + {last}
                         WHERE s.id = ?1 AND r.src_id = ?1))
                 {OUTBOUND_ORDER}"
            )
        });
        self.walk_step(&SQL, id, false)
    }

    fn walk_step(&self, sql: &str, id: i64, inbound: bool) -> Result<Vec<Hit>> {
        self.check_deadline()?;
        let mut s = self.conn.prepare_cached(sql).map_err(|e| self.db_err(e))?;
        let rows = s.query_map([id], row_edge).map_err(|e| self.db_err(e))?;
        let mut out = Vec::new();
        for r in rows {
            let (src, dst, edge) = r.map_err(|e| self.db_err(e))?;
            let far = if inbound { Some(src) } else { dst };
            // Outbound unresolved edges have no far node: keep them (id 0), never walk them.
            out.push(Hit { id: far.unwrap_or(0), edge });
        }
        Ok(out)
    }

    /// The nodes of some ids (what [`Index::resolve_target`] gives).
    pub fn nodes(&self, ids: &[i64]) -> Result<Vec<Node>> {
        self.roots(ids)
    }

    /// The last line of a repository definition.
    pub fn end_line(&self, qname: &str) -> Result<Option<u32>> {
        self.conn
            .prepare_cached("SELECT end_line FROM symbols WHERE qname = ?1 AND file_id IS NOT NULL")
            .and_then(|mut s| s.query_row([qname], |r| r.get::<_, i64>(0)).optional())
            .map(|v| v.map(|n| n as u32))
            .map_err(|e| self.db_err(e))
    }

    fn roots(&self, ids: &[i64]) -> Result<Vec<Node>> {
        let mut out = Vec::new();
        for &id in ids {
            if let Some(n) = self.node(id)? {
                out.push(n);
            }
        }
        Ok(out)
    }

    /// Breadth-first walk over edges of the given kinds (all when empty), inbound or outbound.
    fn walk(&self, target: &str, kinds: &[&str], depth: u32, inbound: bool) -> Result<EdgesAnswer> {
        check_depth(depth)?;
        let roots = self.resolve_target(target)?;
        let mut seen: HashSet<i64> = roots.iter().copied().collect();
        let mut queue: VecDeque<(i64, u32)> = roots.iter().map(|&r| (r, 0)).collect();
        let mut edges = Vec::new();
        let mut truncated = false;
        'walk: while let Some((id, d)) = queue.pop_front() {
            if d >= depth {
                continue;
            }
            let hits = if inbound { self.inbound(id)? } else { self.outbound(id)? };
            for hit in hits {
                if !kinds.is_empty() && !kinds.contains(&hit.edge.kind.as_str()) {
                    continue;
                }
                if edges.len() == MAX_RESULTS {
                    truncated = true;
                    break 'walk;
                }
                if hit.id != 0 && seen.insert(hit.id) {
                    queue.push_back((hit.id, d + 1));
                }
                edges.push(DepthEdge { depth: d + 1, edge: hit.edge });
            }
        }
        Ok(EdgesAnswer {
            target: target.to_string(),
            generation: self.generation,
            roots: self.roots(&roots)?,
            edges,
            truncated,
            next_page_token: None,
        })
    }

    /// Every use of a target: all inbound edges, one level.
    pub fn refs(&self, target: &str) -> Result<EdgesAnswer> {
        self.walk(target, &[], 1, true)
    }

    /// Who calls or instantiates a target, transitively to `depth`.
    pub fn callers(&self, target: &str, depth: u32) -> Result<EdgesAnswer> {
        self.walk(target, CALL_KINDS, depth, true)
    }

    /// What a target calls or instantiates, transitively to `depth`.
    pub fn callees(&self, target: &str, depth: u32) -> Result<EdgesAnswer> {
        self.walk(target, CALL_KINDS, depth, false)
    }

    /// The id of an indexed file.
    pub(crate) fn file_id(&self, path: &str) -> Result<i64> {
        self.conn
            .prepare_cached("SELECT id FROM files WHERE path = ?1")
            .and_then(|mut s| s.query_row([path], |r| r.get(0)).optional())
            .map_err(|e| self.db_err(e))?
            .ok_or_else(|| Error::NotFound(path.to_string()))
    }

    fn file_edges_grouped(&self, file: &str, outgoing: bool) -> Result<DepsAnswer> {
        let id = self.file_id(file)?;
        let (lo, hi) = ckg_core::store::edge_ids(id);
        let sql = if outgoing {
            // The file's edges are one range of ids.
            "SELECT coalesce(df.path, dst.qname), dst.file_id IS NULL, e.kind, count(*)
             FROM edges e JOIN symbols dst ON dst.id = e.dst_id
             LEFT JOIN files df ON df.id = dst.file_id
             WHERE e.id BETWEEN ?2 AND ?3 AND (dst.file_id IS NULL OR dst.file_id != ?1)
             GROUP BY 1, 2, 3"
        } else {
            "SELECT f.path, 0, e.kind, count(*)
             FROM symbols dst JOIN edges e ON e.dst_id = dst.id JOIN files f ON f.id = e.file_id
             WHERE dst.file_id = ?1 AND e.file_id != ?1 AND ?2 <= ?3
             GROUP BY 1, 2, 3"
        };
        let mut s = self.conn.prepare_cached(sql).map_err(|e| self.db_err(e))?;
        let rows = s
            .query_map(rusqlite::params![id, lo, hi], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, bool>(1)?, r.get::<_, String>(2)?, r.get::<_, i64>(3)?))
            })
            .map_err(|e| self.db_err(e))?;
        let mut grouped: BTreeMap<(String, bool), (u64, std::collections::BTreeSet<String>)> = BTreeMap::new();
        for r in rows {
            let (target, external, kind, n) = r.map_err(|e| self.db_err(e))?;
            let target = if external { package_of(&target) } else { target };
            let entry = grouped.entry((target, external)).or_default();
            entry.0 += n as u64;
            entry.1.insert(kind);
        }
        let deps = grouped
            .into_iter()
            .map(|((target, external), (edges, kinds))| Dep { target, external, edges, kinds: kinds.into_iter().collect() })
            .collect();
        Ok(DepsAnswer { file: file.to_string(), generation: self.generation, deps, next_page_token: None })
    }

    /// What a file depends on: other files and external packages, with edge counts.
    pub fn deps(&self, file: &str) -> Result<DepsAnswer> {
        self.file_edges_grouped(file, true)
    }

    /// Which files depend on a file.
    pub fn rdeps(&self, file: &str) -> Result<DepsAnswer> {
        self.file_edges_grouped(file, false)
    }

    /// Why `from` depends on `to`: the shortest chain of edges (any kind) from one to the other.
    pub fn path(&self, from: &str, to: &str, max_depth: u32) -> Result<PathAnswer> {
        check_depth(max_depth)?;
        let sources = self.resolve_target(from)?;
        let goals: HashSet<i64> = self.resolve_target(to)?.into_iter().collect();
        let mut parent: HashMap<i64, Option<(i64, Edge)>> = sources.iter().map(|&s| (s, None)).collect();
        let mut queue: VecDeque<(i64, u32)> = sources.iter().map(|&s| (s, 0)).collect();
        let mut found = None;
        'search: while let Some((id, d)) = queue.pop_front() {
            if goals.contains(&id) {
                found = Some(id);
                break;
            }
            if d >= max_depth {
                continue;
            }
            for hit in self.outbound(id)? {
                if hit.id == 0 || parent.contains_key(&hit.id) {
                    continue;
                }
                parent.insert(hit.id, Some((id, hit.edge)));
                if goals.contains(&hit.id) {
                    found = Some(hit.id);
                    break 'search;
                }
                queue.push_back((hit.id, d + 1));
            }
        }
        let mut edges = Vec::new();
        let mut cur = found;
        while let Some(c) = cur {
            match parent.get(&c) {
                Some(Some((p, edge))) => {
                    edges.push(edge.clone());
                    cur = Some(*p);
                }
                _ => break,
            }
        }
        edges.reverse();
        Ok(PathAnswer { from: from.to_string(), to: to.to_string(), generation: self.generation, edges })
    }

    /// Import cycles between files and call cycles between symbols.
    pub fn cycles(&self) -> Result<CyclesAnswer> {
        let imports = self.sccs(
            "SELECT f.path, df.path FROM edges e JOIN files f ON f.id = e.file_id JOIN symbols dst ON dst.id = e.dst_id
             JOIN files df ON df.id = dst.file_id WHERE e.kind = 'imports'",
        )?;
        let calls = self.sccs(
            "SELECT src.qname, dst.qname FROM edges e JOIN symbols src ON src.id = e.src_id JOIN symbols dst ON dst.id = e.dst_id
             WHERE e.kind = 'calls' AND dst.file_id IS NOT NULL",
        )?;
        Ok(CyclesAnswer { generation: self.generation, imports, calls, next_page_token: None })
    }

    fn sccs(&self, sql: &str) -> Result<Vec<Vec<String>>> {
        let mut s = self.conn.prepare_cached(sql).map_err(|e| self.db_err(e))?;
        let rows = s.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))).map_err(|e| self.db_err(e))?;
        let edges = rows.collect::<rusqlite::Result<Vec<_>>>().map_err(|e| self.db_err(e))?;
        Ok(cycles_of(edges))
    }

    /// Definitions nothing points to. Modules, externals, methods that the runtime calls
    /// (`__init__`, `constructor`, dunders) and, unless asked, exported API are left out.
    pub fn unused(&self, opts: &UnusedOptions) -> Result<UnusedAnswer> {
        let globs = entry_globs(&opts.entry_globs)?;
        let mut s = self
            .conn
            .prepare_cached(
                "SELECT s.qname, s.kind, f.path, s.line, s.exported, s.name, s.col FROM symbols s JOIN files f ON f.id = s.file_id
                 -- Attributes and properties are read through instances the graph often cannot name.
                 WHERE s.kind NOT IN ('module', 'external', 'property', 'attribute', 'type', 'interface', 'namespace')
                 AND NOT EXISTS (SELECT 1 FROM edges e WHERE e.dst_id = s.id AND e.src_id != s.id)
                 -- Interface members are implemented, not called directly.
                 AND NOT EXISTS (SELECT 1 FROM symbols p WHERE p.id = s.parent_id AND p.kind = 'interface')
                 ORDER BY f.path, s.line, s.qname",
            )
            .map_err(|e| self.db_err(e))?;
        let rows = s
            .query_map([], |r| {
                Ok((
                    Node {
                        qname: r.get(0)?,
                        kind: r.get(1)?,
                        file: r.get(2)?,
                        line: r.get::<_, i64>(3)? as u32,
                        col: r.get::<_, i64>(6)? as u32,
                    },
                    r.get::<_, bool>(4)?,
                    r.get::<_, String>(5)?,
                ))
            })
            .map_err(|e| self.db_err(e))?;
        let mut symbols = Vec::new();
        for r in rows {
            let (node, exported, name) = r.map_err(|e| self.db_err(e))?;
            if exported && !opts.include_exported {
                continue;
            }
            if name == "constructor" || (name.starts_with("__") && name.ends_with("__")) || name == "default" {
                continue;
            }
            let file = node.file.as_deref().unwrap_or("");
            if globs.is_match(file) {
                continue;
            }
            symbols.push(node);
        }
        Ok(UnusedAnswer { generation: self.generation, symbols, next_page_token: None })
    }
}

pub(crate) fn check_depth(depth: u32) -> Result<()> {
    if depth == 0 || depth > MAX_DEPTH {
        return Err(Error::Invalid(format!("depth must be between 1 and {MAX_DEPTH}, got {depth}")));
    }
    Ok(())
}

/// The package of an external qname: `@scope/pkg/sub.x` -> `@scope/pkg`, `os.path.join` ->
/// `os`, `express().use` -> `express`, `<builtin>.len` -> `<builtin>`.
pub fn package_of(qname: &str) -> String {
    let head = qname.split(['.', '(']).next().unwrap_or(qname);
    let mut parts = head.split('/');
    match (parts.next(), parts.next()) {
        (Some(scope), Some(name)) if scope.starts_with('@') => format!("{scope}/{name}"),
        (Some(first), _) => first.to_string(),
        _ => head.to_string(),
    }
}

/// Compiles entry-point globs: `*` stays within a path segment, `**` crosses segments.
fn entry_globs(patterns: &[String]) -> Result<globset::GlobSet> {
    let mut set = globset::GlobSetBuilder::new();
    for p in patterns {
        let glob =
            globset::GlobBuilder::new(p).literal_separator(true).build().map_err(|e| Error::Invalid(format!("invalid glob {p:?}: {e}")))?;
        set.add(glob);
    }
    set.build().map_err(|e| Error::Invalid(format!("invalid globs: {e}")))
}

/// The cycles of a directed graph given by its edges: each strongly connected component of
/// more than one node, or of one node with an edge to itself, its names sorted. Found without
/// recursion (Kosaraju's two passes, each with a stack of its own): a chain of a hundred
/// thousand calls overflowed the stack of a recursive search.
fn cycles_of(edges: Vec<(String, String)>) -> Vec<Vec<String>> {
    let mut graph: DiGraph<String, ()> = DiGraph::new();
    let mut index: HashMap<String, NodeIndex> = HashMap::new();
    let mut self_loops: HashSet<NodeIndex> = HashSet::new();
    for (a, b) in edges {
        let ia = *index.entry(a.clone()).or_insert_with(|| graph.add_node(a));
        let ib = *index.entry(b.clone()).or_insert_with(|| graph.add_node(b));
        if ia == ib {
            self_loops.insert(ia);
        } else {
            graph.update_edge(ia, ib, ());
        }
    }
    let mut out: Vec<Vec<String>> = petgraph::algo::kosaraju_scc(&graph)
        .into_iter()
        .filter(|c| c.len() > 1 || self_loops.contains(&c[0]))
        .map(|c| {
            let mut names: Vec<String> = c.into_iter().map(|i| graph[i].clone()).collect();
            names.sort();
            names
        })
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn cycles_of_a_long_chain_are_found_without_deep_recursion() {
        let name = |i: usize| format!("n{i}");
        let mut edges: Vec<(String, String)> = (0..300_000).map(|i| (name(i), name(i + 1))).collect();
        edges.push((name(300_000), name(299_990)));
        edges.push(("self".into(), "self".into()));
        edges.push(("a".into(), "b".into()));
        let cycles = super::cycles_of(edges);
        let mut tail: Vec<String> = (299_990..=300_000).map(name).collect();
        tail.sort();
        assert_eq!(cycles, vec![tail, vec!["self".to_string()]]);
    }

    use super::*;

    #[test]
    fn packages_of_external_qnames() {
        assert_eq!(package_of("express().use"), "express");
        assert_eq!(package_of("os.path.join"), "os");
        assert_eq!(package_of("@fastify/static"), "@fastify/static");
        assert_eq!(package_of("@scope/pkg/sub.x"), "@scope/pkg");
        assert_eq!(package_of("lodash/fp.map"), "lodash");
        assert_eq!(package_of("<builtin>.len"), "<builtin>");
    }

    /// A source's edges found through its file's range and `edges_remote_src` are exactly the
    /// edges whose source it is (a scan of every edge), for every symbol, after a fresh index
    /// and after updates: with edges a function makes through its parameters at its callers'
    /// sites (in other files), and with a qname two files define (one file's claim waits in
    /// `shadowed`), whose owner goes away and comes back.
    #[test]
    fn a_sources_edges_are_those_a_scan_finds() {
        let repo = crate::testing::TestRepo::new();
        repo.write("pkg/util.py", "def apply(obj, key):\n    obj.save()\n    return obj.render(key)\n");
        repo.write("pkg/models.py", "class Item:\n    def save(self):\n        pass\n    def render(self, key):\n        return key\n");
        repo.write("pkg/views.py", "from pkg.util import apply\nfrom pkg.models import Item\n\ndef show():\n    return apply(Item(), 1)\n");
        // `pkg.helper` is a function of the package and the module `pkg/helper.py`, which owns
        // the name (its path sorts last).
        repo.write("pkg/__init__.py", "def helper():\n    return other()\n\n\ndef other():\n    return helper()\n");
        repo.write("pkg/helper.py", "X = 1\n\n\ndef inner():\n    return X\n");
        let check = |when: &str| {
            let ix = repo.open();
            let count = |sql: &str| ix.conn.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap();
            let ids: Vec<i64> =
                ix.conn.prepare("SELECT id FROM symbols").unwrap().query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect();
            let scan = format!("{EDGE_SELECT} WHERE e.src_id = ?1 {OUTBOUND_ORDER}");
            let mut found = 0;
            for id in ids {
                let dump = |hits: Vec<Hit>| hits.into_iter().map(|h| format!("{} {:?}", h.id, h.edge)).collect::<Vec<_>>();
                let (got, want) = (dump(ix.outbound(id).unwrap()), dump(ix.walk_step(&scan, id, false).unwrap()));
                assert_eq!(got, want, "{when}: the edges from symbol {id}");
                found += got.len() as i64;
            }
            assert_eq!(found, count("SELECT count(*) FROM edge_rows"), "{when}: every edge has a source");
            (count("SELECT count(*) FROM edge_rows WHERE remote_src = 1"), count("SELECT count(*) FROM shadowed"))
        };
        let mut session = ckg_core::index::Session::default();
        repo.index(&mut session);
        let (remote, shadowed) = check("fresh");
        assert!(remote > 0 && shadowed > 0, "the fixture has remote sources ({remote}) and a shadowed qname ({shadowed})");
        let edits: [&dyn Fn(&crate::testing::TestRepo); 6] = [
            &|r| r.write("pkg/__init__.py", "def helper():\n    return other() + 1\n\n\ndef other():\n    return helper()\n"),
            &|r| r.remove("pkg/helper.py"),
            &|r| r.write("pkg/helper.py", "X = 2\n\n\ndef inner():\n    return helper()\n"),
            &|r| r.write("pkg/util.py", "def apply(obj, key):\n    return obj.render(key) or obj.save()\n"),
            &|r| r.write("pkg/views.py", "from pkg.util import apply\nfrom pkg.models import Item\n\ndef show():\n    return 0\n"),
            &|r| r.write("pkg/__init__.py", "def other():\n    return 0\n"),
        ];
        for (n, edit) in edits.iter().enumerate() {
            repo.edit_and_index(&mut session, edit);
            check(&format!("edit {n}"));
        }
    }

    #[test]
    fn globs() {
        let m = |p: &str, t: &str| entry_globs(&[p.to_string()]).unwrap().is_match(t);
        assert!(m("tests/**", "tests/a/b.py"));
        assert!(m("**/*.test.ts", "src/x/y.test.ts"));
        assert!(m("**/*.test.ts", "y.test.ts"));
        assert!(m("src/*.ts", "src/a.ts"));
        assert!(!m("src/*.ts", "src/a/b.ts"));
        assert!(!m("tests/**", "src/tests/a.py"));
    }
}
