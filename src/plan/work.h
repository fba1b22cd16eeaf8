/* work.h — work extraction: the estimated arithmetic and memory work of one
 * packet for a candidate root mapping, read from the SAME representation plan
 * the lowerer emits from (represent.h) — forms, runtime traversals, snapshots,
 * deferred recipes, partitioned reductions, buffered carries — never from a
 * parallel estimate.  docs/planner.md lists every charge.
 *
 * With local_lanes = 1 a packet runs W whole programs in lockstep, so the
 * work of a packet is the dynamic work of one program, each operation counted
 * once per execution (loops multiply by their trip counts, maps by their
 * element counts).  View accesses are classified by the lane pattern of
 * their address over the packet's W consecutive dispatch ordinals, decoded
 * through the candidate's canonical root map (order and tiles): all lanes at
 * one address on a load → broadcast, consecutive (±1 per lane) →
 * contiguous, anything else or an unknown address → gathered (× W).  Packets
 * that straddle the innermost root digits double the view memory.  These are
 * priors, never facts handed to code generation.
 */
#ifndef TILEC_PLAN_WORK_H
#define TILEC_PLAN_WORK_H

#include "realize/represent.h"
#include "realize/root_map.h"
#include "plan/target.h"

/* The prior's weight of a math-library call (exp, log, tanh, erf, sin, …:
 * a SLEEF u10 polynomial, scalar/math_ops.h) per element, in operations. */
enum { PLAN_MATH_OPS = 16 };

/* Fills the work fields of `out` (arithmetic … reused_load_bytes); the count
 * and schedule fields are left alone.  From the target: the packet width,
 * the L2 (0 unknown), which bounds the panels that count as reused, and the
 * vector registers (0 unknown: no spills are charged).
 * TILEC_E_NOMEM on allocation failure. */
tilec_status plan_extract_work(const plan_repr *repr, const plan_root_map *map, const plan_target *target,
                               const plan_cost_coefficients *coefficients, plan_work *out);

#endif
