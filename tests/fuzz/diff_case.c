/* diff_case.c — printing and reading the `// fuzz_diff:` header of a case
 * (diff_case.h).  print(parse(x)) keeps every setting; parse accepts the
 * keys in any order and on any number of lines. */
#include "diff_case.h"

#include "tilec/tilec.h"

#include <stdlib.h>
#include <string.h>

static const char PREFIX[] = "// fuzz_diff:";

void diff_case_default(diff_case *c) {
    memset(c, 0, sizeof *c);
    c->exact_inputs = true;
    c->atol = c->rtol = 2e-5;
    c->bitwise = true;
    c->ulps = 1;
    c->width = 8;
    c->threads = 1;
    c->full_packets = true;
    c->split = -1;
}

static void print_list(FILE *out, const char *key, const uint32_t *v, uint32_t n) {
    if (!n) return;
    fprintf(out, " %s=", key);
    for (uint32_t i = 0; i < n; i++) fprintf(out, "%s%u", i ? "," : "", v[i]);
}

/* pack, fuse and stores are read and written with the library's words
 * (tilec_compile_options_set and _get). */
static bool parse_mode(const char *key, const char *v, uint32_t *out) {
    tilec_compile_options o = tilec_compile_options_default();
    if (tilec_compile_options_set(NULL, &o, key, v) != TILEC_OK) return false;
    *out = !strcmp(key, "pack") ? (uint32_t)o.pack : !strcmp(key, "fuse") ? (uint32_t)o.fuse : (uint32_t)o.stores;
    return true;
}

static void print_mode(FILE *out, const char *key, uint32_t value) {
    tilec_compile_options o = tilec_compile_options_default();
    o.pack = (tilec_pack)value;
    o.fuse = (tilec_fuse)value;
    o.stores = (tilec_stores)value;
    char word[16];
    if (tilec_compile_options_get(NULL, &o, key, word, sizeof word) == TILEC_OK) fprintf(out, " %s=%s", key, word);
}

void diff_case_print(const diff_case *c, FILE *out) {
    fprintf(out, "%s seed=%llu index=%llu\n", PREFIX, (unsigned long long)c->seed, (unsigned long long)c->index);
    fprintf(out, "%s inputs=%s specials=%d input_seed=%llu compare=%s", PREFIX,
            c->edge_inputs ? "edges" : c->exact_inputs ? "exact" : "random", c->specials,
            (unsigned long long)c->input_seed, c->by_ulps ? "ulps" : c->bitwise ? "bitwise" : "tolerance");
    if (c->by_ulps) fprintf(out, " ulps=%u", c->ulps);
    else if (!c->bitwise) fprintf(out, " atol=%.3g rtol=%.3g", c->atol, c->rtol);
    fprintf(out, "\n%s width=%u threads=%u local_lanes=%u block=%u partitions=%u grain=%u full_packets=%d", PREFIX,
            c->width, c->threads, c->local_lanes, c->block, c->partitions, c->grain, c->full_packets);
    if (c->unrolled_set) fprintf(out, " unrolled=%u", c->unrolled);
    if (c->search_grain) fprintf(out, " search_grain=1");
    if (c->separate_mma) fprintf(out, " separate_mma=1");
    if (c->pack) print_mode(out, "pack", c->pack);
    if (c->fuse) print_mode(out, "fuse", c->fuse);
    if (c->stores) print_mode(out, "stores", c->stores);
    if (c->split >= 0) fprintf(out, " split=%lld", (long long)c->split);
    print_list(out, "order", c->order, c->order_len);
    print_list(out, "tiles", c->tiles, c->tiles_len);
    fputc('\n', out);
    if (c->expect_ok) fprintf(out, "%s expect=ok\n", PREFIX);
    for (size_t i = 0; i < c->n_binds; i++)
        fprintf(out, "%s bind=%s:%s+%llu\n", PREFIX, c->binds[i].param, c->binds[i].owner,
                (unsigned long long)c->binds[i].offset);
}

static bool parse_u64(const char *s, uint64_t *out) {
    char *end;
    if (!*s) return false;
    *out = strtoull(s, &end, 10);
    return *end == 0;
}

static bool parse_u32(const char *s, uint32_t *out) {
    uint64_t v;
    if (!parse_u64(s, &v) || v > UINT32_MAX) return false;
    *out = (uint32_t)v;
    return true;
}

static bool parse_list(const char *s, uint32_t *v, uint32_t *n) {
    *n = 0;
    char buf[128];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (*n == DIFF_MAX_ORDER || !parse_u32(tok, &v[*n])) return false;
        (*n)++;
    }
    return *n > 0;
}

static bool parse_bind(const char *s, diff_case *c) {
    const char *colon = strchr(s, ':'), *plus = colon ? strchr(colon, '+') : NULL;
    if (!colon || !plus || c->n_binds == DIFF_MAX_BINDS) return false;
    diff_bind *b = &c->binds[c->n_binds];
    size_t np = (size_t)(colon - s), no = (size_t)(plus - colon - 1);
    if (!np || !no || np >= DIFF_NAME || no >= DIFF_NAME || !parse_u64(plus + 1, &b->offset)) return false;
    memcpy(b->param, s, np), b->param[np] = 0;
    memcpy(b->owner, colon + 1, no), b->owner[no] = 0;
    c->n_binds++;
    return true;
}

static bool parse_bool(const char *v, bool *out) {
    if (strcmp(v, "0") && strcmp(v, "1")) return false;
    *out = v[0] == '1';
    return true;
}

static bool parse_item(const char *key, const char *v, diff_case *c) {
    if (!strcmp(key, "seed")) return parse_u64(v, &c->seed);
    if (!strcmp(key, "index")) return parse_u64(v, &c->index);
    if (!strcmp(key, "input_seed")) return parse_u64(v, &c->input_seed);
    if (!strcmp(key, "inputs")) {
        c->exact_inputs = !strcmp(v, "exact");
        c->edge_inputs = !strcmp(v, "edges");
        return c->exact_inputs || c->edge_inputs || !strcmp(v, "random");
    }
    if (!strcmp(key, "compare")) {
        c->bitwise = !strcmp(v, "bitwise");
        c->by_ulps = !strcmp(v, "ulps");
        return c->bitwise || c->by_ulps || !strcmp(v, "tolerance");
    }
    if (!strcmp(key, "ulps")) return parse_u32(v, &c->ulps);
    if (!strcmp(key, "specials")) return parse_bool(v, &c->specials);
    if (!strcmp(key, "full_packets")) return parse_bool(v, &c->full_packets);
    if (!strcmp(key, "search_grain")) return parse_bool(v, &c->search_grain);
    if (!strcmp(key, "separate_mma")) return parse_bool(v, &c->separate_mma);
    if (!strcmp(key, "pack") || !strcmp(key, "fuse") || !strcmp(key, "stores"))
        return parse_mode(key, v, !strcmp(key, "pack") ? &c->pack : !strcmp(key, "fuse") ? &c->fuse : &c->stores);
    if (!strcmp(key, "split")) {
        uint32_t n;
        if (!strcmp(v, "auto")) return (c->split = -1), true;
        if (!parse_u32(v, &n)) return false;
        c->split = n;
        return true;
    }
    if (!strcmp(key, "atol") || !strcmp(key, "rtol")) {
        char *end;
        double x = strtod(v, &end);
        if (*end || !(x >= 0)) return false;
        *(key[0] == 'a' ? &c->atol : &c->rtol) = x;
        return true;
    }
    if (!strcmp(key, "unrolled")) return (c->unrolled_set = true) && parse_u32(v, &c->unrolled);
    if (!strcmp(key, "order")) return parse_list(v, c->order, &c->order_len);
    if (!strcmp(key, "tiles")) return parse_list(v, c->tiles, &c->tiles_len);
    if (!strcmp(key, "bind")) return parse_bind(v, c);
    if (!strcmp(key, "expect")) return (c->expect_ok = !strcmp(v, "ok"));
    static const struct {
        const char *key;
        size_t offset;
    } u32s[] = {{"width", offsetof(diff_case, width)},           {"threads", offsetof(diff_case, threads)},
                {"local_lanes", offsetof(diff_case, local_lanes)}, {"block", offsetof(diff_case, block)},
                {"partitions", offsetof(diff_case, partitions)},   {"grain", offsetof(diff_case, grain)}};
    for (size_t i = 0; i < sizeof u32s / sizeof *u32s; i++)
        if (!strcmp(key, u32s[i].key)) return parse_u32(v, (uint32_t *)((char *)c + u32s[i].offset));
    return false;
}

bool diff_case_parse(const char *text, diff_case *c, char *why, size_t why_len) {
    diff_case_default(c);
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (len >= sizeof PREFIX - 1 && !strncmp(line, PREFIX, sizeof PREFIX - 1)) {
            char buf[512];
            if (len >= sizeof buf) {
                snprintf(why, why_len, "header line too long");
                return false;
            }
            memcpy(buf, line + sizeof PREFIX - 1, len - (sizeof PREFIX - 1));
            buf[len - (sizeof PREFIX - 1)] = 0;
            for (char *save = NULL, *tok = strtok_r(buf, " \t\r", &save); tok; tok = strtok_r(NULL, " \t\r", &save)) {
                char *eq = strchr(tok, '=');
                if (eq) *eq = 0;
                if (!eq || !parse_item(tok, eq + 1, c)) {
                    snprintf(why, why_len, "bad header item '%s%s%s'", tok, eq ? "=" : "", eq ? eq + 1 : "");
                    return false;
                }
            }
        }
        line = end ? end + 1 : NULL;
    }
    return true;
}
