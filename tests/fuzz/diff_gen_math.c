/* diff_gen_math.c — the generator's math family (diff_gen_internal.h,
 * docs/fuzzing.md "Math kernels on edge inputs"): tiles loaded from buffers
 * of `inputs=edges` data (±0, ±inf, NaN, subnormals, the largest finite
 * values, the overflow and underflow thresholds of exp, sinh, cosh, exp2,
 * log1p ..., a few ulps around them), each passed through one function of
 * the math library and stored.  The plain generator keeps transcendental
 * functions to inputs where their error is small against its tolerance; here
 * the comparison is in ulps of the element type instead, so every input of
 * the whole domain is fair.
 *
 * The bound per function is the documented native error (docs/tir.md "Math
 * functions") plus the reference's own: it computes in double with the C
 * library and rounds to the element type, so for f32 it is within half an
 * ulp of the correctly rounded result (+1), and for f64 within the C
 * library's error, up to 2 ulps for glibc's sinh/cosh/erf (+2).  One
 * function per value: a chain would compound the errors past any bound. */
#include "diff_gen_internal.h"

typedef struct {
    tir_ew_op op;
    uint32_t ulps; /* the documented native error */
} math_fn;

static const math_fn FUNCTIONS[] = {
    {TIR_EW_EXP, 1},   {TIR_EW_LOG, 1},   {TIR_EW_TANH, 1},  {TIR_EW_ERF, 1},     {TIR_EW_SIN, 1},
    {TIR_EW_COS, 1},   {TIR_EW_TAN, 1},   {TIR_EW_ASIN, 1},  {TIR_EW_ACOS, 1},    {TIR_EW_ATAN, 1},
    {TIR_EW_SINH, 1},  {TIR_EW_COSH, 1},  {TIR_EW_EXPM1, 1}, {TIR_EW_LOG1P, 1},   {TIR_EW_EXP2, 1},
    {TIR_EW_LOG2, 1},  {TIR_EW_LOG10, 1}, {TIR_EW_CBRT, 1},  {TIR_EW_POW, 1},     {TIR_EW_ATAN2, 1},
    {TIR_EW_SQRT, 0},  {TIR_EW_RSQRT, 1}, {TIR_EW_SIGMOID, 2}, {TIR_EW_FLOOR, 0}, {TIR_EW_CEIL, 0},
    {TIR_EW_ROUND, 0}, {TIR_EW_TRUNC, 0},
};

/* Before the function, sometimes an exact step: neg or abs (both sides give
 * the same bits), or a cast to the kernel's other float type (the reference
 * rounds at casts too). */
static bool pre_op(gen *g, gen_val *x) {
    tir_scalar s = gen_elem(x);
    tir_value *v = NULL;
    uint32_t r = gen_below(g, 10);
    if (r < 2) v = tir_ew1(g->b, r ? TIR_EW_NEG : TIR_EW_ABS, x->v);
    else if (r < 4 && g->n_floats == 2) v = tir_cast(g->b, x->v, s == TIR_F32 ? TIR_F64 : TIR_F32);
    else return true;
    *x = gen_push(g, v, diff_facts_any(tir_type_elem(tir_value_type(v))));
    return gen_live(g);
}

void gen_math_block(gen *g) {
    for (int n = gen_range(g, 1, 4); n > 0 && gen_live(g); n--) {
        tir_scalar s = g->floats[gen_below(g, (uint32_t)g->n_floats)];
        uint32_t rank = (uint32_t)gen_range(g, 1, 2);
        int dims[GEN_MAX_RANK];
        uint64_t ext[GEN_MAX_RANK];
        gen_tile_axes(g, rank, dims, ext);
        gen_val x, y;
        if (!gen_load_space(g, s, rank, dims, ext, &x) || !pre_op(g, &x)) continue;
        s = gen_elem(&x);
        const math_fn *fn = &FUNCTIONS[gen_below(g, sizeof FUNCTIONS / sizeof *FUNCTIONS)];
        tir_value *v;
        if (fn->op == TIR_EW_POW || fn->op == TIR_EW_ATAN2) { /* a second operand: another load, x itself, or a constant */
            uint32_t r = gen_below(g, 3);
            if (r == 0 && !gen_load_space(g, s, rank, dims, ext, &y)) continue;
            if (r == 1) y = x;
            if (r == 2) y = gen_const_scalar(g, s);
            bool swap = gen_chance(g, 0.5);
            v = tir_ew2(g->b, fn->op, swap ? y.v : x.v, swap ? x.v : y.v);
        } else {
            v = tir_ew1(g->b, fn->op, x.v);
        }
        gen_val out = gen_push(g, v, diff_facts_any(s));
        uint32_t bound = fn->ulps + (s == TIR_F32 ? 1 : 2);
        if (bound > g->math_ulps) g->math_ulps = bound;
        for (int tries = 0; tries < 4 && gen_live(g); tries++)
            if (gen_store(g, &out)) break;
    }
}
