/* program.h — a compiled kernel as the runtime dispatches it: one packet
 * entry (rt_kernel), or that entry with steps around it:
 *   pack     copy kernels (up to RT_MAX_PACKS) run first, each on (its
 *            source parameter, its panels), the panels being the last
 *            arguments the entry takes, in pack order;
 *   split    no entry of its own: a partial kernel then a combine kernel,
 *            each run on (arguments, workspace views), one view per carry;
 *   unfused  a twin run instead when the arguments overlap where the
 *            entry's streamed loads need them apart (disjoint masks);
 *            masks without a twin: such arguments are refused (RT-D09).
 * The facade's JIT kernels (driver/kernel.h) and ahead-of-time objects
 * (tilec/aot_run.c) are both programs, so both dispatch through
 * rt_program_dispatch.
 *
 * Invariants: desc checks the user's arguments plus the panels (a split
 * program: the user's arguments only, against the larger of its parts'
 * sizes); sub-programs run on the same pool; scratch (panels or split
 * workspace, 64-byte aligned) is used under scratch_lock, so concurrent
 * dispatches never read each other's. */
#ifndef TILEC_RT_PROGRAM_H
#define TILEC_RT_PROGRAM_H

#include "rt/dispatch.h"
#include "rt/sizes.h"
#include "tilec/runtime.h"

#include <pthread.h>
#include <stdatomic.h>

enum { RT_SPLIT_MAX_CARRIES = 16, RT_MAX_PACKS = 2 };

typedef struct rt_program rt_program;
struct rt_program {
    rt_kernel desc;
    uint32_t user_args;
    uint32_t packs;                              /* 0: no packing */
    rt_program *pack[RT_MAX_PACKS];              /* the copy kernels */
    uint32_t packed_param[RT_MAX_PACKS];         /* each one's source parameter */
    uint64_t pack_offset[RT_MAX_PACKS], pack_bytes[RT_MAX_PACKS]; /* its panels in scratch */
    rt_program *split_partial, *split_combine; /* NULL: not split */
    uint32_t split_carries;
    uint64_t split_bytes[RT_SPLIT_MAX_CARRIES];
    tir_scalar split_elem[RT_SPLIT_MAX_CARRIES];
    rt_program *unfused;                    /* NULL: none (no masks: the streams need nothing of the arguments) */
    const uint64_t *disjoint, *disjoint_or_equal; /* NULL or [user_args]: bit j of [i], i and j must not overlap
                                                     (…_or_equal: unless they start at the same byte) */
    /* A kernel compiled for a range of sizes (rt/sizes.h): each dispatch
     * passes dim_count values, which the entry takes as its last argument
     * (one i64 each), and from which its dispatch size and each user
     * argument's bytes are computed (a program of count 0: desc's
     * min_bytes).  dim_count 0: a static kernel. */
    uint32_t dim_count;
    rt_size dispatch_size;
    const rt_size *arg_bytes; /* [user_args] */
    uint64_t size_serial;     /* rt_size_serial(), once its programs are set */
    void *scratch_block, *scratch; /* what was allocated; it aligned up to 64 */
    uint64_t scratch_bytes;
    tilec_context *scratch_ctx;    /* what allocated it: a dispatch that needs more panels grows it */
    pthread_mutex_t scratch_lock;
    _Atomic uint64_t fused_dispatches, unfused_dispatches;
};

/* Allocates the program's scratch (bytes, 64-byte aligned) and its lock;
 * TILEC-M01 on failure (`what` names it). */
tilec_status rt_program_alloc_scratch(tilec_context *ctx, rt_program *p, uint64_t bytes, const char *what);
/* Frees the scratch and its lock (not the sub-programs: their owners do). */
void rt_program_free_scratch(tilec_context *ctx, rt_program *p);

/* A sized program's launch at dims: *programs its dispatch size, params its
 * parameters (the user's arguments' bytes there, then the panels, then
 * the dims: user_args + packs + 1 entries); false when a size overflows. */
bool rt_program_sizes(const rt_program *p, const int64_t *dims, rt_param *params, uint32_t *programs);
/* Where p's packs' panels lie in its scratch: static, or, for a copy over
 * runtime sizes, its panels' bytes at dims (its `dst` parameter's), each
 * pack 64-byte aligned after the previous one; false when a size
 * overflows.  total: the scratch they need. */
typedef struct {
    uint64_t offset[RT_MAX_PACKS], bytes[RT_MAX_PACKS], total;
} rt_panel_layout;
bool rt_program_panels_at(const rt_program *p, const int64_t *dims, rt_panel_layout *l);
/* p's scratch of at least `bytes` (under its scratch lock): a dispatch
 * whose sizes need more panels than any before replaces it. */
tilec_status rt_program_grow_scratch(tilec_context *ctx, rt_program *p, uint64_t bytes);
/* rt_program_sizes, RT-D10 when a size overflows. */
tilec_status rt_program_launch_sizes(tilec_context *ctx, const rt_program *p, const int64_t *dims, rt_param *params,
                                     uint32_t *programs);
/* Whether lo[i] <= dims[i] <= hi[i] for i in 0..n (a bucket of sizes holds them). */
static inline bool rt_dims_within(const int64_t *lo, const int64_t *hi, uint32_t n, const int64_t *dims) {
    for (uint32_t i = 0; i < n; i++)
        if (dims[i] < lo[i] || dims[i] > hi[i]) return false;
    return true;
}
/* A runtime size of a kernel: its name and declared range. */
typedef struct {
    char *name;
    int64_t lo, hi;
} rt_dim;

/* dims[index]'s name, and its range in *lo and *hi (each may be NULL);
 * NULL for an index past count. */
static inline const char *rt_dim_at(const rt_dim *dims, uint32_t count, size_t index, int64_t *lo, int64_t *hi) {
    if (index >= count) return NULL;
    if (lo) *lo = dims[index].lo;
    if (hi) *hi = dims[index].hi;
    return dims[index].name;
}

/* RT-D03 for a module's run whose argument `index` (value `name` of
 * `kind`) is `given`, where the module takes `wanted` (the module runs of
 * api/module.c and api/aot_module_run.c). */
tilec_status rt_module_arg_type(tilec_context *ctx, const char *module, size_t index, tilec_value_kind kind,
                                const char *name, tir_scalar given, tir_scalar wanted);
/* RT-D10 unless dims[0..n_dims) are one value per size of sizes[0..count),
 * each in its range (`kernel` names the kernel in the message; `how` says
 * how to pass them, for a call that passed none). */
tilec_status rt_check_dims(tilec_context *ctx, const char *kernel, const rt_dim *sizes, uint32_t count, size_t n_dims,
                           const int64_t *dims, const char *how);

/* Runs p on args[0..n) (the user's arguments, TileIR parameter order) with
 * its runtime sizes dims[0..p->dim_count) (NULL for a static program; the
 * caller checked them against their ranges): RT-D02 when n is not
 * p->user_args, RT-D10 when a size computed from them overflows, then as
 * rt_dispatch. */
tilec_status rt_program_dispatch(rt_pool *pool, tilec_context *ctx, rt_program *p, size_t n, const rt_arg *args,
                                 const int64_t *dims);
/* rt_program_dispatch with panels made before: panels[i], when its data is
 * not NULL, is pack i's (p->pack[i] run once on the same source, which
 * must not have changed since), so that copy is not run again (a module's
 * constant weights, packed at load).  panels NULL: every pack copied. */
tilec_status rt_program_dispatch_panels(rt_pool *pool, tilec_context *ctx, rt_program *p, size_t n, const rt_arg *args,
                                        const int64_t *dims, const rt_arg *panels);

#endif
