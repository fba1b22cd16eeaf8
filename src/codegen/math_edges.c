/* math_edges.c — see math_edges.h.  SLEEF 3.5's u10 functions overflow to
 * ±inf short of the real thresholds (tests/tilec/math_edges.h holds the
 * cases): exp f64 from x > 709.7827111
 * (ln DBL_MAX = 709.7827129), pow f64 once y·ln|x| passes that constant,
 * sinh and cosh once e^|x| overflows (f32 from 88.72, not 89.42; f64 from
 * 709.78, not 710.48), log1p from x > 1e38 (f32) and 1e307 (f64).  The
 * lanes of those regions are recomputed from other SLEEF calls, in a block
 * that runs only when some lane is there (other packets pay a compare and
 * a branch):
 *   exp x (f64, x ≥ 709)               4·E·(1 + k)
 *   sinh, cosh x (|x| ≥ 88, 709)       ±2·E·(1 + k): e^-|x| is far below an ulp there
 *     with E = exp(|x| − c), c = 2·ln 2 rounded up to a multiple of the ulp
 *     of |x| in its binade (so |x| − c is exact) and 1 + k = e^(c − 2 ln 2)
 *     applied as fma(E, k, E): one rounding after SLEEF's exp, and k > 0
 *     keeps an infinite E infinite (not inf − inf);
 *   log1p x (x ≥ 2^126, 2^1019)        log x (1 + x is x to far below an ulp);
 *   pow x, y (f64: SLEEF's ±inf with x, y finite, x ≠ 0)
 *                                      x^(y−d)·x^d for |x| > 1, x^(y+d)/x^d below,
 *     with d = 1 for |y| < 2^20 (x^1 = x exactly), else the power of two
 *     2^(⌊log2 |y|⌋ − 20): x^(y∓d) then lies ≥ e^(3·10^-4) below x^y, outside
 *     SLEEF's premature overflow, and y ∓ d is exact (d ≥ ulp(y), and an
 *     integer when y is, keeping a negative x's sign).
 * And the scalar erff (a uniform value's) is 2 ulps off for subnormal x:
 *   erf x (f32, |x| < 2^-64)             (2/√π)·x, scaled by 2^64 around the
 *     product (2/√π as hi + lo, one fma: nearly correctly rounded) so that
 *     only the last step rounds to the subnormal quantum (x³ is far below
 *     an ulp); a select, no branch, as it is cheap. */
#include "codegen/math_edges.h"

#include <math.h>
#include <string.h>

static LLVMValueRef fconst(cg_builder *g, tir_scalar t, double v, LLVMValueRef shape) {
    LLVMValueRef c = LLVMConstReal(cg_scalar_type(g, t), v);
    return cg_is_vec(shape) ? cg_splat(g, c) : c;
}

static LLVMValueRef fcall(cg_builder *g, const char *intrinsic, LLVMValueRef *args, unsigned n) {
    LLVMTypeRef t = LLVMTypeOf(args[0]);
    return cg_intrinsic(g, intrinsic, &t, 1, args, n);
}

/* The lanes of `region` recomputed by `recompute` (r elsewhere), only when
 * some lane is in the region. */
typedef LLVMValueRef (*edge_fn)(cg_builder *g, cg_math_fn raw, tir_scalar t, LLVMValueRef *x);
static LLVMValueRef patch_lanes(cg_builder *g, cg_math_fn raw, tir_scalar t, LLVMValueRef *x, LLVMValueRef r,
                                LLVMValueRef region, edge_fn recompute) {
    LLVMBasicBlockRef from = LLVMGetInsertBlock(g->b);
    LLVMValueRef fn = LLVMGetBasicBlockParent(from);
    LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(g->c, fn, "math_edge");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->c, fn, "math_edge_done");
    LLVMBuildCondBr(g->b, cg_is_vec(region) ? cg_any_lane(g, region) : region, run, done);
    LLVMPositionBuilderAtEnd(g->b, run);
    LLVMValueRef fixed = cg_sel(g, region, recompute(g, raw, t, x), r);
    LLVMBasicBlockRef run_end = LLVMGetInsertBlock(g->b);
    LLVMBuildBr(g->b, done);
    LLVMPositionBuilderAtEnd(g->b, done);
    LLVMValueRef phi = LLVMBuildPhi(g->b, LLVMTypeOf(r), "");
    LLVMValueRef vals[2] = {fixed, r};
    LLVMBasicBlockRef blocks[2] = {run_end, from};
    LLVMAddIncoming(phi, vals, blocks, 2);
    return phi;
}

/* E·(1 + k)·scale, E = exp(y − c) (see above) for y ≥ 64 (f32), 512 (f64). */
static LLVMValueRef exp_near_overflow(cg_builder *g, cg_math_fn raw, tir_scalar t, LLVMValueRef y, double scale) {
    bool f32 = t == TIR_F32;
    LLVMValueRef c = fconst(g, t, f32 ? 0x1.62e48p+0 : 0x1.62e42fefa3ap+0, y);
    LLVMValueRef k = fconst(g, t, f32 ? 0x1.4041a4p-18 : 0x1.0ca86c3898d08p-48, y);
    LLVMValueRef reduced = LLVMBuildFSub(g->b, y, c, "");
    LLVMValueRef big = raw(g, "exp", t, &reduced, 1);
    LLVMValueRef fma = fcall(g, "llvm.fma", (LLVMValueRef[3]){big, k, big}, 3);
    return LLVMBuildFMul(g->b, fma, fconst(g, t, scale, y), "");
}

static LLVMValueRef edge_exp(cg_builder *g, cg_math_fn raw, tir_scalar t, LLVMValueRef *x) {
    return exp_near_overflow(g, raw, t, x[0], 4);
}

static LLVMValueRef edge_cosh(cg_builder *g, cg_math_fn raw, tir_scalar t, LLVMValueRef *x) {
    return exp_near_overflow(g, raw, t, fcall(g, "llvm.fabs", x, 1), 2);
}

static LLVMValueRef edge_sinh(cg_builder *g, cg_math_fn raw, tir_scalar t, LLVMValueRef *x) {
    return fcall(g, "llvm.copysign", (LLVMValueRef[2]){edge_cosh(g, raw, t, x), x[0]}, 2);
}

static LLVMValueRef edge_log1p(cg_builder *g, cg_math_fn raw, tir_scalar t, LLVMValueRef *x) {
    return raw(g, "log", t, x, 1);
}

static LLVMValueRef edge_pow(cg_builder *g, cg_math_fn raw, tir_scalar t, LLVMValueRef *x) {
    LLVMBuilderRef b = g->b;
    LLVMValueRef y = x[1], ay = fcall(g, "llvm.fabs", &y, 1), one = fconst(g, t, 1, y);
    /* 2^(⌊log2 |y|⌋ − 20): |y|'s exponent bits, times 2^-20 */
    LLVMTypeRef it = cg_is_vec(y) ? LLVMVectorType(g->i64, g->W) : g->i64;
    LLVMValueRef exp_bits = LLVMBuildAnd(b, LLVMBuildBitCast(b, ay, it, ""),
                                         cg_is_vec(y) ? cg_splat(g, cg_const_i64(g, 0x7ff0000000000000))
                                                      : cg_const_i64(g, 0x7ff0000000000000), "");
    LLVMValueRef scaled = LLVMBuildFMul(b, LLVMBuildBitCast(b, exp_bits, LLVMTypeOf(y), ""), fconst(g, t, 0x1p-20, y), "");
    LLVMValueRef d = cg_sel(g, LLVMBuildFCmp(b, LLVMRealOLT, ay, fconst(g, t, 0x1p20, y), ""), one, scaled);
    LLVMValueRef above = LLVMBuildFCmp(b, LLVMRealOGT, fcall(g, "llvm.fabs", x, 1), one, "");
    LLVMValueRef stepped[2] = {x[0], cg_sel(g, above, LLVMBuildFSub(b, y, d, ""), LLVMBuildFAdd(b, y, d, ""))};
    LLVMValueRef part = raw(g, "pow", t, stepped, 2);
    LLVMValueRef by_d[2] = {x[0], d};
    LLVMValueRef xd = cg_sel(g, LLVMBuildFCmp(b, LLVMRealOEQ, d, one, ""), x[0], raw(g, "pow", t, by_d, 2));
    return cg_sel(g, above, LLVMBuildFMul(b, part, xd, ""), LLVMBuildFDiv(b, part, xd, ""));
}

LLVMValueRef cg_math_edges(cg_builder *g, cg_math_fn raw, const char *fn, tir_scalar t, LLVMValueRef *x,
                           LLVMValueRef r) {
    LLVMBuilderRef b = g->b;
    bool f32 = t == TIR_F32;
    if (f32 && !strcmp(fn, "erf")) {
        LLVMValueRef tiny = LLVMBuildFCmp(b, LLVMRealOLT, fcall(g, "llvm.fabs", x, 1), fconst(g, t, 0x1p-64, x[0]), "");
        LLVMValueRef up = LLVMBuildFMul(b, x[0], fconst(g, t, 0x1p64, x[0]), "");
        LLVMValueRef lo = LLVMBuildFMul(b, up, fconst(g, t, -0x1.f7ac92p-25, x[0]), "");
        LLVMValueRef scaled = fcall(g, "llvm.fma", (LLVMValueRef[3]){up, fconst(g, t, 0x1.20dd76p+0, x[0]), lo}, 3);
        LLVMValueRef down = LLVMBuildFMul(b, scaled, fconst(g, t, 0x1p-64, x[0]), "");
        /* x's sign: −0·hi + (−0·lo = +0) would be +0 */
        return cg_sel(g, tiny, fcall(g, "llvm.copysign", (LLVMValueRef[2]){down, x[0]}, 2), r);
    }
    if (!strcmp(fn, "sinh") || !strcmp(fn, "cosh") || (!f32 && !strcmp(fn, "exp"))) {
        bool exp = !strcmp(fn, "exp");
        LLVMValueRef y = exp ? x[0] : fcall(g, "llvm.fabs", x, 1);
        LLVMValueRef region = LLVMBuildAnd(b, LLVMBuildFCmp(b, LLVMRealOGE, y, fconst(g, t, f32 ? 88 : 709, y), ""),
                                           LLVMBuildFCmp(b, LLVMRealOLT, y, fconst(g, t, INFINITY, y), ""), "");
        return patch_lanes(g, raw, t, x, r, region, exp ? edge_exp : fn[0] == 's' ? edge_sinh : edge_cosh);
    }
    if (!strcmp(fn, "log1p")) {
        LLVMValueRef region = LLVMBuildFCmp(b, LLVMRealOGE, x[0], fconst(g, t, f32 ? 0x1p126 : 0x1p1019, x[0]), "");
        return patch_lanes(g, raw, t, x, r, region, edge_log1p);
    }
    if (!f32 && !strcmp(fn, "pow")) {
        LLVMValueRef inf = fconst(g, t, INFINITY, x[0]);
        LLVMValueRef region = LLVMBuildFCmp(b, LLVMRealOEQ, fcall(g, "llvm.fabs", &r, 1), inf, "");
        region = LLVMBuildAnd(b, region, LLVMBuildFCmp(b, LLVMRealOLT, fcall(g, "llvm.fabs", x, 1), inf, ""), "");
        region = LLVMBuildAnd(b, region, LLVMBuildFCmp(b, LLVMRealOLT, fcall(g, "llvm.fabs", &x[1], 1), inf, ""), "");
        region = LLVMBuildAnd(b, region, LLVMBuildFCmp(b, LLVMRealONE, x[0], fconst(g, t, 0, x[0]), ""), "");
        return patch_lanes(g, raw, t, x, r, region, edge_pow);
    }
    return r;
}

