/* reference.h — independent hand-written C references for the bundled example
 * kernels (examples/NAME.tir).  They do not use TileIR: each computes, in FP64 and
 * with plain loops, what its kernel should store, so `tilec demo` and the tests
 * can check the reference interpreter (and later native code) against them.
 *
 * A reference reads the kernel's shape parameters (M, N, K, ...) from the parsed
 * function and the initial contents of every argument, and fills `expected[i]`
 * for every writable parameter i (a row-major array of the view's volume,
 * pre-filled by the caller with that argument's initial contents converted to
 * double); expected[i] is NULL for const parameters. */
#ifndef TILEC_EXAMPLES_REFERENCE_H
#define TILEC_EXAMPLES_REFERENCE_H

#include "tilec/tir.h"
#include <stdbool.h>

typedef bool (*example_reference_fn)(const tir_func *f, const void *const *args, double *const *expected);

typedef struct {
    const char *name; /* file stem in examples/ and kernel name */
    example_reference_fn reference;
} example_entry;

extern const example_entry example_table[];
extern const size_t example_count;

const example_entry *example_find(const char *name);
/* The value of shape parameter `name` of f, or `fallback` when f has none. */
int64_t example_shape(const tir_func *f, const char *name, int64_t fallback);

#endif
