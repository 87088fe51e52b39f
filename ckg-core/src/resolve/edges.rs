//! The edges of one file: its imports and exports, then each reference site resolved to an
//! edge with its evidence (loop variables over literal containers, `try`/`except` import
//! alternatives, monkey-patching, property getters, values passed through, enums), and
//! parameter flow from call sites to what they pass.

use std::collections::HashSet;

use super::classes::is_getter;
use super::modules::ModuleTarget;
use super::{
    CONTAINER, DISPATCH, EXACT, GETTERS, HEURISTIC, INFERRED, MISSED, Missed, Resolver, Target, UNRESOLVED, UPPER_BOUND, VALUES, weaker,
};
use crate::facts::{ANY_ENTRY, ImportKind, LocalBinding, ParamUse, RefKind, SymbolKind, ValueSource};
use crate::store::SymbolRow;
use crate::store::{Dst, EdgeRow, RefSite};

/// How many calls a parameter is followed through when it is passed on.
const MAX_FORWARDS: usize = 4;

/// An edge at a reference site.
fn site_edge(r: &RefSite, kind: &'static str, src: i64, dst: Dst, evidence: &'static str, dynamic: u8) -> EdgeRow {
    EdgeRow { kind, src, dst, file: r.file, line: r.line, col: r.col, evidence, dynamic, remote_src: false }
}

impl<'a> Resolver<'a> {
    pub(super) fn dst_of(&self, t: &Target) -> Option<Dst> {
        match t {
            Target::Sym(id) | Target::Instance(id) => Some(Dst::Symbol(*id)),
            Target::Module(f) => self.module_sym.get(f).map(|&id| Dst::Symbol(id)),
            Target::Package(p) => Some(Dst::Unresolved(p.clone())),
            Target::Super(_) | Target::Items(..) => None,
            Target::External(e) => Some(Dst::External(e.clone())),
            Target::Opaque => None,
        }
    }

    /// The edges of one file, by site (line, column).
    pub fn file_edges(&self, file: i64, refs: &[RefSite]) -> Vec<EdgeRow> {
        let lang = self.file_lang(file);
        let imports = self.imports.get(&file);
        // About one edge a site (django: 356k edges of 348k sites); grown from empty, the list
        // was copied as it grew (`realloc`, ~0.3 % of django's full index in perf).
        let mut out = Vec::with_capacity(refs.len() + imports.map_or(0, |i| i.len()));
        // Imports: module -> module or external package.
        if let (Some(imports), Some(&module_sym)) = (imports, self.module_sym.get(&file)) {
            for imp in imports {
                let named = matches!(imp.kind, ImportKind::Named | ImportKind::Default) && imp.local.is_some();
                let target = if named { self.import_target(imp, 0) } else { None };
                // Python's `from pkg import sub` (`from . import views`) imports the submodule
                // `pkg.sub` as well as the package (whose `__init__.py` runs first).
                let submodule = match &target {
                    Some(Target::Module(f)) if !lang.is_script() => self.module_sym.get(f).map(|&id| Dst::Symbol(id)),
                    _ => None,
                };
                let module = match self.modules.resolve(file, lang, &imp.specifier) {
                    ModuleTarget::File(f) => self.module_sym.get(&f).map(|&id| Dst::Symbol(id)),
                    ModuleTarget::Package(p) => Some(Dst::Unresolved(p)),
                    ModuleTarget::External(e) => Some(Dst::External(e)),
                    ModuleTarget::Missing => Some(Dst::Unresolved(imp.specifier.clone())),
                };
                if submodule.is_none() && module.is_none() {
                    continue;
                }
                // A module importing itself (a package's `__init__.py` importing its own
                // submodules) depends on nothing by it.
                for dst in [module, submodule].into_iter().flatten().filter(|d| *d != Dst::Symbol(module_sym)) {
                    let evidence = if matches!(dst, Dst::Unresolved(_)) { UNRESOLVED } else { EXACT };
                    out.push(EdgeRow {
                        kind: "imports",
                        src: module_sym,
                        dst,
                        file,
                        line: imp.line,
                        col: imp.col,
                        evidence,
                        dynamic: 0,
                        remote_src: false,
                    });
                }
                // The imported name: an edge to the definition it names (re-exports followed),
                // from the scope that imports it. (`export { a } from` binds nothing: it is an
                // exports edge.)
                if let Some(Target::Sym(id)) = target
                    && self.sym(id).is_some_and(|s| s.kind != SymbolKind::Module)
                {
                    let edge = EdgeRow {
                        kind: "imports",
                        src: imp.scope,
                        dst: Dst::Symbol(id),
                        file,
                        line: imp.line,
                        col: imp.col,
                        evidence: EXACT,
                        dynamic: 0,
                        remote_src: false,
                    };
                    out.push(edge);
                }
            }
        }
        // Exports and re-exports: module -> the definition it makes visible.
        if let (Some(exports), Some(&module_sym)) = (self.exports.get(&file), self.module_sym.get(&file))
            && lang.is_script()
        {
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
                out.push(EdgeRow {
                    kind: "exports",
                    src: module_sym,
                    dst,
                    file,
                    line: e.line,
                    col: e.col,
                    evidence,
                    dynamic: 0,
                    remote_src: false,
                });
            }
        }
        // Names bound by `try: import … / except ImportError: …` branches, once per file.
        let alternative_names: HashSet<&str> = match self.imports.get(&file) {
            Some(imports) if !lang.is_script() => imports.iter().filter(|i| i.alternative).filter_map(|i| i.local.as_deref()).collect(),
            _ => HashSet::new(),
        };
        // Room for a distinct path for every other site: grown step by step from empty, the
        // map's tables were ~10 % of django's page faults.
        let mut paths = SitePaths::with_capacity_and_hasher(refs.len() / 2, Default::default());
        for r in refs {
            if r.path.is_empty() {
                if matches!(
                    r.kind,
                    RefKind::Argument
                        | RefKind::Read
                        | RefKind::Member
                        | RefKind::Type
                        | RefKind::Iter
                        | RefKind::AsyncIter
                        | RefKind::Await
                ) {
                    continue; // a computed value passed along (`f(rows[0].id)`) is data, not a call
                }
                // A dynamic site (`obj[name]()`): a completeness gap, kept with its text.
                let dynamic = if r.computed { 2 } else { 1 };
                out.push(site_edge(r, edge_kind(r.kind, None), r.src, Dst::Unresolved(r.text.clone()), UNRESOLVED, dynamic));
                continue;
            }
            // `handlers[name]()`: each entry of a literal container, else a dynamic site.
            if r.computed && r.path.contains(ANY_ENTRY) {
                if !self.any_entry_edges(&mut out, file, r) {
                    out.push(site_edge(r, edge_kind(r.kind, None), r.src, Dst::Unresolved(r.text.clone()), UNRESOLVED, 2));
                }
                continue;
            }
            // `this` / `self` alone; but `cls(...)` instantiates, a TS/JS `super(...)` runs
            // the base class's constructor, and `with self:` / `for x in self:` run the
            // instance's `__enter__` / `__iter__`.
            let runs_something = match r.kind {
                RefKind::Call => matches!(r.path.as_str(), "cls" | "super"),
                RefKind::With | RefKind::AsyncWith | RefKind::Iter | RefKind::AsyncIter => r.path == "self",
                _ => false,
            };
            if matches!(r.binding, LocalBinding::SelfOf(_) | LocalBinding::SuperOf(_)) && !r.path.contains('.') && !runs_something {
                continue;
            }
            if r.kind == RefKind::Operator {
                self.operator_edges(&mut out, &mut paths, file, r);
                continue;
            }
            // A loop variable over a literal container: one edge per element.
            let each = match &r.binding {
                LocalBinding::Var(Some(ValueSource::Each(inner))) => Some(inner.as_ref()),
                // A loop at module level: the loop variable is a module value (also one assigned
                // several values).
                LocalBinding::Free => {
                    let root = crate::dotted::root(&r.path);
                    let sep = if lang.is_script() { '#' } else { '.' };
                    let value = self.module_qname(file).and_then(|m| self.joined_qname(m, sep, root));
                    match value.filter(|s| s.kind.is_value()).and_then(|s| s.ty()) {
                        Some(ValueSource::Each(inner)) => Some(inner.as_ref()),
                        _ => None,
                    }
                }
                _ => None,
            };
            if let Some(inner) = each {
                // Over what a function returns or an attribute holds, declared as a container
                // (`-> List[Param]`, `self.params: list[Param]`): an element is an instance.
                if let Some(element) = self.element_of(file, r.src, inner) {
                    let rest = crate::dotted::segments(&r.path).skip(1);
                    UPPER_BOUND.with(|b| b.set(true));
                    DISPATCH.with(|d| d.set(None));
                    // (Calling an element itself, `c(s)` with `c: Check`, calls no class.) A
                    // member the element's class does not have (`item.id.equals()` through a
                    // getter of unknown type) is resolved below as at any other site.
                    match self.walk(element.clone(), INFERRED, rest, 0) {
                        // `with x:` / `for y in x:` over an element: its class's protocol.
                        Some((t, e)) if e != UNRESOLVED && r.kind.runs_protocol() => {
                            if let Some(class) = self.instance_class(Some((t, e))) {
                                self.push_protocol_edges(&mut out, r, class);
                            }
                            continue;
                        }
                        Some((Target::Instance(_), e)) if e != UNRESOLVED => continue,
                        Some((t, e)) if e != UNRESOLVED => {
                            self.push_call_edges(&mut out, r, &t, e);
                            continue;
                        }
                        _ => {}
                    }
                } else if let (Target::Items(f, s, items), _) = self.value_target(file, r.src, inner, 1) {
                    let before = out.len();
                    let mut classes = HashSet::new();
                    for (_, value) in &items {
                        let (t, e) = self.value_target(f, s, value, 1);
                        if e == UNRESOLVED {
                            continue;
                        }
                        let rest = crate::dotted::segments(&r.path).skip(1);
                        let Some((t, e)) = self.walk(t, e, rest, 1).filter(|(_, e)| *e != UNRESOLVED) else { continue };
                        if r.kind.runs_protocol() {
                            // `with ctx:` where `ctx` is one of several values: the protocol of
                            // each one's class (once each).
                            if let Some(class) = self.instance_class(Some((t, e)))
                                && classes.insert(class)
                            {
                                self.push_protocol_edges(&mut out, r, class);
                            }
                        } else {
                            let evidence = if e == EXACT { INFERRED } else { e };
                            self.push_edge(&mut out, r, r.kind, r.src, &t, evidence);
                        }
                    }
                    // No element has the member: resolved below as at any other site.
                    if out.len() > before {
                        continue;
                    }
                }
            }
            // A name bound by either branch of `try: import … / except ImportError: …`:
            // an edge for each binding that may be live.
            let root = crate::dotted::root(&r.path);
            if alternative_names.contains(root)
                && r.binding == LocalBinding::Free
                && matches!(r.kind, RefKind::Call | RefKind::Decorator | RefKind::Inherits)
            {
                let alternatives = self.alternatives(file, root);
                if alternatives.len() > 1 {
                    for t in alternatives {
                        if let Some((t, e)) =
                            self.walk(t, INFERRED, crate::dotted::segments(&r.path).skip(1), 1).filter(|(_, e)| *e != UNRESOLVED)
                            && t != Target::Opaque
                        {
                            self.push_edge(&mut out, r, r.kind, r.src, &t, e);
                            self.param_flow(&mut out, file, r, &t);
                        }
                    }
                    continue;
                }
            }
            reset_path_notes();
            if r.kind.runs_protocol() {
                // `with ctx:` runs `ctx.__enter__()` and `ctx.__exit__(...)`; `for x in xs:`
                // runs `xs.__iter__()`, then `__next__` of the iterator that returns.
                let resolved = self.path_target(file, r.src, &r.path, &r.binding, 0);
                if let Some(class) = self.instance_class(resolved) {
                    self.push_protocol_edges(&mut out, r, class);
                }
                continue;
            }
            if r.kind == RefKind::Key {
                // Only the member the key names: the keys around it have their own sites. A
                // key defining a method names the member it implements, never itself (an
                // object assigned to an undeclared member, `U.bin = { read() {…} }`).
                let resolved = self.path_target(file, r.src, &r.path, &r.binding, 0);
                reset_path_notes();
                if let Some((Target::Sym(id), e)) = resolved
                    && e != UNRESOLVED
                    && id != r.src
                    && self.sym(id).is_some_and(|s| s.parent.is_some() && s.kind != SymbolKind::Module)
                {
                    out.push(site_edge(r, "references", r.src, Dst::Symbol(id), e, 0));
                }
                continue;
            }
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
            // `f.call(…)`, `f.apply(…)`, `f.bind(…)()`: a call of `f` itself; `f.bind(…)` alone
            // uses `f`.
            if lang.is_script() && r.kind == RefKind::Call {
                let stripped = [(".call", "calls"), (".apply", "calls"), (".bind()", "calls"), (".bind", "references")]
                    .into_iter()
                    .find_map(|(suffix, kind)| r.path.strip_suffix(suffix).map(|base| (base, kind)));
                if let Some((base, kind)) = stripped {
                    let target = self.path_target(file, r.src, base, &r.binding, 0).filter(|(_, e)| *e != UNRESOLVED);
                    // `EventEmitter.call(this)` with `EventEmitter = require('events')`,
                    // `Object.prototype.hasOwnProperty.call(o, k)`: that function itself (not a
                    // member `call` of it). Not a builtin class's instance (`f: Function`,
                    // `f.apply(…)`), which names no function.
                    if let Some((Target::External(x), e)) = &target
                        && !x.contains("()")
                        && (!x.starts_with("<builtin>.") || x.contains(".prototype."))
                    {
                        out.push(site_edge(r, kind, r.src, Dst::External(x.clone()), e, 0));
                        continue;
                    }
                    if let Some((Target::Sym(f), e)) = target {
                        if self.push_function_edge(&mut out, r, kind, f, weaker(e, INFERRED)) {
                            continue;
                        }
                        // `Base.call(this, …)` in a constructor function: the base's body runs
                        // (unless the class has a member of that name: `static call()`).
                        let member = r.path[base.len()..].trim_start_matches('.').trim_end_matches("()");
                        if kind == "calls"
                            && self.sym(f).is_some_and(|s| s.kind == SymbolKind::Class)
                            && self.class_member(f, member, false).is_none()
                        {
                            out.push(site_edge(r, "calls", r.src, Dst::Symbol(f), weaker(e, INFERRED), 0));
                            continue;
                        }
                    }
                    reset_path_notes();
                }
            }
            let mut resolved = self.site_path_target(&mut paths, file, r);
            if r.kind == RefKind::Call && resolved.as_ref().is_none_or(|(_, e)| *e == UNRESOLVED) {
                resolved = self.undefined_method(r).or(resolved);
            }
            let values = VALUES.with(|v| std::mem::take(&mut *v.borrow_mut()));
            self.container_edge(&mut out, r);
            // Reading a property runs its getter: a call edge at the site.
            let getters = GETTERS.with(|g| std::mem::take(&mut *g.borrow_mut()));
            for &getter in &getters {
                let evidence = resolved.as_ref().map(|(_, e)| *e).filter(|e| *e != UNRESOLVED).unwrap_or(INFERRED);
                out.push(site_edge(r, "calls", r.src, Dst::Symbol(getter), evidence, 0));
            }
            // A property or class attribute read last on an instance whose class is an upper
            // bound (`self.name`, `p.arity` with `p: ParamType`) may run the getter of a
            // subclass that overrides it.
            if let (RefKind::Read, Some((Target::Sym(id), _))) = (r.kind, &resolved)
                && (getters.last() == Some(id) || self.sym(*id).is_some_and(|s| s.kind == SymbolKind::Attribute))
            {
                self.push_overrides(&mut out, r, DISPATCH.with(|d| d.get()), *id, |o| self.sym(o).is_some_and(is_getter));
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
                // impact must see it. (A member of a call's result, `path.join(a).length`, is
                // data; so is a builtin such as `__name__`.)
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
                if let Some((Target::Sym(id), evidence)) = resolved
                    && evidence != UNRESOLVED
                    && self.sym(id).is_some_and(|s| s.kind == SymbolKind::Enum)
                {
                    out.push(site_edge(r, "references", r.src, Dst::Symbol(id), evidence, 0));
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
                // A local holding a member's value (`const { status } = outcome`), passed along:
                // data flow too (a function it holds is a callback, and stays an edge).
                Some((Target::Sym(id), _))
                    if value_use
                        && matches!(r.binding, LocalBinding::Var(Some(_)))
                        && !r.path.contains('.')
                        && self.sym(id).is_some_and(|s| !s.kind.is_callable() && !s.kind.is_class_like()) => {}
                // Calling an instance (`self.type(value)` with `type: ParamType`, `handler()` with
                // `handler = Handler()`) runs its class's `__call__`, not the class; without one
                // the callee is not known.
                Some((Target::Instance(class), evidence)) if r.kind == RefKind::Call && evidence != UNRESOLVED => {
                    match self.class_member(class, "__call__", false) {
                        Some((call, _)) => out.push(site_edge(r, "calls", r.src, Dst::Symbol(call), weaker(evidence, INFERRED), 0)),
                        None => out.push(site_edge(r, "calls", r.src, Dst::Unresolved(r.path.clone()), UNRESOLVED, 0)),
                    }
                }
                // A module is not called, instantiated or extended: what its exports hold is
                // (`module.exports = fn`); when that is not known, the site is unresolved, not
                // an edge to the module.
                Some((Target::Module(_), _)) if matches!(r.kind, RefKind::Call | RefKind::New | RefKind::Inherits) => {
                    out.push(site_edge(r, edge_kind(r.kind, None), r.src, Dst::Unresolved(r.path.clone()), UNRESOLVED, 0));
                }
                Some((target, evidence)) if evidence != UNRESOLVED && target != Target::Opaque => {
                    self.push_call_edges(&mut out, r, &target, evidence);
                    if !r.args.is_empty() {
                        self.param_flow(&mut out, file, r, &target);
                        self.callback_flow(&mut out, file, r, &target);
                        self.protocol_flow(&mut out, file, r, &target);
                        self.handed_over(&mut out, r, &target);
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
        // By site, as the file's edges are stored (one ascending range of ids); the same edge
        // found twice is kept once.
        out.sort_unstable_by(|a, b| (a.line, a.col).cmp(&(b.line, b.col)).then_with(|| a.cmp(b)));
        out.dedup();
        out
    }

    /// The edges of a site whose path goes through any entry of a container
    /// (`handlers[name]()`): one for each entry of the literal container it reaches, inferred.
    /// Whether there were any.
    fn any_entry_edges(&self, out: &mut Vec<EdgeRow>, file: i64, r: &RefSite) -> bool {
        let at = r.path.find(ANY_ENTRY).unwrap_or(0);
        let (prefix, rest) = (r.path[..at].trim_end_matches('.'), &r.path[at..]);
        reset_path_notes();
        // `items[i].run()` with `items: Item[]`, `d[k].run()` with `d: Dict[str, Item]`: an
        // instance of the element type (`path_target` reads the entry of a name declared a
        // container of a class).
        if !prefix.contains('.') && matches!(&r.binding, LocalBinding::Var(Some(v)) if v.declared_entry().is_some()) {
            let resolved = self.path_target(file, r.src, &r.path, &r.binding, 0).filter(|(_, e)| *e != UNRESOLVED);
            reset_path_notes();
            if let Some((t, e)) = resolved
                && self.dst_of(&t).is_some()
            {
                self.push_edge(out, r, r.kind, r.src, &t, e);
                return true;
            }
        }
        let root = match prefix {
            "" => None,
            p => self.path_target(file, r.src, p, &r.binding, 0).filter(|(_, e)| *e != UNRESOLVED),
        };
        reset_path_notes();
        let Some((container, e)) = root else { return false };
        let targets = self.walk_any(container, e, rest, 1);
        for (t, e) in &targets {
            if self.dst_of(t).is_some() {
                self.push_edge(out, r, r.kind, r.src, t, e);
                self.param_flow(out, file, r, t);
            }
        }
        !targets.is_empty()
    }

    /// A function handed to a builtin or standard-library function that calls it
    /// (`map(f, xs)`, `sorted(xs, key=f)`, `Thread(target=f)`, `atexit.register(f)`,
    /// `functools.partial(f, 1)`): an `inferred` call of it from the site's code.
    fn callback_flow(&self, out: &mut Vec<EdgeRow>, file: i64, r: &RefSite, callee: &Target) {
        let Target::External(name) = callee else { return };
        for (key, value) in &r.args {
            if !super::builtins::calls_argument(name, key) {
                continue;
            }
            if let (Target::Sym(id), e) = self.value_target(file, r.src, value, 1)
                && e != UNRESOLVED
            {
                self.push_function_edge(out, r, "calls", id, INFERRED);
            }
        }
    }

    /// The method an operator runs on its operand (`a + b`: `a.__add__`, the site's path):
    /// when the operand is an instance of a class of the repository that has it, an
    /// `inferred` call, and, on an upper bound (`self`, an annotated name), the overrides of
    /// its subclasses. An operand that is a class (`self.__class__ == other.__class__`,
    /// `Registry[int]`) runs its metaclass's method, not the class's own.
    fn operator_edges<'r>(&self, out: &mut Vec<EdgeRow>, paths: &mut SitePaths<'r>, file: i64, r: &'r RefSite) {
        let Some((operand, method)) = r.path.rsplit_once('.') else { return };
        reset_path_notes();
        let instance = self.kept_path_target(paths, file, r, operand);
        // `self` or an annotated name holds an instance of its class or of a subclass.
        let upper_bound = UPPER_BOUND.with(|b| b.get()) && !operand.contains('.');
        reset_path_notes();
        let Some((Target::Instance(class), e)) = instance else { return };
        if e == UNRESOLVED {
            return;
        }
        if let Some(m) = self.special_method(class, method) {
            out.push(site_edge(r, "calls", r.src, Dst::Symbol(m), INFERRED, 0));
            self.push_overrides(out, r, upper_bound.then_some(class), m, |_| true);
        }
    }

    /// `inferred` calls, at the site, of the overrides of `method` in the subclasses of
    /// `class` (the receiver's upper bound, when there is one) that `keep` keeps.
    fn push_overrides(&self, out: &mut Vec<EdgeRow>, r: &RefSite, class: Option<i64>, method: i64, keep: impl Fn(i64) -> bool) {
        let Some(class) = class else { return };
        for o in self.overrides(class, crate::store::last_name(&r.path), method) {
            if keep(o) {
                out.push(site_edge(r, "calls", r.src, Dst::Symbol(o), INFERRED, 0));
            }
        }
    }

    /// A Python builtin that runs a method of its argument (`len(x)` runs `x.__len__`,
    /// `str(x)` `x.__str__`): an `inferred` call of it when the argument is an instance of a
    /// class of the repository that has one.
    fn protocol_flow(&self, out: &mut Vec<EdgeRow>, file: i64, r: &RefSite, callee: &Target) {
        let Target::External(name) = callee else { return };
        let Some(method) = name.strip_prefix("<builtin>.").and_then(super::builtins::protocol_method) else { return };
        // One argument: `iter(f, sentinel)` calls `f`, `next(it, default)` is still `__next__`.
        let Some((_, value)) = r.args.iter().find(|(k, _)| k == "0") else { return };
        if method == "__iter__" && r.args.iter().any(|(k, _)| k == "1") {
            return;
        }
        let class = match self.value_target(file, r.src, value, 1) {
            (Target::Instance(c), e) if e != UNRESOLVED => c,
            _ => return,
        };
        if let Some(m) = self.special_method(class, method) {
            out.push(site_edge(r, "calls", r.src, Dst::Symbol(m), INFERRED, 0));
        }
    }

    /// The method a class runs for a special name (`__len__`, `__add__`): its own or an
    /// inherited one, or the method a class attribute names (`__str__ = __repr__`); not an
    /// attribute that holds anything else (`__hash__ = None`).
    fn special_method(&self, class: i64, name: &str) -> Option<i64> {
        let (m, _) = self.class_member(class, name, false)?;
        let sym = self.sym(m)?;
        if sym.kind == SymbolKind::Method {
            return Some(m);
        }
        // A name of the class body (`__str__ = __repr__`): a member of the class that defines it.
        let Some(ValueSource::Alias(other)) = sym.ty().filter(|_| sym.kind == SymbolKind::Attribute) else { return None };
        if other.contains('.') {
            return None;
        }
        let (f, _) = self.class_member(sym.parent?, other, false)?;
        self.sym(f).is_some_and(|s| s.kind == SymbolKind::Method).then_some(f)
    }

    /// A TS/JS function handed to a call that calls it back (`xs.map(f)`, `setTimeout(f)`,
    /// `p.then(f)`): besides the reference, an `inferred` call of it from the site's code.
    fn handed_over(&self, out: &mut Vec<EdgeRow>, r: &RefSite, target: &Target) {
        if r.kind != RefKind::Argument || !r.args.iter().any(|(k, _)| k == crate::facts::CALLBACK_KEY) {
            return;
        }
        if let Target::Sym(id) = *target {
            self.push_function_edge(out, r, "calls", id, INFERRED);
        }
    }

    /// An edge of `kind` from the site to `id` when it is a function, method or lambda;
    /// whether it was one.
    fn push_function_edge(&self, out: &mut Vec<EdgeRow>, r: &RefSite, kind: &'static str, id: i64, evidence: &'static str) -> bool {
        let function = self.sym(id).is_some_and(|s| matches!(s.kind, SymbolKind::Function | SymbolKind::Method | SymbolKind::Lambda));
        if function {
            out.push(site_edge(r, kind, r.src, Dst::Symbol(id), evidence, 0));
        }
        function
    }

    /// The class of the instance a resolved path gives: an instance, or a value holding one.
    fn instance_class(&self, resolved: Option<(Target, &'static str)>) -> Option<i64> {
        match resolved {
            Some((Target::Instance(c), e)) if e != UNRESOLVED => Some(c),
            Some((Target::Sym(id), e)) if e != UNRESOLVED && self.sym(id).is_some_and(|s| s.kind.is_value()) => {
                match self.deref(id, e, 1) {
                    (Target::Instance(c), e) if e != UNRESOLVED => Some(c),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The methods a `with` / `for` / `await` site (`r`) runs on an instance of `class`:
    /// `__enter__` and `__exit__`; `__iter__`, then `__next__` of the iterator that returns;
    /// their `async` forms; `__await__`.
    fn push_protocol_edges(&self, out: &mut Vec<EdgeRow>, r: &RefSite, class: i64) {
        let (first, second, of_returned) = match r.kind {
            RefKind::With => ("__enter__", Some("__exit__"), false),
            RefKind::AsyncWith => ("__aenter__", Some("__aexit__"), false),
            RefKind::Iter => ("__iter__", Some("__next__"), true),
            RefKind::AsyncIter => ("__aiter__", Some("__anext__"), true),
            _ => ("__await__", None, false),
        };
        let first = self.class_member(class, first, false).map(|(m, _)| m);
        // The second is the same class's (`__exit__`), or that of the iterator the first
        // returns (`__next__`).
        let owner = if of_returned {
            match first.and_then(|m| self.sym(m)).and_then(|s| self.type_of(s, 1)) {
                Some(Target::Instance(it)) => Some(it),
                _ => None,
            }
        } else {
            Some(class)
        };
        let second = second.zip(owner).and_then(|(name, owner)| self.class_member(owner, name, false)).map(|(m, _)| m);
        for m in first.into_iter().chain(second) {
            out.push(site_edge(r, "calls", r.src, Dst::Symbol(m), INFERRED, 0));
        }
    }

    /// The edges of a site to its target ([`Resolver::push_edge`]) and, for a call on an
    /// instance whose class is an upper bound, to the overrides of its subclasses.
    fn push_call_edges(&self, out: &mut Vec<EdgeRow>, r: &RefSite, target: &Target, evidence: &'static str) {
        self.push_edge(out, r, r.kind, r.src, target, evidence);
        if let (RefKind::Call, Target::Sym(f)) = (r.kind, target)
            && let Some(wrapper) = self.wrapper(*f)
        {
            out.push(site_edge(r, "calls", r.src, Dst::Symbol(wrapper), INFERRED, 0));
        }
        if let (RefKind::Call, Target::Sym(m)) = (r.kind, target)
            && self.sym(*m).is_some_and(|s| s.kind == SymbolKind::Method)
        {
            self.push_overrides(out, r, DISPATCH.with(|d| d.get()), *m, |_| true);
        }
    }

    /// The wrapper that runs when a decorated function is called: of a decorator of the
    /// repository that returns a function of its own which calls the decorator's parameter
    /// (`def logged(f): def wrapper(): f() … return wrapper`), that function. (A decorator
    /// factory, `@route("/")`, returns the decorator, not a wrapper: it has no such call and
    /// gives nothing.) Decorators are resolved in the decorated function's file. Stacked, the
    /// call reaches the outermost wrapper (the first, from the top, that has one); each wrapper
    /// calls the one below it through its parameter.
    fn wrapper(&self, f: i64) -> Option<i64> {
        let sym = self.sym(f).filter(|s| matches!(s.kind, SymbolKind::Function | SymbolKind::Method))?;
        let file = sym.file?;
        let module = *self.module_sym.get(&file)?;
        sym.decorators().iter().find_map(|d| {
            let Some((Target::Sym(dec), e)) = self.path_target(file, module, d, &LocalBinding::Free, 1) else { return None };
            let decorator = self.sym(dec).filter(|s| e != UNRESOLVED && s.kind == SymbolKind::Function)?;
            let Some(ValueSource::Def(q)) = decorator.ty() else { return None };
            let calls_the_original = decorator.param_uses().iter().any(|u| u.index == Some(0) && u.caller == *q);
            self.qname(q).filter(|w| calls_the_original && matches!(w.kind, SymbolKind::Function) && w.id != f).map(|w| w.id)
        })
    }

    /// A path that goes into a class, enum or namespace to reach a member uses it: a
    /// references edge (`Settings.DEBUG`, `Color.Red`, `Shapes.Circle.radius`), except when it
    /// is the direct receiver of a call or an instantiation (`Cache.shared()`,
    /// `Cache.shared().get(k)`).
    pub(super) fn container_edge(&self, out: &mut Vec<EdgeRow>, r: &RefSite) {
        let Some((id, evidence, index)) = CONTAINER.with(|c| c.take()) else { return };
        let last = crate::dotted::segments(&r.path).count().saturating_sub(1);
        let called_next = crate::dotted::segments(&r.path).nth(index + 1).is_some_and(|s| s.ends_with("()"));
        let receiver = called_next || (runs_target(r.kind) && index + 1 == last);
        if index < last && !receiver && r.kind != RefKind::Member {
            out.push(site_edge(r, "references", r.src, Dst::Symbol(id), evidence, 0));
        }
    }

    /// The edge a reference site gives to a target; for an instantiation also the call of the
    /// class's initializer (Python's `__init__`, a TS/JS `constructor`, or an inherited one),
    /// and for a TS/JS `super(...)` the call of the base class's constructor.
    /// `site_kind` is how the site uses the target (a call, for a parameter called elsewhere).
    pub(super) fn push_edge(
        &self,
        out: &mut Vec<EdgeRow>,
        r: &RefSite,
        site_kind: RefKind,
        src: i64,
        target: &Target,
        evidence: &'static str,
    ) {
        if let Target::Super(class) = *target
            && site_kind == RefKind::Call
            && r.path == "super"
        {
            if let Some((constructor, _)) = self.constructor(class, true) {
                out.push(site_edge(r, "calls", src, Dst::Symbol(constructor), evidence, 0));
            }
            return;
        }
        let Some(dst) = self.dst_of(target) else { return };
        let kind = edge_kind(site_kind, self.target_kind(target));
        out.push(site_edge(r, kind, src, dst, evidence, 0));
        if kind == "instantiates"
            && let Target::Sym(class) = *target
            && let Some((init, inherited)) = self.initializer(class)
        {
            let evidence = if inherited && evidence == EXACT { INFERRED } else { evidence };
            out.push(site_edge(r, "calls", src, Dst::Symbol(init), evidence, 0));
        }
    }

    /// Parameter flow (PyCG-style): a call site of a function that calls one of its parameters
    /// (`def apply(f): f()`) gives an edge from the code making that call to what this site
    /// passes (`apply(double)`: `apply -> double`). The edge's site is this call, where the
    /// value is chosen. A parameter filled from `*args` / `**kwargs` is a completeness gap.
    /// A parameter passed on to another call ([`crate::facts::Forward`]) meets what that
    /// callee does with it, a few calls deep.
    pub(super) fn param_flow(&self, out: &mut Vec<EdgeRow>, file: i64, r: &RefSite, callee: &Target) {
        let Some(func) = self.called_function(callee) else { return };
        for u in func.param_uses() {
            let passed = r
                .args
                .iter()
                .find(|(k, _)| *k == u.name)
                .or_else(|| u.index.and_then(|i| r.args.iter().find(|(k, _)| k.parse::<u32>().ok() == Some(i))));
            let Some(caller) = self.qname(&u.caller) else { continue };
            let Some((_, value)) = passed else {
                if let (None, Some((_, ValueSource::Alias(splat)))) = (&u.via, r.args.iter().find(|(k, _)| k == "*" || k == "**")) {
                    out.push(site_edge(r, "calls", caller.id, Dst::Unresolved(format!("{} <- {splat}", u.name)), UNRESOLVED, 2));
                }
                continue;
            };
            let (t, e) = self.value_target(file, r.src, value, 1);
            if e == UNRESOLVED {
                continue;
            }
            self.meet(out, r, u, caller.id, func.file, t, 1);
        }
    }

    /// The function a call of `callee` runs: itself, or a class's `__init__`.
    fn called_function(&self, callee: &Target) -> Option<&'a SymbolRow> {
        let Target::Sym(id) = *callee else { return None };
        let sym = self.sym(id)?;
        match sym.kind {
            SymbolKind::Function | SymbolKind::Method => Some(sym),
            SymbolKind::Class => self.class_member(id, "__init__", false).and_then(|(init, _)| self.sym(init)),
            _ => None,
        }
    }

    /// A value `t` that a call site passes meets a use `u` of the parameter it fills: a call of
    /// it (through `u.rest`) from `caller`'s code, or, passed on to another call, the uses of
    /// that callee's parameter.
    #[allow(clippy::too_many_arguments)]
    fn meet(&self, out: &mut Vec<EdgeRow>, r: &RefSite, u: &ParamUse, caller: i64, func_file: Option<i64>, t: Target, depth: usize) {
        let Some(fw) = &u.via else {
            let values = match (u.each, t) {
                (false, t) => vec![t],
                (true, Target::Items(f, s, items)) => {
                    items.iter().map(|(_, v)| self.value_target(f, s, v, 1)).filter(|(_, e)| *e != UNRESOLVED).map(|(t, _)| t).collect()
                }
                (true, _) => Vec::new(),
            };
            for (t, _) in values.into_iter().flat_map(|t| self.walk_any(t, INFERRED, &u.rest, 1)) {
                let callable = match &t {
                    Target::Sym(id) => self.sym(*id).is_some_and(|s| s.kind.is_callable()),
                    Target::External(_) => true,
                    _ => false,
                };
                if callable {
                    self.push_edge(out, r, RefKind::Call, caller, &t, INFERRED);
                }
            }
            return;
        };
        let Some(file) = func_file.filter(|_| depth <= MAX_FORWARDS) else { return };
        let Some((callee, e)) = self.path_target(file, caller, &fw.callee, &self.self_binding(caller, &fw.callee), 1) else { return };
        if e == UNRESOLVED {
            return;
        }
        // `map(fn, xs)`, `Thread(target=fn)`: called by this code.
        if let Target::External(name) = &callee {
            if super::builtins::calls_argument(name, &fw.key) {
                let direct = ParamUse { via: None, ..u.clone() };
                self.meet(out, r, &direct, caller, func_file, t, depth);
            }
            return;
        }
        let Some(next) = self.called_function(&callee) else { return };
        for v in next.param_uses() {
            if v.name != fw.key && v.index.is_none_or(|i| fw.key.parse::<u32>().ok() != Some(i)) {
                continue;
            }
            if let Some(c) = self.qname(&v.caller) {
                self.meet(out, r, v, c.id, next.file, t.clone(), depth + 1);
            }
        }
    }

    pub(super) fn target_kind(&self, t: &Target) -> Option<SymbolKind> {
        match t {
            Target::Sym(id) => self.sym(*id).map(|s| s.kind),
            _ => None,
        }
    }
}

/// Sites that run what they name: a value symbol there stands for what it holds.
fn runs_target(kind: RefKind) -> bool {
    matches!(kind, RefKind::Call | RefKind::New | RefKind::Decorator | RefKind::Inherits | RefKind::Implements | RefKind::Jsx)
}

/// The paths the sites of one file resolved, with what walking each noted, by (enclosing
/// symbol, path, binding): a file names the same path from one scope many times (django:
/// 356k edges, 114k distinct (file, target, kind)).
type SitePaths<'r> = super::Map<(i64, &'r str, &'r LocalBinding), PathNotes>;

impl Resolver<'_> {
    /// A call site's method that no class of its receiver's hierarchy in the repository
    /// defines. On `self` or an annotated name (an instance of the class or of a subclass): the
    /// methods of that name in its subclasses, a hook the class leaves to them (the first
    /// one, with the receiver's class noted for dispatch, which reaches the others). Else,
    /// where the hierarchy extends one class from outside the repository, that class's method
    /// ([`Resolver::called_from_outside`]): `self.start()` in a `threading.Thread`, on the
    /// class itself, an instance of it or `super()`. Read from where the site's own path
    /// stopped ([`MISSED`]), with no second resolution of its receiver.
    fn undefined_method(&self, r: &RefSite) -> Option<(Target, &'static str)> {
        // Where the site's own path stopped: its last segment, on a class or an instance.
        let (receiver, evidence) = MISSED.with(|m| m.get())?;
        let (_, name) = r.path.rsplit_once('.')?;
        // A name, not an entry (`self[0]`).
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$') {
            return None;
        }
        let class = match receiver {
            // The receiver may be an instance of a subclass: a subclass's hook runs, or the
            // outside base's method when no subclass defines the name; with too many methods of
            // the name to tell, neither is claimed.
            // (The first by qname: ids follow the order the parse stored the files in.)
            Missed::Instance(c) if UPPER_BOUND.with(|b| b.get()) => match self
                .bounded_overrides(c, name, 0)?
                .into_iter()
                .min_by(|a, b| self.sym(*a).map(|s| &s.qname).cmp(&self.sym(*b).map(|s| &s.qname)))
            {
                Some(hook) => {
                    DISPATCH.with(|d| d.set(Some(c)));
                    return Some((Target::Sym(hook), INFERRED));
                }
                None => c,
            },
            Missed::Instance(c) | Missed::Super(c) | Missed::Class(c) => c,
        };
        Some((self.called_from_outside(class, name)?, weaker(evidence, INFERRED)))
    }
}

/// What [`Resolver::path_target`] answered for a site's path and what walking it noted.
struct PathNotes {
    resolved: Option<(Target, &'static str)>,
    values: Vec<(i64, &'static str)>,
    getters: Vec<i64>,
    container: Option<(i64, &'static str, usize)>,
    dispatch: Option<i64>,
    upper_bound: bool,
    missed: Option<(Missed, &'static str)>,
}

impl Resolver<'_> {
    /// [`Resolver::path_target`] of a site's path from its file at depth 0, with the path
    /// notes it leaves (which must be clear: [`reset_path_notes`]), answered once per (enclosing
    /// symbol, path, binding) in a file. The answer depends on nothing else, and the keys its
    /// computation looked up are already recorded for the file.
    fn site_path_target<'r>(&self, paths: &mut SitePaths<'r>, file: i64, r: &'r RefSite) -> Option<(Target, &'static str)> {
        self.kept_path_target(paths, file, r, &r.path)
    }

    /// [`Resolver::site_path_target`] of `path`, the site's path or a prefix of it (an
    /// operator's operand: `a` of `a.__add__`).
    fn kept_path_target<'r>(&self, paths: &mut SitePaths<'r>, file: i64, r: &'r RefSite, path: &'r str) -> Option<(Target, &'static str)> {
        debug_assert!(
            VALUES.with(|v| v.borrow().is_empty())
                && GETTERS.with(|g| g.borrow().is_empty())
                && CONTAINER.with(|c| c.get().is_none())
                && DISPATCH.with(|d| d.get().is_none())
                && MISSED.with(|m| m.get().is_none()),
            "the path notes of the previous site are cleared before a site's path is resolved"
        );
        let key = (r.src, path, &r.binding);
        if let Some(kept) = paths.get(&key) {
            VALUES.with(|v| v.borrow_mut().extend_from_slice(&kept.values));
            GETTERS.with(|g| g.borrow_mut().extend_from_slice(&kept.getters));
            CONTAINER.with(|c| c.set(kept.container));
            DISPATCH.with(|d| d.set(kept.dispatch));
            UPPER_BOUND.with(|b| b.set(kept.upper_bound));
            MISSED.with(|m| m.set(kept.missed));
            return kept.resolved.clone();
        }
        let resolved = self.path_target(file, r.src, path, &r.binding, 0);
        let notes = PathNotes {
            resolved: resolved.clone(),
            values: VALUES.with(|v| v.borrow().clone()),
            getters: GETTERS.with(|g| g.borrow().clone()),
            container: CONTAINER.with(|c| c.get()),
            dispatch: DISPATCH.with(|d| d.get()),
            upper_bound: UPPER_BOUND.with(|b| b.get()),
            missed: MISSED.with(|m| m.get()),
        };
        paths.insert(key, notes);
        resolved
    }
}

/// Forgets what walking the current reference's path noted (getters, values, the first
/// container, the receiver a call may dispatch on).
fn reset_path_notes() {
    GETTERS.with(|g| g.borrow_mut().clear());
    VALUES.with(|v| v.borrow_mut().clear());
    CONTAINER.with(|c| c.set(None));
    DISPATCH.with(|d| d.set(None));
    MISSED.with(|m| m.set(None));
}

/// The edge kind for a reference site and what it resolved to.
fn edge_kind(kind: RefKind, target: Option<SymbolKind>) -> &'static str {
    match kind {
        RefKind::Call if target == Some(SymbolKind::Class) => "instantiates",
        RefKind::Call
        | RefKind::Decorator
        | RefKind::With
        | RefKind::Iter
        | RefKind::AsyncWith
        | RefKind::AsyncIter
        | RefKind::Await
        | RefKind::Operator => "calls",
        RefKind::New => "instantiates",
        RefKind::Argument | RefKind::Jsx | RefKind::Type | RefKind::Member | RefKind::Read | RefKind::Patch | RefKind::Key => "references",
        RefKind::Write => "writes",
        RefKind::Inherits => "inherits",
        RefKind::Implements => "implements",
    }
}
