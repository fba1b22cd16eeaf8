/* pool.h — the persistent pthread pool that runs a dispatch's tasks
 * (docs/runtime.md "The pool").
 *
 * - Created once, reused by every dispatch, destroyed (workers joined) with
 *   rt_pool_destroy.  worker_count W: the option if nonzero, else the
 *   TILEC_THREADS environment variable, else the online cores.  Threads are
 *   started for workers 1..W-1; worker 0 is the dispatching thread (W = 1
 *   spawns no thread at all).
 * - rt_pool_run executes the tasks of an rt_schedule: worker w (w < h) first
 *   claims its home tasks w, w+h, w+2h, … in order through its own atomic
 *   cursor; once they are exhausted it steals one task at a time from the
 *   other active workers' cursors, round-robin w+1, w+2, …, until one full
 *   sweep finds nothing.  Workers w ≥ h are not woken.
 * - Collapsed schedules (h ≤ 1) run on the calling thread as worker 0, without
 *   waking the pool.  Otherwise the caller wakes workers 1..h-1, runs worker
 *   0's tasks (then steals like the others) and waits until the last woken
 *   worker finishes.  A thread about to sleep polls for up to 50 µs first, so
 *   back-to-back small dispatches avoid a futex sleep/wake per dispatch.
 * - Dispatches are serialized by a submit lock: any number of threads may call
 *   rt_pool_run on one pool; each call runs alone and returns when its tasks
 *   are done.  A task function must not dispatch on the same pool (it would
 *   wait for itself), nor fork.
 * - fork(): the child of a process with pools may dispatch on them: fork
 *   waits for dispatches in flight, and in the child each pool's worker
 *   threads (absent there) are started again by the first dispatch that
 *   needs them (pool.c "fork").
 * - Every worker (the caller as worker 0) owns a
 *   64-byte-aligned workspace, grown before the tasks run to the requested
 *   size (≤ RT_WORKSPACE_LIMIT), never shrunk, reused by later dispatches and
 *   freed with the pool.  Workspaces are never used by two threads at once.
 *
 * Memory: the pool allocates through the context it was created with, on the
 * creating thread and inside rt_pool_run under the submit lock (workspace
 * growth).  When other threads dispatch, give the pool a context of its own
 * (no other thread may use a context concurrently, see tilec/diag.h).
 * Diagnostics of a run go to the context passed to rt_pool_run. */
#ifndef TILEC_RT_POOL_H
#define TILEC_RT_POOL_H

#include "base/context.h"
#include "rt/schedule.h"

#include <stddef.h>

enum { RT_MAX_WORKERS = 1024 };
#define RT_WORKSPACE_LIMIT ((size_t)16 << 20)

typedef struct rt_pool rt_pool;

typedef struct {
    uint32_t worker_count; /* 0: TILEC_THREADS, else the online cores */
} rt_pool_options;

/* options may be NULL.  Fails with RT-P01 (worker count out of range),
 * RT-P02 (malformed TILEC_THREADS), RT-P03 (thread creation), NOMEM
 * (RT-P04, also when the fork handlers cannot be registered). */
tilec_status rt_pool_create(tilec_context *ctx, const rt_pool_options *options, rt_pool **out);
/* Joins the workers and frees everything; NULL is a no-op.  No dispatch may
 * be in flight. */
void rt_pool_destroy(rt_pool *pool);
uint32_t rt_pool_worker_count(const rt_pool *pool);
/* The worker count a pool created with `requested` workers gets: requested
 * if nonzero (at most RT_MAX_WORKERS, else RT-P01), else TILEC_THREADS
 * (RT-P02 when malformed), else the online cores. */
tilec_status rt_resolve_worker_count(tilec_context *ctx, uint32_t requested, uint32_t *out);

/* Runs task `task` as `worker` with that worker's workspace (NULL when no
 * workspace was requested). */
typedef void (*rt_task_fn)(void *user, uint64_t task, uint32_t worker, void *workspace);

typedef struct {
    const rt_schedule *schedule; /* made for this pool's worker count */
    rt_task_fn run;
    void *user;
    size_t workspace_bytes; /* per worker, ≤ RT_WORKSPACE_LIMIT */
    bool no_steal;          /* test option: home tasks only */
} rt_pool_job;

/* Runs every task of the schedule exactly once.  Fails before running
 * anything with RT-D06 (workspace over the limit), NOMEM (workspace),
 * RT-P03 (in a forked child, a worker thread that cannot start again), or
 * TILEC-I01 / TILEC_E_INTERNAL for a schedule made for more workers than the
 * pool has (a caller bug; base/invariant.h). */
tilec_status rt_pool_run(rt_pool *pool, tilec_context *ctx, const rt_pool_job *job);

/* Test view of worker w's workspace (NULL before first use). */
void *rt_pool_workspace(const rt_pool *pool, uint32_t worker, size_t *capacity);

#endif
