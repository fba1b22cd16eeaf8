/* interp.h — internals of the FP64 reference interpreter (docs/interpreter.md),
 * shared by interp.c (arguments, storage, per-op preparation) and
 * interp_exec.c (execution); the scalar semantics are scalar/cell.h's.
 *
 * Representation: every non-view SSA value of the kernel owns one slot, indexed
 * by its id, holding `volume` cells in row-major order of its space (1 for
 * scalars and Index).  A cell's meaning is fixed by the slot's element type
 * (scalar/cell.h; Index as i64).  Only the op defining a value writes its slot (block arguments are written by
 * their region op), so re-executing a body simply overwrites last iteration's
 * values; a load copies memory into its slot, which is what makes it a snapshot.
 * All storage is measured against the budgets and allocated once, before
 * execution, from one arena per run. */
#ifndef TILEC_TIR_INTERP_H
#define TILEC_TIR_INTERP_H

#include "scalar/cell.h"
#include "tir/ir.h"

/* Budgets: a single tile may hold at most this many elements, and all values of
 * one kernel together at most TIR_INTERP_MAX_CELLS cells (8 bytes each). */
#define TIR_INTERP_MAX_TILE_ELEMS (UINT64_C(1) << 24)
#define TIR_INTERP_MAX_CELLS (UINT64_C(1) << 26)
/* Spaces of higher rank are refused (coordinate arrays live on the stack). */
#define TIR_INTERP_MAX_RANK 64

/* The cell of constant `lit` of type `t` (the literal converted as a cast
 * from i64, u64, f64 or bool).  False for a literal of unknown kind (the
 * builder refuses those). */
bool interp_literal(tir_scalar t, tir_literal lit, scalar_cell *out);

/* ---- run state ---- */
typedef struct {
    const tir_value *value; /* owner, to reject values of other functions */
    scalar_cell *cells;
    uint64_t volume;
    tir_scalar elem; /* Index as I64 */
} interp_slot;

typedef struct {
    unsigned char *data;
    tir_scalar elem;
    size_t elem_size;
    const tir_space *space;
    uint64_t *strides; /* element strides, row-major */
    bool read_only;
} interp_view;

/* Per-op data computed once before execution. */
typedef struct {
    interp_slot **in;  /* operand slots; NULL entries for views */
    interp_slot **out; /* result slots */
    interp_view *view; /* VIEW_LOAD / VIEW_STORE */
    /* ELEMENTWISE: offset stride of operand k along result axis r at
     * strides[k * rank + r] (0 for scalars and broadcast axes).
     * MMA: strides of a and b along c's axes at [0..rank) and [rank..2 rank). */
    uint64_t *strides;
    /* MMA: element offsets of a and b for each contraction step, in order. */
    uint64_t *k_off_a, *k_off_b;
    uint64_t k_volume;
    /* Regions: the body's block-argument slots (coordinates, then carries) and
     * the slots its yield reads. */
    interp_slot **body_args, **yields;
} interp_step;

/* An observer of every element the interpreter reads or writes through a
 * view (tir_interpret_traced): the access op, the view parameter, the
 * element's row-major index in the view, and the coordinates of the root
 * parallel's instance running it (NULL outside the root parallel).  Tests
 * use it as the ground truth of the planner's access summaries. */
typedef struct {
    void (*access)(void *user, const tir_op *op, uint32_t param, uint64_t element, const int64_t *root);
    void *user;
} tir_interp_trace;

typedef struct {
    tilec_context *ctx;
    const tir_func *func;
    const tir_interp_trace *trace; /* NULL: none */
    arena arena;
    interp_slot *slots;  /* [func->next_value_id] */
    interp_step *steps;  /* [func->next_op_id] */
    interp_view *views;  /* [param count] */
    scalar_cell *pool;   /* every slot's cells, carved in preparation order */
    uint64_t pool_size, cells_used;
} interp;

/* "%name" or "value #id", for diagnostics. */
const char *interp_label(const tir_value *v, char *buf, size_t n);

/* interp_exec.c: runs a (prepared) block. */
tilec_status interp_run_block(interp *it, const tir_block *b);

/* tir_interpret, reporting every view element access to `trace`. */
tilec_status tir_interpret_traced(tilec_context *ctx, const tir_func *f, size_t n_args, const tir_buffer *args,
                                  const tir_interp_trace *trace);

#endif
