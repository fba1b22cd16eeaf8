/* tilec_compile_aot through the facade (docs/aot.md), in this process: the
 * object is an ELF relocatable whose header names the entry points; the
 * target CPU decides the width (x86-64-v2: 4, v3: 8, v4: 16) and the
 * header says so; a refused compile (NULL arguments TILEC-A01, an unknown
 * CPU SIMD-O05, a symbol that is not a C identifier or is a keyword, or
 * would collide in the program the object is linked into — reserved, main,
 * tilec_/tir_/Sleef_, a C library function: TILEC-AOT01) writes nothing; a failing object writer stops before the
 * header; the context stays usable after each.  Linking and running the
 * objects: tests/cli/aot.sh. */
#include "diag_util.h"
#include "examples_util.h"
#include "harness.h"
#include "tilec/tilec.h"

#include <string.h>

typedef struct {
    char data[1 << 20];
    size_t len;
    int calls;
    tilec_status answer;
} sink;

static tilec_status collect(void *user, const char *bytes, size_t n) {
    sink *s = user;
    s->calls++;
    if (s->answer) return s->answer;
    if (n > sizeof s->data - s->len) return TILEC_E_BUDGET;
    memcpy(s->data + s->len, bytes, n);
    s->len += n;
    return TILEC_OK;
}

static sink object, header;

static tilec_status compile(tilec_context *ctx, const tir_func *f, const char *cpu, const char *symbol) {
    memset(&object, 0, sizeof object);
    memset(&header, 0, sizeof header);
    tilec_compile_options o = tilec_compile_options_default();
    o.threads = 2;
    tilec_aot_options a = {.cpu = cpu, .symbol = symbol, .source = "test_aot"};
    return tilec_compile_aot(ctx, f, &o, &a, collect, &object, collect, &header);
}

static void test_targets(tilec_context *ctx, const tir_func *f) {
    static const struct {
        const char *cpu;
        unsigned width;
    } targets[] = {{"x86-64-v2", 4}, {"x86-64-v3", 8}, {"x86-64-v4", 16}};
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        CHECK(compile(ctx, f, targets[i].cpu, "sm") == TILEC_OK);
        CHECK(object.calls == 1 && object.len > 64 && !memcmp(object.data, "\x7f" "ELF", 4));
        CHECK(object.data[16] == 1 && object.data[17] == 0); /* ET_REL */
        header.data[header.len < sizeof header.data ? header.len : sizeof header.data - 1] = '\0';
        char want[64];
        snprintf(want, sizeof want, "target %s, W=%u, planned for 2 workers", targets[i].cpu, targets[i].width);
        CHECK_STR_CONTAINS(header.data, want);
        CHECK_STR_CONTAINS(header.data, "int sm(const float *X, float *Y);");
        CHECK_STR_CONTAINS(header.data, "tilec_status sm_dispatch(");
        CHECK_STR_CONTAINS(header.data, " * Source: test_aot");
    }
    CHECK(compile(ctx, f, NULL, NULL) == TILEC_OK); /* native, the kernel's name */
    header.data[header.len] = '\0';
    CHECK_STR_CONTAINS(header.data, "int softmax(const float *X, float *Y);");
}

static void test_refusals(tilec_context *ctx, const tir_func *f) {
    CHECK(tilec_compile_aot(ctx, NULL, NULL, NULL, collect, &object, NULL, NULL) == TILEC_E_ARG &&
          has_diag_in(ctx, "TILEC-A01", "NULL argument"));
    CHECK(tilec_compile_aot(ctx, f, NULL, NULL, NULL, NULL, NULL, NULL) == TILEC_E_ARG);
    tilec_diag_clear(ctx);
    CHECK(compile(ctx, f, "pentium4", NULL) == TILEC_E_ARG && has_diag_in(ctx, "SIMD-O05", "'pentium4'"));
    tilec_diag_clear(ctx);
    CHECK(compile(ctx, f, NULL, "9lives") == TILEC_E_ARG && has_diag_in(ctx, "TILEC-AOT01", "'9lives'"));
    tilec_diag_clear(ctx);
    CHECK(compile(ctx, f, NULL, "while") == TILEC_E_ARG && has_diag_in(ctx, "TILEC-AOT01", "'while'"));
    CHECK(object.calls == 0 && header.calls == 0);
    tilec_diag_clear(ctx);
    /* names that would collide in the program the object is linked into:
     * reserved, main, the runtime's and SLEEF's namespaces, C23 keywords,
     * and functions of the C and math libraries (free would replace libc's) */
    static const struct {
        const char *name, *why;
    } taken[] = {
        {"_Softmax", "reserved by C"},
        {"__softmax", "reserved by C"},
        {"_softmax", "reserved by C"},
        {"main", "main"},
        {"tilec_softmax", "namespace"},
        {"tir_run", "namespace"},
        {"TILEC_OK", "namespace"},
        {"Sleef_expf8_u10", "namespace"},
        {"typeof", "not a C identifier"},
        {"free", "would define free, a function or variable of a library"},
        {"malloc", "would define malloc,"},
        {"memcpy", "would define memcpy,"},
        {"sinf", "would define sinf,"},
    };
    for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++) {
        char name[64];
        snprintf(name, sizeof name, "'%s'", taken[i].name);
        CHECK(compile(ctx, f, NULL, taken[i].name) == TILEC_E_ARG);
        CHECK(has_diag_in(ctx, "TILEC-AOT01", name) && has_diag_in(ctx, "TILEC-AOT01", taken[i].why));
        CHECK(object.calls == 0 && header.calls == 0);
        tilec_diag_clear(ctx);
    }
    /* a name is judged whole: these only look like the refused ones */
    CHECK(compile(ctx, f, NULL, "freely") == TILEC_OK && compile(ctx, f, NULL, "tilec") == TILEC_OK &&
          compile(ctx, f, NULL, "mainline") == TILEC_OK);
    /* a writer that fails: its status comes back and the header is not written */
    memset(&object, 0, sizeof object);
    memset(&header, 0, sizeof header);
    object.answer = TILEC_E_IO;
    tilec_aot_options a = {.cpu = "x86-64-v3"};
    CHECK(tilec_compile_aot(ctx, f, NULL, &a, collect, &object, collect, &header) == TILEC_E_IO);
    CHECK(object.calls == 1 && header.calls == 0);
    /* still usable */
    CHECK(compile(ctx, f, "x86-64-v3", "again") == TILEC_OK && object.len > 0);
}

int main(void) {
    tilec_context *ctx;
    CHECK(tilec_context_create(NULL, &ctx) == TILEC_OK);
    tir_module *m = parse_example(ctx, "softmax", NULL, 0);
    CHECK(m != NULL);
    if (m) {
        test_targets(ctx, tir_module_func(m, 0));
        test_refusals(ctx, tir_module_func(m, 0));
    }
    tir_module_destroy(m);
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
