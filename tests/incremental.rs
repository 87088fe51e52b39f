//! The incremental-update invariant, tested differentially: after every step of a seeded
//! random sequence of edits (body and signature changes, renames, imports added and removed,
//! files moved, deleted and added, syntax errors introduced and fixed, re-export changes),
//! the export of the incrementally updated index equals the export of a fresh index of the
//! same tree. `CKG_DIFF_STEPS=5000 cargo test --release --test incremental` for a long run.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use ckg_core::index::{IndexConfig, Session, index, index_with};
use common::{Repo, Rng, edges};

#[derive(Clone, Debug)]
struct Func {
    name: String,
    params: usize,
    /// Calls: (module index or None for local, function name).
    calls: Vec<(Option<usize>, String)>,
    /// Python: the function calls its first parameter, and callers pass themselves to it, so
    /// parameter flow across files is exercised.
    calls_param: bool,
    /// Reads of module values: (module index or None for local, value name).
    reads: Vec<(Option<usize>, String)>,
    /// Assigns a value of its own module (`global x` / a module `let`).
    writes: Option<String>,
    /// Its first parameter is named like a module value (a local shadows it).
    shadows: Option<String>,
}

#[derive(Clone, Debug)]
struct Module {
    name: String,
    funcs: Vec<Func>,
    /// A class whose base is the class of another module, if any.
    base: Option<usize>,
    broken: bool,
    /// Use a namespace import (`import pkg.m as x` / `import * as x`) for calls into these.
    namespace: Vec<usize>,
    /// Module-level values: (name, the function it holds, if any: `handler = f3`).
    values: Vec<(String, Option<String>)>,
    /// Class attributes of the module's class.
    attrs: Vec<String>,
}

#[derive(Clone, Copy, PartialEq)]
enum Lang {
    Python,
    TypeScript,
}

struct Model {
    lang: Lang,
    modules: Vec<Option<Module>>,
    /// Names re-exported by the package index (`__init__.py` / `src/index.ts`): (module, name).
    reexports: Vec<(usize, String)>,
    counter: usize,
    /// TypeScript: `main.ts` imports the index through a tsconfig `paths` alias.
    alias: bool,
}

impl Model {
    fn new(lang: Lang, n: usize, rng: &mut Rng) -> Model {
        let mut m = Model { lang, modules: Vec::new(), reexports: Vec::new(), counter: 0, alias: false };
        for _ in 0..n {
            m.add_module(rng);
        }
        for _ in 0..n * 2 {
            m.add_call(rng);
            m.add_read(rng);
        }
        m
    }

    fn fresh_name(&mut self, prefix: &str) -> String {
        self.counter += 1;
        format!("{prefix}{}", self.counter)
    }

    fn live(&self) -> Vec<usize> {
        (0..self.modules.len()).filter(|&i| self.modules[i].is_some()).collect()
    }

    fn add_module(&mut self, rng: &mut Rng) {
        let name = self.fresh_name("m");
        let python = self.lang == Lang::Python;
        let funcs = (0..2 + rng.below(3))
            .map(|_| Func {
                name: self.fresh_name("f"),
                params: rng.below(3),
                calls: Vec::new(),
                calls_param: python && rng.chance(50),
                reads: Vec::new(),
                writes: None,
                shadows: None,
            })
            .collect();
        let live = self.live();
        let base = if !live.is_empty() && rng.chance(40) { Some(live[rng.below(live.len())]) } else { None };
        self.modules.push(Some(Module { name, funcs, base, broken: false, namespace: Vec::new(), values: Vec::new(), attrs: Vec::new() }));
        for _ in 0..rng.below(3) {
            self.add_value(rng);
        }
    }

    /// A module value in a random module, holding a number or one of its functions.
    fn add_value(&mut self, rng: &mut Rng) {
        let live = self.live();
        let Some(&m) = live.get(rng.below(live.len().max(1))) else { return };
        let name = self.fresh_name(if rng.chance(50) { "V" } else { "v" });
        let module = self.modules[m].as_mut().unwrap();
        let holds = if rng.chance(40) { module.funcs.first().map(|f| f.name.clone()) } else { None };
        module.values.push((name, holds));
    }

    fn random_value(&self, rng: &mut Rng) -> Option<(usize, String)> {
        let with: Vec<usize> = self.live().into_iter().filter(|&i| !self.modules[i].as_ref().unwrap().values.is_empty()).collect();
        let m = *with.get(rng.below(with.len().max(1)))?;
        let values = &self.modules[m].as_ref()?.values;
        Some((m, values[rng.below(values.len())].0.clone()))
    }

    /// A read of a random value from a random function (through an import when the value is
    /// in another module).
    fn add_read(&mut self, rng: &mut Rng) {
        let (Some((from, func)), Some((to, value))) = (self.random_func(rng), self.random_value(rng)) else { return };
        let module = self.modules[from].as_mut().unwrap();
        let f = module.funcs.iter_mut().find(|f| f.name == func).unwrap();
        f.reads.push((if from == to { None } else { Some(to) }, value));
    }

    fn random_func(&self, rng: &mut Rng) -> Option<(usize, String)> {
        let live = self.live();
        if live.is_empty() {
            return None;
        }
        let m = live[rng.below(live.len())];
        let module = self.modules[m].as_ref()?;
        if module.funcs.is_empty() {
            return None;
        }
        Some((m, module.funcs[rng.below(module.funcs.len())].name.clone()))
    }

    fn add_call(&mut self, rng: &mut Rng) {
        let (Some((from, caller)), Some((to, callee))) = (self.random_func(rng), self.random_func(rng)) else { return };
        let module = self.modules[from].as_mut().unwrap();
        let f = module.funcs.iter_mut().find(|f| f.name == caller).unwrap();
        f.calls.push((if from == to { None } else { Some(to) }, callee));
        if from != to && rng.chance(30) && !module.namespace.contains(&to) {
            module.namespace.push(to);
        }
    }

    fn module_path(&self, i: usize) -> String {
        let name = &self.modules[i].as_ref().unwrap().name;
        match self.lang {
            Lang::Python => format!("pkg/{name}.py"),
            Lang::TypeScript => format!("src/{name}.ts"),
        }
    }

    /// Every file of the tree, by path.
    fn render(&self) -> BTreeMap<String, String> {
        let mut files = BTreeMap::new();
        let name_of = |i: usize| self.modules.get(i).and_then(|m| m.as_ref()).map(|m| m.name.clone());
        for (i, m) in self.modules.iter().enumerate() {
            let Some(m) = m else { continue };
            let mut out = String::new();
            // Imports: calls into other modules, by name or through a namespace.
            let mut targets: BTreeMap<usize, Vec<String>> = BTreeMap::new();
            for f in &m.funcs {
                for (t, name) in f.calls.iter().chain(&f.reads) {
                    if let Some(t) = t {
                        targets.entry(*t).or_default().push(name.clone());
                    }
                }
            }
            if let Some(b) = m.base {
                targets.entry(b).or_default().push(format!("C{b}"));
            }
            // Imports of modules that are gone stay in the text: they become unresolved.
            let target_name = |t: usize| name_of(t).unwrap_or_else(|| format!("gone{t}"));
            for (t, names) in &targets {
                let mut names = names.clone();
                names.sort();
                names.dedup();
                let tn = target_name(*t);
                match self.lang {
                    Lang::Python => {
                        if m.namespace.contains(t) {
                            out.push_str(&format!("import pkg.{tn} as ns_{tn}\n"));
                        } else {
                            out.push_str(&format!("from .{tn} import {}\n", names.join(", ")));
                        }
                    }
                    Lang::TypeScript => {
                        if m.namespace.contains(t) {
                            out.push_str(&format!("import * as ns_{tn} from './{tn}';\n"));
                        } else {
                            out.push_str(&format!("import {{ {} }} from './{tn}';\n", names.join(", ")));
                        }
                    }
                }
            }
            out.push('\n');
            // Module values: a number, or a function of the module (`handler = f3`).
            for (v, holds) in &m.values {
                let init = holds.clone().unwrap_or_else(|| v.len().to_string());
                match self.lang {
                    Lang::Python => out.push_str(&format!("{v} = {init}\n")),
                    Lang::TypeScript => out.push_str(&format!("export let {v}: any = {init};\n")),
                }
            }
            out.push('\n');
            for f in &m.funcs {
                let mut params: Vec<String> = (0..f.params).map(|p| format!("a{p}")).collect();
                if let (Some(shadow), Some(first)) = (&f.shadows, params.first_mut()) {
                    *first = shadow.clone();
                }
                let reads: Vec<String> = f
                    .reads
                    .iter()
                    .map(|(t, v)| match t {
                        Some(t) if m.namespace.contains(t) => format!("ns_{}.{v}", target_name(*t)),
                        _ => v.clone(),
                    })
                    .collect();
                let calls: Vec<String> = f
                    .calls
                    .iter()
                    .map(|(t, c)| {
                        // Python callers pass themselves: a callee that calls its parameter calls them.
                        let arg = if self.lang == Lang::Python { f.name.as_str() } else { "" };
                        match t {
                            Some(t) if m.namespace.contains(t) => format!("ns_{}.{c}({arg})", target_name(*t)),
                            _ => format!("{c}({arg})"),
                        }
                    })
                    .collect();
                match self.lang {
                    Lang::Python => {
                        out.push_str(&format!("def {}({}):\n", f.name, params.join(", ")));
                        if let Some(w) = &f.writes {
                            out.push_str(&format!("    global {w}\n    {w} = 2\n"));
                        }
                        for c in &calls {
                            out.push_str(&format!("    {c}\n"));
                        }
                        for r in &reads {
                            out.push_str(&format!("    _r = {r}\n"));
                        }
                        if f.calls_param && f.params > 0 {
                            out.push_str("    a0()\n");
                        }
                        out.push_str("    return len([])\n\n\n");
                    }
                    Lang::TypeScript => {
                        let params: Vec<String> = params.iter().map(|p| format!("{p}: number")).collect();
                        out.push_str(&format!("export function {}({}) {{\n", f.name, params.join(", ")));
                        if let Some(w) = &f.writes {
                            out.push_str(&format!("  {w} = 2;\n"));
                        }
                        for c in &calls {
                            out.push_str(&format!("  {c};\n"));
                        }
                        for r in &reads {
                            out.push_str(&format!("  void {r};\n"));
                        }
                        out.push_str("  return 1;\n}\n\n");
                    }
                }
            }
            let first = m.funcs.first().map(|f| f.name.clone());
            match self.lang {
                Lang::Python => {
                    let base = m.base.map(|b| format!("(C{b})")).unwrap_or_default();
                    out.push_str(&format!("class C{i}{base}:\n"));
                    for a in &m.attrs {
                        out.push_str(&format!("    {a} = 0\n"));
                    }
                    out.push_str("    def run(self):\n        return self.step()\n\n    def step(self):\n");
                    for a in &m.attrs {
                        out.push_str(&format!("        self.{a} += 1\n"));
                    }
                    match &first {
                        Some(f) => out.push_str(&format!("        return {f}()\n")),
                        None => out.push_str("        return 0\n"),
                    }
                    if m.broken {
                        out.push_str("\ndef broken(:\n    pass\n");
                    }
                }
                Lang::TypeScript => {
                    let base = m.base.map(|b| format!(" extends C{b}")).unwrap_or_default();
                    out.push_str(&format!("export class C{i}{base} {{\n"));
                    for a in &m.attrs {
                        out.push_str(&format!("  static {a} = 0;\n"));
                    }
                    out.push_str("  run() { return this.step(); }\n  step() { ");
                    for a in &m.attrs {
                        out.push_str(&format!("C{i}.{a} += 1; "));
                    }
                    out.push_str("return ");
                    match &first {
                        Some(f) => out.push_str(&format!("{f}(); }}\n}}\n")),
                        None => out.push_str("0; }\n}\n"),
                    }
                    if m.broken {
                        out.push_str("\nexport function broken( {\n");
                    }
                }
            }
            files.insert(self.module_path(i), out);
        }
        // The package index re-exports some names; a main module uses them through it.
        let mut index = String::new();
        let mut uses = Vec::new();
        for (m, name) in &self.reexports {
            let mn = name_of(*m).unwrap_or_else(|| format!("gone{m}"));
            match self.lang {
                Lang::Python => index.push_str(&format!("from .{mn} import {name}\n")),
                Lang::TypeScript => index.push_str(&format!("export {{ {name} }} from './{mn}';\n")),
            }
            uses.push(name.clone());
        }
        uses.sort();
        uses.dedup();
        let (index_path, main_path, main) = match self.lang {
            Lang::Python => {
                let mut main = String::new();
                if !uses.is_empty() {
                    main.push_str(&format!("from pkg import {}\n\n", uses.join(", ")));
                }
                main.push_str("def main():\n");
                for u in &uses {
                    main.push_str(&format!("    {u}()\n"));
                }
                main.push_str("    return 0\n");
                ("pkg/__init__.py", "main.py", main)
            }
            Lang::TypeScript => {
                let mut main = String::new();
                if !uses.is_empty() {
                    let from = if self.alias { "@lib/index" } else { "./src" };
                    main.push_str(&format!("import {{ {} }} from '{from}';\n\n", uses.join(", ")));
                }
                main.push_str("export function main() {\n");
                for u in &uses {
                    main.push_str(&format!("  {u}();\n"));
                }
                main.push_str("  return 0;\n}\n");
                ("src/index.ts", "main.ts", main)
            }
        };
        files.insert(index_path.to_string(), index);
        if self.lang == Lang::TypeScript {
            let paths = if self.alias { r#", "paths": { "@lib/*": ["src/*"] }"# } else { "" };
            files.insert("tsconfig.json".to_string(), format!("{{ \"compilerOptions\": {{ \"strict\": true{paths} }} }}\n"));
        }
        files.insert(main_path.to_string(), main);
        files
    }

    /// Applies one random edit; returns its name.
    fn edit(&mut self, rng: &mut Rng) -> &'static str {
        let live = self.live();
        match rng.below(17) {
            0 => {
                // Body change: a call added or removed.
                if rng.chance(50) {
                    self.add_call(rng);
                } else if let Some((m, f)) = self.random_func(rng) {
                    let func = self.modules[m].as_mut().unwrap().funcs.iter_mut().find(|x| x.name == f).unwrap();
                    func.calls.pop();
                }
                "body"
            }
            1 => {
                if let Some((m, f)) = self.random_func(rng) {
                    let func = self.modules[m].as_mut().unwrap().funcs.iter_mut().find(|x| x.name == f).unwrap();
                    func.params = (func.params + 1) % 4;
                    if self.lang == Lang::Python && rng.chance(50) {
                        func.calls_param = !func.calls_param;
                    }
                }
                "signature"
            }
            2 => {
                // Rename a definition; callers elsewhere keep the old name (now unresolved) or
                // follow it.
                if let Some((m, f)) = self.random_func(rng) {
                    let new = self.fresh_name("r");
                    let follow = rng.chance(50);
                    for (i, module) in self.modules.iter_mut().enumerate() {
                        let Some(module) = module else { continue };
                        for func in &mut module.funcs {
                            if i == m && func.name == f {
                                func.name = new.clone();
                            }
                            for (t, c) in &mut func.calls {
                                if *c == f && (follow || t.is_none() && i == m) && (t.unwrap_or(i) == m) {
                                    *c = new.clone();
                                }
                            }
                        }
                    }
                    for (rm, name) in &mut self.reexports {
                        if *rm == m && *name == f && follow {
                            *name = new.clone();
                        }
                    }
                }
                "rename"
            }
            3 => {
                self.add_call(rng);
                self.add_call(rng);
                "add import"
            }
            4 => {
                // Remove every call from one module into another: the import goes away.
                if let Some(&m) = live.get(rng.below(live.len().max(1))) {
                    let module = self.modules[m].as_mut().unwrap();
                    let targets: Vec<usize> = module.funcs.iter().flat_map(|f| f.calls.iter().filter_map(|(t, _)| *t)).collect();
                    if let Some(&t) = targets.first() {
                        for f in &mut module.funcs {
                            f.calls.retain(|(x, _)| *x != Some(t));
                        }
                        module.namespace.retain(|&x| x != t);
                    }
                }
                "remove import"
            }
            5 => {
                if let Some(&m) = live.get(rng.below(live.len().max(1))) {
                    let new = self.fresh_name("moved");
                    self.modules[m].as_mut().unwrap().name = new;
                }
                "move file"
            }
            6 => {
                if live.len() > 2 {
                    let m = live[rng.below(live.len())];
                    self.modules[m] = None;
                }
                "delete file"
            }
            7 => {
                self.add_module(rng);
                self.add_call(rng);
                "add file"
            }
            8 => {
                if let Some(&m) = live.get(rng.below(live.len().max(1))) {
                    let module = self.modules[m].as_mut().unwrap();
                    module.broken = !module.broken;
                }
                "syntax error"
            }
            9 => {
                if !self.reexports.is_empty() && rng.chance(40) {
                    let i = rng.below(self.reexports.len());
                    self.reexports.remove(i);
                } else if let Some((m, f)) = self.random_func(rng) {
                    self.reexports.push((m, f));
                }
                "re-export"
            }
            11 => {
                // TypeScript: tsconfig `paths` added or removed (Python: the package index
                // re-exports change instead).
                if self.lang == Lang::TypeScript {
                    self.alias = !self.alias;
                    "tsconfig"
                } else {
                    if let Some((m, f)) = self.random_func(rng) {
                        self.reexports.push((m, f));
                    }
                    "__init__ re-export"
                }
            }
            12 => {
                if rng.chance(60) {
                    self.add_value(rng);
                } else if let Some((m, v)) = self.random_value(rng) {
                    // Readers elsewhere keep the name (their import no longer binds).
                    self.modules[m].as_mut().unwrap().values.retain(|(n, _)| *n != v);
                }
                "add/remove value"
            }
            13 => {
                // Rename a value; readers follow or not.
                if let Some((m, v)) = self.random_value(rng) {
                    let new = self.fresh_name("V");
                    let follow = rng.chance(50);
                    for (i, module) in self.modules.iter_mut().enumerate() {
                        let Some(module) = module else { continue };
                        if i == m {
                            for (n, _) in &mut module.values {
                                if *n == v {
                                    *n = new.clone();
                                }
                            }
                        }
                        for f in &mut module.funcs {
                            for (t, r) in &mut f.reads {
                                if *r == v && t.unwrap_or(i) == m && (follow || i == m) {
                                    *r = new.clone();
                                }
                            }
                            if f.writes.as_deref() == Some(v.as_str()) && i == m {
                                f.writes = Some(new.clone());
                            }
                        }
                    }
                }
                "rename value"
            }
            14 => {
                // A read added or removed (imports of values change).
                if rng.chance(60) {
                    self.add_read(rng);
                } else if let Some((m, f)) = self.random_func(rng) {
                    self.modules[m].as_mut().unwrap().funcs.iter_mut().find(|x| x.name == f).unwrap().reads.pop();
                }
                "read value"
            }
            15 => {
                // A function writes one of its module's values, or shadows one with a parameter.
                if let Some((m, f)) = self.random_func(rng) {
                    let module = self.modules[m].as_mut().unwrap();
                    let value = module.values.first().map(|(n, _)| n.clone());
                    let func = module.funcs.iter_mut().find(|x| x.name == f).unwrap();
                    if rng.chance(50) {
                        func.writes = if func.writes.is_some() { None } else { value };
                    } else {
                        func.shadows = if func.shadows.is_some() { None } else { value };
                        if func.shadows.is_some() && func.params == 0 {
                            func.params = 1;
                        }
                    }
                }
                "write/shadow value"
            }
            16 => {
                // A class attribute added or removed (its class's methods write it).
                if let Some(&m) = live.get(rng.below(live.len().max(1))) {
                    let name = self.fresh_name("attr");
                    let module = self.modules[m].as_mut().unwrap();
                    if module.attrs.is_empty() || rng.chance(50) {
                        module.attrs.push(name);
                    } else {
                        module.attrs.pop();
                    }
                }
                "class attribute"
            }
            _ => {
                // A base class changes (hierarchy edit).
                if let Some(&m) = live.get(rng.below(live.len().max(1))) {
                    let base = if rng.chance(50) { live.get(rng.below(live.len())).copied().filter(|&b| b != m) } else { None };
                    self.modules[m].as_mut().unwrap().base = base;
                }
                "base class"
            }
        }
    }
}

fn write_tree(root: &Path, files: &BTreeMap<String, String>, previous: &BTreeMap<String, String>) {
    for (path, content) in files {
        if previous.get(path) != Some(content) {
            let p = root.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, content).unwrap();
        }
    }
    for path in previous.keys() {
        if !files.contains_key(path) {
            std::fs::remove_file(root.join(path)).unwrap();
        }
    }
}

fn export(db: &Path) -> String {
    let conn = ckg_core::store::open_reader(db).unwrap();
    let mut out = Vec::new();
    ckg_core::export::export_jsonl(&conn, db, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// Totals counted by scanning the tables (what the kept counts must equal).
fn scanned_totals(db: &Path) -> (BTreeMap<String, u64>, BTreeMap<String, u64>, u64, u64) {
    let conn = ckg_core::store::open_reader(db).unwrap();
    let group = |sql: &str| -> BTreeMap<String, u64> {
        let mut s = conn.prepare(sql).unwrap();
        s.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64))).unwrap().map(Result::unwrap).collect()
    };
    let count = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap() as u64;
    (
        group("SELECT kind, count(*) FROM edges GROUP BY kind"),
        group("SELECT evidence, count(*) FROM edges GROUP BY evidence"),
        count("SELECT count(*) FROM symbols WHERE kind != 'external'"),
        count("SELECT count(*) FROM symbols WHERE kind = 'external'"),
    )
}

fn kept_totals(c: &ckg_core::store::Counts) -> (BTreeMap<String, u64>, BTreeMap<String, u64>, u64, u64) {
    (c.edges_by_kind.clone(), c.edges_by_evidence.clone(), c.symbols, c.externals)
}

/// The names snapshot the run wrote is what the next run would otherwise read from the
/// database, row for row; returns how many records its log has.
fn assert_snapshot_is_the_database(db: &Path, step: &str) -> usize {
    use ckg_core::store::snapshot;
    let conn = ckg_core::store::open_reader(db).unwrap();
    let stamp = snapshot::Stamp::read(&conn).unwrap();
    let loaded = snapshot::read(&snapshot::path_of(db), &stamp).unwrap_or_else(|| panic!("{step}: no snapshot of this commit"));
    let (from_snapshot, records) = (loaded.input, loaded.tail.records);
    let from_rows = ckg_core::store::load_names(&conn).unwrap();
    let rows = |i: &ckg_core::store::ResolveInput| {
        [format!("{:#?}", i.files), format!("{:#?}", i.symbols), format!("{:#?}", i.imports), format!("{:#?}", i.exports)]
    };
    for (what, (a, b)) in ["files", "symbols", "imports", "exports"].iter().zip(rows(&from_snapshot).into_iter().zip(rows(&from_rows))) {
        if a != b {
            let line = a.lines().zip(b.lines()).position(|(x, y)| x != y).unwrap_or(0);
            panic!(
                "{step}: the snapshot's {what} differ from the database's near line {line}:\n{}\n---\n{}",
                a.lines().skip(line.saturating_sub(5)).take(12).collect::<Vec<_>>().join("\n"),
                b.lines().skip(line.saturating_sub(5)).take(12).collect::<Vec<_>>().join("\n")
            );
        }
    }
    records
}

fn differential(lang: Lang, seed: u64) {
    let steps: usize = std::env::var("CKG_DIFF_STEPS").ok().and_then(|s| s.parse().ok()).unwrap_or(300);
    let repo = Repo::new();
    let dbs = tempfile::tempdir().unwrap();
    let (inc_db, fresh_db, cached_db) = (dbs.path().join("inc.db"), dbs.path().join("fresh.db"), dbs.path().join("cached.db"));
    let mut rng = Rng(seed);
    let mut model = Model::new(lang, 6, &mut rng);
    let mut files = model.render();
    write_tree(repo.path(), &files, &BTreeMap::new());
    let mut inc = IndexConfig::new(repo.path());
    inc.db = Some(inc_db.clone());
    let mut fresh = IndexConfig::new(repo.path());
    fresh.db = Some(fresh_db.clone());
    fresh.rebuild = true;
    // The watcher's path: facts kept in memory between runs.
    let mut cached = IndexConfig::new(repo.path());
    cached.db = Some(cached_db.clone());
    cached.totals = false;
    let mut session = Session::default();
    index(&inc, &|_| {}).unwrap();
    index_with(&cached, &|_| {}, &mut session).unwrap();
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    let mut partial = 0;
    let mut logged = 0;
    for step in 0..steps {
        let what = model.edit(&mut rng);
        *kinds.entry(what).or_default() += 1;
        let next = model.render();
        write_tree(repo.path(), &next, &files);
        files = next;
        let s = index(&inc, &|_| {}).unwrap();
        let total: u64 = s.files_by_lang.values().sum();
        if s.re_resolved < total {
            partial += 1;
        }
        index_with(&cached, &|_| {}, &mut session).unwrap();
        let f = index(&fresh, &|_| {}).unwrap();
        let b = export(&fresh_db);
        for (name, a) in [("incremental", export(&inc_db)), ("cached incremental", export(&cached_db))] {
            if a == b {
                continue;
            }
            let ea: std::collections::BTreeSet<String> = edges(&a).into_iter().collect();
            let eb: std::collections::BTreeSet<String> = edges(&b).into_iter().collect();
            let only_inc: Vec<&String> = ea.difference(&eb).collect();
            let only_fresh: Vec<&String> = eb.difference(&ea).collect();
            panic!(
                "step {step} ({what}, seed {seed}): {name} export differs from a fresh index\nonly incremental: {only_inc:#?}\nonly fresh: {only_fresh:#?}"
            );
        }
        // The totals are kept by each write, never recounted: they equal a scan, and the
        // fresh index's.
        let summary = (s.edges_by_kind.clone(), s.edges_by_evidence.clone(), s.symbols, s.externals);
        assert_eq!(summary, scanned_totals(&inc_db), "step {step} ({what}): kept totals differ from a scan");
        assert_eq!(summary, (f.edges_by_kind.clone(), f.edges_by_evidence.clone(), f.symbols, f.externals), "step {step} ({what})");
        if assert_snapshot_is_the_database(&inc_db, &format!("step {step} ({what})")) > 0 {
            logged += 1;
        }
        let cached_counts = ckg_core::store::read_counts(&ckg_core::store::open_reader(&cached_db).unwrap()).unwrap();
        assert_eq!(kept_totals(&cached_counts), scanned_totals(&cached_db), "step {step} ({what}): the watcher's path keeps them too");
    }
    eprintln!("{steps} steps, edits {kinds:?}; {partial} updates re-resolved only part of the tree; {logged} snapshots read through a log");
    // Runs append records to the snapshot's log rather than write it whole; in a tree of a
    // few files one record is a large part of the base, so the log is folded into a new base
    // every few runs (on django a record is ~1/1000 of the base).
    assert!(logged * 5 > steps, "only {logged} of {steps} snapshots were read through a log");
    // The model exercises values: the final graph has value symbols, reads, writes and
    // imports of single names.
    let last = export(&fresh_db);
    for needle in ["\"kind\":\"writes\"", "\"kind\":\"variable\"", "\"kind\":\"attribute\"", "\"kind\":\"references\""] {
        if lang == Lang::TypeScript && needle.contains("attribute") {
            continue; // TS class fields are properties
        }
        assert!(last.contains(needle), "no {needle} in the final graph");
    }
    assert!(kinds.len() >= 17, "every kind of edit was exercised: {kinds:?}");
    assert!(partial > steps / 2, "incremental updates should not re-resolve everything ({partial}/{steps})");
}

#[test]
fn python_incremental_equals_fresh_index() {
    differential(Lang::Python, 0x5eed_0001);
}

#[test]
fn typescript_incremental_equals_fresh_index() {
    differential(Lang::TypeScript, 0x5eed_0002);
}

#[test]
fn callers_keep_their_edges_when_only_the_callee_file_changes() {
    let repo = Repo::new();
    repo.write("lib.ts", "export function target() { return 1; }\n");
    repo.write("a.ts", "import { target } from './lib';\nexport function a() { return target(); }\n");
    repo.write("b.py", "from util import helper\n\ndef b():\n    return helper()\n");
    repo.write("util.py", "def helper():\n    return 1\n");
    repo.index_json(&[]);
    // Body-only edits of the callees: callers are not re-resolved and keep their edges.
    repo.write("lib.ts", "export function target() { return 2 + 2; }\n");
    repo.write("util.py", "def helper():\n    return 2 + 2\n");
    let s = repo.index_json(&[]);
    assert_eq!(s["parsed"], 2);
    assert_eq!(s["re_resolved"], 2, "early cut-off: only the edited files are re-resolved");
    let e = edges(&repo.export());
    assert!(e.contains(&"calls a.ts#a -> lib.ts#target [exact]".to_string()), "{e:#?}");
    assert!(e.contains(&"calls b.b -> util.helper [exact]".to_string()), "{e:#?}");
}

#[test]
fn a_deleted_definition_unresolves_its_callers_and_a_re_added_one_binds_them_again() {
    let repo = Repo::new();
    repo.write("lib.ts", "export function target() { return 1; }\nexport function other() { return 0; }\n");
    repo.write("a.ts", "import { target } from './lib';\nexport function a() { return target(); }\n");
    repo.index_json(&[]);
    repo.write("lib.ts", "export function other() { return 0; }\n");
    repo.index_json(&[]);
    let e = edges(&repo.export());
    assert!(e.contains(&"calls a.ts#a -> target [unresolved]".to_string()), "{e:#?}");
    repo.write("lib.ts", "export function other() { return 0; }\nexport function target() { return 3; }\n");
    repo.index_json(&[]);
    let e = edges(&repo.export());
    assert!(e.contains(&"calls a.ts#a -> lib.ts#target [exact]".to_string()), "{e:#?}");
    // Deleting the whole file, then restoring it.
    repo.remove("lib.ts");
    repo.index_json(&[]);
    assert!(edges(&repo.export()).contains(&"calls a.ts#a -> target [unresolved]".to_string()));
    repo.write("lib.ts", "export function target() { return 1; }\n");
    repo.index_json(&[]);
    assert!(edges(&repo.export()).contains(&"calls a.ts#a -> lib.ts#target [exact]".to_string()));
}

/// Many files import one name through a barrel module (`export * from` each module). The
/// resolver looks the barrel's member up once and reuses the answer for the other files; each
/// of them must still depend on what that lookup read, so that moving the definition from
/// one re-exported module to another re-resolves them all, as a fresh index would.
#[test]
fn files_importing_through_a_barrel_follow_a_definition_moved_behind_it() {
    let repo = Repo::new();
    repo.write("lib.ts", "export function target() { return 1; }\n");
    repo.write("other.ts", "export function other() { return 0; }\n");
    repo.write("index.ts", "export * from './other';\nexport * from './lib';\n");
    let consumers: Vec<String> = (0..8).map(|i| format!("c{i}.ts")).collect();
    for (i, c) in consumers.iter().enumerate() {
        repo.write(c, format!("import {{ target }} from './index';\nexport function c{i}() {{ return target(); }}\n"));
    }
    repo.index_json(&[]);
    let e = edges(&repo.export());
    for (i, c) in consumers.iter().enumerate() {
        assert!(e.contains(&format!("calls {c}#c{i} -> lib.ts#target [exact]")), "{e:#?}");
    }
    repo.write("lib.ts", "export function lib() { return 1; }\n");
    repo.write("other.ts", "export function other() { return 0; }\nexport function target() { return 2; }\n");
    let s = repo.index_json(&[]);
    assert_eq!(s["parsed"], 2);
    let e = edges(&repo.export());
    for (i, c) in consumers.iter().enumerate() {
        assert!(e.contains(&format!("calls {c}#c{i} -> other.ts#target [exact]")), "{e:#?}");
    }
    assert_eq!(repo.export(), repo.fresh_export(&[]));
}

#[test]
fn a_new_override_shadows_the_inherited_method_for_existing_callers() {
    let repo = Repo::new();
    repo.write("base.py", "class Base:\n    def run(self):\n        return 1\n");
    repo.write("sub.py", "from base import Base\n\n\nclass Sub(Base):\n    pass\n");
    repo.write("main.py", "from sub import Sub\n\n\ndef go():\n    return Sub().run()\n");
    repo.write("base.ts", "export class Base {\n  run() { return 1; }\n}\n");
    repo.write("sub.ts", "import { Base } from './base';\nexport class Sub extends Base {}\n");
    repo.write("main.ts", "import { Sub } from './sub';\nexport function go() { return new Sub().run(); }\n");
    repo.index_json(&[]);
    let e = edges(&repo.export());
    assert!(e.contains(&"calls main.go -> base.Base.run [inferred]".to_string()), "{e:#?}");
    assert!(e.contains(&"calls main.ts#go -> base.ts#Base.run [inferred]".to_string()), "{e:#?}");
    // Only sub.* changes: main.* must be re-resolved because what it looked up changed.
    repo.write("sub.py", "from base import Base\n\n\nclass Sub(Base):\n    def run(self):\n        return 2\n");
    repo.write("sub.ts", "import { Base } from './base';\nexport class Sub extends Base {\n  run() { return 2; }\n}\n");
    repo.index_json(&[]);
    let e = edges(&repo.export());
    assert!(e.contains(&"calls main.go -> sub.Sub.run [inferred]".to_string()), "{e:#?}");
    assert!(e.contains(&"calls main.ts#go -> sub.ts#Sub.run [inferred]".to_string()), "{e:#?}");
    assert!(!e.iter().any(|l| l.contains("-> base.Base.run") || l.contains("-> base.ts#Base.run")), "{e:#?}");
}

#[test]
fn parameter_flow_edges_follow_edits_of_the_callee_file_only() {
    let repo = Repo::new();
    repo.write("lib.py", "def apply(f):\n    f()\n    return 0\n");
    repo.write("main.py", "from lib import apply\n\n\ndef double():\n    return 2\n\n\ndef go():\n    return apply(double)\n");
    repo.index_json(&[]);
    let flow = "calls lib.apply -> main.double [inferred]".to_string();
    assert!(edges(&repo.export()).contains(&flow), "{:#?}", edges(&repo.export()));
    // Only lib.py changes: apply stops calling its parameter, so main.py's edge must go.
    repo.write("lib.py", "def apply(f):\n    print(f)\n    return 0\n");
    let s = repo.index_json(&[]);
    assert_eq!(s["re_resolved"], 2, "main.py looked up apply, whose parameter uses changed");
    assert!(!edges(&repo.export()).contains(&flow), "{:#?}", edges(&repo.export()));
    repo.write("lib.py", "def apply(f):\n    f()\n    return 0\n");
    repo.index_json(&[]);
    assert!(edges(&repo.export()).contains(&flow));
}

/// The same in TypeScript: a function that calls its parameter, in another file.
#[test]
fn typescript_parameter_flow_follows_edits_of_the_callee_file() {
    let repo = Repo::new();
    repo.write("lib.ts", "export function apply(f: () => number): number {\n  return f();\n}\n");
    repo.write(
        "main.ts",
        "import { apply } from './lib';\nfunction double(): number { return 2; }\nexport function go() { return apply(double); }\n",
    );
    assert_incremental_equals_fresh(&repo, "the first index");
    let flow = "calls lib.ts#apply -> main.ts#double [inferred]".to_string();
    assert!(edges(&repo.export()).contains(&flow), "{:#?}", edges(&repo.export()));
    repo.write("lib.ts", "export function apply(f: () => number): number {\n  return 0 + String(f).length;\n}\n");
    assert_incremental_equals_fresh(&repo, "apply no longer calling its parameter");
    assert!(!edges(&repo.export()).contains(&flow));
    repo.write("lib.ts", "export function apply(g: number, f: () => number): number {\n  return f() + g;\n}\n");
    assert_incremental_equals_fresh(&repo, "the parameter moved to the second position");
    assert!(!edges(&repo.export()).contains(&flow), "main.ts passes double first, which apply does not call");
    repo.write(
        "main.ts",
        "import { apply } from './lib';\nfunction double(): number { return 2; }\nexport function go() { return apply(1, double); }\n",
    );
    assert_incremental_equals_fresh(&repo, "the caller passing it second");
    assert!(edges(&repo.export()).contains(&flow));
}

#[test]
fn a_heuristic_binding_by_unique_method_name_follows_other_files() {
    let repo = Repo::new();
    repo.write("lib.py", "class Billing:\n    def send_invoice(self):\n        return 1\n\n    def append(self):\n        return 2\n");
    repo.write("main.py", "def go(x):\n    x.append()\n    return x.send_invoice()\n");
    repo.index_json(&[]);
    let guess = "calls main.go -> lib.Billing.send_invoice [heuristic]".to_string();
    let e = edges(&repo.export());
    assert!(e.contains(&guess), "{e:#?}");
    // A method of builtin types is not guessed even when the repository has one method of that name.
    assert!(e.contains(&"calls main.go -> x.append [unresolved]".to_string()), "{e:#?}");
    // A second method with that name elsewhere: the name is no longer unique; main.py is
    // re-resolved although it did not change.
    repo.write("other.py", "class Mailer:\n    def send_invoice(self):\n        return 3\n");
    repo.index_json(&[]);
    let e = edges(&repo.export());
    assert!(!e.contains(&guess), "{e:#?}");
    assert!(e.contains(&"calls main.go -> x.send_invoice [unresolved]".to_string()), "{e:#?}");
    repo.remove("other.py");
    repo.index_json(&[]);
    assert!(edges(&repo.export()).contains(&guess));
}

/// A method no class of the repository defines: an outside base's, or the subclasses' hooks.
/// Each follows edits of the files that define the hierarchy, not of the caller's.
#[test]
fn methods_of_outside_bases_and_subclass_hooks_follow_other_files() {
    let repo = Repo::new();
    repo.write("base.py", "import threading\n\n\nclass Base(threading.Thread):\n    def go(self):\n        self.hook()\n");
    repo.write("sub.py", "from base import Base\n\n\nclass Sub(Base):\n    def run(self):\n        self.start()\n");
    repo.write("bus.ts", "import { EventEmitter } from 'events';\nexport class Bus extends EventEmitter {}\n");
    repo.write("main.ts", "import { Bus } from './bus';\nexport function go(b: Bus) { b.emit('x'); }\n");
    assert_incremental_equals_fresh(&repo, "the first index");
    let e = edges(&repo.export());
    assert!(e.contains(&"calls sub.Sub.run -> threading.Thread.start [inferred]".to_string()), "{e:#?}");
    assert!(e.contains(&"calls base.Base.go -> threading.Thread.hook [inferred]".to_string()), "{e:#?}");
    assert!(e.contains(&"calls main.ts#go -> events.EventEmitter.emit [inferred]".to_string()), "{e:#?}");
    // A subclass defines the hook: base.py's call reaches it, not the outside base.
    repo.write("hooks.py", "from base import Base\n\n\nclass Loud(Base):\n    def hook(self):\n        return 1\n");
    assert_incremental_equals_fresh(&repo, "a subclass defining the hook");
    let e = edges(&repo.export());
    assert!(e.contains(&"calls base.Base.go -> hooks.Loud.hook [inferred]".to_string()), "{e:#?}");
    assert!(!e.iter().any(|l| l.contains("threading.Thread.hook")), "{e:#?}");
    // The base defines the method itself, or no longer extends a class from outside.
    repo.write("base.py", "class Base:\n    def start(self):\n        return 0\n\n    def go(self):\n        self.hook()\n");
    repo.write("bus.ts", "export class Bus {\n  emit(name: string) { return name; }\n}\n");
    assert_incremental_equals_fresh(&repo, "bases of the repository");
    let e = edges(&repo.export());
    assert!(e.contains(&"calls sub.Sub.run -> base.Base.start [inferred]".to_string()), "{e:#?}");
    assert!(e.contains(&"calls main.ts#go -> bus.ts#Bus.emit [inferred]".to_string()), "{e:#?}");
    repo.remove("hooks.py");
    assert_incremental_equals_fresh(&repo, "the hook's subclass gone");
    assert!(edges(&repo.export()).contains(&"calls base.Base.go -> self.hook [unresolved]".to_string()));
}

/// JavaScript: members of required modules, modules called where required, and JSDoc
/// parameter types (`{import('./store').Store}` a type-only import) follow the files they
/// name through edits, each step equal to a fresh index.
#[test]
fn required_members_and_jsdoc_types_follow_other_files() {
    let repo = Repo::new();
    repo.write("store.js", "class Store {\n  get(k) { return k; }\n}\nmodule.exports = { Store };\n");
    repo.write(
        "app.js",
        "const Store = require('./store').Store;\nconst log = require('./log')('app');\n\n/** @param {import('./store').Store} s */\nfunction read(s) { return s.get('k'); }\nfunction make() { return new Store(); }\nmodule.exports = { read, make, log };\n",
    );
    assert_incremental_equals_fresh(&repo, "the first index");
    let e = edges(&repo.export());
    assert!(e.contains(&"calls app.js#read -> store.js#Store.get [inferred]".to_string()), "{e:#?}");
    assert!(e.contains(&"instantiates app.js#make -> store.js#Store [exact]".to_string()), "{e:#?}");
    // The module called where it is required appears, then the class moves to another file.
    repo.write("log.js", "module.exports = function makeLog(name) { return name; };\n");
    assert_incremental_equals_fresh(&repo, "the required module added");
    assert!(edges(&repo.export()).contains(&"calls app.js -> log.js#default [exact]".to_string()));
    repo.write("base.js", "class Store {\n  get(k) { return 0; }\n}\nmodule.exports = { Store };\n");
    repo.write("store.js", "module.exports = require('./base');\n");
    assert_incremental_equals_fresh(&repo, "the class moved behind a re-export");
    let e = edges(&repo.export());
    assert!(e.contains(&"calls app.js#read -> base.js#Store.get [inferred]".to_string()), "{e:#?}");
    repo.remove("base.js");
    assert_incremental_equals_fresh(&repo, "the class's file removed");
}

/// Indexes the repository incrementally and checks the result against a fresh index of it.
fn assert_incremental_equals_fresh(repo: &Repo, step: &str) {
    repo.index_json(&[]);
    assert_eq!(repo.export(), repo.fresh_export(&[]), "after {step}");
}

/// Found by the package sweep (httplib2): `pkg/__init__.py` defines `helper` and
/// `pkg/helper.py` is the module `pkg.helper`, one qname. It belongs to the file whose path
/// sorts last in a fresh index; an update of either file, or the owner's going, must end in
/// the same place.
#[test]
fn a_qname_defined_by_two_files_ends_where_a_fresh_index_puts_it() {
    let repo = Repo::new();
    repo.write("pkg/__init__.py", "def helper():\n    return 1\n\n\ndef other():\n    return helper()\n");
    repo.write("pkg/helper.py", "X = 1\n\n\ndef inner():\n    return X\n");
    repo.write("main.py", "from pkg import helper\nimport pkg.helper\n\n\ndef go():\n    return helper() + pkg.helper.inner()\n");
    assert_incremental_equals_fresh(&repo, "the first index");
    repo.write("pkg/__init__.py", "def helper():\n    return 2\n\n\ndef other():\n    return helper()\n");
    assert_incremental_equals_fresh(&repo, "an edit of the package (the file that loses the name)");
    repo.remove("pkg/helper.py");
    assert_incremental_equals_fresh(&repo, "the owner's removal");
    repo.write("pkg/helper.py", "X = 2\n");
    assert_incremental_equals_fresh(&repo, "the owner's return");
    repo.write("pkg/__init__.py", "def other():\n    return 0\n");
    assert_incremental_equals_fresh(&repo, "the loser dropping its definition");
    repo.write("pkg/__init__.py", "class helper:\n    def m(self):\n        return 1\n");
    repo.write("pkg/helper.py", "def inner():\n    return 3\n");
    assert_incremental_equals_fresh(&repo, "both files edited");
    repo.write("pkg/helper.py", "");
    repo.remove("pkg/helper.py");
    repo.write("pkg/helper/__init__.py", "Y = 1\n");
    assert_incremental_equals_fresh(&repo, "the module becoming a package");
}

/// Found by the package sweep (react-dom): `require('selfpkg')` inside the package named
/// `selfpkg` resolves to its main file; removing that file (or replacing it by a directory)
/// must re-resolve the requiring files.
#[test]
fn a_package_requiring_itself_follows_its_main_file() {
    let repo = Repo::new();
    repo.write("package.json", r#"{"name": "selfpkg", "main": "index.js"}"#);
    repo.write("index.js", "exports.hello = function () { return 1; };\n");
    repo.write("lib/a.js", "const p = require('selfpkg');\nfunction a() { return p.hello(); }\nmodule.exports = { a };\n");
    assert_incremental_equals_fresh(&repo, "the first index");
    let e = edges(&repo.export());
    assert!(e.iter().any(|l| l.contains("lib/a.js") && l.contains("-> index.js")), "{e:#?}");
    repo.remove("index.js");
    assert_incremental_equals_fresh(&repo, "the main file's removal");
    repo.write("index.js", "exports.hello = function () { return 2; };\n");
    assert_incremental_equals_fresh(&repo, "the main file's return");
    repo.remove("index.js");
    repo.write("index.js/inner.py", "def inner():\n    return 1\n");
    assert_incremental_equals_fresh(&repo, "the main file replaced by a directory");
}

/// Found by the package sweep (babel-polyfill): a skipped (minified) file is known only by its
/// diagnostic; when the file changes or goes, the diagnostic follows.
#[test]
fn the_diagnostic_of_a_skipped_file_follows_its_edits() {
    let repo = Repo::new();
    repo.write("app.js", "export function app() { return 1; }\n");
    repo.write("vendor.js", format!("{}\n{}\n", "var x=1;".repeat(4000), "var y=2;".repeat(3000)));
    assert_incremental_equals_fresh(&repo, "the first index");
    let mut text = std::fs::read_to_string(repo.path().join("vendor.js")).unwrap();
    text.push_str("function s() { return s(); }\n");
    repo.write("vendor.js", text);
    assert_incremental_equals_fresh(&repo, "an edit of the skipped file");
    repo.remove("vendor.js");
    assert_incremental_equals_fresh(&repo, "the skipped file's removal");
    assert!(!repo.export().contains("\"diagnostic\""));
}

/// Keys of object literals and destructuring patterns, JSX attributes and reads through a
/// local are members of a type declared in another file (a parameter's annotation, a return
/// type, a type alias's members and the types it intersects): edits of those declarations
/// re-resolve the files that use them.
#[test]
fn keys_follow_the_declared_types_of_other_files() {
    let repo = Repo::new();
    let types = "export interface Props { title: string; size: number }\nexport type Opts = { depth: number };\n\
                 export interface Other { title: string; size: number }\n";
    repo.write("src/types.ts", types);
    let comp = |card: &str, load: &str| {
        format!(
            "import {{ Props, Opts, Other }} from './types';\n\
             export const Card = (props: {card}) => null;\n\
             export function load(opts: Opts): {load} {{ return {{ title: 'x', size: opts.depth }}; }}\n"
        )
    };
    repo.write("src/comp.tsx", comp("Props", "Props"));
    repo.write(
        "src/use.tsx",
        "import { Card, load } from './comp';\n\
         export const App = () => <Card title=\"a\" size={1} />;\n\
         export function go() { const { title } = load({ depth: 2 }); const p = load({ depth: 3 }); return p.size + title.length; }\n",
    );
    assert_incremental_equals_fresh(&repo, "the first index");
    let e = edges(&repo.export());
    for want in [
        "references src/use.tsx#App -> src/types.ts#Props.title [inferred]",
        "references src/use.tsx#go -> src/types.ts#Opts.depth [inferred]",
        "references src/use.tsx#go -> src/types.ts#Props.title [inferred]",
        "references src/use.tsx#go -> src/types.ts#Props.size [inferred]",
    ] {
        assert!(e.contains(&want.to_string()), "{want} not in {e:#?}");
    }
    repo.write("src/comp.tsx", comp("Other", "Props"));
    assert_incremental_equals_fresh(&repo, "a parameter's annotation changed");
    assert!(edges(&repo.export()).contains(&"references src/use.tsx#App -> src/types.ts#Other.title [inferred]".to_string()));
    repo.write("src/comp.tsx", comp("Other", "Other"));
    assert_incremental_equals_fresh(&repo, "a return type changed");
    repo.write("src/types.ts", types.replace("Props { title", "Props { heading").replace("Other { title", "Other { heading"));
    assert_incremental_equals_fresh(&repo, "members renamed");
    repo.write(
        "src/types.ts",
        format!("{types}export interface Base {{ depth: number }}\n")
            .replace("Opts = { depth: number }", "Opts = Base & { width: number }"),
    );
    assert_incremental_equals_fresh(&repo, "a type alias intersecting another type");
    repo.write("src/types.ts", "export interface Props { heading: string }\n");
    assert_incremental_equals_fresh(&repo, "the types going");
}

#[test]
fn constructor_functions_reassignments_and_containers_follow_edits() {
    let repo = Repo::new();
    let stack = "function Stack() {\n  this.items = [];\n}\nStack.prototype.push = function (x) {\n  this.items.push(x);\n};\nmodule.exports = Stack;\n";
    repo.write("stack.js", stack);
    repo.write(
        "main.js",
        "const Stack = require('./stack');\nfunction a() {}\nfunction b() {}\nfunction fill(flag) {\n  let h = a;\n  if (flag) {\n    h = b;\n  }\n  h();\n  const s = new Stack();\n  s.push(1);\n}\nmodule.exports = { fill };\n",
    );
    repo.write("registry.py", "def flush():\n    return 1\n\n\ndef close():\n    return 2\n\n\nHOOKS = []\nHOOKS.append(flush)\n");
    repo.write("main.py", "from registry import HOOKS\n\n\ndef shutdown():\n    for hook in HOOKS:\n        hook()\n");
    assert_incremental_equals_fresh(&repo, "the first index");
    let e = edges(&repo.export());
    for want in [
        "calls main.js#fill -> stack.js#Stack.push [inferred]",
        "calls main.js#fill -> main.js#a [inferred]",
        "calls main.js#fill -> main.js#b [inferred]",
        "calls main.shutdown -> registry.flush [inferred]",
    ] {
        assert!(e.contains(&want.to_string()), "{want} not in {e:#?}");
    }
    // The prototype member goes: the call no longer binds; it comes back as a `this.` member.
    repo.write("stack.js", "function Stack() {\n  this.items = [];\n}\nmodule.exports = Stack;\n");
    assert_incremental_equals_fresh(&repo, "a prototype member removed");
    assert!(!edges(&repo.export()).iter().any(|e| e.contains("Stack.push")));
    repo.write("stack.js", "function Stack() {\n  this.push = function (x) {\n    return x;\n  };\n}\nmodule.exports = Stack;\n");
    assert_incremental_equals_fresh(&repo, "a member assigned in the constructor");
    assert!(edges(&repo.export()).contains(&"calls main.js#fill -> stack.js#Stack.push [inferred]".to_string()));
    // The reassignment made unconditional: only the last value reaches the call.
    repo.write(
        "main.js",
        "function a() {}\nfunction b() {}\nfunction fill() {\n  let h = a;\n  h = b;\n  h();\n}\nmodule.exports = { fill };\n",
    );
    assert_incremental_equals_fresh(&repo, "a straight-line reassignment");
    let e = edges(&repo.export());
    assert!(e.contains(&"calls main.js#fill -> main.js#b [exact]".to_string()), "{e:#?}");
    assert!(!e.iter().any(|x| x.starts_with("calls main.js#fill -> main.js#a ")), "{e:#?}");
    // A container gains an entry, then loses its mutation.
    repo.write(
        "registry.py",
        "def flush():\n    return 1\n\n\ndef close():\n    return 2\n\n\nHOOKS = []\nHOOKS.append(flush)\nHOOKS.append(close)\n",
    );
    assert_incremental_equals_fresh(&repo, "an entry appended in another file");
    assert!(edges(&repo.export()).contains(&"calls main.shutdown -> registry.close [inferred]".to_string()));
    repo.write("registry.py", "def flush():\n    return 1\n\n\nHOOKS = []\n");
    assert_incremental_equals_fresh(&repo, "the entries removed");
    assert!(!edges(&repo.export()).iter().any(|e| e.starts_with("calls main.shutdown -> registry.")));
}

#[test]
fn python_import_roots_follow_edits_of_the_project_configuration() {
    let repo = Repo::new();
    repo.write("pyproject.toml", "[project]\nname = \"x\"\n");
    repo.write("lib/shared/__init__.py", "def log(msg):\n    return msg\n");
    repo.write("app/main.py", "from shared import log\n\n\ndef run():\n    return log(1)\n");
    assert_incremental_equals_fresh(&repo, "the first index");
    // Without the root the module is `lib.shared`, and `shared` is an external package.
    let in_repo = "\"qname\":\"shared.log\",\"name\":\"log\",\"kind\":\"function\"";
    assert!(!repo.export().contains(in_repo));
    repo.write("pyproject.toml", "[project]\nname = \"x\"\n\n[tool.pyright]\nextraPaths = [\"lib\"]\n");
    assert_incremental_equals_fresh(&repo, "lib/ named an import root");
    assert!(repo.export().contains(in_repo), "{}", repo.export());
    assert!(edges(&repo.export()).contains(&"calls app.main.run -> shared.log [exact]".to_string()));
    repo.write("pyproject.toml", "[project]\nname = \"x\"\n");
    assert_incremental_equals_fresh(&repo, "the root removed again");
    assert!(!repo.export().contains(in_repo));
}

#[test]
fn parameters_passed_on_entries_and_getattr_follow_edits() {
    let repo = Repo::new();
    let utils = "function maybeMap(val, fn) {\n  return fn(val);\n}\nmodule.exports = { maybeMap };\n";
    repo.write("utils.js", utils);
    repo.write("encode.js", "const utils = require('./utils');\nfunction encodeAll(v, enc) {\n  return utils.maybeMap(v, enc);\n}\nmodule.exports = encodeAll;\n");
    repo.write("main.js", "const encodeAll = require('./encode');\nfunction encode(v) {\n  return v;\n}\nfunction run() {\n  return encodeAll(1, encode);\n}\nmodule.exports = { run };\n");
    repo.write("table.py", "def start():\n    pass\n\n\nCOMMANDS = {\"start\": start}\n");
    repo.write("base.py", "class Base:\n    def __getattr__(self, name):\n        return name\n");
    repo.write(
        "main.py",
        "from table import COMMANDS\nfrom base import Base\n\n\nclass Proxy(Base):\n    pass\n\n\ndef dispatch(name):\n    COMMANDS[name]()\n    Proxy().anything\n",
    );
    assert_incremental_equals_fresh(&repo, "the first index");
    let e = edges(&repo.export());
    for want in [
        "calls utils.js#maybeMap -> main.js#encode [inferred]",
        "calls main.dispatch -> table.start [inferred]",
        "calls main.dispatch -> base.Base.__getattr__ [inferred]",
    ] {
        assert!(e.contains(&want.to_string()), "{want} not in {e:#?}");
    }
    // The innermost function stops calling its parameter, then calls it through a callback.
    repo.write("utils.js", "function maybeMap(val, fn) {\n  return val;\n}\nmodule.exports = { maybeMap };\n");
    assert_incremental_equals_fresh(&repo, "the parameter no longer called");
    assert!(!edges(&repo.export()).iter().any(|e| e.contains("-> main.js#encode [inferred]")));
    repo.write("utils.js", "function maybeMap(val, fn) {\n  return [val].map(fn);\n}\nmodule.exports = { maybeMap };\n");
    assert_incremental_equals_fresh(&repo, "the parameter handed to map");
    assert!(edges(&repo.export()).contains(&"calls utils.js#maybeMap -> main.js#encode [inferred]".to_string()));
    // The middle function stops passing it on.
    repo.write("encode.js", "const utils = require('./utils');\nfunction encodeAll(v, enc) {\n  return utils.maybeMap(v, String);\n}\nmodule.exports = encodeAll;\n");
    assert_incremental_equals_fresh(&repo, "the parameter no longer passed on");
    assert!(!edges(&repo.export()).iter().any(|e| e.contains("-> main.js#encode [inferred]")));
    // A container in another file gains an entry; the base class loses __getattr__.
    repo.write("table.py", "def start():\n    pass\n\n\ndef stop():\n    pass\n\n\nCOMMANDS = {\"start\": start, \"stop\": stop}\n");
    assert_incremental_equals_fresh(&repo, "an entry added to the container");
    assert!(edges(&repo.export()).contains(&"calls main.dispatch -> table.stop [inferred]".to_string()));
    repo.write("base.py", "class Base:\n    pass\n");
    assert_incremental_equals_fresh(&repo, "__getattr__ removed from the base class");
    assert!(!edges(&repo.export()).iter().any(|e| e.contains("__getattr__")));
    // A member taken out of the argument by an object pattern, called, then only returned.
    repo.write("req.js", "function request({ ok }) {\n  ok();\n}\nmodule.exports = { request };\n");
    repo.write("use.js", "const { request } = require('./req');\nfunction done() {}\nrequest({ ok: done });\n");
    assert_incremental_equals_fresh(&repo, "a destructured parameter called");
    assert!(edges(&repo.export()).contains(&"calls req.js#request -> use.js#done [inferred]".to_string()));
    repo.write("req.js", "function request({ ok }) {\n  return ok;\n}\nmodule.exports = { request };\n");
    assert_incremental_equals_fresh(&repo, "the destructured parameter no longer called");
    assert!(!edges(&repo.export()).iter().any(|e| e.starts_with("calls req.js#request -> use.js#done")));
}
