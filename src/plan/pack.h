/* pack.h — panel packing: which tile loads are packed (docs/lowering.md
 * "Packed panels").
 *
 * A tile load in the root program whose origin is an affine function of
 * region coordinates, one coordinate per view axis (`c·s + o`, `o`), reads
 * the same tile for every program that differs only on the root axes the
 * origin ignores.  When those tiles come from strided rows (GEMM's B: a
 * BK×BN block of a K×N matrix, each row in another page), each program
 * walks K rows of N·4 bytes apart: the hardware prefetcher and the TLB lose.
 * Packing copies every such tile once per dispatch, before the kernel, into
 * a scratch buffer where tiles are contiguous and ordered by their
 * coordinates (root axes, then loops outer → inner, so one program's K steps
 * are adjacent), and the kernel reads the scratch instead:
 *
 *   packed[inst][t] = load(origin(inst))[t]     (fill values included)
 *
 * with inst the linear index of the coordinates and t the tile element in
 * storage order.  Packet-local, the storage order puts the distributed axis
 * innermost, so a transposed operand (gemm_bt's B[n, k]) becomes vector
 * rows too.  The copy is a TileIR kernel of its own (plan_pack_build,
 * rewrite/pack.h), compiled by the same pipeline; the lowering reads the
 * packing through realize/packing.h.
 *
 * Exactness: the copy performs the same load (origin, strides, bounds=zero,
 * fill), so the kernel sees the same values.  Packing is refused when it could not be
 * exact: the view is writable, a store precedes the load in program order (an
 * aliased output could then change what the load reads; later stores
 * cannot, since within a program they come after every read and across
 * programs parallel instances may not overlap), the load is bounds=assume
 * (its fault would be reported by the copy) or its fill is not a constant.
 * The packed access is in bounds by construction: coordinates stay inside
 * their region's extents.
 *
 * Widening: a load of f16/bf16 whose only users are mma operands with one
 * float accumulator type is packed in that type (the copy casts, exactly:
 * every half value is an f32 value), so the mma's inner loop reads f32
 * panels instead of widening each element at every step (once per output
 * on the other side).  Such a load is packed whatever root axis it depends
 * on; the conversion, not the locality, is the gain.  Its value keeps no
 * private copy (SSA without a snapshot, or streamed), so the planner's
 * resources are unchanged.  Up to PLAN_MAX_PACKS loads are packed, each
 * into its own panels (a buffer argument, in program order). */
#ifndef TILEC_PLAN_PACK_H
#define TILEC_PLAN_PACK_H

#include "realize/admit.h"
#include "realize/local.h"
#include "realize/packing.h"
#include "realize/represent.h"

#include "plan/options.h"

/* Decides packing for the admitted kernel f under `mode`, with the
 * packet-local distribution `local` (NULL: one program per lane) and the
 * representation `repr` of the selected plan:
 *  - reuse: the first tile load that qualifies and does not depend on the
 *    innermost nonunit root axis of the plan's root `order` (so the next
 *    program reads the same panel); auto packs it when each tile is read by
 *    at least 4 programs and the packed bytes exceed the L2 (`l2_bytes`; 0:
 *    unknown, no packing);
 *  - groups, first: with `dots` (PLAN_DOT_*: the dot products the target
 *    has in hardware), both operands of an mma a dot product can run (pack.c
 *    group_dot_operands; repr NULL: none) — bf16 × bf16 → f32 (reassociable),
 *    i8/u8 × i8/u8 → i32 — each tile read by at least 2 programs, in groups
 *    of the contracted dim (plan_pack.group), whatever the mode but off;
 *  - widening: every other qualifying half-precision mma operand (see
 *    above; repr NULL: none); auto packs it when each tile is read by at
 *    least 2 programs.
 * Returns whether a load is packed; `why` says why or why not.  Pure: no
 * diagnostics. */
bool plan_pack_decide(const tir_func *f, const plan_admission *admission, const plan_local *local,
                      const uint32_t *order, plan_pack_mode mode, uint64_t l2_bytes, uint32_t dots,
                      const plan_repr *repr, plan_packing *out);

#endif
