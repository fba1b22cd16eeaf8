/* aot_format.h — what an ahead-of-time object (`tilec compile`, docs/aot.md)
 * tells the runtime library, shared by its writer (aot.c) and its reader
 * (aot_run.c).
 *
 * The object's descriptor (simd/aot.h) is six 8-byte fields: the magic
 * below, the blob and its size, the packet entries and their count, and a
 * pointer slot the runtime fills with the loaded program.  The blob is, in
 * the host's byte order (an object runs where its CPU level runs: x86-64):
 *   u32 AOT_FORMAT, str features (every CPU feature the code may use, as
 *   LLVM names them: "+avx2,+fma,-avx512f,…", simd_aot_features), str tilec
 *   version, str target CPU,
 *   u32 runtime sizes, sizes × {str name, i64 lo, i64 hi},
 *   u32 buckets, buckets × {sizes × {i64 lo, i64 hi}, u32 node},
 *   u32 node count, nodes;
 * a node (an rt_program; without buckets node 0 is the kernel, with them
 * each bucket's node serves it; children have larger indices):
 *   str name, u32 entry (AOT_NONE: none), u32 arg count, u32 user args,
 *   args × {u32 elem, u64 min bytes}, u32 dispatch size, u32 block size,
 *   u64 blocks per task, u64 workspace bytes,
 *   u32 packs, packs × {u32 node, u32 packed param, u64 panels offset, u64 panels bytes},
 *   u64 scratch bytes,
 *   u32 partial node, u32 combine node, u32 carries,
 *   carries × {u64 bytes, u32 elem} (each carry's workspace, 64-byte aligned
 *   after the previous one's; with runtime sizes the partial node's sizes),
 *   u32 unfused node, u32 masks (0 or 1), when 1: user args × {u64 disjoint, u64 disjoint_or_equal},
 *   u32 runtime sizes, when above 0: size (the dispatch size), user args × size (their bytes),
 *   u32 fault sites, sites × {u32 kind, u32 store, str target, u32 target id,
 *   str func, str axis label, u32 axis, u64 extent, u64 count, str file,
 *   u32 line, u32 column};
 * str is u32 length (AOT_NONE: NULL) then the bytes, no terminator; size
 * a size program (rt/sizes.h): u32 steps, steps × {i64 arg, u32 op}.
 *
 * A module's object (tilec_module_compile_aot) has the descriptor of
 * AOT_MODULE_MAGIC, the packet entries of all its kernels, and the blob
 *   u32 AOT_FORMAT, str module name,
 *   u32 sizes, sizes × {str name, i64 lo, i64 hi},
 *   u32 values, values × {str name, u32 kind (tilec_value_kind), u32 elem,
 *   u64 bytes (a temporary's slot, a constant's or argument's need at the
 *   largest sizes), u64 offset (a temporary's in the arena)},
 *   u64 arena bytes,
 *   u32 kernels, kernels × {str name, u64 bytes, a kernel's blob as above (its own
 *   features, version and CPU; its entry numbers index the object's table)},
 *   u32 steps, steps × {u32 kernel, u32 args, args × u32 value,
 *   u32 sizes, sizes × {u32 module size (AOT_NONE: none), i64 offset}}. */
#ifndef TILEC_FACADE_AOT_FORMAT_H
#define TILEC_FACADE_AOT_FORMAT_H

#include <stdbool.h>
#include <stdint.h>

/* "TLCAOT" and the format number in the low 16 bits. */
#define AOT_FORMAT 5u
#define AOT_MAGIC (0x544c43414f540000ull | AOT_FORMAT)
/* "TLCMOD": a module's object. */
#define AOT_MODULE_MAGIC (0x544c434d4f440000ull | AOT_FORMAT)
#define AOT_NONE UINT32_MAX

/* The CPU features the runtime can check (aot_run.c), as a set: bit i is
 * its table's feature i. */
typedef struct {
    uint64_t bits[2];
} aot_cpu;

/* This CPU's features (cpuid, and xgetbv for the register state the OS
 * saves), as LLVM's host detection would report them. */
void aot_cpu_detect(aot_cpu *cpu);

/* What a CPU misses of an object's features: the names `features` enables
 * ("+name") that the CPU lacks, and those this runtime cannot check (unknown
 * to its table), each list space-separated and cut at its size. */
typedef struct {
    char lacks[256], unknown[256];
} aot_cpu_report;

/* Whether `cpu` has every feature `features` enables; *r says which not. */
bool aot_cpu_check(const char *features, const aot_cpu *cpu, aot_cpu_report *r);

/* The descriptor, as the object lays it out. */
typedef struct {
    uint64_t magic;
    const unsigned char *blob;
    uint64_t blob_bytes;
    void (*const *entries)(void);
    uint64_t entry_count;
    void **loaded;
} aot_descriptor;

#endif
