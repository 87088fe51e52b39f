//! End-to-end checks of the generator: determinism, size, truth consistency, and (when python3
//! is installed) that the Python output compiles, imports and calls what the truth says.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use ckg_gen::{Config, Lang, generate, generate_in_memory, ground_truth};

/// A fresh directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::SeqCst);
        let p = std::env::temp_dir().join(format!("ckg-gen-test-{}-{tag}-{n}", std::process::id()));
        let _ = fs::remove_dir_all(&p);
        fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn read_tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let p = e.path();
            if p.is_dir() {
                if p.file_name().unwrap() != "__pycache__" {
                    walk(root, &p, out);
                }
            } else {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
                out.insert(rel, fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

fn have_python() -> bool {
    Command::new("python3").arg("--version").output().map(|o| o.status.success()).unwrap_or(false)
}

// ------------------------------------------------------------------ determinism

fn check_deterministic(lang: Lang) {
    let t = TempDir::new("det");
    let cfg = Config { lang, lines: 10_000, seed: 7 };
    let a = t.path().join("a");
    let b = t.path().join("b");
    let sa = generate(&cfg, &a).unwrap();
    let sb = generate(&cfg, &b).unwrap();
    assert_eq!(sa, sb);
    let ta = read_tree(&a);
    let tb = read_tree(&b);
    assert_eq!(ta.keys().collect::<Vec<_>>(), tb.keys().collect::<Vec<_>>());
    for (k, v) in &ta {
        assert!(v == &tb[k], "{k} differs between two runs");
    }
    let truth_a = fs::read(t.path().join("a.truth.txt")).unwrap();
    let truth_b = fs::read(t.path().join("b.truth.txt")).unwrap();
    assert_eq!(truth_a, truth_b);
    assert_eq!(sa.files, ta.len());

    // the in-memory and truth-only paths agree with the files on disk
    let mem = generate_in_memory(&cfg);
    assert_eq!(mem.summary, sa);
    for f in &mem.files {
        assert_eq!(f.contents.as_bytes(), &ta[&f.path][..], "{}", f.path);
    }
    let joined: String = mem.truth.iter().map(|l| format!("{l}\n")).collect();
    assert_eq!(joined.as_bytes(), &truth_a[..]);
    assert_eq!(ground_truth(&cfg), mem.truth);

    // a different seed gives a different repository
    let other = generate_in_memory(&Config { seed: 8, ..cfg.clone() });
    assert_ne!(other.truth, mem.truth);
}

#[test]
fn deterministic_python() {
    check_deterministic(Lang::Python);
}

#[test]
fn deterministic_typescript() {
    check_deterministic(Lang::TypeScript);
}

#[test]
fn refuses_non_empty_output_dir() {
    let t = TempDir::new("nonempty");
    fs::write(t.path().join("x.txt"), "x").unwrap();
    let err = generate(&Config { lang: Lang::Python, lines: 10_000, seed: 0 }, t.path()).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::AlreadyExists);
}

// ------------------------------------------------------------------ size

fn check_size(lang: Lang, lines: usize, seed: u64) {
    let repo = generate_in_memory(&Config { lang, lines, seed });
    let counted: usize = repo
        .files
        .iter()
        .filter(|f| f.path.ends_with(".py") || f.path.ends_with(".ts"))
        .map(|f| f.contents.bytes().filter(|&b| b == b'\n').count())
        .sum();
    assert_eq!(counted, repo.summary.lines);
    let dev = (counted as f64 - lines as f64).abs() / lines as f64;
    assert!(dev <= 0.10, "{lang:?} {lines}: got {counted} lines ({:.1}% off)", dev * 100.0);
    let mut big = 0;
    for f in &repo.files {
        let n = f.contents.lines().count();
        assert!(n <= 700, "{} has {n} lines", f.path);
        if n >= 100 {
            big += 1;
        }
    }
    assert!(big * 2 >= repo.files.len(), "most modules should have 100-400 lines");
}

#[test]
fn size_10k() {
    for seed in [0, 1, 2] {
        check_size(Lang::Python, 10_000, seed);
        check_size(Lang::TypeScript, 10_000, seed);
    }
}

#[test]
fn size_100k() {
    check_size(Lang::Python, 100_000, 3);
    check_size(Lang::TypeScript, 100_000, 3);
}

// ------------------------------------------------------------------ truth vs definitions

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum DefKind {
    Module,
    Class,
    Function,
}

fn indent_of(l: &str) -> usize {
    l.len() - l.trim_start().len()
}

fn ident_after<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = s.strip_prefix(prefix)?;
    let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
    if end == 0 { None } else { Some(&rest[..end]) }
}

/// Definitions found by reading the generated files (independently of the generator's model).
fn python_defs(files: &[(String, String)]) -> HashMap<String, DefKind> {
    let mut defs = HashMap::new();
    for (path, text) in files {
        if !path.ends_with(".py") {
            continue;
        }
        let mut module = path.trim_end_matches(".py").replace('/', ".");
        if let Some(m) = module.strip_suffix(".__init__") {
            module = m.to_string();
        }
        defs.insert(module.clone(), DefKind::Module);
        let mut stack: Vec<(usize, String)> = Vec::new();
        for l in text.lines() {
            let t = l.trim_start();
            let (name, kind) = if let Some(n) = ident_after(t, "def ") {
                (n, DefKind::Function)
            } else if let Some(n) = ident_after(t, "class ") {
                (n, DefKind::Class)
            } else {
                continue;
            };
            let ind = indent_of(l);
            while stack.last().is_some_and(|(i, _)| *i >= ind) {
                stack.pop();
            }
            let parent = stack.last().map(|(_, q)| q.clone()).unwrap_or_else(|| module.clone());
            let q = format!("{parent}.{name}");
            assert!(defs.insert(q.clone(), kind).is_none(), "duplicate definition {q}");
            stack.push((ind, q));
        }
    }
    defs
}

fn typescript_defs(files: &[(String, String)]) -> HashMap<String, DefKind> {
    let mut defs = HashMap::new();
    for (path, text) in files {
        if !path.ends_with(".ts") {
            continue;
        }
        defs.insert(path.clone(), DefKind::Module);
        let mut top = String::new();
        let mut method = String::new();
        for l in text.lines() {
            let ind = indent_of(l);
            let t = l.trim_start();
            let t2 = t.strip_prefix("export ").unwrap_or(t);
            let t2 = t2.strip_prefix("default ").unwrap_or(t2);
            if ind == 0 {
                if let Some(n) = ident_after(t2, "function ") {
                    top = n.to_string();
                    method.clear();
                    assert!(defs.insert(format!("{path}#{n}"), DefKind::Function).is_none());
                } else if let Some(n) = ident_after(t2, "class ") {
                    top = n.to_string();
                    method.clear();
                    assert!(defs.insert(format!("{path}#{n}"), DefKind::Class).is_none());
                }
                continue;
            }
            if let Some(n) = ident_after(t, "function ") {
                let parent = if ind == 2 { top.clone() } else { format!("{top}.{method}") };
                assert!(defs.insert(format!("{path}#{parent}.{n}"), DefKind::Function).is_none());
                continue;
            }
            if ind == 2
                && t.ends_with('{')
                && !t.starts_with("constructor(")
                && let Some(n) = ident_after(t, "")
                && t[n.len()..].starts_with('(')
                && !["if", "for", "while", "switch"].contains(&n)
            {
                method = n.to_string();
                assert!(defs.insert(format!("{path}#{top}.{n}"), DefKind::Function).is_none());
            }
        }
    }
    defs
}

const PY_EXTERNALS: &[&str] = &["os", "json", "logging", "os.path.join", "os.getenv", "json.dumps", "logging.info"];
const TS_EXTERNALS: &[&str] = &[
    "express",
    "path",
    "fs",
    "express.Router",
    "express.json",
    "express().use",
    "express().listen",
    "express().get",
    "express.Router().get",
    "express.Router().post",
    "express.Router().put",
    "express.Router().delete",
    "path.join",
    "fs.existsSync",
    "fs.readFileSync",
];
const PY_BUILTINS: &[&str] = &["len", "max", "min", "abs", "range", "super"];
/// The value symbols the generator writes: registries, a counter, routers, the app, attributes.
const VALUE_NAMES: &[&str] = &["_HOOKS", "hooks", "hookCount", "router", "app", "last_result", "total", "label"];

fn check_truth(lang: Lang, lines: usize, seed: u64) {
    let repo = generate_in_memory(&Config { lang, lines, seed });
    let files: Vec<(String, String)> = repo.files.iter().map(|f| (f.path.clone(), f.contents.clone())).collect();
    let defs = match lang {
        Lang::Python => python_defs(&files),
        Lang::TypeScript => typescript_defs(&files),
    };
    let externals: HashSet<&str> = match lang {
        Lang::Python => PY_EXTERNALS.iter().copied().collect(),
        Lang::TypeScript => TS_EXTERNALS.iter().copied().collect(),
    };
    let ext_packages: HashSet<&str> = match lang {
        Lang::Python => ["os", "json", "logging"].into_iter().collect(),
        Lang::TypeScript => ["express", "path", "fs"].into_iter().collect(),
    };
    assert!(!repo.truth.is_empty());
    let mut sorted = repo.truth.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted, repo.truth, "truth must be sorted and unique");
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for line in &repo.truth {
        let (kind, rest) = line.split_once(' ').unwrap();
        let (src, dst) = rest.split_once(" -> ").unwrap_or_else(|| panic!("bad line {line}"));
        assert!(!src.contains(' ') && !dst.contains(' '), "{line}");
        *kinds.entry(kind).or_default() += 1;
        // A TS constructor is a member of its class (the definition scanner lists methods only).
        let constructor = |q: &str| {
            q.strip_suffix(".constructor").and_then(|class| defs.get(class)).filter(|k| **k == DefKind::Class).map(|_| DefKind::Function)
        };
        let sk = defs.get(src).copied().or_else(|| constructor(src));
        assert!(sk.is_some(), "source of {line:?} is not a generated definition");
        let dk = defs.get(dst).copied().or_else(|| constructor(dst));
        let builtin = dst.strip_prefix("<builtin>.").is_some_and(|b| PY_BUILTINS.contains(&b));
        // Values the generator writes (registries, routers, attributes) are not in `defs`:
        // their owner is, and their names are few.
        let value = dst.rsplit_once(['.', '#']).is_some_and(|(owner, name)| VALUE_NAMES.contains(&name) && defs.contains_key(owner));
        match kind {
            "imports" => {
                assert_eq!(sk, Some(DefKind::Module), "{line}");
                // A module or package, or one definition imported by name.
                assert!(dk.is_some() || ext_packages.contains(dst), "{line}");
                assert_ne!(src, dst, "{line}");
            }
            "writes" => assert!(value, "{line}"),
            "inherits" => {
                assert_eq!(sk, Some(DefKind::Class), "{line}");
                assert_eq!(dk, Some(DefKind::Class), "{line}");
            }
            "instantiates" => assert_eq!(dk, Some(DefKind::Class), "{line}"),
            "references" => assert!(dk == Some(DefKind::Function) || value, "{line}"),
            "calls" => assert!(
                dk == Some(DefKind::Function) || externals.contains(dst) || (lang == Lang::Python && builtin),
                "callee of {line:?} is not a generated function, a known external or a builtin"
            ),
            other => panic!("unknown edge kind {other} in {line}"),
        }
    }
    for k in ["calls", "imports", "inherits", "instantiates", "references"] {
        assert!(kinds.get(k).copied().unwrap_or(0) > 0, "no {k} edges: {kinds:?}");
    }
}

#[test]
fn truth_refers_to_generated_definitions_python() {
    check_truth(Lang::Python, 10_000, 0);
    check_truth(Lang::Python, 100_000, 5);
}

#[test]
fn truth_refers_to_generated_definitions_typescript() {
    check_truth(Lang::TypeScript, 10_000, 0);
    check_truth(Lang::TypeScript, 100_000, 5);
}

#[test]
fn typescript_has_the_expected_shapes() {
    let repo = generate_in_memory(&Config { lang: Lang::TypeScript, lines: 100_000, seed: 1 });
    let all: String = repo.files.iter().map(|f| f.contents.as_str()).collect();
    for needle in [
        "export * from './",
        "export { ",
        "import * as ",
        " as ",
        "extends ",
        "new ",
        "this.",
        "super.",
        "express.Router()",
        "import express from 'express';",
        "from 'node:fs';",
        "export default class ",
    ] {
        assert!(all.contains(needle), "no {needle:?} in the generated TypeScript");
    }
    assert!(repo.files.iter().any(|f| f.path.ends_with("/index.ts")));
    assert!(repo.files.iter().any(|f| f.path == "package.json"));
}

#[test]
fn python_has_the_expected_shapes() {
    let repo = generate_in_memory(&Config { lang: Lang::Python, lines: 100_000, seed: 1 });
    let all: String = repo.files.iter().map(|f| f.contents.as_str()).collect();
    for needle in [
        "from ..",
        "from .",
        " as ",
        "\nimport ",
        "super().__init__(",
        "self.",
        "os.path.join(",
        "json.dumps(",
        "__all__",
        "@",
        "if __name__ == \"__main__\":",
    ] {
        assert!(all.contains(needle), "no {needle:?} in the generated Python");
    }
}

// ------------------------------------------------------------------ Python runs

fn py_files(root: &Path) -> Vec<PathBuf> {
    read_tree(root).keys().filter(|k| k.ends_with(".py")).map(|k| root.join(k)).collect()
}

#[test]
fn python_output_compiles() {
    if !have_python() {
        eprintln!("python3 not found: skipping");
        return;
    }
    for (lines, seed) in [(10_000, 0), (100_000, 11)] {
        let t = TempDir::new("pycompile");
        let out = t.path().join("repo");
        generate(&Config { lang: Lang::Python, lines, seed }, &out).unwrap();
        let files = py_files(&out);
        for chunk in files.chunks(200) {
            let o = Command::new("python3").arg("-m").arg("py_compile").args(chunk).output().unwrap();
            assert!(o.status.success(), "py_compile failed: {}", String::from_utf8_lossy(&o.stderr));
        }
    }
}

/// Imports every module, then calls every generated function and method with every other
/// project function replaced by a recording stub, and checks that each call it observes
/// is in the truth (and that most call edges are observed).
#[test]
fn python_runtime_calls_match_truth() {
    if !have_python() {
        eprintln!("python3 not found: skipping");
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/py_dyncheck.py");
    for (lines, seed) in [(10_000, 0), (10_000, 1), (10_000, 2), (100_000, 3)] {
        let t = TempDir::new("pyrun");
        let out = t.path().join("repo");
        generate(&Config { lang: Lang::Python, lines, seed }, &out).unwrap();
        let truth = t.path().join("repo.truth.txt");
        let o = Command::new("python3").arg("-B").arg(&script).arg(&out).arg(&truth).output().unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "seed {seed}: {stdout}\n{}", String::from_utf8_lossy(&o.stderr));
    }
}

// ------------------------------------------------------------------ TypeScript compiler

/// A `node_modules` directory that contains the `typescript` package: `$CKG_GEN_NODE_MODULES`,
/// or whatever `node` resolves `typescript` from by default.
fn typescript_node_modules() -> Option<Option<PathBuf>> {
    if let Ok(dir) = std::env::var("CKG_GEN_NODE_MODULES") {
        let dir = PathBuf::from(dir);
        return dir.join("typescript").is_dir().then_some(Some(dir));
    }
    let ok = Command::new("node").args(["-e", "require.resolve('typescript')"]).output().map(|o| o.status.success()).unwrap_or(false);
    ok.then_some(None)
}

/// Type-checks the generated TypeScript and derives every edge with the TypeScript compiler's
/// checker (tests/ts_check.js), then compares with the truth. Runs only where node and the
/// `typescript` package are available (set CKG_GEN_NODE_MODULES to a node_modules directory
/// holding typescript, and @types/express + @types/node for a full type check).
#[test]
fn typescript_compiler_agrees_with_truth() {
    let Some(modules) = typescript_node_modules() else {
        eprintln!("node with the typescript package not found (set CKG_GEN_NODE_MODULES): skipping");
        return;
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ts_check.js");
    for (lines, seed) in [(10_000, 0), (10_000, 1), (100_000, 3)] {
        let t = TempDir::new("tscheck");
        let out = t.path().join("repo");
        generate(&Config { lang: Lang::TypeScript, lines, seed }, &out).unwrap();
        let mut cmd = Command::new("node");
        if let Some(dir) = &modules {
            #[cfg(unix)]
            if dir.join("@types").join("express").is_dir() {
                std::os::unix::fs::symlink(dir, out.join("node_modules")).unwrap();
            }
            cmd.env("NODE_PATH", dir);
        }
        let o = cmd.arg(&script).arg(&out).arg(t.path().join("repo.truth.txt")).output().unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout);
        eprintln!("{stdout}");
        assert!(o.status.success(), "seed {seed}: {stdout}\n{}", String::from_utf8_lossy(&o.stderr));
    }
}
