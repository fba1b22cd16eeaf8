/* resources.h — static snapshot resource analysis: from the representation
 * plan, the private array storage one physical worker (one lane) allocates,
 * before any XIR is emitted:
 *   bytes       = Σ_sites multiplicity × elements × element size
 *   allocations = Σ_sites multiplicity
 * Sites are ARRAY definitions, SSA definition snapshots, and the current and
 * next arrays of large loop carries.  Multiplicities count static emissions
 * (an unrolled body once per emission, a runtime loop body once), never
 * runtime iterations or root instances.  This is not peak liveness or stack
 * use.  The lowerer asserts that what it emits equals these numbers. */
#ifndef TILEC_REALIZE_RESOURCES_H
#define TILEC_REALIZE_RESOURCES_H

#include "realize/represent.h"

typedef struct {
    uint64_t snapshot_bytes_per_worker;
    uint64_t snapshot_allocations;
} plan_resources;

/* TILEC_E_BUDGET with a "snapshot storage budget" diagnostic when the demand
 * overflows 64 bits (never an optimistic zero). */
tilec_status plan_resources_of(const plan_repr *r, plan_resources *out);

/* Admission + representation plan + resources, without emitting XIR: what the
 * planner calls for each candidate. */
tilec_status plan_analyze_resources(tilec_context *ctx, const tir_func *f, const plan_repr_options *options,
                                    plan_resources *out);

#endif
