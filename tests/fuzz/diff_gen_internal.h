/* diff_gen_internal.h — the state shared by the generator's two halves:
 * diff_gen.c (kernel skeleton, random choices, visible values, index
 * expressions, buffers, views, loads and stores) and diff_gen_ops.c (values:
 * elementwise ops, casts, selects, constants, extracts, maps, reductions,
 * mma, loops, sugar, and the statement mix).
 *
 * Invariants: every Tile axis of dim d has extent ext[d] or 1, so any two
 * Tiles join; Tiles have rank <= GEN_MAX_RANK and at most GEN_MAX_VOLUME
 * elements; `vals` holds exactly the values visible at the insertion point
 * (a block's values are dropped when it closes), each with its facts. */
#ifndef TILEC_TESTS_DIFF_GEN_INTERNAL_H
#define TILEC_TESTS_DIFF_GEN_INTERNAL_H

#include "diff_case.h"
#include "diff_facts.h"
#include "diff_gen.h"
#include "tilec/tir.h"

enum {
    GEN_DIMS = 5,        /* tile dims a..e */
    GEN_MAX_RANK = 3,
    GEN_MAX_VOLUME = 256,
    GEN_MAX_BUFFERS = 8,
    GEN_MAX_PARAMS = 12,
    GEN_MAX_DEPTH = 3,
};

typedef struct {
    tir_value *v;
    diff_facts f;
    int dim; /* >= 0: the coordinate of tile dim `dim` over its whole extent */
} gen_val;

typedef struct {
    tir_scalar elem;
    uint32_t rank;
    uint64_t ext[GEN_MAX_RANK];
    bool partitioned; /* written: instance L owns rows [L·bs, L·bs + bs) */
    uint32_t bs;
    diff_facts content; /* covers every value it ever holds */
    int owner;          /* the parameter that owns its memory */
} gen_buffer;

typedef struct {
    tir_value *view;
    char name[8];
    int buffer;
    uint64_t offset;    /* elements after the buffer's first */
    uint64_t shift;     /* partitioned: view row r is buffer row r + shift */
    uint32_t rank;
    uint64_t ext[GEN_MAX_RANK];
    bool writable;
} gen_param;

/* Parameters must exist before the kernel body has ops, but the generator
 * decides them while it builds the body: a pass that asks for a parameter
 * not yet known records it and restarts; the next pass (same random stream)
 * creates every recorded parameter first and hands them out in order. */
typedef struct {
    tir_scalar elem;
    uint32_t rank;
    uint64_t ext[GEN_MAX_RANK];
    bool writable;
} gen_param_spec;

typedef struct {
    gen_param_spec v[GEN_MAX_PARAMS];
    int n;
} gen_param_specs;

typedef struct {
    uint64_t rng;
    gen_param_specs *specs;
    tir_value *spec_views[GEN_MAX_PARAMS];
    bool restart;
    const diff_gen_options *o;
    diff_gen_stats *stats;
    diff_case c;
    tir_module *m;
    tir_func *f;
    tir_builder *b;
    /* element types of this kernel */
    tir_scalar floats[2], ints[3];
    int n_floats, n_ints;
    /* tile dims */
    tir_dim *dims[GEN_DIMS];
    uint64_t ext[GEN_DIMS];
    int n_dims;
    bool dim_bound[GEN_DIMS]; /* bound by an open map/reduce */
    /* root domain and the instance ordinal L */
    uint64_t G[2], P;
    int grank;
    gen_val L;
    /* memory */
    gen_buffer buf[GEN_MAX_BUFFERS];
    gen_param par[GEN_MAX_PARAMS];
    int n_buf, n_par;
    /* visible values */
    gen_val *vals;
    size_t n_vals, cap_vals;
    /* context */
    int depth, in_map, in_pipeline_top;
    /* a row kernel for packet-local realizations: one nonunit dim (a = N),
     * no loops or mma, closed unordered reductions, flat map bodies, and
     * extracts on a only at the coordinate of an enclosing map/reduce */
    bool local_mode;
    int budget;
    uint32_t fresh;
    bool oob_left; /* this kernel still gets its one out-of-range access */
    bool no_store; /* before and inside a mergeable reduce: a split would repeat a store (docs/lowering.md) */
    bool mergeable; /* the root body starts with gen_split_reduce */
    bool split_chosen; /* the case's split= option is chosen (by the first mergeable reduce) */
    /* the sizes family: extents from edge sizes around the packet width
     * size_width; an empty root domain (axis empty_axis is 0 in the kernel,
     * while G keeps the drawn extent there, so the facts and buffers stay
     * those of a nonempty domain: nothing runs, any facts hold) */
    bool sizes, empty_domain;
    uint32_t size_width;
    uint64_t size_dim_max; /* the tile dims' largest extent */
    int empty_axis;
    /* the math family: the comparison's ulps bound */
    bool math;
    uint32_t math_ulps;
    /* comparison of stored floats */
    bool all_exact;
    double max_ea, max_er;
    bool failed;
    const char *why; /* a failure the builder did not diagnose */
} gen;

/* ---- diff_gen.c ---- */
uint64_t gen_rand(gen *g);
uint32_t gen_below(gen *g, uint32_t n);
bool gen_chance(gen *g, double p);
int gen_range(gen *g, int lo, int hi); /* inclusive */

/* Makes v visible with facts f (v NULL: the builder failed; g->failed). */
gen_val gen_push(gen *g, tir_value *v, diff_facts f);
/* A visible value satisfying `ok` (biased towards recent ones); false when none. */
typedef bool (*gen_filter)(gen *g, const gen_val *v, const void *env);
bool gen_pick(gen *g, gen_filter ok, const void *env, gen_val *out);
bool gen_live(gen *g); /* the builder has not failed */

tir_scalar gen_elem(const gen_val *v);
uint32_t gen_rank(const gen_val *v);      /* 0 for scalars and tiles of rank 0 */
bool gen_is_tile(const gen_val *v);
uint64_t gen_volume(const gen_val *v);
tir_space *gen_space(gen *g, uint32_t rank, const int *dims, const uint64_t *ext);

/* Index values */
gen_val gen_index_const(gen *g, int64_t v);
/* a + b, a · k: index arithmetic with facts. */
gen_val gen_index_add(gen *g, gen_val a, gen_val b);
gen_val gen_index_mul_const(gen *g, gen_val a, int64_t k);
/* A random index value; origins for tile accesses of extent t on an axis of extent e. */
gen_val gen_index_origin(gen *g, uint64_t e, uint64_t t);
/* The coordinate of an enclosing map/reduce over tile dim `dim` of extent e. */
bool gen_coord(gen *g, uint64_t e, int dim, gen_val *out);
/* A value in [0, e) for an index of an axis of extent e (coordinates, constants, mod). */
gen_val gen_index_in(gen *g, uint64_t e, int dim);

/* Input facts of a buffer of type s. */
diff_facts gen_input_facts(gen *g, tir_scalar s);
/* Memory statements; false when nothing was generated. */
bool gen_load_tile(gen *g);
bool gen_load_scalar(gen *g);
bool gen_store(gen *g, const gen_val *v);
/* A load at the coordinate i (values 0..n-1) of an enclosing reduce, from an
 * input view whose axis 0 it walks (origin i·stride + c): rank 0 a scalar
 * load (masked where the row may lie outside the view), else a tile of this
 * space (bounds=zero where it may leave the view).  False inside a map or
 * when the kernel has no room for another view. */
bool gen_load_at(gen *g, tir_scalar elem, const gen_val *i, uint64_t n, uint32_t rank, const int *dims,
                 const uint64_t *ext, gen_val *out);
/* Random tile axes for a load of rank r (dims distinct; extent canonical or 1). */
void gen_tile_axes(gen *g, uint32_t rank, int *dims, uint64_t *ext);
/* A tile of exactly this space and element type from a fresh load of an
 * input buffer (false inside a map). */
bool gen_load_space(gen *g, tir_scalar elem, uint32_t rank, const int *dims, const uint64_t *ext, gen_val *out);

/* ---- diff_gen_ops.c ---- */
tir_scalar gen_pick_elem(gen *g, int kind); /* kind: 0 any, 1 float, 2 integer, 3 numeric */
gen_val gen_const_scalar(gen *g, tir_scalar s);
bool gen_statement(gen *g);
void gen_block(gen *g, int statements);
/* A reduce with a combine block directly in the root body (the root's first
 * store must follow it): 1-3 carries merged by add/mul/max/min, or the
 * online-softmax state; sets the case's split= option.  False when nothing
 * was generated. */
bool gen_split_reduce(gen *g);
/* Records a stored float's comparison needs. */
void gen_note_stored(gen *g, tir_scalar s, const diff_facts *f);

/* ---- diff_gen_math.c ---- */
/* The math family's root body: 1-4 tiles loaded from inputs=edges buffers,
 * each through a math function (sometimes after neg, abs or a cast between
 * f32 and f64), stored; sets g->math_ulps. */
void gen_math_block(gen *g);

#endif
