/* torch_peer.h — the PyTorch eager peer: a client of the coprocess
 * bench/peers/torch_worker.py (protocol in COMMON_BENCH.md: setup / check /
 * run REPS / quit, one request and one reply line each).  The worker times
 * `run REPS` itself, so the peer is a run_batch peer of the harness. */
#ifndef TILEC_BENCH_TORCH_PEER_H
#define TILEC_BENCH_TORCH_PEER_H

#include "harness.h"

typedef struct torch_worker torch_worker;

/* The coprocess `python script [--mode inductor]` (python NULL:
 * /usr/bin/python3, else python3 on PATH; bench/run passes the bench's
 * virtual environment), started at its first request and restarted after a
 * failure.  mode NULL: the eager peer "torch"; "inductor": the peer
 * "inductor", the same functions through torch.compile, compiled at setup
 * (its compile time is the peer's compile_ms).  Never NULL. */
torch_worker *torch_worker_start(const char *script, const char *python, const char *mode);
void torch_worker_stop(torch_worker *w);

/* The PyTorch peers of a family: eager and Inductor, each its own coprocess
 * of the script (o->torch_worker, else `script`) in o->python. */
enum { TORCH_PEERS = 2 };
void torch_workers_start(torch_worker *w[TORCH_PEERS], const char *script, const bench_options *o);
void torch_workers_stop(torch_worker *w[TORCH_PEERS]);
/* The peer name of a worker ("torch", "inductor"). */
const char *torch_worker_name(const torch_worker *w);
/* The torch version the worker reports, "unavailable: ..." or "unknown". */
const char *torch_worker_version(torch_worker *w);

/* Prepares peer p for one row: writes the inputs (raw f32, kernel parameter
 * order) to a temporary directory and sends `setup OP THREADS DIR DIMS...`.
 * When torch is not importable the peer is preset "skipped"; a failed setup
 * presets "error". */
void torch_peer_setup(bench_peer *p, torch_worker *w, const char *op, int threads, const float *const *inputs,
                      const size_t *lens, size_t n_inputs, const int *dims, size_t n_dims);

#endif
