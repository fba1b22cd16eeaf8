/* cfg.c — the control-flow shapes the lowerer emits: top-tested counted
 * loops (preheader → header{index PHI, carry PHIs, compare} → body … latch →
 * header; header → exit) and if-diamonds (from → then → merge, from → merge)
 * whose merge PHI joins the then-value with the fallback.  Nothing else:
 * every CFG the lowerer builds is a nest of these. */
#include "lower/internal.h"

void lw_phi_add(lowerer *lw, xir_inst *phi, xir_value *value, xir_block *from) {
    if (!lw_ok(lw)) return;
    if (!phi || !value || !from) {
        lw_internal(lw, "a PHI incoming value is missing");
        return;
    }
    xir_phi_add_incoming(phi, value, from);
}

/* The header: index from start while index < end, its interval [lo, hi]
 * when `ranged`. */
static void loop_open(lowerer *lw, lw_loop *L, xir_value *start, xir_value *end, bool ranged, int64_t lo, int64_t hi) {
    *L = (lw_loop){0};
    if (!lw_ok(lw)) return;
    L->preheader = lw->b.block;
    L->header = xir_block_new(lw->f, "loop");
    xir_block *body = xir_block_new(lw->f, "body");
    L->exit = xir_block_new(lw->f, "exit");
    if (!L->header || !body || !L->exit) return;
    xir_build_br(&lw->b, L->header);
    xir_builder_at_end(&lw->b, L->header);
    L->index = xir_build_phi(&lw->b, xir_type_scalar(lw->m, TIR_I64));
    if (!L->index) return;
    xir_phi_add_incoming(L->index, start, L->preheader);
    if (ranged) lw_set_range(lw, &L->index->value, lo, hi);
    xir_value *more = xir_build_arith(&lw->b, XIR_OP_LT, &L->index->value, end, NULL);
    xir_build_cond_br(&lw->b, more, body, L->exit);
    xir_builder_at_end(&lw->b, body);
}

void lw_loop_begin(lowerer *lw, lw_loop *L, int64_t start, int64_t end, int64_t step) {
    loop_open(lw, L, lw_i64(lw, start), lw_i64(lw, end), end > start, start, start + (end - start - 1) / step * step);
}

void lw_loop_begin_to(lowerer *lw, lw_loop *L, xir_value *start, xir_value *end, uint64_t max) {
    loop_open(lw, L, start, end, true, 0, max ? (int64_t)max - 1 : 0);
}

xir_inst *lw_loop_phi(lowerer *lw, lw_loop *L, xir_type *type, xir_value *init) {
    if (!lw_ok(lw) || !L->header) return NULL;
    xir_block *at = lw->b.block;
    xir_builder_at_end(&lw->b, L->header);
    xir_inst *phi = xir_build_phi(&lw->b, type);
    xir_builder_at_end(&lw->b, at);
    lw_phi_add(lw, phi, init, L->preheader);
    return phi;
}

void lw_loop_end(lowerer *lw, lw_loop *L, int64_t step) {
    if (!lw_ok(lw) || !L->index) return;
    xir_value *next = xir_build_arith(&lw->b, XIR_OP_ADD, &L->index->value, lw_i64(lw, step), NULL);
    xir_build_br(&lw->b, L->header);
    L->latch = lw->b.block;
    lw_phi_add(lw, L->index, next, L->latch);
    xir_builder_at_end(&lw->b, L->exit);
}

void lw_if_begin(lowerer *lw, lw_if *d, xir_value *cond) {
    *d = (lw_if){0};
    if (!lw_ok(lw)) return;
    d->from = lw->b.block;
    d->then_block = xir_block_new(lw->f, "then");
    d->merge = xir_block_new(lw->f, "merge");
    if (!d->then_block || !d->merge) return;
    xir_build_cond_br(&lw->b, cond, d->then_block, d->merge);
    xir_builder_at_end(&lw->b, d->then_block);
}

void lw_if_end(lowerer *lw, lw_if *d) {
    if (!lw_ok(lw) || !d->merge) return;
    xir_build_br(&lw->b, d->merge);
    d->then_end = lw->b.block;
    xir_builder_at_end(&lw->b, d->merge);
}

xir_value *lw_if_phi(lowerer *lw, lw_if *d, xir_value *then_value, xir_value *else_value) {
    if (!lw_ok(lw) || !then_value) return NULL;
    xir_inst *phi = xir_build_phi(&lw->b, then_value->type);
    lw_phi_add(lw, phi, then_value, d->then_end);
    lw_phi_add(lw, phi, else_value, d->from);
    return phi ? &phi->value : NULL;
}
