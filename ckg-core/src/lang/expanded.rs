//! Each grammar with its parse table expanded to a row per state (`expanded.c`): what a run
//! that parses many files parses with.
//!
//! tree-sitter searches a list for each lookup in most states of a grammar; the expanded table
//! reads one entry. Every lookup gives the same value, so the trees are the same, node for
//! node (the tests below: every (state, symbol) of each grammar, and the trees of every
//! fixture). Parsing alone, on one core (`ckg parse-only -j 1`, ...): see the README's profile
//! steps. The table costs a few MiB per grammar (Python 1.5 MiB, TypeScript 4.4 MiB, TSX 4.7
//! MiB) and a few milliseconds to write, once per process. For parsing only: no query is
//! compiled with it (query analysis walks a state's symbols through tree-sitter's lookahead
//! iterator, which lists them in another order in the copy).
//!
//! Python's copy also restores its external scanner's state without freeing its lists
//! (`python_restore` in `expanded.c`, tree-sitter-python's `deserialize` step for step): the
//! same scanner state, one `free` and one `malloc` fewer at each of its ~3.1M restores on
//! django.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use tree_sitter::Language;

use super::Grammar;
use super::lex_table::{self, LexFn};

unsafe extern "C" {
    fn ckg_expanded_language(
        language: *const tree_sitter::ffi::TSLanguage,
        lex: Option<LexFn>,
        keyword_lex: Option<LexFn>,
    ) -> *const tree_sitter::ffi::TSLanguage;
    #[cfg(test)]
    fn ckg_expanded_restores_python_scanner(language: *const tree_sitter::ffi::TSLanguage) -> bool;
    #[cfg(test)]
    fn ckg_language_lookup(language: *const tree_sitter::ffi::TSLanguage, state: u32, symbol: u32) -> u16;
}

/// The expanded copy of each grammar (by [`Grammar::slot`]), made when first asked for: its
/// address, or `None` when it could not be made (the grammar's own tables are used then).
static EXPANDED: [OnceLock<Option<usize>>; Grammar::ALL.len()] = [const { OnceLock::new() }; Grammar::ALL.len()];

/// Whether a grammar's copy is being made, or made, by [`made_or_start`].
static STARTED: [AtomicBool; Grammar::ALL.len()] = [const { AtomicBool::new(false) }; Grammar::ALL.len()];

/// The grammar's expanded copy, made on this thread if no other made it (the grammar itself
/// when no copy can be made).
pub(super) fn language(grammar: Grammar) -> Language {
    let copy = EXPANDED[grammar.slot()].get_or_init(|| {
        let language = grammar.language().into_raw();
        let (lex, keyword_lex) = lex_table::lexers(grammar, language);
        // SAFETY: a live grammar; the lexers stand in for its own (`lex_table.c`).
        let copy = unsafe { ckg_expanded_language(language, lex, keyword_lex) };
        (!copy.is_null()).then_some(copy as usize)
    });
    match copy {
        Some(copy) => unsafe { Language::from_raw(*copy as *const tree_sitter::ffi::TSLanguage) },
        None => grammar.language(),
    }
}

/// The grammar's expanded copy if it is made; else `None`, and the copy is started on a
/// thread of its own (`ckg-table`, once per process), so that the caller parses with the
/// grammar as it comes (the same trees) rather than waiting: making TypeScript's and TSX's
/// copies takes ~10 ms, mostly faulting in their fresh pages, during which both parse
/// threads of a two-core run waited at the start of every run.
pub(super) fn made_or_start(grammar: Grammar) -> Option<Language> {
    if EXPANDED[grammar.slot()].get().is_some() {
        // Made: `language` only reads it.
        return Some(language(grammar));
    }
    if !STARTED[grammar.slot()].swap(true, Ordering::AcqRel) {
        let spawned = std::thread::Builder::new().name("ckg-table".into()).spawn(move || drop(language(grammar)));
        if spawned.is_err() {
            return Some(language(grammar));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::node_facts;
    use tree_sitter::Parser;

    /// Every (state, symbol) of each grammar gives the same table value from its copy: the
    /// action or next state a parse reads there.
    #[test]
    fn an_expanded_grammar_looks_up_what_the_grammar_does_everywhere() {
        for grammar in Grammar::ALL {
            let (own, copy) = (grammar.language(), language(grammar));
            let (states, symbols) = (own.parse_state_count(), own.node_kind_count());
            assert_eq!((copy.parse_state_count(), copy.node_kind_count()), (states, symbols));
            let (own, copy) = (own.into_raw(), copy.into_raw());
            assert_ne!(own, copy, "{grammar:?}: no expanded copy was made");
            let (mut compared, mut found) = (0, 0);
            // The kinds count the aliases too, past the table's symbols: looked up as 0.
            for state in 0..states as u32 {
                for symbol in 0..symbols as u32 {
                    // SAFETY: live grammars (the lookup checks the state and the symbol).
                    let (expected, got) = unsafe { (ckg_language_lookup(own, state, symbol), ckg_language_lookup(copy, state, symbol)) };
                    assert_eq!(got, expected, "{grammar:?}: state {state}, symbol {symbol}");
                    compared += 1;
                    found += usize::from(expected != 0);
                }
            }
            assert!(found > compared / 50, "{grammar:?}: {found} entries of {compared}");
        }
    }

    /// Python's copy restores its scanner's state without freeing its lists (`expanded.c`),
    /// and parses to the same trees: every fixture (below) and, here, indentation many levels
    /// deep and strings inside f-strings inside brackets, whole and cut at every line.
    #[test]
    fn the_python_copy_restores_its_scanner_to_the_same_trees() {
        let copy = language(Grammar::Python);
        // SAFETY: live grammars.
        let (python, typescript) = unsafe {
            (
                ckg_expanded_restores_python_scanner(copy.clone().into_raw()),
                ckg_expanded_restores_python_scanner(language(Grammar::TypeScript).into_raw()),
            )
        };
        assert!(python && !typescript, "only Python's copy restores its scanner itself");
        let mut src = String::new();
        for depth in 0..40 {
            let pad = "    ".repeat(depth);
            src.push_str(&format!(
                "{pad}if x{depth}:\n{pad}    y = f\"{{a[f'{{b!r}}' + \"\"\"c{{d}}\"\"\"]}}\" + rb'\\e' + (\n{pad}        '''t\n{pad}u''')\n"
            ));
        }
        for depth in (0..40).rev() {
            src.push_str(&format!("{}z{depth} = [\n1,\n]\n", "    ".repeat(depth)));
        }
        let (mut own, mut other) = (Parser::new(), Parser::new());
        own.set_language(&Grammar::Python.language()).unwrap();
        other.set_language(&copy).unwrap();
        assert!(!own.parse(&src, None).unwrap().root_node().has_error(), "the whole source parses:\n{src}");
        let cuts: Vec<usize> = src.match_indices('\n').map(|(i, _)| i).chain([src.len()]).collect();
        for cut in cuts {
            let cut_src = &src.as_bytes()[..cut];
            let (a, b) = (own.parse(cut_src, None).unwrap(), other.parse(cut_src, None).unwrap());
            assert_eq!(node_facts(&b), node_facts(&a), "cut at {cut}");
        }
    }

    /// Every fixture parsed by every grammar (a Python file read as TypeScript is mostly
    /// errors: the recovery takes its own lookups), whole and cut in the middle, gives the same
    /// tree with the expanded table as with the grammar's own.
    #[test]
    fn an_expanded_grammar_parses_every_fixture_to_the_same_tree() {
        let sources: Vec<Vec<u8>> =
            crate::lang::fixture_sources().into_iter().flat_map(|(_, src)| [src[..src.len() / 2].to_vec(), src]).collect();
        let (mut errors, mut compared) = (0, 0);
        for grammar in Grammar::ALL {
            let expanded = language(grammar);
            assert_ne!(language(grammar).into_raw(), grammar.language().into_raw(), "{grammar:?}: no expanded copy was made");
            let (mut own, mut other) = (Parser::new(), Parser::new());
            own.set_language(&grammar.language()).unwrap();
            other.set_language(&expanded).unwrap();
            for src in &sources {
                let (a, b) = (own.parse(src, None).unwrap(), other.parse(src, None).unwrap());
                let expected = node_facts(&a);
                errors += expected.iter().filter(|n| n.error || n.missing).count();
                compared += expected.len();
                assert_eq!(node_facts(&b), expected, "{grammar:?}: {}", String::from_utf8_lossy(src));
            }
        }
        assert!(errors > 10_000, "error recovery was exercised: {errors} error or missing nodes of {compared}");
    }
}
