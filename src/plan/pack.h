/* pack.h — panel packing (docs/lowering.md "Packed panels").
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
 * rows too.  The copy is a TileIR kernel of its own (plan_pack_build),
 * compiled by the same pipeline.
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
#include "realize/represent.h"

#include "plan/options.h"


enum { PLAN_PACK_MAX_COORDS = 8, PLAN_MAX_PACKS = 2 };

typedef struct {
    const tir_op *load;            /* the packed tile load */
    uint32_t param;                /* its view parameter */
    tir_scalar elem;               /* the panels' element type: the view's, or the mma's when widened */
    bool inner;                    /* the origin depends on the innermost nonunit root axis */
    bool contiguous;               /* each tile is one contiguous run of its view already */
    uint32_t coord_count;          /* the coordinates the origin uses, major → minor */
    const tir_value *coords[PLAN_PACK_MAX_COORDS];
    uint64_t extents[PLAN_PACK_MAX_COORDS];
    /* origin on view axis a = scale[a] · coords[coord_of[a]] + offset[a]
     * (coord_of[a] < 0: the constant offset[a]) */
    int32_t coord_of[PLAN_MAX_RANK];
    int64_t scale[PLAN_MAX_RANK], offset[PLAN_MAX_RANK];
    uint32_t order[PLAN_MAX_RANK]; /* tile axes in storage order, outer → inner */
    uint64_t stride[PLAN_MAX_RANK];/* element stride of tile axis a in a packed tile */
    uint64_t instances;            /* Π extents */
    uint64_t tile_elements;        /* the tile's volume */
    uint64_t bytes;                /* instances · tile_elements · panel element size */
    uint64_t reuse;                /* programs that read each packed tile */
} plan_pack;

typedef struct {
    uint32_t count;
    plan_pack packs[PLAN_MAX_PACKS]; /* in program order: their panels follow the parameters so */
    char why[512];                   /* the decision in words */
} plan_packing;

/* The pack of `load`, or NULL. */
const plan_pack *plan_packing_find(const plan_packing *p, const tir_op *load);

/* Decides packing for the admitted kernel f under `mode`, with the
 * packet-local distribution `local` (NULL: one program per lane) and the
 * representation `repr` of the selected plan:
 *  - reuse: the first tile load that qualifies and does not depend on the
 *    innermost nonunit root axis of the plan's root `order` (so the next
 *    program reads the same panel); auto packs it when each tile is read by
 *    at least 4 programs and the packed bytes exceed the L2 (`l2_bytes`; 0:
 *    unknown, no packing);
 *  - widening: every qualifying half-precision mma operand (see above;
 *    repr NULL: none); auto packs it when each tile is read by at least 2
 *    programs.
 * Returns whether a load is packed; `why` says why or why not.  Pure: no
 * diagnostics. */
bool plan_pack_decide(const tir_func *f, const plan_admission *admission, const plan_local *local,
                      const uint32_t *order, plan_pack_mode mode, uint64_t l2_bytes, const plan_repr *repr,
                      plan_packing *out);

/* The copy of one pack as a TileIR kernel "@<f>_pack_<view>" in a new
 * module (owned by the caller): parameters (%src, the packed view's source,
 * const; %dst, the panels [instances·e0, e1, …] in storage order, of the
 * pack's element type), one program per tile.  NULL with a diagnostic
 * (NOMEM or a builder error). */
tir_module *plan_pack_build(tilec_context *ctx, const tir_func *f, const plan_pack *pack);

#endif
