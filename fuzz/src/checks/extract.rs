//! `extract_bytes`: one file of any bytes through `Extractor::extract`.
//!
//! Input: the first byte picks the language (`Lang::ALL[b % 4]`), the rest is the file.
//! Properties: extraction returns (never panics) for any bytes, valid UTF-8 or not; the facts
//! are well formed (the module symbol first, qnames unique, every index into the symbols in
//! range, positions inside the file); the references survive the stored blob's round trip;
//! a fresh extractor gives the same facts as one that already extracted other files; and so
//! do one that parses with the grammars' expanded tables, as a full index does, and one that
//! lexes with tree-sitter's own lexer step rather than ckg's short path for ASCII.

use std::cell::RefCell;
use std::collections::HashSet;

use ckg_core::extract::{ExpandedTables, Extractor};
use ckg_core::facts::{DiagnosticKind, FileFacts, SymbolKind};
use ckg_core::lang::Lang;

thread_local! {
    /// An extractor reused across inputs, as a worker thread reuses it across files.
    static REUSED: RefCell<Extractor> = RefCell::new(Extractor::new());
}

/// The language a leading byte picks.
pub fn lang_of(b: u8) -> Lang {
    Lang::ALL[usize::from(b) % Lang::ALL.len()]
}

/// The leading byte that picks `lang` (the inverse of [`lang_of`]).
pub fn lang_byte(lang: Lang) -> u8 {
    Lang::ALL.iter().position(|l| *l == lang).unwrap_or(0) as u8
}

/// The module name extraction is given for a file of `lang`.
pub fn module_of(lang: Lang) -> &'static str {
    match lang {
        Lang::Python => "pkg.mod",
        Lang::TypeScript => "src/mod.ts",
        Lang::Tsx => "src/mod.tsx",
        Lang::JavaScript => "src/mod.js",
    }
}

/// The `extract_bytes` target.
pub fn fuzz(data: &[u8]) {
    let Some((&first, src)) = data.split_first() else { return };
    check(lang_of(first), src);
}

/// Extracts `src` twice (a reused extractor and a fresh one), checks the facts and returns them.
pub fn check(lang: Lang, src: &[u8]) -> FileFacts {
    let module = module_of(lang);
    let facts = REUSED.with(|x| x.borrow_mut().extract(lang, module, src));
    well_formed(lang, module, src, &facts);
    let again = Extractor::new().extract(lang, module, src);
    assert!(facts == again, "extraction is not deterministic for this {lang:?} input");
    let expanded = Extractor::with_expanded_tables(ExpandedTables::ALL).extract(lang, module, src);
    assert!(facts == expanded, "the expanded tables give other facts for this {lang:?} input");
    let stock = Extractor::new().with_ascii_step(false).extract(lang, module, src);
    assert!(facts == stock, "the ASCII lexer step gives other facts for this {lang:?} input");
    let copying = Extractor::new().with_reduce_in_place(false).extract(lang, module, src);
    assert!(facts == copying, "the reduction in place gives other facts for this {lang:?} input");
    facts
}

/// The invariants the store and the resolver rely on.
pub fn well_formed(lang: Lang, module: &str, src: &[u8], facts: &FileFacts) {
    let n = facts.symbols.len();
    let first = facts.symbols.first().expect("the module symbol is always there");
    assert_eq!((first.kind, first.qname.as_str(), first.parent), (SymbolKind::Module, module, None), "symbols[0] is the module");
    assert_eq!(facts.lines, count_lines(src), "line count");
    let last_line = facts.lines.max(1);

    let mut qnames = HashSet::new();
    for (i, s) in facts.symbols.iter().enumerate() {
        assert!(qnames.insert(s.qname.as_str()), "qname {:?} twice in one file", s.qname);
        if i > 0 {
            let parent = s.parent.unwrap_or_else(|| panic!("symbol {:?} has no parent", s.qname)) as usize;
            assert!(parent < n && parent != i, "symbol {:?}: parent {parent} of {n}", s.qname);
        }
        assert!(s.line >= 1 && s.line <= last_line, "symbol {:?} at line {} of {last_line}", s.qname, s.line);
        assert!(s.col >= 1, "symbol {:?} at column 0", s.qname);
    }
    // Parent chains end at the module (no cycles).
    for s in &facts.symbols {
        let mut at = s.parent;
        let mut steps = 0;
        while let Some(p) = at {
            steps += 1;
            assert!(steps <= n, "the parents of {:?} form a cycle", s.qname);
            at = facts.symbols[p as usize].parent;
        }
    }
    for r in &facts.refs {
        assert!((r.src as usize) < n, "reference {:?}: enclosing symbol {} of {n}", r.path, r.src);
        assert!(r.line >= 1 && r.line <= last_line && r.col >= 1, "reference {:?} at {}:{} of {last_line} lines", r.path, r.line, r.col);
    }
    for i in &facts.imports {
        assert!((i.scope as usize) < n, "import of {:?}: scope {} of {n}", i.specifier, i.scope);
        assert!(i.line >= 1 && i.line <= last_line, "import of {:?} at line {}", i.specifier, i.line);
    }
    for e in &facts.exports {
        assert!(e.line >= 1 && e.line <= last_line, "export {:?} at line {}", e.name, e.line);
    }
    let invalid_utf8 = facts.diagnostics.iter().any(|d| d.kind == DiagnosticKind::InvalidUtf8);
    assert_eq!(invalid_utf8, std::str::from_utf8(src).is_err(), "the invalid UTF-8 diagnostic (lang {lang:?})");
    round_trip_refs(facts);
}

/// The references as the store keeps them: encoded into one blob and decoded back.
fn round_trip_refs(facts: &FileFacts) {
    let ids: Vec<i64> = (0..facts.symbols.len() as i64).map(|i| i * 7 + 1).collect();
    let blob = ckg_core::refblob::encode(&facts.refs, &ids);
    let decoded = ckg_core::refblob::decode(3, &blob).expect("a blob encode wrote decodes");
    let rows: Vec<_> = decoded.sites().collect();
    assert_eq!(rows.len(), facts.refs.len());
    for (row, r) in rows.iter().zip(&facts.refs) {
        assert_eq!((row.file, row.src), (3, ids[r.src as usize]));
        assert_eq!((row.kind, &row.path, &row.text, &row.binding), (r.kind, &r.path, &r.text, &r.binding));
        assert_eq!((row.line, row.col, row.computed, &row.args), (r.line, r.col, r.computed, &r.args));
    }
}

fn count_lines(src: &[u8]) -> u32 {
    let newlines = src.iter().filter(|&&b| b == b'\n').count() as u32;
    newlines + u32::from(!src.is_empty() && !src.ends_with(b"\n"))
}
