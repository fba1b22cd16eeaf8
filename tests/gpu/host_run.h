/* host_run.h — a GPU kernel's own code run on the CPU, one thread at a time
 * (gpu/emit.h GPU_EMIT_HOST: the code the NVPTX backend emits, with the
 * thread and block ids as parameters, math through scalar SLEEF, JIT-compiled
 * for the host by the SIMD backend's JIT).  So the GPU backend's translation
 * of XIR — indices, memory, control flow, PHIs, faults, casts — is checked
 * against the reference without a GPU, for every kernel without warp
 * instructions (one program per lane).  Used by tests/gpu/test_ptx.c and
 * tests/fuzz/diff_run.c (the fuzzer's GPU route). */
#ifndef TILEC_TESTS_GPU_HOST_RUN_H
#define TILEC_TESTS_GPU_HOST_RUN_H

#include "base/fault.h"
#include "gpu/emit.h"
#include "simd/jit.h"
#include "tilec/tir.h"

#include <string.h>

typedef void (*gpu_host_thread)(void *const *buffers, uint32_t dispatch_size, fault_record *faults, uint32_t thread,
                                uint32_t block);

/* Runs f's GPU code over dispatch_size threads in blocks of f->block_size,
 * buffer argument i on args[i], faults counted into *faults.  GPU-U03 for a
 * kernel with warp instructions; SIMD-J01 when the host JIT fails. */
static inline tilec_status gpu_host_run(tilec_context *context, const xir_func *f, uint32_t dispatch_size, size_t n,
                                        const tir_buffer *args, fault_record *faults) {
    enum { MAX_BUFFERS = 64 };
    if (n > MAX_BUFFERS) return TILEC_E_ARG;
    jit_host host;
    jit_session s;
    memset(&s, 0, sizeof s);
    if (!jit_host_init(&host)) {
        jit_host_free(&host);
        return tilec_error(context, TILEC_E_UNSUPPORTED, "SIMD-J01", tilec_no_loc(), "cannot query the host CPU");
    }
    LLVMContextRef c = jit_begin(&s);
    LLVMModuleRef m = LLVMModuleCreateWithNameInContext("gpu_host", c);
    gpu_emit_info info;
    memset(&info, 0, sizeof info);
    info.mode = GPU_EMIT_HOST;
    tilec_status st = gpu_emit(context, f, m, "gpu_thread", &info);
    uint64_t address = 0;
    if (st) {
        LLVMDisposeModule(m);
    } else {
        strbuf object;
        strbuf_init(&object, context);
        const char *sleef[GPU_EMIT_MAX_SLEEF];
        for (uint32_t i = 0; i < info.n_sleef; i++) sleef[i] = info.sleef[i];
        if (jit_compile_object(context, &s, &host, m, NULL, NULL, &object))
            address = jit_link(context, &s, &host, object.data, object.len, "gpu_thread", sleef, info.n_sleef);
        strbuf_free(&object);
        if (!address) st = TILEC_E_INTERNAL;
    }
    if (address) {
        gpu_host_thread thread = (gpu_host_thread)(uintptr_t)address;
        void *buffers[MAX_BUFFERS];
        for (size_t i = 0; i < n; i++) buffers[i] = args[i].data;
        uint32_t b = f->block_size;
        for (uint64_t block = 0; block * b < dispatch_size; block++)
            for (uint32_t t = 0; t < b; t++) thread(buffers, dispatch_size, faults, t, (uint32_t)block);
    }
    jit_destroy(&s);
    jit_host_free(&host);
    return st;
}

#endif
