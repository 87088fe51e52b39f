#!/usr/bin/env python3
"""Writes the lexers of the pinned grammars as tables, for their ASCII characters.

    python3 scripts/lex_tables.py          # writes grammars/{python,typescript,tsx}/lexer.txt
    python3 scripts/lex_tables.py --check  # exits 1 when a written table differs

A generated tree-sitter lexer (`ts_lex` and `ts_lex_keywords` in a grammar's `src/parser.c`) is
a `switch` on its state, each case a chain of tests of the character read (`ADVANCE_MAP`'s
linear search of up to 32 pairs, binary searches of character ranges): ~140 instructions a
character on ra-core's TSX. `ckg-core/src/lang/lexer.c` lexes an ASCII character with one read
of a table written here: for each lexer state, the token it accepts on entry, and for each
character 1-127 what the case does — advance or skip to a state, or end.

The tables are not derived by reading the C: this script cuts the two functions, the
character sets and the symbol names out of each grammar's `parser.c` (found through
`cargo metadata`, at the versions Cargo.lock pins), compiles them with macros that stop after
one step and record it, and runs every (state, character) through them. So each entry is what
the grammar's own code does, compiled. The tests compare, at run time, every entry's accepted
token and its advance, skip or end with the grammar's own compiled lexer, and parse every
fixture with and without the tables to the same trees.

File format (one per grammar): comment lines start with `#`; `lexer NAME STATES` starts a
function's table (`main`, then `keywords` where the grammar has a keyword lexer); then one line
per state: the state, the symbol accepted on entry (`-`: none), then the characters that do not
end the token, as `FIRST[-LAST]:KIND NEXT` (KIND `a` advance, `s` skip; characters as decimal
codes). A character not listed ends the token.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (grammar folder under grammars/, crate, parser.c under the crate's folder)
GRAMMARS = [
    ("python", "tree-sitter-python", "src/parser.c"),
    ("typescript", "tree-sitter-typescript", "typescript/src/parser.c"),
    ("tsx", "tree-sitter-typescript", "tsx/src/parser.c"),
]

# One step of a lexer: records what the case does with the character read, then returns.
PROBE_MACROS = r"""
#undef START_LEXER
#undef ADVANCE
#undef ADVANCE_MAP
#undef SKIP
#undef ACCEPT_TOKEN
#undef END_STATE
static int probe_kind, probe_next, probe_accept, probe_accepts;
#define START_LEXER() \
  bool result = false; \
  bool eof = false; \
  int32_t lookahead = lexer->lookahead; \
  (void)eof;
#define ADVANCE(state_value) { probe_kind = 1; probe_next = (state_value); return result; }
#define SKIP(state_value) { probe_kind = 2; probe_next = (state_value); return result; }
#define ADVANCE_MAP(...) \
  { \
    static const uint16_t map[] = { __VA_ARGS__ }; \
    for (uint32_t i = 0; i < sizeof(map) / sizeof(map[0]); i += 2) { \
      if (map[i] == lookahead) ADVANCE(map[i + 1]); \
    } \
  }
#define ACCEPT_TOKEN(symbol_value) { result = true; probe_accept = (symbol_value); probe_accepts++; }
#define END_STATE() { probe_kind = 0; return result; }
"""

PROBE_MAIN = r"""
static bool probe_eof(const TSLexer *lexer) { (void)lexer; return false; }

static void probe(const char *name, bool (*lex)(TSLexer *, TSStateId), int states) {
  TSLexer lexer;
  memset(&lexer, 0, sizeof lexer);
  lexer.eof = probe_eof;
  printf("lexer %s %d\n", name, states);
  for (int state = 0; state < states; state++) {
    int accept = -2;
    printf("%d", state);
    int run_first = -1, run_kind = 0, run_next = 0, last = -1;
    char runs[65536];
    size_t used = 0;
    runs[0] = 0;
    for (int c = 1; c <= 128; c++) {
      int kind = 0, next = 0;
      if (c < 128) {
        probe_kind = 0; probe_next = 0; probe_accept = -1; probe_accepts = 0;
        lexer.lookahead = c;
        lex(&lexer, (TSStateId)state);
        if (probe_accepts > 1) { fprintf(stderr, "state %d accepts twice\n", state); exit(2); }
        if (accept == -2) accept = probe_accept;
        if (accept != probe_accept) { fprintf(stderr, "state %d accepts by character\n", state); exit(2); }
        kind = probe_kind; next = probe_next;
      }
      if (run_first >= 0 && (kind != run_kind || next != run_next)) {
        if (run_kind) {
          const char *k = run_kind == 1 ? "a" : "s";
          if (run_first == last) used += snprintf(runs + used, sizeof runs - used, " %d:%s%d", run_first, k, run_next);
          else used += snprintf(runs + used, sizeof runs - used, " %d-%d:%s%d", run_first, last, k, run_next);
        }
        run_first = -1;
      }
      if (run_first < 0) { run_first = c; run_kind = kind; run_next = next; }
      last = c;
    }
    if (accept < 0) printf(" -"); else printf(" %d", accept);
    printf("%s\n", runs);
  }
}
"""


def crate_dirs():
    """The folder of each crate Cargo.lock pins, by name."""
    out = subprocess.run(["cargo", "metadata", "--format-version", "1", "--locked"], cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"cargo metadata failed:\n{out.stderr}")
    meta = json.loads(out.stdout)
    return {p["name"]: (p["version"], os.path.dirname(p["manifest_path"])) for p in meta["packages"]}


def cut(text, start, end):
    """The text from the line that starts with `start` to the first `end` after it."""
    i = text.find(start)
    if i < 0:
        return None
    j = text.find(end, i)
    if j < 0:
        sys.exit(f"no end {end!r} after {start!r}")
    return text[i:j + len(end)]


def states_of(function):
    return 1 + max(int(n) for n in re.findall(r"^    case (\d+):", function, re.M))


def tables(parser_c, header_dir):
    """The text of one grammar's tables."""
    text = open(parser_c, encoding="utf-8").read()
    enum = cut(text, "enum ts_symbol_identifiers {", "\n};\n")
    sets = re.findall(r"^static (?:const )?TSCharacterRange \w+\[\] = \{.*?\n\};\n", text, re.M | re.S)
    main = cut(text, "static bool ts_lex(TSLexer *lexer, TSStateId state) {", "\n}\n")
    keywords = cut(text, "static bool ts_lex_keywords(TSLexer *lexer, TSStateId state) {", "\n}\n")
    if not enum or not main:
        sys.exit(f"{parser_c}: no symbol names or no lexer")
    for function in [main, keywords or ""]:
        for line in function.splitlines():
            # The probe's ACCEPT_TOKEN is a block: right only where the grammar's is a statement
            # of its own, at the start of a case.
            if "ACCEPT_TOKEN" in line and not re.match(r"^\s+ACCEPT_TOKEN\(\w+\);$", line):
                sys.exit(f"{parser_c}: ACCEPT_TOKEN in an unexpected place: {line.strip()}")
    parts = ["#include <stdbool.h>", "#include <stdint.h>", "#include <stdio.h>", "#include <stdlib.h>", "#include <string.h>",
             '#include "tree_sitter/parser.h"', PROBE_MACROS, enum, *sets, main]
    calls = [f'  probe("main", ts_lex, {states_of(main)});']
    if keywords:
        parts.append(keywords)
        calls.append(f'  probe("keywords", ts_lex_keywords, {states_of(keywords)});')
    parts += [PROBE_MAIN, "int main(void) {", *calls, "  return 0;", "}"]
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, "probe.c"), os.path.join(tmp, "probe")
        with open(src, "w") as f:
            f.write("\n".join(parts) + "\n")
        cc = os.environ.get("CC", "cc")
        build = subprocess.run([cc, "-O1", "-std=c11", "-w", "-I", header_dir, src, "-o", exe], capture_output=True, text=True)
        if build.returncode != 0:
            sys.exit(f"{cc} failed on the probe of {parser_c}:\n{build.stderr[-3000:]}")
        run = subprocess.run([exe], capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"the probe of {parser_c} failed:\n{run.stderr}")
        return run.stdout


def main():
    check = "--check" in sys.argv[1:]
    crates = crate_dirs()
    stale = []
    for folder, crate, parser_c in GRAMMARS:
        version, crate_dir = crates[crate]
        path = os.path.join(crate_dir, parser_c)
        body = tables(path, os.path.dirname(path))
        text = (f"# The lexer of {crate} {version} ({parser_c}) for ASCII characters, as tables:\n"
                f"# written by scripts/lex_tables.py (its docstring has the format); do not edit.\n") + body
        out = os.path.join(ROOT, "grammars", folder, "lexer.txt")
        old = open(out, encoding="utf-8").read() if os.path.exists(out) else None
        if old == text:
            continue
        if check:
            stale.append(out)
        else:
            with open(out, "w", encoding="utf-8") as f:
                f.write(text)
            print(f"wrote {os.path.relpath(out, ROOT)} ({len(text):,} bytes)")
    if stale:
        sys.exit("out of date (run scripts/lex_tables.py): " + ", ".join(os.path.relpath(s, ROOT) for s in stale))


if __name__ == "__main__":
    main()
