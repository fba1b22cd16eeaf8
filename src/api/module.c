/* module.c — modules (include/tilec/module.h, docs/modules.md): the
 * builder's checks, the arena's layout and the run that dispatches the
 * steps back to back. */
#include "api/module.h"

#include "base/clock.h"
#include "base/vec.h"

#include <string.h>

static char *copy_name(tilec_context *ctx, const char *name) {
    size_t n = strlen(name) + 1;
    char *s = tilec_alloc(ctx, n);
    return s ? memcpy(s, name, n) : NULL;
}

static tilec_status nomem(tilec_context *ctx) {
    return tilec_error(ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory building a module");
}

tilec_status tilec_module_create(tilec_context *ctx, const char *name, tilec_module **out) {
    if (!ctx || !out) return TILEC_E_ARG;
    *out = NULL;
    tilec_module *m = tilec_alloc(ctx, sizeof *m);
    if (!m || !(m->name = copy_name(ctx, name ? name : "module"))) {
        tilec_free(ctx, m);
        return nomem(ctx);
    }
    m->ctx = ctx;
    atomic_flag_clear(&m->busy);
    *out = m;
    return TILEC_OK;
}

void tilec_module_destroy(tilec_module *m) {
    if (!m) return;
    tilec_context *ctx = m->ctx;
    for (uint32_t i = 0; i < m->dim_count; i++) tilec_free(ctx, m->dims[i].name);
    for (size_t i = 0; i < m->values.len; i++) tilec_free(ctx, m->values.data[i].name);
    for (size_t i = 0; i < m->steps.len; i++) {
        tilec_free(ctx, m->steps.data[i].values);
        tilec_free(ctx, m->steps.data[i].bufs);
        tilec_free(ctx, m->steps.data[i].panels);
        tilec_free(ctx, m->steps.data[i].rt_args);
    }
    for (size_t i = 0; i < m->panel_blocks.len; i++) tilec_free(ctx, m->panel_blocks.data[i]);
    VEC_FREE(ctx, &m->panel_blocks);
    VEC_FREE(ctx, &m->values);
    VEC_FREE(ctx, &m->steps);
    VEC_FREE(ctx, &m->args);
    tilec_free(ctx, m->arena_block);
    tilec_free(ctx, m->name);
    tilec_free(ctx, m);
}

/* ---- building ---- */

static tilec_status building(tilec_context *ctx, const tilec_module *m, const char *what) {
    if (!ctx) return TILEC_E_ARG;
    if (!m) return tilec_error(ctx, TILEC_E_ARG, "TILEC-A01", tilec_no_loc(), "%s: no module", what);
    if (m->finished)
        return tilec_error(ctx, TILEC_E_ARG, "MOD-B01", tilec_no_loc(),
                           "%s: module %s is finished (add everything before tilec_module_finish)", what, m->name);
    return TILEC_OK;
}

static bool name_taken(const tilec_module *m, const char *name) {
    for (uint32_t i = 0; i < m->dim_count; i++)
        if (!strcmp(m->dims[i].name, name)) return true;
    for (size_t i = 0; i < m->values.len; i++)
        if (!strcmp(m->values.data[i].name, name)) return true;
    return false;
}

static tilec_status new_name(tilec_context *ctx, const tilec_module *m, const char *name, const char *what) {
    if (!name || !*name) return tilec_error(ctx, TILEC_E_ARG, "TILEC-A01", tilec_no_loc(), "%s: no name", what);
    if (name_taken(m, name))
        return tilec_error(ctx, TILEC_E_ARG, "MOD-B02", tilec_no_loc(),
                           "%s: module %s already has a size or value named '%s'", what, m->name, name);
    return TILEC_OK;
}

tilec_status tilec_module_add_dim(tilec_context *ctx, tilec_module *m, const char *name, int64_t lo, int64_t hi,
                                  uint32_t *index) {
    tilec_status st = building(ctx, m, "tilec_module_add_dim");
    if (!st) st = new_name(ctx, m, name, "tilec_module_add_dim");
    if (st) return st;
    if (lo < 1 || hi < lo)
        return tilec_error(ctx, TILEC_E_ARG, "MOD-B03", tilec_no_loc(),
                           "module %s: size %s has the range %lld..%lld (sizes run from 1 up)", m->name, name,
                           (long long)lo, (long long)hi);
    if (m->dim_count == TIR_MAX_SYMBOLS)
        return tilec_error(ctx, TILEC_E_BUDGET, "MOD-B03", tilec_no_loc(), "module %s: more than %d sizes", m->name,
                           TIR_MAX_SYMBOLS);
    rt_dim *d = &m->dims[m->dim_count];
    if (!(d->name = copy_name(ctx, name))) return nomem(ctx);
    d->lo = lo, d->hi = hi;
    if (index) *index = m->dim_count;
    m->dim_count++;
    return TILEC_OK;
}

tilec_status tilec_module_add_value(tilec_context *ctx, tilec_module *m, const char *name, tilec_value_kind kind,
                                    tir_scalar elem, uint32_t *index) {
    tilec_status st = building(ctx, m, "tilec_module_add_value");
    if (!st) st = new_name(ctx, m, name, "tilec_module_add_value");
    if (st) return st;
    if ((unsigned)kind > TILEC_VALUE_CONSTANT || elem <= TIR_SCALAR_INVALID || elem >= TIR_SCALAR_COUNT)
        return tilec_error(ctx, TILEC_E_ARG, "TILEC-A01", tilec_no_loc(),
                           "tilec_module_add_value: value %s has an unknown kind or element type", name);
    bool arg = kind == TILEC_VALUE_INPUT || kind == TILEC_VALUE_OUTPUT;
    mod_value v = {.name = copy_name(ctx, name), .kind = kind, .elem = elem, .arg = arg ? (uint32_t)m->args.len : 0};
    if (!v.name) return nomem(ctx);
    if (!VEC_PUSH(ctx, &m->values, v) || (arg && !VEC_PUSH(ctx, &m->args, (uint32_t)(m->values.len - 1)))) {
        if (m->values.len && m->values.data[m->values.len - 1].name == v.name) m->values.len--;
        tilec_free(ctx, v.name);
        return nomem(ctx);
    }
    if (index) *index = (uint32_t)(m->values.len - 1);
    return TILEC_OK;
}

tilec_status tilec_module_bind(tilec_context *ctx, tilec_module *m, uint32_t value, const tilec_buffer *data) {
    tilec_status st = building(ctx, m, "tilec_module_bind");
    if (st) return st;
    if (value >= m->values.len || m->values.data[value].kind != TILEC_VALUE_CONSTANT || !data || !data->data)
        return tilec_error(ctx, TILEC_E_ARG, "MOD-B04", tilec_no_loc(),
                           "tilec_module_bind: module %s has no constant %u, or no data given", m->name, value);
    mod_value *v = &m->values.data[value];
    if (data->elem != v->elem)
        return tilec_error(ctx, TILEC_E_TYPE, "MOD-B05", tilec_no_loc(), "module %s: constant %s is %s, its data %s",
                           m->name, v->name, tir_scalar_name(v->elem), tir_scalar_name(data->elem));
    v->bound = *data;
    return TILEC_OK;
}

/* "step 3 (linear)": steps are numbered from 1 in messages. */
#define STEP_FMT "module %s, step %zu (%s)"
#define STEP_ARGS(m, i, k) (m)->name, (size_t)(i) + 1, strbuf_cstr(&(k)->name)

/* The checks of one argument that need no other step. */
static tilec_status check_arg(tilec_context *ctx, const tilec_module *m, size_t step, const tilec_kernel *k,
                              size_t a, uint32_t value) {
    if (value >= m->values.len)
        return tilec_error(ctx, TILEC_E_ARG, "MOD-B04", tilec_no_loc(),
                           STEP_FMT ": argument %zu (%%%s) is value %u; the module has %zu", STEP_ARGS(m, step, k),
                           a, k->arg_names[a], value, m->values.len);
    const mod_value *v = &m->values.data[value];
    if (v->elem != k->params[a].elem)
        return tilec_error(ctx, TILEC_E_TYPE, "MOD-B05", tilec_no_loc(),
                           STEP_FMT ": argument %zu (%%%s) takes %s, value %s is %s", STEP_ARGS(m, step, k), a,
                           k->arg_names[a], tir_scalar_name(k->params[a].elem), v->name, tir_scalar_name(v->elem));
    if ((k->arg_use[a] & TIR_USE_WRITE) && (v->kind == TILEC_VALUE_INPUT || v->kind == TILEC_VALUE_CONSTANT))
        return tilec_error(ctx, TILEC_E_ARG, "MOD-B06", tilec_no_loc(),
                           STEP_FMT ": the kernel writes argument %zu (%%%s), and value %s is %s %s",
                           STEP_ARGS(m, step, k), a, k->arg_names[a], v->name,
                           v->kind == TILEC_VALUE_INPUT ? "an" : "a", tilec_value_kind_name(v->kind));
    return TILEC_OK;
}

tilec_status tilec_module_add_step(tilec_context *ctx, tilec_module *m, tilec_kernel *k, size_t n_args,
                                   const uint32_t *values, size_t n_sizes, const tilec_step_size *sizes) {
    tilec_status st = building(ctx, m, "tilec_module_add_step");
    if (st) return st;
    size_t step = m->steps.len;
    if (!k || (n_args && !values) || (n_sizes && !sizes))
        return tilec_error(ctx, TILEC_E_ARG, "TILEC-A01", tilec_no_loc(),
                           "tilec_module_add_step: module %s, step %zu: no kernel, values or sizes", m->name,
                           step + 1);
    if (!k->arg_use)
        return tilec_error(ctx, TILEC_E_ARG, "MOD-B07", tilec_no_loc(),
                           STEP_FMT ": the kernel was not made by tilec_compile", STEP_ARGS(m, step, k));
    if (n_args != k->prog.user_args)
        return tilec_error(ctx, TILEC_E_ARG, "MOD-B08", tilec_no_loc(),
                           STEP_FMT ": the kernel takes %u arguments, %zu given", STEP_ARGS(m, step, k),
                           k->prog.user_args, n_args);
    if (n_sizes != k->dim_count)
        return tilec_error(ctx, TILEC_E_ARG, "MOD-B08", tilec_no_loc(),
                           STEP_FMT ": the kernel has %u runtime sizes, %zu given", STEP_ARGS(m, step, k),
                           k->dim_count, n_sizes);
    for (size_t a = 0; a < n_args; a++)
        if ((st = check_arg(ctx, m, step, k, a, values[a]))) return st;
    for (size_t i = 0; i < n_sizes; i++)
        if (sizes[i].dim != TILEC_MODULE_NO_DIM && sizes[i].dim >= m->dim_count)
            return tilec_error(ctx, TILEC_E_ARG, "MOD-B04", tilec_no_loc(),
                               STEP_FMT ": its size %s is module size %u; the module has %u", STEP_ARGS(m, step, k),
                               k->dims[i].name, sizes[i].dim, m->dim_count);
    mod_step s = {.k = k, .n_args = (uint32_t)n_args, .n_sizes = (uint32_t)n_sizes};
    s.values = tilec_alloc(ctx, sizeof *s.values * (n_args ? n_args : 1));
    s.bufs = tilec_alloc(ctx, sizeof *s.bufs * (n_args ? n_args : 1));
    if (!s.values || !s.bufs || !VEC_PUSH(ctx, &m->steps, s)) {
        tilec_free(ctx, s.values);
        tilec_free(ctx, s.bufs);
        return nomem(ctx);
    }
    mod_step *added = &VEC_LAST(&m->steps);
    if (n_args) memcpy(added->values, values, sizeof *values * n_args);
    if (n_sizes) memcpy(added->sizes, sizes, sizeof *sizes * n_sizes);
    return TILEC_OK;
}

/* ---- finishing: the checks over the whole list, and the arena ---- */

/* The step's kernel sizes at the module's dims. */
static void step_dims(const mod_step *s, const int64_t *dims, int64_t *out) {
    for (uint32_t i = 0; i < s->n_sizes; i++)
        out[i] = s->sizes[i].offset + (s->sizes[i].dim == TILEC_MODULE_NO_DIM ? 0 : dims[s->sizes[i].dim]);
}

static tilec_status check_sizes(tilec_context *ctx, const tilec_module *m, size_t step, const int64_t *lo,
                                const int64_t *hi) {
    const mod_step *s = &m->steps.data[step];
    int64_t a[TIR_MAX_SYMBOLS], b[TIR_MAX_SYMBOLS];
    step_dims(s, lo, a);
    step_dims(s, hi, b);
    for (uint32_t i = 0; i < s->n_sizes; i++) {
        const rt_dim *d = &s->k->dims[i];
        if (a[i] < d->lo || b[i] > d->hi)
            return tilec_error(ctx, TILEC_E_SHAPE, "MOD-B09", tilec_no_loc(),
                               STEP_FMT ": its size %s spans %lld..%lld over the module's sizes, outside the "
                               "kernel's range %lld..%lld",
                               STEP_ARGS(m, step, s->k), d->name, (long long)a[i], (long long)b[i], (long long)d->lo,
                               (long long)d->hi);
    }
    return TILEC_OK;
}

/* The two points the byte checks are made at: every module size at its
 * low end, and every one at its high end (a view's bytes grow with the
 * sizes, so a step's need is largest at the high end). */
enum { POINTS = 2 };

/* The bytes step s's argument a spans at module dims (0: a size overflows). */
static uint64_t need_at(const mod_step *s, size_t a, const int64_t *dims) {
    int64_t d[TIR_MAX_SYMBOLS];
    step_dims(s, dims, d);
    return tilec_kernel_arg_bytes(s->k, a, d);
}

/* Temporaries: each read preceded by a write covering it (at both points);
 * each slot as large as its largest use. */
static tilec_status check_temporaries(tilec_context *ctx, tilec_module *m, const int64_t *points[POINTS]) {
    size_t n = m->values.len;
    uint64_t *written = tilec_alloc(ctx, sizeof *written * POINTS * (n ? n : 1));
    size_t *writer = tilec_alloc(ctx, sizeof *writer * (n ? n : 1));
    if (!written || !writer) {
        tilec_free(ctx, written);
        tilec_free(ctx, writer);
        return nomem(ctx);
    }
    tilec_status st = TILEC_OK;
    for (size_t i = 0; i < m->steps.len && !st; i++) {
        const mod_step *s = &m->steps.data[i];
        for (size_t a = 0; a < s->n_args && !st; a++) {
            mod_value *v = &m->values.data[s->values[a]];
            unsigned use = s->k->arg_use[a];
            for (int p = 0; p < POINTS; p++) {
                uint64_t need = need_at(s, a, points[p]);
                if (need > v->bytes) v->bytes = need;
                if (v->kind != TILEC_VALUE_TEMPORARY || !(use & TIR_USE_READ)) continue;
                uint64_t have = written[s->values[a] * POINTS + p];
                if (!have) {
                    st = tilec_error(ctx, TILEC_E_ARG, "MOD-B10", tilec_no_loc(),
                                     STEP_FMT ": argument %zu (%%%s) reads temporary %s before any step writes it "
                                     "(steps run in the order they were added)",
                                     STEP_ARGS(m, i, s->k), a, s->k->arg_names[a], v->name);
                    break;
                }
                if (need > have) {
                    const mod_step *w = &m->steps.data[writer[s->values[a]]];
                    st = tilec_error(ctx, TILEC_E_SHAPE, "MOD-B11", tilec_no_loc(),
                                     STEP_FMT ": argument %zu (%%%s) reads %llu bytes of temporary %s at the module's "
                                     "%s sizes, step %zu (%s) writes %llu",
                                     STEP_ARGS(m, i, s->k), a, s->k->arg_names[a], (unsigned long long)need, v->name,
                                     p ? "largest" : "smallest", writer[s->values[a]] + 1, strbuf_cstr(&w->k->name),
                                     (unsigned long long)have);
                    break;
                }
            }
        }
        for (size_t a = 0; a < s->n_args && !st; a++)
            if (s->k->arg_use[a] & TIR_USE_WRITE) {
                for (int p = 0; p < POINTS; p++) {
                    uint64_t *w = &written[s->values[a] * POINTS + p], b = need_at(s, a, points[p]);
                    if (b > *w) *w = b;
                }
                writer[s->values[a]] = i;
            }
    }
    tilec_free(ctx, written);
    tilec_free(ctx, writer);
    return st;
}

static tilec_status check_constants(tilec_context *ctx, const tilec_module *m) {
    for (size_t i = 0; i < m->values.len; i++) {
        const mod_value *v = &m->values.data[i];
        if (v->kind != TILEC_VALUE_CONSTANT) continue;
        if (!v->bound.data)
            return tilec_error(ctx, TILEC_E_ARG, "MOD-B12", tilec_no_loc(),
                               "module %s: constant %s has no data (tilec_module_bind)", m->name, v->name);
        if (v->bound.size_bytes < v->bytes)
            return tilec_error(ctx, TILEC_E_SHAPE, "MOD-B12", tilec_no_loc(),
                               "module %s: constant %s holds %zu bytes, its steps read %llu", m->name, v->name,
                               v->bound.size_bytes, (unsigned long long)v->bytes);
    }
    return TILEC_OK;
}

/* Every temporary a 64-byte aligned slot of its own, then each step's
 * buffers for temporaries and constants. */
static tilec_status lay_out(tilec_context *ctx, tilec_module *m) {
    uint64_t at = 0;
    for (size_t i = 0; i < m->values.len; i++) {
        mod_value *v = &m->values.data[i];
        if (v->kind != TILEC_VALUE_TEMPORARY) continue;
        v->offset = at;
        at += align64(v->bytes);
    }
    m->arena_bytes = at;
    if (at && !(m->arena_block = tilec_alloc(ctx, at + 63)))
        return tilec_error(ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(),
                           "module %s: out of memory for its arena of %llu bytes", m->name, (unsigned long long)at);
    m->arena = align64_ptr(m->arena_block);
    for (size_t i = 0; i < m->steps.len; i++) {
        mod_step *s = &m->steps.data[i];
        for (uint32_t a = 0; a < s->n_args; a++) {
            const mod_value *v = &m->values.data[s->values[a]];
            if (v->kind == TILEC_VALUE_CONSTANT) s->bufs[a] = v->bound;
            else if (v->kind == TILEC_VALUE_TEMPORARY)
                s->bufs[a] = (tilec_buffer){(char *)m->arena + v->offset, v->bytes, v->elem};
        }
    }
    return TILEC_OK;
}

/* A step kernel's variants: its buckets' kernels, or itself. */
static uint32_t variant_count(const tilec_kernel *k) { return k->variant_count ? k->variant_count : 1; }
static tilec_kernel *variant(tilec_kernel *k, uint32_t i) { return k->variant_count ? k->variants[i] : k; }

/* Sizes variant j of k runs at (the low end of a bucket it serves), for
 * a copy whose result does not depend on them but whose program takes them. */
static const int64_t *variant_sizes(const tilec_kernel *k, uint32_t j, int64_t *out) {
    for (uint32_t b = 0; b < k->bucket_count; b++)
        if (k->bucket_variant[b] == j) return k->buckets[b].lo;
    for (uint32_t i = 0; i < k->dim_count; i++) out[i] = k->dims[i].lo;
    return out;
}

/* Step s's constant operands that a variant of its kernel packs, packed
 * once into panels of their own.  Only operands of static extent: their
 * panels are the same at every size (a pack of a view over runtime sizes
 * is left to each run, its layout following the sizes). */
static tilec_status pack_step(tilec_context *ctx, tilec_module *m, mod_step *s) {
    for (uint32_t j = 0; j < variant_count(s->k); j++) {
        tilec_kernel *v = variant(s->k, j);
        if (!v->native || !v->runtime) continue; /* CPU code only: the XIR and reference engines, CUDA pack as before */
        int64_t lo[TIR_MAX_SYMBOLS];
        const int64_t *at = variant_sizes(s->k, j, lo);
        rt_panel_layout layout;
        if (!rt_program_panels_at(&v->prog, at, &layout)) continue; /* sizes that overflow: packed at each run */
        for (uint32_t i = 0; i < v->prog.packs; i++) {
            uint32_t param = v->prog.packed_param[i];
            const mod_value *src = &m->values.data[s->values[param]];
            if (src->kind != TILEC_VALUE_CONSTANT || !v->params[param].min_bytes) continue;
            if (!s->panels && (!(s->panels = tilec_alloc(ctx, sizeof *s->panels * variant_count(s->k))) ||
                               !(s->rt_args = tilec_alloc(ctx, sizeof *s->rt_args * (s->n_args ? s->n_args : 1)))))
                return nomem(ctx);
            uint64_t bytes = layout.bytes[i];
            void *block = tilec_alloc(ctx, bytes + 64);
            if (!block || !VEC_PUSH(ctx, &m->panel_blocks, block)) {
                tilec_free(ctx, block);
                return nomem(ctx);
            }
            rt_arg panel = {align64_ptr(block), bytes,
                            v->prog.desc.params[v->prog.user_args + i].elem};
            rt_arg copy[2] = {{src->bound.data, src->bound.size_bytes, src->elem}, panel};
            tilec_status st = rt_program_dispatch(v->runtime->pool, ctx, v->prog.pack[i], 2, copy,
                                                  v->prog.pack[i]->dim_count ? at : NULL);
            if (st) return st;
            s->panels[j][i] = panel;
            m->packed_bytes += bytes;
        }
    }
    return TILEC_OK;
}

tilec_status tilec_module_pack_constants(tilec_context *ctx, tilec_module *m, bool on) {
    tilec_status st = building(ctx, m, "tilec_module_pack_constants");
    if (!st) m->pack_constants = on;
    return st;
}

tilec_status tilec_module_finish(tilec_context *ctx, tilec_module *m) {
    tilec_status st = building(ctx, m, "tilec_module_finish");
    if (st) return st;
    int64_t lo[TIR_MAX_SYMBOLS], hi[TIR_MAX_SYMBOLS];
    for (uint32_t i = 0; i < m->dim_count; i++) lo[i] = m->dims[i].lo, hi[i] = m->dims[i].hi;
    for (size_t i = 0; i < m->steps.len; i++)
        if ((st = check_sizes(ctx, m, i, lo, hi))) return st;
    for (size_t i = 0; i < m->values.len; i++) m->values.data[i].bytes = 0;
    const int64_t *points[POINTS] = {lo, hi};
    if ((st = check_temporaries(ctx, m, points)) || (st = check_constants(ctx, m)) || (st = lay_out(ctx, m)))
        return st;
    for (size_t i = 0; m->pack_constants && i < m->steps.len; i++)
        if ((st = pack_step(ctx, m, &m->steps.data[i]))) return st;
    m->finished = true;
    return TILEC_OK;
}

/* ---- running ---- */

static tilec_status check_run(tilec_context *ctx, const tilec_module *m, size_t n, const tilec_buffer *args,
                              size_t n_dims, const int64_t *dims) {
    if (!m->finished)
        return tilec_error(ctx, TILEC_E_ARG, "MOD-R01", tilec_no_loc(),
                           "tilec_module_run: module %s is not finished (tilec_module_finish)", m->name);
    if (n != m->args.len || (n && !args))
        return tilec_error(ctx, TILEC_E_ARG, "RT-D02", tilec_no_loc(),
                           "module %s takes %zu arguments (its inputs and outputs), %zu given", m->name, m->args.len,
                           n);
    for (size_t i = 0; i < n; i++) {
        const mod_value *v = &m->values.data[m->args.data[i]];
        if (args[i].elem != v->elem)
            return rt_module_arg_type(ctx, m->name, i, v->kind, v->name, args[i].elem, v->elem);
    }
    return rt_check_dims(ctx, m->name, m->dims, m->dim_count, n_dims, dims, "run it with its sizes");
}

/* A step some of whose constants were packed at finish: its kernel (the
 * variant of its bucket) run with those panels.  Sizes no bucket holds go
 * the usual way, whose checks say why. */
static tilec_status dispatch_with_panels(tilec_context *ctx, mod_step *s, const int64_t *d) {
    int bucket = s->k->bucket_count ? pipeline_bucket_at(s->k, d) : 0;
    if (bucket < 0) return tilec_dispatch_dims(ctx, s->k, s->n_args, s->bufs, s->n_sizes, d);
    uint32_t j = s->k->bucket_count ? s->k->bucket_variant[bucket] : 0;
    for (uint32_t i = 0; i < s->n_args; i++)
        s->rt_args[i] = (rt_arg){s->bufs[i].data, s->bufs[i].size_bytes, s->bufs[i].elem};
    tilec_kernel *run = variant(s->k, j);
    return rt_program_dispatch_panels(run->runtime->pool, ctx, &run->prog, s->n_args, s->rt_args, d, s->panels[j]);
}

tilec_status tilec_module_run(tilec_context *ctx, tilec_module *m, size_t n, const tilec_buffer *args, size_t n_dims,
                              const int64_t *dims) {
    if (!ctx) return TILEC_E_ARG;
    if (!m) return tilec_error(ctx, TILEC_E_ARG, "TILEC-A01", tilec_no_loc(), "tilec_module_run: no module");
    tilec_status st = check_run(ctx, m, n, args, n_dims, dims);
    if (st) return st;
    if (atomic_flag_test_and_set_explicit(&m->busy, memory_order_acquire))
        return tilec_error(ctx, TILEC_E_RUNTIME, "MOD-R02", tilec_no_loc(),
                           "module %s is running on another thread (one run at a time: its arena is one)", m->name);
    for (size_t i = 0; i < m->steps.len && !st; i++) {
        mod_step *s = &m->steps.data[i];
        for (uint32_t a = 0; a < s->n_args; a++) {
            const mod_value *v = &m->values.data[s->values[a]];
            if (v->kind == TILEC_VALUE_INPUT || v->kind == TILEC_VALUE_OUTPUT) s->bufs[a] = args[v->arg];
        }
        int64_t d[TIR_MAX_SYMBOLS];
        step_dims(s, dims, d);
        double start = m->timed ? now_ms() : 0;
        if ((st = s->panels ? dispatch_with_panels(ctx, s, d)
                            : tilec_dispatch_dims(ctx, s->k, s->n_args, s->bufs, s->n_sizes, d)))
            tilec_error(ctx, st, "MOD-R05", tilec_no_loc(), "in " STEP_FMT, STEP_ARGS(m, i, s->k));
        if (m->timed) s->ms += now_ms() - start;
    }
    atomic_flag_clear_explicit(&m->busy, memory_order_release);
    return st;
}

/* ---- what a module is ---- */

const char *tilec_module_name(const tilec_module *m) { return m ? m->name : NULL; }
size_t tilec_module_step_count(const tilec_module *m) { return m ? m->steps.len : 0; }
size_t tilec_module_dim_count(const tilec_module *m) { return m ? m->dim_count : 0; }
const char *tilec_module_dim(const tilec_module *m, size_t index, int64_t *lo, int64_t *hi) {
    return m ? rt_dim_at(m->dims, m->dim_count, index, lo, hi) : NULL;
}
size_t tilec_module_arg_count(const tilec_module *m) { return m ? m->args.len : 0; }
const char *tilec_module_arg(const tilec_module *m, size_t index, tilec_value_kind *kind, tir_scalar *elem) {
    if (!m || index >= m->args.len) return NULL;
    const mod_value *v = &m->values.data[m->args.data[index]];
    if (kind) *kind = v->kind;
    if (elem) *elem = v->elem;
    return v->name;
}
uint64_t tilec_module_arg_bytes(const tilec_module *m, size_t index, const int64_t *dims) {
    if (!m || !m->finished || index >= m->args.len || (m->dim_count && !dims)) return 0;
    uint32_t value = m->args.data[index];
    uint64_t most = 0;
    for (size_t i = 0; i < m->steps.len; i++) {
        const mod_step *s = &m->steps.data[i];
        for (uint32_t a = 0; a < s->n_args; a++)
            if (s->values[a] == value) {
                uint64_t b = need_at(s, a, dims);
                if (b > most) most = b;
            }
    }
    return most;
}
uint64_t tilec_module_arena_bytes(const tilec_module *m) { return m ? m->arena_bytes : 0; }
uint64_t tilec_module_packed_bytes(const tilec_module *m) { return m ? m->packed_bytes : 0; }
const char *tilec_module_step(const tilec_module *m, size_t index, double *ms) {
    if (!m || index >= m->steps.len) return NULL;
    if (ms) *ms = m->steps.data[index].ms;
    return strbuf_cstr(&m->steps.data[index].k->name);
}
void tilec_module_time(tilec_module *m, bool on) {
    if (!m) return;
    m->timed = on;
    for (size_t i = 0; i < m->steps.len; i++) m->steps.data[i].ms = 0;
}
