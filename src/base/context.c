/* context.c — allocator and diagnostic list behind tilec_context.
 * Invariant: diagnostics own their strings; clearing or destroying frees them. */
#include "base/context.h"

#include <stdlib.h>
#include <string.h>

struct tilec_context {
    tilec_allocator allocator;
    long allocations_until_failure; /* < 0: never fail */
    tilec_diag *diags;
    size_t diag_count, diag_capacity;
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

void tilec_context_destroy(tilec_context *ctx) {
    if (!ctx) return;
    tilec_diag_clear(ctx);
    tilec_allocator a = ctx->allocator;
    a.free(a.user, ctx->diags);
    a.free(a.user, ctx);
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

void tilec_diag_clear(tilec_context *ctx) {
    for (size_t i = 0; i < ctx->diag_count; i++) {
        tilec_diag *d = &ctx->diags[i];
        ctx->allocator.free(ctx->allocator.user, (void *)d->code);
        ctx->allocator.free(ctx->allocator.user, (void *)d->message);
        ctx->allocator.free(ctx->allocator.user, (void *)d->loc.file);
    }
    ctx->diag_count = 0;
}

void tilec_diag_print(const tilec_context *ctx, FILE *out) {
    for (size_t i = 0; i < tilec_diag_count(ctx); i++) {
        const tilec_diag *d = &ctx->diags[i];
        if (d->loc.file && d->loc.line)
            fprintf(out, "%s:%u:%u: ", d->loc.file, d->loc.line, d->loc.column);
        else if (d->loc.line)
            fprintf(out, "%u:%u: ", d->loc.line, d->loc.column);
        fprintf(out, "error[%s]: %s\n", d->code ? d->code : "?", d->message ? d->message : "");
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
