/* sizes.c — evaluating a size program (sizes.h). */
#include "rt/sizes.h"

#include "base/checked.h"

#include <stdatomic.h>

static bool apply(rt_size_op op, int64_t a, int64_t b, int64_t *out) {
    switch (op) {
    case RT_SIZE_ADD: return checked_add_i64(a, b, out);
    case RT_SIZE_MUL: return checked_mul_i64(a, b, out);
    case RT_SIZE_MIN: return *out = a < b ? a : b, true;
    case RT_SIZE_MAX: return *out = a > b ? a : b, true;
    case RT_SIZE_DIV:
    case RT_SIZE_CEIL_DIV:
    case RT_SIZE_MOD:
        if (b == 0 || (a == INT64_MIN && b == -1)) return false;
        *out = op == RT_SIZE_MOD ? a % b : a / b + (op == RT_SIZE_CEIL_DIV && a % b != 0 && (a % b > 0) == (b > 0));
        return true;
    default: return false;
    }
}

/* The common program, a volume: CONST c then (DIM k, MUL)...; false when
 * s is another one (or overflows: the general loop says so again). */
static bool volume(const rt_size *s, const int64_t *dims, uint32_t dim_count, int64_t *out) {
    const rt_size_step *st = s->steps;
    if (!s->count || st[0].op != RT_SIZE_CONST || s->count % 2 != 1) return false;
    int64_t v = st[0].arg;
    for (uint32_t i = 1; i < s->count; i += 2)
        if (st[i].op != RT_SIZE_DIM || st[i + 1].op != RT_SIZE_MUL || st[i].arg < 0 || (uint64_t)st[i].arg >= dim_count ||
            !checked_mul_i64(v, dims[st[i].arg], &v))
            return false;
    *out = v;
    return true;
}

bool rt_size_eval(const rt_size *s, const int64_t *dims, uint32_t dim_count, int64_t *out) {
    if (volume(s, dims, dim_count, out)) return true; /* every dispatch evaluates these: the short way first */
    int64_t stack[RT_SIZE_MAX_DEPTH];
    uint32_t depth = 0;
    for (uint32_t i = 0; i < s->count; i++) {
        const rt_size_step *st = &s->steps[i];
        if (st->op == RT_SIZE_CONST || st->op == RT_SIZE_DIM) {
            if (depth == RT_SIZE_MAX_DEPTH || (st->op == RT_SIZE_DIM && (st->arg < 0 || (uint64_t)st->arg >= dim_count)))
                return false;
            stack[depth++] = st->op == RT_SIZE_CONST ? st->arg : dims[st->arg];
            continue;
        }
        if (depth < 2 || !apply((rt_size_op)st->op, stack[depth - 2], stack[depth - 1], &stack[depth - 2])) return false;
        depth--;
    }
    if (depth != 1) return false;
    *out = stack[0];
    return true;
}

/* The one counter of serials (process-wide state: tests/tilec/test_threads.c). */
static _Atomic uint64_t serial_next = 1;

uint64_t rt_size_serial(void) { return atomic_fetch_add(&serial_next, 1); }
