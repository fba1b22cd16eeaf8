/* pipeline.h — the one compile pipeline: an ordered list of stages
 *
 *   flatten → verify → plan → split → lower → emit
 *
 * run by one loop (pipeline.c) over one record of options, for one target
 * (targets.c: a table of functions that gate stages, never a pipeline of
 * its own).  Every caller — the facade's tilec_compile and _aot, the public
 * stage-by-stage tilec_pipeline_run (src/api/pipeline.c: tilec_explain,
 * tilec_emit_ptx, the CLI, Python), the fuzzers — fills a pipeline and runs
 * it, stopping after the stage it needs; each stage can be checked and
 * printed after it runs (print.c).  Helper kernels
 * (panel copies, split partial and combine, the unfused twin) are pipelines
 * of their own, composed in program.c with their option rules.
 *
 * Stages read the record plus the facts earlier stages decided (the
 * kernel after flattening, width and workers, the plan, the lowering); a
 * stage may finish the pipeline early (an empty root domain, a split). */
#ifndef TILEC_DRIVER_PIPELINE_H
#define TILEC_DRIVER_PIPELINE_H

#include "driver/kernel.h"
#include "plan/gpu_target.h"
#include "plan/target.h"
#include "tilec/pipeline.h"


typedef struct pipeline pipeline;
typedef struct pipeline_target pipeline_target;

/* The buckets of a kernel with runtime sizes (buckets.c) and each but the
 * last one's plan and the sized kernel it was made at. */
typedef struct {
    uint32_t count;
    pipeline_bucket buckets[PIPELINE_MAX_BUCKETS];
    plan_result plans[PIPELINE_MAX_BUCKETS - 1];
    tir_module *sized[PIPELINE_MAX_BUCKETS - 1];
} pipeline_bucket_plans;

struct pipeline {
    /* ---- what the caller asks ---- */
    tilec_context *ctx;
    tilec_compile_options o;       /* the record (defaults where the caller gave none) */
    const pipeline_target *target; /* targets.c */
    tilec_stage stop_after;  /* TILEC_STAGE_EMIT: code */
    bool make_kernel;              /* with stop_after EMIT: a dispatchable kernel in p->k, not only code */
    uint32_t modeled_workers;      /* the modeled target's pool */
    simd_aot *aot;                 /* the CPU's ahead-of-time object, else NULL */
    unsigned print_after, verify_after; /* 1u << stage (tilec_pipeline_config) */
    bool explain, json;            /* how the plan is printed */
    tir_write_fn write;            /* where stages print */
    void *user;
    /* ---- what the stages decide ---- */
    const tir_func *source; /* the caller's kernel */
    const tir_func *f;  /* the kernel, flattened when it nests root parallels */
    tir_module *flat;   /* owned: f's module after flattening */
    uint32_t width, workers;
    bool host_width; /* width is the host's: neither the option nor TILEC_SIMD_WIDTH asked for one */
    union {
        plan_thread_pool pool;
        plan_gpu gpu;
    } info;
    const plan_target_info *info_of; /* &info.pool.info or &info.gpu.info */
    plan_result plan;
    bool planned;
    tir_module *sized;  /* owned: f at the sizes it was planned for, when it has runtime sizes */
    const int64_t *plan_at; /* a bucket's pipeline (buckets.c): the sizes to plan at; NULL: every bucket */
    pipeline_bucket *bucket; /* a bucket's own pipeline (not its helpers'): its plan is chosen over the bucket */
    /* planned without a kernel (printed): every bucket's plan (owned; NULL
     * else); plan and sized are the last bucket's */
    pipeline_bucket_plans *bucketed;
    tir_module *split;  /* owned: the split's partial and combine kernels, when built */
    lower_result lowered;
    tilec_kernel *k;    /* the kernel being made (make_kernel), else NULL */
    gpu_kernel *ptx;    /* the CUDA target's code (owned until a kernel takes it) */
    uint32_t multiprocessors; /* the CUDA device's (0: the target info's default) */
    const char *sm;     /* the architecture PTX is generated for (NULL: the backend's default) */
    bool finished;      /* a stage made the kernel already (empty domain, split) */
    int next;           /* the stage pipeline_run starts with */
    double started, verified; /* now_ms() when prepare and the verify stage began */
    double ms[TILEC_STAGE_COUNT];
};

/* A target: what differs between the CPU's JIT and AOT, the CUDA target and
 * a modeled CPU; NULL entries skip their part. */
struct pipeline_target {
    const char *name;
    /* before the stages: the kernel and its runtime (or the driver), the
     * packet width and worker count */
    tilec_status (*prepare)(pipeline *p);
    /* the planner's target info for p->width and p->workers (p->info_of),
     * and what the target refuses or fixes in the record the planner reads
     * (a copy of p->o); NULL: the target runs the TileIR itself (no plan,
     * split or lowering) */
    tilec_status (*planner)(pipeline *p, tilec_compile_options *po);
    /* a root domain with no instances, when a kernel is made */
    tilec_status (*empty)(pipeline *p);
    bool splits; /* the split stage composes partial and combine kernels */
    /* the lowered kernel as code in p->k */
    tilec_status (*emit)(pipeline *p);
};

extern const pipeline_target PIPELINE_CPU, PIPELINE_CUDA, PIPELINE_MODELED_CPU, PIPELINE_MODELED_CUDA, PIPELINE_XIR,
    PIPELINE_XIR_CUDA, PIPELINE_REFERENCE;

/* A pipeline for f under `options` (NULL: defaults) on `target`, to stop
 * after `stop_after` (make_kernel: stop_after EMIT).  Run it with
 * pipeline_run; free with pipeline_free. */
void pipeline_init(pipeline *p, tilec_context *ctx, const tir_func *f, const tilec_compile_options *options,
                   const pipeline_target *target, tilec_stage stop_after);
/* The stages from the first not yet run up to stop_after, each timed;
 * stops at the first error.  Raising stop_after and running again goes on
 * where the last run stopped (a caller that inspects the lowering before
 * the code is emitted). */
tilec_status pipeline_run(pipeline *p);
/* Frees the plan, the lowering and the flattened module; the kernel p->k
 * is the caller's (or destroyed when the run failed). */
void pipeline_free(pipeline *p);

/* Runs p to its end making a kernel, described (tilec_kernel_describe),
 * into *out (NULL on failure).  Free p after with pipeline_free. */
tilec_status pipeline_make(pipeline *p, tilec_kernel **out);
/* A whole compile into a kernel: the facade's tilec_compile (aot NULL) and
 * tilec_compile_aot's kernels. */
tilec_status pipeline_compile(tilec_context *ctx, const tir_func *f, const tilec_compile_options *options,
                              simd_aot *aot, tilec_kernel **out);

/* ---- lower.c: the lower stage's work ---- */

/* Lowers the selected plan: block, root order, W, packing and the snapshot
 * budget from the plan (realize/choice.h), the representation settings,
 * bounds checks and fma from the record it was made under (plan->options).
 * The lowered resource facts must equal the planned ones (else PLAN-I01).
 * The realization string starts with the planner's items (docs/planner.md)
 * followed by the lowering's. */
tilec_status pipeline_lower(tilec_context *ctx, const tir_func *f, const plan_result *plan, lower_result *out);
/* plan_kernel, then pipeline_lower, for a caller's own options and target
 * (the planner's and backends' tests).  `plan` must be freed by the caller
 * whatever the status; `out` is set only on success. */
tilec_status pipeline_plan_and_lower(tilec_context *ctx, const tir_func *f, const tilec_compile_options *options,
                                     const plan_target_info *info, plan_result *plan, lower_result *out);

/* Native code (uncached) for a lowering made outside a plan, at o->width
 * with the facts the emit stage derives from a lowering (its required
 * width, the arguments its streams need apart, the stores that stream for
 * o->stores on the host's last-level cache): the lowering's own tests run
 * what they lower through it, as the CPU target would (targets.c). */
tilec_status pipeline_native_lowered(tilec_context *ctx, const lower_result *lr, const tilec_compile_options *o,
                                     simd_kernel **out);

/* ---- program.c: helper kernels, composed with their option rules ---- */

/* The panel copy kernels of p's plan and their scratch block. */
tilec_status program_compile_packs(pipeline *p);
/* p's split: partial and combine kernels and their workspace. */
tilec_status program_compile_split(pipeline *p);
/* The unfused twin of a kernel whose streams need arguments apart. */
tilec_status program_compile_unfused(pipeline *p);
/* Whether native code planned at p's sizes (a bucket's) streams its
 * write-only parameters' stores past the caches (tilec_stores; auto: the
 * parameters at those sizes span at least 3/4 of the last-level cache):
 * buckets that disagree do not share a variant. */
bool pipeline_sized_streams(const pipeline *p);
/* ---- buckets.c ---- */
/* The buckets of f's runtime sizes (at most PIPELINE_MAX_BUCKETS; cut where
 * o->bucket_cuts says, else at the defaults); their count. */
uint32_t pipeline_buckets(const tir_func *f, const tilec_compile_options *o, pipeline_bucket *out);
/* f's buckets, each with its choice (the plans at its ends and middle,
 * each priced at all three, under po):
 * those of the cuts, then, with the default cuts, a bucket whose chosen
 * plan's worst regret passes 1.25 cut in two at its middle (its widest
 * size, spanning a ratio of 4 or more), at most 4 such cuts: the planner's
 * own buckets. */
uint32_t pipeline_buckets_chosen(pipeline *p, const tilec_compile_options *po, pipeline_bucket *out);
/* p->k as one variant per distinct plan of f's buckets (chosen under po),
 * each a pipeline planned at its bucket's sizes; p finishes with it. */
tilec_status program_compile_buckets(pipeline *p, const tilec_compile_options *po);
/* Plans p->f at sizes `at` (the copy it planned in *sized), under po with
 * what a kernel with runtime sizes needs, and `choice`'s fixed when pinned. */
tilec_status pipeline_plan_at(pipeline *p, const tilec_compile_options *po, const int64_t *at,
                              const pipeline_choice *choice, tir_module **sized, plan_result *out);
/* p's plan, made at p->sized, in p->f's terms: its packing (each pack of
 * data that depends on a runtime size dropped) and its split; NOMEM only. */
tilec_status pipeline_sized_plan(pipeline *p);
/* The bucket of bucketed k holding dims, -1 when none does (they are
 * outside the sizes' ranges); and the variant serving it (NULL then). */
int pipeline_bucket_at(const tilec_kernel *k, const int64_t *dims);
const tilec_kernel *pipeline_bucket_variant(const tilec_kernel *k, const int64_t *dims);
/* Whether bucket b of n sizes is one point (each size's low end its high). */
bool pipeline_bucket_is_point(const pipeline_bucket *b, uint32_t n);

/* ---- interpret.c: the interpreters' kernels ---- */

/* The xir targets' parts: a root domain with no instances, the emit stage. */
tilec_status pipeline_xir_empty(pipeline *p);
tilec_status pipeline_xir_emit(pipeline *p);
/* tilec_dispatch of a kernel made by PIPELINE_XIR or _XIR_CUDA, and of one
 * made by PIPELINE_REFERENCE. */
tilec_status pipeline_dispatch_xir(tilec_context *ctx, tilec_kernel *k, size_t n, const tilec_buffer *args,
                                   const int64_t *dims);
/* dims: the kernel's runtime sizes, checked against their ranges (NULL when it has none). */
tilec_status pipeline_dispatch_reference(tilec_context *ctx, tilec_kernel *k, size_t n, const tilec_buffer *args,
                                         const int64_t *dims);

/* ---- print.c: what each stage made, as text ---- */

bool pipeline_print_kernel(const pipeline *p, strbuf *s);
bool pipeline_print_plan(const pipeline *p, strbuf *s);
bool pipeline_print_split(const pipeline *p, strbuf *s);
bool pipeline_print_lowered(const pipeline *p, strbuf *s);
bool pipeline_print_code(const pipeline *p, strbuf *s);

/* ---- kernel.c: the kernel object the emit stage fills ---- */

/* With make_kernel, p->k: a new, empty kernel named after p->f, working
 * for p->workers (a target with a runtime sets them again); TILEC-M01 when
 * out of memory. */
tilec_status pipeline_kernel_start(pipeline *p);
/* Frees k and all it owns (tilec_kernel_destroy); NULL is a no-op. */
void pipeline_kernel_free(tilec_kernel *k);
/* Copies what dispatch needs out of the lowering; false on NOMEM. */
bool pipeline_take_launch(tilec_kernel *k, const tir_func *f, const plan_result *p, const lower_result *lr);

#endif
