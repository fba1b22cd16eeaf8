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
 * Arithmetic follows src/xir/eval.c bit for bit: integer div/mod by zero give
 * 0 and MIN / -1 wraps (divisors are sanitized on every lane, so inactive
 * lanes cannot trap); float→int casts saturate with NaN → 0; min/max prefer
 * the number to a NaN and order -0 below +0; the math functions
 * (tir/math_ops.h) call SLEEF u10 at the packet width (never scalar libm per
 * lane), floor/ceil/round/trunc are LLVM's intrinsics. */
#include "simd/emit.h"
#include "tir/math_ops.h"
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
    tilec_context *ctx;
    const xir_func *f;
    const simd_analysis *an;
    const jit_host *host;
    uint32_t W;
    simd_emit_info *info;
    tilec_status status;
    LLVMContextRef c;
    LLVMModuleRef m;
    LLVMBuilderRef b;
    LLVMTypeRef i1, i8, i32, i64, ptr, vmask;
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
    uint64_t apart_args;     /* bit a: argument a overlaps no other (simd_options.apart_args) */
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

static LLVMTypeRef scalar_type(emitter *e, tir_scalar s) {
    switch (s) {
    case TIR_BOOL: return e->i1;
    case TIR_I8: case TIR_U8: return e->i8;
    case TIR_I16: case TIR_U16: return LLVMInt16TypeInContext(e->c);
    case TIR_I32: case TIR_U32: return e->i32;
    case TIR_I64: case TIR_U64: return e->i64;
    case TIR_F32: return LLVMFloatTypeInContext(e->c);
    case TIR_F64: return LLVMDoubleTypeInContext(e->c);
    /* f16/bf16 values are their bits: never computed on, only moved and
     * converted (widen_half, narrow_*), and LLVM legalizes scalar bfloat
     * memory operations through conversions that flush subnormals */
    case TIR_F16: case TIR_BF16: return LLVMInt16TypeInContext(e->c);
    default: return e->i64;
    }
}

static LLVMTypeRef mem_type(emitter *e, tir_scalar s) { return s == TIR_BOOL ? e->i8 : scalar_type(e, s); }
static LLVMTypeRef vec_of(emitter *e, LLVMTypeRef t) { return LLVMVectorType(t, e->W); }
static bool is_vec(LLVMValueRef v) { return LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMVectorTypeKind; }
static unsigned align_of(tir_scalar s) { return (unsigned)tir_scalar_size(s); }

static LLVMValueRef splat(emitter *e, LLVMValueRef v) {
    if (is_vec(v)) return v;
    LLVMTypeRef vt = LLVMVectorType(LLVMTypeOf(v), e->W);
    LLVMValueRef one = LLVMBuildInsertElement(e->b, LLVMGetPoison(vt), v, LLVMConstInt(e->i32, 0, false), "");
    return LLVMBuildShuffleVector(e->b, one, LLVMGetPoison(vt), LLVMConstNull(LLVMVectorType(e->i32, e->W)), "");
}

static LLVMValueRef intrinsic(emitter *e, const char *name, LLVMTypeRef *types, size_t n_types, LLVMValueRef *args,
                              unsigned n_args) {
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(e->m, id, types, n_types);
    LLVMTypeRef ft = LLVMIntrinsicGetType(e->c, id, types, n_types);
    return LLVMBuildCall2(e->b, ft, fn, args, n_args, "");
}

static LLVMValueRef any_lane(emitter *e, LLVMValueRef mask) {
    LLVMTypeRef t = e->vmask;
    return intrinsic(e, "llvm.vector.reduce.or", &t, 1, &mask, 1);
}

static LLVMValueRef const_i32(emitter *e, uint64_t v) { return LLVMConstInt(e->i32, v, false); }
static LLVMValueRef const_i64(emitter *e, uint64_t v) { return LLVMConstInt(e->i64, v, false); }

/* The mask memory effects of block `b` run under. */
static LLVMValueRef block_mask(emitter *e, const xir_block *b) {
    return e->predicated[b->id] ? e->mask[b->id] : e->tail_mask;
}

/* ---- values ---- */

static LLVMValueRef constant(emitter *e, const xir_value *v) {
    tir_scalar s = v->type->scalar;
    uint64_t raw = xir_bits_raw(s, v->constant);
    if (s == TIR_F32) return LLVMConstBitCast(LLVMConstInt(e->i32, raw, false), scalar_type(e, s));
    if (s == TIR_F64) return LLVMConstBitCast(LLVMConstInt(e->i64, raw, false), scalar_type(e, s));
    return LLVMConstInt(scalar_type(e, s), raw, false);
}

static LLVMValueRef special(emitter *e, xir_special s) {
    switch (s) {
    case XIR_SPECIAL_DISPATCH_ID: return LLVMBuildAdd(e->b, splat(e, e->base), e->lane32, "dispatch_id");
    case XIR_SPECIAL_WARP_LANE_ID: return e->lane32;
    case XIR_SPECIAL_BLOCK_ID: return e->block_id;
    case XIR_SPECIAL_DISPATCH_SIZE: return e->dsize;
    case XIR_SPECIAL_BLOCK_SIZE: return const_i32(e, e->f->block_size);
    case XIR_SPECIAL_WARP_SIZE: return const_i32(e, e->W);
    default: return const_i32(e, 0);
    }
}

/* The LLVM value of an operand, as a vector when `vector`. */
static LLVMValueRef get(emitter *e, const xir_value *v, bool vector) {
    LLVMValueRef r;
    switch (v->kind) {
    case XIR_VALUE_CONST: r = constant(e, v); break;
    case XIR_VALUE_SPECIAL: r = special(e, v->special); break;
    case XIR_VALUE_ARG: r = e->bufptr[v->arg_index]; break;
    default: r = e->val[v->id]; break;
    }
    return vector ? splat(e, r) : r;
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
    if (const_int(v, &k)) return LANE_EQUAL | (k % (int64_t)e->W == 0 ? LANE_MULW : 0) | (k >= 0 ? LANE_NONNEG : 0);
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
        if (k == 2 && (f & LANE_CONSEC) && e->W > 1) return LANE_PAIRS | (f & LANE_NONNEG);
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
    bool divisor = const_int(xir_operand(i, 1), &d) && d > 0 && d % (int64_t)e->W == 0;
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

static LLVMValueRef zero_like(LLVMValueRef v) { return LLVMConstNull(LLVMTypeOf(v)); }

static LLVMValueRef all_ones_like(LLVMValueRef v) { return LLVMConstAllOnes(LLVMTypeOf(v)); }

static LLVMValueRef int_const_like(emitter *e, LLVMValueRef v, uint64_t k) {
    LLVMTypeRef t = LLVMTypeOf(v);
    if (is_vec(v)) return splat(e, LLVMConstInt(LLVMGetElementType(t), k, false));
    return LLVMConstInt(t, k, false);
}

static LLVMValueRef sel(emitter *e, LLVMValueRef c, LLVMValueRef t, LLVMValueRef f) {
    return LLVMBuildSelect(e->b, c, t, f, "");
}

static LLVMValueRef int_divmod(emitter *e, bool div, bool is_signed, LLVMValueRef a, LLVMValueRef d) {
    LLVMValueRef zero = zero_like(d), one = int_const_like(e, d, 1);
    LLVMValueRef by_zero = LLVMBuildICmp(e->b, LLVMIntEQ, d, zero, "");
    if (!is_signed) {
        LLVMValueRef safe = sel(e, by_zero, one, d);
        LLVMValueRef r = div ? LLVMBuildUDiv(e->b, a, safe, "") : LLVMBuildURem(e->b, a, safe, "");
        return sel(e, by_zero, zero, r);
    }
    LLVMValueRef minus_one = LLVMBuildICmp(e->b, LLVMIntEQ, d, all_ones_like(d), "");
    LLVMValueRef safe = sel(e, LLVMBuildOr(e->b, by_zero, minus_one, ""), one, d);
    LLVMValueRef r = div ? LLVMBuildSDiv(e->b, a, safe, "") : LLVMBuildSRem(e->b, a, safe, "");
    if (div) r = sel(e, minus_one, LLVMBuildNeg(e->b, a, ""), r);
    else r = sel(e, minus_one, zero, r);
    return sel(e, by_zero, zero, r);
}

static LLVMValueRef sign_bit(emitter *e, LLVMValueRef x, tir_scalar t) {
    LLVMTypeRef it = t == TIR_F32 ? e->i32 : e->i64;
    if (is_vec(x)) it = vec_of(e, it);
    LLVMValueRef bits = LLVMBuildBitCast(e->b, x, it, "");
    return LLVMBuildICmp(e->b, LLVMIntSLT, bits, LLVMConstNull(it), "");
}

/* min/max of floats: a NaN loses to a number, -0 orders below +0 (the
 * result is always one of the operands, bit for bit).  llvm.minnum/maxnum
 * give the NaN rule; only the tie a == b (where they may return either
 * zero) is chosen here by the sign of a.  Spelling the NaN rule out with
 * `fcmp uno` selects instead twice met LLVM 19 InstCombine folds that
 * strip a fabs from a compare: max(|x|, +0) became `x >= 0 ? |x| : 0`, and
 * min(+0, |x| + 0) became `x > 0 ? 0 : |x|`, both wrong for negative x
 * (found by fuzz_diff, tests/fuzz/corpus/diff). */
static LLVMValueRef float_minmax(emitter *e, bool is_min, tir_scalar t, LLVMValueRef a, LLVMValueRef b) {
    LLVMTypeRef type = LLVMTypeOf(a);
    LLVMValueRef args[2] = {a, b};
    LLVMValueRef m = intrinsic(e, is_min ? "llvm.minnum" : "llvm.maxnum", &type, 1, args, 2);
    LLVMValueRef sa = sign_bit(e, a, t);
    LLVMValueRef tie = is_min ? sel(e, sa, a, b) : sel(e, sa, b, a);
    return sel(e, LLVMBuildFCmp(e->b, LLVMRealOEQ, a, b, ""), tie, m);
}

static LLVMValueRef float_unary_intrinsic(emitter *e, const char *name, LLVMValueRef x) {
    LLVMTypeRef t = LLVMTypeOf(x);
    return intrinsic(e, name, &t, 1, &x, 1);
}

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
    LLVMTypeRef et = scalar_type(e, t), at = width == 1 ? et : LLVMVectorType(et, width);
    LLVMTypeRef params[2] = {at, at};
    LLVMTypeRef ft = LLVMFunctionType(at, params, argc, false);
    LLVMValueRef fn = LLVMGetNamedFunction(e->m, name);
    if (!fn) fn = LLVMAddFunction(e->m, name, ft);
    e->info->counters.math_calls++;
    return LLVMBuildCall2(e->b, ft, fn, x, argc, "");
}

static LLVMValueRef shuffle(emitter *e, LLVMValueRef a, LLVMValueRef b, unsigned first, unsigned count, unsigned clamp) {
    LLVMValueRef idx[32];
    for (unsigned k = 0; k < count; k++) idx[k] = const_i32(e, first + k < clamp ? first + k : 0);
    return LLVMBuildShuffleVector(e->b, a, b ? b : LLVMGetPoison(LLVMTypeOf(a)), LLVMConstVector(idx, count), "");
}

/* A SLEEF function of argc (1 or 2) operands (tir/math_ops.h) at the
 * packet width: the widest SLEEF entry the host runs
 * (f32: 16 with AVX-512F, 8 with AVX2, else 4; f64 half), padded up from
 * narrower packets (W = 1 included), split for wider ones; uniform values
 * call the scalar entry once.  A varying <1 x T> argument is padded, not
 * extracted: LLVM 19's InstCombine scalarizes a loop PHI whose lane is
 * extracted with its update's operands swapped (`x - phi` became `phi - x`;
 * found by fuzz_diff, tests/fuzz/corpus/diff/w1-math-after-loop.tir). */
static LLVMValueRef math(emitter *e, const char *fn, tir_scalar t, LLVMValueRef *x, unsigned argc) {
    if (!is_vec(x[0])) return sleef_call(e, fn, t, 1, x, argc);
    unsigned W = e->W, lanes_f32 = e->host->avx512f ? 16 : e->host->avx2 ? 8 : 4;
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

static LLVMValueRef arith(emitter *e, const xir_inst *i) {
    bool vec = varying(e, &i->value);
    xir_arith_op op = i->op;
    if (op == XIR_OP_SELECT) {
        LLVMValueRef c = get(e, xir_operand(i, 0), varying(e, xir_operand(i, 0)));
        return sel(e, c, get(e, xir_operand(i, 1), vec), get(e, xir_operand(i, 2), vec));
    }
    tir_scalar t = xir_operand(i, 0)->type->scalar;
    /* the packet's ordinal: its first dispatch ordinal, divided */
    LLVMValueRef a = !vec && simd_packet_ordinal_div(i, e->W) ? e->base : get(e, xir_operand(i, 0), vec);
    LLVMValueRef b = xir_arith_arity(op) > 1 ? get(e, xir_operand(i, 1), vec) : NULL;
    bool fl = tir_scalar_is_float(t), sg = tir_scalar_is_signed(t);
    switch (op) {
    case XIR_OP_ADD: return fl ? LLVMBuildFAdd(e->b, a, b, "") : LLVMBuildAdd(e->b, a, b, "");
    case XIR_OP_SUB: return fl ? LLVMBuildFSub(e->b, a, b, "") : LLVMBuildSub(e->b, a, b, "");
    case XIR_OP_MUL: return fl ? LLVMBuildFMul(e->b, a, b, "") : LLVMBuildMul(e->b, a, b, "");
    case XIR_OP_DIV: return fl ? LLVMBuildFDiv(e->b, a, b, "") : int_divmod(e, true, sg, a, b);
    case XIR_OP_MOD: return int_divmod(e, false, sg, a, b);
    case XIR_OP_NEG: return fl ? LLVMBuildFNeg(e->b, a, "") : LLVMBuildNeg(e->b, a, "");
    case XIR_OP_ABS:
        if (fl) return float_unary_intrinsic(e, "llvm.fabs", a);
        if (!sg) return a;
        return sel(e, LLVMBuildICmp(e->b, LLVMIntSLT, a, zero_like(a), ""), LLVMBuildNeg(e->b, a, ""), a);
    case XIR_OP_MIN:
    case XIR_OP_MAX: {
        bool is_min = op == XIR_OP_MIN;
        if (fl) return float_minmax(e, is_min, t, a, b);
        LLVMIntPredicate p = is_min ? (sg ? LLVMIntSLE : LLVMIntULE) : (sg ? LLVMIntSGE : LLVMIntUGE);
        return sel(e, LLVMBuildICmp(e->b, p, a, b, ""), a, b);
    }
#define SLEEF1(op_, dbl, flt, stem) \
    case XIR_OP_##op_: return math(e, #stem, t, (LLVMValueRef[2]){a, NULL}, 1);
#define SLEEF2(op_, dbl, flt, stem) \
    case XIR_OP_##op_: return math(e, #stem, t, (LLVMValueRef[2]){a, b}, 2);
#define ROUNDING(op_, dbl, flt, intrinsic_name) \
    case XIR_OP_##op_: return float_unary_intrinsic(e, intrinsic_name, a);
        TIR_SLEEF_MATH1(SLEEF1) TIR_SLEEF_MATH2(SLEEF2) TIR_ROUNDING_MATH(ROUNDING)
#undef SLEEF1
#undef SLEEF2
#undef ROUNDING
    case XIR_OP_SQRT: return float_unary_intrinsic(e, "llvm.sqrt", a);
    case XIR_OP_FMA: {
        LLVMValueRef args[3] = {a, b, get(e, xir_operand(i, 2), vec)};
        LLVMTypeRef type = LLVMTypeOf(a);
        return intrinsic(e, "llvm.fma", &type, 1, args, 3);
    }
    case XIR_OP_AND: return LLVMBuildAnd(e->b, a, b, "");
    case XIR_OP_OR: return LLVMBuildOr(e->b, a, b, "");
    case XIR_OP_XOR: return LLVMBuildXor(e->b, a, b, "");
    case XIR_OP_NOT: return LLVMBuildNot(e->b, a, "");
    case XIR_OP_SHL:
    case XIR_OP_SHR: {
        LLVMValueRef amount = LLVMBuildAnd(e->b, b, int_const_like(e, b, 8 * tir_scalar_size(t) - 1), "");
        if (op == XIR_OP_SHL) return LLVMBuildShl(e->b, a, amount, "");
        return sg ? LLVMBuildAShr(e->b, a, amount, "") : LLVMBuildLShr(e->b, a, amount, "");
    }
    default: break;
    }
    /* comparisons */
    static const LLVMRealPredicate fp[] = {[XIR_OP_EQ] = LLVMRealOEQ, [XIR_OP_NE] = LLVMRealUNE, [XIR_OP_LT] = LLVMRealOLT,
                                           [XIR_OP_LE] = LLVMRealOLE, [XIR_OP_GT] = LLVMRealOGT, [XIR_OP_GE] = LLVMRealOGE};
    static const LLVMIntPredicate sp[] = {[XIR_OP_EQ] = LLVMIntEQ, [XIR_OP_NE] = LLVMIntNE, [XIR_OP_LT] = LLVMIntSLT,
                                          [XIR_OP_LE] = LLVMIntSLE, [XIR_OP_GT] = LLVMIntSGT, [XIR_OP_GE] = LLVMIntSGE};
    static const LLVMIntPredicate up[] = {[XIR_OP_EQ] = LLVMIntEQ, [XIR_OP_NE] = LLVMIntNE, [XIR_OP_LT] = LLVMIntULT,
                                          [XIR_OP_LE] = LLVMIntULE, [XIR_OP_GT] = LLVMIntUGT, [XIR_OP_GE] = LLVMIntUGE};
    if (fl) return LLVMBuildFCmp(e->b, fp[op], a, b, "");
    return LLVMBuildICmp(e->b, sg ? sp[op] : up[op], a, b, "");
}

/* The LLVM type of scalar s in the shape of v (a scalar or a packet). */
static LLVMTypeRef like(emitter *e, LLVMValueRef v, tir_scalar s) {
    return is_vec(v) ? vec_of(e, scalar_type(e, s)) : scalar_type(e, s);
}

static LLVMValueRef splat_like(emitter *e, LLVMValueRef v, LLVMValueRef c) {
    return is_vec(v) ? splat(e, c) : c;
}

/* f16/bf16 → f32, exactly: bf16 is the upper half of an f32; f16 widens
 * with F16C's vcvtph2ps (LLVM's fpext), or, on a CPU without it, by moving
 * the fields (a subnormal through a float multiply, which is exact). */
static LLVMValueRef widen_half(emitter *e, tir_scalar from, LLVMValueRef v) {
    LLVMTypeRef f32 = like(e, v, TIR_F32), i32 = like(e, v, TIR_I32);
    if (from == TIR_F16 && e->host->f16c) {
        LLVMTypeRef h = is_vec(v) ? vec_of(e, LLVMHalfTypeInContext(e->c)) : LLVMHalfTypeInContext(e->c);
        return LLVMBuildFPExt(e->b, LLVMBuildBitCast(e->b, v, h, ""), f32, "");
    }
    LLVMValueRef bits = LLVMBuildZExt(e->b, v, i32, "");
    if (from == TIR_BF16) return LLVMBuildBitCast(e->b, LLVMBuildShl(e->b, bits, splat_like(e, v, const_i32(e, 16)), ""), f32, "");
    /* f16: sign << 16 | (magnitude << 13) · 2^112, then inf/NaN fixed */
    LLVMValueRef sign = LLVMBuildShl(e->b, LLVMBuildAnd(e->b, bits, splat_like(e, v, const_i32(e, 0x8000)), ""),
                                     splat_like(e, v, const_i32(e, 16)), "");
    LLVMValueRef mag = LLVMBuildAnd(e->b, bits, splat_like(e, v, const_i32(e, 0x7fff)), "");
    LLVMValueRef scaled = LLVMBuildFMul(e->b, LLVMBuildBitCast(e->b, LLVMBuildShl(e->b, mag, splat_like(e, v, const_i32(e, 13)), ""), f32, ""),
                                        splat_like(e, v, LLVMConstReal(scalar_type(e, TIR_F32), 0x1p112)), "");
    LLVMValueRef special = LLVMBuildICmp(e->b, LLVMIntUGE, mag, splat_like(e, v, const_i32(e, 0x7c00)), "");
    LLVMValueRef infnan = LLVMBuildOr(e->b, LLVMBuildShl(e->b, mag, splat_like(e, v, const_i32(e, 13)), ""),
                                      splat_like(e, v, const_i32(e, 0x7f800000)), "");
    LLVMValueRef m = sel(e, special, infnan, LLVMBuildBitCast(e->b, scaled, i32, ""));
    return LLVMBuildBitCast(e->b, LLVMBuildOr(e->b, sign, m, ""), f32, "");
}

/* f32 → bf16 rounded to nearest even, a NaN kept quiet (tir.md
 * "Half-precision types"; base/half.c's rule). */
static LLVMValueRef narrow_bf16(emitter *e, LLVMValueRef v) {
    LLVMTypeRef i32 = like(e, v, TIR_I32), i16 = like(e, v, TIR_I16);
    LLVMValueRef bits = LLVMBuildBitCast(e->b, v, i32, ""), c16 = splat_like(e, v, const_i32(e, 16));
    LLVMValueRef odd = LLVMBuildAnd(e->b, LLVMBuildLShr(e->b, bits, c16, ""), splat_like(e, v, const_i32(e, 1)), "");
    LLVMValueRef up = LLVMBuildAdd(e->b, LLVMBuildAdd(e->b, bits, splat_like(e, v, const_i32(e, 0x7fff)), ""), odd, "");
    LLVMValueRef nan = LLVMBuildOr(e->b, bits, splat_like(e, v, const_i32(e, 0x400000)), "");
    LLVMValueRef r = sel(e, LLVMBuildFCmp(e->b, LLVMRealUNO, v, v, ""), nan, up);
    return LLVMBuildTrunc(e->b, LLVMBuildLShr(e->b, r, c16, ""), i16, "");
}

/* f32 → f16 rounded to nearest even: F16C's vcvtps2ph (LLVM's fptrunc);
 * without F16C, by integer steps on the magnitude's bits: a result below
 * f16's normal range through one float add of 0.5 (whose ulp is the f16
 * subnormal quantum, so that add is the one rounding), a normal one by
 * rebiasing the exponent and rounding the 13 dropped bits to even, 65520
 * and above to inf, a NaN quiet with its top payload bits. */
static LLVMValueRef narrow_f16(emitter *e, LLVMValueRef v) {
    LLVMTypeRef i32 = like(e, v, TIR_I32), i16 = like(e, v, TIR_I16), f32 = like(e, v, TIR_F32);
    if (e->host->f16c) {
        LLVMTypeRef h = is_vec(v) ? vec_of(e, LLVMHalfTypeInContext(e->c)) : LLVMHalfTypeInContext(e->c);
        return LLVMBuildBitCast(e->b, LLVMBuildFPTrunc(e->b, v, h, ""), i16, "");
    }
#define C(x) splat_like(e, v, const_i32(e, (int32_t)(x)))
    LLVMValueRef bits = LLVMBuildBitCast(e->b, v, i32, "");
    LLVMValueRef a = LLVMBuildAnd(e->b, bits, C(0x7fffffff), "");
    LLVMValueRef half = splat_like(e, v, LLVMConstReal(scalar_type(e, TIR_F32), 0.5));
    LLVMValueRef sub = LLVMBuildSub(e->b, LLVMBuildBitCast(e->b, LLVMBuildFAdd(e->b, LLVMBuildBitCast(e->b, a, f32, ""), half, ""), i32, ""),
                                    LLVMBuildBitCast(e->b, half, i32, ""), "");
    LLVMValueRef odd = LLVMBuildAnd(e->b, LLVMBuildLShr(e->b, a, C(13), ""), C(1), "");
    LLVMValueRef normal = LLVMBuildLShr(
        e->b, LLVMBuildAdd(e->b, LLVMBuildAdd(e->b, a, C((uint32_t)(15 - 127) << 23 | 0xfff), ""), odd, ""), C(13), "");
    LLVMValueRef nan = LLVMBuildOr(e->b, LLVMBuildLShr(e->b, LLVMBuildAnd(e->b, a, C(0x7fffff), ""), C(13), ""), C(0x7e00), "");
    LLVMValueRef r = sel(e, LLVMBuildICmp(e->b, LLVMIntULT, a, C(0x38800000), ""), sub, normal);
    r = sel(e, LLVMBuildICmp(e->b, LLVMIntUGE, a, C(0x47800000), ""), C(0x7c00), r);
    r = sel(e, LLVMBuildICmp(e->b, LLVMIntUGT, a, C(0x7f800000), ""), nan, r);
    LLVMValueRef sign = LLVMBuildLShr(e->b, LLVMBuildAnd(e->b, bits, C(0x80000000u), ""), C(16), "");
#undef C
    return LLVMBuildTrunc(e->b, LLVMBuildOr(e->b, r, sign, ""), i16, "");
}

/* A double rounded to odd as an f32 (the nearest float, its last bit set
 * when inexact): narrowing that to f16/bf16 rounds as narrowing the double
 * directly would (f32 has more than two extra bits). */
static LLVMValueRef double_to_odd_float(emitter *e, LLVMValueRef d) {
    LLVMTypeRef i32 = like(e, d, TIR_I32);
    LLVMValueRef f = LLVMBuildFPTrunc(e->b, d, like(e, d, TIR_F32), ""), back = LLVMBuildFPExt(e->b, f, LLVMTypeOf(d), "");
    LLVMValueRef inexact = LLVMBuildFCmp(e->b, LLVMRealONE, back, d, "");
    LLVMValueRef above = LLVMBuildFCmp(e->b, LLVMRealOGT, float_unary_intrinsic(e, "llvm.fabs", back),
                                       float_unary_intrinsic(e, "llvm.fabs", d), "");
    LLVMValueRef bits = LLVMBuildBitCast(e->b, f, i32, "");
    LLVMValueRef toward_zero = sel(e, LLVMBuildAnd(e->b, inexact, above, ""), LLVMBuildSub(e->b, bits, splat_like(e, d, const_i32(e, 1)), ""), bits);
    LLVMValueRef odd = sel(e, inexact, LLVMBuildOr(e->b, toward_zero, splat_like(e, d, const_i32(e, 1)), ""), toward_zero);
    return LLVMBuildBitCast(e->b, odd, like(e, d, TIR_F32), "");
}

/* Any numeric → f16/bf16, one rounding: an f32 directly, anything else
 * through double (exact for every type but 64-bit integers above 2^53, as
 * in the interpreters) rounded to odd as an f32. */
static LLVMValueRef to_half(emitter *e, tir_scalar from, tir_scalar to, LLVMValueRef v) {
    if (from != TIR_F32) {
        LLVMTypeRef f64 = like(e, v, TIR_F64);
        if (from == TIR_BOOL) v = LLVMBuildUIToFP(e->b, v, f64, "");
        else if (tir_scalar_is_integer(from))
            v = tir_scalar_is_signed(from) ? LLVMBuildSIToFP(e->b, v, f64, "") : LLVMBuildUIToFP(e->b, v, f64, "");
        v = double_to_odd_float(e, v);
    }
    return to == TIR_F16 ? narrow_f16(e, v) : narrow_bf16(e, v);
}

static LLVMValueRef convert(emitter *e, tir_scalar from, tir_scalar to, LLVMValueRef v);

static LLVMValueRef cast(emitter *e, const xir_inst *i) {
    const xir_value *x = xir_operand(i, 0);
    bool vec = varying(e, &i->value);
    LLVMValueRef v = get(e, x, vec);
    tir_scalar from = x->type->scalar, to = i->value.type->scalar;
    LLVMTypeRef tt = scalar_type(e, to);
    if (vec) tt = vec_of(e, tt);
    if (i->kind == XIR_INST_BITCAST) return LLVMBuildBitCast(e->b, v, tt, "");
    return convert(e, from, to, v);
}

/* A value conversion (XIR cast semantics, xir/eval.h). */
static LLVMValueRef convert(emitter *e, tir_scalar from, tir_scalar to, LLVMValueRef v) {
    LLVMTypeRef tt = like(e, v, to);
    if (from == to) return v;
    if (tir_scalar_is_half(to) && tir_scalar_is_half(from)) return to_half(e, TIR_F32, to, widen_half(e, from, v));
    if (tir_scalar_is_half(to)) return to_half(e, from, to, v);
    if (tir_scalar_is_half(from)) return convert(e, TIR_F32, to, widen_half(e, from, v));
    bool ffl = tir_scalar_is_float(from), tfl = tir_scalar_is_float(to);
    if (to == TIR_BOOL)
        return ffl ? LLVMBuildFCmp(e->b, LLVMRealUNE, v, zero_like(v), "") : LLVMBuildICmp(e->b, LLVMIntNE, v, zero_like(v), "");
    if (tfl) {
        if (ffl) return tir_scalar_size(to) > tir_scalar_size(from) ? LLVMBuildFPExt(e->b, v, tt, "") : LLVMBuildFPTrunc(e->b, v, tt, "");
        return tir_scalar_is_signed(from) ? LLVMBuildSIToFP(e->b, v, tt, "") : LLVMBuildUIToFP(e->b, v, tt, "");
    }
    if (ffl) {
        LLVMTypeRef types[2] = {tt, LLVMTypeOf(v)};
        return intrinsic(e, tir_scalar_is_signed(to) ? "llvm.fptosi.sat" : "llvm.fptoui.sat", types, 2, &v, 1);
    }
    return LLVMBuildIntCast2(e->b, v, tt, tir_scalar_is_signed(from), "");
}

/* ---- memory ---- */

static LLVMValueRef to_mem(emitter *e, tir_scalar s, LLVMValueRef v) {
    if (s != TIR_BOOL) return v;
    return LLVMBuildZExt(e->b, v, is_vec(v) ? vec_of(e, e->i8) : e->i8, "");
}

static LLVMValueRef from_mem(emitter *e, tir_scalar s, LLVMValueRef v) {
    if (s != TIR_BOOL) return v;
    return LLVMBuildICmp(e->b, LLVMIntNE, v, zero_like(v), "");
}

static LLVMValueRef masked_load(emitter *e, tir_scalar s, LLVMValueRef p, LLVMValueRef mask) {
    LLVMTypeRef vt = vec_of(e, mem_type(e, s)), types[2] = {vt, e->ptr};
    LLVMValueRef args[4] = {p, const_i32(e, align_of(s)), mask, LLVMConstNull(vt)};
    return intrinsic(e, "llvm.masked.load", types, 2, args, 4);
}

static void masked_store(emitter *e, tir_scalar s, LLVMValueRef v, LLVMValueRef p, LLVMValueRef mask) {
    LLVMTypeRef types[2] = {LLVMTypeOf(v), e->ptr};
    LLVMValueRef args[4] = {v, p, const_i32(e, align_of(s)), mask};
    intrinsic(e, "llvm.masked.store", types, 2, args, 4);
}

static LLVMValueRef gather(emitter *e, tir_scalar s, LLVMValueRef ptrs, LLVMValueRef mask) {
    LLVMTypeRef vt = vec_of(e, mem_type(e, s)), types[2] = {vt, vec_of(e, e->ptr)};
    LLVMValueRef args[4] = {ptrs, const_i32(e, align_of(s)), mask, LLVMConstNull(vt)};
    return intrinsic(e, "llvm.masked.gather", types, 2, args, 4);
}

static void scatter(emitter *e, tir_scalar s, LLVMValueRef v, LLVMValueRef ptrs, LLVMValueRef mask) {
    LLVMTypeRef types[2] = {LLVMTypeOf(v), vec_of(e, e->ptr)};
    LLVMValueRef args[4] = {v, ptrs, const_i32(e, align_of(s)), mask};
    intrinsic(e, "llvm.masked.scatter", types, 2, args, 4);
}

static LLVMValueRef plain_load(emitter *e, tir_scalar s, LLVMTypeRef t, LLVMValueRef p) {
    LLVMValueRef l = LLVMBuildLoad2(e->b, t, p, "");
    LLVMSetAlignment(l, align_of(s));
    return l;
}

static void plain_store(emitter *e, tir_scalar s, LLVMValueRef v, LLVMValueRef p) {
    LLVMSetAlignment(LLVMBuildStore(e->b, v, p), align_of(s));
}

/* An index as i64 (sign- or zero-extended as its type says). */
static LLVMValueRef index64(emitter *e, const xir_value *idx, bool vector) {
    LLVMValueRef v = get(e, idx, vector);
    LLVMTypeRef t = vector ? vec_of(e, e->i64) : e->i64;
    return LLVMBuildIntCast2(e->b, v, t, tir_scalar_is_signed(idx->type->scalar), "");
}

/* A scalar load done only when some lane of `mask` is active (NULL mask:
 * always); 0 otherwise. */
static LLVMValueRef guarded_scalar_load(emitter *e, tir_scalar s, LLVMValueRef p, LLVMValueRef mask) {
    LLVMTypeRef t = mem_type(e, s);
    if (!mask) return plain_load(e, s, t, p);
    LLVMBasicBlockRef from = LLVMGetInsertBlock(e->b);
    LLVMBasicBlockRef then = LLVMAppendBasicBlockInContext(e->c, e->body, "guarded_load");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->c, e->body, "guarded_done");
    LLVMBuildCondBr(e->b, any_lane(e, mask), then, done);
    LLVMPositionBuilderAtEnd(e->b, then);
    LLVMValueRef l = plain_load(e, s, t, p);
    LLVMBuildBr(e->b, done);
    LLVMPositionBuilderAtEnd(e->b, done);
    LLVMValueRef phi = LLVMBuildPhi(e->b, t, "");
    LLVMValueRef vals[2] = {l, LLVMConstNull(t)};
    LLVMBasicBlockRef blocks[2] = {then, from};
    LLVMAddIncoming(phi, vals, blocks, 2);
    return phi;
}

static LLVMValueRef lane_pointers(emitter *e, LLVMTypeRef t, LLVMValueRef base, LLVMValueRef idx64, LLVMValueRef mask) {
    LLVMValueRef safe = sel(e, mask, idx64, LLVMConstNull(LLVMTypeOf(idx64)));
    return LLVMBuildGEP2(e->b, t, splat(e, base), &safe, 1, "");
}

/* Pairs: the packet's elements are every other element of the 2W-element
 * span at p (lane l at p + 2l).  Half h of the span is a W-element vector
 * whose even positions belong to lanes h·W/2 + j/2; its mask enables just
 * those of active lanes, so no other element is touched. */
static LLVMValueRef half_mask(emitter *e, LLVMValueRef mask, unsigned h) {
    LLVMValueRef idx[32];
    for (unsigned j = 0; j < e->W; j++) idx[j] = const_i32(e, j % 2 ? e->W : h * e->W / 2 + j / 2);
    return LLVMBuildShuffleVector(e->b, mask, LLVMConstNull(LLVMTypeOf(mask)), LLVMConstVector(idx, e->W), "");
}

static LLVMValueRef half_pointer(emitter *e, LLVMTypeRef t, LLVMValueRef p, unsigned h) {
    LLVMValueRef off = const_i64(e, h * e->W);
    return h ? LLVMBuildGEP2(e->b, t, p, &off, 1, "") : p;
}

/* With every lane active (the all-active body outside predicated blocks)
 * the span's elements 0..2W-2 are all inside the buffer: two plain loads,
 * at p and p + W - 1 (masked loads ran 5x slower on Zen). */
static LLVMValueRef pair_load(emitter *e, const xir_inst *i, tir_scalar s, LLVMTypeRef t, LLVMValueRef p,
                              LLVMValueRef mask) {
    LLVMValueRef half[2], idx[32];
    bool all = e->full && !e->predicated[i->parent->id];
    LLVMValueRef shifted = const_i64(e, e->W - 1);
    for (unsigned h = 0; h < 2; h++)
        half[h] = !all ? masked_load(e, s, half_pointer(e, t, p, h), half_mask(e, mask, h))
                       : plain_load(e, s, vec_of(e, t), h ? LLVMBuildGEP2(e->b, t, p, &shifted, 1, "") : p);
    /* lane l is span element 2l: in the second half (at W-1 when all) past W-1 */
    for (unsigned l = 0; l < e->W; l++) idx[l] = const_i32(e, all && 2 * l >= e->W ? 2 * l + 1 : 2 * l);
    e->info->counters.pair_loads++;
    return LLVMBuildShuffleVector(e->b, half[0], half[1], LLVMConstVector(idx, e->W), "");
}

/* With every lane active: W scalar stores (AVX2 masked stores, microcoded
 * on AMD, ran 5x slower than a contiguous store); otherwise two masked
 * stores of the lanes spread over the span's halves. */
static void pair_store(emitter *e, const xir_inst *i, tir_scalar s, LLVMTypeRef t, LLVMValueRef v, LLVMValueRef p,
                       LLVMValueRef mask) {
    e->info->counters.pair_stores++;
    if (e->full && !e->predicated[i->parent->id]) {
        for (unsigned l = 0; l < e->W; l++) {
            LLVMValueRef at = const_i64(e, 2 * l);
            LLVMValueRef lane = LLVMBuildExtractElement(e->b, v, const_i32(e, l), "");
            plain_store(e, s, lane, LLVMBuildGEP2(e->b, t, p, &at, 1, ""));
        }
        return;
    }
    for (unsigned h = 0; h < 2; h++) {
        LLVMValueRef idx[32];
        for (unsigned j = 0; j < e->W; j++) idx[j] = const_i32(e, h * e->W / 2 + j / 2);
        LLVMValueRef spread =
            LLVMBuildShuffleVector(e->b, v, LLVMGetPoison(LLVMTypeOf(v)), LLVMConstVector(idx, e->W), "");
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
    LLVMValueRef first = LLVMBuildExtractElement(e->b, index64(e, xir_operand(even, 1), true), const_i32(e, 0), "");
    LLVMValueRef ve = to_mem(e, s, get(e, xir_operand(even, 2), true));
    LLVMValueRef vo = to_mem(e, s, get(e, xir_operand(odd, 2), true));
    LLVMValueRef p = LLVMBuildGEP2(e->b, t, base, &first, 1, "");
    bool all = e->full && !e->predicated[b->parent->id];
    for (unsigned h = 0; h < 2; h++) {
        LLVMValueRef idx[32], lanes[32];
        for (unsigned j = 0; j < e->W; j++) {
            lanes[j] = const_i32(e, h * e->W / 2 + j / 2);
            idx[j] = const_i32(e, (j % 2 ? e->W : 0) + h * e->W / 2 + j / 2);
        }
        LLVMValueRef v = LLVMBuildShuffleVector(e->b, ve, vo, LLVMConstVector(idx, e->W), "");
        LLVMValueRef q = half_pointer(e, t, p, h);
        if (all) plain_store(e, s, v, q);
        else
            masked_store(e, s, v, q,
                         LLVMBuildShuffleVector(e->b, mask, LLVMGetPoison(LLVMTypeOf(mask)), LLVMConstVector(lanes, e->W), ""));
    }
    e->info->counters.joined_pair_stores++;
}

static LLVMValueRef buffer_read(emitter *e, const xir_inst *i) {
    tir_scalar s = i->value.type->scalar;
    const xir_value *idx = xir_operand(i, 1);
    LLVMValueRef base = get(e, xir_operand(i, 0), false), mask = block_mask(e, i->parent);
    LLVMTypeRef t = mem_type(e, s);
    unsigned facts = facts_of(e, idx);
    bool pred = e->predicated[i->parent->id];
    if (!varying(e, &i->value) || (facts & LANE_EQUAL)) {
        LLVMValueRef k = varying(e, idx) ? LLVMBuildExtractElement(e->b, index64(e, idx, true), const_i32(e, 0), "")
                                         : index64(e, idx, false);
        LLVMValueRef p = LLVMBuildGEP2(e->b, t, base, &k, 1, "");
        e->info->counters.broadcast_loads++;
        LLVMValueRef v = from_mem(e, s, guarded_scalar_load(e, s, p, pred ? mask : NULL));
        return varying(e, &i->value) ? splat(e, v) : v;
    }
    LLVMValueRef k = index64(e, idx, true);
    if (facts & LANE_CONSEC) {
        LLVMValueRef first = LLVMBuildExtractElement(e->b, k, const_i32(e, 0), "");
        e->info->counters.contiguous_loads++;
        return from_mem(e, s, masked_load(e, s, LLVMBuildGEP2(e->b, t, base, &first, 1, ""), mask));
    }
    if (facts & LANE_PAIRS) {
        LLVMValueRef first = LLVMBuildExtractElement(e->b, k, const_i32(e, 0), "");
        return from_mem(e, s, pair_load(e, i, s, t, LLVMBuildGEP2(e->b, t, base, &first, 1, ""), mask));
    }
    e->info->counters.gathers++;
    return from_mem(e, s, gather(e, s, lane_pointers(e, t, base, k, mask), mask));
}

/* Whether a contiguous store may bypass the caches: its argument is
 * marked streaming, every lane stores (the all-active body, outside any
 * predicated block), and the packet is a whole 16-, 32- or 64-byte vector. */
static bool streaming(emitter *e, const xir_inst *i) {
    const xir_value *buf = xir_operand(i, 0);
    uint64_t bytes = (uint64_t)e->W * tir_scalar_size(xir_operand(i, 2)->type->scalar);
    return buf->kind == XIR_VALUE_ARG && buf->arg_index < 64 && (e->streaming_args >> buf->arg_index & 1) && e->full &&
           !e->predicated[i->parent->id] && (bytes == 16 || bytes == 32 || bytes == 64);
}

/* A non-temporal store of the packet with alignment `align`. */
static void nontemporal_store(emitter *e, LLVMValueRef v, LLVMValueRef p, unsigned align) {
    LLVMValueRef st = LLVMBuildStore(e->b, v, p), one = LLVMConstInt(e->i32, 1, false);
    LLVMSetAlignment(st, align);
    LLVMSetMetadata(st, LLVMGetMDKindIDInContext(e->c, "nontemporal", 11), LLVMMDNodeInContext(e->c, &one, 1));
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
    LLVMValueRef address = LLVMBuildPtrToInt(e->b, p, e->i64, "");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->c, e->body, "stored");
    /* 16-byte aligned, else (SSE4A) 8-byte aligned: each a non-temporal store */
    for (unsigned align = 16; align >= 8; align /= 2) {
        if (align == 8 && !e->host->sse4a) break;
        LLVMValueRef low = LLVMBuildAnd(e->b, address, const_i64(e, align - 1), "");
        LLVMBasicBlockRef nt = LLVMAppendBasicBlockInContext(e->c, e->body, "streaming_store");
        LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(e->c, e->body, "not_aligned");
        LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntEQ, low, const_i64(e, 0), ""), nt, next);
        LLVMPositionBuilderAtEnd(e->b, nt);
        nontemporal_store(e, v, p, align);
        LLVMBuildBr(e->b, done);
        LLVMPositionBuilderAtEnd(e->b, next);
    }
    plain_store(e, s, v, p);
    LLVMBuildBr(e->b, done);
    LLVMPositionBuilderAtEnd(e->b, done);
    e->info->counters.streaming_stores++;
}

static void buffer_write(emitter *e, const xir_inst *i) {
    const xir_value *idx = xir_operand(i, 1), *value = xir_operand(i, 2);
    tir_scalar s = value->type->scalar;
    LLVMValueRef base = get(e, xir_operand(i, 0), false), mask = block_mask(e, i->parent);
    LLVMTypeRef t = mem_type(e, s);
    if (e->paired[i->value.id]) {
        joined_pair_store(e, e->paired[i->value.id], i, s, t, base, mask);
        return;
    }
    unsigned facts = facts_of(e, idx);
    if (!varying(e, idx) && !varying(e, value) && !e->predicated[i->parent->id]) {
        LLVMValueRef k = index64(e, idx, false);
        e->info->counters.uniform_stores++;
        plain_store(e, s, to_mem(e, s, get(e, value, false)), LLVMBuildGEP2(e->b, t, base, &k, 1, ""));
        return;
    }
    LLVMValueRef v = to_mem(e, s, get(e, value, true)), k = index64(e, idx, true);
    if (facts & LANE_CONSEC) {
        LLVMValueRef first = LLVMBuildExtractElement(e->b, k, const_i32(e, 0), "");
        LLVMValueRef p = LLVMBuildGEP2(e->b, t, base, &first, 1, "");
        e->info->counters.contiguous_stores++;
        if (streaming(e, i)) streaming_store(e, s, v, p);
        else masked_store(e, s, v, p, mask);
        return;
    }
    if (facts & LANE_PAIRS) {
        int sign;
        const xir_inst *partner = simd_pair_partner(i, e->W, e->apart_args, &sign);
        if (partner && !e->paired[partner->value.id]) { /* emitted with its partner, joined_pair_store */
            e->paired[partner->value.id] = i;
            e->pair_sign[partner->value.id] = (signed char)sign;
            return;
        }
        LLVMValueRef first = LLVMBuildExtractElement(e->b, k, const_i32(e, 0), "");
        pair_store(e, i, s, t, v, LLVMBuildGEP2(e->b, t, base, &first, 1, ""), mask);
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
    LLVMTypeRef bits_t = LLVMIntTypeInContext(e->c, e->W);
    LLVMValueRef bits = LLVMBuildZExt(e->b, LLVMBuildBitCast(e->b, mask, bits_t, ""), e->i32, "");
    LLVMBasicBlockRef report = LLVMAppendBasicBlockInContext(e->c, e->body, "fault");
    LLVMBasicBlockRef first = LLVMAppendBasicBlockInContext(e->c, e->body, "fault_first");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->c, e->body, "fault_done");
    LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntNE, bits, const_i32(e, 0), ""), report, done);
    LLVMPositionBuilderAtEnd(e->b, report);
    LLVMTypeRef t32 = e->i32;
    LLVMValueRef cttz_args[2] = {bits, LLVMConstInt(e->i1, 1, false)};
    LLVMValueRef lane = intrinsic(e, "llvm.cttz", &t32, 1, cttz_args, 2);
    LLVMValueRef s = varying(e, site) ? LLVMBuildExtractElement(e->b, get(e, site, true), lane, "") : get(e, site, false);
    LLVMValueRef v = varying(e, value) ? LLVMBuildExtractElement(e->b, get(e, value, true), lane, "") : get(e, value, false);
    LLVMValueRef old = LLVMBuildAtomicRMW(e->b, LLVMAtomicRMWBinOpAdd, e->faults, const_i64(e, 1),
                                          LLVMAtomicOrderingMonotonic, false);
    LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntEQ, old, const_i64(e, 0), ""), first, done);
    LLVMPositionBuilderAtEnd(e->b, first);
    LLVMValueRef at_value = const_i64(e, FAULT_RECORD_VALUE_OFFSET), at_site = const_i64(e, FAULT_RECORD_SITE_OFFSET);
    LLVMBuildStore(e->b, v, LLVMBuildGEP2(e->b, e->i8, e->faults, &at_value, 1, ""));
    LLVMBuildStore(e->b, s, LLVMBuildGEP2(e->b, e->i8, e->faults, &at_site, 1, ""));
    LLVMBuildBr(e->b, done);
    LLVMPositionBuilderAtEnd(e->b, done);
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
    LLVMValueRef safe = sel(e, mask, q, LLVMConstNull(LLVMTypeOf(q)));
    LLVMValueRef off = LLVMBuildAdd(e->b, LLVMBuildMul(e->b, safe, splat(e, const_i64(e, e->W)), ""), e->lane64, "");
    return LLVMBuildGEP2(e->b, t, splat(e, array), &off, 1, "");
}

static LLVMValueRef private_load(emitter *e, const xir_inst *i) {
    tir_scalar s = i->value.type->scalar;
    LLVMTypeRef t = mem_type(e, s);
    LLVMValueRef array, q, mask = block_mask(e, i->parent);
    bool uniform;
    private_slot(e, xir_operand(i, 0), &array, &q, &uniform);
    if (uniform) {
        LLVMValueRef off = LLVMBuildMul(e->b, q, const_i64(e, e->W), "");
        LLVMValueRef p = LLVMBuildGEP2(e->b, t, array, &off, 1, "");
        e->info->counters.private_vector_accesses++;
        if (e->predicated[i->parent->id]) return from_mem(e, s, masked_load(e, s, p, mask));
        return from_mem(e, s, plain_load(e, s, vec_of(e, t), p));
    }
    e->info->counters.private_gather_scatters++;
    return from_mem(e, s, gather(e, s, private_pointers(e, t, array, q, mask), mask));
}

static void private_store(emitter *e, const xir_inst *i) {
    const xir_value *value = xir_operand(i, 1);
    tir_scalar s = value->type->scalar;
    LLVMTypeRef t = mem_type(e, s);
    LLVMValueRef array, q, mask = block_mask(e, i->parent), v = to_mem(e, s, get(e, value, true));
    bool uniform;
    private_slot(e, xir_operand(i, 0), &array, &q, &uniform);
    if (uniform) {
        LLVMValueRef off = LLVMBuildMul(e->b, q, const_i64(e, e->W), "");
        LLVMValueRef p = LLVMBuildGEP2(e->b, t, array, &off, 1, "");
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
    LLVMValueRef v = get(e, value, true), wrap = const_i32(e, e->W - 1);
    bool vl = varying(e, lane);
    LLVMValueRef l = LLVMBuildIntCast2(e->b, get(e, lane, vl), vl ? vec_of(e, e->i32) : e->i32, false, "");
    if (vl) wrap = splat(e, wrap);
    if (!vl) return LLVMBuildExtractElement(e->b, v, LLVMBuildAnd(e->b, l, wrap, ""), "");
    LLVMValueRef r = LLVMGetPoison(LLVMTypeOf(v));
    for (uint32_t k = 0; k < e->W; k++) {
        LLVMValueRef src = LLVMBuildExtractElement(e->b, LLVMBuildAnd(e->b, l, wrap, ""), const_i32(e, k), "");
        r = LLVMBuildInsertElement(e->b, r, LLVMBuildExtractElement(e->b, v, src, ""), const_i32(e, k), "");
    }
    return r;
}

/* ---- control flow ---- */

static LLVMTypeRef value_type(emitter *e, const xir_value *v) {
    LLVMTypeRef t = scalar_type(e, v->type->scalar);
    return varying(e, v) ? vec_of(e, t) : t;
}

/* The mask of the edge pred → b (both arms when they coincide). */
static LLVMValueRef edge_mask(emitter *e, const xir_block *pred, const xir_block *b) {
    xir_block *succ[2];
    unsigned n = xir_block_successors(pred, succ);
    LLVMValueRef m = NULL;
    for (unsigned k = 0; k < n; k++)
        if (succ[k] == b) m = m ? LLVMBuildOr(e->b, m, e->edge[pred->id][k], "") : e->edge[pred->id][k];
    return m;
}

/* PHIs of a predicated block or a region join: selects on the edge masks.
 * Every incoming value is read before any result is defined. */
static void phi_selects(emitter *e, const xir_block *b) {
    for (const xir_inst *i = b->first; i && i->kind == XIR_INST_PHI; i = i->next) {
        bool vec = varying(e, &i->value);
        LLVMValueRef r = get(e, xir_operand(i, 0), vec);
        for (uint32_t k = 1; k < i->operand_count; k++)
            r = sel(e, edge_mask(e, i->incoming[k], b), get(e, xir_operand(i, k), vec), r);
        e->val[i->value.id] = r;
    }
}

static void set_edges(emitter *e, const xir_block *b, const xir_inst *t, LLVMValueRef mask) {
    if (t->kind == XIR_INST_BR) {
        e->edge[b->id][0] = mask;
    } else if (t->kind == XIR_INST_COND_BR) {
        LLVMValueRef c = get(e, xir_operand(t, 0), true);
        e->edge[b->id][0] = LLVMBuildAnd(e->b, mask, c, "");
        e->edge[b->id][1] = LLVMBuildAnd(e->b, mask, LLVMBuildNot(e->b, c, ""), "");
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
        LLVMBuildRetVoid(e->b);
        return;
    }
    if (e->predicated[b->id]) {
        set_edges(e, b, t, e->mask[b->id]);
        LLVMBuildBr(e->b, e->entry_bb[e->next_linear[b->id]]);
        return;
    }
    if (t->kind == XIR_INST_BR) {
        LLVMBuildBr(e->b, e->entry_bb[t->targets[0]->id]);
        return;
    }
    if (varying(e, xir_operand(t, 0)) && e->W == 1) { /* one lane: its own branch (stores keep the tail mask) */
        LLVMValueRef c = LLVMBuildExtractElement(e->b, get(e, xir_operand(t, 0), false), const_i32(e, 0), "");
        LLVMBuildCondBr(e->b, c, e->entry_bb[t->targets[0]->id], e->entry_bb[t->targets[1]->id]);
        return;
    }
    if (varying(e, xir_operand(t, 0))) {
        if (start_region(e, b)) return;
        set_edges(e, b, t, e->tail_mask);
        LLVMBuildBr(e->b, e->entry_bb[e->next_linear[b->id]]);
        return;
    }
    if (t->targets[0] == t->targets[1]) LLVMBuildBr(e->b, e->entry_bb[t->targets[0]->id]);
    else LLVMBuildCondBr(e->b, get(e, xir_operand(t, 0), false), e->entry_bb[t->targets[0]->id], e->entry_bb[t->targets[1]->id]);
}

static void emit_inst(emitter *e, const xir_inst *i) {
    LLVMValueRef r = NULL;
    switch (i->kind) {
    case XIR_INST_ARITH: r = arith(e, i); break;
    case XIR_INST_CAST:
    case XIR_INST_BITCAST: r = cast(e, i); break;
    case XIR_INST_PHI:
        if (!e->predicated[i->parent->id] && !e->join[i->parent->id]) r = LLVMBuildPhi(e->b, value_type(e, &i->value), "");
        break;
    case XIR_INST_ALLOCA: break; /* placed in the entry block up front */
    case XIR_INST_GEP: r = index64(e, xir_operand(i, 1), varying(e, &i->value)); break;
    case XIR_INST_LOAD: r = private_load(e, i); break;
    case XIR_INST_STORE: private_store(e, i); break;
    case XIR_INST_BUFFER_READ: r = buffer_read(e, i); break;
    case XIR_INST_BUFFER_WRITE: buffer_write(e, i); break;
    case XIR_INST_FAULT: fault(e, i); break;
    case XIR_INST_BUFFER_ADDRESS: r = LLVMBuildPtrToInt(e->b, get(e, xir_operand(i, 0), false), e->i64, ""); break;
    case XIR_INST_WARP_READ_LANE: r = read_lane(e, i); break;
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
    LLVMBasicBlockRef from = LLVMGetInsertBlock(e->b);
    LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(e->c, e->body, "some_lane");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->c, e->body, "skipped");
    LLVMBuildCondBr(e->b, any_lane(e, e->mask[b->id]), run, done);
    LLVMPositionBuilderAtEnd(e->b, run);
    const xir_inst *i = b->first;
    for (; i && !e->status && !xir_inst_is_terminator(i); i = i->next)
        emit_inst(e, i); /* a PHI here is already a select (phi_selects) */
    LLVMBasicBlockRef run_end = LLVMGetInsertBlock(e->b);
    LLVMBuildBr(e->b, done);
    LLVMPositionBuilderAtEnd(e->b, done);
    for (const xir_inst *d = b->first; d != i && !e->status; d = d->next) {
        LLVMValueRef v = d->kind == XIR_INST_PHI ? NULL : e->val[d->value.id];
        if (!v || d->value.type->kind != XIR_TYPE_SCALAR) continue;
        LLVMValueRef phi = LLVMBuildPhi(e->b, LLVMTypeOf(v), "");
        LLVMValueRef vals[2] = {v, LLVMConstNull(LLVMTypeOf(v))};
        LLVMBasicBlockRef blocks[2] = {run_end, from};
        LLVMAddIncoming(phi, vals, blocks, 2);
        e->val[d->value.id] = phi;
    }
    if (i && !e->status) emit_terminator(e, b, i);
}

static void emit_block(emitter *e, const xir_block *b) {
    LLVMPositionBuilderAtEnd(e->b, e->entry_bb[b->id]);
    if (e->predicated[b->id]) {
        const xir_cfg *cfg = &e->an->cfg;
        LLVMValueRef m = NULL;
        for (uint32_t q = 0; q < xir_cfg_pred_count(cfg, b); q++) {
            LLVMValueRef em = edge_mask(e, xir_cfg_preds(cfg, b)[q], b);
            m = m ? LLVMBuildOr(e->b, m, em, "") : em;
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
    e->exit_bb[b->id] = LLVMGetInsertBlock(e->b);
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
                LLVMPositionBuilderBefore(e->b, LLVMGetBasicBlockTerminator(bb));
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
                total += (i->alloca_type->count * e->W * tir_scalar_size(i->alloca_type->scalar) + 63) / 64 * 64;
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
            uint64_t n = i->alloca_type->count * e->W;
            LLVMValueRef a;
            if (stack) {
                a = LLVMBuildAlloca(e->b, LLVMArrayType2(mem_type(e, s), n), "private");
                LLVMSetAlignment(a, 64);
            } else {
                LLVMValueRef at = const_i64(e, offset);
                a = LLVMBuildGEP2(e->b, e->i8, e->workspace, &at, 1, "private");
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
        LLVMAttributeRef a = LLVMCreateStringAttribute(e->c, keys[k], (unsigned)strlen(keys[k]), vals[k], (unsigned)strlen(vals[k]));
        LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, a);
    }
}

/* One packet body; `full`: every lane is active (the tail mask is the
 * constant all-true mask, which LLVM folds away). */
static tilec_status emit_body(emitter *e, bool full) {
    LLVMTypeRef params[6] = {e->ptr, e->i32, e->i32, e->i32, e->ptr, e->ptr};
    e->body = LLVMAddFunction(e->m, full ? "tilec_packet_full" : "tilec_packet",
                              LLVMFunctionType(LLVMVoidTypeInContext(e->c), params, 6, false));
    LLVMSetLinkage(e->body, LLVMInternalLinkage);
    set_target_attributes(e, e->body);
    e->args = LLVMGetParam(e->body, 0);
    e->block_id = LLVMGetParam(e->body, 1);
    e->base = LLVMGetParam(e->body, 2);
    e->dsize = LLVMGetParam(e->body, 3);
    e->workspace = LLVMGetParam(e->body, 4);
    e->faults = LLVMGetParam(e->body, 5);
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(e->c, e->body, "entry");
    LLVMPositionBuilderAtEnd(e->b, entry);
    LLVMValueRef lanes32[16], lanes64[16];
    for (uint32_t l = 0; l < e->W; l++) lanes32[l] = const_i32(e, l), lanes64[l] = const_i64(e, l);
    e->lane32 = LLVMConstVector(lanes32, e->W);
    e->lane64 = LLVMConstVector(lanes64, e->W);
    e->full = full;
    e->tail_mask = full ? LLVMConstAllOnes(e->vmask)
                        : LLVMBuildICmp(e->b, LLVMIntULT, LLVMBuildAdd(e->b, splat(e, e->base), e->lane32, ""),
                                        splat(e, e->dsize), "tail");
    LLVMTypeRef arg_t = LLVMStructTypeInContext(e->c, (LLVMTypeRef[2]){e->ptr, e->i64}, 2, false);
    for (size_t a = 0; a < e->f->args.len; a++) {
        LLVMValueRef idx[2] = {const_i64(e, a), const_i32(e, 0)};
        LLVMValueRef p = LLVMBuildGEP2(e->b, arg_t, e->args, idx, 2, "");
        e->bufptr[a] = LLVMBuildLoad2(e->b, e->ptr, p, "buffer");
    }
    if (place_allocas(e)) return e->status;
    const xir_cfg *cfg = &e->an->cfg;
    for (uint32_t k = 0; k < cfg->rpo_count; k++)
        e->entry_bb[cfg->rpo[k]->id] = LLVMAppendBasicBlockInContext(e->c, e->body, cfg->rpo[k]->name ? cfg->rpo[k]->name : "");
    LLVMBuildBr(e->b, e->entry_bb[e->f->first->id]);
    for (uint32_t k = 0; k < cfg->rpo_count && !e->status; k++) emit_block(e, cfg->rpo[k]);
    if (!e->status) fill_phis(e);
    return e->status;
}

/* entry(args, block_begin, block_end, dispatch_size, workspace, faults): for each
 * block, packets base = block·B + p·W for p·W < B while base < dispatch_size;
 * complete packets call `full` when there is one, every packet when there is
 * no `masked` body. */
static void emit_entry(emitter *e, const char *name, LLVMValueRef masked, LLVMValueRef full) {
    LLVMTypeRef params[6] = {e->ptr, e->i32, e->i32, e->i32, e->ptr, e->ptr};
    LLVMValueRef fn = LLVMAddFunction(e->m, name, LLVMFunctionType(LLVMVoidTypeInContext(e->c), params, 6, false));
    set_target_attributes(e, fn);
    LLVMValueRef args = LLVMGetParam(fn, 0), begin = LLVMGetParam(fn, 1), end = LLVMGetParam(fn, 2), dsize = LLVMGetParam(fn, 3);
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(e->c, fn, "entry");
    LLVMBasicBlockRef blocks = LLVMAppendBasicBlockInContext(e->c, fn, "blocks");
    LLVMBasicBlockRef packets = LLVMAppendBasicBlockInContext(e->c, fn, "packets");
    LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(e->c, fn, "run");
    LLVMBasicBlockRef next_block = LLVMAppendBasicBlockInContext(e->c, fn, "next_block");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->c, fn, "done");
    LLVMPositionBuilderAtEnd(e->b, entry);
    LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntULT, begin, end, ""), blocks, done);
    /* blocks: blk = phi; start = blk·B (64-bit) */
    LLVMPositionBuilderAtEnd(e->b, blocks);
    LLVMValueRef blk = LLVMBuildPhi(e->b, e->i32, "block");
    LLVMValueRef start = LLVMBuildMul(e->b, LLVMBuildZExt(e->b, blk, e->i64, ""), const_i64(e, e->f->block_size), "");
    LLVMBuildBr(e->b, packets);
    LLVMPositionBuilderAtEnd(e->b, packets);
    LLVMValueRef off = LLVMBuildPhi(e->b, e->i64, "offset");
    LLVMValueRef base = LLVMBuildAdd(e->b, start, off, "");
    LLVMValueRef live = LLVMBuildAnd(e->b, LLVMBuildICmp(e->b, LLVMIntULT, off, const_i64(e, e->f->block_size), ""),
                                     LLVMBuildICmp(e->b, LLVMIntULT, base, LLVMBuildZExt(e->b, dsize, e->i64, ""), ""), "");
    LLVMBuildCondBr(e->b, live, run, next_block);
    LLVMPositionBuilderAtEnd(e->b, run);
    LLVMValueRef call_args[6] = {args, blk, LLVMBuildTrunc(e->b, base, e->i32, ""), dsize, LLVMGetParam(fn, 4),
                                 LLVMGetParam(fn, 5)};
    LLVMValueRef off_next = LLVMBuildAdd(e->b, off, const_i64(e, e->W), "");
    LLVMBasicBlockRef call_full = NULL;
    if (full && !masked) {
        LLVMBuildCall2(e->b, LLVMGlobalGetValueType(full), full, call_args, 6, "");
    } else if (full) {
        call_full = LLVMAppendBasicBlockInContext(e->c, fn, "full_packet");
        LLVMBasicBlockRef call_tail = LLVMAppendBasicBlockInContext(e->c, fn, "tail_packet");
        LLVMValueRef complete = LLVMBuildICmp(e->b, LLVMIntULE, LLVMBuildAdd(e->b, base, const_i64(e, e->W), ""),
                                              LLVMBuildZExt(e->b, dsize, e->i64, ""), "");
        LLVMBuildCondBr(e->b, complete, call_full, call_tail);
        LLVMPositionBuilderAtEnd(e->b, call_full);
        LLVMBuildCall2(e->b, LLVMGlobalGetValueType(full), full, call_args, 6, "");
        LLVMBuildBr(e->b, packets);
        LLVMPositionBuilderAtEnd(e->b, call_tail);
    }
    if (masked) LLVMBuildCall2(e->b, LLVMGlobalGetValueType(masked), masked, call_args, 6, "");
    LLVMBasicBlockRef run_end = LLVMGetInsertBlock(e->b);
    LLVMBuildBr(e->b, packets);
    LLVMPositionBuilderAtEnd(e->b, next_block);
    LLVMValueRef blk_next = LLVMBuildAdd(e->b, blk, const_i32(e, 1), "");
    LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntULT, blk_next, end, ""), blocks, done);
    LLVMPositionBuilderAtEnd(e->b, done);
    /* non-temporal stores are weakly ordered: a full fence (x86: mfence)
     * before the pool's completion makes them visible to its waiter */
    if (e->info->counters.streaming_stores) LLVMBuildFence(e->b, LLVMAtomicOrderingSequentiallyConsistent, false, "");
    LLVMBuildRetVoid(e->b);
    LLVMValueRef v1[2] = {begin, blk_next};
    LLVMBasicBlockRef b1[2] = {entry, next_block};
    LLVMAddIncoming(blk, v1, b1, 2);
    LLVMValueRef v2[3] = {const_i64(e, 0), off_next, off_next};
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
    emitter e = {.ctx = ctx, .f = f, .an = an, .host = host, .W = width, .info = info, .m = m,
                 .streaming_args = streaming_args, .apart_args = apart_args};
    e.c = LLVMGetModuleContext(m);
    e.b = LLVMCreateBuilderInContext(e.c);
    e.i1 = LLVMInt1TypeInContext(e.c);
    e.i8 = LLVMInt8TypeInContext(e.c);
    e.i32 = LLVMInt32TypeInContext(e.c);
    e.i64 = LLVMInt64TypeInContext(e.c);
    e.ptr = LLVMPointerTypeInContext(e.c, 0);
    e.vmask = LLVMVectorType(e.i1, width);
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
    LLVMDisposeBuilder(e.b);
    return st;
}
