/* test_dispatch.c — argument checking, workspaces and pool creation:
 * every malformed dispatch (wrong count, wrong type, short buffer, NULL data,
 * bad descriptor, oversize workspace, short trace) is a diagnostic with its
 * RT code, runs nothing and leaves the pool usable; bounds faults a kernel
 * records fail the dispatch (RT-F01, or through the kernel's hook); workspaces are 64-byte
 * aligned, sized as requested, reused across dispatches and grown only when
 * asked for more; worker counts come from the option, TILEC_THREADS or the
 * cores. */
#include "diag_util.h"
#include "harness.h"
#include "record_kernel.h"
#include "rt/dispatch.h"

#include <stdlib.h>
#include <unistd.h>

/* A dispatch that must fail with `code` and run nothing. */
static void expect_error(rt_pool *pool, tilec_context *ctx, record *r, const rt_kernel *kernel, const rt_arg *args,
                         uint32_t count, const rt_dispatch_options *options, const char *code) {
    record_reset(r);
    tilec_diag_clear(ctx);
    tilec_status status = rt_dispatch(pool, ctx, kernel, args, count, options);
    CHECK_MSG(status != TILEC_OK && strcmp(last_diag_code(ctx), code) == 0, "expected %s, got status %s code '%s'", code,
              tilec_status_name(status), last_diag_code(ctx));
    bool ran = false;
    for (uint32_t b = 0; b < r->blocks; b++) ran = ran || atomic_load(&r->block_runs[b]);
    CHECK_MSG(!ran, "%s: the kernel ran", code);
    /* The pool still works. */
    record_reset(r);
    tilec_diag_clear(ctx);
    CHECK(rt_dispatch(pool, ctx, &r->kernel, r->args, RECORD_ARGS, NULL) == TILEC_OK);
    CHECK(record_exactly_once(r));
}

static void argument_errors(rt_pool *pool, tilec_context *ctx) {
    record r;
    record_init(&r, 37, 8, 3);
    rt_arg args[RECORD_ARGS + 1];
    memcpy(args, r.args, sizeof r.args);
    args[RECORD_ARGS] = args[0];

    expect_error(pool, ctx, &r, &r.kernel, args, RECORD_ARGS - 1, NULL, "RT-D02"); /* too few */
    expect_error(pool, ctx, &r, &r.kernel, args, RECORD_ARGS + 1, NULL, "RT-D02"); /* too many */
    expect_error(pool, ctx, &r, &r.kernel, NULL, RECORD_ARGS, NULL, "RT-D02");     /* no argument array */
    tilec_diag_clear(ctx);
    rt_dispatch(pool, ctx, &r.kernel, args, 1, NULL);
    const tilec_diag *d = tilec_diag_at(ctx, 0);
    CHECK(d && d->status == TILEC_E_ARG);
    if (d) CHECK_STR_CONTAINS(d->message, "record takes 4 arguments, got 1");

    memcpy(args, r.args, sizeof r.args);
    args[1].elem = TIR_F32; /* wrong type */
    expect_error(pool, ctx, &r, &r.kernel, args, RECORD_ARGS, NULL, "RT-D03");
    args[1].elem = (tir_scalar)99; /* not a type at all */
    expect_error(pool, ctx, &r, &r.kernel, args, RECORD_ARGS, NULL, "RT-D03");

    memcpy(args, r.args, sizeof r.args);
    args[1].size_bytes -= 1; /* one byte short */
    expect_error(pool, ctx, &r, &r.kernel, args, RECORD_ARGS, NULL, "RT-D04");

    memcpy(args, r.args, sizeof r.args);
    args[2].data = NULL; /* NULL data, non-empty */
    expect_error(pool, ctx, &r, &r.kernel, args, RECORD_ARGS, NULL, "RT-D05");

    rt_kernel bad = r.kernel;
    bad.entry = NULL;
    expect_error(pool, ctx, &r, &bad, r.args, RECORD_ARGS, NULL, "RT-D01");
    bad = r.kernel;
    bad.block_size = 0;
    expect_error(pool, ctx, &r, &bad, r.args, RECORD_ARGS, NULL, "RT-D01");
    bad = r.kernel;
    bad.params = NULL;
    expect_error(pool, ctx, &r, &bad, r.args, RECORD_ARGS, NULL, "RT-D01");
    expect_error(pool, ctx, &r, NULL, r.args, RECORD_ARGS, NULL, "RT-D01");

    bad = r.kernel;
    bad.workspace_bytes = RT_WORKSPACE_LIMIT + 1;
    expect_error(pool, ctx, &r, &bad, r.args, RECORD_ARGS, NULL, "RT-D06");

    uint32_t trace[2];
    rt_dispatch_options short_trace = {.task_workers = trace, .task_capacity = 2};
    bad = r.kernel;
    bad.blocks_per_task = 1; /* 37 tasks on a multi-worker pool */
    if (rt_pool_worker_count(pool) > 1)
        expect_error(pool, ctx, &r, &bad, r.args, RECORD_ARGS, &short_trace, "RT-D08");

    /* Larger buffers than needed, and an empty buffer with NULL data where the
     * kernel needs no bytes, are fine. */
    rt_param params[RECORD_ARGS + 1];
    memcpy(params, r.params, sizeof r.params);
    params[RECORD_ARGS] = (rt_param){TIR_F32, 0};
    memcpy(args, r.args, sizeof r.args);
    args[RECORD_ARGS] = (rt_arg){NULL, 0, TIR_F32};
    rt_kernel wider = r.kernel;
    wider.arg_count = RECORD_ARGS + 1;
    wider.params = params;
    record_reset(&r);
    tilec_diag_clear(ctx);
    CHECK(rt_dispatch(pool, ctx, &wider, args, RECORD_ARGS + 1, NULL) == TILEC_OK);
    CHECK(record_exactly_once(&r));

    /* An empty dispatch runs nothing and succeeds. */
    rt_kernel empty = r.kernel;
    empty.dispatch_size = 0;
    record_reset(&r);
    rt_schedule s;
    CHECK(rt_dispatch(pool, ctx, &empty, r.args, RECORD_ARGS, &(rt_dispatch_options){.schedule = &s}) == TILEC_OK);
    CHECK(s.task_count == 0 && atomic_load(&r.block_runs[0]) == 0);
    record_free(&r);
}

/* ---- bounds faults ---- */

/* Block 5 reports a fault (site 3, value -7) as JIT code does: the count
 * atomically, site and value by the fault that raised it from 0. */
static void faulting_entry(const rt_buffer *args, uint32_t block_begin, uint32_t block_end, uint32_t dispatch_size,
                           void *workspace, fault_record *faults) {
    (void)args, (void)dispatch_size, (void)workspace;
    for (uint32_t b = block_begin; b < block_end; b++)
        if (b == 5 && __atomic_fetch_add(&faults->count, 1, __ATOMIC_RELAXED) == 0) faults->site = 3, faults->value = -7;
}

static uint64_t reported_count;

static tilec_status report_fault(const void *user, tilec_context *ctx, const fault_record *faults) {
    reported_count = faults->count;
    return tilec_error(ctx, TILEC_E_RUNTIME, "TEST-F01", tilec_no_loc(), "%s: site %u value %lld", (const char *)user,
                       faults->site, (long long)faults->value);
}

/* The record is fresh for every dispatch and shared by its tasks; without a
 * report hook the dispatch fails with RT-F01, with one through the hook. */
static void faults(rt_pool *pool, tilec_context *ctx) {
    static const rt_param param = {TIR_F32, 0};
    rt_arg arg = {NULL, 0, TIR_F32};
    rt_kernel k = {.name = "faulty", .entry = faulting_entry, .arg_count = 1, .params = &param, .dispatch_size = 80,
                   .block_size = 8, .blocks_per_task = 1};
    for (int round = 0; round < 2; round++) {
        tilec_diag_clear(ctx);
        CHECK(rt_dispatch(pool, ctx, &k, &arg, 1, NULL) == TILEC_E_RUNTIME && !strcmp(last_diag_code(ctx), "RT-F01"));
        CHECK_STR_CONTAINS(tilec_diag_at(ctx, 0)->message,
                           "faulty: 1 out-of-range access(es) did not happen; the first reported is fault site 3 with "
                           "value -7");
    }
    k.report_fault = report_fault;
    k.fault_user = "hooked";
    tilec_diag_clear(ctx);
    reported_count = 0;
    CHECK(rt_dispatch(pool, ctx, &k, &arg, 1, NULL) == TILEC_E_RUNTIME && !strcmp(last_diag_code(ctx), "TEST-F01"));
    CHECK(reported_count == 1);
    CHECK_STR_CONTAINS(tilec_diag_at(ctx, 0)->message, "hooked: site 3 value -7");
    k.dispatch_size = 40; /* block 5 is not in the grid: no fault */
    tilec_diag_clear(ctx);
    CHECK(rt_dispatch(pool, ctx, &k, &arg, 1, NULL) == TILEC_OK && tilec_diag_count(ctx) == 0);
}

/* ---- workspaces ---- */

typedef struct {
    _Atomic uint32_t calls, bad;
    uint64_t bytes;
} ws_probe;

/* Fills the whole workspace and checks it reads back; records misalignment. */
static void ws_entry(const rt_buffer *args, uint32_t block_begin, uint32_t block_end, uint32_t dispatch_size,
                     void *workspace, fault_record *faults) {
    (void)faults;
    ws_probe *probe = args[0].data;
    atomic_fetch_add(&probe->calls, 1);
    if (!probe->bytes) {
        if (workspace) atomic_fetch_add(&probe->bad, 1);
        return;
    }
    unsigned char *p = workspace;
    if (!p || ((uintptr_t)p & 63)) {
        atomic_fetch_add(&probe->bad, 1);
        return;
    }
    memset(p, (int)(block_begin & 0xff), probe->bytes);
    if (p[0] != (block_begin & 0xff) || p[probe->bytes - 1] != (block_begin & 0xff)) atomic_fetch_add(&probe->bad, 1);
}

static tilec_status ws_dispatch(rt_pool *pool, tilec_context *ctx, ws_probe *probe, uint64_t bytes) {
    probe->bytes = bytes;
    atomic_store(&probe->calls, 0);
    atomic_store(&probe->bad, 0);
    rt_param param = {TIR_U8, sizeof *probe};
    rt_arg arg = {probe, sizeof *probe, TIR_U8};
    rt_kernel k = {.name = "ws", .entry = ws_entry, .arg_count = 1, .params = &param, .dispatch_size = 64,
                   .block_size = 1, .blocks_per_task = 1, .workspace_bytes = bytes};
    return rt_dispatch(pool, ctx, &k, &arg, 1, NULL);
}

static void workspaces(void) {
    tilec_context *ctx = NULL, *pool_ctx = NULL;
    tilec_context_create(NULL, &ctx);
    tilec_context_create(NULL, &pool_ctx);
    rt_pool *pool = NULL;
    CHECK(rt_pool_create(pool_ctx, &(rt_pool_options){3}, &pool) == TILEC_OK);
    ws_probe probe = {0};

    size_t cap = 1;
    CHECK(rt_pool_workspace(pool, 0, &cap) == NULL && cap == 0); /* nothing before first use */
    CHECK(ws_dispatch(pool, ctx, &probe, 0) == TILEC_OK);
    CHECK(atomic_load(&probe.calls) == 64 && atomic_load(&probe.bad) == 0);
    CHECK(rt_pool_workspace(pool, 0, &cap) == NULL && cap == 0); /* none requested, none made */

    CHECK(ws_dispatch(pool, ctx, &probe, 1000) == TILEC_OK);
    CHECK(atomic_load(&probe.calls) == 64 && atomic_load(&probe.bad) == 0);
    void *first[3];
    for (uint32_t w = 0; w < 3; w++) {
        first[w] = rt_pool_workspace(pool, w, &cap);
        CHECK(first[w] && ((uintptr_t)first[w] & 63) == 0 && cap == 1000);
    }
    CHECK(first[0] != first[1] && first[1] != first[2] && first[0] != first[2]);
    /* Same or smaller requests reuse the buffers. */
    CHECK(ws_dispatch(pool, ctx, &probe, 1000) == TILEC_OK && atomic_load(&probe.bad) == 0);
    CHECK(ws_dispatch(pool, ctx, &probe, 10) == TILEC_OK && atomic_load(&probe.bad) == 0);
    for (uint32_t w = 0; w < 3; w++) CHECK(rt_pool_workspace(pool, w, &cap) == first[w] && cap == 1000);
    /* Larger requests grow, up to the limit exactly. */
    CHECK(ws_dispatch(pool, ctx, &probe, 1u << 20) == TILEC_OK && atomic_load(&probe.bad) == 0);
    for (uint32_t w = 0; w < 3; w++) CHECK(rt_pool_workspace(pool, w, &cap) && cap == 1u << 20);
    CHECK(ws_dispatch(pool, ctx, &probe, RT_WORKSPACE_LIMIT) == TILEC_OK && atomic_load(&probe.bad) == 0);
    CHECK(atomic_load(&probe.calls) == 64);
    tilec_diag_clear(ctx);
    CHECK(ws_dispatch(pool, ctx, &probe, RT_WORKSPACE_LIMIT + 1) == TILEC_E_BUDGET);
    CHECK(strcmp(last_diag_code(ctx), "RT-D06") == 0 && atomic_load(&probe.calls) == 0);

    /* Growth failure is a NOMEM diagnostic on the dispatch's context; the pool
     * keeps its old workspaces and works afterwards. */
    rt_pool *small = NULL;
    CHECK(rt_pool_create(pool_ctx, &(rt_pool_options){2}, &small) == TILEC_OK);
    tilec_context_fail_allocation_after(pool_ctx, 0);
    tilec_diag_clear(ctx);
    CHECK(ws_dispatch(small, ctx, &probe, 4096) == TILEC_E_NOMEM);
    CHECK(strcmp(last_diag_code(ctx), "RT-D07") == 0 && atomic_load(&probe.calls) == 0);
    tilec_context_fail_allocation_after(pool_ctx, -1);
    CHECK(ws_dispatch(small, ctx, &probe, 4096) == TILEC_OK && atomic_load(&probe.bad) == 0);
    CHECK(atomic_load(&probe.calls) == 64);

    /* The collapsed case uses worker 0's workspace on the caller. */
    rt_pool *single = NULL;
    CHECK(rt_pool_create(pool_ctx, &(rt_pool_options){1}, &single) == TILEC_OK);
    CHECK(ws_dispatch(single, ctx, &probe, 256) == TILEC_OK && atomic_load(&probe.bad) == 0);
    CHECK(atomic_load(&probe.calls) == 1); /* one call for the whole range */
    CHECK(rt_pool_workspace(single, 0, &cap) && cap == 256);

    rt_pool_destroy(single);
    rt_pool_destroy(small);
    rt_pool_destroy(pool);
    CHECK(tilec_diag_count(pool_ctx) == 0);
    tilec_context_destroy(pool_ctx);
    tilec_context_destroy(ctx);
}

/* ---- pool creation ---- */

static void creation(void) {
    tilec_context *ctx = NULL;
    tilec_context_create(NULL, &ctx);
    rt_pool *pool = NULL;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);

    /* without TILEC_THREADS: the described host's cores (base/host.h) */
    unsetenv("TILEC_THREADS");
    setenv("TILEC_HOST", "native", 1);
    CHECK(rt_pool_create(ctx, NULL, &pool) == TILEC_OK);
    CHECK(pool && (long)rt_pool_worker_count(pool) == (cores < 1 ? 1 : cores));
    rt_pool_destroy(pool);
    setenv("TILEC_HOST", "zen4,cores=3", 1);
    CHECK(rt_pool_create(ctx, NULL, &pool) == TILEC_OK && rt_pool_worker_count(pool) == 3);
    rt_pool_destroy(pool);
    setenv("TILEC_HOST", "zen4,cores=three", 1);
    CHECK(rt_pool_create(ctx, NULL, &pool) == TILEC_E_ARG && !pool && !strcmp(last_diag_code(ctx), "RT-P05"));
    setenv("TILEC_HOST", "zen4", 1);

    setenv("TILEC_THREADS", "5", 1);
    CHECK(rt_pool_create(ctx, NULL, &pool) == TILEC_OK && rt_pool_worker_count(pool) == 5);
    rt_pool_destroy(pool);
    CHECK(rt_pool_create(ctx, &(rt_pool_options){2}, &pool) == TILEC_OK && rt_pool_worker_count(pool) == 2);
    rt_pool_destroy(pool); /* the option wins over the environment */

    static const char *bad_env[] = {"0", "-1", "abc", "3x", "100000"};
    for (size_t i = 0; i < sizeof bad_env / sizeof *bad_env; i++) {
        setenv("TILEC_THREADS", bad_env[i], 1);
        tilec_diag_clear(ctx);
        pool = (rt_pool *)ctx; /* must be reset to NULL */
        CHECK_MSG(rt_pool_create(ctx, NULL, &pool) == TILEC_E_ARG && !pool && strcmp(last_diag_code(ctx), "RT-P02") == 0,
                  "TILEC_THREADS=%s", bad_env[i]);
    }
    unsetenv("TILEC_THREADS");
    tilec_diag_clear(ctx);
    CHECK(rt_pool_create(ctx, &(rt_pool_options){RT_MAX_WORKERS + 1}, &pool) == TILEC_E_ARG);
    CHECK(strcmp(last_diag_code(ctx), "RT-P01") == 0);

    /* Allocation failure at every step of creation is a clean NOMEM. */
    for (long n = 0; n < 3; n++) {
        tilec_context_fail_allocation_after(ctx, n);
        tilec_diag_clear(ctx);
        CHECK(rt_pool_create(ctx, &(rt_pool_options){4}, &pool) == TILEC_E_NOMEM && !pool);
        CHECK(strcmp(last_diag_code(ctx), "RT-P04") == 0);
    }
    tilec_context_fail_allocation_after(ctx, -1);

    /* Pools are created and joined repeatedly without leaking threads. */
    for (int i = 0; i < 50; i++) {
        CHECK(rt_pool_create(ctx, &(rt_pool_options){4}, &pool) == TILEC_OK);
        rt_pool_destroy(pool);
    }
    rt_pool_destroy(NULL);
    tilec_context_destroy(ctx);
}

int main(void) {
    tilec_context *ctx = NULL;
    tilec_context_create(NULL, &ctx);
    for (uint32_t workers = 1; workers <= 4; workers += 3) {
        rt_pool *pool = NULL;
        CHECK(rt_pool_create(ctx, &(rt_pool_options){workers}, &pool) == TILEC_OK);
        argument_errors(pool, ctx);
        faults(pool, ctx);
        rt_pool_destroy(pool);
    }
    tilec_context_destroy(ctx);
    workspaces();
    creation();
    TEST_MAIN_END();
}
