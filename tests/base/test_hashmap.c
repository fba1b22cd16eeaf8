/* The hash map (base/hashmap.h) and the scoped name table built on it
 * (base/symtab.h): random puts, gets and removes against a plain array,
 * zero-length and binary keys, long collision-free runs of near-identical
 * keys, one million keys (the map must stay linear; nothing here is timed),
 * allocation failure during growth leaving the map intact, and scope pops. */
#include "base/hashmap.h"
#include "base/symtab.h"
#include "harness.h"

#include <stdint.h>
#include <stdio.h>

static tilec_context *ctx;

/* A small deterministic generator (xorshift64*). */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t next_random(void) {
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}

/* Keys 0..N-1 as 8-byte values; present[k] says whether key k is in the map,
 * and its value is &keys[k]. */
enum { RANDOM_KEYS = 4096 };
static uint64_t keys[RANDOM_KEYS];
static bool present[RANDOM_KEYS];

static void test_random_against_array(void) {
    hashmap h;
    hashmap_init(&h, ctx);
    for (size_t k = 0; k < RANDOM_KEYS; k++) keys[k] = k * 0x100000001ULL; /* low and high bits alike */
    size_t count = 0;
    for (int step = 0; step < 200000; step++) {
        size_t k = next_random() % RANDOM_KEYS;
        switch (next_random() % 3) {
        case 0:
            if (!present[k]) {
                CHECK(hashmap_put(&h, &keys[k], sizeof keys[k], &keys[k]));
                present[k] = true;
                count++;
            }
            break;
        case 1:
            hashmap_remove(&h, &keys[k], sizeof keys[k]);
            if (present[k]) count--;
            present[k] = false;
            break;
        default: {
            uint64_t probe = keys[k]; /* a different address with the same bytes */
            void *got = hashmap_get(&h, &probe, sizeof probe);
            CHECK(got == (present[k] ? &keys[k] : NULL));
        }
        }
        CHECK(h.count == count);
    }
    size_t listed = 0;
    for (size_t i = 0; i < h.capacity; i++)
        if (h.slots[i].key) {
            listed++;
            const uint64_t *key = h.slots[i].key;
            CHECK(present[key - keys] && h.slots[i].value == key);
        }
    CHECK(listed == count);
    for (size_t k = 0; k < RANDOM_KEYS; k++) CHECK((hashmap_get(&h, &keys[k], 8) != NULL) == present[k]);
    hashmap_free(&h);
}

static void test_key_shapes(void) {
    hashmap h;
    hashmap_init(&h, ctx);
    static const char bytes[] = "ab\0cd";
    int a = 1, b = 2, c = 3, d = 4;
    CHECK(hashmap_get(&h, "", 0) == NULL); /* empty map */
    hashmap_remove(&h, "x", 1);            /* removing from an empty map */
    CHECK(hashmap_put(&h, bytes, 0, &a));  /* the empty key */
    CHECK(hashmap_put(&h, bytes, 2, &b));  /* "ab" */
    CHECK(hashmap_put(&h, bytes, 3, &c));  /* "ab\0": a prefix is another key */
    CHECK(hashmap_put(&h, bytes, 5, &d));  /* embedded NUL */
    CHECK(hashmap_get(&h, "zz", 0) == &a);
    CHECK(hashmap_get(&h, "ab", 2) == &b);
    CHECK(hashmap_get(&h, "ab\0", 3) == &c);
    CHECK(hashmap_get(&h, "ab\0cd", 5) == &d);
    CHECK(hashmap_get(&h, "ab\0ce", 5) == NULL);
    CHECK(hashmap_get(&h, "a", 1) == NULL);
    hashmap_remove(&h, "ab\0", 3);
    CHECK(hashmap_get(&h, "ab\0", 3) == NULL && hashmap_get(&h, "ab", 2) == &b && h.count == 3);
    hashmap_free(&h);
    CHECK(h.count == 0 && h.capacity == 0 && hashmap_get(&h, "ab", 2) == NULL);
}

/* One million 16-byte keys that differ only in a few bits (the shape of the
 * interned (type, bits) constant keys that once all fell into one bucket). */
static void test_million_keys(void) {
    enum { N = 1000000 };
    uint64_t (*store)[2] = malloc(sizeof *store * N);
    CHECK(store != NULL);
    if (!store) return;
    hashmap h;
    hashmap_init(&h, ctx);
    bool ok = true;
    for (size_t i = 0; i < N && ok; i++) {
        double f = (double)i; /* integral doubles: the low 32 bits are zero */
        memcpy(&store[i][0], &f, sizeof f);
        store[i][1] = 0x1000;
        ok = hashmap_get(&h, store[i], sizeof store[i]) == NULL && hashmap_put(&h, store[i], sizeof store[i], store[i]);
    }
    CHECK(ok && h.count == N);
    CHECK((h.capacity & (h.capacity - 1)) == 0 && h.capacity >= 2 * (size_t)N);
    size_t found = 0;
    for (size_t i = 0; i < N; i++) {
        uint64_t probe[2] = {store[i][0], store[i][1]};
        found += hashmap_get(&h, probe, sizeof probe) == store[i];
    }
    CHECK(found == N);
    hashmap_free(&h);
    free(store);
}

/* A growth that cannot allocate fails the put and keeps every entry. */
static void test_growth_failure(void) {
    hashmap h;
    hashmap_init(&h, ctx);
    static uint32_t values[64];
    size_t k = 0;
    for (; k < 32; k++) {
        values[k] = (uint32_t)k;
        CHECK(hashmap_put(&h, &values[k], 4, &values[k]));
    }
    size_t capacity = h.capacity;
    values[k] = (uint32_t)k;
    tilec_context_fail_allocation_after(ctx, 0);
    CHECK(!hashmap_put(&h, &values[k], 4, &values[k]));
    tilec_context_fail_allocation_after(ctx, -1);
    CHECK(h.count == 32 && h.capacity == capacity && hashmap_get(&h, &values[k], 4) == NULL);
    for (size_t i = 0; i < 32; i++) CHECK(hashmap_get(&h, &values[i], 4) == &values[i]);
    CHECK(hashmap_put(&h, &values[k], 4, &values[k]) && hashmap_get(&h, &values[k], 4) == &values[k]);
    hashmap_free(&h);
}

static void test_symtab_scopes(void) {
    symtab t;
    symtab_init(&t, ctx);
    int outer = 1, inner = 2, deep = 3;
    CHECK(symtab_put(&t, "x", 1, &outer));
    CHECK(symtab_push_scope(&t));
    CHECK(symtab_put(&t, "y", 1, &inner));
    CHECK(symtab_push_scope(&t));
    CHECK(symtab_put(&t, "z", 1, &deep));
    CHECK(symtab_get(&t, "x", 1) == &outer && symtab_get(&t, "y", 1) == &inner && symtab_get(&t, "z", 1) == &deep);
    symtab_pop_scope(&t);
    CHECK(symtab_get(&t, "z", 1) == NULL && symtab_get(&t, "y", 1) == &inner);
    /* A put that fails inside a scope (here: the map must grow at 32 keys) is
     * not logged, so the pop removes only keys that are there. */
    static char names[64][24];
    for (size_t i = 0; t.map.count < 32; i++) {
        snprintf(names[i], sizeof names[i], "n%zu", i);
        CHECK(symtab_put(&t, names[i], strlen(names[i]), &deep));
    }
    size_t logged = t.added.len;
    tilec_context_fail_allocation_after(ctx, 0);
    bool put = symtab_put(&t, "w", 1, &deep);
    tilec_context_fail_allocation_after(ctx, -1);
    CHECK(!put && symtab_get(&t, "w", 1) == NULL && t.added.len == logged);
    symtab_pop_scope(&t);
    CHECK(symtab_get(&t, "y", 1) == NULL && symtab_get(&t, "n0", 2) == NULL);
    CHECK(symtab_get(&t, "x", 1) == &outer && t.map.count == 1);
    symtab_pop_scope(&t); /* no open scope: nothing happens */
    CHECK(symtab_get(&t, "x", 1) == &outer);
    symtab_free(&t);
}

int main(void) {
    CHECK(tilec_context_create(NULL, &ctx) == TILEC_OK);
    test_random_against_array();
    test_key_shapes();
    test_million_keys();
    test_growth_failure();
    test_symtab_scopes();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
