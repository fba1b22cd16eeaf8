/* Peer implementations for `make bench`: hand-written float C kernels (OpenMP)
 * and oneDNN primitives that the family drivers time against tilec.
 *
 * All tensors are float32, row-major, contiguous, except the *_bf16 ones:
 * bfloat16 bits (uint16_t, the upper half of an f32).  Semantics are exactly those
 * of the example kernel of the same name (examples/NAME.tir), and arguments
 * follow that kernel's parameter order, so a driver passes the same buffers to
 * every peer.  The PyTorch peer is a coprocess (torch_worker.py), not here. */
#ifndef TILEC_BENCH_PEERS_H
#define TILEC_BENCH_PEERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

void peers_set_threads(int threads);                 /* OpenMP thread count */
void c_softmax(const float *x, float *y, int rows, int cols);
void c_masked_softmax(const float *x, float *y, int rows, int cols); /* valid: c <= r % cols */
void c_layernorm(const float *x, const float *g, const float *b, float *y, int rows, int cols); /* eps 1e-5, g/b are [1,cols] */
void c_rmsnorm(const float *x, const float *g, float *y, int rows, int cols);   /* eps 1e-5 */
/* rmsnorm_bf16.tir: bf16 in and out, f32 statistics and scaling, one rounding */
void c_rmsnorm_bf16(const uint16_t *x, const uint16_t *g, uint16_t *y, int rows, int cols);
void c_gelu_residual(const float *x, const float *u, float *y, int rows, int cols); /* tanh form + u */
void c_swiglu(const float *x, const float *u, float *y, int rows, int cols);
void c_rope(const float *x, const float *cosv, const float *sinv, float *y, int rows, int cols); /* cos/sin are [rows, cols/2] as in rope.tir */
/* STREAM triad a[i] = b[i] + s·c[i] over n elements (OpenMP, schedule
 * static): 12·n bytes moved, the memory bound of the row operators. */
void c_stream_triad(float *a, const float *b, const float *c, float s, long n);
/* The memory bound's peer: one triad a = b + 3·c over n floats each (a
 * bench_peer run function: state is a c_stream). */
typedef struct {
    float *a, *b, *c;
    long n;
} c_stream;
bool c_stream_run(void *state, char *err, size_t errlen);

/* Decode projections y = W·x, W row-major N × K (c_gemv.c): f32, bf16 and
 * int8 weights (the last with an f32 scale per row, S[N]). */
void c_gemv(const float *W, const float *x, float *y, int N, int K);
void c_gemv_bf16(const uint16_t *W, const float *x, float *y, int N, int K);
void c_gemv_q8(const int8_t *Q, const float *S, const float *x, float *y, int N, int K);
void c_gemv_q8q(const uint8_t *U, const float *S, const int8_t *xq, const float *D, float *y, int N, int K, int G);
void c_attention(const float *q, const float *k, const float *v, float *o,
                 int B, int Hq, int Hkv, int Lq, int Lk, int D, int Dv); /* causal bottom-right, GQA, as attention.tir */

/* oneDNN: an opaque primitive bound to fixed shapes; NULL + message on failure.
 * oneDNN (OpenMP runtime) may fix its blocking for the thread count current at
 * create time: call peers_set_threads before onednn_*_create. */
typedef struct onednn_op onednn_op;
onednn_op *onednn_matmul_create(int M, int N, int K, char *err, size_t errlen);    /* C = A·B */
/* C[b] = A[b]·B[b] for b < batch (3-D when batch > 1); b_transposed: B is
 * stored [batch,] N × K (C = A·Bᵀ); bf16_inputs: A and B are bf16 (C stays
 * f32, gemm_bf16.tir). */
onednn_op *onednn_matmul_create_ex(int batch, int M, int N, int K, bool b_transposed, bool bf16_inputs, char *err,
                                   size_t errlen);
/* The same with any element types of A, B and C (u8, s8, s32: the int8
 * matmul of gemm_int8.tir). */
typedef enum { ONEDNN_F32, ONEDNN_BF16, ONEDNN_U8, ONEDNN_S8, ONEDNN_S32 } onednn_type;
onednn_op *onednn_matmul_create_typed(int batch, int M, int N, int K, bool b_transposed, onednn_type src,
                                      onednn_type weights, onednn_type dst, char *err, size_t errlen);
/* Whether the last failed create was oneDNN answering `unimplemented`: it
 * has no kernel for those types on this CPU (bf16 needs AVX-512 in 2.6), a
 * skip rather than an error. */
bool onednn_last_unimplemented(void);
onednn_op *onednn_softmax_create(int rows, int cols, char *err, size_t errlen);
onednn_op *onednn_layernorm_create(int rows, int cols, char *err, size_t errlen); /* eps 1e-5, scale+shift */
/* args in the same order as the matching c_* function / tilec kernel parameters
 * (matmul: A, B, C; softmax: X, Y; layernorm: X, G, B, Y). */
bool onednn_run(onednn_op *op, void *const *args, char *err, size_t errlen);
void onednn_destroy(onednn_op *op);
const char *onednn_version(void);   /* "oneDNN 2.6.3 (cpu runtime: OpenMP)" */

#ifdef __cplusplus
}
#endif

#endif
