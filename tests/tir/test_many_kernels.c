/* A module of many kernels (parsing and printing once grew
 * quadratically with the kernel count — a kernel name looked up by a scan of
 * the module, a per-kernel dim table sized by the whole module's dims):
 * 20,000 small kernels, every one with the same parameter and dim names,
 * parse, verify and print back to the same text (each kernel's dims keep
 * their own names: no "#2" leaks from the kernels before), and a name
 * defined twice is still found at the end of the file.  Not timed: after
 * the fix this runs in well under a second; before it, in minutes. */
#include "harness.h"
#include "base/strbuf.h"
#include "tir/ir.h"
#include "tir/text.h"

#include <stdlib.h>

enum { KERNELS = 20000 };

/* Kernel i in the printer's own form, so the text is a fixed point. */
static void append_kernel(strbuf *s, unsigned i) {
    strbuf_printf(s,
                  "%skernel @k%u(%%X: const view<f32>[X.0=%u], %%Y: view<f32>[Y.0=%u]) {\n"
                  "  parallel (%%i: i=%u) {\n"
                  "    %%x = load %%X[%%i]\n"
                  "    %%y = add %%x, %%x\n"
                  "    store %%Y[%%i], %%y\n"
                  "  }\n"
                  "}\n",
                  i ? "\n" : "", i, i % 7 + 1, i % 7 + 1, i % 7 + 1);
}

int main(void) {
    tilec_context *ctx;
    CHECK(tilec_context_create(NULL, &ctx) == TILEC_OK);
    strbuf text;
    strbuf_init(&text, ctx);
    for (unsigned i = 0; i < KERNELS; i++) append_kernel(&text, i);
    CHECK(!text.failed);

    tir_module *m = NULL;
    CHECK(tir_parse(ctx, strbuf_cstr(&text), text.len, "many.tir", NULL, 0, &m) == TILEC_OK);
    if (m) {
        CHECK(tir_module_func_count(m) == KERNELS);
        CHECK(tir_verify(ctx, m) == TILEC_OK);
        const tir_func *last = tir_module_find_func(m, "k19999");
        CHECK(last && last == tir_module_func(m, KERNELS - 1));
        CHECK(tir_module_find_func(m, "k20000") == NULL);
        strbuf printed;
        strbuf_init(&printed, ctx);
        CHECK(tir_print_to_strbuf(m, &printed));
        CHECK_MSG(printed.len == text.len && !strcmp(strbuf_cstr(&printed), strbuf_cstr(&text)),
                  "the printed module differs from its text (%zu vs %zu bytes)", printed.len, text.len);
        strbuf_free(&printed);
    }
    tir_module_destroy(m);

    /* the first kernel again after all the others: TIR-P04 at its line */
    append_kernel(&text, 0);
    tilec_diag_clear(ctx);
    m = NULL;
    CHECK(tir_parse(ctx, strbuf_cstr(&text), text.len, "many.tir", NULL, 0, &m) == TILEC_E_PARSE && !m);
    const tilec_diag *d = tilec_diag_count(ctx) ? tilec_diag_at(ctx, 0) : NULL;
    CHECK(d && !strcmp(d->code, "TIR-P04") && d->loc.line == 8u * KERNELS &&
          strstr(d->message, "kernel '@k0' is defined twice"));
    strbuf_free(&text);
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
