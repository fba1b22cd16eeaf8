/* diff_run.h — runs one differential case (a case file: diff_case.h header +
 * kernel text) on the FP64 reference interpreter and natively through the
 * public facade (tilec_compile + tilec_dispatch), from identical inputs in
 * sentinel-padded buffers (aliased parameters share one allocation), and
 * compares every byte of every allocation, pads included.
 *
 * Outcomes: OK; REFUSED — the compile failed with a documented refusal
 * (TILEC_E_UNSUPPORTED or TILEC_E_BUDGET with a code), after which the kernel
 * is compiled again with the default planner options and checked (a second
 * refusal ends the case); SKIPPED — the reference refused the kernel (a
 * budget); INVALID — the case does not parse/verify, or the reference made
 * a runtime error the generator promised it would not (a generator bug);
 * and the native bugs: MISMATCH (results differ, a pad changed, or native
 * succeeded/failed differently from a reference runtime error — after one,
 * only the pads are compared: the outputs are unspecified) and ERROR
 * (any other compile or dispatch failure).
 *
 * The GPU route too (docs/gpu.md), on cases without aliased parameters or
 * bounds faults: the GPU target's plan with the case's planner options
 * (a block that is not whole warps searched instead, packet-local at 32
 * lanes), lowered at W = 32 and run on the XIR interpreter — the GPU's
 * semantics — over fresh inputs, compared as the native run is; then the
 * same XIR compiled to PTX, which must succeed (a kernel with math
 * functions where no libdevice is found excepted).  A plan of one program
 * per lane (no warp instructions) also runs as the GPU backend's own code
 * on the host, thread by thread (tests/gpu/host_run.h), compared the same
 * way.  A GPU plan the planner
 * or lowering refuses is counted, not a bug.
 *
 * Then, on cases that passed without aliased parameters, the same kernel
 * with up to three of its extents made runtime sizes (diff_sized.h),
 * compiled once and run at the extents as written, the ranges' tops and a
 * random size, each against the reference at those sizes (a mismatch
 * there is the case's bug; a refused compile is counted). */
#ifndef TILEC_TESTS_DIFF_RUN_H
#define TILEC_TESTS_DIFF_RUN_H

#include <stdbool.h>
#include <stdint.h>

typedef enum {
    DIFF_OK,
    DIFF_REFUSED,
    DIFF_SKIPPED,
    DIFF_INVALID,
    DIFF_MISMATCH,
    DIFF_ERROR,
    DIFF_CRASH, /* set by the supervisor when the run died */
    DIFF_OUTCOME_COUNT
} diff_outcome;

const char *diff_outcome_name(diff_outcome o);
/* A bug of tilec (not of the generator, not a documented refusal). */
static inline bool diff_outcome_is_bug(diff_outcome o) { return o == DIFF_MISMATCH || o == DIFF_ERROR || o == DIFF_CRASH; }

typedef struct {
    diff_outcome outcome;
    char code[32];     /* the refusal or error diagnostic code ("" when none) */
    char detail[768];  /* what differed, or the diagnostic */
    bool retried;      /* refused with the case's options, then run with the defaults */
    bool faulted;      /* the reference reported a bounds fault (TIR-I07..I09) */
    double compile_ms; /* total tilec_compile time */
    uint32_t split;    /* the native kernel split a reduce in this many chunks (0: not split) */
    bool mergeable;    /* the kernel has a reduce with a combine block */
    bool split_asked;  /* the case asks for chunks (split=N, N > 0) */
    enum { DIFF_GPU_NOT_RUN, DIFF_GPU_CHECKED, DIFF_GPU_REFUSED } gpu; /* the GPU route's W = 32 run */
    bool gpu_host;     /* ... and its GPU code ran on the host (one program per lane) */
    /* the case with runtime sizes (diff_sized.h): checked at a sampled size, or its compile refused */
    enum { DIFF_SIZED_NOT_RUN, DIFF_SIZED_CHECKED, DIFF_SIZED_REFUSED } sized;
} diff_result;

typedef struct diff_runner diff_runner;

/* One context and a 1- and a 2-worker runtime, reused across cases. */
diff_runner *diff_runner_create(void);
void diff_runner_destroy(diff_runner *r);
/* oob: a reference runtime error (TIR-I07..I09) is expected natively too,
 * as a TILEC_E_RUNTIME dispatch failure with the same code; sized: rerun a
 * case that passed with runtime sizes (above). */
void diff_run_case(diff_runner *r, const char *text, bool oob, bool sized, diff_result *out);

#endif
