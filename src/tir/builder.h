/* builder.h — internals of tir_builder shared by the explicit builder
 * (builder.c), the capture layer (capture.c) and library sugar (lib.c).
 *
 * The builder keeps a stack of frames, one per open region (frame 0 is the
 * function body).  New ops are appended to the top frame's block.  A reduce's
 * combine block gets a frame of its own (op: the reduce, block: its combine
 * block); it is a visibility wall: nothing of the frames below it is visible
 * inside it, because a combine merges states computed elsewhere.  Capture
 * variables are slots holding their current SSA value; each frame records which
 * variables existed when it opened and, for capture loops, the forwarding
 * definitions of §2.8 (docs/tir.md, "Capture"). */
#ifndef TILEC_TIR_BUILDER_H
#define TILEC_TIR_BUILDER_H

#include "tir/ir.h"

struct tir_var {
    tir_value *value;
    size_t depth; /* frame count when created; dies when that frame closes */
    bool live;
};

typedef struct {
    tir_var *var;
    tir_value *before;    /* the variable's value when the frame opened */
    tir_value *forwarder; /* capture loops: identity cast standing in for `before` */
} tir_frame_slot;

typedef struct {
    tir_op *op;      /* NULL for the function body */
    tir_block *block; /* op's body, or a reduce's combine block */
    bool capture;    /* opened by tir_capture_begin */
    size_t slot_begin, slot_end; /* range in builder->slots */
} tir_frame;

struct tir_builder {
    tir_module *module;
    tir_func *func;
    tilec_status status;
    tilec_loc loc;
    VEC(tir_frame) frames;
    VEC(tir_var *) vars;
    VEC(tir_frame_slot) slots;
};

static inline bool tir_frame_is_combine(const tir_frame *f) { return f->op && f->block == f->op->combine; }

/* Records the first error (sticky) with the builder's current location. */
void tir_builder_fail(tir_builder *b, tilec_status status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* `const index` with value ival (a form over the function's runtime sizes,
 * tir/form.h, or a number). */
tir_value *tir_const_index_ival(tir_builder *b, const tir_form *form, int64_t c);
/* Appends a detached op at the insertion point. */
void tir_builder_emit(tir_builder *b, tir_op *op);
tir_frame *tir_builder_top(tir_builder *b);
/* The reduce whose combine block is open at or below the top frame, or NULL. */
tir_op *tir_builder_combine(const tir_builder *b);
/* True when `v` may be used at the insertion point: defined in an open block,
 * and not below the innermost open combine frame. */
bool tir_builder_visible(tir_builder *b, const tir_value *v);
/* Opens a frame for region `op` (NULL: the function body), recording the value
 * of every live variable; capture loops also get forwarding definitions. */
bool tir_builder_push_frame(tir_builder *b, tir_op *op, bool capture);
/* Closing a frame that does not infer carries: any outer variable assigned
 * inside it is an error and is rolled back.  Also retires the frame's own
 * variables.  Returns false after reporting a mutation. */
bool tir_capture_check_unmutated(tir_builder *b, tir_frame *frame);
void tir_capture_retire_vars(tir_builder *b, size_t depth);

#endif
