/* context.c — allocator, diagnostic list and source texts behind
 * tilec_context.
 * Invariant: diagnostics own their strings; clearing or destroying frees them.
 * The context keeps a copy of the last few texts tir_parse read, by file
 * name, so a diagnostic can show its source line with a caret under the
 * column (tilec_diag_print, tilec_diag_render). */
#include "base/context.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sources kept for diagnostics: the most recent ones (a long-lived context
 * parsing many kernels keeps a bounded amount of text). */
enum { CONTEXT_SOURCES = 8 };

typedef struct {
    char *name, *text; /* NULL: empty slot */
    size_t length;
} source;

struct tilec_context {
    tilec_allocator allocator;
    long allocations_until_failure; /* < 0: never fail */
    tilec_diag *diags;
    size_t diag_count, diag_capacity;
    source sources[CONTEXT_SOURCES];
    size_t next_source; /* the slot replaced next */
    void *extension;
    void (*destroy_extension)(void *);
    void **held; /* tilec_context_hold's blocks, each starting with the link to the previous */
};

static void *default_alloc(void *user, size_t size) {
    (void)user;
    return malloc(size);
}

static void default_free(void *user, void *ptr) {
    (void)user;
    free(ptr);
}

tilec_status tilec_context_create(const tilec_allocator *alloc, tilec_context **out) {
    if (!out) return TILEC_E_ARG;
    *out = NULL;
    tilec_allocator a = {default_alloc, default_free, NULL};
    if (alloc) {
        if (!alloc->alloc || !alloc->free) return TILEC_E_ARG;
        a = *alloc;
    }
    tilec_context *ctx = a.alloc(a.user, sizeof *ctx);
    if (!ctx) return TILEC_E_NOMEM;
    memset(ctx, 0, sizeof *ctx);
    ctx->allocator = a;
    ctx->allocations_until_failure = -1;
    *out = ctx;
    return TILEC_OK;
}

static void source_free(tilec_context *ctx, source *s) {
    ctx->allocator.free(ctx->allocator.user, s->name);
    ctx->allocator.free(ctx->allocator.user, s->text);
    memset(s, 0, sizeof *s);
}

void *tilec_context_extension(const tilec_context *ctx) { return ctx->extension; }

void tilec_context_set_extension(tilec_context *ctx, void *ext, void (*destroy)(void *ext)) {
    ctx->extension = ext;
    ctx->destroy_extension = destroy;
}

void tilec_context_destroy(tilec_context *ctx) {
    if (!ctx) return;
    if (ctx->destroy_extension) ctx->destroy_extension(ctx->extension);
    tilec_diag_clear(ctx);
    for (size_t i = 0; i < CONTEXT_SOURCES; i++) source_free(ctx, &ctx->sources[i]);
    tilec_allocator a = ctx->allocator;
    while (ctx->held) {
        void **block = ctx->held;
        ctx->held = *block;
        a.free(a.user, block);
    }
    a.free(a.user, ctx->diags);
    a.free(a.user, ctx);
}

void *tilec_context_hold(tilec_context *ctx, size_t size) {
    if (!ctx || size > SIZE_MAX - sizeof(max_align_t)) return NULL;
    void **block = tilec_alloc(ctx, sizeof(max_align_t) + size);
    if (!block) return NULL;
    *block = ctx->held;
    ctx->held = block;
    return (char *)block + sizeof(max_align_t);
}

void tilec_context_fail_allocation_after(tilec_context *ctx, long count) {
    ctx->allocations_until_failure = count;
}

void *tilec_alloc(tilec_context *ctx, size_t size) {
    if (ctx->allocations_until_failure == 0) return NULL;
    if (ctx->allocations_until_failure > 0) ctx->allocations_until_failure--;
    void *p = ctx->allocator.alloc(ctx->allocator.user, size ? size : 1);
    if (p) memset(p, 0, size);
    return p;
}

void tilec_free(tilec_context *ctx, void *ptr) {
    if (ptr) ctx->allocator.free(ctx->allocator.user, ptr);
}

void *tilec_grow(tilec_context *ctx, void *ptr, size_t old_size, size_t new_size) {
    void *p = tilec_alloc(ctx, new_size);
    if (!p) return NULL;
    if (ptr) {
        memcpy(p, ptr, old_size < new_size ? old_size : new_size);
        tilec_free(ctx, ptr);
    }
    return p;
}

static char *copy_string(tilec_context *ctx, const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *p = ctx->allocator.alloc(ctx->allocator.user, n);
    if (p) memcpy(p, s, n);
    return p;
}

tilec_status tilec_verror(tilec_context *ctx, tilec_status status, const char *code,
                          tilec_loc loc, const char *fmt, va_list ap) {
    if (!ctx) return status;
    if (ctx->diag_count == ctx->diag_capacity) {
        size_t cap = ctx->diag_capacity ? ctx->diag_capacity * 2 : 8;
        /* Diagnostics bypass the failure-injection hook: reporting must work. */
        tilec_diag *d = ctx->allocator.alloc(ctx->allocator.user, cap * sizeof *d);
        if (!d) return status;
        if (ctx->diags) memcpy(d, ctx->diags, ctx->diag_count * sizeof *d);
        ctx->allocator.free(ctx->allocator.user, ctx->diags);
        ctx->diags = d;
        ctx->diag_capacity = cap;
    }
    char buffer[1024];
    vsnprintf(buffer, sizeof buffer, fmt, ap);
    tilec_diag *d = &ctx->diags[ctx->diag_count++];
    d->status = status;
    d->code = copy_string(ctx, code ? code : "TILEC");
    d->message = copy_string(ctx, buffer);
    d->loc = loc;
    d->loc.file = copy_string(ctx, loc.file);
    return status;
}

tilec_status tilec_error(tilec_context *ctx, tilec_status status, const char *code,
                         tilec_loc loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    tilec_verror(ctx, status, code, loc, fmt, ap);
    va_end(ap);
    return status;
}

size_t tilec_diag_count(const tilec_context *ctx) { return ctx ? ctx->diag_count : 0; }

const tilec_diag *tilec_diag_at(const tilec_context *ctx, size_t index) {
    return ctx && index < ctx->diag_count ? &ctx->diags[index] : NULL;
}

void tilec_diag_clear(tilec_context *ctx) { tilec_diag_truncate(ctx, 0); }

void tilec_diag_truncate(tilec_context *ctx, size_t count) {
    for (size_t i = count; i < ctx->diag_count; i++) {
        tilec_diag *d = &ctx->diags[i];
        ctx->allocator.free(ctx->allocator.user, (void *)d->code);
        ctx->allocator.free(ctx->allocator.user, (void *)d->message);
        ctx->allocator.free(ctx->allocator.user, (void *)d->loc.file);
    }
    if (count < ctx->diag_count) ctx->diag_count = count;
}

void tilec_context_add_source(tilec_context *ctx, const char *name, const char *text, size_t length) {
    if (!ctx || !name || (!text && length)) return;
    source *slot = NULL;
    for (size_t i = 0; i < CONTEXT_SOURCES && !slot; i++)
        if (ctx->sources[i].name && !strcmp(ctx->sources[i].name, name)) slot = &ctx->sources[i];
    if (!slot) {
        slot = &ctx->sources[ctx->next_source];
        ctx->next_source = (ctx->next_source + 1) % CONTEXT_SOURCES;
    }
    source_free(ctx, slot);
    /* Like diagnostics, bypasses the failure-injection hook: without memory
     * the diagnostics just show no source line. */
    char *copy = ctx->allocator.alloc(ctx->allocator.user, length + 1);
    slot->name = copy_string(ctx, name);
    if (!copy || !slot->name) {
        ctx->allocator.free(ctx->allocator.user, copy);
        source_free(ctx, slot);
        return;
    }
    if (length) memcpy(copy, text, length);
    copy[length] = 0;
    slot->text = copy;
    slot->length = length;
}

/* Line `line` (1-based) of the source named `file`: its start and length,
 * or false when the context has no such text or line. */
static bool source_line(const tilec_context *ctx, const char *file, uint32_t line, const char **start, size_t *len) {
    for (size_t i = 0; i < CONTEXT_SOURCES; i++) {
        const source *s = &ctx->sources[i];
        if (!s->name || !file || strcmp(s->name, file)) continue;
        const char *p = s->text, *end = s->text + s->length;
        for (uint32_t l = 1; l < line && p < end; l++) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            p = nl ? nl + 1 : end;
        }
        if (p >= end) return false;
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        *start = p;
        *len = (size_t)((nl ? nl : end) - p);
        if (*len && p[*len - 1] == '\r') (*len)--;
        return true;
    }
    return false;
}

/* A bounded writer: what tilec_diag_render writes (and what it would). */
typedef struct {
    char *buf;
    size_t size, length;
} writer;

static void put(writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(writer *w, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    size_t room = w->length < w->size ? w->size - w->length : 0;
    int n = vsnprintf(room ? w->buf + w->length : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0) w->length += (size_t)n;
}

/* One diagnostic, clang-style: the location and message, then (when the
 * source is known) the line and a caret under the column. */
static void render(const tilec_context *ctx, const tilec_diag *d, writer *w) {
    if (d->loc.file && d->loc.line)
        put(w, "%s:%u:%u: ", d->loc.file, d->loc.line, d->loc.column);
    else if (d->loc.line)
        put(w, "%u:%u: ", d->loc.line, d->loc.column);
    put(w, "error[%s]: %s\n", d->code ? d->code : "?", d->message ? d->message : "");
    const char *line;
    size_t len;
    if (!d->loc.line || !source_line(ctx, d->loc.file, d->loc.line, &line, &len)) return;
    char gutter[16];
    int g = snprintf(gutter, sizeof gutter, "%u", d->loc.line);
    put(w, " %s | %.*s\n %*s | ", gutter, (int)len, line, g, "");
    /* the caret under the column: tabs of the line kept so it lines up */
    for (uint32_t c = 1; c < d->loc.column && c - 1 < len; c++) put(w, "%c", line[c - 1] == '\t' ? '\t' : ' ');
    put(w, "^\n");
}

size_t tilec_diag_render(const tilec_context *ctx, char *buf, size_t size) {
    writer w = {buf, buf ? size : 0, 0};
    if (w.size) buf[0] = 0;
    for (size_t i = 0; i < tilec_diag_count(ctx); i++) render(ctx, &ctx->diags[i], &w);
    return w.length;
}

void tilec_diag_print(const tilec_context *ctx, FILE *out) {
    for (size_t i = 0; i < tilec_diag_count(ctx); i++) {
        char small[1024];
        writer w = {small, sizeof small, 0};
        render(ctx, &ctx->diags[i], &w);
        if (w.length < sizeof small) {
            fputs(small, out);
            continue;
        }
        char *big = malloc(w.length + 1); /* a long source line */
        writer b = {big, big ? w.length + 1 : 0, 0};
        if (big) render(ctx, &ctx->diags[i], &b);
        fputs(big ? big : small, out);
        free(big);
    }
}

const char *tilec_status_name(tilec_status status) {
    static const char *const names[] = {
        "ok", "invalid argument", "type error", "shape error", "scope error",
        "verification failed", "unsupported", "budget exceeded", "parse error",
        "out of memory", "i/o error", "runtime error", "internal error",
    };
    return (unsigned)status < sizeof names / sizeof names[0] ? names[status] : "unknown status";
}
