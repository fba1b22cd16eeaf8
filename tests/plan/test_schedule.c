/* The CPU thread pool's task distribution (upstream §1.1 case 9 and the
 * §1.5 thread-pool target case).
 *
 * An auditing cost policy recomputes, for every candidate the solver scores,
 * the packet, block and task counts and the critical worker's packets,
 * blocks and tasks by simulating the runtime's static round-robin home
 * chunks block by block (worker w owns chunks w, w+h, …; one active worker
 * collapses to a single caller callback), independently of the closed form
 * in target.c.  Grid: programs {1,7,8,9,31,32,33,65,127,257,4097} × W
 * {1,2,4,8,16} × workers {1,3,8} × grain {0,1,2,3,16,UINT32_MAX}, every block
 * width the thread pool proposes.  The selected plan keeps the requested
 * grain.  Then the 257-program case: tasks 9, 8 workers, grain 1, critical
 * packets/blocks/tasks 5/2/2; and a target without CPU tasks leaves every
 * task field 0. */
#include "plan_fixture.h"

typedef struct {
    unsigned evaluations, mismatches;
} audit;

static uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

/* The runtime's distribution, simulated. */
static void simulate(const plan_target *t, const plan_candidate *c, plan_work *w) {
    uint64_t P = c->dispatch_size, B = c->block_size, W = c->packet_width, L = ceil_div(P, B);
    uint64_t G = c->blocks_per_task ? c->blocks_per_task : ceil_div(L, (uint64_t)t->worker_count * t->task_chunks_per_worker);
    if (G > L) G = L;
    uint64_t C = ceil_div(L, G), h = C < t->worker_count ? C : t->worker_count;
    memset(w, 0, sizeof *w);
    w->packet_count = ceil_div(P, W);
    w->block_count = L;
    w->blocks_per_task = G;
    if (h <= 1) { /* the one-worker collapse: one callback for the whole range */
        w->task_count = 1;
        w->active_workers = 1;
        w->critical_packets = w->packet_count;
        w->critical_blocks = L;
        w->critical_tasks = 1;
        return;
    }
    w->task_count = C;
    w->active_workers = h;
    for (uint64_t worker = 0; worker < h; worker++) {
        uint64_t packets = 0, blocks = 0, tasks = 0;
        for (uint64_t chunk = worker; chunk < C; chunk += h) {
            tasks++;
            for (uint64_t b = chunk * G; b < (chunk + 1) * G && b < L; b++) {
                uint64_t programs = P - b * B < B ? P - b * B : B;
                packets += ceil_div(programs, W);
                blocks++;
            }
        }
        if (packets > w->critical_packets) w->critical_packets = packets;
        if (blocks > w->critical_blocks) w->critical_blocks = blocks;
        if (tasks > w->critical_tasks) w->critical_tasks = tasks;
    }
}

static plan_cost audit_evaluate(const plan_cost_policy *self, const plan_target *t, const plan_candidate *c,
                                const plan_work *w, const plan_cost_coefficients *model) {
    audit *a = self->user;
    plan_work want;
    simulate(t, c, &want);
    bool same = w->packet_count == want.packet_count && w->block_count == want.block_count &&
                w->task_count == want.task_count && w->active_workers == want.active_workers &&
                w->blocks_per_task == want.blocks_per_task && w->critical_packets == want.critical_packets &&
                w->critical_blocks == want.critical_blocks && w->critical_tasks == want.critical_tasks;
    a->evaluations++;
    if (!same && a->mismatches++ < 5)
        fprintf(stderr,
                "P=%llu B=%u W=%u H=%u G=%llu: got Q%llu L%llu tasks%llu h%llu G%llu crit %llu/%llu/%llu, want Q%llu "
                "L%llu tasks%llu h%llu G%llu crit %llu/%llu/%llu\n",
                (unsigned long long)c->dispatch_size, c->block_size, c->packet_width, t->worker_count,
                (unsigned long long)c->blocks_per_task, (unsigned long long)w->packet_count,
                (unsigned long long)w->block_count, (unsigned long long)w->task_count,
                (unsigned long long)w->active_workers, (unsigned long long)w->blocks_per_task,
                (unsigned long long)w->critical_packets, (unsigned long long)w->critical_blocks,
                (unsigned long long)w->critical_tasks, (unsigned long long)want.packet_count,
                (unsigned long long)want.block_count, (unsigned long long)want.task_count,
                (unsigned long long)want.active_workers, (unsigned long long)want.blocks_per_task,
                (unsigned long long)want.critical_packets, (unsigned long long)want.critical_blocks,
                (unsigned long long)want.critical_tasks);
    return plan_cost_analytic(w, model);
}

static void test_distribution_grid(void) {
    static const int64_t counts[] = {1, 7, 8, 9, 31, 32, 33, 65, 127, 257, 4097};
    static const uint32_t widths[] = {1, 2, 4, 8, 16}, workers[] = {1, 3, 8};
    static const uint32_t grains[] = {0, 1, 2, 3, 16, UINT32_MAX};
    audit a = {0, 0};
    plan_cost_policy policy = {"audit", &a, NULL, audit_evaluate};
    unsigned plans = 0, kept = 0;
    for (size_t n = 0; n < sizeof counts / sizeof counts[0]; n++) {
        tir_module *m = fill_kernel(counts[n]);
        if (!m) continue;
        for (size_t wi = 0; wi < 5; wi++)
            for (size_t hi = 0; hi < 3; hi++)
                for (size_t gi = 0; gi < 6; gi++) {
                    plan_thread_pool pool;
                    plan_thread_pool_init(&pool, widths[wi], workers[hi]);
                    tilec_compile_options o = options_whole();
                    o.blocks_per_task = grains[gi];
                    pool.info.policy = &policy;
                    plan_result r;
                    if (plan_ok(tir_module_func(m, 0), &o, &pool.info, &r)) {
                        plans++;
                        kept += plan_selected(&r)->candidate.blocks_per_task == grains[gi];
                        CHECK(r.candidates.len == 7 && r.rejected.len == 0); /* blocks W, 32..1024 */
                    }
                    plan_result_free(&r);
                }
        tir_module_destroy(m);
    }
    CHECK(plans == 11 * 5 * 3 * 6);
    CHECK(kept == plans);
    CHECK(a.evaluations == plans * 7);
    CHECK_MSG(a.mismatches == 0, "%u schedules differ from the round-robin simulation", a.mismatches);
}

/* 257 programs, block 32, W8, 8 workers: 9 blocks of 4 packets but the last
 * (1 packet); 9 one-block tasks on 8 workers. */
static void test_thread_pool_case(void) {
    tir_module *m = fill_kernel(257);
    if (!m) return;
    plan_thread_pool pool;
    plan_thread_pool_init(&pool, 8, 8);
    tilec_compile_options o = options_whole();
    o.block_size = 32;
    plan_result r;
    if (plan_ok(tir_module_func(m, 0), &o, &pool.info, &r)) {
        const plan_work *w = &plan_selected(&r)->work;
        CHECK(r.candidates.len == 1);
        CHECK(w->packet_count == 33 && w->block_count == 9);
        CHECK(w->task_count == 9 && w->active_workers == 8 && w->blocks_per_task == 1);
        CHECK(w->critical_packets == 5 && w->critical_blocks == 2 && w->critical_tasks == 2);
        CHECK(plan_selected(&r)->candidate.blocks_per_task == 0); /* the heuristic was requested */
        CHECK(plan_selected(&r)->limits.max_snapshot_bytes_per_worker == (16u << 20) / 8);
    }
    plan_result_free(&r);
    /* The one-worker collapse: whatever the grain, one callback. */
    plan_thread_pool_init(&pool, 8, 1);
    o.blocks_per_task = 2;
    if (plan_ok(tir_module_func(m, 0), &o, &pool.info, &r)) {
        const plan_work *w = &plan_selected(&r)->work;
        CHECK(w->task_count == 1 && w->active_workers == 1 && w->critical_tasks == 1);
        CHECK(w->critical_packets == 33 && w->critical_blocks == 9);
        CHECK(plan_selected(&r)->cost.activation == 0);
    }
    plan_result_free(&r);
    tir_module_destroy(m);
}

/* A target without CPU tasks: one wave, task fields stay 0. */
static void test_single_wave(void) {
    tir_module *m = fill_kernel(257);
    if (!m) return;
    mock_target t;
    mock_init(&t, 32, 8);
    t.task_grain = false;
    plan_result r;
    if (plan_ok(tir_module_func(m, 0), NULL, &t.info, &r)) {
        for (size_t i = 0; i < r.candidates.len; i++) {
            const plan_work *w = &r.candidates.data[i].work;
            CHECK(w->task_count == 0 && w->blocks_per_task == 0 && w->critical_tasks == 0);
            CHECK(w->active_workers == 1 && w->critical_packets == w->packet_count &&
                  w->critical_blocks == w->block_count);
            CHECK(r.candidates.data[i].candidate.blocks_per_task == 0);
        }
        CHECK(r.target.worker_count == 0 && r.target.task_chunks_per_worker == 0 && !r.task_grain);
        CHECK(r.candidates.len == 6 && t.schedule_calls == 6);
    }
    plan_result_free(&r);
    tir_module_destroy(m);
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    test_distribution_grid();
    test_thread_pool_case();
    test_single_wave();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
