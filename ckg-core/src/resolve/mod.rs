//! Resolution: binds the stored reference facts of files to definitions across files.
//!
//! **Invariant:** resolution reads only stored facts (never source files) and is where all
//! cross-file knowledge lives. It is a pure function from [`ResolveInput`] to edges, so the
//! same facts always give the same edges, whatever order files were parsed in.
//!
//! A reference's first name is looked up in this order: the binding extraction found in the
//! file's own scopes ([`LocalBinding`]); imports in enclosing function scopes, then at module
//! level; module-level definitions and variables; Python star imports; builtins. The rest of
//! its path is then walked through members (module members and re-exports, class members,
//! external members). Each edge gets one evidence tier:
//!
//! - `exact`: bound through scopes and imports to one definition (or a builtin/external);
//! - `inferred`: bound through simple flow: `self`/`this`, `x = Foo()`, annotations;
//! - `heuristic`: a method call on a value of unknown type (`x.send_invoice()`) whose method
//!   name is defined by exactly one method in the repository and is not a method of a builtin
//!   type (`append`, `map`): probably that method, labelled so;
//! - `unresolved`: kept with its written name.
//!
//! Nothing binds a bare name globally: the heuristic tier applies to member calls only.

mod builtins;
mod config;
mod modules;

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use rayon::prelude::*;

use crate::facts::{ImportKind, LocalBinding, RefKind, SymbolKind, ValueSource};
use crate::lang::Lang;
use crate::store::{Dst, EdgeRow, ImportRow, RefRow, ResolveInput, SymbolRow};

pub use modules::{ModuleTarget, module_keys, python_packages};

pub const EXACT: &str = "exact";
pub const INFERRED: &str = "inferred";
pub const HEURISTIC: &str = "heuristic";
pub const UNRESOLVED: &str = "unresolved";

/// How far member and re-export chains are followed (guards against import cycles).
const MAX_HOPS: usize = 12;

thread_local! {
    /// The keys looked up while resolving the current file (one file per thread at a time).
    static LOOKUPS: RefCell<Vec<i64>> = const { RefCell::new(Vec::new()) };
    /// Property getters run while walking the path of the current reference.
    static GETTERS: RefCell<Vec<i64>> = const { RefCell::new(Vec::new()) };
    /// Value symbols the path of the current reference passes through, with the evidence
    /// at that step (`CONFIG` in `CONFIG.load()`, `repo` in `self.repo.find()`).
    static VALUES: RefCell<Vec<(i64, &'static str)>> = const { RefCell::new(Vec::new()) };
    /// The first class, enum or namespace the path of the current reference goes into, with
    /// its evidence and the index of its segment (`Settings` in `Settings.DEBUG`).
    static CONTAINER: std::cell::Cell<Option<(i64, &'static str, usize)>> = const { std::cell::Cell::new(None) };
    /// Import and re-export sites followed while answering one position (see [`Resolver::answer`]).
    static HOPS: RefCell<Vec<Hop>> = const { RefCell::new(Vec::new()) };
    /// Set while [`Resolver::answer`] runs (indexing records no hops).
    static RECORD_HOPS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// How deeply path resolutions are nested on this thread (see [`Nested`]).
    static NESTING: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Path resolutions nest (a member's declared type, a class's bases, a variable's value are
/// paths too); code can make them refer back to themselves (`class A(A.B)`, a property typed
/// by a path through itself). Every cycle goes through [`Resolver::path_target`], which holds
/// one of these: past `MAX_NESTING` the lookup gives up instead of overflowing the stack.
struct Nested;

const MAX_NESTING: usize = 64;

impl Nested {
    fn enter() -> Option<Nested> {
        let depth = NESTING.with(|n| {
            n.set(n.get() + 1);
            n.get()
        });
        let guard = Nested;
        (depth <= MAX_NESTING).then_some(guard)
    }
}

impl Drop for Nested {
    fn drop(&mut self) {
        NESTING.with(|n| n.set(n.get() - 1));
    }
}

/// An edge at a reference site.
fn site_edge(r: &RefRow, kind: &'static str, src: i64, dst: Dst, evidence: &'static str, dynamic: u8) -> EdgeRow {
    EdgeRow { kind, src, dst, file: r.file, line: r.line, col: r.col, evidence, dynamic }
}

/// A method that runs on attribute access (`@property`, `@cached_property`).
fn is_getter(sym: &SymbolRow) -> bool {
    sym.kind == SymbolKind::Method
        && sym.decorators.iter().any(|d| {
            let last = d.rsplit('.').next().unwrap_or(d);
            matches!(last, "property" | "cached_property" | "getter")
        })
}

/// The stored form of a lookup key: qnames (`q:`), module paths (`path:`, `py:`), other
/// files' exports and imports (`exports:`, `imports:`).
pub fn lookup_key(key: &str) -> i64 {
    xxhash_rust::xxh3::xxh3_64(key.as_bytes()) as i64
}

/// Records that the file being resolved depends on `key`.
pub(crate) fn record(key: &str) {
    LOOKUPS.with(|l| l.borrow_mut().push(lookup_key(key)));
}

/// What a name or path denotes during resolution.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Target {
    Sym(i64),
    Module(i64),
    /// A Python namespace package (a folder of modules with no `__init__.py`).
    Package(String),
    External(String),
    /// An instance of a class in the repository (from `Foo()`, `new Foo()`, an annotation).
    Instance(i64),
    /// `super` inside a class: members are looked up after the class in its MRO.
    Super(i64),
    /// A dict or list literal, with where it was written (file, enclosing symbol).
    Items(i64, i64, Vec<(String, ValueSource)>),
    /// A local or module variable whose value is not known.
    Opaque,
}

/// The indexes resolution needs over the loaded facts.
pub struct Resolver<'a> {
    input: &'a ResolveInput,
    files: HashMap<i64, usize>,
    modules: modules::ModuleIndex<'a>,
    by_qname: HashMap<&'a str, usize>,
    by_id: HashMap<i64, usize>,
    module_sym: HashMap<i64, i64>,
    imports: HashMap<i64, Vec<&'a ImportRow>>,
    exports: HashMap<i64, Vec<usize>>,
    builtins_py: HashSet<&'static str>,
    builtins_script: HashSet<&'static str>,
    /// Methods by name (for the heuristic tier): the id when the name is unique.
    methods: HashMap<&'a str, Option<i64>>,
    common_methods: HashSet<&'static str>,
}

impl<'a> Resolver<'a> {
    pub fn new(input: &'a ResolveInput) -> Resolver<'a> {
        let files = input.files.iter().enumerate().map(|(i, f)| (f.id, i)).collect();
        let by_qname = input.symbols.iter().enumerate().map(|(i, s)| (s.qname.as_str(), i)).collect();
        let by_id = input.symbols.iter().enumerate().map(|(i, s)| (s.id, i)).collect();
        let module_sym = input.symbols.iter().filter(|s| s.kind == SymbolKind::Module).filter_map(|s| s.file.map(|f| (f, s.id))).collect();
        let mut imports: HashMap<i64, Vec<&ImportRow>> = HashMap::new();
        for i in &input.imports {
            imports.entry(i.file).or_default().push(i);
        }
        let mut exports: HashMap<i64, Vec<usize>> = HashMap::new();
        for (k, e) in input.exports.iter().enumerate() {
            exports.entry(e.file).or_default().push(k);
        }
        let mut methods: HashMap<&str, Option<i64>> = HashMap::new();
        for s in input.symbols.iter().filter(|s| s.kind == SymbolKind::Method) {
            methods.entry(crate::store::last_name(&s.qname)).and_modify(|m| *m = None).or_insert(Some(s.id));
        }
        Resolver {
            input,
            files,
            modules: modules::ModuleIndex::new(&input.files, &input.configs),
            by_qname,
            by_id,
            module_sym,
            imports,
            exports,
            builtins_py: builtins::PYTHON.iter().copied().collect(),
            builtins_script: builtins::SCRIPT.iter().copied().collect(),
            methods,
            common_methods: builtins::COMMON_METHODS.iter().copied().collect(),
        }
    }

    fn sym(&self, id: i64) -> Option<&'a SymbolRow> {
        self.by_id.get(&id).map(|&i| &self.input.symbols[i])
    }

    fn qname(&self, q: &str) -> Option<&'a SymbolRow> {
        record(&format!("q:{q}"));
        self.by_qname.get(q).map(|&i| &self.input.symbols[i])
    }

    fn file_lang(&self, file: i64) -> Lang {
        self.files.get(&file).map(|&i| self.input.files[i].lang).unwrap_or(Lang::TypeScript)
    }

    fn file_path(&self, file: i64) -> &'a str {
        self.files.get(&file).map(|&i| self.input.files[i].path.as_str()).unwrap_or("")
    }

    fn exports_of(&self, file: i64) -> &[usize] {
        record(&format!("exports:{}", self.file_path(file)));
        self.exports.get(&file).map(Vec::as_slice).unwrap_or(&[])
    }

    fn imports_of(&self, file: i64) -> &[&'a ImportRow] {
        record(&format!("imports:{}", self.file_path(file)));
        self.imports.get(&file).map(Vec::as_slice).unwrap_or(&[])
    }

    fn module_qname(&self, file: i64) -> Option<&'a str> {
        self.files.get(&file).map(|&i| self.input.files[i].module.as_str())
    }

    /// The qname of a direct member of a symbol (`mod#name` for a TS module, `mod.name`).
    fn member_qname(&self, parent: &SymbolRow, name: &str) -> String {
        if parent.kind == SymbolKind::Module && parent.file.is_some_and(|f| self.file_lang(f).is_script()) {
            format!("{}#{name}", parent.qname)
        } else {
            format!("{}.{name}", parent.qname)
        }
    }

    fn module_target(&self, t: ModuleTarget) -> Option<Target> {
        match t {
            ModuleTarget::File(f) => Some(Target::Module(f)),
            ModuleTarget::Package(p) => Some(Target::Package(p)),
            ModuleTarget::External(e) => Some(Target::External(e)),
            ModuleTarget::Missing => None,
        }
    }

    /// What an import binding denotes.
    fn import_target(&self, imp: &ImportRow, hops: usize) -> Option<Target> {
        let from = imp.file;
        match imp.kind {
            ImportKind::Namespace | ImportKind::Dynamic => {
                // Python `import a.b.c` binds `a`.
                let spec = match &imp.local {
                    Some(local) if !self.file_lang(from).is_script() && imp.specifier.starts_with(&format!("{local}.")) => local.as_str(),
                    _ => imp.specifier.as_str(),
                };
                match self.modules.resolve(from, self.file_lang(from), spec) {
                    // CommonJS: `require('./m')` gives what `module.exports` was set to.
                    ModuleTarget::File(f) if self.file_lang(f).is_script() => {
                        self.module_member(f, "module.exports", hops + 1).or(Some(Target::Module(f)))
                    }
                    t => self.module_target(t),
                }
            }
            ImportKind::Named | ImportKind::Default => {
                let member = imp.imported.as_deref().unwrap_or("default");
                match self.modules.resolve(from, self.file_lang(from), &imp.specifier) {
                    ModuleTarget::File(f) if member == "default" => {
                        self.module_member(f, "default", hops + 1).or_else(|| self.module_member(f, "module.exports", hops + 1))
                    }
                    ModuleTarget::File(f) => self.module_member(f, member, hops + 1),
                    ModuleTarget::Package(p) => self.package_member(&p, member),
                    ModuleTarget::External(e) if imp.kind == ImportKind::Default => Some(Target::External(e)),
                    ModuleTarget::External(e) => Some(Target::External(format!("{e}.{member}"))),
                    ModuleTarget::Missing => None,
                }
            }
            ImportKind::Star | ImportKind::SideEffect => None,
        }
    }

    fn package_member(&self, package: &str, name: &str) -> Option<Target> {
        let full = format!("{package}.{name}");
        self.module_target(self.modules.resolve_python_absolute(&full))
    }

    /// A name visible as a member of a module: a definition, a submodule, a re-export.
    fn module_member(&self, file: i64, name: &str, hops: usize) -> Option<Target> {
        if hops > MAX_HOPS {
            return None;
        }
        let lang = self.file_lang(file);
        let module = self.module_qname(file)?;
        if lang.is_script() {
            for &k in self.exports_of(file) {
                let e = &self.input.exports[k];
                if e.name != name {
                    continue;
                }
                let target = e.target.as_deref().unwrap_or(name);
                hop(Hop { file: e.file, line: e.line, col: e.col });
                match &e.specifier {
                    Some(spec) => {
                        return match self.modules.resolve(file, lang, spec) {
                            ModuleTarget::File(f) if target == "*" => Some(Target::Module(f)),
                            ModuleTarget::File(f) => self.module_member(f, target, hops + 1),
                            ModuleTarget::External(x) if target == "*" => Some(Target::External(x)),
                            ModuleTarget::External(x) if target == "default" => Some(Target::External(x)),
                            ModuleTarget::External(x) => Some(Target::External(format!("{x}.{target}"))),
                            _ => None,
                        };
                    }
                    None => {
                        if let Some(s) = self.qname(&format!("{module}#{target}")) {
                            return Some(Target::Sym(s.id));
                        }
                        if let Some(t) = self.module_import_binding(file, target, hops) {
                            return Some(t);
                        }
                    }
                }
            }
            if let Some(s) = self.qname(&format!("{module}#{name}")) {
                return Some(Target::Sym(s.id));
            }
            for &k in self.exports_of(file) {
                let e = &self.input.exports[k];
                if e.name == "*" {
                    if let Some(ModuleTarget::File(f)) = e.specifier.as_deref().map(|s| self.modules.resolve(file, lang, s)) {
                        if let Some(t) = self.module_member(f, name, hops + 1) {
                            return Some(t);
                        }
                    }
                }
            }
            None
        } else {
            if let Some(s) = self.qname(&format!("{module}.{name}")) {
                if s.kind != SymbolKind::Module || s.file == Some(file) {
                    return Some(Target::Sym(s.id));
                }
            }
            if let ModuleTarget::File(f) = self.modules.resolve_python_absolute(&format!("{module}.{name}")) {
                return Some(Target::Module(f));
            }
            if let Some(t) = self.module_import_binding(file, name, hops) {
                return Some(t);
            }
            self.star_member(file, name, hops)
        }
    }

    /// A module-level import of `file` that binds `name`.
    fn module_import_binding(&self, file: i64, name: &str, hops: usize) -> Option<Target> {
        let module_sym = self.module_sym.get(&file).copied();
        self.imports_of(file).iter().rev().filter(|i| Some(i.scope) == module_sym && i.local.as_deref() == Some(name)).find_map(|i| {
            hop(Hop { file: i.file, line: i.line, col: i.col });
            self.import_target(i, hops + 1)
        })
    }

    fn star_member(&self, file: i64, name: &str, hops: usize) -> Option<Target> {
        let lang = self.file_lang(file);
        for imp in self.imports_of(file) {
            if imp.kind != ImportKind::Star || lang.is_script() {
                continue;
            }
            if let ModuleTarget::File(f) = self.modules.resolve(file, lang, &imp.specifier) {
                if self.star_exports(f, name) {
                    if let Some(t) = self.module_member(f, name, hops + 1) {
                        return Some(t);
                    }
                }
            }
        }
        None
    }

    /// Whether `from m import *` brings `name` (respecting `__all__`, else public names).
    fn star_exports(&self, file: i64, name: &str) -> bool {
        let all: Vec<&str> = self.exports_of(file).iter().map(|&k| self.input.exports[k].name.as_str()).collect();
        if all.is_empty() { !name.starts_with('_') } else { all.contains(&name) }
    }

    /// Resolves the first name of a path that extraction left free, as seen from `src`.
    fn free_name(&self, file: i64, src: i64, name: &str) -> Option<(Target, &'static str)> {
        let lang = self.file_lang(file);
        // Imports in enclosing function scopes, innermost first.
        if let Some(imports) = self.imports.get(&file) {
            let mut scope = Some(src);
            let mut steps = 0;
            while let Some(s) = scope {
                if let Some(imp) = imports.iter().rev().find(|i| i.scope == s && i.local.as_deref() == Some(name)) {
                    return self.import_target(imp, 0).map(|t| (t, EXACT)).or(Some((Target::Opaque, UNRESOLVED)));
                }
                let sym = self.sym(s)?;
                if sym.kind == SymbolKind::Module {
                    break;
                }
                scope = sym.parent;
                steps += 1;
                if steps > MAX_HOPS * 4 {
                    break;
                }
            }
        }
        let module = self.module_qname(file)?;
        let sep = if lang.is_script() { '#' } else { '.' };
        // Members of the namespaces the site is in, innermost first.
        let mut scope = self.sym(src);
        let mut steps = 0;
        while let Some(s) = scope.filter(|s| s.kind != SymbolKind::Module) {
            if s.kind == SymbolKind::Namespace {
                if let Some(m) = self.qname(&format!("{}.{name}", s.qname)) {
                    return Some((Target::Sym(m.id), EXACT));
                }
            }
            scope = s.parent.and_then(|p| self.sym(p));
            steps += 1;
            if steps > MAX_HOPS * 4 {
                break;
            }
        }
        // Module-level definitions and values (a value is walked through by `member`, and
        // dereferenced by the sites that call it).
        if let Some(s) = self.qname(&format!("{module}{sep}{name}")) {
            return Some((Target::Sym(s.id), EXACT));
        }
        if !lang.is_script() {
            if let Some(t) = self.star_member(file, name, 0) {
                return Some((t, EXACT));
            }
        }
        let builtins = if lang.is_script() { &self.builtins_script } else { &self.builtins_py };
        if builtins.contains(name) {
            return Some((Target::External(format!("<builtin>.{name}")), EXACT));
        }
        None
    }

    /// What a variable holds, from where its value came.
    fn value_target(&self, file: i64, src: i64, value: &ValueSource, depth: usize) -> (Target, &'static str) {
        if depth > 12 {
            return (Target::Opaque, UNRESOLVED);
        }
        let path = match value {
            ValueSource::Items(items) => return (Target::Items(file, src, items.clone()), INFERRED),
            // A loop variable stands for many values; file_edges expands it, flows do not.
            ValueSource::Each(_) => return (Target::Opaque, UNRESOLVED),
            ValueSource::Def(q) => return self.qname(q).map(|s| (Target::Sym(s.id), EXACT)).unwrap_or((Target::Opaque, UNRESOLVED)),
            ValueSource::SelfOf(q) => {
                return self.qname(q).map(|s| (Target::Instance(s.id), INFERRED)).unwrap_or((Target::Opaque, UNRESOLVED));
            }
            ValueSource::Call(p) | ValueSource::New(p) | ValueSource::Annotation(p) | ValueSource::Alias(p) => p,
        };
        let Some((target, evidence)) = self.path_target(file, src, path, &LocalBinding::Free, depth + 1) else {
            return (Target::Opaque, UNRESOLVED);
        };
        if evidence == UNRESOLVED {
            return (Target::Opaque, UNRESOLVED);
        }
        let flowed = if evidence == EXACT { INFERRED } else { evidence };
        let result = match value {
            // An alias holds what the name it copies holds.
            ValueSource::Alias(_) => {
                return match target {
                    Target::Sym(id) if self.sym(id).is_some_and(|s| s.kind.is_value()) => self.deref(id, evidence, depth + 1),
                    t => (t, evidence),
                };
            }
            ValueSource::Call(_) => self.call_result(target, depth + 1),
            ValueSource::New(_) | ValueSource::Annotation(_) => self.instance_of(target),
            ValueSource::Def(_) | ValueSource::SelfOf(_) | ValueSource::Items(_) | ValueSource::Each(_) => unreachable!("handled above"),
        };
        match result {
            Some(t) => (t, flowed),
            None => (Target::Opaque, UNRESOLVED),
        }
    }

    /// An instance of what a type or constructor path denotes.
    fn instance_of(&self, t: Target) -> Option<Target> {
        match self.through_values(t, 1) {
            Target::Sym(id) if self.sym(id).is_some_and(|s| s.kind.is_class_like()) => Some(Target::Instance(id)),
            Target::External(e) => Some(Target::External(e)),
            _ => None,
        }
    }

    /// What a value symbol holds (its last assignment's value, or its declared type),
    /// resolved in its own file.
    fn value_of(&self, sym: &SymbolRow, depth: usize) -> Option<(Target, &'static str)> {
        let value = sym.ty.as_ref()?;
        let file = sym.file?;
        let module = *self.module_sym.get(&file)?;
        // A namespace member's value is written in the namespace (its names are visible).
        let scope = sym.parent.filter(|&p| self.sym(p).is_some_and(|p| p.kind == SymbolKind::Namespace)).unwrap_or(module);
        let (t, e) = self.value_target(file, scope, value, depth + 1);
        (e != UNRESOLVED && t != Target::Opaque).then_some((t, e))
    }

    /// The target a call through a value symbol reaches (what the value holds, through
    /// chains of aliases), with the weakest evidence on the way. When the value is not known,
    /// an attribute is itself the callee (a slot set from a parameter: `self.on_click()`); a
    /// module value is unresolved.
    fn deref(&self, id: i64, evidence: &'static str, depth: usize) -> (Target, &'static str) {
        let (mut target, mut evidence) = (Target::Sym(id), evidence);
        for _ in 0..MAX_HOPS {
            let Target::Sym(id) = target else { break };
            let Some(sym) = self.sym(id).filter(|s| s.kind.is_value()) else { break };
            match self.value_of(sym, depth) {
                Some((t, e)) => {
                    target = t;
                    evidence = weaker(evidence, e);
                }
                None if matches!(sym.kind, SymbolKind::Property | SymbolKind::Attribute) => break,
                None => return (Target::Opaque, UNRESOLVED),
            }
        }
        (target, evidence)
    }

    /// A target with value symbols replaced by what they hold (for calls, instantiation and
    /// types: `Conn = Connection; Conn(url)`).
    fn through_values(&self, t: Target, depth: usize) -> Target {
        match t {
            Target::Sym(id) if self.sym(id).is_some_and(|s| s.kind.is_value()) => self.deref(id, EXACT, depth).0,
            t => t,
        }
    }

    /// What a symbol's declared or obvious type denotes, resolved in its own file.
    fn type_of(&self, sym: &SymbolRow, depth: usize) -> Option<Target> {
        let ty = sym.ty.as_ref()?;
        let file = sym.file?;
        let module = *self.module_sym.get(&file)?;
        if depth > 8 {
            return None;
        }
        let p = match ty {
            ValueSource::Items(_) | ValueSource::Each(_) => return None,
            ValueSource::Def(q) => return self.qname(q).map(|s| Target::Sym(s.id)),
            ValueSource::SelfOf(q) => return self.qname(q).map(|s| Target::Instance(s.id)),
            ValueSource::Call(p) | ValueSource::New(p) | ValueSource::Annotation(p) | ValueSource::Alias(p) => p,
        };
        let (t, e) = self.path_target(file, module, p, &LocalBinding::Free, depth + 1)?;
        if e == UNRESOLVED {
            return None;
        }
        match ty {
            ValueSource::Call(_) => self.call_result(t, depth + 1),
            // A returned function (`return handler`) is that function, not an instance.
            ValueSource::Alias(_) => Some(t),
            _ => self.instance_of(t),
        }
    }

    /// The base classes of a class, resolved in the class's own file.
    fn bases(&self, class: &SymbolRow, depth: usize) -> Vec<i64> {
        let (Some(file), true) = (class.file, depth < 16) else { return Vec::new() };
        let Some(&module) = self.module_sym.get(&file) else { return Vec::new() };
        class
            .bases
            .iter()
            .filter_map(|b| match self.path_target(file, module, b, &LocalBinding::Free, depth + 1) {
                Some((Target::Sym(id), e)) if e != UNRESOLVED && self.sym(id).is_some_and(|s| s.kind.is_class_like()) => Some(id),
                _ => None,
            })
            .collect()
    }

    /// The method resolution order of a class: C3 linearization (Python's), which is the
    /// plain `extends` chain for single inheritance. Inconsistent hierarchies fall back to
    /// depth-first order; cycles are cut.
    fn mro(&self, class: i64, depth: usize) -> Vec<i64> {
        let Some(sym) = self.sym(class) else { return vec![class] };
        if depth > 16 {
            return vec![class];
        }
        let bases = self.bases(sym, depth);
        let mut seqs: Vec<Vec<i64>> = bases.iter().filter(|&&b| b != class).map(|&b| self.mro(b, depth + 1)).collect();
        seqs.push(bases.into_iter().filter(|&b| b != class).collect());
        let mut out = vec![class];
        loop {
            seqs.retain(|s| !s.is_empty());
            if seqs.is_empty() {
                break;
            }
            let head = seqs.iter().map(|s| s[0]).find(|h| !seqs.iter().any(|s| s[1..].contains(h)));
            match head {
                Some(h) => {
                    if !out.contains(&h) {
                        out.push(h);
                    }
                    for s in &mut seqs {
                        if s[0] == h {
                            s.remove(0);
                        }
                    }
                }
                None => {
                    for s in seqs {
                        for x in s {
                            if !out.contains(&x) {
                                out.push(x);
                            }
                        }
                    }
                    break;
                }
            }
        }
        out
    }

    /// A member of a class looked up along its MRO; the flag says it was inherited.
    fn class_member(&self, class: i64, name: &str, skip_self: bool) -> Option<(i64, bool)> {
        for (i, c) in self.mro(class, 0).into_iter().enumerate() {
            if skip_self && i == 0 {
                continue;
            }
            let sym = self.sym(c)?;
            if let Some(m) = self.qname(&self.member_qname(sym, name)) {
                return Some((m.id, i > 0));
            }
        }
        None
    }

    /// Resolves a whole written path from a reference site.
    fn path_target(&self, file: i64, src: i64, path: &str, binding: &LocalBinding, depth: usize) -> Option<(Target, &'static str)> {
        let _nested = Nested::enter()?;
        let mut segments = path.split('.');
        let root = segments.next()?;
        let (target, evidence) = match binding {
            LocalBinding::Def(q) => (Target::Sym(self.qname(q)?.id), EXACT),
            LocalBinding::Var(Some(v)) => self.value_target(file, src, v, depth),
            LocalBinding::Var(None) => (Target::Opaque, UNRESOLVED),
            // `cls(...)` in a classmethod instantiates the class.
            LocalBinding::SelfOf(class) if root == "cls" && path == "cls" => (Target::Sym(self.qname(class)?.id), INFERRED),
            LocalBinding::SelfOf(class) => (Target::Instance(self.qname(class)?.id), INFERRED),
            LocalBinding::SuperOf(class) => (Target::Super(self.qname(class)?.id), INFERRED),
            LocalBinding::Free => {
                let bare = root.strip_suffix("()").unwrap_or(root);
                let (t, e) = self.free_name(file, src, bare)?;
                if root.ends_with("()") { (self.call_result(t, depth)?, e) } else { (t, e) }
            }
        };
        if depth == 0 {
            self.note_value(&target, evidence);
            self.note_container(&target, evidence, 0);
        }
        self.walk(target, evidence, segments, depth)
    }

    /// Records the first class, enum or namespace a path goes into.
    fn note_container(&self, t: &Target, evidence: &'static str, index: usize) {
        if let Target::Sym(id) = *t {
            let container = self.sym(id).is_some_and(|s| matches!(s.kind, SymbolKind::Class | SymbolKind::Enum | SymbolKind::Namespace));
            if container && evidence != UNRESOLVED && CONTAINER.with(|c| c.get().is_none()) {
                CONTAINER.with(|c| c.set(Some((id, evidence, index))));
            }
        }
    }

    /// Records a value symbol the current reference's path passes through.
    fn note_value(&self, t: &Target, evidence: &'static str) {
        if let Target::Sym(id) = *t {
            if evidence != UNRESOLVED && self.sym(id).is_some_and(|s| s.kind.is_value()) {
                VALUES.with(|v| v.borrow_mut().push((id, evidence)));
            }
        }
    }

    /// Walks the members named by the rest of a path from a target.
    fn walk<'p>(
        &self,
        mut target: Target,
        mut evidence: &'static str,
        segments: impl Iterator<Item = &'p str>,
        depth: usize,
    ) -> Option<(Target, &'static str)> {
        for (i, seg) in segments.enumerate() {
            if target == Target::Opaque {
                return Some((Target::Opaque, UNRESOLVED));
            }
            let (name, call) = match seg.strip_suffix("()") {
                Some(n) => (n, true),
                None => (seg, false),
            };
            let (next, inferred) = self.member(&target, name, depth)?;
            if inferred && evidence == EXACT {
                evidence = INFERRED;
            }
            if depth == 0 {
                if let Target::Sym(id) = next {
                    if self.sym(id).is_some_and(is_getter) {
                        GETTERS.with(|g| g.borrow_mut().push(id));
                    }
                }
                self.note_value(&next, evidence);
                self.note_container(&next, evidence, i + 1);
            }
            target = if call { self.call_result(next, depth)? } else { next };
        }
        Some((target, evidence))
    }

    /// What calling a target gives: an instance of a class, a call result of an external.
    fn call_result(&self, t: Target, depth: usize) -> Option<Target> {
        match self.through_values(t, depth + 1) {
            Target::Sym(id) => {
                let sym = self.sym(id)?;
                match sym.kind {
                    SymbolKind::Class => Some(Target::Instance(id)),
                    SymbolKind::Function | SymbolKind::Method | SymbolKind::Lambda => self.type_of(sym, depth),
                    _ => None,
                }
            }
            // What a builtin returns is not modelled (`getattr(o, n)()`, `open(p).read()`), and
            // `importlib.import_module(name)` is a dynamic import: leave them unresolved.
            Target::External(e) if e.starts_with("<builtin>.") || e == "importlib.import_module" => None,
            Target::External(e) => Some(Target::External(format!("{e}()"))),
            _ => None,
        }
    }

    /// A member of a target; the flag says the step was by inference (an instance member).
    fn member(&self, target: &Target, name: &str, depth: usize) -> Option<(Target, bool)> {
        match target {
            Target::Sym(id) => {
                let sym = self.sym(*id)?;
                if sym.kind.is_class_like() {
                    return self.class_member(*id, name, false).map(|(m, inherited)| (Target::Sym(m), inherited));
                }
                if sym.kind.is_value() {
                    // An object literal's own members (`api.get`), else a member of what the
                    // value holds: `this.svc.find()` with `svc: UserService`, `app.use` with
                    // `app = express()`.
                    if let Some(s) = self.qname(&self.member_qname(sym, name)) {
                        return Some((Target::Sym(s.id), false));
                    }
                    let (t, _) = self.value_of(sym, depth + 1)?;
                    return self.member(&t, name, depth + 1).map(|(t, _)| (t, true));
                }
                if is_getter(sym) && sym.ty.is_some() {
                    // A property getter's value: its return type.
                    let t = self.type_of(sym, depth + 1)?;
                    return self.member(&t, name, depth + 1).map(|(t, _)| (t, true));
                }
                let q = self.member_qname(sym, name);
                self.qname(&q).map(|s| (Target::Sym(s.id), false))
            }
            Target::Instance(id) => self.class_member(*id, name, false).map(|(m, _)| (Target::Sym(m), true)),
            Target::Super(id) => self.class_member(*id, name, true).map(|(m, _)| (Target::Sym(m), true)),
            Target::Items(file, src, items) => {
                let key = name.strip_prefix('[')?.strip_suffix(']')?;
                let (_, value) = items.iter().find(|(k, _)| k == key)?;
                let (t, e) = self.value_target(*file, *src, value, 1);
                (e != UNRESOLVED).then_some((t, true))
            }
            Target::Module(f) => self.module_member(*f, name, 0).map(|t| (t, false)),
            Target::Package(p) => self.package_member(p, name).map(|t| (t, false)),
            Target::External(e) => Some((Target::External(format!("{e}.{name}")), false)),
            Target::Opaque => None,
        }
    }

    fn dst_of(&self, t: &Target) -> Option<Dst> {
        match t {
            Target::Sym(id) | Target::Instance(id) => Some(Dst::Symbol(*id)),
            Target::Module(f) => self.module_sym.get(f).map(|&id| Dst::Symbol(id)),
            Target::Package(p) => Some(Dst::Unresolved(p.clone())),
            Target::Super(_) | Target::Items(..) => None,
            Target::External(e) => Some(Dst::External(e.clone())),
            Target::Opaque => None,
        }
    }

    /// The edges of one file.
    pub fn file_edges(&self, file: i64, refs: &[&crate::store::RefRow]) -> Vec<EdgeRow> {
        let mut out = Vec::new();
        let lang = self.file_lang(file);
        // Imports: module -> module or external package.
        if let (Some(imports), Some(&module_sym)) = (self.imports.get(&file), self.module_sym.get(&file)) {
            for imp in imports {
                let dst = match self.modules.resolve(file, lang, &imp.specifier) {
                    ModuleTarget::File(f) => self.module_sym.get(&f).map(|&id| Dst::Symbol(id)),
                    ModuleTarget::Package(p) => Some(Dst::Unresolved(p)),
                    ModuleTarget::External(e) => Some(Dst::External(e)),
                    ModuleTarget::Missing => Some(Dst::Unresolved(imp.specifier.clone())),
                };
                let Some(dst) = dst else { continue };
                let evidence = if matches!(dst, Dst::Unresolved(_)) { UNRESOLVED } else { EXACT };
                out.push(EdgeRow { kind: "imports", src: module_sym, dst, file, line: imp.line, col: imp.col, evidence, dynamic: 0 });
                // The imported name: an edge to the definition it names (re-exports followed),
                // from the scope that imports it. (`export { a } from` binds nothing: it is an
                // exports edge.)
                if matches!(imp.kind, ImportKind::Named | ImportKind::Default) && imp.local.is_some() {
                    if let Some(Target::Sym(id)) = self.import_target(imp, 0) {
                        if self.sym(id).is_some_and(|s| s.kind != SymbolKind::Module) {
                            let edge = EdgeRow {
                                kind: "imports",
                                src: imp.scope,
                                dst: Dst::Symbol(id),
                                file,
                                line: imp.line,
                                col: imp.col,
                                evidence: EXACT,
                                dynamic: 0,
                            };
                            out.push(edge);
                        }
                    }
                }
            }
        }
        // Exports and re-exports: module -> the definition it makes visible.
        if let (Some(exports), Some(&module_sym)) = (self.exports.get(&file), self.module_sym.get(&file)) {
            if lang.is_script() {
                for &k in exports {
                    let e = &self.input.exports[k];
                    if e.name == "*" {
                        continue; // `export * from` is an imports edge; members bind on use
                    }
                    let dst = match (&e.specifier, e.target.as_deref()) {
                        (Some(spec), Some("*")) => self.module_target(self.modules.resolve(file, lang, spec)),
                        (Some(spec), target) => match self.modules.resolve(file, lang, spec) {
                            ModuleTarget::File(f) => self.module_member(f, target.unwrap_or(&e.name), 1),
                            ModuleTarget::External(x) => Some(Target::External(format!("{x}.{}", target.unwrap_or(&e.name)))),
                            _ => None,
                        },
                        (None, _) => self.module_member(file, &e.name, 0),
                    };
                    let (dst, evidence) = match dst.as_ref().and_then(|t| self.dst_of(t)) {
                        Some(d) => (d, EXACT),
                        None => (Dst::Unresolved(e.target.clone().unwrap_or_else(|| e.name.clone())), UNRESOLVED),
                    };
                    if dst == Dst::Symbol(module_sym) {
                        continue;
                    }
                    out.push(EdgeRow { kind: "exports", src: module_sym, dst, file, line: e.line, col: e.col, evidence, dynamic: 0 });
                }
            }
        }
        // Names bound by `try: import … / except ImportError: …` branches, once per file.
        let alternative_names: HashSet<&str> = match self.imports.get(&file) {
            Some(imports) if !lang.is_script() => imports.iter().filter(|i| i.alternative).filter_map(|i| i.local.as_deref()).collect(),
            _ => HashSet::new(),
        };
        for r in refs {
            if r.path.is_empty() {
                if matches!(r.kind, RefKind::Argument | RefKind::Read | RefKind::Member | RefKind::Type) {
                    continue; // a computed value passed along (`f(rows[0].id)`) is data, not a call
                }
                // A dynamic site (`obj[name]()`): a completeness gap, kept with its text.
                let dynamic = if r.computed { 2 } else { 1 };
                out.push(site_edge(r, edge_kind(r.kind, None), r.src, Dst::Unresolved(r.text.clone()), UNRESOLVED, dynamic));
                continue;
            }
            if matches!(r.binding, LocalBinding::SelfOf(_) | LocalBinding::SuperOf(_))
                && !r.path.contains('.')
                && !(r.path == "cls" && r.kind == RefKind::Call)
            {
                continue; // `this` / `self` alone
            }
            // A loop variable over a literal container: one edge per element.
            let each = match &r.binding {
                LocalBinding::Var(Some(ValueSource::Each(inner))) => Some(inner.as_ref()),
                // A loop at module level: the loop variable is a module value.
                LocalBinding::Free if !lang.is_script() => {
                    let root = r.path.split('.').next().unwrap_or("");
                    let value = self.module_qname(file).and_then(|m| self.qname(&format!("{m}.{root}")));
                    match value.filter(|s| s.kind.is_value()).and_then(|s| s.ty.as_ref()) {
                        Some(ValueSource::Each(inner)) => Some(inner.as_ref()),
                        _ => None,
                    }
                }
                _ => None,
            };
            if let Some(inner) = each {
                if let (Target::Items(f, s, items), _) = self.value_target(file, r.src, inner, 1) {
                    for (_, value) in &items {
                        let (t, e) = self.value_target(f, s, value, 1);
                        if e == UNRESOLVED {
                            continue;
                        }
                        let rest = r.path.split('.').skip(1);
                        if let Some((t, e)) = self.walk(t, e, rest, 1).filter(|(_, e)| *e != UNRESOLVED) {
                            let evidence = if e == EXACT { INFERRED } else { e };
                            self.push_edge(&mut out, r, r.kind, r.src, &t, evidence, false);
                        }
                    }
                    continue;
                }
            }
            // A name bound by either branch of `try: import … / except ImportError: …`:
            // an edge for each binding that may be live.
            let root = r.path.split('.').next().unwrap_or(&r.path);
            if alternative_names.contains(root)
                && r.binding == LocalBinding::Free
                && matches!(r.kind, RefKind::Call | RefKind::Decorator | RefKind::Inherits)
            {
                let alternatives = self.alternatives(file, root);
                if alternatives.len() > 1 {
                    for t in alternatives {
                        if let Some((t, e)) = self.walk(t, INFERRED, r.path.split('.').skip(1), 1).filter(|(_, e)| *e != UNRESOLVED) {
                            if t != Target::Opaque {
                                self.push_edge(&mut out, r, r.kind, r.src, &t, e, true);
                                self.param_flow(&mut out, file, r, &t);
                            }
                        }
                    }
                    continue;
                }
            }
            GETTERS.with(|g| g.borrow_mut().clear());
            VALUES.with(|v| v.borrow_mut().clear());
            CONTAINER.with(|c| c.set(None));
            if r.kind == RefKind::Patch {
                // Rebinding a member from outside: a function, method or class rebound is
                // monkey-patching (an edge marked so completeness lists it); a value is a write.
                let resolved = self.path_target(file, r.src, &r.path, &r.binding, 0);
                let values = VALUES.with(|v| std::mem::take(&mut *v.borrow_mut()));
                let last = values.last().map(|(id, _)| *id);
                for &(id, e) in &values {
                    if Some(id) != last || !matches!(resolved, Some((Target::Sym(f), _)) if f == id) {
                        out.push(site_edge(r, "references", r.src, Dst::Symbol(id), e, 0));
                    }
                }
                self.container_edge(&mut out, r);
                if let Some((t, e)) = resolved.filter(|(_, e)| *e != UNRESOLVED) {
                    let patchable = match &t {
                        Target::Sym(id) => self.sym(*id).is_some_and(|s| s.kind.is_callable() && !is_getter(s)),
                        Target::External(x) => !x.contains("()"),
                        _ => false,
                    };
                    match (&t, self.dst_of(&t)) {
                        (_, Some(dst)) if patchable => out.push(site_edge(r, "references", r.src, dst, e, 3)),
                        (Target::Sym(id), _) if self.sym(*id).is_some_and(|s| s.kind.is_value()) => {
                            out.push(site_edge(r, "writes", r.src, Dst::Symbol(*id), e, 0));
                        }
                        _ => {}
                    }
                }
                continue;
            }
            let resolved = self.path_target(file, r.src, &r.path, &r.binding, 0);
            let values = VALUES.with(|v| std::mem::take(&mut *v.borrow_mut()));
            self.container_edge(&mut out, r);
            // Reading a property runs its getter: a call edge at the site.
            let getters = GETTERS.with(|g| std::mem::take(&mut *g.borrow_mut()));
            for &getter in &getters {
                let evidence = resolved.as_ref().map(|(_, e)| *e).filter(|e| *e != UNRESOLVED).unwrap_or(INFERRED);
                out.push(site_edge(r, "calls", r.src, Dst::Symbol(getter), evidence, 0));
            }
            // The value symbol the path ends on, if it does.
            let final_value = match &resolved {
                Some((Target::Sym(id), _)) if values.last().is_some_and(|(v, _)| v == id) => Some(*id),
                _ => None,
            };
            // A path through values references each of them (`CONFIG` in `CONFIG.load()`); the
            // value a read, a write or an argument ends on gets that site's own edge below.
            for &(id, e) in &values {
                if Some(id) != final_value || runs_target(r.kind) {
                    out.push(site_edge(r, "references", r.src, Dst::Symbol(id), e, 0));
                }
            }
            match (r.kind, &resolved) {
                (RefKind::Read, Some((Target::Sym(id), e))) if *e != UNRESOLVED && !getters.contains(id) => {
                    if self.sym(*id).is_some_and(|s| s.kind != SymbolKind::Module) {
                        out.push(site_edge(r, "references", r.src, Dst::Symbol(*id), e, 0));
                    }
                    continue;
                }
                // A read of an external package's value (`request.args`, `settings.DEBUG` of an
                // installed package, `req.body` on an `express.Request`): the migration's
                // impact must see it.
                // (A member of a call's result, `path.join(a).length`, is data; so is a
                // builtin such as `__name__`.)
                (RefKind::Read, Some((Target::External(q), e))) if *e != UNRESOLVED && !q.contains('(') && !q.starts_with("<builtin>.") => {
                    out.push(site_edge(r, "references", r.src, Dst::External(q.clone()), e, 0));
                    continue;
                }
                (RefKind::Read, _) => continue,
                (RefKind::Write, Some((Target::Sym(id), e))) if *e != UNRESOLVED => {
                    let sym = self.sym(*id);
                    let module = self.module_sym.get(&file).copied();
                    // Re-assigning the module's own value at module level is its definition.
                    let own = sym.is_some_and(|s| s.file == Some(file) && s.parent == module) && Some(r.src) == module;
                    if sym.is_some_and(|s| s.kind.is_value()) && !own {
                        out.push(site_edge(r, "writes", r.src, Dst::Symbol(*id), e, 0));
                    }
                    continue;
                }
                (RefKind::Write, _) => continue,
                _ => {}
            }
            // A site that runs a value runs what the value holds: `h()` with `h = handler`.
            let resolved = match resolved {
                Some((Target::Sym(id), e)) if runs_target(r.kind) && final_value == Some(id) => Some(self.deref(id, e, 1)),
                other => other,
            };
            if r.kind == RefKind::Member {
                // Only uses of enums become edges; other member objects are not references.
                if let Some((Target::Sym(id), evidence)) = resolved {
                    if evidence != UNRESOLVED && self.sym(id).is_some_and(|s| s.kind == SymbolKind::Enum) {
                        out.push(site_edge(r, "references", r.src, Dst::Symbol(id), evidence, 0));
                    }
                }
                continue;
            }
            let value_use = matches!(r.kind, RefKind::Argument | RefKind::Type);
            match resolved {
                // A member of an external value passed along (`f(request.args)`,
                // `f(req.body.id)`) is read there, like any other read of it.
                Some((Target::External(ref e), evidence)) if r.kind == RefKind::Argument && r.path.contains('.') => {
                    if evidence != UNRESOLVED && !e.contains('(') {
                        out.push(site_edge(r, "references", r.src, Dst::External(e.clone()), evidence, 0));
                    }
                }
                // A variable holding an instance or a call result, passed along, is data flow.
                Some((Target::Instance(_), _))
                    if value_use && matches!(r.binding, LocalBinding::Var(_) | LocalBinding::Free) && !r.path.contains('.') => {}
                Some((Target::External(ref e), _)) if value_use && e.ends_with(')') => {}
                Some((target, evidence)) if evidence != UNRESOLVED && target != Target::Opaque => {
                    self.push_edge(&mut out, r, r.kind, r.src, &target, evidence, !lang.is_script());
                    if !r.args.is_empty() {
                        self.param_flow(&mut out, file, r, &target);
                    }
                }
                // A local or module variable passed along is data flow, not a graph edge.
                Some(_) if value_use => {}
                None if value_use && matches!(r.binding, LocalBinding::Var(_)) => {}
                _ => out.push(match self.heuristic_method(r) {
                    Some(m) => site_edge(r, "calls", r.src, Dst::Symbol(m), HEURISTIC, 0),
                    None => site_edge(r, edge_kind(r.kind, None), r.src, Dst::Unresolved(r.path.clone()), UNRESOLVED, 0),
                }),
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// A path that goes into a class, enum or namespace to reach a member uses it: a
    /// references edge (`Settings.DEBUG`, `Color.Red`, `Shapes.Circle.radius`), except when it
    /// is the direct receiver of a call or an instantiation (`Cache.shared()`,
    /// `Cache.shared().get(k)`).
    fn container_edge(&self, out: &mut Vec<EdgeRow>, r: &RefRow) {
        let Some((id, evidence, index)) = CONTAINER.with(|c| c.take()) else { return };
        let last = r.path.split('.').count().saturating_sub(1);
        let called_next = r.path.split('.').nth(index + 1).is_some_and(|s| s.ends_with("()"));
        let receiver = called_next || (runs_target(r.kind) && index + 1 == last);
        if index < last && !receiver && r.kind != RefKind::Member {
            out.push(site_edge(r, "references", r.src, Dst::Symbol(id), evidence, 0));
        }
    }

    /// The edge a reference site gives to a target; for a Python instantiation also the call
    /// of the class's `__init__` (or an inherited one).
    /// `site_kind` is how the site uses the target (a call, for a parameter called elsewhere).
    #[allow(clippy::too_many_arguments)]
    fn push_edge(
        &self,
        out: &mut Vec<EdgeRow>,
        r: &RefRow,
        site_kind: RefKind,
        src: i64,
        target: &Target,
        evidence: &'static str,
        python: bool,
    ) {
        let Some(dst) = self.dst_of(target) else { return };
        let kind = edge_kind(site_kind, self.target_kind(target));
        out.push(site_edge(r, kind, src, dst, evidence, 0));
        if kind == "instantiates" && python {
            if let Target::Sym(class) = *target {
                if let Some((init, inherited)) = self.class_member(class, "__init__", false) {
                    let evidence = if inherited && evidence == EXACT { INFERRED } else { evidence };
                    out.push(site_edge(r, "calls", src, Dst::Symbol(init), evidence, 0));
                }
            }
        }
    }

    /// Parameter flow (PyCG-style): a call site of a function that calls one of its parameters
    /// (`def apply(f): f()`) gives an edge from the code making that call to what this site
    /// passes (`apply(double)`: `apply -> double`). The edge's site is this call, where the
    /// value is chosen. A parameter filled from `*args` / `**kwargs` is a completeness gap.
    fn param_flow(&self, out: &mut Vec<EdgeRow>, file: i64, r: &RefRow, callee: &Target) {
        let Target::Sym(id) = *callee else { return };
        let Some(sym) = self.sym(id) else { return };
        let func = match sym.kind {
            SymbolKind::Function | SymbolKind::Method => sym,
            SymbolKind::Class => match self.class_member(id, "__init__", false).and_then(|(init, _)| self.sym(init)) {
                Some(init) => init,
                None => return,
            },
            _ => return,
        };
        for u in &func.param_uses {
            let passed = r
                .args
                .iter()
                .find(|(k, _)| *k == u.name)
                .or_else(|| u.index.and_then(|i| r.args.iter().find(|(k, _)| k.parse::<u32>().ok() == Some(i))));
            let Some(caller) = self.qname(&u.caller) else { continue };
            let Some((_, value)) = passed else {
                if let Some((_, ValueSource::Alias(splat))) = r.args.iter().find(|(k, _)| k == "*" || k == "**") {
                    out.push(site_edge(r, "calls", caller.id, Dst::Unresolved(format!("{} <- {splat}", u.name)), UNRESOLVED, 2));
                }
                continue;
            };
            let (t, e) = self.value_target(file, r.src, value, 1);
            if e == UNRESOLVED {
                continue;
            }
            let values = match (u.each, t) {
                (false, t) => vec![t],
                (true, Target::Items(f, s, items)) => {
                    items.iter().map(|(_, v)| self.value_target(f, s, v, 1)).filter(|(_, e)| *e != UNRESOLVED).map(|(t, _)| t).collect()
                }
                (true, _) => Vec::new(),
            };
            for t in values {
                let Some((t, _)) = self.walk(t, INFERRED, u.rest.split('.').filter(|s| !s.is_empty()), 1) else { continue };
                let callable = match &t {
                    Target::Sym(id) => self.sym(*id).is_some_and(|s| s.kind.is_callable()),
                    Target::External(_) => true,
                    _ => false,
                };
                if callable {
                    self.push_edge(out, r, RefKind::Call, caller.id, &t, INFERRED, true);
                }
            }
        }
    }

    /// The heuristic tier: a member call on a value of unknown type whose method name only one
    /// repository method has (and that is not a method of a builtin type).
    fn heuristic_method(&self, r: &RefRow) -> Option<i64> {
        if r.kind != RefKind::Call || !r.path.contains('.') || matches!(r.binding, LocalBinding::SelfOf(_) | LocalBinding::SuperOf(_)) {
            return None;
        }
        let name = crate::store::last_name(&r.path);
        if name.starts_with("__") || self.common_methods.contains(name) {
            return None;
        }
        record(&format!("name:{name}"));
        self.methods.get(name).copied().flatten()
    }

    /// The targets of a name bound by more than one branch of a `try` that catches a failed
    /// import: each alternative import, and a module-level definition of the same name.
    fn alternatives(&self, file: i64, name: &str) -> Vec<Target> {
        let Some(&module_sym) = self.module_sym.get(&file) else { return Vec::new() };
        let mut out: Vec<Target> = Vec::new();
        let alts = self.imports_of(file).iter().filter(|i| i.alternative && i.scope == module_sym && i.local.as_deref() == Some(name));
        for imp in alts {
            if let Some(t) = self.import_target(imp, 0) {
                if !out.contains(&t) {
                    out.push(t);
                }
            }
        }
        if out.is_empty() {
            return out;
        }
        if let Some(s) = self.module_qname(file).and_then(|m| self.qname(&format!("{m}.{name}"))) {
            out.push(Target::Sym(s.id));
        }
        out
    }

    fn target_kind(&self, t: &Target) -> Option<SymbolKind> {
        match t {
            Target::Sym(id) => self.sym(*id).map(|s| s.kind),
            _ => None,
        }
    }
}

/// Records a site followed while answering a position.
fn hop(h: Hop) {
    if RECORD_HOPS.with(|r| r.get()) {
        HOPS.with(|hops| hops.borrow_mut().push(h));
    }
}

/// A site followed to reach a definition: an import binding or a re-export.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hop {
    pub file: i64,
    pub line: u32,
    pub col: u32,
}

/// What a position of a file resolves to (`def`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// A repository definition, a module, or an interned external node, by id.
    Symbol(i64),
    /// An external (or builtin) by qname, interned or not.
    External(String),
    /// A Python namespace package (a folder without `__init__.py`).
    Package(String),
}

/// The answer for a position: what it denotes, the evidence, and the import and re-export
/// sites followed on the way (in order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    pub found: Found,
    pub evidence: &'static str,
    pub hops: Vec<Hop>,
}

impl Resolver<'_> {
    /// Resolves what extraction found at a position of `file` (a use, an imported name, an
    /// imported module), with the resolution the index itself uses. Definitions and locals
    /// need no resolution and give `None`.
    pub fn answer(&self, file: i64, fact: &crate::extract::PositionFact, imports: &[crate::facts::ImportFact]) -> Option<Answer> {
        use crate::extract::PositionFact as P;
        HOPS.with(|h| h.borrow_mut().clear());
        RECORD_HOPS.with(|r| r.set(true));
        let resolved = match fact {
            P::Use { src, path, binding } => {
                let src =
                    self.by_qname.get(src.as_str()).map(|&i| self.input.symbols[i].id).or_else(|| self.module_sym.get(&file).copied())?;
                self.path_target(file, src, path, binding, 1)
            }
            P::Import(i) => {
                let f = imports.get(*i)?;
                hop(Hop { file, line: f.line, col: f.col });
                let row = ImportRow {
                    file,
                    kind: f.kind,
                    specifier: f.specifier.clone(),
                    imported: f.imported.clone(),
                    local: f.local.clone(),
                    scope: 0,
                    type_only: f.type_only,
                    alternative: f.alternative,
                    line: f.line,
                    col: f.col,
                };
                let kind = if f.kind == ImportKind::Star { ImportKind::Namespace } else { f.kind };
                self.import_target(&ImportRow { kind, ..row }, 0).map(|t| (t, EXACT))
            }
            P::Module(spec) => self.module_target(self.modules.resolve(file, self.file_lang(file), spec)).map(|t| (t, EXACT)),
            P::Definition(_) | P::Local { .. } => None,
        };
        RECORD_HOPS.with(|r| r.set(false));
        let hops = HOPS.with(|h| std::mem::take(&mut *h.borrow_mut()));
        let (target, evidence) = resolved.filter(|(_, e)| *e != UNRESOLVED)?;
        let found = match target {
            Target::Sym(id) | Target::Instance(id) => Found::Symbol(id),
            Target::Module(f) => Found::Symbol(*self.module_sym.get(&f)?),
            Target::External(e) => Found::External(e),
            Target::Package(p) => Found::Package(p),
            Target::Super(_) | Target::Items(..) | Target::Opaque => return None,
        };
        Some(Answer { found, evidence, hops })
    }
}

/// The weaker of two evidence tiers.
fn weaker(a: &'static str, b: &'static str) -> &'static str {
    let rank = |e: &str| match e {
        EXACT => 3,
        INFERRED => 2,
        HEURISTIC => 1,
        _ => 0,
    };
    if rank(a) <= rank(b) { a } else { b }
}

/// Sites that run what they name: a value symbol there stands for what it holds.
fn runs_target(kind: RefKind) -> bool {
    matches!(kind, RefKind::Call | RefKind::New | RefKind::Decorator | RefKind::Inherits | RefKind::Implements | RefKind::Jsx)
}

/// The edge kind for a reference site and what it resolved to.
fn edge_kind(kind: RefKind, target: Option<SymbolKind>) -> &'static str {
    match kind {
        RefKind::Call if target == Some(SymbolKind::Class) => "instantiates",
        RefKind::Call | RefKind::Decorator => "calls",
        RefKind::New => "instantiates",
        RefKind::Argument | RefKind::Jsx | RefKind::Type | RefKind::Member | RefKind::Read | RefKind::Patch => "references",
        RefKind::Write => "writes",
        RefKind::Inherits => "inherits",
        RefKind::Implements => "implements",
    }
}

/// The edges of the resolved files, and for each the keys its resolution looked up.
pub struct Resolution {
    pub edges: Vec<EdgeRow>,
    pub lookups: Vec<(i64, Vec<i64>)>,
}

/// Resolves the given files (all when `only` is `None`) in parallel. Output is sorted, so it
/// does not depend on thread scheduling.
pub fn resolve(input: &ResolveInput, only: Option<&HashSet<i64>>) -> Resolution {
    let resolver = Resolver::new(input);
    let mut refs_by_file: HashMap<i64, Vec<&crate::store::RefRow>> = HashMap::new();
    for r in &input.refs {
        refs_by_file.entry(r.file).or_default().push(r);
    }
    let files: Vec<i64> = input.files.iter().map(|f| f.id).filter(|id| only.is_none_or(|o| o.contains(id))).collect();
    let per_file: Vec<(i64, Vec<EdgeRow>, Vec<i64>)> = files
        .par_iter()
        .map(|&f| {
            LOOKUPS.with(|l| l.borrow_mut().clear());
            let refs = refs_by_file.get(&f).map(Vec::as_slice).unwrap_or(&[]);
            let edges = resolver.file_edges(f, refs);
            let mut keys = LOOKUPS.with(|l| std::mem::take(&mut *l.borrow_mut()));
            keys.sort_unstable();
            keys.dedup();
            (f, edges, keys)
        })
        .collect();
    let mut edges = Vec::new();
    let mut lookups = Vec::with_capacity(per_file.len());
    for (f, e, k) in per_file {
        edges.extend(e);
        lookups.push((f, k));
    }
    // By site: each file's edges are stored as one ascending range of ids.
    edges.sort_by(|a, b| (a.file, a.line, a.col).cmp(&(b.file, b.line, b.col)).then_with(|| a.cmp(b)));
    Resolution { edges, lookups }
}
