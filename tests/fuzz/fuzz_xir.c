/* fuzz_xir.c — libFuzzer target for the XIR text form, verifier and cleanup.
 * Any input: xir_parse returns a status without crashing; when a module parses
 * and verifies, it prints and re-parses to the same text, and xir_cleanup
 * leaves it verified.  Run with `make fuzz FUZZ_TARGET=fuzz_xir` (needs clang). */
#include "xir/passes.h"
#include "xir/text.h"
#include "xir/verify.h"

#include <stdlib.h>
#include <string.h>

static void fail(const char *why) {
    fprintf(stderr, "fuzz_xir: %s\n", why);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    tilec_context *ctx;
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 0;
    xir_module *m = NULL;
    if (xir_parse(ctx, (const char *)data, size, "fuzz.xir", &m) == TILEC_OK) {
        strbuf first, second;
        strbuf_init(&first, ctx);
        strbuf_init(&second, ctx);
        xir_print_to_strbuf(m, &first);
        xir_module *again = NULL;
        if (xir_parse(ctx, strbuf_cstr(&first), first.len, "printed.xir", &again) != TILEC_OK) fail("printed text does not parse");
        xir_print_to_strbuf(again, &second);
        if (first.len != second.len || memcmp(strbuf_cstr(&first), strbuf_cstr(&second), first.len)) fail("round trip differs");
        if (xir_verify(ctx, m) == TILEC_OK && xir_cleanup(ctx, m) != TILEC_OK) fail("cleanup broke a verified module");
        strbuf_free(&first);
        strbuf_free(&second);
        xir_module_destroy(again);
        xir_module_destroy(m);
    } else if (m != NULL || tilec_diag_count(ctx) == 0) {
        fail("a failed parse left a module or no diagnostic");
    }
    tilec_context_destroy(ctx);
    return 0;
}
