//! Values: the names bound at module level, in a Python class body or in a TS namespace become
//! value symbols holding where their value came from ([`ValueSource`]); attributes set from
//! parameters take their type, or make calls through them calls through the parameter; a
//! Python call's arguments are followed; functions and lambdas get their obvious return values.

use crate::resolve::{Map, Set};

use tree_sitter::Node;

use super::captures::preorder::named_children;
use super::probe::{PositionFact, Probe};
use super::scopes::{Local, Locals, Nesting, bind, binding_at};
use super::syntax::{path_of, position, short_text, text};
use super::{File, python, typescript};
use crate::facts::{FileFacts, LocalBinding, SymbolFact, SymbolKind, ValueSource};
use crate::field::{Field, Kind};
use crate::lang::{DefKind, Lang};

/// A binding that is a value symbol: a module-level name, a Python class-body name, a TS
/// namespace member.
pub(super) struct ValueBinding<'t> {
    pub(super) node: Node<'t>,
    pub(super) name: String,
    pub(super) value: Option<ValueSource>,
    /// The symbol the value belongs to (0: the module).
    pub(super) container: u32,
    /// The scope the binding is in (`None` at module level).
    pub(super) scope: Option<usize>,
    /// A rebinding that may not run before every use: in a branch or loop of its scope, or in
    /// a function (`handler = b` inside `setup()`). Its value joins the earlier ones instead of
    /// replacing them.
    pub(super) conditional: bool,
}

/// Entries added to module-level containers after their literal (`HANDLERS["x"] = f`,
/// `hooks.append(g)`): the container's value gains them, keyed by literal or by position.
/// A container whose value is something else than a literal or an empty constructor
/// (`dict()`, `[]`) is left as it is.
fn add_container_writes(
    writes: Vec<(usize, String, Option<String>, ValueSource)>,
    module_q: &str,
    qindex: &Map<String, u32>,
    facts: &mut FileFacts,
) {
    for (_, name, key, value) in writes {
        let Some(&sym) = qindex.get(&format!("{module_q}.{name}")) else { continue };
        let s = &mut facts.symbols[sym as usize];
        if s.kind.is_value() {
            add_entry(&mut s.ty, key, value);
        }
    }
}

/// A container's value (a literal's entries, or nothing known, or an empty constructor) gains
/// an entry, by key or at the next position; any other value is left as it is.
pub(super) fn add_entry(held: &mut Option<ValueSource>, key: Option<String>, value: ValueSource) {
    let mut items = match held.take() {
        Some(ValueSource::Items(items)) => items,
        None => Vec::new(),
        // `ACTIONS: Dict[str, Action] = {}` then `ACTIONS["a"] = on_a`: the entries written say
        // more than the declared type.
        Some(ValueSource::Mapping(_)) if key.is_some() => Vec::new(),
        Some(ValueSource::Call(c)) if matches!(c.as_str(), "dict" | "list" | "OrderedDict" | "collections.OrderedDict") => Vec::new(),
        other => {
            *held = other;
            return;
        }
    };
    let key = key.unwrap_or_else(|| items.iter().filter_map(|(k, _)| k.parse::<usize>().ok()).max().map_or(0, |m| m + 1).to_string());
    items.retain(|(k, _)| *k != key);
    items.push((key, value));
    *held = Some(ValueSource::Items(items));
}

/// Python's convention for constants: `TIMEOUT`, `MAX_RETRIES`, `V2`.
fn is_constant_name(name: &str) -> bool {
    name.chars().any(|c| c.is_ascii_alphabetic()) && name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// Where a local name's value came from, read off the syntax around its binding identifier.
pub(super) fn value_source<'t>(p: &super::syntax::Parents<'t>, lang: Lang, ident: Node<'t>, src: &[u8]) -> Option<ValueSource> {
    if lang.is_script() { typescript::value_source(p, ident, src) } else { python::value_source(p, ident, src) }
}

/// The declared type of a definition: a function's return annotation, a property's type.
pub(super) fn declared_type<'t>(lang: Lang, parents: &super::syntax::Parents<'t>, node: Node<'t>, src: &[u8]) -> Option<ValueSource> {
    if lang.is_script() { typescript::declared_type(parents, node, src) } else { python::declared_type(node, src) }
}

/// `self.on_click = on_click` with a parameter: the attribute's qname -> (the function, the
/// parameter's position, its name), so `self.on_click()` elsewhere in the class is a call
/// through that parameter.
pub(super) type AttrParams = Map<String, (u32, Option<u32>, String)>;

/// The values a call passes, by position or (Python) keyword, as far as they can be followed:
/// names (bound in the file's scopes where local), lambdas and function expressions that are
/// definitions, calls of free names, Python's literal containers. Splats and spreads are kept
/// as `*` / `**` markers.
#[allow(clippy::too_many_arguments)]
pub(super) fn call_args(
    lang: Lang,
    passed: &[(ArgKey, Node)],
    src: &[u8],
    inner: Option<usize>,
    src_sym: u32,
    nesting: &Nesting,
    locals: &Locals,
    def_by_node: &Map<usize, u32>,
    facts: &FileFacts,
) -> Vec<(String, ValueSource)> {
    let value = |n: Node| -> Option<ValueSource> {
        match n.kind_name() {
            "identifier" | "attribute" | "member_expression" => {
                let (p, _) = path_of(n, src)?;
                match bind(lang, &p, n.start_byte(), inner, src_sym, nesting, locals, facts) {
                    LocalBinding::Free => Some(ValueSource::Alias(p)),
                    // `self.stop`: a member of the instance (resolved through the method's class).
                    LocalBinding::SelfOf(_) if p.starts_with("self.") || p.starts_with("this.") => Some(ValueSource::Alias(p)),
                    // `len(self)`, `register(this)`: the instance.
                    LocalBinding::SelfOf(q) if p == "self" || p == "this" => Some(ValueSource::SelfOf(q)),
                    LocalBinding::Def(q) if !p.contains('.') => Some(ValueSource::Def(q)),
                    LocalBinding::Var(v) if !p.contains('.') => v,
                    _ => None,
                }
            }
            "lambda" | "arrow_function" | "function_expression" => {
                def_by_node.get(&n.id()).map(|&d| ValueSource::Def(facts.symbols[d as usize].qname.clone()))
            }
            "call" | "call_expression" => {
                let (p, _) = path_of(n.field("function")?, src)?;
                let free = bind(lang, &p, n.start_byte(), inner, src_sym, nesting, locals, facts) == LocalBinding::Free;
                free.then_some(ValueSource::Call(p))
            }
            "list" | "tuple" | "dictionary" => python::items(n, src, 0),
            // `stringify(obj, { encoder: enc })`: an options object's entries.
            "object" | "array" => typescript::expression_value(n, src),
            _ => None,
        }
    };
    let mut out = Vec::new();
    for (key, a) in passed {
        if key.is_splat() {
            out.push((key.spelled(), ValueSource::Alias(short_text(*a, src))));
        } else if let Some(v) = value(*a) {
            out.push((key.spelled(), v));
        }
    }
    out
}

/// The arguments a call passes ([`arguments`] of its argument list; none without one).
pub(super) fn passed_arguments<'t, 's>(call: Node<'t>, src: &'s [u8]) -> Vec<(ArgKey<'s>, Node<'t>)> {
    match call.field("arguments").filter(|a| matches!(a.kind_name(), "argument_list" | "arguments")) {
        Some(list) => arguments(list, src),
        None => Vec::new(),
    }
}

/// The arguments of a call's argument list with their keys: `"0"`, `"1"` … by position, the
/// keyword's name, `"*"` / `"**"` for a splat (whose node is the splat itself).
pub(super) fn arguments<'t, 's>(list: Node<'t>, src: &'s [u8]) -> Vec<(ArgKey<'s>, Node<'t>)> {
    let mut out = Vec::new();
    let mut index = 0u32;
    for a in named_children(list) {
        match a.kind_name() {
            "keyword_argument" => {
                if let (Some(name), Some(v)) = (a.field("name"), a.field("value")) {
                    out.push((ArgKey::Keyword(text(name, src)), v));
                }
            }
            "list_splat" | "spread_element" => out.push((ArgKey::Splat, a)),
            "dictionary_splat" => out.push((ArgKey::DoubleSplat, a)),
            "comment" => {}
            _ => {
                out.push((ArgKey::Position(index), a));
                index += 1;
            }
        }
    }
    out
}

/// The key of an argument ([`arguments`]), spelled only when it is kept.
pub(super) enum ArgKey<'s> {
    Position(u32),
    Keyword(std::borrow::Cow<'s, str>),
    Splat,
    DoubleSplat,
}

impl ArgKey<'_> {
    pub(super) fn is_splat(&self) -> bool {
        matches!(self, ArgKey::Splat | ArgKey::DoubleSplat)
    }

    /// The key as facts spell it.
    pub(super) fn spelled(&self) -> String {
        match self {
            ArgKey::Position(i) => i.to_string(),
            ArgKey::Keyword(name) => name.to_string(),
            ArgKey::Splat => "*".to_string(),
            ArgKey::DoubleSplat => "**".to_string(),
        }
    }
}

impl<'t> File<'t, '_> {
    /// Value symbols, in source order; the last assignment gives the value (what code that
    /// runs later sees). A name that is already a definition (a function, a class) stays one.
    /// Returns the names of the module's own values.
    pub(super) fn value_symbols(
        &self,
        value_bindings: &[ValueBinding<'t>],
        qindex: &mut Map<String, u32>,
        locals: &mut Locals,
        facts: &mut FileFacts,
        probe: &mut Option<Probe>,
    ) -> Set<String> {
        let (lang, is_py, sep) = (self.lang, self.is_py, self.sep());
        let module_q = facts.symbols[0].qname.clone();
        let mut module_values: Set<String> = Set::default();
        for b in value_bindings {
            let parent_q = &facts.symbols[b.container as usize].qname;
            let qname = if b.container == 0 { format!("{module_q}{sep}{}", b.name) } else { format!("{parent_q}.{}", b.name) };
            let sym = match qindex.get(&qname) {
                Some(&existing) if facts.symbols[existing as usize].kind.is_value() => {
                    let s = &mut facts.symbols[existing as usize];
                    // Assigned again: straight-line, the last value is the one uses see; in a
                    // branch or a function, either may be (`if …: handler = b`).
                    s.ty = match (s.ty.take(), b.value.clone()) {
                        (Some(old), Some(new)) if b.conditional => ValueSource::one_of([old, new]),
                        (old, new) if b.conditional => new.or(old),
                        (_, new) => new,
                    };
                    // A class-body attribute written before the method that assigns `self.x`
                    // is where the attribute is defined.
                    let (line, col) = position(b.node);
                    if (line, col) < (s.line, s.col) {
                        (s.line, s.col, s.end_line) = (line, col, b.node.end_position().row as u32 + 1);
                        if b.container != 0 && is_py {
                            s.kind = SymbolKind::Attribute;
                        }
                    }
                    existing
                }
                Some(_) => continue,
                None => {
                    let kind = if b.container != 0 && is_py {
                        SymbolKind::Attribute
                    } else if lang.is_script() {
                        if typescript::declared_const(&self.parents, b.node) { SymbolKind::Constant } else { SymbolKind::Variable }
                    } else if is_constant_name(&b.name) {
                        SymbolKind::Constant
                    } else {
                        SymbolKind::Variable
                    };
                    let exported = b.container == 0
                        && if lang.is_script() { typescript::binding_exported(&self.parents, b.node) } else { !b.name.starts_with('_') };
                    let (line, col) = position(b.node);
                    let idx = facts.symbols.len() as u32;
                    facts.symbols.push(SymbolFact {
                        qname: qname.clone(),
                        name: b.name.clone(),
                        kind,
                        parent: Some(b.container),
                        line,
                        col,
                        end_line: b.node.end_position().row as u32 + 1,
                        exported,
                        bases: Vec::new(),
                        ty: b.value.clone(),
                        decorators: Vec::new(),
                        param_uses: Vec::new(),
                        param_types: Vec::new(),
                    });
                    qindex.insert(qname, idx);
                    idx
                }
            };
            if b.container == 0 {
                module_values.insert(b.name.clone());
            }
            if Probe::covers(probe, b.node) {
                Probe::set(probe, PositionFact::Definition(facts.symbols[sym as usize].qname.clone()));
            }
            // In a class or namespace body, the name stands for the symbol.
            if let (Some(scope), true) = (b.scope, b.container != 0)
                && let Some(bindings) = locals.get_mut(scope, &b.name)
            {
                for b in bindings.iter_mut() {
                    b.local = Local::Def(sym);
                }
            }
        }
        if is_py {
            add_container_writes(python::container_writes(self.caps.root, self.src), &module_q, qindex, facts);
        }
        module_values
    }

    /// `self.x = param` in a method: the attribute has the parameter's annotated type, and
    /// (see [`AttrParams`]) calls through it are calls through the parameter.
    pub(super) fn attribute_flows(&self, locals: &Locals, facts: &FileFacts) -> (Vec<(u32, ValueSource)>, AttrParams) {
        let (src, caps, iv, sym_of_def) = (self.src, &self.caps, &self.nesting.intervals, &self.sym_of_def);
        let mut interval_of_def: Vec<Option<usize>> = vec![None; caps.defs.len()];
        for (i, interval) in iv.iter().enumerate() {
            if let Some(d) = interval.def {
                interval_of_def[d] = Some(i);
            }
        }
        let mut attr_types: Vec<(u32, ValueSource)> = Vec::new();
        let mut attr_params: AttrParams = Map::default();
        for (d, (kind, node, _)) in caps.defs.iter().enumerate() {
            if *kind != DefKind::Property || node.kind_name() != "assignment" {
                continue;
            }
            let Some(right) = node.field("right").filter(|r| r.kind_name() == "identifier") else { continue };
            let name = text(right, src).into_owned();
            let scope = interval_of_def[d].and_then(|i| iv[i].scope_above);
            let Some(local) = scope.and_then(|s| locals.get(s, &name)).map(|b| &binding_at(b, node.start_byte()).local) else {
                continue;
            };
            let attr = sym_of_def[d];
            if let Local::Param { func, index, splat: 0, member: None, .. } = *local {
                attr_params.insert(facts.symbols[attr as usize].qname.clone(), (func, index, name));
            }
            if let (Some(v), None) = (local.value(), &facts.symbols[attr as usize].ty) {
                attr_types.push((attr, v.clone()));
            }
        }
        (attr_types, attr_params)
    }

    /// The values each function returns where obvious: a returned lambda, name or call.
    pub(super) fn returned_values(&self, locals: &Locals, facts: &FileFacts) -> Map<u32, Vec<ValueSource>> {
        let (lang, src, caps, nesting, def_by_node) = (self.lang, self.src, &self.caps, &self.nesting, &self.def_by_node);
        let mut returned: Map<u32, Vec<ValueSource>> = Map::default();
        for ((_, callee), point) in caps.returns.iter().zip(&self.points.returns) {
            let owner = self.sym_at(point.2);
            // `return lambda x: ...`
            if let Some(&lambda) = def_by_node.get(&callee.id()) {
                // The capture starts where the lambda does: the owner is the lambda's parent.
                let owner = facts.symbols[lambda as usize].parent.unwrap_or(owner);
                returned.entry(owner).or_default().push(ValueSource::Def(facts.symbols[lambda as usize].qname.clone()));
                continue;
            }
            // `return {"open": on_open}`, `return a, b`: a literal container.
            if matches!(callee.kind_name(), "dictionary" | "list" | "tuple" | "expression_list") {
                // Its names are read where it is returned: a nested function or a local is what it
                // is bound to there (the resolver reads the rest at module level).
                if let Some(ValueSource::Items(items)) = python::items(*callee, src, 0) {
                    let items = items
                        .into_iter()
                        .filter_map(|(k, v)| {
                            let v = match &v {
                                ValueSource::Alias(p) => match bind(lang, p, point.0, point.2, owner, nesting, locals, facts) {
                                    LocalBinding::Def(q) if !p.contains('.') => ValueSource::Def(q),
                                    LocalBinding::Free => v,
                                    LocalBinding::Var(v) if !p.contains('.') => v?,
                                    _ => return None,
                                },
                                _ => v,
                            };
                            Some((k, v))
                        })
                        .collect();
                    returned.entry(owner).or_default().push(ValueSource::Items(items));
                }
                continue;
            }
            let Some((p, _)) = path_of(*callee, src) else { continue };
            // Of a callee that is itself a call, only `type(self)(...)`: what calling another
            // call's result gives is seldom known, and a second value would leave a function
            // whose other return is obvious (`return Atomic(using)`) with none.
            if callee.kind_name() == "call" && !p.ends_with(".__class__") {
                continue;
            }
            let in_return = self.parents.of(*callee).is_some_and(|n| n.kind_name() == "return_statement");
            let value = if in_return && p.contains('.') {
                // `return this.session`, `return self._conn`, `return Store.instance`: what the
                // member holds, read as the method's class or the module reads it; not a member
                // of a local.
                let module_level = |q: &str| {
                    let sep = if lang.is_script() { '#' } else { '.' };
                    q.strip_suffix(crate::dotted::root(&p)).and_then(|m| m.strip_suffix(sep)) == Some(&facts.symbols[0].qname)
                };
                match bind(lang, &p, point.0, point.2, owner, nesting, locals, facts) {
                    LocalBinding::SelfOf(_) | LocalBinding::Free => Some(ValueSource::Alias(p)),
                    LocalBinding::Def(q) if module_level(&q) => Some(ValueSource::Alias(p)),
                    _ => None,
                }
            } else if in_return {
                // `return inner` / `return handler` / `return self`.
                match bind(lang, &p, point.0, point.2, owner, nesting, locals, facts) {
                    LocalBinding::Def(q) => Some(ValueSource::Def(q)),
                    LocalBinding::SelfOf(q) => Some(ValueSource::SelfOf(q)),
                    LocalBinding::Free => Some(ValueSource::Alias(p)),
                    LocalBinding::Var(v) => v,
                    LocalBinding::SuperOf(_) => None,
                }
            } else if callee.kind_name() == "this" {
                // `return new this()` (TS/JS): an instance of the class the method is called on.
                match bind(lang, &p, point.0, point.2, owner, nesting, locals, facts) {
                    LocalBinding::SelfOf(q) => Some(ValueSource::SelfOf(q)),
                    _ => None,
                }
            } else {
                Some(ValueSource::Call(p))
            };
            if let Some(value) = value {
                let v = returned.entry(owner).or_default();
                if !v.contains(&value) {
                    v.push(value);
                }
            }
        }
        returned
    }
}

/// The value made by one of two branches (`a || new Foo()`, `Foo() if x is None else x`) where
/// the other is passed through as it is (`passed`: a name, a member, nothing); `None` when both
/// or neither make one, or the other is of another kind.
pub(super) fn made_beside_passed(
    branches: [Node; 2],
    made: impl Fn(Node) -> Option<ValueSource>,
    passed: impl Fn(Node) -> bool,
) -> Option<ValueSource> {
    let values = branches.map(made);
    let mut found = values.iter().flatten();
    let (Some(value), None) = (found.next(), found.next()) else { return None };
    branches.iter().zip(&values).all(|(&b, v)| v.is_some() || passed(b)).then(|| value.clone())
}
