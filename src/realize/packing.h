/* packing.h — the packing of one plan as the lowering reads it: which tile
 * loads read packed panels (rewrite/pack.h describes a pack and its copy
 * kernel), one buffer argument per pack after the kernel's parameters, in
 * program order.  The planner decides it for the selected plan; the
 * lowering reads those loads from the panels (docs/lowering.md "Packed
 * panels"). */
#ifndef TILEC_REALIZE_PACKING_H
#define TILEC_REALIZE_PACKING_H

#include "rewrite/pack.h"

enum { PLAN_MAX_PACKS = 2 };

typedef struct {
    uint32_t count;
    plan_pack packs[PLAN_MAX_PACKS]; /* in program order: their panels follow the parameters so */
    char why[512];                   /* the decision in words */
} plan_packing;

/* The pack of `load`, or NULL. */
const plan_pack *plan_packing_find(const plan_packing *p, const tir_op *load);

#endif
