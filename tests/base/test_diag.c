/* Diagnostics with source lines (tilec_diag_render, tilec_diag_print): a
 * location in a text tir_parse read shows the line and a caret under the
 * column (tabs kept so it lines up); a location in a text the context no
 * longer has (more than 8 newer ones), or none, shows only the message;
 * render truncates like snprintf and reports the full length; a newer text
 * under the same name replaces the old one; print writes the same text. */
#include "harness.h"
#include "tilec/tilec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The rendered diagnostics (malloc'd). */
static char *rendered(tilec_context *ctx) {
    size_t n = tilec_diag_render(ctx, NULL, 0);
    char *s = malloc(n + 1);
    CHECK(s && tilec_diag_render(ctx, s, n + 1) == n && strlen(s) == n);
    return s;
}

/* Parses text (which must fail) as `name`; the rendered diagnostics. */
static char *fail_parse(tilec_context *ctx, const char *name, const char *text) {
    tir_module *m = NULL;
    CHECK(tir_parse(ctx, text, strlen(text), name, NULL, 0, &m) != TILEC_OK);
    tir_module_destroy(m);
    return rendered(ctx);
}

static const char *BAD = "kernel @k<N=4>(%X: view<f32>[X.0=N]) {\n"
                         "\tparallel (%i: i=N) {\n"
                         "\t\t%x = lod %X[%i]\n"
                         "\t}\n"
                         "}\n";

int main(void) {
    tilec_context *ctx;
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;

    char *s = fail_parse(ctx, "bad.tir", BAD);
    const char *want = "bad.tir:3:8: error[TIR-P02]: unknown operation 'lod'\n"
                       " 3 | \t\t%x = lod %X[%i]\n"
                       "   | \t\t     ^\n";
    CHECK_MSG(s && !strcmp(s, want), "got:\n%s", s ? s : "(null)");

    /* truncation: snprintf-like, NUL-terminated, the full length returned */
    char small[20];
    size_t full = tilec_diag_render(ctx, small, sizeof small);
    CHECK(full == strlen(want) && strlen(small) == sizeof small - 1 && !strncmp(small, want, sizeof small - 1));

    /* print writes the same text */
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (f) {
        tilec_diag_print(ctx, f);
        long n = ftell(f);
        rewind(f);
        char buf[512] = "";
        CHECK(n == (long)strlen(want) && fread(buf, 1, sizeof buf - 1, f) == (size_t)n && !strcmp(buf, want));
        fclose(f);
    }
    tilec_diag_clear(ctx);
    free(s);

    /* the same name again: the newer text's line is shown */
    s = fail_parse(ctx, "bad.tir", "\n\n  frobnicate\n");
    CHECK_MSG(s && strstr(s, " 3 |   frobnicate\n   |   ^\n"), "got:\n%s", s ? s : "(null)");
    tilec_diag_clear(ctx);
    free(s);

    /* a kernel that parses but is refused at compile with a location: its
     * line is shown while the context has its text, not after nine newer
     * texts replaced it */
    static const char *REFUSED = "kernel @scale(%S: const view<f32>[S.0=1], %Y: view<f32>[Y.0=4]) {\n"
                                 "  %c0 = const index 0\n"
                                 "  %a = load %S[%c0]\n"
                                 "  parallel (%i: i=4) {\n"
                                 "    store %Y[%i], %a\n"
                                 "  }\n"
                                 "}\n";
    tir_module *kept = NULL;
    tilec_kernel *k = NULL;
    tilec_compile_options o = tilec_compile_options_default();
    o.threads = 1;
    CHECK(tir_parse(ctx, REFUSED, strlen(REFUSED), "refused.tir", NULL, 0, &kept) == TILEC_OK);
    CHECK(kept && tilec_compile(ctx, tir_module_func(kept, 0), &o, &k) != TILEC_OK && !k);
    s = rendered(ctx);
    CHECK_MSG(s && strstr(s, "refused.tir:3:3: error[LOWER-A02]") && strstr(s, " 3 |   %a = load %S[%c0]\n   |   ^\n"),
              "got:\n%s", s);
    free(s);
    tilec_diag_clear(ctx);
    char text[64];
    for (int i = 0; i < 9; i++) {
        char name[32];
        snprintf(name, sizeof name, "other%d.tir", i);
        snprintf(text, sizeof text, "kernel @k%d() {}\n", i);
        tir_module *m = NULL;
        tir_parse(ctx, text, strlen(text), name, NULL, 0, &m);
        tir_module_destroy(m);
    }
    tilec_diag_clear(ctx);
    CHECK(kept && tilec_compile(ctx, tir_module_func(kept, 0), &o, &k) != TILEC_OK);
    s = rendered(ctx);
    CHECK_MSG(s && strstr(s, "refused.tir:3:3: error[LOWER-A02]") && !strstr(s, " | "), "got:\n%s", s);
    free(s);
    tir_module_destroy(kept);
    tilec_diag_clear(ctx);
    s = fail_parse(ctx, "last.tir", BAD); /* a location in last.tir is shown */
    CHECK_STR_CONTAINS(s, "   | \t\t     ^\n");
    free(s);
    tilec_diag_clear(ctx);

    /* a column past the end of a line, and line 0 (no location): no caret
     * beyond the text, no source line */
    s = fail_parse(ctx, "eof.tir", "kernel @k(");
    CHECK_MSG(s && strstr(s, "eof.tir:1:") && strstr(s, " 1 | kernel @k(\n"), "got:\n%s", s ? s : "(null)");
    free(s);
    tilec_diag_clear(ctx);
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
