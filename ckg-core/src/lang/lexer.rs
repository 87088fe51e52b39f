//! tree-sitter's lexer step with a short path for ASCII text (`lexer.c`): what every parser of
//! an [`Extractor`](crate::extract::Extractor) lexes with, unless asked for tree-sitter as it
//! comes (the `parse-only` baseline).
//!
//! A generated lexer reads its input one character at a time through a function pointer
//! tree-sitter sets to its own step, which is general: logging, included ranges, chunks,
//! decoding. From one ASCII character to the next inside one chunk (nearly every step of
//! source code), the step here does only what tree-sitter's does then, and leaves every other
//! step to it: the same positions and lookahead, so the same tokens and trees (the test below
//! compares them, positions included). Parsing alone, on one core: see the README's profile.

use tree_sitter::Parser;

unsafe extern "C" {
    fn ckg_lexer_step(parser: *mut tree_sitter::ffi::TSParser) -> bool;
    #[cfg(test)]
    fn ckg_lexer_trace(
        src: *const u8,
        len: u32,
        chunk: u32,
        ranges: *const tree_sitter::ffi::TSRange,
        range_count: u32,
        ascii_step: bool,
        out: *mut tests::Lexed,
        cap: usize,
    ) -> usize;
}

/// `parser` (a new one: before it parses), lexing with the short path for ASCII; as it was
/// when its lexer does not look as the linked tree-sitter makes a new one (a debug build
/// stops there, so that no test compares tree-sitter's step with itself unawares).
pub fn with_ascii_step(parser: Parser) -> Parser {
    let raw = parser.into_raw();
    // SAFETY: a live parser; the C side checks its lexer's fields before it changes the step,
    // and the step it sets keeps the lexer's state as tree-sitter's does.
    let taken = unsafe { ckg_lexer_step(raw) };
    debug_assert!(taken, "a new parser's lexer is not laid out as lexer.c expects");
    // SAFETY: the parser taken apart above, given back once.
    unsafe { Parser::from_raw(raw) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Grammar;
    use crate::lang::node_facts;
    use tree_sitter::Point;

    /// Where a lexer is before one of its steps (`CkgLexed` in `lexer.c`).
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    pub(super) struct Lexed {
        bytes: u32,
        row: u32,
        column: u32,
        token_start: u32,
        /// `get_column` plus one, asked every third step (0: not asked).
        column_told: u32,
        lookahead: i32,
    }

    /// Every step of a lexer through `src`, read `chunk` bytes at a time inside `ranges`
    /// (none: all of it), with the short path or tree-sitter's step.
    fn trace(src: &[u8], chunk: u32, ranges: &[tree_sitter::ffi::TSRange], ascii_step: bool) -> Vec<Lexed> {
        // A step per byte at most, and one at the end.
        let mut out = vec![Lexed::default(); src.len() + 2];
        // SAFETY: `src` and `ranges` are live for the call; `out` has room for `out.len()`.
        let n = unsafe {
            ckg_lexer_trace(
                src.as_ptr(),
                src.len() as u32,
                chunk,
                ranges.as_ptr(),
                ranges.len() as u32,
                ascii_step,
                out.as_mut_ptr(),
                out.len(),
            )
        };
        out.truncate(n);
        out
    }

    /// `src` with the bytes the short path leaves to tree-sitter's step written in every few
    /// bytes: a two-byte and a three-byte character, an invalid byte, a cut character, NUL,
    /// carriage returns, a byte-order mark, newlines.
    fn salted(src: &[u8]) -> Vec<u8> {
        const SALT: [&[u8]; 9] =
            [b"\xc3\xa9", "\u{2028}".as_bytes(), b"\xff", b"\xe2\x82", b"\0", b"\r\n", "\u{feff}".as_bytes(), b"\n", b"\t\r"];
        let mut out = "\u{feff}".as_bytes().to_vec();
        for (i, chunk) in src.chunks(37).enumerate() {
            out.extend_from_slice(chunk);
            out.extend_from_slice(SALT[i % SALT.len()]);
        }
        out
    }

    /// Every fixture, whole, cut, with a byte-order mark and salted with the bytes the short
    /// path does not take, parsed by every grammar, gives the same tree with the step as with
    /// tree-sitter's own, each node at the same bytes and points; with either parse table.
    #[test]
    fn the_ascii_step_lexes_every_fixture_to_the_same_tree() {
        let sources: Vec<Vec<u8>> = crate::lang::fixture_sources()
            .into_iter()
            .flat_map(|(_, src)| {
                let bom = ["\u{feff}".as_bytes(), &src].concat();
                [src[..src.len() / 2].to_vec(), salted(&src), bom, src]
            })
            .collect();
        let mut compared = 0;
        for grammar in Grammar::ALL {
            for language in [grammar.language(), grammar.expanded_language()] {
                let (mut own, stepped) = (Parser::new(), Parser::new());
                let mut stepped = with_ascii_step(stepped);
                own.set_language(&language).unwrap();
                stepped.set_language(&language).unwrap();
                for src in &sources {
                    let expected = node_facts(&own.parse(src, None).unwrap());
                    compared += expected.len();
                    assert_eq!(node_facts(&stepped.parse(src, None).unwrap()), expected, "{grammar:?}: {}", String::from_utf8_lossy(src));
                }
            }
        }
        assert!(compared > 1_000_000, "nodes compared: {compared}");
    }

    /// A lexer stepping through the fixtures, salted, read in chunks of many sizes (a step at a
    /// chunk's end is left to tree-sitter's) and inside included ranges (so is one at a range's
    /// end), is at the same place with the short path as with tree-sitter's step before every
    /// step: bytes, point, token start, lookahead, and the column `get_column` tells.
    #[test]
    fn the_ascii_step_moves_as_tree_sitters_does() {
        let point = |column| Point { row: 0, column }.into();
        let range =
            |start_byte: u32, end_byte: u32| tree_sitter::ffi::TSRange { start_point: point(0), end_point: point(0), start_byte, end_byte };
        let (mut steps, mut sources) = (0, 0);
        // Every sixth source of 64 bytes or more (ranges cut a tiny one to nothing).
        for (_, src) in crate::lang::fixture_sources().into_iter().filter(|(_, src)| src.len() >= 64).step_by(6) {
            sources += 1;
            let salted = salted(&src);
            let len = salted.len() as u32;
            // Two ranges and an empty one between them, cut inside the text.
            let ranges = [range(len / 5, len / 2), range(len / 2 + 3, len / 2 + 3), range(len / 2 + 9, len - len / 7)];
            for chunk in [1, 2, 3, 5, 64, 4096, len.max(1)] {
                for ranges in [&ranges[..0], &ranges[..]] {
                    let expected = trace(&salted, chunk, ranges, false);
                    assert!(
                        expected.len() > salted.len() / 4 || salted.len() < 16,
                        "stepped through {} bytes: {} steps",
                        salted.len(),
                        expected.len()
                    );
                    steps += expected.len();
                    assert_eq!(
                        trace(&salted, chunk, ranges, true),
                        expected,
                        "chunks of {chunk}, ranges {}: {}",
                        ranges.len(),
                        String::from_utf8_lossy(&salted)
                    );
                }
            }
        }
        assert!(sources > 100 && steps > 500_000, "{steps} steps through {sources} sources");
    }

    /// A new parser's lexer is laid out as the step expects: else every parser would lex with
    /// tree-sitter's own step, and the tests above would compare it with itself.
    #[test]
    fn a_new_parser_takes_the_ascii_step() {
        let raw = Parser::new().into_raw();
        // SAFETY: a live parser, not yet used.
        let (first, again) = unsafe { (ckg_lexer_step(raw), ckg_lexer_step(raw)) };
        // SAFETY: the parser made above, freed once.
        drop(unsafe { Parser::from_raw(raw) });
        assert!(first && again);
    }
}
