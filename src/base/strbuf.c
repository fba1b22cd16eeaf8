/* strbuf.c — see strbuf.h. */
#include "base/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void strbuf_init(strbuf *s, tilec_context *ctx) {
    memset(s, 0, sizeof *s);
    s->ctx = ctx;
}

void strbuf_free(strbuf *s) {
    tilec_free(s->ctx, s->data);
    s->data = NULL;
    s->len = s->cap = 0;
}

static bool reserve(strbuf *s, size_t extra) {
    if (s->failed) return false;
    if (s->len + extra + 1 <= s->cap) return true;
    size_t cap = s->cap ? s->cap : 64;
    while (cap < s->len + extra + 1) cap *= 2;
    char *p = tilec_grow(s->ctx, s->data, s->cap, cap);
    if (!p) {
        s->failed = true;
        return false;
    }
    s->data = p;
    s->cap = cap;
    return true;
}

void strbuf_append_n(strbuf *s, const char *text, size_t n) {
    if (!reserve(s, n)) return;
    memcpy(s->data + s->len, text, n);
    s->len += n;
    s->data[s->len] = 0;
}

void strbuf_append(strbuf *s, const char *text) { strbuf_append_n(s, text, strlen(text)); }

void strbuf_printf(strbuf *s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n > 0 && reserve(s, (size_t)n)) {
        vsnprintf(s->data + s->len, (size_t)n + 1, fmt, ap);
        s->len += (size_t)n;
    }
    va_end(ap);
}

void strbuf_indent(strbuf *s, int levels) {
    for (int i = 0; i < levels; i++) strbuf_append_n(s, "  ", 2);
}

const char *strbuf_cstr(const strbuf *s) { return s->data ? s->data : ""; }
