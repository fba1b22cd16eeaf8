/* aot_run.c — the runtime side of ahead-of-time objects (tilec/aot.h): an
 * object's blob (aot_format.h) read into programs (rt/program.h) at its
 * first dispatch, then every dispatch through rt_program_dispatch, as a JIT
 * kernel's.  Part of the runtime library: no LLVM here.
 *
 * Process-wide state, all created once (pthread_once) and kept for the
 * life of the process: the default runtime and the context its pool
 * allocates through; the context loaded programs live in, used only under
 * load_lock; the key of each thread's own context (destroyed with the
 * thread).  An object's loaded programs hang off its descriptor's pointer
 * slot, published with release and read with acquire ordering. */
#include "tilec/aot.h"

#include "tilec/aot_format.h"
#include "tilec/runtime_object.h"
#include "tir/fault.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- process state ---- */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t thread_key;
static bool thread_key_ok;
static tilec_context *load_ctx;     /* loaded programs (under load_lock) */
static tilec_context *runtime_ctx;  /* the default runtime's pool */
static tilec_runtime *default_runtime;
static char default_error[512];     /* why there is no default runtime */

typedef struct {
    tilec_context *ctx;
    char *text; /* the last rendered diagnostics */
} thread_state;

static void thread_state_free(void *p) {
    thread_state *t = p;
    tilec_context_destroy(t->ctx);
    free(t->text);
    free(t);
}

static void init_process(void) {
    thread_key_ok = !pthread_key_create(&thread_key, thread_state_free);
    tilec_context_create(NULL, &load_ctx);
    if (tilec_context_create(NULL, &runtime_ctx) || tilec_runtime_create(runtime_ctx, 0, &default_runtime)) {
        if (runtime_ctx) tilec_diag_render(runtime_ctx, default_error, sizeof default_error);
        else snprintf(default_error, sizeof default_error, "out of memory creating the default runtime\n");
        default_runtime = NULL;
    }
}

static thread_state *this_thread(void) {
    if (pthread_once(&once, init_process) || !thread_key_ok) return NULL;
    thread_state *t = pthread_getspecific(thread_key);
    if (t) return t;
    if (!(t = calloc(1, sizeof *t))) return NULL;
    if (tilec_context_create(NULL, &t->ctx) || pthread_setspecific(thread_key, t)) {
        tilec_context_destroy(t->ctx);
        free(t);
        return NULL;
    }
    return t;
}

tilec_runtime *tilec_aot_default_runtime(void) {
    return pthread_once(&once, init_process) ? NULL : default_runtime;
}

/* ---- reading the blob ---- */

typedef struct {
    rt_program prog;
    rt_param *params;
    uint64_t *masks; /* [2·user args]: disjoint, then disjoint_or_equal */
    tir_fault_site *sites;
    uint32_t site_count;
    char *name;
} aot_node;

typedef struct {
    const unsigned char *at, *end;
    bool bad;
    tilec_context *ctx; /* load_ctx: where strings and tables go */
} reader;

static bool take(reader *r, void *out, size_t n) {
    if (r->bad || (size_t)(r->end - r->at) < n) {
        r->bad = true;
        memset(out, 0, n);
        return false;
    }
    memcpy(out, r->at, n);
    r->at += n;
    return true;
}

static uint32_t get_u32(reader *r) {
    uint32_t v;
    take(r, &v, sizeof v);
    return v;
}

static uint64_t get_u64(reader *r) {
    uint64_t v;
    take(r, &v, sizeof v);
    return v;
}

static char *get_str(reader *r) {
    uint32_t n = get_u32(r);
    if (n == AOT_NONE || r->bad) return NULL;
    if ((size_t)(r->end - r->at) < n) {
        r->bad = true;
        return NULL;
    }
    char *s = tilec_alloc(r->ctx, (size_t)n + 1);
    if (!s) {
        r->bad = true;
        return NULL;
    }
    memcpy(s, r->at, n);
    s[n] = '\0';
    r->at += n;
    return s;
}

static tilec_status report_fault(const void *user, tilec_context *ctx, const fault_record *faults) {
    const aot_node *node = user;
    if (faults->site >= node->site_count)
        return tilec_error(ctx, TILEC_E_RUNTIME, "RT-F01", tilec_no_loc(), "%s: out-of-range access at fault site %u",
                           node->name ? node->name : "kernel", faults->site);
    return tir_fault_report(ctx, &node->sites[faults->site], faults->value);
}

/* A sub-program's node index: after `self`, before `count` (NULL: none). */
static rt_program *child(reader *r, aot_node *nodes, uint32_t self, uint32_t count, uint32_t index) {
    if (index == AOT_NONE) return NULL;
    if (index <= self || index >= count) {
        r->bad = true;
        return NULL;
    }
    return &nodes[index].prog;
}

static void read_node(reader *r, aot_node *nodes, uint32_t self, uint32_t count, const aot_descriptor *d) {
    aot_node *n = &nodes[self];
    rt_program *p = &n->prog;
    n->name = get_str(r);
    uint32_t entry = get_u32(r);
    uint32_t args = get_u32(r);
    p->user_args = get_u32(r);
    if (r->bad || args > 4096 || p->user_args > args || (entry != AOT_NONE && entry >= d->entry_count)) {
        r->bad = true;
        return;
    }
    n->params = tilec_alloc(r->ctx, (args ? args : 1) * sizeof *n->params);
    if (!n->params) {
        r->bad = true;
        return;
    }
    for (uint32_t i = 0; i < args; i++) {
        n->params[i].elem = (tir_scalar)get_u32(r);
        n->params[i].min_bytes = get_u64(r);
    }
    p->desc = (rt_kernel){.name = n->name,
                          .entry = entry == AOT_NONE ? NULL : (rt_entry)d->entries[entry],
                          .arg_count = args,
                          .params = n->params};
    p->desc.dispatch_size = get_u32(r);
    p->desc.block_size = get_u32(r);
    p->desc.blocks_per_task = get_u64(r);
    p->desc.workspace_bytes = get_u64(r);
    p->packs = get_u32(r);
    if (p->packs > RT_MAX_PACKS) r->bad = true;
    for (uint32_t i = 0; !r->bad && i < p->packs; i++) {
        p->pack[i] = child(r, nodes, self, count, get_u32(r));
        p->packed_param[i] = get_u32(r);
        p->pack_offset[i] = get_u64(r);
        p->pack_bytes[i] = get_u64(r);
    }
    uint64_t scratch = get_u64(r);
    p->split_partial = child(r, nodes, self, count, get_u32(r));
    p->split_combine = child(r, nodes, self, count, get_u32(r));
    p->split_carries = get_u32(r);
    if (p->split_carries > RT_SPLIT_MAX_CARRIES) r->bad = true;
    for (uint32_t i = 0; !r->bad && i < p->split_carries; i++) {
        p->split_offset[i] = get_u64(r);
        p->split_bytes[i] = get_u64(r);
        p->split_elem[i] = (tir_scalar)get_u32(r);
    }
    p->unfused = child(r, nodes, self, count, get_u32(r));
    if (get_u32(r) && !r->bad) {
        if (!(n->masks = tilec_alloc(r->ctx, 2 * (p->user_args ? p->user_args : 1) * sizeof *n->masks))) r->bad = true;
        for (uint32_t i = 0; !r->bad && i < p->user_args; i++) {
            n->masks[i] = get_u64(r);
            n->masks[p->user_args + i] = get_u64(r);
        }
        p->disjoint = n->masks;
        p->disjoint_or_equal = n->masks + p->user_args;
    }
    n->site_count = get_u32(r);
    if (r->bad || n->site_count > (uint32_t)(r->end - r->at)) {
        r->bad = true;
        return;
    }
    if (n->site_count && !(n->sites = tilec_alloc(r->ctx, n->site_count * sizeof *n->sites))) r->bad = true;
    for (uint32_t i = 0; !r->bad && i < n->site_count; i++) {
        tir_fault_site *s = &n->sites[i];
        s->kind = (tir_fault_kind)get_u32(r);
        s->store = get_u32(r) != 0;
        s->target = get_str(r);
        s->target_id = get_u32(r);
        s->func = get_str(r);
        s->axis_label = get_str(r);
        s->axis = get_u32(r);
        s->extent = get_u64(r);
        s->count = get_u64(r);
        s->loc.file = get_str(r);
        s->loc.line = get_u32(r);
        s->loc.column = get_u32(r);
    }
    p->desc.report_fault = report_fault;
    p->desc.fault_user = n;
    if (!r->bad && scratch && rt_program_alloc_scratch(r->ctx, p, scratch, "scratch")) r->bad = true;
}

/* What dispatch relies on (once every node is read): the steps' argument
 * tables fit together. */
static bool fits(const rt_program *p) {
    uint32_t args = p->desc.arg_count, user = p->user_args;
    if (p->packs) {
        bool ok = args == user + p->packs && p->scratch;
        for (uint32_t i = 0; ok && i < p->packs; i++)
            ok = p->pack[i] && p->packed_param[i] < user && p->pack[i]->desc.arg_count == 2 &&
                 p->pack_offset[i] <= p->scratch_bytes && p->pack_bytes[i] <= p->scratch_bytes - p->pack_offset[i];
        return ok;
    }
    if (p->split_partial)
        return p->split_combine && args == user && p->split_partial->user_args == user + p->split_carries &&
               p->split_combine->user_args == user + p->split_carries && (p->scratch || !p->split_carries);
    return args == user && (!p->unfused || p->unfused->user_args == user);
}

/* Checks the CPU (once the format is known to be ours). */
static tilec_status check_cpu(tilec_context *ctx, uint32_t bits, const char *cpu) {
    char missing[160] = "";
    __builtin_cpu_init();
#define X(bit, llvm, name) \
    if ((bits >> (bit) & 1) && !__builtin_cpu_supports(name)) \
        snprintf(missing + strlen(missing), sizeof missing - strlen(missing), " %s", name);
    AOT_FEATURES(X)
#undef X
    if (!missing[0]) return TILEC_OK;
    return tilec_error(ctx, TILEC_E_UNSUPPORTED, "TILEC-AOT11", tilec_no_loc(),
                       "the object was compiled for %s, this CPU lacks:%s (compile it with --cpu for this machine)",
                       cpu ? cpu : "another CPU", missing);
}

/* The object's programs, read at its first dispatch (under load_lock). */
static tilec_status load(tilec_context *ctx, const aot_descriptor *d, rt_program **out) {
    if (d->magic != AOT_MAGIC)
        return tilec_error(ctx, TILEC_E_UNSUPPORTED, "TILEC-AOT10", tilec_no_loc(),
                           "the object was not made for this runtime (tilec %s reads object format %u; the object's "
                           "descriptor says %#llx): compile it again with this tilec",
                           tilec_version(), AOT_FORMAT, (unsigned long long)d->magic);
    if (!load_ctx) return tilec_error(ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory");
    reader r = {d->blob, d->blob + d->blob_bytes, false, load_ctx};
    uint32_t format = get_u32(&r), bits = get_u32(&r);
    char *version = get_str(&r), *cpu = get_str(&r);
    tilec_status st = format == AOT_FORMAT && !r.bad ? check_cpu(ctx, bits, cpu) : TILEC_OK;
    uint32_t count = get_u32(&r);
    aot_node *nodes = NULL;
    if (!st && !r.bad && count && count <= 64 && (nodes = tilec_alloc(load_ctx, count * sizeof *nodes))) {
        memset(nodes, 0, count * sizeof *nodes);
        for (uint32_t i = 0; i < count && !r.bad; i++) read_node(&r, nodes, i, count, d);
        for (uint32_t i = 0; i < count && !r.bad; i++) r.bad = !fits(&nodes[i].prog);
    } else {
        r.bad = true;
    }
    if (!st && (r.bad || r.at != r.end))
        st = tilec_error(ctx, TILEC_E_UNSUPPORTED, "TILEC-AOT12", tilec_no_loc(),
                         "the object's kernel description is damaged (made by tilec %s)", version ? version : "?");
    if (!st) *out = &nodes[0].prog;
    /* on failure what was read stays in load_ctx (freed with the process) */
    return st;
}

/* ---- dispatch ---- */

static tilec_status dispatch(tilec_context *ctx, tilec_runtime *rt, const tilec_aot_kernel *k, size_t n,
                             const tilec_buffer *args) {
    if (!k) return tilec_error(ctx, TILEC_E_ARG, "TILEC-D01", tilec_no_loc(), "tilec_aot_dispatch: no kernel");
    const aot_descriptor *d = (const aot_descriptor *)k;
    rt_program *p = __atomic_load_n((rt_program **)d->loaded, __ATOMIC_ACQUIRE);
    if (!p) {
        pthread_mutex_lock(&load_lock);
        p = __atomic_load_n((rt_program **)d->loaded, __ATOMIC_ACQUIRE);
        tilec_status st = p ? TILEC_OK : load(ctx, d, &p);
        if (!st) __atomic_store_n((rt_program **)d->loaded, p, __ATOMIC_RELEASE);
        pthread_mutex_unlock(&load_lock);
        if (st) return st;
    }
    if (!rt) rt = tilec_aot_default_runtime();
    if (!rt)
        return tilec_error(ctx, TILEC_E_RUNTIME, "RT-P03", tilec_no_loc(), "no default runtime: %s", default_error);
    return tilec_dispatch_program(ctx, rt, p, n, args);
}

tilec_status tilec_aot_dispatch(tilec_context *ctx, tilec_runtime *rt, const tilec_aot_kernel *k, size_t n,
                                const tilec_buffer *args) {
    if (ctx) return dispatch(ctx, rt, k, n, args);
    thread_state *t = this_thread();
    if (!t) return TILEC_E_NOMEM;
    return dispatch(t->ctx, rt, k, n, args);
}

tilec_status tilec_aot_call(const tilec_aot_kernel *k, size_t n, const tilec_buffer *args) {
    thread_state *t = this_thread();
    if (!t) return TILEC_E_NOMEM;
    tilec_diag_clear(t->ctx);
    return dispatch(t->ctx, NULL, k, n, args);
}

const char *tilec_aot_last_error(void) {
    thread_state *t = this_thread();
    if (!t) return "out of memory (no context for this thread)";
    size_t need = tilec_diag_render(t->ctx, NULL, 0) + 1;
    char *text = realloc(t->text, need);
    if (!text) return "out of memory rendering the diagnostics";
    t->text = text;
    tilec_diag_render(t->ctx, text, need);
    return text;
}
