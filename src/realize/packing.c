/* packing.c — looking up a load's pack in a plan's packing (packing.h). */
#include "realize/packing.h"

const plan_pack *plan_packing_find(const plan_packing *p, const tir_op *load) {
    for (uint32_t i = 0; p && i < p->count; i++)
        if (p->packs[i].load == load) return &p->packs[i];
    return NULL;
}
