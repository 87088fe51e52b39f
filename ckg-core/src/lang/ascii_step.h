// The short path of ckg's lexer step (lexer.c), for the lexers that step in place
// (lex_table.c): from one ASCII character to the next inside one chunk and one included range.
//
// Built against tree-sitter's own headers (its `src` folder): the layout of its `Lexer` is not
// part of its API, so this file is tied to the version `Cargo.lock` pins.

#ifndef CKG_ASCII_STEP_H_
#define CKG_ASCII_STEP_H_

#include <stdbool.h>
#include <stdint.h>

#include "tree_sitter/api.h"
#include "./lexer.h"

// ckg's step (lexer.c): the short path below, else tree-sitter's own step.
void ckg_lexer_ascii_step(TSLexer *data, bool skip);

// Where the short path may step to from where `self` is (exclusive): the end of its chunk
// and of its included range, when the character it holds was decoded from one byte of UTF-8
// and no logger is set; 0 otherwise. It stays so while only the short path steps (which reads
// no new chunk, enters no new range and leaves the character one byte long).
static inline uint32_t ckg_ascii_window_end(const Lexer *self) {
  // `lookahead_size` is 1 at the end of the input too, where `chunk` is NULL or the position
  // past it; past the last range (the end of the input, where `chunk` is NULL too) there is
  // none to read.
  if (self->lookahead_size != 1 || !self->chunk || self->logger.log || self->input.encoding != TSInputEncodingUTF8 ||
      self->current_position.bytes < self->chunk_start ||
      self->current_included_range_index >= self->included_range_count) {
    return 0;
  }
  uint32_t chunk_end = self->chunk_start + self->chunk_size;
  uint32_t range_end = self->included_ranges[self->current_included_range_index].end_byte;
  return chunk_end < range_end ? chunk_end : range_end;
}

// Takes the step from the ASCII character `self` holds to the byte after it when that byte is
// before `end` (`ckg_ascii_window_end`) and ASCII, doing only what tree-sitter's step does
// then: the fields it writes and the values it gives them are those of `ts_lexer__do_advance`
// and `ts_lexer__get_lookahead` (tree-sitter 0.25, `lexer.c`, MIT licence). False, with
// nothing changed, for any other step.
static inline bool ckg_ascii_step_within(Lexer *self, uint32_t end, bool skip) {
  uint32_t next = self->current_position.bytes + 1;
  if (next >= end) return false;
  uint8_t byte = ((const uint8_t *)self->chunk)[next - self->chunk_start];
  // An ASCII byte decodes to itself, one byte long (`ts_decode_utf8`).
  if (byte >= 0x80) return false;
  if (self->data.lookahead == '\n') {
    self->current_position.extent.row++;
    self->current_position.extent.column = 0;
    self->column_data.valid = true;
    self->column_data.value = 0;
  } else {
    if (self->column_data.valid) self->column_data.value++;
    self->current_position.extent.column++;
  }
  self->current_position.bytes = next;
  if (skip) self->token_start_position = self->current_position;
  self->data.lookahead = byte;
  return true;
}

// The short path's step from the character `data` holds to the next, when both are ASCII;
// false, with nothing changed, for any other step.
static inline bool ckg_ascii_step(TSLexer *data, bool skip) {
  Lexer *self = (Lexer *)data;
  return (uint32_t)data->lookahead < 0x80 && ckg_ascii_step_within(self, ckg_ascii_window_end(self), skip);
}

#endif  // CKG_ASCII_STEP_H_
