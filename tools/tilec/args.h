/* args.h — the kernel arguments `tilec run` and `tilec demo` pass to a kernel:
 * one zeroed buffer per view parameter (volume × element size bytes), filled
 * from .npy files or from a seeded generator, summarized and saved as .npy.
 *
 * The generator is SplitMix64 with one stream per parameter (seeded from the
 * seed and the parameter's position), so giving one parameter with --in does not
 * change the values of the others.  Floats are uniform in [-1, 1), signed
 * integers uniform in [-8, 8], unsigned integers in [0, 8], bools fair coins. */
#ifndef TILEC_CLI_ARGS_H
#define TILEC_CLI_ARGS_H

#include "base/context.h"
#include "tilec/runtime.h"
#include "tilec/tir.h"

#include <stdio.h>

typedef struct {
    const char *name; /* parameter name without '%' */
    tir_scalar elem;
    const tir_space *space;
    uint64_t volume;
    bool read_only;
} cli_param;

/* A kernel takes at most this many runtime sizes (docs/tir.md). */
enum { CLI_MAX_DIMS = 16 };

typedef struct {
    tilec_context *ctx;
    size_t count;
    cli_param *params;
    tir_buffer *buffers; /* what tir_interpret takes */
    /* The runtime sizes the buffers are shaped for, which every dispatch
     * passes (tilec_dispatch_dims); 0 for a kernel without any. */
    size_t n_dims;
    int64_t dims[CLI_MAX_DIMS];
} cli_args;

/* Allocates zeroed buffers for every parameter of f; on failure appends a
 * diagnostic (size overflow, out of memory) and leaves *out empty. */
tilec_status cli_args_create(tilec_context *ctx, const tir_func *f, cli_args *out);
void cli_args_destroy(cli_args *a);
/* A copy of a's buffers and sizes (the reference interpreter's inputs). */
tilec_status cli_args_copy(const cli_args *a, cli_args *out);
/* Before cli_args_create: whether `copies` sets of f's argument buffers (2
 * when the reference interpreter runs on a copy) fit in the memory available
 * (memory.h).  Appends TILEC-CLI05 (or TILEC-CLI02 for a size that overflows)
 * and fails when they do not. */
tilec_status cli_args_check_memory(tilec_context *ctx, const tir_func *f, unsigned copies);

/* Index of the parameter called `name` (a leading '%' is ignored), or -1. */
int cli_args_find(const cli_args *a, const char *name, size_t name_len);

void cli_args_fill_random(cli_args *a, size_t index, uint64_t seed);
/* Loads parameter `index` from a .npy file whose dtype and shape must match. */
tilec_status cli_args_load_npy(cli_args *a, size_t index, const char *path);
/* Sets every element of parameter `index` to the number `text` (an integer
 * for integer types, exactly; 0/1/true/false for bool; any float for f32/f64,
 * rounded once); a value that does not fit is TILEC-ARG01. */
tilec_status cli_args_fill_value(cli_args *a, size_t index, const char *text);
tilec_status cli_args_save_npy(cli_args *a, size_t index, const char *path);
/* ---- runtime sizes (docs/tir.md "Runtime sizes") ---- */
/* Size k of f set to v by `source` (a --dim, an --in file's shape); a
 * second source must agree (exit 1 otherwise). */
int cli_dim_set(const char *command, const tir_func *f, int64_t *dims, bool *set, size_t k, int64_t v,
                const char *source);
/* One `--dim NAME=N` of `command`: a name that is no runtime size of f
 * (exit 1, listing them; a static kernel has none), a value that is no
 * integer (usage error) or that another source set differently. */
int cli_dim_take(const char *command, const tir_func *f, const char *text, int64_t *dims, bool *set);
/* Every size of f set, else a usage error naming the first missing one
 * and how to give it (`how`). */
int cli_dims_complete(const char *command, const tir_func *f, const bool *set, const char *how);

/* The shape of the array in a .npy file (its header only); shape holds 64. */
tilec_status cli_npy_shape(tilec_context *ctx, const char *path, uint64_t *shape, size_t *rank);

/* Element i of a buffer of `elem` values, as a double. */
double cli_elem_value(const void *data, tir_scalar elem, uint64_t i);
/* Element i as text that reads back exactly: integers in full, floats with
 * the digits their type needs (9 for f32, 17 for f64), "inf", "-0", "nan". */
void cli_format_elem(char *buf, size_t size, const void *data, tir_scalar elem, uint64_t i);

/* "f32[64, 80]" into buf. */
void cli_format_type(char *buf, size_t size, tir_scalar elem, const tir_space *space);
/* Prints "%NAME: f32[4, 5] min=... max=... mean=... checksum=..." for one parameter. */
void cli_print_summary(FILE *out, const cli_args *a, size_t index);

enum { CLI_MAX_ARGS = 64 };
/* a's buffers as a kernel's arguments, typed as its parameters; false
 * (after printing why) when there are more than CLI_MAX_ARGS. */
bool cli_args_bind(const cli_args *a, tilec_buffer out[CLI_MAX_ARGS]);

#endif
