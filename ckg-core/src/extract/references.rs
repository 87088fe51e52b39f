//! References: each reference capture that is worth an edge is attached to the symbol whose
//! code it is in, its path is written out, and its first name is bound in the file's scopes
//! ([`LocalBinding`]); calls through parameters are noted, to be bound at each call site.

use crate::resolve::{Map, Set};

use super::probe::{Probe, probe_use};
use super::scopes::{Local, Locals, bind, lookup_local, lookup_reaching};
use super::syntax::{is_computed, path_of, path_of_any_entry, position, short_text, text};
use super::values::{ArgKey, AttrParams, call_args, passed_arguments};
use super::{File, python, typescript};
use crate::facts::{ANY_ENTRY, CALLBACK_KEY, FileFacts, Forward, LocalBinding, ParamUse, RefFact, RefKind, ValueSource};
use crate::field::{Field, Kind};

impl File<'_, '_> {
    /// The references worth keeping, in capture order; returns the calls made through
    /// parameters (by the function whose parameter it is).
    pub(super) fn references(
        &self,
        locals: &Locals,
        qindex: &Map<String, u32>,
        module_values: &Set<String>,
        attr_params: &AttrParams,
        facts: &mut FileFacts,
        probe: &mut Option<Probe>,
    ) -> Vec<(u32, ParamUse)> {
        let (lang, is_py, src, caps, nesting) = (self.lang, self.is_py, self.src, &self.caps, &self.nesting);
        let (iv, sym_of_interval, def_by_node, name_nodes) =
            (&nesting.intervals, &self.sym_of_interval, &self.def_by_node, &self.name_nodes);
        let mut param_uses: Vec<(u32, ParamUse)> = Vec::new();
        // At most one fact per capture (growing the list was ~1 % of extraction).
        facts.refs.reserve(caps.refs.len());
        let claimed = &caps.claimed;
        // The byte range of each function definition's parameters, by interval, read once (a
        // field lookup for each reference in a function was ~3 % of Python's extraction).
        let mut params_of: Vec<Option<Option<std::ops::Range<usize>>>> = if is_py { vec![None; iv.len()] } else { Vec::new() };
        for ((kind, name_node, role_node), point) in caps.refs.iter().zip(&self.points.refs) {
            let (mut kind, mut name_node, role_node) = (*kind, *name_node, *role_node);
            if matches!(kind, RefKind::With | RefKind::Iter) && is_py && python::is_async(&self.parents, name_node) {
                kind = if kind == RefKind::With { RefKind::AsyncWith } else { RefKind::AsyncIter };
            }
            if matches!(kind, RefKind::With | RefKind::AsyncWith) {
                // `with open(p) as f`: the manager is the pattern's first part.
                if name_node.kind_name() == "as_pattern" {
                    match name_node.named_child(0) {
                        Some(n) => name_node = n,
                        None => continue,
                    }
                }
                if !matches!(name_node.kind_name(), "identifier" | "attribute" | "call") {
                    continue;
                }
            }
            if kind == RefKind::Type
                && (name_nodes.contains(&name_node.id())
                    || claimed.contains(&name_node.id())
                    || caps.type_parents.get(&name_node.id()).is_some_and(|p| {
                        // A class expression's own name (`exports.A = class A {}`) names it.
                        p.kind_name() == "nested_type_identifier"
                            || p.kind_name() == "class"
                            || p.kind_name() == "generic_type" && claimed.contains(&p.id())
                    }))
            {
                continue;
            }
            if kind == RefKind::Jsx
                && name_node.kind_name() == "identifier"
                && text(name_node, src).starts_with(|c: char| c.is_ascii_lowercase())
            {
                continue; // intrinsic elements: <div>
            }
            // A key of an object literal or a destructuring pattern, a JSX attribute: a use of
            // the member of the type it is checked against, when the file can name that type.
            // A key that defines a method of the literal (`login: () => …` in a literal typed
            // `AuthProvider`) is both: that definition, and a use of the member it implements.
            let key_path = match kind {
                RefKind::Key => match typescript::key_path(&self.parents, name_node, src) {
                    Some(p) => Some(p),
                    None => continue,
                },
                _ => None,
            };
            if kind == RefKind::Read && name_nodes.contains(&name_node.id()) {
                // Only outermost reads that are not calls, assignment targets, decorators, binding
                // sites or sites another reference already names (the others were dropped with
                // the captures), nor a definition's name.
                continue;
            }
            if kind == RefKind::Member {
                // Only capitalised objects can be enums; a member access that is called is a call.
                // (The parent lookups only for capitalised objects: most objects are not, and
                // two lookups for each were ~5 % of effect's full index.)
                let capital = text(name_node, src).starts_with(|c: char| c.is_ascii_uppercase());
                if !capital
                    || self.parents.of(name_node).and_then(|m| self.parents.of(m)).is_some_and(|c| c.kind_name() == "call_expression")
                {
                    continue;
                }
            }
            if kind == RefKind::Call && matches!(name_node.kind_name(), "import") {
                continue; // `import('x')` is an import, not a call
            }
            let mut src_sym = self.sym_at(point.2);
            // The innermost interval names are looked up from.
            let mut inner = point.2;
            // Python default values run when the function is defined, in the enclosing scope.
            if is_py && let Some(i) = nesting.def_of(inner) {
                let params = params_of[i].get_or_insert_with(|| {
                    let node = iv[i].def.map(|d| caps.defs[d].1).filter(|n| n.kind_name() == "function_definition");
                    node.and_then(|n| n.field("parameters")).map(|p| p.byte_range())
                });
                if params.as_ref().is_some_and(|p| p.contains(&name_node.start_byte())) {
                    src_sym = iv[i].def_above.and_then(|p| sym_of_interval.get(&p).copied()).unwrap_or(0);
                    inner = iv[i].scope_above;
                }
            }
            if !matches!(kind, RefKind::Patch | RefKind::Key) && Probe::covers(probe, name_node) {
                let at = probe.as_ref().map_or(0, |p| p.at);
                if let Some(fact) = probe_use(lang, name_node, at, src, inner, src_sym, nesting, locals, facts) {
                    Probe::set(probe, fact);
                }
            }
            let written = match key_path {
                Some(p) => Some((p, name_node)),
                // `handlers[name]()`: any entry of `handlers` (a dynamic site all the same).
                None if kind == RefKind::Call => path_of(name_node, src).or_else(|| path_of_any_entry(name_node, src)),
                None => path_of(name_node, src),
            };
            let (path, anchor) = match written {
                // `setattr(obj, "name", value)` rebinds `obj.name`.
                _ if kind == RefKind::Patch && name_node.kind_name() == "call" => match python::setattr_path(name_node, src) {
                    Some(p) => (p, name_node),
                    None => continue,
                },
                Some((p, anchor)) => (p, anchor),
                None if kind == RefKind::Patch => continue,
                None => (String::new(), name_node),
            };
            // An immediately invoked function: `(lambda: 1)()`, `(() => 1)()`.
            let mut unwrapped = name_node;
            while unwrapped.kind_name() == "parenthesized_expression" {
                match unwrapped.named_child(0) {
                    Some(n) => unwrapped = n,
                    None => break,
                }
            }
            let invoked = if path.is_empty() { def_by_node.get(&unwrapped.id()).copied() } else { None };
            let (mut path, invoked_binding) = match invoked {
                Some(sym) => (facts.symbols[sym as usize].name.clone(), Some(LocalBinding::Def(facts.symbols[sym as usize].qname.clone()))),
                None => (path, None),
            };
            // Calling what `getattr(o, name)` or `importlib.import_module(name)` returned, with a
            // computed name: a dynamic site (a completeness gap), not a guess.
            let mut computed = path.is_empty() && is_computed(name_node) || path.contains(ANY_ENTRY);
            if is_py
                && kind == RefKind::Call
                && (path.starts_with("getattr().")
                    || path == "getattr()"
                    || path.starts_with("importlib.import_module().")
                    || path.starts_with("__import__()."))
            {
                path = String::new();
                computed = true;
            }
            if kind == RefKind::Call && lang.is_script() && path == "require" {
                continue; // CommonJS `require('x')` is an import
            }
            // `require('./m').a()`, `require('debug')('x')`: a member of the module that
            // `require` binds there, or the module called.
            if lang.is_script()
                && path.starts_with("require()")
                && let Some(p) = typescript::through_require(&path, name_node, src)
            {
                path = p;
            }
            let mut args = Vec::new();
            // A call's arguments, read once for its argument values and its forwarded parameters.
            let mut passed: Vec<(ArgKey, tree_sitter::Node)> = Vec::new();
            // Calls through parameters and the values a call passes (Python; TS/JS calls too).
            if !path.is_empty() && (is_py && kind == RefKind::Decorator || kind == RefKind::Call) {
                let root = crate::dotted::root(&path);
                let reaching = if root.ends_with("()") { None } else { lookup_reaching(root, point.0, inner, nesting, locals) };
                // A parameter rebound in a branch (`if cb is None: cb = default`) is still
                // called with what the call sites pass.
                let local =
                    reaching.map(|(last, earlier)| match earlier.iter().find(|b| matches!(b.local, Local::Param { splat: 0, .. })) {
                        Some(param) if kind == RefKind::Call => &param.local,
                        _ => &last.local,
                    });
                let splat_param = |p: &str| {
                    let root = crate::dotted::root(p);
                    matches!(lookup_local(root, point.0, inner, nesting, locals), Some(Local::Param { splat: 1 | 2, .. }))
                };
                match local {
                    // Calling a value taken out of `*args` / `**kwargs` (`kwargs["cb"]()`,
                    // `kwargs.get("cb")()`, `cb = kwargs.pop("cb"); cb()`): **kwargs dispatch, a gap.
                    Some(Local::Param { splat: 1 | 2, .. }) if is_py && kind == RefKind::Call && python::takes_from_container(&path) => {
                        path = String::new();
                        computed = true;
                    }
                    Some(Local::Var(Some(v @ (ValueSource::Call(p) | ValueSource::Alias(p)))))
                        if is_py
                            && kind == RefKind::Call
                            && splat_param(p)
                            && python::takes_from_container(&if matches!(v, ValueSource::Call(_)) {
                                format!("{p}()")
                            } else {
                                p.clone()
                            }) =>
                    {
                        path = String::new();
                        computed = true;
                    }
                    // A call through a parameter: bound later to what each call site passes. (TS/JS:
                    // only a call of the parameter itself, `fn()`; a method called on it,
                    // `res.status()`, is resolved through its declared type where it is written.)
                    Some(&Local::Param { func, index, splat: 0, ref value, ref member })
                        if kind == RefKind::Call
                            && !matches!(root, "self" | "cls")
                            && (is_py || !path.contains('.') || value.is_none()) =>
                    {
                        let rest = crate::dotted::split_once(&path).map(|(_, r)| r.to_string()).unwrap_or_default();
                        // `function f({ ok }) { ok() }`: a member of the argument.
                        let rest = match member {
                            Some(m) if rest.is_empty() => m.clone(),
                            Some(m) => format!("{m}.{rest}"),
                            None => rest,
                        };
                        let caller = facts.symbols[src_sym as usize].qname.clone();
                        param_uses.push((func, ParamUse { index, name: root.to_string(), caller, rest, each: false, via: None }));
                    }
                    // `for c in checks: c()` with `checks` a parameter.
                    Some(Local::Var(Some(ValueSource::Each(each)))) if kind == RefKind::Call => {
                        if let ValueSource::Alias(p) = each.as_ref()
                            && let Some(&Local::Param { func, index, splat: 0, member: None, .. }) =
                                lookup_local(p, point.0, inner, nesting, locals)
                        {
                            let rest = crate::dotted::split_once(&path).map(|(_, r)| r.to_string()).unwrap_or_default();
                            let caller = facts.symbols[src_sym as usize].qname.clone();
                            param_uses.push((func, ParamUse { index, name: p.clone(), caller, rest, each: true, via: None }));
                        }
                    }
                    _ => {}
                }
                if !path.is_empty() {
                    args = match kind {
                        RefKind::Call if matches!(role_node.kind_name(), "call" | "call_expression") => {
                            passed = passed_arguments(role_node, src);
                            call_args(lang, &passed, src, inner, src_sym, nesting, locals, def_by_node, facts)
                        }
                        // `@logged` above `def add`: `add` is the decorator's argument; with
                        // decorators stacked, what the one below returns (`@a @b def f` is
                        // `a(b(f))`).
                        RefKind::Decorator => name_node
                            .parent()
                            .filter(|dec| dec.kind_name() == "decorator")
                            .and_then(|dec| {
                                let below = dec.next_named_sibling()?;
                                if below.kind_name() == "decorator" {
                                    let inner = below.named_child(0).filter(|n| matches!(n.kind_name(), "identifier" | "attribute"))?;
                                    return path_of(inner, src).map(|(p, _)| ValueSource::Call(p));
                                }
                                let d = def_by_node
                                    .get(&below.id())
                                    .or_else(|| dec.parent().and_then(|p| p.field("definition")).and_then(|d| def_by_node.get(&d.id())))?;
                                Some(ValueSource::Def(facts.symbols[*d as usize].qname.clone()))
                            })
                            .map(|v| vec![("0".to_string(), v)])
                            .unwrap_or_default(),
                        _ => Vec::new(),
                    };
                }
            }
            // A function handed to a call that calls it back (`xs.map(f)`, `setTimeout(f)`,
            // `p.then(f)`): the callee's name goes with the argument.
            if lang.is_script()
                && kind == RefKind::Argument
                && !path.is_empty()
                && let Some(callee) = typescript::callback_callee(&self.parents, name_node, src)
            {
                // A parameter handed on that way (`drain(fn) { this.items.forEach(fn) }`) is
                // called by this code.
                if let Some(&Local::Param { func, index, splat: 0, member: None, .. }) =
                    lookup_local(&path, point.0, inner, nesting, locals)
                {
                    let caller = facts.symbols[src_sym as usize].qname.clone();
                    let name = path.clone();
                    param_uses.push((func, ParamUse { index, name, caller, rest: String::new(), each: false, via: None }));
                }
                args.push((CALLBACK_KEY.to_string(), ValueSource::Alias(callee)));
            }
            let (line, col) = position(anchor);
            let text = if path.is_empty() || computed { short_text(name_node, src) } else { String::new() };
            // `self.type.describe()` where a test narrowed `self.type`: the rest of the path is
            // resolved from the narrowed value, and the attribute is read there as it was (its
            // getter runs, a value it is references it).
            let narrowed = if invoked_binding.is_none() { locals.through_narrowed(&path, point.0) } else { None };
            let (path, invoked_binding) = match narrowed {
                Some(n) => {
                    let binding = bind(lang, &n.path, point.0, inner, src_sym, nesting, locals, facts);
                    if binding != LocalBinding::Var(None) {
                        let (path, text, args) = (n.path.clone(), String::new(), Vec::new());
                        let computed = false;
                        facts.refs.push(RefFact { kind: RefKind::Read, src: src_sym, path, text, binding, line, col, computed, args });
                    }
                    (n.rest_of(&path), Some(LocalBinding::Var(Some(n.value.clone()))))
                }
                None => (path, invoked_binding),
            };
            let binding = match invoked_binding {
                Some(b) => b,
                None if path.is_empty() => LocalBinding::Free,
                None => bind(lang, &path, point.0, inner, src_sym, nesting, locals, facts),
            };
            // The operand of an operator (`a + b`, `a[k]`, `k in a`): the method that runs.
            if is_py && kind == RefKind::Read && !path.is_empty() && binding != LocalBinding::Var(None) {
                for dunder in python::operator_methods(&self.parents, name_node, src) {
                    let (line, col) = position(anchor);
                    let path = format!("{path}.{dunder}");
                    let (text, args, binding) = (String::new(), Vec::new(), binding.clone());
                    facts.refs.push(RefFact { kind: RefKind::Operator, src: src_sym, path, text, binding, line, col, computed, args });
                }
            }
            // Reads and writes matter when they reach outside the function: a module value, an
            // import, a class attribute, a member of something known. Locals are answered from
            // the file itself (`def`), not stored.
            if matches!(kind, RefKind::Read | RefKind::Write | RefKind::Key) {
                let keep = match (&binding, path.contains('.')) {
                    _ if path.is_empty() => false,
                    (LocalBinding::Free, false) => {
                        // Re-assigning the module's own value at module level defines it.
                        !(kind == RefKind::Write && src_sym == 0 && module_values.contains(&path))
                    }
                    // A name of a class or namespace body: read; or written when it is a value,
                    // from code other than the body that defines it.
                    (LocalBinding::Def(q), false) => {
                        kind == RefKind::Read
                            || qindex.get(q).is_some_and(|&i| {
                                let s = &facts.symbols[i as usize];
                                s.kind.is_value() && s.parent != Some(src_sym)
                            })
                    }
                    (_, false) => false,
                    (LocalBinding::Var(None), true) => false,
                    (LocalBinding::SelfOf(class), true) if kind == RefKind::Write => {
                        // The assignment that defines `self.x` is not a write of it.
                        let attr = crate::dotted::split_once(&path).map(|(_, a)| a).unwrap_or("");
                        let (line, col) = position(anchor);
                        !qindex
                            .get(&format!("{class}.{attr}"))
                            .is_some_and(|&i| facts.symbols[i as usize].line == line && facts.symbols[i as usize].col == col)
                    }
                    (_, true) => true,
                };
                if !keep {
                    continue;
                }
            }
            // `self.on_click()` where `__init__` did `self.on_click = on_click`.
            if let (true, RefKind::Call, LocalBinding::SelfOf(class)) = (is_py, kind, &binding)
                && let Some(attr) = path.strip_prefix("self.").filter(|a| !a.contains('.'))
                && let Some((func, index, name)) = attr_params.get(&format!("{class}.{attr}"))
            {
                let caller = facts.symbols[src_sym as usize].qname.clone();
                param_uses
                    .push((*func, ParamUse { index: *index, name: name.clone(), caller, rest: String::new(), each: false, via: None }));
            }
            if kind == RefKind::Call && !path.is_empty() && matches!(role_node.kind_name(), "call" | "call_expression") {
                self.forwards(&passed, &path, &binding, inner, src_sym, locals, facts, &mut param_uses);
            }
            facts.refs.push(RefFact { kind, src: src_sym, path, text, binding, line, col, computed, args });
        }
        param_uses
    }

    /// Parameters passed on, as they are, to the call `call` of `callee`
    /// (`outer(obj, encoder) { return maybeMap(obj, encoder) }`): what the callee does with
    /// them is bound at each call site of their function, like a call through them.
    #[allow(clippy::too_many_arguments)]
    fn forwards(
        &self,
        passed: &[(ArgKey, tree_sitter::Node)],
        callee: &str,
        binding: &LocalBinding,
        inner: Option<usize>,
        src_sym: u32,
        locals: &Locals,
        facts: &FileFacts,
        param_uses: &mut Vec<(u32, ParamUse)>,
    ) {
        // The resolver binds the callee as a name of the module or a member of `self`/`this`;
        // a builtin that does not call its arguments (`len(x)`, `isinstance(x, T)`) is no use.
        let self_member = matches!(binding, LocalBinding::SelfOf(_)) && callee.contains('.');
        if !(self_member || *binding == LocalBinding::Free) || callee.ends_with(".bind") {
            return;
        }
        for &(ref key, arg) in passed {
            if arg.kind_name() != "identifier" {
                continue;
            }
            let name = text(arg, self.src);
            if matches!(&*name, "self" | "cls") {
                continue;
            }
            if let Some(&Local::Param { func, index, splat: 0, member: None, .. }) =
                lookup_local(&name, arg.start_byte(), inner, &self.nesting, locals)
            {
                if self.is_py && crate::resolve::is_plain_python_builtin(callee) {
                    return;
                }
                let caller = facts.symbols[src_sym as usize].qname.clone();
                let via = Some(Forward { callee: callee.to_string(), key: key.spelled() });
                param_uses.push((func, ParamUse { index, name: name.into_owned(), caller, rest: String::new(), each: false, via }));
            }
        }
    }
}
