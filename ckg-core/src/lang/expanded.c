// A grammar whose parse table is expanded into one row per state: the same grammar, the
// same trees, found by one read per lookup (see expanded.rs).
//
// A generated grammar keeps a full row (one entry per symbol) only for its "large" states
// (Python 185 of 2,786, TypeScript 1,193 of 5,870); the others list their symbols in groups,
// which tree-sitter searches one by one at every lookup of an action or a next state
// (`ts_language_lookup`: ~6 % of a parse's time, mostly waiting on the list). Here every
// state is a large one: the copy of the grammar has `large_state_count == state_count` and a
// table with a row for each state, its small states' groups written out. Lookups give the
// same values (a missing symbol is 0 in both forms), so the parse takes the same steps.
//
// Built against tree-sitter's own `parser.h` (its `src` folder), the layout of `TSLanguage`
// that the tree-sitter this crate links reads: the fields up to `primary_state_ids` are in
// every grammar of ABI 14 and 15; the ones after them only in ABI 15.

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>

#include "tree_sitter/api.h"
#include "./alloc.h"
#include "./language.h"
#include "./parser.h"

typedef bool (*LexFn)(TSLexer *, TSStateId);

// Python's external scanner (tree-sitter-python 0.25.0, `src/scanner.c`, pinned by
// Cargo.lock) restores its state before each of its scans by freeing its two lists and
// growing them again from nothing: ~3.1M restores on django's full index, each a `free` and
// a `malloc` or more. The copy of the grammar restores the same state into the lists the
// scanner has (`python_restore`): the same elements, sizes and flag; only the lists'
// capacities differ, which the scanner reads only to grow them. Its layout, as that file has
// it: two `Array(T)`s (contents, size, capacity), the indents (`uint16_t`) and the delimiters
// (one `char` of flags each), then the flag.
typedef struct {
  struct {
    uint16_t *contents;
    uint32_t size, capacity;
  } indents;
  struct {
    char *contents;
    uint32_t size, capacity;
  } delimiters;
  bool inside_interpolated_string;
} PythonScanner;

void tree_sitter_python_external_scanner_deserialize(void *payload, const char *buffer, unsigned length);

// `*contents` holding at least `needed` elements of `element` bytes, grown as the scanner's
// lists grow (twice the capacity, at least 8), by the allocator they were made with.
static void python_room(void **contents, uint32_t *capacity, uint32_t needed, size_t element) {
  if (needed <= *capacity) return;
  uint32_t grown = *capacity * 2 > 8 ? *capacity * 2 : 8;
  if (grown < needed) grown = needed;
  void *more = ts_current_realloc(*contents, (size_t)grown * element);
  if (!more) abort();
  *contents = more;
  *capacity = grown;
}

// `tree_sitter_python_external_scanner_deserialize`, step for step, without freeing.
static void python_restore(void *payload, const char *buffer, unsigned length) {
  PythonScanner *scanner = payload;
  scanner->delimiters.size = 0;
  scanner->indents.size = 0;
  python_room((void **)&scanner->indents.contents, &scanner->indents.capacity, 1, sizeof(uint16_t));
  scanner->indents.contents[scanner->indents.size++] = 0;
  if (length == 0) return;  // the flag is left as it was, as the scanner leaves it
  size_t size = 0;
  scanner->inside_interpolated_string = (bool)buffer[size++];
  size_t delimiter_count = (uint8_t)buffer[size++];
  if (delimiter_count > 0) {
    python_room((void **)&scanner->delimiters.contents, &scanner->delimiters.capacity, (uint32_t)delimiter_count, 1);
    scanner->delimiters.size = (uint32_t)delimiter_count;
    memcpy(scanner->delimiters.contents, &buffer[size], delimiter_count);
    size += delimiter_count;
  }
  for (; size + 1 < length; size += 2) {
    uint16_t indent = (uint16_t)((unsigned char)buffer[size] | ((unsigned char)buffer[size + 1] << 8));
    python_room((void **)&scanner->indents.contents, &scanner->indents.capacity, scanner->indents.size + 1, sizeof(uint16_t));
    scanner->indents.contents[scanner->indents.size++] = indent;
  }
}

// Whether `language` (an expanded copy) restores Python's scanner state with `python_restore`.
bool ckg_expanded_restores_python_scanner(const TSLanguage *language) {
  return language->external_scanner.deserialize == python_restore;
}

// `size` zeroed bytes, their pages mapped writable at once: one call instead of a page fault
// at each page's first touch (two, where the touch is a read: the shared zero page, then a
// copy), which were most of the time a table took to make (TypeScript's and TSX's: 7.5 ms
// of CPU and 4,000 page faults for a one-file run). NULL without memory.
static uint16_t *zeroed(size_t size) {
#ifdef MAP_POPULATE
  void *mapped = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  return mapped == MAP_FAILED ? NULL : mapped;
#else
  return calloc(1, size);
#endif
}

// A copy of `language` with every state's row in one table; NULL without memory or for a
// grammar of another ABI. Never freed (one per grammar for the process's life). For parsing
// only: tree-sitter's lookahead iterator (query analysis, `ts_lookahead_iterator_*`) lists a
// small state's symbols by group, and the copy's by symbol. `lex` and `keyword_lex`, when not
// NULL, lex in place of the grammar's own lexers (the same tokens: lex_table.c).
const TSLanguage *ckg_expanded_language(const TSLanguage *language, LexFn lex, LexFn keyword_lex) {
  if (language->abi_version < 14 || language->abi_version > 15) return NULL;
  size_t rows = language->state_count, width = language->symbol_count;
  TSLanguage *copy = calloc(1, sizeof *copy);
  // Which symbols of the state being written a group has named already.
  bool *named = calloc(width ? width : 1, sizeof *named);
  uint16_t *table = copy && named ? zeroed(rows * width * sizeof *table) : NULL;
  if (!table) {
    free(copy);
    free(named);
    return NULL;
  }
  memcpy(copy, language, language->abi_version >= 15 ? sizeof *copy : offsetof(TSLanguage, name));
  memcpy(table, language->parse_table, (size_t)language->large_state_count * width * sizeof *table);
  if (copy->external_scanner.deserialize == tree_sitter_python_external_scanner_deserialize) {
    copy->external_scanner.deserialize = python_restore;
  }
  for (uint32_t state = language->large_state_count; state < language->state_count; state++) {
    // As `ts_language_lookup` reads it: a count of groups, then each group's value, its
    // count of symbols and the symbols. The first group naming a symbol is the one a lookup
    // finds; a symbol past the row is never asked for (callers ask below `symbol_count`).
    const uint16_t *data = &language->small_parse_table[language->small_parse_table_map[state - language->large_state_count]];
    uint16_t *row = &table[(size_t)state * width];
    memset(named, 0, width * sizeof *named);
    uint16_t groups = *data++;
    for (unsigned g = 0; g < groups; g++) {
      uint16_t value = *data++;
      uint16_t symbols = *data++;
      for (unsigned i = 0; i < symbols; i++, data++) {
        if (*data < width && !named[*data]) {
          named[*data] = true;
          row[*data] = value;
        }
      }
    }
  }
  free(named);
  if (lex) copy->lex_fn = lex;
  if (keyword_lex && language->keyword_lex_fn) copy->keyword_lex_fn = keyword_lex;
  copy->parse_table = table;
  copy->large_state_count = language->state_count;
  return copy;
}

// `ts_language_lookup`, tree-sitter's own, for the test that compares a grammar's every
// (state, symbol) with its copy's; 0 past the grammar's states and symbols (its aliases
// have none).
uint16_t ckg_language_lookup(const TSLanguage *language, uint32_t state, uint32_t symbol) {
  if (state >= language->state_count || symbol >= language->symbol_count) return 0;
  return ts_language_lookup(language, (TSStateId)state, (TSSymbol)symbol);
}
