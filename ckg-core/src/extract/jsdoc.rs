//! JSDoc types in JavaScript files: `/** @param {Store} store */` above a function declares
//! what its parameter `store` holds, as `(store: Store)` does in TypeScript. A type written
//! `import('./store').Store` names a member of a module, read through the module that
//! `require('./store')` would bind ([`typescript::require_name`]); the caller records that
//! type-only import.

use tree_sitter::Node;

use super::syntax::{Parents, text};
use super::typescript;
use crate::facts::{ImportFact, ImportKind, ValueSource};
use crate::field::{Field, Kind};
use crate::resolve::Map;

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

/// A file's `@typedef {T} Name` aliases: `Name` written in a type is `T`
/// (`@typedef {import('cookies').ICookies} Cookies`). Read from the source text, where the
/// file has any.
#[derive(Default)]
pub(super) struct Typedefs(Map<String, String>);

impl Typedefs {
    pub(super) fn of(src: &[u8]) -> Typedefs {
        const TAG: &[u8] = b"@typedef";
        let mut out = Map::default();
        let mut at = 0;
        while let Some(i) = src[at..].windows(TAG.len()).position(|w| w == TAG) {
            at += i + TAG.len();
            let Ok(rest) =
                std::str::from_utf8(&src[at..(at + 512).min(src.len())]).or_else(|e| std::str::from_utf8(&src[at..at + e.valid_up_to()]))
            else {
                continue;
            };
            let Some(body) = rest.trim_start().strip_prefix('{') else { continue };
            let Some(close) = matching_brace(body) else { continue };
            let name: String =
                body[close + 1..].trim_start().chars().take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '$')).collect();
            if !name.is_empty() {
                out.entry(name).or_insert_with(|| body[..close].trim().to_string());
            }
        }
        Typedefs(out)
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }
}

/// The value a parameter's JSDoc type gives, with the module an `import('m')` type names (its
/// specifier); `None` when `ident` is no parameter of a documented function, or its type is
/// none to follow (a primitive, `Object`, a union of two classes, a record literal).
pub(super) fn param_value<'t>(p: &Parents<'t>, ident: Node<'t>, src: &[u8], typedefs: &Typedefs) -> Option<(ValueSource, Option<String>)> {
    let param = p.of(ident).filter(|n| matches!(n.kind_name(), "required_parameter" | "optional_parameter"))?;
    if param.field("pattern").is_none_or(|n| n.id() != ident.id()) || param.field("type").is_some() {
        return None;
    }
    let function = p.of(p.of(param).filter(|n| n.kind_name() == "formal_parameters")?)?;
    let doc = doc_of(p, function, src)?;
    type_value(param_type(doc, &text(ident, src))?, typedefs)
}

/// The type a definition's JSDoc declares: a function's or a method's `@returns {T}` (a
/// `Promise<T>` is still a `T` to its awaiting callers, as in TypeScript), a property's or a
/// definition variable's `@type {T}` (`/** @type {?Texture} */ this.map = null`; a plain
/// `let s = null` is no definition, and its `@type` is not read); with the module an
/// `import('m')` type names.
pub(super) fn declared<'t>(
    p: &Parents<'t>,
    def: Node<'t>,
    function: bool,
    src: &[u8],
    typedefs: &Typedefs,
) -> Option<(ValueSource, Option<String>)> {
    let doc = doc_of(p, def, src)?;
    let tags: &[&str] = if function { &["returns", "return"] } else { &["type"] };
    let ty = tag_type(doc, tags)?;
    let ty = ty.trim();
    let ty = match ty.strip_prefix("Promise<").and_then(|t| t.strip_suffix('>')) {
        Some(inner) if function => inner,
        _ => ty,
    };
    type_value(ty, typedefs)
}

/// Notes the type-only import of a module a JSDoc type names (`import('./db')`), under the name
/// its members are read through, once per module.
pub(super) fn note_import(imports: &mut Vec<ImportFact>, spec: &str, (line, col): (u32, u32)) {
    let local = typescript::require_name(spec);
    if imports.iter().any(|i| i.type_only && i.local.as_ref() == Some(&local)) {
        return;
    }
    let (kind, specifier, imported, local, scope) = (ImportKind::Namespace, spec.to_string(), None, Some(local), 0);
    imports.push(ImportFact { kind, specifier, imported, local, scope, type_only: true, alternative: false, line, col });
}

/// The `/** … */` comment written just before the function: before its declaration, or before
/// the declaration, assignment, property or export it is the value of.
fn doc_of<'s, 't>(p: &Parents<'t>, function: Node<'t>, src: &'s [u8]) -> Option<&'s str> {
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
    doc_before(src, node.start_byte())
}

/// The `/** … */` comment that ends at `at` but for blank space: read from the source, since
/// listing the siblings of a top-level function is listing the whole file.
fn doc_before(src: &[u8], at: usize) -> Option<&str> {
    let before = src.get(..at)?;
    let end = before.iter().rposition(|b| !b.is_ascii_whitespace())? + 1;
    let before = &before[..end];
    if !before.ends_with(b"*/") {
        return None;
    }
    // The last `/**` after the comment before it, looked for within a bound (a `*/` that
    // closes no comment, in a regular expression, must not send every definition's look back
    // through the file); a `/*` inside the doc (`'src/*'`) or in code before it (`'/*'`) is
    // not its start.
    let from = (end - 2).saturating_sub(MAX_DOC);
    let window = &before[from..end - 2];
    let after_previous = window.windows(2).rposition(|w| w == b"*/").map_or(0, |i| i + 2);
    let start = from + after_previous + window[after_previous..].windows(3).rposition(|w| w == b"/**")?;
    std::str::from_utf8(&before[start..]).ok()
}

/// The longest JSDoc comment read, in bytes.
const MAX_DOC: usize = 16 * 1024;

/// The type `@param {T} name` gives `name` (also `[name]`, `[name=default]`, `@arg`,
/// `@argument`).
fn param_type<'d>(doc: &'d str, name: &str) -> Option<&'d str> {
    tags(doc, &["param", "arg", "argument"]).find_map(|(ty, named)| {
        let word_end = named.find(|c: char| c.is_whitespace()).unwrap_or(named.len());
        let word = &named[..word_end];
        let word = word.strip_prefix('[').map_or(word, |w| w.split(['=', ']']).next().unwrap_or(w));
        (word == name).then_some(ty)
    })
}

/// The type of the first of `names`' tags (`@returns {T}`).
fn tag_type<'d>(doc: &'d str, names: &[&str]) -> Option<&'d str> {
    tags(doc, names).next().map(|(ty, _)| ty)
}

/// The `{type}` and the text after it of each tag of `names` in a doc, in order.
fn tags<'d>(doc: &'d str, names: &[&str]) -> impl Iterator<Item = (&'d str, &'d str)> {
    let mut rest = doc;
    std::iter::from_fn(move || {
        while let Some(at) = rest.find('@') {
            rest = &rest[at + 1..];
            let tag_end = rest.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(rest.len());
            if !names.contains(&&rest[..tag_end]) {
                continue;
            }
            let Some(body) = rest[tag_end..].trim_start().strip_prefix('{') else { continue };
            let Some(close) = matching_brace(body) else { continue };
            rest = &body[close + 1..];
            return Some((&body[..close], rest.trim_start()));
        }
        None
    })
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

/// The value a JSDoc type gives (see [`param_value`]); a typedef's name is its type.
fn type_value(ty: &str, typedefs: &Typedefs) -> Option<(ValueSource, Option<String>)> {
    let ty = ty.trim().trim_start_matches(['?', '!']).trim_end_matches('=').trim();
    // `Store|null`: the one class of the union.
    let members: Vec<&str> =
        split_top(ty, '|').into_iter().map(str::trim).filter(|m| !matches!(*m, "null" | "undefined" | "void")).collect();
    let [ty] = members.as_slice() else { return None };
    let ty = ty.strip_prefix('(').and_then(|t| t.strip_suffix(')')).map_or(*ty, str::trim);
    if let Some(aliased) = typedefs.get(ty).filter(|a| *a != ty) {
        return type_value(aliased, &Typedefs::default());
    }
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
        assert_eq!(tag_type("/** Sums.\n * @returns {Promise<Store>} the store */", &["returns", "return"]), Some("Promise<Store>"));
        assert_eq!(tag_type("/** @type {?Texture} */", &["type"]), Some("?Texture"));
        assert_eq!(tag_type("/** @typedef {Object} Options */", &["type"]), None);
    }

    #[test]
    fn types_give_values_or_nothing() {
        let annotation = |p: &str| ValueSource::Annotation(p.to_string());
        let empty = Typedefs::default();
        let type_value = |t: &str| type_value(t, &empty);
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

    #[test]
    fn the_doc_is_the_comment_just_before() {
        let doc = |src: &str| {
            let at = src.find("function").expect("a function");
            doc_before(src.as_bytes(), at).map(str::to_string)
        };
        assert_eq!(doc("/** @param {A} a */\n  function f(a) {}").as_deref(), Some("/** @param {A} a */"));
        // A `/*` inside the doc is not its start.
        assert_eq!(
            doc("x();\n/** Reads 'src/*'.\n * @param {A} a */\nfunction f(a) {}").as_deref(),
            Some("/** Reads 'src/*'.\n * @param {A} a */")
        );
        assert_eq!(doc("/** @param {A} a */\ng();\nfunction f(a) {}"), None);
        assert_eq!(doc("/** @param {A} a */ g(); /* b */\nfunction f(a) {}"), None);
        assert_eq!(doc("/** @param {A} a */\nconst re = /a*/\nfunction f(a) {}"), None);
        assert_eq!(doc("/* @param {A} a */\nfunction f(a) {}"), None);
        assert_eq!(doc("const ALL = '/*';\n/** @param {A} a */\nfunction f(a) {}").as_deref(), Some("/** @param {A} a */"));
    }

    #[test]
    fn a_typedef_names_its_type() {
        let src =
            b"/**\n * @typedef {import('cookies').ICookies} Cookies\n * @typedef {object} Member\n */\n/** @typedef {Store[]} Stores */";
        let typedefs = Typedefs::of(src);
        let cookies = format!("{}.ICookies", typescript::require_name("cookies"));
        assert_eq!(type_value("?Cookies", &typedefs), Some((ValueSource::Annotation(cookies), Some("cookies".to_string()))));
        assert_eq!(type_value("Member", &typedefs), None);
        assert_eq!(type_value("Stores", &typedefs), Some((ValueSource::Each(Box::new(ValueSource::Annotation("Store".into()))), None)));
    }
}
