//! `ckg mcp`: the Model Context Protocol server, over stdio and (mounted by `ckg serve`) over
//! Streamable HTTP at `/mcp`. A thin adapter: each tool asks ckg-query or ckg-agent and
//! returns the same answer type the CLI's `--json` prints, as `structuredContent`, with a
//! short text rendering for models that read text.
//!
//! Few tools are listed (search, definition, references, impact, dependencies, status), in
//! the same order for every client; the others (cycles, unused, roles, check, plan_status)
//! are callable by name. Fixable input (an unknown or ambiguous name, a position outside the
//! file, a cursor from an older generation) is a tool result with `isError` and a message
//! that says what to do next; only malformed requests are protocol errors.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use anyhow::Result;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, InitializeResult, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use ckg_query::{Index, PageRequest};

/// `ckg mcp` arguments.
#[derive(clap::Args, Debug)]
pub struct McpArgs {
    /// Repository root (default: the current directory).
    #[arg(default_value = ".")]
    root: PathBuf,
    /// Database file (default: ROOT/.ckg/index.db).
    #[arg(long)]
    db: Option<PathBuf>,
}

/// Where the index is, and whether it is being built.
pub struct Ckg {
    root: PathBuf,
    db: PathBuf,
    indexing: Arc<Mutex<Indexing>>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(tag = "state", rename_all = "snake_case")]
enum Indexing {
    /// An index is there.
    Ready,
    /// No index yet, and this server is not building one (`ckg serve` builds its first index
    /// while it serves; `ckg index` builds one).
    Missing,
    /// The first index is being built in the background.
    Running {
        files_done: usize,
        files_total: usize,
        seconds: f64,
    },
    Failed {
        error: String,
    },
}

const INSTRUCTIONS: &str = "ckg is a code knowledge graph of this repository (TypeScript/JavaScript and Python): definitions, imports, calls, references and inheritance, each edge with its site and an evidence tier (exact, inferred, heuristic, unresolved). Start with `search` to find a symbol's qname, `definition` for a position or qname, `references` for its users, `impact` before changing it, `dependencies` for files. Also callable: cycles, unused, roles (framework roles), check (migration rules, e.g. pack=express-to-fastify), plan_status.";

impl Ckg {
    pub fn new(root: PathBuf, db: PathBuf) -> Ckg {
        let ready = db.exists();
        Ckg { root, db, indexing: Arc::new(Mutex::new(if ready { Indexing::Ready } else { Indexing::Missing })) }
    }

    /// Starts indexing in the background when there is no index (never blocks start-up).
    pub fn start_indexing_if_missing(&self) {
        if self.db.exists() {
            return;
        }
        let (root, state) = (self.root.clone(), Arc::clone(&self.indexing));
        *state.lock().unwrap() = Indexing::Running { files_done: 0, files_total: 0, seconds: 0.0 };
        let started = Instant::now();
        std::thread::spawn(move || {
            let config = ckg_core::index::IndexConfig::new(&root);
            let progress = |p: ckg_core::index::Progress| {
                if let ckg_core::index::Progress::Parsed { done, total } = p {
                    *state.lock().unwrap() =
                        Indexing::Running { files_done: done, files_total: total, seconds: started.elapsed().as_secs_f64() };
                }
            };
            let result = ckg_core::index::index(&config, &progress);
            *state.lock().unwrap() = match result {
                Ok(_) => Indexing::Ready,
                Err(e) => Indexing::Failed { error: e.to_string() },
            };
        });
    }

    /// The indexing state now: an index another process made since is ready.
    fn state(&self) -> Indexing {
        let mut state = self.indexing.lock().unwrap();
        if matches!(*state, Indexing::Missing) && self.db.exists() {
            *state = Indexing::Ready;
        }
        state.clone()
    }

    fn open(&self) -> Result<Index, String> {
        match self.state() {
            Indexing::Running { files_done, files_total, .. } => {
                return Err(format!(
                    "ckg is indexing {} in the background ({files_done}/{files_total} files parsed); call `status` to follow it and try again when it is ready",
                    self.root.display()
                ));
            }
            Indexing::Failed { error } => return Err(format!("indexing failed: {error}")),
            Indexing::Missing => {
                return Err(format!(
                    "no index of {} yet: it is being built (`ckg serve` builds its first index at start-up) or `ckg index` builds it; call `status` to follow",
                    self.root.display()
                ));
            }
            Indexing::Ready => {}
        }
        Index::open(&self.db).map_err(|e| e.to_string())
    }

    /// A file named by a client, as the index names it; never one outside the repository.
    fn file(&self, value: &str) -> Result<String, String> {
        ckg_query::paths::confine(&self.root, value).map_err(|e| format!("{e}; give a path relative to the repository root"))
    }

    /// A target named by a client; a path-like one as [`Ckg::file`].
    fn target(&self, value: &str) -> Result<String, String> {
        ckg_query::paths::confine_target(&self.root, value).map_err(|e| format!("{e}; give a path relative to the repository root"))
    }
}

/// Shipped packs only: a client of the server reads no file of the machine through a pack's
/// path.
fn shipped_packs(names: &[String]) -> Result<Vec<ckg_agent::Pack>, String> {
    ckg_agent::Pack::load_all(names, ckg_agent::FRAMEWORK_PACKS, ckg_agent::PackFiles::Refused).map_err(|e| e.to_string())
}

// ---- tool inputs ---------------------------------------------------------------------------

/// Paging shared by list answers.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
struct Page {
    /// At most this many items (1..=1000, default 100).
    limit: Option<usize>,
    /// The `next_page_token` of a previous answer to the same call, for the next page.
    cursor: Option<String>,
}

#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SearchInput {
    /// A glob over names and qnames (`*Service`, `src/app.ts#create*`, `pkg.mod.*`), or text they contain.
    pattern: String,
    /// Only this kind: function, method, class, interface, type, enum, variable, constant, attribute, property, module, namespace.
    kind: Option<String>,
    #[serde(flatten)]
    page: Page,
}

#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct DefinitionInput {
    /// A file relative to the repository root (with `line` and `col`).
    file: Option<String>,
    /// 1-based line.
    line: Option<u32>,
    /// 1-based column in UTF-8 bytes.
    col: Option<u32>,
    /// Or a qname (`src/app.ts#createApp`, `pkg.mod.Class.method`) instead of a position.
    qname: Option<String>,
}

#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ReferencesInput {
    /// A qname, a bare name, a file, or an external package or member (`express.static`).
    target: String,
    /// `refs` (every inbound edge, default), `callers` or `callees`.
    direction: Option<String>,
    /// For callers/callees: how many calls away (1..=64, default 1).
    depth: Option<u32>,
    #[serde(flatten)]
    page: Page,
}

#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ImpactInput {
    /// What would change: a qname, a bare name, a file, or an external package or member.
    target: String,
    /// How many edges away (1..=64, default 3).
    depth: Option<u32>,
    /// Weakest evidence followed: exact, inferred, heuristic (default), unresolved.
    min_evidence: Option<String>,
    /// Edge kinds followed (default all): imports, calls, instantiates, references, writes, inherits, implements, exports.
    kinds: Option<Vec<String>>,
    #[serde(flatten)]
    page: Page,
}

#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct DependenciesInput {
    /// `deps` (what a file depends on, default), `rdeps` (what depends on it) or `path` (why `from` depends on `to`).
    direction: Option<String>,
    /// For deps/rdeps: a file relative to the repository root.
    file: Option<String>,
    /// For path: where the chain starts (qname, name or file).
    from: Option<String>,
    /// For path: where it ends.
    to: Option<String>,
    #[serde(flatten)]
    page: Page,
}

#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NoInput {}

/// Only paging (cycles, unused).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PageInput {
    #[serde(flatten)]
    page: Page,
}

#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PackInput {
    /// A shipped pack (express, flask; express-to-fastify, flask-to-fastapi).
    pack: Option<String>,
    /// For check: only what these files affect.
    files: Option<Vec<String>>,
}

// ---- tool outputs that compose query answers ------------------------------------------------

/// `definition`: the definition, with its signature, doc comment and source range.
#[derive(Clone, Debug, Serialize, JsonSchema)]
struct DefinitionOutput {
    generation: i64,
    definition: Option<ckg_query::Definition>,
    /// The definition's first line(s), up to its body.
    signature: Option<String>,
    /// The doc comment or docstring, when it has one.
    doc: Option<String>,
    /// 1-based first and last line of the definition.
    start_line: Option<u32>,
    end_line: Option<u32>,
}

/// `dependencies`: a file's dependencies or dependents, or the chain between two targets.
#[derive(Clone, Debug, Serialize, JsonSchema)]
struct DependenciesOutput {
    direction: String,
    deps: Option<ckg_query::DepsAnswer>,
    path: Option<ckg_query::PathAnswer>,
}

/// `status`: the index and its indexing state.
#[derive(Clone, Debug, Serialize, JsonSchema)]
struct StatusOutput {
    indexing: Indexing,
    status: Option<ckg_query::Status>,
}

// ---- the tool table -----------------------------------------------------------------------

struct ToolSpec {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    input: fn() -> Value,
    output: fn() -> Value,
    listed: bool,
}

fn schema<T: JsonSchema>() -> Value {
    serde_json::to_value(schemars::schema_for!(T)).expect("a schema serializes")
}

const TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "search",
        title: "Find symbols",
        description: "Find definitions by name: a glob over names and qualified names (`*Service`, `src/app.ts#create*`, `pkg.mod.*`) or text they contain, optionally of one kind. Returns each symbol's qname, kind, file and line; use the qname with `definition`, `references` or `impact`.",
        input: schema::<SearchInput>,
        output: schema::<ckg_query::SymbolsAnswer>,
        listed: true,
    },
    ToolSpec {
        name: "definition",
        title: "Go to definition",
        description: "What the name at file:line:col refers to (any name: a call, a read, an import specifier, a local variable or parameter), or the symbol with a qname: its place, signature, doc comment and line range, and the import hops followed to reach it.",
        input: schema::<DefinitionInput>,
        output: schema::<DefinitionOutput>,
        listed: true,
    },
    ToolSpec {
        name: "references",
        title: "Find references, callers, callees",
        description: "Every use of a target (direction=refs: imports, calls, reads, writes, type uses, inheritance), or who calls it / what it calls (callers, callees) up to a depth. Each edge has its site (file:line:col) and evidence tier.",
        input: schema::<ReferencesInput>,
        output: schema::<ckg_query::EdgesAnswer>,
        listed: true,
    },
    ToolSpec {
        name: "impact",
        title: "What a change affects",
        description: "Before changing or replacing a symbol, file or external package (`express`, `express.static`, `flask.request`): every file affected, transitively, grouped by file with the chain of edges that proves it, and completeness (dynamic calls and parse errors that could hide more).",
        input: schema::<ImpactInput>,
        output: schema::<ckg_query::ImpactAnswer>,
        listed: true,
    },
    ToolSpec {
        name: "dependencies",
        title: "File dependencies",
        description: "What a file depends on (direction=deps: files and external packages), what depends on it (rdeps), or why one target depends on another (path: the shortest chain of edges from `from` to `to`).",
        input: schema::<DependenciesInput>,
        output: schema::<DependenciesOutput>,
        listed: true,
    },
    ToolSpec {
        name: "status",
        title: "Index status",
        description: "The index: generation, files, lines, symbols, edges, last update; and whether it is being built (with progress) right now.",
        input: schema::<NoInput>,
        output: schema::<StatusOutput>,
        listed: true,
    },
    ToolSpec {
        name: "cycles",
        title: "Cycles",
        description: "Import cycles between files and call cycles between symbols.",
        input: schema::<PageInput>,
        output: schema::<ckg_query::CyclesAnswer>,
        listed: false,
    },
    ToolSpec {
        name: "unused",
        title: "Unused definitions",
        description: "Definitions nothing uses (exported ones left out).",
        input: schema::<PageInput>,
        output: schema::<ckg_query::UnusedAnswer>,
        listed: false,
    },
    ToolSpec {
        name: "roles",
        title: "Framework roles",
        description: "Express/Flask roles (applications, routers, middleware, routes, error handlers, hooks, …) with their registrations.",
        input: schema::<PackInput>,
        output: schema::<ckg_agent::RolesAnswer>,
        listed: false,
    },
    ToolSpec {
        name: "check",
        title: "Constraint checks",
        description: "A pack's rules (e.g. pack=express-to-fastify) against the graph: each violation with its place, the fix and the proof.",
        input: schema::<PackInput>,
        output: schema::<ckg_agent::CheckAnswer>,
        listed: false,
    },
    ToolSpec {
        name: "plan_status",
        title: "Migration plan status",
        description: "Every unit of the stored migration plan (`ckg plan`), re-evaluated on the current index.",
        input: schema::<NoInput>,
        output: schema::<ckg_agent::StatusAnswer>,
        listed: false,
    },
];

fn tool(spec: &ToolSpec) -> Tool {
    let object = |v: Value| Arc::new(v.as_object().cloned().unwrap_or_default());
    let mut t = Tool::new(spec.name, spec.description, object((spec.input)()));
    t.title = Some(spec.title.to_string());
    t.output_schema = Some(object((spec.output)()));
    let mut a = ToolAnnotations::new();
    a.title = Some(spec.title.to_string());
    a.read_only_hint = Some(true);
    a.open_world_hint = Some(false);
    t.annotations = Some(a);
    t
}

/// The listed tools, in their fixed order.
pub fn listed_tools() -> Vec<Tool> {
    TOOLS.iter().filter(|t| t.listed).map(tool).collect()
}

// ---- answers ------------------------------------------------------------------------------

/// A tool's answer: structured content and a short text for models, or a fixable error.
type Answer = std::result::Result<(Value, String), String>;

fn ok<T: Serialize>(answer: &T, text: String) -> Answer {
    serde_json::to_value(answer).map(|v| (v, text)).map_err(|e| format!("serializing the answer: {e}"))
}

fn args<T: for<'de> Deserialize<'de>>(value: Value, tool: &str) -> std::result::Result<T, String> {
    serde_json::from_value(value).map_err(|e| format!("bad arguments for `{tool}`: {e} (see its input schema)"))
}

/// A query error as a message that says what to do next.
fn fixable(e: ckg_query::Error) -> String {
    match e {
        ckg_query::Error::Ambiguous { .. } | ckg_query::Error::NotFound(_) => {
            format!("{e}. Use `search` with a glob such as `*name*` to find the exact qname, then ask again with it.")
        }
        ckg_query::Error::PageTokenExpired { .. } => {
            format!("{e}. The index changed: ask again without `cursor` to start from the first page.")
        }
        ckg_query::Error::PageToken(_) => {
            format!("{e}. Ask again without `cursor`, or with the `next_page_token` of the previous answer to the same call.")
        }
        other => other.to_string(),
    }
}

fn page(p: &Page, what: &str, canonical: String) -> std::result::Result<PageRequest, String> {
    let size = p.limit.unwrap_or(100);
    if size == 0 || size > ckg_query::MAX_PAGE_SIZE {
        return Err(format!("limit must be between 1 and {}, got {size}", ckg_query::MAX_PAGE_SIZE));
    }
    Ok(PageRequest { size, token: p.cursor.clone(), query: format!("mcp/{what}?{canonical}") })
}

fn paged<T: ckg_query::Paged + Serialize>(mut answer: T, req: &PageRequest, text: impl FnOnce(&T) -> String) -> Answer {
    ckg_query::paginate(&mut answer, req).map_err(fixable)?;
    let t = text(&answer);
    ok(&answer, t)
}

impl Ckg {
    fn call(&self, name: &str, arguments: Value) -> Answer {
        if name == "status" {
            let _: NoInput = args(arguments, name)?;
            let indexing = self.state();
            let status = Index::open(&self.db).ok().and_then(|ix| ix.status().ok());
            let text = match (&indexing, &status) {
                (Indexing::Running { files_done, files_total, .. }, _) => format!("indexing: {files_done}/{files_total} files parsed"),
                (_, Some(s)) => {
                    format!("generation {}: {} files, {} lines, {} symbols, {} edges", s.generation, s.files, s.lines, s.symbols, s.edges)
                }
                _ => "no index".into(),
            };
            return ok(&StatusOutput { indexing, status }, text);
        }
        let mut ix = self.open()?;
        ix.snapshot(Some(std::time::Duration::from_secs(30)), |ix| Ok(self.query(ix, name, arguments))).map_err(fixable)?
    }

    fn query(&self, ix: &mut Index, name: &str, arguments: Value) -> Answer {
        match name {
            "search" => {
                let a: SearchInput = args(arguments, name)?;
                let req = page(&a.page, name, format!("{}|{:?}", a.pattern, a.kind))?;
                let answer = ix.symbols(&a.pattern, a.kind.as_deref(), ckg_query::MAX_RESULTS).map_err(fixable)?;
                paged(answer, &req, |s| {
                    let mut lines: Vec<String> = s
                        .symbols
                        .iter()
                        .map(|n| format!("{} {} {}:{}", n.kind, n.qname, n.file.as_deref().unwrap_or("<external>"), n.line))
                        .collect();
                    if lines.is_empty() {
                        lines.push("no symbol matches; try a wider glob such as `*name*`".into());
                    }
                    lines.join("\n")
                })
            }
            "definition" => self.definition(ix, args(arguments, name)?),
            "references" => {
                let a: ReferencesInput = args(arguments, name)?;
                let target = self.target(&a.target)?;
                let direction = a.direction.as_deref().unwrap_or("refs");
                let depth = a.depth.unwrap_or(1);
                let req = page(&a.page, name, format!("{target}|{direction}|{depth}"))?;
                let answer = match direction {
                    "refs" => ix.refs(&target),
                    "callers" => ix.callers(&target, depth),
                    "callees" => ix.callees(&target, depth),
                    other => return Err(format!("direction must be refs, callers or callees, not {other:?}")),
                }
                .map_err(fixable)?;
                paged(answer, &req, |e| {
                    let head = format!("{} edge(s) for {}", e.edges.len(), e.target);
                    let lines = e.edges.iter().take(20).map(|d| {
                        let x = &d.edge;
                        format!("{}:{}:{} {} {} {} [{}]", x.file, x.line, x.col, x.src, x.kind, x.dst, x.evidence)
                    });
                    std::iter::once(head).chain(lines).collect::<Vec<_>>().join("\n")
                })
            }
            "impact" => {
                let a: ImpactInput = args(arguments, name)?;
                let target = self.target(&a.target)?;
                let opts = ckg_query::ImpactOptions {
                    depth: a.depth.unwrap_or(3),
                    min_evidence: a.min_evidence.clone().unwrap_or_else(|| "heuristic".into()),
                    kinds: a.kinds.clone().unwrap_or_default(),
                    ..ckg_query::ImpactOptions::default()
                };
                let req = page(&a.page, name, format!("{target}|{}|{}|{:?}", opts.depth, opts.min_evidence, opts.kinds))?;
                let answer = ix.impact(&target, &opts).map_err(fixable)?;
                paged(answer, &req, |i| {
                    let mut lines = vec![format!(
                        "{} file(s), {} symbol(s) affected by {}{}",
                        i.files.len(),
                        i.symbols,
                        i.target,
                        if i.completeness.complete { "" } else { " (incomplete: see completeness)" }
                    )];
                    lines.extend(i.files.iter().take(30).map(|f| format!("{} (depth {}, {} edge(s))", f.path, f.depth, f.edges.len())));
                    lines.join("\n")
                })
            }
            "dependencies" => {
                let a: DependenciesInput = args(arguments, name)?;
                let direction = a.direction.clone().unwrap_or_else(|| "deps".into());
                match direction.as_str() {
                    "deps" | "rdeps" => {
                        let file = a.file.as_deref().ok_or("give `file` (relative to the repository root) for deps or rdeps")?;
                        let file = self.file(file)?;
                        let req = page(&a.page, name, format!("{direction}|{file}"))?;
                        let mut answer = if direction == "deps" { ix.deps(&file) } else { ix.rdeps(&file) }.map_err(fixable)?;
                        ckg_query::paginate(&mut answer, &req).map_err(fixable)?;
                        let text = answer
                            .deps
                            .iter()
                            .map(|d| format!("{} ({} edge(s): {})", d.target, d.edges, d.kinds.join(", ")))
                            .collect::<Vec<_>>()
                            .join("\n");
                        ok(&DependenciesOutput { direction, deps: Some(answer), path: None }, text)
                    }
                    "path" => {
                        let (Some(from), Some(to)) = (&a.from, &a.to) else { return Err("give `from` and `to` for path".into()) };
                        let (from, to) = (&self.target(from)?, &self.target(to)?);
                        let answer = ix.path(from, to, 16).map_err(fixable)?;
                        let text = if answer.edges.is_empty() {
                            format!("no path from {from} to {to}")
                        } else {
                            answer
                                .edges
                                .iter()
                                .map(|e| format!("{} {} {} ({}:{})", e.src, e.kind, e.dst, e.file, e.line))
                                .collect::<Vec<_>>()
                                .join("\n")
                        };
                        ok(&DependenciesOutput { direction, deps: None, path: Some(answer) }, text)
                    }
                    other => Err(format!("direction must be deps, rdeps or path, not {other:?}")),
                }
            }
            "cycles" => {
                let p: PageInput = args(arguments, name)?;
                let req = page(&p.page, name, String::new())?;
                paged(ix.cycles().map_err(fixable)?, &req, |c| {
                    format!("{} import cycle(s), {} call cycle(s)", c.imports.len(), c.calls.len())
                })
            }
            "unused" => {
                let p: PageInput = args(arguments, name)?;
                let req = page(&p.page, name, String::new())?;
                let answer = ix.unused(&ckg_query::UnusedOptions::default()).map_err(fixable)?;
                paged(answer, &req, |u| format!("{} unused definition(s)", u.symbols.len()))
            }
            "roles" => {
                let a: PackInput = args(arguments, name)?;
                let packs = shipped_packs(&a.pack.into_iter().collect::<Vec<_>>())?;
                let answer = ckg_agent::roles(ix, &packs, &ckg_agent::RolesOptions::default()).map_err(|e| e.to_string())?;
                let text = format!("{} role occurrence(s), {} candidate(s)", answer.roles.len(), answer.candidates.len());
                ok(&answer, text)
            }
            "check" => {
                let a: PackInput = args(arguments, name)?;
                let pack = a.pack.ok_or("give `pack` (express-to-fastify, flask-to-fastapi)")?;
                let packs = shipped_packs(&[pack])?;
                let files = a.files.map(|files| files.iter().map(|f| self.file(f)).collect::<Result<Vec<_>, _>>()).transpose()?;
                let set = ckg_agent::RuleSet { packs };
                let answer = set.check(ix, &ckg_agent::CheckOptions { files, baseline: None }).map_err(|e| e.to_string())?;
                let text = format!("{} violation(s) of {} rule(s)", answer.violations.len(), answer.rules.len());
                ok(&answer, text)
            }
            "plan_status" => {
                let _: NoInput = args(arguments, name)?;
                let ledger = ckg_agent::Ledger::open(ix, &self.db).map_err(|e| e.to_string())?;
                let packs = shipped_packs(&[ledger.pack()])?;
                let answer = ledger.status(ix, &packs).map_err(|e| e.to_string())?;
                let text = answer.counts.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ");
                ok(&answer, text)
            }
            other => Err(format!("no tool {other:?}; the tools are: {}", TOOLS.iter().map(|t| t.name).collect::<Vec<_>>().join(", "))),
        }
    }

    fn definition(&self, ix: &Index, a: DefinitionInput) -> Answer {
        let answer = match (&a.qname, &a.file, a.line, a.col) {
            (Some(q), _, _, _) => {
                let ids = ix.resolve_target(q).map_err(fixable)?;
                let node = ix.nodes(&ids).map_err(fixable)?.into_iter().next();
                ckg_query::DefAnswer {
                    generation: ix.generation,
                    definition: node.map(|node| ckg_query::Definition { node, via: None, hops: Vec::new() }),
                    file_changed: false,
                }
            }
            (None, Some(file), Some(line), Some(col)) => ix.def_at(&self.file(file)?, line, col).map_err(fixable)?,
            _ => return Err("give `qname`, or `file`, `line` and `col`".into()),
        };
        let Some(def) = &answer.definition else {
            return ok(
                &DefinitionOutput {
                    generation: answer.generation,
                    definition: None,
                    signature: None,
                    doc: None,
                    start_line: None,
                    end_line: None,
                },
                "nothing is defined or used there; check the position (1-based line, column in UTF-8 bytes) or use `search`".into(),
            );
        };
        let node = &def.node;
        let (signature, doc, end) = match &node.file {
            Some(f) => source_facts(&self.root.join(f), node.line, ix.end_line(&node.qname).ok().flatten()),
            None => (None, None, None),
        };
        let text = format!(
            "{} ({}) {}:{}{}",
            node.qname,
            node.kind,
            node.file.as_deref().unwrap_or("<external>"),
            node.line,
            signature.as_ref().map(|s| format!("\n{s}")).unwrap_or_default()
        );
        let out = DefinitionOutput {
            generation: answer.generation,
            definition: answer.definition.clone(),
            signature,
            doc,
            start_line: node.file.as_ref().map(|_| node.line),
            end_line: end,
        };
        ok(&out, text)
    }
}

/// A definition's signature (its lines up to the body), its doc comment or docstring, and
/// its last line, read from the file.
fn source_facts(path: &Path, line: u32, end: Option<u32>) -> (Option<String>, Option<String>, Option<u32>) {
    // A regular file only: a pipe put in its place would block.
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return (None, None, end);
    }
    let Ok(text) = std::fs::read_to_string(path) else { return (None, None, end) };
    let lines: Vec<&str> = text.lines().collect();
    let at = line as usize - 1;
    let Some(first) = lines.get(at) else { return (None, None, end) };
    // The signature: from the definition line to the line that opens the body, or where its
    // parentheses close (a one-line definition); at most 8 lines, and never past the
    // definition's last line.
    let last = end.map_or(at + 7, |e| (e as usize).saturating_sub(1)).clamp(at, at + 7);
    let mut sig = Vec::new();
    let (mut depth, mut opened) = (0i32, false);
    for l in lines.iter().take(last + 1).skip(at) {
        let t = l.trim_end();
        sig.push(t);
        opened |= t.contains('(');
        depth += t.chars().map(|c| (matches!(c, '(' | '[') as i32) - (matches!(c, ')' | ']') as i32)).sum::<i32>();
        if t.ends_with('{') || t.ends_with(':') || t.ends_with(';') || t.ends_with("=>") || (opened && depth <= 0) {
            break;
        }
    }
    let signature = Some(sig.join("\n").trim_end_matches('{').trim_end().to_string()).filter(|s| !s.is_empty());
    // The doc: comment lines right above (`//`, `/** … */`, `#`), or a Python docstring below.
    let mut doc: Vec<String> = Vec::new();
    let mut i = at;
    while i > 0 {
        let prev = lines[i - 1].trim();
        if prev.starts_with("//")
            || prev.starts_with('*')
            || prev.starts_with("/*")
            || (prev.starts_with('#') && !prev.starts_with("#!"))
            || prev.starts_with('@')
        {
            if !prev.starts_with('@') {
                doc.insert(0, prev.trim_start_matches(['/', '*', '#']).trim().to_string());
            }
            i -= 1;
        } else {
            break;
        }
    }
    if doc.is_empty() && first.trim_start().starts_with(['d', 'c', 'a']) {
        // Python: the first statement of the body, when it is a string.
        if let Some(body) = lines.iter().skip(at + sig.len()).find(|l| !l.trim().is_empty()) {
            let b = body.trim();
            for q in ["\"\"\"", "'''"] {
                if let Some(rest) = b.strip_prefix(q) {
                    let mut d = vec![rest.trim_end_matches(q).to_string()];
                    if !rest.contains(q) {
                        let start = lines.iter().position(|l| std::ptr::eq(*l, *body)).unwrap_or(0);
                        for l in lines.iter().skip(start + 1).take(40) {
                            if let Some(end) = l.find(q) {
                                d.push(l[..end].trim().to_string());
                                break;
                            }
                            d.push(l.trim().to_string());
                        }
                    }
                    doc = d;
                }
            }
        }
    }
    let doc = Some(doc.join("\n").trim().to_string()).filter(|d| !d.is_empty());
    (signature, doc, end)
}

impl ServerHandler for Ckg {
    fn get_info(&self) -> InitializeResult {
        let mut info = InitializeResult::new(ServerCapabilities::builder().enable_tools().build());
        info.server_info = Implementation::new("ckg", env!("CARGO_PKG_VERSION"));
        info.server_info.title = Some("ckg code knowledge graph".into());
        info.instructions = Some(INSTRUCTIONS.into());
        info
    }

    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [rmcp::model::ProtocolVersion]> {
        use rmcp::model::ProtocolVersion as V;
        // The current revision, and the older ones clients still use.
        std::borrow::Cow::Owned(vec![V::V_2025_06_18, V::V_2025_11_25, V::V_2026_07_28])
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(listed_tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        TOOLS.iter().find(|t| t.name == name).map(tool)
    }

    async fn call_tool(&self, request: CallToolRequestParams, _context: RequestContext<RoleServer>) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        if !TOOLS.iter().any(|t| t.name == name) {
            return Err(McpError::invalid_params(format!("no tool {name:?}"), None));
        }
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let this = Ckg { root: self.root.clone(), db: self.db.clone(), indexing: Arc::clone(&self.indexing) };
        let answer = tokio::task::spawn_blocking(move || this.call(&name, arguments))
            .await
            .map_err(|e| McpError::internal_error(format!("the tool failed: {e}"), None))?;
        Ok(match answer {
            Ok((value, text)) => {
                let mut r = CallToolResult::success(vec![ContentBlock::text(text)]);
                r.structured_content = Some(value);
                r
            }
            Err(message) => CallToolResult::error(vec![ContentBlock::text(message)]),
        }
        .into())
    }
}

/// The root and database of `ckg mcp ROOT [--db]`.
fn locate(args: &McpArgs) -> Result<(PathBuf, PathBuf)> {
    let root = args.root.canonicalize().map_err(|e| anyhow::anyhow!("{}: {e}", args.root.display()))?;
    let db = args.db.clone().unwrap_or_else(|| ckg_core::index::IndexConfig::new(&root).db_path());
    Ok((root, db))
}

/// `ckg mcp`: serves stdio until the client closes it. Logs go to stderr only.
pub fn run(args: McpArgs) -> Result<std::process::ExitCode> {
    use rmcp::ServiceExt;
    let (root, db) = locate(&args)?;
    let server = Ckg::new(root, db);
    server.start_indexing_if_missing();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    rt.block_on(async move {
        let (transport, output) = checked_stdio();
        let running = server.serve(transport).await.map_err(|e| anyhow::anyhow!("MCP start-up failed: {e}"))?;
        running.waiting().await.map_err(|e| anyhow::anyhow!("MCP session ended with an error: {e}"))?;
        // What the server wrote last reaches stdout before the process ends.
        let _ = output.await;
        anyhow::Ok(())
    })?;
    Ok(std::process::ExitCode::SUCCESS)
}

/// Stdio for the server, with the JSON-RPC answer to a line that is not JSON: `-32700 Parse
/// error` (`"id": null`), which the server's own codec gives none (it skips the line). Lines
/// are passed on whole, each way; stdout is written a line at a time, so an error line and the
/// server's replies never interleave. Returns the server's side of the streams, and the task
/// that copies its output (done once the server has closed it).
fn checked_stdio()
-> ((tokio::io::ReadHalf<tokio::io::DuplexStream>, tokio::io::WriteHalf<tokio::io::DuplexStream>), tokio::task::JoinHandle<()>) {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (server, proxy) = tokio::io::duplex(1 << 20);
    let (mut from_server, mut to_server) = tokio::io::split(proxy);
    let stdout = Arc::new(tokio::sync::Mutex::new(tokio::io::stdout()));
    let write_line = |out: Arc<tokio::sync::Mutex<tokio::io::Stdout>>, line: Vec<u8>| async move {
        let mut out = out.lock().await;
        out.write_all(&line).await.and(out.write_all(b"\n").await).and(out.flush().await)
    };
    let errors = Arc::clone(&stdout);
    tokio::spawn(async move {
        let mut lines = BufReader::new(tokio::io::stdin()).split(b'\n');
        while let Ok(Some(line)) = lines.next_segment().await {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            if serde_json::from_slice::<serde::de::IgnoredAny>(&line).is_err() {
                let reply = serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error: the line is not JSON"}});
                if write_line(Arc::clone(&errors), reply.to_string().into_bytes()).await.is_err() {
                    break;
                }
                continue;
            }
            if to_server.write_all(&line).await.and(to_server.write_all(b"\n").await).is_err() {
                break;
            }
        }
        // The client closed stdin: so does the server's input.
        let _ = to_server.shutdown().await;
    });
    let output = tokio::spawn(async move {
        let mut lines = BufReader::new(&mut from_server).split(b'\n');
        while let Ok(Some(line)) = lines.next_segment().await {
            if write_line(Arc::clone(&stdout), line).await.is_err() {
                break;
            }
        }
    });
    (tokio::io::split(server), output)
}

/// The MCP server over Streamable HTTP, for `ckg serve` to mount at `/mcp` (its guard checks
/// the token, `Host` and `Origin`; the index exists before it serves).
pub fn http_service(
    root: PathBuf,
    db: PathBuf,
) -> rmcp::transport::streamable_http_server::StreamableHttpService<
    Ckg,
    rmcp::transport::streamable_http_server::session::local::LocalSessionManager,
> {
    use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager};
    let config = StreamableHttpServerConfig::default().disable_allowed_hosts().with_json_response(true);
    StreamableHttpService::new(move || Ok(Ckg::new(root.clone(), db.clone())), Arc::new(LocalSessionManager::default()), config)
}

#[cfg(test)]
mod tests {
    use super::{Ckg, source_facts};

    /// A server started before the first index (as `ckg serve` mounts it at `/mcp` while it
    /// builds its index) says there is none yet, then serves it once another process made it.
    #[test]
    fn an_index_made_after_the_server_started_is_served() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("a.py"), "def f():\n    return 1\n").unwrap();
        let config = ckg_core::index::IndexConfig::new(&root);
        let server = Ckg::new(root.clone(), config.db_path());
        let (status, _) = server.call("status", serde_json::json!({})).unwrap();
        assert_eq!(status["indexing"]["state"], "missing", "{status}");
        let error = server.call("search", serde_json::json!({"pattern": "f"})).unwrap_err();
        assert!(error.contains("no index of") && !error.contains("failed"), "{error}");
        ckg_core::index::index(&config, &|_| {}).unwrap();
        let (status, _) = server.call("status", serde_json::json!({})).unwrap();
        assert_eq!(status["indexing"]["state"], "ready", "{status}");
        let (found, _) = server.call("search", serde_json::json!({"pattern": "f"})).unwrap();
        assert_eq!(found["symbols"][0]["qname"], "a.f", "{found}");
    }

    #[test]
    fn a_signature_ends_where_its_definition_opens_its_body_or_ends() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.ts");
        let text = "export const one = (a: number) => a + 1;\nfunction two(x: number) { return x; }\nfunction three() {}\n\
                    export function multi(\n  a: string,\n  b: number,\n): void {\n  return;\n}\nexport const handler =\n  async (req: Request) => {\n    return req;\n  };\n";
        std::fs::write(&path, text).unwrap();
        let sig = |line: u32, end: u32| source_facts(&path, line, Some(end)).0.unwrap();
        assert_eq!(sig(1, 1), "export const one = (a: number) => a + 1;");
        assert_eq!(sig(2, 2), "function two(x: number) { return x; }");
        assert_eq!(sig(4, 9), "export function multi(\n  a: string,\n  b: number,\n): void");
        assert_eq!(sig(10, 13), "export const handler =\n  async (req: Request) =>");
        // Never past the definition's last line.
        assert_eq!(source_facts(&path, 3, Some(3)).0.unwrap(), "function three() {}");
    }
}
