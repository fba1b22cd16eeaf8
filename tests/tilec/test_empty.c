/* Empty root domains (docs/facade.md "Empty kernels"): a kernel whose root
 * parallel has no instance compiles at every width on 1 and 2 workers, runs
 * nothing (an output that is not empty keeps its contents, as in the
 * reference interpreter), still checks its arguments (a short non-empty
 * input is RT-D04, a wrong element type RT-D03), and says so in its
 * realization (plan=empty, dispatch=0). */
#include "examples_util.h"
#include "harness.h"
#include "tilec/tilec.h"

#include <string.h>

/* gemm with M = 0: A [0, K] and C [0, N] are empty, B [K, N] is not; a
 * second output Z[N] written by the (absent) programs must keep its bytes. */
static const char *text =
    "kernel @e<M=0, N=5>(%B: const view<f32>[B.0=N], %Z: view<f32>[Z.0=N], %C: view<f32>[C.0=M]) {\n"
    "  parallel (%i: i=M) {\n"
    "    %c0 = const index 0\n"
    "    %b = load %B[%c0]\n"
    "    store %Z[%c0], %b\n"
    "    store %C[%i], %b\n"
    "  }\n"
    "}\n";

int main(void) {
    tilec_context *ctx;
    CHECK(tilec_context_create(NULL, &ctx) == TILEC_OK);
    tir_module *m = parse_verified(ctx, text, NULL, 0);
    if (m) {
        const tir_func *f = tir_module_func(m, 0);
        float bsrc[5] = {1, 2, 3, 4, 5}, z[5];
        int32_t wrong[5] = {0};
        for (uint32_t w = 1; w <= 16; w *= 2)
            for (uint32_t t = 1; t <= 2; t++) {
                tilec_compile_options o = tilec_compile_options_default();
                o.width = w;
                o.threads = t;
                tilec_kernel *k = NULL;
                CHECK(tilec_compile(ctx, f, &o, &k) == TILEC_OK);
                if (!k) continue;
                const char *r = tilec_kernel_realization(k);
                CHECK_STR_CONTAINS(r, "plan=empty;");
                CHECK_STR_CONTAINS(r, "dispatch=0;");
                CHECK(tilec_kernel_width(k) == w && tilec_kernel_arg_min_bytes(k, 0) == 20 &&
                      tilec_kernel_arg_min_bytes(k, 2) == 0);
                for (int i = 0; i < 5; i++) z[i] = -7.0f;
                tilec_buffer args[3] = {{bsrc, sizeof bsrc, TIR_F32}, {z, sizeof z, TIR_F32}, {NULL, 0, TIR_F32}};
                CHECK(tilec_dispatch(ctx, k, 3, args) == TILEC_OK);
                CHECK(z[0] == -7.0f && z[4] == -7.0f);
                args[0].size_bytes = 16;
                CHECK(tilec_dispatch(ctx, k, 3, args) == TILEC_E_RUNTIME && !strcmp(tilec_diag_at(ctx, 0)->code, "RT-D04"));
                tilec_diag_clear(ctx);
                args[0] = (tilec_buffer){wrong, sizeof wrong, TIR_I32};
                CHECK(tilec_dispatch(ctx, k, 3, args) == TILEC_E_TYPE && !strcmp(tilec_diag_at(ctx, 0)->code, "RT-D03"));
                tilec_diag_clear(ctx);
                tilec_kernel_destroy(k);
            }
        /* the reference agrees: nothing is written */
        for (int i = 0; i < 5; i++) z[i] = -7.0f;
        float none[1];
        tir_buffer rargs[3] = {{bsrc, sizeof bsrc}, {z, sizeof z}, {none, 0}};
        CHECK(tir_interpret(ctx, f, 3, rargs) == TILEC_OK && z[0] == -7.0f);
        if (tilec_diag_count(ctx)) tilec_diag_print(ctx, stderr);
    }
    tir_module_destroy(m);
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
