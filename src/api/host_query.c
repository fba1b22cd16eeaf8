/* host_query.c — the described host as the public API shows it (tilec/host.h:
 * tilec_host_width, tilec_host_vector_registers, tilec_host_dot_products,
 * tilec_host_codegen): what
 * the SIMD backend reads from base/host.h and LLVM, with the codegen text
 * kept by the context. */
#include "tilec/host.h"

#include "base/context.h"
#include "base/host.h"
#include "base/strbuf.h"
#include "simd/simd.h"

#include <string.h>

uint32_t tilec_host_width(void) { return simd_host_width(); }

uint32_t tilec_host_vector_registers(uint32_t width) { return simd_host_vector_registers(width); }

const char *tilec_host_dot_products(uint32_t width) {
    bool bf16 = simd_host_dot_bf16(width), int8 = simd_host_dot_int8(width);
    return bf16 && int8 ? "bf16 pairs (vdpbf16ps), int8 quads (vpdpbusd, vpdpwssd)"
           : bf16       ? "bf16 pairs (vdpbf16ps)"
           : int8       ? "int8 quads (vpdpbusd, vpdpwssd)"
                        : "none";
}

/* A copy of s kept by the context; NULL without memory. */
static const char *hold(tilec_context *ctx, const strbuf *s) {
    const char *text = strbuf_cstr(s);
    char *copy = tilec_context_hold(ctx, strlen(text) + 1);
    if (copy) memcpy(copy, text, strlen(text) + 1);
    return copy;
}

tilec_status tilec_host_codegen(tilec_context *ctx, const char **cpu, const char **features) {
    *cpu = *features = NULL;
    host_desc d;
    char why[256];
    if (!host_current(&d, why, sizeof why))
        return tilec_error(ctx, TILEC_E_ARG, "TILEC-O02", tilec_no_loc(), "TILEC_HOST: %s", why);
    strbuf c, f;
    strbuf_init(&c, ctx);
    strbuf_init(&f, ctx);
    tilec_status st = TILEC_OK;
    if (!simd_host_codegen(&c, &f))
        st = tilec_error(ctx, TILEC_E_UNSUPPORTED, "TILEC-H01", tilec_no_loc(), "cannot query the host CPU through LLVM");
    else if (c.failed || f.failed || !(*cpu = hold(ctx, &c)) || !(*features = hold(ctx, &f)))
        st = tilec_error(ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory describing the host CPU");
    if (st) *cpu = *features = NULL;
    strbuf_free(&c);
    strbuf_free(&f);
    return st;
}
