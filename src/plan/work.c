/* work.c — work extraction (see work.h).  One walk of the admitted kernel in
 * program order with a repetition factor `rep` (dynamic executions per
 * program); every charge follows the representation plan's decision for the
 * value or op, mirroring what the lowerer emits for it:
 *
 *   arithmetic  one per executed scalar/splat/element operation (constant
 *               scalars fold to nothing), 2·outputs·contraction for mma, the
 *               partial combines of partitioned reductions, 2 per runtime
 *               loop iteration (increment, compare) plus its coordinate
 *               decode, (4 + 3·rank) per runtime-indexed extract, one
 *               address add per view element, and the root decode once
 *   private     one gathered access per private array element written (ARRAY
 *               definitions, definition snapshots, carry copies) or read at
 *               a runtime index (ARRAY, snapshot); recipes charge their op and
 *               their operands' reads at every element read
 *   view        one access per element, classified by address slope
 *
 * Slopes of scalar values relative to the fast root digit: integer constants
 * (slope 0, value known), root coordinates (the digit's scale on the fast
 * axis, 0 elsewhere), other region coordinates (0: every lane runs the same
 * iteration), add/sub/neg/cast of known slopes, mul by a known constant, and
 * any op of slope-0 operands; everything else (extracts, loads, carries) is
 * unknown and prices as a gather. */
#include "plan/work.h"

#include "base/context.h"

#include <math.h>

typedef struct {
    bool known, has_value;
    double slope;
    int64_t value;
} slope_info;

typedef struct {
    const plan_repr *r;
    slope_info *slopes; /* by value id */
    bool has_fast;
    uint32_t fast_axis;
    double fast_scale;
    double arith, broadcast, contiguous, gathered, priv;
} walker;

static uint64_t volume_of(const tir_space *s) {
    uint64_t v = 1;
    for (uint32_t i = 0; i < s->rank; i++) v *= s->axes[i].extent; /* admitted: fits */
    return v;
}

/* Runtime coordinate decode of a flat index over s: a div and a mod per
 * non-unit axis, except the div by 1 and the mod of the leading axis. */
static double decode_ops(const tir_space *s) {
    uint32_t nonunit = 0;
    for (uint32_t i = 0; i < s->rank; i++) nonunit += s->axes[i].extent != 1;
    return nonunit ? 2.0 * (nonunit - 1) : 0;
}

/* A runtime loop over s executed `rep` times: increment + compare + decode. */
static void runtime_traversal(walker *w, const tir_space *s, double rep) {
    w->arith += rep * (double)volume_of(s) * (2 + decode_ops(s));
}

static void snapshot(walker *w, const tir_value *v, double rep) {
    const plan_value *pv = plan_value_of(w->r, v);
    if (pv->snapshot) w->priv += rep * (double)pv->count;
}

/* `times` reads of elements of v at constant (runtime = false) or runtime
 * flat indices, as lw_read realizes them. */
static void read_elements(walker *w, const tir_value *v, bool runtime, double times) {
    if (v->type->kind != TIR_TYPE_TILE || times == 0) return;
    const plan_value *pv = plan_value_of(w->r, v);
    switch (pv->form) {
    case PLAN_FORM_SSA:
        if (runtime && pv->count > 1) w->priv += times; /* the definition snapshot */
        break;
    case PLAN_FORM_ARRAY: w->priv += times; break;
    case PLAN_FORM_RECIPE: {
        const tir_op *op = v->def_op;
        w->arith += times;
        for (uint32_t i = 0; i < op->operand_count; i++) read_elements(w, op->operands[i]->value, runtime, times);
        break;
    }
    default: break; /* scalars and splats are SSA values */
    }
}

/* ---- slopes ---- */

static slope_info *slope_of(walker *w, const tir_value *v) { return &w->slopes[v->id]; }

static void set_slope(walker *w, const tir_value *v, double slope) {
    *slope_of(w, v) = (slope_info){.known = true, .slope = slope};
}

static void slope_constant(walker *w, const tir_op *op) {
    const tir_value *res = op->results[0];
    if (res->type->kind == TIR_TYPE_TILE) return;
    slope_info *s = slope_of(w, res);
    *s = (slope_info){.known = true, .slope = 0};
    if (op->literal.kind == TIR_LIT_INT) s->has_value = true, s->value = op->literal.as.i;
    if (op->literal.kind == TIR_LIT_UINT && op->literal.as.u <= INT64_MAX) s->has_value = true, s->value = (int64_t)op->literal.as.u;
    if (op->literal.kind == TIR_LIT_BOOL) s->has_value = true, s->value = op->literal.as.b;
}

static void slope_elementwise(walker *w, const tir_op *op) {
    const tir_value *res = op->results[0];
    if (res->type->kind == TIR_TYPE_TILE) return;
    const slope_info *x = slope_of(w, op->operands[0]->value);
    const slope_info *y = op->operand_count > 1 ? slope_of(w, op->operands[1]->value) : x;
    bool all_uniform = true;
    for (uint32_t i = 0; i < op->operand_count; i++) {
        const slope_info *s = slope_of(w, op->operands[i]->value);
        all_uniform = all_uniform && s->known && s->slope == 0;
    }
    if (!x->known || !y->known) {
        if (all_uniform) set_slope(w, res, 0);
        return;
    }
    switch (op->ew) {
    case TIR_EW_ADD: set_slope(w, res, x->slope + y->slope); break;
    case TIR_EW_SUB: set_slope(w, res, x->slope - y->slope); break;
    case TIR_EW_NEG: set_slope(w, res, -x->slope); break;
    case TIR_EW_CAST: set_slope(w, res, x->slope); break;
    case TIR_EW_MUL:
        if (x->has_value) set_slope(w, res, (double)x->value * y->slope);
        else if (y->has_value) set_slope(w, res, x->slope * (double)y->value);
        else if (all_uniform) set_slope(w, res, 0);
        break;
    default:
        if (all_uniform) set_slope(w, res, 0);
        break;
    }
}

/* One view access of `op` (load or store, tile or scalar), `times` times. */
static void view_access(walker *w, const tir_op *op, double times) {
    const tir_space *view = op->operands[0]->value->type->space;
    double slope = 0, stride = 1;
    bool known = true;
    for (uint32_t a = view->rank; a-- > 0;) {
        const slope_info *s = slope_of(w, op->operands[1 + a]->value);
        known = known && s->known;
        if (known) slope += s->slope * stride;
        stride *= (double)view->axes[a].extent;
    }
    if (known && slope == 0 && op->kind == TIR_OP_VIEW_LOAD) w->broadcast += times;
    else if (known && fabs(slope) == 1) w->contiguous += times;
    else w->gathered += times;
}

/* ---- ops ---- */

static void walk_block(walker *w, const tir_block *b, double rep);

static void walk_elementwise(walker *w, const tir_op *op, double rep) {
    const tir_value *res = op->results[0];
    const plan_value *pv = plan_value_of(w->r, res);
    slope_elementwise(w, op);
    switch (pv->form) {
    case PLAN_FORM_SCALAR:
        if (!pv->constant) w->arith += rep;
        return;
    case PLAN_FORM_SPLAT: w->arith += rep; return;
    case PLAN_FORM_RECIPE: return; /* charged where it is read */
    default: break;
    }
    bool runtime = pv->form == PLAN_FORM_ARRAY;
    double n = rep * (double)pv->count;
    w->arith += n;
    for (uint32_t i = 0; i < op->operand_count; i++) read_elements(w, op->operands[i]->value, runtime, n);
    if (runtime) {
        w->priv += n;
        runtime_traversal(w, res->type->space, rep);
    }
    snapshot(w, res, rep);
}

static void walk_extract(walker *w, const tir_op *op, double rep) {
    const tir_value *tile = op->operands[0]->value;
    bool constant = true;
    for (uint32_t i = 1; i < op->operand_count; i++) constant = constant && plan_value_of(w->r, op->operands[i]->value)->constant;
    if (!constant) w->arith += rep * (4 + 3.0 * tile->type->space->rank);
    read_elements(w, tile, !constant, rep);
}

static void walk_view(walker *w, const tir_op *op, double rep) {
    if (!op->domain) {
        view_access(w, op, rep);
        return;
    }
    const plan_op *po = plan_op_of(w->r, op);
    double n = rep * (double)po->count;
    view_access(w, op, n);
    w->arith += n; /* base + element offset */
    if (op->kind == TIR_OP_VIEW_STORE) {
        read_elements(w, op->operands[op->operand_count - 1]->value, po->runtime, n);
    } else {
        if (po->runtime) w->priv += n;
        snapshot(w, op->results[0], rep);
    }
    if (po->runtime) runtime_traversal(w, op->domain, rep);
}

static void walk_map(walker *w, const tir_op *op, double rep) {
    const plan_op *po = plan_op_of(w->r, op);
    double n = rep * (double)po->count;
    walk_block(w, op->body, n);
    if (po->runtime) {
        w->priv += n;
        runtime_traversal(w, op->domain, rep);
    }
    snapshot(w, op->results[0], rep);
}

/* A buffered (ARRAY) carry: init copy, then per trip next ← yield and
 * current ← next, each a runtime copy loop. */
static void buffered_carry(walker *w, const tir_op *op, uint32_t j, double rep, double trips) {
    const plan_value *pv = plan_value_of(w->r, op->body->args[op->domain->rank + j]);
    double n = (double)pv->count, init = rep * n, per_trip = rep * trips * n;
    read_elements(w, op->operands[j]->value, true, init);
    w->priv += init;
    read_elements(w, op->body->last->operands[j]->value, true, per_trip);
    w->priv += 3 * per_trip;
    w->arith += 2 * init + 4 * per_trip;
}

static void walk_loop(walker *w, const tir_op *op, double rep) {
    const plan_op *po = plan_op_of(w->r, op);
    double trips = (double)po->count;
    walk_block(w, op->body, rep * trips);
    if (po->partitioned) {
        w->arith += rep * po->partitions; /* partials into a total, then the seed */
        if (po->bulk_loop) {
            uint64_t P = po->partitions, bulk = po->count - po->count % P;
            w->arith += rep * 2.0 * (double)(bulk / P - 1);
        }
        return;
    }
    runtime_traversal(w, op->domain, rep);
    for (uint32_t j = 0; j < op->result_count; j++)
        if (plan_value_of(w->r, op->body->args[op->domain->rank + j])->form == PLAN_FORM_ARRAY)
            buffered_carry(w, op, j, rep, trips);
}

static void walk_mma(walker *w, const tir_op *op, double rep) {
    const plan_op *po = plan_op_of(w->r, op);
    double n = rep * (double)po->count, terms = n * (double)po->contraction;
    bool runtime_operands = po->runtime || po->contraction_runtime;
    w->arith += 2 * terms;
    read_elements(w, op->operands[0]->value, runtime_operands, terms);
    read_elements(w, op->operands[1]->value, runtime_operands, terms);
    read_elements(w, op->operands[2]->value, po->runtime, n);
    if (po->runtime) {
        w->priv += n;
        runtime_traversal(w, op->results[0]->type->space, rep);
    }
    if (po->contraction_runtime) w->arith += 2 * (po->runtime ? terms : rep * (double)po->contraction);
    snapshot(w, op->results[0], rep);
}

static void walk_op(walker *w, const tir_op *op, double rep) {
    switch (op->kind) {
    case TIR_OP_CONSTANT: slope_constant(w, op); break;
    case TIR_OP_ELEMENTWISE: walk_elementwise(w, op, rep); break;
    case TIR_OP_EXTRACT: walk_extract(w, op, rep); break;
    case TIR_OP_VIEW_LOAD:
    case TIR_OP_VIEW_STORE: walk_view(w, op, rep); break;
    case TIR_OP_MAP:
        for (uint32_t i = 0; i < op->domain->rank; i++) set_slope(w, op->body->args[i], 0);
        walk_map(w, op, rep);
        break;
    case TIR_OP_SERIAL:
    case TIR_OP_PIPELINE:
    case TIR_OP_REDUCE:
        for (uint32_t i = 0; i < op->domain->rank; i++) set_slope(w, op->body->args[i], 0);
        walk_loop(w, op, rep);
        break;
    case TIR_OP_MMA: walk_mma(w, op, rep); break;
    case TIR_OP_PARALLEL:
        for (uint32_t i = 0; i < op->domain->rank; i++)
            set_slope(w, op->body->args[i], w->has_fast && i == w->fast_axis ? w->fast_scale : 0);
        walk_block(w, op->body, rep);
        break;
    default: break; /* stage, yield */
    }
}

static void walk_block(walker *w, const tir_block *b, double rep) {
    for (const tir_op *op = b->first; op; op = op->next) walk_op(w, op, rep);
}

tilec_status plan_extract_work(const plan_repr *repr, const plan_root_map *map, uint32_t packet_width,
                               const plan_cost_coefficients *c, plan_work *out) {
    walker w = {.r = repr};
    w.slopes = tilec_alloc(repr->ctx, sizeof *w.slopes * (repr->value_count ? repr->value_count : 1));
    if (!w.slopes)
        return tilec_error(repr->ctx, TILEC_E_NOMEM, "PLAN-M01", tilec_no_loc(), "out of memory extracting work");
    /* The physical fast digit and the root decode (charged once). */
    uint64_t fast_extent = 1;
    double decode = 0;
    for (uint32_t t = map->rank; t-- > 0;) {
        const plan_root_digit *d = &map->digits[t];
        if (d->extent == 1) continue;
        decode += 1 + (d->divisor != 1) + d->needs_mod; /* div, mod, widening cast */
        if (!w.has_fast) {
            w.has_fast = true;
            w.fast_axis = d->axis;
            w.fast_scale = 1;
            fast_extent = d->extent;
        }
    }
    w.arith = decode;
    walk_block(&w, repr->func->body, 1);
    tilec_free(repr->ctx, w.slopes);

    double W = packet_width;
    double view = w.broadcast * c->broadcast_load + w.contiguous * c->contiguous_memory +
                  w.gathered * c->gathered_lane * W;
    out->ragged_innermost = fast_extent % packet_width != 0;
    if (out->ragged_innermost) view *= 2;
    out->arithmetic_ops = w.arith;
    out->decode_ops = decode;
    out->broadcast_loads = w.broadcast;
    out->contiguous_accesses = w.contiguous;
    out->gathered_accesses = w.gathered;
    out->private_accesses = w.priv;
    out->arithmetic_per_packet = w.arith * c->arithmetic;
    out->memory_per_packet = view + w.priv * c->gathered_lane * W;
    return TILEC_OK;
}
