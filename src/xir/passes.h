/* passes.h — XIR cleanup passes (docs/xir.md, "Cleanup passes").
 *
 * Each pass takes a verified module, leaves it verified, and returns whether
 * it changed anything.  Passes only rewrite in place (no instruction is
 * created), so they cannot fail halfway; when a side table cannot be
 * allocated a pass changes nothing, marks the module failed (one XIR-M01
 * diagnostic) and returns false. */
#ifndef TILEC_XIR_PASSES_H
#define TILEC_XIR_PASSES_H

#include "xir/xir.h"

/* Removes every instruction whose result no effect needs: liveness starts
 * from stores, buffer writes and terminators and flows to operands (so dead
 * PHI cycles go too).  Stores into an alloca that is never loaded (all its
 * users are geps used only as store addresses) are not effects: such an
 * alloca goes with its geps and stores. */
bool xir_eliminate_dead_code(xir_module *m);

/* Replaces instructions by constants or existing values: arithmetic, casts and
 * bitcasts of constants (xir/eval.h semantics; exp, log and tanh are not
 * folded: their results are only specified within a backend's ulp bound), a
 * select with a constant condition or equal values, identity casts, and a PHI
 * whose incoming values are all one value (or the PHI itself). */
bool xir_fold_constants(xir_module *m);

/* Simplifies the CFG: a cond_br on a constant or with equal targets becomes a
 * br; unreachable blocks are removed (and dropped from PHIs); a block is
 * merged into its unique predecessor when it is that block's unique
 * successor; an empty block that only branches on is bypassed when the PHIs of
 * its successor allow it. */
bool xir_simplify_cfg(xir_module *m);

/* Verifies, runs the three passes to a fixpoint, verifies again.  Returns
 * TILEC_OK, TILEC_E_VERIFY (before any change when the input is invalid),
 * TILEC_E_NOMEM, or TILEC_E_INTERNAL (a pass found a broken invariant). */
tilec_status xir_cleanup(tilec_context *ctx, xir_module *m);

#endif
