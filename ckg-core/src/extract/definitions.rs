//! Naming the definitions: each definition capture becomes a symbol with a qname, a kind, a
//! parent and a position, in source order so that parents come first.

use tree_sitter::Node;

use crate::resolve::{Map, Set};

use super::captures::Captures;
use super::probe::{PositionFact, Probe};
use super::scopes::Nesting;
use super::syntax::{position, text};
use super::values::declared_type;
use super::{module_symbol, typescript};
use crate::facts::{FileFacts, SymbolFact, SymbolKind};
use crate::field::{Field, Kind};
use crate::lang::{DefKind, Lang};

/// What naming the definitions tells the later stages (see [`super::File`]).
pub(super) struct Named {
    pub(super) sym_of_def: Vec<u32>,
    pub(super) sym_of_interval: Map<usize, u32>,
    pub(super) name_nodes: Set<usize>,
    /// JavaScript: the file's `@typedef`s.
    pub(super) typedefs: super::jsdoc::Typedefs,
    /// JavaScript: the functions typed by their JSDoc's `@returns`.
    pub(super) jsdoc_returns: Set<u32>,
}

/// Adds the module's symbol and one symbol per definition (redefinitions share the first);
/// returns what the definitions became and the symbols by qname.
#[allow(clippy::too_many_arguments)] // extraction's parts of one file, each borrowed as it is
pub(super) fn name_definitions<'t>(
    lang: Lang,
    module: &str,
    src: &[u8],
    caps: &Captures<'t>,
    nesting: &Nesting,
    parents: &super::syntax::Parents<'t>,
    facts: &mut FileFacts,
    probe: &mut Option<Probe>,
) -> (Named, Map<String, u32>) {
    let is_py = lang == Lang::Python;
    let iv = &nesting.intervals;
    let typedefs = if lang == Lang::JavaScript { super::jsdoc::Typedefs::of(src) } else { Default::default() };
    let mut jsdoc_returns = Set::default();
    facts.symbols.push(module_symbol(lang, module, facts));
    let sep = if lang.is_script() { '#' } else { '.' };
    let mut sym_of_def: Vec<u32> = vec![0; caps.defs.len()];
    let mut qindex: Map<String, u32> = Map::default();
    qindex.insert(module.to_string(), 0);
    let mut lambda_counter: Map<u32, u32> = Map::default();
    let mut name_nodes: Set<usize> = Set::default();
    // Attributes first set to nothing ([`sets_nothing`]), not yet given another value.
    let mut first_none: Set<u32> = Set::default();
    let mut order: Vec<usize> = (0..iv.len()).filter(|&i| iv[i].def.is_some()).collect();
    order.sort_by(|&a, &b| iv[a].start.cmp(&iv[b].start).then(iv[b].end.cmp(&iv[a].end)));
    // TS/JS constructor functions: a function with `F.prototype.m = …` members, or whose body
    // assigns `this.x`, is a class (as the compiler reads JavaScript).
    // The owner each such member is assigned to (`F`, `this`), by interval.
    let mut owners: Map<usize, (String, bool)> = Map::default();
    let mut constructors: Set<usize> = Set::default();
    let mut prototype_owners: Set<String> = Set::default();
    if lang.is_script() {
        for &i in &order {
            let node = caps.defs[iv[i].def.expect("filtered")].1;
            // A method of an object literal inside another definition is that definition's.
            if matches!(node.kind_name(), "method_definition" | "pair") && iv[i].def_above.is_some() {
                continue;
            }
            let Some((owner, prototype)) = typescript::assigned_owner(parents, node, src) else { continue };
            if prototype {
                prototype_owners.insert(owner.to_string());
            } else if owner == "this" {
                let above = iv[i].def_above.filter(|&a| typescript::is_plain_function(caps.defs[iv[a].def.expect("a def")].1));
                constructors.extend(above);
            }
            owners.insert(i, (owner.into_owned(), prototype));
        }
    }
    // interval index -> symbol index, filled as we go.
    let mut sym_of_interval: Map<usize, u32> = Map::default();
    for i in order {
        let d = iv[i].def.expect("filtered");
        let (kind, node, name_node) = caps.defs[d];
        let mut parent = iv[i].def_above.and_then(|p| sym_of_interval.get(&p).copied()).unwrap_or(0);
        // A constructor parameter property (`constructor(private svc: S)`) and a Python
        // `self.x = ...` attribute belong to the class, not to the method.
        let owner = owners.get(&i);
        if node.kind_name() == "required_parameter"
            || ((matches!(node.kind_name(), "assignment" | "assignment_expression" | "attribute")
                || owner.is_some_and(|(o, _)| o == "this"))
                && facts.symbols[parent as usize].kind != SymbolKind::Class)
        {
            parent = facts.symbols[parent as usize].parent.unwrap_or(parent);
        }
        // `F.prototype.m = …` / `F.m = …`: a member of `F` where the file defines it at module
        // level; otherwise a module-level name written `F.m`.
        let mut prefix = None;
        if let Some((o, _)) = owner.filter(|(o, _)| o != "this") {
            match qindex.get(&format!("{module}{sep}{o}")) {
                Some(&p) => parent = p,
                None => prefix = Some(format!("{o}.")),
            }
        }
        let parent_kind = facts.symbols[parent as usize].kind;
        let name = match (kind, name_node) {
            (DefKind::Lambda, _) => {
                let n = lambda_counter.entry(parent).or_insert(0);
                *n += 1;
                format!("<lambda{n}>")
            }
            (_, Some(n)) => {
                name_nodes.insert(n.id());
                let t = text(n, src);
                t.trim_matches(|c| c == '"' || c == '\'').to_string()
            }
            (_, None) => "default".to_string(),
        };
        let name = match prefix {
            Some(p) => format!("{p}{name}"),
            None => name,
        };
        // An object literal with methods is a constant or a variable by its declaration.
        let kind = match kind {
            DefKind::Variable if lang.is_script() && typescript::declared_const(parents, node) => DefKind::Constant,
            k => k,
        };
        let constructor = constructors.contains(&i) || (parent == 0 && kind == DefKind::Function && prototype_owners.contains(&name));
        let kind = match kind {
            DefKind::Function if constructor => SymbolKind::Class,
            DefKind::Function if is_py && parent_kind == SymbolKind::Class => SymbolKind::Method,
            DefKind::Function if owner.is_some() && parent != 0 => SymbolKind::Method,
            DefKind::Function => SymbolKind::Function,
            DefKind::Method => SymbolKind::Method,
            DefKind::Class => SymbolKind::Class,
            DefKind::Interface => SymbolKind::Interface,
            DefKind::Type => SymbolKind::Type,
            DefKind::Enum => SymbolKind::Enum,
            DefKind::Variable => SymbolKind::Variable,
            DefKind::Property => SymbolKind::Property,
            DefKind::Lambda => SymbolKind::Lambda,
            DefKind::Constant => SymbolKind::Constant,
            DefKind::Namespace => SymbolKind::Namespace,
        };
        let parent_q = &facts.symbols[parent as usize].qname;
        let mut qname = String::with_capacity(parent_q.len() + 1 + name.len());
        qname.push_str(parent_q);
        qname.push(if parent == 0 { sep } else { '.' });
        qname.push_str(&name);
        let (line, col) = position(name_node.unwrap_or(node));
        let exported =
            if lang.is_script() { parent == 0 && typescript::is_exported(parents, node) } else { parent == 0 && !name.starts_with('_') };
        // Redefinitions and overloads share one node: the first definition's position.
        let idx = match qindex.get(&qname) {
            // A declared field assigned a function (`onClick: () => void` and
            // `this.onClick = function () {…}`): a method, whose body is its own.
            Some(&existing) if kind == SymbolKind::Method && facts.symbols[existing as usize].kind == SymbolKind::Property => {
                facts.symbols[existing as usize].kind = SymbolKind::Method;
                existing
            }
            // An attribute first set to nothing (`self.session = None`, `this.pool = null`, a
            // field `session;`) and given a value later (`self.session = Session()` in another
            // method): what the first such value gives.
            Some(&existing) if kind == SymbolKind::Property && first_none.contains(&existing) => {
                facts.symbols[existing as usize].ty = declared_type(lang, parents, node, src);
                if facts.symbols[existing as usize].ty.is_some() {
                    first_none.remove(&existing);
                }
                existing
            }
            Some(&existing) => existing,
            None => {
                let idx = facts.symbols.len() as u32;
                // JavaScript: JSDoc's `@returns {T}` / `@type {T}`, as TypeScript's annotations.
                let function = matches!(kind, SymbolKind::Function | SymbolKind::Method);
                let jsdoc = (lang == Lang::JavaScript).then(|| super::jsdoc::declared(parents, node, function, src, &typedefs)).flatten();
                if let Some((_, Some(spec))) = &jsdoc {
                    super::jsdoc::note_import(&mut facts.imports, spec, (line, col));
                }
                if jsdoc.is_some() && function {
                    jsdoc_returns.insert(idx);
                }
                let ty = jsdoc.map(|(ty, _)| ty).or_else(|| declared_type(lang, parents, node, src));
                // (Not when its annotation says what it holds: `self.x: Foo | None = None`.)
                if kind == SymbolKind::Property && ty.is_none() && sets_nothing(lang, node) {
                    first_none.insert(idx);
                }
                facts.symbols.push(SymbolFact {
                    qname: qname.clone(),
                    name,
                    kind,
                    parent: Some(parent),
                    line,
                    col,
                    end_line: node.end_position().row as u32 + 1,
                    exported,
                    bases: if lang.is_script() { typescript::alias_bases(node, src) } else { Vec::new() },
                    ty,
                    decorators: Vec::new(),
                    param_uses: Vec::new(),
                    param_types: if lang.is_script() { typescript::param_types(node, src) } else { Vec::new() },
                });
                qindex.insert(qname, idx);
                idx
            }
        };
        sym_of_def[d] = idx;
        sym_of_interval.insert(i, idx);
        if name_node.is_some_and(|n| Probe::covers(probe, n)) {
            Probe::set(probe, PositionFact::Definition(facts.symbols[idx as usize].qname.clone()));
        }
    }
    (Named { sym_of_def, sym_of_interval, name_nodes, typedefs, jsdoc_returns }, qindex)
}

/// An attribute's definition that gives it no value: Python's `self.x = None`; TS/JS's
/// `this.x = null` / `undefined`, a field declared without a type and with no value or one of
/// those.
fn sets_nothing(lang: Lang, node: Node) -> bool {
    let nothing = |v: Node| if lang == Lang::Python { v.kind_name() == "none" } else { matches!(v.kind_name(), "null" | "undefined") };
    match node.kind_name() {
        "assignment" | "assignment_expression" => node.field("right").is_some_and(nothing),
        "public_field_definition" => node.field("type").is_none() && node.field("value").is_none_or(nothing),
        _ => false,
    }
}
