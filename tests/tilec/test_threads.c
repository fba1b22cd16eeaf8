/* Threads (docs/facade.md "Threads"), also run under ThreadSanitizer by
 * `make test-tsan`:
 *   - two threads, each with its own context and runtime (2 workers), parse,
 *     compile and dispatch *different* kernels (softmax and gemm from
 *     examples/, at different packet widths) concurrently, `rounds()` times
 *     each, every result checked against the example's C reference;
 *   - two threads dispatch *one* kernel on *one* runtime concurrently, each
 *     with its own context and output buffer (the runtime serializes them);
 *   - two threads compile their own kernels against *one* shared runtime and
 *     dispatch them on it (rounds()/4 each);
 *   - libtilec.a has no writable static data but LLVM's once-flag, the
 *     ahead-of-time runtime's process state (aot_run.c) and the registry of
 *     live thread pools for the fork handlers (pool.c) (objdump): a new
 *     global must be thought about, not slip in.
 * Worker threads never touch the harness (its counters are not atomic): they
 * record what went wrong and the main thread checks after joining. */
#include "harness.h"
#include "reference.h"
#include "tilec/tilec.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>

/* Rounds per thread: 25 in `make test` (about 10 s, most of it LLVM);
 * `make test-tsan` sets TILEC_THREAD_ROUNDS=100. */
static int rounds(void) {
    const char *env = getenv("TILEC_THREAD_ROUNDS");
    int n = env ? atoi(env) : 25;
    return n > 0 ? n : 25;
}

typedef struct {
    /* input */
    const char *name;    /* examples/NAME.tir */
    uint32_t width;      /* packet width */
    int rounds;
    tilec_runtime *shared_runtime; /* NULL: the thread creates its own */
    tilec_kernel *shared_kernel;   /* NULL: the thread compiles each round */
    /* output */
    int compiled, dispatched, matched;
    char error[512];
} job;

static void fail(job *j, const char *what, tilec_context *ctx) {
    if (j->error[0]) return;
    snprintf(j->error, sizeof j->error, "%s (W=%u): %s%s%s", j->name, j->width, what,
             ctx && tilec_diag_count(ctx) ? ": " : "",
             ctx && tilec_diag_count(ctx) ? tilec_diag_at(ctx, 0)->message : "");
}

static char *read_example(const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/examples/%s.tir", TILEC_SOURCE_DIR, name);
    size_t length;
    return read_file(path, &length);
}

/* The kernel's buffers: deterministic inputs in [-1, 1), outputs NaN, and
 * the C reference's expected outputs (FP64). */
typedef struct {
    size_t n;
    float *data[8];
    size_t count[8];
    double *expected[8];
} buffers;

static bool buffers_make(const tir_func *f, const char *name, buffers *b) {
    memset(b, 0, sizeof *b);
    b->n = tir_func_param_count(f);
    if (b->n > 8) return false;
    uint64_t seed = 12345;
    const void *inputs[8] = {0};
    for (size_t i = 0; i < b->n; i++) {
        const tir_value *p = tir_func_param(f, i);
        uint64_t volume = 0;
        if (!tir_space_volume(tir_type_space(tir_value_type(p)), &volume) || !volume) return false;
        b->count[i] = volume;
        b->data[i] = malloc(volume * sizeof(float));
        if (!b->data[i]) return false;
        for (size_t k = 0; k < volume; k++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            b->data[i][k] = tir_value_read_only(p) ? (float)((double)(seed >> 40) / (double)(1 << 24) * 2.0 - 1.0) : NAN;
        }
        inputs[i] = b->data[i];
        if (!tir_value_read_only(p)) {
            b->expected[i] = malloc(volume * sizeof(double));
            if (!b->expected[i]) return false;
            for (size_t k = 0; k < volume; k++) b->expected[i][k] = NAN;
        }
    }
    const example_entry *e = example_find(name);
    return e && e->reference(f, inputs, b->expected);
}

static void buffers_free(buffers *b) {
    for (size_t i = 0; i < b->n; i++) {
        free(b->data[i]);
        free(b->expected[i]);
    }
}

/* Dispatches k on fresh NaN outputs; true when every output matches the
 * reference within atol = rtol = 5e-5 (the facade tests' tolerance). */
static bool dispatch_and_compare(job *j, tilec_context *ctx, tilec_kernel *k, const tir_func *f, buffers *b) {
    tilec_buffer args[8];
    for (size_t i = 0; i < b->n; i++) {
        if (b->expected[i])
            for (size_t e = 0; e < b->count[i]; e++) b->data[i][e] = NAN;
        args[i] = (tilec_buffer){b->data[i], b->count[i] * sizeof(float), TIR_F32};
    }
    if (tilec_dispatch(ctx, k, b->n, args) != TILEC_OK) {
        fail(j, "dispatch failed", ctx);
        return false;
    }
    j->dispatched++;
    (void)f;
    for (size_t i = 0; i < b->n; i++)
        for (size_t e = 0; b->expected[i] && e < b->count[i]; e++) {
            double want = b->expected[i][e], got = b->data[i][e];
            if (!(fabs(got - want) <= 5e-5 + 5e-5 * fabs(want))) {
                char what[160];
                snprintf(what, sizeof what, "argument %zu element %zu: %.9g, reference %.9g", i, e, got, want);
                fail(j, what, NULL);
                return false;
            }
        }
    return true;
}

/* One thread: its own context; parse, then per round compile (unless a
 * shared kernel is given), dispatch and compare. */
static void *run_job(void *arg) {
    job *j = arg;
    tilec_context *ctx = NULL;
    tir_module *m = NULL;
    tilec_runtime *own = NULL;
    buffers b = {0};
    char *text = read_example(j->name);
    if (!text || tilec_context_create(NULL, &ctx) != TILEC_OK) {
        fail(j, "no source or context", NULL);
        goto done;
    }
    if (tir_parse(ctx, text, strlen(text), j->name, NULL, 0, &m) || tir_verify(ctx, m)) {
        fail(j, "parse/verify failed", ctx);
        goto done;
    }
    const tir_func *f = tir_module_func(m, 0);
    if (!buffers_make(f, j->name, &b)) {
        fail(j, "cannot make buffers or the reference", NULL);
        goto done;
    }
    tilec_runtime *rt = j->shared_runtime;
    if (!rt && tilec_runtime_create(ctx, 2, &own) != TILEC_OK) {
        fail(j, "runtime", ctx);
        goto done;
    }
    if (!rt) rt = own;
    for (int r = 0; r < j->rounds && !j->error[0]; r++) {
        tilec_kernel *k = j->shared_kernel;
        if (!k) {
            tilec_compile_options o = tilec_compile_options_default();
            o.width = j->width;
            o.runtime = rt;
            if (tilec_compile(ctx, f, &o, &k) != TILEC_OK) {
                fail(j, "compile failed", ctx);
                break;
            }
            j->compiled++;
        }
        j->matched += dispatch_and_compare(j, ctx, k, f, &b);
        if (k != j->shared_kernel) tilec_kernel_destroy(k);
    }
done:
    buffers_free(&b);
    tilec_runtime_destroy(own);
    tir_module_destroy(m);
    tilec_context_destroy(ctx);
    free(text);
    return NULL;
}

static void run_pair(job *a, job *b) {
    pthread_t ta, tb;
    CHECK(pthread_create(&ta, NULL, run_job, a) == 0);
    CHECK(pthread_create(&tb, NULL, run_job, b) == 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    job *jobs[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        CHECK_MSG(!jobs[i]->error[0], "%s", jobs[i]->error);
        CHECK_MSG(jobs[i]->dispatched == jobs[i]->rounds && jobs[i]->matched == jobs[i]->rounds,
                  "%s: %d of %d rounds dispatched, %d matched", jobs[i]->name, jobs[i]->dispatched,
                  jobs[i]->rounds, jobs[i]->matched);
    }
}

/* Different contexts, runtimes and kernels on two threads at once. */
static void test_different_kernels(int n) {
    job softmax = {.name = "softmax", .width = 8, .rounds = n};
    job gemm = {.name = "gemm", .width = 4, .rounds = n};
    run_pair(&softmax, &gemm);
    CHECK(softmax.compiled == n && gemm.compiled == n);
}

/* One runtime (with a context of its own, as docs/runtime.md asks of a
 * runtime shared by threads) and two threads: both dispatch one kernel
 * compiled here (share_kernel), or each compiles its own every round. */
static void test_shared_runtime(int n, bool share_kernel) {
    tilec_context *ctx = NULL, *rt_ctx = NULL;
    tilec_runtime *rt = NULL;
    tir_module *m = NULL;
    tilec_kernel *k = NULL;
    char *text = read_example("gemm");
    CHECK(text && tilec_context_create(NULL, &ctx) == TILEC_OK && tilec_context_create(NULL, &rt_ctx) == TILEC_OK);
    if (!text || !ctx || !rt_ctx) goto done;
    CHECK(tir_parse(ctx, text, strlen(text), "gemm", NULL, 0, &m) == TILEC_OK && tir_verify(ctx, m) == TILEC_OK);
    CHECK(tilec_runtime_create(rt_ctx, 2, &rt) == TILEC_OK);
    if (!m || !rt) goto done;
    tilec_compile_options o = tilec_compile_options_default();
    o.runtime = rt;
    if (share_kernel) {
        CHECK(tilec_compile(ctx, tir_module_func(m, 0), &o, &k) == TILEC_OK);
        if (!k) goto done;
    }
    job a = {.name = "gemm", .width = 8, .rounds = n, .shared_runtime = rt, .shared_kernel = k};
    job b = a;
    if (!share_kernel) {
        b.name = "softmax";
        b.width = 4;
    }
    run_pair(&a, &b);
    CHECK(a.compiled == (share_kernel ? 0 : n) && b.compiled == a.compiled);
done:
    tilec_kernel_destroy(k);
    tilec_runtime_destroy(rt);
    tir_module_destroy(m);
    tilec_context_destroy(ctx);
    tilec_context_destroy(rt_ctx);
    free(text);
}

/* Every object in a writable data section of the library (the internal
 * archive: one member per source file), "file symbol" — but AddressSanitizer's
 * one-definition-rule indicators (__odr_asan.NAME, a byte it emits for every
 * external global, const ones too), which are its bookkeeping, not tilec's
 * state. */
static void test_no_global_state(void) {
    char command[1024];
    snprintf(command, sizeof command,
             "objdump -t '%s/libtilec_internal.a' | awk '/file format/ { f = $1 } "
             "$3 == \"O\" && $4 ~ /^([.](data|bss|tdata|tbss)([.]|$)|[*]COM[*])/ && $4 !~ /rel[.]ro/ && "
             "$NF !~ /^__odr_asan[.]/ { print f, $NF }'",
             TILEC_BINARY_DIR);
    FILE *p = popen(command, "r");
    CHECK(p != NULL);
    if (!p) return;
    static const char *const allowed[] = {
        "jit.c.o: llvm_once\n",        "jit.c.o: llvm_native_ready\n", "aot_run.c.o: once\n",
        "aot_run.c.o: load_once\n",    "aot_run.c.o: load_lock\n",    "aot_run.c.o: thread_key\n",
        "aot_run.c.o: thread_key_ok\n",
        "aot_run.c.o: load_ctx\n",     "aot_run.c.o: runtime_ctx\n",   "aot_run.c.o: default_runtime\n",
        "aot_run.c.o: default_error\n", "ptx.c.o: nvptx_once\n",      "pool.c.o: registry_once\n",
        "pool.c.o: registry_lock\n",  "pool.c.o: registry\n",         "pool.c.o: registry_error\n",
        "disk_cache.c.o: warning_lock\n", "disk_cache.c.o: dir_warning_said\n",
        "disk_cache.c.o: cap_warning_said\n",      "host.c.o: native_once\n",       "host.c.o: native_facts\n",
        /* each thread's last sized launch (rt/program.c) and the serials keying it (rt/sizes.c) */
        "program.c.o: launch_key\n",    "program.c.o: launch_once\n",  "sizes.c.o: serial_next\n",
    };
    enum { ALLOWED = sizeof allowed / sizeof allowed[0] };
    char line[256], unexpected[2048] = "";
    int found = 0;
    while (fgets(line, sizeof line, p)) {
        bool known = false;
        for (int i = 0; i < ALLOWED && !known; i++) known = !strcmp(line, allowed[i]);
        if (known) found++;
        else strncat(unexpected, line, sizeof unexpected - strlen(unexpected) - 1);
    }
    CHECK(pclose(p) == 0);
    CHECK_MSG(found == ALLOWED && !unexpected[0], "writable statics besides the allowed ones (%d of %d found):\n%s",
              found, ALLOWED, unexpected);
}

int main(void) {
    test_no_global_state();
    int n = rounds();
    test_different_kernels(n);
    test_shared_runtime(n, true);
    test_shared_runtime(n / 4 ? n / 4 : 1, false);
    TEST_MAIN_END();
}
