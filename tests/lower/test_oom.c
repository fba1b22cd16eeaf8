/* Allocation failure during lowering: every example is lowered with the N-th
 * allocation failing, for every N until lowering no longer allocates that
 * many times (and packet-local at W = 8 for the kernels it admits).  Each
 * failed lowering returns TILEC_E_NOMEM with a diagnostic
 * and an empty result (never a crash or a leak: ASan checks the latter in
 * `make test-asan`); the TileIR stays usable and lowers afterwards. */
#include "examples_util.h"
#include "lower/lower.h"
#include "realize/local.h"

/* The compile options and what a plan decided (NULL: the defaults). */
typedef struct {
    const tir_func *f;
    const tilec_compile_options *o;
    const realize_choice *c;
} lower_input;

static bool lower_once(tilec_context *ctx, const lower_input *in) {
    lower_result r;
    tilec_status st = lower_kernel(ctx, in->f, in->o, in->c, &r);
    if (st == TILEC_OK) {
        lower_result_free(&r);
        return true;
    }
    CHECK_MSG(st == TILEC_E_NOMEM, "status %s under allocation failure", tilec_status_name(st));
    CHECK(r.module == NULL && r.kernel == NULL && r.args == NULL && r.realization == NULL);
    return false;
}

static bool attempt_lower(tilec_context *ctx, void *env) {
    const lower_input *in = env;
    return lower_once(ctx, in);
}

static bool sweep_file(const char *path, const char *name, const char *text, size_t size, void *env) {
    (void)path, (void)env;
    tilec_context *ctx;
    tir_module *m = parse_in_new_context(name, text, size, &ctx);
    if (!m) return false;
    const tir_func *f = tir_module_func(m, 0);
    /* small unroll limit: arrays, loops and recipes as well as SSA tiles */
    tilec_compile_options o = tilec_compile_options_default();
    realize_choice c = realize_choice_default();
    o.max_unrolled_tile_elements = 4;
    lower_input in = {f, &o, &c};
    sweep_allocation_failures(ctx, name, attempt_lower, &in);
    tilec_diag_clear(ctx);
    /* packet-local (W = 8) where its admission takes the kernel */
    plan_admission admission;
    plan_local local;
    c.packet_width = c.lanes = 8;
    if (plan_admit(ctx, f, &admission) == TILEC_OK && plan_local_admit(f, &admission, 8, &local))
        sweep_allocation_failures(ctx, name, attempt_lower, &in);
    tilec_diag_clear(ctx);
    CHECK(tir_verify(ctx, m) == TILEC_OK && lower_once(ctx, &(lower_input){f, NULL, NULL}));
    tir_module_destroy(m);
    tilec_context_destroy(ctx);
    return true;
}

int main(void) {
    CHECK(for_each_source(TILEC_SOURCE_DIR "/examples", ".tir", sweep_file, NULL) >= 10);
    TEST_MAIN_END();
}
