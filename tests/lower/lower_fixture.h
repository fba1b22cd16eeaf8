/* lower_fixture.h — helpers shared by the lowering tests: parse a kernel from
 * text (examples_util.h), lower it, count emitted instructions, and run a lowered kernel on the
 * W-lane XIR interpreter (any W, 32 included) and natively (SIMD backend,
 * W <= 16) against the TileIR reference interpreter.
 *
 * Runtime harness (upstream conventions, ref/upstream-tests-bench.md §0):
 * every buffer has PAD sentinel elements on both sides and the kernel sees
 * the interior (an offset view: PAD = 17 leaves it misaligned for every
 * element size; `aligned` pads by 16 elements in a 64-byte aligned
 * allocation instead, so an f32/f64 interior starts 64-byte aligned); outputs that the kernel only writes start as
 * NaN; inputs are deterministic (dyadic values when `exact`, so every order
 * of f32 and FP64 arithmetic agrees and the comparison is bitwise); a
 * parameter may alias another's memory.  The whole allocation, pads
 * included, must match: bitwise when exact, else within
 * atol = rtol = tolerance (NaN only where the reference has NaN). */
#ifndef TILEC_TEST_LOWER_FIXTURE_H
#define TILEC_TEST_LOWER_FIXTURE_H

#include "base/half.h"
#include "driver/pipeline.h"
#include "examples_util.h"
#include "lower/lower.h"
#include "tir/ir.h"
#include "rt/dispatch.h"
#include "simd/simd.h"
#include "xir/interp.h"
#include "xir/text.h"
#include "xir/verify.h"

#include <math.h>
#include <stdlib.h>

static tilec_context *ctx;

enum { PAD = 17, MAX_ARGS = 8 };
static const double SENTINEL = -731.25;

/* Parses and verifies; NULL (after a failed CHECK) on error. */
static inline tir_module *parse_kernel(const char *text, const tir_define *defines, size_t n_defines) {
    return parse_verified(ctx, text, defines, n_defines);
}

/* True when some diagnostic has `code` (unless NULL) and contains `text`. */
static inline bool has_diag(const char *code, const char *text) { return has_diag_in(ctx, code, text); }

/* The lowered module verifies, and its text reads back to the same text. */
static inline void check_module(const xir_module *m) {
    CHECK(xir_verify(ctx, m) == TILEC_OK);
    strbuf first, second;
    strbuf_init(&first, ctx);
    strbuf_init(&second, ctx);
    xir_module *back = NULL;
    CHECK(xir_print_to_strbuf(m, &first));
    CHECK(xir_parse(ctx, first.data, first.len, "lowered.xir", &back) == TILEC_OK);
    CHECK(back && xir_verify(ctx, back) == TILEC_OK && xir_print_to_strbuf(back, &second));
    CHECK(first.len == second.len && !strcmp(strbuf_cstr(&first), strbuf_cstr(&second)));
    flush_diags_in(ctx);
    xir_module_destroy(back);
    strbuf_free(&first);
    strbuf_free(&second);
}

/* What a lowering reads: the compile options and what a plan decided
 * (tests set both by hand; the driver takes the choice from the plan). */
typedef struct {
    tilec_compile_options record;
    realize_choice choice;
} lowering;

static inline lowering lowering_default(void) {
    return (lowering){tilec_compile_options_default(), realize_choice_default()};
}

/* Lowers (o NULL: the defaults), expecting success (a verified module that
 * round-trips through its text); prints the diagnostics otherwise. */
static inline bool lower_ok(const tir_func *f, const lowering *o, lower_result *r) {
    tilec_status st = lower_kernel(ctx, f, o ? &o->record : NULL, o ? &o->choice : NULL, r);
    CHECK_MSG(st == TILEC_OK, "lowering '@%s' failed (%s)", tir_func_name(f), tilec_status_name(st));
    if (st) {
        tilec_diag_print(ctx, stderr);
        tilec_diag_clear(ctx);
    } else {
        check_module(r->module);
    }
    return st == TILEC_OK;
}

/* Instructions of a kind (and arith opcode, XIR_OP_INVALID for any). */
static inline uint64_t count_insts(const xir_func *f, xir_inst_kind kind, xir_arith_op op) {
    uint64_t n = 0;
    for (xir_block *b = f->first; b; b = b->next)
        for (xir_inst *i = b->first; i; i = i->next)
            if (i->kind == kind && (op == XIR_OP_INVALID || i->op == op)) n++;
    return n;
}

static inline uint64_t count_all_insts(const xir_func *f) {
    uint64_t n = 0;
    for (xir_block *b = f->first; b; b = b->next)
        for (xir_inst *i = b->first; i; i = i->next) n++;
    return n;
}

/* ---- runtime comparison ---- */

typedef struct {
    uint32_t width;     /* packet width W for the XIR run */
    bool exact;         /* dyadic inputs, bitwise comparison */
    double tolerance;   /* otherwise */
    int alias[MAX_ARGS]; /* alias[i] = j >= 0: parameter i is bound to parameter j's memory */
    size_t alias_offset[MAX_ARGS]; /* ... that many elements in (j's allocation grows to hold it) */
    bool aligned;       /* interiors 16 elements into 64-byte aligned allocations (else PAD, misaligned) */
} run_config;

static inline run_config run_config_default(uint32_t width, bool exact) {
    run_config c = {width, exact, 2e-5, {-1, -1, -1, -1, -1, -1, -1, -1}, {0}, false};
    return c;
}

/* Sentinel elements on each side of an interior. */
static inline size_t pad_of(const run_config *c) { return c->aligned ? 16 : PAD; }

static double input_value(tir_scalar s, bool exact, size_t param, size_t i) {
    if (!tir_scalar_is_float(s)) return (double)(((int)((3 * i + 7 * param + 7) % 31) - 15) * 3);
    if (exact) return (double)((int)((3 * i + 7 * param + 7) % 31) - 15) * 0.125;
    return sin(0.173 * (double)i + 0.7 * (double)param) * 1.7;
}

static void put_elem(tir_scalar s, unsigned char *p, double v) {
    switch (s) {
    case TIR_F32: { float x = (float)v; memcpy(p, &x, 4); return; }
    case TIR_F64: memcpy(p, &v, 8); return;
    case TIR_F16: case TIR_BF16: {
        uint16_t h = s == TIR_F16 ? half_from_double(v) : bf16_from_double(v);
        memcpy(p, &h, 2);
        return;
    }
    case TIR_BOOL: *p = v != 0; return;
    default: {
        int64_t x = (int64_t)v;
        memcpy(p, &x, tir_scalar_size(s)); /* little-endian: the low bytes */
        return;
    }
    }
}

static double get_elem(tir_scalar s, const unsigned char *p) {
    switch (s) {
    case TIR_F32: { float x; memcpy(&x, p, 4); return x; }
    case TIR_F64: { double x; memcpy(&x, p, 8); return x; }
    case TIR_F16: case TIR_BF16: {
        uint16_t h;
        memcpy(&h, p, 2);
        return s == TIR_F16 ? half_to_double(h) : bf16_to_double(h);
    }
    case TIR_BOOL: return *p != 0;
    default: {
        int64_t x = 0;
        memcpy(&x, p, tir_scalar_size(s));
        size_t bits = 8 * tir_scalar_size(s);
        if (bits < 64 && tir_scalar_is_signed(s) && (x >> (bits - 1)) & 1) x -= (int64_t)1 << bits;
        return (double)x;
    }
    }
}

/* One padded allocation per parameter that owns memory. */
typedef struct {
    unsigned char *ref[MAX_ARGS], *xir[MAX_ARGS];
    size_t bytes[MAX_ARGS], elem_size[MAX_ARGS];
    tir_scalar elem[MAX_ARGS];
} run_buffers;

/* Inputs for the parameters `usage` reads (NULL: the const parameters), NaN
 * (99 for integers) for the others: they are outputs. */
static void fill_buffers(const tir_func *f, const lower_arg *usage, const run_config *c, run_buffers *b) {
    size_t n = tir_func_param_count(f);
    for (size_t i = 0; i < n; i++) {
        const tir_value *p = tir_func_param(f, i);
        uint64_t volume;
        tir_space_volume(tir_type_space(tir_value_type(p)), &volume);
        b->elem[i] = tir_type_elem(tir_value_type(p));
        b->elem_size[i] = tir_scalar_size(b->elem[i]);
        b->bytes[i] = volume * b->elem_size[i];
    }
    for (size_t i = 0; i < n; i++) { /* an owner holds every view bound into it */
        if (c->alias[i] < 0) continue;
        size_t j = (size_t)c->alias[i], end = c->alias_offset[i] * b->elem_size[i] + b->bytes[i];
        if (end > b->bytes[j]) b->bytes[j] = end;
    }
    for (size_t i = 0; i < n; i++) {
        const tir_value *p = tir_func_param(f, i);
        uint64_t volume = b->bytes[i] / b->elem_size[i];
        if (c->alias[i] >= 0) continue;
        size_t pad_n = pad_of(c), total = b->bytes[i] + 2 * pad_n * b->elem_size[i];
        b->ref[i] = aligned_alloc(64, (total + 63) / 64 * 64);
        b->xir[i] = aligned_alloc(64, (total + 63) / 64 * 64);
        for (size_t k = 0; k < volume + 2 * pad_n; k++) {
            bool pad = k < pad_n || k >= pad_n + volume;
            bool input = usage ? usage[i].usage & TIR_USE_READ : p->read_only;
            double v = pad ? SENTINEL : input ? input_value(b->elem[i], c->exact, i, k - pad_n) : NAN;
            if (!tir_scalar_is_float(b->elem[i]) && !pad && !input) v = 99;
            put_elem(b->elem[i], b->ref[i] + k * b->elem_size[i], v);
        }
        memcpy(b->xir[i], b->ref[i], total);
    }
}

/* Compares one allocation, pads included. */
static bool compare_buffer(const char *label, const run_config *c, const run_buffers *b, size_t i) {
    size_t es = b->elem_size[i], pad_n = pad_of(c), count = b->bytes[i] / es + 2 * pad_n, bad = 0;
    unsigned char sentinel[8];
    put_elem(b->elem[i], sentinel, SENTINEL);
    for (size_t k = 0; k < count; k++) {
        const unsigned char *x = b->ref[i] + k * es, *y = b->xir[i] + k * es;
        bool pad = k < pad_n || k >= count - pad_n, ok;
        double e = get_elem(b->elem[i], x), a = get_elem(b->elem[i], y);
        if (pad || c->exact || !tir_scalar_is_float(b->elem[i])) ok = !memcmp(x, y, es) || (isnan(e) && isnan(a));
        else ok = isnan(e) ? isnan(a) : fabs(a - e) <= c->tolerance + c->tolerance * fabs(e);
        if (pad) ok = ok && !memcmp(x, sentinel, es);
        if (!ok && bad++ < 4)
            fprintf(stderr, "%s: W=%u argument %zu element %lld: reference %.9g, XIR %.9g%s\n", label, c->width, i,
                    (long long)k - (long long)pad_n, e, a, pad ? " (pad)" : "");
    }
    return bad == 0;
}

/* An example at a shape: examples/NAME.tir with `defines`; alias_out >= 0
 * binds that parameter to parameter alias_in's memory. */
typedef struct {
    const char *name;
    tir_define defines[8];
    size_t n_defines;
    int alias_out, alias_in;
} example_case;

/* The run configuration of case `e`: run_config_default plus its aliasing. */
static inline run_config example_config(const example_case *e, uint32_t width, bool exact) {
    run_config c = run_config_default(width, exact);
    if (e->alias_out >= 0) c.alias[e->alias_out] = e->alias_in;
    return c;
}

/* Runs the kernel under test on `args` (the interiors of the padded
 * allocations, aliases resolved; element types in b->elem) after the
 * reference run ended with status `reference`; false after a failed CHECK. */
typedef bool (*kernel_runner)(void *env, const char *label, tilec_status reference, size_t n, const tir_buffer *args,
                              const run_buffers *b);

/* Runs `f` on the reference interpreter and the kernel under test (`what`
 * in messages) from identical inputs (read per `usage`, see fill_buffers);
 * true when they agree everywhere, pads included. */
static inline bool compare_with_reference(const char *label, const char *what, const tir_func *f, const lower_arg *usage,
                                          const run_config *c, kernel_runner run, void *env) {
    run_buffers b;
    memset(&b, 0, sizeof b);
    fill_buffers(f, usage, c, &b);
    size_t n = tir_func_param_count(f);
    tir_buffer ref_args[MAX_ARGS], args[MAX_ARGS];
    for (size_t i = 0; i < n; i++) {
        size_t owner = c->alias[i] >= 0 ? (size_t)c->alias[i] : i;
        size_t at = (pad_of(c) + (c->alias[i] >= 0 ? c->alias_offset[i] : 0)) * b.elem_size[owner];
        ref_args[i] = (tir_buffer){b.ref[owner] + at, b.bytes[i]};
        args[i] = (tir_buffer){b.xir[owner] + at, b.bytes[i]};
    }
    tilec_status st = tir_interpret(ctx, f, n, ref_args);
    CHECK_MSG(st == TILEC_OK, "%s: reference run failed", label);
    bool ok = run(env, label, st, n, args, &b) && st == TILEC_OK;
    flush_diags_in(ctx);
    for (size_t i = 0; ok && i < n; i++)
        if (c->alias[i] < 0) ok = compare_buffer(label, c, &b, i) && ok;
    CHECK_MSG(ok, "%s: %s result differs from the reference at W=%u", label, what, c->width);
    for (size_t i = 0; i < n; i++) free(b.ref[i]), free(b.xir[i]);
    return ok;
}

typedef struct {
    const lower_result *r;
    uint32_t width;
} xir_run;

static inline bool run_xir(void *env, const char *label, tilec_status reference, size_t n, const tir_buffer *args,
                           const run_buffers *b) {
    (void)reference, (void)b;
    const xir_run *x = env;
    tilec_status st = xir_interpret(ctx, x->r->kernel, x->r->dispatch_size, x->width, n, args);
    CHECK_MSG(st == TILEC_OK, "%s: XIR run failed at W=%u", label, x->width);
    return st == TILEC_OK;
}

typedef struct {
    const lower_result *r;
    const simd_kernel *k;
    rt_pool *pool; /* NULL: every block on the calling thread */
} native_run;

/* Through the runtime: one task per block, so a pool of several workers
 * really splits the blocks among its threads. */
static inline bool run_simd_pool(const native_run *x, const char *label, size_t n, const tir_buffer *args) {
    rt_param params[MAX_ARGS];
    rt_arg bound[MAX_ARGS];
    for (size_t i = 0; i < n; i++) {
        params[i] = (rt_param){x->r->args[i].elem, x->r->args[i].min_bytes};
        bound[i] = (rt_arg){args[i].data, args[i].size_bytes, x->r->args[i].elem};
    }
    rt_kernel desc = {
        .name = label,
        .entry = (rt_entry)(void (*)(void))simd_kernel_entry(x->k), /* the same packet ABI */
        .arg_count = (uint32_t)n,
        .params = params,
        .dispatch_size = x->r->dispatch_size,
        .block_size = x->r->kernel->block_size,
        .blocks_per_task = 1,
        .workspace_bytes = simd_kernel_workspace_bytes(x->k),
    };
    tilec_status st = rt_dispatch(x->pool, ctx, &desc, bound, (uint32_t)n, NULL);
    CHECK_MSG(st == TILEC_OK, "%s: dispatch on %u workers failed", label, rt_pool_worker_count(x->pool));
    if (st) flush_diags_in(ctx);
    return st == TILEC_OK;
}

/* Not at all when the reference run failed (the kernel would make the same
 * bad access natively). */
static inline bool run_simd(void *env, const char *label, tilec_status reference, size_t n, const tir_buffer *args,
                     const run_buffers *b) {
    (void)b;
    const native_run *x = env;
    if (reference) return false;
    if (x->pool) return run_simd_pool(x, label, n, args);
    simd_buffer_arg nat_args[MAX_ARGS];
    for (size_t i = 0; i < n; i++) nat_args[i] = (simd_buffer_arg){args[i].data, args[i].size_bytes};
    fault_record faults;
    simd_kernel_run_all(x->k, nat_args, x->r->dispatch_size, &faults);
    CHECK_MSG(faults.count == 0, "%s: %llu bounds fault(s) natively (site %u, value %lld) where the reference ran",
              label, (unsigned long long)faults.count, faults.site, (long long)faults.value);
    return faults.count == 0;
}

/* Runs `f` on the reference interpreter and kernel `k` natively from
 * identical inputs, on the calling thread and then on a pool of 2 workers;
 * true when both agree with the reference everywhere (pads included). */
static inline bool run_simd_kernel(const char *label, const tir_func *f, const lower_result *r, const simd_kernel *k,
                       const run_config *c) {
    native_run x = {r, k, NULL};
    CHECK_MSG(!r->packed, "%s: a packing kernel needs its panels (run it through the facade)", label);
    if (r->packed) return false;
    bool ok = compare_with_reference(label, "native", f, r->args, c, run_simd, &x);
    CHECK(rt_pool_create(ctx, &(rt_pool_options){2}, &x.pool) == TILEC_OK);
    if (x.pool) ok = compare_with_reference(label, "native, 2 threads", f, r->args, c, run_simd, &x) && ok;
    rt_pool_destroy(x.pool);
    return ok;
}

/* Compiles the lowered kernel as the CPU target's emit stage would, at
 * c->width, and compares its native run with the reference. */
static inline bool run_native_lowered(const char *label, const tir_func *f, const lower_result *r, const run_config *c) {
    tilec_compile_options o = tilec_compile_options_default();
    o.width = c->width;
    simd_kernel *k = NULL;
    tilec_status st = pipeline_native_lowered(ctx, r, &o, &k);
    CHECK_MSG(st == TILEC_OK, "%s: SIMD compile failed at W=%u", label, c->width);
    if (st != TILEC_OK) {
        flush_diags_in(ctx);
        return false;
    }
    bool ok = run_simd_kernel(label, f, r, k, c);
    simd_kernel_destroy(k);
    return ok;
}

/* Runs `f` on the reference interpreter and its lowering on the XIR
 * interpreter alone at c->width (also W = 32, a GPU warp, which the SIMD
 * backend refuses) from identical inputs; true when they agree everywhere. */
static inline bool run_xir_and_compare(const char *label, const tir_func *f, const lower_result *r, const run_config *c) {
    xir_run x = {r, c->width};
    return compare_with_reference(label, "XIR", f, r->args, c, run_xir, &x);
}

/* Runs `f` on the reference interpreter and its lowering on the XIR
 * interpreter and natively (SIMD backend, 1 and 2 threads) from
 * identical inputs; true when both agree with the reference everywhere. */
static inline bool run_and_compare(const char *label, const tir_func *f, const lower_result *r, const run_config *c) {
    bool xir_ok = run_xir_and_compare(label, f, r, c);
    return run_native_lowered(label, f, r, c) && xir_ok;
}

/* Parses `text` with defines, lowers it with `o` and compares at every packet
 * width 1, 2, 4, 8, 16. */
static inline bool check_kernel_all_widths(const char *label, const char *text, const tir_define *defines, size_t n_defines,
                                    const lowering *o, run_config c) {
    tir_module *m = parse_kernel(text, defines, n_defines);
    if (!m) return false;
    lower_result r;
    bool ok = lower_ok(tir_module_func(m, 0), o, &r);
    for (uint32_t w = 1; ok && w <= 16; w *= 2) {
        c.width = w;
        ok = run_and_compare(label, tir_module_func(m, 0), &r, &c);
    }
    lower_result_free(&r);
    tir_module_destroy(m);
    return ok;
}

#endif
