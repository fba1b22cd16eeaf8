/* symtab.h — a hash map from byte strings to pointers, with scopes, shared by the
 * text parser (visible value names, dim labels, shape parameters) and printer
 * (names already taken).  Keys are not copied: the caller keeps each key's bytes
 * alive while it is in the table.  Scopes nest: symtab_pop_scope removes every
 * key added since the matching symtab_push_scope (removal is backward-shift
 * deletion, so lookups stay correct after any sequence of inserts and pops). */
#ifndef TILEC_TIR_SYMTAB_H
#define TILEC_TIR_SYMTAB_H

#include "base/vec.h"
#include <stdbool.h>
#include <stddef.h>

typedef struct {
    const char *key; /* NULL: empty slot */
    size_t len;
    void *value;
} symtab_slot;

typedef struct {
    tilec_context *ctx;
    symtab_slot *slots;
    size_t capacity, count; /* capacity is 0 or a power of two */
    VEC(symtab_slot) added; /* insertion log, for scope pops */
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
