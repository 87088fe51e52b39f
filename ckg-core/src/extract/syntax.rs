//! Reading names off the tree: a node's text and position, the written path of an expression
//! (`a.b().c`), whether a callee is computed, `getattr` with a literal name, and short texts
//! for dynamic sites.

use tree_sitter::Node;

use super::{MAX_SCOPE_WALK, MAX_TEXT, python};
use crate::field::{Field, Kind};

pub(crate) fn text<'a>(node: Node, src: &'a [u8]) -> std::borrow::Cow<'a, str> {
    let range = node.byte_range();
    if let Some(text) = checked_slice(src, range.start, range.end) {
        return std::borrow::Cow::Borrowed(text);
    }
    let bytes = &src[range];
    // `from_utf8` checks ASCII a word at a time; `from_utf8_lossy` a chunk at a time.
    match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

thread_local! {
    /// The address and length of the source this thread is extracting, while it is known to
    /// be UTF-8 (see [`with_checked_source`]); `(0, 0)` otherwise.
    static VALID_SOURCE: std::cell::Cell<(usize, usize)> = const { std::cell::Cell::new((0, 0)) };
}

/// Runs `f` with whether `src` is UTF-8, checked once: while `f` runs, a node's text that is
/// a slice of `src` with character boundaries at both ends is read without a check of its
/// own (callgrind: pytest's full index 0.2 % fewer instructions, ra-core's 0.3 %). The mark
/// is this function's to set and take back (also when `f` panics), so no buffer outlives it.
pub(super) fn with_checked_source<R>(src: &[u8], f: impl FnOnce(bool) -> R) -> R {
    /// Puts back the mark there was before (an extraction within another's).
    struct Restore((usize, usize));
    impl Drop for Restore {
        fn drop(&mut self) {
            VALID_SOURCE.with(|v| v.set(self.0));
        }
    }
    let valid = std::str::from_utf8(src).is_ok();
    let mark = if valid { (src.as_ptr() as usize, src.len()) } else { (0, 0) };
    let _restore = Restore(VALID_SOURCE.with(|v| v.replace(mark)));
    f(valid)
}

/// `src[start..end]` as text, when `src` is the source [`with_checked_source`] found to be
/// UTF-8 and both ends are character boundaries; `None` otherwise (the caller checks the
/// bytes itself).
#[inline]
fn checked_slice(src: &[u8], start: usize, end: usize) -> Option<&str> {
    let marked = VALID_SOURCE.with(|v| v.get()) == (src.as_ptr() as usize, src.len());
    // A byte that is not a continuation byte (`0b10xx_xxxx`) starts a character.
    let boundary = |i: usize| i == src.len() || src.get(i).is_some_and(|&b| (b as i8) >= -0x40);
    // (`start > end` is refused by `get` below.)
    if !(marked && boundary(start) && boundary(end)) {
        return None;
    }
    // SAFETY: `src` is the marked source (same address and length): `with_checked_source`
    // found it to be UTF-8 and holds its borrow, so it is unchanged, until the mark is taken
    // back; a slice of UTF-8 between two character boundaries is UTF-8.
    Some(unsafe { std::str::from_utf8_unchecked(src.get(start..end)?) })
}

pub(super) fn position(node: Node) -> (u32, u32) {
    let p = node.start_position();
    (p.row as u32 + 1, p.column as u32 + 1)
}

/// The written path of an expression (`a.b().c` -> `a.b().c`), or `None` when it is not a
/// chain of names (`obj[k]`, `(a || b)`). Iterative, so long chains are safe.
pub(crate) fn path_of<'t>(node: Node<'t>, src: &[u8]) -> Option<(String, Node<'t>)> {
    written_path(node, src, false)
}

/// [`path_of`], where a subscript with a key that is not a literal (`handlers[name]`) is the
/// segment `[*]`: any entry.
pub(crate) fn path_of_any_entry<'t>(node: Node<'t>, src: &[u8]) -> Option<(String, Node<'t>)> {
    written_path(node, src, true)
}

/// The most segments a written path keeps (`a.b().c` has three): of a longer chain, the last
/// ones after [`ELIDED`].
pub(crate) const MAX_PATH_SEGMENTS: usize = 64;

/// The first segment of a path whose chain was longer than [`MAX_PATH_SEGMENTS`].
pub(crate) const ELIDED: &str = "…";

fn written_path<'t>(node: Node<'t>, src: &[u8], any_entry: bool) -> Option<(String, Node<'t>)> {
    // From the last segment to the first, each with whether it is called; the text of a name
    // borrowed from the source (one allocation for the whole path). The first few segments
    // are kept on the stack: most paths have at most three, and growing a list for them was
    // ~1 % of extraction.
    let mut segments: smallvec::SmallVec<[(std::borrow::Cow<str>, bool); 8]> = smallvec::SmallVec::new();
    let mut cur = node;
    let mut pending_call = false;
    let mut last: Option<Node> = None;
    loop {
        let kind = cur.kind_name();
        // The segment, the node the path goes on with, and the node that names the segment.
        let (segment, next, named) = match kind {
            "identifier"
            | "property_identifier"
            | "type_identifier"
            | "private_property_identifier"
            | "shorthand_property_identifier"
            | "this"
            | "super"
            | "string_fragment"
            | "nested_type_identifier"
            | "nested_identifier"
            | "dotted_name" => (Some(text(cur, src)), None, cur),
            "member_expression" | "attribute" => {
                let name = cur.field(if kind == "attribute" { "attribute" } else { "property" });
                (name.map(|p| text(p, src)), cur.field("object"), name.unwrap_or(cur))
            }
            // `handlers["create"]`, `items[0]`: a literal key is a segment `[create]`.
            "subscript" => match cur.field("subscript").and_then(|k| python::literal_key(k, src)) {
                Some(key) => (Some(format!("[{key}]").into()), cur.field("value"), cur),
                None if any_entry => (Some(crate::facts::ANY_ENTRY.into()), cur.field("value"), cur),
                None => return None,
            },
            // TS/JS `handlers["create"]`, `steps[0]`.
            "subscript_expression" => {
                let index = cur.field("index")?;
                let key = match index.kind_name() {
                    "number" => text(index, src).into_owned(),
                    "string" => text(index, src).trim_matches(|c| c == '"' || c == '\'').to_string(),
                    _ => String::new(),
                };
                let key = if !key.is_empty() && key.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '-') {
                    key
                } else if any_entry {
                    "*".to_string()
                } else {
                    return None;
                };
                (Some(format!("[{key}]").into()), cur.field("object"), cur)
            }
            "call" | "call_expression" => match (kind == "call").then(|| is_member_call(cur, src)).flatten() {
                // `getattr(obj, "run")` is `obj.run`; `type(obj)` is `obj.__class__`.
                Some((obj, name)) => (Some(name.into()), Some(obj), cur),
                None => {
                    pending_call = true;
                    cur = cur.field("function")?;
                    continue;
                }
            },
            // `new Foo().run()`: the object is an instance, as `Foo()` is in Python.
            "new_expression" => {
                pending_call = true;
                cur = cur.field("constructor")?;
                continue;
            }
            "parenthesized_expression" | "non_null_expression" | "await_expression" | "await" => {
                cur = cur.named_child(0)?;
                continue;
            }
            // `(error as HttpError).body`: a member of the type it is asserted to be, looked up
            // from the type's name (as a key is: `HttpError.body`); not `as any`.
            "as_expression" => {
                let ty = cur.named_child(1).and_then(|t| super::typescript::annotation_path(t, src))?;
                (Some(ty.into()), None, cur)
            }
            // `(0, tpl_1.default)(…)` (compiled CommonJS calls an import so, without a `this`):
            // the last operand.
            "sequence_expression" => {
                cur = cur.named_child(cur.named_child_count().checked_sub(1)?)?;
                continue;
            }
            _ => return None,
        };
        let segment = segment?;
        if segment.is_empty() {
            return None;
        }
        last.get_or_insert(named);
        if segments.len() == MAX_PATH_SEGMENTS {
            // A chain of thousands of calls (generated code) would store each site's whole
            // prefix, quadratic in its length: the segments before the last ones are written
            // `…`, a receiver with no name.
            segments.push((ELIDED.into(), false));
            break;
        }
        segments.push((segment, std::mem::take(&mut pending_call)));
        match next {
            Some(n) => cur = n,
            None => break,
        }
    }
    let mut path = String::with_capacity(segments.iter().map(|(s, _)| s.len() + 3).sum());
    for (segment, called) in segments.iter().rev() {
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(segment);
        if *called {
            path.push_str("()");
        }
    }
    Some((path, last.unwrap_or(node)))
}

/// Whether a callee that is not a chain of names is computed: it goes through a subscript
/// with a non-literal key (`handlers[name]`) rather than only an unnamed receiver.
pub(super) fn is_computed(mut node: Node) -> bool {
    for _ in 0..MAX_SCOPE_WALK {
        let next = match node.kind_name() {
            "subscript" | "subscript_expression" => return true,
            "member_expression" | "attribute" => node.field("object"),
            "call" | "call_expression" => node.field("function"),
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

/// A Python call that reads a member: `getattr(obj, "name")` with a literal name is
/// (obj, name); `type(obj)`, with one argument, is (obj, `__class__`).
fn is_member_call<'t>(call: Node<'t>, src: &[u8]) -> Option<(Node<'t>, String)> {
    let f = call.field("function")?;
    if f.kind_name() != "identifier" {
        return None;
    }
    let args = call.field("arguments")?;
    match &*text(f, src) {
        "type" => {
            let obj = args.named_child(0).filter(|_| args.named_child_count() == 1)?;
            return matches!(obj.kind_name(), "identifier" | "attribute" | "call").then(|| (obj, "__class__".to_string()));
        }
        "getattr" => {}
        _ => return None,
    }
    let obj = args.named_child(0)?;
    let name = args.named_child(1).filter(|n| n.kind_name() == "string")?;
    let t = text(name, src);
    let t = t.trim_matches(|c| c == '"' || c == '\'');
    (!t.is_empty() && t.chars().all(|c| c.is_alphanumeric() || c == '_')).then(|| (obj, t.to_string()))
}

pub(super) fn short_text(node: Node, src: &[u8]) -> String {
    let t = text(node, src);
    let line = t.lines().next().unwrap_or("");
    let mut end = line.len().min(MAX_TEXT);
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    line[..end].to_string()
}

/// The parents of a file's nodes, each looked up once. tree-sitter's `Node::parent` walks down
/// from the root every time, through the child list of every node on the way (a file of two
/// thousand statements: two thousand siblings at the top), and a walk up from a binding asks
/// it at every level. Here a descent notes the parent of every node on its way, which the
/// rest of the walk up then finds; and it starts from the deepest node of the previous
/// descent that still contains the node asked for (extraction asks in source order, mostly
/// inside the statement it asked about last).
pub(super) struct Parents<'t> {
    root: Node<'t>,
    known: std::cell::RefCell<crate::resolve::Map<usize, Node<'t>>>,
    /// The previous descent: the root, then each node down to the one asked for.
    path: std::cell::RefCell<Vec<Node<'t>>>,
}

impl<'t> Parents<'t> {
    /// With room for the parents of `nodes` nodes.
    pub(super) fn with_capacity(root: Node<'t>, nodes: usize) -> Parents<'t> {
        let known = crate::resolve::Map::with_capacity_and_hasher(nodes, Default::default());
        Parents { root, known: std::cell::RefCell::new(known), path: std::cell::RefCell::new(vec![root]) }
    }

    /// Notes (child, parent) pairs known already (seen by the walk).
    pub(super) fn note(&self, pairs: &[(Node<'t>, Node<'t>)]) {
        let mut known = self.known.borrow_mut();
        for &(child, parent) in pairs {
            known.insert(child.id(), parent);
        }
    }

    /// `node.parent()`.
    pub(super) fn of(&self, node: Node<'t>) -> Option<Node<'t>> {
        if node.id() == self.root.id() {
            return None;
        }
        if let Some(&p) = self.known.borrow().get(&node.id()) {
            return Some(p);
        }
        let mut path = self.path.borrow_mut();
        let covers = |a: &Node| a.start_byte() <= node.start_byte() && node.end_byte() <= a.end_byte();
        while path.len() > 1 && !path.last().is_some_and(|last| last.id() != node.id() && covers(last)) {
            path.pop();
        }
        // A node of the same extent may be below `node` rather than above it: then the
        // descent from there finds nothing, and starts over from the root.
        loop {
            let from_root = path.len() == 1;
            let mut known = self.known.borrow_mut();
            while let Some(next) = path.last().and_then(|cur| cur.child_with_descendant(node)) {
                let cur = *path.last().expect("the path has the root");
                known.insert(next.id(), cur);
                path.push(next);
                if next.id() == node.id() {
                    return Some(cur);
                }
            }
            if from_root {
                break;
            }
            path.truncate(1);
        }
        path.truncate(1);
        // Not below this root (a node of another tree): tree-sitter's own answer.
        node.parent()
    }
}

#[cfg(test)]
mod tests {
    use super::Parents;
    use crate::lang::Lang;
    use tree_sitter::Node;

    /// Every node of a tree, in document order (a cursor walk).
    fn nodes(root: Node<'_>) -> Vec<Node<'_>> {
        let mut out = Vec::new();
        crate::lang::each_node(root, |cursor| out.push(cursor.node()));
        out
    }

    /// A node's text read without its own check (the source checked once) is the text read
    /// with it, for every node of sources with multi-byte characters in names, strings and
    /// comments, also in a file with syntax errors; a slice of the source whose ends are not
    /// character boundaries, or of another buffer, is not read unchecked; and the mark is
    /// gone once the run ends.
    #[test]
    fn text_of_a_checked_source_is_the_checked_text() {
        let sources = [
            (Lang::Python, "名前 = 'é'  # ünïcode\ndef ƒ(ā, *β):\n    return [ж for ж in β if ж != '€']\n"),
            (Lang::TypeScript, "const café = { 'ключ': 1 };\nfunction 𝑓(ñ: string) { return `✓ ${ñ}` }\n"),
            (Lang::Python, "def g(:\n    x = '日本\n"),
        ];
        for (lang, src) in sources {
            let bytes = src.as_bytes();
            let tree = crate::extract::Extractor::new().parse(lang, bytes).expect("parses");
            let all = nodes(tree.root_node());
            super::with_checked_source(bytes, |utf8| {
                assert!(utf8);
                for n in &all {
                    let lossy = String::from_utf8_lossy(&bytes[n.byte_range()]);
                    assert_eq!(super::text(*n, bytes), lossy, "{lang:?}: text of {} at {:?}", n.kind(), n.start_position());
                }
                let multi = src.char_indices().find(|(_, c)| c.len_utf8() > 1).map(|(i, _)| i).expect("a multi-byte character");
                assert_eq!(super::checked_slice(bytes, multi + 1, bytes.len()), None, "{lang:?}: a slice starting inside a character");
                assert_eq!(super::checked_slice(bytes, 0, multi + 1), None, "{lang:?}: a slice ending inside a character");
                assert_eq!(super::checked_slice(bytes, 0, multi), Some(&src[..multi]));
                let copy = bytes.to_vec();
                assert_eq!(super::checked_slice(&copy, 0, multi), None, "{lang:?}: another buffer is not the checked one");
            });
            assert_eq!(super::checked_slice(bytes, 0, bytes.len()), None, "{lang:?}: the mark outlived the run");
        }
        // A source that is not UTF-8 is not marked: its texts are read lossily.
        let bad = b"x = '\xff\xfe'\n";
        super::with_checked_source(bad, |utf8| {
            assert!(!utf8);
            assert_eq!(super::checked_slice(bad, 0, 1), None);
        });
    }

    /// `Parents::of` answers what `Node::parent` answers, for every node, asked in document
    /// order, in reverse and interleaved (its descent starts from the previous one's path),
    /// also in files with syntax errors and zero-width MISSING nodes.
    #[test]
    fn parents_agree_with_tree_sitter_in_any_order() {
        let sources = [
            (
                Lang::TypeScript,
                "const { a, b: [c, ...d] } = require('m');\nexport function f(x: number, { y = 1 }: P) {\n  return x ? g(() => y) : new C(x).m();\n}\nclass C { z = (v) => v; m() { this.z(1) } }\nnamespace N { export const k = 1 }\n",
            ),
            (Lang::TypeScript, "function broken( { if (x { return }\nconst = 3;\nlet y = f(\n"),
            (
                Lang::Python,
                "import os\nclass A(B):\n    @property\n    def x(self):\n        return [y for y in self.z if y]\n\ndef f(a, *b, **c):\n    with open(a) as h, g() as (i, j):\n        k = lambda m: m + 1\n    return k\n",
            ),
            (Lang::Python, "def f(:\n    x = (1,\nclass\n"),
        ];
        for (lang, src) in sources {
            let tree = crate::extract::Extractor::new().parse(lang, src.as_bytes()).expect("parses");
            let all = nodes(tree.root_node());
            let mut interleaved: Vec<Node> = Vec::new();
            let (front, back) = all.split_at(all.len() / 2);
            for (a, b) in front.iter().zip(back.iter().rev()) {
                interleaved.extend([*a, *b]);
            }
            let orders: [Vec<Node>; 3] = [all.clone(), all.iter().rev().copied().collect(), interleaved];
            for order in orders {
                let parents = Parents::with_capacity(tree.root_node(), 0);
                for n in order {
                    assert_eq!(parents.of(n), n.parent(), "{lang:?}: parent of {} at {:?}", n.kind(), n.start_position());
                }
            }
        }
    }

    /// The written path of a chain is the same whatever its length: short chains, and chains
    /// longer than the segments kept on the stack (calls, subscripts and `getattr` among them).
    #[test]
    fn written_paths_of_chains_of_any_length() {
        for n in [1usize, 2, 7, 8, 9, 20] {
            let names: Vec<String> = (0..n).map(|i| format!("s{i}")).collect();
            let mut py = names[0].clone();
            let mut expected = names[0].clone();
            for (i, name) in names.iter().enumerate().skip(1) {
                match i % 3 {
                    0 => {
                        py = format!("getattr({py}, \"{name}\")()");
                        expected = format!("{expected}.{name}()");
                    }
                    1 => {
                        py = format!("{py}.{name}");
                        expected = format!("{expected}.{name}");
                    }
                    _ => {
                        py = format!("{py}[\"{name}\"].x");
                        expected = format!("{expected}.[{name}].x");
                    }
                }
            }
            let src = format!("{py}\n");
            let tree = crate::extract::Extractor::new().parse(Lang::Python, src.as_bytes()).expect("parses");
            let statement = tree.root_node().named_child(0).expect("a statement");
            let expression = statement.named_child(0).expect("an expression");
            let (path, _) = super::path_of(expression, src.as_bytes()).expect("a written path");
            assert_eq!(path, expected, "{n} names: {py}");
        }
    }

    /// Of a chain longer than [`MAX_PATH_SEGMENTS`], the path keeps the last segments (each of
    /// its sites would store the whole prefix: quadratic in the chain's length), in both
    /// languages.
    #[test]
    fn chains_past_the_longest_path_keep_their_last_segments() {
        let max = super::MAX_PATH_SEGMENTS;
        for (lang, links) in [(Lang::Python, max - 1), (Lang::Python, max), (Lang::TypeScript, max), (Lang::TypeScript, 5 * max)] {
            let src = format!("a{}\n", ".b()".repeat(links));
            let tree = crate::extract::Extractor::new().parse(lang, src.as_bytes()).expect("parses");
            let statement = tree.root_node().named_child(0).expect("a statement");
            let expression = statement.named_child(0).expect("an expression");
            let (path, _) = super::path_of(expression, src.as_bytes()).expect("a written path");
            let expected = match links < max {
                true => format!("a{}", ".b()".repeat(links)),
                false => format!("{}{}", super::ELIDED, ".b()".repeat(max)),
            };
            assert_eq!(path, expected, "{lang:?}, {links} links");
        }
    }
}
