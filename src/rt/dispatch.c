/* dispatch.c — argument checking and block-range calls (see dispatch.h).
 * Invariant: the entry is called only after every check passed, once per
 * task with the task's block range; the argument record lives on this stack
 * frame (or the context's heap) for the duration of the run. */
#include "rt/dispatch.h"

#include <inttypes.h>

enum { RT_INLINE_ARGS = 16 };

typedef struct {
    const rt_kernel *kernel;
    const rt_buffer *buffers;
    const rt_schedule *schedule;
    uint32_t *task_workers;
    fault_record *faults;
} dispatch_run;

static void run_task(void *user, uint64_t task, uint32_t worker, void *workspace) {
    const dispatch_run *run = user;
    uint64_t begin, end;
    rt_schedule_task_blocks(run->schedule, task, &begin, &end);
    if (run->task_workers) run->task_workers[task] = worker;
    run->kernel->entry(run->buffers, (uint32_t)begin, (uint32_t)end, run->kernel->dispatch_size, workspace, run->faults);
}

static tilec_status report_faults(tilec_context *ctx, const rt_kernel *k, const fault_record *faults) {
    if (k->report_fault) return k->report_fault(k->fault_user, ctx, faults);
    return tilec_error(ctx, TILEC_E_RUNTIME, "RT-F01", tilec_no_loc(),
                       "%s: %" PRIu64 " out-of-range access(es) did not happen; the first reported is fault site %" PRIu32
                       " with value %" PRId64,
                       k->name ? k->name : "kernel", faults->count, faults->site, faults->value);
}

tilec_status rt_check_bound_args(tilec_context *ctx, const char *name, const rt_param *params, uint32_t param_count,
                                 const rt_arg *args, uint32_t arg_count) {
    if (arg_count != param_count)
        return tilec_error(ctx, TILEC_E_ARG, "RT-D02", tilec_no_loc(), "%s takes %u arguments, got %u", name,
                           param_count, arg_count);
    if (arg_count && !args)
        return tilec_error(ctx, TILEC_E_ARG, "RT-D02", tilec_no_loc(), "%s takes %u arguments, got no argument array",
                           name, param_count);
    for (uint32_t i = 0; i < arg_count; i++) {
        const rt_param *p = &params[i];
        const rt_arg *a = &args[i];
        if (a->elem != p->elem)
            return tilec_error(ctx, TILEC_E_TYPE, "RT-D03", tilec_no_loc(),
                               "%s argument %u: element type %s, the kernel expects %s", name, i,
                               a->elem > TIR_SCALAR_INVALID && a->elem < TIR_SCALAR_COUNT ? tir_scalar_name(a->elem)
                                                                                          : "invalid",
                               tir_scalar_name(p->elem));
        if (a->size_bytes < p->min_bytes)
            return tilec_error(ctx, TILEC_E_RUNTIME, "RT-D04", tilec_no_loc(),
                               "%s argument %u: %" PRIu64 " bytes, the kernel needs at least %" PRIu64, name, i,
                               a->size_bytes, p->min_bytes);
        if (a->size_bytes && !a->data)
            return tilec_error(ctx, TILEC_E_RUNTIME, "RT-D05", tilec_no_loc(),
                               "%s argument %u: NULL data for %" PRIu64 " bytes", name, i, a->size_bytes);
    }
    return TILEC_OK;
}

tilec_status rt_check_args(tilec_context *ctx, const rt_kernel *k, const rt_arg *args, uint32_t arg_count) {
    const char *name = k->name ? k->name : "kernel";
    if (!k->entry || !k->block_size || (k->arg_count && !k->params))
        return tilec_error(ctx, TILEC_E_ARG, "RT-D01", tilec_no_loc(), "%s: malformed kernel descriptor (%s)", name,
                           !k->entry ? "no entry" : !k->block_size ? "block size 0" : "no parameter list");
    return rt_check_bound_args(ctx, name, k->params, k->arg_count, args, arg_count);
}

tilec_status rt_dispatch(rt_pool *pool, tilec_context *ctx, const rt_kernel *kernel, const rt_arg *args,
                         uint32_t arg_count, const rt_dispatch_options *options) {
    if (!pool || !kernel)
        return tilec_error(ctx, TILEC_E_ARG, "RT-D01", tilec_no_loc(), "rt_dispatch: %s is NULL",
                           pool ? "the kernel" : "the pool");
    tilec_status status = rt_check_args(ctx, kernel, args, arg_count);
    if (status != TILEC_OK) return status;
    uint64_t blocks = kernel->dispatch_size / kernel->block_size + (kernel->dispatch_size % kernel->block_size != 0);
    rt_schedule schedule = rt_schedule_make(rt_pool_worker_count(pool), blocks, kernel->blocks_per_task);
    if (options && options->schedule) *options->schedule = schedule;
    uint32_t *task_workers = options ? options->task_workers : NULL;
    if (task_workers && options->task_capacity < schedule.task_count)
        return tilec_error(ctx, TILEC_E_ARG, "RT-D08", tilec_no_loc(),
                           "task trace holds %" PRIu64 " entries, the dispatch has %" PRIu64 " tasks",
                           options->task_capacity, schedule.task_count);
    if (schedule.task_count == 0) return TILEC_OK;

    rt_buffer inline_buffers[RT_INLINE_ARGS];
    rt_buffer *buffers = inline_buffers;
    if (arg_count > RT_INLINE_ARGS) {
        buffers = tilec_alloc(ctx, arg_count * sizeof *buffers);
        if (!buffers)
            return tilec_error(ctx, TILEC_E_NOMEM, "RT-D07", tilec_no_loc(), "out of memory for %u arguments",
                               arg_count);
    }
    for (uint32_t i = 0; i < arg_count; i++) buffers[i] = (rt_buffer){args[i].data, args[i].size_bytes};
    fault_record faults = {0};
    dispatch_run run = {kernel, buffers, &schedule, task_workers, &faults};
    rt_pool_job job = {
        .schedule = &schedule,
        .run = run_task,
        .user = &run,
        .workspace_bytes = (size_t)kernel->workspace_bytes,
        .no_steal = options && options->no_steal,
    };
    status = rt_pool_run(pool, ctx, &job);
    if (buffers != inline_buffers) tilec_free(ctx, buffers);
    if (!status && faults.count) status = report_faults(ctx, kernel, &faults);
    return status;
}
