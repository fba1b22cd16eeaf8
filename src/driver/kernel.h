/* kernel.h — the layout of a compiled kernel (tilec_kernel, include/tilec/tilec.h),
 * shared by the pipeline (src/driver), the metadata printer
 * (metadata.c) and the runtime/dispatch (dispatch.c).
 *
 * Invariants: a tilec_kernel owns its native code (simd_kernel), its
 * argument table (params, one per TileIR view parameter in order, then the
 * packed panels when it packs) and its strings; `runtime` is borrowed unless
 * owns_runtime.  prog (rt/program.h) is what dispatch runs: prog.desc.params
 * points at params and its sub-programs at the helper kernels' progs, so a
 * kernel is never copied by value (only its pointer moves).  A packing
 * kernel (plan/pack.h) owns its copy kernels `pack` (on the same runtime),
 * prog owns the panels.  A split kernel (plan/split.h) has no native code of
 * its own: it owns its partial and combine kernels (same runtime), prog owns
 * their workspace; its params are the TileIR parameters only.  A fused
 * kernel whose streamed loads need parameters apart (realize/stream.h) owns its
 * unfused twin (same runtime) and the masks prog.disjoint*. */
#ifndef TILEC_DRIVER_KERNEL_H
#define TILEC_DRIVER_KERNEL_H

#include "base/strbuf.h"
#include "rt/program.h"
#include "lower/lower.h"
#include "plan/solve.h"
#include "plan/split.h"
#include "simd/aot.h"
#include "simd/cache.h"
#include "simd/simd.h"
#include "gpu/gpu.h"
#include "rt/runtime.h"
#include "tilec/tilec.h"

/* The plan a bucket runs (buckets.c): of the plans made at its low end,
 * middle and high end, the one whose worst regret over those three points
 * is least (the middle's on a tie).  Unpinned: the middle's own plan. */
enum { PIPELINE_POINTS = 3 }; /* low end, middle, high end */
typedef struct {
    bool pinned;     /* the plan is another point's: planned at the middle with its choices fixed */
    uint32_t from;   /* whose plan: 0 low end, 1 middle, 2 high end */
    uint32_t rank, order[PLAN_MAX_RANK], block_size, local_lanes, fused;
    uint32_t split_chunks; /* its split's chunks (0: none) */
    /* each point's plan's worst cost over the best at every point, a
     * split's modeled gain included (0: no plan made there; INFINITY: not
     * admitted at some point) */
    double regret[PIPELINE_POINTS];
} pipeline_choice;

/* A bucket of runtime sizes (buckets.c): each size's range in it, the
 * sizes its plan was made at, and how that plan was chosen. */
enum { PIPELINE_MAX_BUCKETS = 16 };
typedef struct {
    int64_t lo[TIR_MAX_SYMBOLS], hi[TIR_MAX_SYMBOLS], at[TIR_MAX_SYMBOLS];
    pipeline_choice choice;
} pipeline_bucket;

struct tilec_kernel {
    tilec_context *ctx;
    /* The runtime sizes every dispatch gives (tilec_dispatch_dims), in
     * their declaration order; 0 for a kernel of static extents. */
    uint32_t dim_count;
    rt_dim dims[TIR_MAX_SYMBOLS]; /* names owned */
    /* Planned per bucket of sizes (buckets.c): the buckets, the variant
     * serving each, and the variants (owned, each a whole kernel on the
     * same runtime); 0 buckets: the kernel runs its own program. */
    uint32_t bucket_count, variant_count;
    pipeline_bucket buckets[PIPELINE_MAX_BUCKETS];
    uint8_t bucket_variant[PIPELINE_MAX_BUCKETS];
    tilec_kernel *variants[PIPELINE_MAX_BUCKETS];
    tilec_runtime *runtime; /* NULL: an ahead-of-time kernel (aot) */
    bool owns_runtime;
    uint32_t workers;       /* the runtime's, or those an ahead-of-time kernel is planned for */
    simd_aot *aot;          /* borrowed while compiling ahead of time, else NULL */
    uint32_t aot_entry;     /* its packet entry's index in the object */
    simd_kernel *native;
    lower_result *xir;      /* the XIR interpreter's kernel (interpret.c): its lowering, owned; else NULL */
    const tir_func *reference; /* the reference interpreter's kernel: the caller's TileIR, borrowed; else NULL */
    const char *cache;      /* the kernel cache's answer for the native code: "hit", "miss", "off" */
    rt_param *params;
    /* [TileIR parameters]: each one's TIR_USE_* bits and name, one block owned by arg_use */
    unsigned char *arg_use;
    const char **arg_names;
    rt_program prog;
    tilec_kernel *pack[RT_MAX_PACKS]; /* the copy kernels (args: the source parameter, the panels), prog.packs of them */
    tilec_kernel *split_partial, *split_combine; /* NULL: not split */
    strbuf split;             /* the split in words ("" when not split) */
    tilec_kernel *unfused;    /* NULL: the streams need nothing of the arguments */
    uint64_t *disjoint, *disjoint_or_equal; /* [user args]: prog's masks */
    uint64_t flops, arg_bytes;
    tilec_compile_times times;
    strbuf name, plan, plan_realization, realization, json;
    /* the chosen parameters (`NAME in {…}`) the kernel was parsed with:
     * "BK:64 of 8,16,32" (item chosen_params; "" when none) */
    strbuf chosen_params;
    /* A kernel compiled for a range of sizes: the size programs prog's
     * dispatch_size and arg_bytes point into (driver/sizes.c); NULL else. */
    rt_size_step *size_steps;
    rt_size *arg_sizes;
    tir_fault_site *fault_sites; /* [fault_site_count], strings owned in one block with it */
    size_t fault_site_count;
    /* What tilec_compile was given, so that the same kernel can be compiled
     * again ahead of time as part of a module (module_aot.c): its TileIR
     * module printed, the function's name and the options, their arrays
     * copied into recipe_arrays (owned); runtime and gpu_arch not kept.
     * Empty for helper kernels, bucket variants and tilec_compile_aot's. */
    strbuf recipe_text;
    char *recipe_func;
    tilec_compile_options recipe_options;
    uint32_t *recipe_arrays;
    /* the CUDA target (gpu.c): PTX, the driver and the loaded module, and
     * which arguments the kernel writes ([user args]); all NULL on the CPU */
    gpu_kernel *gpu;
    struct gpu_cuda *cuda;
    struct gpu_cuda_module *module;
    unsigned char *gpu_written;
};

/* "order[1,0]/block64/grain2/tasks8": the selected plan in one token
 * ("/grain-per-dispatch" for a kernel with runtime sizes whose grain is the
 * pool's heuristic, computed at each dispatch). */
void tilec_plan_label(const plan_result *p, bool sized, strbuf *s);
/* Keeps f and o as k's recipe (false: out of memory). */
bool tilec_kernel_keep_recipe(tilec_kernel *k, const tir_func *f, const tilec_compile_options *o);
/* tilec_dispatch of a CUDA kernel (a bucket's variant at dims, for one with
 * runtime sizes: the dims follow the arguments as one more device buffer,
 * the grid from the dispatch size at those sizes); with `timing`, the
 * launch is repeated (warmup untimed, then reps timed with CUDA events:
 * *ms per launch) and the results copied back are the last launch's. */
typedef struct {
    uint32_t warmup, reps;
} tilec_gpu_timing;
tilec_status tilec_dispatch_gpu(tilec_context *ctx, tilec_kernel *k, size_t n, const tilec_buffer *args,
                                const int64_t *dims, const tilec_gpu_timing *timing, double *ms);
/* The native code of XIR function f for k: compiled through the kernel
 * cache, or emitted into k->aot; k->cache says which. */
tilec_status tilec_compile_native(tilec_context *ctx, tilec_kernel *k, const xir_func *f, const tilec_compile_options *o,
                                  const simd_facts *d);
/* k for an f whose root domain is empty (plan_root_empty): an entry that is never called (dispatch size 0), the
 * parameters checked as always, its IR or assembly captured as o asks (empty.c). */
tilec_status tilec_compile_empty(tilec_context *ctx, tilec_kernel *k, const tir_func *f, uint32_t width,
                                 const tilec_compile_options *o);
/* k's argument table: one entry per view parameter of f, its element type
 * and the bytes its view spans (0 for a view over runtime sizes: checked
 * at dispatch against the sizes given); the program's description names
 * them (empty.c). */
tilec_status tilec_kernel_tir_params(tilec_context *ctx, tilec_kernel *k, const tir_func *f);
/* k's argument table (the parameters checked as always) and a launch of
 * dispatch size 0 for an f whose root domain is empty; its entry is
 * k->native's, if any (empty.c). */
tilec_status tilec_kernel_empty_launch(tilec_context *ctx, tilec_kernel *k, const tir_func *f, uint32_t width);
/* 2·(contraction volume) of every mma times the trip counts of its
 * enclosing regions; 0 for a kernel with runtime sizes. */
uint64_t tilec_count_mma_flops(const tir_func *f);
/* Copies the lowering's fault-site table (with its strings) into k and
 * makes dispatch report faults through it; false on NOMEM. */
bool tilec_kernel_take_fault_sites(tilec_kernel *k, const lower_result *lr);
/* The kernel that stands for k in its metadata: k, or a bucketed kernel's
 * variant of its largest bucket. */
static inline const tilec_kernel *kernel_main(const tilec_kernel *k) {
    return k->bucket_count ? k->variants[k->bucket_variant[k->bucket_count - 1]] : k;
}
/* The native code that stands for the kernel in its metadata: its own, or
 * a split kernel's partial kernel's. */
const simd_kernel *tilec_kernel_native(const tilec_kernel *k);
/* k's size programs for f, a kernel with runtime sizes lowered with `lanes`
 * lanes per program (driver/sizes.c; the reference's: 1, its dispatch
 * size unused); false on NOMEM. */
bool kernel_sizes_make(tilec_kernel *k, const tir_func *f, uint32_t lanes);
/* Builds realization and json from the other fields; false on NOMEM. */
bool tilec_kernel_describe(tilec_kernel *k);

#endif
