/* dispatch.h — running a compiled kernel on buffers: the kernel descriptor,
 * argument checking and the block-range calls of the packet ABI.
 *
 * A kernel entry walks the blocks [block_begin, block_end) of a 1-D grid of
 * ceil(dispatch_size / block_size) blocks; lanes at or beyond dispatch_size
 * are masked by the entry itself.  args[i] is the i-th buffer as
 * {data, size_bytes} (an offset view: data already points at the first
 * element).  workspace is the calling worker's private scratch, 64-byte
 * aligned, at least workspace_bytes long (NULL when the kernel asks for none);
 * its contents on entry are unspecified.  faults is one zeroed record per
 * dispatch, shared by every task.
 *
 * rt_dispatch checks everything before anything runs and fails with a
 * diagnostic, leaving the pool usable:
 *   RT-D01 malformed kernel descriptor (NULL entry, block size 0, NULL params)
 *   RT-D02 argument count differs from the kernel's
 *   RT-D03 argument element type differs from the parameter's
 *   RT-D04 argument smaller than the parameter's minimum byte size
 *   RT-D05 NULL data for a non-empty argument
 *   RT-D06 workspace request above RT_WORKSPACE_LIMIT
 *   RT-D07 out of memory (workspace growth, argument record)
 *   RT-D08 test trace array too short for the schedule's tasks
 * After the run, bounds faults the kernel recorded (base/fault.h: the
 * out-of-range accesses did not happen) fail the dispatch through the
 * kernel's report_fault, else with RT-F01.
 * The descriptor and the arguments are only borrowed during the call: a
 * kernel can be copied, moved or destroyed between dispatches. */
#ifndef TILEC_RT_DISPATCH_H
#define TILEC_RT_DISPATCH_H

#include "base/fault.h"
#include "rt/pool.h"
#include "tilec/scalar.h" /* tir_scalar: the element types */

/* The packet ABI's buffer record: 16 bytes at 16-byte boundaries. */
typedef struct {
    _Alignas(16) void *data;
    uint64_t size_bytes;
} rt_buffer;

typedef void (*rt_entry)(const rt_buffer *args, uint32_t block_begin, uint32_t block_end, uint32_t dispatch_size,
                         void *workspace, fault_record *faults);

/* Turns the bounds faults a dispatch recorded into a diagnostic (returns
 * its status); `user` is the kernel descriptor's fault_user. */
typedef tilec_status (*rt_fault_report)(const void *user, tilec_context *ctx, const fault_record *faults);

typedef struct {
    tir_scalar elem;
    uint64_t min_bytes; /* what the kernel may touch: the view's extent × element size */
} rt_param;

typedef struct {
    const char *name; /* for diagnostics; NULL: "kernel" */
    rt_entry entry;
    uint32_t arg_count;
    const rt_param *params; /* arg_count */
    uint32_t dispatch_size; /* logical workers; 0 runs nothing */
    uint32_t block_size;    /* workers per block, ≥ 1 */
    uint64_t blocks_per_task; /* the plan's grain; 0: ceil(blocks / (workers·32)) */
    uint64_t workspace_bytes; /* per worker */
    /* NULL: a fault fails the dispatch with the generic RT-F01 */
    rt_fault_report report_fault;
    const void *fault_user;
} rt_kernel;

/* A bound argument: pointer + byte size (offset views work) + element type. */
typedef struct {
    void *data;
    uint64_t size_bytes;
    tir_scalar elem;
} rt_arg;

/* Test and inspection options (NULL: none). */
typedef struct {
    bool no_steal; /* workers run their home tasks only */
    /* When non-NULL, task_workers[t] receives the worker that ran task t
     * (task_capacity entries; too few fails with RT-D08 before running). */
    uint32_t *task_workers;
    uint64_t task_capacity;
    rt_schedule *schedule; /* when non-NULL, receives the schedule used */
} rt_dispatch_options;

/* The checks rt_dispatch makes before it runs anything (RT-D01..D05), alone:
 * for a caller that runs another kernel on some of the arguments first. */
tilec_status rt_check_args(tilec_context *ctx, const rt_kernel *kernel, const rt_arg *args, uint32_t arg_count);
/* The argument checks alone (RT-D02..D05) against a parameter table: for a
 * kernel another backend runs (the GPU's). */
tilec_status rt_check_bound_args(tilec_context *ctx, const char *name, const rt_param *params, uint32_t param_count,
                                 const rt_arg *args, uint32_t arg_count);

tilec_status rt_dispatch(rt_pool *pool, tilec_context *ctx, const rt_kernel *kernel, const rt_arg *args,
                         uint32_t arg_count, const rt_dispatch_options *options);

#endif
