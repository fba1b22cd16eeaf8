/* host.c — the packet width W: the host's natural f32 vector width (16 lanes
 * with AVX-512F, 8 with AVX2, else 4), overridable by an option or by the
 * environment variable TILEC_SIMD_WIDTH ∈ {1, 2, 4, 8, 16} (the option wins);
 * and how many packets of W the host's vector registers hold. */
#include "simd/jit.h"
#include "simd/simd.h"

#include <stdlib.h>
#include <string.h>

uint32_t simd_host_width(void) {
    jit_host h;
    uint32_t w = 4;
    if (jit_host_init(&h)) w = h.avx512f ? 16 : h.avx2 ? 8 : 4;
    jit_host_free(&h);
    return w;
}

uint32_t simd_host_vector_registers(uint32_t width) {
    jit_host h;
    uint32_t registers = 16, lanes = 4; /* SSE: 16 xmm of 4 f32 */
    if (jit_host_init(&h)) {
        if (h.avx512f) registers = 32, lanes = 16;
        else if (h.avx2) lanes = 8;
    }
    jit_host_free(&h);
    /* a packet wider than a register takes several */
    return width > lanes ? registers / (width / lanes) : registers;
}

static bool valid_width(unsigned long w) { return w == 1 || w == 2 || w == 4 || w == 8 || w == 16; }

uint32_t simd_resolve_width(uint32_t requested, const char *env_value) {
    if (requested) return valid_width(requested) ? requested : 0;
    if (env_value && *env_value) {
        char *end = NULL;
        unsigned long w = strtoul(env_value, &end, 10);
        return *end == '\0' && valid_width(w) ? (uint32_t)w : 0;
    }
    return simd_host_width();
}

simd_options simd_options_default(void) { return (simd_options){0, false, false, true, 0, 0, 0}; }
