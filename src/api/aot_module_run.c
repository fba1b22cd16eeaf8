/* aot_module_run.c — the runtime side of modules compiled ahead of time
 * (tilec/aot.h, tilec_module_compile_aot): the object's module description
 * (aot_format.h) read once for the process, each of its kernels a
 * descriptor of its own over the object's entry table; a module made from
 * it is an arena, the constants bound to it and the steps dispatched back
 * to back through tilec_aot_dispatch_dims.  Part of the runtime library:
 * no LLVM here.
 *
 * The checks a module's builder made (docs/modules.md) hold for the
 * object: its writer only describes finished modules.  A run checks its
 * arguments' count and types and the sizes' ranges; each step's dispatch
 * checks its buffers' bytes as any dispatch does. */
#include "tilec/aot.h"

#include "api/aot_read.h"
#include "rt/program.h"

#include <stdatomic.h>

typedef struct {
    char *name;
    tilec_value_kind kind;
    tir_scalar elem;
    uint64_t bytes, offset;
} aotm_value;

typedef struct {
    uint32_t kernel, n_args, n_sizes;
    uint32_t *values;
    uint32_t size_dim[RT_MAX_DIMS]; /* AOT_NONE: the offset alone */
    int64_t size_offset[RT_MAX_DIMS];
} aotm_step;

/* An object's module, as read (in the load context, for the process). */
typedef struct {
    char *name;
    uint32_t dim_count, value_count, kernel_count, step_count, arg_count, max_args;
    rt_dim dims[RT_MAX_DIMS];
    aotm_value *values;
    uint32_t *args;   /* the inputs' and outputs' value numbers, in order */
    uint32_t *arg_of; /* [values]: an input's or output's place among them */
    char **kernel_names;
    uint64_t arena_bytes;
    aot_descriptor *kernels; /* each with its own slot in slots */
    void **slots;
    aotm_step *steps;
} aotm_loaded;

struct tilec_aot_module {
    tilec_context *ctx;
    const aotm_loaded *l;
    void *arena_block, *arena;
    tilec_buffer *bound; /* [values]: a constant's bytes (data NULL: unbound) */
    tilec_buffer *bufs;  /* [the most arguments a step takes] */
    atomic_flag busy;
};

static bool read_kernels(aot_reader *r, aotm_loaded *l, const aot_descriptor *d) {
    l->kernel_count = aot_get_u32(r);
    if (r->bad || l->kernel_count > 4096) return false;
    l->kernels = tilec_alloc(r->ctx, sizeof *l->kernels * (l->kernel_count ? l->kernel_count : 1));
    l->slots = tilec_alloc(r->ctx, sizeof *l->slots * (l->kernel_count ? l->kernel_count : 1));
    l->kernel_names = tilec_alloc(r->ctx, sizeof *l->kernel_names * (l->kernel_count ? l->kernel_count : 1));
    if (!l->kernels || !l->slots || !l->kernel_names) return false;
    for (uint32_t i = 0; i < l->kernel_count; i++) {
        if (!(l->kernel_names[i] = aot_get_str(r))) return false;
        uint64_t bytes = aot_get_u64(r);
        if (r->bad || bytes > (uint64_t)(r->end - r->at)) return false;
        l->kernels[i] = (aot_descriptor){AOT_MAGIC, r->at, bytes, d->entries, d->entry_count, &l->slots[i]};
        r->at += bytes;
    }
    return true;
}

static bool read_steps(aot_reader *r, aotm_loaded *l) {
    l->step_count = aot_get_u32(r);
    if (r->bad || l->step_count > (uint64_t)(r->end - r->at)) return false;
    l->steps = tilec_alloc(r->ctx, sizeof *l->steps * (l->step_count ? l->step_count : 1));
    if (!l->steps) return false;
    for (uint32_t i = 0; i < l->step_count && !r->bad; i++) {
        aotm_step *s = &l->steps[i];
        s->kernel = aot_get_u32(r);
        s->n_args = aot_get_u32(r);
        if (r->bad || s->kernel >= l->kernel_count || s->n_args > 4096 ||
            !(s->values = tilec_alloc(r->ctx, sizeof *s->values * (s->n_args ? s->n_args : 1))))
            return false;
        for (uint32_t a = 0; a < s->n_args; a++)
            if ((s->values[a] = aot_get_u32(r)) >= l->value_count) return false;
        if (s->n_args > l->max_args) l->max_args = s->n_args;
        s->n_sizes = aot_get_u32(r);
        if (s->n_sizes > RT_MAX_DIMS) return false;
        for (uint32_t j = 0; j < s->n_sizes; j++) {
            s->size_dim[j] = aot_get_u32(r);
            s->size_offset[j] = aot_get_i64(r);
            if (s->size_dim[j] != AOT_NONE && s->size_dim[j] >= l->dim_count) return false;
        }
    }
    return !r->bad;
}

static bool read_module(aot_reader *r, aotm_loaded *l, const aot_descriptor *d) {
    if (aot_get_u32(r) != AOT_FORMAT) return false;
    l->name = aot_get_str(r);
    aot_get_dims(r, l->dims, &l->dim_count);
    for (uint32_t i = 0; !r->bad && i < l->dim_count; i++)
        if (l->dims[i].lo < 1) return false; /* a module's sizes run from 1 */
    l->value_count = aot_get_u32(r);
    if (r->bad || l->value_count > (uint64_t)(r->end - r->at)) return false;
    l->values = tilec_alloc(r->ctx, sizeof *l->values * (l->value_count ? l->value_count : 1));
    l->args = tilec_alloc(r->ctx, sizeof *l->args * (l->value_count ? l->value_count : 1));
    l->arg_of = tilec_alloc(r->ctx, sizeof *l->arg_of * (l->value_count ? l->value_count : 1));
    if (!l->values || !l->args || !l->arg_of) return false;
    for (uint32_t i = 0; i < l->value_count; i++) {
        aotm_value *v = &l->values[i];
        v->name = aot_get_str(r);
        v->kind = (tilec_value_kind)aot_get_u32(r);
        v->elem = (tir_scalar)aot_get_u32(r);
        v->bytes = aot_get_u64(r);
        v->offset = aot_get_u64(r);
        if (!v->name || (unsigned)v->kind > TILEC_VALUE_CONSTANT || v->elem <= TIR_SCALAR_INVALID ||
            v->elem >= TIR_SCALAR_COUNT)
            return false;
        if (v->kind == TILEC_VALUE_INPUT || v->kind == TILEC_VALUE_OUTPUT) {
            l->arg_of[i] = l->arg_count;
            l->args[l->arg_count++] = i;
        }
    }
    l->arena_bytes = aot_get_u64(r);
    for (uint32_t i = 0; i < l->value_count; i++) {
        const aotm_value *v = &l->values[i];
        if (v->kind == TILEC_VALUE_TEMPORARY && (v->offset > l->arena_bytes || v->bytes > l->arena_bytes - v->offset))
            return false;
    }
    return read_kernels(r, l, d) && read_steps(r, l) && r->at == r->end;
}

/* The object's module, read at its first module (aot_load_once). */
static tilec_status load_module(tilec_context *ctx, tilec_context *into, const aot_descriptor *d, void **out) {
    if (d->magic != AOT_MODULE_MAGIC)
        return tilec_error(ctx, TILEC_E_UNSUPPORTED, "TILEC-AOT10", tilec_no_loc(),
                           "the object is not a module made for this runtime (tilec %s reads module objects of "
                           "format %u; the object's descriptor says %#llx): compile it again with this tilec",
                           tilec_version(), AOT_FORMAT, (unsigned long long)d->magic);
    aot_reader r = {d->blob, d->blob + d->blob_bytes, false, into};
    aotm_loaded *l = tilec_alloc(into, sizeof *l);
    if (!l || !read_module(&r, l, d))
        return tilec_error(ctx, TILEC_E_UNSUPPORTED, "TILEC-AOT12", tilec_no_loc(),
                           "the object's module description is damaged");
    *out = l; /* on failure what was read stays in `into` (freed with the process) */
    return TILEC_OK;
}

tilec_status tilec_aot_module_create(tilec_context *ctx, const tilec_aot_kernel *object, tilec_aot_module **out) {
    if (!ctx || !object || !out) return TILEC_E_ARG;
    *out = NULL;
    void *loaded = NULL;
    tilec_status st = aot_load_once(ctx, (const aot_descriptor *)object, load_module, &loaded);
    if (st) return st;
    const aotm_loaded *l = loaded;
    /* the kernels' own checks (CPU features, version, damage) now, not at a run */
    for (uint32_t i = 0; i < l->kernel_count && !st; i++)
        st = aot_kernel_load(ctx, &l->kernels[i]);
    if (st) return st;
    tilec_aot_module *m = tilec_alloc(ctx, sizeof *m);
    if (m) {
        m->ctx = ctx;
        m->l = l;
        atomic_flag_clear(&m->busy);
        m->bound = tilec_alloc(ctx, sizeof *m->bound * (l->value_count ? l->value_count : 1));
        m->bufs = tilec_alloc(ctx, sizeof *m->bufs * (l->max_args ? l->max_args : 1));
        m->arena_block = l->arena_bytes ? tilec_alloc(ctx, l->arena_bytes + 63) : NULL;
        m->arena = align64_ptr(m->arena_block);
    }
    if (!m || !m->bound || !m->bufs || (l->arena_bytes && !m->arena_block)) {
        tilec_aot_module_destroy(m);
        return tilec_error(ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(),
                           "out of memory for module %s (its arena: %llu bytes)", l->name ? l->name : "?",
                           (unsigned long long)l->arena_bytes);
    }
    *out = m;
    return TILEC_OK;
}

void tilec_aot_module_destroy(tilec_aot_module *m) {
    if (!m) return;
    tilec_free(m->ctx, m->bound);
    tilec_free(m->ctx, m->bufs);
    tilec_free(m->ctx, m->arena_block);
    tilec_free(m->ctx, m);
}

tilec_status tilec_aot_module_bind(tilec_context *ctx, tilec_aot_module *m, const char *name,
                                   const tilec_buffer *data) {
    if (!ctx) return TILEC_E_ARG;
    if (!m || !name || !data || !data->data)
        return tilec_error(ctx, TILEC_E_ARG, "TILEC-A01", tilec_no_loc(), "tilec_aot_module_bind: NULL argument");
    const aotm_loaded *l = m->l;
    for (uint32_t i = 0; i < l->value_count; i++) {
        const aotm_value *v = &l->values[i];
        if (v->kind != TILEC_VALUE_CONSTANT || strcmp(v->name, name)) continue;
        if (data->elem != v->elem)
            return tilec_error(ctx, TILEC_E_TYPE, "MOD-B05", tilec_no_loc(), "module %s: constant %s is %s, its data %s",
                               l->name, v->name, tir_scalar_name(v->elem), tir_scalar_name(data->elem));
        if (data->size_bytes < v->bytes)
            return tilec_error(ctx, TILEC_E_SHAPE, "MOD-B12", tilec_no_loc(),
                               "module %s: constant %s holds %zu bytes, its steps read %llu", l->name, v->name,
                               data->size_bytes, (unsigned long long)v->bytes);
        m->bound[i] = *data;
        return TILEC_OK;
    }
    return tilec_error(ctx, TILEC_E_ARG, "MOD-B04", tilec_no_loc(), "module %s has no constant named '%s'", l->name,
                       name);
}

static tilec_status check_run(tilec_context *ctx, const tilec_aot_module *m, size_t n, const tilec_buffer *args,
                              size_t n_dims, const int64_t *dims) {
    const aotm_loaded *l = m->l;
    if (n != l->arg_count || (n && !args))
        return tilec_error(ctx, TILEC_E_ARG, "RT-D02", tilec_no_loc(),
                           "module %s takes %u arguments (its inputs and outputs), %zu given", l->name, l->arg_count, n);
    for (size_t i = 0; i < n; i++) {
        const aotm_value *v = &l->values[l->args[i]];
        if (args[i].elem != v->elem)
            return rt_module_arg_type(ctx, l->name, i, v->kind, v->name, args[i].elem, v->elem);
    }
    for (uint32_t i = 0; i < l->value_count; i++)
        if (l->values[i].kind == TILEC_VALUE_CONSTANT && !m->bound[i].data)
            return tilec_error(ctx, TILEC_E_ARG, "MOD-B12", tilec_no_loc(),
                               "module %s: constant %s has no data (tilec_aot_module_bind)", l->name, l->values[i].name);
    return rt_check_dims(ctx, l->name, l->dims, l->dim_count, n_dims, dims, "run it with its sizes");
}

tilec_status tilec_aot_module_run(tilec_context *ctx, tilec_runtime *rt, tilec_aot_module *m, size_t n,
                                  const tilec_buffer *args, size_t n_dims, const int64_t *dims) {
    if (!ctx) return TILEC_E_ARG;
    if (!m) return tilec_error(ctx, TILEC_E_ARG, "TILEC-A01", tilec_no_loc(), "tilec_aot_module_run: no module");
    tilec_status st = check_run(ctx, m, n, args, n_dims, dims);
    if (st) return st;
    if (atomic_flag_test_and_set_explicit(&m->busy, memory_order_acquire))
        return tilec_error(ctx, TILEC_E_RUNTIME, "MOD-R02", tilec_no_loc(),
                           "module %s is running on another thread (one run at a time: its arena is one)", m->l->name);
    const aotm_loaded *l = m->l;
    for (uint32_t i = 0; i < l->step_count && !st; i++) {
        const aotm_step *s = &l->steps[i];
        for (uint32_t a = 0; a < s->n_args; a++) {
            uint32_t value = s->values[a];
            const aotm_value *v = &l->values[value];
            switch (v->kind) {
            case TILEC_VALUE_CONSTANT: m->bufs[a] = m->bound[value]; break;
            case TILEC_VALUE_TEMPORARY:
                m->bufs[a] = (tilec_buffer){(char *)m->arena + v->offset, v->bytes, v->elem};
                break;
            default: m->bufs[a] = args[l->arg_of[value]]; break;
            }
        }
        int64_t d[RT_MAX_DIMS];
        for (uint32_t j = 0; j < s->n_sizes; j++)
            d[j] = s->size_offset[j] + (s->size_dim[j] == AOT_NONE ? 0 : dims[s->size_dim[j]]);
        const aot_descriptor *k = &l->kernels[s->kernel];
        if ((st = tilec_aot_dispatch_dims(ctx, rt, (const tilec_aot_kernel *)k, s->n_args, m->bufs, s->n_sizes, d)))
            tilec_error(ctx, st, "MOD-R05", tilec_no_loc(), "in module %s, step %u (%s)", l->name, i + 1,
                        l->kernel_names[s->kernel]);
    }
    atomic_flag_clear_explicit(&m->busy, memory_order_release);
    return st;
}

const char *tilec_aot_module_name(const tilec_aot_module *m) { return m ? m->l->name : NULL; }
size_t tilec_aot_module_dim_count(const tilec_aot_module *m) { return m ? m->l->dim_count : 0; }
const char *tilec_aot_module_dim(const tilec_aot_module *m, size_t index, int64_t *lo, int64_t *hi) {
    return m ? rt_dim_at(m->l->dims, m->l->dim_count, index, lo, hi) : NULL;
}
size_t tilec_aot_module_value_count(const tilec_aot_module *m) { return m ? m->l->value_count : 0; }
const char *tilec_aot_module_value(const tilec_aot_module *m, size_t index, tilec_value_kind *kind, tir_scalar *elem,
                                   uint64_t *bytes) {
    if (!m || index >= m->l->value_count) return NULL;
    const aotm_value *v = &m->l->values[index];
    if (kind) *kind = v->kind;
    if (elem) *elem = v->elem;
    if (bytes) *bytes = v->bytes;
    return v->name;
}
