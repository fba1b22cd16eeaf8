/* tune.c — `tilec tune FILE.tir`: the planner's pick against the mappings
 * it passed over, measured on this machine (its top-1 regret).
 *
 * The kernel is compiled with the given options (the planner's pick), then
 * once per alternative mapping: every root order (up to 24) with one
 * program per lane and packet-local (the other settings planned), each
 * timed as `tilec bench` times (warm, 7 rounds, median).  Mappings whose
 * plan token repeats an earlier one are timed once.  Prints one line per
 * mapping (with the cost model's score relative to the pick's, the
 * calibration's raw material) and the pick's regret: its time over the
 * fastest's (1 = the planner chose the best it could have).  With --fit
 * PROFILE the mappings' cost terms and times join PROFILE's samples and the
 * coefficients are refitted (write_profile); --profile loads them.
 *
 * With --param NAME=V1,V2,... (repeatable), it tunes kernel parameters
 * instead: every combination of the values (at most MAX_COMBINATIONS),
 * each compiled with the planner's pick and timed the same way, then the
 * fastest.  Results are cached in <the kernel cache's directory>/tune.tsv,
 * one line per measurement keyed by a hash of the tilec build, the CPU, the
 * command line, the file's text and the combination; a cached combination
 * is printed `(cached)` and not timed again.  The file is read and appended
 * only as the user's own regular file (tilec_cache_open): never through a
 * symlink planted in its place. */
#include "native.h"
#include "base/file.h"
#include "base/hash.h"
#include "base/host.h"
#include "base/permutation.h"
#include "tilec/cache.h"

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_MAPPINGS = 64 };

/* The cost terms a fit weighs: the realization's cost_<term> items (at the
 * default coefficients), and the cache lines per level per active worker
 * (cache_lines_l<N> / active_workers: the cache term's coefficients are 0
 * until fitted, so its lines are fitted directly). */
#define FIT_TERMS(X) X(arithmetic) X(memory) X(dispatch) X(task) X(activation) X(l1) X(l2) X(l3)
enum {
#define X(t) TERM_##t,
    FIT_TERMS(X)
#undef X
    TERM_COUNT
};

typedef struct {
    char plan[256];
    double median_us;
    double score;             /* the cost model's score of the mapping (cost_score) */
    double terms[TERM_COUNT]; /* its cost terms (cost_<term>) */
    uint32_t width;
} mapping;

/* The number after "key=" in a realization line (0 when absent). */
static double item(const char *text, const char *key) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "%s=", key);
    const char *at = strstr(text, pattern);
    return at ? strtod(at + strlen(pattern), NULL) : 0;
}

/* The `plan=` item of a realization line. */
static void plan_token(const char *realization, char *out, size_t size) {
    const char *at = strstr(realization, "plan=");
    size_t n = at ? strcspn(at + 5, ";") : 0;
    snprintf(out, size, "%.*s", (int)n, at ? at + 5 : "?");
}

/* Compiles f with o and times it; false (diagnostics printed) on failure. */
static bool measure(tilec_context *ctx, const tir_func *f, const tilec_compile_options *o, const cli_args *a,
                    mapping *m) {
    tilec_kernel *k = cli_native_compile(ctx, o, f, NULL);
    double per[CLI_TIME_ROUNDS];
    uint64_t reps;
    bool ok = k && cli_time_kernel(ctx, k, a, per, &reps);
    if (ok) {
        plan_token(tilec_kernel_realization(k), m->plan, sizeof m->plan);
        m->median_us = per[CLI_TIME_ROUNDS / 2];
        m->width = tilec_kernel_width(k);
        const char *r = tilec_kernel_plan_realization(k);
        m->score = item(r, "cost_score");
        m->terms[TERM_arithmetic] = item(r, "cost_arithmetic");
        m->terms[TERM_memory] = item(r, "cost_memory");
        m->terms[TERM_dispatch] = item(r, "cost_dispatch");
        m->terms[TERM_task] = item(r, "cost_task");
        m->terms[TERM_activation] = item(r, "cost_activation");
        double h = item(r, "active_workers") > 0 ? item(r, "active_workers") : 1;
        m->terms[TERM_l1] = item(r, "cache_lines_l1") / h;
        m->terms[TERM_l2] = item(r, "cache_lines_l2") / h;
        m->terms[TERM_l3] = item(r, "cache_lines_l3") / h;
    }
    tilec_kernel_destroy(k);
    return ok;
}

/* The rank of f's root parallel (0: none). */
static uint32_t root_rank(const tir_func *f) {
    for (const tir_op *op = tir_block_first(tir_func_body(f)); op; op = tir_op_next(op))
        if (tir_op_kind_of(op) == TIR_OP_PARALLEL) return (uint32_t)tir_space_rank(tir_op_domain(op));
    return 0;
}

/* ---- --fit: the cost coefficients fitted to measured mappings ---- */

enum { MAX_SAMPLES = 4096, FIT_SWEEPS = 2000 };

typedef struct {
    double us, terms[TERM_COUNT];
} sample;

/* Non-negative weights m minimizing Σ_s (Σ_k m_k·terms_sk / us_s − 1)²
 * (relative errors: kernels differ by orders of magnitude), by cyclic
 * coordinate descent, returned relative to arithmetic's weight (or, when
 * that fits to 0, to the mean positive weight); a term no sample has (task
 * and activation on one worker) takes the reference weight, keeping its
 * default coefficient, a cache level no sample fetches from stays 0. */
static void fit_weights(const sample *s, size_t n, double m[TERM_COUNT]) {
    double norm[TERM_COUNT] = {0};
    for (int k = 0; k < TERM_COUNT; k++) {
        m[k] = 0;
        for (size_t i = 0; i < n; i++) norm[k] += (s[i].terms[k] / s[i].us) * (s[i].terms[k] / s[i].us);
    }
    for (int sweep = 0; sweep < FIT_SWEEPS; sweep++)
        for (int k = 0; k < TERM_COUNT; k++) {
            if (norm[k] <= 0) continue;
            double g = 0;
            for (size_t i = 0; i < n; i++) {
                double pred = 0;
                for (int j = 0; j < TERM_COUNT; j++) pred += m[j] * s[i].terms[j] / s[i].us;
                g += (s[i].terms[k] / s[i].us) * (1 - pred);
            }
            m[k] = m[k] + g / norm[k] > 0 ? m[k] + g / norm[k] : 0;
        }
    /* the reference weight: arithmetic's, else the mean of the positive ones */
    double ref = m[TERM_arithmetic], sum = 0;
    int positive = 0;
    for (int k = 0; k < TERM_COUNT; k++)
        if (norm[k] > 0 && m[k] > 0) sum += m[k], positive++;
    if (ref <= 0) ref = positive ? sum / positive : 1;
    for (int k = 0; k < TERM_COUNT; k++)
        if (norm[k] <= 0) m[k] = k >= TERM_l1 ? 0 : ref;
    for (int k = 0; k < TERM_COUNT; k++) m[k] /= ref; /* relative to the reference: arithmetic's is 1 when fitted */
}

/* Reads the "# sample" lines of an earlier profile (none when absent). */
static size_t read_samples(const char *path, sample *s) {
    FILE *f = fopen(path, "r");
    char line[1024];
    size_t n = 0;
    while (f && n < MAX_SAMPLES && fgets(line, sizeof line, f)) {
        sample x;
        if (sscanf(line, "# sample %lf %lf %lf %lf %lf %lf %lf %lf %lf", &x.us, &x.terms[0], &x.terms[1],
                   &x.terms[2], &x.terms[3], &x.terms[4], &x.terms[5], &x.terms[6], &x.terms[7]) == 1 + TERM_COUNT &&
            x.us > 0)
            s[n++] = x;
    }
    if (f) fclose(f);
    return n;
}

/* Adds the mappings to the profile's samples, refits and rewrites it:
 * coefficient lines (the defaults scaled by their term's weight, over the
 * arithmetic weight; NAME=VALUE for each cost.NAME of the option table, as
 * --profile reads them), then every sample as a comment. */
static bool write_profile(tilec_context *ctx, const char *path, const char *kernel, const mapping *maps,
                          size_t count) {
    sample *s = calloc(MAX_SAMPLES, sizeof *s);
    if (!s) return cli_fail("tune", "out of memory fitting"), false;
    size_t n = read_samples(path, s), first_new = n;
    for (size_t i = 0; i < count && n < MAX_SAMPLES; i++) {
        s[n].us = maps[i].median_us;
        memcpy(s[n++].terms, maps[i].terms, sizeof maps[i].terms);
    }
    double m[TERM_COUNT];
    fit_weights(s, n, m);
    tilec_compile_options fitted = tilec_compile_options_default();
    tilec_cost_coefficients *c = &fitted.cost;
    c->arithmetic *= m[TERM_arithmetic];
    c->broadcast_load *= m[TERM_memory];
    c->contiguous_memory *= m[TERM_memory];
    c->gathered_lane *= m[TERM_memory];
    c->block_dispatch *= m[TERM_dispatch];
    c->task_dispatch *= m[TERM_task];
    c->worker_activation *= m[TERM_activation];
    c->l1_line = m[TERM_l1]; /* fitted on raw lines: the defaults are 0 */
    c->l2_line = m[TERM_l2];
    c->l3_line = m[TERM_l3];
    FILE *f = fopen(path, "w");
    if (!f) {
        free(s);
        return cli_fail("tune", "cannot write '%s'", path), false;
    }
    fprintf(f, "# tilec cost profile (`tilec tune --fit`): the default coefficients scaled by weights fitted to %zu\n"
               "# measured mappings (relative error); load it with --profile.  Term weights over arithmetic's:",
            n);
#define X(t) fprintf(f, " " #t " %.4g", m[TERM_##t]);
    FIT_TERMS(X)
#undef X
    fputc('\n', f);
    const tilec_option_info *info;
    for (size_t i = 0; (info = tilec_compile_option_info(i)); i++) {
        char value[64]; /* "%.17g": the coefficient exactly */
        if (!strncmp(info->name, "cost.", 5) &&
            tilec_compile_options_get(ctx, &fitted, info->name, value, sizeof value) == TILEC_OK)
            fprintf(f, "%s=%.6g\n", info->name + 5, strtod(value, NULL));
    }
    fprintf(f, "# sample us arithmetic memory dispatch task activation l1_lines l2_lines l3_lines\n");
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "# sample %.4f", s[i].us);
        for (int k = 0; k < TERM_COUNT; k++) fprintf(f, " %.6g", s[i].terms[k]);
        fprintf(f, i >= first_new ? " @%s %s\n" : "\n", kernel, i >= first_new ? maps[i - first_new].plan : "");
    }
    fclose(f);
    printf("fit: %zu samples (%zu new) -> %s; term weights over arithmetic's:", n, n - first_new, path);
#define X(t) printf(" " #t " %.3g", m[TERM_##t]);
    FIT_TERMS(X)
#undef X
    printf("\n");
    free(s);
    return true;
}

static int tune_kernel(tilec_context *ctx, const tir_func *f, const tilec_compile_options *pick_options,
                       const char *fit) {
    cli_args a;
    if (cli_args_create(ctx, f, &a) != TILEC_OK) return cli_fail_diags(ctx);
    for (size_t i = 0; i < a.count; i++) cli_args_fill_random(&a, i, 0);
    mapping *maps = calloc(MAX_MAPPINGS, sizeof *maps);
    size_t n = 0;
    int code = CLI_EXIT_FAIL;
    if (maps && measure(ctx, f, pick_options, &a, &maps[n])) {
        n++;
        uint32_t rank = root_rank(f), order[8];
        for (uint32_t i = 0; i < rank && i < 8; i++) order[i] = i;
        uint32_t orders = 0;
        do {
            for (uint32_t lanes = 1; lanes <= 2 && n < MAX_MAPPINGS; lanes++) {
                tilec_compile_options o = *pick_options;
                o.root_axis_order = rank <= 8 ? order : NULL;
                o.root_axis_order_len = rank <= 8 ? rank : 0;
                o.local_lanes = lanes == 1 ? 1 : maps[0].width; /* one program per lane, or packet-local */
                mapping m;
                if (!measure(ctx, f, &o, &a, &m)) {
                    tilec_diag_clear(ctx); /* a mapping the kernel cannot take: not a candidate */
                    continue;
                }
                bool seen = false;
                for (size_t i = 0; i < n && !seen; i++) seen = !strcmp(maps[i].plan, m.plan);
                if (!seen) maps[n++] = m;
            }
        } while (rank <= 8 && ++orders < 24 && permutation_next(order, rank));
        size_t best = 0;
        for (size_t i = 1; i < n; i++)
            if (maps[i].median_us < maps[best].median_us) best = i;
        printf("@%s: %zu mappings measured (median of %d rounds each); model: the cost model's score over the "
               "pick's\n",
               tir_func_name(f), n, CLI_TIME_ROUNDS);
        for (size_t i = 0; i < n; i++)
            printf("  %-64s %12.2f us  %5.2fx the fastest  model %5.2fx%s\n", maps[i].plan, maps[i].median_us,
                   maps[i].median_us / maps[best].median_us, maps[0].score ? maps[i].score / maps[0].score : 0,
                   i == 0 ? "  <- the planner's pick" : "");
        printf("regret: %.3f (the pick's time over the fastest mapping's)\n", maps[0].median_us / maps[best].median_us);
        code = !fit || write_profile(ctx, fit, tir_func_name(f), maps, n) ? CLI_EXIT_OK : CLI_EXIT_FAIL;
    }
    free(maps);
    cli_args_destroy(&a);
    return code;
}

/* ---- --param: the outer tuner ---- */

enum { MAX_VALUES = 32, MAX_COMBINATIONS = 256 };

typedef struct {
    char name[64];
    int64_t values[MAX_VALUES];
    uint32_t count;
} param;

/* NAME=V1,V2,... into p; a usage error (false) when malformed. */
static bool parse_param(const char *text, param *p) {
    const char *eq = strchr(text, '=');
    size_t n = (size_t)(eq - text);
    if (n >= sizeof p->name) return cli_usage_error("tune", "--param name '%.*s' is too long", (int)n, text), false;
    memcpy(p->name, text, n);
    p->name[n] = 0;
    p->count = 0;
    for (const char *at = eq + 1; *at;) {
        char *end;
        long long v = strtoll(at, &end, 10);
        if (end == at || (*end && *end != ',') || p->count == MAX_VALUES)
            return cli_usage_error("tune", "--param %s: '%s' is not a list of at most %d integers", p->name, eq + 1,
                                   MAX_VALUES),
                   false;
        p->values[p->count++] = v;
        at = *end ? end + 1 : end;
    }
    return true;
}

/* A cached measurement of `key` in `path`: true with *us and plan set. */
static bool cache_lookup(const char *path, const char *key, double *us, char *plan, size_t plan_size) {
    FILE *f = path ? tilec_cache_open(path, "r") : NULL;
    char line[512], k[32];
    bool found = false;
    while (f && !found && fgets(line, sizeof line, f)) {
        char p[256];
        found = sscanf(line, "%31s %lf %255s", k, us, p) == 3 && !strcmp(k, key);
        if (found) snprintf(plan, plan_size, "%s", p);
    }
    if (f) fclose(f);
    return found;
}

static int tune_params(tilec_context *ctx, const cli_native_request *r, int argc, char **argv) {
    param ps[CLI_MAX_TUNE_PARAMS];
    uint64_t combos = 1;
    for (size_t i = 0; i < r->param_count; i++) {
        if (!parse_param(r->params[i], &ps[i])) return CLI_EXIT_USAGE;
        combos *= ps[i].count;
        if (combos > MAX_COMBINATIONS)
            return cli_usage_error("tune", "more than %d combinations of --param values", MAX_COMBINATIONS);
    }
    char *text = NULL, dir[TILEC_CACHE_DIR_MAX], path[TILEC_CACHE_DIR_MAX + 16], id[128] = "", cpu[256];
    size_t length = 0;
    if (file_read(ctx, r->path, &text, &length) != TILEC_OK) return cli_fail_diags(ctx);
    const char *cache = NULL;
    FILE *out = NULL; /* appends to tune.tsv, which must be ours (tilec_cache_open): never through a symlink */
    if (tilec_cache_dir(dir) == TILEC_CACHE_USABLE && tilec_cache_build_id(id, sizeof id)) {
        snprintf(path, sizeof path, "%s/tune.tsv", dir);
        cache = (out = tilec_cache_open(path, "a")) ? path : NULL;
    }
    host_cpu_model(cpu, sizeof cpu);
    uint64_t base = fnv64(id, strlen(id));
    base = fnv64_more(base, cpu, strlen(cpu));
    base = fnv64_more(base, text, length);
    for (int i = 0; i < argc; i++) base = fnv64_more(base, argv[i], strlen(argv[i]) + 1);
    free(text);
    tilec_compile_options o = cli_options_native(&r->options);
    uint32_t digit[CLI_MAX_TUNE_PARAMS] = {0};
    double best_us = 0;
    char best[1024] = ""; /* a `values` line */
    int code = CLI_EXIT_OK;
    const char *refused = !cache && id[0] ? ": cannot open tune.tsv as a regular file of yours only you can write" : "";
    printf("tune: %" PRIu64 " combinations (median of %d rounds each; cache %s%s)\n", combos, CLI_TIME_ROUNDS,
           cache ? cache : "off", refused);
    for (uint64_t n = 0; n < combos && code == CLI_EXIT_OK; n++) {
        char values[1024] = "", key[32], plan[256] = "?";
        cli_defines d;
        cli_defines_init(&d, ctx);
        bool ok = true;
        for (size_t i = 0; ok && i < r->defines.items.len; i++) {
            char def[320];
            snprintf(def, sizeof def, "%.256s=%" PRId64, r->defines.items.data[i].name, r->defines.items.data[i].value);
            ok = cli_defines_add(&d, "tune", def);
        }
        for (size_t i = 0; ok && i < r->param_count; i++) {
            char def[96];
            snprintf(def, sizeof def, "%.63s=%" PRId64, ps[i].name, ps[i].values[digit[i]]);
            ok = cli_defines_add(&d, "tune", def);
            size_t len = strlen(values);
            snprintf(values + len, sizeof values - len, "%s%s", len ? " " : "", def);
        }
        for (size_t i = 0; i < r->param_count && ++digit[i] == ps[i].count; i++) digit[i] = 0;
        uint64_t h = fnv64_more(base, values, strlen(values));
        snprintf(key, sizeof key, "%016" PRIx64, h);
        double us;
        bool cached = ok && cache_lookup(cache, key, &us, plan, sizeof plan);
        if (ok && !cached) {
            tir_module *m = cli_load_module(ctx, r->path, &d);
            const tir_func *f = m ? cli_pick_kernel(m, "tune", r->kernel) : NULL;
            tilec_kernel *k = f ? cli_native_compile(ctx, &o, f, NULL) : NULL;
            cli_args a;
            double per[CLI_TIME_ROUNDS];
            uint64_t reps;
            bool have_args = k && cli_args_create(ctx, f, &a) == TILEC_OK;
            for (size_t i = 0; have_args && i < a.count; i++) cli_args_fill_random(&a, i, 0);
            ok = have_args && cli_time_kernel(ctx, k, &a, per, &reps);
            if (ok) {
                us = per[CLI_TIME_ROUNDS / 2];
                plan_token(tilec_kernel_realization(k), plan, sizeof plan);
                if (out) fprintf(out, "%s %.4f %s\n", key, us, plan), fflush(out);
            } else {
                cli_fail_diags(ctx);
            }
            if (have_args) cli_args_destroy(&a);
            tilec_kernel_destroy(k);
            tir_module_destroy(m);
        }
        cli_defines_free(&d);
        if (!ok) {
            printf("  %-32s failed (see above)\n", values);
            code = CLI_EXIT_FAIL;
            break;
        }
        printf("  %-32s %-56s %12.2f us%s\n", values, plan, us, cached ? "  (cached)" : "");
        if (!best[0] || us < best_us) best_us = us, snprintf(best, sizeof best, "%s", values);
    }
    if (code == CLI_EXIT_OK) printf("fastest: %s (%.2f us)\n", best, best_us);
    if (out) fclose(out);
    return code;
}

static int tune_main(tilec_context *ctx, int argc, char **argv, bool parse_only) {
    cli_native_request r;
    int code = cli_tune_request_scan(ctx, &cli_tune_command, argc, argv, &r);
    if (code == CLI_CONTINUE && !parse_only && r.param_count) {
        code = tune_params(ctx, &r, argc, argv);
    } else if (code == CLI_CONTINUE && !parse_only) {
        tir_module *m = cli_load_module(ctx, r.path, &r.defines);
        const tir_func *f = m ? cli_pick_kernel(m, "tune", r.kernel) : NULL;
        code = CLI_EXIT_FAIL;
        if (f && cli_args_check_memory(ctx, f, 1) != TILEC_OK) {
            cli_fail_diags(ctx);
        } else if (f) {
            tilec_compile_options o = cli_options_native(&r.options);
            tilec_cost_coefficients prior = tilec_compile_options_default().cost;
            if (r.fit && memcmp(&o.cost, &prior, sizeof prior))
                code = cli_usage_error("tune", "--fit measures the default coefficients' terms: drop --cost and --profile");
            else
                code = tune_kernel(ctx, f, &o, r.fit);
        }
        tir_module_destroy(m);
    }
    cli_native_request_free(&r);
    return code;
}

const cli_command cli_tune_command = {
    "tune",
    "measure the planner's pick against the other mappings (top-1 regret)",
    "usage: tilec tune FILE.tir [--kernel NAME] [-D NAME=VALUE]... [--param NAME=V1,V2,...]...\n"
    "                  [native options]\n"
    "\n"
    "Compiles one kernel of FILE.tir with the given options (the planner's pick),\n"
    "then with every root order (up to 24) one program per lane and packet-local,\n"
    "the other settings planned, and times each as `tilec bench` does (warm, 7\n"
    "rounds, median).  Prints each distinct mapping's time and the pick's regret:\n"
    "its time over the fastest mapping's.  Mappings the kernel cannot take are\n"
    "left out.  With --fit PROFILE, the mappings' cost terms and times are added\n"
    "to PROFILE's samples and the cost coefficients refitted to all of them (load\n"
    "them with --profile PROFILE; docs/cli.md \"Calibration\").\n"
    "\n"
    "With --param NAME=V1,V2,... (repeatable, at most 256 combinations) it tunes\n"
    "kernel parameters instead: every combination, compiled with the planner's\n"
    "pick and timed the same way, then the fastest.  Measurements are cached in\n"
    "the kernel cache's directory (tune.tsv; TILEC_CACHE_DIR, TILEC_CACHE=0 off),\n"
    "keyed by the tilec build, the CPU, the command line and the file's text.\n"
    "\n"
    "Options:\n" CLI_NATIVE_COMMAND_HELP
    "  --param NAME=V1,V2,...  a kernel parameter's values to try (repeatable)\n"
    "  --fit PROFILE     add the measured mappings to PROFILE and refit its coefficients\n"
    "\n"
    "Exit status: 0 ok, 1 error in the file, the compilation or a run, 2 usage error.\n",
    tune_main,
    NULL,
};
