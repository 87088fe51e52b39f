//! TypeScript / JavaScript: import and export statements, CommonJS `require`, literal
//! dynamic `import()`, `export` flags, and where a local variable's value came from.

use tree_sitter::Node;

use super::captures::preorder::named_children;
use super::syntax::{Parents, path_of, path_of_any_entry, position, text};
use crate::facts::{ExportFact, FileFacts, ImportFact, ImportKind, LocalBinding, ValueSource};
use crate::field::{Field, Kind};
use crate::lang::{Capture, DefKind};

fn string_value(node: Node, src: &[u8]) -> Option<String> {
    if node.kind_name() != "string" {
        return None;
    }
    let t = text(node, src);
    Some(t.trim_matches(|c| c == '"' || c == '\'' || c == '`').to_string())
}

fn has_token(node: Node, token: &str) -> bool {
    super::captures::preorder::children(node).iter().any(|c| !c.named && c.node.kind_name() == token)
}

/// Reads an import statement or a `require` / `import()` call into `out`; gives the local
/// bound by an interop default (`const tpl_1 = __importDefault(require("m"))`), whose paths
/// through `default` are rewritten ([`through_interop_defaults`]).
pub(super) fn imports<'t>(
    parents: &Parents<'t>,
    role: Capture,
    node: Node<'t>,
    src: &[u8],
    scope: u32,
    out: &mut Vec<ImportFact>,
) -> Option<String> {
    // Each binding sits where its name is written (`a` in `import { a as b }`), so `def` on an
    // imported name finds it; statement-wide facts sit at the statement.
    let mut push = |kind, specifier: &str, imported: Option<String>, local: Option<String>, type_only: bool, at: Node| {
        let (line, col) = position(at);
        out.push(ImportFact { kind, specifier: specifier.to_string(), imported, local, scope, type_only, alternative: false, line, col });
    };
    match role {
        Capture::ImportStatement => {
            let Some(spec) = node.field("source").and_then(|s| string_value(s, src)) else {
                // `import x = require('y')`
                for c in named_children(node) {
                    if c.kind_name() == "import_require_clause" {
                        let spec = c.field("source").and_then(|s| string_value(s, src));
                        let local =
                            named_children(c).into_iter().find(|n| n.kind_name() == "identifier").map(|n| text(n, src).into_owned());
                        if let Some(spec) = spec {
                            push(ImportKind::Namespace, &spec, None, local, false, node);
                        }
                    }
                }
                return None;
            };
            let type_only = has_token(node, "type");
            let clause = named_children(node).into_iter().find(|c| c.kind_name() == "import_clause");
            let Some(clause) = clause else {
                push(ImportKind::SideEffect, &spec, None, None, type_only, node);
                return None;
            };
            for c in named_children(clause) {
                match c.kind_name() {
                    "identifier" => push(ImportKind::Default, &spec, Some("default".into()), Some(text(c, src).into_owned()), type_only, c),
                    "namespace_import" => {
                        let ident = named_children(c).into_iter().find(|n| n.kind_name() == "identifier");
                        let local = ident.map(|n| text(n, src).into_owned());
                        push(ImportKind::Namespace, &spec, None, local, type_only, ident.unwrap_or(c));
                    }
                    "named_imports" => {
                        for s in named_children(c).into_iter().filter(|n| n.kind_name() == "import_specifier") {
                            let Some(name_node) = s.field("name") else { continue };
                            let name = string_value(name_node, src).unwrap_or_else(|| text(name_node, src).into_owned());
                            let local = s.field("alias").map(|a| text(a, src).into_owned()).unwrap_or_else(|| name.clone());
                            push(ImportKind::Named, &spec, Some(name), Some(local), type_only || has_token(s, "type"), name_node);
                        }
                    }
                    _ => {}
                }
            }
        }
        Capture::ImportRequire | Capture::ImportDynamic => {
            let spec = node.field("arguments").and_then(|a| a.named_child(0)).and_then(|s| string_value(s, src))?;
            let kind = if role == Capture::ImportDynamic { ImportKind::Dynamic } else { ImportKind::Namespace };
            // Walk up through `await` / parentheses / an interop helper to the declarator, if any.
            let (mut inner, mut up) = (node, parents.of(node));
            let mut default_helper = false;
            while let Some(p) = up {
                if matches!(p.kind_name(), "await_expression" | "parenthesized_expression") {
                    (inner, up) = (p, parents.of(p));
                } else if let Some((helper, default)) = interop_call_of(parents, p, src) {
                    default_helper = default;
                    (inner, up) = (helper, parents.of(helper));
                } else {
                    break;
                }
            }
            // `const tpl_1 = __importDefault(require("m"))`: `import tpl_1 from "m"`, read as
            // `tpl_1.default` ([`through_interop_defaults`]).
            // (At module level only, where its paths are rewritten.)
            let kind = if default_helper && scope == 0 { ImportKind::Default } else { kind };
            if role == Capture::ImportRequire
                && let Some((member, local)) = up.and_then(|m| required_member(parents, m, inner, src))
            {
                // `const Svc = require('./m').Svc` is `import { Svc } from './m'`;
                // `const x = require('m').default` is `import x from 'm'`.
                let kind = if member == "default" { ImportKind::Default } else { ImportKind::Named };
                push(kind, &spec, Some(member), Some(text(local, src).into_owned()), false, local);
                return None;
            }
            match up.filter(|p| p.kind_name() == "variable_declarator") {
                Some(decl) => match decl.field("name") {
                    Some(n) if n.kind_name() == "identifier" => {
                        let local = text(n, src).into_owned();
                        push(kind, &spec, None, Some(local.clone()), false, n);
                        return (kind == ImportKind::Default).then_some(local);
                    }
                    Some(n) if n.kind_name() == "object_pattern" => {
                        for p in named_children(n) {
                            match p.kind_name() {
                                "shorthand_property_identifier_pattern" => {
                                    let name = text(p, src).into_owned();
                                    push(ImportKind::Named, &spec, Some(name.clone()), Some(name), false, p);
                                }
                                "pair_pattern" => {
                                    let (Some(k), Some(v)) = (p.field("key"), p.field("value")) else {
                                        continue;
                                    };
                                    push(
                                        ImportKind::Named,
                                        &spec,
                                        Some(text(k, src).into_owned()),
                                        Some(text(v, src).into_owned()),
                                        false,
                                        k,
                                    );
                                }
                                _ => {}
                            }
                        }
                    }
                    _ => push(ImportKind::SideEffect, &spec, None, None, false, node),
                },
                None if role == Capture::ImportDynamic => push(ImportKind::Dynamic, &spec, None, None, false, node),
                // `require('./m').a()`, `require('debug')('x')`, `{ users: require('./users') }`,
                // `module.exports = require('./lib')`: the module, under the name uses of the
                // expression are written with ([`require_name`]).
                None if up.is_some_and(|p| {
                    matches!(p.kind_name(), "member_expression" | "pair" | "call_expression" | "assignment_expression")
                }) =>
                {
                    push(ImportKind::Namespace, &spec, None, Some(require_name(&spec)), false, node)
                }
                None => push(ImportKind::SideEffect, &spec, None, None, false, node),
            }
        }
        _ => {}
    }
    None
}

/// `export … from`, `export { a as b }`, `export default x`, `export * from`, TS `export = x`,
/// and CommonJS `module.exports = …` / `exports.a = …`.
pub(super) fn exports(node: Node, src: &[u8], facts: &mut FileFacts) {
    let (line, col) = position(node);
    if node.kind_name() == "assignment_expression" {
        commonjs_exports(node, src, facts, line, col);
        return;
    }
    let source = node.field("source").and_then(|s| string_value(s, src));
    let type_only = has_token(node, "type");
    let children: Vec<Node> = named_children(node).into_iter().collect();
    let mut import = |kind, imported: Option<String>, spec: &str, (line, col): (u32, u32)| {
        facts.imports.push(ImportFact {
            kind,
            specifier: spec.to_string(),
            imported,
            local: None,
            scope: 0,
            type_only,
            alternative: false,
            line,
            col,
        });
    };
    if let Some(clause) = children.iter().find(|c| c.kind_name() == "export_clause") {
        for s in named_children(*clause).into_iter().filter(|n| n.kind_name() == "export_specifier") {
            let Some(name_node) = s.field("name") else { continue };
            let name = string_value(name_node, src).unwrap_or_else(|| text(name_node, src).into_owned());
            let alias = s.field("alias").map(|a| string_value(a, src).unwrap_or_else(|| text(a, src).into_owned()));
            let exported = alias.clone().unwrap_or_else(|| name.clone());
            if let Some(spec) = &source {
                import(ImportKind::Named, Some(name.clone()), spec, position(name_node));
            }
            facts.exports.push(ExportFact { name: exported, target: Some(name), specifier: source.clone(), line, col });
        }
        return;
    }
    if let Some(spec) = &source {
        if let Some(ns) = children.iter().find(|c| c.kind_name() == "namespace_export") {
            let name = ns.named_child(0).map(|n| string_value(n, src).unwrap_or_else(|| text(n, src).into_owned()));
            import(ImportKind::Namespace, None, spec, (line, col));
            if let Some(name) = name {
                facts.exports.push(ExportFact { name, target: Some("*".into()), specifier: Some(spec.clone()), line, col });
            }
        } else {
            import(ImportKind::Star, None, spec, (line, col));
            facts.exports.push(ExportFact { name: "*".into(), target: None, specifier: Some(spec.clone()), line, col });
        }
        return;
    }
    if has_token(node, "=") {
        // TS `export = X`: what `module.exports = X` exports.
        if let Some(&value) = children.first() {
            module_exports_value(value, src, &mut |name, target, specifier| {
                facts.exports.push(ExportFact { name, target, specifier, line, col });
            });
        }
        return;
    }
    if has_token(node, "default") {
        // `export default foo`, `export default function foo() {}`, `export default class A {}`.
        let target = node
            .field("value")
            .filter(|v| v.kind_name() == "identifier")
            .map(|v| text(v, src).into_owned())
            .or_else(|| node.field("declaration").and_then(|d| d.field("name")).map(|n| text(n, src).into_owned()));
        if let Some(target) = target {
            facts.exports.push(ExportFact { name: "default".into(), target: Some(target), specifier: None, line, col });
        }
    }
}

/// The name a `require('./m')` written inside an expression binds: `require(:/m)` (its dots
/// written `:`, since a path's segments are split at dots).
pub(super) fn require_name(spec: &str) -> String {
    format!("require({})", spec.replace('.', ":"))
}

/// `Svc` and the name bound, of a declarator `const S = require('./m').Svc` whose value is one
/// member of `required` (the `require` call, or what wraps it: parentheses, an interop helper).
fn required_member<'t>(parents: &Parents<'t>, member: Node<'t>, required: Node<'t>, src: &[u8]) -> Option<(String, Node<'t>)> {
    if member.kind_name() != "member_expression" || member.field("object")?.id() != required.id() {
        return None;
    }
    let property = member.field("property").filter(|p| p.kind_name() == "property_identifier")?;
    let declarator = parents.of(member).filter(|d| d.kind_name() == "variable_declarator")?;
    let local = declarator.field("name").filter(|n| n.kind_name() == "identifier")?;
    (declarator.field("value")?.id() == member.id()).then(|| (text(property, src).into_owned(), local))
}

/// The module a `require('m')` call names (`None` for any other node).
fn required_spec(call: Node, src: &[u8]) -> Option<String> {
    if call.kind_name() != "call_expression" || call.field("function").is_none_or(|f| text(f, src) != "require") {
        return None;
    }
    call.field("arguments").and_then(|a| a.named_child(0)).and_then(|s| string_value(s, src))
}

/// The path of a use whose object is `require('./m')` (`require('./m').a.b`, the call
/// `require('debug')('x')`), rooted at the name that `require` binds ([`require_name`]);
/// `None` for other paths.
pub(super) fn through_require(path: &str, callee: Node, src: &[u8]) -> Option<String> {
    let rest = path.strip_prefix("require()").filter(|r| r.is_empty() || r.starts_with(['.', '(']))?;
    let mut cur = callee;
    for _ in 0..16 {
        match cur.kind_name() {
            "member_expression" => cur = cur.field("object")?,
            "call_expression" => match required_spec(cur, src) {
                Some(spec) => return Some(format!("{}{rest}", require_name(&spec))),
                None => cur = cur.field("function")?,
            },
            _ => return None,
        }
    }
    None
}

fn commonjs_exports(assign: Node, src: &[u8], facts: &mut FileFacts, line: u32, col: u32) {
    let (Some(left), Some(right)) = (assign.field("left"), assign.field("right")) else { return };
    let lhs = text(left, src);
    // `exports = module.exports = createApplication`: the inner assignment.
    if lhs == "exports" && right.kind_name() == "assignment_expression" {
        commonjs_exports(right, src, facts, line, col);
        return;
    }
    let ident = |n: Node| (n.kind_name() == "identifier").then(|| text(n, src).into_owned());
    let mut push = |name: String, target: Option<String>, specifier: Option<String>| {
        facts.exports.push(ExportFact { name, target, specifier, line, col })
    };
    if lhs == "module.exports" {
        // `module.exports = exports = X`: what the last assignment assigns.
        let mut right = right;
        while right.kind_name() == "assignment_expression"
            && let Some(inner) = right.field("right")
        {
            right = inner;
        }
        module_exports_value(right, src, &mut push);
    } else if let Some(name) = lhs.strip_prefix("module.exports.").or_else(|| lhs.strip_prefix("exports."))
        && !name.contains('.')
    {
        push(name.to_string(), ident(right), None);
    }
}

/// What `module.exports = value` (or TS `export = value`) exports, given to `push` as
/// (exported name, target, specifier): `module.exports` for the value as a whole (a name, a
/// function — the module's `default` —, an instance written as the call that makes it, a
/// class), or each member of an object literal; a spread module in it
/// (`{ ...require('./schema') }`) re-exports that module's every name, as `export *` does.
fn module_exports_value(right: Node, src: &[u8], push: &mut impl FnMut(String, Option<String>, Option<String>)) {
    let ident = |n: Node| (n.kind_name() == "identifier").then(|| text(n, src).into_owned());
    match right.kind_name() {
        "identifier" => push("module.exports".into(), ident(right), None),
        // `module.exports = function () {}`: the module's `default` definition.
        "function_expression" | "arrow_function" => push("module.exports".into(), Some("default".into()), None),
        // `module.exports = require('./lib/express')`: the required module's value, and each
        // of its names, as `export *` re-exports them.
        "call_expression" if let Some(spec) = required_spec(right, src) => {
            push("module.exports".into(), Some(require_name(&spec)), None);
            push("*".into(), None, Some(spec));
        }
        // `module.exports = new Service()`: an instance, written as the call that makes it.
        "new_expression" => {
            if let Some((ctor, _)) = right.field("constructor").and_then(|c| path_of(c, src)) {
                push("module.exports".into(), Some(format!("{ctor}()")), None);
            }
        }
        // `module.exports = class Store {}`: the class `Store` (`default` without a name).
        "class" => {
            let name = right.field("name").map_or_else(|| "default".to_string(), |n| text(n, src).into_owned());
            push("module.exports".into(), Some(name), None);
        }
        "object" => {
            for p in named_children(right) {
                match p.kind_name() {
                    "shorthand_property_identifier" => {
                        let n = text(p, src).into_owned();
                        push(n.clone(), Some(n), None);
                    }
                    "spread_element" => {
                        if let Some(spec) = p.named_child(0).and_then(|v| required_spec(v, src)) {
                            push("*".into(), None, Some(spec));
                        }
                    }
                    "pair" => {
                        let (Some(k), Some(v)) = (p.field("key"), p.field("value")) else { continue };
                        // A name, a member (`strings.slugify`), or a required module.
                        let target = match v.kind_name() {
                            "member_expression" => path_of(v, src).map(|(p, _)| p),
                            "call_expression" => required_spec(v, src).map(|spec| require_name(&spec)),
                            _ => ident(v),
                        };
                        if let Some(target) = target {
                            push(text(k, src).into_owned(), Some(target), None);
                        }
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

/// The `lexical_declaration` / `variable_declaration` a binding (a declarator, or a name in a
/// destructuring pattern) belongs to.
fn declaration_of<'t>(p: &Parents<'t>, node: Node<'t>) -> Option<Node<'t>> {
    let mut cur = Some(node);
    for _ in 0..64 {
        let n = cur?;
        if matches!(n.kind_name(), "lexical_declaration" | "variable_declaration") {
            return Some(n);
        }
        if matches!(n.kind_name(), "statement_block" | "program" | "arrow_function" | "function_expression" | "class_body") {
            return None;
        }
        cur = p.of(n);
    }
    None
}

/// True when a binding is declared with `const` (directly or in a destructuring pattern).
pub(super) fn declared_const<'t>(p: &Parents<'t>, node: Node<'t>) -> bool {
    declaration_of(p, node).is_some_and(|d| d.kind_name() == "lexical_declaration" && has_token(d, "const"))
}

/// True when a binding is a parameter (of a function, or of a function type at module level:
/// `Record<string, (value: number) => number>`).
pub(super) fn is_parameter<'t>(p: &Parents<'t>, node: Node<'t>) -> bool {
    let mut cur = p.of(node);
    for _ in 0..8 {
        match cur {
            Some(n) if matches!(n.kind_name(), "required_parameter" | "optional_parameter" | "formal_parameters") => return true,
            Some(n) if matches!(n.kind_name(), "variable_declarator" | "statement_block" | "program") => return false,
            Some(n) => cur = p.of(n),
            None => return false,
        }
    }
    false
}

/// The helpers compiled CommonJS wraps a `require` in to read an ES module's `default`
/// (TypeScript's `__importDefault`, Babel's `_interopRequireDefault`: an object whose `default`
/// is the module's default, `tpl_1.default`) or its namespace (`__importStar`,
/// `_interopRequireWildcard`), each with whether it is of the first kind.
const INTEROP_HELPERS: [(&str, bool); 4] =
    [("__importDefault", true), ("_interopRequireDefault", true), ("__importStar", false), ("_interopRequireWildcard", false)];

/// The interop helper call (`__importDefault(require("m"))`) whose only argument list is
/// `arguments`, if it is one, and whether it reads the module's default.
fn interop_call_of<'t>(parents: &Parents<'t>, arguments: Node<'t>, src: &[u8]) -> Option<(Node<'t>, bool)> {
    if arguments.kind_name() != "arguments" || arguments.named_child_count() != 1 {
        return None;
    }
    let call = parents.of(arguments).filter(|c| c.kind_name() == "call_expression")?;
    let function = call.field("function")?;
    let name = match function.kind_name() {
        "identifier" => text(function, src),
        // `tslib_1.__importDefault(…)`.
        "member_expression" => text(function.field("property")?, src),
        _ => return None,
    };
    INTEROP_HELPERS.iter().find(|(helper, _)| *helper == name).map(|&(_, default)| (call, default))
}

/// `tpl_1.default` where `tpl_1 = __importDefault(require("m"))` (compiled from
/// `import tpl from "m"`) is that default import itself: a path through it is rewritten as
/// the source wrote it (`tpl_1.default.error` → `tpl_1.error`, `(0,
/// tpl_1.default)(…)` → `tpl_1()`), `tpl_1` being a default import. So are the paths of the
/// values names take (`const u = new url_utils_1.default()` is `new url_utils_1()`), of the
/// values calls pass, and of the definitions' types and bases.
pub(super) fn through_interop_defaults(locals: &[String], facts: &mut FileFacts) {
    let rewrite = |path: &mut String| {
        if let Some(p) = interop_path(locals, path) {
            *path = p;
        }
    };
    for r in facts.refs.iter_mut() {
        match &mut r.binding {
            LocalBinding::Free => rewrite(&mut r.path),
            LocalBinding::Var(Some(v)) => v.paths_mut(&mut |p| rewrite(p)),
            _ => {}
        }
        for (_, v) in &mut r.args {
            v.paths_mut(&mut |p| rewrite(p));
        }
    }
    for s in facts.symbols.iter_mut() {
        if let Some(ty) = &mut s.ty {
            ty.paths_mut(&mut |p| rewrite(p));
        }
        for base in &mut s.bases {
            let (implemented, path) = match base.strip_prefix(crate::facts::IMPLEMENTED) {
                Some(path) => (crate::facts::IMPLEMENTED, path),
                None => ("", base.as_str()),
            };
            if let Some(p) = interop_path(locals, path) {
                *base = format!("{implemented}{p}");
            }
        }
    }
}

/// `path` written through an interop default (`tpl_1.default.error`) as the source wrote it
/// (`tpl_1.error`); `None` for a path through none of `locals`.
fn interop_path(locals: &[String], path: &str) -> Option<String> {
    let (root, rest) = path.split_once('.')?;
    if !locals.iter().any(|l| l == root) {
        return None;
    }
    let (segment, after) = rest.split_once('.').map_or((rest, None), |(s, a)| (s, Some(a)));
    let called = match segment {
        "default" => "",
        "default()" => "()",
        _ => return None,
    };
    Some(match after {
        Some(after) => format!("{root}{called}.{after}"),
        None => format!("{root}{called}"),
    })
}

/// True when a binding's declarator takes its value from `require(…)` or `await import(…)` (an
/// import, not a value).
pub(super) fn bound_by_require<'t>(p: &Parents<'t>, node: Node<'t>, src: &[u8]) -> bool {
    let mut cur = Some(node);
    for _ in 0..64 {
        let Some(n) = cur else { return false };
        if n.kind_name() == "variable_declarator" {
            let mut value = n.field("value");
            let (mut awaited, mut members) = (false, 0);
            while let Some(v) = value.filter(|v| matches!(v.kind_name(), "member_expression" | "await_expression")) {
                awaited |= v.kind_name() == "await_expression";
                members += usize::from(v.kind_name() == "member_expression");
                value = v.field("object").or_else(|| v.named_child(0));
            }
            // `__importDefault(require("m"))`: the `require`.
            if let Some(arguments) = value.and_then(|v| v.field("arguments"))
                && interop_call_of(p, arguments, src).is_some()
            {
                value = arguments.named_child(0);
            }
            // `require('./m')` or one member of it (`require('./m').Svc`, a named import), or an
            // awaited dynamic `import('./m')` (not awaited, a promise). A deeper member
            // (`require('./m').a.b`) is a value: a path through the module that `require` binds
            // there ([`through_require`]).
            return value.is_some_and(|v| {
                v.kind_name() == "call_expression"
                    && v.field("function")
                        .is_some_and(|f| (awaited && f.kind_name() == "import") || (members <= 1 && text(f, src) == "require"))
            });
        }
        if matches!(n.kind_name(), "lexical_declaration" | "variable_declaration" | "statement_block" | "program") {
            return false;
        }
        cur = p.of(n);
    }
    false
}

/// True when a binding is declared with `var` (function-scoped, hoisted).
pub(super) fn declared_var<'t>(p: &Parents<'t>, node: Node<'t>) -> bool {
    declaration_of(p, node).is_some_and(|d| d.kind_name() == "variable_declaration")
}

/// True when a binding is declared in an exported declaration (`export const { a } = …`).
pub(super) fn binding_exported<'t>(p: &Parents<'t>, node: Node<'t>) -> bool {
    declaration_of(p, node).and_then(|d| p.of(d)).is_some_and(|p| p.kind_name() == "export_statement")
}

/// The namespace (`namespace N { … }`) whose body a declaration is directly in.
pub(super) fn namespace_of<'t>(p: &Parents<'t>, node: Node<'t>) -> Option<Node<'t>> {
    let decl = declaration_of(p, node).or_else(|| (node.kind_name() == "function_declaration").then_some(node))?;
    let mut block = p.of(decl)?;
    if block.kind_name() == "export_statement" {
        block = p.of(block)?;
    }
    let ns = p.of(block)?;
    (block.kind_name() == "statement_block" && matches!(ns.kind_name(), "internal_module" | "module")).then_some(ns)
}

/// True when a definition node is declared with `export` (directly, or as a declarator of an
/// exported `const`).
pub(super) fn is_exported<'t>(parents: &Parents<'t>, node: Node<'t>) -> bool {
    let mut cur = parents.of(node);
    for _ in 0..3 {
        match cur {
            Some(p) if p.kind_name() == "export_statement" => return true,
            Some(p) if matches!(p.kind_name(), "lexical_declaration" | "variable_declaration" | "ambient_declaration") => {
                cur = parents.of(p)
            }
            _ => return false,
        }
    }
    false
}

/// Where the value of a name bound at `ident` came from: `const x = new Foo()`,
/// `const app = express()`, `const y = a.b`, `let s: Service`, or a parameter `(s: Service)`.
/// The value of an expression, as far as it is a name, a call or a `new`:
/// `new Foo()`, `express()`, `a.b` (through `await`, parentheses and type assertions).
pub(super) fn expression_value(v: Node, src: &[u8]) -> Option<ValueSource> {
    expression_value_at(v, src, 0)
}

fn expression_value_at(mut v: Node, src: &[u8], depth: usize) -> Option<ValueSource> {
    while matches!(
        v.kind_name(),
        "await_expression" | "parenthesized_expression" | "as_expression" | "non_null_expression" | "satisfies_expression"
    ) {
        // `error as HttpError`: the type it is asserted to be (not `as const`, `as any`), and
        // what the expression holds, which the assertion may only narrow (`x as Mutable<X>`
        // names a type whose members ckg may not know).
        if v.kind_name() == "as_expression"
            && let Some(asserted) = v.named_child(1).and_then(|t| annotation_source(t, src))
        {
            let held = v.named_child(0).and_then(|e| expression_value_at(e, src, depth + 1));
            return ValueSource::one_of([Some(asserted), held].into_iter().flatten());
        }
        v = v.named_child(0)?;
    }
    // `require('./m').Svc`: a member of the module that `require` binds there.
    let path = |n: Node| path_of(n, src).map(|(p, _)| through_require(&p, n, src).unwrap_or(p));
    match v.kind_name() {
        "new_expression" => path(v.field("constructor")?).map(ValueSource::New),
        "call_expression" => {
            let f = v.field("function")?;
            if f.kind_name() == "import" {
                return None;
            }
            let p = path(f)?;
            // `Object.create(proto)`: an object whose members are looked up on `proto` (it may
            // gain its own, so what goes through it is inferred).
            if p == "Object.create" {
                let proto = v.field("arguments")?.named_child(0)?;
                return expression_value_at(proto, src, depth + 1).map(ValueSource::possibly);
            }
            Some(ValueSource::Call(p))
        }
        "identifier" | "member_expression" => path(v).map(ValueSource::Alias),
        // `const first = items[0]`, `const h = this.handlers[name]`: an entry.
        "subscript_expression" => path_of_any_entry(v, src).map(|(p, _)| ValueSource::Alias(p)),
        "shorthand_property_identifier" => Some(ValueSource::Alias(text(v, src).into_owned())),
        // `{ get: load, post }`, `[a, b]`: the entries written as names or calls, by key or index.
        "object" | "array" if depth < 4 => {
            let mut items = Vec::new();
            for (i, entry) in named_children(v).into_iter().filter(|n| n.kind_name() != "comment").enumerate() {
                let (key, value) = match (v.kind_name(), entry.kind_name()) {
                    ("array", _) => (i.to_string(), entry),
                    (_, "pair") => {
                        let k = entry.field("key").filter(|k| matches!(k.kind_name(), "property_identifier" | "string"))?;
                        (text(k, src).trim_matches(|c| c == '"' || c == '\'').to_string(), entry.field("value")?)
                    }
                    (_, "shorthand_property_identifier") => (text(entry, src).into_owned(), entry),
                    _ => continue,
                };
                if let Some(value) = expression_value_at(value, src, depth + 1) {
                    items.push((key, value));
                }
            }
            (!items.is_empty()).then_some(ValueSource::Items(items))
        }
        // `c ? a : b`, `cb || fallback`, `cb ?? fallback`: either.
        "ternary_expression" | "binary_expression" if depth < 4 => {
            let branches = if v.kind_name() == "ternary_expression" {
                [v.field("consequence")?, v.field("alternative")?]
            } else {
                let op = v.field("operator")?;
                if !matches!(op.kind_name(), "||" | "??") {
                    return None;
                }
                [v.field("left")?, v.field("right")?]
            };
            ValueSource::one_of(branches.into_iter().filter_map(|b| expression_value_at(b, src, depth + 1)))
        }
        _ => None,
    }
}

/// When `arg` is an argument of a call to a function that calls what it is handed at that
/// position (`xs.map(f)`, `p.then(f, g)`, `setTimeout(f, 1)`, `el.addEventListener('x', f)`,
/// `new Promise(f)`, `Array.from(xs, f)`): the callee's last name. What is handed at another
/// position is not called: `xs.reduce(f, seed)`'s seed, `Array.from(xs)`'s `xs`,
/// `setTimeout(f, 1, arg)`'s `arg`. Where libraries put the collection first (`_.map(xs, f)`,
/// `Effect.forEach(xs, f, { concurrency })`), a collection method's second argument is called
/// too, and where they put arguments of their own first (`emitter.on(scope, 'event', f)`,
/// `visibility.filter(items, level, f)`) the last argument after the builtin's positions.
pub(super) fn callback_callee<'t>(p: &Parents<'t>, arg: Node<'t>, src: &[u8]) -> Option<String> {
    /// The callers, by the positions of the arguments they call and whether a last argument
    /// after those is called too.
    const CALLERS: &[(&[&str], &[usize], bool)] = &[
        (
            &["map", "forEach", "filter", "sort", "find", "findIndex", "findLast", "findLastIndex", "some", "every", "flatMap"],
            &[0, 1],
            true,
        ),
        (&["reduce", "reduceRight"], &[0], false),
        (&["then"], &[0, 1], false),
        (
            &[
                "catch",
                "finally",
                "setTimeout",
                "setInterval",
                "setImmediate",
                "queueMicrotask",
                "requestAnimationFrame",
                "Promise",
                "nextTick",
            ],
            &[0],
            false,
        ),
        (&["addEventListener", "on", "once"], &[1], true),
        (&["from"], &[1], false),
    ];
    let list = p.of(arg).filter(|p| p.kind_name() == "arguments")?;
    let call = p.of(list).filter(|c| matches!(c.kind_name(), "call_expression" | "new_expression"))?;
    let callee = call.field("function").or_else(|| call.field("constructor"))?;
    // `[1, 2].map(f)`, `fetch(u).then(f)`: the member's name, whatever the object.
    let last = match callee.kind_name() {
        "member_expression" => text(callee.field("property")?, src).into_owned(),
        _ => {
            let (path, _) = path_of(callee, src)?;
            path.rsplit('.').next().unwrap_or(&path).trim_end_matches("()").to_string()
        }
    };
    let &(_, positions, trailing) = CALLERS.iter().find(|(names, ..)| names.contains(&last.as_str()))?;
    let args: Vec<Node> = named_children(list).into_iter().filter(|a| a.kind_name() != "comment").collect();
    let at = args.iter().position(|a| a.id() == arg.id())?;
    // `_.reduce(xs, f, seed)`: three arguments are the library's form, the callback second.
    let positions: &[usize] = if matches!(last.as_str(), "reduce" | "reduceRight") && args.len() == 3 { &[1] } else { positions };
    let called = positions.contains(&at) || (trailing && at + 1 == args.len() && positions.iter().all(|&p| at > p));
    called.then_some(last)
}

pub(super) fn value_source<'t>(p: &Parents<'t>, ident: Node<'t>, src: &[u8]) -> Option<ValueSource> {
    let parent = p.of(ident)?;
    match parent.kind_name() {
        "variable_declarator" if parent.field("name") == Some(ident) => {
            let declared = parent.field("type").and_then(|t| annotation_source(t, src));
            let value = parent.field("value").and_then(|v| expression_value(v, src));
            // The written type says more than an empty literal when it is an array (`let items:
            // Item[] = []`), and than an entry read (`const u: User = rows[0]`).
            let entry_read = matches!(&value, Some(ValueSource::Alias(p)) if p.contains(".["));
            match declared {
                Some(d) if value.is_none() || entry_read || matches!(d, ValueSource::Each(_)) => Some(d),
                _ => value,
            }
        }
        // A parameter's declared type, else its default (`compare = defaultCompare`): one of the
        // values it may hold (the callers may pass another).
        "required_parameter" | "optional_parameter" => parameter_type(p, parent, src)
            .and_then(|t| annotation_source(t, src))
            .or_else(|| parent.field("value").and_then(|v| expression_value(v, src)).map(ValueSource::possibly))
            .or_else(|| callback_element(p, parent, src)),
        // `items.forEach(i => …)`.
        "arrow_function" if parent.field("parameter") == Some(ident) => callback_element(p, ident, src),
        // `for (const task of tasks)`: each element (`for … in` gives keys, not elements).
        "for_in_statement" if parent.field("left") == Some(ident) && has_token(parent, "of") => {
            let right = parent.field("right")?;
            let each = match expression_value(right, src)? {
                ValueSource::Alias(p) => ValueSource::Alias(p),
                items @ ValueSource::Items(_) => items,
                _ => return None,
            };
            Some(ValueSource::Each(Box::new(each)))
        }
        "assignment_expression" if parent.field("left") == Some(ident) => parent.field("right").and_then(|v| expression_value(v, src)),
        "shorthand_property_identifier_pattern" | "object_pattern" | "pair_pattern" | "array_pattern" | "object_assignment_pattern" => {
            destructured_value(p, ident, src)
        }
        _ => None,
    }
}

/// A name bound by destructuring a declarator's value: `const { a } = obj` is `obj.a`,
/// `const { a: b } = make()` is `make().a`, `const [x, y] = [f, g]` takes the element at its
/// place, `const [x] = list` is `list.[0]`. Nested patterns follow each level; a default
/// (`{ a = 1 }`) is one of the values and the member's declared type still holds. A parameter's
/// object pattern takes apart a value of its declared type: `({ value: store }: Props)` is
/// `Props.value`, the member's type. (A rest element has no value here.)
fn destructured_value<'t>(p: &Parents<'t>, ident: Node<'t>, src: &[u8]) -> Option<ValueSource> {
    // From the name up to the declarator: the key or index at each level.
    let mut steps: Vec<String> = Vec::new();
    let mut cur = ident;
    let declarator = loop {
        let parent = p.of(cur)?;
        let is_left = || parent.field("left").is_some_and(|l| l.id() == cur.id());
        match parent.kind_name() {
            "shorthand_property_identifier_pattern" => {}
            "object_pattern" if cur.kind_name() == "shorthand_property_identifier_pattern" => steps.push(text(cur, src).into_owned()),
            "object_pattern" if matches!(cur.kind_name(), "pair_pattern" | "object_assignment_pattern") => {}
            // `{ a = 1 }`, `{ a: b = 1 }`, `[x = 1]`: the name's default.
            "object_assignment_pattern" if is_left() && cur.kind_name() == "shorthand_property_identifier_pattern" => {
                steps.push(text(cur, src).into_owned());
            }
            "assignment_pattern" if is_left() => {}
            "required_parameter" | "optional_parameter" if parent.field("pattern").is_some_and(|n| n.id() == cur.id()) => {
                return typed_parameter_member(p, parent, &steps, src);
            }
            "pair_pattern" => {
                let key = parent.field("key").filter(|k| matches!(k.kind_name(), "property_identifier" | "string"))?;
                steps.push(text(key, src).trim_matches(|c| c == '"' || c == '\'').to_string());
            }
            "array_pattern" => steps.push(format!("[{}]", pattern_place(parent, cur)?)),
            "variable_declarator" if parent.field("name").is_some_and(|n| n.id() == cur.id()) => break parent,
            _ => return None,
        }
        cur = parent;
        if steps.len() > 8 {
            return None;
        }
    };
    let mut value = declarator.field("value")?;
    let mut rest: Vec<String> = Vec::new();
    for step in steps.iter().rev() {
        // Into a literal where the value is written out, else along the path.
        let element = match (value.kind_name(), step.strip_prefix('[').and_then(|s| s.strip_suffix(']'))) {
            ("array", Some(i)) if rest.is_empty() => {
                named_children(value).into_iter().filter(|n| n.kind_name() != "comment").nth(i.parse().ok()?)
            }
            ("object", None) if rest.is_empty() => object_entry(value, step, src),
            _ => None,
        };
        match element {
            Some(e) => value = e,
            None => rest.push(step.clone()),
        }
    }
    let base = expression_value(value, src)?;
    if rest.is_empty() {
        return Some(base);
    }
    let prefix = match base {
        ValueSource::Alias(p) => p,
        ValueSource::Call(p) => format!("{p}()"),
        ValueSource::New(p) => format!("{p}()"),
        _ => return None,
    };
    Some(ValueSource::Alias(format!("{prefix}.{}", rest.join("."))))
}

/// The place of `element` in an array pattern, counting the holes before it (`const [,
/// second] = pair`).
fn pattern_place(pattern: Node, element: Node) -> Option<usize> {
    let mut place = 0;
    for i in 0..pattern.child_count() {
        let child = pattern.child(i as _)?;
        if child.id() == element.id() {
            return Some(place);
        }
        place += usize::from(child.kind_name() == ",");
    }
    None
}

/// The member a parameter's object pattern takes out (`steps`, innermost first) of a value of
/// the parameter's declared type: `Props.value` of `({ value }: Props)`, as one of the values
/// the callers may pass (what goes through it is `inferred`, as through `props.value`); `None`
/// without a declared type, or through an array pattern.
fn typed_parameter_member<'t>(p: &Parents<'t>, param: Node<'t>, steps: &[String], src: &[u8]) -> Option<ValueSource> {
    if steps.is_empty() || steps.iter().any(|s| s.starts_with('[')) {
        return None;
    }
    let mut path = annotation_path(parameter_type(p, param, src)?, src)?;
    for step in steps.iter().rev() {
        path.push('.');
        path.push_str(step);
    }
    // One of the values the callers pass, as a typed parameter's own value is.
    Some(ValueSource::Alias(path).possibly())
}

/// A parameter's declared type; one that names a type parameter of its function (`<S extends
/// Store>(s: S)`) is that parameter's bound ([`bound_of_type_parameter`]).
fn parameter_type<'t>(p: &Parents<'t>, param: Node<'t>, src: &[u8]) -> Option<Node<'t>> {
    let t = param.field("type")?;
    let func = p.of(param).and_then(|params| p.of(params));
    Some(func.map_or(t, |f| bound_of_type_parameter(f, t, src)))
}

/// The value written for `key` in an object literal: `{ key: v }`'s `v`, `{ key }`'s name.
fn object_entry<'t>(object: Node<'t>, key: &str, src: &[u8]) -> Option<Node<'t>> {
    named_children(object).into_iter().find_map(|entry| match entry.kind_name() {
        "pair" => {
            let k = entry.field("key").filter(|k| matches!(k.kind_name(), "property_identifier" | "string"))?;
            (text(k, src).trim_matches(|c| c == '"' || c == '\'') == key).then(|| entry.field("value")).flatten()
        }
        "shorthand_property_identifier" => (text(entry, src) == key).then_some(entry),
        _ => None,
    })
}

/// The owner a member is assigned to outside any class body: `F` and `true` for
/// `F.prototype.m = function () {}`, `F` and `false` for `F.m = …`; `this` for `this.m = …`.
/// CommonJS's `exports.x` / `module.exports.x` have none (they define module names).
pub(super) fn assigned_owner<'t, 's>(parents: &Parents<'t>, node: Node<'t>, src: &'s [u8]) -> Option<(std::borrow::Cow<'s, str>, bool)> {
    let assign = if node.kind_name() == "expression_statement" { node.named_child(0)? } else { node };
    if matches!(assign.kind_name(), "method_definition" | "pair") {
        return literal_prototype_owner(parents, assign, src).map(|o| (o, true));
    }
    if assign.kind_name() != "assignment_expression" {
        return None;
    }
    let object = assign.field("left").filter(|l| l.kind_name() == "member_expression")?.field("object")?;
    match object.kind_name() {
        "this" => Some((text(object, src), false)),
        "identifier" => Some((text(object, src), false)).filter(|(o, _)| !matches!(o.as_ref(), "exports" | "module")),
        "member_expression" => prototype_of(object, src).map(|owner| (owner, true)),
        _ => None,
    }
}

/// The constructor function `F` whose prototype an object literal's method or function
/// entry is written into: `F.prototype = { m() {…}, n: function () {…} }`,
/// `Object.assign(F.prototype, { … })`. (Asked only of the methods of object literals that
/// no definition encloses.)
fn literal_prototype_owner<'t, 's>(parents: &Parents<'t>, member: Node<'t>, src: &'s [u8]) -> Option<std::borrow::Cow<'s, str>> {
    let object = parents.of(member).filter(|o| o.kind_name() == "object")?;
    let holder = parents.of(object)?;
    let target = match holder.kind_name() {
        "assignment_expression" if holder.field("right") == Some(object) => holder.field("left")?,
        "arguments" => {
            let call = parents.of(holder).filter(|c| c.kind_name() == "call_expression")?;
            let callee = call.field("function")?;
            if &*text(callee, src) != "Object.assign" {
                return None;
            }
            holder.named_child(0).filter(|&first| first != object)?
        }
        _ => return None,
    };
    prototype_of(target, src)
}

/// `F` of `F.prototype`.
fn prototype_of<'s>(node: Node, src: &'s [u8]) -> Option<std::borrow::Cow<'s, str>> {
    if node.kind_name() != "member_expression" {
        return None;
    }
    let (owner, property) = (node.field("object")?, node.field("property")?);
    (owner.kind_name() == "identifier" && text(property, src) == "prototype").then(|| text(owner, src))
}

/// Module-level prototype wiring: the constructor function each statement makes derive from
/// another, with the node that names the base — `util.inherits(C, B)` (also `inherits(C, B)`),
/// `C.prototype = Object.create(B.prototype)`, `Object.setPrototypeOf(C.prototype,
/// B.prototype)`.
pub(super) fn prototype_bases<'t>(root: Node<'t>, src: &[u8]) -> Vec<(String, Node<'t>)> {
    let mut out = Vec::new();
    for statement in named_children(root) {
        let Some(expr) = statement.named_child(0).filter(|_| statement.kind_name() == "expression_statement") else { continue };
        let (class, base) = match expr.kind_name() {
            "call_expression" => {
                let (Some(callee), Some(args)) = (expr.field("function"), expr.field("arguments")) else { continue };
                let (first, second) = (args.named_child(0), args.named_child(1));
                let (Some(first), Some(second)) = (first, second) else { continue };
                match &*text(callee, src) {
                    "util.inherits" | "inherits" if first.kind_name() == "identifier" => (text(first, src), second),
                    _ if first.kind_name() == "identifier" && is_required_util_inherits(callee, src) => (text(first, src), second),
                    "Object.setPrototypeOf" => match (prototype_of(first, src), second.field("object")) {
                        (Some(class), Some(base)) if prototype_of(second, src).is_some() => (class, base),
                        _ => continue,
                    },
                    _ => continue,
                }
            }
            "assignment_expression" => {
                let (Some(left), Some(right)) = (expr.field("left"), expr.field("right")) else { continue };
                let Some(class) = prototype_of(left, src) else { continue };
                if right.kind_name() != "call_expression" || right.field("function").is_none_or(|f| &*text(f, src) != "Object.create") {
                    continue;
                }
                let Some(proto) = right.field("arguments").and_then(|a| a.named_child(0)) else { continue };
                match proto.field("object") {
                    Some(base) if prototype_of(proto, src).is_some() => (class, base),
                    _ => continue,
                }
            }
            _ => continue,
        };
        if matches!(base.kind_name(), "identifier" | "member_expression") {
            out.push((class.into_owned(), base));
        }
    }
    out
}

/// `require('util').inherits` (or `require('node:util')`), the callee written without a name
/// for the module.
fn is_required_util_inherits(callee: Node, src: &[u8]) -> bool {
    callee.kind_name() == "member_expression"
        && callee.field("property").is_some_and(|p| text(p, src) == "inherits")
        && callee.field("object").and_then(|o| required_spec(o, src)).is_some_and(|m| matches!(m.as_str(), "util" | "node:util"))
}

/// A `function` (declared, or a function expression a declarator names) whose body may use
/// `this` as the instance it constructs; not an arrow function, whose `this` is outside it.
pub(super) fn is_plain_function(node: Node) -> bool {
    match node.kind_name() {
        "function_declaration" | "function_expression" | "generator_function_declaration" => true,
        "variable_declarator" => node.field("value").is_some_and(|v| v.kind_name() == "function_expression"),
        _ => false,
    }
}

/// Keeps, of the member assignments `C.x = …` captured as properties, those that set a member
/// of a name the file declares at module level ([`member_owners`]: `C.VERSION = '1'`,
/// `Store.instance = new Store()` in `Store.get`, `const api = {}; api.client = new Client()`):
/// `exports.x = 1`, `el.textContent = …` or `app.locals = …` define nothing, `exports.X = class
/// {}` defines the class `X`, and `F.prototype = { … }` the methods of `F`.
pub(super) fn keep_static_members(caps: &mut super::captures::Captures, src: &[u8]) {
    fn object_of(node: Node) -> Option<Node> {
        if node.kind_name() != "assignment_expression" {
            return None;
        }
        let left = node.field("left").filter(|l| l.kind_name() == "member_expression");
        left?.field("object").filter(|o| o.kind_name() == "identifier")
    }
    if !caps.defs.iter().any(|&(kind, node, _)| kind == DefKind::Property && object_of(node).is_some()) {
        return;
    }
    let owners = member_owners(caps.root, src);
    caps.defs.retain(|&(kind, node, name)| {
        let Some(object) = object_of(node).filter(|_| kind == DefKind::Property) else { return true };
        // (`F.prototype = { … }` gives `F` its methods: `literal_prototype_owner`.)
        let class = node.field("right").is_some_and(|r| r.kind_name() == "class");
        let prototype = name.is_some_and(|n| text(n, src) == "prototype");
        !class && !prototype && owners.contains(&text(object, src))
    });
}

/// The names a file declares at module level that members are written into (`C.x = …`): its
/// classes and functions (also a declarator's class or function expression, and `var f = a ||
/// function …`), and the objects it declares by a literal (`const api = {}`).
fn member_owners<'s>(root: Node, src: &'s [u8]) -> crate::resolve::Set<std::borrow::Cow<'s, str>> {
    let function = |v: Node| matches!(v.kind_name(), "function_expression" | "arrow_function" | "generator_function");
    let mut owners = crate::resolve::Set::default();
    for statement in named_children(root) {
        let declaration = if statement.kind_name() == "export_statement" { statement.field("declaration") } else { Some(statement) };
        let Some(declaration) = declaration else { continue };
        match declaration.kind_name() {
            "class_declaration"
            | "abstract_class_declaration"
            | "function_declaration"
            | "generator_function_declaration"
            | "function_signature" => owners.extend(declaration.field("name").map(|n| text(n, src))),
            "lexical_declaration" | "variable_declaration" => {
                for declarator in named_children(declaration) {
                    let owns = declarator.field("value").is_some_and(|v| match v.kind_name() {
                        "object" | "class" => true,
                        "binary_expression" => v.field("right").is_some_and(function),
                        _ => function(v),
                    });
                    owners.extend(declarator.field("name").filter(|n| owns && n.kind_name() == "identifier").map(|n| text(n, src)));
                }
            }
            _ => {}
        }
    }
    owners
}

/// `h = b`: a reassignment of a declared name, not a declaration.
pub(super) fn is_reassignment(ident: Node, parent: Option<Node>) -> bool {
    parent.is_some_and(|p| p.kind_name() == "assignment_expression" && p.field("left") == Some(ident))
}

/// The declared type of a definition: a function's or method's return annotation, a
/// property's (or parameter property's) type annotation.
pub(super) fn declared_type<'t>(parents: &Parents<'t>, node: Node<'t>, src: &[u8]) -> Option<ValueSource> {
    let field = match node.kind_name() {
        "function_declaration" | "method_definition" | "function_signature" | "method_signature" | "generator_function_declaration" => {
            "return_type"
        }
        // `private logger = new Logger()`; `this.session = session || new Session()`.
        "public_field_definition" if node.field("type").is_none() => return made_value(node.field("value")?, src, 0),
        // (`Store.instance = new Store()`: a static member, kept by `keep_static_members`.)
        "assignment_expression"
            if node.field("left").and_then(|l| l.field("object")).is_some_and(|o| matches!(o.kind_name(), "this" | "identifier")) =>
        {
            return made_value(node.field("right")?, src, 0);
        }
        "public_field_definition" | "required_parameter" | "property_signature" => "type",
        "variable_declarator" => {
            // `const f = (): Foo => ...`
            let v = node.field("value")?;
            return v.field("return_type").and_then(|t| annotation_source(bound_of_type_parameter(v, t, src), src));
        }
        // `export default new Service()`: the value exported.
        _ if parents.of(node).is_some_and(|p| p.kind_name() == "export_statement") => return expression_value(node, src),
        _ => return None,
    };
    let t = bound_of_type_parameter(node, node.field(field)?, src);
    // `Promise<Foo>` returned by an async function is still a Foo to its awaiting callers.
    let inner = if t.kind_name() == "type_annotation" { t.named_child(0)? } else { t };
    if inner.kind_name() == "generic_type" && inner.field("name").is_some_and(|n| text(n, src) == "Promise") {
        let arg = inner.field("type_arguments").and_then(|a| a.named_child(0))?;
        return annotation_path(arg, src).map(ValueSource::Annotation);
    }
    annotation_source(t, src)
}

/// What a member is given that makes its value: `new Foo()`, a call (`createPool()`), also the
/// one such value written beside another passed through as it is (`session || new
/// Session()`, `opts.session ?? new Session()`, `s ? s : new Session()`; a name, a member,
/// `null`, `undefined`); what goes through a member is `inferred` either way.
fn made_value(v: Node, src: &[u8], depth: usize) -> Option<ValueSource> {
    match v.kind_name() {
        "new_expression" | "call_expression" | "await_expression" => match expression_value_at(v, src, depth)? {
            made @ (ValueSource::New(_) | ValueSource::Call(_)) => Some(made),
            _ => None,
        },
        "parenthesized_expression" | "as_expression" | "non_null_expression" | "satisfies_expression" if depth < 4 => {
            made_value(v.named_child(0)?, src, depth + 1)
        }
        "ternary_expression" | "binary_expression" if depth < 4 => {
            let branches = if v.kind_name() == "ternary_expression" {
                [v.field("consequence")?, v.field("alternative")?]
            } else {
                if !matches!(v.field("operator")?.kind_name(), "||" | "??") {
                    return None;
                }
                [v.field("left")?, v.field("right")?]
            };
            let passed = |b: Node| matches!(b.kind_name(), "identifier" | "member_expression" | "null" | "undefined");
            super::values::made_beside_passed(branches, |b| made_value(b, src, depth + 1), passed)
        }
        _ => None,
    }
}

/// What a type annotation says a name holds: an instance of a class (`Foo`), or a container
/// of them (`Foo[]`, `Array<Foo>`, `ReadonlyArray<Foo>`, `readonly Foo[]`:
/// `each:type:Foo`), whose elements a loop over it, or a callback of its methods, binds.
fn annotation_source(t: Node, src: &[u8]) -> Option<ValueSource> {
    if let Some(elements) = tuple_elements(t, src) {
        return Some(ValueSource::Items(elements));
    }
    if let Some(element) = array_element(t, src) {
        return Some(ValueSource::Each(Box::new(ValueSource::Annotation(element))));
    }
    if let Some(value) = mapping_value(t, src) {
        return Some(ValueSource::Mapping(Box::new(ValueSource::Annotation(value))));
    }
    annotation_path(t, src).map(ValueSource::Annotation)
}

/// The value type of a mapping annotation (`Record<string, Item>`, `{ [key: string]: Item }`,
/// `Readonly<Record<string, Item>>`): what an entry `m[k]` holds.
fn mapping_value(t: Node, src: &[u8]) -> Option<String> {
    let inner = non_nullish(t, src)?;
    match inner.kind_name() {
        "generic_type" => {
            let args: Vec<Node> =
                named_children(inner.field("type_arguments")?).into_iter().filter(|n| n.kind_name() != "comment").collect();
            match (&*text(inner.field("name")?, src), args.as_slice()) {
                ("Record", [_, value]) => annotation_path(*value, src),
                ("Readonly", [arg]) => mapping_value(*arg, src),
                _ => None,
            }
        }
        // An object type of one index signature and nothing else.
        "object_type" => {
            let members: Vec<Node> = named_children(inner).into_iter().filter(|n| n.kind_name() != "comment").collect();
            match members.as_slice() {
                [signature] if signature.kind_name() == "index_signature" => annotation_path(signature.field("type")?, src),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The element types of a tuple annotation by position (`[ListParams, Modifiers]`, labelled
/// `[params: ListParams, …]` too): what `const [query, modifiers] = useListParams()` takes
/// apart. Positions whose type names no class are left out; `None` when none does.
fn tuple_elements(t: Node, src: &[u8]) -> Option<Vec<(String, ValueSource)>> {
    let mut inner = non_nullish(t, src)?;
    if inner.kind_name() == "readonly_type" {
        inner = inner.named_child(0)?;
    }
    if inner.kind_name() != "tuple_type" {
        return None;
    }
    let mut out = Vec::new();
    for (i, member) in named_children(inner).into_iter().filter(|n| n.kind_name() != "comment").enumerate() {
        let ty = match member.kind_name() {
            // `[a: A]`, `[b?: B]` (`[...rest: R[]]` ends the positions).
            "required_parameter" if member.field("name").is_some_and(|n| n.kind_name() == "rest_pattern") => break,
            "required_parameter" | "optional_parameter" => member.field("type"),
            "rest_type" => break,
            "optional_type" => member.named_child(0),
            _ => Some(member),
        };
        if let Some(v) = ty.and_then(|ty| annotation_source(ty, src)) {
            out.push((i.to_string(), v));
        }
    }
    (!out.is_empty()).then_some(out)
}

/// The element type of an array annotation.
fn array_element(t: Node, src: &[u8]) -> Option<String> {
    let mut inner = non_nullish(t, src)?;
    if inner.kind_name() == "readonly_type" {
        inner = inner.named_child(0)?;
    }
    match inner.kind_name() {
        "array_type" => annotation_path(inner.named_child(0)?, src),
        "generic_type" => {
            let name = inner.field("name")?;
            if !matches!(&*text(name, src), "Array" | "ReadonlyArray") {
                return None;
            }
            annotation_path(inner.field("type_arguments")?.named_child(0)?, src)
        }
        _ => None,
    }
}

/// The array methods whose callback's first parameter is each element of the receiver.
const ELEMENT_CALLBACKS: [&str; 10] = ["forEach", "map", "filter", "find", "findIndex", "findLast", "some", "every", "flatMap", "sort"];

/// The first parameter (`param`: the declaration, or the bare name of `x => …`) of a function
/// handed to an array method (`items.forEach((i) => …)`, `xs.map(function (x) {…})`): each
/// element of the receiver, `each:alias:items`.
fn callback_element<'t>(p: &Parents<'t>, param: Node<'t>, src: &[u8]) -> Option<ValueSource> {
    let function = match p.of(param)? {
        f if f.kind_name() == "arrow_function" => f,
        list if list.kind_name() == "formal_parameters" => {
            if list.named_child(0) != Some(param) {
                return None;
            }
            p.of(list).filter(|f| matches!(f.kind_name(), "arrow_function" | "function_expression"))?
        }
        _ => return None,
    };
    let arguments = p.of(function).filter(|a| a.kind_name() == "arguments" && a.named_child(0) == Some(function))?;
    let callee = p.of(arguments).filter(|c| c.kind_name() == "call_expression")?.field("function")?;
    if callee.kind_name() != "member_expression" || !ELEMENT_CALLBACKS.contains(&&*text(callee.field("property")?, src)) {
        return None;
    }
    let (receiver, _) = path_of(callee.field("object")?, src)?;
    // `this.load().forEach(…)`: the elements of what the call returns.
    let container = match receiver.strip_suffix("()") {
        Some(called) => ValueSource::Call(called.to_string()),
        None => ValueSource::Alias(receiver),
    };
    Some(ValueSource::Each(Box::new(container)))
}

/// A type without its `null` / `undefined` alternatives: `Foo | null`, `Foo[] | undefined`
/// are `Foo`, `Foo[]`; other types as they are, the annotation node unwrapped.
fn non_nullish<'t>(t: Node<'t>, src: &[u8]) -> Option<Node<'t>> {
    let mut inner = if t.kind_name() == "type_annotation" { t.named_child(0)? } else { t };
    while matches!(inner.kind_name(), "union_type" | "parenthesized_type") {
        let members: Vec<Node> = named_children(inner)
            .into_iter()
            .filter(|m| m.kind_name() != "comment" && !matches!(&*text(*m, src), "null" | "undefined" | "void"))
            .collect();
        match members.as_slice() {
            [one] => inner = *one,
            _ => return Some(inner),
        }
    }
    Some(inner)
}

/// A type that names one of `func`'s type parameters (`(): T` in `<T extends Store =
/// MemStore>() => …`, `T | undefined` too) stands for the type the parameter defaults to, else
/// for its constraint: what a call that does not say otherwise gets, and members it is sure
/// to have. Any other type (and a parameter with neither) is `t` itself.
fn bound_of_type_parameter<'t>(func: Node<'t>, t: Node<'t>, src: &[u8]) -> Node<'t> {
    let Some(params) = func.field("type_parameters") else { return t };
    let Some(named) = non_nullish(t, src).filter(|n| n.kind_name() == "type_identifier") else { return t };
    let name = text(named, src);
    named_children(params)
        .into_iter()
        .find(|p| p.kind_name() == "type_parameter" && p.field("name").is_some_and(|n| text(n, src) == name))
        .and_then(|p| p.field("value").or_else(|| p.field("constraint")))
        .and_then(|bound| bound.named_child(0))
        .unwrap_or(t)
}

pub(super) fn annotation_path(t: Node, src: &[u8]) -> Option<String> {
    let inner = non_nullish(t, src)?;
    match inner.kind_name() {
        "type_identifier" | "nested_type_identifier" => Some(text(inner, src).into_owned()),
        // `Partial<Props>`, `Omit<Props, 'id'>`: the members are those of the type it maps.
        "generic_type"
            if inner
                .field("name")
                .is_some_and(|n| matches!(&*text(n, src), "Partial" | "Required" | "Readonly" | "Pick" | "Omit" | "NonNullable")) =>
        {
            let first = named_children(inner.field("type_arguments")?).into_iter().find(|n| n.kind_name() != "comment")?;
            annotation_path(first, src)
        }
        "generic_type" => inner.field("name").map(|n| text(n, src).into_owned()),
        // `GetListParams & QueryFunctionContext`, `Partial<Request> & { headers?: HeaderMap }`:
        // a member found on the first named part is the value's (the compiler's type of it is
        // the intersection of each part's); one only another part declares is not looked for.
        "intersection_type" => {
            named_children(inner).into_iter().filter(|n| n.kind_name() != "comment").find_map(|n| annotation_path(n, src))
        }
        _ => None,
    }
}

/// The named types a type alias intersects or unites (`type R = Base & { id: number }`,
/// `type S = A | B`), in written order: its members are theirs, looked up like a class's
/// bases (a member of a union is found on the first type that declares it).
pub(super) fn alias_bases(node: Node, src: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    if node.kind_name() != "type_alias_declaration" {
        return out;
    }
    let mut stack: Vec<Node> = node.field("value").into_iter().collect();
    while let Some(t) = stack.pop() {
        match t.kind_name() {
            "intersection_type" | "union_type" | "parenthesized_type" => {
                let children: Vec<Node> = named_children(t).into_iter().collect();
                stack.extend(children.into_iter().rev());
            }
            _ => {
                if let Some(p) = annotation_path(t, src)
                    && !out.contains(&p)
                {
                    out.push(p);
                }
            }
        }
        if out.len() >= 32 {
            break;
        }
    }
    out
}

/// The declared types of a function definition's parameters by position (`(props: Props)`
/// gives `Props`; a parameter without one gives an empty entry; trailing empties dropped).
/// A component declared `const C: FC<Props> = (props) => …` takes `Props` from its type.
pub(super) fn param_types(node: Node, src: &[u8]) -> Vec<String> {
    let func = match node.kind_name() {
        "variable_declarator" | "pair" | "public_field_definition" => node.field("value"),
        _ => Some(node),
    };
    let mut out = Vec::new();
    if let Some(params) = func.and_then(|f| f.field("parameters")) {
        for p in named_children(params) {
            match p.kind_name() {
                "comment" => {}
                // `function f(this: Foo, a: A)`: `this` is not passed.
                "required_parameter" if p.field("pattern").is_some_and(|n| n.kind_name() == "this") => {}
                "required_parameter" | "optional_parameter" => out.push(
                    p.field("type")
                        .and_then(|t| annotation_path(func.map_or(t, |f| bound_of_type_parameter(f, t, src)), src))
                        .unwrap_or_default(),
                ),
                _ => out.push(String::new()),
            }
        }
    }
    if node.kind_name() == "variable_declarator"
        && out.first().is_none_or(|t| t.is_empty())
        && let Some(props) = node.field("type").and_then(|t| component_props(t, src))
    {
        match out.first_mut() {
            Some(first) => *first = props,
            None => out.push(props),
        }
    }
    while out.last().is_some_and(|t| t.is_empty()) {
        out.pop();
    }
    out
}

/// The props type of a React function component's declared type (`FC<Props>`,
/// `React.FunctionComponent<Props>`).
fn component_props(t: Node, src: &[u8]) -> Option<String> {
    let inner = if t.kind_name() == "type_annotation" { t.named_child(0)? } else { t };
    if inner.kind_name() != "generic_type" {
        return None;
    }
    let name = text(inner.field("name")?, src);
    let last = name.rsplit('.').next().unwrap_or(&name);
    if !matches!(last, "FC" | "VFC" | "FunctionComponent" | "VoidFunctionComponent" | "ComponentType") {
        return None;
    }
    annotation_path(inner.field("type_arguments")?.named_child(0)?, src)
}

/// The member a key names, as a path through the type its object is checked against:
/// `f({ a: 1 })` gives `f(#0).a` (the first parameter's declared type), `<Comp title="x"/>`
/// `Comp(#0).title`, `const { a } = load()` `load().a`, `({ a }: Props) =>` `Props.a`,
/// `return { a }` in `function make(): Made` `make().a`, nested keys a longer path.
/// `None` when the object is checked against nothing the file can name.
pub(super) fn key_path<'t>(p: &Parents<'t>, key: Node<'t>, src: &[u8]) -> Option<String> {
    let parent = p.of(key)?;
    let container = match parent.kind_name() {
        "pair" | "pair_pattern" => p.of(parent)?,
        "object" | "object_pattern" => parent,
        "method_definition" => p.of(parent).filter(|o| o.kind_name() == "object")?,
        "object_assignment_pattern" => p.of(parent)?,
        "jsx_attribute" => return Some(format!("{}.{}", element_props(p.of(parent)?, src)?, text(key, src))),
        _ => return None,
    };
    Some(format!("{}.{}", object_type_path(p, container, src)?, text(key, src)))
}

/// `Comp(#0)` for a JSX element `<Comp …>` (not for intrinsic elements such as `<div>`).
fn element_props(element: Node, src: &[u8]) -> Option<String> {
    let (path, _) = path_of(element.field("name")?, src)?;
    (path.contains('.') || path.starts_with(|c: char| c.is_ascii_uppercase())).then(|| format!("{path}(#0)"))
}

/// The path of the type an object literal or an object pattern is checked against (see
/// [`key_path`]), climbing through the keys of enclosing objects and patterns.
fn object_type_path<'t>(p: &Parents<'t>, object: Node<'t>, src: &[u8]) -> Option<String> {
    let mut keys: Vec<String> = Vec::new();
    let mut node = object;
    for _ in 0..super::MAX_SCOPE_WALK {
        let parent = p.of(node)?;
        let base = match parent.kind_name() {
            // Either branch of `c ? { … } : { … }`, `a ?? { … }`: checked against the same type.
            "parenthesized_expression" | "non_null_expression" | "assignment_pattern" | "ternary_expression" => {
                node = parent;
                continue;
            }
            "binary_expression" if parent.field("operator").is_some_and(|o| matches!(o.kind_name(), "??" | "||" | "&&")) => {
                node = parent;
                continue;
            }
            // `{ … } as const` says no type.
            "as_expression" if parent.named_child(1).is_none() => {
                node = parent;
                continue;
            }
            "satisfies_expression" | "as_expression" => parent.named_child(1).and_then(|t| annotation_path(t, src)),
            // A default in a parameter's pattern (`({ sort = { field: 'id' } }: Props)`): checked
            // against the member's type.
            "object_assignment_pattern" if parent.field("right").is_some_and(|r| r.id() == node.id()) => {
                let name = parent.field("left").filter(|l| l.kind_name() == "shorthand_property_identifier_pattern")?;
                keys.push(text(name, src).into_owned());
                node = p.of(parent)?;
                continue;
            }
            "arguments" => {
                let call = p.of(parent)?;
                let callee = call.field("function").or_else(|| call.field("constructor"))?;
                let (path, _) = path_of(callee, src)?;
                let index = named_children(parent).into_iter().filter(|n| n.kind_name() != "comment").position(|n| n.id() == node.id())?;
                Some(format!("{path}(#{index})"))
            }
            "pair" | "pair_pattern" if parent.field("value").is_some_and(|v| v.id() == node.id()) => {
                let key = parent.field("key").filter(|k| k.kind_name() == "property_identifier")?;
                keys.push(text(key, src).into_owned());
                node = p.of(parent)?;
                continue;
            }
            // `const [{ page }, { setPage }] = useListParams()`: the element at its place.
            "array_pattern" => {
                keys.push(format!("[{}]", pattern_place(parent, node)?));
                node = parent;
                continue;
            }
            "jsx_expression" => {
                let attr = p.of(parent).filter(|a| a.kind_name() == "jsx_attribute")?;
                let name = attr.named_child(0).filter(|n| n.kind_name() == "property_identifier")?;
                keys.push(text(name, src).into_owned());
                element_props(p.of(attr)?, src)
            }
            "variable_declarator" => match parent.field("type") {
                Some(t) => annotation_path(t, src),
                // `const { message } = error as ErrorWithArgs`: the type asserted.
                None if parent.field("name").is_some_and(|n| n.id() == node.id())
                    && let Some(asserted) = parent.field("value").and_then(|v| asserted_type(v, src)) =>
                {
                    Some(asserted)
                }
                // `const { a } = load()`: the pattern is the name, the value is what it takes apart.
                None if parent.field("name").is_some_and(|n| n.id() == node.id()) => {
                    parent.field("value").and_then(|v| expression_value(v, src)).and_then(|v| match v {
                        // `const { a } = require('m')` is an import.
                        ValueSource::Call(p) if p == "require" => None,
                        ValueSource::Call(p) => Some(format!("{p}()")),
                        ValueSource::Alias(p) => Some(p),
                        _ => None,
                    })
                }
                None => None,
            },
            "required_parameter" | "optional_parameter" => parent.field("type").and_then(|t| annotation_path(t, src)),
            "return_statement" => returned_from(parent, src),
            "arrow_function" if parent.field("body").is_some_and(|b| b.id() == node.id()) => function_result(parent, src),
            // `this.state = { … }` (`module.exports = { … }` is an export).
            "assignment_expression" if parent.field("right").is_some_and(|r| r.id() == node.id()) => parent
                .field("left")
                .and_then(|l| path_of(l, src))
                .map(|(p, _)| p)
                .filter(|p| p != "exports" && !p.starts_with("module.exports") && !p.starts_with("exports.")),
            _ => None,
        };
        let mut path = base?;
        for k in keys.iter().rev() {
            path.push('.');
            path.push_str(k);
        }
        return Some(path);
    }
    None
}

/// The type an expression is asserted to be (`error as ErrorWithArgs`, in parentheses too).
fn asserted_type(mut v: Node, src: &[u8]) -> Option<String> {
    while v.kind_name() == "parenthesized_expression" {
        v = v.named_child(0)?;
    }
    (v.kind_name() == "as_expression").then(|| annotation_path(v.named_child(1)?, src)).flatten()
}

/// The call of the function a `return` statement returns from (`make()`, `this.build()`),
/// whose declared return type the returned object is checked against.
fn returned_from(ret: Node, src: &[u8]) -> Option<String> {
    let mut node = ret;
    for _ in 0..super::MAX_SCOPE_WALK {
        node = node.parent()?;
        if matches!(
            node.kind_name(),
            "function_declaration" | "generator_function_declaration" | "method_definition" | "arrow_function" | "function_expression"
        ) {
            return function_result(node, src);
        }
    }
    None
}

/// `make()` for a function named `make` (a declaration, or an arrow or function expression
/// assigned to `const make`), `this.make()` for a method; only when it declares its return type.
fn function_result(func: Node, src: &[u8]) -> Option<String> {
    func.field("return_type")?;
    let name = match func.kind_name() {
        "function_declaration" | "generator_function_declaration" => text(func.field("name")?, src).into_owned(),
        "method_definition" => format!("this.{}", text(func.field("name")?, src)),
        _ => {
            let decl = func.parent().filter(|p| p.kind_name() == "variable_declarator")?;
            text(decl.field("name").filter(|n| n.kind_name() == "identifier")?, src).into_owned()
        }
    };
    Some(format!("{name}()"))
}

/// When `ident` is a name an object pattern of a parameter takes out of the argument
/// (`function f({ ok, fail: onFail, hooks: { before } })`): the function's node (or the
/// definition's, as [`parameter_of`] gives it), the parameter's position, and the member path
/// (`ok`, `fail`, `hooks.before`).
pub(super) fn destructured_parameter_of<'t>(p: &Parents<'t>, ident: Node<'t>, src: &[u8]) -> Option<(Node<'t>, Option<u32>, String)> {
    let mut keys: Vec<String> = Vec::new();
    let mut cur = ident;
    if cur.kind_name() == "shorthand_property_identifier_pattern" {
        keys.push(text(cur, src).into_owned());
        cur = p.of(cur)?;
        if cur.kind_name() == "object_assignment_pattern" {
            cur = p.of(cur)?;
        }
    }
    for _ in 0..8 {
        match cur.kind_name() {
            "object_pattern" => {
                let parent = p.of(cur)?;
                if matches!(parent.kind_name(), "required_parameter" | "optional_parameter") {
                    let (func, index, _) = parameter_of(p, cur)?;
                    keys.reverse();
                    return (!keys.is_empty()).then(|| (func, index, keys.join(".")));
                }
                cur = parent;
            }
            "pair_pattern" => {
                let key = cur.field("key").filter(|k| k.kind_name() == "property_identifier")?;
                keys.push(text(key, src).into_owned());
                cur = p.of(cur)?;
            }
            "identifier" if cur.id() == ident.id() => cur = p.of(cur)?,
            "assignment_pattern" => cur = p.of(cur)?,
            _ => return None,
        }
    }
    None
}

/// When `ident` is a plain parameter of a function (`(a, b) =>`, `function f(a: A)`, `x =>`;
/// not a name inside a destructured parameter): the function's node and the parameter's
/// position, and whether it is a rest parameter (`...args`: 1).
pub(super) fn parameter_of<'t>(p: &Parents<'t>, ident: Node<'t>) -> Option<(Node<'t>, Option<u32>, u8)> {
    let parent = p.of(ident)?;
    // `x => …`: the arrow's only parameter.
    if parent.kind_name() == "arrow_function" && parent.field("parameter").is_some_and(|p| p.id() == ident.id()) {
        return Some((parent, Some(0), 0));
    }
    let (param, splat) = match parent.kind_name() {
        "required_parameter" | "optional_parameter" if parent.field("pattern").is_some_and(|p| p.id() == ident.id()) => (parent, 0),
        "rest_pattern" => (p.of(parent).filter(|p| p.kind_name() == "required_parameter").unwrap_or(parent), 1),
        "formal_parameters" => (ident, 0),
        _ => return None,
    };
    let list = if param.kind_name() == "formal_parameters" { param } else { p.of(param)? };
    let list = if list.kind_name() == "formal_parameters" { list } else { p.of(list).filter(|l| l.kind_name() == "formal_parameters")? };
    let func = p.of(list)?;
    let mut index = 0u32;
    for p in named_children(list) {
        if p.kind_name() == "comment" || p.field("pattern").is_some_and(|n| n.kind_name() == "this") {
            continue;
        }
        if p.id() == param.id() || p.id() == ident.id() {
            return Some((func, (splat == 0).then_some(index), splat));
        }
        index += 1;
    }
    None
}
