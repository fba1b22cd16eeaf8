/* Allocation failure during lowering: every example is lowered with the N-th
 * allocation failing, for every N until lowering no longer allocates that
 * many times.  Each failed lowering returns TILEC_E_NOMEM with a diagnostic
 * and an empty result (never a crash or a leak: ASan checks the latter in
 * `make test-asan`); the TileIR stays usable and lowers afterwards. */
#include "harness.h"
#include "base/context.h"
#include "lower/lower.h"

#include <dirent.h>
#include <stdlib.h>

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
        tilec_context *ctx;
        tilec_context_create(NULL, &ctx);
        tir_module *m = NULL;
        CHECK(text && tir_parse(ctx, text, size, e->d_name, NULL, 0, &m) == TILEC_OK);
        free(text);
        if (!m) {
            tilec_context_destroy(ctx);
            continue;
        }
        files++;
        const tir_func *f = tir_module_func(m, 0);
        /* small unroll limit: arrays, loops and recipes as well as SSA tiles */
        lower_options o = lower_options_default();
        o.max_unrolled_tile_elements = 4;
        bool finished = false;
        for (long n = 0; n < 100000 && !finished; n++) {
            tilec_diag_clear(ctx);
            tilec_context_fail_allocation_after(ctx, n);
            finished = lower_once(ctx, f, &o);
            tilec_context_fail_allocation_after(ctx, -1);
            if (!finished) CHECK_MSG(tilec_diag_count(ctx) > 0, "%s: allocation %ld failed silently", e->d_name, n);
        }
        CHECK_MSG(finished, "%s never completed", e->d_name);
        tilec_diag_clear(ctx);
        CHECK(tir_verify(ctx, m) == TILEC_OK && lower_once(ctx, f, NULL));
        tir_module_destroy(m);
        tilec_context_destroy(ctx);
    }
    if (d) closedir(d);
    CHECK(files >= 10);
    TEST_MAIN_END();
}
