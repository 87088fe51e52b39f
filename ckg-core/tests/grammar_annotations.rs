//! Annotated grammar tests: every file under `grammars/<lang>/test/` carries assertion
//! comments under the token they test (tree-sitter's convention):
//!
//! ```text
//! def foo():
//! #   ^ definition.function        a capture of that name covers this column
//! #   ^ !reference.call            no capture of that name covers it
//! # <- import.statement            column of the comment's start
//! ```
//!
//! A definition or reference is checked at its `@name` node; other captures at their node.

use std::path::{Path, PathBuf};

use ckg_core::lang::{Lang, LanguageConfig};
use tree_sitter::{Parser, Point, QueryCursor, StreamingIterator};

fn grammars_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("grammars")
}

struct Record {
    name: String,
    start: Point,
    end: Point,
}

fn records(lang: Lang, src: &[u8]) -> Vec<Record> {
    let config = LanguageConfig::get(lang.grammar());
    let mut parser = Parser::new();
    parser.set_language(&config.language).unwrap();
    let tree = parser.parse(src, None).unwrap();
    let names = config.query.capture_names();
    let mut cursor = QueryCursor::new();
    let mut out = Vec::new();
    let mut matches = cursor.matches(&config.query, tree.root_node(), src);
    while let Some(m) = matches.next() {
        let name_node = m.captures.iter().find(|c| names[c.index as usize] == "name").map(|c| c.node);
        for c in m.captures {
            let cname = names[c.index as usize];
            if cname == "name" || cname.starts_with('_') {
                continue;
            }
            let node =
                if cname.starts_with("definition.") || cname.starts_with("reference.") { name_node.unwrap_or(c.node) } else { c.node };
            out.push(Record { name: cname.to_string(), start: node.start_position(), end: node.end_position() });
        }
    }
    out
}

fn covers(r: &Record, row: usize, col: usize) -> bool {
    let p = (row, col);
    (r.start.row, r.start.column) <= p && p < (r.end.row, r.end.column)
}

#[test]
fn annotated_grammar_tests_pass() {
    let mut failures = Vec::new();
    let mut files = 0;
    let mut assertions = 0;
    let mut langs_seen = std::collections::BTreeSet::new();
    for dir in std::fs::read_dir(grammars_dir()).unwrap() {
        let test_dir = dir.unwrap().path().join("test");
        let Ok(entries) = std::fs::read_dir(&test_dir) else { continue };
        for entry in entries {
            let path = entry.unwrap().path();
            let Some(lang) = Lang::from_path(&path.to_string_lossy()) else { continue };
            langs_seen.insert(lang.as_str());
            files += 1;
            let src = std::fs::read_to_string(&path).unwrap();
            let recs = records(lang, src.as_bytes());
            let prefix = if lang == Lang::Python { "#" } else { "//" };
            let lines: Vec<&str> = src.lines().collect();
            let mut target_row = None;
            let mut in_file = 0;
            for (i, line) in lines.iter().enumerate() {
                let trimmed = line.trim_start();
                let is_assertion = trimmed.starts_with(prefix) && (trimmed.contains('^') || trimmed.contains("<-"));
                if !is_assertion {
                    target_row = Some(i);
                    continue;
                }
                let Some(row) = target_row else { continue };
                let (col, rest) = if let Some(c) = line.find('^') {
                    (c, &line[c + 1..])
                } else {
                    let c = line.find(prefix).unwrap();
                    (c, &line[line.find("<-").unwrap() + 2..])
                };
                for token in rest.split_whitespace() {
                    let (negate, name) = match token.strip_prefix('!') {
                        Some(n) => (true, n),
                        None => (false, token),
                    };
                    assertions += 1;
                    in_file += 1;
                    let found = recs.iter().any(|r| r.name == name && covers(r, row, col));
                    if found == negate {
                        failures.push(format!(
                            "{}:{}:{}: expected {}{name} at `{}`",
                            path.display(),
                            row + 1,
                            col + 1,
                            if negate { "no " } else { "" },
                            lines[row].get(col..).unwrap_or("").chars().take(20).collect::<String>()
                        ));
                    }
                }
            }
            assert!(in_file > 0, "{} has no assertions", path.display());
        }
    }
    assert!(files >= 4, "expected annotated tests for every language, found {files} files");
    assert_eq!(langs_seen.len(), 4, "languages with annotated tests: {langs_seen:?}");
    assert!(failures.is_empty(), "{} of {assertions} assertions failed:\n{}", failures.len(), failures.join("\n"));
}
