/* cfg.h — control-flow facts of one XIR function, computed on demand by the
 * verifier and the cleanup passes: distinct predecessors, reachability and
 * reverse post-order from the entry, and (optionally) dominators.
 *
 * A cfg is a snapshot: it does not follow later edits of the function, but
 * xir_cfg_recompute refreshes it without allocating, as long as the edits
 * added no block and no edge (what CFG simplification does), so a pass can
 * allocate everything before it changes anything.  It requires sane
 * structure — every terminator target a block of the function (the verifier
 * checks that before building one).  Per-block tables are indexed by block id
 * (< func->next_block_id). */
#ifndef TILEC_XIR_CFG_H
#define TILEC_XIR_CFG_H

#include "xir/xir.h"

#define XIR_CFG_NONE UINT32_MAX

typedef struct {
    tilec_context *ctx;
    const xir_func *func;
    uint32_t block_count;  /* func->next_block_id */
    uint32_t *pred_start;  /* by id: preds[pred_start[id] .. pred_start[id + 1]) */
    xir_block **preds;     /* distinct predecessors of each block, in block order */
    xir_block **rpo;       /* the reachable blocks in reverse post-order */
    uint32_t rpo_count;
    uint32_t *rpo_index;   /* by id: position in rpo, XIR_CFG_NONE when unreachable */
    /* dominators (only when requested) */
    xir_block **idom;      /* by id: immediate dominator (the entry's is itself) */
    uint32_t *dom_enter, *dom_leave; /* by id: dominator-tree DFS interval */
    /* capacity and scratch space, allocated once by xir_cfg_build */
    size_t edge_capacity;
    uint32_t *scratch, *scratch_start; /* by id */
    xir_block **stack, **children;
} xir_cfg;

/* False when memory runs out (nothing reported: the caller does). */
bool xir_cfg_build(tilec_context *ctx, const xir_func *f, bool dominators, xir_cfg *out);
void xir_cfg_free(xir_cfg *cfg);
/* Recomputes the facts after edits that added no block and no edge.  Edits
 * that did are a bug of the caller: TILEC-I01 (invariant.h), the facts are
 * left as they were and the result is false. */
bool xir_cfg_recompute(xir_cfg *cfg);

static inline bool xir_cfg_reachable(const xir_cfg *cfg, const xir_block *b) {
    return b->id < cfg->block_count && cfg->rpo_index[b->id] != XIR_CFG_NONE;
}
static inline uint32_t xir_cfg_pred_count(const xir_cfg *cfg, const xir_block *b) {
    return cfg->pred_start[b->id + 1] - cfg->pred_start[b->id];
}
static inline xir_block *const *xir_cfg_preds(const xir_cfg *cfg, const xir_block *b) {
    return cfg->preds + cfg->pred_start[b->id];
}
bool xir_cfg_is_pred(const xir_cfg *cfg, const xir_block *pred, const xir_block *b);
/* Whether `a` dominates `b` (both reachable; a block dominates itself).  Needs
 * dominators; false when either block is unreachable. */
bool xir_cfg_dominates(const xir_cfg *cfg, const xir_block *a, const xir_block *b);

/* Marks the module failed (TILEC_E_NOMEM unless it already failed) and
 * reports XIR-M01 once; returns false. */
bool xir_out_of_memory(xir_module *m);

#endif
