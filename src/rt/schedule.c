/* schedule.c — the home-chunk schedule (see schedule.h).  Invariant: a
 * schedule's tasks partition [0, L) into consecutive ranges of G blocks, the
 * last one possibly short. */
#include "rt/schedule.h"

static uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

rt_schedule rt_schedule_make(uint32_t workers, uint64_t block_count, uint64_t blocks_per_task) {
    rt_schedule s = {.block_count = block_count};
    if (block_count == 0) return s;
    uint64_t H = workers ? workers : 1;
    uint64_t G = blocks_per_task ? blocks_per_task : ceil_div(block_count, H * RT_TASK_CHUNKS_PER_WORKER);
    if (G > block_count) G = block_count;
    uint64_t C = ceil_div(block_count, G);
    s.blocks_per_task = G;
    s.active_workers = C < H ? C : H;
    s.collapsed = s.active_workers <= 1;
    s.task_count = s.collapsed ? 1 : C;
    return s;
}

void rt_schedule_task_blocks(const rt_schedule *schedule, uint64_t task, uint64_t *begin, uint64_t *end) {
    if (schedule->collapsed) {
        *begin = 0;
        *end = schedule->block_count;
        return;
    }
    uint64_t b = task * schedule->blocks_per_task, e = b + schedule->blocks_per_task;
    *begin = b;
    *end = e < schedule->block_count ? e : schedule->block_count;
}

uint32_t rt_schedule_home_worker(const rt_schedule *schedule, uint64_t task) {
    return schedule->active_workers ? (uint32_t)(task % schedule->active_workers) : 0;
}
