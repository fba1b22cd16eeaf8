/* cleanup.c — the XIR cleanup driver (passes.h): verify, run folding, CFG
 * simplification and dead code elimination until none changes anything,
 * verify again.  It terminates: every change removes an instruction, an
 * operand or a block. */
#include "xir/passes.h"
#include "xir/verify.h"

tilec_status xir_cleanup(tilec_context *ctx, xir_module *m) {
    tilec_status status = xir_verify(ctx, m);
    if (status != TILEC_OK) return status;
    for (bool changed = true; changed;) {
        changed = xir_fold_constants(m);
        changed |= xir_simplify_cfg(m);
        changed |= xir_eliminate_dead_code(m);
        if (xir_module_failed(m)) return xir_module_status(m);
    }
    return xir_verify(ctx, m);
}
