/* parse.c — the XIR text-form parser (docs/xir.md, "Text form").
 *
 * Recursive descent over the token array from lex.c, building the module with
 * the container API of xir.h (instructions are created with the type the text
 * states, never inferred, so the verifier judges typing, not the parser).
 *
 * Forward references: before a kernel body is parsed its block labels are
 * collected in order, so branches and PHIs may name any block of the kernel.
 * A value used before its definition (PHI back-edges, or blocks listed before
 * the block that dominates them) gets a placeholder value; its definition
 * replaces every use of the placeholder (xir_value_replace_all_uses), and a
 * placeholder still unresolved at the end of the kernel is an XIR-P03 error.
 *
 * Invariants: the first error stops the parse and xir_parse frees the module;
 * symbol-table keys point into the input text, which outlives the parse;
 * operand lists are generic (any count), arities are the verifier's job. */
#include "xir/lex.h"
#include "xir/text.h"
#include "base/symtab.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    xir_value *placeholder;
    const xir_token *first_use;
    bool resolved;
} forward_ref;

typedef struct {
    tilec_context *ctx;
    const char *file;
    xir_token_vec tokens;
    size_t pos;
    tilec_status status;
    xir_module *m;
    symtab kernels;
    /* the kernel being parsed */
    xir_func *f;
    xir_block *block;
    symtab values;   /* name -> defined value */
    symtab forwards; /* name -> index + 1 into `pending` */
    symtab labels;   /* label -> block */
    VEC(forward_ref) pending;
    VEC(xir_value *) operands;
    VEC(xir_block *) incoming;
} parser;

/* ---- tokens ---- */

static const xir_token *peek(const parser *p, size_t ahead) {
    size_t i = p->pos + ahead;
    return &p->tokens.data[i < p->tokens.len ? i : p->tokens.len - 1]; /* the last token is EOF */
}

static const xir_token *next(parser *p) {
    const xir_token *t = peek(p, 0);
    if (p->pos + 1 < p->tokens.len) p->pos++;
    return t;
}

static bool token_is(const xir_token *t, const char *word) {
    size_t n = strlen(word);
    return t->kind == XIR_TOK_IDENT && t->len == n && !memcmp(t->text, word, n);
}

static bool at(const parser *p, xir_token_kind kind) { return peek(p, 0)->kind == kind; }

static bool accept(parser *p, xir_token_kind kind) {
    if (!at(p, kind)) return false;
    next(p);
    return true;
}

/* ---- errors ---- */

static tilec_loc loc_of(const parser *p, const xir_token *t) {
    tilec_loc loc = {p->file, t->line, t->column};
    return loc;
}

static const char *describe(const xir_token *t, char *buf, size_t size) {
    if (t->kind == XIR_TOK_EOF) return "end of input";
    int n = t->len > 40 ? 40 : (int)t->len;
    snprintf(buf, size, "'%.*s%s'", n, t->text, t->len > 40 ? "..." : "");
    return buf;
}

static bool fail(parser *p, const xir_token *at_token, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static bool fail(parser *p, const xir_token *at_token, const char *code, const char *fmt, ...) {
    if (p->status != TILEC_OK) return false;
    p->status = TILEC_E_PARSE;
    char found[64];
    if (at_token->kind == XIR_TOK_ERROR) { /* the lexer's error takes precedence */
        tilec_error(p->ctx, TILEC_E_PARSE, "XIR-P08", loc_of(p, at_token), "invalid character %s",
                    describe(at_token, found, sizeof found));
        return false;
    }
    va_list ap;
    va_start(ap, fmt);
    tilec_verror(p->ctx, TILEC_E_PARSE, code, loc_of(p, at_token), fmt, ap);
    va_end(ap);
    return false;
}

static bool unexpected(parser *p, const char *expected) {
    char found[64];
    const xir_token *t = peek(p, 0);
    return fail(p, t, "XIR-P01", "expected %s, found %s", expected, describe(t, found, sizeof found));
}

static bool out_of_memory(parser *p) {
    if (p->status == TILEC_OK) {
        p->status = TILEC_E_NOMEM;
        if (!p->m || !xir_module_failed(p->m))
            tilec_error(p->ctx, TILEC_E_NOMEM, "XIR-M01", tilec_no_loc(), "out of memory parsing XIR");
    }
    return false;
}

/* Turns a module allocation failure (already reported as XIR-M01) into the
 * parse status. */
static bool module_ok(parser *p) {
    if (!xir_module_failed(p->m)) return true;
    if (p->status == TILEC_OK) p->status = xir_module_status(p->m);
    return false;
}

static bool expect(parser *p, xir_token_kind kind, const char *what) { return accept(p, kind) || unexpected(p, what); }

static bool expect_word(parser *p, const char *word) {
    if (token_is(peek(p, 0), word)) {
        next(p);
        return true;
    }
    char what[64];
    snprintf(what, sizeof what, "'%s'", word);
    return unexpected(p, what);
}

/* ---- numbers and literals ---- */

/* A decimal u64 (digits only); false when malformed or too large. */
static bool decimal_u64(const char *s, size_t n, uint64_t *out) {
    uint64_t v = 0;
    if (!n) return false;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

/* [-] DIGITS [ '.' DIGITS ] [ (e|E) [+-] DIGITS ] */
static bool is_decimal_float(const char *s, size_t n) {
    size_t i = s[0] == '-', digits = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9') i++, digits++;
    if (!digits) return false;
    if (i < n && s[i] == '.') {
        size_t start = ++i;
        while (i < n && s[i] >= '0' && s[i] <= '9') i++;
        if (i == start) return false;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) i++;
        size_t start = i;
        while (i < n && s[i] >= '0' && s[i] <= '9') i++;
        if (i == start) return false;
    }
    return i == n;
}

static bool integer_literal(parser *p, tir_scalar t, xir_bits *out) {
    const xir_token *tok = next(p);
    char found[64];
    if (tok->kind != XIR_TOK_NUMBER)
        return fail(p, tok, "XIR-P01", "expected an integer literal, found %s", describe(tok, found, sizeof found));
    bool negative = tok->text[0] == '-';
    uint64_t magnitude;
    if (!decimal_u64(tok->text + negative, tok->len - negative, &magnitude))
        return fail(p, tok, "XIR-P07", "malformed or too large integer literal %s for %s",
                    describe(tok, found, sizeof found), tir_scalar_name(t));
    unsigned width = 8u * (unsigned)tir_scalar_size(t);
    bool in_range;
    if (tir_scalar_is_signed(t)) {
        uint64_t limit = UINT64_C(1) << (width - 1); /* |MIN| */
        in_range = negative ? magnitude <= limit : magnitude < limit;
        out->i = negative ? (int64_t)(0 - magnitude) : (int64_t)magnitude;
    } else {
        in_range = !negative && (width == 64 || magnitude < (UINT64_C(1) << width));
        out->u = magnitude;
    }
    if (!in_range)
        return fail(p, tok, "XIR-P07", "integer literal %s out of range for %s", describe(tok, found, sizeof found),
                    tir_scalar_name(t));
    return true;
}

static bool nan_literal(parser *p, tir_scalar t, xir_bits *out) {
    if (!(at(p, XIR_TOK_COLON) && peek(p, 1)->kind == XIR_TOK_NUMBER)) { /* plain `nan` */
        if (t == TIR_F32) out->f = (double)NAN;
        else out->u = UINT64_C(0x7ff8000000000000);
        return true;
    }
    next(p);
    const xir_token *tok = next(p);
    char found[64], hex[24];
    bool is_f32 = t == TIR_F32;
    size_t digits = tok->len - 2;
    bool ok = tok->len > 2 && tok->text[0] == '0' && tok->text[1] == 'x' && digits <= (is_f32 ? 8u : 16u);
    for (size_t i = 2; ok && i < tok->len; i++)
        ok = (tok->text[i] >= '0' && tok->text[i] <= '9') || (tok->text[i] >= 'a' && tok->text[i] <= 'f') ||
             (tok->text[i] >= 'A' && tok->text[i] <= 'F');
    if (!ok)
        return fail(p, tok, "XIR-P07", "malformed NaN bits %s (expected 0x and hex digits)",
                    describe(tok, found, sizeof found));
    memcpy(hex, tok->text + 2, digits);
    hex[digits] = '\0';
    uint64_t raw = strtoull(hex, NULL, 16);
    uint64_t exponent = is_f32 ? UINT64_C(0x7f800000) : UINT64_C(0x7ff0000000000000);
    uint64_t mantissa = is_f32 ? UINT64_C(0x007fffff) : UINT64_C(0x000fffffffffffff);
    if ((raw & exponent) != exponent || !(raw & mantissa))
        return fail(p, tok, "XIR-P07", "%s are not the bits of a NaN of %s", describe(tok, found, sizeof found),
                    tir_scalar_name(t));
    if (!is_f32) {
        out->u = raw;
        return true;
    }
    if (!(raw & UINT64_C(0x00400000)))
        return fail(p, tok, "XIR-P07", "%s is a signaling NaN, which an f32 constant cannot hold",
                    describe(tok, found, sizeof found));
    uint32_t bits = (uint32_t)raw;
    float f;
    memcpy(&f, &bits, sizeof f);
    out->f = f;
    return true;
}

static bool float_literal(parser *p, tir_scalar t, xir_bits *out) {
    const xir_token *tok = peek(p, 0);
    char found[64];
    bool negative = tok->kind == XIR_TOK_MINUS;
    if (negative) tok = peek(p, 1);
    if (token_is(tok, "inf")) {
        p->pos += negative ? 2 : 1;
        out->f = negative ? -(double)INFINITY : (double)INFINITY;
        return true;
    }
    if (!negative && token_is(tok, "nan")) {
        next(p);
        return nan_literal(p, t, out);
    }
    if (negative || tok->kind != XIR_TOK_NUMBER)
        return fail(p, tok, "XIR-P01", "expected a float literal (a number, inf, -inf or nan), found %s",
                    describe(tok, found, sizeof found));
    next(p);
    char buf[128];
    if (tok->len >= sizeof buf || !is_decimal_float(tok->text, tok->len))
        return fail(p, tok, "XIR-P07", "malformed float literal %s", describe(tok, found, sizeof found));
    memcpy(buf, tok->text, tok->len);
    buf[tok->len] = '\0';
    double d = t == TIR_F32 ? (double)strtof(buf, NULL) : strtod(buf, NULL);
    if (isinf(d))
        return fail(p, tok, "XIR-P07", "float literal %s out of range for %s", describe(tok, found, sizeof found),
                    tir_scalar_name(t));
    out->f = d;
    return true;
}

/* The literal after the scalar type name of a constant operand. */
static xir_value *constant(parser *p, tir_scalar t) {
    xir_bits bits = {.u = 0};
    char found[64];
    if (t == TIR_BOOL) {
        const xir_token *tok = next(p);
        if (!token_is(tok, "true") && !token_is(tok, "false")) {
            fail(p, tok, "XIR-P01", "expected true or false, found %s", describe(tok, found, sizeof found));
            return NULL;
        }
        bits.u = token_is(tok, "true");
    } else if (!(tir_scalar_is_float(t) ? float_literal(p, t, &bits) : integer_literal(p, t, &bits))) {
        return NULL;
    }
    xir_value *v = xir_const_bits(p->m, t, bits);
    return module_ok(p) ? v : NULL;
}

/* ---- types ---- */

static bool scalar_type(parser *p, tir_scalar *out) {
    const xir_token *tok = next(p);
    char found[64];
    *out = tok->kind == XIR_TOK_IDENT ? tir_scalar_from_name(tok->text, tok->len) : TIR_SCALAR_INVALID;
    if (*out == TIR_SCALAR_INVALID)
        return fail(p, tok, "XIR-P06", "expected a scalar type, found %s", describe(tok, found, sizeof found));
    return true;
}

static xir_type *type(parser *p) {
    const xir_token *tok = peek(p, 0);
    char found[64];
    tir_scalar s;
    xir_type *t = NULL;
    if (tok->kind == XIR_TOK_IDENT && tir_scalar_from_name(tok->text, tok->len) != TIR_SCALAR_INVALID) {
        scalar_type(p, &s);
        t = xir_type_scalar(p->m, s);
    } else if (token_is(tok, "void")) {
        next(p);
        t = xir_type_void(p->m);
    } else if (token_is(tok, "array")) {
        next(p);
        if (!expect(p, XIR_TOK_LANGLE, "'<'") || !scalar_type(p, &s) || !expect(p, XIR_TOK_COMMA, "','")) return NULL;
        const xir_token *count_tok = next(p);
        uint64_t count;
        if (count_tok->kind != XIR_TOK_NUMBER || !decimal_u64(count_tok->text, count_tok->len, &count)) {
            fail(p, count_tok, "XIR-P06", "expected an element count, found %s",
                 describe(count_tok, found, sizeof found));
            return NULL;
        }
        if (!expect(p, XIR_TOK_RANGLE, "'>'")) return NULL;
        t = xir_type_array(p->m, s, count);
    } else if (token_is(tok, "ptr") || token_is(tok, "buffer")) {
        bool ptr = token_is(tok, "ptr");
        next(p);
        if (!expect(p, XIR_TOK_LANGLE, "'<'") || !scalar_type(p, &s) || !expect(p, XIR_TOK_RANGLE, "'>'")) return NULL;
        t = ptr ? xir_type_ptr(p->m, s) : xir_type_buffer(p->m, s);
    } else {
        fail(p, tok, "XIR-P06", "expected a type, found %s", describe(tok, found, sizeof found));
        return NULL;
    }
    return module_ok(p) && p->status == TILEC_OK ? t : NULL;
}

/* ---- names ---- */

/* The name of a VALUE or BLOCK token, without its sigil. */
static const char *payload(const xir_token *t, size_t *len) {
    *len = t->len - 1;
    return t->text + 1;
}

/* Binds a value's name (a VALUE token) in the current kernel, resolving any
 * forward use of it. */
static bool define(parser *p, const xir_token *tok, xir_value *v) {
    size_t len;
    const char *name = payload(tok, &len);
    char found[64];
    if (symtab_get(&p->values, name, len))
        return fail(p, tok, "XIR-P04", "redefinition of %s", describe(tok, found, sizeof found));
    if (!symtab_put(&p->values, name, len, v)) return out_of_memory(p);
    if (!xir_name_is_numbered_value(name, len) && !(v->name = arena_strndup(&p->m->arena, name, len)))
        return out_of_memory(p);
    uintptr_t pending = (uintptr_t)symtab_get(&p->forwards, name, len);
    if (pending && !p->pending.data[pending - 1].resolved) {
        forward_ref *ref = &p->pending.data[pending - 1];
        xir_value_replace_all_uses(ref->placeholder, v);
        ref->resolved = true;
    }
    return true;
}

static xir_value *use_value(parser *p, const xir_token *tok) {
    size_t len;
    const char *name = payload(tok, &len);
    xir_value *v = symtab_get(&p->values, name, len);
    if (v) return v;
    uintptr_t pending = (uintptr_t)symtab_get(&p->forwards, name, len);
    if (pending) return p->pending.data[pending - 1].placeholder;
    /* a placeholder: never part of the module, replaced by the definition */
    forward_ref ref = {ARENA_NEW(&p->m->arena, xir_value), tok, false};
    if (!ref.placeholder || !VEC_PUSH(p->ctx, &p->pending, ref) ||
        !symtab_put(&p->forwards, name, len, (void *)(uintptr_t)p->pending.len)) {
        out_of_memory(p);
        return NULL;
    }
    ref.placeholder->kind = XIR_VALUE_INST;
    return ref.placeholder;
}

static xir_block *use_block(parser *p) {
    const xir_token *tok = next(p);
    char found[64];
    if (tok->kind != XIR_TOK_BLOCK) {
        fail(p, tok, "XIR-P01", "expected a block label, found %s", describe(tok, found, sizeof found));
        return NULL;
    }
    size_t len;
    const char *name = payload(tok, &len);
    xir_block *b = symtab_get(&p->labels, name, len);
    if (!b) fail(p, tok, "XIR-P05", "unknown block %s", describe(tok, found, sizeof found));
    return b;
}

/* ---- operands ---- */

static xir_inst_kind kind_from_name(const xir_token *t, xir_arith_op *op) {
    *op = xir_arith_from_name(t->text, t->len);
    if (*op != XIR_OP_INVALID) return XIR_INST_ARITH;
    for (int k = XIR_INST_INVALID + 1; k < XIR_INST_KIND_COUNT; k++)
        if (k != XIR_INST_ARITH && token_is(t, xir_inst_kind_name((xir_inst_kind)k))) return (xir_inst_kind)k;
    return XIR_INST_INVALID;
}

/* Whether an operand starts `ahead` tokens on: a value that is not the result
 * name of the next instruction (`ret` then `%x = ...`), or a word that is
 * neither the name of the next instruction (`ret` then `ret`) nor the `to` of
 * a cast. */
static bool starts_operand(const parser *p, size_t ahead) {
    const xir_token *t = peek(p, ahead);
    xir_arith_op op;
    if (t->kind == XIR_TOK_VALUE) return peek(p, ahead + 1)->kind != XIR_TOK_EQUALS;
    return t->kind == XIR_TOK_IDENT && !token_is(t, "to") && kind_from_name(t, &op) == XIR_INST_INVALID;
}

static xir_value *operand(parser *p) {
    const xir_token *tok = next(p);
    char found[64];
    if (tok->kind == XIR_TOK_VALUE) return use_value(p, tok);
    if (tok->kind == XIR_TOK_IDENT) {
        tir_scalar s = tir_scalar_from_name(tok->text, tok->len);
        if (s != TIR_SCALAR_INVALID) return constant(p, s);
        xir_special sp = xir_special_from_name(tok->text, tok->len);
        if (sp != XIR_SPECIAL_INVALID) {
            xir_value *v = xir_special_value(p->m, sp);
            return module_ok(p) ? v : NULL;
        }
        fail(p, tok, "XIR-P12", "unknown operand %s (not a value, a constant or a special register)",
             describe(tok, found, sizeof found));
        return NULL;
    }
    fail(p, tok, "XIR-P01", "expected an operand, found %s", describe(tok, found, sizeof found));
    return NULL;
}

/* Zero or more comma-separated operands into p->operands; a comma followed by
 * something that is not an operand (a block label) is left for the caller. */
static bool operand_list(parser *p) {
    p->operands.len = 0;
    if (!starts_operand(p, 0)) return true;
    for (;;) {
        xir_value *v = operand(p);
        if (!v) return false;
        if (!VEC_PUSH(p->ctx, &p->operands, v)) return out_of_memory(p);
        if (!(at(p, XIR_TOK_COMMA) && starts_operand(p, 1))) return true;
        next(p);
    }
}

/* `[ operand, ^block ] { , [ operand, ^block ] }` */
static bool incoming_list(parser *p) {
    p->operands.len = p->incoming.len = 0;
    if (!at(p, XIR_TOK_LBRACKET)) return true;
    do {
        if (!expect(p, XIR_TOK_LBRACKET, "'['")) return false;
        xir_value *v = operand(p);
        if (!v || !expect(p, XIR_TOK_COMMA, "','")) return false;
        xir_block *b = use_block(p);
        if (!b || !expect(p, XIR_TOK_RBRACKET, "']'")) return false;
        if (!VEC_PUSH(p->ctx, &p->operands, v) || !VEC_PUSH(p->ctx, &p->incoming, b)) return out_of_memory(p);
    } while (accept(p, XIR_TOK_COMMA));
    return true;
}

/* ---- instructions ---- */

/* The part of an instruction after its opcode: operands, targets and the
 * result type; fills p->operands, p->incoming and the targets. */
static xir_type *inst_body(parser *p, xir_inst_kind kind, xir_arith_op op, xir_block *targets[2]) {
    p->incoming.len = 0;
    switch (kind) {
    case XIR_INST_ARITH:
        if (!operand_list(p)) return NULL;
        if (xir_arith_class(op) == XIR_OPC_COMPARE) return xir_type_scalar(p->m, TIR_BOOL);
        return expect(p, XIR_TOK_COLON, "':' and the result type") ? type(p) : NULL;
    case XIR_INST_CAST:
    case XIR_INST_BITCAST: return operand_list(p) && expect_word(p, "to") ? type(p) : NULL;
    case XIR_INST_PHI: {
        xir_type *t = type(p);
        return t && incoming_list(p) ? t : NULL;
    }
    case XIR_INST_ALLOCA: p->operands.len = 0; return type(p);
    case XIR_INST_GEP:
    case XIR_INST_LOAD:
    case XIR_INST_BUFFER_READ:
    case XIR_INST_WARP_READ_LANE:
        return operand_list(p) && expect(p, XIR_TOK_COLON, "':' and the result type") ? type(p) : NULL;
    case XIR_INST_BUFFER_ADDRESS: return operand_list(p) ? xir_type_scalar(p->m, TIR_U64) : NULL;
    case XIR_INST_BR:
    case XIR_INST_COND_BR:
        if (!operand_list(p)) return NULL;
        for (int i = 0; i < (kind == XIR_INST_BR ? 1 : 2); i++) {
            if ((i || p->operands.len) && !expect(p, XIR_TOK_COMMA, "','")) return NULL;
            if (!(targets[i] = use_block(p))) return NULL;
        }
        return xir_type_void(p->m);
    default: /* store, buffer_write, fault, ret */
        return operand_list(p) ? xir_type_void(p->m) : NULL;
    }
}

static bool instruction(parser *p) {
    const xir_token *result = NULL, *first = peek(p, 0);
    char found[64];
    if (at(p, XIR_TOK_VALUE)) {
        result = next(p);
        if (!expect(p, XIR_TOK_EQUALS, "'='")) return false;
    }
    const xir_token *word = next(p);
    if (word->kind != XIR_TOK_IDENT)
        return fail(p, word, "XIR-P01", "expected an instruction, found %s", describe(word, found, sizeof found));
    xir_arith_op op;
    xir_inst_kind kind = kind_from_name(word, &op);
    if (kind == XIR_INST_INVALID)
        return fail(p, word, "XIR-P02", "unknown instruction %s", describe(word, found, sizeof found));
    if (xir_inst_has_result(kind) && !result)
        return fail(p, word, "XIR-P11", "%s produces a value: name it (%%name = %.*s ...)",
                    describe(word, found, sizeof found), (int)word->len, word->text);
    if (!xir_inst_has_result(kind) && result)
        return fail(p, first, "XIR-P11", "%s produces no value to name", describe(word, found, sizeof found));
    if (!p->block) return fail(p, first, "XIR-P10", "instruction before the first block label");
    xir_block *targets[2] = {NULL, NULL};
    xir_type *t = inst_body(p, kind, op, targets);
    if (!t) {
        module_ok(p); /* without a syntax error, the module ran out of memory */
        return false;
    }
    xir_inst *inst = xir_inst_new(p->f, kind, t);
    if (!inst) return module_ok(p);
    inst->op = op;
    inst->targets[0] = targets[0];
    inst->targets[1] = targets[1];
    if (kind == XIR_INST_ALLOCA) inst->alloca_type = t;
    for (size_t i = 0; i < p->operands.len; i++) {
        bool added = kind == XIR_INST_PHI ? xir_phi_add_incoming(inst, p->operands.data[i], p->incoming.data[i])
                                          : xir_inst_add_operand(inst, p->operands.data[i]);
        if (!added) return module_ok(p);
    }
    xir_inst_insert_end(inst, p->block);
    return !result || define(p, result, &inst->value);
}

/* ---- kernels ---- */

/* Creates the kernel's blocks, in order, from its `^label:` definitions
 * (between the current '{' and the next '}'). */
static bool collect_labels(parser *p) {
    char found[64];
    for (size_t i = p->pos; i + 1 < p->tokens.len && p->tokens.data[i].kind != XIR_TOK_RBRACE; i++) {
        const xir_token *t = &p->tokens.data[i];
        if (t->kind != XIR_TOK_BLOCK || p->tokens.data[i + 1].kind != XIR_TOK_COLON) continue;
        size_t len;
        const char *name = payload(t, &len);
        if (symtab_get(&p->labels, name, len))
            return fail(p, t, "XIR-P04", "block %s defined twice", describe(t, found, sizeof found));
        char *own = NULL;
        if (!xir_name_is_numbered_block(name, len) && !(own = arena_strndup(&p->m->arena, name, len)))
            return out_of_memory(p);
        xir_block *b = xir_block_new(p->f, own);
        if (!b) return module_ok(p);
        if (!symtab_put(&p->labels, name, len, b)) return out_of_memory(p);
    }
    return true;
}

static bool argument(parser *p) {
    const xir_token *name = next(p);
    char found[64];
    if (name->kind != XIR_TOK_VALUE)
        return fail(p, name, "XIR-P01", "expected an argument name, found %s", describe(name, found, sizeof found));
    if (!expect(p, XIR_TOK_COLON, "':'")) return false;
    const xir_token *type_tok = peek(p, 0);
    xir_type *t = type(p);
    if (!t) return false;
    if (t->kind != XIR_TYPE_BUFFER)
        return fail(p, type_tok, "XIR-P06", "a kernel argument has type buffer<T>, found %s",
                    describe(type_tok, found, sizeof found));
    xir_value *v = xir_func_add_buffer(p->f, NULL, t->scalar);
    return v ? define(p, name, v) : module_ok(p);
}

static void reset_kernel_scope(parser *p) {
    symtab_free(&p->values);
    symtab_free(&p->forwards);
    symtab_free(&p->labels);
    symtab_init(&p->values, p->ctx);
    symtab_init(&p->forwards, p->ctx);
    symtab_init(&p->labels, p->ctx);
    p->pending.len = 0;
    p->f = NULL;
    p->block = NULL;
}

static bool kernel(parser *p) {
    char found[64];
    if (!expect_word(p, "kernel")) return false;
    const xir_token *name_tok = next(p);
    if (name_tok->kind != XIR_TOK_GLOBAL)
        return fail(p, name_tok, "XIR-P01", "expected a kernel name (@name), found %s",
                    describe(name_tok, found, sizeof found));
    size_t len;
    const char *name = payload(name_tok, &len);
    if (symtab_get(&p->kernels, name, len))
        return fail(p, name_tok, "XIR-P04", "kernel %s defined twice", describe(name_tok, found, sizeof found));
    char *own = arena_strndup(&p->m->arena, name, len);
    if (!own) return out_of_memory(p);
    if (!(p->f = xir_func_new(p->m, own))) return module_ok(p);
    if (!symtab_put(&p->kernels, name, len, p->f)) return out_of_memory(p);
    if (!expect(p, XIR_TOK_LPAREN, "'('")) return false;
    if (!at(p, XIR_TOK_RPAREN)) {
        do {
            if (!argument(p)) return false;
        } while (accept(p, XIR_TOK_COMMA));
    }
    if (!expect(p, XIR_TOK_RPAREN, "')'") || !expect_word(p, "block_size") || !expect(p, XIR_TOK_EQUALS, "'='"))
        return false;
    const xir_token *size_tok = next(p);
    uint64_t size;
    if (size_tok->kind != XIR_TOK_NUMBER || !decimal_u64(size_tok->text, size_tok->len, &size) || size > UINT32_MAX)
        return fail(p, size_tok, "XIR-P07", "expected a block size (an integer up to 4294967295), found %s",
                    describe(size_tok, found, sizeof found));
    p->f->block_size = (uint32_t)size;
    const xir_token *open = peek(p, 0);
    if (!expect(p, XIR_TOK_LBRACE, "'{'") || !collect_labels(p)) return false;
    while (!at(p, XIR_TOK_RBRACE)) {
        if (at(p, XIR_TOK_EOF))
            return fail(p, peek(p, 0), "XIR-P09", "end of input inside the body of kernel @%.*s (opened at %" PRIu32
                        ":%" PRIu32 ")", (int)len, name, open->line, open->column);
        if (at(p, XIR_TOK_BLOCK) && peek(p, 1)->kind == XIR_TOK_COLON) {
            size_t label_len;
            const char *label = payload(next(p), &label_len);
            next(p);
            p->block = symtab_get(&p->labels, label, label_len);
        } else if (!instruction(p)) {
            return false;
        }
    }
    next(p);
    for (size_t i = 0; i < p->pending.len; i++) {
        const forward_ref *ref = &p->pending.data[i];
        if (!ref->resolved)
            return fail(p, ref->first_use, "XIR-P03", "unknown value %s (never defined in kernel @%.*s)",
                        describe(ref->first_use, found, sizeof found), (int)len, name);
    }
    reset_kernel_scope(p);
    return true;
}

tilec_status xir_parse(tilec_context *ctx, const char *text, size_t len, const char *filename, xir_module **out) {
    if (out) *out = NULL;
    if (!ctx) return TILEC_E_ARG;
    if (!text || !out)
        return tilec_error(ctx, TILEC_E_ARG, "XIR-P00", tilec_no_loc(), "xir_parse: NULL %s", text ? "out" : "text");
    parser p = {.ctx = ctx, .file = filename};
    symtab_init(&p.kernels, ctx);
    symtab_init(&p.values, ctx);
    symtab_init(&p.forwards, ctx);
    symtab_init(&p.labels, ctx);
    if (!xir_lex(ctx, text, len, &p.tokens)) out_of_memory(&p);
    else if (!(p.m = xir_module_create(ctx))) p.status = TILEC_E_NOMEM; /* reported by the module */
    else
        while (p.status == TILEC_OK && !at(&p, XIR_TOK_EOF)) kernel(&p);
    symtab_free(&p.kernels);
    symtab_free(&p.values);
    symtab_free(&p.forwards);
    symtab_free(&p.labels);
    VEC_FREE(ctx, &p.pending);
    VEC_FREE(ctx, &p.operands);
    VEC_FREE(ctx, &p.incoming);
    VEC_FREE(ctx, &p.tokens);
    if (p.status != TILEC_OK) {
        xir_module_destroy(p.m);
        return p.status;
    }
    *out = p.m;
    return TILEC_OK;
}
