/* record_kernel.h — a C kernel entry with the packet ABI that records how it
 * was run: per block the execution count, the workspace pointer and the
 * thread; per element the write count.  Buffers (all sized by
 * record_bind): 0 block counts (u32, atomic), 1 element counts (u32,
 * atomic), 2 workspace pointer per block (u64), 3 thread per block (u8
 * bytes holding pthread_t).  Shared by the runtime tests. */
#ifndef TILEC_TEST_RT_RECORD_KERNEL_H
#define TILEC_TEST_RT_RECORD_KERNEL_H

#include "rt/dispatch.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { RECORD_ARGS = 4 };

static void record_entry(const rt_buffer *args, uint32_t block_begin, uint32_t block_end, uint32_t dispatch_size,
                         void *workspace, fault_record *faults) {
    (void)faults;
    _Atomic uint32_t *block_runs = args[0].data;
    _Atomic uint32_t *element_writes = args[1].data;
    uint64_t *workspaces = args[2].data;
    pthread_t *threads = args[3].data;
    uint32_t block_size = (uint32_t)(args[1].size_bytes / sizeof(uint32_t)) / (uint32_t)(args[0].size_bytes / sizeof(uint32_t));
    for (uint32_t b = block_begin; b < block_end; b++) {
        atomic_fetch_add(&block_runs[b], 1);
        workspaces[b] = (uint64_t)(uintptr_t)workspace;
        threads[b] = pthread_self();
        for (uint32_t i = b * block_size; i < (b + 1) * block_size && i < dispatch_size; i++)
            atomic_fetch_add(&element_writes[i], 1);
    }
}

/* Recording buffers for `blocks` blocks of `block_size` workers. */
typedef struct {
    uint32_t blocks, block_size, dispatch_size;
    _Atomic uint32_t *block_runs, *element_writes;
    uint64_t *workspaces;
    pthread_t *threads;
    rt_param params[RECORD_ARGS];
    rt_arg args[RECORD_ARGS];
    rt_kernel kernel;
} record;

/* dispatch_size = blocks·block_size − ragged (a short last block). */
static void record_init(record *r, uint32_t blocks, uint32_t block_size, uint32_t ragged) {
    memset(r, 0, sizeof *r);
    r->blocks = blocks;
    r->block_size = block_size;
    r->dispatch_size = blocks * block_size - ragged;
    size_t n = (size_t)blocks * block_size;
    r->block_runs = calloc(blocks, sizeof *r->block_runs);
    r->element_writes = calloc(n, sizeof *r->element_writes);
    r->workspaces = calloc(blocks, sizeof *r->workspaces);
    r->threads = calloc(blocks, sizeof *r->threads);
    uint64_t sizes[RECORD_ARGS] = {blocks * sizeof(uint32_t), n * sizeof(uint32_t), blocks * sizeof(uint64_t),
                                   blocks * sizeof(pthread_t)};
    void *data[RECORD_ARGS] = {(void *)r->block_runs, (void *)r->element_writes, r->workspaces, r->threads};
    tir_scalar elems[RECORD_ARGS] = {TIR_U32, TIR_U32, TIR_U64, TIR_U8};
    for (int i = 0; i < RECORD_ARGS; i++) {
        r->params[i] = (rt_param){elems[i], sizes[i]};
        r->args[i] = (rt_arg){data[i], sizes[i], elems[i]};
    }
    r->kernel = (rt_kernel){.name = "record", .entry = record_entry, .arg_count = RECORD_ARGS, .params = r->params,
                            .dispatch_size = r->dispatch_size, .block_size = block_size};
}

static void record_reset(record *r) {
    for (uint32_t b = 0; b < r->blocks; b++) atomic_store(&r->block_runs[b], 0);
    for (uint32_t i = 0; i < r->blocks * r->block_size; i++) atomic_store(&r->element_writes[i], 0);
    memset(r->workspaces, 0, r->blocks * sizeof *r->workspaces);
}

/* Every block ran once, every element below dispatch_size was written once
 * and none beyond it. */
static int record_exactly_once(const record *r) {
    for (uint32_t b = 0; b < r->blocks; b++)
        if (atomic_load(&r->block_runs[b]) != 1) return 0;
    for (uint32_t i = 0; i < r->blocks * r->block_size; i++)
        if (atomic_load(&r->element_writes[i]) != (i < r->dispatch_size ? 1u : 0u)) return 0;
    return 1;
}

static void record_free(record *r) {
    free((void *)r->block_runs);
    free((void *)r->element_writes);
    free(r->workspaces);
    free(r->threads);
}

#endif
