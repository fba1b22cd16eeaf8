/* harness.h — the measurement protocol shared by the `make bench` family
 * drivers (gemm.c, rows.c, attention.c).
 *
 * A driver builds one row at a time: a kernel at one shape and thread count,
 * the inputs, one output buffer, its FP64 expected values and a list of peers
 * (peers[0] is tilec).  bench_run_row then
 *   1. checks every peer: the output is filled with NaN, the peer runs once and
 *      every element must satisfy |got − expected| <= atol + rtol·|expected|;
 *      a peer that fails or mismatches is reported and never timed;
 *   2. warms each peer up (warmup_ms) and calibrates its repetitions so that
 *      one sample (a batch of reps back-to-back dispatches) takes >= round_ms;
 *   3. times `rounds` rounds; round r visits the peers A B C ... then C B A
 *      (ABBA), one sample per visit, so slow drift hits every peer alike; a
 *      peer's round time is the mean of its two visits;
 *   4. writes one JSON row: per peer the median/min/max µs per dispatch over
 *      the rounds, per (tilec, peer) pair the median/min/max of the same-round
 *      ratios tilec/peer (never a ratio of medians).
 * Progress goes to stderr, the JSON document to stdout. */
#ifndef TILEC_BENCH_HARNESS_H
#define TILEC_BENCH_HARNESS_H

#include "tilec/tilec.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum { BENCH_MAX_FILTERS = 32, BENCH_MAX_ROUNDS = 101 };

typedef struct {
    int rounds;        /* --rounds (3) */
    double round_ms;   /* --round-ms (20): minimum duration of one sample */
    double warmup_ms;  /* --warmup-ms (100) per peer and row */
    uint64_t max_reps; /* repetitions per sample are capped here (100000) */
    bool list;         /* --list: print the selected rows, run nothing */
    const char *kernels[BENCH_MAX_FILTERS]; /* --kernel NAME: exact names */
    size_t n_kernels;
    const char *sizes[BENCH_MAX_FILTERS]; /* --size SUBSTR: shape substrings */
    size_t n_sizes;
    int threads[BENCH_MAX_FILTERS]; /* --threads N[,N...]: default 1,2 */
    size_t n_threads;
    const char *peers[BENCH_MAX_FILTERS]; /* --peer NAME: only these peers beside tilec */
    size_t n_peers;
    const char *peers_dir; /* --peers-dir DIR: the Python peers' scripts (rows, attention) */
    const char *python;    /* --python PATH: their interpreter */
} bench_options;

/* True when --peer names this peer (or there is no --peer). */
bool bench_peer_wanted(const bench_options *o, const char *name);
/* Parses argv; prints usage and exits 2 on a bad option, 0 on --help. */
void bench_parse_options(int argc, char **argv, const char *family, bench_options *o);
/* True when the row passes the --kernel and --size filters (threads are looped
 * over by the driver from o->threads). */
bool bench_selected(const bench_options *o, const char *kernel, const char *shape);

typedef enum { BENCH_OK = 0, BENCH_ERROR, BENCH_MISMATCH, BENCH_SKIPPED } bench_status;

/* One contestant.  All callbacks write `err` on failure. */
typedef struct {
    const char *name;
    void *state;
    /* One dispatch writing the row's output buffer. */
    bool (*run)(void *state, char *err, size_t errlen);
    /* Optional: time `reps` dispatches itself and return the total µs (<0 on
     * failure) — for peers whose dispatches are not in this process (torch). */
    double (*run_batch)(void *state, uint64_t reps, char *err, size_t errlen);
    /* Optional: run once and copy the output to out[0..n), as floats (peers
     * whose output is not the row's buffer; a bf16 output widened exactly).
     * Default: run() into the row's buffer. */
    bool (*check)(void *state, float *out, size_t n, char *err, size_t errlen);
    /* Preset outcome decided before the row (e.g. skipped: torch missing, or
     * error: tilec did not compile); BENCH_OK means "run it". */
    bench_status preset;
    /* A memory bound, not a contestant: it moves the row's bytes (a STREAM
     * triad of the same size) without computing the row, so it is not
     * checked and never the best peer; the row records tilec / it as
     * "ratio_to_bound". */
    bool bound;
    /* A planner control, not a contestant: tilec with a fixed root order
     * (canonical or reversed; bench_tilec_controls), never the best peer;
     * the row records tilec / it under "ratios" like a peer's. */
    bool control;
    /* The peer's own compile time for the row (ms; 0: none or not reported),
     * spent before the timing: a JIT peer's (Inductor) compile. */
    double compile_ms;
    char message[512];
} bench_peer;

typedef struct {
    const char *kernel;
    const char *shape;
    int threads;
    const char *unit;        /* "GFLOP/s" or "GB/s" */
    double work;             /* flops or bytes per dispatch */
    const char *work_note;   /* optional: how `work` is counted */
    const char *extra_json;  /* optional: extra members, e.g. "\"tile\": \"16x16x16\"" */
    void *out;               /* the output every in-process peer writes: floats, bf16 bits or i32 */
    bool out_bf16;           /* out holds bf16 (NaN-filled and widened exactly for the check) */
    bool out_i32;            /* out holds i32 (filled with INT32_MIN, compared exactly as doubles) */
    size_t out_len;
    const double *expected;  /* FP64 reference for out */
    const char *no_reference; /* non-NULL: why there is no FP64 reference; then no peer is checked or timed */
    double atol, rtol;
    const tilec_compile_times *compile; /* NULL when tilec did not compile */
    bench_peer *peers;       /* peers[0] is tilec */
    size_t n_peers;
} bench_row;

/* The JSON document on stdout: begin, rows, end. */
typedef struct {
    FILE *out;
    const char *family;
    size_t rows;
    char *sweeps; /* the "sweeps" members so far (malloc'd; NULL: none) */
} bench_doc;

void bench_doc_begin(bench_doc *d, const char *family, const bench_options *o);
void bench_run_row(bench_doc *d, const bench_options *o, const bench_row *row);
/* Adds a JSON object to the document's "sweeps" list (a driver's
 * measurement that is not a row: the decode sweep over runtime sizes). */
void bench_doc_sweep(bench_doc *d, const char *json_object);
/* Closes the document with "sweeps" (when any), "tilec_width" and
 * "peer_versions": {names[i]: versions[i]}. */
void bench_doc_end(bench_doc *d, size_t n_peers, const char *const *names, const char *const *versions);

/* ---- the tilec contestant ---- */

/* Parses examples/NAME.tir (else models/llama/NAME.tir) with shape
 * overrides; NULL + err on failure
 * (*f: the kernel named NAME).  With threads > 0 its chosen parameters
 * (docs/tir.md "Chosen parameters") that the defines leave open are chosen
 * first for that many workers (measured once per host, then recorded) and
 * `chosen` says what and how ("BK=64 (measured)"; "" when none); with 0
 * they take their first values. */
tir_module *bench_parse_example(tilec_context *ctx, const char *name, const tir_define *defines, size_t n_defines,
                                int threads, char *chosen, size_t chosen_size,
                                const tir_func **f, char *err, size_t errlen);
/* The same with the file's first `from` replaced by `to` (a typing of an
 * example: gemm_int8.tir with A i8); err when the file has no `from`. */
tir_module *bench_parse_example_as(tilec_context *ctx, const char *name, const char *from, const char *to,
                                   const tir_define *defines, size_t n_defines, int threads, char *chosen,
                                   size_t chosen_size, const tir_func **f, char *err, size_t errlen);
/* The tilec runtime with `threads` workers, created on first use and kept
 * for the process (one pool per thread count). */
tilec_runtime *bench_runtime(tilec_context *ctx, int threads);
/* Destroys the runtimes (before the context goes). */
void bench_runtimes_destroy(void);
/* The packet width of the kernels compiled so far (0 before the first). */
uint32_t bench_tilec_width(void);

typedef struct {
    tilec_context *ctx;
    tilec_kernel *kernel;
    tilec_buffer args[8];
    size_t n_args;
    tilec_compile_times times;
    int64_t dims[1]; /* the dynamic control's runtime size (n_dims 1), else n_dims 0 */
    size_t n_dims;
} bench_tilec;

/* Compiles f on the runtime for `threads` and makes p the tilec peer running
 * it on args[0..n) (TileIR parameter order).  On failure p is preset "error"
 * with the diagnostics and false is returned.  The realization string is
 * appended to extra_json as "tilec_realization" when it compiles. */
bool bench_tilec_setup(bench_tilec *t, bench_peer *p, tilec_context *ctx, const tir_func *f, int threads,
                       const tilec_buffer *args, size_t n, char *extra_json, size_t extra_size);
void bench_tilec_release(bench_tilec *t);

enum { BENCH_CONTROLS = 2 };
/* The planner's controls for f (docs/performance.md "Protocol", item 8):
 * tilec compiled with
 * the canonical root order (0, 1, …) and the reversed one, as peers
 * "tilec-canonical" and "tilec-reversed" flagged `control`, on args[0..n).
 * With one root axis both are skipped (the only order is the planner's); a
 * failed compile, or no kernel (f NULL), presets "error". */
void bench_tilec_controls(bench_tilec t[BENCH_CONTROLS], bench_peer p[BENCH_CONTROLS], tilec_context *ctx,
                          const tir_func *f, int threads, const tilec_buffer *args, size_t n);
void bench_tilec_controls_release(bench_tilec t[BENCH_CONTROLS]);

/* The runtime-size control (docs/performance.md "Protocol"): examples/NAME.tir
 * with defines[dynamic] declared a runtime size `NAME: 1..hi` (docs/tir.md
 * "Runtime sizes") and the other defines pinned, compiled once and run at
 * the define's value as peer "tilec-dynamic", flagged `control`: the row's
 * ratio tilec / it gives the dynamic kernel's cost against the static one.
 * A failed parse or compile presets "error". */
void bench_tilec_dynamic(bench_tilec *t, bench_peer *p, tilec_context *ctx, const char *name,
                         const tir_define *defines, size_t n_defines, size_t dynamic, int64_t hi, int threads,
                         const tilec_buffer *args, size_t n);

/* ---- helpers for drivers ---- */
double bench_now_us(void);
/* Writes s as a JSON string literal (quotes included). */
void bench_json_string(FILE *f, const char *s);
/* Appends s to buf as a JSON string literal (quotes included). */
char *bench_json_quote(char *buf, size_t size, const char *s);
/* Appends to buf (snprintf-style, never overflows; returns buf). */
char *bench_appendf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A peer reported with a fixed status and message (never run). */
void bench_peer_preset(bench_peer *p, const char *name, bench_status s, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The diagnostics of ctx as one line (for error messages); clears them. */
void bench_diag_message(tilec_context *ctx, char *buf, size_t size);
/* Reads a whole file (NUL-terminated); NULL on failure. */
char *bench_read_file(const char *path, size_t *len);
/* Deterministic inputs: uniform in [-1, 1) from a 64-bit seed (splitmix64). */
void bench_fill_uniform(float *x, size_t n, uint64_t seed);
/* Aligned (64 B) allocations, exit on failure. */
void *bench_alloc(size_t bytes);
float *bench_alloc_floats(size_t n);
/* Fills x with NaN (outputs start as NaN so a store that is missed shows). */
void bench_fill_nan(float *x, size_t n);

/* bfloat16 (bits in a uint16_t: the upper half of an f32) for the drivers'
 * bf16 rows: widening is exact; bench_bf16_round rounds to nearest even (the
 * inputs are made with it, so each is exactly what the peers read). */
static inline float bench_bf16_widen(uint16_t h) {
    union { uint32_t u; float f; } v = {(uint32_t)h << 16};
    return v.f;
}
static inline uint16_t bench_bf16_round(float f) {
    union { float f; uint32_t u; } v = {f};
    return f != f ? (uint16_t)((v.u >> 16) | 0x40u) : (uint16_t)((v.u + 0x7FFFu + ((v.u >> 16) & 1u)) >> 16);
}
/* Rounds x[0..n) to bf16: bits[i] = bf16(x[i]) and x[i] = its exact value. */
void bench_round_bf16(float *x, uint16_t *bits, size_t n);

#endif
