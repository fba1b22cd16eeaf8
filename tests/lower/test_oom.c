/* Allocation failure during lowering: every example is lowered with the N-th
 * allocation failing, for every N until lowering no longer allocates that
 * many times (and packet-local at W = 8 for the kernels it admits).  Each
 * failed lowering returns TILEC_E_NOMEM with a diagnostic
 * and an empty result (never a crash or a leak: ASan checks the latter in
 * `make test-asan`); the TileIR stays usable and lowers afterwards. */
#include "examples_util.h"
#include "lower/lower.h"
#include "realize/local.h"

static bool lower_once(tilec_context *ctx, const tir_func *f, const lower_options *o) {
    lower_result r;
    tilec_status st = lower_kernel(ctx, f, o, &r);
    if (st == TILEC_OK) {
        lower_result_free(&r);
        return true;
    }
    CHECK_MSG(st == TILEC_E_NOMEM, "status %s under allocation failure", tilec_status_name(st));
    CHECK(r.module == NULL && r.kernel == NULL && r.args == NULL && r.realization == NULL);
    return false;
}

typedef struct {
    const tir_func *f;
    const lower_options *o;
} lower_input;

static bool attempt_lower(tilec_context *ctx, void *env) {
    const lower_input *in = env;
    return lower_once(ctx, in->f, in->o);
}

static bool sweep_file(const char *path, const char *name, const char *text, size_t size, void *env) {
    (void)path, (void)env;
    tilec_context *ctx;
    tir_module *m = parse_in_new_context(name, text, size, &ctx);
    if (!m) return false;
    const tir_func *f = tir_module_func(m, 0);
    /* small unroll limit: arrays, loops and recipes as well as SSA tiles */
    lower_options o = lower_options_default();
    o.max_unrolled_tile_elements = 4;
    lower_input in = {f, &o};
    sweep_allocation_failures(ctx, name, attempt_lower, &in);
    tilec_diag_clear(ctx);
    /* packet-local (W = 8) where its admission takes the kernel */
    plan_admission admission;
    plan_local local;
    o.packet_width = o.local_lanes = 8;
    if (plan_admit(ctx, f, &admission) == TILEC_OK && plan_local_admit(f, &admission, 8, &local))
        sweep_allocation_failures(ctx, name, attempt_lower, &in);
    tilec_diag_clear(ctx);
    CHECK(tir_verify(ctx, m) == TILEC_OK && lower_once(ctx, f, NULL));
    tir_module_destroy(m);
    tilec_context_destroy(ctx);
    return true;
}

int main(void) {
    CHECK(for_each_source(TILEC_SOURCE_DIR "/examples", ".tir", sweep_file, NULL) >= 10);
    TEST_MAIN_END();
}
