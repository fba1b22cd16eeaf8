/* test_concurrency.c — two threads dispatching on one pool (each with its own
 * diagnostics context) both get every block exactly once; 10k small
 * dispatches of varying sizes and grains complete without deadlock, each
 * exactly once; a pool dispatched from a thread other than its creator works;
 * a worker stuck in a slow task has its remaining home tasks stolen. */
#include "harness.h"
#include "record_kernel.h"
#include "rt/dispatch.h"

#include <inttypes.h>
#include <time.h>

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

/* With args[1] = 1, task 0 (block 0) waits (up to 10 s) until every other
 * block has run, then sets args[1] to 2: only stealing lets the other home
 * tasks of the worker stuck in task 0 finish. */
static void waiting_first_entry(const rt_buffer *args, uint32_t block_begin, uint32_t block_end,
                                uint32_t dispatch_size, void *workspace, fault_record *faults) {
    (void)faults;
    _Atomic uint32_t *runs = args[0].data;
    uint32_t *wait = args[1].data;
    if (block_begin == 0 && *wait)
        for (int ms = 0; ms < 10000; ms++) {
            uint32_t done = 0;
            for (uint32_t b = 1; b < dispatch_size; b++) done += atomic_load(&runs[b]);
            if (done == dispatch_size - 1) {
                *wait = 2;
                break;
            }
            nanosleep(&(struct timespec){0, 1000 * 1000}, NULL);
        }
    for (uint32_t b = block_begin; b < block_end; b++) atomic_fetch_add(&runs[b], 1);
}

static void stealing(tilec_context *ctx) {
    rt_pool *pool = NULL;
    CHECK(rt_pool_create(ctx, &(rt_pool_options){2}, &pool) == TILEC_OK);
    enum { BLOCKS = 16 };
    _Atomic uint32_t runs[BLOCKS];
    uint32_t task_workers[BLOCKS], wait = 0;
    rt_param params[2] = {{TIR_U32, sizeof runs}, {TIR_U32, sizeof wait}};
    rt_arg args[2] = {{runs, sizeof runs, TIR_U32}, {&wait, sizeof wait, TIR_U32}};
    rt_kernel k = {.name = "waiting", .entry = waiting_first_entry, .arg_count = 2, .params = params,
                   .dispatch_size = BLOCKS, .block_size = 1, .blocks_per_task = 1};
    for (int steal = 0; steal < 2; steal++) {
        for (int b = 0; b < BLOCKS; b++) atomic_init(&runs[b], 0);
        wait = (uint32_t)steal;
        rt_dispatch_options options = {.no_steal = !steal, .task_workers = task_workers, .task_capacity = BLOCKS};
        CHECK(rt_dispatch(pool, ctx, &k, args, 2, &options) == TILEC_OK);
        int stolen = 0, once = 1;
        for (int t = 0; t < BLOCKS; t++) {
            once &= atomic_load(&runs[t]) == 1;
            stolen += task_workers[t] != (uint32_t)(t % 2);
        }
        CHECK(once);
        /* Whoever is held in task 0 (usually worker 0; worker 1 when it
         * steals task 0 before worker 0 wakes), the other worker ran every
         * other task, some of them stolen. */
        if (steal)
            CHECK_MSG(wait == 2 && stolen >= 1, "task 0 %s; %d tasks stolen",
                      wait == 2 ? "saw every other task done" : "timed out", stolen);
        else
            CHECK(stolen == 0);
    }
    rt_pool_destroy(pool);
}

int main(void) {
    tilec_context *ctx = NULL;
    tilec_context_create(NULL, &ctx);
    two_threads(ctx, 1);
    two_threads(ctx, 2);
    two_threads(ctx, 4);
    stress(ctx);
    stealing(ctx);
    tilec_diag_print(ctx, stderr);
    CHECK(tilec_diag_count(ctx) == 0);
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
