/* context.h — internal side of tilec_context: allocation through the user's
 * allocator (with a test hook that makes the N-th allocation fail) and the
 * diagnostic sink.  Messages are copied into context-owned memory. */
#ifndef TILEC_BASE_CONTEXT_H
#define TILEC_BASE_CONTEXT_H

#include "tilec/diag.h"
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

void *tilec_alloc(tilec_context *ctx, size_t size);   /* zeroed; NULL on failure */
void tilec_free(tilec_context *ctx, void *ptr);
/* Grows a block from old_size to new_size bytes (copying); NULL on failure, and
 * then the old block is still valid. */
void *tilec_grow(tilec_context *ctx, void *ptr, size_t old_size, size_t new_size);
/* 64 bytes, a cache line and an AVX-512 vector: how scratch, workspaces,
 * panels and arenas are aligned (a block allocated 63 bytes larger holds
 * an aligned one). */
static inline uint64_t align64(uint64_t bytes) { return (bytes + 63) & ~(uint64_t)63; }
static inline void *align64_ptr(void *block) { return (void *)(((uintptr_t)block + 63) & ~(uintptr_t)63); }

/* `size` zeroed bytes kept until the context is destroyed (what a caller's
 * options borrow, such as a list set by name); NULL on failure. */
void *tilec_context_hold(tilec_context *ctx, size_t size);

/* Test hook: the allocation after `count` more successful ones fails
 * (count < 0 disables). */
void tilec_context_fail_allocation_after(tilec_context *ctx, long count);

/* Appends a diagnostic; returns `status` so callers can `return tilec_error(...)`. */
tilec_status tilec_error(tilec_context *ctx, tilec_status status, const char *code,
                         tilec_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
tilec_status tilec_verror(tilec_context *ctx, tilec_status status, const char *code,
                          tilec_loc loc, const char *fmt, va_list ap);

/* Drops the diagnostics after the first `count` (what a failed attempt that
 * the caller recovers from appended). */
void tilec_diag_truncate(tilec_context *ctx, size_t count);

/* One slot for a higher layer's per-context state (the facade's kernel
 * cache): set once, destroyed (destroy(ext)) first when the context is. */
void *tilec_context_extension(const tilec_context *ctx);
void tilec_context_set_extension(tilec_context *ctx, void *ext, void (*destroy)(void *ext));

/* Keeps a copy of a source text under its file name (replacing an older
 * one of that name; the last few are kept) so diagnostics at its locations
 * show the line and a caret.  Best effort: nothing is reported without
 * memory. */
void tilec_context_add_source(tilec_context *ctx, const char *name, const char *text, size_t length);

static inline tilec_loc tilec_no_loc(void) {
    tilec_loc loc = {0};
    return loc;
}

#endif
