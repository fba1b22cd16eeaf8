/* xir_engine.h — the XIR engine of `tilec run` (xir_engine.c). */
#ifndef TILEC_CLI_XIR_ENGINE_H
#define TILEC_CLI_XIR_ENGINE_H

#include "args.h"
#include "flags.h"

/* Runs f through the pipeline to the XIR interpreter on `args` (which then
 * hold the XIR results) and checks them against the reference interpreter
 * run on a copy of the same inputs.  Returns CLI_CONTINUE when they match,
 * CLI_MISMATCH when they differ (args still hold the XIR results),
 * CLI_EXIT_OK after --stop-after (nothing ran), else the exit code after
 * printing why. */
int cli_run_xir(tilec_context *ctx, const cli_options *c, const tir_func *f, cli_args *args);

#endif
