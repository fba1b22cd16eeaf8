/* pipeline.c — the stages in their one order and the loop that runs them
 * (see pipeline.h).  Each stage reports its own diagnostics; the loop adds
 * none.  The target's prepare step runs after flattening, before
 * verification: a kernel's runtime (or the CUDA driver) exists before any
 * compile work, and option errors come before the kernel's. */
#include "driver/pipeline.h"

#include "base/clock.h"
#include "realize/admit.h"
#include "rewrite/flatten.h"
#include "plan/split.h"
#include "rewrite/split.h"
#include "tir/form.h"
#include "xir/verify.h"

#include <string.h>

/* Nested root parallels flattened into one (rewrite/flatten.h), after the
 * module they are in verifies. */
static tilec_status stage_flatten(pipeline *p) {
    if (!plan_flatten_applies(p->f)) return TILEC_OK;
    if (p->f->sym_count) /* not built for runtime sizes (the reference reads the source) */
        return p->target->planner ? tilec_error(p->ctx, TILEC_E_UNSUPPORTED, "TILEC-R02", p->f->loc,
                                                "kernel '@%s' has runtime sizes and nested root parallels: flattening "
                                                "them is not built for runtime sizes yet; write one root parallel",
                                                p->f->name)
                                  : TILEC_OK;
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

/* Whether f's one root parallel runs a number of programs its split
 * workspace can follow: at most one root axis over runtime sizes (the
 * workspace's rows are the programs times the chunks, a form only while
 * one size enters it; rewrite/split.c; the chunks' trips follow the sizes
 * too). */
static bool root_splittable(const tir_func *f) {
    const tir_op *root = NULL;
    for (const tir_op *o = f->body->first; o; o = o->next)
        if (o->kind == TIR_OP_PARALLEL) {
            if (root) return false;
            root = o;
        }
    uint32_t sized = 0;
    for (uint32_t a = 0; root && a < root->domain->rank; a++) sized += tir_extent_is_symbolic(root->domain->axes[a].extent);
    return root && sized <= 1;
}

/* A kernel with runtime sizes is planned at given sizes (a bucket's,
 * buckets.c), with what must hold for every size: no root tiles, a split
 * only over a root of at most one runtime-size axis, only static data packed (pipeline_sized_plan);
 * the bucket's choice of plan fixed.  The lowering realizes that plan for
 * the kernel itself, its extents read at run time. */
tilec_status pipeline_plan_at(pipeline *p, const tilec_compile_options *po, const int64_t *at,
                              const pipeline_choice *choice, tir_module **sized, plan_result *out) {
    tilec_compile_options o = *po;
    if (choice && choice->pinned) { /* another point's plan, fixed (the caller's constraints allowed it there) */
        o.block_size = choice->block_size;
        o.root_axis_order = choice->order;
        o.root_axis_order_len = choice->rank;
        o.local_lanes = choice->local_lanes;
        o.fuse = choice->fused ? TILEC_FUSE_ON : TILEC_FUSE_OFF;
        o.split = choice->split_chunks ? TILEC_SPLIT_ON : TILEC_SPLIT_OFF;
        o.split_chunks = choice->split_chunks;
    }
    if (!root_splittable(p->f)) {
        o.split = TILEC_SPLIT_OFF;
        o.split_chunks = 0; /* (a count asks for a split) */
    }
    o.search_tiles = false;
    if (!(*sized = tir_func_specialize(p->f, p->f->sym_count, at))) return TILEC_E_SHAPE;
    const tir_func *g = tir_module_func(*sized, 0);
    plan_split probe; /* an explicit chunk count: for the buckets whose trips hold it */
    if (o.split_chunks && !plan_split_decide(g, o.split, o.split_chunks, 1, &probe) && probe.bad_chunks) {
        o.split = TILEC_SPLIT_OFF;
        o.split_chunks = 0;
    }
    return plan_kernel(p->ctx, g, &o, p->info_of, out);
}

/* A bucket's pipeline plans at its sizes (its own, not its helpers', the
 * plan chosen over the bucket); a pipeline printing the plan plans every
 * bucket (the lowering after it realizes the last one's). */
static tilec_status plan_sized(pipeline *p, const tilec_compile_options *po) {
    p->planned = true;
    if (p->plan_at) { /* a bucket's: chosen with the buckets (pipeline_buckets_chosen) */
        tilec_status st =
            pipeline_plan_at(p, po, p->plan_at, p->bucket ? &p->bucket->choice : NULL, &p->sized, &p->plan);
        return st ? st : pipeline_sized_plan(p);
    }
    pipeline_bucket_plans *b = p->bucketed = tilec_alloc(p->ctx, sizeof *p->bucketed);
    if (!b) return tilec_error(p->ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory planning buckets");
    memset(b, 0, sizeof *b); /* zeroed: pipeline_free frees them all */
    uint32_t n = b->count = pipeline_buckets_chosen(p, po, b->buckets);
    tilec_status st = TILEC_OK;
    for (uint32_t i = 0; !st && i < n; i++) {
        bool last = i + 1 == n;
        st = pipeline_plan_at(p, po, b->buckets[i].at, &b->buckets[i].choice, last ? &p->sized : &b->sized[i],
                              last ? &p->plan : &b->plans[i]);
    }
    return st ? st : pipeline_sized_plan(p);
}

/* A native packet-local plan whose distributed dims are all at most half
 * a packet wide leaves those lanes idle in every instruction.  When no
 * width was asked for (the host's was taken), the kernel is planned again,
 * packet-local, at the narrowest width of at least 4 lanes that holds them
 * (gemv_q8q's 8 words of a group at 16 lanes: a step of the Llama decoder's
 * projections 7.7 ms against 5.4 at 8). */
static tilec_status narrow_packets(pipeline *p, tilec_compile_options *po) {
    const plan_choice *c = plan_selected(&p->plan);
    uint32_t w = p->width;
    if (p->target != &PIPELINE_CPU || !p->host_width || !c || c->candidate.local_lanes < 2) return TILEC_OK;
    while (w > 4 && 2 * p->plan.local_widest <= w) w /= 2;
    if (w == p->width) return TILEC_OK;
    p->width = po->width = po->local_lanes = w;
    tilec_status st = p->target->planner(p, po);
    if (st) return st;
    plan_result_free(&p->plan);
    return plan_kernel(p->ctx, p->f, po, p->info_of, &p->plan);
}

/* The exact planner for the target; a kernel whose root domain is empty
 * has no plan: the target says what it becomes. */
static tilec_status stage_plan(pipeline *p) {
    if (!p->target->planner) return TILEC_OK; /* the target runs the TileIR itself */
    if (p->stop_after == TILEC_STAGE_EMIT && p->target->empty && plan_root_empty(p->f)) {
        p->finished = true;
        return p->target->empty(p);
    }
    tilec_compile_options po = p->o;
    tilec_status st = p->target->planner(p, &po);
    if (st) return st;
    if (p->f->sym_count && p->make_kernel && !p->plan_at && p->stop_after == TILEC_STAGE_EMIT) {
        p->finished = true; /* a kernel of one variant per distinct bucket plan */
        return program_compile_buckets(p, &po);
    }
    if (p->f->sym_count) return plan_sized(p, &po);
    p->planned = true;
    st = plan_kernel(p->ctx, p->f, &po, p->info_of, &p->plan);
    return st ? st : narrow_packets(p, &po);
}

/* A split plan is its partial and combine kernels (rewrite/split.h),
 * built when a kernel is made of them or they are printed or checked;
 * made into a kernel, each is a pipeline of its own. */
static tilec_status stage_split(pipeline *p) {
    bool compose = p->target->splits && p->make_kernel;
    bool shown = (p->print_after | p->verify_after) >> TILEC_STAGE_SPLIT & 1;
    if (!p->plan.split.reduce || !(compose || shown)) return TILEC_OK;
    if (!(p->split = plan_split_build(p->ctx, p->f, &p->plan.split))) return TILEC_E_NOMEM;
    if (!compose) return TILEC_OK;
    p->finished = true;
    return program_compile_split(p);
}

static tilec_status stage_lower(pipeline *p) {
    return p->planned ? pipeline_lower(p->ctx, p->f, &p->plan, &p->lowered) : TILEC_OK;
}

static tilec_status stage_emit(pipeline *p) { return p->target->emit ? p->target->emit(p) : TILEC_OK; }

/* What a stage made, checked again by its verifier (verify_after). */
static tilec_status check_tir(tilec_context *ctx, const tir_module *m) { return m ? tir_verify(ctx, m) : TILEC_OK; }
static tilec_status check_flatten(pipeline *p) { return check_tir(p->ctx, p->flat); }
static tilec_status check_split(pipeline *p) { return check_tir(p->ctx, p->split); }
static tilec_status check_lower(pipeline *p) {
    return p->lowered.module ? xir_verify(p->ctx, p->lowered.module) : TILEC_OK;
}

typedef struct {
    tilec_status (*run)(pipeline *p);
    tilec_status (*check)(pipeline *p);          /* NULL: the stage is its own check */
    bool (*print)(const pipeline *p, strbuf *s); /* print.c; false: out of memory */
    bool explains;                               /* also printed when the stage fails: why */
} pipeline_stage;

/* The one order of the stages. */
static const pipeline_stage STAGES[TILEC_STAGE_COUNT] = {
    [TILEC_STAGE_FLATTEN] = {stage_flatten, check_flatten, pipeline_print_kernel, false},
    [TILEC_STAGE_VERIFY] = {stage_verify, NULL, pipeline_print_kernel, false},
    [TILEC_STAGE_PLAN] = {stage_plan, NULL, pipeline_print_plan, true},
    [TILEC_STAGE_SPLIT] = {stage_split, check_split, pipeline_print_split, false},
    [TILEC_STAGE_LOWER] = {stage_lower, check_lower, pipeline_print_lowered, false},
    [TILEC_STAGE_EMIT] = {stage_emit, NULL, pipeline_print_code, false},
};

/* Stage s's print, handed to the caller's write in one call. */
static tilec_status print_stage(pipeline *p, int s) {
    strbuf text;
    strbuf_init(&text, p->ctx);
    tilec_status st = STAGES[s].print(p, &text) && !text.failed
                          ? (text.len ? p->write(p->user, strbuf_cstr(&text), text.len) : TILEC_OK)
                          : tilec_error(p->ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(),
                                        "out of memory printing the %s stage", tilec_stage_name((tilec_stage)s));
    strbuf_free(&text);
    return st;
}

void pipeline_init(pipeline *p, tilec_context *ctx, const tir_func *f, const tilec_compile_options *options,
                   const pipeline_target *target, tilec_stage stop_after) {
    memset(p, 0, sizeof *p);
    p->ctx = ctx;
    p->source = p->f = f;
    p->o = options ? *options : tilec_compile_options_default();
    p->target = target;
    p->stop_after = stop_after;
    p->modeled_workers = 8;
}

tilec_status pipeline_run(pipeline *p) {
    tilec_status st = TILEC_OK;
    for (int s = p->next; !st && !p->finished && s <= (int)p->stop_after; s++) {
        if (s == TILEC_STAGE_VERIFY && p->target->prepare) {
            p->started = now_ms();
            if ((st = p->target->prepare(p))) break;
        }
        double t = now_ms();
        st = STAGES[s].run(p);
        p->ms[s] = now_ms() - t;
        if (!st) p->next = s + 1; /* done: its print says what it made, not why it failed */
        if (!st && STAGES[s].check && (p->verify_after >> s & 1)) st = STAGES[s].check(p);
        if ((p->print_after >> s & 1) && (!st || STAGES[s].explains)) {
            tilec_status printed = print_stage(p, s);
            if (!st) st = printed;
        }
    }
    return st;
}

void pipeline_free(pipeline *p) {
    if (p->lowered.module) lower_result_free(&p->lowered);
    tir_module_destroy(p->split);
    if (p->planned) plan_result_free(&p->plan);
    gpu_kernel_destroy(p->ptx);
    tir_module_destroy(p->flat);
    tir_module_destroy(p->sized);
    for (uint32_t b = 0; p->bucketed && b + 1 < p->bucketed->count; b++) {
        plan_result_free(&p->bucketed->plans[b]);
        tir_module_destroy(p->bucketed->sized[b]);
    }
    tilec_free(p->ctx, p->bucketed);
    p->bucketed = NULL;
    p->planned = false;
    p->ptx = NULL;
    p->flat = p->split = p->sized = NULL;
}

tilec_status pipeline_make(pipeline *p, tilec_kernel **out) {
    *out = NULL;
    p->make_kernel = true;
    p->stop_after = TILEC_STAGE_EMIT;
    tilec_status st = pipeline_run(p);
    if (!st && p->k && !tilec_kernel_describe(p->k))
        st = tilec_error(p->ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory describing a kernel");
    if (st) pipeline_kernel_free(p->k);
    else *out = p->k;
    p->k = NULL;
    return st;
}

tilec_status pipeline_compile(tilec_context *ctx, const tir_func *f, const tilec_compile_options *options,
                              simd_aot *aot, tilec_kernel **out) {
    tilec_compile_options o = options ? *options : tilec_compile_options_default();
    pipeline p;
    pipeline_init(&p, ctx, f, &o, o.target == TILEC_TARGET_CUDA ? &PIPELINE_CUDA : &PIPELINE_CPU, TILEC_STAGE_EMIT);
    p.aot = aot;
    tilec_status st = pipeline_make(&p, out);
    pipeline_free(&p);
    return st;
}
