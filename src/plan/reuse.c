/* reuse.c — per-view footprints and the reuse-distance cache model (reuse.h). */
#include "plan/reuse.h"

#include "base/checked.h"

#include <string.h>

/* Whether two known accesses of one view have the same box. */
static bool same_box(const plan_access *x, const plan_access *y) {
    for (uint32_t a = 0; a < x->rank; a++) {
        const plan_access_axis *p = &x->axes[a], *q = &y->axes[a];
        if (p->offset != q->offset || p->lo != q->lo || p->hi != q->hi ||
            memcmp(p->scale, q->scale, sizeof *p->scale * x->roots))
            return false;
    }
    return true;
}

/* rows × ⌈row bytes / line⌉ of a known access's box. */
static uint64_t box_lines(const plan_access *acc, uint64_t elem) {
    if (!acc->rank) return 1;
    uint64_t rows = 1;
    for (uint32_t a = 0; a + 1 < acc->rank; a++)
        rows = saturated_mul_u64(rows, (uint64_t)(acc->axes[a].hi - acc->axes[a].lo) + 1);
    uint64_t row = saturated_mul_u64((uint64_t)(acc->axes[acc->rank - 1].hi - acc->axes[acc->rank - 1].lo) + 1, elem);
    return saturated_mul_u64(rows, row / PLAN_CACHE_LINE_BYTES + (row % PLAN_CACHE_LINE_BYTES != 0));
}

tilec_status plan_footprints_of(tilec_context *ctx, const plan_admission *admission, const plan_accesses *accesses,
                                arena *ar, plan_footprints *out) {
    memset(out, 0, sizeof *out);
    const tir_space *domain = admission->domain;
    uint64_t all = domain->rank >= 64 ? UINT64_MAX : (UINT64_C(1) << domain->rank) - 1;
    for (size_t i = 0; i < accesses->count; i++) {
        const plan_access *acc = &accesses->items[i];
        plan_footprint *v = NULL;
        for (size_t k = 0; k < out->count && !v; k++)
            if (out->views[k].param == acc->param) v = &out->views[k];
        if (!v) {
            plan_footprint *views = ARENA_ARRAY(ar, plan_footprint, out->count + 1);
            if (!views)
                return tilec_error(ctx, TILEC_E_NOMEM, "PLAN-M01", tilec_no_loc(), "out of memory summarizing views");
            if (out->count) memcpy(views, out->views, out->count * sizeof *views);
            out->views = views;
            v = &views[out->count++];
            const tir_value *p = acc->op->operands[0]->value;
            *v = (plan_footprint){.param = acc->param, .read_only = p->read_only, .known = true};
        }
        v->read_only = v->read_only && !acc->store;
        if (!v->known) continue;
        if (!acc->known) { /* fail closed: the whole view, every program */
            const tir_space *vs = acc->op->operands[0]->value->type->space;
            uint64_t volume;
            tir_space_volume(vs, &volume);
            v->known = false;
            v->bytes = saturated_mul_u64(volume, tir_scalar_size(acc->op->operands[0]->value->type->elem));
            v->lines = v->bytes / PLAN_CACHE_LINE_BYTES + 1;
            v->depends = all;
            continue;
        }
        if (acc->never) continue;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++) {
            const plan_access *o = &accesses->items[j];
            seen = o->param == acc->param && o->known && !o->never && same_box(o, acc);
        }
        for (uint32_t a = 0; a < acc->rank; a++)
            for (uint32_t j = 0; j < acc->roots; j++)
                if (acc->axes[a].scale[j]) v->depends |= UINT64_C(1) << j;
        if (!seen) {
            uint64_t elem = tir_scalar_size(tir_value_elem(acc->op->operands[0]->value));
            v->bytes = saturated_add_u64(v->bytes, saturated_mul_u64(acc->elements, elem));
            v->lines = saturated_add_u64(v->lines, box_lines(acc, elem));
        }
    }
    for (size_t k = 0; k < out->count; k++) {
        plan_footprint *v = &out->views[k];
        v->sharers = 1;
        for (uint32_t a = 0; a < domain->rank; a++)
            if (!(v->depends >> a & 1)) v->sharers = saturated_mul_u64(v->sharers, domain->axes[a].extent);
        v->shared = v->read_only && v->sharers > 1;
    }
    return TILEC_OK;
}

/* One distinct box of a view, or a whole view (an unknown access). */
typedef struct {
    const plan_access *acc; /* NULL: the whole view */
    uint32_t param;
    uint64_t elem, whole_lines;
} item;

/* Lines of the union of the item's boxes over the digits `from`.. (inner
 * ones): per view axis, a digit moving the box by at most its current span
 * extends it, a larger step repeats it (disjoint pieces); the innermost
 * axis's span takes ⌈bytes / line⌉ lines per piece. */
static double union_lines(const item *it, const plan_root_map *map, uint32_t from) {
    if (!it->acc) return (double)it->whole_lines;
    const plan_access *acc = it->acc;
    if (!acc->rank) return 1;
    double span[PLAN_MAX_RANK], pieces[PLAN_MAX_RANK];
    for (uint32_t a = 0; a < acc->rank; a++) span[a] = (double)(acc->axes[a].hi - acc->axes[a].lo) + 1, pieces[a] = 1;
    for (uint32_t q = map->digit_count; q-- > from;) {
        const plan_root_digit *d = &map->digits[q];
        for (uint32_t a = 0; a < acc->rank; a++) {
            int64_t scale = acc->axes[a].scale[d->axis];
            double step = (double)(scale < 0 ? -scale : scale) * (double)d->scale;
            if (!step) continue;
            if (step <= span[a]) span[a] += step * (double)(d->extent - 1);
            else pieces[a] *= (double)d->extent;
        }
    }
    double lines = 1;
    for (uint32_t a = 0; a + 1 < acc->rank; a++) lines *= pieces[a] * span[a];
    uint32_t last = acc->rank - 1;
    double row = span[last] * (double)it->elem;
    return lines * pieces[last] * ((double)(uint64_t)(row / PLAN_CACHE_LINE_BYTES) +
                                   (row > (double)(uint64_t)(row / PLAN_CACHE_LINE_BYTES) * PLAN_CACHE_LINE_BYTES));
}

enum { MAX_ITEMS = 64 };

/* The distinct boxes of the summaries (a view with an unknown access: one
 * whole-view item instead); at most MAX_ITEMS. */
static size_t items_of(const plan_accesses *accesses, item *items) {
    size_t n = 0;
    for (size_t i = 0; i < accesses->count && n < MAX_ITEMS; i++) {
        const plan_access *acc = &accesses->items[i];
        const tir_value *view = acc->op->operands[0]->value;
        bool whole = false, seen = false;
        for (size_t j = 0; j < accesses->count; j++)
            whole = whole || (accesses->items[j].param == acc->param && !accesses->items[j].known);
        for (size_t k = 0; k < n && !seen; k++)
            seen = items[k].param == acc->param && (whole || (items[k].acc && same_box(items[k].acc, acc)));
        if (seen || (acc->known && acc->never)) continue;
        if (whole) {
            uint64_t volume;
            tir_space_volume(view->type->space, &volume);
            uint64_t bytes = saturated_mul_u64(volume, tir_scalar_size(view->type->elem));
            items[n++] = (item){NULL, acc->param, 0, bytes / PLAN_CACHE_LINE_BYTES + 1};
        } else {
            items[n++] = (item){acc, acc->param, tir_scalar_size(tir_value_elem(view)), 0};
        }
    }
    return n;
}

void plan_cache_lines(const plan_accesses *accesses, const plan_root_map *map,
                      const uint64_t bytes[PLAN_CACHE_LEVELS], double out[PLAN_CACHE_LEVELS]) {
    item items[MAX_ITEMS];
    size_t count = items_of(accesses, items);
    uint32_t n = map->digit_count;
    double dist[PLAN_MAX_ROOT_DIGITS]; /* bytes one iteration of digit p occupies */
    for (uint32_t p = 0; p < n; p++) {
        dist[p] = 0;
        for (size_t i = 0; i < count; i++) dist[p] += union_lines(&items[i], map, p + 1) * PLAN_CACHE_LINE_BYTES;
    }
    for (int c = 0; c < PLAN_CACHE_LEVELS; c++) {
        out[c] = 0;
        if (!bytes[c]) continue;
        for (size_t i = 0; i < count; i++) {
            double lines = union_lines(&items[i], map, n); /* one program */
            for (uint32_t p = n; p-- > 0;) /* kept: only the new lines of each step; evicted: all again */
                lines = dist[p] <= (double)bytes[c]
                            ? lines + union_lines(&items[i], map, p) - union_lines(&items[i], map, p + 1)
                            : lines * (double)map->digits[p].extent;
            out[c] += lines;
        }
    }
}
