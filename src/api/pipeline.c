/* pipeline.c — the public pipeline (include/tilec/pipeline.h): a run of the
 * driver's stages (src/driver/pipeline.h) up to a stage, printing and
 * checking after the stages asked, on the target the options and the
 * configuration name (the host's CPU or GPU, a modeled one, the XIR
 * interpreter). */
#include "driver/pipeline.h"

#include <string.h>

static const char *const STAGE_NAMES[TILEC_STAGE_COUNT] = {"flatten", "verify", "plan", "split", "lower", "emit"};

tilec_pipeline_config tilec_pipeline_config_default(void) {
    return (tilec_pipeline_config){.stop_after = TILEC_STAGE_EMIT, .modeled_workers = 8, .engine = TILEC_ENGINE_NATIVE};
}

const char *tilec_stage_name(tilec_stage stage) {
    return (unsigned)stage < TILEC_STAGE_COUNT ? STAGE_NAMES[stage] : NULL;
}

tilec_status tilec_stage_parse(tilec_context *ctx, const char *name, tilec_stage *out) {
    for (int s = 0; name && s < TILEC_STAGE_COUNT; s++)
        if (!strcmp(name, STAGE_NAMES[s])) return *out = (tilec_stage)s, TILEC_OK;
    return tilec_error(ctx, TILEC_E_ARG, "TILEC-A02", tilec_no_loc(),
                       "'%s' is not a stage (flatten, verify, plan, split, lower or emit)", name ? name : "(null)");
}

/* The target of a run: the options' CPU or GPU, modeled or real, the XIR
 * interpreter (planned for the modeled CPU or GPU) or the reference
 * interpreter (whatever the target). */
static const pipeline_target *target_of(const tilec_compile_options *o, const tilec_pipeline_config *c) {
    bool cuda = o->target == TILEC_TARGET_CUDA;
    if (c->engine == TILEC_ENGINE_REFERENCE) return &PIPELINE_REFERENCE;
    if (c->engine == TILEC_ENGINE_XIR) return cuda ? &PIPELINE_XIR_CUDA : &PIPELINE_XIR;
    if (c->modeled) return cuda ? &PIPELINE_MODELED_CUDA : &PIPELINE_MODELED_CPU;
    return cuda ? &PIPELINE_CUDA : &PIPELINE_CPU;
}

tilec_status tilec_pipeline_run(tilec_context *ctx, const tir_func *f, const tilec_compile_options *options,
                                const tilec_pipeline_config *config, tilec_kernel **out) {
    if (out) *out = NULL;
    tilec_pipeline_config c = config ? *config : tilec_pipeline_config_default();
    if (!ctx || !f || (c.print_after && !c.write))
        return tilec_error(ctx, TILEC_E_ARG, "TILEC-A01", tilec_no_loc(),
                           "tilec_pipeline_run: NULL context or kernel, or stages to print without a write function");
    if ((unsigned)c.stop_after >= TILEC_STAGE_COUNT || c.print_after >> TILEC_STAGE_COUNT ||
        c.verify_after >> TILEC_STAGE_COUNT || (unsigned)c.engine > TILEC_ENGINE_REFERENCE)
        return tilec_error(ctx, TILEC_E_ARG, "TILEC-A02", tilec_no_loc(),
                           "tilec_pipeline_run: stop_after %d, a print or verify bit or engine %d is out of range",
                           (int)c.stop_after, (int)c.engine);
    tilec_compile_options o = options ? *options : tilec_compile_options_default();
    const pipeline_target *target = target_of(&o, &c);
    /* the code printed after emit is the JIT's text, so it is kept */
    if (c.print_after >> TILEC_STAGE_EMIT & 1 && !o.capture_asm) o.capture_ir = true;
    pipeline p;
    pipeline_init(&p, ctx, f, &o, target, c.stop_after);
    p.print_after = c.print_after;
    p.verify_after = c.verify_after;
    p.explain = c.explain;
    p.json = c.json;
    p.write = c.write;
    p.user = c.user;
    p.modeled_workers = c.modeled_workers;
    /* the CPU's emit fills a kernel; the GPU's makes one only when asked (a
     * driver and a device), else stops at PTX */
    bool make = c.stop_after == TILEC_STAGE_EMIT && target->emit && (out || target != &PIPELINE_CUDA);
    tilec_kernel *k = NULL;
    tilec_status st = make ? pipeline_make(&p, &k) : pipeline_run(&p);
    if (out) *out = k;
    else tilec_kernel_destroy(k);
    pipeline_free(&p);
    return st;
}
