/* scalar.c — XIR's value semantics as LLVM IR for values of either shape
 * (see scalar.h), moved here from the SIMD backend so that the GPU backend
 * computes exactly what it computes. */
#include "codegen/scalar.h"

#include "scalar/math_ops.h"
#include "xir/eval.h"

#include <stdio.h>
#include <string.h>

void cg_builder_init(cg_builder *g, LLVMModuleRef m, uint32_t width, bool hw_half, cg_math_fn math) {
    g->c = LLVMGetModuleContext(m);
    g->m = m;
    g->b = LLVMCreateBuilderInContext(g->c);
    g->i1 = LLVMInt1TypeInContext(g->c);
    g->i8 = LLVMInt8TypeInContext(g->c);
    g->i32 = LLVMInt32TypeInContext(g->c);
    g->i64 = LLVMInt64TypeInContext(g->c);
    g->W = width;
    g->hw_half = hw_half;
    g->math = math;
}

LLVMTypeRef cg_scalar_type(cg_builder *e, tir_scalar s) {
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

LLVMTypeRef cg_mem_type(cg_builder *e, tir_scalar s) { return s == TIR_BOOL ? e->i8 : cg_scalar_type(e, s); }
LLVMTypeRef cg_vec_of(cg_builder *e, LLVMTypeRef t) { return LLVMVectorType(t, e->W); }
bool cg_is_vec(LLVMValueRef v) { return LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMVectorTypeKind; }
unsigned cg_align_of(tir_scalar s) { return (unsigned)tir_scalar_size(s); }

LLVMValueRef cg_splat(cg_builder *e, LLVMValueRef v) {
    if (cg_is_vec(v)) return v;
    LLVMTypeRef vt = LLVMVectorType(LLVMTypeOf(v), e->W);
    LLVMValueRef one = LLVMBuildInsertElement(e->b, LLVMGetPoison(vt), v, LLVMConstInt(e->i32, 0, false), "");
    return LLVMBuildShuffleVector(e->b, one, LLVMGetPoison(vt), LLVMConstNull(LLVMVectorType(e->i32, e->W)), "");
}

LLVMValueRef cg_intrinsic(cg_builder *e, const char *name, LLVMTypeRef *types, size_t n_types, LLVMValueRef *args,
                              unsigned n_args) {
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(e->m, id, types, n_types);
    LLVMTypeRef ft = LLVMIntrinsicGetType(e->c, id, types, n_types);
    return LLVMBuildCall2(e->b, ft, fn, args, n_args, "");
}

LLVMValueRef cg_const_i32(cg_builder *e, uint64_t v) { return LLVMConstInt(e->i32, v, false); }
LLVMValueRef cg_const_i64(cg_builder *e, uint64_t v) { return LLVMConstInt(e->i64, v, false); }

LLVMValueRef cg_constant(cg_builder *e, const xir_value *v) {
    tir_scalar s = v->type->scalar;
    uint64_t raw = xir_bits_raw(s, v->constant);
    if (s == TIR_F32) return LLVMConstBitCast(LLVMConstInt(e->i32, raw, false), cg_scalar_type(e, s));
    if (s == TIR_F64) return LLVMConstBitCast(LLVMConstInt(e->i64, raw, false), cg_scalar_type(e, s));
    return LLVMConstInt(cg_scalar_type(e, s), raw, false);
}

static LLVMValueRef cg_zero_like(LLVMValueRef v) { return LLVMConstNull(LLVMTypeOf(v)); }

static LLVMValueRef cg_all_ones_like(LLVMValueRef v) { return LLVMConstAllOnes(LLVMTypeOf(v)); }

static LLVMValueRef cg_int_const_like(cg_builder *e, LLVMValueRef v, uint64_t k) {
    LLVMTypeRef t = LLVMTypeOf(v);
    if (cg_is_vec(v)) return cg_splat(e, LLVMConstInt(LLVMGetElementType(t), k, false));
    return LLVMConstInt(t, k, false);
}

LLVMValueRef cg_sel(cg_builder *e, LLVMValueRef c, LLVMValueRef t, LLVMValueRef f) {
    return LLVMBuildSelect(e->b, c, t, f, "");
}

LLVMValueRef cg_any_lane(cg_builder *e, LLVMValueRef mask) {
    LLVMTypeRef t = LLVMTypeOf(mask);
    return cg_intrinsic(e, "llvm.vector.reduce.or", &t, 1, &mask, 1);
}

static LLVMValueRef cg_int_divmod(cg_builder *e, bool div, bool is_signed, LLVMValueRef a, LLVMValueRef d) {
    LLVMValueRef zero = cg_zero_like(d), one = cg_int_const_like(e, d, 1);
    LLVMValueRef by_zero = LLVMBuildICmp(e->b, LLVMIntEQ, d, zero, "");
    if (!is_signed) {
        LLVMValueRef safe = cg_sel(e, by_zero, one, d);
        LLVMValueRef r = div ? LLVMBuildUDiv(e->b, a, safe, "") : LLVMBuildURem(e->b, a, safe, "");
        return cg_sel(e, by_zero, zero, r);
    }
    LLVMValueRef minus_one = LLVMBuildICmp(e->b, LLVMIntEQ, d, cg_all_ones_like(d), "");
    LLVMValueRef safe = cg_sel(e, LLVMBuildOr(e->b, by_zero, minus_one, ""), one, d);
    LLVMValueRef r = div ? LLVMBuildSDiv(e->b, a, safe, "") : LLVMBuildSRem(e->b, a, safe, "");
    if (div) r = cg_sel(e, minus_one, LLVMBuildNeg(e->b, a, ""), r);
    else r = cg_sel(e, minus_one, zero, r);
    return cg_sel(e, by_zero, zero, r);
}

static LLVMValueRef cg_sign_bit(cg_builder *e, LLVMValueRef x, tir_scalar t) {
    LLVMTypeRef it = t == TIR_F32 ? e->i32 : e->i64;
    if (cg_is_vec(x)) it = cg_vec_of(e, it);
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
static LLVMValueRef cg_float_minmax(cg_builder *e, bool is_min, tir_scalar t, LLVMValueRef a, LLVMValueRef b) {
    LLVMTypeRef type = LLVMTypeOf(a);
    LLVMValueRef args[2] = {a, b};
    LLVMValueRef m = cg_intrinsic(e, is_min ? "llvm.minnum" : "llvm.maxnum", &type, 1, args, 2);
    LLVMValueRef sa = cg_sign_bit(e, a, t);
    LLVMValueRef tie = is_min ? cg_sel(e, sa, a, b) : cg_sel(e, sa, b, a);
    return cg_sel(e, LLVMBuildFCmp(e->b, LLVMRealOEQ, a, b, ""), tie, m);
}

static LLVMValueRef cg_float_unary_intrinsic(cg_builder *e, const char *name, LLVMValueRef x) {
    LLVMTypeRef t = LLVMTypeOf(x);
    return cg_intrinsic(e, name, &t, 1, &x, 1);
}

/* The LLVM type of scalar s in the shape of v (a scalar or a packet). */
static LLVMTypeRef cg_like(cg_builder *e, LLVMValueRef v, tir_scalar s) {
    return cg_is_vec(v) ? cg_vec_of(e, cg_scalar_type(e, s)) : cg_scalar_type(e, s);
}

static LLVMValueRef cg_splat_like(cg_builder *e, LLVMValueRef v, LLVMValueRef c) {
    return cg_is_vec(v) ? cg_splat(e, c) : c;
}

/* f16/bf16 → f32, exactly: bf16 is the upper half of an f32; f16 widens
 * with F16C's vcvtph2ps (LLVM's fpext), or, on a CPU without it, by moving
 * the fields (a subnormal through a float multiply, which is exact). */
static LLVMValueRef cg_widen_half(cg_builder *e, tir_scalar from, LLVMValueRef v) {
    LLVMTypeRef f32 = cg_like(e, v, TIR_F32), i32 = cg_like(e, v, TIR_I32);
    if (from == TIR_F16 && e->hw_half) {
        LLVMTypeRef h = cg_is_vec(v) ? cg_vec_of(e, LLVMHalfTypeInContext(e->c)) : LLVMHalfTypeInContext(e->c);
        return LLVMBuildFPExt(e->b, LLVMBuildBitCast(e->b, v, h, ""), f32, "");
    }
    LLVMValueRef bits = LLVMBuildZExt(e->b, v, i32, "");
    if (from == TIR_BF16) return LLVMBuildBitCast(e->b, LLVMBuildShl(e->b, bits, cg_splat_like(e, v, cg_const_i32(e, 16)), ""), f32, "");
    /* f16: sign << 16 | (magnitude << 13) · 2^112, then inf/NaN fixed */
    LLVMValueRef sign = LLVMBuildShl(e->b, LLVMBuildAnd(e->b, bits, cg_splat_like(e, v, cg_const_i32(e, 0x8000)), ""),
                                     cg_splat_like(e, v, cg_const_i32(e, 16)), "");
    LLVMValueRef mag = LLVMBuildAnd(e->b, bits, cg_splat_like(e, v, cg_const_i32(e, 0x7fff)), "");
    LLVMValueRef scaled = LLVMBuildFMul(e->b, LLVMBuildBitCast(e->b, LLVMBuildShl(e->b, mag, cg_splat_like(e, v, cg_const_i32(e, 13)), ""), f32, ""),
                                        cg_splat_like(e, v, LLVMConstReal(cg_scalar_type(e, TIR_F32), 0x1p112)), "");
    LLVMValueRef special = LLVMBuildICmp(e->b, LLVMIntUGE, mag, cg_splat_like(e, v, cg_const_i32(e, 0x7c00)), "");
    LLVMValueRef infnan = LLVMBuildOr(e->b, LLVMBuildShl(e->b, mag, cg_splat_like(e, v, cg_const_i32(e, 13)), ""),
                                      cg_splat_like(e, v, cg_const_i32(e, 0x7f800000)), "");
    LLVMValueRef m = cg_sel(e, special, infnan, LLVMBuildBitCast(e->b, scaled, i32, ""));
    return LLVMBuildBitCast(e->b, LLVMBuildOr(e->b, sign, m, ""), f32, "");
}

/* f32 → bf16 rounded to nearest even, a NaN kept quiet (tir.md
 * "Half-precision types"; base/half.c's rule). */
static LLVMValueRef cg_narrow_bf16(cg_builder *e, LLVMValueRef v) {
    LLVMTypeRef i32 = cg_like(e, v, TIR_I32), i16 = cg_like(e, v, TIR_I16);
    LLVMValueRef bits = LLVMBuildBitCast(e->b, v, i32, ""), c16 = cg_splat_like(e, v, cg_const_i32(e, 16));
    LLVMValueRef odd = LLVMBuildAnd(e->b, LLVMBuildLShr(e->b, bits, c16, ""), cg_splat_like(e, v, cg_const_i32(e, 1)), "");
    LLVMValueRef up = LLVMBuildAdd(e->b, LLVMBuildAdd(e->b, bits, cg_splat_like(e, v, cg_const_i32(e, 0x7fff)), ""), odd, "");
    LLVMValueRef nan = LLVMBuildOr(e->b, bits, cg_splat_like(e, v, cg_const_i32(e, 0x400000)), "");
    LLVMValueRef r = cg_sel(e, LLVMBuildFCmp(e->b, LLVMRealUNO, v, v, ""), nan, up);
    return LLVMBuildTrunc(e->b, LLVMBuildLShr(e->b, r, c16, ""), i16, "");
}

/* f32 → f16 rounded to nearest even: F16C's vcvtps2ph (LLVM's fptrunc);
 * without F16C, by integer steps on the magnitude's bits: a result below
 * f16's normal range through one float add of 0.5 (whose ulp is the f16
 * subnormal quantum, so that add is the one rounding), a normal one by
 * rebiasing the exponent and rounding the 13 dropped bits to even, 65520
 * and above to inf, a NaN quiet with its top payload bits. */
static LLVMValueRef cg_narrow_f16(cg_builder *e, LLVMValueRef v) {
    LLVMTypeRef i32 = cg_like(e, v, TIR_I32), i16 = cg_like(e, v, TIR_I16), f32 = cg_like(e, v, TIR_F32);
    if (e->hw_half) {
        LLVMTypeRef h = cg_is_vec(v) ? cg_vec_of(e, LLVMHalfTypeInContext(e->c)) : LLVMHalfTypeInContext(e->c);
        return LLVMBuildBitCast(e->b, LLVMBuildFPTrunc(e->b, v, h, ""), i16, "");
    }
#define C(x) cg_splat_like(e, v, cg_const_i32(e, (int32_t)(x)))
    LLVMValueRef bits = LLVMBuildBitCast(e->b, v, i32, "");
    LLVMValueRef a = LLVMBuildAnd(e->b, bits, C(0x7fffffff), "");
    LLVMValueRef half = cg_splat_like(e, v, LLVMConstReal(cg_scalar_type(e, TIR_F32), 0.5));
    LLVMValueRef sub = LLVMBuildSub(e->b, LLVMBuildBitCast(e->b, LLVMBuildFAdd(e->b, LLVMBuildBitCast(e->b, a, f32, ""), half, ""), i32, ""),
                                    LLVMBuildBitCast(e->b, half, i32, ""), "");
    LLVMValueRef odd = LLVMBuildAnd(e->b, LLVMBuildLShr(e->b, a, C(13), ""), C(1), "");
    LLVMValueRef normal = LLVMBuildLShr(
        e->b, LLVMBuildAdd(e->b, LLVMBuildAdd(e->b, a, C((uint32_t)(15 - 127) << 23 | 0xfff), ""), odd, ""), C(13), "");
    LLVMValueRef nan = LLVMBuildOr(e->b, LLVMBuildLShr(e->b, LLVMBuildAnd(e->b, a, C(0x7fffff), ""), C(13), ""), C(0x7e00), "");
    LLVMValueRef r = cg_sel(e, LLVMBuildICmp(e->b, LLVMIntULT, a, C(0x38800000), ""), sub, normal);
    r = cg_sel(e, LLVMBuildICmp(e->b, LLVMIntUGE, a, C(0x47800000), ""), C(0x7c00), r);
    r = cg_sel(e, LLVMBuildICmp(e->b, LLVMIntUGT, a, C(0x7f800000), ""), nan, r);
    LLVMValueRef sign = LLVMBuildLShr(e->b, LLVMBuildAnd(e->b, bits, C(0x80000000u), ""), C(16), "");
#undef C
    return LLVMBuildTrunc(e->b, LLVMBuildOr(e->b, r, sign, ""), i16, "");
}

/* A double rounded to odd as an f32 (the nearest float, its last bit set
 * when inexact): narrowing that to f16/bf16 rounds as narrowing the double
 * directly would (f32 has more than two extra bits). */
static LLVMValueRef cg_double_to_odd_float(cg_builder *e, LLVMValueRef d) {
    LLVMTypeRef i32 = cg_like(e, d, TIR_I32);
    LLVMValueRef f = LLVMBuildFPTrunc(e->b, d, cg_like(e, d, TIR_F32), ""), back = LLVMBuildFPExt(e->b, f, LLVMTypeOf(d), "");
    LLVMValueRef inexact = LLVMBuildFCmp(e->b, LLVMRealONE, back, d, "");
    LLVMValueRef above = LLVMBuildFCmp(e->b, LLVMRealOGT, cg_float_unary_intrinsic(e, "llvm.fabs", back),
                                       cg_float_unary_intrinsic(e, "llvm.fabs", d), "");
    LLVMValueRef bits = LLVMBuildBitCast(e->b, f, i32, "");
    LLVMValueRef toward_zero = cg_sel(e, LLVMBuildAnd(e->b, inexact, above, ""), LLVMBuildSub(e->b, bits, cg_splat_like(e, d, cg_const_i32(e, 1)), ""), bits);
    LLVMValueRef odd = cg_sel(e, inexact, LLVMBuildOr(e->b, toward_zero, cg_splat_like(e, d, cg_const_i32(e, 1)), ""), toward_zero);
    return LLVMBuildBitCast(e->b, odd, cg_like(e, d, TIR_F32), "");
}

/* Any numeric → f16/bf16, one rounding: an f32 directly, anything else
 * through double (exact for every type but 64-bit integers above 2^53, as
 * in the interpreters) rounded to odd as an f32. */
static LLVMValueRef cg_to_half(cg_builder *e, tir_scalar from, tir_scalar to, LLVMValueRef v) {
    if (from != TIR_F32) {
        LLVMTypeRef f64 = cg_like(e, v, TIR_F64);
        if (from == TIR_BOOL) v = LLVMBuildUIToFP(e->b, v, f64, "");
        else if (tir_scalar_is_integer(from))
            v = tir_scalar_is_signed(from) ? LLVMBuildSIToFP(e->b, v, f64, "") : LLVMBuildUIToFP(e->b, v, f64, "");
        v = cg_double_to_odd_float(e, v);
    }
    return to == TIR_F16 ? cg_narrow_f16(e, v) : cg_narrow_bf16(e, v);
}

/* A value conversion (XIR cast semantics, xir/eval.h). */
LLVMValueRef cg_convert(cg_builder *e, tir_scalar from, tir_scalar to, LLVMValueRef v) {
    LLVMTypeRef tt = cg_like(e, v, to);
    if (from == to) return v;
    if (tir_scalar_is_half(to) && tir_scalar_is_half(from)) return cg_to_half(e, TIR_F32, to, cg_widen_half(e, from, v));
    if (tir_scalar_is_half(to)) return cg_to_half(e, from, to, v);
    if (tir_scalar_is_half(from)) return cg_convert(e, TIR_F32, to, cg_widen_half(e, from, v));
    bool ffl = tir_scalar_is_float(from), tfl = tir_scalar_is_float(to);
    if (to == TIR_BOOL)
        return ffl ? LLVMBuildFCmp(e->b, LLVMRealUNE, v, cg_zero_like(v), "") : LLVMBuildICmp(e->b, LLVMIntNE, v, cg_zero_like(v), "");
    if (tfl) {
        if (ffl) return tir_scalar_size(to) > tir_scalar_size(from) ? LLVMBuildFPExt(e->b, v, tt, "") : LLVMBuildFPTrunc(e->b, v, tt, "");
        return tir_scalar_is_signed(from) ? LLVMBuildSIToFP(e->b, v, tt, "") : LLVMBuildUIToFP(e->b, v, tt, "");
    }
    if (ffl) {
        LLVMTypeRef types[2] = {tt, LLVMTypeOf(v)};
        return cg_intrinsic(e, tir_scalar_is_signed(to) ? "llvm.fptosi.sat" : "llvm.fptoui.sat", types, 2, &v, 1);
    }
    return LLVMBuildIntCast2(e->b, v, tt, tir_scalar_is_signed(from), "");
}

LLVMValueRef cg_to_mem(cg_builder *e, tir_scalar s, LLVMValueRef v) {
    if (s != TIR_BOOL) return v;
    return LLVMBuildZExt(e->b, v, cg_is_vec(v) ? cg_vec_of(e, e->i8) : e->i8, "");
}

LLVMValueRef cg_from_mem(cg_builder *e, tir_scalar s, LLVMValueRef v) {
    if (s != TIR_BOOL) return v;
    return LLVMBuildICmp(e->b, LLVMIntNE, v, cg_zero_like(v), "");
}

/* x with every subnormal f32 (as i32 bits) replaced by the zero of its sign. */
static LLVMValueRef cg_flush_bits(cg_builder *e, LLVMValueRef x) {
    LLVMValueRef exponent = LLVMBuildAnd(e->b, x, cg_int_const_like(e, x, 0x7f800000u), "");
    LLVMValueRef sub = LLVMBuildICmp(e->b, LLVMIntEQ, exponent, cg_zero_like(x), "");
    return cg_sel(e, sub, LLVMBuildAnd(e->b, x, cg_int_const_like(e, x, 0x80000000u), ""), x);
}

/* One step of dot_bf16x2 on f32 bits: flush(fma(p, q, acc)), all i32 bits. */
static LLVMValueRef cg_dot_step(cg_builder *e, LLVMValueRef p, LLVMValueRef q, LLVMValueRef acc) {
    LLVMTypeRef f = cg_like(e, acc, TIR_F32);
    LLVMValueRef args[3] = {LLVMBuildBitCast(e->b, cg_flush_bits(e, p), f, ""),
                            LLVMBuildBitCast(e->b, cg_flush_bits(e, q), f, ""), LLVMBuildBitCast(e->b, acc, f, "")};
    LLVMValueRef r = cg_intrinsic(e, "llvm.fma", &f, 1, args, 3);
    return cg_flush_bits(e, LLVMBuildBitCast(e->b, r, LLVMTypeOf(acc), ""));
}

/* dot_bf16x2's definition step by step (xir_dot_bf16x2): the halves
 * widened by a mask and a shift, each flushed. */
static LLVMValueRef cg_dot_bf16x2(cg_builder *e, LLVMValueRef acc, LLVMValueRef x, LLVMValueRef y) {
    LLVMTypeRef bits = cg_like(e, acc, TIR_U32);
    LLVMValueRef high = cg_int_const_like(e, x, 0xffff0000u), sixteen = cg_int_const_like(e, x, 16);
    LLVMValueRef r = cg_dot_step(e, LLVMBuildAnd(e->b, x, high, ""), LLVMBuildAnd(e->b, y, high, ""),
                                 cg_flush_bits(e, LLVMBuildBitCast(e->b, acc, bits, "")));
    r = cg_dot_step(e, LLVMBuildShl(e->b, x, sixteen, ""), LLVMBuildShl(e->b, y, sixteen, ""), r);
    return LLVMBuildBitCast(e->b, r, LLVMTypeOf(acc), "");
}

/* Element j of `width` bits of each word w, extended to i32 (signed or not). */
static LLVMValueRef cg_word_element(cg_builder *e, LLVMValueRef w, unsigned j, unsigned width, bool is_signed) {
    LLVMValueRef v = LLVMBuildShl(e->b, w, cg_int_const_like(e, w, 32 - width * (j + 1)), "");
    LLVMValueRef down = cg_int_const_like(e, w, 32 - width);
    return is_signed ? LLVMBuildAShr(e->b, v, down, "") : LLVMBuildLShr(e->b, v, down, "");
}

/* dot_u8i8x4 / dot_i16x2's definition: the elements extended, multiplied and
 * added to acc (wrapping i32 arithmetic). */
static LLVMValueRef cg_dot_int(cg_builder *e, xir_arith_op op, LLVMValueRef acc, LLVMValueRef x, LLVMValueRef y) {
    unsigned width = op == XIR_OP_DOT_U8I8X4 ? 8 : 16;
    for (unsigned j = 0; j < 32 / width; j++) {
        LLVMValueRef p = LLVMBuildMul(e->b, cg_word_element(e, x, j, width, width == 16),
                                      cg_word_element(e, y, j, width, true), "");
        acc = LLVMBuildAdd(e->b, acc, p, "");
    }
    return acc;
}

/* A dot (xir.h): its instruction where the target has it at this width and
 * a word varies over the lanes (vdpbf16ps, vpdpbusd, vpdpwssd); else its
 * definition. */
static LLVMValueRef cg_dot(cg_builder *e, xir_arith_op op, LLVMValueRef acc, LLVMValueRef x, LLVMValueRef y) {
    bool vector = cg_is_vec(acc) || cg_is_vec(x) || cg_is_vec(y);
    if (vector) acc = cg_splat(e, acc), x = cg_splat(e, x), y = cg_splat(e, y);
    bool bf16 = op == XIR_OP_DOT_BF16X2;
    if (vector && (bf16 ? e->dot_bf16 : e->dot_int8) && (e->W == 4 || e->W == 8 || e->W == 16)) {
        const char *stem = bf16 ? "llvm.x86.avx512bf16.dpbf16ps" : op == XIR_OP_DOT_U8I8X4 ? "llvm.x86.avx512.vpdpbusd"
                                                                                          : "llvm.x86.avx512.vpdpwssd";
        char name[48];
        snprintf(name, sizeof name, "%s.%u", stem, 32 * e->W);
        unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
        LLVMValueRef fn = LLVMGetIntrinsicDeclaration(e->m, id, NULL, 0);
        LLVMTypeRef ft = LLVMIntrinsicGetType(e->c, id, NULL, 0), params[3];
        LLVMGetParamTypes(ft, params);
        LLVMValueRef args[3] = {acc, LLVMBuildBitCast(e->b, x, params[1], ""), LLVMBuildBitCast(e->b, y, params[2], "")};
        return LLVMBuildCall2(e->b, ft, fn, args, 3, "");
    }
    return bf16 ? cg_dot_bf16x2(e, acc, x, y) : cg_dot_int(e, op, acc, x, y);
}

LLVMValueRef cg_arith(cg_builder *e, xir_arith_op op, tir_scalar t, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c) {
    if (op == XIR_OP_SELECT) return cg_sel(e, a, b, c);
    if (xir_arith_class(op) == XIR_OPC_DOT) return cg_dot(e, op, a, b, c);
    bool fl = tir_scalar_is_float(t), sg = tir_scalar_is_signed(t);
    switch (op) {
    case XIR_OP_ADD: return fl ? LLVMBuildFAdd(e->b, a, b, "") : LLVMBuildAdd(e->b, a, b, "");
    case XIR_OP_SUB: return fl ? LLVMBuildFSub(e->b, a, b, "") : LLVMBuildSub(e->b, a, b, "");
    case XIR_OP_MUL: return fl ? LLVMBuildFMul(e->b, a, b, "") : LLVMBuildMul(e->b, a, b, "");
    case XIR_OP_DIV: return fl ? LLVMBuildFDiv(e->b, a, b, "") : cg_int_divmod(e, true, sg, a, b);
    case XIR_OP_MOD: return cg_int_divmod(e, false, sg, a, b);
    case XIR_OP_NEG: return fl ? LLVMBuildFNeg(e->b, a, "") : LLVMBuildNeg(e->b, a, "");
    case XIR_OP_ABS:
        if (fl) return cg_float_unary_intrinsic(e, "llvm.fabs", a);
        if (!sg) return a;
        return cg_sel(e, LLVMBuildICmp(e->b, LLVMIntSLT, a, cg_zero_like(a), ""), LLVMBuildNeg(e->b, a, ""), a);
    case XIR_OP_MIN:
    case XIR_OP_MAX: {
        bool is_min = op == XIR_OP_MIN;
        if (fl) return cg_float_minmax(e, is_min, t, a, b);
        LLVMIntPredicate p = is_min ? (sg ? LLVMIntSLE : LLVMIntULE) : (sg ? LLVMIntSGE : LLVMIntUGE);
        return cg_sel(e, LLVMBuildICmp(e->b, p, a, b, ""), a, b);
    }
#define SLEEF1(op_, dbl, flt, stem) \
    case XIR_OP_##op_: return e->math(e, #stem, t, (LLVMValueRef[2]){a, NULL}, 1);
#define SLEEF2(op_, dbl, flt, stem) \
    case XIR_OP_##op_: return e->math(e, #stem, t, (LLVMValueRef[2]){a, b}, 2);
#define ROUNDING(op_, dbl, flt, intrinsic_name) \
    case XIR_OP_##op_: return cg_float_unary_intrinsic(e, intrinsic_name, a);
        TIR_SLEEF_MATH1(SLEEF1) TIR_SLEEF_MATH2(SLEEF2) TIR_ROUNDING_MATH(ROUNDING)
#undef SLEEF1
#undef SLEEF2
#undef ROUNDING
    case XIR_OP_SQRT: return cg_float_unary_intrinsic(e, "llvm.sqrt", a);
    case XIR_OP_FMA: {
        LLVMValueRef args[3] = {a, b, c};
        LLVMTypeRef type = LLVMTypeOf(a);
        return cg_intrinsic(e, "llvm.fma", &type, 1, args, 3);
    }
    case XIR_OP_AND: return LLVMBuildAnd(e->b, a, b, "");
    case XIR_OP_OR: return LLVMBuildOr(e->b, a, b, "");
    case XIR_OP_XOR: return LLVMBuildXor(e->b, a, b, "");
    case XIR_OP_NOT: return LLVMBuildNot(e->b, a, "");
    case XIR_OP_SHL:
    case XIR_OP_SHR: {
        LLVMValueRef amount = LLVMBuildAnd(e->b, b, cg_int_const_like(e, b, 8 * tir_scalar_size(t) - 1), "");
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
