//! Class hierarchies: a class's bases resolved in its own file, its method resolution order
//! (C3), members looked up along it, and the methods that run on attribute access.

use std::cell::RefCell;
use std::sync::Arc;

use super::paths::MAX_NESTING;
use super::{Kept, NESTING, RECORD_HOPS, Resolver, Target, UNRESOLVED, deepest_nesting_of, record, recorded_mark};
use crate::facts::{LocalBinding, SymbolKind};
use crate::store::SymbolRow;

thread_local! {
    /// The classes whose MRO is being computed on this thread (see [`Linearizing`]).
    static LINEARIZING: RefCell<Vec<i64>> = const { RefCell::new(Vec::new()) };
}

/// A class whose MRO is being computed. Its bases are paths, and a path can lead back to the
/// class (`class A(A.B)` with `class B(A)` inside: the base `A.B` is a member of `A`, looked
/// up along the MRO of `A`). Asked again for that MRO meanwhile, [`Resolver::mro`] answers
/// with the class alone (its own members) instead of starting over: each restart went one
/// path nesting deeper and multiplied the work at every level, so the depth limits bounded
/// the stack but not the time.
struct Linearizing;

impl Linearizing {
    fn enter(class: i64) -> Option<Linearizing> {
        LINEARIZING.with(|l| {
            let mut l = l.borrow_mut();
            if l.contains(&class) {
                return None;
            }
            l.push(class);
            Some(Linearizing)
        })
    }
}

impl Drop for Linearizing {
    fn drop(&mut self) {
        LINEARIZING.with(|l| l.borrow_mut().pop());
    }
}

/// A class's MRO computed where no other class was being linearized and no module member
/// looked up: then nothing outside the computation cuts it short, and it is the same wherever
/// it is asked for under the same conditions. With it, how much deeper it nested path
/// resolutions.
pub(super) struct Linearized {
    mro: Arc<[i64]>,
    nesting: usize,
}

/// A method that runs on attribute access (`@property`, `@cached_property`).
pub(super) fn is_getter(sym: &SymbolRow) -> bool {
    sym.kind == SymbolKind::Method
        && sym.decorators().iter().any(|d| {
            let last = d.rsplit('.').next().unwrap_or(d);
            matches!(last, "property" | "cached_property" | "getter")
        })
}

impl Resolver<'_> {
    /// The base classes of a class, resolved in the class's own file (what it implements
    /// too: its members are the class's as an interface's are).
    pub(super) fn bases(&self, class: &SymbolRow, depth: usize) -> Vec<i64> {
        self.resolved_bases(class, depth, true)
    }

    /// The classes a class extends, resolved in its own file: not what it implements, through
    /// which no constructor runs.
    pub(super) fn extended(&self, class: &SymbolRow, depth: usize) -> Vec<i64> {
        self.resolved_bases(class, depth, false)
    }

    fn resolved_bases(&self, class: &SymbolRow, depth: usize, implemented: bool) -> Vec<i64> {
        self.base_targets(class, depth, implemented).filter_map(|t| self.repository_class(&t)).collect()
    }

    /// What each base of a class (and what it implements, when `implemented`) denotes,
    /// resolved in the class's own file.
    fn base_targets<'s>(
        &'s self,
        class: &'s SymbolRow,
        depth: usize,
        implemented: bool,
    ) -> impl Iterator<Item = Option<(Target, &'static str)>> + 's {
        let file_module = class.file.filter(|_| depth < 16).and_then(|f| Some((f, *self.module_sym.get(&f)?)));
        // The bases are names of the class's file: what its imports bind them to (another
        // file's, when a subclass is looked at from its base's file).
        if let Some((file, _)) = file_module {
            record("imports:", self.file_path(file));
        }
        let bases = if file_module.is_some() { class.bases() } else { &[] };
        bases
            .iter()
            .filter_map(move |b| match b.strip_prefix(crate::facts::IMPLEMENTED) {
                Some(path) => implemented.then_some(path),
                None => Some(b.as_str()),
            })
            .map(move |b| {
                let (file, module) = file_module?;
                self.path_target(file, module, b, &LocalBinding::Free, depth + 1)
            })
    }

    /// The class of the repository a base denotes, if it does.
    fn repository_class(&self, base: &Option<(Target, &'static str)>) -> Option<i64> {
        match base {
            Some((Target::Sym(id), e)) if *e != UNRESOLVED && self.sym(*id).is_some_and(|s| s.kind.is_class_like()) => Some(*id),
            _ => None,
        }
    }

    /// [`Resolver::mro`] of a class asked for on its own (not while computing a base's), computed
    /// once per resolver where that gives the same answer as computing it again: with no other
    /// class being linearized, no module member being looked up, no import hops being recorded,
    /// and room for its nesting (the MRO of a class is looked up for every member of an instance
    /// a path walks; resolving the bases each time was a tenth of a full index).
    pub(super) fn linearization(&self, class: i64) -> Arc<[i64]> {
        let context_free =
            LINEARIZING.with(|l| l.borrow().is_empty()) && super::names::looking_up_nothing() && !RECORD_HOPS.with(|r| r.get());
        if !context_free {
            return self.mro(class, 0).into();
        }
        let nesting = NESTING.with(|n| n.get());
        if let Some(done) = self.mros.read().ok().and_then(|m| m.get(&class).cloned()) {
            if nesting + done.value.nesting <= MAX_NESTING {
                return done.reuse().mro.clone();
            }
            return self.mro(class, 0).into();
        }
        let keys_from = recorded_mark();
        let (mro, reached) = deepest_nesting_of(|| -> Arc<[i64]> { self.mro(class, 0).into() });
        // Cut short by the nesting bound: that depends on where it was asked.
        if reached <= MAX_NESTING {
            let done = Kept::since(keys_from, Linearized { mro: mro.clone(), nesting: reached - nesting });
            if let Ok(mut m) = self.mros.write() {
                m.insert(class, done);
            }
        }
        mro
    }

    /// The method resolution order of a class: C3 linearization (Python's), which is the
    /// plain `extends` chain for single inheritance. Inconsistent hierarchies fall back to
    /// depth-first order; cycles are cut, also those through the bases' paths.
    pub(super) fn mro(&self, class: i64, depth: usize) -> Vec<i64> {
        let Some(sym) = self.sym(class) else { return vec![class] };
        if depth > 16 {
            return vec![class];
        }
        let Some(linearizing) = Linearizing::enter(class) else { return vec![class] };
        let bases = self.bases(sym, depth);
        let mut seqs: Vec<Vec<i64>> = bases.iter().filter(|&&b| b != class).map(|&b| self.mro(b, depth + 1)).collect();
        drop(linearizing);
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
    pub(super) fn class_member(&self, class: i64, name: &str, skip_self: bool) -> Option<(i64, bool)> {
        for (i, &c) in self.linearization(class).iter().enumerate() {
            if skip_self && i == 0 {
                continue;
            }
            let sym = self.sym(c)?;
            if let Some(m) = self.member_of(sym, name) {
                return Some((m.id, i > 0));
            }
        }
        None
    }

    /// What instantiating a class runs, and whether it is inherited: Python's `__init__` along
    /// the MRO; a TS/JS `constructor`, the class's own or the nearest up its `extends` chain.
    pub(super) fn initializer(&self, class: i64) -> Option<(i64, bool)> {
        let script = self.sym(class)?.file.is_some_and(|f| self.file_lang(f).is_script());
        if script { self.constructor(class, false) } else { self.class_member(class, "__init__", false) }
    }

    /// The `constructor` a TS/JS class runs: its own, or the nearest up the chain of the
    /// classes it extends (never through what it implements); from its base's with
    /// `skip_self`, as `super(...)` does. Whether it is inherited.
    pub(super) fn constructor(&self, class: i64, skip_self: bool) -> Option<(i64, bool)> {
        let mut c = class;
        for step in 0..16 {
            let sym = self.sym(c)?;
            if (step > 0 || !skip_self)
                && let Some(m) = self.member_of(sym, "constructor")
            {
                return Some((m.id, step > 0));
            }
            c = *self.extended(sym, step).first()?;
        }
        None
    }

    /// A Python attribute no class of an instance's MRO defines, on a class that defines
    /// `__getattr__`: that method runs to produce it. Only when every base of the hierarchy is
    /// in the repository (an external base may define the attribute).
    pub(super) fn getattr_fallback(&self, class: i64) -> Option<i64> {
        let sym = self.sym(class)?;
        if self.file_lang(sym.file?).is_script() {
            return None;
        }
        // Few repositories define one: the index of methods by name answers first (and its key
        // re-resolves this file when one is added); the MRO and its bases only then.
        record("name:", "__getattr__");
        self.methods.get(&(false, "__getattr__"))?;
        let (getattr, _) = self.class_member(class, "__getattr__", false)?;
        let closed = self
            .linearization(class)
            .iter()
            .all(|&c| self.sym(c).is_some_and(|s| s.bases().iter().filter(|b| b.as_str() != "object").count() == self.bases(s, 1).len()));
        closed.then_some(getattr)
    }

    /// A method called on a class, an instance of it or its `super()` that no class of its
    /// hierarchy in the repository defines, where the hierarchy derives from exactly one class
    /// from outside it: that class's method (`this.emit()` in a class extending `EventEmitter`,
    /// `self.assertEqual()` in a `unittest.TestCase`). Not when the hierarchy defines
    /// `__getattr__`, nor when a base resolves to nothing known, nor for a private name
    /// (`self.__x`, mangled). (Whether a subclass's hook runs instead is
    /// for the caller to say: only a receiver that may be a subclass's instance runs one.)
    pub(super) fn called_from_outside(&self, class: i64, name: &str) -> Option<Target> {
        if name.starts_with("__") && !name.ends_with("__") {
            return None;
        }
        let base = self.outside_base(class)?;
        if self.class_member(class, "__getattr__", false).is_some() {
            return None;
        }
        Some(Target::External(format!("{base}.{name}")))
    }

    /// The one class from outside the repository that a class's hierarchy extends, when every
    /// other base in it resolves to a class of the repository; bases that give a class no
    /// methods of their own (`object`, `Generic`, `Protocol`, `ABC`) do not count, and a TS
    /// type made from another (`Readonly<Config>`: its members are `Config`'s) is not known.
    fn outside_base(&self, class: i64) -> Option<String> {
        const MEMBERLESS: [&str; 5] = ["<builtin>.object", "typing.Generic", "typing.Protocol", "typing_extensions.Protocol", "abc.ABC"];
        const MADE_FROM_ANOTHER: [&str; 13] = [
            "Partial",
            "Required",
            "Readonly",
            "Pick",
            "Omit",
            "Record",
            "NonNullable",
            "ReturnType",
            "Awaited",
            "InstanceType",
            "Parameters",
            "Exclude",
            "Extract",
        ];
        let mut found: Option<String> = None;
        // A class's members come from the classes it extends, not from the interfaces it
        // implements (which the linearization holds too).
        let own_kind = self.sym(class)?.kind;
        for &c in self.linearization(class).iter() {
            let sym = self.sym(c)?;
            if own_kind == SymbolKind::Class && sym.kind == SymbolKind::Interface {
                continue;
            }
            // A class of no indexed file: its bases cannot be read.
            let _module = sym.file.and_then(|f| self.module_sym.get(&f))?;
            for base in self.base_targets(sym, 0, false) {
                match base {
                    ref b if self.repository_class(b).is_some() => {}
                    Some((Target::External(q), e)) if e != UNRESOLVED => {
                        // `extends Mixins(Vue)`, `class U(db.Model)` with `db = SQLAlchemy()`: what
                        // a call makes is not known.
                        if q.contains('(') || q.strip_prefix("<builtin>.").is_some_and(|t| MADE_FROM_ANOTHER.contains(&t)) {
                            return None;
                        }
                        // A type alias's outside base is a type of the language (`Map<K, V>`);
                        // a package's (`PropsWithChildren<Own>`) may be made from its arguments.
                        if sym.kind == SymbolKind::Type && !q.starts_with("<builtin>.") {
                            return None;
                        }
                        if MEMBERLESS.contains(&q.as_str()) {
                            continue;
                        }
                        if found.as_ref().is_some_and(|f| *f != q) {
                            return None;
                        }
                        found = Some(q);
                    }
                    _ => return None,
                }
            }
        }
        found
    }

    /// The methods named `name` that override, in a subclass of `class` in the repository,
    /// what a call on an instance of `class` runs (`method`): the receiver may be any
    /// subclass. Names that many methods share are not followed (a cost bound).
    pub(super) fn overrides(&self, class: i64, name: &str, method: i64) -> Vec<i64> {
        self.bounded_overrides(class, name, method).unwrap_or_default()
    }

    /// [`Resolver::overrides`], or `None` when the name has too many methods to follow.
    pub(super) fn bounded_overrides(&self, class: i64, name: &str, method: i64) -> Option<Vec<i64>> {
        const MAX_CANDIDATES: usize = 64;
        record("name:", name);
        // A class derives only from classes of its own language family; the bound counts the
        // name's methods in both.
        let script = self.sym(class).and_then(|s| s.file).is_none_or(|f| self.file_lang(f).is_script());
        let Some(candidates) = self.methods.get(&(script, name)) else { return Some(Vec::new()) };
        if candidates.len() + self.methods.get(&(!script, name)).map_or(0, Vec::len) > MAX_CANDIDATES {
            return None;
        }
        let mut out = Vec::new();
        for &m in candidates {
            let Some(owner) = self.sym(m).and_then(|s| s.parent) else { continue };
            if m == method || owner == class {
                continue;
            }
            let Some(owner_sym) = self.sym(owner).filter(|s| s.kind.is_class_like()) else { continue };
            // Its bases (resolved through its file) say whether it derives from `class`; a
            // change of the owner's bases changes this key.
            record("q:", &owner_sym.qname);
            if self.linearization(owner).contains(&class) {
                out.push(m);
            }
        }
        out.sort_unstable();
        Some(out)
    }
}
