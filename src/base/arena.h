/* arena.h — bump allocator whose chunks come from a tilec_context.  Everything
 * allocated from an arena has a stable address until arena_destroy frees it all
 * at once; that is how IR modules own their objects. */
#ifndef TILEC_BASE_ARENA_H
#define TILEC_BASE_ARENA_H

#include "base/context.h"

typedef struct arena_chunk arena_chunk;
typedef struct {
    tilec_context *ctx;
    arena_chunk *chunks;
    size_t bytes_allocated;
} arena;

void arena_init(arena *a, tilec_context *ctx);
void arena_destroy(arena *a);
void *arena_alloc(arena *a, size_t size); /* zeroed, 16-byte aligned; NULL on failure */
char *arena_strdup(arena *a, const char *s);
char *arena_strndup(arena *a, const char *s, size_t n);
/* Copies n elements of size `size` (NULL when n == 0 or on failure). */
void *arena_memdup(arena *a, const void *src, size_t size);

#define ARENA_NEW(a, type) ((type *)arena_alloc((a), sizeof(type)))
#define ARENA_ARRAY(a, type, n) ((type *)arena_alloc((a), sizeof(type) * (size_t)(n)))

#endif
