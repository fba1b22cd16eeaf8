/* cost.c — the planner's analytic objective (docs/planner.md "Cost"; see
 * plan_cost_analytic in target.h).  Every term is kept separately; the score
 * is their sum.  The per-packet work is divided by the active workers once,
 * here; a custom policy's score is never divided again. */
#include "plan/target.h"

plan_cost plan_cost_analytic(const plan_work *work, const plan_cost_coefficients *model) {
    double a = work->arithmetic_per_packet, m = work->memory_per_packet;
    double h = work->active_workers ? (double)work->active_workers : 1.0;
    double per_worker = (double)work->packet_count / h; /* P̄ */
    double excess = (double)work->critical_packets - per_worker;
    plan_cost c;
    c.arithmetic = a * per_worker;
    c.memory = m * per_worker;
    c.dispatch = model->block_dispatch * (double)work->critical_blocks;
    c.imbalance = (excess > 0 ? excess : 0) * (a + m);
    c.task = model->task_dispatch * (double)work->critical_tasks;
    c.activation = work->active_workers > 1 ? model->worker_activation : 0;
    c.cache = (model->l1_line * work->cache_lines[0] + model->l2_line * work->cache_lines[1] +
               model->l3_line * work->cache_lines[2]) / h;
    c.score = c.arithmetic + c.memory + c.dispatch + c.imbalance + c.task + c.activation + c.cache;
    return c;
}
