/* arena.c — chunked bump allocation.  Large requests get a chunk of their own. */
#include "base/arena.h"

#include <string.h>

enum { ARENA_CHUNK_BYTES = 64 * 1024, ARENA_ALIGN = 16 };

struct arena_chunk {
    arena_chunk *next;
    size_t used, capacity;
    _Alignas(ARENA_ALIGN) unsigned char data[];
};

void arena_init(arena *a, tilec_context *ctx) {
    a->ctx = ctx;
    a->chunks = NULL;
    a->bytes_allocated = 0;
}

void arena_destroy(arena *a) {
    arena_chunk *c = a->chunks;
    while (c) {
        arena_chunk *next = c->next;
        tilec_free(a->ctx, c);
        c = next;
    }
    a->chunks = NULL;
}

void *arena_alloc(arena *a, size_t size) {
    size = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    if (size == 0) size = ARENA_ALIGN;
    arena_chunk *c = a->chunks;
    if (!c || c->capacity - c->used < size) {
        size_t capacity = size > ARENA_CHUNK_BYTES / 4 ? size : ARENA_CHUNK_BYTES;
        arena_chunk *fresh = tilec_alloc(a->ctx, sizeof *fresh + capacity);
        if (!fresh) return NULL;
        fresh->capacity = capacity;
        fresh->used = 0;
        if (c && size > ARENA_CHUNK_BYTES / 4) {
            /* Keep bumping in the current chunk; park the big one behind it. */
            fresh->next = c->next;
            c->next = fresh;
        } else {
            fresh->next = c;
            a->chunks = fresh;
        }
        c = fresh;
    }
    void *p = c->data + c->used;
    c->used += size;
    a->bytes_allocated += size;
    memset(p, 0, size);
    return p;
}

char *arena_strndup(arena *a, const char *s, size_t n) {
    char *p = arena_alloc(a, n + 1);
    if (!p) return NULL;
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *arena_strdup(arena *a, const char *s) { return s ? arena_strndup(a, s, strlen(s)) : NULL; }

void *arena_memdup(arena *a, const void *src, size_t size) {
    if (size == 0) return NULL;
    void *p = arena_alloc(a, size);
    if (p) memcpy(p, src, size);
    return p;
}
