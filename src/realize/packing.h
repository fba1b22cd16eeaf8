/* packing.h — the packing of one plan as the lowering reads it: which tile
 * loads read packed panels (rewrite/pack.h describes a pack and its copy
 * kernel), one buffer argument per pack after the kernel's parameters, in
 * program order, and which read their parameter in place in words.  The
 * planner decides it for the selected plan; the lowering reads those loads
 * from the panels (docs/lowering.md "Packed panels", "Dot products"). */
#ifndef TILEC_REALIZE_PACKING_H
#define TILEC_REALIZE_PACKING_H

#include "rewrite/pack.h"

enum { PLAN_MAX_PACKS = 2 };

typedef struct {
    uint32_t count;
    plan_pack packs[PLAN_MAX_PACKS]; /* in program order: their panels follow the parameters so */
    /* dot-product operands whose groups already lie in memory as words
     * (plan/pack.h): read in place, no copy and no panels; `group`,
     * `group_axis` and `elem` (the view's) are set, the rest unused */
    uint32_t word_count;
    plan_pack words[2 * PLAN_MAX_PACKS];
    char why[512]; /* the decision in words */
} plan_packing;

/* The pack of `load`, or NULL. */
const plan_pack *plan_packing_find(const plan_packing *p, const tir_op *load);

/* The in-place word read of `load`, or NULL. */
const plan_pack *plan_packing_find_words(const plan_packing *p, const tir_op *load);

#endif
