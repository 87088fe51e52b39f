//! `ckg query roles` and `ckg check`: the agent layer's roles and constraint checks, in text
//! for people and JSON for machines (the answer types of ckg-agent, serialized as they are).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;

use ckg_agent::{Baseline, CheckOptions, Pack, RoleOccurrence, RolesAnswer, RolesOptions, RuleSet};
use ckg_query::Index;

/// The packs named on the command line (shipped, or pack files), or the framework packs.
pub(crate) fn load_packs(names: &[String]) -> Result<Vec<Pack>> {
    Ok(Pack::load_all(names, ckg_agent::FRAMEWORK_PACKS, ckg_agent::PackFiles::Allowed)?)
}

pub fn roles(index: &Index, packs: &[String], roles: Vec<String>) -> Result<RolesAnswer> {
    let packs = load_packs(packs)?;
    Ok(ckg_agent::roles(index, &packs, &RolesOptions { roles, ..RolesOptions::default() })?)
}

pub fn print_roles(w: &mut dyn Write, a: &RolesAnswer) -> Result<()> {
    let mut by_file: BTreeMap<&str, Vec<&RoleOccurrence>> = BTreeMap::new();
    for r in &a.roles {
        by_file.entry(r.file.as_str()).or_default().push(r);
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for r in &a.roles {
        *counts.entry(r.role.as_str()).or_default() += 1;
    }
    let summary: Vec<String> = counts.iter().map(|(k, v)| format!("{k} {v}")).collect();
    writeln!(w, "roles ({}; generation {}): {}", a.packs.join(", "), a.generation, summary.join(", "))?;
    for (file, rs) in by_file {
        writeln!(w, "{file}")?;
        for r in rs {
            let at = r.registered_at.as_ref().map(|s| format!("  registered at {}:{}", s.file, s.line)).unwrap_or_default();
            let detail: Vec<String> = r.detail.iter().filter(|(k, _)| *k != "on").map(|(k, v)| format!("{k}={v}")).collect();
            let detail = if detail.is_empty() { String::new() } else { format!("  {}", detail.join(" ")) };
            writeln!(w, "  {:>4}  {:<22} {}{at}{detail}  [{}]", r.line, r.role, r.name, r.tier)?;
        }
    }
    if !a.candidates.is_empty() {
        writeln!(w, "candidates (look like a role; nothing registers them): {}", a.candidates.len())?;
        for c in &a.candidates {
            writeln!(w, "  {}:{}  {} looks like {}: {}", c.file, c.line, c.name, c.role, c.reason)?;
        }
    }
    Ok(())
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// A rule file (TOML; repeatable). See README "Constraint rules".
    #[arg(long = "rules")]
    rules: Vec<PathBuf>,
    /// A shipped pack (express-to-fastify, flask-to-fastapi, …) or a pack file (repeatable).
    #[arg(long = "pack")]
    packs: Vec<String>,
    /// Check only what these files affect (the files, what they depend on and what depends
    /// on them): the agent loop after an edit.
    #[arg(long = "files", num_args = 1..)]
    files: Vec<String>,
    /// Compare `no_new_callers` rules with this baseline.
    #[arg(long)]
    baseline: Option<PathBuf>,
    /// Write the current callers of every `no_new_callers` rule's symbols to FILE and exit.
    #[arg(long, value_name = "FILE")]
    save_baseline: Option<PathBuf>,
    /// Database file (default: found by walking up from the current directory).
    #[arg(long)]
    db: Option<PathBuf>,
    #[arg(long)]
    json: bool,
}

pub fn check(args: CheckArgs) -> Result<ExitCode> {
    let mut packs: Vec<Pack> = Vec::new();
    for p in &args.packs {
        for pack in Pack::load(p)?.with_requirements()? {
            if !packs.iter().any(|q| q.pack.name == pack.pack.name) {
                packs.push(pack);
            }
        }
    }
    for path in &args.rules {
        let src = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let pack = RuleSet::parse_rules_file(&path.display().to_string(), &src)?;
        for p in pack.with_requirements()? {
            if !packs.iter().any(|q| q.pack.name == p.pack.name) {
                packs.push(p);
            }
        }
    }
    if packs.iter().all(|p| p.rule.is_empty()) {
        anyhow::bail!("no rules: give --rules FILE or --pack NAME (express-to-fastify, flask-to-fastapi)");
    }
    let db = ckg_query::locate_db(args.db.as_deref())?;
    let index = Index::open(&db)?;
    let set = RuleSet { packs };
    if let Some(path) = &args.save_baseline {
        let b = set.baseline(&index)?;
        std::fs::write(path, serde_json::to_string_pretty(&b)? + "\n").with_context(|| format!("writing {}", path.display()))?;
        let n: usize = b.rules.values().map(|v| v.len()).sum();
        eprintln!("ckg: baseline of {} rule(s), {n} caller(s), written to {}", b.rules.len(), path.display());
        return Ok(ExitCode::SUCCESS);
    }
    let baseline = match &args.baseline {
        Some(path) => {
            let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
            Some(serde_json::from_str::<Baseline>(&text).with_context(|| format!("{}: not a ckg baseline", path.display()))?)
        }
        None => None,
    };
    let files = (!args.files.is_empty()).then(|| args.files.clone());
    let a = set.check(&index, &CheckOptions { files, baseline })?;
    let mut w = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut w, &a)?;
        writeln!(w)?;
    } else {
        for v in &a.violations {
            writeln!(w, "{}:{}: {:?} [{}] {}", v.file, v.line, v.severity, v.rule, v.message)?;
            if let Some(h) = &v.hint {
                writeln!(w, "    fix: {h}")?;
            }
            for e in v.evidence.iter().take(3) {
                writeln!(w, "    because {}:{}:{} {} {} -> {} [{}]", e.file, e.line, e.col, e.src, e.kind, e.dst, e.evidence)?;
            }
        }
        let scope = a.scope.as_ref().map(|s| format!(" in {} file(s)", s.len())).unwrap_or_default();
        writeln!(w, "{} violation(s) of {} rule(s){scope} (generation {})", a.violations.len(), a.rules.len(), a.generation)?;
    }
    Ok(if a.violations.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

#[derive(Args, Debug)]
pub struct PlanArgs {
    /// The migration pack (express-to-fastify, flask-to-fastapi, or a pack file).
    #[arg(long)]
    pack: Option<String>,
    /// The source framework (with --to: the pack FROM-to-TO).
    #[arg(long)]
    from: Option<String>,
    /// The target framework.
    #[arg(long)]
    to: Option<String>,
    /// Output: text, md (Markdown for people) or json (for agents).
    #[arg(long, default_value = "text")]
    format: String,
    /// Shorthand for --format json.
    #[arg(long, global = true)]
    json: bool,
    /// Database file (default: found by walking up from the current directory).
    #[arg(long, global = true)]
    db: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<PlanCommand>,
}

#[derive(clap::Subcommand, Debug)]
enum PlanCommand {
    /// Re-evaluate every unit of the stored plan on the current index: done only when no
    /// legacy reference remains, the pack's constraints pass in its files and its last
    /// command checks passed.
    Status {
        /// Evaluate every unit from scratch (by default what an edit cannot have changed is
        /// kept from the last evaluation).
        #[arg(long)]
        recheck: bool,
    },
    /// Run a unit's verification checks (commands with time limits, output kept next to the
    /// ledger), record the results and the unit's state.
    Verify {
        unit: String,
        /// Time limit for each command (default: the check's own, 600 s).
        #[arg(long)]
        timeout_s: Option<u64>,
    },
    /// Print the JSON schema of the plan (`--json` output), the status and verify answers.
    Schema,
    /// Record the answer to one of a unit's open questions.
    Decide {
        unit: String,
        question: String,
        #[arg(long)]
        answer: String,
    },
}

fn migration_packs(args: &PlanArgs, ledger_pack: Option<String>) -> Result<Vec<Pack>> {
    let name = match (&args.pack, &args.from, &args.to, ledger_pack) {
        (Some(p), _, _, _) => p.clone(),
        (None, Some(f), Some(t), _) => format!("{f}-to-{t}"),
        (None, None, None, Some(p)) => p,
        _ => anyhow::bail!("give --pack NAME (express-to-fastify, flask-to-fastapi) or --from X --to Y"),
    };
    load_packs(&[name])
}

pub fn plan(args: PlanArgs) -> Result<ExitCode> {
    if let Some(PlanCommand::Schema) = &args.command {
        let mut w = std::io::stdout().lock();
        writeln!(w, "{}", ckg_agent::plan::schema_json())?;
        return Ok(ExitCode::SUCCESS);
    }
    let db = ckg_query::locate_db(args.db.as_deref())?;
    let index = Index::open(&db)?;
    let format = if args.json { "json".to_string() } else { args.format.clone() };
    if !matches!(format.as_str(), "text" | "md" | "json") {
        anyhow::bail!("--format must be text, md or json, not {format:?}");
    }
    let mut w = std::io::stdout().lock();
    match &args.command {
        None => {
            let packs = migration_packs(&args, None)?;
            let plan = ckg_agent::plan(&index, &packs)?;
            ckg_agent::Ledger::store(&index, &db, &plan)?;
            match format.as_str() {
                "json" => {
                    serde_json::to_writer_pretty(&mut w, &plan)?;
                    writeln!(w)?;
                }
                _ => write!(w, "{}", ckg_agent::plan::markdown(&plan))?,
            }
            Ok(if plan.units.is_empty() { ExitCode::from(1) } else { ExitCode::SUCCESS })
        }
        Some(PlanCommand::Status { recheck }) => {
            let ledger = ckg_agent::Ledger::open(&index, &db)?;
            let packs = migration_packs(&args, Some(ledger.pack()))?;
            let a = ledger.status_with(&index, &packs, *recheck)?;
            if format == "json" {
                serde_json::to_writer_pretty(&mut w, &a)?;
                writeln!(w)?;
            } else {
                let counts: Vec<String> = a.counts.iter().map(|(k, v)| format!("{k} {v}")).collect();
                writeln!(
                    w,
                    "plan {} (made at generation {}; index generation {}): {}",
                    a.pack,
                    a.baseline_generation,
                    a.generation,
                    counts.join(", ")
                )?;
                for u in &a.units {
                    writeln!(
                        w,
                        "  {:>3}. {:<15} {}  (legacy references {}, violations {}{})",
                        u.position,
                        u.state,
                        u.unit_id,
                        u.legacy_references,
                        u.violations,
                        if u.undecided.is_empty() { String::new() } else { format!(", {} open question(s)", u.undecided.len()) }
                    )?;
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Some(PlanCommand::Verify { unit, timeout_s }) => {
            let ledger = ckg_agent::Ledger::open(&index, &db)?;
            let packs = migration_packs(&args, Some(ledger.pack()))?;
            let a = ledger.verify(&index, &packs, unit, timeout_s.map(std::time::Duration::from_secs))?;
            if format == "json" {
                serde_json::to_writer_pretty(&mut w, &a)?;
                writeln!(w)?;
            } else {
                for r in &a.runs {
                    let why = r.failure.as_ref().map(|f| format!(" [{f}]")).unwrap_or_default();
                    let out = r.output.as_ref().map(|o| format!(" (output: {o})")).unwrap_or_default();
                    writeln!(w, "{} {:<18} {}{why}: {}{out}", r.result, r.check, r.kind, r.detail)?;
                }
                writeln!(w, "{}: {}", a.unit_id, a.state)?;
            }
            Ok(if a.state == "done" { ExitCode::SUCCESS } else { ExitCode::from(1) })
        }
        Some(PlanCommand::Schema) => unreachable!("answered above"),
        Some(PlanCommand::Decide { unit, question, answer }) => {
            let ledger = ckg_agent::Ledger::open(&index, &db)?;
            ledger.decide(unit, question, answer)?;
            writeln!(w, "recorded: {unit} {question}")?;
            Ok(ExitCode::SUCCESS)
        }
    }
}
