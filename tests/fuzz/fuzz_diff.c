/* fuzz_diff.c — the differential fuzzer's driver (docs/fuzzing.md): generates
 * random valid kernels (diff_gen.h), runs each on the reference interpreter
 * and natively (diff_run.h), and saves every native bug as a minimized
 * reproducer (diff_minimize.h) in a corpus directory; or replays corpora.
 *
 *   fuzz_diff [--seed S] [--count N] [--time-limit SECONDS] [--corpus DIR]
 *             [--replay DIR]... [--max-statements N] [--no-oob] [--no-minimize] [--sized-every N]
 *             [--gen FAMILIES] [--show INDEX] [--generate-only] [--quiet]
 *
 * libFuzzer-style arguments are accepted too, so `make fuzz
 * FUZZ_TARGET=fuzz_diff` runs it like the other targets: -max_total_time=N is
 * the time limit, other -flags are ignored, the first directory is the
 * corpus and further ones are replayed first.
 *
 * Isolation: kernels run in a forked worker process that reuses one context
 * and runtime; the supervisor (this process, which never compiles) restarts
 * it after a crash, a hang (a case over --case-timeout seconds) or a bug, and
 * runs every replay and minimization candidate in a fresh fork (a hang is
 * saved as it is: minimizing it would cost a timeout per candidate).  The run is
 * deterministic for a given seed: kernel i is a function of (seed, i) only.
 * Exit status: 0 when no native bug and no invalid case was seen, 1
 * otherwise, 2 on a usage error. */
#include "diff_gen.h"
#include "diff_minimize.h"
#include "diff_run.h"
#include "tilec/tir.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { MAX_TEXT = 1 << 18, MAX_CODES = 64, MAX_REPLAY = 16, MAX_BUGS = 64 };

typedef struct {
    uint64_t seed, count;
    double time_limit, case_timeout;
    const char *corpus;
    const char *replay[MAX_REPLAY];
    int n_replay;
    diff_gen_options gen;
    uint64_t sized_every; /* --sized-every N: rerun kernel i with runtime sizes when i % N == 0 (0: never) */
    bool minimize, quiet, generate_only;
    long show;
} options;

/* Shared between the supervisor and its forks. */
typedef struct {
    uint64_t next, done;
    uint64_t outcomes[DIFF_OUTCOME_COUNT];
    uint64_t gen_failures, statements, retries, retried, faulted;
    uint64_t mergeable, split_asked, split; /* kernels with a combine block, asking split=N, split natively */
    uint64_t gpu_checked, gpu_refused;      /* the GPU route's W = 32 runs, and its refused plans */
    uint64_t sized_checked, sized_refused;  /* cases rerun with runtime sizes (diff_sized.h), refused compiles */
    uint64_t gpu_host;                      /* of the checked, those whose GPU code also ran on the host */
    double compile_ms;
    struct {
        char code[32];
        uint64_t n;
    } refusals[MAX_CODES];
    int n_refusals;
    double deadline;
    volatile int busy;
    volatile double case_start;
    int bug;
    diff_result result;
    char text[MAX_TEXT];
} shared;

static shared *sh;

static void pause_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Counts a refusal code; true the first time it is seen. */
static bool count_refusal(const char *code) {
    for (int i = 0; i < sh->n_refusals; i++)
        if (!strcmp(sh->refusals[i].code, code)) {
            sh->refusals[i].n++;
            return false;
        }
    if (sh->n_refusals == MAX_CODES) return false;
    snprintf(sh->refusals[sh->n_refusals].code, sizeof sh->refusals[0].code, "%s", code);
    sh->refusals[sh->n_refusals++].n = 1;
    return true;
}

/* kernel: its index, or UINT64_MAX */
static void record(const diff_result *r, uint64_t kernel) {
    sh->outcomes[r->outcome]++;
    sh->done++;
    sh->compile_ms += r->compile_ms;
    if (r->retried) sh->retried++;
    if (r->faulted) sh->faulted++;
    if (r->mergeable) sh->mergeable++;
    if (r->gpu == DIFF_GPU_CHECKED) sh->gpu_checked++;
    if (r->gpu == DIFF_GPU_REFUSED) sh->gpu_refused++;
    if (r->sized == DIFF_SIZED_CHECKED) sh->sized_checked++;
    if (r->sized == DIFF_SIZED_REFUSED) sh->sized_refused++;
    if (r->gpu == DIFF_GPU_CHECKED && r->gpu_host) sh->gpu_host++;
    if (r->split_asked) sh->split_asked++;
    if (r->split) sh->split++;
    if ((r->outcome == DIFF_REFUSED || r->retried) && count_refusal(r->code) && kernel != UINT64_MAX)
        fprintf(stderr, "fuzz_diff: first %s refusal on kernel %llu: %s\n", r->code, (unsigned long long)kernel, r->detail);
}

/* ---- the worker: generated kernels, one after the other ---- */

static void set_text(const char *text) {
    size_t n = strlen(text);
    if (n >= MAX_TEXT) n = MAX_TEXT - 1;
    memcpy(sh->text, text, n);
    sh->text[n] = 0;
}

static int worker(const options *o, uint64_t end) {
    diff_runner *r = diff_runner_create();
    if (!r) return 4;
    while (sh->next < end && now() < sh->deadline) {
        char why[512];
        diff_gen_stats st;
        char *text = diff_generate(o->seed, sh->next, &o->gen, &st, why, sizeof why);
        if (!text) {
            fprintf(stderr, "fuzz_diff: generator failed on kernel %llu: %s\n", (unsigned long long)sh->next, why);
            sh->gen_failures++;
            sh->next++;
            continue;
        }
        sh->statements += st.statements, sh->retries += st.retries;
        set_text(text);
        free(text);
        sh->case_start = now();
        sh->busy = 1;
        diff_result res;
        diff_run_case(r, sh->text, o->gen.oob, o->sized_every && sh->next % o->sized_every == 0, &res);
        sh->busy = 0;
        record(&res, sh->next);
        sh->next++;
        if (diff_outcome_is_bug(res.outcome) || res.outcome == DIFF_INVALID) {
            sh->result = res;
            sh->bug = 1;
            diff_runner_destroy(r);
            return 3;
        }
    }
    diff_runner_destroy(r);
    return 0;
}

/* ---- isolated single runs (replay, minimization) ---- */

/* Runs `text` in a fresh fork; crashes and hangs become DIFF_CRASH. */
static void run_isolated(const char *text, bool oob, double timeout, diff_result *out) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        diff_runner *r = diff_runner_create();
        if (!r) _exit(4);
        diff_run_case(r, text, oob, true, &sh->result);
        diff_runner_destroy(r);
        _exit(0);
    }
    memset(out, 0, sizeof *out);
    int status = 0;
    double start = now();
    bool killed = false;
    while (pid > 0 && waitpid(pid, &status, WNOHANG) == 0) {
        if (!killed && now() - start > timeout) kill(pid, SIGKILL), killed = true;
        pause_ms(2);
    }
    if (pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        *out = sh->result;
        return;
    }
    out->outcome = DIFF_CRASH;
    if (killed) snprintf(out->code, sizeof out->code, "timeout");
    else if (pid > 0 && WIFSIGNALED(status)) snprintf(out->code, sizeof out->code, "signal %d", WTERMSIG(status));
    else snprintf(out->code, sizeof out->code, "exit %d", pid > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    snprintf(out->detail, sizeof out->detail, "the run died (%s)", out->code);
}

typedef struct {
    const options *o;
    diff_result want;
} same_failure;

static bool still_fails(const char *text, void *env) {
    same_failure *s = env;
    diff_result r;
    run_isolated(text, s->o->gen.oob, s->o->case_timeout, &r);
    if (r.outcome != s->want.outcome) return false;
    return r.outcome == DIFF_MISMATCH || !strcmp(r.code, s->want.code);
}

/* ---- bugs: minimize and save ---- */

static char bug_files[MAX_BUGS][512];
static int n_bug_files;

static void save_case(const options *o, const char *text, const diff_result *r, uint64_t index) {
    char *min = NULL;
    size_t tests = 0;
    /* a hang is not minimized: every candidate that still hangs would cost a timeout */
    if (o->minimize && diff_outcome_is_bug(r->outcome) && strcmp(r->code, "timeout")) {
        same_failure s = {o, *r};
        double t0 = now();
        min = diff_minimize(text, still_fails, &s, 2000, &tests);
        if (!o->quiet)
            fprintf(stderr, "fuzz_diff: minimized kernel %llu in %zu runs (%.1f s)\n", (unsigned long long)index, tests,
                    now() - t0);
    }
    const char *body = min ? min : text;
    char path[512];
    if (o->corpus) {
        mkdir(o->corpus, 0777);
        snprintf(path, sizeof path, "%s/%s-%llu-%llu.tir", o->corpus, diff_outcome_name(r->outcome),
                 (unsigned long long)o->seed, (unsigned long long)index);
        FILE *f = fopen(path, "w");
        if (f) {
            fprintf(f, "// found by fuzz_diff: %s %s: %s\n", diff_outcome_name(r->outcome), r->code, r->detail);
            fputs(body, f);
            fclose(f);
        } else {
            snprintf(path, sizeof path, "(cannot write to %s: %s)", o->corpus, strerror(errno));
        }
    } else {
        snprintf(path, sizeof path, "(no --corpus)");
    }
    fprintf(stderr, "fuzz_diff: %s on kernel %llu (%s): %s\n  saved: %s\n", diff_outcome_name(r->outcome),
            (unsigned long long)index, r->code, r->detail, path);
    if (!o->corpus || o->quiet) fprintf(stderr, "%s\n", body);
    if (n_bug_files < MAX_BUGS) snprintf(bug_files[n_bug_files++], sizeof bug_files[0], "%s", path);
    free(min);
}

/* ---- the generated run ---- */

static void progress(const options *o, double start, bool force) {
    static double last;
    double t = now();
    if (o->quiet || (!force && t - last < 10)) return;
    last = t;
    uint64_t bugs = sh->outcomes[DIFF_MISMATCH] + sh->outcomes[DIFF_ERROR] + sh->outcomes[DIFF_CRASH];
    fprintf(stderr, "fuzz_diff: [%.0f s] %llu kernels, %llu bugs, %llu refused, %.1f kernels/s\n", t - start,
            (unsigned long long)sh->done, (unsigned long long)bugs, (unsigned long long)sh->outcomes[DIFF_REFUSED],
            (double)sh->done / (t - start + 1e-9));
}

static void generated_run(const options *o, double start) {
    uint64_t end = o->count;
    while (sh->next < end && now() < sh->deadline) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) _exit(worker(o, end));
        if (pid < 0) {
            perror("fuzz_diff: fork");
            return;
        }
        int status = 0;
        bool killed = false;
        while (waitpid(pid, &status, WNOHANG) == 0) {
            if (!killed && sh->busy && now() - sh->case_start > o->case_timeout) kill(pid, SIGKILL), killed = true;
            progress(o, start, false);
            pause_ms(20);
        }
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) break;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 3 && sh->bug) {
            sh->bug = 0;
            diff_result r = sh->result;
            char *text = strdup(sh->text);
            save_case(o, text, &r, sh->next - 1);
            free(text);
            continue;
        }
        if (!sh->busy) { /* died outside a case: nothing to save */
            fprintf(stderr, "fuzz_diff: the worker failed (status %d)\n", status);
            return;
        }
        diff_result r;
        memset(&r, 0, sizeof r);
        r.outcome = DIFF_CRASH;
        if (killed) snprintf(r.code, sizeof r.code, "timeout");
        else if (WIFSIGNALED(status)) snprintf(r.code, sizeof r.code, "signal %d", WTERMSIG(status));
        else snprintf(r.code, sizeof r.code, "exit %d", WEXITSTATUS(status));
        snprintf(r.detail, sizeof r.detail, "the run died (%s)", r.code);
        sh->busy = 0;
        record(&r, sh->next);
        char *text = strdup(sh->text);
        save_case(o, text, &r, sh->next);
        free(text);
        sh->next++;
    }
}

/* ---- replay ---- */

static int is_case_file(const struct dirent *e) {
    size_t len = strlen(e->d_name);
    return len > 4 && !strcmp(e->d_name + len - 4, ".tir");
}

static char *read_all(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (text && fread(text, 1, (size_t)n, f) == (size_t)n) text[n] = 0;
    else free(text), text = NULL;
    fclose(f);
    return text;
}

/* Replays every .tir file of dir; returns the number that fail. */
static int replay_dir(const options *o, const char *dir, int *total) {
    struct dirent **names;
    int n = scandir(dir, &names, is_case_file, alphasort); /* name order: reproducible */
    if (n < 0) {
        fprintf(stderr, "fuzz_diff: cannot open %s: %s\n", dir, strerror(errno));
        return 1;
    }
    int failed = 0;
    for (int i = 0; i < n; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
        char *text = read_all(path);
        diff_result r;
        if (!text) {
            memset(&r, 0, sizeof r);
            r.outcome = DIFF_INVALID;
            snprintf(r.detail, sizeof r.detail, "cannot read the file");
        } else {
            run_isolated(text, o->gen.oob, o->case_timeout, &r);
        }
        bool bad = diff_outcome_is_bug(r.outcome) || r.outcome == DIFF_INVALID;
        if (bad || !o->quiet)
            fprintf(stderr, "fuzz_diff: replay %s: %s%s%s%s%s\n", path, diff_outcome_name(r.outcome), r.code[0] ? " " : "",
                    r.code, bad ? ": " : "", bad ? r.detail : "");
        failed += bad;
        (*total)++;
        free(text);
        free(names[i]);
    }
    free(names);
    return failed;
}

/* ---- command line ---- */

static int usage(void) {
    fprintf(stderr, "usage: fuzz_diff [--seed S] [--count N] [--time-limit SECONDS] [--corpus DIR] [--replay DIR]...\n"
                    "                 [--max-statements N] [--case-timeout SECONDS] [--no-oob] [--no-minimize]\n"
                    "                 [--sized-every N]\n"
                    "                 [--gen FAMILIES] [--show INDEX] [--generate-only] [--quiet] [--sized-every N]\n"
                    "       (libFuzzer style: -max_total_time=N [-flag=value]... [CORPUS_DIR [REPLAY_DIR]...])\n");
    return 2;
}

/* --gen: which generator families (diff_gen_options) each kernel comes
 * from, a comma-separated list: `sizes` or `math` (every kernel; both: every
 * kernel is both), `sizes=P` or `math=P` (P% of the kernels), `ops` (only
 * the plain generator), `mix` (sizes=10,math=10, the default). */
static bool parse_gen(const char *v, diff_gen_options *g) {
    g->sizes_pct = g->math_pct = 0;
    char buf[128];
    snprintf(buf, sizeof buf, "%s", v);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '='), *end = NULL;
        if (eq) *eq = 0;
        unsigned long pct = eq ? strtoul(eq + 1, &end, 10) : 100;
        if ((eq && (end == eq + 1 || *end)) || pct > 100) return false;
        if (!strcmp(tok, "sizes")) g->sizes_pct = (uint32_t)pct;
        else if (!strcmp(tok, "math")) g->math_pct = (uint32_t)pct;
        else if (!strcmp(tok, "mix") && !eq) g->sizes_pct = g->math_pct = 10;
        else if (strcmp(tok, "ops") || eq) return false;
    }
    return true;
}

static bool parse_args(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    o->seed = (uint64_t)time(NULL);
    o->count = UINT64_MAX;
    o->case_timeout = 30;
    o->minimize = true;
    o->sized_every = 1;
    o->gen.oob = true; /* native code reports bounds faults like the reference (docs/facade.md) */
    o->show = -1;
    parse_gen("mix", &o->gen);
    bool have_count = false, have_time = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define VALUE() (i++, v)
        if (!strcmp(a, "--seed") && v) o->seed = strtoull(VALUE(), NULL, 10);
        else if (!strcmp(a, "--count") && v) o->count = strtoull(VALUE(), NULL, 10), have_count = true;
        else if (!strcmp(a, "--time-limit") && v) o->time_limit = atof(VALUE()), have_time = true;
        else if (!strcmp(a, "--case-timeout") && v) o->case_timeout = atof(VALUE());
        else if (!strcmp(a, "--corpus") && v) o->corpus = VALUE();
        else if (!strcmp(a, "--replay") && v && o->n_replay < MAX_REPLAY) o->replay[o->n_replay++] = VALUE();
        else if (!strcmp(a, "--max-statements") && v) o->gen.max_statements = (uint32_t)atoi(VALUE());
        else if (!strcmp(a, "--show") && v) o->show = atol(VALUE());
        else if (!strcmp(a, "--gen") && v) {
            if (!parse_gen(VALUE(), &o->gen)) return false;
        }
        else if (!strcmp(a, "--oob")) o->gen.oob = true;
        else if (!strcmp(a, "--no-oob")) o->gen.oob = false;
        else if (!strcmp(a, "--sized-every") && v) o->sized_every = strtoull(VALUE(), NULL, 10);
        else if (!strcmp(a, "--no-minimize")) o->minimize = false;
        else if (!strcmp(a, "--quiet")) o->quiet = true;
        else if (!strcmp(a, "--generate-only")) o->generate_only = true;
        else if (!strncmp(a, "-max_total_time=", 16)) o->time_limit = atof(a + 16), have_time = true;
        else if (a[0] == '-' && a[1] != '-' && strchr(a, '=')) continue; /* other libFuzzer flags */
        else if (a[0] != '-' && !o->corpus) o->corpus = a;
        else if (a[0] != '-' && o->n_replay < MAX_REPLAY) o->replay[o->n_replay++] = a;
        else return false;
#undef VALUE
    }
    if (!have_count && !have_time && o->n_replay == 0) o->count = 100;
    if (!have_count && !have_time && o->n_replay > 0) o->count = 0;
    return true;
}

/* --generate-only: the generator's rejection rate without compiling
 * (builder failures, and kernels that do not parse and verify). */
static int generate_only(const options *o) {
    tilec_context *ctx;
    if (tilec_context_create(NULL, &ctx)) return 1;
    uint64_t failed = 0, rejected = 0, n = o->count == UINT64_MAX ? 1000 : o->count;
    double start = now();
    for (uint64_t i = 0; i < n; i++) {
        char why[512];
        char *text = diff_generate(o->seed, i, &o->gen, NULL, why, sizeof why);
        if (!text) {
            fprintf(stderr, "fuzz_diff: kernel %llu: %s\n", (unsigned long long)i, why);
            failed++;
            continue;
        }
        tir_module *m = NULL;
        tilec_status st = tir_parse(ctx, text, strlen(text), "generated.tir", NULL, 0, &m);
        if (!st) st = tir_verify(ctx, m);
        if (st) {
            fprintf(stderr, "fuzz_diff: kernel %llu does not parse and verify:\n", (unsigned long long)i);
            tilec_diag_print(ctx, stderr);
            rejected++;
        }
        tilec_diag_clear(ctx);
        tir_module_destroy(m);
        free(text);
    }
    printf("fuzz_diff: seed %llu: generated %llu kernels in %.1f s: %llu builder failures, %llu rejected by "
           "parse/verify\n",
           (unsigned long long)o->seed, (unsigned long long)n, now() - start, (unsigned long long)failed,
           (unsigned long long)rejected);
    tilec_context_destroy(ctx);
    return failed || rejected;
}

int main(int argc, char **argv) {
    options o;
    if (!parse_args(argc, argv, &o)) return usage();
    if (o.generate_only) return generate_only(&o);
    if (o.show >= 0) {
        char why[512];
        char *text = diff_generate(o.seed, (uint64_t)o.show, &o.gen, NULL, why, sizeof why);
        if (!text) return fprintf(stderr, "fuzz_diff: %s\n", why), 1;
        fputs(text, stdout);
        free(text);
        return 0;
    }
    sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) return perror("fuzz_diff: mmap"), 1;
    double start = now();
    sh->deadline = o.time_limit > 0 ? start + o.time_limit : 1e300;
    int replay_failed = 0, replayed = 0;
    for (int i = 0; i < o.n_replay; i++) replay_failed += replay_dir(&o, o.replay[i], &replayed);
    if (o.count) {
        if (!o.quiet) fprintf(stderr, "fuzz_diff: seed %llu\n", (unsigned long long)o.seed);
        generated_run(&o, start);
    }
    double wall = now() - start;
    if (!o.count) {
        printf("fuzz_diff: replayed %d case files in %.1f s, %d failing\n", replayed, wall, replay_failed);
        return replay_failed ? 1 : 0;
    }
    uint64_t bugs = sh->outcomes[DIFF_MISMATCH] + sh->outcomes[DIFF_ERROR] + sh->outcomes[DIFF_CRASH];
    printf("fuzz_diff: seed %llu: %llu kernels in %.1f s (%.1f kernels/s, mean compile %.1f ms)\n",
           (unsigned long long)o.seed, (unsigned long long)sh->done, wall, (double)sh->done / (wall + 1e-9),
           sh->done ? sh->compile_ms / (double)sh->done : 0.0);
    printf("  ok %llu, refused %llu (then run with default options: %llu), reference budget %llu\n",
           (unsigned long long)sh->outcomes[DIFF_OK], (unsigned long long)sh->outcomes[DIFF_REFUSED],
           (unsigned long long)sh->retried, (unsigned long long)sh->outcomes[DIFF_SKIPPED]);
    for (int i = 0; i < sh->n_refusals; i++)
        printf("  refusal %s: %llu\n", sh->refusals[i].code, (unsigned long long)sh->refusals[i].n);
    printf("  bounds faults on purpose: %llu (the reference's TIR-I07..I09, expected natively too)\n",
           (unsigned long long)sh->faulted);
    printf("  mergeable reduces: %llu kernels, %llu asking split=N, %llu split natively\n",
           (unsigned long long)sh->mergeable, (unsigned long long)sh->split_asked, (unsigned long long)sh->split);
    printf("  GPU route: %llu kernels planned for the GPU, run at W=32 and compiled to PTX (%llu also run as GPU code "
           "on the host); %llu GPU plans refused\n",
           (unsigned long long)sh->gpu_checked, (unsigned long long)sh->gpu_host, (unsigned long long)sh->gpu_refused);
    printf("  runtime sizes: %llu kernels rerun with some extents made runtime sizes and checked at sampled sizes; %llu "
           "such compiles refused\n",
           (unsigned long long)sh->sized_checked, (unsigned long long)sh->sized_refused);
    uint64_t generated = sh->done + sh->gen_failures;
    printf("  generator: %llu statements, %llu replaced choices, rejected %llu of %llu (%.3f%%: %llu builder failures, "
           "%llu invalid)\n",
           (unsigned long long)sh->statements, (unsigned long long)sh->retries,
           (unsigned long long)(sh->gen_failures + sh->outcomes[DIFF_INVALID]), (unsigned long long)generated,
           generated ? 100.0 * (double)(sh->gen_failures + sh->outcomes[DIFF_INVALID]) / (double)generated : 0.0,
           (unsigned long long)sh->gen_failures, (unsigned long long)sh->outcomes[DIFF_INVALID]);
    printf("  bugs: %llu mismatches, %llu errors, %llu crashes\n", (unsigned long long)sh->outcomes[DIFF_MISMATCH],
           (unsigned long long)sh->outcomes[DIFF_ERROR], (unsigned long long)sh->outcomes[DIFF_CRASH]);
    for (int i = 0; i < n_bug_files; i++) printf("  reproducer: %s\n", bug_files[i]);
    if (replayed) printf("  replayed %d case files, %d failing\n", replayed, replay_failed);
    return bugs || sh->outcomes[DIFF_INVALID] || sh->gen_failures || replay_failed ? 1 : 0;
}
