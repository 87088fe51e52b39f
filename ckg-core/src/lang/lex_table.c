// A grammar's lexer read from tables for ASCII characters (see lex_table.rs).
//
// Built against tree-sitter's own headers (its `src` folder): `TSLanguage`'s layout, and its
// `Lexer`'s for the step taken in place (ascii_step.h).
//
// A generated lexer (`ts_lex`, `ts_lex_keywords`) is a `switch` on its state whose cases test
// the character read one way after another: `ADVANCE_MAP`'s linear search of up to 32 pairs,
// then ranges, then binary searches of character sets. This one reads, for the state it is in,
// the token the state accepts on entry and what the character read does: advance or skip to a
// state, or end the token. The tables (`grammars/*/lexer.txt`, written by
// `scripts/lex_tables.py` from each grammar's own code, compiled) cover the characters 1-127;
// at any other character (the end of the input, NUL, anything not ASCII) or a state past them
// the grammar's own lexer goes on from the state reached, as the `switch` would have gone on
// from there: the same calls of `advance` and `mark_end`, the same token.

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "tree_sitter/api.h"
#include "./parser.h"
#include "ascii_step.h"

typedef bool (*LexFn)(TSLexer *, TSStateId);

// One lexer's tables (`LexTable` in lex_table.rs).
typedef struct {
  // For each state, 128 moves by character: 0 ends the token; otherwise the next state times
  // 4, plus 1 to advance or 2 to skip.
  const uint16_t *moves;
  // For each state, the symbol it accepts on entry plus 1 (0: none).
  const uint16_t *accepts;
  uint32_t states;
  // The grammar's own lexer, which the tables stand in for.
  LexFn own;
} LexTable;

static bool table_lex(const LexTable *table, TSLexer *lexer, TSStateId state) {
  Lexer *self = (Lexer *)lexer;
  bool result = false;
  // A lexer that steps by ckg's short path takes it here, in place, up to `end`
  // (`ckg_ascii_window_end`, found again after each step the short path leaves to the lexer).
  bool short_path = lexer->advance == ckg_lexer_ascii_step;
  uint32_t end = short_path ? ckg_ascii_window_end(self) : 0;
  for (;;) {
    int32_t c = lexer->lookahead;
    if ((uint32_t)(c - 1) >= 127 || state >= table->states) return table->own(lexer, state) | result;
    uint16_t accept = table->accepts[state];
    if (accept) {
      result = true;
      lexer->result_symbol = (TSSymbol)(accept - 1);
      lexer->mark_end(lexer);
    }
    uint16_t move = table->moves[(size_t)state * 128 + (uint32_t)c];
    if (!move) return result;
    state = (TSStateId)(move >> 2);
    bool skip = move & 2;
    if (!ckg_ascii_step_within(self, end, skip)) {
      lexer->advance(lexer, skip);
      end = short_path ? ckg_ascii_window_end(self) : 0;
    }
  }
}

// A lexer is a plain function: each table in use has a slot, read by the function of that slot.
#define SLOTS 8
static LexTable slots[SLOTS];
static atomic_uint slots_taken;

#define SLOT_LEXER(n) \
  static bool lex_slot_##n(TSLexer *lexer, TSStateId state) { return table_lex(&slots[n], lexer, state); }
SLOT_LEXER(0)
SLOT_LEXER(1)
SLOT_LEXER(2)
SLOT_LEXER(3)
SLOT_LEXER(4)
SLOT_LEXER(5)
SLOT_LEXER(6)
SLOT_LEXER(7)
static const LexFn slot_lexers[SLOTS] = {lex_slot_0, lex_slot_1, lex_slot_2, lex_slot_3,
                                         lex_slot_4, lex_slot_5, lex_slot_6, lex_slot_7};

// A lexer reading `table` (whose arrays must outlive the process's parsers), or NULL when every
// slot is taken.
LexFn ckg_table_lexer(const LexTable *table) {
  if (!table->own) return NULL;
  unsigned slot = atomic_fetch_add(&slots_taken, 1);
  if (slot >= SLOTS) return NULL;
  slots[slot] = *table;
  return slot_lexers[slot];
}

// The main and the keyword lexer of `language`.
LexFn ckg_language_lex_fn(const TSLanguage *language, bool keywords) {
  return keywords ? language->keyword_lex_fn : language->lex_fn;
}

// For the tests: what `lex` does in `state` with the character `c` first, up to its first step:
// the symbol it accepts (-1: none), and whether it then advances (1), skips (2) or ends (0).
typedef struct {
  int32_t accept;
  int32_t kind;
} CkgLexStep;

#include <setjmp.h>

static _Thread_local jmp_buf probe_jump;
static _Thread_local CkgLexStep probe_step;

static void probe_advance(TSLexer *lexer, bool skip) {
  (void)lexer;
  probe_step.kind = skip ? 2 : 1;
  longjmp(probe_jump, 1);
}

static void probe_mark_end(TSLexer *lexer) { probe_step.accept = lexer->result_symbol; }
static uint32_t probe_column(TSLexer *lexer) { (void)lexer; return 0; }
static bool probe_range_start(const TSLexer *lexer) { (void)lexer; return false; }
static bool probe_eof(const TSLexer *lexer) { return lexer->lookahead == 0; }

CkgLexStep ckg_lex_step(LexFn lex, TSStateId state, int32_t c) {
  TSLexer lexer = {0};
  lexer.lookahead = c;
  lexer.advance = probe_advance;
  lexer.mark_end = probe_mark_end;
  lexer.get_column = probe_column;
  lexer.is_at_included_range_start = probe_range_start;
  lexer.eof = probe_eof;
  probe_step = (CkgLexStep){.accept = -1, .kind = 0};
  if (!setjmp(probe_jump)) lex(&lexer, state);
  return probe_step;
}
