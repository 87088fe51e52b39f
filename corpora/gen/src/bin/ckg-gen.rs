//! `ckg-gen --lang python|typescript --lines N [--seed S] [--truth FILE] [--force] OUT_DIR`

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use ckg_gen::{Config, Lang, default_truth_path, generate_with_truth};

const USAGE: &str = "\
usage: ckg-gen --lang python|typescript --lines N [--seed S] [--truth FILE] [--force] [--quiet] OUT_DIR

Writes a synthetic repository of about N lines into OUT_DIR and its ground-truth edge list
(one `kind src -> dst` per line, sorted) into OUT_DIR.truth.txt next to it, or into FILE.
N accepts k/m suffixes (100k, 1m). The same options always give byte-identical output.
OUT_DIR must not exist or be empty; --force deletes an existing OUT_DIR first.";

fn parse_count(s: &str) -> Result<usize, String> {
    let t: String = s.chars().filter(|c| *c != '_' && *c != ',').collect();
    let t = t.to_ascii_lowercase();
    let (num, mult) = if let Some(n) = t.strip_suffix('k') {
        (n.to_string(), 1_000f64)
    } else if let Some(n) = t.strip_suffix('m') {
        (n.to_string(), 1_000_000f64)
    } else {
        (t.clone(), 1f64)
    };
    let v: f64 = num.parse().map_err(|_| format!("invalid number {s:?}"))?;
    if v.is_nan() || v <= 0.0 {
        return Err(format!("invalid number {s:?}"));
    }
    Ok((v * mult).round() as usize)
}

fn run() -> Result<(), String> {
    let mut lang: Option<Lang> = None;
    let mut lines: Option<usize> = None;
    let mut seed: u64 = 0;
    let mut truth: Option<PathBuf> = None;
    let mut out: Option<PathBuf> = None;
    let mut force = false;
    let mut quiet = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (a.clone(), None),
        };
        match flag.as_str() {
            "-h" | "--help" => {
                let _ = writeln!(std::io::stdout(), "{USAGE}");
                std::process::exit(0);
            }
            "--lang" => lang = Some(inline.map_or_else(|| value("--lang"), Ok)?.parse()?),
            "--lines" => lines = Some(parse_count(&inline.map_or_else(|| value("--lines"), Ok)?)?),
            "--seed" => {
                let v = inline.map_or_else(|| value("--seed"), Ok)?;
                seed = v.parse().map_err(|_| format!("invalid seed {v:?}"))?;
            }
            "--truth" => truth = Some(PathBuf::from(inline.map_or_else(|| value("--truth"), Ok)?)),
            "--force" => force = true,
            "--quiet" | "-q" => quiet = true,
            s if s.starts_with('-') && s.len() > 1 => return Err(format!("unknown option {s}\n\n{USAGE}")),
            _ => {
                if out.is_some() {
                    return Err(format!("more than one OUT_DIR given\n\n{USAGE}"));
                }
                out = Some(PathBuf::from(a));
            }
        }
    }
    let lang = lang.ok_or_else(|| format!("--lang is required\n\n{USAGE}"))?;
    let lines = lines.ok_or_else(|| format!("--lines is required\n\n{USAGE}"))?;
    let out = out.ok_or_else(|| format!("OUT_DIR is required\n\n{USAGE}"))?;
    if force && out.exists() {
        if !out.is_dir() {
            return Err(format!("{} exists and is not a directory", out.display()));
        }
        if out.join(".git").exists() || out.parent().is_none() {
            return Err(format!("refusing to delete {} (--force)", out.display()));
        }
        std::fs::remove_dir_all(&out).map_err(|e| format!("cannot remove {}: {e}", out.display()))?;
    }
    let truth = truth.unwrap_or_else(|| default_truth_path(&out));
    let cfg = Config { lang, lines, seed };
    let t0 = Instant::now();
    let s = generate_with_truth(&cfg, &out, &truth).map_err(|e| e.to_string())?;
    if !quiet {
        eprintln!(
            "ckg-gen: {} {} files, {} lines, {} edges in {:.2}s -> {} (truth: {})",
            lang.name(),
            s.files,
            s.lines,
            s.edges,
            t0.elapsed().as_secs_f64(),
            out.display(),
            truth.display()
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ckg-gen: {e}");
            ExitCode::from(2)
        }
    }
}
