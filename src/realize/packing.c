/* packing.c — looking up a load's pack or word read in a plan's packing
 * (packing.h). */
#include "realize/packing.h"

const plan_pack *plan_packing_find(const plan_packing *p, const tir_op *load) {
    for (uint32_t i = 0; p && i < p->count; i++)
        if (p->packs[i].load == load) return &p->packs[i];
    return NULL;
}

const plan_pack *plan_packing_find_words(const plan_packing *p, const tir_op *load) {
    for (uint32_t i = 0; p && i < p->word_count; i++)
        if (p->words[i].load == load) return &p->words[i];
    return NULL;
}
