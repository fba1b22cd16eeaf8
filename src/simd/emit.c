/* emit.c — XIR → LLVM fixed-vector IR for one packet of W lanes, and the
 * packet entry that walks blocks and packets (docs/simd.md).
 *
 * Values: uniform XIR values (simd_analysis) are scalar LLVM values, varying
 * ones <W x T>; a uniform value is splatted only where a varying consumer
 * needs it.  bool is i1 in registers and i8 in memory.
 *
 * Control flow: blocks outside every predicated region ("top-level") keep
 * their branches; a top-level cond_br on a varying condition starts a region
 * (the blocks it reaches before its immediate post-dominator P), which is
 * emitted as one straight chain in reverse post-order, each block with an
 * entry mask (the OR of its incoming edge masks); PHIs of region blocks and
 * of P become selects on edge masks (all incoming values are read before any
 * select is formed, so copies are simultaneous); a region block that
 * touches memory or calls math runs only when some lane enters it (its
 * results join as zero otherwise).  Regions must be acyclic,
 * single-entry and reach P (SIMD-U01..U04).  Top-level blocks run under the
 * tail mask (lanes whose dispatch id < dispatch_size).
 *
 * Memory: every buffer access uses the current mask (tail mask or block
 * mask): lane-consecutive indices (a proof over dispatch_id-derived index
 * arithmetic, see lane_facts) become one masked vector load/store,
 * packet-equal indices one scalar load + splat, every other element (lane
 * l at lane 0's + 2l: interleaved pairs) two masked vector accesses and a
 * shuffle, others masked gather/scatter with inactive indices sanitized
 * to 0.  A uniform access in
 * a predicated block is done only when some lane is active.  Private arrays
 * are interleaved (element q of lane l at q·W + l) in one stack allocation
 * per alloca; a uniform slot is one vector access.
 *
 * Arithmetic and conversions are codegen/scalar.h's (XIR's semantics bit
 * for bit, shared with the GPU backend) on scalars or packets; the math
 * functions (scalar/math_ops.h) call SLEEF u10 at the packet width (never
 * scalar libm per lane). */
#include "simd/emit.h"
#include "codegen/math_edges.h"
#include "codegen/scalar.h"
#include "scalar/math_ops.h"
#include "xir/eval.h"

#include <stdio.h>
#include <string.h>

/* Lane facts of integer values (a proof, not a guess; unknown = 0). */
enum {
    LANE_EQUAL = 1,   /* every lane holds the same value */
    LANE_CONSEC = 2,  /* lane l holds lane 0's value + l */
    LANE_ALIGNED = 4, /* CONSEC, and lane 0's value is a multiple of W */
    LANE_MULW = 8,    /* EQUAL, and the value is a multiple of W */
    LANE_NONNEG = 16, /* no lane holds a negative value */
    LANE_PAIRS = 32   /* lane l holds lane 0's value + 2·l (every other element) */
};

typedef struct {
    cg_builder g; /* first: the math callback finds the emitter from it */
    tilec_context *ctx;
    const xir_func *f;
    const simd_analysis *an;
    const jit_host *host;
    simd_emit_info *info;
    tilec_status status;
    LLVMTypeRef ptr, vmask;
    LLVMValueRef body, alloca_point;
    LLVMValueRef args, block_id, base, dsize, workspace, faults, tail_mask, lane32, lane64;
    LLVMValueRef *val;          /* by value id */
    unsigned char *facts;       /* by value id: LANE_* */
    const xir_inst **paired;    /* by value id of a pair store: the earlier write moved down to it */
    signed char *pair_sign;     /* by the same id: +1 when that earlier write is the even one */
    LLVMValueRef *bufptr;       /* by argument index */
    LLVMBasicBlockRef *entry_bb, *exit_bb; /* by block id */
    LLVMValueRef *mask;         /* by block id: entry mask of a predicated block */
    LLVMValueRef (*edge)[2];    /* by block id: masks of the terminator's edges */
    unsigned char *predicated, *join; /* by block id */
    uint32_t *next_linear;      /* by block id: the next block of a region chain */
    unsigned char *region;      /* scratch */
    uint64_t private_bytes;
    uint64_t streaming_args; /* bit a: argument a's full-packet contiguous stores may be non-temporal */
    uint64_t apart_args;     /* bit a: argument a overlaps no other (simd_facts.apart_args) */
    bool full;                  /* emitting the all-active body */
} emitter;

static tilec_status fail(emitter *e, tilec_status st, const char *code, const char *fmt, const char *a,
                         const char *b2) {
    if (!e->status) {
        char msg[256];
        snprintf(msg, sizeof msg, fmt, a, b2);
        e->status = tilec_error(e->ctx, st, code, tilec_no_loc(), "'%s': %s", e->f->name, msg);
    }
    return e->status;
}

/* ---- types and small helpers ---- */



static LLVMValueRef any_lane(emitter *e, LLVMValueRef mask) { return cg_any_lane(&e->g, mask); }


/* The mask memory effects of block `b` run under. */
static LLVMValueRef block_mask(emitter *e, const xir_block *b) {
    return e->predicated[b->id] ? e->mask[b->id] : e->tail_mask;
}

/* ---- values ---- */


static LLVMValueRef special(emitter *e, xir_special s) {
    switch (s) {
    case XIR_SPECIAL_DISPATCH_ID: return LLVMBuildAdd(e->g.b, cg_splat(&e->g, e->base), e->lane32, "dispatch_id");
    case XIR_SPECIAL_WARP_LANE_ID: return e->lane32;
    case XIR_SPECIAL_BLOCK_ID: return e->block_id;
    case XIR_SPECIAL_DISPATCH_SIZE: return e->dsize;
    case XIR_SPECIAL_BLOCK_SIZE: return cg_const_i32(&e->g, e->f->block_size);
    case XIR_SPECIAL_WARP_SIZE: return cg_const_i32(&e->g, e->g.W);
    default: return cg_const_i32(&e->g, 0);
    }
}

/* The LLVM value of an operand, as a vector when `vector`. */
static LLVMValueRef get(emitter *e, const xir_value *v, bool vector) {
    LLVMValueRef r;
    switch (v->kind) {
    case XIR_VALUE_CONST: r = cg_constant(&e->g, v); break;
    case XIR_VALUE_SPECIAL: r = special(e, v->special); break;
    case XIR_VALUE_ARG: r = e->bufptr[v->arg_index]; break;
    default: r = e->val[v->id]; break;
    }
    return vector ? cg_splat(&e->g, r) : r;
}

static bool varying(emitter *e, const xir_value *v) { return simd_varying(e->an, v); }

/* ---- lane facts (the packet index proof) ---- */

static bool const_int(const xir_value *v, int64_t *out) {
    if (v->kind != XIR_VALUE_CONST || !tir_scalar_is_integer(v->type->scalar)) return false;
    *out = v->constant.i;
    if (!tir_scalar_is_signed(v->type->scalar) && v->constant.u > (uint64_t)INT64_MAX) return false;
    return true;
}

static unsigned facts_of(emitter *e, const xir_value *v) {
    int64_t k;
    if (v->kind == XIR_VALUE_SPECIAL) {
        if (v->special == XIR_SPECIAL_DISPATCH_ID || v->special == XIR_SPECIAL_WARP_LANE_ID)
            return LANE_CONSEC | LANE_ALIGNED | LANE_NONNEG;
        return LANE_EQUAL | LANE_NONNEG;
    }
    if (const_int(v, &k)) return LANE_EQUAL | (k % (int64_t)e->g.W == 0 ? LANE_MULW : 0) | (k >= 0 ? LANE_NONNEG : 0);
    if (!varying(e, v)) return LANE_EQUAL;
    return v->kind == XIR_VALUE_INST ? e->facts[v->id] : 0;
}

/* x + y where at most one operand is lane-consecutive (or pairs). */
static unsigned add_facts(unsigned x, unsigned y) {
    unsigned nonneg = x & y & LANE_NONNEG;
    if ((x & LANE_EQUAL) && (y & LANE_EQUAL)) return LANE_EQUAL | (x & y & LANE_MULW) | nonneg;
    if ((x & LANE_CONSEC) && (y & LANE_EQUAL)) return LANE_CONSEC | ((x & LANE_ALIGNED) && (y & LANE_MULW) ? LANE_ALIGNED : 0) | nonneg;
    if ((x & LANE_PAIRS) && (y & LANE_EQUAL)) return LANE_PAIRS | nonneg;
    if ((y & (LANE_CONSEC | LANE_PAIRS)) && (x & LANE_EQUAL)) return add_facts(y, x);
    return 0;
}

/* x · y: consecutive lanes times 2 are every other element; times 1 stay. */
static unsigned mul_facts(emitter *e, const xir_inst *i, unsigned x, unsigned y) {
    if ((x & LANE_EQUAL) && (y & LANE_EQUAL)) return LANE_EQUAL | ((x | y) & LANE_MULW) | (x & y & LANE_NONNEG);
    int64_t k;
    for (unsigned side = 0; side < 2; side++) {
        unsigned f = side ? y : x;
        if (!const_int(xir_operand(i, 1 - side), &k) || !(f & (LANE_CONSEC | LANE_PAIRS))) continue;
        if (k == 1) return f;
        if (k == 2 && (f & LANE_CONSEC) && e->g.W > 1) return LANE_PAIRS | (f & LANE_NONNEG);
    }
    return 0;
}

static unsigned inst_facts(emitter *e, const xir_inst *i) {
    if (i->value.type->kind != XIR_TYPE_SCALAR || !tir_scalar_is_integer(i->value.type->scalar)) return 0;
    tir_scalar t = i->value.type->scalar;
    if (i->kind == XIR_INST_CAST) {
        tir_scalar from = xir_operand(i, 0)->type->scalar;
        if (!tir_scalar_is_integer(from) || tir_scalar_size(t) < tir_scalar_size(from)) return 0;
        return facts_of(e, xir_operand(i, 0));
    }
    if (i->kind != XIR_INST_ARITH || xir_arith_arity(i->op) != 2) return 0;
    unsigned x = facts_of(e, xir_operand(i, 0)), y = facts_of(e, xir_operand(i, 1));
    int64_t d;
    bool divisor = const_int(xir_operand(i, 1), &d) && d > 0 && d % (int64_t)e->g.W == 0;
    bool nonneg_x = (x & LANE_NONNEG) || !tir_scalar_is_signed(t);
    switch (i->op) {
    case XIR_OP_ADD: return add_facts(x, y);
    case XIR_OP_SUB:
        if ((x & LANE_EQUAL) && (y & LANE_EQUAL)) return LANE_EQUAL | (x & y & LANE_MULW);
        if ((x & LANE_CONSEC) && (y & LANE_EQUAL)) return LANE_CONSEC | ((x & LANE_ALIGNED) && (y & LANE_MULW) ? LANE_ALIGNED : 0);
        if ((x & LANE_PAIRS) && (y & LANE_EQUAL)) return LANE_PAIRS;
        return 0;
    case XIR_OP_MUL: return mul_facts(e, i, x, y);
    case XIR_OP_DIV:
        if ((x & LANE_EQUAL) && (y & LANE_EQUAL)) return LANE_EQUAL | (x & y & LANE_NONNEG);
        if ((x & LANE_ALIGNED) && divisor && nonneg_x) return LANE_EQUAL | LANE_NONNEG;
        return 0;
    case XIR_OP_MOD:
        if ((x & LANE_EQUAL) && (y & LANE_EQUAL)) return LANE_EQUAL;
        if ((x & LANE_ALIGNED) && divisor && nonneg_x) return LANE_CONSEC | LANE_ALIGNED | LANE_NONNEG;
        return 0;
    default:
        return (x & LANE_EQUAL) && (y & LANE_EQUAL) && xir_arith_class(i->op) != XIR_OPC_COMPARE ? LANE_EQUAL : 0;
    }
}

/* ---- arithmetic (src/xir/eval.c semantics) ---- */


/* ---- SLEEF ---- */

static LLVMValueRef sleef_call(emitter *e, const char *fn_base, tir_scalar t, unsigned width, LLVMValueRef *x,
                               unsigned argc) {
    char name[64];
    bool f32 = t == TIR_F32;
    if (width == 1) snprintf(name, sizeof name, "Sleef_%s%s_u10", fn_base, f32 ? "f" : "");
    else snprintf(name, sizeof name, "Sleef_%s%s%u_u10", fn_base, f32 ? "f" : "d", width);
    bool known = false;
    for (size_t i = 0; i < e->info->n_sleef; i++) known |= !strcmp(e->info->sleef[i], name);
    if (!known && e->info->n_sleef < SIMD_MAX_SLEEF) {
        char *copy = tilec_alloc(e->ctx, strlen(name) + 1);
        if (copy) {
            strcpy(copy, name);
            e->info->sleef[e->info->n_sleef++] = copy;
        }
    }
    LLVMTypeRef et = cg_scalar_type(&e->g, t), at = width == 1 ? et : LLVMVectorType(et, width);
    LLVMTypeRef params[2] = {at, at};
    LLVMTypeRef ft = LLVMFunctionType(at, params, argc, false);
    LLVMValueRef fn = LLVMGetNamedFunction(e->g.m, name);
    if (!fn) fn = LLVMAddFunction(e->g.m, name, ft);
    e->info->counters.math_calls++;
    return LLVMBuildCall2(e->g.b, ft, fn, x, argc, "");
}

static LLVMValueRef shuffle(emitter *e, LLVMValueRef a, LLVMValueRef b, unsigned first, unsigned count, unsigned clamp) {
    LLVMValueRef idx[32];
    for (unsigned k = 0; k < count; k++) idx[k] = cg_const_i32(&e->g, first + k < clamp ? first + k : 0);
    return LLVMBuildShuffleVector(e->g.b, a, b ? b : LLVMGetPoison(LLVMTypeOf(a)), LLVMConstVector(idx, count), "");
}

/* A SLEEF function of argc (1 or 2) operands (scalar/math_ops.h) at the
 * packet width: the widest SLEEF entry the host runs
 * (f32: 16 with AVX-512F, 8 with AVX2, else 4; f64 half), padded up from
 * narrower packets (W = 1 included), split for wider ones; uniform values
 * call the scalar entry once.  A varying <1 x T> argument is padded, not
 * extracted: LLVM 19's InstCombine scalarizes a loop PHI whose lane is
 * extracted with its update's operands swapped (`x - phi` became `phi - x`;
 * found by fuzz_diff, tests/fuzz/corpus/diff/w1-math-after-loop.tir). */
static LLVMValueRef sleef_math(emitter *e, const char *fn, tir_scalar t, LLVMValueRef *x, unsigned argc) {
    if (!cg_is_vec(x[0])) return sleef_call(e, fn, t, 1, x, argc);
    unsigned W = e->g.W, lanes_f32 = e->host->avx512f ? 16 : e->host->avx2 ? 8 : 4;
    unsigned maxw = t == TIR_F32 ? lanes_f32 : lanes_f32 / 2, minw = t == TIR_F32 ? 4 : 2;
    LLVMValueRef args[2];
    if (W < minw) {
        for (unsigned k = 0; k < argc; k++) args[k] = shuffle(e, x[k], NULL, 0, minw, W);
        return shuffle(e, sleef_call(e, fn, t, minw, args, argc), NULL, 0, W, minw);
    }
    unsigned chunk = W < maxw ? W : maxw, parts = W / chunk;
    if (parts == 1) return sleef_call(e, fn, t, W, x, argc);
    LLVMValueRef part[16];
    for (unsigned p = 0; p < parts; p++) {
        for (unsigned k = 0; k < argc; k++) args[k] = shuffle(e, x[k], NULL, p * chunk, chunk, W);
        part[p] = sleef_call(e, fn, t, chunk, args, argc);
    }
    for (unsigned width = chunk; parts > 1; width *= 2, parts /= 2)
        for (unsigned p = 0; p < parts / 2; p++) part[p] = shuffle(e, part[2 * p], part[2 * p + 1], 0, 2 * width, 2 * width);
    return part[0];
}

static LLVMValueRef sleef(cg_builder *g, const char *fn, tir_scalar t, LLVMValueRef *x, unsigned argc) {
    return sleef_math((emitter *)g, fn, t, x, argc);
}

/* SLEEF, with its lanes off at the range edges recomputed (codegen/math_edges.h). */
static LLVMValueRef math(cg_builder *g, const char *fn, tir_scalar t, LLVMValueRef *x, unsigned argc) {
    return cg_math_edges(g, sleef, fn, t, x, sleef(g, fn, t, x, argc));
}

static LLVMValueRef arith(emitter *e, const xir_inst *i) {
    bool vec = varying(e, &i->value);
    xir_arith_op op = i->op;
    if (op == XIR_OP_SELECT) {
        LLVMValueRef c = get(e, xir_operand(i, 0), varying(e, xir_operand(i, 0)));
        return cg_sel(&e->g, c, get(e, xir_operand(i, 1), vec), get(e, xir_operand(i, 2), vec));
    }
    tir_scalar t = xir_operand(i, 0)->type->scalar;
    /* the packet's ordinal: its first dispatch ordinal, divided */
    LLVMValueRef a = !vec && simd_packet_ordinal_div(i, e->g.W) ? e->base : get(e, xir_operand(i, 0), vec);
    LLVMValueRef b = xir_arith_arity(op) > 1 ? get(e, xir_operand(i, 1), vec) : NULL;
    LLVMValueRef c = xir_arith_arity(op) > 2 ? get(e, xir_operand(i, 2), vec) : NULL;
    return cg_arith(&e->g, op, t, a, b, c);
}



static LLVMValueRef cast(emitter *e, const xir_inst *i) {
    const xir_value *x = xir_operand(i, 0);
    bool vec = varying(e, &i->value);
    LLVMValueRef v = get(e, x, vec);
    tir_scalar from = x->type->scalar, to = i->value.type->scalar;
    LLVMTypeRef tt = cg_scalar_type(&e->g, to);
    if (vec) tt = cg_vec_of(&e->g, tt);
    if (i->kind == XIR_INST_BITCAST) return LLVMBuildBitCast(e->g.b, v, tt, "");
    return cg_convert(&e->g, from, to, v);
}


/* ---- memory ---- */


static LLVMValueRef masked_load(emitter *e, tir_scalar s, LLVMValueRef p, LLVMValueRef mask) {
    LLVMTypeRef vt = cg_vec_of(&e->g, cg_mem_type(&e->g, s)), types[2] = {vt, e->ptr};
    LLVMValueRef args[4] = {p, cg_const_i32(&e->g, cg_align_of(s)), mask, LLVMConstNull(vt)};
    return cg_intrinsic(&e->g, "llvm.masked.load", types, 2, args, 4);
}

static void masked_store(emitter *e, tir_scalar s, LLVMValueRef v, LLVMValueRef p, LLVMValueRef mask) {
    LLVMTypeRef types[2] = {LLVMTypeOf(v), e->ptr};
    LLVMValueRef args[4] = {v, p, cg_const_i32(&e->g, cg_align_of(s)), mask};
    cg_intrinsic(&e->g, "llvm.masked.store", types, 2, args, 4);
}

static LLVMValueRef gather(emitter *e, tir_scalar s, LLVMValueRef ptrs, LLVMValueRef mask) {
    LLVMTypeRef vt = cg_vec_of(&e->g, cg_mem_type(&e->g, s)), types[2] = {vt, cg_vec_of(&e->g, e->ptr)};
    LLVMValueRef args[4] = {ptrs, cg_const_i32(&e->g, cg_align_of(s)), mask, LLVMConstNull(vt)};
    return cg_intrinsic(&e->g, "llvm.masked.gather", types, 2, args, 4);
}

static void scatter(emitter *e, tir_scalar s, LLVMValueRef v, LLVMValueRef ptrs, LLVMValueRef mask) {
    LLVMTypeRef types[2] = {LLVMTypeOf(v), cg_vec_of(&e->g, e->ptr)};
    LLVMValueRef args[4] = {v, ptrs, cg_const_i32(&e->g, cg_align_of(s)), mask};
    cg_intrinsic(&e->g, "llvm.masked.scatter", types, 2, args, 4);
}

static LLVMValueRef plain_load(emitter *e, tir_scalar s, LLVMTypeRef t, LLVMValueRef p) {
    LLVMValueRef l = LLVMBuildLoad2(e->g.b, t, p, "");
    LLVMSetAlignment(l, cg_align_of(s));
    return l;
}

static void plain_store(emitter *e, tir_scalar s, LLVMValueRef v, LLVMValueRef p) {
    LLVMSetAlignment(LLVMBuildStore(e->g.b, v, p), cg_align_of(s));
}

/* An index as i64 (sign- or zero-extended as its type says). */
static LLVMValueRef index64(emitter *e, const xir_value *idx, bool vector) {
    LLVMValueRef v = get(e, idx, vector);
    LLVMTypeRef t = vector ? cg_vec_of(&e->g, e->g.i64) : e->g.i64;
    return LLVMBuildIntCast2(e->g.b, v, t, tir_scalar_is_signed(idx->type->scalar), "");
}

/* A scalar load done only when some lane of `mask` is active (NULL mask:
 * always); 0 otherwise. */
static LLVMValueRef guarded_scalar_load(emitter *e, tir_scalar s, LLVMValueRef p, LLVMValueRef mask) {
    LLVMTypeRef t = cg_mem_type(&e->g, s);
    if (!mask) return plain_load(e, s, t, p);
    LLVMBasicBlockRef from = LLVMGetInsertBlock(e->g.b);
    LLVMBasicBlockRef then = LLVMAppendBasicBlockInContext(e->g.c, e->body, "guarded_load");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->g.c, e->body, "guarded_done");
    LLVMBuildCondBr(e->g.b, any_lane(e, mask), then, done);
    LLVMPositionBuilderAtEnd(e->g.b, then);
    LLVMValueRef l = plain_load(e, s, t, p);
    LLVMBuildBr(e->g.b, done);
    LLVMPositionBuilderAtEnd(e->g.b, done);
    LLVMValueRef phi = LLVMBuildPhi(e->g.b, t, "");
    LLVMValueRef vals[2] = {l, LLVMConstNull(t)};
    LLVMBasicBlockRef blocks[2] = {then, from};
    LLVMAddIncoming(phi, vals, blocks, 2);
    return phi;
}

static LLVMValueRef lane_pointers(emitter *e, LLVMTypeRef t, LLVMValueRef base, LLVMValueRef idx64, LLVMValueRef mask) {
    LLVMValueRef safe = cg_sel(&e->g, mask, idx64, LLVMConstNull(LLVMTypeOf(idx64)));
    return LLVMBuildGEP2(e->g.b, t, cg_splat(&e->g, base), &safe, 1, "");
}

/* Pairs: the packet's elements are every other element of the 2W-element
 * span at p (lane l at p + 2l).  Half h of the span is a W-element vector
 * whose even positions belong to lanes h·W/2 + j/2; its mask enables just
 * those of active lanes, so no other element is touched. */
static LLVMValueRef half_mask(emitter *e, LLVMValueRef mask, unsigned h) {
    LLVMValueRef idx[32];
    for (unsigned j = 0; j < e->g.W; j++) idx[j] = cg_const_i32(&e->g, j % 2 ? e->g.W : h * e->g.W / 2 + j / 2);
    return LLVMBuildShuffleVector(e->g.b, mask, LLVMConstNull(LLVMTypeOf(mask)), LLVMConstVector(idx, e->g.W), "");
}

static LLVMValueRef half_pointer(emitter *e, LLVMTypeRef t, LLVMValueRef p, unsigned h) {
    LLVMValueRef off = cg_const_i64(&e->g, h * e->g.W);
    return h ? LLVMBuildGEP2(e->g.b, t, p, &off, 1, "") : p;
}

/* With every lane active (the all-active body outside predicated blocks)
 * the span's elements 0..2W-2 are all inside the buffer: two plain loads,
 * at p and p + W - 1 (masked loads ran 5x slower on Zen). */
static LLVMValueRef pair_load(emitter *e, const xir_inst *i, tir_scalar s, LLVMTypeRef t, LLVMValueRef p,
                              LLVMValueRef mask) {
    LLVMValueRef half[2], idx[32];
    bool all = e->full && !e->predicated[i->parent->id];
    LLVMValueRef shifted = cg_const_i64(&e->g, e->g.W - 1);
    for (unsigned h = 0; h < 2; h++)
        half[h] = !all ? masked_load(e, s, half_pointer(e, t, p, h), half_mask(e, mask, h))
                       : plain_load(e, s, cg_vec_of(&e->g, t), h ? LLVMBuildGEP2(e->g.b, t, p, &shifted, 1, "") : p);
    /* lane l is span element 2l: in the second half (at W-1 when all) past W-1 */
    for (unsigned l = 0; l < e->g.W; l++) idx[l] = cg_const_i32(&e->g, all && 2 * l >= e->g.W ? 2 * l + 1 : 2 * l);
    e->info->counters.pair_loads++;
    return LLVMBuildShuffleVector(e->g.b, half[0], half[1], LLVMConstVector(idx, e->g.W), "");
}

/* With every lane active: W scalar stores (AVX2 masked stores, microcoded
 * on AMD, ran 5x slower than a contiguous store); otherwise two masked
 * stores of the lanes spread over the span's halves. */
static void pair_store(emitter *e, const xir_inst *i, tir_scalar s, LLVMTypeRef t, LLVMValueRef v, LLVMValueRef p,
                       LLVMValueRef mask) {
    e->info->counters.pair_stores++;
    if (e->full && !e->predicated[i->parent->id]) {
        for (unsigned l = 0; l < e->g.W; l++) {
            LLVMValueRef at = cg_const_i64(&e->g, 2 * l);
            LLVMValueRef lane = LLVMBuildExtractElement(e->g.b, v, cg_const_i32(&e->g, l), "");
            plain_store(e, s, lane, LLVMBuildGEP2(e->g.b, t, p, &at, 1, ""));
        }
        return;
    }
    for (unsigned h = 0; h < 2; h++) {
        LLVMValueRef idx[32];
        for (unsigned j = 0; j < e->g.W; j++) idx[j] = cg_const_i32(&e->g, h * e->g.W / 2 + j / 2);
        LLVMValueRef spread =
            LLVMBuildShuffleVector(e->g.b, v, LLVMGetPoison(LLVMTypeOf(v)), LLVMConstVector(idx, e->g.W), "");
        masked_store(e, s, spread, half_pointer(e, t, p, h), half_mask(e, mask, h));
    }
}

/* Write a, moved down to its partner b (simd_pair_partner: b's index is
 * a's ± 1) and emitted here with it: the even and odd elements interleaved
 * into the span's two contiguous halves, plain stores when every lane is
 * active, else masked by the lane mask doubled. */
static void joined_pair_store(emitter *e, const xir_inst *a, const xir_inst *b, tir_scalar s, LLVMTypeRef t,
                              LLVMValueRef base, LLVMValueRef mask) {
    bool a_even = e->pair_sign[b->value.id] > 0;
    const xir_inst *even = a_even ? a : b, *odd = a_even ? b : a;
    LLVMValueRef first = LLVMBuildExtractElement(e->g.b, index64(e, xir_operand(even, 1), true), cg_const_i32(&e->g, 0), "");
    LLVMValueRef ve = cg_to_mem(&e->g, s, get(e, xir_operand(even, 2), true));
    LLVMValueRef vo = cg_to_mem(&e->g, s, get(e, xir_operand(odd, 2), true));
    LLVMValueRef p = LLVMBuildGEP2(e->g.b, t, base, &first, 1, "");
    bool all = e->full && !e->predicated[b->parent->id];
    for (unsigned h = 0; h < 2; h++) {
        LLVMValueRef idx[32], lanes[32];
        for (unsigned j = 0; j < e->g.W; j++) {
            lanes[j] = cg_const_i32(&e->g, h * e->g.W / 2 + j / 2);
            idx[j] = cg_const_i32(&e->g, (j % 2 ? e->g.W : 0) + h * e->g.W / 2 + j / 2);
        }
        LLVMValueRef v = LLVMBuildShuffleVector(e->g.b, ve, vo, LLVMConstVector(idx, e->g.W), "");
        LLVMValueRef q = half_pointer(e, t, p, h);
        if (all) plain_store(e, s, v, q);
        else
            masked_store(e, s, v, q,
                         LLVMBuildShuffleVector(e->g.b, mask, LLVMGetPoison(LLVMTypeOf(mask)), LLVMConstVector(lanes, e->g.W), ""));
    }
    e->info->counters.joined_pair_stores++;
}

static LLVMValueRef buffer_read(emitter *e, const xir_inst *i) {
    tir_scalar s = i->value.type->scalar;
    const xir_value *idx = xir_operand(i, 1);
    LLVMValueRef base = get(e, xir_operand(i, 0), false), mask = block_mask(e, i->parent);
    LLVMTypeRef t = cg_mem_type(&e->g, s);
    unsigned facts = facts_of(e, idx);
    bool pred = e->predicated[i->parent->id];
    if (!varying(e, &i->value) || (facts & LANE_EQUAL)) {
        LLVMValueRef k = varying(e, idx) ? LLVMBuildExtractElement(e->g.b, index64(e, idx, true), cg_const_i32(&e->g, 0), "")
                                         : index64(e, idx, false);
        LLVMValueRef p = LLVMBuildGEP2(e->g.b, t, base, &k, 1, "");
        e->info->counters.broadcast_loads++;
        LLVMValueRef v = cg_from_mem(&e->g, s, guarded_scalar_load(e, s, p, pred ? mask : NULL));
        return varying(e, &i->value) ? cg_splat(&e->g, v) : v;
    }
    LLVMValueRef k = index64(e, idx, true);
    if (facts & LANE_CONSEC) {
        LLVMValueRef first = LLVMBuildExtractElement(e->g.b, k, cg_const_i32(&e->g, 0), "");
        e->info->counters.contiguous_loads++;
        return cg_from_mem(&e->g, s, masked_load(e, s, LLVMBuildGEP2(e->g.b, t, base, &first, 1, ""), mask));
    }
    if (facts & LANE_PAIRS) {
        LLVMValueRef first = LLVMBuildExtractElement(e->g.b, k, cg_const_i32(&e->g, 0), "");
        return cg_from_mem(&e->g, s, pair_load(e, i, s, t, LLVMBuildGEP2(e->g.b, t, base, &first, 1, ""), mask));
    }
    e->info->counters.gathers++;
    return cg_from_mem(&e->g, s, gather(e, s, lane_pointers(e, t, base, k, mask), mask));
}

/* Whether a contiguous store may bypass the caches: its argument is
 * marked streaming, every lane stores (the all-active body, outside any
 * predicated block), and the packet is a whole 16-, 32- or 64-byte vector. */
static bool streaming(emitter *e, const xir_inst *i) {
    const xir_value *buf = xir_operand(i, 0);
    uint64_t bytes = (uint64_t)e->g.W * tir_scalar_size(xir_operand(i, 2)->type->scalar);
    return buf->kind == XIR_VALUE_ARG && buf->arg_index < 64 && (e->streaming_args >> buf->arg_index & 1) && e->full &&
           !e->predicated[i->parent->id] && (bytes == 16 || bytes == 32 || bytes == 64);
}

/* A non-temporal store of the packet with alignment `align`. */
static void nontemporal_store(emitter *e, LLVMValueRef v, LLVMValueRef p, unsigned align) {
    LLVMValueRef st = LLVMBuildStore(e->g.b, v, p), one = LLVMConstInt(e->g.i32, 1, false);
    LLVMSetAlignment(st, align);
    LLVMSetMetadata(st, LLVMGetMDKindIDInContext(e->g.c, "nontemporal", 11), LLVMMDNodeInContext(e->g.c, &one, 1));
}

/* A non-temporal store of the whole packet: where its address is 16-byte
 * aligned as 16-byte vectors (vmovntps: 2 or 4 for a wider packet, as fast
 * — the write-combining buffers collect whole lines either way); where it
 * is 8-byte aligned, on a host with SSE4A (AMD), as 8-byte pieces
 * (movntsd: a row whose start is 8 bytes off streams too); else a plain
 * store (4-byte pieces straddling lines in several streams at once, like
 * rope's second half of a 4098-wide row, ran 5× slower than cached).  The
 * entry ends with a fence so the pool's completion publishes them. */
static void streaming_store(emitter *e, tir_scalar s, LLVMValueRef v, LLVMValueRef p) {
    LLVMValueRef address = LLVMBuildPtrToInt(e->g.b, p, e->g.i64, "");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->g.c, e->body, "stored");
    /* 16-byte aligned, else (SSE4A) 8-byte aligned: each a non-temporal store */
    for (unsigned align = 16; align >= 8; align /= 2) {
        if (align == 8 && !e->host->sse4a) break;
        LLVMValueRef low = LLVMBuildAnd(e->g.b, address, cg_const_i64(&e->g, align - 1), "");
        LLVMBasicBlockRef nt = LLVMAppendBasicBlockInContext(e->g.c, e->body, "streaming_store");
        LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(e->g.c, e->body, "not_aligned");
        LLVMBuildCondBr(e->g.b, LLVMBuildICmp(e->g.b, LLVMIntEQ, low, cg_const_i64(&e->g, 0), ""), nt, next);
        LLVMPositionBuilderAtEnd(e->g.b, nt);
        nontemporal_store(e, v, p, align);
        LLVMBuildBr(e->g.b, done);
        LLVMPositionBuilderAtEnd(e->g.b, next);
    }
    plain_store(e, s, v, p);
    LLVMBuildBr(e->g.b, done);
    LLVMPositionBuilderAtEnd(e->g.b, done);
    e->info->counters.streaming_stores++;
}

static void buffer_write(emitter *e, const xir_inst *i) {
    const xir_value *idx = xir_operand(i, 1), *value = xir_operand(i, 2);
    tir_scalar s = value->type->scalar;
    LLVMValueRef base = get(e, xir_operand(i, 0), false), mask = block_mask(e, i->parent);
    LLVMTypeRef t = cg_mem_type(&e->g, s);
    if (e->paired[i->value.id]) {
        joined_pair_store(e, e->paired[i->value.id], i, s, t, base, mask);
        return;
    }
    unsigned facts = facts_of(e, idx);
    if (!varying(e, idx) && !varying(e, value) && !e->predicated[i->parent->id]) {
        LLVMValueRef k = index64(e, idx, false);
        e->info->counters.uniform_stores++;
        plain_store(e, s, cg_to_mem(&e->g, s, get(e, value, false)), LLVMBuildGEP2(e->g.b, t, base, &k, 1, ""));
        return;
    }
    LLVMValueRef v = cg_to_mem(&e->g, s, get(e, value, true)), k = index64(e, idx, true);
    if (facts & LANE_CONSEC) {
        LLVMValueRef first = LLVMBuildExtractElement(e->g.b, k, cg_const_i32(&e->g, 0), "");
        LLVMValueRef p = LLVMBuildGEP2(e->g.b, t, base, &first, 1, "");
        e->info->counters.contiguous_stores++;
        if (streaming(e, i)) streaming_store(e, s, v, p);
        else masked_store(e, s, v, p, mask);
        return;
    }
    if (facts & LANE_PAIRS) {
        int sign;
        const xir_inst *partner = simd_pair_partner(i, e->g.W, e->apart_args, &sign);
        if (partner && !e->paired[partner->value.id]) { /* emitted with its partner, joined_pair_store */
            e->paired[partner->value.id] = i;
            e->pair_sign[partner->value.id] = (signed char)sign;
            return;
        }
        LLVMValueRef first = LLVMBuildExtractElement(e->g.b, k, cg_const_i32(&e->g, 0), "");
        pair_store(e, i, s, t, v, LLVMBuildGEP2(e->g.b, t, base, &first, 1, ""), mask);
        return;
    }
    e->info->counters.scatters++;
    scatter(e, s, v, lane_pointers(e, t, base, k, mask), mask);
}

/* A bounds fault (base/fault.h): when some lane of the block mask executes
 * it, the first such lane's site and value are reported; the count is
 * incremented atomically and only the fault that raised it from 0 writes
 * site and value.  The report sits behind a branch: no cost but the mask
 * test when nothing faults. */
static void fault(emitter *e, const xir_inst *i) {
    const xir_value *site = xir_operand(i, 0), *value = xir_operand(i, 1);
    LLVMValueRef mask = block_mask(e, i->parent);
    LLVMTypeRef bits_t = LLVMIntTypeInContext(e->g.c, e->g.W);
    LLVMValueRef bits = LLVMBuildZExt(e->g.b, LLVMBuildBitCast(e->g.b, mask, bits_t, ""), e->g.i32, "");
    LLVMBasicBlockRef report = LLVMAppendBasicBlockInContext(e->g.c, e->body, "fault");
    LLVMBasicBlockRef first = LLVMAppendBasicBlockInContext(e->g.c, e->body, "fault_first");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->g.c, e->body, "fault_done");
    LLVMBuildCondBr(e->g.b, LLVMBuildICmp(e->g.b, LLVMIntNE, bits, cg_const_i32(&e->g, 0), ""), report, done);
    LLVMPositionBuilderAtEnd(e->g.b, report);
    LLVMTypeRef t32 = e->g.i32;
    LLVMValueRef cttz_args[2] = {bits, LLVMConstInt(e->g.i1, 1, false)};
    LLVMValueRef lane = cg_intrinsic(&e->g, "llvm.cttz", &t32, 1, cttz_args, 2);
    LLVMValueRef s = varying(e, site) ? LLVMBuildExtractElement(e->g.b, get(e, site, true), lane, "") : get(e, site, false);
    LLVMValueRef v = varying(e, value) ? LLVMBuildExtractElement(e->g.b, get(e, value, true), lane, "") : get(e, value, false);
    LLVMValueRef old = LLVMBuildAtomicRMW(e->g.b, LLVMAtomicRMWBinOpAdd, e->faults, cg_const_i64(&e->g, 1),
                                          LLVMAtomicOrderingMonotonic, false);
    LLVMBuildCondBr(e->g.b, LLVMBuildICmp(e->g.b, LLVMIntEQ, old, cg_const_i64(&e->g, 0), ""), first, done);
    LLVMPositionBuilderAtEnd(e->g.b, first);
    LLVMValueRef at_value = cg_const_i64(&e->g, FAULT_RECORD_VALUE_OFFSET), at_site = cg_const_i64(&e->g, FAULT_RECORD_SITE_OFFSET);
    LLVMBuildStore(e->g.b, v, LLVMBuildGEP2(e->g.b, e->g.i8, e->faults, &at_value, 1, ""));
    LLVMBuildStore(e->g.b, s, LLVMBuildGEP2(e->g.b, e->g.i8, e->faults, &at_site, 1, ""));
    LLVMBuildBr(e->g.b, done);
    LLVMPositionBuilderAtEnd(e->g.b, done);
}

/* The private slot of a gep: its array's stack allocation and the i64 index. */
static void private_slot(emitter *e, const xir_value *ptr, LLVMValueRef *array, LLVMValueRef *index, bool *uniform) {
    const xir_inst *g = xir_value_inst((xir_value *)ptr);
    *array = e->val[xir_operand(g, 0)->id];
    *uniform = !varying(e, ptr);
    *index = e->val[g->value.id];
}

/* Element pointers of the lanes for a varying slot index: q·W + lane. */
static LLVMValueRef private_pointers(emitter *e, LLVMTypeRef t, LLVMValueRef array, LLVMValueRef q, LLVMValueRef mask) {
    LLVMValueRef safe = cg_sel(&e->g, mask, q, LLVMConstNull(LLVMTypeOf(q)));
    LLVMValueRef off = LLVMBuildAdd(e->g.b, LLVMBuildMul(e->g.b, safe, cg_splat(&e->g, cg_const_i64(&e->g, e->g.W)), ""), e->lane64, "");
    return LLVMBuildGEP2(e->g.b, t, cg_splat(&e->g, array), &off, 1, "");
}

static LLVMValueRef private_load(emitter *e, const xir_inst *i) {
    tir_scalar s = i->value.type->scalar;
    LLVMTypeRef t = cg_mem_type(&e->g, s);
    LLVMValueRef array, q, mask = block_mask(e, i->parent);
    bool uniform;
    private_slot(e, xir_operand(i, 0), &array, &q, &uniform);
    if (uniform) {
        LLVMValueRef off = LLVMBuildMul(e->g.b, q, cg_const_i64(&e->g, e->g.W), "");
        LLVMValueRef p = LLVMBuildGEP2(e->g.b, t, array, &off, 1, "");
        e->info->counters.private_vector_accesses++;
        if (e->predicated[i->parent->id]) return cg_from_mem(&e->g, s, masked_load(e, s, p, mask));
        return cg_from_mem(&e->g, s, plain_load(e, s, cg_vec_of(&e->g, t), p));
    }
    e->info->counters.private_gather_scatters++;
    return cg_from_mem(&e->g, s, gather(e, s, private_pointers(e, t, array, q, mask), mask));
}

static void private_store(emitter *e, const xir_inst *i) {
    const xir_value *value = xir_operand(i, 1);
    tir_scalar s = value->type->scalar;
    LLVMTypeRef t = cg_mem_type(&e->g, s);
    LLVMValueRef array, q, mask = block_mask(e, i->parent), v = cg_to_mem(&e->g, s, get(e, value, true));
    bool uniform;
    private_slot(e, xir_operand(i, 0), &array, &q, &uniform);
    if (uniform) {
        LLVMValueRef off = LLVMBuildMul(e->g.b, q, cg_const_i64(&e->g, e->g.W), "");
        LLVMValueRef p = LLVMBuildGEP2(e->g.b, t, array, &off, 1, "");
        e->info->counters.private_vector_accesses++;
        if (e->predicated[i->parent->id]) masked_store(e, s, v, p, mask);
        else plain_store(e, s, v, p);
        return;
    }
    e->info->counters.private_gather_scatters++;
    scatter(e, s, v, private_pointers(e, t, array, q, mask), mask);
}

static LLVMValueRef read_lane(emitter *e, const xir_inst *i) {
    const xir_value *value = xir_operand(i, 0), *lane = xir_operand(i, 1);
    if (!varying(e, value)) return get(e, value, false);
    LLVMValueRef v = get(e, value, true), wrap = cg_const_i32(&e->g, e->g.W - 1);
    bool vl = varying(e, lane);
    LLVMValueRef l = LLVMBuildIntCast2(e->g.b, get(e, lane, vl), vl ? cg_vec_of(&e->g, e->g.i32) : e->g.i32, false, "");
    if (vl) wrap = cg_splat(&e->g, wrap);
    if (!vl) return LLVMBuildExtractElement(e->g.b, v, LLVMBuildAnd(e->g.b, l, wrap, ""), "");
    LLVMValueRef r = LLVMGetPoison(LLVMTypeOf(v));
    for (uint32_t k = 0; k < e->g.W; k++) {
        LLVMValueRef src = LLVMBuildExtractElement(e->g.b, LLVMBuildAnd(e->g.b, l, wrap, ""), cg_const_i32(&e->g, k), "");
        r = LLVMBuildInsertElement(e->g.b, r, LLVMBuildExtractElement(e->g.b, v, src, ""), cg_const_i32(&e->g, k), "");
    }
    return r;
}

/* ---- control flow ---- */

static LLVMTypeRef value_type(emitter *e, const xir_value *v) {
    LLVMTypeRef t = cg_scalar_type(&e->g, v->type->scalar);
    return varying(e, v) ? cg_vec_of(&e->g, t) : t;
}

/* The mask of the edge pred → b (both arms when they coincide). */
static LLVMValueRef edge_mask(emitter *e, const xir_block *pred, const xir_block *b) {
    xir_block *succ[2];
    unsigned n = xir_block_successors(pred, succ);
    LLVMValueRef m = NULL;
    for (unsigned k = 0; k < n; k++)
        if (succ[k] == b) m = m ? LLVMBuildOr(e->g.b, m, e->edge[pred->id][k], "") : e->edge[pred->id][k];
    return m;
}

/* PHIs of a predicated block or a region join: selects on the edge masks.
 * Every incoming value is read before any result is defined. */
static void phi_selects(emitter *e, const xir_block *b) {
    for (const xir_inst *i = b->first; i && i->kind == XIR_INST_PHI; i = i->next) {
        bool vec = varying(e, &i->value);
        LLVMValueRef r = get(e, xir_operand(i, 0), vec);
        for (uint32_t k = 1; k < i->operand_count; k++)
            r = cg_sel(&e->g, edge_mask(e, i->incoming[k], b), get(e, xir_operand(i, k), vec), r);
        e->val[i->value.id] = r;
    }
}

static void set_edges(emitter *e, const xir_block *b, const xir_inst *t, LLVMValueRef mask) {
    if (t->kind == XIR_INST_BR) {
        e->edge[b->id][0] = mask;
    } else if (t->kind == XIR_INST_COND_BR) {
        LLVMValueRef c = get(e, xir_operand(t, 0), true);
        e->edge[b->id][0] = LLVMBuildAnd(e->g.b, mask, c, "");
        e->edge[b->id][1] = LLVMBuildAnd(e->g.b, mask, LLVMBuildNot(e->g.b, c, ""), "");
    }
}

/* A varying branch at top-level block x: validate its region and chain it. */
static tilec_status start_region(emitter *e, const xir_block *x) {
    const simd_analysis *an = e->an;
    bool cycle;
    uint32_t p = simd_region(an, x, e->region, &cycle);
    char label[64];
    snprintf(label, sizeof label, "%s", x->name ? x->name : "(unnamed)");
    if (cycle)
        return fail(e, TILEC_E_UNSUPPORTED, "SIMD-U01",
                    "the loop at block '%s' exits on a varying condition (loops need uniform trip counts)%s", label, "");
    if (p == XIR_CFG_NONE)
        return fail(e, TILEC_E_UNSUPPORTED, "SIMD-U04", "the varying branch in block '%s' does not reconverge before a return%s",
                    label, "");
    const xir_cfg *cfg = &an->cfg;
    uint32_t prev = x->id, count = 0;
    for (uint32_t k = 0; k < cfg->rpo_count; k++) {
        const xir_block *b = cfg->rpo[k];
        bool inside = e->region[b->id];
        if (!inside && b->id != p) continue;
        for (uint32_t q = 0; q < xir_cfg_pred_count(cfg, b); q++) {
            const xir_block *pb = xir_cfg_preds(cfg, b)[q];
            if (!xir_cfg_reachable(cfg, pb)) continue;
            if (pb != x && !e->region[pb->id])
                return fail(e, TILEC_E_UNSUPPORTED, "SIMD-U03",
                            "the region of the varying branch in block '%s' is entered from outside at block '%s'", label,
                            b->name ? b->name : "(unnamed)");
            if (cfg->rpo_index[pb->id] >= cfg->rpo_index[b->id])
                return fail(e, TILEC_E_UNSUPPORTED, "SIMD-U02",
                            "a loop inside the varying branch of block '%s' (at block '%s') is not supported", label,
                            b->name ? b->name : "(unnamed)");
        }
        if (!inside) continue;
        e->predicated[b->id] = 1;
        e->next_linear[prev] = b->id;
        prev = b->id;
        count++;
    }
    e->next_linear[prev] = p;
    e->join[p] = 1;
    e->info->counters.predicated_regions++;
    (void)count;
    return TILEC_OK;
}

static void emit_terminator(emitter *e, const xir_block *b, const xir_inst *t) {
    if (t->kind == XIR_INST_RET) {
        LLVMBuildRetVoid(e->g.b);
        return;
    }
    if (e->predicated[b->id]) {
        set_edges(e, b, t, e->mask[b->id]);
        LLVMBuildBr(e->g.b, e->entry_bb[e->next_linear[b->id]]);
        return;
    }
    if (t->kind == XIR_INST_BR) {
        LLVMBuildBr(e->g.b, e->entry_bb[t->targets[0]->id]);
        return;
    }
    if (varying(e, xir_operand(t, 0)) && e->g.W == 1) { /* one lane: its own branch (stores keep the tail mask) */
        LLVMValueRef c = LLVMBuildExtractElement(e->g.b, get(e, xir_operand(t, 0), false), cg_const_i32(&e->g, 0), "");
        LLVMBuildCondBr(e->g.b, c, e->entry_bb[t->targets[0]->id], e->entry_bb[t->targets[1]->id]);
        return;
    }
    if (varying(e, xir_operand(t, 0))) {
        if (start_region(e, b)) return;
        set_edges(e, b, t, e->tail_mask);
        LLVMBuildBr(e->g.b, e->entry_bb[e->next_linear[b->id]]);
        return;
    }
    if (t->targets[0] == t->targets[1]) LLVMBuildBr(e->g.b, e->entry_bb[t->targets[0]->id]);
    else LLVMBuildCondBr(e->g.b, get(e, xir_operand(t, 0), false), e->entry_bb[t->targets[0]->id], e->entry_bb[t->targets[1]->id]);
}

static void emit_inst(emitter *e, const xir_inst *i) {
    LLVMValueRef r = NULL;
    switch (i->kind) {
    case XIR_INST_ARITH: r = arith(e, i); break;
    case XIR_INST_CAST:
    case XIR_INST_BITCAST: r = cast(e, i); break;
    case XIR_INST_PHI:
        if (!e->predicated[i->parent->id] && !e->join[i->parent->id]) r = LLVMBuildPhi(e->g.b, value_type(e, &i->value), "");
        break;
    case XIR_INST_ALLOCA: break; /* placed in the entry block up front */
    case XIR_INST_GEP: r = index64(e, xir_operand(i, 1), varying(e, &i->value)); break;
    case XIR_INST_LOAD: r = private_load(e, i); break;
    case XIR_INST_STORE: private_store(e, i); break;
    case XIR_INST_BUFFER_READ: r = buffer_read(e, i); break;
    case XIR_INST_BUFFER_WRITE: buffer_write(e, i); break;
    case XIR_INST_FAULT: fault(e, i); break;
    case XIR_INST_BUFFER_ADDRESS: r = LLVMBuildPtrToInt(e->g.b, get(e, xir_operand(i, 0), false), e->g.i64, ""); break;
    case XIR_INST_WARP_READ_LANE: r = read_lane(e, i); break;
    case XIR_INST_WARP_SYNC: break; /* a packet's lanes run each instruction together */
    default: break;
    }
    if (r) e->val[i->value.id] = r;
    if (i->value.type->kind == XIR_TYPE_SCALAR) e->facts[i->value.id] = (unsigned char)inst_facts(e, i);
}

/* Is a predicated block worth skipping when no lane enters it: it touches
 * memory or calls the math library, or divides (an integer division of a
 * skipped operand must not run on a placeholder). */
static bool skippable(const xir_block *b) {
    for (const xir_inst *i = b->first; i; i = i->next) {
        switch (i->kind) {
        case XIR_INST_LOAD: case XIR_INST_STORE: case XIR_INST_BUFFER_READ: case XIR_INST_BUFFER_WRITE:
        case XIR_INST_WARP_READ_LANE: case XIR_INST_FAULT: return true;
        case XIR_INST_ARITH:
            switch (i->op) {
#define CALL(op_, dbl, flt, stem) case XIR_OP_##op_:
            TIR_SLEEF_MATH1(CALL) TIR_SLEEF_MATH2(CALL)
#undef CALL
            case XIR_OP_SQRT: case XIR_OP_DIV: case XIR_OP_MOD:
                return true;
            default: break;
            }
            break;
        default: break;
        }
    }
    return false;
}

/* The body of a skippable predicated block runs only when some lane enters
 * it; its results join as zero when it is skipped (every later reader is
 * then masked off: a block it dominates has no lane either, and the region
 * join selects on the all-false edge mask). */
static void emit_skippable_body(emitter *e, const xir_block *b) {
    LLVMBasicBlockRef from = LLVMGetInsertBlock(e->g.b);
    LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(e->g.c, e->body, "some_lane");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->g.c, e->body, "skipped");
    LLVMBuildCondBr(e->g.b, any_lane(e, e->mask[b->id]), run, done);
    LLVMPositionBuilderAtEnd(e->g.b, run);
    const xir_inst *i = b->first;
    for (; i && !e->status && !xir_inst_is_terminator(i); i = i->next)
        emit_inst(e, i); /* a PHI here is already a select (phi_selects) */
    LLVMBasicBlockRef run_end = LLVMGetInsertBlock(e->g.b);
    LLVMBuildBr(e->g.b, done);
    LLVMPositionBuilderAtEnd(e->g.b, done);
    for (const xir_inst *d = b->first; d != i && !e->status; d = d->next) {
        LLVMValueRef v = d->kind == XIR_INST_PHI ? NULL : e->val[d->value.id];
        if (!v || d->value.type->kind != XIR_TYPE_SCALAR) continue;
        LLVMValueRef phi = LLVMBuildPhi(e->g.b, LLVMTypeOf(v), "");
        LLVMValueRef vals[2] = {v, LLVMConstNull(LLVMTypeOf(v))};
        LLVMBasicBlockRef blocks[2] = {run_end, from};
        LLVMAddIncoming(phi, vals, blocks, 2);
        e->val[d->value.id] = phi;
    }
    if (i && !e->status) emit_terminator(e, b, i);
}

static void emit_block(emitter *e, const xir_block *b) {
    LLVMPositionBuilderAtEnd(e->g.b, e->entry_bb[b->id]);
    if (e->predicated[b->id]) {
        const xir_cfg *cfg = &e->an->cfg;
        LLVMValueRef m = NULL;
        for (uint32_t q = 0; q < xir_cfg_pred_count(cfg, b); q++) {
            LLVMValueRef em = edge_mask(e, xir_cfg_preds(cfg, b)[q], b);
            m = m ? LLVMBuildOr(e->g.b, m, em, "") : em;
        }
        e->mask[b->id] = m;
    }
    if (e->predicated[b->id] || e->join[b->id]) phi_selects(e, b);
    if (e->predicated[b->id] && skippable(b)) {
        e->info->counters.skippable_blocks++;
        emit_skippable_body(e, b);
    } else {
        for (const xir_inst *i = b->first; i && !e->status; i = i->next) {
            if (xir_inst_is_terminator(i)) emit_terminator(e, b, i);
            else emit_inst(e, i);
        }
    }
    e->exit_bb[b->id] = LLVMGetInsertBlock(e->g.b);
}

/* Incoming values of the LLVM PHIs of top-level blocks, converted at the
 * end of each predecessor. */
static void fill_phis(emitter *e) {
    const xir_cfg *cfg = &e->an->cfg;
    for (uint32_t k = 0; k < cfg->rpo_count; k++) {
        const xir_block *b = cfg->rpo[k];
        if (e->predicated[b->id] || e->join[b->id]) continue;
        for (const xir_inst *i = b->first; i && i->kind == XIR_INST_PHI; i = i->next) {
            for (uint32_t q = 0; q < i->operand_count; q++) {
                const xir_block *from = i->incoming[q];
                if (!xir_cfg_reachable(cfg, from)) continue;
                LLVMBasicBlockRef bb = e->exit_bb[from->id];
                LLVMPositionBuilderBefore(e->g.b, LLVMGetBasicBlockTerminator(bb));
                LLVMValueRef v = get(e, xir_operand(i, q), varying(e, &i->value));
                LLVMAddIncoming(e->val[i->value.id], &v, &bb, 1);
            }
        }
    }
}

/* Storage of the private arrays (interleaved, W copies each): stack
 * allocations while the packet needs at most 64 KiB, else 64-byte aligned
 * slices of the caller's per-thread workspace (at most 16 MiB). */
static tilec_status place_allocas(emitter *e) {
    uint64_t total = 0;
    for (const xir_block *b = e->f->first; b; b = b->next)
        for (const xir_inst *i = b->first; i; i = i->next)
            if (i->kind == XIR_INST_ALLOCA)
                total += (i->alloca_type->count * e->g.W * tir_scalar_size(i->alloca_type->scalar) + 63) / 64 * 64;
    bool stack = total <= SIMD_STACK_LIMIT;
    if (total > SIMD_WORKSPACE_LIMIT) {
        char bytes[32];
        snprintf(bytes, sizeof bytes, "%llu", (unsigned long long)total);
        return fail(e, TILEC_E_BUDGET, "SIMD-M01",
                    "private arrays need %s bytes per packet, which exceeds the workspace limit 16777216%s", bytes, "");
    }
    uint64_t offset = 0;
    for (const xir_block *b = e->f->first; b; b = b->next)
        for (const xir_inst *i = b->first; i; i = i->next) {
            if (i->kind != XIR_INST_ALLOCA) continue;
            tir_scalar s = i->alloca_type->scalar;
            uint64_t n = i->alloca_type->count * e->g.W;
            LLVMValueRef a;
            if (stack) {
                a = LLVMBuildAlloca(e->g.b, LLVMArrayType2(cg_mem_type(&e->g, s), n), "private");
                LLVMSetAlignment(a, 64);
            } else {
                LLVMValueRef at = cg_const_i64(&e->g, offset);
                a = LLVMBuildGEP2(e->g.b, e->g.i8, e->workspace, &at, 1, "private");
            }
            offset += (n * tir_scalar_size(s) + 63) / 64 * 64;
            e->val[i->value.id] = a;
        }
    e->private_bytes = total;
    e->info->counters.private_bytes = total;
    e->info->counters.workspace_bytes = stack ? 0 : total;
    return TILEC_OK;
}

static void set_target_attributes(emitter *e, LLVMValueRef fn) {
    const char *keys[2] = {"target-cpu", "target-features"}, *vals[2] = {e->host->cpu, e->host->features};
    for (int k = 0; k < 2; k++) {
        LLVMAttributeRef a = LLVMCreateStringAttribute(e->g.c, keys[k], (unsigned)strlen(keys[k]), vals[k], (unsigned)strlen(vals[k]));
        LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, a);
    }
}

/* One packet body; `full`: every lane is active (the tail mask is the
 * constant all-true mask, which LLVM folds away). */
static tilec_status emit_body(emitter *e, bool full) {
    LLVMTypeRef params[6] = {e->ptr, e->g.i32, e->g.i32, e->g.i32, e->ptr, e->ptr};
    e->body = LLVMAddFunction(e->g.m, full ? "tilec_packet_full" : "tilec_packet",
                              LLVMFunctionType(LLVMVoidTypeInContext(e->g.c), params, 6, false));
    LLVMSetLinkage(e->body, LLVMInternalLinkage);
    set_target_attributes(e, e->body);
    e->args = LLVMGetParam(e->body, 0);
    e->block_id = LLVMGetParam(e->body, 1);
    e->base = LLVMGetParam(e->body, 2);
    e->dsize = LLVMGetParam(e->body, 3);
    e->workspace = LLVMGetParam(e->body, 4);
    e->faults = LLVMGetParam(e->body, 5);
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(e->g.c, e->body, "entry");
    LLVMPositionBuilderAtEnd(e->g.b, entry);
    LLVMValueRef lanes32[16], lanes64[16];
    for (uint32_t l = 0; l < e->g.W; l++) lanes32[l] = cg_const_i32(&e->g, l), lanes64[l] = cg_const_i64(&e->g, l);
    e->lane32 = LLVMConstVector(lanes32, e->g.W);
    e->lane64 = LLVMConstVector(lanes64, e->g.W);
    e->full = full;
    e->tail_mask = full ? LLVMConstAllOnes(e->vmask)
                        : LLVMBuildICmp(e->g.b, LLVMIntULT, LLVMBuildAdd(e->g.b, cg_splat(&e->g, e->base), e->lane32, ""),
                                        cg_splat(&e->g, e->dsize), "tail");
    LLVMTypeRef arg_t = LLVMStructTypeInContext(e->g.c, (LLVMTypeRef[2]){e->ptr, e->g.i64}, 2, false);
    for (size_t a = 0; a < e->f->args.len; a++) {
        LLVMValueRef idx[2] = {cg_const_i64(&e->g, a), cg_const_i32(&e->g, 0)};
        LLVMValueRef p = LLVMBuildGEP2(e->g.b, arg_t, e->args, idx, 2, "");
        e->bufptr[a] = LLVMBuildLoad2(e->g.b, e->ptr, p, "buffer");
    }
    if (place_allocas(e)) return e->status;
    const xir_cfg *cfg = &e->an->cfg;
    for (uint32_t k = 0; k < cfg->rpo_count; k++)
        e->entry_bb[cfg->rpo[k]->id] = LLVMAppendBasicBlockInContext(e->g.c, e->body, cfg->rpo[k]->name ? cfg->rpo[k]->name : "");
    LLVMBuildBr(e->g.b, e->entry_bb[e->f->first->id]);
    for (uint32_t k = 0; k < cfg->rpo_count && !e->status; k++) emit_block(e, cfg->rpo[k]);
    if (!e->status) fill_phis(e);
    return e->status;
}

/* entry(args, block_begin, block_end, dispatch_size, workspace, faults): for each
 * block, packets base = block·B + p·W for p·W < B while base < dispatch_size;
 * complete packets call `full` when there is one, every packet when there is
 * no `masked` body. */
static void emit_entry(emitter *e, const char *name, LLVMValueRef masked, LLVMValueRef full) {
    LLVMTypeRef params[6] = {e->ptr, e->g.i32, e->g.i32, e->g.i32, e->ptr, e->ptr};
    LLVMValueRef fn = LLVMAddFunction(e->g.m, name, LLVMFunctionType(LLVMVoidTypeInContext(e->g.c), params, 6, false));
    set_target_attributes(e, fn);
    LLVMValueRef args = LLVMGetParam(fn, 0), begin = LLVMGetParam(fn, 1), end = LLVMGetParam(fn, 2), dsize = LLVMGetParam(fn, 3);
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(e->g.c, fn, "entry");
    LLVMBasicBlockRef blocks = LLVMAppendBasicBlockInContext(e->g.c, fn, "blocks");
    LLVMBasicBlockRef packets = LLVMAppendBasicBlockInContext(e->g.c, fn, "packets");
    LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(e->g.c, fn, "run");
    LLVMBasicBlockRef next_block = LLVMAppendBasicBlockInContext(e->g.c, fn, "next_block");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->g.c, fn, "done");
    LLVMPositionBuilderAtEnd(e->g.b, entry);
    LLVMBuildCondBr(e->g.b, LLVMBuildICmp(e->g.b, LLVMIntULT, begin, end, ""), blocks, done);
    /* blocks: blk = phi; start = blk·B (64-bit) */
    LLVMPositionBuilderAtEnd(e->g.b, blocks);
    LLVMValueRef blk = LLVMBuildPhi(e->g.b, e->g.i32, "block");
    LLVMValueRef start = LLVMBuildMul(e->g.b, LLVMBuildZExt(e->g.b, blk, e->g.i64, ""), cg_const_i64(&e->g, e->f->block_size), "");
    LLVMBuildBr(e->g.b, packets);
    LLVMPositionBuilderAtEnd(e->g.b, packets);
    LLVMValueRef off = LLVMBuildPhi(e->g.b, e->g.i64, "offset");
    LLVMValueRef base = LLVMBuildAdd(e->g.b, start, off, "");
    LLVMValueRef live = LLVMBuildAnd(e->g.b, LLVMBuildICmp(e->g.b, LLVMIntULT, off, cg_const_i64(&e->g, e->f->block_size), ""),
                                     LLVMBuildICmp(e->g.b, LLVMIntULT, base, LLVMBuildZExt(e->g.b, dsize, e->g.i64, ""), ""), "");
    LLVMBuildCondBr(e->g.b, live, run, next_block);
    LLVMPositionBuilderAtEnd(e->g.b, run);
    LLVMValueRef call_args[6] = {args, blk, LLVMBuildTrunc(e->g.b, base, e->g.i32, ""), dsize, LLVMGetParam(fn, 4),
                                 LLVMGetParam(fn, 5)};
    LLVMValueRef off_next = LLVMBuildAdd(e->g.b, off, cg_const_i64(&e->g, e->g.W), "");
    LLVMBasicBlockRef call_full = NULL;
    if (full && !masked) {
        LLVMBuildCall2(e->g.b, LLVMGlobalGetValueType(full), full, call_args, 6, "");
    } else if (full) {
        call_full = LLVMAppendBasicBlockInContext(e->g.c, fn, "full_packet");
        LLVMBasicBlockRef call_tail = LLVMAppendBasicBlockInContext(e->g.c, fn, "tail_packet");
        LLVMValueRef complete = LLVMBuildICmp(e->g.b, LLVMIntULE, LLVMBuildAdd(e->g.b, base, cg_const_i64(&e->g, e->g.W), ""),
                                              LLVMBuildZExt(e->g.b, dsize, e->g.i64, ""), "");
        LLVMBuildCondBr(e->g.b, complete, call_full, call_tail);
        LLVMPositionBuilderAtEnd(e->g.b, call_full);
        LLVMBuildCall2(e->g.b, LLVMGlobalGetValueType(full), full, call_args, 6, "");
        LLVMBuildBr(e->g.b, packets);
        LLVMPositionBuilderAtEnd(e->g.b, call_tail);
    }
    if (masked) LLVMBuildCall2(e->g.b, LLVMGlobalGetValueType(masked), masked, call_args, 6, "");
    LLVMBasicBlockRef run_end = LLVMGetInsertBlock(e->g.b);
    LLVMBuildBr(e->g.b, packets);
    LLVMPositionBuilderAtEnd(e->g.b, next_block);
    LLVMValueRef blk_next = LLVMBuildAdd(e->g.b, blk, cg_const_i32(&e->g, 1), "");
    LLVMBuildCondBr(e->g.b, LLVMBuildICmp(e->g.b, LLVMIntULT, blk_next, end, ""), blocks, done);
    LLVMPositionBuilderAtEnd(e->g.b, done);
    /* non-temporal stores are weakly ordered: a full fence (x86: mfence)
     * before the pool's completion makes them visible to its waiter */
    if (e->info->counters.streaming_stores) LLVMBuildFence(e->g.b, LLVMAtomicOrderingSequentiallyConsistent, false, "");
    LLVMBuildRetVoid(e->g.b);
    LLVMValueRef v1[2] = {begin, blk_next};
    LLVMBasicBlockRef b1[2] = {entry, next_block};
    LLVMAddIncoming(blk, v1, b1, 2);
    LLVMValueRef v2[3] = {cg_const_i64(&e->g, 0), off_next, off_next};
    LLVMBasicBlockRef b2[3] = {blocks, run_end, call_full};
    LLVMAddIncoming(off, v2, b2, call_full ? 3 : 2);
}

/* Forgets the per-body state before emitting another body. */
static void reset_body(emitter *e) {
    size_t nv = e->f->next_value_id + 1, nb = e->f->next_block_id + 1;
    memset(e->val, 0, nv * sizeof *e->val);
    memset(e->facts, 0, nv);
    memset(e->paired, 0, nv * sizeof *e->paired);
    memset(e->entry_bb, 0, nb * sizeof *e->entry_bb);
    memset(e->exit_bb, 0, nb * sizeof *e->exit_bb);
    memset(e->mask, 0, nb * sizeof *e->mask);
    memset(e->edge, 0, nb * sizeof *e->edge);
    memset(e->predicated, 0, nb);
    memset(e->join, 0, nb);
    memset(e->next_linear, 0, nb * sizeof *e->next_linear);
    e->private_bytes = 0;
}

/* The masked body and/or the full-packet body (simd_bodies); the counters
 * describe one body. */
static tilec_status emit_bodies(emitter *e, simd_bodies bodies, const char *entry_name) {
    LLVMValueRef masked = NULL, full = NULL;
    if (bodies != SIMD_BODIES_FULL) {
        if (emit_body(e, false)) return e->status;
        masked = e->body;
    }
    if (bodies != SIMD_BODIES_MASKED) {
        simd_counters once = e->info->counters;
        if (masked) reset_body(e);
        if (emit_body(e, true)) return e->status;
        full = e->body;
        if (masked) e->info->counters = once;
        e->info->counters.full_packet_bodies = 1;
    }
    emit_entry(e, entry_name, masked, full);
    return TILEC_OK;
}

tilec_status simd_emit(tilec_context *ctx, const xir_func *f, const simd_analysis *an, const jit_host *host,
                       uint32_t width, simd_bodies bodies, uint64_t streaming_args, uint64_t apart_args, LLVMModuleRef m,
                       const char *entry_name, simd_emit_info *info) {
    emitter e = {.ctx = ctx, .f = f, .an = an, .host = host, .info = info,
                 .streaming_args = streaming_args, .apart_args = apart_args};
    cg_builder_init(&e.g, m, width, host->f16c, math);
    e.g.dot_bf16 = host->avx512bf16 && (width == 16 ? host->avx512f : host->avx512vl);
    e.g.dot_int8 = host->avx512vnni && (width == 16 ? host->avx512f : host->avx512vl);
    e.ptr = LLVMPointerTypeInContext(e.g.c, 0);
    e.vmask = LLVMVectorType(e.g.i1, width);
    size_t nv = f->next_value_id + 1, nb = f->next_block_id + 1;
    e.val = tilec_alloc(ctx, nv * sizeof *e.val);
    e.facts = tilec_alloc(ctx, nv);
    e.paired = tilec_alloc(ctx, nv * sizeof *e.paired);
    e.pair_sign = tilec_alloc(ctx, nv);
    e.bufptr = tilec_alloc(ctx, (f->args.len + 1) * sizeof *e.bufptr);
    e.entry_bb = tilec_alloc(ctx, nb * sizeof *e.entry_bb);
    e.exit_bb = tilec_alloc(ctx, nb * sizeof *e.exit_bb);
    e.mask = tilec_alloc(ctx, nb * sizeof *e.mask);
    e.edge = tilec_alloc(ctx, nb * sizeof *e.edge);
    e.predicated = tilec_alloc(ctx, nb);
    e.join = tilec_alloc(ctx, nb);
    e.next_linear = tilec_alloc(ctx, nb * sizeof *e.next_linear);
    e.region = tilec_alloc(ctx, nb);
    tilec_status st;
    if (!e.val || !e.facts || !e.paired || !e.pair_sign || !e.bufptr || !e.entry_bb || !e.exit_bb || !e.mask || !e.edge || !e.predicated || !e.join ||
        !e.next_linear || !e.region)
        st = tilec_error(ctx, TILEC_E_NOMEM, "SIMD-M02", tilec_no_loc(), "out of memory emitting '%s'", f->name);
    else
        st = emit_bodies(&e, bodies, entry_name);
    void *tables[] = {e.val, e.facts, e.paired, e.pair_sign, e.bufptr, e.entry_bb, e.exit_bb, e.mask, e.edge, e.predicated, e.join, e.next_linear, e.region};
    for (size_t k = 0; k < sizeof tables / sizeof tables[0]; k++) tilec_free(ctx, tables[k]);
    LLVMDisposeBuilder(e.g.b);
    return st;
}
