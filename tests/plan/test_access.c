/* Access summaries (plan/access.h) against the ground truth: every example
 * and test kernel at its default (small) shape runs on the reference
 * interpreter with a trace of every element it reads or writes through a
 * view, with the root instance doing it (tir_interpret_traced).  For every
 * known summary, each traced element lies in the box of its root instance
 * (soundness), and where the summary is exact, the instance touches every
 * element of its clipped box (count of distinct elements = box volume); an
 * access whose enclosing loop is empty is never traced.  Unknown summaries
 * must say why, and the kernels whose origins are all affine must have none.
 * Also: the box of a hand-checked gemm (scales, offsets, spans) and a few
 * unknown and inexact shapes (a loaded index, a conditional store, a stride
 * with holes). */
#include "plan_fixture.h"


typedef struct {
    uint32_t op, instance;
    uint64_t element;
} event;

typedef struct {
    const plan_result *plan;
    const tir_op *root;
    event *events;
    size_t count, capacity;
    uint64_t violations, unknown_events;
    char first[256];
} tracer;

static const plan_access *summary_of(const plan_result *r, const tir_op *op) {
    for (size_t i = 0; i < r->accesses.count; i++)
        if (r->accesses.items[i].op == op) return &r->accesses.items[i];
    return NULL;
}

static void on_access(void *user, const tir_op *op, uint32_t param, uint64_t element, const int64_t *root) {
    tracer *t = user;
    const plan_access *acc = summary_of(t->plan, op);
    if (!acc || !root) {
        if (!t->violations++)
            snprintf(t->first, sizeof t->first, "op #%u: %s", op->id, !acc ? "no summary" : "outside the root");
        return;
    }
    if (acc->param != param && !t->violations++) snprintf(t->first, sizeof t->first, "op #%u: parameter", op->id);
    if (!acc->known) {
        t->unknown_events++;
        return;
    }
    /* the element's index on each view axis, checked against the box */
    const tir_space *vs = op->operands[0]->value->type->space;
    uint64_t rest = element, instance = 0;
    for (uint32_t a = vs->rank; a-- > 0;) {
        int64_t index = (int64_t)(rest % vs->axes[a].extent), first, last;
        rest /= vs->axes[a].extent;
        plan_access_range(acc, a, root, &first, &last);
        if ((index < first || index > last || acc->never) && !t->violations++)
            snprintf(t->first, sizeof t->first, "op #%u axis %u: index %lld outside [%lld, %lld]%s", op->id, a,
                     (long long)index, (long long)first, (long long)last, acc->never ? " (never runs)" : "");
    }
    instance = root_instance(t->root, root);
    event e = {op->id, (uint32_t)instance, element};
    push_item((void **)&t->events, &t->count, &t->capacity, &e, sizeof e);
}

static int by_event(const void *x, const void *y) {
    const event *a = x, *b = y;
    if (a->op != b->op) return a->op < b->op ? -1 : 1;
    if (a->instance != b->instance) return a->instance < b->instance ? -1 : 1;
    return a->element < b->element ? -1 : a->element > b->element;
}

/* The clipped box's volume for root instance `instance`. */
static uint64_t box_volume(const plan_access *acc, const tir_op *root, uint64_t instance) {
    int64_t coords[PLAN_MAX_RANK];
    for (uint32_t a = root->domain->rank; a-- > 0;) {
        coords[a] = (int64_t)(instance % root->domain->axes[a].extent);
        instance /= root->domain->axes[a].extent;
    }
    uint64_t volume = 1;
    for (uint32_t a = 0; a < acc->rank; a++) {
        int64_t first, last;
        plan_access_range(acc, a, coords, &first, &last);
        volume *= first > last ? 0 : (uint64_t)(last - first + 1);
    }
    return volume;
}

/* Exact summaries: each (op, instance) touches its whole clipped box. */
static void check_exact(const char *label, tracer *t) {
    qsort(t->events, t->count, sizeof *t->events, by_event);
    for (size_t i = 0; i < t->count;) {
        size_t j = i, distinct = 0;
        for (; j < t->count && t->events[j].op == t->events[i].op && t->events[j].instance == t->events[i].instance; j++)
            distinct += j == i || t->events[j].element != t->events[j - 1].element;
        const tir_op *op = NULL;
        for (size_t k = 0; k < t->plan->accesses.count && !op; k++)
            if (t->plan->accesses.items[k].op->id == t->events[i].op) op = t->plan->accesses.items[k].op;
        const plan_access *acc = op ? summary_of(t->plan, op) : NULL;
        if (acc && acc->known && acc->exact) {
            uint64_t volume = box_volume(acc, t->root, t->events[i].instance);
            CHECK_MSG(distinct == volume, "%s: op #%u instance %u touched %zu elements, its exact box has %llu", label,
                      t->events[i].op, t->events[i].instance, distinct, (unsigned long long)volume);
        }
        i = j;
    }
}

/* Plans and traces f (zeroed arguments); returns the unknown summaries. */
static size_t check_kernel(const char *label, const tir_func *f) {
    plan_thread_pool pool;
    plan_thread_pool_init(&pool, 8, 2);
    plan_result r;
    tilec_compile_options o = tilec_compile_options_default(); /* the summaries do not depend on the mapping */
    size_t unknown = 0;
    if (!plan_ok(f, &o, &pool.info, &r)) return 0;
    tracer t = {.plan = &r, .root = root_of(f)};
    tir_interp_trace trace = {on_access, &t};
    if (t.root) run_traced(label, f, &trace);
    CHECK_MSG(t.violations == 0, "%s: %llu accesses outside their summaries; first: %s", label,
              (unsigned long long)t.violations, t.first);
    check_exact(label, &t);
    for (size_t i = 0; i < r.accesses.count; i++) {
        const plan_access *acc = &r.accesses.items[i];
        unknown += !acc->known;
        CHECK_MSG(acc->known || (acc->why && acc->why[0]), "%s: op #%u unknown without a reason", label, acc->op->id);
    }
    free(t.events);
    plan_result_free(&r);
    return unknown;
}

/* Every example: sound, exact where it says so; all known but where an
 * origin divides (grouped heads) or reads an index. */
static bool visit_example(const char *path, const char *name, const char *text, size_t size, void *env) {
    (void)path, (void)size, (void)env;
    tir_module *m = parse_kernel(text, NULL, 0);
    if (!m) return false;
    for (size_t i = 0; i < tir_module_func_count(m); i++) {
        const tir_func *f = tir_module_func(m, i);
        char label[128];
        snprintf(label, sizeof label, "%s @%s", name, tir_func_name(f));
        size_t unknown = check_kernel(label, f);
        bool expect_unknown = strstr(name, "attention") != NULL; /* kv head = q head / group, causal bounds */
        CHECK_MSG(expect_unknown || unknown == 0, "%s: %zu unknown summaries", label, unknown);
    }
    tir_module_destroy(m);
    return true;
}

/* The admitted test kernels (the others are the reference interpreter's own:
 * several roots, ops outside the root). */
static void test_kernels(void) {
    static const char *const names[] = {"strided", "conditional", "row_fold", "row_prefix", "row_dot", "split_dot",
                                        "gemm_epilogue", "layernorm_linear", "softmax_linear", "typed_gemm", "loops"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char *text = read_tir("tests/kernels", names[i]);
        if (text) visit_example(NULL, names[i], text, strlen(text), NULL);
        free(text);
    }
}

static void test_examples(void) { CHECK(for_each_source(TILEC_SOURCE_DIR "/examples", ".tir", visit_example, NULL) >= 18); }

/* gemm's A and B boxes by hand: A[m0 + 0..BM−1, kt·BK + 0..BK−1] over kt
 * gives rows 8·gm + [0, 7] and columns [0, 47]; B rows [0, 47], columns
 * 8·gn + [0, 7]; C rows 8·gm + [0, 7], columns 8·gn + [0, 7]. */
static void test_gemm_boxes(void) {
    tir_module *m = parse_example(ctx, "gemm", NULL, 0);
    if (!m) return;
    plan_thread_pool pool;
    plan_thread_pool_init(&pool, 8, 2);
    plan_result r;
    if (plan_ok(tir_module_func(m, 0), NULL, &pool.info, &r)) {
        CHECK(r.accesses.count == 3);
        static const struct {
            int64_t scale[2][2], lo[2], hi[2];
            bool store;
        } want[3] = {{{{8, 0}, {0, 0}}, {0, 0}, {7, 47}, false},
                     {{{0, 0}, {0, 8}}, {0, 0}, {47, 7}, false},
                     {{{8, 0}, {0, 8}}, {0, 0}, {7, 7}, true}};
        for (size_t i = 0; i < 3 && i < r.accesses.count; i++) {
            const plan_access *a = &r.accesses.items[i];
            CHECK(a->known && a->exact && a->clipped && a->store == want[i].store && a->rank == 2 && a->roots == 2);
            for (uint32_t x = 0; a->known && x < 2; x++) {
                CHECK_MSG(a->axes[x].scale[0] == want[i].scale[x][0] && a->axes[x].scale[1] == want[i].scale[x][1] &&
                              a->axes[x].offset == 0 && a->axes[x].lo == want[i].lo[x] && a->axes[x].hi == want[i].hi[x],
                          "access %zu axis %u: scale %lld,%lld offset %lld [%lld, %lld]", i, x,
                          (long long)a->axes[x].scale[0], (long long)a->axes[x].scale[1], (long long)a->axes[x].offset,
                          (long long)a->axes[x].lo, (long long)a->axes[x].hi);
            }
        }
        CHECK(r.accesses.items[0].elements == 8 * 48);
    }
    plan_result_free(&r);
    tir_module_destroy(m);
}

/* Shapes that are unknown or inexact, each still sound on the trace. */
static const char shapes_text[] =
    GATHERED_TEXT
    "kernel @holes(%X: const view<f32>[X.0=32], %Y: view<f32>[Y.0=4, Y.1=4]) {\n"
    "  parallel (%r: r=4) {\n"
    "    %c3 = const index 3\n"
    "    %o = mul %r, %c3\n"
    "    %t = load %X[%o] tile [n=4] stride [2]\n"
    "    %c0 = const index 0\n"
    "    %u = broadcast %t to [m=1, n=4]\n"
    "    store %Y[%r, %c0] tile [m=1, n=4], %u\n"
    "  }\n"
    "}\n"
    "kernel @conditional(%X: const view<f32>[X.0=8], %Y: view<f32>[Y.0=8]) {\n"
    "  parallel (%r: r=8) {\n"
    "    %c4 = const index 4\n"
    "    %c = lt %r, %c4\n"
    "    if %c {\n"
    "      %x = load %X[%r]\n"
    "      store %Y[%r], %x\n"
    "    }\n"
    "  }\n"
    "}\n";

static void test_shapes(void) {
    tir_module *m = parse_kernel(shapes_text, NULL, 0);
    if (!m) return;
    plan_thread_pool pool;
    plan_thread_pool_init(&pool, 8, 2);
    for (size_t i = 0; i < tir_module_func_count(m); i++) {
        const tir_func *f = tir_module_func(m, i);
        check_kernel(tir_func_name(f), f);
        plan_result r;
        if (!plan_ok(f, NULL, &pool.info, &r)) continue;
        const plan_access *a = r.accesses.items;
        if (!strcmp(tir_func_name(f), "gathered")) {
            CHECK(r.accesses.count == 3 && a[0].known && a[0].exact && !a[1].known && a[2].known);
            CHECK_STR_CONTAINS(a[1].why, "not affine");
        } else if (!strcmp(tir_func_name(f), "holes")) {
            /* X: 3r + {0, 2, 4, 6}: a box of 7 with holes */
            CHECK(r.accesses.count == 2 && a[0].known && !a[0].exact && a[0].elements == 7 && a[0].axes[0].scale[0] == 3);
            CHECK(a[1].known && a[1].exact);
        } else {
            CHECK(r.accesses.count == 2 && a[0].known && !a[0].exact && a[1].known && !a[1].exact);
        }
        plan_result_free(&r);
    }
    tir_module_destroy(m);
}

int main(void) {
    CHECK(tilec_context_create(NULL, &ctx) == TILEC_OK);
    test_gemm_boxes();
    test_shapes();
    test_examples();
    test_kernels();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
