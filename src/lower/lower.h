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
#include "realize/packing.h"
#include "realize/resources.h"
#include "xir/xir.h"

typedef struct {
    uint32_t block_size;             /* B: logical workers per runtime block (64); 1..1024, a multiple of W */
    uint32_t packet_width;           /* W: 1, 2, 4, 8, 16 or 32 (8; 32: a GPU warp) */
    const uint32_t *root_axis_order; /* π, outer → inner; a complete permutation */
    size_t root_axis_order_len;      /* 0 = identity */
    const uint32_t *root_axis_tiles; /* one factor per original root axis (realize/root_map.h) */
    size_t root_axis_tiles_len;      /* 0 = untiled */
    uint64_t max_expanded_values;    /* emitted XIR instructions (262144) */
    uint64_t max_local_bytes;        /* static snapshot bytes per worker (256 KiB) */
    uint32_t max_unrolled_tile_elements; /* 64; 0 = no bound (fully expanded) */
    uint64_t max_unrolled_region_work;   /* 4096; 0 = no region bound */
    uint32_t reduction_partitions;       /* 4; 1..16 */
    uint32_t max_recipe_depth;           /* 64; 0 = no deferred recipes */
    uint32_t local_lanes;                /* 1 (whole program per lane) or W (packet-local) */
    uint32_t fuse;                       /* fusion level (plan_candidate.fused): 1 streamed loads and cheap
                                            recomputed values, 2 costly ones too (realize/represent.h) */
    /* Check every scalar access, extract and bounds=assume subtile, also
     * those the interval analysis proves in range (false: only unproven
     * ones; docs/lowering.md "Bounds checks"). */
    bool check_bounds;
    /* Float mma steps as one fma each (true, the default) or a separate
     * multiply and add (docs/lowering.md "MMA"). */
    bool fused_mma;
    /* Reads these loads' tiles from packed panels, one buffer argument each
     * after the parameters (NULL: none; realize/packing.h, docs/lowering.md
     * "Packed panels"). */
    const plan_packing *packing;
} lower_options;

lower_options lower_options_default(void);

typedef enum { LOWER_USAGE_READ = 1u, LOWER_USAGE_WRITE = 2u } lower_usage;

typedef struct {
    const char *name;   /* the TileIR parameter's name (without '%') */
    tir_scalar elem;
    uint64_t min_bytes; /* view volume × element size */
    unsigned usage;     /* LOWER_USAGE_* bits from the kernel's loads and stores */
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
    X(rolled_mmas) X(packed_loads) X(streamed_loads) X(joined_stores) X(guarded_arms) X(xir_instructions)

typedef struct {
#define X(name) uint64_t name;
    LOWER_COUNTERS(X)
#undef X
} lower_counters;

typedef struct {
    xir_module *module; /* owned */
    xir_func *kernel;   /* in module: buffer args in TileIR parameter order, then the packed panels */
    lower_arg *args;    /* [arg_count], owned by the module */
    size_t arg_count;   /* the parameters, plus one per pack of options.packing */
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

tilec_status lower_kernel(tilec_context *ctx, const tir_func *f, const lower_options *options, lower_result *out);
void lower_result_free(lower_result *r);

/* Appends r's metadata as `//` comment lines to out (report.c); `tilec lower`
 * prints them before the module. */
void lower_report_metadata(strbuf *out, const lower_result *r);

#endif
