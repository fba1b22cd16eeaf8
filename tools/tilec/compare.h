/* compare.h — checking an engine's results against the FP64 reference
 * interpreter, shared by `tilec run --xir`, `tilec run --check` and `tilec
 * bench`-free paths: run the reference on a copy of the same inputs, then
 * compare every writable parameter.
 *
 * The rule (docs/cli.md, "Comparing with the reference"): integers and bools
 * match when their bytes are equal.  Floats: a NaN matches only a NaN (any
 * payload or sign); an infinity matches only the same infinity; finite values
 * match when |x − r| <= 5e-5 + 5e-5·|r| — engines compute f32 in f32 while the
 * reference computes in FP64 (the tolerance of tests/examples and of the
 * LLM fixture shapes, tests/cli/llm_fixtures.sh) — so
 * -0 matches +0, as IEEE equality says.  f16 and bf16 outputs, rounded once
 * from f32 natively and from FP64 by the reference, may differ by one unit
 * in their last place: the relative tolerance there is that unit (2^-10,
 * 2^-7).  A mismatch line names the number of
 * mismatching elements and the first one: its coordinate in the view and
 * both values. */
#ifndef TILEC_CLI_COMPARE_H
#define TILEC_CLI_COMPARE_H

#include "args.h"

/* Creates *ref as a copy of `inputs` (the state before the engine runs) and
 * runs the reference interpreter on it (the pipeline's reference engine:
 * f as written); *ms receives its time.  On failure
 * appends diagnostics and leaves *ref empty. */
tilec_status cli_reference_run(tilec_context *ctx, const tir_func *f, const cli_args *inputs, cli_args *ref, double *ms);
/* The float rule above for an element of type `elem` (also what `tilec
 * demo` applies to its C references). */
bool cli_float_matches(double got, double ref, tir_scalar elem);
/* Prints the summary and one comparison line per writable parameter of
 * `got`; true when every one matches.  Never changes the buffers: the caller
 * writes --out files either way. */
bool cli_compare_outputs(const cli_args *got, const cli_args *ref);
/* cli_compare_outputs as a step of `tilec run`: CLI_CONTINUE when everything
 * matches, else CLI_MISMATCH after saying that the `engine` ("native", "XIR")
 * results differ. */
int cli_compare_step(const cli_args *got, const cli_args *ref, const char *engine);

#endif
