/* map.c — map: the body is emitted once per element with constant
 * coordinates (an SSA Tile) for small domains, or once inside a runtime loop
 * that stores each yielded scalar into a private array when the domain is
 * bounded or its potential nested work exceeds max_unrolled_region_work (the
 * plan decides; see represent.h), or, a recomputed coordinate map, where each
 * element is read.  The yielded scalar is converted to the map's element
 * type (an Index yield). */
#include "lower/internal.h"

typedef struct {
    const tir_op *op;
    lv *out;
} map_job;

static void visit_map(lowerer *lw, void *user, xir_value *flat, xir_value *const *coords) {
    map_job *j = user;
    lw_bind_coord_values(lw, j->op, coords);
    lower_block(lw, j->op->body, NULL);
    lv *y = lw_yielded(lw, j->op, 0);
    if (!y) return;
    xir_value *v = lw_cast(lw, y->value, j->out->elem);
    int64_t k;
    if (j->out->form == LV_ARRAY) lw_array_write(lw, j->out->array, flat, v);
    else if (lw_const_int(flat, &k)) j->out->elems[k] = v;
}

/* Element `flat` of a recomputed coordinate map: its body at the element. */
xir_value *lw_read_map_recipe(lowerer *lw, const lv *rec, xir_value *flat) {
    xir_value *coords[PLAN_MAX_RANK];
    lw_decode(lw, rec->space, flat, coords);
    lw_bind_coord_values(lw, rec->op, coords);
    lower_block(lw, rec->op->body, NULL);
    lv *y = lw_yielded(lw, rec->op, 0);
    return y ? lw_cast(lw, y->value, rec->elem) : NULL;
}

void lower_map(lowerer *lw, const tir_op *op) {
    const tir_value *res = op->results[0];
    const plan_value *pv = plan_value_of(lw->plan, res);
    if (pv->form == PLAN_FORM_RECIPE) {
        lv *rec = lw_alloc(lw, sizeof *rec);
        if (!rec) return;
        *rec = (lv){.form = LV_RECIPE, .elem = pv->elem, .count = pv->count, .op = op, .space = op->domain};
        lw->counters.deferred_expressions++;
        lw_bind(lw, res, rec);
        return;
    }
    bool runtime = plan_op_of(lw->plan, op)->runtime;
    map_job job = {op, runtime ? lw_array(lw, pv->elem, pv->count) : lw_ssa(lw, pv->elem, pv->count)};
    if (!job.out) return;
    if (runtime) lw->counters.runtime_maps++;
    else lw->counters.unrolled_maps++;
    lw_traverse(lw, op->domain, runtime, visit_map, &job);
    lw_bind(lw, res, job.out);
}
