/* sizes.h — the sizes a dispatch computes from a kernel's runtime sizes
 * (docs/tir.md "Runtime sizes"): the dispatch size and the bytes of each
 * argument of a kernel compiled for a range, as small postfix programs over
 * the dims the caller passes.  The driver writes them from the kernel's
 * extent forms (driver/sizes.c); the runtime evaluates them with checked
 * 64-bit arithmetic and knows nothing of TileIR. */
#ifndef TILEC_RT_SIZES_H
#define TILEC_RT_SIZES_H

#include <stdbool.h>
#include <stdint.h>

/* One step: CONST pushes arg, DIM pushes dims[arg]; the others pop b then a
 * and push a op b (DIV, MOD truncate; CEIL_DIV rounds toward +∞). */
typedef enum {
    RT_SIZE_CONST,
    RT_SIZE_DIM,
    RT_SIZE_ADD,
    RT_SIZE_MUL,
    RT_SIZE_DIV,
    RT_SIZE_CEIL_DIV,
    RT_SIZE_MOD,
    RT_SIZE_MIN,
    RT_SIZE_MAX
} rt_size_op;

typedef struct {
    int64_t arg;
    uint32_t op;
} rt_size_step;

/* count 0: no program (the size is static). */
typedef struct {
    const rt_size_step *steps;
    uint32_t count;
} rt_size;

enum { RT_SIZE_MAX_DEPTH = 32, RT_MAX_DIMS = 16 /* runtime sizes per kernel (tir/ir.h TIR_MAX_SYMBOLS) */ };

/* The program's value at `dims` (dim_count of them); false when it
 * overflows, divides by zero, reads a dim past dim_count or is malformed. */
bool rt_size_eval(const rt_size *s, const int64_t *dims, uint32_t dim_count, int64_t *out);
/* A number no other program with size programs has: what a thread's cache
 * of the last sizes it computed is keyed by (rt/program.c). */
uint64_t rt_size_serial(void);

#endif
