//! Extraction: `(path, bytes, language) -> FileFacts`, a pure function of one file.
//!
//! The language knowledge is in `grammars/<lang>/*.scm`: one query per grammar finds
//! definitions, references, imports, scopes and local names. This module turns the captures
//! into facts in three steps:
//!
//! 1. run the query once over the tree and sort the captures by role;
//! 2. sweep the definition and scope nodes (which nest like the tree) with a stack, giving
//!    every node its enclosing definition and scope without recursion, so deeply nested code
//!    cannot overflow the stack;
//! 3. name the definitions (qnames), attach each reference to its enclosing definition, and
//!    decide from the file's own scopes whether the reference's first name is local
//!    ([`LocalBinding`]). Everything that needs another file is left to `resolve`.
//!
//! What queries cannot say (the shape of import statements, Python's `self`) lives in the
//! per-language modules [`python`] and [`typescript`].

mod python;
mod typescript;

use std::collections::HashMap;

use tree_sitter::{Node, Parser, QueryCursor, StreamingIterator, Tree};

use crate::facts::{Diagnostic, DiagnosticKind, FileFacts, LocalBinding, ParamUse, RefFact, RefKind, SymbolFact, SymbolKind, ValueSource};
use crate::lang::{Capture, DefKind, Grammar, Lang, LanguageConfig};

/// Scope chains longer than this are not searched for local names (pathological nesting);
/// the name is then treated as free and the resolver decides.
const MAX_SCOPE_WALK: usize = 256;
/// Dynamic call sites keep at most this many bytes of their written text.
const MAX_TEXT: usize = 60;

/// Per-thread extraction context: one parser per grammar and one query cursor.
/// Languages and queries are shared ([`LanguageConfig::get`]); this is the mutable part.
pub struct Extractor {
    parsers: HashMap<Grammar, Parser>,
    cursor: QueryCursor,
}

impl Default for Extractor {
    fn default() -> Self {
        Self::new()
    }
}

impl Extractor {
    pub fn new() -> Extractor {
        Extractor { parsers: HashMap::new(), cursor: QueryCursor::new() }
    }

    /// Parses only (the baseline that benchmarks compare full indexing with).
    pub fn parse(&mut self, lang: Lang, src: &[u8]) -> Option<Tree> {
        let grammar = lang.grammar();
        let parser = self.parsers.entry(grammar).or_insert_with(|| {
            let mut p = Parser::new();
            // The grammar alone: parsing needs no compiled query.
            p.set_language(&grammar.language()).expect("grammar ABI matches tree-sitter");
            p
        });
        parser.parse(src, None)
    }

    /// Extracts the facts of one file. Never fails: syntax errors are counted and what
    /// parses is kept; invalid UTF-8 is read lossily and reported.
    pub fn extract(&mut self, lang: Lang, module: &str, src: &[u8]) -> FileFacts {
        let mut facts = FileFacts { lines: count_lines(src), ..FileFacts::default() };
        if std::str::from_utf8(src).is_err() {
            facts.diagnostics.push(Diagnostic {
                kind: DiagnosticKind::InvalidUtf8,
                message: "file is not valid UTF-8; names were read lossily".into(),
                line: first_invalid_utf8_line(src),
            });
        }
        let Some(tree) = self.parse(lang, src) else {
            facts.diagnostics.push(Diagnostic { kind: DiagnosticKind::Timeout, message: "parser gave up on this file".into(), line: None });
            facts.symbols.push(module_symbol(lang, module, &facts));
            return facts;
        };
        let root = tree.root_node();
        if root.has_error() {
            let (count, first) = count_errors(&tree);
            facts.parse_errors = count;
            facts.diagnostics.push(Diagnostic {
                kind: DiagnosticKind::SyntaxError,
                message: format!("{count} syntax error(s); the rest of the file was indexed"),
                line: first,
            });
        }
        let config = LanguageConfig::get(lang.grammar());
        let captures = collect(&mut self.cursor, config, root, src);
        build(lang, module, src, captures, &mut facts, &mut None);
        facts
    }

    /// What is at a 1-based line and column (UTF-8 bytes) of a file: a definition's name, a
    /// local's binding, a use to resolve, an imported name, an imported module. `None` on
    /// whitespace, keywords and literals. The file's facts come with it (the imports a
    /// [`PositionFact::Import`] indexes).
    pub fn position(&mut self, lang: Lang, module: &str, src: &[u8], line: u32, col: u32) -> (FileFacts, Option<PositionFact>) {
        let mut facts = FileFacts { lines: count_lines(src), ..FileFacts::default() };
        let Some(at) = byte_offset(src, line, col) else { return (facts, None) };
        let Some(tree) = self.parse(lang, src) else { return (facts, None) };
        let config = LanguageConfig::get(lang.grammar());
        let captures = collect(&mut self.cursor, config, tree.root_node(), src);
        // A JSX closing tag names what its opening tag names.
        let at = jsx_opening_position(tree.root_node(), at).unwrap_or(at);
        let mut probe = Some(Probe { at, found: None });
        build(lang, module, src, captures, &mut facts, &mut probe);
        (facts, probe.and_then(|p| p.found))
    }
}

/// For a position on the name of a JSX closing tag (`</List>`), the same position on its
/// opening tag's name.
fn jsx_opening_position(root: Node, at: usize) -> Option<usize> {
    let mut node = root.descendant_for_byte_range(at, at)?;
    for _ in 0..4 {
        if node.kind() == "jsx_closing_element" {
            let name = node.child_by_field_name("name")?;
            let open = node.parent()?.child_by_field_name("open_tag")?.child_by_field_name("name")?;
            return Some(open.start_byte() + (at.checked_sub(name.start_byte())?).min(open.byte_range().len().saturating_sub(1)));
        }
        node = node.parent()?;
    }
    None
}

/// The byte offset of a 1-based line and column (the column counts bytes).
fn byte_offset(src: &[u8], line: u32, col: u32) -> Option<usize> {
    if line == 0 || col == 0 {
        return None;
    }
    let mut start = 0;
    for _ in 1..line {
        start += src[start..].iter().position(|&b| b == b'\n')? + 1;
    }
    let end = src[start..].iter().position(|&b| b == b'\n').map_or(src.len(), |e| start + e);
    let at = start + col as usize - 1;
    (at < end).then_some(at)
}

/// A module's own name: `mod` for `pkg.mod`, `app` for `src/app.ts` (`index` for
/// `src/index.d.ts`).
fn module_name(lang: Lang, module: &str) -> &str {
    if lang.is_script() {
        let file = module.rsplit('/').next().unwrap_or(module);
        file.split('.').next().filter(|s| !s.is_empty()).unwrap_or(file)
    } else {
        module.rsplit('.').next().unwrap_or(module)
    }
}

fn module_symbol(lang: Lang, module: &str, facts: &FileFacts) -> SymbolFact {
    SymbolFact {
        qname: module.to_string(),
        name: module_name(lang, module).to_string(),
        kind: SymbolKind::Module,
        parent: None,
        line: 1,
        col: 1,
        end_line: facts.lines.max(1),
        exported: true,
        bases: Vec::new(),
        ty: None,
        decorators: Vec::new(),
        param_uses: Vec::new(),
    }
}

/// The declared type of a definition: a function's return annotation, a property's type.
fn declared_type(lang: Lang, node: Node, src: &[u8]) -> Option<ValueSource> {
    if lang.is_script() { typescript::declared_type(node, src) } else { python::declared_type(node, src) }
}

pub(crate) fn count_lines(src: &[u8]) -> u32 {
    let n = memchr_count(b'\n', src);
    let extra = u32::from(!src.is_empty() && !src.ends_with(b"\n"));
    (n as u32).saturating_add(extra)
}

fn memchr_count(needle: u8, hay: &[u8]) -> usize {
    hay.iter().filter(|&&b| b == needle).count()
}

fn first_invalid_utf8_line(src: &[u8]) -> Option<u32> {
    let err = std::str::from_utf8(src).err()?;
    Some(count_lines(&src[..err.valid_up_to()]).max(1))
}

/// Counts ERROR and MISSING nodes with an explicit cursor walk (no recursion).
fn count_errors(tree: &Tree) -> (u32, Option<u32>) {
    let mut cursor = tree.walk();
    let mut count = 0u32;
    let mut first = None;
    loop {
        let node = cursor.node();
        if node.is_error() || node.is_missing() {
            count += 1;
            first.get_or_insert(node.start_position().row as u32 + 1);
        }
        // Only descend into subtrees that contain errors.
        if node.has_error() && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return (count, first);
            }
        }
    }
}

/// Captures sorted by role. Nodes borrow the tree.
struct Captures<'t> {
    defs: Vec<(DefKind, Node<'t>, Option<Node<'t>>)>,
    /// (kind, the `@name` node, the node the role was captured on: the call for a call).
    refs: Vec<(RefKind, Node<'t>, Node<'t>)>,
    /// Attribute nodes that are not reads: callees, assignment targets, decorators, objects
    /// of a longer chain (captured by `@skip.read`, so no parent lookups are needed).
    skip_read: std::collections::HashSet<usize>,
    scopes: Vec<Node<'t>>,
    local_defs: Vec<Node<'t>>,
    /// `global x` / `nonlocal x` names.
    globals: Vec<Node<'t>>,
    imports: Vec<(Capture, Node<'t>)>,
    exports: Vec<Node<'t>>,
    /// Returned calls: (the return statement, the callee).
    returns: Vec<(Node<'t>, Node<'t>)>,
}

fn collect<'t>(cursor: &mut QueryCursor, config: &LanguageConfig, root: Node<'t>, src: &[u8]) -> Captures<'t> {
    let mut out = Captures {
        defs: Vec::new(),
        refs: Vec::new(),
        scopes: Vec::new(),
        local_defs: Vec::new(),
        globals: Vec::new(),
        imports: Vec::new(),
        exports: Vec::new(),
        returns: Vec::new(),
        skip_read: std::collections::HashSet::new(),
    };
    let mut def_at: HashMap<usize, usize> = HashMap::new();
    let mut matches = cursor.matches(&config.query, root, src);
    while let Some(m) = matches.next() {
        let mut name = None;
        let mut role = None;
        for c in m.captures {
            match config.roles[c.index as usize] {
                Capture::Name => name = Some(c.node),
                Capture::Private => {}
                r => role = Some((r, c.node)),
            }
        }
        let Some((role, node)) = role else { continue };
        match role {
            Capture::Definition(kind) => match def_at.get(&node.id()) {
                // Two patterns can match one node (a field holding an arrow function is
                // both a property and a method); the more specific kind wins.
                Some(&i) => {
                    if def_priority(kind) > def_priority(out.defs[i].0) {
                        out.defs[i] = (kind, node, name);
                    }
                }
                None => {
                    def_at.insert(node.id(), out.defs.len());
                    out.defs.push((kind, node, name));
                }
            },
            Capture::Reference(kind) => {
                if let Some(name) = name {
                    out.refs.push((kind, name, node));
                }
            }
            Capture::LocalScope => out.scopes.push(node),
            Capture::SkipRead => {
                out.skip_read.insert(node.id());
            }
            Capture::LocalDefinition => out.local_defs.push(node),
            Capture::LocalPattern => pattern_bindings(node, &mut out.local_defs),
            Capture::LocalGlobal => out.globals.push(node),
            Capture::ImportStatement | Capture::ImportRequire | Capture::ImportDynamic => out.imports.push((role, node)),
            Capture::ExportStatement => out.exports.push(node),
            Capture::ReturnCall => {
                if let Some(name) = name {
                    out.returns.push((node, name));
                }
            }
            Capture::Name | Capture::Private => {}
        }
    }
    out
}

/// The names a destructuring pattern binds, in source order (an explicit stack: patterns
/// nest without bound). TS: `{ a, b: c, d = 1, ...e }`, `[x, , y = 2, ...z]`; Python:
/// `a, (b, c), *rest`.
fn pattern_bindings<'t>(pattern: Node<'t>, out: &mut Vec<Node<'t>>) {
    let mut stack = vec![pattern];
    let mut found = Vec::new();
    while let Some(n) = stack.pop() {
        match n.kind() {
            "identifier" | "shorthand_property_identifier_pattern" => found.push(n),
            "pair_pattern" => stack.extend(n.child_by_field_name("value")),
            "assignment_pattern" | "object_assignment_pattern" => stack.extend(n.child_by_field_name("left")),
            "object_pattern" | "array_pattern" | "rest_pattern" | "pattern_list" | "tuple_pattern" | "list_pattern"
            | "list_splat_pattern" => {
                let mut c = n.walk();
                stack.extend(n.named_children(&mut c));
            }
            _ => {}
        }
    }
    found.sort_by_key(|n| n.start_byte());
    out.extend(found);
}

fn def_priority(kind: DefKind) -> u8 {
    match kind {
        DefKind::Property => 0,
        DefKind::Variable => 1,
        _ => 2,
    }
}

/// A definition or scope node in the nesting sweep.
struct Interval {
    start: usize,
    end: usize,
    def: Option<usize>,
    scope: bool,
    class_like: bool,
    /// Nearest enclosing interval that is a definition / a scope (excluding itself).
    def_above: Option<usize>,
    scope_above: Option<usize>,
}

/// The nesting of definitions and scopes, and answers about positions in it.
struct Nesting {
    intervals: Vec<Interval>,
}

impl Nesting {
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
            while next < intervals.len() && intervals[next].start <= pos {
                let start = intervals[next].start;
                while stack.last().is_some_and(|&t| intervals[t].end <= start) {
                    stack.pop();
                }
                Self::link(&mut intervals, &stack, next);
                stack.push(next);
                next += 1;
            }
            while stack.last().is_some_and(|&t| intervals[t].end <= pos) {
                stack.pop();
            }
            points[pi].2 = stack.last().copied();
        }
        while next < intervals.len() {
            let start = intervals[next].start;
            while stack.last().is_some_and(|&t| intervals[t].end <= start) {
                stack.pop();
            }
            Self::link(&mut intervals, &stack, next);
            stack.push(next);
            next += 1;
        }
        Nesting { intervals }
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
    fn def_of(&self, inner: Option<usize>) -> Option<usize> {
        let i = inner?;
        if self.intervals[i].def.is_some() { Some(i) } else { self.intervals[i].def_above }
    }

    fn scope_of(&self, inner: Option<usize>) -> Option<usize> {
        let i = inner?;
        if self.intervals[i].scope { Some(i) } else { self.intervals[i].scope_above }
    }
}

/// A binding that is a value symbol: a module-level name, a Python class-body name, a TS
/// namespace member.
struct ValueBinding<'t> {
    node: Node<'t>,
    name: String,
    value: Option<ValueSource>,
    /// The symbol the value belongs to (0: the module).
    container: u32,
    /// The scope the binding is in (`None` at module level).
    scope: Option<usize>,
}

/// The function (or lambda, arrow function, method) a node is in.
fn function_ancestor(node: Node) -> Option<Node> {
    let mut cur = node.parent();
    while let Some(n) = cur {
        if matches!(
            n.kind(),
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
        cur = n.parent();
    }
    None
}

/// Python's convention for constants: `TIMEOUT`, `MAX_RETRIES`, `V2`.
fn is_constant_name(name: &str) -> bool {
    name.chars().any(|c| c.is_ascii_alphabetic()) && name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// What a name is bound to inside one scope of the file.
#[derive(Clone)]
enum Local {
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
    },
}

impl Local {
    fn value(&self) -> Option<&ValueSource> {
        match self {
            Local::Var(v) | Local::Param { value: v, .. } => v.as_ref(),
            Local::Def(_) => None,
        }
    }
}

/// One binding of a name: where it takes effect (after the right-hand side of an
/// assignment: `x = x + 1` reads the previous `x`), where its name is written, and what it is.
struct Binding {
    effective: usize,
    site: usize,
    local: Local,
}

/// The bindings of one name in one scope, by position: a use sees the last binding before it
/// (straight-line rebinding), or the first one when all come later (hoisting, closures).
type Bindings = Vec<Binding>;

/// The bindings of each name per scope. Keyed by name first, so a lookup walking the
/// enclosing scopes hashes the name once and borrows it (no key is allocated).
#[derive(Default)]
struct Locals(HashMap<String, HashMap<usize, Bindings>>);

impl Locals {
    fn get(&self, scope: usize, name: &str) -> Option<&Bindings> {
        self.0.get(name)?.get(&scope)
    }

    fn get_mut(&mut self, scope: usize, name: &str) -> Option<&mut Bindings> {
        self.0.get_mut(name)?.get_mut(&scope)
    }

    fn entry(&mut self, scope: usize, name: &str) -> &mut Bindings {
        if !self.0.contains_key(name) {
            self.0.insert(name.to_owned(), HashMap::new());
        }
        self.0.get_mut(name).expect("inserted above").entry(scope).or_default()
    }

    fn insert(&mut self, scope: usize, name: &str, bindings: Bindings) {
        *self.entry(scope, name) = bindings;
    }
}

fn binding_at(bindings: &Bindings, pos: usize) -> &Binding {
    bindings.iter().rev().find(|b| b.effective <= pos).or(bindings.first()).expect("non-empty")
}

/// Where a binding written at `ident` takes effect: after the statement that assigns it.
fn effective_position(ident: Node, parent: Option<Node>) -> usize {
    let mut cur = parent;
    for _ in 0..4 {
        match cur {
            Some(p) if matches!(p.kind(), "assignment" | "variable_declarator" | "named_expression" | "augmented_assignment") => {
                return p.end_byte();
            }
            // A comprehension's variable is bound in the whole comprehension, the element
            // written before its `for` included (`{g.strip() for g in parts}`).
            Some(p) if p.kind() == "for_in_clause" => return p.parent().map_or(ident.start_byte(), |c| c.start_byte()),
            Some(p)
                if matches!(
                    p.kind(),
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
                cur = p.parent()
            }
            _ => break,
        }
    }
    ident.start_byte()
}

/// What is at one position of a file, as extraction sees it from the file alone: what `def`
/// answers, once `resolve` has bound the names that leave the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionFact {
    /// The name of a definition or a value symbol of this file.
    Definition(String),
    /// A local variable or parameter: its binding site (1-based line and column).
    Local { name: String, line: u32, col: u32, parameter: bool },
    /// A use of a name or member: the path written up to the position (`a.b` on the `b` of
    /// `a.b.c()`), the symbol whose code it is in, and how its first name is bound.
    Use { src: String, path: String, binding: LocalBinding },
    /// A name an import statement binds (index into `FileFacts::imports`).
    Import(usize),
    /// A module named by an import statement, written up to the position (`pkg.mod`, `..util`).
    Module(String),
}

/// A position being looked up during extraction, and what was found there.
struct Probe {
    at: usize,
    found: Option<PositionFact>,
}

impl Probe {
    fn covers(probe: &Option<Probe>, node: Node) -> bool {
        probe.as_ref().is_some_and(|p| p.found.is_none() && node.start_byte() <= p.at && p.at < node.end_byte().max(node.start_byte() + 1))
    }

    fn set(probe: &mut Option<Probe>, fact: PositionFact) {
        if let Some(p) = probe.as_mut().filter(|p| p.found.is_none()) {
            p.found = Some(fact);
        }
    }
}

pub(crate) fn text<'a>(node: Node, src: &'a [u8]) -> std::borrow::Cow<'a, str> {
    String::from_utf8_lossy(&src[node.byte_range()])
}

fn position(node: Node) -> (u32, u32) {
    let p = node.start_position();
    (p.row as u32 + 1, p.column as u32 + 1)
}

/// The written path of an expression (`a.b().c` -> `a.b().c`), or `None` when it is not a
/// chain of names (`obj[k]`, `(a || b)`). Iterative, so long chains are safe.
pub(crate) fn path_of<'t>(node: Node<'t>, src: &[u8]) -> Option<(String, Node<'t>)> {
    let mut segments: Vec<String> = Vec::new();
    let mut cur = node;
    let mut pending_call = false;
    let mut last: Option<Node> = None;
    loop {
        let (segment, next) = match cur.kind() {
            "identifier"
            | "property_identifier"
            | "type_identifier"
            | "private_property_identifier"
            | "shorthand_property_identifier"
            | "this"
            | "super"
            | "string_fragment" => (Some(text(cur, src).into_owned()), None),
            "member_expression" => {
                (cur.child_by_field_name("property").map(|p| text(p, src).into_owned()), cur.child_by_field_name("object"))
            }
            "attribute" => (cur.child_by_field_name("attribute").map(|p| text(p, src).into_owned()), cur.child_by_field_name("object")),
            "nested_type_identifier" | "nested_identifier" | "dotted_name" => (Some(text(cur, src).into_owned()), None),
            // `handlers["create"]`, `items[0]`: a literal key is a segment `[create]`.
            "subscript" => {
                let key = cur.child_by_field_name("subscript").and_then(|k| python::literal_key(k, src))?;
                (Some(format!("[{key}]")), cur.child_by_field_name("value"))
            }
            "call" if is_literal_getattr(cur, src).is_some() => {
                // `getattr(obj, "run")` is `obj.run`.
                let (obj, name) = is_literal_getattr(cur, src)?;
                (Some(name), Some(obj))
            }
            "call_expression" | "call" => {
                pending_call = true;
                cur = cur.child_by_field_name("function")?;
                continue;
            }
            // `new Foo().run()`: the object is an instance, as `Foo()` is in Python.
            "new_expression" => {
                pending_call = true;
                cur = cur.child_by_field_name("constructor")?;
                continue;
            }
            "parenthesized_expression" | "non_null_expression" | "await_expression" | "await" => {
                cur = cur.named_child(0)?;
                continue;
            }
            _ => return None,
        };
        let mut segment = segment?;
        if segment.is_empty() {
            return None;
        }
        if last.is_none() {
            last = Some(match cur.kind() {
                "member_expression" => cur.child_by_field_name("property").unwrap_or(cur),
                "attribute" => cur.child_by_field_name("attribute").unwrap_or(cur),
                _ => cur,
            });
        }
        if pending_call {
            segment.push_str("()");
            pending_call = false;
        }
        segments.push(segment);
        match next {
            Some(n) => cur = n,
            None => break,
        }
    }
    segments.reverse();
    Some((segments.join("."), last.unwrap_or(node)))
}

/// Whether a callee that is not a chain of names is computed: it goes through a subscript
/// with a non-literal key (`handlers[name]`) rather than only an unnamed receiver.
fn is_computed(mut node: Node) -> bool {
    for _ in 0..MAX_SCOPE_WALK {
        let next = match node.kind() {
            "subscript" | "subscript_expression" => return true,
            "member_expression" | "attribute" => node.child_by_field_name("object"),
            "call" | "call_expression" => node.child_by_field_name("function"),
            "parenthesized_expression" | "non_null_expression" | "await_expression" | "await" => node.named_child(0),
            _ => None,
        };
        match next {
            Some(n) => node = n,
            None => return false,
        }
    }
    false
}

/// `getattr(obj, "name")` with a literal name: (obj, name).
fn is_literal_getattr<'t>(call: Node<'t>, src: &[u8]) -> Option<(Node<'t>, String)> {
    let f = call.child_by_field_name("function")?;
    if f.kind() != "identifier" || text(f, src) != "getattr" {
        return None;
    }
    let args = call.child_by_field_name("arguments")?;
    let obj = args.named_child(0)?;
    let name = args.named_child(1).filter(|n| n.kind() == "string")?;
    let t = text(name, src);
    let t = t.trim_matches(|c| c == '"' || c == '\'');
    (!t.is_empty() && t.chars().all(|c| c.is_alphanumeric() || c == '_')).then(|| (obj, t.to_string()))
}

fn short_text(node: Node, src: &[u8]) -> String {
    let t = text(node, src);
    let line = t.lines().next().unwrap_or("");
    let mut end = line.len().min(MAX_TEXT);
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    line[..end].to_string()
}

/// Where a local name's value came from, read off the syntax around its binding identifier.
fn value_source(lang: Lang, ident: Node, src: &[u8]) -> Option<ValueSource> {
    if lang.is_script() { typescript::value_source(ident, src) } else { python::value_source(ident, src) }
}

fn build(lang: Lang, module: &str, src: &[u8], caps: Captures, facts: &mut FileFacts, probe: &mut Option<Probe>) {
    let is_py = lang == Lang::Python;
    // --- intervals: definitions and scopes, merged by node -------------------------------
    let mut by_node: HashMap<usize, usize> = HashMap::new();
    let mut intervals: Vec<Interval> = Vec::new();
    let mut interval_of = |node: Node, intervals: &mut Vec<Interval>| -> usize {
        *by_node.entry(node.id()).or_insert_with(|| {
            intervals.push(Interval {
                start: node.start_byte(),
                end: node.end_byte().max(node.start_byte() + 1),
                def: None,
                scope: false,
                class_like: false,
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
        intervals[k].class_like = matches!(node.kind(), "class_definition");
    }
    // Query points: references, local definitions, imports and exports.
    let mut points: Vec<(usize, usize, Option<usize>)> = Vec::new();
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
    let iv = &nesting.intervals;
    let (ref_points, rest) = points.split_at(caps.refs.len());
    let (local_points, rest) = rest.split_at(caps.local_defs.len());
    let (import_points, rest) = rest.split_at(caps.imports.len());
    let (return_points, global_points) = rest.split_at(caps.returns.len());

    // --- symbols, in source order so parents come first -----------------------------------
    facts.symbols.push(module_symbol(lang, module, facts));
    let sep = if lang.is_script() { '#' } else { '.' };
    let mut sym_of_def: Vec<u32> = vec![0; caps.defs.len()];
    let mut qindex: HashMap<String, u32> = HashMap::new();
    qindex.insert(module.to_string(), 0);
    let mut lambda_counter: HashMap<u32, u32> = HashMap::new();
    let mut name_nodes: std::collections::HashSet<usize> = std::collections::HashSet::new();
    let mut order: Vec<usize> = (0..iv.len()).filter(|&i| iv[i].def.is_some()).collect();
    order.sort_by(|&a, &b| iv[a].start.cmp(&iv[b].start).then(iv[b].end.cmp(&iv[a].end)));
    // interval index -> symbol index, filled as we go.
    let mut sym_of_interval: HashMap<usize, u32> = HashMap::new();
    for i in order {
        let d = iv[i].def.expect("filtered");
        let (kind, node, name_node) = caps.defs[d];
        let mut parent = iv[i].def_above.and_then(|p| sym_of_interval.get(&p).copied()).unwrap_or(0);
        // A constructor parameter property (`constructor(private svc: S)`) and a Python
        // `self.x = ...` attribute belong to the class, not to the method.
        if node.kind() == "required_parameter"
            || (matches!(node.kind(), "assignment" | "assignment_expression" | "attribute")
                && facts.symbols[parent as usize].kind != SymbolKind::Class)
        {
            parent = facts.symbols[parent as usize].parent.unwrap_or(parent);
        }
        let parent_kind = facts.symbols[parent as usize].kind;
        let name = match (kind, name_node) {
            (DefKind::Lambda, _) => {
                let n = lambda_counter.entry(parent).or_insert(0);
                *n += 1;
                format!("<lambda{n}>")
            }
            (_, Some(n)) => {
                name_nodes.insert(n.id());
                let t = text(n, src);
                t.trim_matches(|c| c == '"' || c == '\'').to_string()
            }
            (_, None) => "default".to_string(),
        };
        // An object literal with methods is a constant or a variable by its declaration.
        let kind = match kind {
            DefKind::Variable if lang.is_script() && typescript::declared_const(node) => DefKind::Constant,
            k => k,
        };
        let kind = match kind {
            DefKind::Function if is_py && parent_kind == SymbolKind::Class => SymbolKind::Method,
            DefKind::Function => SymbolKind::Function,
            DefKind::Method => SymbolKind::Method,
            DefKind::Class => SymbolKind::Class,
            DefKind::Interface => SymbolKind::Interface,
            DefKind::Type => SymbolKind::Type,
            DefKind::Enum => SymbolKind::Enum,
            DefKind::Variable => SymbolKind::Variable,
            DefKind::Property => SymbolKind::Property,
            DefKind::Lambda => SymbolKind::Lambda,
            DefKind::Constant => SymbolKind::Constant,
            DefKind::Namespace => SymbolKind::Namespace,
        };
        let parent_q = &facts.symbols[parent as usize].qname;
        let qname = if parent == 0 { format!("{parent_q}{sep}{name}") } else { format!("{parent_q}.{name}") };
        let (line, col) = position(name_node.unwrap_or(node));
        let exported = if lang.is_script() { parent == 0 && typescript::is_exported(node) } else { parent == 0 && !name.starts_with('_') };
        // Redefinitions and overloads share one node: the first definition's position.
        let idx = match qindex.get(&qname) {
            Some(&existing) => existing,
            None => {
                let idx = facts.symbols.len() as u32;
                facts.symbols.push(SymbolFact {
                    qname: qname.clone(),
                    name,
                    kind,
                    parent: Some(parent),
                    line,
                    col,
                    end_line: node.end_position().row as u32 + 1,
                    exported,
                    bases: Vec::new(),
                    ty: declared_type(lang, node, src),
                    decorators: Vec::new(),
                    param_uses: Vec::new(),
                });
                qindex.insert(qname, idx);
                idx
            }
        };
        sym_of_def[d] = idx;
        sym_of_interval.insert(i, idx);
        if name_node.is_some_and(|n| Probe::covers(probe, n)) {
            Probe::set(probe, PositionFact::Definition(facts.symbols[idx as usize].qname.clone()));
        }
    }
    // A field initialiser runs in the class body: its references belong to the class, not to
    // the property (a property holding an arrow function is a method and keeps its own).
    let kinds: Vec<SymbolKind> = facts.symbols.iter().map(|s| s.kind).collect();
    let sym_at = |inner: Option<usize>| -> u32 {
        let Some(i) = nesting.def_of(inner) else { return 0 };
        let s = sym_of_interval.get(&i).copied().unwrap_or(0);
        match kinds[s as usize] {
            // The code around a property definition runs in the enclosing definition: the
            // class body for a field, the method for `self.x = ...`; an enum member's or a
            // default export's initialiser runs in the enum or the module.
            SymbolKind::Property | SymbolKind::Constant | SymbolKind::Attribute => {
                iv[i].def_above.and_then(|p| sym_of_interval.get(&p).copied()).unwrap_or(0)
            }
            _ => s,
        }
    };

    // --- local names per scope ----------------------------------------------------------
    let mut locals = Locals::default();
    // Definitions by node, so `f = lambda: ...` binds `f` to the lambda.
    let def_by_node: HashMap<usize, u32> = caps.defs.iter().enumerate().map(|(d, (_, node, _))| (node.id(), sym_of_def[d])).collect();
    let assigned_def = |parent: Option<Node>| -> Option<u32> {
        let parent = parent?;
        let right = match parent.kind() {
            "assignment" => parent.child_by_field_name("right")?,
            _ => return None,
        };
        def_by_node.get(&right.id()).copied()
    };
    // Names declared `global` / `nonlocal` in a scope are not its locals.
    let globals: std::collections::HashSet<(usize, String)> = caps
        .globals
        .iter()
        .zip(global_points)
        .filter_map(|(n, p)| nesting.scope_of(p.2).map(|s| (s, text(*n, src).into_owned())))
        .collect();
    // Bindings that are value symbols: module level, a Python class body, a TS namespace body.
    let mut value_bindings: Vec<ValueBinding> = Vec::new();
    // Whether each `def` with parameters is a `@staticmethod` (one parent lookup per `def`).
    let mut static_def: HashMap<u32, bool> = HashMap::new();
    for (node, point) in caps.local_defs.iter().zip(local_points) {
        let name = text(*node, src).into_owned();
        // `Node::parent` walks down from the root: look it up once per binding.
        let parent = node.parent();
        let def = assigned_def(parent);
        let mut scope = nesting.scope_of(point.2);
        // Python's `:=` in a comprehension and TS's `var` bind in the enclosing function.
        let hoisted = if is_py { parent.is_some_and(|p| p.kind() == "named_expression") } else { typescript::declared_var(*node) };
        if hoisted {
            // Up to the scope of the function the binding is in (none: the module).
            let func = function_ancestor(*node);
            while let Some(sc) = scope {
                if func.is_some_and(|f| iv[sc].start <= f.start_byte() && f.end_byte() <= iv[sc].end) {
                    break;
                }
                scope = iv[sc].scope_above;
            }
        }
        let container = match scope {
            None => Some(0),
            Some(sc) if is_py && iv[sc].class_like => iv[sc].def.map(|d| sym_of_def[d]),
            Some(_) if lang.is_script() => typescript::namespace_of(*node).and_then(|ns| def_by_node.get(&ns.id()).copied()),
            _ => None,
        };
        // `const fs = require('fs')` binds an import, not a value.
        // (Nor is a parameter of a function type written at module level.)
        let container =
            container.filter(|_| !(lang.is_script() && (typescript::bound_by_require(*node, src) || typescript::is_parameter(*node))));
        if let Some(container) = container {
            let value = match def {
                Some(sym) => Some(ValueSource::Def(facts.symbols[sym as usize].qname.clone())),
                None => value_source(lang, *node, src),
            };
            value_bindings.push(ValueBinding { node: *node, name: name.clone(), value, container, scope });
        }
        let Some(scope) = scope else { continue };
        if globals.contains(&(scope, name.clone())) {
            continue;
        }
        // A parameter: its scope is the `def` it belongs to.
        let func_node = iv[scope].def.map(|d| caps.defs[d].1).filter(|f| is_py && f.kind() == "function_definition");
        let param = func_node.and_then(|f| python::parameter_of(f, *node).map(|(index, splat)| (f, index, splat)));
        // A constructor parameter property is the class's property, in the constructor too.
        let def = def.or_else(|| parent.filter(|p| p.kind() == "required_parameter").and_then(|p| def_by_node.get(&p.id()).copied()));
        let local = match (def, param) {
            (Some(sym), _) => Local::Def(sym),
            (None, Some((func_node, index, splat))) if def_by_node.contains_key(&func_node.id()) => {
                let func = def_by_node[&func_node.id()];
                // `self` / `cls` of a method is not passed by the call.
                let bound = facts.symbols[func as usize].kind == SymbolKind::Method
                    && !*static_def.entry(func).or_insert_with(|| python::is_static(func_node, src));
                let index = match (index, bound) {
                    (Some(0), true) => None,
                    (Some(i), true) => Some(i - 1),
                    (i, false) => i,
                    (None, true) => None,
                };
                Local::Param { func, index, splat, value: value_source(lang, *node, src) }
            }
            (None, _) => Local::Var(value_source(lang, *node, src)),
        };
        let parameter = matches!(local, Local::Param { .. }) || (lang.is_script() && typescript::is_parameter(*node));
        let bindings = locals.entry(scope, &name);
        // `x += 1` uses the binding before it (it only makes `x` local when there is none).
        let augmented = parent.is_some_and(|p| p.kind() == "augmented_assignment");
        if !(augmented && !bindings.is_empty()) {
            bindings.push(Binding { effective: effective_position(*node, parent), site: node.start_byte(), local });
            if container.is_none() && !matches!(bindings.last().map(|b| &b.local), Some(Local::Def(_))) && Probe::covers(probe, *node) {
                let (line, col) = position(*node);
                Probe::set(probe, PositionFact::Local { name, line, col, parameter });
            }
        }
    }
    // `global x` / `nonlocal x`: the name there is the outer one.
    for (n, p) in caps.globals.iter().zip(global_points) {
        if Probe::covers(probe, *n) {
            let scope = nesting.scope_of(p.2).and_then(|s| iv[s].scope_above);
            let fact = probe_use(lang, *n, n.start_byte(), src, scope, sym_at(p.2), &nesting, &locals, facts);
            if let Some(f) = fact {
                Probe::set(probe, f);
            }
        }
    }
    // Value symbols, in source order; the last assignment gives the value (what code that
    // runs later sees). A name that is already a definition (a function, a class) stays one.
    let module_q = facts.symbols[0].qname.clone();
    let mut module_values: std::collections::HashSet<String> = std::collections::HashSet::new();
    for b in &value_bindings {
        let parent_q = &facts.symbols[b.container as usize].qname;
        let qname = if b.container == 0 { format!("{module_q}{sep}{}", b.name) } else { format!("{parent_q}.{}", b.name) };
        let sym = match qindex.get(&qname) {
            Some(&existing) if facts.symbols[existing as usize].kind.is_value() => {
                let s = &mut facts.symbols[existing as usize];
                s.ty = b.value.clone();
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
                    if typescript::declared_const(b.node) { SymbolKind::Constant } else { SymbolKind::Variable }
                } else if is_constant_name(&b.name) {
                    SymbolKind::Constant
                } else {
                    SymbolKind::Variable
                };
                let exported =
                    b.container == 0 && if lang.is_script() { typescript::binding_exported(b.node) } else { !b.name.starts_with('_') };
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
        if let (Some(scope), true) = (b.scope, b.container != 0) {
            if let Some(bindings) = locals.get_mut(scope, &b.name) {
                for b in bindings.iter_mut() {
                    b.local = Local::Def(sym);
                }
            }
        }
    }
    // `self.x = param` in a method: the attribute has the parameter's annotated type.
    let mut interval_of_def: Vec<Option<usize>> = vec![None; caps.defs.len()];
    for (i, interval) in iv.iter().enumerate() {
        if let Some(d) = interval.def {
            interval_of_def[d] = Some(i);
        }
    }
    let mut attr_types: Vec<(u32, ValueSource)> = Vec::new();
    // `self.on_click = on_click` with a parameter: the attribute's qname -> (the function, the
    // parameter's position, its name), so `self.on_click()` elsewhere in the class is a call
    // through that parameter.
    let mut attr_params: HashMap<String, (u32, Option<u32>, String)> = HashMap::new();
    for (d, (kind, node, _)) in caps.defs.iter().enumerate() {
        if *kind != DefKind::Property || node.kind() != "assignment" {
            continue;
        }
        let Some(right) = node.child_by_field_name("right").filter(|r| r.kind() == "identifier") else { continue };
        let name = text(right, src).into_owned();
        let scope = interval_of_def[d].and_then(|i| iv[i].scope_above);
        let Some(local) = scope.and_then(|s| locals.get(s, &name)).map(|b| &binding_at(b, node.start_byte()).local) else {
            continue;
        };
        let attr = sym_of_def[d];
        if let Local::Param { func, index, splat: 0, .. } = *local {
            attr_params.insert(facts.symbols[attr as usize].qname.clone(), (func, index, name));
        }
        if let (Some(v), None) = (local.value(), &facts.symbols[attr as usize].ty) {
            attr_types.push((attr, v.clone()));
        }
    }
    for (i, interval) in iv.iter().enumerate() {
        let Some(d) = interval.def else { continue };
        let sym = &facts.symbols[sym_of_def[d] as usize];
        if matches!(sym.kind, SymbolKind::Method | SymbolKind::Property | SymbolKind::Lambda) || sym.name == "default" {
            continue;
        }
        if let Some(scope) = iv[i].scope_above {
            // A nested definition binds its name for the whole scope.
            let site = caps.defs[d].2.unwrap_or(caps.defs[d].1).start_byte();
            locals.insert(scope, &sym.name, vec![Binding { effective: 0, site, local: Local::Def(sym_of_def[d]) }]);
        }
    }

    // --- references ----------------------------------------------------------------------
    let mut param_uses: Vec<(u32, ParamUse)> = Vec::new();
    let claimed: std::collections::HashSet<usize> =
        caps.refs.iter().filter(|(k, _, _)| !matches!(k, RefKind::Type | RefKind::Read)).map(|(_, n, _)| n.id()).collect();
    // Binding sites are not reads.
    let binding_nodes: std::collections::HashSet<usize> = caps.local_defs.iter().chain(&caps.globals).map(|n| n.id()).collect();
    for ((kind, name_node, role_node), point) in caps.refs.iter().zip(ref_points) {
        let (kind, name_node, role_node) = (*kind, *name_node, *role_node);
        if kind == RefKind::Type
            && (name_nodes.contains(&name_node.id())
                || claimed.contains(&name_node.id())
                || name_node
                    .parent()
                    .is_some_and(|p| p.kind() == "nested_type_identifier" || p.kind() == "generic_type" && claimed.contains(&p.id())))
        {
            continue;
        }
        if kind == RefKind::Jsx && name_node.kind() == "identifier" && text(name_node, src).starts_with(|c: char| c.is_ascii_lowercase()) {
            continue; // intrinsic elements: <div>
        }
        if kind == RefKind::Read
            && (caps.skip_read.contains(&name_node.id())
                || claimed.contains(&name_node.id())
                || binding_nodes.contains(&name_node.id())
                || name_nodes.contains(&name_node.id()))
        {
            // Only outermost reads that are not calls, assignment targets, decorators, binding
            // sites or sites another reference already names.
            continue;
        }
        if kind == RefKind::Member {
            // Only capitalised objects can be enums; a member access that is called is a call.
            let capital = text(name_node, src).starts_with(|c: char| c.is_ascii_uppercase());
            let called = name_node.parent().and_then(|m| m.parent()).is_some_and(|c| c.kind() == "call_expression");
            if !capital || called {
                continue;
            }
        }
        if kind == RefKind::Call && matches!(name_node.kind(), "import") {
            continue; // `import('x')` is an import, not a call
        }
        let mut src_sym = sym_at(point.2);
        // The innermost interval names are looked up from.
        let mut inner = point.2;
        // Python default values run when the function is defined, in the enclosing scope.
        if is_py {
            if let Some(i) = nesting.def_of(inner) {
                let node = iv[i].def.map(|d| caps.defs[d].1);
                let in_params = node.and_then(|n| n.child_by_field_name("parameters")).is_some_and(|p| {
                    p.byte_range().contains(&name_node.start_byte()) && node.is_some_and(|n| n.kind() == "function_definition")
                });
                if in_params {
                    src_sym = iv[i].def_above.and_then(|p| sym_of_interval.get(&p).copied()).unwrap_or(0);
                    inner = iv[i].scope_above;
                }
            }
        }
        if kind != RefKind::Patch && Probe::covers(probe, name_node) {
            let at = probe.as_ref().map_or(0, |p| p.at);
            if let Some(fact) = probe_use(lang, name_node, at, src, inner, src_sym, &nesting, &locals, facts) {
                Probe::set(probe, fact);
            }
        }
        let (path, anchor) = match path_of(name_node, src) {
            // `setattr(obj, "name", value)` rebinds `obj.name`.
            _ if kind == RefKind::Patch && name_node.kind() == "call" => match python::setattr_path(name_node, src) {
                Some(p) => (p, name_node),
                None => continue,
            },
            Some((p, anchor)) => (p, anchor),
            None if kind == RefKind::Patch => continue,
            None => (String::new(), name_node),
        };
        // An immediately invoked function: `(lambda: 1)()`, `(() => 1)()`.
        let mut unwrapped = name_node;
        while unwrapped.kind() == "parenthesized_expression" {
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
        let mut computed = path.is_empty() && is_computed(name_node);
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
        let mut args = Vec::new();
        if is_py && !path.is_empty() && matches!(kind, RefKind::Call | RefKind::Decorator) {
            let root = path.split('.').next().unwrap_or(&path);
            let local = if root.ends_with("()") { None } else { lookup_local(root, point.0, inner, &nesting, &locals) };
            let splat_param = |p: &str| {
                let root = p.split('.').next().unwrap_or(p);
                matches!(lookup_local(root, point.0, inner, &nesting, &locals), Some(Local::Param { splat: 1 | 2, .. }))
            };
            match local {
                // Calling a value taken out of `*args` / `**kwargs` (`kwargs["cb"]()`,
                // `kwargs.get("cb")()`, `cb = kwargs.pop("cb"); cb()`): **kwargs dispatch, a gap.
                Some(Local::Param { splat: 1 | 2, .. }) if kind == RefKind::Call && python::takes_from_container(&path) => {
                    path = String::new();
                    computed = true;
                }
                Some(Local::Var(Some(v @ (ValueSource::Call(p) | ValueSource::Alias(p)))))
                    if kind == RefKind::Call
                        && splat_param(p)
                        && python::takes_from_container(&if matches!(v, ValueSource::Call(_)) { format!("{p}()") } else { p.clone() }) =>
                {
                    path = String::new();
                    computed = true;
                }
                // A call through a parameter: bound later to what each call site passes.
                Some(&Local::Param { func, index, splat: 0, .. }) if kind == RefKind::Call && !matches!(root, "self" | "cls") => {
                    let rest = path.split_once('.').map(|(_, r)| r.to_string()).unwrap_or_default();
                    let caller = facts.symbols[src_sym as usize].qname.clone();
                    param_uses.push((func, ParamUse { index, name: root.to_string(), caller, rest, each: false }));
                }
                // `for c in checks: c()` with `checks` a parameter.
                Some(Local::Var(Some(ValueSource::Each(each)))) if kind == RefKind::Call => {
                    if let ValueSource::Alias(p) = each.as_ref() {
                        if let Some(&Local::Param { func, index, splat: 0, .. }) = lookup_local(p, point.0, inner, &nesting, &locals) {
                            let rest = path.split_once('.').map(|(_, r)| r.to_string()).unwrap_or_default();
                            let caller = facts.symbols[src_sym as usize].qname.clone();
                            param_uses.push((func, ParamUse { index, name: p.clone(), caller, rest, each: true }));
                        }
                    }
                }
                _ => {}
            }
            if !path.is_empty() {
                args = match kind {
                    RefKind::Call if role_node.kind() == "call" => {
                        call_args(role_node, src, inner, src_sym, &nesting, &locals, &def_by_node, facts)
                    }
                    // `@logged` above `def add`: `add` is the decorator's argument.
                    RefKind::Decorator => name_node
                        .parent()
                        .filter(|dec| dec.kind() == "decorator")
                        .and_then(|dec| dec.parent())
                        .and_then(|d| d.child_by_field_name("definition"))
                        .and_then(|d| def_by_node.get(&d.id()))
                        .map(|&d| vec![("0".to_string(), ValueSource::Def(facts.symbols[d as usize].qname.clone()))])
                        .unwrap_or_default(),
                    _ => Vec::new(),
                };
            }
        }
        let (line, col) = position(anchor);
        let text = if path.is_empty() { short_text(name_node, src) } else { String::new() };
        let binding = match invoked_binding {
            Some(b) => b,
            None if path.is_empty() => LocalBinding::Free,
            None => bind(lang, &path, point.0, inner, src_sym, &nesting, &locals, facts),
        };
        // Reads and writes matter when they reach outside the function: a module value, an
        // import, a class attribute, a member of something known. Locals are answered from
        // the file itself (`def`), not stored.
        if matches!(kind, RefKind::Read | RefKind::Write) {
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
                    let attr = path.split_once('.').map(|(_, a)| a).unwrap_or("");
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
        if let (true, RefKind::Call, LocalBinding::SelfOf(class)) = (is_py, kind, &binding) {
            if let Some(attr) = path.strip_prefix("self.").filter(|a| !a.contains('.')) {
                if let Some((func, index, name)) = attr_params.get(&format!("{class}.{attr}")) {
                    let caller = facts.symbols[src_sym as usize].qname.clone();
                    param_uses.push((*func, ParamUse { index: *index, name: name.clone(), caller, rest: String::new(), each: false }));
                }
            }
        }
        facts.refs.push(RefFact { kind, src: src_sym, path, text, binding, line, col, computed, args });
    }

    // --- obvious return types (applied below, once `sym_at` is done) --------------------------
    let mut returned: HashMap<u32, Vec<ValueSource>> = HashMap::new();
    for ((_, callee), point) in caps.returns.iter().zip(return_points) {
        let owner = sym_at(point.2);
        // `return lambda x: ...`
        if let Some(&lambda) = def_by_node.get(&callee.id()) {
            // The capture starts where the lambda does: the owner is the lambda's parent.
            let owner = facts.symbols[lambda as usize].parent.unwrap_or(owner);
            returned.entry(owner).or_default().push(ValueSource::Def(facts.symbols[lambda as usize].qname.clone()));
            continue;
        }
        let Some((p, _)) = path_of(*callee, src) else { continue };
        let value = if callee.parent().is_some_and(|n| n.kind() == "return_statement") {
            // `return inner` / `return handler` / `return self`.
            match bind(lang, &p, point.0, point.2, owner, &nesting, &locals, facts) {
                LocalBinding::Def(q) => Some(ValueSource::Def(q)),
                LocalBinding::SelfOf(q) => Some(ValueSource::SelfOf(q)),
                LocalBinding::Free => Some(ValueSource::Alias(p)),
                LocalBinding::Var(v) => v,
                LocalBinding::SuperOf(_) => None,
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

    // --- imports and exports (language modules) ------------------------------------------
    for ((role, node), point) in caps.imports.iter().zip(import_points) {
        let scope = sym_at(point.2);
        let first = facts.imports.len();
        if lang.is_script() {
            typescript::imports(*role, *node, src, scope, &mut facts.imports);
        } else {
            python::imports(*node, src, scope, &mut facts.imports);
        }
        // `const { a } = require('m')`: the names are in the declarator around the call.
        let statement = match role {
            Capture::ImportRequire => node.parent().filter(|p| p.kind() == "variable_declarator").unwrap_or(*node),
            _ => *node,
        };
        if Probe::covers(probe, statement) {
            let fact = probe_import(lang, statement, probe.as_ref().map_or(0, |p| p.at), src, facts, first);
            if let Some(f) = fact {
                Probe::set(probe, f);
            }
        }
    }
    for node in &caps.exports {
        let first = facts.imports.len();
        if lang.is_script() {
            typescript::exports(*node, src, facts);
        } else {
            python::exports(*node, src, facts);
        }
        if lang.is_script() && Probe::covers(probe, *node) {
            let fact = probe_import(lang, *node, probe.as_ref().map_or(0, |p| p.at), src, facts, first);
            if let Some(f) = fact {
                Probe::set(probe, f);
            }
        }
    }
    // --- decorators of definitions ---------------------------------------------------------------
    // Looked up from each definition (one parent step for Python), not from each call.
    let mut decorated: Vec<(u32, String)> = Vec::new();
    for (d, (_, node, _)) in caps.defs.iter().enumerate() {
        let holder = match node.kind() {
            "function_definition" | "class_definition" => match node.parent() {
                Some(p) if p.kind() == "decorated_definition" => p,
                _ => continue,
            },
            // TS: decorators are children of the class or member.
            "class_declaration" | "abstract_class_declaration" | "class" | "method_definition" | "public_field_definition" => *node,
            _ => continue,
        };
        let mut c = holder.walk();
        for dec in holder.named_children(&mut c).filter(|n| n.kind() == "decorator") {
            // `@dec` or `@dec(...)` (the callee).
            let Some(expr) = dec.named_child(0) else { continue };
            let callee = match expr.kind() {
                "call" | "call_expression" => expr.child_by_field_name("function"),
                _ => Some(expr),
            };
            if let Some((path, _)) = callee.and_then(|n| path_of(n, src)) {
                decorated.push((sym_of_def[d], path));
            }
        }
    }
    for (sym, path) in decorated {
        let d = &mut facts.symbols[sym as usize].decorators;
        if !d.contains(&path) {
            d.push(path);
        }
    }

    // --- class bases and obvious return types -------------------------------------------------
    for i in 0..facts.refs.len() {
        let r = &facts.refs[i];
        if r.kind == RefKind::Inherits && !r.path.is_empty() && facts.symbols[r.src as usize].kind == SymbolKind::Class {
            let (src_sym, path) = (r.src as usize, r.path.clone());
            let bases = &mut facts.symbols[src_sym].bases;
            if !bases.contains(&path) {
                bases.push(path);
            }
        }
    }
    for (sym, u) in param_uses {
        let uses = &mut facts.symbols[sym as usize].param_uses;
        if !uses.contains(&u) {
            uses.push(u);
        }
    }
    for (sym, ty) in attr_types {
        facts.symbols[sym as usize].ty.get_or_insert(ty);
    }
    // A lambda returns its body: another lambda (`lambda n: (lambda: greet(n))`) or a call.
    for (d, (kind, node, _)) in caps.defs.iter().enumerate() {
        if *kind != DefKind::Lambda || node.kind() != "lambda" {
            continue;
        }
        let mut body = node.child_by_field_name("body");
        while let Some(b) = body.filter(|b| b.kind() == "parenthesized_expression") {
            body = b.named_child(0);
        }
        let Some(body) = body else { continue };
        let value = match def_by_node.get(&body.id()) {
            Some(&inner) => Some(ValueSource::Def(facts.symbols[inner as usize].qname.clone())),
            None if body.kind() == "call" => {
                body.child_by_field_name("function").and_then(|f| path_of(f, src)).map(|(p, _)| ValueSource::Call(p))
            }
            None => None,
        };
        if let Some(v) = value {
            returned.entry(sym_of_def[d]).or_default().push(v);
        }
    }
    for (sym, mut values) in returned {
        let s = &mut facts.symbols[sym as usize];
        if s.ty.is_none() && values.len() == 1 && matches!(s.kind, SymbolKind::Function | SymbolKind::Method | SymbolKind::Lambda) {
            s.ty = values.pop();
        }
    }
    facts.refs.sort_by(|a, b| (a.line, a.col, a.kind).cmp(&(b.line, b.col, b.kind)));
    facts.refs.dedup_by(|b, a| a.line == b.line && a.col == b.col && a.kind == b.kind && a.path == b.path);
    facts.imports.sort_by(|a, b| (a.line, a.col, &a.local).cmp(&(b.line, b.col, &b.local)));
}

/// The name or member under a position inside a reference's expression: the expression up to
/// it (`a.b` for the `b` of `a.b.c()`), or `None` when the position is not on a name.
fn segment_at<'t>(top: Node<'t>, at: usize) -> Option<Node<'t>> {
    let leaf = top.descendant_for_byte_range(at, at)?;
    if !matches!(
        leaf.kind(),
        "identifier" | "property_identifier" | "type_identifier" | "private_property_identifier" | "shorthand_property_identifier"
    ) {
        return None;
    }
    let mut node = leaf;
    while node.id() != top.id() {
        let Some(parent) = node.parent() else { break };
        let member_name = match parent.kind() {
            "member_expression" => parent.child_by_field_name("property") == Some(node),
            "attribute" => parent.child_by_field_name("attribute") == Some(node),
            "nested_type_identifier" | "nested_identifier" => {
                parent.named_child(parent.named_child_count().saturating_sub(1)) == Some(node)
            }
            _ => false,
        };
        if !member_name {
            break;
        }
        node = parent;
    }
    Some(node)
}

/// What a position inside a reference is: a local's binding, a nested definition, or a use
/// of the path written up to it.
#[allow(clippy::too_many_arguments)]
fn probe_use(
    lang: Lang,
    top: Node,
    at: usize,
    src: &[u8],
    inner: Option<usize>,
    src_sym: u32,
    nesting: &Nesting,
    locals: &Locals,
    facts: &FileFacts,
) -> Option<PositionFact> {
    let prefix = segment_at(top, at)?;
    // `ns.Type` in a type is one node: cut it at the segment under the position.
    let (path, _) = path_of(prefix, src)?;
    let path = match prefix.kind() {
        "nested_type_identifier" | "nested_identifier" => {
            let upto = &text(prefix, src)[..(at - prefix.start_byte() + 1).min(prefix.byte_range().len())];
            let end = text(prefix, src)[upto.len()..].find('.').map_or(path.len(), |i| upto.len() + i);
            path[..end.min(path.len())].to_string()
        }
        _ => path,
    };
    if !path.contains('.') {
        let bare = path.strip_suffix("()").unwrap_or(&path);
        if let Some(b) = lookup_binding(bare, at, inner, nesting, locals) {
            return Some(match &b.local {
                Local::Def(sym) => PositionFact::Definition(facts.symbols[*sym as usize].qname.clone()),
                Local::Param { .. } | Local::Var(_) => {
                    let (line, col) = line_col(src, b.site);
                    PositionFact::Local { name: bare.to_string(), line, col, parameter: matches!(b.local, Local::Param { .. }) }
                }
            });
        }
    }
    let binding = bind(lang, &path, at, inner, src_sym, nesting, locals, facts);
    Some(PositionFact::Use { src: facts.symbols[src_sym as usize].qname.clone(), path, binding })
}

/// What a position inside an import (or a TS export) statement is: a name it binds (the
/// imported name or its alias), a module it names, or (`export { a as b }` without `from`) a
/// use of a local name.
fn probe_import(lang: Lang, statement: Node, at: usize, src: &[u8], facts: &FileFacts, first: usize) -> Option<PositionFact> {
    let leaf = statement.descendant_for_byte_range(at, at)?;
    let name = text(leaf, src).trim_matches(|c| c == '"' || c == '\'').to_string();
    // Python: inside the module of `from pkg.mod import x` (or `import pkg.mod`), a segment is
    // a module, whatever the names imported are called.
    let in_module = statement.child_by_field_name("module_name").is_some_and(|m| m.byte_range().contains(&at))
        || (statement.kind() == "import_statement" && leaf.parent().is_some_and(|p| p.kind() == "dotted_name") && {
            let dotted = leaf.parent().unwrap();
            // `import a.b.c` (or `import a.b.c as m`, off the alias): each segment is a module.
            dotted.parent().is_some_and(|d| d.kind() == "import_statement" || d.kind() == "aliased_import")
                && dotted.parent().and_then(|d| d.child_by_field_name("alias")).is_none_or(|a| !a.byte_range().contains(&at))
        });
    if !in_module {
        if leaf.parent().is_some_and(|p| p.kind() == "namespace_export") {
            // `export * as ns from './m'`: `ns` is the module.
            if let Some(i) = (first..facts.imports.len()).find(|&i| facts.imports[i].kind == crate::facts::ImportKind::Namespace) {
                return Some(PositionFact::Import(i));
            }
        }
    }
    let by_name = (!in_module)
        .then(|| {
            (first..facts.imports.len())
                .find(|&i| facts.imports[i].local.as_deref() == Some(&name) || facts.imports[i].imported.as_deref() == Some(&name))
        })
        .flatten();
    if let Some(i) =
        by_name.filter(|_| matches!(leaf.kind(), "identifier" | "property_identifier" | "shorthand_property_identifier_pattern"))
    {
        return Some(PositionFact::Import(i));
    }
    // `export { a as b } from './m'`: the alias stands for the name it re-exports.
    if let Some(spec) = leaf.parent().filter(|p| p.kind() == "export_specifier") {
        let target = spec.child_by_field_name("name").map(|n| text(n, src).into_owned()).unwrap_or_default();
        if let Some(i) = (first..facts.imports.len()).find(|&i| facts.imports[i].imported.as_deref() == Some(&target)) {
            return Some(PositionFact::Import(i));
        }
        // `export { a as b }`: a use of the module's own `a`.
        return Some(PositionFact::Use { src: facts.symbols[0].qname.clone(), path: target, binding: LocalBinding::Free });
    }
    if lang.is_script() {
        // The module specifier string.
        let string = if leaf.kind() == "string" { Some(leaf) } else { leaf.parent().filter(|p| p.kind() == "string") };
        return string.map(|s| PositionFact::Module(text(s, src).trim_matches(|c| c == '"' || c == '\'' || c == '`').to_string()));
    }
    // Python: `pkg.mod` in `import pkg.mod` / `from pkg.mod import x`, `..util` in
    // `from ..util import x`: the module written up to the segment under the position.
    let mut dotted = leaf;
    while !matches!(dotted.kind(), "dotted_name" | "relative_import") {
        dotted = dotted.parent().filter(|p| p.id() != statement.id())?;
    }
    let outer = dotted.parent().filter(|p| p.kind() == "relative_import").unwrap_or(dotted);
    let upto = &src[outer.start_byte()..leaf.end_byte().max(outer.start_byte())];
    let module: String = String::from_utf8_lossy(upto).chars().filter(|c| !c.is_whitespace()).collect();
    Some(PositionFact::Module(module))
}

/// The 1-based line and column of a byte offset.
fn line_col(src: &[u8], at: usize) -> (u32, u32) {
    let before = &src[..at.min(src.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
    let col = before.iter().rev().take_while(|&&b| b != b'\n').count() as u32 + 1;
    (line, col)
}

/// The values a Python call passes, by position or keyword, as far as they can be followed:
/// names (bound in the file's scopes where local), lambdas, calls of free names, literal
/// containers. Splats are kept as `*` / `**` markers.
#[allow(clippy::too_many_arguments)]
fn call_args(
    call: Node,
    src: &[u8],
    inner: Option<usize>,
    src_sym: u32,
    nesting: &Nesting,
    locals: &Locals,
    def_by_node: &HashMap<usize, u32>,
    facts: &FileFacts,
) -> Vec<(String, ValueSource)> {
    let Some(list) = call.child_by_field_name("arguments").filter(|a| a.kind() == "argument_list") else { return Vec::new() };
    let value = |n: Node| -> Option<ValueSource> {
        match n.kind() {
            "identifier" | "attribute" => {
                let (p, _) = path_of(n, src)?;
                match bind(Lang::Python, &p, n.start_byte(), inner, src_sym, nesting, locals, facts) {
                    LocalBinding::Free => Some(ValueSource::Alias(p)),
                    LocalBinding::Def(q) if !p.contains('.') => Some(ValueSource::Def(q)),
                    LocalBinding::Var(v) if !p.contains('.') => v,
                    _ => None,
                }
            }
            "lambda" => def_by_node.get(&n.id()).map(|&d| ValueSource::Def(facts.symbols[d as usize].qname.clone())),
            "call" => {
                let (p, _) = path_of(n.child_by_field_name("function")?, src)?;
                let free = bind(Lang::Python, &p, n.start_byte(), inner, src_sym, nesting, locals, facts) == LocalBinding::Free;
                free.then_some(ValueSource::Call(p))
            }
            "list" | "tuple" | "dictionary" => python::items(n, src, 0),
            _ => None,
        }
    };
    let mut out = Vec::new();
    let mut index = 0u32;
    let mut c = list.walk();
    for a in list.named_children(&mut c) {
        match a.kind() {
            "keyword_argument" => {
                let (Some(name), Some(v)) = (a.child_by_field_name("name"), a.child_by_field_name("value")) else { continue };
                if let Some(v) = value(v) {
                    out.push((text(name, src).into_owned(), v));
                }
            }
            "list_splat" => out.push(("*".to_string(), ValueSource::Alias(short_text(a, src)))),
            "dictionary_splat" => out.push(("**".to_string(), ValueSource::Alias(short_text(a, src)))),
            "comment" => {}
            _ => {
                if let Some(v) = value(a) {
                    out.push((index.to_string(), v));
                }
                index += 1;
            }
        }
    }
    out
}

/// Decides how the first segment of `path` is bound at a reference site.
#[allow(clippy::too_many_arguments)]
fn bind(
    lang: Lang,
    path: &str,
    pos: usize,
    inner: Option<usize>,
    src_sym: u32,
    nesting: &Nesting,
    locals: &Locals,
    facts: &FileFacts,
) -> LocalBinding {
    let root = path.split('.').next().unwrap_or(path);
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
            s = sym.parent;
            steps += 1;
            if steps > MAX_SCOPE_WALK {
                return None;
            }
        }
        None
    };
    match (lang.is_script(), root) {
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
    let bare = root.strip_suffix("()").unwrap_or(root);
    match lookup_local(bare, pos, inner, nesting, locals) {
        Some(Local::Def(sym)) => LocalBinding::Def(facts.symbols[*sym as usize].qname.clone()),
        Some(Local::Var(v) | Local::Param { value: v, .. }) => LocalBinding::Var(v.clone()),
        None => LocalBinding::Free,
    }
}

/// The local binding of a name seen at `pos`, searching the enclosing scopes outwards.
fn lookup_local<'l>(name: &str, pos: usize, inner: Option<usize>, nesting: &Nesting, locals: &'l Locals) -> Option<&'l Local> {
    lookup_binding(name, pos, inner, nesting, locals).map(|b| &b.local)
}

/// [`lookup_local`], with where the binding is written.
fn lookup_binding<'l>(name: &str, pos: usize, inner: Option<usize>, nesting: &Nesting, locals: &'l Locals) -> Option<&'l Binding> {
    let mut scope = nesting.scope_of(inner);
    let mut first = true;
    let mut steps = 0;
    let scopes = locals.0.get(name)?;
    while let Some(s) = scope {
        let interval = &nesting.intervals[s];
        // Python: names in a class body are not visible from the functions inside it.
        if first || !interval.class_like {
            if let Some(b) = scopes.get(&s).map(|b| binding_at(b, pos)) {
                return Some(b);
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(lang: Lang, module: &str, src: &str) -> FileFacts {
        Extractor::new().extract(lang, module, src.as_bytes())
    }

    #[test]
    fn python_nested_definitions_and_lambdas_get_qnames() {
        let f = facts(
            Lang::Python,
            "pkg.mod",
            "class A:\n    def m(self):\n        def inner():\n            pass\n        inner()\n\nf = lambda: 0\ng = lambda: 1\n",
        );
        let q: Vec<&str> = f.symbols.iter().map(|s| s.qname.as_str()).collect();
        assert_eq!(
            q,
            [
                "pkg.mod",
                "pkg.mod.A",
                "pkg.mod.A.m",
                "pkg.mod.A.m.inner",
                "pkg.mod.<lambda1>",
                "pkg.mod.<lambda2>",
                "pkg.mod.f",
                "pkg.mod.g"
            ]
        );
        // `f = lambda: 0` is a module value holding the lambda.
        assert_eq!(f.symbols[6].kind, SymbolKind::Variable);
        assert_eq!(f.symbols[6].ty, Some(ValueSource::Def("pkg.mod.<lambda1>".into())));
        assert_eq!(f.symbols[2].kind, SymbolKind::Method);
        let call = f.refs.iter().find(|r| r.path == "inner").unwrap();
        assert_eq!(call.binding, LocalBinding::Def("pkg.mod.A.m.inner".into()));
        assert_eq!(f.symbols[call.src as usize].qname, "pkg.mod.A.m");
    }

    #[test]
    fn local_binding_shadows_import() {
        let f = facts(Lang::TypeScript, "src/a.ts", "import { x } from './x';\nfunction f(x: number) { x(); }\nx();\n");
        let calls: Vec<_> = f.refs.iter().filter(|r| r.kind == RefKind::Call).collect();
        assert_eq!(calls.len(), 2);
        assert!(matches!(calls[0].binding, LocalBinding::Var(_)));
        assert_eq!(calls[1].binding, LocalBinding::Free);
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let depth = 20_000;
        let src = format!("x = {}1{}\n", "(".repeat(depth), ")".repeat(depth));
        let f = facts(Lang::Python, "deep", &src);
        assert_eq!(f.symbols.len(), 2, "the module and the value x");
        let src = format!("const x = {}1{};\nfoo();\n", "[".repeat(depth), "]".repeat(depth));
        let f = facts(Lang::TypeScript, "deep.ts", &src);
        assert!(f.refs.iter().any(|r| r.path == "foo"));
    }
}
