/* host.h — the host kernels are planned and generated for (docs/facade.md
 * "The host and the kernel cache"): the described host, TILEC_HOST (native,
 * a profile such as zen4 or avx2-laptop, plus overrides; docs/cli.md "Host
 * description"), read from the environment at each call, as tilec_compile
 * reads it.  What the planner sees is the profile's; code is generated for
 * its CPU with the features both it and this machine have. */
#ifndef TILEC_HOST_H
#define TILEC_HOST_H

#include "tilec/diag.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The packet width, in f32 lanes, a compile with width 0 and no
 * TILEC_SIMD_WIDTH takes: 16 with AVX-512F, 8 with AVX2, else 4 (also
 * when the host cannot be queried or TILEC_HOST is malformed). */
TILEC_API uint32_t tilec_host_width(void);
/* How many packets of `width` f32 lanes the vector registers hold, as the
 * planner counts them: 32 with AVX-512F (16 lanes each), 16 with AVX2 at
 * width <= 8 (8 at 16), SSE's 16 of 4 lanes otherwise (a packet wider than a
 * register takes several). */
TILEC_API uint32_t tilec_host_vector_registers(uint32_t width);
/* The dot-product instructions the planner packs matrix operands for at
 * `width` lanes (docs/lowering.md "Dot products"), as the profile says:
 * "bf16 pairs (vdpbf16ps), int8 quads (vpdpbusd, vpdpwssd)", one of them,
 * or "none" (static text). */
TILEC_API const char *tilec_host_dot_products(uint32_t width);
/* The LLVM CPU name code is generated for ("znver4") and the features it
 * enables ("+avx2,+fma,...": the enabled ones only), NUL-terminated, kept by
 * the context until it is destroyed.  TILEC-O02 (TILEC_E_ARG) when
 * TILEC_HOST is malformed, TILEC-H01 (TILEC_E_UNSUPPORTED) when LLVM cannot
 * describe this machine, TILEC-M01 out of memory; *cpu and *features are
 * then NULL. */
TILEC_API tilec_status tilec_host_codegen(tilec_context *ctx, const char **cpu, const char **features);

#ifdef __cplusplus
}
#endif

#endif
