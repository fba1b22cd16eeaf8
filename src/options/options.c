/* options.c — the compile option table (options.def) and the one reader of
 * option text: tilec_compile_options_default, _set, _get and
 * tilec_compile_option_info (tilec.h).  The command line, Python and the
 * fuzzers set options by name through _set, so each option's words and
 * number rules are written once, here. */
#include "options/options.h"

#include "base/context.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { K_U32, K_U64, K_F64, K_BOOL, K_MODE, K_STORES, K_TARGET, K_ARCH, K_LIST } option_kind;

/* What each kind reads, in the words of TILEC-O01 and the command line. */
#define EXPECTS_U32 "an unsigned integer in range"
#define EXPECTS_U64 "an unsigned integer in range"
#define EXPECTS_F64 "a number"
#define EXPECTS_BOOL "0 or 1"
#define EXPECTS_MODE "auto, on or off"
#define EXPECTS_STORES "auto, cached or streaming"
#define EXPECTS_TARGET "cpu or cuda"
#define EXPECTS_ARCH "one of " OPTIONS_GPU_ARCHS
#define EXPECTS_LIST "comma-separated unsigned integers"

typedef struct {
    tilec_option_info info;
    option_kind kind;
    size_t offset;
    const char *default_text; /* NULL: zero */
} option_row;

static const option_row ROWS[] = {
#define X(name, kind, field, flag, flag_sets, def, help) \
    {{#name, EXPECTS_##kind, flag, flag_sets, help}, K_##kind, offsetof(tilec_compile_options, field), def},
#include "options/options.def"
#undef X
};
enum { ROW_COUNT = sizeof ROWS / sizeof ROWS[0] };

/* The enum options are stored through `unsigned` (their values start at 0),
 * and a list's length field follows its array. */
_Static_assert(sizeof(tilec_fuse) == sizeof(unsigned) && sizeof(tilec_pack) == sizeof(unsigned) &&
                   sizeof(tilec_split) == sizeof(unsigned) && sizeof(tilec_stores) == sizeof(unsigned) &&
                   sizeof(tilec_target) == sizeof(unsigned),
               "enum options are unsigned-sized");
_Static_assert(offsetof(tilec_compile_options, root_axis_order_len) ==
                       offsetof(tilec_compile_options, root_axis_order) + sizeof(const uint32_t *) &&
                   offsetof(tilec_compile_options, root_axis_tiles_len) ==
                       offsetof(tilec_compile_options, root_axis_tiles) + sizeof(const uint32_t *) &&
                   offsetof(tilec_compile_options, bucket_cuts_len) ==
                       offsetof(tilec_compile_options, bucket_cuts) + sizeof(const uint32_t *),
               "a list's length follows its array");
_Static_assert((int)TILEC_PACK_AUTO == (int)TILEC_SPLIT_AUTO && (int)TILEC_PACK_ON == (int)TILEC_SPLIT_ON &&
                   (int)TILEC_PACK_OFF == (int)TILEC_SPLIT_OFF && (int)TILEC_FUSE_ON == (int)TILEC_PACK_ON &&
                   (int)TILEC_FUSE_OFF == (int)TILEC_PACK_OFF,
               "fuse, pack and split share their words");

/* The words of the enum options, in their enums' order (AUTO = 0, ...). */
static const char *const MODES[] = {"auto", "on", "off", NULL};
static const char *const STORES[] = {"auto", "cached", "streaming", NULL};
static const char *const TARGETS[] = {"cpu", "cuda", NULL};
enum { MAX_LIST = 64 };

static const char *const *words_of(option_kind k) {
    return k == K_MODE ? MODES : k == K_STORES ? STORES : k == K_TARGET ? TARGETS : NULL;
}

const char *options_gpu_arch(const char *name) {
    static const char *const archs[] = {"sm_60", "sm_61", "sm_62", "sm_70", "sm_72", "sm_75",
                                        "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a"};
    for (size_t i = 0; name && i < sizeof archs / sizeof *archs; i++)
        if (!strcmp(name, archs[i])) return archs[i];
    return NULL;
}

const char *options_mode_name(unsigned mode) { return mode < 3 ? MODES[mode] : "?"; }

static const option_row *find(const char *name) {
    for (size_t i = 0; i < ROW_COUNT; i++)
        if (!strcmp(ROWS[i].info.name, name)) return &ROWS[i];
    return NULL;
}

static bool read_unsigned(const char *text, size_t len, uint64_t max, uint64_t *out) {
    char digits[24], *end;
    if (len == 0 || len >= sizeof digits || text[0] < '0' || text[0] > '9') return false;
    memcpy(digits, text, len);
    digits[len] = 0;
    errno = 0;
    unsigned long long v = strtoull(digits, &end, 10);
    if (*end || errno || v > max) return false;
    *out = v;
    return true;
}

/* "2,0,1" into values[0..*n): no empty item, at most MAX_LIST; "" is none. */
static bool read_list(const char *text, uint32_t *values, size_t *n) {
    *n = 0;
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, ",");
        uint64_t v;
        if (*n == MAX_LIST || !read_unsigned(p, len, UINT32_MAX, &v)) return false;
        values[(*n)++] = (uint32_t)v;
        p += len;
        if (*p == ',' && !*++p) return false; /* a trailing comma */
    }
    return true;
}

static int word_index(const char *const *words, const char *value) {
    for (int i = 0; words[i]; i++)
        if (!strcmp(words[i], value)) return i;
    return -1;
}

/* Reads `value` into the row's field; false when it is not one of the
 * row's values (or, for a list, no memory: *nomem). */
static bool set_row(tilec_context *ctx, tilec_compile_options *o, const option_row *r, const char *value,
                    bool *nomem) {
    char *field = (char *)o + r->offset;
    uint64_t v = 0;
    switch (r->kind) {
    case K_U32:
        if (!read_unsigned(value, strlen(value), UINT32_MAX, &v)) return false;
        memcpy(field, &(uint32_t){(uint32_t)v}, sizeof(uint32_t));
        return true;
    case K_U64:
        if (!read_unsigned(value, strlen(value), UINT64_MAX, &v)) return false;
        memcpy(field, &v, sizeof v);
        return true;
    case K_F64: { /* any strtod number: the planner refuses negative and non-finite ones (PLAN-C01) */
        char *end;
        double d = strtod(value, &end);
        if (end == value || *end) return false;
        memcpy(field, &d, sizeof d);
        return true;
    }
    case K_BOOL:
        if (strcmp(value, "0") && strcmp(value, "1")) return false;
        memcpy(field, &(bool){value[0] == '1'}, sizeof(bool));
        return true;
    case K_MODE:
    case K_STORES:
    case K_TARGET: {
        int w = word_index(words_of(r->kind), value);
        if (w < 0) return false;
        memcpy(field, &(unsigned){(unsigned)w}, sizeof(unsigned));
        return true;
    }
    case K_ARCH: { /* a static name: the option outlives the caller's text; "" is none */
        const char *sm = value[0] ? options_gpu_arch(value) : NULL;
        if (value[0] && !sm) return false;
        memcpy(field, &sm, sizeof sm);
        return true;
    }
    case K_LIST: { /* the array lives as long as the context */
        uint32_t values[MAX_LIST];
        size_t n;
        if (!read_list(value, values, &n)) return false;
        uint32_t *kept = n ? tilec_context_hold(ctx, n * sizeof *kept) : NULL;
        if (n && !kept) return !(*nomem = true);
        if (n) memcpy(kept, values, n * sizeof *kept);
        const uint32_t *array = kept;
        memcpy(field, &array, sizeof array);
        memcpy(field + sizeof array, &n, sizeof n);
        return true;
    }
    }
    return false;
}

tilec_compile_options tilec_compile_options_default(void) {
    tilec_compile_options o;
    memset(&o, 0, sizeof o);
    bool nomem = false;
    for (size_t i = 0; i < ROW_COUNT; i++)
        if (ROWS[i].default_text) set_row(NULL, &o, &ROWS[i], ROWS[i].default_text, &nomem);
    return o;
}

size_t tilec_compile_options_size(void) { return sizeof(tilec_compile_options); }

void tilec_compile_options_init(tilec_compile_options *o) {
    if (o) *o = tilec_compile_options_default();
}

void tilec_compile_options_set_runtime(tilec_compile_options *o, tilec_runtime *rt) {
    if (o) o->runtime = rt;
}

tilec_status tilec_compile_options_set(tilec_context *ctx, tilec_compile_options *o, const char *name,
                                       const char *value) {
    if (!o || !name || !value)
        return tilec_error(ctx, TILEC_E_ARG, "TILEC-O01", tilec_no_loc(), "tilec_compile_options_set: NULL argument");
    const option_row *r = find(name);
    if (!r) return tilec_error(ctx, TILEC_E_ARG, "TILEC-O01", tilec_no_loc(), "unknown compile option '%s'", name);
    bool nomem = false;
    if (set_row(ctx, o, r, value, &nomem)) return TILEC_OK;
    if (nomem)
        return tilec_error(ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory keeping option '%s'", name);
    return tilec_error(ctx, TILEC_E_ARG, "TILEC-O01", tilec_no_loc(), "compile option '%s': '%s' is not %s", name,
                       value, r->info.expects);
}

tilec_status tilec_compile_options_get(tilec_context *ctx, const tilec_compile_options *o, const char *name,
                                       char *buf, size_t cap) {
    if (!o || !name || !buf || !cap)
        return tilec_error(ctx, TILEC_E_ARG, "TILEC-O01", tilec_no_loc(), "tilec_compile_options_get: NULL argument");
    const option_row *r = find(name);
    if (!r) return tilec_error(ctx, TILEC_E_ARG, "TILEC-O01", tilec_no_loc(), "unknown compile option '%s'", name);
    const char *field = (const char *)o + r->offset;
    uint32_t u32;
    uint64_t u64;
    double d;
    bool b;
    unsigned e;
    const char *s;
    int n = 0;
    switch (r->kind) {
    case K_U32: memcpy(&u32, field, sizeof u32), n = snprintf(buf, cap, "%" PRIu32, u32); break;
    case K_U64: memcpy(&u64, field, sizeof u64), n = snprintf(buf, cap, "%" PRIu64, u64); break;
    case K_F64: memcpy(&d, field, sizeof d), n = snprintf(buf, cap, "%.17g", d); break;
    case K_BOOL: memcpy(&b, field, sizeof b), n = snprintf(buf, cap, "%d", b); break;
    case K_MODE:
    case K_STORES:
    case K_TARGET:
        memcpy(&e, field, sizeof e);
        n = snprintf(buf, cap, "%s", e < 3 && words_of(r->kind)[e] ? words_of(r->kind)[e] : "?");
        break;
    case K_ARCH: memcpy(&s, field, sizeof s), n = snprintf(buf, cap, "%s", s ? s : ""); break;
    case K_LIST: {
        const uint32_t *a;
        size_t len;
        memcpy(&a, field, sizeof a);
        memcpy(&len, field + sizeof a, sizeof len);
        buf[0] = 0;
        for (size_t i = 0; i < len && a && n >= 0 && (size_t)n < cap; i++)
            n += snprintf(buf + n, cap - (size_t)n, "%s%" PRIu32, i ? "," : "", a[i]);
        break;
    }
    }
    if (n < 0 || (size_t)n >= cap)
        return tilec_error(ctx, TILEC_E_ARG, "TILEC-O01", tilec_no_loc(),
                           "tilec_compile_options_get: option '%s' needs more than %zu bytes", name, cap);
    return TILEC_OK;
}

const tilec_option_info *tilec_compile_option_info(size_t i) { return i < ROW_COUNT ? &ROWS[i].info : NULL; }
