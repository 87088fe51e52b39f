//! Scopes and local names: the nesting sweep that gives every capture its enclosing definition
//! and scope ([`Nesting`]), the names each scope binds and where each binding takes effect
//! ([`Locals`]), and how the first name of a path is bound where it is used ([`bind`]).

use crate::resolve::{Map, Set};

use tree_sitter::Node;

use super::captures::Captures;
use super::captures::preorder::named_children;
use super::narrowing::NarrowedPath;
use super::probe::{PositionFact, Probe};
use super::syntax::{Parents, position, text};
use super::values::{ValueBinding, value_source};
use super::{File, MAX_SCOPE_WALK, python, typescript};
use crate::facts::{FileFacts, ImportFact, LocalBinding, SymbolKind, ValueSource};

use crate::field::{Field, Kind};
use crate::lang::Lang;

/// `typing.cast` (and `typing_extensions`').
const TYPING_CAST: &[(&str, &str)] = &[("typing", "cast"), ("typing_extensions", "cast")];

/// `functools.partial`.
const FUNCTOOLS_PARTIAL: &[(&str, &str)] = &[("functools", "partial")];

/// A point: (position, unused, its innermost interval).
type Point = (usize, usize, Option<usize>);

/// The innermost interval of each capture that is not a definition or a scope, by role.
pub(super) struct Points {
    pub(super) refs: Vec<Point>,
    pub(super) local_defs: Vec<Point>,
    pub(super) imports: Vec<Point>,
    pub(super) returns: Vec<Point>,
    pub(super) globals: Vec<Point>,
}

/// A definition or scope node in the nesting sweep.
pub(super) struct Interval {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) def: Option<usize>,
    pub(super) scope: bool,
    pub(super) class_like: bool,
    /// A JS/TS `function` expression: its own `this` (an arrow function keeps the enclosing one).
    pub(super) rebinds_this: bool,
    /// Nearest enclosing interval that is a definition / a scope (excluding itself).
    pub(super) def_above: Option<usize>,
    pub(super) scope_above: Option<usize>,
}

/// The nesting of definitions and scopes, and answers about positions in it.
pub(super) struct Nesting {
    pub(super) intervals: Vec<Interval>,
}

impl Nesting {
    /// The nesting of a file's definitions and scopes, and the innermost interval of every
    /// other capture.
    pub(super) fn of(caps: &Captures) -> (Nesting, Points) {
        // Room for every definition and scope, so that neither grows (its rehashes showed in
        // the profiles of extraction).
        let room = caps.defs.len() + caps.scopes.len();
        let mut by_node: Map<usize, usize> = Map::with_capacity_and_hasher(room, Default::default());
        let mut intervals: Vec<Interval> = Vec::with_capacity(room);
        let mut interval_of = |node: Node, intervals: &mut Vec<Interval>| -> usize {
            *by_node.entry(node.id()).or_insert_with(|| {
                intervals.push(Interval {
                    start: node.start_byte(),
                    end: node.end_byte().max(node.start_byte() + 1),
                    def: None,
                    scope: false,
                    class_like: false,
                    rebinds_this: false,
                    def_above: None,
                    scope_above: None,
                });
                intervals.len() - 1
            })
        };
        for (i, (_, node, _)) in caps.defs.iter().enumerate() {
            let k = interval_of(*node, &mut intervals);
            intervals[k].def = Some(i);
        }
        for node in &caps.scopes {
            let k = interval_of(*node, &mut intervals);
            intervals[k].scope = true;
            intervals[k].class_like = matches!(node.kind_name(), "class_definition");
            intervals[k].rebinds_this = matches!(node.kind_name(), "function_expression" | "generator_function") && !given_this(*node);
        }
        // Query points: references, local definitions, imports and exports.
        let count = caps.refs.len() + caps.local_defs.len() + caps.imports.len() + caps.returns.len() + caps.globals.len();
        let mut points: Vec<(usize, usize, Option<usize>)> = Vec::with_capacity(count);
        for (_, node, _) in &caps.refs {
            points.push((node.start_byte(), 0, None));
        }
        for node in &caps.local_defs {
            points.push((node.start_byte(), 0, None));
        }
        for (_, node) in &caps.imports {
            points.push((node.start_byte(), 0, None));
        }
        for (node, _) in &caps.returns {
            points.push((node.start_byte(), 0, None));
        }
        for node in &caps.globals {
            points.push((node.start_byte(), 0, None));
        }
        let nesting = Nesting::build(intervals, &mut points);
        let globals = points.split_off(caps.refs.len() + caps.local_defs.len() + caps.imports.len() + caps.returns.len());
        let returns = points.split_off(caps.refs.len() + caps.local_defs.len() + caps.imports.len());
        let imports = points.split_off(caps.refs.len() + caps.local_defs.len());
        let local_defs = points.split_off(caps.refs.len());
        (nesting, Points { refs: points, local_defs, imports, returns, globals })
    }

    /// Sorts intervals and computes, for each, its nearest enclosing definition and scope,
    /// and for each query position its innermost interval. Iterative: a stack, no recursion.
    fn build(mut intervals: Vec<Interval>, points: &mut [(usize, usize, Option<usize>)]) -> Nesting {
        intervals.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
        let mut order: Vec<usize> = (0..points.len()).collect();
        order.sort_by_key(|&i| points[i].0);
        let mut stack: Vec<usize> = Vec::new();
        let mut next = 0;
        for &pi in &order {
            let pos = points[pi].0;
            Self::open_up_to(&mut intervals, &mut stack, &mut next, pos);
            while stack.last().is_some_and(|&t| intervals[t].end <= pos) {
                stack.pop();
            }
            points[pi].2 = stack.last().copied();
        }
        Self::open_up_to(&mut intervals, &mut stack, &mut next, usize::MAX);
        Nesting { intervals }
    }

    /// Opens (links and pushes) the intervals that start at or before `pos`, closing those
    /// that end before each one starts.
    fn open_up_to(intervals: &mut [Interval], stack: &mut Vec<usize>, next: &mut usize, pos: usize) {
        while *next < intervals.len() && intervals[*next].start <= pos {
            let start = intervals[*next].start;
            while stack.last().is_some_and(|&t| intervals[t].end <= start) {
                stack.pop();
            }
            Self::link(intervals, stack, *next);
            stack.push(*next);
            *next += 1;
        }
    }

    fn link(intervals: &mut [Interval], stack: &[usize], i: usize) {
        if let Some(&top) = stack.last() {
            let t = &intervals[top];
            let def_above = if t.def.is_some() { Some(top) } else { t.def_above };
            let scope_above = if t.scope { Some(top) } else { t.scope_above };
            intervals[i].def_above = def_above;
            intervals[i].scope_above = scope_above;
        }
    }

    /// The definition interval containing a point whose innermost interval is `inner`.
    pub(super) fn def_of(&self, inner: Option<usize>) -> Option<usize> {
        let i = inner?;
        if self.intervals[i].def.is_some() { Some(i) } else { self.intervals[i].def_above }
    }

    pub(super) fn scope_of(&self, inner: Option<usize>) -> Option<usize> {
        let i = inner?;
        if self.intervals[i].scope { Some(i) } else { self.intervals[i].scope_above }
    }

    /// Whether `this` at a point is that of a `function` expression that is neither a
    /// definition nor a definition's value (a callback: `items.forEach(function () {
    /// this.save() })`), inside the definition the point is in: then it is not that
    /// definition's `this`.
    fn this_rebound(&self, inner: Option<usize>) -> bool {
        let def_start = self.def_of(inner).map(|d| self.intervals[d].start);
        let mut scope = self.scope_of(inner);
        while let Some(i) = scope {
            let iv = &self.intervals[i];
            if def_start.is_some_and(|d| iv.start < d) {
                return false;
            }
            if iv.rebinds_this && iv.def.is_none() {
                // The value of a definition (`F.prototype.m = function () {}`, `key: function
                // () {}`), which ends where the function does: that definition's `this`.
                return iv.def_above.is_none_or(|d| self.intervals[d].end != iv.end);
            }
            scope = iv.scope_above;
        }
        false
    }
}

/// Whether a `function` expression is given the enclosing `this`: bound to it
/// (`function () {}.bind(this)`, `.call(this, …)`, `.apply(this, …)`), or passed together with
/// it (`items.forEach(function () {}, this)`).
fn given_this(function: Node) -> bool {
    let Some(parent) = function.parent() else { return false };
    let is_this = |n: Option<Node>| n.is_some_and(|n| n.kind_name() == "this");
    match parent.kind_name() {
        // A method of the function itself called with `this` first: `bind`, `call`, `apply`
        // are the ones a function literal has.
        "member_expression" => {
            let of_function = parent.child_by_field_name("object").is_some_and(|o| o.id() == function.id());
            let call = parent.parent().filter(|c| c.kind_name() == "call_expression");
            of_function && call.and_then(|c| c.child_by_field_name("arguments")).is_some_and(|a| is_this(a.named_child(0)))
        }
        "arguments" => {
            let mut cursor = parent.walk();
            let args: Vec<Node> = parent.named_children(&mut cursor).collect();
            args.iter().position(|a| a.id() == function.id()).is_some_and(|i| args[i + 1..].iter().any(|a| a.kind_name() == "this"))
        }
        _ => false,
    }
}

/// The function (or lambda, arrow function, method) a node is in.
fn function_ancestor<'t>(p: &Parents<'t>, node: Node<'t>) -> Option<Node<'t>> {
    let mut cur = p.of(node);
    while let Some(n) = cur {
        if matches!(
            n.kind_name(),
            "function_definition"
                | "lambda"
                | "function_declaration"
                | "function_expression"
                | "arrow_function"
                | "method_definition"
                | "generator_function_declaration"
                | "generator_function"
        ) {
            return Some(n);
        }
        cur = p.of(n);
    }
    None
}

/// What a name is bound to inside one scope of the file.
#[derive(Clone)]
pub(super) enum Local {
    Def(u32),
    Var(Option<ValueSource>),
    /// A Python parameter of the function `func` (a symbol index): its position among the
    /// arguments a call passes (`None`: keyword-only), whether it is `*args` (1) or
    /// `**kwargs` (2), and its annotation.
    Param {
        func: u32,
        index: Option<u32>,
        splat: u8,
        value: Option<ValueSource>,
        /// A name a TS/JS parameter's object pattern takes out of the argument
        /// (`function f({ ok, hooks: { before } })`): the member path, `ok`, `hooks.before`.
        member: Option<String>,
    },
}

impl Local {
    pub(super) fn value(&self) -> Option<&ValueSource> {
        match self {
            Local::Var(v) | Local::Param { value: v, .. } => v.as_ref(),
            Local::Def(_) => None,
        }
    }
}

/// One binding of a name: where it takes effect (after the right-hand side of an
/// assignment: `x = x + 1` reads the previous `x`), where its name is written, and what it is.
#[derive(Clone)]
pub(super) struct Binding {
    pub(super) effective: usize,
    pub(super) site: usize,
    pub(super) local: Local,
    /// A rebinding made in one branch of a conditional, a loop body or a `try` body: that
    /// branch's extent. A use outside it may still see the binding before (a join).
    pub(super) branch: Option<(usize, usize)>,
    /// A narrowing (`if isinstance(x, Foo):`, `x instanceof Foo && …`; see `narrowing.rs`):
    /// the extent where the test is known to have passed, the only place that sees it.
    pub(super) within: Option<(usize, usize)>,
}

impl Binding {
    /// Whether a use at `pos` can see this binding (any can, but for a narrowing's).
    pub(super) fn seen_at(&self, pos: usize) -> bool {
        self.within.is_none_or(|(start, end)| start <= pos && pos < end)
    }
}

/// The bindings of one name in one scope, by position: a use sees the last binding before it
/// (straight-line rebinding), or the first one when all come later (hoisting, closures).
pub(super) type Bindings = Vec<Binding>;

/// The bindings of each name per scope. Keyed by name first, so a lookup walking the
/// enclosing scopes hashes the name once and borrows it (no key is allocated).
/// (And the attributes the file's type tests narrow, with where, in the order of the tests.)
#[derive(Default)]
pub(super) struct Locals(Map<String, Map<usize, Bindings>>, Vec<NarrowedPath>);

impl Locals {
    /// A narrowing of attributes (`isinstance(self.type, Foo)`), from the type tests.
    pub(super) fn narrow_path(&mut self, narrowed: NarrowedPath) {
        self.1.push(narrowed);
    }

    /// The narrowed attribute a path at `pos` goes through (`self.type` of `self.type.describe()`
    /// inside `if isinstance(self.type, Range)`). Not the attribute itself: a read of it stays a
    /// read of the attribute.
    pub(super) fn through_narrowed(&self, path: &str, pos: usize) -> Option<&NarrowedPath> {
        // The longest such attribute (`self.a.b` before `self.a`), else the latest test.
        self.1
            .iter()
            .rev()
            .filter(|n| {
                n.start <= pos
                    && pos < n.end
                    && path.len() > n.path.len()
                    && path.starts_with(&n.path)
                    && path.as_bytes()[n.path.len()] == b'.'
            })
            .max_by_key(|n| n.path.len())
    }

    pub(super) fn get(&self, scope: usize, name: &str) -> Option<&Bindings> {
        self.0.get(name)?.get(&scope)
    }

    pub(super) fn get_mut(&mut self, scope: usize, name: &str) -> Option<&mut Bindings> {
        self.0.get_mut(name)?.get_mut(&scope)
    }

    pub(super) fn entry(&mut self, scope: usize, name: &str) -> &mut Bindings {
        if !self.0.contains_key(name) {
            self.0.insert(name.to_owned(), Map::default());
        }
        self.0.get_mut(name).expect("inserted above").entry(scope).or_default()
    }

    pub(super) fn insert(&mut self, scope: usize, name: &str, bindings: Bindings) {
        *self.entry(scope, name) = bindings;
    }
}

pub(super) fn binding_at(bindings: &Bindings, pos: usize) -> &Binding {
    // (The first binding is never a narrowing: one follows the binding it narrows.)
    bindings.iter().rev().find(|b| b.effective <= pos && b.seen_at(pos)).or(bindings.first()).expect("non-empty")
}

/// A Python dict literal's lambdas (`OPS = {"add": lambda a, b: add(a, b)}`) are entries too:
/// the lambdas' definitions, which the literal's own reading of names cannot give.
fn with_lambda_entries(
    value: Option<ValueSource>,
    parent: Option<Node>,
    src: &[u8],
    def_by_node: &Map<usize, u32>,
    facts: &FileFacts,
) -> Option<ValueSource> {
    let Some(right) = parent.filter(|p| p.kind_name() == "assignment").and_then(|p| p.field("right")) else { return value };
    if right.kind_name() != "dictionary" {
        return value;
    }
    let mut items = match value {
        Some(ValueSource::Items(items)) => items,
        None => Vec::new(),
        other => return other,
    };
    for pair in named_children(right).into_iter().filter(|n| n.kind_name() == "pair") {
        let (Some(k), Some(v)) = (pair.field("key"), pair.field("value")) else { continue };
        let (Some(key), Some(&def)) = (python::literal_key(k, src), def_by_node.get(&v.id()).filter(|_| v.kind_name() == "lambda")) else {
            continue;
        };
        items.push((key, ValueSource::Def(facts.symbols[def as usize].qname.clone())));
    }
    (!items.is_empty()).then_some(ValueSource::Items(items))
}

/// The bindings that may reach a use at `pos`: the last one before it and, while that one was
/// made in a branch the use is not in (`if …: h = a` / `else: h = b`, a loop or `try` body),
/// the ones before it, latest first (empty in straight-line code: nothing is allocated on the
/// common path).
pub(super) fn reaching(bindings: &Bindings, pos: usize) -> (&Binding, Vec<&Binding>) {
    let Some(mut i) = bindings.iter().rposition(|b| b.effective <= pos && b.seen_at(pos)) else {
        return (bindings.first().expect("non-empty"), Vec::new());
    };
    let last = &bindings[i];
    let mut earlier = Vec::new();
    while let Some((start, end)) = bindings[i].branch {
        if start <= pos && pos < end {
            break;
        }
        // The binding before it that this use can see (a narrowing elsewhere it cannot).
        let Some(before) = bindings[..i].iter().rposition(|b| b.seen_at(pos)) else { break };
        i = before;
        earlier.push(&bindings[i]);
    }
    (last, earlier)
}

/// The extent of the branch a binding is made in, inside its own scope: the arm of an `if`
/// (`elif` / `else` clause, consequence), a loop's body, a `try` body or handler, a `case`.
/// A rebinding in a function nested in the scope (a closure's `h = b`) runs when that function
/// is called: its extent. `None` when the binding runs whenever its scope does up to it.
fn branch_of<'t>(p: &Parents<'t>, ident: Node<'t>, scope: (usize, usize)) -> Option<(usize, usize)> {
    let mut child = ident;
    for _ in 0..64 {
        let parent = p.of(child)?;
        match parent.kind_name() {
            "function_definition"
            | "class_definition"
            | "lambda"
            | "module"
            | "program"
            | "function_declaration"
            | "function_expression"
            | "arrow_function"
            | "method_definition"
            | "class_body"
            | "generator_function"
            | "generator_function_declaration" => {
                let nested = scope.0 < parent.start_byte() && parent.end_byte() <= scope.1;
                return nested.then(|| (parent.start_byte(), parent.end_byte()));
            }
            "if_statement"
            | "for_statement"
            | "for_in_statement"
            | "while_statement"
            | "try_statement"
            | "switch_body"
            | "match_statement"
            | "conditional_expression"
            | "ternary_expression"
                if parent.field("condition").is_none_or(|c| c.id() != child.id()) && !matches!(child.kind_name(), "finally_clause") =>
            {
                return Some((child.start_byte(), child.end_byte()));
            }
            _ => child = parent,
        }
    }
    None
}

/// Where a binding written at `ident` takes effect: after the statement that assigns it.
fn effective_position<'t>(p: &Parents<'t>, ident: Node<'t>, parent: Option<Node<'t>>) -> usize {
    let mut cur = parent;
    for _ in 0..4 {
        match cur {
            Some(n)
                if matches!(
                    n.kind_name(),
                    "assignment" | "variable_declarator" | "named_expression" | "augmented_assignment" | "assignment_expression"
                ) =>
            {
                return n.end_byte();
            }
            // A comprehension's variable is bound in the whole comprehension, the element
            // written before its `for` included (`{g.strip() for g in parts}`).
            Some(n) if n.kind_name() == "for_in_clause" => return p.of(n).map_or(ident.start_byte(), |c| c.start_byte()),
            Some(n)
                if matches!(
                    n.kind_name(),
                    "pattern_list"
                        | "tuple_pattern"
                        | "list_pattern"
                        | "object_pattern"
                        | "array_pattern"
                        | "pair_pattern"
                        | "shorthand_property_identifier_pattern"
                        | "assignment_pattern"
                        | "object_assignment_pattern"
                        | "rest_pattern"
                        | "list_splat_pattern"
                ) =>
            {
                cur = p.of(n)
            }
            _ => break,
        }
    }
    ident.start_byte()
}

/// Decides how the first segment of `path` is bound at a reference site.
#[allow(clippy::too_many_arguments)]
pub(super) fn bind(
    lang: Lang,
    path: &str,
    pos: usize,
    inner: Option<usize>,
    src_sym: u32,
    nesting: &Nesting,
    locals: &Locals,
    facts: &FileFacts,
) -> LocalBinding {
    let root = crate::dotted::root(path);
    let enclosing_class = |stop_at_method: bool| -> Option<&str> {
        // Walk up the definitions to the class whose member we are in.
        let mut s = Some(src_sym);
        let mut steps = 0;
        while let Some(i) = s {
            let sym = &facts.symbols[i as usize];
            if sym.kind == SymbolKind::Class {
                return Some(sym.qname.as_str());
            }
            if stop_at_method && lang.is_script() && sym.kind == SymbolKind::Function {
                return None; // `this` in a plain function is not the class instance
            }
            // `this` in a method of an object literal (`const api = { load() { this.parse() } }`)
            // is the object.
            if lang.is_script() && steps == 1 && sym.kind.is_value() && facts.symbols[src_sym as usize].kind == SymbolKind::Method {
                return Some(sym.qname.as_str());
            }
            s = sym.parent;
            steps += 1;
            if steps > MAX_SCOPE_WALK {
                return None;
            }
        }
        None
    };
    match (lang.is_script(), root) {
        // The `this` of a callback `function`: not known.
        (true, "this") if nesting.this_rebound(inner) => return LocalBinding::Var(None),
        (true, "this") | (false, "self") | (false, "cls") => {
            if let Some(class) = enclosing_class(true) {
                return LocalBinding::SelfOf(class.to_string());
            }
        }
        (true, "super") | (false, "super()") => {
            if let Some(class) = enclosing_class(false) {
                return LocalBinding::SuperOf(class.to_string());
            }
        }
        _ => {}
    }
    let (bare, _) = crate::facts::split_segment(root);
    let reaching = lookup_reaching(bare, pos, inner, nesting, locals);
    if let Some((last, earlier)) = reaching.as_ref().filter(|(_, earlier)| !earlier.is_empty()) {
        return LocalBinding::Var(join(std::iter::once(*last).chain(earlier.iter().copied()), facts));
    }
    let last = reaching.map(|(last, _)| last);
    match last.map(|b| &b.local) {
        Some(Local::Def(sym)) => LocalBinding::Def(facts.symbols[*sym as usize].qname.clone()),
        // `obj = Local()` with a class defined in the function: an instance of that class.
        Some(Local::Var(Some(ValueSource::Call(p) | ValueSource::New(p)))) if !p.contains('.') => {
            let last = last.expect("matched");
            match lookup_local(p, last.effective, inner, nesting, locals) {
                Some(Local::Def(sym)) if facts.symbols[*sym as usize].kind == SymbolKind::Class => {
                    LocalBinding::Var(Some(ValueSource::SelfOf(facts.symbols[*sym as usize].qname.clone())))
                }
                _ => LocalBinding::Var(last.local.value().cloned()),
            }
        }
        // Each element of a local (`for x in xs`, `xs.forEach((x) => …)`): an instance of the
        // class it is declared a container of (`xs: List[Item]`, `items: Item[]`); unknown when
        // the local's value is (the resolver, which sees no scopes, would read the name at
        // module level). The calls made through a parameter's elements are its `ParamUse`s.
        // (`for k, v in d.items()`: each of `d.values()`, the entries of a mapping.)
        Some(local @ (Local::Var(Some(ValueSource::Each(each))) | Local::Param { value: Some(ValueSource::Each(each)), .. }))
            if let Some((container, values)) = local_container(each) =>
        {
            let at = last.map_or(pos, |b| b.effective);
            let held = lookup_local(container, at, inner, nesting, locals);
            match held.and_then(Local::value) {
                Some(ValueSource::Each(element)) if !values && matches!(element.as_ref(), ValueSource::Annotation(_)) => {
                    LocalBinding::Var(Some(element.as_ref().clone()))
                }
                Some(ValueSource::Mapping(entry)) if values && matches!(entry.as_ref(), ValueSource::Annotation(_)) => {
                    LocalBinding::Var(Some(entry.as_ref().clone()))
                }
                // A local of unknown value: so are its elements.
                None if held.is_some() => LocalBinding::Var(None),
                // `ps = cmd.params` then `for p in ps`: the elements of what the local holds.
                Some(v @ (ValueSource::Alias(_) | ValueSource::Call(_))) if !values => {
                    LocalBinding::Var(Some(ValueSource::Each(Box::new(v.clone()))))
                }
                _ => LocalBinding::Var(local.value().cloned()),
            }
        }
        Some(Local::Var(v) | Local::Param { value: v, .. }) => LocalBinding::Var(v.clone()),
        None => LocalBinding::Free,
    }
}

/// The local a loop's elements come from: `xs` of `for x in xs`, and of `for v in d.values()`
/// `d` with `true` (the entries of a mapping).
fn local_container(each: &ValueSource) -> Option<(&str, bool)> {
    match each {
        ValueSource::Alias(p) if !p.contains('.') => Some((p, false)),
        ValueSource::Call(p) => p.strip_suffix(".values").filter(|d| !d.contains('.')).map(|d| (d, true)),
        _ => None,
    }
}

/// The value of a name several bindings may reach (`if …: h = a` / `else: h = b`): any one of
/// theirs, written as the elements of a container the name takes each of. Unknown values and
/// entry reads are left out; `None` when none is known.
fn join<'l>(reaching: impl Iterator<Item = &'l Binding>, facts: &FileFacts) -> Option<ValueSource> {
    ValueSource::one_of(reaching.filter_map(|b| match &b.local {
        Local::Def(sym) => Some(ValueSource::Def(facts.symbols[*sym as usize].qname.clone())),
        // A value that is itself one of several (a loop variable) is not followed further.
        Local::Var(Some(ValueSource::Each(inner))) | Local::Param { value: Some(ValueSource::Each(inner)), .. }
            if !matches!(inner.as_ref(), ValueSource::Items(_)) =>
        {
            None
        }
        // An entry read (`document = document.children[0]`) is followed on its own, not as one
        // of several values: an entry the resolver cannot read would leave the others unknown.
        Local::Var(Some(ValueSource::Alias(p))) if p.contains(".[") => None,
        Local::Var(v) | Local::Param { value: v, .. } => v.clone(),
    }))
}

/// A value written through another local (`result = pytester.runpytest()` with a parameter
/// `pytester: Pytester`, `const b = a.get()` with `const a = make()`): the path starts again from
/// where that local's value came from (`Pytester.runpytest`, `make().get`), so that the
/// resolver, which sees no scopes, can follow it. A value read from a local whose own value is
/// unknown (`x = cb` with a parameter `cb`) is unknown: `None`, not the module's `cb`. Each of
/// several values (`h = h or default`) is rewritten on its own. Other values are returned as
/// they are.
fn through_local<'l>(value: ValueSource, lookup: &impl Fn(&str) -> Option<&'l Local>) -> Option<ValueSource> {
    if let ValueSource::Each(inner) = &value {
        match inner.as_ref() {
            ValueSource::Items(items) => return ValueSource::one_of(items.iter().filter_map(|(_, v)| through_local(v.clone(), lookup))),
            // `for p in cmd.params` with a parameter `cmd: Command`: the elements of
            // `Command.params`; with a local of unknown value, unknown. (A loop over a bare
            // local, `for x in xs`, is read from the local's own value where the name is bound.)
            ValueSource::Alias(p) | ValueSource::Call(p) if p.contains('.') => {
                return match through_local(inner.as_ref().clone(), lookup) {
                    Some(v @ (ValueSource::Alias(_) | ValueSource::Call(_))) => Some(ValueSource::Each(Box::new(v))),
                    None => None,
                    Some(_) => Some(value),
                };
            }
            _ => return Some(value),
        }
    }
    let (ValueSource::Call(path) | ValueSource::Alias(path) | ValueSource::New(path)) = &value else { return Some(value) };
    let (root, rest) = match crate::dotted::split_once(path) {
        Some((root, rest)) => (root, Some(rest)),
        None => (path.as_str(), None),
    };
    if matches!(root, "self" | "cls" | "this" | "super") || root.contains('(') {
        return Some(value);
    }
    let held = match lookup(root) {
        Some(Local::Var(Some(held)) | Local::Param { value: Some(held), .. }) => held,
        // (A value taken out of `*args` / `**kwargs` stays as written: a dispatch gap.)
        Some(Local::Var(None) | Local::Param { value: None, splat: 0, .. }) => return None,
        _ => return Some(value),
    };
    // `first = items[0]`, `opt = opts[name].option` with `items: List[Item]` / `opts: Dict[str,
    // Entry]`: an entry is an instance of the class, the path goes on from it.
    if let (Some(ValueSource::Annotation(t)), Some(rest)) = (held.declared_entry(), rest) {
        let (entry, more) = crate::dotted::split_once(rest).unwrap_or((rest, ""));
        // (`opt = opts.get(name)` with `opts: Dict[str, Option]`: an entry too.)
        let lookup = matches!(held, ValueSource::Mapping(_))
            && matches!(value, ValueSource::Call(_))
            && crate::facts::MAPPING_LOOKUPS.contains(&rest);
        if lookup {
            return Some(ValueSource::Annotation(t.clone()));
        }
        if entry.starts_with('[') && crate::facts::split_segment(entry).1 == crate::facts::Step::Member {
            return Some(match (more, &value) {
                ("", ValueSource::Alias(_)) => ValueSource::Annotation(t.clone()),
                ("", _) => value,
                (more, ValueSource::Call(_)) => ValueSource::Call(format!("{t}.{more}")),
                (more, ValueSource::Alias(_)) => ValueSource::Alias(format!("{t}.{more}")),
                (more, _) => ValueSource::New(format!("{t}.{more}")),
            });
        }
    }
    // The value read through `held`, written from `prefix` (what `held` is) on.
    let from = |prefix: String, held: &ValueSource| match (rest, &value) {
        (Some(rest), ValueSource::Call(_)) => ValueSource::Call(format!("{prefix}.{rest}")),
        (Some(rest), ValueSource::Alias(_)) => ValueSource::Alias(format!("{prefix}.{rest}")),
        (Some(rest), _) => ValueSource::New(format!("{prefix}.{rest}")),
        // `b = a`: what `a` holds.
        (None, ValueSource::Alias(_)) => held.clone(),
        // `comp = comp_cls()` with `comp_cls = completion_class(name)`: what calling that value
        // gives (not for a declared instance, whose path names its class).
        (None, ValueSource::Call(_)) if matches!(held, ValueSource::Alias(_) | ValueSource::Call(_) | ValueSource::New(_)) => {
            ValueSource::Call(prefix)
        }
        (None, _) => value.clone(),
    };
    let prefix = match held {
        ValueSource::Annotation(t) => t.clone(),
        ValueSource::New(t) | ValueSource::Call(t) if !t.ends_with(')') => format!("{t}()"),
        ValueSource::Alias(p) => p.clone(),
        // The instance of a method whose first parameter is not named `self` (`__self`):
        // written as `self`, which the resolver binds from the method the value is read in.
        ValueSource::SelfOf(_) => "self".to_string(),
        // `y = x.get()` with `x: Union[A, B]`: what either gives (else the resolver, which
        // sees no scopes, would read `x` at module level); `w = factory()` with `factory:
        // Type[Widget]` (`Widget` or a subclass): what calling it gives, still one of several.
        ValueSource::Each(alternatives)
            if let ValueSource::Items(alternatives) = alternatives.as_ref()
                && alternatives.iter().all(|(_, a)| matches!(a, ValueSource::Annotation(_) | ValueSource::Alias(_))) =>
        {
            let mut values: Vec<ValueSource> = alternatives
                .iter()
                .filter_map(|(_, a)| match a {
                    ValueSource::Annotation(t) | ValueSource::Alias(t) => Some(from(t.clone(), a)),
                    _ => None,
                })
                .collect();
            return if values.len() == 1 { values.pop().map(ValueSource::possibly) } else { ValueSource::one_of(values) };
        }
        _ => return Some(value),
    };
    Some(from(prefix, held))
}

/// The bindings of a name that may reach a use at `pos` ([`reaching`]), in the nearest
/// enclosing scope that binds it.
pub(super) fn lookup_reaching<'l>(
    name: &str,
    pos: usize,
    inner: Option<usize>,
    nesting: &Nesting,
    locals: &'l Locals,
) -> Option<(&'l Binding, Vec<&'l Binding>)> {
    lookup_bindings(name, inner, nesting, locals).map(|b| reaching(b, pos))
}

/// The local binding of a name seen at `pos`, searching the enclosing scopes outwards.
pub(super) fn lookup_local<'l>(name: &str, pos: usize, inner: Option<usize>, nesting: &Nesting, locals: &'l Locals) -> Option<&'l Local> {
    lookup_binding(name, pos, inner, nesting, locals).map(|b| &b.local)
}

/// [`lookup_local`], with where the binding is written.
pub(super) fn lookup_binding<'l>(
    name: &str,
    pos: usize,
    inner: Option<usize>,
    nesting: &Nesting,
    locals: &'l Locals,
) -> Option<&'l Binding> {
    lookup_bindings(name, inner, nesting, locals).map(|b| binding_at(b, pos))
}

/// The bindings of a name in the nearest enclosing scope that binds it.
pub(super) fn lookup_bindings<'l>(name: &str, inner: Option<usize>, nesting: &Nesting, locals: &'l Locals) -> Option<&'l Bindings> {
    let scopes = locals.0.get(name)?;
    binding_scope(inner, nesting, |s| scopes.contains_key(&s)).and_then(|s| scopes.get(&s))
}

/// [`lookup_bindings`], to change them.
pub(super) fn lookup_bindings_mut<'l>(
    name: &str,
    inner: Option<usize>,
    nesting: &Nesting,
    locals: &'l mut Locals,
) -> Option<&'l mut Bindings> {
    let scopes = locals.0.get_mut(name)?;
    let scope = binding_scope(inner, nesting, |s| scopes.contains_key(&s))?;
    scopes.get_mut(&scope)
}

/// The nearest scope enclosing `inner` that `binds` a name.
fn binding_scope(inner: Option<usize>, nesting: &Nesting, binds: impl Fn(usize) -> bool) -> Option<usize> {
    let mut scope = nesting.scope_of(inner);
    let mut first = true;
    let mut steps = 0;
    while let Some(s) = scope {
        let interval = &nesting.intervals[s];
        // Python: names in a class body are not visible from the functions inside it.
        if (first || !interval.class_like) && binds(s) {
            return Some(s);
        }
        first = false;
        scope = interval.scope_above;
        steps += 1;
        if steps > MAX_SCOPE_WALK {
            break;
        }
    }
    None
}

impl<'t> File<'t, '_> {
    /// The names each scope binds, in source order (a use sees the binding before it); and the
    /// bindings that are value symbols: module level, a Python class body, a TS namespace body.
    pub(super) fn bind_locals(&self, facts: &FileFacts, probe: &mut Option<Probe>) -> (Locals, Vec<ValueBinding<'t>>) {
        let (lang, is_py, src, caps, nesting) = (self.lang, self.is_py, self.src, &self.caps, &self.nesting);
        let (iv, sym_of_def, def_by_node) = (&nesting.intervals, &self.sym_of_def, &self.def_by_node);
        let mut locals = Locals::default();
        let assigned_def = |parent: Option<Node>| -> Option<u32> {
            let parent = parent?;
            let right = match parent.kind_name() {
                "assignment" => parent.field("right")?,
                _ => return None,
            };
            def_by_node.get(&right.id()).copied()
        };
        // Names declared `global` / `nonlocal` in a scope are not its locals.
        let globals: crate::resolve::Set<(usize, String)> = caps
            .globals
            .iter()
            .zip(&self.points.globals)
            .filter_map(|(n, p)| nesting.scope_of(p.2).map(|s| (s, text(*n, src).into_owned())))
            .collect();
        // Bindings that are value symbols: module level, a Python class body, a TS namespace body.
        let mut value_bindings: Vec<ValueBinding> = Vec::new();
        let mut module_declared: crate::resolve::Set<String> = crate::resolve::Set::default();
        let mut value_named: crate::resolve::Set<(u32, String)> = crate::resolve::Set::default();
        // The file's imports, read once when a call may be `typing.cast` or `functools.partial`.
        let mut imports: Option<Vec<ImportFact>> = None;
        // Whether each `def` with parameters is a `@staticmethod` (one parent lookup per `def`).
        let mut static_def: Map<u32, bool> = Map::default();
        for (node, point) in caps.local_defs.iter().zip(&self.points.local_defs) {
            let name = text(*node, src).into_owned();
            // `Node::parent` walks down from the root: look it up once per binding.
            let parent = self.parents.of(*node);
            // `var f = function g() { … g() … }`: inside, `g` is the function itself (the
            // definition named by its declarator or key).
            let own_name = parent
                .filter(|p| p.kind_name() == "function_expression")
                .and_then(|f| def_by_node.get(&f.id()).or_else(|| self.parents.of(f).and_then(|d| def_by_node.get(&d.id()))).copied());
            let def = assigned_def(parent).or(own_name);
            let mut scope = nesting.scope_of(point.2);
            // Python's `:=` in a comprehension and TS's `var` bind in the enclosing function.
            let hoisted = if is_py {
                parent.is_some_and(|p| p.kind_name() == "named_expression")
            } else {
                typescript::declared_var(&self.parents, *node)
            };
            if hoisted {
                // Up to the scope of the function the binding is in (none: the module).
                let func = function_ancestor(&self.parents, *node);
                while let Some(sc) = scope {
                    if func.is_some_and(|f| iv[sc].start <= f.start_byte() && f.end_byte() <= iv[sc].end) {
                        break;
                    }
                    scope = iv[sc].scope_above;
                }
            }
            // `h = b` (TS/JS) rebinds the name where it is declared: the nearest enclosing scope
            // that binds it, or the module's value; an undeclared name binds nothing.
            let reassigned = lang.is_script() && typescript::is_reassignment(*node, parent);
            if reassigned {
                while let Some(sc) = scope {
                    if locals.get(sc, &name).is_some() {
                        break;
                    }
                    scope = iv[sc].scope_above;
                }
                if scope.is_none() && !module_declared.contains(&name) {
                    continue;
                }
            }
            let container = match scope {
                None => Some(0),
                Some(sc) if is_py && iv[sc].class_like => iv[sc].def.map(|d| sym_of_def[d]),
                Some(_) if lang.is_script() => {
                    typescript::namespace_of(&self.parents, *node).and_then(|ns| def_by_node.get(&ns.id()).copied())
                }
                _ => None,
            };
            // `const fs = require('fs')` binds an import, not a value.
            // (Nor is a parameter of a function type written at module level.)
            let container = container.filter(|_| {
                !(lang.is_script()
                    && (typescript::bound_by_require(&self.parents, *node, src) || typescript::is_parameter(&self.parents, *node)))
            });
            // `xs += [f]` changes the value, it does not replace it.
            let augmented_value = parent.is_some_and(|p| p.kind_name() == "augmented_assignment")
                && value_named.contains(&(container.unwrap_or(0), name.clone()));
            if let Some(container) = container.filter(|_| !augmented_value) {
                let value = match def {
                    Some(sym) => Some(ValueSource::Def(facts.symbols[sym as usize].qname.clone())),
                    None if is_py => {
                        let value = with_lambda_entries(value_source(&self.parents, lang, *node, src), parent, src, def_by_node, facts);
                        self.known_call_value(value, parent, &mut imports)
                    }
                    None => value_source(&self.parents, lang, *node, src),
                };
                if container == 0 && !reassigned {
                    module_declared.insert(name.clone());
                }
                let extent = scope.map_or((0, src.len()), |sc| (iv[sc].start, iv[sc].end));
                let conditional = !value_named.insert((container, name.clone())) && branch_of(&self.parents, *node, extent).is_some();
                value_bindings.push(ValueBinding { node: *node, name: name.clone(), value, container, scope, conditional });
            }
            let Some(scope) = scope else { continue };
            if globals.contains(&(scope, name.clone())) {
                continue;
            }
            // `const db = require('./db')` in a function binds an import of that function's
            // scope (as `import` in a Python function does), not a local value.
            if lang.is_script() && typescript::bound_by_require(&self.parents, *node, src) {
                continue;
            }
            // A parameter: its scope is the `def` it belongs to.
            let func_node = iv[scope].def.map(|d| caps.defs[d].1).filter(|f| is_py && f.kind_name() == "function_definition");
            let param = func_node.and_then(|f| python::parameter_of(f, *node).map(|(index, splat)| (f, index, splat)));
            // TS/JS: the function a parameter belongs to is the definition named by it or by its
            // declarator or key (`const apply = (f) => f()`).
            let script_param = typescript::parameter_of(&self.parents, *node).filter(|_| lang.is_script()).and_then(|(f, index, splat)| {
                let func = def_by_node.get(&f.id()).or_else(|| self.parents.of(f).and_then(|d| def_by_node.get(&d.id())))?;
                Some((*func, index, splat))
            });
            // A constructor parameter property is the class's property, in the constructor too.
            let def =
                def.or_else(|| parent.filter(|p| p.kind_name() == "required_parameter").and_then(|p| def_by_node.get(&p.id()).copied()));
            let destructured = match lang.is_script() && script_param.is_none() {
                true => typescript::destructured_parameter_of(&self.parents, *node, src).and_then(|(f, index, member)| {
                    let func = def_by_node.get(&f.id()).or_else(|| self.parents.of(f).and_then(|d| def_by_node.get(&d.id())))?;
                    Some((*func, index, member))
                }),
                false => None,
            };
            let local = match (def, param) {
                (Some(sym), _) => Local::Def(sym),
                (None, None) if script_param.is_some() => {
                    let (func, index, splat) = script_param.expect("checked");
                    let value = match lang {
                        // `/** @param {Store} store */`: the declared type, as in TypeScript.
                        Lang::JavaScript => self.jsdoc_param(*node).or_else(|| value_source(&self.parents, lang, *node, src)),
                        _ => value_source(&self.parents, lang, *node, src),
                    };
                    Local::Param { func, index, splat, value, member: None }
                }
                (None, None) if destructured.is_some() => {
                    let (func, index, member) = destructured.expect("checked");
                    // Of a typed parameter (`({ store }: Props)`), the member's declared type.
                    let value = value_source(&self.parents, lang, *node, src);
                    Local::Param { func, index, splat: 0, value, member: Some(member) }
                }
                (None, Some((func_node, index, splat))) if def_by_node.contains_key(&func_node.id()) => {
                    let func = def_by_node[&func_node.id()];
                    // `self` / `cls` of a method is not passed by the call.
                    let bound = facts.symbols[func as usize].kind == SymbolKind::Method
                        && !*static_def.entry(func).or_insert_with(|| python::is_static(&self.parents, func_node, src));
                    let first = bound && index == Some(0);
                    let index = match (index, bound) {
                        (Some(0), true) => None,
                        (Some(i), true) => Some(i - 1),
                        (i, false) => i,
                        (None, true) => None,
                    };
                    // The first parameter of an instance method is the instance, whatever its
                    // name (`def invoke(__self, …)`; `self` itself is bound as such already).
                    let value = match facts.symbols[func as usize].parent {
                        Some(class)
                            if first
                                && facts.symbols[class as usize].kind == SymbolKind::Class
                                && !python::has_decorator(&self.parents, func_node, src, "@classmethod") =>
                        {
                            Some(ValueSource::SelfOf(facts.symbols[class as usize].qname.clone()))
                        }
                        _ => value_source(&self.parents, lang, *node, src),
                    };
                    Local::Param { func, index, splat, value, member: None }
                }
                (None, _) => {
                    let value = value_source(&self.parents, lang, *node, src);
                    let value = if is_py { self.known_call_value(value, parent, &mut imports) } else { value };
                    Local::Var(
                        value.and_then(|v| through_local(v, &|root| lookup_local(root, node.start_byte(), Some(scope), nesting, &locals))),
                    )
                }
            };
            let parameter = matches!(local, Local::Param { .. }) || (lang.is_script() && typescript::is_parameter(&self.parents, *node));
            let bindings = locals.entry(scope, &name);
            // `x += 1` uses the binding before it (it only makes `x` local when there is none).
            let augmented = parent.is_some_and(|p| p.kind_name() == "augmented_assignment");
            if !augmented || bindings.is_empty() {
                // Only a rebinding needs its branch: a use walks back from the last binding.
                let branch = if bindings.is_empty() { None } else { branch_of(&self.parents, *node, (iv[scope].start, iv[scope].end)) };
                // A reassignment's name is the declaration's (where `def` answers).
                let site = if reassigned { bindings.last().map_or(node.start_byte(), |b| b.site) } else { node.start_byte() };
                bindings.push(Binding { effective: effective_position(&self.parents, *node, parent), site, local, branch, within: None });
                if container.is_none()
                    && !reassigned
                    && !matches!(bindings.last().map(|b| &b.local), Some(Local::Def(_)))
                    && Probe::covers(probe, *node)
                {
                    let (line, col) = position(*node);
                    Probe::set(probe, PositionFact::Local { name, line, col, parameter });
                }
            }
        }
        (locals, value_bindings)
    }

    /// A JavaScript parameter's value as its function's JSDoc declares it (`@param {Store}
    /// store`); the module an `import('./db')` type names is noted as a type-only import.
    fn jsdoc_param(&self, ident: Node<'t>) -> Option<ValueSource> {
        let (value, spec) = super::jsdoc::param_value(&self.parents, ident, self.src, &self.typedefs)?;
        // (Once per module: `jsdoc::note_import` keeps the first.)
        if let Some(spec) = spec {
            self.jsdoc_imports.borrow_mut().push((spec, position(ident)));
        }
        Some(value)
    }

    /// A Python assignment's value as the function it calls says: `b = cast(Base, x)` an
    /// instance of `Base`, as far as the checker goes; `h = partial(f, x)` the function `f`
    /// (calling `h` calls `f`); any other value as it is.
    fn known_call_value(
        &self,
        value: Option<ValueSource>,
        assign: Option<Node>,
        imports: &mut Option<Vec<ImportFact>>,
    ) -> Option<ValueSource> {
        match value {
            Some(ValueSource::Call(callee)) if self.names_import(&callee, TYPING_CAST, imports) => {
                assign.and_then(|p| python::cast_type(p, self.src))
            }
            Some(ValueSource::Call(callee)) if self.names_import(&callee, FUNCTOOLS_PARTIAL, imports) => {
                assign.and_then(|p| python::partial_function(p, self.src))
            }
            v => v,
        }
    }

    /// Whether `callee` names one of `wanted` (module, name) here: `cast` after `from typing
    /// import cast`, `t.cast` after `import typing as t`; `imports` keeps the file's imports
    /// once read.
    fn names_import(&self, callee: &str, wanted: &[(&str, &str)], imports: &mut Option<Vec<ImportFact>>) -> bool {
        let last = callee.rsplit('.').next().unwrap_or(callee);
        if !wanted.iter().any(|(_, name)| *name == last) {
            return false;
        }
        let imports = imports.get_or_insert_with(|| {
            let mut imports = Vec::new();
            for (_, node) in &self.caps.imports {
                python::imports(*node, self.src, 0, &mut imports);
            }
            imports
        });
        imports.iter().any(|i| {
            wanted.iter().any(|&(module, name)| {
                i.specifier == module
                    && match (i.imported.as_deref(), i.local.as_deref()) {
                        (Some(imported), local) => imported == name && local.unwrap_or(name) == callee,
                        (None, Some(m)) => callee.strip_prefix(m).and_then(|r| r.strip_prefix('.')) == Some(name),
                        (None, None) => false,
                    }
            })
        })
    }

    /// A nested definition binds its name for the whole scope it is in.
    /// Entries a Python function's own statements add to a local container after its literal
    /// (`table = {}; table["x"] = f; return table`): the binding they follow gains them, as a
    /// module-level container does (see `python::container_writes`).
    /// A loop over a local list or dict literal (`fns = [a, b]` then `for f in fns: f()`;
    /// `for (const f of fns)`) takes its entries, as a loop over a module-level one does: the
    /// container is looked up from the loop's scope outwards, with the value it holds where
    /// the loop is.
    pub(super) fn loops_over_local_literals(&self, locals: &mut Locals) {
        let mut entries: Vec<(String, usize, usize, ValueSource)> = Vec::new();
        for (var, by_scope) in &locals.0 {
            for (&scope, bindings) in by_scope {
                for (k, b) in bindings.iter().enumerate() {
                    let Local::Var(Some(ValueSource::Each(each))) = &b.local else { continue };
                    let ValueSource::Alias(container) = each.as_ref() else { continue };
                    if container.contains('.') {
                        continue;
                    }
                    let mut at = Some(scope);
                    while let Some(s) = at {
                        if let Some(held) = locals.get(s, container) {
                            if let Some(items @ ValueSource::Items(_)) = binding_at(held, b.effective).local.value() {
                                entries.push((var.clone(), scope, k, items.clone()));
                            }
                            break;
                        }
                        at = self.nesting.intervals[s].scope_above;
                    }
                }
            }
        }
        for (var, scope, k, items) in entries {
            if let Some(bindings) = locals.get_mut(scope, &var)
                && let Local::Var(Some(ValueSource::Each(each))) = &mut bindings[k].local
            {
                **each = items;
            }
        }
    }

    pub(super) fn add_local_container_writes(&self, locals: &mut Locals) {
        if !self.is_py {
            return;
        }
        // Only a variable of the function's own can take entries: the bodies of the other
        // functions (most of them) are not read.
        let with_vars: Set<usize> = locals
            .0
            .values()
            .flat_map(|by_scope| by_scope.iter())
            .filter(|(_, bindings)| bindings.iter().any(|b| matches!(b.local, Local::Var(_))))
            .map(|(&scope, _)| scope)
            .collect();
        for (i, interval) in self.nesting.intervals.iter().enumerate() {
            if !with_vars.contains(&i) {
                continue;
            }
            let Some(d) = interval.def.filter(|_| interval.scope) else { continue };
            let node = self.caps.defs[d].1;
            let Some(body) = node.field("body").filter(|_| node.kind_name() == "function_definition") else { continue };
            let mut filled: Vec<String> = Vec::new();
            for (at, name, key, value) in python::container_writes(body, self.src) {
                let Some(bindings) = locals.get_mut(i, &name) else { continue };
                let Some(b) = bindings.iter_mut().rev().find(|b| b.effective <= at) else { continue };
                if let Local::Var(held) = &mut b.local {
                    super::values::add_entry(held, key, value);
                    filled.push(name);
                }
            }
            // A loop over one of them (`for step in steps:`) takes its entries.
            for name in filled {
                let Some(container) = locals.get(i, &name).cloned() else { continue };
                for bindings in locals.0.values_mut().filter_map(|by_scope| by_scope.get_mut(&i)) {
                    for b in bindings.iter_mut() {
                        let Local::Var(Some(ValueSource::Each(each))) = &mut b.local else { continue };
                        if matches!(each.as_ref(), ValueSource::Alias(n) if *n == name)
                            && let Some(items @ ValueSource::Items(_)) = binding_at(&container, b.effective).local.value()
                        {
                            **each = items.clone();
                        }
                    }
                }
            }
        }
    }

    pub(super) fn bind_nested_definitions(&self, locals: &mut Locals, facts: &FileFacts) {
        let (caps, iv, sym_of_def) = (&self.caps, &self.nesting.intervals, &self.sym_of_def);
        for (i, interval) in iv.iter().enumerate() {
            let Some(d) = interval.def else { continue };
            let sym = &facts.symbols[sym_of_def[d] as usize];
            if matches!(sym.kind, SymbolKind::Method | SymbolKind::Property | SymbolKind::Lambda) || sym.name == "default" {
                continue;
            }
            if let Some(scope) = iv[i].scope_above {
                // A nested definition binds its name for the whole scope.
                let site = caps.defs[d].2.unwrap_or(caps.defs[d].1).start_byte();
                locals.insert(
                    scope,
                    &sym.name,
                    vec![Binding { effective: 0, site, local: Local::Def(sym_of_def[d]), branch: None, within: None }],
                );
            }
        }
    }
}
