/* compare.c — see compare.h. */
#include "compare.h"
#include "cli.h"

#include "tilec/pipeline.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <time.h>

static const double tolerance = 5e-5;
enum { MAX_RANK = 64 }; /* spaces have at most 64 axes (TIR_PARSE_MAX_RANK) */

tilec_status cli_reference_run(tilec_context *ctx, const tir_func *f, const cli_args *inputs, cli_args *ref, double *ms) {
    tilec_status st = cli_args_copy(inputs, ref);
    if (st) return st;
    tilec_pipeline_config engine = tilec_pipeline_config_default();
    engine.engine = TILEC_ENGINE_REFERENCE;
    tilec_kernel *k = NULL;
    tilec_buffer b[CLI_MAX_ARGS];
    st = cli_args_bind(ref, b) ? tilec_pipeline_run(ctx, f, NULL, &engine, &k) : TILEC_E_UNSUPPORTED;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (!st) st = tilec_dispatch_dims(ctx, k, ref->count, b, ref->n_dims, ref->dims);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    tilec_kernel_destroy(k);
    *ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6;
    if (st) cli_args_destroy(ref);
    return st;
}

bool cli_float_matches(double got, double ref, tir_scalar elem) {
    if (isnan(got) || isnan(ref)) return isnan(got) && isnan(ref);
    /* inf - inf is NaN, which no tolerance accepts: infinities match by equality. */
    if (isinf(got) || isinf(ref)) return got == ref;
    double relative = elem == TIR_F16 ? 0x1p-10 : elem == TIR_BF16 ? 0x1p-7 : tolerance;
    return fabs(got - ref) <= tolerance + relative * fabs(ref);
}

/* Integers and bools match by their bytes: converting an i64/u64 to double
 * would merge neighbours above 2^53. */
static bool element_matches(const cli_args *got, const cli_args *ref, size_t i, uint64_t k) {
    tir_scalar elem = got->params[i].elem;
    if (tir_scalar_is_float(elem))
        return cli_float_matches(cli_elem_value(got->buffers[i].data, elem, k),
                                 cli_elem_value(ref->buffers[i].data, elem, k), elem);
    size_t size = tir_scalar_size(elem);
    return !memcmp((const char *)got->buffers[i].data + k * size, (const char *)ref->buffers[i].data + k * size, size);
}

/* "[2, 0, 5]": flat C-order index k as a coordinate of the parameter's view
 * ("flat index k" past MAX_RANK axes). */
static void format_coordinate(char *buf, size_t size, const tir_space *space, uint64_t k) {
    size_t rank = tir_space_rank(space);
    uint64_t coordinate[MAX_RANK] = {0};
    if (rank > MAX_RANK) {
        snprintf(buf, size, "flat index %" PRIu64, k);
        return;
    }
    for (size_t d = rank; d-- > 0;) {
        uint64_t extent = tir_space_extent(space, d);
        coordinate[d] = extent ? k % extent : 0;
        k = extent ? k / extent : 0;
    }
    size_t used = (size_t)snprintf(buf, size, "[");
    for (size_t d = 0; d < rank && used < size; d++)
        used += (size_t)snprintf(buf + used, size - used, "%s%" PRIu64, d ? ", " : "", coordinate[d]);
    if (used < size) snprintf(buf + used, size - used, "]");
}

/* Compares parameter i; prints one line and returns whether it matches. */
static bool compare(const cli_args *got, const cli_args *ref, size_t i) {
    const cli_param *p = &got->params[i];
    double max_abs = 0;
    uint64_t bad = 0, first_bad = 0;
    for (uint64_t k = 0; k < p->volume; k++) {
        double a = cli_elem_value(got->buffers[i].data, p->elem, k);
        double e = cli_elem_value(ref->buffers[i].data, p->elem, k);
        /* The largest error over the elements where it is a number. */
        if (isfinite(a) && isfinite(e) && fabs(a - e) > max_abs) max_abs = fabs(a - e);
        if (!element_matches(got, ref, i, k) && bad++ == 0) first_bad = k;
    }
    printf("  %%%s vs reference: max abs err %.3g, %s", p->name, max_abs, bad ? "MISMATCH" : "ok");
    if (bad) {
        char at[512], value[64], expected[64];
        format_coordinate(at, sizeof at, p->space, first_bad);
        cli_format_elem(value, sizeof value, got->buffers[i].data, p->elem, first_bad);
        cli_format_elem(expected, sizeof expected, ref->buffers[i].data, p->elem, first_bad);
        printf(" (%" PRIu64 " of %" PRIu64 " elements; first at %s: %s, reference %s)", bad, p->volume, at, value,
               expected);
    }
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

int cli_compare_step(const cli_args *got, const cli_args *ref, const char *engine) {
    if (cli_compare_outputs(got, ref)) return CLI_CONTINUE;
    cli_fail("run", "the %s results differ from the reference interpreter", engine);
    return CLI_MISMATCH;
}
