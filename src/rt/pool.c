/* pool.c — the pthread pool (see pool.h).
 *
 * Synchronization: `submit` serializes runs.  `lock` guards the generation
 * handshake: a run publishes its job, sets `running` to h - 1 and gives
 * workers 1..h-1 the new generation (each has its own condition variable, so
 * idle workers beyond h stay asleep); the caller runs worker 0's tasks
 * itself; each worker runs tasks without holding the lock and decrements
 * `running` when it finds none left; the last one signals `done`.  The mutex
 * hand-offs order everything the tasks wrote before the run returns.
 *
 * Latency: a thread about to sleep (a worker with no new generation, the
 * caller waiting for `running` to reach 0) first polls for up to SPIN_NS, so
 * back-to-back dispatches of small kernels do not pay a futex sleep and wake
 * each; the polls read the atomics written under the lock (acquire), and the
 * lock is still taken afterwards, so the handshake is unchanged.  Task claiming is lock-free: worker w's home task k is
 * w + k·h, and k comes from a relaxed fetch-add on w's cursor, so every task
 * is claimed by exactly one fetch-add whoever performs it (owner or thief).
 *
 * fork(): the child has only the forking thread, so a pool it inherits has
 * no worker threads, and its locks may be held by threads that do not exist
 * there (Python's multiprocessing forks processes that dispatch).  Every live
 * pool is in one registry; pthread_atfork handlers take the registry lock and
 * each pool's submit and handshake locks before the fork (no run in flight,
 * no worker inside the handshake), release them in the parent, and in the
 * child re-initialize the locks and condition variables and forget the
 * threads (thread_count 0).  A run starts the threads it needs that are not
 * running, so the child's first multi-worker dispatch restarts them. */
#include "rt/pool.h"

#include "base/host.h"
#include "base/invariant.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* How long a thread polls before it sleeps: longer than a small kernel's
 * dispatch, far shorter than a timing batch of another library. */
enum { SPIN_NS = 50000 };

/* One cursor per cache line: cursors are hammered by their owners. */
typedef struct {
    atomic_uint_fast64_t claimed; /* home tasks of this worker claimed so far */
    char pad[64 - sizeof(atomic_uint_fast64_t)];
} rt_cursor;

typedef struct {
    rt_pool *pool;
    uint32_t index;
    pthread_t thread;
    pthread_cond_t wake;
    atomic_uint_fast64_t assigned; /* run generation, written under pool->lock */
    uint64_t seen;                 /* the last generation this worker ran */
    void *workspace_block;   /* what was allocated; workspace is it aligned up to 64 */
    void *workspace;
    size_t workspace_capacity;
} rt_worker;

struct rt_pool {
    tilec_context *ctx;
    uint32_t worker_count;
    uint32_t thread_count; /* threads started for workers 1..thread_count (worker 0 is the caller) */
    pthread_mutex_t submit, lock;
    pthread_cond_t done;
    bool stopping;
    uint64_t generation;
    atomic_uint_fast64_t running; /* woken workers still running tasks, written under lock */
    const rt_pool_job *job;   /* the run in flight */
    rt_worker *workers;       /* worker_count */
    rt_cursor *cursors;       /* worker_count */
    rt_pool *prev, *next;     /* in the registry of live pools (under registry_lock) */
};

/* ---- fork ---- */

/* The pool's global state: which pools exist, for the fork handlers
 * (registered once; registry_error is pthread_atfork's answer).  The
 * runtime's only other one is base/host.c's once-read machine facts. */
static pthread_once_t registry_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static rt_pool *registry;
static int registry_error;

static void before_fork(void) {
    pthread_mutex_lock(&registry_lock);
    for (rt_pool *p = registry; p; p = p->next) {
        pthread_mutex_lock(&p->submit);
        pthread_mutex_lock(&p->lock);
    }
}

static void after_fork_parent(void) {
    for (rt_pool *p = registry; p; p = p->next) {
        pthread_mutex_unlock(&p->lock);
        pthread_mutex_unlock(&p->submit);
    }
    pthread_mutex_unlock(&registry_lock);
}

/* The child's one thread holds every lock through a thread that may no
 * longer be it, and the condition variables may count waiters that are
 * gone: fresh ones replace them (nothing waits on them here). */
static void after_fork_child(void) {
    pthread_mutex_init(&registry_lock, NULL);
    for (rt_pool *p = registry; p; p = p->next) {
        pthread_mutex_init(&p->submit, NULL);
        pthread_mutex_init(&p->lock, NULL);
        pthread_cond_init(&p->done, NULL);
        for (uint32_t w = 0; w < p->worker_count; w++) {
            pthread_cond_init(&p->workers[w].wake, NULL);
            p->workers[w].seen = atomic_load_explicit(&p->workers[w].assigned, memory_order_relaxed);
        }
        p->thread_count = 0;
    }
}

static void register_fork_handlers(void) {
    registry_error = pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

static void unregister(rt_pool *pool) {
    pthread_mutex_lock(&registry_lock);
    if (pool->prev) pool->prev->next = pool->next;
    else registry = pool->next;
    if (pool->next) pool->next->prev = pool->prev;
    pthread_mutex_unlock(&registry_lock);
}

/* ---- task execution ---- */

static uint64_t claim(rt_pool *pool, uint32_t owner, uint64_t active) {
    uint64_t k = atomic_fetch_add_explicit(&pool->cursors[owner].claimed, 1, memory_order_relaxed);
    return owner + k * active;
}

static void run_tasks(rt_pool *pool, const rt_pool_job *job, uint32_t w) {
    uint64_t h = job->schedule->active_workers, tasks = job->schedule->task_count;
    void *workspace = job->workspace_bytes ? pool->workers[w].workspace : NULL;
    for (uint64_t t = claim(pool, w, h); t < tasks; t = claim(pool, w, h)) job->run(job->user, t, w, workspace);
    if (job->no_steal) return;
    for (bool found = true; found;) {
        found = false;
        for (uint64_t i = 1; i < h; i++) {
            uint32_t victim = (uint32_t)((w + i) % h);
            uint64_t t = claim(pool, victim, h);
            if (t < tasks) {
                job->run(job->user, t, w, workspace);
                found = true;
            }
        }
    }
}

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Polls until *v != old (wait_change) or *v == old, for at most SPIN_NS. */
static void spin(const atomic_uint_fast64_t *v, uint64_t old, bool wait_change) {
    uint64_t start = now_ns();
    for (uint32_t i = 1;; i++) {
        if ((atomic_load_explicit(v, memory_order_acquire) != old) == wait_change) return;
        cpu_relax();
        if (i % 64 == 0 && now_ns() - start > SPIN_NS) return;
    }
}

static void *worker_main(void *arg) {
    rt_worker *self = arg;
    rt_pool *pool = self->pool;
    for (;;) {
        spin(&self->assigned, self->seen, true);
        pthread_mutex_lock(&pool->lock);
        while (!pool->stopping && atomic_load_explicit(&self->assigned, memory_order_relaxed) == self->seen)
            pthread_cond_wait(&self->wake, &pool->lock);
        if (pool->stopping) break;
        self->seen = atomic_load_explicit(&self->assigned, memory_order_relaxed);
        const rt_pool_job *job = pool->job;
        pthread_mutex_unlock(&pool->lock);
        run_tasks(pool, job, self->index);
        pthread_mutex_lock(&pool->lock);
        if (atomic_fetch_sub_explicit(&pool->running, 1, memory_order_acq_rel) == 1) pthread_cond_signal(&pool->done);
        pthread_mutex_unlock(&pool->lock);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

/* ---- creation and destruction ---- */

tilec_status rt_resolve_worker_count(tilec_context *ctx, uint32_t requested, uint32_t *out) {
    if (requested) {
        if (requested > RT_MAX_WORKERS)
            return tilec_error(ctx, TILEC_E_ARG, "RT-P01", tilec_no_loc(), "worker count %u exceeds the limit %d",
                               requested, RT_MAX_WORKERS);
        *out = requested;
        return TILEC_OK;
    }
    const char *env = getenv("TILEC_THREADS");
    if (env && *env) {
        char *end = NULL;
        errno = 0;
        unsigned long n = strtoul(env, &end, 10);
        if (errno || *end || env[0] == '-' || n < 1 || n > RT_MAX_WORKERS)
            return tilec_error(ctx, TILEC_E_ARG, "RT-P02", tilec_no_loc(),
                               "TILEC_THREADS='%s' is not a worker count in 1..%d", env, RT_MAX_WORKERS);
        *out = (uint32_t)n;
        return TILEC_OK;
    }
    host_desc host; /* the described host's cores (base/host.h) */
    char why[256];
    if (!host_current(&host, why, sizeof why))
        return tilec_error(ctx, TILEC_E_ARG, "RT-P05", tilec_no_loc(), "TILEC_HOST: %s", why);
    *out = host.cores > RT_MAX_WORKERS ? RT_MAX_WORKERS : host.cores;
    return TILEC_OK;
}

/* Stops and joins the started threads, frees everything. */
static void teardown(rt_pool *pool, bool sync_ready) {
    if (sync_ready) {
        pthread_mutex_lock(&pool->lock);
        pool->stopping = true;
        for (uint32_t w = 1; w <= pool->thread_count; w++) pthread_cond_signal(&pool->workers[w].wake);
        pthread_mutex_unlock(&pool->lock);
        for (uint32_t w = 1; w <= pool->thread_count; w++) pthread_join(pool->workers[w].thread, NULL);
        for (uint32_t w = 0; w < pool->worker_count; w++) pthread_cond_destroy(&pool->workers[w].wake);
        pthread_cond_destroy(&pool->done);
        pthread_mutex_destroy(&pool->lock);
        pthread_mutex_destroy(&pool->submit);
    }
    tilec_context *ctx = pool->ctx;
    if (pool->workers)
        for (uint32_t w = 0; w < pool->worker_count; w++) tilec_free(ctx, pool->workers[w].workspace_block);
    tilec_free(ctx, pool->workers);
    tilec_free(ctx, pool->cursors);
    tilec_free(ctx, pool);
}

/* Initializes the locks and the per-worker condition variables. */
static bool init_sync(rt_pool *pool) {
    uint32_t w = 0;
    if (pthread_mutex_init(&pool->submit, NULL)) return false;
    if (pthread_mutex_init(&pool->lock, NULL)) goto fail_lock;
    if (pthread_cond_init(&pool->done, NULL)) goto fail_done;
    for (; w < pool->worker_count; w++)
        if (pthread_cond_init(&pool->workers[w].wake, NULL)) goto fail_wake;
    return true;
fail_wake:
    while (w--) pthread_cond_destroy(&pool->workers[w].wake);
    pthread_cond_destroy(&pool->done);
fail_done:
    pthread_mutex_destroy(&pool->lock);
fail_lock:
    pthread_mutex_destroy(&pool->submit);
    return false;
}

/* Starts the threads of workers thread_count+1 .. count-1 (worker 0 is the
 * dispatching thread): at creation, and in a forked child whose run needs
 * them.  0, or the error of the thread that could not start. */
static int start_threads(rt_pool *pool, uint32_t count) {
    while (pool->thread_count + 1 < count) {
        rt_worker *w = &pool->workers[pool->thread_count + 1];
        int err = pthread_create(&w->thread, NULL, worker_main, w);
        if (err) return err;
        pool->thread_count++;
    }
    return 0;
}

tilec_status rt_pool_create(tilec_context *ctx, const rt_pool_options *options, rt_pool **out) {
    if (!out) return tilec_error(ctx, TILEC_E_ARG, "RT-P01", tilec_no_loc(), "rt_pool_create: out is NULL");
    *out = NULL;
    pthread_once(&registry_once, register_fork_handlers);
    if (registry_error)
        return tilec_error(ctx, TILEC_E_NOMEM, "RT-P04", tilec_no_loc(),
                           "cannot register the thread pool's fork handlers (error %d)", registry_error);
    uint32_t workers = 0;
    tilec_status status = rt_resolve_worker_count(ctx, options ? options->worker_count : 0, &workers);
    if (status != TILEC_OK) return status;
    rt_pool *pool = tilec_alloc(ctx, sizeof *pool);
    if (!pool) return tilec_error(ctx, TILEC_E_NOMEM, "RT-P04", tilec_no_loc(), "out of memory creating the thread pool");
    pool->ctx = ctx;
    pool->worker_count = workers;
    pool->workers = tilec_alloc(ctx, workers * sizeof *pool->workers);
    pool->cursors = tilec_alloc(ctx, workers * sizeof *pool->cursors);
    if (!pool->workers || !pool->cursors) {
        teardown(pool, false);
        return tilec_error(ctx, TILEC_E_NOMEM, "RT-P04", tilec_no_loc(), "out of memory creating the thread pool");
    }
    for (uint32_t w = 0; w < workers; w++) {
        pool->workers[w].pool = pool;
        pool->workers[w].index = w;
        atomic_init(&pool->workers[w].assigned, 0);
        atomic_init(&pool->cursors[w].claimed, 0);
    }
    atomic_init(&pool->running, 0);
    if (!init_sync(pool)) {
        teardown(pool, false);
        return tilec_error(ctx, TILEC_E_RUNTIME, "RT-P03", tilec_no_loc(), "cannot initialize the pool's locks");
    }
    int err = start_threads(pool, workers);
    if (err) {
        uint32_t w = pool->thread_count + 1;
        teardown(pool, true);
        return tilec_error(ctx, TILEC_E_RUNTIME, "RT-P03", tilec_no_loc(),
                           "cannot start worker thread %u of %u (error %d)", w, workers, err);
    }
    pthread_mutex_lock(&registry_lock);
    pool->next = registry;
    if (registry) registry->prev = pool;
    registry = pool;
    pthread_mutex_unlock(&registry_lock);
    *out = pool;
    return TILEC_OK;
}

void rt_pool_destroy(rt_pool *pool) {
    if (!pool) return;
    unregister(pool);
    teardown(pool, true);
}

uint32_t rt_pool_worker_count(const rt_pool *pool) { return pool->worker_count; }

void *rt_pool_workspace(const rt_pool *pool, uint32_t worker, size_t *capacity) {
    if (worker >= pool->worker_count) {
        if (capacity) *capacity = 0;
        return NULL;
    }
    if (capacity) *capacity = pool->workers[worker].workspace_capacity;
    return pool->workers[worker].workspace;
}

/* ---- runs ---- */

/* Grows the workspaces of workers 0..count-1 to `bytes` (under submit). */
static bool grow_workspaces(rt_pool *pool, uint32_t count, size_t bytes) {
    for (uint32_t w = 0; w < count; w++) {
        rt_worker *worker = &pool->workers[w];
        if (worker->workspace_capacity >= bytes) continue;
        void *block = tilec_alloc(pool->ctx, bytes + 63);
        if (!block) return false;
        tilec_free(pool->ctx, worker->workspace_block);
        worker->workspace_block = block;
        worker->workspace = align64_ptr(block);
        worker->workspace_capacity = bytes;
    }
    return true;
}

tilec_status rt_pool_run(rt_pool *pool, tilec_context *ctx, const rt_pool_job *job) {
    const rt_schedule *s = job->schedule;
    if (s->task_count == 0) return TILEC_OK;
    if (job->workspace_bytes > RT_WORKSPACE_LIMIT)
        return tilec_error(ctx, TILEC_E_BUDGET, "RT-D06", tilec_no_loc(),
                           "workspace of %zu bytes per worker exceeds the limit of %zu bytes", job->workspace_bytes,
                           RT_WORKSPACE_LIMIT);
    if (!TILEC_INVARIANT(ctx, s->collapsed || s->active_workers <= pool->worker_count)) return TILEC_E_INTERNAL;
    uint32_t active = s->collapsed ? 1 : (uint32_t)s->active_workers;
    pthread_mutex_lock(&pool->submit);
    int err = start_threads(pool, active); /* only after a fork: the child has no threads */
    if (err) {
        pthread_mutex_unlock(&pool->submit);
        return tilec_error(ctx, TILEC_E_RUNTIME, "RT-P03", tilec_no_loc(),
                           "cannot restart worker thread %u of %u after fork (error %d)", pool->thread_count + 1,
                           pool->worker_count, err);
    }
    if (job->workspace_bytes && !grow_workspaces(pool, active, job->workspace_bytes)) {
        pthread_mutex_unlock(&pool->submit);
        return tilec_error(ctx, TILEC_E_NOMEM, "RT-D07", tilec_no_loc(),
                           "out of memory growing the per-worker workspace to %zu bytes", job->workspace_bytes);
    }
    if (s->collapsed) {
        job->run(job->user, 0, 0, job->workspace_bytes ? pool->workers[0].workspace : NULL);
    } else {
        for (uint32_t w = 0; w < active; w++) atomic_store_explicit(&pool->cursors[w].claimed, 0, memory_order_relaxed);
        pthread_mutex_lock(&pool->lock);
        pool->job = job;
        atomic_store_explicit(&pool->running, active - 1, memory_order_relaxed);
        pool->generation++;
        for (uint32_t w = 1; w < active; w++) {
            atomic_store_explicit(&pool->workers[w].assigned, pool->generation, memory_order_release);
            pthread_cond_signal(&pool->workers[w].wake);
        }
        pthread_mutex_unlock(&pool->lock);
        run_tasks(pool, job, 0); /* the caller is worker 0 */
        spin(&pool->running, 0, false);
        pthread_mutex_lock(&pool->lock);
        while (atomic_load_explicit(&pool->running, memory_order_acquire)) pthread_cond_wait(&pool->done, &pool->lock);
        pool->job = NULL;
        pthread_mutex_unlock(&pool->lock);
    }
    pthread_mutex_unlock(&pool->submit);
    return TILEC_OK;
}
