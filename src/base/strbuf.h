/* strbuf.h — a growable, always NUL-terminated string for printers and messages.
 * Allocation failure is sticky: `failed` is set and later appends are ignored. */
#ifndef TILEC_BASE_STRBUF_H
#define TILEC_BASE_STRBUF_H

#include "base/context.h"
#include <stdbool.h>

typedef struct {
    tilec_context *ctx;
    char *data;
    size_t len, cap;
    bool failed;
} strbuf;

void strbuf_init(strbuf *s, tilec_context *ctx);
void strbuf_free(strbuf *s);
void strbuf_append(strbuf *s, const char *text);
void strbuf_append_n(strbuf *s, const char *text, size_t n);
void strbuf_printf(strbuf *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_indent(strbuf *s, int levels); /* two spaces per level */
const char *strbuf_cstr(const strbuf *s); /* "" when empty */

#endif
