/* typing.c — the elementwise and mma typing rules (see typing.h).  The builder
 * turns each failure into its TIR-B diagnostic; the verifier into TIR-V12/V15. */
#include "tir/typing.h"

#include <stdio.h>

void tir_ew_type(tir_ew_op op, tir_value *const *operands, tir_ew_typing *out) {
    size_t n = tir_ew_arity(op);
    tir_ew_typing t = {0};
    for (size_t i = 0; i < n; i++)
        if (!tir_type_is_ew_operand(operands[i]->type)) {
            t.status = TIR_EW_TYPING_OPERAND_KIND;
            t.operand = i;
            *out = t;
            return;
        }
    tir_ew_class cls = tir_ew_class_of(op);
    /* Operands whose element types must agree: all but select's condition. */
    size_t first = cls == TIR_EWC_SELECT ? 1 : 0;
    t.elem = tir_value_elem(operands[first]);
    t.result = t.elem;
    for (size_t i = first + 1; i < n && !t.status; i++)
        if (tir_value_elem(operands[i]) != t.elem) {
            t.status = TIR_EW_TYPING_ELEM_DIFFER;
            t.operand = i;
        }
    /* f16/bf16 are storage: only cast (either way) and select move them */
    if (!t.status && tir_scalar_is_half(t.elem) && cls != TIR_EWC_CAST && cls != TIR_EWC_SELECT)
        t.status = TIR_EW_TYPING_ELEM_CLASS;
    if (!t.status) switch (cls) {
        case TIR_EWC_NUMERIC:
            if (t.elem == TIR_BOOL || (op == TIR_EW_NEG && !tir_scalar_is_signed(t.elem)))
                t.status = TIR_EW_TYPING_ELEM_CLASS;
            break;
        case TIR_EWC_INTEGER:
            if (!tir_scalar_is_integer(t.elem)) t.status = TIR_EW_TYPING_ELEM_CLASS;
            break;
        case TIR_EWC_FLOAT:
            if (!tir_scalar_is_float(t.elem)) t.status = TIR_EW_TYPING_ELEM_CLASS;
            break;
        case TIR_EWC_COMPARE: t.result = TIR_BOOL; break;
        case TIR_EWC_LOGICAL:
            if (t.elem != TIR_BOOL) t.status = TIR_EW_TYPING_ELEM_CLASS;
            break;
        case TIR_EWC_SELECT:
            if (tir_value_elem(operands[0]) != TIR_BOOL) {
                t.status = TIR_EW_TYPING_CONDITION;
                t.elem = tir_value_elem(operands[0]);
            }
            break;
        case TIR_EWC_CAST: break;
        }
    /* Join order: select prefers its value operands over the condition. */
    static const size_t plain[3] = {0, 1, 2}, select[3] = {1, 2, 0};
    const size_t *order = cls == TIR_EWC_SELECT ? select : plain;
    for (size_t k = 0; k < n; k++) {
        const tir_type *type = operands[order[k]]->type;
        if (type->kind == TIR_TYPE_TILE) t.spaces[t.n_spaces++] = type->space;
        if (type->kind == TIR_TYPE_INDEX) t.any_index = true;
    }
    *out = t;
}

tir_type_kind tir_ew_result_kind(const tir_ew_typing *t) {
    if (t->n_spaces) return TIR_TYPE_TILE;
    return t->any_index && t->result == TIR_I64 ? TIR_TYPE_INDEX : TIR_TYPE_SCALAR;
}

/* Axis of `d` among the first `len` axes of `s`, or -1. */
static int find_prefix(const tir_space *s, uint32_t len, const tir_dim *d) {
    for (uint32_t i = 0; i < len; i++)
        if (s->axes[i].dim == d) return (int)i;
    return -1;
}

bool tir_space_is_join(const tir_space *result, size_t n, tir_space *const *spaces) {
    /* The join starts from the first operand of largest rank and appends every
     * dim it has not seen, in operand order; see tir_space_join. */
    const tir_space *start = NULL;
    for (size_t i = 0; i < n; i++)
        if (!start || spaces[i]->rank > start->rank) start = spaces[i];
    if (!start) return result->rank == 0;
    if (result->rank < start->rank) return false;
    for (uint32_t i = 0; i < start->rank; i++)
        if (result->axes[i].dim != start->axes[i].dim) return false;
    uint32_t next = start->rank;
    for (size_t k = 0; k < n; k++)
        for (uint32_t i = 0; i < spaces[k]->rank; i++) {
            const tir_axis *ax = &spaces[k]->axes[i];
            int j = find_prefix(result, next, ax->dim);
            if (j < 0) {
                if (next == result->rank || result->axes[next].dim != ax->dim) return false;
                j = (int)next++;
            }
            /* Every operand extent is the joined one or a broadcast 1. */
            if (ax->extent != 1 && ax->extent != result->axes[j].extent) return false;
        }
    if (next != result->rank) return false;
    /* A joined extent other than 1 comes from some operand. */
    for (uint32_t j = 0; j < result->rank; j++) {
        if (result->axes[j].extent == 1) continue;
        bool seen = false;
        for (size_t k = 0; k < n && !seen; k++) {
            int i = tir_space_find(spaces[k], result->axes[j].dim);
            seen = i >= 0 && spaces[k]->axes[i].extent == result->axes[j].extent;
        }
        if (!seen) return false;
    }
    return true;
}

const char *tir_mma_dims_error(const tir_space *a, const tir_space *bm, const tir_space *c, char *buf, size_t n) {
    const tir_space *sp[3] = {a, bm, c};
    static const char *const names[3] = {"a", "b", "c"};
    for (int s = 0; s < 3; s++)
        for (uint32_t i = 0; i < sp[s]->rank; i++) {
            const tir_axis *ax = &sp[s]->axes[i];
            int found = 0;
            for (int t = 0; t < 3; t++) {
                if (t == s) continue;
                int j = tir_space_find(sp[t], ax->dim);
                if (j < 0) continue;
                found++;
                if (sp[t]->axes[j].extent != ax->extent) {
                    snprintf(buf, n, "dimension '%s' has extent %llu in %s but %llu in %s", ax->dim->label,
                             (unsigned long long)ax->extent, names[s], (unsigned long long)sp[t]->axes[j].extent,
                             names[t]);
                    return buf;
                }
            }
            if (!found) {
                snprintf(buf, n, "dimension '%s' of %s appears in neither of the other operands", ax->dim->label,
                         names[s]);
                return buf;
            }
        }
    for (uint32_t i = 0; i < a->rank; i++)
        if (tir_space_find(bm, a->axes[i].dim) >= 0 && tir_space_find(c, a->axes[i].dim) < 0) return NULL;
    snprintf(buf, n, "a and b share no contracted dimension");
    return buf;
}
