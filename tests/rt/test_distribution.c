/* test_distribution.c — the task distribution of a dispatch equals the
 * planner's schedule model (src/plan/target.c): for every block count ×
 * worker count × grain, every block runs exactly once; with stealing off,
 * task t runs on its home worker t mod h and the per-worker maxima of tasks,
 * blocks and packets equal the model's critical counts; with stealing on,
 * still exactly once, and a task's blocks all see its worker's workspace;
 * collapsed schedules run on the calling thread. */
#include "harness.h"
#include "plan/target.h"
#include "record_kernel.h"
#include "rt/dispatch.h"

#include <inttypes.h>

enum { BLOCK = 4, WIDTH = 2 };

static const uint32_t counts[] = {1, 7, 8, 9, 31, 32, 33, 65, 127, 257, 4097};
static const uint32_t worker_counts[] = {1, 2, 3, 8};
static const uint64_t grains[] = {0, 1, 2, 3, 16, UINT64_MAX};

static uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

/* The planner's model for this dispatch. */
static plan_work model(uint32_t workers, const record *r, uint64_t grain) {
    plan_thread_pool tp;
    plan_thread_pool_init(&tp, WIDTH, workers);
    plan_target target = tp.info.target(&tp.info);
    plan_candidate candidate = {.block_size = BLOCK, .packet_width = WIDTH, .blocks_per_task = grain};
    plan_work work = {.block_count = r->blocks, .packet_count = ceil_div(r->dispatch_size, WIDTH)};
    tp.info.schedule(&tp.info, &target, &candidate, &work);
    return work;
}

/* Packets of block b: full blocks B/W, the ragged last one fewer. */
static uint64_t block_packets(const record *r, uint32_t b) {
    uint64_t first = (uint64_t)b * BLOCK, end = first + BLOCK < r->dispatch_size ? first + BLOCK : r->dispatch_size;
    return ceil_div(end - first, WIDTH);
}

static void check_home(const record *r, const rt_schedule *s, const uint32_t *task_workers, uint32_t workers,
                       uint64_t grain) {
    plan_work w = model(workers, r, grain);
    CHECK_MSG(s->blocks_per_task == w.blocks_per_task && s->task_count == w.task_count &&
                  s->active_workers == w.active_workers,
              "L=%u H=%u grain=%" PRIu64 ": runtime G=%" PRIu64 " C=%" PRIu64 " h=%" PRIu64 ", model G=%" PRIu64
              " C=%" PRIu64 " h=%" PRIu64,
              r->blocks, workers, grain, s->blocks_per_task, s->task_count, s->active_workers, w.blocks_per_task,
              w.task_count, w.active_workers);
    uint64_t tasks[8] = {0}, blocks[8] = {0}, packets[8] = {0};
    bool home = true;
    for (uint64_t t = 0; t < s->task_count; t++) {
        uint32_t worker = task_workers[t];
        if (worker != rt_schedule_home_worker(s, t) || worker >= workers) {
            home = false;
            continue;
        }
        uint64_t begin, end;
        rt_schedule_task_blocks(s, t, &begin, &end);
        tasks[worker]++;
        blocks[worker] += end - begin;
        for (uint64_t b = begin; b < end; b++) packets[worker] += block_packets(r, (uint32_t)b);
    }
    CHECK_MSG(home, "L=%u H=%u grain=%" PRIu64 ": a task ran off its home worker", r->blocks, workers, grain);
    uint64_t most_tasks = 0, most_blocks = 0, most_packets = 0;
    for (uint32_t i = 0; i < workers; i++) {
        if (tasks[i] > most_tasks) most_tasks = tasks[i];
        if (blocks[i] > most_blocks) most_blocks = blocks[i];
        if (packets[i] > most_packets) most_packets = packets[i];
    }
    CHECK_MSG(most_tasks == w.critical_tasks && most_blocks == w.critical_blocks && most_packets == w.critical_packets,
              "L=%u H=%u grain=%" PRIu64 ": runtime critical tasks/blocks/packets %" PRIu64 "/%" PRIu64 "/%" PRIu64
              ", model %" PRIu64 "/%" PRIu64 "/%" PRIu64,
              r->blocks, workers, grain, most_tasks, most_blocks, most_packets, w.critical_tasks, w.critical_blocks,
              w.critical_packets);
}

static void run_case(rt_pool *pool, tilec_context *ctx, record *r, uint32_t workers, uint64_t grain, bool steal) {
    r->kernel.blocks_per_task = grain;
    r->kernel.workspace_bytes = 64; /* identifies the worker of each block */
    uint32_t *task_workers = calloc(r->blocks, sizeof *task_workers);
    for (uint32_t t = 0; t < r->blocks; t++) task_workers[t] = UINT32_MAX;
    rt_schedule s;
    rt_dispatch_options options = {.no_steal = !steal, .task_workers = task_workers, .task_capacity = r->blocks,
                                   .schedule = &s};
    record_reset(r);
    tilec_status status = rt_dispatch(pool, ctx, &r->kernel, r->args, RECORD_ARGS, &options);
    CHECK_MSG(status == TILEC_OK, "L=%u H=%u grain=%" PRIu64 ": status %s", r->blocks, workers, grain,
              tilec_status_name(status));
    CHECK_MSG(record_exactly_once(r), "L=%u H=%u grain=%" PRIu64 " steal=%d: not exactly once", r->blocks, workers,
              grain, steal);
    if (!steal) check_home(r, &s, task_workers, workers, grain);
    /* Each block saw the workspace of the worker that ran its task; worker
     * 0 is this thread (the whole collapsed schedule), no other worker is. */
    bool same_workspace = true, on_caller = true, wrong_thread = false;
    for (uint64_t t = 0; t < s.task_count; t++) {
        uint64_t begin, end;
        rt_schedule_task_blocks(&s, t, &begin, &end);
        void *ws = task_workers[t] < workers ? rt_pool_workspace(pool, task_workers[t], NULL) : NULL;
        for (uint64_t b = begin; b < end; b++) {
            if (r->workspaces[b] != (uint64_t)(uintptr_t)ws || !ws || ((uintptr_t)ws & 63)) same_workspace = false;
            bool here = pthread_equal(r->threads[b], pthread_self());
            if (!here) on_caller = false;
            if (here != (task_workers[t] == 0)) wrong_thread = true;
        }
    }
    CHECK_MSG(same_workspace, "L=%u H=%u grain=%" PRIu64 ": a block ran with another worker's workspace", r->blocks,
              workers, grain);
    if (s.collapsed)
        CHECK_MSG(on_caller && task_workers[0] == 0 && s.task_count == 1,
                  "L=%u H=%u grain=%" PRIu64 ": the collapsed run left the caller thread", r->blocks, workers, grain);
    CHECK_MSG(!wrong_thread, "L=%u H=%u grain=%" PRIu64 ": worker 0's tasks ran off the caller or another's on it",
              r->blocks, workers, grain);
    free(task_workers);
}

int main(void) {
    tilec_context *ctx = NULL;
    tilec_context_create(NULL, &ctx);
    /* The runtime's default grain is the planner's. */
    plan_thread_pool tp;
    plan_thread_pool_init(&tp, WIDTH, 4);
    CHECK(tp.task_chunks_per_worker == RT_TASK_CHUNKS_PER_WORKER);

    for (size_t wi = 0; wi < sizeof worker_counts / sizeof *worker_counts; wi++) {
        uint32_t workers = worker_counts[wi];
        rt_pool *pool = NULL;
        CHECK(rt_pool_create(ctx, &(rt_pool_options){workers}, &pool) == TILEC_OK);
        if (!pool) break;
        CHECK(rt_pool_worker_count(pool) == workers);
        for (size_t ci = 0; ci < sizeof counts / sizeof *counts; ci++) {
            record r;
            record_init(&r, counts[ci], BLOCK, counts[ci] % 3); /* some ragged last blocks */
            for (size_t gi = 0; gi < sizeof grains / sizeof *grains; gi++) {
                run_case(pool, ctx, &r, workers, grains[gi], false);
                run_case(pool, ctx, &r, workers, grains[gi], true);
            }
            record_free(&r);
        }
        rt_pool_destroy(pool);
    }
    tilec_diag_print(ctx, stderr);
    CHECK(tilec_diag_count(ctx) == 0);
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
