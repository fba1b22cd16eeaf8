/* simd.h — the SIMD CPU backend (docs/simd.md): compiles one verified XIR
 * kernel (lowering + xir_cleanup output) to native vector code for packets of
 * W lanes through LLVM 19 and ORC LLJIT, and returns a callable packet entry.
 *
 * Packet ABI (one exported entry per kernel):
 *   void entry(const simd_buffer_arg *args, uint32_t block_begin,
 *              uint32_t block_end, uint32_t dispatch_size, void *workspace,
 *              fault_record *faults);
 * walks blocks [block_begin, block_end) and, inside each block of B workers,
 * packets of W lanes; lanes whose dispatch id (block·B + worker) is
 * ≥ dispatch_size are inactive (their memory effects do not happen) —
 * except in a packet-local kernel (required_packet_width) with full-packet
 * specialization, whose every packet with a first lane below dispatch_size
 * runs all W lanes: the packet is one whole program (its dispatch_size is
 * programs × W, so every packet is complete anyway).  The
 * entry never checks buffer sizes: the caller (the runtime's dispatch) does.
 * `workspace` must point to simd_kernel_workspace_bytes(k) bytes, 64-byte
 * aligned, private to the calling thread (NULL when that is 0): private
 * arrays above 64 KiB per packet live there (reused packet after packet).
 * `faults` must point to a record shared by every call of one dispatch
 * (zeroed before it): `fault` instructions report there (base/fault.h).
 *
 * Errors are values: simd_compile returns a status and appends a diagnostic
 * (SIMD-U.. unsupported control flow, SIMD-M.. memory limits, SIMD-O..
 * options, SIMD-J.. LLVM/JIT failures). */
#ifndef TILEC_SIMD_SIMD_H
#define TILEC_SIMD_SIMD_H

#include "base/fault.h"
#include "base/strbuf.h"
#include "tilec/tilec.h"
#include "xir/xir.h"

/* One buffer argument of the packet entry (data already offset by a view). */
typedef struct {
    void *data;
    uint64_t size_bytes;
} simd_buffer_arg;

typedef void (*simd_entry_fn)(const simd_buffer_arg *args, uint32_t block_begin, uint32_t block_end,
                              uint32_t dispatch_size, void *workspace, fault_record *faults);

/* What earlier stages decided about the kernel the backend compiles; the
 * compile options themselves (full_packet_specialization, capture_ir,
 * capture_asm) are read from the record (tilec_compile_options).  All zero:
 * the environment's or the host's width, any width, no streaming stores,
 * arguments that may alias. */
typedef struct {
    uint32_t width;    /* 0: TILEC_SIMD_WIDTH, else the host's (simd_host_width); else 1/2/4/8/16 */
    /* 0: the kernel runs at any width; else the only width it was lowered
     * for (a packet-local kernel: lower_result.required_packet_width), and
     * compiling it at another one is refused (SIMD-O04). */
    uint32_t required_packet_width;
    /* Bit a (a < 64): contiguous stores of every lane to buffer argument a
     * (a packet of 16, 32 or 64 bytes; the all-active body only) are
     * non-temporal where the address is 16-byte aligned (8-byte aligned on
     * an SSE4A host, in 8-byte pieces), bypassing the caches
     * for an output that will not stay in them; the entry then ends with a
     * fence (docs/simd.md "Streaming stores"). */
    uint64_t streaming_args;
    /* Bit a (a < 64): buffer argument a overlaps no other argument whenever
     * the kernel runs (the dispatch guarantees it: lower_arg.disjoint), so
     * its writes may move past accesses of other buffers (pair stores,
     * docs/simd.md "Memory"). */
    uint64_t apart_args;
} simd_facts;

/* Static access-realization counts of one compiled kernel: X(name). */
#define SIMD_COUNTERS(X) \
    X(contiguous_loads) X(contiguous_stores) X(broadcast_loads) X(uniform_stores) X(gathers) X(scatters) \
    X(pair_loads) X(pair_stores) X(joined_pair_stores) \
    X(private_vector_accesses) X(private_gather_scatters) X(predicated_regions) X(skippable_blocks) X(private_bytes) \
    X(math_calls) X(full_packet_bodies) X(workspace_bytes) X(streaming_stores)

typedef struct {
#define X(name) uint64_t name;
    SIMD_COUNTERS(X)
#undef X
} simd_counters;

typedef struct simd_kernel simd_kernel;

/* The packet width of the described host (base/host.h): 16 with AVX-512F,
 * 8 with AVX2, else 4. */
uint32_t simd_host_width(void);
/* The LLVM CPU name code is generated for and the features it enables
 * ("+avx2,+fma,..."), for the described host; false (nothing appended)
 * when the host cannot be queried or TILEC_HOST is malformed. */
bool simd_host_codegen(strbuf *cpu, strbuf *features);
/* How many packets of `width` f32 lanes the host's vector registers hold:
 * 32 with AVX-512F (W <= 16), 16 with AVX2 at W <= 8 (8 at W = 16), 16 SSE
 * registers of 4 lanes otherwise. */
uint32_t simd_host_vector_registers(uint32_t width);
/* Whether the described host multiplies bf16 pairs in hardware at `width`
 * (AVX512-BF16's vdpbf16ps: 16 lanes with AVX-512F, 4 and 8 with VL) as the
 * profile says, so plans depend on the profile only; a "-avx512bf16" item
 * turns it off. */
bool simd_host_dot_bf16(uint32_t width);
/* Likewise for u8 × i8 quads and i16 pairs into i32 (AVX512-VNNI's vpdpbusd
 * and vpdpwssd); "-avx512vnni" turns it off. */
bool simd_host_dot_int8(uint32_t width);
/* The width an option asks for: `requested` if nonzero, else a valid
 * TILEC_SIMD_WIDTH, else simd_host_width().  0 when `requested` or the
 * variable is not 1, 2, 4, 8 or 16 (SIMD-O01 is reported by simd_compile). */
uint32_t simd_resolve_width(uint32_t requested, const char *env_value);

/* Compiles `f` (f->block_size must be a multiple of W) under the compile
 * options `o` (NULL: tilec_compile_options_default()) of which it reads
 * full_packet_specialization (emit the body a second time for complete
 * packets, a constant all-true mask, and call it for every packet but a
 * dispatch's ragged tail; no effect at W = 1; a packet-local kernel gets
 * only the all-active body: each of its packets is one whole program),
 * capture_ir (keep the optimized LLVM IR text: simd_kernel_ir) and
 * capture_asm (keep the host assembly: simd_kernel_asm), with the facts `d`
 * (NULL: all zero).  On success *out owns the JIT and the code. */
tilec_status simd_compile(tilec_context *ctx, const xir_func *f, const tilec_compile_options *o, const simd_facts *d,
                          simd_kernel **out);
/* The object code of a compiled kernel and the SLEEF symbols it calls, as
 * the disk cache stores them. */
enum { SIMD_OBJECT_MAX_SLEEF = 64 };
typedef struct {
    strbuf object; /* initialized by the caller */
    char sleef[SIMD_OBJECT_MAX_SLEEF][48];
    size_t n_sleef;
    bool complete; /* all of it was kept */
} simd_object;
/* simd_compile that also keeps the object code in *keep (not with IR or
 * assembly capture: keep->complete stays false then). */
tilec_status simd_compile_keeping(tilec_context *ctx, const xir_func *f, const tilec_compile_options *o,
                                  const simd_facts *d, simd_kernel **out, simd_object *keep);
/* A kernel from object code simd_compile_keeping kept (in this process or
 * an earlier one), with its counters: linked, no LLVM pipeline. */
tilec_status simd_kernel_from_object(tilec_context *ctx, uint32_t w, uint32_t block_size, const simd_counters *counters,
                                     const char *const *sleef, size_t n_sleef, const char *object, size_t len,
                                     simd_kernel **out);
/* One more use of k (the kernel cache shares kernels); simd_kernel_destroy
 * releases one, the last frees it.  Uses belong to k's context's thread. */
simd_kernel *simd_kernel_retain(simd_kernel *k);
simd_entry_fn simd_kernel_entry(const simd_kernel *k);
uint32_t simd_kernel_width(const simd_kernel *k);
/* Per-thread workspace the entry needs (0: none; at most 16 MiB). */
uint64_t simd_kernel_workspace_bytes(const simd_kernel *k);
const simd_counters *simd_kernel_counters(const simd_kernel *k);
/* Milliseconds spent compiling: LLVM IR emission, then optimization + JIT. */
typedef struct {
    double emit_ms, jit_ms;         /* IR emission; LLVM after it (optimize + codegen) */
    double optimize_ms, codegen_ms; /* the two parts of jit_ms */
} simd_compile_times;
simd_compile_times simd_kernel_compile_times(const simd_kernel *k);
/* "key=value; " realization items (width, counters, compile time). */
const char *simd_kernel_realization(const simd_kernel *k);
/* NULL unless captured. */
const char *simd_kernel_ir(const simd_kernel *k);
const char *simd_kernel_asm(const simd_kernel *k);
void simd_kernel_destroy(simd_kernel *k);

/* Runs every block of a dispatch on the calling thread (tests, single
 * worker), with a workspace of its own, reporting faults into `faults`
 * (zeroed first); false when the workspace cannot be allocated. */
bool simd_kernel_run_all(const simd_kernel *k, const simd_buffer_arg *args, uint32_t dispatch_size,
                         fault_record *faults);

#endif
