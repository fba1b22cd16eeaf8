/* host.c — the host description (host.h): the built-in profiles, TILEC_HOST's
 * grammar, and the native machine's caches (sysfs) and cores (sysconf). */
#include "base/host.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The psABI's x86-64 levels as LLVM features, the base of every profile. */
#define ISA_V2 "+cx16,+popcnt,+sse3,+sse4.1,+sse4.2,+ssse3"
#define ISA_V3 ISA_V2 ",+avx,+avx2,+bmi,+bmi2,+f16c,+fma,+lzcnt,+movbe,+xsave"
#define ISA_V4 ISA_V3 ",+avx512bw,+avx512cd,+avx512dq,+avx512f,+avx512vl,+evex512"
/* What Ice Lake and Zen 4 added to AVX-512 (both have all of it). */
#define ISA_AVX512_ICL \
    ",+avx512ifma,+avx512vbmi,+avx512vbmi2,+avx512vnni,+avx512bitalg,+avx512vpopcntdq,+gfni,+vaes,+vpclmulqdq"

/* The machines tilec has been developed and measured on, as they were seen
 * (2-core slices of each server part; caches per core, L3 shared). */
static const host_desc PROFILES[] = {
    {"zen4", "znver4", ISA_V4 ISA_AVX512_ICL ",+avx512bf16,+sse4a", 32u << 10, 1u << 20, 32u << 20, 2, ""},
    {"zen5", "znver5", ISA_V4 ISA_AVX512_ICL ",+avx512bf16,+avx512vp2intersect,+avxvnni,+sse4a", 48u << 10, 1u << 20,
     32u << 20, 2, ""},
    {"xeon-spr", "sapphirerapids",
     ISA_V4 ISA_AVX512_ICL ",+avx512bf16,+avx512fp16,+avxvnni,+amx-tile,+amx-bf16,+amx-int8", 48u << 10, 2u << 20,
     105u << 20, 2, ""},
    {"avx2-laptop", "alderlake", ISA_V3 ",+avxvnni,+gfni,+vaes,+vpclmulqdq", 48u << 10, 1280u << 10, 24u << 20, 4, ""},
};
enum { PROFILE_COUNT = sizeof PROFILES / sizeof PROFILES[0] };

const char *host_isa_level(const char *name) {
    static const struct {
        const char *name, *features;
    } levels[] = {{"x86-64-v2", ISA_V2}, {"x86-64-v3", ISA_V3}, {"x86-64-v4", ISA_V4}};
    for (size_t i = 0; name && i < sizeof levels / sizeof levels[0]; i++)
        if (!strcmp(name, levels[i].name)) return levels[i].features;
    return NULL;
}

const char *host_profile_names(void) { return "native, zen4, zen5, xeon-spr, avx2-laptop"; }

bool host_isa_has(const char *features, const char *name) {
    size_t n = strlen(name);
    for (const char *p = features; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n + 1 && p[0] == '+' && !memcmp(p + 1, name, n)) return true;
        p = end ? end + 1 : NULL;
    }
    return false;
}

void host_isa_vector_unit(const char *features, uint32_t *lanes, uint32_t *registers) {
    *lanes = 4, *registers = 16;
    if (host_isa_has(features, "avx512f")) *lanes = 16, *registers = 32;
    else if (host_isa_has(features, "avx2")) *lanes = 8;
}

/* ---- native ---- */

/* The first line of dir/name (without its newline) into buf. */
static bool read_line(const char *dir, const char *name, char *buf, size_t size) {
    char path[512];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path) return false;
    FILE *f = fopen(path, "r");
    if (!f) return false;
    bool ok = fgets(buf, (int)size, f) != NULL;
    fclose(f);
    if (ok) buf[strcspn(buf, "\n")] = 0;
    return ok;
}

/* "32K", "1024K", "32M", "65536": bytes; 0 when malformed or too large. */
static uint64_t parse_size(const char *s) {
    char *end;
    if (*s < '0' || *s > '9') return 0;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    uint64_t unit = *end == 'K' ? 1u << 10 : *end == 'M' ? 1u << 20 : *end == 'G' ? 1u << 30 : 1;
    if (unit != 1) end++;
    return *end || errno || v > UINT64_MAX / unit ? 0 : (uint64_t)v * unit;
}

bool host_read_caches(const char *dir, uint64_t *l1d_bytes, uint64_t *l2_bytes, uint64_t *l3_bytes) {
    bool found[3] = {false, false, false};
    for (int i = 0; i < 16; i++) {
        char index[600], level[16], type[32], size[32];
        snprintf(index, sizeof index, "%s/index%d", dir, i);
        if (!read_line(index, "level", level, sizeof level) || !read_line(index, "type", type, sizeof type) ||
            !read_line(index, "size", size, sizeof size))
            continue;
        int l = atoi(level);
        uint64_t bytes = parse_size(size);
        if (l < 1 || l > 3 || !bytes || !strcmp(type, "Instruction") || (l == 1 && strcmp(type, "Data"))) continue;
        uint64_t *out = l == 1 ? l1d_bytes : l == 2 ? l2_bytes : l3_bytes;
        *out = bytes;
        found[l - 1] = true;
    }
    return found[0] && found[1] && found[2];
}

/* This machine's facts, read once per process (written inside
 * native_once only): every compile asks several times, and sysfs costs
 * about 0.1 ms a read. */
static pthread_once_t native_once = PTHREAD_ONCE_INIT;
static host_desc native_facts;

static void read_native(void) {
    host_desc d = {"native", NULL, NULL, 0, 0, 0, 1, ""};
    host_read_caches("/sys/devices/system/cpu/cpu0/cache", &d.l1d_bytes, &d.l2_bytes, &d.l3_bytes);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    d.cores = cores < 1 ? 1 : cores > 4096 ? 4096 : (uint32_t)cores;
    native_facts = d;
}

static host_desc native(void) {
    pthread_once(&native_once, read_native);
    return native_facts;
}

/* ---- TILEC_HOST ---- */

static bool fail(char *err, size_t size, const char *fmt, ...) {
    if (err && size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, size, fmt, ap);
        va_end(ap);
    }
    return false;
}

/* One "key=value" override of `spec` (for messages) into d. */
static bool apply_override(const char *spec, const char *item, size_t len, host_desc *d, char *err, size_t size) {
    char text[64];
    if (len >= sizeof text) return fail(err, size, "host '%s': '%.*s' is too long", spec, (int)len, item);
    memcpy(text, item, len);
    text[len] = 0;
    char *value = strchr(text, '=');
    if (!value) return fail(err, size, "host '%s': '%s' is not key=value", spec, text);
    *value++ = 0;
    uint64_t *cache = !strcmp(text, "l1d") ? &d->l1d_bytes
                      : !strcmp(text, "l2") ? &d->l2_bytes
                      : !strcmp(text, "l3") ? &d->l3_bytes
                                            : NULL;
    if (cache) {
        uint64_t bytes = parse_size(value);
        if (!bytes || bytes > (1ull << 40))
            return fail(err, size, "host '%s': %s='%s' is not a cache size (e.g. 48K, 2M; at most 1T)", spec,
                        text, value);
        *cache = bytes;
        return true;
    }
    if (!strcmp(text, "cores")) {
        uint64_t n = parse_size(value);
        if (!n || n > 4096 || strspn(value, "0123456789") != strlen(value))
            return fail(err, size, "host '%s': cores='%s' is not a core count in 1..4096", spec, value);
        d->cores = (uint32_t)n;
        return true;
    }
    return fail(err, size, "host '%s': unknown key '%s' (l1d, l2, l3, cores)", spec, text);
}

bool host_turns_off(const host_desc *d, const char *name) {
    size_t n = strlen(name);
    for (const char *p = d->off; *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && !memcmp(p, name, n)) return true;
        p += len + (p[len] == ',');
    }
    return false;
}

/* A "-feature" item (len bytes at item, the '-' included) into d->off. */
static bool turn_off(const char *spec, const char *item, size_t len, host_desc *d, char *err, size_t size) {
    size_t used = strlen(d->off), name = len - 1;
    if (!name || strspn(item + 1, "abcdefghijklmnopqrstuvwxyz0123456789.-") < name)
        return fail(err, size, "host '%s': '%.*s' is not -FEATURE (an LLVM feature name, e.g. -avx512bf16)", spec,
                    (int)len, item);
    if (used + name + 2 > sizeof d->off) return fail(err, size, "host '%s': too many -FEATURE items", spec);
    snprintf(d->off + used, sizeof d->off - used, "%s%.*s", used ? "," : "", (int)name, item + 1);
    return true;
}

/* host_describe, reading this machine's facts for native only when
 * `read_native` (host_check needs the grammar alone). */
static bool describe(const char *spec, host_desc *out, char *err, size_t err_size, bool read_native) {
    if (!spec || !*spec) spec = "native";
    size_t name_len = strcspn(spec, ",");
    const host_desc *profile = NULL;
    for (size_t i = 0; i < PROFILE_COUNT; i++)
        if (strlen(PROFILES[i].name) == name_len && !memcmp(PROFILES[i].name, spec, name_len)) profile = &PROFILES[i];
    if (!profile && !(name_len == 6 && !memcmp(spec, "native", 6)))
        return fail(err, err_size, "host '%s': unknown host '%.*s' (%s)", spec, (int)name_len, spec,
                    host_profile_names());
    host_desc d = profile ? *profile : read_native ? native() : (host_desc){"native", NULL, NULL, 0, 0, 0, 1, ""};
    for (const char *p = spec + name_len; *p == ',';) {
        const char *item = p + 1;
        size_t len = strcspn(item, ",");
        if (!(*item == '-' ? turn_off(spec, item, len, &d, err, err_size)
                           : apply_override(spec, item, len, &d, err, err_size)))
            return false;
        p = item + len;
    }
    *out = d;
    return true;
}

bool host_describe(const char *spec, host_desc *out, char *err, size_t err_size) {
    return describe(spec, out, err, err_size, true);
}

bool host_check(const char *spec, char *err, size_t err_size) {
    host_desc d;
    return describe(spec, &d, err, err_size, false);
}

bool host_current(host_desc *out, char *err, size_t err_size) {
    return host_describe(getenv("TILEC_HOST"), out, err, err_size);
}

void host_cpu_model(char *out, size_t size) {
    if (!size) return;
    out[0] = 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "model name", 10)) {
            snprintf(out, size, "%.*s", (int)(size - 1), line);
            break;
        }
    if (f) fclose(f);
}
