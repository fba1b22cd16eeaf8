/* The bench's measurement protocol (bench/harness.c), without any real peer:
 * one row with fake in-process peers — "tilec" and a "good" peer that write
 * the expected output, a "liar" that writes a wrong element, and a peer
 * preset skipped (as a Python peer whose module does not import).  The JSON
 * row must time tilec and good, report the liar as a mismatch after its one
 * check run (never timed), and keep the skipped peer with its reason. */
#include "bench/harness.h"
#include "harness.h"

#include <stdlib.h>
#include <string.h>

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

int main(void) {
    float out[N];
    double expected[N];
    for (int i = 0; i < N; i++) expected[i] = 0.25 * i - 3.0;
    fake tilec = {out, expected, -1, 0}, good = {out, expected, -1, 0}, liar = {out, expected, 17, 0};
    bench_peer peers[4];
    memset(peers, 0, sizeof peers);
    peers[0] = (bench_peer){.name = "tilec", .state = &tilec, .run = fake_run};
    peers[1] = (bench_peer){.name = "good", .state = &good, .run = fake_run, .compile_ms = 12.5};
    peers[2] = (bench_peer){.name = "liar", .state = &liar, .run = fake_run};
    bench_peer_preset(&peers[3], "absent", BENCH_SKIPPED, "module not importable: %s", "no such module");
    bench_options o;
    memset(&o, 0, sizeof o);
    o.rounds = 3, o.round_ms = 0.2, o.warmup_ms = 0.2, o.max_reps = 1000;
    bench_row row = {.kernel = "fake", .shape = "64", .threads = 1, .unit = "GB/s", .work = N * sizeof(float),
                     .out = out, .out_len = N, .expected = expected, .atol = 1e-6, .rtol = 1e-6,
                     .peers = peers, .n_peers = 4};
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (!f) TEST_MAIN_END();
    bench_doc doc = {f, "selftest", 0};
    bench_run_row(&doc, &o, &row);
    char *json = slurp(f);
    fclose(f);
    CHECK(json != NULL);
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
    TEST_MAIN_END();
}
