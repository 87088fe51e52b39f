//! `resolve_project`: small multi-file projects made from the input, indexed end to end.
//!
//! The input is read with `arbitrary::Unstructured` into a project of one to six Python and/or
//! TypeScript/JavaScript modules built from statement templates that stress resolution: imports
//! of every form (relative, absolute, star, `require`, dynamic, `try/except ImportError`),
//! re-exports, import cycles (the module names come from a small pool, so modules import each
//! other), classes whose base is themselves, their own member or each other, self-referential
//! types and aliases, enums whose members refer to each other, and deep member chains
//! (`a.b.c.d...`, sometimes hundreds long). A byte of the input may also drop raw text into a
//! module.
//!
//! The project is written into a temporary directory and indexed through the public API
//! (`ckg_core::index::index`) three times: a fresh index with one worker, an incremental
//! update after the input rewrites one module, and a rebuild from scratch with two workers.
//! Properties: every run succeeds, nothing is skipped, and the canonical export of the
//! incremental update equals the rebuild's.

use std::fmt::Write as _;
use std::path::Path;

use arbitrary::{Result, Unstructured};
use ckg_core::index::{IndexConfig, Summary, index};

const PY_FILES: &[&str] = &["a.py", "b.py", "pkg/__init__.py", "pkg/c.py", "pkg/sub/__init__.py", "pkg/sub/d.py", "e.pyi"];
const PY_MODULES: &[&str] = &["a", "b", "pkg", "pkg.c", "pkg.sub", "pkg.sub.d", "e", ".", ".c", "..", "..b", ".sub.d", "os", "missing"];
const TS_FILES: &[&str] =
    &["src/a.ts", "src/b.ts", "src/index.ts", "src/lib/c.tsx", "src/lib/index.js", "src/types.d.ts", "src/d.mjs", "src/e.cjs"];
const TS_SPECIFIERS: &[&str] =
    &["./a", "./b", "./index", "./lib", "./lib/c", "../a", "../b", "..", ".", "./types", "./d.mjs", "./e", "express", "@scope/pkg/sub"];
const NAMES: &[&str] = &[
    "A",
    "B",
    "C",
    "f",
    "g",
    "x",
    "a",
    "b",
    "c",
    "pkg",
    "Base",
    "default",
    "constructor",
    "prototype",
    "__init__",
    "__all__",
    "self",
    "this",
    "super",
    "cls",
    "get",
    "call",
    "apply",
    "bind",
    "then",
    "exports",
    "module",
    "require",
    "object",
    "Object",
];

/// A generated project: files by path, relative to the root.
#[derive(Clone, Debug, Default)]
pub struct Project {
    pub files: Vec<(String, String)>,
}

/// The `resolve_project` target.
pub fn fuzz(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(project) = generate(&mut u) else { return };
    let edit = edit(&mut u, &project).ok();
    check(&project, edit.as_ref());
}

/// Writes the project, indexes it, applies `edit` (one file's new content) incrementally,
/// rebuilds, and compares.
pub fn check(project: &Project, edit: Option<&(String, String)>) {
    let dir = temp_dir();
    for (path, text) in &project.files {
        write(dir.path(), path, text);
    }
    // Long member chains make long lines: they are to be resolved, not skipped as minified.
    let config = IndexConfig { jobs: 1, minified_line_len: usize::MAX, ..IndexConfig::new(dir.path()) };
    let first = run(&config, "the first index");
    assert!(first.skipped.is_empty(), "files were skipped: {:?}", first.skipped);
    if let Some((path, text)) = edit {
        write(dir.path(), path, text);
        // The rescan compares size and mtime: make the edit visible even within one tick.
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
        std::fs::File::options().write(true).open(dir.path().join(path)).and_then(|f| f.set_modified(later)).unwrap();
    }
    run(&config, "the incremental update");
    let incremental = export(&config);
    let rebuilt = IndexConfig { jobs: 2, rebuild: true, ..config.clone() };
    run(&rebuilt, "the rebuild");
    let fresh = export(&rebuilt);
    if incremental != fresh {
        let diff: Vec<String> = diff_lines(&incremental, &fresh);
        panic!("the incremental update differs from a fresh index:\n{}", diff.join("\n"));
    }
}

fn run(config: &IndexConfig, what: &str) -> Summary {
    index(config, &|_| {}).unwrap_or_else(|e| panic!("{what} failed: {e:#}"))
}

fn export(config: &IndexConfig) -> String {
    let db = config.db_path();
    let conn = ckg_core::store::open_reader(&db).expect("open the index");
    let mut out = Vec::new();
    ckg_core::export::export_jsonl(&conn, &db, &mut out).expect("export");
    String::from_utf8(out).expect("the export is UTF-8")
}

fn diff_lines(a: &str, b: &str) -> Vec<String> {
    let (a, b): (std::collections::BTreeSet<&str>, std::collections::BTreeSet<&str>) = (a.lines().collect(), b.lines().collect());
    let only_a = a.difference(&b).map(|l| format!("- {l}"));
    let only_b = b.difference(&a).map(|l| format!("+ {l}"));
    only_a.chain(only_b).take(40).collect()
}

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A temporary directory, in memory when the system has one (a run writes a database three
/// times).
pub fn temp_dir() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir()
        && let Ok(d) = tempfile::Builder::new().prefix("ckg-fuzz").tempdir_in(shm)
    {
        return d;
    }
    tempfile::Builder::new().prefix("ckg-fuzz").tempdir().expect("a temporary directory")
}

/// A project read from the input.
pub fn generate(u: &mut Unstructured) -> Result<Project> {
    let family = u.int_in_range(0..=2u8)?;
    let count = u.int_in_range(1..=6usize)?;
    let mut project = Project::default();
    for _ in 0..count {
        let python = match family {
            0 => true,
            1 => false,
            _ => u.arbitrary()?,
        };
        let pool = if python { PY_FILES } else { TS_FILES };
        let path = pool[u.choose_index(pool.len())?];
        if project.files.iter().any(|(p, _)| p == path) {
            continue;
        }
        let text = module(u, python, jsx(path))?;
        project.files.push((path.to_string(), text));
    }
    Ok(project)
}

/// The edit an input makes after the first index: one file of the project written again.
pub fn edit(u: &mut Unstructured, project: &Project) -> Result<(String, String)> {
    let (path, _) = &project.files[u.choose_index(project.files.len())?];
    let python = path.ends_with(".py") || path.ends_with(".pyi");
    Ok((path.clone(), module(u, python, jsx(path))?))
}

fn jsx(path: &str) -> bool {
    path.ends_with(".tsx") || path.ends_with(".js") || path.ends_with(".mjs") || path.ends_with(".cjs")
}

fn module(u: &mut Unstructured, python: bool, jsx: bool) -> Result<String> {
    let mut g = Gen { u, out: String::new(), python, jsx };
    let statements = g.u.int_in_range(0..=12u8)?;
    for _ in 0..statements {
        if g.python { g.py_statement(0, 0)? } else { g.ts_statement(0, 0)? }
    }
    Ok(g.out)
}

/// Nesting of classes and functions stops at this depth, expressions at `MAX_EXPR`.
const MAX_NEST: usize = 3;
const MAX_EXPR: usize = 3;

struct Gen<'a, 'b> {
    u: &'a mut Unstructured<'b>,
    out: String,
    python: bool,
    jsx: bool,
}

impl Gen<'_, '_> {
    fn name(&mut self) -> Result<&'static str> {
        Ok(NAMES[self.u.choose_index(NAMES.len())?])
    }

    fn names(&mut self, max: usize) -> Result<Vec<&'static str>> {
        let n = self.u.int_in_range(0..=max)?;
        (0..n).map(|_| self.name()).collect()
    }

    /// `a.b.c...`: usually a few segments, sometimes hundreds; a segment may be a call result.
    fn chain(&mut self) -> Result<String> {
        let long = self.u.ratio(1, 10)?;
        let len = if long { self.u.int_in_range(16..=600usize)? } else { self.u.int_in_range(1..=6usize)? };
        let mut s = self.name()?.to_string();
        for _ in 1..len {
            s.push('.');
            s.push_str(self.name()?);
            if self.u.ratio(1, 8)? {
                s.push_str("()");
            }
        }
        Ok(s)
    }

    fn py_module(&mut self) -> Result<&'static str> {
        Ok(PY_MODULES[self.u.choose_index(PY_MODULES.len())?])
    }

    fn ts_spec(&mut self) -> Result<&'static str> {
        Ok(TS_SPECIFIERS[self.u.choose_index(TS_SPECIFIERS.len())?])
    }

    fn line(&mut self, indent: usize, text: &str) {
        for _ in 0..indent {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// Raw text from the input (rarely): whatever the templates cannot say.
    fn raw(&mut self, indent: usize) -> Result<()> {
        let len = self.u.int_in_range(0..=64usize)?;
        let bytes = self.u.bytes(len)?;
        let text = String::from_utf8_lossy(bytes).replace('\0', "");
        self.line(indent, &text);
        Ok(())
    }

    fn py_expr(&mut self, depth: usize) -> Result<String> {
        let pick = if depth >= MAX_EXPR { self.u.int_in_range(0..=2u8)? } else { self.u.int_in_range(0..=11u8)? };
        Ok(match pick {
            0 => self.name()?.to_string(),
            1 => self.chain()?,
            2 => "None".to_string(),
            3 => format!("{}({})", self.chain()?, self.py_args(depth)?),
            4 => format!("[{}, {}]", self.py_expr(depth + 1)?, self.py_expr(depth + 1)?),
            5 => format!("{{\"{}\": {}}}", self.name()?, self.py_expr(depth + 1)?),
            6 => format!("super().{}()", self.name()?),
            7 => format!("getattr({}, \"{}\")()", self.name()?, self.name()?),
            8 => format!("lambda {}: {}", self.name()?, self.py_expr(depth + 1)?),
            9 => format!("{}.{}({})", self.py_expr(depth + 1)?, self.name()?, self.py_args(depth)?),
            10 => format!("importlib.import_module(\"{}\").{}", self.py_module()?, self.name()?),
            _ => format!("[{} for {} in {}]", self.py_expr(depth + 1)?, self.name()?, self.py_expr(depth + 1)?),
        })
    }

    fn py_args(&mut self, depth: usize) -> Result<String> {
        let n = self.u.int_in_range(0..=3u8)?;
        let mut args = Vec::new();
        for i in 0..n {
            let e = self.py_expr(depth + 1)?;
            args.push(if i == 2 { format!("{}={e}", self.name()?) } else { e });
        }
        Ok(args.join(", "))
    }

    fn py_type(&mut self) -> Result<String> {
        Ok(match self.u.int_in_range(0..=3u8)? {
            0 => self.name()?.to_string(),
            1 => self.chain()?,
            2 => format!("list[{}]", self.name()?),
            _ => format!("\"{}\"", self.name()?),
        })
    }

    fn py_body(&mut self, indent: usize, nest: usize) -> Result<()> {
        let n = self.u.int_in_range(0..=4u8)?;
        for _ in 0..n {
            self.py_statement(indent, nest + 1)?;
        }
        self.line(indent, "pass");
        Ok(())
    }

    fn py_statement(&mut self, indent: usize, nest: usize) -> Result<()> {
        let top = if nest >= MAX_NEST { 6 } else { 15 };
        match self.u.int_in_range(0..=top)? {
            0 => {
                let (m, n) = (self.py_module()?, self.name()?);
                // `import` takes absolute names only.
                let absolute = if m.starts_with('.') { "pkg.sub" } else { m };
                let text = match self.u.int_in_range(0..=4u8)? {
                    0 => format!("from {m} import {n}"),
                    1 => format!("from {m} import {n} as {}", self.name()?),
                    2 => format!("from {m} import *"),
                    3 => format!("import {absolute}"),
                    _ => format!("import {absolute} as {n}"),
                };
                self.line(indent, &text);
            }
            1 => {
                let n = self.name()?;
                let e = self.py_expr(0)?;
                self.line(indent, &format!("{n} = {e}"));
            }
            2 => {
                let (n, t, e) = (self.name()?, self.py_type()?, self.py_expr(0)?);
                self.line(indent, &format!("{n}: {t} = {e}"));
            }
            3 => {
                let e = self.py_expr(0)?;
                self.line(indent, &e);
            }
            4 => {
                let (a, b) = (self.chain()?, self.py_expr(0)?);
                self.line(indent, &format!("{a} = {b}"));
            }
            5 => {
                let e = self.py_expr(0)?;
                self.line(indent, &format!("return {e}"));
            }
            6 => self.raw(indent)?,
            7 => {
                let names: Vec<String> = self.names(4)?.iter().map(|n| format!("\"{n}\"")).collect();
                let op = if self.u.arbitrary()? { "+=" } else { "=" };
                self.line(indent, &format!("__all__ {op} [{}]", names.join(", ")));
            }
            8 | 9 => {
                // A class: bases may be itself, its own member, or anything else in scope.
                let n = self.name()?;
                let mut bases = Vec::new();
                for _ in 0..self.u.int_in_range(0..=3u8)? {
                    bases.push(match self.u.int_in_range(0..=4u8)? {
                        0 => n.to_string(),
                        1 => format!("{n}.{}", self.name()?),
                        2 => format!("metaclass={}", self.name()?),
                        3 => format!("Generic[{}]", self.name()?),
                        _ => self.chain()?,
                    });
                }
                for _ in 0..self.u.int_in_range(0..=2u8)? {
                    let d = self.chain()?;
                    self.line(indent, &format!("@{d}"));
                }
                self.line(indent, &format!("class {n}({}):", bases.join(", ")));
                self.py_body(indent + 1, nest)?;
            }
            10 | 11 => {
                let n = self.name()?;
                let mut params = Vec::new();
                for p in self.names(3)? {
                    params.push(if p == "self" { p.to_string() } else { format!("{p}: {}", self.py_type()?) });
                }
                if self.u.ratio(1, 3)? {
                    let d = self.chain()?;
                    self.line(indent, &format!("@{d}"));
                }
                let ret = self.py_type()?;
                self.line(indent, &format!("def {n}({}) -> {ret}:", params.join(", ")));
                self.py_body(indent + 1, nest)?;
            }
            12 => {
                let (m, n) = (self.py_module()?, self.name()?);
                self.line(indent, "try:");
                self.line(indent + 1, &format!("from {m} import {n}"));
                self.line(indent, "except ImportError:");
                self.line(indent + 1, &format!("{n} = None"));
            }
            13 => {
                let (m, n) = (self.py_module()?, self.name()?);
                self.line(indent, "if TYPE_CHECKING:");
                self.line(indent + 1, &format!("from {m} import {n}"));
            }
            14 => {
                let (x, e) = (self.name()?, self.py_expr(0)?);
                let head = if self.u.arbitrary()? { format!("for {x} in {e}:") } else { format!("with {e} as {x}:") };
                self.line(indent, &head);
                let member = self.name()?;
                self.line(indent + 1, &format!("{x}.{member}()"));
            }
            _ => {
                let (n, t) = (self.name()?, self.py_type()?);
                self.line(indent, &format!("type {n} = {t} | {n}"));
            }
        }
        Ok(())
    }

    fn ts_expr(&mut self, depth: usize) -> Result<String> {
        let pick = if depth >= MAX_EXPR { self.u.int_in_range(0..=2u8)? } else { self.u.int_in_range(0..=12u8)? };
        Ok(match pick {
            0 => self.name()?.to_string(),
            1 => self.chain()?,
            2 => "undefined".to_string(),
            3 => format!("{}({})", self.chain()?, self.ts_args(depth)?),
            4 => format!("new {}({})", self.chain()?, self.ts_args(depth)?),
            5 => format!("[{}, {}]", self.ts_expr(depth + 1)?, self.ts_expr(depth + 1)?),
            6 => format!("{{ {}: {} }}", self.name()?, self.ts_expr(depth + 1)?),
            7 => format!("({}) => {}", self.name()?, self.ts_expr(depth + 1)?),
            8 => format!("{}[\"{}\"]()", self.name()?, self.name()?),
            9 => format!("require(\"{}\").{}", self.ts_spec()?, self.name()?),
            10 => format!("import(\"{}\")", self.ts_spec()?),
            11 if self.jsx => format!("<{} a={{{}}}><{} /></{0}>", self.name()?, self.ts_expr(depth + 1)?, self.name()?),
            _ => format!("{}.{}.call({})", self.ts_expr(depth + 1)?, self.name()?, self.ts_args(depth)?),
        })
    }

    fn ts_args(&mut self, depth: usize) -> Result<String> {
        let n = self.u.int_in_range(0..=3u8)?;
        let args: Result<Vec<String>> = (0..n).map(|_| self.ts_expr(depth + 1)).collect();
        Ok(args?.join(", "))
    }

    fn ts_type(&mut self) -> Result<String> {
        Ok(match self.u.int_in_range(0..=5u8)? {
            0 => self.name()?.to_string(),
            1 => self.chain()?,
            2 => format!("{}[]", self.name()?),
            3 => format!("typeof {}", self.chain()?),
            4 => format!("{}[\"{}\"]", self.name()?, self.name()?),
            _ => format!("{{ {}: {} }}", self.name()?, self.name()?),
        })
    }

    fn ts_body(&mut self, indent: usize, nest: usize) -> Result<()> {
        let n = self.u.int_in_range(0..=4u8)?;
        for _ in 0..n {
            self.ts_statement(indent, nest + 1)?;
        }
        self.line(indent.saturating_sub(1), "}");
        Ok(())
    }

    fn ts_statement(&mut self, indent: usize, nest: usize) -> Result<()> {
        let top = if nest >= MAX_NEST { 6 } else { 16 };
        match self.u.int_in_range(0..=top)? {
            0 => {
                let (s, n, m) = (self.ts_spec()?, self.name()?, self.name()?);
                let text = match self.u.int_in_range(0..=7u8)? {
                    0 => format!("import {{ {n} }} from \"{s}\";"),
                    1 => format!("import {{ {n} as {m} }} from \"{s}\";"),
                    2 => format!("import * as {n} from \"{s}\";"),
                    3 => format!("import {n} from \"{s}\";"),
                    4 => format!("import type {{ {n} }} from \"{s}\";"),
                    5 => format!("import \"{s}\";"),
                    6 => format!("const {n} = require(\"{s}\");"),
                    _ => format!("const {{ {n}, {m} }} = require(\"{s}\");"),
                };
                self.line(indent, &text);
            }
            1 => {
                let (s, n, m) = (self.ts_spec()?, self.name()?, self.name()?);
                let text = match self.u.int_in_range(0..=8u8)? {
                    0 => format!("export * from \"{s}\";"),
                    1 => format!("export * as {n} from \"{s}\";"),
                    2 => format!("export {{ {n} as {m} }} from \"{s}\";"),
                    3 => format!("export {{ {n} }};"),
                    4 => format!("export default {n};"),
                    5 => format!("export = {n};"),
                    6 => format!("module.exports = {n};"),
                    7 => format!("module.exports.{n} = {m};"),
                    _ => format!("exports.{n} = {m};"),
                };
                self.line(indent, &text);
            }
            2 => {
                let (kw, n, e) = (["const", "let", "var"][self.u.choose_index(3)?], self.name()?, self.ts_expr(0)?);
                let t = if self.u.arbitrary()? { format!(": {}", self.ts_type()?) } else { String::new() };
                self.line(indent, &format!("{kw} {n}{t} = {e};"));
            }
            3 => {
                let e = self.ts_expr(0)?;
                self.line(indent, &format!("{e};"));
            }
            4 => {
                let (a, b) = (self.chain()?, self.ts_expr(0)?);
                self.line(indent, &format!("{a} = {b};"));
            }
            5 => {
                let e = self.ts_expr(0)?;
                self.line(indent, &format!("return {e};"));
            }
            6 => self.raw(indent)?,
            7 | 8 => {
                // A class: the base may be itself, its own member, or a call.
                let n = self.name()?;
                let export = if self.u.arbitrary()? { "export " } else { "" };
                let base = match self.u.int_in_range(0..=4u8)? {
                    0 => String::new(),
                    1 => format!(" extends {n}"),
                    2 => format!(" extends {n}.{}", self.name()?),
                    3 => format!(" extends {}({})", self.chain()?, self.name()?),
                    _ => format!(" extends {}", self.chain()?),
                };
                let implements = if self.u.arbitrary()? { format!(" implements {}", self.name()?) } else { String::new() };
                self.line(indent, &format!("{export}class {n}{base}{implements} {{"));
                for _ in 0..self.u.int_in_range(0..=4u8)? {
                    let (m, t, e) = (self.name()?, self.ts_type()?, self.ts_expr(0)?);
                    let member = match self.u.int_in_range(0..=4u8)? {
                        0 => format!("{m}: {t} = {e};"),
                        1 => format!("static {m} = {e};"),
                        2 => format!("{m}(p: {t}): {t} {{ return {e}; }}"),
                        3 => format!("constructor(private p: {t}) {{ super(); this.{m} = this; }}"),
                        _ => format!("get {m}(): {t} {{ return this.{m}; }}"),
                    };
                    self.line(indent + 1, &member);
                }
                self.line(indent, "}");
            }
            9 => {
                let (n, a, b) = (self.name()?, self.name()?, self.name()?);
                let (t, u) = (self.ts_type()?, self.ts_type()?);
                self.line(indent, &format!("interface {n} extends {a}, {n} {{ {b}: {t}; m(): {u}; }}"));
            }
            10 => {
                let (n, t) = (self.name()?, self.ts_type()?);
                self.line(indent, &format!("type {n} = {t} | {n}[] | {{ next: {n} }};"));
            }
            11 | 12 => {
                let (n, p, t) = (self.name()?, self.name()?, self.ts_type()?);
                let export = if self.u.arbitrary()? { "export " } else { "" };
                self.line(indent, &format!("{export}function {n}({p}: {t}): {t} {{"));
                self.ts_body(indent + 1, nest)?;
            }
            13 => {
                let n = self.name()?;
                self.line(indent, &format!("namespace {n} {{"));
                let e = self.ts_expr(0)?;
                let member = self.name()?;
                self.line(indent + 1, &format!("export const {member} = {e};"));
                self.ts_body(indent + 1, nest)?;
            }
            14 => {
                let (e, a, b) = (self.name()?, self.name()?, self.name()?);
                self.line(indent, &format!("enum {e} {{ {a} = {e}.{b}, {b} = {e}.{a} }}"));
            }
            15 => {
                let (s, f) = (self.ts_spec()?, self.name()?);
                self.line(indent, &format!("declare module \"{s}\" {{ export function {f}(): {f}; }}"));
            }
            _ => {
                let (n, m) = (self.name()?, self.name()?);
                self.line(indent, &format!("{n}.prototype.{m} = function () {{ return this.{m}(); }};"));
            }
        }
        Ok(())
    }
}

/// A small indexed project (Python and TypeScript, with imports and calls between files) for
/// the targets that need an index: the SQL guard and the HTTP service.
pub fn sample_index() -> tempfile::TempDir {
    let dir = temp_dir();
    let files: &[(&str, &str)] = &[
        (
            "src/app.ts",
            "import { helper } from './util';\nexport class App { run() { return helper(this); } }\nexport function createApp() { return new App(); }\n",
        ),
        ("src/util.ts", "import { App } from './app';\nexport function helper(a: App) { return a.run(); }\n"),
        ("pkg/__init__.py", "from .mod import Service\n__all__ = ['Service']\n"),
        (
            "pkg/mod.py",
            "import os\n\nclass Base:\n    def go(self):\n        return os.getcwd()\n\nclass Service(Base):\n    def go(self):\n        return super().go()\n\ndef main():\n    Service().go()\n",
        ),
    ];
    for (path, text) in files {
        write(dir.path(), path, text);
    }
    run(&IndexConfig { jobs: 1, ..IndexConfig::new(dir.path()) }, "indexing the sample");
    dir
}

/// A project's files as one text, for a regression input's readable companion.
pub fn show(project: &Project) -> String {
    let mut s = String::new();
    for (path, text) in &project.files {
        let _ = writeln!(s, "==> {path} <==\n{text}");
    }
    s
}
