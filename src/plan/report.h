/* report.h — the planner's result as the text `tilec plan` prints
 * (report.c). */
#ifndef TILEC_PLAN_REPORT_H
#define TILEC_PLAN_REPORT_H

#include "base/strbuf.h"
#include "plan/solve.h"

/* Integers as integers, other numbers in the shortest %g form that reads
 * back to v, non-finite ones as "null" (also the JSON form's numbers). */
const char *plan_number(char buf[32], double v);
/* The admitted candidates in the planner's order (plan_choice_before);
 * tilec_free it.  NULL when out of memory. */
const plan_choice **plan_ranking(tilec_context *ctx, const plan_result *p);
/* The report; rank (from plan_ranking) is needed when explain is set. */
void plan_report_text(strbuf *out, const plan_result *p, const plan_choice *const *rank, bool explain);
/* The same as one JSON object (`tilec plan --json`; docs/planner.md shows
 * the schema): keys in a fixed order, numbers in the shortest decimal form
 * that reads back to the same double, non-finite numbers (only possible in
 * rejected costs) as null. */
void plan_report_json(strbuf *out, const plan_result *p, const plan_choice *const *rank, bool explain);
/* The planner's items of a kernel's realization string: the search size,
 * every cost term of the selected plan, its schedule, the target's facts and
 * the fusion choice, as "key=value; " pairs (docs/planner.md). */
void plan_report_describe(strbuf *s, const plan_result *p);

#endif
