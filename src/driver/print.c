/* print.c — what each stage made, as text (tilec_pipeline_config.print_after,
 * `tilec --print-after STAGE`, docs/cli.md "Stages"):
 *
 *   flatten, verify  the TileIR module holding the kernel (flattened)
 *   plan             the planner's report (plan/report.h), as `tilec plan`
 *   split            "// @NAME: <the split in words>" and the partial and
 *                    combine kernels, or "// @NAME: not split: <why>"
 *   lower            the lowering's metadata comments and its XIR, as
 *                    `tilec lower`
 *   emit             CUDA: the PTX with its launch comments (tilec_emit_ptx);
 *                    CPU: the packet entry's optimized LLVM IR (its
 *                    assembly with capture_asm); the XIR interpreter: the
 *                    XIR it runs; the reference interpreter: the TileIR
 *
 * Each returns false when out of memory. */
#include "driver/pipeline.h"

#include "plan/report.h"
#include "tir/form.h"
#include "tir/ir.h"
#include "tir/text.h"
#include "xir/text.h"

#include <math.h>

bool pipeline_print_kernel(const pipeline *p, strbuf *s) { return tir_print_to_strbuf(p->f->module, s); }

/* "R=2..255" for bucket b of f. */
static void print_bucket(const tir_func *f, const pipeline_bucket *b, strbuf *s) {
    for (uint32_t i = 0; i < f->sym_count; i++)
        strbuf_printf(s, "%s%s=%lld..%lld", i ? ", " : "", f->syms[i]->name, (long long)b->lo[i], (long long)b->hi[i]);
}

static const char *const POINT[PIPELINE_POINTS] = {"low end", "middle", "high end"};

/* A regret as text: "1.00", "unadmitted" (a plan another point cannot
 * run), "none" (no plan made there). */
static void print_regret(strbuf *s, double r, bool json) {
    if (r == 0) strbuf_append(s, json ? "null" : "none");
    else if (isinf(r)) strbuf_append(s, json ? "\"unadmitted\"" : "unadmitted");
    else strbuf_printf(s, "%.3f", r);
}

/* How the bucket's plan was chosen: whose plan, and each point's worst
 * regret over the three (nothing when the bucket is one point). */
static void print_choice(const tir_func *f, const pipeline_bucket *b, strbuf *s, bool json) {
    const pipeline_choice *c = &b->choice;
    if (!c->regret[1]) {
        bool point = pipeline_bucket_is_point(b, f->sym_count);
        strbuf_append(s, json ? "null" : point ? ", the kernel specialized there (static code)" : "");
        return;
    }
    if (json) strbuf_printf(s, "{\"from\": \"%s\", \"regret\": {", POINT[c->from]);
    else strbuf_printf(s, ", the plan of its %s (worst regret over the three: ", POINT[c->from]);
    for (uint32_t x = 0; x < PIPELINE_POINTS; x++) {
        const int64_t *v = x == 0 ? b->lo : x == 1 ? b->at : b->hi;
        if (json) {
            strbuf_printf(s, "%s\"%s\": ", x ? ", " : "", POINT[x]);
            print_regret(s, c->regret[x], true);
            continue;
        }
        strbuf_append(s, x ? ", " : "");
        for (uint32_t i = 0; i < f->sym_count; i++)
            strbuf_printf(s, "%s%s=%lld", i ? "," : "", f->syms[i]->name, (long long)v[i]);
        strbuf_printf(s, "'s ");
        print_regret(s, c->regret[x], false);
    }
    strbuf_append(s, json ? "}}" : ")");
}

/* One bucket's plan under its header: which sizes it serves, where it was
 * planned and whose plan it is (JSON: an element of "buckets" with
 * "sizes", "planned_at", "choice" and "plan"). */
static bool print_bucket_plan(const pipeline *p, uint32_t b, const plan_result *plan, strbuf *s) {
    const tir_func *f = p->f;
    const pipeline_bucket *bucket = &p->bucketed->buckets[b];
    if (p->json) {
        strbuf_append(s, b ? ",\n  {\"sizes\": {" : "  {\"sizes\": {");
        for (uint32_t i = 0; i < f->sym_count; i++)
            strbuf_printf(s, "%s\"%s\": [%lld, %lld]", i ? ", " : "", f->syms[i]->name, (long long)bucket->lo[i],
                          (long long)bucket->hi[i]);
        strbuf_append(s, "}, \"planned_at\": {");
        for (uint32_t i = 0; i < f->sym_count; i++)
            strbuf_printf(s, "%s\"%s\": %lld", i ? ", " : "", f->syms[i]->name, (long long)bucket->at[i]);
        strbuf_append(s, "}, \"choice\": ");
        print_choice(f, bucket, s, true);
        strbuf_append(s, ", \"plan\": ");
    } else {
        strbuf_append(s, "bucket ");
        print_bucket(f, bucket, s);
        strbuf_append(s, ", planned at ");
        for (uint32_t i = 0; i < f->sym_count; i++)
            strbuf_printf(s, "%s%s=%lld", i ? ", " : "", f->syms[i]->name, (long long)bucket->at[i]);
        print_choice(f, bucket, s, false);
        strbuf_append(s, ":\n");
    }
    const plan_choice **rank = p->explain ? plan_ranking(p->ctx, plan) : NULL;
    if (p->explain && !rank) return false;
    if (p->json) plan_report_json(s, plan, rank, p->explain);
    else plan_report_text(s, plan, rank, p->explain);
    if (p->json) strbuf_append(s, "  }");
    tilec_free(p->ctx, rank);
    return true;
}

/* A kernel with runtime sizes: every bucket's plan, the last one's is p's
 * (JSON: {"buckets": [...]}, identifiers as names: no escaping). */
static bool print_buckets(const pipeline *p, strbuf *s) {
    if (p->json) strbuf_append(s, "{\"buckets\": [\n");
    else
        strbuf_printf(s,
                      "runtime sizes: %u buckets (%s), each planned at its geometric middle without root tiles, "
                      "split only over a root of at most one sized axis, packing data whose outermost tiles alone "
                      "may follow a size; a bucket runs the plan, of those made at its low end, middle and high "
                      "end, whose worst regret over the three (its cost over the best at each, in the model, a "
                      "split's modeled gain included) is least; buckets whose plans agree share one compiled "
                      "kernel, a bucket of one point is the kernel specialized there; a dispatch runs its "
                      "bucket's plan, its size and argument bytes computed from its sizes\n",
                      p->bucketed->count,
                      p->o.bucket_cuts_len ? "each size's range cut before the sizes bucket_cuts gives"
                                           : "each size's range cut at 2, 256 and 4096: a decode-like 1 alone, then "
                                             "small, mid and large; 256 and 4096 only where the piece past them "
                                             "reaches twice the cut; then a bucket whose chosen plan's worst regret "
                                             "passes 1.25 cut in two at its middle, where its widest size spans 4x "
                                             "or more, at most 4 times");
    for (uint32_t b = 0; b + 1 < p->bucketed->count; b++)
        if (!print_bucket_plan(p, b, &p->bucketed->plans[b], s)) return false;
    if (!print_bucket_plan(p, p->bucketed->count - 1, &p->plan, s)) return false;
    if (p->json) strbuf_append(s, "\n]}\n");
    return true;
}

/* A plan, or why there is none (a failed plan with an explanation asked). */
bool pipeline_print_plan(const pipeline *p, strbuf *s) {
    bool failed = p->next <= TILEC_STAGE_PLAN;
    if (!p->planned || (failed && !(p->explain && p->plan.candidate_count))) return true;
    if (p->bucketed && !failed) return print_buckets(p, s);
    const plan_choice **rank = p->explain ? plan_ranking(p->ctx, &p->plan) : NULL;
    if (p->explain && !rank) return false;
    if (p->json) plan_report_json(s, &p->plan, rank, p->explain);
    else plan_report_text(s, &p->plan, rank, p->explain);
    tilec_free(p->ctx, rank);
    return true;
}

bool pipeline_print_split(const pipeline *p, strbuf *s) {
    const char *name = tir_func_name(p->f);
    if (!p->planned) return true; /* the reference target plans nothing */
    if (!p->split) {
        strbuf_printf(s, "// @%s: not split: %s\n", name, p->plan.split.why);
        return true;
    }
    strbuf_printf(s, "// @%s: %s\n", name, p->plan.split.why);
    return tir_print_to_strbuf(p->split, s);
}

bool pipeline_print_lowered(const pipeline *p, strbuf *s) {
    if (!p->lowered.module) return true; /* the reference target lowers nothing */
    lower_report_metadata(s, &p->lowered);
    return xir_print_to_strbuf(p->lowered.module, s);
}

/* A volume as text: factor·e0·e1·… with each extent a number or its form. */
static void print_volume(strbuf *s, const tir_module *m, const tir_space *sp, uint64_t factor) {
    strbuf_printf(s, "%llu", (unsigned long long)factor);
    for (uint32_t i = 0; i < sp->rank; i++) {
        strbuf_append(s, "*");
        const tir_form *form = tir_extent_form(m, sp->axes[i].extent);
        bool sum = form && form->kind != TIR_FORM_SYM; /* a form in parentheses, a size alone */
        strbuf_append(s, sum ? "(" : "");
        tir_extent_print(s, m, sp->axes[i].extent);
        strbuf_append(s, sum ? ")" : "");
    }
}

/* PTX comments that say how to launch the entry (docs/gpu.md "Launch
 * ABI"), so the file stands alone: a runner needs nothing else.  With
 * runtime sizes the dispatch size and the bytes are formulas over them,
 * the dims an i64 buffer after the arguments; the PTX is the plan of the
 * bucket `tilec-sizes` names. */
static void launch_header(strbuf *s, const pipeline *p, const gpu_kernel *g) {
    const lower_result *lr = &p->lowered;
    const tir_func *f = p->f;
    if (f->sym_count) {
        strbuf_printf(s, "// tilec-launch: entry=%s sm=%s block=%u dispatch=", gpu_kernel_entry(g), gpu_kernel_sm(g),
                      lr->block_size);
        for (const tir_op *o = f->body->first; o; o = o->next)
            if (o->kind == TIR_OP_PARALLEL) print_volume(s, f->module, o->domain, lr->local_lanes);
        strbuf_printf(s, " grid=ceil(dispatch/%u) args=%zu+dims\n// tilec-sizes:", lr->block_size, lr->arg_count);
        const pipeline_bucket *b = p->bucketed ? &p->bucketed->buckets[p->bucketed->count - 1] : NULL;
        for (uint32_t i = 0; i < f->sym_count; i++) {
            strbuf_printf(s, " %s=%lld..%lld", f->syms[i]->name, (long long)f->syms[i]->lo, (long long)f->syms[i]->hi);
            if (b) strbuf_printf(s, " (this PTX: its bucket %lld..%lld)", (long long)b->lo[i], (long long)b->hi[i]);
        }
        strbuf_append(s, "; dims: an i64 buffer of them after the arguments\n");
    } else {
        uint32_t grid = lr->dispatch_size / lr->block_size + (lr->dispatch_size % lr->block_size != 0);
        strbuf_printf(s, "// tilec-launch: entry=%s sm=%s block=%u dispatch=%u grid=%u args=%zu\n", gpu_kernel_entry(g),
                      gpu_kernel_sm(g), lr->block_size, lr->dispatch_size, grid, lr->arg_count);
    }
    for (size_t i = 0; i < lr->arg_count; i++) {
        const tir_type *t = f->body->args[i]->type;
        strbuf_printf(s, "// tilec-arg: %zu %s %s bytes=", i, lr->args[i].name, tir_scalar_name(lr->args[i].elem));
        if (tir_space_is_static(t->space)) strbuf_printf(s, "%llu", (unsigned long long)lr->args[i].min_bytes);
        else print_volume(s, f->module, t->space, tir_scalar_size(t->elem));
        strbuf_printf(s, "%s%s\n", lr->args[i].usage & TIR_USE_READ ? " read" : "",
                      lr->args[i].usage & TIR_USE_WRITE ? " write" : "");
    }
    strbuf_printf(s, "// tilec-plan: %s\n", lr->realization ? lr->realization : "");
}

bool pipeline_print_code(const pipeline *p, strbuf *s) {
    const tilec_kernel *k = p->k;
    const gpu_kernel *ptx = p->ptx ? p->ptx : k ? k->gpu : NULL;
    if (ptx) {
        launch_header(s, p, ptx);
        strbuf_append(s, gpu_kernel_ptx(ptx));
        return true;
    }
    if (k && k->xir) return xir_print_to_strbuf(k->xir->module, s);
    if (k && k->reference) return tir_print_to_strbuf(k->reference->module, s);
    if (!k || !k->native) return true; /* an empty root domain, a split: the helper kernels hold the code */
    const char *text = p->o.capture_asm ? simd_kernel_asm(k->native) : simd_kernel_ir(k->native);
    strbuf_append(s, text ? text : "");
    return true;
}
