/* reuse.h — per-view footprints and a reuse-distance cache model
 * (docs/planner.md "Access summaries", "Cost"), from the access summaries
 * (plan/access.h).
 *
 * Footprint of view v per program: the sum of its distinct access boxes
 * (bytes, before clipping; an upper bound where boxes overlap), and the
 * root axes it moves with (D_v: those with a nonzero scale in some access).
 * A view is *shared read-only* when it is `const`, the kernel never stores
 * to it, and D_v misses some root axis: the programs that differ only on
 * the other axes read the same elements (`sharers` of them).  An unknown
 * access fails closed: its view's footprint is the whole view, moving with
 * every root axis.
 *
 * Cache model (plan_cache_lines): programs run in the order of a root
 * map's digits (outer → inner, realize/root_map.h).  Each distinct access box
 * (a view with an unknown access: the whole view, the same for every
 * program) is an item.  U_i(p) = the lines of the union of item i's boxes
 * over the digits inside p: along each view axis a digit that moves the box
 * by at most its current span extends it, a larger step repeats it; the
 * innermost axis takes ⌈bytes / line⌉ lines per piece (so neighbouring
 * 32-byte blocks share their lines).  One iteration of digit p occupies
 *   dist(p) = Σ_i U_i(p + 1) · line
 * bytes, the LRU stack distance of reusing anything across two iterations.
 * Walking the digits from the innermost out, the lines item i fetches are
 *   L ← U_i(n) (one program);
 *   L ← dist(p) ≤ C ? L + U_i(p) − U_i(p + 1)   (kept: only the new lines)
 *                   : extent_p · L               (evicted: all again)
 * and lines(C) = Σ_i L.  It models one sequence of programs (one worker's
 * contiguous share looks the same).  Against an LRU simulator on the
 * reference interpreter's trace it is within a factor of 1.5
 * (tests/plan/test_reuse.c).  */
#ifndef TILEC_PLAN_REUSE_H
#define TILEC_PLAN_REUSE_H

#include "plan/access.h"
#include "realize/root_map.h"
#include "plan/target.h"

enum { PLAN_CACHE_LINE_BYTES = 64 };

typedef struct {
    uint32_t param;
    bool read_only;    /* const, and no store to it */
    bool known;        /* every access of it is known */
    bool shared;       /* read-only and sharers > 1 */
    uint64_t bytes;    /* F_v: footprint per program */
    uint64_t lines;    /* the cache lines it spans: rows × ⌈row bytes / line⌉ per box (rows aligned) */
    uint64_t depends;  /* D_v: root axes (bit a) the footprint moves with */
    uint64_t sharers;  /* programs reading each footprint: Π extents of the root axes outside D_v */
} plan_footprint;

typedef struct {
    plan_footprint *views; /* the accessed parameters, in parameter order */
    size_t count;
} plan_footprints;

/* Footprints of every accessed parameter of the admitted kernel f, in `ar`,
 * for lines of PLAN_CACHE_LINE_BYTES; TILEC_E_NOMEM (with a diagnostic) on
 * failure. */
tilec_status plan_footprints_of(tilec_context *ctx, const plan_admission *admission, const plan_accesses *accesses,
                                arena *ar, plan_footprints *out);

/* Lines fetched into caches of `bytes[i]` bytes (0: none, 0 lines) by the
 * programs in the order of `map`, from the access summaries. */
void plan_cache_lines(const plan_accesses *accesses, const plan_root_map *map,
                      const uint64_t bytes[PLAN_CACHE_LEVELS], double out[PLAN_CACHE_LEVELS]);

#endif
