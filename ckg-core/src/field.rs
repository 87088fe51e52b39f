//! A node's child by field name, without tree-sitter's search of the grammar's field names;
//! and a node's kind without measuring and checking its name each time.
//!
//! `Node::child_by_field_name` compares the name with each of the grammar's field names in
//! turn (`strncmp`; TypeScript has 40, Python 32) before it looks for the child: ~4 % of a full
//! index's CPU on django. [`Field::field`] looks each (grammar, name) pair up once per thread
//! and keeps its id in a small table.
//!
//! `Node::kind` makes a `&str` of the grammar's C string each time it is called: a `strlen`
//! and a UTF-8 check (6–7 % of extraction's instructions on pytest and ra-core).
//! [`Kind::kind_name`] reads the same name from a table of each grammar's kind names, made
//! once, after one call that reads the node's grammar and kind together.

use std::cell::Cell;

use tree_sitter::Node;

/// Slots of the per-thread table (a power of two): more than the names the extractors use,
/// so that pairs rarely evict each other.
const SLOTS: usize = 512;

/// One slot: the grammar, the address and length of the name, and the field's id (0: no
/// such field).
type Slot = Cell<(usize, usize, usize, u16)>;

thread_local! {
    static IDS: [Slot; SLOTS] = const { [const { Cell::new((0, 0, 0, 0)) }; SLOTS] };
}

pub(crate) trait Field<'t> {
    /// The first child with the field `name`, as `child_by_field_name` answers.
    fn field(&self, name: &'static str) -> Option<Node<'t>>;
}

impl<'t> Field<'t> for Node<'t> {
    #[inline]
    fn field(&self, name: &'static str) -> Option<Node<'t>> {
        match field_id(*self, name) {
            0 => None,
            id => child_by_field_id(*self, id),
        }
    }
}

unsafe extern "C" {
    /// `ts_node_child_by_field_id`, in `preorder.c`.
    fn ckg_child_by_field_id(node: tree_sitter::ffi::TSNode, field: u16) -> tree_sitter::ffi::TSNode;
}

/// `Node::child_by_field_id`, by the same steps in `preorder.c` (tree-sitter's own cost ~370
/// instructions a lookup: it makes a node of each child it passes, through exported functions
/// not inlined).
pub(crate) fn child_by_field_id(node: Node<'_>, field: u16) -> Option<Node<'_>> {
    // SAFETY: a node borrowed from a live tree; the call reads its subtrees.
    let found = unsafe { ckg_child_by_field_id(node.into_raw(), field) };
    // SAFETY: null, or a node of the same tree, made as tree-sitter makes nodes.
    (!found.id.is_null()).then(|| unsafe { Node::from_raw(found) })
}

/// The address of the grammar of `node`'s tree: which grammar's table to read (`Node::language`
/// would copy and later drop a `Language`).
fn grammar_of(node: Node) -> usize {
    // SAFETY: a node borrowed from a live tree; the call reads the tree's language pointer.
    unsafe { tree_sitter::ffi::ts_node_language(node.into_raw()) as usize }
}

/// The id of the field `name` in the grammar of `node`'s tree. A name is known by its address
/// and length, both compared (a `'static` string is never freed for another to take its
/// place; two names can share an address, one a prefix of the other).
fn field_id(node: Node, name: &'static str) -> u16 {
    let grammar = grammar_of(node);
    let (at, len) = (name.as_ptr() as usize, name.len());
    let hash = (at ^ (at >> 9) ^ len.rotate_left(17) ^ (grammar >> 4)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let slot = hash >> (usize::BITS - SLOTS.trailing_zeros());
    IDS.with(|ids| {
        let (g, a, l, id) = ids[slot].get();
        if (g, a, l) == (grammar, at, len) {
            return id;
        }
        let id = node.language().field_id_for_name(name).map_or(0, |id| id.get());
        ids[slot].set((grammar, at, len, id));
        id
    })
}

pub(crate) trait Kind {
    /// The node's kind, as `Node::kind` answers.
    fn kind_name(&self) -> &'static str;
}

/// A node's grammar and kind, as `preorder.c` reads them (`CkgKind`).
#[repr(C)]
struct RawKind {
    language: *const tree_sitter::ffi::TSLanguage,
    kind: u16,
}

unsafe extern "C" {
    /// `ts_node_language` and `ts_node_symbol` of a node, in one call.
    fn ckg_node_kind(node: tree_sitter::ffi::TSNode) -> RawKind;
}

/// A grammar (by address) and its kind names by kind id.
type KindNames = (usize, Box<[Option<&'static str>]>);

/// Each grammar's kind names, in the first free slot when first asked for: more slots than the
/// process has grammars (Python, TypeScript, TSX, each with its own tables and its expanded
/// ones: `Grammar::expanded_language`).
static KIND_NAMES: [std::sync::OnceLock<KindNames>; 8] = [const { std::sync::OnceLock::new() }; 8];

impl Kind for Node<'_> {
    #[inline]
    fn kind_name(&self) -> &'static str {
        kind_name(*self)
    }
}

/// Not inlined: called from a few hundred places, inlined copies of it cost more in
/// instruction-cache misses (simulated) than the calls. A function of the node by value: the
/// trait's method itself not inlined takes it by reference, through memory at every call
/// (ra-core's extraction: 1.6 % more instructions).
#[inline(never)]
fn kind_name(node: Node) -> &'static str {
    // SAFETY: a node borrowed from a live tree; the call reads its tree's language and its
    // subtree.
    let RawKind { language, kind } = unsafe { ckg_node_kind(node.into_raw()) };
    let grammar = language as usize;
    // The grammar asked about last on this thread (a file's nodes are all of one grammar): one
    // compare, where finding its slot read up to every slot before it (ra-core's extraction
    // asks 1.3M times, ~44 instructions a time for the search).
    let names = match LAST_KIND_NAMES.get() {
        Some((g, names)) if g == grammar => names,
        _ => match kind_names_of(grammar, node) {
            Some(names) => {
                LAST_KIND_NAMES.set(Some((grammar, names)));
                names
            }
            None => return node.kind(),
        },
    };
    // Kinds past the table (`ERROR`'s id is the largest) are asked of tree-sitter.
    names.get(usize::from(kind)).copied().flatten().unwrap_or_else(|| node.kind())
}

/// A grammar's kind names by kind id (`None`: an id the grammar does not name).
type Names = &'static [Option<&'static str>];

thread_local! {
    /// The grammar (by address) [`kind_name`] was last asked about on this thread, and its
    /// kind names.
    static LAST_KIND_NAMES: std::cell::Cell<Option<(usize, Names)>> = const { std::cell::Cell::new(None) };
}

/// The kind names of `grammar` (the language of `node`), from its slot of [`KIND_NAMES`] (the
/// first free one when first asked for); `None` when every slot holds another grammar.
fn kind_names_of(grammar: usize, node: Node) -> Option<Names> {
    for slot in &KIND_NAMES {
        let (g, names) = slot.get_or_init(|| {
            let language = node.language();
            (grammar, (0..language.node_kind_count() as u16).map(|id| language.node_kind_for_id(id)).collect())
        });
        if *g == grammar {
            return Some(names);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{Field, Kind};
    use crate::lang::Grammar;

    /// Every node's every field answers as `child_by_field_name` does, across grammars sharing
    /// the table, and for names a grammar does not have; every node's kind name is `kind`'s
    /// (aliased kinds, `ERROR` and MISSING nodes among them).
    #[test]
    fn fields_answer_as_tree_sitter_does() {
        let sources = [
            (Grammar::Python, "def f(a, b=1):\n    return g(a).h[b]\nclass C(B):\n    x: int = f(1)\n"),
            (Grammar::TypeScript, "export function f(a: number): string { return g(a).h[0]; }\nclass C extends B { x = 1 }\n"),
            (Grammar::Tsx, "const A = () => <div id={f(1)}>{x.y}</div>;\n"),
            (Grammar::TypeScript, "import x from 'y'; function f(a) { return a.b(c); }\n"),
            (Grammar::Python, "def f(:\n    x = (1,\nclass\n"),
            (Grammar::TypeScript, "function broken( { if (x { return }\nconst = 3;\nlet y = f(\n"),
        ];
        let names: [&'static str; 16] = [
            "name",
            "body",
            "parameters",
            "function",
            "arguments",
            "object",
            "property",
            "attribute",
            "value",
            "left",
            "right",
            "return_type",
            "superclasses",
            "type",
            "open_tag",
            "no_such_field",
        ];
        // Names that share an address with another name or sit next to it (a key made of the
        // address and length alone would mix `type` with the five bytes after its first).
        static BUFFER: &str = "type_aatype_aa";
        let at = if (BUFFER.as_ptr() as usize).is_multiple_of(2) { 0 } else { 7 };
        let neighbours: [&'static str; 3] = [&BUFFER[at..at + 4], &BUFFER[at + 1..at + 6], &BUFFER[at..at + 6]];
        assert_eq!(neighbours[0], "type");
        for (grammar, src) in sources {
            let mut parser = tree_sitter::Parser::new();
            parser.set_language(&grammar.language()).unwrap();
            let tree = parser.parse(src, None).unwrap();
            let mut stack = vec![tree.root_node()];
            while let Some(node) = stack.pop() {
                for name in names.iter().chain(&neighbours).chain(&neighbours) {
                    assert_eq!(node.field(name), node.child_by_field_name(name), "{grammar:?} {} .{name}", node.kind());
                }
                assert_eq!(node.kind_name(), node.kind(), "{grammar:?} at {:?}", node.start_position());
                let mut cursor = node.walk();
                stack.extend(node.children(&mut cursor));
            }
        }
    }
}
