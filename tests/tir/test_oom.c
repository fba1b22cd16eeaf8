/* Allocation failure: parse, verify, print and interpret every example with the
 * N-th allocation failing, for every N until the pipeline no longer allocates
 * that many times.  Each stage must fail with a status (never crash or leak;
 * ASan checks the latter in `make test-asan`) and leave the context usable. */
#include "examples_util.h"
#include "tir/text.h"

/* One pipeline run; returns true when it got through every stage. */
static bool run_pipeline(tilec_context *ctx, const char *text, size_t size, const char *name) {
    tir_module *m = NULL;
    if (tir_parse(ctx, text, size, name, NULL, 0, &m) != TILEC_OK) {
        CHECK(m == NULL);
        return false;
    }
    bool ok = tir_verify(ctx, m) == TILEC_OK;
    strbuf s;
    strbuf_init(&s, ctx);
    ok = ok && tir_print_to_strbuf(m, &s);
    strbuf_free(&s);
    tir_func *f = tir_module_func(m, 0);
    size_t n = tir_func_param_count(f);
    tir_buffer args[16] = {{0}};
    CHECK(n <= 16);
    for (size_t i = 0; ok && i < n && i < 16; i++) {
        tir_type *t = tir_value_type(tir_func_param(f, i));
        uint64_t volume = 0;
        tir_space_volume(tir_type_space(t), &volume);
        args[i].size_bytes = volume * tir_scalar_size(tir_type_elem(t));
        args[i].data = calloc(1, args[i].size_bytes + 1);
    }
    ok = ok && tir_interpret(ctx, f, n, args) == TILEC_OK;
    for (size_t i = 0; i < n && i < 16; i++) free(args[i].data);
    tir_module_destroy(m);
    return ok;
}

typedef struct {
    const char *text;
    size_t size;
    const char *name;
} pipeline_input;

static bool attempt_pipeline(tilec_context *ctx, void *env) {
    const pipeline_input *in = env;
    return run_pipeline(ctx, in->text, in->size, in->name);
}

/* The pipeline completes, completes under every injected failure count or
 * fails with a diagnostic, and completes again on the same context. */
static bool sweep_file(const char *path, const char *name, const char *text, size_t size, void *env) {
    (void)path, (void)env;
    tilec_context *ctx;
    tilec_context_create(NULL, &ctx);
    CHECK_MSG(run_pipeline(ctx, text, size, name), "%s fails without injected failures", name);
    pipeline_input in = {text, size, name};
    sweep_allocation_failures(ctx, name, attempt_pipeline, &in);
    tilec_diag_clear(ctx);
    CHECK(run_pipeline(ctx, text, size, name));
    tilec_context_destroy(ctx);
    return true;
}

int main(void) {
    CHECK(for_each_source(TILEC_SOURCE_DIR "/examples", ".tir", sweep_file, NULL) >= 10);
    TEST_MAIN_END();
}
