//! The reduction in place of ckg's tree-sitter (`vendor/tree-sitter`, its README): what every
//! parser of an [`Extractor`](crate::extract::Extractor) parses with, unless asked for
//! tree-sitter as it comes (the `parse-only` baseline).
//!
//! tree-sitter reduces a parse by copying the stack version it reduces, even when there is
//! only one version and nothing else holds the popped stack nodes (nearly every reduction in
//! source code). A parser given the reduction in place reduces such a version where it is:
//! the same parent nodes and stack, so the same trees (the test below compares them), the
//! parse ~13 % faster (README, profile steps of 2026-12-06).

use tree_sitter::Parser;

unsafe extern "C" {
    fn ts_parser_set_reduce_in_place(parser: *mut tree_sitter::ffi::TSParser, on: bool);
}

/// `parser`, reducing in place where the stack allows it.
pub fn in_place(parser: Parser) -> Parser {
    let raw = parser.into_raw();
    // SAFETY: a live parser; the setter writes one field of it, which the parse reads.
    unsafe { ts_parser_set_reduce_in_place(raw, true) };
    // SAFETY: the parser taken apart above, given back once.
    unsafe { Parser::from_raw(raw) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::lexer::with_ascii_step;
    use crate::lang::{Grammar, node_facts};

    /// Every fixture, whole, cut in three places, salted with stray bytes and in reverse order
    /// of its lines (sources full of errors, whose recovery runs many stack versions), parsed
    /// by every grammar (a Python file read as TypeScript is mostly errors too), gives the same
    /// tree reduced in place as by copying, every node compared: with the grammars' tables and
    /// tree-sitter's lexer step (tree-sitter as it comes), and as an index parses (expanded
    /// tables, the short path for ASCII).
    #[test]
    fn a_reduction_in_place_parses_every_fixture_to_the_same_tree() {
        let sources: Vec<Vec<u8>> = crate::lang::fixture_sources()
            .into_iter()
            .flat_map(|(_, src)| {
                let salted: Vec<u8> =
                    src.iter().enumerate().flat_map(|(i, &b)| if i % 53 == 52 { vec![b, b"{)'\"`(["[i % 7]] } else { vec![b] }).collect();
                let reversed: Vec<u8> = src.split(|&b| b == b'\n').rev().collect::<Vec<_>>().join(&b'\n');
                [src[..src.len() / 3].to_vec(), src[..src.len() / 2].to_vec(), src[..src.len() * 4 / 5].to_vec(), salted, reversed, src]
            })
            .collect();
        let (mut compared, mut errors) = (0, 0);
        for grammar in Grammar::ALL {
            for (language, ascii_step) in [(grammar.language(), false), (grammar.expanded_language(), true)] {
                let step = |p: Parser| if ascii_step { with_ascii_step(p) } else { p };
                let (mut copying, mut in_place) = (step(Parser::new()), in_place(step(Parser::new())));
                copying.set_language(&language).unwrap();
                in_place.set_language(&language).unwrap();
                for src in &sources {
                    let expected = node_facts(&copying.parse(src, None).unwrap());
                    compared += expected.len();
                    errors += expected.iter().filter(|n| n.error || n.missing).count();
                    let got = node_facts(&in_place.parse(src, None).unwrap());
                    assert!(got == expected, "{grammar:?}: {}", String::from_utf8_lossy(src));
                }
            }
        }
        assert!(compared > 1_000_000, "nodes compared: {compared}");
        assert!(errors > 10_000, "error and missing nodes: {errors}");
    }
}
