/* harness.c — the measurement protocol of harness.h: options, FP64 check,
 * warmup, calibration, ABBA rounds, statistics and the JSON rows. */
#include "harness.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------- options */

static void usage(FILE *f, const char *family) {
    fprintf(f,
            "usage: bench_%s [--rounds N] [--round-ms MS] [--warmup-ms MS] [--max-reps N]\n"
            "                [--kernel NAME]... [--size SUBSTR]... [--threads N[,N...]]...\n"
            "                [--peer NAME]... [--peers-dir DIR] [--python PATH] [--list]\n"
            "\n"
            "Times tilec against its peers (ABBA rounds, outputs checked against FP64\n"
            "before timing) and writes one JSON document to stdout; progress on stderr.\n"
            "  --rounds N       ABBA rounds (default 3)\n"
            "  --round-ms MS    minimum duration of one sample (default 20)\n"
            "  --warmup-ms MS   warmup per peer and row (default 100)\n"
            "  --max-reps N     cap of dispatches per sample (default 100000)\n"
            "  --kernel NAME    only this kernel (repeatable)\n"
            "  --size SUBSTR    only shapes containing SUBSTR, e.g. 1024x4096 (repeatable)\n"
            "  --threads LIST   thread counts, e.g. 1,2 (default 1,2)\n"
            "  --peer NAME      only this peer beside tilec and the bound (repeatable)\n"
            "  --peers-dir DIR  the Python peers' worker scripts (rows, attention;\n"
            "                   default: bench/peers of the source tree)\n"
            "  --python PATH    their interpreter (default python3; bench/run passes\n"
            "                   build-bench/venv/bin/python)\n"
            "  --list           print the selected rows and exit\n",
            family);
}

static double number_arg(int argc, char **argv, int *i, const char *family, double lo, double hi) {
    if (*i + 1 >= argc) {
        fprintf(stderr, "bench_%s: %s needs a value\n", family, argv[*i]);
        usage(stderr, family);
        exit(2);
    }
    char *end;
    const char *s = argv[++*i];
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= lo && v <= hi)) {
        fprintf(stderr, "bench_%s: bad value '%s' for %s (range %g..%g)\n", family, s, argv[*i - 1], lo, hi);
        exit(2);
    }
    return v;
}

void bench_parse_options(int argc, char **argv, const char *family, bench_options *o) {
    memset(o, 0, sizeof *o);
    o->rounds = 3;
    o->round_ms = 20;
    o->warmup_ms = 100;
    o->max_reps = 100000;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool more = i + 1 < argc;
        if (!strcmp(a, "--rounds"))
            o->rounds = (int)number_arg(argc, argv, &i, family, 1, BENCH_MAX_ROUNDS);
        else if (!strcmp(a, "--round-ms"))
            o->round_ms = number_arg(argc, argv, &i, family, 0, 60000);
        else if (!strcmp(a, "--warmup-ms"))
            o->warmup_ms = number_arg(argc, argv, &i, family, 0, 60000);
        else if (!strcmp(a, "--max-reps"))
            o->max_reps = (uint64_t)number_arg(argc, argv, &i, family, 1, 1e9);
        else if (!strcmp(a, "--list"))
            o->list = true;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout, family);
            exit(0);
        } else if (more && !strcmp(a, "--kernel") && o->n_kernels < BENCH_MAX_FILTERS)
            o->kernels[o->n_kernels++] = argv[++i];
        else if (more && !strcmp(a, "--size") && o->n_sizes < BENCH_MAX_FILTERS)
            o->sizes[o->n_sizes++] = argv[++i];
        else if (more && !strcmp(a, "--peer") && o->n_peers < BENCH_MAX_FILTERS)
            o->peers[o->n_peers++] = argv[++i];
        else if (more && !strcmp(a, "--peers-dir"))
            o->peers_dir = argv[++i];
        else if (more && !strcmp(a, "--python"))
            o->python = argv[++i];
        else if (more && !strcmp(a, "--threads")) {
            /* A comma-separated list; repeated options add to it. */
            char *s = argv[++i];
            while (*s) {
                char *end;
                long t = strtol(s, &end, 10);
                if (end == s || t < 1 || t > 1024 || (*end && *end != ',') || o->n_threads >= BENCH_MAX_FILTERS) {
                    fprintf(stderr, "bench_%s: bad --threads '%s'\n", family, argv[i]);
                    exit(2);
                }
                o->threads[o->n_threads++] = (int)t;
                s = *end ? end + 1 : end;
            }
        } else {
            fprintf(stderr, "bench_%s: unknown or incomplete option '%s'\n", family, a);
            usage(stderr, family);
            exit(2);
        }
    }
    if (!o->n_threads) {
        o->threads[0] = 1;
        o->threads[1] = 2;
        o->n_threads = 2;
    }
}

bool bench_peer_wanted(const bench_options *o, const char *name) {
    for (size_t i = 0; i < o->n_peers; i++)
        if (!strcmp(o->peers[i], name)) return true;
    return !o->n_peers;
}

bool bench_selected(const bench_options *o, const char *kernel, const char *shape) {
    bool k = !o->n_kernels, s = !o->n_sizes;
    for (size_t i = 0; i < o->n_kernels && !k; i++) k = !strcmp(o->kernels[i], kernel);
    for (size_t i = 0; i < o->n_sizes && !s; i++) s = strstr(shape, o->sizes[i]) != NULL;
    return k && s;
}

/* ---------------------------------------------------------------- helpers */

double bench_now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

void bench_json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

char *bench_json_quote(char *buf, size_t size, const char *s) {
    bench_appendf(buf, size, "\"");
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\')
            bench_appendf(buf, size, "\\%c", *p);
        else if (*p < 0x20)
            bench_appendf(buf, size, "\\u%04x", *p);
        else
            bench_appendf(buf, size, "%c", *p);
    }
    return bench_appendf(buf, size, "\"");
}

char *bench_appendf(char *buf, size_t size, const char *fmt, ...) {
    size_t len = strlen(buf);
    if (len + 1 >= size) return buf;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, size - len, fmt, ap);
    va_end(ap);
    return buf;
}

void bench_peer_preset(bench_peer *p, const char *name, bench_status s, const char *fmt, ...) {
    memset(p, 0, sizeof *p);
    p->name = name;
    p->preset = s;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->message, sizeof p->message, fmt, ap);
    va_end(ap);
}

void bench_diag_message(tilec_context *ctx, char *buf, size_t size) {
    buf[0] = 0;
    for (size_t i = 0; i < tilec_diag_count(ctx); i++) {
        const tilec_diag *d = tilec_diag_at(ctx, i);
        bench_appendf(buf, size, "%s%s: %s", i ? "; " : "", d->code ? d->code : tilec_status_name(d->status),
                      d->message ? d->message : "");
    }
    if (!buf[0]) snprintf(buf, size, "failed without a diagnostic");
    tilec_diag_clear(ctx);
}

char *bench_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = 2 * cap + 8192;
            char *grown = realloc(buf, cap);
            if (!grown) break;
            buf = grown;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) break;
    }
    bool ok = buf && !ferror(f);
    fclose(f);
    if (!ok) {
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    if (len) *len = n;
    return buf;
}

void bench_fill_uniform(float *x, size_t n, uint64_t seed) {
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) {
        /* splitmix64: a fixed, platform-independent sequence. */
        uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        x[i] = (float)((double)(z >> 40) / (double)(1ull << 23) - 1.0); /* 24 bits: exact in f32 */
    }
}

void *bench_alloc(size_t bytes) {
    size_t rounded = (bytes + 63) / 64 * 64;
    void *p = aligned_alloc(64, rounded ? rounded : 64);
    if (!p) {
        fprintf(stderr, "bench: out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

float *bench_alloc_floats(size_t n) {
    return bench_alloc(n * sizeof(float));
}

void bench_fill_nan(float *x, size_t n) {
    for (size_t i = 0; i < n; i++) x[i] = NAN;
}

void bench_round_bf16(float *x, uint16_t *bits, size_t n) {
    for (size_t i = 0; i < n; i++) {
        bits[i] = bench_bf16_round(x[i]);
        x[i] = bench_bf16_widen(bits[i]);
    }
}

/* ---------------------------------------------------------------- tilec */

tir_module *bench_parse_example(tilec_context *ctx, const char *name, const tir_define *defines, size_t n_defines,
                                int threads, char *chosen, size_t chosen_size, const tir_func **f, char *err,
                                size_t errlen) {
    return bench_parse_example_as(ctx, name, NULL, NULL, defines, n_defines, threads, chosen, chosen_size, f, err,
                                  errlen);
}

tir_module *bench_parse_example_as(tilec_context *ctx, const char *name, const char *from, const char *to,
                                   const tir_define *defines, size_t n_defines, int threads, char *chosen,
                                   size_t chosen_size, const tir_func **f, char *err, size_t errlen) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.tir", TILEC_EXAMPLES_DIR, name);
    size_t len;
    char *text = bench_read_file(path, &len);
    if (!text) { /* the decoder's kernels (bench/gemv.c) */
        snprintf(path, sizeof path, "%s/%s.tir", TILEC_MODELS_DIR, name);
        text = bench_read_file(path, &len);
    }
    const char *at = text && from ? strstr(text, from) : NULL;
    if (at) { /* the variant: the first `from` replaced by `to` */
        size_t head = (size_t)(at - text), n_from = strlen(from), n_to = strlen(to);
        char *edited = malloc(len - n_from + n_to + 1);
        if (edited) {
            memcpy(edited, text, head);
            memcpy(edited + head, to, n_to);
            memcpy(edited + head + n_to, at + n_from, len - head - n_from + 1);
            len = len - n_from + n_to;
        }
        free(text);
        text = edited;
    } else if (text && from) {
        snprintf(err, errlen, "%s has no '%s' to replace", path, from);
        free(text);
        return NULL;
    }
    *f = NULL;
    if (chosen_size) chosen[0] = 0;
    if (!text) {
        snprintf(err, errlen, "cannot read %s", path);
        return NULL;
    }
    enum { MAX_PICKED = 8 };
    tilec_chosen picked[MAX_PICKED];
    size_t n_picked = 0;
    tir_define *all = malloc(sizeof *all * (n_defines + MAX_PICKED));
    tilec_status s = all ? TILEC_OK : TILEC_E_NOMEM;
    if (all) memcpy(all, defines, n_defines * sizeof *defines);
    if (all && threads > 0) { /* the open chosen parameters, for these workers (docs/tir.md "Chosen parameters") */
        tilec_compile_options o = tilec_compile_options_default();
        o.threads = (uint32_t)threads;
        tilec_choose_options co = {.why = chosen, .why_size = chosen_size};
        s = tilec_choose_params(ctx, text, len, path, name, defines, n_defines, &o, &co, picked, MAX_PICKED, &n_picked);
        for (size_t i = 0; i < n_picked; i++) all[n_defines + i] = (tir_define){picked[i].name, picked[i].value};
    }
    tir_module *m = NULL;
    if (s == TILEC_OK) s = tir_parse(ctx, text, len, path, all, n_defines + n_picked, &m);
    free(all);
    free(text);
    *f = s == TILEC_OK && m ? tir_module_find_func(m, name) : NULL;
    if (!*f) {
        bench_diag_message(ctx, err, errlen);
        tir_module_destroy(m);
        return NULL;
    }
    return m;
}

static struct {
    int threads;
    tilec_runtime *rt;
} runtimes[BENCH_MAX_FILTERS];
static uint32_t tilec_width;

tilec_runtime *bench_runtime(tilec_context *ctx, int threads) {
    size_t i = 0;
    for (; i < BENCH_MAX_FILTERS && runtimes[i].rt; i++)
        if (runtimes[i].threads == threads) return runtimes[i].rt;
    if (i == BENCH_MAX_FILTERS || tilec_runtime_create(ctx, (uint32_t)threads, &runtimes[i].rt) != TILEC_OK)
        return NULL;
    runtimes[i].threads = threads;
    return runtimes[i].rt;
}

void bench_runtimes_destroy(void) {
    for (size_t i = 0; i < BENCH_MAX_FILTERS && runtimes[i].rt; i++) {
        tilec_runtime_destroy(runtimes[i].rt);
        runtimes[i].rt = NULL;
    }
}

uint32_t bench_tilec_width(void) {
    return tilec_width;
}

static bool tilec_run(void *state, char *err, size_t errlen) {
    bench_tilec *t = state;
    if (tilec_dispatch_dims(t->ctx, t->kernel, t->n_args, t->args, t->n_dims, t->dims) == TILEC_OK) return true;
    bench_diag_message(t->ctx, err, errlen);
    return false;
}

/* Compiles f with `order` (NULL: planned) as peer `name` running args. */
static bool tilec_peer(bench_tilec *t, bench_peer *p, const char *name, tilec_context *ctx, const tir_func *f,
                       int threads, const uint32_t *order, size_t order_len, const tilec_buffer *args, size_t n) {
    memset(t, 0, sizeof *t);
    memset(p, 0, sizeof *p);
    p->name = name;
    tilec_runtime *rt = bench_runtime(ctx, threads);
    if (!rt) {
        bench_diag_message(ctx, p->message, sizeof p->message);
        p->preset = BENCH_ERROR;
        return false;
    }
    tilec_compile_options o = tilec_compile_options_default();
    o.runtime = rt;
    o.root_axis_order = order;
    o.root_axis_order_len = order_len;
    if (n > sizeof t->args / sizeof t->args[0] || tilec_compile(ctx, f, &o, &t->kernel) != TILEC_OK) {
        bench_diag_message(ctx, p->message, sizeof p->message);
        p->preset = BENCH_ERROR;
        return false;
    }
    t->ctx = ctx;
    memcpy(t->args, args, n * sizeof *args);
    t->n_args = n;
    t->times = tilec_kernel_compile_times(t->kernel);
    p->state = t;
    p->run = tilec_run;
    return true;
}

/* The rank of f's root parallel (0: none). */
static uint32_t root_rank(const tir_func *f) {
    for (const tir_op *op = tir_block_first(tir_func_body(f)); op; op = tir_op_next(op))
        if (tir_op_kind_of(op) == TIR_OP_PARALLEL) return (uint32_t)tir_space_rank(tir_op_domain(op));
    return 0;
}

void bench_tilec_controls(bench_tilec t[BENCH_CONTROLS], bench_peer p[BENCH_CONTROLS], tilec_context *ctx,
                          const tir_func *f, int threads, const tilec_buffer *args, size_t n) {
    static const char *const names[BENCH_CONTROLS] = {"tilec-canonical", "tilec-reversed"};
    uint32_t rank = f ? root_rank(f) : 0, order[64];
    for (int c = 0; c < BENCH_CONTROLS; c++) {
        memset(&t[c], 0, sizeof t[c]);
        if (!f) {
            bench_peer_preset(&p[c], names[c], BENCH_ERROR, "no kernel (see tilec's cell)");
        } else if (rank < 2 || rank > 64) {
            bench_peer_preset(&p[c], names[c], BENCH_SKIPPED, "%s", rank < 2 ? "one root axis: the only order is the planner's"
                                                                              : "more than 64 root axes");
        } else {
            for (uint32_t a = 0; a < rank; a++) order[a] = c ? rank - 1 - a : a;
            tilec_peer(&t[c], &p[c], names[c], ctx, f, threads, order, rank, args, n);
        }
        p[c].control = true;
    }
}

bool bench_tilec_setup(bench_tilec *t, bench_peer *p, tilec_context *ctx, const tir_func *f, int threads,
                       const tilec_buffer *args, size_t n, char *extra_json, size_t extra_size) {
    if (!tilec_peer(t, p, "tilec", ctx, f, threads, NULL, 0, args, n)) return false;
    tilec_width = tilec_kernel_width(t->kernel);
    bench_appendf(extra_json, extra_size, "%s\"tilec_realization\": ", *extra_json ? ", " : "");
    bench_json_quote(extra_json, extra_size, tilec_kernel_realization(t->kernel));
    return true;
}

void bench_tilec_release(bench_tilec *t) {
    tilec_kernel_destroy(t->kernel);
    t->kernel = NULL;
}

void bench_tilec_controls_release(bench_tilec t[BENCH_CONTROLS]) {
    for (int c = 0; c < BENCH_CONTROLS; c++) bench_tilec_release(&t[c]);
}

/* text with the kernel header's `name=DEFAULT` declared `name: 1..hi`
 * (malloc'd), or NULL when the header has no such parameter. */
static char *ranged_text(const char *text, const char *name, int64_t hi) {
    const char *header = strstr(text, "\nkernel @"), *at = header ? strchr(header, '<') : NULL;
    size_t n = strlen(name);
    while (at && *at != '>' && !(strncmp(at + 1, name, n) == 0 && at[1 + n] == '=' && (*at == '<' || *at == ' ')))
        at++;
    if (!at || *at == '>') return NULL;
    const char *end = at + 1 + n;
    while (*end && *end != ',' && *end != '>') end++;
    size_t size = strlen(text) + 64;
    char *out = malloc(size);
    if (out) snprintf(out, size, "%.*s%s: 1..%lld%s", (int)(at + 1 - text), text, name, (long long)hi, end);
    return out;
}

void bench_tilec_dynamic(bench_tilec *t, bench_peer *p, tilec_context *ctx, const char *name,
                         const tir_define *defines, size_t n_defines, size_t dynamic, int64_t hi, int threads,
                         const tilec_buffer *args, size_t n) {
    char path[1024], err[512] = "";
    snprintf(path, sizeof path, "%s/%s.tir", TILEC_EXAMPLES_DIR, name);
    size_t len;
    char *text = bench_read_file(path, &len), *ranged = text ? ranged_text(text, defines[dynamic].name, hi) : NULL;
    tir_define pinned[16];
    size_t m = 0;
    for (size_t i = 0; i < n_defines && m < 16; i++)
        if (i != dynamic) pinned[m++] = defines[i];
    tir_module *mod = NULL;
    const tir_func *f = NULL;
    if (ranged && tir_parse(ctx, ranged, strlen(ranged), path, pinned, m, &mod) == TILEC_OK)
        f = tir_module_find_func(mod, name);
    else if (!ranged)
        snprintf(err, sizeof err, "%s.tir has no shape parameter %s to make a runtime size", name, defines[dynamic].name);
    else
        bench_diag_message(ctx, err, sizeof err);
    if (f && tilec_peer(t, p, "tilec-dynamic", ctx, f, threads, NULL, 0, args, n)) {
        t->dims[0] = defines[dynamic].value;
        t->n_dims = 1;
    } else if (!f) {
        bench_peer_preset(p, "tilec-dynamic", BENCH_ERROR, "%s", err);
    }
    p->control = true;
    tir_module_destroy(mod); /* the kernel borrows nothing from it */
    free(ranged);
    free(text);
}

/* ---------------------------------------------------------------- JSON document */

static void cpu_name(char *buf, size_t size) {
    snprintf(buf, size, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!strncmp(line, "model name", 10) && colon) {
            colon += 1 + (colon[1] == ' ');
            colon[strcspn(colon, "\n")] = 0;
            snprintf(buf, size, "%s", colon);
            break;
        }
    }
    fclose(f);
}

void bench_doc_begin(bench_doc *d, const char *family, const bench_options *o) {
    d->out = stdout;
    d->family = family;
    d->rows = 0;
    d->sweeps = NULL;
    char host[256] = "unknown", cpu[256];
    gethostname(host, sizeof host - 1);
    cpu_name(cpu, sizeof cpu);
    FILE *f = d->out;
    fprintf(f, "{\"family\": ");
    bench_json_string(f, family);
    fprintf(f, ",\n \"host\": ");
    bench_json_string(f, host);
    fprintf(f, ", \"cpu\": ");
    bench_json_string(f, cpu);
    fprintf(f, ", \"cores_online\": %ld,\n", sysconf(_SC_NPROCESSORS_ONLN));
    fprintf(f,
            " \"protocol\": {\"rounds\": %d, \"order\": \"ABBA\", \"warmup_ms\": %g, \"round_ms\": %g, "
            "\"max_reps\": %llu, \"sample\": \"one batch of reps back-to-back dispatches per visit\", "
            "\"round_time\": \"mean of the forward and backward visit\", "
            "\"check\": \"full output vs FP64 before timing; |got-expected| <= atol + rtol*|expected|\"},\n",
            o->rounds, o->warmup_ms, o->round_ms, (unsigned long long)o->max_reps);
    /* The environment that changes what the peers do (thread counts, wait
     * policy, OpenBLAS kernels, tilec width and host description), null when
     * unset. */
    static const char *vars[] = {"OMP_WAIT_POLICY", "OMP_NUM_THREADS", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE",
                                 "OPENBLAS_NUM_THREADS", "TILEC_THREADS", "TILEC_SIMD_WIDTH", "TILEC_HOST"};
    fprintf(f, " \"env\": {");
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        fprintf(f, "%s\"%s\": ", i ? ", " : "", vars[i]);
        if (v)
            bench_json_string(f, v);
        else
            fprintf(f, "null");
    }
    fprintf(f, "},\n \"rows\": [");
    fflush(f);
}

void bench_doc_sweep(bench_doc *d, const char *json_object) {
    size_t have = d->sweeps ? strlen(d->sweeps) : 0, n = strlen(json_object);
    char *s = realloc(d->sweeps, have + n + 4);
    if (!s) {
        fprintf(stderr, "bench: out of memory\n");
        exit(1);
    }
    snprintf(s + have, n + 4, "%s%s", have ? ",\n " : "", json_object);
    d->sweeps = s;
}

void bench_doc_end(bench_doc *d, size_t n_peers, const char *const *names, const char *const *versions) {
    fprintf(d->out, "%s],\n", d->rows ? "\n " : "");
    if (d->sweeps) fprintf(d->out, " \"sweeps\": [%s],\n", d->sweeps);
    free(d->sweeps);
    d->sweeps = NULL;
    fprintf(d->out, " \"tilec_width\": %u, \"peer_versions\": {", bench_tilec_width());
    for (size_t i = 0; i < n_peers; i++) {
        fprintf(d->out, "%s", i ? ", " : "");
        bench_json_string(d->out, names[i]);
        fprintf(d->out, ": ");
        bench_json_string(d->out, versions[i]);
    }
    fprintf(d->out, "}}\n");
    fflush(d->out);
}

/* ---------------------------------------------------------------- the protocol */

typedef struct {
    bench_status status;
    char message[512];
    double max_abs_err;
    bool checked;
    uint64_t reps;
    double call_us;                    /* per dispatch, from the calibration */
    double round_us[BENCH_MAX_ROUNDS]; /* per dispatch, mean of the two visits */
    double visit_sum;                  /* this round's visits so far */
} peer_result;

static const char *status_name(bench_status s) {
    static const char *names[] = {"ok", "error", "mismatch", "skipped"};
    return names[s];
}

/* µs for `reps` dispatches of p, or < 0 with err set. */
static double time_batch(bench_peer *p, uint64_t reps, char *err, size_t errlen) {
    if (p->run_batch) return p->run_batch(p->state, reps, err, errlen);
    double t0 = bench_now_us();
    for (uint64_t i = 0; i < reps; i++)
        if (!p->run(p->state, err, errlen)) return -1;
    return bench_now_us() - t0;
}

/* Runs p once and compares the output with the FP64 reference (a bf16
 * output through its exact widening in scratch, an i32 one exactly). */
static void check_peer(const bench_row *row, bench_peer *p, peer_result *r, float *scratch) {
    uint16_t *bits = row->out_bf16 ? row->out : NULL;
    int32_t *ints = row->out_i32 && !p->check ? row->out : NULL;
    float *out = p->check || bits || ints ? scratch : row->out;
    bench_fill_nan(out, row->out_len);
    for (size_t i = 0; bits && !p->check && i < row->out_len; i++) bits[i] = 0x7FC0; /* NaN */
    for (size_t i = 0; ints && i < row->out_len; i++) ints[i] = INT32_MIN; /* no expected value is */
    bool ran = p->check ? p->check(p->state, out, row->out_len, r->message, sizeof r->message)
                        : p->run(p->state, r->message, sizeof r->message);
    if (!ran) {
        r->status = BENCH_ERROR;
        return;
    }
    for (size_t i = 0; bits && !p->check && i < row->out_len; i++) out[i] = bench_bf16_widen(bits[i]);
    size_t bad = 0, first = 0;
    double max_err = 0;
    for (size_t i = 0; i < row->out_len; i++) {
        double e = row->expected[i], err = fabs((ints ? (double)ints[i] : (double)out[i]) - e);
        if (!(err <= row->atol + row->rtol * fabs(e))) {
            if (!bad++) first = i;
        }
        if (!(err <= max_err)) max_err = err; /* NaN propagates to max_err */
    }
    r->checked = true;
    r->max_abs_err = max_err;
    if (bad) {
        r->status = BENCH_MISMATCH;
        snprintf(r->message, sizeof r->message,
                 "%zu of %zu elements outside atol=%g rtol=%g; first at %zu: got %.9g, expected %.9g", bad,
                 row->out_len, row->atol, row->rtol, first, ints ? (double)ints[first] : (double)out[first],
                 row->expected[first]);
    }
}

/* Warmup, then repetitions so one sample takes >= round_ms (at most a few
 * attempts, capped at max_reps).  Returns false with r->message on failure. */
static bool calibrate(const bench_options *o, bench_peer *p, peer_result *r) {
    double target = o->round_ms * 1e3, start = bench_now_us(), t = 0;
    uint64_t reps = 1;
    do { /* at least one warmup batch; doubling batches also estimate the cost */
        if ((t = time_batch(p, reps, r->message, sizeof r->message)) < 0) return false;
        if (2 * reps <= o->max_reps && bench_now_us() - start + 2 * t < o->warmup_ms * 1e3) reps *= 2;
    } while (bench_now_us() - start < o->warmup_ms * 1e3);
    for (int attempt = 0; attempt < 8 && t < 0.8 * target && reps < o->max_reps; attempt++) {
        double scale = target / fmax(t, 1e-3);
        uint64_t next = (uint64_t)ceil((double)reps * fmin(scale, 1e6));
        reps = next > reps ? next : reps + 1;
        if (reps > o->max_reps) reps = o->max_reps;
        if ((t = time_batch(p, reps, r->message, sizeof r->message)) < 0) return false;
    }
    r->reps = reps;
    r->call_us = t / (double)reps;
    return true;
}

/* A planner control slower than this many times the pick is not timed:
 * its rounds would dominate the row (gemm 4096³ in the canonical order runs
 * 11× the pick), and the calibration already says the pick wins. */
enum { CONTROL_MAX_SLOWDOWN = 4 };

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct {
    double median, min, max;
} spread;

static spread spread_of(const double *v, int n) {
    double s[BENCH_MAX_ROUNDS];
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, compare_doubles);
    spread r = {n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]), s[0], s[n - 1]};
    return r;
}

/* One visit: a sample of r->reps dispatches; a failing peer leaves the row. */
static void visit(bench_peer *p, peer_result *r) {
    if (r->status != BENCH_OK) return;
    double t = time_batch(p, r->reps, r->message, sizeof r->message);
    if (t < 0)
        r->status = BENCH_ERROR;
    else
        r->visit_sum += t / (double)r->reps;
}

/* ", "key": value" with null for NaN/inf (JSON has no such numbers). */
static void json_number(FILE *f, const char *key, double v, const char *fmt) {
    fprintf(f, ", \"%s\": ", key);
    if (isfinite(v))
        fprintf(f, fmt, v);
    else
        fprintf(f, "null");
}

static void print_row(bench_doc *d, const bench_row *row, peer_result *res, int rounds) {
    FILE *f = d->out;
    fprintf(f, "%s\n  {\"kernel\": ", d->rows++ ? "," : "");
    bench_json_string(f, row->kernel);
    fprintf(f, ", \"shape\": ");
    bench_json_string(f, row->shape);
    fprintf(f, ", \"threads\": %d, \"unit\": ", row->threads);
    bench_json_string(f, row->unit);
    fprintf(f, ", \"work\": %.0f", row->work);
    if (row->work_note) {
        fprintf(f, ", \"work_note\": ");
        bench_json_string(f, row->work_note);
    }
    fprintf(f, ", \"atol\": %g, \"rtol\": %g", row->atol, row->rtol);
    if (row->extra_json && *row->extra_json) fprintf(f, ", %s", row->extra_json);
    fprintf(f, ",\n   \"peers\": [");
    const char *best = NULL;
    double best_us = INFINITY;
    for (size_t i = 0; i < row->n_peers; i++) {
        peer_result *r = &res[i];
        fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
        bench_json_string(f, row->peers[i].name);
        fprintf(f, ", \"status\": \"%s\"", status_name(r->status));
        if (r->status == BENCH_OK) {
            spread s = spread_of(r->round_us, rounds);
            fprintf(f, ", \"median_us\": %.4f, \"min_us\": %.4f, \"max_us\": %.4f, \"throughput\": %.4f, \"reps\": %llu",
                    s.median, s.min, s.max, row->work / s.median * 1e-3, (unsigned long long)r->reps);
            if (i > 0 && !row->peers[i].bound && !row->peers[i].control && s.median < best_us)
                best_us = s.median, best = row->peers[i].name;
        } else {
            fprintf(f, ", \"message\": ");
            bench_json_string(f, r->message);
        }
        if (r->checked) json_number(f, "max_abs_err", r->max_abs_err, "%.3g");
        if (row->peers[i].bound) fprintf(f, ", \"bound\": true");
        if (row->peers[i].control) fprintf(f, ", \"control\": true");
        if (row->peers[i].compile_ms > 0) json_number(f, "compile_ms", row->peers[i].compile_ms, "%.1f");
        fprintf(f, "}");
    }
    fprintf(f, "],\n   \"ratios\": [");
    double best_ratio = NAN, bound_ratio = NAN;
    size_t n_ratios = 0;
    for (size_t i = 1; i < row->n_peers && res[0].status == BENCH_OK; i++) {
        if (res[i].status != BENCH_OK) continue;
        double ratio[BENCH_MAX_ROUNDS];
        for (int k = 0; k < rounds; k++) ratio[k] = res[0].round_us[k] / res[i].round_us[k];
        spread s = spread_of(ratio, rounds);
        fprintf(f, "%s{\"peer\": ", n_ratios++ ? ", " : "");
        bench_json_string(f, row->peers[i].name);
        fprintf(f, ", \"median\": %.4f, \"min\": %.4f, \"max\": %.4f}", s.median, s.min, s.max);
        if (best && !strcmp(best, row->peers[i].name)) best_ratio = s.median;
        if (row->peers[i].bound) bound_ratio = s.median;
    }
    fprintf(f, "],\n   \"best_peer\": ");
    if (best)
        bench_json_string(f, best);
    else
        fprintf(f, "null");
    json_number(f, "ratio_to_best", best_ratio, "%.4f");
    json_number(f, "ratio_to_bound", bound_ratio, "%.4f");
    fprintf(f, ",\n   \"compile_ms\": ");
    if (row->compile)
        fprintf(f,
                "{\"verify\": %.3f, \"plan\": %.3f, \"lower\": %.3f, \"llvm\": %.3f, \"jit\": %.3f, "
                "\"optimize\": %.3f, \"codegen\": %.3f, \"total\": %.3f}",
                row->compile->verify, row->compile->plan, row->compile->lower, row->compile->llvm, row->compile->jit,
                row->compile->optimize, row->compile->codegen, row->compile->total);
    else
        fprintf(f, "null");
    fprintf(f, "}");
    fflush(f);
}

void bench_run_row(bench_doc *d, const bench_options *o, const bench_row *all) {
    /* the peers --peer leaves out are not part of the row */
    bench_row kept = *all, *row = &kept;
    bench_peer *peers = malloc(all->n_peers * sizeof *peers);
    peer_result *res = calloc(all->n_peers, sizeof *res);
    if (!res || !peers) {
        fprintf(stderr, "bench: out of memory\n");
        exit(1);
    }
    kept.peers = peers;
    kept.n_peers = 0;
    for (size_t i = 0; i < all->n_peers; i++)
        if (i == 0 || all->peers[i].bound || bench_peer_wanted(o, all->peers[i].name))
            peers[kept.n_peers++] = all->peers[i];
    float *scratch = bench_alloc_floats(row->out_len);
    if (!res) {
        fprintf(stderr, "bench: out of memory\n");
        exit(1);
    }
    char tag[256];
    if (!strcmp(d->family, row->kernel))
        snprintf(tag, sizeof tag, "[%s %s t=%d]", row->kernel, row->shape, row->threads);
    else
        snprintf(tag, sizeof tag, "[%s %s %s t=%d]", d->family, row->kernel, row->shape, row->threads);

    /* 1. Check every peer before anything is timed. */
    for (size_t i = 0; i < row->n_peers; i++) {
        bench_peer *p = &row->peers[i];
        res[i].status = p->preset;
        if (p->preset != BENCH_OK) {
            snprintf(res[i].message, sizeof res[i].message, "%s", p->message);
        } else if (p->bound) { /* computes nothing of the row: nothing to check */
        } else if (row->no_reference) { /* nothing can be checked, so nothing is timed */
            res[i].status = BENCH_ERROR;
            snprintf(res[i].message, sizeof res[i].message, "not run: no FP64 reference (%s)", row->no_reference);
        } else {
            check_peer(row, p, &res[i], scratch);
        }
    }
    /* 2. Warmup and calibration. */
    for (size_t i = 0; i < row->n_peers; i++)
        if (res[i].status == BENCH_OK && !calibrate(o, &row->peers[i], &res[i])) res[i].status = BENCH_ERROR;
    for (size_t i = 1; i < row->n_peers; i++)
        if (row->peers[i].control && res[i].status == BENCH_OK && res[0].status == BENCH_OK &&
            res[i].call_us > CONTROL_MAX_SLOWDOWN * res[0].call_us) {
            res[i].status = BENCH_SKIPPED;
            snprintf(res[i].message, sizeof res[i].message,
                     "not timed: %.0f us per call in calibration, over %dx the pick's %.0f us", res[i].call_us,
                     CONTROL_MAX_SLOWDOWN, res[0].call_us);
        }
    /* 3. ABBA rounds. */
    for (int k = 0; k < o->rounds; k++) {
        for (size_t i = 0; i < row->n_peers; i++) res[i].visit_sum = 0;
        for (size_t i = 0; i < row->n_peers; i++) visit(&row->peers[i], &res[i]);
        for (size_t i = row->n_peers; i-- > 0;) visit(&row->peers[i], &res[i]);
        for (size_t i = 0; i < row->n_peers; i++) res[i].round_us[k] = res[i].visit_sum / 2;
    }
    /* 4. Progress and the JSON row. */
    for (size_t i = 0; i < row->n_peers; i++) {
        if (res[i].status == BENCH_OK) {
            spread s = spread_of(res[i].round_us, o->rounds);
            fprintf(stderr, "%s %-11s %12.2f us  %9.2f %s", tag, row->peers[i].name, s.median,
                    row->work / s.median * 1e-3, row->unit);
            if (i > 0 && res[0].status == BENCH_OK) {
                double ratio[BENCH_MAX_ROUNDS];
                for (int k = 0; k < o->rounds; k++) ratio[k] = res[0].round_us[k] / res[i].round_us[k];
                fprintf(stderr, "  tilec/%s %.3f", row->peers[i].name, spread_of(ratio, o->rounds).median);
            }
            fprintf(stderr, "  (reps %llu)\n", (unsigned long long)res[i].reps);
        } else {
            fprintf(stderr, "%s %-11s %s: %s\n", tag, row->peers[i].name, status_name(res[i].status),
                    res[i].message);
        }
    }
    print_row(d, row, res, o->rounds);
    free(scratch);
    free(res);
    free(peers);
}
