/* stream.c — the legality of a streamed load (see stream.h): its readers,
 * the interval of its block they span, and the stores in that interval. */
#include "realize/stream.h"

#include <stddef.h>

/* The op of block b that is op or encloses it; NULL when none does. */
static const tir_op *ancestor_in(const tir_op *op, const tir_block *b) {
    while (op && op->parent != b) op = op->parent ? op->parent->parent_op : NULL;
    return op;
}

/* Position of op after `from` in their block (from = 0); -1 when not after. */
static int64_t position(const tir_op *from, const tir_op *op) {
    int64_t k = 0;
    for (const tir_op *o = from; o; o = o->next, k++)
        if (o == op) return k;
    return -1;
}

typedef struct {
    const tir_op *load;
    int64_t last;             /* position of the last reader's ancestor */
    const tir_op *last_store; /* a tile store that reads the load directly at `last`, or NULL */
    bool lost;                /* a reader outside the load's block */
} readers;

/* Visits the readers of v: its users, and the users of elementwise Tile
 * results (deferred recipes read their operands where they are read). */
static void collect(readers *r, const tir_value *v, uint32_t depth) {
    if (depth > 256) { /* a chain longer than any recipe: give up */
        r->lost = true;
        return;
    }
    for (const tir_use *u = v->uses; u; u = u->next) {
        const tir_op *user = u->user, *a = ancestor_in(user, r->load->parent);
        int64_t at = a ? position(r->load, a) : -1;
        if (at <= 0) {
            r->lost = true;
            continue;
        }
        if (at > r->last) r->last = at, r->last_store = NULL;
        if (at == r->last && user == a && user->kind == TIR_OP_VIEW_STORE && user->domain) r->last_store = user;
        if (user->kind == TIR_OP_ELEMENTWISE && user->results[0]->type->kind == TIR_TYPE_TILE)
            collect(r, user->results[0], depth + 1);
    }
}

/* The store writes, element for element, where the load read: the same
 * tile space, strides and origin values, and views of one shape. */
static bool aligned(const tir_op *load, const tir_op *store) {
    const tir_space *lv = load->operands[0]->value->type->space, *sv = store->operands[0]->value->type->space;
    if (load->domain != store->domain || lv->rank != sv->rank) return false;
    for (uint32_t a = 0; a < lv->rank; a++)
        if (lv->axes[a].extent != sv->axes[a].extent || load->operands[1 + a]->value != store->operands[1 + a]->value ||
            tir_op_stride(load, a) != tir_op_stride(store, a))
            return false;
    return true;
}

typedef struct {
    const tir_op *load, *last_store;
    uint8_t *guards;
    uint32_t params;
    bool refused;
} checker;

static void raise(checker *c, uint32_t store_param, plan_guard g) {
    uint8_t *cell = &c->guards[c->load->operands[0]->value->index * c->params + store_param];
    if (*cell < g) *cell = (uint8_t)g;
}

static void check_block(checker *c, const tir_block *b);

static void check_op(checker *c, const tir_op *op) {
    if (op->kind == TIR_OP_VIEW_STORE) {
        uint32_t mine = c->load->operands[0]->value->index, theirs = op->operands[0]->value->index;
        bool in_step = op == c->last_store;
        if (theirs == mine) c->refused = c->refused || !in_step;
        else raise(c, theirs, in_step ? PLAN_GUARD_DISJOINT_OR_EQUAL : PLAN_GUARD_DISJOINT);
        return;
    }
    if (op->body) check_block(c, op->body);
    if (op->combine) check_block(c, op->combine);
}

static void check_block(checker *c, const tir_block *b) {
    for (const tir_op *op = b->first; op; op = op->next) check_op(c, op);
}

static bool constant_origin(const tir_value *v, int64_t *out) {
    const tir_op *d = v->def_op;
    if (!d || d->kind != TIR_OP_CONSTANT || d->form) return false; /* a runtime size's is no number */
    if (d->literal.kind == TIR_LIT_INT) return *out = d->literal.as.i, true;
    if (d->literal.kind == TIR_LIT_UINT && d->literal.as.u <= INT64_MAX) return *out = (int64_t)d->literal.as.u, true;
    return false;
}

bool plan_stores_disjoint(const tir_op *a, const tir_op *b) {
    if (a->operands[0]->value != b->operands[0]->value || !a->domain || !b->domain) return false;
    for (uint32_t i = 0; i < a->domain->rank && i < b->domain->rank; i++) {
        int64_t x, y;
        if (!constant_origin(a->operands[1 + i]->value, &x) || !constant_origin(b->operands[1 + i]->value, &y)) continue;
        /* apart along the axis, or on interleaved lattices of one stride */
        uint64_t gap = x <= y ? (uint64_t)y - (uint64_t)x : (uint64_t)x - (uint64_t)y, step = tir_op_stride(a, i);
        if ((x <= y && gap >= tir_op_span(a, i)) || (y < x && gap >= tir_op_span(b, i)) ||
            (step > 1 && step == tir_op_stride(b, i) && gap % step))
            return true;
    }
    return false;
}

bool plan_stream_legal(const tir_op *load, uint8_t *guards, uint32_t params) {
    readers r = {load, 0, NULL, false};
    collect(&r, load->results[0], 0);
    if (r.lost) return false;
    const tir_op *last_store = r.last_store && aligned(load, r.last_store) ? r.last_store : NULL;
    /* check first, raise only when streamed: a refused load adds no guard */
    uint8_t scratch[64 * 64];
    if (params > 64) return false;
    for (uint32_t i = 0; i < params * params; i++) scratch[i] = guards[i];
    checker c = {load, last_store, scratch, params, false};
    int64_t k = 0;
    for (const tir_op *op = load->next; op && k < r.last; op = op->next, k++) check_op(&c, op);
    if (c.refused) return false;
    for (uint32_t i = 0; i < params * params; i++) guards[i] = scratch[i];
    return true;
}
