/* hashmap.h — a growable hash map from byte strings to pointers, the one hash
 * table of the code base: symbol tables (base/symtab.h) and the interning of
 * types, spaces and constants are built on it.  Keys are not copied: the
 * caller keeps each key's bytes alive and unchanged while it is in the map
 * (interned objects store their own key).  Lookups and inserts are expected
 * O(1) at any size: the table doubles when half full, so building a module
 * with n interned objects is linear in n.  Memory comes from the context; a
 * failed growth leaves the map as it was. */
#ifndef TILEC_BASE_HASHMAP_H
#define TILEC_BASE_HASHMAP_H

#include "base/context.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    const void *key; /* NULL: empty slot */
    size_t len;
    void *value;
    uint64_t hash;   /* of the key bytes: probes and growth rarely touch keys */
} hashmap_slot;

typedef struct {
    tilec_context *ctx;
    hashmap_slot *slots; /* iterate slots[0..capacity) and skip NULL keys */
    size_t capacity, count; /* capacity is 0 or a power of two */
} hashmap;

void hashmap_init(hashmap *h, tilec_context *ctx);
void hashmap_free(hashmap *h);
/* NULL when absent.  `key` must not be NULL (a zero-length key is fine). */
void *hashmap_get(const hashmap *h, const void *key, size_t len);
/* Adds a key that is not present (not checked: a second put of a key shadows
 * nothing and leaves both); false only on allocation failure. */
bool hashmap_put(hashmap *h, const void *key, size_t len, void *value);
/* Removes the key if present. */
void hashmap_remove(hashmap *h, const void *key, size_t len);

#endif
