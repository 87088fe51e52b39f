//! The resolution fixture suites (`tests/fixtures/{python,typescript}`): each case is indexed
//! on its own and its edges compared exactly with the expected file. Prints precision and
//! recall per category and overall:
//!
//! ```sh
//! cargo test --test resolution -- --nocapture
//! ```
//!
//! The list of cases that pass exactly is kept in `tests/fixtures/<lang>/PASSING.txt`; a case
//! on that list that stops passing fails the test (no regressions). After an improvement,
//! refresh it on purpose with `UPDATE_EXPECT=1` and read the diff.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use ckg_core::index::{IndexConfig, index};

#[derive(Default)]
struct Score {
    cases: usize,
    exact: usize,
    tp: usize,
    expected: usize,
    produced: usize,
    /// Heuristic-tier edges (not part of the comparison), and how many are expected edges.
    heuristic: usize,
    heuristic_correct: usize,
}

impl Score {
    fn add(&mut self, o: &Score) {
        self.cases += o.cases;
        self.exact += o.exact;
        self.tp += o.tp;
        self.expected += o.expected;
        self.produced += o.produced;
        self.heuristic += o.heuristic;
        self.heuristic_correct += o.heuristic_correct;
    }
    fn precision(&self) -> f64 {
        if self.produced == 0 { 1.0 } else { self.tp as f64 / self.produced as f64 }
    }
    fn recall(&self) -> f64 {
        if self.expected == 0 { 1.0 } else { self.tp as f64 / self.expected as f64 }
    }
}

fn cases(root: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for cat in std::fs::read_dir(root).unwrap().flatten() {
        if !cat.path().is_dir() {
            continue;
        }
        for case in std::fs::read_dir(cat.path()).unwrap().flatten() {
            if case.path().is_dir() {
                out.push((format!("{}/{}", cat.file_name().to_string_lossy(), case.file_name().to_string_lossy()), case.path()));
            }
        }
    }
    out.sort();
    out
}

fn expected(path: &Path) -> BTreeSet<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

/// The edges ckg produces for one case, in the suite's line format: the exact and inferred
/// ones, and apart from them the heuristic ones.
///
/// These suites predate values in the graph: the TypeScript one lists `imports` once per
/// module pair and no edges to values: imports of single definitions, references to and writes of value symbols
/// are left to the values suite
/// (`tests/values.rs`).
fn produced(case: &Path, python: bool) -> (BTreeSet<String>, BTreeSet<String>) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("index.db");
    let mut config = IndexConfig::new(case);
    config.db = Some(db.clone());
    config.jobs = 1;
    config.totals = false;
    index(&config, &|_| {}).unwrap();
    let kinds = common::symbol_kinds(&db);
    let (mut out, mut heuristic) = (BTreeSet::new(), BTreeSet::new());
    for (kind, src, dst, evidence) in common::resolved_edges(&db) {
        let set = if evidence == "heuristic" { &mut heuristic } else { &mut out };
        let dst_kind = kinds.get(&dst).map(String::as_str).unwrap_or("");
        if python {
            if kind == "calls" || kind == "instantiates" {
                set.insert(format!("{src} -> {dst}"));
            }
        } else if kind == "imports" && !matches!(dst_kind, "module" | "external") {
            // An import of one definition: its module pair is listed already.
        } else if !dst.starts_with("<builtin>")
            && kind != "exports"
            && kind != "writes"
            && !(kind == "references" && matches!(dst_kind, "variable" | "constant" | "attribute" | "property"))
        {
            set.insert(format!("{kind} {src} -> {dst}"));
        }
    }
    (out, heuristic)
}

fn suite(lang: &str) {
    let python = lang == "python";
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(lang);
    let expected_name = if python { "calls.txt" } else { "edges.txt" };
    let mut by_cat: BTreeMap<String, Score> = BTreeMap::new();
    let mut passing = Vec::new();
    let mut report = Vec::new();
    for (name, dir) in cases(&root) {
        let want = expected(&dir.join(expected_name));
        let (got, heuristic) = produced(&dir, python);
        let tp = want.intersection(&got).count();
        let s = Score {
            cases: 1,
            exact: usize::from(want == got),
            tp,
            expected: want.len(),
            produced: got.len(),
            heuristic: heuristic.len(),
            heuristic_correct: want.intersection(&heuristic).count(),
        };
        if want == got {
            passing.push(name.clone());
        } else if std::env::var_os("CKG_FIXTURE_DIFF").is_some() {
            let missing: Vec<&String> = want.difference(&got).collect();
            let extra: Vec<&String> = got.difference(&want).collect();
            report.push(format!("{name}\n  missing: {missing:?}\n  extra: {extra:?}"));
        }
        by_cat.entry(name.split('/').next().unwrap().to_string()).or_default().add(&s);
    }
    let mut total = Score::default();
    println!("\n{lang} fixture suite: category, cases exact, precision, recall");
    for (cat, s) in &by_cat {
        println!("  {cat:<22} {:>3}/{:<3}  P {:.3}  R {:.3}", s.exact, s.cases, s.precision(), s.recall());
        total.add(s);
    }
    println!(
        "  {:<22} {:>3}/{:<3}  P {:.3}  R {:.3}  ({} expected edges, {} produced, {} correct)",
        "TOTAL",
        total.exact,
        total.cases,
        total.precision(),
        total.recall(),
        total.expected,
        total.produced,
        total.tp
    );
    println!("  heuristic tier (not compared above): {} edges, {} of them expected edges", total.heuristic, total.heuristic_correct);
    for r in &report {
        println!("{r}");
    }
    // The index's table is written by hand: its totals must be the suite's.
    let index = std::fs::read_to_string(root.join("INDEX.md")).unwrap();
    let totals: Vec<usize> = index
        .lines()
        .find(|l| l.starts_with("| **total** |"))
        .expect("INDEX.md has a total row")
        .split('|')
        .filter_map(|cell| cell.trim().trim_matches('*').parse().ok())
        .collect();
    assert_eq!(totals, [total.cases, total.expected], "INDEX.md's total row (cases, edges) is out of date");
    let passing_file = root.join("PASSING.txt");
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&passing_file, passing.join("\n") + "\n").unwrap();
        return;
    }
    let recorded: BTreeSet<String> = expected(&passing_file);
    let now: BTreeSet<String> = passing.into_iter().collect();
    let regressed: Vec<&String> = recorded.difference(&now).collect();
    assert!(regressed.is_empty(), "cases that passed before and fail now: {regressed:#?}");
    assert!(total.cases >= 100, "the {lang} suite should have at least 100 cases");
}

#[test]
fn python_fixture_suite() {
    suite("python");
}

#[test]
fn typescript_fixture_suite() {
    suite("typescript");
}
