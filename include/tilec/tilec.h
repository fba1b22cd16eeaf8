/* tilec.h — the public facade (docs/facade.md): compile a verified TileIR
 * kernel to native vector code and dispatch it on buffers through a thread
 * pool, with realization metadata.
 *
 * Pipeline of tilec_compile: verify the kernel's module → plan + lower
 * (the execution planner picks the mapping for the real packet width W and
 * worker count, then lowers it to XIR) → vectorize + JIT (the SIMD backend).
 *
 * Threads: a tilec_runtime owns a thread pool (worker count: the argument if
 * nonzero, else TILEC_THREADS, else the online cores).  A kernel dispatches on
 * the runtime given in its compile options (borrowed: it must outlive the
 * kernel); with none, the kernel creates and owns a runtime of its own with
 * `threads` workers.  The planner is given that runtime's worker count.
 *
 * Arguments: tilec_buffer is {data, size_bytes, elem}; data points at the
 * first element the kernel sees (so an offset view of a larger allocation is
 * just data + offset), size_bytes is what may be touched from there.
 * tilec_dispatch checks, before anything runs, the argument count (RT-D02),
 * each element type (RT-D03), each byte size against the kernel's view extent
 * (RT-D04) and non-null data (RT-D05), and fails with a diagnostic leaving the
 * context, the runtime and the kernel usable.
 *
 * Bounds faults: native code never touches memory outside the bound
 * buffers.  An access the compiler cannot prove in range is checked at run
 * time; an out-of-range one (a scalar load/store index, an extract
 * coordinate, a bounds=assume subtile that leaves its view) does not happen
 * (a load reads zero) and tilec_dispatch fails with TILEC_E_RUNTIME and the
 * diagnostic the reference interpreter gives for it (TIR-I07, TIR-I08,
 * TIR-I09, at the op's source location).  The other accesses of the
 * dispatch still run, so the outputs are then unspecified.
 *
 * Lifetime: a kernel owns its JIT code and metadata; it borrows nothing from
 * the TileIR module after tilec_compile returns.  The tilec_kernel pointer can
 * be handed around freely and destroyed once no dispatch is in flight.
 * Contexts are single-threaded (tilec/diag.h); different contexts may be
 * used on different threads at once, and one kernel may be dispatched from
 * several threads, each with its own context (docs/facade.md "Threads"). */
#ifndef TILEC_TILEC_H
#define TILEC_TILEC_H

#include "tilec/diag.h"
#include "tilec/runtime.h"
#include "tilec/tir.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The LLVM the library generates code with (tilec_version: runtime.h). */
TILEC_API const char *tilec_llvm_version(void);

typedef struct tilec_kernel tilec_kernel;

/* The planner's cost-model prior (docs/planner.md "Cost"): relative work
 * units, not nanoseconds.  Every coefficient finite and >= 0 (PLAN-C01). */
typedef struct {
    double arithmetic;        /* per arithmetic operation (1) */
    double broadcast_load;    /* per view load whose address is lane-invariant (1) */
    double contiguous_memory; /* per view access with address slope ±1 (2) */
    double gathered_lane;     /* per lane of any other access, times W (2) */
    double block_dispatch;    /* per block on the critical worker (128) */
    double task_dispatch;     /* per task on the critical worker (0) */
    double worker_activation; /* once when more than one worker runs (8000, about 1 µs) */
    /* per cache line the reuse-distance model says the programs fetch into
     * L1d, L2 and L3, per worker (0, 0, 0: off until calibrated) */
    double l1_line, l2_line, l3_line;
} tilec_cost_coefficients;

/* Panel packing (docs/lowering.md "Packed panels"): auto (the planner's
 * rule), on (whenever a load qualifies), off. */
typedef enum { TILEC_PACK_AUTO = 0, TILEC_PACK_ON, TILEC_PACK_OFF } tilec_pack;
/* Split reductions (docs/lowering.md "Split reductions"): a root program's
 * mergeable reduce (a `reduce` with a `combine` block) folded in chunks by
 * several programs, then merged.  auto: when the planner's model says the
 * chunks fill idle workers; on: whenever a reduce qualifies; off: never. */
typedef enum { TILEC_SPLIT_AUTO = 0, TILEC_SPLIT_ON, TILEC_SPLIT_OFF } tilec_split;
/* Fusion (docs/lowering.md "Streamed loads and recomputed values"): large
 * tile loads read from their views where they are used instead of copied
 * into private storage, and cheap multi-use values recomputed where they are
 * used.  auto: the planner prices the plan with and without and keeps the
 * cheaper; on; off.  A fused kernel whose streams assume that parameters do
 * not overlap also has an unfused twin, which dispatch runs when they do. */
typedef enum { TILEC_FUSE_AUTO = 0, TILEC_FUSE_ON, TILEC_FUSE_OFF } tilec_fuse;
/* Stores (docs/simd.md "Streaming stores"): whole-packet contiguous stores
 * to a write-only parameter made non-temporal (bypassing the caches, no
 * read for ownership) where the packet is aligned to its size.  auto: when
 * the kernel's parameters together span at least 3/4 of the last-level
 * cache, so its output would not stay cached anyway; cached: never;
 * streaming: always. */
typedef enum { TILEC_STORES_AUTO = 0, TILEC_STORES_CACHED, TILEC_STORES_STREAMING } tilec_stores;
/* Where the kernel runs (docs/gpu.md): this host's CPU cores (the SIMD
 * backend on the thread pool), or an NVIDIA GPU through CUDA (the GPU
 * target's plan at W = 32, PTX from LLVM's NVPTX backend, the CUDA driver
 * loaded at run time: without one tilec_compile fails with GPU-D01 "no CUDA
 * driver"). */
typedef enum { TILEC_TARGET_CPU = 0, TILEC_TARGET_CUDA } tilec_target;

typedef struct {
    /* ---- planner options (constraints, not hints; arrays borrowed during the call) ---- */
    uint32_t block_size;             /* 0: search the thread pool's proposals; else exact */
    const uint32_t *root_axis_order; /* exact root axis order, outer → inner */
    size_t root_axis_order_len;      /* 0: search every permutation */
    const uint32_t *root_axis_tiles; /* mixed-radix root traversal factors */
    size_t root_axis_tiles_len;      /* 0: none */
    const uint32_t *bucket_cuts;     /* runtime sizes: each size's range cut before these (rising) sizes */
    size_t bucket_cuts_len;          /* 0: the defaults 2, 256, 4096 (docs/planner.md "Runtime sizes") */
    uint64_t max_candidates;         /* planner budget (1024) */
    uint32_t blocks_per_task;        /* 0: the pool's heuristic; else a fixed CPU task grain */
    bool search_task_grain;          /* also enumerate task grains (ignored when blocks_per_task is set) */
    bool search_tiles;               /* also try root axis tilings of the best order (ignored with fixed tiles) */
    tilec_cost_coefficients cost;    /* the cost prior (defaults above) */
    /* ---- representation (fixed for the whole search) ---- */
    uint32_t max_unrolled_tile_elements; /* 64: larger tiles become arrays + loops; 0 = no bound */
    uint32_t reduction_partitions;       /* 4: partial accumulators of closed reductions, 1..16 */
    uint32_t local_lanes;                /* 0: search {1, W} (default); 1: one program per lane; W: one
                                            program per packet, the stored row axis split over the lanes */
    bool check_bounds; /* check every scalar access, extract and bounds=assume subtile at run time, also
                          those proven in range (a debugging mode; false: only unproven ones) */
    bool fused_mma;    /* true (default): each float mma step is one fma (a·b + acc rounded once);
                          false: a separate multiply and add, each rounded (docs/lowering.md "MMA") */
    tilec_pack pack;   /* copy a reused strided operand into contiguous panels before each dispatch
                          (auto: when each tile is read by >= 4 programs and the panels exceed the L2) */
    tilec_split split; /* split a mergeable reduce over programs (flash-decoding) */
    uint32_t split_chunks; /* 0: the planner's choice; else exactly this many chunks (implies on) */
    tilec_fuse fuse;       /* streamed loads and recomputed values (auto) */
    /* ---- backend options ---- */
    uint32_t width;                  /* 0: TILEC_SIMD_WIDTH, else the host's; else 1/2/4/8/16 */
    tilec_runtime *runtime;          /* borrowed; NULL: the kernel owns one with `threads` workers */
    uint32_t threads;                /* workers of an owned runtime (0: TILEC_THREADS / cores) */
    bool full_packet_specialization; /* true by default */
    bool capture_ir, capture_asm;    /* keep the optimized LLVM IR / assembly text */
    tilec_stores stores;             /* non-temporal stores of large outputs (auto) */
    /* ---- target ---- */
    tilec_target target;  /* cpu (default) or cuda: width, threads, runtime and stores do not apply; pack and
                             split on, split_chunks and task grains are GPU-O03 */
    const char *gpu_arch; /* cuda: the architecture PTX is generated for, "sm_60" .. "sm_90a" (NULL: the
                             device's, or the newest known below it; tilec_emit_ptx: "sm_90") */
} tilec_compile_options;

TILEC_API tilec_compile_options tilec_compile_options_default(void);

/* For language bindings, which cannot mirror the struct: its size, the
 * defaults written into caller memory of that size, and one option set by
 * name from text, with the CLI's names and values — threads, width,
 * local_lanes, block_size, blocks_per_task, max_candidates, max_unrolled,
 * reduction_partitions, split_chunks (unsigned integers); fuse, pack, split
 * (auto|on|off); stores (auto|cached|streaming); check_bounds, fused_mma,
 * search_tiles, search_task_grain, full_packet_specialization, capture_ir,
 * capture_asm (0|1); order, tiles, bucket_cuts (comma-separated unsigned integers, "" for
 * none; the array is kept by the context until it is destroyed); cost.NAME
 * for each cost coefficient (a number); target (cpu|cuda); gpu_arch (sm_60 ..
 * sm_90a, "" for the default).  An unknown name or a bad value: TILEC_E_ARG and TILEC-O01.
 * tilec_compile_option_info lists them all. */
TILEC_API size_t tilec_compile_options_size(void);
TILEC_API void tilec_compile_options_init(tilec_compile_options *o);
TILEC_API tilec_status tilec_compile_options_set(tilec_context *ctx, tilec_compile_options *o, const char *name,
                                                 const char *value);
/* The runtime the kernel dispatches on (borrowed; NULL: its own): the one
 * option that is no text. */
TILEC_API void tilec_compile_options_set_runtime(tilec_compile_options *o, tilec_runtime *rt);
/* The text of option `name` in `o`, as _set reads it ("auto", "64", "2,0,1",
 * "" for no list or architecture), NUL-terminated in buf[0..cap); TILEC-O01
 * when the name is unknown or the text needs more than cap bytes. */
TILEC_API tilec_status tilec_compile_options_get(tilec_context *ctx, const tilec_compile_options *o, const char *name,
                                                 char *buf, size_t cap);

/* One compile option (tilec_compile_option_info). */
typedef struct {
    const char *name;      /* tilec_compile_options_set's name */
    const char *expects;   /* the values it reads, in words: "auto, on or off" */
    const char *flag;      /* the `tilec` command line's flag ("--pack"); NULL: none */
    const char *flag_sets; /* NULL: the flag takes the value; else the value the bare flag sets ("1") */
    const char *help;      /* one line */
} tilec_option_info;
/* The i-th compile option, i = 0, 1, ...; NULL past the last. */
TILEC_API const tilec_option_info *tilec_compile_option_info(size_t i);

/* What the planner does with `f` under these options on this host (the real
 * packet width and worker count, as tilec_compile would plan it): the text
 * of `tilec plan --explain` — the target, the chosen candidate with every
 * cost term, every admitted candidate ranked, every rejection with its
 * reason — handed to `write` in one call.  Nothing is compiled.  When no
 * candidate is admitted the report is still written (it says why) and the
 * planner's error returned. */
TILEC_API tilec_status tilec_explain(tilec_context *ctx, const tir_func *f, const tilec_compile_options *options,
                                     tir_write_fn write, void *user);

/* Compiles kernel `f` (its module must verify).  options NULL: defaults.  On
 * failure *out is NULL and the context holds the diagnostics of the failing
 * stage (TIR-V.., PLAN-.., LOWER-.., SIMD-.., RT-P..). */
TILEC_API tilec_status tilec_compile(tilec_context *ctx, const tir_func *f, const tilec_compile_options *options,
                                     tilec_kernel **out);
/* NULL is a no-op. */
TILEC_API void tilec_kernel_destroy(tilec_kernel *k);

/* Runs the kernel over all its root parallel instances with args[0..n) in
 * TileIR parameter order.  Diagnostics go to ctx. */
TILEC_API tilec_status tilec_dispatch(tilec_context *ctx, tilec_kernel *k, size_t n, const tilec_buffer *args);
/* tilec_dispatch with the kernel's runtime sizes (docs/tir.md "Runtime
 * sizes"): dims[0..n_dims), one value per size in declaration order, each in
 * its declared range (else RT-D10, nothing runs).  A kernel without runtime
 * sizes takes n_dims 0; one with them must be dispatched through here.
 * Each argument must hold the bytes its view spans at these sizes (RT-D04). */
TILEC_API tilec_status tilec_dispatch_dims(tilec_context *ctx, tilec_kernel *k, size_t n, const tilec_buffer *args,
                                           size_t n_dims, const int64_t *dims);
/* The kernel's runtime sizes: how many, and each one's name and range. */
TILEC_API size_t tilec_kernel_dim_count(const tilec_kernel *k);
TILEC_API const char *tilec_kernel_dim(const tilec_kernel *k, size_t index, int64_t *lo, int64_t *hi);
/* Dispatches of a fused kernel with an unfused twin (tilec_fuse) that ran
 * the fused code, and that ran the twin because arguments overlapped; both
 * 0 for a kernel without a twin. */
TILEC_API void tilec_kernel_dispatch_counts(const tilec_kernel *k, uint64_t *fused, uint64_t *unfused);

/* ---- metadata (strings owned by the kernel) ---- */

TILEC_API size_t tilec_kernel_arg_count(const tilec_kernel *k);
TILEC_API tir_scalar tilec_kernel_arg_elem(const tilec_kernel *k, size_t index);
TILEC_API uint64_t tilec_kernel_arg_min_bytes(const tilec_kernel *k, size_t index);
/* Parameter `index`'s name (without '%'), and how the kernel uses it:
 * TIR_USE_READ / TIR_USE_WRITE bits (tir_func_param_use); NULL and 0 for
 * an index out of range. */
TILEC_API const char *tilec_kernel_arg_name(const tilec_kernel *k, size_t index);
TILEC_API unsigned tilec_kernel_arg_use(const tilec_kernel *k, size_t index);
/* The bytes argument `index` must hold at runtime sizes dims (one value per
 * size, tilec_kernel_dim): its view's extent × element size there.  A
 * kernel without runtime sizes ignores dims (NULL is fine); 0 for an index
 * out of range, NULL dims of a kernel that needs them, or a size that
 * overflows. */
TILEC_API uint64_t tilec_kernel_arg_bytes(const tilec_kernel *k, size_t index, const int64_t *dims);
TILEC_API uint32_t tilec_kernel_width(const tilec_kernel *k);
TILEC_API uint32_t tilec_kernel_workers(const tilec_kernel *k);
/* The launch: logical programs per block, and the dispatch size (the
 * programs of the root domain, 0 when it is empty); a split kernel's are
 * its partial kernel's. */
TILEC_API uint32_t tilec_kernel_block_size(const tilec_kernel *k);
TILEC_API uint32_t tilec_kernel_dispatch_size(const tilec_kernel *k);
/* The panel copy kernels run before each dispatch (0: none packed). */
TILEC_API uint32_t tilec_kernel_pack_count(const tilec_kernel *k);
/* "key=value; " items: kernel, plan, W, workers, block, dispatch, tasks, the
 * access counters, predicated_regions, private_bytes, workspace_bytes, mma
 * flops, argument bytes, compile times plan_ms, lower_ms, llvm_ms, jit_ms. */
TILEC_API const char *tilec_kernel_realization(const tilec_kernel *k);
/* The same items as one JSON object. */
TILEC_API const char *tilec_kernel_json(const tilec_kernel *k);
/* The full planner + lowering and backend realization strings. */
TILEC_API const char *tilec_kernel_plan_realization(const tilec_kernel *k);
TILEC_API const char *tilec_kernel_backend_realization(const tilec_kernel *k);
/* NULL unless captured. */
TILEC_API const char *tilec_kernel_ir(const tilec_kernel *k);
TILEC_API const char *tilec_kernel_asm(const tilec_kernel *k);
/* 2·M·N·K summed over the kernel's mma ops (0 without mma). */
TILEC_API uint64_t tilec_kernel_flops(const tilec_kernel *k);
/* Compile time of each stage in milliseconds: llvm is the backend's
 * analysis and IR emission, jit = optimize (LLVM's pipeline) + codegen
 * (instruction selection to machine code, linking); total the whole call,
 * helper kernels (packing copy, unfused twin, split parts) included. */
typedef struct {
    double verify, plan, lower, llvm, jit, total;
    double optimize, codegen;
} tilec_compile_times;
TILEC_API tilec_compile_times tilec_kernel_compile_times(const tilec_kernel *k);

/* ---- GPU (docs/gpu.md) ---- */

/* The PTX tilec_compile would load for `f` with target cuda (options NULL:
 * defaults; `target` is taken as cuda whatever it says), handed to `write`
 * in one call: the GPU target's plan, lowered at W = 32, through LLVM's
 * NVPTX backend for options->gpu_arch.  The text opens with comment lines
 * that say how to launch it (docs/gpu.md "Launch ABI": `// tilec-launch:`
 * entry, block, dispatch size and grid; one `// tilec-arg:` per buffer with
 * its name, element type, bytes and use).  Needs no GPU and no driver; a
 * kernel that calls math functions needs CUDA's libdevice (GPU-L01). */
TILEC_API tilec_status tilec_emit_ptx(tilec_context *ctx, const tir_func *f, const tilec_compile_options *options,
                                      tir_write_fn write, void *user);
/* The target a kernel runs on. */
TILEC_API tilec_target tilec_kernel_target(const tilec_kernel *k);
/* tilec_dispatch of a CUDA kernel, timed on the device: the arguments are
 * checked and copied to the device once, the kernel launched `warmup`
 * times untimed, then `reps` times between two CUDA events, and the
 * written arguments copied back (the last launch's results; bounds faults
 * as tilec_dispatch).  *ms: the milliseconds per timed launch, the copies
 * not included.  TILEC-D01 without a kernel, TILEC-D02 (TILEC_E_ARG) for a
 * CPU kernel or a NULL ms, GPU-D08 when reps is 0. */
TILEC_API tilec_status tilec_dispatch_gpu_timed(tilec_context *ctx, tilec_kernel *k, size_t n,
                                                const tilec_buffer *args, uint32_t warmup, uint32_t reps,
                                                double *ms);

/* ---- chosen parameters (docs/tir.md "Chosen parameters") ----
 * A kernel parameter declared `NAME in {v, …}` (a block size, say) is
 * correct at every value listed; which one runs fastest depends on the
 * host.  tilec_choose_params finds the values for this host, before the
 * text is parsed for real: the caller adds them to its defines.  By
 * policy: measured (the default; TILEC_CHOOSE=first in the environment
 * turns it off): every combination of the open parameters' values (up to
 * 64; past that, up to 65536, a search one parameter at a time) compiled
 * with `options` and timed on arguments of small random values, the
 * fastest recorded per host (choices.tsv in the disk cache's
 * directory: tilec build, CPU, the text, kernel, defines and options) and
 * reused; or the first values listed.  Measured warm (the same arguments
 * every dispatch), or cold (`cold`).  A kernel with runtime sizes is
 * measured at given sizes (the options' dims), else at each size's high
 * end capped at 256.  Parameters the defines pin are not chosen. */
typedef enum {
    TILEC_CHOOSE_DEFAULT = 0, /* measure, unless TILEC_CHOOSE=first */
    TILEC_CHOOSE_MEASURE,
    TILEC_CHOOSE_FIRST
} tilec_choose_policy;

typedef struct {
    tilec_choose_policy policy;
    /* after each combination measured: how many were before it, of total
     * (0 for a search: not known ahead), and its microseconds per dispatch
     * (< 0: it did not compile or run here) */
    void (*progress)(void *user, uint64_t total, uint64_t index, double us);
    void *user;
    char *why; /* NULL, or why_size bytes for one line: "BK=64 (measured)", "BK=8 (first listed: policy first)";
                  "" when nothing was open */
    size_t why_size;
    /* a kernel with runtime sizes is measured at dims[0..n_dims) (one per
     * size, in range); n_dims 0: each at its range's high end, at most 256 */
    const int64_t *dims;
    size_t n_dims;
    /* time with the read-only arguments cold: each dispatch reads another
     * copy of them, the copies at least twice the L3 together (at most 64
     * of them, 1 GiB), as a kernel that streams its operands from memory
     * in use does (a decode step's GEMV); recorded apart from a warm
     * choice */
    bool cold;
} tilec_choose_options;

typedef struct {
    char name[64];
    int64_t value;
} tilec_chosen;

/* The open chosen parameters of `kernel` (NULL: the first) in `text`
 * (parsed with defines, as tir_parse) in declaration order, at most
 * `capacity`, into out[0..*count).  co may be NULL (the default policy).
 * A kernel the text does not have has nothing to choose (*count 0: the
 * caller's own lookup says so).  Diagnostics: the parse's, TILEC-CH02
 * (more than 65536 combinations, 8 open parameters or `capacity`), TILEC-CH03
 * (sizes to measure at that are not one per runtime size, in range). */
TILEC_API tilec_status tilec_choose_params(tilec_context *ctx, const char *text, size_t length, const char *filename,
                                           const char *kernel, const tir_define *defines, size_t n_defines,
                                           const tilec_compile_options *options, const tilec_choose_options *co,
                                           tilec_chosen *out, size_t capacity, size_t *count);

/* ---- ahead of time (docs/aot.md) ---- */

typedef struct {
    const char *cpu;    /* NULL or "native": this host's CPU and features; or "x86-64-v2", "x86-64-v3",
                           "x86-64-v4" (the x86-64 levels) */
    const char *symbol; /* the C name of the entry points; NULL: the kernel's name */
    const char *source; /* a line naming the source for the header's comment; NULL: none */
} tilec_aot_options;

/* Compiles `f` ahead of time into one relocatable object (ELF, position-
 * independent) a C program links against the runtime library (tilec/aot.h:
 * libtilec_rt, no LLVM), handed to write_object in one call, and the C
 * header declaring its entry points to write_header (NULL: none):
 *   int SYMBOL(params…)   typed: a pointer per view parameter (const when
 *                         read-only), a value per scalar parameter (a
 *                         read-only parameter of one element);
 *   tilec_status SYMBOL_dispatch(ctx, rt, n, args)   checked buffers.
 * options as for tilec_compile; width 0 is the target CPU's natural width
 * (16 with AVX-512F, 8 with AVX2, else 4); `threads` is the worker count
 * it is planned for (0: TILEC_THREADS, else this machine's cores): it runs
 * on any; `runtime` and the IR/assembly captures are ignored.  Diagnostics
 * as tilec_compile, plus SIMD-O05 (unknown CPU), TILEC-AOT01 (the symbol is
 * not a C identifier, or would collide in the program it is linked into:
 * reserved, main, tilec_/tir_/Sleef_, a library's already; docs/aot.md),
 * TILEC-AOT02 (too many helper kernels for one object),
 * TILEC-AOT03 (options->target is cuda: objects are CPU code; tilec_emit_ptx
 * gives the GPU's PTX). */
TILEC_API tilec_status tilec_compile_aot(tilec_context *ctx, const tir_func *f, const tilec_compile_options *options,
                                         const tilec_aot_options *aot, tir_write_fn write_object, void *object_user,
                                         tir_write_fn write_header, void *header_user);

#ifdef __cplusplus
}
#endif

#endif
