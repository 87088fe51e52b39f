//! Walking a written path (`a.b().c`) from its first name through members: a class's along its
//! MRO, a module's, a value's (through what it holds), a dict literal's keys, an external's.
//! Nested lookups are bounded ([`Nested`]); what the path passes through is noted for the
//! site's edges (values, the first container, property getters).

use super::classes::is_getter;
use super::{
    CONTAINER, DISPATCH, EXACT, GETTERS, INFERRED, MISSED, Missed, NESTING, NESTING_PEAK, Resolver, Target, UNRESOLVED, UPPER_BOUND,
    VALUES, weaker,
};
use crate::facts::{ANY_ENTRY, LocalBinding, MAPPING_LOOKUPS, Step, SymbolKind, ValueSource, split_segment};

/// Path resolutions nest (a member's declared type, a class's bases, a variable's value are
/// paths too); code can make them refer back to themselves (`class A(A.B)`, a property typed
/// by a path through itself). Every cycle goes through [`Resolver::path_target`], which holds
/// one of these: past `MAX_NESTING` the lookup gives up instead of overflowing the stack.
struct Nested;

pub(super) const MAX_NESTING: usize = 64;

impl Nested {
    fn enter() -> Option<Nested> {
        let depth = NESTING.with(|n| {
            n.set(n.get() + 1);
            n.get()
        });
        NESTING_PEAK.with(|p| p.set(p.get().max(depth)));
        let guard = Nested;
        (depth <= MAX_NESTING).then_some(guard)
    }
}

impl Drop for Nested {
    fn drop(&mut self) {
        NESTING.with(|n| n.set(n.get() - 1));
    }
}

impl Resolver<'_> {
    /// Resolves a whole written path from a reference site.
    pub(super) fn path_target(
        &self,
        file: i64,
        src: i64,
        path: &str,
        binding: &LocalBinding,
        depth: usize,
    ) -> Option<(Target, &'static str)> {
        let _nested = Nested::enter()?;
        // CommonJS: `exports` and `module.exports` are the module's own exports object.
        let commonjs = *binding == LocalBinding::Free && self.file_lang(file).is_script();
        let path = match path.strip_prefix("module.") {
            Some(rest) if commonjs && (rest == "exports" || rest.starts_with("exports.")) => rest,
            _ => path,
        };
        let mut segments = crate::dotted::segments(path).peekable();
        let root = segments.next()?;
        let (bare, step) = split_segment(root);
        let (target, evidence) = match binding {
            LocalBinding::Def(q) => (Target::Sym(self.qname(q)?.id), EXACT),
            // `items[0].run()` with `items: Item[]` / `List[Item]`, `d[k].run()` with `d:
            // Dict[str, Item]`: an entry of a name declared a container of a class is an
            // instance of it.
            LocalBinding::Var(Some(container))
                if let Some(entry) = container.declared_entry()
                    && step == Step::Member
                    && segments.peek().is_some_and(|s| match split_segment(s) {
                        (key, Step::Member) => key.starts_with('['),
                        // `by_name.get(k).run()` with `by_name: Dict[str, Item]`.
                        (method, Step::Call) => {
                            matches!(container, ValueSource::Mapping(_))
                                && MAPPING_LOOKUPS.contains(&method)
                                && !self.file_lang(file).is_script()
                        }
                        _ => false,
                    }) =>
            {
                segments.next();
                self.value_target(file, src, entry, depth)
            }
            LocalBinding::Var(Some(v)) => self.value_target(file, src, v, depth),
            LocalBinding::Var(None) => (Target::Opaque, UNRESOLVED),
            // `cls(...)` in a classmethod instantiates the class.
            LocalBinding::SelfOf(class) if root == "cls" && path == "cls" => (Target::Sym(self.qname(class)?.id), INFERRED),
            LocalBinding::SelfOf(class) => (Target::Instance(self.qname(class)?.id), INFERRED),
            LocalBinding::SuperOf(class) => (Target::Super(self.qname(class)?.id), INFERRED),
            LocalBinding::Free if commonjs && root == "exports" => (Target::Module(file), EXACT),
            LocalBinding::Free => self.free_name(file, src, bare)?,
        };
        let (target, evidence) = match (step, binding) {
            (Step::Member, _) | (_, LocalBinding::SelfOf(_) | LocalBinding::SuperOf(_)) => (target, evidence),
            (_, _) if evidence == UNRESOLVED => (target, evidence),
            (Step::Call, LocalBinding::Free) => (self.call_result(target, depth)?, evidence),
            (Step::Call, _) => (self.call_result(target, depth)?, weaker(evidence, INFERRED)),
            (Step::Param(i), _) => (self.param_type(target, i, depth)?, weaker(evidence, INFERRED)),
        };
        if depth == 0 {
            self.note_value(&target, evidence);
            self.note_container(&target, evidence, 0);
            // `self` and an annotated name hold an instance of their class or of any
            // subclass; an instance made here (`Foo()`) is of exactly its class.
            let bound = matches!(binding, LocalBinding::SelfOf(_) | LocalBinding::Var(Some(ValueSource::Annotation(_))));
            UPPER_BOUND.with(|b| b.set(bound && matches!(target, Target::Instance(_))));
        }
        self.walk(target, evidence, segments, depth)
    }

    /// A method that returns an instance of the class it is called on: a Python classmethod
    /// returning `cls(…)` or a method declared to return `Self`; a TS/JS static method returning
    /// `new this()`; a method returning its receiver (`return this` / `return self`).
    pub(super) fn makes_its_receivers_class(&self, method: i64) -> bool {
        self.sym(method).is_some_and(|s| {
            s.kind == SymbolKind::Method
                && match s.ty() {
                    Some(ValueSource::Call(p)) => p == "cls",
                    Some(ValueSource::SelfOf(_)) => true,
                    Some(ValueSource::Annotation(a)) => matches!(a.as_str(), "Self" | "typing.Self" | "typing_extensions.Self"),
                    _ => false,
                }
        })
    }

    /// The class of a value declared with a type (a property or attribute annotated with a
    /// class or an interface of the repository).
    fn declared_instance(&self, id: i64, depth: usize) -> Option<i64> {
        let sym = self.sym(id).filter(|s| s.kind.is_value() && matches!(s.ty(), Some(ValueSource::Annotation(_))))?;
        match self.value_of(sym, depth + 1)? {
            (Target::Instance(class), _) => Some(class),
            _ => None,
        }
    }

    /// Records the first class, enum or namespace a path goes into.
    pub(super) fn note_container(&self, t: &Target, evidence: &'static str, index: usize) {
        if let Target::Sym(id) = *t {
            let container = self.sym(id).is_some_and(|s| matches!(s.kind, SymbolKind::Class | SymbolKind::Enum | SymbolKind::Namespace));
            if container && evidence != UNRESOLVED && CONTAINER.with(|c| c.get().is_none()) {
                CONTAINER.with(|c| c.set(Some((id, evidence, index))));
            }
        }
    }

    /// Records a value symbol the current reference's path passes through.
    pub(super) fn note_value(&self, t: &Target, evidence: &'static str) {
        if let Target::Sym(id) = *t
            && evidence != UNRESOLVED
            && self.sym(id).is_some_and(|s| s.kind.is_value())
        {
            VALUES.with(|v| v.borrow_mut().push((id, evidence)));
        }
    }

    /// Walks the members named by the rest of a path from a target.
    pub(super) fn walk<'p>(
        &self,
        mut target: Target,
        mut evidence: &'static str,
        segments: impl Iterator<Item = &'p str>,
        depth: usize,
    ) -> Option<(Target, &'static str)> {
        let mut segments = segments.enumerate().peekable();
        while let Some((i, seg)) = segments.next() {
            if target == Target::Opaque {
                return Some((Target::Opaque, UNRESOLVED));
            }
            let (name, step) = split_segment(seg);
            if depth == 0 {
                // The member right after such a root (`self.m()`, `shape.area()`), or after a
                // value declared with a type (`this.repo.save()` with `private repo: Repo`),
                // which holds an instance of that type or of any subtype.
                let receiver = match target {
                    Target::Instance(c) if i == 0 && UPPER_BOUND.with(|b| b.get()) => Some(c),
                    Target::Sym(id) if i > 0 => self.declared_instance(id, depth),
                    _ => None,
                };
                DISPATCH.with(|d| d.set(receiver));
            }
            let (next, inferred) = match self.member(&target, name, depth) {
                Some(found) => found,
                // `obj.anything` on a class with `__getattr__`: what that method returns; reading
                // it runs the method, like a property's getter.
                None => {
                    if depth == 0 && segments.peek().is_none() {
                        let missed = match target {
                            Target::Instance(c) => Some(Missed::Instance(c)),
                            Target::Super(c) => Some(Missed::Super(c)),
                            Target::Sym(c) if self.sym(c).is_some_and(|s| s.kind.is_class_like()) => Some(Missed::Class(c)),
                            _ => None,
                        };
                        MISSED.with(|m| m.set(missed.map(|m| (m, evidence))));
                    }
                    let Target::Instance(class) = target else { return None };
                    let getattr = self.getattr_fallback(class)?;
                    if depth == 0 {
                        GETTERS.with(|g| g.borrow_mut().push(getattr));
                    }
                    (self.call_result(Target::Sym(getattr), depth + 1).unwrap_or(Target::Opaque), true)
                }
            };
            if inferred && evidence == EXACT {
                evidence = INFERRED;
            }
            if depth == 0 {
                if let Target::Sym(id) = next
                    && self.sym(id).is_some_and(is_getter)
                {
                    GETTERS.with(|g| g.borrow_mut().push(id));
                }
                self.note_value(&next, evidence);
                // (`self.__class__.__name__` reads the instance's class; it is no use of it.)
                if name != "__class__" {
                    self.note_container(&next, evidence, i + 1);
                }
            }
            target = match step {
                Step::Member => next,
                // A method that returns `this` / `self` returns its receiver: an instance of a
                // subclass stays one (`server.on(…).listen()`).
                Step::Call => match (&target, &next) {
                    // `self.opts.get(name).process()` with `opts: Dict[str, Option]`.
                    (Target::Sym(_), _) if let Some(entry) = self.mapping_lookup(&target, name, depth) => entry,
                    (Target::Instance(receiver), Target::Sym(m)) if self.makes_its_receivers_class(*m) => Target::Instance(*receiver),
                    // `Worker.create(…)` with `Base.create` returning `cls(…)`: a `Worker`.
                    (Target::Sym(class), Target::Sym(m))
                        if self.sym(*class).is_some_and(|s| s.kind == SymbolKind::Class) && self.makes_its_receivers_class(*m) =>
                    {
                        Target::Instance(*class)
                    }
                    _ => self.call_result(next, depth)?,
                },
                Step::Param(i) => {
                    evidence = weaker(evidence, INFERRED);
                    self.param_type(next, i, depth)?
                }
            };
        }
        Some((target, evidence))
    }

    /// [`Resolver::walk`] along a path that may go through any entry of a container
    /// ([`ANY_ENTRY`], `handlers[name]`): a target for each entry of a literal container it
    /// reaches, by inference. Nothing when the container is not a known literal.
    pub(super) fn walk_any(&self, target: Target, evidence: &'static str, rest: &str, depth: usize) -> Vec<(Target, &'static str)> {
        let segments = crate::dotted::segments(rest).filter(|s| !s.is_empty());
        if !rest.contains(ANY_ENTRY) {
            return self.walk(target, evidence, segments, depth).filter(|(_, e)| *e != UNRESOLVED).into_iter().collect();
        }
        let segments: Vec<&str> = segments.collect();
        let Some(at) = segments.iter().position(|s| split_segment(s).0 == ANY_ENTRY) else {
            return self.walk(target, evidence, segments.into_iter(), depth).filter(|(_, e)| *e != UNRESOLVED).into_iter().collect();
        };
        let Some((container, e)) = self.walk(target, evidence, segments[..at].iter().copied(), depth).filter(|(_, e)| *e != UNRESOLVED)
        else {
            return Vec::new();
        };
        // The entries: a literal's, or the functions an object literal defines
        // (`{ brackets: function (p) {…} }`).
        let mut entries: Vec<(Target, &'static str)> = match self.through_values(container.clone(), depth + 1) {
            Target::Items(file, src, items) => items.iter().map(|(_, v)| self.value_target(file, src, v, depth + 1)).collect(),
            _ => Vec::new(),
        };
        if let Target::Sym(id) = container {
            entries.extend(self.function_members(id).iter().map(|&m| (Target::Sym(m), INFERRED)));
            // Of a value declared a container of a class, any entry is an instance of it.
            if let Some(entry) = self.sym(id).filter(|s| s.kind.is_value()).and_then(|s| self.declared_entry(s, depth + 1)) {
                entries.push((entry, INFERRED));
            }
        }
        let called = split_segment(segments[at]).1 == Step::Call;
        let after = segments[at + 1..].join(".");
        let mut out = Vec::new();
        for (t, ve) in entries {
            if ve == UNRESOLVED {
                continue;
            }
            let t = if called {
                match self.call_result(t, depth + 1) {
                    Some(t) => t,
                    None => continue,
                }
            } else {
                t
            };
            out.extend(self.walk_any(t, weaker(weaker(e, ve), INFERRED), &after, depth + 1));
        }
        out
    }

    /// A member of a target; the flag says the step was by inference (an instance member).
    pub(super) fn member(&self, target: &Target, name: &str, depth: usize) -> Option<(Target, bool)> {
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
                    if let Some(s) = self.member_of(sym, name) {
                        return Some((Target::Sym(s.id), false));
                    }
                    // An entry of a value declared a container of a class (`self.items[0]`,
                    // `this.byName[k]`).
                    if name.starts_with('[')
                        && let Some(entry) = self.declared_entry(sym, depth + 1)
                    {
                        return Some((entry, true));
                    }
                    let (t, _) = self.value_of(sym, depth + 1)?;
                    return self.member(&t, name, depth + 1).map(|(t, _)| (t, true));
                }
                if is_getter(sym) && sym.ty().is_some() {
                    // A property getter's value: its return type.
                    let t = self.type_of(sym, depth + 1)?;
                    return self.member(&t, name, depth + 1).map(|(t, _)| (t, true));
                }
                self.member_of(sym, name).map(|s| (Target::Sym(s.id), false))
            }
            // `obj.__class__` (and `type(obj)`, written so): the instance's class, unless the
            // class defines the name itself (a proxy's `__class__` property).
            Target::Instance(id) => match self.class_member(*id, name, false) {
                Some((m, _)) => Some((Target::Sym(m), true)),
                None if name == "__class__" => Some((Target::Sym(*id), true)),
                None => None,
            },
            Target::Super(id) => self.class_member(*id, name, true).map(|(m, _)| (Target::Sym(m), true)),
            Target::Items(file, src, items) => {
                // `d["k"]` / `xs[0]`; in TS/JS also `obj.k` of an object literal.
                let key = match name.strip_prefix('[').and_then(|k| k.strip_suffix(']')) {
                    Some(key) => key,
                    None if self.file_lang(*file).is_script() => name,
                    None => return None,
                };
                let (_, value) = items.iter().find(|(k, _)| k == key)?;
                let (t, e) = self.value_target(*file, *src, value, 1);
                (e != UNRESOLVED).then_some((t, true))
            }
            Target::Module(f) => self.module_member(*f, name, 0).map(|t| (t, false)),
            Target::Package(p) => self.package_member(p, name).map(|t| (t, false)),
            Target::External(_) if name == ANY_ENTRY => None,
            // An entry of a builtin (`line[0]` with `line: str`, `items[0]` with `items: Item[]`
            // reached through a field): not a member of it.
            Target::External(e) if e.starts_with("<builtin>.") && name.starts_with('[') => None,
            Target::External(e) => Some((Target::External(format!("{e}.{name}")), false)),
            Target::Opaque => None,
        }
    }
}
