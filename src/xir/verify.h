/* verify.h — the XIR verifier (docs/xir.md, "Verifier"). */
#ifndef TILEC_XIR_VERIFY_H
#define TILEC_XIR_VERIFY_H

#include "xir/xir.h"

/* Checks every rule of docs/xir.md ("Verifier", codes XIR-V01..XIR-V25) and
 * never changes the module.  Returns TILEC_OK, or TILEC_E_VERIFY after one
 * diagnostic per violation (each names the kernel, the block and the
 * instruction as printed); TILEC_E_NOMEM (XIR-M01) when its side tables cannot
 * be allocated, TILEC_E_ARG for a NULL argument.  A function whose structure
 * is broken (rules V03-V07, V10, V12-V14) is not checked further, so every
 * later rule may rely on a sane CFG and operands. */
tilec_status xir_verify(tilec_context *ctx, const xir_module *m);

#endif
