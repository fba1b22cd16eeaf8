/* represent.c — builds the representation plan (see represent.h) in one walk
 * of the admitted kernel in program order.  Values are planned at their
 * definition; a later runtime-indexed read marks an earlier SSA definition as
 * needing a snapshot, so flags are final only after the walk.  Multiplicities
 * multiply along the nesting: an unrolled map body by its domain volume, a
 * partitioned reduction body by its emissions, runtime loop bodies by one. */
#include "realize/represent.h"
#include "tir/form.h"
#include "scalar/math_ops.h"

#include "base/checked.h"
#include "base/context.h"
#include "realize/stream.h"

#include <string.h>

bool plan_bounded(const plan_repr_options *o, uint64_t n) {
    return o->record->max_unrolled_tile_elements != 0 && n > o->record->max_unrolled_tile_elements;
}

bool plan_ew_foldable(tir_ew_op op, tir_scalar operand_elem, tir_scalar result_elem) {
    (void)op; /* every integer/bool opcode folds; the math functions take floats only */
    return !tir_scalar_is_float(operand_elem) && !tir_scalar_is_float(result_elem);
}

/* Slot-space volumes (plan_local_volume): the extents themselves unless
 * packet-local. */
static uint64_t space_volume(const plan_repr_options *o, const tir_space *s) { return plan_local_volume(o->local, s); }

static uint64_t value_count(const plan_repr_options *o, const tir_value *v) {
    return v->type->kind == TIR_TYPE_TILE ? space_volume(o, v->type->space) : 1;
}

/* The number of contracted elements of an mma (a's axes absent from c) in
 * slot space: packet-local, a contraction over D folds each lane's slots,
 * unless the mma is ordered: then it steps over D's elements. */
static uint64_t mma_contraction(const plan_repr_options *o, const tir_op *op) {
    const tir_space *a = op->operands[0]->value->type->space, *c = op->operands[2]->value->type->space;
    uint64_t k = 1;
    for (uint32_t i = 0; i < a->rank; i++)
        if (tir_space_find(c, a->axes[i].dim) < 0)
            k *= op->allow_reassociation ? plan_local_extent(o->local, &a->axes[i]) : a->axes[i].extent;
    return k;
}

const plan_local_dim *plan_mma_over_local(const plan_local *local, const tir_op *op) {
    const tir_space *a = op->operands[0]->value->type->space, *c = op->operands[2]->value->type->space;
    for (uint32_t i = 0; i < a->rank; i++) {
        const plan_local_dim *d = plan_local_dim_of(local, &a->axes[i]);
        if (d && tir_space_find(c, a->axes[i].dim) < 0) return d;
    }
    return NULL;
}

/* One scalar carry used only by one two-operand elementwise update (ADD,
 * MUL, MIN or MAX when `associative`) that is the yield and used by nothing
 * else, in a body of constants, elementwise ops and extracts. */
static bool one_update(const tir_op *op, bool associative, const tir_op **update, bool *carry_left) {
    if (op->kind != TIR_OP_REDUCE || op->result_count != 1) return false;
    const tir_block *body = op->body;
    const tir_value *carry = body->args[body->arg_count - 1];
    if (carry->type->kind == TIR_TYPE_TILE || carry->use_count != 1) return false;
    const tir_op *yield = body->last;
    if (!yield || yield->kind != TIR_OP_YIELD || yield->operand_count != 1) return false;
    const tir_value *next = yield->operands[0]->value;
    const tir_op *u = next->def_op;
    if (!u || u->parent != body || u->kind != TIR_OP_ELEMENTWISE || next->use_count != 1) return false;
    if (associative && u->ew != TIR_EW_ADD && u->ew != TIR_EW_MUL && u->ew != TIR_EW_MIN && u->ew != TIR_EW_MAX)
        return false;
    if (u->operand_count != 2 || u->results[0]->type != carry->type) return false;
    bool left = u->operands[0]->value == carry, right = u->operands[1]->value == carry;
    if (left == right) return false;
    for (const tir_op *o = body->first; o; o = o->next)
        if (o->kind != TIR_OP_CONSTANT && o->kind != TIR_OP_ELEMENTWISE && o->kind != TIR_OP_EXTRACT &&
            o->kind != TIR_OP_YIELD)
            return false;
    *update = u;
    *carry_left = left;
    return true;
}

bool plan_reduce_is_closed(const tir_op *op, const tir_op **update, bool *carry_left) {
    return op->policy == TIR_REDUCE_UNORDERED_TREE && one_update(op, true, update, carry_left);
}

bool plan_reduce_is_simple(const tir_op *op, const tir_op **update, bool *carry_left) {
    return one_update(op, false, update, carry_left);
}

/* The closed partitioned form of a loop op, or false (ordered loop).  A
 * packet-local reduction over D partitions its full slots whatever their
 * number and P, and adds one emission for the tail slot. */
static bool plan_partitioned(const plan_repr_options *o, const tir_op *op, plan_op *po) {
    if (!tir_space_is_static(op->domain)) return false; /* runtime trips: an ordered loop (any order is the policy's) */
    uint64_t n = space_volume(o, op->domain);
    const tir_op *update;
    bool carry_left;
    const plan_local_dim *d = plan_local_dim_in(o->local, op->domain);
    bool closed = plan_reduce_is_closed(op, &update, &carry_left);
    if (d && !closed && plan_reduce_is_simple(op, &update, &carry_left)) {
        /* a fold over D that may not be regrouped (an ordered policy, or an
         * update that does not reassociate): every slot's contribution once,
         * then each element read from its lane in the policy's order (the
         * same condition as the admission's, realize/local.c) */
        po->partitioned = po->local = po->lane_order = true;
        po->count = d->slots;
        po->update = update;
        po->carry_left = carry_left;
        po->partitions = 1;
        po->body_emissions = d->slots;
        return true;
    }
    if (!closed) return false;
    if (d) {
        n = d->full_slots;
        po->local = true;
        po->local_tail = d->extent % o->local->lanes != 0;
    } else if (o->record->reduction_partitions < 2 || !plan_bounded(o, n)) {
        return false;
    }
    uint32_t P = o->record->reduction_partitions;
    po->partitioned = true;
    po->count = n;
    po->update = update;
    po->carry_left = carry_left;
    po->partitions = (uint32_t)(n < P ? n : P);
    po->bulk_loop = n > P && n - n % P > P;
    po->body_emissions = (n <= P ? n : P + (po->bulk_loop ? P : 0) + n % P) + po->local_tail;
    return true;
}

static uint64_t block_work(const plan_repr_options *o, const tir_block *b, bool *structured);

static bool map_is_runtime(const plan_repr_options *o, const tir_op *op, uint64_t body_work, bool structured) {
    uint64_t n = space_volume(o, op->domain);
    return plan_bounded(o, n) ||
           (o->max_unrolled_region_work != 0 && structured && saturated_mul_u64(n, body_work) > o->max_unrolled_region_work);
}

/* Traversed elements: one loop body when bounded, else every element. */
static uint64_t unrolled(const plan_repr_options *o, uint64_t n) { return plan_bounded(o, n) ? 1 : n; }

/* Potential work of a block under the plan's own decisions (saturating):
 * elements emitted by unrolled traversals, a runtime loop's body once, an
 * unrolled map's or partitioned reduction's body once per emission.
 * *structured is set when the block holds loops, maps or mma. */
static uint64_t block_work(const plan_repr_options *o, const tir_block *b, bool *structured) {
    uint64_t work = 0;
    for (const tir_op *op = b->first; op; op = op->next) {
        uint64_t w = 0;
        switch (op->kind) {
        case TIR_OP_CONSTANT:
        case TIR_OP_EXTRACT: w = 1; break;
        case TIR_OP_ELEMENTWISE: w = unrolled(o, value_count(o, op->results[0])); break;
        case TIR_OP_VIEW_LOAD:
        case TIR_OP_VIEW_STORE: w = op->domain ? unrolled(o, space_volume(o, op->domain)) : 1; break;
        case TIR_OP_MMA:
            *structured = true;
            w = saturated_mul_u64(unrolled(o, value_count(o, op->results[0])), unrolled(o, mma_contraction(o, op)));
            break;
        case TIR_OP_MAP: {
            *structured = true;
            bool inner = false;
            uint64_t body = block_work(o, op->body, &inner);
            w = map_is_runtime(o, op, body, inner) ? body : saturated_mul_u64(space_volume(o, op->domain), body);
            break;
        }
        case TIR_OP_IF: w = block_work(o, op->body, structured); break;
        case TIR_OP_SERIAL:
        case TIR_OP_PIPELINE:
        case TIR_OP_REDUCE: {
            *structured = true;
            plan_op po = {0};
            uint64_t body = block_work(o, op->body, structured);
            w = plan_partitioned(o, op, &po) ? saturated_mul_u64(po.body_emissions, body) : body;
            break;
        }
        default: break;
        }
        work = saturated_add_u64(work, w);
    }
    return work;
}

typedef struct {
    plan_repr *r;
    tilec_status status;
} planner;

static plan_value *pv(planner *p, const tir_value *v) { return &p->r->values[v->id]; }

static void set_value(planner *p, const tir_value *v, plan_form form, uint64_t mult) {
    plan_value *x = pv(p, v);
    x->form = form;
    x->elem = tir_value_elem(v);
    x->count = value_count(&p->r->options, v);
    x->multiplicity = mult;
    x->arrays = form == PLAN_FORM_ARRAY ? 1 : 0;
}

/* A Tile read at a runtime index: an SSA Tile of several elements needs its
 * definition snapshot. */
static void read_dynamically(planner *p, const tir_value *v) {
    plan_value *x = pv(p, v);
    if (x->form == PLAN_FORM_SSA && x->count > 1) x->snapshot = true;
}

static bool is_constant(planner *p, const tir_value *v) { return pv(p, v)->constant; }

static void plan_block(planner *p, const tir_block *b, uint64_t mult);

/* Coordinates on the distributed axis are W·q + lane: only q is constant. */
static void plan_coords(planner *p, const tir_op *op, bool constant, uint64_t mult) {
    for (uint32_t i = 0; i < op->domain->rank; i++) {
        set_value(p, op->body->args[i], PLAN_FORM_SCALAR, mult);
        bool split = plan_local_is_axis(p->r->options.local, &op->domain->axes[i]);
        pv(p, op->body->args[i])->constant = constant && !split;
        pv(p, op->body->args[i])->constant_slot = constant && split;
    }
}

/* Operations per element read of a recipe of op. */
static uint32_t recipe_ops(planner *p, const tir_op *op) {
    uint32_t n = 1;
    for (uint32_t i = 0; i < op->operand_count; i++) {
        const plan_value *x = pv(p, op->operands[i]->value);
        if (x->form == PLAN_FORM_RECIPE) n += x->ops;
    }
    return n;
}

/* A bounded elementwise result evaluated at its consumers (single-use, or
 * recomputed); its operands are read at runtime indices there. */
static void plan_recipe(planner *p, const tir_op *op, uint64_t mult) {
    const tir_value *res = op->results[0];
    set_value(p, res, PLAN_FORM_RECIPE, mult);
    uint32_t depth = 0;
    for (uint32_t i = 0; i < op->operand_count; i++) {
        const plan_value *x = pv(p, op->operands[i]->value);
        if (x->form == PLAN_FORM_RECIPE && x->depth > depth) depth = x->depth;
        read_dynamically(p, op->operands[i]->value);
    }
    pv(p, res)->depth = depth + 1;
    pv(p, res)->ops = recipe_ops(p, op);
    uint32_t limit = p->r->options.max_recipe_depth;
    if (depth + 1 > limit && !p->status)
        p->status = tilec_error(p->r->ctx, TILEC_E_BUDGET, "LOWER-B03", op->loc,
                                "depth budget: the deferred recipe of %s%s ('%s' op #%u) reaches depth %u, which exceeds "
                                "max_recipe_depth %u",
                                res->name ? "%" : "a value", res->name ? res->name : "", tir_ew_name(op->ew), op->id,
                                depth + 1, limit);
}

void plan_repr_set_fusion(plan_repr_options *o, uint32_t level) {
    o->stream = o->recompute = level >= 1;
    o->recompute_costly = level >= 2;
}

bool plan_ew_expensive(tir_ew_op op) {
    static const bool expensive[TIR_EW_COUNT] = {
#define CALL(e, dbl, flt, stem) [TIR_EW_##e] = true,
        TIR_SLEEF_MATH1(CALL) TIR_SLEEF_MATH2(CALL)
#undef CALL
        [TIR_EW_SIGMOID] = true, [TIR_EW_RSQRT] = true, [TIR_EW_SQRT] = true, [TIR_EW_DIV] = true, [TIR_EW_MOD] = true};
    return expensive[op];
}

/* With `recompute`, a cheap multi-use value is evaluated at each use rather
 * than stored: few uses, no expensive op, few operations per read; with
 * `recompute_costly` (the array it would need does not fit), any op and
 * more operations per read. */
static bool recomputed(planner *p, const tir_op *op) {
    const plan_repr_options *o = &p->r->options;
    return o->recompute && op->results[0]->use_count <= PLAN_RECOMPUTE_USES &&
           (o->recompute_costly ? recipe_ops(p, op) <= PLAN_RECOMPUTE_COSTLY_OPS
                                : !plan_ew_expensive(op->ew) && recipe_ops(p, op) <= PLAN_RECOMPUTE_OPS);
}

/* Whether an mma multiplies by v: it reads each element of its a or b
 * operand once per output along the other side, so a recipe would be
 * evaluated that many times (a bf16 tile's widening, per product). */
static bool mma_operand(const tir_value *v) {
    for (const tir_use *u = v->uses; u; u = u->next)
        if (u->user->kind == TIR_OP_MMA && u->index < 2) return true;
    return false;
}

static void plan_elementwise(planner *p, const tir_op *op, plan_op *po) {
    const tir_value *res = op->results[0];
    uint64_t mult = po->multiplicity;
    if (res->type->kind != TIR_TYPE_TILE) {
        set_value(p, res, PLAN_FORM_SCALAR, mult);
        bool constant = plan_ew_foldable(op->ew, tir_value_elem(op->operands[op->ew == TIR_EW_SELECT]->value),
                                         tir_value_elem(res));
        for (uint32_t i = 0; constant && i < op->operand_count; i++) constant = is_constant(p, op->operands[i]->value);
        pv(p, res)->constant = constant;
        return;
    }
    bool splat = true;
    for (uint32_t i = 0; i < op->operand_count; i++) {
        plan_form f = pv(p, op->operands[i]->value)->form;
        splat = splat && (f == PLAN_FORM_SCALAR || f == PLAN_FORM_SPLAT);
    }
    po->count = value_count(&p->r->options, res);
    if (splat) {
        set_value(p, res, PLAN_FORM_SPLAT, mult);
        return;
    }
    bool bounded = plan_bounded(&p->r->options, po->count);
    if (bounded && p->r->options.max_recipe_depth && (res->use_count == 1 || recomputed(p, op)) && !mma_operand(res)) {
        p->r->recomputed_values += res->use_count > 1;
        plan_recipe(p, op, mult);
        return;
    }
    po->runtime = bounded;
    set_value(p, res, po->runtime ? PLAN_FORM_ARRAY : PLAN_FORM_SSA, mult);
    if (po->runtime)
        for (uint32_t i = 0; i < op->operand_count; i++) read_dynamically(p, op->operands[i]->value);
}

static void plan_mma(planner *p, const tir_op *op, plan_op *po) {
    po->count = value_count(&p->r->options, op->results[0]);
    po->contraction = mma_contraction(&p->r->options, op);
    po->runtime = plan_bounded(&p->r->options, po->count);
    /* a contraction over D is unrolled: its lane partials are combined per output */
    po->contraction_runtime = plan_bounded(&p->r->options, po->contraction) && !plan_mma_over_local(p->r->options.local, op);
    set_value(p, op->results[0], po->runtime ? PLAN_FORM_ARRAY : PLAN_FORM_SSA, po->multiplicity);
    if (po->runtime || po->contraction_runtime) {
        read_dynamically(p, op->operands[0]->value);
        read_dynamically(p, op->operands[1]->value);
    }
    if (po->runtime) read_dynamically(p, op->operands[2]->value);
}

/* Operations per element of a coordinate map — a body of constants and
 * cheap scalar elementwise ops only (iota, masks of coordinates) — or
 * UINT32_MAX for any other map. */
static uint32_t coordinate_map_ops(const tir_op *op) {
    uint32_t n = 0;
    for (const tir_op *b = op->body->first; b; b = b->next) {
        if (b->kind == TIR_OP_YIELD || b->kind == TIR_OP_CONSTANT) continue;
        if (b->kind != TIR_OP_ELEMENTWISE || b->results[0]->type->kind == TIR_TYPE_TILE || plan_ew_expensive(b->ew))
            return UINT32_MAX;
        n++;
    }
    return n + 1; /* and the yield's conversion */
}

static void plan_map(planner *p, const tir_op *op, plan_op *po) {
    const plan_repr_options *o = &p->r->options;
    po->count = space_volume(o, op->domain);
    bool structured = false;
    uint64_t body_work = block_work(o, op->body, &structured);
    po->runtime = map_is_runtime(o, op, body_work, structured);
    uint32_t ops = coordinate_map_ops(op);
    if (po->runtime && o->recompute && o->max_recipe_depth && ops <= PLAN_RECOMPUTE_OPS &&
        op->results[0]->use_count <= PLAN_RECOMPUTE_USES) {
        /* recomputed: the body is emitted where an element is read */
        po->runtime = false;
        po->body_emissions = 1;
        plan_coords(p, op, false, po->multiplicity);
        plan_block(p, op->body, po->multiplicity);
        set_value(p, op->results[0], PLAN_FORM_RECIPE, po->multiplicity);
        pv(p, op->results[0])->depth = 1;
        pv(p, op->results[0])->ops = ops;
        p->r->recomputed_values++;
        return;
    }
    /* a peeled runtime map emits its body for the full slots and the tail */
    po->body_emissions = !po->runtime ? po->count : plan_local_peels(o->local, op->domain) ? 2 : 1;
    uint64_t body_mult = saturated_mul_u64(po->multiplicity, po->body_emissions);
    plan_coords(p, op, !po->runtime, body_mult);
    plan_block(p, op->body, body_mult);
    set_value(p, op->results[0], po->runtime ? PLAN_FORM_ARRAY : PLAN_FORM_SSA, po->multiplicity);
}

static void plan_loop(planner *p, const tir_op *op, plan_op *po) {
    const plan_repr_options *o = &p->r->options;
    po->sized = !tir_space_is_static(op->domain);
    po->count = po->sized ? 0 : space_volume(o, op->domain);
    if (po->sized) tir_space_volume_max(op->func->module, op->domain, &po->max_count); /* admitted: fits */
    bool constant_coords = false;
    const tir_form *trips = po->sized && op->domain->rank == 1
                                ? tir_extent_form(op->func->module, op->domain->axes[0].extent)
                                : NULL;
    po->peeled = tir_form_is_blocks(trips) &&
                 !(op->kind == TIR_OP_REDUCE && op->policy == TIR_REDUCE_FOLD_RIGHT);
    if (plan_partitioned(o, op, po)) constant_coords = !po->bulk_loop;
    else po->body_emissions = po->peeled ? 2 : 1;
    uint64_t body_mult = saturated_mul_u64(po->multiplicity, po->body_emissions);
    plan_coords(p, op, constant_coords, body_mult);
    uint32_t rank = op->domain->rank;
    for (uint32_t j = 0; j < op->result_count; j++) {
        const tir_value *arg = op->body->args[rank + j], *res = op->results[j];
        plan_form form = arg->type->kind != TIR_TYPE_TILE ? PLAN_FORM_SCALAR
                       : plan_bounded(o, value_count(o, arg)) ? PLAN_FORM_ARRAY
                                                           : PLAN_FORM_SSA;
        set_value(p, arg, form, body_mult);
        set_value(p, res, form, po->multiplicity);
        pv(p, arg)->arrays = 0;                                     /* the loop's current array */
        pv(p, res)->arrays = form == PLAN_FORM_ARRAY ? 2 : 0;       /* current + next */
    }
    plan_block(p, op->body, body_mult);
}

/* An if: its body once; carries as loops' (a bounded Tile buffered in a
 * current and a next array, lower/branch.c). */
static void plan_if(planner *p, const tir_op *op, plan_op *po) {
    const plan_repr_options *o = &p->r->options;
    po->count = 1;
    po->body_emissions = 1;
    for (uint32_t j = 0; j < op->result_count; j++) {
        const tir_value *arg = op->body->args[j], *res = op->results[j];
        plan_form form = arg->type->kind != TIR_TYPE_TILE ? PLAN_FORM_SCALAR
                       : plan_bounded(o, value_count(o, arg)) ? PLAN_FORM_ARRAY
                                                           : PLAN_FORM_SSA;
        set_value(p, arg, form, po->multiplicity);
        set_value(p, res, form, po->multiplicity);
        pv(p, arg)->arrays = 0;
        pv(p, res)->arrays = form == PLAN_FORM_ARRAY ? 2 : 0; /* current + next */
    }
    plan_block(p, op->body, po->multiplicity);
}

/* Whether v's elements are read without a stream of a parameter that may
 * overlap parameter `param` (its recipe tree, streams guarded apart). */
static bool reads_apart(planner *p, const tir_value *v, uint32_t param, uint32_t depth) {
    const plan_value *x = pv(p, v);
    if (x->form == PLAN_FORM_STREAM) {
        uint32_t from = v->def_op->operands[0]->value->index;
        return from != param && p->r->guards[from * p->r->params + param] == PLAN_GUARD_DISJOINT;
    }
    if (x->form != PLAN_FORM_RECIPE) return true;
    for (uint32_t i = 0; depth < 256 && i < v->def_op->operand_count; i++)
        if (!reads_apart(p, v->def_op->operands[i]->value, param, depth + 1)) return false;
    return depth < 256;
}

bool plan_store_joined(const plan_repr *r, const tir_op *op) {
    return op->prev && op->prev->kind == TIR_OP_VIEW_STORE && plan_op_of(r, op->prev)->joins_next;
}

/* Two bounded stores traversed as one (plan_op.joins_next), at most
 * PLAN_MAX_JOINED_STORES in a row. */
static bool joinable(planner *p, const tir_op *a, const tir_op *b) {
    uint32_t chain = 1;
    for (const tir_op *o = a; o && plan_store_joined(p->r, o); o = o->prev) chain++;
    if (!a || chain + 1 > PLAN_MAX_JOINED_STORES || a->kind != TIR_OP_VIEW_STORE || a->domain != b->domain ||
        !plan_op_of(p->r, a)->runtime ||
        (p->r->options.local && !plan_local_has_axis(p->r->options.local, a->domain)) ||
        !plan_stores_disjoint(a, b))
        return false;
    uint32_t param = a->operands[0]->value->index;
    return reads_apart(p, a->operands[a->operand_count - 1]->value, param, 0) &&
           reads_apart(p, b->operands[b->operand_count - 1]->value, param, 0);
}

static void plan_op_(planner *p, const tir_op *op, uint64_t mult) {
    plan_op *po = &p->r->ops[op->id];
    po->multiplicity = mult;
    switch (op->kind) {
    case TIR_OP_CONSTANT: {
        const tir_value *res = op->results[0];
        if (res->type->kind == TIR_TYPE_TILE) {
            set_value(p, res, PLAN_FORM_SPLAT, mult);
        } else {
            set_value(p, res, PLAN_FORM_SCALAR, mult);
            pv(p, res)->constant = !tir_scalar_is_float(tir_value_elem(res)) && !op->form; /* a runtime size's: uniform */
        }
        break;
    }
    case TIR_OP_ELEMENTWISE: plan_elementwise(p, op, po); break;
    case TIR_OP_EXTRACT:
        set_value(p, op->results[0], PLAN_FORM_SCALAR, mult);
        if (!plan_extract_constant(p->r, op)) read_dynamically(p, op->operands[0]->value);
        break;
    case TIR_OP_MMA: plan_mma(p, op, po); break;
    case TIR_OP_VIEW_LOAD:
        if (op->domain) {
            po->count = space_volume(&p->r->options, op->domain);
            po->runtime = plan_bounded(&p->r->options, po->count);
            if (po->runtime && p->r->options.stream && plan_stream_legal(op, p->r->guards, p->r->params)) {
                po->runtime = false; /* no traversal at the definition */
                p->r->streamed_loads++;
                set_value(p, op->results[0], PLAN_FORM_STREAM, mult);
                break;
            }
            set_value(p, op->results[0], po->runtime ? PLAN_FORM_ARRAY : PLAN_FORM_SSA, mult);
        } else {
            set_value(p, op->results[0], PLAN_FORM_SCALAR, mult);
        }
        break;
    case TIR_OP_VIEW_STORE:
        if (op->domain) {
            po->count = space_volume(&p->r->options, op->domain);
            po->runtime = plan_bounded(&p->r->options, po->count);
            if (po->runtime) read_dynamically(p, op->operands[op->operand_count - 1]->value);
            if (po->runtime && p->r->options.stream && joinable(p, op->prev, op)) p->r->ops[op->prev->id].joins_next = true;
        }
        break;
    case TIR_OP_MAP: plan_map(p, op, po); break;
    case TIR_OP_SERIAL:
    case TIR_OP_PIPELINE:
    case TIR_OP_REDUCE: plan_loop(p, op, po); break;
    case TIR_OP_IF: plan_if(p, op, po); break;
    case TIR_OP_PARALLEL:
        po->count = space_volume(&p->r->options, op->domain);
        po->peeled = plan_local_peels_root(p->r->options.local, op->func, op->domain);
        po->body_emissions = po->peeled ? 2 : 1;
        plan_coords(p, op, false, mult * po->body_emissions);
        plan_block(p, op->body, mult * po->body_emissions);
        break;
    default: break;
    }
}

bool plan_extract_constant(const plan_repr *r, const tir_op *extract) {
    const tir_space *s = extract->operands[0]->value->type->space;
    const plan_local *local = r->options.local;
    for (uint32_t i = 1; i < extract->operand_count; i++) {
        const plan_value *x = plan_value_of(r, extract->operands[i]->value);
        bool split = plan_local_is_axis(local, &s->axes[i - 1]);
        if (!(split ? x->constant_slot : x->constant)) return false;
    }
    return true;
}

static void plan_block(planner *p, const tir_block *b, uint64_t mult) {
    for (const tir_op *op = b->first; op && !p->status; op = op->next) plan_op_(p, op, mult);
}

tilec_status plan_represent(tilec_context *ctx, const tir_func *f, const plan_admission *admission,
                            const plan_repr_options *options, plan_repr *out) {
    memset(out, 0, sizeof *out);
    out->ctx = ctx;
    out->func = f;
    out->options = *options;
    out->admission = *admission;
    out->value_count = f->next_value_id;
    out->op_count = f->next_op_id;
    out->params = f->body->arg_count;
    out->values = tilec_alloc(ctx, sizeof *out->values * (out->value_count ? out->value_count : 1));
    out->ops = tilec_alloc(ctx, sizeof *out->ops * (out->op_count ? out->op_count : 1));
    out->guards = tilec_alloc(ctx, (size_t)out->params * out->params + 1);
    if (!out->values || !out->ops || !out->guards) {
        plan_repr_free(out);
        return tilec_error(ctx, TILEC_E_NOMEM, "LOWER-M01", tilec_no_loc(), "out of memory planning representations");
    }
    planner p = {out, TILEC_OK};
    const tir_block *body = f->body;
    for (uint32_t i = 0; i < body->arg_count; i++) {
        set_value(&p, body->args[i], PLAN_FORM_VIEW, 1);
        pv(&p, body->args[i])->arrays = 0;
    }
    plan_block(&p, body, 1);
    if (p.status) plan_repr_free(out);
    return p.status;
}

void plan_repr_free(plan_repr *r) {
    if (!r || !r->ctx) return;
    tilec_free(r->ctx, r->values);
    tilec_free(r->ctx, r->ops);
    tilec_free(r->ctx, r->guards);
    r->values = NULL;
    r->ops = NULL;
    r->guards = NULL;
}
