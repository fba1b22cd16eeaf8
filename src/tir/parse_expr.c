/* parse_expr.c — integer expressions over shape parameters (`iexpr`) and the
 * literals of `const` ops.
 *
 * iexpr evaluation is exact in int64: every operation is checked and overflow,
 * division by zero and unknown parameters are located errors.  Precedence:
 * unary `-` binds tightest, then `* / %`, then `+ -`; all left-associative.
 * `-9223372036854775808` is accepted (the minus applies to the literal). */
#include "tir/parse.h"
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

static bool expr(tir_parser *p, int64_t *out);

/* Truncating division and remainder, and ceiling division, checked. */
static bool divide(tir_parser *p, const tir_token *at, char op, int64_t a, int64_t b, int64_t *out) {
    if (b == 0)
        return tir_parse_error(p, at, TILEC_E_PARSE, "TIR-P09", "division by zero in integer expression");
    if (a == INT64_MIN && b == -1) {
        if (op == '%') return *out = 0, true;
        return overflow(p, at);
    }
    int64_t q = a / b, r = a % b;
    if (op == '%') *out = r;
    else if (op == 'c') *out = q + (r != 0 && ((r > 0) == (b > 0)));
    else *out = q;
    return true;
}

static bool call(tir_parser *p, const tir_token *name, int64_t *out) {
    int64_t a, b;
    if (!tir_parse_expect(p, TIR_TOK_LPAREN, "'('") || !expr(p, &a) || !tir_parse_expect(p, TIR_TOK_COMMA, "','") ||
        !expr(p, &b) || !tir_parse_expect(p, TIR_TOK_RPAREN, "')'"))
        return false;
    if (tir_parse_token_is(name, "min")) *out = a < b ? a : b;
    else if (tir_parse_token_is(name, "max")) *out = a > b ? a : b;
    else return divide(p, name, 'c', a, b, out);
    return true;
}

static bool primary(tir_parser *p, int64_t *out) {
    const tir_token *t = tir_parse_peek(p, 0);
    if (t->kind == TIR_TOK_INT) {
        uint64_t u = 0; /* set by int_token on success; -O3 cannot prove it (-Wmaybe-uninitialized) */
        tir_parse_next(p);
        if (!int_token(p, t, &u)) return false;
        if (u > INT64_MAX)
            return tir_parse_error(p, t, TILEC_E_PARSE, "TIR-P15",
                                   "integer literal %.*s does not fit in a signed 64-bit expression", (int)t->len,
                                   t->text);
        *out = (int64_t)u;
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
        *out = p->param_values.data[(uintptr_t)slot - 1].value;
        return true;
    }
    return tir_parse_unexpected(p, "an integer expression");
}

static bool unary(tir_parser *p, int64_t *out) {
    const tir_token *minus = tir_parse_peek(p, 0);
    if (minus->kind != TIR_TOK_MINUS) return primary(p, out);
    const tir_token *operand = tir_parse_peek(p, 1);
    if (operand->kind == TIR_TOK_INT) { /* -LITERAL: reaches INT64_MIN */
        uint64_t u = 0; /* as in primary() */
        tir_parse_next(p);
        tir_parse_next(p);
        if (!int_token(p, operand, &u)) return false;
        if (u > (uint64_t)INT64_MAX + 1) return overflow(p, minus);
        *out = u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u;
        return true;
    }
    if (!tir_parse_enter(p, minus)) return false;
    tir_parse_next(p);
    int64_t v;
    bool ok = unary(p, &v);
    tir_parse_leave(p);
    if (!ok) return false;
    if (v == INT64_MIN) return overflow(p, minus);
    *out = -v;
    return true;
}

static bool term(tir_parser *p, int64_t *out) {
    if (!unary(p, out)) return false;
    for (;;) {
        const tir_token *op = tir_parse_peek(p, 0);
        if (op->kind != TIR_TOK_STAR && op->kind != TIR_TOK_SLASH && op->kind != TIR_TOK_PERCENT) return true;
        tir_parse_next(p);
        int64_t rhs;
        if (!unary(p, &rhs)) return false;
        if (op->kind == TIR_TOK_STAR) {
            if (!checked_mul_i64(*out, rhs, out)) return overflow(p, op);
        } else if (!divide(p, op, op->kind == TIR_TOK_SLASH ? '/' : '%', *out, rhs, out)) {
            return false;
        }
    }
}

static bool expr(tir_parser *p, int64_t *out) {
    if (!term(p, out)) return false;
    for (;;) {
        const tir_token *op = tir_parse_peek(p, 0);
        if (op->kind != TIR_TOK_PLUS && op->kind != TIR_TOK_MINUS) return true;
        tir_parse_next(p);
        int64_t rhs;
        if (!term(p, &rhs)) return false;
        bool ok = op->kind == TIR_TOK_PLUS ? checked_add_i64(*out, rhs, out) : checked_sub_i64(*out, rhs, out);
        if (!ok) return overflow(p, op);
    }
}

bool tir_parse_iexpr(tir_parser *p, int64_t *out) { return expr(p, out); }

bool tir_parse_count(tir_parser *p, const char *what, uint64_t *out) {
    const tir_token *start = tir_parse_peek(p, 0);
    int64_t v;
    if (!expr(p, &v)) return false;
    if (v < 0)
        return tir_parse_error(p, start, TILEC_E_PARSE, "TIR-P10", "%s must be >= 0, got %lld", what, (long long)v);
    *out = (uint64_t)v;
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

bool tir_parse_literal(tir_parser *p, const tir_type *type, tir_literal *out) {
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
        int64_t v;
        if (!expr(p, &v)) return false;
        *out = (tir_literal){TIR_LIT_INT, {.i = v}};
    }
    if (tir_scalar_is_float(tir_type_elem(type))) {
        double d = out->kind == TIR_LIT_UINT ? (double)out->as.u : (double)out->as.i;
        *out = (tir_literal){TIR_LIT_FLOAT, {.f = d}};
    }
    return true;
}
