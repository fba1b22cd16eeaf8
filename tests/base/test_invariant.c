/* Internal invariants (base/invariant.h) never abort the host in release
 * builds.  Two real invariants are broken through internal APIs (no test
 * hook in the library): a schedule made for more workers than the pool has
 * (rt_pool_run) and a CFG recomputed after a block was added (XIR
 * xir_cfg_recompute).  Each runs in a child process: built with NDEBUG (this
 * test is compiled with the library's flags) the call returns
 * TILEC_E_INTERNAL with one TILEC-I01 diagnostic naming the condition and its
 * line, nothing else happens and the objects stay usable; built without it
 * the child aborts (the debug behaviour).  And a release libtilec.a
 * references neither abort() nor __assert_fail: there is no abort path. */
#include "harness.h"
#include "rt/pool.h"
#include "xir/cfg.h"

#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef NDEBUG
static const bool release = true;
#else
static const bool release = false;
#endif

/* True when the last diagnostic of ctx is TILEC-I01 mentioning `text`. */
static bool internal_error_reported(tilec_context *ctx, const char *text) {
    size_t n = tilec_diag_count(ctx);
    const tilec_diag *d = n ? tilec_diag_at(ctx, n - 1) : NULL;
    bool ok = n == 1 && d->status == TILEC_E_INTERNAL && !strcmp(d->code, "TILEC-I01") && strstr(d->message, text);
    if (!ok) tilec_diag_print(ctx, stderr);
    return ok;
}

static atomic_int tasks_run;
static void count_task(void *user, uint64_t task, uint32_t worker, void *workspace) {
    (void)user, (void)task, (void)worker, (void)workspace;
    atomic_fetch_add(&tasks_run, 1);
}

/* Child: 0 when the release behaviour held. */
static int break_pool_schedule(void) {
    tilec_context *ctx;
    rt_pool *pool;
    if (tilec_context_create(NULL, &ctx) || rt_pool_create(ctx, &(rt_pool_options){2}, &pool)) return 10;
    rt_schedule wrong = rt_schedule_make(8, 64, 1); /* for 8 workers, not 2 */
    rt_pool_job job = {&wrong, count_task, NULL, 0, false};
    tilec_status st = rt_pool_run(pool, ctx, &job);
    if (st != TILEC_E_INTERNAL || atomic_load(&tasks_run) != 0) return 11;
    if (!internal_error_reported(ctx, "active_workers <= pool->worker_count") ||
        !internal_error_reported(ctx, "pool.c"))
        return 12;
    tilec_diag_clear(ctx);
    rt_schedule right = rt_schedule_make(2, 64, 1); /* the pool still works */
    job.schedule = &right;
    if (rt_pool_run(pool, ctx, &job) || atomic_load(&tasks_run) != 64) return 13;
    rt_pool_destroy(pool);
    tilec_context_destroy(ctx);
    return 0;
}

static int break_cfg_capacity(void) {
    tilec_context *ctx;
    if (tilec_context_create(NULL, &ctx)) return 10;
    xir_module *m = xir_module_create(ctx);
    xir_func *f = xir_func_new(m, "k");
    xir_block *entry = xir_block_new(f, "entry");
    xir_builder b = {m, f, entry};
    xir_build_ret(&b);
    xir_cfg cfg;
    if (!xir_cfg_build(ctx, f, true, &cfg)) return 11;
    xir_block *extra = xir_block_new(f, "extra"); /* the cfg has no room for it */
    b.block = extra;
    xir_build_ret(&b);
    if (xir_cfg_recompute(&cfg)) return 12;
    if (!internal_error_reported(ctx, "next_block_id == cfg->block_count")) return 13;
    if (!xir_cfg_reachable(&cfg, entry) || cfg.rpo_count != 1) return 14; /* the old facts stay */
    xir_cfg_free(&cfg);
    xir_module_destroy(m);
    tilec_context_destroy(ctx);
    return 0;
}

static void run_child(const char *label, int (*child)(void)) {
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        if (!release) freopen("/dev/null", "w", stderr); /* the expected abort message */
        _exit(child());
    }
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    if (release)
        CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: child status %d", label, status);
    else
        CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, "%s: a debug build must abort, status %d",
                  label, status);
}

/* In a release build no object of the library calls abort() or
 * __assert_fail; in a debug build invariant.o does (the assert behaviour).
 * The internal archive keeps one member per source file (the installed
 * libtilec.a is one relocated object). */
static void test_no_abort_path(void) {
    char command[1024];
    snprintf(command, sizeof command,
             "nm -A -u '%s/libtilec_internal.a' 2>/dev/null | grep -E ' U (abort|__assert_fail)$'",
             TILEC_BINARY_DIR);
    FILE *p = popen(command, "r");
    CHECK(p != NULL);
    if (!p) return;
    char line[512], found[2048] = "";
    while (fgets(line, sizeof line, p)) strncat(found, line, sizeof found - strlen(found) - 1);
    pclose(p);
    if (release) CHECK_MSG(!found[0], "abort paths in a release libtilec.a:\n%s", found);
    else CHECK_MSG(strstr(found, "invariant.c.o") && strstr(found, "abort"), "no debug abort path:\n%s", found);
}

int main(void) {
    fprintf(stderr, "%s build\n", release ? "release (NDEBUG)" : "debug");
    run_child("pool schedule", break_pool_schedule);
    run_child("cfg capacity", break_cfg_capacity);
    test_no_abort_path();
    TEST_MAIN_END();
}
