/* verify.h — internals shared by the TileIR verifier's files:
 *   verify.c        entry point, module/function rules (V01), the program-order
 *                   walk (V02–V05, V07 operand records, V08 visibility, V09
 *                   foreign values) and diagnostics;
 *   verify_ops.c    per-operation rules (V06, V10–V25);
 *   verify_uses.c   use-list consistency (V07 membership, V09).
 * Rule numbers 1–23 follow /work/shared/ref/tileir-spec.md §3; 24 and 25 are
 * tilec's own (a reduce's combine block).  docs/verifier.md maps each TIR-Vnn
 * code to its rule as adapted to our data model.
 *
 * The verifier never mutates the module: per-function facts (which value or op
 * owns an id, whether a value is visible) live in side tables indexed by id and
 * allocated through the context. */
#ifndef TILEC_TIR_VERIFY_H
#define TILEC_TIR_VERIFY_H

#include "tir/ir.h"

/* Where a value stands in the program-order walk (rule 8). */
typedef enum {
    VERIFY_UNSEEN = 0, /* not defined yet (or never, in attached IR) */
    VERIFY_PENDING,    /* result of an op whose operands/body are being checked */
    VERIFY_VISIBLE,    /* defined earlier in an open block */
    VERIFY_RETIRED     /* defined in a block the walk has left */
} verify_value_state;

typedef struct {
    const tir_value *value; /* the value that owns this id; NULL if none seen */
    verify_value_state state;
    bool type_ok;     /* its type passed rules 4/5/17 */
    bool list_broken; /* its use list was already reported (rule 9) */
    const tir_block *combine; /* the combine block defining it (rule 25), or NULL */
} verify_value_slot;

typedef struct {
    const tir_op *op;       /* the attached op that owns this id; NULL if none */
    uint32_t first_operand; /* index of its operand 0 in the flat operand table */
} verify_op_slot;

typedef struct {
    const void *ptr;
    bool ok; /* spaces: well formed (rule 4) */
} verify_ptr_entry;

typedef struct {
    verify_ptr_entry *items; /* sorted by address */
    size_t len;
} verify_ptr_set;

/* What the walk knows about the block it is in. */
typedef struct {
    const tir_op *owner;        /* the op owning the block; NULL for the kernel body */
    bool owner_ok;              /* owner's results are well typed (for YIELD) */
    const tir_op *map;          /* innermost enclosing map, for purity (rule 22) */
    tir_exec_scope outer_scope; /* innermost concrete parallel scope, or AUTO */
    const tir_block *combine;   /* the combine block the walk is in (rule 25), or NULL */
} verify_block_ctx;

typedef struct {
    tilec_context *ctx;
    const tir_module *module;
    verify_ptr_set types, spaces;
    hashmap names; /* kernel name -> 1 + the index of the first kernel with it (rule 1) */
    size_t errors;
    bool oom;
    /* Per function. */
    const tir_func *func;
    verify_value_slot *values;
    uint32_t value_slots;
    verify_op_slot *ops;
    uint32_t op_slots;
    VEC(const tir_op *) walked; /* attached ops, program order */
    VEC(const tir_op *) idless; /* walked ops whose id is out of range or taken */
    uint32_t operand_total;
    bool aborted;         /* the op lists are cyclic: stop walking this kernel */
    bool lists_checkable; /* ids and operand records are sound enough to check use lists */
} verifier;

/* Reports rule `rule` against `op`: "kernel '@k': 'add' op #7 ('%x'): <fmt>",
 * located at the op. */
void verify_op_error(verifier *v, const tir_op *op, int rule, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Reports rule `rule` against `value`, named through its definition. */
void verify_value_error(verifier *v, const tir_value *value, int rule, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Reports rule `rule` against the current kernel, located at its definition. */
void verify_func_error(verifier *v, const tir_func *f, int rule, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Writes `t` in text-form syntax ("tile<f32>[m=8, n=8]", runtime sizes as forms of m) into buf; returns buf. */
const char *verify_type_str(const tir_module *m, const tir_type *t, char *buf, size_t n);
/* "'%x'" or "value #7", for messages. */
const char *verify_value_str(const tir_value *value, char *buf, size_t n);
/* True when `s` is an index space of this module. */
bool verify_space_local(const verifier *v, const tir_space *s);
/* The op's name in messages: the opcode for elementwise ops, else the kind. */
const char *verify_op_name(const tir_op *op);

/* Rules that need only a valid kind and the op's position: attributes (6),
 * field placement (21), purity (22), attribute ranges (23), what a combine
 * block may contain (25). */
void verify_op_placement(verifier *v, const tir_op *op, const verify_block_ctx *where);
/* The per-kind rules (10–20, 22) for an op with well-formed operands and results. */
void verify_op_kind(verifier *v, const tir_op *op, const verify_block_ctx *where);
/* Rule 24 for a reduce with well-formed operands and results and a combine
 * block: its policy, and the block's arguments (the left then the right state). */
void verify_op_combine(verifier *v, const tir_op *op);
/* Rules 7 (membership) and 9 (lists) after the walk. */
void verify_use_lists(verifier *v);

#endif
