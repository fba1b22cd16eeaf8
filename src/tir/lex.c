/* lex.c — see lex.h.  Comments (`//` to end of line) and whitespace separate
 * tokens and are dropped. */
#include "tir/lex.h"

#include <stdio.h>

static bool is_ident_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_name_char(char c) { return is_ident_start(c) || is_digit(c) || c == '.'; }

typedef struct {
    const char *text;
    size_t length, pos;
    uint32_t line, column;
} cursor;

static char peek_at(const cursor *c, size_t ahead) {
    return c->pos + ahead < c->length ? c->text[c->pos + ahead] : '\0';
}

static void advance(cursor *c, size_t n) {
    for (size_t i = 0; i < n && c->pos < c->length; i++, c->pos++) {
        if (c->text[c->pos] == '\n') {
            if (c->line < UINT32_MAX) c->line++;
            c->column = 1;
        } else if (c->column < UINT32_MAX) {
            c->column++;
        }
    }
}

static size_t span(const cursor *c, size_t from, bool (*pred)(char)) {
    size_t n = from;
    while (c->pos + n < c->length && pred(c->text[c->pos + n])) n++;
    return n;
}

/* A name's length: name characters, stopping before a '..' (a range's
 * operator: `L: 1..N`), which a name never holds. */
static size_t name_length(const cursor *c, size_t from) {
    size_t n = from;
    while (c->pos + n < c->length && is_name_char(c->text[c->pos + n]) &&
           !(c->text[c->pos + n] == '.' && peek_at(c, n + 1) == '.'))
        n++;
    return n;
}

/* Length of a number starting at the cursor; *is_float says whether it has a
 * fraction or an exponent. */
static size_t number_length(const cursor *c, bool *is_float) {
    size_t n = span(c, 0, is_digit);
    *is_float = false;
    if (peek_at(c, n) == '.' && is_digit(peek_at(c, n + 1))) {
        *is_float = true;
        n = span(c, n + 1, is_digit);
    }
    char e = peek_at(c, n);
    if (e == 'e' || e == 'E') {
        size_t m = n + 1;
        if (peek_at(c, m) == '+' || peek_at(c, m) == '-') m++;
        if (is_digit(peek_at(c, m))) {
            *is_float = true;
            n = span(c, m, is_digit);
        }
    }
    return n;
}

static tir_token_kind punctuation(char ch) {
    switch (ch) {
    case '(': return TIR_TOK_LPAREN;
    case ')': return TIR_TOK_RPAREN;
    case '{': return TIR_TOK_LBRACE;
    case '}': return TIR_TOK_RBRACE;
    case '[': return TIR_TOK_LBRACKET;
    case ']': return TIR_TOK_RBRACKET;
    case '<': return TIR_TOK_LANGLE;
    case '>': return TIR_TOK_RANGLE;
    case ',': return TIR_TOK_COMMA;
    case ':': return TIR_TOK_COLON;
    case '=': return TIR_TOK_EQUALS;
    case '+': return TIR_TOK_PLUS;
    case '-': return TIR_TOK_MINUS;
    case '*': return TIR_TOK_STAR;
    case '/': return TIR_TOK_SLASH;
    default: return TIR_TOK_EOF;
    }
}

bool tir_lex(tilec_context *ctx, const char *text, size_t length, tir_token_vec *out) {
    cursor c = {text, length, 0, 1, 1};
    for (;;) {
        /* whitespace and comments */
        char ch = peek_at(&c, 0);
        if (c.pos < c.length && (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r')) {
            advance(&c, 1);
            continue;
        }
        if (ch == '/' && peek_at(&c, 1) == '/') {
            while (c.pos < c.length && c.text[c.pos] != '\n') advance(&c, 1);
            continue;
        }
        tir_token t = {TIR_TOK_EOF, text + c.pos, 0, c.line, c.column, NULL, NULL};
        if (c.pos >= c.length) return VEC_PUSH(ctx, out, t);
        bool is_float;
        if (is_ident_start(ch)) {
            t.kind = TIR_TOK_IDENT;
            t.len = name_length(&c, 1);
            if (peek_at(&c, t.len) == '#' && is_digit(peek_at(&c, t.len + 1))) {
                t.kind = TIR_TOK_DIM;
                t.len = span(&c, t.len + 1, is_digit);
            }
        } else if (is_digit(ch)) {
            t.len = number_length(&c, &is_float);
            t.kind = is_float ? TIR_TOK_FLOAT : TIR_TOK_INT;
        } else if (ch == '%') {
            char prev = c.pos ? text[c.pos - 1] : '\0';
            bool after_operand = c.pos && (is_name_char(prev) || prev == ')');
            t.len = span(&c, 1, is_name_char);
            t.kind = t.len > 1 && !after_operand ? TIR_TOK_VALUE : TIR_TOK_PERCENT;
            if (t.kind == TIR_TOK_PERCENT) t.len = 1;
        } else if (ch == '@' && is_ident_start(peek_at(&c, 1))) {
            t.kind = TIR_TOK_GLOBAL;
            t.len = span(&c, 2, is_name_char);
        } else if (ch == '"') {
            size_t n = 1;
            while (c.pos + n < c.length && text[c.pos + n] != '"' && text[c.pos + n] != '\n' && text[c.pos + n]) n++;
            if (c.pos + n < c.length && text[c.pos + n] == '"') {
                t.kind = TIR_TOK_STRING;
                t.len = n + 1;
            } else if (c.pos + n < c.length && !text[c.pos + n]) {
                /* names are C strings: a NUL would cut one short (found by fuzz_text) */
                t.kind = TIR_TOK_ERROR;
                t.len = 1;
                t.error_code = "TIR-P13";
                t.error_message = "a string cannot contain a NUL byte";
            } else {
                t.kind = TIR_TOK_ERROR;
                t.len = 1;
                t.error_code = "TIR-P13";
                t.error_message = "unterminated string (a string ends with '\"' on the same line)";
            }
        } else if (ch == '-' && peek_at(&c, 1) == '>') {
            t.kind = TIR_TOK_ARROW;
            t.len = 2;
        } else if (ch == '.' && peek_at(&c, 1) == '.') {
            t.kind = TIR_TOK_DOTDOT;
            t.len = 2;
        } else if (punctuation(ch) != TIR_TOK_EOF) {
            t.kind = punctuation(ch);
            t.len = 1;
        } else {
            t.kind = TIR_TOK_ERROR;
            t.len = 1;
            t.error_code = "TIR-P14";
            t.error_message = "invalid character";
        }
        if (!VEC_PUSH(ctx, out, t)) return false;
        if (t.kind == TIR_TOK_ERROR) {
            tir_token eof = {TIR_TOK_EOF, t.text, 0, t.line, t.column, NULL, NULL};
            return VEC_PUSH(ctx, out, eof);
        }
        advance(&c, t.len);
    }
}

const char *tir_token_payload(const tir_token *t, size_t *len) {
    switch (t->kind) {
    case TIR_TOK_VALUE:
    case TIR_TOK_GLOBAL: *len = t->len - 1; return t->text + 1;
    case TIR_TOK_STRING: *len = t->len - 2; return t->text + 1;
    default: *len = t->len; return t->text;
    }
}

const char *tir_token_describe(const tir_token *t, char *buf, size_t size) {
    if (t->kind == TIR_TOK_EOF) return "end of input";
    if (t->kind == TIR_TOK_ERROR) {
        unsigned char ch = (unsigned char)t->text[0];
        if (ch >= 0x20 && ch < 0x7f) snprintf(buf, size, "'%c'", ch);
        else snprintf(buf, size, "byte 0x%02x", ch);
        return buf;
    }
    int shown = t->len > 40 ? 40 : (int)t->len;
    snprintf(buf, size, "'%.*s%s'", shown, t->text, t->len > 40 ? "..." : "");
    return buf;
}
