/* options.h — the checks of the planner's part of the compile options
 * (docs/planner.md "Options"; the record is tilec_compile_options, read by
 * the planner itself) and the cost-model coefficients' defaults.
 *
 * Every planner option is a constraint or a setting, never a hint: a fixed
 * block size or root order is exact, the candidate budget is a hard limit
 * (exceeding it is an error, never a partial search), and representation
 * settings are fixed for the whole search.  Arrays (root order, root tiles)
 * are borrowed for the duration of one planning call.
 *
 * Diagnostics: PLAN-O.. (options), PLAN-C01 (coefficients). */
#ifndef TILEC_PLAN_OPTIONS_H
#define TILEC_PLAN_OPTIONS_H

#include "options/options.h"
#include "tilec/tilec.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The uncalibrated relative-work prior (docs/planner.md "Cost"):
 * not nanoseconds, not instruction counts.  All finite and >= 0.  The public
 * facade's type, so compile options pass through unchanged. */
typedef tilec_cost_coefficients plan_cost_coefficients;

/* Panel packing (plan/pack.h): the facade's enum. */
typedef tilec_pack plan_pack_mode;
#define PLAN_PACK_AUTO TILEC_PACK_AUTO
#define PLAN_PACK_ON TILEC_PACK_ON
#define PLAN_PACK_OFF TILEC_PACK_OFF

/* Packing and split reductions (plan/split.h) share one three-way switch,
 * with the same values in both facade enums: auto (the planner's rule), on,
 * off. */
_Static_assert((int)TILEC_PACK_AUTO == (int)TILEC_SPLIT_AUTO && (int)TILEC_PACK_ON == (int)TILEC_SPLIT_ON &&
                   (int)TILEC_PACK_OFF == (int)TILEC_SPLIT_OFF,
               "packing and split modes share their values");

/* X(field) in report order. */
#define PLAN_COEFFICIENTS(X) \
    X(arithmetic) X(broadcast_load) X(contiguous_memory) X(gathered_lane) X(block_dispatch) X(task_dispatch) \
    X(worker_activation) X(l1_line) X(l2_line) X(l3_line)

plan_cost_coefficients plan_cost_coefficients_default(void);

/* Checks what can be checked without a kernel or target: the candidate
 * budget, partitions, the modes, the chunk count's bounds, the coefficients.  TILEC_E_ARG with one diagnostic. */
tilec_status plan_options_validate(tilec_context *ctx, const tilec_compile_options *o);

/* Every coefficient finite and >= 0; `source` names where they came from
 * ("the options", "cost policy 'x'") in the PLAN-C01 diagnostic. */
tilec_status plan_coefficients_validate(tilec_context *ctx, const plan_cost_coefficients *c, const char *source);

#endif
