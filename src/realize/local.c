/* local.c — packet-local admission (see local.h).  One walk over the root
 * program in program order: the first nonunit axis fixes D and N, every
 * later one must match; the first violation is the reason. */
#include "realize/local.h"

#include "realize/represent.h"
#include "tir/form.h"

#include <stdarg.h>
#include <stdio.h>

static const struct {
    const char *code, *reason;
} refusal_table[PLAN_LOCAL_REFUSAL_COUNT] = {
    [PLAN_LOCAL_ADMITTED] = {"LOWER-L", "admitted"},
#define X(e, code, reason) [PLAN_LOCAL_REFUSE_##e] = {code, reason},
    PLAN_LOCAL_REFUSALS(X)
#undef X
};

const char *plan_local_refusal_code(plan_local_refusal r) {
    return (unsigned)r < PLAN_LOCAL_REFUSAL_COUNT ? refusal_table[r].code : "LOWER-L";
}

static bool refuse(plan_local *l, plan_local_refusal r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool refuse(plan_local *l, plan_local_refusal r, const char *fmt, ...) {
    char detail[192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    l->refusal = r;
    snprintf(l->why, sizeof l->why, "%s: %s", refusal_table[r].reason, detail);
    return false;
}

/* A unit axis is never distributed, even on D's dim: it holds one element
 * that every lane sees (a broadcast operand, a replicated value). */
static const plan_local_dim *find_dim(const plan_local *l, const tir_dim *dim) {
    for (uint32_t i = 0; i < l->dim_count; i++)
        if (l->dims[i].dim == dim) return &l->dims[i];
    return NULL;
}

const plan_local_dim *plan_local_dim_of(const plan_local *local, const tir_axis *axis) {
    return local && axis->extent != 1 ? find_dim(local, axis->dim) : NULL;
}

bool plan_local_is_axis(const plan_local *local, const tir_axis *axis) { return plan_local_dim_of(local, axis) != NULL; }

bool plan_local_peels(const plan_local *local, const tir_space *s) {
    const plan_local_dim *d = plan_local_dim_in(local, s);
    return d && d->full_slots < d->slots && d->slots > 1 && plan_local_volume(local, s) == d->slots;
}

bool plan_local_peels_root(const plan_local *local, const tir_func *f, const tir_space *root) {
    for (uint32_t a = 0; local && a < root->rank; a++) {
        if (tir_form_is_blocks(tir_extent_form(f->module, root->axes[a].extent))) return true;
    }
    return false;
}

uint64_t plan_local_extent(const plan_local *local, const tir_axis *axis) {
    const plan_local_dim *d = plan_local_dim_of(local, axis);
    return d ? d->slots : axis->extent;
}

uint64_t plan_local_volume(const plan_local *local, const tir_space *s) {
    uint64_t v = 1;
    for (uint32_t i = 0; i < s->rank; i++) v *= plan_local_extent(local, &s->axes[i]); /* admitted: fits */
    return v;
}

uint32_t plan_local_butterfly_steps(const plan_local *local, const plan_local_dim *d) {
    uint32_t steps = 0;
    for (uint64_t k = 1; k < local->lanes && (d->full_slots || k < d->extent); k <<= 1) steps++;
    return steps;
}

uint32_t plan_local_butterfly_ops(const plan_local *local, const plan_local_dim *d) {
    return plan_local_butterfly_steps(local, d) * (d->full_slots ? 3 : 7);
}

const plan_local_dim *plan_local_dim_in(const plan_local *local, const tir_space *s) {
    for (uint32_t i = 0; i < s->rank; i++) {
        const plan_local_dim *d = plan_local_dim_of(local, &s->axes[i]);
        if (d) return d;
    }
    return NULL;
}

bool plan_local_has_axis(const plan_local *local, const tir_space *s) { return plan_local_dim_in(local, s) != NULL; }

/* Every nonunit axis of s on a distributed dim has that dim's extent N, and
 * s has at most one distributed dim; without a D picked from the stores,
 * the first nonunit axis fixes D and N.  Other axes are held whole by every
 * lane. */
static bool check_space(plan_local *l, const tir_space *s, const tir_op *op) {
    const tir_dim *seen = NULL;
    for (uint32_t i = 0; i < s->rank; i++) {
        const tir_axis *a = &s->axes[i];
        if (a->extent == 1) continue;
        /* an empty axis is refused where it would be distributed; elsewhere
         * it is a loop of no trips (a split's tail at sizes that leave none) */
        if (a->extent == 0 && (!l->dim_count || find_dim(l, a->dim)))
            return refuse(l, PLAN_LOCAL_REFUSE_EMPTY, "axis '%s' of '%s' op #%u has extent 0", a->dim->label,
                          tir_op_kind_name(op->kind), op->id);
        if (!l->dim_count) l->dims[l->dim_count++] = (plan_local_dim){.dim = a->dim, .extent = a->extent};
        const plan_local_dim *d = find_dim(l, a->dim);
        if (!d) continue;
        if (a->extent != d->extent)
            return refuse(l, PLAN_LOCAL_REFUSE_AXES, "'%s' op #%u has axis '%s'=%llu besides '%s'=%llu",
                          tir_op_kind_name(op->kind), op->id, a->dim->label, (unsigned long long)a->extent,
                          d->dim->label, (unsigned long long)d->extent);
        if (seen && seen != d->dim)
            return refuse(l, PLAN_LOCAL_REFUSE_TWO_DIMS, "'%s' op #%u has the distributed axes '%s' and '%s'",
                          tir_op_kind_name(op->kind), op->id, seen->label, d->dim->label);
        seen = d->dim;
    }
    return true;
}

static bool check_value(plan_local *l, const tir_value *v, const tir_op *op) {
    return v->type->kind != TIR_TYPE_TILE || check_space(l, v->type->space, op);
}

/* The index of an extract on D must be the coordinate of the enclosing
 * map/reduce over D: then it names the lane's own slot. */
static bool split_coordinate(const plan_local *l, const tir_value *index) {
    const tir_block *b = index->def_block;
    const tir_op *owner = b && !index->def_op ? b->parent_op : NULL;
    return owner && (owner->kind == TIR_OP_MAP || owner->kind == TIR_OP_REDUCE) && index->index < owner->domain->rank &&
           plan_local_is_axis(l, &owner->domain->axes[index->index]);
}

static bool check_block(plan_local *l, const tir_block *b, bool in_region);

static bool check_op(plan_local *l, const tir_op *op, bool in_region) {
    for (uint32_t i = 0; i < op->result_count; i++)
        if (!check_value(l, op->results[i], op)) return false;
    if (op->domain && !check_space(l, op->domain, op)) return false;
    switch (op->kind) {
    case TIR_OP_CONSTANT:
    case TIR_OP_ELEMENTWISE:
    case TIR_OP_VIEW_LOAD:
    case TIR_OP_VIEW_STORE:
    case TIR_OP_STAGE:
    case TIR_OP_YIELD: return true;
    case TIR_OP_EXTRACT: {
        const tir_space *s = op->operands[0]->value->type->space;
        for (uint32_t i = 0; i < s->rank; i++)
            if (plan_local_is_axis(l, &s->axes[i]) && !split_coordinate(l, op->operands[1 + i]->value))
                return refuse(l, PLAN_LOCAL_REFUSE_EXTRACT,
                              "extract op #%u reads axis '%s' at an index that is not the coordinate of the enclosing "
                              "map or reduce over it",
                              op->id, s->axes[i].dim->label);
        return true;
    }
    case TIR_OP_MMA: {
        /* Lane-local when D is an output axis or absent: each lane folds its
         * own output slots over the whole contraction.  A contraction over D
         * folds each lane's slots and combines the lanes (a regrouping), or,
         * for an ordered mma, reads every element from its lane in order: an
         * unrolled step per contracted element, hence the bound. */
        const tir_space *a = op->operands[0]->value->type->space, *c = op->operands[2]->value->type->space;
        uint64_t steps = 1;
        const tir_dim *over = NULL;
        for (uint32_t i = 0; i < a->rank; i++)
            if (tir_space_find(c, a->axes[i].dim) < 0) {
                steps = steps > UINT64_MAX / (a->axes[i].extent + 1) ? UINT64_MAX : steps * a->axes[i].extent;
                if (plan_local_is_axis(l, &a->axes[i])) over = a->axes[i].dim;
            }
        if (over && !op->allow_reassociation && steps > PLAN_LOCAL_MAX_ORDERED_STEPS)
            return refuse(l, PLAN_LOCAL_REFUSE_MMA,
                          "mma op #%u folds '%s' in order over %llu steps (at most %d, each read from its lane)",
                          op->id, over->label, (unsigned long long)steps, PLAN_LOCAL_MAX_ORDERED_STEPS);
        if (in_region) return refuse(l, PLAN_LOCAL_REFUSE_NESTED, "mma op #%u", op->id);
        return true;
    }
    case TIR_OP_MAP:
    case TIR_OP_REDUCE:
    case TIR_OP_SERIAL:
    case TIR_OP_PIPELINE: {
        const tir_op *update;
        bool carry_left;
        const plan_local_dim *d = plan_local_dim_in(l, op->domain);
        bool over = d != NULL;
        bool closed = op->kind == TIR_OP_MAP || (op->kind == TIR_OP_REDUCE && plan_reduce_is_closed(op, &update, &carry_left));
        /* An ordered loop is lane-local unless it walks D in order; an
         * ordered fold of one update over D reads each element from its
         * lane, one unrolled step each (hence the bound). */
        bool lane_order = !closed && over && plan_reduce_is_simple(op, &update, &carry_left);
        if (lane_order && d->extent > PLAN_LOCAL_MAX_ORDERED_STEPS)
            return refuse(l, PLAN_LOCAL_REFUSE_ORDERED, "reduce op #%u folds '%s' in order over %llu steps (at most %d)",
                          op->id, d->dim->label, (unsigned long long)d->extent, PLAN_LOCAL_MAX_ORDERED_STEPS);
        if (!closed && !lane_order && over)
            return refuse(l, PLAN_LOCAL_REFUSE_ORDERED, "'%s' op #%u walks the distributed axis '%s' in order",
                          tir_op_kind_name(op->kind), op->id, d->dim->label);
        for (uint32_t i = 0; over && op->kind == TIR_OP_REDUCE && i < op->domain->rank; i++)
            if (op->domain->axes[i].extent > 1 && !plan_local_is_axis(l, &op->domain->axes[i]))
                return refuse(l, PLAN_LOCAL_REFUSE_REDUCE_AXES, "reduce op #%u over '%s' and '%s'", op->id,
                              d->dim->label, op->domain->axes[i].dim->label);
        if (in_region)
            return refuse(l, PLAN_LOCAL_REFUSE_NESTED, "'%s' op #%u", tir_op_kind_name(op->kind), op->id);
        for (uint32_t i = 0; i < op->body->arg_count; i++)
            if (!check_value(l, op->body->args[i], op)) return false;
        return check_block(l, op->body, over);
    }
    case TIR_OP_IF: /* outside maps and reductions over D its condition is the program's: uniform */
        if (in_region) return refuse(l, PLAN_LOCAL_REFUSE_NESTED, "'if' op #%u", op->id);
        for (uint32_t i = 0; i < op->body->arg_count; i++)
            if (!check_value(l, op->body->args[i], op)) return false;
        return check_block(l, op->body, false);
    default:
        return refuse(l, PLAN_LOCAL_REFUSE_ORDERED, "'%s' op #%u", tir_op_kind_name(op->kind), op->id);
    }
}

static bool check_block(plan_local *l, const tir_block *b, bool in_region) {
    for (const tir_op *op = b->first; op; op = op->next)
        if (!check_op(l, op, in_region)) return false;
    return true;
}

enum { MAX_CHOICES = 8 };

typedef struct {
    const tir_axis *axes[MAX_CHOICES];
    uint32_t count;
} choices;

bool plan_local_dot_word_axis(const tir_op *load, uint32_t axis) {
    const tir_axis *a = &load->domain->axes[axis];
    const tir_space *view = load->operands[0]->value->type->space;
    if (a->extent != 4 || view->axes[axis].extent != 4 || tir_scalar_size(tir_value_elem(load->results[0])) != 1) return false;
    for (const tir_use *u = load->results[0]->uses; u; u = u->next)
        if (u->user->kind == TIR_OP_MMA && u->index < 2 && tir_space_find(u->user->results[0]->type->space, a->dim) < 0)
            return true;
    return false;
}

/* The index of s's innermost nonunit axis before axis `before` (s->rank:
 * none). */
static uint32_t innermost_before(const tir_space *s, uint32_t before) {
    for (uint32_t i = before; i-- > 0;)
        if (s->axes[i].extent > 1) return i;
    return s->rank;
}

/* The innermost nonunit axes of the subtile accesses of `kind` in program
 * order, one per dim; with `words`, only of loads whose innermost one is a
 * dot product's word, the next one out. */
static void collect(choices *c, const tir_block *b, tir_op_kind kind, bool words) {
    for (const tir_op *op = b->first; op && c->count < MAX_CHOICES; op = op->next) {
        if (op->kind == kind && op->domain) {
            const tir_space *s = op->domain;
            uint32_t i = innermost_before(s, s->rank);
            if (words) i = i < s->rank && plan_local_dot_word_axis(op, i) ? innermost_before(s, i) : s->rank;
            const tir_axis *inner = i < s->rank ? &s->axes[i] : NULL;
            bool seen = !inner;
            for (uint32_t j = 0; j < c->count && !seen; j++) seen = c->axes[j] && c->axes[j]->dim == inner->dim;
            if (!seen) c->axes[c->count++] = inner;
        }
        if (op->body) collect(c, op->body, kind, words);
    }
}

/* The choices of D, best first: the axis next out from a dot product's
 * word (so that each lane reads its own word, the lanes a contiguous run
 * of them), the innermost nonunit axis of the first store that has one
 * (the output's contiguous axis, so its rows are stored by whole packets;
 * none: every value replicated), then of the later stores, then of the
 * loads (a row phase feeding a narrow output: softmax rows into a
 * one-column matmul). */
static void pick_dims(choices *c, const tir_block *b) {
    c->count = 0;
    collect(c, b, TIR_OP_VIEW_LOAD, true);
    uint32_t words = c->count;
    collect(c, b, TIR_OP_VIEW_STORE, false);
    if (c->count == words) c->axes[c->count++] = NULL;
    collect(c, b, TIR_OP_VIEW_LOAD, false);
}

/* A contraction's phase gets its own distributed dim: an mma that allows
 * reassociation, whose output has no distributed axis and whose
 * contraction none, distributes its widest contracted axis (attention's
 * QKᵀ over d while its P·V output is split over dv).  Its operands are then
 * split along it and the lanes' partial sums meet in a butterfly (mma.c),
 * instead of every lane folding the whole contraction. */
static void pick_contractions(plan_local *l, const tir_block *b) {
    for (const tir_op *op = b->first; op && l->dim_count < PLAN_LOCAL_MAX_DIMS; op = op->next) {
        if (op->kind == TIR_OP_MMA && op->allow_reassociation) {
            const tir_space *a = op->operands[0]->value->type->space, *c = op->operands[2]->value->type->space;
            const tir_axis *widest = NULL;
            bool over = false;
            for (uint32_t i = 0; i < a->rank; i++) {
                if (tir_space_find(c, a->axes[i].dim) >= 0) continue;
                over = over || plan_local_is_axis(l, &a->axes[i]);
                if (a->axes[i].extent > 1 && (!widest || a->axes[i].extent > widest->extent)) widest = &a->axes[i];
            }
            if (widest && !over && !plan_local_has_axis(l, c) && !find_dim(l, widest->dim))
                l->dims[l->dim_count++] = (plan_local_dim){.dim = widest->dim, .extent = widest->extent};
        }
        if (op->body) pick_contractions(l, op->body);
    }
}

static bool admit(const tir_func *f, const plan_admission *admission, uint32_t lanes, const tir_axis *d,
                  bool contractions, plan_local *out) {
    *out = (plan_local){.lanes = lanes};
    const tir_op *root = admission->root;
    if (d) out->dims[out->dim_count++] = (plan_local_dim){.dim = d->dim, .extent = d->extent};
    if (contractions && out->dim_count) pick_contractions(out, root->body);
    if ((uint64_t)admission->volume * lanes > UINT32_MAX)
        return refuse(out, PLAN_LOCAL_REFUSE_DISPATCH, "%u programs × %u lanes", admission->volume, lanes);
    for (const tir_op *op = f->body->first; op; op = op->next)
        if (op != root && !check_op(out, op, false)) return false;
    if (!check_block(out, root->body, false)) return false;
    const plan_local_dim *on_root = plan_local_dim_in(out, root->domain);
    if (on_root) return refuse(out, PLAN_LOCAL_REFUSE_ROOT, "the root parallel is over '%s'", on_root->dim->label);
    for (uint32_t i = 0; i < out->dim_count; i++) {
        out->dims[i].slots = (out->dims[i].extent + lanes - 1) / lanes;
        out->dims[i].full_slots = out->dims[i].extent / lanes;
    }
    return true;
}

/* One choice of D: with the contractions' dims when that admits, else D
 * alone. */
static bool admit_with(const tir_func *f, const plan_admission *admission, uint32_t lanes, const tir_axis *d,
                       plan_local *out) {
    if (admit(f, admission, lanes, d, true, out)) return true;
    return out->dim_count > 1 || out->refusal == PLAN_LOCAL_REFUSE_TWO_DIMS ? admit(f, admission, lanes, d, false, out)
                                                                            : false;
}

/* The first choice of D that admits; else the first choice's refusal is
 * the one reported. */
bool plan_local_admit(const tir_func *f, const plan_admission *admission, uint32_t lanes, plan_local *out) {
    choices c;
    pick_dims(&c, admission->root->body);
    if (admit_with(f, admission, lanes, c.axes[0], out)) return true;
    plan_local first = *out;
    for (uint32_t i = 1; i < c.count; i++)
        if (admit_with(f, admission, lanes, c.axes[i], out)) {
            snprintf(out->passed_over, sizeof out->passed_over, "'%s': %s",
                     c.axes[0] ? c.axes[0]->dim->label : "(none: replicated)", first.why);
            return true;
        }
    *out = first;
    return false;
}
