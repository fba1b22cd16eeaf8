/* split.c — whether and how a mergeable reduce is split across programs
 * (split.h).  The partial and combine kernels are rewrite/split.c's. */
#include "plan/split.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static bool say(plan_split *s, bool split, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool say(plan_split *s, bool split, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->why, sizeof s->why, fmt, ap);
    va_end(ap);
    if (!split) s->reduce = NULL;
    return split;
}

static uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

/* The modeled makespan in reduce trips (the unit every term shares): the
 * partial programs spread over the workers, then per program the S − 1
 * merges (each priced as one trip) and the r = n − S·C trips past the
 * chunks' (`spread`: one more in each of the first r chunks, else the
 * combine's tail), plus a second dispatch (four trips).  S = 1 is the
 * unsplit kernel. */
static double makespan(uint64_t P, uint64_t n, uint64_t S, uint32_t workers, bool spread) {
    if (S == 1) return (double)(ceil_div(P, workers) * n);
    uint64_t C = n / S, r = n - S * C;
    return (double)(ceil_div(P * S, workers) * (C + (spread && r))) +
           (double)(ceil_div(P, workers) * (S - 1 + (spread ? 0 : r))) + 4.0;
}

double plan_split_gain(uint64_t programs, uint64_t trips, uint32_t chunks, uint32_t workers, bool spread) {
    if (!workers) workers = 1;
    return makespan(programs, trips, 1, workers, spread) / makespan(programs, trips, chunks ? chunks : 1, workers, spread);
}

bool plan_split_decide(const tir_func *f, tilec_split mode, uint32_t chunks, uint32_t workers, plan_split *out) {
    memset(out, 0, sizeof *out);
    if (chunks) mode = TILEC_SPLIT_ON;
    if (mode == TILEC_SPLIT_OFF) return say(out, false, "off");
    const tir_op *root = NULL;
    for (const tir_op *o = f->body->first; o; o = o->next)
        if (o->kind == TIR_OP_PARALLEL) {
            if (root) return say(out, false, "not one root parallel");
            root = o;
        }
    if (!root || !tir_space_volume(root->domain, &out->programs) || !out->programs || out->programs > UINT32_MAX)
        return say(out, false, "no root parallel over 1..2^32-1 programs");
    out->root = root;
    const tir_op *reduce = root->body->first;
    while (reduce && !(reduce->kind == TIR_OP_REDUCE && reduce->combine)) reduce = reduce->next;
    if (!reduce) return say(out, false, "no reduce with a combine block directly in the root program");
    for (const tir_op *o = root->body->first; o != reduce; o = o->next) {
        const tir_op *st = plan_find_store(o);
        if (st) return say(out, false, "a store (op #%u) precedes the reduce (op #%u): chunks would repeat it", st->id,
                           reduce->id);
    }
    out->reduce = reduce;
    out->spread = reduce->policy == TIR_REDUCE_UNORDERED_TREE;
    const tir_op *st = plan_find_store(reduce);
    if (st) return say(out, false, "the reduce (op #%u) stores (op #%u)", reduce->id, st->id);
    if (reduce->result_count > PLAN_SPLIT_MAX_CARRIES)
        return say(out, false, "the reduce has %u carries (at most %d)", reduce->result_count, PLAN_SPLIT_MAX_CARRIES);
    for (uint32_t i = 0; i < reduce->result_count; i++) {
        const tir_value *r = reduce->results[i];
        if (r->type->kind == TIR_TYPE_INDEX)
            return say(out, false, "carry %u of the reduce is an index (no view holds one)", i);
        out->state_bytes += plan_split_carry_bytes(r);
    }
    out->trips = reduce->domain->axes[0].extent;
    const char *axis = reduce->domain->axes[0].dim->label;
    uint64_t n = out->trips, P = out->programs;
    uint64_t S = chunks;
    if (S && (S < 2 || S > n || S > PLAN_SPLIT_MAX_CHUNKS)) {
        out->bad_chunks = true;
        return say(out, false, "%llu chunks: '%s' has %llu trip%s (chunks must be in 2..min(trips, %d))",
                   (unsigned long long)S, axis, (unsigned long long)n, n == 1 ? "" : "s", PLAN_SPLIT_MAX_CHUNKS);
    }
    if (n < 2) return say(out, false, "'%s' has %llu trip: nothing to split", axis, (unsigned long long)n);
    if (!workers) workers = 1;
    bool spread = out->spread;
    double unsplit = makespan(P, n, 1, workers, spread);
    if (!S) {
        double best = 0;
        for (uint64_t s = 2; s <= n && s <= PLAN_SPLIT_MAX_CHUNKS; s++) {
            double t = makespan(P, n, s, workers, spread);
            if (!S || t < best) S = s, best = t;
        }
        out->modeled_gain = unsplit / best;
        if (mode == TILEC_SPLIT_AUTO && out->modeled_gain < 1.25)
            return say(out, false, "%llu programs on %u workers: the best split (%llu chunks of '%s') models %.2fx (auto splits from 1.25x)",
                       (unsigned long long)P, workers, (unsigned long long)S, axis, out->modeled_gain);
    } else {
        out->modeled_gain = unsplit / makespan(P, n, S, workers, spread);
    }
    out->chunks = (uint32_t)S;
    out->chunk_trips = n / S;
    out->tail_trips = n - S * out->chunk_trips;
    out->workspace_bytes = P * S * out->state_bytes;
    for (uint32_t i = 0; i < reduce->result_count; i++) {
        const tir_type *t = reduce->results[i]->type;
        uint64_t rows = P * S * (t->space ? t->space->axes[0].extent : 1);
        if (rows > UINT32_MAX || out->workspace_bytes > (1ull << 32))
            return say(out, false, "the workspace (%llu bytes) is too large", (unsigned long long)out->workspace_bytes);
    }
    return say(out, true, "'%s' (%llu trips) in %llu chunks of %llu%s over %llu program%s: modeled %.2fx",
               axis, (unsigned long long)n, (unsigned long long)S, (unsigned long long)out->chunk_trips,
               !out->tail_trips ? "" : spread ? " (the first ones one more)" : " + a tail", (unsigned long long)P,
               P == 1 ? "" : "s", out->modeled_gain);
}
