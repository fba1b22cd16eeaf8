/* Chosen parameters (docs/tir.md "Chosen parameters", tilec_choose_params):
 * `NAME in {v, …}` parses to its first value (a define pins any value) and
 * reports its choices (and a kernel's metadata, chosen_params); a
 * duplicate is TIR-P28, an empty list TIR-P01.  Choosing
 * measures every combination (tests/kernels/chosen.tir; past 64 a search)
 * and returns one of the listed values, in
 * declaration order, saying how; the policy `first` (option or
 * TILEC_CHOOSE=first) takes the first values without measuring; pinned
 * parameters are not chosen; a kernel with runtime sizes is measured at the
 * sizes given (TILEC-CH03 when they do not fit) or at its high end; the
 * measured choice is recorded in the disk cache's directory
 * and reused ("measured on this host before"), one timed cold apart from
 * it; an unknown kernel has
 * nothing to choose; too many combinations are TILEC-CH02. */
#include "examples_util.h"
#include "harness.h"
#include "tilec/tilec.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool first_diag(tilec_context *ctx, tilec_status st, const char *code) {
    bool ok = st != TILEC_OK && tilec_diag_count(ctx) && !strcmp(tilec_diag_at(ctx, 0)->code, code);
    if (!ok) tilec_diag_print(ctx, stderr);
    tilec_diag_clear(ctx);
    return ok;
}

static void check_parse(tilec_context *ctx, const char *text) {
    tir_module *m = parse_verified(ctx, text, NULL, 0);
    if (m) {
        tir_func *f = tir_module_func(m, 0);
        int64_t value = 0;
        size_t count = 0;
        CHECK(!strcmp(tir_func_shape_param(f, 1, &value), "B") && value == 16);
        const int64_t *choices = tir_func_shape_param_choices(f, 1, &count);
        CHECK(count == 3 && choices && choices[0] == 16 && choices[2] == 1024);
        CHECK(tir_func_shape_param_choices(f, 0, &count) == NULL && count == 0);
        /* the metadata says what each chosen parameter is and could have been */
        tilec_kernel *k = NULL;
        tilec_compile_options o = tilec_compile_options_default();
        o.threads = 1;
        CHECK(tilec_compile(ctx, f, &o, &k) == TILEC_OK);
        if (k) {
            CHECK_STR_CONTAINS(tilec_kernel_realization(k), "chosen_params=B:16 of 16,64,1024 U:1 of 1,2; ");
            CHECK_STR_CONTAINS(tilec_kernel_json(k), "\"chosen_params\": \"B:16 of 16,64,1024 U:1 of 1,2\"");
        }
        tilec_kernel_destroy(k);
        tir_module_destroy(m);
    }
    m = parse_verified(ctx, text, (tir_define[]){{"B", 7}}, 1); /* a define pins any value */
    if (m) {
        int64_t value = 0;
        tir_func_shape_param(tir_module_func(m, 0), 1, &value);
        CHECK(value == 7);
        tir_module_destroy(m);
    }
    static const char *const bad[] = {"kernel @k<B in {4, 8, 4}>() {\n}\n", "kernel @k<B in {}>() {\n}\n"};
    for (int i = 0; i < 2; i++) {
        tir_module *b = NULL;
        tilec_status st = tir_parse(ctx, bad[i], strlen(bad[i]), "bad.tir", NULL, 0, &b);
        CHECK_MSG(first_diag(ctx, st, i ? "TIR-P01" : "TIR-P28"), "case %d", i);
        tir_module_destroy(b);
    }
}

static void check_choose(tilec_context *ctx, const char *text) {
    tilec_chosen out[4];
    size_t count = 9;
    char why[256];
    tilec_choose_options co = {.policy = TILEC_CHOOSE_MEASURE, .why = why, .why_size = sizeof why};
    tilec_compile_options o = tilec_compile_options_default();
    o.threads = 1;
    CHECK(tilec_choose_params(ctx, text, strlen(text), "t.tir", "blocked", NULL, 0, &o, &co, out, 4, &count) ==
          TILEC_OK);
    CHECK(count == 2 && !strcmp(out[0].name, "B") && !strcmp(out[1].name, "U"));
    CHECK(out[0].value == 16 || out[0].value == 64 || out[0].value == 1024);
    CHECK(out[1].value == 1 || out[1].value == 2);
    CHECK_MSG(strstr(why, "(measured)"), "why: %s", why);
    /* 72 combinations: a search, fewer measured */
    CHECK(tilec_choose_params(ctx, text, strlen(text), "t.tir", "wide", NULL, 0, &o, &co, out, 4, &count) == TILEC_OK &&
          count == 2);
    CHECK_MSG(strstr(why, "(measured: a search over ") && strstr(why, " of 72 combinations)"), "why: %s", why);
    /* the policy first, by option and by environment */
    co.policy = TILEC_CHOOSE_FIRST;
    CHECK(tilec_choose_params(ctx, text, strlen(text), "t.tir", NULL, NULL, 0, &o, &co, out, 4, &count) ==
              TILEC_OK &&
          count == 2 && out[0].value == 16 && out[1].value == 1);
    CHECK(!strcmp(why, "B=16 U=1 (first listed: policy first)"));
    setenv("TILEC_CHOOSE", "first", 1);
    co.policy = TILEC_CHOOSE_DEFAULT;
    CHECK(tilec_choose_params(ctx, text, strlen(text), "t.tir", NULL, NULL, 0, &o, &co, out, 4, &count) ==
              TILEC_OK &&
          out[0].value == 16);
    CHECK_MSG(strstr(why, "policy first"), "why: %s", why);
    unsetenv("TILEC_CHOOSE");
    /* pinned: not chosen */
    co.policy = TILEC_CHOOSE_FIRST;
    CHECK(tilec_choose_params(ctx, text, strlen(text), "t.tir", NULL, (tir_define[]){{"B", 64}}, 1, &o, &co, out,
                              4, &count) == TILEC_OK &&
          count == 1 && !strcmp(out[0].name, "U"));
    /* runtime sizes: measured at the given sizes, else at the high end (at most 256); sizes that are not one per
     * runtime size in range are TILEC-CH03 */
    co.policy = TILEC_CHOOSE_MEASURE;
    CHECK(tilec_choose_params(ctx, text, strlen(text), "t.tir", "sized", NULL, 0, &o, &co, out, 4, &count) ==
              TILEC_OK &&
          count == 1 && (out[0].value == 8 || out[0].value == 4));
    CHECK_MSG(strstr(why, "(measured)"), "why: %s", why);
    co.dims = (int64_t[]){50}, co.n_dims = 1;
    CHECK(tilec_choose_params(ctx, text, strlen(text), "t.tir", "sized", NULL, 0, &o, &co, out, 4, &count) ==
          TILEC_OK);
    co.dims = (int64_t[]){1000};
    CHECK(first_diag(ctx, tilec_choose_params(ctx, text, strlen(text), "t.tir", "sized", NULL, 0, &o, &co, out,
                                              4, &count),
                     "TILEC-CH03"));
    co.n_dims = 2;
    CHECK(first_diag(ctx, tilec_choose_params(ctx, text, strlen(text), "t.tir", "sized", NULL, 0, &o, &co, out,
                                              4, &count),
                     "TILEC-CH03"));
    co.dims = NULL, co.n_dims = 0;
    /* errors */
    CHECK(tilec_choose_params(ctx, text, strlen(text), "t.tir", "nope", NULL, 0, &o, &co, out, 4, &count) ==
              TILEC_OK &&
          count == 0); /* no such kernel: nothing chosen (the caller's lookup says why) */
    CHECK(first_diag(ctx, tilec_choose_params(ctx, text, strlen(text), "t.tir", NULL, NULL, 0, &o, &co, out, 1,
                                              &count),
                     "TILEC-CH02"));
}

/* A measured choice is recorded and reused. */
static void check_record(tilec_context *ctx, const char *text) {
    char dir[] = "/tmp/tilec-choose.XXXXXX";
    if (!mkdtemp(dir)) return;
    setenv("TILEC_CACHE_DIR", dir, 1);
    setenv("TILEC_CACHE", "1", 1);
    tilec_chosen out[4];
    size_t count;
    char why[256], first[256];
    tilec_choose_options co = {.policy = TILEC_CHOOSE_MEASURE, .why = first, .why_size = sizeof first};
    tilec_compile_options o = tilec_compile_options_default();
    o.threads = 1;
    CHECK(tilec_choose_params(ctx, text, strlen(text), "t.tir", NULL, NULL, 0, &o, &co, out, 4, &count) ==
          TILEC_OK);
    co.why = why;
    CHECK(tilec_choose_params(ctx, text, strlen(text), "t.tir", NULL, NULL, 0, &o, &co, out, 4, &count) ==
          TILEC_OK);
    CHECK_MSG(strstr(why, "(measured on this host before)"), "why: %s", why);
    CHECK_MSG(!strncmp(why, first, strcspn(first, "(")), "'%s' then '%s'", first, why);
    o.threads = 2; /* other options: measured again */
    CHECK(tilec_choose_params(ctx, text, strlen(text), "t.tir", NULL, NULL, 0, &o, &co, out, 4, &count) ==
          TILEC_OK);
    CHECK_MSG(strstr(why, "(measured)"), "why: %s", why);
    co.cold = true; /* timed cold: recorded apart from the warm choice, then reused */
    for (int i = 0; i < 2; i++) {
        CHECK(tilec_choose_params(ctx, text, strlen(text), "t.tir", NULL, NULL, 0, &o, &co, out, 4, &count) ==
                  TILEC_OK &&
              count == 2 && (out[1].value == 1 || out[1].value == 2));
        CHECK_MSG(strstr(why, i ? "(measured cold on this host before)" : "(measured cold)"), "why: %s", why);
    }
    char command[512];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    CHECK(system(command) == 0);
    unsetenv("TILEC_CACHE_DIR");
    setenv("TILEC_CACHE", "memory", 1);
}

int main(void) {
    tilec_context *ctx;
    CHECK(tilec_context_create(NULL, &ctx) == TILEC_OK);
    char *text = read_tir("tests/kernels", "chosen");
    if (text) {
        check_parse(ctx, text);
        check_choose(ctx, text);
        check_record(ctx, text);
    }
    free(text);
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
