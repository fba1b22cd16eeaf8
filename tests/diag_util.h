/* diag_util.h — what the tests ask of a context's diagnostics: the code of
 * the last one, whether one matches a code and a message fragment, and
 * flushing them (printed to stderr, then cleared) so that a failing check
 * shows why and the next case starts clean. */
#ifndef TILEC_TEST_DIAG_UTIL_H
#define TILEC_TEST_DIAG_UTIL_H

#include "tilec/diag.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* The code of the newest diagnostic, "" when there is none. */
static inline const char *last_diag_code(const tilec_context *ctx) {
    size_t n = tilec_diag_count(ctx);
    return n ? tilec_diag_at(ctx, n - 1)->code : "";
}

/* True when some diagnostic has `code` (unless NULL) and contains `text`
 * (unless NULL). */
static inline bool has_diag_in(const tilec_context *ctx, const char *code, const char *text) {
    for (size_t i = 0; i < tilec_diag_count(ctx); i++) {
        const tilec_diag *d = tilec_diag_at(ctx, i);
        if ((!code || !strcmp(d->code, code)) && (!text || strstr(d->message, text))) return true;
    }
    return false;
}

/* Prints and clears the diagnostics, if any. */
static inline void flush_diags_in(tilec_context *ctx) {
    if (tilec_diag_count(ctx)) {
        tilec_diag_print(ctx, stderr);
        tilec_diag_clear(ctx);
    }
}

#endif
