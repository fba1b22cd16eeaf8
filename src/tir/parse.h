/* parse.h — state and helpers shared by the text-form parser's files:
 * parse.c (module, kernels, blocks, statements, ops) and parse_expr.c (integer
 * expressions over shape parameters, and constant literals).
 *
 * The parser stops at the first error: `status` records it (with exactly one
 * diagnostic from the parser, or the builder's own), and every parse function
 * returns false from then on.  Names: `values` maps the visible VALUE names to
 * IR values (one scope per open block, no shadowing); `dims` maps the kernel's
 * dim labels to dims; `shape_params` maps the kernel's parameter names to their
 * index in `param_values`. */
#ifndef TILEC_TIR_PARSE_H
#define TILEC_TIR_PARSE_H

#include "base/context.h"
#include "base/symtab.h"
#include "tir/builder.h"
#include "tir/form.h"
#include "tir/lex.h"

/* Deepest nesting of blocks, and of integer-expression parentheses/calls. */
enum { TIR_PARSE_MAX_DEPTH = 128 };
/* Largest rank of a space the parser accepts (the library sugar's limit). */
enum { TIR_PARSE_MAX_RANK = 64 };

typedef struct {
    tilec_context *ctx;
    const char *file; /* copy in the module's arena */
    const char *text_begin;
    size_t text_length;
    tir_token_vec tokens;
    size_t pos;
    tilec_status status;
    tir_module *module;
    tir_func *func;
    tir_builder *builder;
    symtab values, dims, shape_params;
    VEC(tir_shape_param) param_values;
    VEC(tir_value *) scalars; /* the kernel's scalar parameters (one-element views) */
    const tir_define *defines;
    size_t n_defines;
    bool *define_used;
    int depth;
} tir_parser;

/* ---- tokens ---- */
const tir_token *tir_parse_peek(const tir_parser *p, size_t ahead);
const tir_token *tir_parse_next(tir_parser *p);
bool tir_parse_at(const tir_parser *p, tir_token_kind kind);
bool tir_parse_at_word(const tir_parser *p, const char *word);
bool tir_parse_accept(tir_parser *p, tir_token_kind kind);
bool tir_parse_accept_word(tir_parser *p, const char *word);
bool tir_parse_token_is(const tir_token *t, const char *word);
/* Consumes a token of `kind`, or reports TIR-P01 naming `what` was expected. */
bool tir_parse_expect(tir_parser *p, tir_token_kind kind, const char *what);
bool tir_parse_expect_word(tir_parser *p, const char *word);
tilec_loc tir_parse_loc(const tir_parser *p, const tir_token *t);

/* ---- errors: each records the first error and returns false ---- */
bool tir_parse_error(tir_parser *p, const tir_token *at, tilec_status status, const char *code, const char *fmt,
                     ...) __attribute__((format(printf, 5, 6)));
/* TIR-P01 at the current token (or the lexer's error, when it is one). */
bool tir_parse_unexpected(tir_parser *p, const char *expected);
bool tir_parse_oom(tir_parser *p);
bool tir_parse_enter(tir_parser *p, const tir_token *at); /* depth += 1, capped */
void tir_parse_leave(tir_parser *p);

/* ---- parse_expr.c ---- */
/* An integer expression over the current kernel's shape parameters: a
 * number, or a form over its runtime sizes (tir/form.h). */
bool tir_parse_ival(tir_parser *p, tir_ival *out);
/* An iexpr that must be a number; `what` says why (TIR-P27 otherwise). */
bool tir_parse_iexpr(tir_parser *p, const char *what, int64_t *out);
/* An iexpr that must be a number >= 0 (stages, ii, strides); `what` names it. */
bool tir_parse_count(tir_parser *p, const char *what, uint64_t *out);
/* An axis extent >= 0 over the runtime sizes' ranges: a number, or (where
 * runtime_ok) a symbolic extent. */
bool tir_parse_extent(tir_parser *p, bool runtime_ok, uint64_t *out);
/* A constant's literal for `type` (docs/tir.md `literal`); *form (when
 * form is given) receives the form of an index constant over runtime
 * sizes, else NULL. */
bool tir_parse_literal(tir_parser *p, const tir_type *type, tir_literal *out, const tir_form **form);

#endif
