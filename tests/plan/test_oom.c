/* Allocation failure while planning and lowering a plan: every example goes
 * through pipeline_plan_and_lower (with the task-grain search, so the candidate lists
 * grow, and a small unroll limit, so the representation plan has arrays and
 * recipes) with the N-th allocation failing, for every N until it no longer
 * allocates that many times.  Each failure is TILEC_E_NOMEM with a
 * diagnostic, no selected plan and no module (never a crash or a leak: ASan
 * checks the latter in `make test-asan`). */
#include "driver/pipeline.h"
#include "examples_util.h"
#include "plan/solve.h"

static bool compile_once(tilec_context *ctx, const tir_func *f, const tilec_compile_options *o, const plan_target_info *t) {
    plan_result p;
    lower_result l;
    tilec_status st = pipeline_plan_and_lower(ctx, f, o, t, &p, &l);
    if (st == TILEC_OK) {
        CHECK(p.ok && l.module != NULL);
        lower_result_free(&l);
        plan_result_free(&p);
        return true;
    }
    CHECK_MSG(st == TILEC_E_NOMEM, "status %s under allocation failure", tilec_status_name(st));
    CHECK(l.module == NULL && l.realization == NULL);
    plan_result_free(&p);
    return false;
}

typedef struct {
    const tir_func *f;
    const tilec_compile_options *o;
    const plan_target_info *t;
} compile_input;

static bool attempt_compile(tilec_context *ctx, void *env) {
    const compile_input *in = env;
    return compile_once(ctx, in->f, in->o, in->t);
}

static bool sweep_file(const char *path, const char *name, const char *text, size_t size, void *env) {
    (void)path, (void)env;
    tilec_context *ctx;
    tir_module *m = parse_in_new_context(name, text, size, &ctx);
    if (!m) return false;
    tilec_compile_options o = tilec_compile_options_default();
    o.max_unrolled_tile_elements = 4;
    o.search_task_grain = true;
    plan_thread_pool pool;
    plan_thread_pool_init(&pool, 8, 8);
    compile_input in = {tir_module_func(m, 0), &o, &pool.info};
    sweep_allocation_failures(ctx, name, attempt_compile, &in);
    tir_module_destroy(m);
    tilec_context_destroy(ctx);
    return true;
}

int main(void) {
    CHECK(for_each_source(TILEC_SOURCE_DIR "/examples", ".tir", sweep_file, NULL) >= 10);
    TEST_MAIN_END();
}
