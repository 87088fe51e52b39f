// tree-sitter's lexer step with a short path for ASCII text (see lexer.rs).
//
// A generated lexer reads its input one character at a time through `TSLexer.advance`, which
// tree-sitter sets to `ts_lexer__advance`: each step logs (when a logger is set), moves the
// position, walks the included ranges, fetches a chunk when the position leaves it, and
// decodes the next character through the input's decoder. In source code nearly every step is
// from one ASCII character to another inside one chunk and one range: this step does only
// what tree-sitter's does then (`ascii_step.h`, which the table lexers of lex_table.c take in
// place), and hands every other step to it, so lexing takes the same steps; a test compares
// the trees, positions included, on every fixture and on inputs full of the cases left to
// tree-sitter (newlines, multi-byte and invalid UTF-8, NUL, byte-order marks, cut files).
//
// Built against tree-sitter's own headers (its `src` folder): the layout of its `Lexer`, and
// that it is the first field of `TSParser` (`parser.c`), are not part of its API, so this file
// is tied to the version `Cargo.lock` pins.

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "tree_sitter/api.h"
#include "./lexer.h"
#include "ascii_step.h"

typedef void (*Step)(TSLexer *, bool);

// tree-sitter's own step (`ts_lexer__advance`, one function for every parser), kept when a
// parser is given this one: the steps this one leaves to it.
static _Atomic(Step) tree_sitter_step;

void ckg_lexer_ascii_step(TSLexer *data, bool skip) {
  if (!ckg_ascii_step(data, skip)) atomic_load_explicit(&tree_sitter_step, memory_order_relaxed)(data, skip);
}

// Gives `lexer` this step; false (and nothing changed) unless it looks as tree-sitter 0.25
// makes a new lexer (`ts_lexer_init`): its functions set, no chunk of input held, at the
// start, the whole of the input as its one included range (as a parser's lexer is between
// two parses too). What is read here of a parser that is not laid out as this file expects is
// then most unlikely to pass for one.
static bool take_step(Lexer *lexer) {
  TSLexer *data = &lexer->data;
  if (data->advance == ckg_lexer_ascii_step) return true;
  bool functions = data->advance && data->mark_end && data->get_column && data->is_at_included_range_start && data->eof && data->log;
  bool unread = !lexer->chunk && lexer->chunk_size == 0 && lexer->current_position.bytes == 0 && data->lookahead == 0;
  bool whole = lexer->included_ranges && lexer->included_range_count == 1 && lexer->current_included_range_index == 0 &&
               lexer->included_ranges[0].start_byte == 0 && lexer->included_ranges[0].end_byte == UINT32_MAX;
  if (!functions || !unread || !whole) return false;
  // The same function whichever lexer it is read from.
  atomic_store_explicit(&tree_sitter_step, data->advance, memory_order_relaxed);
  data->advance = ckg_lexer_ascii_step;
  return true;
}

// Gives a new parser's lexer this step (`take_step`), before the parser parses.
bool ckg_lexer_step(TSParser *parser) {
  return take_step((Lexer *)parser);
}

// For the tests (lexer.rs): the input `src`, read in chunks of `chunk` bytes.
typedef struct {
  const char *src;
  uint32_t len, chunk;
} Chunks;

static const char *read_chunk(void *payload, uint32_t byte, TSPoint point, uint32_t *read) {
  const Chunks *chunks = payload;
  (void)point;
  uint32_t left = byte < chunks->len ? chunks->len - byte : 0;
  *read = left < chunks->chunk ? left : chunks->chunk;
  return left ? chunks->src + byte : "";
}

// What a lexer is at before one of its steps (`CkgLexed` in lexer.rs).
typedef struct {
  uint32_t bytes, row, column, token_start;
  // `get_column` plus one, asked every third step (0: not asked).
  uint32_t column_told;
  int32_t lookahead;
} CkgLexed;

// For the tests: steps a lexer through the `len` bytes of `src`, read `chunk` bytes at a time,
// inside the `range_count` included `ranges` (0: all of it), with this step or tree-sitter's,
// skipping at every other step; writes where it is before each step into `out` (room for
// `cap`) and returns how many steps it took, at most `cap`.
size_t ckg_lexer_trace(const char *src, uint32_t len, uint32_t chunk, const TSRange *ranges, uint32_t range_count,
                       bool ascii_step, CkgLexed *out, size_t cap) {
  Lexer lexer;
  ts_lexer_init(&lexer);
  Chunks chunks = {src, len, chunk};
  if ((ascii_step && !take_step(&lexer)) || (range_count && !ts_lexer_set_included_ranges(&lexer, ranges, range_count))) {
    ts_lexer_delete(&lexer);
    return 0;
  }
  ts_lexer_set_input(&lexer, (TSInput){.payload = &chunks, .read = read_chunk, .encoding = TSInputEncodingUTF8});
  ts_lexer_start(&lexer);
  size_t count = 0;
  for (; count < cap && !lexer.data.eof(&lexer.data); count++) {
    out[count] = (CkgLexed){
      .bytes = lexer.current_position.bytes,
      .row = lexer.current_position.extent.row,
      .column = lexer.current_position.extent.column,
      .token_start = lexer.token_start_position.bytes,
      .column_told = count % 3 == 0 ? lexer.data.get_column(&lexer.data) + 1 : 0,
      .lookahead = lexer.data.lookahead,
    };
    lexer.data.advance(&lexer.data, count % 2 == 1);
  }
  ts_lexer_delete(&lexer);
  return count;
}
