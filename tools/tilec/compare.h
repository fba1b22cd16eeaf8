/* compare.h — checking an engine's results against the FP64 reference
 * interpreter, shared by `tilec run --xir`, `tilec run --check` and `tilec
 * bench`-free paths: run the reference on a copy of the same inputs, then
 * compare every writable parameter.
 *
 * Tolerance: engines compute f32 in f32 while the reference computes in FP64,
 * so an element matches when |x − r| <= 5e-5 + 5e-5·|r| (DESIGN.md §6, the
 * LLM-fixture tolerance); integers and bools must be equal; NaN matches NaN. */
#ifndef TILEC_CLI_COMPARE_H
#define TILEC_CLI_COMPARE_H

#include "args.h"

/* Creates *ref as a copy of `inputs` (the state before the engine runs) and
 * runs the reference interpreter on it; *ms receives its time.  On failure
 * appends diagnostics and leaves *ref empty. */
tilec_status cli_reference_run(tilec_context *ctx, const tir_func *f, const cli_args *inputs, cli_args *ref, double *ms);
/* Prints the summary and one comparison line per writable parameter of
 * `got`; true when every one matches. */
bool cli_compare_outputs(const cli_args *got, const cli_args *ref);

#endif
