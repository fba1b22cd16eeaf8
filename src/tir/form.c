/* form.c — symbols and the interned integer forms over them (form.h):
 * canonical construction, bounds over the declared ranges, evaluation and
 * text. */
#include "tir/form.h"
#include "base/checked.h"

#include <string.h>

/* ---- symbols ---- */

const tir_sym *tir_sym_add(tir_func *f, const char *name, int64_t lo, int64_t hi) {
    tir_module *m = f->module;
    if (f->sym_count == TIR_MAX_SYMBOLS) {
        tilec_error(m->ctx, TILEC_E_UNSUPPORTED, "TIR-B53", f->loc, "kernel '@%s' has more than %d runtime sizes",
                    f->name, TIR_MAX_SYMBOLS);
        return NULL;
    }
    if (lo < 0 || lo > hi) {
        tilec_error(m->ctx, TILEC_E_ARG, "TIR-B54", f->loc,
                    "runtime size '%s' has the range %lld..%lld: a size's range must be non-empty and start at 0 "
                    "or above",
                    name, (long long)lo, (long long)hi);
        return NULL;
    }
    tir_sym *s = ARENA_NEW(&m->arena, tir_sym);
    if (!s || !(s->name = arena_strdup(&m->arena, name))) {
        tilec_error(m->ctx, TILEC_E_NOMEM, "TIR-M01", tilec_no_loc(), "out of memory adding a runtime size");
        return NULL;
    }
    s->func = f;
    s->index = f->sym_count;
    s->lo = lo;
    s->hi = hi;
    f->syms[f->sym_count++] = s;
    return s;
}

/* ---- interning ---- */

/* The key: kind, sym, c, a (form, c), b (form, c), term count, then
 * (coef, atom) per term — as 64-bit words, so no padding. */
enum { KEY_HEAD = 8 };

static uint64_t word(const void *p) { return (uint64_t)(uintptr_t)p; }

static int64_t bound_div(int64_t v, char op, int64_t d) {
    int64_t q = v / d, r = v % d;
    if (op == '%') return r;
    return op == 'c' ? q + (r > 0) : q;
}

/* lo/hi of a finished form from its parts (interval arithmetic, saturated). */
static void bounds(tir_form *f) {
    int64_t alo = f->a.form ? f->a.form->lo : f->a.c, ahi = f->a.form ? f->a.form->hi : f->a.c;
    int64_t blo = f->b.form ? f->b.form->lo : f->b.c, bhi = f->b.form ? f->b.form->hi : f->b.c;
    switch (f->kind) {
    case TIR_FORM_SYM: f->lo = f->sym->lo, f->hi = f->sym->hi; return;
    case TIR_FORM_LINEAR:
        f->lo = f->hi = f->c;
        for (uint32_t i = 0; i < f->term_count; i++) {
            int64_t k = f->terms[i].coef, l = f->terms[i].atom->lo, h = f->terms[i].atom->hi;
            f->lo = saturated_add_i64(f->lo, saturated_mul_i64(k, k > 0 ? l : h));
            f->hi = saturated_add_i64(f->hi, saturated_mul_i64(k, k > 0 ? h : l));
        }
        return;
    case TIR_FORM_DIV:
    case TIR_FORM_CEIL_DIV: { /* monotone in the dividend */
        char op = f->kind == TIR_FORM_DIV ? '/' : 'c';
        f->lo = bound_div(alo, op, f->c), f->hi = bound_div(ahi, op, f->c);
        return;
    }
    case TIR_FORM_MOD:
        f->lo = alo >= 0 ? 0 : -(f->c - 1);
        f->hi = ahi <= 0 ? 0 : f->c - 1;
        if (alo >= 0 && ahi < f->c) f->lo = alo, f->hi = ahi;
        return;
    case TIR_FORM_MIN: f->lo = alo < blo ? alo : blo, f->hi = ahi < bhi ? ahi : bhi; return;
    case TIR_FORM_MAX: f->lo = alo > blo ? alo : blo, f->hi = ahi > bhi ? ahi : bhi; return;
    }
}

/* The interned form with these parts (terms for LINEAR only). */
static const tir_form *intern(tir_module *m, tir_form_kind kind, const tir_sym *sym, int64_t c, tir_ival a, tir_ival b,
                              uint32_t n, const tir_form_term *terms) {
    uint64_t local[KEY_HEAD + 2 * 8], *key = local;
    size_t words = KEY_HEAD + 2 * (size_t)n;
    if (words > sizeof local / sizeof local[0] && !(key = tilec_alloc(m->ctx, words * sizeof *key))) return NULL;
    key[0] = (uint64_t)kind, key[1] = word(sym), key[2] = (uint64_t)c;
    key[3] = word(a.form), key[4] = (uint64_t)a.c, key[5] = word(b.form), key[6] = (uint64_t)b.c, key[7] = n;
    for (uint32_t i = 0; i < n; i++) key[KEY_HEAD + 2 * i] = (uint64_t)terms[i].coef, key[KEY_HEAD + 2 * i + 1] = word(terms[i].atom);
    tir_form *f = hashmap_get(&m->form_keys, key, words * sizeof *key);
    if (!f) {
        uint64_t *stored = ARENA_ARRAY(&m->arena, uint64_t, words);
        f = arena_alloc(&m->arena, sizeof *f + n * sizeof(tir_form_term));
        if (stored && f && m->forms.len < (UINT32_C(1) << 31)) {
            memcpy(stored, key, words * sizeof *key);
            *f = (tir_form){.id = (uint32_t)m->forms.len, .kind = kind, .sym = sym, .c = c, .a = a, .b = b,
                            .key = stored, .term_count = n};
            if (n) memcpy(f->terms, terms, n * sizeof *terms);
            bounds(f);
            if (!VEC_PUSH(m->ctx, &m->forms, f)) f = NULL;
            else if (!hashmap_put(&m->form_keys, stored, words * sizeof *key, f)) m->forms.len--, f = NULL;
        } else {
            f = NULL;
        }
    }
    if (key != local) tilec_free(m->ctx, key);
    return f;
}

const tir_form *tir_sym_form(tir_module *m, const tir_sym *s) {
    return intern(m, TIR_FORM_SYM, s, 0, tir_ival_const(0), tir_ival_const(0), 0, NULL);
}

/* ---- linear combination ---- */

/* A value as Σ coef·atom + c, in a caller's buffer of `cap` terms. */
typedef struct {
    tir_form_term *terms;
    uint32_t n, cap;
    int64_t c;
} linear;

static tir_form_status linear_add(tilec_context *ctx, linear *l, int64_t coef, const tir_form *atom) {
    uint32_t i = 0;
    if (coef == 0) return TIR_FORM_OK;
    while (i < l->n && l->terms[i].atom->id < atom->id) i++;
    if (i < l->n && l->terms[i].atom == atom) {
        if (!checked_add_i64(l->terms[i].coef, coef, &l->terms[i].coef)) return TIR_FORM_OVERFLOW;
        if (l->terms[i].coef == 0) memmove(&l->terms[i], &l->terms[i + 1], (--l->n - i) * sizeof *l->terms);
        return TIR_FORM_OK;
    }
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? 2 * l->cap : 8;
        tir_form_term *t = tilec_alloc(ctx, cap * sizeof *t);
        if (!t) return TIR_FORM_NOMEM;
        if (l->n) memcpy(t, l->terms, l->n * sizeof *t);
        tilec_free(ctx, l->terms);
        l->terms = t, l->cap = cap;
    }
    memmove(&l->terms[i + 1], &l->terms[i], (l->n - i) * sizeof *l->terms);
    l->terms[i] = (tir_form_term){coef, atom};
    l->n++;
    return TIR_FORM_OK;
}

/* l += k·v */
static tir_form_status linear_accumulate(tilec_context *ctx, linear *l, tir_ival v, int64_t k) {
    int64_t t;
    const tir_form *f = v.form;
    if (!f) return checked_mul_i64(v.c, k, &t) && checked_add_i64(l->c, t, &l->c) ? TIR_FORM_OK : TIR_FORM_OVERFLOW;
    if (f->kind != TIR_FORM_LINEAR) return linear_add(ctx, l, k, f);
    if (!checked_mul_i64(f->c, k, &t) || !checked_add_i64(l->c, t, &l->c)) return TIR_FORM_OVERFLOW;
    for (uint32_t i = 0; i < f->term_count; i++) {
        tir_form_status st;
        if (!checked_mul_i64(f->terms[i].coef, k, &t)) return TIR_FORM_OVERFLOW;
        if ((st = linear_add(ctx, l, t, f->terms[i].atom))) return st;
    }
    return TIR_FORM_OK;
}

static tir_form_status linear_finish(tir_module *m, const linear *l, tir_ival *out) {
    if (l->n == 0) return *out = tir_ival_const(l->c), TIR_FORM_OK;
    if (l->n == 1 && l->c == 0 && l->terms[0].coef == 1) return *out = tir_ival_form(l->terms[0].atom), TIR_FORM_OK;
    const tir_form *f = intern(m, TIR_FORM_LINEAR, NULL, l->c, tir_ival_const(0), tir_ival_const(0), l->n, l->terms);
    if (!f) return TIR_FORM_NOMEM;
    *out = tir_ival_form(f);
    return TIR_FORM_OK;
}

static tir_form_status combine(tir_module *m, tir_ival a, int64_t ka, tir_ival b, int64_t kb, tir_ival *out) {
    linear l = {0};
    tir_form_status st = linear_accumulate(m->ctx, &l, a, ka);
    if (!st) st = linear_accumulate(m->ctx, &l, b, kb);
    if (!st) st = linear_finish(m, &l, out);
    tilec_free(m->ctx, l.terms);
    return st;
}

tir_form_status tir_ival_add(tir_module *m, tir_ival a, tir_ival b, tir_ival *out) {
    return combine(m, a, 1, b, 1, out);
}

tir_form_status tir_ival_scale(tir_module *m, tir_ival a, int64_t k, tir_ival *out) {
    return combine(m, a, k, tir_ival_const(0), 0, out);
}

/* ---- division and min/max ---- */

static tir_form_status const_divide(int64_t a, char op, int64_t d, int64_t *out) {
    if (d == 0 || (a == INT64_MIN && d == -1 && op != '%')) return TIR_FORM_OVERFLOW;
    if (a == INT64_MIN && d == -1) return *out = 0, TIR_FORM_OK;
    int64_t q = a / d, r = a % d;
    *out = op == '%' ? r : op == 'c' ? q + (r != 0 && ((r > 0) == (d > 0))) : q;
    return TIR_FORM_OK;
}

/* True when every coefficient and the constant of a are multiples of d. */
static bool divides(const tir_form *a, int64_t d) {
    if (a->kind != TIR_FORM_LINEAR) return d == 1;
    if (a->c % d) return false;
    for (uint32_t i = 0; i < a->term_count; i++)
        if (a->terms[i].coef % d) return false;
    return true;
}

tir_form_status tir_ival_divide(tir_module *m, tir_ival a, char op, int64_t d, tir_ival *out) {
    if (!a.form) {
        int64_t v;
        tir_form_status st = const_divide(a.c, op, d, &v);
        if (!st) *out = tir_ival_const(v);
        return st;
    }
    if (d <= 0) return TIR_FORM_OVERFLOW; /* the parser refuses this before */
    if (d == 1) return *out = op == '%' ? tir_ival_const(0) : a, TIR_FORM_OK;
    if (divides(a.form, d)) { /* exact: (d·x)/d = x for any sign, and the remainder is 0 */
        if (op == '%') return *out = tir_ival_const(0), TIR_FORM_OK;
        linear l = {0};
        tir_form_status st = linear_accumulate(m->ctx, &l, a, 1);
        for (uint32_t i = 0; !st && i < l.n; i++) l.terms[i].coef /= d;
        l.c /= d;
        if (!st) st = linear_finish(m, &l, out);
        tilec_free(m->ctx, l.terms);
        return st;
    }
    tir_form_kind kind = op == '/' ? TIR_FORM_DIV : op == '%' ? TIR_FORM_MOD : TIR_FORM_CEIL_DIV;
    const tir_form *f = intern(m, kind, NULL, d, a, tir_ival_const(0), 0, NULL);
    if (!f) return TIR_FORM_NOMEM;
    *out = tir_ival_form(f);
    return TIR_FORM_OK;
}

tir_form_status tir_ival_minmax(tir_module *m, tir_ival a, tir_ival b, char op, tir_ival *out) {
    bool min = op == '<';
    if (!a.form && !b.form) return *out = tir_ival_const(min == (a.c < b.c) ? a.c : b.c), TIR_FORM_OK;
    if (tir_ival_equal(a, b)) return *out = a, TIR_FORM_OK;
    if (!a.form) { /* the form first */
        tir_ival t = a;
        a = b, b = t;
    } else if (b.form && b.form->id < a.form->id) {
        tir_ival t = a;
        a = b, b = t;
    }
    const tir_form *f = intern(m, min ? TIR_FORM_MIN : TIR_FORM_MAX, NULL, 0, a, b, 0, NULL);
    if (!f) return TIR_FORM_NOMEM;
    *out = tir_ival_form(f);
    return TIR_FORM_OK;
}

/* ---- copying into another function ---- */

tir_form_status tir_form_translate(const tir_func *g, const tir_form *f, tir_ival *out) {
    tir_module *m = g->module;
    tir_ival a, b;
    tir_form_status st = TIR_FORM_OK;
    if (f->kind != TIR_FORM_SYM && f->kind != TIR_FORM_LINEAR) {
        a = f->a, b = f->b;
        if (a.form) st = tir_form_translate(g, a.form, &a);
        if (!st && b.form) st = tir_form_translate(g, b.form, &b);
        if (st) return st;
    }
    switch (f->kind) {
    case TIR_FORM_SYM: {
        const tir_form *s = f->sym->index < g->sym_count ? tir_sym_form(m, g->syms[f->sym->index]) : NULL;
        if (!s) return TIR_FORM_NOMEM;
        *out = tir_ival_form(s);
        return TIR_FORM_OK;
    }
    case TIR_FORM_LINEAR:
        *out = tir_ival_const(f->c);
        for (uint32_t i = 0; !st && i < f->term_count; i++) {
            tir_ival t;
            st = tir_form_translate(g, f->terms[i].atom, &t);
            if (!st) st = combine(m, *out, 1, t, f->terms[i].coef, out);
        }
        return st;
    case TIR_FORM_DIV: return tir_ival_divide(m, a, '/', f->c, out);
    case TIR_FORM_CEIL_DIV: return tir_ival_divide(m, a, 'c', f->c, out);
    case TIR_FORM_MOD: return tir_ival_divide(m, a, '%', f->c, out);
    case TIR_FORM_MIN: return tir_ival_minmax(m, a, b, '<', out);
    case TIR_FORM_MAX: return tir_ival_minmax(m, a, b, '>', out);
    }
    return TIR_FORM_OVERFLOW;
}

/* ---- extents ---- */

const tir_form *tir_extent_form(const tir_module *m, uint64_t extent) {
    if (!tir_extent_is_symbolic(extent)) return NULL;
    uint64_t id = extent & ~TIR_EXTENT_SYMBOLIC;
    return id < m->forms.len ? m->forms.data[id] : NULL;
}

uint64_t tir_extent_max(const tir_module *m, uint64_t extent) {
    const tir_form *f = tir_extent_form(m, extent);
    return f ? (uint64_t)f->hi : extent; /* the parser keeps a form's bounds in 0..INT64_MAX-1 */
}

bool tir_space_volume_max(const tir_module *m, const tir_space *s, uint64_t *volume) {
    uint64_t v = 1;
    for (uint32_t i = 0; i < s->rank; i++)
        if (!checked_mul_u64(v, tir_extent_max(m, s->axes[i].extent), &v)) return false;
    *volume = v;
    return true;
}

int tir_func_extent_symbol(const tir_func *f, uint64_t extent) {
    const tir_form *form = tir_extent_form(f->module, extent);
    return form && form->kind == TIR_FORM_SYM && form->sym->func == f ? (int)form->sym->index : -1;
}

bool tir_space_is_static(const tir_space *s) {
    for (uint32_t i = 0; i < s->rank; i++)
        if (tir_extent_is_symbolic(s->axes[i].extent)) return false;
    return true;
}

/* ---- evaluation ---- */

static bool ival_eval(tir_ival v, const int64_t *values, int64_t *out) {
    if (!v.form) return *out = v.c, true;
    return tir_form_eval(v.form, values, out);
}

bool tir_form_eval(const tir_form *f, const int64_t *values, int64_t *out) {
    int64_t a, b, t;
    switch (f->kind) {
    case TIR_FORM_SYM: *out = values[f->sym->index]; return true;
    case TIR_FORM_LINEAR:
        *out = f->c;
        for (uint32_t i = 0; i < f->term_count; i++)
            if (!tir_form_eval(f->terms[i].atom, values, &a) || !checked_mul_i64(a, f->terms[i].coef, &t) ||
                !checked_add_i64(*out, t, out))
                return false;
        return true;
    case TIR_FORM_DIV:
    case TIR_FORM_CEIL_DIV:
    case TIR_FORM_MOD: {
        char op = f->kind == TIR_FORM_DIV ? '/' : f->kind == TIR_FORM_MOD ? '%' : 'c';
        return ival_eval(f->a, values, &a) && const_divide(a, op, f->c, out) == TIR_FORM_OK;
    }
    case TIR_FORM_MIN:
    case TIR_FORM_MAX:
        if (!ival_eval(f->a, values, &a) || !ival_eval(f->b, values, &b)) return false;
        *out = (f->kind == TIR_FORM_MIN) == (a < b) ? a : b;
        return true;
    }
    return false;
}

bool tir_extent_eval(const tir_module *m, uint64_t extent, const int64_t *values, uint64_t *out) {
    const tir_form *f = tir_extent_form(m, extent);
    int64_t v;
    if (!f) return *out = extent, true;
    if (!tir_form_eval(f, values, &v) || v < 0) return false;
    *out = (uint64_t)v;
    return true;
}

/* ---- text ---- */

/* An operand of `*`, `/` or `%`: parenthesized when it is a sum. */
static void print_factor(strbuf *s, tir_ival v) {
    bool sum = v.form && v.form->kind == TIR_FORM_LINEAR;
    if (sum) strbuf_append(s, "(");
    tir_ival_print(s, v);
    if (sum) strbuf_append(s, ")");
}

void tir_form_print(strbuf *s, const tir_form *f) {
    switch (f->kind) {
    case TIR_FORM_SYM: strbuf_append(s, f->sym->name); return;
    case TIR_FORM_LINEAR:
        for (uint32_t i = 0; i < f->term_count; i++) {
            int64_t k = f->terms[i].coef;
            uint64_t mag = k < 0 ? (uint64_t)0 - (uint64_t)k : (uint64_t)k;
            if (i) strbuf_append(s, k < 0 ? " - " : " + ");
            else if (k < 0) strbuf_append(s, "-");
            if (mag != 1) strbuf_printf(s, "%llu*", (unsigned long long)mag);
            /* 2*(L / 4), not 2*L / 4: a quotient or remainder times a factor keeps its parentheses */
            tir_form_kind ak = f->terms[i].atom->kind;
            bool wrap = (mag != 1 || k < 0) && (ak == TIR_FORM_DIV || ak == TIR_FORM_MOD);
            if (wrap) strbuf_append(s, "(");
            tir_form_print(s, f->terms[i].atom);
            if (wrap) strbuf_append(s, ")");
        }
        if (f->c > 0) strbuf_printf(s, " + %lld", (long long)f->c);
        if (f->c < 0) strbuf_printf(s, " - %llu", (unsigned long long)((uint64_t)0 - (uint64_t)f->c));
        return;
    case TIR_FORM_DIV:
    case TIR_FORM_MOD:
        print_factor(s, f->a);
        strbuf_printf(s, " %c %lld", f->kind == TIR_FORM_DIV ? '/' : '%', (long long)f->c);
        return;
    case TIR_FORM_CEIL_DIV:
        strbuf_append(s, "ceil_div(");
        tir_ival_print(s, f->a);
        strbuf_printf(s, ", %lld)", (long long)f->c);
        return;
    case TIR_FORM_MIN:
    case TIR_FORM_MAX:
        strbuf_append(s, f->kind == TIR_FORM_MIN ? "min(" : "max(");
        tir_ival_print(s, f->a);
        strbuf_append(s, ", ");
        tir_ival_print(s, f->b);
        strbuf_append(s, ")");
        return;
    }
}

void tir_ival_print(strbuf *s, tir_ival v) {
    if (v.form) tir_form_print(s, v.form);
    else strbuf_printf(s, "%lld", (long long)v.c);
}

void tir_extent_print(strbuf *s, const tir_module *m, uint64_t extent) {
    const tir_form *f = tir_extent_form(m, extent);
    if (f) tir_form_print(s, f);
    else strbuf_printf(s, "%llu", (unsigned long long)extent);
}
