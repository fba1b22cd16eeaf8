/* fuzz_text.c — libFuzzer target for the text form and the verifier.
 * Any input: tir_parse must return a status without crashing; when it parses,
 * the module must verify, print, and re-parse to the same text (round trip).
 * Build and run with `make fuzz` (needs clang); the deterministic mutation test
 * in tests/tir/test_parse.c covers the same entry in `make test`. */
#include "tir/text.h"

#include <stdlib.h>
#include <string.h>

static void fail(const char *why) {
    fprintf(stderr, "fuzz_text: %s\n", why);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    tilec_context *ctx;
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 0;
    tir_module *m = NULL;
    if (tir_parse(ctx, (const char *)data, size, "fuzz.tir", NULL, 0, &m) == TILEC_OK) {
        if (tir_verify(ctx, m) != TILEC_OK) fail("a parsed module does not verify");
        strbuf first, second;
        strbuf_init(&first, ctx);
        strbuf_init(&second, ctx);
        tir_print_to_strbuf(m, &first);
        tir_module *again = NULL;
        if (tir_parse(ctx, strbuf_cstr(&first), first.len, "printed.tir", NULL, 0, &again) != TILEC_OK)
            fail("printed text does not parse");
        tir_print_to_strbuf(again, &second);
        if (first.len != second.len || memcmp(strbuf_cstr(&first), strbuf_cstr(&second), first.len)) fail("round trip differs");
        strbuf_free(&first);
        strbuf_free(&second);
        tir_module_destroy(again);
        tir_module_destroy(m);
    } else if (m != NULL || tilec_diag_count(ctx) == 0) {
        fail("a failed parse left a module or no diagnostic");
    }
    tilec_context_destroy(ctx);
    return 0;
}
