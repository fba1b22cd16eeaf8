/* cfg.c — see cfg.h.  xir_cfg_build allocates every table (and the scratch
 * space of the walks) first, then computes; xir_cfg_recompute reuses them.
 * Depth-first walks use explicit stacks, so deep CFGs cannot exhaust the C
 * stack.  Dominators: the iterative algorithm of Cooper, Harvey and Kennedy
 * ("A Simple, Fast Dominance Algorithm") over the reverse post-order;
 * dominance queries use DFS intervals of the dominator tree. */
#include "xir/cfg.h"

#include "base/invariant.h"

#include <string.h>

bool xir_out_of_memory(xir_module *m) {
    if (!m->failed) {
        tilec_error(m->ctx, TILEC_E_NOMEM, "XIR-M01", tilec_no_loc(), "out of memory in an XIR pass");
        m->failed = TILEC_E_NOMEM;
    }
    return false;
}

static void *alloc_array(tilec_context *ctx, size_t count, size_t size) {
    return tilec_alloc(ctx, (count ? count : 1) * size);
}

void xir_cfg_free(xir_cfg *cfg) {
    tilec_context *ctx = cfg->ctx;
    if (!ctx) return;
    void *tables[] = {cfg->pred_start, cfg->preds, cfg->rpo, cfg->rpo_index, cfg->idom, cfg->dom_enter,
                      cfg->dom_leave, cfg->scratch, cfg->scratch_start, cfg->stack, cfg->children};
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) tilec_free(ctx, tables[i]);
    *cfg = (xir_cfg){0};
}

/* Successors of b without a repeated target. */
static unsigned distinct_successors(const xir_block *b, xir_block *out[2]) {
    unsigned n = xir_block_successors(b, out);
    return n == 2 && out[0] == out[1] ? 1 : n;
}

static size_t count_edges(const xir_func *f) {
    size_t edges = 0;
    for (const xir_block *b = f->first; b; b = b->next) {
        xir_block *succ[2];
        edges += distinct_successors(b, succ);
    }
    return edges;
}

static void compute_preds(xir_cfg *cfg) {
    uint32_t n = cfg->block_count, *fill = cfg->scratch;
    memset(cfg->pred_start, 0, ((size_t)n + 1) * sizeof *cfg->pred_start);
    memset(fill, 0, (size_t)n * sizeof *fill);
    for (const xir_block *b = cfg->func->first; b; b = b->next) {
        xir_block *succ[2];
        unsigned k = distinct_successors(b, succ);
        for (unsigned i = 0; i < k; i++) cfg->pred_start[succ[i]->id + 1]++;
    }
    for (uint32_t i = 0; i < n; i++) cfg->pred_start[i + 1] += cfg->pred_start[i];
    for (xir_block *b = cfg->func->first; b; b = b->next) {
        xir_block *succ[2];
        unsigned k = distinct_successors(b, succ);
        for (unsigned i = 0; i < k; i++) {
            uint32_t s = succ[i]->id;
            cfg->preds[cfg->pred_start[s] + fill[s]++] = b;
        }
    }
}

/* Post-order DFS from the entry into rpo, then reversed in place. */
static void compute_rpo(xir_cfg *cfg) {
    uint32_t n = cfg->block_count, *next = cfg->scratch; /* successor index to visit next */
    xir_block **stack = cfg->stack;
    memset(next, 0, (size_t)n * sizeof *next);
    for (uint32_t i = 0; i < n; i++) cfg->rpo_index[i] = XIR_CFG_NONE;
    uint32_t posted = 0, depth = 0;
    if (cfg->func->first) {
        stack[depth++] = cfg->func->first;
        cfg->rpo_index[cfg->func->first->id] = 0; /* visited; numbered below */
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
            cfg->rpo[posted++] = b;
            depth--;
        }
    }
    for (uint32_t i = 0; i < posted / 2; i++) {
        xir_block *t = cfg->rpo[i];
        cfg->rpo[i] = cfg->rpo[posted - 1 - i];
        cfg->rpo[posted - 1 - i] = t;
    }
    cfg->rpo_count = posted;
    for (uint32_t i = 0; i < posted; i++) cfg->rpo_index[cfg->rpo[i]->id] = i;
}

static xir_block *intersect(const xir_cfg *cfg, xir_block *a, xir_block *b) {
    while (a != b) {
        while (cfg->rpo_index[a->id] > cfg->rpo_index[b->id]) a = cfg->idom[a->id];
        while (cfg->rpo_index[b->id] > cfg->rpo_index[a->id]) b = cfg->idom[b->id];
    }
    return a;
}

static void compute_dominators(xir_cfg *cfg) {
    memset(cfg->idom, 0, (size_t)cfg->block_count * sizeof *cfg->idom);
    if (!cfg->rpo_count) return;
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
}

/* DFS intervals over the dominator tree: a dominates b iff b's interval lies
 * within a's. */
static void compute_dom_intervals(xir_cfg *cfg) {
    uint32_t n = cfg->block_count, count = cfg->rpo_count;
    uint32_t *child_start = cfg->scratch_start, *next = cfg->scratch;
    memset(child_start, 0, ((size_t)n + 1) * sizeof *child_start);
    memset(next, 0, (size_t)n * sizeof *next);
    if (!count) return;
    for (uint32_t i = 1; i < count; i++) child_start[cfg->idom[cfg->rpo[i]->id]->id + 1]++;
    for (uint32_t i = 0; i < n; i++) child_start[i + 1] += child_start[i];
    for (uint32_t i = 1; i < count; i++) { /* `next` counts the children placed so far */
        uint32_t parent = cfg->idom[cfg->rpo[i]->id]->id;
        cfg->children[child_start[parent] + next[parent]++] = cfg->rpo[i];
    }
    memset(next, 0, (size_t)n * sizeof *next); /* now: the next child to visit */
    uint32_t clock = 0, depth = 0;
    cfg->stack[depth++] = cfg->rpo[0];
    cfg->dom_enter[cfg->rpo[0]->id] = clock++;
    while (depth) {
        uint32_t id = cfg->stack[depth - 1]->id;
        if (child_start[id] + next[id] < child_start[id + 1]) {
            xir_block *c = cfg->children[child_start[id] + next[id]++];
            cfg->dom_enter[c->id] = clock++;
            cfg->stack[depth++] = c;
        } else {
            cfg->dom_leave[id] = clock++;
            depth--;
        }
    }
}

static void compute(xir_cfg *cfg) {
    compute_preds(cfg);
    compute_rpo(cfg);
    if (cfg->idom) {
        compute_dominators(cfg);
        compute_dom_intervals(cfg);
    }
}

bool xir_cfg_recompute(xir_cfg *cfg) {
    /* The tables were sized by xir_cfg_build for its blocks and edges. */
    if (!TILEC_INVARIANT(cfg->ctx, cfg->func->next_block_id == cfg->block_count &&
                                       count_edges(cfg->func) <= cfg->edge_capacity))
        return false;
    compute(cfg);
    return true;
}

bool xir_cfg_build(tilec_context *ctx, const xir_func *f, bool dominators, xir_cfg *out) {
    uint32_t n = f->next_block_id;
    xir_cfg cfg = {.ctx = ctx, .func = f, .block_count = n, .edge_capacity = count_edges(f)};
    cfg.pred_start = alloc_array(ctx, (size_t)n + 1, sizeof *cfg.pred_start);
    cfg.preds = alloc_array(ctx, cfg.edge_capacity, sizeof *cfg.preds);
    cfg.rpo = alloc_array(ctx, n, sizeof *cfg.rpo);
    cfg.rpo_index = alloc_array(ctx, n, sizeof *cfg.rpo_index);
    cfg.scratch = alloc_array(ctx, n, sizeof *cfg.scratch);
    cfg.stack = alloc_array(ctx, n, sizeof *cfg.stack);
    bool ok = cfg.pred_start && cfg.preds && cfg.rpo && cfg.rpo_index && cfg.scratch && cfg.stack;
    if (ok && dominators) {
        cfg.idom = alloc_array(ctx, n, sizeof *cfg.idom);
        cfg.dom_enter = alloc_array(ctx, n, sizeof *cfg.dom_enter);
        cfg.dom_leave = alloc_array(ctx, n, sizeof *cfg.dom_leave);
        cfg.scratch_start = alloc_array(ctx, (size_t)n + 1, sizeof *cfg.scratch_start);
        cfg.children = alloc_array(ctx, n, sizeof *cfg.children);
        ok = cfg.idom && cfg.dom_enter && cfg.dom_leave && cfg.scratch_start && cfg.children;
    }
    if (!ok) {
        xir_cfg_free(&cfg);
        *out = cfg;
        return false;
    }
    compute(&cfg);
    *out = cfg;
    return true;
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
