/* flatten.h — nested parallels flattened into the root domain (docs/
 * lowering.md "Nested parallel"): a root parallel whose body is cheap pure
 * work followed by one inner parallel (and so on, inner in inner) becomes
 * one parallel over the concatenated domain, outer axes first, whose body
 * is the pure work of every level then the innermost body.
 *
 * The rewrite keeps the meaning: an instance (i, j) of the flat parallel
 * runs what instance j of the inner parallel did in instance i of the
 * outer one, after recomputing the outer level's work.  That work must be
 * pure and safe to repeat — constants, elementwise ops, extracts and loads
 * of read-only parameters (never written by the kernel) — so each
 * instance sees the values the nested form computed once; the levels'
 * dims must be distinct and the flat rank within PLAN_MAX_RANK.  Anything
 * else stays nested, and admission refuses it (LOWER-A06) with the reason
 * plan_flatten_why gives. */
#ifndef TILEC_REWRITE_FLATTEN_H
#define TILEC_REWRITE_FLATTEN_H

#include "tir/ir.h"

/* The root parallel of f (verified) nests a parallel the rewrite can
 * flatten. */
bool plan_flatten_applies(const tir_func *f);
/* Why f's nested root parallel cannot be flattened (NULL: it can, or there
 * is none), for admission's diagnostic. */
const char *plan_flatten_why(const tir_func *f);
/* A new module whose only kernel is f flattened (same name, parameters and
 * locations); NULL after a PLAN-M01 diagnostic on NOMEM. */
tir_module *plan_flatten_build(tilec_context *ctx, const tir_func *f);

#endif
