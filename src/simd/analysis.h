/* analysis.h — facts the SIMD emitter needs about an XIR function:
 * post-dominators, the predicated region of a varying branch, and
 * uniformity (uniform vs varying values over a packet). */
#ifndef TILEC_SIMD_ANALYSIS_H
#define TILEC_SIMD_ANALYSIS_H

#include "xir/cfg.h"

typedef struct {
    tilec_context *ctx;
    const xir_func *func;
    xir_cfg cfg;              /* with dominators */
    uint32_t n;               /* block count (ids) */
    xir_block **block;        /* by id */
    uint32_t *ipdom;          /* by id: immediate post-dominator id, XIR_CFG_NONE = the exit */
    unsigned char *varying;   /* by value id (arguments and instructions) */
    uint32_t width;           /* W, the packet width */
    xir_block **stack;        /* scratch for simd_region */
} simd_analysis;

/* False (with a NOMEM diagnostic) when memory runs out. */
bool simd_analyze(tilec_context *ctx, const xir_func *f, uint32_t width, simd_analysis *out);

/* Whether i is `div dispatch_id, k` with k a multiple of W: a packet's lanes
 * are W consecutive ordinals from a multiple of W, so the quotient (a
 * packet-local kernel's program ordinal) is the same on every lane — the
 * packet's first ordinal divided by k. */
bool simd_packet_ordinal_div(const xir_inst *i, uint32_t width);
void simd_analysis_free(simd_analysis *a);

bool simd_varying(const simd_analysis *a, const xir_value *v);

/* The blocks a branch at `x` may reach before its immediate post-dominator
 * (`in_region` by block id, cleared first).  Returns the post-dominator id
 * (XIR_CFG_NONE: the function exit); *cycle is set when the region reaches
 * `x` again (a loop whose exit the branch decides). */
uint32_t simd_region(const simd_analysis *a, const xir_block *x, unsigned char *in_region, bool *cycle);

/* The buffer write after `a` in its block that stores every other element
 * next to a's (index a's + *sign, sign ±1, same value type) and that a may
 * be moved down to, or NULL (pairs.c; a's index is lane 0's + 2·lane;
 * `apart`: simd_facts.apart_args). */
const xir_inst *simd_pair_partner(const xir_inst *a, uint32_t width, uint64_t apart, int *sign);

#endif
