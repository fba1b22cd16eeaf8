/* hashmap.c — see hashmap.h.  Open addressing with linear probing over FNV-1a
 * hashes of the key bytes; the load factor stays at most 1/2.  Removal is
 * backward-shift deletion (no tombstones), so lookups stay correct after any
 * sequence of puts and removes. */
#include "base/hashmap.h"

#include <stdint.h>
#include <string.h>

static uint64_t hash_bytes(const void *key, size_t len) {
    const unsigned char *p = key;
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

void hashmap_init(hashmap *h, tilec_context *ctx) {
    memset(h, 0, sizeof *h);
    h->ctx = ctx;
}

void hashmap_free(hashmap *h) {
    tilec_free(h->ctx, h->slots);
    h->slots = NULL;
    h->capacity = h->count = 0;
}

static size_t find_slot(const hashmap *h, const void *key, size_t len) {
    size_t mask = h->capacity - 1, i = hash_bytes(key, len) & mask;
    while (h->slots[i].key && (h->slots[i].len != len || memcmp(h->slots[i].key, key, len))) i = (i + 1) & mask;
    return i;
}

void *hashmap_get(const hashmap *h, const void *key, size_t len) {
    if (!h->capacity) return NULL;
    const hashmap_slot *s = &h->slots[find_slot(h, key, len)];
    return s->key ? s->value : NULL;
}

static bool grow(hashmap *h) {
    size_t capacity = h->capacity ? h->capacity * 2 : 64;
    if (capacity > SIZE_MAX / 2 / sizeof(hashmap_slot)) return false;
    hashmap_slot *slots = tilec_alloc(h->ctx, capacity * sizeof *slots);
    if (!slots) return false;
    hashmap old = *h;
    h->slots = slots;
    h->capacity = capacity;
    for (size_t i = 0; i < old.capacity; i++)
        if (old.slots[i].key) h->slots[find_slot(h, old.slots[i].key, old.slots[i].len)] = old.slots[i];
    tilec_free(h->ctx, old.slots);
    return true;
}

bool hashmap_put(hashmap *h, const void *key, size_t len, void *value) {
    if ((h->count + 1) * 2 > h->capacity && !grow(h)) return false;
    h->slots[find_slot(h, key, len)] = (hashmap_slot){key, len, value};
    h->count++;
    return true;
}

/* Backward-shift deletion: later entries of the probe run move into the hole
 * when their home slot does not lie cyclically in (hole, their position]. */
void hashmap_remove(hashmap *h, const void *key, size_t len) {
    if (!h->capacity) return;
    size_t mask = h->capacity - 1, hole = find_slot(h, key, len);
    if (!h->slots[hole].key) return;
    h->slots[hole].key = NULL;
    h->count--;
    for (size_t j = (hole + 1) & mask; h->slots[j].key; j = (j + 1) & mask) {
        size_t home = hash_bytes(h->slots[j].key, h->slots[j].len) & mask;
        bool stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
        if (stays) continue;
        h->slots[hole] = h->slots[j];
        h->slots[j].key = NULL;
        hole = j;
    }
}
