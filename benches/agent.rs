//! The agent layer on a generated ~100k-line TypeScript repository (`ckg-gen`) with
//! `corpora/express-app` inside it, so that the packs have Express roles to read:
//! - `ckg check --files` after a one-file edit (the agent's loop): p50/p95 over the edits, in
//!   process (open the index, evaluate `express-to-fastify` and a house rule file on what the
//!   edited file affects) and as a `ckg check` process; a whole-repository check to compare;
//! - plan generation (`ckg plan --pack express-to-fastify`), in process and as a process;
//! - `ckg plan status` after a one-file edit, in process.
//!
//! `cargo bench --bench agent` (CKG_BENCH_LINES, CKG_BENCH_EDITS to change sizes).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use ckg_agent::{CheckOptions, Ledger, Pack, RuleSet};

fn pct(mut d: Vec<Duration>) -> String {
    d.sort();
    let at = |q: f64| d[((d.len() as f64 - 1.0) * q).round() as usize].as_secs_f64() * 1e3;
    format!("p50 {:>8.2} ms  p95 {:>8.2} ms  (n={})", at(0.5), at(0.95), d.len())
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        let dst = to.join(e.file_name());
        if p.is_dir() {
            copy_dir(&p, &dst);
        } else {
            std::fs::copy(&p, &dst).unwrap();
        }
    }
}

/// A body-only edit of a route handler: a statement added at the start of the first
/// `(req, res) => {` body (or removed again).
fn edit(file: &Path, n: usize) {
    let src = std::fs::read_to_string(file).unwrap();
    let edited = if src.contains("// ckg-bench-edit") {
        src.lines().filter(|l| !l.contains("ckg-bench-edit")).collect::<Vec<_>>().join("\n") + "\n"
    } else {
        let pos = src.find("(req, res) => {").expect("a handler") + "(req, res) => {".len();
        format!("{}\n    const _edit = {n}; // ckg-bench-edit{}", &src[..pos], &src[pos..])
    };
    std::fs::write(file, edited).unwrap();
}

fn main() {
    let lines: usize = std::env::var("CKG_BENCH_LINES").ok().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let edits: usize = std::env::var("CKG_BENCH_EDITS").ok().and_then(|s| s.parse().ok()).unwrap_or(30);
    let ckg = env!("CARGO_BIN_EXE_ckg");
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let root = manifest.join("target").join(format!("bench-check-{lines}"));
    let _ = std::fs::remove_dir_all(&root);
    ckg_gen::generate(&ckg_gen::Config { lang: ckg_gen::Lang::TypeScript, lines, seed: 5 }, &root).unwrap();
    copy_dir(&manifest.join("corpora/express-app/src"), &root.join("shop/src"));
    std::fs::write(
        root.join("house.toml"),
        "[[rule]]\nid = \"routes-not-models\"\nkind = \"layering\"\nfrom = [\"shop/src/routes/**\"]\nto = [\"shop/src/models/**\"]\n\n\
         [[rule]]\nid = \"no-lodash\"\nkind = \"forbid_import\"\npackages = [\"lodash\"]\n",
    )
    .unwrap();
    let index = |args: &[&str]| {
        let out = Command::new(ckg).args(["index", "."]).args(args).current_dir(&root).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    };
    index(&["--quiet"]);
    let total_lines: u64 = {
        let out = Command::new(ckg).args(["status", "--json"]).current_dir(&root).output().unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["lines"].as_u64().unwrap()
    };
    println!("ckg check --files after a one-file edit; {total_lines} indexed lines ({lines} generated + express-app), {edits} edits");

    let mut packs = Pack::load("express-to-fastify").unwrap().with_requirements().unwrap();
    let house = std::fs::read_to_string(root.join("house.toml")).unwrap();
    packs.push(RuleSet::parse_rules_file("house.toml", &house).unwrap());
    let set = RuleSet { packs };
    let db = root.join(".ckg/index.db");

    let routes: Vec<PathBuf> =
        ["books", "authors", "cart", "categories"].iter().map(|r| root.join(format!("shop/src/routes/{r}.ts"))).collect();
    let (mut in_process, mut process, mut violations) = (Vec::new(), Vec::new(), 0);
    for n in 0..edits {
        let file = &routes[n % routes.len()];
        edit(file, n);
        index(&["--quiet"]);
        let rel = file.strip_prefix(&root).unwrap().to_str().unwrap().to_string();
        let t = Instant::now();
        let ix = ckg_query::Index::open(&db).unwrap();
        let answer = set.check(&ix, &CheckOptions { files: Some(vec![rel.clone()]), baseline: None }).unwrap();
        in_process.push(t.elapsed());
        violations = answer.violations.len();
        let t = Instant::now();
        let out = Command::new(ckg)
            .args(["check", "--pack", "express-to-fastify", "--rules", "house.toml", "--json", "--files", &rel])
            .current_dir(&root)
            .output()
            .unwrap();
        process.push(t.elapsed());
        assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    }
    println!("  in process (open + check --files)   {}  ({violations} violations in the last scope)", pct(in_process));
    println!("  `ckg check --files` process          {}", pct(process));
    let mut whole = Vec::new();
    let mut all = 0;
    for _ in 0..5 {
        let t = Instant::now();
        let ix = ckg_query::Index::open(&db).unwrap();
        all = set.check(&ix, &CheckOptions::default()).unwrap().violations.len();
        whole.push(t.elapsed());
    }
    println!("  whole repository, in process         {}  ({all} violations)", pct(whole));

    // Plans.
    let migration = Pack::load("express-to-fastify").unwrap().with_requirements().unwrap();
    let (mut in_process, mut process, mut units) = (Vec::new(), Vec::new(), 0);
    for _ in 0..5 {
        let t = Instant::now();
        let ix = ckg_query::Index::open(&db).unwrap();
        let plan = ckg_agent::plan(&ix, &migration).unwrap();
        Ledger::store(&ix, &db, &plan).unwrap();
        in_process.push(t.elapsed());
        units = plan.units.len();
        let t = Instant::now();
        let out = Command::new(ckg).args(["plan", "--pack", "express-to-fastify", "--json"]).current_dir(&root).output().unwrap();
        process.push(t.elapsed());
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    println!("  plan, in process (plan + ledger)     {}  ({units} units)", pct(in_process));
    println!("  `ckg plan` process                   {}", pct(process));
    let mut status = Vec::new();
    let mut counts = String::new();
    for n in 0..edits {
        let file = &routes[n % routes.len()];
        edit(file, 1000 + n);
        index(&["--quiet"]);
        let t = Instant::now();
        let ix = ckg_query::Index::open(&db).unwrap();
        let ledger = Ledger::open(&ix, &db).unwrap();
        let answer = ledger.status(&ix, &migration).unwrap();
        status.push(t.elapsed());
        counts = format!("{:?}", answer.counts);
    }
    println!("  plan status after an edit, in process {}  ({counts})", pct(status));
}
