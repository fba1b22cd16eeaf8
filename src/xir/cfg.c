/* cfg.c — see cfg.h.  Depth-first walks use explicit stacks, so deep CFGs
 * cannot exhaust the C stack.  Dominators: the iterative algorithm of Cooper,
 * Harvey and Kennedy ("A Simple, Fast Dominance Algorithm") over the reverse
 * post-order; dominance queries use DFS intervals of the dominator tree. */
#include "xir/cfg.h"

bool xir_out_of_memory(xir_module *m) {
    if (!m->failed) tilec_error(m->ctx, TILEC_E_NOMEM, "XIR-M01", tilec_no_loc(), "out of memory in an XIR pass");
    m->failed = true;
    return false;
}

static void *alloc_array(tilec_context *ctx, size_t count, size_t size) {
    return tilec_alloc(ctx, (count ? count : 1) * size);
}

void xir_cfg_free(xir_cfg *cfg) {
    tilec_context *ctx = cfg->ctx;
    if (!ctx) return;
    tilec_free(ctx, cfg->pred_start);
    tilec_free(ctx, cfg->preds);
    tilec_free(ctx, cfg->rpo);
    tilec_free(ctx, cfg->rpo_index);
    tilec_free(ctx, cfg->idom);
    tilec_free(ctx, cfg->dom_enter);
    tilec_free(ctx, cfg->dom_leave);
    *cfg = (xir_cfg){0};
}

/* Successors of b without a repeated target. */
static unsigned distinct_successors(const xir_block *b, xir_block *out[2]) {
    unsigned n = xir_block_successors(b, out);
    return n == 2 && out[0] == out[1] ? 1 : n;
}

static bool build_preds(xir_cfg *cfg) {
    const xir_func *f = cfg->func;
    uint32_t n = cfg->block_count;
    size_t edges = 0;
    if (!(cfg->pred_start = alloc_array(cfg->ctx, (size_t)n + 1, sizeof *cfg->pred_start))) return false;
    for (const xir_block *b = f->first; b; b = b->next) {
        xir_block *succ[2];
        unsigned k = distinct_successors(b, succ);
        for (unsigned i = 0; i < k; i++) cfg->pred_start[succ[i]->id + 1]++;
        edges += k;
    }
    for (uint32_t i = 0; i < n; i++) cfg->pred_start[i + 1] += cfg->pred_start[i];
    uint32_t *fill = alloc_array(cfg->ctx, n, sizeof *fill);
    if (!fill || !(cfg->preds = alloc_array(cfg->ctx, edges, sizeof *cfg->preds))) {
        tilec_free(cfg->ctx, fill);
        return false;
    }
    for (xir_block *b = f->first; b; b = b->next) {
        xir_block *succ[2];
        unsigned k = distinct_successors(b, succ);
        for (unsigned i = 0; i < k; i++) {
            uint32_t s = succ[i]->id;
            cfg->preds[cfg->pred_start[s] + fill[s]++] = b;
        }
    }
    tilec_free(cfg->ctx, fill);
    return true;
}

/* Post-order DFS from the entry; rpo is filled back to front. */
static bool build_rpo(xir_cfg *cfg) {
    uint32_t n = cfg->block_count;
    xir_block **stack = alloc_array(cfg->ctx, n, sizeof *stack);
    unsigned char *next = alloc_array(cfg->ctx, n, 1); /* successor index to visit next */
    cfg->rpo = alloc_array(cfg->ctx, n, sizeof *cfg->rpo);
    cfg->rpo_index = alloc_array(cfg->ctx, n, sizeof *cfg->rpo_index);
    bool ok = stack && next && cfg->rpo && cfg->rpo_index;
    if (ok) {
        for (uint32_t i = 0; i < n; i++) cfg->rpo_index[i] = XIR_CFG_NONE;
        xir_block **post = cfg->rpo; /* post-order first, reversed below */
        uint32_t posted = 0, depth = 0;
        if (cfg->func->first) {
            stack[depth++] = cfg->func->first;
            cfg->rpo_index[cfg->func->first->id] = 0; /* "visited"; renumbered below */
        }
        while (depth) {
            xir_block *b = stack[depth - 1], *succ[2];
            unsigned k = distinct_successors(b, succ);
            if (next[b->id] < k) {
                xir_block *s = succ[next[b->id]++];
                if (cfg->rpo_index[s->id] == XIR_CFG_NONE) {
                    cfg->rpo_index[s->id] = 0;
                    stack[depth++] = s;
                }
            } else {
                post[posted++] = b;
                depth--;
            }
        }
        for (uint32_t i = 0; i < posted / 2; i++) {
            xir_block *t = post[i];
            post[i] = post[posted - 1 - i];
            post[posted - 1 - i] = t;
        }
        cfg->rpo_count = posted;
        for (uint32_t i = 0; i < posted; i++) cfg->rpo_index[cfg->rpo[i]->id] = i;
    }
    tilec_free(cfg->ctx, stack);
    tilec_free(cfg->ctx, next);
    return ok;
}

static xir_block *intersect(const xir_cfg *cfg, xir_block *a, xir_block *b) {
    while (a != b) {
        while (cfg->rpo_index[a->id] > cfg->rpo_index[b->id]) a = cfg->idom[a->id];
        while (cfg->rpo_index[b->id] > cfg->rpo_index[a->id]) b = cfg->idom[b->id];
    }
    return a;
}

static bool build_dominators(xir_cfg *cfg) {
    uint32_t n = cfg->block_count;
    if (!(cfg->idom = alloc_array(cfg->ctx, n, sizeof *cfg->idom))) return false;
    if (!cfg->rpo_count) return true;
    xir_block *entry = cfg->rpo[0];
    cfg->idom[entry->id] = entry;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t i = 1; i < cfg->rpo_count; i++) {
            xir_block *b = cfg->rpo[i], *new_idom = NULL;
            xir_block *const *preds = xir_cfg_preds(cfg, b);
            for (uint32_t k = 0; k < xir_cfg_pred_count(cfg, b); k++) {
                xir_block *p = preds[k];
                if (!cfg->idom[p->id]) continue; /* unreachable or not processed yet */
                new_idom = new_idom ? intersect(cfg, p, new_idom) : p;
            }
            if (new_idom && cfg->idom[b->id] != new_idom) {
                cfg->idom[b->id] = new_idom;
                changed = true;
            }
        }
    }
    return true;
}

/* DFS intervals over the dominator tree: a dominates b iff b's interval lies
 * within a's. */
static bool build_dom_intervals(xir_cfg *cfg) {
    uint32_t n = cfg->block_count, count = cfg->rpo_count;
    uint32_t *child_start = alloc_array(cfg->ctx, (size_t)n + 1, sizeof *child_start);
    uint32_t *fill = alloc_array(cfg->ctx, n, sizeof *fill);
    xir_block **children = alloc_array(cfg->ctx, count, sizeof *children);
    xir_block **stack = alloc_array(cfg->ctx, count, sizeof *stack);
    uint32_t *next = alloc_array(cfg->ctx, n, sizeof *next);
    cfg->dom_enter = alloc_array(cfg->ctx, n, sizeof *cfg->dom_enter);
    cfg->dom_leave = alloc_array(cfg->ctx, n, sizeof *cfg->dom_leave);
    bool ok = child_start && fill && children && stack && next && cfg->dom_enter && cfg->dom_leave;
    if (ok && count) {
        for (uint32_t i = 1; i < count; i++) child_start[cfg->idom[cfg->rpo[i]->id]->id + 1]++;
        for (uint32_t i = 0; i < n; i++) child_start[i + 1] += child_start[i];
        for (uint32_t i = 1; i < count; i++) {
            uint32_t parent = cfg->idom[cfg->rpo[i]->id]->id;
            children[child_start[parent] + fill[parent]++] = cfg->rpo[i];
        }
        uint32_t clock = 0, depth = 0;
        stack[depth++] = cfg->rpo[0];
        cfg->dom_enter[cfg->rpo[0]->id] = clock++;
        while (depth) {
            xir_block *b = stack[depth - 1];
            uint32_t id = b->id;
            if (child_start[id] + next[id] < child_start[id + 1]) {
                xir_block *c = children[child_start[id] + next[id]++];
                cfg->dom_enter[c->id] = clock++;
                stack[depth++] = c;
            } else {
                cfg->dom_leave[id] = clock++;
                depth--;
            }
        }
    }
    tilec_free(cfg->ctx, child_start);
    tilec_free(cfg->ctx, fill);
    tilec_free(cfg->ctx, children);
    tilec_free(cfg->ctx, stack);
    tilec_free(cfg->ctx, next);
    return ok;
}

bool xir_cfg_build(tilec_context *ctx, const xir_func *f, bool dominators, xir_cfg *out) {
    *out = (xir_cfg){.ctx = ctx, .func = f, .block_count = f->next_block_id};
    bool ok = build_preds(out) && build_rpo(out) && (!dominators || (build_dominators(out) && build_dom_intervals(out)));
    if (!ok) xir_cfg_free(out);
    return ok;
}

bool xir_cfg_is_pred(const xir_cfg *cfg, const xir_block *pred, const xir_block *b) {
    xir_block *const *preds = xir_cfg_preds(cfg, b);
    for (uint32_t i = 0; i < xir_cfg_pred_count(cfg, b); i++)
        if (preds[i] == pred) return true;
    return false;
}

bool xir_cfg_dominates(const xir_cfg *cfg, const xir_block *a, const xir_block *b) {
    if (!xir_cfg_reachable(cfg, a) || !xir_cfg_reachable(cfg, b)) return false;
    return cfg->dom_enter[a->id] <= cfg->dom_enter[b->id] && cfg->dom_leave[b->id] <= cfg->dom_leave[a->id];
}
