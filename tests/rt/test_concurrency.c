/* test_concurrency.c — two threads dispatching on one pool (each with its own
 * diagnostics context) both get every block exactly once; 10k small
 * dispatches of varying sizes and grains complete without deadlock, each
 * exactly once; a pool dispatched from a thread other than its creator works. */
#include "harness.h"
#include "record_kernel.h"
#include "rt/dispatch.h"

#include <inttypes.h>

typedef struct {
    rt_pool *pool;
    uint32_t blocks, rounds, seed;
    int failures;
} client;

static void *client_main(void *arg) {
    client *c = arg;
    tilec_context *ctx = NULL;
    tilec_context_create(NULL, &ctx);
    record r;
    record_init(&r, c->blocks, 4, 1);
    for (uint32_t i = 0; i < c->rounds; i++) {
        r.kernel.blocks_per_task = (i + c->seed) % 5; /* 0 = the default grain */
        r.kernel.workspace_bytes = (i % 3) * 128;
        record_reset(&r);
        if (rt_dispatch(c->pool, ctx, &r.kernel, r.args, RECORD_ARGS, NULL) != TILEC_OK || !record_exactly_once(&r))
            c->failures++;
    }
    record_free(&r);
    tilec_context_destroy(ctx);
    return NULL;
}

static void two_threads(tilec_context *ctx, uint32_t workers) {
    rt_pool *pool = NULL;
    CHECK(rt_pool_create(ctx, &(rt_pool_options){workers}, &pool) == TILEC_OK);
    client clients[2] = {{pool, 257, 400, 0, 0}, {pool, 33, 400, 3, 0}};
    pthread_t threads[2];
    for (int i = 0; i < 2; i++) CHECK(pthread_create(&threads[i], NULL, client_main, &clients[i]) == 0);
    for (int i = 0; i < 2; i++) pthread_join(threads[i], NULL);
    CHECK_MSG(clients[0].failures == 0 && clients[1].failures == 0, "workers=%u: %d + %d failed dispatches", workers,
              clients[0].failures, clients[1].failures);
    rt_pool_destroy(pool);
}

static void stress(tilec_context *ctx) {
    rt_pool *pool = NULL;
    CHECK(rt_pool_create(ctx, &(rt_pool_options){3}, &pool) == TILEC_OK);
    enum { MAX_BLOCKS = 40 };
    record r;
    record_init(&r, MAX_BLOCKS, 2, 0);
    int failures = 0;
    uint32_t state = 12345;
    for (int i = 0; i < 10000; i++) {
        state = state * 1103515245u + 12345u;
        uint32_t blocks = 1 + (state >> 16) % MAX_BLOCKS;
        r.kernel.dispatch_size = blocks * 2 - (state >> 8) % 2; /* blocks·B or one short */
        r.kernel.blocks_per_task = (state >> 4) % 4;
        record_reset(&r);
        bool ok = rt_dispatch(pool, ctx, &r.kernel, r.args, RECORD_ARGS, NULL) == TILEC_OK;
        for (uint32_t b = 0; b < MAX_BLOCKS; b++) ok = ok && atomic_load(&r.block_runs[b]) == (b < blocks);
        for (uint32_t e = 0; e < MAX_BLOCKS * 2; e++)
            ok = ok && atomic_load(&r.element_writes[e]) == (e < r.kernel.dispatch_size);
        failures += !ok;
    }
    CHECK_MSG(failures == 0, "%d of 10000 small dispatches went wrong", failures);
    record_free(&r);
    rt_pool_destroy(pool);
}

int main(void) {
    tilec_context *ctx = NULL;
    tilec_context_create(NULL, &ctx);
    two_threads(ctx, 1);
    two_threads(ctx, 2);
    two_threads(ctx, 4);
    stress(ctx);
    tilec_diag_print(ctx, stderr);
    CHECK(tilec_diag_count(ctx) == 0);
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
