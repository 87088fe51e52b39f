//! `ckg query …`: the query subcommands. Text for people (grouped by file, evidence marked),
//! `--format json` for machines, `dot`/`mermaid` to draw the graph.
//! Exit codes: 0 found, 1 nothing found, 2 error.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Result, bail};
use clap::{Args, Subcommand, ValueEnum};
use serde::Serialize;

use ckg_query::{DepthEdge, Edge, ImpactOptions, Index, UnusedOptions};

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
    Dot,
    Mermaid,
}

#[derive(Args, Debug)]
pub struct QueryArgs {
    /// Database file (default: found by walking up from the current directory).
    #[arg(long, global = true)]
    db: Option<PathBuf>,
    /// Output format: text, json, dot or mermaid (graph-shaped answers).
    #[arg(long, global = true, value_enum, default_value = "text")]
    format: Format,
    /// Shorthand for --format json.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    query: Query,
}

#[derive(Subcommand, Debug)]
enum Query {
    /// What is affected if TARGET changes: a qname, a bare name, a file, or an external
    /// package or member (`express`, `express.static`). Grouped by file, with the chain of
    /// edges that makes each file impacted, and completeness.
    Impact {
        target: String,
        /// How many edges away to follow (1 = direct users; 1..=64).
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=64))]
        depth: u32,
        /// Weakest evidence to follow: exact, inferred, heuristic, unresolved.
        #[arg(long, default_value = "heuristic")]
        min_evidence: String,
        /// Edge kinds to follow (repeatable; default all).
        #[arg(long = "kind")]
        kinds: Vec<String>,
    },
    /// Symbols whose name or qname matches a glob (`*Service`, `src/*#create*`) or contains
    /// the text.
    Symbols {
        pattern: String,
        /// Only this kind (function, method, class, interface, type, enum, variable, ...).
        #[arg(long)]
        kind: Option<String>,
        #[arg(long, default_value_t = 100)]
        limit: usize,
    },
    /// The definition at FILE:LINE:COL (1-based; the column counts UTF-8 bytes, like
    /// `rg --column`).
    Def { location: String },
    /// Every use of TARGET (all inbound edges).
    Refs { target: String },
    /// Who calls or instantiates TARGET, transitively to --depth.
    Callers {
        target: String,
        /// How many calls away (1..=64).
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
        depth: u32,
    },
    /// What TARGET calls or instantiates, transitively to --depth.
    Callees {
        target: String,
        /// How many calls away (1..=64).
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
        depth: u32,
    },
    /// What FILE depends on: files and external packages.
    Deps { file: String },
    /// Which files depend on FILE.
    Rdeps { file: String },
    /// Why A depends on B: the shortest chain of edges from A to B.
    Path {
        from: String,
        to: String,
        /// The longest chain looked for, in edges (1..=64).
        #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=64))]
        max_depth: u32,
    },
    /// Import cycles between files and call cycles (recursion) between symbols.
    Cycles,
    /// Definitions with no inbound edges.
    Unused {
        /// Also report exported definitions (public API is used from outside by default).
        #[arg(long)]
        include_exported: bool,
        /// Files whose definitions are entry points (glob, repeatable), e.g. 'tests/**'.
        #[arg(long = "entry")]
        entry: Vec<String>,
    },
    /// Framework roles: each application, router, middleware, route handler, error handler,
    /// static-file setup (Express), app factory, blueprint, route, request hook, error handler,
    /// CLI command, extension (Flask), and API uses, each with its registration and the edges
    /// that prove it; then look-alikes that nothing registers ("candidates").
    Roles {
        /// A shipped pack (express, flask) or a pack file (repeatable; default: every shipped
        /// framework pack).
        #[arg(long = "pack")]
        packs: Vec<String>,
        /// Only this role (repeatable).
        #[arg(long = "role")]
        roles: Vec<String>,
    },
    /// Run one read-only SQL statement against the index (tables: files, symbols, edges,
    /// refs, imports, exports, lookups, configs, diagnostics, meta; edges is a view of edge_rows).
    Sql {
        query: String,
        #[arg(long, default_value_t = 1000)]
        limit: usize,
        /// Stop the statement after this many milliseconds.
        #[arg(long, default_value_t = 5000)]
        timeout_ms: u64,
    },
}

impl Query {
    /// The query with its FILE and TARGET arguments as the index names files ([`as_indexed`]).
    fn with_paths_as_indexed(self, named: &dyn Fn(&str) -> String) -> Query {
        match self {
            Query::Impact { target, depth, min_evidence, kinds } => Query::Impact { target: named(&target), depth, min_evidence, kinds },
            Query::Def { location } => {
                let location = match location.rsplitn(3, ':').collect::<Vec<_>>().as_slice() {
                    [col, line, file] => format!("{}:{line}:{col}", named(file)),
                    _ => location,
                };
                Query::Def { location }
            }
            Query::Refs { target } => Query::Refs { target: named(&target) },
            Query::Callers { target, depth } => Query::Callers { target: named(&target), depth },
            Query::Callees { target, depth } => Query::Callees { target: named(&target), depth },
            Query::Deps { file } => Query::Deps { file: named(&file) },
            Query::Rdeps { file } => Query::Rdeps { file: named(&file) },
            Query::Path { from, to, max_depth } => Query::Path { from: named(&from), to: named(&to), max_depth },
            other => other,
        }
    }
}

/// A FILE or TARGET argument as the index names it: a file that exists, given relative to the
/// current directory or absolute (`./src/app.ts`, `app.ts` from `src/`, an editor's absolute
/// path), and lies inside the indexed root, becomes root-relative; in a qname
/// (`./src/app.ts#main`) its file part. Anything else (a name, a qname, a package, a
/// root-relative path) is kept as given.
fn as_indexed(root: &std::path::Path, arg: &str) -> String {
    let (file, member) = match arg.split_once('#') {
        Some((file, member)) => (file, Some(member)),
        None => (arg, None),
    };
    let path = std::path::Path::new(file);
    let relative = path.is_file().then(|| path.canonicalize().ok()).flatten().and_then(|abs| {
        abs.strip_prefix(root).ok().map(|rel| rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"))
    });
    match (relative, member) {
        (Some(rel), Some(member)) => format!("{rel}#{member}"),
        (Some(rel), None) => rel,
        (None, _) => arg.to_string(),
    }
}

/// Parses `FILE:LINE:COL` (the file may itself contain `:`).
fn parse_location(s: &str) -> Result<(String, u32, u32)> {
    let mut parts = s.rsplitn(3, ':');
    let (col, line, file) = (parts.next(), parts.next(), parts.next());
    let (Some(col), Some(line), Some(file)) = (col, line, file) else {
        bail!("expected FILE:LINE:COL, got {s:?}");
    };
    let line: u32 = line.parse().map_err(|_| anyhow::anyhow!("line must be a positive number in {s:?}"))?;
    let col: u32 = col.parse().map_err(|_| anyhow::anyhow!("column must be a positive number in {s:?}"))?;
    if line == 0 || col == 0 || file.is_empty() {
        bail!("expected FILE:LINE:COL with 1-based line and column, got {s:?}");
    }
    Ok((file.to_string(), line, col))
}

struct Out<'a> {
    w: std::io::StdoutLock<'a>,
    format: Format,
    stale: Option<ckg_query::Staleness>,
}

impl Out<'_> {
    fn json<T: Serialize>(&mut self, answer: &T) -> Result<()> {
        let mut v = serde_json::to_value(answer)?;
        if let (Some(obj), Some(stale)) = (v.as_object_mut(), &self.stale) {
            obj.insert("stale".into(), serde_json::to_value(stale)?);
        }
        serde_json::to_writer_pretty(&mut self.w, &v)?;
        writeln!(self.w)?;
        Ok(())
    }

    fn graph(&mut self, edges: &[&Edge]) -> Result<bool> {
        match self.format {
            Format::Dot => {
                writeln!(self.w, "digraph ckg {{\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];")?;
                for e in edges {
                    let style = if e.evidence == "exact" { "solid" } else { "dashed" };
                    writeln!(self.w, "  {:?} -> {:?} [label={:?}, style={style}];", e.src, e.dst, e.kind)?;
                }
                writeln!(self.w, "}}")?;
                Ok(true)
            }
            Format::Mermaid => {
                writeln!(self.w, "graph LR")?;
                let mut ids: BTreeMap<&str, usize> = BTreeMap::new();
                for e in edges {
                    let n = ids.len();
                    ids.entry(e.src.as_str()).or_insert(n);
                    let n = ids.len();
                    ids.entry(e.dst.as_str()).or_insert(n);
                }
                for (name, id) in &ids {
                    writeln!(self.w, "  n{id}[\"{}\"]", name.replace('"', "#quot;"))?;
                }
                for e in edges {
                    let arrow = if e.evidence == "exact" { "-->" } else { "-.->" };
                    writeln!(self.w, "  n{} {arrow}|{}| n{}", ids[e.src.as_str()], e.kind, ids[e.dst.as_str()])?;
                }
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    fn no_graph(&self, query: &str) -> Result<()> {
        if matches!(self.format, Format::Dot | Format::Mermaid) {
            bail!("--format {:?} is not available for `{query}` (use text or json)", self.format);
        }
        Ok(())
    }
}

fn code(found: bool) -> ExitCode {
    if found { ExitCode::SUCCESS } else { ExitCode::from(1) }
}

fn edge_line(e: &Edge) -> String {
    format!("{}:{}  {} {} -> {}  [{}]", e.line, e.col, e.src, e.kind, e.dst, e.evidence)
}

fn print_by_file(w: &mut dyn Write, edges: &[DepthEdge], show_depth: bool) -> Result<()> {
    let mut by_file: BTreeMap<&str, Vec<&DepthEdge>> = BTreeMap::new();
    for e in edges {
        by_file.entry(e.edge.file.as_str()).or_default().push(e);
    }
    for (file, es) in by_file {
        writeln!(w, "{file}")?;
        for e in es {
            let depth = if show_depth { format!("  (depth {})", e.depth) } else { String::new() };
            writeln!(w, "  {}{depth}", edge_line(&e.edge))?;
        }
    }
    Ok(())
}

pub fn run(args: QueryArgs) -> Result<ExitCode> {
    let format = if args.json { Format::Json } else { args.format };
    let db = ckg_query::locate_db(args.db.as_deref())?;
    let index = Index::open(&db)?;
    let stale = index.staleness().ok().filter(|s| s.stale);
    if let (Some(s), Format::Text) = (&stale, format) {
        eprintln!("ckg: warning: the index (generation {}) is stale: {} since; run `ckg index`", index.generation, s.summary());
    }
    let mut out = Out { w: std::io::stdout().lock(), format, stale };
    let root = index.root().and_then(|r| std::path::Path::new(&r).canonicalize().ok());
    let named = |arg: &str| match &root {
        Some(root) => as_indexed(root, arg),
        None => arg.to_string(),
    };
    match args.query.with_paths_as_indexed(&named) {
        Query::Impact { target, depth, min_evidence, kinds } => {
            if !matches!(min_evidence.as_str(), "exact" | "inferred" | "heuristic" | "unresolved") {
                bail!("--min-evidence must be exact, inferred, heuristic or unresolved, not {min_evidence:?}");
            }
            let a = index.impact(&target, &ImpactOptions { depth, min_evidence, kinds, ..ImpactOptions::default() })?;
            let edges: Vec<&Edge> = a.files.iter().flat_map(|f| f.edges.iter()).collect();
            if format == Format::Json {
                out.json(&a)?;
            } else if !out.graph(&edges)? {
                let w = &mut out.w;
                writeln!(w, "impact of {} (generation {}): {} file(s), {} symbol(s)", target, a.generation, a.files.len(), a.symbols)?;
                if a.roots.len() > 1 {
                    let roots: Vec<&str> = a.roots.iter().map(|n| n.qname.as_str()).collect();
                    writeln!(w, "  target nodes: {}", roots.join(", "))?;
                }
                for f in &a.files {
                    writeln!(w, "{} [depth {}]", f.path, f.depth)?;
                    if f.chain.len() > 1 {
                        for (i, e) in f.chain.iter().enumerate() {
                            writeln!(w, "  {}└─ {} {} {} [{}]", "   ".repeat(i), e.src, e.kind, e.dst, e.evidence)?;
                        }
                    }
                    for e in &f.edges {
                        writeln!(w, "  {}", edge_line(e))?;
                    }
                }
                let c = &a.completeness;
                if c.complete {
                    writeln!(w, "complete: no gaps")?;
                } else {
                    let counts: Vec<String> = c.counts.iter().map(|(k, v)| format!("{k} {v}")).collect();
                    writeln!(w, "incomplete: {}", counts.join(", "))?;
                    for g in c.gaps.iter().take(10) {
                        writeln!(w, "  {}:{} {} {}", g.file, g.line, g.kind, g.detail)?;
                    }
                }
            }
            Ok(code(!a.files.is_empty()))
        }
        Query::Symbols { pattern, kind, limit } => {
            out.no_graph("symbols")?;
            let a = index.symbols(&pattern, kind.as_deref(), limit)?;
            if format == Format::Json {
                out.json(&a)?;
            } else {
                for n in &a.symbols {
                    writeln!(out.w, "{}  {}  {}:{}", n.kind, n.qname, n.file.as_deref().unwrap_or("<external>"), n.line)?;
                }
                if a.truncated {
                    writeln!(out.w, "... (more symbols; raise --limit)")?;
                }
                if a.symbols.is_empty() {
                    eprintln!("ckg: no symbol matches {pattern:?}; try a wider glob such as \"*{pattern}*\"");
                }
            }
            Ok(code(!a.symbols.is_empty()))
        }
        Query::Def { location } => {
            out.no_graph("def")?;
            let (file, line, col) = parse_location(&location)?;
            let a = index.def_at(&file, line, col)?;
            let d = &a.definition;
            if format == Format::Json {
                out.json(&a)?;
            } else if let Some(d) = d {
                let n = &d.node;
                match &n.file {
                    Some(f) if matches!(n.kind.as_str(), "local" | "parameter") => {
                        writeln!(out.w, "{} ({}) {f}:{}:{}", n.qname, n.kind, n.line, n.col)?
                    }
                    Some(f) => writeln!(out.w, "{} ({}) {f}:{}", n.qname, n.kind, n.line)?,
                    None => writeln!(out.w, "{} ({})", n.qname, n.kind)?,
                }
                if let Some(e) = &d.via {
                    writeln!(out.w, "  via {}", edge_line(e))?;
                }
                for h in &d.hops {
                    writeln!(out.w, "  through {}:{}:{}", h.file, h.line, h.col)?;
                }
                if a.file_changed {
                    writeln!(out.w, "  (the file changed since it was indexed; answered from its current content)")?;
                }
            } else {
                writeln!(out.w, "nothing defined or used at {location}")?;
            }
            Ok(code(d.is_some()))
        }
        Query::Refs { target } => edges_answer(&mut out, index.refs(&target)?, "refs", false),
        Query::Callers { target, depth } => edges_answer(&mut out, index.callers(&target, depth)?, "callers", true),
        Query::Callees { target, depth } => edges_answer(&mut out, index.callees(&target, depth)?, "callees", true),
        Query::Deps { file } => deps_answer(&mut out, index.deps(&file)?, "depends on"),
        Query::Rdeps { file } => deps_answer(&mut out, index.rdeps(&file)?, "is depended on by"),
        Query::Path { from, to, max_depth } => {
            let a = index.path(&from, &to, max_depth)?;
            let edges: Vec<&Edge> = a.edges.iter().collect();
            if format == Format::Json {
                out.json(&a)?;
            } else if !out.graph(&edges)? {
                if a.edges.is_empty() {
                    writeln!(out.w, "no path from {from} to {to} (within {max_depth} edges)")?;
                } else {
                    writeln!(out.w, "{}", a.edges[0].src)?;
                    for (i, e) in a.edges.iter().enumerate() {
                        writeln!(out.w, "{}└─{}→ {}  ({}:{}:{}, {})", "  ".repeat(i), e.kind, e.dst, e.file, e.line, e.col, e.evidence)?;
                    }
                }
            }
            Ok(code(!a.edges.is_empty()))
        }
        Query::Cycles => {
            out.no_graph("cycles")?;
            let a = index.cycles()?;
            if format == Format::Json {
                out.json(&a)?;
            } else {
                writeln!(out.w, "import cycles: {}", a.imports.len())?;
                for c in &a.imports {
                    writeln!(out.w, "  {}", c.join(" <-> "))?;
                }
                writeln!(out.w, "call cycles: {}", a.calls.len())?;
                for c in &a.calls {
                    writeln!(out.w, "  {}", c.join(" <-> "))?;
                }
            }
            Ok(code(!a.imports.is_empty() || !a.calls.is_empty()))
        }
        Query::Unused { include_exported, entry } => {
            out.no_graph("unused")?;
            let a = index.unused(&UnusedOptions { include_exported, entry_globs: entry })?;
            if format == Format::Json {
                out.json(&a)?;
            } else {
                for n in &a.symbols {
                    writeln!(out.w, "{}  {}  {}:{}", n.kind, n.qname, n.file.as_deref().unwrap_or(""), n.line)?;
                }
            }
            Ok(code(!a.symbols.is_empty()))
        }
        Query::Roles { packs, roles } => {
            out.no_graph("roles")?;
            let a = crate::agent::roles(&index, &packs, roles)?;
            if format == Format::Json {
                out.json(&a)?;
            } else {
                crate::agent::print_roles(&mut out.w, &a)?;
            }
            Ok(code(!a.roles.is_empty()))
        }
        Query::Sql { query, limit, timeout_ms } => {
            out.no_graph("sql")?;
            let a = index.sql(&query, limit, Duration::from_millis(timeout_ms))?;
            if format == Format::Json {
                out.json(&a)?;
            } else {
                writeln!(out.w, "{}", a.columns.join("\t"))?;
                for row in &a.rows {
                    let cells: Vec<String> = row.iter().map(|v| v.as_str().map(String::from).unwrap_or_else(|| v.to_string())).collect();
                    writeln!(out.w, "{}", cells.join("\t"))?;
                }
                if a.truncated {
                    writeln!(out.w, "... (more rows; raise --limit)")?;
                }
            }
            Ok(code(!a.rows.is_empty()))
        }
    }
}

fn edges_answer(out: &mut Out, a: ckg_query::EdgesAnswer, what: &str, show_depth: bool) -> Result<ExitCode> {
    let edges: Vec<&Edge> = a.edges.iter().map(|e| &e.edge).collect();
    if out.format == Format::Json {
        out.json(&a)?;
    } else if !out.graph(&edges)? {
        let files: std::collections::BTreeSet<&str> = a.edges.iter().map(|e| e.edge.file.as_str()).collect();
        writeln!(out.w, "{what} of {} (generation {}): {} edge(s) in {} file(s)", a.target, a.generation, a.edges.len(), files.len())?;
        print_by_file(&mut out.w, &a.edges, show_depth)?;
    }
    Ok(code(!a.edges.is_empty()))
}

fn deps_answer(out: &mut Out, a: ckg_query::DepsAnswer, verb: &str) -> Result<ExitCode> {
    if out.format == Format::Json {
        out.json(&a)?;
    } else if matches!(out.format, Format::Dot | Format::Mermaid) {
        let edges: Vec<Edge> = a
            .deps
            .iter()
            .map(|d| {
                let (src, dst) = if verb == "depends on" { (a.file.clone(), d.target.clone()) } else { (d.target.clone(), a.file.clone()) };
                Edge { kind: d.kinds.join(","), src, dst, file: a.file.clone(), line: 0, col: 0, evidence: "exact".into() }
            })
            .collect();
        let refs: Vec<&Edge> = edges.iter().collect();
        out.graph(&refs)?;
    } else {
        writeln!(out.w, "{} {verb} {} file(s)/package(s) (generation {})", a.file, a.deps.len(), a.generation)?;
        for d in &a.deps {
            let what = if d.external { "package" } else { "file" };
            writeln!(out.w, "  {}  [{what}] {} edge(s): {}", d.target, d.edges, d.kinds.join(", "))?;
        }
    }
    Ok(code(!a.deps.is_empty()))
}
