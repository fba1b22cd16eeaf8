/* The runtime's check of an ahead-of-time object's CPU features
 * (aot_cpu_check, aot_cpu_detect in src/api/aot_run.c; docs/aot.md):
 *   - on a made-up CPU that has nothing, every feature the object enables
 *     is named as lacking (amx-tile, avx512f … and the baseline's sse2),
 *     and disabled ones ("-avx2") are not;
 *   - a feature the runtime does not know refuses the object, named apart,
 *     even on a CPU that has everything;
 *   - every feature LLVM's host detection names on this machine (on or
 *     off) is one the runtime knows, and the runtime's cpuid agrees with
 *     LLVM's on each: what LLVM finds, it finds, and what LLVM does not,
 *     it does not (a wrong cpuid bit in the table fails here);
 *   - an object for this machine (native) and for each psABI level it has
 *     passes the check; a level it lacks names what is missing.
 * Objects actually refused at their first call: tests/cli/aot.sh. */
#include "harness.h"
#include "simd/aot.h"
#include "api/aot_format.h"

#include <stdlib.h>
#include <string.h>

#define CHECK_STR_EQ(got, want) CHECK_MSG(!strcmp((got), (want)), "'%s', not '%s'", (got), (want))

static aot_cpu nothing, everything;

static void test_made_up_cpus(void) {
    memset(&nothing, 0, sizeof nothing);
    memset(&everything, 0xff, sizeof everything);
    aot_cpu_report r;
    CHECK(!aot_cpu_check("+sse2,+avx512f,-avx2,+amx-tile,+gfni", &nothing, &r));
    CHECK_STR_EQ(r.lacks, "sse2 avx512f amx-tile gfni");
    CHECK_STR_EQ(r.unknown, "");
    CHECK(aot_cpu_check("+sse2,+avx512f,-avx2,+amx-tile,+gfni", &everything, &r) && !r.lacks[0]);
    /* unknown to the runtime: refused whatever the CPU has, named apart;
     * a disabled unknown one says nothing */
    CHECK(!aot_cpu_check("+avx2,+made-up-feature,-not-either,+sse4.2", &everything, &r));
    CHECK_STR_EQ(r.unknown, "made-up-feature");
    CHECK_STR_EQ(r.lacks, "");
    CHECK(!aot_cpu_check("+made-up-feature,+avx2", &nothing, &r));
    CHECK_STR_EQ(r.unknown, "made-up-feature");
    CHECK_STR_EQ(r.lacks, "avx2");
    /* nothing enabled: nothing to lack */
    CHECK(aot_cpu_check("", &nothing, &r) && aot_cpu_check("-avx2,-sse2", &nothing, &r));
    /* a long list is cut, never overrun */
    char many[4096] = "";
    for (int i = 0; i < 200; i++) strcat(many, "+avx512vp2intersect,");
    CHECK(!aot_cpu_check(many, &nothing, &r) && strlen(r.lacks) < sizeof r.lacks);
}

/* Each "+name"/"-name" of LLVM's list against the runtime's detection. */
static void test_agrees_with_llvm(const char *features, const aot_cpu *host) {
    int seen = 0;
    for (const char *p = features; *p;) {
        size_t n = strcspn(p, ",");
        char one[64];
        snprintf(one, sizeof one, "+%.*s", (int)(n - 1), p + 1);
        aot_cpu_report r;
        /* the one tuning simd_aot turns off and records ("-sse-unaligned-mem") has no cpuid bit */
        if (strcmp(one, "+sse-unaligned-mem")) {
            CHECK_MSG(aot_cpu_check(one, &everything, &r), "the runtime cannot check LLVM's '%s'", one + 1);
            bool has = aot_cpu_check(one, host, &r);
            CHECK_MSG(has == (*p == '+'), "LLVM says %.*s, the runtime's cpuid %s it", (int)n, p,
                      has ? "finds" : "does not find");
            seen++;
        }
        p += n + (p[n] == ',');
    }
    CHECK(seen > 60); /* LLVM 19 names over a hundred */
}

static void test_host(tilec_context *ctx, const aot_cpu *host) {
    simd_aot *a;
    CHECK(simd_aot_begin(ctx, NULL, &a) == TILEC_OK);
    if (!a) return;
    const char *native = simd_aot_features(a);
    CHECK(strstr(native, "+sse2") && strstr(native, "+x87")); /* the baseline is recorded too */
    test_agrees_with_llvm(native, host);
    aot_cpu_report r;
    CHECK_MSG(aot_cpu_check(native, host, &r), "a native object is refused here: lacks '%s', unknown '%s'", r.lacks,
              r.unknown);
    bool v3 = strstr(native, "+avx2") != NULL, v4 = strstr(native, "+avx512f") != NULL;
    simd_aot_destroy(a);
    static const char *const levels[] = {"x86-64-v2", "x86-64-v3", "x86-64-v4"};
    for (int i = 0; i < 3; i++) {
        CHECK(simd_aot_begin(ctx, levels[i], &a) == TILEC_OK);
        if (!a) continue;
        const char *features = simd_aot_features(a);
        CHECK(strstr(features, "+sahf") && strstr(features, "+sse4.2")); /* what the level's model implies */
        bool has = i == 0 || (i == 1 && v3) || (i == 2 && v4);
        CHECK_MSG(aot_cpu_check(features, host, &r) == has, "%s: lacks '%s', unknown '%s'", levels[i], r.lacks,
                  r.unknown);
        CHECK(!r.unknown[0] && (has || strstr(r.lacks, i == 1 ? "avx2" : "avx512f")));
        simd_aot_destroy(a);
    }
}

int main(void) {
    /* this machine as it is, not a host profile (TILEC_HOST turns features off) */
    unsetenv("TILEC_HOST");
    tilec_context *ctx;
    CHECK(tilec_context_create(NULL, &ctx) == TILEC_OK);
    test_made_up_cpus();
    aot_cpu host;
    aot_cpu_detect(&host);
    test_host(ctx, &host);
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
