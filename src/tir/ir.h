/* ir.h — TileIR object layouts, shared by every module under src/tir and by the
 * layers that read TileIR (planner, lowerer).  Public code uses tilec/tir.h.
 *
 * Ownership: every object lives in its module's arena (stable addresses).
 * Regions: a structured op owns one body block (the language creates exactly
 * one block per region), so "region" and "body block" coincide; a reduce may
 * also own a `combine` block, which is not part of its execution.
 * Use lists: an attached op's operands are linked into their values' use lists;
 * a detached op's are not (tir_op_detach unlinks, insert relinks). */
#ifndef TILEC_TIR_IR_H
#define TILEC_TIR_IR_H

#include "tilec/tir.h"
#include "base/arena.h"
#include "base/hashmap.h"
#include "base/vec.h"

/* A kernel has at most this many runtime sizes (tir/form.h). */
#define TIR_MAX_SYMBOLS 16
typedef struct tir_sym tir_sym;
typedef struct tir_form tir_form;

struct tir_dim {
    uint32_t id;
    const char *label;
};

typedef struct {
    tir_dim *dim;
    uint64_t extent;
} tir_axis;

/* An extent is a number, or TIR_EXTENT_SYMBOLIC | the id of a form over the
 * kernel's runtime sizes (tir/form.h).  A space's interning key is the bytes
 * of its axes (types.c). */
struct tir_space {
    uint32_t rank;
    tir_axis axes[];
};

struct tir_type {
    tir_type_kind kind;
    tir_scalar elem;   /* INVALID for Index */
    tir_space *space;  /* Tile and View */
};

struct tir_use {
    tir_op *user;
    uint32_t index;
    tir_value *value;
    tir_use *prev, *next; /* in value->uses, while the user is attached */
    bool linked;
};

struct tir_value {
    uint32_t id;
    tir_type *type;
    const char *name;
    tir_op *def_op;       /* op result */
    tir_block *def_block; /* block argument */
    uint32_t index;
    bool read_only;       /* a `const` view parameter */
    tir_use *uses;
    uint32_t use_count;
};

struct tir_block {
    tir_func *func;
    tir_op *parent_op; /* NULL for the function body */
    tir_op *first, *last;
    tir_value **args;
    uint32_t arg_count, arg_capacity;
};

struct tir_op {
    uint32_t id;
    tir_op_kind kind;
    tir_ew_op ew;
    tir_func *func;
    tir_block *parent; /* NULL while detached */
    tir_op *prev, *next;
    tir_use **operands;
    uint32_t operand_count, operand_capacity;
    tir_value **results;
    uint32_t result_count, result_capacity;
    tir_block *body;
    /* A reduce's `combine` block (docs/tir.md "Mergeable reductions"):
     * arguments are the left state then the right state (one per carry),
     * it yields the merged state.  NULL when the reduce has none; never on
     * other ops.  Its parent_op is the reduce. */
    tir_block *combine;
    tir_space *domain;      /* regions, maps, subtile loads/stores */
    tir_bounds bounds;      /* subtile loads/stores */
    /* Subtile loads/stores: the view elements between neighbours along each
     * tile axis (element e of axis a is at origin + e·strides[a]); each >= 1,
     * NULL when all are 1 (the canonical contiguous tile). */
    uint64_t *strides;
    bool has_fill;          /* subtile load: last operand is the fill scalar */
    bool masked;            /* scalar load: operands end with (pred, fallback) */
    tir_reduction_policy policy;
    bool allow_reassociation; /* MMA */
    uint64_t stages, initiation_interval;
    const char *stage_name;
    tir_exec_scope scope;
    tir_literal literal;
    /* A `const index` whose value is a form over the runtime sizes (literal
     * unused); NULL for every other op. */
    const tir_form *form;
    tilec_loc loc;
};

typedef struct {
    const char *name;
    int64_t value;
    const tir_form *form; /* a runtime size or a form over them (value unused); NULL when static */
    /* `NAME in {v, …}`: the values tilec may choose from (value: the first,
     * unless a define pinned it); NULL for every other parameter */
    const int64_t *choices;
    uint32_t choice_count;
} tir_shape_param;

struct tir_func {
    tir_module *module;
    const char *name;
    tir_block *body;
    uint32_t next_value_id, next_op_id;
    tir_shape_param *shape_params;
    uint32_t shape_param_count;
    /* The runtime sizes: the shape parameters declared with a range and not
     * pinned, in declaration order (tir/form.h). */
    const tir_sym *syms[TIR_MAX_SYMBOLS];
    uint32_t sym_count;
    tilec_loc loc;
};

struct tir_module {
    tilec_context *ctx;
    arena arena;
    VEC(tir_func *) funcs;
    hashmap func_names; /* kernel name -> kernel: a module of n kernels is built in O(n) */
    uint32_t dim_count;
    VEC(tir_dim *) positional; /* positional[k] = "positional.<k>" or NULL */
    hashmap spaces; /* interned spaces (types.c): axes bytes -> space */
    hashmap types;  /* interned types: (kind, elem, space) -> type */
    VEC(tir_form *) forms; /* interned forms (tir/form.h), by id */
    hashmap form_keys;     /* their keys -> form */
    tir_type *index_type;
};

/* ---- internal constructors used by the builder, parser and capture ---- */
tir_op *tir_op_new(tir_func *f, tir_op_kind kind, tilec_loc loc); /* detached */
bool tir_op_add_operand(tir_op *op, tir_value *v);
tir_value *tir_op_add_result(tir_op *op, tir_type *type);
tir_block *tir_block_new(tir_func *f, tir_op *parent_op);
tir_value *tir_block_add_arg(tir_block *b, tir_type *type);
bool tir_value_set_name(tir_module *m, tir_value *v, const char *name);

static inline bool tir_op_is_loop(const tir_op *op) {
    return op->kind == TIR_OP_SERIAL || op->kind == TIR_OP_PIPELINE || op->kind == TIR_OP_REDUCE;
}
static inline bool tir_op_is_region(const tir_op *op) {
    return tir_op_is_loop(op) || op->kind == TIR_OP_PARALLEL || op->kind == TIR_OP_MAP || op->kind == TIR_OP_IF;
}
/* A region whose results are carries (loops and if): the carry count.  An
 * if's operands are its carries' initial values, then its condition. */
static inline uint32_t tir_op_carry_count(const tir_op *op) {
    return tir_op_is_loop(op) || op->kind == TIR_OP_IF ? op->result_count : 0;
}
/* Whether `stride` is a valid step for a tile axis of n elements: >= 1, and
 * the span (n - 1)·stride + 1 fits an i64 so element offsets never wrap. */
static inline bool tir_stride_valid(uint64_t n, uint64_t stride) {
    uint64_t span;
    return stride > 0 && (n <= 1 || (!__builtin_mul_overflow(n - 1, stride, &span) && span < INT64_MAX));
}
/* A subtile access's step along `axis` in view elements (1 unless strided). */
static inline uint64_t tir_op_stride(const tir_op *op, uint32_t axis) { return op->strides ? op->strides[axis] : 1; }
/* The view elements a subtile access spans along `axis`, first to last:
 * (n - 1)·stride + 1, 0 for an empty axis (the builder keeps it <= INT64_MAX). */
static inline uint64_t tir_op_span(const tir_op *op, uint32_t axis) {
    uint64_t n = op->domain->axes[axis].extent;
    return n ? (n - 1) * tir_op_stride(op, axis) + 1 : 0;
}
/* Index, Scalar or Tile element type; Index counts as i64. */
static inline tir_scalar tir_value_elem(const tir_value *v) { return tir_type_elem(v->type); }
static inline bool tir_type_is_tile(const tir_type *t) { return t->kind == TIR_TYPE_TILE; }
static inline bool tir_type_is_scalar_like(const tir_type *t) {
    return t->kind == TIR_TYPE_SCALAR || t->kind == TIR_TYPE_INDEX;
}
/* Index or an integer scalar: what coordinates and view indices accept. */
static inline bool tir_type_is_integer_scalar(const tir_type *t) {
    return t->kind == TIR_TYPE_INDEX || (t->kind == TIR_TYPE_SCALAR && tir_scalar_is_integer(t->elem));
}

#endif
