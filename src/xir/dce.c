/* dce.c — dead code elimination (passes.h): mark live from the effects,
 * propagate liveness to operands, detach everything unmarked.  Detaching all
 * dead instructions together is safe: liveness is closed under operands, so
 * only dead instructions use dead results. */
#include "xir/cfg.h"
#include "xir/passes.h"

static bool is_effect(const xir_inst *inst) {
    return inst->kind == XIR_INST_STORE || inst->kind == XIR_INST_BUFFER_WRITE || inst->kind == XIR_INST_FAULT ||
           inst->kind == XIR_INST_WARP_SYNC || xir_inst_is_terminator(inst);
}

/* Whether every user of `alloca` is a gep whose every user stores through it
 * (the alloca is never read). */
static bool never_loaded(const xir_inst *alloca) {
    for (const xir_use *u = alloca->value.uses; u; u = u->next) {
        const xir_inst *gep = u->user;
        if (gep->kind != XIR_INST_GEP || u->index != 0) return false;
        for (const xir_use *g = gep->value.uses; g; g = g->next)
            if (g->user->kind != XIR_INST_STORE || g->index != 0) return false;
    }
    return true;
}

/* Whether `store` writes into an alloca marked in `unread`. */
static bool stores_into_unread_alloca(const xir_inst *store, const bool *unread) {
    const xir_inst *gep = xir_value_inst(xir_operand(store, 0));
    const xir_inst *alloca = gep && gep->kind == XIR_INST_GEP ? xir_value_inst(xir_operand(gep, 0)) : NULL;
    return alloca && unread[alloca->value.id];
}

static bool eliminate(xir_func *f) {
    xir_module *m = f->module;
    tilec_context *ctx = m->ctx;
    size_t n = (size_t)f->next_value_id + 1;
    bool *live = tilec_alloc(ctx, n * sizeof *live), *unread = tilec_alloc(ctx, n * sizeof *unread);
    xir_inst **work = tilec_alloc(ctx, n * sizeof *work);
    bool changed = false;
    if (!live || !unread || !work) {
        xir_out_of_memory(m);
    } else {
        for (xir_block *b = f->first; b; b = b->next)
            for (xir_inst *inst = b->first; inst; inst = inst->next)
                if (inst->kind == XIR_INST_ALLOCA) unread[inst->value.id] = never_loaded(inst);
        size_t top = 0;
        for (xir_block *b = f->first; b; b = b->next)
            for (xir_inst *inst = b->first; inst; inst = inst->next)
                if (is_effect(inst) && !(inst->kind == XIR_INST_STORE && stores_into_unread_alloca(inst, unread))) {
                    live[inst->value.id] = true;
                    work[top++] = inst;
                }
        while (top) {
            xir_inst *inst = work[--top];
            for (uint32_t i = 0; i < inst->operand_count; i++) {
                xir_inst *def = xir_value_inst(xir_operand(inst, i));
                if (def && !live[def->value.id]) {
                    live[def->value.id] = true;
                    work[top++] = def;
                }
            }
        }
        for (xir_block *b = f->first; b; b = b->next)
            for (xir_inst *inst = b->first, *next; inst; inst = next) {
                next = inst->next;
                if (!live[inst->value.id]) {
                    xir_inst_detach(inst);
                    changed = true;
                }
            }
    }
    tilec_free(ctx, live);
    tilec_free(ctx, unread);
    tilec_free(ctx, work);
    return changed;
}

bool xir_eliminate_dead_code(xir_module *m) {
    bool changed = false;
    for (size_t i = 0; i < m->funcs.len && !m->failed; i++) changed |= eliminate(m->funcs.data[i]);
    return changed;
}
