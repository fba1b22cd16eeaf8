/* interp_impl.h — internals of the W-lane XIR interpreter, shared by interp.c
 * (API, arguments, packets, warp exchanges), interp_prepare.c (structural
 * checks and PHI edge tables), interp_exec.c (one lane's execution and its
 * memory) and interp_value.c (cells in memory).
 *
 * Cells: every scalar SSA value of a lane is one scalar_cell in the cell form
 * of xir/eval.h, which also defines every scalar operation on it: signed
 * integers are sign-extended in `i`, unsigned integers zero-extended in `u`,
 * bool is u=0/1, f64 is `f`, and f32 is its 32-bit IEEE pattern zero-extended
 * in `u` (so moves — PHIs, select, loads, stores, warp exchanges, bitcasts —
 * keep every bit, signalling NaNs included).  A local array value is the
 * index of the lane's allocation record in `u`; a pointer packs
 * (record << 32) | element index.
 * Cells never cross lanes except scalars through warp_read_lane. */
#ifndef TILEC_XIR_INTERP_IMPL_H
#define TILEC_XIR_INTERP_IMPL_H

#include "xir/eval.h" /* cells and their scalar semantics */
#include "xir/interp.h"

/* An array larger than this many elements is refused (pointers hold a 32-bit
 * element index). */
#define XI_MAX_ARRAY_COUNT UINT32_MAX
/* Allocations one lane may make during its run (each execution of an alloca
 * is one, also for zero-element arrays). */
#define XI_MAX_ALLOCATIONS (UINT32_C(1) << 20)

/* The PHI assignments made when control flows along one CFG edge. */
typedef struct {
    uint32_t count;
    const xir_inst **phis;
    const xir_value **sources;
} xi_edge;

/* Per block (indexed by block id), built by preparation. */
typedef struct {
    bool listed;             /* the block is in the function's block list */
    const xir_inst *body;    /* first non-PHI instruction */
    xi_edge edges[2];        /* one per terminator target */
} xi_block;

/* One local array of a lane: `count` elements of `elem` at mem + offset,
 * followed by `count` written flags (0 = never stored). */
typedef struct {
    size_t offset;
    uint32_t count;
    tir_scalar elem;
} xi_array;

typedef enum { XI_RUNNING, XI_BLOCKED, XI_RETURNED } xi_status;

typedef struct {
    uint32_t lane, dispatch_id;
    xi_status status;
    scalar_cell *values;     /* [func->next_value_id] */
    unsigned char *defined;  /* [func->next_value_id]: assigned in this run */
    const xir_block *block;  /* the block being executed */
    const xir_inst *pc;      /* the next instruction (the blocking one when BLOCKED) */
    unsigned char *mem;      /* private arrays, grown on demand */
    size_t mem_used, mem_cap;
    uint64_t private_bytes;  /* charged against max_private_bytes */
    VEC(xi_array) arrays;
} xi_lane;

typedef struct {
    tilec_context *ctx;
    const xir_func *func;
    xir_interp_options options;
    uint32_t dispatch_size, width, block_size;
    const tir_buffer *args;
    arena arena;             /* everything below except lane memory */
    xi_block *blocks;        /* [func->next_block_id] */
    uint32_t max_phis;       /* the most PHIs of one block */
    scalar_cell *scratch;    /* [max(max_phis, width)]: parallel-copy staging */
    xi_lane *lanes;          /* [width] */
    uint32_t active;         /* lanes of the current packet that run */
    uint64_t steps;
} xi_run;

/* ---- labels for diagnostics ---- */
/* "%name" or "%<id>" for instructions and arguments, "const" otherwise. */
const char *xi_value_label(const xir_value *v, char *buf, size_t n);
/* "'name'" or "#id". */
const char *xi_block_label(const xir_block *b, char *buf, size_t n);

/* ---- preparation (interp_prepare.c) ---- */
/* Checks everything execution relies on and builds the block table and PHI
 * edge tables; XIR-I03 on malformed input. */
tilec_status xi_prepare(xi_run *r);

/* ---- execution (interp_exec.c) ---- */
/* Resets a lane for a fresh run of the function as dispatch id `dispatch_id`. */
void xi_lane_start(xi_run *r, xi_lane *lane, uint32_t dispatch_id);
/* Runs a RUNNING lane until it returns or reaches a warp_read_lane. */
tilec_status xi_lane_run(xi_run *r, xi_lane *lane);
/* Reads an operand value in a lane (XIR-I10 if it has no value there yet). */
tilec_status xi_read(xi_run *r, xi_lane *lane, const xir_inst *user, const xir_value *v, scalar_cell *out);
void xi_define(xi_lane *lane, const xir_inst *inst, scalar_cell value);
/* Counts one executed instruction against the step budget (XIR-I05). */
tilec_status xi_count_step(xi_run *r, const xi_lane *lane, const xir_inst *inst);
/* A runtime diagnostic naming the instruction, its block and the lane. */
tilec_status xi_fail(xi_run *r, const xi_lane *lane, const xir_inst *inst, tilec_status status, const char *code,
                     const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* ---- cells in memory (interp_value.c) ---- */
/* Native-endian element encoding (bool bytes read as nonzero → 1). */
scalar_cell xi_load_elem(tir_scalar t, const unsigned char *p);
void xi_store_elem(tir_scalar t, unsigned char *p, scalar_cell x);
/* An integer cell as an index: false when negative. */
bool xi_index(tir_scalar t, scalar_cell x, uint64_t *out);

#endif
