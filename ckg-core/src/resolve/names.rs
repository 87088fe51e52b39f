//! What a name denotes: a free name seen from a site (imports in enclosing scopes, namespace
//! members, module-level definitions, star imports, builtins), an import binding, a member of
//! a module (definitions, submodules, re-exports followed), and the alternatives bound by
//! `try: import … / except ImportError: …`.

use std::cell::RefCell;

use super::answer::{Hop, hop};
use super::modules::ModuleTarget;
use super::{EXACT, Kept, MAX_HOPS, NESTING, RECORD_HOPS, Resolver, Target, UNRESOLVED, deepest_nesting_of, recorded_mark};
use crate::facts::{ImportKind, LocalBinding, SymbolKind};
use crate::store::ImportRow;

thread_local! {
    /// The module members being looked up on this thread (see [`LookingUp`]).
    static LOOKING_UP: RefCell<Vec<(i64, String)>> = const { RefCell::new(Vec::new()) };
}

/// A module member being looked up. Imports and re-exports can lead a name back to itself
/// (`from a import A` inside `a`, or two modules importing a name from each other), and a name
/// may have several bindings; every binding was then tried again at every hop, `n^(MAX_HOPS/2)`
/// lookups for `n` bindings (nine made seconds, a few more made hours). Asked for the member
/// it is looking up, [`Resolver::module_member`] answers `None`: the outer lookup goes on with
/// the other bindings and reaches whatever the inner one would have.
struct LookingUp;

impl LookingUp {
    fn enter(file: i64, name: &str) -> Option<LookingUp> {
        LOOKING_UP.with(|l| {
            let mut l = l.borrow_mut();
            if l.iter().any(|(f, n)| *f == file && n == name) {
                return None;
            }
            l.push((file, name.to_string()));
            Some(LookingUp)
        })
    }
}

/// Whether no module member is being looked up on this thread.
pub(super) fn looking_up_nothing() -> bool {
    LOOKING_UP.with(|l| l.borrow().is_empty())
}

impl Drop for LookingUp {
    fn drop(&mut self) {
        LOOKING_UP.with(|l| l.borrow_mut().pop());
    }
}

impl Resolver<'_> {
    pub(super) fn module_target(&self, t: ModuleTarget) -> Option<Target> {
        match t {
            ModuleTarget::File(f) => Some(Target::Module(f)),
            ModuleTarget::Package(p) => Some(Target::Package(p)),
            ModuleTarget::External(e) => Some(Target::External(e)),
            ModuleTarget::Missing => None,
        }
    }

    /// What an import binding denotes.
    pub(super) fn import_target(&self, imp: &ImportRow, hops: usize) -> Option<Target> {
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

    pub(super) fn package_member(&self, package: &str, name: &str) -> Option<Target> {
        let full = format!("{package}.{name}");
        self.module_target(self.modules.resolve_python_absolute(&full))
    }

    /// A name visible as a member of a module: a definition, a submodule, a re-export.
    ///
    /// Kept for later when looked up with nothing else being looked up: what a module's
    /// member denotes is then the same wherever it is asked, unless the lookup went through a
    /// path (`module.exports = { run: lib.run }`), whose resolution notes what the current
    /// reference passes through. A barrel module (`export * from './a'` for a few dozen
    /// modules) is otherwise searched again for each reference to a name imported from it.
    pub(super) fn module_member(&self, file: i64, name: &str, hops: usize) -> Option<Target> {
        if hops > MAX_HOPS {
            return None;
        }
        if !looking_up_nothing() || RECORD_HOPS.with(|r| r.get()) {
            return self.module_member_now(file, name, hops);
        }
        let kept = self.members.read().ok().and_then(|m| m.get(&(file, hops)).and_then(|names| names.get(name)).cloned());
        if let Some(kept) = kept {
            return kept.reuse().clone();
        }
        let keys_from = recorded_mark();
        let nesting = NESTING.with(|n| n.get());
        let (found, reached) = deepest_nesting_of(|| self.module_member_now(file, name, hops));
        // No path was resolved on the way (each holds a nesting level).
        if reached <= nesting
            && let Ok(mut m) = self.members.write()
        {
            m.entry((file, hops)).or_default().insert(name.into(), Kept::since(keys_from, found.clone()));
        }
        found
    }

    /// [`Resolver::module_member`], looked up now.
    fn module_member_now(&self, file: i64, name: &str, hops: usize) -> Option<Target> {
        let _looking_up = LookingUp::enter(file, name)?;
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
                        if let Some(s) = self.joined_qname(module, '#', target) {
                            return Some(Target::Sym(s.id));
                        }
                        if let Some(t) = self.module_import_binding(file, target, hops) {
                            return Some(t);
                        }
                        // `module.exports = { slugify: strings.slugify }`: a member path;
                        // `module.exports = new Service()`: the instance the call makes.
                        if target.contains('.') || target.ends_with("()") {
                            let module_sym = *self.module_sym.get(&file)?;
                            if let Some((t, e)) = self.path_target(file, module_sym, target, &LocalBinding::Free, hops + 1)
                                && e != UNRESOLVED
                            {
                                return Some(t);
                            }
                        }
                    }
                }
            }
            if let Some(s) = self.joined_qname(module, '#', name) {
                return Some(Target::Sym(s.id));
            }
            if let Some(t) = self.through_star_exports(file, name, hops) {
                return Some(t);
            }
            // The default import of a CommonJS module is what `module.exports` holds
            // (`module.exports = Animal`); of one that exports an object
            // (`module.exports = { run }`), that object: the module's members. (Reached only
            // when the module has no `default` of its own.)
            let own_exports = self.exports_of(file).iter().any(|&k| self.input.exports[k].specifier.is_none());
            if name == "default"
                && own_exports
                && let Some(held) = self.module_member(file, "module.exports", hops + 1).filter(|t| *t != Target::Module(file))
            {
                return Some(held);
            }
            (name == "default" && own_exports).then_some(Target::Module(file))
        } else {
            if let Some(s) = self.joined_qname(module, '.', name)
                && (s.kind != SymbolKind::Module || s.file == Some(file))
            {
                return Some(Target::Sym(s.id));
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

    /// What `export * from './f'` brings under `name` from the script module `file`: only
    /// what it exports — a name of its export list, a declaration written with `export`, or
    /// what its own `export *`s bring — and never its `default`. A module-level declaration it
    /// keeps to itself (`const useNavigate = …` beside `export const provider = { useNavigate
    /// }`) is not a member of the barrel, though a direct import of the module falls back to
    /// it ([`Resolver::module_member`]).
    fn star_reexport(&self, file: i64, name: &str, hops: usize) -> Option<Target> {
        if name == "default" || hops > MAX_HOPS {
            return None;
        }
        let exports = self.exports_of(file);
        if exports.iter().any(|&k| self.input.exports[k].name == name) {
            return self.module_member(file, name, hops);
        }
        if let Some(s) = self.module_qname(file).and_then(|m| self.joined_qname(m, '#', name))
            && s.exported
        {
            return Some(Target::Sym(s.id));
        }
        let _looking_up = LookingUp::enter(file, name)?;
        self.through_star_exports(file, name, hops)
    }

    /// `name` as the first of the script module `file`'s `export * from …` that brings it
    /// ([`Resolver::star_reexport`]).
    fn through_star_exports(&self, file: i64, name: &str, hops: usize) -> Option<Target> {
        let lang = self.file_lang(file);
        self.exports_of(file).iter().map(|&k| &self.input.exports[k]).filter(|e| e.name == "*").find_map(|e| {
            match self.modules.resolve(file, lang, e.specifier.as_deref()?) {
                ModuleTarget::File(f) => self.star_reexport(f, name, hops + 1),
                _ => None,
            }
        })
    }

    /// A module-level import of `file` that binds `name`.
    pub(super) fn module_import_binding(&self, file: i64, name: &str, hops: usize) -> Option<Target> {
        let module_sym = self.module_sym.get(&file).copied();
        self.imports_of(file).iter().rev().filter(|i| Some(i.scope) == module_sym && i.local.as_deref() == Some(name)).find_map(|i| {
            hop(Hop { file: i.file, line: i.line, col: i.col });
            self.import_target(i, hops + 1)
        })
    }

    pub(super) fn star_member(&self, file: i64, name: &str, hops: usize) -> Option<Target> {
        self.star_member_after(file, name, hops, 0)
    }

    /// [`Resolver::star_member`] through the star imports written after `line` only.
    fn star_member_after(&self, file: i64, name: &str, hops: usize, line: u32) -> Option<Target> {
        let lang = self.file_lang(file);
        for imp in self.imports_of(file) {
            if imp.kind != ImportKind::Star || lang.is_script() || imp.line <= line {
                continue;
            }
            if let ModuleTarget::File(f) = self.modules.resolve(file, lang, &imp.specifier)
                && self.star_exports(f, name)
                && let Some(t) = self.module_member(f, name, hops + 1)
            {
                return Some(t);
            }
        }
        None
    }

    /// Whether `from m import *` brings `name` (respecting `__all__`, else public names).
    pub(super) fn star_exports(&self, file: i64, name: &str) -> bool {
        let all = self.exports_of(file);
        if all.is_empty() { !name.starts_with('_') } else { all.iter().any(|&k| self.input.exports[k].name == name) }
    }

    /// Resolves the first name of a path that extraction left free, as seen from `src`.
    pub(super) fn free_name(&self, file: i64, src: i64, name: &str) -> Option<(Target, &'static str)> {
        let lang = self.file_lang(file);
        // Imports in enclosing function scopes, innermost first.
        if let Some(imports) = self.imports.get(&file) {
            let mut scope = Some(src);
            let mut steps = 0;
            while let Some(s) = scope {
                let sym = self.sym(s)?;
                if let Some(imp) = imports.iter().rev().find(|i| i.scope == s && i.local.as_deref() == Some(name)) {
                    // Python: a module-level definition written after the import rebinds the name.
                    let redefined = !lang.is_script()
                        && sym.kind == SymbolKind::Module
                        && self
                            .module_qname(file)
                            .and_then(|m| self.joined_qname(m, '.', name))
                            .is_some_and(|d| d.file == Some(file) && !d.kind.is_value() && d.line > imp.line);
                    if !redefined {
                        return self.import_target(imp, 0).map(|t| (t, EXACT)).or(Some((Target::Opaque, UNRESOLVED)));
                    }
                }
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
            if s.kind == SymbolKind::Namespace
                && let Some(m) = self.joined_qname(&s.qname, '.', name)
            {
                return Some((Target::Sym(m.id), EXACT));
            }
            scope = s.parent.and_then(|p| self.sym(p));
            steps += 1;
            if steps > MAX_HOPS * 4 {
                break;
            }
        }
        // Module-level definitions and values (a value is walked through by `member`, and
        // dereferenced by the sites that call it).
        if let Some(s) = self.joined_qname(module, sep, name) {
            // A star import written after the definition rebinds the name when it brings it.
            if !lang.is_script()
                && s.file == Some(file)
                && let Some(t) = self.star_member_after(file, name, 0, s.line)
            {
                return Some((t, EXACT));
            }
            return Some((Target::Sym(s.id), EXACT));
        }
        if !lang.is_script()
            && let Some(t) = self.star_member(file, name, 0)
        {
            return Some((t, EXACT));
        }
        let builtins = if lang.is_script() { &self.builtins_script } else { &self.builtins_py };
        if builtins.contains(name) {
            return Some((Target::External(format!("<builtin>.{name}")), EXACT));
        }
        None
    }

    /// The targets of a name bound by more than one branch of a `try` that catches a failed
    /// import: each alternative import, and a module-level definition of the same name.
    pub(super) fn alternatives(&self, file: i64, name: &str) -> Vec<Target> {
        let Some(&module_sym) = self.module_sym.get(&file) else { return Vec::new() };
        let mut out: Vec<Target> = Vec::new();
        let alts = self.imports_of(file).iter().filter(|i| i.alternative && i.scope == module_sym && i.local.as_deref() == Some(name));
        for imp in alts {
            if let Some(t) = self.import_target(imp, 0)
                && !out.contains(&t)
            {
                out.push(t);
            }
        }
        if out.is_empty() {
            return out;
        }
        if let Some(s) = self.module_qname(file).and_then(|m| self.joined_qname(m, '.', name)) {
            out.push(Target::Sym(s.id));
        }
        out
    }
}
