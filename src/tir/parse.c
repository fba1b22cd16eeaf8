/* parse.c — the TileIR text-form parser (docs/tir.md, "Grammar").
 *
 * Recursive descent over the token array from lex.c.  IR is built only through
 * the public builder (tir_builder_*, tir_region_*, tir_map_*, tir_lib_* for
 * sugar), so the parser enforces exactly the builder's typing rules; before each
 * statement it sets the builder's location to the statement's first token, so
 * builder diagnostics (TIR-B..) carry file:line:col.  The parser's own errors
 * are TIR-P.. codes located at the offending token (table in docs/tir.md).
 *
 * Invariants: the first error stops the parse (p->status) and tir_parse frees
 * the module; nesting is capped (TIR_PARSE_MAX_DEPTH) so no input can exhaust
 * the stack; every VEC a function allocates is freed on every path. */
#include "tir/parse.h"

#include "base/invariant.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- tokens ---- */

const tir_token *tir_parse_peek(const tir_parser *p, size_t ahead) {
    size_t i = p->pos + ahead;
    return &p->tokens.data[i < p->tokens.len ? i : p->tokens.len - 1]; /* the last token is EOF */
}

const tir_token *tir_parse_next(tir_parser *p) {
    const tir_token *t = tir_parse_peek(p, 0);
    if (p->pos + 1 < p->tokens.len) p->pos++;
    return t;
}

bool tir_parse_token_is(const tir_token *t, const char *word) {
    size_t n = strlen(word);
    return t->kind == TIR_TOK_IDENT && t->len == n && !memcmp(t->text, word, n);
}

bool tir_parse_at(const tir_parser *p, tir_token_kind kind) { return tir_parse_peek(p, 0)->kind == kind; }
bool tir_parse_at_word(const tir_parser *p, const char *word) { return tir_parse_token_is(tir_parse_peek(p, 0), word); }

bool tir_parse_accept(tir_parser *p, tir_token_kind kind) {
    if (!tir_parse_at(p, kind)) return false;
    tir_parse_next(p);
    return true;
}

bool tir_parse_accept_word(tir_parser *p, const char *word) {
    if (!tir_parse_at_word(p, word)) return false;
    tir_parse_next(p);
    return true;
}

bool tir_parse_expect(tir_parser *p, tir_token_kind kind, const char *what) {
    return tir_parse_accept(p, kind) || tir_parse_unexpected(p, what);
}

bool tir_parse_expect_word(tir_parser *p, const char *word) {
    if (tir_parse_accept_word(p, word)) return true;
    char what[64];
    snprintf(what, sizeof what, "'%s'", word);
    return tir_parse_unexpected(p, what);
}

tilec_loc tir_parse_loc(const tir_parser *p, const tir_token *t) {
    tilec_loc loc = {p->file, t->line, t->column};
    return loc;
}

/* ---- errors ---- */

bool tir_parse_error(tir_parser *p, const tir_token *at, tilec_status status, const char *code, const char *fmt, ...) {
    if (p->status != TILEC_OK) return false;
    char found[64];
    if (at->kind == TIR_TOK_ERROR) { /* the lexer's error takes precedence */
        p->status = TILEC_E_PARSE;
        tilec_error(p->ctx, TILEC_E_PARSE, at->error_code, tir_parse_loc(p, at), "%s: %s", at->error_message,
                    tir_token_describe(at, found, sizeof found));
        return false;
    }
    p->status = status;
    va_list ap;
    va_start(ap, fmt);
    tilec_verror(p->ctx, status, code, tir_parse_loc(p, at), fmt, ap);
    va_end(ap);
    return false;
}

bool tir_parse_unexpected(tir_parser *p, const char *expected) {
    const tir_token *t = tir_parse_peek(p, 0);
    char found[64];
    return tir_parse_error(p, t, TILEC_E_PARSE, "TIR-P01", "expected %s, found %s", expected,
                           tir_token_describe(t, found, sizeof found));
}

bool tir_parse_oom(tir_parser *p) {
    if (p->status == TILEC_OK) {
        p->status = TILEC_E_NOMEM;
        tilec_error(p->ctx, TILEC_E_NOMEM, "TIR-M01", tilec_no_loc(), "out of memory while parsing");
    }
    return false;
}

bool tir_parse_enter(tir_parser *p, const tir_token *at) {
    if (p->depth >= TIR_PARSE_MAX_DEPTH)
        return tir_parse_error(p, at, TILEC_E_PARSE, "TIR-P16", "nesting deeper than %d levels", TIR_PARSE_MAX_DEPTH);
    p->depth++;
    return true;
}

void tir_parse_leave(tir_parser *p) { p->depth--; }

/* The builder refused a call: adopt its status (it already reported why). */
static bool builder_failed(tir_parser *p) {
    if (p->status != TILEC_OK) return false;
    p->status = tir_builder_status(p->builder);
    /* A builder call that fails records why; one that did not is a bug. */
    if (!TILEC_INVARIANT(p->ctx, p->status != TILEC_OK)) p->status = TILEC_E_INTERNAL;
    return false;
}

static bool built(tir_parser *p, const void *result) {
    return result && tir_builder_status(p->builder) == TILEC_OK ? true : builder_failed(p);
}

static bool built_status(tir_parser *p, tilec_status status) {
    return status == TILEC_OK ? true : builder_failed(p);
}

static char *copy_text(tir_parser *p, const char *text, size_t len) {
    char *s = arena_strndup(&p->module->arena, text, len);
    if (!s) tir_parse_oom(p);
    return s;
}

static int shown_len(size_t len) { return len > 64 ? 64 : (int)len; }

/* ---- names: values and dims ---- */

/* The kernel's scalar parameter named name[0..len), or NULL. */
static tir_value *find_scalar(const tir_parser *p, const char *name, size_t len) {
    for (size_t i = 0; i < p->scalars.len; i++) {
        tir_value *v = p->scalars.data[i];
        if (strlen(v->name) == len && !memcmp(v->name, name, len)) return v;
    }
    return NULL;
}

static bool lookup_value(tir_parser *p, tir_value **out) {
    const tir_token *t = tir_parse_peek(p, 0);
    if (t->kind != TIR_TOK_VALUE) return tir_parse_unexpected(p, "a value ('%name')");
    tir_parse_next(p);
    size_t len;
    const char *name = tir_token_payload(t, &len);
    if ((*out = symtab_get(&p->values, name, len))) return true;
    if (find_scalar(p, name, len))
        return tir_parse_error(p, t, TILEC_E_PARSE, "TIR-P23",
                               "scalar parameter '%%%.*s' is used outside a parallel (it is read at the top of each "
                               "outermost parallel body, and only there has a value)",
                               shown_len(len), name);
    return tir_parse_error(p, t, TILEC_E_PARSE, "TIR-P03", "unknown value '%%%.*s' (not defined or not visible here)",
                           shown_len(len), name);
}

/* TIR-P04 (false) when the VALUE token `t` names a visible value or a
 * scalar parameter. */
static bool name_free(tir_parser *p, const tir_token *t) {
    size_t len;
    const char *name = tir_token_payload(t, &len);
    if (!symtab_get(&p->values, name, len) && !find_scalar(p, name, len)) return true;
    return tir_parse_error(p, t, TILEC_E_PARSE, "TIR-P04",
                           "'%%%.*s' is already defined (names may not be redefined or shadowed)", shown_len(len), name);
}

/* Binds the VALUE token `t` to `v` in the innermost scope; names `v` after it
 * unless it already has a name (sugar may return an existing value). */
static bool define_value(tir_parser *p, const tir_token *t, tir_value *v) {
    size_t len;
    const char *name = tir_token_payload(t, &len);
    if (!name_free(p, t)) return false;
    if (!v->name && !(v->name = copy_text(p, name, len))) return false;
    return symtab_put(&p->values, name, len, v) || tir_parse_oom(p);
}

typedef VEC(tir_value *) value_vec;
typedef VEC(const tir_token *) token_list;

/* VALUE { ',' VALUE } */
static bool parse_value_list(tir_parser *p, value_vec *out) {
    do {
        tir_value *v;
        if (!lookup_value(p, &v)) return false;
        if (!VEC_PUSH(p->ctx, out, v)) return tir_parse_oom(p);
    } while (tir_parse_accept(p, TIR_TOK_COMMA));
    return true;
}

static bool parse_dim(tir_parser *p, tir_dim **out, const tir_token **at) {
    const tir_token *t = tir_parse_peek(p, 0);
    if (t->kind != TIR_TOK_IDENT && t->kind != TIR_TOK_DIM) return tir_parse_unexpected(p, "a dim label");
    tir_parse_next(p);
    *at = t;
    if ((*out = symtab_get(&p->dims, t->text, t->len))) return true;
    char *label = copy_text(p, t->text, t->len);
    if (!label || !(*out = tir_dim_new(p->module, label))) return tir_parse_oom(p);
    return symtab_put(&p->dims, t->text, t->len, *out) || tir_parse_oom(p);
}

/* The axes of one space under construction. */
typedef struct {
    tir_dim *dims[TIR_PARSE_MAX_RANK];
    uint64_t extents[TIR_PARSE_MAX_RANK];
    size_t rank;
} axis_list;

static bool add_axis(tir_parser *p, axis_list *axes, tir_dim *d, const tir_token *at, uint64_t extent) {
    if (axes->rank == TIR_PARSE_MAX_RANK)
        return tir_parse_error(p, at, TILEC_E_PARSE, "TIR-P22", "a space has at most %d axes", TIR_PARSE_MAX_RANK);
    for (size_t i = 0; i < axes->rank; i++)
        if (axes->dims[i] == d)
            return tir_parse_error(p, at, TILEC_E_PARSE, "TIR-P17", "dim '%.*s' appears twice in one space",
                                   shown_len(at->len), at->text);
    axes->dims[axes->rank] = d;
    axes->extents[axes->rank++] = extent;
    return true;
}

/* DIM '=' iexpr — over runtime sizes only where runtime_ok (views and the
 * domains of parallels and loops). */
static bool parse_axis(tir_parser *p, axis_list *axes, bool runtime_ok) {
    tir_dim *d = NULL;
    const tir_token *at = NULL;
    uint64_t extent = 0;
    return parse_dim(p, &d, &at) && tir_parse_expect(p, TIR_TOK_EQUALS, "'='") &&
           tir_parse_extent(p, runtime_ok, &extent) && add_axis(p, axes, d, at, extent);
}

static bool make_space(tir_parser *p, const axis_list *axes, tir_space **out) {
    *out = tir_space_make(p->module, axes->rank, axes->dims, axes->extents);
    return *out || tir_parse_oom(p);
}

/* '[' [ axis { ',' axis } ] ']' */
static bool parse_space(tir_parser *p, tir_space **out, bool runtime_ok) {
    axis_list axes;
    axes.rank = 0;
    if (!tir_parse_expect(p, TIR_TOK_LBRACKET, "'['")) return false;
    if (!tir_parse_at(p, TIR_TOK_RBRACKET))
        do {
            if (!parse_axis(p, &axes, runtime_ok)) return false;
        } while (tir_parse_accept(p, TIR_TOK_COMMA));
    return tir_parse_expect(p, TIR_TOK_RBRACKET, "']'") && make_space(p, &axes, out);
}

/* '(' [ VALUE ':' axis { ',' VALUE ':' axis } ] ')' — a map may be rank 0; the
 * builder rejects rank-0 loops and parallels. */
static bool parse_coords(tir_parser *p, token_list *names, tir_space **out, bool runtime_ok) {
    axis_list axes;
    axes.rank = 0;
    if (!tir_parse_expect(p, TIR_TOK_LPAREN, "'('")) return false;
    if (!tir_parse_at(p, TIR_TOK_RPAREN))
        do {
            const tir_token *name = tir_parse_peek(p, 0);
            if (!tir_parse_expect(p, TIR_TOK_VALUE, "a coordinate name ('%name')")) return false;
            if (!VEC_PUSH(p->ctx, names, name)) return tir_parse_oom(p);
            if (!tir_parse_expect(p, TIR_TOK_COLON, "':'") || !parse_axis(p, &axes, runtime_ok)) return false;
        } while (tir_parse_accept(p, TIR_TOK_COMMA));
    return tir_parse_expect(p, TIR_TOK_RPAREN, "')'") && make_space(p, &axes, out);
}

/* ---- types ---- */

static bool parse_scalar(tir_parser *p, tir_scalar *out) {
    const tir_token *t = tir_parse_peek(p, 0);
    *out = t->kind == TIR_TOK_IDENT ? tir_scalar_from_name(t->text, t->len) : TIR_SCALAR_INVALID;
    if (*out == TIR_SCALAR_INVALID)
        return tir_parse_unexpected(p, "a scalar type (bool, i8, u8, i16, u16, i32, u32, i64, u64, f32, f64)");
    tir_parse_next(p);
    return true;
}

/* 'index' | scalar | 'tile' '<' scalar '>' space | 'view' '<' scalar '>' space */
static bool parse_type(tir_parser *p, tir_type **out) {
    tir_scalar s;
    tir_space *space;
    if (tir_parse_accept_word(p, "index")) {
        *out = tir_type_index(p->module);
    } else if (tir_parse_at_word(p, "tile") || tir_parse_at_word(p, "view")) {
        bool tile = tir_parse_token_is(tir_parse_next(p), "tile");
        if (!tir_parse_expect(p, TIR_TOK_LANGLE, "'<'") || !parse_scalar(p, &s) ||
            !tir_parse_expect(p, TIR_TOK_RANGLE, "'>'") || !parse_space(p, &space, !tile))
            return false;
        *out = tile ? tir_type_tile(p->module, s, space) : tir_type_view(p->module, s, space);
    } else {
        const tir_token *t = tir_parse_peek(p, 0);
        s = t->kind == TIR_TOK_IDENT ? tir_scalar_from_name(t->text, t->len) : TIR_SCALAR_INVALID;
        if (s == TIR_SCALAR_INVALID) return tir_parse_unexpected(p, "a type (index, a scalar, tile<..>[..], view<..>[..])");
        tir_parse_next(p);
        *out = tir_type_scalar(p->module, s);
    }
    return *out || tir_parse_oom(p);
}

/* The type as written, e.g. tile<f32>[m=4, n=8] (long spaces are cut). */
static void type_text(const tir_type *t, char *buf, size_t size) {
    if (t->kind == TIR_TYPE_INDEX || t->kind == TIR_TYPE_SCALAR) {
        snprintf(buf, size, "%s", t->kind == TIR_TYPE_INDEX ? "index" : tir_scalar_name(t->elem));
        return;
    }
    size_t n = (size_t)snprintf(buf, size, "%s<%s>[", t->kind == TIR_TYPE_TILE ? "tile" : "view", tir_scalar_name(t->elem));
    for (uint32_t i = 0; i < t->space->rank && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, "%s%s=%llu", i ? ", " : "", t->space->axes[i].dim->label,
                              (unsigned long long)t->space->axes[i].extent);
    if (n < size) snprintf(buf + n, size - n, "]");
}

/* The annotation (or iter type) at `at` must be `expected`. */
static bool check_type(tir_parser *p, const tir_token *at, const tir_type *written, const tir_type *expected) {
    if (written == expected) return true;
    char w[160], e[160];
    type_text(written, w, sizeof w);
    type_text(expected, e, sizeof e);
    return tir_parse_error(p, at, TILEC_E_PARSE, "TIR-P05", "type annotation %s does not match the inferred type %s", w,
                           e);
}

/* ---- blocks ---- */

typedef struct {
    const tir_token *yield;  /* the yield statement, NULL when absent */
    const tir_token *close;  /* the closing '}' */
    value_vec values;
} block_end;

static bool parse_stmt(tir_parser *p);

/* True when the tokens ahead read `VALUE { ',' VALUE } '='`: a statement, not
 * the operands of a bare `yield` before it. */
static bool starts_definition(const tir_parser *p) {
    size_t i = 0;
    while (tir_parse_peek(p, i)->kind == TIR_TOK_VALUE) {
        tir_token_kind after = tir_parse_peek(p, i + 1)->kind;
        if (after == TIR_TOK_EQUALS) return true;
        if (after != TIR_TOK_COMMA) return false;
        i += 2;
    }
    return false;
}

/* '{' { stmt } [ 'yield' [ vlist ] ] '}' — statements go to the builder's
 * insertion point; the yield (if any) is returned for the caller to apply. */
static bool parse_body(tir_parser *p, bool allows_yield, block_end *end) {
    const tir_token *open = tir_parse_peek(p, 0);
    if (!tir_parse_expect(p, TIR_TOK_LBRACE, "'{'") || !tir_parse_enter(p, open)) return false;
    bool ok = true;
    while (ok) {
        const tir_token *t = tir_parse_peek(p, 0);
        if (t->kind == TIR_TOK_RBRACE) {
            end->close = tir_parse_next(p);
            break;
        }
        if (t->kind == TIR_TOK_EOF) {
            ok = tir_parse_error(p, t, TILEC_E_PARSE, "TIR-P12", "unterminated block: the '{' at %u:%u is not closed",
                                 open->line, open->column);
        } else if (end->yield) {
            ok = tir_parse_error(p, t, TILEC_E_PARSE, "TIR-P19", "'yield' must be the last statement of its block");
        } else if (tir_parse_token_is(t, "yield") && !allows_yield) {
            ok = tir_parse_error(p, t, TILEC_E_PARSE, "TIR-P19", "'yield' outside a region");
        } else if (tir_parse_token_is(t, "yield")) {
            end->yield = tir_parse_next(p);
            if (starts_definition(p))
                ok = tir_parse_error(p, tir_parse_peek(p, 0), TILEC_E_PARSE, "TIR-P19",
                                     "'yield' must be the last statement of its block");
            else if (tir_parse_at(p, TIR_TOK_VALUE))
                ok = parse_value_list(p, &end->values);
        } else {
            ok = parse_stmt(p);
        }
    }
    tir_parse_leave(p);
    return ok;
}

/* Opens a scope binding a region's block arguments to `names`, in order. */
static bool bind_args(tir_parser *p, const tir_op *region, const token_list *names, const token_list *carries) {
    if (!symtab_push_scope(&p->values)) return tir_parse_oom(p);
    size_t rank = names->len;
    for (size_t i = 0; i < rank; i++)
        if (!define_value(p, names->data[i], region->body->args[i])) return false;
    for (size_t i = 0; carries && i < carries->len; i++)
        if (!define_value(p, carries->data[i], region->body->args[rank + i])) return false;
    return true;
}

/* ---- ops ---- */

typedef struct {
    value_vec values;
} results;

static bool one_result(tir_parser *p, results *out, tir_value *v) {
    if (!built(p, v)) return false;
    return VEC_PUSH(p->ctx, &out->values, v) || tir_parse_oom(p);
}

static bool op_const(tir_parser *p, results *out) {
    tir_type *type;
    tir_literal lit;
    const tir_form *form;
    if (!parse_type(p, &type) || !tir_parse_literal(p, type, &lit, &form)) return false;
    tir_value *v = tir_const(p->builder, type, lit);
    if (v && form) v->def_op->form = form; /* an index constant over runtime sizes */
    return one_result(p, out, v);
}

static bool op_elementwise(tir_parser *p, tir_ew_op op, results *out) {
    value_vec operands = {0};
    bool ok = parse_value_list(p, &operands) &&
              one_result(p, out, tir_ew(p->builder, op, operands.len, operands.data));
    VEC_FREE(p->ctx, &operands);
    return ok;
}

static bool op_cast(tir_parser *p, results *out) {
    tir_value *v;
    tir_scalar to;
    return lookup_value(p, &v) && tir_parse_expect_word(p, "to") && parse_scalar(p, &to) &&
           one_result(p, out, tir_cast(p->builder, v, to));
}

/* '[' [ vlist ] ']' (rank-0 tiles and views take no index) */
static bool parse_indices(tir_parser *p, value_vec *indices) {
    if (!tir_parse_expect(p, TIR_TOK_LBRACKET, "'['")) return false;
    if (!tir_parse_at(p, TIR_TOK_RBRACKET) && !parse_value_list(p, indices)) return false;
    return tir_parse_expect(p, TIR_TOK_RBRACKET, "a value or ']'");
}

static bool op_extract(tir_parser *p, results *out) {
    tir_value *tile;
    value_vec indices = {0};
    bool ok = lookup_value(p, &tile) && parse_indices(p, &indices) &&
              one_result(p, out, tir_extract(p->builder, tile, indices.len, indices.data));
    VEC_FREE(p->ctx, &indices);
    return ok;
}

static bool op_mma(tir_parser *p, results *out) {
    tir_value *a, *b, *c;
    if (!lookup_value(p, &a) || !tir_parse_expect(p, TIR_TOK_COMMA, "','") || !lookup_value(p, &b) ||
        !tir_parse_expect(p, TIR_TOK_COMMA, "','") || !lookup_value(p, &c))
        return false;
    bool ordered = tir_parse_accept_word(p, "ordered");
    return one_result(p, out, tir_mma(p->builder, a, b, c, !ordered));
}

/* VALUE '[' vlist ']' naming a view: the index count must match its rank (a
 * non-view is left to the builder, which rejects it before reading indices). */
static bool parse_access(tir_parser *p, tir_value **view, value_vec *indices) {
    const tir_token *at = tir_parse_peek(p, 0);
    if (!lookup_value(p, view) || !parse_indices(p, indices)) return false;
    const tir_type *t = (*view)->type;
    if (t->kind == TIR_TYPE_VIEW && indices->len != t->space->rank)
        return tir_parse_error(p, at, TILEC_E_PARSE, "TIR-P18", "view '%.*s' has rank %u but %zu indices are given",
                               shown_len(at->len), at->text, t->space->rank, indices->len);
    return true;
}

static bool parse_bounds(tir_parser *p, tir_bounds *out) {
    *out = TIR_BOUNDS_ZERO;
    if (!tir_parse_accept_word(p, "bounds")) return true;
    if (!tir_parse_expect(p, TIR_TOK_EQUALS, "'='")) return false;
    if (tir_parse_accept_word(p, "zero")) return true;
    if (tir_parse_accept_word(p, "assume")) return *out = TIR_BOUNDS_ASSUME, true;
    return tir_parse_unexpected(p, "a bounds mode (zero, assume)");
}

/* What follows 'tile' in a load or store: space [ 'stride' '[' iexpr, ... ']' ] [ bounds ]. */
typedef struct {
    tir_space *space;
    uint64_t strides[TIR_PARSE_MAX_RANK];
    bool strided;
    tir_bounds bounds;
} tile_clause;

static bool parse_tile_clause(tir_parser *p, tile_clause *c) {
    c->strided = false;
    if (!parse_space(p, &c->space, false)) return false;
    const tir_token *at = tir_parse_peek(p, 0);
    if (tir_parse_accept_word(p, "stride")) {
        uint32_t n = 0;
        if (!tir_parse_expect(p, TIR_TOK_LBRACKET, "'['")) return false;
        do {
            if (n == TIR_PARSE_MAX_RANK)
                return tir_parse_error(p, tir_parse_peek(p, 0), TILEC_E_PARSE, "TIR-P24", "more strides than axes");
            if (!tir_parse_count(p, "a stride", &c->strides[n++])) return false;
        } while (tir_parse_accept(p, TIR_TOK_COMMA));
        if (!tir_parse_expect(p, TIR_TOK_RBRACKET, "']'")) return false;
        if (n != c->space->rank)
            return tir_parse_error(p, at, TILEC_E_PARSE, "TIR-P24", "%u strides are given for a tile of rank %u", n,
                                   c->space->rank);
        c->strided = true;
    }
    return parse_bounds(p, &c->bounds);
}

static bool op_load(tir_parser *p, results *out) {
    tir_value *view, *extra[2] = {NULL, NULL};
    value_vec indices = {0};
    bool ok = parse_access(p, &view, &indices);
    if (ok && tir_parse_accept_word(p, "tile")) {
        tile_clause c;
        ok = parse_tile_clause(p, &c) && (!tir_parse_accept_word(p, "fill") || lookup_value(p, &extra[0])) &&
             one_result(p, out,
                        tir_load_tile_strided(p->builder, view, indices.data, c.space, c.strided ? c.strides : NULL,
                                              c.bounds, extra[0]));
    } else if (ok) {
        if (tir_parse_accept_word(p, "mask"))
            ok = lookup_value(p, &extra[0]) && tir_parse_expect_word(p, "else") && lookup_value(p, &extra[1]);
        ok = ok && one_result(p, out, tir_load_elem(p->builder, view, indices.data, extra[0], extra[1]));
    }
    VEC_FREE(p->ctx, &indices);
    return ok;
}

static bool op_store(tir_parser *p) {
    tir_value *view, *value;
    value_vec indices = {0};
    bool ok = parse_access(p, &view, &indices);
    if (ok && tir_parse_accept_word(p, "tile")) {
        const tir_token *at = tir_parse_peek(p, 0);
        tile_clause c;
        ok = parse_tile_clause(p, &c) && tir_parse_expect(p, TIR_TOK_COMMA, "','") && lookup_value(p, &value);
        if (ok && value->type->kind == TIR_TYPE_TILE && value->type->space != c.space)
            ok = tir_parse_error(p, at, TILEC_E_PARSE, "TIR-P21",
                                 "the store's tile space differs from the space of the stored value");
        ok = ok && built_status(p, tir_store_tile_strided(p->builder, view, indices.data, value,
                                                          c.strided ? c.strides : NULL, c.bounds));
    } else if (ok) {
        ok = tir_parse_expect(p, TIR_TOK_COMMA, "','") && lookup_value(p, &value) &&
             built_status(p, tir_store_elem(p->builder, view, indices.data, value));
    }
    VEC_FREE(p->ctx, &indices);
    return ok;
}

/* Applies a region's yield (or the implicit empty one) and closes it. */
static bool close_region(tir_parser *p, tir_op *region, const block_end *end) {
    tir_builder_set_loc(p->builder, tir_parse_loc(p, end->yield ? end->yield : end->close));
    if (!end->yield && region->kind != TIR_OP_PARALLEL && region->result_count)
        return tir_parse_error(p, end->close, TILEC_E_PARSE, "TIR-P19",
                               "a %s with carries must end with 'yield' of one value per carry",
                               tir_op_kind_name(region->kind));
    return built_status(p, tir_region_end(p->builder, region, end->values.len, end->values.data));
}

/* 'combine' after a region that cannot take one. */
static bool refuse_combine(tir_parser *p, tir_op_kind kind) {
    if (!tir_parse_at_word(p, "combine")) return true;
    return tir_parse_error(p, tir_parse_peek(p, 0), TILEC_E_PARSE, "TIR-P20",
                           "'combine' applies only to reduce, not %s", tir_op_kind_name(kind));
}

static bool op_map(tir_parser *p, results *out) {
    token_list names = {0};
    block_end end = {0};
    tir_space *space;
    tir_scalar elem;
    tir_op *map = NULL;
    bool ok = parse_coords(p, &names, &space, false) && tir_parse_expect(p, TIR_TOK_ARROW, "'->'") && parse_scalar(p, &elem) &&
              built(p, map = tir_map_begin(p->builder, space, elem));
    bool scoped = ok && bind_args(p, map, &names, NULL);
    ok = scoped && parse_body(p, true, &end);
    if (ok && (!end.yield || end.values.len != 1))
        ok = tir_parse_error(p, end.yield ? end.yield : end.close, TILEC_E_PARSE, "TIR-P19",
                             "a map body must end with 'yield' of exactly one value");
    if (ok) {
        tir_builder_set_loc(p->builder, tir_parse_loc(p, end.yield));
        ok = one_result(p, out, tir_map_end(p->builder, map, end.values.data[0])) && refuse_combine(p, TIR_OP_MAP);
    }
    if (scoped) symtab_pop_scope(&p->values);
    VEC_FREE(p->ctx, &names);
    VEC_FREE(p->ctx, &end.values);
    return ok;
}

/* Loop attributes: stages/ii (pipeline), policy (reduce), scope (parallel). */
static bool parse_region_attrs(tir_parser *p, tir_op_kind kind, tir_region_opts *opts) {
    bool seen[4] = {false, false, false, false};
    static const char *const words[4] = {"stages", "ii", "policy", "scope"};
    static const tir_op_kind owner[4] = {TIR_OP_PIPELINE, TIR_OP_PIPELINE, TIR_OP_REDUCE, TIR_OP_PARALLEL};
    for (;;) {
        int w = 0;
        while (w < 4 && !tir_parse_at_word(p, words[w])) w++;
        if (w == 4) return true;
        const tir_token *at = tir_parse_next(p);
        if (owner[w] != kind)
            return tir_parse_error(p, at, TILEC_E_PARSE, "TIR-P20", "'%s' does not apply to %s", words[w],
                                   tir_op_kind_name(kind));
        if (seen[w]) return tir_parse_error(p, at, TILEC_E_PARSE, "TIR-P20", "'%s' is given twice", words[w]);
        seen[w] = true;
        if (!tir_parse_expect(p, TIR_TOK_EQUALS, "'='")) return false;
        if (w == 0 && !tir_parse_count(p, "'stages'", &opts->stages)) return false;
        if (w == 1 && !tir_parse_count(p, "'ii'", &opts->initiation_interval)) return false;
        if (w == 2) {
            int k = 0;
            while (k < TIR_REDUCE_POLICY_COUNT && !tir_parse_at_word(p, tir_reduction_policy_name((tir_reduction_policy)k))) k++;
            if (k == TIR_REDUCE_POLICY_COUNT)
                return tir_parse_unexpected(p, "a policy (unordered_tree, ordered_tree, fold_left, fold_right)");
            tir_parse_next(p);
            opts->policy = (tir_reduction_policy)k;
        }
        if (w == 3) {
            int k = 0;
            while (k < TIR_SCOPE_COUNT && !tir_parse_at_word(p, tir_exec_scope_name((tir_exec_scope)k))) k++;
            if (k == TIR_SCOPE_COUNT)
                return tir_parse_unexpected(p, "a scope (auto, device, group, subgroup, worker, vector)");
            tir_parse_next(p);
            opts->scope = (tir_exec_scope)k;
        }
    }
}

/* 'iter' '(' carry { ',' carry } ')' '->' '(' type { ',' type } ')' */
static bool parse_carries(tir_parser *p, token_list *names, value_vec *inits) {
    if (!tir_parse_expect(p, TIR_TOK_LPAREN, "'('")) return false;
    do {
        const tir_token *name = tir_parse_peek(p, 0);
        tir_value *init;
        if (!tir_parse_expect(p, TIR_TOK_VALUE, "a carry name ('%name')") ||
            !tir_parse_expect(p, TIR_TOK_EQUALS, "'='") || !lookup_value(p, &init))
            return false;
        if (!VEC_PUSH(p->ctx, names, name) || !VEC_PUSH(p->ctx, inits, init)) return tir_parse_oom(p);
    } while (tir_parse_accept(p, TIR_TOK_COMMA));
    if (!tir_parse_expect(p, TIR_TOK_RPAREN, "')'") || !tir_parse_expect(p, TIR_TOK_ARROW, "'->'") ||
        !tir_parse_expect(p, TIR_TOK_LPAREN, "'('"))
        return false;
    size_t n = 0;
    do {
        const tir_token *at = tir_parse_peek(p, 0);
        tir_type *type;
        if (!parse_type(p, &type)) return false;
        if (n == inits->len)
            return tir_parse_error(p, at, TILEC_E_PARSE, "TIR-P18", "more carry types than carries (%zu)", inits->len);
        if (!check_type(p, at, type, inits->data[n++]->type)) return false;
    } while (tir_parse_accept(p, TIR_TOK_COMMA));
    if (n != inits->len)
        return tir_parse_error(p, tir_parse_peek(p, 0), TILEC_E_PARSE, "TIR-P18", "%zu carries but %zu carry types",
                               inits->len, n);
    return tir_parse_expect(p, TIR_TOK_RPAREN, "')'");
}

/* '(' [ VALUE { ',' VALUE } ] ')': one side of a combine block's state, one
 * name per carry. */
static bool parse_state_names(tir_parser *p, token_list *names, size_t carries, const char *side) {
    size_t n = 0;
    if (!tir_parse_expect(p, TIR_TOK_LPAREN, "'('")) return false;
    if (!tir_parse_at(p, TIR_TOK_RPAREN))
        do {
            const tir_token *name = tir_parse_peek(p, 0);
            if (!tir_parse_expect(p, TIR_TOK_VALUE, "a state name ('%name')")) return false;
            if (n++ == carries)
                return tir_parse_error(p, name, TILEC_E_PARSE, "TIR-P18",
                                       "the %s state has more names than the reduce has carries (%zu)", side, carries);
            if (!VEC_PUSH(p->ctx, names, name)) return tir_parse_oom(p);
        } while (tir_parse_accept(p, TIR_TOK_COMMA));
    if (n != carries)
        return tir_parse_error(p, tir_parse_peek(p, 0), TILEC_E_PARSE, "TIR-P18",
                               "the %s state has %zu names, but the reduce has %zu carries", side, n, carries);
    return tir_parse_expect(p, TIR_TOK_RPAREN, "')'");
}

/* The names, body and yield of a combine block whose frame is open. */
static bool parse_combine_block(tir_parser *p, tir_op *reduce, const token_list *names) {
    block_end end = {0};
    bool ok = true;
    for (size_t i = 0; ok && i < names->len; i++) ok = define_value(p, names->data[i], reduce->combine->args[i]);
    ok = ok && parse_body(p, true, &end);
    if (ok && !end.yield)
        ok = tir_parse_error(p, end.close, TILEC_E_PARSE, "TIR-P19",
                             "a combine block must end with 'yield' of one value per carry");
    if (ok) {
        tir_builder_set_loc(p->builder, tir_parse_loc(p, end.yield));
        ok = built_status(p, tir_combine_end(p->builder, reduce, end.values.len, end.values.data));
    }
    VEC_FREE(p->ctx, &end.values);
    return ok;
}

/* 'combine' '(' left names ')' '(' right names ')' block, after a reduce.  The
 * block sees only its own names, so it is parsed against an empty name table:
 * the enclosing one is set aside and restored on every path. */
static bool parse_combine(tir_parser *p, tir_op *region) {
    const tir_token *kw = tir_parse_next(p);
    if (region->kind != TIR_OP_REDUCE)
        return tir_parse_error(p, kw, TILEC_E_PARSE, "TIR-P20", "'combine' applies only to reduce, not %s",
                               tir_op_kind_name(region->kind));
    if (region->combine) return tir_parse_error(p, kw, TILEC_E_PARSE, "TIR-P20", "'combine' is given twice");
    token_list names = {0};
    size_t k = region->result_count;
    bool ok = parse_state_names(p, &names, k, "left") && parse_state_names(p, &names, k, "right");
    if (ok) {
        tir_builder_set_loc(p->builder, tir_parse_loc(p, kw));
        ok = built(p, tir_combine_begin(p->builder, region));
    }
    if (ok) {
        symtab outer = p->values;
        symtab_init(&p->values, p->ctx);
        ok = parse_combine_block(p, region, &names);
        symtab_free(&p->values);
        p->values = outer;
    }
    VEC_FREE(p->ctx, &names);
    return ok;
}

/* At the top of an outermost parallel body: each scalar parameter's element
 * loaded and bound to the parameter's name (docs/tir.md "Scalar
 * parameters").  Nested parallels see the outer binding. */
static bool bind_scalars(tir_parser *p) {
    tir_value *zero = NULL;
    for (size_t i = 0; i < p->scalars.len; i++) {
        tir_value *view = p->scalars.data[i];
        size_t len = strlen(view->name);
        if (symtab_get(&p->values, view->name, len)) continue;
        if (!zero && !built(p, zero = tir_const_index(p->builder, 0))) return false;
        tir_value *x = tir_load_elem(p->builder, view, &zero, NULL, NULL);
        if (!built(p, x) || !symtab_put(&p->values, view->name, len, x)) return x ? tir_parse_oom(p) : false;
    }
    return true;
}

static bool op_region(tir_parser *p, tir_op_kind kind, results *out) {
    token_list names = {0}, carry_names = {0};
    value_vec inits = {0};
    block_end end = {0};
    tir_space *domain;
    tir_region_opts opts = {0};
    tir_op *region = NULL;
    bool ok = parse_coords(p, &names, &domain, true) && parse_region_attrs(p, kind, &opts);
    if (ok && kind != TIR_OP_PARALLEL && tir_parse_accept_word(p, "iter")) ok = parse_carries(p, &carry_names, &inits);
    ok = ok && built(p, region = tir_region_begin(p->builder, kind, domain, &opts, inits.len, inits.data));
    bool scoped = ok && bind_args(p, region, &names, &carry_names);
    ok = scoped && (kind != TIR_OP_PARALLEL || bind_scalars(p)) && parse_body(p, true, &end) &&
         close_region(p, region, &end);
    while (ok && tir_parse_at_word(p, "combine")) ok = parse_combine(p, region);
    for (uint32_t i = 0; ok && i < region->result_count; i++)
        if (!VEC_PUSH(p->ctx, &out->values, region->results[i])) ok = tir_parse_oom(p);
    if (scoped) symtab_pop_scope(&p->values);
    VEC_FREE(p->ctx, &names);
    VEC_FREE(p->ctx, &carry_names);
    VEC_FREE(p->ctx, &inits);
    VEC_FREE(p->ctx, &end.values);
    return ok;
}

/* One arm of an if: begins the region on `cond` with `inits`, binds the
 * carry names, parses and closes the body.  NULL on failure. */
static tir_op *if_arm(tir_parser *p, tir_value *cond, const token_list *carry_names, tir_value *const *inits) {
    block_end end = {0};
    tir_op *region = tir_if_begin(p->builder, cond, carry_names->len, inits);
    bool ok = built(p, region), scoped = ok && bind_args(p, region, &(token_list){0}, carry_names);
    ok = scoped && parse_body(p, true, &end) && close_region(p, region, &end);
    if (scoped) symtab_pop_scope(&p->values);
    VEC_FREE(p->ctx, &end.values);
    return ok ? region : NULL;
}

/* 'if' VALUE [ 'iter' carries ] block [ 'else' block ]: an else arm is a
 * second if on the negated condition whose carries start at the first's
 * results (exactly one arm runs; printing shows the two ifs). */
static bool op_if(tir_parser *p, results *out) {
    token_list carry_names = {0};
    value_vec inits = {0};
    tir_value *cond;
    bool ok = lookup_value(p, &cond);
    if (ok && tir_parse_accept_word(p, "iter")) ok = parse_carries(p, &carry_names, &inits);
    tir_op *region = ok ? if_arm(p, cond, &carry_names, inits.data) : NULL;
    if (region && tir_parse_accept_word(p, "else")) {
        tir_value *negated = tir_ew1(p->builder, TIR_EW_NOT, cond);
        region = built(p, negated) ? if_arm(p, negated, &carry_names, region->results) : NULL;
    }
    ok = region != NULL;
    for (uint32_t i = 0; ok && i < region->result_count; i++)
        if (!VEC_PUSH(p->ctx, &out->values, region->results[i])) ok = tir_parse_oom(p);
    VEC_FREE(p->ctx, &carry_names);
    VEC_FREE(p->ctx, &inits);
    return ok;
}

/* ---- sugar ---- */

/* '(' DIM { ',' DIM } ')' after `keyword`: dims some space of the kernel
 * already uses. */
static bool parse_dim_list(tir_parser *p, const char *keyword, axis_list *dims) {
    dims->rank = 0;
    if (!tir_parse_expect(p, TIR_TOK_LPAREN, "'('")) return false;
    do {
        const tir_token *t = tir_parse_peek(p, 0);
        if (t->kind != TIR_TOK_IDENT && t->kind != TIR_TOK_DIM) return tir_parse_unexpected(p, "a dim label");
        tir_parse_next(p);
        tir_dim *d = symtab_get(&p->dims, t->text, t->len);
        if (!d)
            return tir_parse_error(p, t, TILEC_E_PARSE, "TIR-P06",
                                   "unknown dim '%.*s' in '%s' (no space of this kernel uses it)", shown_len(t->len),
                                   t->text, keyword);
        if (!add_axis(p, dims, d, t, 0)) return false;
    } while (tir_parse_accept(p, TIR_TOK_COMMA));
    return tir_parse_expect(p, TIR_TOK_RPAREN, "')'");
}

/* reduce.add|max|min VALUE 'over' '(' DIM { ',' DIM } ')' [ 'policy' '=' POLICY ] */
static bool sugar_reduce(tir_parser *p, tir_reducer reducer, results *out) {
    tir_value *tile;
    axis_list over;
    tir_region_opts opts = {0};
    if (!lookup_value(p, &tile) || !tir_parse_expect_word(p, "over") || !parse_dim_list(p, "over", &over) ||
        !parse_region_attrs(p, TIR_OP_REDUCE, &opts))
        return false;
    return one_result(p, out, tir_lib_reduce(p->builder, tile, over.rank, over.dims, reducer, opts.policy));
}

/* permute VALUE 'to' '(' DIM { ',' DIM } ')' */
static bool sugar_permute(tir_parser *p, results *out) {
    tir_value *tile;
    axis_list order;
    return lookup_value(p, &tile) && tir_parse_expect_word(p, "to") && parse_dim_list(p, "permute", &order) &&
           one_result(p, out, tir_lib_permute(p->builder, tile, order.rank, order.dims));
}

static bool sugar_iota(tir_parser *p, const tir_token *kw, results *out) {
    tir_space *space;
    if (!parse_space(p, &space, false)) return false;
    if (space->rank != 1) return tir_parse_error(p, kw, TILEC_E_PARSE, "TIR-P18", "'iota' takes exactly one axis");
    return one_result(p, out, tir_lib_iota(p->builder, space->axes[0].dim, space->axes[0].extent));
}

static bool sugar_full(tir_parser *p, results *out) {
    tir_space *space;
    tir_value *v;
    return parse_space(p, &space, false) && lookup_value(p, &v) && one_result(p, out, tir_lib_full(p->builder, space, v));
}

/* broadcast|relabel VALUE 'to' space */
static bool sugar_to_space(tir_parser *p, bool broadcast, results *out) {
    tir_value *v;
    tir_space *space;
    if (!lookup_value(p, &v) || !tir_parse_expect_word(p, "to") || !parse_space(p, &space, false)) return false;
    return one_result(p, out, broadcast ? tir_lib_broadcast_to(p->builder, v, space) : tir_lib_relabel(p->builder, v, space));
}

static bool sugar_matmul(tir_parser *p, results *out) {
    tir_value *a, *b;
    return lookup_value(p, &a) && tir_parse_expect(p, TIR_TOK_COMMA, "','") && lookup_value(p, &b) &&
           one_result(p, out, tir_lib_matmul(p->builder, a, b));
}

/* ---- statements ---- */

static bool parse_op(tir_parser *p, results *out) {
    const tir_token *kw = tir_parse_peek(p, 0);
    if (kw->kind != TIR_TOK_IDENT) return tir_parse_unexpected(p, "an operation");
    tir_parse_next(p);
    tir_ew_op ew = tir_ew_from_name(kw->text, kw->len);
    if (ew == TIR_EW_CAST) return op_cast(p, out);
    if (ew != TIR_EW_INVALID) return op_elementwise(p, ew, out);
    if (tir_parse_token_is(kw, "const")) return op_const(p, out);
    if (tir_parse_token_is(kw, "extract")) return op_extract(p, out);
    if (tir_parse_token_is(kw, "mma")) return op_mma(p, out);
    if (tir_parse_token_is(kw, "load")) return op_load(p, out);
    if (tir_parse_token_is(kw, "store")) return op_store(p);
    if (tir_parse_token_is(kw, "map")) return op_map(p, out);
    if (tir_parse_token_is(kw, "parallel")) return op_region(p, TIR_OP_PARALLEL, out);
    if (tir_parse_token_is(kw, "if")) return op_if(p, out);
    if (tir_parse_token_is(kw, "serial")) return op_region(p, TIR_OP_SERIAL, out);
    if (tir_parse_token_is(kw, "pipeline")) return op_region(p, TIR_OP_PIPELINE, out);
    if (tir_parse_token_is(kw, "reduce")) return op_region(p, TIR_OP_REDUCE, out);
    if (tir_parse_token_is(kw, "reduce.add")) return sugar_reduce(p, TIR_REDUCER_ADD, out);
    if (tir_parse_token_is(kw, "reduce.max")) return sugar_reduce(p, TIR_REDUCER_MAX, out);
    if (tir_parse_token_is(kw, "reduce.min")) return sugar_reduce(p, TIR_REDUCER_MIN, out);
    if (tir_parse_token_is(kw, "iota")) return sugar_iota(p, kw, out);
    if (tir_parse_token_is(kw, "full")) return sugar_full(p, out);
    if (tir_parse_token_is(kw, "broadcast")) return sugar_to_space(p, true, out);
    if (tir_parse_token_is(kw, "relabel")) return sugar_to_space(p, false, out);
    if (tir_parse_token_is(kw, "permute")) return sugar_permute(p, out);
    if (tir_parse_token_is(kw, "matmul")) return sugar_matmul(p, out);
    return tir_parse_error(p, kw, TILEC_E_PARSE, "TIR-P02", "unknown operation '%.*s'", shown_len(kw->len), kw->text);
}

static bool parse_stage(tir_parser *p) {
    const tir_token *t = tir_parse_peek(p, 0);
    char *name = NULL;
    if (t->kind == TIR_TOK_STRING) {
        size_t len;
        const char *text = tir_token_payload(t, &len);
        if (!len) return tir_parse_unexpected(p, "a stage name (a non-empty string; omit it for none)");
        tir_parse_next(p);
        if (!(name = copy_text(p, text, len))) return false;
    }
    return built_status(p, tir_stage(p->builder, name));
}

/* [ VALUE { ',' VALUE } '=' ] op [ ':' type ]  |  'stage' [ STRING ] */
static bool parse_stmt(tir_parser *p) {
    const tir_token *first = tir_parse_peek(p, 0);
    tir_builder_set_loc(p->builder, tir_parse_loc(p, first));
    if (tir_parse_accept_word(p, "stage")) return parse_stage(p);
    token_list names = {0};
    results res = {{0}};
    bool ok = true;
    if (first->kind == TIR_TOK_VALUE) {
        do {
            const tir_token *t = tir_parse_peek(p, 0);
            ok = tir_parse_expect(p, TIR_TOK_VALUE, "a result name ('%name')") &&
                 (VEC_PUSH(p->ctx, &names, t) || tir_parse_oom(p));
        } while (ok && tir_parse_accept(p, TIR_TOK_COMMA));
        ok = ok && tir_parse_expect(p, TIR_TOK_EQUALS, "'='");
    }
    ok = ok && parse_op(p, &res);
    if (ok && names.len && names.len != res.values.len)
        ok = tir_parse_error(p, first, TILEC_E_PARSE, "TIR-P18", "%zu result names for an operation with %zu results",
                             names.len, res.values.len);
    if (ok && tir_parse_at(p, TIR_TOK_COLON)) {
        const tir_token *colon = tir_parse_next(p);
        const tir_token *at = tir_parse_peek(p, 0);
        tir_type *type;
        if (!res.values.len)
            ok = tir_parse_error(p, colon, TILEC_E_PARSE, "TIR-P05", "this statement has no result to annotate");
        ok = ok && parse_type(p, &type) && check_type(p, at, type, res.values.data[0]->type);
    }
    for (size_t i = 0; ok && i < names.len; i++) ok = define_value(p, names.data[i], res.values.data[i]);
    VEC_FREE(p->ctx, &names);
    VEC_FREE(p->ctx, &res.values);
    return ok;
}

/* ---- kernels and the module ---- */

/* NAME ':' LO '..' HI, after NAME: a range.  Pinned by -D, the parameter
 * is that number (in the range); else it is a runtime size of the kernel
 * (tir/form.h). */
static bool ranged_shape_param(tir_parser *p, const tir_token *name, const int64_t *pinned, tir_shape_param *out) {
    const tir_token *from = tir_parse_peek(p, 0);
    int64_t lo, hi;
    if (!tir_parse_iexpr(p, "a range's bounds must be numbers", &lo) || !tir_parse_expect(p, TIR_TOK_DOTDOT, "'..'") ||
        !tir_parse_iexpr(p, "a range's bounds must be numbers", &hi))
        return false;
    int n = shown_len(name->len);
    if (lo > hi)
        return tir_parse_error(p, from, TILEC_E_PARSE, "TIR-P25", "the range %lld..%lld of '%.*s' is empty",
                               (long long)lo, (long long)hi, n, name->text);
    if (pinned) {
        if (*pinned < lo || *pinned > hi)
            return tir_parse_error(p, name, TILEC_E_PARSE, "TIR-P25", "-D %.*s=%lld is outside its range %lld..%lld", n,
                                   name->text, (long long)*pinned, (long long)lo, (long long)hi);
        out->value = *pinned;
        return true;
    }
    if (lo < 0)
        return tir_parse_error(p, from, TILEC_E_PARSE, "TIR-P25",
                               "the runtime size '%.*s' ranges over %lld..%lld: a size cannot be negative", n,
                               name->text, (long long)lo, (long long)hi);
    if (p->func->sym_count == TIR_MAX_SYMBOLS)
        return tir_parse_error(p, name, TILEC_E_UNSUPPORTED, "TIR-P26", "a kernel has at most %d runtime sizes",
                               TIR_MAX_SYMBOLS);
    const tir_sym *sym = tir_sym_add(p->func, out->name, lo, hi);
    if (!sym || !(out->form = tir_sym_form(p->module, sym))) return tir_parse_oom(p);
    return true;
}

/* 'in' '{' V { ',' V } '}', after NAME: the values tilec chooses from
 * (tilec_choose_params); the first unless pinned by -D (any value: a define
 * replaces the choice, as it replaces a default). */
enum { MAX_CHOICES = 64 };
static bool chosen_shape_param(tir_parser *p, const tir_token *name, const int64_t *pinned, tir_shape_param *out) {
    int64_t values[MAX_CHOICES];
    uint32_t n = 0;
    if (!tir_parse_expect(p, TIR_TOK_LBRACE, "'{'")) return false;
    do {
        const tir_token *at = tir_parse_peek(p, 0);
        int64_t v;
        if (!tir_parse_iexpr(p, "a choice must be a number", &v)) return false;
        for (uint32_t i = 0; i < n; i++)
            if (values[i] == v)
                return tir_parse_error(p, at, TILEC_E_PARSE, "TIR-P28", "'%.*s' lists the choice %lld twice",
                                       shown_len(name->len), name->text, (long long)v);
        if (n == MAX_CHOICES)
            return tir_parse_error(p, at, TILEC_E_PARSE, "TIR-P28", "'%.*s' has more than %d choices",
                                   shown_len(name->len), name->text, MAX_CHOICES);
        values[n++] = v;
    } while (tir_parse_accept(p, TIR_TOK_COMMA));
    if (!tir_parse_expect(p, TIR_TOK_RBRACE, "'}' or ','")) return false;
    int64_t *choices = ARENA_ARRAY(&p->module->arena, int64_t, n);
    if (!choices) return tir_parse_oom(p);
    memcpy(choices, values, n * sizeof *values);
    out->choices = choices;
    out->choice_count = n;
    out->value = pinned ? *pinned : values[0];
    return true;
}

/* '<' kparam { ',' kparam } '>' : defaults may use earlier parameters; a
 * define with the same name replaces the default's value. */
static bool parse_shape_params(tir_parser *p) {
    do {
        const tir_token *name = tir_parse_peek(p, 0);
        const int64_t *pinned = NULL;
        if (!tir_parse_expect(p, TIR_TOK_IDENT, "a shape parameter name")) return false;
        if (symtab_get(&p->shape_params, name->text, name->len))
            return tir_parse_error(p, name, TILEC_E_PARSE, "TIR-P04", "shape parameter '%.*s' is declared twice",
                                   shown_len(name->len), name->text);
        for (size_t i = 0; i < p->n_defines; i++)
            if (strlen(p->defines[i].name) == name->len && !memcmp(p->defines[i].name, name->text, name->len)) {
                pinned = &p->defines[i].value;
                p->define_used[i] = true;
            }
        tir_shape_param param = {copy_text(p, name->text, name->len), 0, NULL, NULL, 0};
        if (!param.name) return false;
        if (tir_parse_accept(p, TIR_TOK_COLON)) {
            if (!ranged_shape_param(p, name, pinned, &param)) return false;
        } else if (tir_parse_accept_word(p, "in")) {
            if (!chosen_shape_param(p, name, pinned, &param)) return false;
        } else {
            tir_ival value;
            if (!tir_parse_expect(p, TIR_TOK_EQUALS, "'=' or ':'") || !tir_parse_ival(p, &value)) return false;
            param.value = pinned ? *pinned : value.c;
            param.form = pinned ? NULL : value.form;
        }
        if (!VEC_PUSH(p->ctx, &p->param_values, param) ||
            !symtab_put(&p->shape_params, name->text, name->len, (void *)(uintptr_t)p->param_values.len))
            return tir_parse_oom(p);
    } while (tir_parse_accept(p, TIR_TOK_COMMA));
    return tir_parse_expect(p, TIR_TOK_RANGLE, "'>' or ','");
}

/* VALUE ':' [ 'const' ] scalar — a scalar parameter, sugar for a const
 * view of one element named after it (dim NAME.0, registered so the printed
 * form reads back the same) that bind_scalars reads inside parallels. */
static bool scalar_param(tir_parser *p, const tir_token *name, tir_scalar elem) {
    size_t len;
    const char *text = tir_token_payload(name, &len);
    if (!name_free(p, name)) return false;
    char *copy = copy_text(p, text, len);
    tir_value *v = copy ? tir_func_add_scalar(p->func, copy, elem) : NULL;
    if (!v) return tir_parse_oom(p);
    tir_dim *d = v->type->space->axes[0].dim;
    if (!symtab_get(&p->dims, d->label, strlen(d->label)) && !symtab_put(&p->dims, d->label, strlen(d->label), d))
        return tir_parse_oom(p);
    return VEC_PUSH(p->ctx, &p->scalars, v) || tir_parse_oom(p);
}

/* VALUE ':' [ 'const' ] 'view' '<' scalar '>' space | VALUE ':' [ 'const' ] scalar */
static bool parse_param(tir_parser *p) {
    const tir_token *name = tir_parse_peek(p, 0);
    if (!tir_parse_expect(p, TIR_TOK_VALUE, "a parameter name ('%name')") || !tir_parse_expect(p, TIR_TOK_COLON, "':'"))
        return false;
    bool read_only = tir_parse_accept_word(p, "const");
    tir_scalar elem;
    tir_space *space;
    const tir_token *t = tir_parse_peek(p, 0);
    if (t->kind == TIR_TOK_IDENT && tir_scalar_from_name(t->text, t->len) != TIR_SCALAR_INVALID)
        return parse_scalar(p, &elem) && scalar_param(p, name, elem);
    if (!tir_parse_expect_word(p, "view") || !tir_parse_expect(p, TIR_TOK_LANGLE, "'<'") || !parse_scalar(p, &elem) ||
        !tir_parse_expect(p, TIR_TOK_RANGLE, "'>'") || !parse_space(p, &space, true))
        return false;
    tir_type *type = tir_type_view(p->module, elem, space);
    tir_value *v = type ? tir_func_add_param(p->func, NULL, type, read_only) : NULL;
    return v ? define_value(p, name, v) : tir_parse_oom(p);
}

static void reset_kernel_tables(tir_parser *p) {
    symtab_free(&p->dims);
    symtab_free(&p->shape_params);
    p->param_values.len = 0;
    p->scalars.len = 0;
}

static bool parse_kernel(tir_parser *p) {
    const tir_token *kw = tir_parse_peek(p, 0);
    if (!tir_parse_expect_word(p, "kernel")) return false;
    const tir_token *name_tok = tir_parse_peek(p, 0);
    if (!tir_parse_expect(p, TIR_TOK_GLOBAL, "a kernel name ('@name')")) return false;
    size_t len;
    const char *text = tir_token_payload(name_tok, &len);
    char *name = copy_text(p, text, len);
    if (!name) return false;
    if (tir_module_find_func(p->module, name))
        return tir_parse_error(p, name_tok, TILEC_E_PARSE, "TIR-P04", "kernel '@%s' is defined twice", name);
    reset_kernel_tables(p);
    if (!(p->func = tir_func_new(p->module, name))) return tir_parse_oom(p);
    p->func->loc = tir_parse_loc(p, kw);
    if (tir_parse_accept(p, TIR_TOK_LANGLE) && !parse_shape_params(p)) return false;
    size_t n_params = p->param_values.len;
    if (n_params) {
        p->func->shape_params = ARENA_ARRAY(&p->module->arena, tir_shape_param, n_params);
        if (!p->func->shape_params) return tir_parse_oom(p);
        memcpy(p->func->shape_params, p->param_values.data, n_params * sizeof *p->param_values.data);
        p->func->shape_param_count = (uint32_t)n_params;
    }
    if (!symtab_push_scope(&p->values)) return tir_parse_oom(p);
    bool ok = tir_parse_expect(p, TIR_TOK_LPAREN, "'('");
    if (ok && !tir_parse_at(p, TIR_TOK_RPAREN))
        do ok = parse_param(p);
        while (ok && tir_parse_accept(p, TIR_TOK_COMMA));
    ok = ok && tir_parse_expect(p, TIR_TOK_RPAREN, "')' or ','");
    if (ok && !(p->builder = tir_builder_create(p->func))) ok = tir_parse_oom(p);
    block_end end = {0};
    ok = ok && parse_body(p, false, &end);
    VEC_FREE(p->ctx, &end.values);
    symtab_pop_scope(&p->values);
    tir_builder_destroy(p->builder);
    p->builder = NULL;
    return ok;
}

/* Every define must name a shape parameter of some kernel, once. */
static bool check_defines(tir_parser *p, bool after_parse) {
    tilec_loc nowhere = {p->file, 0, 0};
    for (size_t i = 0; i < p->n_defines; i++) {
        const char *name = p->defines[i].name;
        for (size_t j = 0; !after_parse && j < i; j++)
            if (!strcmp(p->defines[j].name, name)) {
                p->status = tilec_error(p->ctx, TILEC_E_PARSE, "TIR-P11", nowhere, "-D %s is given twice", name);
                return false;
            }
        if (after_parse && !p->define_used[i]) {
            p->status = tilec_error(p->ctx, TILEC_E_PARSE, "TIR-P11", nowhere,
                                    "-D %s names no shape parameter of any kernel in this file", name);
            return false;
        }
    }
    return true;
}

static void parse_module(tir_parser *p) {
    if (!tir_lex(p->ctx, p->text_begin, p->text_length, &p->tokens)) {
        tir_parse_oom(p);
        return;
    }
    if (!check_defines(p, false)) return;
    while (!tir_parse_at(p, TIR_TOK_EOF))
        if (!parse_kernel(p)) return;
    check_defines(p, true);
}

tilec_status tir_parse(tilec_context *ctx, const char *text, size_t length, const char *filename,
                       const tir_define *defines, size_t n_defines, tir_module **out) {
    if (!ctx || !out) return TILEC_E_ARG;
    *out = NULL;
    if ((!text && length) || (!defines && n_defines))
        return tilec_error(ctx, TILEC_E_ARG, "TIR-P00", tilec_no_loc(), "tir_parse: NULL text or defines");
    for (size_t i = 0; i < n_defines; i++)
        if (!defines[i].name)
            return tilec_error(ctx, TILEC_E_ARG, "TIR-P00", tilec_no_loc(), "tir_parse: define %zu has no name", i);
    tir_parser p;
    memset(&p, 0, sizeof p);
    p.ctx = ctx;
    p.text_begin = text ? text : "";
    p.text_length = length;
    p.defines = defines;
    p.n_defines = n_defines;
    symtab_init(&p.values, ctx);
    symtab_init(&p.dims, ctx);
    symtab_init(&p.shape_params, ctx);
    tilec_context_add_source(ctx, filename ? filename : "<input>", p.text_begin, length);
    p.module = tir_module_create(ctx); /* reports its own failure */
    p.define_used = tilec_alloc(ctx, n_defines ? n_defines : 1);
    if (!p.module)
        p.status = TILEC_E_NOMEM;
    else if (!p.define_used || !(p.file = arena_strdup(&p.module->arena, filename ? filename : "<input>")))
        tir_parse_oom(&p);
    else
        parse_module(&p);
    tir_builder_destroy(p.builder);
    symtab_free(&p.values);
    symtab_free(&p.dims);
    symtab_free(&p.shape_params);
    VEC_FREE(ctx, &p.param_values);
    VEC_FREE(ctx, &p.scalars);
    VEC_FREE(ctx, &p.tokens);
    tilec_free(ctx, p.define_used);
    if (p.status != TILEC_OK) {
        tir_module_destroy(p.module);
        return p.status;
    }
    *out = p.module;
    return TILEC_OK;
}
