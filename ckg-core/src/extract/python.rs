//! Python: what the queries cannot say — the shape of import statements, `__all__`, and
//! where a local variable's value came from.

use tree_sitter::Node;

use super::captures::preorder::named_children;
use super::syntax::{Parents, path_of, path_of_any_entry, position, text};
use crate::facts::{ExportFact, FileFacts, ImportFact, ImportKind, ValueSource};
use crate::field::{Field, Kind};

/// Turns an `import` / `from … import …` statement into one fact per bound name.
pub(super) fn imports(node: Node, src: &[u8], scope: u32, out: &mut Vec<ImportFact>) {
    let (type_only, alternative) = import_context(node, src);
    // Each binding sits where its name is written (`x` in `from m import x as y`), so `def`
    // on an imported name finds it; statement-wide facts sit at the statement.
    let fact = |kind, specifier: String, imported: Option<String>, local: Option<String>, at: Node| {
        let (line, col) = position(at);
        ImportFact { kind, specifier, imported, local, scope, type_only, alternative, line, col }
    };
    let mut cursor = node.walk();
    match node.kind_name() {
        "import_statement" => {
            for name in node.children_by_field_name("name", &mut cursor) {
                match name.kind_name() {
                    // `import a.b.c` binds `a`.
                    "dotted_name" => {
                        let spec = text(name, src).into_owned();
                        let local = spec.split('.').next().unwrap_or(&spec).to_string();
                        out.push(fact(ImportKind::Namespace, spec, None, Some(local), name));
                    }
                    "aliased_import" => {
                        let (Some(n), Some(a)) = (name.field("name"), name.field("alias")) else {
                            continue;
                        };
                        out.push(fact(ImportKind::Namespace, text(n, src).into_owned(), None, Some(text(a, src).into_owned()), n));
                    }
                    _ => {}
                }
            }
        }
        "import_from_statement" => {
            let Some(module) = node.field("module_name") else { return };
            let spec: String = text(module, src).chars().filter(|c| !c.is_whitespace()).collect();
            let mut any = false;
            for name in node.children_by_field_name("name", &mut cursor) {
                any = true;
                match name.kind_name() {
                    "dotted_name" => {
                        let n = text(name, src).into_owned();
                        out.push(fact(ImportKind::Named, spec.clone(), Some(n.clone()), Some(n), name));
                    }
                    "aliased_import" => {
                        let (Some(n), Some(a)) = (name.field("name"), name.field("alias")) else {
                            continue;
                        };
                        out.push(fact(
                            ImportKind::Named,
                            spec.clone(),
                            Some(text(n, src).into_owned()),
                            Some(text(a, src).into_owned()),
                            n,
                        ));
                    }
                    _ => {}
                }
            }
            if named_children(node).into_iter().any(|c| c.kind_name() == "wildcard_import") {
                out.push(fact(ImportKind::Star, spec, None, None, node));
            } else if !any {
                out.push(fact(ImportKind::SideEffect, spec, None, None, node));
            }
        }
        _ => {}
    }
}

/// Where an import statement sits, from one walk up its ancestors:
/// - under `if TYPE_CHECKING:` (type references only; looked for up to the enclosing function);
/// - in the body or a handler of the nearest `try` that catches a failed import (`except
///   ImportError`, `ModuleNotFoundError`, a bare `except`): the name it binds may instead be
///   bound by the other branch (looked for up to the enclosing function or class).
fn import_context(node: Node, src: &[u8]) -> (bool, bool) {
    let (mut type_only, mut alternative) = (false, false);
    let mut try_decided = false;
    let mut cur = node.parent();
    let mut steps = 0;
    while let Some(n) = cur {
        match n.kind_name() {
            "if_statement" if n.field("condition").is_some_and(|c| text(c, src).contains("TYPE_CHECKING")) => {
                type_only = true;
            }
            "try_statement" if !try_decided && steps < 6 => {
                alternative = named_children(n).into_iter().any(|h| h.kind_name() == "except_clause" && catches_import_error(h, src));
                try_decided = true;
            }
            "except_clause" if !try_decided && steps < 6 => {
                alternative = catches_import_error(n, src);
                try_decided = true;
            }
            "class_definition" => try_decided = true,
            _ => {}
        }
        if type_only && try_decided || n.kind_name() == "function_definition" || steps > 16 {
            break;
        }
        cur = n.parent();
        steps += 1;
    }
    (type_only, alternative)
}

fn catches_import_error(clause: Node, src: &[u8]) -> bool {
    let mut caught = named_children(clause).into_iter().filter(|n| n.kind_name() != "block" && n.kind_name() != "comment").peekable();
    if caught.peek().is_none() {
        return true; // a bare `except:`
    }
    caught.any(|n| {
        let t = text(n, src);
        ["ImportError", "ModuleNotFoundError", "Exception"].iter().any(|e| t.contains(e))
    })
}

/// The methods [`container_writes`] reads entries from.
const CONTAINER_METHODS: [&str; 5] = ["append", "insert", "setdefault", "extend", "update"];

/// Entries the statements of a block (a module or a function body) add to containers, in order:
/// `d["k"] = f`, `d.update({"k": f})` / `d.update(k=f)`, `d.setdefault("k", f)`,
/// `xs.append(f)`, `xs.extend([f, g])`, `xs.insert(0, f)`, `xs += [f]`. Each is (where its
/// statement starts, container, key — `None`: the next position of a list —, value).
pub(super) fn container_writes(root: Node, src: &[u8]) -> Vec<(usize, String, Option<String>, ValueSource)> {
    let mut out = Vec::new();
    for stmt in named_children(root).into_iter().filter(|n| n.kind_name() == "expression_statement") {
        let at = stmt.start_byte();
        let Some(e) = stmt.named_child(0) else { continue };
        match e.kind_name() {
            // The shape is checked a field at a time: most statements are plain assignments
            // and method calls, rejected by their first field.
            "assignment" => {
                let Some(left) = e.field("left").filter(|l| l.kind_name() == "subscript") else { continue };
                let Some(right) = e.field("right") else { continue };
                let Some(container) = left.field("value").filter(|v| v.kind_name() == "identifier") else { continue };
                let (Some(key), Some(value)) = (left.field("subscript").and_then(|k| literal_key(k, src)), expression_value(right, src, 0))
                else {
                    continue;
                };
                out.push((at, text(container, src).into_owned(), Some(key), value));
            }
            "augmented_assignment" => {
                let Some(left) = e.field("left").filter(|l| l.kind_name() == "identifier") else { continue };
                let Some(right) = e.field("right") else { continue };
                if right.kind_name() == "list" {
                    let name = text(left, src).into_owned();
                    out.extend(
                        named_children(right).into_iter().filter_map(|v| expression_value(v, src, 0)).map(|v| (at, name.clone(), None, v)),
                    );
                }
            }
            "call" => {
                let Some(f) = e.field("function").filter(|f| f.kind_name() == "attribute") else { continue };
                // Most calls made as statements are not a container's (`log.info(...)`): their
                // object and arguments are not read.
                let Some(method) = f.field("attribute") else { continue };
                let method = text(method, src);
                if !CONTAINER_METHODS.contains(&method.as_ref()) {
                    continue;
                }
                let Some(object) = f.field("object").filter(|o| o.kind_name() == "identifier") else { continue };
                let Some(args) = e.field("arguments") else { continue };
                let name = text(object, src).into_owned();
                let args: Vec<Node> = named_children(args).into_iter().filter(|a| a.kind_name() != "comment").collect();
                match (method.as_ref(), args.as_slice()) {
                    ("append", [v]) | ("insert", [_, v]) => out.extend(expression_value(*v, src, 0).map(|v| (at, name.clone(), None, v))),
                    ("setdefault", [k, v]) => {
                        if let (Some(k), Some(v)) = (literal_key(*k, src), expression_value(*v, src, 0)) {
                            out.push((at, name.clone(), Some(k), v));
                        }
                    }
                    ("extend" | "update", [v]) if matches!(v.kind_name(), "list" | "tuple" | "dictionary") => {
                        if let Some(ValueSource::Items(items)) = items(*v, src, 0) {
                            let list = v.kind_name() != "dictionary";
                            out.extend(items.into_iter().map(|(k, v)| (at, name.clone(), (!list).then_some(k), v)));
                        }
                    }
                    ("update", kwargs) => {
                        for a in kwargs.iter().filter(|a| a.kind_name() == "keyword_argument") {
                            let (Some(k), Some(v)) = (a.field("name"), a.field("value")) else { continue };
                            if let Some(v) = expression_value(v, src, 0) {
                                out.push((at, name.clone(), Some(text(k, src).into_owned()), v));
                            }
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether the `with` item or the iterable of a `for` is in an `async with` / `async for`
/// (the statement, or the comprehension's `for` clause, starts with `async`).
pub(super) fn is_async<'t>(parents: &Parents<'t>, node: Node<'t>) -> bool {
    let mut cur = parents.of(node);
    for _ in 0..4 {
        let Some(n) = cur else { return false };
        if matches!(n.kind_name(), "with_statement" | "for_statement" | "for_in_clause") {
            return n.child(0).is_some_and(|c| c.kind_name() == "async");
        }
        cur = parents.of(n);
    }
    false
}

/// The values of a dict or list literal by literal key or index, as value sources.
pub(super) fn items(node: Node, src: &[u8], depth: usize) -> Option<ValueSource> {
    if depth > 4 {
        return None;
    }
    let value = |v: Node| -> Option<ValueSource> {
        match v.kind_name() {
            "call" => path_of(v.field("function")?, src).map(|(p, _)| ValueSource::Call(p)),
            "identifier" | "attribute" => path_of(v, src).map(|(p, _)| ValueSource::Alias(p)),
            "dictionary" | "list" | "tuple" => items(v, src, depth + 1),
            _ => None,
        }
    };
    let mut out = Vec::new();
    for (i, child) in named_children(node).into_iter().enumerate() {
        if node.kind_name() == "dictionary" {
            if child.kind_name() != "pair" {
                continue;
            }
            let (Some(k), Some(v)) = (child.field("key"), child.field("value")) else { continue };
            let Some(key) = literal_key(k, src) else { continue };
            if let Some(v) = value(v) {
                out.push((key, v));
            }
        } else if let Some(v) = value(child) {
            out.push((i.to_string(), v));
        }
    }
    (!out.is_empty()).then_some(ValueSource::Items(out))
}

/// A literal dict key or list index usable as a path segment: `"create"`, `0`.
pub(super) fn literal_key(k: Node, src: &[u8]) -> Option<String> {
    let t = text(k, src);
    let key = match k.kind_name() {
        "string" => t.trim_matches(|c| c == '"' || c == '\''),
        "integer" => &t,
        _ => return None,
    };
    // Any key a written path can hold as a segment `[key]` (`"+"`, `"GET"`, `"on-close"`).
    let segment = |c: char| !(c.is_whitespace() || matches!(c, '.' | '[' | ']' | '(' | ')' | '*' | '"' | '\'' | '\\'));
    (!key.is_empty() && key.chars().all(segment)).then(|| key.to_string())
}

/// `__all__ = ["a", "b"]` makes exactly those names the module's star-export list.
pub(super) fn exports(node: Node, src: &[u8], facts: &mut FileFacts) {
    // The capture is the assignment (or a statement holding it).
    let Some(assign) = (if node.kind_name() == "assignment" { Some(node) } else { node.named_child(0) }) else { return };
    let Some(right) = assign.field("right") else { return };
    if !matches!(right.kind_name(), "list" | "tuple") {
        return;
    }
    for item in named_children(right) {
        if item.kind_name() != "string" {
            continue;
        }
        let content: String =
            named_children(item).into_iter().filter(|n| n.kind_name() == "string_content").map(|n| text(n, src).into_owned()).collect();
        if content.is_empty() {
            continue;
        }
        let (line, col) = position(item);
        facts.exports.push(ExportFact { name: content, target: None, specifier: None, line, col });
    }
    // With `__all__`, only the listed names are exported.
    let listed: crate::resolve::Set<&str> = facts.exports.iter().map(|e| e.name.as_str()).collect();
    for s in facts.symbols.iter_mut().skip(1) {
        if s.parent == Some(0) {
            s.exported = listed.contains(s.name.as_str());
        }
    }
}

/// Where the value of a name bound at `ident` came from: `x = Foo()`, `x = a.b`,
/// `x: Foo = …`, or a parameter annotation `def f(x: Foo)`.
pub(super) fn value_source<'t>(parents: &Parents<'t>, ident: Node<'t>, src: &[u8]) -> Option<ValueSource> {
    let parent = parents.of(ident)?;
    match parent.kind_name() {
        "assignment" if parent.field("left") == Some(ident) => {
            if let Some(v) = annotated_value(parent, src) {
                return Some(v);
            }
            assigned_value(parents, ident).and_then(|v| v.value(src))
        }
        // `for f in [a, b]`, `for f in handlers`: each element.
        "for_statement" | "for_in_clause" if parent.field("left") == Some(ident) => {
            let right = parent.field("right")?;
            let inner = match right.kind_name() {
                "list" | "tuple" => items(right, src, 0)?,
                "identifier" | "attribute" => ValueSource::Alias(path_of(right, src)?.0),
                // `for p in self.get_params()`: the elements of what the call returns.
                "call" => ValueSource::Call(path_of(right.field("function")?, src)?.0),
                _ => return None,
            };
            Some(ValueSource::Each(Box::new(inner)))
        }
        // `except ValidationError as err`, `with open(p) as f`. What an `except` clause binds
        // is an instance of the class it names or of any subclass, as an annotation says;
        // `except (A, B) as err`: of either.
        "as_pattern_target" => {
            let pattern = parents.of(parent)?;
            let value = pattern.named_child(0)?;
            let inside_except = parents.of(pattern).is_some_and(|p| p.kind_name() == "except_clause");
            let caught = |n: Node| match n.kind_name() {
                "identifier" | "attribute" => path_of(n, src).map(|(p, _)| ValueSource::Annotation(p)),
                _ => None,
            };
            match value.kind_name() {
                "identifier" | "attribute" if inside_except => caught(value),
                "tuple" if inside_except => {
                    let caught: Option<Vec<ValueSource>> = named_children(value).into_iter().map(caught).collect();
                    ValueSource::one_of(caught?)
                }
                "call" => path_of(value.field("function")?, src).map(|(p, _)| ValueSource::Call(p)),
                _ => None,
            }
        }
        // `a, (b, c) = f, (g, h)`, `first, *rest = f, g, h`: element-wise; `for name, fn in
        // [("a", f), ("b", g)]`: the element at the name's place of each item.
        "pattern_list" | "tuple_pattern" | "list_pattern" => match assigned_value(parents, ident) {
            Some(assigned) => assigned.value(src),
            None => loop_element(parents, ident, parent, src),
        },
        // `if (h := lookup()):`
        "named_expression" if parent.field("name") == Some(ident) => expression_value(parent.field("value")?, src, 0),
        // `x: Union[A, B]`, `x: A | B`: an instance of either. (Only a parameter: the declared
        // type of an attribute or a return is one class, a union's first.)
        "typed_parameter" | "typed_default_parameter" => {
            let t = parent.field("type")?;
            match union_members(t, src) {
                Some(members) => ValueSource::one_of(members.into_iter().map(ValueSource::Annotation)),
                // `cls: Type[Foo]`: `Foo` or a subclass of it (the callers may pass another).
                None => annotation_source(t, src).map(|v| if matches!(v, ValueSource::Alias(_)) { v.possibly() } else { v }),
            }
        }
        // `def run(cb=default)`: the default is one of the values (the callers may pass another).
        "default_parameter" if parent.field("name") == Some(ident) => expression_value(parent.field("value")?, src, 0)
            .filter(|v| !matches!(v, ValueSource::Alias(p) if p == "None"))
            .map(ValueSource::possibly),
        _ => None,
    }
}

/// What a name of an assignment's target is given.
enum Assigned<'t> {
    /// An expression: the right-hand side, or its element at the name's place.
    Expression(Node<'t>),
    /// The entry at an index of what an expression holds (`b` of `a, b = pair()`).
    Entry(Node<'t>, usize),
}

impl Assigned<'_> {
    fn value(self, src: &[u8]) -> Option<ValueSource> {
        match self {
            Assigned::Expression(v) => expression_value(v, src, 0),
            // `a, b = pair()`, `x, y = POINTS`: the entry at the name's place of what is
            // unpacked (`pair().[1]`), as `pair()[1]` is.
            Assigned::Entry(v, index) => match v.kind_name() {
                "identifier" | "attribute" | "call" => path_of(v, src).map(|(base, _)| ValueSource::Alias(format!("{base}.[{index}]"))),
                _ => None,
            },
        }
    }
}

/// The expression a name of an assignment's target is given: the right-hand side (past chained
/// targets: `a = b = f`), or its element at the name's place in a (nested, starred) tuple
/// target (`a, (b, c) = f, (g, h)`, `first, *rest, last = …`); unpacked from what is not a
/// literal (`a, b = pair()`), the entry at the name's place (not past a starred target).
fn assigned_value<'t>(parents: &Parents<'t>, ident: Node<'t>) -> Option<Assigned<'t>> {
    // From the name up to the assignment: (index, elements, index of a starred element).
    let mut places: Vec<(usize, usize, Option<usize>)> = Vec::new();
    let mut cur = ident;
    let assign = loop {
        let parent = parents.of(cur)?;
        match parent.kind_name() {
            "pattern_list" | "tuple_pattern" | "list_pattern" => {
                let elements: Vec<Node> = named_children(parent).into_iter().filter(|n| n.kind_name() != "comment").collect();
                let index = elements.iter().position(|n| n.id() == cur.id())?;
                let star = elements.iter().position(|n| n.kind_name() == "list_splat_pattern");
                places.push((index, elements.len(), star));
                cur = parent;
            }
            "assignment" if parent.field("left") == Some(cur) => break parent,
            _ => return None,
        }
        if places.len() > 8 {
            return None;
        }
    };
    let mut value = assign.field("right")?;
    while value.kind_name() == "assignment" {
        value = value.field("right")?;
    }
    for (depth, &(index, len, star)) in places.iter().rev().enumerate() {
        if !matches!(value.kind_name(), "expression_list" | "tuple" | "list") {
            // Only the last unpacking, and without a starred target before the name.
            return (depth + 1 == places.len() && star.is_none_or(|s| index < s)).then_some(Assigned::Entry(value, index));
        }
        let elements: Vec<Node> = named_children(value).into_iter().filter(|n| n.kind_name() != "comment").collect();
        if elements.iter().any(|n| n.kind_name() == "list_splat") {
            return None;
        }
        let at = match star {
            Some(s) if index == s => return None,
            Some(s) if index > s => (elements.len() + index).checked_sub(len)?,
            _ => index,
        };
        value = *elements.get(at)?;
    }
    Some(Assigned::Expression(value))
}

/// A name of a loop's tuple target over a literal list of tuples (`for name, fn in [("a", f),
/// ("b", g)]`): any of the items' elements at its place; over `enumerate(xs)` or `d.items()`,
/// see [`paired_element`].
fn loop_element<'t>(parents: &Parents<'t>, ident: Node<'t>, pattern: Node<'t>, src: &[u8]) -> Option<ValueSource> {
    let parent = parents.of(pattern)?;
    if !matches!(parent.kind_name(), "for_statement" | "for_in_clause") || parent.field("left") != Some(pattern) {
        return None;
    }
    let targets = named_children(pattern);
    let index = targets.iter().position(|n| n.id() == ident.id())?;
    let right = parent.field("right")?;
    if right.kind_name() == "call" {
        return (index == 1 && targets.len() == 2).then(|| paired_element(right, src)).flatten();
    }
    let right = Some(right).filter(|r| matches!(r.kind_name(), "list" | "tuple"))?;
    let values: Vec<ValueSource> = named_children(right)
        .into_iter()
        .filter(|item| matches!(item.kind_name(), "tuple" | "list"))
        .filter_map(|item| {
            let element = named_children(item).into_iter().filter(|n| n.kind_name() != "comment").nth(index)?;
            expression_value(element, src, 0)
        })
        .collect();
    ValueSource::one_of(values).map(ValueSource::possibly)
}

/// The second name of a loop's pair target over `enumerate(xs)` (each element of `xs`) or
/// `d.items()` (each value of `d`: the elements of `d.values()`).
fn paired_element(call: Node, src: &[u8]) -> Option<ValueSource> {
    let function = call.field("function")?;
    let args: Vec<Node> = named_children(call.field("arguments")?).into_iter().filter(|n| n.kind_name() != "comment").collect();
    let container = match (function.kind_name(), args.as_slice()) {
        ("identifier", [xs] | [xs, _]) if text(function, src) == "enumerate" => match xs.kind_name() {
            "identifier" | "attribute" => ValueSource::Alias(path_of(*xs, src)?.0),
            "call" => ValueSource::Call(path_of(xs.field("function")?, src)?.0),
            _ => return None,
        },
        ("attribute", []) if function.field("attribute").is_some_and(|a| text(a, src) == "items") => {
            ValueSource::Call(format!("{}.values", path_of(function.field("object")?, src)?.0))
        }
        _ => return None,
    };
    Some(ValueSource::Each(Box::new(container)))
}

/// Whether a subscript reads an entry: its one key reads as a value (a literal, a lower-case
/// name or attribute, a call, arithmetic), not as a type (`List[int]`, `Dict[str, Foo]`,
/// `StreamHandler[StringIO]`) nor a slice.
fn entry_key(subscript: Node, src: &[u8]) -> bool {
    let mut keys =
        (0..subscript.named_child_count()).filter_map(|i| subscript.named_child(i)).skip(1).filter(|n| n.kind_name() != "comment");
    let (Some(key), None) = (keys.next(), keys.next()) else { return false };
    // (A constant, `HANDLERS[MODE]`, `d[Color.RED]`, is a value too.)
    let lower_name = |n: Node| {
        let name = text(n, src);
        let constant = name.len() > 1 && name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
        constant
            || name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
                && !matches!(&*name, "str" | "int" | "float" | "bool" | "bytes" | "object" | "type" | "complex")
    };
    match key.kind_name() {
        "string" | "integer" | "call" | "binary_operator" | "unary_operator" => true,
        "identifier" => lower_name(key),
        "attribute" => key.field("attribute").is_some_and(lower_name),
        _ => false,
    }
}

/// The value an expression gives, as far as written: a call, a name or attribute, a literal
/// container, or either branch of `a if c else b` / `a or b` (a value that is one of several).
fn expression_value(value: Node, src: &[u8], depth: usize) -> Option<ValueSource> {
    match value.kind_name() {
        "call" => path_of(value.field("function")?, src).map(|(p, _)| ValueSource::Call(p)),
        "identifier" | "attribute" => path_of(value, src).map(|(p, _)| ValueSource::Alias(p)),
        // `first = items[0]`, `opt = self._opts[name]`: an entry (not a slice, a container, nor
        // a parametrized type: `Handler = StreamHandler[StringIO]`).
        "subscript" if entry_key(value, src) => path_of_any_entry(value, src).map(|(p, _)| ValueSource::Alias(p)),
        "dictionary" | "list" | "tuple" => items(value, src, 0),
        "parenthesized_expression" if depth < 4 => expression_value(value.named_child(0)?, src, depth + 1),
        "conditional_expression" | "boolean_operator" if depth < 4 => {
            let branches: Vec<Node> = if value.kind_name() == "boolean_operator" {
                vec![value.field("left")?, value.field("right")?]
            } else {
                // `body if condition else alternative`
                vec![value.named_child(0)?, value.named_child(2)?]
            };
            ValueSource::one_of(branches.into_iter().filter_map(|b| expression_value(b, src, depth + 1)))
        }
        _ => None,
    }
}

/// The value `typing.cast` returns in an assignment: an instance of the type it names
/// (`b = cast(Base, x)`, `cast("Base", x)`, `cast(List[Item], xs)`); the value cast itself when
/// the type says less (`cls = cast(Type[T], Command)`, `cast(Any, f)`).
pub(super) fn cast_type(assign: Node, src: &[u8]) -> Option<ValueSource> {
    let call = assign.field("right").filter(|r| r.kind_name() == "call")?;
    let args = named_children(call.field("arguments")?);
    let [ty, value] = args.as_slice() else { return None };
    let of_class = generic_parts(*ty, src).is_some_and(|(head, _)| matches!(head.as_str(), "Type" | "type"));
    match annotation_source(*ty, src) {
        Some(ValueSource::Annotation(a)) if !of_class && !says_nothing(&a) => Some(ValueSource::Annotation(a)),
        Some(v @ (ValueSource::Each(_) | ValueSource::Mapping(_))) => Some(v),
        _ => expression_value(*value, src, 0),
    }
}

/// The function a `functools.partial` in an assignment wraps (`h = partial(f, x)`: `f`), as far
/// as it is a name, a member or a call result: what calling the result calls.
pub(super) fn partial_function(assign: Node, src: &[u8]) -> Option<ValueSource> {
    let call = assign.field("right").filter(|r| r.kind_name() == "call")?;
    let first = named_children(call.field("arguments")?).into_iter().next().filter(|a| a.kind_name() != "keyword_argument")?;
    expression_value(first, src, 0)
}

/// A function's return annotation (`-> User`).
pub(super) fn declared_type(node: Node, src: &[u8]) -> Option<ValueSource> {
    match node.kind_name() {
        // (A returned mapping's entries are not followed: its returned literal says more.)
        "function_definition" => {
            let t = node.field("return_type")?;
            // `-> Tuple[Reader, Writer]`: what each place holds (`r, w = f()`, `f()[0]`).
            if let Some(items) = tuple_items(t, src) {
                return Some(items);
            }
            annotation_source(t, src).filter(|v| !matches!(v, ValueSource::Mapping(_)))
        }
        // An attribute: `self.x: Foo = ...`, `self.x = Foo()`, `x: Foo` in a class body.
        "assignment" => {
            if node.field("type").is_some() {
                return annotated_value(node, src);
            }
            attribute_call(node.field("right")?, src, 0)
        }
        _ => None,
    }
}

/// The call an attribute is given: `self.x = Foo()`; also the one call of a default written
/// beside another value, `self.session = session or Session()`, `Session() if s is None
/// else s` (what goes through an attribute is `inferred` either way).
fn attribute_call(right: Node, src: &[u8], depth: usize) -> Option<ValueSource> {
    match right.kind_name() {
        "call" => path_of(right.field("function")?, src).map(|(p, _)| ValueSource::Call(p)),
        "parenthesized_expression" if depth < 4 => attribute_call(right.named_child(0)?, src, depth + 1),
        "boolean_operator" | "conditional_expression" if depth < 4 => {
            let branches = if right.kind_name() == "boolean_operator" {
                [right.field("left")?, right.field("right")?]
            } else {
                [right.named_child(0)?, right.named_child(2)?]
            };
            // The other value passed through as it is (a name, a member, `None`), not one of
            // another kind (`cast(…, sorted) if sort else (lambda x: x)`).
            let passed = |b: Node| matches!(b.kind_name(), "identifier" | "attribute" | "none");
            super::values::made_beside_passed(branches, |b| attribute_call(b, src, depth + 1), passed)
        }
        _ => None,
    }
}

/// A tuple type of fixed places (`Tuple[A, B]`; not `tuple[A, ...]`) as the entries at its
/// places, each an instance of its class. Not when a place is a union (`Tuple[A | B, str]`):
/// an entry of the resolver's is one value, and the function's returned literal, if any, is
/// read instead.
fn tuple_items(t: Node, src: &[u8]) -> Option<ValueSource> {
    let (head, args) = generic_parts(t, src)?;
    if !matches!(head.as_str(), "Tuple" | "tuple") || args.iter().any(|a| text(*a, src).trim() == "...") {
        return None;
    }
    if args.iter().any(|a| union_members(*a, src).is_some()) {
        return None;
    }
    let items: Vec<(String, ValueSource)> =
        args.iter().enumerate().filter_map(|(i, a)| Some((i.to_string(), annotation_source(*a, src)?))).collect();
    (!items.is_empty()).then_some(ValueSource::Items(items))
}

/// What an annotated assignment (`x: Foo = …`) binds: what its annotation says, unless the
/// annotation is a mapping and the value a literal with entries or a name, which say more
/// (`HANDLERS: Dict[str, Handler] = {"a": on_a}`, `env: Mapping[str, str] = os.environ`; not
/// `{}` nor `dict()`); a `TypeAlias` annotation says the name is a type, not one of its values:
/// what is assigned.
fn annotated_value(assign: Node, src: &[u8]) -> Option<ValueSource> {
    let t = assign.field("type")?;
    let assigned = || assign.field("right").and_then(|r| expression_value(r, src, 0));
    match annotation_source(t, src) {
        // (A bare `Final` or `ClassVar` says no type either: `self._scope: Final = scope`.)
        Some(ValueSource::Annotation(a)) if matches!(a.rsplit('.').next(), Some("TypeAlias" | "Final" | "ClassVar")) => assigned(),
        Some(mapping @ ValueSource::Mapping(_)) => match assigned() {
            Some(v @ (ValueSource::Items(_) | ValueSource::Alias(_))) => Some(v),
            _ => Some(mapping),
        },
        // `handler: Type[Base] = Special`: the class assigned says more than its bound.
        Some(class @ ValueSource::Alias(_)) => assigned().or(Some(class)),
        v => v,
    }
}

/// What an annotation says a function returns or a name holds: an instance of a class
/// (`Foo`, `Optional[Foo]`), a container of them (`List[Foo]`, `Iterator["Foo"]`,
/// `tuple[Foo, ...]`: `each:type:Foo`), whose elements a loop over it binds, or the class
/// itself (`Type[Foo]`: `alias:Foo`).
pub(super) fn annotation_source(t: Node, src: &[u8]) -> Option<ValueSource> {
    // `Type[Foo]`: the class itself, whose call makes an instance.
    if let Some(class) = class_of_type(t, src) {
        return Some(ValueSource::Alias(class));
    }
    if let Some(element) = container_element(t, src) {
        return Some(ValueSource::Each(Box::new(ValueSource::Annotation(element))));
    }
    if let Some(value) = mapping_value(t, src) {
        return Some(ValueSource::Mapping(Box::new(ValueSource::Annotation(value))));
    }
    annotation_path(t, src).map(ValueSource::Annotation)
}

/// The class a class-valued annotation names: `Type[Foo]`, `type[Foo]`, also inside
/// `Optional[…]`, `Final[…]` and `Annotated[…]` (the name holds the class, not an instance of
/// it). (`Type[T]` with a type variable `T`: the resolver finds no class through it.)
fn class_of_type(t: Node, src: &[u8]) -> Option<String> {
    let (head, args) = generic_parts(t, src)?;
    match (head.as_str(), args.as_slice()) {
        ("Optional" | "Final" | "Annotated", [first, ..]) => class_of_type(*first, src),
        ("Type" | "type", [class]) => annotation_path(*class, src).filter(|c| !says_nothing(c)),
        _ => None,
    }
}

/// The value type of a mapping annotation (`Dict[str, Item]`, `Mapping[str, "Item"]`,
/// `Optional[dict[str, Item]]`): what an entry `d[k]` holds.
fn mapping_value(t: Node, src: &[u8]) -> Option<String> {
    const MAPPINGS: &[&str] =
        &["Dict", "dict", "Mapping", "MutableMapping", "DefaultDict", "defaultdict", "OrderedDict", "ChainMap", "WeakValueDictionary"];
    let (head, args) = generic_parts(t, src)?;
    match head.as_str() {
        "Optional" | "Final" | "Annotated" => mapping_value(*args.first()?, src),
        h if MAPPINGS.contains(&h) && args.len() == 2 => annotation_path(args[1], src).filter(|v| !says_nothing(v)),
        _ => None,
    }
}

/// `typing`'s (and `collections.abc`'s) generic forms, by name: an annotation `Form[…]` names
/// no instance of a class of the code's.
const TYPING_FORMS: &[&str] = &[
    "AbstractSet",
    "AnyStr",
    "AsyncContextManager",
    "AsyncGenerator",
    "AsyncIterable",
    "AsyncIterator",
    "Awaitable",
    "Callable",
    "ChainMap",
    "ClassVar",
    "Collection",
    "Concatenate",
    "Container",
    "ContextManager",
    "Coroutine",
    "Counter",
    "DefaultDict",
    "Deque",
    "Dict",
    "Final",
    "FrozenSet",
    "Generator",
    "Generic",
    "IO",
    "ItemsView",
    "Iterable",
    "Iterator",
    "KeysView",
    "List",
    "Literal",
    "LiteralString",
    "Mapping",
    "MappingView",
    "Match",
    "MutableMapping",
    "MutableSequence",
    "MutableSet",
    "NotRequired",
    "OrderedDict",
    "ParamSpec",
    "Pattern",
    "Protocol",
    "ReadOnly",
    "Required",
    "Reversible",
    "Sequence",
    "Set",
    "Tuple",
    "Type",
    "TypeGuard",
    "TypeIs",
    "Unpack",
    "ValuesView",
];

/// A type any value has (`Any`, `object`), or one of no class (`Callable`, `Type`): as an
/// element type, it says nothing the resolver follows.
fn says_nothing(ty: &str) -> bool {
    let ty = ty.rsplit('.').next().unwrap_or(ty);
    matches!(ty, "Any" | "object" | "Callable" | "Type" | "type" | "Hashable")
}

/// A generic annotation's name, without its module (`t.Dict[str, Item]`: `Dict`), and its
/// arguments (`str`, `Item`), however the grammar groups them; `None` alternatives left out.
fn generic_parts<'t>(t: Node<'t>, src: &[u8]) -> Option<(String, Vec<Node<'t>>)> {
    let inner = without_none(t)?;
    if !matches!(inner.kind_name(), "generic_type" | "subscript") {
        return None;
    }
    let head = text(inner.named_child(0)?, src);
    let head = head.rsplit('.').next().unwrap_or(&head).to_string();
    Some((head, type_arguments(inner)))
}

/// The arguments of a generic annotation, however the grammar groups them.
fn type_arguments(generic: Node) -> Vec<Node> {
    named_children(generic)
        .into_iter()
        .skip(1)
        .flat_map(|a| {
            if a.kind_name() == "type_parameter" {
                (0..a.named_child_count()).filter_map(|i| a.named_child(i)).collect::<Vec<_>>()
            } else {
                vec![a]
            }
        })
        .collect()
}

/// The element type of a homogeneous container annotation.
fn container_element(t: Node, src: &[u8]) -> Option<String> {
    const CONTAINERS: &[&str] = &[
        "List",
        "list",
        "Sequence",
        "MutableSequence",
        "Iterable",
        "Iterator",
        "Collection",
        "Set",
        "set",
        "FrozenSet",
        "frozenset",
        "AbstractSet",
        "MutableSet",
        "Generator",
        "AsyncIterator",
        "AsyncIterable",
        "AsyncGenerator",
        "Deque",
        "deque",
        "Tuple",
        "tuple",
    ];
    let (head, args) = generic_parts(t, src)?;
    let first = *args.first()?;
    match head.as_str() {
        "Optional" | "Final" | "Annotated" => container_element(first, src),
        // `tuple[Foo, ...]` only: other tuples hold different types by position.
        "Tuple" | "tuple" if !(args.len() == 2 && text(args[1], src).trim() == "...") => None,
        h if CONTAINERS.contains(&h) => annotation_path(first, src).filter(|e| !says_nothing(e)),
        _ => None,
    }
}

/// An annotation without its `None` alternative: `Foo | None` and `None | Foo` (PEP 604) are
/// `Foo` (as `Optional[Foo]` is); other annotations as they are, the `type` node unwrapped.
fn without_none(t: Node) -> Option<Node> {
    fn unwrap(n: Node) -> Option<Node> {
        if n.kind_name() == "type" { n.named_child(0) } else { Some(n) }
    }
    let mut inner = unwrap(t)?;
    loop {
        // `Foo | None` is a `binary_operator` of two expressions; `List[Foo] | None` a
        // `union_type` of types.
        let sides = match inner.kind_name() {
            "binary_operator" if inner.field("operator").is_some_and(|o| o.kind_name() == "|") => {
                [inner.field("left")?, inner.field("right")?]
            }
            "union_type" if inner.named_child_count() == 2 => [unwrap(inner.named_child(0)?)?, unwrap(inner.named_child(1)?)?],
            _ => return Some(inner),
        };
        inner = match (sides[0].kind_name(), sides[1].kind_name()) {
            (_, "none") => sides[0],
            ("none", _) => sides[1],
            _ => return Some(inner),
        };
    }
}

/// The classes a union of two or more of them names (`Union[A, B]`, `Optional[Union[A, B]]`,
/// `A | B | None`, `"A | B"`, `Union["A", "B"]`), `None` left out; none when one of them is not
/// a plain class (`Union[List[A], B]`, `Any`): such a union is read as it was, by its first
/// member.
fn union_members(t: Node, src: &[u8]) -> Option<Vec<String>> {
    let mut members: Vec<String> = Vec::new();
    // The names the node at hand gives, before they join `members` (each once).
    let mut named: Vec<String> = Vec::new();
    let mut stack = vec![without_none(t)?];
    while let Some(n) = stack.pop() {
        if members.len() + stack.len() > 16 {
            return None;
        }
        let n = if n.kind_name() == "type" { n.named_child(0)? } else { n };
        match n.kind_name() {
            "binary_operator" if n.field("operator").is_some_and(|o| o.kind_name() == "|") => {
                stack.extend([n.field("right")?, n.field("left")?]);
            }
            "union_type" => stack.extend(named_children(n).into_iter().rev()),
            "generic_type" | "subscript" => {
                let (head, args) = generic_parts(n, src)?;
                match head.as_str() {
                    "Union" => stack.extend(args.into_iter().rev()),
                    "Optional" if args.len() == 1 => stack.push(args[0]),
                    _ => return None,
                }
            }
            "string" => named.extend(quoted_names(&text(n, src))?.into_iter().map(str::to_string)),
            "identifier" | "attribute" => named.push(path_of(n, src)?.0),
            "none" => {}
            _ => return None,
        }
        for name in named.drain(..) {
            if says_nothing(&name) {
                return None;
            }
            if !members.contains(&name) {
                members.push(name);
            }
        }
    }
    (members.len() >= 2).then_some(members)
}

/// The classes a quoted annotation names (`"Foo"`, `"Foo | None"`, `"A | B"`), `None` left
/// out; none when one of them is not a plain dotted name.
fn quoted_names(quoted: &str) -> Option<Vec<&str>> {
    let s = quoted.trim_matches(|c| c == '"' || c == '\'');
    let names: Vec<&str> = s.split('|').map(str::trim).filter(|t| *t != "None").collect();
    names.iter().all(|n| !n.is_empty() && n.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.')).then_some(names)
}

fn annotation_path(t: Node, src: &[u8]) -> Option<String> {
    let inner = without_none(t)?;
    match inner.kind_name() {
        "identifier" | "attribute" => path_of(inner, src).map(|(p, _)| p),
        // `Optional[Foo]`, `Union[Foo, None]`: the first argument. A class of the code's own
        // made generic (`MultiCapture[str]`, `Queue[Job]`): an instance of that class; not a
        // form of `typing`'s (`Callable[…]`, `Literal[…]`, `Iterator[Foo]`), which names no
        // class of its own.
        "generic_type" | "subscript" => {
            let head = inner.named_child(0)?;
            let name = text(head, src);
            let bare = name.rsplit('.').next().unwrap_or(&name);
            if !matches!(bare, "Optional" | "Union" | "Final" | "Annotated" | "ClassVar") {
                let typing = name.starts_with("typing.") || name.starts_with("t.") || name.starts_with("collections.");
                let own_class = bare.starts_with(|c: char| c.is_ascii_uppercase()) && !typing && !TYPING_FORMS.contains(&bare);
                return own_class.then(|| path_of(head, src).map(|(p, _)| p)).flatten();
            }
            let arg = inner.named_child(1)?;
            let arg = if arg.kind_name() == "type_parameter" { arg.named_child(0)? } else { arg };
            annotation_path(arg, src)
        }
        "string" => {
            // A forward reference: "Foo", "Foo | None".
            let s = text(inner, src);
            match quoted_names(&s)?.as_slice() {
                [name] => Some(name.to_string()),
                _ => None,
            }
        }
        _ => None,
    }
}

/// When `ident` names a parameter of the `def` node `func`: the parameter's position among
/// positional arguments (`None` after `*` / `*args`: keyword-only), and 1 for `*args`, 2 for
/// `**kwargs`, 0 otherwise. Looks down from the function (no parent lookups).
pub(super) fn parameter_of(func: Node, ident: Node) -> Option<(Option<u32>, u8)> {
    let params = func.field("parameters")?;
    if !params.byte_range().contains(&ident.start_byte()) {
        return None;
    }
    let splat_kind = |n: Node| -> u8 {
        let inner = if n.kind_name() == "typed_parameter" { n.named_child(0).unwrap_or(n) } else { n };
        match inner.kind_name() {
            "list_splat_pattern" => 1,
            "dictionary_splat_pattern" => 2,
            _ => 0,
        }
    };
    let mut index = 0u32;
    let mut keyword_only = false;
    for p in named_children(params) {
        let name = match p.kind_name() {
            "identifier" => Some(p),
            "default_parameter" | "typed_default_parameter" => p.field("name"),
            "typed_parameter" | "list_splat_pattern" | "dictionary_splat_pattern" => p.named_child(0),
            _ => None,
        };
        if name.is_some_and(|n| n.id() == ident.id()) {
            let splat = splat_kind(p);
            return Some(((!keyword_only && splat == 0).then_some(index), splat));
        }
        match p.kind_name() {
            "keyword_separator" => keyword_only = true,
            "positional_separator" | "comment" => {}
            _ if splat_kind(p) == 1 => keyword_only = true,
            _ => index += 1,
        }
    }
    None
}

/// A `@staticmethod` (its first parameter is passed by the call).
pub(super) fn is_static<'t>(parents: &Parents<'t>, func: Node<'t>, src: &[u8]) -> bool {
    has_decorator(parents, func, src, "@staticmethod")
}

/// Whether a `def` is decorated with exactly `decorator` (`@classmethod`).
pub(super) fn has_decorator<'t>(parents: &Parents<'t>, func: Node<'t>, src: &[u8], decorator: &str) -> bool {
    let Some(decorated) = parents.of(func).filter(|p| p.kind_name() == "decorated_definition") else { return false };
    named_children(decorated).into_iter().any(|d| d.kind_name() == "decorator" && text(d, src).trim() == decorator)
}

/// Whether a path takes a value out of a container (`kwargs.[cb]`, `kwargs.get()`,
/// `kwargs.pop`), rather than calling one of the container's own methods (`kwargs.items`).
pub(super) fn takes_from_container(path: &str) -> bool {
    path.split('.').skip(1).any(|s| s.starts_with('[') || matches!(s, "get()" | "pop()" | "setdefault()"))
}

/// The member `setattr(obj, "name", value)` rebinds, as a path (`obj.name`).
pub(super) fn setattr_path(call: Node, src: &[u8]) -> Option<String> {
    let args = call.field("arguments")?;
    let obj = path_of(args.named_child(0)?, src)?.0;
    let name = literal_key(args.named_child(1)?, src)?;
    Some(format!("{obj}.{name}"))
}

/// The method each arithmetic operator runs on its (left) operand, by the operator's node kind.
static OPERATOR_METHODS: [(&str, &str, &str); 16] = [
    ("binary_operator", "+", "__add__"),
    ("binary_operator", "-", "__sub__"),
    ("binary_operator", "*", "__mul__"),
    ("binary_operator", "@", "__matmul__"),
    ("binary_operator", "/", "__truediv__"),
    ("binary_operator", "//", "__floordiv__"),
    ("binary_operator", "%", "__mod__"),
    ("binary_operator", "**", "__pow__"),
    ("binary_operator", "<<", "__lshift__"),
    ("binary_operator", ">>", "__rshift__"),
    ("binary_operator", "&", "__and__"),
    ("binary_operator", "|", "__or__"),
    ("binary_operator", "^", "__xor__"),
    ("unary_operator", "-", "__neg__"),
    ("unary_operator", "+", "__pos__"),
    ("unary_operator", "~", "__invert__"),
];

/// [`OPERATOR_METHODS`]' method for the `operator` of a node of `kind`.
fn operator_method(kind: &str, node: Node, src: &[u8]) -> &'static [&'static str] {
    let Some(op) = node.field("operator") else { return &[] };
    let op = text(op, src);
    OPERATOR_METHODS.iter().find(|(k, o, _)| *k == kind && *o == op).map_or(&[], |(_, _, method)| std::slice::from_ref(method))
}

/// The methods a Python operator runs on the operand `node`: its left operand's `a + b`
/// (`__add__`), `a == b` (`__eq__`), `-a` (`__neg__`), a subscripted value's `a[k]`
/// (`__getitem__`; `__setitem__` assigned — also in a tuple of targets —, both for `a[k] += 1`,
/// `__delitem__` deleted), and the container of `k in a` (`__contains__`). Comparisons of two
/// operands only.
pub(super) fn operator_methods<'t>(parents: &Parents<'t>, node: Node<'t>, src: &[u8]) -> &'static [&'static str] {
    let Some(parent) = parents.of(node) else { return &[] };
    match parent.kind_name() {
        "binary_operator" if parent.field("left") == Some(node) => operator_method("binary_operator", parent, src),
        "unary_operator" if parent.field("argument") == Some(node) => operator_method("unary_operator", parent, src),
        "comparison_operator" if parent.named_child_count() == 2 => {
            let Some(op) = parent.field("operators") else { return &[] };
            let first = parent.named_child(0) == Some(node);
            let op = text(op, src);
            let mut words = op.split_whitespace();
            let op = match (words.next(), words.next(), words.next()) {
                (Some(a), None, _) => a,
                (Some("not"), Some("in"), None) => "not in",
                _ => return &[],
            };
            match (op, first) {
                ("==", true) => &["__eq__"],
                ("!=", true) => &["__ne__"],
                ("<", true) => &["__lt__"],
                ("<=", true) => &["__le__"],
                (">", true) => &["__gt__"],
                (">=", true) => &["__ge__"],
                ("in" | "not in", false) => &["__contains__"],
                _ => &[],
            }
        }
        "subscript" if parent.field("value") == Some(node) => {
            // Up through the tuples and parentheses a target may sit in (`a[k], b = …`,
            // `del a[k], b[j]`) to the statement.
            let mut target = parent;
            let mut holder = parents.of(parent);
            while let Some(h) = holder.filter(|h| {
                matches!(h.kind_name(), "expression_list" | "pattern_list" | "tuple_pattern" | "tuple" | "parenthesized_expression")
            }) {
                target = h;
                holder = parents.of(h);
            }
            match holder.map(|h| (h.kind_name(), h.field("left") == Some(target))) {
                Some(("assignment", true)) | Some(("for_statement", true)) => &["__setitem__"],
                Some(("augmented_assignment", true)) => &["__getitem__", "__setitem__"],
                Some(("delete_statement", _)) => &["__delitem__"],
                _ => &["__getitem__"],
            }
        }
        _ => &[],
    }
}
