/* sizes.c — runtime sizes in the lowered kernel (docs/tir.md "Runtime
 * sizes"): the hidden `dims` buffer, one i64 per size after the parameters
 * and panels, read in the entry block; every extent over the sizes is
 * evaluated there too (once per form), so its value dominates every use and
 * is uniform across the packet.  Each value carries its interval over the
 * declared ranges, and a coordinate of a domain axis of such an extent E
 * records c <= E - 1 (lw_range.sym; bounds.c carries it through sums and
 * products, so a guard against E is removed where it provably holds). */
#include "lower/internal.h"

#include "tir/form.h"

#include <string.h>

/* Emits into the entry block (before its branch, which emit() adds last). */
typedef struct {
    xir_block *at;
} in_entry;

static in_entry entry_begin(lowerer *lw) {
    in_entry e = {lw->b.block};
    xir_builder_at_end(&lw->b, lw->entry);
    return e;
}

static void entry_end(lowerer *lw, in_entry e) { xir_builder_at_end(&lw->b, e.at); }

void lw_sizes_begin(lowerer *lw) {
    const tir_func *f = lw->tf;
    if (!f->sym_count || !lw_ok(lw)) return;
    lw->dims = xir_func_add_buffer(lw->f, "dims", TIR_I64);
    lw->form_count = (uint32_t)f->module->forms.len;
    lw->form_values = lw_alloc(lw, sizeof *lw->form_values * lw->form_count);
    if (lw->form_values) memset(lw->form_values, 0, sizeof *lw->form_values * lw->form_count);
}

static xir_value *form_value(lowerer *lw, const tir_form *f);

static xir_value *ival_value(lowerer *lw, tir_ival v) { return v.form ? form_value(lw, v.form) : lw_i64(lw, v.c); }

/* f's value (in the entry block: the builder is there). */
static xir_value *form_value(lowerer *lw, const tir_form *f) {
    if (!lw_ok(lw) || f->id >= lw->form_count) return NULL;
    if (lw->form_values[f->id]) return lw->form_values[f->id];
    xir_value *v = NULL, *a, *b;
    switch (f->kind) {
    case TIR_FORM_SYM: v = xir_build_buffer_read(&lw->b, lw->dims, xir_const_uint(lw->m, TIR_U64, f->sym->index)); break;
    case TIR_FORM_LINEAR:
        v = lw_i64(lw, f->c);
        for (uint32_t i = 0; i < f->term_count; i++) {
            a = form_value(lw, f->terms[i].atom);
            if (f->terms[i].coef != 1) a = lw_arith(lw, XIR_OP_MUL, a, lw_i64(lw, f->terms[i].coef), NULL);
            v = f->c == 0 && i == 0 ? a : lw_arith(lw, XIR_OP_ADD, v, a, NULL);
        }
        break;
    case TIR_FORM_DIV: v = lw_arith(lw, XIR_OP_DIV, ival_value(lw, f->a), lw_i64(lw, f->c), NULL); break;
    case TIR_FORM_MOD: v = lw_arith(lw, XIR_OP_MOD, ival_value(lw, f->a), lw_i64(lw, f->c), NULL); break;
    case TIR_FORM_CEIL_DIV: { /* q + (r > 0): the text's rounding toward +∞ for any sign of a */
        a = ival_value(lw, f->a);
        xir_value *q = lw_arith(lw, XIR_OP_DIV, a, lw_i64(lw, f->c), NULL);
        xir_value *up = lw_arith(lw, XIR_OP_GT, lw_arith(lw, XIR_OP_MOD, a, lw_i64(lw, f->c), NULL), lw_i64(lw, 0), NULL);
        v = lw_arith(lw, XIR_OP_ADD, q, lw_arith(lw, XIR_OP_SELECT, up, lw_i64(lw, 1), lw_i64(lw, 0)), NULL);
        break;
    }
    case TIR_FORM_MIN:
    case TIR_FORM_MAX:
        a = ival_value(lw, f->a);
        b = ival_value(lw, f->b);
        v = lw_arith(lw, f->kind == TIR_FORM_MIN ? XIR_OP_MIN : XIR_OP_MAX, a, b, NULL);
        break;
    }
    lw_set_range(lw, v, f->lo, f->hi);
    lw_set_sym_bound(lw, v, f, 1, 0); /* v <= f itself: what bounds.c builds on */
    return lw->form_values[f->id] = v;
}

xir_value *lw_form_value(lowerer *lw, const tir_form *f) {
    in_entry e = entry_begin(lw);
    xir_value *v = form_value(lw, f);
    entry_end(lw, e);
    return v;
}

xir_value *lw_extent_value(lowerer *lw, uint64_t extent) {
    const tir_form *f = tir_extent_form(lw->tf->module, extent);
    return f ? lw_form_value(lw, f) : lw_i64(lw, (int64_t)extent);
}

xir_value *lw_whole_blocks(lowerer *lw, const tir_form *blocks) {
    return lw_arith(lw, XIR_OP_DIV, lw_form_value(lw, blocks->a.form), lw_i64(lw, blocks->c), NULL);
}

uint64_t lw_extent_max(const lowerer *lw, uint64_t extent) { return tir_extent_max(lw->tf->module, extent); }

uint64_t lw_extent_min(const lowerer *lw, uint64_t extent) {
    const tir_form *f = tir_extent_form(lw->tf->module, extent);
    return f ? (uint64_t)f->lo : extent;
}

xir_value *lw_volume_value(lowerer *lw, const tir_space *s) {
    xir_value *v = NULL;
    for (uint32_t i = 0; i < s->rank; i++) {
        xir_value *e = lw_extent_value(lw, s->axes[i].extent);
        v = v ? lw_arith(lw, XIR_OP_MUL, v, e, NULL) : e;
    }
    return v ? v : lw_i64(lw, 1);
}

void lw_coordinate_range(lowerer *lw, xir_value *c, uint64_t extent) {
    uint64_t hi = lw_extent_max(lw, extent);
    lw_set_range(lw, c, 0, hi ? (int64_t)hi - 1 : 0);
    const tir_form *f = tir_extent_form(lw->tf->module, extent);
    if (f) lw_set_sym_bound(lw, c, f, 1, -1); /* c <= E - 1 */
}

/* Row-major decode of a flat index over a domain of runtime extents: the
 * stride of each axis is the product of the extents inside it. */
void lw_decode_sized(lowerer *lw, const tir_space *s, xir_value *flat, xir_value **coords) {
    xir_value *stride = NULL;
    uint32_t first = s->rank;
    for (uint32_t i = 0; i < s->rank && first == s->rank; i++)
        if (s->axes[i].extent != 1) first = i;
    for (uint32_t i = s->rank; i-- > 0;) {
        uint64_t e = s->axes[i].extent;
        if (e == 1) {
            coords[i] = lw_i64(lw, 0);
            continue;
        }
        xir_value *q = stride ? lw_arith(lw, XIR_OP_DIV, flat, stride, NULL) : flat;
        xir_value *ev = lw_extent_value(lw, e);
        coords[i] = i == first ? q : lw_arith(lw, XIR_OP_MOD, q, ev, NULL);
        lw_coordinate_range(lw, coords[i], e);
        stride = stride ? lw_arith(lw, XIR_OP_MUL, stride, ev, NULL) : ev;
    }
}
