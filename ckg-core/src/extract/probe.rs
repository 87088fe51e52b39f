//! What is at one position of a file, for `def`: [`Extractor::position`] runs extraction with
//! a [`Probe`], and the stage that meets the position says what is there ([`PositionFact`]):
//! a definition, a local's binding, a use to resolve, an imported name or module.

use tree_sitter::Node;

use super::scopes::{Local, Locals, Nesting, bind, lookup_binding};
use super::syntax::{path_of, text};
use super::{Extractor, File, build, count_lines};
use crate::facts::{FileFacts, LocalBinding};
use crate::field::{Field, Kind};
use crate::lang::Lang;

/// What is at one position of a file, as extraction sees it from the file alone: what `def`
/// answers, once `resolve` has bound the names that leave the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionFact {
    /// The name of a definition or a value symbol of this file.
    Definition(String),
    /// A local variable or parameter: its binding site (1-based line and column).
    Local { name: String, line: u32, col: u32, parameter: bool },
    /// A use of a name or member: the path written up to the position (`a.b` on the `b` of
    /// `a.b.c()`), the symbol whose code it is in, and how its first name is bound.
    Use { src: String, path: String, binding: LocalBinding },
    /// A name an import statement binds (index into `FileFacts::imports`).
    Import(usize),
    /// A module named by an import statement, written up to the position (`pkg.mod`, `..util`).
    Module(String),
}

/// A position being looked up during extraction, and what was found there.
pub(super) struct Probe {
    pub(super) at: usize,
    pub(super) found: Option<PositionFact>,
}

impl Probe {
    pub(super) fn covers(probe: &Option<Probe>, node: Node) -> bool {
        probe.as_ref().is_some_and(|p| p.found.is_none() && node.start_byte() <= p.at && p.at < node.end_byte().max(node.start_byte() + 1))
    }

    pub(super) fn set(probe: &mut Option<Probe>, fact: PositionFact) {
        if let Some(p) = probe.as_mut().filter(|p| p.found.is_none()) {
            p.found = Some(fact);
        }
    }
}

impl Extractor {
    /// What is at a 1-based line and column (UTF-8 bytes) of a file: a definition's name, a
    /// local's binding, a use to resolve, an imported name, an imported module. `None` on
    /// whitespace, keywords and literals. The file's facts come with it (the imports a
    /// [`PositionFact::Import`] indexes).
    pub fn position(&mut self, lang: Lang, module: &str, src: &[u8], line: u32, col: u32) -> (FileFacts, Option<PositionFact>) {
        let mut facts = FileFacts { lines: count_lines(src), ..FileFacts::default() };
        let Some(at) = byte_offset(src, line, col) else { return (facts, None) };
        let Some(tree) = self.parse(lang, src) else { return (facts, None) };
        let captures = super::captures::of(lang.grammar(), tree.root_node(), src, &mut self.room);
        let mut probe = Some(Probe { at, found: None });
        build(lang, module, src, captures, &mut facts, &mut probe);
        (facts, probe.and_then(|p| p.found))
    }
}

/// The byte offset of a 1-based line and column (the column counts bytes).
fn byte_offset(src: &[u8], line: u32, col: u32) -> Option<usize> {
    if line == 0 || col == 0 {
        return None;
    }
    let mut start = 0;
    for _ in 1..line {
        start += src[start..].iter().position(|&b| b == b'\n')? + 1;
    }
    let end = src[start..].iter().position(|&b| b == b'\n').map_or(src.len(), |e| start + e);
    let at = start + col as usize - 1;
    (at < end).then_some(at)
}

/// The name or member under a position inside a reference's expression: the expression up to
/// it (`a.b` for the `b` of `a.b.c()`), or `None` when the position is not on a name.
fn segment_at<'t>(top: Node<'t>, at: usize) -> Option<Node<'t>> {
    let leaf = top.descendant_for_byte_range(at, at)?;
    if !matches!(
        leaf.kind_name(),
        "identifier" | "property_identifier" | "type_identifier" | "private_property_identifier" | "shorthand_property_identifier"
    ) {
        return None;
    }
    let mut node = leaf;
    while node.id() != top.id() {
        let Some(parent) = node.parent() else { break };
        let member_name = match parent.kind_name() {
            "member_expression" => parent.field("property") == Some(node),
            "attribute" => parent.field("attribute") == Some(node),
            "nested_type_identifier" | "nested_identifier" => {
                parent.named_child(parent.named_child_count().saturating_sub(1)) == Some(node)
            }
            _ => false,
        };
        if !member_name {
            break;
        }
        node = parent;
    }
    Some(node)
}

/// What a position inside a reference is: a local's binding, a nested definition, or a use
/// of the path written up to it.
#[allow(clippy::too_many_arguments)]
pub(super) fn probe_use(
    lang: Lang,
    top: Node,
    at: usize,
    src: &[u8],
    inner: Option<usize>,
    src_sym: u32,
    nesting: &Nesting,
    locals: &Locals,
    facts: &FileFacts,
) -> Option<PositionFact> {
    let prefix = segment_at(top, at)?;
    // `ns.Type` in a type is one node: cut it at the segment under the position.
    let (path, _) = path_of(prefix, src)?;
    let path = match prefix.kind_name() {
        "nested_type_identifier" | "nested_identifier" => {
            let upto = &text(prefix, src)[..(at - prefix.start_byte() + 1).min(prefix.byte_range().len())];
            let end = text(prefix, src)[upto.len()..].find('.').map_or(path.len(), |i| upto.len() + i);
            path[..end.min(path.len())].to_string()
        }
        _ => path,
    };
    if !path.contains('.') {
        let bare = path.strip_suffix("()").unwrap_or(&path);
        if let Some(b) = lookup_binding(bare, at, inner, nesting, locals) {
            return Some(match &b.local {
                Local::Def(sym) => PositionFact::Definition(facts.symbols[*sym as usize].qname.clone()),
                Local::Param { .. } | Local::Var(_) => {
                    let (line, col) = line_col(src, b.site);
                    PositionFact::Local { name: bare.to_string(), line, col, parameter: matches!(b.local, Local::Param { .. }) }
                }
            });
        }
    }
    let binding = bind(lang, &path, at, inner, src_sym, nesting, locals, facts);
    Some(PositionFact::Use { src: facts.symbols[src_sym as usize].qname.clone(), path, binding })
}

/// What a position inside an import (or a TS export) statement is: a name it binds (the
/// imported name or its alias), a module it names, or (`export { a as b }` without `from`) a
/// use of a local name.
pub(super) fn probe_import(lang: Lang, statement: Node, at: usize, src: &[u8], facts: &FileFacts, first: usize) -> Option<PositionFact> {
    let leaf = statement.descendant_for_byte_range(at, at)?;
    let name = text(leaf, src).trim_matches(|c| c == '"' || c == '\'').to_string();
    // Python: inside the module of `from pkg.mod import x` (or `import pkg.mod`), a segment is
    // a module, whatever the names imported are called.
    let in_module = statement.field("module_name").is_some_and(|m| m.byte_range().contains(&at))
        || (statement.kind_name() == "import_statement" && leaf.parent().is_some_and(|p| p.kind_name() == "dotted_name") && {
            let dotted = leaf.parent().unwrap();
            // `import a.b.c` (or `import a.b.c as m`, off the alias): each segment is a module.
            dotted.parent().is_some_and(|d| d.kind_name() == "import_statement" || d.kind_name() == "aliased_import")
                && dotted.parent().and_then(|d| d.field("alias")).is_none_or(|a| !a.byte_range().contains(&at))
        });
    if !in_module && leaf.parent().is_some_and(|p| p.kind_name() == "namespace_export") {
        // `export * as ns from './m'`: `ns` is the module.
        if let Some(i) = (first..facts.imports.len()).find(|&i| facts.imports[i].kind == crate::facts::ImportKind::Namespace) {
            return Some(PositionFact::Import(i));
        }
    }
    let by_name = (!in_module)
        .then(|| {
            (first..facts.imports.len())
                .find(|&i| facts.imports[i].local.as_deref() == Some(&name) || facts.imports[i].imported.as_deref() == Some(&name))
        })
        .flatten();
    if let Some(i) =
        by_name.filter(|_| matches!(leaf.kind_name(), "identifier" | "property_identifier" | "shorthand_property_identifier_pattern"))
    {
        return Some(PositionFact::Import(i));
    }
    // `export { a as b } from './m'`: the alias stands for the name it re-exports.
    if let Some(spec) = leaf.parent().filter(|p| p.kind_name() == "export_specifier") {
        let target = spec.field("name").map(|n| text(n, src).into_owned()).unwrap_or_default();
        if let Some(i) = (first..facts.imports.len()).find(|&i| facts.imports[i].imported.as_deref() == Some(&target)) {
            return Some(PositionFact::Import(i));
        }
        // `export { a as b }`: a use of the module's own `a`.
        return Some(PositionFact::Use { src: facts.symbols[0].qname.clone(), path: target, binding: LocalBinding::Free });
    }
    if lang.is_script() {
        // The module specifier string.
        let string = if leaf.kind_name() == "string" { Some(leaf) } else { leaf.parent().filter(|p| p.kind_name() == "string") };
        return string.map(|s| PositionFact::Module(text(s, src).trim_matches(|c| c == '"' || c == '\'' || c == '`').to_string()));
    }
    // Python: `pkg.mod` in `import pkg.mod` / `from pkg.mod import x`, `..util` in
    // `from ..util import x`: the module written up to the segment under the position.
    let mut dotted = leaf;
    while !matches!(dotted.kind_name(), "dotted_name" | "relative_import") {
        dotted = dotted.parent().filter(|p| p.id() != statement.id())?;
    }
    let outer = dotted.parent().filter(|p| p.kind_name() == "relative_import").unwrap_or(dotted);
    let upto = &src[outer.start_byte()..leaf.end_byte().max(outer.start_byte())];
    let module: String = String::from_utf8_lossy(upto).chars().filter(|c| !c.is_whitespace()).collect();
    Some(PositionFact::Module(module))
}

/// The 1-based line and column of a byte offset.
fn line_col(src: &[u8], at: usize) -> (u32, u32) {
    let before = &src[..at.min(src.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
    let col = before.iter().rev().take_while(|&&b| b != b'\n').count() as u32 + 1;
    (line, col)
}

impl File<'_, '_> {
    /// `global x` / `nonlocal x`: the name there is the outer one.
    pub(super) fn probe_globals(&self, locals: &Locals, facts: &FileFacts, probe: &mut Option<Probe>) {
        let (lang, src, caps, nesting) = (self.lang, self.src, &self.caps, &self.nesting);
        let iv = &nesting.intervals;
        for (n, p) in caps.globals.iter().zip(&self.points.globals) {
            if Probe::covers(probe, *n) {
                let scope = nesting.scope_of(p.2).and_then(|s| iv[s].scope_above);
                let fact = probe_use(lang, *n, n.start_byte(), src, scope, self.sym_at(p.2), nesting, locals, facts);
                if let Some(f) = fact {
                    Probe::set(probe, f);
                }
            }
        }
    }
}
