/* The bench's measurement protocol (bench/harness.c) and its Python peers'
 * client (bench/py_peer.c), without any real peer or Python package:
 *  - one row with fake in-process peers — "tilec" and a "good" peer that
 *    write the expected output, a "liar" that writes a wrong element, and a
 *    peer preset skipped (as a Python peer whose module does not import).
 *    The JSON row must time tilec and good, report the liar as a mismatch
 *    after its one check run (never timed), and keep the skipped peer with
 *    its reason; with --peer good the row has tilec and good only;
 *  - a row with a bf16 output: the check widens it (one bf16 unit off
 *    passes at rtol 2^-7, two units off is a mismatch);
 *  - the peer registry: unique names, every worker script present and
 *    accepting its mode, every peer in docs/performance.md's peer table;
 *  - the client against fake workers (shell scripts, run by /bin/sh in place
 *    of Python): one answering `unavailable` (the peer is skipped with the
 *    reason, its version says unavailable), one answering `unsupported` (an
 *    op it does not implement: skipped with the reason), one answering
 *    `error` (the peer is an error with the worker's message). */
#include "bench/harness.h"
#include "bench/py_peer.h"
#include "harness.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { N = 64 };

typedef struct {
    float *out;
    const double *expected;
    int wrong; /* index written wrong, or -1 */
    int runs;
} fake;

static bool fake_run(void *state, char *err, size_t errlen) {
    (void)err, (void)errlen;
    fake *f = state;
    for (int i = 0; i < N; i++) f->out[i] = (float)f->expected[i] + (i == f->wrong ? 1.0f : 0.0f);
    f->runs++;
    return true;
}

/* A bf16 output: the expected values rounded to bf16, `wrong` two bf16
 * units off (the fake's out points at uint16_t bits). */
static bool fake_run_bf16(void *state, char *err, size_t errlen) {
    (void)err, (void)errlen;
    fake *f = state;
    uint16_t *bits = (uint16_t *)(void *)f->out;
    for (int i = 0; i < N; i++) bits[i] = (uint16_t)(bench_bf16_round((float)f->expected[i]) + (i == f->wrong ? 2 : 0));
    f->runs++;
    return true;
}

static char *slurp(FILE *f) {
    long n = ftell(f);
    char *s = calloc((size_t)n + 1, 1);
    rewind(f);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) s[0] = 0;
    return s;
}

/* The JSON object of peer `name` in the row (up to its closing brace). */
static char *peer_json(const char *doc, const char *name) {
    char key[64];
    snprintf(key, sizeof key, "{\"name\": \"%s\"", name);
    const char *at = strstr(doc, key), *end = at ? strchr(at, '}') : NULL;
    if (!end) return NULL;
    char *s = calloc((size_t)(end - at) + 2, 1);
    if (s) memcpy(s, at, (size_t)(end - at) + 1);
    return s;
}

/* Runs the row of the four fake peers under o ("good" a planner control
 * when `control`); the JSON document. */
static char *run_fake_row(const bench_options *o, fake *tilec, fake *good, fake *liar, bool control) {
    bench_peer peers[4];
    memset(peers, 0, sizeof peers);
    peers[0] = (bench_peer){.name = "tilec", .state = tilec, .run = fake_run};
    peers[1] = (bench_peer){.name = "good", .state = good, .run = fake_run, .compile_ms = 12.5, .control = control};
    peers[2] = (bench_peer){.name = "liar", .state = liar, .run = fake_run};
    bench_peer_preset(&peers[3], "absent", BENCH_SKIPPED, "module not importable: %s", "no such module");
    bench_row row = {.kernel = "fake", .shape = "64", .threads = 1, .unit = "GB/s", .work = N * sizeof(float),
                     .out = tilec->out, .out_len = N, .expected = tilec->expected, .atol = 1e-6, .rtol = 1e-6,
                     .peers = peers, .n_peers = 4};
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (!f) return NULL;
    bench_doc doc = {f, "selftest", 0, NULL};
    bench_run_row(&doc, o, &row);
    char *json = slurp(f);
    fclose(f);
    CHECK(json != NULL);
    return json;
}

static bench_options fast_options(void) {
    bench_options o;
    memset(&o, 0, sizeof o);
    o.rounds = 3, o.round_ms = 0.2, o.warmup_ms = 0.2, o.max_reps = 1000;
    return o;
}

static void test_row(void) {
    float out[N];
    double expected[N];
    for (int i = 0; i < N; i++) expected[i] = 0.25 * i - 3.0;
    fake tilec = {out, expected, -1, 0}, good = {out, expected, -1, 0}, liar = {out, expected, 17, 0};
    bench_options o = fast_options();
    char *json = run_fake_row(&o, &tilec, &good, &liar, false);
    char *t = json ? peer_json(json, "tilec") : NULL, *g = json ? peer_json(json, "good") : NULL;
    char *l = json ? peer_json(json, "liar") : NULL, *a = json ? peer_json(json, "absent") : NULL;
    CHECK_MSG(t && strstr(t, "\"status\": \"ok\"") && strstr(t, "\"median_us\""), "tilec: %s", t ? t : "(none)");
    CHECK_MSG(g && strstr(g, "\"status\": \"ok\"") && strstr(g, "\"compile_ms\": 12.5"), "good: %s", g ? g : "(none)");
    CHECK_MSG(l && strstr(l, "\"status\": \"mismatch\"") && !strstr(l, "median_us"), "liar: %s", l ? l : "(none)");
    CHECK_MSG(liar.runs == 1, "the mismatching peer ran %d times (its check only)", liar.runs);
    CHECK_MSG(good.runs > 3 && tilec.runs > 3, "timed peers ran %d and %d times", good.runs, tilec.runs);
    CHECK_MSG(a && strstr(a, "\"status\": \"skipped\"") && strstr(a, "no such module"), "absent: %s",
              a ? a : "(none)");
    CHECK_MSG(json && strstr(json, "\"best_peer\": \"good\""), "best peer: %s", json ? json : "(none)");
    free(t), free(g), free(l), free(a), free(json);

    /* --peer good: the liar and the skipped peer are not in the row */
    o.peers[o.n_peers++] = "good";
    liar.runs = 0;
    json = run_fake_row(&o, &tilec, &good, &liar, false);
    CHECK_MSG(json && strstr(json, "\"name\": \"tilec\"") && strstr(json, "\"name\": \"good\"") &&
                  !strstr(json, "\"name\": \"liar\"") && !strstr(json, "\"name\": \"absent\""),
              "--peer good: %s", json ? json : "(none)");
    CHECK_MSG(liar.runs == 0, "a peer --peer leaves out ran %d times", liar.runs);
    free(json);

    /* a planner control is timed and has a ratio, but is never the best peer */
    json = run_fake_row(&o, &tilec, &good, &liar, true);
    char *c = json ? peer_json(json, "good") : NULL;
    CHECK_MSG(c && strstr(c, "\"control\": true") && strstr(c, "\"median_us\""), "control: %s", c ? c : "(none)");
    CHECK_MSG(json && strstr(json, "\"best_peer\": null") && strstr(json, "{\"peer\": \"good\", \"median\""),
              "control row: %s", json ? json : "(none)");
    free(c), free(json);
}

static void test_bf16_row(void) {
    uint16_t bits[N];
    double expected[N];
    for (int i = 0; i < N; i++) expected[i] = 1.0 + i / 3.0; /* most round to bf16 with an error */
    fake tilec = {(float *)(void *)bits, expected, -1, 0}, liar = {(float *)(void *)bits, expected, 5, 0};
    bench_peer peers[2] = {{.name = "tilec", .state = &tilec, .run = fake_run_bf16},
                           {.name = "liar", .state = &liar, .run = fake_run_bf16}};
    bench_row row = {.kernel = "fake_bf16", .shape = "64", .threads = 1, .unit = "GB/s", .work = N * 2, .out = bits,
                     .out_bf16 = true, .out_len = N, .expected = expected, .atol = 0, .rtol = 0x1p-7,
                     .peers = peers, .n_peers = 2};
    bench_options o = fast_options();
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (!f) return;
    bench_doc doc = {f, "selftest", 0, NULL};
    bench_run_row(&doc, &o, &row);
    char *json = slurp(f);
    fclose(f);
    char *t = json ? peer_json(json, "tilec") : NULL, *l = json ? peer_json(json, "liar") : NULL;
    CHECK_MSG(t && strstr(t, "\"status\": \"ok\""), "bf16 tilec: %s", t ? t : "(none)");
    CHECK_MSG(l && strstr(l, "\"status\": \"mismatch\"") && strstr(l, "first at 5"), "bf16 liar: %s", l ? l : "(none)");
    free(t), free(l), free(json);
}

static void test_registry(void) {
    char *doc = bench_read_file(TILEC_EXAMPLES_DIR "/../docs/performance.md", NULL);
    CHECK_MSG(doc != NULL, "cannot read docs/performance.md");
    for (size_t k = 0; k < PY_PEERS; k++) {
        const py_peer_kind *p = &py_peer_kinds[k];
        for (size_t j = 0; j < k; j++) CHECK_MSG(strcmp(p->name, py_peer_kinds[j].name), "peer %s twice", p->name);
        char path[512], mode[64], row[64];
        snprintf(path, sizeof path, "%s/%s", TILEC_PEERS_DIR, p->script);
        char *script = bench_read_file(path, NULL);
        snprintf(mode, sizeof mode, "\"%s\"", p->mode);
        CHECK_MSG(script && strstr(script, "parse_argv(") && strstr(script, mode), "%s: no script %s with mode %s",
                  p->name, path, mode);
        snprintf(row, sizeof row, "| `%s` |", p->name);
        CHECK_MSG(doc && strstr(doc, row), "docs/performance.md has no peer row '%s'", row);
        free(script);
    }
    free(doc);
}

/* A peers directory whose every worker script is the shell script `body`. */
static void fake_peers_dir(char *dir, size_t size, const char *body) {
    snprintf(dir, size, "/tmp/tilec-test-peers-XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    for (size_t k = 0; k < PY_PEERS; k++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, py_peer_kinds[k].script);
        FILE *f = fopen(path, "w");
        CHECK(f != NULL);
        if (f) fputs(body, f), fclose(f);
    }
}

static void remove_peers_dir(const char *dir) {
    for (size_t k = 0; k < PY_PEERS; k++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, py_peer_kinds[k].script);
        unlink(path);
    }
    rmdir(dir);
}

static void test_client(void) {
    static const struct {
        const char *reply;  /* every request's */
        bench_status want;
        const char *message; /* in the peer's message */
    } cases[] = {
        {"unavailable ModuleNotFoundError: no fake here", BENCH_SKIPPED, "no fake here"},
        {"unsupported gemm_bf16: no fake pipeline", BENCH_SKIPPED, "no fake pipeline"},
        {"error ValueError: bad fake", BENCH_ERROR, "bad fake"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char dir[64], body[256];
        snprintf(body, sizeof body, "while read -r line; do [ \"$line\" = quit ] && exit 0; echo '%s'; done\n",
                 cases[c].reply);
        fake_peers_dir(dir, sizeof dir, body);
        bench_options o = fast_options();
        o.peers_dir = dir;
        o.python = "/bin/sh";
        py_peers *ps = py_peers_start(&o);
        float x[4] = {1, 2, 3, 4};
        const float *ins[1] = {x};
        size_t lens[1] = {4};
        int dims[2] = {2, 2};
        py_peers_inputs(ps, ins, lens, 1);
        for (size_t k = 0; k < PY_PEERS; k++) {
            bench_peer p;
            py_peer_setup(&p, ps, k, "softmax", 1, dims, 2);
            CHECK_MSG(p.preset == cases[c].want && strstr(p.message, cases[c].message) && !strcmp(p.name, py_peer_kinds[k].name),
                      "%s with '%s': status %d, message '%s'", py_peer_kinds[k].name, cases[c].reply, (int)p.preset,
                      p.message);
        }
        const char *v = py_peer_version(ps, 0);
        if (!strncmp(cases[c].reply, "unavailable", 11))
            CHECK_MSG(!strncmp(v, "unavailable: ", 13), "version of an unavailable peer: %s", v);
        py_peers_stop(ps);
        remove_peers_dir(dir);
    }
}

int main(void) {
    test_row();
    test_bf16_row();
    test_registry();
    test_client();
    TEST_MAIN_END();
}
