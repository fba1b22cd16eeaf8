/* torch_peer.h — the PyTorch eager peer: a client of the coprocess
 * bench/peers/torch_worker.py (protocol in COMMON_BENCH.md: setup / check /
 * run REPS / quit, one request and one reply line each).  The worker times
 * `run REPS` itself, so the peer is a run_batch peer of the harness. */
#ifndef TILEC_BENCH_TORCH_PEER_H
#define TILEC_BENCH_TORCH_PEER_H

#include "harness.h"

typedef struct torch_worker torch_worker;

/* The coprocess `python script` (python NULL: /usr/bin/python3, where
 * Debian's python3-torch lives, else python3 on PATH), started at its first
 * request and restarted after a failure.  Never NULL. */
torch_worker *torch_worker_start(const char *script, const char *python);
void torch_worker_stop(torch_worker *w);
/* The torch version the worker reports, "unavailable: ..." or "unknown". */
const char *torch_worker_version(torch_worker *w);

/* Prepares peer p for one row: writes the inputs (raw f32, kernel parameter
 * order) to a temporary directory and sends `setup OP THREADS DIR DIMS...`.
 * When torch is not importable the peer is preset "skipped"; a failed setup
 * presets "error". */
void torch_peer_setup(bench_peer *p, torch_worker *w, const char *op, int threads, const float *const *inputs,
                      const size_t *lens, size_t n_inputs, const int *dims, size_t n_dims);

#endif
