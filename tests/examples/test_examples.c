/* Every bundled example (examples/NAME.tir) at its default shape and at other
 * shapes chosen through shape-parameter defines (ragged ones: extents that are
 * not multiples of the blocks): parse, verify, run on the reference
 * interpreter, and compare with the independent C reference of
 * examples/reference/.  Harness conventions (docs: upstream LLM suite):
 * deterministic fixtures, NaN-initialized outputs, 17 sentinel elements of
 * −719.5 on each side of every buffer (the kernel is bound to the interior and
 * the pads must survive), every output element finite and within
 * 5e-5 + 5e-5·|expected|.  Alias cases bind an output to the same memory as an
 * input: the result must still equal the reference of the unaliased inputs. */
#include "base/half.h"
#include "examples_util.h"
#include "reference.h"

#include <math.h>
#include <stdlib.h>

enum { PAD = 17, MAX_PARAMS = 8, MAX_DEFINES = 10 };
static const double SENTINEL = -719.5, TOLERANCE = 5e-5;

/* Input fixtures of the upstream LLM suite.  SIN_K is the attention/GEMM input
 * formula sin(i·(0.117 + 0.031k) + 0.3k) for parameter k. */
typedef enum { FIX_X, FIX_U, FIX_V, FIX_COS, FIX_SIN_K } fixture;

static double fixture_value(fixture kind, size_t param, size_t i) {
    double x = (double)i, k = (double)param;
    switch (kind) {
    case FIX_X: return 1.7 * sin(0.173 * x);
    case FIX_U: return 1.0 + 0.2 * cos(0.113 * x);
    case FIX_V: return sin(0.013 * x);
    case FIX_COS: return cos(0.013 * x);
    case FIX_SIN_K: return sin(x * (0.117 + 0.031 * k) + 0.3 * k);
    }
    return 0.0;
}

typedef struct {
    const char *name;
    fixture inputs[MAX_PARAMS]; /* by parameter index; ignored for outputs */
    tir_define defines[MAX_DEFINES];
    size_t n_defines;
    int alias_out, alias_in; /* alias_out ≥ 0: bind param alias_out to param alias_in's memory */
} example_case;

#define NO_ALIAS -1, -1
#define GEMM_FIX {FIX_SIN_K, FIX_SIN_K}
#define ROW1_FIX {FIX_X}
#define ROW2_FIX {FIX_X, FIX_U}
#define ROPE_FIX {FIX_X, FIX_COS, FIX_V}
#define ATT_FIX {FIX_SIN_K, FIX_SIN_K, FIX_SIN_K}

static const example_case cases[] = {
    {"gemm", GEMM_FIX, {{0}}, 0, NO_ALIAS},
    {"gemm", GEMM_FIX, {{"M", 19}, {"N", 21}, {"K", 13}, {"BK", 4}}, 4, NO_ALIAS},
    {"gemm_bt", GEMM_FIX, {{0}}, 0, NO_ALIAS},
    {"gemm_bt", GEMM_FIX, {{"M", 19}, {"N", 21}, {"K", 13}, {"BK", 4}}, 4, NO_ALIAS},
    {"gemm_bf16", GEMM_FIX, {{0}}, 0, NO_ALIAS},
    {"gemm_bf16", GEMM_FIX, {{"M", 19}, {"N", 21}, {"K", 13}, {"BK", 4}}, 4, NO_ALIAS},
    {"bmm", GEMM_FIX, {{0}}, 0, NO_ALIAS},
    {"bmm", GEMM_FIX, {{"BATCH", 2}, {"M", 9}, {"N", 37}, {"K", 5}}, 4, NO_ALIAS},
    {"softmax", ROW1_FIX, {{0}}, 0, NO_ALIAS},
    {"softmax", ROW1_FIX, {{"R", 6}, {"W", 7}}, 2, NO_ALIAS},
    {"softmax", ROW1_FIX, {{0}}, 0, 1, 0},
    {"masked_softmax", ROW1_FIX, {{0}}, 0, NO_ALIAS},
    {"masked_softmax", ROW1_FIX, {{"R", 9}, {"W", 7}}, 2, NO_ALIAS},
    {"masked_softmax", ROW1_FIX, {{"R", 9}, {"W", 7}}, 2, 1, 0},
    {"layernorm", {FIX_X, FIX_U, FIX_V}, {{0}}, 0, NO_ALIAS},
    {"layernorm", {FIX_X, FIX_U, FIX_V}, {{"R", 6}, {"W", 7}}, 2, NO_ALIAS},
    {"layernorm", {FIX_X, FIX_U, FIX_V}, {{0}}, 0, 3, 0},
    {"rmsnorm", ROW2_FIX, {{0}}, 0, NO_ALIAS},
    {"rmsnorm", ROW2_FIX, {{"R", 6}, {"W", 7}}, 2, NO_ALIAS},
    {"rmsnorm", ROW2_FIX, {{"R", 6}, {"W", 7}}, 2, 2, 0},
    {"rmsnorm_bf16", ROW2_FIX, {{0}}, 0, NO_ALIAS},
    {"rmsnorm_bf16", ROW2_FIX, {{"R", 6}, {"W", 1030}}, 2, NO_ALIAS},
    {"rmsnorm_bf16", ROW2_FIX, {{0}}, 0, 2, 0},
    {"rope", ROPE_FIX, {{0}}, 0, NO_ALIAS},
    {"rope", ROPE_FIX, {{"R", 5}, {"W", 6}}, 2, NO_ALIAS},
    {"rope", ROPE_FIX, {{0}}, 0, 3, 0},
    {"gelu", ROW2_FIX, {{0}}, 0, NO_ALIAS},
    {"gelu", ROW2_FIX, {{"R", 6}, {"W", 7}}, 2, NO_ALIAS},
    {"gelu", ROW2_FIX, {{0}}, 0, 2, 1},
    {"gelu_erf", ROW1_FIX, {{0}}, 0, NO_ALIAS},
    {"gelu_erf", ROW1_FIX, {{"R", 6}, {"W", 7}}, 2, NO_ALIAS},
    {"gelu_erf", ROW1_FIX, {{0}}, 0, 1, 0},
    {"rope_table", ROW1_FIX, {{0}}, 0, NO_ALIAS},
    {"rope_table", ROW1_FIX, {{"R", 40}, {"W", 130}}, 2, NO_ALIAS},
    {"rope_table", ROW1_FIX, {{0}}, 0, 1, 0},
    {"rope_interleaved", ROPE_FIX, {{0}}, 0, NO_ALIAS},
    {"rope_interleaved", ROPE_FIX, {{"R", 5}, {"W", 38}}, 2, NO_ALIAS},
    {"rope_interleaved", ROPE_FIX, {{0}}, 0, 3, 0},
    {"transpose", ROW1_FIX, {{0}}, 0, NO_ALIAS},
    {"transpose", ROW1_FIX, {{"M", 3}, {"N", 65}, {"B", 8}}, 3, NO_ALIAS},
    {"swiglu", ROW2_FIX, {{0}}, 0, NO_ALIAS},
    {"swiglu", ROW2_FIX, {{"R", 6}, {"W", 7}}, 2, NO_ALIAS},
    {"swiglu", ROW2_FIX, {{0}}, 0, 2, 0},
    {"attention", ATT_FIX, {{0}}, 0, NO_ALIAS},
    /* shorter prefill, decode (one query), and 3×5 blocks with Lq = Lk */
    {"attention", ATT_FIX, {{"B", 1}, {"Hq", 2}, {"Hkv", 2}, {"Lq", 4}, {"Lk", 5}, {"D", 4}, {"Dv", 3}}, 7, NO_ALIAS},
    {"attention", ATT_FIX, {{"B", 2}, {"Hq", 4}, {"Hkv", 2}, {"Lq", 1}, {"Lk", 17}, {"D", 8}, {"Dv", 7}}, 7, NO_ALIAS},
    {"attention", ATT_FIX, {{"B", 1}, {"Hq", 2}, {"Hkv", 1}, {"Lq", 7}, {"Lk", 7}, {"bq", 3}, {"bk", 5}}, 7, NO_ALIAS},
    {"attention_gqa", ATT_FIX, {{0}}, 0, NO_ALIAS},
    /* decode with a group of 4, a group of 1 (MHA), ragged blocks */
    {"attention_gqa", ATT_FIX, {{"B", 2}, {"Hq", 8}, {"Hkv", 2}, {"Lq", 1}, {"Lk", 17}, {"D", 8}, {"Dv", 7}, {"bq", 1}}, 8,
     NO_ALIAS},
    {"attention_gqa", ATT_FIX, {{"B", 1}, {"Hq", 2}, {"Hkv", 2}, {"Lq", 4}, {"Lk", 5}, {"D", 4}, {"Dv", 3}}, 7, NO_ALIAS},
    {"attention_gqa", ATT_FIX, {{"B", 1}, {"Hq", 3}, {"Hkv", 1}, {"Lq", 7}, {"Lk", 9}, {"bq", 3}, {"bk", 5}}, 7, NO_ALIAS},
};

static tilec_context *ctx;

/* One kernel parameter: a padded allocation whose interior is bound, and a
 * copy of the interior's initial contents (what the reference reads). */
typedef struct {
    tir_scalar elem;
    size_t volume, size; /* elements of the interior, bytes per element */
    bool writable, shared; /* shared: storage belongs to another parameter */
    unsigned char *storage, *initial;
    double *expected; /* writable parameters only */
} param_buffer;

static double get_elem(tir_scalar elem, const unsigned char *base, size_t i) {
    if (tir_scalar_is_half(elem)) {
        uint16_t h;
        memcpy(&h, base + i * 2, 2);
        return elem == TIR_F16 ? half_to_double(h) : bf16_to_double(h);
    }
    if (elem == TIR_F32) {
        float v;
        memcpy(&v, base + i * 4, 4);
        return v;
    }
    double v;
    memcpy(&v, base + i * 8, 8);
    return v;
}

static void set_elem(tir_scalar elem, unsigned char *base, size_t i, double value) {
    if (tir_scalar_is_half(elem)) {
        uint16_t h = elem == TIR_F16 ? half_from_double(value) : bf16_from_double(value);
        memcpy(base + i * 2, &h, 2);
    } else if (elem == TIR_F32) {
        float v = (float)value;
        memcpy(base + i * 4, &v, 4);
    } else {
        memcpy(base + i * 8, &value, 8);
    }
}

static unsigned char *interior(const param_buffer *p) { return p->storage + PAD * p->size; }

static void describe(const example_case *c, char *out, size_t size) {
    size_t n = (size_t)snprintf(out, size, "%s", c->name);
    for (size_t i = 0; i < c->n_defines && n < size; i++)
        n += (size_t)snprintf(out + n, size - n, " %s=%lld", c->defines[i].name, (long long)c->defines[i].value);
    if (c->alias_out >= 0 && n < size)
        snprintf(out + n, size - n, " (param %d bound to param %d's memory)", c->alias_out, c->alias_in);
}

/* Allocates and fills parameter i: sentinel pads, fixture or NaN interior. */
static bool setup_param(const tir_func *f, const example_case *c, size_t i, param_buffer *p) {
    tir_type *t = tir_value_type(tir_func_param(f, i));
    p->elem = tir_type_elem(t);
    p->writable = !tir_value_read_only(tir_func_param(f, i));
    if (!tir_scalar_is_float(p->elem)) return false;
    p->size = tir_scalar_size(p->elem);
    uint64_t volume;
    if (!tir_space_volume(tir_type_space(t), &volume)) return false;
    p->volume = (size_t)volume;
    p->storage = malloc((p->volume + 2 * PAD) * p->size);
    p->initial = malloc(p->volume * p->size + 1);
    p->expected = p->writable ? malloc(p->volume * sizeof(double) + 1) : NULL;
    if (!p->storage || !p->initial || (p->writable && !p->expected)) return false;
    for (size_t j = 0; j < PAD; j++) {
        set_elem(p->elem, p->storage, j, SENTINEL);
        set_elem(p->elem, p->storage, PAD + p->volume + j, SENTINEL);
    }
    for (size_t j = 0; j < p->volume; j++) {
        set_elem(p->elem, interior(p), j, p->writable ? NAN : fixture_value(c->inputs[i], i, j));
        if (p->writable) p->expected[j] = NAN; /* the reference overwrites what the kernel stores */
    }
    memcpy(p->initial, interior(p), p->volume * p->size);
    return true;
}

/* Output elements finite and close to the reference; inputs unchanged (except
 * the one an output shares); every guard element still the sentinel. */
static void check_param(const char *label, const example_case *c, size_t i, const param_buffer *p) {
    size_t bad = 0;
    if (p->writable) {
        for (size_t j = 0; j < p->volume; j++) {
            double a = get_elem(p->elem, interior(p), j), e = p->expected[j];
            /* a rounded f16/bf16 output may be one unit in its last place off */
            double relative = p->elem == TIR_F16 ? 0x1p-10 : p->elem == TIR_BF16 ? 0x1p-7 : TOLERANCE;
            bool close = isfinite(a) && fabs(a - e) <= TOLERANCE + relative * fabs(e);
            if (!close && bad < 5)
                fprintf(stderr, "%s: param %zu element %zu = %.9g, expected %.9g\n", label, i, j, a, e);
            bad += !close;
        }
        CHECK_MSG(bad == 0, "%s: param %zu has %zu wrong elements", label, i, bad);
    } else if ((int)i != c->alias_in) {
        CHECK_MSG(!memcmp(interior(p), p->initial, p->volume * p->size), "%s: const param %zu changed", label, i);
    }
    size_t trampled = 0;
    unsigned char sentinel[8];
    set_elem(p->elem, sentinel, 0, SENTINEL); /* as the element type holds it */
    for (size_t j = 0; j < PAD; j++) {
        trampled += get_elem(p->elem, p->storage, j) != get_elem(p->elem, sentinel, 0);
        trampled += get_elem(p->elem, p->storage, PAD + p->volume + j) != get_elem(p->elem, sentinel, 0);
    }
    CHECK_MSG(trampled == 0, "%s: param %zu has %zu overwritten guard elements", label, i, trampled);
}

/* Binds, computes the reference from the initial contents, interprets, checks. */
static void run_kernel(const char *label, const example_case *c, const example_entry *entry, const tir_func *f) {
    size_t n = tir_func_param_count(f);
    CHECK_MSG(n <= MAX_PARAMS, "%s: %zu parameters", label, n);
    param_buffer params[MAX_PARAMS] = {{0}};
    bool ready = n <= MAX_PARAMS;
    for (size_t i = 0; ready && i < n; i++) ready = setup_param(f, c, i, &params[i]);
    CHECK_MSG(ready, "%s: parameters are not f32/f64 views, or allocation failed", label);
    const void *inputs[MAX_PARAMS] = {0};
    double *expected[MAX_PARAMS] = {0};
    for (size_t i = 0; ready && i < n; i++) inputs[i] = params[i].initial, expected[i] = params[i].expected;
    if (ready) {
        ready = entry->reference(f, inputs, expected);
        CHECK_MSG(ready, "%s: the reference rejected the shape", label);
    }
    if (ready && c->alias_out >= 0) {
        param_buffer *out = &params[c->alias_out], *in = &params[c->alias_in];
        ready = out->elem == in->elem && out->volume == in->volume;
        CHECK_MSG(ready, "%s: aliased views differ in type or volume", label);
        if (ready) {
            free(out->storage);
            out->storage = in->storage;
            out->shared = true;
        }
    }
    if (ready) {
        tir_buffer args[MAX_PARAMS];
        for (size_t i = 0; i < n; i++) args[i] = (tir_buffer){interior(&params[i]), params[i].volume * params[i].size};
        tilec_status st = tir_interpret(ctx, f, n, args);
        CHECK_MSG(st == TILEC_OK, "%s: interpret failed (%s)", label, tilec_status_name(st));
        for (size_t i = 0; st == TILEC_OK && i < n; i++) check_param(label, c, i, &params[i]);
    }
    for (size_t i = 0; i < n && i < MAX_PARAMS; i++) {
        if (!params[i].shared) free(params[i].storage);
        free(params[i].initial);
        free(params[i].expected);
    }
}

static void run_case(const example_case *c) {
    char label[256];
    describe(c, label, sizeof label);
    const example_entry *entry = example_find(c->name);
    CHECK_MSG(entry != NULL, "%s: no reference in example_table", label);
    char *text = read_example(c->name);
    CHECK_MSG(text != NULL, "%s: cannot read examples/%s.tir", label, c->name);
    tir_module *m = NULL;
    tilec_diag_clear(ctx);
    if (entry && text) {
        tilec_status st = tir_parse(ctx, text, strlen(text), c->name, c->defines, c->n_defines, &m);
        CHECK_MSG(st == TILEC_OK && m, "%s: parse failed (%s)", label, tilec_status_name(st));
        if (st == TILEC_OK && m) {
            st = tir_verify(ctx, m);
            CHECK_MSG(st == TILEC_OK, "%s: verify failed (%s)", label, tilec_status_name(st));
            tir_func *f = tir_module_find_func(m, c->name);
            CHECK_MSG(f != NULL, "%s: the file has no kernel @%s", label, c->name);
            if (st == TILEC_OK && f) run_kernel(label, c, entry, f);
        }
    }
    if (tilec_diag_count(ctx)) tilec_diag_print(ctx, stderr);
    tir_module_destroy(m);
    free(text);
}

int main(void) {
    CHECK(tilec_context_create(NULL, &ctx) == TILEC_OK);
    /* Every example has a reference and at least two tested shapes. */
    CHECK(example_count == 18);
    for (size_t i = 0; i < example_count; i++) {
        size_t shapes = 0;
        for (size_t j = 0; j < sizeof cases / sizeof cases[0]; j++)
            shapes += !strcmp(cases[j].name, example_table[i].name) && cases[j].alias_out < 0;
        CHECK_MSG(shapes >= 2, "%s is tested at %zu shapes", example_table[i].name, shapes);
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_case(&cases[i]);
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
