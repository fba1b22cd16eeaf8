/* host.c — the packet width W: the described host's natural f32 vector
 * width (16 lanes with AVX-512F, 8 with AVX2, else 4; base/host.h: a
 * TILEC_HOST profile's, whatever this machine has), overridable by an option
 * or by the environment variable TILEC_SIMD_WIDTH ∈ {1, 2, 4, 8, 16} (the
 * option wins); how many packets of W its vector registers hold; and
 * whether it has the dot products of bf16 pairs and of int8 quads at W. */
#include "base/host.h"
#include "simd/jit.h"
#include "simd/simd.h"

#include <stdlib.h>
#include <string.h>

/* The described host's vector unit: f32 lanes per register and how many
 * registers (SSE's 16 of 4 when the host cannot be queried). */
static void host_vector_unit(uint32_t *lanes, uint32_t *registers) {
    jit_host h;
    *lanes = 4, *registers = 16;
    if (jit_host_init(&h)) *lanes = h.lanes, *registers = h.registers;
    jit_host_free(&h);
}

uint32_t simd_host_width(void) {
    uint32_t lanes, registers;
    host_vector_unit(&lanes, &registers);
    return lanes;
}

bool simd_host_codegen(strbuf *cpu, strbuf *features) {
    jit_host h;
    bool ok = jit_host_init(&h);
    if (ok) {
        strbuf_append(cpu, h.cpu);
        const char *sep = "";
        for (const char *p = h.features; *p;) { /* the enabled entries only */
            size_t len = strcspn(p, ",");
            if (*p == '+') strbuf_printf(features, "%s%.*s", sep, (int)len, p), sep = ",";
            p += len + (p[len] == ',');
        }
    }
    jit_host_free(&h);
    return ok;
}

/* Whether the described host's ISA (the profile's, else this machine's) has
 * `name` and the description does not turn it off. */
static bool planned_feature(const host_desc *d, const jit_host *h, const char *name) {
    return host_isa_has(d->isa ? d->isa : h->features, name) && !host_turns_off(d, name);
}

/* Whether the described host has the dot instructions of `feature` at `width`. */
static bool planned_dot(uint32_t width, const char *feature) {
    host_desc d;
    jit_host h;
    bool ok = jit_host_init(&h) && host_current(&d, NULL, 0) && planned_feature(&d, &h, feature) &&
              planned_feature(&d, &h, "avx512f") && planned_feature(&d, &h, "avx512bw") &&
              (width == 4 || width == 8 || width == 16) && (width == 16 || planned_feature(&d, &h, "avx512vl"));
    jit_host_free(&h);
    return ok;
}

bool simd_host_dot_bf16(uint32_t width) { return planned_dot(width, "avx512bf16"); }
bool simd_host_dot_int8(uint32_t width) { return planned_dot(width, "avx512vnni"); }

uint32_t simd_host_vector_registers(uint32_t width) {
    uint32_t lanes, registers;
    host_vector_unit(&lanes, &registers);
    /* a packet wider than a register takes several */
    return width > lanes ? registers / (width / lanes) : registers;
}

static bool valid_width(unsigned long w) { return w == 1 || w == 2 || w == 4 || w == 8 || w == 16; }

uint32_t simd_resolve_width(uint32_t requested, const char *env_value) {
    if (requested) return valid_width(requested) ? requested : 0;
    if (env_value && *env_value) {
        char *end = NULL;
        unsigned long w = strtoul(env_value, &end, 10);
        return *end == '\0' && valid_width(w) ? (uint32_t)w : 0;
    }
    return simd_host_width();
}

