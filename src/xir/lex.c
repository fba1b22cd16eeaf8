/* lex.c — see lex.h. */
#include "xir/lex.h"

static bool is_alpha(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_name_char(char c) { return is_alpha(c) || is_digit(c) || c == '.'; }

static xir_token_kind punctuation(char c) {
    switch (c) {
    case '(': return XIR_TOK_LPAREN;
    case ')': return XIR_TOK_RPAREN;
    case '{': return XIR_TOK_LBRACE;
    case '}': return XIR_TOK_RBRACE;
    case '[': return XIR_TOK_LBRACKET;
    case ']': return XIR_TOK_RBRACKET;
    case '<': return XIR_TOK_LANGLE;
    case '>': return XIR_TOK_RANGLE;
    case ',': return XIR_TOK_COMMA;
    case ':': return XIR_TOK_COLON;
    case '=': return XIR_TOK_EQUALS;
    case '-': return XIR_TOK_MINUS;
    default: return XIR_TOK_ERROR;
    }
}

/* Length of the name characters of text[from..). */
static size_t name_end(const char *text, size_t length, size_t from) {
    while (from < length && is_name_char(text[from])) from++;
    return from;
}

/* Length of a number token starting at text[pos] (a digit, or '-' and a digit). */
static size_t number_length(const char *text, size_t length, size_t pos) {
    size_t start = pos + (text[pos] == '-');
    bool hex = start + 1 < length && text[start] == '0' && (text[start + 1] == 'x' || text[start + 1] == 'X');
    size_t i = start;
    for (;;) {
        i = name_end(text, length, i);
        /* 1e+30, 2.5E-7: a sign continues a decimal number right after its exponent letter */
        bool exponent_sign = !hex && i + 1 < length && (text[i] == '+' || text[i] == '-') &&
                             (text[i - 1] == 'e' || text[i - 1] == 'E') && is_digit(text[i + 1]);
        if (!exponent_sign) return i - pos;
        i++;
    }
}

bool xir_lex(tilec_context *ctx, const char *text, size_t length, xir_token_vec *out) {
    size_t pos = 0;
    uint32_t line = 1, column = 1;
    for (;;) {
        while (pos < length) {
            char c = text[pos];
            if (c == '/' && pos + 1 < length && text[pos + 1] == '/') {
                while (pos < length && text[pos] != '\n') pos++, column++;
            } else if (c == '\n') {
                pos++;
                if (line < UINT32_MAX) line++;
                column = 1;
            } else if (c == ' ' || c == '\t' || c == '\r') {
                pos++, column++;
            } else {
                break;
            }
        }
        xir_token t = {XIR_TOK_EOF, text + pos, 0, line, column};
        if (pos >= length) return VEC_PUSH(ctx, out, t);
        char c = text[pos], next = pos + 1 < length ? text[pos + 1] : '\0';
        if (is_alpha(c)) {
            t.kind = XIR_TOK_IDENT;
            t.len = name_end(text, length, pos + 1) - pos;
        } else if ((c == '%' || c == '^' || c == '@') && is_name_char(next)) {
            t.kind = c == '%' ? XIR_TOK_VALUE : c == '^' ? XIR_TOK_BLOCK : XIR_TOK_GLOBAL;
            t.len = name_end(text, length, pos + 1) - pos;
        } else if (is_digit(c) || (c == '-' && is_digit(next))) {
            t.kind = XIR_TOK_NUMBER;
            t.len = number_length(text, length, pos);
        } else {
            t.kind = punctuation(c);
            t.len = 1;
        }
        if (!VEC_PUSH(ctx, out, t)) return false;
        if (t.kind == XIR_TOK_ERROR) {
            xir_token eof = {XIR_TOK_EOF, t.text, 0, line, column};
            return VEC_PUSH(ctx, out, eof);
        }
        pos += t.len;
        column = column + (uint32_t)t.len < column ? UINT32_MAX : column + (uint32_t)t.len;
    }
}
