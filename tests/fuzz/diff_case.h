/* diff_case.h — one differential-fuzzing case as it is written at the top of
 * its `.tir` file: `// fuzz_diff: key=value ...` comment lines that say how
 * to fill the inputs, how to compare, which compile options and thread count
 * to use, and which parameters share memory.  The kernel text follows; the
 * parser ignores the comments, so a case file is also a plain kernel file.
 *
 * Keys (every one optional; unknown keys are an error):
 *   seed=S index=I          where the generator made it (informational)
 *   inputs=exact|random|edges  exact: floats k/8 with |k| <= 64, integers in
 *                           [-30, 30]; random: floats uniform in [-2, 2];
 *                           edges: floats mostly at the math library's edges
 *                           (±0, ±inf, NaN, subnormals, the largest finite
 *                           values, overflow thresholds, a few ulps around
 *                           them), else random bit patterns or uniform in
 *                           [-2, 2]; integers as with random
 *   specials=0|1            mix in ±0, ±inf, NaN (floats), MIN/MAX (random
 *                           integers) and bool bytes 2 and 255
 *   input_seed=N            the input stream
 *   compare=bitwise|tolerance|ulps  float outputs bit for bit (NaN matches
 *                           NaN), within atol + rtol·|reference|, or at most
 *                           `ulps=N` steps apart in the element type (NaN only
 *                           against NaN; ±inf one step beyond ±max, ±0 equal);
 *                           integer and bool outputs are always compared bit
 *                           for bit
 *   atol=X rtol=X           the tolerance (default 2e-5 each)
 *   ulps=N                  the bound of compare=ulps (default 1)
 *   width threads local_lanes block partitions unrolled grain full_packets
 *   search_grain separate_mma order=i,j,... tiles=a,b,...   tilec_compile_options (0 =
 *                           default/search)
 *   pack=auto|on|off        panel packing (tilec_compile_options.pack; default auto)
 *   fuse=auto|on|off        streamed loads and recomputed values
 *                           (tilec_compile_options.fuse; default auto)
 *   stores=auto|cached|streaming  non-temporal stores of write-only outputs
 *                           (tilec_compile_options.stores; default auto)
 *   split=N                 split reductions: 0 off (tilec_compile_options.split),
 *                           N >= 1 split_chunks = N (a mergeable reduce in N
 *                           chunks); absent or `auto`: the facade's default
 *   bind=P:Q+N              parameter P is bound to parameter Q's memory, N
 *                           elements after Q's first element (repeatable;
 *                           Q owns its memory)
 *   expect=ok               a compile refusal is an error too (regression
 *                           cases of kernels that were refused wrongly) */
#ifndef TILEC_TESTS_DIFF_CASE_H
#define TILEC_TESTS_DIFF_CASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum { DIFF_MAX_BINDS = 16, DIFF_MAX_ORDER = 4, DIFF_NAME = 32 };

typedef struct {
    char param[DIFF_NAME], owner[DIFF_NAME];
    uint64_t offset; /* elements */
} diff_bind;

typedef struct {
    uint64_t seed, index;
    bool exact_inputs, edge_inputs, specials;
    uint64_t input_seed;
    bool bitwise;
    bool by_ulps;  /* compare=ulps (bitwise is then false) */
    uint32_t ulps; /* its bound */
    double atol, rtol;
    uint32_t width, threads, local_lanes, block, partitions, unrolled, grain;
    bool unrolled_set; /* unrolled=0 means "no bound", so the default needs its own flag */
    bool full_packets, search_grain;
    bool separate_mma; /* fused_mma = false */
    uint32_t pack;     /* tilec_pack: 0 auto, 1 on, 2 off */
    uint32_t fuse;     /* tilec_fuse: 0 auto, 1 on, 2 off */
    uint32_t stores;   /* tilec_stores: 0 auto, 1 cached, 2 streaming */
    int64_t split;     /* -1 auto (not given), 0 off, N > 0: split_chunks N */
    bool expect_ok;
    uint32_t order[DIFF_MAX_ORDER], order_len, tiles[DIFF_MAX_ORDER], tiles_len;
    diff_bind binds[DIFF_MAX_BINDS];
    size_t n_binds;
} diff_case;

void diff_case_default(diff_case *c);
/* Writes the header lines. */
void diff_case_print(const diff_case *c, FILE *out);
/* Reads every `// fuzz_diff:` line of `text` into c (starting from the
 * defaults); false with a reason on a malformed line. */
bool diff_case_parse(const char *text, diff_case *c, char *why, size_t why_len);

#endif
