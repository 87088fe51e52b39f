//! A tree's captures sorted by role ([`Captures`]): definitions, references, scopes, local
//! names, imports, exports and returned calls.

pub(super) mod preorder;
mod python;
mod typescript;

use crate::resolve::Map;

use tree_sitter::Node;
#[cfg(test)]
use tree_sitter::{QueryCursor, StreamingIterator};

use crate::facts::RefKind;
use crate::field::{Field, Kind};
#[cfg(test)]
use crate::lang::LanguageConfig;
use crate::lang::{Capture, DefKind, Grammar};

/// Captures sorted by role. Nodes borrow the tree.
pub(super) struct Captures<'t> {
    pub(super) defs: Vec<(DefKind, Node<'t>, Option<Node<'t>>)>,
    /// (kind, the `@name` node, the node the role was captured on: the call for a call).
    pub(super) refs: Vec<(RefKind, Node<'t>, Node<'t>)>,
    /// The `@name` nodes of the references other than reads, types, `with`, keys, iterations
    /// and awaits: a site another reference names (filled by [`of`]).
    pub(super) claimed: crate::resolve::Set<usize>,
    pub(super) scopes: Vec<Node<'t>>,
    pub(super) local_defs: Vec<Node<'t>>,
    /// `global x` / `nonlocal x` names.
    pub(super) globals: Vec<Node<'t>>,
    pub(super) imports: Vec<(Capture, Node<'t>)>,
    pub(super) exports: Vec<Node<'t>>,
    /// Returned calls: (the return statement, the callee).
    pub(super) returns: Vec<(Node<'t>, Node<'t>)>,
    /// The parent of each type name whose parent is a `nested_type_identifier`, a
    /// `generic_type` or a `class` (a class expression's name) (by the name's id), noted by the walk: whether a type reference is one
    /// of its own depends on it, and looking the parents up afterwards was ~2.6 % of effect's
    /// full index. (Empty from the query, which the walk is only compared with.)
    pub(super) type_parents: Map<usize, Node<'t>>,
    /// (child, parent) pairs the walk saw on its way to the nodes whose ancestors extraction
    /// asks for ([`asks_ancestors`]): local bindings, arguments, keys, `with` items and
    /// capitalised member objects. Each pair once; [`super::syntax::Parents`] starts with them, rather than
    /// searching the tree for each.
    pub(super) seen_parents: Vec<(Node<'t>, Node<'t>)>,
    /// The file's root (its module-level statements).
    pub(super) root: Node<'t>,
}

/// The captures of a tree, by the grammar's hand-written walk ([`python::walk`],
/// [`typescript::walk`]): the query's captures in the query's order, without compiling the
/// query or running a query cursor.
pub(super) fn of<'t>(grammar: Grammar, root: Node<'t>, src: &[u8], room: &mut Room) -> Captures<'t> {
    let mut captures = match grammar {
        Grammar::Python => python::walk(root, src, room),
        Grammar::TypeScript => typescript::walk(root, src, false, room),
        Grammar::Tsx => typescript::walk(root, src, true, room),
    };
    captures.keep_outermost_reads();
    captures
}

impl Captures<'_> {
    /// Notes the sites other references name, and drops the reads that are not outermost
    /// reads: binding sites and sites another reference names. (The reads a `@skip.read`
    /// marks, callees, assignment targets, decorators and objects of a longer chain, were
    /// never listed: [`list_match`].) The query captures a read on every name; most are not
    /// outermost (django: 1.00M of 1.12M reads), and each would cost a place in the nesting
    /// sweep and a turn of the reference loop for nothing.
    fn keep_outermost_reads(&mut self) {
        use crate::resolve::Set;
        self.claimed = self
            .refs
            .iter()
            .filter(|(k, _, _)| !matches!(k, RefKind::Type | RefKind::Read | RefKind::With | RefKind::Key | RefKind::Iter | RefKind::Await))
            .flat_map(|(k, n, _)| {
                // `(0, tpl_1.default)(…)`: the call names the last operand of the sequence too.
                let operand = (*k == RefKind::Call && n.kind_name() == "parenthesized_expression")
                    .then(|| n.named_child(0).filter(|s| s.kind_name() == "sequence_expression"))
                    .flatten()
                    .and_then(|s| s.named_child(s.named_child_count().checked_sub(1)?));
                std::iter::once(n.id()).chain(operand.map(|o| o.id()))
            })
            .collect();
        let binding_sites: Set<usize> = self.local_defs.iter().chain(&self.globals).map(|n| n.id()).collect();
        let claimed = &self.claimed;
        self.refs.retain(|(kind, name, _)| {
            let id = name.id();
            *kind != RefKind::Read || !(claimed.contains(&id) || binding_sites.contains(&id))
        });
    }
}

/// Runs a grammar's query over the tree: the specification the walks are tested against.
#[cfg(test)]
pub(super) fn collect<'t>(cursor: &mut QueryCursor, config: &LanguageConfig, root: Node<'t>, src: &[u8]) -> Captures<'t> {
    let mut fold = Fold::new(root);
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
        if let Some((role, node)) = role {
            fold.push(role, node, name);
        }
    }
    // A `@skip.read` drops its node's read, as a walk does when it lists the mark.
    let Fold { mut out, skips, .. } = fold;
    out.refs.retain(|(kind, name, _)| *kind != RefKind::Read || !skips.contains(&name.id()));
    out
}

/// A match a walk found: its order key (the point of the walk completing it, as a query
/// cursor would, then the depth of the node the pattern starts at, then the pattern's index),
/// its role, the node the role is captured on and the `@name` node.
type Match<'t> = ((u32, u32, u16), Capture, Node<'t>, Option<Node<'t>>);

/// Adds a match a walk found at the node it visits to `found`. A `@skip.read` of that node
/// (every walk marks only the node it visits) drops the node's read, listed earlier in the same
/// visit at `read_at`: neither is listed (such a read is not an outermost read, see
/// [`Captures::keep_outermost_reads`]). Most reads are such (the objects and names of member chains, callees,
/// assignment targets), and each cost two matches to list, sort and fold, and a mark in a set.
/// The matches after the read are of the same visit (one point of the walk), whose order
/// among themselves [`in_cursor_order`] settles: the read's place is taken by the last.
fn list_match<'t>(found: &mut Vec<Match<'t>>, read_at: &mut Option<usize>, m: Match<'t>) {
    match m.1 {
        Capture::SkipRead => {
            if let Some(i) = read_at.take() {
                debug_assert!(found[i].2 == m.2, "a walk marks only the node it visits");
                found.swap_remove(i);
            }
        }
        Capture::Reference(RefKind::Read) => {
            *read_at = Some(found.len());
            found.push(m);
        }
        _ => found.push(m),
    }
}

/// Room for a walk's matches, from the size of the source: the corpora had one match in 9.5
/// bytes of Python and in 16 bytes of TypeScript before the walks stopped listing the reads a
/// skip mark drops ([`list_match`]), so fewer now. With room for one in 24 bytes the list grew
/// in 96 % of the Python files and 82 % of the TypeScript ones (14 % with one in 8).
fn expected_matches(src: &[u8]) -> usize {
    src.len() / 8
}

/// A walk's list of matches and its list of noted parents ([`Captures::seen_parents`]), kept
/// by a thread's extractor from one file to the next. The list of matches is ~11 bytes for
/// each byte of source; made for each file, it was the largest allocation of the walk, and
/// the pages of the larger ones were returned when it was freed and touched again by the next
/// file's. The parents' list, made empty for each file, was copied as it grew (`realloc`,
/// ~0.5 % of django's full index in perf).
#[derive(Default)]
pub(in crate::extract) struct Room {
    matches: Vec<Match<'static>>,
    parents: Vec<(Node<'static>, Node<'static>)>,
}

impl Room {
    /// Lists larger than this (bytes) are not kept: a file of a few MB would hold its size
    /// for the rest of the process.
    const KEPT: usize = 8 << 20;

    /// The list of matches, empty, with room for `expected` matches: the kept one when it has
    /// that room, else a new one (growing the kept one would copy all of its room).
    fn take<'t>(&mut self, expected: usize) -> Vec<Match<'t>> {
        let list = std::mem::take(&mut self.matches);
        if list.capacity() < expected {
            return Vec::with_capacity(expected);
        }
        recycled(list)
    }

    /// Keeps the memory of a list of matches for the next file, unless it is large.
    fn keep(&mut self, list: Vec<Match<'_>>) {
        self.matches = Self::kept(list);
    }

    /// The list of noted parents, empty: the kept one.
    fn take_parents<'t>(&mut self) -> Vec<(Node<'t>, Node<'t>)> {
        recycled(std::mem::take(&mut self.parents))
    }

    /// Keeps the memory of a list of noted parents for the next file, unless it is large.
    pub(in crate::extract) fn keep_parents(&mut self, list: Vec<(Node<'_>, Node<'_>)>) {
        self.parents = Self::kept(list);
    }

    /// `list`, emptied, to keep: a new empty list when it is larger than [`Room::KEPT`].
    fn kept<A, B>(list: Vec<A>) -> Vec<B> {
        if list.capacity() * std::mem::size_of::<A>() <= Self::KEPT { recycled(list) } else { Vec::new() }
    }
}

/// `list` emptied, as a list of items of another tree, in the same memory (the standard
/// library collects a mapped `Vec` in place when the items are of one size and alignment).
fn recycled<A, B>(mut list: Vec<A>) -> Vec<B> {
    const { assert!(std::mem::size_of::<A>() == std::mem::size_of::<B>() && std::mem::align_of::<A>() == std::mem::align_of::<B>()) };
    list.clear();
    list.into_iter().map(|_| unreachable!("the list was emptied")).collect()
}

/// A walk's matches folded into [`Captures`] in the order a query cursor reports them. A walk
/// reports its matches in the order of the point completing them (`found` is sorted by the
/// key's first part), so only the matches completed at one point are sorted among themselves.
fn in_cursor_order<'t>(root: Node<'t>, found: &mut [Match<'t>]) -> Captures<'t> {
    debug_assert!(found.is_sorted_by_key(|m| m.0.0));
    let mut fold = Fold::new(root);
    // Most matches are references: room for all of them at once.
    fold.out.refs.reserve(found.len());
    let mut rest = found;
    while let Some(first) = rest.first() {
        let point = first.0.0;
        let n = rest.iter().position(|m| m.0.0 != point).unwrap_or(rest.len());
        let (group, tail) = rest.split_at_mut(n);
        if n > 1 {
            group.sort_unstable_by_key(|m| m.0);
        }
        for &mut (_, role, node, name) in group {
            fold.push(role, node, name);
        }
        rest = tail;
    }
    fold.out
}

/// Whether extraction asks for the ancestors of a match's node `node` (`text` its text): it
/// walks up from local bindings, arguments, keys, `with` items, and the objects of member
/// accesses that are capitalised (the only ones that can be enums, see `references`).
fn asks_ancestors(role: Capture, text: &[u8]) -> bool {
    match role {
        Capture::Reference(RefKind::Member) => text.first().is_some_and(u8::is_ascii_uppercase),
        _ => matches!(role, Capture::LocalDefinition | Capture::Reference(RefKind::Argument | RefKind::Key | RefKind::With)),
    }
}

/// A node on a walk's path from the root: its kind and its field in its parent (in the ids of
/// the walk's grammar), whether it is named, and whether its (child, parent) pair is noted
/// ([`note_ancestors`]).
#[derive(Clone, Copy)]
struct Frame<'t, K, F> {
    node: Node<'t>,
    kind: K,
    field: F,
    named: bool,
    noted: bool,
}

/// Notes the (child, parent) pairs from `node` up its `path` (its ancestors, the root first)
/// when a match found at `node` is one whose ancestors extraction asks for, up to the first
/// ancestor already noted; whether it did.
fn note_ancestors<'t, K, F>(
    found: &[Match<'t>],
    src: &[u8],
    node: Node<'t>,
    path: &mut [Frame<'t, K, F>],
    seen: &mut Vec<(Node<'t>, Node<'t>)>,
) -> bool {
    let asked = found.iter().any(|&(_, role, n, name)| (n == node || name == Some(node)) && asks_ancestors(role, text(src, node)));
    let Some(parent) = path.last().filter(|_| asked).map(|p| p.node) else { return false };
    seen.push((node, parent));
    for k in (1..path.len()).rev() {
        if path[k].noted {
            break;
        }
        path[k].noted = true;
        seen.push((path[k].node, path[k - 1].node));
    }
    true
}

/// The text of a node (empty if its range is not in `src`).
fn text<'s>(src: &'s [u8], node: Node) -> &'s [u8] {
    src.get(node.byte_range()).unwrap_or_default()
}

/// Sorts matches, in the order the query reports them, into [`Captures`].
struct Fold<'t> {
    out: Captures<'t>,
    def_at: Map<usize, usize>,
    /// The nodes a `@skip.read` marks: the query's (a walk lists no mark, see [`list_match`]).
    skips: crate::resolve::Set<usize>,
}

impl<'t> Fold<'t> {
    fn new(root: Node<'t>) -> Fold<'t> {
        let out = Captures {
            defs: Vec::new(),
            refs: Vec::new(),
            scopes: Vec::new(),
            local_defs: Vec::new(),
            globals: Vec::new(),
            imports: Vec::new(),
            exports: Vec::new(),
            returns: Vec::new(),
            type_parents: Map::default(),
            seen_parents: Vec::new(),
            claimed: Default::default(),
            root,
        };
        Fold { out, def_at: Map::default(), skips: Default::default() }
    }

    /// One match: its role, the node the role was captured on and its `@name` node.
    fn push(&mut self, role: Capture, node: Node<'t>, name: Option<Node<'t>>) {
        let out = &mut self.out;
        match role {
            Capture::Definition(kind) => match self.def_at.get(&node.id()) {
                // Two patterns can match one node (a field holding an arrow function is
                // both a property and a method); the more specific kind wins.
                Some(&i) => {
                    if def_priority(kind) > def_priority(out.defs[i].0) {
                        out.defs[i] = (kind, node, name);
                    }
                }
                None => {
                    self.def_at.insert(node.id(), out.defs.len());
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
                self.skips.insert(node.id());
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
}

/// The names a destructuring pattern binds, in source order (an explicit stack: patterns
/// nest without bound). TS: `{ a, b: c, d = 1, ...e }`, `[x, , y = 2, ...z]`; Python:
/// `a, (b, c), *rest`.
fn pattern_bindings<'t>(pattern: Node<'t>, out: &mut Vec<Node<'t>>) {
    let mut stack = vec![pattern];
    let mut found = Vec::new();
    while let Some(n) = stack.pop() {
        match n.kind_name() {
            "identifier" | "shorthand_property_identifier_pattern" => found.push(n),
            "pair_pattern" => stack.extend(n.field("value")),
            "assignment_pattern" | "object_assignment_pattern" => stack.extend(n.field("left")),
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

/// Asserts that a walk captured what the query captured, item by item and in order, once the
/// reads that are not outermost are dropped from both (the walks do not list most of them, see
/// [`list_match`]); `file` names the source in the message.
#[cfg(test)]
fn assert_walk_is_query(file: &str, mut query: Captures, mut walk: Captures) {
    query.keep_outermost_reads();
    walk.keep_outermost_reads();
    let (query, walk) = (&query, &walk);
    // The parents the walk noted are tree-sitter's, and noted for every type reference whose
    // parent is of those kinds (a class expression's: its name).
    for (kind, name, _) in walk.refs.iter().filter(|(k, _, _)| *k == RefKind::Type) {
        let parent = name.parent().filter(|p| matches!(p.kind_name(), "nested_type_identifier" | "generic_type" | "class"));
        assert_eq!(walk.type_parents.get(&name.id()).copied(), parent, "{file}: the parent of the {kind:?} reference {name:?}");
    }
    for (child, parent) in &walk.seen_parents {
        assert_eq!(child.parent(), Some(*parent), "{file}: the parent of {child:?}");
    }
    for (id, parent) in &walk.type_parents {
        assert!(
            matches!(parent.kind_name(), "nested_type_identifier" | "generic_type" | "class"),
            "{file}: a parent of {id} noted: {parent:?}"
        );
    }
    let (expected, got) = (listing(query), listing(walk));
    if let Some(i) = (0..expected.len().max(got.len())).find(|&i| expected.get(i) != got.get(i)) {
        panic!(
            "{file}: the walk differs from the query at item {i}:\n  query {:?}\n  walk  {:?}",
            &expected[i.min(expected.len())..(i + 3).min(expected.len())],
            &got[i.min(got.len())..(i + 3).min(got.len())]
        );
    }
}

/// The repository's root (fixtures and corpora for the tests of the walks).
#[cfg(test)]
fn repo() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// Every list of the captures, one line per item, nodes as kind and byte range.
#[cfg(test)]
fn listing(c: &Captures) -> Vec<String> {
    let at = |n: Node| format!("{}@{}..{}", n.kind_name(), n.start_byte(), n.end_byte());
    let name = |n: Option<Node>| n.map(at).unwrap_or_default();
    let mut out = Vec::new();
    out.extend(c.defs.iter().map(|(k, n, nm)| format!("def {k:?} {} {}", at(*n), name(*nm))));
    out.extend(c.refs.iter().map(|(k, nm, n)| format!("ref {k:?} {} {}", at(*nm), at(*n))));
    out.extend(c.scopes.iter().map(|n| format!("scope {}", at(*n))));
    out.extend(c.local_defs.iter().map(|n| format!("local {}", at(*n))));
    out.extend(c.globals.iter().map(|n| format!("global {}", at(*n))));
    out.extend(c.imports.iter().map(|(r, n)| format!("import {r:?} {}", at(*n))));
    out.extend(c.exports.iter().map(|n| format!("export {}", at(*n))));
    out.extend(c.returns.iter().map(|(n, nm)| format!("return {} {}", at(*n), at(*nm))));
    out
}

#[cfg(test)]
mod tests {
    use super::{Capture, LanguageConfig, Match, list_match};
    use crate::facts::RefKind;
    use crate::lang::Grammar;

    #[test]
    fn a_skip_mark_takes_its_nodes_read_out_and_is_not_listed() {
        let config = LanguageConfig::get(Grammar::Python);
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&config.language).unwrap();
        let tree = parser.parse("f(x)\n", None).unwrap();
        // module > expression_statement > call > (identifier `f`, argument_list > identifier `x`)
        let call = tree.root_node().named_child(0).unwrap().named_child(0).unwrap();
        let (f, x) =
            (call.child_by_field_name("function").unwrap(), call.child_by_field_name("arguments").unwrap().named_child(0).unwrap());
        let read = Capture::Reference(RefKind::Read);
        let roles = |found: &[Match]| -> Vec<(u32, Capture, usize)> { found.iter().map(|m| (m.0.0, m.1, m.2.id())).collect() };

        // The visit of `x`: its read and an argument reference stay.
        let mut found: Vec<Match> = Vec::new();
        let mut read_at = None;
        list_match(&mut found, &mut read_at, ((1, 3, 13), read, x, Some(x)));
        list_match(&mut found, &mut read_at, ((1, 1, 7), Capture::Reference(RefKind::Argument), x, Some(x)));
        // The visit of `f`: its read, the call, then the callee's skip mark.
        let mut read_at = None;
        list_match(&mut found, &mut read_at, ((2, 3, 13), read, f, Some(f)));
        list_match(&mut found, &mut read_at, ((2, 2, 6), Capture::Reference(RefKind::Call), call, Some(f)));
        list_match(&mut found, &mut read_at, ((2, 3, 16), Capture::SkipRead, f, None));
        // A second mark of the node finds no read left, and is not listed either.
        list_match(&mut found, &mut read_at, ((2, 3, 19), Capture::SkipRead, f, None));
        assert_eq!(
            roles(&found),
            vec![(1, read, x.id()), (1, Capture::Reference(RefKind::Argument), x.id()), (2, Capture::Reference(RefKind::Call), call.id())]
        );
        assert!(found.is_sorted_by_key(|m| m.0.0), "the matches stay in the walk's order of points");
    }
}
