/* simplify_cfg.c — CFG simplification (passes.h).
 *
 * Each round rewrites in place, then the CFG snapshot (predecessors,
 * reachability) is recomputed; a round merges or bypasses every block it can
 * without touching a block another change of the round touched, so long
 * chains take few rounds.  The snapshot's tables are allocated once, before
 * the first change (no step adds a block or an edge), so running out of
 * memory leaves the function untouched.  Invariant kept by every step: the incoming blocks
 * of each PHI are exactly the block's distinct predecessors. */
#include "xir/cfg.h"
#include "xir/passes.h"

#include <string.h>

/* ---- PHI edits ---- */

static int incoming_index(const xir_inst *phi, const xir_block *from) {
    for (uint32_t i = 0; i < phi->operand_count; i++)
        if (phi->incoming[i] == from) return (int)i;
    return -1;
}

/* `from` is no longer a predecessor of `b`. */
static void drop_incoming(xir_block *b, const xir_block *from) {
    for (xir_inst *phi = b->first; phi && phi->kind == XIR_INST_PHI; phi = phi->next) {
        int i = incoming_index(phi, from);
        if (i >= 0) xir_inst_remove_operand(phi, (uint32_t)i);
    }
}

/* The edge from `from` into `b` now comes from `to` (not yet a predecessor). */
static void rename_incoming(xir_block *b, const xir_block *from, xir_block *to) {
    for (xir_inst *phi = b->first; phi && phi->kind == XIR_INST_PHI; phi = phi->next) {
        int i = incoming_index(phi, from);
        if (i >= 0) phi->incoming[i] = to;
    }
}

static bool has_phis(const xir_block *b) { return b->first && b->first->kind == XIR_INST_PHI; }

/* ---- terminators ---- */

static void make_br(xir_inst *cond_br, xir_block *target) {
    xir_inst_remove_operand(cond_br, 0);
    cond_br->kind = XIR_INST_BR;
    cond_br->targets[0] = target;
    cond_br->targets[1] = NULL;
}

/* cond_br on a constant, or to one block twice, becomes br. */
static bool fold_branches(xir_func *f) {
    bool changed = false;
    for (xir_block *b = f->first; b; b = b->next) {
        xir_inst *t = xir_block_terminator(b);
        if (!t || t->kind != XIR_INST_COND_BR) continue;
        xir_value *cond = xir_operand(t, 0);
        xir_block *if_true = t->targets[0], *if_false = t->targets[1];
        if (if_true == if_false) {
            make_br(t, if_true);
        } else if (cond->kind == XIR_VALUE_CONST) {
            xir_block *taken = cond->constant.u ? if_true : if_false;
            drop_incoming(taken == if_true ? if_false : if_true, b);
            make_br(t, taken);
        } else {
            continue;
        }
        changed = true;
    }
    return changed;
}

static void redirect(xir_inst *terminator, const xir_block *from, xir_block *to) {
    unsigned n = terminator->kind == XIR_INST_BR ? 1 : terminator->kind == XIR_INST_COND_BR ? 2 : 0;
    for (unsigned i = 0; i < n; i++)
        if (terminator->targets[i] == from) terminator->targets[i] = to;
}

/* ---- structural steps (one change each, on a fresh CFG) ---- */

static bool remove_unreachable(xir_func *f, const xir_cfg *cfg) {
    bool any = false;
    for (xir_block *b = f->first; b; b = b->next) {
        if (xir_cfg_reachable(cfg, b)) continue;
        any = true;
        xir_block *succ[2];
        unsigned n = xir_block_successors(b, succ);
        for (unsigned i = 0; i < n; i++)
            if (xir_cfg_reachable(cfg, succ[i])) drop_incoming(succ[i], b);
    }
    if (!any) return false;
    /* Detach every instruction first: unreachable blocks may use each other's values. */
    for (xir_block *b = f->first; b; b = b->next)
        if (!xir_cfg_reachable(cfg, b))
            while (b->last) xir_inst_detach(b->last);
    for (xir_block *b = f->first, *next; b; b = next) {
        next = b->next;
        if (!xir_cfg_reachable(cfg, b)) xir_block_erase(b);
    }
    return true;
}

/* ---- merging and bypassing, many per round ----
 *
 * One sweep applies every merge and bypass whose blocks the sweep has not
 * touched yet: a change touches the blocks whose predecessors, successors or
 * PHIs it edits, so the snapshot stays exact for every untouched block and
 * the next candidates can still trust it. */

typedef struct {
    const xir_cfg *cfg;
    bool *touched; /* by block id */
} sweep;

static bool any_touched(const sweep *w, xir_block *const *blocks, uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
        if (w->touched[blocks[i]->id]) return true;
    return false;
}

static void touch(sweep *w, xir_block *const *blocks, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) w->touched[blocks[i]->id] = true;
}

/* Moves `b` into its unique predecessor `p`, whose unique successor it is. */
static void merge_into(xir_block *p, xir_block *b) {
    while (b->first && b->first->kind == XIR_INST_PHI) { /* one incoming value: p's */
        xir_inst *phi = b->first;
        xir_value_replace_all_uses(&phi->value, xir_operand(phi, 0));
        xir_inst_detach(phi);
    }
    xir_inst_detach(p->last);
    while (b->first) xir_inst_insert_end(b->first, p);
    xir_block *succ[2];
    unsigned n = xir_block_successors(p, succ);
    for (unsigned i = 0; i < n; i++) rename_incoming(succ[i], b, p);
    xir_block_erase(b);
}

static bool try_merge(sweep *w, xir_block *b) {
    if (xir_cfg_pred_count(w->cfg, b) != 1) return false;
    xir_block *pair[2] = {xir_cfg_preds(w->cfg, b)[0], b}, *succ[2];
    unsigned n = xir_block_successors(b, succ);
    /* touched blocks first: an erased block is touched, and its lists are gone */
    if (any_touched(w, pair, 2) || any_touched(w, succ, n) || pair[0] == b || pair[0]->last->kind != XIR_INST_BR)
        return false;
    touch(w, pair, 2);
    touch(w, succ, n);
    merge_into(pair[0], b);
    return true;
}

/* Whether the PHIs of `s` take the same value from `a` and from `b`. */
static bool same_incoming(const xir_block *s, const xir_block *a, const xir_block *b) {
    for (const xir_inst *phi = s->first; phi && phi->kind == XIR_INST_PHI; phi = phi->next)
        if (xir_operand(phi, (uint32_t)incoming_index(phi, a)) != xir_operand(phi, (uint32_t)incoming_index(phi, b)))
            return false;
    return true;
}

/* Whether b's predecessors may become predecessors of the join s: every
 * other predecessor of s lies in the region headed by b's immediate
 * dominator.  Otherwise a nested diamond's merge would become its enclosing
 * diamond's as well, entered from outside the inner region — a shape the
 * SIMD backend cannot predicate when the inner branch varies (SIMD-U03). */
static bool keeps_regions(const sweep *w, const xir_block *b, const xir_block *s) {
    const xir_block *head = w->cfg->idom[b->id];
    if (!head || w->touched[head->id]) return false;
    for (uint32_t i = 0; i < xir_cfg_pred_count(w->cfg, s); i++) {
        const xir_block *q = xir_cfg_preds(w->cfg, s)[i];
        if (q != b && (w->touched[q->id] || !xir_cfg_dominates(w->cfg, head, q))) return false;
    }
    return true;
}

/* Bypasses `b` when it holds only `br s`.  Without PHIs in `s` any number of
 * predecessors are redirected (into a join only when keeps_regions); with
 * PHIs only a single predecessor p, which takes over b's incoming entries
 * (or already has equal ones). */
static bool try_bypass(sweep *w, xir_block *b) {
    xir_inst *only = b->first;
    if (only != b->last || only->kind != XIR_INST_BR || only->targets[0] == b) return false;
    xir_block *pair[2] = {b, only->targets[0]}, *s = pair[1];
    uint32_t npred = xir_cfg_pred_count(w->cfg, b);
    xir_block *const *preds = xir_cfg_preds(w->cfg, b);
    if (any_touched(w, pair, 2) || any_touched(w, preds, npred)) return false;
    if (npred > 1 && xir_cfg_pred_count(w->cfg, s) > 1 && !keeps_regions(w, b, s)) return false;
    if (has_phis(s)) {
        if (npred != 1) return false;
        xir_block *p = preds[0];
        if (xir_cfg_is_pred(w->cfg, p, s)) {
            if (!same_incoming(s, p, b)) return false;
            drop_incoming(s, b);
        } else {
            rename_incoming(s, b, p);
        }
    }
    touch(w, pair, 2);
    touch(w, preds, npred);
    for (uint32_t i = 0; i < npred; i++) redirect(preds[i]->last, b, s);
    xir_inst_detach(b->last);
    xir_block_erase(b);
    return true;
}

static bool merge_and_bypass(xir_func *f, sweep *w) {
    memset(w->touched, 0, w->cfg->block_count * sizeof *w->touched);
    bool changed = false;
    for (xir_block *b = f->first->next, *next; b; b = next) {
        next = b->next; /* a change erases b only */
        changed |= try_merge(w, b) || try_bypass(w, b);
    }
    return changed;
}

/* One round: false when nothing changed. */
static bool simplify_once(xir_func *f, xir_cfg *cfg, sweep *w) {
    bool changed = fold_branches(f);
    if (!xir_cfg_recompute(cfg)) { /* reported (TILEC-I01) */
        if (!f->module->failed) f->module->failed = TILEC_E_INTERNAL;
        return false;
    }
    return remove_unreachable(f, cfg) || merge_and_bypass(f, w) || changed;
}

static bool simplify(xir_func *f) {
    if (!f->first) return false;
    xir_cfg cfg;
    if (!xir_cfg_build(f->module->ctx, f, true, &cfg)) return xir_out_of_memory(f->module);
    sweep w = {&cfg, tilec_alloc(f->module->ctx, (size_t)cfg.block_count + 1)};
    bool changed = false;
    if (!w.touched) xir_out_of_memory(f->module);
    else
        while (simplify_once(f, &cfg, &w)) changed = true;
    tilec_free(f->module->ctx, w.touched);
    xir_cfg_free(&cfg);
    return changed;
}

bool xir_simplify_cfg(xir_module *m) {
    bool changed = false;
    for (size_t i = 0; i < m->funcs.len && !m->failed; i++) changed |= simplify(m->funcs.data[i]);
    return changed;
}
