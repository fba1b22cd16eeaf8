/* test_schedule.c — rt_schedule_make against the planner's closed form
 * (plan_schedule_thread_pool) over a dense grid of block counts, worker
 * counts and grains: grain, tasks, active workers, the collapse, and the
 * critical task/block counts of the home assignment (task t on worker t mod h)
 * recounted from the runtime's task ranges. */
#include "harness.h"
#include "plan/target.h"
#include "rt/schedule.h"

#include <inttypes.h>

static void check_one(uint32_t workers, uint64_t blocks, uint64_t grain) {
    plan_thread_pool tp;
    plan_thread_pool_init(&tp, 1, workers);
    plan_target target = tp.info.target(&tp.info);
    plan_candidate candidate = {.block_size = 1, .packet_width = 1, .blocks_per_task = grain};
    plan_work w = {.block_count = blocks, .packet_count = blocks};
    plan_schedule_thread_pool(&target, &candidate, &w);
    rt_schedule s = rt_schedule_make(workers, blocks, grain);

    uint64_t tasks[16] = {0}, block_load[16] = {0}, covered = 0, next = 0;
    bool contiguous = true;
    for (uint64_t t = 0; t < s.task_count; t++) {
        uint64_t begin, end;
        rt_schedule_task_blocks(&s, t, &begin, &end);
        contiguous = contiguous && begin == next && end > begin;
        next = end;
        covered += end - begin;
        uint32_t home = rt_schedule_home_worker(&s, t);
        tasks[home]++;
        block_load[home] += end - begin;
    }
    uint64_t most_tasks = 0, most_blocks = 0;
    for (int i = 0; i < 16; i++) {
        if (tasks[i] > most_tasks) most_tasks = tasks[i];
        if (block_load[i] > most_blocks) most_blocks = block_load[i];
    }
    CHECK_MSG(contiguous && covered == blocks, "L=%" PRIu64 " H=%u G=%" PRIu64 ": tasks do not partition the blocks",
              blocks, workers, grain);
    CHECK_MSG(s.blocks_per_task == w.blocks_per_task && s.task_count == w.task_count &&
                  s.active_workers == w.active_workers && s.collapsed == (w.active_workers == 1) &&
                  most_tasks == w.critical_tasks && most_blocks == w.critical_blocks,
              "L=%" PRIu64 " H=%u G=%" PRIu64 ": runtime G=%" PRIu64 " C=%" PRIu64 " h=%" PRIu64 " tasks=%" PRIu64
              " blocks=%" PRIu64 "; model G=%" PRIu64 " C=%" PRIu64 " h=%" PRIu64 " tasks=%" PRIu64 " blocks=%" PRIu64,
              blocks, workers, grain, s.blocks_per_task, s.task_count, s.active_workers, most_tasks, most_blocks,
              w.blocks_per_task, w.task_count, w.active_workers, w.critical_tasks, w.critical_blocks);
}

int main(void) {
    for (uint32_t workers = 1; workers <= 16; workers++)
        for (uint64_t blocks = 1; blocks <= 600; blocks++) {
            for (uint64_t grain = 0; grain <= 40; grain++) check_one(workers, blocks, grain);
            check_one(workers, blocks, UINT64_MAX);
        }
    /* The default grain spreads 32 tasks per worker. */
    rt_schedule s = rt_schedule_make(4, 4096, 0);
    CHECK(s.blocks_per_task == 32 && s.task_count == 128 && s.active_workers == 4 && !s.collapsed);
    /* One worker always collapses, whatever the grain. */
    s = rt_schedule_make(1, 100, 1);
    CHECK(s.collapsed && s.task_count == 1 && s.active_workers == 1 && s.blocks_per_task == 1);
    /* No blocks, no tasks. */
    s = rt_schedule_make(4, 0, 0);
    CHECK(s.task_count == 0 && s.active_workers == 0);
    TEST_MAIN_END();
}
