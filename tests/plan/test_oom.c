/* Allocation failure while planning and lowering a plan: every example goes
 * through plan_compile (with the task-grain search, so the candidate lists
 * grow, and a small unroll limit, so the representation plan has arrays and
 * recipes) with the N-th allocation failing, for every N until it no longer
 * allocates that many times.  Each failure is TILEC_E_NOMEM with a
 * diagnostic, no selected plan and no module (never a crash or a leak: ASan
 * checks the latter in `make test-asan`). */
#include "harness.h"
#include "base/context.h"
#include "plan/solve.h"

#include <dirent.h>
#include <stdlib.h>

static bool compile_once(tilec_context *ctx, const tir_func *f, const plan_options *o, const plan_target_info *t) {
    plan_result p;
    lower_result l;
    tilec_status st = plan_compile(ctx, f, o, t, NULL, &p, &l);
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
        plan_options o = plan_options_default();
        o.max_unrolled_tile_elements = 4;
        o.search_task_grain = true;
        plan_thread_pool pool;
        plan_thread_pool_init(&pool, 8, 8);
        bool finished = false;
        for (long n = 0; n < 100000 && !finished; n++) {
            tilec_diag_clear(ctx);
            tilec_context_fail_allocation_after(ctx, n);
            finished = compile_once(ctx, f, &o, &pool.info);
            tilec_context_fail_allocation_after(ctx, -1);
            if (!finished) CHECK_MSG(tilec_diag_count(ctx) > 0, "%s: allocation %ld failed silently", e->d_name, n);
        }
        CHECK_MSG(finished, "%s never completed", e->d_name);
        tir_module_destroy(m);
        tilec_context_destroy(ctx);
    }
    if (d) closedir(d);
    CHECK(files >= 10);
    TEST_MAIN_END();
}
