/* internal.h — state and helpers shared by the files of the lowerer.
 *
 * The lowerer walks the admitted TileIR kernel once per emission of each
 * block (an unrolled map body once per element, a partitioned reduction body
 * once per contribution) and binds every TileIR value to a record `lv` that
 * holds its XIR realization in the form the representation plan chose.
 * Records are immutable once bound; re-emitting a body rebinds its values to
 * fresh records.  All private arrays are allocas in the entry block (one per
 * static site), so their count and bytes can be compared with the plan.
 *
 * Errors are sticky: the first one sets `status`, later emission is skipped,
 * and every helper tolerates NULL XIR values (allocation failure). */
#ifndef TILEC_LOWER_INTERNAL_H
#define TILEC_LOWER_INTERNAL_H

#include "lower/lower.h"
#include "realize/root_map.h"
#include "tir/fault.h"

typedef enum { LV_SCALAR = 1, LV_SPLAT, LV_SSA, LV_ARRAY, LV_RECIPE, LV_STREAM } lv_form;

typedef struct lw_access lw_access; /* view.c: a prepared tile access */

typedef struct lv lv;
struct lv {
    lv_form form;
    tir_scalar elem;
    uint64_t count;
    xir_value *value;  /* SCALAR, SPLAT */
    xir_value *split;  /* SCALAR coordinate on the distributed axis: its slot q (value = W·q + lane) */
    xir_value **elems; /* SSA: [count] */
    xir_value *array;  /* ARRAY storage, or an SSA Tile's definition snapshot */
    const tir_op *op;  /* RECIPE: the elementwise op, over `space` */
    const tir_space *space;
    lv *in[3];         /* RECIPE: the operands' records, captured at the definition */
    lw_access *access; /* STREAM: the load's access, prepared at the definition */
};

typedef struct {
    bool known;
    int64_t lo, hi;
    /* v <= floor(sym / sym_div) + sym_c, sym a form over the runtime sizes
     * (bounds.c); NULL: none */
    const tir_form *sym;
    int64_t sym_div, sym_c;
} lw_range;

typedef struct {
    tilec_context *ctx;
    const tir_func *tf;
    const tilec_compile_options *opt; /* the record: representation settings, bounds checks, fma */
    const realize_choice *choice;     /* what the plan decided */
    const plan_repr *plan;
    const plan_local *local; /* packet-local (plan->options.local), else NULL */
    xir_value *lane_id;      /* packet-local: warp_lane_id (u32) */
    xir_value *lane;         /* packet-local: the lane as Index (i64, interval [0, W-1]) */
    xir_module *m;
    xir_func *f;
    xir_builder b;
    xir_block *entry; /* allocas only; branches to the code */
    arena arena;      /* records and scratch, freed after lowering */
    lv **vals;        /* [tf->next_value_id] */
    xir_value **buffers; /* [parameter count] */
    xir_value *packed[PLAN_MAX_PACKS]; /* choice->packing: each pack's panels, the buffers after the parameters */
    VEC(lw_range) ranges; /* by XIR value id: known coordinate intervals */
    VEC(tir_fault_site) sites; /* the kernel's fault sites (check.c) */
    uint32_t *site_of_op;      /* [tf->next_op_id]: 1 + the op's first site, 0: none yet */
    /* runtime sizes (sizes.c): the dims buffer and each form's value by id */
    xir_value *dims;
    xir_value **form_values;
    uint32_t form_count;
    uint64_t alloca_count, alloca_bytes;
    lower_counters counters;
    tilec_status status;
} lowerer;

/* ---- errors and budgets (values.c) ---- */
bool lw_ok(lowerer *lw); /* no error so far and the expansion budget holds */
tilec_status lw_fail(lowerer *lw, tilec_status status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define lw_internal(lw, ...) lw_fail((lw), TILEC_E_INTERNAL, "LOWER-I01", __VA_ARGS__)
void *lw_alloc(lowerer *lw, size_t size); /* zeroed scratch from the lowering arena */

/* ---- scalar emission with integer constant folding (values.c) ---- */
xir_value *lw_i64(lowerer *lw, int64_t v);
bool lw_const_int(const xir_value *v, int64_t *out); /* an integer constant that fits i64 */
xir_value *lw_arith(lowerer *lw, xir_arith_op op, xir_value *x, xir_value *y, xir_value *z);
xir_value *lw_cast(lowerer *lw, xir_value *x, tir_scalar to);
xir_value *lw_to_i64(lowerer *lw, xir_value *x, tir_scalar from); /* an index operand as a coordinate */
/* One element of a lifted elementwise op (`elem` is the result element type). */
xir_value *lw_apply(lowerer *lw, tir_ew_op op, tir_scalar elem, xir_value *const *args);

/* ---- records (values.c) ---- */
lv *lw_lookup(lowerer *lw, const tir_value *v);
lv *lw_scalar(lowerer *lw, tir_scalar elem, xir_value *value);
lv *lw_splat(lowerer *lw, tir_scalar elem, uint64_t count, xir_value *value);
lv *lw_ssa(lowerer *lw, tir_scalar elem, uint64_t count);
lv *lw_array(lowerer *lw, tir_scalar elem, uint64_t count); /* a fresh alloca */
lv *lw_array_over(lowerer *lw, tir_scalar elem, uint64_t count, xir_value *array); /* existing storage */
/* Binds v to rec, checking the form against the plan; writes the definition
 * snapshot (one store per element) when the plan asks for one. */
void lw_bind(lowerer *lw, const tir_value *v, lv *rec);
xir_value *lw_alloca(lowerer *lw, tir_scalar elem, uint64_t count);
/* Element `flat` (i64, known in range) of a record. */
xir_value *lw_read(lowerer *lw, const lv *rec, xir_value *flat);
void lw_array_write(lowerer *lw, xir_value *array, xir_value *flat, xir_value *value);
/* Packet-local: a warp_sync, so that the lanes' buffer accesses on either
 * side are ordered (a store's elements go to other lanes than a load's or
 * another store's; docs/lowering.md "Packet-local realization").  Nothing
 * one program per lane, nor right after another warp_sync. */
void lw_warp_sync(lowerer *lw);
/* Writes every element of src into the array dst (same count). */
void lw_copy(lowerer *lw, const tir_space *space, bool runtime, xir_value *dst, const lv *src);

/* ---- index spaces (values.c) ----
 * Packet-local, every space is its slot space: the distributed axis D has
 * S = ceil(N/W) slots (plan_local_extent), so traversals, flat indices and
 * projections work on slots; lw_element converts a slot to the element. */
uint64_t lw_extent(const lowerer *lw, const tir_axis *axis);
/* The element e = W·q + lane of slot q (i64; its interval follows from q's
 * and the lane's). */
xir_value *lw_element(lowerer *lw, xir_value *q);
/* Whether element e of D is inside the domain (e < N); NULL when proven. */
xir_value *lw_element_valid(lowerer *lw, const plan_local_dim *d, xir_value *e);
/* Row-major flat index of coords (one per axis of s). */
xir_value *lw_flat(lowerer *lw, const tir_space *s, xir_value *const *coords);
/* Coordinates of `flat` in s: div/mod by static extents, no mod on the first
 * non-unit axis, 0 for unit axes. */
void lw_decode(lowerer *lw, const tir_space *s, xir_value *flat, xir_value **coords);
void lw_decode_extents(lowerer *lw, uint32_t rank, const uint64_t *extents, xir_value *flat, xir_value **coords);
/* The flat index into an operand over `from` of the element at result
 * coordinates `coords` over `to`: by dimension identity, unit axes read 0. */
xir_value *lw_project(lowerer *lw, const tir_space *from, const tir_space *to, xir_value *const *coords,
                      xir_value *to_flat);
/* Visits every element of s: unrolled with constant indices, or in one
 * runtime counted loop. */
typedef void (*lw_visit)(lowerer *lw, void *user, xir_value *flat, xir_value *const *coords);
void lw_traverse(lowerer *lw, const tir_space *s, bool runtime, lw_visit visit, void *user);
uint64_t lw_volume(const lowerer *lw, const tir_space *s);

/* ---- runtime sizes (sizes.c) ---- */
/* Adds the dims buffer when the kernel has runtime sizes (after the
 * parameters and panels). */
void lw_sizes_begin(lowerer *lw);
/* An extent's value as i64: a constant, or its form evaluated in the entry
 * block from the dims (with its interval). */
xir_value *lw_extent_value(lowerer *lw, uint64_t extent);
xir_value *lw_form_value(lowerer *lw, const tir_form *f);
/* floor(A / k) at the builder's position, for blocks = ceil_div(A, k)
 * (tir_form_is_blocks): the whole blocks, which peeled loops and roots run
 * unguarded. */
xir_value *lw_whole_blocks(lowerer *lw, const tir_form *blocks);
/* The product of s's extents as i64 (runtime domains: not the local slots). */
xir_value *lw_volume_value(lowerer *lw, const tir_space *s);
uint64_t lw_extent_max(const lowerer *lw, uint64_t extent); /* a runtime size's largest */
uint64_t lw_extent_min(const lowerer *lw, uint64_t extent); /* and smallest */
/* c is a coordinate of an axis of `extent`: its interval [0, max-1] and,
 * for a symbolic extent, that it is below it. */
void lw_coordinate_range(lowerer *lw, xir_value *c, uint64_t extent);
/* Row-major decode of `flat` over a domain with runtime extents. */
void lw_decode_sized(lowerer *lw, const tir_space *s, xir_value *flat, xir_value **coords);

/* ---- control flow (cfg.c) ---- */
typedef struct {
    xir_block *preheader, *header, *exit, *latch;
    xir_inst *index; /* i64 induction PHI */
} lw_loop;
/* A top-tested counted loop for (i = start; i < end; i += step); the builder
 * is left in the body.  The index's interval is recorded. */
void lw_loop_begin(lowerer *lw, lw_loop *L, int64_t start, int64_t end, int64_t step);
/* A loop from `start` while index < end (i64 values; the index in
 * [0, max-1]), step 1. */
void lw_loop_begin_to(lowerer *lw, lw_loop *L, xir_value *start, xir_value *end, uint64_t max);
/* A header PHI entering with `init` from the preheader. */
xir_inst *lw_loop_phi(lowerer *lw, lw_loop *L, xir_type *type, xir_value *init);
/* Increments, branches back and leaves the builder at the exit; L->latch is
 * the back-edge block for further PHI incomings. */
void lw_loop_end(lowerer *lw, lw_loop *L, int64_t step);
void lw_phi_add(lowerer *lw, xir_inst *phi, xir_value *value, xir_block *from);

typedef struct {
    xir_block *from, *then_block, *then_end, *merge;
} lw_if;
void lw_if_begin(lowerer *lw, lw_if *d, xir_value *cond); /* builder in the then-block */
void lw_if_end(lowerer *lw, lw_if *d);                    /* builder at the merge */
/* After lw_if_end: PHI(then_value from the then-branch, else_value otherwise). */
xir_value *lw_if_phi(lowerer *lw, lw_if *d, xir_value *then_value, xir_value *else_value);

/* ---- intervals and guards (bounds.c) ---- */
void lw_set_range(lowerer *lw, xir_value *v, int64_t lo, int64_t hi);
/* v <= floor(form / div) + c, for v with a recorded interval. */
void lw_set_sym_bound(lowerer *lw, xir_value *v, const tir_form *form, int64_t div, int64_t c);
bool lw_range_of(lowerer *lw, xir_value *v, int64_t *lo, int64_t *hi);
/* Whether 0 <= v < count is proven. */
bool lw_proven_index(lowerer *lw, xir_value *v, uint64_t count);
/* The guard 0 <= origin + e < extent (origin, e: i64; e's range known or
 * constant), computed without overflow; NULL when proven redundant. */
xir_value *lw_axis_guard(lowerer *lw, xir_value *origin, xir_value *e, uint64_t extent);
/* Whether origin + [0, n-1] is proven inside [0, extent). */
bool lw_axis_proven(lowerer *lw, xir_value *origin, uint64_t n, uint64_t extent);

/* ---- bounds checks (check.c) ----
 * The check of op's access (scalar view access, extract, or bounds=assume
 * subtile) with values[a] (i64 index, coordinate or origin) on each of its
 * `rank` axes, skipping axes with skip[a] (skip may be NULL): emits the
 * fault report for an out-of-range value and returns the condition under
 * which the access may happen, NULL when every axis is proven in range. */
xir_value *lw_check_access(lowerer *lw, const tir_op *op, uint32_t rank, xir_value *const *values, const bool *skip);

/* ---- ops ---- */
/* body.c: lowers every op of b except its yield and `skip` (may be NULL). */
void lower_block(lowerer *lw, const tir_block *b, const tir_op *skip);
void lower_op(lowerer *lw, const tir_op *op);
void lower_constant(lowerer *lw, const tir_op *op);                      /* values.c */
void lower_elementwise(lowerer *lw, const tir_op *op);                   /* values.c */
void lower_extract(lowerer *lw, const tir_op *op);                       /* values.c */
void lower_load(lowerer *lw, const tir_op *op);                          /* view.c */
void lower_store(lowerer *lw, const tir_op *op);                         /* view.c */
/* Element `flat` of a streamed load: its guarded read from the view. */
xir_value *lw_read_stream(lowerer *lw, const lv *rec, xir_value *flat);  /* view.c */
/* The pack of rec when it is a streamed load of panels packed in groups
 * (rewrite/pack.h), else NULL; and the u32 word of the group at `coords`
 * (the group axis's coordinate counting groups); view.c. */
const plan_pack *lw_grouped_pack(lowerer *lw, const lv *rec);
xir_value *lw_read_word(lowerer *lw, const lv *rec, xir_value *const *coords);
void lower_map(lowerer *lw, const tir_op *op);                           /* map.c */
xir_value *lw_read_map_recipe(lowerer *lw, const lv *rec, xir_value *flat); /* map.c: a coordinate map recipe */
void lower_loop(lowerer *lw, const tir_op *op);                          /* loops.c */
void lower_if(lowerer *lw, const tir_op *op);                            /* branch.c */

/* A loop's or if's carry (loops.c): a bounded Tile (ARRAY) is buffered in a
 * `current` array, which holds the initial value once begun, and a `next`
 * one; any other is its elements, the initial ones read where it begins. */
typedef struct {
    const plan_value *plan; /* of the carry argument */
    const tir_space *space; /* Tiles */
    xir_value *current, *next;
    xir_value **elems;
} lw_carry;
bool lw_carry_begin(lowerer *lw, lw_carry *c, const tir_value *arg, const tir_value *init);
/* The yielded value y into c: staged into next (ARRAY), else its elements,
 * read here, replace elems.  Then, once every carry's yield is staged,
 * lw_carry_commit copies next into current (a yield may read current). */
bool lw_carry_yield(lowerer *lw, lw_carry *c, const lv *y);
void lw_carry_commit(lowerer *lw, lw_carry *c);
void lower_partitioned_reduce(lowerer *lw, const tir_op *op);            /* reduce.c */
/* Packet-local: every lane's partial p over the distributed dim d (with
 * `valid`, NULL: every lane has one) combined over the packet by `op` in a
 * butterfly, the lane's own
 * partial on the left when own_left; the root, lane 0's, on every lane. */
xir_value *lw_packet_combine(lowerer *lw, const plan_local_dim *d, xir_value *p, xir_value *valid, tir_ew_op op,
                             bool own_left, tir_scalar elem);                 /* reduce.c */
void lower_mma(lowerer *lw, const tir_op *op);                           /* mma.c */
/* Binds a region's coordinate arguments (loops.c): to given i64 values, or to
 * the coordinates of a domain ordinal. */
void lw_bind_coord_values(lowerer *lw, const tir_op *op, xir_value *const *coords);
void lw_bind_coords(lowerer *lw, const tir_op *op, xir_value *ordinal);
/* The lowered yield operand `index` of a region body. */
lv *lw_yielded(lowerer *lw, const tir_op *op, uint32_t index);

#endif
