/* xir_interp_fixture.h — helpers shared by the XIR interpreter tests: an XIR
 * kernel under construction (module, function, builder), constant shorthands,
 * running it and checking diagnostics.  Each test file's main creates `ctx`.
 * Kernels are verified before they run (as the pipeline verifies between passes),
 * except those a test marks malformed on purpose. */
#ifndef TILEC_TEST_XIR_INTERP_FIXTURE_H
#define TILEC_TEST_XIR_INTERP_FIXTURE_H

#include "harness.h"
#include "xir/interp.h"
#include "xir/verify.h"

static tilec_context *ctx;

typedef struct {
    xir_module *m;
    xir_func *f;
    xir_builder b;
    /* The kernel breaks a verifier rule on purpose, to test what the
     * interpreter does with IR outside those rules (XIR-I03 refusals, runtime
     * checks the verifier makes unreachable): it runs without verification. */
    bool malformed;
} xkernel;

/* A kernel with an entry block the builder is positioned at. */
static inline xkernel xk_open(const char *name, uint32_t block_size) {
    xkernel k;
    k.m = xir_module_create(ctx);
    k.f = xir_func_new(k.m, name);
    k.f->block_size = block_size;
    k.b = (xir_builder){k.m, k.f, xir_block_new(k.f, "entry")};
    k.malformed = false;
    return k;
}

static inline void xk_close(xkernel *k) { xir_module_destroy(k->m); }

static inline xir_value *xk_u32(xkernel *k, uint32_t v) { return xir_const_uint(k->m, TIR_U32, v); }
static inline xir_value *xk_u64(xkernel *k, uint64_t v) { return xir_const_uint(k->m, TIR_U64, v); }
static inline xir_value *xk_special(xkernel *k, xir_special s) { return xir_special_value(k->m, s); }
static inline xir_value *xk_bin(xkernel *k, xir_arith_op op, xir_value *x, xir_value *y) {
    return xir_build_binary(&k->b, op, x, y);
}
/* buffer[index] = value with a u32 index, widened to the u64 buffer index. */
static inline void xk_write(xkernel *k, xir_value *buffer, xir_value *index, xir_value *value) {
    xir_build_buffer_write(&k->b, buffer, xir_build_cast(&k->b, index, TIR_U64), value);
}

static inline tilec_status xk_run_with(xkernel *k, uint32_t n, uint32_t w, size_t n_args, const tir_buffer *args,
                                       const xir_interp_options *options) {
    CHECK_MSG(!xir_module_failed(k->m), "building kernel '%s' failed", k->f->name);
    tilec_status verified = xir_verify(ctx, k->m);
    if (k->malformed) {
        /* the verifier must reject it too, else the test checks nothing special */
        CHECK_MSG(verified == TILEC_E_VERIFY, "kernel '%s' is marked malformed but verifies", k->f->name);
        tilec_diag_clear(ctx);
    } else if (verified != TILEC_OK) {
        CHECK_MSG(false, "kernel '%s' does not verify", k->f->name);
        tilec_diag_print(ctx, stderr);
        tilec_diag_clear(ctx);
        return verified;
    }
    return xir_interpret_with(ctx, k->f, n, w, n_args, args, options);
}

/* Runs and expects success (printing the diagnostics otherwise). */
static inline bool xk_run_ok(xkernel *k, uint32_t n, uint32_t w, size_t n_args, const tir_buffer *args) {
    tilec_status st = xk_run_with(k, n, w, n_args, args, NULL);
    CHECK_MSG(st == TILEC_OK, "run of '%s' (N=%u, W=%u) failed: %s", k->f->name, n, w, tilec_status_name(st));
    if (st != TILEC_OK) tilec_diag_print(ctx, stderr);
    tilec_diag_clear(ctx);
    return st == TILEC_OK;
}

static inline tir_buffer xbuf(void *data, size_t bytes) { return (tir_buffer){data, bytes}; }

static inline const char *last_message(void) {
    size_t n = tilec_diag_count(ctx);
    return n ? tilec_diag_at(ctx, n - 1)->message : "";
}

/* Expects a failed run with exactly one diagnostic of this status and code,
 * whose message contains `needle` (if given); then clears. */
static inline void expect_error(tilec_status got, tilec_status want, const char *code, const char *needle) {
    size_t n = tilec_diag_count(ctx);
    const char *got_code = n ? tilec_diag_at(ctx, n - 1)->code : "";
    CHECK_MSG(got == want, "status %s, wanted %s", tilec_status_name(got), tilec_status_name(want));
    CHECK_MSG(n == 1, "%zu diagnostics, wanted 1", n);
    CHECK_MSG(!strcmp(got_code, code), "code '%s', wanted '%s' (%s)", got_code, code, last_message());
    if (needle) CHECK_STR_CONTAINS(last_message(), needle);
    tilec_diag_clear(ctx);
}

#endif
