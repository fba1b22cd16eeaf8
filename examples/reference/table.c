/* table.c — the list of examples with references, and shape lookup. */
#include "reference.h"

#include <string.h>

const example_entry example_table[] = {
    {NULL, NULL},
};
const size_t example_count = 0;

const example_entry *example_find(const char *name) {
    for (size_t i = 0; i < example_count; i++)
        if (!strcmp(example_table[i].name, name)) return &example_table[i];
    return NULL;
}

int64_t example_shape(const tir_func *f, const char *name, int64_t fallback) {
    for (size_t i = 0; i < tir_func_shape_param_count(f); i++) {
        int64_t value;
        const char *p = tir_func_shape_param(f, i, &value);
        if (!strcmp(p, name)) return value;
    }
    return fallback;
}
