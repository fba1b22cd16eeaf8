/* lex.h — the tokenizer of the XIR text form (docs/xir.md, "Text form").
 *
 * xir_lex turns the whole input into a token array ending with XIR_TOK_EOF.
 * It never fails on bad input: an invalid character becomes one XIR_TOK_ERROR
 * token followed by EOF, and the parser reports it when it gets there.  Token
 * text points into the input; lines and columns are 1-based (columns count
 * bytes).  `//` starts a comment that runs to the end of the line. */
#ifndef TILEC_XIR_LEX_H
#define TILEC_XIR_LEX_H

#include "base/vec.h"
#include <stdbool.h>
#include <stdint.h>

typedef enum {
    XIR_TOK_EOF,
    XIR_TOK_ERROR,
    XIR_TOK_IDENT,  /* [A-Za-z_][A-Za-z0-9_.]* (keywords, types, opcodes, specials) */
    XIR_TOK_VALUE,  /* '%' NAME     where NAME := [A-Za-z0-9_.]+ */
    XIR_TOK_BLOCK,  /* '^' NAME */
    XIR_TOK_GLOBAL, /* '@' NAME */
    XIR_TOK_NUMBER, /* ['-'] DIGIT [A-Za-z0-9_.]* with a sign allowed after
                       an 'e' or 'E' of a decimal number; checked by the parser */
    XIR_TOK_LPAREN, XIR_TOK_RPAREN, XIR_TOK_LBRACE, XIR_TOK_RBRACE,
    XIR_TOK_LBRACKET, XIR_TOK_RBRACKET, XIR_TOK_LANGLE, XIR_TOK_RANGLE,
    XIR_TOK_COMMA, XIR_TOK_COLON, XIR_TOK_EQUALS, XIR_TOK_MINUS
} xir_token_kind;

typedef struct {
    xir_token_kind kind;
    const char *text; /* the whole lexeme, including its sigil */
    size_t len;
    uint32_t line, column;
} xir_token;

typedef VEC(xir_token) xir_token_vec;

/* False only when memory runs out (tokens appended so far stay in *out). */
bool xir_lex(tilec_context *ctx, const char *text, size_t length, xir_token_vec *out);

#endif
