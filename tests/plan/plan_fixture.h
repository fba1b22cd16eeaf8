/* plan_fixture.h — helpers shared by the planner tests: parse a kernel from
 * text or an example, plan it for a CPU thread-pool target, look for
 * diagnostics, and a configurable mock target (packet width, proposals,
 * accepts/budget/policy hooks that count their calls) for the target-info
 * and policy cases. */
#ifndef TILEC_TEST_PLAN_FIXTURE_H
#define TILEC_TEST_PLAN_FIXTURE_H

#include "examples_util.h"
#include "plan/solve.h"
#include "tir/interp.h"
#include "tir/ir.h"

#include <math.h>

static tilec_context *ctx;

static inline void flush_diags(void) { flush_diags_in(ctx); }

/* Parses and verifies; NULL (after a failed CHECK) on error. */
static inline tir_module *parse_kernel(const char *text, const tir_define *defines, size_t n_defines) {
    return parse_verified(ctx, text, defines, n_defines);
}

/* True when some diagnostic has `code` (unless NULL) and contains `text`. */
static inline bool has_diag(const char *code, const char *text) { return has_diag_in(ctx, code, text); }

/* Plans f; expects success (prints diagnostics otherwise). */
/* The planner's defaults pinned to one program per lane (local_lanes = 1):
 * the tests of root orders, blocks, grains, schedules and work are about that
 * mapping, not about the packet-local search the default adds. */
static inline tilec_compile_options options_whole(void) {
    tilec_compile_options o = tilec_compile_options_default();
    o.local_lanes = 1;
    o.fuse = TILEC_FUSE_OFF; /* the snapshot mechanics; fusion has its own tests (test_work, test_stream) */
    return o;
}

/* Plans f (o NULL: options_whole()) and expects success. */
static inline bool plan_ok(const tir_func *f, const tilec_compile_options *o, const plan_target_info *info, plan_result *r) {
    tilec_compile_options whole = options_whole();
    tilec_status st = plan_kernel(ctx, f, o ? o : &whole, info, r);
    CHECK_MSG(st == TILEC_OK && r->ok, "planning '@%s' failed (%s)", f->name, tilec_status_name(st));
    flush_diags();
    return st == TILEC_OK && r->ok;
}

/* Plans f; expects failure with a diagnostic containing `text`. */
static inline void plan_fails(const char *label, const tir_func *f, const tilec_compile_options *o,
                              const plan_target_info *info, const char *text) {
    plan_result r;
    tilec_status st = plan_kernel(ctx, f, o, info, &r);
    CHECK_MSG(st != TILEC_OK && !r.ok, "%s: planning should fail", label);
    CHECK_MSG(has_diag(NULL, text), "%s: no diagnostic contains '%s'", label, text);
    if (!has_diag(NULL, text)) flush_diags();
    tilec_diag_clear(ctx);
    plan_result_free(&r);
}

/* A 1-D store: one program per element of Y[N]. */
static const char fill_text[] =
    "kernel @fill<N=257>(%Y: view<f32>[Y.0=N]) {\n"
    "  parallel (%i: i=N) {\n"
    "    %one = const f32 1.0\n"
    "    store %Y[%i], %one\n"
    "  }\n"
    "}\n";

static inline tir_module *fill_kernel(int64_t n) {
    tir_define d = {"N", n};
    return parse_kernel(fill_text, &d, 1);
}

/* ---- a configurable mock target ---- */

typedef struct {
    plan_thread_pool pool;  /* W, workers, chunks and the CPU schedule */
    plan_target_info info;
    bool task_grain;        /* expose the thread pool's task grains and schedule */
    bool local_distribution;
    const uint32_t *proposals;
    size_t proposal_count;
    uint32_t reject_block;  /* accepts() rejects this width (0: none) */
    uint64_t budget;        /* resource_limits; UINT64_MAX: the thread pool's */
    uint32_t budget_block;  /* with budget_for_block: that width gets budget_for_block */
    uint64_t budget_for_block;
    const plan_cost_policy *policy;
    unsigned accepts_calls, limits_calls, schedule_calls;
} mock_target;

static plan_target mock_target_hook(const plan_target_info *self) {
    const mock_target *m = self->user;
    return (plan_target){.packet_width = m->pool.packet_width,
                         .worker_count = m->task_grain ? m->pool.worker_count : 0,
                         .task_chunks_per_worker = m->task_grain ? m->pool.task_chunks_per_worker : 0};
}

static const uint32_t *mock_block_sizes(const plan_target_info *self, size_t *count) {
    const mock_target *m = self->user;
    if (m->proposals) {
        *count = m->proposal_count;
        return m->proposals;
    }
    static const uint32_t fixed[] = {32, 64, 128, 256, 512, 1024}; /* the mock's own: W-independent */
    *count = sizeof fixed / sizeof *fixed;
    return fixed;
}

static bool mock_local(const plan_target_info *self) { return ((const mock_target *)self->user)->local_distribution; }
static bool mock_task_grain(const plan_target_info *self) { return ((const mock_target *)self->user)->task_grain; }

static bool mock_accepts(const plan_target_info *self, const plan_candidate *c, char *reason, size_t size) {
    mock_target *m = self->user;
    m->accepts_calls++;
    if (c->block_size != m->reject_block) return true;
    snprintf(reason, size, "block %u is not supported", c->block_size);
    return false;
}

static plan_resource_limits mock_limits(const plan_target_info *self, const plan_candidate *c,
                                        const plan_resources *res) {
    mock_target *m = self->user;
    m->limits_calls++;
    if (m->budget_block && c->block_size == m->budget_block) return (plan_resource_limits){m->budget_for_block};
    if (m->budget != UINT64_MAX) return (plan_resource_limits){m->budget};
    return m->pool.info.resource_limits(&m->pool.info, c, res);
}

static void mock_schedule(const plan_target_info *self, const plan_target *t, const plan_candidate *c, plan_work *w) {
    mock_target *m = self->user;
    m->schedule_calls++;
    if (m->task_grain) plan_schedule_thread_pool(t, c, w);
    else plan_schedule_single_wave(w);
}

static const plan_cost_policy *mock_policy(const plan_target_info *self) {
    return ((const mock_target *)self->user)->policy;
}

/* A mock with the thread pool's behaviour (W, workers), counting its calls. */
static inline void mock_init(mock_target *m, uint32_t packet_width, uint32_t workers) {
    memset(m, 0, sizeof *m);
    plan_thread_pool_init(&m->pool, packet_width, workers);
    m->task_grain = true;
    m->local_distribution = true;
    m->budget = UINT64_MAX;
    m->info = (plan_target_info){"mock", m, mock_target_hook, mock_block_sizes, mock_local, mock_task_grain,
                                 mock_accepts, mock_limits, mock_schedule, mock_policy, NULL, NULL};
}

/* ---- traced reference runs (tests of the access summaries) ---- */

/* An origin read from memory: X's access summary is unknown. */
#define GATHERED_TEXT \
    "kernel @gathered(%X: const view<f32>[X.0=16], %I: const view<i32>[I.0=4], %Y: view<f32>[Y.0=4]) {\n" \
    "  parallel (%r: r=4) {\n" \
    "    %i = load %I[%r]\n" \
    "    %x = load %X[%i]\n" \
    "    store %Y[%r], %x\n" \
    "  }\n" \
    "}\n"

/* Appends x (of `size` bytes) to a malloc'd array *items of *count, growing
 * *capacity by doubling; false on allocation failure. */
static inline bool push_item(void **items, size_t *count, size_t *capacity, const void *x, size_t size) {
    if (*count == *capacity) {
        size_t n = *capacity ? 2 * *capacity : 64;
        void *grown = realloc(*items, n * size);
        if (!grown) return false;
        *items = grown;
        *capacity = n;
    }
    memcpy((char *)*items + *count * size, x, size);
    ++*count;
    return true;
}

/* The row-major index of root coordinates `coords` in `root`'s domain. */
static inline uint64_t root_instance(const tir_op *root, const int64_t *coords) {
    uint64_t instance = 0;
    for (uint32_t a = 0; a < root->domain->rank; a++) instance = instance * root->domain->axes[a].extent + (uint64_t)coords[a];
    return instance;
}

/* f's root parallel (NULL after a failed CHECK). */
static inline const tir_op *root_of(const tir_func *f) {
    const tir_op *root = NULL;
    for (const tir_op *op = f->body->first; op; op = op->next)
        if (op->kind == TIR_OP_PARALLEL) root = op;
    CHECK_MSG(root != NULL, "@%s has no root parallel", f->name);
    return root;
}

/* Runs f on the reference interpreter with zeroed arguments, every view
 * element it touches reported to `trace`; false after a failed CHECK. */
static inline bool run_traced(const char *label, const tir_func *f, const tir_interp_trace *trace) {
    size_t n = tir_func_param_count(f);
    tir_buffer args[16];
    bool ok = n <= 16;
    CHECK_MSG(ok, "%s: more than 16 parameters", label);
    for (size_t i = 0; ok && i < n; i++) {
        const tir_value *p = f->body->args[i];
        uint64_t volume;
        tir_space_volume(p->type->space, &volume);
        size_t bytes = (size_t)volume * tir_scalar_size(p->type->elem);
        args[i] = (tir_buffer){calloc(1, bytes ? bytes : 1), bytes};
        if (!args[i].data) n = i, ok = false;
    }
    ok = ok && tir_interpret_traced(ctx, f, n, args, trace) == TILEC_OK;
    CHECK_MSG(ok, "%s: the traced reference run failed", label);
    flush_diags();
    for (size_t i = 0; i < n; i++) free(args[i].data);
    return ok;
}

#endif
