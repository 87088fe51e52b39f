// The visible nodes of a tree in preorder, listed a few at a time by one pass over
// tree-sitter's subtrees, each with what the capture walks read of it (see preorder.rs).
//
// A `TSTreeCursor` gives the same nodes, but each step re-derives what a pass that keeps its
// own stack knows already (the iterator over the parent's children, rebuilt from the cursor's
// stack at every sibling; the field, found by walking up the stack through hidden nodes): on
// pytest, ~1,000 instructions per node visited, a third of the whole extraction's. The rules
// below are the cursor's (tree-sitter 0.25, `tree_cursor.c`, MIT licence), kept step for step
// so that the nodes, their ids and positions, kinds and fields are exactly the cursor's; a
// test compares the two on every fixture.
//
// Built against tree-sitter's own headers (its `src` folder): the layout of subtrees is not
// part of its API, so this file is tied to the version `Cargo.lock` pins.

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tree_sitter/api.h"
#include "./language.h"
#include "./length.h"
#include "./subtree.h"
#include "./tree.h"

// One visible node (`Raw` in preorder.rs): a `TSNode` without its tree, and what the walks
// read of it.
typedef struct {
  const void *id;
  uint32_t start_byte, row, column;
  // The number of its visible ancestors.
  uint32_t depth;
  uint16_t alias;
  // `ts_node_symbol`.
  uint16_t kind;
  // `ts_tree_cursor_current_field_id` at the node: 0 for none.
  uint16_t field;
  // `ts_node_is_named`.
  uint8_t named;
  // `ts_node_child_count(node) > 0`.
  uint8_t has_children;
} CkgListed;

// A node whose children are being listed: visible or hidden.
typedef struct {
  Subtree parent;
  const TSSymbol *alias_sequence;
  // The position of the next child.
  Length position;
  uint32_t child_index;
  uint32_t structural_child_index;
  // A hidden node's own field, which its children take when their parent's production gives
  // them none.
  TSFieldId field;
  // The kind of the nearest visible node at or above it: the parent of the nodes it lists.
  uint16_t visible_kind;
  bool visible;
} Frame;

// The nodes whose children are being listed, the innermost last.
typedef struct {
  Frame *frames;
  size_t depth, cap;
  // Room on the caller's stack that `frames` starts in (NULL: none), never freed.
  Frame *inline_frames;
  // The visible frames.
  uint32_t visible_depth;
} Stack;

// Which anonymous nodes without children (punctuation, keywords) a listing gives, by kind
// (`ts_node_symbol`): an anonymous leaf is listed when its kind has `CKG_KEEP_LEAF`, or its
// parent's kind `CKG_KEEP_CHILDREN`. Kinds past the table have neither.
enum { CKG_KEEP_LEAF = 1, CKG_KEEP_CHILDREN = 2 };

// A listing under way.
typedef struct {
  const TSLanguage *language;
  TSNode root;
  bool root_listed;
  // The table of `CKG_KEEP_*` marks, by kind.
  const uint8_t *keep;
  size_t keep_len;
  Stack stack;
} CkgPreorder;

// The field of the child at `structural_index` of a node of production `production_id`
// (fields inherited through hidden children are left to the walk down).
static TSFieldId field_at(const TSLanguage *language, uint16_t production_id, uint32_t structural_index) {
  const TSFieldMapEntry *map, *map_end;
  ts_language_field_map(language, production_id, &map, &map_end);
  for (; map < map_end; map++) {
    if (!map->inherited && map->child_index == structural_index) return map->field_id;
  }
  return 0;
}

// A frame's next child (`ts_tree_cursor_child_iterator_next`), the frame moved past it.
typedef struct {
  const Subtree *subtree;
  // Where it starts.
  Length position;
  uint32_t structural_index;
  // Its alias in its parent's production (0: none; never for an extra node).
  TSSymbol alias;
  // Visible by its subtree or its alias.
  bool visible;
  bool extra;
} Child;

static inline Child next_child(Frame *frame) {
  const Subtree *children = ts_subtree_children(frame->parent);
  uint32_t child_count = frame->parent.ptr->child_count;
  const Subtree *subtree = &children[frame->child_index];
  Child child = {
    .subtree = subtree,
    .position = frame->position,
    .structural_index = frame->structural_child_index,
    .alias = 0,
    .visible = ts_subtree_visible(*subtree),
    .extra = ts_subtree_extra(*subtree),
  };
  if (!child.extra) {
    if (frame->alias_sequence) {
      child.alias = frame->alias_sequence[child.structural_index];
      child.visible |= child.alias != 0;
    }
    frame->structural_child_index++;
  }
  frame->position = length_add(frame->position, ts_subtree_size(*subtree));
  frame->child_index++;
  if (frame->child_index < child_count) {
    frame->position = length_add(frame->position, ts_subtree_padding(children[frame->child_index]));
  }
  return child;
}

// `ts_tree_cursor_current_field_id` at a frame's child: the parent's production names the
// child, or, under a hidden parent, the field the parent has; an extra node has none.
static inline TSFieldId field_of(const TSLanguage *language, const Frame *frame, Child child) {
  if (child.extra) return 0;
  TSFieldId field = field_at(language, frame->parent.ptr->production_id, child.structural_index);
  return !field && !frame->visible ? frame->field : field;
}

// Pushes a frame for the children of `subtree` (which has some), a node of kind `kind` when
// visible; false without memory.
static bool push(Stack *stack, const TSLanguage *language, Subtree subtree, Length position, TSFieldId field, bool visible,
                 uint16_t kind) {
  if (stack->depth == stack->cap) {
    size_t cap = stack->cap ? 2 * stack->cap : 64;
    bool moving = stack->inline_frames && stack->frames == stack->inline_frames;
    Frame *grown = moving ? malloc(cap * sizeof(Frame)) : realloc(stack->frames, cap * sizeof(Frame));
    if (!grown) return false;
    if (moving) memcpy(grown, stack->inline_frames, stack->depth * sizeof(Frame));
    stack->frames = grown;
    stack->cap = cap;
  }
  // A hidden node is never the root: a frame is below it.
  uint16_t visible_kind = visible ? kind : stack->frames[stack->depth - 1].visible_kind;
  stack->frames[stack->depth++] = (Frame){
    .parent = subtree,
    .alias_sequence = ts_language_alias_sequence(language, subtree.ptr->production_id),
    .position = position,
    .child_index = 0,
    .structural_child_index = 0,
    .field = field,
    .visible_kind = visible_kind,
    .visible = visible,
  };
  stack->visible_depth += visible;
  return true;
}

// The innermost frame with children left to list, the frames done popped; NULL when none is
// left.
static Frame *innermost(Stack *stack) {
  while (stack->depth > 0) {
    Frame *frame = &stack->frames[stack->depth - 1];
    if (frame->child_index < frame->parent.ptr->child_count) return frame;
    stack->visible_depth -= frame->visible;
    stack->depth--;
  }
  return NULL;
}

// Frees what the stack took from the heap.
static void release(Stack *stack) {
  if (stack->frames != stack->inline_frames) free(stack->frames);
}

// `ts_node_is_named` of a node with this subtree and alias (`ts_language_symbol_metadata`,
// inlined: an alias is never `ERROR`).
static inline bool is_named(const TSLanguage *language, Subtree subtree, TSSymbol alias) {
  return alias ? language->symbol_metadata[alias].named : ts_subtree_named(subtree);
}

// `ts_node_symbol` of a node with this subtree and alias (`ts_language_public_symbol`, inlined).
static inline uint16_t kind_of(const TSLanguage *language, Subtree subtree, TSSymbol alias) {
  TSSymbol symbol = alias ? alias : ts_subtree_symbol(subtree);
  return symbol == ts_builtin_sym_error ? symbol : language->public_symbol_map[symbol];
}

// A node as listed: `named` its `ts_node_is_named`, then `ts_node_symbol` and
// `ts_node_child_count(node) > 0`.
static CkgListed listed(const TSLanguage *language, const Subtree *subtree, Length position, TSSymbol alias, uint32_t depth, TSFieldId field, bool named) {
  return (CkgListed){
    .id = subtree,
    .start_byte = position.bytes,
    .row = position.extent.row,
    .column = position.extent.column,
    .depth = depth,
    .alias = alias,
    .kind = kind_of(language, *subtree, alias),
    .field = field,
    .named = named,
    .has_children = ts_subtree_visible_child_count(*subtree) > 0,
  };
}

// A listing of the visible nodes under `root` (itself first), in preorder, with the anonymous
// leaves `keep` marks (a table of `keep_len` kinds); NULL without memory.
CkgPreorder *ckg_preorder_new(TSNode root, const uint8_t *keep, size_t keep_len) {
  CkgPreorder *self = calloc(1, sizeof(CkgPreorder));
  if (!self) return NULL;
  self->language = root.tree->language;
  self->root = root;
  self->keep = keep;
  self->keep_len = keep_len;
  return self;
}

// Whether the listing gives an anonymous leaf (`subtree`, with `alias`) under a node of kind
// `parent`. Its own kind is read only when the table could mark it.
static inline bool kept_leaf(const CkgPreorder *self, Subtree subtree, TSSymbol alias, uint16_t parent) {
  if (self->keep_len == 0) return false;
  if (parent < self->keep_len && (self->keep[parent] & CKG_KEEP_CHILDREN)) return true;
  uint16_t kind = kind_of(self->language, subtree, alias);
  return kind < self->keep_len && (self->keep[kind] & CKG_KEEP_LEAF);
}

void ckg_preorder_delete(CkgPreorder *self) {
  if (!self) return;
  release(&self->stack);
  free(self);
}

// Lists the next nodes into `out`, up to `cap` of them; returns how many (0 at the end), or
// SIZE_MAX when memory for the walk's stack could not be had.
size_t ckg_preorder_next(CkgPreorder *self, CkgListed *out, size_t cap) {
  const TSLanguage *language = self->language;
  size_t count = 0;
  if (!self->root_listed) {
    if (cap == 0) return 0;
    self->root_listed = true;
    TSNode root = self->root;
    const Subtree *subtree = (const Subtree *)root.id;
    Length position = {root.context[0], {root.context[1], root.context[2]}};
    TSSymbol alias = (TSSymbol)root.context[3];
    out[count] = listed(language, subtree, position, alias, 0, 0, is_named(language, *subtree, alias));
    if (ts_subtree_child_count(*subtree) > 0 && !push(&self->stack, language, *subtree, position, 0, true, out[count].kind)) {
      return SIZE_MAX;
    }
    count++;
  }

  Frame *frame;
  while (count < cap && (frame = innermost(&self->stack))) {
    Child child = next_child(frame);
    Subtree subtree = *child.subtree;
    bool named = false;
    if (child.visible) {
      named = is_named(language, subtree, child.alias);
      // An anonymous leaf left out: neither listed nor gone into.
      if (!named && ts_subtree_visible_child_count(subtree) == 0 &&
          !kept_leaf(self, subtree, child.alias, frame->visible_kind)) {
        continue;
      }
    } else if (ts_subtree_visible_child_count(subtree) == 0) {
      // A hidden node with nothing visible under it: the cursor steps over it.
      continue;
    }
    TSFieldId field = field_of(language, frame, child);
    uint16_t kind = 0;
    if (child.visible) {
      // `ts_tree_cursor_current_node`.
      out[count] = listed(language, child.subtree, child.position, child.alias, self->stack.visible_depth, field, named);
      kind = out[count++].kind;
      if (ts_subtree_child_count(subtree) == 0) continue;
    }
    // `frame` is not used again: `push` may move the stack.
    if (!push(&self->stack, language, subtree, child.position, field, child.visible, kind)) return SIZE_MAX;
  }
  return count;
}

// Lists the children of `node`, in order, into `out`, up to `cap` of them, with their
// position; returns how many there are (more than `cap`: call again with room for that many),
// or SIZE_MAX without memory. The children a `TSTreeCursor` goes to from `node` by
// `goto_first_child` and `goto_next_sibling`, stepping through hidden nodes, without the
// cursor's cost per step (~600 instructions). `named_only`: the named children, without kind or
// field (`ts_node_named_child`'s); otherwise all, with kind, field and whether named.
static inline size_t list_children(TSNode node, CkgListed *out, size_t cap, bool named_only) {
  const TSLanguage *language = node.tree->language;
  Subtree subtree = *(const Subtree *)node.id;
  if (ts_subtree_child_count(subtree) == 0) return 0;
  // The hidden nodes between `node` and its children are few: a small stack, on the heap when
  // deeper.
  Frame inline_frames[16];
  Stack stack = {.frames = inline_frames, .cap = 16, .inline_frames = inline_frames};
  push(&stack, language, subtree, (Length){node.context[0], {node.context[1], node.context[2]}}, 0, true, 0);
  size_t count = 0;
  bool failed = false;
  Frame *frame;
  while ((frame = innermost(&stack))) {
    Child child = next_child(frame);
    if (child.visible) {
      bool named = is_named(language, *child.subtree, child.alias);
      if (named_only && !named) continue;
      if (count < cap) {
        out[count] = named_only ? (CkgListed){
                                      .id = child.subtree,
                                      .start_byte = child.position.bytes,
                                      .row = child.position.extent.row,
                                      .column = child.position.extent.column,
                                      .depth = 1,
                                      .alias = child.alias,
                                      .named = true,
                                  }
                                : listed(language, child.subtree, child.position, child.alias, 1,
                                         field_of(language, frame, child), named);
      }
      count++;
    } else if (ts_subtree_visible_child_count(*child.subtree) > 0 &&
               !push(&stack, language, *child.subtree, child.position, named_only ? 0 : field_of(language, frame, child),
                     false, 0)) {
      failed = true;
      break;
    }
  }
  release(&stack);
  return failed ? SIZE_MAX : count;
}

// The named children of `node` (`list_children`), with their position (no kind, field or
// depth).
size_t ckg_named_children(TSNode node, CkgListed *out, size_t cap) {
  return list_children(node, out, cap, true);
}

// The children of `node`, named and anonymous (`list_children`), with their position, kind,
// field and whether they are named (no depth).
size_t ckg_children(TSNode node, CkgListed *out, size_t cap) {
  return list_children(node, out, cap, false);
}

// A node's grammar and kind (`ts_node_language`, `ts_node_symbol`), read in one call: a kind's
// name is then read from a table of the grammar's names (`field.rs`), the most frequent
// question extraction asks of a node.
typedef struct {
  const TSLanguage *language;
  uint16_t kind;
} CkgKind;

CkgKind ckg_node_kind(TSNode node) {
  const TSLanguage *language = node.tree->language;
  return (CkgKind){language, kind_of(language, *(const Subtree *)node.id, (TSSymbol)node.context[3])};
}

// A node of `tree` (`ts_node_new`).
static inline TSNode node_at(const TSTree *tree, const Subtree *subtree, Length position, TSSymbol alias) {
  return (TSNode){{position.bytes, position.extent.row, position.extent.column, alias}, subtree, tree};
}

static inline TSNode null_node(void) {
  return (TSNode){{0, 0, 0, 0}, NULL, NULL};
}

// `ts_node_child(node, 0)` of a hidden node with visible children: its first visible
// descendant, going into hidden children that have visible ones.
static TSNode first_visible_child(TSNode node) {
  const TSLanguage *language = node.tree->language;
  Subtree subtree = *(const Subtree *)node.id;
  Length position = {node.context[0], {node.context[1], node.context[2]}};
descend:;
  const TSSymbol *alias_sequence = ts_language_alias_sequence(language, subtree.ptr->production_id);
  const Subtree *children = ts_subtree_children(subtree);
  uint32_t count = subtree.ptr->child_count, structural = 0;
  for (uint32_t i = 0; i < count; i++) {
    const Subtree *child = &children[i];
    if (i > 0) position = length_add(position, ts_subtree_padding(*child));
    TSSymbol alias = 0;
    if (!ts_subtree_extra(*child)) {
      if (alias_sequence) alias = alias_sequence[structural];
      structural++;
    }
    if (ts_subtree_visible(*child) || alias) return node_at(node.tree, child, position, alias);
    if (ts_subtree_visible_child_count(*child) > 0) {
      subtree = *child;
      goto descend;
    }
    position = length_add(position, ts_subtree_size(*child));
  }
  return null_node();
}

// `ts_node_child_by_field_id`: the same steps (tree-sitter 0.25, `node.c`), on the subtrees,
// without making a node of each child passed over or calling tree-sitter's exported functions
// for what a subtree holds (a field lookup cost ~370 instructions, 2.4 % of django's full
// index). A test compares the two for every field of every node of the fixtures. This and
// `first_visible_child` step through the children themselves rather than by a `Frame` and
// `next_child`, which read each child's visibility and alias whether asked or not: the
// lookups took 19 % more instructions that way (pytest 70 -> 84 M).
TSNode ckg_child_by_field_id(TSNode self, TSFieldId field_id) {
  const TSLanguage *language = self.tree->language;
recur:;
  Subtree subtree = *(const Subtree *)self.id;
  if (!field_id || ts_subtree_visible_child_count(subtree) == 0) return null_node();
  const TSFieldMapEntry *map, *map_end;
  ts_language_field_map(language, subtree.ptr->production_id, &map, &map_end);
  if (map == map_end) return null_node();
  // The entries are sorted by field id: those of `field_id`.
  while (map->field_id < field_id) {
    if (++map == map_end) return null_node();
  }
  while (map_end[-1].field_id > field_id) {
    if (--map_end == map) return null_node();
  }
  const TSSymbol *alias_sequence = ts_language_alias_sequence(language, subtree.ptr->production_id);
  const Subtree *children = ts_subtree_children(subtree);
  uint32_t count = subtree.ptr->child_count, structural = 0;
  Length position = {self.context[0], {self.context[1], self.context[2]}};
  for (uint32_t i = 0; i < count; i++) {
    const Subtree *child = &children[i];
    if (i > 0) position = length_add(position, ts_subtree_padding(*child));
    Length start = position;
    position = length_add(position, ts_subtree_size(*child));
    if (ts_subtree_extra(*child)) continue;
    uint32_t index = structural++;
    if (index < map->child_index) continue;
    TSSymbol alias = alias_sequence ? alias_sequence[index] : 0;
    TSNode node = node_at(self.tree, child, start, alias);
    if (map->inherited) {
      // Hidden nodes' fields are their visible parent's.
      if (map + 1 == map_end) {
        self = node;
        goto recur;
      }
      // Recursion as tree-sitter's: only into hidden children holding the field, whose
      // nesting the grammar's productions bound (repetitions are balanced trees).
      TSNode found = ckg_child_by_field_id(node, field_id);
      if (found.id) return found;
      if (++map == map_end) return null_node();
    } else if (ts_subtree_visible(*child) || alias) {
      return node;
    } else if (ts_subtree_visible_child_count(*child) > 0) {
      return first_visible_child(node);
    } else if (++map == map_end) {
      return null_node();
    }
  }
  return null_node();
}
