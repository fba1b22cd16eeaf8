/* mma.c — mma a, b, c as the ordered multiply-add fold the reference
 * interpreter defines: for each output element o of c's space,
 *   acc = c[o];  for k over the contracted dims (a's axes absent from c, in
 *   a's axis order, row-major):  acc = acc + cast(a[o,k]) · cast(b[o,k])
 * in c's element type.  A float step is one fma (a·b + acc rounded once, as
 * every BLAS does) unless the record's fused_mma is off, which keeps a
 * separate multiply and add; integers always multiply and add.  Outputs are
 * unrolled (SSA) or one runtime loop into an array (bounded outputs); the
 * contraction is unrolled or a runtime loop (bounded contraction) carrying
 * one accumulator PHI per output in flight, which keeps every output's order.
 * Packet-local, every extent is a slot count, so each lane folds its own
 * output slots.  A contraction over D (plan_mma_over_local; only an mma
 * that allows reassociation) is regrouped: each lane folds the products of
 * its slots, starting from its first product (no identity invented; the
 * tail slot only where its element exists), the lanes' partials are summed
 * in a butterfly (lw_packet_combine; a lane without an element takes no
 * part), and the output is c + that sum, on every lane.  An ordered mma
 * over D keeps the reference's steps instead: it walks the contraction in
 * element order, reading both operands of element e from lane e % W (slot
 * e / W), so every lane folds the same terms in the same order (fold_ordered).
 * Either contraction is always unrolled.
 *
 * Dot products: when the planner packed both operands in groups of the one
 * contracted dim (plan/pack.h: bf16 × bf16 → f32, reassociable, fused; i8/u8
 * × i8/u8 → i32; the distributed dim among the outputs), each step reads one
 * u32 word per operand, a group of elements, and folds its products with one
 * dot (xir.h): the contraction walks groups, in the reference's order for
 * bf16 (xir.h gives the instruction's flushing of subnormals) and exactly
 * for integers (docs/lowering.md "Dot products").
 *
 * Bounded outputs are register-blocked: the runtime output loop walks blocks
 * of up to 4×4 outputs over the two innermost non-unit output axes (the
 * largest of 4, 2, 1 dividing each extent) and folds a block's outputs in one
 * runtime contraction loop, so every a/b element read in a step feeds up to 4
 * outputs (LLVM merges the repeated private-array reads) and the accumulators
 * stay in registers.  (Unrolling that contraction instead lets LLVM hoist all
 * the reads and spill.)  Each output still folds its own terms in contraction
 * order: results are bitwise unchanged. */
#include "lower/internal.h"

typedef struct {
    const tir_op *op;
    lv *a, *b, *c, *out;
    const tir_space *sa, *sb, *sc;
    uint32_t k_rank;
    uint64_t k_extent[PLAN_MAX_RANK];
    const tir_dim *k_dim[PLAN_MAX_RANK];
    uint64_t k_count;
    bool k_runtime;
    bool fused; /* float accumulator and the record's fused_mma */
    int d_index; /* the contraction axis on a distributed dim (plan_mma_over_local), else -1 */
    const plan_local_dim *d; /* that dim */
    bool ordered;            /* an ordered mma over d: k_extent[d_index] counts elements, not slots */
    xir_arith_op dot;        /* both operands read in words of groups of the one contracted dim (k counts
                              * groups), folded by this dot; else XIR_OP_INVALID */
    bool swap;               /* the dot takes b's word first (u8 × i8: the u8 word first) */
    bool sums;               /* b's panels carry 128·Σ b per tile (a biased by 128: pack.h): each output starts
                              * from c minus its column's */
} mma_job;

/* The coordinates in an operand over `s` from output and contraction
 * coordinates. */
static bool operand_coords(lowerer *lw, const mma_job *j, const tir_space *s, xir_value *const *oc,
                           xir_value *const *kc, xir_value **coords) {
    for (uint32_t i = 0; i < s->rank; i++) {
        const tir_dim *d = s->axes[i].dim;
        int axis = tir_space_find(j->sc, d);
        coords[i] = axis >= 0 ? oc[axis] : NULL;
        for (uint32_t t = 0; !coords[i] && t < j->k_rank; t++)
            if (j->k_dim[t] == d) coords[i] = kc[t];
        if (!coords[i]) {
            lw_internal(lw, "mma dimension '%s' is neither an output nor a contracted dimension", d->label);
            return false;
        }
    }
    return true;
}

/* Flat index into an operand over `s` from output and contraction coordinates. */
static xir_value *operand_flat(lowerer *lw, const mma_job *j, const tir_space *s, xir_value *const *oc,
                               xir_value *const *kc) {
    xir_value *coords[PLAN_MAX_RANK], *flat = lw_i64(lw, 0);
    if (!operand_coords(lw, j, s, oc, kc, coords)) return NULL;
    uint64_t stride = 1;
    for (uint32_t i = s->rank; i-- > 0;) {
        uint64_t extent = lw_extent(lw, &s->axes[i]);
        if (extent != 1)
            flat = lw_arith(lw, XIR_OP_ADD, flat, lw_arith(lw, XIR_OP_MUL, coords[i], lw_i64(lw, (int64_t)stride), NULL), NULL);
        stride *= extent;
    }
    return flat;
}

/* The step of a grouped contraction: acc + every product of group kc, in
 * one dot (for bf16 the pack put element 2i in each word's high half, so
 * the steps keep the reference's order; xir.h). */
static xir_value *group_step(lowerer *lw, const mma_job *j, xir_value *acc, xir_value *const *oc,
                             xir_value *const *kc) {
    xir_value *ca[PLAN_MAX_RANK], *cb[PLAN_MAX_RANK];
    if (!operand_coords(lw, j, j->sa, oc, kc, ca) || !operand_coords(lw, j, j->sb, oc, kc, cb)) return NULL;
    xir_value *x = lw_read_word(lw, j->a, ca), *y = lw_read_word(lw, j->b, cb);
    if (!lw_ok(lw)) return NULL;
    return j->swap ? xir_build_arith(&lw->b, j->dot, acc, y, x) : xir_build_arith(&lw->b, j->dot, acc, x, y);
}

/* An output's first value: c at oc, less b's sums at its column when a was
 * biased (Σ (a+128)·b − 128·Σ b = Σ a·b: wrapping i32, exact). */
static xir_value *initial(lowerer *lw, const mma_job *j, xir_value *c, xir_value *const *oc) {
    if (!j->sums || !c) return c;
    xir_value *kc[PLAN_MAX_RANK] = {lw_i64(lw, (int64_t)j->k_extent[0])}, *cb[PLAN_MAX_RANK]; /* the row past the groups */
    if (!operand_coords(lw, j, j->sb, oc, kc, cb)) return NULL;
    xir_value *sum = lw_cast(lw, lw_read_word(lw, j->b, cb), TIR_I32);
    return lw_arith(lw, XIR_OP_SUB, c, sum, NULL);
}

/* The dot that folds words of panels of `a` and `b` (plan/pack.c
 * dot_group): bf16 pairs, i16 pairs, or u8 × i8 quads (swapped when b holds
 * the u8); XIR_OP_INVALID for any other pairing. */
static xir_arith_op dot_of(const plan_pack *a, const plan_pack *b, bool *swap) {
    *swap = false;
    if (a->group != b->group) return XIR_OP_INVALID;
    if (a->group == 2 && a->elem == b->elem) return a->elem == TIR_BF16 ? XIR_OP_DOT_BF16X2 : a->elem == TIR_I16 ? XIR_OP_DOT_I16X2 : XIR_OP_INVALID;
    if (a->group != 4 || a->elem == b->elem || (a->elem != TIR_U8 && a->elem != TIR_I8) ||
        (b->elem != TIR_U8 && b->elem != TIR_I8))
        return XIR_OP_INVALID;
    *swap = b->elem == TIR_U8;
    return XIR_OP_DOT_U8I8X4;
}

/* One contraction step: a·b (the first term of a lane's partial over D)
 * and acc + a·b, as one fma (one rounding) when fused (acc NULL: no step). */
static void term(lowerer *lw, const mma_job *j, xir_value *acc, xir_value *const *oc, xir_value *const *kc,
                 xir_value **product, xir_value **next) {
    xir_value *x = lw_cast(lw, lw_read(lw, j->a, operand_flat(lw, j, j->sa, oc, kc)), j->out->elem);
    xir_value *y = lw_cast(lw, lw_read(lw, j->b, operand_flat(lw, j, j->sb, oc, kc)), j->out->elem);
    *product = lw_arith(lw, XIR_OP_MUL, x, y, NULL); /* unused when fused: removed by the cleanup */
    *next = !acc ? NULL : j->fused ? lw_arith(lw, XIR_OP_FMA, x, y, acc) : lw_arith(lw, XIR_OP_ADD, acc, *product, NULL);
}

static xir_value *step(lowerer *lw, const mma_job *j, xir_value *acc, xir_value *const *oc, xir_value *const *kc) {
    if (j->dot) return group_step(lw, j, acc, oc, kc);
    xir_value *product, *next;
    term(lw, j, acc, oc, kc, &product, &next);
    return next;
}

/* Constant contraction coordinates of step `kk`. */
static void k_coords(lowerer *lw, const mma_job *j, uint64_t kk, xir_value **kc) {
    for (uint32_t t = j->k_rank; t-- > 0;) {
        kc[t] = lw_i64(lw, (int64_t)(kk % j->k_extent[t]));
        kk /= j->k_extent[t];
    }
}

/* acc folded over the whole contraction, unrolled. */
static xir_value *fold_unrolled(lowerer *lw, const mma_job *j, xir_value *acc, xir_value *const *oc) {
    xir_value *kc[PLAN_MAX_RANK];
    for (uint64_t kk = 0; kk < j->k_count && lw_ok(lw); kk++) {
        k_coords(lw, j, kk, kc);
        acc = step(lw, j, acc, oc, kc);
    }
    return acc;
}

/* c + the packet's sum of the lanes' partials over their slots (see the
 * top): with full slots every lane starts from a valid product and the
 * tail slot is selected by its element's existence; without (N < W) each
 * lane holds at most slot 0, and whether it exists travels with the
 * partial into the butterfly. */
static xir_value *fold_lanes(lowerer *lw, const mma_job *j, xir_value *c, xir_value *const *oc) {
    xir_value *kc[PLAN_MAX_RANK], *p = NULL, *product, *next;
    const plan_local_dim *d = j->d;
    xir_value *present = d->full_slots ? NULL : lw_element_valid(lw, d, lw_element(lw, lw_i64(lw, 0)));
    for (uint64_t kk = 0; kk < j->k_count && lw_ok(lw); kk++) {
        k_coords(lw, j, kk, kc);
        term(lw, j, p, oc, kc, &product, &next);
        int64_t q = 0;
        lw_const_int(kc[j->d_index], &q);
        bool tail = d->full_slots && (uint64_t)q >= d->full_slots;
        if (!p) p = product;
        else p = tail ? lw_arith(lw, XIR_OP_SELECT, lw_element_valid(lw, d, lw_element(lw, kc[j->d_index])), next, p) : next;
    }
    if (!p) return c;
    xir_value *total = lw_packet_combine(lw, d, p, present, TIR_EW_ADD, true, j->out->elem), *sum[2] = {c, total};
    return lw_apply(lw, TIR_EW_ADD, j->out->elem, sum);
}

/* acc folded over the whole contraction in the reference's order, each
 * step's operands read from the lane holding its element of D: the same
 * terms in the same order on every lane. */
static xir_value *fold_ordered(lowerer *lw, const mma_job *j, xir_value *acc, xir_value *const *oc) {
    xir_value *kc[PLAN_MAX_RANK];
    uint32_t W = lw->local->lanes;
    for (uint64_t kk = 0; kk < j->k_count && lw_ok(lw); kk++) {
        k_coords(lw, j, kk, kc);
        int64_t e = 0;
        lw_const_int(kc[j->d_index], &e);
        kc[j->d_index] = lw_i64(lw, e / W);
        xir_value *lane = xir_const_uint(lw->m, TIR_U32, (uint64_t)(e % W));
        xir_value *x = lw_cast(lw, lw_read(lw, j->a, operand_flat(lw, j, j->sa, oc, kc)), j->out->elem);
        xir_value *y = lw_cast(lw, lw_read(lw, j->b, operand_flat(lw, j, j->sb, oc, kc)), j->out->elem);
        if (!lw_ok(lw) || !x || !y) return NULL;
        x = xir_build_warp_read_lane(&lw->b, x, lane);
        y = xir_build_warp_read_lane(&lw->b, y, lane);
        acc = j->fused ? lw_arith(lw, XIR_OP_FMA, x, y, acc)
                       : lw_arith(lw, XIR_OP_ADD, acc, lw_arith(lw, XIR_OP_MUL, x, y, NULL), NULL);
    }
    return acc;
}

/* The contraction over a distributed dim: regrouped or in order. */
static xir_value *fold_local(lowerer *lw, const mma_job *j, xir_value *acc, xir_value *const *oc) {
    return j->ordered ? fold_ordered(lw, j, acc, oc) : fold_lanes(lw, j, acc, oc);
}

/* The contraction as one runtime loop over k for the outputs oc[0..n): each
 * accumulator is a header PHI; acc[] holds the results after the loop. */
static void fold_runtime(lowerer *lw, const mma_job *j, size_t n, xir_value *const *const *oc, xir_value **acc) {
    xir_inst **phis = lw_alloc(lw, sizeof *phis * n);
    xir_value **next = lw_alloc(lw, sizeof *next * n);
    if (!phis || !next) return;
    lw_loop L;
    lw_loop_begin(lw, &L, 0, (int64_t)j->k_count, 1);
    xir_type *type = xir_type_scalar(lw->m, j->out->elem);
    for (size_t o = 0; o < n; o++) phis[o] = lw_loop_phi(lw, &L, type, acc[o]);
    if (!lw_ok(lw)) return;
    xir_value *kc[PLAN_MAX_RANK];
    lw_decode_extents(lw, j->k_rank, j->k_extent, &L.index->value, kc);
    for (size_t o = 0; o < n && lw_ok(lw); o++) next[o] = step(lw, j, &phis[o]->value, oc[o], kc);
    lw_loop_end(lw, &L, 1);
    for (size_t o = 0; o < n; o++) {
        lw_phi_add(lw, phis[o], next[o], L.latch);
        acc[o] = phis[o] ? &phis[o]->value : NULL;
    }
}

enum { MMA_BLOCK = 4 };

/* The largest of 4, 2, 1 dividing `extent`. */
static uint32_t block_factor(uint64_t extent) { return extent % 4 == 0 ? 4 : extent % 2 == 0 ? 2 : 1; }

/* Bounded outputs: one runtime loop over output blocks into the array. */
static void blocked_outputs(lowerer *lw, mma_job *j) {
    uint32_t rank = j->sc->rank, factor[PLAN_MAX_RANK], picked = 0;
    uint64_t extents[PLAN_MAX_RANK], blocks = 1;
    for (uint32_t a = rank; a-- > 0;) {
        extents[a] = lw_extent(lw, &j->sc->axes[a]);
        factor[a] = extents[a] != 1 && picked < 2 ? (picked++, block_factor(extents[a])) : 1;
        extents[a] /= factor[a];
        blocks *= extents[a];
    }
    uint32_t n = 1;
    for (uint32_t a = 0; a < rank; a++) n *= factor[a];
    xir_value *coords[MMA_BLOCK * MMA_BLOCK][PLAN_MAX_RANK], *flat[MMA_BLOCK * MMA_BLOCK], *acc[MMA_BLOCK * MMA_BLOCK],
        *bc[PLAN_MAX_RANK];
    xir_value **oc[MMA_BLOCK * MMA_BLOCK] = {NULL};
    lw_loop L;
    lw_loop_begin(lw, &L, 0, (int64_t)blocks, 1);
    if (!lw_ok(lw)) return;
    lw_decode_extents(lw, rank, extents, &L.index->value, bc);
    for (uint32_t o = 0; o < n; o++) {
        uint32_t rest = o;
        for (uint32_t a = rank; a-- > 0;) { /* row-major offsets inside the block */
            xir_value *d = lw_i64(lw, rest % factor[a]);
            rest /= factor[a];
            coords[o][a] = factor[a] == 1 ? bc[a]
                                          : lw_arith(lw, XIR_OP_ADD, lw_arith(lw, XIR_OP_MUL, bc[a], lw_i64(lw, factor[a]), NULL), d, NULL);
        }
        oc[o] = coords[o];
        flat[o] = lw_flat(lw, j->sc, coords[o]);
        acc[o] = initial(lw, j, lw_read(lw, j->c, flat[o]), oc[o]);
    }
    if (j->d_index >= 0)
        for (uint32_t o = 0; o < n && lw_ok(lw); o++) acc[o] = fold_local(lw, j, acc[o], oc[o]);
    else fold_runtime(lw, j, n, (xir_value *const *const *)oc, acc);
    for (uint32_t o = 0; o < n; o++) lw_array_write(lw, j->out->array, flat[o], acc[o]);
    lw_loop_end(lw, &L, 1);
    lw->counters.runtime_traversals++;
}

/* Small outputs: every output element is an SSA value. */
static void unrolled_outputs(lowerer *lw, mma_job *j) {
    uint64_t n = j->out->count;
    uint32_t rank = j->sc->rank;
    xir_value **coords = lw_alloc(lw, sizeof *coords * (n * rank + 1));
    xir_value ***oc = lw_alloc(lw, sizeof *oc * (n + 1));
    if (!coords || !oc) return;
    uint64_t idx[PLAN_MAX_RANK] = {0};
    for (uint64_t o = 0; o < n; o++) {
        oc[o] = coords + o * rank;
        for (uint32_t a = 0; a < rank; a++) oc[o][a] = lw_i64(lw, (int64_t)idx[a]);
        for (uint32_t a = rank; a-- > 0;) {
            if (++idx[a] < lw_extent(lw, &j->sc->axes[a])) break;
            idx[a] = 0;
        }
        j->out->elems[o] = initial(lw, j, lw_read(lw, j->c, lw_i64(lw, (int64_t)o)), oc[o]);
    }
    if (j->k_runtime) {
        fold_runtime(lw, j, n, (xir_value *const *const *)oc, j->out->elems);
        return;
    }
    for (uint64_t o = 0; o < n && lw_ok(lw); o++)
        j->out->elems[o] = j->d_index >= 0 ? fold_local(lw, j, j->out->elems[o], oc[o])
                                           : fold_unrolled(lw, j, j->out->elems[o], oc[o]);
}

void lower_mma(lowerer *lw, const tir_op *op) {
    const plan_op *po = plan_op_of(lw->plan, op);
    const tir_value *res = op->results[0];
    const plan_value *pv = plan_value_of(lw->plan, res);
    mma_job j = {.op = op, .k_count = po->contraction, .k_runtime = po->contraction_runtime,
                 .fused = lw->opt->fused_mma && tir_scalar_is_float(tir_value_elem(res)), .d_index = -1};
    if (!(j.a = lw_lookup(lw, op->operands[0]->value)) || !(j.b = lw_lookup(lw, op->operands[1]->value)) ||
        !(j.c = lw_lookup(lw, op->operands[2]->value)))
        return;
    j.sa = op->operands[0]->value->type->space;
    j.sb = op->operands[1]->value->type->space;
    j.sc = op->operands[2]->value->type->space;
    for (uint32_t i = 0; i < j.sa->rank; i++)
        if (tir_space_find(j.sc, j.sa->axes[i].dim) < 0) {
            const plan_local_dim *d = plan_local_dim_of(lw->local, &j.sa->axes[i]);
            if (d) j.d = d, j.d_index = (int)j.k_rank, j.ordered = !op->allow_reassociation;
            j.k_dim[j.k_rank] = j.sa->axes[i].dim;
            j.k_extent[j.k_rank++] = d && j.ordered ? d->extent : lw_extent(lw, &j.sa->axes[i]);
        }
    const plan_pack *ga = lw_grouped_pack(lw, j.a), *gb = lw_grouped_pack(lw, j.b);
    if (ga || gb) {
        j.dot = ga && gb ? dot_of(ga, gb, &j.swap) : XIR_OP_INVALID;
        if (!j.dot || j.k_rank != 1 || j.d) {
            lw_internal(lw, "the operands of an mma are packed in groups that it cannot read as a dot product");
            return;
        }
        j.k_extent[0] /= ga->group; /* k counts groups (the planner grouped a contracted dim G divides) */
        j.k_count /= ga->group;
        j.sums = gb->sums != 0;
        if (j.sums != ga->biased) {
            lw_internal(lw, "an mma's operand is biased by 128 without the other's sums, or the other way round");
            return;
        }
        lw->counters.dot_mmas++;
    }
    if (j.k_runtime || po->runtime) lw->counters.rolled_mmas++; /* blocked outputs always roll it */
    if (po->runtime) {
        if (!(j.out = lw_array(lw, pv->elem, pv->count))) return;
        blocked_outputs(lw, &j);
    } else {
        if (!(j.out = lw_ssa(lw, pv->elem, pv->count))) return;
        unrolled_outputs(lw, &j);
    }
    lw_bind(lw, res, j.out);
}
