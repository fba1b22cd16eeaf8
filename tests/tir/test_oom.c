/* Allocation failure: parse, verify, print and interpret every example with the
 * N-th allocation failing, for every N until the pipeline no longer allocates
 * that many times.  Each stage must fail with a status (never crash or leak;
 * ASan checks the latter in `make test-asan`) and leave the context usable. */
#include "harness.h"
#include "base/context.h"
#include "tir/ir.h"
#include "tir/text.h"

#include <dirent.h>
#include <stdlib.h>

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

int main(void) {
    const char *dir = TILEC_SOURCE_DIR "/examples";
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    struct dirent *e;
    int files = 0;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".tir")) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t size;
        char *text = read_file(path, &size);
        CHECK(text != NULL);
        if (!text) continue;
        files++;
        tilec_context *ctx;
        tilec_context_create(NULL, &ctx);
        CHECK_MSG(run_pipeline(ctx, text, size, e->d_name), "%s fails without injected failures", e->d_name);
        bool finished = false;
        for (long n = 0; n < 100000 && !finished; n++) {
            tilec_diag_clear(ctx);
            tilec_context_fail_allocation_after(ctx, n);
            finished = run_pipeline(ctx, text, size, e->d_name);
            tilec_context_fail_allocation_after(ctx, -1);
            if (!finished) {
                /* the failure was reported, and the context still works */
                CHECK_MSG(tilec_diag_count(ctx) > 0, "%s: allocation %ld failed silently", e->d_name, n);
            }
        }
        CHECK_MSG(finished, "%s never completed", e->d_name);
        tilec_diag_clear(ctx);
        CHECK(run_pipeline(ctx, text, size, e->d_name));
        tilec_context_destroy(ctx);
        free(text);
    }
    if (d) closedir(d);
    CHECK(files >= 10);
    TEST_MAIN_END();
}
