/* Runtime sizes (docs/tir.md "Runtime sizes"): shape parameters declared
 * with a range and left unpinned.  What the parser builds (forms in their
 * canonical shape, printed so they read back), where a runtime size is
 * refused and with which code and caret, the builder's checks, and
 * specialization: each example with a size made a range, set to a value, is
 * the kernel -D pins to it (the same printed text), and runs on the
 * reference interpreter through tilec_dispatch_dims to the same bytes as the
 * pinned kernel.  One native kernel (and one for the XIR interpreter) per
 * example serves every size: at W 4, 8 and 16 and 1 or 2 threads it matches
 * the reference and the kernel compiled for that size, and writes nothing
 * past its buffers.  Dispatch refuses sizes outside their range and buffers
 * smaller than the sizes need; the CUDA target refuses the kernel. */
#include "examples_util.h"
#include "tilec/pipeline.h"
#include "tilec/tilec.h"
#include "tir/text.h"

#include <math.h>
#include <stdlib.h>

static tilec_context *ctx;

static tir_module *parse(int at, const char *src, const tir_define *defines, size_t n) {
    tilec_diag_clear(ctx);
    tir_module *m = NULL;
    tilec_status st = tir_parse(ctx, src, strlen(src), "test.tir", defines, n, &m);
    if (!st) st = tir_verify(ctx, m);
    CHECK_MSG(st == TILEC_OK && m, "line %d: parse or verify failed", at);
    if (st) {
        flush_diags_in(ctx);
        tir_module_destroy(m);
        return NULL;
    }
    return m;
}

static char *printed(const tir_module *m) {
    strbuf s;
    strbuf_init(&s, ctx);
    char *copy = tir_print_to_strbuf(m, &s) ? strdup(strbuf_cstr(&s)) : NULL;
    strbuf_free(&s);
    CHECK(copy != NULL);
    return copy;
}

/* The first diagnostic must be `code` at line:col and mention `text`. */
static void expect_error(int at, const char *src, const char *code, unsigned line, unsigned col, const char *text) {
    tilec_diag_clear(ctx);
    tir_module *m = NULL;
    tilec_status st = tir_parse(ctx, src, strlen(src), "test.tir", NULL, 0, &m);
    CHECK_MSG(st != TILEC_OK && !m, "case %d: expected %s", at, code);
    const tilec_diag *d = tilec_diag_count(ctx) ? tilec_diag_at(ctx, 0) : NULL;
    CHECK_MSG(d && !strcmp(d->code, code) && d->loc.line == line && d->loc.column == col && strstr(d->message, text),
              "case %d: expected %s at %u:%u (\"%s\"), got %s at %u:%u: %s", at, code, line, col, text,
              d ? d->code : "nothing", d ? d->loc.line : 0, d ? d->loc.column : 0, d ? d->message : "");
    tir_module_destroy(m);
}

/* ---- forms ---- */

static const char *forms_src =
    "kernel @k<L: 1..4096, M: 0..64, B=16, H=2*L + 3>(\n"
    "    %X: view<f32>[x0=L, x1=B],\n"
    "    %Y: view<f32>[y0=L + M - L + 1, y1=ceil_div(L, B)],\n"
    "    %Z: view<f32>[z0=(L - 1) / 4 + 1, z1=L % 8, z2=min(L, 64), z3=max(64, M), z4=H - 2*L]) {\n"
    "  parallel (%r: r=ceil_div(L, B), %h: h=M + 1) {\n"
    "    %n = const index 2*(L / 4) - 3*M\n"
    "    %c = const index B*B\n"
    "    serial (%k: k=ceil_div(L - 1, B) + 1) {\n"
    "    }\n"
    "  }\n"
    "}\n";

static void test_forms(void) {
    tir_module *m = parse(__LINE__, forms_src, NULL, 0);
    if (!m) return;
    const tir_func *f = tir_module_func(m, 0);
    CHECK(tir_func_symbol_count(f) == 2);
    int64_t lo = -1, hi = -1;
    CHECK(!strcmp(tir_func_symbol(f, 1, &lo, &hi), "M") && lo == 0 && hi == 64);
    CHECK(tir_func_symbol(f, 2, NULL, NULL) == NULL);
    /* B and H are shape parameters as before; H depends on L, so it has no number */
    int64_t v = -1;
    CHECK(!strcmp(tir_func_shape_param(f, 3, &v), "H") && v == 0);
    const tir_space *y = tir_type_space(tir_value_type(tir_func_param(f, 1)));
    const tir_space *z = tir_type_space(tir_value_type(tir_func_param(f, 2)));
    /* L + M − L + 1 is M + 1, as the parallel's h; H − 2L is the number 3 */
    CHECK(tir_extent_is_symbolic(tir_space_extent(y, 0)));
    CHECK(tir_space_extent(z, 4) == 3);
    char *text = printed(m);
    if (text) {
        CHECK_STR_CONTAINS(text, "kernel @k<L: 1..4096, M: 0..64>(");
        CHECK_STR_CONTAINS(text, "[x0=L, x1=16]");
        CHECK_STR_CONTAINS(text, "[y0=M + 1, y1=ceil_div(L, 16)]");
        CHECK_STR_CONTAINS(text, "z0=(L - 1) / 4 + 1, z1=L % 8, z2=min(L, 64), z3=max(M, 64), z4=3]");
        CHECK_STR_CONTAINS(text, "(%r: r=ceil_div(L, 16), %h: h=M + 1)");
        CHECK_STR_CONTAINS(text, "const index -3*M + 2*(L / 4)");
        CHECK_STR_CONTAINS(text, "const index 256");
        CHECK_STR_CONTAINS(text, "(%k: k=ceil_div(L - 1, 16) + 1)");
        /* the printed kernel reads back as itself */
        tir_module *again = parse(__LINE__, text, NULL, 0);
        char *text2 = again ? printed(again) : NULL;
        CHECK(text2 && !strcmp(text, text2));
        free(text2);
        tir_module_destroy(again);
    }
    free(text);
    /* equal forms are equal extents: the parallel's h and Y's y0 */
    const tir_op *par = tir_block_first(tir_func_body(f));
    CHECK(tir_space_extent(tir_op_domain(par), 1) == tir_space_extent(y, 0));
    CHECK(tir_space_extent(tir_op_domain(par), 0) == tir_space_extent(y, 1));
    tir_module_destroy(m);
}

/* ---- where a runtime size is refused ---- */

typedef struct {
    const char *src, *code;
    unsigned line, col;
    const char *text;
} refusal;

static const refusal refusals[] = {
    {"kernel @k<L: 1..8>() {\n  %t = const tile<f32>[m=L] 0.0\n}\n", "TIR-P27", 2, 26,
     "a tile's extents must be numbers"},
    {"kernel @k<L: 1..8>(%X: view<f32>[x=L]) {\n  parallel (%i: i=L) {\n    %t = load %X[%i] tile [m=L]\n  }\n}\n",
     "TIR-P27", 3, 30, "a tile's extents must be numbers"},
    {"kernel @k<L: 1..8, M: 1..8>(%X: view<f32>[x=L*M]) {\n}\n", "TIR-P27", 1, 46, "product of two runtime sizes"},
    {"kernel @k<L: 1..8, M: 1..8>(%X: view<f32>[x=L/M]) {\n}\n", "TIR-P27", 1, 46, "a divisor must be a number"},
    {"kernel @k<L: 1..8>(%X: view<f32>[x=L / -2]) {\n}\n", "TIR-P27", 1, 38, "must be positive"},
    {"kernel @k<L: 1..8>(%X: view<f32>[x=L - 2]) {\n}\n", "TIR-P10", 1, 36, "reaches -1"},
    {"kernel @k<L: 1..8>() {\n  %x = const f32 L\n}\n", "TIR-P27", 2, 18, "only an index constant"},
    {"kernel @k<L: 1..8>() {\n  %x = const i32 L + 1\n}\n", "TIR-P27", 2, 18, "only an index constant"},
    {"kernel @k<L: 1..8, M: 0..L>() {\n}\n", "TIR-P27", 1, 26, "bounds must be numbers"},
    {"kernel @k<L: -1..8>() {\n}\n", "TIR-P25", 1, 14, "cannot be negative"},
    {"kernel @k<L: 1..8>(%X: view<f32>[x=64]) {\n  parallel (%i: i=2) {\n"
     "    %t = load %X[%i] tile [m=2] stride [L]\n  }\n}\n",
     "TIR-P27", 3, 41, "a stride must be a number"},
    {"kernel @k<L: 1..8>() {\n  %t = iota [m=L]\n}\n", "TIR-P27", 2, 16, "a tile's extents must be numbers"},
};

static void test_refusals(void) {
    for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
        const refusal *r = &refusals[i];
        expect_error((int)i, r->src, r->code, r->line, r->col, r->text);
    }
}

/* ---- the builder ---- */

static void test_builder(void) {
    tir_module *m = tir_module_create(ctx);
    tir_func *f = m ? tir_func_new(m, "k") : NULL;
    CHECK(f != NULL);
    if (!f) {
        tir_module_destroy(m);
        return;
    }
    uint64_t L = 0, bad = 0;
    tilec_diag_clear(ctx);
    CHECK(tir_func_add_symbol(f, "L", 1, 100, &L) == TILEC_OK && tir_extent_is_symbolic(L));
    CHECK(tir_func_add_symbol(f, "L", 1, 100, &bad) == TILEC_E_ARG && has_diag_in(ctx, "TIR-M06", "declared twice"));
    CHECK(tir_func_add_symbol(f, "two words", 1, 100, &bad) == TILEC_E_ARG && has_diag_in(ctx, "TIR-M02", "identifier"));
    CHECK(tir_func_add_symbol(f, "E", 5, 4, &bad) == TILEC_E_ARG && has_diag_in(ctx, "TIR-B54", "5..4"));
    CHECK(tir_func_extent_symbol(f, L) == 0 && tir_func_extent_symbol(f, 7) == -1);
    uint64_t extents[2] = {L, 4};
    tir_value *x = tir_func_add_view(f, "X", TIR_F32, 2, extents, false);
    CHECK(x != NULL);
    tir_space *s = x ? tir_type_space(tir_value_type(x)) : NULL;
    uint64_t volume = 0;
    CHECK(s && !tir_space_volume(s, &volume));
    tilec_diag_clear(ctx);
    CHECK(s && tir_type_tile(m, TIR_F32, s) == NULL && has_diag_in(ctx, "TIR-B56", "X.0=L depends on a runtime size"));
    uint64_t forged = TIR_EXTENT_SYMBOLIC | 77;
    tir_dim *d = tir_dim_new(m, "d");
    CHECK(tir_space_make(m, 1, &d, &forged) == NULL && has_diag_in(ctx, "TIR-B55", "not a runtime size"));
    for (int i = 1; i < 16; i++) {
        char name[8];
        snprintf(name, sizeof name, "S%d", i);
        CHECK(tir_func_add_symbol(f, name, 0, 1, &bad) == TILEC_OK);
    }
    CHECK(tir_func_add_symbol(f, "S16", 0, 1, &bad) == TILEC_E_UNSUPPORTED && has_diag_in(ctx, "TIR-B53", "16"));
    tir_module_destroy(m);
}

/* ---- the examples, sized ---- */

/* `src` with shape parameter `name=DEFAULT` declared `name: range`. */
static char *make_ranged(const char *src, const char *name, const char *range) {
    const char *header = strstr(src, "\nkernel @");
    const char *at = header ? strchr(header, '<') : NULL;
    size_t n = strlen(name);
    while (at && *at != '>' && !(strncmp(at + 1, name, n) == 0 && at[1 + n] == '=' && (*at == '<' || *at == ' ')))
        at++;
    CHECK_MSG(at && *at != '>', "no parameter %s", name);
    if (!at || *at == '>') return NULL;
    const char *end = at + 1 + n;
    while (*end != ',' && *end != '>') end++;
    size_t len = strlen(src) + strlen(range) + 8;
    char *out = malloc(len);
    snprintf(out, len, "%.*s%s: %s%s", (int)(at + 1 - src), src, name, range, end);
    return out;
}

/* Deterministic contents for buffer i: floats in [-1, 1), other types 0. */
static void fill(tilec_buffer *b, tir_scalar elem, size_t i) {
    memset(b->data, 0, b->size_bytes);
    if (elem != TIR_F32) return;
    uint64_t state = 0x9E3779B97F4A7C15ull * (i + 1);
    for (size_t e = 0; e < b->size_bytes / 4; e++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        ((float *)b->data)[e] = (float)((double)(state >> 40) * 0x1p-23 - 1.0);
    }
}

/* Runs f (pinned) and the dynamic kernel at `value` on the reference
 * interpreter, on the same inputs; the outputs must be the same bytes. */
static void run_both(const char *name, const tir_func *dynamic, const tir_func *pinned, int64_t value) {
    tilec_pipeline_config reference = tilec_pipeline_config_default();
    reference.engine = TILEC_ENGINE_REFERENCE;
    tilec_kernel *kd = NULL, *ks = NULL;
    CHECK(tilec_pipeline_run(ctx, dynamic, NULL, &reference, &kd) == TILEC_OK);
    CHECK(tilec_pipeline_run(ctx, pinned, NULL, &reference, &ks) == TILEC_OK);
    size_t n = tir_func_param_count(pinned);
    tilec_buffer a[8], b[8];
    CHECK(n <= 8);
    for (size_t i = 0; i < n && i < 8; i++) {
        const tir_type *t = tir_value_type(tir_func_param(pinned, i));
        uint64_t volume = 0;
        tir_space_volume(tir_type_space(t), &volume);
        size_t bytes = (size_t)volume * tir_scalar_size(tir_type_elem(t));
        a[i] = (tilec_buffer){malloc(bytes ? bytes : 1), bytes, tir_type_elem(t)};
        b[i] = (tilec_buffer){malloc(bytes ? bytes : 1), bytes, tir_type_elem(t)};
        fill(&a[i], tir_type_elem(t), i);
        fill(&b[i], tir_type_elem(t), i);
    }
    if (kd && ks && n <= 8) {
        CHECK(tilec_kernel_dim_count(kd) == 1 && tilec_kernel_dim_count(ks) == 0);
        CHECK_MSG(tilec_dispatch_dims(ctx, kd, n, a, 1, &value) == TILEC_OK, "%s at %lld", name, (long long)value);
        CHECK(tilec_dispatch(ctx, ks, n, b) == TILEC_OK);
        for (size_t i = 0; i < n; i++)
            CHECK_MSG(!memcmp(a[i].data, b[i].data, a[i].size_bytes), "%s at %lld: argument %zu differs", name,
                      (long long)value, i);
        flush_diags_in(ctx);
    }
    for (size_t i = 0; i < n && i < 8; i++) free(a[i].data), free(b[i].data);
    tilec_kernel_destroy(kd);
    tilec_kernel_destroy(ks);
}

typedef struct {
    const char *example, *param, *range;
    int64_t values[4];
} sized_case;

static const sized_case cases[] = {
    {"softmax", "R", "1..4096", {1, 2, 300, 4096}},
    {"rmsnorm", "R", "1..4096", {1, 5, 17, 0}},
    {"layernorm", "R", "0..4096", {0, 1, 13, 0}},
    {"rope", "R", "1..4096", {1, 3, 17, 0}},
    {"gemm", "M", "1..1024", {1, 7, 64, 67}},
    {"gemm_bt", "M", "1..1024", {1, 9, 64, 65}},
    {"transpose", "M", "1..1024", {1, 16, 37, 0}},
    {"bmm", "M", "1..512", {1, 5, 20, 0}},
    {"attention_gqa", "Lk", "1..32768", {1, 3, 11, 13}},
    {"attention", "Lq", "1..4096", {1, 2, 7, 0}},
};

static void test_examples_sized(void) {
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const sized_case *t = &cases[c];
        char *src = read_example(t->example);
        char *ranged = src ? make_ranged(src, t->param, t->range) : NULL;
        tir_module *dyn = ranged ? parse(__LINE__, ranged, NULL, 0) : NULL;
        CHECK_MSG(dyn != NULL, "%s with %s: %s", t->example, t->param, t->range);
        for (size_t i = 0; dyn && i < 4 && (i == 0 || t->values[i]); i++) {
            int64_t v = t->values[i];
            tir_define pin = {t->param, v};
            tir_module *pinned = parse(__LINE__, src, &pin, 1);
            tir_module *sized = tir_func_specialize(tir_module_func(dyn, 0), 1, &v);
            CHECK_MSG(sized && tir_verify(ctx, sized) == TILEC_OK, "%s at %s=%lld", t->example, t->param, (long long)v);
            char *a = sized ? printed(sized) : NULL, *b = pinned ? printed(pinned) : NULL;
            CHECK_MSG(a && b && !strcmp(a, b), "%s at %s=%lld: the sized kernel differs from the pinned one",
                      t->example, t->param, (long long)v);
            if (pinned) run_both(t->example, tir_module_func(dyn, 0), tir_module_func(pinned, 0), v);
            free(a), free(b);
            tir_module_destroy(sized);
            tir_module_destroy(pinned);
        }
        tir_module_destroy(dyn);
        free(ranged);
        free(src);
    }
}

/* ---- one compiled kernel, every size ---- */

enum { CANARY = 64 };

/* Buffers for f's parameters at its (static) shapes, inputs filled, each
 * followed by CANARY bytes of 0xA5 that no engine may touch. */
static size_t make_args(const tir_func *f, tilec_buffer *b) {
    size_t n = tir_func_param_count(f);
    for (size_t i = 0; i < n; i++) {
        const tir_type *t = tir_value_type(tir_func_param(f, i));
        uint64_t volume = 0;
        tir_space_volume(tir_type_space(t), &volume);
        size_t bytes = (size_t)volume * tir_scalar_size(tir_type_elem(t));
        b[i] = (tilec_buffer){malloc(bytes + CANARY), bytes, tir_type_elem(t)};
        fill(&b[i], tir_type_elem(t), i);
        memset((char *)b[i].data + bytes, 0xA5, CANARY);
    }
    return n;
}

static bool canaries_intact(const tilec_buffer *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < CANARY; c++)
            if (((const unsigned char *)b[i].data)[b[i].size_bytes + c] != 0xA5) return false;
    return true;
}

/* f32 outputs within 5e-5 + 5e-5|r| of the reference, NaN for NaN and
 * infinities equal (the CLI's --check); others bitwise. */
static bool close_to(const tilec_buffer *got, const tilec_buffer *ref) {
    if (got->elem != TIR_F32) return !memcmp(got->data, ref->data, got->size_bytes);
    for (size_t e = 0; e < got->size_bytes / 4; e++) {
        double x = ((const float *)got->data)[e], r = ((const float *)ref->data)[e];
        if (isnan(x) || isnan(r) || isinf(x) || isinf(r) ? !(x == r || (isnan(x) && isnan(r)))
                                                          : !(fabs(x - r) <= 5e-5 + 5e-5 * fabs(r)))
            return false;
    }
    return true;
}

/* The kernels at the size: reference (the pinned kernel), the dynamic one
 * compiled natively and for the XIR interpreter, the pinned one natively. */
static void run_sized(const sized_case *t, tilec_kernel *native, tilec_kernel *xir, const tir_func *pinned,
                      int64_t v, uint32_t width, uint32_t threads) {
    tilec_buffer ref[8], nat[8], xi[8], pin[8];
    size_t n = make_args(pinned, ref);
    make_args(pinned, nat), make_args(pinned, xi), make_args(pinned, pin);
    tilec_pipeline_config reference = tilec_pipeline_config_default();
    reference.engine = TILEC_ENGINE_REFERENCE;
    tilec_compile_options o = tilec_compile_options_default();
    o.width = width, o.threads = threads;
    tilec_kernel *kr = NULL, *kp = NULL;
    CHECK(tilec_pipeline_run(ctx, pinned, NULL, &reference, &kr) == TILEC_OK);
    CHECK(tilec_compile(ctx, pinned, &o, &kp) == TILEC_OK);
    bool ran = kr && kp && tilec_dispatch(ctx, kr, n, ref) == TILEC_OK &&
               tilec_dispatch_dims(ctx, native, n, nat, 1, &v) == TILEC_OK &&
               tilec_dispatch_dims(ctx, xir, n, xi, 1, &v) == TILEC_OK && tilec_dispatch(ctx, kp, n, pin) == TILEC_OK;
    CHECK_MSG(ran, "%s at %s=%lld (W=%u, %u threads): a dispatch failed", t->example, t->param, (long long)v, width,
              threads);
    flush_diags_in(ctx);
    for (size_t i = 0; ran && i < n; i++) {
        CHECK_MSG(close_to(&nat[i], &ref[i]) && close_to(&xi[i], &ref[i]) && close_to(&pin[i], &nat[i]),
                  "%s at %s=%lld (W=%u, %u threads): argument %zu differs", t->example, t->param, (long long)v, width,
                  threads, i);
    }
    CHECK_MSG(canaries_intact(nat, n) && canaries_intact(xi, n), "%s at %s=%lld: bytes past a buffer were written",
              t->example, t->param, (long long)v);
    for (size_t i = 0; i < n; i++) free(ref[i].data), free(nat[i].data), free(xi[i].data), free(pin[i].data);
    tilec_kernel_destroy(kr);
    tilec_kernel_destroy(kp);
}

static void test_native_sized(void) {
    static const uint32_t widths[3] = {4, 8, 16};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const sized_case *t = &cases[c];
        uint32_t width = widths[c % 3], threads = 1 + (uint32_t)(c % 2);
        char *src = read_example(t->example);
        char *ranged = src ? make_ranged(src, t->param, t->range) : NULL;
        tir_module *dyn = ranged ? parse(__LINE__, ranged, NULL, 0) : NULL;
        tilec_compile_options o = tilec_compile_options_default();
        o.width = width, o.threads = threads;
        tilec_pipeline_config xir = tilec_pipeline_config_default();
        xir.engine = TILEC_ENGINE_XIR;
        xir.modeled_workers = threads;
        tilec_kernel *native = NULL, *k_xir = NULL;
        CHECK_MSG(dyn && tilec_compile(ctx, tir_module_func(dyn, 0), &o, &native) == TILEC_OK &&
                      tilec_pipeline_run(ctx, tir_module_func(dyn, 0), &o, &xir, &k_xir) == TILEC_OK,
                  "%s with %s: %s does not compile", t->example, t->param, t->range);
        flush_diags_in(ctx);
        for (size_t i = 0; native && k_xir && i < 4 && (i == 0 || t->values[i]); i++) {
            tir_define pin = {t->param, t->values[i]};
            tir_module *pinned = parse(__LINE__, src, &pin, 1);
            if (pinned) run_sized(t, native, k_xir, tir_module_func(pinned, 0), t->values[i], width, threads);
            tir_module_destroy(pinned);
        }
        tilec_kernel_destroy(native);
        tilec_kernel_destroy(k_xir);
        tir_module_destroy(dyn);
        free(ranged);
        free(src);
    }
}

/* examples/<example>.tir with `param` made a runtime size over `range`,
 * parsed with d[0..n); *src: the example's own text (the caller frees it). */
static tir_module *ranged_example(const char *example, const char *param, const char *range, const tir_define *d,
                                  size_t n, char **src) {
    *src = read_example(example);
    char *ranged = *src ? make_ranged(*src, param, range) : NULL;
    tir_module *m = ranged ? parse(__LINE__, ranged, d, n) : NULL;
    free(ranged);
    return m;
}

/* Decode attention over a growing KV cache: one kernel, one compile per
 * distinct bucket plan, every length 1..600 dispatched (no compile at
 * dispatch), some checked against the reference. */
static void test_decode_lengths(void) {
    char *src;
    tir_define decode[5] = {{"B", 1}, {"Hq", 8}, {"Hkv", 1}, {"Lq", 1}, {"bq", 1}};
    tir_module *dyn = ranged_example("attention_gqa", "Lk", "1..4096", decode, 5, &src);
    tilec_compile_options o = tilec_compile_options_default();
    o.threads = 2;
    tilec_kernel *k = NULL;
    CHECK(dyn && tilec_compile(ctx, tir_module_func(dyn, 0), &o, &k) == TILEC_OK);
    if (k) {
        /* the buckets: 1, 2..255, 256..4096 cut, then 2..255 cut in two at
         * its middle: at two workers a split of the KV walk models 1.77x at
         * Lk=255 and 0.17x at Lk=2 (empty chunks, the tail doing every
         * trip), so no one plan serves 2..255 within 1.25 of each end's */
        const char *plan = tilec_kernel_realization(k);
        CHECK_MSG(strstr(plan, "plan=Lk=1..1:") && strstr(plan, " | Lk=2..22:order") &&
                      strstr(plan, " | Lk=23..255:split2(") && strstr(plan, " | Lk=256..4096:"),
                  "%s", plan);
        CHECK(strstr(plan, "dims=Lk:1..4096; variants="));
        /* Lk = 1 alone is the kernel specialized there (static code, its
         * grain fixed); elsewhere the grain is the pool's at each dispatch,
         * so no two variants differ by the grain alone; one compile per
         * distinct bucket plan */
        const char *rest = strstr(plan, " | Lk=2..22:");
        CHECK_MSG(rest && strstr(rest, "/grain-per-dispatch") && !strstr(rest, "/grain1/"), "%s", plan);
        CHECK_MSG(strstr(plan, "plan=Lk=1..1:") < rest && strstr(plan, "/tasks") < rest, "%s", plan);
        const char *v = strstr(plan, "variants=");
        CHECK_MSG(v && atoi(v + 9) >= 1 && atoi(v + 9) <= 3, "%s", plan);
        /* at two workers the 256..4096 bucket splits the KV walk over one
         * KV head (flash decoding): each chunk's loop covers full blocks
         * only, proven in bounds; the blocks past them (fewer than three,
         * the partial one among them) are the chunks' extra trips (one
         * branch), which alone keep K's and V's two guards (the loop's
         * loads would add two more); the combine kernel only merges */
        CHECK_MSG(strstr(plan, " | Lk=256..4096:split2("), "%s", plan);
        const char *lowered = tilec_kernel_plan_realization(k), *combine = strstr(lowered, " | combine: ");
        const char *kept = strstr(lowered, "guards_kept=2;"), *branch = strstr(lowered, "branches=1;");
        CHECK_MSG(combine && kept && kept < combine && branch && branch < combine && strstr(combine, "guards_kept=0;"),
                  "%s", lowered);
    }
    tilec_compile_options one = o;
    one.threads = 1;
    tilec_kernel *k1 = NULL;
    CHECK(dyn && tilec_compile(ctx, tir_module_func(dyn, 0), &one, &k1) == TILEC_OK);
    if (k1) { /* one worker, no split: the KV walk peeled, the guards only in the partial block's body */
        const char *plan = tilec_kernel_realization(k1); /* one plan serves 2..255: the cuts stand */
        CHECK_MSG(strstr(plan, " | Lk=2..255:order") && strstr(plan, " | Lk=256..4096:order"), "%s", plan);
        const char *lowered = tilec_kernel_plan_realization(k1);
        CHECK_MSG(strstr(lowered, "peeled_loops=1;") && strstr(lowered, "guards_kept=2;"), "%s", lowered);
    }
    tilec_kernel_destroy(k1);
    for (int64_t lk = 1; k && lk <= 600; lk++) {
        tir_define pin[6] = {{"B", 1}, {"Hq", 8}, {"Hkv", 1}, {"Lq", 1}, {"bq", 1}, {"Lk", lk}};
        tir_module *pinned = parse(__LINE__, src, pin, 6);
        if (!pinned) break;
        tilec_buffer nat[8], ref[8];
        size_t n = make_args(tir_module_func(pinned, 0), nat);
        CHECK_MSG(tilec_dispatch_dims(ctx, k, n, nat, 1, &lk) == TILEC_OK && canaries_intact(nat, n), "Lk=%lld",
                  (long long)lk);
        for (size_t i = 0; i < n; i++) /* what a caller allocates at these sizes */
            CHECK_MSG(tilec_kernel_arg_bytes(k, i, &lk) == nat[i].size_bytes, "Lk=%lld: argument %zu's bytes",
                      (long long)lk, i);
        if (lk == 512) { /* a whole number of blocks: the split chunks as the static kernel's, bit for bit */
            tilec_kernel *ks = NULL;
            tilec_buffer st[8];
            make_args(tir_module_func(pinned, 0), st);
            CHECK(tilec_compile(ctx, tir_module_func(pinned, 0), &o, &ks) == TILEC_OK &&
                  strstr(tilec_kernel_realization(ks), "plan=split2(") && tilec_dispatch(ctx, ks, n, st) == TILEC_OK);
            CHECK_MSG(!memcmp(st[n - 1].data, nat[n - 1].data, nat[n - 1].size_bytes),
                      "decode at Lk=512: the dynamic split differs from the static one");
            for (size_t i = 0; i < n; i++) free(st[i].data);
            tilec_kernel_destroy(ks);
        }
        if (lk % 37 == 1 || lk == 255 || lk == 256) {
            make_args(tir_module_func(pinned, 0), ref);
            tilec_pipeline_config reference = tilec_pipeline_config_default();
            reference.engine = TILEC_ENGINE_REFERENCE;
            tilec_kernel *kr = NULL;
            CHECK(tilec_pipeline_run(ctx, tir_module_func(pinned, 0), NULL, &reference, &kr) == TILEC_OK &&
                  tilec_dispatch(ctx, kr, n, ref) == TILEC_OK);
            CHECK_MSG(close_to(&nat[n - 1], &ref[n - 1]), "decode at Lk=%lld differs from the reference", (long long)lk);
            for (size_t i = 0; i < n; i++) free(ref[i].data);
            tilec_kernel_destroy(kr);
        }
        for (size_t i = 0; i < n; i++) free(nat[i].data);
        tir_module_destroy(pinned);
    }
    flush_diags_in(ctx);
    tilec_kernel_destroy(k);
    tir_module_destroy(dyn);
    free(src);
}

/* examples/dynamic: each kernel compiled once, run at sizes across its
 * buckets (1, 2, 16, 17, 255, 256, 257, capped at its range) against the
 * reference of the kernel at each size. */
static bool visit_dynamic(const char *path, const char *name, const char *text, size_t size, void *user) {
    (void)name, (void)size;
    (*(int *)user)++;
    tir_module *m = parse(__LINE__, text, NULL, 0);
    const tir_func *f = m ? tir_module_func(m, 0) : NULL;
    CHECK_MSG(f && tir_func_symbol_count(f) == 1, "%s: one runtime size", path);
    tilec_kernel *k = NULL;
    tilec_compile_options o = tilec_compile_options_default();
    o.threads = 2;
    CHECK_MSG(f && tilec_compile(ctx, f, &o, &k) == TILEC_OK, "%s does not compile", path);
    static const int64_t sizes[] = {1, 2, 16, 17, 255, 256, 257};
    int64_t lo = 0, hi = 0;
    if (f) tir_func_symbol(f, 0, &lo, &hi);
    for (size_t i = 0; k && i < sizeof sizes / sizeof sizes[0]; i++) {
        int64_t v = sizes[i] < lo ? lo : sizes[i] > hi ? hi : sizes[i];
        tir_module *at = tir_func_specialize(f, 1, &v);
        tilec_buffer nat[8], ref[8];
        size_t n = at ? make_args(tir_module_func(at, 0), nat) : 0;
        make_args(tir_module_func(at, 0), ref);
        tilec_pipeline_config reference = tilec_pipeline_config_default();
        reference.engine = TILEC_ENGINE_REFERENCE;
        tilec_kernel *kr = NULL;
        bool ran = at && tilec_dispatch_dims(ctx, k, n, nat, 1, &v) == TILEC_OK &&
                   tilec_pipeline_run(ctx, tir_module_func(at, 0), NULL, &reference, &kr) == TILEC_OK &&
                   tilec_dispatch(ctx, kr, n, ref) == TILEC_OK;
        CHECK_MSG(ran, "%s at %lld: a dispatch failed", path, (long long)v);
        for (size_t a = 0; ran && a < n; a++)
            CHECK_MSG(close_to(&nat[a], &ref[a]), "%s at %lld: argument %zu differs", path, (long long)v, a);
        CHECK_MSG(canaries_intact(nat, n), "%s at %lld: bytes past a buffer were written", path, (long long)v);
        for (size_t a = 0; a < n; a++) free(nat[a].data), free(ref[a].data);
        tilec_kernel_destroy(kr);
        tir_module_destroy(at);
        flush_diags_in(ctx);
    }
    tilec_kernel_destroy(k);
    tir_module_destroy(m);
    return true;
}

static void test_dynamic_examples(void) {
    int n = 0;
    for_each_source(TILEC_SOURCE_DIR "/examples/dynamic", ".tir", visit_dynamic, &n);
    CHECK(n >= 4);
}

/* ---- dispatch and compile refusals ---- */

static void test_dispatch_refusals(void) {
    char *src = read_example("softmax");
    char *ranged = src ? make_ranged(src, "R", "2..64") : NULL;
    tir_module *m = ranged ? parse(__LINE__, ranged, NULL, 0) : NULL;
    free(src), free(ranged);
    if (!m) return;
    const tir_func *f = tir_module_func(m, 0);
    /* specialization checks the count and the range */
    int64_t v = 65;
    tilec_diag_clear(ctx);
    CHECK(tir_func_specialize(f, 1, &v) == NULL && has_diag_in(ctx, "TIR-M09", "R=65 of '@softmax' is outside its range 2..64"));
    CHECK(tir_func_specialize(f, 0, NULL) == NULL && has_diag_in(ctx, "TIR-M09", "has 1 runtime sizes; 0 were given"));
    tilec_pipeline_config reference = tilec_pipeline_config_default();
    reference.engine = TILEC_ENGINE_REFERENCE;
    tilec_kernel *k = NULL;
    CHECK(tilec_pipeline_run(ctx, f, NULL, &reference, &k) == TILEC_OK && k);
    if (k) {
        int64_t lo = 0, hi = 0;
        CHECK(!strcmp(tilec_kernel_dim(k, 0, &lo, &hi), "R") && lo == 2 && hi == 64 && !tilec_kernel_dim(k, 1, NULL, NULL));
        int64_t four = 4, forty = 40;
        CHECK(tilec_kernel_arg_bytes(k, 0, &four) == 4 * 65 * 4 && tilec_kernel_arg_bytes(k, 1, &forty) == 40 * 65 * 4);
        CHECK(tilec_kernel_arg_bytes(k, 0, NULL) == 0 && tilec_kernel_arg_bytes(k, 2, &four) == 0);
        float x[4 * 65], y[4 * 65];
        memset(x, 0, sizeof x);
        tilec_buffer args[2] = {{x, sizeof x, TIR_F32}, {y, sizeof y, TIR_F32}};
        int64_t r = 4, r_low = 1, r_big = 5;
        tilec_diag_clear(ctx);
        CHECK(tilec_dispatch(ctx, k, 2, args) == TILEC_E_ARG && has_diag_in(ctx, "RT-D10", "dispatch it with tilec_dispatch_dims"));
        CHECK(tilec_dispatch_dims(ctx, k, 2, args, 1, &r_low) == TILEC_E_ARG &&
              has_diag_in(ctx, "RT-D10", "runtime size R=1 is outside its range 2..64"));
        CHECK(tilec_dispatch_dims(ctx, k, 2, args, 1, NULL) == TILEC_E_ARG && has_diag_in(ctx, "RT-D10", "no array"));
        CHECK(tilec_dispatch_dims(ctx, k, 2, args, 1, &r_big) == TILEC_E_RUNTIME &&
              has_diag_in(ctx, "RT-D04", "1040 bytes, the kernel needs at least 1300"));
        /* the context and the kernel stay usable: every row sums to 1 */
        tilec_diag_clear(ctx);
        CHECK(tilec_dispatch_dims(ctx, k, 2, args, 1, &r) == TILEC_OK);
        double sum = 0;
        for (int i = 0; i < 65; i++) sum += y[3 * 65 + i];
        CHECK(sum > 0.9999 && sum < 1.0001);
        tilec_kernel_destroy(k);
    }
    tir_module_destroy(m);
}

/* The reference interpreter's run of f on fresh arguments ref[] (as
 * make_args fills them); their count, 0 when it failed (ref then freed). */
static size_t reference_run(const tir_func *f, tilec_buffer *ref) {
    size_t n = make_args(f, ref);
    tilec_pipeline_config reference = tilec_pipeline_config_default();
    reference.engine = TILEC_ENGINE_REFERENCE;
    tilec_kernel *kr = NULL;
    bool ok = tilec_pipeline_run(ctx, f, NULL, &reference, &kr) == TILEC_OK && tilec_dispatch(ctx, kr, n, ref) == TILEC_OK;
    tilec_kernel_destroy(kr);
    for (size_t a = 0; !ok && a < n; a++) free(ref[a].data);
    return ok ? n : 0;
}

/* A realization counter's value ("name=N;"), or -1. */
static long counter(const char *realization, const char *name) {
    char key[64];
    snprintf(key, sizeof key, "%s=", name);
    const char *at = realization ? strstr(realization, key) : NULL;
    return at ? atol(at + strlen(key)) : -1;
}

/* A packet-local root over ceil_div(M, BM) programs is peeled: the
 * programs whose rows lie wholly inside M run a body in which every guard
 * the kernel pinned at a multiple of BM removes is removed too (A's and C's
 * row guards against M included), the last partial block runs the guarded
 * body.  Both run bit for bit as the reference and the pinned kernel, at a
 * multiple of BM (no partial block) and past it. */
static void test_peeled_root(void) {
    char *src;
    tir_module *dyn = ranged_example("gemm_bf16", "M", "256..4096", NULL, 0, &src);
    tilec_compile_options o = tilec_compile_options_default();
    o.pack = TILEC_PACK_OFF;
    o.local_lanes = 16;
    tilec_kernel *k = NULL;
    CHECK(dyn && tilec_compile(ctx, tir_module_func(dyn, 0), &o, &k) == TILEC_OK);
    static const int64_t rows[] = {256, 259, 1024, 1031};
    for (size_t i = 0; k && i < sizeof rows / sizeof rows[0]; i++) {
        tir_define pin = {"M", rows[i]};
        tir_module *pinned = parse(__LINE__, src, &pin, 1);
        tilec_kernel *ks = NULL;
        tilec_buffer nat[3], st[3], ref[3];
        size_t n = pinned ? reference_run(tir_module_func(pinned, 0), ref) : 0;
        if (n) make_args(tir_module_func(pinned, 0), nat), make_args(tir_module_func(pinned, 0), st);
        bool ran = n && tilec_dispatch_dims(ctx, k, n, nat, 1, &rows[i]) == TILEC_OK &&
                   tilec_compile(ctx, tir_module_func(pinned, 0), &o, &ks) == TILEC_OK &&
                   tilec_dispatch(ctx, ks, n, st) == TILEC_OK;
        CHECK_MSG(ran && !memcmp(nat[2].data, ref[2].data, nat[2].size_bytes) &&
                      !memcmp(nat[2].data, st[2].data, nat[2].size_bytes) && canaries_intact(nat, n),
                  "gemm_bf16 peeled at M=%lld", (long long)rows[i]);
        if (ks && rows[i] % 8 == 0) { /* pinned at whole blocks: every guard against M removed */
            const char *d = tilec_kernel_plan_realization(k), *s = tilec_kernel_plan_realization(ks);
            long kept = counter(d, "guards_kept"), removed = counter(d, "guards_removed");
            CHECK_MSG(counter(d, "peeled_roots") == 1 && counter(s, "peeled_roots") == 0 && counter(s, "guards_kept") == 0 &&
                          kept > 0 && removed - counter(s, "guards_removed") == counter(s, "guards_removed") - kept,
                      "%s\n%s", d, s);
        }
        for (size_t a = 0; a < n; a++) free(nat[a].data), free(st[a].data), free(ref[a].data);
        tilec_kernel_destroy(ks);
        tir_module_destroy(pinned);
    }
    flush_diags_in(ctx);
    tilec_kernel_destroy(k);
    tir_module_destroy(dyn);
    free(src);
}

/* A split over a root of runtime size: decode attention whose batch B is
 * a runtime size in 1..9, split in two chunks (split_chunks 2): its
 * workspace has B·2 slots per carry, laid out at each dispatch's B (the
 * scratch growing from the bucket's planned B to 9), the chunks' trips
 * static.  Every B against the reference, canaries intact. */
static void test_sized_root_split(void) {
    char *src;
    tir_define decode[6] = {{"Hq", 8}, {"Hkv", 1}, {"Lq", 1}, {"Lk", 61}, {"bq", 1}, {"bk", 8}};
    tir_module *dyn = ranged_example("attention_gqa", "B", "1..9", decode, 6, &src);
    tilec_compile_options o = tilec_compile_options_default();
    o.threads = 2;
    o.split_chunks = 2;
    tilec_kernel *k = NULL;
    CHECK(dyn && tilec_compile(ctx, tir_module_func(dyn, 0), &o, &k) == TILEC_OK);
    const char *r = k ? tilec_kernel_realization(k) : "", *end = strstr(r, "; dims="), *at = strstr(r, "plan=");
    size_t buckets = 0, split = 0; /* every bucket, B = 1 (static) and those over B, split */
    for (; at && end && at < end; at = strstr(at + 1, " | "), buckets++) split += strncmp(strchr(at, ':'), ":split2(", 8) == 0;
    CHECK_MSG(k && buckets >= 2 && split == buckets, "%s", r);
    for (int64_t b = 1; k && b <= 9; b++) {
        tir_define pin[7];
        memcpy(pin, decode, sizeof decode);
        pin[6] = (tir_define){"B", b};
        tir_module *pinned = parse(__LINE__, src, pin, 7);
        tilec_buffer nat[4], ref[4];
        size_t n = pinned ? reference_run(tir_module_func(pinned, 0), ref) : 0;
        if (n) make_args(tir_module_func(pinned, 0), nat);
        CHECK_MSG(n && tilec_dispatch_dims(ctx, k, n, nat, 1, &b) == TILEC_OK && close_to(&nat[3], &ref[3]) &&
                      canaries_intact(nat, n),
                  "split decode at B=%lld", (long long)b);
        for (size_t a = 0; a < n; a++) free(nat[a].data), free(ref[a].data);
        tir_module_destroy(pinned);
    }
    flush_diags_in(ctx);
    tilec_kernel_destroy(k);
    tir_module_destroy(dyn);
    free(src);
}

/* Buckets whose plans agree share a variant only where they also agree on
 * streaming stores: layernorm over rows of 4096 floats streams its output
 * past the caches at the 4096.. bucket's sizes (2 GiB at its middle), not
 * at the 2..255 bucket's (720 KB), though their plans are the same (the
 * store decision is made at the sizes a variant is compiled for). */
static void test_streaming_buckets(void) {
    char *src;
    tir_define wide = {"W", 4096};
    tir_module *dyn = ranged_example("layernorm", "R", "1..1048576", &wide, 1, &src);
    tilec_compile_options o = tilec_compile_options_default();
    o.threads = 1;
    tilec_kernel *k = NULL;
    CHECK(dyn && tilec_compile(ctx, tir_module_func(dyn, 0), &o, &k) == TILEC_OK);
    const char *r = k ? tilec_kernel_realization(k) : "";
    const char *small = strstr(r, " | R=2..255:"), *large = strstr(r, " | R=4096..1048576:");
    char a[128] = "", b[128] = "";
    if (small && large) {
        snprintf(a, sizeof a, "%.*s", (int)strcspn(small + 12, " ;"), small + 12);
        snprintf(b, sizeof b, "%.*s", (int)strcspn(large + 19, " ;"), large + 19);
    }
    CHECK_MSG(small && large && !strcmp(a, b) && counter(r, "streaming_stores") == 1 && counter(r, "variants") == 3,
              "%s", r);
    flush_diags_in(ctx);
    tilec_kernel_destroy(k);
    tir_module_destroy(dyn);
    free(src);
}

/* Packing over a runtime size: gemm_bf16 with M a runtime size, packing
 * on, natively and on the XIR interpreter, packs A (its tiles' outermost
 * coordinate over ceil_div(M, BM)) as well as B; the copy of A is a
 * kernel of the same sizes, its panels the
 * bytes each dispatch's sizes give (M=600 needs more than the bucket
 * 256..600 was planned for at 391: the scratch grows).  At sizes across
 * the buckets the result is the reference's and the pinned kernel's, bit
 * for bit (bf16 products and their f32 sums are exact here). */
static void test_packed_sized(void) {
    char *src;
    tir_module *dyn = ranged_example("gemm_bf16", "M", "1..600", NULL, 0, &src);
    tilec_compile_options o = tilec_compile_options_default();
    o.pack = TILEC_PACK_ON;
    o.threads = 2;
    tilec_pipeline_config xir = tilec_pipeline_config_default();
    xir.engine = TILEC_ENGINE_XIR;
    xir.modeled_workers = 2;
    tilec_kernel *k = NULL, *kx = NULL;
    CHECK(dyn && tilec_compile(ctx, tir_module_func(dyn, 0), &o, &k) == TILEC_OK &&
          tilec_pipeline_run(ctx, tir_module_func(dyn, 0), &o, &xir, &kx) == TILEC_OK);
    for (int e = 0; e < 2; e++) { /* natively and on the XIR interpreter */
        const tilec_kernel *c = e ? kx : k;
        CHECK_MSG(c && strstr(tilec_kernel_realization(c), "packed=gemm_bf16_pack_A,gemm_bf16_pack_B;"), "%s",
                  c ? tilec_kernel_realization(c) : "");
    }
    static const int64_t rows[] = {1, 9, 64, 300, 600};
    for (size_t i = 0; k && kx && i < sizeof rows / sizeof rows[0]; i++) {
        tir_define pin = {"M", rows[i]};
        tir_module *pinned = parse(__LINE__, src, &pin, 1);
        tilec_kernel *ks = NULL;
        tilec_buffer nat[3], xi[3], st[3], ref[3];
        size_t n = pinned ? reference_run(tir_module_func(pinned, 0), ref) : 0;
        if (n) make_args(tir_module_func(pinned, 0), nat), make_args(tir_module_func(pinned, 0), xi),
               make_args(tir_module_func(pinned, 0), st);
        bool ran = n && tilec_dispatch_dims(ctx, k, n, nat, 1, &rows[i]) == TILEC_OK &&
                   tilec_dispatch_dims(ctx, kx, n, xi, 1, &rows[i]) == TILEC_OK &&
                   tilec_compile(ctx, tir_module_func(pinned, 0), &o, &ks) == TILEC_OK &&
                   tilec_dispatch(ctx, ks, n, st) == TILEC_OK;
        CHECK_MSG(ran && !memcmp(nat[2].data, ref[2].data, nat[2].size_bytes) &&
                      !memcmp(xi[2].data, ref[2].data, xi[2].size_bytes) &&
                      !memcmp(nat[2].data, st[2].data, nat[2].size_bytes) && canaries_intact(nat, n) &&
                      canaries_intact(xi, n),
                  "gemm_bf16 packed at M=%lld", (long long)rows[i]);
        for (size_t a = 0; a < n; a++) free(nat[a].data), free(xi[a].data), free(st[a].data), free(ref[a].data);
        tilec_kernel_destroy(ks);
        tir_module_destroy(pinned);
    }
    flush_diags_in(ctx);
    tilec_kernel_destroy(k);
    tilec_kernel_destroy(kx);
    tir_module_destroy(dyn);
    free(src);
}

/* The CUDA target plans a kernel with runtime sizes per bucket as the CPU
 * does; its lowering (W = 32, one warp per row), run on the XIR
 * interpreter, matches the reference at sizes across the buckets (the
 * grid follows the dims; tests/gpu/test_cuda_facade.c launches it). */
static void test_gpu_sized(void) {
    char *src;
    tir_module *m = ranged_example("softmax", "R", "1..300", NULL, 0, &src);
    tilec_compile_options cuda = tilec_compile_options_default();
    cuda.target = TILEC_TARGET_CUDA;
    tilec_pipeline_config xir = tilec_pipeline_config_default();
    xir.engine = TILEC_ENGINE_XIR;
    tilec_kernel *k = NULL;
    CHECK(m && tilec_pipeline_run(ctx, tir_module_func(m, 0), &cuda, &xir, &k) == TILEC_OK);
    CHECK(k && tilec_kernel_width(k) == 32 && strstr(tilec_kernel_realization(k), "plan=R=1..1:"));
    static const int64_t rows[] = {1, 2, 31, 255, 256, 300};
    for (size_t i = 0; k && i < sizeof rows / sizeof rows[0]; i++) {
        tir_module *at = tir_func_specialize(tir_module_func(m, 0), 1, &rows[i]);
        tilec_buffer got[2], ref[2];
        size_t n = at ? reference_run(tir_module_func(at, 0), ref) : 0;
        if (n) make_args(tir_module_func(at, 0), got);
        bool ran = n && tilec_dispatch_dims(ctx, k, n, got, 1, &rows[i]) == TILEC_OK;
        CHECK_MSG(ran && close_to(&got[1], &ref[1]) && canaries_intact(got, n), "GPU lowering at R=%lld",
                  (long long)rows[i]);
        for (size_t a = 0; a < n; a++) free(got[a].data), free(ref[a].data);
        tir_module_destroy(at);
    }
    flush_diags_in(ctx);
    tilec_kernel_destroy(k);
    tir_module_destroy(m);
    free(src);
}

/* A fused kernel with runtime sizes whose streams need its input and
 * output apart: at one row, the output bound over the input shifted by 7
 * elements overlaps it at those sizes' bytes, so the unfused twin (planned
 * at the same bucket) runs; bound apart, the fused code.  Both equal the
 * reference run on the same overlapping memory. */
static void test_overlap_sized(void) {
    char *src;
    tir_define wide = {"W", 1030};
    tir_module *dyn = ranged_example("rmsnorm", "R", "1..64", &wide, 1, &src);
    tilec_compile_options o = tilec_compile_options_default();
    o.fuse = TILEC_FUSE_ON;
    tilec_kernel *k = NULL;
    CHECK(dyn && tilec_compile(ctx, tir_module_func(dyn, 0), &o, &k) == TILEC_OK);
    CHECK_MSG(k && !strstr(tilec_kernel_realization(k), "unfused_twin=none;"), "%s", k ? tilec_kernel_realization(k) : "");
    int64_t r = 1;
    tir_define pin[2] = {{"R", 1}, {"W", 1030}};
    tir_module *pinned = parse(__LINE__, src, pin, 2);
    tilec_pipeline_config reference = tilec_pipeline_config_default();
    reference.engine = TILEC_ENGINE_REFERENCE;
    tilec_kernel *kr = NULL;
    CHECK(pinned && tilec_pipeline_run(ctx, tir_module_func(pinned, 0), NULL, &reference, &kr) == TILEC_OK);
    for (int shifted = 0; k && kr && shifted < 2; shifted++) {
        tilec_buffer nat[3], ref[3];
        make_args(tir_module_func(pinned, 0), nat);
        make_args(tir_module_func(pinned, 0), ref);
        size_t bytes = nat[0].size_bytes;
        float *mem[2] = {malloc(bytes + 7 * 4), malloc(bytes + 7 * 4)}; /* X, then Y 7 floats on */
        tilec_buffer *b[2] = {nat, ref};
        for (int i = 0; i < 2; i++) {
            memcpy(mem[i], b[i][0].data, bytes);
            memset(mem[i] + bytes / 4, 0, 7 * 4);
            free(b[i][0].data);
            b[i][0].data = mem[i];
            if (shifted) free(b[i][2].data), b[i][2].data = mem[i] + 7;
        }
        uint64_t fused0, unfused0, fused1, unfused1;
        tilec_kernel_dispatch_counts(k, &fused0, &unfused0);
        CHECK(tilec_dispatch_dims(ctx, k, 3, nat, 1, &r) == TILEC_OK && tilec_dispatch(ctx, kr, 3, ref) == TILEC_OK);
        tilec_kernel_dispatch_counts(k, &fused1, &unfused1);
        CHECK_MSG(unfused1 - unfused0 == (uint64_t)shifted && fused1 - fused0 == (uint64_t)!shifted,
                  "shifted=%d: fused +%llu, unfused +%llu", shifted, (unsigned long long)(fused1 - fused0),
                  (unsigned long long)(unfused1 - unfused0));
        CHECK_MSG(!memcmp(mem[0], mem[1], bytes + 7 * 4) || close_to(&nat[2], &ref[2]), "shifted=%d: differs from the reference",
                  shifted);
        for (int i = 0; i < 2; i++) {
            free(mem[i]);
            free(b[i][1].data);
            if (!shifted) free(b[i][2].data);
        }
    }
    flush_diags_in(ctx);
    tilec_kernel_destroy(kr);
    tilec_kernel_destroy(k);
    tir_module_destroy(pinned);
    tir_module_destroy(dyn);
    free(src);
}

int main(void) {
    CHECK(tilec_context_create(NULL, &ctx) == TILEC_OK);
    test_forms();
    test_refusals();
    test_builder();
    test_examples_sized();
    test_native_sized();
    test_decode_lengths();
    test_overlap_sized();
    test_gpu_sized();
    test_packed_sized();
    test_peeled_root();
    test_streaming_buckets();
    test_sized_root_split();
    test_dynamic_examples();
    test_dispatch_refusals();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
