/* buckets.c — a kernel with runtime sizes made of one plan per bucket of
 * sizes (docs/planner.md "Runtime sizes").  Each runtime size's range is
 * cut at 2, 256 and 4096 (a decode-like 1 apart, then small, mid and large;
 * the option bucket_cuts replaces them); a bucket is one piece per size (the
 * first size's pieces only, past 16 buckets), planned at its representative
 * sizes (each piece's geometric middle).  A default cut above 2 is made
 * only where the piece past it reaches twice the cut.  A bucket runs the
 * plan, of those made at its ends and middle, whose worst regret over the
 * three is least (a split's modeled gain included); with the default cuts
 * a bucket whose best worst regret passes 1.25 is cut in two at its
 * middle.  Buckets whose plans agree share one compiled variant, so
 * a kernel compiles once per distinct plan; a bucket of one point is the
 * kernel specialized there (static code).  Dispatch picks the bucket its
 * sizes fall in (no planning or compiling at dispatch). */
#include "driver/pipeline.h"

#include "base/checked.h"

#include "rewrite/pack.h"
#include "tir/form.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const uint32_t CUTS[] = {2, 256, 4096};
enum { MAX_CUTS = PIPELINE_MAX_BUCKETS - 1, PIECES = MAX_CUTS + 1 };

typedef struct {
    int64_t lo[PIECES], hi[PIECES];
    uint32_t count;
} pieces;

/* [lo, hi] cut before each of cuts[0..n) (rising) inside it; with the
 * default cuts, one above 2 only where the piece past it would reach twice
 * the cut (no sliver 4096..4097). */
static void cut(int64_t lo, int64_t hi, const uint32_t *cuts, size_t n, bool defaults, pieces *out) {
    out->count = 0;
    int64_t from = lo;
    for (size_t c = 0; c < n; c++) {
        int64_t at = cuts[c];
        if (at <= from || at > hi || (defaults && at > 2 && hi < 2 * at)) continue;
        out->lo[out->count] = from, out->hi[out->count++] = at - 1, from = at;
    }
    out->lo[out->count] = from, out->hi[out->count++] = hi;
}

/* The middle of a piece for planning: its geometric middle (1 for 0..1). */
static int64_t middle(int64_t lo, int64_t hi) {
    if (lo == hi) return lo;
    double m = sqrt((double)(lo > 1 ? lo : 1) * (double)hi);
    int64_t v = (int64_t)m;
    return v < lo ? lo : v > hi ? hi : v;
}

uint32_t pipeline_buckets(const tir_func *f, const tilec_compile_options *o, pipeline_bucket *out) {
    bool defaults = !o->bucket_cuts_len;
    const uint32_t *cuts = defaults ? CUTS : o->bucket_cuts;
    size_t n_cuts = defaults ? sizeof CUTS / sizeof CUTS[0] : o->bucket_cuts_len;
    if (n_cuts > MAX_CUTS) n_cuts = MAX_CUTS; /* (the options' check refuses more) */
    pieces p[TIR_MAX_SYMBOLS];
    uint32_t total = 1;
    for (uint32_t s = 0; s < f->sym_count; s++) {
        cut(f->syms[s]->lo, f->syms[s]->hi, cuts, n_cuts, defaults, &p[s]);
        total = total > PIPELINE_MAX_BUCKETS ? total : total * p[s].count;
    }
    bool first_only = total > PIPELINE_MAX_BUCKETS;
    uint32_t n = first_only ? p[0].count : total;
    for (uint32_t b = 0; b < n; b++) {
        uint32_t rest = b;
        memset(&out[b].choice, 0, sizeof out[b].choice);
        for (uint32_t s = f->sym_count; s-- > 0;) {
            bool whole = first_only && s > 0;
            uint32_t i = whole ? 0 : rest % p[s].count;
            rest = whole ? rest : rest / p[s].count;
            out[b].lo[s] = whole ? f->syms[s]->lo : p[s].lo[i];
            out[b].hi[s] = whole ? f->syms[s]->hi : p[s].hi[i];
            out[b].at[s] = middle(out[b].lo[s], out[b].hi[s]);
        }
    }
    return n;
}

bool pipeline_bucket_is_point(const pipeline_bucket *b, uint32_t n) { return !memcmp(b->lo, b->hi, n * sizeof *b->lo); }

/* Whether two candidates realize alike but for their sizes: the same root
 * order, block, lanes, width and fusion (a kernel with runtime sizes has no
 * tiles). */
static bool same_candidate(const plan_candidate *c, const plan_candidate *d) {
    return c->rank == d->rank && !memcmp(c->order, d->order, c->rank * sizeof *c->order) &&
           c->block_size == d->block_size && c->local_lanes == d->local_lanes && c->packet_width == d->packet_width &&
           c->fused == d->fused && c->tiled == d->tiled;
}

/* Whether two plans realize alike: the same candidate, requested grain
 * (the heuristic's is computed at each dispatch) and split. */
static bool same_plan(const plan_result *a, const plan_result *b) {
    const plan_choice *x = plan_selected(a), *y = plan_selected(b);
    return same_candidate(&x->candidate, &y->candidate) &&
           x->candidate.blocks_per_task == y->candidate.blocks_per_task &&
           (a->split.reduce ? a->split.chunks : 0) == (b->split.reduce ? b->split.chunks : 0);
}

/* ---- the plan a bucket runs ---- */

/* c's cost in r: its best score among r's admitted candidates that realize
 * like it (INFINITY: none). */
static double cost_in(const plan_result *r, const plan_candidate *c) {
    double best = INFINITY;
    for (size_t i = 0; i < r->candidates.len; i++)
        if (same_candidate(&r->candidates.data[i].candidate, c) && r->candidates.data[i].cost.score < best)
            best = r->candidates.data[i].cost.score;
    return best;
}

/* The modeled gain of splitting g's reduce into `chunks` (0: unsplit) on
 * the workers `r` was planned for, chunks past g's trips empty. */
static double split_gain(const tir_func *g, const plan_result *r, uint32_t chunks) {
    if (!chunks) return 1;
    plan_split probe;
    if (plan_split_decide(g, TILEC_SPLIT_ON, chunks, r->target.worker_count, &probe)) return probe.modeled_gain;
    return probe.bad_chunks ? plan_split_gain(probe.programs, probe.trips, chunks, r->target.worker_count,
                                              probe.spread)
                            : 1;
}

static uint32_t split_chunks(const plan_result *r) { return r->split.reduce ? r->split.chunks : 0; }

/* b->choice: the plans at b's ends and middle, each priced at all three.
 * A plan that fails at an end (a size of 0 has no root programs) leaves
 * that end unpriced, its diagnostics dropped; the middle's failure is
 * reported when the bucket is planned there.  A plan's cost at a point is
 * its candidate's score there over its split's modeled gain there. */
static void bucket_choose(pipeline *p, const tilec_compile_options *po, pipeline_bucket *b) {
    pipeline_choice *ch = &b->choice;
    memset(ch, 0, sizeof *ch);
    ch->from = 1;
    const tir_func *f = p->f;
    if (pipeline_bucket_is_point(b, f->sym_count)) return; /* nothing to choose */
    int64_t at[PIPELINE_POINTS][TIR_MAX_SYMBOLS];
    for (uint32_t s = 0; s < f->sym_count; s++) at[0][s] = b->lo[s], at[1][s] = b->at[s], at[2][s] = b->hi[s];
    plan_result plans[PIPELINE_POINTS];
    tir_module *sized[PIPELINE_POINTS] = {NULL};
    bool made[PIPELINE_POINTS];
    size_t diags = tilec_diag_count(p->ctx);
    for (uint32_t x = 0; x < PIPELINE_POINTS; x++) {
        tilec_status st = pipeline_plan_at(p, po, at[x], NULL, &sized[x], &plans[x]);
        if (!sized[x]) memset(&plans[x], 0, sizeof plans[x]); /* specializing failed: nothing planned */
        made[x] = !st && plans[x].ok && plan_selected(&plans[x])->cost.score > 0;
    }
    tilec_diag_truncate(p->ctx, diags);
    for (uint32_t y = 0; made[1] && y < PIPELINE_POINTS; y++) { /* each point's plan, priced at every point */
        if (!made[y]) continue;
        const plan_candidate *c = &plan_selected(&plans[y])->candidate;
        double worst = 1;
        for (uint32_t x = 0; x < PIPELINE_POINTS; x++) {
            if (!made[x]) continue;
            const tir_func *g = tir_module_func(sized[x], 0);
            double best = plan_selected(&plans[x])->cost.score / split_gain(g, &plans[x], split_chunks(&plans[x]));
            double r = cost_in(&plans[x], c) / split_gain(g, &plans[x], split_chunks(&plans[y])) / best;
            worst = r > worst ? r : worst;
        }
        ch->regret[y] = worst;
    }
    for (uint32_t y = 0; made[1] && y < PIPELINE_POINTS; y += 2) /* the middle's on a tie */
        if (made[y] && ch->regret[y] < ch->regret[ch->from] * (1 - 1e-9)) ch->from = y;
    const plan_candidate *c = made[1] ? &plan_selected(&plans[ch->from])->candidate : NULL;
    if (c) {
        ch->rank = c->rank;
        memcpy(ch->order, c->order, sizeof ch->order);
        ch->block_size = c->block_size, ch->local_lanes = c->local_lanes, ch->fused = c->fused;
        ch->split_chunks = split_chunks(&plans[ch->from]);
    }
    ch->pinned = ch->from != 1;
    for (uint32_t x = 0; x < PIPELINE_POINTS; x++) {
        if (sized[x]) plan_result_free(&plans[x]);
        tir_module_destroy(sized[x]);
    }
}

/* Past this worst regret one plan does not serve the bucket (the split's
 * own threshold: a plan that far from a point's best is another plan).  A
 * bucket is cut only while its widest size spans a ratio of REFINE_SPAN
 * (each half then spans at least half of it), and a kernel takes at most
 * REFINE_CUTS such cuts: each new plan is one more compile, and the model's
 * regret between nearby sizes (block widths at a few tokens) is no reason
 * to pay it. */
#define REFINE_REGRET 1.25
enum { REFINE_SPAN = 4, REFINE_CUTS = 4 };

/* The size of b to cut: the one whose range spans the largest ratio
 * hi/lo, when that reaches REFINE_SPAN. */
static bool widest(const tir_func *f, const pipeline_bucket *b, uint32_t *s) {
    double best = 0;
    for (uint32_t i = 0; i < f->sym_count; i++) {
        double ratio = (double)b->hi[i] / (double)(b->lo[i] > 1 ? b->lo[i] : 1);
        if (b->hi[i] > b->lo[i] && ratio > best) best = ratio, *s = i;
    }
    return best >= REFINE_SPAN;
}

uint32_t pipeline_buckets_chosen(pipeline *p, const tilec_compile_options *po, pipeline_bucket *out) {
    uint32_t n = pipeline_buckets(p->f, &p->o, out), s = 0, cuts = 0;
    bool refine = !p->o.bucket_cuts_len; /* cuts the user gave stand as given */
    for (uint32_t i = 0; i < n;) {
        pipeline_bucket *b = &out[i];
        bucket_choose(p, po, b);
        double worst = b->choice.regret[b->choice.from];
        if (!refine || n == PIPELINE_MAX_BUCKETS || cuts == REFINE_CUTS || !isfinite(worst) || worst <= REFINE_REGRET ||
            !widest(p->f, b, &s)) {
            i++;
            continue;
        }
        cuts++;
        memmove(&out[i + 2], &out[i + 1], (n - i - 1) * sizeof *out); /* b in two at its middle */
        out[i + 1] = *b;
        int64_t at = b->at[s] < b->hi[s] ? b->at[s] : b->hi[s] - 1;
        b->hi[s] = at, out[i + 1].lo[s] = at + 1;
        b->at[s] = middle(b->lo[s], b->hi[s]), out[i + 1].at[s] = middle(out[i + 1].lo[s], out[i + 1].hi[s]);
        n++;
    }
    return n;
}

static tilec_status no_memory(tilec_context *ctx) {
    return tilec_error(ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory describing a kernel");
}

/* ---- a plan made at a bucket's sizes, for the kernel itself ---- */

/* The ops and values of a sized copy (by id) against the kernel's own: the
 * two have the same structure, op for op. */
typedef struct {
    const tir_op **ops;
    const tir_value **values;
} pairing;

static void pair_block(pairing *m, const tir_block *at, const tir_block *own) {
    for (uint32_t i = 0; i < at->arg_count && i < own->arg_count; i++) m->values[at->args[i]->id] = own->args[i];
    for (const tir_op *a = at->first, *o = own->first; a && o; a = a->next, o = o->next) {
        m->ops[a->id] = o;
        for (uint32_t i = 0; i < a->result_count && i < o->result_count; i++) m->values[a->results[i]->id] = o->results[i];
        if (a->body && o->body) pair_block(m, a->body, o->body);
        if (a->combine && o->combine) pair_block(m, a->combine, o->combine);
    }
}

/* A pack whose copy kernel can be made for the kernel itself: its
 * coordinates' domains are numbers but maybe the first's (the outermost,
 * which multiplies nothing in a tile's index), a runtime size's form when
 * `sized`.  *first: that extent. */
static bool pack_kept(const plan_pack *k, bool sized, uint64_t *first) {
    if (!sized && !tir_space_is_static(k->load->operands[0]->value->type->space)) return false;
    for (uint32_t i = 0; i < k->coord_count; i++) {
        const tir_value *c = k->coords[i];
        const tir_op *region = c->def_block ? c->def_block->parent_op : NULL;
        if (!region || !region->domain || c->index >= region->domain->rank) return false;
        uint64_t e = region->domain->axes[c->index].extent;
        if (tir_extent_is_symbolic(e) && (i || !sized)) return false;
        if (!i) *first = e;
    }
    return true;
}

/* A pack over a runtime size: its first extent the form, its panels'
 * bytes those at the sizes planned for (the scratch they start in; a
 * dispatch at other sizes computes its own and grows it, rt/program.c). */
static bool pack_sized(const pipeline *p, plan_pack *k, uint64_t first) {
    const tir_form *f = tir_extent_form(p->f->module, first);
    if (!f) return true;
    const int64_t *at = p->plan_at ? p->plan_at
                        : p->bucketed ? p->bucketed->buckets[p->bucketed->count - 1].at
                                      : NULL;
    int64_t top = f->lo;
    if (at && !tir_form_eval(f, at, &top)) return false;
    uint64_t rest = 1, tiles, bytes;
    for (uint32_t i = 1; i < k->coord_count; i++) rest *= k->extents[i];
    if (top < 1 || !checked_mul_u64((uint64_t)top, rest, &tiles) ||
        !checked_mul_u64(tiles, k->tile_elements * tir_scalar_size(k->elem) + 4 * (uint64_t)k->sums, &bytes))
        return false;
    k->extents[0] = first, k->instances = tiles, k->bytes = bytes;
    return true;
}

tilec_status pipeline_sized_plan(pipeline *p) {
    plan_packing *packing = &p->plan.packing;
    plan_split *split = &p->plan.split;
    const tir_func *at = tir_module_func(p->sized, 0);
    if (!packing->count && !packing->word_count && !split->reduce) return TILEC_OK;
    pairing m = {tilec_alloc(p->ctx, (at->next_op_id + 1) * sizeof *m.ops),
                 tilec_alloc(p->ctx, (at->next_value_id + 1) * sizeof *m.values)};
    bool ok = m.ops && m.values;
    if (ok) {
        memset(m.ops, 0, (at->next_op_id + 1) * sizeof *m.ops);
        memset(m.values, 0, (at->next_value_id + 1) * sizeof *m.values);
        pair_block(&m, at->body, p->f->body);
    }
    /* native code, objects and the XIR interpreter pack over a runtime size */
    bool sized = p->target == &PIPELINE_CPU || p->target == &PIPELINE_XIR;
    uint32_t kept = 0;
    for (uint32_t i = 0; ok && i < packing->count; i++) {
        plan_pack k = packing->packs[i];
        k.load = m.ops[k.load->id];
        bool paired = k.load != NULL;
        uint64_t first = 0;
        for (uint32_t c = 0; paired && c < k.coord_count; c++) paired = (k.coords[c] = m.values[k.coords[c]->id]) != NULL;
        if (paired && pack_kept(&k, sized, &first) && pack_sized(p, &k, first)) packing->packs[kept++] = k;
    }
    if (ok && kept < packing->count)
        snprintf(packing->why + strlen(packing->why), sizeof packing->why - strlen(packing->why),
                 "; %u of %u packs kept: the others' panels depend on a runtime size %s", kept, packing->count,
                 sized ? "other than their outermost tiles'" : "(this target packs static data only)");
    if (ok) packing->count = kept;
    kept = 0; /* words in place: an mma's two operands, kept together */
    for (uint32_t i = 0; ok && i + 1 < packing->word_count; i += 2) {
        const tir_op *a = m.ops[packing->words[i].load->id], *b = m.ops[packing->words[i + 1].load->id];
        if (!a || !b) continue;
        packing->words[kept] = packing->words[i], packing->words[kept++].load = a;
        packing->words[kept] = packing->words[i + 1], packing->words[kept++].load = b;
    }
    if (ok) packing->word_count = kept;
    if (ok && split->reduce) { /* the split's root and reduce: the kernel's own */
        split->root = m.ops[split->root->id];
        split->reduce = m.ops[split->reduce->id];
        ok = split->root && split->reduce;
    }
    tilec_free(p->ctx, m.ops);
    tilec_free(p->ctx, m.values);
    return ok ? TILEC_OK : no_memory(p->ctx);
}


tilec_status program_compile_buckets(pipeline *p, const tilec_compile_options *po) {
    tilec_kernel *k = p->k;
    tilec_compile_options o = p->o;
    o.runtime = k->runtime;
    o.threads = k->workers;
    o.width = p->width;
    /* the variants' pipelines, kept while later buckets compare with them
     * (on the heap: a pipeline holds plans, too much for a thread's stack) */
    pipeline *plans = tilec_alloc(p->ctx, PIPELINE_MAX_BUCKETS * sizeof *plans);
    /* a bucket of one point (a decode-like 1) is the kernel specialized
     * there: static code, like the kernel with its sizes pinned, shared
     * with no other bucket */
    tir_module *point[PIPELINE_MAX_BUCKETS] = {NULL};
    uint32_t made = 0;
    tilec_status st = plans ? TILEC_OK : no_memory(p->ctx);
    k->bucket_count = plans ? pipeline_buckets_chosen(p, po, k->buckets) : 0;
    for (uint32_t b = 0; !st && b < k->bucket_count; b++) {
        pipeline *c = &plans[made];
        bool one = pipeline_bucket_is_point(&k->buckets[b], p->f->sym_count);
        if (one && !(point[made] = tir_func_specialize(p->f, p->f->sym_count, k->buckets[b].lo))) {
            st = TILEC_E_SHAPE;
            break;
        }
        pipeline_init(c, p->ctx, one ? tir_module_func(point[made], 0) : p->f, &o, p->target, TILEC_STAGE_PLAN);
        c->make_kernel = true;
        c->aot = p->aot;
        c->modeled_workers = p->workers;
        c->plan_at = one ? NULL : k->buckets[b].at;
        c->bucket = one ? NULL : &k->buckets[b];
        if ((st = pipeline_run(c))) {
            pipeline_kernel_free(c->k);
            pipeline_free(c);
            break;
        }
        uint32_t v = 0;
        while (v < made && (one || point[v] || !same_plan(&plans[v].plan, &c->plan) ||
                            pipeline_sized_streams(&plans[v]) != pipeline_sized_streams(c)))
            v++;
        k->bucket_variant[b] = v;
        if (v < made) { /* an earlier bucket's plan: its variant serves this one too */
            pipeline_kernel_free(c->k);
            pipeline_free(c);
            continue;
        }
        st = pipeline_make(c, &k->variants[made]);
        k->variant_count = ++made;
        if (!st) { /* the stages summed over the variants */
            const tilec_compile_times *t = &k->variants[v]->times;
            k->times.plan += t->plan, k->times.lower += t->lower, k->times.llvm += t->llvm;
            k->times.jit += t->jit, k->times.optimize += t->optimize, k->times.codegen += t->codegen;
            k->times.total += t->total;
        }
    }
    for (uint32_t v = 0; v < PIPELINE_MAX_BUCKETS; v++) {
        if (v < made) pipeline_free(&plans[v]);
        tir_module_destroy(point[v]); /* the kernel borrows nothing from it */
    }
    tilec_free(p->ctx, plans);
    if (st) return st;
    /* the kernel checks and describes as its largest bucket's variant */
    const tilec_kernel *main = k->variants[k->bucket_variant[k->bucket_count - 1]];
    uint32_t n = main->prog.user_args;
    if (!(k->params = tilec_alloc(p->ctx, (n ? n : 1) * sizeof *k->params))) return no_memory(p->ctx);
    memcpy(k->params, main->params, n * sizeof *k->params);
    k->prog = (rt_program){.desc = main->prog.desc, .user_args = n, .dim_count = main->prog.dim_count};
    k->prog.desc.name = strbuf_cstr(&k->name);
    k->prog.desc.params = k->params;
    k->arg_bytes = main->arg_bytes;
    k->times.verify = main->times.verify;
    for (uint32_t b = 0; b < k->bucket_count; b++) {
        const pipeline_bucket *bk = &k->buckets[b];
        if (b) strbuf_append(&k->plan, " | ");
        for (uint32_t s = 0; s < p->f->sym_count; s++)
            strbuf_printf(&k->plan, "%s%s=%lld..%lld", s ? "," : "", p->f->syms[s]->name, (long long)bk->lo[s],
                          (long long)bk->hi[s]);
        strbuf_printf(&k->plan, ":%s", strbuf_cstr(&k->variants[k->bucket_variant[b]]->plan));
    }
    strbuf_append(&k->plan_realization, strbuf_cstr(&main->plan_realization));
    return k->plan.failed || k->plan_realization.failed ? no_memory(p->ctx) : TILEC_OK;
}

int pipeline_bucket_at(const tilec_kernel *k, const int64_t *dims) {
    for (uint32_t b = 0; b < k->bucket_count; b++)
        if (rt_dims_within(k->buckets[b].lo, k->buckets[b].hi, k->dim_count, dims)) return (int)b;
    return -1; /* outside every bucket: outside the sizes' ranges, which the buckets cover */
}

const tilec_kernel *pipeline_bucket_variant(const tilec_kernel *k, const int64_t *dims) {
    int b = pipeline_bucket_at(k, dims);
    return b < 0 ? NULL : k->variants[k->bucket_variant[b]];
}
