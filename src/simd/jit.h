/* jit.h — the LLVM side of the SIMD backend: host target facts, the
 * optimization pipeline, SLEEF symbol binding and ORC LLJIT.  Only src/simd
 * includes LLVM headers. */
#ifndef TILEC_SIMD_JIT_H
#define TILEC_SIMD_JIT_H

#include "base/context.h"
#include "base/strbuf.h"

#include <llvm-c/Core.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/TargetMachine.h>

/* The CPU code is generated for: its triple, name and feature string
 * (LLVM-owned messages, freed by jit_host_free), the facts the emitter
 * asks, and the vector unit the planner sees (f32 lanes of one register,
 * registers).  The described host's (base/host.h), or a named one
 * (ahead-of-time objects). */
typedef struct {
    char *triple, *cpu, *features;
    bool avx512f, avx2, sse4a, f16c;
    bool avx512bf16, avx512vnni, avx512vl; /* the dots (xir.h): 16 lanes with the feature, 4 and 8 with VL too */
    uint32_t lanes, registers;
} jit_host;

/* Initializes LLVM's native target once per process (thread-safe), then
 * queries the host and applies the host description (TILEC_HOST): a
 * profile's CPU name, and this machine's features less the vector ISA the
 * profile lacks.  False when LLVM has no native target, a query failed or
 * TILEC_HOST is malformed; jit_host_free is still due. */
bool jit_host_init(jit_host *h);
/* A named x86-64 CPU level ("x86-64-v2", "x86-64-v3", "x86-64-v4") on the
 * host's triple; false for any other name (or as jit_host_init). */
bool jit_host_init_named(jit_host *h, const char *cpu);
void jit_host_free(jit_host *h);

/* A SLEEF entry point by its symbol name ("Sleef_expf16_u10"); NULL if unknown. */
void *jit_sleef_address(const char *name);

typedef struct {
    LLVMOrcLLJITRef jit;
    LLVMOrcThreadSafeContextRef tsc; /* the context modules are built in */
    double optimize_ms;              /* jit_compile_object's LLVM pipeline */
} jit_session;

/* Creates the thread-safe context to build a module in. */
LLVMContextRef jit_begin(jit_session *s);
/* Optimizes `m` (default<O3> for the host; its time in s->optimize_ms),
 * optionally captures its IR and assembly text, and appends the host object
 * code to `object`.  Takes `m` in every case.  On failure appends SIMD-J01
 * and returns false. */
bool jit_compile_object(tilec_context *ctx, jit_session *s, const jit_host *h, LLVMModuleRef m, strbuf *ir_text,
                        strbuf *asm_text, strbuf *object);
/* The same for an object file a C program links (ahead of time):
 * position-independent code for h's CPU, no IR or assembly capture. */
bool jit_compile_pic_object(tilec_context *ctx, const jit_host *h, LLVMModuleRef m, strbuf *object);
/* Links object code (what jit_compile_object made, in this process or an
 * earlier one: the kernel cache) into a new LLJIT of `s` with the SLEEF
 * symbols in `sleef` bound and looks up `entry`: its address, or 0 after a
 * SIMD-J01 diagnostic. */
uint64_t jit_link(tilec_context *ctx, jit_session *s, const jit_host *h, const char *object, size_t len,
                  const char *entry, const char *const *sleef, size_t n_sleef);
void jit_destroy(jit_session *s);

#endif
