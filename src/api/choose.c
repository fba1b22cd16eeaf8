/* choose.c — tilec_choose_params: the values of a kernel's chosen
 * parameters (`NAME in {v, …}`, docs/tir.md "Chosen parameters") for this
 * host.
 *
 *   parse with the caller's defines → the chosen parameters they leave
 *   open → the host's record of an earlier choice (choices.tsv in the disk cache's
 *   directory, keyed by the tilec build, the host, the text, the kernel,
 *   the defines and the options) → else, by the policy: measured (every
 *   combination of their values, or past 64 a search one parameter at a
 *   time, compiled and timed on arguments of small random values, warm or
 *   cold; the fastest, recorded) or the first values.
 *
 * The planner's cost model does not choose yet: it cannot see packed panels
 * or register tiles, so it ranks blockings against the clock (docs/
 * planner.md); measuring is what a user would otherwise do by hand. */
#include "driver/pipeline.h"
#include "tilec/cache.h"
#include "tilec/host.h"

#include "base/clock.h"
#include "base/hash.h"
#include "base/host.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Up to EXHAUSTIVE combinations are all measured; more (up to
 * MAX_COMBINATIONS) are searched one parameter at a time. */
enum { MAX_OPEN = 8, EXHAUSTIVE = 64, MAX_COMBINATIONS = 1 << 16, ROUNDS = 5, SWEEPS = 3, MAX_MEASURED = 256 };

typedef struct {
    const char *name;
    const int64_t *choices;
    size_t count;
} open_param;

typedef struct {
    tilec_context *ctx;
    const char *text;
    size_t length;
    const char *filename, *kernel;
    const tir_define *defines;
    size_t n_defines;
    const tilec_compile_options *options;
    open_param open[MAX_OPEN];
    size_t n_open;
    uint64_t combinations;
    int64_t dims[TIR_MAX_SYMBOLS]; /* the runtime sizes measured at */
    size_t n_dims;
    bool cold; /* the read-only arguments rotated through copies (tilec_choose_options.cold) */
} chooser;

/* The kernel to choose for: `kernel`, else the module's first. */
static const tir_func *pick(const tir_module *m, const char *kernel) {
    return kernel ? tir_module_find_func(m, kernel) : tir_module_func_count(m) ? tir_module_func(m, 0) : NULL;
}

/* The values of combination n (mixed radix over the open parameters, the
 * first parameter fastest). */
static void combination(const chooser *c, uint64_t n, int64_t *values) {
    for (size_t i = 0; i < c->n_open; i++) {
        values[i] = c->open[i].choices[n % c->open[i].count];
        n /= c->open[i].count;
    }
}

/* The text parsed with the caller's defines and, given values, the open
 * parameters at them. */
static tilec_status parse_at(chooser *c, const int64_t *values, tir_module **out) {
    size_t n = c->n_defines + (values ? c->n_open : 0);
    tir_define *defines = tilec_alloc(c->ctx, sizeof *defines * (n ? n : 1));
    if (!defines) return tilec_error(c->ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory choosing");
    if (c->n_defines) memcpy(defines, c->defines, sizeof *defines * c->n_defines);
    for (size_t i = 0; values && i < c->n_open; i++)
        defines[c->n_defines + i] = (tir_define){c->open[i].name, values[i]};
    tilec_status st = tir_parse(c->ctx, c->text, c->length, c->filename, defines, n, out);
    tilec_free(c->ctx, defines);
    return st;
}

/* ---- the record of earlier choices ---- */

/* What the measurement depends on: the build, this CPU and the host the
 * code is generated for, the text, kernel, defines, sizes and options
 * (each option's text, as tilec_compile_options_get writes it, and the
 * workers: no struct bytes, whose padding is anything). */
static bool record_key(const chooser *c, const char *build, uint64_t *key) {
    char cpu[256];
    const char *codegen_cpu = "", *features = "";
    host_cpu_model(cpu, sizeof cpu);
    tilec_host_codegen(c->ctx, &codegen_cpu, &features);
    uint64_t h = fnv64(build, strlen(build));
    h = fnv64_more(h, cpu, strlen(cpu));
    h = fnv64_more(h, codegen_cpu ? codegen_cpu : "", codegen_cpu ? strlen(codegen_cpu) : 0);
    h = fnv64_more(h, features ? features : "", features ? strlen(features) : 0);
    h = fnv64_more(h, c->text, c->length);
    h = fnv64_more(h, c->kernel ? c->kernel : "", c->kernel ? strlen(c->kernel) + 1 : 0);
    for (size_t i = 0; i < c->n_defines; i++) {
        h = fnv64_more(h, c->defines[i].name, strlen(c->defines[i].name) + 1);
        h = fnv64_more(h, &c->defines[i].value, sizeof c->defines[i].value);
    }
    if (c->n_dims) h = fnv64_more(h, c->dims, c->n_dims * sizeof *c->dims);
    if (c->cold) h = fnv64_more(h, "cold", 5); /* (a warm choice's key unchanged) */
    const tilec_option_info *info;
    for (size_t i = 0; (info = tilec_compile_option_info(i)); i++) {
        char text[4096];
        size_t diags = tilec_diag_count(c->ctx);
        if (tilec_compile_options_get(c->ctx, c->options, info->name, text, sizeof text)) {
            tilec_diag_truncate(c->ctx, diags); /* a list too long to key: measured, not recorded */
            return false;
        }
        h = fnv64_more(h, info->name, strlen(info->name) + 1);
        h = fnv64_more(h, text, strlen(text) + 1);
    }
    uint32_t workers = c->options->runtime ? tilec_runtime_workers(c->options->runtime) : 0;
    *key = fnv64_more(h, &workers, sizeof workers);
    return true;
}

/* The recorded combination for key (false: none). */
static bool recorded(const char *path, uint64_t key, uint64_t *n) {
    FILE *f = tilec_cache_open(path, "r");
    char line[128];
    bool found = false;
    while (f && fgets(line, sizeof line, f)) {
        uint64_t k, v;
        if (sscanf(line, "%" SCNx64 " %" SCNu64, &k, &v) == 2 && k == key) found = true, *n = v;
    }
    if (f) fclose(f);
    return found;
}

/* ---- measuring ---- */

/* Small values that keep every path ordinary: floats in [-1, 1), halves
 * likewise (bf16: an f32's upper half), integers 0 (an index into anything). */
static void fill(void *data, uint64_t bytes, tir_scalar elem, uint64_t *seed) {
    size_t size = tir_scalar_size(elem), n = size ? bytes / size : 0;
    for (size_t i = 0; i < n; i++) {
        *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
        float f = (float)((double)(*seed >> 40) / (double)(1ull << 24)) * 2.0f - 1.0f;
        uint32_t bits;
        memcpy(&bits, &f, sizeof bits);
        if (elem == TIR_F32) ((float *)data)[i] = f;
        else if (elem == TIR_F64) ((double *)data)[i] = f;
        else if (elem == TIR_BF16) ((uint16_t *)data)[i] = (uint16_t)(bits >> 16);
        else if (elem == TIR_F16) ((uint16_t *)data)[i] = (uint16_t)(0x3800 | (bits >> 22 & 0x3ff)); /* [0.5, 1) */
    }
}

/* Microseconds per dispatch of k: the median of ROUNDS rounds, each long
 * enough to count (≥ 2 ms), after one warm-up; < 0 when a dispatch fails.
 * A kernel whose warm-up or second dispatch alone takes more than CUT
 * times `best` (the fastest so far; 0: none) cannot win: that dispatch is
 * its time (a blocking 30× too slow at 4096³ costs one dispatch, not 7). */
enum { CUT = 3 };
static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* How many copies of `read_bytes` of read-only arguments a cold timing
 * rotates through: twice the L3 (32 MiB when unknown) together, at most
 * MAX_COPIES and 1 GiB; 1 when warm. */
enum { MAX_COPIES = 64 };
static size_t copies_of(bool cold, uint64_t read_bytes) {
    if (!cold || !read_bytes) return 1;
    host_desc host;
    uint64_t l3 = host_current(&host, NULL, 0) && host.l3_bytes ? host.l3_bytes : 32u << 20;
    uint64_t n = (2 * l3 + read_bytes - 1) / read_bytes;
    if (n > MAX_COPIES) n = MAX_COPIES;
    while (n > 1 && n * read_bytes > (1ull << 30)) n--;
    return (size_t)n;
}

/* One dispatch of k on the copy after *next (advanced), args[c·n..] copy c. */
static bool dispatch_next(tilec_context *ctx, tilec_kernel *k, size_t n, const tilec_buffer *args, size_t copies,
                          size_t *next, size_t n_dims, const int64_t *dims) {
    *next = (*next + 1) % copies;
    return tilec_dispatch_dims(ctx, k, n, args + *next * n, n_dims, dims) == TILEC_OK;
}

static double time_kernel(tilec_context *ctx, tilec_kernel *k, size_t n_dims, const int64_t *dims, double best,
                          bool cold) {
    size_t n = tilec_kernel_arg_count(k);
    uint64_t read_bytes = 0;
    for (size_t i = 0; i < n; i++)
        if (tilec_kernel_arg_use(k, i) == TIR_USE_READ)
            read_bytes += n_dims ? tilec_kernel_arg_bytes(k, i, dims) : tilec_kernel_arg_min_bytes(k, i);
    size_t copies = copies_of(cold, read_bytes);
    /* args[c·n + i]: argument i of copy c; the written ones shared by every copy */
    tilec_buffer *args = tilec_alloc(ctx, sizeof *args * (n ? n * copies : 1));
    void **blocks = tilec_alloc(ctx, sizeof *blocks * (n ? n * copies : 1));
    double us = -1;
    uint64_t seed = 1;
    bool ok = args && blocks;
    if (blocks) memset(blocks, 0, sizeof *blocks * (n ? n * copies : 1));
    for (size_t c = 0; ok && c < copies; c++)
        for (size_t i = 0; ok && i < n; i++) {
            uint64_t bytes = n_dims ? tilec_kernel_arg_bytes(k, i, dims) : tilec_kernel_arg_min_bytes(k, i);
            if (c && tilec_kernel_arg_use(k, i) != TIR_USE_READ) {
                args[c * n + i] = args[i];
                continue;
            }
            ok = (blocks[c * n + i] = tilec_alloc(ctx, bytes + 64)) != NULL;
            if (ok) {
                args[c * n + i] = (tilec_buffer){align64_ptr(blocks[c * n + i]), bytes, tilec_kernel_arg_elem(k, i)};
                fill(args[c * n + i].data, bytes, args[c * n + i].elem, &seed);
            }
        }
    int rounds_needed = ROUNDS;
    double start = now_ms(), once = 0;
    size_t next = 0; /* the copy the last dispatch read */
    if (ok && dispatch_next(ctx, k, n, args, copies, &next, n_dims, dims)) {
        once = now_ms() - start; /* the warm-up: a first touch of every page, and whatever else runs once */
        bool slow = best > 0 && once * 1e3 > CUT * best;
        if (!slow) {
            start = now_ms();
            ok = dispatch_next(ctx, k, n, args, copies, &next, n_dims, dims);
            once = now_ms() - start;
        }
        if (ok && best > 0 && once * 1e3 > CUT * best) rounds_needed = 0;
        uint64_t reps = once > 0 ? (uint64_t)(2.0 / once) + 1 : 1000;
        double rounds[ROUNDS];
        for (int r = 0; ok && r < rounds_needed; r++) {
            start = now_ms();
            for (uint64_t i = 0; ok && i < reps; i++) ok = dispatch_next(ctx, k, n, args, copies, &next, n_dims, dims);
            rounds[r] = (now_ms() - start) * 1e3 / (double)reps;
        }
        if (ok) qsort(rounds, (size_t)rounds_needed, sizeof *rounds, compare_doubles);
        if (ok) us = rounds_needed ? rounds[rounds_needed / 2] : once * 1e3;
    }
    for (size_t i = 0; blocks && i < n * copies; i++) tilec_free(ctx, blocks[i]);
    tilec_free(ctx, blocks);
    tilec_free(ctx, args);
    return us;
}

/* Combination n compiled and timed (< 0: it does not compile or run here;
 * its diagnostics are dropped, the others' kept). */
static double measure(chooser *c, uint64_t n, double best) {
    int64_t values[MAX_OPEN];
    combination(c, n, values);
    size_t diags = tilec_diag_count(c->ctx);
    tir_module *m = NULL;
    tilec_kernel *k = NULL;
    double us = -1;
    const tir_func *f;
    if (!parse_at(c, values, &m) && (f = pick(m, c->kernel)) && !tilec_compile(c->ctx, f, c->options, &k))
        us = time_kernel(c->ctx, k, c->n_dims, c->dims, best, c->cold);
    tilec_kernel_destroy(k);
    tir_module_destroy(m);
    tilec_diag_truncate(c->ctx, diags);
    return us;
}

/* ---- searching ---- */

typedef struct {
    chooser *c;
    const tilec_choose_options *co;
    uint64_t n[MAX_MEASURED];
    double us[MAX_MEASURED];
    uint32_t count;
    double best_us;
    uint64_t best;
} search;

/* Combination n's time, measured once (< 0: it failed). */
static double timed(search *s, uint64_t n) {
    for (uint32_t i = 0; i < s->count; i++)
        if (s->n[i] == n) return s->us[i];
    double us = measure(s->c, n, s->best_us);
    if (s->count < MAX_MEASURED) s->n[s->count] = n, s->us[s->count++] = us;
    if (s->co && s->co->progress)
        s->co->progress(s->co->user, s->c->combinations <= EXHAUSTIVE ? s->c->combinations : 0, s->count - 1, us);
    if (us >= 0 && (s->best_us < 0 || us < s->best_us)) s->best_us = us, s->best = n;
    return us;
}

/* Every combination, or (past EXHAUSTIVE) a coordinate search: from the
 * first values, each parameter in turn tried at all its values with the
 * others at the best so far, for up to SWEEPS rounds or until a round
 * changes nothing (the interactions of parameters beyond one at a time are
 * not searched). */
static void find_best(search *s) {
    chooser *c = s->c;
    if (c->combinations <= EXHAUSTIVE) {
        for (uint64_t n = 0; n < c->combinations; n++) timed(s, n);
        return;
    }
    timed(s, 0);
    for (int sweep = 0; sweep < SWEEPS && s->count < MAX_MEASURED; sweep++) {
        uint64_t start = s->best, stride = 1;
        for (size_t p = 0; p < c->n_open; stride *= c->open[p].count, p++) {
            uint64_t base = s->best - (s->best / stride % c->open[p].count) * stride;
            for (uint64_t v = 0; v < c->open[p].count && s->count < MAX_MEASURED; v++) timed(s, base + v * stride);
        }
        if (s->best == start) break;
    }
}

/* ---- the entry point ---- */

static void describe(const chooser *c, uint64_t n, char *out, size_t size, const char *how) {
    int64_t values[MAX_OPEN];
    combination(c, n, values);
    size_t at = 0;
    for (size_t i = 0; i < c->n_open && at < size; i++)
        at += (size_t)snprintf(out + at, size - at, "%s%s=%" PRId64, i ? " " : "", c->open[i].name, values[i]);
    if (at < size) snprintf(out + at, size - at, " (%s)", how);
}

/* The sizes a kernel with runtime sizes is measured at: the caller's, else
 * each size at its range's high end capped at DEFAULT_SIZE (a prompt of
 * 256 tokens, say: large enough for the blocking to matter, small enough
 * to time quickly).  False when the caller's are not one per size in range. */
enum { DEFAULT_SIZE = 256 };
static bool measured_sizes(chooser *c, const tir_func *f, const tilec_choose_options *co) {
    c->n_dims = tir_func_symbol_count(f);
    if (co && co->n_dims && co->n_dims != c->n_dims) return false;
    for (size_t i = 0; i < c->n_dims; i++) {
        int64_t lo, hi;
        tir_func_symbol(f, i, &lo, &hi);
        c->dims[i] = co && co->n_dims ? co->dims[i] : hi < DEFAULT_SIZE ? hi : lo > DEFAULT_SIZE ? lo : DEFAULT_SIZE;
        if (c->dims[i] < lo || c->dims[i] > hi) return false;
    }
    return true;
}

/* The measured choice: the host's record, else the search's (recorded);
 * *how says which, in `words` when it must be written. */
static tilec_status choose_measured(chooser *c, const tilec_choose_options *co, uint64_t *best, const char **how,
                                    char *words, size_t words_size) {
    char build[128], dir[TILEC_CACHE_DIR_MAX], path[TILEC_CACHE_DIR_MAX + 16] = "";
    uint64_t key = 0;
    if (tilec_cache_dir(dir) == TILEC_CACHE_USABLE && tilec_cache_build_id(build, sizeof build) &&
        record_key(c, build, &key))
        snprintf(path, sizeof path, "%s/choices.tsv", dir);
    if (path[0] && recorded(path, key, best) && *best < c->combinations) {
        *how = c->cold ? "measured cold on this host before" : "measured on this host before";
        return TILEC_OK;
    }
    search *sr = tilec_alloc(c->ctx, sizeof *sr);
    if (!sr) return tilec_error(c->ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory choosing");
    *sr = (search){.c = c, .co = co, .best_us = -1};
    find_best(sr);
    bool found = sr->best_us >= 0;
    *best = found ? sr->best : 0;
    snprintf(words, words_size, "measured: a search over %u of %" PRIu64 " combinations", sr->count,
             c->combinations);
    tilec_free(c->ctx, sr);
    *how = !found                           ? "first listed: none compiled and ran here"
           : c->combinations > EXHAUSTIVE ? words
           : c->cold                        ? "measured cold"
                                            : "measured";
    FILE *rec = found && path[0] ? tilec_cache_open(path, "a") : NULL;
    if (rec) fprintf(rec, "%016" PRIx64 " %" PRIu64 "\n", key, *best), fclose(rec);
    return TILEC_OK;
}

static tilec_choose_policy policy_of(const tilec_choose_options *co) {
    if (co && co->policy != TILEC_CHOOSE_DEFAULT) return co->policy;
    const char *env = getenv("TILEC_CHOOSE");
    return env && !strcmp(env, "first") ? TILEC_CHOOSE_FIRST : TILEC_CHOOSE_MEASURE;
}

tilec_status tilec_choose_params(tilec_context *ctx, const char *text, size_t length, const char *filename,
                                 const char *kernel, const tir_define *defines, size_t n_defines,
                                 const tilec_compile_options *options, const tilec_choose_options *co,
                                 tilec_chosen *out, size_t capacity, size_t *count) {
    if (!ctx || !text || !count || (capacity && !out) || (n_defines && !defines))
        return tilec_error(ctx, TILEC_E_ARG, "TILEC-A01", tilec_no_loc(), "tilec_choose_params: NULL argument");
    *count = 0;
    tilec_compile_options o = options ? *options : tilec_compile_options_default();
    chooser c = {.ctx = ctx, .text = text, .length = length, .filename = filename ? filename : "<string>",
                 .kernel = kernel, .defines = defines, .n_defines = n_defines, .options = &o, .combinations = 1,
                 .cold = co && co->cold};
    tir_module *m = NULL;
    tilec_status st = parse_at(&c, NULL, &m);
    if (st) return st;
    const tir_func *f = pick(m, kernel);
    for (size_t i = 0; f && i < tir_func_shape_param_count(f); i++) { /* no such kernel: nothing to choose */
        size_t n_choices;
        const int64_t *choices = tir_func_shape_param_choices(f, i, &n_choices);
        const char *name = tir_func_shape_param(f, i, NULL);
        bool pinned = false;
        for (size_t d = 0; d < n_defines; d++) pinned |= !strcmp(defines[d].name, name);
        if (!choices || pinned) continue;
        if (c.n_open == MAX_OPEN || c.n_open == capacity || strlen(name) >= sizeof out->name ||
            (c.combinations *= n_choices) > MAX_COMBINATIONS) {
            tir_module_destroy(m);
            return tilec_error(ctx, TILEC_E_BUDGET, "TILEC-CH02", tilec_no_loc(),
                               "'@%s': more than %d combinations of chosen parameters, %d of them, or %zu results "
                               "(pin some with defines)",
                               tir_func_name(f), MAX_COMBINATIONS, MAX_OPEN, capacity);
        }
        c.open[c.n_open++] = (open_param){name, choices, n_choices};
    }
    uint64_t best = 0;
    const char *how = "first listed: policy first";
    char searched[96];
    bool measuring = c.n_open && policy_of(co) == TILEC_CHOOSE_MEASURE;
    if (measuring && !measured_sizes(&c, f, co))
        st = tilec_error(ctx, TILEC_E_ARG, "TILEC-CH03", tilec_no_loc(),
                         "'@%s' has %zu runtime sizes; %zu given to measure at, or outside their ranges",
                         tir_func_name(f), tir_func_symbol_count(f), co ? co->n_dims : 0);
    else if (measuring)
        st = choose_measured(&c, co, &best, &how, searched, sizeof searched);
    if (!st) {
        int64_t values[MAX_OPEN];
        combination(&c, best, values);
        for (size_t i = 0; i < c.n_open; i++) {
            snprintf(out[i].name, sizeof out[i].name, "%s", c.open[i].name);
            out[i].value = values[i];
        }
        *count = c.n_open;
        if (co && co->why && co->why_size) {
            co->why[0] = 0; /* nothing open: nothing to say */
            if (c.n_open) describe(&c, best, co->why, co->why_size, how);
        }
    }
    tir_module_destroy(m);
    return st;
}
