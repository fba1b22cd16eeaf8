/* lower.h — TileIR → XIR lowering with a fixed plan (root order, block size
 * B, packet width W) in one of two realizations: local_lanes = 1 (one
 * complete root program per lane) or local_lanes = W (packet-local: one
 * root program per packet, the stored row axis split over the lanes;
 * realize/local.h).  docs/lowering.md describes both.
 *
 * The TileIR kernel is borrowed and left unchanged (it can be lowered again);
 * the result owns its XIR module.  Errors are values: a failed lowering
 * returns a status, appends diagnostics (LOWER-A.. admission, LOWER-O..
 * options, LOWER-B.. budgets, LOWER-I.. internal invariants) and leaves
 * `out` empty. */
#ifndef TILEC_LOWER_LOWER_H
#define TILEC_LOWER_LOWER_H

#include "base/fault.h"
#include "base/strbuf.h"
#include "realize/choice.h"
#include "realize/packing.h"
#include "realize/resources.h"
#include "xir/xir.h"



typedef struct {
    const char *name;   /* the TileIR parameter's name (without '%') */
    tir_scalar elem;
    uint64_t min_bytes; /* view volume × element size */
    unsigned usage;     /* TIR_USE_* bits (tir_func_param_use); a panel: read */
    /* Streamed loads of this parameter (realize/stream.h) are right only when
     * its bytes do not overlap those of each parameter in `disjoint` (bit
     * j: parameter j), nor of each in `disjoint_or_equal` unless both start
     * at the same address; otherwise the unfused kernel must run. */
    uint64_t disjoint, disjoint_or_equal;
} lower_arg;

/* Static construction counts (never dynamic transactions): X(name). */
#define LOWER_COUNTERS(X) \
    X(guards_removed) X(guards_kept) X(indexable_snapshots) X(deferred_expressions) X(runtime_traversals) \
    X(unrolled_maps) X(runtime_maps) X(ordered_loops) X(branches) X(phi_carries) X(buffered_carries) X(partial_reductions) \
    X(packet_reductions) X(bounds_checks) X(bounds_checks_removed) \
    X(rolled_mmas) X(packed_loads) X(streamed_loads) X(joined_stores) X(guarded_arms) X(peeled_loops) X(peeled_roots) X(dot_mmas) X(word_loads) X(xir_instructions)

typedef struct {
#define X(name) uint64_t name;
    LOWER_COUNTERS(X)
#undef X
} lower_counters;

typedef struct {
    xir_module *module; /* owned */
    xir_func *kernel;   /* in module: buffer args in TileIR parameter order, then the packed panels */
    lower_arg *args;    /* [arg_count], owned by the module */
    size_t arg_count;   /* the parameters, plus one per pack of the choice's packing */
    uint32_t packed;    /* the packs: the last `packed` arguments are their panels, in packing order */
    uint32_t dispatch_size;         /* root parallel volume × local_lanes */
    uint32_t block_size;            /* B (also kernel->block_size) */
    uint32_t packet_width;          /* W the plan was made for */
    uint32_t required_packet_width; /* 0: any W (local_lanes = 1); packet-local: W, the backend must run W lanes */
    uint32_t local_lanes;           /* 1 or W */
    plan_resources resources;       /* static snapshot demand, equal to the emitted allocas */
    lower_counters counters;
    const char *realization; /* "key=value; ..." owned by the module */
    /* The operand of every `fault` indexes this table (owned by the module;
     * its strings are borrowed from the TileIR module). */
    const tir_fault_site *fault_sites;
    size_t fault_site_count;
} lower_result;

/* Lowers f under the compile options `o` (NULL: tilec_compile_options_
 * default()) as the plan `c` decided (NULL: realize_choice_default()).  Of
 * the record it reads the representation settings the planner priced
 * (max_unrolled_tile_elements, reduction_partitions) and check_bounds (check
 * every scalar access, extract and bounds=assume subtile, also those the
 * interval analysis proves in range; docs/lowering.md "Bounds checks") and
 * fused_mma (float mma steps as one fma each, else a multiply and an add;
 * docs/lowering.md "MMA"). */
tilec_status lower_kernel(tilec_context *ctx, const tir_func *f, const tilec_compile_options *o,
                          const realize_choice *c, lower_result *out);
void lower_result_free(lower_result *r);

/* Appends r's metadata as `//` comment lines to out (report.c); `tilec lower`
 * prints them before the module. */
void lower_report_metadata(strbuf *out, const lower_result *r);

#endif
