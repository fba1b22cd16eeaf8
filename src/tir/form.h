/* form.h — runtime sizes: a kernel's symbols (shape parameters declared with
 * a range and left unpinned) and the integer forms over them that extents
 * and index constants may take (docs/tir.md "Runtime sizes").
 *
 * A form is interned per module, so equal forms are the same pointer and
 * an extent can name one in its 64 bits: a symbolic extent is
 * TIR_EXTENT_SYMBOLIC | form id (tilec/tir.h), which keeps spaces interned
 * by their bytes and makes "same extent" a comparison of numbers (a
 * symbolic extent is never 1, so it never broadcasts).  Code that reads an
 * extent as a number must ask tir_extent_form first.
 *
 * Canonical shape: a LINEAR form is Σ coef·atom + constant with atoms
 * sorted by id and coefficients nonzero, never a lone atom with
 * coefficient 1 and constant 0 (that is the atom); the atoms are a symbol,
 * `/`, `%` or ceil_div of a form by a positive constant, and min/max of a
 * form and a value.  Integer semantics are the text's: `/` truncates, `%`
 * takes the dividend's sign, ceil_div rounds toward +∞; evaluation is
 * exact and checked. */
#ifndef TILEC_TIR_FORM_H
#define TILEC_TIR_FORM_H

#include "base/strbuf.h"
#include "tir/ir.h"

struct tir_sym {
    const tir_func *func;
    uint32_t index; /* in func->syms: the position of its value in a dims array */
    const char *name;
    int64_t lo, hi; /* the declared range, 0 <= lo <= hi */
};

typedef enum {
    TIR_FORM_SYM,
    TIR_FORM_LINEAR,
    TIR_FORM_DIV,
    TIR_FORM_CEIL_DIV,
    TIR_FORM_MOD,
    TIR_FORM_MIN,
    TIR_FORM_MAX
} tir_form_kind;

typedef struct tir_form tir_form;

/* An integer that may depend on symbols: `form`'s value, or `c` when form
 * is NULL (a form holds its own constant, so then c is 0). */
typedef struct {
    const tir_form *form;
    int64_t c;
} tir_ival;

typedef struct {
    int64_t coef;
    const tir_form *atom;
} tir_form_term;

struct tir_form {
    uint32_t id;       /* its index in the module's form table */
    tir_form_kind kind;
    const tir_sym *sym; /* SYM */
    int64_t c;          /* LINEAR: the constant; DIV, CEIL_DIV, MOD: the divisor (> 0) */
    tir_ival a, b;      /* DIV, CEIL_DIV, MOD: the dividend a (a form); MIN, MAX: a form a and a value b */
    int64_t lo, hi;     /* bounds of its value over the symbols' ranges (saturated, so possibly loose) */
    const uint64_t *key; /* the interning key, stored with the form */
    uint32_t term_count; /* LINEAR */
    tir_form_term terms[];
};

static inline bool tir_form_is_blocks(const tir_form *f) { return f && f->kind == TIR_FORM_CEIL_DIV && f->a.form; }

static inline tir_ival tir_ival_const(int64_t c) { return (tir_ival){NULL, c}; }
static inline tir_ival tir_ival_form(const tir_form *f) { return (tir_ival){f, 0}; }
static inline bool tir_ival_equal(tir_ival a, tir_ival b) { return a.form == b.form && a.c == b.c; }
/* Whether f is ceil_div(A, k) of a form A: k-element blocks over A, the
 * last one partial (f->a.form is A, f->c is k).  Loops and roots of such
 * extents are peeled, and a split chunks their whole blocks only. */
static inline bool tir_form_is_blocks(const tir_form *f);

/* ---- symbols ---- */
/* A new symbol of f (index = the count so far); NULL with TIR-B53 past
 * TIR_MAX_SYMBOLS, TIR-B54 on a range that is empty or starts below 0. */
const tir_sym *tir_sym_add(tir_func *f, const char *name, int64_t lo, int64_t hi);
const tir_form *tir_sym_form(tir_module *m, const tir_sym *s); /* NULL on NOMEM */

/* ---- arithmetic (NULL-free results; false on NOMEM or overflow, with a
 *      diagnostic only for NOMEM: callers locate overflow themselves) ---- */
typedef enum { TIR_FORM_OK, TIR_FORM_OVERFLOW, TIR_FORM_NOMEM } tir_form_status;
tir_form_status tir_ival_add(tir_module *m, tir_ival a, tir_ival b, tir_ival *out);
tir_form_status tir_ival_scale(tir_module *m, tir_ival a, int64_t k, tir_ival *out);
/* op: '/', '%', 'c' (ceil_div); d must be > 0 when a has a form. */
tir_form_status tir_ival_divide(tir_module *m, tir_ival a, char op, int64_t d, tir_ival *out);
/* op: '<' (min), '>' (max). */
tir_form_status tir_ival_minmax(tir_module *m, tir_ival a, tir_ival b, char op, tir_ival *out);

/* ---- copying into another function ---- */
/* f (a form of some function) rebuilt over g's symbols of the same
 * positions, interned in g's module: a rewrite that builds kernels in a
 * module of its own carries the sizes over (g declares them first). */
tir_form_status tir_form_translate(const tir_func *g, const tir_form *f, tir_ival *out);

/* ---- extents ---- */
static inline uint64_t tir_form_extent(const tir_form *f) { return TIR_EXTENT_SYMBOLIC | f->id; }
/* The form an extent names, or NULL for a static extent. */
const tir_form *tir_extent_form(const tir_module *m, uint64_t extent);
/* True when no axis of s is symbolic. */
bool tir_space_is_static(const tir_space *s);
/* The largest value an extent takes over the symbols' ranges (itself when static). */
uint64_t tir_extent_max(const tir_module *m, uint64_t extent);
/* The volume of s with every extent at its largest; false on overflow. */
bool tir_space_volume_max(const tir_module *m, const tir_space *s, uint64_t *volume);

/* ---- values ---- */
/* f's value with symbol k at values[k]; false when it overflows int64. */
bool tir_form_eval(const tir_form *f, const int64_t *values, int64_t *out);
/* The extent's value with symbols at `values`: itself when static. */
bool tir_extent_eval(const tir_module *m, uint64_t extent, const int64_t *values, uint64_t *out);

/* ---- text (an iexpr the parser reads back) ---- */
void tir_form_print(strbuf *s, const tir_form *f);
void tir_ival_print(strbuf *s, tir_ival v);
/* An extent as text: its number, or its form. */
void tir_extent_print(strbuf *s, const tir_module *m, uint64_t extent);

#endif
