/* tilec/diag.h — the context every tilec API call takes: an allocator and a list
 * of structured diagnostics.  Errors are values: a call that fails returns a
 * status (or NULL) and appends one or more diagnostics; the context stays usable.
 * A context is not thread-safe; use one per thread. */
#ifndef TILEC_DIAG_H
#define TILEC_DIAG_H

#include "tilec/api.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    TILEC_OK = 0,
    TILEC_E_ARG,         /* invalid argument to an API call */
    TILEC_E_TYPE,        /* type mismatch */
    TILEC_E_SHAPE,       /* index-space mismatch (join, broadcast, mma dims) */
    TILEC_E_SCOPE,       /* region nesting, capture scope, visibility */
    TILEC_E_VERIFY,      /* IR verifier rule violated */
    TILEC_E_UNSUPPORTED, /* legal but not supported by this stage */
    TILEC_E_BUDGET,      /* a configured budget was exceeded */
    TILEC_E_PARSE,       /* text-form syntax error */
    TILEC_E_NOMEM,       /* allocation failed */
    TILEC_E_IO,          /* file or data-format error */
    TILEC_E_RUNTIME,     /* execution failed (bad buffers, ...) */
    TILEC_E_INTERNAL     /* an internal invariant failed: a bug in tilec, not in
                          * the input (TILEC-I01; release builds report it,
                          * debug builds abort) */
} tilec_status;

typedef struct tilec_context tilec_context;

/* Optional user allocator; NULL means malloc/free. */
typedef struct {
    void *(*alloc)(void *user, size_t size);
    void (*free)(void *user, void *ptr);
    void *user;
} tilec_allocator;

/* A source location; file NULL or line 0 means "not from text". */
typedef struct {
    const char *file;
    uint32_t line, column;
} tilec_loc;

typedef struct {
    tilec_status status;
    const char *code;    /* stable identifier, e.g. "TIR-V12" or "TIR-P03" */
    const char *message; /* human-readable, names the offending object */
    tilec_loc loc;
} tilec_diag;

TILEC_API tilec_status tilec_context_create(const tilec_allocator *alloc, tilec_context **out);
TILEC_API void tilec_context_destroy(tilec_context *ctx);

TILEC_API size_t tilec_diag_count(const tilec_context *ctx);
TILEC_API const tilec_diag *tilec_diag_at(const tilec_context *ctx, size_t index);
TILEC_API void tilec_diag_clear(tilec_context *ctx);
/* Writes every diagnostic as "file:line:col: error[CODE]: message\n", and,
 * when the location is in a text tir_parse read in this context (the last
 * few are kept), the source line and a caret under the column:
 *     sc.tir:6:3: error[LOWER-A02]: ...
 *      6 |   %a = load %S[%c0]
 *        |   ^
 */
TILEC_API void tilec_diag_print(const tilec_context *ctx, FILE *out);
/* The same text into buf (NUL-terminated, truncated to size); returns its
 * full length, as snprintf does (call with size 0 to measure). */
TILEC_API size_t tilec_diag_render(const tilec_context *ctx, char *buf, size_t size);
TILEC_API const char *tilec_status_name(tilec_status status);

#ifdef __cplusplus
}
#endif
#endif
