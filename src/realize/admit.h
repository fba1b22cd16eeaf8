/* admit.h — semantic admission of a TileIR kernel to the XIR realization,
 * shared by the lowerer and (later) the planner.  A kernel is admitted when
 * it has exactly one root `parallel` over a non-empty domain, the root block
 * holds only constants, elementwise ops and that parallel, the parallel's
 * scope is auto or worker, no other parallel exists, every static extent and
 * volume fits in uint32, and views are accessed only as kernel parameters.
 *
 * A refusal has a stable reason (an enum with a LOWER-A.. code) and one
 * diagnostic that names the offending op or axis. */
#ifndef TILEC_REALIZE_ADMIT_H
#define TILEC_REALIZE_ADMIT_H

#include "rewrite/limits.h"
#include "tir/ir.h"

/* X(enum suffix, diagnostic code, short reason) */
#define PLAN_REFUSALS(X) \
    X(NO_KERNEL, "LOWER-A00", "no kernel") \
    X(ROOT_PARALLEL_COUNT, "LOWER-A01", "not exactly one root parallel") \
    X(ROOT_OP, "LOWER-A02", "unsupported root operation") \
    X(EMPTY_DOMAIN, "LOWER-A03", "empty root domain") \
    X(EXTENT, "LOWER-A04", "static extent exceeds uint32") \
    X(VOLUME, "LOWER-A05", "volume exceeds uint32") \
    X(BINDING, "LOWER-A06", "unrealized execution binding") \
    X(VIEW_ACCESS, "LOWER-A07", "view not accessed as a kernel parameter") \
    X(VIEW_SIZE, "LOWER-A08", "view too large to address") \
    X(RANK, "LOWER-A09", "rank exceeds 64")

typedef enum {
    PLAN_ADMITTED = 0,
#define X(e, code, reason) PLAN_REFUSE_##e,
    PLAN_REFUSALS(X)
#undef X
    PLAN_REFUSAL_COUNT
} plan_refusal;

/* Whether f's root parallel has an empty domain: no program instance, so
 * nothing runs (admission refuses it, LOWER-A03; the facade compiles an
 * empty kernel, the CLI's XIR engine runs nothing). */
bool plan_root_empty(const tir_func *f);

/* The first `if` of f whose body emits a loop (a loop or mma region, or a
 * map or tile of more than `max_unrolled` elements: a runtime traversal), or
 * NULL.
 * With one program per lane its condition may differ between the lanes, and
 * the SIMD backend predicates only loop-free branches (SIMD-U02), so the
 * planner does not map such a kernel that way at W > 1. */
const tir_op *plan_branch_with_loop(const tir_func *f, uint64_t max_unrolled);

const char *plan_refusal_code(plan_refusal r);

typedef struct {
    plan_refusal refusal; /* PLAN_ADMITTED on success */
    tir_op *root;         /* the root parallel */
    tir_space *domain;    /* its domain */
    uint32_t volume;      /* root parallel instances (>= 1); the most there can be when sized */
    bool sized;           /* the root domain depends on runtime sizes (tir/form.h): its volume is the dispatch's */
} plan_admission;

/* Admits `f`; on refusal returns TILEC_E_UNSUPPORTED (TILEC_E_ARG for a NULL
 * kernel) with out->refusal set and one diagnostic. */
tilec_status plan_admit(tilec_context *ctx, const tir_func *f, plan_admission *out);

/* The first store at any depth of op (itself included), or NULL: what the
 * rewrites that move or repeat a program's reads (packing, split
 * reductions) must not cross. */
const tir_op *plan_find_store(const tir_op *op);

#endif
