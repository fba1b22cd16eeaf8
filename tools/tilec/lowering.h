/* lowering.h — the planning commands' pipeline, shared by `tilec plan`,
 * `tilec lower` and `tilec run --xir`: plan a kernel for the modeled target
 * of the command line's options (flags.h: a CPU thread pool of --workers
 * with packets of --width, or the GPU's with --target cuda), lower the
 * selected plan.  A given block, order or
 * tiling is exact, not a hint. */
#ifndef TILEC_CLI_LOWERING_H
#define TILEC_CLI_LOWERING_H

#include "driver/pipeline.h"
#include "flags.h"

/* The kernel the native pipeline plans for f: f with its nested root
 * parallels flattened (rewrite/flatten.h) into *flat (destroy it after use),
 * or f itself (*flat NULL) when there are none to flatten or no memory. */
const tir_func *cli_flatten(tilec_context *ctx, const tir_func *f, tir_module **flat);
/* Plans f for the modeled target.  The result must be freed with
 * plan_result_free whatever the status. */
tilec_status cli_plan(tilec_context *ctx, const cli_options *c, const tir_func *f, plan_result *out);
/* Plans f and lowers the selected plan; on failure prints the diagnostics
 * and returns false.  `packing` (NULL: not wanted) receives the plan's
 * packing decision (out->packed: its packs). */
bool cli_lower(tilec_context *ctx, const cli_options *c, const tir_func *f, lower_result *out, plan_packing *packing);

#endif
