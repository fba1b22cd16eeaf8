/* lex.h — the tokenizer of the TileIR text form (docs/tir.md, "Grammar").
 *
 * tir_lex turns the whole input into a token array ending with TIR_TOK_EOF.  It
 * never fails on bad input: an invalid character or an unterminated string
 * becomes one TIR_TOK_ERROR token (carrying its diagnostic code and message),
 * followed by EOF, so the parser reports it when it gets there, after any
 * earlier syntax error.  Token text points into the input; lines and columns
 * are 1-based (columns count bytes). */
#ifndef TILEC_TIR_LEX_H
#define TILEC_TIR_LEX_H

#include "base/vec.h"
#include <stdbool.h>
#include <stdint.h>

typedef enum {
    TIR_TOK_EOF,
    TIR_TOK_ERROR,
    TIR_TOK_IDENT,   /* [A-Za-z_][A-Za-z0-9_.]*  (keywords are identifiers) */
    TIR_TOK_DIM,     /* IDENT '#' DIGITS, written without spaces: a dim label */
    TIR_TOK_VALUE,   /* '%' [A-Za-z0-9_.]+ */
    TIR_TOK_GLOBAL,  /* '@' IDENT */
    TIR_TOK_INT,     /* DIGITS */
    TIR_TOK_FLOAT,   /* DIGITS '.' DIGITS* [exponent] | DIGITS exponent */
    TIR_TOK_STRING,  /* '"' no quote or newline '"' */
    TIR_TOK_LPAREN, TIR_TOK_RPAREN, TIR_TOK_LBRACE, TIR_TOK_RBRACE,
    TIR_TOK_LBRACKET, TIR_TOK_RBRACKET, TIR_TOK_LANGLE, TIR_TOK_RANGLE,
    TIR_TOK_COMMA, TIR_TOK_COLON, TIR_TOK_EQUALS, TIR_TOK_ARROW,
    TIR_TOK_PLUS, TIR_TOK_MINUS, TIR_TOK_STAR, TIR_TOK_SLASH,
    TIR_TOK_PERCENT, /* '%' written directly after an operand (`M%8`, `(M)%8`)
                        or followed by no name character: the remainder operator */
    TIR_TOK_DOTDOT   /* '..': a shape parameter's range (`L: 1..4096`) */
} tir_token_kind;

typedef struct {
    tir_token_kind kind;
    const char *text; /* the whole lexeme, including sigils and quotes */
    size_t len;
    uint32_t line, column;
    const char *error_code;    /* TIR_TOK_ERROR only */
    const char *error_message; /* TIR_TOK_ERROR only; static text */
} tir_token;

typedef VEC(tir_token) tir_token_vec;

/* False only when memory runs out (tokens appended so far stay in *out). */
bool tir_lex(tilec_context *ctx, const char *text, size_t length, tir_token_vec *out);

/* The identifier of a VALUE or GLOBAL token (without its sigil), or the contents
 * of a STRING token (without quotes); other tokens: their text. */
const char *tir_token_payload(const tir_token *t, size_t *len);
/* A short description for messages: "'%x'", "end of input", ... (static or
 * written into buf). */
const char *tir_token_describe(const tir_token *t, char *buf, size_t size);

#endif
