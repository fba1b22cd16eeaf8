/* split.h — split reductions across programs: the partial and combine
 * kernels (docs/lowering.md "Split reductions").
 *
 * A root program whose main work is one long reduce (attention decode: the
 * walk over the KV sequence) keeps one worker busy per program; with fewer
 * programs than workers the others idle.  When the reduce is *mergeable*
 * (it has a `combine` block, docs/tir.md "Mergeable reductions"), its first
 * axis of n trips can be cut into S chunks of C = n / S trips folded by
 * separate programs, each from the initial carries, and the chunk states
 * merged afterwards — flash-decoding, for any kernel that says how states
 * merge.  The rewrite makes two TileIR kernels, compiled by the same
 * pipeline and run one after the other (both start with the kernel-level
 * ops before the root parallel):
 *
 *   partial  parallel (root axes…, s: split=S):
 *              the prologue (every op before the reduce: a dead load may
 *              still fault); the reduce over trips
 *              [s·C, s·C + C), then for an unordered_tree reduce trip
 *              S·C + s when s < r (the r trips past the chunks' spread
 *              over them); its carries stored to workspace views
 *              (one per carry: [P·S·a0, a1, …] for a carry tile [a0, a1, …],
 *              [P·S] for a scalar) at slot (program, s)
 *   combine  parallel (root axes…):
 *              the prologue ops the rest reads; state = slot 0; for s in 1..S−1: state = combine(state, slot s)
 *              (left to right: a deterministic order, the chunks' order,
 *              so ordered_tree holds); for another policy the r = n − S·C
 *              tail trips folded from the initial carries and merged last
 *              (the chunks stay consecutive); then the rest of
 *              the original program (its epilogue and stores) on `state`.
 *
 * Exactness: the partial kernel reads what the original program read
 * before its first store (a store before or inside the reduce refuses the
 * split); the combine kernel runs the original epilogue.  Every chunk is
 * non-empty (S ≤ n).  Only the first reduce with a combine block directly in
 * the root body is split, and only one per kernel. */
#ifndef TILEC_REWRITE_SPLIT_H
#define TILEC_REWRITE_SPLIT_H

#include "rewrite/limits.h"
#include "tir/ir.h"

enum { PLAN_SPLIT_MAX_CARRIES = 16, PLAN_SPLIT_MAX_CHUNKS = 256 };

/* One kernel's split: what the planner decided (plan/split.h) and the
 * rewrite builds from. */
typedef struct {
    const tir_op *root;           /* the root parallel */
    const tir_op *reduce;         /* the split reduce; NULL: no split (why says why) */
    uint64_t programs;            /* P: root instances */
    uint64_t trips;               /* n: the reduce's first axis */
    uint32_t chunks;              /* S: chunks per program (2 ≤ S ≤ n) */
    uint64_t chunk_trips;         /* C = n / S */
    uint64_t tail_trips;          /* r = n − S·C: one more in each of the first r chunks when spread, else
                                   * folded by the combine kernel */
    bool spread;                  /* the reduce is unordered_tree (set once the reduce is found) */
    uint64_t state_bytes;         /* one chunk's carries */
    uint64_t workspace_bytes;     /* P · S · state_bytes */
    double modeled_gain;          /* modeled time unsplit / split (the auto rule) */
    bool bad_chunks;              /* the explicit chunk count is outside 2..min(n, PLAN_SPLIT_MAX_CHUNKS) */
    char why[256];                /* the decision in words */
} plan_split;

/* The bytes of one chunk's state for the reduce carry `carry` (a tile's
 * volume or one scalar, times its element size): one workspace slot. */
uint64_t plan_split_carry_bytes(const tir_value *carry);

/* The two kernels as functions "<f>_partial" (index 0) and "<f>_combine"
 * (index 1) of a new module owned by the caller: parameters f's views, then
 * one workspace view per carry ("<f>_split<i>").  NULL with a diagnostic
 * (NOMEM or a builder error). */
tir_module *plan_split_build(tilec_context *ctx, const tir_func *f, const plan_split *split);

#endif
