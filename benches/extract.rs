//! Parse and parse+extract throughput per language (bytes/s), on bundled inputs:
//! TypeScript from `corpora/express-app`, Python from `tests/fixtures/python`, TSX and
//! JavaScript from the annotated grammar tests. Syntax-error inputs are measured separately.
//! Each with tree-sitter as it comes (the grammars' own parse tables, its own lexer step),
//! with ckg's lexer step (`Extractor::with_ascii_step`, what every parse of ckg's uses), and
//! with that step and the expanded tables (`Extractor::with_expanded_tables`), and with both
//! and the reduction in place (`Extractor::with_reduce_in_place`): as a full index parses.
//!
//! `cargo bench --bench extract`

use std::path::Path;

use ckg_core::extract::{ExpandedTables, Extractor};
use ckg_core::lang::Lang;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn collect(dir: &Path, lang: Lang, out: &mut Vec<Vec<u8>>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, lang, out);
        } else if Lang::from_path(&p.to_string_lossy()) == Some(lang) {
            out.push(std::fs::read(&p).unwrap());
        }
    }
}

fn inputs() -> Vec<(&'static str, Lang, Vec<Vec<u8>>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut ts = Vec::new();
    collect(&root.join("corpora/express-app"), Lang::TypeScript, &mut ts);
    let mut py = Vec::new();
    collect(&root.join("tests/fixtures/python"), Lang::Python, &mut py);
    let mut tsx = Vec::new();
    collect(&root.join("grammars/tsx/test"), Lang::Tsx, &mut tsx);
    let tsx: Vec<Vec<u8>> = tsx.iter().cycle().take(50).cloned().collect();
    let mut js = Vec::new();
    collect(&root.join("grammars/javascript/test"), Lang::JavaScript, &mut js);
    let js: Vec<Vec<u8>> = js.iter().cycle().take(50).cloned().collect();
    // Syntax errors: every TypeScript file cut in the middle of a line.
    let broken: Vec<Vec<u8>> = ts.iter().map(|f| f[..f.len() * 2 / 3].to_vec()).collect();
    vec![
        ("typescript", Lang::TypeScript, ts),
        ("python", Lang::Python, py),
        ("tsx", Lang::Tsx, tsx),
        ("javascript", Lang::JavaScript, js),
        ("typescript_syntax_errors", Lang::TypeScript, broken),
    ]
}

fn bench(c: &mut Criterion) {
    for (name, lang, files) in inputs() {
        if files.is_empty() {
            continue;
        }
        let bytes: usize = files.iter().map(Vec::len).sum();
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Bytes(bytes as u64));
        group.sample_size(20);
        let setups = [
            ("", ExpandedTables::default(), false, false),
            ("_ascii_step", ExpandedTables::default(), true, false),
            ("_expanded_tables", ExpandedTables::ALL, true, false),
            ("_reduce_in_place", ExpandedTables::ALL, true, true),
        ];
        for (tables, expanded, ascii_step, in_place) in setups {
            let mut ex = Extractor::with_expanded_tables(expanded).with_ascii_step(ascii_step).with_reduce_in_place(in_place);
            group.bench_function(format!("parse{tables}"), |b| {
                b.iter(|| {
                    for f in &files {
                        std::hint::black_box(ex.parse(lang, f));
                    }
                })
            });
            group.bench_function(format!("parse_extract{tables}"), |b| {
                b.iter(|| {
                    for f in &files {
                        std::hint::black_box(ex.extract(lang, "m", f));
                    }
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
