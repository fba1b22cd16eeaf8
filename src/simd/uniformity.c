/* uniformity.c — post-dominators and the uniform/varying classification of
 * XIR values for packets of W lanes (docs/simd.md "Uniformity").
 *
 * Seeds: constants, buffer arguments and block_id, dispatch_size,
 * block_size, warp_size are uniform; dispatch_id and warp_lane_id are
 * varying, but dispatch_id divided by a multiple of W is uniform (packets
 * start at multiples of W: simd_packet_ordinal_div).  Pure operations join their operands; buffer reads are varying
 * when their index is; private loads are always varying (per-lane memory);
 * warp_read_lane is uniform when its value or its lane is.  A PHI is varying
 * when an incoming value is, or when its block lies in the region of a
 * varying branch or is that branch's post-dominator (control dependence: the
 * emitter linearizes those blocks and turns their PHIs into selects).  The
 * lattice is two-valued and every rule monotone, so iterating to a fixed
 * point terminates. */
#include "simd/analysis.h"

#include <string.h>

static bool pdom_sets(simd_analysis *a, uint64_t *sets, size_t words) {
    uint32_t n = a->n, exit_bit = n;
    uint64_t *tmp = tilec_alloc(a->ctx, words * sizeof *tmp);
    if (!tmp) return false;
    for (uint32_t b = 0; b <= n; b++) {
        uint64_t *s = sets + (size_t)b * words;
        if (b == exit_bit) {
            memset(s, 0, words * sizeof *s);
            s[exit_bit / 64] |= UINT64_C(1) << (exit_bit % 64);
        } else {
            memset(s, 0xff, words * sizeof *s);
        }
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t k = a->cfg.rpo_count; k-- > 0;) {
            const xir_block *b = a->cfg.rpo[k];
            xir_block *succ[2];
            unsigned ns = xir_block_successors(b, succ);
            memset(tmp, 0xff, words * sizeof *tmp);
            if (!ns) memcpy(tmp, sets + (size_t)exit_bit * words, words * sizeof *tmp);
            for (unsigned i = 0; i < ns; i++)
                for (size_t w = 0; w < words; w++) tmp[w] &= sets[(size_t)succ[i]->id * words + w];
            tmp[b->id / 64] |= UINT64_C(1) << (b->id % 64);
            uint64_t *s = sets + (size_t)b->id * words;
            if (memcmp(s, tmp, words * sizeof *tmp)) {
                memcpy(s, tmp, words * sizeof *tmp);
                changed = true;
            }
        }
    }
    tilec_free(a->ctx, tmp);
    return true;
}

static uint32_t popcount(const uint64_t *s, size_t words) {
    uint32_t c = 0;
    for (size_t w = 0; w < words; w++) c += (uint32_t)__builtin_popcountll(s[w]);
    return c;
}

static bool immediate_pdoms(simd_analysis *a) {
    size_t words = (a->n + 1 + 63) / 64;
    uint64_t *sets = tilec_alloc(a->ctx, (size_t)(a->n + 1) * words * sizeof *sets);
    if (!sets || !pdom_sets(a, sets, words)) {
        tilec_free(a->ctx, sets);
        return false;
    }
    for (uint32_t b = 0; b < a->n; b++) {
        a->ipdom[b] = XIR_CFG_NONE;
        if (!a->block[b] || !xir_cfg_reachable(&a->cfg, a->block[b])) continue;
        const uint64_t *s = sets + (size_t)b * words;
        uint32_t want = popcount(s, words) - 1;
        for (uint32_t d = 0; d < a->n; d++)
            if (d != b && (s[d / 64] >> (d % 64) & 1) && popcount(sets + (size_t)d * words, words) == want)
                a->ipdom[b] = d;
    }
    tilec_free(a->ctx, sets);
    return true;
}

uint32_t simd_region(const simd_analysis *a, const xir_block *x, unsigned char *in_region, bool *cycle) {
    memset(in_region, 0, a->n);
    uint32_t p = a->ipdom[x->id];
    *cycle = false;
    /* Depth-first from the successors, stopping at the post-dominator; the
     * region table doubles as the visited set. */
    xir_block **stack = a->stack; /* 2 per region block + 2: every push marks or is a seed */
    size_t top = 0;
    xir_block *succ[2];
    unsigned ns = xir_block_successors(x, succ);
    for (unsigned i = 0; i < ns; i++) stack[top++] = succ[i];
    while (top) {
        xir_block *b = stack[--top];
        if (b->id == p || in_region[b->id]) continue;
        if (b == x) {
            *cycle = true;
            continue;
        }
        in_region[b->id] = 1;
        ns = xir_block_successors(b, succ);
        for (unsigned i = 0; i < ns; i++)
            if (succ[i]->id != p && !in_region[succ[i]->id]) stack[top++] = succ[i];
    }
    return p;
}

bool simd_varying(const simd_analysis *a, const xir_value *v) {
    switch (v->kind) {
    case XIR_VALUE_CONST:
    case XIR_VALUE_ARG: return false;
    case XIR_VALUE_SPECIAL: return !xir_special_is_uniform(v->special);
    case XIR_VALUE_INST: return a->varying[v->id];
    }
    return false;
}

static bool any_operand_varying(const simd_analysis *a, const xir_inst *i, uint32_t from) {
    for (uint32_t k = from; k < i->operand_count; k++)
        if (simd_varying(a, xir_operand(i, k))) return true;
    return false;
}

bool simd_packet_ordinal_div(const xir_inst *i, uint32_t width) {
    if (i->kind != XIR_INST_ARITH || i->op != XIR_OP_DIV || i->operand_count != 2) return false;
    const xir_value *x = xir_operand(i, 0), *k = xir_operand(i, 1);
    return x->kind == XIR_VALUE_SPECIAL && x->special == XIR_SPECIAL_DISPATCH_ID && k->kind == XIR_VALUE_CONST &&
           !tir_scalar_is_signed(k->type->scalar) && tir_scalar_is_integer(k->type->scalar) && k->constant.u &&
           width && k->constant.u % width == 0;
}

static bool inst_varying(const simd_analysis *a, const xir_inst *i) {
    if (simd_packet_ordinal_div(i, a->width)) return false;
    switch (i->kind) {
    case XIR_INST_ARITH:
    case XIR_INST_CAST:
    case XIR_INST_BITCAST:
    case XIR_INST_PHI:
    case XIR_INST_GEP:
    case XIR_INST_BUFFER_READ: return any_operand_varying(a, i, 0);
    case XIR_INST_LOAD: return true;
    case XIR_INST_WARP_READ_LANE:
        return simd_varying(a, xir_operand(i, 0)) && simd_varying(a, xir_operand(i, 1));
    default: return false;
    }
}

static bool mark_phis(simd_analysis *a, const xir_block *b) {
    bool changed = false;
    for (const xir_inst *i = b->first; i && i->kind == XIR_INST_PHI; i = i->next)
        if (!a->varying[i->value.id]) a->varying[i->value.id] = changed = true;
    return changed;
}

static void classify(simd_analysis *a, unsigned char *region) {
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t k = 0; k < a->cfg.rpo_count; k++)
            for (const xir_inst *i = a->cfg.rpo[k]->first; i; i = i->next)
                if (!a->varying[i->value.id] && inst_varying(a, i)) a->varying[i->value.id] = changed = true;
        for (uint32_t k = 0; k < a->cfg.rpo_count; k++) {
            const xir_block *x = a->cfg.rpo[k];
            const xir_inst *t = xir_block_terminator(x);
            if (!t || t->kind != XIR_INST_COND_BR || !simd_varying(a, xir_operand(t, 0))) continue;
            bool cycle;
            uint32_t p = simd_region(a, x, region, &cycle);
            for (uint32_t b = 0; b < a->n; b++)
                if (region[b]) changed |= mark_phis(a, a->block[b]);
            if (p != XIR_CFG_NONE) changed |= mark_phis(a, a->block[p]);
        }
    }
}

bool simd_analyze(tilec_context *ctx, const xir_func *f, uint32_t width, simd_analysis *a) {
    memset(a, 0, sizeof *a);
    a->ctx = ctx;
    a->width = width;
    a->func = f;
    a->n = f->next_block_id;
    if (!xir_cfg_build(ctx, f, true, &a->cfg)) goto oom;
    a->block = tilec_alloc(ctx, (a->n + 1) * sizeof *a->block);
    a->ipdom = tilec_alloc(ctx, (a->n + 1) * sizeof *a->ipdom);
    a->varying = tilec_alloc(ctx, f->next_value_id + 1);
    a->stack = tilec_alloc(ctx, (2 * (size_t)a->n + 2) * sizeof *a->stack);
    unsigned char *region = tilec_alloc(ctx, a->n + 1);
    if (!a->block || !a->ipdom || !a->varying || !a->stack || !region) {
        tilec_free(ctx, region);
        goto oom;
    }
    memset(a->block, 0, (a->n + 1) * sizeof *a->block);
    memset(a->varying, 0, f->next_value_id + 1);
    for (xir_block *b = f->first; b; b = b->next) a->block[b->id] = b;
    bool ok = immediate_pdoms(a);
    if (ok) classify(a, region);
    tilec_free(ctx, region);
    if (ok) return true;
oom:
    simd_analysis_free(a);
    tilec_error(ctx, TILEC_E_NOMEM, "SIMD-M02", tilec_no_loc(), "out of memory analyzing '%s'", f->name);
    return false;
}

void simd_analysis_free(simd_analysis *a) {
    if (a->cfg.ctx) xir_cfg_free(&a->cfg);
    tilec_free(a->ctx, a->block);
    tilec_free(a->ctx, a->ipdom);
    tilec_free(a->ctx, a->varying);
    tilec_free(a->ctx, a->stack);
    memset(a, 0, sizeof *a);
}
