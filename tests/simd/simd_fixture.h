/* simd_fixture.h — helpers shared by the SIMD backend tests: compile an XIR
 * kernel natively at a packet width, run every block on the calling thread,
 * and compare with the W-lane XIR interpreter from identical inputs
 * (sentinel-padded buffers, patterned inputs with special values): integer
 * and bool buffers bitwise, float buffers within atol = rtol = `tolerance`
 * (NaN where the interpreter has NaN, the same sign, so -0 is not +0; pads
 * bitwise). */
#ifndef TILEC_TEST_SIMD_FIXTURE_H
#define TILEC_TEST_SIMD_FIXTURE_H

#include "harness.h"
#include "diag_util.h"
#include "simd/simd.h"
#include "xir/interp.h"
#include "xir/text.h"
#include "xir/verify.h"

#include <math.h>
#include <stdint.h>

static tilec_context *ctx;

enum { PAD_BYTES = 64, MAX_BUFS = 8 };

static inline void flush_diags(void) { flush_diags_in(ctx); }

static inline bool has_diag(const char *code) { return has_diag_in(ctx, code, NULL); }

static inline xir_module *parse_xir(const char *text) {
    xir_module *m = NULL;
    tilec_status st = xir_parse(ctx, text, strlen(text), "test.xir", &m);
    if (!st) st = xir_verify(ctx, m);
    CHECK_MSG(st == TILEC_OK, "XIR does not parse/verify");
    flush_diags();
    if (st) {
        xir_module_destroy(m);
        return NULL;
    }
    return m;
}

static inline simd_kernel *compile_with(const xir_func *f, uint32_t w, bool full_packets) {
    tilec_compile_options o_record = tilec_compile_options_default();
    simd_facts o = {0};
    o.width = w;
    o_record.full_packet_specialization = full_packets;
    simd_kernel *k = NULL;
    tilec_status st = simd_compile(ctx, f, &o_record, &o, &k);
    CHECK_MSG(st == TILEC_OK, "'%s' does not compile at W=%u", f->name, w);
    flush_diags();
    return k;
}

static inline simd_kernel *compile_at(const xir_func *f, uint32_t w) { return compile_with(f, w, true); }

/* Deterministic inputs with special values mixed in (elements 0..63 of
 * buffers 1 and 2 hold every pair of special values). */
static inline void fill_input(tir_scalar s, unsigned char *p, size_t count, unsigned seed) {
    static const float fspecial[] = {0.0f, -0.0f, NAN, INFINITY, -INFINITY, 1.0f, -1.0f, 3.5f};
    static const int64_t ispecial[] = {0, -1, 1, INT64_MIN, INT64_MAX, 7, -7, 2};
    size_t es = tir_scalar_size(s);
    for (size_t i = 0; i < count; i++) {
        unsigned h = (unsigned)(i * 2654435761u + seed * 40503u);
        bool special = (h >> 7) % 5 == 0;
        if (i < 64) { /* every pair of special values across the first two buffers */
            special = true;
            h = (unsigned)(seed % 2 ? i % 8 : i / 8 % 8);
        }
        unsigned char *at = p + i * es;
        if (s == TIR_F32) {
            float v = special ? fspecial[h % 8] : (float)((int)(h % 2001) - 1000) / 97.0f;
            memcpy(at, &v, 4);
        } else if (s == TIR_F64) {
            double v = special ? (double)fspecial[h % 8] : (double)((int)(h % 2001) - 1000) / 97.0;
            memcpy(at, &v, 8);
        } else if (s == TIR_BOOL) {
            *at = h & 1;
        } else {
            int64_t v = special ? ispecial[h % 8] : (int64_t)(h % 61) - 30;
            memcpy(at, &v, es); /* little-endian: the low bytes */
        }
    }
}

static inline double as_double(tir_scalar s, const unsigned char *p) {
    if (s == TIR_F32) {
        float v;
        memcpy(&v, p, 4);
        return v;
    }
    double v;
    memcpy(&v, p, 8);
    return v;
}

/* Runs `f` over `dispatch` ids on the interpreter and natively (kernel `k`,
 * width w) with `bytes` per buffer; true when every buffer agrees. */
static inline bool run_compare(const char *label, const xir_func *f, const simd_kernel *k, uint32_t w, uint32_t dispatch,
                               size_t bytes, double tolerance) {
    size_t n = f->args.len, total = bytes + 2 * PAD_BYTES;
    unsigned char *ref[MAX_BUFS] = {0}, *nat[MAX_BUFS] = {0};
    tir_buffer rargs[MAX_BUFS];
    simd_buffer_arg nargs[MAX_BUFS];
    for (size_t i = 0; i < n; i++) {
        tir_scalar s = f->args.data[i]->type->scalar;
        ref[i] = malloc(total);
        nat[i] = malloc(total);
        memset(ref[i], 0xA5, total);
        fill_input(s, ref[i] + PAD_BYTES, bytes / tir_scalar_size(s), (unsigned)i + 1);
        memcpy(nat[i], ref[i], total);
        rargs[i] = (tir_buffer){ref[i] + PAD_BYTES, bytes};
        nargs[i] = (simd_buffer_arg){nat[i] + PAD_BYTES, bytes};
    }
    bool ok = true;
    tilec_status st = xir_interpret(ctx, f, dispatch, w, n, rargs);
    CHECK_MSG(st == TILEC_OK, "%s: interpreter failed", label);
    flush_diags();
    if (st) ok = false;
    fault_record faults = {0};
    if (ok) simd_kernel_run_all(k, nargs, dispatch, &faults);
    CHECK_MSG(faults.count == 0, "%s: %llu bounds fault(s) natively", label, (unsigned long long)faults.count);
    for (size_t i = 0; ok && i < n; i++) {
        tir_scalar s = f->args.data[i]->type->scalar;
        size_t es = tir_scalar_size(s), bad = 0;
        for (size_t off = 0; off < total; off += es) {
            const unsigned char *x = ref[i] + off, *y = nat[i] + off;
            bool pad = off < PAD_BYTES || off >= PAD_BYTES + bytes, same = !memcmp(x, y, es);
            if (!same && !pad && tir_scalar_is_float(s)) {
                double e = as_double(s, x), a = as_double(s, y);
                same = isnan(e) ? isnan(a)
                                : !signbit(e) == !signbit(a) && (e == a || fabs(a - e) <= tolerance + tolerance * fabs(e));
            }
            if (!same && bad++ < 4)
                fprintf(stderr, "%s: W=%u dispatch=%u buffer %zu byte %lld%s differs\n", label, w, dispatch, i,
                        (long long)off - PAD_BYTES, pad ? " (pad)" : "");
        }
        ok = ok && bad == 0;
    }
    CHECK_MSG(ok, "%s: native differs from the interpreter at W=%u dispatch=%u", label, w, dispatch);
    for (size_t i = 0; i < n; i++) free(ref[i]), free(nat[i]);
    return ok;
}

/* Compiles `f` at every width, with and without full-packet
 * specialization, and compares over the given dispatch sizes. */
static inline void check_all_widths(const char *label, const xir_func *f, const uint32_t *dispatches, size_t nd,
                                    size_t bytes, double tolerance) {
    for (uint32_t w = 1; w <= 16; w *= 2)
        for (int full = 0; full < 2; full++) {
            if (f->block_size % w) continue;
            simd_kernel *k = compile_with(f, w, full);
            if (!k) continue;
            CHECK(simd_kernel_counters(k)->full_packet_bodies == (full && w > 1));
            for (size_t d = 0; d < nd; d++) run_compare(label, f, k, w, dispatches[d], bytes, tolerance);
            simd_kernel_destroy(k);
        }
}

#endif
