/* limits.h — the rank bound the TileIR rewrites and the realization share.
 * Admission refuses a kernel whose root domain, tiles or views have more
 * axes (LOWER-A09, admit.h), so the rewrites that build kernels for the
 * same pipeline (flatten.h, the packing copy and the split kernels) and the
 * lowering keep their per-axis arrays this long. */
#ifndef TILEC_REWRITE_LIMITS_H
#define TILEC_REWRITE_LIMITS_H

/* Ranks above this are refused (root decoding keeps per-axis arrays). */
enum { PLAN_MAX_RANK = 64 };

#endif
