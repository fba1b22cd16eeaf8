/* access.c — static access summaries (access.h). */
#include "plan/access.h"

#include "base/checked.h"
#include "plan/affine.h"

#include <string.h>

enum { MAX_LOOPS = 64, EXACT_ENUMERATION = 1 << 16 };

typedef struct {
    tilec_context *ctx;
    arena *ar;
    const tir_op *root;
    const tir_value *loop[MAX_LOOPS]; /* loop coordinates in scope */
    uint64_t extent[MAX_LOOPS];
    uint32_t loops;
    bool conditional;                 /* inside an if */
    bool never;                       /* inside an empty loop */
    tilec_status status;
    plan_accesses *out;
    size_t capacity;
} walker;

static int root_axis(const walker *w, const tir_value *c) {
    for (uint32_t a = 0; a < w->root->domain->rank; a++)
        if (w->root->body->args[a] == c) return (int)a;
    return -1;
}

static int loop_index(const walker *w, const tir_value *c) {
    for (uint32_t i = 0; i < w->loops; i++)
        if (w->loop[i] == c) return (int)i;
    return -1;
}

/* The terms of one axis other than the root coordinates: loop coordinates
 * (scale, extent) and the tile (stride, extent). */
typedef struct {
    uint32_t count;
    int64_t step[PLAN_AFFINE_TERMS + 1];
    uint64_t extent[PLAN_AFFINE_TERMS + 1];
} axis_terms;

/* [lo, hi] of Σ step·[0, extent); false on overflow. */
static bool terms_range(const axis_terms *t, int64_t *lo, int64_t *hi) {
    *lo = *hi = 0;
    for (uint32_t i = 0; i < t->count; i++) {
        int64_t span;
        if (!t->extent[i]) continue;
        if (t->extent[i] - 1 > INT64_MAX || __builtin_mul_overflow(t->step[i], (int64_t)(t->extent[i] - 1), &span))
            return false;
        if (__builtin_add_overflow(span < 0 ? *lo : *hi, span, span < 0 ? lo : hi)) return false;
    }
    return true;
}

/* Whether Σ step·[0, extent) covers [lo, hi] without a hole (enumerated;
 * false when there are too many combinations to enumerate). */
static bool terms_dense(walker *w, const axis_terms *t, int64_t lo, int64_t hi) {
    uint64_t combos = 1, width = (uint64_t)(hi - lo) + 1;
    for (uint32_t i = 0; i < t->count; i++)
        if (__builtin_mul_overflow(combos, t->extent[i] ? t->extent[i] : 1, &combos) || combos > EXACT_ENUMERATION)
            return false;
    if (width > EXACT_ENUMERATION) return false;
    arena scratch;
    arena_init(&scratch, w->ctx);
    bool *seen = ARENA_ARRAY(&scratch, bool, width);
    bool dense = seen != NULL;
    uint64_t digit[PLAN_AFFINE_TERMS + 1] = {0};
    for (uint64_t n = 0; dense && n < combos; n++) {
        int64_t v = 0;
        for (uint32_t i = 0; i < t->count; i++) v += t->step[i] * (int64_t)digit[i];
        seen[v - lo] = true;
        for (uint32_t i = 0; i < t->count && ++digit[i] >= (t->extent[i] ? t->extent[i] : 1); i++) digit[i] = 0;
    }
    for (uint64_t i = 0; dense && i < width; i++) dense = seen[i];
    arena_destroy(&scratch);
    return dense;
}

static plan_access *push(walker *w) {
    if (w->out->count == w->capacity) {
        size_t n = w->capacity ? 2 * w->capacity : 16;
        plan_access *items = ARENA_ARRAY(w->ar, plan_access, n);
        if (!items) return NULL;
        if (w->out->count) memcpy(items, w->out->items, w->out->count * sizeof *items);
        w->out->items = items;
        w->capacity = n;
    }
    plan_access *acc = &w->out->items[w->out->count++];
    memset(acc, 0, sizeof *acc);
    return acc;
}

static void unknown(plan_access *acc, const char *why) {
    acc->known = false;
    acc->why = why;
}

static void summarize(walker *w, const tir_op *op) {
    plan_access *acc = push(w);
    const tir_value *view = op->operands[0]->value;
    const tir_space *vs = view->type->space;
    uint32_t rank = vs->rank, roots = w->root->domain->rank;
    if (!acc || !(acc->axes = ARENA_ARRAY(w->ar, plan_access_axis, rank ? rank : 1))) {
        w->status = TILEC_E_NOMEM;
        return;
    }
    acc->op = op;
    acc->param = view->index;
    acc->store = op->kind == TIR_OP_VIEW_STORE;
    acc->rank = rank;
    acc->roots = roots;
    acc->known = true;
    acc->never = w->never;
    acc->clipped = op->domain && op->bounds == TIR_BOUNDS_ZERO;
    acc->exact = !w->conditional && !(op->kind == TIR_OP_VIEW_LOAD && !op->domain && op->masked);
    acc->elements = 1;
    uint32_t feeds[MAX_LOOPS] = {0}; /* axes each loop coordinate feeds */
    for (uint32_t a = 0; a < rank; a++) {
        plan_access_axis *ax = &acc->axes[a];
        if (!(ax->scale = ARENA_ARRAY(w->ar, int64_t, roots ? roots : 1))) {
            w->status = TILEC_E_NOMEM;
            return;
        }
        plan_affine x;
        if (!plan_affine_of(op->operands[1 + a]->value, &x)) {
            unknown(acc, "an origin is not affine in the region coordinates");
            return;
        }
        axis_terms t = {0};
        for (uint32_t i = 0; i < x.count; i++) {
            int r = root_axis(w, x.coord[i]), l = r < 0 ? loop_index(w, x.coord[i]) : -1;
            if (r < 0 && l < 0) {
                unknown(acc, "an origin depends on a loop carry or a value that is not a coordinate");
                return;
            }
            if (r >= 0) {
                ax->scale[r] = x.scale[i];
                continue;
            }
            t.step[t.count] = x.scale[i];
            t.extent[t.count++] = w->extent[l];
            feeds[l]++;
        }
        if (op->domain) {
            uint64_t stride = tir_op_stride(op, a);
            if (stride > INT64_MAX) {
                unknown(acc, "a tile stride exceeds i64");
                return;
            }
            t.step[t.count] = (int64_t)stride;
            t.extent[t.count++] = op->domain->axes[a].extent;
        }
        ax->offset = x.offset;
        if (!terms_range(&t, &ax->lo, &ax->hi)) {
            unknown(acc, "the span of an origin overflows i64");
            return;
        }
        uint64_t width = (uint64_t)(ax->hi - ax->lo) + 1;
        acc->elements = saturated_mul_u64(acc->elements, width);
        acc->exact = acc->exact && terms_dense(w, &t, ax->lo, ax->hi);
    }
    for (uint32_t l = 0; l < w->loops; l++) acc->exact = acc->exact && feeds[l] <= 1;
}

static void walk(walker *w, const tir_block *b) {
    for (const tir_op *op = b->first; op && !w->status; op = op->next) {
        if (op->kind == TIR_OP_VIEW_LOAD || op->kind == TIR_OP_VIEW_STORE) {
            summarize(w, op);
            continue;
        }
        if (!op->body || op->kind == TIR_OP_MAP) continue; /* maps touch no memory */
        uint32_t saved = w->loops;
        bool conditional = w->conditional, never = w->never;
        if (tir_op_is_loop(op))
            for (uint32_t a = 0; a < op->domain->rank && w->loops < MAX_LOOPS; a++) {
                w->loop[w->loops] = op->body->args[a];
                w->extent[w->loops++] = op->domain->axes[a].extent;
                w->never = w->never || !op->domain->axes[a].extent;
            }
        if (op->kind == TIR_OP_IF) w->conditional = true;
        walk(w, op->body); /* a nested parallel's coordinates stay unknown: not in scope */
        w->loops = saved;
        w->conditional = conditional;
        w->never = never;
    }
}

tilec_status plan_access_summarize(tilec_context *ctx, const plan_admission *admission, arena *ar,
                                   plan_accesses *out) {
    memset(out, 0, sizeof *out);
    walker w = {.ctx = ctx, .ar = ar, .root = admission->root, .out = out};
    walk(&w, admission->root->body);
    if (w.status)
        return tilec_error(ctx, TILEC_E_NOMEM, "PLAN-M01", tilec_no_loc(), "out of memory summarizing accesses");
    return TILEC_OK;
}

void plan_access_range(const plan_access *acc, uint32_t a, const int64_t *root, int64_t *first, int64_t *last) {
    const plan_access_axis *ax = &acc->axes[a];
    int64_t base = ax->offset;
    for (uint32_t j = 0; j < acc->roots; j++) base = saturated_add_i64(base, saturated_mul_i64(ax->scale[j], root[j]));
    *first = saturated_add_i64(base, ax->lo);
    *last = saturated_add_i64(base, ax->hi);
    if (acc->clipped) {
        int64_t extent = (int64_t)acc->op->operands[0]->value->type->space->axes[a].extent;
        if (*first < 0) *first = 0;
        if (*last > extent - 1) *last = extent - 1;
    }
}
