/* examples_util.h — TileIR sources shared by the test executables: reading
 * and parsing a bundled example (examples/NAME.tir, with shape defines),
 * visiting every source file (*.tir, *.xir) of a directory in name order, the
 * allocation-failure sweep the OOM tests run over each example, and kernel
 * texts that several tests use (tests/kernels/NAME.tir, or inline).  Every helper reports what went wrong
 * through a failed CHECK and returns NULL / false / a count; none aborts. */
#ifndef TILEC_TEST_EXAMPLES_UTIL_H
#define TILEC_TEST_EXAMPLES_UTIL_H

#include "harness.h"
#include "diag_util.h"
#include "base/context.h"
#include "tir/ir.h"

#include <dirent.h>
#include <stdlib.h>

/* The text of DIR/NAME.tir under the source tree (malloc'd), or NULL after
 * a failed CHECK. */
static inline char *read_tir(const char *dir, const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s/%s.tir", TILEC_SOURCE_DIR, dir, name);
    size_t n;
    char *text = read_file(path, &n);
    CHECK_MSG(text != NULL, "cannot read %s", path);
    return text;
}

/* The text of examples/NAME.tir (malloc'd), or NULL after a failed CHECK. */
static inline char *read_example(const char *name) { return read_tir("examples", name); }

/* Parses and verifies; NULL (after a failed CHECK, diagnostics printed and
 * cleared) on error. */
static inline tir_module *parse_verified(tilec_context *ctx, const char *text, const tir_define *defines,
                                         size_t n_defines) {
    tir_module *m = NULL;
    tilec_status st = tir_parse(ctx, text, strlen(text), "test.tir", defines, n_defines, &m);
    if (!st) st = tir_verify(ctx, m);
    CHECK_MSG(st == TILEC_OK, "kernel does not parse/verify");
    if (st) {
        flush_diags_in(ctx);
        tir_module_destroy(m);
        return NULL;
    }
    return m;
}

/* examples/NAME.tir with `defines`, parsed and verified (NULL on error). */
static inline tir_module *parse_example(tilec_context *ctx, const char *name, const tir_define *defines,
                                        size_t n_defines) {
    char *text = read_example(name);
    tir_module *m = text ? parse_verified(ctx, text, defines, n_defines) : NULL;
    free(text);
    return m;
}

/* examples/NAME.tir with its first `from` (NULL: none) replaced by `to`,
 * parsed and verified with `defines` (NULL on error). */
static inline tir_module *example_variant(tilec_context *ctx, const char *name, const char *from, const char *to,
                                          const tir_define *defines, size_t n_defines) {
    char *text = read_example(name);
    if (!text) return NULL;
    char out[8192];
    const char *at = from ? strstr(text, from) : NULL;
    CHECK_MSG(!from || at, "%s.tir has no '%s'", name, from);
    if (at) snprintf(out, sizeof out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    else snprintf(out, sizeof out, "%s", text);
    free(text);
    return parse_verified(ctx, out, defines, n_defines);
}

/* tests/kernels/NAME.tir (the kernels the CLI tests use too) with its
 * shape parameters overridden by `defines`, parsed and verified (NULL on
 * error). */
static inline tir_module *parse_test_kernel_with(tilec_context *ctx, const char *name, const tir_define *defines,
                                                 size_t n_defines) {
    char *text = read_tir("tests/kernels", name);
    tir_module *m = text ? parse_verified(ctx, text, defines, n_defines) : NULL;
    free(text);
    return m;
}

static inline tir_module *parse_test_kernel(tilec_context *ctx, const char *name) {
    return parse_test_kernel_with(ctx, name, NULL, 0);
}

/* tests/kernels/typed_gemm.tir with inputs of type `in` and an accumulator
 * of type `acc` (its <i8> and <i32> replaced) and `defines`, parsed and
 * verified. */
static inline tir_module *typed_gemm_module(tilec_context *ctx, const char *in, const char *acc,
                                            const tir_define *defines, size_t n_defines) {
    char *text = read_tir("tests/kernels", "typed_gemm");
    if (!text) return NULL;
    char out[4096], *o = out;
    for (const char *p = text; *p && o < out + sizeof out - 16;) {
        if (!strncmp(p, "<i8>", 4)) o += sprintf(o, "<%s>", in), p += 4;
        else if (!strncmp(p, "<i32>", 5)) o += sprintf(o, "<%s>", acc), p += 5;
        else *o++ = *p++;
    }
    *o = 0;
    free(text);
    return parse_verified(ctx, out, defines, n_defines);
}

/* A fresh context (*ctx) and `text` parsed in it, without verifying, for
 * the tests that inject failures; NULL after a failed CHECK (the context
 * destroyed) when it does not parse. */
static inline tir_module *parse_in_new_context(const char *name, const char *text, size_t size, tilec_context **ctx) {
    tir_module *m = NULL;
    tilec_context_create(NULL, ctx);
    CHECK(tir_parse(*ctx, text, size, name, NULL, 0, &m) == TILEC_OK);
    if (!m) tilec_context_destroy(*ctx);
    return m;
}

/* Called with each file's path, name and NUL-terminated text; returns
 * whether the file counts (e.g. it parsed). */
typedef bool (*source_visitor)(const char *path, const char *name, const char *text, size_t size, void *env);

static inline int compare_file_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Visits every file of `dir` whose name ends in `suffix` (at most 256) in
 * name order, so runs are reproducible; returns how many visits counted. */
static inline int for_each_source(const char *dir, const char *suffix, source_visitor visit, void *env) {
    DIR *d = opendir(dir);
    CHECK_MSG(d != NULL, "cannot open %s", dir);
    if (!d) return 0;
    char *names[256];
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < 256;) {
        size_t len = strlen(e->d_name), slen = strlen(suffix);
        if (len > slen && !strcmp(e->d_name + len - slen, suffix)) names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, compare_file_names);
    int counted = 0;
    for (size_t i = 0; i < n; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        size_t size;
        char *text = read_file(path, &size);
        CHECK_MSG(text != NULL, "cannot read %s", path);
        if (text && visit(path, names[i], text, size, env)) counted++;
        free(text);
        free(names[i]);
    }
    return counted;
}

/* Runs `attempt` with the N-th allocation failing, for N = 0, 1, ... until
 * an attempt no longer allocates that many times (it completes); each
 * failed attempt must leave a diagnostic.  Returns whether one completed. */
static inline bool sweep_allocation_failures(tilec_context *ctx, const char *name,
                                             bool (*attempt)(tilec_context *ctx, void *env), void *env) {
    bool finished = false;
    for (long n = 0; n < 100000 && !finished; n++) {
        tilec_diag_clear(ctx);
        tilec_context_fail_allocation_after(ctx, n);
        finished = attempt(ctx, env);
        tilec_context_fail_allocation_after(ctx, -1);
        if (!finished) CHECK_MSG(tilec_diag_count(ctx) > 0, "%s: allocation %ld failed silently", name, n);
    }
    CHECK_MSG(finished, "%s never completed", name);
    return finished;
}

/* Sum of squares of one row of width W (a W·4-byte load snapshot), stored
 * per row. */
static inline const char *sumsq_text(void) {
    return "kernel @sumsq<R=3, W=129>(%X: const view<f32>[X.0=R, X.1=W], %Y: view<f32>[Y.0=R]) {\n"
           "  parallel (%r: r=R) {\n"
           "    %c0 = const index 0\n"
           "    %x = load %X[%r, %c0] tile [m=1, n=W]\n"
           "    %x2 = mul %x, %x\n"
           "    %s = reduce.add %x2 over (n)\n"
           "    %v = extract %s[%c0]\n"
           "    store %Y[%r], %v\n"
           "  }\n"
           "}\n";
}

#endif
