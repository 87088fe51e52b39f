//! The fuzz targets' checks on stable: every minimized finding under `fuzz/regressions/<target>/`
//! replayed through the checks of the target that found it (the same code: `fuzz/src/checks`
//! is included by path), the seed files through the extraction checks, and a fixed stream of
//! pseudo-random inputs through every target's checks, so this test has teeth even when no
//! finding is recorded. See fuzz/README.md.

#[allow(dead_code)]
#[path = "../fuzz/src/checks/mod.rs"]
mod checks;
mod common;

use std::path::{Path, PathBuf};

use checks::seeds::{self, Seed};
use common::Rng;

fn root() -> PathBuf {
    seeds::repo_root(env!("CARGO_MANIFEST_DIR"))
}

fn seed_files() -> Vec<Seed> {
    let seeds = seeds::load(&root());
    assert!(seeds.len() >= 100, "only {} seed files under {:?}", seeds.len(), seeds::SEED_DIRS);
    seeds
}

/// The recorded inputs of a target (files not starting with `.` and not `*.md`), sorted.
fn inputs(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = root().join("fuzz/regressions").join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries.flatten().map(|e| e.path()).filter(|p| is_input(p)).collect();
    files.sort();
    files.into_iter().map(|p| (p.clone(), std::fs::read(&p).unwrap())).collect()
}

fn is_input(p: &Path) -> bool {
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    p.is_file() && !name.starts_with('.') && !name.ends_with(".md")
}

/// Runs `f` on another thread and fails when it takes longer than `limit` (a hang is a
/// finding too; the thread is left behind and ends with the test process).
fn within(limit: std::time::Duration, what: &str, f: impl FnOnce() + Send + 'static) {
    let (done, wait) = std::sync::mpsc::channel();
    let worker = std::thread::spawn(move || {
        f();
        let _ = done.send(());
    });
    match wait.recv_timeout(limit) {
        Ok(()) => worker.join().unwrap(),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => std::panic::resume_unwind(worker.join().unwrap_err()),
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => panic!("{what}: no result within {limit:?}"),
    }
}

const PROJECT_LIMIT: std::time::Duration = std::time::Duration::from_secs(60);

fn replay(target: &str, check: impl Fn(&[u8])) {
    for (path, data) in inputs(target) {
        eprintln!("{target}: {}", path.display());
        check(&data);
    }
}

#[test]
fn extract_bytes_regressions() {
    replay("extract_bytes", checks::extract::fuzz);
}

#[test]
fn extract_mutate_regressions() {
    let seeds = seed_files();
    replay("extract_mutate", |data| checks::mutate::fuzz(&seeds, data));
}

#[test]
fn resolve_project_regressions() {
    replay("resolve_project", |data| {
        let data = data.to_vec();
        within(PROJECT_LIMIT, "resolve_project", move || checks::project::fuzz(&data));
    });
}

#[test]
fn refblob_decode_regressions() {
    replay("refblob_decode", checks::refblob::fuzz);
}

#[test]
fn sql_guard_regressions() {
    let sample = checks::project::sample_index();
    let guarded = checks::sql::Guarded::copy_of(&ckg_core::index::default_db_path(sample.path()));
    replay("sql_guard", |data| guarded.fuzz(data));
}

#[test]
fn http_request_regressions() {
    let harness = checks::http::Harness::new();
    replay("http_request", |data| harness.fuzz(data));
}

#[test]
fn seed_files_pass_the_extraction_checks() {
    for seed in seed_files() {
        eprintln!("seed: {}", seed.path.display());
        checks::extract::check(seed.lang, &seed.src);
        // A file cut anywhere is a file a user saves halfway through typing.
        let cut = seed.src.len() / 2;
        checks::extract::check(seed.lang, &seed.src[..cut]);
    }
}

#[test]
fn seed_files_with_random_damage_pass_the_extraction_checks() {
    let seeds = seed_files();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..300 {
        let seed = &seeds[rng.below(seeds.len())];
        let mut src = seed.src.clone();
        for _ in 0..1 + rng.below(8) {
            let at = rng.below(src.len() + 1);
            match rng.below(3) {
                0 => {
                    let end = (at + rng.below(32)).min(src.len());
                    src.drain(at..end);
                }
                1 => {
                    let n = rng.below(16);
                    src.splice(at..at, rng.bytes(n));
                }
                _ => {
                    let from = rng.below(src.len() + 1);
                    let chunk = src[from..(from + rng.below(64)).min(src.len())].to_vec();
                    src.splice(at..at, chunk);
                }
            }
        }
        let mut input = vec![checks::extract::lang_byte(seed.lang)];
        input.extend_from_slice(&src);
        checks::extract::fuzz(&input);
    }
}

#[test]
fn random_inputs_pass_every_target_check() {
    let seeds = seed_files();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for _ in 0..200 {
        let n = rng.below(64);
        checks::mutate::fuzz(&seeds, &rng.bytes(n));
    }
    for _ in 0..2000 {
        let n = rng.below(48);
        let mut blob = rng.bytes(n);
        // Mostly of the version the decoder reads, so that more than the first byte is read.
        if let Some(version) = blob.first_mut().filter(|_| rng.below(4) > 0) {
            *version = 1;
        }
        checks::refblob::fuzz(&blob);
    }
    for _ in 0..12 {
        let n = 64 + rng.below(512);
        checks::project::fuzz(&rng.bytes(n));
    }
    let harness = checks::http::Harness::new();
    for _ in 0..200 {
        let n = rng.below(256);
        harness.fuzz(&rng.bytes(n));
    }
}

/// Statements made of SQL words, the ckg tables and punctuation: most are refused, some read,
/// and every one the guard accepts must leave the database as it was.
#[test]
fn random_statements_pass_the_sql_guard_check() {
    const WORDS: &[&str] = &[
        "SELECT",
        "WITH",
        "VALUES",
        "EXPLAIN",
        "x",
        "AS",
        "(",
        ")",
        "*",
        "FROM",
        "files",
        "symbols",
        "edges",
        "meta",
        ";",
        "DELETE",
        "INSERT",
        "INTO",
        "UPDATE",
        "SET",
        "RETURNING",
        "CREATE",
        "TEMP",
        "TABLE",
        "DROP",
        "PRAGMA",
        "BEGIN",
        "COMMIT",
        "ATTACH",
        "'t.db'",
        "1",
        ",",
        "=",
        "--",
        "/*",
        "*/",
        "\n",
        "UNION",
        "ALL",
        "WHERE",
        "LIMIT",
        "pragma_table_info('files')",
    ];
    let sample = checks::project::sample_index();
    let guarded = checks::sql::Guarded::copy_of(&ckg_core::index::default_db_path(sample.path()));
    let mut rng = Rng(0xd1b5_4a32_d192_ed03);
    for _ in 0..3000 {
        let n = 1 + rng.below(10);
        let words: Vec<&str> = (0..n).map(|_| WORDS[rng.below(WORDS.len())]).collect();
        guarded.fuzz(words.join(" ").as_bytes());
    }
}

/// Hand-written projects of the shapes `resolve_project` generates, through its check: the
/// crash of issue #17's opening (a class whose base is its own member), names imported from
/// themselves many times, inheritance and re-export cycles across files, self-referential
/// types, and member chains thousands long.
#[test]
fn hard_projects_pass_the_resolution_check() {
    let project =
        |files: &[(&str, &str)]| checks::project::Project { files: files.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect() };
    let chain = |n: usize| (0..n).map(|i| format!("m{}", i % 7)).collect::<Vec<_>>().join(".");
    let deep_py = format!("import b\nx = b.{}\nb.{}()\n", chain(3000), chain(3000));
    let deep_ts = format!("import {{ b }} from './b';\nconst x = b.{};\nb.{}();\n", chain(3000), chain(3000));
    let repeat = |line: &str, n: usize| line.repeat(n);
    let self_imports = repeat("from a import A\n", 30);
    let (py_a, py_b) = (repeat("from b import A\n", 15), repeat("from a import A\n", 15));
    let ts_a = format!("{}export {{ A }};\n", repeat("import { A } from './b';\n", 15));
    let ts_b = format!("{}export {{ A }};\n", repeat("import { A } from './a';\n", 15));
    let cases = [
        // Found by resolve_project: a name imported from its own module, nine times, took
        // seconds (every binding was tried again at every hop); thirty took hours.
        project(&[("a.py", &self_imports)]),
        project(&[("a.py", &py_a), ("b.py", &py_b)]),
        project(&[("src/a.ts", &ts_a), ("src/b.ts", &ts_b)]),
        // Found by resolve_project: a member typed by a path through itself, in an interface
        // declared twice, overflowed the stack (instance_of started its depth again).
        project(&[("src/b.ts", &repeat("interface exports extends exports { exports: exports.exports; m(): exports.exports; }\n", 2))]),
        project(&[("a.py", "class A(A.B):\n    class B(A):\n        pass\n\nclass C(C):\n    pass\n")]),
        project(&[
            ("a.py", "from b import B\n\nclass A(B):\n    def f(self):\n        return self.g()\n"),
            ("b.py", "from a import A\n\nclass B(A):\n    def g(self):\n        return super().f()\n"),
        ]),
        project(&[("pkg/__init__.py", "from .c import *\n"), ("pkg/c.py", "from . import *\nfrom pkg import c\n__all__ = ['c']\n")]),
        project(&[
            ("src/a.ts", "export * from './b';\nexport { X as Y } from './b';\nexport class A extends A.B {}\n"),
            (
                "src/b.ts",
                "export * from './a';\nexport { Y as X } from './a';\ninterface I extends I { i: I }\ntype T = T[] | { next: T };\nenum E { A = E.B, B = E.A }\n",
            ),
        ]),
        project(&[("b.py", "m0 = 1\n"), ("a.py", &deep_py)]),
        project(&[("src/b.ts", "export const b = {};\n"), ("src/a.ts", &deep_ts)]),
    ];
    for case in cases {
        let (path, text) = case.files[0].clone();
        within(PROJECT_LIMIT, &format!("the project of {path}"), move || {
            checks::project::check(&case, None);
            checks::project::check(&case, Some(&(path, format!("{text}\n# edited\n"))));
        });
    }
}
