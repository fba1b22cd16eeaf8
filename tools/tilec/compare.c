/* compare.c — see compare.h. */
#include "compare.h"
#include "cli.h"

#include <math.h>
#include <string.h>
#include <time.h>

static const double tolerance = 5e-5;

tilec_status cli_reference_run(tilec_context *ctx, const tir_func *f, const cli_args *inputs, cli_args *ref, double *ms) {
    tilec_status st = cli_args_create(ctx, f, ref);
    if (st) return st;
    for (size_t i = 0; i < inputs->count; i++)
        memcpy(ref->buffers[i].data, inputs->buffers[i].data, inputs->buffers[i].size_bytes);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    st = tir_interpret(ctx, f, ref->count, ref->buffers);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6;
    if (st) cli_args_destroy(ref);
    return st;
}

/* Compares parameter i; prints one line and returns whether it matches. */
static bool compare(const cli_args *got, const cli_args *ref, size_t i) {
    const cli_param *p = &got->params[i];
    double max_abs = 0;
    uint64_t bad = 0, first_bad = 0;
    bool exact = !tir_scalar_is_float(p->elem);
    for (uint64_t k = 0; k < p->volume; k++) {
        double a = cli_elem_value(got->buffers[i].data, p->elem, k);
        double e = cli_elem_value(ref->buffers[i].data, p->elem, k);
        if (isnan(a) && isnan(e)) continue;
        double err = fabs(a - e);
        bool ok = exact ? a == e : err <= tolerance + tolerance * fabs(e);
        if (!isnan(err) && err > max_abs) max_abs = err;
        if (!ok && bad++ == 0) first_bad = k;
    }
    printf("  %%%s vs reference: max abs err %.3g, %s", p->name, max_abs, bad ? "MISMATCH" : "ok");
    if (bad)
        printf(" (%llu of %llu elements; first at flat index %llu)", (unsigned long long)bad,
               (unsigned long long)p->volume, (unsigned long long)first_bad);
    printf("\n");
    return bad == 0;
}

bool cli_compare_outputs(const cli_args *got, const cli_args *ref) {
    bool all = true;
    for (size_t i = 0; i < got->count; i++)
        if (!got->params[i].read_only) {
            cli_print_summary(stdout, got, i);
            all &= compare(got, ref, i);
        }
    return all;
}
