/* packing.c — looking up a load's pack or word read in a plan's packing
 * (packing.h). */
#include "realize/packing.h"

static const plan_pack *find(const plan_pack *packs, uint32_t count, const tir_op *load) {
    for (uint32_t i = 0; i < count; i++)
        if (packs[i].load == load) return &packs[i];
    return NULL;
}

const plan_pack *plan_packing_find(const plan_packing *p, const tir_op *load) {
    return p ? find(p->packs, p->count, load) : NULL;
}

const plan_pack *plan_packing_find_words(const plan_packing *p, const tir_op *load) {
    return p ? find(p->words, p->word_count, load) : NULL;
}
