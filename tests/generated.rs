//! A generated repository (`ckg-gen`, 10k lines per language) against the ground truth the
//! generator wrote: every edge kind must match exactly (precision and recall 1.0).

mod common;

use std::collections::{BTreeMap, BTreeSet};

use ckg_core::index::{IndexConfig, index};

fn check(lang: ckg_gen::Lang, seed: u64) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    let truth: BTreeSet<String> =
        ckg_gen::generate_repo(&ckg_gen::Config { lang, lines: 10_000, seed }, &root).unwrap().1.into_iter().collect();
    let mut config = IndexConfig::new(&root);
    config.db = Some(dir.path().join("index.db"));
    index(&config, &|_| {}).unwrap();
    let got: BTreeSet<String> = common::resolved_edges(&dir.path().join("index.db"))
        .into_iter()
        .filter(|(kind, _, _, _)| kind != "exports")
        .map(|(kind, src, dst, _)| format!("{kind} {src} -> {dst}"))
        .collect();
    let mut report = BTreeMap::new();
    for kind in ["calls", "instantiates", "imports", "inherits", "references", "writes"] {
        let t: BTreeSet<&String> = truth.iter().filter(|e| e.starts_with(&format!("{kind} "))).collect();
        let g: BTreeSet<&String> = got.iter().filter(|e| e.starts_with(&format!("{kind} "))).collect();
        let missing: Vec<&&String> = t.difference(&g).take(5).collect();
        let extra: Vec<&&String> = g.difference(&t).take(5).collect();
        report.insert(kind, (t.len(), g.len(), missing.len(), extra.len()));
        assert!(missing.is_empty() && extra.is_empty(), "{lang:?} {kind}: missing {missing:#?}\nextra {extra:#?}");
    }
    eprintln!("{lang:?} seed {seed}: (truth, produced, missing, extra) per kind: {report:?}");
}

#[test]
fn generated_python_matches_its_ground_truth() {
    check(ckg_gen::Lang::Python, 1);
}

#[test]
fn generated_typescript_matches_its_ground_truth() {
    check(ckg_gen::Lang::TypeScript, 2);
}
