//! Each grammar's lexers read from tables for ASCII characters (`lex_table.c`): what the
//! expanded copy of a grammar (`expanded.rs`) lexes with.
//!
//! A generated tree-sitter lexer tests the character read against one case after another
//! (`ADVANCE_MAP`'s linear search of up to 32 pairs, ranges, binary searches of character
//! sets): ~140 instructions a character of ra-core's TSX, where a table read takes a few. The
//! tables are `grammars/*/lexer.txt`, written by `scripts/lex_tables.py` from each pinned
//! grammar's own lexer, compiled and run on every (state, character 1-127); every other
//! character is lexed by the grammar's own code, from the state reached. The same tokens, so
//! the same trees: the tests below compare every entry with the grammar's own compiled lexer
//! (the token accepted, advance, skip or end; the state moved to shows in the trees), and the
//! expanded grammars' tests parse every fixture, whole, cut, salted and reversed, to the same
//! trees as the grammars as they come.

use super::Grammar;

/// tree-sitter's `TSLexer`, which its Rust binding does not name: only passed through.
#[repr(C)]
pub(super) struct TsLexer {
    _private: [u8; 0],
}

/// A lexer function of a grammar (`TSLanguage::lex_fn`, `keyword_lex_fn`).
pub(super) type LexFn = unsafe extern "C" fn(*mut TsLexer, u16) -> bool;

/// One lexer's tables, as `lex_table.c` reads them (`LexTable`).
#[repr(C)]
struct LexTable {
    moves: *const u16,
    accepts: *const u16,
    states: u32,
    own: Option<LexFn>,
}

unsafe extern "C" {
    fn ckg_table_lexer(table: *const LexTable) -> Option<LexFn>;
    fn ckg_language_lex_fn(language: *const tree_sitter::ffi::TSLanguage, keywords: bool) -> Option<LexFn>;
    #[cfg(test)]
    fn ckg_lex_step(lex: LexFn, state: u16, c: i32) -> tests::Step;
}

/// A lexer's tables as `grammars/*/lexer.txt` writes them (see `scripts/lex_tables.py`).
#[derive(Debug)]
struct Parsed {
    /// 128 moves per state: 0 ends the token, else the next state times 4 plus 1 (advance) or
    /// 2 (skip).
    moves: Vec<u16>,
    /// Per state, the symbol accepted on entry plus 1 (0: none).
    accepts: Vec<u16>,
}

fn tables_text(grammar: Grammar) -> &'static str {
    match grammar {
        Grammar::Python => include_str!("../../../grammars/python/lexer.txt"),
        Grammar::TypeScript => include_str!("../../../grammars/typescript/lexer.txt"),
        Grammar::Tsx => include_str!("../../../grammars/tsx/lexer.txt"),
    }
}

/// The tables of `text` by lexer name (`main`, `keywords`); an error names the line that does
/// not read.
fn parse(text: &str) -> Result<Vec<(&str, Parsed)>, String> {
    let mut out: Vec<(&str, Parsed)> = Vec::new();
    for (at, line) in text.lines().enumerate() {
        let bad = |what: &str| format!("line {}: {what}: {line}", at + 1);
        let mut words = line.split(' ');
        match words.next() {
            None | Some("") => continue,
            Some(w) if w.starts_with('#') => continue,
            Some("lexer") => {
                let name = words.next().ok_or_else(|| bad("no lexer name"))?;
                let states: usize = words.next().and_then(|n| n.parse().ok()).ok_or_else(|| bad("no state count"))?;
                out.push((name, Parsed { moves: vec![0; states * 128], accepts: vec![0; states] }));
            }
            Some(state) => {
                let (_, table) = out.last_mut().ok_or_else(|| bad("a state before any lexer"))?;
                let state: usize = state.parse().map_err(|_| bad("not a state"))?;
                if state >= table.accepts.len() {
                    return Err(bad("a state past the count"));
                }
                table.accepts[state] = match words.next().ok_or_else(|| bad("no accepted symbol"))? {
                    "-" => 0,
                    sym => sym.parse::<u16>().ok().and_then(|s| s.checked_add(1)).ok_or_else(|| bad("not a symbol"))?,
                };
                for run in words {
                    let (chars, to) = run.split_once(':').ok_or_else(|| bad("a run without ':'"))?;
                    let (first, last) = chars.split_once('-').unwrap_or((chars, chars));
                    let (first, last): (usize, usize) = first.parse().ok().zip(last.parse().ok()).ok_or_else(|| bad("not characters"))?;
                    let kind = match to.as_bytes().first() {
                        Some(b'a') => 1,
                        Some(b's') => 2,
                        _ => return Err(bad("not a move")),
                    };
                    let next: u16 = to[1..].parse().ok().filter(|&n: &u16| n < 1 << 14).ok_or_else(|| bad("not a state"))?;
                    if first == 0 || first > last || last > 127 {
                        return Err(bad("characters out of 1-127"));
                    }
                    for c in first..=last {
                        table.moves[state * 128 + c] = next << 2 | kind;
                    }
                }
            }
        }
    }
    Ok(out)
}

/// The table lexers of `grammar` (its main and its keyword lexer), to be set in a copy of
/// `language`, its own tables; `None` for one that has no table or no slot left. The tables
/// are made once per grammar (they live as long as the process's parsers).
pub(super) fn lexers(grammar: Grammar, language: *const tree_sitter::ffi::TSLanguage) -> (Option<LexFn>, Option<LexFn>) {
    let mut parsed = match parse(tables_text(grammar)) {
        Ok(parsed) => parsed,
        Err(e) => {
            debug_assert!(false, "{grammar:?}'s lexer tables: {e}");
            return (None, None);
        }
    };
    let mut lexer = |name: &str, keywords: bool| {
        // SAFETY: a live grammar.
        let own = unsafe { ckg_language_lex_fn(language, keywords) }?;
        let at = parsed.iter().position(|(n, _)| *n == name)?;
        let (_, table) = parsed.swap_remove(at);
        // Never freed: the lexer reads them for as long as the process parses.
        let moves: &'static [u16] = table.moves.leak();
        let accepts: &'static [u16] = table.accepts.leak();
        let table = LexTable { moves: moves.as_ptr(), accepts: accepts.as_ptr(), states: accepts.len() as u32, own: Some(own) };
        // SAFETY: the arrays are never freed, and hold 128 moves and one symbol per state.
        unsafe { ckg_table_lexer(&table) }
    };
    (lexer("main", false), lexer("keywords", true))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a lexer does with a character in a state, up to its first step (`CkgLexStep`).
    #[repr(C)]
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(super) struct Step {
        accept: i32,
        kind: i32,
    }

    /// Every (state, character 1-127) of every table accepts the token the grammar's own lexer
    /// accepts there, and advances, skips or ends as it does (which state it moves to shows in
    /// the trees: the expanded grammars' tests).
    #[test]
    fn every_table_entry_does_what_the_grammars_own_lexer_does() {
        for grammar in Grammar::ALL {
            let language = grammar.language().into_raw();
            let parsed = parse(tables_text(grammar)).unwrap();
            assert_eq!(parsed.iter().map(|(n, _)| *n).collect::<Vec<_>>(), ["main", "keywords"], "{grammar:?}");
            let (mut moves, mut skips, mut accepts) = (0, 0, 0);
            for (name, table) in &parsed {
                // SAFETY: a live grammar.
                let own = unsafe { ckg_language_lex_fn(language, *name == "keywords") }.unwrap();
                for state in 0..table.accepts.len() {
                    for c in 1..128 {
                        let mv = table.moves[state * 128 + c];
                        let expected = Step { accept: i32::from(table.accepts[state]) - 1, kind: i32::from(mv & 3) };
                        // SAFETY: the grammar's own lexer, run on a lexer of the probe's own.
                        let got = unsafe { ckg_lex_step(own, state as u16, c as i32) };
                        assert_eq!(expected, got, "{grammar:?} {name}: state {state}, character {c}");
                        moves += usize::from(mv != 0);
                        skips += usize::from(mv & 3 == 2);
                        accepts += usize::from(c == 1 && table.accepts[state] != 0);
                    }
                }
            }
            assert!(moves > 2_000 && skips > 20 && accepts > 100, "{grammar:?}: {moves} moves, {skips} skips, {accepts} accepting states");
        }
    }

    /// The tables are those `scripts/lex_tables.py` writes from the grammars Cargo.lock pins.
    #[test]
    fn the_tables_are_those_of_the_pinned_grammars() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let out = std::process::Command::new("python3").arg("scripts/lex_tables.py").arg("--check").current_dir(root).output();
        let out = out.expect("python3 runs scripts/lex_tables.py");
        assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    }

    #[test]
    fn a_table_that_does_not_read_is_refused_with_its_line() {
        for (text, what) in [
            ("lexer main 2\n2 -\n", "a state past the count"),
            ("0 -\n", "a state before any lexer"),
            ("lexer main 1\n0 - 0:a1\n", "characters out of 1-127"),
            ("lexer main 1\n0 - 9:x1\n", "not a move"),
            ("lexer main 1\n0 - 9:a16384\n", "not a state"),
        ] {
            let err = parse(text).unwrap_err();
            assert!(err.contains(what), "{text:?}: {err}");
        }
        let parsed = parse("# c\nlexer main 2\n0 5 9-10:s0 97:a1\n1 -\n").unwrap();
        assert_eq!(parsed[0].1.accepts, [6, 0]);
        assert_eq!((parsed[0].1.moves[9], parsed[0].1.moves[10], parsed[0].1.moves[97], parsed[0].1.moves[98]), (2, 2, 5, 0));
    }
}
