/* XIR scalar semantics and cleanup passes: xir_eval_* bitwise for every
 * opcode class (wrap-around, division by zero, MIN / -1, shifts, f32
 * rounding, NaN and signed zeros, saturating casts, bitcasts); constant
 * folding, dead code elimination and CFG simplification checked on the
 * printed result, each leaving a verified module and reaching a fixpoint;
 * the cleanup driver; allocation failures that leave the module intact;
 * folding and the interpreter agreeing bitwise (every opcode, type, cast and
 * bitcast, and NaN payloads). */
#include "xir_test.h"
#include "scalar/math_ops.h"
#include "xir/eval.h"
#include "xir/interp.h"
#include "xir/passes.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

/* ---- eval ---- */

static xir_bits I(int64_t v) { return (xir_bits){.i = v}; }
static xir_bits U(uint64_t v) { return (xir_bits){.u = v}; }
static xir_bits F(double v) { return (xir_bits){.f = v}; }

static xir_bits eval2(xir_arith_op op, tir_scalar t, xir_bits a, xir_bits b) {
    xir_bits args[3] = {a, b, U(0)};
    xir_bits r = {.u = 0xdeadbeef};
    CHECK(xir_eval_arith(op, t, args, &r));
    return r;
}

static xir_bits eval1(xir_arith_op op, tir_scalar t, xir_bits a) { return eval2(op, t, a, U(0)); }

/* bitwise equality of a float result with an expected double */
static bool same_double(xir_bits got, double want) { return !memcmp(&got.f, &want, sizeof want); }
/* an f32 result: the canonical double of the expected float */
static bool same_float(xir_bits got, float want) { return same_double(got, (double)want); }

static void test_eval_integers(void) {
    CHECK(eval2(XIR_OP_ADD, TIR_I8, I(127), I(1)).i == -128);
    CHECK(eval2(XIR_OP_SUB, TIR_U8, U(0), U(1)).u == 255);
    CHECK(eval2(XIR_OP_MUL, TIR_I32, I(65536), I(65536)).i == 0);
    CHECK(eval2(XIR_OP_MUL, TIR_U64, U(UINT64_MAX), U(UINT64_MAX)).u == 1);
    CHECK(eval2(XIR_OP_DIV, TIR_I32, I(7), I(0)).i == 0);
    CHECK(eval2(XIR_OP_DIV, TIR_U16, U(7), U(0)).u == 0);
    CHECK(eval2(XIR_OP_MOD, TIR_I64, I(7), I(0)).i == 0);
    CHECK(eval2(XIR_OP_MOD, TIR_U32, U(7), U(0)).u == 0);
    CHECK(eval2(XIR_OP_DIV, TIR_I32, I(INT32_MIN), I(-1)).i == INT32_MIN);
    CHECK(eval2(XIR_OP_DIV, TIR_I64, I(INT64_MIN), I(-1)).i == INT64_MIN);
    CHECK(eval2(XIR_OP_MOD, TIR_I64, I(INT64_MIN), I(-1)).i == 0);
    CHECK(eval2(XIR_OP_DIV, TIR_I32, I(-7), I(2)).i == -3); /* truncation */
    CHECK(eval2(XIR_OP_MOD, TIR_I32, I(-7), I(2)).i == -1); /* sign of the dividend */
    CHECK(eval2(XIR_OP_MOD, TIR_I32, I(7), I(-2)).i == 1);
    CHECK(eval2(XIR_OP_DIV, TIR_U32, U(0xffffffffu), U(2)).u == 0x7fffffffu);
    CHECK(eval1(XIR_OP_NEG, TIR_I8, I(-128)).i == -128);
    CHECK(eval1(XIR_OP_NEG, TIR_U8, U(1)).u == 255);
    CHECK(eval1(XIR_OP_ABS, TIR_I32, I(INT32_MIN)).i == INT32_MIN);
    CHECK(eval1(XIR_OP_ABS, TIR_I16, I(-5)).i == 5);
    CHECK(eval1(XIR_OP_ABS, TIR_U16, U(65535)).u == 65535);
    CHECK(eval2(XIR_OP_MIN, TIR_U8, U(200), U(100)).u == 100);
    CHECK(eval2(XIR_OP_MIN, TIR_I8, I(-1), I(1)).i == -1);
    CHECK(eval2(XIR_OP_MAX, TIR_U64, U(UINT64_MAX), U(1)).u == UINT64_MAX);
    CHECK(eval2(XIR_OP_MAX, TIR_I64, I(INT64_MIN), I(-1)).i == -1);
    /* shifts: the amount modulo the width; shr arithmetic on signed types */
    CHECK(eval2(XIR_OP_SHL, TIR_I32, I(1), I(31)).i == INT32_MIN);
    CHECK(eval2(XIR_OP_SHL, TIR_I32, I(1), I(33)).i == 2);
    CHECK(eval2(XIR_OP_SHL, TIR_U8, U(0x81), U(1)).u == 0x02);
    CHECK(eval2(XIR_OP_SHR, TIR_I32, I(-8), I(1)).i == -4);
    CHECK(eval2(XIR_OP_SHR, TIR_I8, I(-128), I(9)).i == -64);
    CHECK(eval2(XIR_OP_SHR, TIR_U32, U(0x80000000u), U(31)).u == 1);
    CHECK(eval2(XIR_OP_SHR, TIR_U64, U(UINT64_MAX), U(64)).u == UINT64_MAX);
    CHECK(eval2(XIR_OP_SHL, TIR_I64, I(1), I(-1)).i == INT64_MIN); /* -1 mod 64 = 63 */
    /* bitwise on integers and bool */
    CHECK(eval2(XIR_OP_AND, TIR_U8, U(0xf0), U(0x3c)).u == 0x30);
    CHECK(eval2(XIR_OP_OR, TIR_I16, I(-32768), I(1)).i == -32767);
    CHECK(eval2(XIR_OP_XOR, TIR_U32, U(0xffffffffu), U(1)).u == 0xfffffffeu);
    CHECK(eval1(XIR_OP_NOT, TIR_U8, U(0x0f)).u == 0xf0);
    CHECK(eval1(XIR_OP_NOT, TIR_I32, I(0)).i == -1);
    CHECK(eval1(XIR_OP_NOT, TIR_BOOL, U(1)).u == 0 && eval1(XIR_OP_NOT, TIR_BOOL, U(0)).u == 1);
    CHECK(eval2(XIR_OP_AND, TIR_BOOL, U(1), U(0)).u == 0 && eval2(XIR_OP_OR, TIR_BOOL, U(1), U(0)).u == 1);
    CHECK(eval2(XIR_OP_XOR, TIR_BOOL, U(1), U(1)).u == 0);
    /* comparisons by the type's signedness */
    CHECK(eval2(XIR_OP_LT, TIR_I32, I(-1), I(0)).u == 1);
    CHECK(eval2(XIR_OP_LT, TIR_U32, U(0xffffffffu), U(0)).u == 0);
    CHECK(eval2(XIR_OP_GE, TIR_U64, U(UINT64_MAX), U(0)).u == 1);
    CHECK(eval2(XIR_OP_LE, TIR_I8, I(-128), I(-128)).u == 1 && eval2(XIR_OP_GT, TIR_I8, I(-128), I(-128)).u == 0);
    CHECK(eval2(XIR_OP_EQ, TIR_BOOL, U(1), U(1)).u == 1 && eval2(XIR_OP_NE, TIR_BOOL, U(1), U(0)).u == 1);
    /* select is (condition, if_true, if_false) */
    xir_bits args[3] = {U(1), I(7), I(9)};
    xir_bits r;
    CHECK(xir_eval_arith(XIR_OP_SELECT, TIR_I32, args, &r) && r.i == 7);
    args[0] = U(0);
    CHECK(xir_eval_arith(XIR_OP_SELECT, TIR_I32, args, &r) && r.i == 9);
}

static void test_eval_floats(void) {
    /* f32 arithmetic is rounded to f32 */
    CHECK(same_float(eval2(XIR_OP_ADD, TIR_F32, F(16777216.0), F(1.0)), 16777216.0f));
    volatile float a = 0.1f, b = 0.2f, three = 3.0f, two = 2.0f;
    CHECK(same_float(eval2(XIR_OP_ADD, TIR_F32, F(a), F(b)), a + b));
    CHECK(same_float(eval2(XIR_OP_DIV, TIR_F32, F(1.0), F(three)), 1.0f / three));
    CHECK(same_float(eval2(XIR_OP_MUL, TIR_F32, F(a), F(three)), a * three));
    CHECK(same_float(eval2(XIR_OP_SUB, TIR_F32, F(1.0), F(a)), 1.0f - a));
    CHECK(same_float(eval1(XIR_OP_SQRT, TIR_F32, F(two)), sqrtf(two)));
    CHECK(same_double(eval2(XIR_OP_DIV, TIR_F64, F(1.0), F(3.0)), 1.0 / 3.0));
    CHECK(same_double(eval2(XIR_OP_ADD, TIR_F64, F(0.1), F(0.2)), 0.1 + 0.2));
    CHECK(same_float(eval2(XIR_OP_MUL, TIR_F32, F(FLT_MAX), F(2.0)), INFINITY)); /* overflows in f32 */
    CHECK(same_double(eval2(XIR_OP_DIV, TIR_F64, F(1.0), F(0.0)), INFINITY));
    CHECK(isnan(eval2(XIR_OP_DIV, TIR_F32, F(0.0), F(0.0)).f));
    CHECK(same_double(eval2(XIR_OP_DIV, TIR_F64, F(-1.0), F(0.0)), -INFINITY));
    /* min/max: a number beats a NaN; -0 orders below +0 */
    CHECK(same_float(eval2(XIR_OP_MIN, TIR_F32, F(NAN), F(1.0)), 1.0f));
    CHECK(same_float(eval2(XIR_OP_MAX, TIR_F32, F(1.0), F(NAN)), 1.0f));
    CHECK(isnan(eval2(XIR_OP_MAX, TIR_F64, F(NAN), F(NAN)).f));
    CHECK(same_double(eval2(XIR_OP_MIN, TIR_F64, F(0.0), F(-0.0)), -0.0));
    CHECK(same_double(eval2(XIR_OP_MAX, TIR_F64, F(-0.0), F(0.0)), 0.0));
    CHECK(same_double(eval1(XIR_OP_NEG, TIR_F64, F(0.0)), -0.0));
    CHECK(same_float(eval1(XIR_OP_ABS, TIR_F32, F(-0.0)), 0.0f));
    CHECK(same_float(eval1(XIR_OP_ABS, TIR_F32, F(-2.5)), 2.5f));
    CHECK(same_float(eval1(XIR_OP_EXP, TIR_F32, F(0.0)), 1.0f));
    CHECK(isnan(eval1(XIR_OP_LOG, TIR_F64, F(-1.0)).f));
    /* comparisons with NaN are false except ne */
    CHECK(eval2(XIR_OP_EQ, TIR_F32, F(NAN), F(NAN)).u == 0 && eval2(XIR_OP_NE, TIR_F32, F(NAN), F(NAN)).u == 1);
    CHECK(eval2(XIR_OP_LT, TIR_F64, F(NAN), F(1.0)).u == 0 && eval2(XIR_OP_GE, TIR_F64, F(NAN), F(1.0)).u == 0);
    CHECK(eval2(XIR_OP_EQ, TIR_F64, F(0.0), F(-0.0)).u == 1);
}

static void test_eval_casts(void) {
    /* float -> int: truncate, saturate, NaN -> 0 */
    CHECK(xir_eval_cast(TIR_F32, TIR_I32, F(NAN)).i == 0);
    CHECK(xir_eval_cast(TIR_F64, TIR_U64, F(-NAN)).u == 0);
    CHECK(xir_eval_cast(TIR_F64, TIR_I32, F(1e10)).i == INT32_MAX);
    CHECK(xir_eval_cast(TIR_F64, TIR_I32, F(-1e10)).i == INT32_MIN);
    CHECK(xir_eval_cast(TIR_F32, TIR_U8, F(-1.5)).u == 0);
    CHECK(xir_eval_cast(TIR_F32, TIR_U8, F(300.75)).u == 255);
    CHECK(xir_eval_cast(TIR_F64, TIR_I32, F(2.9)).i == 2 && xir_eval_cast(TIR_F64, TIR_I32, F(-2.9)).i == -2);
    CHECK(xir_eval_cast(TIR_F64, TIR_I64, F(INFINITY)).i == INT64_MAX);
    CHECK(xir_eval_cast(TIR_F64, TIR_I64, F(-INFINITY)).i == INT64_MIN);
    CHECK(xir_eval_cast(TIR_F64, TIR_U64, F(-INFINITY)).u == 0);
    CHECK(xir_eval_cast(TIR_F64, TIR_I64, F(9223372036854775808.0)).i == INT64_MAX);
    CHECK(xir_eval_cast(TIR_F64, TIR_U64, F(18446744073709551616.0)).u == UINT64_MAX);
    CHECK(xir_eval_cast(TIR_F64, TIR_U64, F(18446744073709549568.0)).u == 18446744073709549568u);
    CHECK(xir_eval_cast(TIR_F32, TIR_I8, F(-128.9)).i == -128 && xir_eval_cast(TIR_F32, TIR_I8, F(127.9)).i == 127);
    /* int -> float: one rounding */
    CHECK(same_float(xir_eval_cast(TIR_U64, TIR_F32, U(UINT64_MAX)), 18446744073709551616.0f));
    CHECK(same_float(xir_eval_cast(TIR_I64, TIR_F32, I(16777217)), 16777216.0f));
    CHECK(same_double(xir_eval_cast(TIR_I64, TIR_F64, I((INT64_C(1) << 53) + 1)), 9007199254740992.0));
    /* the double rounding through f64 would give 2^24 + 2; one rounding gives 2^24 */
    CHECK(same_float(xir_eval_cast(TIR_I64, TIR_F32, I((INT64_C(1) << 24) + 1 + (INT64_C(1) << 60) * 0)), 16777216.0f));
    CHECK(same_float(xir_eval_cast(TIR_U64, TIR_F32, U(UINT64_C(0x8000008000000001))), 9223373136366403584.0f));
    CHECK(same_float(xir_eval_cast(TIR_F64, TIR_F32, F(0.1)), 0.1f));
    CHECK(same_double(xir_eval_cast(TIR_F32, TIR_F64, F((double)0.1f)), (double)0.1f));
    /* to and from bool */
    CHECK(xir_eval_cast(TIR_F32, TIR_BOOL, F(NAN)).u == 1);
    CHECK(xir_eval_cast(TIR_F64, TIR_BOOL, F(-0.0)).u == 0);
    CHECK(xir_eval_cast(TIR_I32, TIR_BOOL, I(-256)).u == 1);
    CHECK(same_float(xir_eval_cast(TIR_BOOL, TIR_F32, U(1)), 1.0f));
    CHECK(xir_eval_cast(TIR_BOOL, TIR_I64, U(1)).i == 1);
    /* int -> int wraps */
    CHECK(xir_eval_cast(TIR_I32, TIR_U8, I(256)).u == 0);
    CHECK(xir_eval_cast(TIR_I32, TIR_U16, I(-1)).u == 65535);
    CHECK(xir_eval_cast(TIR_U8, TIR_I8, U(255)).i == -1);
    CHECK(xir_eval_cast(TIR_I8, TIR_U64, I(-1)).u == UINT64_MAX);
    CHECK(xir_eval_cast(TIR_U64, TIR_I64, U(UINT64_MAX)).i == -1);
}

static void test_eval_bitcasts(void) {
    xir_bits out;
    CHECK(xir_eval_bitcast(TIR_F32, TIR_U32, F(1.0), &out) && out.u == 0x3f800000u);
    CHECK(xir_eval_bitcast(TIR_F32, TIR_I32, F(-2.0), &out) && out.i == (int32_t)0xc0000000u);
    CHECK(xir_eval_bitcast(TIR_U32, TIR_F32, U(0x7fc00001u), &out) && xir_bits_raw(TIR_F32, out) == 0x7fc00001u);
    CHECK(!xir_eval_bitcast(TIR_U32, TIR_F32, U(0x7f800001u), &out)); /* a signaling f32 NaN */
    CHECK(xir_eval_bitcast(TIR_F64, TIR_I64, F(-0.0), &out) && out.i == INT64_MIN);
    CHECK(xir_eval_bitcast(TIR_I64, TIR_F64, I(-1), &out) && out.u == UINT64_MAX);
    CHECK(xir_eval_bitcast(TIR_U64, TIR_F64, U(0x7ff0000000000001u), &out) && out.u == 0x7ff0000000000001u);
    CHECK(xir_eval_bitcast(TIR_U16, TIR_I16, U(0x8000), &out) && out.i == -32768);
    CHECK(xir_eval_bitcast(TIR_I8, TIR_U8, I(-1), &out) && out.u == 255);
}

/* ---- passes, checked on the printed result ---- */

typedef bool (*pass_fn)(xir_module *);

/* Runs `pass` on `input`: it must report a change (or none, when expected is
 * NULL), leave a verified module printing as `expected`, and reach its
 * fixpoint (a second run changes nothing). */
static void check_pass(const char *what, pass_fn pass, const char *input, const char *expected) {
    xir_module *m = parse_ok(input);
    if (!m) return;
    CHECK_MSG(verifies(m), "%s: the input does not verify", what);
    char *before = print_text(m);
    bool changed = pass(m);
    CHECK_MSG(changed == (expected != NULL), "%s: changed=%d", what, changed);
    CHECK_MSG(verifies(m), "%s: the output does not verify", what);
    char *after = print_text(m);
    const char *want = expected ? expected : before;
    CHECK_MSG(after && want && !strcmp(after, want), "%s:\n--- got\n%s--- expected\n%s", what, after ? after : "",
              want ? want : "");
    CHECK_MSG(!pass(m), "%s: a second run still changes the module", what);
    free(before);
    free(after);
    xir_module_destroy(m);
}

static void test_fold(void) {
    check_pass("fold integers", xir_fold_constants,
               "kernel @k(%o: buffer<i32>, %u: buffer<u8>, %b: buffer<bool>) block_size=64 {\n^entry:\n"
               "  %a = add i32 2147483647, i32 1 : i32\n"
               "  buffer_write %o, u64 0, %a\n"
               "  %d = div i32 7, i32 0 : i32\n"
               "  buffer_write %o, u64 1, %d\n"
               "  %m = mod i32 -2147483648, i32 -1 : i32\n"
               "  buffer_write %o, u64 2, %m\n"
               "  %q = div i32 -2147483648, i32 -1 : i32\n"
               "  %chain = sub %q, %a : i32\n"
               "  buffer_write %o, u64 3, %chain\n"
               "  %s = shr i32 -8, i32 33 : i32\n"
               "  buffer_write %o, u64 4, %s\n"
               "  %n = not u8 15 : u8\n"
               "  %x = xor %n, u8 1 : u8\n"
               "  buffer_write %u, u64 0, %x\n"
               "  %lt = lt u8 200, u8 100\n"
               "  %lti = lt i32 -1, i32 0\n"
               "  %both = or %lt, %lti : bool\n"
               "  buffer_write %b, u64 0, %both\n"
               "  ret\n}\n",
               "kernel @k(%o: buffer<i32>, %u: buffer<u8>, %b: buffer<bool>) block_size=64 {\n^entry:\n"
               "  buffer_write %o, u64 0, i32 -2147483648\n"
               "  buffer_write %o, u64 1, i32 0\n"
               "  buffer_write %o, u64 2, i32 0\n"
               "  buffer_write %o, u64 3, i32 0\n"
               "  buffer_write %o, u64 4, i32 -4\n"
               "  buffer_write %u, u64 0, u8 241\n"
               "  buffer_write %b, u64 0, bool true\n"
               "  ret\n}\n");
    check_pass("fold floats and casts", xir_fold_constants,
               "kernel @k(%f: buffer<f32>, %d: buffer<f64>, %i: buffer<i32>, %w: buffer<u32>) block_size=64 {\n"
               "^entry:\n"
               "  %a = add f32 16777216.0, f32 1.0 : f32\n"
               "  buffer_write %f, u64 0, %a\n"
               "  %t = div f32 1.0, f32 3.0 : f32\n"
               "  buffer_write %f, u64 1, %t\n"
               "  %mn = min f32 nan, f32 -1.5 : f32\n"
               "  buffer_write %f, u64 2, %mn\n"
               "  %z = mul f32 -0.0, f32 1.0 : f32\n"
               "  buffer_write %f, u64 3, %z\n"
               "  %r = sqrt f64 2.0 : f64\n"
               "  buffer_write %d, u64 0, %r\n"
               "  %e = exp f64 1.0 : f64\n"
               "  buffer_write %d, u64 1, %e\n"
               "  %l = log f32 2.0 : f32\n"
               "  %th = tanh %l : f32\n"
               "  buffer_write %f, u64 4, %th\n"
               "  %c1 = cast f32 nan to i32\n"
               "  buffer_write %i, u64 0, %c1\n"
               "  %c2 = cast f64 -1e+10 to i32\n"
               "  buffer_write %i, u64 1, %c2\n"
               "  %c3 = cast f64 -2.9 to i32\n"
               "  buffer_write %i, u64 2, %c3\n"
               "  %c4 = cast i64 16777217 to f32\n"
               "  buffer_write %f, u64 5, %c4\n"
               "  %c5 = cast u64 18446744073709551615 to f64\n"
               "  buffer_write %d, u64 2, %c5\n"
               "  %b1 = bitcast f32 1.0 to u32\n"
               "  buffer_write %w, u64 0, %b1\n"
               "  %b2 = bitcast u32 2143289345 to f32\n"
               "  buffer_write %f, u64 6, %b2\n"
               "  %b3 = bitcast u32 2139095041 to f32\n"
               "  buffer_write %f, u64 7, %b3\n"
               "  ret\n}\n",
               "kernel @k(%f: buffer<f32>, %d: buffer<f64>, %i: buffer<i32>, %w: buffer<u32>) block_size=64 {\n"
               "^entry:\n"
               "  buffer_write %f, u64 0, f32 16777216.0\n"
               "  buffer_write %f, u64 1, f32 0.33333334\n"
               "  buffer_write %f, u64 2, f32 -1.5\n"
               "  buffer_write %f, u64 3, f32 -0.0\n"
               "  buffer_write %d, u64 0, f64 1.4142135623730951\n"
               "  %e = exp f64 1.0 : f64\n"
               "  buffer_write %d, u64 1, %e\n"
               "  %l = log f32 2.0 : f32\n"
               "  %th = tanh %l : f32\n"
               "  buffer_write %f, u64 4, %th\n"
               "  buffer_write %i, u64 0, i32 0\n"
               "  buffer_write %i, u64 1, i32 -2147483648\n"
               "  buffer_write %i, u64 2, i32 -2\n"
               "  buffer_write %f, u64 5, f32 16777216.0\n"
               "  buffer_write %d, u64 2, f64 1.8446744073709552e+19\n"
               "  buffer_write %w, u64 0, u32 1065353216\n"
               "  buffer_write %f, u64 6, f32 nan:0x7fc00001\n"
               "  %b3 = bitcast u32 2139095041 to f32\n"
               "  buffer_write %f, u64 7, %b3\n"
               "  ret\n}\n");
    /* select (condition, if_true, if_false), identity casts, PHIs of one value */
    check_pass("fold select and phi", xir_fold_constants,
               "kernel @k(%o: buffer<i32>) block_size=64 {\n^entry:\n"
               "  %v = cast warp_lane_id to i32\n"
               "  %w = cast block_id to i32\n"
               "  %t = select bool true, %v, %w : i32\n"
               "  %f = select bool false, %v, %w : i32\n"
               "  %c = eq %v, %w\n"
               "  %same = select %c, %t, %v : i32\n"
               "  %keep = select %c, %v, %w : i32\n"
               "  %id = cast %keep to i32\n"
               "  %round = bitcast %f to i32\n"
               "  cond_br %c, ^a, ^join\n"
               "^a:\n"
               "  br ^join\n"
               "^join:\n"
               "  %p = phi i32 [%same, ^a], [%v, ^entry]\n"
               "  %sum = add %p, %id : i32\n"
               "  %sum2 = add %sum, %round : i32\n"
               "  buffer_write %o, u64 0, %sum2\n"
               "  ret\n}\n",
               "kernel @k(%o: buffer<i32>) block_size=64 {\n^entry:\n"
               "  %v = cast warp_lane_id to i32\n"
               "  %w = cast block_id to i32\n"
               "  %c = eq %v, %w\n"
               "  %keep = select %c, %v, %w : i32\n"
               "  cond_br %c, ^a, ^join\n"
               "^a:\n"
               "  br ^join\n"
               "^join:\n"
               "  %sum = add %v, %keep : i32\n"
               "  %sum2 = add %sum, %w : i32\n"
               "  buffer_write %o, u64 0, %sum2\n"
               "  ret\n}\n");
    /* a loop-carried PHI that only ever carries its initial value */
    check_pass("fold loop phi", xir_fold_constants,
               "kernel @k(%o: buffer<u32>) block_size=64 {\n^entry:\n  br ^loop\n"
               "^loop:\n"
               "  %i = phi u32 [u32 0, ^entry], [%i.next, ^loop]\n"
               "  %c = phi u32 [warp_lane_id, ^entry], [%c, ^loop]\n"
               "  %i.next = add %i, u32 1 : u32\n"
               "  %more = lt %i.next, %c\n"
               "  cond_br %more, ^loop, ^exit\n"
               "^exit:\n  buffer_write %o, u64 0, %c\n  ret\n}\n",
               "kernel @k(%o: buffer<u32>) block_size=64 {\n^entry:\n  br ^loop\n"
               "^loop:\n"
               "  %i = phi u32 [u32 0, ^entry], [%i.next, ^loop]\n"
               "  %i.next = add %i, u32 1 : u32\n"
               "  %more = lt %i.next, warp_lane_id\n"
               "  cond_br %more, ^loop, ^exit\n"
               "^exit:\n  buffer_write %o, u64 0, warp_lane_id\n  ret\n}\n");
    check_pass("nothing to fold", xir_fold_constants,
               "kernel @k(%o: buffer<f32>) block_size=64 {\n^entry:\n"
               "  %x = buffer_read %o, u64 0 : f32\n  %y = exp %x : f32\n  buffer_write %o, u64 1, %y\n  ret\n}\n",
               NULL);
}

static void test_dce(void) {
    check_pass("dce", xir_eliminate_dead_code,
               "kernel @k(%o: buffer<f32>) block_size=64 {\n^entry:\n"
               "  %x = buffer_read %o, u64 0 : f32\n"
               "  %unused = mul %x, f32 2.0 : f32\n"
               "  %unused2 = exp %unused : f32\n"
               "  %dead.read = buffer_read %o, u64 1 : f32\n"
               "  %addr = buffer_address %o\n"
               "  %lane = warp_read_lane %x, u32 0 : f32\n"
               "  %scratch = alloca array<f32, 4>\n"
               "  %slot = gep %scratch, i32 1 : ptr<f32>\n"
               "  store %slot, %x\n"
               "  %kept = alloca array<f32, 2>\n"
               "  %k0 = gep %kept, i32 0 : ptr<f32>\n"
               "  store %k0, %x\n"
               "  %k1 = gep %kept, i32 1 : ptr<f32>\n"
               "  %back = load %k1 : f32\n"
               "  br ^loop\n"
               "^loop:\n"
               "  %i = phi u32 [u32 0, ^entry], [%i.next, ^loop]\n"
               "  %cycle = phi f32 [f32 0.0, ^entry], [%cycle.next, ^loop]\n"
               "  %cycle.next = add %cycle, f32 1.0 : f32\n"
               "  %i.next = add %i, u32 1 : u32\n"
               "  %more = lt %i.next, u32 4\n"
               "  cond_br %more, ^loop, ^exit\n"
               "^exit:\n"
               "  buffer_write %o, u64 2, %back\n"
               "  ret\n}\n",
               "kernel @k(%o: buffer<f32>) block_size=64 {\n^entry:\n"
               "  %x = buffer_read %o, u64 0 : f32\n"
               "  %kept = alloca array<f32, 2>\n"
               "  %k0 = gep %kept, i32 0 : ptr<f32>\n"
               "  store %k0, %x\n"
               "  %k1 = gep %kept, i32 1 : ptr<f32>\n"
               "  %back = load %k1 : f32\n"
               "  br ^loop\n"
               "^loop:\n"
               "  %i = phi u32 [u32 0, ^entry], [%i.next, ^loop]\n"
               "  %i.next = add %i, u32 1 : u32\n"
               "  %more = lt %i.next, u32 4\n"
               "  cond_br %more, ^loop, ^exit\n"
               "^exit:\n"
               "  buffer_write %o, u64 2, %back\n"
               "  ret\n}\n");
    check_pass("dce keeps effects", xir_eliminate_dead_code,
               "kernel @k(%o: buffer<f32>) block_size=64 {\n^entry:\n"
               "  %x = buffer_read %o, u64 0 : f32\n"
               "  buffer_write %o, u64 1, %x\n"
               "  %a = alloca array<f32, 1>\n"
               "  %p = gep %a, i32 0 : ptr<f32>\n"
               "  store %p, %x\n"
               "  %y = load %p : f32\n"
               "  %c = gt %y, f32 0.0\n"
               "  cond_br %c, ^a, ^b\n^a:\n  ret\n^b:\n  ret\n}\n",
               NULL);
}

static void test_simplify_cfg(void) {
    /* a constant branch: the dead arm goes, its PHI entry too, blocks merge */
    check_pass("constant branch", xir_simplify_cfg,
               "kernel @k(%o: buffer<f32>) block_size=64 {\n^entry:\n"
               "  %x = buffer_read %o, u64 0 : f32\n"
               "  cond_br bool false, ^then, ^else\n"
               "^then:\n  %t = mul %x, f32 2.0 : f32\n  br ^join\n"
               "^else:\n  %e = add %x, f32 1.0 : f32\n  br ^join\n"
               "^join:\n  %v = phi f32 [%t, ^then], [%e, ^else]\n  buffer_write %o, u64 0, %v\n  ret\n}\n",
               "kernel @k(%o: buffer<f32>) block_size=64 {\n^entry:\n"
               "  %x = buffer_read %o, u64 0 : f32\n"
               "  %e = add %x, f32 1.0 : f32\n"
               "  buffer_write %o, u64 0, %e\n  ret\n}\n");
    /* identical targets */
    check_pass("identical targets", xir_simplify_cfg,
               "kernel @k(%o: buffer<u32>) block_size=64 {\n^entry:\n"
               "  %c = eq warp_lane_id, u32 0\n  cond_br %c, ^next, ^next\n"
               "^next:\n  buffer_write %o, u64 0, warp_lane_id\n  ret\n}\n",
               "kernel @k(%o: buffer<u32>) block_size=64 {\n^entry:\n"
               "  %c = eq warp_lane_id, u32 0\n"
               "  buffer_write %o, u64 0, warp_lane_id\n  ret\n}\n");
    /* a loop made unreachable by a constant branch is removed and dropped from
     * the PHIs it fed; of the two forwarding blocks ^a is bypassed (^entry
     * takes over its PHI entry), then ^b cannot be (the PHI would need two
     * values from ^entry) */
    check_pass("unreachable", xir_simplify_cfg,
               "kernel @k(%o: buffer<u32>) block_size=64 {\n^entry:\n"
               "  %c = eq warp_lane_id, u32 0\n  cond_br %c, ^a, ^b\n"
               "^a:\n  br ^join\n"
               "^b:\n  cond_br bool false, ^dead, ^join\n"
               "^dead:\n  %d = phi u32 [u32 0, ^b], [%d2, ^dead2]\n  %d1 = add %d, u32 1 : u32\n  br ^dead2\n"
               "^dead2:\n  %d2 = add %d1, u32 1 : u32\n  %again = lt %d2, u32 9\n  cond_br %again, ^dead, ^join\n"
               "^join:\n  %v = phi u32 [u32 1, ^a], [u32 2, ^b], [%d2, ^dead2]\n"
               "  buffer_write %o, u64 0, %v\n  ret\n}\n",
               "kernel @k(%o: buffer<u32>) block_size=64 {\n^entry:\n"
               "  %c = eq warp_lane_id, u32 0\n  cond_br %c, ^join, ^b\n"
               "^b:\n  br ^join\n"
               "^join:\n  %v = phi u32 [u32 1, ^entry], [u32 2, ^b]\n"
               "  buffer_write %o, u64 0, %v\n  ret\n}\n");

    /* a diamond whose arms are empty and whose PHI takes one value from both:
     * both arms are bypassed, the branch folds, the blocks merge */
    check_pass("empty diamond", xir_simplify_cfg,
               "kernel @k(%o: buffer<u32>) block_size=64 {\n^entry:\n"
               "  %c = eq warp_lane_id, u32 0\n  cond_br %c, ^a, ^b\n"
               "^a:\n  br ^join\n^b:\n  br ^join\n"
               "^join:\n  %v = phi u32 [block_id, ^a], [block_id, ^b]\n"
               "  %w = add %v, u32 1 : u32\n  buffer_write %o, u64 0, %w\n  ret\n}\n",
               "kernel @k(%o: buffer<u32>) block_size=64 {\n^entry:\n"
               "  %c = eq warp_lane_id, u32 0\n"
               "  %w = add block_id, u32 1 : u32\n  buffer_write %o, u64 0, %w\n  ret\n}\n");
    /* a chain of unconditional branches becomes one block */
    check_pass("chain", xir_simplify_cfg,
               "kernel @k(%o: buffer<u32>) block_size=64 {\n^entry:\n  br ^one\n"
               "^three:\n  buffer_write %o, u64 2, u32 3\n  ret\n"
               "^one:\n  buffer_write %o, u64 0, u32 1\n  br ^two\n"
               "^two:\n  %p = phi u32 [u32 7, ^one]\n  buffer_write %o, u64 1, %p\n  br ^three\n}\n",
               "kernel @k(%o: buffer<u32>) block_size=64 {\n^entry:\n"
               "  buffer_write %o, u64 0, u32 1\n"
               "  buffer_write %o, u64 1, u32 7\n"
               "  buffer_write %o, u64 2, u32 3\n  ret\n}\n");
    /* a forwarding block with two predecessors and no PHIs in its target */
    check_pass("forwarding", xir_simplify_cfg,
               "kernel @k(%o: buffer<u32>) block_size=64 {\n^entry:\n"
               "  %c = eq warp_lane_id, u32 0\n  cond_br %c, ^x, ^y\n"
               "^x:\n  buffer_write %o, u64 0, u32 1\n  %d = eq block_id, u32 0\n  cond_br %d, ^fwd, ^other\n"
               "^y:\n  buffer_write %o, u64 0, u32 2\n  br ^fwd\n"
               "^fwd:\n  br ^end\n"
               "^other:\n  buffer_write %o, u64 1, u32 3\n  br ^end\n"
               "^end:\n  ret\n}\n",
               "kernel @k(%o: buffer<u32>) block_size=64 {\n^entry:\n"
               "  %c = eq warp_lane_id, u32 0\n  cond_br %c, ^x, ^y\n"
               "^x:\n  buffer_write %o, u64 0, u32 1\n  %d = eq block_id, u32 0\n  cond_br %d, ^end, ^other\n"
               "^y:\n  buffer_write %o, u64 0, u32 2\n  br ^end\n"
               "^other:\n  buffer_write %o, u64 1, u32 3\n  br ^end\n"
               "^end:\n  ret\n}\n");
    /* but a nested diamond's merge is not fused with its enclosing one: ^end
     * would be entered both from inside the inner region and from ^entry,
     * which the SIMD backend cannot predicate when the inner branch varies
     * (SIMD-U03; tests/fuzz/corpus/diff/nested-join-kept.tir) */
    check_pass("nested join kept", xir_simplify_cfg,
               "kernel @k(%o: buffer<u32>) block_size=64 {\n^entry:\n"
               "  %u = eq block_id, u32 0\n  cond_br %u, ^then, ^end\n"
               "^then:\n  %c = eq warp_lane_id, u32 0\n  cond_br %c, ^a, ^merge\n"
               "^a:\n  buffer_write %o, u64 0, u32 1\n  br ^merge\n"
               "^merge:\n  br ^end\n"
               "^end:\n  ret\n}\n",
               NULL);
    /* a loop keeps its shape; its empty latch is bypassed (the body takes over
     * the back-edge PHI entries) */
    check_pass("loop latch", xir_simplify_cfg,
               "kernel @k(%o: buffer<u32>) block_size=64 {\n^entry:\n  br ^header\n"
               "^header:\n  %i = phi u32 [u32 0, ^entry], [%i.next, ^latch]\n"
               "  %more = lt %i, warp_lane_id\n  cond_br %more, ^body, ^exit\n"
               "^body:\n  buffer_write %o, u64 0, %i\n  %i.next = add %i, u32 1 : u32\n  br ^latch\n"
               "^latch:\n  br ^header\n"
               "^exit:\n  ret\n}\n",
               "kernel @k(%o: buffer<u32>) block_size=64 {\n^entry:\n  br ^header\n"
               "^header:\n  %i = phi u32 [u32 0, ^entry], [%i.next, ^body]\n"
               "  %more = lt %i, warp_lane_id\n  cond_br %more, ^body, ^exit\n"
               "^body:\n  buffer_write %o, u64 0, %i\n  %i.next = add %i, u32 1 : u32\n  br ^header\n"
               "^exit:\n  ret\n}\n");
    check_pass("nothing to simplify", xir_simplify_cfg,
               "kernel @k(%o: buffer<u32>) block_size=64 {\n^entry:\n"
               "  %c = eq warp_lane_id, u32 0\n  cond_br %c, ^a, ^join\n"
               "^a:\n  br ^join\n"
               "^join:\n  %v = phi u32 [u32 1, ^a], [u32 2, ^entry]\n"
               "  buffer_write %o, u64 0, %v\n  ret\n}\n",
               NULL);
}

/* ---- the cleanup driver ---- */

static const char *const pipeline_input =
    "kernel @k(%o: buffer<f32>) block_size=64 {\n^entry:\n"
    "  %n = add i32 2, i32 2 : i32\n"
    "  %big = gt %n, i32 3\n"
    "  %x = buffer_read %o, u64 0 : f32\n"
    "  cond_br %big, ^fast, ^slow\n"
    "^fast:\n  %y = mul %x, f32 2.0 : f32\n  br ^join\n"
    "^slow:\n  %z = exp %x : f32\n  br ^join\n"
    "^join:\n  %v = phi f32 [%y, ^fast], [%z, ^slow]\n"
    "  %unused = add %v, f32 1.0 : f32\n"
    "  buffer_write %o, u64 1, %v\n  ret\n}\n";

static void test_cleanup(void) {
    xir_module *m = parse_ok(pipeline_input);
    if (m) {
        CHECK(xir_cleanup(ctx, m) == TILEC_OK);
        char *text = print_text(m);
        CHECK(text && !strcmp(text, "kernel @k(%o: buffer<f32>) block_size=64 {\n^entry:\n"
                                    "  %x = buffer_read %o, u64 0 : f32\n"
                                    "  %y = mul %x, f32 2.0 : f32\n"
                                    "  buffer_write %o, u64 1, %y\n  ret\n}\n"));
        free(text);
        xir_module_destroy(m);
    }
    /* an invalid module is refused untouched */
    const char *invalid = "kernel @k(%o: buffer<f32>) block_size=64 {\n^entry:\n"
                          "  %n = add i32 2, f32 2.0 : i32\n  buffer_write %o, u64 1, f32 1.0\n  ret\n}\n";
    m = parse_ok(invalid);
    if (m) {
        tilec_diag_clear(ctx);
        CHECK(xir_cleanup(ctx, m) == TILEC_E_VERIFY && !strcmp(last_code(), "XIR-V16"));
        tilec_diag_clear(ctx);
        char *text = print_text(m);
        CHECK(text && !strcmp(text, invalid));
        free(text);
        xir_module_destroy(m);
    }
}

/* Every fixture cleans up to a verified module that a second cleanup leaves alone. */
static void test_cleanup_fixtures(void) {
    static const char *const names[] = {"loop", "diamond", "memory", "forward", "constants"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        char path[512];
        snprintf(path, sizeof path, TILEC_SOURCE_DIR "/tests/xir/%s.xir", names[k]);
        size_t len;
        char *text = read_file(path, &len);
        xir_module *m = text ? parse_ok(text) : NULL;
        if (m) {
            CHECK_MSG(xir_cleanup(ctx, m) == TILEC_OK, "%s", names[k]);
            char *once = print_text(m);
            CHECK(xir_cleanup(ctx, m) == TILEC_OK);
            char *twice = print_text(m);
            CHECK_MSG(once && twice && !strcmp(once, twice), "%s: cleanup is not idempotent", names[k]);
            free(once);
            free(twice);
        }
        xir_module_destroy(m);
        free(text);
    }
}

/* An allocation failure anywhere in the cleanup leaves a module that verifies. */
static void test_allocation_failures(void) {
    bool finished = false;
    for (long n = 0; !finished && n < 10000; n++) {
        xir_module *m = parse_ok(pipeline_input);
        if (!m) return;
        tilec_diag_clear(ctx);
        tilec_context_fail_allocation_after(ctx, n);
        tilec_status st = xir_cleanup(ctx, m);
        tilec_context_fail_allocation_after(ctx, -1);
        finished = st == TILEC_OK;
        if (!finished)
            CHECK_MSG(st == TILEC_E_NOMEM && !strcmp(last_code(), "XIR-M01"), "allocation %ld: %d", n, (int)st);
        CHECK_MSG(verifies(m), "allocation %ld: the module no longer verifies", n);
        xir_module_destroy(m);
    }
    CHECK(finished);
    tilec_diag_clear(ctx);
}

/* ---- random programs: cleanup keeps what they do ---- */

typedef struct {
    uint64_t index[64], value[64];
    int writes;
    bool returned;
} trace;

/* Runs kernel 0 of m for one lane (warp_lane_id = lane, other special
 * registers 0), recording its buffer writes; stops after 64 writes or 10000
 * blocks.  Handles what random_program makes and what the passes make of it. */
static trace run(const xir_module *m, uint32_t lane) {
    const xir_func *f = m->funcs.data[0];
    trace t = {.writes = 0};
    uint64_t *values = calloc(f->next_value_id + 1, sizeof *values);
    const xir_block *b = f->first, *prev = NULL;
#define VALUE(v) ((v)->kind == XIR_VALUE_CONST     ? (v)->constant.u \
                  : (v)->kind == XIR_VALUE_SPECIAL ? ((v)->special == XIR_SPECIAL_WARP_LANE_ID ? lane : 0) \
                                                   : values[(v)->id])
    for (int steps = 0; b && steps < 10000 && t.writes < 64; steps++) {
        const xir_inst *inst = b->first;
        uint64_t incoming[16];
        int phis = 0;
        for (const xir_inst *phi = inst; phi && phi->kind == XIR_INST_PHI; phi = phi->next, phis++)
            for (uint32_t i = 0; i < phi->operand_count; i++)
                if (phi->incoming[i] == prev) incoming[phis] = VALUE(xir_operand(phi, i));
        for (int i = 0; i < phis; i++, inst = inst->next) values[inst->value.id] = incoming[i];
        const xir_block *next = NULL;
        for (; inst; inst = inst->next) {
            if (inst->kind == XIR_INST_ARITH) {
                xir_bits args[3];
                for (uint32_t i = 0; i < inst->operand_count; i++) args[i].u = VALUE(xir_operand(inst, i));
                tir_scalar type = xir_operand(inst, inst->op == XIR_OP_SELECT)->type->scalar;
                xir_bits r = {0};
                CHECK(xir_eval_arith(inst->op, type, args, &r));
                values[inst->value.id] = r.u;
            } else if (inst->kind == XIR_INST_BUFFER_WRITE && t.writes < 64) {
                t.index[t.writes] = VALUE(xir_operand(inst, 1));
                t.value[t.writes++] = VALUE(xir_operand(inst, 2));
            } else if (inst->kind == XIR_INST_BR) {
                next = inst->targets[0];
            } else if (inst->kind == XIR_INST_COND_BR) {
                next = inst->targets[VALUE(xir_operand(inst, 0)) ? 0 : 1];
            } else if (inst->kind == XIR_INST_RET) {
                t.returned = true;
            }
        }
#undef VALUE
        prev = b;
        b = next;
    }
    free(values);
    return t;
}

static bool same_trace(const trace *a, const trace *b) {
    if (a->writes != b->writes || a->returned != b->returned) return false;
    for (int i = 0; i < a->writes; i++)
        if (a->index[i] != b->index[i] || a->value[i] != b->value[i]) return false;
    return true;
}

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;
static unsigned rnd(unsigned n) {
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(rng_state >> 33) % n;
}

/* A random valid kernel over up to 12 blocks: branches on lane comparisons
 * made in the entry or on constants, PHIs of constants and of entry values in
 * blocks with predecessors, some blocks empty, loops and unreachable blocks
 * left out of the text. */
static char *random_program(void) {
    enum { MAX = 12 };
    unsigned n = 2 + rnd(MAX - 1), kind[MAX], target[MAX][2], cond[MAX];
    for (unsigned b = 0; b < n; b++) {
        kind[b] = rnd(10) < 2 ? 0 : rnd(2) + 1; /* 0 ret, 1 br, 2 cond_br */
        target[b][0] = 1 + rnd(n - 1);
        target[b][1] = rnd(4) ? 1 + rnd(n - 1) : target[b][0];
        cond[b] = rnd(6); /* 0..3: %c<k>, 4: true, 5: false */
    }
    bool reach[MAX] = {true}, grew = true;
    while (grew) {
        grew = false;
        for (unsigned b = 0; b < n; b++)
            for (unsigned k = 0; reach[b] && k < kind[b]; k++)
                if (!reach[target[b][k]]) reach[target[b][k]] = grew = true;
    }
    strbuf s;
    strbuf_init(&s, ctx);
    strbuf_append(&s, "kernel @random(%o: buffer<u32>) block_size=64 {\n");
    for (unsigned b = 0; b < n; b++) {
        if (!reach[b]) continue;
        strbuf_printf(&s, "^b%u:\n", b);
        if (b == 0)
            for (unsigned k = 0; k < 4; k++) strbuf_printf(&s, "  %%c%u = eq warp_lane_id, u32 %u\n", k, k);
        bool has_phi = false;
        if (b && rnd(2)) {
            unsigned same = rnd(3);
            for (unsigned p = 0; p < n; p++) {
                bool pred = reach[p] && ((kind[p] >= 1 && target[p][0] == b) || (kind[p] == 2 && target[p][1] == b));
                if (!pred) continue;
                if (has_phi) strbuf_append(&s, ", [");
                else strbuf_printf(&s, "  %%p%u = phi u32 [", b);
                if (same == 0) strbuf_append(&s, "u32 5");
                else if (same == 1 && rnd(2)) strbuf_printf(&s, "u32 %u", rnd(3));
                else strbuf_append(&s, "warp_lane_id");
                strbuf_printf(&s, ", ^b%u]", p);
                has_phi = true;
            }
            if (has_phi) strbuf_append(&s, "\n");
        }
        if (has_phi) strbuf_printf(&s, "  buffer_write %%o, u64 %u, %%p%u\n", b, b);
        else if (rnd(2)) strbuf_printf(&s, "  buffer_write %%o, u64 %u, u32 %u\n", b, 100 + b);
        if (kind[b] == 0) strbuf_append(&s, "  ret\n");
        else if (kind[b] == 1) strbuf_printf(&s, "  br ^b%u\n", target[b][0]);
        else if (cond[b] < 4) strbuf_printf(&s, "  cond_br %%c%u, ^b%u, ^b%u\n", cond[b], target[b][0], target[b][1]);
        else
            strbuf_printf(&s, "  cond_br bool %s, ^b%u, ^b%u\n", cond[b] == 4 ? "true" : "false", target[b][0],
                          target[b][1]);
    }
    strbuf_append(&s, "}\n");
    char *text = strdup(strbuf_cstr(&s));
    strbuf_free(&s);
    return text;
}

static void test_random_programs(void) {
    static const pass_fn passes[] = {xir_fold_constants, xir_simplify_cfg, xir_eliminate_dead_code};
    for (int round = 0; round < 1000; round++) {
        char *text = random_program();
        xir_module *m = parse_ok(text);
        if (!m || !verifies(m)) {
            CHECK_MSG(false, "random program %d is invalid:\n%s", round, text);
            xir_module_destroy(m);
            free(text);
            continue;
        }
        trace before[4];
        for (uint32_t lane = 0; lane < 4; lane++) before[lane] = run(m, lane);
        /* one pass at a time, verifying after each, until none changes anything */
        for (bool changed = true; changed;) {
            changed = false;
            for (size_t k = 0; k < sizeof passes / sizeof passes[0]; k++) {
                changed |= passes[k](m);
                CHECK_MSG(verifies(m), "random program %d: pass %zu broke it:\n%s", round, k, text);
            }
        }
        for (uint32_t lane = 0; lane < 4; lane++) {
            trace after = run(m, lane);
            char *cleaned = print_text(m);
            CHECK_MSG(same_trace(&before[lane], &after), "random program %d, lane %u:\n%s--- cleaned\n%s", round,
                      (unsigned)lane, text, cleaned ? cleaned : "");
            free(cleaned);
        }
        xir_module_destroy(m);
        free(text);
    }
}

/* ---- folding agrees with the interpreter ---- */

static const double float_samples[] = {0.0,  -0.0, 1.0,  -1.5,      0.1,      3.0,       1e30,          -1e-30,
                                       1e300, INFINITY, -INFINITY, NAN, 16777217.0, 2147483648.0, -2147483649.0};
static const int64_t int_samples[] = {0,      1,     -1,        2,         7,         -7,        33,
                                      64,     127,   -128,      255,       32767,     -32768,    65535,
                                      INT32_MAX, INT32_MIN, (int64_t)UINT32_MAX, INT64_MAX, INT64_MIN};
enum {
    FLOAT_SAMPLES = sizeof float_samples / sizeof float_samples[0],
    INT_SAMPLES = sizeof int_samples / sizeof int_samples[0]
};

static xir_value *sample(xir_module *m, tir_scalar t, unsigned i) {
    if (t == TIR_BOOL) return xir_const_bool(m, i & 1);
    if (tir_scalar_is_float(t)) return xir_const_float(m, t, float_samples[i % FLOAT_SAMPLES]);
    return xir_const_int(m, t, int_samples[i % INT_SAMPLES]);
}

static unsigned sample_count(tir_scalar t) {
    return t == TIR_BOOL ? 2 : tir_scalar_is_float(t) ? FLOAT_SAMPLES : INT_SAMPLES;
}

typedef xir_value *(*make_fn)(xir_builder *b, tir_scalar t, unsigned i, unsigned j, const void *what);

/* A kernel writing make(i, j) for every pair of samples of t to o[i*n + j]:
 * run unfolded and folded, the interpreter must write the same bytes.
 * Returns the number of instructions folding left (0 = everything folded). */
static size_t compare_with_interpreter(const char *what, tir_scalar t, tir_scalar result, bool binary, make_fn make,
                                       const void *arg) {
    xir_module *m = xir_module_create(ctx);
    xir_func *f = xir_func_new(m, "fold");
    f->block_size = 1;
    xir_value *o = xir_func_add_buffer(f, "o", result);
    xir_builder b = {m, f, xir_block_new(f, "entry")};
    unsigned n = sample_count(t), count = binary ? n * n : n;
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < (binary ? n : 1); j++)
            xir_build_buffer_write(&b, o, xir_const_uint(m, TIR_U64, (uint64_t)i * (binary ? n : 1) + j),
                                   make(&b, t, i, j, arg));
    xir_build_ret(&b);
    size_t bytes = count * tir_scalar_size(result), left = 0;
    unsigned char *before = calloc(bytes, 1), *after = calloc(bytes, 1);
    tir_buffer buffer = {before, bytes};
    CHECK_MSG(verifies(m), "%s on %s", what, tir_scalar_name(t));
    CHECK(xir_interpret(ctx, f, 1, 1, 1, &buffer) == TILEC_OK);
    xir_fold_constants(m);
    CHECK(verifies(m));
    buffer.data = after;
    CHECK(xir_interpret(ctx, f, 1, 1, 1, &buffer) == TILEC_OK);
    for (size_t k = 0; k < bytes; k++)
        if (before[k] != after[k]) {
            CHECK_MSG(false, "%s on %s: folded result %zu differs from the interpreter's", what, tir_scalar_name(t),
                      k / tir_scalar_size(result));
            break;
        }
    for (const xir_inst *inst = f->first->first; inst; inst = inst->next)
        left += inst->kind != XIR_INST_BUFFER_WRITE && inst->kind != XIR_INST_RET;
    tilec_diag_clear(ctx);
    free(before);
    free(after);
    xir_module_destroy(m);
    return left;
}

static xir_value *make_arith(xir_builder *b, tir_scalar t, unsigned i, unsigned j, const void *arg) {
    xir_arith_op op = *(const xir_arith_op *)arg;
    if (op == XIR_OP_SELECT)
        return xir_build_select(b, xir_const_bool(b->module, (i + j) & 1), sample(b->module, t, i),
                                sample(b->module, t, j));
    return xir_build_arith(b, op, sample(b->module, t, i), sample(b->module, t, j), NULL);
}

static xir_value *make_cast(xir_builder *b, tir_scalar t, unsigned i, unsigned j, const void *arg) {
    tir_scalar to = *(const tir_scalar *)arg;
    return xir_build_cast(b, sample(b->module, t, i), to);
}

static xir_value *make_bitcast(xir_builder *b, tir_scalar t, unsigned i, unsigned j, const void *arg) {
    return xir_build_bitcast(b, sample(b->module, t, i), *(const tir_scalar *)arg);
}

static bool accepts(xir_op_class cls, tir_scalar t) {
    switch (cls) {
    case XIR_OPC_NUMERIC: return t != TIR_BOOL;
    case XIR_OPC_INTEGER: return tir_scalar_is_integer(t);
    case XIR_OPC_FLOAT: return tir_scalar_is_float(t);
    case XIR_OPC_BITWISE: return t == TIR_BOOL || tir_scalar_is_integer(t);
    default: return true;
    }
}

static void test_fold_matches_interpreter(void) {
    for (tir_scalar t = TIR_BOOL; t < TIR_SCALAR_COUNT; t++) {
        if (tir_scalar_is_half(t)) continue; /* not XIR types yet (XIR-V27) */
        for (xir_arith_op op = XIR_OP_ADD; op < XIR_OP_COUNT; op++) {
            xir_op_class cls = xir_arith_class(op);
            if (!accepts(cls, t)) continue;
            tir_scalar result = cls == XIR_OPC_COMPARE ? TIR_BOOL : t;
            size_t left =
                compare_with_interpreter(xir_arith_name(op), t, result, xir_arith_arity(op) > 1, make_arith, &op);
            bool transcendental = false; /* the SLEEF-backed math functions are never folded */
#define CALL(e, dbl, flt, stem) transcendental = transcendental || op == XIR_OP_##e;
            TIR_SLEEF_MATH1(CALL) TIR_SLEEF_MATH2(CALL)
#undef CALL
            CHECK_MSG(transcendental ? left > 0 : left == 0, "%s on %s: %zu instructions left", xir_arith_name(op),
                      tir_scalar_name(t), left);
        }
        for (tir_scalar to = TIR_BOOL; to < TIR_SCALAR_COUNT; to++) {
            if (tir_scalar_is_half(to)) continue;
            CHECK(compare_with_interpreter("cast", t, to, false, make_cast, &to) == 0);
            if (t != TIR_BOOL && to != TIR_BOOL && tir_scalar_size(t) == tir_scalar_size(to))
                CHECK(compare_with_interpreter("bitcast", t, to, false, make_bitcast, &to) == 0);
        }
    }
}

/* Two NaN operands with different payloads: which payload an operation
 * returns is the host's choice, so folding and the interpreter agree only
 * because both evaluate with the same code. */
static void test_fold_matches_interpreter_on_nan_payloads(void) {
    static const char *const ops[] = {"add", "sub", "mul", "div", "min", "max"};
    strbuf s;
    strbuf_init(&s, ctx);
    strbuf_append(&s, "kernel @nans(%d: buffer<f64>, %f: buffer<f32>) block_size=1 {\n^entry:\n");
    for (unsigned k = 0; k < 6; k++) {
        strbuf_printf(&s, "  %%d%u = %s f64 nan:0x7ffc000020000000, f64 nan:0xfff8000000000001 : f64\n", k, ops[k]);
        strbuf_printf(&s, "  buffer_write %%d, u64 %u, %%d%u\n", k, k);
        strbuf_printf(&s, "  %%f%u = %s f32 nan:0x7fe00001, f32 nan:0xffc00002 : f32\n", k, ops[k]);
        strbuf_printf(&s, "  buffer_write %%f, u64 %u, %%f%u\n", k, k);
    }
    strbuf_append(&s, "  ret\n}\n");
    xir_module *m = parse_ok(strbuf_cstr(&s));
    strbuf_free(&s);
    if (!m) return;
    double d[2][6];
    float f[2][6];
    for (int folded = 0; folded < 2; folded++) {
        memset(d[folded], 0, sizeof d[folded]);
        memset(f[folded], 0, sizeof f[folded]);
        tir_buffer args[2] = {{d[folded], sizeof d[folded]}, {f[folded], sizeof f[folded]}};
        CHECK(verifies(m) && xir_interpret(ctx, m->funcs.data[0], 1, 1, 2, args) == TILEC_OK);
        if (!folded) CHECK(xir_fold_constants(m));
    }
    for (unsigned k = 0; k < 6; k++) {
        CHECK_MSG(isnan(d[0][k]) && !memcmp(&d[0][k], &d[1][k], sizeof d[0][k]), "%s f64: folded differs", ops[k]);
        CHECK_MSG(isnan(f[0][k]) && !memcmp(&f[0][k], &f[1][k], sizeof f[0][k]), "%s f32: folded differs", ops[k]);
    }
    xir_module_destroy(m);
}

/* ---- driver ---- */

int main(void) {
    CHECK(tilec_context_create(NULL, &ctx) == TILEC_OK);
    test_eval_integers();
    test_eval_floats();
    test_eval_casts();
    test_eval_bitcasts();
    test_fold();
    test_dce();
    test_simplify_cfg();
    test_cleanup();
    test_cleanup_fixtures();
    test_allocation_failures();
    test_random_programs();
    test_fold_matches_interpreter();
    test_fold_matches_interpreter_on_nan_payloads();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
