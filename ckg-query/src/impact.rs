//! `impact TARGET`: the transitive reverse dependencies of a symbol, a file or an external
//! package, grouped by file, each with the chain of edges that makes it impacted, and the
//! completeness of the answer.

use std::collections::{BTreeMap, HashSet, VecDeque};

// The walk's maps and sets: keyed by ids and strings of this process, so a fast hasher.
use ckg_core::resolve::{Map, Set};

use schemars::JsonSchema;
use serde::Serialize;

use crate::graph::{MAX_RESULTS, check_depth};
use crate::{Edge, Error, Index, Node, Result};

/// Evidence tiers, strongest first.
pub const EVIDENCE_TIERS: &[&str] = &["exact", "inferred", "heuristic", "unresolved"];

/// Options for an impact query.
#[derive(Clone, Debug)]
pub struct ImpactOptions {
    /// How many edges away from the target to go (1 = direct users only).
    pub depth: u32,
    /// Weakest evidence followed: `exact`, `inferred`, `heuristic` or `unresolved`.
    pub min_evidence: String,
    /// Edge kinds followed; empty means all.
    pub kinds: Vec<String>,
    /// At most this many gap sites are listed (all are counted).
    pub max_gaps: usize,
}

impl Default for ImpactOptions {
    fn default() -> Self {
        ImpactOptions { depth: 3, min_evidence: "heuristic".into(), kinds: Vec::new(), max_gaps: 50 }
    }
}

pub(crate) fn evidence_rank(e: &str) -> u8 {
    match e {
        "exact" => 3,
        "inferred" => 2,
        "heuristic" => 1,
        _ => 0,
    }
}

/// An impacted file: the edges in it that touch the impact set, and the chain from the
/// target to its nearest impacted symbol.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ImpactFile {
    pub path: String,
    pub depth: u32,
    pub edges: Vec<Edge>,
    pub chain: Vec<Edge>,
}

/// A place that could hide more results.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Gap {
    pub kind: String,
    pub file: String,
    pub line: u32,
    pub detail: String,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Completeness {
    /// True when no gap could hide more results.
    pub complete: bool,
    pub counts: BTreeMap<String, u64>,
    pub gaps: Vec<Gap>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ImpactAnswer {
    pub target: String,
    pub generation: i64,
    pub roots: Vec<Node>,
    pub files: Vec<ImpactFile>,
    pub symbols: usize,
    pub completeness: Completeness,
    /// True when the walk stopped at the result cap ([`MAX_RESULTS`] edges).
    pub truncated: bool,
    /// Where the next page of files starts (paged answers only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
}

impl Index {
    /// Transitive reverse dependencies of a target.
    pub fn impact(&self, target: &str, opts: &ImpactOptions) -> Result<ImpactAnswer> {
        check_depth(opts.depth)?;
        if !EVIDENCE_TIERS.contains(&opts.min_evidence.as_str()) {
            return Err(Error::Invalid(format!("min_evidence must be one of {}, not {:?}", EVIDENCE_TIERS.join(", "), opts.min_evidence)));
        }
        if let Some(k) = opts.kinds.iter().find(|k| !crate::EDGE_KINDS.contains(&k.as_str())) {
            return Err(Error::Invalid(format!("unknown edge kind {k:?} (one of {})", crate::EDGE_KINDS.join(", "))));
        }
        let min = evidence_rank(&opts.min_evidence);
        let roots = self.resolve_target(target)?;
        // Every edge found lives once in `arena`; the walk and the files refer to it by index.
        let mut arena: Vec<Edge> = Vec::new();
        // Node -> (depth, the edge that reached it, the node it was reached from).
        let mut seen: Map<i64, (u32, Option<usize>, Option<i64>)> = Map::default();
        let mut queue: VecDeque<i64> = VecDeque::new();
        for &r in &roots {
            seen.insert(r, (0, None, None));
            queue.push_back(r);
        }
        let mut by_file: Map<String, Vec<(u32, usize, i64)>> = Map::default();
        let mut truncated = false;
        // Whether an imports edge into a node carries impact on: an import of a module or a
        // package does (its importer may use anything of it); an import of one definition
        // makes the importing file impacted, and its uses carry impact on through their own
        // edges, not every importer of the importing module.
        let mut module_like: Map<i64, bool> = Map::default();
        'walk: while let Some(id) = queue.pop_front() {
            let depth = seen[&id].0;
            if depth >= opts.depth {
                continue;
            }
            for hit in self.inbound(id)? {
                if evidence_rank(&hit.edge.evidence) < min || (!opts.kinds.is_empty() && !opts.kinds.contains(&hit.edge.kind)) {
                    continue;
                }
                if arena.len() == MAX_RESULTS {
                    truncated = true;
                    break 'walk;
                }
                let idx = arena.len();
                match by_file.get_mut(hit.edge.file.as_str()) {
                    Some(v) => v.push((depth + 1, idx, id)),
                    None => {
                        by_file.insert(hit.edge.file.clone(), vec![(depth + 1, idx, id)]);
                    }
                }
                let propagates = hit.edge.kind != "imports"
                    || match module_like.get(&id) {
                        Some(&m) => m,
                        None => {
                            let m = self.is_module_like(id)?;
                            module_like.insert(id, m);
                            m
                        }
                    };
                if let (true, std::collections::hash_map::Entry::Vacant(v)) = (propagates, seen.entry(hit.id)) {
                    v.insert((depth + 1, Some(idx), Some(id)));
                    queue.push_back(hit.id);
                }
                arena.push(hit.edge);
            }
        }
        // Per file: its edges in order (depth, line, column, kind), the chain from its
        // shallowest edge back to a root, and its edges without repeats.
        let mut grouped = Vec::with_capacity(by_file.len());
        for (path, mut entries) in by_file {
            entries.sort_by(|a, b| {
                let (ea, eb) = (&arena[a.1], &arena[b.1]);
                (a.0, ea.line, ea.col, &ea.kind).cmp(&(b.0, eb.line, eb.col, &eb.kind))
            });
            let mut chain = vec![arena[entries[0].1].clone()];
            let mut cur = Some(entries[0].2);
            let mut guard = 0;
            while let Some(c) = cur {
                match seen.get(&c) {
                    Some((_, Some(edge), parent)) if guard < 64 => {
                        chain.push(arena[*edge].clone());
                        cur = *parent;
                    }
                    _ => break,
                }
                guard += 1;
            }
            chain.reverse();
            let mut keys = Set::default();
            let unique: Vec<usize> = entries
                .iter()
                .map(|e| e.1)
                .filter(|&i| {
                    let e = &arena[i];
                    keys.insert((e.kind.as_str(), e.src.as_str(), e.dst.as_str(), e.line, e.col))
                })
                .collect();
            grouped.push((path, entries[0].0, chain, unique));
        }
        // Each edge belongs to one file: move it out of the arena.
        let mut files: Vec<ImpactFile> = grouped
            .into_iter()
            .map(|(path, depth, chain, unique)| {
                let edges = unique.into_iter().map(|i| std::mem::take(&mut arena[i])).collect();
                ImpactFile { path, depth, edges, chain }
            })
            .collect();
        files.sort_by(|a, b| (a.depth, &a.path).cmp(&(b.depth, &b.path)));
        let mut root_nodes = Vec::new();
        for r in &roots {
            if let Some(n) = self.node(*r)? {
                root_nodes.push(n);
            }
        }
        let names: HashSet<String> = root_nodes.iter().map(|n| ckg_core::store::last_name(&n.qname).to_string()).collect();
        let completeness = self.completeness(&names, opts.max_gaps)?;
        Ok(ImpactAnswer {
            target: target.to_string(),
            generation: self.generation,
            roots: root_nodes,
            symbols: seen.len() - roots.len(),
            files,
            completeness,
            truncated,
            next_page_token: None,
        })
    }

    /// Whether a node is a module or an external node (an import of it carries impact on).
    fn is_module_like(&self, id: i64) -> Result<bool> {
        if let Some(m) = self.graph.as_ref().and_then(|g| g.is_module_like(id)) {
            return Ok(m);
        }
        self.conn
            .prepare_cached("SELECT kind IN ('module', 'external') FROM symbols WHERE id = ?1")
            .and_then(|mut s| s.query_row([id], |r| r.get::<_, bool>(0)))
            .map_err(|e| self.db_err(e))
    }

    /// Sites (written name, file, line) selected by a query with at most one parameter.
    fn sites(&self, sql: &str, param: Option<&str>) -> Result<Vec<(String, String, u32)>> {
        let mut s = self.conn.prepare_cached(sql).map_err(|e| self.db_err(e))?;
        let params: Vec<&dyn rusqlite::ToSql> = param.iter().map(|p| p as &dyn rusqlite::ToSql).collect();
        let rows = s
            .query_map(params.as_slice(), |r| {
                Ok((r.get::<_, Option<String>>(0)?.unwrap_or_default(), r.get::<_, String>(1)?, r.get::<_, i64>(2)? as u32))
            })
            .map_err(|e| self.db_err(e))?;
        rows.collect::<rusqlite::Result<_>>().map_err(|e| self.db_err(e))
    }

    /// Gaps that could hide more results: dynamic sites, unresolved references whose written
    /// name ends in one of the target's names, files with syntax errors, skipped files.
    fn completeness(&self, names: &HashSet<String>, max: usize) -> Result<Completeness> {
        let mut gaps = Vec::new();
        let mut counts: BTreeMap<String, u64> = BTreeMap::new();
        let mut sites: Vec<(String, String, String, u32)> = Vec::new();
        // Computed callees (`handlers[name]()`, `getattr(o, n)()`) could reach anything;
        // extraction marks them (dynamic = 2).
        let computed = self.sites(
            "SELECT e.dst_name, f.path, e.line FROM edges e JOIN files f ON f.id = e.file_id
             WHERE e.dynamic = 2 AND e.kind != 'imports' ORDER BY f.path, e.line",
            None,
        )?;
        sites.extend(computed.into_iter().map(|(name, file, line)| ("dynamic_site".into(), name, file, line)));
        // Code that runs code: `eval`, `exec`, dynamic imports with a computed name.
        let runners = self.sites(
            "SELECT d.qname, f.path, e.line FROM edges e JOIN symbols d ON d.id = e.dst_id JOIN files f ON f.id = e.file_id
             WHERE d.qname IN ('<builtin>.eval', '<builtin>.exec', '<builtin>.__import__', 'importlib.import_module') AND e.kind = 'calls'
             ORDER BY f.path, e.line",
            None,
        )?;
        sites.extend(runners.into_iter().map(|(name, file, line)| ("dynamic_site".into(), format!("{name}(...)"), file, line)));
        // Unresolved sites whose last name is one of the target's names could be it.
        let mut sorted: Vec<&String> = names.iter().collect();
        sorted.sort();
        for n in sorted {
            let same = self.sites(
                "SELECT e.dst_name, f.path, e.line FROM edges e JOIN files f ON f.id = e.file_id
                 WHERE e.dst_id IS NULL AND e.dst_last = ?1 AND e.kind != 'imports' ORDER BY f.path, e.line",
                Some(n),
            )?;
            sites.extend(same.into_iter().map(|(name, file, line)| ("unresolved_same_name".into(), name, file, line)));
            // Monkey-patching (`mod.func = fake`) of something with one of the target's
            // names: callers bound statically may run something else.
            let patched = self.sites(
                "SELECT coalesce(d.qname, e.dst_name), f.path, e.line FROM edges e JOIN files f ON f.id = e.file_id
                 LEFT JOIN symbols d ON d.id = e.dst_id
                 WHERE e.dynamic = 3 AND (d.name = ?1 OR e.dst_last = ?1) ORDER BY f.path, e.line",
                Some(n),
            )?;
            sites.extend(patched.into_iter().map(|(name, file, line)| ("monkey_patch".into(), format!("{name} rebound"), file, line)));
        }
        sites.sort_by(|a, b| (&a.2, a.3, &a.0, &a.1).cmp(&(&b.2, b.3, &b.0, &b.1)));
        for (kind, name, file, line) in sites {
            *counts.entry(kind.clone()).or_default() += 1;
            if gaps.len() < max {
                gaps.push(Gap { kind, file, line, detail: name });
            }
        }
        let mut s = self
            .conn
            .prepare_cached("SELECT path, parse_errors FROM files WHERE parse_errors > 0 ORDER BY path")
            .map_err(|e| self.db_err(e))?;
        let mut rows = s.query([]).map_err(|e| self.db_err(e))?;
        while let Some(r) = rows.next().map_err(|e| self.db_err(e))? {
            *counts.entry("parse_errors".into()).or_default() += 1;
            if gaps.len() < max {
                let n: i64 = r.get(1).map_err(|e| self.db_err(e))?;
                gaps.push(Gap {
                    kind: "parse_errors".into(),
                    file: r.get(0).map_err(|e| self.db_err(e))?,
                    line: 0,
                    detail: format!("{n} syntax error(s)"),
                });
            }
        }
        let mut s = self
            .conn
            .prepare_cached("SELECT path, kind, message FROM diagnostics WHERE kind NOT IN ('syntax_error', 'invalid_utf8') ORDER BY path")
            .map_err(|e| self.db_err(e))?;
        let mut rows = s.query([]).map_err(|e| self.db_err(e))?;
        while let Some(r) = rows.next().map_err(|e| self.db_err(e))? {
            *counts.entry("not_indexed".into()).or_default() += 1;
            if gaps.len() < max {
                let kind: String = r.get(1).map_err(|e| self.db_err(e))?;
                let msg: String = r.get(2).map_err(|e| self.db_err(e))?;
                gaps.push(Gap {
                    kind: "not_indexed".into(),
                    file: r.get(0).map_err(|e| self.db_err(e))?,
                    line: 0,
                    detail: format!("{kind}: {msg}"),
                });
            }
        }
        Ok(Completeness { complete: counts.is_empty(), counts, gaps })
    }
}
