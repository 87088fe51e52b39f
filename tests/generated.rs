//! A generated repository (`ckg-gen`, 10k lines per language) against the ground truth the
//! generator wrote: every edge kind must match exactly (precision and recall 1.0).

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
    let conn = rusqlite::Connection::open(dir.path().join("index.db")).unwrap();
    let mut s = conn
        .prepare(
            "SELECT e.kind, src.qname, dst.qname FROM edges e JOIN symbols src ON src.id = e.src_id JOIN symbols dst ON dst.id = e.dst_id
             WHERE e.evidence != 'unresolved' AND e.kind != 'exports'
             AND NOT (e.kind = 'references' AND EXISTS (SELECT 1 FROM refs r WHERE r.file_id = e.file_id AND r.line = e.line
                      AND r.col = e.col AND r.kind = 'type'))",
        )
        .unwrap();
    let got: BTreeSet<String> = s
        .query_map([], |r| Ok(format!("{} {} -> {}", r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut report = BTreeMap::new();
    for kind in ["calls", "instantiates", "imports", "inherits", "references"] {
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
