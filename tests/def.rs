//! The go-to-definition suite (`tests/fixtures/def/{python,typescript}`): annotated positions in
//! small repositories, each with the definition `ckg query def` must answer (format and rules
//! in the suite's README). Prints accuracy per category:
//!
//! ```sh
//! cargo test --test def -- --nocapture
//! ```
//!
//! The positions answered correctly are listed in `tests/fixtures/def/<lang>/PASSING.txt`; a
//! listed position that stops being answered correctly fails the test. Refresh it on purpose
//! with `UPDATE_EXPECT=1`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use ckg_core::index::{IndexConfig, index};

/// One annotated position: file (relative to the case), line, column, expected answer.
struct Ask {
    file: String,
    line: u32,
    col: u32,
    expected: String,
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

fn source_files(dir: &Path, base: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            source_files(&p, base, out);
        } else if ckg_core::lang::Lang::from_path(&p.to_string_lossy()).is_some() {
            out.push(p.strip_prefix(base).unwrap().to_path_buf());
        }
    }
}

/// The annotations of one file.
fn annotations(case: &Path, rel: &Path) -> Vec<Ask> {
    let text = std::fs::read_to_string(case.join(rel)).unwrap();
    let comment = if rel.extension().is_some_and(|e| e == "py") { "#" } else { "//" };
    let mut out = Vec::new();
    let mut code_line = 0;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        let is_annotation = t.starts_with(comment) && t.contains('^') && t.contains(" -> ");
        if !is_annotation {
            code_line = i + 1;
            continue;
        }
        let col = line.find('^').unwrap() + 1;
        let expected = line.split(" -> ").nth(1).unwrap().trim().to_string();
        out.push(Ask { file: rel.to_string_lossy().replace('\\', "/"), line: code_line as u32, col: col as u32, expected });
    }
    out
}

/// What ckg answers, in the annotation's vocabulary.
fn answer(index: &ckg_query::Index, ask: &Ask) -> String {
    match index.def_at(&ask.file, ask.line, ask.col) {
        Ok(a) => match a.definition {
            None => "none".to_string(),
            Some(d) if matches!(d.node.kind.as_str(), "local" | "parameter") => format!("local {}:{}", d.node.line, d.node.col),
            Some(d) => d.node.qname,
        },
        Err(e) => format!("error: {e}"),
    }
}

fn suite(lang: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/def").join(lang);
    let mut by_cat: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut passing = Vec::new();
    let mut report = Vec::new();
    for (name, dir) in cases(&root) {
        let db_dir = tempfile::tempdir().unwrap();
        let mut config = IndexConfig::new(&dir);
        config.db = Some(db_dir.path().join("index.db"));
        config.jobs = 1;
        config.totals = false;
        index(&config, &|_| {}).unwrap();
        let ix = ckg_query::Index::open(&db_dir.path().join("index.db")).unwrap();
        let mut files = Vec::new();
        source_files(&dir, &dir, &mut files);
        files.sort();
        for rel in files {
            for ask in annotations(&dir, &rel) {
                let got = answer(&ix, &ask);
                let ok = got == ask.expected;
                let e = by_cat.entry(name.split('/').next().unwrap().to_string()).or_default();
                e.0 += 1;
                e.1 += usize::from(ok);
                let key = format!("{name}/{}:{}:{}", ask.file, ask.line, ask.col);
                if ok {
                    passing.push(key);
                } else if std::env::var_os("CKG_FIXTURE_DIFF").is_some() {
                    report.push(format!("{key}: expected {}, got {got}", ask.expected));
                }
            }
        }
    }
    let (mut asked, mut right) = (0, 0);
    println!("\n{lang} go-to-definition suite: category, correct / asked");
    for (cat, (n, ok)) in &by_cat {
        println!("  {cat:<24} {ok:>3}/{n:<3}  {:.3}", *ok as f64 / *n as f64);
        asked += n;
        right += ok;
    }
    println!("  {:<24} {right:>3}/{asked:<3}  {:.3}", "TOTAL", right as f64 / asked as f64);
    for r in &report {
        println!("{r}");
    }
    let passing_file = root.join("PASSING.txt");
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&passing_file, passing.join("\n") + "\n").unwrap();
        return;
    }
    let recorded: BTreeSet<String> =
        std::fs::read_to_string(&passing_file).unwrap_or_default().lines().filter(|l| !l.is_empty()).map(String::from).collect();
    let now: BTreeSet<String> = passing.into_iter().collect();
    let regressed: Vec<&String> = recorded.difference(&now).collect();
    assert!(regressed.is_empty(), "positions answered before and not now: {regressed:#?}");
    assert!(asked >= 190, "the {lang} suite should ask at least 190 positions");
}

#[test]
fn python_definition_suite() {
    suite("python");
}

#[test]
fn typescript_definition_suite() {
    suite("typescript");
}

/// A use of an import's alias (`{ f as g }`, `from m import f as g`) is answered from its
/// edge to the imported name (`via` set), not by parsing the file again.
#[test]
fn an_alias_is_answered_from_its_edge() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("a.ts"), "export function parseLedger(x: number) { return x; }\n").unwrap();
    std::fs::write(root.join("b.ts"), "import { parseLedger as ledger } from './a';\nexport function run() {\n  return ledger(1);\n}\n")
        .unwrap();
    std::fs::write(root.join("m.py"), "def parse_ledger(x):\n    return x\n").unwrap();
    std::fs::write(root.join("n.py"), "from m import parse_ledger as ledger\n\ndef run():\n    return ledger(1)\n").unwrap();
    let mut config = IndexConfig::new(root);
    config.db = Some(root.join("index.db"));
    index(&config, &|_| {}).unwrap();
    let ix = ckg_query::Index::open(&root.join("index.db")).unwrap();
    for (file, line, col, expected) in [("b.ts", 3, 10, "a.ts#parseLedger"), ("n.py", 4, 12, "m.parse_ledger")] {
        let d = ix.def_at(file, line, col).unwrap().definition.unwrap_or_else(|| panic!("{file}:{line}:{col}: no definition"));
        assert_eq!(d.node.qname, expected, "{file}:{line}:{col}");
        let via = d.via.unwrap_or_else(|| panic!("{file}:{line}:{col}: answered without the graph's edge"));
        assert_eq!((via.kind.as_str(), via.line, via.col), ("calls", line, col));
    }
}
