/* torch_peer.c — client side of the PyTorch coprocess (torch_peer.h). */
#include "torch_peer.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* A request that takes longer than this is an error, never a slow result. */
enum { TORCH_TIMEOUT_MS = 300 * 1000 };

struct torch_worker {
    const char *script;
    const char *python;
    const char *mode; /* NULL: eager; "inductor": torch.compile */
    const char *name; /* the peer: "torch" or the mode */
    pid_t pid; /* 0: not running */
    int to, from;
    char buf[8192]; /* reply bytes not yet consumed */
    size_t len;
    char dir[64];   /* temporary directory for inputs and outputs */
    size_t n_inputs;
    char version[640];
    char unavailable[512]; /* non-empty once the worker said `unavailable` */
};

static void worker_kill(torch_worker *w) {
    if (!w->pid) return;
    close(w->to);
    close(w->from);
    kill(w->pid, SIGKILL);
    waitpid(w->pid, NULL, 0);
    w->pid = 0;
    w->len = 0;
}

static bool worker_spawn(torch_worker *w, char *err, size_t errlen) {
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
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        if (w->mode) execlp(w->python, w->python, w->script, "--mode", w->mode, (char *)NULL);
        else execlp(w->python, w->python, w->script, (char *)NULL);
        fprintf(stderr, "bench: cannot run %s %s: %s\n", w->python, w->script, strerror(errno));
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

/* Sends one request line and reads one reply line (without the newline). */
static bool request(torch_worker *w, const char *line, char *reply, size_t size, char *err, size_t errlen) {
    if (!w->pid && !worker_spawn(w, err, errlen)) return false;
    size_t n = strlen(line);
    for (size_t done = 0; done < n + 1;) {
        ssize_t k = done < n ? write(w->to, line + done, n - done) : write(w->to, "\n", 1);
        if (k <= 0) {
            snprintf(err, errlen, "torch worker: write failed (%s)", strerror(errno));
            worker_kill(w);
            return false;
        }
        done += (size_t)k;
    }
    double deadline = bench_now_us() + TORCH_TIMEOUT_MS * 1e3;
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
            snprintf(err, errlen, ready == 0 ? "torch worker: no reply to '%.64s' within %d s"
                                             : "torch worker exited (or overlong reply) on '%.64s'",
                     line, TORCH_TIMEOUT_MS / 1000);
            worker_kill(w);
            return false;
        }
        w->len += (size_t)k;
    }
}

torch_worker *torch_worker_start(const char *script, const char *python, const char *mode) {
    torch_worker *w = calloc(1, sizeof *w);
    if (!w) {
        fprintf(stderr, "bench: out of memory\n");
        exit(1);
    }
    /* A dead worker must not kill the driver with SIGPIPE. */
    signal(SIGPIPE, SIG_IGN);
    w->script = script;
    w->mode = mode;
    w->name = mode ? mode : "torch";
    /* Debian's python3-torch belongs to /usr/bin/python3, which a python3
     * earlier on PATH (pyenv, venv) would not see. */
    w->python = python ? python : access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
    snprintf(w->dir, sizeof w->dir, "/tmp/tilec-bench-XXXXXX");
    if (!mkdtemp(w->dir)) w->dir[0] = 0;
    snprintf(w->version, sizeof w->version, "unknown");
    return w;
}

static void remove_files(torch_worker *w) {
    char path[128];
    for (size_t i = 0; i < w->n_inputs; i++) {
        snprintf(path, sizeof path, "%s/in%zu.f32", w->dir, i);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/out.f32", w->dir);
    unlink(path);
    w->n_inputs = 0;
}

void torch_worker_stop(torch_worker *w) {
    if (!w) return;
    if (w->pid) {
        char reply[64], err[64];
        /* quit has no reply: the worker's exit ends the request (worker_kill
         * then reaps it and clears pid; waitpid(0) would wait for any child) */
        (void)request(w, "quit", reply, sizeof reply, err, sizeof err);
        worker_kill(w);
    }
    if (w->dir[0]) {
        remove_files(w);
        rmdir(w->dir);
    }
    free(w);
}

void torch_workers_start(torch_worker *w[TORCH_PEERS], const char *script, const bench_options *o) {
    static const char *const modes[TORCH_PEERS] = {NULL, "inductor"};
    for (size_t i = 0; i < TORCH_PEERS; i++)
        w[i] = torch_worker_start(o->torch_worker ? o->torch_worker : script, o->python, modes[i]);
}

void torch_workers_stop(torch_worker *w[TORCH_PEERS]) {
    for (size_t i = 0; i < TORCH_PEERS; i++) torch_worker_stop(w[i]);
}

const char *torch_worker_name(const torch_worker *w) { return w->name; }

const char *torch_worker_version(torch_worker *w) {
    if (w->unavailable[0] || access(w->script, R_OK)) return w->version;
    char reply[256] = "", err[256];
    /* `version` is an extension of the protocol; an older worker answers
     * with an error and the version stays "unknown". */
    if (request(w, "version", reply, sizeof reply, err, sizeof err) && !strncmp(reply, "ok ", 3))
        snprintf(w->version, sizeof w->version, "%s", reply + 3);
    else if (!strncmp(reply, "unavailable", 11))
        snprintf(w->version, sizeof w->version, "unavailable: %s", reply + 11 + (reply[11] == ' '));
    return w->version;
}

static bool torch_check(void *state, float *out, size_t n, char *err, size_t errlen) {
    torch_worker *w = state;
    char line[256], reply[1024], path[128];
    snprintf(path, sizeof path, "%s/out.f32", w->dir);
    unlink(path);
    snprintf(line, sizeof line, "check %s", path);
    if (!request(w, line, reply, sizeof reply, err, errlen)) return false;
    if (strcmp(reply, "ok")) {
        snprintf(err, errlen, "torch check: %s", reply);
        return false;
    }
    size_t len = 0;
    char *data = bench_read_file(path, &len);
    bool ok = data && len == n * sizeof(float);
    if (ok)
        memcpy(out, data, len);
    else
        snprintf(err, errlen, "torch check: output %s has %zu bytes, expected %zu", path, len, n * sizeof(float));
    free(data);
    return ok;
}

static double torch_run_batch(void *state, uint64_t reps, char *err, size_t errlen) {
    torch_worker *w = state;
    char line[64], reply[1024];
    snprintf(line, sizeof line, "run %llu", (unsigned long long)reps);
    if (!request(w, line, reply, sizeof reply, err, errlen)) return -1;
    char *end;
    double us = strncmp(reply, "ok ", 3) ? -1 : strtod(reply + 3, &end);
    if (!(us >= 0)) {
        snprintf(err, errlen, "torch run: %s", reply);
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

void torch_peer_setup(bench_peer *p, torch_worker *w, const char *op, int threads, const float *const *inputs,
                      const size_t *lens, size_t n_inputs, const int *dims, size_t n_dims) {
    memset(p, 0, sizeof *p);
    p->name = w->name;
    if (w->unavailable[0]) {
        bench_peer_preset(p, w->name, BENCH_SKIPPED, "torch not importable: %s", w->unavailable);
        return;
    }
    if (access(w->script, R_OK)) {
        bench_peer_preset(p, w->name, BENCH_ERROR, "no torch worker script %s", w->script);
        return;
    }
    if (!w->dir[0]) {
        bench_peer_preset(p, w->name, BENCH_ERROR, "no temporary directory for the torch inputs");
        return;
    }
    remove_files(w);
    char path[128], line[512], reply[1024], err[512];
    for (size_t i = 0; i < n_inputs; i++) {
        snprintf(path, sizeof path, "%s/in%zu.f32", w->dir, i);
        w->n_inputs = i + 1;
        if (!write_floats(path, inputs[i], lens[i])) {
            bench_peer_preset(p, w->name, BENCH_ERROR, "cannot write %s", path);
            return;
        }
    }
    snprintf(line, sizeof line, "setup %s %d %s", op, threads, w->dir);
    for (size_t i = 0; i < n_dims; i++) bench_appendf(line, sizeof line, " %d", dims[i]);
    if (!request(w, line, reply, sizeof reply, err, sizeof err)) {
        bench_peer_preset(p, w->name, BENCH_ERROR, "%s", err);
        return;
    }
    if (!strncmp(reply, "unavailable", 11)) {
        snprintf(w->unavailable, sizeof w->unavailable, "%s", reply + 11 + (reply[11] == ' '));
        snprintf(w->version, sizeof w->version, "unavailable: %s", w->unavailable);
        bench_peer_preset(p, w->name, BENCH_SKIPPED, "torch not importable: %s", w->unavailable);
        return;
    }
    /* `ok`, or `ok COMPILE_MS` from a compiling mode */
    if (strncmp(reply, "ok", 2) || (reply[2] && reply[2] != ' ')) {
        bench_peer_preset(p, w->name, BENCH_ERROR, "torch setup: %s", reply);
        return;
    }
    if (reply[2]) p->compile_ms = strtod(reply + 3, NULL);
    p->state = w;
    p->run_batch = torch_run_batch;
    p->check = torch_check;
}
