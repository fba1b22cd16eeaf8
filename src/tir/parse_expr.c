/* parse_expr.c — integer expressions over shape parameters (`iexpr`) and the
 * literals of `const` ops.
 *
 * iexpr evaluation is exact in int64: every operation is checked and overflow,
 * division by zero and unknown parameters are located errors.  Precedence:
 * unary `-` binds tightest, then `* / %`, then `+ -`; all left-associative.
 * `-9223372036854775808` is accepted (the minus applies to the literal). */
#include "tir/parse.h"
#include "tir/form.h"
#include "base/checked.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Decimal digits to uint64; false when the value exceeds UINT64_MAX. */
static bool digits_to_u64(const char *s, size_t n, uint64_t *out) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        if (!checked_mul_u64(v, 10, &v) || !checked_add_u64(v, (uint64_t)(s[i] - '0'), &v)) return false;
    *out = v;
    return true;
}

static bool int_token(tir_parser *p, const tir_token *t, uint64_t *out) {
    if (digits_to_u64(t->text, t->len, out)) return true;
    return tir_parse_error(p, t, TILEC_E_PARSE, "TIR-P15", "integer literal %.*s does not fit in 64 bits",
                           t->len > 40 ? 40 : (int)t->len, t->text);
}

static bool overflow(tir_parser *p, const tir_token *at) {
    return tir_parse_error(p, at, TILEC_E_PARSE, "TIR-P08", "integer overflow in expression (exact 64-bit arithmetic)");
}

static bool expr(tir_parser *p, tir_ival *out);

/* A runtime size where only a number will do (TIR-P27, at `at`). */
static bool needs_static(tir_parser *p, const tir_token *at, const char *why) {
    return tir_parse_error(p, at, TILEC_E_PARSE, "TIR-P27", "%s: the expression depends on a runtime size", why);
}

static bool form_result(tir_parser *p, const tir_token *at, tir_form_status st) {
    if (st == TIR_FORM_NOMEM) return tir_parse_oom(p);
    return st == TIR_FORM_OK || overflow(p, at);
}

/* Truncating division and remainder, and ceiling division, checked: by a
 * positive number when the dividend depends on a runtime size. */
static bool divide(tir_parser *p, const tir_token *at, char op, tir_ival a, tir_ival b, tir_ival *out) {
    if (b.form) return needs_static(p, at, "a divisor must be a number");
    if (b.c == 0) return tir_parse_error(p, at, TILEC_E_PARSE, "TIR-P09", "division by zero in integer expression");
    if (a.form && b.c < 0)
        return tir_parse_error(p, at, TILEC_E_PARSE, "TIR-P27",
                               "the divisor of an expression over a runtime size must be positive, not %lld",
                               (long long)b.c);
    return form_result(p, at, tir_ival_divide(p->module, a, op, b.c, out));
}

static bool multiply(tir_parser *p, const tir_token *at, tir_ival a, tir_ival b, tir_ival *out) {
    if (a.form && b.form) return needs_static(p, at, "a product of two runtime sizes is not affine: one factor must be a number");
    return form_result(p, at, a.form ? tir_ival_scale(p->module, a, b.c, out) : tir_ival_scale(p->module, b, a.c, out));
}

static bool add(tir_parser *p, const tir_token *at, tir_ival a, tir_ival b, int64_t sign, tir_ival *out) {
    tir_ival t;
    return form_result(p, at, tir_ival_scale(p->module, b, sign, &t)) &&
           form_result(p, at, tir_ival_add(p->module, a, t, out));
}

static bool call(tir_parser *p, const tir_token *name, tir_ival *out) {
    tir_ival a, b;
    if (!tir_parse_expect(p, TIR_TOK_LPAREN, "'('") || !expr(p, &a) || !tir_parse_expect(p, TIR_TOK_COMMA, "','") ||
        !expr(p, &b) || !tir_parse_expect(p, TIR_TOK_RPAREN, "')'"))
        return false;
    if (tir_parse_token_is(name, "min") || tir_parse_token_is(name, "max"))
        return form_result(p, name, tir_ival_minmax(p->module, a, b, tir_parse_token_is(name, "min") ? '<' : '>', out));
    return divide(p, name, 'c', a, b, out);
}

static bool primary(tir_parser *p, tir_ival *out) {
    const tir_token *t = tir_parse_peek(p, 0);
    if (t->kind == TIR_TOK_INT) {
        uint64_t u = 0; /* set by int_token on success; -O3 cannot prove it (-Wmaybe-uninitialized) */
        tir_parse_next(p);
        if (!int_token(p, t, &u)) return false;
        if (u > INT64_MAX)
            return tir_parse_error(p, t, TILEC_E_PARSE, "TIR-P15",
                                   "integer literal %.*s does not fit in a signed 64-bit expression", (int)t->len,
                                   t->text);
        *out = tir_ival_const((int64_t)u);
        return true;
    }
    if (t->kind == TIR_TOK_LPAREN) {
        if (!tir_parse_enter(p, t)) return false;
        tir_parse_next(p);
        bool ok = expr(p, out) && tir_parse_expect(p, TIR_TOK_RPAREN, "')'");
        tir_parse_leave(p);
        return ok;
    }
    if (t->kind == TIR_TOK_IDENT) {
        tir_parse_next(p);
        bool is_call = tir_parse_at(p, TIR_TOK_LPAREN) &&
                       (tir_parse_token_is(t, "ceil_div") || tir_parse_token_is(t, "min") || tir_parse_token_is(t, "max"));
        if (is_call) {
            if (!tir_parse_enter(p, t)) return false;
            bool ok = call(p, t, out);
            tir_parse_leave(p);
            return ok;
        }
        void *slot = symtab_get(&p->shape_params, t->text, t->len);
        if (!slot)
            return tir_parse_error(p, t, TILEC_E_PARSE, "TIR-P07", "unknown shape parameter '%.*s'",
                                   t->len > 64 ? 64 : (int)t->len, t->text);
        const tir_shape_param *param = &p->param_values.data[(uintptr_t)slot - 1];
        *out = param->form ? tir_ival_form(param->form) : tir_ival_const(param->value);
        return true;
    }
    return tir_parse_unexpected(p, "an integer expression");
}

static bool unary(tir_parser *p, tir_ival *out) {
    const tir_token *minus = tir_parse_peek(p, 0);
    if (minus->kind != TIR_TOK_MINUS) return primary(p, out);
    const tir_token *operand = tir_parse_peek(p, 1);
    if (operand->kind == TIR_TOK_INT) { /* -LITERAL: reaches INT64_MIN */
        uint64_t u = 0; /* as in primary() */
        tir_parse_next(p);
        tir_parse_next(p);
        if (!int_token(p, operand, &u)) return false;
        if (u > (uint64_t)INT64_MAX + 1) return overflow(p, minus);
        *out = tir_ival_const(u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u);
        return true;
    }
    if (!tir_parse_enter(p, minus)) return false;
    tir_parse_next(p);
    tir_ival v;
    bool ok = unary(p, &v);
    tir_parse_leave(p);
    if (!ok) return false;
    if (!v.form && v.c == INT64_MIN) return overflow(p, minus);
    return form_result(p, minus, tir_ival_scale(p->module, v, -1, out));
}

static bool term(tir_parser *p, tir_ival *out) {
    if (!unary(p, out)) return false;
    for (;;) {
        const tir_token *op = tir_parse_peek(p, 0);
        if (op->kind != TIR_TOK_STAR && op->kind != TIR_TOK_SLASH && op->kind != TIR_TOK_PERCENT) return true;
        tir_parse_next(p);
        tir_ival rhs;
        if (!unary(p, &rhs)) return false;
        bool ok = op->kind == TIR_TOK_STAR ? multiply(p, op, *out, rhs, out)
                                           : divide(p, op, op->kind == TIR_TOK_SLASH ? '/' : '%', *out, rhs, out);
        if (!ok) return false;
    }
}

static bool expr(tir_parser *p, tir_ival *out) {
    if (!term(p, out)) return false;
    for (;;) {
        const tir_token *op = tir_parse_peek(p, 0);
        if (op->kind != TIR_TOK_PLUS && op->kind != TIR_TOK_MINUS) return true;
        tir_parse_next(p);
        tir_ival rhs;
        if (!term(p, &rhs) || !add(p, op, *out, rhs, op->kind == TIR_TOK_PLUS ? 1 : -1, out)) return false;
    }
}

bool tir_parse_ival(tir_parser *p, tir_ival *out) { return expr(p, out); }

bool tir_parse_iexpr(tir_parser *p, const char *what, int64_t *out) {
    const tir_token *start = tir_parse_peek(p, 0);
    tir_ival v;
    if (!expr(p, &v)) return false;
    if (v.form) return needs_static(p, start, what);
    *out = v.c;
    return true;
}

bool tir_parse_count(tir_parser *p, const char *what, uint64_t *out) {
    const tir_token *start = tir_parse_peek(p, 0);
    tir_ival v;
    if (!expr(p, &v)) return false;
    if (v.form)
        return tir_parse_error(p, start, TILEC_E_PARSE, "TIR-P27", "%s must be a number: the expression depends on a runtime size",
                               what);
    if (v.c < 0)
        return tir_parse_error(p, start, TILEC_E_PARSE, "TIR-P10", "%s must be >= 0, got %lld", what, (long long)v.c);
    *out = (uint64_t)v.c;
    return true;
}

bool tir_parse_extent(tir_parser *p, bool runtime_ok, uint64_t *out) {
    const tir_token *start = tir_parse_peek(p, 0);
    tir_ival v;
    if (!expr(p, &v)) return false;
    if (!v.form) {
        if (v.c < 0)
            return tir_parse_error(p, start, TILEC_E_PARSE, "TIR-P10", "an extent must be >= 0, got %lld", (long long)v.c);
        return *out = (uint64_t)v.c, true;
    }
    if (!runtime_ok)
        return tir_parse_error(p, start, TILEC_E_PARSE, "TIR-P27",
                               "a tile's extents must be numbers: the expression depends on a runtime size (only "
                               "views, parallel and loop domains and index constants may)");
    if (v.form->lo < 0)
        return tir_parse_error(p, start, TILEC_E_PARSE, "TIR-P10",
                               "an extent must be >= 0 over the runtime sizes' ranges, and this one reaches %lld",
                               (long long)v.form->lo);
    if (v.form->hi == INT64_MAX) return overflow(p, start); /* saturated bounds: nothing that large is an extent */
    *out = tir_form_extent(v.form);
    return true;
}

static bool is_binary_operator(const tir_token *t) {
    return t->kind == TIR_TOK_PLUS || t->kind == TIR_TOK_MINUS || t->kind == TIR_TOK_STAR ||
           t->kind == TIR_TOK_SLASH || t->kind == TIR_TOK_PERCENT;
}

static bool float_token(tir_parser *p, const tir_token *t, double *out) {
    if (tir_parse_token_is(t, "inf")) return *out = INFINITY, true;
    if (tir_parse_token_is(t, "nan")) return *out = NAN, true;
    char local[64], *buf = t->len < sizeof local ? local : tilec_alloc(p->ctx, t->len + 1);
    if (!buf) return tir_parse_oom(p);
    memcpy(buf, t->text, t->len);
    buf[t->len] = '\0';
    errno = 0;
    *out = strtod(buf, NULL);
    bool range = errno == ERANGE && isinf(*out);
    if (buf != local) tilec_free(p->ctx, buf);
    if (range)
        return tir_parse_error(p, t, TILEC_E_PARSE, "TIR-P15", "float literal %.*s is out of range",
                               t->len > 40 ? 40 : (int)t->len, t->text);
    return true;
}

static bool is_float_word(const tir_token *t) {
    return t->kind == TIR_TOK_FLOAT || tir_parse_token_is(t, "inf") || tir_parse_token_is(t, "nan");
}

bool tir_parse_literal(tir_parser *p, const tir_type *type, tir_literal *out, const tir_form **form) {
    if (form) *form = NULL;
    const tir_token *t = tir_parse_peek(p, 0);
    if (tir_parse_token_is(t, "true") || tir_parse_token_is(t, "false")) {
        tir_parse_next(p);
        *out = (tir_literal){TIR_LIT_BOOL, {.b = tir_parse_token_is(t, "true")}};
        return true;
    }
    bool negative = t->kind == TIR_TOK_MINUS;
    const tir_token *number = negative ? tir_parse_peek(p, 1) : t;
    if (is_float_word(number)) {
        double d = 0;
        tir_parse_next(p);
        if (negative) tir_parse_next(p);
        if (!float_token(p, number, &d)) return false;
        *out = (tir_literal){TIR_LIT_FLOAT, {.f = negative ? -d : d}};
        return true;
    }
    uint64_t u;
    if (t->kind == TIR_TOK_INT && !is_binary_operator(tir_parse_peek(p, 1)) && digits_to_u64(t->text, t->len, &u) &&
        u > INT64_MAX) { /* a u64 beyond int64: only as a lone literal */
        tir_parse_next(p);
        *out = (tir_literal){TIR_LIT_UINT, {.u = u}};
    } else {
        tir_ival v;
        if (!expr(p, &v)) return false;
        if (v.form && (!form || type->kind != TIR_TYPE_INDEX))
            return needs_static(p, t, "only an index constant may take a runtime size");
        if (form) *form = v.form;
        *out = (tir_literal){TIR_LIT_INT, {.i = v.c}};
    }
    if (tir_scalar_is_float(tir_type_elem(type))) {
        double d = out->kind == TIR_LIT_UINT ? (double)out->as.u : (double)out->as.i;
        *out = (tir_literal){TIR_LIT_FLOAT, {.f = d}};
    }
    return true;
}
