/* xir_test.h — helpers shared by the XIR tests: parse text that must parse,
 * print a module into a malloc'd string, read the last diagnostic. */
#ifndef TILEC_TEST_XIR_TEST_H
#define TILEC_TEST_XIR_TEST_H

#include "harness.h"
#include "xir/text.h"
#include "xir/verify.h"

static tilec_context *ctx;

static inline const tilec_diag *last_diag(void) {
    size_t n = tilec_diag_count(ctx);
    return n ? tilec_diag_at(ctx, n - 1) : NULL;
}

static inline const char *last_code(void) { return last_diag() ? last_diag()->code : ""; }

/* Parses text that must parse (NULL, with a failed check, otherwise). */
static inline xir_module *parse_ok(const char *text) {
    xir_module *m = NULL;
    tilec_status st = xir_parse(ctx, text, strlen(text), "test.xir", &m);
    CHECK_MSG(st == TILEC_OK && m, "does not parse:\n%s", text);
    if (st != TILEC_OK) tilec_diag_print(ctx, stderr);
    return m;
}

/* The canonical text of m (malloc'd; NULL when printing fails). */
static inline char *print_text(const xir_module *m) {
    strbuf s;
    strbuf_init(&s, ctx);
    char *copy = xir_print_to_strbuf(m, &s) ? strdup(strbuf_cstr(&s)) : NULL;
    strbuf_free(&s);
    return copy;
}

/* Whether m verifies; prints the diagnostics when it does not. */
static inline bool verifies(const xir_module *m) {
    size_t before = tilec_diag_count(ctx);
    if (xir_verify(ctx, m) == TILEC_OK) return true;
    for (size_t i = before; i < tilec_diag_count(ctx); i++)
        fprintf(stderr, "  %s: %s\n", tilec_diag_at(ctx, i)->code, tilec_diag_at(ctx, i)->message);
    return false;
}

#endif
