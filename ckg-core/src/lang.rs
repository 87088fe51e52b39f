//! The language registry: file extensions, tree-sitter grammars, and the query files under
//! `grammars/`, compiled once per grammar: the specification that extraction's hand-written
//! walks (`extract/captures/`) are tested against; indexing itself compiles none.

mod expanded;
mod lex_table;
pub(crate) mod lexer;
pub(crate) mod reduce;

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use tree_sitter::{Language, Query};

/// A source language as stored in the index. JavaScript is parsed with the TSX grammar
/// (a superset of JavaScript with JSX); it keeps its own name so summaries stay honest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    Python,
    TypeScript,
    Tsx,
    JavaScript,
}

/// The grammars we compile queries for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Grammar {
    Python,
    TypeScript,
    Tsx,
}

impl Lang {
    pub const ALL: [Lang; 4] = [Lang::Python, Lang::TypeScript, Lang::Tsx, Lang::JavaScript];

    /// Detects the language from a file name; `None` for files ckg does not index.
    pub fn from_path(path: &str) -> Option<Lang> {
        let name = path.rsplit('/').next().unwrap_or(path);
        let ext = name.rsplit_once('.').map(|(_, e)| e)?;
        Some(match ext {
            "py" | "pyi" => Lang::Python,
            "ts" | "mts" | "cts" => Lang::TypeScript,
            "tsx" => Lang::Tsx,
            "js" | "jsx" | "mjs" | "cjs" => Lang::JavaScript,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Lang::Python => "python",
            Lang::TypeScript => "typescript",
            Lang::Tsx => "tsx",
            Lang::JavaScript => "javascript",
        }
    }

    pub fn parse(s: &str) -> Option<Lang> {
        Lang::ALL.into_iter().find(|l| l.as_str() == s)
    }

    pub fn grammar(self) -> Grammar {
        match self {
            Lang::Python => Grammar::Python,
            Lang::TypeScript => Grammar::TypeScript,
            Lang::Tsx | Lang::JavaScript => Grammar::Tsx,
        }
    }

    /// True for the TypeScript/JavaScript family (module names are paths, `#` members).
    pub fn is_script(self) -> bool {
        !matches!(self, Lang::Python)
    }
}

/// The role of a capture name in a query file. Every capture name used in `grammars/` must
/// map to one of these (names starting with `_` are private to predicates).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Capture {
    Name,
    Definition(DefKind),
    Reference(crate::facts::RefKind),
    ImportStatement,
    ImportRequire,
    ImportDynamic,
    ExportStatement,
    /// `return Foo(...)` / `return new Foo()`: the returned call's callee is `@name`.
    ReturnCall,
    LocalScope,
    LocalDefinition,
    /// A destructuring pattern (`{ a, b: [c, d = 1] }`, `a, *rest`): every name it binds is a
    /// local definition (walked in Rust: patterns nest without bound).
    LocalPattern,
    /// `global x` / `nonlocal x`: the name is not a local of the function that says so.
    LocalGlobal,
    /// An attribute that is not a read (a callee, an assignment target, a decorator, the
    /// object of a longer chain).
    SkipRead,
    /// `_`-prefixed helper captures used only by predicates.
    Private,
}

/// The definition captures, before extraction refines them (a function in a class is a method).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefKind {
    Function,
    Method,
    Class,
    Interface,
    Type,
    Enum,
    Variable,
    Property,
    Lambda,
    Constant,
    Namespace,
}

/// The capture vocabulary, as written in the query files.
pub const CAPTURES: &[(&str, Capture)] = {
    use crate::facts::RefKind as R;
    &[
        ("name", Capture::Name),
        ("definition.function", Capture::Definition(DefKind::Function)),
        ("definition.method", Capture::Definition(DefKind::Method)),
        ("definition.class", Capture::Definition(DefKind::Class)),
        ("definition.interface", Capture::Definition(DefKind::Interface)),
        ("definition.type", Capture::Definition(DefKind::Type)),
        ("definition.enum", Capture::Definition(DefKind::Enum)),
        ("definition.variable", Capture::Definition(DefKind::Variable)),
        ("definition.property", Capture::Definition(DefKind::Property)),
        ("definition.lambda", Capture::Definition(DefKind::Lambda)),
        ("definition.constant", Capture::Definition(DefKind::Constant)),
        ("definition.namespace", Capture::Definition(DefKind::Namespace)),
        ("reference.call", Capture::Reference(R::Call)),
        ("reference.new", Capture::Reference(R::New)),
        ("reference.argument", Capture::Reference(R::Argument)),
        ("reference.jsx", Capture::Reference(R::Jsx)),
        ("reference.decorator", Capture::Reference(R::Decorator)),
        ("reference.type", Capture::Reference(R::Type)),
        ("reference.inherits", Capture::Reference(R::Inherits)),
        ("reference.implements", Capture::Reference(R::Implements)),
        ("reference.member", Capture::Reference(R::Member)),
        ("reference.read", Capture::Reference(R::Read)),
        ("reference.patch", Capture::Reference(R::Patch)),
        ("reference.write", Capture::Reference(R::Write)),
        ("reference.with", Capture::Reference(R::With)),
        ("reference.key", Capture::Reference(R::Key)),
        ("reference.iter", Capture::Reference(R::Iter)),
        ("reference.await", Capture::Reference(R::Await)),
        ("import.statement", Capture::ImportStatement),
        ("import.require", Capture::ImportRequire),
        ("import.dynamic", Capture::ImportDynamic),
        ("export.statement", Capture::ExportStatement),
        ("return.call", Capture::ReturnCall),
        ("local.scope", Capture::LocalScope),
        ("local.definition", Capture::LocalDefinition),
        ("local.pattern", Capture::LocalPattern),
        ("local.global", Capture::LocalGlobal),
        ("skip.read", Capture::SkipRead),
    ]
};

/// Maps a capture name to its role; `None` for names outside the vocabulary.
pub fn capture_role(name: &str) -> Option<Capture> {
    if name.starts_with('_') {
        return Some(Capture::Private);
    }
    CAPTURES.iter().find(|(n, _)| *n == name).map(|(_, c)| *c)
}

/// The query sources for a grammar, in the order they are concatenated.
pub fn query_sources(grammar: Grammar) -> &'static [(&'static str, &'static str)] {
    match grammar {
        Grammar::Python => &[
            ("grammars/python/tags.scm", include_str!("../../grammars/python/tags.scm")),
            ("grammars/python/locals.scm", include_str!("../../grammars/python/locals.scm")),
        ],
        Grammar::TypeScript => &[
            ("grammars/typescript/tags.scm", include_str!("../../grammars/typescript/tags.scm")),
            ("grammars/typescript/locals.scm", include_str!("../../grammars/typescript/locals.scm")),
        ],
        Grammar::Tsx => &[
            ("grammars/typescript/tags.scm", include_str!("../../grammars/typescript/tags.scm")),
            ("grammars/typescript/locals.scm", include_str!("../../grammars/typescript/locals.scm")),
            ("grammars/tsx/tags.scm", include_str!("../../grammars/tsx/tags.scm")),
        ],
    }
}

impl Grammar {
    pub const ALL: [Grammar; 3] = [Grammar::Python, Grammar::TypeScript, Grammar::Tsx];

    /// The grammar's place in [`Grammar::ALL`]: an index into tables kept per grammar.
    pub(crate) fn slot(self) -> usize {
        self as usize
    }

    pub fn language(self) -> Language {
        match self {
            Grammar::Python => tree_sitter_python::LANGUAGE.into(),
            Grammar::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Grammar::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
        }
    }

    /// The grammar with its parse table expanded to a row per state (`lang/expanded.rs`): the
    /// same trees, parsed faster, for a few MiB made once per process. For parsing only (no
    /// query is compiled with it).
    pub fn expanded_language(self) -> Language {
        expanded::language(self)
    }

    /// [`Grammar::expanded_language`] if it is made; else `None`, and it is started on a
    /// thread of its own, once: for a caller that parses with the grammar as it comes
    /// meanwhile rather than waiting.
    pub fn expanded_language_if_made(self) -> Option<Language> {
        expanded::made_or_start(self)
    }
}

/// A grammar with its compiled query and the role of each capture index. Built once, shared
/// read-only by all threads (tree-sitter's `TagsConfiguration` pattern); the tests compare
/// the walks with it.
pub struct LanguageConfig {
    pub grammar: Grammar,
    pub language: Language,
    pub query: Query,
    pub roles: Vec<Capture>,
}

impl LanguageConfig {
    fn build(grammar: Grammar) -> Result<LanguageConfig, String> {
        let language = grammar.language();
        let source: String = query_sources(grammar).iter().map(|(_, s)| *s).collect::<Vec<_>>().join("\n");
        let query = Query::new(&language, &source).map_err(|e| format!("{grammar:?} queries: {e}"))?;
        let mut roles = Vec::new();
        for name in query.capture_names() {
            let role = capture_role(name).ok_or_else(|| format!("{grammar:?} queries: unknown capture @{name}"))?;
            roles.push(role);
        }
        Ok(LanguageConfig { grammar, language, query, roles })
    }

    /// The shared configuration for a grammar. The query files are part of the binary, so a
    /// failure here is a bug caught by the test suite, not a user error.
    pub fn get(grammar: Grammar) -> &'static LanguageConfig {
        static PY: OnceLock<LanguageConfig> = OnceLock::new();
        static TS: OnceLock<LanguageConfig> = OnceLock::new();
        static TSX: OnceLock<LanguageConfig> = OnceLock::new();
        let cell = match grammar {
            Grammar::Python => &PY,
            Grammar::TypeScript => &TS,
            Grammar::Tsx => &TSX,
        };
        cell.get_or_init(|| LanguageConfig::build(grammar).unwrap_or_else(|e| panic!("{e}")))
    }

    /// Compiles a grammar's queries, reporting errors instead of panicking (used by tests).
    pub fn try_build(grammar: Grammar) -> Result<LanguageConfig, String> {
        LanguageConfig::build(grammar)
    }
}

/// What the tests of the tree walks run on: every source file under `grammars/` and
/// `tests/fixtures/`, with the grammar its extension names.
#[cfg(test)]
pub(crate) fn fixture_sources() -> Vec<(Grammar, Vec<u8>)> {
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
            files.push((grammar, std::fs::read(entry.path()).unwrap()));
        }
    }
    assert!(files.len() > 500, "fixtures found: {}", files.len());
    files
}

/// All a parse decides about a node: what two parses of one input are compared by.
#[cfg(test)]
#[derive(Debug, PartialEq)]
pub(crate) struct NodeFacts {
    kind: u16,
    symbol: u16,
    bytes: (usize, usize),
    points: (tree_sitter::Point, tree_sitter::Point),
    /// Its parse state and next state.
    states: (u16, u16),
    pub(crate) missing: bool,
    extra: bool,
    pub(crate) error: bool,
    /// Its field in its parent (0: none).
    field: u16,
}

/// Every node of a tree in preorder, with all a parse decides about it.
#[cfg(test)]
pub(crate) fn node_facts(tree: &tree_sitter::Tree) -> Vec<NodeFacts> {
    let mut out = Vec::new();
    each_node(tree.root_node(), |cursor| {
        let n = cursor.node();
        out.push(NodeFacts {
            kind: n.kind_id(),
            symbol: n.grammar_id(),
            bytes: (n.start_byte(), n.end_byte()),
            points: (n.start_position(), n.end_position()),
            states: (n.parse_state(), n.next_parse_state()),
            missing: n.is_missing(),
            extra: n.is_extra(),
            error: n.is_error(),
            field: cursor.field_id().map_or(0, |f| f.get()),
        });
    });
    out
}

/// Calls `visit` at every node of a tree in preorder, with a cursor on it.
#[cfg(test)]
pub(crate) fn each_node<'t>(root: tree_sitter::Node<'t>, mut visit: impl FnMut(&tree_sitter::TreeCursor<'t>)) {
    let mut cursor = root.walk();
    loop {
        visit(&cursor);
        if cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_languages_by_extension() {
        assert_eq!(Lang::from_path("a/b.py"), Some(Lang::Python));
        assert_eq!(Lang::from_path("a/b.pyi"), Some(Lang::Python));
        assert_eq!(Lang::from_path("x.d.ts"), Some(Lang::TypeScript));
        assert_eq!(Lang::from_path("x.mts"), Some(Lang::TypeScript));
        assert_eq!(Lang::from_path("x.tsx"), Some(Lang::Tsx));
        assert_eq!(Lang::from_path("x.cjs"), Some(Lang::JavaScript));
        assert_eq!(Lang::from_path("x.jsx"), Some(Lang::JavaScript));
        assert_eq!(Lang::from_path("Makefile"), None);
        assert_eq!(Lang::from_path("x.rs"), None);
    }

    #[test]
    fn a_grammars_slot_is_its_place_in_all() {
        let slots: Vec<usize> = Grammar::ALL.iter().map(|g| g.slot()).collect();
        assert_eq!(slots, [0, 1, 2]);
    }

    #[test]
    fn every_query_file_compiles_with_known_captures_only() {
        for g in Grammar::ALL {
            LanguageConfig::try_build(g).unwrap();
        }
    }

    #[test]
    fn unknown_capture_names_are_rejected() {
        assert!(capture_role("definition.function").is_some());
        assert!(capture_role("_helper").is_some());
        assert!(capture_role("definition.macro").is_none());
        assert!(capture_role("reference.class").is_none());
    }
}
