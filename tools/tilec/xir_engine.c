/* xir_engine.c — `tilec run --xir`: plan and lower the kernel, run
 * it on the W-lane XIR interpreter, run the reference interpreter on a copy of
 * the same inputs, and compare every writable parameter (compare.h).  A
 * bounds fault of the XIR run is reported as the reference would.  A plan
 * that packs panels (docs/lowering.md "Packed panels") runs the copy kernel
 * on the interpreter first, as native dispatch does. */
#include "xir_engine.h"
#include "compare.h"
#include "base/invariant.h"
#include "realize/admit.h"
#include "rewrite/pack.h"
#include "xir/interp.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static double elapsed_ms(const struct timespec *t0) {
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) * 1e-6;
}

/* Interprets a lowering on `args`; a recorded bounds fault becomes the
 * reference's diagnostic. */
static tilec_status interpret(tilec_context *ctx, const lower_result *r, size_t n, const tir_buffer *args) {
    fault_record faults = {0};
    xir_interp_options o = xir_interp_default_options();
    o.faults = &faults;
    tilec_status st = xir_interpret_with(ctx, r->kernel, r->dispatch_size, r->packet_width, n, args, &o);
    if (!st && faults.count)
        st = TILEC_INVARIANT(ctx, faults.site < r->fault_site_count)
                 ? tir_fault_report(ctx, &r->fault_sites[faults.site], faults.value)
                 : TILEC_E_INTERNAL;
    return st;
}

/* The packed panels of `pack`: its copy kernel planned and lowered for the
 * same width (never packing), interpreted on the source parameter into
 * *panels (allocated; NULL on failure, with the diagnostics printed). */
static bool copy_panels(tilec_context *ctx, const cli_options *c, const tir_func *f, const plan_pack *pack,
                        const tir_buffer *src, tir_buffer *panels) {
    panels->data = NULL;
    tir_module *m = plan_pack_build(ctx, f, pack);
    if (!m) return cli_fail_diags(ctx), false;
    cli_options copy;
    cli_options_init(&copy, ctx, CLI_FLAGS_MODELED);
    copy.o.width = cli_options_modeled_width(c);
    copy.o.check_bounds = c->o.check_bounds;
    copy.o.pack = TILEC_PACK_OFF;
    lower_result r;
    bool ok = cli_lower(ctx, &copy, tir_module_func(m, 0), &r, NULL);
    if (ok) {
        panels->size_bytes = pack->bytes;
        panels->data = calloc(1, pack->bytes ? pack->bytes : 1);
        tir_buffer args[2] = {*src, *panels};
        ok = panels->data && interpret(ctx, &r, 2, args) == TILEC_OK;
        if (!ok) cli_fail_diags(ctx);
        lower_result_free(&r);
    }
    tir_module_destroy(m);
    if (!ok) free(panels->data), panels->data = NULL;
    return ok;
}

int cli_run_xir(tilec_context *ctx, const cli_options *c, const tir_func *f, cli_args *args) {
    cli_args ref;
    double ref_ms;
    if (cli_reference_run(ctx, f, args, &ref, &ref_ms) != TILEC_OK) return cli_fail_diags(ctx);
    int code = CLI_EXIT_FAIL;
    lower_result r;
    plan_packing packing;
    struct timespec t0;
    tir_module *flat;
    const tir_func *lf = cli_flatten(ctx, f, &flat); /* lowered; the reference runs f itself */
    if (plan_root_empty(lf)) { /* no program instance: nothing to lower or run (src/driver/empty.c) */
        printf("@%s: XIR interpreter: the root domain is empty, nothing runs; reference %.3f ms\n", tir_func_name(f),
               ref_ms);
        code = cli_compare_step(args, &ref, "XIR");
    } else if (cli_lower(ctx, c, lf, &r, &packing)) {
        clock_gettime(CLOCK_MONOTONIC, &t0);
        tir_buffer *all = calloc(args->count + PLAN_MAX_PACKS, sizeof *all);
        bool ready = all != NULL;
        if (all) memcpy(all, args->buffers, args->count * sizeof *all);
        for (uint32_t i = 0; ready && i < r.packed; i++) {
            const plan_pack *p = &packing.packs[i];
            ready = copy_panels(ctx, c, lf, p, &args->buffers[p->param], &all[args->count + i]);
        }
        tilec_status st = ready ? interpret(ctx, &r, args->count + r.packed, all) : TILEC_E_NOMEM;
        if (!ready) {
            code = CLI_EXIT_FAIL;
        } else if (st != TILEC_OK) {
            code = cli_fail_diags(ctx);
        } else {
            printf("@%s: XIR interpreter (W=%u, block %u, %u workers%s) %.3f ms; reference %.3f ms\n",
                   tir_func_name(f), r.packet_width, r.block_size, r.dispatch_size,
                   r.packed ? ", packed panels" : "", elapsed_ms(&t0), ref_ms);
            code = cli_compare_step(args, &ref, "XIR");
        }
        for (uint32_t i = 0; all && i < r.packed; i++) free(all[args->count + i].data);
        free(all);
        lower_result_free(&r);
    }
    tir_module_destroy(flat);
    cli_args_destroy(&ref);
    return code;
}
