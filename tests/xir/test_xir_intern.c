/* Interning of XIR types and constants (xir/module.c): one object per
 * (type, exact bits) and per type shape, normalization before interning,
 * signed zeros and NaN payloads kept apart, one million distinct constants
 * and 100 000 array types in one module (the tables grow; counts and
 * identities are checked, time is not), a verified function using them, and
 * allocation failure while interning. */
#include "xir_test.h"

#include <math.h>

static xir_bits bits_u(uint64_t u) { return (xir_bits){.u = u}; }

static void test_identity_and_normalization(void) {
    xir_module *m = xir_module_create(ctx);
    CHECK(xir_const_int(m, TIR_I32, 5) == xir_const_int(m, TIR_I32, 5));
    CHECK(xir_const_int(m, TIR_I32, 5) != xir_const_int(m, TIR_I64, 5)); /* same bits, other type */
    CHECK(xir_const_int(m, TIR_I32, 5) != xir_const_uint(m, TIR_U32, 5));
    CHECK(xir_const_int(m, TIR_I8, 256) == xir_const_int(m, TIR_I8, 0));   /* wraps to the width */
    CHECK(xir_const_uint(m, TIR_U8, 511) == xir_const_uint(m, TIR_U8, 255));
    CHECK(xir_const_bool(m, true) == xir_const_bits(m, TIR_BOOL, bits_u(7)));
    CHECK(xir_const_float(m, TIR_F32, 0.1) == xir_const_float(m, TIR_F32, (double)0.1f)); /* rounded */
    CHECK(xir_const_float(m, TIR_F64, 0.1) != xir_const_float(m, TIR_F64, (double)0.1f));
    CHECK(xir_const_float(m, TIR_F32, 0.0) != xir_const_float(m, TIR_F32, -0.0)); /* exact bits */
    xir_value *nan1 = xir_const_bits(m, TIR_F64, bits_u(0x7ff8000000000001ULL));
    xir_value *nan2 = xir_const_bits(m, TIR_F64, bits_u(0x7ff8000000000002ULL));
    CHECK(nan1 && nan2 && nan1 != nan2 && nan1 == xir_const_bits(m, TIR_F64, bits_u(0x7ff8000000000001ULL)));
    CHECK(xir_type_scalar(m, TIR_F32) == xir_const_float(m, TIR_F32, 1.0)->type);
    CHECK(xir_type_array(m, TIR_F32, 4) == xir_type_array(m, TIR_F32, 4));
    CHECK(xir_type_array(m, TIR_F32, 4) != xir_type_array(m, TIR_I32, 4));
    CHECK(xir_type_ptr(m, TIR_F32) != xir_type_buffer(m, TIR_F32));
    CHECK(xir_type_void(m) == xir_type_void(m) && xir_type_void(m)->kind == XIR_TYPE_VOID);
    CHECK(!xir_module_failed(m));
    xir_module_destroy(m);
}

/* One million distinct constants: every one interned once with its own id,
 * found again by value (from other bit patterns of the same value where the
 * type normalizes), and usable by a function that verifies. */
static void test_million_constants(void) {
    enum { N = 1000000, ARRAYS = 100000 };
    xir_module *m = xir_module_create(ctx);
    xir_value **made = malloc(sizeof *made * 2 * N);
    CHECK(made != NULL);
    if (!made) return;
    bool ok = true;
    for (int64_t i = 0; i < N && ok; i++) {
        made[2 * i] = xir_const_int(m, TIR_I32, i);
        made[2 * i + 1] = xir_const_float(m, TIR_F32, (double)i + 0.5); /* exact in f32 below 2^23 */
        ok = made[2 * i] && made[2 * i + 1];
    }
    CHECK(ok && !xir_module_failed(m));
    CHECK(m->constants.count == 2 * (size_t)N);
    size_t same = 0, right = 0;
    for (int64_t i = 0; i < N; i++) {
        same += xir_const_int(m, TIR_I32, i + ((int64_t)1 << 32)) == made[2 * i]; /* wraps to i */
        same += xir_const_float(m, TIR_F32, (double)i + 0.5) == made[2 * i + 1];
        right += made[2 * i]->constant.i == i && made[2 * i + 1]->constant.f == (double)i + 0.5 &&
                 made[2 * i]->kind == XIR_VALUE_CONST && xir_type_is_scalar(made[2 * i + 1]->type, TIR_F32);
    }
    CHECK(same == 2 * (size_t)N && right == (size_t)N && m->constants.count == 2 * (size_t)N);
    /* Ids are handed out once per constant, in creation order. */
    size_t ordered = 0;
    for (size_t i = 1; i < 2 * (size_t)N; i++) ordered += made[i]->id == made[i - 1]->id + 1;
    CHECK(ordered == 2 * (size_t)N - 1);

    size_t arrays = 0;
    for (uint64_t n = 1; n <= ARRAYS; n++) {
        xir_type *t = xir_type_array(m, TIR_F32, n);
        arrays += t && t->count == n && t == xir_type_array(m, TIR_F32, n);
    }
    CHECK(arrays == ARRAYS);

    /* A function storing the sum of the first and the last constant verifies
     * (the verifier walks every interned constant's use list). */
    xir_func *f = xir_func_new(m, "k");
    xir_value *y = f ? xir_func_add_buffer(f, "Y", TIR_I32) : NULL;
    xir_block *entry = f ? xir_block_new(f, "entry") : NULL;
    CHECK(f && y && entry);
    if (entry) {
        xir_builder b = {m, f, entry};
        xir_value *sum = xir_build_binary(&b, XIR_OP_ADD, made[0], made[2 * N - 2]);
        xir_build_buffer_write(&b, y, xir_const_uint(m, TIR_U64, 0), sum);
        xir_build_ret(&b);
        CHECK(made[0]->use_count == 1 && made[2 * N - 2]->use_count == 1 && made[1]->use_count == 0);
    }
    CHECK(verifies(m));
    free(made);
    xir_module_destroy(m);
}

/* An allocation failure while interning reports XIR-M01 once and fails the
 * module; what was interned before is still found. */
static void test_allocation_failure(void) {
    xir_module *m = xir_module_create(ctx);
    xir_value *one = xir_const_int(m, TIR_I32, 1);
    tilec_diag_clear(ctx);
    tilec_context_fail_allocation_after(ctx, 0);
    xir_value *fresh = NULL;
    for (int64_t i = 2; i < 4096 && (fresh = xir_const_int(m, TIR_I32, i)); i++) {
    }
    tilec_context_fail_allocation_after(ctx, -1);
    CHECK(fresh == NULL && xir_module_failed(m));
    CHECK(tilec_diag_count(ctx) == 1 && !strcmp(last_code(), "XIR-M01"));
    CHECK(xir_const_int(m, TIR_I32, 1) == one);
    tilec_diag_clear(ctx);
    xir_module_destroy(m);
}

int main(void) {
    CHECK(tilec_context_create(NULL, &ctx) == TILEC_OK);
    test_identity_and_normalization();
    test_million_constants();
    test_allocation_failure();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
