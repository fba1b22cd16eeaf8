/* Bounds faults through the public facade: for every access kind the bounds
 * analysis may not prove — scalar loads and stores (TIR-I08, past the end,
 * negative, an axis out while the flat index is in range), extracts (TIR-I09,
 * also inside a map and a reduction), bounds=assume subtile loads and stores
 * (TIR-I07, contiguous and strided) — one kernel where exactly one program goes out of range, run
 * natively at W ∈ {1, 4, 16} on 1 and 2 workers with canary bytes around
 * every buffer: the dispatch fails with the reference interpreter's exact
 * diagnostic (code, message, location), no canary byte changes, and the
 * context and kernel stay usable (a second dispatch reports it again).
 * Also: in-range runs report nothing and match the reference (masked loads
 * whose predicate keeps them in range, bounds=zero tiles hanging off the
 * view), check_bounds mode checks proven accesses too with equal results,
 * and the realization counts the checks. */
#include "lower/lower_fixture.h"
#include "tilec/tilec.h"

enum { CANARY = 256, CANARY_BYTE = 0xC3 };

typedef struct {
    const char *name;
    const char *text;
    const char *code; /* NULL: runs in range */
    const char *message;
} fault_case;

static const fault_case cases[] = {
    {"scalar load past the end",
     "kernel @k(%X: const view<f32>[x=16], %Y: view<f32>[y=4]) {\n"
     "  parallel (%i: i=4) {\n"
     "    %c = const index 13\n"
     "    %j = add %i, %c\n"
     "    %v = load %X[%j]\n"
     "    store %Y[%i], %v\n"
     "  }\n"
     "}\n",
     "TIR-I08", "scalar load from %X in '@k': index 16 along axis 0 is outside [0, 16)"},
    {"scalar store before the start",
     "kernel @k(%X: const view<f32>[x=4], %Y: view<f32>[y=4]) {\n"
     "  parallel (%i: i=4) {\n"
     "    %v = load %X[%i]\n"
     "    %z = const index 0\n"
     "    %far = const index -1000\n"
     "    %first = eq %i, %z\n"
     "    %j = select %first, %far, %i\n"
     "    store %Y[%j], %v\n"
     "  }\n"
     "}\n",
     "TIR-I08", "scalar store to %Y in '@k': index -1000 along axis 0 is outside [0, 4)"},
    {"scalar store with an axis out and the flat index in range",
     "kernel @k(%X: const view<f32>[r=4, c=4], %Y: view<f32>[s=4, d=4]) {\n"
     "  parallel (%i: i=4) {\n"
     "    %v = load %X[%i, %i]\n"
     "    %two = const index 2\n"
     "    %five = const index 5\n"
     "    %hit = eq %i, %two\n"
     "    %j = select %hit, %five, %i\n"
     "    store %Y[%i, %j], %v\n"
     "  }\n"
     "}\n",
     "TIR-I08", "scalar store to %Y in '@k': index 5 along axis 1 is outside [0, 4)"},
    {"extract past the tile",
     "kernel @k(%X: const view<f32>[x=8], %Y: view<f32>[y=4]) {\n"
     "  parallel (%i: i=4) {\n"
     "    %z = const index 0\n"
     "    %t = load %X[%z] tile [e=8] bounds=zero\n"
     "    %c = const index 5\n"
     "    %j = add %i, %c\n"
     "    %v = extract %t[%j]\n"
     "    store %Y[%i], %v\n"
     "  }\n"
     "}\n",
     "TIR-I09", "extract from %t in '@k': coordinate 8 along 'e' is outside [0, 8)"},
    {"extract inside a reduction",
     "kernel @k(%X: const view<f32>[x=8], %Y: view<f32>[y=4]) {\n"
     "  parallel (%i: i=4) {\n"
     "    %z = const index 0\n"
     "    %t = load %X[%z] tile [e=8] bounds=zero\n"
     "    %zero = const f32 0.0\n"
     "    %s = reduce (%k: k=3) policy=fold_left iter(%a = %zero) -> (f32) {\n"
     "      %ik = mul %i, %k\n"
     "      %three = const index 3\n"
     "      %o = add %ik, %three\n"
     "      %v = extract %t[%o]\n"
     "      %an = add %a, %v\n"
     "      yield %an\n"
     "    }\n"
     "    store %Y[%i], %s\n"
     "  }\n"
     "}\n",
     "TIR-I09", "extract from %t in '@k': coordinate 9 along 'e' is outside [0, 8)"},
    {"extract inside a map",
     "kernel @k(%X: const view<f32>[x=8], %Y: view<f32>[y=4]) {\n"
     "  parallel (%i: i=4) {\n"
     "    %z = const index 0\n"
     "    %t = load %X[%z] tile [e=8] bounds=zero\n"
     "    %m = map (%u: u=2) -> f32 {\n"
     "      %o = mul %i, %u\n"
     "      %c = const index 5\n"
     "      %p = add %o, %c\n"
     "      %v = extract %t[%p]\n"
     "      yield %v\n"
     "    }\n"
     "    %one = const index 1\n"
     "    %w = extract %m[%one]\n"
     "    store %Y[%i], %w\n"
     "  }\n"
     "}\n",
     "TIR-I09", "extract from %t in '@k': coordinate 8 along 'e' is outside [0, 8)"},
    {"bounds=assume load leaving the view",
     "kernel @k(%X: const view<f32>[x=10], %Y: view<f32>[y=12]) {\n"
     "  parallel (%b: b=3) {\n"
     "    %four = const index 4\n"
     "    %o = mul %b, %four\n"
     "    %t = load %X[%o] tile [e=4] bounds=assume\n"
     "    store %Y[%o] tile [e=4] bounds=assume, %t\n"
     "  }\n"
     "}\n",
     "TIR-I07",
     "load from %X in '@k' with bounds=assume is out of bounds: axis 0 covers [8, 8 + 4) but the view's extent is 10"},
    {"bounds=assume store leaving the view",
     "kernel @k(%X: const view<f32>[x=12], %Y: view<f32>[y=10]) {\n"
     "  parallel (%b: b=3) {\n"
     "    %four = const index 4\n"
     "    %o = mul %b, %four\n"
     "    %t = load %X[%o] tile [e=4] bounds=assume\n"
     "    store %Y[%o] tile [e=4] bounds=assume, %t\n"
     "  }\n"
     "}\n",
     "TIR-I07",
     "store to %Y in '@k' with bounds=assume is out of bounds: axis 0 covers [8, 8 + 4) but the view's extent is 10"},
    {"strided bounds=assume load spanning past the view",
     "kernel @k(%X: const view<f32>[x=16], %Y: view<f32>[y=12]) {\n"
     "  parallel (%b: b=3) {\n"
     "    %four = const index 4\n"
     "    %o = mul %b, %four\n"
     "    %t = load %X[%o] tile [e=4] stride [3] bounds=assume\n"
     "    store %Y[%o] tile [e=4] bounds=assume, %t\n"
     "  }\n"
     "}\n",
     "TIR-I07",
     "load from %X in '@k' with bounds=assume is out of bounds: axis 0 covers [8, 8 + 10) but the view's extent is 16"},
    {"strided bounds=assume store spanning past the view",
     "kernel @k(%X: const view<f32>[x=12], %Y: view<f32>[y=22]) {\n"
     "  parallel (%b: b=3) {\n"
     "    %four = const index 4\n"
     "    %o = mul %b, %four\n"
     "    %t = load %X[%o] tile [e=4] bounds=assume\n"
     "    %p = mul %b, %o\n"
     "    store %Y[%p] tile [e=4] stride [2] bounds=assume, %t\n"
     "  }\n"
     "}\n",
     "TIR-I07",
     "store to %Y in '@k' with bounds=assume is out of bounds: axis 0 covers [16, 16 + 7) but the view's extent is 22"},
    {"masked load kept in range by its predicate",
     "kernel @k(%X: const view<f32>[x=8], %Y: view<f32>[y=8]) {\n"
     "  parallel (%i: i=8) {\n"
     "    %n = const index 8\n"
     "    %one = const index 1\n"
     "    %next = add %i, %one\n"
     "    %ok = lt %next, %n\n"
     "    %fb = const f32 -1.0\n"
     "    %v = load %X[%next] mask %ok else %fb\n"
     "    store %Y[%i], %v\n"
     "  }\n"
     "}\n",
     NULL, NULL},
    {"masked load whose predicate lets it out",
     "kernel @k(%X: const view<f32>[x=8], %Y: view<f32>[y=8]) {\n"
     "  parallel (%i: i=8) {\n"
     "    %n = const index 9\n"
     "    %one = const index 1\n"
     "    %next = add %i, %one\n"
     "    %ok = lt %next, %n\n"
     "    %fb = const f32 -1.0\n"
     "    %v = load %X[%next] mask %ok else %fb\n"
     "    store %Y[%i], %v\n"
     "  }\n"
     "}\n",
     "TIR-I08", "scalar load from %X in '@k': index 8 along axis 0 is outside [0, 8)"},
    {"bounds=zero tiles hanging off the view",
     "kernel @k(%X: const view<f32>[x=10], %Y: view<f32>[y=10]) {\n"
     "  parallel (%b: b=3) {\n"
     "    %four = const index 4\n"
     "    %o = mul %b, %four\n"
     "    %t = load %X[%o] tile [e=4] bounds=zero\n"
     "    store %Y[%o] tile [e=4] bounds=zero, %t\n"
     "  }\n"
     "}\n",
     NULL, NULL},
};

/* One buffer per parameter with CANARY bytes on both sides. */
typedef struct {
    size_t n;
    unsigned char *raw[MAX_ARGS];
    tilec_buffer args[MAX_ARGS];
    tir_buffer ref[MAX_ARGS];
} fenced;

static void fence(const tir_func *f, fenced *b) {
    b->n = tir_func_param_count(f);
    for (size_t i = 0; i < b->n; i++) {
        const tir_value *p = tir_func_param(f, i);
        tir_scalar s = tir_value_elem(p);
        uint64_t volume;
        tir_space_volume(tir_type_space(tir_value_type(p)), &volume);
        size_t bytes = (size_t)volume * tir_scalar_size(s);
        b->raw[i] = malloc(bytes + 2 * CANARY);
        memset(b->raw[i], CANARY_BYTE, bytes + 2 * CANARY);
        float *data = (float *)(b->raw[i] + CANARY);
        for (size_t e = 0; e < bytes / sizeof(float); e++) data[e] = (float)(e + 1) * 0.5f;
        b->args[i] = (tilec_buffer){b->raw[i] + CANARY, bytes, s};
        b->ref[i] = (tir_buffer){malloc(bytes ? bytes : 1), bytes};
        memcpy(b->ref[i].data, data, bytes);
    }
}

static bool canaries_intact(const fenced *b) {
    for (size_t i = 0; i < b->n; i++) {
        const unsigned char *end = b->raw[i] + CANARY + b->args[i].size_bytes;
        for (size_t k = 0; k < CANARY; k++)
            if (b->raw[i][k] != CANARY_BYTE || end[k] != CANARY_BYTE) return false;
    }
    return true;
}

static void unfence(fenced *b) {
    for (size_t i = 0; i < b->n; i++) free(b->raw[i]), free(b->ref[i].data);
}

/* The first diagnostic, copied (code, message, line), then cleared. */
typedef struct {
    char code[16], message[256];
    uint32_t line, column;
} seen;

static seen take_diag(void) {
    seen s = {{0}, {0}, 0, 0};
    if (tilec_diag_count(ctx)) {
        const tilec_diag *d = tilec_diag_at(ctx, 0);
        snprintf(s.code, sizeof s.code, "%s", d->code);
        snprintf(s.message, sizeof s.message, "%s", d->message);
        s.line = d->loc.line, s.column = d->loc.column;
    }
    tilec_diag_clear(ctx);
    return s;
}

static void run_case(const fault_case *c, tilec_runtime *rt, uint32_t w, bool check_bounds) {
    tir_module *m = parse_kernel(c->text, NULL, 0);
    if (!m) return;
    const tir_func *f = tir_module_func(m, 0);
    fenced b;
    fence(f, &b);
    tilec_status ref_status = tir_interpret(ctx, f, b.n, b.ref);
    seen ref = take_diag();
    CHECK_MSG(c->code ? ref_status == TILEC_E_RUNTIME && !strcmp(ref.code, c->code) : ref_status == TILEC_OK,
              "%s: the reference gave %s [%s] %s", c->name, tilec_status_name(ref_status), ref.code, ref.message);
    if (c->code) CHECK_MSG(strstr(ref.message, c->message), "%s: reference message '%s'", c->name, ref.message);

    tilec_compile_options o = tilec_compile_options_default();
    o.width = w;
    o.runtime = rt;
    o.check_bounds = check_bounds;
    tilec_kernel *k = NULL;
    CHECK_MSG(tilec_compile(ctx, f, &o, &k) == TILEC_OK, "%s: compile failed at W=%u", c->name, w);
    flush_diags_in(ctx);
    for (int round = 0; k && round < 2; round++) {
        tilec_status st = tilec_dispatch(ctx, k, b.n, b.args);
        seen nat = take_diag();
        char label[160];
        snprintf(label, sizeof label, "%s, W=%u, %u worker(s), check_bounds=%d, dispatch %d", c->name, w,
                 tilec_runtime_workers(rt), check_bounds, round + 1);
        CHECK_MSG(canaries_intact(&b), "%s: a canary byte changed", label);
        if (!c->code) {
            CHECK_MSG(st == TILEC_OK, "%s: %s [%s] %s", label, tilec_status_name(st), nat.code, nat.message);
            for (size_t i = 0; i < b.n; i++)
                CHECK_MSG(!memcmp(b.args[i].data, b.ref[i].data, b.args[i].size_bytes), "%s: argument %zu differs",
                          label, i);
            continue;
        }
        CHECK_MSG(st == TILEC_E_RUNTIME, "%s: dispatch returned %s", label, tilec_status_name(st));
        CHECK_MSG(!strcmp(nat.code, ref.code) && !strcmp(nat.message, ref.message) && nat.line == ref.line &&
                      nat.column == ref.column,
                  "%s: native [%s] %u:%u %s, reference [%s] %u:%u %s", label, nat.code, nat.line, nat.column,
                  nat.message, ref.code, ref.line, ref.column, ref.message);
    }
    if (k) {
        const char *items = tilec_kernel_plan_realization(k);
        CHECK_MSG(c->code ? !strstr(items, "bounds_checks=0;") : true, "%s: no check counted: %s", c->name, items);
    }
    tilec_kernel_destroy(k);
    unfence(&b);
    tir_module_destroy(m);
}

static void test_faults(void) {
    tilec_runtime *runtimes[2] = {NULL, NULL};
    for (uint32_t t = 0; t < 2; t++) CHECK(tilec_runtime_create(ctx, t + 1, &runtimes[t]) == TILEC_OK);
    if (!runtimes[0] || !runtimes[1]) return;
    static const uint32_t widths[] = {1, 4, 16};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (size_t w = 0; w < 3; w++)
            for (uint32_t t = 0; t < 2; t++) run_case(&cases[i], runtimes[t], widths[w], false);
    /* check_bounds: the same answers, with the proven accesses checked too. */
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) run_case(&cases[i], runtimes[1], 16, true);
    tilec_runtime_destroy(runtimes[0]);
    tilec_runtime_destroy(runtimes[1]);
}

/* A proven scalar access is checked only under check_bounds. */
static void test_check_bounds_counts(void) {
    const fault_case *c = cases;
    while (strcmp(c->name, "masked load kept in range by its predicate")) c++;
    tir_module *m = parse_kernel(c->text, NULL, 0);
    if (!m) return;
    const tir_func *f = tir_module_func(m, 0);
    for (int checked = 0; checked < 2; checked++) {
        lowering o = lowering_default();
        o.record.check_bounds = checked;
        lower_result r;
        if (!lower_ok(f, &o, &r)) continue;
        /* the store %Y[%i] is proven; the masked load's index %i + 1 is not */
        CHECK_MSG(r.counters.bounds_checks == (checked ? 2u : 1u) &&
                      r.counters.bounds_checks_removed == (checked ? 0u : 1u) && r.fault_site_count == 2,
                  "check_bounds=%d: %llu checks, %llu removed, %zu sites", checked,
                  (unsigned long long)r.counters.bounds_checks, (unsigned long long)r.counters.bounds_checks_removed,
                  r.fault_site_count);
        lower_result_free(&r);
    }
    tir_module_destroy(m);
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    test_faults();
    test_check_bounds_counts();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
