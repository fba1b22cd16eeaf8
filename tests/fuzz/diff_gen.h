/* diff_gen.h — the differential fuzzer's kernel generator: from (seed, index)
 * it builds one random TileIR kernel with the builder API, valid by
 * construction (it parses and verifies; the reference run makes no
 * out-of-range access but the deliberate one of the `oob` option), together
 * with its case header (diff_case.h): input
 * distribution, compile options, aliasing bindings, and how to compare.
 *
 * What it generates (docs/fuzzing.md has the full list): one root parallel
 * over 1 or 2 axes; tile loads (bounds=zero with and without fill, in-range
 * bounds=assume), scalar and masked loads, tile and scalar stores;
 * elementwise DAGs over every element type; casts, compares and selects;
 * extract; map; reduce with every policy (explicit bodies and the library's
 * reduce.add/max/min); mma with same and mixed operand types; serial and
 * pipeline loops (stages, zero-trip domains) with scalar and tile carries;
 * mergeable reduces (a `combine` block, in the root body before any store,
 * with the case's split= option); iota/full/broadcast/relabel; parameters
 * that share memory; row kernels
 * for packet-local realizations (20%); with the `oob` option, one
 * deliberate out-of-range access in some kernels; and the two families of
 * diff_gen_options (edge sizes, math kernels on edge inputs).
 *
 * Independence of the parallel instances holds by construction: every
 * buffer that is written is split in row blocks, instance L owning rows
 * [L·bs, L·bs + bs), and any view of it (writable or const, at a whole-row
 * offset) is only accessed inside the instance's rows; buffers nobody writes
 * are read anywhere.  Numerical facts (diff_facts.h) decide which operations
 * keep the comparison meaningful and whether it can be bitwise. */
#ifndef TILEC_TESTS_DIFF_GEN_H
#define TILEC_TESTS_DIFF_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t max_statements; /* statement budget of the root body (0: 24) */
    bool oob;                /* in some kernels (30%), try one access out of range on purpose (the
                                reference then reports TIR-I07..I09, native code must too) */
    /* The families mixed in, each drawn per kernel from (seed, index) alone,
     * independently, so a kernel in neither is the plain generator's:
     * sizes_pct% of the kernels take their root domain and tile extents from
     * edge sizes (0: an empty root domain, 1, W-1, W, W+1, 2W±1, primes, up
     * to 256); math_pct% are math kernels: loads of `inputs=edges` data
     * through the math library's functions, compared in ulps. */
    uint32_t sizes_pct, math_pct;
} diff_gen_options;

typedef struct {
    size_t statements; /* statements generated */
    size_t retries;    /* operation choices the facts refused and the generator replaced */
} diff_gen_stats;

/* The case file (header + kernel text), malloc'd; NULL with a reason when
 * the builder refused what the generator made (a generator bug). */
char *diff_generate(uint64_t seed, uint64_t index, const diff_gen_options *o, diff_gen_stats *stats, char *why,
                    size_t why_len);

#endif
