/* Dispatch after fork() (docs/runtime.md "The pool"): a process
 * that dispatched a kernel on 2 workers forks — as Python's multiprocessing
 * does by default on Linux — and the child, which inherited the pool but
 * not its worker thread, dispatches the same kernel on new inputs: it must
 * finish (it hung forever: worker 1 was woken but did not exist) with the
 * reference's results, several times over; the parent's pool keeps working
 * while and after the child runs.  The parent waits for the child at most
 * CHILD_SECONDS and kills it past that, so a hang fails the test instead of
 * stalling the suite. */
#include "examples_util.h"
#include "tilec/tilec.h"

#include <math.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { R = 256, W = 65, N = R * W, CHILD_SECONDS = 20 };

typedef struct {
    float x[N], y[N], expected[N];
} rows;

/* x from `seed`, expected = the reference interpreter's softmax of x. */
static bool prepare(tilec_context *ctx, const tir_func *f, rows *r, unsigned seed) {
    for (int i = 0; i < N; i++) r->x[i] = (float)((i * 37 + seed * 11) % 101) / 25.0f - 2.0f;
    tir_buffer args[2] = {{r->x, sizeof r->x}, {r->expected, sizeof r->expected}};
    return tir_interpret(ctx, f, 2, args) == TILEC_OK;
}

/* Dispatches k on r->x and checks r->y against r->expected. */
static bool dispatch_matches(tilec_context *ctx, tilec_kernel *k, rows *r) {
    memset(r->y, 0, sizeof r->y);
    tilec_buffer args[2] = {{r->x, sizeof r->x, TIR_F32}, {r->y, sizeof r->y, TIR_F32}};
    if (tilec_dispatch(ctx, k, 2, args) != TILEC_OK) return false;
    for (int i = 0; i < N; i++)
        if (!(fabsf(r->y[i] - r->expected[i]) <= 1e-6f + 1e-5f * fabsf(r->expected[i]))) return false;
    return true;
}

/* The child: three dispatches on its own inputs; the exit status says how
 * many did not match. */
static _Noreturn void child(tilec_context *ctx, tilec_kernel *k, rows *r) {
    int wrong = 0;
    for (int i = 0; i < 3; i++) wrong += !dispatch_matches(ctx, k, r);
    _exit(wrong);
}

/* Waits for pid at most CHILD_SECONDS; false (the child killed) past that. */
static bool wait_child(pid_t pid, int *status) {
    struct timespec tick = {0, 10 * 1000 * 1000};
    for (int i = 0; i < CHILD_SECONDS * 100; i++) {
        pid_t got = waitpid(pid, status, WNOHANG);
        if (got == pid) return true;
        if (got < 0) return false;
        nanosleep(&tick, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, status, 0);
    return false;
}

int main(void) {
    tilec_context *ctx;
    CHECK(tilec_context_create(NULL, &ctx) == TILEC_OK);
    static const tir_define shape[] = {{"R", R}, {"W", W}};
    tir_module *m = parse_example(ctx, "softmax", shape, 2);
    static rows parent_rows, child_rows;
    tilec_kernel *k = NULL;
    if (m) {
        const tir_func *f = tir_module_func(m, 0);
        CHECK(prepare(ctx, f, &parent_rows, 1) && prepare(ctx, f, &child_rows, 2));
        tilec_compile_options o = tilec_compile_options_default();
        o.threads = 2;
        o.width = 8;
        o.block_size = 8; /* many blocks: both workers run, the dispatch is not one call */
        CHECK(tilec_compile(ctx, f, &o, &k) == TILEC_OK);
    }
    if (k) {
        const char *r = tilec_kernel_realization(k);
        CHECK_STR_CONTAINS(r, "workers=2;");
        CHECK_STR_CONTAINS(r, "block=8;");
        const char *d = strstr(r, "dispatch=");
        CHECK_MSG(d && strtoul(d + 9, NULL, 10) >= 16, "%s: fewer than 2 blocks", r);
        CHECK(dispatch_matches(ctx, k, &parent_rows));
        fflush(NULL);
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) child(ctx, k, &child_rows);
        if (pid > 0) {
            CHECK(dispatch_matches(ctx, k, &parent_rows)); /* while the child runs */
            int status = 0;
            bool finished = wait_child(pid, &status);
            CHECK_MSG(finished, "the forked child did not finish its dispatches within %d s", CHILD_SECONDS);
            CHECK_MSG(!finished || (WIFEXITED(status) && WEXITSTATUS(status) == 0),
                      "the forked child's dispatches failed (status 0x%x)", (unsigned)status);
            CHECK(dispatch_matches(ctx, k, &parent_rows));
        }
    }
    if (tilec_diag_count(ctx)) tilec_diag_print(ctx, stderr);
    tilec_kernel_destroy(k);
    tir_module_destroy(m);
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
