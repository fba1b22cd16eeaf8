/* symtab.h — a name table with scopes (base/hashmap.h plus an insertion log),
 * shared by the text parsers (visible value names, dim labels, shape
 * parameters) and printers (names already taken).  Keys are not copied: the
 * caller keeps each key's bytes alive while it is in the table.  Scopes nest:
 * symtab_pop_scope removes every key added since the matching
 * symtab_push_scope. */
#ifndef TILEC_BASE_SYMTAB_H
#define TILEC_BASE_SYMTAB_H

#include "base/hashmap.h"
#include "base/vec.h"
#include <stdbool.h>
#include <stddef.h>

typedef struct {
    const char *key;
    size_t len;
} symtab_key;

typedef struct {
    tilec_context *ctx;
    hashmap map;
    VEC(symtab_key) added;  /* insertion log, for scope pops */
    VEC(size_t) scopes;     /* added.len at each open scope */
} symtab;

void symtab_init(symtab *t, tilec_context *ctx);
void symtab_free(symtab *t);
/* NULL when absent. */
void *symtab_get(const symtab *t, const char *key, size_t len);
/* Adds a key that is not present; false only on allocation failure. */
bool symtab_put(symtab *t, const char *key, size_t len, void *value);
bool symtab_push_scope(symtab *t);
void symtab_pop_scope(symtab *t);

#endif
