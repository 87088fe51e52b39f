//! JSDoc types in JavaScript files: `/** @param {Store} store */` above a function declares
//! what its parameter `store` holds, as `(store: Store)` does in TypeScript. A type written
//! `import('./store').Store` names a member of a module, read through the module that
//! `require('./store')` would bind ([`typescript::require_name`]); the caller records that
//! type-only import.

use tree_sitter::Node;

use super::captures::preorder::named_children;
use super::syntax::{Parents, text};
use super::typescript;
use crate::facts::ValueSource;
use crate::field::{Field, Kind};

/// Names of JSDoc types that hold no class worth following: primitives, `Object`, `any`.
const UNTYPED: &[&str] = &[
    "*",
    "?",
    "any",
    "unknown",
    "never",
    "void",
    "null",
    "undefined",
    "string",
    "String",
    "number",
    "Number",
    "boolean",
    "Boolean",
    "bigint",
    "symbol",
    "object",
    "Object",
    "function",
    "Function",
    "this",
];

/// The value a parameter's JSDoc type gives, with the module an `import('m')` type names (its
/// specifier); `None` when `ident` is no parameter of a documented function, or its type is
/// none to follow (a primitive, `Object`, a union of two classes, a record literal).
pub(super) fn param_value<'t>(p: &Parents<'t>, ident: Node<'t>, src: &[u8]) -> Option<(ValueSource, Option<String>)> {
    let param = p.of(ident).filter(|n| matches!(n.kind_name(), "required_parameter" | "optional_parameter"))?;
    if param.field("pattern").is_none_or(|n| n.id() != ident.id()) || param.field("type").is_some() {
        return None;
    }
    let function = p.of(p.of(param).filter(|n| n.kind_name() == "formal_parameters")?)?;
    let doc = doc_of(p, function, src)?;
    type_value(param_type(&doc, &text(ident, src))?)
}

/// The `/** … */` comment written just before the function: before its declaration, or before
/// the declaration, assignment, property or export it is the value of.
fn doc_of<'t>(p: &Parents<'t>, function: Node<'t>, src: &[u8]) -> Option<String> {
    let mut node = function;
    for _ in 0..4 {
        let parent = p.of(node)?;
        match parent.kind_name() {
            "variable_declarator"
            | "lexical_declaration"
            | "variable_declaration"
            | "export_statement"
            | "assignment_expression"
            | "expression_statement"
            | "pair"
            | "public_field_definition" => node = parent,
            _ => break,
        }
    }
    let parent = p.of(node)?;
    let siblings: Vec<Node> = named_children(parent).into_iter().collect();
    let at = siblings.iter().position(|s| s.id() == node.id())?;
    let comment = *siblings.get(at.checked_sub(1)?)?;
    let doc = text(comment, src);
    // Only blank space between the comment and what it documents.
    let between = src.get(comment.end_byte()..node.start_byte())?;
    (comment.kind_name() == "comment" && doc.starts_with("/**") && between.iter().all(u8::is_ascii_whitespace)).then(|| doc.into_owned())
}

/// The type `@param {T} name` gives `name` (also `[name]`, `[name=default]`, `@arg`,
/// `@argument`).
fn param_type<'d>(doc: &'d str, name: &str) -> Option<&'d str> {
    let mut rest = doc;
    while let Some(at) = rest.find('@') {
        rest = &rest[at + 1..];
        let tag_end = rest.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(rest.len());
        if !matches!(&rest[..tag_end], "param" | "arg" | "argument") {
            continue;
        }
        let after = rest[tag_end..].trim_start();
        let Some(body) = after.strip_prefix('{') else { continue };
        let Some(close) = matching_brace(body) else { continue };
        let ty = &body[..close];
        let named = body[close + 1..].trim_start();
        let word_end = named.find(|c: char| c.is_whitespace()).unwrap_or(named.len());
        let word = &named[..word_end];
        let word = word.strip_prefix('[').map_or(word, |w| w.split(['=', ']']).next().unwrap_or(w));
        if word == name {
            return Some(ty);
        }
    }
    None
}

/// The index of the `}` that closes a type whose `{` came just before `body`.
fn matching_brace(body: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in body.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => return Some(i),
            '}' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// The value a JSDoc type gives (see [`param_value`]).
fn type_value(ty: &str) -> Option<(ValueSource, Option<String>)> {
    let ty = ty.trim().trim_start_matches(['?', '!']).trim_end_matches('=').trim();
    // `Store|null`: the one class of the union.
    let members: Vec<&str> =
        split_top(ty, '|').into_iter().map(str::trim).filter(|m| !matches!(*m, "null" | "undefined" | "void")).collect();
    let [ty] = members.as_slice() else { return None };
    let ty = ty.strip_prefix('(').and_then(|t| t.strip_suffix(')')).map_or(*ty, str::trim);
    if let Some(element) = ty.strip_suffix("[]") {
        let (path, spec) = type_path(element)?;
        return Some((ValueSource::Each(Box::new(ValueSource::Annotation(path))), spec));
    }
    if let Some(args) = ty.strip_suffix('>').and_then(|t| t.split_once('<')) {
        let (name, args) = (args.0.trim().trim_end_matches('.'), split_top(args.1, ','));
        return match (name, args.as_slice()) {
            ("Array", [element]) => {
                let (path, spec) = type_path(element.trim())?;
                Some((ValueSource::Each(Box::new(ValueSource::Annotation(path))), spec))
            }
            ("Object" | "Record", [_, value]) => {
                let (path, spec) = type_path(value.trim())?;
                Some((ValueSource::Mapping(Box::new(ValueSource::Annotation(path))), spec))
            }
            _ => type_path(name).map(|(path, spec)| (ValueSource::Annotation(path), spec)),
        };
    }
    type_path(ty).map(|(path, spec)| (ValueSource::Annotation(path), spec))
}

/// A class's written path (`Store`, `db.Store`, `import('./db').Store`), rooted at the module
/// an `import()` names, with that module's specifier; `None` for an untyped name or anything
/// that is not a path.
fn type_path(ty: &str) -> Option<(String, Option<String>)> {
    let (root, rest, spec) = match ty.strip_prefix("import(") {
        Some(call) => {
            let (arg, rest) = call.split_once(')')?;
            let spec = arg.trim().trim_matches(|c| c == '\'' || c == '"' || c == '`');
            (typescript::require_name(spec), rest, Some(spec.to_string()))
        }
        None => {
            let end = ty.find('.').unwrap_or(ty.len());
            (ty[..end].to_string(), &ty[end..], None)
        }
    };
    let segments: Vec<&str> = rest.split('.').skip(1).collect();
    if rest.is_empty() && spec.is_none() && UNTYPED.contains(&root.as_str()) {
        return None;
    }
    let name_like = |s: &str| {
        s.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
            && s.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$')
    };
    if (spec.is_none() && !name_like(&root)) || (!rest.is_empty() && !rest.starts_with('.')) || !segments.iter().all(|s| name_like(s)) {
        return None;
    }
    let path = if segments.is_empty() { root } else { format!("{root}.{}", segments.join(".")) };
    Some((path, spec))
}

/// `s` split at each `sep` outside brackets, braces and parentheses.
fn split_top(s: &str, sep: char) -> Vec<&str> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '<' | '(' | '{' | '[' => depth += 1,
            '>' | ')' | '}' | ']' => depth -= 1,
            c if c == sep && depth == 0 => {
                out.push(&s[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parameter_s_type_is_read_from_its_tag() {
        let doc = "/**\n * Saves.\n * @param {import('./store').Store} store - where\n * @param {string} [name='x']\n * @param {Item[]} items\n * @arg {?Cache=} cache\n */";
        assert_eq!(param_type(doc, "store"), Some("import('./store').Store"));
        assert_eq!(param_type(doc, "name"), Some("string"));
        assert_eq!(param_type(doc, "items"), Some("Item[]"));
        assert_eq!(param_type(doc, "cache"), Some("?Cache="));
        assert_eq!(param_type(doc, "other"), None);
    }

    #[test]
    fn types_give_values_or_nothing() {
        let annotation = |p: &str| ValueSource::Annotation(p.to_string());
        assert_eq!(type_value("Store"), Some((annotation("Store"), None)));
        assert_eq!(type_value("?db.Store="), Some((annotation("db.Store"), None)));
        assert_eq!(type_value("Store|null"), Some((annotation("Store"), None)));
        assert_eq!(
            type_value("import('./db').Store"),
            Some((annotation(&format!("{}.Store", typescript::require_name("./db"))), Some("./db".to_string())))
        );
        assert_eq!(type_value("Array<Item>"), Some((ValueSource::Each(Box::new(annotation("Item"))), None)));
        assert_eq!(type_value("Item[]"), Some((ValueSource::Each(Box::new(annotation("Item"))), None)));
        assert_eq!(type_value("Object<string, Item>"), Some((ValueSource::Mapping(Box::new(annotation("Item"))), None)));
        assert_eq!(type_value("Map<string, Item>"), Some((annotation("Map"), None)));
        for none in ["string", "Object", "*", "A|B", "{a: Store}", "function(Store): void", "'a'|'b'", "typeof Store"] {
            assert_eq!(type_value(none), None, "{none}");
        }
    }
}
