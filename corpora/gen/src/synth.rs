//! The generator: plans a package tree, then emits modules in dependency order (every module
//! imports only modules emitted before it), recording each edge it writes into the code.
//!
//! Everything that is called, instantiated, inherited or passed as a callback is bound by
//! construction, so the recorded edges are the exact answer a resolver should find with
//! scope, import, `self`/`this`, `super` and constructor-type analysis.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;
use std::io;

use crate::rng::Rng;
use crate::words::{self, CLASS_SUFFIXES, DOMAINS, MODULE_KINDS, NOUNS, TOPS, VERBS, camel, kebab, pascal, snake_of_pascal};
use crate::{Config, Lang};

/// Where generated files go (disk or memory).
pub(crate) trait Sink {
    fn file(&mut self, rel_path: &str, contents: &str) -> io::Result<()>;
}

pub(crate) struct Output {
    pub files: usize,
    pub lines: usize,
    /// Sorted, de-duplicated `kind src -> dst` lines.
    pub truth: Vec<String>,
}

pub(crate) fn run(cfg: &Config, sink: &mut dyn Sink) -> io::Result<Output> {
    let mut g = Gen::new(cfg, sink);
    g.plan();
    g.emit_all()?;
    g.dispatch_edges();
    let mut truth = std::mem::take(&mut g.edges);
    truth.sort_unstable();
    truth.dedup();
    Ok(Output { files: g.files, lines: g.lines, truth })
}

const AVG_MODULE_LINES: usize = 230;
const EST_INIT_LINES: usize = 9;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Sym {
    F(usize),
    C(usize),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum FnKind {
    Plain,
    Registrar,
    Decorator,
    Handler,
    Main,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Role {
    Normal,
    Routes,
    Entry,
}

struct Package {
    name: String,
    segs: Vec<String>,
    parent: Option<usize>,
    children: Vec<usize>,
    n_own: usize,
    own_modules: Vec<usize>,
    /// The `__init__.py` / `index.ts` module, once emitted.
    init: Option<usize>,
    /// Re-exported symbols (name -> original definition).
    exports: BTreeMap<String, Sym>,
    /// Every value name the package index exports (symbols and others such as constants).
    export_names: BTreeSet<String>,
}

struct Module {
    pkg: usize,
    /// snake-case base name (module stem, or the package name for an init).
    base: String,
    qname: String,
    funcs: Vec<usize>,
    classes: Vec<usize>,
    /// TS: every name the module exports (for `export *` collision checks).
    exported_names: Vec<String>,
}

struct Func {
    module: usize,
    name: String,
    qname: String,
    kind: FnKind,
    public: bool,
}

struct Class {
    module: usize,
    name: String,
    qname: String,
    base: Option<usize>,
    /// Own methods (not `__init__`), in definition order.
    methods: Vec<String>,
    /// TS instance fields declared by this class.
    fields: Vec<String>,
    /// Python: defines `__init__`; TS: defines a constructor (root classes only).
    has_init: bool,
    /// Python: this class's own `__init__` calls a function.
    init_calls: bool,
    public: bool,
    default_export: bool,
    depth: u32,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Style {
    PyFrom,
    PyModAlias,
    PyModPlain,
    TsNamed,
    TsNs,
}

struct SrcImport {
    style: Style,
    spec: String,
    alias: String,
    items: Vec<(String, Option<String>)>,
    default_local: Option<String>,
}

/// Per-module state while it is generated.
struct ModCtx {
    mid: usize,
    pkg: usize,
    qname: String,
    names: HashSet<String>,
    srcs: Vec<SrcImport>,
    src_index: HashMap<usize, usize>,
    sym_expr: HashMap<Sym, String>,
    ext_os: bool,
    ext_json: bool,
    ext_logging: bool,
    ext_express: bool,
    ext_path: bool,
    fs_names: BTreeSet<&'static str>,
    dep_funcs: Vec<usize>,
    dep_classes: Vec<usize>,
    dep_regs: Vec<usize>,
    dep_decos: Vec<usize>,
    n_deps: usize,
    local_plain: Vec<usize>,
    local_classes: Vec<usize>,
    local_regs: Vec<usize>,
    local_decos: Vec<usize>,
    local_handlers: Vec<usize>,
    edges: Vec<String>,
    /// Classes whose `self.last_result` has been assigned (the first assignment defines it;
    /// later ones are writes).
    attrs_defined: HashSet<usize>,
}

impl ModCtx {
    fn edge(&mut self, kind: &str, src: &str, dst: &str) {
        let mut s = String::with_capacity(kind.len() + src.len() + dst.len() + 5);
        s.push_str(kind);
        s.push(' ');
        s.push_str(src);
        s.push_str(" -> ");
        s.push_str(dst);
        self.edges.push(s);
    }
}

/// Per-function state while its body is generated.
struct FnCtx {
    src: String,
    class: Option<usize>,
    /// Methods that `self.x()` may call (lower rank than the current method).
    self_cands: Vec<String>,
    /// Base class to use for `super().m()` when the current method overrides `m`.
    super_of: Option<(usize, String)>,
    locals: HashSet<String>,
    indent: usize,
    local_fn_limit: usize,
    local_cls_limit: usize,
    has_params: bool,
    nested_used: bool,
}

impl FnCtx {
    fn fresh(&mut self, base: &str) -> String {
        if self.locals.insert(base.to_string()) {
            return base.to_string();
        }
        for i in 2.. {
            let n = format!("{base}{i}");
            if self.locals.insert(n.clone()) {
                return n;
            }
        }
        unreachable!()
    }
}

/// A module or child package a package index may re-export from: (module id, relative name,
/// re-exportable symbols, every exported name).
type InitSource = (usize, String, Vec<(String, Sym)>, Vec<String>);

struct ClassPlan {
    cid: usize,
    method_lens: Vec<usize>,
    helper: Option<usize>,
    helper_field: String,
    method_decos: Vec<Option<usize>>,
}

struct Gen<'s> {
    lang: Lang,
    rng: Rng,
    target: usize,
    sink: &'s mut dyn Sink,
    lines: usize,
    files: usize,
    pkgs: Vec<Package>,
    mods: Vec<Module>,
    funcs: Vec<Func>,
    classes: Vec<Class>,
    edges: Vec<String>,
    /// `self.m()` / `this.m()` sites: (caller, class of `self`, method). A call on `self` may
    /// run the override of any subclass, known once every class is emitted.
    self_calls: Vec<(String, usize, String)>,
    /// Modules (in emission order) that define public symbols other modules can use.
    done_mods: Vec<usize>,
    planned_modules: usize,
    emitted_modules: usize,
    inits_left: usize,
    tops: Vec<String>,
}

fn count_lines(s: &str) -> usize {
    s.bytes().filter(|&b| b == b'\n').count()
}

impl<'s> Gen<'s> {
    fn new(cfg: &Config, sink: &'s mut dyn Sink) -> Self {
        Gen {
            lang: cfg.lang,
            rng: Rng::new(cfg.seed),
            target: cfg.lines.max(1),
            sink,
            lines: 0,
            files: 0,
            pkgs: Vec::new(),
            mods: Vec::new(),
            funcs: Vec::new(),
            classes: Vec::new(),
            edges: Vec::new(),
            self_calls: Vec::new(),
            done_mods: Vec::new(),
            planned_modules: 0,
            emitted_modules: 0,
            inits_left: 0,
            tops: Vec::new(),
        }
    }

    fn py(&self) -> bool {
        self.lang == Lang::Python
    }

    // ------------------------------------------------------------------ planning

    fn split(&mut self, n: usize, k: usize) -> Vec<usize> {
        let ws: Vec<usize> = (0..k).map(|_| self.rng.range(6, 14)).collect();
        let sum: usize = ws.iter().sum();
        let mut parts: Vec<usize> = ws.iter().map(|w| n * w / sum).collect();
        let assigned: usize = parts.iter().sum();
        parts[0] += n - assigned;
        parts
    }

    fn plan(&mut self) {
        let est = (self.target / AVG_MODULE_LINES).max(2);
        let n_top = if est < 16 { 1 } else { (est / 350).max(2) };
        let mut names: Vec<&str> = TOPS.to_vec();
        self.rng.shuffle(&mut names);
        for i in 0..n_top {
            let base = names[i % names.len()];
            let name = if i < names.len() { base.to_string() } else { format!("{base}{}", i / names.len() + 1) };
            self.tops.push(name);
        }
        let parts = self.split(est, n_top);
        for (i, part) in parts.into_iter().enumerate() {
            let name = self.tops[i].clone();
            self.plan_package(None, name, part.max(1), 0);
        }
        self.planned_modules = self.pkgs.iter().map(|p| p.n_own).sum();
        self.inits_left = self.pkgs.len();
    }

    fn plan_package(&mut self, parent: Option<usize>, name: String, n: usize, depth: usize) -> usize {
        let id = self.pkgs.len();
        let mut segs = parent.map(|p| self.pkgs[p].segs.clone()).unwrap_or_default();
        segs.push(name.clone());
        self.pkgs.push(Package {
            name,
            segs,
            parent,
            children: Vec::new(),
            n_own: 0,
            own_modules: Vec::new(),
            init: None,
            exports: BTreeMap::new(),
            export_names: BTreeSet::new(),
        });
        if let Some(p) = parent {
            self.pkgs[p].children.push(id);
        }
        if n <= 14 || depth >= 3 {
            self.pkgs[id].n_own = n;
        } else {
            let own = self.rng.range(2, 4).min(n);
            let rest = n - own;
            let k = (rest / 12).clamp(2, 8);
            let parts = self.split(rest, k);
            let mut used = HashSet::new();
            for part in parts {
                if part == 0 {
                    continue;
                }
                let cname = loop {
                    let c = *self.rng.pick(DOMAINS);
                    if used.insert(c) {
                        break c.to_string();
                    }
                };
                self.plan_package(Some(id), cname, part, depth + 1);
            }
            self.pkgs[id].n_own = own;
        }
        id
    }

    // ------------------------------------------------------------------ paths and names

    fn module_qname(&self, pkg: usize, stem: Option<&str>) -> String {
        let segs = &self.pkgs[pkg].segs;
        match self.lang {
            Lang::Python => {
                let mut q = segs.join(".");
                if let Some(s) = stem {
                    q.push('.');
                    q.push_str(s);
                }
                q
            }
            Lang::TypeScript => {
                format!("src/{}/{}.ts", segs.join("/"), stem.unwrap_or("index"))
            }
        }
    }

    fn module_path(&self, mid: usize) -> String {
        let m = &self.mods[mid];
        match self.lang {
            Lang::Python => {
                let dir = self.pkgs[m.pkg].segs.join("/");
                if m.qname == self.pkgs[m.pkg].segs.join(".") { format!("{dir}/__init__.py") } else { format!("{dir}/{}.py", m.base) }
            }
            Lang::TypeScript => m.qname.clone(),
        }
    }

    /// Target segments of a module: package segments, plus the stem for a non-init module.
    fn target_segs(&self, mid: usize) -> (Vec<String>, Option<String>) {
        let m = &self.mods[mid];
        let segs = self.pkgs[m.pkg].segs.clone();
        if self.pkgs[m.pkg].init == Some(mid) {
            (segs, None)
        } else {
            let stem = match self.lang {
                Lang::Python => m.base.clone(),
                Lang::TypeScript => kebab(&m.base),
            };
            (segs, Some(stem))
        }
    }

    fn py_rel_spec(&self, from_pkg: usize, target: usize) -> Option<String> {
        let cp = &self.pkgs[from_pkg].segs;
        let (mut t, stem) = self.target_segs(target);
        if let Some(s) = stem {
            t.push(s);
        }
        let k = cp.iter().zip(t.iter()).take_while(|(a, b)| a == b).count();
        if k == 0 {
            return None;
        }
        let dots = cp.len() - k + 1;
        Some(format!("{}{}", ".".repeat(dots), t[k..].join(".")))
    }

    fn ts_spec(&self, from_pkg: usize, target: usize) -> String {
        let cd = &self.pkgs[from_pkg].segs;
        let (td, stem) = self.target_segs(target);
        let k = cd.iter().zip(td.iter()).take_while(|(a, b)| a == b).count();
        let ups = cd.len() - k;
        let mut parts: Vec<String> = td[k..].to_vec();
        if let Some(s) = stem {
            parts.push(s);
        }
        if parts.is_empty() {
            if ups == 0 { ".".to_string() } else { "../".repeat(ups).trim_end_matches('/').to_string() }
        } else if ups == 0 {
            format!("./{}", parts.join("/"))
        } else {
            format!("{}{}", "../".repeat(ups), parts.join("/"))
        }
    }

    fn fn_name_form(&self, snake: &str) -> String {
        if self.py() { snake.to_string() } else { camel(snake) }
    }

    fn unique(names: &mut HashSet<String>, base: String) -> String {
        if names.insert(base.clone()) {
            return base;
        }
        for i in 2.. {
            let n = format!("{base}{i}");
            if names.insert(n.clone()) {
                return n;
            }
        }
        unreachable!()
    }

    fn new_fn_name(&mut self, ctx: &mut ModCtx, private: bool) -> String {
        for _ in 0..40 {
            let snake = format!("{}_{}", self.rng.pick(VERBS), self.rng.pick(NOUNS));
            let name = if self.py() { if private { format!("_{snake}") } else { snake } } else { camel(&snake) };
            if ctx.names.insert(name.clone()) {
                return name;
            }
        }
        let snake = format!("{}_{}", self.rng.pick(VERBS), self.rng.pick(NOUNS));
        let name = self.fn_name_form(&snake);
        Self::unique(&mut ctx.names, name)
    }

    fn new_class_name(&mut self, ctx: &mut ModCtx, private: bool) -> String {
        for _ in 0..40 {
            let noun = *self.rng.pick(NOUNS);
            let n = format!("{}{}", pascal(noun), self.rng.pick(CLASS_SUFFIXES));
            let n = if private && self.py() { format!("_{n}") } else { n };
            if ctx.names.insert(n.clone()) {
                return n;
            }
        }
        let noun = *self.rng.pick(NOUNS);
        let n = format!("{}{}", pascal(noun), self.rng.pick(CLASS_SUFFIXES));
        Self::unique(&mut ctx.names, n)
    }

    fn new_method_name(&mut self) -> String {
        let snake = if self.rng.chance(0.5) {
            self.rng.pick(VERBS).to_string()
        } else {
            format!("{}_{}", self.rng.pick(VERBS), self.rng.pick(NOUNS))
        };
        self.fn_name_form(&snake)
    }

    // ------------------------------------------------------------------ class hierarchy

    fn chain(&self, c: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut cur = Some(c);
        while let Some(x) = cur {
            out.push(x);
            cur = self.classes[x].base;
        }
        out
    }

    /// All methods callable on an instance, root-first (this order is also the "rank" that
    /// keeps `self` calls acyclic).
    fn all_methods(&self, c: usize) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut seen = HashSet::new();
        for &x in self.chain(c).iter().rev() {
            for m in &self.classes[x].methods {
                if seen.insert(m.as_str()) {
                    out.push(m.clone());
                }
            }
        }
        out
    }

    fn all_fields(&self, c: usize) -> Vec<String> {
        self.chain(c).iter().flat_map(|&x| self.classes[x].fields.iter().cloned()).collect()
    }

    fn method_owner(&self, c: usize, m: &str) -> usize {
        let mut cur = c;
        loop {
            if self.classes[cur].methods.iter().any(|x| x == m) {
                return cur;
            }
            cur = self.classes[cur].base.expect("method must exist in the hierarchy");
        }
    }

    fn init_owner(&self, c: usize) -> Option<usize> {
        self.chain(c).into_iter().find(|&x| self.classes[x].has_init)
    }

    /// Instantiating `c` from `src` runs its initializer, its own or a base's: Python's
    /// `__init__`, a TypeScript `constructor`.
    fn init_call(&self, ctx: &mut ModCtx, src: &str, c: usize, py: bool) {
        if let Some(io) = self.init_owner(c) {
            let name = if py { "__init__" } else { "constructor" };
            ctx.edge("calls", src, &format!("{}.{name}", self.classes[io].qname));
        }
    }

    /// Whether instantiating `c` runs function bodies (its `__init__` chain calls functions).
    /// Such classes are not instantiated by code that runs on import (class bodies, module
    /// level), so importing the generated package stays cheap.
    fn heavy_init(&self, c: usize) -> bool {
        let mut cur = self.init_owner(c);
        while let Some(o) = cur {
            if self.classes[o].init_calls {
                return true;
            }
            cur = self.classes[o].base.and_then(|b| self.init_owner(b));
        }
        false
    }

    /// The overrides a `self.m()` call may run: `m` as defined by every class below the
    /// receiver's class.
    fn dispatch_edges(&mut self) {
        let mut edges = Vec::new();
        for (src, c, m) in &self.self_calls {
            for (x, class) in self.classes.iter().enumerate() {
                if x != *c && class.methods.iter().any(|n| n == m) && self.chain(x).contains(c) {
                    edges.push(format!("calls {src} -> {}.{m}", class.qname));
                }
            }
        }
        self.edges.extend(edges);
    }

    fn method_qname(&self, c: usize, m: &str) -> String {
        let o = self.method_owner(c, m);
        format!("{}.{}", self.classes[o].qname, m)
    }

    // ------------------------------------------------------------------ imports

    fn sym_info(&self, sym: Sym) -> (usize, String, String, bool) {
        match sym {
            Sym::F(f) => (self.funcs[f].module, self.funcs[f].name.clone(), self.funcs[f].qname.clone(), false),
            Sym::C(c) => {
                (self.classes[c].module, self.classes[c].name.clone(), self.classes[c].qname.clone(), self.classes[c].default_export)
            }
        }
    }

    /// The expression that names `sym` in the current module, adding imports as needed.
    fn ref_sym(&mut self, ctx: &mut ModCtx, sym: Sym) -> String {
        let (home, name, q, is_default) = self.sym_info(sym);
        if home == ctx.mid {
            return name;
        }
        if let Some(e) = ctx.sym_expr.get(&sym) {
            return e.clone();
        }
        let mut sources = vec![home];
        if !is_default {
            let mut p = Some(self.mods[home].pkg);
            while let Some(pi) = p {
                let pk = &self.pkgs[pi];
                match pk.init {
                    Some(init) if pk.exports.get(&name) == Some(&sym) => sources.push(init),
                    _ => break,
                }
                p = pk.parent;
            }
        }
        let already: Vec<usize> = sources.iter().copied().filter(|s| ctx.src_index.contains_key(s)).collect();
        let src = if !already.is_empty() && self.rng.chance(0.85) {
            *self.rng.pick(&already)
        } else if sources.len() > 1 && self.rng.chance(0.4) {
            sources[1 + self.rng.below(sources.len() - 1)]
        } else {
            home
        };
        let expr = self.import_via(ctx, src, &name, &q, matches!(sym, Sym::C(_)), is_default);
        ctx.sym_expr.insert(sym, expr.clone());
        expr
    }

    /// Imports `name` (the definition `sym_q`) from module `src`; a named or default import
    /// is also an `imports` edge to the definition it names.
    fn import_via(&mut self, ctx: &mut ModCtx, src: usize, name: &str, sym_q: &str, is_class: bool, is_default: bool) -> String {
        let idx = match ctx.src_index.get(&src) {
            Some(&i) => i,
            None => {
                let si = self.new_src_import(ctx, src, is_default);
                let q = self.mods[src].qname.clone();
                ctx.edge("imports", &ctx.qname.clone(), &q);
                ctx.srcs.push(si);
                ctx.src_index.insert(src, ctx.srcs.len() - 1);
                ctx.srcs.len() - 1
            }
        };
        let src_base = self.mods[src].base.clone();
        if is_default || matches!(ctx.srcs[idx].style, Style::PyFrom | Style::TsNamed) {
            ctx.edge("imports", &ctx.qname.clone(), sym_q);
        }
        if is_default {
            if let Some(l) = &ctx.srcs[idx].default_local {
                return l.clone();
            }
            let local = if !ctx.names.contains(name) && !self.rng.chance(0.2) {
                ctx.names.insert(name.to_string());
                name.to_string()
            } else {
                Self::unique(&mut ctx.names, format!("{}{}", pascal(&src_base), name))
            };
            ctx.srcs[idx].default_local = Some(local.clone());
            return local;
        }
        match ctx.srcs[idx].style {
            Style::PyFrom | Style::TsNamed => {
                let want_alias = ctx.names.contains(name) || self.rng.chance(0.1);
                let local = if !want_alias {
                    ctx.names.insert(name.to_string());
                    name.to_string()
                } else if is_class {
                    Self::unique(&mut ctx.names, format!("{}{}", pascal(&src_base), name))
                } else if self.py() {
                    Self::unique(&mut ctx.names, format!("{name}_{src_base}"))
                } else {
                    Self::unique(&mut ctx.names, format!("{name}{}", pascal(&src_base)))
                };
                let alias = if local == name { None } else { Some(local.clone()) };
                ctx.srcs[idx].items.push((name.to_string(), alias));
                local
            }
            Style::PyModAlias | Style::TsNs => format!("{}.{}", ctx.srcs[idx].alias, name),
            Style::PyModPlain => format!("{}.{}", self.mods[src].qname, name),
        }
    }

    fn new_src_import(&mut self, ctx: &mut ModCtx, src: usize, is_default: bool) -> SrcImport {
        let base = self.mods[src].base.clone();
        let mut si = SrcImport { style: Style::PyFrom, spec: String::new(), alias: String::new(), items: Vec::new(), default_local: None };
        match self.lang {
            Lang::Python => {
                let rel = self.py_rel_spec(ctx.pkg, src);
                // `import top.pkg.mod` + `top.pkg.mod.name` at import time (base classes,
                // decorators) fails while `top` is still initialising, so the plain form is
                // only used across top-level packages (`rel` is None exactly then).
                let w = [35, if rel.is_some() { 30 } else { 0 }, 18, if rel.is_none() { 18 } else { 0 }];
                match self.rng.weighted(&w) {
                    0 => si.spec = self.mods[src].qname.clone(),
                    1 => si.spec = rel.unwrap(),
                    2 => {
                        si.style = Style::PyModAlias;
                        si.spec = self.mods[src].qname.clone();
                        si.alias = Self::unique(&mut ctx.names, format!("{base}_mod"));
                    }
                    _ => {
                        si.style = Style::PyModPlain;
                        si.spec = self.mods[src].qname.clone();
                    }
                }
            }
            Lang::TypeScript => {
                si.spec = self.ts_spec(ctx.pkg, src);
                if !is_default && self.rng.chance(0.25) {
                    si.style = Style::TsNs;
                    si.alias = Self::unique(&mut ctx.names, format!("{}Mod", camel(&base)));
                } else {
                    si.style = Style::TsNamed;
                }
            }
        }
        si
    }

    fn render_imports(&self, ctx: &ModCtx, out: &mut String) {
        match self.lang {
            Lang::Python => {
                let mut any_ext = false;
                for (on, name) in [(ctx.ext_json, "json"), (ctx.ext_logging, "logging"), (ctx.ext_os, "os")] {
                    if on {
                        let _ = writeln!(out, "import {name}");
                        any_ext = true;
                    }
                }
                if any_ext && !ctx.srcs.is_empty() {
                    out.push('\n');
                }
                for si in &ctx.srcs {
                    match si.style {
                        Style::PyFrom => {
                            let items: Vec<String> = si
                                .items
                                .iter()
                                .map(|(n, a)| match a {
                                    Some(a) => format!("{n} as {a}"),
                                    None => n.clone(),
                                })
                                .collect();
                            let one = format!("from {} import {}", si.spec, items.join(", "));
                            if one.len() <= 88 {
                                out.push_str(&one);
                                out.push('\n');
                            } else {
                                let _ = writeln!(out, "from {} import (", si.spec);
                                for it in &items {
                                    let _ = writeln!(out, "    {it},");
                                }
                                out.push_str(")\n");
                            }
                        }
                        Style::PyModAlias => {
                            let _ = writeln!(out, "import {} as {}", si.spec, si.alias);
                        }
                        Style::PyModPlain => {
                            let _ = writeln!(out, "import {}", si.spec);
                        }
                        _ => unreachable!(),
                    }
                }
            }
            Lang::TypeScript => {
                if ctx.ext_express {
                    out.push_str("import express from 'express';\n");
                }
                if ctx.ext_path {
                    out.push_str("import * as path from 'path';\n");
                }
                if !ctx.fs_names.is_empty() {
                    let names: Vec<&str> = ctx.fs_names.iter().copied().collect();
                    let _ = writeln!(out, "import {{ {} }} from 'node:fs';", names.join(", "));
                }
                for si in &ctx.srcs {
                    if si.style == Style::TsNs {
                        let _ = writeln!(out, "import * as {} from '{}';", si.alias, si.spec);
                    }
                    let items: Vec<String> = si
                        .items
                        .iter()
                        .map(|(n, a)| match a {
                            Some(a) => format!("{n} as {a}"),
                            None => n.clone(),
                        })
                        .collect();
                    let mut head = String::new();
                    if let Some(d) = &si.default_local {
                        head.push_str(d);
                    }
                    if !items.is_empty() {
                        if !head.is_empty() {
                            head.push_str(", ");
                        }
                        let one = format!("{{ {} }}", items.join(", "));
                        if one.len() + si.spec.len() + 16 <= 100 {
                            head.push_str(&one);
                        } else {
                            head.push_str("{\n");
                            for it in &items {
                                let _ = writeln!(head, "  {it},");
                            }
                            head.push('}');
                        }
                    }
                    if !head.is_empty() {
                        let _ = writeln!(out, "import {head} from '{}';", si.spec);
                    }
                }
            }
        }
    }

    // ------------------------------------------------------------------ externals

    fn ext_os(&mut self, ctx: &mut ModCtx) {
        if !ctx.ext_os {
            ctx.ext_os = true;
            let q = ctx.qname.clone();
            ctx.edge("imports", &q, "os");
        }
    }
    fn ext_json(&mut self, ctx: &mut ModCtx) {
        if !ctx.ext_json {
            ctx.ext_json = true;
            let q = ctx.qname.clone();
            ctx.edge("imports", &q, "json");
        }
    }
    fn ext_logging(&mut self, ctx: &mut ModCtx) {
        if !ctx.ext_logging {
            ctx.ext_logging = true;
            let q = ctx.qname.clone();
            ctx.edge("imports", &q, "logging");
        }
    }
    fn ext_express(&mut self, ctx: &mut ModCtx) {
        if !ctx.ext_express {
            ctx.ext_express = true;
            let q = ctx.qname.clone();
            ctx.edge("imports", &q, "express");
        }
    }
    fn ext_path(&mut self, ctx: &mut ModCtx) {
        if !ctx.ext_path {
            ctx.ext_path = true;
            let q = ctx.qname.clone();
            ctx.edge("imports", &q, "path");
        }
    }
    fn ext_fs(&mut self, ctx: &mut ModCtx, name: &'static str) {
        if ctx.fs_names.is_empty() {
            let q = ctx.qname.clone();
            ctx.edge("imports", &q, "fs");
        }
        ctx.fs_names.insert(name);
    }

    // ------------------------------------------------------------------ emission driver

    fn write_file(&mut self, path: &str, text: &str, count: bool) -> io::Result<()> {
        if count {
            self.lines += count_lines(text);
        }
        self.files += 1;
        self.sink.file(path, text)
    }

    fn emit_all(&mut self) -> io::Result<()> {
        if !self.py() {
            self.write_file("package.json", PACKAGE_JSON, false)?;
            self.write_file("tsconfig.json", TSCONFIG_JSON, false)?;
        }
        let tops: Vec<usize> = (0..self.pkgs.len()).filter(|&p| self.pkgs[p].parent.is_none()).collect();
        for p in tops {
            self.emit_package(p)?;
        }
        Ok(())
    }

    fn emit_package(&mut self, p: usize) -> io::Result<()> {
        let children = self.pkgs[p].children.clone();
        for c in children {
            self.emit_package(c)?;
        }
        let n_own = self.pkgs[p].n_own;
        let is_top = self.pkgs[p].parent.is_none();
        let mut used: HashSet<String> = HashSet::new();
        for i in 0..n_own {
            let entry = is_top && i + 1 == n_own && n_own >= 2;
            let role = if entry {
                Role::Entry
            } else if !self.py() && self.rng.chance(0.08) {
                Role::Routes
            } else {
                Role::Normal
            };
            let base = loop {
                let b = match role {
                    Role::Entry => {
                        if self.py() {
                            "main".to_string()
                        } else {
                            "server".to_string()
                        }
                    }
                    Role::Routes => format!("{}_routes", self.rng.pick(NOUNS)),
                    Role::Normal => {
                        if self.rng.chance(0.7) {
                            format!("{}_{}", self.rng.pick(NOUNS), self.rng.pick(MODULE_KINDS))
                        } else {
                            self.rng.pick(MODULE_KINDS).to_string()
                        }
                    }
                };
                if used.insert(b.clone()) {
                    break b;
                }
            };
            let target = self.next_target();
            self.emit_module(p, base, role, target)?;
            self.emitted_modules += 1;
        }
        self.emit_init(p)?;
        self.inits_left -= 1;
        Ok(())
    }

    fn next_target(&mut self) -> usize {
        let left = self.planned_modules.saturating_sub(self.emitted_modules).max(1);
        let remaining = self.target as isize - self.lines as isize - (self.inits_left * EST_INIT_LINES) as isize;
        let avg = (remaining / left as isize).max(0) as f64;
        let t = avg * (0.55 + 0.9 * self.rng.unit());
        t.clamp(100.0, 400.0) as usize
    }

    fn choose_deps(&mut self, ctx: &mut ModCtx, role: Role) {
        let n = self.done_mods.len();
        if n == 0 {
            return;
        }
        let want = (self.rng.range(1, 5) + if role == Role::Entry { 2 } else { 0 }).min(n);
        let mut deps: Vec<usize> = Vec::new();
        for _ in 0..want * 4 {
            if deps.len() == want {
                break;
            }
            let i = if self.rng.chance(0.55) { n - 1 - self.rng.below(n.min(20)) } else { self.rng.below(n) };
            let m = self.done_mods[i];
            if !deps.contains(&m) {
                deps.push(m);
            }
        }
        ctx.n_deps = deps.len();
        for d in deps {
            for &f in &self.mods[d].funcs {
                let fu = &self.funcs[f];
                if !fu.public {
                    continue;
                }
                match fu.kind {
                    FnKind::Plain => ctx.dep_funcs.push(f),
                    FnKind::Registrar => ctx.dep_regs.push(f),
                    FnKind::Decorator => ctx.dep_decos.push(f),
                    _ => {}
                }
            }
            for &c in &self.mods[d].classes {
                if self.classes[c].public {
                    ctx.dep_classes.push(c);
                }
            }
        }
    }

    // ------------------------------------------------------------------ modules

    fn emit_module(&mut self, pkg: usize, base: String, role: Role, target: usize) -> io::Result<()> {
        let py = self.py();
        let mid = self.mods.len();
        let stem = if py { base.clone() } else { kebab(&base) };
        let qname = self.module_qname(pkg, Some(&stem));
        self.mods.push(Module {
            pkg,
            base: base.clone(),
            qname: qname.clone(),
            funcs: Vec::new(),
            classes: Vec::new(),
            exported_names: Vec::new(),
        });
        self.pkgs[pkg].own_modules.push(mid);
        let mut names: HashSet<String> = HashSet::new();
        for t in &self.tops {
            names.insert(t.clone());
        }
        for r in if py { PY_RESERVED } else { TS_RESERVED } {
            names.insert(r.to_string());
        }
        let mut ctx = ModCtx {
            mid,
            pkg,
            qname: qname.clone(),
            names,
            srcs: Vec::new(),
            src_index: HashMap::new(),
            sym_expr: HashMap::new(),
            ext_os: false,
            ext_json: false,
            ext_logging: false,
            ext_express: false,
            ext_path: false,
            fs_names: BTreeSet::new(),
            dep_funcs: Vec::new(),
            dep_classes: Vec::new(),
            dep_regs: Vec::new(),
            dep_decos: Vec::new(),
            n_deps: 0,
            local_plain: Vec::new(),
            local_classes: Vec::new(),
            local_regs: Vec::new(),
            local_decos: Vec::new(),
            local_handlers: Vec::new(),
            edges: Vec::new(),
            attrs_defined: HashSet::new(),
        };
        self.choose_deps(&mut ctx, role);

        // ---- plan the definitions
        let mut budget = target as isize - 14 - 2 * ctx.n_deps as isize;
        let n_consts = self.rng.range(0, 2);
        budget -= n_consts as isize + 1;
        let mut consts: Vec<String> = Vec::new();
        for _ in 0..n_consts {
            let c = format!(
                "{}_{}_{}",
                self.rng.pick(&["DEFAULT", "MAX", "MIN"]),
                self.rng.pick(NOUNS).to_uppercase(),
                self.rng.pick(&["LIMIT", "RETRIES", "TIMEOUT", "BATCH_SIZE"])
            );
            if ctx.names.insert(c.clone()) {
                consts.push(c);
            }
        }
        let has_deco = py && self.rng.chance(0.10);
        let has_reg = self.rng.chance(0.12);
        let mut special_funcs: Vec<usize> = Vec::new();
        if has_deco {
            let name = Self::unique(&mut ctx.names, format!("with_{}", self.rng.pick(NOUNS)));
            let f = self.push_func(mid, name, FnKind::Decorator, true);
            ctx.local_decos.push(f);
            special_funcs.push(f);
            budget -= 6;
        }
        if has_reg {
            let snake = format!("register_{}_hook", self.rng.pick(NOUNS));
            let name = Self::unique(&mut ctx.names, self.fn_name_form(&snake));
            let f = self.push_func(mid, name, FnKind::Registrar, true);
            ctx.local_regs.push(f);
            special_funcs.push(f);
            budget -= 9;
        }

        // classes
        let n_cls = if budget < 70 { 0 } else { self.rng.weighted(&[28, 36, 24, 12]) };
        let mut cplans: Vec<ClassPlan> = Vec::new();
        let mut has_default = false;
        for _ in 0..n_cls {
            if budget < 50 {
                break;
            }
            let private = self.rng.chance(0.1);
            let name = self.new_class_name(&mut ctx, private);
            let mut base = None;
            if self.rng.chance(0.55) {
                let cands: Vec<usize> =
                    ctx.dep_classes.iter().chain(ctx.local_classes.iter()).copied().filter(|&c| self.classes[c].depth < 4).collect();
                if !cands.is_empty() {
                    base = Some(*self.rng.pick(&cands));
                }
            }
            let depth = base.map_or(0, |b| self.classes[b].depth + 1);
            let inherited = base.map(|b| self.all_methods(b)).unwrap_or_default();
            let mut all: HashSet<String> = inherited.iter().cloned().collect();
            let n_methods = self.rng.range(2, 5);
            let mut own: Vec<String> = Vec::new();
            for _ in 0..n_methods {
                if !inherited.is_empty() && self.rng.chance(0.35) {
                    let m = self.rng.pick(&inherited).clone();
                    if !own.contains(&m) {
                        own.push(m);
                        continue;
                    }
                }
                for _ in 0..20 {
                    let m = self.new_method_name();
                    if all.insert(m.clone()) {
                        own.push(m);
                        break;
                    }
                }
            }
            let has_init =
                if py { self.rng.chance(if base.is_none() { 0.5 } else { 0.35 }) } else { base.is_none() && self.rng.chance(0.5) };
            let init_calls = py && has_init && !ctx.dep_funcs.is_empty() && self.rng.chance(0.5);
            let default_export = !py && !private && !has_default && self.rng.chance(0.12);
            has_default |= default_export;
            // helper instantiated in the class body (field initialiser / class attribute)
            let mut helper = None;
            let mut helper_field = String::new();
            if self.rng.chance(0.2) {
                let cands: Vec<usize> =
                    ctx.dep_classes.iter().chain(ctx.local_classes.iter()).copied().filter(|&c| !self.heavy_init(c)).collect();
                if !cands.is_empty() {
                    let h = *self.rng.pick(&cands);
                    helper = Some(h);
                    let hn = self.classes[h].name.trim_start_matches('_').to_string();
                    let inherited_fields = base.map(|b| self.all_fields(b)).unwrap_or_default();
                    let mut fb =
                        if py { format!("default_{}", snake_of_pascal(&hn)) } else { format!("{}Ref", camel(&snake_of_pascal(&hn))) };
                    while inherited_fields.contains(&fb) {
                        fb.push('2');
                    }
                    helper_field = fb;
                }
            }
            let mut fields = Vec::new();
            if !py {
                if base.is_none() {
                    fields.push("total".to_string());
                    if has_init {
                        fields.push("label".to_string());
                    }
                }
                if helper.is_some() {
                    fields.push(helper_field.clone());
                }
            }
            let cid = self.classes.len();
            let cq = self.member_qname(&qname, &name);
            self.classes.push(Class {
                module: mid,
                name,
                qname: cq,
                base,
                methods: own.clone(),
                fields,
                has_init,
                init_calls,
                public: !private,
                default_export,
                depth,
            });
            self.mods[mid].classes.push(cid);
            ctx.local_classes.push(cid);
            let method_lens: Vec<usize> = own.iter().map(|_| self.rng.range(6, 18)).collect();
            let mut method_decos = Vec::new();
            for _ in &own {
                let decos: Vec<usize> = ctx.dep_decos.iter().chain(ctx.local_decos.iter()).copied().collect();
                if py && !decos.is_empty() && self.rng.chance(0.2) {
                    method_decos.push(Some(*self.rng.pick(&decos)));
                } else {
                    method_decos.push(None);
                }
            }
            budget -= 8 + method_lens.iter().map(|l| *l as isize + 1).sum::<isize>() + if has_init { 6 } else { 0 };
            cplans.push(ClassPlan { cid, method_lens, helper, helper_field, method_decos });
        }

        // plain functions
        let mut fplans: Vec<(usize, usize, Option<usize>)> = Vec::new();
        while budget > 14 || fplans.is_empty() {
            let len = self.rng.range(8, 28).min((budget - 2).max(8) as usize);
            let private = !fplans.is_empty() && self.rng.chance(0.2);
            let name = self.new_fn_name(&mut ctx, private);
            let f = self.push_func(mid, name, FnKind::Plain, !private);
            let decos: Vec<usize> = ctx.dep_decos.iter().chain(ctx.local_decos.iter()).copied().collect();
            let deco = if py && !decos.is_empty() && self.rng.chance(0.15) { Some(*self.rng.pick(&decos)) } else { None };
            fplans.push((f, len, deco));
            budget -= len as isize + if py { 2 } else { 1 };
        }
        // handlers and main
        let mut tail_funcs: Vec<(usize, usize)> = Vec::new();
        let n_handlers = match role {
            Role::Routes if !py => self.rng.range(2, 4),
            Role::Entry if !py => self.rng.range(1, 2),
            _ => 0,
        };
        for _ in 0..n_handlers {
            let snake = format!("handle_{}_request", self.rng.pick(NOUNS));
            let name = Self::unique(&mut ctx.names, camel(&snake));
            let f = self.push_func(mid, name, FnKind::Handler, true);
            ctx.local_handlers.push(f);
            tail_funcs.push((f, self.rng.range(8, 16)));
        }
        if role == Role::Entry && py {
            let f = self.push_func(mid, "main".to_string(), FnKind::Main, true);
            tail_funcs.push((f, self.rng.range(8, 16)));
        }

        // ---- emit the body
        let mut body = String::with_capacity(target * 40);
        for c in &consts {
            let v = self.rng.range(2, 500);
            if py {
                let _ = writeln!(body, "{c} = {v}");
            } else {
                let _ = writeln!(body, "export const {c} = {v};");
                self.mods[mid].exported_names.push(c.clone());
            }
        }
        if has_reg {
            if py {
                body.push_str("_HOOKS = {}\n");
            } else {
                body.push_str("const hooks: Record<string, (value: number, count?: number) => number> = {};\nlet hookCount = 0;\n");
            }
        }
        for &f in &special_funcs {
            self.sep(&mut body);
            self.emit_special(&mut ctx, f, &mut body);
        }
        for (i, cp) in cplans.iter().enumerate() {
            self.sep(&mut body);
            self.emit_class(&mut ctx, cp, i, &mut body);
        }
        for (i, &(f, len, deco)) in fplans.iter().enumerate() {
            self.sep(&mut body);
            self.emit_function(&mut ctx, f, len, deco, i, &mut body);
            ctx.local_plain.push(f);
        }
        for &(f, len) in &tail_funcs {
            self.sep(&mut body);
            let n = fplans.len();
            self.emit_function(&mut ctx, f, len, None, n, &mut body);
        }
        self.emit_module_code(&mut ctx, role, &mut body);

        // ---- header + imports
        let mut text = String::with_capacity(body.len() + 1024);
        self.module_doc(&mut text, &base);
        let before = text.len();
        self.render_imports(&ctx, &mut text);
        if text.len() > before {
            text.push('\n');
            if py {
                text.push('\n');
            }
        }
        text.push_str(&body);

        // exported names (TS `export *` collision checks)
        if !py {
            let mut ex: Vec<String> = Vec::new();
            for &f in &self.mods[mid].funcs {
                if self.funcs[f].public {
                    ex.push(self.funcs[f].name.clone());
                }
            }
            for &c in &self.mods[mid].classes {
                if self.classes[c].public && !self.classes[c].default_export {
                    ex.push(self.classes[c].name.clone());
                }
            }
            self.mods[mid].exported_names.extend(ex);
        }
        let usable = self.mods[mid]
            .funcs
            .iter()
            .any(|&f| self.funcs[f].public && matches!(self.funcs[f].kind, FnKind::Plain | FnKind::Registrar | FnKind::Decorator))
            || self.mods[mid].classes.iter().any(|&c| self.classes[c].public);
        if usable {
            self.done_mods.push(mid);
        }
        let mut edges = std::mem::take(&mut ctx.edges);
        edges.sort_unstable();
        edges.dedup();
        self.edges.append(&mut edges);
        let path = self.module_path(mid);
        self.write_file(&path, &text, true)
    }

    fn member_qname(&self, module_q: &str, name: &str) -> String {
        if self.py() { format!("{module_q}.{name}") } else { format!("{module_q}#{name}") }
    }

    fn push_func(&mut self, mid: usize, name: String, kind: FnKind, public: bool) -> usize {
        let q = self.member_qname(&self.mods[mid].qname.clone(), &name);
        let id = self.funcs.len();
        self.funcs.push(Func { module: mid, name, qname: q, kind, public });
        self.mods[mid].funcs.push(id);
        id
    }

    fn sep(&self, out: &mut String) {
        if out.is_empty() {
            return;
        }
        out.push_str(if self.py() { "\n\n" } else { "\n" });
    }

    fn module_doc(&mut self, out: &mut String, base: &str) {
        let title = base.replace('_', " ");
        let s1 = words::sentence(&mut self.rng);
        let s2 = words::sentence(&mut self.rng);
        let s3 = words::sentence(&mut self.rng);
        if self.py() {
            let _ = writeln!(out, "\"\"\"The {title} module.\n\n{s1} {s2}\n{s3}\n\"\"\"\n");
        } else {
            let _ = writeln!(out, "/**\n * The {title} module.\n *\n * {s1} {s2}\n * {s3}\n */");
        }
    }

    // ------------------------------------------------------------------ definitions

    fn emit_special(&mut self, ctx: &mut ModCtx, f: usize, out: &mut String) {
        let name = self.funcs[f].name.clone();
        let q = self.funcs[f].qname.clone();
        let noun = *self.rng.pick(NOUNS);
        match (self.funcs[f].kind, self.lang) {
            (FnKind::Decorator, Lang::Python) => {
                let s = words::sentence(&mut self.rng);
                let _ = writeln!(out, "def {name}(func):\n    \"\"\"Decorator for {noun} hooks. {s}\"\"\"\n    return func");
            }
            (FnKind::Registrar, Lang::Python) => {
                let _ = writeln!(
                    out,
                    "def {name}(callback, name=\"default\"):\n    \"\"\"Register ``callback`` to run for {noun} events.\"\"\"\n    _HOOKS[name] = callback\n    return len(_HOOKS)"
                );
                ctx.edge("calls", &q, "<builtin>.len");
                ctx.edge("references", &q, &format!("{}._HOOKS", ctx.qname));
            }
            (FnKind::Registrar, Lang::TypeScript) => {
                let _ = writeln!(
                    out,
                    "/**\n * Register `callback` to run for {noun} events.\n */\nexport function {name}(callback: (value: number, count?: number) => number, name = 'default'): number {{\n  hooks[name] = callback;\n  hookCount += 1;\n  return hookCount;\n}}"
                );
                // The registry is read, its counter written and read.
                ctx.edge("references", &q, &format!("{}#hooks", ctx.qname));
                ctx.edge("references", &q, &format!("{}#hookCount", ctx.qname));
                ctx.edge("writes", &q, &format!("{}#hookCount", ctx.qname));
            }
            _ => unreachable!(),
        }
    }

    fn emit_class(&mut self, ctx: &mut ModCtx, cp: &ClassPlan, local_index: usize, out: &mut String) {
        let py = self.py();
        let cid = cp.cid;
        let name = self.classes[cid].name.clone();
        let cq = self.classes[cid].qname.clone();
        let base = self.classes[cid].base;
        let base_expr = base.map(|b| self.ref_sym(ctx, Sym::C(b)));
        if let Some(b) = base {
            let bq = self.classes[b].qname.clone();
            ctx.edge("inherits", &cq, &bq);
        }
        let doc = words::sentence(&mut self.rng);
        let kind_noun = *self.rng.pick(NOUNS);
        if py {
            match &base_expr {
                Some(b) => {
                    let _ = writeln!(out, "class {name}({b}):");
                }
                None => {
                    let _ = writeln!(out, "class {name}:");
                }
            }
            let _ = writeln!(out, "    \"\"\"{doc}\"\"\"\n");
            let _ = writeln!(out, "    kind = \"{kind_noun}\"");
            if let Some(h) = cp.helper {
                let he = self.ref_sym(ctx, Sym::C(h));
                let _ = writeln!(out, "    {} = {he}()", cp.helper_field);
                let hq = self.classes[h].qname.clone();
                ctx.edge("instantiates", &cq, &hq);
                self.init_call(ctx, &cq, h, true);
            }
            if self.classes[cid].has_init {
                out.push('\n');
                let iq = format!("{cq}.__init__");
                let _ =
                    writeln!(out, "    def __init__(self, config=None):\n        \"\"\"Set up the {}.\"\"\"", name.trim_start_matches('_'));
                if let Some(bo) = base.and_then(|b| self.init_owner(b)) {
                    out.push_str("        super().__init__(config)\n");
                    ctx.edge("calls", &iq, "<builtin>.super");
                    let bq = format!("{}.__init__", self.classes[bo].qname);
                    ctx.edge("calls", &iq, &bq);
                }
                out.push_str("        self.config = config\n");
                let mut f = FnCtx {
                    src: iq.clone(),
                    class: None,
                    self_cands: Vec::new(),
                    super_of: None,
                    locals: HashSet::new(),
                    indent: 8,
                    local_fn_limit: 0,
                    local_cls_limit: 0,
                    has_params: false,
                    nested_used: true,
                };
                if self.classes[cid].init_calls {
                    let e = self.call_expr(ctx, &mut f, 1, "0").unwrap();
                    let _ = writeln!(out, "        self.total = {e}");
                } else {
                    out.push_str("        self.total = 0\n");
                }
            }
        } else {
            let _ = writeln!(out, "/**\n * {doc}\n */");
            let exp = if !self.classes[cid].public {
                ""
            } else if self.classes[cid].default_export {
                "export default "
            } else {
                "export "
            };
            match &base_expr {
                Some(b) => {
                    let _ = writeln!(out, "{exp}class {name} extends {b} {{");
                }
                None => {
                    let _ = writeln!(out, "{exp}class {name} {{");
                }
            }
            if base.is_none() {
                out.push_str("  protected total = 0;\n");
                if self.classes[cid].has_init {
                    out.push_str("  protected label: string;\n");
                }
            }
            if let Some(h) = cp.helper {
                let he = self.ref_sym(ctx, Sym::C(h));
                let _ = writeln!(out, "  private {} = new {he}();", cp.helper_field);
                let hq = self.classes[h].qname.clone();
                ctx.edge("instantiates", &cq, &hq);
                self.init_call(ctx, &cq, h, false);
            }
            if self.classes[cid].has_init {
                let _ = writeln!(out, "\n  constructor(label = '{kind_noun}') {{\n    this.label = label;\n  }}");
                // The field `label` is declared above: the constructor writes it.
                ctx.edge("writes", &format!("{cq}.constructor"), &format!("{cq}.label"));
            }
        }
        // methods
        let all = self.all_methods(cid);
        let own = self.classes[cid].methods.clone();
        let inherited: Vec<String> = base.map(|b| self.all_methods(b)).unwrap_or_default();
        for (i, m) in own.iter().enumerate() {
            out.push('\n');
            let mq = format!("{cq}.{m}");
            let rank = all.iter().position(|x| x == m).unwrap();
            let super_of = if inherited.contains(m) { Some((base.unwrap(), m.clone())) } else { None };
            let mdoc = words::sentence(&mut self.rng);
            if py {
                if let Some(d) = cp.method_decos[i] {
                    let de = self.ref_sym(ctx, Sym::F(d));
                    let _ = writeln!(out, "    @{de}");
                    let dq = self.funcs[d].qname.clone();
                    ctx.edge("calls", &cq, &dq);
                }
                let _ = writeln!(out, "    def {m}(self, value, count=0):\n        \"\"\"{mdoc}\"\"\"");
            } else {
                let _ = writeln!(out, "  /** {mdoc} */\n  {m}(value: number, count = 0): number {{");
            }
            let mut f = FnCtx {
                src: mq,
                class: Some(cid),
                self_cands: all[..rank].to_vec(),
                super_of,
                locals: HashSet::new(),
                indent: if py { 8 } else { 4 },
                local_fn_limit: 0,
                local_cls_limit: local_index,
                has_params: true,
                nested_used: false,
            };
            self.body(ctx, &mut f, cp.method_lens[i].saturating_sub(2), out);
            if !py {
                out.push_str("  }\n");
            }
        }
        if !py {
            out.push_str("}\n");
        }
    }

    fn emit_function(&mut self, ctx: &mut ModCtx, fid: usize, len: usize, deco: Option<usize>, n_local: usize, out: &mut String) {
        let py = self.py();
        let name = self.funcs[fid].name.clone();
        let q = self.funcs[fid].qname.clone();
        let kind = self.funcs[fid].kind;
        let public = self.funcs[fid].public;
        let doc = words::sentence(&mut self.rng);
        let long_doc = self.rng.chance(0.3);
        let mut used = 0usize;
        if py {
            if let Some(d) = deco {
                let de = self.ref_sym(ctx, Sym::F(d));
                let _ = writeln!(out, "@{de}");
                let dq = self.funcs[d].qname.clone();
                let mq = ctx.qname.clone();
                ctx.edge("calls", &mq, &dq);
                used += 1;
            }
            let params = match kind {
                FnKind::Main => "argv=None",
                _ => "value, count=0",
            };
            let _ = writeln!(out, "def {name}({params}):");
            if long_doc && kind == FnKind::Plain {
                let p1 = words::phrase(&mut self.rng);
                let p2 = words::phrase(&mut self.rng);
                let _ = writeln!(out, "    \"\"\"{doc}\n\n    Args:\n        value: {p1}.\n        count: {p2}.\n    \"\"\"");
                used += 7;
            } else {
                let _ = writeln!(out, "    \"\"\"{doc}\"\"\"");
                used += 2;
            }
        } else {
            if long_doc && kind == FnKind::Plain {
                let p1 = words::phrase(&mut self.rng);
                let p2 = words::phrase(&mut self.rng);
                let _ = writeln!(out, "/**\n * {doc}\n *\n * @param value {p1}\n * @param count {p2}\n */");
                used += 6;
            } else {
                let _ = writeln!(out, "/** {doc} */");
                used += 1;
            }
            let exp = if public { "export " } else { "" };
            match kind {
                FnKind::Handler => {
                    let _ = writeln!(out, "{exp}function {name}(req: any, res: any): void {{");
                }
                _ => {
                    let _ = writeln!(out, "{exp}function {name}(value: number, count = 0): number {{");
                }
            }
            used += 1;
        }
        let mut f = FnCtx {
            src: q,
            class: None,
            self_cands: Vec::new(),
            super_of: None,
            locals: HashSet::new(),
            indent: if py { 4 } else { 2 },
            local_fn_limit: n_local.min(ctx.local_plain.len()),
            local_cls_limit: ctx.local_classes.len(),
            has_params: matches!(kind, FnKind::Plain),
            nested_used: false,
        };
        let handler = kind == FnKind::Handler;
        self.body_inner(ctx, &mut f, len.saturating_sub(used), out, handler);
        if !py {
            out.push_str("}\n");
        }
    }

    fn body(&mut self, ctx: &mut ModCtx, f: &mut FnCtx, len: usize, out: &mut String) {
        self.body_inner(ctx, f, len, out, false)
    }

    /// Emits statements until about `len` lines are written, then the return.
    fn body_inner(&mut self, ctx: &mut ModCtx, f: &mut FnCtx, len: usize, out: &mut String, handler: bool) {
        let py = self.py();
        let ind = " ".repeat(f.indent);
        let start = out.len();
        f.locals.insert("result".into());
        f.locals.insert("value".into());
        f.locals.insert("count".into());
        // prologue
        if let Some((b, m)) = f.super_of.clone() {
            if self.rng.chance(0.6) {
                let mq = self.method_qname(b, &m);
                let src = f.src.clone();
                ctx.edge("calls", &src, &mq);
                if py {
                    ctx.edge("calls", &src, "<builtin>.super");
                    let _ = writeln!(out, "{ind}result = super().{m}(value, count)");
                } else {
                    let _ = writeln!(out, "{ind}let result = super.{m}(value, count);");
                }
            } else {
                self.prologue(f, &ind, out);
            }
        } else {
            self.prologue(f, &ind, out);
        }
        let target = len.saturating_sub(1);
        let mut guard = 0;
        while count_lines(&out[start..]) < target && guard < 200 {
            self.stmt(ctx, f, &ind, out);
            guard += 1;
        }
        if handler {
            let _ = writeln!(out, "{ind}res.locals.result = result;");
        } else if py {
            let _ = writeln!(out, "{ind}return result");
        } else {
            let _ = writeln!(out, "{ind}return result;");
        }
    }

    fn prologue(&mut self, f: &FnCtx, ind: &str, out: &mut String) {
        let init = if f.has_params {
            match self.rng.below(3) {
                0 => "value".to_string(),
                1 => "value + count".to_string(),
                _ => format!("value * {}", self.rng.range(2, 9)),
            }
        } else {
            format!("{}", self.rng.range(0, 9))
        };
        if self.py() {
            let _ = writeln!(out, "{ind}result = {init}");
        } else {
            let _ = writeln!(out, "{ind}let result = {init};");
        }
    }

    fn args(&mut self, f: &FnCtx) -> String {
        if f.has_params {
            match self.rng.below(4) {
                0 => "result".to_string(),
                1 => "result, count".to_string(),
                2 => format!("value, {}", self.rng.range(1, 9)),
                _ => format!("result, {}", self.rng.range(1, 9)),
            }
        } else if self.rng.chance(0.5) {
            "result".to_string()
        } else {
            format!("result, {}", self.rng.range(1, 9))
        }
    }

    /// A call expression that yields a number, with its edge recorded. `first_arg` overrides the
    /// first argument when given.
    fn call_expr(&mut self, ctx: &mut ModCtx, f: &mut FnCtx, depth: u32, first_arg: &str) -> Option<String> {
        let n_local = f.local_fn_limit;
        let mut opts = Vec::new();
        if n_local > 0 {
            opts.push(0);
        }
        if !ctx.dep_funcs.is_empty() {
            opts.push(1);
            opts.push(1);
        }
        if f.class.is_some() && !f.self_cands.is_empty() {
            opts.push(2);
        }
        if opts.is_empty() {
            return None;
        }
        let mut args = if first_arg.is_empty() { self.args(f) } else { first_arg.to_string() };
        if depth == 0
            && first_arg.is_empty()
            && self.rng.chance(0.12)
            && let Some(inner) = self.call_expr(ctx, f, 1, "")
        {
            args = if f.has_params { format!("{inner}, count") } else { inner };
        }
        let src = f.src.clone();
        let s = if self.py() { "self" } else { "this" };
        match *self.rng.pick(&opts) {
            0 => {
                let fid = ctx.local_plain[self.rng.below(n_local)];
                let fq = self.funcs[fid].qname.clone();
                ctx.edge("calls", &src, &fq);
                Some(format!("{}({args})", self.funcs[fid].name))
            }
            1 => {
                let fid = *self.rng.pick(&ctx.dep_funcs);
                let e = self.ref_sym(ctx, Sym::F(fid));
                let fq = self.funcs[fid].qname.clone();
                ctx.edge("calls", &src, &fq);
                Some(format!("{e}({args})"))
            }
            _ => {
                let c = f.class.unwrap();
                let m = self.rng.pick(&f.self_cands).clone();
                let mq = self.method_qname(c, &m);
                ctx.edge("calls", &src, &mq);
                self.self_calls.push((src.clone(), c, m.clone()));
                Some(format!("{s}.{m}({args})"))
            }
        }
    }

    fn stmt(&mut self, ctx: &mut ModCtx, f: &mut FnCtx, ind: &str, out: &mut String) {
        let py = self.py();
        let can_call = f.local_fn_limit > 0 || !ctx.dep_funcs.is_empty() || (f.class.is_some() && !f.self_cands.is_empty());
        let n_cls = f.local_cls_limit + ctx.dep_classes.len();
        let regs = ctx.local_regs.len() + ctx.dep_regs.len();
        let handlers = f.local_fn_limit + ctx.dep_funcs.len();
        let weights = [
            7,                                            // 0 comment
            9,                                            // 1 arithmetic
            8,                                            // 2 if/else
            4,                                            // 3 loop
            if can_call { 24 } else { 0 },                // 4 call statement
            if n_cls > 0 { 10 } else { 0 },               // 5 instance + method call
            if regs > 0 && handlers > 0 { 3 } else { 0 }, // 6 callback registration
            5,                                            // 7 externals
            if py { 3 } else { 0 },                       // 8 builtins
            4,                                            // 9 dict / object literal
            if f.nested_used { 0 } else { 2 },            // 10 nested function
            if f.class.is_some() { 3 } else { 0 },        // 11 attribute update
        ];
        let src = f.src.clone();
        match self.rng.weighted(&weights) {
            0 => {
                let s = words::sentence(&mut self.rng);
                let c = if py { "#" } else { "//" };
                let _ = writeln!(out, "{ind}{c} {s}");
                if self.rng.chance(0.3) {
                    let s2 = words::sentence(&mut self.rng);
                    let _ = writeln!(out, "{ind}{c} {s2}");
                }
            }
            1 => {
                let k = self.rng.range(1, 9);
                let e = match self.rng.below(5) {
                    0 => format!("result = result * {k} + {}", if f.has_params { "count" } else { "1" }),
                    1 => format!("result -= {k}"),
                    2 => format!("result = result % {} + {k}", self.rng.range(250, 1000)),
                    3 => format!("result += {}", if f.has_params { "value" } else { "3" }),
                    _ => format!("result = result - {k} * 2"),
                };
                let _ = writeln!(out, "{ind}{e}{}", if py { "" } else { ";" });
            }
            2 => {
                let n = self.rng.range(5, 200);
                let k = self.rng.range(1, 9);
                // without parameters the condition may be constant, so keep calls out of it
                let then = if can_call && f.has_params && self.rng.chance(0.5) {
                    self.call_expr(ctx, f, 0, "").map(|c| format!("result = {c}"))
                } else {
                    None
                }
                .unwrap_or_else(|| format!("result -= {k}"));
                let other = format!("result += {}", self.rng.range(1, 9));
                if py {
                    let _ = writeln!(out, "{ind}if result > {n}:\n{ind}    {then}\n{ind}else:\n{ind}    {other}");
                } else {
                    let _ = writeln!(out, "{ind}if (result > {n}) {{\n{ind}  {then};\n{ind}}} else {{\n{ind}  {other};\n{ind}}}");
                }
            }
            3 => {
                let n = self.rng.range(2, 5);
                let k = self.rng.range(1, 5);
                if py {
                    ctx.edge("calls", &src, "<builtin>.range");
                    let _ = writeln!(out, "{ind}for step in range({n}):\n{ind}    result += step * {k}");
                } else {
                    let _ = writeln!(out, "{ind}for (let step = 0; step < {n}; step++) {{\n{ind}  result += step * {k};\n{ind}}}");
                }
            }
            4 => {
                let c = self.call_expr(ctx, f, 0, "").unwrap();
                let semi = if py { "" } else { ";" };
                match self.rng.below(3) {
                    0 => {
                        let _ = writeln!(out, "{ind}result += {c}{semi}");
                    }
                    1 => {
                        let _ = writeln!(out, "{ind}result = {c}{semi}");
                    }
                    _ => {
                        let v = f.fresh("partial");
                        if py {
                            let _ = writeln!(out, "{ind}{v} = {c}\n{ind}result += {v}");
                        } else {
                            let _ = writeln!(out, "{ind}const {v} = {c};\n{ind}result += {v};");
                        }
                    }
                }
            }
            5 => {
                let i = self.rng.below(n_cls);
                let c = if i < f.local_cls_limit { ctx.local_classes[i] } else { ctx.dep_classes[i - f.local_cls_limit] };
                let ce = self.ref_sym(ctx, Sym::C(c));
                let cname = self.classes[c].name.trim_start_matches('_').to_string();
                let var = if py { f.fresh(&snake_of_pascal(&cname)) } else { f.fresh(&camel(&snake_of_pascal(&cname))) };
                let cq = self.classes[c].qname.clone();
                ctx.edge("instantiates", &src, &cq);
                self.init_call(ctx, &src, c, py);
                let methods = self.all_methods(c);
                let m = self.rng.pick(&methods).clone();
                let mq = self.method_qname(c, &m);
                ctx.edge("calls", &src, &mq);
                let a = self.args(f);
                if py {
                    let _ = writeln!(out, "{ind}{var} = {ce}()\n{ind}result += {var}.{m}({a})");
                } else {
                    let _ = writeln!(out, "{ind}const {var} = new {ce}();\n{ind}result += {var}.{m}({a});");
                }
                if methods.len() > 1 && self.rng.chance(0.3) {
                    let m2 = self.rng.pick(&methods).clone();
                    let mq2 = self.method_qname(c, &m2);
                    ctx.edge("calls", &src, &mq2);
                    let _ = writeln!(out, "{ind}result += {var}.{m2}(result){}", if py { "" } else { ";" });
                }
            }
            6 => {
                let line = self.registration(ctx, f.local_fn_limit, &src);
                let _ = writeln!(out, "{ind}{line}");
            }
            7 => self.external_stmt(ctx, f, ind, out),
            8 => match self.rng.below(3) {
                0 => {
                    let v = f.fresh("values");
                    let third = if f.has_params { "count" } else { "1" };
                    ctx.edge("calls", &src, "<builtin>.len");
                    ctx.edge("calls", &src, "<builtin>.max");
                    let _ = writeln!(out, "{ind}{v} = [result, {third}, {}]\n{ind}result += len({v}) + max({v})", self.rng.range(1, 30));
                }
                1 => {
                    ctx.edge("calls", &src, "<builtin>.min");
                    let _ = writeln!(out, "{ind}result = min(result, {})", self.rng.range(100, 10000));
                }
                _ => {
                    ctx.edge("calls", &src, "<builtin>.abs");
                    let _ = writeln!(out, "{ind}result = abs(result - {})", self.rng.range(1, 50));
                }
            },
            9 => {
                let v = f.fresh("payload");
                let noun = *self.rng.pick(NOUNS);
                if py {
                    let _ = writeln!(out, "{ind}{v} = {{\"id\": result, \"kind\": \"{noun}\"}}\n{ind}result += {v}[\"id\"]");
                } else {
                    let _ = writeln!(out, "{ind}const {v} = {{ id: result, kind: '{noun}' }};\n{ind}result += {v}.id;");
                }
            }
            10 => {
                f.nested_used = true;
                let k = self.rng.range(2, 5);
                if py {
                    let n = "_adjust";
                    let nq = format!("{src}.{n}");
                    ctx.edge("calls", &src, &nq);
                    let _ = writeln!(out, "{ind}def {n}(item):\n{ind}    return item * {k} + 1\n\n{ind}result = {n}(result)");
                } else {
                    let n = "adjust";
                    let nq = format!("{src}.{n}");
                    ctx.edge("calls", &src, &nq);
                    let _ = writeln!(
                        out,
                        "{ind}function {n}(item: number): number {{\n{ind}  return item * {k} + 1;\n{ind}}}\n{ind}result = {n}(result);"
                    );
                }
            }
            _ => {
                let class = f.class.expect("attribute statements are only emitted in methods");
                if py {
                    let _ = writeln!(out, "{ind}self.last_result = result");
                    if !ctx.attrs_defined.insert(class) {
                        ctx.edge("writes", &src, &format!("{}.last_result", self.classes[class].qname));
                    }
                } else {
                    let _ = writeln!(out, "{ind}this.total += result;");
                    // `total` is declared by the root of the class's hierarchy.
                    let mut root = class;
                    while let Some(b) = self.classes[root].base {
                        root = b;
                    }
                    ctx.edge("writes", &src, &format!("{}.total", self.classes[root].qname));
                }
            }
        }
    }

    /// `register_x(handler, "name")`: calls the registrar, references the handler.
    fn registration(&mut self, ctx: &mut ModCtx, local_fn_limit: usize, src: &str) -> String {
        let n_regs = ctx.local_regs.len() + ctx.dep_regs.len();
        let i = self.rng.below(n_regs);
        let reg = if i < ctx.local_regs.len() { ctx.local_regs[i] } else { ctx.dep_regs[i - ctx.local_regs.len()] };
        let n_h = local_fn_limit + ctx.dep_funcs.len();
        let j = self.rng.below(n_h);
        let h = if j < local_fn_limit { ctx.local_plain[j] } else { ctx.dep_funcs[j - local_fn_limit] };
        let re = self.ref_sym(ctx, Sym::F(reg));
        let he = self.ref_sym(ctx, Sym::F(h));
        let rq = self.funcs[reg].qname.clone();
        let hq = self.funcs[h].qname.clone();
        ctx.edge("calls", src, &rq);
        ctx.edge("references", src, &hq);
        let noun = *self.rng.pick(NOUNS);
        if self.py() { format!("{re}({he}, \"{noun}\")") } else { format!("{re}({he}, '{noun}');") }
    }

    fn external_stmt(&mut self, ctx: &mut ModCtx, f: &mut FnCtx, ind: &str, out: &mut String) {
        let src = f.src.clone();
        let noun = *self.rng.pick(NOUNS);
        if self.py() {
            match self.rng.below(4) {
                0 => {
                    self.ext_os(ctx);
                    let v = f.fresh("location");
                    ctx.edge("calls", &src, "os.path.join");
                    ctx.edge("calls", &src, "<builtin>.len");
                    let _ = writeln!(out, "{ind}{v} = os.path.join(\"data\", f\"{noun}-{{result}}.json\")\n{ind}result += len({v})");
                }
                1 => {
                    self.ext_json(ctx);
                    let v = f.fresh("encoded");
                    ctx.edge("calls", &src, "json.dumps");
                    ctx.edge("calls", &src, "<builtin>.len");
                    let c = if f.has_params { "count" } else { "0" };
                    let _ = writeln!(out, "{ind}{v} = json.dumps({{\"{noun}\": result, \"count\": {c}}})\n{ind}result += len({v})");
                }
                2 => {
                    self.ext_logging(ctx);
                    ctx.edge("calls", &src, "logging.info");
                    let _ = writeln!(out, "{ind}logging.info(\"{noun} %s processed\", result)");
                }
                _ => {
                    self.ext_os(ctx);
                    let v = f.fresh("mode");
                    ctx.edge("calls", &src, "os.getenv");
                    let _ = writeln!(out, "{ind}{v} = os.getenv(\"APP_MODE\", \"dev\")\n{ind}if {v} == \"debug\":\n{ind}    result += 1");
                }
            }
        } else {
            self.ext_path(ctx);
            let v = f.fresh("location");
            ctx.edge("calls", &src, "path.join");
            let _ = writeln!(out, "{ind}const {v} = path.join('data', `{noun}-${{result}}.json`);");
            if self.rng.chance(0.5) {
                self.ext_fs(ctx, "existsSync");
                ctx.edge("calls", &src, "fs.existsSync");
                if self.rng.chance(0.5) {
                    self.ext_fs(ctx, "readFileSync");
                    ctx.edge("calls", &src, "fs.readFileSync");
                    let _ = writeln!(out, "{ind}if (existsSync({v})) {{\n{ind}  result += readFileSync({v}, 'utf8').length;\n{ind}}}");
                } else {
                    let _ = writeln!(out, "{ind}if (existsSync({v})) {{\n{ind}  result += 1;\n{ind}}}");
                }
            } else {
                let _ = writeln!(out, "{ind}result += {v}.length;");
            }
        }
    }

    /// Module-level code: registrations, a default instance, routers, the entry point.
    fn emit_module_code(&mut self, ctx: &mut ModCtx, role: Role, out: &mut String) {
        let py = self.py();
        let mq = ctx.qname.clone();
        let mut code = String::new();
        let regs = ctx.local_regs.len() + ctx.dep_regs.len();
        if regs > 0 && self.rng.chance(0.35) {
            for _ in 0..self.rng.range(1, 2) {
                let line = self.registration(ctx, ctx.local_plain.len(), &mq);
                let _ = writeln!(code, "{line}");
            }
        }
        let light: Vec<usize> = ctx.local_classes.iter().chain(ctx.dep_classes.iter()).copied().filter(|&c| !self.heavy_init(c)).collect();
        if !light.is_empty() && self.rng.chance(0.1) {
            let c = *self.rng.pick(&light);
            let ce = self.ref_sym(ctx, Sym::C(c));
            let cname = self.classes[c].name.trim_start_matches('_').to_string();
            let cq = self.classes[c].qname.clone();
            ctx.edge("instantiates", &mq, &cq);
            self.init_call(ctx, &mq, c, py);
            if py {
                let v = Self::unique(&mut ctx.names, format!("_DEFAULT_{}", snake_of_pascal(&cname).to_uppercase()));
                let _ = writeln!(code, "{v} = {ce}()");
            } else {
                let v = Self::unique(&mut ctx.names, format!("default{cname}"));
                let _ = writeln!(code, "export const {v} = new {ce}();");
                self.mods[ctx.mid].exported_names.push(v);
            }
        }
        if !py && role == Role::Routes {
            self.ext_express(ctx);
            ctx.edge("calls", &mq, "express.Router");
            if !code.is_empty() {
                code.push('\n');
            }
            code.push_str("export const router = express.Router();\n");
            self.mods[ctx.mid].exported_names.push("router".into());
            for h in ctx.local_handlers.clone() {
                let verb = *self.rng.pick(&["get", "post", "put", "delete"]);
                let noun = *self.rng.pick(NOUNS);
                let hq = self.funcs[h].qname.clone();
                ctx.edge("calls", &mq, &format!("express.Router().{verb}"));
                ctx.edge("references", &mq, &hq);
                // A call through the module's `router` value.
                ctx.edge("references", &mq, &format!("{mq}#router"));
                let suffix = if verb == "get" || verb == "post" { "" } else { "/:id" };
                let _ = writeln!(code, "router.{verb}('/{noun}s{suffix}', {});", self.funcs[h].name);
            }
        }
        if !py && role == Role::Entry {
            self.ext_express(ctx);
            for e in ["express", "express.json", "express().use", "express().listen"] {
                ctx.edge("calls", &mq, e);
            }
            // Calls through the module's `app` value.
            ctx.edge("references", &mq, &format!("{mq}#app"));
            if !code.is_empty() {
                code.push('\n');
            }
            code.push_str("const app = express();\napp.use(express.json());\n");
            for h in ctx.local_handlers.clone() {
                let noun = *self.rng.pick(NOUNS);
                let hq = self.funcs[h].qname.clone();
                ctx.edge("calls", &mq, "express().get");
                ctx.edge("references", &mq, &hq);
                let _ = writeln!(code, "app.get('/{noun}/health', {});", self.funcs[h].name);
            }
            let _ = writeln!(code, "app.listen({});", self.rng.range(3000, 9000));
        }
        if py && role == Role::Entry {
            let mainq = format!("{mq}.main");
            ctx.edge("calls", &mq, &mainq);
            if !code.is_empty() {
                code.push('\n');
            }
            code.push_str("if __name__ == \"__main__\":\n    main()\n");
        }
        if !code.is_empty() {
            self.sep(out);
            out.push_str(&code);
        }
    }

    // ------------------------------------------------------------------ package indexes

    fn emit_init(&mut self, p: usize) -> io::Result<()> {
        let py = self.py();
        let mid = self.mods.len();
        let qname = self.module_qname(p, None);
        let pname = self.pkgs[p].name.clone();
        self.mods.push(Module {
            pkg: p,
            base: pname.clone(),
            qname: qname.clone(),
            funcs: Vec::new(),
            classes: Vec::new(),
            exported_names: Vec::new(),
        });
        let mut exports: BTreeMap<String, Sym> = BTreeMap::new();
        let mut export_names: BTreeSet<String> = BTreeSet::new();
        let mut lines: Vec<String> = Vec::new();
        let mut edges: Vec<String> = Vec::new();
        // sources: child packages first, then own modules (the order they were emitted in)
        let mut sources: Vec<InitSource> = Vec::new();
        for &c in &self.pkgs[p].children {
            if let Some(init) = self.pkgs[c].init {
                let syms: Vec<(String, Sym)> = self.pkgs[c].exports.iter().map(|(n, s)| (n.clone(), *s)).collect();
                let all: Vec<String> = self.pkgs[c].export_names.iter().cloned().collect();
                sources.push((init, self.pkgs[c].name.clone(), syms, all));
            }
        }
        for &m in &self.pkgs[p].own_modules {
            let mut syms = Vec::new();
            for &f in &self.mods[m].funcs {
                let fu = &self.funcs[f];
                if fu.public && matches!(fu.kind, FnKind::Plain | FnKind::Registrar | FnKind::Decorator) {
                    syms.push((fu.name.clone(), Sym::F(f)));
                }
            }
            for &c in &self.mods[m].classes {
                let cl = &self.classes[c];
                if cl.public && !cl.default_export {
                    syms.push((cl.name.clone(), Sym::C(c)));
                }
            }
            let all = if py { syms.iter().map(|(n, _)| n.clone()).collect() } else { self.mods[m].exported_names.clone() };
            let stem = if py { self.mods[m].base.clone() } else { kebab(&self.mods[m].base) };
            sources.push((m, stem, syms, all));
        }
        let is_top = self.pkgs[p].parent.is_none();
        for (src, stem, syms, all) in sources {
            if syms.is_empty() || !self.rng.chance(if is_top { 0.5 } else { 0.75 }) {
                continue;
            }
            let rel = if py { format!(".{stem}") } else { format!("./{stem}") };
            let star = !py && self.rng.chance(0.4) && all.iter().all(|n| !export_names.contains(n));
            if star {
                for n in &all {
                    export_names.insert(n.clone());
                }
                for (n, s) in &syms {
                    exports.insert(n.clone(), *s);
                }
                lines.push(format!("export * from '{rel}';"));
            } else {
                let mut cand: Vec<usize> = (0..syms.len()).filter(|&i| !export_names.contains(&syms[i].0)).collect();
                if cand.is_empty() {
                    continue;
                }
                self.rng.shuffle(&mut cand);
                let k = self.rng.range(1, cand.len().min(4));
                let mut chosen: Vec<usize> = cand[..k].to_vec();
                chosen.sort_unstable();
                let names: Vec<String> = chosen.iter().map(|&i| syms[i].0.clone()).collect();
                for &i in &chosen {
                    exports.insert(syms[i].0.clone(), syms[i].1);
                    export_names.insert(syms[i].0.clone());
                    // Python's `from .mod import name` in `__init__.py` imports the name;
                    // TS's `export { name } from` re-exports it (an exports edge).
                    if py {
                        edges.push(format!("imports {qname} -> {}", self.sym_info(syms[i].1).2));
                    }
                }
                if py {
                    lines.push(format!("from {rel} import {}", names.join(", ")));
                } else {
                    lines.push(format!("export {{ {} }} from '{rel}';", names.join(", ")));
                }
            }
            edges.push(format!("imports {qname} -> {}", self.mods[src].qname));
        }
        let mut text = String::new();
        let s = words::sentence(&mut self.rng);
        let title = pname.replace('_', " ");
        if py {
            let _ = writeln!(text, "\"\"\"The {title} package.\n\n{s}\n\"\"\"");
            if !lines.is_empty() {
                text.push('\n');
                for l in &lines {
                    text.push_str(l);
                    text.push('\n');
                }
                text.push_str("\n__all__ = [\n");
                for n in exports.keys() {
                    let _ = writeln!(text, "    \"{n}\",");
                }
                text.push_str("]\n");
            }
        } else {
            let _ = writeln!(text, "/**\n * Public API of the {title} package.\n *\n * {s}\n */");
            if lines.is_empty() {
                text.push_str("export {};\n");
            }
            for l in &lines {
                text.push_str(l);
                text.push('\n');
            }
        }
        edges.sort_unstable();
        edges.dedup();
        self.edges.append(&mut edges);
        self.pkgs[p].exports = exports;
        self.pkgs[p].export_names = export_names;
        self.pkgs[p].init = Some(mid);
        let path = self.module_path(mid);
        self.write_file(&path, &text, true)
    }
}

/// Module-level names that generated code binds or uses and that nothing else may take.
const PY_RESERVED: &[&str] = &["os", "json", "logging", "main", "_HOOKS", "self", "super"];
const TS_RESERVED: &[&str] = &["express", "path", "existsSync", "readFileSync", "router", "app", "hooks", "hookCount"];

const PACKAGE_JSON: &str = r#"{
  "name": "ckg-synthetic-app",
  "version": "1.0.0",
  "private": true,
  "description": "Synthetic repository generated by ckg-gen.",
  "scripts": {
    "build": "tsc -p ."
  },
  "dependencies": {
    "express": "^4.21.0"
  },
  "devDependencies": {
    "@types/express": "^4.17.21",
    "@types/node": "^20.0.0",
    "typescript": "^5.4.0"
  }
}
"#;

const TSCONFIG_JSON: &str = r#"{
  "compilerOptions": {
    "target": "ES2020",
    "module": "commonjs",
    "strict": true,
    "esModuleInterop": true,
    "skipLibCheck": true,
    "outDir": "dist"
  },
  "include": ["src"]
}
"#;
