//! TypeScript's and TSX's captures by a hand-written walk: the same [`Captures`], in the same
//! order, as the query of `grammars/typescript/{tags,locals}.scm` (and `grammars/tsx/tags.scm`
//! for TSX and JavaScript) gives, without compiling that query (~140 ms per grammar and
//! process) or running a query cursor over every node.
//!
//! The query stays the specification. Each of its patterns is checked here at the node where
//! a query cursor completes it (the node of its last step, seen with its ancestors), and the
//! matches are ordered as the cursor reports them: by that node in document order, then by
//! the depth of the node the pattern starts at, then by pattern index. One pattern completes
//! later than its last node: an object literal's value of a declarator ([`ObjectValue`]).
//! A test compares both on every TypeScript and JavaScript fixture (and the corpora, when
//! fetched).

use std::sync::OnceLock;

use tree_sitter::{Language, Node};

use super::preorder::{KEEP_CHILDREN, KEEP_LEAF, Preorder};
use super::{Captures, Match, Room, in_cursor_order, list_match, note_ancestors, text};
use crate::facts::RefKind as R;
use crate::lang::{Capture, DefKind};

/// The node kinds the query names; `Other` for the rest.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum K {
    Other,
    /// An `ERROR` node: named, but no wildcard `(_)` matches it.
    Error,
    AbstractClassDeclaration,
    AbstractMethodSignature,
    AccessibilityModifier,
    Arguments,
    Array,
    ArrayPattern,
    ArrowFunction,
    AsExpression,
    AssignmentExpression,
    AugmentedAssignmentExpression,
    AwaitExpression,
    BinaryExpression,
    CallExpression,
    CatchClause,
    Class,
    ClassDeclaration,
    ClassHeritage,
    Decorator,
    EnumAssignment,
    EnumBody,
    EnumDeclaration,
    ExportSpecifier,
    ExportStatement,
    ExpressionStatement,
    ExtendsClause,
    ExtendsTypeClause,
    ForInStatement,
    ForStatement,
    FunctionDeclaration,
    FunctionExpression,
    FunctionSignature,
    GeneratorFunction,
    GeneratorFunctionDeclaration,
    GenericType,
    Identifier,
    ImplementsClause,
    Import,
    ImportClause,
    ImportRequireClause,
    ImportSpecifier,
    ImportStatement,
    InterfaceDeclaration,
    InternalModule,
    IntersectionType,
    MemberExpression,
    MethodDefinition,
    MethodSignature,
    Module,
    NamespaceExport,
    NamespaceImport,
    NestedIdentifier,
    NestedTypeIdentifier,
    NewExpression,
    Number,
    Object,
    ObjectAssignmentPattern,
    ObjectPattern,
    ObjectType,
    OptionalParameter,
    Pair,
    PairPattern,
    ParenthesizedExpression,
    PrivatePropertyIdentifier,
    PropertyIdentifier,
    PropertySignature,
    PublicFieldDefinition,
    /// The `readonly` keyword (an anonymous node).
    Readonly,
    RequiredParameter,
    RestPattern,
    ReturnStatement,
    SatisfiesExpression,
    ShorthandPropertyIdentifier,
    ShorthandPropertyIdentifierPattern,
    StatementBlock,
    String,
    TemplateString,
    TernaryExpression,
    This,
    TypeAliasDeclaration,
    TypeIdentifier,
    TypeParameter,
    TypeQuery,
    UpdateExpression,
    VariableDeclarator,
    JsxAttribute,
    JsxClosingElement,
    JsxOpeningElement,
    JsxSelfClosingElement,
}

/// Named node kinds of both grammars.
const KINDS: &[(K, &str)] = &[
    (K::AbstractClassDeclaration, "abstract_class_declaration"),
    (K::AbstractMethodSignature, "abstract_method_signature"),
    (K::AccessibilityModifier, "accessibility_modifier"),
    (K::Arguments, "arguments"),
    (K::Array, "array"),
    (K::ArrayPattern, "array_pattern"),
    (K::ArrowFunction, "arrow_function"),
    (K::AsExpression, "as_expression"),
    (K::AssignmentExpression, "assignment_expression"),
    (K::AugmentedAssignmentExpression, "augmented_assignment_expression"),
    (K::AwaitExpression, "await_expression"),
    (K::BinaryExpression, "binary_expression"),
    (K::CallExpression, "call_expression"),
    (K::CatchClause, "catch_clause"),
    (K::Class, "class"),
    (K::ClassDeclaration, "class_declaration"),
    (K::ClassHeritage, "class_heritage"),
    (K::Decorator, "decorator"),
    (K::EnumAssignment, "enum_assignment"),
    (K::EnumBody, "enum_body"),
    (K::EnumDeclaration, "enum_declaration"),
    (K::ExportSpecifier, "export_specifier"),
    (K::ExportStatement, "export_statement"),
    (K::ExpressionStatement, "expression_statement"),
    (K::ExtendsClause, "extends_clause"),
    (K::ExtendsTypeClause, "extends_type_clause"),
    (K::ForInStatement, "for_in_statement"),
    (K::ForStatement, "for_statement"),
    (K::FunctionDeclaration, "function_declaration"),
    (K::FunctionExpression, "function_expression"),
    (K::FunctionSignature, "function_signature"),
    (K::GeneratorFunction, "generator_function"),
    (K::GeneratorFunctionDeclaration, "generator_function_declaration"),
    (K::GenericType, "generic_type"),
    (K::Identifier, "identifier"),
    (K::ImplementsClause, "implements_clause"),
    (K::Import, "import"),
    (K::ImportClause, "import_clause"),
    (K::ImportRequireClause, "import_require_clause"),
    (K::ImportSpecifier, "import_specifier"),
    (K::ImportStatement, "import_statement"),
    (K::InterfaceDeclaration, "interface_declaration"),
    (K::InternalModule, "internal_module"),
    (K::IntersectionType, "intersection_type"),
    (K::MemberExpression, "member_expression"),
    (K::MethodDefinition, "method_definition"),
    (K::MethodSignature, "method_signature"),
    (K::Module, "module"),
    (K::NamespaceExport, "namespace_export"),
    (K::NamespaceImport, "namespace_import"),
    (K::NestedIdentifier, "nested_identifier"),
    (K::NestedTypeIdentifier, "nested_type_identifier"),
    (K::NewExpression, "new_expression"),
    (K::Number, "number"),
    (K::Object, "object"),
    (K::ObjectAssignmentPattern, "object_assignment_pattern"),
    (K::ObjectPattern, "object_pattern"),
    (K::ObjectType, "object_type"),
    (K::OptionalParameter, "optional_parameter"),
    (K::Pair, "pair"),
    (K::PairPattern, "pair_pattern"),
    (K::ParenthesizedExpression, "parenthesized_expression"),
    (K::PrivatePropertyIdentifier, "private_property_identifier"),
    (K::PropertyIdentifier, "property_identifier"),
    (K::PropertySignature, "property_signature"),
    (K::PublicFieldDefinition, "public_field_definition"),
    (K::RequiredParameter, "required_parameter"),
    (K::RestPattern, "rest_pattern"),
    (K::ReturnStatement, "return_statement"),
    (K::SatisfiesExpression, "satisfies_expression"),
    (K::ShorthandPropertyIdentifier, "shorthand_property_identifier"),
    (K::ShorthandPropertyIdentifierPattern, "shorthand_property_identifier_pattern"),
    (K::StatementBlock, "statement_block"),
    (K::String, "string"),
    (K::TemplateString, "template_string"),
    (K::TernaryExpression, "ternary_expression"),
    (K::This, "this"),
    (K::TypeAliasDeclaration, "type_alias_declaration"),
    (K::TypeIdentifier, "type_identifier"),
    (K::TypeParameter, "type_parameter"),
    (K::TypeQuery, "type_query"),
    (K::UpdateExpression, "update_expression"),
    (K::VariableDeclarator, "variable_declarator"),
];

/// Named node kinds of the TSX grammar only (the TypeScript grammar has no node of these
/// kinds, so the patterns of `grammars/tsx/tags.scm` need no other check).
const JSX_KINDS: &[(K, &str)] = &[
    (K::JsxAttribute, "jsx_attribute"),
    (K::JsxClosingElement, "jsx_closing_element"),
    (K::JsxOpeningElement, "jsx_opening_element"),
    (K::JsxSelfClosingElement, "jsx_self_closing_element"),
];

/// The fields the query names; `Other` for the rest, `None` for a child without a field.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum F {
    None,
    Other,
    Alias,
    Argument,
    Arguments,
    Body,
    Constructor,
    Function,
    Key,
    Left,
    Name,
    Object,
    Parameter,
    Pattern,
    Property,
    Right,
    Type,
    Value,
}

const FIELDS: &[(F, &str)] = &[
    (F::Alias, "alias"),
    (F::Argument, "argument"),
    (F::Arguments, "arguments"),
    (F::Body, "body"),
    (F::Constructor, "constructor"),
    (F::Function, "function"),
    (F::Key, "key"),
    (F::Left, "left"),
    (F::Name, "name"),
    (F::Object, "object"),
    (F::Parameter, "parameter"),
    (F::Pattern, "pattern"),
    (F::Property, "property"),
    (F::Right, "right"),
    (F::Type, "type"),
    (F::Value, "value"),
];

/// A grammar's kind and field ids, as [`K`] and [`F`] (the two grammars number them
/// differently).
struct Ids {
    kinds: Vec<K>,
    fields: Vec<F>,
    /// The anonymous leaves the walk is given (a table of `preorder::KEEP_*` marks): those the
    /// query names, and the children of an object and of its pairs, which [`ObjectValue`]
    /// steps over.
    leaves: Vec<u8>,
}

impl Ids {
    /// Looks the names up once (a name missing from the grammar is a bug the tests catch at
    /// the first file).
    fn load(language: &Language, tsx: bool) -> Ids {
        let mut kinds = vec![K::Other; language.node_kind_count()];
        let jsx: &[(K, &str)] = if tsx { JSX_KINDS } else { &[] };
        let named = KINDS.iter().chain(jsx).map(|&(k, name)| (k, name, true));
        for (k, name, is_named) in named.chain([(K::Readonly, "readonly", false)]) {
            let id = language.id_for_node_kind(name, is_named);
            assert!(id != 0, "the grammar has no node kind {name:?}");
            kinds[id as usize] = k;
        }
        let mut fields = vec![F::Other; language.field_count() + 1];
        fields[0] = F::None;
        for &(f, name) in FIELDS {
            let id = language.field_id_for_name(name).unwrap_or_else(|| panic!("the grammar has no field {name:?}"));
            fields[id.get() as usize] = f;
        }
        let leaves = (0..kinds.len() as u16)
            .map(|id| {
                let k = kinds[id as usize];
                let leaf = if k != K::Other && !language.node_kind_is_named(id) { KEEP_LEAF } else { 0 };
                leaf | if matches!(k, K::Object | K::Pair) { KEEP_CHILDREN } else { 0 }
            })
            .collect();
        Ids { kinds, fields, leaves }
    }

    fn kind(&self, node: Node) -> K {
        self.kind_of(node.kind_id())
    }

    /// The kind of a node of the grammar's kind id `id`.
    fn kind_of(&self, id: u16) -> K {
        // ERROR (`u16::MAX`) is the one id outside the table.
        self.kinds.get(id as usize).copied().unwrap_or(K::Error)
    }

    fn field(&self, id: u16) -> F {
        self.fields.get(id as usize).copied().unwrap_or(F::Other)
    }
}

/// The anonymous leaves the walk of a grammar is given (its table of `preorder::KEEP_*` marks).
#[cfg(test)]
pub(super) fn walked_leaves(tsx: bool) -> &'static [u8] {
    &ids(tsx).leaves
}

fn ids(tsx: bool) -> &'static Ids {
    static TS: OnceLock<Ids> = OnceLock::new();
    static TSX: OnceLock<Ids> = OnceLock::new();
    if tsx {
        TSX.get_or_init(|| Ids::load(&tree_sitter_typescript::LANGUAGE_TSX.into(), true))
    } else {
        TS.get_or_init(|| Ids::load(&tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(), false))
    }
}

/// The number of patterns of the TypeScript query (tags, then locals); the TSX query adds
/// [`JSX_PATTERNS`]. A test checks both.
#[cfg(test)]
pub(super) const PATTERNS: usize = 120;
#[cfg(test)]
pub(super) const JSX_PATTERNS: usize = 4;

/// The pattern completed after its last node (see [`ObjectValue`]).
const OBJECT_VALUE: u16 = 15;

/// A node on the path from the root to the node visited.
type Frame<'t> = super::Frame<'t, K, F>;

impl Frame<'_> {
    /// What a wildcard `(_)` matches: a named node other than `ERROR`.
    fn wild(&self) -> bool {
        self.kind != K::Error && self.named
    }
}

/// `(variable_declarator name: (identifier) @name value: (object [(method_definition) (pair
/// value: [(arrow_function) (function_expression)])])) @definition.variable`, under way.
///
/// Its `[…]` step can match any child of the object, and the match it completes captures
/// nothing more than the states still looking at later children (or inside a `pair`): the
/// cursor defers it until no such state is left (the longest-match rule), so it is reported
/// at the first event after that: entering a node, or leaving one above the declarator (an
/// object always has children, so in practice the last state ends on entering one, and the
/// match is reported there). Further matches of the same declarator capture the same nodes
/// and are dropped.
struct ObjectValue<'t> {
    /// The declarator's depth.
    depth: u32,
    declarator: Node<'t>,
    name: Node<'t>,
    /// A state waits for a `method_definition` child of the object.
    method: bool,
    /// A state waits for a `pair` child of the object.
    pair: bool,
    /// A state waits for the `value` of the pair being visited.
    in_pair: bool,
    /// The pattern is complete.
    done: bool,
    /// The object's children (`Node::child_count`: all are listed, see `Ids::leaves`) and
    /// those entered so far: a child is followed by a sibling while some are left
    /// (`Node::next_sibling` walked down from the root each time, ~10k instructions, 1.3 % of
    /// ra-core's full index).
    children: usize,
    entered: usize,
    /// The same for the pair being visited.
    pair_children: usize,
    pair_entered: usize,
}

impl ObjectValue<'_> {
    fn waiting(&self) -> bool {
        self.method || self.pair || self.in_pair
    }
}

pub(super) fn walk<'t>(root: Node<'t>, src: &[u8], tsx: bool, room: &mut Room) -> Captures<'t> {
    let ids = ids(tsx);
    let mut found: Vec<Match<'t>> = room.take(super::expected_matches(src));
    let mut path: Vec<Frame<'t>> = Vec::with_capacity(32);
    let mut objects: Vec<ObjectValue<'t>> = Vec::new();
    let mut type_parents = crate::resolve::Map::default();
    let mut seen_parents = room.take_parents();
    // Entering and leaving a node are events of a cursor's walk, numbered in turn.
    let mut event = 0u32;
    let mut nodes = Preorder::new(root, &ids.leaves);
    while let Some(n) = nodes.next() {
        // Leaving the nodes visited before, down to this one's parent.
        while path.len() > n.depth {
            leave(&mut path, &mut objects, &mut event, &mut found);
        }
        let (node, kind) = (n.node, ids.kind_of(n.kind));
        let mut frame = Frame { node, kind, field: ids.field(n.field), named: n.named, noted: false };
        // Anonymous leaves the query does not name (punctuation, most keywords: a third of the
        // nodes) complete no pattern: they are not listed, but for the children of objects and
        // pairs, which are not visited either (an object value's state steps over them, so
        // not while one is waiting).
        let quiet = kind == K::Other && objects.is_empty() && !n.named && !n.has_children;
        if !quiet {
            let before = found.len();
            visit(ids, src, frame, &path, event, &mut found);
            frame.noted = note_ancestors(&found[before..], src, node, &mut path, &mut seen_parents);
        }
        if matches!(kind, K::TypeIdentifier | K::NestedTypeIdentifier)
            && let Some(p) = path.last().filter(|p| matches!(p.kind, K::NestedTypeIdentifier | K::GenericType | K::Class))
        {
            type_parents.insert(node.id(), p.node);
        }
        if !objects.is_empty() {
            enter_object_value(&mut objects, frame, path.len() as u32, event, &mut found);
        }
        if frame.kind == K::Object
            && frame.field == F::Value
            && let Some(o) = path.last().and_then(|p| object_value(ids, p, node, path.len() as u32 - 1))
        {
            objects.push(o);
        }
        event += 1;
        // A string's parts (quotes, `string_fragment`, escapes: 12 % of effect's nodes) complete
        // no pattern; template strings, which hold expressions, are another kind.
        if kind == K::String && !node.has_error() {
            nodes.skip_descendants(n.depth);
        }
        path.push(frame);
    }
    while !path.is_empty() {
        leave(&mut path, &mut objects, &mut event, &mut found);
    }
    let mut captures = in_cursor_order(root, &mut found);
    room.keep(found);
    captures.type_parents = type_parents;
    captures.seen_parents = seen_parents;
    captures
}

/// Leaves the last node of `path`: the event after it (`event`, then counted).
fn leave<'t>(path: &mut Vec<Frame<'t>>, objects: &mut Vec<ObjectValue<'t>>, event: &mut u32, found: &mut Vec<Match<'t>>) {
    path.pop();
    if !objects.is_empty() {
        leave_object_value(objects, path.len() as u32, *event, found);
    }
    *event += 1;
}

/// The [`ObjectValue`] state started at `object`, the value of `declarator` (at `depth`): the
/// declarator's first `name` is an identifier and its first `value` after it is `object`.
fn object_value<'t>(ids: &Ids, declarator: &Frame<'t>, object: Node<'t>, depth: u32) -> Option<ObjectValue<'t>> {
    if declarator.kind != K::VariableDeclarator {
        return None;
    }
    let name = field_child(ids, declarator.node, F::Name, None).filter(|n| ids.kind(*n) == K::Identifier)?;
    let value = field_child(ids, declarator.node, F::Value, Some(name))?;
    (value.id() == object.id()).then_some(ObjectValue {
        depth,
        declarator: declarator.node,
        name,
        method: true,
        pair: true,
        in_pair: false,
        done: false,
        children: object.child_count(),
        entered: 0,
        pair_children: 0,
        pair_entered: 0,
    })
}

/// Whether a child follows `node` among its parent's children (what the counts of
/// [`ObjectValue`] say, checked in debug builds). Not `Node::next_sibling`, which misses a
/// zero-width sibling at the end, such as the MISSING `}` of an object cut short (a fuzz
/// finding: `{ create: onCew OrderRepo();` without its brace).
fn has_later_sibling(node: Node) -> bool {
    let Some(parent) = node.parent() else { return false };
    let mut cursor = parent.walk();
    let mut children = parent.children(&mut cursor).skip_while(|c| c.id() != node.id());
    children.next().is_some() && children.next().is_some()
}

/// Entering a node at `depth`: the states of [`ObjectValue`] step over it, then the complete
/// ones no state is waiting for are reported.
fn enter_object_value<'t>(objects: &mut Vec<ObjectValue<'t>>, n: Frame<'t>, depth: u32, event: u32, found: &mut Vec<Match<'t>>) {
    objects.retain_mut(|o| {
        if depth == o.depth + 2 && (o.method || o.pair) {
            // A child of the object.
            o.entered += 1;
            let later = o.entered < o.children;
            debug_assert_eq!(later, has_later_sibling(n.node), "a sibling after {:?}", n.node);
            if o.method {
                if n.kind == K::MethodDefinition {
                    o.done = true;
                    o.method = false;
                } else if !later {
                    o.method = false;
                }
            }
            if o.pair {
                if n.kind == K::Pair {
                    // The state steps into the pair; a copy waits for later pairs.
                    o.in_pair = true;
                    (o.pair_children, o.pair_entered) = (n.node.child_count(), 0);
                    o.pair = later;
                } else if !later {
                    o.pair = false;
                }
            }
        } else if depth == o.depth + 3 && o.in_pair {
            // A child of the pair.
            if n.field == F::Value {
                o.done |= matches!(n.kind, K::ArrowFunction | K::FunctionExpression);
                o.in_pair = false;
            } else {
                o.pair_entered += 1;
                let last = o.pair_entered == o.pair_children;
                debug_assert_eq!(last, !has_later_sibling(n.node), "a sibling after {:?}", n.node);
                if last {
                    o.in_pair = false;
                }
            }
        }
        if o.done && !o.waiting() {
            found.push(((event, o.depth, OBJECT_VALUE), Capture::Definition(DefKind::Variable), o.declarator, Some(o.name)));
            return false;
        }
        true
    });
}

/// Leaving a node at `depth`: a complete [`ObjectValue`] is reported when the node is above its
/// declarator; the states waiting below the node are dropped.
fn leave_object_value<'t>(objects: &mut Vec<ObjectValue<'t>>, depth: u32, event: u32, found: &mut Vec<Match<'t>>) {
    objects.retain_mut(|o| {
        if o.done && o.depth > depth {
            found.push(((event, o.depth, OBJECT_VALUE), Capture::Definition(DefKind::Variable), o.declarator, Some(o.name)));
            return false;
        }
        if depth < o.depth + 2 {
            o.method = false;
            o.pair = false;
        }
        if depth < o.depth + 3 {
            o.in_pair = false;
        }
        o.done || o.waiting()
    });
}

/// The first child of `parent` in `field` after the child `after` (from the start without
/// one): the child a pattern's step for that field is matched against.
fn field_child<'t>(ids: &Ids, parent: Node<'t>, field: F, after: Option<Node<'t>>) -> Option<Node<'t>> {
    let mut seeking = after.is_none();
    for c in super::preorder::children(parent) {
        if seeking {
            if ids.field(c.field) == field {
                return Some(c.node);
            }
        } else if after.is_some_and(|a| a.id() == c.node.id()) {
            seeking = true;
        }
    }
    None
}

/// The first child of `parent` of a kind.
fn kind_child<'t>(ids: &Ids, parent: Node<'t>, kind: K) -> Option<Node<'t>> {
    super::preorder::children(parent).into_iter().map(|c| c.node).find(|n| ids.kind(*n) == kind)
}

/// `n` is the first `field` child of `parent` after the `after_field` child, which
/// `after_ok` accepts; returns that child.
fn follows<'t>(ids: &Ids, parent: Node<'t>, after_field: F, after_ok: impl Fn(K) -> bool, field: F, n: Node<'t>) -> Option<Node<'t>> {
    let first = field_child(ids, parent, after_field, None).filter(|c| after_ok(ids.kind(*c)))?;
    let next = field_child(ids, parent, field, Some(first))?;
    (next.id() == n.id()).then_some(first)
}

/// The `(member_expression object: … property: (property_identifier))` parts of `node`: its
/// object and property.
fn member_parts<'t>(ids: &Ids, node: Node<'t>) -> Option<(Node<'t>, Node<'t>)> {
    if ids.kind(node) != K::MemberExpression {
        return None;
    }
    let object = field_child(ids, node, F::Object, None)?;
    let property = field_child(ids, node, F::Property, Some(object)).filter(|p| ids.kind(*p) == K::PropertyIdentifier)?;
    Some((object, property))
}

/// The patterns completed at `n` (`path` holds its ancestors, the root first).
fn visit<'t>(ids: &Ids, src: &[u8], n: Frame<'t>, path: &[Frame<'t>], order: u32, found: &mut Vec<Match<'t>>) {
    let depth = path.len() as u32;
    let mut read_at = None;
    let mut emit = |up: u32, pattern: u16, role: Capture, node: Node<'t>, name: Option<Node<'t>>| {
        list_match(found, &mut read_at, ((order, depth - up, pattern), role, node, name));
    };
    let node = n.node;
    let kind = n.kind;
    let def = Capture::Definition;
    let reference = Capture::Reference;
    let skip = Capture::SkipRead;
    let ident = kind == K::Identifier;
    let ident_or_member = ident || kind == K::MemberExpression;
    let wild = n.wild();

    // Patterns of one node.
    let pattern = match kind {
        K::Identifier => Some((43, reference(R::Read))),
        K::MemberExpression => Some((44, reference(R::Read))),
        K::TypeIdentifier => Some((67, reference(R::Type))),
        K::NestedTypeIdentifier => Some((68, reference(R::Type))),
        K::ImportStatement => Some((82, Capture::ImportStatement)),
        K::ExportStatement => Some((83, Capture::ExportStatement)),
        K::StatementBlock => Some((92, Capture::LocalScope)),
        K::FunctionDeclaration => Some((93, Capture::LocalScope)),
        K::GeneratorFunctionDeclaration => Some((94, Capture::LocalScope)),
        K::FunctionExpression => Some((95, Capture::LocalScope)),
        K::GeneratorFunction => Some((96, Capture::LocalScope)),
        K::ArrowFunction => Some((97, Capture::LocalScope)),
        K::MethodDefinition => Some((98, Capture::LocalScope)),
        K::ClassDeclaration => Some((99, Capture::LocalScope)),
        K::AbstractClassDeclaration => Some((100, Capture::LocalScope)),
        K::InterfaceDeclaration => Some((101, Capture::LocalScope)),
        K::TypeAliasDeclaration => Some((102, Capture::LocalScope)),
        K::ForStatement => Some((103, Capture::LocalScope)),
        K::ForInStatement => Some((104, Capture::LocalScope)),
        K::CatchClause => Some((105, Capture::LocalScope)),
        _ => None,
    };
    if let Some((pattern, role)) = pattern {
        let name = matches!(role, Capture::Reference(_)).then_some(node);
        emit(0, pattern, role, node, name);
    }

    // Patterns of a parent and its child `n`.
    let Some(&p) = path.last() else { return };
    let field = n.field;
    match p.kind {
        K::FunctionDeclaration | K::GeneratorFunctionDeclaration | K::FunctionSignature if field == F::Name && ident => {
            let pattern = match p.kind {
                K::FunctionDeclaration => 0,
                K::GeneratorFunctionDeclaration => 1,
                _ => 2,
            };
            emit(1, pattern, def(DefKind::Function), p.node, Some(node));
        }
        K::ClassDeclaration | K::AbstractClassDeclaration | K::InterfaceDeclaration | K::TypeAliasDeclaration
            if field == F::Name && kind == K::TypeIdentifier =>
        {
            let (pattern, k) = match p.kind {
                K::ClassDeclaration => (3, DefKind::Class),
                K::AbstractClassDeclaration => (4, DefKind::Class),
                K::InterfaceDeclaration => (5, DefKind::Interface),
                _ => (6, DefKind::Type),
            };
            emit(1, pattern, def(k), p.node, Some(node));
        }
        K::EnumDeclaration if field == F::Name && ident => {
            emit(1, 7, def(DefKind::Enum), p.node, Some(node));
        }
        K::MethodDefinition | K::MethodSignature | K::AbstractMethodSignature
            if field == F::Name && matches!(kind, K::PropertyIdentifier | K::PrivatePropertyIdentifier | K::String) =>
        {
            let pattern = match p.kind {
                K::MethodDefinition => 8,
                K::MethodSignature => 9,
                _ => 10,
            };
            emit(1, pattern, def(DefKind::Method), p.node, Some(node));
        }
        K::PublicFieldDefinition => {
            let property_name = |k| matches!(k, K::PropertyIdentifier | K::PrivatePropertyIdentifier);
            if field == F::Name && property_name(kind) {
                emit(1, 12, def(DefKind::Property), p.node, Some(node));
            } else if field == F::Value
                && matches!(kind, K::ArrowFunction | K::FunctionExpression)
                && let Some(name) = follows(ids, p.node, F::Name, property_name, F::Value, node)
            {
                emit(1, 11, def(DefKind::Method), p.node, Some(name));
            }
        }
        K::VariableDeclarator => {
            if field == F::Value && matches!(kind, K::ArrowFunction | K::FunctionExpression | K::GeneratorFunction | K::Class) {
                if let Some(name) = follows(ids, p.node, F::Name, |k| k == K::Identifier, F::Value, node) {
                    let (pattern, k) = if kind == K::Class { (14, DefKind::Class) } else { (13, DefKind::Function) };
                    emit(1, pattern, def(k), p.node, Some(name));
                }
            } else if field == F::Name {
                if ident {
                    emit(1, 106, Capture::LocalDefinition, node, None);
                } else if matches!(kind, K::ObjectPattern | K::ArrayPattern) {
                    emit(1, 107, Capture::LocalPattern, node, None);
                }
            }
        }
        K::Pair => {
            if field == F::Value {
                if matches!(kind, K::ArrowFunction | K::FunctionExpression) {
                    if let Some(key) = follows(ids, p.node, F::Key, |k| k == K::PropertyIdentifier, F::Value, node) {
                        emit(1, 16, def(DefKind::Method), p.node, Some(key));
                    }
                } else if ident_or_member {
                    emit(1, 33, reference(R::Argument), node, Some(node));
                }
            } else if field == F::Key && kind == K::PropertyIdentifier {
                emit(1, 69, reference(R::Key), node, Some(node));
            }
        }
        K::ExportStatement if field == F::Value => match kind {
            K::ArrowFunction | K::FunctionExpression | K::Class => {
                emit(1, 17, def(DefKind::Function), node, None);
            }
            K::Object
            | K::Array
            | K::CallExpression
            | K::NewExpression
            | K::MemberExpression
            | K::String
            | K::Number
            | K::TemplateString
            | K::BinaryExpression
            | K::TernaryExpression
            | K::ParenthesizedExpression
            | K::AsExpression
            | K::SatisfiesExpression
            | K::AwaitExpression => emit(1, 18, def(DefKind::Constant), node, None),
            _ => {}
        },
        K::EnumBody if kind == K::PropertyIdentifier => {
            emit(1, 19, def(DefKind::Constant), node, Some(node));
        }
        K::EnumAssignment if field == F::Name && kind == K::PropertyIdentifier => {
            emit(1, 20, def(DefKind::Constant), p.node, Some(node));
        }
        K::InternalModule | K::Module if field == F::Name => {
            let module = p.kind == K::Module;
            if ident || kind == K::NestedIdentifier {
                emit(1, if module { 22 } else { 21 }, def(DefKind::Namespace), p.node, Some(node));
            }
            if wild {
                emit(1, if module { 63 } else { 62 }, skip, node, None);
            }
        }
        K::CallExpression if field == F::Function && wild => {
            emit(1, 29, reference(R::Call), p.node, Some(node));
            emit(1, 46, skip, node, None);
        }
        K::NewExpression if field == F::Constructor && wild => {
            emit(1, 30, reference(R::New), p.node, Some(node));
            emit(1, 47, skip, node, None);
        }
        K::Arguments if ident_or_member => {
            emit(1, 31, reference(R::Argument), node, Some(node));
        }
        K::Array if ident => {
            emit(1, 32, reference(R::Argument), node, Some(node));
        }
        K::Object if kind == K::ShorthandPropertyIdentifier => {
            emit(1, 34, reference(R::Argument), node, Some(node));
            emit(1, 70, reference(R::Key), node, Some(node));
        }
        K::AssignmentExpression => {
            if field == F::Right && ident_or_member {
                if follows(ids, p.node, F::Left, |k| k == K::MemberExpression, F::Right, node).is_some() {
                    emit(1, 35, reference(R::Argument), node, Some(node));
                }
            } else if field == F::Left {
                if wild {
                    emit(1, 48, skip, node, None);
                }
                if ident_or_member {
                    emit(1, 64, reference(R::Write), node, Some(node));
                }
                if ident {
                    emit(1, 118, Capture::LocalDefinition, node, None);
                }
            }
        }
        K::Decorator => {
            if ident_or_member {
                emit(1, 36, reference(R::Decorator), node, Some(node));
            }
            if wild {
                emit(1, 58, skip, node, None);
            }
        }
        K::ImplementsClause => {
            if matches!(kind, K::TypeIdentifier | K::NestedTypeIdentifier) {
                emit(1, 38, reference(R::Implements), node, Some(node));
            }
        }
        K::ExtendsTypeClause if field == F::Type && matches!(kind, K::TypeIdentifier | K::NestedTypeIdentifier) => {
            emit(1, 40, reference(R::Inherits), node, Some(node));
        }
        K::MemberExpression if field == F::Object => {
            if ident {
                emit(1, 42, reference(R::Member), node, Some(node));
            }
            if wild {
                emit(1, 45, skip, node, None);
            }
        }
        K::AugmentedAssignmentExpression if field == F::Left => {
            if wild {
                emit(1, 49, skip, node, None);
            }
            if ident_or_member {
                emit(1, 65, reference(R::Write), node, Some(node));
            }
        }
        K::UpdateExpression if field == F::Argument => {
            if wild {
                emit(1, 50, skip, node, None);
            }
            if ident_or_member {
                emit(1, 66, reference(R::Write), node, Some(node));
            }
        }
        K::ImportClause if ident => {
            emit(1, 51, skip, node, None);
        }
        K::ImportSpecifier | K::ExportSpecifier => {
            let import = p.kind == K::ImportSpecifier;
            if field == F::Name && wild {
                emit(1, if import { 52 } else { 55 }, skip, node, None);
            } else if field == F::Alias && wild {
                emit(1, if import { 53 } else { 56 }, skip, node, None);
            }
        }
        K::NamespaceImport | K::ImportRequireClause if ident => {
            emit(1, 54, skip, node, None);
        }
        K::NamespaceExport if wild => {
            emit(1, 57, skip, node, None);
        }
        K::NestedTypeIdentifier if ident => {
            emit(1, 59, skip, node, None);
        }
        K::TypeQuery if wild => {
            emit(1, 60, skip, node, None);
            if ident {
                emit(1, 67, reference(R::Type), p.node, Some(node));
            }
        }
        K::NestedIdentifier if ident => {
            emit(1, 61, skip, node, None);
        }
        K::PairPattern if field == F::Key && kind == K::PropertyIdentifier => {
            emit(1, 71, reference(R::Key), node, Some(node));
        }
        K::ObjectPattern if kind == K::ShorthandPropertyIdentifierPattern => {
            emit(1, 72, reference(R::Key), node, Some(node));
        }
        K::ObjectAssignmentPattern if field == F::Left && kind == K::ShorthandPropertyIdentifierPattern => {
            emit(1, 73, reference(R::Key), node, Some(node));
        }
        K::RequiredParameter if field == F::Pattern => {
            if ident {
                // A modifier, then the pattern.
                for (pattern, modifier) in [(74, K::AccessibilityModifier), (75, K::Readonly)] {
                    let after = kind_child(ids, p.node, modifier);
                    if after.is_some_and(|m| field_child(ids, p.node, F::Pattern, Some(m)).is_some_and(|c| c.id() == node.id())) {
                        emit(1, pattern, def(DefKind::Property), p.node, Some(node));
                    }
                }
                emit(1, 108, Capture::LocalDefinition, node, None);
            } else if matches!(kind, K::ObjectPattern | K::ArrayPattern | K::RestPattern) {
                emit(1, 110, Capture::LocalPattern, node, None);
            }
        }
        K::OptionalParameter if field == F::Pattern => {
            if ident {
                emit(1, 109, Capture::LocalDefinition, node, None);
            } else if matches!(kind, K::ObjectPattern | K::ArrayPattern) {
                emit(1, 111, Capture::LocalPattern, node, None);
            }
        }
        K::ReturnStatement if ident || matches!(kind, K::This | K::MemberExpression) => {
            emit(1, 81, Capture::ReturnCall, node, Some(node));
        }
        K::ForInStatement if field == F::Left => {
            if matches!(kind, K::ObjectPattern | K::ArrayPattern) {
                emit(1, 112, Capture::LocalPattern, node, None);
            } else if ident {
                emit(1, 117, Capture::LocalDefinition, node, None);
            }
        }
        K::FunctionExpression if field == F::Name && ident => {
            emit(1, 113, Capture::LocalDefinition, node, None);
        }
        K::ArrowFunction if field == F::Parameter && ident => {
            emit(1, 114, Capture::LocalDefinition, node, None);
        }
        K::CatchClause if field == F::Parameter => {
            if ident {
                emit(1, 115, Capture::LocalDefinition, node, None);
            } else if matches!(kind, K::ObjectPattern | K::ArrayPattern) {
                emit(1, 116, Capture::LocalPattern, node, None);
            }
        }
        K::TypeParameter if field == F::Name && kind == K::TypeIdentifier => {
            emit(1, 119, Capture::LocalDefinition, node, None);
        }
        K::JsxOpeningElement | K::JsxSelfClosingElement if field == F::Name && ident_or_member => {
            let pattern = if p.kind == K::JsxOpeningElement { 120 } else { 121 };
            emit(1, pattern, reference(R::Jsx), p.node, Some(node));
        }
        K::JsxClosingElement if field == F::Name && wild => {
            if ident_or_member {
                emit(1, 120, reference(R::Jsx), p.node, Some(node));
            }
            emit(1, 122, skip, node, None);
        }
        K::JsxAttribute if kind == K::PropertyIdentifier => {
            emit(1, 123, reference(R::Key), node, Some(node));
        }
        _ => {}
    }

    // Patterns of a grandparent, a parent and `n`.
    let Some(&g) = path.len().checked_sub(2).and_then(|i| path.get(i)) else { return };
    match p.kind {
        // `{ login(params) { … } }`: a method's key, as `{ login: (params) => … }`'s.
        K::MethodDefinition if field == F::Name && kind == K::PropertyIdentifier && g.kind == K::Object => {
            emit(2, 70, reference(R::Key), node, Some(node));
        }
        K::ExtendsClause if field == F::Value && wild && g.kind == K::ClassHeritage => {
            emit(2, 37, reference(R::Inherits), node, Some(node));
        }
        K::GenericType if field == F::Name && wild => {
            if g.kind == K::ImplementsClause {
                emit(2, 39, reference(R::Implements), node, Some(node));
            } else if g.kind == K::ExtendsTypeClause && p.field == F::Type {
                emit(2, 41, reference(R::Inherits), node, Some(node));
            }
        }
        // `var f = a || function () {}`
        K::BinaryExpression
            if field == F::Right
                && matches!(kind, K::FunctionExpression | K::ArrowFunction)
                && g.kind == K::VariableDeclarator
                && p.field == F::Value
                && field_child(ids, p.node, F::Right, None).is_some_and(|r| r.id() == node.id()) =>
        {
            if let Some(name) = follows(ids, g.node, F::Name, |k| k == K::Identifier, F::Value, p.node) {
                emit(2, 13, def(DefKind::Function), g.node, Some(name));
            }
        }
        // `this.x = …`, `C.x = …`
        K::MemberExpression
            if field == F::Property
                && kind == K::PropertyIdentifier
                && g.kind == K::AssignmentExpression
                && p.field == F::Left
                && field_child(ids, g.node, F::Left, None).is_some_and(|l| l.id() == p.node.id())
                && follows(ids, p.node, F::Object, |k| matches!(k, K::This | K::Identifier), F::Property, node).is_some() =>
        {
            emit(2, 28, def(DefKind::Property), g.node, Some(node));
        }
        K::AssignmentExpression if g.kind == K::ExpressionStatement => {
            if field == F::Right && matches!(kind, K::FunctionExpression | K::ArrowFunction | K::Class) {
                let left = field_child(ids, p.node, F::Left, None);
                let left = left.filter(|l| ids.kind(*l) == K::MemberExpression);
                let right = left.and_then(|l| field_child(ids, p.node, F::Right, Some(l)));
                if let Some(left) = left.filter(|_| right.is_some_and(|r| r.id() == node.id())) {
                    if kind == K::Class {
                        assignment_of_class(ids, src, left, &mut emit, node);
                    } else {
                        assignment_of_function(ids, src, left, &mut emit, p.node, node);
                    }
                }
            } else if field == F::Left && kind == K::MemberExpression && is_exports(text(src, node)) {
                emit(2, 84, Capture::ExportStatement, p.node, None);
            }
        }
        // `exports = module.exports = createApplication`: the outer assignment exports.
        K::AssignmentExpression
            if g.kind == K::AssignmentExpression
                && p.field == F::Right
                && field == F::Left
                && kind == K::MemberExpression
                && text(src, node) == b"module.exports"
                && path.len().checked_sub(3).and_then(|i| path.get(i)).is_some_and(|gg| gg.kind == K::ExpressionStatement)
                && field_child(ids, g.node, F::Left, None).is_some_and(|l| ids.kind(l) == K::Identifier && text(src, l) == b"exports") =>
        {
            emit(3, 91, Capture::ExportStatement, g.node, None);
        }
        K::NewExpression if field == F::Constructor && (ident_or_member || kind == K::This) && g.kind == K::ReturnStatement => {
            emit(2, 80, Capture::ReturnCall, p.node, Some(node));
        }
        K::CallExpression if field == F::Function && ident_or_member && g.kind == K::ReturnStatement => {
            emit(2, 80, Capture::ReturnCall, p.node, Some(node));
        }
        // `. (string)`: the first named child; `(string) .`: the last.
        K::Arguments
            if kind == K::String && p.field == F::Arguments && g.kind == K::CallExpression && p.node.named_child(0) == Some(node) =>
        {
            let function = field_child(ids, g.node, F::Function, None);
            let arguments = function.and_then(|f| field_child(ids, g.node, F::Arguments, Some(f)));
            if let Some(function) = function.filter(|_| arguments.is_some_and(|a| a.id() == p.node.id())) {
                let function_kind = ids.kind(function);
                if function_kind == K::Identifier && text(src, function) == b"require" && p.node.named_child_count() == 1 {
                    emit(2, 85, Capture::ImportRequire, g.node, None);
                } else if function_kind == K::Import {
                    emit(2, 86, Capture::ImportDynamic, g.node, None);
                }
            }
        }
        _ => {}
    }

    // Members of object types: three to five levels.
    if p.kind != K::PropertySignature || field != F::Name || kind != K::PropertyIdentifier {
        return;
    }
    let Some(&gg) = path.len().checked_sub(3).and_then(|i| path.get(i)) else { return };
    let property = def(DefKind::Property);
    if gg.kind == K::InterfaceDeclaration && g.field == F::Body && g.wild() {
        emit(3, 76, property, p.node, Some(node));
    }
    if g.kind != K::ObjectType {
        return;
    }
    if gg.kind == K::TypeAliasDeclaration && g.field == F::Value {
        emit(3, 77, property, p.node, Some(node));
    }
    if gg.kind != K::IntersectionType {
        return;
    }
    let Some(&g3) = path.len().checked_sub(4).and_then(|i| path.get(i)) else { return };
    if g3.kind == K::TypeAliasDeclaration && gg.field == F::Value {
        emit(4, 78, property, p.node, Some(node));
    }
    let Some(&g4) = path.len().checked_sub(5).and_then(|i| path.get(i)) else { return };
    if g3.kind == K::IntersectionType && g4.kind == K::TypeAliasDeclaration && g3.field == F::Value {
        emit(5, 79, property, p.node, Some(node));
    }
}

/// CommonJS assignments of a function, completed at the function (`right`): `left` is the
/// member expression assigned.
fn assignment_of_function<'t>(
    ids: &Ids,
    src: &[u8],
    left: Node<'t>,
    emit: &mut impl FnMut(u32, u16, Capture, Node<'t>, Option<Node<'t>>),
    assignment: Node<'t>,
    function: Node<'t>,
) {
    // `module.exports = function () {}`
    if text(src, left) == b"module.exports" {
        emit(2, 23, Capture::Definition(DefKind::Function), function, None);
    }
    let Some((object, property)) = member_parts(ids, left) else { return };
    match ids.kind(object) {
        // `exports.x = function () {}`
        K::Identifier if text(src, object) != b"module" => {
            emit(2, 24, Capture::Definition(DefKind::Function), assignment, Some(property));
        }
        K::MemberExpression => {
            // `module.exports.x = function () {}`
            if text(src, object) == b"module.exports" {
                emit(2, 25, Capture::Definition(DefKind::Function), assignment, Some(property));
            }
            // `F.prototype.m = function () {}`
            let prototype = member_parts(ids, object).filter(|(o, p)| ids.kind(*o) == K::Identifier && text(src, *p) == b"prototype");
            if prototype.is_some() {
                emit(2, 26, Capture::Definition(DefKind::Method), assignment, Some(property));
            }
        }
        // `this.m = function () {}`
        K::This => emit(2, 27, Capture::Definition(DefKind::Method), assignment, Some(property)),
        _ => {}
    }
}

/// CommonJS assignments of a class, completed at the class (`right`): `left` is the member
/// expression assigned.
fn assignment_of_class<'t>(
    ids: &Ids,
    src: &[u8],
    left: Node<'t>,
    emit: &mut impl FnMut(u32, u16, Capture, Node<'t>, Option<Node<'t>>),
    class: Node<'t>,
) {
    let def = Capture::Definition(DefKind::Class);
    // `module.exports = class Store {}`, `module.exports = class {}`
    if text(src, left) == b"module.exports" {
        match field_child(ids, class, F::Name, None).filter(|n| ids.kind(*n) == K::TypeIdentifier) {
            Some(name) => emit(2, 87, def, class, Some(name)),
            None => emit(2, 88, def, class, None),
        }
    }
    let Some((object, property)) = member_parts(ids, left) else { return };
    match ids.kind(object) {
        // `exports.X = class {}`
        K::Identifier if text(src, object) != b"module" => emit(2, 89, def, class, Some(property)),
        // `module.exports.X = class {}`
        K::MemberExpression if text(src, object) == b"module.exports" => emit(2, 90, def, class, Some(property)),
        _ => {}
    }
}

/// `#match? "^(module[.])?exports([.]|$)"`.
fn is_exports(text: &[u8]) -> bool {
    let rest = text.strip_prefix(b"module.").unwrap_or(text);
    let rest = rest.strip_prefix(b"exports").or_else(|| text.strip_prefix(b"exports"));
    rest.is_some_and(|r| r.is_empty() || r[0] == b'.')
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use tree_sitter::{Parser, QueryCursor};

    use super::super::{assert_walk_is_query, collect, repo};
    use super::{JSX_PATTERNS, PATTERNS, walk};
    use crate::lang::{Grammar, Lang, LanguageConfig};

    /// The TypeScript, TSX and JavaScript files under `dir`, with the grammar each is parsed with.
    fn script_files(dir: &Path, out: &mut Vec<(PathBuf, Grammar)>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() && !p.is_symlink() {
                script_files(&p, out);
            } else if let Some(lang) = p.to_str().and_then(Lang::from_path).filter(|l| l.is_script()) {
                out.push((p, lang.grammar()));
            }
        }
    }

    /// Compares the walk with the query on each file; returns how many were compared for each
    /// grammar (TypeScript, TSX).
    fn compare(files: &[(PathBuf, Grammar)]) -> (usize, usize) {
        let mut cursor = QueryCursor::new();
        let mut counts = (0, 0);
        for (path, grammar) in files {
            let config = LanguageConfig::get(*grammar);
            let tsx = *grammar == Grammar::Tsx;
            let patterns = PATTERNS + if tsx { JSX_PATTERNS } else { 0 };
            assert_eq!(config.query.pattern_count(), patterns, "the {grammar:?} query's patterns changed: update the walk");
            let mut parser = Parser::new();
            parser.set_language(&config.language).unwrap();
            let src = std::fs::read(path).unwrap();
            let tree = parser.parse(&src, None).unwrap();
            let query = collect(&mut cursor, config, tree.root_node(), &src);
            assert_walk_is_query(
                &format!("{} ({grammar:?})", path.display()),
                query,
                walk(tree.root_node(), &src, tsx, &mut crate::extract::captures::Room::default()),
            );
            if tsx {
                counts.1 += 1;
            } else {
                counts.0 += 1;
            }
        }
        counts
    }

    #[test]
    fn the_walk_captures_what_the_query_captures_on_every_fixture() {
        let mut files = Vec::new();
        for dir in ["grammars/typescript/test", "grammars/tsx/test", "grammars/javascript/test", "tests/fixtures"] {
            script_files(&repo().join(dir), &mut files);
        }
        let (ts, tsx) = compare(&files);
        assert!(ts > 450 && tsx > 150, "{ts} TypeScript and {tsx} TSX files compared");
    }

    /// Also the constructs no fixture has: every pattern of the query matches in these tests.
    #[test]
    fn the_walk_captures_what_the_query_captures_with_syntax_errors() {
        // Removed when dropped, also when a comparison fails.
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path();
        let sources = [
            "const a = { f() {}, g: () => 1, h: function () {}\nconst b = { x: y\nfunction f(: {\n  return new Foo(\n",
            "class C extends B implements I<T> {\n  constructor(private readonly s: S, public t) {}\n  m = () => \n  #p = function\n",
            "exportsX.a = 1;\nmodule.exportsY = 2;\nmodule.exports.z = 3;\nmodule.exports = function () {\nexports.a = () =>\nF.prototype.m = function () {};\nthis.x = \nconst r = require('x'\n",
            "interface I { a: number; b(: }\ntype T = A & { c: string } & { d\nenum E { A = 1, B\nnamespace N.M {\n",
            "import { a as b, c } from 'm'\nexport { d as e };\nexport default { a: 1\nfor (const [x, y] of z) {\n  x++; y += 1\n",
            "const o = {\n  a() {},\n  // c\n  b: function () {},\n  c: 1,\n}, p = { q: async () => {} };\nlet v = { ...w, m() { const z = { n: () => 0 }; } };\n",
            "const x = { a: () => 1 }\nconst y = { b() {} } /* c */\nconst z = { c: 1, d: () => 2 };\nlet q = {,\n",
            "module M {}\ninterface J extends B<T>, C.D<U> {}\nnamespace A.B.C {}\nnamespace P.Q {}\ntype U = { u: number } & B & C;\nconst g = function* () {};\nfunction o({ a }?: T, [b]?: U) {}\nlet e = (\n",
            "let t: typeof %a;\n@d(%) class C {}\nf(/* c */ 'a');\nrequire('a', %);\nimport(%'b');\nexport * as % from 'm'\n",
        ];
        let jsx = [
            "const A = () => <List items={x} onClick={() => f(}>\n  <Item.Row key={k} />\n</List\n",
            "function App() { return <div className=\"a\">{items.map(i => <X {...i} />)}</div>; }\nconst t = <T\n",
        ];
        let mut files = Vec::new();
        for (i, s) in sources.iter().chain(&jsx).enumerate() {
            for ext in ["ts", "tsx", "js"] {
                if i >= sources.len() && ext == "ts" {
                    continue;
                }
                let p = dir.join(format!("broken{i}.{ext}"));
                std::fs::write(&p, s).unwrap();
                let grammar = Lang::from_path(p.to_str().unwrap()).unwrap().grammar();
                files.push((p, grammar));
            }
        }
        let (ts, tsx) = compare(&files);
        assert_eq!((ts, tsx), (sources.len(), 2 * sources.len() + 2 * jsx.len()));
    }

    /// The corpora of `benches/results.py` and the oracles, when fetched (`cargo test --release
    /// -p ckg-core typescript::tests -- --ignored`).
    #[test]
    #[ignore]
    fn the_walk_captures_what_the_query_captures_on_the_corpora() {
        let mut files = Vec::new();
        script_files(&repo().join("corpora/cache"), &mut files);
        let (ts, tsx) = compare(&files);
        eprintln!("{} files compared: {ts} with the TypeScript grammar, {tsx} with the TSX grammar", ts + tsx);
    }
}
