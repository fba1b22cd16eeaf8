/* py_peer.c — client side of the Python peers' coprocesses (py_peer.h). */
#include "py_peer.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

const py_peer_kind py_peer_kinds[PY_PEERS] = {
    {"torch", "torch_worker.py", "eager", "torch"},
    {"inductor", "torch_worker.py", "inductor", "torch"},
    {"jax", "jax_worker.py", "jit", "jax"},
    {"halide", "halide_worker.py", "manual", "halide"},
    {"halide-auto", "halide_worker.py", "auto", "halide"},
};

/* A request that takes longer than this is an error, never a slow result. */
enum { PY_TIMEOUT_MS = 300 * 1000, PY_MAX_WORKERS = BENCH_MAX_FILTERS };

typedef struct {
    int threads;
    pid_t pid; /* 0: not running */
    int to, from;
    char buf[8192]; /* reply bytes not yet consumed */
    size_t len;
} py_worker;

typedef struct py_peers py_peers;

/* What a set-up peer's callbacks see. */
typedef struct {
    py_peers *ps;
    size_t kind;
    py_worker *w;
} py_peer_state;

struct py_peers {
    const bench_options *o;
    const char *python;
    py_peer_state states[PY_PEERS]; /* of the row being set up: one peer per kind */
    char script[PY_PEERS][PATH_MAX];
    py_worker workers[PY_PEERS][PY_MAX_WORKERS];
    size_t n_workers[PY_PEERS];
    char version[PY_PEERS][640];
    char unavailable[PY_PEERS][512]; /* non-empty once a worker said `unavailable` */
    char dir[64];                    /* temporary directory for inputs and outputs */
    size_t n_inputs;
    char inputs_error[256]; /* why the shape's inputs are not there */
};

static void worker_kill(py_worker *w) {
    if (!w->pid) return;
    close(w->to);
    close(w->from);
    kill(w->pid, SIGKILL);
    waitpid(w->pid, NULL, 0);
    w->pid = 0;
    w->len = 0;
}

/* Frameworks allocate their outputs and temporaries per call (eager
 * PyTorch, XLA).  Under glibc's malloc the large ones are mmap'ed and
 * unmapped each call (always above 32 MiB, sometimes below, depending on the
 * process's allocation history), so the same peer measured 3.3 or 9.9 ms on a
 * 1024×4096 softmax from one process to the next, all page faults.  Python
 * workers therefore run under jemalloc (scripts/install-deps --bench) with
 * page purging off, the allocator setup PyTorch's CPU performance guide
 * recommends: freed memory is reused warm.  Without jemalloc they run under
 * glibc and their version says so (worker_loop.py). */
static void use_jemalloc(void) {
    static const char *const paths[] = {"/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", "/usr/lib64/libjemalloc.so.2",
                                        "/usr/lib/libjemalloc.so.2"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
        if (access(paths[i], R_OK) == 0) {
            setenv("LD_PRELOAD", paths[i], 1);
            setenv("MALLOC_CONF", "dirty_decay_ms:-1,muzzy_decay_ms:-1", 1);
            return;
        }
}

static bool worker_spawn(py_worker *w, const char *python, const char *script, const char *mode, char *err,
                         size_t errlen) {
    int in[2], out[2];
    if (pipe(in) || pipe(out)) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return false;
    }
    /* A worker started later must not inherit this one's pipe ends (it would
     * keep them open after this one is gone); dup2 below clears the flag on
     * the child's stdin and stdout. */
    for (int k = 0; k < 2; k++) fcntl(in[k], F_SETFD, FD_CLOEXEC), fcntl(out[k], F_SETFD, FD_CLOEXEC);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        return false;
    }
    if (pid == 0) {
        char threads[16];
        snprintf(threads, sizeof threads, "%d", w->threads);
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        use_jemalloc();
        execlp(python, python, script, "--mode", mode, "--threads", threads, (char *)NULL);
        fprintf(stderr, "bench: cannot run %s %s: %s\n", python, script, strerror(errno));
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    w->pid = pid;
    w->to = in[1];
    w->from = out[0];
    w->len = 0;
    return true;
}

/* The worker of peer `kind` for `threads` (a slot; started by request). */
static py_worker *worker_for(py_peers *ps, size_t kind, int threads) {
    for (size_t i = 0; i < ps->n_workers[kind]; i++)
        if (ps->workers[kind][i].threads == threads) return &ps->workers[kind][i];
    if (ps->n_workers[kind] == PY_MAX_WORKERS) return NULL;
    py_worker *w = &ps->workers[kind][ps->n_workers[kind]++];
    memset(w, 0, sizeof *w);
    w->threads = threads;
    return w;
}

/* Sends one request line and reads one reply line (without the newline). */
static bool request(py_peers *ps, size_t kind, py_worker *w, const char *line, char *reply, size_t size, char *err,
                    size_t errlen) {
    const char *name = py_peer_kinds[kind].name;
    if (!w->pid && !worker_spawn(w, ps->python, ps->script[kind], py_peer_kinds[kind].mode, err, errlen))
        return false;
    size_t n = strlen(line);
    for (size_t done = 0; done < n + 1;) {
        ssize_t k = done < n ? write(w->to, line + done, n - done) : write(w->to, "\n", 1);
        if (k <= 0) {
            snprintf(err, errlen, "%s worker: write failed (%s)", name, strerror(errno));
            worker_kill(w);
            return false;
        }
        done += (size_t)k;
    }
    double deadline = bench_now_us() + PY_TIMEOUT_MS * 1e3;
    for (;;) {
        char *nl = memchr(w->buf, '\n', w->len);
        if (nl) {
            size_t l = (size_t)(nl - w->buf);
            snprintf(reply, size, "%.*s", (int)l, w->buf);
            memmove(w->buf, nl + 1, w->len - l - 1);
            w->len -= l + 1;
            return true;
        }
        int left = (int)((deadline - bench_now_us()) / 1e3);
        struct pollfd pfd = {w->from, POLLIN, 0};
        int ready = left > 0 ? poll(&pfd, 1, left) : 0;
        if (ready < 0 && errno == EINTR) continue;
        ssize_t k = ready > 0 && w->len < sizeof w->buf ? read(w->from, w->buf + w->len, sizeof w->buf - w->len) : -1;
        if (k <= 0) {
            snprintf(err, errlen, ready == 0 ? "%s worker: no reply to '%.64s' within %d s"
                                             : "%s worker exited (or overlong reply) on '%.64s'",
                     name, line, PY_TIMEOUT_MS / 1000);
            worker_kill(w);
            return false;
        }
        w->len += (size_t)k;
    }
}

py_peers *py_peers_start(const bench_options *o) {
    py_peers *ps = calloc(1, sizeof *ps);
    if (!ps) {
        fprintf(stderr, "bench: out of memory\n");
        exit(1);
    }
    /* A dead worker must not kill the driver with SIGPIPE. */
    signal(SIGPIPE, SIG_IGN);
    ps->o = o;
    ps->python = o->python ? o->python : "python3";
    const char *dir = o->peers_dir ? o->peers_dir : TILEC_PEERS_DIR;
    for (size_t k = 0; k < PY_PEERS; k++) {
        snprintf(ps->script[k], sizeof ps->script[k], "%s/%s", dir, py_peer_kinds[k].script);
        snprintf(ps->version[k], sizeof ps->version[k], "unknown");
    }
    snprintf(ps->dir, sizeof ps->dir, "/tmp/tilec-bench-XXXXXX");
    if (!mkdtemp(ps->dir)) ps->dir[0] = 0;
    return ps;
}

static void remove_files(py_peers *ps) {
    char path[128];
    for (size_t i = 0; i < ps->n_inputs; i++) {
        snprintf(path, sizeof path, "%s/in%zu.f32", ps->dir, i);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/out.f32", ps->dir);
    unlink(path);
    ps->n_inputs = 0;
}

void py_peers_stop(py_peers *ps) {
    if (!ps) return;
    for (size_t k = 0; k < PY_PEERS; k++)
        for (size_t i = 0; i < ps->n_workers[k]; i++) {
            py_worker *w = &ps->workers[k][i];
            if (!w->pid) continue;
            char reply[64], err[64];
            /* quit has no reply: the worker's exit ends the request (worker_kill
             * then reaps it and clears pid) */
            (void)request(ps, k, w, "quit", reply, sizeof reply, err, sizeof err);
            worker_kill(w);
        }
    if (ps->dir[0]) {
        remove_files(ps);
        rmdir(ps->dir);
    }
    free(ps);
}

/* Records an `unavailable MESSAGE` reply; true when it was one. */
static bool note_unavailable(py_peers *ps, size_t kind, const char *reply) {
    if (strncmp(reply, "unavailable", 11)) return false;
    const char *why = reply + 11 + (reply[11] == ' ');
    snprintf(ps->unavailable[kind], sizeof ps->unavailable[kind], "%s", why);
    snprintf(ps->version[kind], sizeof ps->version[kind], "unavailable: %s", why);
    return true;
}

const char *py_peer_version(py_peers *ps, size_t kind) {
    if (ps->unavailable[kind][0] || access(ps->script[kind], R_OK)) return ps->version[kind];
    /* any worker of the peer answers; the one-thread one is started if none is */
    py_worker *w = ps->n_workers[kind] ? &ps->workers[kind][0] : worker_for(ps, kind, 1);
    char reply[640] = "", err[256];
    if (request(ps, kind, w, "version", reply, sizeof reply, err, sizeof err) && !strncmp(reply, "ok ", 3))
        snprintf(ps->version[kind], sizeof ps->version[kind], "%s", reply + 3);
    else
        note_unavailable(ps, kind, reply);
    return ps->version[kind];
}

void py_peers_doc_end(bench_doc *d, py_peers *ps, size_t n, const char *const *names, const char *const *versions) {
    const char **all = malloc(2 * (n + PY_PEERS) * sizeof *all), **all_versions = all + n + PY_PEERS;
    if (!all) {
        fprintf(stderr, "bench: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < n; i++) all[i] = names[i], all_versions[i] = versions[i];
    for (size_t k = 0; k < PY_PEERS; k++) all[n + k] = py_peer_kinds[k].name, all_versions[n + k] = py_peer_version(ps, k);
    bench_doc_end(d, n + PY_PEERS, all, all_versions);
    free(all);
}

static bool py_check(void *state, float *out, size_t n, char *err, size_t errlen) {
    py_peer_state *s = state;
    const char *name = py_peer_kinds[s->kind].name;
    char line[256], reply[1024], path[128];
    snprintf(path, sizeof path, "%s/out.f32", s->ps->dir);
    unlink(path);
    snprintf(line, sizeof line, "check %s", path);
    if (!request(s->ps, s->kind, s->w, line, reply, sizeof reply, err, errlen)) return false;
    if (strcmp(reply, "ok")) {
        snprintf(err, errlen, "%s check: %s", name, reply);
        return false;
    }
    size_t len = 0;
    char *data = bench_read_file(path, &len);
    bool ok = data && len == n * sizeof(float);
    if (ok)
        memcpy(out, data, len);
    else
        snprintf(err, errlen, "%s check: output %s has %zu bytes, expected %zu", name, path, len, n * sizeof(float));
    free(data);
    return ok;
}

static double py_run_batch(void *state, uint64_t reps, char *err, size_t errlen) {
    py_peer_state *s = state;
    char line[64], reply[1024];
    snprintf(line, sizeof line, "run %llu", (unsigned long long)reps);
    if (!request(s->ps, s->kind, s->w, line, reply, sizeof reply, err, errlen)) return -1;
    char *end;
    double us = strncmp(reply, "ok ", 3) ? -1 : strtod(reply + 3, &end);
    if (!(us >= 0)) {
        snprintf(err, errlen, "%s run: %s", py_peer_kinds[s->kind].name, reply);
        return -1;
    }
    return us;
}

static bool write_floats(const char *path, const float *x, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) return false;
    bool ok = fwrite(x, sizeof *x, n, f) == n;
    return fclose(f) == 0 && ok;
}

void py_peers_inputs(py_peers *ps, const float *const *inputs, const size_t *lens, size_t n_inputs) {
    remove_files(ps);
    ps->inputs_error[0] = 0;
    if (!ps->dir[0]) {
        snprintf(ps->inputs_error, sizeof ps->inputs_error, "no temporary directory for the Python peers' inputs");
        return;
    }
    char path[128];
    for (size_t i = 0; i < n_inputs; i++) {
        snprintf(path, sizeof path, "%s/in%zu.f32", ps->dir, i);
        ps->n_inputs = i + 1;
        if (!write_floats(path, inputs[i], lens[i])) {
            snprintf(ps->inputs_error, sizeof ps->inputs_error, "cannot write %s: %s", path, strerror(errno));
            return;
        }
    }
}

void py_peer_setup(bench_peer *p, py_peers *ps, size_t kind, const char *op, int threads, const int *dims,
                   size_t n_dims) {
    const py_peer_kind *k = &py_peer_kinds[kind];
    memset(p, 0, sizeof *p);
    p->name = k->name;
    if (!bench_peer_wanted(ps->o, k->name)) { /* bench_run_row leaves it out */
        bench_peer_preset(p, k->name, BENCH_SKIPPED, "not selected (--peer)");
        return;
    }
    if (ps->unavailable[kind][0]) {
        bench_peer_preset(p, k->name, BENCH_SKIPPED, "%s not importable: %s", k->module, ps->unavailable[kind]);
        return;
    }
    if (access(ps->script[kind], R_OK)) {
        bench_peer_preset(p, k->name, BENCH_ERROR, "no worker script %s", ps->script[kind]);
        return;
    }
    if (ps->inputs_error[0]) {
        bench_peer_preset(p, k->name, BENCH_ERROR, "%s", ps->inputs_error);
        return;
    }
    py_worker *w = worker_for(ps, kind, threads);
    if (!w) {
        bench_peer_preset(p, k->name, BENCH_ERROR, "more than %d thread counts", PY_MAX_WORKERS);
        return;
    }
    char line[512], reply[1024], err[512];
    snprintf(line, sizeof line, "setup %s %d %s", op, threads, ps->dir);
    for (size_t i = 0; i < n_dims; i++) bench_appendf(line, sizeof line, " %d", dims[i]);
    if (!request(ps, kind, w, line, reply, sizeof reply, err, sizeof err)) {
        bench_peer_preset(p, k->name, BENCH_ERROR, "%s", err);
        return;
    }
    if (note_unavailable(ps, kind, reply)) {
        bench_peer_preset(p, k->name, BENCH_SKIPPED, "%s not importable: %s", k->module, ps->unavailable[kind]);
        return;
    }
    if (!strncmp(reply, "unsupported ", 12)) { /* an op this peer does not implement */
        bench_peer_preset(p, k->name, BENCH_SKIPPED, "%s", reply + 12);
        return;
    }
    /* `ok`, or `ok COMPILE_MS` from a compiling peer */
    if (strncmp(reply, "ok", 2) || (reply[2] && reply[2] != ' ')) {
        bench_peer_preset(p, k->name, BENCH_ERROR, "%s setup: %s", k->name, reply);
        return;
    }
    if (reply[2]) p->compile_ms = strtod(reply + 3, NULL);
    ps->states[kind] = (py_peer_state){ps, kind, w};
    p->state = &ps->states[kind];
    p->run_batch = py_run_batch;
    p->check = py_check;
}
