/* facade_fixture.h — what the facade tests share on top of
 * tests/lower/lower_fixture.h: running a compiled kernel against the
 * reference interpreter through tilec_dispatch, compiling at a width and
 * lane count, and finding one `key=value;` item in a realization line. */
#ifndef TILEC_TESTS_FACADE_FIXTURE_H
#define TILEC_TESTS_FACADE_FIXTURE_H

#include "lower/lower_fixture.h"
#include "tilec/tilec.h"

#include <pthread.h>

/* Dispatches `env` (a tilec_kernel) with the element types of the buffers. */
static inline bool run_dispatch(void *env, const char *label, tilec_status reference, size_t n,
                                const tir_buffer *args, const run_buffers *b) {
    (void)reference;
    tilec_buffer nat_args[MAX_ARGS];
    for (size_t i = 0; i < n; i++) nat_args[i] = (tilec_buffer){args[i].data, args[i].size_bytes, b->elem[i]};
    tilec_status sn = tilec_dispatch(ctx, env, n, nat_args);
    CHECK_MSG(sn == TILEC_OK, "%s: dispatch failed", label);
    return sn == TILEC_OK;
}

/* Reference and native runs from identical inputs (the const parameters
 * read, the others NaN); true when they agree everywhere, pads included. */
static inline bool run_facade(const char *label, const tir_func *f, tilec_kernel *k, const run_config *c) {
    return compare_with_reference(label, "native", f, NULL, c, run_dispatch, k);
}

/* Whether `item` ("key=value;") starts an item of the realization `text`. */
static inline bool has_item(const char *text, const char *item) {
    const char *at = strstr(text, item);
    return at && (at == text || at[-1] == ' ');
}

/* The number of the item `key=N;` of a realization line, or -1. */
static inline long item_value(const char *text, const char *key) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "%s=", key);
    for (const char *at = strstr(text, pattern); at; at = strstr(at + 1, pattern))
        if (at == text || at[-1] == ' ') return strtol(at + strlen(pattern), NULL, 10);
    return -1;
}

/* The kernel of m named `name`; NULL after a failed CHECK. */
static inline const tir_func *kernel_named(const tir_module *m, const char *name) {
    for (size_t i = 0; m && i < tir_module_func_count(m); i++)
        if (!strcmp(tir_func_name(tir_module_func(m, i)), name)) return tir_module_func(m, i);
    CHECK_MSG(false, "no kernel @%s", name);
    return NULL;
}

/* Compiles f with `o` at width w on runtime rt (NULL: an owned one) with
 * `lanes` local lanes; NULL after a failed CHECK. */
static inline tilec_kernel *compile_at_lanes(const tir_func *f, tilec_compile_options o, uint32_t w, tilec_runtime *rt,
                                             uint32_t lanes) {
    o.width = w;
    o.runtime = rt;
    o.local_lanes = lanes;
    tilec_kernel *k = NULL;
    CHECK_MSG(tilec_compile(ctx, f, &o, &k) == TILEC_OK, "@%s: compile failed at W=%u lanes=%u", tir_func_name(f), w,
              lanes);
    flush_diags_in(ctx);
    return k;
}

/* One thread's share of concurrent dispatches of one kernel: 25 rounds on
 * its own context and arguments, each clearing `out` first and comparing it
 * with `expected` afterwards. */
typedef struct {
    tilec_kernel *k;
    const tilec_buffer *args;
    size_t n;
    void *out;
    const void *expected;
    size_t bytes;
    bool ok;
} dispatch_rounds;

static inline void *run_dispatch_rounds(void *user) {
    dispatch_rounds *d = user;
    tilec_context *own = NULL;
    d->ok = tilec_context_create(NULL, &own) == TILEC_OK;
    for (int r = 0; r < 25 && d->ok; r++) {
        memset(d->out, 0, d->bytes);
        d->ok = tilec_dispatch(own, d->k, d->n, d->args) == TILEC_OK && !memcmp(d->out, d->expected, d->bytes);
    }
    tilec_context_destroy(own);
    return NULL;
}

/* Runs two threads' rounds at once; true when both got their own results
 * every round. */
static inline bool dispatch_concurrently(dispatch_rounds *two) {
    pthread_t th[2];
    bool started[2];
    for (int t = 0; t < 2; t++) started[t] = pthread_create(&th[t], NULL, run_dispatch_rounds, &two[t]) == 0;
    for (int t = 0; t < 2; t++)
        if (started[t]) pthread_join(th[t], NULL);
    return started[0] && started[1] && two[0].ok && two[1].ok;
}

#endif
