/* diff_sized.c — a differential case made a kernel with runtime sizes
 * (diff_sized.h; docs/tir.md "Runtime sizes").  The case's text is
 * rewritten: up to three extents among its view parameters' axes and its
 * parallel and loop domains become runtime sizes S0, S1, S2 over
 * [v/2, 2v+3] (v the extent written), declared in the kernel's header. */
#include "diff_sized.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    size_t at, len; /* the number's digits in the text */
    int64_t value;
} extent_site;

enum { MAX_SITES = 256 };

/* Digits after '=' up to ',' ']' or ')' at `p`: a number extent. */
static bool number_at(const char *p, size_t *len, int64_t *value) {
    size_t n = 0;
    while (isdigit((unsigned char)p[n])) n++;
    if (!n || n > 9 || (p[n] != ',' && p[n] != ']' && p[n] != ')')) return false;
    *len = n;
    *value = strtoll(p, NULL, 10);
    return true;
}

/* The kernel's header line: the first line that starts with "kernel @" (a
 * comment may mention one). */
static const char *header_of(const char *text) {
    if (!strncmp(text, "kernel @", 8)) return text;
    const char *h = strstr(text, "\nkernel @");
    return h ? h + 1 : NULL;
}

/* The extents that may be runtime sizes: view parameters' axes (in the
 * kernel's header line) and domains of parallel and loop regions. */
static size_t find_sites(const char *text, extent_site *sites) {
    size_t n = 0;
    const char *header = header_of(text), *line = text;
    while (line && *line && n < MAX_SITES) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *s = line;
        while (*s == ' ') s++;
        bool region = !strncmp(s, "parallel (", 10) || !strncmp(s, "serial (", 8) || !strncmp(s, "reduce (", 8) ||
                      !strncmp(s, "pipeline (", 10);
        bool params = line == header;
        const char *stop = region ? strchr(s, ')') : line + len;
        for (const char *p = line; (params || region) && p < stop && n < MAX_SITES; p++) {
            if (*p != '=') continue;
            /* a view axis reads NAME.K=N; a domain axis %c: label=N */
            bool view = params && p > line && isdigit((unsigned char)p[-1]);
            if (!view && !region) continue;
            if (number_at(p + 1, &sites[n].len, &sites[n].value)) sites[n].at = (size_t)(p + 1 - text), n++;
        }
        line = end ? end + 1 : NULL;
    }
    return n;
}

static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb3fe1a85ec53ull;
    return x ^ (x >> 33);
}

char *diff_sized_text(const char *text, uint64_t seed, diff_sizes *out) {
    extent_site sites[MAX_SITES];
    size_t n = find_sites(text, sites);
    const char *name = header_of(text);
    const char *open = name ? strchr(name, '(') : NULL;
    memset(out, 0, sizeof *out);
    if (!n || !open || memchr(name, '<', (size_t)(open - name))) return NULL; /* none, or a header with parameters */
    bool chosen[MAX_SITES] = {false};
    for (int k = 0; k < DIFF_MAX_SIZES; k++) {
        size_t i = (size_t)(mix(seed + (uint64_t)k) % n);
        if (chosen[i]) continue;
        chosen[i] = true;
        out->count++;
    }
    size_t size = strlen(text) + 64 * DIFF_MAX_SIZES + 16;
    char *t = malloc(size);
    if (!t) return NULL;
    size_t w = 0, from = 0;
    uint32_t s = 0;
    /* the header's sizes, in site order (so S0 is the first chosen) */
    w += (size_t)snprintf(t + w, size - w, "%.*s<", (int)(open - text), text);
    for (size_t i = 0; i < n; i++) {
        if (!chosen[i]) continue;
        int64_t v = sites[i].value, lo = v / 2, hi = 2 * v + 3;
        out->value[s] = v, out->lo[s] = lo, out->hi[s] = hi;
        w += (size_t)snprintf(t + w, size - w, "%sS%u: %lld..%lld", s ? ", " : "", s, (long long)lo, (long long)hi);
        s++;
    }
    w += (size_t)snprintf(t + w, size - w, ">");
    from = (size_t)(open - text);
    s = 0;
    for (size_t i = 0; i < n; i++) {
        if (!chosen[i]) continue;
        w += (size_t)snprintf(t + w, size - w, "%.*sS%u", (int)(sites[i].at - from), text + from, s++);
        from = sites[i].at + sites[i].len;
    }
    snprintf(t + w, size - w, "%s", text + from);
    return t;
}

void diff_sized_sample(const diff_sizes *s, uint32_t round, uint64_t seed, int64_t *dims) {
    for (uint32_t i = 0; i < s->count; i++) {
        uint64_t h = mix(seed ^ (0x9E3779B97F4A7C15ull * (round * 8 + i + 1)));
        int64_t span = s->hi[i] - s->lo[i] + 1;
        dims[i] = round == 0 ? s->value[i] : round == 1 ? s->hi[i] : s->lo[i] + (int64_t)(h % (uint64_t)span);
    }
}
