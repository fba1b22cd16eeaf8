/* diff_facts.h — what the differential fuzzer's generator knows about a value:
 * the range of its finite values, how far the native result may be from the
 * FP64 reference's, and whether it is bit-identical on both sides.
 *
 * The reference computes f32 arithmetic in FP64 and rounds only at constants,
 * casts and stores (docs/interpreter.md); native code rounds every f32
 * operation, uses SLEEF for exp/log/tanh, and may regroup unordered
 * reductions.  A value is *exact* (ea = er = 0) when both sides hold the same
 * bits whatever the inputs (NaN payloads aside): integers always, f64 IEEE
 * operations in the same order on exact operands, and f32 operations whose
 * exact result lies on a grid the type represents (multiples of 2^-grid below
 * 2^24).  Otherwise |native - reference| <= ea + er·|reference| (a typical-case
 * model for sums, a worst-case one elsewhere).  Every rule here returns false
 * for an operation whose outcome could differ discontinuously between the
 * sides (a comparison or a float→int cast of inexact values, a division by
 * an inexact value near zero, ...): the generator then picks something else.
 * Integers: lo/hi are exact bounds; an operation that may wrap widens them to
 * the type's range. */
#ifndef TILEC_TESTS_DIFF_FACTS_H
#define TILEC_TESTS_DIFF_FACTS_H

#include "tilec/tir.h"

#include <stdbool.h>

enum { DIFF_GRID_NONE = 100000 };

/* The largest error the generator lets a value carry. */
#define DIFF_ERR_CAP 1e-3

typedef struct {
    double lo, hi;  /* finite values lie in [lo, hi]; lo > hi: none (only ±inf) */
    double ea, er;  /* |native - reference| <= ea + er·|reference| */
    int grid;       /* floats: finite values are multiples of 2^-grid (DIFF_GRID_NONE: unknown) */
    bool special;   /* may be ±inf or NaN */
} diff_facts;

static inline bool diff_facts_exact(const diff_facts *f) { return f->ea == 0 && f->er == 0; }

/* Every value of type s (integers: the type's range; floats: unknown, special). */
diff_facts diff_facts_any(tir_scalar s);
/* The constant v of type s (floats: v already representable in s). */
diff_facts diff_facts_const(tir_scalar s, double v);
/* The interval [lo, hi] of type s, exact, grid `grid`. */
diff_facts diff_facts_range(tir_scalar s, double lo, double hi, int grid, bool special);
/* The smallest facts that cover both. */
diff_facts diff_facts_hull(const diff_facts *a, const diff_facts *b);
/* True when a value with facts `in` may stand where `outer` is assumed. */
bool diff_facts_within(const diff_facts *in, const diff_facts *outer);
/* Largest magnitude of a finite value (0 when none). */
double diff_facts_bound(const diff_facts *f);

/* An elementwise op (not cast/select) on element type `elem` (the operands'
 * type; comparisons give bool facts); b unused for unary ops.  False when the
 * op must not be generated for these operands. */
bool diff_facts_ew(tir_ew_op op, tir_scalar elem, const diff_facts *a, const diff_facts *b, diff_facts *out);
/* cast from → to. */
bool diff_facts_cast(tir_scalar from, tir_scalar to, const diff_facts *a, diff_facts *out);
/* select: the condition is a bool (always exact). */
diff_facts diff_facts_select(const diff_facts *t, const diff_facts *f);
/* seed op x_0 op ... op x_{n-1} for op ADD, MUL, MIN or MAX, in order or
 * (regroup) in any grouping.  False when not generatable. */
bool diff_facts_fold(tir_ew_op op, tir_scalar elem, const diff_facts *seed, const diff_facts *x, double n, bool regroup,
                     diff_facts *out);
/* mma: c + Σ_k conv(a)·conv(b) over k steps, in c's type `acc`, in order or
 * (regroup: the mma allows reassociation) in any grouping. */
bool diff_facts_mma(tir_scalar a_elem, const diff_facts *a, tir_scalar b_elem, const diff_facts *b, tir_scalar acc,
                    const diff_facts *c, double k, bool regroup, diff_facts *out);
/* The facts of a value stored into (and rounded by) a view of type s. */
diff_facts diff_facts_stored(tir_scalar s, const diff_facts *v);

#endif
