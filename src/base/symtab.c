/* symtab.c — see symtab.h.  The map is base/hashmap; a key is logged only
 * while a scope is open, so a scope-less table costs nothing extra. */
#include "base/symtab.h"

#include <string.h>

void symtab_init(symtab *t, tilec_context *ctx) {
    memset(t, 0, sizeof *t);
    t->ctx = ctx;
    hashmap_init(&t->map, ctx);
}

void symtab_free(symtab *t) {
    hashmap_free(&t->map);
    VEC_FREE(t->ctx, &t->added);
    VEC_FREE(t->ctx, &t->scopes);
}

void *symtab_get(const symtab *t, const char *key, size_t len) { return hashmap_get(&t->map, key, len); }

bool symtab_put(symtab *t, const char *key, size_t len, void *value) {
    if (t->scopes.len && !VEC_PUSH(t->ctx, &t->added, ((symtab_key){key, len}))) return false;
    if (hashmap_put(&t->map, key, len, value)) return true;
    if (t->scopes.len) t->added.len--;
    return false;
}

bool symtab_push_scope(symtab *t) { return VEC_PUSH(t->ctx, &t->scopes, t->added.len); }

void symtab_pop_scope(symtab *t) {
    if (!t->scopes.len) return;
    size_t mark = VEC_POP(&t->scopes);
    while (t->added.len > mark) {
        symtab_key k = VEC_POP(&t->added);
        hashmap_remove(&t->map, k.key, k.len);
    }
}
