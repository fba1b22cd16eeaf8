/* pack.h — the panel packing copy kernel (docs/lowering.md "Packed
 * panels").
 *
 * A pack describes one tile load of the root program whose origin is an
 * affine function of region coordinates, one coordinate per view axis
 * (`c·s + o`, `o`).  Its tiles are copied once per dispatch, before the
 * kernel, into a scratch buffer (the panels) where tiles are contiguous and
 * ordered by their coordinates (root axes, then loops outer → inner), and
 * the kernel reads the panels instead:
 *
 *   packed[inst][t] = load(origin(inst))[t]     (fill values included)
 *
 * with inst the linear index of the coordinates and t the tile element in
 * storage order (the tile's axes, a packet-local distributed axis
 * innermost).  The copy is a TileIR kernel of its own (plan_pack_build),
 * compiled by the same pipeline.
 *
 * Exactness: the copy performs the same load (origin, strides, bounds=zero,
 * fill), so the kernel sees the same values; a pack whose panels are of a
 * wider type than the view's (widened f16/bf16, or i8/u8 as i16) casts,
 * exactly; grouping only moves elements.  The
 * planner decides which loads are packed; the lowering reads the panels
 * (realize/packing.h). */
#ifndef TILEC_REWRITE_PACK_H
#define TILEC_REWRITE_PACK_H

#include "rewrite/limits.h"
#include "tir/ir.h"

enum { PLAN_PACK_MAX_COORDS = 8 };

typedef struct {
    const tir_op *load;            /* the packed tile load */
    uint32_t param;                /* its view parameter */
    tir_scalar elem;               /* the panels' element type: the view's, or the mma's when widened */
    /* grouped (the operands of a dot-product mma, xir.h's dots): `group`
     * (2 or 4; 0: not grouped) consecutive elements of group_axis, G·i to
     * G·i + G-1, lie together: bf16 pairs in reverse order, so that the
     * little-endian u32 word holds element 2i in its high half (the one
     * dot_bf16x2 folds first); integers in order (element G·i + j in bits
     * 8·size·j: a sum does not care, and a group along the source's
     * contiguous axis is its bytes as they are) */
    uint32_t group;
    uint32_t group_axis;
    /* an s8 × s8 dot on u8 × s8 words: `biased`, the panels hold each
     * element + 128 (as u8); `sums`, after each tile's words come that many
     * i32 words, 128 · the tile's sum over the group axis for each position
     * of its other (distributed) axis, which the mma subtracts: Σ (a+128)·b
     * − 128·Σ b = Σ a·b, exactly in wrapping i32 (the group axis is then
     * the tile's first storage axis, the sums one more row) */
    bool biased;
    uint32_t sums;
    bool inner;                    /* the origin depends on the innermost nonunit root axis */
    bool contiguous;               /* each tile is one contiguous run of its view already */
    uint32_t coord_count;          /* the coordinates the origin uses, major → minor */
    const tir_value *coords[PLAN_PACK_MAX_COORDS];
    uint64_t extents[PLAN_PACK_MAX_COORDS];
    /* origin on view axis a = scale[a] · coords[coord_of[a]] + offset[a]
     * (coord_of[a] < 0: the constant offset[a]) */
    int32_t coord_of[PLAN_MAX_RANK];
    int64_t scale[PLAN_MAX_RANK], offset[PLAN_MAX_RANK];
    uint32_t order[PLAN_MAX_RANK]; /* tile axes in storage order, outer → inner (grouped: the group axis
                                    * counts groups, and the elements of a group are innermost) */
    uint64_t stride[PLAN_MAX_RANK];/* element stride of tile axis a in a packed tile (grouped: of a group) */
    uint64_t instances;            /* Π extents */
    uint64_t tile_elements;        /* the tile's volume */
    uint64_t bytes;                /* instances · tile_elements · panel element size */
    uint64_t reuse;                /* programs that read each packed tile */
} plan_pack;

/* The element type the kernel reads the panels as: u32 words when grouped,
 * else the panels' own. */
static inline tir_scalar plan_pack_panel_type(const plan_pack *p) { return p->group ? TIR_U32 : p->elem; }

/* The element type of the copy's panels: u32 words for groups of integers
 * across the innermost storage axis (the copy builds each word
 * arithmetically), else the panels' own (a group along the innermost axis
 * is its elements in order). */
static inline tir_scalar plan_pack_copy_type(const plan_pack *p) {
    bool inner = p->group && p->order[p->load->domain->rank - 1] == p->group_axis;
    return p->group && tir_scalar_is_integer(p->elem) && !inner ? TIR_U32 : p->elem;
}

/* The copy of one pack as a TileIR kernel "@<f>_pack_<view>" in a new
 * module (owned by the caller): parameters (%src, the packed view's source,
 * const; %dst, the panels [instances·e0, e1, …] in storage order (grouped:
 * the group axis's extent divided by G, and the innermost multiplied unless
 * the copy writes words), of plan_pack_copy_type), one program per tile.  NULL with a diagnostic
 * (NOMEM or a builder error). */
tir_module *plan_pack_build(tilec_context *ctx, const tir_func *f, const plan_pack *pack);

#endif
