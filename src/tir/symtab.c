/* symtab.c — see symtab.h.  Open addressing with linear probing; the load factor
 * stays at most 1/2. */
#include "tir/symtab.h"

#include <string.h>

static uint64_t hash_bytes(const char *key, size_t len) {
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)key[i]) * 1099511628211ULL;
    return h;
}

void symtab_init(symtab *t, tilec_context *ctx) {
    memset(t, 0, sizeof *t);
    t->ctx = ctx;
}

void symtab_free(symtab *t) {
    tilec_free(t->ctx, t->slots);
    VEC_FREE(t->ctx, &t->added);
    VEC_FREE(t->ctx, &t->scopes);
    t->slots = NULL;
    t->capacity = t->count = 0;
}

static size_t find_slot(const symtab *t, const char *key, size_t len) {
    size_t mask = t->capacity - 1, i = hash_bytes(key, len) & mask;
    while (t->slots[i].key && (t->slots[i].len != len || memcmp(t->slots[i].key, key, len))) i = (i + 1) & mask;
    return i;
}

void *symtab_get(const symtab *t, const char *key, size_t len) {
    if (!t->capacity) return NULL;
    const symtab_slot *s = &t->slots[find_slot(t, key, len)];
    return s->key ? s->value : NULL;
}

static bool grow(symtab *t) {
    size_t capacity = t->capacity ? t->capacity * 2 : 64;
    symtab_slot *slots = tilec_alloc(t->ctx, capacity * sizeof *slots);
    if (!slots) return false;
    symtab old = *t;
    t->slots = slots;
    t->capacity = capacity;
    for (size_t i = 0; i < old.capacity; i++)
        if (old.slots[i].key) t->slots[find_slot(t, old.slots[i].key, old.slots[i].len)] = old.slots[i];
    tilec_free(t->ctx, old.slots);
    return true;
}

bool symtab_put(symtab *t, const char *key, size_t len, void *value) {
    if ((t->count + 1) * 2 > t->capacity && !grow(t)) return false;
    symtab_slot slot = {key, len, value};
    if (t->scopes.len && !VEC_PUSH(t->ctx, &t->added, slot)) return false;
    t->slots[find_slot(t, key, len)] = slot;
    t->count++;
    return true;
}

/* Backward-shift deletion: later entries of the probe run move into the hole
 * when their home slot does not lie cyclically in (hole, their position]. */
static void remove_key(symtab *t, const char *key, size_t len) {
    size_t mask = t->capacity - 1, hole = find_slot(t, key, len);
    if (!t->slots[hole].key) return;
    t->slots[hole].key = NULL;
    t->count--;
    for (size_t j = (hole + 1) & mask; t->slots[j].key; j = (j + 1) & mask) {
        size_t home = hash_bytes(t->slots[j].key, t->slots[j].len) & mask;
        bool stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
        if (stays) continue;
        t->slots[hole] = t->slots[j];
        t->slots[j].key = NULL;
        hole = j;
    }
}

bool symtab_push_scope(symtab *t) { return VEC_PUSH(t->ctx, &t->scopes, t->added.len); }

void symtab_pop_scope(symtab *t) {
    if (!t->scopes.len) return;
    size_t mark = VEC_POP(&t->scopes);
    while (t->added.len > mark) {
        symtab_slot s = VEC_POP(&t->added);
        remove_key(t, s.key, s.len);
    }
}
