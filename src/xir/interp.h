/* interp.h — the W-lane XIR interpreter (docs/xir-interpreter.md): runs one
 * XIR kernel over a dispatch of N logical workers, in packets of W lanes, with
 * tail masks, per-lane SSA values and private arrays, and warp_read_lane
 * exchanges across a packet.  It is the oracle for the TileIR → XIR lowering
 * and for the SIMD vectorizer, so every rule is exact and documented, and every
 * out-of-range access or malformed input is a diagnostic, never a wild access.
 *
 * The interpreter does not run xir_verify; it refuses only what it could not
 * execute safely (XIR-I03).  A failed run returns a status and appends exactly
 * one diagnostic; buffer writes made before a runtime error remain. */
#ifndef TILEC_XIR_INTERP_H
#define TILEC_XIR_INTERP_H

#include "base/fault.h"
#include "xir/xir.h"

/* Defaults of the run budgets. */
#define XIR_INTERP_DEFAULT_MAX_STEPS (UINT64_C(1) << 32)
#define XIR_INTERP_DEFAULT_MAX_PRIVATE_BYTES (UINT64_C(16) << 20)

typedef struct {
    /* Instructions executed by all lanes of the run together (a PHI counts
     * once per assignment); exceeding it is XIR-I05. */
    uint64_t max_steps;
    /* Bytes (element count × element size) one lane may allocate with alloca
     * during its run; every execution of an alloca counts.  XIR-I06. */
    uint64_t max_private_bytes;
    /* Where `fault` instructions are recorded (the run goes on, as native
     * code does); NULL: the first fault fails the run with XIR-I14. */
    fault_record *faults;
} xir_interp_options;

xir_interp_options xir_interp_default_options(void);

/* Runs `f` for dispatch ids 0..dispatch_size-1 in packets of `packet_width`
 * lanes (1, 2, 4, 8, 16 or 32; f->block_size must be a positive multiple of it).
 * Argument i binds buffer argument i of `f`. */
tilec_status xir_interpret(tilec_context *ctx, const xir_func *f, uint32_t dispatch_size, uint32_t packet_width,
                           size_t n_args, const tir_buffer *args);
/* The same with explicit budgets (NULL: the defaults). */
tilec_status xir_interpret_with(tilec_context *ctx, const xir_func *f, uint32_t dispatch_size,
                                uint32_t packet_width, size_t n_args, const tir_buffer *args,
                                const xir_interp_options *options);

#endif
