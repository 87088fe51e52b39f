//! Python's captures by a hand-written walk: the same [`Captures`], in the same order, as the
//! query of `grammars/python/{tags,locals}.scm` gives, without compiling that query (~65 ms per
//! process, most of an edit's extraction) or running a query cursor over every node (most of
//! the extraction's time on a full index).
//!
//! The query stays the specification. Each of its patterns is checked here at the node where
//! a query cursor completes it (the node of its last step, seen with its parent and
//! grandparent), and the matches are ordered as the cursor reports them: by that node in
//! document order, then by the depth of the node the pattern starts at, then by pattern
//! index. A test compares both on every Python fixture (and the corpora, when fetched).

use std::sync::OnceLock;

use tree_sitter::{Language, Node};

use super::preorder::Preorder;
use super::{Captures, Match, Room, in_cursor_order, list_match, note_ancestors, text};
use crate::facts::RefKind as R;
use crate::lang::{Capture, DefKind};

/// Declares a table of grammar ids looked up by name once (a name missing from the grammar is
/// a bug the tests catch at the first file).
macro_rules! grammar_ids {
    ($table:ident, $lookup:ident, $($field:ident = $name:literal),* $(,)?) => {
        struct $table { $($field: u16),* }
        impl $table {
            fn load(language: &Language) -> $table {
                $table { $($field: $lookup(language, $name)),* }
            }
        }
    };
}

fn kind_id(language: &Language, name: &str) -> u16 {
    let id = language.id_for_node_kind(name, true);
    assert!(id != 0, "the Python grammar has no node kind {name:?}");
    id
}

fn field_id(language: &Language, name: &str) -> u16 {
    language.field_id_for_name(name).unwrap_or_else(|| panic!("the Python grammar has no field {name:?}")).get()
}

grammar_ids!(
    Kinds,
    kind_id,
    identifier = "identifier",
    attribute = "attribute",
    call = "call",
    argument_list = "argument_list",
    keyword_argument = "keyword_argument",
    list = "list",
    tuple = "tuple",
    expression_list = "expression_list",
    dictionary = "dictionary",
    pair = "pair",
    decorator = "decorator",
    class_definition = "class_definition",
    function_definition = "function_definition",
    lambda = "lambda",
    assignment = "assignment",
    augmented_assignment = "augmented_assignment",
    pattern_list = "pattern_list",
    tuple_pattern = "tuple_pattern",
    list_pattern = "list_pattern",
    dotted_name = "dotted_name",
    aliased_import = "aliased_import",
    global_statement = "global_statement",
    nonlocal_statement = "nonlocal_statement",
    type_ = "type",
    subscript = "subscript",
    generic_type = "generic_type",
    with_item = "with_item",
    for_statement = "for_statement",
    for_in_clause = "for_in_clause",
    await_ = "await",
    return_statement = "return_statement",
    import_statement = "import_statement",
    import_from_statement = "import_from_statement",
    module = "module",
    expression_statement = "expression_statement",
    string = "string",
    parameters = "parameters",
    typed_parameter = "typed_parameter",
    default_parameter = "default_parameter",
    typed_default_parameter = "typed_default_parameter",
    list_splat_pattern = "list_splat_pattern",
    dictionary_splat_pattern = "dictionary_splat_pattern",
    lambda_parameters = "lambda_parameters",
    named_expression = "named_expression",
    as_pattern = "as_pattern",
    as_pattern_target = "as_pattern_target",
    list_comprehension = "list_comprehension",
    set_comprehension = "set_comprehension",
    dictionary_comprehension = "dictionary_comprehension",
    generator_expression = "generator_expression",
);

grammar_ids!(
    Fields,
    field_id,
    name = "name",
    left = "left",
    right = "right",
    object = "object",
    attribute = "attribute",
    function = "function",
    arguments = "arguments",
    value = "value",
    superclasses = "superclasses",
    alias = "alias",
);

fn ids() -> &'static (Kinds, Fields) {
    static IDS: OnceLock<(Kinds, Fields)> = OnceLock::new();
    IDS.get_or_init(|| {
        let language: Language = tree_sitter_python::LANGUAGE.into();
        (Kinds::load(&language), Fields::load(&language))
    })
}

/// The number of patterns of the Python query (tags, then locals); a test checks it.
#[cfg(test)]
pub(super) const PATTERNS: usize = 77;

/// A node on the path from the root to the node visited, with the grammar's ids of its kind
/// and of its field in its parent (0 for none).
type Frame<'t> = super::Frame<'t, u16, u16>;

pub(super) fn walk<'t>(root: Node<'t>, src: &[u8], room: &mut Room) -> Captures<'t> {
    let (k, f) = ids();
    let mut found: Vec<Match<'t>> = room.take(super::expected_matches(src));
    // The node visited's ancestors, after the nodes visited before it.
    let mut path: Vec<Frame<'t>> = Vec::with_capacity(32);
    let mut order = 0u32;
    let mut type_parents = crate::resolve::Map::default();
    let mut seen_parents = room.take_parents();
    // Anonymous leaves (punctuation, keywords: a third of django's nodes) complete no pattern.
    let mut nodes = Preorder::new(root, &[]);
    while let Some(n) = nodes.next() {
        path.truncate(n.depth);
        let node = n.node;
        let mut frame = Frame { node, kind: n.kind, field: n.field, named: n.named, noted: false };
        let before = found.len();
        visit(k, f, src, frame, &path, order, &mut found);
        frame.noted = note_ancestors(&found[before..], src, node, &mut path, &mut seen_parents);
        order += 1;
        if frame.kind == k.identifier
            && let Some(p) = path.last().filter(|p| p.kind == k.generic_type)
        {
            type_parents.insert(node.id(), p.node);
        }
        if frame.kind == k.string && plain_string(src, node) {
            nodes.skip_descendants(n.depth);
        }
        path.push(frame);
    }
    let mut captures = in_cursor_order(root, &mut found);
    room.keep(found);
    captures.type_parents = type_parents;
    captures.seen_parents = seen_parents;
    captures
}

/// A string that cannot hold an interpolation (no `f` or `t` prefix) and parsed without
/// errors: its parts (`string_start`, `string_content`, `string_end`: a tenth of django's nodes)
/// complete no pattern, so the walk does not go into it.
fn plain_string(src: &[u8], string: Node) -> bool {
    let mut prefix = text(src, string).iter().take_while(|&&b| b != b'"' && b != b'\'');
    !string.has_error() && prefix.all(|b| matches!(b, b'r' | b'R' | b'b' | b'B' | b'u' | b'U'))
}

/// The patterns completed at `n` (`path` holds its ancestors, the root first).
fn visit<'t>(k: &Kinds, f: &Fields, src: &[u8], n: Frame<'t>, path: &[Frame<'t>], order: u32, found: &mut Vec<Match<'t>>) {
    let depth = path.len() as u32;
    let mut read_at = None;
    let mut emit = |up: u32, pattern: u16, role: Capture, node: Node<'t>, name: Option<Node<'t>>| {
        list_match(found, &mut read_at, ((order, depth - up, pattern), role, node, name));
    };
    let node = n.node;
    let kind = n.kind;
    let ident = kind == k.identifier;
    let ident_or_attr = ident || kind == k.attribute;
    let named = n.named;
    let is_self = |x: Node| text(src, x) == b"self";

    // Patterns of one node.
    if kind == k.lambda {
        emit(0, 2, Capture::Definition(DefKind::Lambda), node, None);
        emit(0, 52, Capture::LocalScope, node, None);
    } else if kind == k.attribute {
        emit(0, 12, Capture::Reference(R::Read), node, Some(node));
    } else if ident {
        emit(0, 13, Capture::Reference(R::Read), node, Some(node));
    } else if kind == k.import_statement {
        emit(0, 48, Capture::ImportStatement, node, None);
    } else if kind == k.import_from_statement {
        emit(0, 49, Capture::ImportStatement, node, None);
    } else if kind == k.function_definition {
        emit(0, 51, Capture::LocalScope, node, None);
    } else if kind == k.class_definition {
        emit(0, 53, Capture::LocalScope, node, None);
    } else if kind == k.list_comprehension {
        emit(0, 54, Capture::LocalScope, node, None);
    } else if kind == k.set_comprehension {
        emit(0, 55, Capture::LocalScope, node, None);
    } else if kind == k.dictionary_comprehension {
        emit(0, 56, Capture::LocalScope, node, None);
    } else if kind == k.generator_expression {
        emit(0, 57, Capture::LocalScope, node, None);
    }

    // Patterns of a parent and its child `n`.
    let Some(&p) = path.last() else { return };
    let (pk, field) = (p.kind, n.field);
    let skip = Capture::SkipRead;
    if pk == k.class_definition {
        if field == f.name && ident {
            emit(1, 0, Capture::Definition(DefKind::Class), p.node, Some(node));
        }
    } else if pk == k.function_definition {
        if field == f.name && ident {
            emit(1, 1, Capture::Definition(DefKind::Function), p.node, Some(node));
        }
    } else if pk == k.call {
        if field == f.function && named {
            emit(1, 6, Capture::Reference(R::Call), p.node, Some(node));
            emit(1, 16, skip, node, None);
        }
    } else if pk == k.list {
        if ident {
            emit(1, 9, Capture::Reference(R::Argument), node, Some(node));
        }
    } else if pk == k.decorator {
        if ident_or_attr {
            emit(1, 11, Capture::Reference(R::Decorator), node, Some(node));
        }
        if named {
            emit(1, 19, skip, node, None);
        }
    } else if pk == k.attribute {
        if field == f.object && named {
            emit(1, 14, skip, node, None);
        } else if field == f.attribute && ident {
            emit(1, 15, skip, node, None);
        }
    } else if pk == k.assignment {
        if field == f.left {
            if named {
                emit(1, 17, skip, node, None);
            }
            if ident {
                emit(1, 33, Capture::Reference(R::Write), node, Some(node));
                emit(1, 66, Capture::LocalDefinition, node, None);
            } else if kind == k.pattern_list || kind == k.tuple_pattern || kind == k.list_pattern {
                emit(1, 67, Capture::LocalPattern, node, None);
            }
        }
    } else if pk == k.augmented_assignment {
        if field == f.left {
            if named {
                emit(1, 18, skip, node, None);
            }
            if ident_or_attr {
                emit(1, 29, Capture::Reference(R::Write), node, Some(node));
            }
            if ident {
                emit(1, 68, Capture::LocalDefinition, node, None);
            }
        }
    } else if pk == k.keyword_argument {
        if field == f.name && ident {
            emit(1, 20, skip, node, None);
        }
    } else if pk == k.dotted_name {
        if ident {
            emit(1, 21, skip, node, None);
        }
    } else if pk == k.aliased_import {
        if field == f.alias && ident {
            emit(1, 22, skip, node, None);
        }
    } else if pk == k.global_statement || pk == k.nonlocal_statement {
        if ident {
            let global = pk == k.global_statement;
            emit(1, if global { 23 } else { 24 }, skip, node, None);
            emit(1, if global { 75 } else { 76 }, Capture::LocalGlobal, node, None);
        }
    } else if pk == k.type_ {
        if ident_or_attr {
            emit(1, if ident { 25 } else { 26 }, skip, node, None);
            emit(1, 41, Capture::Reference(R::Type), node, Some(node));
        }
    } else if pk == k.with_item {
        if field == f.value && named {
            emit(1, 37, Capture::Reference(R::With), node, Some(node));
        }
    } else if pk == k.for_statement || pk == k.for_in_clause {
        let statement = pk == k.for_statement;
        if field == f.right && (ident_or_attr || kind == k.call) {
            emit(1, if statement { 38 } else { 39 }, Capture::Reference(R::Iter), node, Some(node));
        } else if field == f.left {
            if ident {
                emit(1, if statement { 69 } else { 71 }, Capture::LocalDefinition, node, None);
            } else if kind == k.pattern_list || kind == k.tuple_pattern {
                emit(1, if statement { 70 } else { 72 }, Capture::LocalPattern, node, None);
            }
        }
    } else if pk == k.await_ {
        if ident_or_attr || kind == k.call {
            emit(1, 40, Capture::Reference(R::Await), node, Some(node));
        }
    } else if pk == k.return_statement {
        let pattern = if ident_or_attr {
            45
        } else if kind == k.lambda {
            46
        } else if kind == k.dictionary || kind == k.list || kind == k.tuple || kind == k.expression_list {
            47
        } else {
            0
        };
        if pattern != 0 {
            emit(1, pattern, Capture::ReturnCall, node, Some(node));
        }
    } else if pk == k.parameters {
        if ident {
            emit(1, 58, Capture::LocalDefinition, node, None);
        }
    } else if pk == k.lambda_parameters {
        if ident {
            emit(1, 64, Capture::LocalDefinition, node, None);
        }
    } else if pk == k.named_expression && field == f.name && ident {
        emit(1, 73, Capture::LocalDefinition, node, None);
    }

    // Patterns of a grandparent, a parent and `n`.
    let Some(&g) = path.len().checked_sub(2).and_then(|i| path.get(i)) else { return };
    let (gk, pfield) = (g.kind, p.field);
    if pk == k.attribute {
        let object = || crate::field::child_by_field_id(p.node, f.object).filter(|o| o.kind_id() == k.identifier).map(|o| text(src, o));
        let object_is_self = || object() == Some(b"self".as_slice());
        if field == f.attribute && ident {
            if gk == k.assignment && pfield == f.left && matches!(object(), Some(b"self" | b"cls")) {
                emit(2, 3, Capture::Definition(DefKind::Property), g.node, Some(node));
            } else if (gk == k.pattern_list || gk == k.tuple_pattern) && object_is_self() {
                emit(2, if gk == k.pattern_list { 4 } else { 5 }, Capture::Definition(DefKind::Property), p.node, Some(node));
            }
        } else if field == f.object {
            if ident && is_self(node) {
                if gk == k.assignment && pfield == f.left {
                    emit(2, 30, Capture::Reference(R::Write), p.node, Some(p.node));
                } else if gk == k.pattern_list || gk == k.tuple_pattern {
                    emit(2, if gk == k.pattern_list { 31 } else { 32 }, Capture::Reference(R::Write), p.node, Some(p.node));
                }
            } else if named && gk == k.assignment && pfield == f.left {
                emit(2, 34, Capture::Reference(R::Patch), p.node, Some(p.node));
            }
        }
    } else if pk == k.argument_list {
        if ident_or_attr {
            if gk == k.call && pfield == f.arguments {
                emit(2, 7, Capture::Reference(R::Argument), node, Some(node));
            } else if gk == k.class_definition && pfield == f.superclasses {
                emit(2, 36, Capture::Reference(R::Inherits), node, Some(node));
            }
        } else if kind == k.string && gk == k.call && pfield == f.arguments && is_setattr_target(k, f, src, node, g.node) {
            emit(2, 35, Capture::Reference(R::Patch), g.node, Some(g.node));
        }
    } else if pk == k.pair {
        if field == f.value && ident_or_attr && gk == k.dictionary {
            emit(2, 10, Capture::Reference(R::Argument), node, Some(node));
        }
    } else if pk == k.subscript {
        if field == f.value && named && gk == k.type_ {
            emit(2, 27, skip, node, None);
            if ident_or_attr {
                emit(2, 42, Capture::Reference(R::Type), node, Some(node));
            }
        }
    } else if pk == k.generic_type {
        if ident && gk == k.type_ {
            emit(2, 28, skip, node, None);
            emit(2, 43, Capture::Reference(R::Type), node, Some(node));
        }
    } else if pk == k.call {
        if field == f.function && (ident_or_attr || kind == k.call) && gk == k.return_statement {
            emit(2, 44, Capture::ReturnCall, p.node, Some(node));
        }
    } else if ident {
        if gk == k.parameters {
            if pk == k.typed_parameter {
                emit(2, 59, Capture::LocalDefinition, node, None);
            } else if pk == k.default_parameter && field == f.name {
                emit(2, 60, Capture::LocalDefinition, node, None);
            } else if pk == k.typed_default_parameter && field == f.name {
                emit(2, 61, Capture::LocalDefinition, node, None);
            } else if pk == k.list_splat_pattern {
                emit(2, 62, Capture::LocalDefinition, node, None);
            } else if pk == k.dictionary_splat_pattern {
                emit(2, 63, Capture::LocalDefinition, node, None);
            }
        } else if gk == k.lambda_parameters && pk == k.default_parameter && field == f.name {
            emit(2, 65, Capture::LocalDefinition, node, None);
        } else if gk == k.as_pattern && pk == k.as_pattern_target && pfield == f.alias {
            emit(2, 74, Capture::LocalDefinition, node, None);
        }
    }

    // Patterns of four levels.
    let Some(&gg) = path.len().checked_sub(3).and_then(|i| path.get(i)) else { return };
    if pk == k.keyword_argument {
        if field == f.value && ident_or_attr && gk == k.argument_list && gg.kind == k.call && g.field == f.arguments {
            emit(3, 8, Capture::Reference(R::Argument), node, Some(node));
        }
    } else if pk == k.assignment
        && field == f.left
        && ident
        && gk == k.expression_statement
        && gg.kind == k.module
        && text(src, node) == b"__all__"
    {
        emit(3, 50, Capture::ExportStatement, p.node, None);
    }
}

/// `setattr(target, "name", …)`: the string is the second named argument, right after the
/// first, of a call of the identifier `setattr`.
fn is_setattr_target(k: &Kinds, f: &Fields, src: &[u8], string: Node, call: Node) -> bool {
    crate::field::child_by_field_id(call, f.function).is_some_and(|c| c.kind_id() == k.identifier && text(src, c) == b"setattr")
        && string.prev_named_sibling().is_some_and(|first| first.prev_named_sibling().is_none())
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use tree_sitter::{Parser, QueryCursor};

    use super::super::{assert_walk_is_query, collect, repo};
    use super::{PATTERNS, walk};
    use crate::lang::{Grammar, LanguageConfig};

    fn python_files(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() && !p.is_symlink() {
                python_files(&p, out);
            } else if p.extension().is_some_and(|e| e == "py" || e == "pyi") {
                out.push(p);
            }
        }
    }

    /// Compares the walk with the query on each file; returns how many were compared.
    fn compare(files: &[PathBuf]) -> usize {
        let config = LanguageConfig::get(Grammar::Python);
        assert_eq!(config.query.pattern_count(), PATTERNS, "the Python query's patterns changed: update the walk");
        let mut parser = Parser::new();
        parser.set_language(&config.language).unwrap();
        let mut cursor = QueryCursor::new();
        for path in files {
            let src = std::fs::read(path).unwrap();
            let tree = parser.parse(&src, None).unwrap();
            let query = collect(&mut cursor, config, tree.root_node(), &src);
            assert_walk_is_query(
                &path.display().to_string(),
                query,
                walk(tree.root_node(), &src, &mut crate::extract::captures::Room::default()),
            );
        }
        files.len()
    }

    #[test]
    fn the_walk_captures_what_the_query_captures_on_every_fixture() {
        let mut files = Vec::new();
        python_files(&repo().join("grammars/python/test"), &mut files);
        python_files(&repo().join("tests/fixtures"), &mut files);
        assert!(compare(&files) > 500);
    }

    #[test]
    fn the_walk_captures_what_the_query_captures_with_syntax_errors() {
        // Removed when dropped, also when a comparison fails.
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path();
        let sources = [
            "def f(:\n    self.x = g(\nclass C(B\n    return [a, b\n",
            "setattr(obj, 'name', value)\nsetattr(# c\n obj, 'x', v)\nx = (\nfor a, b in :\n",
            "@d(x\nasync def f(a, *b, c: int = 1, **d) -> T[int]:\n    with open(p) as (h, i):\n        await h\n",
            "__all__ = ['a'\nlambda x, y=1: x +\nglobal g\n",
        ];
        let files: Vec<PathBuf> = sources
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let p = dir.join(format!("broken{i}.py"));
                std::fs::write(&p, s).unwrap();
                p
            })
            .collect();
        compare(&files);
    }

    /// The corpora of `benches/results.py` and the oracles, when fetched (`cargo test --release
    /// -p ckg-core --lib python::tests -- --ignored`).
    #[test]
    #[ignore]
    fn the_walk_captures_what_the_query_captures_on_the_corpora() {
        let mut files = Vec::new();
        python_files(&repo().join("corpora/cache"), &mut files);
        eprintln!("{} files compared", compare(&files));
    }
}
