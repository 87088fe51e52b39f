//! Extraction: `(path, bytes, language) -> FileFacts`, a pure function of one file.
//!
//! The language knowledge is in `grammars/<lang>/*.scm`: one query per grammar finds
//! definitions, references, imports, scopes and local names. This module turns the captures
//! into facts in three steps:
//!
//! 1. capture what the query captures, sorted by role, by the grammar's hand-written walk,
//!    which the query specifies and tests (so indexing neither compiles a query nor runs a
//!    query cursor);
//! 2. sweep the definition and scope nodes (which nest like the tree) with a stack, giving
//!    every node its enclosing definition and scope without recursion, so deeply nested code
//!    cannot overflow the stack;
//! 3. name the definitions (qnames), attach each reference to its enclosing definition, and
//!    decide from the file's own scopes whether the reference's first name is local
//!    ([`LocalBinding`](crate::facts::LocalBinding)). Everything that needs another file is
//!    left to `resolve`.
//!
//! What queries cannot say (the shape of import statements, Python's `self`) lives in the
//! per-language modules [`python`] and [`typescript`].
//!
//! By concern: `captures/` has the walks and sorts the captures by role; `scopes.rs` has the
//! nesting sweep and the names each scope binds; `definitions.rs` names the definitions;
//! `values.rs` makes value symbols and follows the values that flow into them;
//! `references.rs` turns reference captures into facts; `probe.rs` says what is at one
//! position (for `def`); `syntax.rs` reads names and written paths off the tree. This module
//! holds the [`Extractor`] and the order the stages run in (`build`).

mod captures;
mod definitions;
mod jsdoc;
mod narrowing;
mod probe;
mod python;
mod references;
mod scopes;
pub(crate) mod syntax;
mod typescript;
mod values;

use crate::resolve::{Map, Set};

use tree_sitter::{Node, Parser, Tree};

use crate::facts::{Diagnostic, DiagnosticKind, FileFacts, ParamUse, RefFact, RefKind, SymbolFact, SymbolKind, ValueSource};
use crate::field::{Field, Kind};
use crate::lang::{Capture, DefKind, Grammar, Lang, lexer, reduce};
use captures::Captures;
use captures::preorder::named_children;
use definitions::Named;
pub use probe::PositionFact;
use probe::Probe;
use scopes::{Nesting, Points};
use syntax::path_of;

/// Scope chains longer than this are not searched for local names (pathological nesting);
/// the name is then treated as free and the resolver decides.
const MAX_SCOPE_WALK: usize = 256;
/// Dynamic call sites keep at most this many bytes of their written text.
const MAX_TEXT: usize = 60;

/// Per-thread extraction context: one parser per grammar (a parser is mutable, the grammars
/// are shared), and the walk's list of matches, kept from one file to the next.
pub struct Extractor {
    /// Each grammar's parser, and whether it parses with the grammar's expanded table.
    parsers: Map<Grammar, (Parser, bool)>,
    room: captures::Room,
    /// The grammars it parses with their expanded tables ([`Grammar::expanded_language`]).
    expanded: ExpandedTables,
    /// Whether its parsers lex with the short path for ASCII ([`lexer::with_ascii_step`]).
    ascii_step: bool,
    /// Whether its parsers reduce in place where the stack allows it ([`reduce::in_place`]).
    reduce_in_place: bool,
}

/// Which grammars an [`Extractor`] parses with their expanded tables (by [`Grammar::slot`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExpandedTables([bool; Grammar::ALL.len()]);

impl ExpandedTables {
    /// Every grammar.
    pub const ALL: ExpandedTables = ExpandedTables([true; Grammar::ALL.len()]);

    /// The grammars of which at least `from` files are to be parsed.
    pub fn for_files(langs: impl IntoIterator<Item = Lang>, from: usize) -> ExpandedTables {
        let mut counts = [0usize; Grammar::ALL.len()];
        for lang in langs {
            counts[lang.grammar().slot()] += 1;
        }
        ExpandedTables(counts.map(|n| n >= from))
    }

    fn has(self, grammar: Grammar) -> bool {
        self.0[grammar.slot()]
    }
}

impl Default for Extractor {
    fn default() -> Self {
        Self::new()
    }
}

impl Extractor {
    pub fn new() -> Extractor {
        Extractor::with_expanded_tables(ExpandedTables::default())
    }

    /// An extractor that parses the `expanded` grammars with their expanded tables: the same
    /// trees, faster, once the tables are made (a few milliseconds per grammar, once per
    /// process): for runs that parse many files of a grammar.
    pub fn with_expanded_tables(expanded: ExpandedTables) -> Extractor {
        Extractor { parsers: Map::default(), room: captures::Room::default(), expanded, ascii_step: true, reduce_in_place: true }
    }

    /// The extractor, its parsers lexing with the short path for ASCII when `on` (the same
    /// trees, faster; the default) or with tree-sitter's lexer as it comes (the `parse-only`
    /// baseline). Before it parses.
    pub fn with_ascii_step(self, on: bool) -> Extractor {
        Extractor { ascii_step: on, ..self }
    }

    /// The extractor, its parsers reducing in place where the stack allows it when `on` (the
    /// same trees, faster; the default) or always by copying, as tree-sitter does (the
    /// `parse-only` baseline). Before it parses.
    pub fn with_reduce_in_place(self, on: bool) -> Extractor {
        Extractor { reduce_in_place: on, ..self }
    }

    /// Parses only: what `ckg parse-only` times, the baseline that benchmarks compare full
    /// indexing with (made by an extractor with none of its tunings, for tree-sitter as it comes).
    pub fn parse(&mut self, lang: Lang, src: &[u8]) -> Option<Tree> {
        let grammar = lang.grammar();
        let (expanded, ascii_step, reduce_in_place) = (self.expanded.has(grammar), self.ascii_step, self.reduce_in_place);
        let (parser, on_expanded) = self.parsers.entry(grammar).or_insert_with(|| {
            let p = if ascii_step { lexer::with_ascii_step(Parser::new()) } else { Parser::new() };
            let mut p = if reduce_in_place { reduce::in_place(p) } else { p };
            // The grammar alone: parsing needs no compiled query.
            p.set_language(&grammar.language()).expect("grammar ABI matches tree-sitter");
            (p, false)
        });
        // The expanded table once it is made; the grammar as it comes until then.
        if expanded
            && !*on_expanded
            && let Some(language) = grammar.expanded_language_if_made()
        {
            parser.set_language(&language).expect("grammar ABI matches tree-sitter");
            *on_expanded = true;
        }
        parser.parse(src, None)
    }

    /// Extracts the facts of one file. Never fails: syntax errors are counted and what
    /// parses is kept; invalid UTF-8 is read lossily and reported.
    pub fn extract(&mut self, lang: Lang, module: &str, src: &[u8]) -> FileFacts {
        // Checked once here: a node's text is then read without a check of its own.
        syntax::with_checked_source(src, |utf8| self.extract_checked(lang, module, src, utf8))
    }

    /// [`Extractor::extract`] of a source that is UTF-8 or not (`utf8`).
    fn extract_checked(&mut self, lang: Lang, module: &str, src: &[u8], utf8: bool) -> FileFacts {
        let mut facts = FileFacts { lines: count_lines(src), ..FileFacts::default() };
        if !utf8 {
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
        let captures = captures::of(lang.grammar(), root, src, &mut self.room);
        let seen_parents = build(lang, module, src, captures, &mut facts, &mut None);
        self.room.keep_parents(seen_parents);
        facts
    }
}

/// A module's own name: `mod` for `pkg.mod`, `app` for `src/app.ts` (`index` for
/// `src/index.d.ts`); of a Python module told apart by its path (`pkg[pkg/__init__.py]`),
/// that of the name before the path.
fn module_name(lang: Lang, module: &str) -> &str {
    if lang.is_script() {
        let file = module.rsplit('/').next().unwrap_or(module);
        file.split('.').next().filter(|s| !s.is_empty()).unwrap_or(file)
    } else {
        let module = module.split_once('[').map_or(module, |(name, _)| name);
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
        param_types: Vec::new(),
    }
}

pub(crate) fn count_lines(src: &[u8]) -> u32 {
    let n = count_byte(b'\n', src);
    let extra = u32::from(!src.is_empty() && !src.ends_with(b"\n"));
    (n as u32).saturating_add(extra)
}

/// How many times `needle` occurs in `hay`. Counted in runs of 255 bytes into a byte, which
/// the compiler turns into vector compares and adds: ~10x faster (0.35 -> 0.03 ns a byte) than
/// counting into a `usize` (`filter(..).count()`, which it does not vectorize). Counted that
/// way, each file's two counts of its lines were 0.5 % of a full index's instructions
/// (pytest, callgrind).
pub(crate) fn count_byte(needle: u8, hay: &[u8]) -> usize {
    hay.chunks(usize::from(u8::MAX)).map(|run| usize::from(run.iter().fold(0u8, |n, &b| n + u8::from(b == needle)))).sum()
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

/// One file as the stages after naming its definitions see it: its source and captures, where
/// the captures nest, and what the definitions became. Fixed from then on.
struct File<'t, 's> {
    lang: Lang,
    is_py: bool,
    src: &'s [u8],
    caps: Captures<'t>,
    nesting: Nesting,
    /// The innermost interval of each reference, local definition, import, return and
    /// `global` capture.
    points: Points,
    /// The symbol each definition capture became.
    sym_of_def: Vec<u32>,
    /// Interval index -> symbol index.
    sym_of_interval: Map<usize, u32>,
    /// The name nodes of definitions (not references).
    name_nodes: Set<usize>,
    /// Parents of nodes, looked up once each.
    parents: syntax::Parents<'t>,
    /// Definitions by node, so `f = lambda: ...` binds `f` to the lambda.
    def_by_node: Map<usize, u32>,
    /// The kinds of the definitions' symbols, as named (before value symbols are added).
    kinds: Vec<SymbolKind>,
    /// JavaScript: the modules JSDoc types name (`{import('./db').Store}`), with where each
    /// such type is used: type-only imports, added with the file's imports (once per module,
    /// where it is first used).
    jsdoc_imports: std::cell::RefCell<Vec<(String, (u32, u32))>>,
    /// JavaScript: the file's `@typedef`s.
    typedefs: jsdoc::Typedefs,
    /// JavaScript: the functions whose type is their JSDoc's `@returns`, which an obvious
    /// return in their code replaces (`File::finish`).
    jsdoc_returns: Set<u32>,
}

impl<'t, 's> File<'t, 's> {
    #[allow(clippy::too_many_arguments)]
    fn new(
        lang: Lang,
        src: &'s [u8],
        caps: Captures<'t>,
        nesting: Nesting,
        points: Points,
        named: Named,
        parents: syntax::Parents<'t>,
        facts: &FileFacts,
    ) -> Self {
        let Named { sym_of_def, sym_of_interval, name_nodes, typedefs, jsdoc_returns } = named;
        let kinds: Vec<SymbolKind> = facts.symbols.iter().map(|s| s.kind).collect();
        let def_by_node: Map<usize, u32> = caps.defs.iter().enumerate().map(|(d, (_, node, _))| (node.id(), sym_of_def[d])).collect();
        File {
            lang,
            is_py: lang == Lang::Python,
            src,
            caps,
            nesting,
            points,
            sym_of_def,
            sym_of_interval,
            name_nodes,
            parents,
            def_by_node,
            kinds,
            jsdoc_imports: Default::default(),
            typedefs,
            jsdoc_returns,
        }
    }

    /// What separates a module from its members in qnames: `src/app.ts#run`, `pkg.mod.run`.
    fn sep(&self) -> char {
        if self.lang.is_script() { '#' } else { '.' }
    }

    /// The symbol whose code a point is in (`inner`: its innermost interval). A field
    /// initialiser runs in the class body: its references belong to the class, not to the
    /// property (a property holding an arrow function is a method and keeps its own).
    fn sym_at(&self, inner: Option<usize>) -> u32 {
        let (nesting, iv, sym_of_interval, kinds) = (&self.nesting, &self.nesting.intervals, &self.sym_of_interval, &self.kinds);
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
    }
}

/// Turns one file's captures into its facts, stage by stage (each stage reads what the
/// previous ones left; the order matters). Gives back the list of parents the walk noted, for
/// its memory to serve the next file.
fn build<'t>(
    lang: Lang,
    module: &str,
    src: &[u8],
    mut caps: Captures<'t>,
    facts: &mut FileFacts,
    probe: &mut Option<Probe>,
) -> Vec<(Node<'t>, Node<'t>)> {
    if lang.is_script() {
        typescript::keep_static_members(&mut caps, src);
    }
    // Intervals: definitions and scopes, merged by node; and where every other capture is.
    let (nesting, points) = Nesting::of(&caps);
    // Symbols, in source order so parents come first.
    // Parents are asked of about one node per reference capture of Python, of about two and a
    // half per capture in TypeScript (medians over django's and effect's files); growing the
    // map was ~1.5 % of extraction.
    let expected_parents = if lang == Lang::Python { caps.refs.len() } else { caps.refs.len() * 5 / 2 };
    let parents = syntax::Parents::with_capacity(caps.root, expected_parents);
    let seen_parents = std::mem::take(&mut caps.seen_parents);
    parents.note(&seen_parents);
    let (named, mut qindex) = definitions::name_definitions(lang, module, src, &caps, &nesting, &parents, facts, probe);
    let file = File::new(lang, src, caps, nesting, points, named, parents, facts);
    // Local names per scope, and the bindings that are value symbols.
    let (mut locals, value_bindings) = file.bind_locals(facts, probe);
    file.add_local_container_writes(&mut locals);
    file.loops_over_local_literals(&mut locals);
    file.narrow_by_type_tests(&mut locals);
    file.probe_globals(&locals, facts, probe);
    let module_values = file.value_symbols(&value_bindings, &mut qindex, &mut locals, facts, probe);
    let (attr_types, attr_params) = file.attribute_flows(&locals, facts);
    file.bind_nested_definitions(&mut locals, facts);
    let param_uses = file.references(&locals, &qindex, &module_values, &attr_params, facts, probe);
    file.prototype_inheritance(module, &qindex, facts);
    // Obvious return types (applied at the end, once every reference is attached).
    let returned = file.returned_values(&locals, facts);
    let interop_defaults = file.imports_and_exports(facts, probe);
    file.decorators(facts);
    file.finish(param_uses, attr_types, returned, facts);
    if !interop_defaults.is_empty() {
        typescript::through_interop_defaults(&interop_defaults, facts);
    }
    seen_parents
}

impl File<'_, '_> {
    /// Imports and exports, read by the language modules; gives the locals bound by
    /// `__importDefault(require("m"))`, whose `default` is the import.
    fn imports_and_exports(&self, facts: &mut FileFacts, probe: &mut Option<Probe>) -> Vec<String> {
        let (lang, src, caps) = (self.lang, self.src, &self.caps);
        // Locals bound by `__importDefault(require("m"))`, whose `default` is the import.
        let mut interop_defaults: Vec<String> = Vec::new();
        for ((role, node), point) in caps.imports.iter().zip(&self.points.imports) {
            let scope = self.sym_at(point.2);
            let first = facts.imports.len();
            if lang.is_script() {
                interop_defaults.extend(typescript::imports(&self.parents, *role, *node, src, scope, &mut facts.imports));
            } else {
                python::imports(*node, src, scope, &mut facts.imports);
            }
            // `const { a } = require('m')`: the names are in the declarator around the call.
            let statement = match role {
                Capture::ImportRequire => self.parents.of(*node).filter(|p| p.kind_name() == "variable_declarator").unwrap_or(*node),
                _ => *node,
            };
            if Probe::covers(probe, statement) {
                let fact = probe::probe_import(lang, statement, probe.as_ref().map_or(0, |p| p.at), src, facts, first);
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
                let fact = probe::probe_import(lang, *node, probe.as_ref().map_or(0, |p| p.at), src, facts, first);
                if let Some(f) = fact {
                    Probe::set(probe, f);
                }
            }
        }
        for (spec, at) in self.jsdoc_imports.take() {
            jsdoc::note_import(&mut facts.imports, &spec, at);
        }
        interop_defaults
    }

    /// TS/JS prototype wiring at module level (`util.inherits(C, B)`, `C.prototype =
    /// Object.create(B.prototype)`): `C`, a function or class of this file, derives from `B` —
    /// an `inherits` reference of `C` (which [`File::finish`] makes a base) — and is a class.
    fn prototype_inheritance(&self, module: &str, qindex: &Map<String, u32>, facts: &mut FileFacts) {
        if !self.lang.is_script() {
            return;
        }
        for (class, base) in typescript::prototype_bases(self.caps.root, self.src) {
            let Some(&sym) = qindex.get(&format!("{module}#{class}")) else { continue };
            let Some((path, _)) = path_of(base, self.src) else { continue };
            let s = &mut facts.symbols[sym as usize];
            if !matches!(s.kind, SymbolKind::Class | SymbolKind::Function) {
                continue;
            }
            s.kind = SymbolKind::Class;
            let (line, col) = syntax::position(base);
            let binding = crate::facts::LocalBinding::Free;
            facts.refs.push(RefFact {
                kind: RefKind::Inherits,
                src: sym,
                path,
                text: String::new(),
                binding,
                line,
                col,
                computed: false,
                args: Vec::new(),
            });
        }
    }

    /// The decorators of each definition, as written.
    fn decorators(&self, facts: &mut FileFacts) {
        let (src, caps, sym_of_def) = (self.src, &self.caps, &self.sym_of_def);
        // Looked up from each definition (one parent step for Python), not from each call.
        let mut decorated: Vec<(u32, String)> = Vec::new();
        for (d, (_, node, _)) in caps.defs.iter().enumerate() {
            let holder = match node.kind_name() {
                "function_definition" | "class_definition" => match self.parents.of(*node) {
                    Some(p) if p.kind_name() == "decorated_definition" => p,
                    _ => continue,
                },
                // TS: decorators are children of the class or member.
                "class_declaration" | "abstract_class_declaration" | "class" | "method_definition" | "public_field_definition" => *node,
                _ => continue,
            };
            for dec in named_children(holder).into_iter().filter(|n| n.kind_name() == "decorator") {
                // `@dec` or `@dec(...)` (the callee).
                let Some(expr) = dec.named_child(0) else { continue };
                let callee = match expr.kind_name() {
                    "call" | "call_expression" => expr.field("function"),
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
    }

    /// What is known once every reference is attached: class bases, calls through
    /// parameters, attribute types, and obvious return types; then the canonical order.
    fn finish(
        &self,
        param_uses: Vec<(u32, ParamUse)>,
        attr_types: Vec<(u32, ValueSource)>,
        mut returned: Map<u32, Vec<ValueSource>>,
        facts: &mut FileFacts,
    ) {
        let (src, caps, sym_of_def, def_by_node) = (self.src, &self.caps, &self.sym_of_def, &self.def_by_node);
        for i in 0..facts.refs.len() {
            let r = &facts.refs[i];
            // What a class implements is a base too: a call through the interface may run the
            // class's method (its overrides), and a member it only declares is the interface's.
            if matches!(r.kind, RefKind::Inherits | RefKind::Implements)
                && !r.path.is_empty()
                && matches!(facts.symbols[r.src as usize].kind, SymbolKind::Class | SymbolKind::Interface)
            {
                let src_sym = r.src as usize;
                let path = match r.kind {
                    RefKind::Implements => format!("{}{}", crate::facts::IMPLEMENTED, r.path),
                    _ => r.path.clone(),
                };
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
            if *kind != DefKind::Lambda || node.kind_name() != "lambda" {
                continue;
            }
            let mut body = node.field("body");
            while let Some(b) = body.filter(|b| b.kind_name() == "parenthesized_expression") {
                body = b.named_child(0);
            }
            let Some(body) = body else { continue };
            let value = match def_by_node.get(&body.id()) {
                Some(&inner) => Some(ValueSource::Def(facts.symbols[inner as usize].qname.clone())),
                None if body.kind_name() == "call" => {
                    body.field("function").and_then(|f| path_of(f, src)).map(|(p, _)| ValueSource::Call(p))
                }
                None => None,
            };
            if let Some(v) = value {
                returned.entry(sym_of_def[d]).or_default().push(v);
            }
        }
        for (sym, mut values) in returned {
            let s = &mut facts.symbols[sym as usize];
            // A returned member (`return this.session`, `return Store.instance`) types a function
            // that returns nothing else, and not over its JSDoc's `@returns`: beside `return
            // Stream.callback(…)`, `return Stream.empty` is a guard's early exit.
            let member = |v: &ValueSource| matches!(v, ValueSource::Alias(p) if p.contains('.'));
            if values.iter().any(|v| !member(v)) {
                values.retain(|v| !member(v));
            }
            let unwritten = s.ty.is_none() || (self.jsdoc_returns.contains(&sym) && !values.iter().any(member));
            if unwritten && values.len() == 1 && matches!(s.kind, SymbolKind::Function | SymbolKind::Method | SymbolKind::Lambda) {
                s.ty = values.pop();
            }
        }
        sort_refs(&mut facts.refs);
        facts.refs.dedup_by(|b, a| a.line == b.line && a.col == b.col && a.kind == b.kind && a.path == b.path);
        // The list had room for every reference capture, most of them local reads and writes
        // that are not kept; it is kept until the file is resolved (a fresh build holds all
        // files' at once: the room left raised gen-py-1m's peak 245 -> 273 MiB).
        if facts.refs.capacity() > facts.refs.len() + facts.refs.len() / 4 {
            facts.refs.shrink_to_fit();
        }
        facts.imports.sort_by(|a, b| (a.line, a.col, &a.local).cmp(&(b.line, b.col, &b.local)));
    }
}

/// Sorts a file's references by site, then kind, stably (the order they were found in
/// otherwise). By their keys, each reference then moved into place once: a reference is ~170
/// bytes, and a comparison sort moving them was ~2 % of django's extraction.
fn sort_refs(refs: &mut [RefFact]) {
    refs.sort_by_cached_key(|r| (r.line, r.col, r.kind));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::LocalBinding;

    fn facts(lang: Lang, module: &str, src: &str) -> FileFacts {
        Extractor::new().extract(lang, module, src.as_bytes())
    }

    /// A grammar's expanded tables are for runs with enough files of that grammar (JavaScript
    /// is parsed with TSX's), and an extractor parses each grammar with the tables it was
    /// given: the same facts either way.
    #[test]
    fn expanded_tables_are_chosen_per_grammar_by_its_files() {
        let langs = [Lang::Python, Lang::Python, Lang::TypeScript, Lang::JavaScript, Lang::Tsx];
        assert_eq!(ExpandedTables::for_files(langs, 2), ExpandedTables([true, false, true]));
        assert_eq!(ExpandedTables::for_files(langs, 3), ExpandedTables([false; 3]));
        assert_eq!(ExpandedTables::for_files([], 0), ExpandedTables::ALL);
        let src = "import os\nclass A(B):\n    def f(self):\n        return os.path.join(self.x, g(1))\n";
        let mut ex = Extractor::with_expanded_tables(ExpandedTables([true, false, false]));
        // Until the table is made (on another thread), the grammar as it comes; once it is
        // made, the table.
        let first = ex.parse(Lang::Python, src.as_bytes()).unwrap().language().clone().into_raw();
        let (plain, made) = (Grammar::Python.language().into_raw(), Grammar::Python.expanded_language().into_raw());
        assert!(first == plain || first == made);
        let tree = ex.parse(Lang::Python, src.as_bytes()).unwrap();
        assert_eq!(tree.language().clone().into_raw(), made);
        let tree = ex.parse(Lang::TypeScript, b"f(1);").unwrap();
        assert_eq!(tree.language().clone().into_raw(), Grammar::TypeScript.language().into_raw());
        let expanded = ex.extract(Lang::Python, "m", src.as_bytes());
        assert_eq!(format!("{expanded:?}"), format!("{:?}", facts(Lang::Python, "m", src)));
    }

    /// The count of a byte is the plain count: in runs shorter and longer than the runs it
    /// counts in, and in runs made only of the byte (as many as a run's counter holds).
    #[test]
    fn a_byte_is_counted_as_often_as_it_occurs() {
        for len in [0, 1, 254, 255, 256, 510, 511, 4096, 10_000] {
            let mixed: Vec<u8> = (0..len).map(|i| if (i * 7919) % 13 < 4 { b'\n' } else { b'a' + (i % 26) as u8 }).collect();
            for hay in [mixed, vec![b'\n'; len], vec![b'x'; len]] {
                assert_eq!(count_byte(b'\n', &hay), hay.iter().filter(|&&b| b == b'\n').count(), "length {len}");
            }
        }
    }

    /// References come out of `sort_refs` in the order of a stable sort by site and kind:
    /// sorted or not, with ties kept in the order they came in.
    #[test]
    fn references_sort_as_a_stable_sort_would() {
        let fact = |line: u32, col: u32, kind: RefKind, tag: usize| RefFact {
            kind,
            src: 0,
            path: format!("p{tag}"),
            text: String::new(),
            binding: crate::facts::LocalBinding::Free,
            line,
            col,
            computed: false,
            args: Vec::new(),
        };
        let mut seed = 7u64;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for len in [0, 1, 2, 5, 40, 300] {
            for _ in 0..20 {
                let kinds = [RefKind::Call, RefKind::Read, RefKind::Argument];
                let refs: Vec<RefFact> = (0..len).map(|tag| fact(next(4) as u32, next(3) as u32, kinds[next(3) as usize], tag)).collect();
                let mut expected = refs.clone();
                expected.sort_by_key(|a| (a.line, a.col, a.kind));
                let mut got = refs;
                sort_refs(&mut got);
                assert_eq!(got, expected, "{len} references");
            }
        }
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
