/* pipeline.h — the compile pipeline, stage by stage (docs/architecture.md
 * "The pipeline"):
 *
 *   flatten → verify → plan → split → lower → emit
 *
 * tilec_compile runs all of it for the host; tilec_pipeline_run runs it up
 * to a chosen stage, printing what a stage made (the kernel after
 * flattening, the plan, the split kernels, the XIR, the code) and checking
 * it with that stage's verifier, for a real target, a modeled one (the
 * plans of `tilec plan`: reproducible, never the host's) or the XIR
 * interpreter (a kernel whose dispatch interprets the lowered XIR, the
 * reference of the native code) or the reference interpreter (the TileIR
 * itself, the oracle of all).  The CLI's planning commands and
 * `--print-after`, `--stop-after`, `--verify-each` are this call. */
#ifndef TILEC_PIPELINE_H
#define TILEC_PIPELINE_H

#include "tilec/tilec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The stages in their one order. */
typedef enum {
    TILEC_STAGE_FLATTEN, /* nested root parallels flattened into one */
    TILEC_STAGE_VERIFY,  /* the TileIR verifier */
    TILEC_STAGE_PLAN,    /* the exact planner for the target */
    TILEC_STAGE_SPLIT,   /* a split reduction's partial and combine kernels */
    TILEC_STAGE_LOWER,   /* the plan lowered to XIR */
    TILEC_STAGE_EMIT,    /* code: native, PTX, or the XIR interpreter's kernel */
    TILEC_STAGE_COUNT
} tilec_stage;

/* Where the kernel runs (with tilec_compile_options.target). */
typedef enum {
    TILEC_ENGINE_NATIVE,   /* the target's code: the SIMD backend's JIT, or CUDA */
    TILEC_ENGINE_XIR,      /* the W-lane XIR interpreter on the calling thread, the
                              plan the modeled target's (as with `modeled`) */
    TILEC_ENGINE_REFERENCE /* the FP64 reference interpreter of the TileIR itself
                              (tir_interpret): no plan, no lowering; the kernel
                              borrows f's module, which must outlive it */
} tilec_engine;

typedef struct {
    /* The last stage run; TILEC_STAGE_EMIT makes the kernel (*out). */
    tilec_stage stop_after;
    /* Bit (1u << stage): what the stage made, handed to `write` (its text
     * as `tilec --print-after STAGE` shows it, docs/cli.md). */
    unsigned print_after;
    /* Bit (1u << stage): what the stage made, checked again by its
     * verifier (flatten and split: the TileIR verifier; lower: the XIR
     * verifier).  The checks each stage makes anyway always run. */
    unsigned verify_after;
    /* Plan for a modeled target, never the host: a thread pool of
     * modeled_workers (default 8) with packets of options->width (0: 8),
     * or a default GPU with target cuda.  Stops before emit. */
    bool modeled;
    uint32_t modeled_workers;
    /* The plan's print: also every admitted candidate ranked and every
     * rejection (explain); as one JSON object (json). */
    bool explain, json;
    tilec_engine engine;
    tir_write_fn write; /* NULL: print_after must be 0 */
    void *user;
} tilec_pipeline_config;

/* stop_after EMIT, nothing printed or checked again, native engine. */
TILEC_API tilec_pipeline_config tilec_pipeline_config_default(void);

/* "flatten", "verify", "plan", "split", "lower", "emit"; NULL out of range. */
TILEC_API const char *tilec_stage_name(tilec_stage stage);
/* The stage named `name`; TILEC-A02 naming the stages when there is none. */
TILEC_API tilec_status tilec_stage_parse(tilec_context *ctx, const char *name, tilec_stage *out);

/* Runs the stages of f's compile up to config->stop_after (config NULL:
 * defaults, which is tilec_compile), printing and checking after the
 * stages config asks.  *out (may be NULL when stop_after is before EMIT)
 * receives the kernel when the run reaches EMIT, else NULL.  On failure the
 * context holds the diagnostics of the failing stage; what earlier stages
 * printed has been written. */
TILEC_API tilec_status tilec_pipeline_run(tilec_context *ctx, const tir_func *f, const tilec_compile_options *options,
                                          const tilec_pipeline_config *config, tilec_kernel **out);

#ifdef __cplusplus
}
#endif

#endif
