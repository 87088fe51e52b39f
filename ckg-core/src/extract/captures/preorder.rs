//! A tree's visible nodes in preorder ([`Preorder`]), each with its depth, kind and field:
//! what the capture walks read of each node, listed a chunk at a time by one pass in C over
//! tree-sitter's subtrees (`preorder.c`) instead of a `TreeCursor` stepping node by node (on
//! pytest ~1,000 instructions per node, a third of the extraction's).

use std::marker::PhantomData;

use tree_sitter::{Node, ffi};

/// One listed node, as `preorder.c` writes it (`CkgListed`).
#[repr(C)]
#[derive(Clone, Copy)]
struct Raw {
    id: *const std::ffi::c_void,
    start_byte: u32,
    row: u32,
    column: u32,
    depth: u32,
    alias: u16,
    kind: u16,
    field: u16,
    named: u8,
    has_children: u8,
}

/// `CkgPreorder`: a listing under way.
#[repr(C)]
struct State {
    _private: [u8; 0],
}

unsafe extern "C" {
    /// A listing of the visible nodes under `root`, with the anonymous leaves `keep` marks
    /// (a table of `keep_len` kinds); null without memory.
    fn ckg_preorder_new(root: ffi::TSNode, keep: *const u8, keep_len: usize) -> *mut State;
    /// Lists the next nodes into `out` (room for `cap`); returns how many (0 at the end), or
    /// `usize::MAX` when the walk's stack could not be allocated.
    fn ckg_preorder_next(state: *mut State, out: *mut Raw, cap: usize) -> usize;
    fn ckg_preorder_delete(state: *mut State);
    /// Lists the named children of `node` into `out` (room for `cap`); returns how many there
    /// are, or `usize::MAX` without memory.
    fn ckg_named_children(node: ffi::TSNode, out: *mut Raw, cap: usize) -> usize;
    /// Lists the children of `node` (named and anonymous, with kind and field) into `out`
    /// (room for `cap`); returns how many there are, or `usize::MAX` without memory.
    fn ckg_children(node: ffi::TSNode, out: *mut Raw, cap: usize) -> usize;
}

impl Raw {
    /// The listed node, of the tree `tree`.
    ///
    /// # Safety
    /// `tree` is the tree the entry was listed from, and outlives `'t`.
    unsafe fn node<'t>(&self, tree: *const ffi::TSTree) -> Node<'t> {
        let node = ffi::TSNode { context: [self.start_byte, self.row, self.column, self.alias.into()], id: self.id, tree };
        // SAFETY: a node of `tree`, with the fields tree-sitter's `ts_node_new` gives it.
        unsafe { Node::from_raw(node) }
    }
}

/// Children listed without going to the heap.
const INLINE_CHILDREN: usize = 16;

/// The named children of `node`, in order: `Node::named_children`, without a `TreeCursor`
/// (whose steps cost ~600 instructions each).
pub(in crate::extract) fn named_children(node: Node<'_>) -> smallvec::SmallVec<[Node<'_>; INLINE_CHILDREN]> {
    let tree = node.into_raw().tree;
    listed_children(node, ckg_named_children, |raw| {
        // SAFETY: listed from `node`'s tree, which outlives the borrow.
        unsafe { raw.node(tree) }
    })
}

/// A child as [`children`] gives it: the node, its field (0 for none) and whether it is named.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(in crate::extract) struct Child<'t> {
    pub(in crate::extract) node: Node<'t>,
    pub(in crate::extract) field: u16,
    pub(in crate::extract) named: bool,
}

/// The children of `node`, named and anonymous, in order, with their fields: what a
/// `TreeCursor`'s `goto_first_child` and `goto_next_sibling` give (with `field_id`), without
/// the cursor's cost per step.
pub(in crate::extract) fn children(node: Node<'_>) -> smallvec::SmallVec<[Child<'_>; INLINE_CHILDREN]> {
    let tree = node.into_raw().tree;
    listed_children(node, ckg_children, |raw| Child {
        // SAFETY: listed from `node`'s tree, which outlives the borrow.
        node: unsafe { raw.node(tree) },
        field: raw.field,
        named: raw.named != 0,
    })
}

/// What `list` (a listing of a node's children in `preorder.c`) writes of `node`, each entry
/// made into a `T`: in a buffer on the stack, or listed again into one on the heap when there
/// are more.
fn listed_children<T>(
    node: Node<'_>,
    list: unsafe extern "C" fn(ffi::TSNode, *mut Raw, usize) -> usize,
    make: impl Fn(&Raw) -> T,
) -> smallvec::SmallVec<[T; INLINE_CHILDREN]> {
    let raw_node = node.into_raw();
    let mut buffer = [std::mem::MaybeUninit::<Raw>::uninit(); INLINE_CHILDREN];
    // SAFETY: `buffer` has room for `INLINE_CHILDREN` entries; `node` is a node of a live tree.
    let n = unsafe { list(raw_node, buffer.as_mut_ptr().cast(), INLINE_CHILDREN) };
    assert!(n != usize::MAX, "out of memory listing the children of a node");
    if n <= INLINE_CHILDREN {
        // SAFETY: the first `n` entries were written.
        return buffer[..n].iter().map(|raw| make(unsafe { raw.assume_init_ref() })).collect();
    }
    let mut heap: Vec<Raw> = Vec::with_capacity(n);
    // SAFETY: `heap` has room for `n` entries, all the children.
    let written = unsafe { list(raw_node, heap.as_mut_ptr(), n) };
    assert!(written == n, "the children of a node listed twice differ ({n}, then {written})");
    // SAFETY: the first `n` entries were written.
    unsafe { heap.set_len(n) };
    heap.iter().map(make).collect()
}

/// Nodes listed per call: 8 KiB, which stays in the first-level cache while it is read.
const CHUNK: usize = 256;

/// Which anonymous nodes without children (punctuation, most keywords: a third of the nodes)
/// a listing gives is a table by kind id, of these marks (`CKG_KEEP_*` in `preorder.c`); kinds
/// past its end have none. An anonymous leaf of a kind marked `KEEP_LEAF` is listed.
pub(super) const KEEP_LEAF: u8 = 1;
/// The anonymous leaves under a node of a kind marked `KEEP_CHILDREN` are listed.
pub(super) const KEEP_CHILDREN: u8 = 2;

/// A listed node: what a `TreeCursor` gives of it.
#[derive(Clone, Copy)]
pub(super) struct Listed<'t> {
    pub(super) node: Node<'t>,
    /// The number of its ancestors.
    pub(super) depth: usize,
    /// `Node::kind_id`.
    pub(super) kind: u16,
    /// `TreeCursor::field_id` at the node (0 for none).
    pub(super) field: u16,
    /// `Node::is_named`.
    pub(super) named: bool,
    /// `Node::child_count() > 0`.
    pub(super) has_children: bool,
}

/// The visible nodes under a root (itself first), in the order, and with the ids, positions,
/// kinds and fields, a `TreeCursor` walk gives them.
pub(super) struct Preorder<'t> {
    state: *mut State,
    tree: *const ffi::TSTree,
    chunk: Vec<Raw>,
    next: usize,
    /// The depth of a node whose descendants are passed over ([`Preorder::skip_descendants`]).
    skip_below: usize,
    _tree: PhantomData<Node<'t>>,
}

impl<'t> Preorder<'t> {
    /// The nodes under `root`, with the anonymous leaves the table `keep` marks ([`KEEP_LEAF`]).
    pub(super) fn new(root: Node<'t>, keep: &'t [u8]) -> Preorder<'t> {
        let raw = root.into_raw();
        // SAFETY: `root` is a node of a tree, and `keep` a table, that outlive the listing
        // (`'t`), which reads the table as it lists.
        let state = unsafe { ckg_preorder_new(raw, keep.as_ptr(), keep.len()) };
        assert!(!state.is_null(), "out of memory listing the nodes of a tree");
        Preorder { state, tree: raw.tree, chunk: Vec::with_capacity(CHUNK), next: 0, skip_below: usize::MAX, _tree: PhantomData }
    }

    /// Passes over the descendants of the node last given (at `depth`).
    pub(super) fn skip_descendants(&mut self, depth: usize) {
        self.skip_below = depth;
    }

    /// The next entry listed, descendants passed over or not.
    fn next_raw(&mut self) -> Option<Raw> {
        if self.next == self.chunk.len() {
            // SAFETY: `chunk` has room for `CHUNK` entries; `state` is live until dropped.
            let n = unsafe { ckg_preorder_next(self.state, self.chunk.as_mut_ptr(), CHUNK) };
            assert!(n != usize::MAX, "out of memory listing the nodes of a tree");
            // SAFETY: the first `n` (at most `CHUNK`) entries were written.
            unsafe { self.chunk.set_len(n) };
            self.next = 0;
        }
        let raw = *self.chunk.get(self.next)?;
        self.next += 1;
        Some(raw)
    }
}

impl<'t> Iterator for Preorder<'t> {
    type Item = Listed<'t>;

    fn next(&mut self) -> Option<Listed<'t>> {
        let raw = loop {
            let raw = self.next_raw()?;
            if raw.depth as usize <= self.skip_below {
                self.skip_below = usize::MAX;
                break raw;
            }
        };
        Some(Listed {
            // SAFETY: listed from `self.tree`, which `'t` borrows.
            node: unsafe { raw.node(self.tree) },
            depth: raw.depth as usize,
            kind: raw.kind,
            field: raw.field,
            named: raw.named != 0,
            has_children: raw.has_children != 0,
        })
    }
}

impl Drop for Preorder<'_> {
    fn drop(&mut self) {
        // SAFETY: made by `ckg_preorder_new`, deleted once.
        unsafe { ckg_preorder_delete(self.state) };
    }
}

#[cfg(test)]
mod tests {
    use tree_sitter::{Node, Parser};

    use super::{KEEP_CHILDREN, KEEP_LEAF, Preorder, named_children};
    use crate::lang::{Grammar, LanguageConfig};

    /// What a `TreeCursor` walk gives of each node: its id, position, depth, kind, field,
    /// whether it is named and has children.
    type Seen = ((usize, tree_sitter::Point, usize), usize, u16, u16, bool, bool);

    fn by_cursor(root: Node, keep: &[u8]) -> Vec<Seen> {
        let mut out = Vec::new();
        let mut cursor = root.walk();
        // The kinds of the nodes above the cursor's, the innermost last.
        let mut above: Vec<u16> = Vec::new();
        'walk: loop {
            let node = cursor.node();
            let field = cursor.field_id().map_or(0, |f| f.get());
            let (named, has_children) = (node.is_named(), node.child_count() > 0);
            let marks = |kind: u16| keep.get(kind as usize).copied().unwrap_or(0);
            let listed = named
                || has_children
                || marks(node.kind_id()) & KEEP_LEAF != 0
                || above.last().is_some_and(|&parent| marks(parent) & KEEP_CHILDREN != 0);
            if listed {
                out.push(((node.id(), node.start_position(), node.end_byte()), above.len(), node.kind_id(), field, named, has_children));
            }
            if cursor.goto_first_child() {
                above.push(node.kind_id());
                continue;
            }
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    break 'walk;
                }
                above.pop();
            }
        }
        out
    }

    /// Every node's named children, as `Node::named_children` gives them, its children with
    /// their fields, as a `TreeCursor` gives them, and its child by each of the grammar's
    /// fields, as `Node::child_by_field_id` gives it.
    fn children_match(root: Node, every_leaf: &[u8]) -> usize {
        let mut cursor = root.walk();
        let mut most = 0;
        for n in Preorder::new(root, every_leaf) {
            for field in 1..=root.language().field_count() as u16 {
                let (got, expected) = (crate::field::child_by_field_id(n.node, field), n.node.child_by_field_id(field));
                assert_eq!(got, expected, "the child of {:?} by field {field}", n.node);
                if let (Some(a), Some(b)) = (got, expected) {
                    assert_eq!((a.start_position(), a.end_byte(), a.kind_id()), (b.start_position(), b.end_byte(), b.kind_id()));
                }
            }
            let mut expected = Vec::new();
            cursor.reset(n.node);
            if cursor.goto_first_child() {
                loop {
                    let c = cursor.node();
                    expected.push(super::Child { node: c, field: cursor.field_id().map_or(0, |f| f.get()), named: c.is_named() });
                    if !cursor.goto_next_sibling() {
                        break;
                    }
                }
            }
            let got: Vec<super::Child> = super::children(n.node).into_iter().collect();
            assert_eq!(got, expected, "the children of {:?}", n.node);
            for (a, b) in got.iter().zip(&expected) {
                assert_eq!(
                    (a.node.start_position(), a.node.end_byte(), a.node.kind_id()),
                    (b.node.start_position(), b.node.end_byte(), b.node.kind_id())
                );
            }
            let expected: Vec<Node> = n.node.named_children(&mut cursor).collect();
            let got: Vec<Node> = named_children(n.node).into_iter().collect();
            assert_eq!(got, expected, "the named children of {:?}", n.node);
            most = most.max(got.len());
            for (a, b) in got.iter().zip(&expected) {
                assert_eq!((a.start_position(), a.end_byte(), a.kind_id()), (b.start_position(), b.end_byte(), b.kind_id()));
            }
        }
        most
    }

    fn by_listing(root: Node, keep: &[u8]) -> Vec<Seen> {
        Preorder::new(root, keep)
            .map(|l| ((l.node.id(), l.node.start_position(), l.node.end_byte()), l.depth, l.kind, l.field, l.named, l.has_children))
            .collect()
    }

    /// Every fixture of both grammar families (several listed in more than one chunk), and
    /// broken sources, with every anonymous leaf, none, those the walks are given, and those
    /// of a table that marks kinds at random (shorter than the grammar's kinds); and every
    /// node's named children (some nodes have more than fit inline) and its child by each field.
    #[test]
    fn the_listing_is_what_a_tree_cursor_walks() {
        let mut files: Vec<(Grammar, String)> =
            crate::lang::fixture_sources().into_iter().map(|(g, src)| (g, String::from_utf8(src).unwrap_or_default())).collect();
        files.push((Grammar::Python, "def f(:\n    self.x = g(\nclass C(B\n  @d(x\n".into()));
        files.push((Grammar::TypeScript, "function f(a: { b: number = 1 }) { return <T>(x) => x.y?.[z] ?? `${w}`; ".into()));
        files.push((Grammar::Tsx, "const a = <A b={c} {...d}>text<B/></A>; enum E { X = 1, }".into()));
        files.push((Grammar::Python, String::new()));
        // Thousands of statements in one block: deep repetitions of hidden nodes under one node.
        files.push((Grammar::Python, "x = f(1)\n".repeat(5000)));
        files.push((Grammar::TypeScript, "a(b, c);\n".repeat(5000)));
        let mut parser = Parser::new();
        let (mut longest, mut most_children) = (0, 0);
        for (grammar, src) in &files {
            parser.set_language(&LanguageConfig::get(*grammar).language).unwrap();
            let tree = parser.parse(src, None).unwrap();
            let walked = match grammar {
                Grammar::Python => &[][..],
                Grammar::TypeScript => super::super::typescript::walked_leaves(false),
                Grammar::Tsx => super::super::typescript::walked_leaves(true),
            };
            let kinds = tree.language().node_kind_count();
            let every_leaf = vec![KEEP_LEAF; kinds];
            let random: Vec<u8> = (0..kinds - kinds / 8).map(|k| ((k * 2_654_435_761) >> 7) as u8 & 3).collect();
            for (which, keep) in [("every leaf", &every_leaf[..]), ("none", &[]), ("the walk's", walked), ("random marks", &random)] {
                let expected = by_cursor(tree.root_node(), keep);
                longest = longest.max(expected.len());
                assert_eq!(by_listing(tree.root_node(), keep), expected, "{grammar:?} (anonymous leaves: {which}): {src}");
            }
            // The first table leaves nothing out: the listing was compared with a whole walk.
            assert_eq!(by_cursor(tree.root_node(), &every_leaf).len(), tree.root_node().descendant_count(), "{grammar:?}: {src}");
            most_children = most_children.max(children_match(tree.root_node(), &every_leaf));
        }
        assert!(longest > 2 * super::CHUNK, "a fixture listed in three chunks or more: {longest} nodes at most");
        assert!(most_children > super::INLINE_CHILDREN, "a node with more named children than fit inline: {most_children} at most");
    }
}
