/* schedule.h — how one dispatch's blocks become tasks and tasks become
 * workers: the thread pool's static home-chunk schedule (docs/runtime.md
 * "Schedule").  The planner models exactly this (src/plan/target.c,
 * plan_schedule_thread_pool); tests/rt/test_schedule.c checks the two agree.
 *
 *   grain G = blocks_per_task clamped to L, or ceil(L / (workers·32)) when 0
 *   tasks C = ceil(L / G), task t covers blocks [t·G, min((t+1)·G, L))
 *   active workers h = min(C, workers); worker w's home tasks are w, w+h, …
 *   h ≤ 1 collapses: one call for the whole range [0, L) on the caller.
 *
 * Pure functions of their inputs; no state. */
#ifndef TILEC_RT_SCHEDULE_H
#define TILEC_RT_SCHEDULE_H

#include <stdbool.h>
#include <stdint.h>

/* The default grain aims at this many tasks per worker (the planner's
 * task_chunks_per_worker). */
enum { RT_TASK_CHUNKS_PER_WORKER = 32 };

typedef struct {
    uint64_t block_count;     /* L */
    uint64_t blocks_per_task; /* G, ≥ 1 when L ≥ 1 */
    uint64_t task_count;      /* C; 1 when collapsed; 0 when L = 0 */
    uint64_t active_workers;  /* h; 1 when collapsed; 0 when L = 0 */
    bool collapsed;           /* one call [0, L) on the caller thread */
} rt_schedule;

/* workers ≥ 1; blocks_per_task 0 requests the default grain. */
rt_schedule rt_schedule_make(uint32_t workers, uint64_t block_count, uint64_t blocks_per_task);

/* The blocks of task `task` ([*begin, *end)); collapsed schedules have one
 * task covering every block. */
void rt_schedule_task_blocks(const rt_schedule *schedule, uint64_t task, uint64_t *begin, uint64_t *end);

/* The worker whose home sequence contains `task` (task mod h). */
uint32_t rt_schedule_home_worker(const rt_schedule *schedule, uint64_t task);

#endif
