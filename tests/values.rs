//! The values fixture suite (`tests/fixtures/values/{python,typescript}`): each case is
//! indexed on its own; its value symbols are compared with `symbols.txt` and its `references`,
//! `writes` and `imports` edges to repository definitions with `edges.txt` (rules in the
//! suite's README). Prints precision and recall per category and overall:
//!
//! ```sh
//! cargo test --test values -- --nocapture
//! ```
//!
//! Cases that pass exactly are listed in `tests/fixtures/values/<lang>/PASSING.txt`; a case on
//! that list that stops passing fails the test. Refresh it on purpose with `UPDATE_EXPECT=1`.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use ckg_core::index::{IndexConfig, index};

#[derive(Default, Clone, Copy)]
struct Counts {
    tp: usize,
    expected: usize,
    produced: usize,
}

impl Counts {
    fn of(want: &BTreeSet<String>, got: &BTreeSet<String>) -> Counts {
        Counts { tp: want.intersection(got).count(), expected: want.len(), produced: got.len() }
    }
    fn add(&mut self, o: Counts) {
        self.tp += o.tp;
        self.expected += o.expected;
        self.produced += o.produced;
    }
    fn precision(&self) -> f64 {
        if self.produced == 0 { 1.0 } else { self.tp as f64 / self.produced as f64 }
    }
    fn recall(&self) -> f64 {
        if self.expected == 0 { 1.0 } else { self.tp as f64 / self.expected as f64 }
    }
}

#[derive(Default)]
struct Score {
    cases: usize,
    exact: usize,
    symbols: Counts,
    edges: Counts,
}

fn cases(root: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for cat in std::fs::read_dir(root).unwrap().flatten().filter(|c| c.path().is_dir()) {
        for case in std::fs::read_dir(cat.path()).unwrap().flatten().filter(|c| c.path().is_dir()) {
            out.push((format!("{}/{}", cat.file_name().to_string_lossy(), case.file_name().to_string_lossy()), case.path()));
        }
    }
    out.sort();
    out
}

fn lines(path: &Path) -> BTreeSet<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

/// The value symbols and the value edges ckg produces for one case.
fn produced(case: &Path) -> (BTreeSet<String>, BTreeSet<String>) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("index.db");
    let mut config = IndexConfig::new(case);
    config.db = Some(db.clone());
    config.jobs = 1;
    config.totals = false;
    index(&config, &|_| {}).unwrap();
    let kinds = common::symbol_kinds(&db);
    // Value symbols; members of interfaces and type literals describe types, not values.
    let conn = rusqlite::Connection::open(&db).unwrap();
    let mut s = conn
        .prepare(
            "SELECT s.kind, s.qname FROM symbols s LEFT JOIN symbols p ON p.id = s.parent_id
             WHERE s.kind IN ('variable', 'constant', 'attribute', 'property') AND coalesce(p.kind, '') NOT IN ('interface', 'type')",
        )
        .unwrap();
    let symbols =
        s.query_map([], |r| Ok(format!("{} {}", r.get::<_, String>(0)?, r.get::<_, String>(1)?))).unwrap().map(Result::unwrap).collect();
    let mut edges = BTreeSet::new();
    for (kind, src, dst, evidence) in common::resolved_edges(&db) {
        let dst_kind = kinds.get(&dst).map(String::as_str).unwrap_or("external");
        let repository = !matches!(dst_kind, "external" | "module");
        let listed = match kind.as_str() {
            "references" | "writes" | "imports" => repository,
            _ => false,
        };
        if listed && evidence != "heuristic" {
            edges.insert(format!("{kind} {src} -> {dst}"));
        }
    }
    (symbols, edges)
}

fn suite(lang: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/values").join(lang);
    let mut by_cat: BTreeMap<String, Score> = BTreeMap::new();
    let mut passing = Vec::new();
    let mut report = Vec::new();
    for (name, dir) in cases(&root) {
        let (want_s, want_e) = (lines(&dir.join("symbols.txt")), lines(&dir.join("edges.txt")));
        let (got_s, got_e) = produced(&dir);
        let exact = want_s == got_s && want_e == got_e;
        if exact {
            passing.push(name.clone());
        } else if std::env::var_os("CKG_FIXTURE_DIFF").is_some() {
            let diff = |w: &BTreeSet<String>, g: &BTreeSet<String>| {
                (w.difference(g).cloned().collect::<Vec<_>>(), g.difference(w).cloned().collect::<Vec<_>>())
            };
            let (ms, xs) = diff(&want_s, &got_s);
            let (me, xe) = diff(&want_e, &got_e);
            report.push(format!("{name}\n  symbols missing {ms:?} extra {xs:?}\n  edges missing {me:?}\n  edges extra {xe:?}"));
        }
        let s = by_cat.entry(name.split('/').next().unwrap().to_string()).or_default();
        s.cases += 1;
        s.exact += usize::from(exact);
        s.symbols.add(Counts::of(&want_s, &got_s));
        s.edges.add(Counts::of(&want_e, &got_e));
    }
    let mut total = Score::default();
    println!("\n{lang} values suite: category, cases exact, symbols P/R, edges P/R");
    for (cat, s) in &by_cat {
        println!(
            "  {cat:<24} {:>3}/{:<3}  symbols P {:.3} R {:.3}  edges P {:.3} R {:.3}",
            s.exact,
            s.cases,
            s.symbols.precision(),
            s.symbols.recall(),
            s.edges.precision(),
            s.edges.recall()
        );
        total.cases += s.cases;
        total.exact += s.exact;
        total.symbols.add(s.symbols);
        total.edges.add(s.edges);
    }
    println!(
        "  {:<24} {:>3}/{:<3}  symbols P {:.3} R {:.3} ({} expected)  edges P {:.3} R {:.3} ({} expected, {} produced)",
        "TOTAL",
        total.exact,
        total.cases,
        total.symbols.precision(),
        total.symbols.recall(),
        total.symbols.expected,
        total.edges.precision(),
        total.edges.recall(),
        total.edges.expected,
        total.edges.produced
    );
    for r in &report {
        println!("{r}");
    }
    let passing_file = root.join("PASSING.txt");
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&passing_file, passing.join("\n") + "\n").unwrap();
        return;
    }
    let recorded = lines(&passing_file);
    let now: BTreeSet<String> = passing.into_iter().collect();
    let regressed: Vec<&String> = recorded.difference(&now).collect();
    assert!(regressed.is_empty(), "cases that passed before and fail now: {regressed:#?}");
    assert!(total.cases >= 75, "the {lang} values suite should have at least 75 cases");
}

#[test]
fn python_values_suite() {
    suite("python");
}

#[test]
fn typescript_values_suite() {
    suite("typescript");
}
