/* pipeline.c — the stages in their one order and the loop that runs them
 * (see pipeline.h).  Each stage reports its own diagnostics; the loop adds
 * none.  The target's prepare step runs after flattening, before
 * verification: a kernel's runtime (or the CUDA driver) exists before any
 * compile work, and option errors come before the kernel's. */
#include "driver/pipeline.h"

#include "base/clock.h"
#include "realize/admit.h"
#include "rewrite/flatten.h"
#include "tir/ir.h"

#include <string.h>

/* Nested root parallels flattened into one (rewrite/flatten.h), after the
 * module they are in verifies. */
static tilec_status stage_flatten(pipeline *p) {
    if (!plan_flatten_applies(p->f)) return TILEC_OK;
    tilec_status st = tir_verify(p->ctx, p->f->module);
    if (st) return st;
    if (!(p->flat = plan_flatten_build(p->ctx, p->f))) return TILEC_E_NOMEM;
    p->f = tir_module_func(p->flat, 0);
    return TILEC_OK;
}

static tilec_status stage_verify(pipeline *p) {
    p->verified = now_ms();
    return tir_verify(p->ctx, p->f->module);
}

/* The exact planner for the target; a kernel whose root domain is empty
 * has no plan: the target says what it becomes. */
static tilec_status stage_plan(pipeline *p) {
    if (p->stop_after == PIPELINE_EMIT && p->target->empty && plan_root_empty(p->f)) {
        p->finished = true;
        return p->target->empty(p);
    }
    tilec_compile_options po = p->o;
    tilec_status st = p->target->planner(p, &po);
    if (st) return st;
    p->planned = true;
    return plan_kernel(p->ctx, p->f, &po, p->info_of, &p->plan);
}

/* A split plan is its partial and combine kernels, each a pipeline. */
static tilec_status stage_split(pipeline *p) {
    if (!p->target->splits || !p->plan.split.reduce || !p->make_kernel) return TILEC_OK;
    p->finished = true;
    return program_compile_split(p);
}

static tilec_status stage_lower(pipeline *p) { return pipeline_lower(p->ctx, p->f, &p->plan, &p->lowered); }

static tilec_status stage_emit(pipeline *p) { return p->target->emit ? p->target->emit(p) : TILEC_OK; }

/* The one order of the stages. */
static tilec_status (*const STAGES[PIPELINE_STAGES])(pipeline *p) = {
    [PIPELINE_FLATTEN] = stage_flatten, [PIPELINE_VERIFY] = stage_verify, [PIPELINE_PLAN] = stage_plan,
    [PIPELINE_SPLIT] = stage_split,     [PIPELINE_LOWER] = stage_lower,   [PIPELINE_EMIT] = stage_emit,
};

void pipeline_init(pipeline *p, tilec_context *ctx, const tir_func *f, const tilec_compile_options *options,
                   const pipeline_target *target, pipeline_stage_id stop_after) {
    memset(p, 0, sizeof *p);
    p->ctx = ctx;
    p->f = f;
    p->o = options ? *options : tilec_compile_options_default();
    p->target = target;
    p->stop_after = stop_after;
    p->modeled_workers = 8;
}

tilec_status pipeline_run(pipeline *p) {
    tilec_status st = TILEC_OK;
    for (int s = p->next; !st && !p->finished && s <= (int)p->stop_after; s++) {
        if (s == PIPELINE_VERIFY && p->target->prepare) {
            p->started = now_ms();
            if ((st = p->target->prepare(p))) break;
        }
        double t = now_ms();
        st = STAGES[s](p);
        p->ms[s] = now_ms() - t;
        if (!st) p->next = s + 1;
    }
    return st;
}

void pipeline_free(pipeline *p) {
    if (p->lowered.module) lower_result_free(&p->lowered);
    if (p->planned) plan_result_free(&p->plan);
    gpu_kernel_destroy(p->ptx);
    tir_module_destroy(p->flat);
    p->planned = false;
    p->ptx = NULL;
    p->flat = NULL;
}

tilec_status pipeline_compile(tilec_context *ctx, const tir_func *f, const tilec_compile_options *options,
                              simd_aot *aot, tilec_kernel **out) {
    *out = NULL;
    tilec_compile_options o = options ? *options : tilec_compile_options_default();
    pipeline p;
    pipeline_init(&p, ctx, f, &o, o.target == TILEC_TARGET_CUDA ? &PIPELINE_CUDA : &PIPELINE_CPU, PIPELINE_EMIT);
    p.make_kernel = true;
    p.aot = aot;
    tilec_status st = pipeline_run(&p);
    if (!st && p.k && !tilec_kernel_describe(p.k))
        st = tilec_error(ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory describing a kernel");
    if (st) pipeline_kernel_free(p.k);
    else *out = p.k;
    pipeline_free(&p);
    return st;
}
