//! `ckg query …`: the query subcommands (text for people, `--json` for machines).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand};

use ckg_query::{ImpactOptions, Index};

#[derive(Args, Debug)]
pub struct QueryArgs {
    /// Database file (default: found by walking up from the current directory).
    #[arg(long, global = true)]
    db: Option<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    query: Query,
}

#[derive(Subcommand, Debug)]
enum Query {
    /// What is affected if TARGET changes: a qname, a bare name, a file, or an external
    /// package or member (`express`, `express.static`).
    Impact {
        target: String,
        /// How many edges away to follow (1 = direct users).
        #[arg(long, default_value_t = 3)]
        depth: u32,
        /// Weakest evidence to follow: exact, inferred, heuristic, unresolved.
        #[arg(long, default_value = "heuristic")]
        min_evidence: String,
        /// Edge kinds to follow (repeatable; default all).
        #[arg(long = "kind")]
        kinds: Vec<String>,
    },
    /// Symbols whose name or qname matches a glob or contains the text.
    Symbols {
        pattern: String,
        #[arg(long, default_value_t = 100)]
        limit: usize,
    },
}

pub fn run(args: QueryArgs) -> Result<ExitCode> {
    let db = ckg_query::locate_db(args.db.as_deref())?;
    let index = Index::open(&db)?;
    let mut out = std::io::stdout().lock();
    match args.query {
        Query::Impact { target, depth, min_evidence, kinds } => {
            if !matches!(min_evidence.as_str(), "exact" | "inferred" | "heuristic" | "unresolved") {
                anyhow::bail!("--min-evidence must be exact, inferred, heuristic or unresolved, not {min_evidence:?}");
            }
            let answer = index.impact(&target, &ImpactOptions { depth, min_evidence, kinds, ..ImpactOptions::default() })?;
            if args.json {
                serde_json::to_writer_pretty(&mut out, &answer)?;
                writeln!(out)?;
            } else {
                let roots: Vec<&str> = answer.roots.iter().map(|n| n.qname.as_str()).collect();
                writeln!(
                    out,
                    "impact of {} (generation {}): {} file(s), {} symbol(s)",
                    target,
                    answer.generation,
                    answer.files.len(),
                    answer.symbols
                )?;
                if roots.len() > 1 {
                    writeln!(out, "  target nodes: {}", roots.join(", "))?;
                }
                for f in &answer.files {
                    writeln!(out, "{} [depth {}]", f.path, f.depth)?;
                    for e in &f.edges {
                        writeln!(out, "  {}:{}  {} {} -> {}  [{}]", e.line, e.col, e.src, e.kind, e.dst, e.evidence)?;
                    }
                    if f.chain.len() > 1 {
                        let chain: Vec<String> = f.chain.iter().map(|e| format!("{} -{}-> {}", e.src, e.kind, e.dst)).collect();
                        writeln!(out, "  via: {}", chain.join(" ; "))?;
                    }
                }
                let c = &answer.completeness;
                if c.complete {
                    writeln!(out, "complete: no gaps")?;
                } else {
                    let counts: Vec<String> = c.counts.iter().map(|(k, v)| format!("{k} {v}")).collect();
                    writeln!(out, "incomplete: {}", counts.join(", "))?;
                    for g in c.gaps.iter().take(10) {
                        writeln!(out, "  {}:{} {} {}", g.file, g.line, g.kind, g.detail)?;
                    }
                }
            }
            Ok(if answer.files.is_empty() { ExitCode::from(1) } else { ExitCode::SUCCESS })
        }
        Query::Symbols { pattern, limit } => {
            let nodes = index.symbols(&pattern, limit)?;
            if args.json {
                serde_json::to_writer_pretty(&mut out, &serde_json::json!({"generation": index.generation, "symbols": nodes}))?;
                writeln!(out)?;
            } else {
                for n in &nodes {
                    writeln!(out, "{}  {}  {}:{}", n.kind, n.qname, n.file.as_deref().unwrap_or("<external>"), n.line)?;
                }
            }
            Ok(if nodes.is_empty() { ExitCode::from(1) } else { ExitCode::SUCCESS })
        }
    }
}
