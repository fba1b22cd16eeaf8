/* represent.h — the representation plan: for every TileIR value of an
 * admitted kernel, its physical form in XIR, and for every op, how it is
 * traversed and how many times it is emitted.  This is the single source of
 * truth shared by the lowerer (which emits exactly what the plan says), the
 * static resource analysis (resources.h) and the planner's work accounting.
 *
 * Forms (compiler state, not user-visible types):
 *   SCALAR  one SSA value (scalars, Index coordinates, extracts)
 *   SPLAT   a Tile whose elements are all one SSA value (tile constants, and
 *           elementwise ops over splats and scalars) — no storage
 *   SSA     a small Tile (count <= max_unrolled_tile_elements): one SSA value
 *           per element, built at its definition with constant indices;
 *           `snapshot` adds an indexable private array written once at the
 *           definition (one store per element) for runtime-indexed reads
 *   ARRAY   a bounded Tile: a private array filled by a runtime loop (loads,
 *           elementwise, maps, mma outputs), or a large loop carry's current
 *           array (the loop owns current and next)
 *   RECIPE  a bounded Tile defined by an elementwise op with exactly one use
 *           (or, with `recompute`, a cheap one — no exp/log/sqrt/tanh/div —
 *           with at most PLAN_RECOMPUTE_USES uses whose evaluation costs at
 *           most PLAN_RECOMPUTE_OPS operations per element; with
 *           `recompute_costly`, any op and PLAN_RECOMPUTE_COSTLY_OPS):
 *           nothing is emitted at the definition; the consumer evaluates the
 *           op at each element it reads, from the operands' records (which
 *           are immutable where the consumer runs).  Its depth is one more
 *           than its deepest recipe operand; a depth above max_recipe_depth
 *           is refused ("depth budget"); max_recipe_depth 0 forms no recipes.
 *           With `recompute`, a bounded coordinate map (a body of constants
 *           and cheap scalar elementwise ops: iota, masks of coordinates)
 *           with the same limits is a recipe too: its body is emitted at
 *           each element read
 *   STREAM  a bounded tile load read from its view at each element a
 *           consumer reads (with `stream`, when realize/stream.h allows it):
 *           nothing but the access's origins and checks at the definition
 *
 * Traversal rules:
 *   bounded(n)       = max_unrolled_tile_elements != 0 && n > it
 *   map runtime loop = bounded(domain) || (max_unrolled_region_work != 0 and
 *                      the body has loops/maps/mma and domain × body work > it),
 *                      where work counts what emission repeats: elements of
 *                      unrolled traversals, a runtime loop's body once, an
 *                      unrolled map or partitioned reduction per emission
 *   mma              = an output loop when bounded(outputs), a contraction
 *                      loop when bounded(contraction)
 *   serial/pipeline/reduce = one counted runtime loop, except a closed
 *                      unordered reduction (tileir-spec §2.9) over a bounded
 *                      domain with reduction_partitions > 1, which is split
 *                      over min(P, count) partial accumulators: contributions
 *                      0..P-1 seed the partials, a runtime bulk loop (when
 *                      count - count mod P > P) adds P per step, the tail is
 *                      added exactly, so its body is emitted
 *                      P + (bulk loop ? P : 0) + count mod P times.
 * Packet-local (options.local): every count is a slot count (plan_local_volume:
 * the distributed axis D has S = ceil(N/W) slots), and every closed
 * reduction over D takes the partitioned form over the floor(N/W) full slots
 * (whatever its size or P), then its partly valid tail slot (N % W != 0),
 * then the lane butterfly.  Coordinates on D are never constant (e = W·q +
 * lane); `constant_slot` says their slot q is.
 * A scalar is `constant` when every emission makes it a compile-time integer
 * (constants, coordinates of unrolled maps and loop-free partitions, and
 * integer elementwise ops of those); an extract with a non-constant index,
 * and an SSA operand of a runtime traversal, read an SSA Tile of more than one
 * element at a runtime index, which gives that Tile a definition snapshot. */
#ifndef TILEC_REALIZE_REPRESENT_H
#define TILEC_REALIZE_REPRESENT_H

#include "realize/local.h"
#include "tilec/tilec.h"

/* The two limits of the representation no option sets: the planner's,
 * which the lowering repeats (realize/choice.h). */
enum { PLAN_MAX_UNROLLED_REGION_WORK = 4096, PLAN_MAX_RECIPE_DEPTH = 64 };

typedef struct {
    /* the compile options: max_unrolled_tile_elements (0: no bound, fully
     * expanded) and reduction_partitions (1..16) are read from it; borrowed */
    const tilec_compile_options *record;
    uint64_t max_unrolled_region_work;   /* 0: no region-work bound */
    uint32_t max_recipe_depth;           /* 0: no deferred recipes */
    const plan_local *local;             /* borrowed; NULL: one program per lane */
    bool stream;                         /* streamed loads (realize/stream.h) */
    bool recompute;                      /* cheap multi-use elementwise values as recipes */
    bool recompute_costly;               /* with recompute: costly ones too (fusion level 2) */
} plan_repr_options;

enum { PLAN_RECOMPUTE_USES = 4, PLAN_RECOMPUTE_OPS = 4, PLAN_RECOMPUTE_COSTLY_OPS = 16, PLAN_MAX_JOINED_STORES = 8 };

typedef enum {
    PLAN_FORM_NONE = 0, PLAN_FORM_VIEW, PLAN_FORM_SCALAR, PLAN_FORM_SPLAT, PLAN_FORM_SSA, PLAN_FORM_ARRAY, PLAN_FORM_RECIPE, PLAN_FORM_STREAM
} plan_form;

typedef struct {
    plan_form form;
    tir_scalar elem;       /* Index as I64 */
    uint64_t count;        /* elements (1 for scalars) */
    bool constant;         /* SCALAR: a compile-time constant at every emission */
    bool constant_slot;    /* a coordinate on the distributed axis: its slot q is a compile-time constant */
    bool snapshot;         /* SSA: plus a definition-time indexable snapshot */
    uint32_t arrays;       /* private arrays its definition allocates (ARRAY: 1, or 2 for a large carry's result) */
    uint32_t depth;        /* RECIPE: deferred evaluation depth */
    uint32_t ops;          /* RECIPE: operations per element read (its op and its recipe operands') */
    uint64_t multiplicity; /* static emissions of its definition */
} plan_value;

typedef struct {
    uint64_t multiplicity; /* static emissions of the op */
    uint64_t count;        /* elements traversed / loop trips / mma outputs */
    /* a loop over runtime sizes (tir/form.h): its trips are the dispatch's
     * (count 0), at most max_count; it is never partitioned */
    bool sized;
    uint64_t max_count;
    /* sized, one axis of ceil_div(A, k) trips, in order: lowered as floor(A/k)
     * guard-free trips, then the rest (body_emissions 2; loops.c); a root:
     * plan_local_peels_root (lower.c) */
    bool peeled;
    bool runtime;          /* elementwise, load, store, map, mma outputs: a runtime loop */
    uint64_t contraction;  /* mma: contracted elements */
    bool contraction_runtime;
    /* reduce: the closed partitioned form */
    bool partitioned;
    bool carry_left; /* the update reads (carry, x), else (x, carry) */
    const tir_op *update;
    uint32_t partitions; /* min(P, count) */
    bool bulk_loop;
    bool local;          /* packet-local over D: count = full slots, then the tail slot and the lane butterfly */
    bool local_tail;     /* local: one partly valid slot after the full ones */
    bool lane_order;     /* local, ordered policy: count = every slot, each element folded in order from its lane */
    uint64_t body_emissions; /* body emissions per emission of the op */
    /* a fused bounded tile store traversed together with the next op (a
     * store to the same parameter over the same space, writing apart, whose
     * values read no stream of another parameter that may overlap this one):
     * one loop evaluates their values and writes both per element */
    bool joins_next;
} plan_op;

typedef struct {
    tilec_context *ctx;
    const tir_func *func;
    plan_repr_options options;
    plan_admission admission;
    plan_value *values; /* [func->next_value_id] */
    plan_op *ops;       /* [func->next_op_id] */
    size_t value_count, op_count;
    /* [params × params] plan_guard (realize/stream.h): what the streamed loads
     * need of the parameters' placement at dispatch (row: the load's) */
    uint8_t *guards;
    uint32_t params;
    uint32_t streamed_loads, recomputed_values; /* what fusion changed (0, 0: nothing) */
} plan_repr;

/* The options at fusion level `level` (plan_candidate.fused): 0 none, 1
 * stream and recompute, 2 also recompute_costly. */
void plan_repr_set_fusion(plan_repr_options *o, uint32_t level);

bool plan_bounded(const plan_repr_options *o, uint64_t n);
/* The math library (scalar/math_ops.h), sigmoid, rsqrt, sqrt, div, mod: never
 * recomputed; worth a branch to skip. */
bool plan_ew_expensive(tir_ew_op op);
/* Whether an elementwise op folds to a constant when its operands are
 * constants: integer and bool operations (not floats). */
bool plan_ew_foldable(tir_ew_op op, tir_scalar operand_elem, tir_scalar result_elem);

/* Plans the admitted kernel `f`.  TILEC_E_BUDGET ("depth budget", LOWER-B03)
 * for a recipe deeper than max_recipe_depth, TILEC_E_NOMEM on allocation
 * failure; `out` is then empty. */
tilec_status plan_represent(tilec_context *ctx, const tir_func *f, const plan_admission *admission,
                            const plan_repr_options *options, plan_repr *out);
void plan_repr_free(plan_repr *r);

static inline const plan_value *plan_value_of(const plan_repr *r, const tir_value *v) { return &r->values[v->id]; }
static inline const plan_op *plan_op_of(const plan_repr *r, const tir_op *op) { return &r->ops[op->id]; }

/* The closed-reduction test of tileir-spec §2.9 (policy unordered_tree, one
 * scalar carry used only by one ADD/MUL/MIN/MAX update that is the yielded
 * value and used by nothing else, a body of constants, elementwise ops and
 * extracts).  Sets *update and *carry_left when closed. */
bool plan_reduce_is_closed(const tir_op *op, const tir_op **update, bool *carry_left);
/* The same form under any policy and with any two-operand elementwise
 * update of the carry's type (an ordered fold of one update: SUB, DIV, …). */
bool plan_reduce_is_simple(const tir_op *op, const tir_op **update, bool *carry_left);
/* The distributed dim the mma contracts (each lane folds its slots, then
 * the lanes' partials are combined), else NULL (also for a NULL local). */
const plan_local_dim *plan_mma_over_local(const plan_local *local, const tir_op *op);

/* Whether op is a store emitted in the traversal of the store before it
 * (plan_op.joins_next). */
bool plan_store_joined(const plan_repr *r, const tir_op *op);

/* Whether an extract reads at a compile-time flat index: every index is a
 * constant, or (packet-local) the split coordinate of a slot-constant map
 * or reduction on the distributed axis. */
bool plan_extract_constant(const plan_repr *r, const tir_op *extract);

#endif
