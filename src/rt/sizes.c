/* sizes.c — evaluating a size program (sizes.h). */
#include "rt/sizes.h"

#include "base/checked.h"

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

bool rt_size_eval(const rt_size *s, const int64_t *dims, uint32_t dim_count, int64_t *out) {
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
