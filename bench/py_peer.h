/* py_peer.h — the Python peers of `make bench` (PyTorch eager and Inductor,
 * JAX/XLA, Halide with a hand schedule and autoscheduled): clients of the
 * coprocesses bench/peers/NAME_worker.py, which speak the protocol of
 * bench/peers/worker_loop.py (setup / check / run REPS / version / quit, one
 * request and one reply line each).  A worker times `run REPS` itself, so a
 * Python peer is a run_batch peer of the harness.
 *
 * A worker serves one thread count for its life (XLA and Halide size their
 * thread pools once per process), so each peer keeps one worker per thread
 * count, started at its first request and restarted after a failure. */
#ifndef TILEC_BENCH_PY_PEER_H
#define TILEC_BENCH_PY_PEER_H

#include "harness.h"

/* The registry: every Python peer, in report order. */
typedef struct {
    const char *name;   /* the peer in the report */
    const char *script; /* in the peers directory */
    const char *mode;   /* its --mode */
    const char *module; /* the Python package it needs (for messages) */
} py_peer_kind;

enum { PY_PEERS = 5 };
extern const py_peer_kind py_peer_kinds[PY_PEERS];

typedef struct py_peers py_peers;

/* The workers of every registered peer, none started yet (o is kept: its
 * --peer filter decides which peers are set up): scripts in
 * o->peers_dir (default: the source tree's bench/peers), run by o->python
 * (default python3 on PATH; bench/run passes the bench's virtual
 * environment).  Never NULL. */
py_peers *py_peers_start(const bench_options *o);
void py_peers_stop(py_peers *ps);

/* The version peer `kind` reports, "unavailable: ..." or "unknown". */
const char *py_peer_version(py_peers *ps, size_t kind);

/* bench_doc_end with the versions of the family's own peers
 * (names[0..n), versions[0..n)) followed by every Python peer's. */
void py_peers_doc_end(bench_doc *d, py_peers *ps, size_t n, const char *const *names, const char *const *versions);

/* Writes a shape's inputs (raw f32, kernel parameter order) to the
 * workers' temporary directory, once for every peer and thread count of the
 * shape.  When they cannot be written, the shape's setups preset "error"
 * with the reason. */
void py_peers_inputs(py_peers *ps, const float *const *inputs, const size_t *lens, size_t n_inputs);

/* Prepares peer `kind` for one row on the inputs written last: sends `setup
 * OP THREADS DIR DIMS...` to its worker for `threads`.  A peer whose module
 * is not importable, or that answers `unsupported` (an op it does not
 * implement), is preset "skipped"; a failed setup presets "error".  A
 * setup reply `ok COMPILE_MS` sets p->compile_ms. */
void py_peer_setup(bench_peer *p, py_peers *ps, size_t kind, const char *op, int threads, const int *dims,
                   size_t n_dims);

#endif
