/* program.c — dispatching a program (program.h): a packing program checks
 * the arguments with its panels appended, then runs its copy kernels and
 * its entry; a split program checks the arguments against its own table, then
 * runs its partial and combine programs on (arguments, workspace views);
 * each under the program's scratch_lock.  A program with an unfused twin
 * first checks whether the arguments overlap where its streams need them
 * apart and runs the twin when they do. */
#include "rt/program.h"

#include <stdlib.h>

#include <inttypes.h>
#include <string.h>

enum { STACK_ARGS = 32 };

tilec_status rt_program_alloc_scratch(tilec_context *ctx, rt_program *p, uint64_t bytes, const char *what) {
    p->scratch_bytes = bytes;
    p->scratch_ctx = ctx;
    if (!(p->scratch_block = tilec_alloc(ctx, bytes + 64)))
        return tilec_error(ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory for %" PRIu64 " bytes of %s",
                           bytes, what);
    p->scratch = align64_ptr(p->scratch_block);
    if (pthread_mutex_init(&p->scratch_lock, NULL)) {
        tilec_free(ctx, p->scratch_block);
        p->scratch_block = p->scratch = NULL;
        return tilec_error(ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "cannot create the %s lock", what);
    }
    return TILEC_OK;
}

void rt_program_free_scratch(tilec_context *ctx, rt_program *p) {
    if (!p->scratch_block) return;
    pthread_mutex_destroy(&p->scratch_lock);
    tilec_free(p->scratch_ctx ? p->scratch_ctx : ctx, p->scratch_block);
    p->scratch_block = p->scratch = NULL;
}

/* args[0..n) with room for `count` arguments: `local` when it holds them,
 * else the heap (NULL after RT-D07). */
static rt_arg *with_room(tilec_context *ctx, rt_arg local[STACK_ARGS], const rt_arg *args, size_t n, size_t count) {
    rt_arg *a = count <= STACK_ARGS ? local : tilec_alloc(ctx, count * sizeof *a);
    if (!a) tilec_error(ctx, TILEC_E_NOMEM, "RT-D07", tilec_no_loc(), "out of memory binding arguments");
    else if (n) memcpy(a, args, n * sizeof *a);
    return a;
}

static tilec_status unsized(tilec_context *ctx, const char *name) {
    return tilec_error(ctx, TILEC_E_ARG, "RT-D10", tilec_no_loc(),
                       "kernel '@%s': its dispatch size or an argument's bytes do not fit at these runtime sizes", name);
}

/* The bytes of helper kernel c's parameter `param` at dims (a pack's
 * panels, a split's workspace): its size program's value where it follows a
 * runtime size, else `compiled`; false when a size overflows. */
static bool helper_bytes(const rt_program *c, uint32_t param, uint64_t compiled, const int64_t *dims, uint64_t *bytes) {
    int64_t v = (int64_t)compiled;
    const rt_size *sized = c->dim_count && c->arg_bytes ? &c->arg_bytes[param] : NULL;
    if (sized && sized->count && (!rt_size_eval(sized, dims, c->dim_count, &v) || v < 0)) return false;
    *bytes = (uint64_t)v;
    return true;
}

/* The workspace views (64-byte aligned one after another in the scratch,
 * grown under its lock when these sizes need more), then the partial and
 * the combine kernel; with runtime sizes both get the dims and check the
 * arguments at them. */
static tilec_status dispatch_split(rt_pool *pool, tilec_context *ctx, rt_program *p, size_t n, const rt_arg *args,
                                   const int64_t *dims) {
    rt_arg local[STACK_ARGS];
    size_t count = n + p->split_carries;
    uint64_t bytes[RT_SPLIT_MAX_CARRIES], offset[RT_SPLIT_MAX_CARRIES], total = 0;
    for (uint32_t i = 0; i < p->split_carries; i++) {
        if (!helper_bytes(p->split_partial, p->user_args + i, p->split_bytes[i], dims, &bytes[i]))
            return unsized(ctx, p->desc.name ? p->desc.name : "kernel");
        offset[i] = total;
        total = align64(total + bytes[i]);
    }
    rt_arg *b = with_room(ctx, local, args, n, count);
    if (!b) return TILEC_E_NOMEM;
    pthread_mutex_lock(&p->scratch_lock);
    tilec_status st = rt_program_grow_scratch(ctx, p, total);
    for (uint32_t i = 0; i < p->split_carries; i++)
        b[n + i] = (rt_arg){(char *)p->scratch + offset[i], bytes[i], p->split_elem[i]};
    if (!st && !p->dim_count) st = rt_check_args(ctx, &p->desc, args, (uint32_t)n);
    if (!st) st = rt_program_dispatch(pool, ctx, p->split_partial, count, b, dims);
    if (!st) st = rt_program_dispatch(pool, ctx, p->split_combine, count, b, dims);
    pthread_mutex_unlock(&p->scratch_lock);
    if (b != local) tilec_free(ctx, b);
    return st;
}

/* Whether arguments i and j share a byte the program may touch (the
 * parameters' bytes at this dispatch's sizes). */
static bool overlap(const rt_param *params, const rt_arg *args, size_t i, size_t j) {
    uintptr_t a = (uintptr_t)args[i].data, b = (uintptr_t)args[j].data;
    uint64_t na = params[i].min_bytes, nb = params[j].min_bytes;
    return na && nb && (a >= b ? a - b < nb : b - a < na);
}

/* Whether the arguments break what the streamed loads need: *i and *j
 * then name two that overlap. */
static bool streams_unsafe(const rt_program *p, const rt_param *params, size_t n, const rt_arg *args, size_t *i,
                           size_t *j) {
    for (*i = 0; *i < n && *i < 64; ++*i)
        for (*j = 0; *j < n && *j < 64; ++*j) {
            if ((p->disjoint[*i] >> *j & 1) && overlap(params, args, *i, *j)) return true;
            if ((p->disjoint_or_equal[*i] >> *j & 1) && overlap(params, args, *i, *j) && args[*i].data != args[*j].data)
                return true;
        }
    return false;
}

bool rt_program_panels_at(const rt_program *p, const int64_t *dims, rt_panel_layout *l) {
    uint64_t at = 0;
    for (uint32_t i = 0; i < p->packs; i++) { /* a copy's parameter 1 is its panels */
        if (!helper_bytes(p->pack[i], 1, p->pack_bytes[i], dims, &l->bytes[i])) return false;
        l->offset[i] = at;
        at = align64(at + l->bytes[i]);
    }
    l->total = at;
    return true;
}

tilec_status rt_program_grow_scratch(tilec_context *ctx, rt_program *p, uint64_t bytes) {
    if (bytes <= p->scratch_bytes) return TILEC_OK;
    void *block = tilec_alloc(p->scratch_ctx, bytes + 64);
    if (!block)
        return tilec_error(ctx, TILEC_E_NOMEM, "RT-D07", tilec_no_loc(), "out of memory for %" PRIu64 " bytes of panels",
                           bytes);
    tilec_free(p->scratch_ctx, p->scratch_block);
    p->scratch_block = block;
    p->scratch = align64_ptr(block);
    p->scratch_bytes = bytes;
    return TILEC_OK;
}

/* Under the scratch lock: the panels of p's packs (grown to the layout)
 * at a[n..n+packs), the arguments checked against desc (its panel
 * parameters' bytes the layout's), each pack's copy (at the dims when it
 * has runtime sizes), then `desc` on a[0..count).  A pack whose panels
 * are given (given[i].data, made before: rt_program_dispatch_panels) is
 * not copied again. */
static tilec_status run_packed(rt_pool *pool, tilec_context *ctx, rt_program *p, const rt_kernel *desc, rt_arg *a,
                               size_t count, const int64_t *dims, const rt_panel_layout *l, const rt_arg *given) {
    pthread_mutex_lock(&p->scratch_lock);
    tilec_status st = rt_program_grow_scratch(ctx, p, l->total);
    size_t n = p->user_args;
    for (uint32_t i = 0; !st && i < p->packs; i++)
        a[n + i] = given && given[i].data ? given[i]
                                          : (rt_arg){(char *)p->scratch + l->offset[i], l->bytes[i], desc->params[n + i].elem};
    if (!st) st = rt_check_args(ctx, desc, a, (uint32_t)count);
    for (uint32_t i = 0; !st && i < p->packs; i++) { /* a copy over a runtime size runs at the dims */
        if (given && given[i].data) continue;
        rt_arg copy[2] = {a[p->packed_param[i]], a[p->user_args + i]};
        st = rt_program_dispatch(pool, ctx, p->pack[i], 2, copy, dims);
    }
    if (!st) st = rt_dispatch(pool, ctx, desc, a, (uint32_t)count, NULL);
    pthread_mutex_unlock(&p->scratch_lock);
    return st;
}

static tilec_status dispatch_packed(rt_pool *pool, tilec_context *ctx, rt_program *p, size_t n, const rt_arg *args,
                                    const rt_arg *given) {
    rt_arg local[STACK_ARGS];
    size_t count = n + p->packs;
    rt_arg *a = with_room(ctx, local, args, n, count);
    if (!a) return TILEC_E_NOMEM;
    rt_panel_layout l = {.total = p->scratch_bytes};
    memcpy(l.offset, p->pack_offset, sizeof l.offset);
    memcpy(l.bytes, p->pack_bytes, sizeof l.bytes);
    tilec_status st = run_packed(pool, ctx, p, &p->desc, a, count, NULL, &l, given);
    if (a != local) tilec_free(ctx, a);
    return st;
}

enum { SIZED_MAX_ARGS = 64 };

/* What a thread last computed for a sized program at some sizes: a loop
 * dispatching one kernel at one size (the smallest kernels' case) does not
 * evaluate its size programs again.  Keyed by the program's serial, which
 * no other program ever has, so a kernel freed and another made at its
 * address cannot hit. */
typedef struct {
    uint64_t serial; /* 0: empty */
    int64_t dims[RT_MAX_DIMS];
    uint32_t programs;
    rt_param params[SIZED_MAX_ARGS];
    rt_kernel desc; /* the program's descriptor at these sizes (its params the ones above) */
} sized_launch;

/* Each thread's, made on its first sized dispatch and freed when it exits
 * (thread-owned, not a context's: plain calloc; the key's destructor frees
 * it).  The pointer is also kept in an initial-exec thread-local, so the
 * dispatch of the smallest kernels reads it with one load: a pointer is
 * small enough for the static TLS a dlopen'ed library (Python) may use,
 * where the general model would call __tls_get_addr on every access. */
static pthread_key_t launch_key;
static pthread_once_t launch_once = PTHREAD_ONCE_INIT;
static __thread sized_launch *thread_last __attribute__((tls_model("initial-exec")));

static void launch_key_make(void) {
    if (pthread_key_create(&launch_key, free)) launch_key = (pthread_key_t)-1;
}

/* The thread's cache, or `spare` when none can be had. */
static sized_launch *thread_launch(sized_launch *spare) {
    if (thread_last) return thread_last;
    pthread_once(&launch_once, launch_key_make);
    if (launch_key == (pthread_key_t)-1) return spare;
    sized_launch *l = calloc(1, sizeof *l);
    if (l && pthread_setspecific(launch_key, l)) {
        free(l);
        l = NULL;
    }
    return l ? (thread_last = l) : spare;
}

bool rt_program_sizes(const rt_program *p, const int64_t *dims, rt_param *params, uint32_t *programs) {
    int64_t v = 0;
    uint32_t n = p->user_args;
    bool ok = p->dim_count <= RT_MAX_DIMS && rt_size_eval(&p->dispatch_size, dims, p->dim_count, &v) && v >= 0 &&
              v <= UINT32_MAX;
    *programs = (uint32_t)v;
    for (uint32_t i = 0; ok && i < n; i++) {
        int64_t bytes = (int64_t)p->desc.params[i].min_bytes;
        ok = !p->arg_bytes[i].count || (rt_size_eval(&p->arg_bytes[i], dims, p->dim_count, &bytes) && bytes >= 0);
        params[i] = (rt_param){p->desc.params[i].elem, (uint64_t)bytes};
    }
    for (uint32_t i = 0; ok && i < p->packs; i++) params[n + i] = p->desc.params[n + i];
    if (ok) params[n + p->packs] = (rt_param){TIR_I64, p->dim_count * sizeof *dims};
    return ok;
}

static bool same_dims(const int64_t *a, const int64_t *b, uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
        if (a[i] != b[i]) return false;
    return true;
}

/* p's launch at dims computed into l (NULL when a size overflows; l is
 * then empty).  Out of line: the dispatch inlines only the cache check. */
static __attribute__((noinline)) const sized_launch *launch_compute(const rt_program *p, const int64_t *dims,
                                                                    sized_launch *l) {
    bool ok = rt_program_sizes(p, dims, l->params, &l->programs);
    l->desc = p->desc;
    l->desc.arg_count = p->user_args + p->packs + 1;
    l->desc.params = l->params;
    l->desc.dispatch_size = l->programs;
    l->serial = ok ? p->size_serial : 0;
    memcpy(l->dims, dims, ok ? p->dim_count * sizeof *dims : 0);
    return ok ? l : NULL;
}

/* The launch of p at dims: the thread's last one, or computed. */
static inline const sized_launch *launch_at(const rt_program *p, const int64_t *dims, sized_launch *spare) {
    const sized_launch *l = thread_last;
    if (l && l->serial == p->size_serial && same_dims(l->dims, dims, p->dim_count)) return l;
    return launch_compute(p, dims, thread_launch(spare));
}


tilec_status rt_program_launch_sizes(tilec_context *ctx, const rt_program *p, const int64_t *dims, rt_param *params,
                                     uint32_t *programs) {
    return rt_program_sizes(p, dims, params, programs) ? TILEC_OK
                                                       : unsized(ctx, p->desc.name ? p->desc.name : "kernel");
}

/* A sized program's dispatch: its descriptor at these sizes (dispatch size,
 * argument bytes), its panels (packs: static operands) and the dims as one
 * more argument. */
static tilec_status dispatch_sized(rt_pool *pool, tilec_context *ctx, rt_program *p, size_t n, const rt_arg *args,
                                   const int64_t *dims, const rt_arg *given) {
    const char *name = p->desc.name ? p->desc.name : "kernel";
    if (n + p->packs >= SIZED_MAX_ARGS)
        return tilec_error(ctx, TILEC_E_UNSUPPORTED, "RT-D02", tilec_no_loc(),
                           "kernel '@%s': a kernel with runtime sizes takes at most %d arguments", name,
                           SIZED_MAX_ARGS - 1);
    sized_launch spare; /* when the thread has no cache */
    spare.serial = 0;
    const sized_launch *l = launch_at(p, dims, &spare);
    if (!l) return unsized(ctx, name);
    rt_arg bound[SIZED_MAX_ARGS];
    if (n) memcpy(bound, args, n * sizeof *args);
    size_t last = n + p->packs;
    bound[last] = (rt_arg){(void *)dims, l->params[last].min_bytes, TIR_I64};
    if (!p->packs) return rt_dispatch(pool, ctx, &l->desc, bound, (uint32_t)last + 1, NULL); /* (read before this
                                                                                          * thread's next launch) */
    rt_param params[SIZED_MAX_ARGS]; /* the copies' own launches replace this thread's last one */
    memcpy(params, l->params, (last + 1) * sizeof *params);
    rt_panel_layout panels;
    if (!rt_program_panels_at(p, dims, &panels)) return unsized(ctx, name);
    for (uint32_t i = 0; i < p->packs; i++) params[n + i].min_bytes = panels.bytes[i];
    rt_kernel d = l->desc;
    d.params = params;
    return run_packed(pool, ctx, p, &d, bound, last + 1, dims, &panels, given);
}

/* (the text only on an error: this runs on every dispatch) */
tilec_status rt_module_arg_type(tilec_context *ctx, const char *module, size_t index, tilec_value_kind kind,
                                const char *name, tir_scalar given, tir_scalar wanted) {
    return tilec_error(ctx, TILEC_E_TYPE, "RT-D03", tilec_no_loc(), "module %s: argument %zu (%s %s) is %s, it takes %s",
                       module, index, tilec_value_kind_name(kind), name, tir_scalar_name(given),
                       tir_scalar_name(wanted));
}

tilec_status rt_check_dims(tilec_context *ctx, const char *kernel, const rt_dim *sizes, uint32_t count, size_t n_dims,
                           const int64_t *dims, const char *how) {
    bool count_ok = n_dims == count && (!n_dims || dims);
    uint32_t bad = 0;
    while (count_ok && bad < count && dims[bad] >= sizes[bad].lo && dims[bad] <= sizes[bad].hi) bad++;
    if (count_ok && bad == count) return TILEC_OK;
    if (count_ok)
        return tilec_error(ctx, TILEC_E_ARG, "RT-D10", tilec_no_loc(),
                           "%s: runtime size %s=%lld is outside its range %lld..%lld", kernel, sizes[bad].name,
                           (long long)dims[bad], (long long)sizes[bad].lo, (long long)sizes[bad].hi);
    char expected[512] = "none";
    for (uint32_t i = 0, at = 0; i < count && at < sizeof expected; i++)
        at += (uint32_t)snprintf(expected + at, sizeof expected - at, "%s%s: %lld..%lld", i ? ", " : "",
                                 sizes[i].name, (long long)sizes[i].lo, (long long)sizes[i].hi);
    bool none = count && !n_dims && how;
    return tilec_error(ctx, TILEC_E_ARG, "RT-D10", tilec_no_loc(), "%s takes %u runtime sizes (%s), got %zu%s%s", kernel,
                       count, expected, n_dims, n_dims && !dims ? " and no array" : none ? ": " : "", none ? how : "");
}

tilec_status rt_program_dispatch(rt_pool *pool, tilec_context *ctx, rt_program *p, size_t n, const rt_arg *args,
                                 const int64_t *dims) {
    return rt_program_dispatch_panels(pool, ctx, p, n, args, dims, NULL);
}

tilec_status rt_program_dispatch_panels(rt_pool *pool, tilec_context *ctx, rt_program *p, size_t n, const rt_arg *args,
                                        const int64_t *dims, const rt_arg *panels) {
    const char *name = p->desc.name ? p->desc.name : "kernel";
    if (n != p->user_args || (n && !args))
        return tilec_error(ctx, TILEC_E_ARG, "RT-D02", tilec_no_loc(), "kernel '@%s' takes %u arguments, got %zu%s",
                           name, p->user_args, n, n && !args ? " (NULL array)" : "");
    if (p->disjoint) {
        size_t i, j;
        const rt_param *params = p->desc.params;
        sized_launch spare; /* a sized program's bytes at these sizes (the launch its dispatch then reuses) */
        spare.serial = 0;
        if (p->dim_count) {
            const sized_launch *l = launch_at(p, dims, &spare);
            if (!l) return unsized(ctx, name);
            params = l->params;
        }
        bool unsafe = streams_unsafe(p, params, n, args, &i, &j);
        if (unsafe && !p->unfused)
            return tilec_error(ctx, TILEC_E_ARG, "RT-D09", tilec_no_loc(),
                               "kernel '@%s' streams rows too large to snapshot and has no unfused twin: arguments "
                               "%zu and %zu overlap where its streams need them apart (bind them apart%s)",
                               name, i, j, p->disjoint[i] >> j & 1 ? "" : " or at the same address");
        ++*(unsafe ? &p->unfused_dispatches : &p->fused_dispatches);
        if (unsafe) return rt_program_dispatch(pool, ctx, p->unfused, n, args, dims);
    }
    if (p->split_partial) return dispatch_split(pool, ctx, p, n, args, dims);
    if (p->dim_count) return dispatch_sized(pool, ctx, p, n, args, dims, panels);
    if (p->packs) return dispatch_packed(pool, ctx, p, n, args, panels);
    return rt_dispatch(pool, ctx, &p->desc, args, (uint32_t)n, NULL);
}
