/* interp_exec.c — executes prepared TileIR (interp.c did every check that
 * memory safety depends on): elementwise with identity-join broadcasting,
 * extract, mma, view loads/stores with bounds guards, and the structured
 * regions in their documented orders (docs/interpreter.md).
 *
 * Invariants: an op writes only its own result slots (regions also write their
 * body's block arguments); view memory is touched only at addresses proven
 * inside the bound argument; runtime failures return a status with one
 * diagnostic and stop the run. */
#include "tir/fault.h"
#include "tir/interp.h"

#include "base/invariant.h"

#include <string.h>

/* Steps the row-major counter `idx` over `space` and moves each of the `n`
 * offsets by its stride along the axes that change; strides[k * rank + r] is
 * offset k's stride along axis r. */
static void advance(const tir_space *space, uint64_t *idx, unsigned n, uint64_t *off, const uint64_t *strides) {
    uint32_t rank = space->rank;
    for (uint32_t r = rank; r-- > 0;) {
        uint64_t e = space->axes[r].extent;
        for (unsigned k = 0; k < n; k++) off[k] += strides[(size_t)k * rank + r];
        if (++idx[r] < e) return;
        for (unsigned k = 0; k < n; k++) off[k] -= strides[(size_t)k * rank + r] * e;
        idx[r] = 0;
    }
}

static void copy_slot(interp_slot *to, const interp_slot *from) {
    memcpy(to->cells, from->cells, from->volume * sizeof *from->cells);
}

/* ---- elementwise, extract, mma ---- */

/* False when scalar_apply has no semantics for what preparation accepted. */
static bool eval_elementwise(const tir_op *op, const interp_step *s, const scalar_cell *args, scalar_cell *out) {
    if (op->ew == TIR_EW_CAST) {
        *out = scalar_cast(s->in[0]->elem, s->out[0]->elem, args[0]);
        return true;
    }
    return scalar_apply(op->ew, s->in[op->ew == TIR_EW_SELECT ? 1 : 0]->elem, args, out);
}

static tilec_status run_elementwise(interp *it, const tir_op *op, const interp_step *s) {
    unsigned n = op->operand_count;
    scalar_cell args[3];
    interp_slot *out = s->out[0];
    const tir_type *rt = op->results[0]->type;
    bool defined = true;
    if (rt->kind != TIR_TYPE_TILE) { /* scalar ops: the common case inside maps */
        for (unsigned k = 0; k < n; k++) args[k] = s->in[k]->cells[0];
        defined = eval_elementwise(op, s, args, &out->cells[0]);
    } else {
        uint64_t idx[TIR_INTERP_MAX_RANK] = {0}, off[3] = {0};
        for (uint64_t e = 0; e < out->volume && defined; e++) {
            for (unsigned k = 0; k < n; k++) args[k] = s->in[k]->cells[off[k]];
            defined = eval_elementwise(op, s, args, &out->cells[e]);
            advance(rt->space, idx, n, off, s->strides);
        }
    }
    return TILEC_INVARIANT(it->ctx, defined) ? TILEC_OK : TILEC_E_INTERNAL;
}

static tilec_status run_extract(interp *it, const tir_op *op, const interp_step *s) {
    const interp_slot *tile = s->in[0];
    const tir_space *space = tile->value->type->space;
    uint64_t flat = 0;
    for (uint32_t a = 0; a < space->rank; a++) {
        int64_t c = scalar_coord(s->in[1 + a]->elem, s->in[1 + a]->cells[0]);
        if (c < 0 || (uint64_t)c >= space->axes[a].extent) {
            tir_fault_site site = tir_fault_site_of(op, a);
            return tir_fault_report(it->ctx, &site, c);
        }
        flat += (uint64_t)c * s->strides[a];
    }
    s->out[0]->cells[0] = tile->cells[flat];
    return TILEC_OK;
}

/* out[o] = c[o] + Σ_k conv(a)·conv(b), k in the prepared lexicographic order,
 * one rounding-free FP64 (or wrapping integer) step at a time. */
static tilec_status run_mma(interp *it, const interp_step *s) {
    const interp_slot *a = s->in[0], *b = s->in[1], *c = s->in[2];
    interp_slot *out = s->out[0];
    tir_scalar ce = c->elem;
    bool conv_a = a->elem != ce, conv_b = b->elem != ce, is_float = tir_scalar_is_float(ce);
    uint64_t idx[TIR_INTERP_MAX_RANK] = {0}, off[2] = {0};
    bool defined = true;
    for (uint64_t n = 0; n < out->volume; n++) {
        scalar_cell acc = c->cells[n];
        for (uint64_t k = 0; k < s->k_volume; k++) {
            scalar_cell x = a->cells[off[0] + s->k_off_a[k]], y = b->cells[off[1] + s->k_off_b[k]];
            if (conv_a) x = scalar_cast(a->elem, ce, x);
            if (conv_b) y = scalar_cast(b->elem, ce, y);
            if (is_float) {
                double product = x.f * y.f; /* separate statements: never contracted to an FMA */
                acc.f = acc.f + product;
            } else {
                scalar_cell xy[2] = {x, y}, sum[2] = {acc, acc};
                defined = scalar_apply(TIR_EW_MUL, ce, xy, &sum[1]) && scalar_apply(TIR_EW_ADD, ce, sum, &acc) && defined;
            }
        }
        out->cells[n] = acc;
        advance(c->value->type->space, idx, 2, off, s->strides);
    }
    return TILEC_INVARIANT(it->ctx, defined) ? TILEC_OK : TILEC_E_INTERNAL;
}

/* ---- memory ---- */

/* The part of a subtile access inside the view: tile element e is in bounds
 * iff lo[a] <= e[a] < hi[a] on every axis a; step[a] is the element offset
 * between neighbours along a (view stride times tile stride). */
typedef struct {
    int64_t origin[TIR_INTERP_MAX_RANK];
    uint64_t lo[TIR_INTERP_MAX_RANK], hi[TIR_INTERP_MAX_RANK], step[TIR_INTERP_MAX_RANK];
    uint64_t base; /* Σ origin·stride modulo 2^64: exact once an in-bounds offset is added */
    bool all_in;
} access_window;

static uint64_t ceil_div_u64(uint64_t x, uint64_t s) { return x / s + (x % s != 0); }

static void compute_window(const interp_view *v, const interp_step *s, const tir_op *op, access_window *w) {
    const tir_space *tile = op->domain;
    w->base = 0;
    w->all_in = true;
    for (uint32_t a = 0; a < tile->rank; a++) {
        int64_t o = scalar_coord(s->in[1 + a]->elem, s->in[1 + a]->cells[0]);
        uint64_t n = tile->axes[a].extent, extent = v->space->axes[a].extent, t = tir_op_stride(op, a), lo, hi;
        /* 0 <= o + e·t < extent  <=>  ceil(-o / t) <= e < ceil((extent - o) / t); view extents are at most
         * INT64_MAX, so extent - o fits a u64. */
        if (o >= 0) {
            lo = 0;
            hi = (uint64_t)o >= extent ? 0 : ceil_div_u64(extent - (uint64_t)o, t);
        } else {
            lo = ceil_div_u64(0 - (uint64_t)o, t);
            hi = ceil_div_u64(extent + (0 - (uint64_t)o), t);
        }
        lo = lo < n ? lo : n;
        hi = hi < n ? hi : n;
        if (hi < lo) hi = lo;
        w->origin[a] = o;
        w->lo[a] = lo;
        w->hi[a] = hi;
        w->step[a] = v->strides[a] * t;
        w->all_in = w->all_in && lo == 0 && hi == n;
        w->base += (uint64_t)o * v->strides[a];
    }
}

static bool window_contains(const access_window *w, uint32_t rank, const uint64_t *idx) {
    if (w->all_in) return true;
    for (uint32_t a = 0; a < rank; a++)
        if (idx[a] < w->lo[a] || idx[a] >= w->hi[a]) return false;
    return true;
}

static tilec_status assume_violated(interp *it, const tir_op *op, const access_window *w) {
    uint32_t a = 0;
    while (w->lo[a] == 0 && w->hi[a] == op->domain->axes[a].extent) a++;
    tir_fault_site site = tir_fault_site_of(op, a);
    return tir_fault_report(it->ctx, &site, w->origin[a]);
}

/* Tells the trace (if any) that op touched element `element` of its view. */
static void traced(const interp *it, const tir_op *op, uint64_t element) {
    if (!it->trace) return;
    const tir_op *root = NULL;
    for (const tir_op *o = it->func->body->first; o && !root; o = o->next)
        if (o->kind == TIR_OP_PARALLEL) root = o;
    int64_t coords[TIR_INTERP_MAX_RANK];
    bool inside = false;
    for (const tir_block *b = op->parent; b && !inside; b = b->parent_op ? b->parent_op->parent : NULL)
        inside = b->parent_op == root;
    for (uint32_t a = 0; inside && a < root->domain->rank; a++)
        coords[a] = it->slots[root->body->args[a]->id].cells[0].i;
    it->trace->access(it->trace->user, op, op->operands[0]->value->index, element, inside ? coords : NULL);
}

static tilec_status run_subtile(interp *it, const tir_op *op, const interp_step *s) {
    const interp_view *v = s->view;
    const tir_space *space = op->domain;
    access_window w;
    compute_window(v, s, op, &w);
    if (op->bounds == TIR_BOUNDS_ASSUME && !w.all_in) return assume_violated(it, op, &w);
    uint64_t idx[TIR_INTERP_MAX_RANK] = {0}, addr = w.base;
    if (op->kind == TIR_OP_VIEW_LOAD) {
        scalar_cell fill = {.u = 0}; /* all-zero bits are zero in every element type */
        if (op->has_fill) fill = s->in[1 + space->rank]->cells[0];
        interp_slot *out = s->out[0];
        for (uint64_t n = 0; n < out->volume; n++) {
            bool in = window_contains(&w, space->rank, idx);
            out->cells[n] = in ? scalar_read(v->elem, v->data + addr * v->elem_size) : fill;
            if (in) traced(it, op, addr);
            advance(space, idx, 1, &addr, w.step);
        }
    } else {
        const interp_slot *value = s->in[1 + space->rank];
        for (uint64_t n = 0; n < value->volume; n++) {
            if (window_contains(&w, space->rank, idx)) {
                scalar_write(v->elem, v->data + addr * v->elem_size, value->cells[n]);
                traced(it, op, addr);
            }
            advance(space, idx, 1, &addr, w.step);
        }
    }
    return TILEC_OK;
}

/* The element offset of a scalar access; scalar accesses have no guard, so an
 * index outside the view is a runtime error. */
static tilec_status element_offset(interp *it, const tir_op *op, const interp_step *s, uint64_t *offset) {
    const tir_space *view = s->view->space;
    *offset = 0;
    for (uint32_t a = 0; a < view->rank; a++) {
        int64_t c = scalar_coord(s->in[1 + a]->elem, s->in[1 + a]->cells[0]);
        if (c < 0 || (uint64_t)c >= view->axes[a].extent) {
            tir_fault_site site = tir_fault_site_of(op, a);
            return tir_fault_report(it->ctx, &site, c);
        }
        *offset += (uint64_t)c * s->view->strides[a];
    }
    return TILEC_OK;
}

static tilec_status run_element(interp *it, const tir_op *op, const interp_step *s) {
    const interp_view *v = s->view;
    uint32_t rank = v->space->rank;
    if (op->kind == TIR_OP_VIEW_LOAD && op->masked && !s->in[1 + rank]->cells[0].u) {
        s->out[0]->cells[0] = s->in[2 + rank]->cells[0]; /* the predicate is false: no read */
        return TILEC_OK;
    }
    uint64_t offset;
    tilec_status st = element_offset(it, op, s, &offset);
    if (st) return st;
    unsigned char *p = v->data + offset * v->elem_size;
    if (op->kind == TIR_OP_VIEW_LOAD) s->out[0]->cells[0] = scalar_read(v->elem, p);
    else scalar_write(v->elem, p, s->in[1 + rank]->cells[0]);
    traced(it, op, offset);
    return TILEC_OK;
}

/* ---- regions ---- */

typedef struct {
    const tir_space *space;
    bool reverse;
    uint64_t idx[TIR_INTERP_MAX_RANK];
} odometer;

/* Positions at the first coordinate (the last one when reversed); false when
 * the domain is empty. */
static bool odometer_start(odometer *o, const tir_space *space, bool reverse) {
    o->space = space;
    o->reverse = reverse;
    for (uint32_t a = 0; a < space->rank; a++) {
        if (space->axes[a].extent == 0) return false;
        o->idx[a] = reverse ? space->axes[a].extent - 1 : 0;
    }
    return true;
}

/* Lexicographic successor (predecessor when reversed); false after the end. */
static bool odometer_next(odometer *o) {
    for (uint32_t r = o->space->rank; r-- > 0;) {
        uint64_t e = o->space->axes[r].extent;
        if (!o->reverse) {
            if (++o->idx[r] < e) return true;
            o->idx[r] = 0;
        } else {
            if (o->idx[r] > 0) {
                o->idx[r]--;
                return true;
            }
            o->idx[r] = e - 1;
        }
    }
    return false;
}

static void bind_coords(const interp_step *s, const odometer *o) {
    for (uint32_t a = 0; a < o->space->rank; a++) s->body_args[a]->cells[0].i = (int64_t)o->idx[a];
}

/* parallel (row-major; instances are independent, so any order is valid) and map. */
static tilec_status run_instances(interp *it, const tir_op *op, const interp_step *s) {
    odometer o;
    uint64_t n = 0;
    if (!odometer_start(&o, op->domain, false)) return TILEC_OK;
    do {
        bind_coords(s, &o);
        tilec_status st = interp_run_block(it, op->body);
        if (st) return st;
        if (op->kind == TIR_OP_MAP) s->out[0]->cells[n++] = s->yields[0]->cells[0];
    } while (odometer_next(&o));
    return TILEC_OK;
}

/* serial / pipeline / reduce.  The results hold the current carries: the body
 * sees a copy of them, and all yields land in the results before the next
 * iteration copies them back, which makes the assignment simultaneous. */
static tilec_status run_loop(interp *it, const tir_op *op, const interp_step *s) {
    uint32_t rank = op->domain->rank, carries = op->result_count;
    for (uint32_t i = 0; i < carries; i++) copy_slot(s->out[i], s->in[i]);
    bool reverse = op->kind == TIR_OP_REDUCE && op->policy == TIR_REDUCE_FOLD_RIGHT;
    odometer o;
    if (!odometer_start(&o, op->domain, reverse)) return TILEC_OK; /* zero trips: the initial values */
    do {
        for (uint32_t i = 0; i < carries; i++) copy_slot(s->body_args[rank + i], s->out[i]);
        bind_coords(s, &o);
        tilec_status st = interp_run_block(it, op->body);
        if (st) return st;
        for (uint32_t i = 0; i < carries; i++) copy_slot(s->out[i], s->yields[i]);
    } while (odometer_next(&o));
    return TILEC_OK;
}

/* if: the body once when the condition holds, else the initial carries. */
static tilec_status run_if(interp *it, const tir_op *op, const interp_step *s) {
    uint32_t carries = op->result_count;
    for (uint32_t i = 0; i < carries; i++) copy_slot(s->out[i], s->in[i]);
    if (!s->in[carries]->cells[0].u) return TILEC_OK;
    for (uint32_t i = 0; i < carries; i++) copy_slot(s->body_args[i], s->in[i]);
    tilec_status st = interp_run_block(it, op->body);
    for (uint32_t i = 0; !st && i < carries; i++) copy_slot(s->out[i], s->yields[i]);
    return st;
}

static tilec_status run_op(interp *it, const tir_op *op) {
    const interp_step *s = &it->steps[op->id];
    switch (op->kind) {
    case TIR_OP_ELEMENTWISE: return run_elementwise(it, op, s);
    case TIR_OP_EXTRACT: return run_extract(it, op, s);
    case TIR_OP_MMA: return run_mma(it, s);
    case TIR_OP_VIEW_LOAD:
    case TIR_OP_VIEW_STORE: return op->domain ? run_subtile(it, op, s) : run_element(it, op, s);
    case TIR_OP_PARALLEL:
    case TIR_OP_MAP: return run_instances(it, op, s);
    case TIR_OP_SERIAL:
    case TIR_OP_PIPELINE:
    case TIR_OP_REDUCE: return run_loop(it, op, s);
    case TIR_OP_IF: return run_if(it, op, s);
    default: return TILEC_OK; /* constants were filled while preparing; stage is a no-op */
    }
}

tilec_status interp_run_block(interp *it, const tir_block *b) {
    for (const tir_op *op = b->first; op && op->kind != TIR_OP_YIELD; op = op->next) {
        tilec_status st = run_op(it, op);
        if (st) return st;
    }
    return TILEC_OK;
}
