/* hashmap.c — see hashmap.h.  Open addressing with linear probing; each slot
 * keeps its key's hash, so a probe compares key bytes only on a full hash
 * match; the load factor stays at most 1/2.  Removal is
 * backward-shift deletion (no tombstones), so lookups stay correct after any
 * sequence of puts and removes. */
#include "base/hashmap.h"

#include <stdint.h>
#include <string.h>

/* Eight bytes at a time (the intern keys are 16 bytes, names a few), with a
 * final avalanche so that keys differing only in high or only in low bits
 * (integral doubles, aligned pointers) spread over the low bits the table
 * indexes with. */
static uint64_t hash_bytes(const void *key, size_t len) {
    const unsigned char *p = key;
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ len;
    for (; len >= 8; p += 8, len -= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }
    uint64_t tail = 0;
    if (len) memcpy(&tail, p, len);
    h = (h ^ tail) * 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 29;
    h *= 0xff51afd7ed558ccdULL;
    return h ^ (h >> 32);
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

static size_t find_slot(const hashmap *h, const void *key, size_t len, uint64_t hash) {
    size_t mask = h->capacity - 1, i = hash & mask;
    for (const hashmap_slot *s = &h->slots[i]; s->key; s = &h->slots[i = (i + 1) & mask])
        if (s->hash == hash && s->len == len && !memcmp(s->key, key, len)) break;
    return i;
}

/* The slot of a key known to be absent (growth: the keys are distinct). */
static size_t free_slot(const hashmap *h, uint64_t hash) {
    size_t mask = h->capacity - 1, i = hash & mask;
    while (h->slots[i].key) i = (i + 1) & mask;
    return i;
}

void *hashmap_get(const hashmap *h, const void *key, size_t len) {
    if (!h->capacity) return NULL;
    const hashmap_slot *s = &h->slots[find_slot(h, key, len, hash_bytes(key, len))];
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
        if (old.slots[i].key) h->slots[free_slot(h, old.slots[i].hash)] = old.slots[i];
    tilec_free(h->ctx, old.slots);
    return true;
}

bool hashmap_put(hashmap *h, const void *key, size_t len, void *value) {
    if ((h->count + 1) * 2 > h->capacity && !grow(h)) return false;
    uint64_t hash = hash_bytes(key, len);
    h->slots[free_slot(h, hash)] = (hashmap_slot){key, len, value, hash};
    h->count++;
    return true;
}

/* Backward-shift deletion: later entries of the probe run move into the hole
 * when their home slot does not lie cyclically in (hole, their position]. */
void hashmap_remove(hashmap *h, const void *key, size_t len) {
    if (!h->capacity) return;
    size_t mask = h->capacity - 1, hole = find_slot(h, key, len, hash_bytes(key, len));
    if (!h->slots[hole].key) return;
    h->slots[hole].key = NULL;
    h->count--;
    for (size_t j = (hole + 1) & mask; h->slots[j].key; j = (j + 1) & mask) {
        size_t home = h->slots[j].hash & mask;
        bool stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
        if (stays) continue;
        h->slots[hole] = h->slots[j];
        h->slots[j].key = NULL;
        hole = j;
    }
}
