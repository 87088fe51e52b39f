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
    /// A listing of the visible nodes under `root`; null without memory.
    fn ckg_preorder_new(root: ffi::TSNode, skip_anonymous_leaves: bool) -> *mut State;
    /// Lists the next nodes into `out` (room for `cap`); returns how many (0 at the end), or
    /// `usize::MAX` when the walk's stack could not be allocated.
    fn ckg_preorder_next(state: *mut State, out: *mut Raw, cap: usize) -> usize;
    fn ckg_preorder_delete(state: *mut State);
}

/// Nodes listed per call: 8 KiB, which stays in the first-level cache while it is read.
const CHUNK: usize = 256;

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
    _tree: PhantomData<Node<'t>>,
}

impl<'t> Preorder<'t> {
    /// The nodes under `root`; without the anonymous nodes that have no children when
    /// `skip_anonymous_leaves` (punctuation and keywords, a third of django's nodes).
    pub(super) fn new(root: Node<'t>, skip_anonymous_leaves: bool) -> Preorder<'t> {
        let raw = root.into_raw();
        // SAFETY: `root` is a node of a tree that outlives the listing (`'t`).
        let state = unsafe { ckg_preorder_new(raw, skip_anonymous_leaves) };
        assert!(!state.is_null(), "out of memory listing the nodes of a tree");
        Preorder { state, tree: raw.tree, chunk: Vec::with_capacity(CHUNK), next: 0, _tree: PhantomData }
    }
}

impl<'t> Iterator for Preorder<'t> {
    type Item = Listed<'t>;

    fn next(&mut self) -> Option<Listed<'t>> {
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
        let node = ffi::TSNode { context: [raw.start_byte, raw.row, raw.column, raw.alias.into()], id: raw.id, tree: self.tree };
        Some(Listed {
            // SAFETY: a node of the tree that `'t` borrows, as tree-sitter makes them.
            node: unsafe { Node::from_raw(node) },
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

    use super::Preorder;
    use crate::lang::{Grammar, LanguageConfig};

    /// What a `TreeCursor` walk gives of each node: its id, position, depth, kind, field,
    /// whether it is named and has children.
    type Seen = ((usize, tree_sitter::Point, usize), usize, u16, u16, bool, bool);

    fn by_cursor(root: Node, skip_anonymous_leaves: bool) -> Vec<Seen> {
        let mut out = Vec::new();
        let mut cursor = root.walk();
        let mut depth = 0;
        'walk: loop {
            let node = cursor.node();
            let field = cursor.field_id().map_or(0, |f| f.get());
            let (named, has_children) = (node.is_named(), node.child_count() > 0);
            if !(skip_anonymous_leaves && !named && !has_children) {
                out.push(((node.id(), node.start_position(), node.end_byte()), depth, node.kind_id(), field, named, has_children));
            }
            if cursor.goto_first_child() {
                depth += 1;
                continue;
            }
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    break 'walk;
                }
                depth -= 1;
            }
        }
        out
    }

    fn by_listing(root: Node, skip_anonymous_leaves: bool) -> Vec<Seen> {
        Preorder::new(root, skip_anonymous_leaves)
            .map(|l| ((l.node.id(), l.node.start_position(), l.node.end_byte()), l.depth, l.kind, l.field, l.named, l.has_children))
            .collect()
    }

    /// Every fixture of both grammar families (several listed in more than one chunk), and
    /// broken sources, with anonymous leaves and without.
    #[test]
    fn the_listing_is_what_a_tree_cursor_walks() {
        let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf();
        let mut files = Vec::new();
        for dir in ["grammars", "tests/fixtures"] {
            for entry in ignore::WalkBuilder::new(repo.join(dir)).standard_filters(false).build().flatten() {
                let grammar = match entry.path().extension().and_then(|e| e.to_str()) {
                    Some("py" | "pyi") => Grammar::Python,
                    Some("ts" | "js" | "mjs" | "cjs") => Grammar::TypeScript,
                    Some("tsx" | "jsx") => Grammar::Tsx,
                    _ => continue,
                };
                files.push((grammar, std::fs::read_to_string(entry.path()).unwrap_or_default()));
            }
        }
        assert!(files.len() > 500, "fixtures found: {}", files.len());
        files.push((Grammar::Python, "def f(:\n    self.x = g(\nclass C(B\n  @d(x\n".into()));
        files.push((Grammar::TypeScript, "function f(a: { b: number = 1 }) { return <T>(x) => x.y?.[z] ?? `${w}`; ".into()));
        files.push((Grammar::Tsx, "const a = <A b={c} {...d}>text<B/></A>; enum E { X = 1, }".into()));
        files.push((Grammar::Python, String::new()));
        let mut parser = Parser::new();
        let mut longest = 0;
        for (grammar, src) in &files {
            parser.set_language(&LanguageConfig::get(*grammar).language).unwrap();
            let tree = parser.parse(src, None).unwrap();
            for skip in [false, true] {
                let expected = by_cursor(tree.root_node(), skip);
                longest = longest.max(expected.len());
                assert_eq!(by_listing(tree.root_node(), skip), expected, "{grammar:?} (anonymous leaves skipped: {skip}): {src}");
            }
        }
        assert!(longest > 2 * super::CHUNK, "a fixture listed in three chunks or more: {longest} nodes at most");
    }
}
