/* The described host through the public API (tilec/host.h): TILEC_HOST=zen4
 * is a 16-lane AVX-512 host with 32 vector registers whose code is
 * generated for znver4, avx2-laptop an 8-lane AVX2 one with 16 (8 at 16
 * lanes) for alderlake without AVX-512 features, on any machine; the
 * features are the enabled ones only ("+name,..."), and the text stays with
 * the context across calls; a malformed TILEC_HOST is TILEC-O02 with no
 * text, and the width falls back to SSE's 4. */
#include "harness.h"

#include "tilec/host.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static tilec_context *ctx;

/* Every entry of a feature list is "+name". */
static bool enabled_only(const char *features) {
    if (!features || features[0] != '+') return false;
    for (const char *p = features; (p = strchr(p, ',')); p++)
        if (p[1] != '+') return false;
    return true;
}

static void check_profile(const char *spec, uint32_t width, uint32_t registers, uint32_t registers_at_16,
                          const char *cpu_name, const char *lacks) {
    setenv("TILEC_HOST", spec, 1);
    CHECK_MSG(tilec_host_width() == width, "%s: width %u", spec, tilec_host_width());
    CHECK_MSG(tilec_host_vector_registers(width) == registers, "%s: %u registers", spec,
              tilec_host_vector_registers(width));
    CHECK(tilec_host_vector_registers(4) == registers);
    CHECK(tilec_host_vector_registers(16) == registers_at_16);
    const char *cpu = NULL, *features = NULL;
    CHECK(tilec_host_codegen(ctx, &cpu, &features) == TILEC_OK && tilec_diag_count(ctx) == 0);
    if (!cpu || !features) return;
    CHECK_MSG(!strcmp(cpu, cpu_name), "%s: cpu %s", spec, cpu);
    CHECK_MSG(enabled_only(features), "%s: features %s", spec, features);
    CHECK_STR_CONTAINS(features, "+sse2");
    CHECK_MSG(!lacks || !strstr(features, lacks), "%s: features %s", spec, features);
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    check_profile("zen4", 16, 32, 32, "znver4", NULL);
    check_profile("avx2-laptop,cores=3", 8, 16, 8, "alderlake", "+avx512f"); /* the profile's features only */

    /* the dot products the planner packs for: the profile's, less -FEATURE items, per width */
    static const struct {
        const char *spec;
        uint32_t width;
        const char *dots;
    } dots[] = {
        {"zen4", 16, "bf16 pairs (vdpbf16ps), int8 quads (vpdpbusd, vpdpwssd)"},
        {"zen4", 4, "bf16 pairs (vdpbf16ps), int8 quads (vpdpbusd, vpdpwssd)"},
        {"zen4", 2, "none"},
        {"zen4,-avx512bf16", 16, "int8 quads (vpdpbusd, vpdpwssd)"},
        {"zen4,-avx512vnni", 8, "bf16 pairs (vdpbf16ps)"},
        {"zen4,-avx512vl", 8, "none"},
        {"zen4,-avx512vl", 16, "bf16 pairs (vdpbf16ps), int8 quads (vpdpbusd, vpdpwssd)"},
        {"zen4,-avx512f", 8, "none"}, /* LLVM turns every AVX-512 extension off with it */
        {"avx2-laptop", 8, "none"},
    };
    for (size_t i = 0; i < sizeof dots / sizeof *dots; i++) {
        setenv("TILEC_HOST", dots[i].spec, 1);
        CHECK_MSG(!strcmp(tilec_host_dot_products(dots[i].width), dots[i].dots), "%s at W=%u: %s", dots[i].spec,
                  dots[i].width, tilec_host_dot_products(dots[i].width));
    }

    /* the text is kept by the context: another query leaves it in place */
    setenv("TILEC_HOST", "zen4", 1);
    const char *cpu = NULL, *features = NULL, *cpu2 = NULL, *features2 = NULL;
    CHECK(tilec_host_codegen(ctx, &cpu, &features) == TILEC_OK);
    setenv("TILEC_HOST", "avx2-laptop", 1);
    CHECK(tilec_host_codegen(ctx, &cpu2, &features2) == TILEC_OK);
    CHECK(cpu && cpu2 && !strcmp(cpu, "znver4") && !strcmp(cpu2, "alderlake"));

    setenv("TILEC_HOST", "zen9", 1);
    cpu = features = "unset";
    CHECK(tilec_host_codegen(ctx, &cpu, &features) == TILEC_E_ARG && !cpu && !features);
    CHECK(tilec_diag_count(ctx) == 1 && !strcmp(tilec_diag_at(ctx, 0)->code, "TILEC-O02"));
    CHECK_STR_CONTAINS(tilec_diag_at(ctx, 0)->message, "zen9");
    CHECK(tilec_host_width() == 4);
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
