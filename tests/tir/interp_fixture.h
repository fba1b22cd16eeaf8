/* interp_fixture.h — helpers shared by the interpreter tests: a kernel under
 * construction (module, function, builder), space shorthands, running it, and
 * diagnostic-code checks.  Each test file defines `ctx` through FIXTURE_CONTEXT. */
#ifndef TILEC_TEST_INTERP_FIXTURE_H
#define TILEC_TEST_INTERP_FIXTURE_H

#include "diag_util.h"
#include "harness.h"
#include "tir/ir.h"

#include <math.h>

static tilec_context *ctx;

typedef struct {
    tir_module *m;
    tir_func *f;
    tir_builder *b;
} kernel;

static inline kernel kernel_open(const char *name) {
    kernel k;
    k.m = tir_module_create(ctx);
    k.f = tir_func_new(k.m, name);
    k.b = NULL; /* created by kernel_body once the parameters exist */
    return k;
}

static inline tir_value *view1(kernel *k, const char *name, tir_scalar s, uint64_t e0, bool ro) {
    return tir_func_add_view(k->f, name, s, 1, &e0, ro);
}

static inline tir_value *view2(kernel *k, const char *name, tir_scalar s, uint64_t e0, uint64_t e1, bool ro) {
    uint64_t e[2] = {e0, e1};
    return tir_func_add_view(k->f, name, s, 2, e, ro);
}

static inline tir_builder *kernel_body(kernel *k) { return k->b = tir_builder_create(k->f); }

static inline void kernel_close(kernel *k) {
    tir_builder_destroy(k->b);
    tir_module_destroy(k->m);
}

static inline tir_space *sp1(kernel *k, const char *d0, uint64_t e0) {
    tir_dim *d = tir_dim_new(k->m, d0);
    return tir_space_make(k->m, 1, &d, &e0);
}

static inline tir_space *sp2(kernel *k, tir_dim *d0, uint64_t e0, tir_dim *d1, uint64_t e1) {
    tir_dim *d[2] = {d0, d1};
    uint64_t e[2] = {e0, e1};
    return tir_space_make(k->m, 2, d, e);
}

static inline tir_value *ci(kernel *k, int64_t v) { return tir_const_index(k->b, v); }

/* Stores scalar `v` at index i of the 1-D view. */
static inline void put(kernel *k, tir_value *view, int64_t i, tir_value *v) {
    tir_value *idx = ci(k, i);
    tir_store_elem(k->b, view, &idx, v);
}

/* Loads the whole 1-D/2-D view as a tile over `space` at the origin. */
static inline tir_value *load_all(kernel *k, tir_value *view, tir_space *space) {
    tir_value *zero[2] = {ci(k, 0), ci(k, 0)};
    return tir_load_tile(k->b, view, zero, space, TIR_BOUNDS_ZERO, NULL);
}

/* Stores the tile at the origin of the view. */
static inline void store_all(kernel *k, tir_value *view, tir_value *tile) {
    tir_value *zero[2] = {ci(k, 0), ci(k, 0)};
    tir_store_tile(k->b, view, zero, tile, TIR_BOUNDS_ZERO);
}

/* Runs the kernel after checking that building succeeded. */
static inline tilec_status run(kernel *k, size_t n, const tir_buffer *args) {
    CHECK_MSG(tir_builder_status(k->b) == TILEC_OK, "builder failed");
    if (tir_builder_status(k->b) != TILEC_OK) {
        tilec_diag_print(ctx, stderr);
        return TILEC_E_ARG;
    }
    /* Verifiers run between stages: every kernel a test runs must verify. */
    tilec_status verified = tir_verify(ctx, k->m);
    CHECK_MSG(verified == TILEC_OK, "kernel '@%s' fails verification", tir_func_name(k->f));
    if (verified != TILEC_OK) {
        tilec_diag_print(ctx, stderr);
        return verified;
    }
    tilec_status st = tir_interpret(ctx, k->f, n, args);
    if (st != TILEC_OK && tilec_diag_count(ctx)) tilec_diag_print(ctx, stderr);
    return st;
}

static inline tir_buffer buf(void *data, size_t bytes) { return (tir_buffer){data, bytes}; }

/* Expects exactly the status and code of a failed run, then clears. */
static inline void expect_error(tilec_status got, tilec_status want, const char *code) {
    CHECK_MSG(got == want, "status %s, wanted %s", tilec_status_name(got), tilec_status_name(want));
    CHECK_MSG(!strcmp(last_diag_code(ctx), code), "code '%s', wanted '%s'", last_diag_code(ctx), code);
    tilec_diag_clear(ctx);
}

static inline bool same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

#endif
