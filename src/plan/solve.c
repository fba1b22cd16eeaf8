/* solve.c — the exact finite solver (see solve.h).  plan_kernel reads as the
 * pipeline: validate options → target → task-grain support → local widths →
 * admission → fixed root constraints → cost policy and coefficients → block
 * widths → count the space against the budget → enumerate → select.
 *
 * The representation plan and its static resources do not depend on the
 * root order, block width or task grain, so they are computed once per local
 * width (lazily, at the first candidate that reaches resource analysis) and
 * shared; work is extracted once per root order and local width. */
#include "plan/solve.h"

#include "base/checked.h"
#include "base/permutation.h"
#include "plan/work.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *plan_reject_stage_name(plan_reject_stage stage) {
    static const char *const names[] = {
#define X(e, name) [PLAN_REJECT_##e] = name,
        PLAN_REJECT_STAGES(X)
#undef X
    };
    return (unsigned)stage < sizeof names / sizeof names[0] ? names[stage] : "?";
}

enum { MAX_BLOCK = 1024, MAX_PACKET = 1024, MAX_GRAINS = 70 };

/* What one local width shares between its candidates. */
typedef struct {
    bool analyzed;
    tilec_status status;
    const char *error;
    plan_repr repr;
    plan_resources resources;
    bool have_work; /* for the current root order */
    plan_work work;
} width_analysis;

typedef struct {
    tilec_context *ctx;
    const tir_func *f;
    const tilec_compile_options *o;
    const plan_target_info *info;
    plan_result *out;
    plan_admission admission;
    const plan_cost_policy *policy;
    uint32_t locals[2];
    size_t local_count;
    plan_local local; /* the packet-local admission, when a local width is enumerated */
    const tir_op *branch; /* an if whose body emits a loop (plan_branch_with_loop) */
    uint32_t blocks[MAX_BLOCK];
    size_t block_count;
    width_analysis per_width[2][PLAN_FUSION_LEVELS]; /* by index into locals, then fusion level */
    bool variants[PLAN_FUSION_LEVELS];               /* the fusion levels priced (plan_candidate.fused) */
} solver;

static uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

static tilec_status nomem(solver *s) {
    return tilec_error(s->ctx, TILEC_E_NOMEM, "PLAN-M01", tilec_no_loc(), "out of memory planning kernel '@%s'",
                       s->f && s->f->name ? s->f->name : "?");
}

/* ---- target and option checks ---- */

static bool is_pow2(uint32_t x) { return x && !(x & (x - 1)); }

static tilec_status check_target(solver *s) {
    const plan_target_info *info = s->info;
    plan_result *out = s->out;
    if (!info || !info->target || !info->block_sizes)
        return tilec_error(s->ctx, TILEC_E_ARG, "PLAN-T01", tilec_no_loc(),
                           "invalid XIR target: the target info needs target() and block_sizes() hooks");
    if (!(out->target_name = arena_strdup(&out->arena, info->name ? info->name : "unnamed"))) return nomem(s);
    out->target = info->target(info);
    out->task_grain = info->supports_task_grain && info->supports_task_grain(info);
    const plan_target *t = &out->target;
    if (!is_pow2(t->packet_width) || t->packet_width > MAX_PACKET)
        return tilec_error(s->ctx, TILEC_E_ARG, "PLAN-T01", tilec_no_loc(),
                           "invalid XIR target '%s': packet width %u is not a power of two in 1..%d", out->target_name,
                           t->packet_width, MAX_PACKET);
    if (out->task_grain && (t->worker_count == 0 || t->task_chunks_per_worker == 0))
        return tilec_error(s->ctx, TILEC_E_ARG, "PLAN-T01", tilec_no_loc(),
                           "invalid XIR target '%s': a task-grain target needs at least one worker and one task chunk "
                           "per worker (got %u workers, %u chunks)",
                           out->target_name, t->worker_count, t->task_chunks_per_worker);
    if ((s->o->search_task_grain || s->o->blocks_per_task) && !out->task_grain)
        return tilec_error(s->ctx, TILEC_E_ARG, "PLAN-O05", tilec_no_loc(),
                           "task-grain options (search_task_grain, blocks_per_task) need a target with CPU task grains; "
                           "target '%s' has none",
                           out->target_name);
    return TILEC_OK;
}

/* local_lanes: 1, W (forced: W only) or 0 (search {1, W}).  A W of 1 is
 * one program per lane. */
static tilec_status local_widths(solver *s) {
    uint32_t W = s->out->target.packet_width, L = s->o->local_lanes;
    bool supported = !s->info->supports_local_distribution || s->info->supports_local_distribution(s->info);
    s->locals[0] = 1;
    s->local_count = 1;
    if (L == 1 || W == 1 || (L == 0 && !supported)) return TILEC_OK;
    if (L == 0) {
        s->locals[s->local_count++] = W;
        return TILEC_OK;
    }
    if (L != W)
        return tilec_error(s->ctx, TILEC_E_ARG, "PLAN-O04", tilec_no_loc(),
                           "local_lanes %u is not 0 (search), 1 (one program per lane) or the packet width %u", L, W);
    if (!supported)
        return tilec_error(s->ctx, TILEC_E_UNSUPPORTED, "PLAN-O04", tilec_no_loc(),
                           "local-axis distribution (local_lanes=%u) is not supported by target '%s'", L,
                           s->out->target_name);
    s->locals[0] = W;
    return TILEC_OK;
}

/* The packet-local admission (realize/local.h) when W is enumerated: a forced
 * W on a kernel it refuses is an error with the reason; a searched W is
 * rejected candidate by candidate with it. */
static tilec_status local_admission(solver *s) {
    uint32_t W = s->out->target.packet_width;
    if (s->locals[s->local_count - 1] == 1) return TILEC_OK;
    bool admitted = plan_local_admit(s->f, &s->admission, W, &s->local);
    if (admitted && s->local.dim_count) {
        const plan_local_dim *d = &s->local.dims[0];
        if (!(s->out->local_axis = arena_strdup(&s->out->arena, d->dim->label))) return nomem(s);
        s->out->local_extent = d->extent;
        s->out->local_slots = d->slots;
        for (uint32_t i = 0; i < s->local.dim_count; i++)
            if (s->local.dims[i].extent > s->out->local_widest) s->out->local_widest = s->local.dims[i].extent;
        char axes[256] = "";
        for (uint32_t i = 1; i < s->local.dim_count; i++) {
            size_t n = strlen(axes);
            snprintf(axes + n, sizeof axes - n, "%s%s=%llu", i > 1 ? "," : "", s->local.dims[i].dim->label,
                     (unsigned long long)s->local.dims[i].extent);
        }
        if (axes[0] && !(s->out->local_contraction_axes = arena_strdup(&s->out->arena, axes))) return nomem(s);
        if (s->local.passed_over[0] &&
            !(s->out->local_passed_over = arena_strdup(&s->out->arena, s->local.passed_over)))
            return nomem(s);
    }
    if (admitted || s->o->local_lanes == 0) return TILEC_OK;
    return tilec_error(s->ctx, TILEC_E_UNSUPPORTED, "PLAN-O04", tilec_no_loc(),
                       "local-axis distribution (local_lanes=%u) cannot realize kernel '@%s': %s", W, s->f->name,
                       s->local.why);
}

static bool legal_block(uint32_t b, uint32_t W) { return b >= 1 && b <= MAX_BLOCK && b % W == 0; }

/* A pinned width is checked; proposals are sorted, deduplicated and filtered. */
static tilec_status block_widths(solver *s) {
    uint32_t W = s->out->target.packet_width;
    if (s->o->block_size) {
        if (!legal_block(s->o->block_size, W))
            return tilec_error(s->ctx, TILEC_E_ARG, "PLAN-O06", tilec_no_loc(),
                               "block width %u is invalid: it must be in 1..%d and a multiple of the packet width %u",
                               s->o->block_size, MAX_BLOCK, W);
        s->blocks[0] = s->o->block_size;
        s->block_count = 1;
        return TILEC_OK;
    }
    size_t n = 0;
    const uint32_t *proposals = s->info->block_sizes(s->info, &n);
    bool legal[MAX_BLOCK + 1] = {false};
    for (size_t i = 0; proposals && i < n; i++)
        if (legal_block(proposals[i], W)) legal[proposals[i]] = true;
    s->block_count = 0;
    for (uint32_t b = 1; b <= MAX_BLOCK; b++)
        if (legal[b]) s->blocks[s->block_count++] = b;
    if (!s->block_count)
        return tilec_error(s->ctx, TILEC_E_ARG, "PLAN-T02", tilec_no_loc(),
                           "target '%s' proposes no legal block widths for packet width %u (a block width must be in "
                           "1..%d and a multiple of W)",
                           s->out->target_name, W, MAX_BLOCK);
    return TILEC_OK;
}

/* A fixed root order and root tiles share their validation with the
 * lowering (plan_root_map_check), before any hook or cost call. */
static tilec_status root_constraints(solver *s) {
    const tilec_compile_options *o = s->o;
    return plan_root_map_check(s->ctx, s->admission.domain, o->root_axis_order, o->root_axis_order_len,
                               o->root_axis_tiles, o->root_axis_tiles_len);
}

static tilec_status choose_policy(solver *s) {
    plan_result *out = s->out;
    s->policy = s->info->policy ? s->info->policy : s->info->cost_policy ? s->info->cost_policy(s->info) : NULL;
    out->custom_policy = s->policy != NULL;
    out->policy = arena_strdup(&out->arena, s->policy ? (s->policy->name ? s->policy->name : "unnamed") : "analytic");
    if (!out->policy) return nomem(s);
    out->coefficients = s->o->cost;
    if (!s->policy || !s->policy->coefficients) return TILEC_OK;
    s->policy->coefficients(s->policy, &out->target, &s->o->cost, &out->coefficients);
    char source[160];
    snprintf(source, sizeof source, "cost policy '%s'", out->policy);
    return plan_coefficients_validate(s->ctx, &out->coefficients, source);
}

/* ---- the declared space ---- */

/* Task grains for L blocks: the target heuristic (0) unless fixed or
 * searched; the search takes powers of two up to L, the legacy grain and
 * the whole launch, ascending and distinct. */
static size_t grains(const solver *s, uint64_t L, uint64_t *out) {
    const tilec_compile_options *o = s->o;
    if (o->blocks_per_task) {
        out[0] = o->blocks_per_task;
        return 1;
    }
    if (!o->search_task_grain) {
        out[0] = 0;
        return 1;
    }
    const plan_target *t = &s->out->target;
    uint64_t legacy = ceil_div(L, (uint64_t)t->worker_count * t->task_chunks_per_worker), n = 0;
    for (uint64_t p = 1; p <= L; p *= 2) out[n++] = p;
    uint64_t extra[2] = {legacy ? legacy : 1, L};
    for (int e = 0; e < 2; e++) {
        size_t at = 0;
        while (at < n && out[at] < extra[e]) at++;
        if (at < n && out[at] == extra[e]) continue;
        memmove(out + at + 1, out + at, (n - at) * sizeof *out);
        out[at] = extra[e];
        n++;
    }
    return n;
}

static tilec_status check_budget(solver *s) {
    plan_result *out = s->out;
    uint32_t rank = s->admission.domain->rank;
    uint64_t orders = 1;
    if (!s->o->root_axis_order_len)
        for (uint32_t k = 2; k <= rank; k++) orders = saturated_mul_u64(orders, k);
    out->root_orders = orders;
    out->block_widths = s->block_count;
    out->local_widths = s->local_count;
    uint64_t per_order = 0, grain_list[MAX_GRAINS];
    for (size_t l = 0; l < s->local_count; l++)
        for (size_t b = 0; b < s->block_count; b++) {
            uint64_t dispatch = (uint64_t)s->admission.volume * s->locals[l];
            per_order = saturated_add_u64(per_order, grains(s, ceil_div(dispatch, s->blocks[b]), grain_list));
        }
    uint64_t total = saturated_mul_u64(orders, per_order);
    if (total <= s->o->max_candidates) return TILEC_OK;
    char count[32];
    snprintf(count, sizeof count, total == UINT64_MAX ? "more than %llu" : "%llu", (unsigned long long)total);
    return tilec_error(s->ctx, TILEC_E_BUDGET, "PLAN-B01", tilec_no_loc(),
                       "candidate budget: the search space of kernel '@%s' has %s candidates (%llu root orders × %zu "
                       "block widths × %zu local widths × task grains), which exceeds max_candidates %llu; fix the "
                       "root order, the block size, local_lanes or the task grain to narrow it",
                       s->f->name, count, (unsigned long long)orders, s->block_count, s->local_count,
                       (unsigned long long)s->o->max_candidates);
}

/* ---- one candidate ---- */

static tilec_status reject(solver *s, const plan_candidate *c, plan_reject_stage stage, const plan_rejection *facts,
                           const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static tilec_status reject(solver *s, const plan_candidate *c, plan_reject_stage stage, const plan_rejection *facts,
                           const char *fmt, ...) {
    char reason[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    plan_rejection r = facts ? *facts : (plan_rejection){0};
    r.candidate = *c;
    r.stage = stage;
    r.reason = arena_strdup(&s->out->arena, reason);
    if (!r.reason || !VEC_PUSH(s->ctx, &s->out->rejected, r)) return nomem(s);
    return TILEC_OK;
}

/* The representation plan and static resources of local width l at
 * fusion level `fused`, once. */
static void analyze(solver *s, size_t l, uint32_t fused) {
    width_analysis *a = &s->per_width[l][fused];
    if (a->analyzed) return;
    a->analyzed = true;
    const tilec_compile_options *o = s->o;
    plan_repr_options ro = {.record = o,
                            .max_unrolled_region_work = PLAN_MAX_UNROLLED_REGION_WORK,
                            .max_recipe_depth = PLAN_MAX_RECIPE_DEPTH,
                            .local = s->locals[l] > 1 ? &s->local : NULL};
    plan_repr_set_fusion(&ro, fused);
    size_t before = tilec_diag_count(s->ctx);
    a->status = plan_represent(s->ctx, s->f, &s->admission, &ro, &a->repr);
    if (!a->status) {
        a->status = plan_resources_of(&a->repr, &a->resources);
        if (a->status) plan_repr_free(&a->repr);
    }
    if (a->status) {
        size_t n = tilec_diag_count(s->ctx);
        a->error = n > before ? tilec_diag_at(s->ctx, n - 1)->message : tilec_status_name(a->status);
        a->error = arena_strdup(&s->out->arena, a->error);
        if (!a->error) a->status = TILEC_E_NOMEM;
    }
}

static bool cost_valid(const plan_cost *c, const char **bad, double *value) {
#define X(term) \
    if (!isfinite(c->term) || c->term < 0) { \
        *bad = #term; \
        *value = c->term; \
        return false; \
    }
    PLAN_COST_TERMS(X)
#undef X
    return true;
}

/* Scores candidate c (with c->fused) into *choice, setting *scored; a
 * failure is recorded as a rejection. */
static tilec_status score(solver *s, const plan_candidate *c, size_t l, const plan_root_map *map, plan_choice *choice,
                          bool *scored) {
    plan_result *out = s->out;
    const plan_target_info *info = s->info;
    width_analysis *a = &s->per_width[l][c->fused];
    *scored = false;
    analyze(s, l, c->fused);
    if (a->status == TILEC_E_NOMEM) return nomem(s);
    if (a->status)
        return reject(s, c, PLAN_REJECT_ANALYSIS, NULL, "static resource analysis failed: %s", a->error);
    plan_rejection facts = {.analyzed = true, .resources = a->resources};
    facts.limits = info->resource_limits ? info->resource_limits(info, c, &a->resources)
                                         : (plan_resource_limits){PLAN_DEFAULT_SNAPSHOT_BUDGET};
    if (a->resources.snapshot_bytes_per_worker > facts.limits.max_snapshot_bytes_per_worker)
        return reject(s, c, PLAN_REJECT_BUDGET, &facts,
                      "snapshot storage budget: the static snapshot demand of %llu bytes per worker (%llu "
                      "arrays) exceeds the target's budget of %llu bytes",
                      (unsigned long long)a->resources.snapshot_bytes_per_worker,
                      (unsigned long long)a->resources.snapshot_allocations,
                      (unsigned long long)facts.limits.max_snapshot_bytes_per_worker);
    if (!a->have_work) {
        tilec_status st =
            plan_extract_work(&a->repr, map, &out->target, &out->coefficients, &a->work);
        if (st) return st;
        a->have_work = true;
    }
    plan_work work = a->work;
    const uint64_t caches[PLAN_CACHE_LEVELS] = {out->target.l1d_bytes, out->target.l2_bytes, out->target.l3_bytes};
    plan_cache_lines(&out->accesses, map, caches, work.cache_lines);
    work.packet_count = ceil_div(c->dispatch_size, c->packet_width);
    work.block_count = ceil_div(c->dispatch_size, c->block_size);
    if (info->schedule) info->schedule(info, &out->target, c, &work);
    else plan_schedule_single_wave(&work);
    plan_cost cost = s->policy && s->policy->evaluate
                         ? s->policy->evaluate(s->policy, &out->target, c, &work, &out->coefficients)
                         : plan_cost_analytic(&work, &out->coefficients);
    const char *bad;
    double value;
    if (!cost_valid(&cost, &bad, &value)) {
        facts.scored = true;
        facts.work = work;
        facts.cost = cost;
        return reject(s, c, PLAN_REJECT_COST, &facts,
                      "cost policy '%s' returned %s = %g; every cost term and the score must be finite and "
                      ">= 0",
                      out->policy, bad, value);
    }
    *choice = (plan_choice){*c, work, cost, a->resources, facts.limits};
    *scored = true;
    return TILEC_OK;
}

/* Whether fusion level v's representation of local width l differs from
 * level v − 1's (else pricing it again would only repeat it). */
static bool fusion_changes(solver *s, size_t l, uint32_t v) {
    analyze(s, l, v);
    const width_analysis *a = &s->per_width[l][v];
    if (a->status) return true;
    if (v == 1) return a->repr.streamed_loads || a->repr.recomputed_values;
    analyze(s, l, v - 1);
    const width_analysis *b = &s->per_width[l][v - 1];
    return b->status || a->repr.recomputed_values != b->repr.recomputed_values;
}

/* A candidate is scored with each fusion level up to 1; the cheapest that
 * passes is kept (the lower level on a tie).  Level 2 (costly values
 * recomputed: more arithmetic for less private storage) is scored only
 * when no lower level passes, so it replaces a refusal and nothing else.
 * A rejection is recorded only when no level passes (the last one's
 * reason). */
static tilec_status consider(solver *s, const plan_candidate *c, size_t l, const plan_root_map *map) {
    plan_result *out = s->out;
    const plan_target_info *info = s->info;
    if (c->local_lanes <= 1 && out->target.packet_width > 1 && s->branch &&
        !(info->supports_divergent_loops && info->supports_divergent_loops(info)))
        return reject(s, c, PLAN_REJECT_BRANCH, NULL,
                      "one program per lane: the condition of 'if' op #%u may differ between the lanes and its body "
                      "has a loop (the SIMD backend predicates only loop-free branches)",
                      s->branch->id);
    if (c->local_lanes > 1 && s->local.refusal)
        return reject(s, c, PLAN_REJECT_LOCAL, NULL, "local-axis distribution (local_lanes=%u) cannot realize it: %s",
                      c->local_lanes, s->local.why);
    if (info->accepts) {
        char why[256] = "";
        if (!info->accepts(info, c, why, sizeof why))
            return reject(s, c, PLAN_REJECT_ACCEPTS, NULL, "target '%s' does not accept this geometry%s%s",
                          out->target_name, why[0] ? ": " : "", why);
    }
    plan_choice best, choice;
    bool have = false, tried = false;
    size_t mark = out->rejected.len; /* each level's rejection; only the last one's is kept */
    for (uint32_t v = 0; v < PLAN_FUSION_LEVELS; v++) {
        if (!s->variants[v] || (v == 2 && have)) continue;
        if (v > 0 && tried && !fusion_changes(s, l, v)) continue;
        plan_candidate variant = *c;
        variant.fused = v;
        tried = true;
        bool scored;
        tilec_status st = score(s, &variant, l, map, &choice, &scored);
        if (st) return st;
        if (scored && (!have || choice.cost.score < best.cost.score)) best = choice, have = true;
    }
    if (!have) {
        if (out->rejected.len > mark + 1) out->rejected.data[mark] = out->rejected.data[out->rejected.len - 1];
        out->rejected.len = out->rejected.len > mark ? mark + 1 : mark;
        return TILEC_OK;
    }
    out->rejected.len = mark;
    return VEC_PUSH(s->ctx, &out->candidates, best) ? TILEC_OK : nomem(s);
}

/* The canonical root maps enumerated so far. */
typedef VEC(plan_root_map) map_set;

/* Whether `map` is new to *seen: then it is kept and the cached work of
 * every width and fusion level (which follows the map) is dropped; a repeat
 * is counted in duplicate_orders.  Allocation failure: false, *st NOMEM. */
static bool new_map(solver *s, map_set *seen, const plan_root_map *map, tilec_status *st) {
    for (size_t i = 0; i < seen->len; i++)
        if (plan_root_map_same(&seen->data[i], map)) {
            s->out->duplicate_orders++;
            return false;
        }
    if (!VEC_PUSH(s->ctx, seen, *map)) {
        *st = nomem(s);
        return false;
    }
    for (size_t l = 0; l < s->local_count; l++)
        for (size_t v = 0; v < PLAN_FUSION_LEVELS; v++) s->per_width[l][v].have_work = false;
    return true;
}

/* Every root order is a candidate map, except one whose canonical map an
 * earlier order already has (orders that differ only in unit axes, or in
 * axes a tiling makes equivalent, run the same programs in the same
 * sequence): it is skipped and counted (plan_result.duplicate_orders). */
static tilec_status enumerate(solver *s) {
    uint32_t rank = s->admission.domain->rank, order[PLAN_MAX_RANK];
    bool fixed = s->o->root_axis_order_len != 0;
    for (uint32_t t = 0; t < rank; t++) order[t] = fixed ? s->o->root_axis_order[t] : t;
    uint32_t index = 0;
    tilec_status st = TILEC_OK;
    map_set seen = {0};
    do {
        plan_root_map map;
        if ((st = plan_root_map_make(s->ctx, s->admission.domain, order, rank, s->o->root_axis_tiles,
                                     s->o->root_axis_tiles_len, &map)))
            break;
        if (!new_map(s, &seen, &map, &st)) continue;
        for (size_t l = 0; l < s->local_count; l++)
            for (size_t b = 0; b < s->block_count; b++) {
                plan_candidate c = {.rank = rank,
                                    .block_size = s->blocks[b],
                                    .local_lanes = s->locals[l],
                                    .packet_width = s->out->target.packet_width,
                                    .programs = s->admission.volume,
                                    .tiled = s->o->root_axis_tiles_len != 0};
                memcpy(c.order, order, sizeof order[0] * rank);
                if (c.tiled) memcpy(c.tiles, s->o->root_axis_tiles, sizeof c.tiles[0] * rank);
                c.dispatch_size = c.programs * c.local_lanes;
                uint64_t list[MAX_GRAINS];
                size_t n = grains(s, ceil_div(c.dispatch_size, c.block_size), list);
                for (size_t g = 0; g < n && !st; g++) {
                    c.blocks_per_task = list[g];
                    c.index = index++;
                    st = consider(s, &c, l, &map);
                }
            }
    } while (!st && !fixed && permutation_next(order, rank));
    VEC_FREE(s->ctx, &seen);
    return st;
}

enum { MAX_TILE_FACTORS = 4, MAX_TILINGS = 64 };

/* Tile factors tried on a root axis of `extent`: powers of two from 2 that
 * divide it and leave at least 2 tiles, at most MAX_TILE_FACTORS of them
 * spread evenly over that range in log scale (always the smallest, 2, which
 * pairs neighbours sharing cache lines, and the largest, which blocks for a
 * cache level), then 1 (untiled). */
static uint32_t tile_factors(uint64_t extent, uint32_t *out) {
    uint32_t n = 0, f[32];
    for (uint64_t t = 2; t * 2 <= extent && n < 32; t *= 2)
        if (extent % t == 0) f[n++] = (uint32_t)t;
    uint32_t k = 0;
    if (n <= MAX_TILE_FACTORS)
        for (uint32_t i = 0; i < n; i++) out[k++] = f[i];
    else
        for (uint32_t i = 0; i < MAX_TILE_FACTORS; i++) out[k++] = f[(i * (n - 1) + (MAX_TILE_FACTORS - 1) / 2) / (MAX_TILE_FACTORS - 1)];
    out[k++] = 1;
    return k;
}

/* Automatic root tiling (docs/planner.md "Automatic root tiling"): around the best plan of the order
 * search, its root order with every combination of tile factors (at most
 * MAX_TILINGS, within the candidate budget), the other settings kept.  A
 * tiling whose canonical map equals the untiled order's or an earlier
 * tiling's is skipped (duplicate_orders counts it).  The cache term is what
 * can make a tiling win; its decode arithmetic is what it costs. */
static tilec_status search_tilings(solver *s) {
    plan_result *out = s->out;
    const plan_choice *best = plan_selected(out);
    uint32_t rank = best->candidate.rank;
    if (!s->o->search_tiles || s->o->root_axis_tiles_len || rank < 2 || rank > 8) return TILEC_OK;
    uint32_t factors[8][MAX_TILE_FACTORS + 1], counts[8], digit[8] = {0};
    uint64_t combos = 1;
    for (uint32_t a = 0; a < rank; a++) {
        counts[a] = tile_factors(s->admission.domain->axes[a].extent, factors[a]);
        combos *= counts[a];
    }
    plan_candidate base = best->candidate;
    size_t l = s->locals[0] == base.local_lanes ? 0 : 1;
    uint64_t room = s->o->max_candidates > out->candidate_count ? s->o->max_candidates - out->candidate_count : 0;
    map_set seen = {0};
    plan_root_map plain;
    tilec_status st = plan_root_map_make(s->ctx, s->admission.domain, base.order, rank, NULL, 0, &plain);
    if (!st) new_map(s, &seen, &plain, &st);
    uint32_t index = (uint32_t)out->candidate_count;
    for (uint64_t n = 0; !st && n < combos && n < MAX_TILINGS && room; n++) {
        plan_candidate c = base;
        c.tiled = true;
        for (uint32_t a = 0; a < rank; a++) c.tiles[a] = factors[a][digit[a]];
        for (uint32_t a = 0; a < rank && ++digit[a] == counts[a]; a++) digit[a] = 0;
        plan_root_map map;
        if ((st = plan_root_map_make(s->ctx, s->admission.domain, c.order, rank, c.tiles, rank, &map))) break;
        if (!new_map(s, &seen, &map, &st)) continue;
        c.index = index++;
        room--;
        out->tilings++;
        st = consider(s, &c, l, &map);
    }
    VEC_FREE(s->ctx, &seen);
    out->candidate_count = out->candidates.len + out->rejected.len;
    return st;
}

static tilec_status select_minimum(solver *s) {
    plan_result *out = s->out;
    out->candidate_count = out->candidates.len + out->rejected.len;
    if (!out->candidates.len) {
        const plan_rejection *first = out->rejected.len ? &out->rejected.data[0] : NULL;
        return tilec_error(s->ctx, TILEC_E_UNSUPPORTED, "PLAN-S01", tilec_no_loc(),
                           "the planner rejected every candidate of kernel '@%s' (%llu enumerated)%s%s",
                           s->f->name, (unsigned long long)out->candidate_count,
                           first ? "; the first because: " : "", first ? first->reason : "");
    }
    size_t best = 0;
    for (size_t i = 1; i < out->candidates.len; i++)
        if (plan_choice_before(&out->candidates.data[i], &out->candidates.data[best])) best = i;
    out->selected = best;
    out->ok = true;
    return TILEC_OK;
}

/* Packing is decided once, for the selected plan (plan/pack.h). */
static void decide_packing(solver *s) {
    const plan_candidate *c = &plan_selected(s->out)->candidate;
    size_t l = s->locals[0] == c->local_lanes ? 0 : 1;
    plan_pack_decide(s->f, &s->admission, c->local_lanes > 1 ? &s->local : NULL, c->order, s->o->pack,
                     s->out->target.l2_bytes, s->out->target.dots & ~(s->o->fused_mma ? 0u : (uint32_t)PLAN_DOT_BF16),
                     &s->per_width[l][c->fused].repr, &s->out->packing);
}

static tilec_status copy_options(solver *s) {
    plan_result *out = s->out;
    out->options = *s->o;
    out->options.runtime = NULL;  /* borrowed only while planning, and no planner's business */
    out->options.gpu_arch = NULL;
    if (out->options.split_chunks) out->options.split = TILEC_SPLIT_ON; /* a count implies on: reports say so */
    if (s->o->root_axis_order_len &&
        !(out->options.root_axis_order =
              arena_memdup(&out->arena, s->o->root_axis_order, sizeof(uint32_t) * s->o->root_axis_order_len)))
        return nomem(s);
    if (s->o->root_axis_tiles_len &&
        !(out->options.root_axis_tiles =
              arena_memdup(&out->arena, s->o->root_axis_tiles, sizeof(uint32_t) * s->o->root_axis_tiles_len)))
        return nomem(s);
    return TILEC_OK;
}

/* The split decision for the selected plan's workers.  A chunk count the
 * split reduce cannot take is the caller's error (PLAN-O12), not a quiet
 * "no split": the count was asked for. */
static tilec_status decide_split(solver *s) {
    plan_split *split = &s->out->split;
    plan_split_decide(s->f, s->o->split, s->o->split_chunks, s->out->target.worker_count, split);
    return split->bad_chunks
               ? tilec_error(s->ctx, TILEC_E_ARG, "PLAN-O12", tilec_no_loc(), "split_chunks %u: %s", s->o->split_chunks,
                             split->why)
               : TILEC_OK;
}

tilec_status plan_kernel(tilec_context *ctx, const tir_func *f, const tilec_compile_options *options,
                         const plan_target_info *info, plan_result *out) {
    if (!ctx || !out) return TILEC_E_ARG;
    memset(out, 0, sizeof *out);
    out->ctx = ctx;
    arena_init(&out->arena, ctx);
    tilec_compile_options defaults = tilec_compile_options_default();
    solver s = {.ctx = ctx, .f = f, .o = options ? options : &defaults, .info = info, .out = out};
    out->kernel = arena_strdup(&out->arena, f && f->name ? f->name : "?");

    s.variants[0] = s.o->fuse != TILEC_FUSE_ON;
    s.variants[1] = s.variants[2] = s.o->fuse != TILEC_FUSE_OFF;
    tilec_status st = out->kernel ? plan_options_validate(ctx, s.o) : nomem(&s);
    if (!st) st = copy_options(&s);
    if (!st) st = check_target(&s);
    if (!st) st = local_widths(&s);
    if (!st) st = plan_admit(ctx, f, &s.admission);
    if (!st) st = plan_access_summarize(ctx, &s.admission, &out->arena, &out->accesses);
    if (!st) st = plan_footprints_of(ctx, &s.admission, &out->accesses, &out->arena, &out->footprints);
    if (!st) st = local_admission(&s);
    if (!st) s.branch = plan_branch_with_loop(f, s.o->max_unrolled_tile_elements);
    if (!st) st = root_constraints(&s);
    if (!st) st = choose_policy(&s);
    if (!st) st = block_widths(&s);
    if (!st) st = check_budget(&s);
    if (!st) st = enumerate(&s);
    if (!st) st = select_minimum(&s);
    if (!st) st = search_tilings(&s);
    if (!st) st = select_minimum(&s);
    if (!st) decide_packing(&s);
    if (!st) st = decide_split(&s);
    else out->candidate_count = out->candidates.len + out->rejected.len;
    for (size_t l = 0; l < 2; l++)
        for (size_t v = 0; v < PLAN_FUSION_LEVELS; v++)
            if (s.per_width[l][v].analyzed && !s.per_width[l][v].status) plan_repr_free(&s.per_width[l][v].repr);
    return st;
}

void plan_result_free(plan_result *r) {
    if (!r || !r->ctx) return;
    VEC_FREE(r->ctx, &r->candidates);
    VEC_FREE(r->ctx, &r->rejected);
    arena_destroy(&r->arena);
    memset(r, 0, sizeof *r);
}
