//! Values and types: what a variable holds from where its value came (a call, `new`, an
//! annotation, an alias, a literal container), what a value symbol holds through chains of
//! aliases, a symbol's declared or obvious type, and what calling a target gives.

use super::{EXACT, INFERRED, MAX_HOPS, Resolver, Target, UNRESOLVED, weaker};
use crate::facts::{LocalBinding, MAPPING_LOOKUPS, SymbolKind, ValueSource};
use crate::store::SymbolRow;

thread_local! {
    /// The value symbols whose values are being resolved on this thread, innermost last (see
    /// [`Resolver::value_of`]).
    static VALUES_BEING_RESOLVED: std::cell::RefCell<Vec<i64>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Resolver<'_> {
    /// What a variable holds, from where its value came.
    pub(super) fn value_target(&self, file: i64, src: i64, value: &ValueSource, depth: usize) -> (Target, &'static str) {
        if depth > 12 {
            return (Target::Opaque, UNRESOLVED);
        }
        // `const bound = obj.m.bind(obj)` (TS/JS): the function itself.
        if let ValueSource::Call(p) = value
            && let Some(base) = p.strip_suffix(".bind")
            && self.file_lang(file).is_script()
        {
            let (t, e) = self.value_target(file, src, &ValueSource::Alias(base.to_string()), depth + 1);
            return (t, if e == EXACT { INFERRED } else { e });
        }
        // `opt = self.opts.get(name)` with `opts: Dict[str, Option]`: an entry (Python only).
        if let ValueSource::Call(p) = value
            && !self.file_lang(file).is_script()
            && let Some((receiver, method)) = p.rsplit_once('.')
            && let Some((r, e)) = MAPPING_LOOKUPS
                .contains(&method)
                .then(|| self.path_target(file, src, receiver, &self.self_binding(src, receiver), depth + 1))
                .flatten()
            && e != UNRESOLVED
            && let Some(entry) = self.mapping_lookup(&r, method, depth)
        {
            return (entry, INFERRED);
        }
        let path = match value {
            ValueSource::Items(items) => return (Target::Items(file, src, items.clone()), INFERRED),
            ValueSource::Each(_) if let Some(array) = self.declared_array(file, value) => return (array, INFERRED),
            // A loop variable stands for many values; file_edges expands it, flows do not.
            ValueSource::Each(_) => return (Target::Opaque, UNRESOLVED),
            // Its entries are read by `member`.
            ValueSource::Mapping(_) => return self.declared_mapping(file).map_or((Target::Opaque, UNRESOLVED), |t| (t, INFERRED)),
            ValueSource::Def(q) => return self.qname(q).map(|s| (Target::Sym(s.id), EXACT)).unwrap_or((Target::Opaque, UNRESOLVED)),
            ValueSource::SelfOf(q) => {
                return self.qname(q).map(|s| (Target::Instance(s.id), INFERRED)).unwrap_or((Target::Opaque, UNRESOLVED));
            }
            ValueSource::Call(p) | ValueSource::New(p) | ValueSource::Annotation(p) | ValueSource::Alias(p) => p,
        };
        let binding = self.self_binding(src, path);
        let Some((target, evidence)) = self.path_target(file, src, path, &binding, depth + 1) else {
            return (Target::Opaque, UNRESOLVED);
        };
        if evidence == UNRESOLVED {
            return (Target::Opaque, UNRESOLVED);
        }
        let flowed = if evidence == EXACT { INFERRED } else { evidence };
        let result = match value {
            // A Python entry of an external value (`base = current_app.config["URL"]`,
            // `m = re.match(…)[1]`) is data of unknown type, not a path into the package.
            ValueSource::Alias(_) if matches!(&target, Target::External(e) if e.contains(".[")) && !self.file_lang(file).is_script() => {
                return (Target::Opaque, UNRESOLVED);
            }
            // An alias holds what the name it copies holds.
            ValueSource::Alias(_) => {
                // A value with members of its own and no value written is that name itself
                // (`const o = proto`, an object literal of methods: `o.greet()`).
                return match target {
                    Target::Sym(id) if self.sym(id).is_some_and(|s| s.kind.is_value() && (s.ty().is_some() || !self.script_object(s))) => {
                        match self.deref(id, evidence, depth + 1) {
                            // A type variable (`T = TypeVar("T")`, `k: Type[T]`) stands for a
                            // class not known here.
                            (Target::External(x), _) if x.ends_with("TypeVar()") => (Target::Opaque, UNRESOLVED),
                            held => held,
                        }
                    }
                    t => (t, evidence),
                };
            }
            // `w = Worker.create(…)` with `Base.create` returning `cls(…)`: a `Worker` (the
            // receiver an instance or the class).
            ValueSource::Call(p)
                if let Target::Sym(m) = target
                    && self.makes_its_receivers_class(m)
                    && let Some((receiver, _)) = p.rsplit_once('.')
                    && let Some((r, e)) = self.path_target(file, src, receiver, &self.self_binding(src, receiver), depth + 1)
                    && e != UNRESOLVED
                    && let Some(made) = match r {
                        Target::Instance(_) => Some(r),
                        Target::Sym(c) if self.sym(c).is_some_and(|s| s.kind == SymbolKind::Class) => Some(Target::Instance(c)),
                        _ => None,
                    } =>
            {
                Some(made)
            }
            ValueSource::Call(_) => self.call_result(target, depth + 1),
            ValueSource::New(_) | ValueSource::Annotation(_) => self.instance_of(target, depth + 1),
            ValueSource::Def(_) | ValueSource::SelfOf(_) | ValueSource::Items(_) | ValueSource::Each(_) | ValueSource::Mapping(_) => {
                unreachable!("handled above")
            }
        };
        match result {
            Some(t) => (t, flowed),
            None => (Target::Opaque, UNRESOLVED),
        }
    }

    /// How the first name of a value's path is bound: `self` / `this` / `cls` in a method
    /// (or a function nested in one) is the instance or the class of the method's class
    /// (`x = self.make()`, `const s = this.store`); any other name is looked up as written.
    pub(super) fn self_binding(&self, src: i64, path: &str) -> LocalBinding {
        if !starts_at_receiver(path) {
            return LocalBinding::Free;
        }
        let mut scope = self.sym(src);
        for _ in 0..MAX_HOPS {
            let Some(s) = scope else { break };
            // Code of the class itself: a field's initialiser, an attribute's value (see
            // `value_of`).
            if s.kind == SymbolKind::Class {
                return LocalBinding::SelfOf(s.qname.clone());
            }
            if s.kind == SymbolKind::Method {
                return match s.parent.and_then(|p| self.sym(p)).filter(|c| c.kind.is_class_like()) {
                    Some(class) => LocalBinding::SelfOf(class.qname.clone()),
                    None => LocalBinding::Free,
                };
            }
            scope = s.parent.and_then(|p| self.sym(p));
        }
        LocalBinding::Free
    }

    /// An element of what a function returns or a value symbol holds when its declared type
    /// is a container (`each:type:Foo`): an instance of `Foo`.
    pub(super) fn element_of(&self, file: i64, src: i64, container: &ValueSource) -> Option<Target> {
        let (ValueSource::Call(p) | ValueSource::Alias(p)) = container else { return None };
        // `for opt in self.opts.values()` with `opts: Dict[str, Option]`: the mapping's entries;
        // else what `values` is declared to return.
        if let (ValueSource::Call(_), Some(mapping)) = (container, p.strip_suffix(".values"))
            && !self.file_lang(file).is_script()
            && let Some(entry) = self.declared_of(file, src, mapping, |ty| matches!(ty, ValueSource::Mapping(_)))
        {
            return Some(entry);
        }
        self.declared_of(file, src, p, |ty| matches!(ty, ValueSource::Each(_)))
    }

    /// An entry of the symbol a path reaches, when its declared type is one `kind` accepts.
    fn declared_of(&self, file: i64, src: i64, path: &str, kind: impl Fn(&ValueSource) -> bool) -> Option<Target> {
        let (t, e) = self.path_target(file, src, path, &self.self_binding(src, path), 1)?;
        let Target::Sym(id) = t else { return None };
        let sym = self.sym(id).filter(|_| e != UNRESOLVED)?;
        let ty = sym.ty().filter(|ty| kind(ty))?;
        self.entry_of(sym, ty, 1)
    }

    /// An entry of a symbol declared a container of a class (`self.items[0]`, `self.by_name[k]`
    /// with `items: List[Item]`, `by_name: Dict[str, Item]`): an instance of the class,
    /// resolved in the symbol's file.
    pub(super) fn declared_entry(&self, sym: &SymbolRow, depth: usize) -> Option<Target> {
        self.entry_of(sym, sym.ty()?, depth)
    }

    fn entry_of(&self, sym: &SymbolRow, container: &ValueSource, depth: usize) -> Option<Target> {
        let Some(ValueSource::Annotation(ty)) = container.declared_entry() else { return None };
        let owner_file = sym.file?;
        let module = *self.module_sym.get(&owner_file)?;
        let (t, e) = self.path_target(owner_file, module, ty, &LocalBinding::Free, depth)?;
        (e != UNRESOLVED).then(|| self.instance_of(t, depth)).flatten()
    }

    /// An instance of what a type or constructor path denotes. `depth` goes on through the
    /// values it looks into: a value can be an instance of itself (`x = new x.y()`), and
    /// starting again at 1 here recursed until the stack overflowed.
    pub(super) fn instance_of(&self, t: Target, depth: usize) -> Option<Target> {
        match self.through_values(t, depth + 1) {
            Target::Sym(id) if self.sym(id).is_some_and(|s| s.kind.is_class_like()) => Some(Target::Instance(id)),
            // A type variable (`E = TypeVar("E")`, `-> E`) stands for a class not known here.
            Target::External(e) if e.ends_with("TypeVar()") => None,
            Target::External(e) => Some(Target::External(e)),
            _ => None,
        }
    }

    /// What a value symbol holds (its last assignment's value, or its declared type),
    /// resolved in its own file.
    ///
    /// A value that reaches itself (`self.a = self.b.x()` and `self.b = self.a.y()`, through
    /// their classes' members) is not resolved again inside its own resolution: there it holds
    /// nothing known. Going round until the depth ran out gave nothing more, in a number of
    /// steps that grew with the branches of each round (django's resolution took twice its
    /// time and memory once attributes written through `self` were followed).
    pub(super) fn value_of(&self, sym: &SymbolRow, depth: usize) -> Option<(Target, &'static str)> {
        if VALUES_BEING_RESOLVED.with(|v| v.borrow().contains(&sym.id)) {
            return None;
        }
        VALUES_BEING_RESOLVED.with(|v| v.borrow_mut().push(sym.id));
        let result = self.value_of_unguarded(sym, depth);
        VALUES_BEING_RESOLVED.with(|v| v.borrow_mut().pop());
        result
    }

    fn value_of_unguarded(&self, sym: &SymbolRow, depth: usize) -> Option<(Target, &'static str)> {
        let value = sym.ty()?;
        let file = sym.file?;
        let module = *self.module_sym.get(&file)?;
        // A namespace member's value is written in the namespace (its names are visible); an
        // attribute's `self.make()`, `cls.client_class()` or `this.build()` in a method of its
        // class, whose instance (or the class) the first name is.
        let of_self = matches!(value, ValueSource::Call(p) | ValueSource::New(p) | ValueSource::Alias(p) if starts_at_receiver(p));
        let scope = sym
            .parent
            .filter(|&p| self.sym(p).is_some_and(|p| p.kind == SymbolKind::Namespace || (of_self && p.kind == SymbolKind::Class)))
            .unwrap_or(module);
        let (t, e) = self.value_target(file, scope, value, depth + 1);
        (e != UNRESOLVED && t != Target::Opaque).then_some((t, e))
    }

    /// The target a call through a value symbol reaches (what the value holds, through
    /// chains of aliases), with the weakest evidence on the way. When the value is not known,
    /// an attribute is itself the callee (a slot set from a parameter: `self.on_click()`); a
    /// module value is unresolved.
    pub(super) fn deref(&self, id: i64, evidence: &'static str, depth: usize) -> (Target, &'static str) {
        let (mut target, mut evidence) = (Target::Sym(id), evidence);
        for _ in 0..MAX_HOPS {
            let Target::Sym(id) = target else { break };
            let Some(sym) = self.sym(id).filter(|s| s.kind.is_value()) else { break };
            let slot = matches!(sym.kind, SymbolKind::Property | SymbolKind::Attribute);
            match self.value_of(sym, depth) {
                // A property typed by a function type (`make?: Make` with `type Make = (x) => y`
                // or `interface Make { (x): y }`): what is called is the property, as for one of
                // unknown value.
                Some((Target::Instance(t), _))
                    if slot
                        && self.sym(t).is_some_and(|s| match s.kind {
                            SymbolKind::Type => true,
                            SymbolKind::Interface => !self.has_members(t),
                            _ => false,
                        }) =>
                {
                    break;
                }
                Some((t, e)) => {
                    target = t;
                    evidence = weaker(evidence, e);
                }
                None if slot => break,
                None => return (Target::Opaque, UNRESOLVED),
            }
        }
        (target, evidence)
    }

    /// A target with value symbols replaced by what they hold (for calls, instantiation and
    /// types: `Conn = Connection; Conn(url)`).
    pub(super) fn through_values(&self, t: Target, depth: usize) -> Target {
        match t {
            Target::Sym(id) if self.sym(id).is_some_and(|s| s.kind.is_value()) => self.deref(id, EXACT, depth).0,
            t => t,
        }
    }

    /// What a symbol's declared or obvious type denotes, resolved in its own file.
    pub(super) fn type_of(&self, sym: &SymbolRow, depth: usize) -> Option<Target> {
        let ty = sym.ty()?;
        let file = sym.file?;
        let module = *self.module_sym.get(&file)?;
        if depth > 8 {
            return None;
        }
        let p = match ty {
            // A returned literal container (`return {"open": on_open}`).
            ValueSource::Items(items) => return Some(Target::Items(file, module, items.clone())),
            ValueSource::Each(_) => return self.declared_array(file, ty),
            ValueSource::Mapping(_) => return self.declared_mapping(file),
            ValueSource::Def(q) => return self.qname(q).map(|s| Target::Sym(s.id)),
            ValueSource::SelfOf(q) => return self.qname(q).map(|s| Target::Instance(s.id)),
            ValueSource::Call(p) | ValueSource::New(p) | ValueSource::Annotation(p) | ValueSource::Alias(p) => p,
        };
        // A method's `return self.make()` / `return type(self)(...)`: `self` is an instance of
        // the method's class.
        let script = self.file_lang(file).is_script();
        let own = match crate::dotted::root(p) {
            "this" => script,
            "self" | "cls" => !script,
            _ => false,
        };
        let binding = if own && sym.kind == SymbolKind::Method { self.self_binding(sym.id, p) } else { LocalBinding::Free };
        let (t, e) = self.path_target(file, module, p, &binding, depth + 1)?;
        if e == UNRESOLVED {
            return None;
        }
        match ty {
            ValueSource::Call(_) => self.call_result(t, depth + 1),
            // A returned function (`return handler`) is that function, not an instance.
            ValueSource::Alias(_) => Some(t),
            _ => self.instance_of(t, depth + 1),
        }
    }

    /// What a TS/JS name declared an array of a class holds (`items: Item[]`, a function
    /// declared to return `Array<Item>`): an array, whose members are the builtin's.
    fn declared_array(&self, file: i64, value: &ValueSource) -> Option<Target> {
        let ValueSource::Each(element) = value else { return None };
        (matches!(element.as_ref(), ValueSource::Annotation(_)) && self.file_lang(file).is_script())
            .then(|| Target::External("<builtin>.Array".to_string()))
    }

    /// What `d.get(k)`, `d.pop(k)` or `d.setdefault(k, v)` gives on a Python value declared a
    /// mapping of a class (`opts: Dict[str, Option]`): an entry, an instance of the class.
    pub(super) fn mapping_lookup(&self, receiver: &Target, method: &str, depth: usize) -> Option<Target> {
        let Target::Sym(id) = receiver else { return None };
        let sym = self.sym(*id).filter(|s| s.kind.is_value() && MAPPING_LOOKUPS.contains(&method))?;
        if !matches!(sym.ty(), Some(ValueSource::Mapping(_))) || self.file_lang(sym.file?).is_script() {
            return None;
        }
        self.declared_entry(sym, depth + 1)
    }

    /// What a name declared a mapping holds (`d: Dict[str, Item]`): in Python a dict, whose
    /// members are the builtin's; in TS/JS an object of unknown members (`Record<string, Item>`).
    fn declared_mapping(&self, file: i64) -> Option<Target> {
        (!self.file_lang(file).is_script()).then(|| Target::External("<builtin>.dict".to_string()))
    }

    /// An instance of the declared type of a function's parameter at `index` (a class's: its
    /// constructor's), resolved in the function's file: what an object literal passed there
    /// or a JSX element's attributes are checked against.
    pub(super) fn param_type(&self, t: Target, index: u32, depth: usize) -> Option<Target> {
        let Target::Sym(id) = self.through_values(t, depth + 1) else { return None };
        let mut sym = self.sym(id)?;
        if sym.kind == SymbolKind::Class {
            sym = self.sym(self.class_member(id, "constructor", false)?.0)?;
        }
        let ty = sym.param_types().get(index as usize).filter(|t| !t.is_empty())?;
        let file = sym.file?;
        let module = *self.module_sym.get(&file)?;
        let (t, e) = self.path_target(file, module, ty, &LocalBinding::Free, depth + 1)?;
        if e == UNRESOLVED {
            return None;
        }
        self.instance_of(t, depth + 1)
    }

    /// What calling a target gives: an instance of a class, a call result of an external.
    pub(super) fn call_result(&self, t: Target, depth: usize) -> Option<Target> {
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
}

/// Whether a path starts at `self`, `this` or `cls` (also called: `self().x`).
fn starts_at_receiver(path: &str) -> bool {
    let root = crate::dotted::root(path);
    matches!(root.strip_suffix("()").unwrap_or(root), "self" | "this" | "cls")
}
