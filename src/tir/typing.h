/* typing.h — TileIR typing rules shared by the builder, which computes result
 * types and reports TIR-B diagnostics, and the verifier, which checks the types
 * stored in the IR (TIR-V12, TIR-V15).  Keeping the rules here means the two can
 * never disagree on what is well typed.  Nothing here allocates or reports. */
#ifndef TILEC_TIR_TYPING_H
#define TILEC_TIR_TYPING_H

#include "tir/ir.h"

/* Index, Scalar or Tile: what elementwise ops (and casts) take and produce. */
static inline bool tir_type_is_ew_operand(const tir_type *t) {
    return t->kind == TIR_TYPE_INDEX || t->kind == TIR_TYPE_SCALAR || t->kind == TIR_TYPE_TILE;
}

/* An mma operand: a Tile of a numeric (non-bool) element type. */
static inline bool tir_type_is_mma_operand(const tir_type *t) {
    return t->kind == TIR_TYPE_TILE && t->elem != TIR_BOOL;
}

/* The hint after a refusal of an f16/bf16 operand. */
#define HALF_HINT " (f16 and bf16 are storage types: cast to f32 to compute)"

typedef enum {
    TIR_EW_TYPING_OK = 0,
    TIR_EW_TYPING_OPERAND_KIND, /* operand `operand` is not an index, scalar or tile */
    TIR_EW_TYPING_ELEM_DIFFER,  /* operand `operand`'s element type differs from `elem` */
    TIR_EW_TYPING_CONDITION,    /* select: the condition's element `elem` is not bool */
    TIR_EW_TYPING_ELEM_CLASS    /* the opcode is not defined for element type `elem` */
} tir_ew_typing_status;

/* The outcome of typing a lifted elementwise op (docs/tir.md "Elementwise"). */
typedef struct {
    tir_ew_typing_status status;
    size_t operand;       /* the offending operand, for OPERAND_KIND / ELEM_DIFFER */
    tir_scalar elem;      /* the operands' common element type (select: of the values) */
    tir_scalar result;    /* the result element type, when OK */
    tir_space *spaces[3]; /* Tile operand spaces in join order (select: values first) */
    size_t n_spaces;
    bool any_index; /* some operand is an Index */
} tir_ew_typing;

/* Types `op` (not CAST) over exactly tir_ew_arity(op) non-NULL operands. */
void tir_ew_type(tir_ew_op op, tir_value *const *operands, tir_ew_typing *out);

/* The result's kind for an OK typing: a Tile over the identity join when any
 * operand is a Tile, otherwise Index when the element is i64 and some operand
 * is an Index, otherwise a Scalar. */
tir_type_kind tir_ew_result_kind(const tir_ew_typing *t);

/* True when `result` is exactly the identity join of `spaces` (the space
 * tir_space_join builds, axis order included), decided without allocating. */
bool tir_space_is_join(const tir_space *result, size_t n, tir_space *const *spaces);

/* The named-form dimension rule of mma: NULL when it holds, otherwise the
 * reason, written into `buf`. */
const char *tir_mma_dims_error(const tir_space *a, const tir_space *bm, const tir_space *c, char *buf, size_t n);

#endif
