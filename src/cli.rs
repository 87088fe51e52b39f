//! Argument parsing and the subcommands.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};

use ckg_core::discover::DiscoverConfig;
use ckg_core::index::{IndexConfig, Progress, Summary};
use ckg_core::watch::WatchEvent;

use crate::progress::Bar;

/// ckg: a code knowledge graph for TypeScript/JavaScript and Python.
///
/// Indexes who defines, imports, calls, references and extends what, with the evidence for
/// each edge, into `.ckg/index.db` under the root.
#[derive(Parser, Debug)]
#[command(name = "ckg", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Index a repository (incrementally when an index exists).
    Index(IndexArgs),
    /// Write the whole graph: files, diagnostics, symbols, externals, edges.
    Export(ExportArgs),
    /// Ask the graph: impact, callers, callees, refs, def, symbols, deps, path, cycles, unused, sql.
    Query(crate::query::QueryArgs),
    /// Index, then keep the index up to date as files change (one log line per update).
    Watch(WatchArgs),
    /// Serve queries over HTTP (JSON under /v1/..., OpenAPI at /openapi.json) for agents.
    Serve(crate::serve::ServeArgs),
    /// Check constraint rules (CSE) against the graph: forbidden imports and uses, layering,
    /// signatures of framework roles, unregistered look-alikes, migration packs. Exit 1 when
    /// anything is violated, 2 on a bad rule file.
    Check(crate::agent::CheckArgs),
    /// Plan a migration (--pack express-to-fastify): units in dependency order with notes,
    /// verification contracts and open questions, stored in a ledger next to the index;
    /// `plan status`, `plan verify UNIT`, `plan decide UNIT QUESTION --answer …`.
    Plan(crate::agent::PlanArgs),
    /// Serve the Model Context Protocol over stdio for coding agents (tools: search,
    /// definition, references, impact, dependencies, status). Indexes in the background
    /// when there is no index yet; logs go to stderr.
    Mcp(crate::mcp::McpArgs),
    /// Show the index: generation, last update and its latency, totals, staleness.
    Status {
        /// Database file (default: found by walking up from the current directory).
        #[arg(long)]
        db: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Parse every file without extracting or storing (benchmark baseline).
    #[command(hide = true)]
    ParseOnly {
        #[arg(default_value = ".")]
        root: PathBuf,
        #[arg(long, short = 'j', default_value_t = 0)]
        jobs: usize,
        /// Also extract each file's facts, storing nothing: what extraction adds to the parse.
        #[arg(long)]
        extract: bool,
        /// Parse with the grammars' expanded tables and lex with their lexers' tables, as `ckg
        /// index` does when it parses many files (the default is tree-sitter's parse with the
        /// grammars as they come).
        #[arg(long)]
        expanded_tables: bool,
        /// Lex with ckg's short path for ASCII, as `ckg index` does (the default is
        /// tree-sitter's lexer as it comes).
        #[arg(long)]
        ascii_step: bool,
        /// Reduce in place where the parse stack allows it, as `ckg index` does (the default
        /// is tree-sitter's reduction by copying).
        #[arg(long)]
        reduce_in_place: bool,
    },
}

#[derive(Args, Debug)]
pub(crate) struct IndexArgs {
    /// Repository root to index.
    #[arg(default_value = ".")]
    pub(crate) root: PathBuf,
    /// Database file (default: ROOT/.ckg/index.db).
    #[arg(long)]
    pub(crate) db: Option<PathBuf>,
    /// Parser threads (default: one per core).
    #[arg(long, short = 'j', default_value_t = 0)]
    pub(crate) jobs: usize,
    /// Only index paths matching this glob (repeatable).
    #[arg(long = "include", value_name = "GLOB")]
    pub(crate) include: Vec<String>,
    /// Skip paths matching this glob (repeatable).
    #[arg(long = "exclude", value_name = "GLOB")]
    pub(crate) exclude: Vec<String>,
    /// Follow symbolic links (loops are detected and reported).
    #[arg(long)]
    pub(crate) follow: bool,
    /// Do not read .gitignore / .ignore files.
    #[arg(long)]
    pub(crate) no_ignore: bool,
    /// Also index folders that usually hold build output (dist, build, out, .next, .nuxt,
    /// .turbo, coverage, .svelte-kit), skipped by default: for packages that ship only a bundle.
    #[arg(long)]
    pub(crate) build_dirs: bool,
    /// An extra Python import root, relative to ROOT (repeatable): files under it are named
    /// from it (`--python-root lib` makes `lib/tools/x.py` the module `tools.x`). Roots the
    /// project names are read too: pyproject.toml (setuptools package-dir and packages.find,
    /// pyright extraPaths, mypy mypy_path), setup.cfg, pyrightconfig.json, and every
    /// `<dir>/src/<package>/` layout.
    #[arg(long = "python-root", value_name = "DIR")]
    pub(crate) python_roots: Vec<String>,
    /// Skip files larger than this many bytes.
    #[arg(long, default_value_t = 2 * 1024 * 1024, value_name = "BYTES")]
    pub(crate) max_file_size: u64,
    /// Delete the existing index and build it from scratch (the tree walked whole again).
    #[arg(long)]
    pub(crate) rebuild: bool,
    /// No progress bar and no summary (nor the index-wide totals it would print).
    #[arg(long, short = 'q')]
    pub(crate) quiet: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Args, Debug)]
struct WatchArgs {
    #[command(flatten)]
    index: IndexArgs,
    /// Quiet time (milliseconds) that ends a batch of changes.
    #[arg(long, default_value_t = 30)]
    debounce_ms: u64,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum ExportFormat {
    /// The canonical JSONL export (one object per line, sorted).
    Jsonl,
    /// A SCIP index (protobuf) for code-intelligence tools; needs `-o FILE` (`-o -` for stdout).
    Scip,
}

#[derive(Args, Debug)]
struct ExportArgs {
    /// Database file (default: found by walking up from the current directory).
    #[arg(long)]
    db: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "jsonl")]
    format: ExportFormat,
    /// Write to a file instead of stdout (`-` for stdout).
    #[arg(long, short = 'o')]
    output: Option<PathBuf>,
    /// SCIP: also export references whose only evidence is heuristic.
    #[arg(long)]
    heuristic: bool,
}

pub fn run() -> Result<ExitCode> {
    let cli = Cli::parse();
    match cli.command {
        Command::Index(args) => index(args),
        Command::Export(args) => export(args),
        Command::Query(args) => crate::query::run(args),
        Command::Watch(args) => watch(args),
        Command::Serve(args) => crate::serve::run(args),
        Command::Check(args) => crate::agent::check(args),
        Command::Plan(args) => crate::agent::plan(args),
        Command::Mcp(args) => crate::mcp::run(args),
        Command::Status { db, json } => status(db, json),
        Command::ParseOnly { root, jobs, extract, expanded_tables, ascii_step, reduce_in_place } => {
            let t = std::time::Instant::now();
            let tuning = ckg_core::index::ParseTuning { expanded_tables, ascii_step, reduce_in_place };
            let (files, bytes, symbols) = ckg_core::index::parse_only(&root, &DiscoverConfig::default(), jobs, extract, tuning)?;
            let secs = t.elapsed().as_secs_f64();
            if extract {
                println!("parsed and extracted {files} files, {bytes} bytes, {symbols} symbols in {secs:.3}s");
            } else {
                println!("parsed {files} files, {bytes} bytes in {secs:.3}s");
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

pub(crate) fn index_config(args: &IndexArgs) -> IndexConfig {
    let mut config = IndexConfig::new(&args.root);
    config.db = args.db.clone();
    config.jobs = args.jobs;
    config.rebuild = args.rebuild;
    config.discover = DiscoverConfig {
        include: args.include.clone(),
        exclude: args.exclude.clone(),
        follow_symlinks: args.follow,
        max_file_size: args.max_file_size,
        respect_ignore_files: !args.no_ignore,
        python_roots: args.python_roots.clone(),
        build_dirs: args.build_dirs,
    };
    config
}

fn watch(args: WatchArgs) -> Result<ExitCode> {
    // A long-running process: its memory matters more than its allocator's speed.
    crate::alloc::prefer_low_memory();
    let mut config = ckg_core::watch::WatchConfig::new(index_config(&args.index));
    config.debounce = std::time::Duration::from_millis(args.debounce_ms);
    let stop = std::sync::atomic::AtomicBool::new(false);
    let json = args.index.json;
    let quiet = args.index.quiet;
    let mut first = true;
    ckg_core::watch::watch(&config, &stop, &mut |event| {
        let u = match event {
            WatchEvent::Updated(u) => u,
            // Faults go to stderr (as JSON lines under --json): the watch goes on.
            WatchEvent::Failed { error, retry_in } => {
                if json {
                    let line = serde_json::json!({"error": error.to_string(), "retry_in_ms": retry_in.as_millis() as u64});
                    let _ = writeln!(std::io::stderr(), "{line}");
                } else {
                    eprintln!(
                        "ckg watch: error: update failed: {error}; the index keeps its last committed generation; retrying in {} s or at the next change",
                        retry_in.as_secs()
                    );
                }
                return;
            }
            WatchEvent::DatabaseReplaced { db } => {
                eprintln!("ckg watch: the index database {} was removed or replaced; indexing again", db.display());
                return;
            }
        };
        let s = &u.summary;
        let mut out = std::io::stdout().lock();
        let written = if json {
            let line = serde_json::json!({
                "generation": s.generation, "changed": s.changed, "parsed": s.parsed, "removed": s.removed,
                "re_resolved": s.re_resolved, "event_paths": u.event_paths, "rescan": u.rescan,
                "latency_ms": u.latency.as_secs_f64() * 1e3,
            });
            writeln!(out, "{line}")
        } else if quiet {
            Ok(())
        } else if first {
            let files = s.parsed + s.unchanged;
            writeln!(
                out,
                "watching {} ({files} files, generation {}, indexed in {:.0} ms)",
                s.root,
                s.generation,
                u.latency.as_secs_f64() * 1e3
            )
        } else if s.changed {
            writeln!(
                out,
                "generation {}: {} parsed, {} removed, {} re-resolved ({} paths{}) in {:.1} ms",
                s.generation,
                s.parsed,
                s.removed,
                s.re_resolved,
                u.event_paths,
                if u.rescan { ", rescan" } else { "" },
                u.latency.as_secs_f64() * 1e3
            )
        } else {
            Ok(())
        };
        first = false;
        // A closed stdout (`ckg watch | head`) ends the watch quietly.
        if written.and_then(|()| out.flush()).is_err() {
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    })?;
    Ok(ExitCode::SUCCESS)
}

fn status(db: Option<PathBuf>, json: bool) -> Result<ExitCode> {
    let db = ckg_query::locate_db(db.as_deref())?;
    let index = ckg_query::Index::open(&db)?;
    let st = index.status()?;
    let stale = index.staleness()?;
    if json {
        let mut v = serde_json::to_value(&st)?;
        v["stale"] = serde_json::to_value(&stale)?;
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        println!("index      {}", db.display());
        println!("root       {}", st.root.as_deref().unwrap_or("?"));
        println!("generation {}", st.generation);
        if let Some(at) = st.updated_at {
            let ago =
                std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(at).saturating_sub(at);
            println!(
                "updated    {ago} s ago, in {} ms ({})",
                st.last_update_ms.as_deref().unwrap_or("?"),
                st.last_update_files.as_deref().unwrap_or("")
            );
        }
        println!("files      {} ({} lines)", st.files, st.lines);
        println!("symbols    {}; edges {}", st.symbols, st.edges);
        if stale.stale {
            println!("stale      yes: {} since; run `ckg index`", stale.summary());
        } else {
            println!("stale      no");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn index(args: IndexArgs) -> Result<ExitCode> {
    let mut config = index_config(&args);
    // The index-wide totals are only for the summary printed.
    config.totals = args.json || !args.quiet;
    config.exits_after = true;
    let whole = config.rebuild || !config.db_path().exists();
    if whole {
        // A whole index is built: its peak memory matters more than its allocator's speed,
        // but memory freed while parsing is kept for the next file (the peak comes later).
        crate::alloc::prefer_low_memory_after_parsing();
    } else {
        crate::alloc::prefer_speed();
    }
    let bar = Bar::new(args.quiet || args.json);
    let summary = ckg_core::index::index(&config, &|p| {
        if whole && matches!(p, Progress::Resolving) {
            crate::alloc::return_freed_at_once();
        }
        bar.update(p)
    });
    bar.finish();
    let summary = summary.with_context(|| format!("indexing {}", args.root.display()))?;
    if let Some(msg) = &summary.rebuilt {
        eprintln!("ckg: {msg}");
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &summary)?;
        writeln!(out)?;
    } else if !args.quiet {
        print_summary(&mut out, &summary)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn print_summary(out: &mut dyn Write, s: &Summary) -> Result<()> {
    let files: u64 = s.files_by_lang.values().sum();
    let status = if s.changed { format!("generation {}", s.generation) } else { format!("unchanged, generation {}", s.generation) };
    writeln!(out, "indexed {} ({status})", s.root)?;
    let langs: Vec<String> = s.files_by_lang.iter().map(|(l, n)| format!("{l} {n}")).collect();
    writeln!(out, "  files      {files} ({}); {} lines, {} KiB", langs.join(", "), s.lines, s.bytes / 1024)?;
    writeln!(out, "  this run   {} parsed, {} unchanged, {} removed, {} skipped", s.parsed, s.unchanged, s.removed, s.skipped.len())?;
    writeln!(out, "  symbols    {} (+{} external nodes)", s.symbols, s.externals)?;
    let edges: u64 = s.edges_by_kind.values().sum();
    let kinds: Vec<String> = s.edges_by_kind.iter().map(|(k, n)| format!("{k} {n}")).collect();
    writeln!(out, "  edges      {edges} ({})", kinds.join(", "))?;
    let ev: Vec<String> = s.edges_by_evidence.iter().map(|(k, n)| format!("{k} {n}")).collect();
    writeln!(out, "  evidence   {}", ev.join(", "))?;
    writeln!(out, "  errors     {} syntax error(s) in {} file(s)", s.parse_errors, s.files_with_parse_errors)?;
    if !s.skipped.is_empty() {
        writeln!(out, "  skipped    {} file(s):", s.skipped.len())?;
        for f in s.skipped.iter().take(20) {
            writeln!(out, "    {} [{}] {}", f.path, f.reason, f.message)?;
        }
        if s.skipped.len() > 20 {
            writeln!(out, "    ... and {} more (see --json)", s.skipped.len() - 20)?;
        }
    }
    let t: Vec<String> = s.timings_ms.iter().map(|(k, v)| format!("{k} {v:.0} ms")).collect();
    writeln!(out, "  time       {} (jobs {})", t.join(", "), s.jobs)?;
    writeln!(out, "  database   {}", s.db)?;
    Ok(())
}

fn export(args: ExportArgs) -> Result<ExitCode> {
    let db = ckg_query::locate_db(args.db.as_deref())?;
    let conn = ckg_core::store::open_reader(&db)?;
    let output = args.output.filter(|p| p.as_os_str() != "-");
    if args.format == ExportFormat::Scip && output.is_none() && std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        anyhow::bail!("a SCIP index is binary: pass -o FILE (or -o - to write it to stdout anyway)");
    }
    let config = ckg_core::export::scip::ScipConfig { heuristic: args.heuristic };
    let write = |w: &mut dyn Write| -> Result<()> {
        match args.format {
            ExportFormat::Jsonl => ckg_core::export::export_jsonl(&conn, &db, w)?,
            ExportFormat::Scip => ckg_core::export::scip::export_scip(&conn, &db, &config, w)?,
        }
        Ok(())
    };
    match output {
        Some(path) => {
            let file = std::fs::File::create(&path).with_context(|| format!("creating {}", path.display()))?;
            let mut w = std::io::BufWriter::new(file);
            write(&mut w)?;
            w.flush()?;
        }
        None => {
            let stdout = std::io::stdout();
            let mut w = std::io::BufWriter::new(stdout.lock());
            write(&mut w)?;
            w.flush()?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
