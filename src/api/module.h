/* module.h — the layout of a module (include/tilec/module.h), shared by
 * its builder and runner (module.c) and its ahead-of-time writer
 * (module_aot.c).
 *
 * Invariants once finished: every step's kernel sizes lie in its kernel's
 * ranges at every module size; each temporary has a 64-byte aligned slot
 * of its own in the arena, as large as its largest use; each constant is
 * bound to at least the bytes its steps read. */
#ifndef TILEC_API_MODULE_H
#define TILEC_API_MODULE_H

#include "driver/pipeline.h"
#include "tilec/module.h"

#include "base/vec.h"

#include <stdatomic.h>

typedef struct {
    char *name;
    tilec_value_kind kind;
    tir_scalar elem;
    uint32_t arg;          /* an input's or output's place among the run's arguments */
    uint64_t offset;       /* a temporary's in the arena */
    uint64_t bytes;        /* the most any step touches (at finish): a temporary's slot, a constant's need */
    tilec_buffer bound;    /* a constant's bytes (data NULL: unbound) */
} mod_value;

typedef struct {
    tilec_kernel *k;
    uint32_t n_args, n_sizes;
    uint32_t *values;       /* [n_args] */
    tilec_buffer *bufs;     /* [n_args]: temporaries and constants filled at finish, the rest at each run */
    tilec_step_size sizes[TIR_MAX_SYMBOLS];
    double ms;              /* the time its runs took, while the module is timed */
    /* constants packed once (tilec_module_pack_constants): per variant of
     * the kernel (its buckets' kernels in order, or the kernel itself), the
     * panels of each pack whose source is a constant (data NULL: packed at
     * each run); NULL when none was */
    rt_arg (*panels)[RT_MAX_PACKS];
    rt_arg *rt_args; /* [n_args], with panels: the run's arguments as the runtime takes them */
} mod_step;

struct tilec_module {
    tilec_context *ctx; /* what it allocates through */
    char *name;
    uint32_t dim_count;
    rt_dim dims[TIR_MAX_SYMBOLS];
    VEC(mod_value) values;
    VEC(mod_step) steps;
    VEC(uint32_t) args; /* the inputs' and outputs' value numbers, in order */
    bool finished;
    void *arena_block, *arena; /* what was allocated; it aligned up to 64 */
    uint64_t arena_bytes;
    bool timed; /* tilec_module_time */
    bool pack_constants;      /* tilec_module_pack_constants */
    VEC(void *) panel_blocks; /* what the packed constants' panels were allocated as */
    uint64_t packed_bytes;
    atomic_flag busy;
};

#endif
