/* args.c — kernel argument buffers for run and demo (see args.h).
 * Invariant: buffers[i].size_bytes == params[i].volume × element size, and the
 * buffer is always allocated (at least one byte) once create succeeds. */
#include "args.h"

#include "cli.h"
#include "memory.h"

#include "base/checked.h"
#include "base/half.h"
#include "base/hash.h"
#include "base/npy.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parameter v's element count and buffer size; false when the size does not
 * fit 64 bits or size_t, after appending TILEC-CLI02. */
static bool param_bytes(tilec_context *ctx, const tir_value *v, uint64_t *volume, uint64_t *bytes) {
    const tir_type *t = tir_value_type(v);
    size_t elem_size = tir_scalar_size(tir_type_elem(t));
    if (tir_space_volume(tir_type_space(t), volume) && checked_mul_u64(*volume, elem_size, bytes) && *bytes <= SIZE_MAX)
        return true;
    tilec_error(ctx, TILEC_E_RUNTIME, "TILEC-CLI02", tilec_no_loc(), "parameter %%%s is too large to allocate",
                tir_value_name(v) ? tir_value_name(v) : "?");
    return false;
}

tilec_status cli_args_check_memory(tilec_context *ctx, const tir_func *f, unsigned copies) {
    size_t n = tir_func_param_count(f);
    uint64_t total = 0, volume, bytes;
    for (size_t i = 0; i < n; i++) {
        if (!param_bytes(ctx, tir_func_param(f, i), &volume, &bytes)) return TILEC_E_RUNTIME;
        if (!checked_add_u64(total, bytes, &total)) total = UINT64_MAX;
    }
    if (!checked_mul_u64(total, copies, &total)) total = UINT64_MAX;
    char what[160];
    snprintf(what, sizeof what, "the buffers of this run (%zu parameters%s)", n,
             copies > 1 ? ", twice: the reference interpreter works on a copy" : "");
    return cli_memory_check(ctx, total, what);
}

tilec_status cli_args_create(tilec_context *ctx, const tir_func *f, cli_args *out) {
    memset(out, 0, sizeof *out);
    out->ctx = ctx;
    size_t n = tir_func_param_count(f);
    out->params = tilec_alloc(ctx, n * sizeof *out->params);
    out->buffers = tilec_alloc(ctx, n * sizeof *out->buffers);
    if (!out->params || !out->buffers) {
        cli_args_destroy(out);
        return tilec_error(ctx, TILEC_E_NOMEM, "TILEC-CLI02", tilec_no_loc(), "out of memory for %zu arguments", n);
    }
    for (size_t i = 0; i < n; i++) {
        const tir_value *v = tir_func_param(f, i);
        const tir_type *t = tir_value_type(v);
        cli_param *p = &out->params[i];
        p->name = tir_value_name(v) ? tir_value_name(v) : "?";
        p->elem = tir_type_elem(t);
        p->space = tir_type_space(t);
        p->read_only = tir_value_read_only(v);
        uint64_t bytes = 0;
        tilec_status st = TILEC_OK;
        if (!param_bytes(ctx, v, &p->volume, &bytes)) {
            st = TILEC_E_RUNTIME;
        } else if (!(out->buffers[i].data = tilec_alloc(ctx, (size_t)bytes))) {
            st = tilec_error(ctx, TILEC_E_NOMEM, "TILEC-CLI02", tilec_no_loc(),
                             "out of memory: parameter %%%s needs %llu bytes", p->name, (unsigned long long)bytes);
        }
        out->count = i + 1; /* destroy frees buffers 0..i */
        if (st != TILEC_OK) {
            cli_args_destroy(out);
            return st;
        }
        out->buffers[i].size_bytes = (size_t)bytes;
    }
    out->count = n;
    return TILEC_OK;
}

tilec_status cli_args_copy(const cli_args *a, cli_args *out) {
    tilec_status st = TILEC_OK;
    memset(out, 0, sizeof *out);
    out->ctx = a->ctx;
    out->n_dims = a->n_dims;
    memcpy(out->dims, a->dims, sizeof out->dims);
    out->params = tilec_alloc(a->ctx, (a->count ? a->count : 1) * sizeof *out->params);
    out->buffers = tilec_alloc(a->ctx, (a->count ? a->count : 1) * sizeof *out->buffers);
    for (size_t i = 0; !st && out->params && out->buffers && i < a->count; i++) {
        out->params[i] = a->params[i];
        out->buffers[i].size_bytes = a->buffers[i].size_bytes;
        if ((out->buffers[i].data = tilec_alloc(a->ctx, a->buffers[i].size_bytes ? a->buffers[i].size_bytes : 1)))
            memcpy(out->buffers[i].data, a->buffers[i].data, a->buffers[i].size_bytes);
        else
            st = TILEC_E_NOMEM;
        out->count = i + 1;
    }
    if (!st && (!out->params || !out->buffers)) st = TILEC_E_NOMEM;
    if (st) {
        cli_args_destroy(out);
        return tilec_error(a->ctx, TILEC_E_NOMEM, "TILEC-CLI02", tilec_no_loc(), "out of memory copying the arguments");
    }
    return TILEC_OK;
}

void cli_args_destroy(cli_args *a) {
    for (size_t i = 0; i < a->count; i++) tilec_free(a->ctx, a->buffers[i].data);
    tilec_free(a->ctx, a->buffers);
    tilec_free(a->ctx, a->params);
    a->count = 0;
    a->buffers = NULL;
    a->params = NULL;
}

int cli_args_find(const cli_args *a, const char *name, size_t name_len) {
    if (name_len > 0 && name[0] == '%') {
        name++;
        name_len--;
    }
    for (size_t i = 0; i < a->count; i++)
        if (strlen(a->params[i].name) == name_len && !memcmp(a->params[i].name, name, name_len)) return (int)i;
    return -1;
}

/* ---- deterministic inputs ---- */

static uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Element i of a buffer of `elem`: bool and unsigned types take u, signed
 * ones s, floats f (rounded once to f32). */
static void store_elem(void *data, tir_scalar elem, uint64_t i, int64_t s, uint64_t u, double f) {
    switch (elem) {
    case TIR_BOOL: ((uint8_t *)data)[i] = (uint8_t)(u != 0); break;
    case TIR_I8: ((int8_t *)data)[i] = (int8_t)s; break;
    case TIR_U8: ((uint8_t *)data)[i] = (uint8_t)u; break;
    case TIR_I16: ((int16_t *)data)[i] = (int16_t)s; break;
    case TIR_U16: ((uint16_t *)data)[i] = (uint16_t)u; break;
    case TIR_I32: ((int32_t *)data)[i] = (int32_t)s; break;
    case TIR_U32: ((uint32_t *)data)[i] = (uint32_t)u; break;
    case TIR_I64: ((int64_t *)data)[i] = s; break;
    case TIR_U64: ((uint64_t *)data)[i] = u; break;
    case TIR_F32: ((float *)data)[i] = (float)f; break;
    case TIR_F64: ((double *)data)[i] = f; break;
    case TIR_F16: ((uint16_t *)data)[i] = half_from_double(f); break;
    case TIR_BF16: ((uint16_t *)data)[i] = bf16_from_double(f); break;
    default: break;
    }
}

void cli_args_fill_random(cli_args *a, size_t index, uint64_t seed) {
    uint64_t state = seed ^ (0xD1B54A32D192ED03ull * (index + 1));
    void *data = a->buffers[index].data;
    tir_scalar elem = a->params[index].elem;
    for (uint64_t i = 0; i < a->params[index].volume; i++) {
        uint64_t r = splitmix64(&state);
        /* Exactly representable: 24 random bits for f32, 53 for f64, 11 for
         * f16 and 8 for bf16 (uniform in [-1, 1) on their grids). */
        double f = elem == TIR_F32    ? (double)(r >> 40) * 0x1p-23 - 1.0
                   : elem == TIR_F16  ? (double)(r >> 53) * 0x1p-10 - 1.0
                   : elem == TIR_BF16 ? (double)(r >> 56) * 0x1p-7 - 1.0
                                      : (double)(r >> 11) * 0x1p-52 - 1.0;
        /* bools random; signed in [-8, 8]; unsigned in [0, 8] */
        uint64_t u = elem == TIR_BOOL ? r >> 63 : (r >> 32) % 9;
        store_elem(data, elem, i, (int64_t)((r >> 32) % 17) - 8, u, f);
    }
}

tilec_status cli_args_fill_value(cli_args *a, size_t index, const char *text) {
    tir_scalar elem = a->params[index].elem;
    void *data = a->buffers[index].data;
    char *end;
    errno = 0;
    double f = 0;
    int64_t s = 0;
    uint64_t u = 0;
    bool ok;
    if (elem == TIR_BOOL) {
        ok = !strcmp(text, "0") || !strcmp(text, "1") || !strcmp(text, "true") || !strcmp(text, "false");
        u = ok && (text[0] == '1' || text[0] == 't');
    } else if (tir_scalar_is_float(elem)) {
        f = strtod(text, &end);
        int err = errno;
        bool out_of_double = err == ERANGE && isinf(f); /* ERANGE with a finite f: an underflow, kept */
        /* A finite decimal must stay finite in the parameter's type (1e39 is
         * no f32), as an integer must fit; "inf" and "nan" are asked for. */
        union {
            double f64;
            float f32;
            uint16_t f16;
        } rounded;
        store_elem(&rounded, elem, 0, 0, 0, f);
        bool overflows = out_of_double || (isfinite(f) && isinf(cli_elem_value(&rounded, elem, 0)));
        ok = *text && !*end && (err == 0 || err == ERANGE) && !overflows;
    } else if (tir_scalar_is_signed(elem)) {
        long long v = strtoll(text, &end, 0);
        unsigned bits = 8 * (unsigned)tir_scalar_size(elem);
        ok = *text && !*end && !errno && (bits == 64 || (v >= -(1ll << (bits - 1)) && v < (1ll << (bits - 1))));
        s = v;
    } else {
        unsigned long long v = text[0] == '-' ? 0 : strtoull(text, &end, 0);
        unsigned bits = 8 * (unsigned)tir_scalar_size(elem);
        ok = *text && text[0] != '-' && !*end && !errno && (bits == 64 || v < (1ull << bits));
        u = v;
    }
    if (!ok)
        return tilec_error(a->ctx, TILEC_E_ARG, "TILEC-ARG01", tilec_no_loc(), "--arg %s=%s: not a %s value",
                           a->params[index].name, text, tir_scalar_name(elem));
    for (uint64_t i = 0; i < a->params[index].volume; i++) store_elem(data, elem, i, s, u, f);
    return TILEC_OK;
}

double cli_elem_value(const void *data, tir_scalar elem, uint64_t i) {
    switch (elem) {
    case TIR_BOOL: return ((const uint8_t *)data)[i] != 0;
    case TIR_I8: return ((const int8_t *)data)[i];
    case TIR_U8: return ((const uint8_t *)data)[i];
    case TIR_I16: return ((const int16_t *)data)[i];
    case TIR_U16: return ((const uint16_t *)data)[i];
    case TIR_I32: return ((const int32_t *)data)[i];
    case TIR_U32: return ((const uint32_t *)data)[i];
    case TIR_I64: return (double)((const int64_t *)data)[i];
    case TIR_U64: return (double)((const uint64_t *)data)[i];
    case TIR_F32: return ((const float *)data)[i];
    case TIR_F64: return ((const double *)data)[i];
    case TIR_F16: return half_to_double(((const uint16_t *)data)[i]);
    case TIR_BF16: return bf16_to_double(((const uint16_t *)data)[i]);
    default: return NAN;
    }
}

void cli_format_elem(char *buf, size_t size, const void *data, tir_scalar elem, uint64_t i) {
    double v = cli_elem_value(data, elem, i);
    if (elem == TIR_I64)
        snprintf(buf, size, "%" PRId64, ((const int64_t *)data)[i]);
    else if (elem == TIR_U64)
        snprintf(buf, size, "%" PRIu64, ((const uint64_t *)data)[i]);
    else if (isnan(v))
        snprintf(buf, size, "%snan", signbit(v) ? "-" : "");
    else
        snprintf(buf, size, "%.*g", elem == TIR_F32 ? 9 : tir_scalar_is_half(elem) ? 5 : 17, v);
}

/* ---- .npy ---- */

/* TileIR scalars and .npy dtypes share their short names ("f32", "bool"). */
static npy_dtype dtype_of(tir_scalar s) {
    for (npy_dtype t = NPY_INVALID + 1; t < NPY_DTYPE_COUNT; t++)
        if (!strcmp(npy_dtype_name(t), tir_scalar_name(s))) return t;
    return NPY_INVALID;
}

static void format_shape(char *buf, size_t size, size_t rank, const uint64_t *shape) {
    size_t used = (size_t)snprintf(buf, size, "[");
    for (size_t i = 0; i < rank && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%llu", i ? ", " : "", (unsigned long long)shape[i]);
    if (used < size) snprintf(buf + used, size - used, "]");
}

static size_t space_shape(const tir_space *space, uint64_t *shape) {
    size_t rank = tir_space_rank(space);
    for (size_t i = 0; i < rank; i++) shape[i] = tir_space_extent(space, i);
    return rank;
}

void cli_format_type(char *buf, size_t size, tir_scalar elem, const tir_space *space) {
    uint64_t shape[NPY_MAX_RANK];
    size_t rank = space_shape(space, shape);
    int n = snprintf(buf, size, "%s", tir_scalar_name(elem));
    if (n >= 0 && (size_t)n < size) format_shape(buf + n, size - (size_t)n, rank, shape);
}

typedef struct {
    cli_args *args;
    size_t index;
    const char *path;
} npy_target;

/* The header of an --in file against its parameter, before any data is read
 * or allocated: a 192-byte pipe whose header declares 2 GiB is refused here. */
static tilec_status accept_header(void *user, const npy_array *header) {
    const npy_target *t = user;
    const cli_param *p = &t->args->params[t->index];
    uint64_t want[NPY_MAX_RANK];
    size_t rank = space_shape(p->space, want);
    char got_text[256], want_text[256];
    if (header->dtype != dtype_of(p->elem))
        return tilec_error(t->args->ctx, TILEC_E_TYPE, "TILEC-CLI03", tilec_no_loc(),
                           "%s: dtype %s (%s) does not match parameter %%%s of element type %s", t->path,
                           npy_dtype_descr(header->dtype), npy_dtype_name(header->dtype), p->name,
                           tir_scalar_name(p->elem));
    if (header->rank != rank || memcmp(header->shape, want, rank * sizeof *want)) {
        format_shape(got_text, sizeof got_text, header->rank, header->shape);
        format_shape(want_text, sizeof want_text, rank, want);
        return tilec_error(t->args->ctx, TILEC_E_SHAPE, "TILEC-CLI04", tilec_no_loc(),
                           "%s: shape %s does not match parameter %%%s of shape %s", t->path, got_text, p->name,
                           want_text);
    }
    return TILEC_OK;
}

tilec_status cli_args_load_npy(cli_args *a, size_t index, const char *path) {
    npy_target target = {a, index, path};
    /* Straight into the parameter's buffer: no second copy of the data. */
    npy_read_options o = {accept_header, &target, a->buffers[index].data, a->buffers[index].size_bytes, false};
    npy_array header;
    return npy_read_with(a->ctx, path, &o, &header);
}

/* ---- runtime sizes ---- */

int cli_dim_set(const char *command, const tir_func *f, int64_t *dims, bool *set, size_t k, int64_t v,
                const char *source) {
    const char *name = tir_func_symbol(f, k, NULL, NULL);
    if (set[k] && dims[k] != v) {
        cli_fail(command, "runtime size %s is %lld, but %s makes it %lld", name, (long long)dims[k], source,
                 (long long)v);
        return CLI_EXIT_FAIL;
    }
    dims[k] = v;
    set[k] = true;
    return CLI_CONTINUE;
}

int cli_dim_take(const char *command, const tir_func *f, const char *text, int64_t *dims, bool *set) {
    const char *value = strchr(text, '=');
    size_t len = value ? (size_t)(value - text) : strlen(text), n = tir_func_symbol_count(f), k = 0;
    if (!value || !len) return cli_usage_error(command, "malformed --dim '%s' (expected NAME=N)", text);
    while (k < n && (strlen(tir_func_symbol(f, k, NULL, NULL)) != len || memcmp(tir_func_symbol(f, k, NULL, NULL), text, len)))
        k++;
    if (k == n) {
        cli_fail(command, "--dim %.*s=...: kernel @%s has no runtime size '%.*s'", (int)len, text, tir_func_name(f),
                 (int)len, text);
        fprintf(stderr, "  runtime sizes:");
        for (size_t i = 0; i < n; i++) {
            int64_t lo, hi;
            const char *name = tir_func_symbol(f, i, &lo, &hi);
            fprintf(stderr, " %s (%lld..%lld)", name, (long long)lo, (long long)hi);
        }
        fprintf(stderr, "%s\n", n ? "" : " none (its extents are numbers)");
        return CLI_EXIT_FAIL;
    }
    char *end;
    errno = 0;
    long long v = strtoll(value + 1, &end, 10);
    if (!value[1] || *end || errno) return cli_usage_error(command, "--dim %s: not an integer", text);
    return cli_dim_set(command, f, dims, set, k, v, "--dim");
}

int cli_dims_complete(const char *command, const tir_func *f, const bool *set, const char *how) {
    for (size_t k = 0; k < tir_func_symbol_count(f); k++)
        if (!set[k]) {
            const char *name = tir_func_symbol(f, k, NULL, NULL);
            return cli_usage_error(command, "kernel @%s needs runtime size %s: give --dim %s=N%s", tir_func_name(f),
                                   name, name, how);
        }
    return CLI_CONTINUE;
}

tilec_status cli_npy_shape(tilec_context *ctx, const char *path, uint64_t *shape, size_t *rank) {
    npy_read_options o = {.header_only = true};
    npy_array header;
    tilec_status st = npy_read_with(ctx, path, &o, &header);
    if (st) return st;
    *rank = header.rank;
    memcpy(shape, header.shape, header.rank * sizeof *shape);
    return TILEC_OK;
}

tilec_status cli_args_save_npy(cli_args *a, size_t index, const char *path) {
    const cli_param *p = &a->params[index];
    npy_array arr;
    memset(&arr, 0, sizeof arr);
    arr.dtype = dtype_of(p->elem);
    arr.rank = space_shape(p->space, arr.shape);
    arr.data = a->buffers[index].data;
    arr.size_bytes = a->buffers[index].size_bytes;
    return npy_write(a->ctx, path, &arr, 0);
}

/* ---- summaries ---- */

void cli_print_summary(FILE *out, const cli_args *a, size_t index) {
    const cli_param *p = &a->params[index];
    const tir_buffer *b = &a->buffers[index];
    char type[512];
    cli_format_type(type, sizeof type, p->elem, p->space);
    fprintf(out, "%%%s: %s", p->name, type);
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    uint64_t nans = 0;
    for (uint64_t i = 0; i < p->volume; i++) {
        double v = cli_elem_value(b->data, p->elem, i);
        if (isnan(v)) {
            nans++;
            continue;
        }
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        sum += v;
    }
    if (p->volume > nans)
        fprintf(out, " min=%.6g max=%.6g mean=%.6g", lo, hi, sum / (double)(p->volume - nans));
    else if (p->volume == 0)
        fprintf(out, " empty");
    if (nans) fprintf(out, " nan=%llu", (unsigned long long)nans);
    fprintf(out, " checksum=%016llx\n", (unsigned long long)fnv64(b->data, b->size_bytes));
}

bool cli_args_bind(const cli_args *a, tilec_buffer out[CLI_MAX_ARGS]) {
    if (a->count > CLI_MAX_ARGS) {
        fprintf(stderr, "tilec: more than %d kernel arguments\n", CLI_MAX_ARGS);
        return false;
    }
    for (size_t i = 0; i < a->count; i++)
        out[i] = (tilec_buffer){a->buffers[i].data, a->buffers[i].size_bytes, a->params[i].elem};
    return true;
}
