/* tilec/tir.h — TileIR: the execution-first tile language.
 *
 * A module holds kernels (functions).  A kernel's body block takes the tensor
 * views as arguments and contains operations; structured operations (parallel,
 * serial, pipeline, reduce, map) own exactly one body block; a reduce may also
 * own a `combine` block that merges split loop states (never executed as part
 * of the loop).  Values are immutable SSA: scalars, Index coordinates, Tiles
 * (element type + IndexSpace) and Views (kernel tensor parameters).  Every
 * object is owned by its module and keeps a stable address until
 * tir_module_destroy.
 *
 * Building: an explicit SSA builder (the caller supplies loop carries and yields)
 * and a capture layer with mutable variables whose carries are inferred at the
 * end of each region.  Builder errors are sticky diagnostics in the context: the
 * failing call returns NULL / an error status and later calls do nothing.
 *
 * Specification: docs/tir.md (language and text form). */
#ifndef TILEC_TIR_H
#define TILEC_TIR_H

#include "tilec/diag.h"
#include "tilec/scalar.h" /* tir_scalar, tir_ew_op, tir_buffer and their tables */
#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { TIR_TYPE_INDEX = 1, TIR_TYPE_SCALAR, TIR_TYPE_TILE, TIR_TYPE_VIEW } tir_type_kind;

/* ---- operation kinds: X(enum suffix, text keyword) ---- */
#define TIR_OP_KINDS(X) \
    X(CONSTANT, "const") X(ELEMENTWISE, "elementwise") X(MAP, "map") \
    X(EXTRACT, "extract") X(MMA, "mma") X(VIEW_LOAD, "load") X(VIEW_STORE, "store") \
    X(PARALLEL, "parallel") X(SERIAL, "serial") X(PIPELINE, "pipeline") \
    X(STAGE, "stage") X(REDUCE, "reduce") X(YIELD, "yield") X(IF, "if")

typedef enum {
    TIR_OP_INVALID = 0,
#define X(e, name) TIR_OP_##e,
    TIR_OP_KINDS(X)
#undef X
    TIR_OP_KIND_COUNT
} tir_op_kind;

typedef enum { TIR_BOUNDS_ZERO = 0, TIR_BOUNDS_ASSUME } tir_bounds;

#define TIR_REDUCTION_POLICIES(X) \
    X(UNORDERED_TREE, "unordered_tree") X(ORDERED_TREE, "ordered_tree") \
    X(FOLD_LEFT, "fold_left") X(FOLD_RIGHT, "fold_right")
typedef enum {
#define X(e, name) TIR_REDUCE_##e,
    TIR_REDUCTION_POLICIES(X)
#undef X
    TIR_REDUCE_POLICY_COUNT
} tir_reduction_policy;

#define TIR_EXEC_SCOPES(X) \
    X(AUTO, "auto") X(DEVICE, "device") X(GROUP, "group") X(SUBGROUP, "subgroup") \
    X(WORKER, "worker") X(VECTOR, "vector")
typedef enum {
#define X(e, name) TIR_SCOPE_##e,
    TIR_EXEC_SCOPES(X)
#undef X
    TIR_SCOPE_COUNT
} tir_exec_scope;

/* A constant's payload; the constant's type decides its final value. */
typedef enum { TIR_LIT_BOOL, TIR_LIT_INT, TIR_LIT_UINT, TIR_LIT_FLOAT } tir_literal_kind;
typedef struct {
    tir_literal_kind kind;
    union {
        bool b;
        int64_t i;
        uint64_t u;
        double f;
    } as;
} tir_literal;

typedef struct tir_module tir_module;
typedef struct tir_func tir_func;
typedef struct tir_block tir_block;
typedef struct tir_op tir_op;
typedef struct tir_value tir_value;
typedef struct tir_use tir_use;
typedef struct tir_dim tir_dim;
typedef struct tir_space tir_space;
typedef struct tir_type tir_type;
typedef struct tir_builder tir_builder;
typedef struct tir_var tir_var;

/* ---- TileIR's name tables (the scalar and opcode ones: tilec/scalar.h) ---- */
TILEC_API const char *tir_op_kind_name(tir_op_kind k);
TILEC_API const char *tir_reduction_policy_name(tir_reduction_policy p);
TILEC_API const char *tir_exec_scope_name(tir_exec_scope s);

/* ---- module ---- */
TILEC_API tir_module *tir_module_create(tilec_context *ctx); /* NULL on allocation failure */
TILEC_API void tir_module_destroy(tir_module *m);
TILEC_API tilec_context *tir_module_context(const tir_module *m);
TILEC_API size_t tir_module_func_count(const tir_module *m);
TILEC_API tir_func *tir_module_func(const tir_module *m, size_t index);
TILEC_API tir_func *tir_module_find_func(const tir_module *m, const char *name);

/* ---- dimensions, index spaces, types (spaces and types are interned:
 *      equal ones are the same pointer) ---- */
TILEC_API tir_dim *tir_dim_new(tir_module *m, const char *label);
TILEC_API tir_dim *tir_dim_positional(tir_module *m, uint32_t from_right); /* "positional.<k>" */
TILEC_API const char *tir_dim_label(const tir_dim *d);
TILEC_API uint32_t tir_dim_id(const tir_dim *d);

/* An extent is a number below 2^63, or a runtime size: TIR_EXTENT_SYMBOLIC
 * with the id of a form over the kernel's runtime sizes in the low bits
 * (docs/tir.md "Runtime sizes"; tir_func_symbol_extent makes one).  Equal
 * extents are equal numbers; a symbolic one is never 1. */
#define TIR_EXTENT_SYMBOLIC (UINT64_C(1) << 63)
static inline bool tir_extent_is_symbolic(uint64_t extent) { return (extent & TIR_EXTENT_SYMBOLIC) != 0; }

/* NULL (and a diagnostic) on a duplicate or NULL dim. */
TILEC_API tir_space *tir_space_make(tir_module *m, size_t rank, tir_dim *const *dims, const uint64_t *extents);
TILEC_API tir_space *tir_space_positional(tir_module *m, size_t rank, const uint64_t *extents);
TILEC_API size_t tir_space_rank(const tir_space *s);
TILEC_API tir_dim *tir_space_dim(const tir_space *s, size_t axis);
TILEC_API uint64_t tir_space_extent(const tir_space *s, size_t axis);
TILEC_API int tir_space_find(const tir_space *s, const tir_dim *d); /* axis index or -1 */
TILEC_API bool tir_space_volume(const tir_space *s, uint64_t *volume); /* false on overflow or a runtime size */
/* Identity join of §2.5; NULL (and a TILEC_E_SHAPE diagnostic) on conflict. */
TILEC_API tir_space *tir_space_join(tir_module *m, size_t n, tir_space *const *spaces);
/* True when a Tile over `from` broadcasts to `to` (every dim present, equal or 1). */
TILEC_API bool tir_space_broadcasts_to(const tir_space *from, const tir_space *to);

TILEC_API tir_type *tir_type_index(tir_module *m);
TILEC_API tir_type *tir_type_scalar(tir_module *m, tir_scalar s);
TILEC_API tir_type *tir_type_tile(tir_module *m, tir_scalar s, tir_space *space);
TILEC_API tir_type *tir_type_view(tir_module *m, tir_scalar s, tir_space *space);
TILEC_API tir_type_kind tir_type_kind_of(const tir_type *t);
TILEC_API tir_scalar tir_type_elem(const tir_type *t); /* Index reports TIR_I64 */
TILEC_API tir_space *tir_type_space(const tir_type *t); /* Tile/View only */

/* ---- functions (kernels) ---- */
TILEC_API tir_func *tir_func_new(tir_module *m, const char *name); /* NULL + diag on duplicate name */
/* A view parameter over fresh dims "<name>.<i>".  read_only forbids stores. */
TILEC_API tir_value *tir_func_add_view(tir_func *f, const char *name, tir_scalar elem, size_t rank,
                                       const uint64_t *extents, bool read_only);
/* A view parameter of an existing view type. */
TILEC_API tir_value *tir_func_add_param(tir_func *f, const char *name, tir_type *view_type, bool read_only);
/* A scalar parameter (the text form's `%name: f32`): a const view of one
 * element over the fresh dim "<name>.0".  Read it where it is needed with
 * tir_load_elem at index 0 (the parser does so at the top of every
 * outermost parallel body); a caller passes one element. */
TILEC_API tir_value *tir_func_add_scalar(tir_func *f, const char *name, tir_scalar elem);
TILEC_API const char *tir_func_name(const tir_func *f);
TILEC_API tir_module *tir_func_module(const tir_func *f);
TILEC_API tir_block *tir_func_body(const tir_func *f);
TILEC_API size_t tir_func_param_count(const tir_func *f);
TILEC_API tir_value *tir_func_param(const tir_func *f, size_t index);
/* How f uses view parameter `index`: TIR_USE_READ when a load reads it,
 * TIR_USE_WRITE when a store writes it (0: unused, or no such parameter). */
enum { TIR_USE_READ = 1u, TIR_USE_WRITE = 2u };
TILEC_API unsigned tir_func_param_use(const tir_func *f, size_t index);
/* Kernel (shape) parameters the text form specialized this kernel with;
 * *value is 0 for one that depends on a runtime size. */
TILEC_API size_t tir_func_shape_param_count(const tir_func *f);
TILEC_API const char *tir_func_shape_param(const tir_func *f, size_t index, int64_t *value);
/* The values a chosen parameter (`NAME in {v, …}`, docs/tir.md "Chosen
 * parameters") may take, *count of them; NULL (and 0) for any other. */
TILEC_API const int64_t *tir_func_shape_param_choices(const tir_func *f, size_t index, size_t *count);
/* Runtime sizes (docs/tir.md "Runtime sizes"): sizes a kernel is compiled
 * for as a range, given at each run.  A kernel's are numbered in the order
 * they were added; a dims array holds one value per size in that order. */
TILEC_API size_t tir_func_symbol_count(const tir_func *f);
TILEC_API const char *tir_func_symbol(const tir_func *f, size_t index, int64_t *lo, int64_t *hi);
/* A new runtime size over lo..hi (0 <= lo <= hi), before any op is built;
 * *extent receives the extent that stands for it.  Up to 16 per kernel. */
/* The index of the runtime size an extent of f stands for when it is exactly
 * that size (not a form over it), else -1: how a caller infers a size from
 * an array's shape. */
TILEC_API int tir_func_extent_symbol(const tir_func *f, uint64_t extent);
TILEC_API tilec_status tir_func_add_symbol(tir_func *f, const char *name, int64_t lo, int64_t hi, uint64_t *extent);
/* A new module holding f with its runtime sizes set to dims[0..n) (each in
 * its range): every extent and index constant that depends on them becomes
 * a number, so the copy is a kernel like any static one.  The copy keeps
 * f's name, locations and value names.  NULL with a diagnostic (TIR-M09 on
 * a wrong count or a value outside its range, TIR-M10 on an extent that
 * overflows or is negative). */
TILEC_API tir_module *tir_func_specialize(const tir_func *f, size_t n, const int64_t *dims);

/* ---- inspection ---- */
TILEC_API tir_op *tir_block_first(const tir_block *b);
TILEC_API tir_op *tir_block_last(const tir_block *b);
TILEC_API size_t tir_block_arg_count(const tir_block *b);
TILEC_API tir_value *tir_block_arg(const tir_block *b, size_t index);
TILEC_API tir_op *tir_block_parent(const tir_block *b); /* NULL for a function body */

TILEC_API tir_op_kind tir_op_kind_of(const tir_op *op);
TILEC_API tir_ew_op tir_op_ew(const tir_op *op);
TILEC_API tir_op *tir_op_next(const tir_op *op);
TILEC_API tir_op *tir_op_prev(const tir_op *op);
TILEC_API tir_block *tir_op_parent(const tir_op *op);
TILEC_API size_t tir_op_operand_count(const tir_op *op);
TILEC_API tir_value *tir_op_operand(const tir_op *op, size_t index);
TILEC_API size_t tir_op_result_count(const tir_op *op);
TILEC_API tir_value *tir_op_result(const tir_op *op, size_t index);
TILEC_API tir_block *tir_op_body(const tir_op *op); /* NULL for ops without a region */
TILEC_API tir_block *tir_op_combine(const tir_op *op); /* a reduce's combine block; NULL when none */
TILEC_API tir_space *tir_op_domain(const tir_op *op);
TILEC_API tilec_loc tir_op_loc(const tir_op *op);
TILEC_API uint32_t tir_op_id(const tir_op *op);

TILEC_API tir_type *tir_value_type(const tir_value *v);
TILEC_API const char *tir_value_name(const tir_value *v); /* may be NULL */
TILEC_API tir_op *tir_value_def(const tir_value *v);      /* NULL for block arguments */
TILEC_API tir_block *tir_value_owner_block(const tir_value *v); /* block arguments only */
TILEC_API size_t tir_value_index(const tir_value *v);
TILEC_API size_t tir_value_use_count(const tir_value *v);
TILEC_API bool tir_value_read_only(const tir_value *v);

/* ---- mutation (for passes) ---- */
TILEC_API void tir_op_detach(tir_op *op);                       /* O(1); uses leave use lists */
TILEC_API void tir_op_insert_before(tir_op *op, tir_op *position);
TILEC_API void tir_op_insert_end(tir_op *op, tir_block *block);
TILEC_API void tir_op_move_before(tir_op *op, tir_op *position);
TILEC_API tilec_status tir_op_set_operand(tir_op *op, size_t index, tir_value *v);
TILEC_API tilec_status tir_op_erase(tir_op *op); /* results must be unused */
TILEC_API tilec_status tir_value_replace_all_uses(tir_value *from, tir_value *to); /* equal types */

/* ---- explicit SSA builder ---- */
typedef struct {
    tir_exec_scope scope;            /* PARALLEL only */
    uint64_t stages;                 /* PIPELINE; 0 = unspecified */
    uint64_t initiation_interval;    /* PIPELINE; 0 means the default 1 */
    tir_reduction_policy policy;     /* REDUCE */
} tir_region_opts;

TILEC_API tir_builder *tir_builder_create(tir_func *f); /* inserts at the end of the body */
TILEC_API void tir_builder_destroy(tir_builder *b);
TILEC_API tilec_status tir_builder_status(const tir_builder *b); /* first error, sticky */
TILEC_API tir_module *tir_builder_module(const tir_builder *b);
TILEC_API void tir_builder_set_loc(tir_builder *b, tilec_loc loc); /* for subsequent ops */

TILEC_API tir_value *tir_const(tir_builder *b, tir_type *type, tir_literal lit); /* scalar or Tile splat */
TILEC_API tir_value *tir_const_index(tir_builder *b, int64_t v);
TILEC_API tir_value *tir_const_int(tir_builder *b, tir_scalar s, int64_t v);
TILEC_API tir_value *tir_const_float(tir_builder *b, tir_scalar s, double v);
TILEC_API tir_value *tir_const_bool(tir_builder *b, bool v);
/* Lifted elementwise op: result space is the identity join of the operands;
 * comparisons give bool.  CAST takes tir_cast, SELECT tir_select. */
TILEC_API tir_value *tir_ew(tir_builder *b, tir_ew_op op, size_t n, tir_value *const *operands);
TILEC_API tir_value *tir_ew1(tir_builder *b, tir_ew_op op, tir_value *x);
TILEC_API tir_value *tir_ew2(tir_builder *b, tir_ew_op op, tir_value *x, tir_value *y);
TILEC_API tir_value *tir_cast(tir_builder *b, tir_value *v, tir_scalar to);
TILEC_API tir_value *tir_select(tir_builder *b, tir_value *cond, tir_value *t, tir_value *f);
TILEC_API tir_value *tir_extract(tir_builder *b, tir_value *tile, size_t n, tir_value *const *indices);
/* c + a·b contracted over the dims a and b share but c lacks (named form), or the
 * rank-2 positional fallback (a=(M,K), b=(K,N), c=(M,N)) with a fresh k dim. */
TILEC_API tir_value *tir_mma(tir_builder *b, tir_value *a, tir_value *bm, tir_value *c, bool allow_reassociation);
TILEC_API tir_value *tir_load_tile(tir_builder *b, tir_value *view, tir_value *const *origin,
                                   tir_space *space, tir_bounds bounds, tir_value *fill /* NULL: 0 */);
/* Stores `tile` (its space is the store domain). */
TILEC_API tilec_status tir_store_tile(tir_builder *b, tir_value *view, tir_value *const *origin,
                                      tir_value *tile, tir_bounds bounds);
/* Strided tiles: element e of tile axis a is view index origin[a] + e·strides[a]
 * (one stride >= 1 per axis; NULL or all 1: the contiguous forms above). */
TILEC_API tir_value *tir_load_tile_strided(tir_builder *b, tir_value *view, tir_value *const *origin,
                                           tir_space *space, const uint64_t *strides, tir_bounds bounds,
                                           tir_value *fill /* NULL: 0 */);
TILEC_API tilec_status tir_store_tile_strided(tir_builder *b, tir_value *view, tir_value *const *origin,
                                              tir_value *tile, const uint64_t *strides, tir_bounds bounds);
TILEC_API tir_value *tir_load_elem(tir_builder *b, tir_value *view, tir_value *const *indices,
                                   tir_value *pred /* NULL */, tir_value *fallback /* with pred */);
TILEC_API tilec_status tir_store_elem(tir_builder *b, tir_value *view, tir_value *const *indices, tir_value *v);

/* Structured regions.  begin: creates the op at the insertion point and moves
 * the insertion point into its body; end: appends the yield and moves back. */
TILEC_API tir_op *tir_region_begin(tir_builder *b, tir_op_kind kind, tir_space *domain,
                                   const tir_region_opts *opts, size_t n_carry, tir_value *const *init);
/* An `if` region (docs/tir.md "Conditional regions"): its body runs when the
 * bool scalar `cond` is true, with carries that start as `init` and whose
 * yielded values are the results; when false the results are `init`.  Close
 * it with tir_region_end (one yield per carry). */
TILEC_API tir_op *tir_if_begin(tir_builder *b, tir_value *cond, size_t n_carry, tir_value *const *init);
TILEC_API tir_value *tir_region_coord(const tir_op *region, size_t axis);
TILEC_API tir_value *tir_region_carry(const tir_op *region, size_t index);
TILEC_API tilec_status tir_region_end(tir_builder *b, tir_op *region, size_t n_yield, tir_value *const *yields);
TILEC_API tir_op *tir_map_begin(tir_builder *b, tir_space *space, tir_scalar elem);
TILEC_API tir_value *tir_map_end(tir_builder *b, tir_op *map, tir_value *element);
/* Mergeable reductions (docs/tir.md "Mergeable reductions").  Opens the
 * combine block of reduce `r` (already closed with tir_region_end, policy
 * unordered_tree or ordered_tree, at least one carry, no combine yet): 2·k
 * arguments, the left state then the right state, typed as r's k carries.
 * Inside it only the block's own values are visible; it admits constants,
 * elementwise ops, cast, select, extract, mma and maps (no memory effects, no
 * loops or parallel regions).  Returns r, or NULL with the error recorded. */
TILEC_API tir_op *tir_combine_begin(tir_builder *b, tir_op *r);
/* Argument `index` (0..2k-1) of r's combine block; NULL when out of range or
 * when r has no combine block. */
TILEC_API tir_value *tir_combine_arg(const tir_op *r, size_t index);
/* Closes r's combine block with a yield of the merged state: k values of the
 * carry types. */
TILEC_API tilec_status tir_combine_end(tir_builder *b, tir_op *r, size_t n_yield, tir_value *const *yields);
TILEC_API tilec_status tir_stage(tir_builder *b, const char *name /* NULL ok */);
/* Coordinate of dim `d`, resolved through the innermost open region that binds it. */
TILEC_API tir_value *tir_index(tir_builder *b, tir_dim *d);

/* ---- capture builder: mutable variables, carries inferred at region end ---- */
TILEC_API tir_var *tir_var_new(tir_builder *b, tir_value *init);
TILEC_API tir_value *tir_var_get(tir_builder *b, tir_var *v);
TILEC_API tilec_status tir_var_set(tir_builder *b, tir_var *v, tir_value *value); /* same type */
TILEC_API tir_var *tir_var_copy(tir_builder *b, tir_var *v); /* a new variable, same value */
/* SERIAL/PIPELINE/REDUCE: variables assigned inside become carries.
 * PARALLEL (and maps): assigning an outer variable is an error. */
TILEC_API tir_op *tir_capture_begin(tir_builder *b, tir_op_kind kind, tir_space *domain,
                                    const tir_region_opts *opts);
TILEC_API tilec_status tir_capture_end(tir_builder *b, tir_op *region);

/* ---- library sugar: expands to core ops only ---- */
typedef enum { TIR_REDUCER_ADD, TIR_REDUCER_MAX, TIR_REDUCER_MIN } tir_reducer;
TILEC_API tir_value *tir_lib_zeros(tir_builder *b, tir_scalar s, tir_space *space);
TILEC_API tir_value *tir_lib_full(tir_builder *b, tir_space *space, tir_value *scalar);
TILEC_API tir_value *tir_lib_iota(tir_builder *b, tir_dim *d, uint64_t extent);
TILEC_API tir_value *tir_lib_reduce(tir_builder *b, tir_value *tile, size_t n_dims, tir_dim *const *dims,
                                    tir_reducer r, tir_reduction_policy policy);
TILEC_API tir_value *tir_lib_relabel(tir_builder *b, tir_value *tile, tir_space *space);
TILEC_API tir_value *tir_lib_broadcast_to(tir_builder *b, tir_value *tile, tir_space *space);
/* The tile with its axes in `order` (every dim of the tile once): element
 * [.., d = x, ..] of the result is the tile's element at d = x (a transpose
 * for rank 2). */
TILEC_API tir_value *tir_lib_permute(tir_builder *b, tir_value *tile, size_t n_dims, tir_dim *const *order);
TILEC_API tir_value *tir_lib_matmul(tir_builder *b, tir_value *a, tir_value *bm);
TILEC_API tir_value *tir_lib_ite(tir_builder *b, tir_value *cond, tir_value *t, tir_value *f);

/* ---- verification, text form, reference execution ---- */
TILEC_API tilec_status tir_verify(tilec_context *ctx, const tir_module *m);

typedef tilec_status (*tir_write_fn)(void *user, const char *bytes, size_t n);
TILEC_API tilec_status tir_print(const tir_module *m, tir_write_fn write, void *user);
TILEC_API tilec_status tir_print_file(const tir_module *m, FILE *out);

/* Shape-parameter overrides for the text form's `kernel @k<M=64, ...>`. */
typedef struct {
    const char *name;
    int64_t value;
} tir_define;
TILEC_API tilec_status tir_parse(tilec_context *ctx, const char *text, size_t length, const char *filename,
                                 const tir_define *defines, size_t n_defines, tir_module **out);

/* Runs `f` on the FP64 reference interpreter (docs/interpreter.md). */
TILEC_API tilec_status tir_interpret(tilec_context *ctx, const tir_func *f, size_t n_args, const tir_buffer *args);

#ifdef __cplusplus
}
#endif
#endif
