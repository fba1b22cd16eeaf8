/* oneDNN 2.6 peers through its C API: matmul (batched, B transposed or not;
 * f32, or bf16 A and B with an f32 C), softmax and layer normalization
 * forward (inference), f32, row-major layouts.
 *
 * One CPU engine and one in-order stream are created on first use and shared
 * by every op for the life of the process.  Each op owns its primitive and one
 * memory object per argument, created without a buffer; onednn_run points them
 * at the caller's buffers (dnnl_memory_set_data_handle), so oneDNN reads and
 * writes the driver's own buffers and nothing is copied around the timing.
 *
 * oneDNN's OpenMP runtime takes its thread count from the OpenMP ICV, and
 * some primitives fix their blocking for that count when created: call
 * peers_set_threads before onednn_*_create, not only before onednn_run. */
#include "peers.h"

#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl_debug.h>
#include <stdio.h>
#include <stdlib.h>

enum { MAX_ARGS = 6 };

struct onednn_op {
    dnnl_primitive_t prim;
    int nuser;                      /* exec[0..nuser) take the caller's args */
    int nexec;                      /* plus internal ones (owned buffers) */
    dnnl_exec_arg_t exec[MAX_ARGS];
    void *owned[MAX_ARGS];
};

static dnnl_engine_t engine;
static dnnl_stream_t stream;
static bool last_unimplemented;

bool onednn_last_unimplemented(void)
{
    return last_unimplemented;
}

static bool fail(dnnl_status_t st, const char *what, char *err, size_t errlen)
{
    last_unimplemented = st == dnnl_unimplemented;
    if (err && errlen)
        snprintf(err, errlen, "oneDNN %s: %s", what, dnnl_status2str(st));
    return false;
}

#define TRY(call, what)                                                       \
    do {                                                                      \
        dnnl_status_t st_ = (call);                                           \
        if (st_ != dnnl_success) {                                            \
            fail(st_, what, err, errlen);                                     \
            goto bad;                                                         \
        }                                                                     \
    } while (0)

static bool ensure_engine(char *err, size_t errlen)
{
    if (stream)
        return true;
    TRY(dnnl_engine_create(&engine, dnnl_cpu, 0), "engine_create");
    TRY(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags), "stream_create");
    return true;
bad:
    if (engine)
        dnnl_engine_destroy(engine);
    engine = NULL;
    return false;
}

void onednn_destroy(onednn_op *op)
{
    if (!op)
        return;
    for (int i = 0; i < op->nexec; i++)
        if (op->exec[i].memory)
            dnnl_memory_destroy(op->exec[i].memory);
    for (int i = 0; i < MAX_ARGS; i++)
        free(op->owned[i]);
    if (op->prim)
        dnnl_primitive_destroy(op->prim);
    free(op);
}

/* Adds an execute argument over memory descriptor md; user arguments get no
 * buffer yet (onednn_run sets it), internal ones get an owned buffer. */
static bool add_arg(onednn_op *op, int arg, const dnnl_memory_desc_t *md, bool user,
                    char *err, size_t errlen)
{
    int i = op->nexec;
    void *buf = DNNL_MEMORY_NONE;
    if (!user) {
        buf = op->owned[i] = malloc(dnnl_memory_desc_get_size(md) + 64);
        if (!buf) {
            snprintf(err, errlen, "oneDNN: out of memory");
            return false;
        }
    }
    op->exec[i].arg = arg;
    TRY(dnnl_memory_create(&op->exec[i].memory, md, engine, buf), "memory_create");
    op->nexec++;
    if (user)
        op->nuser = op->nexec;
    return true;
bad:
    return false;
}

/* Creates the primitive from an op descriptor; `user` lists the caller's
 * arguments in peers.h order; `internal` lists arguments oneDNN may need
 * besides them (layer-norm statistics), added only if the pd asks for them. */
static onednn_op *build(const void *desc, const int *user, int nuser,
                        const int *internal, int ninternal, char *err, size_t errlen)
{
    dnnl_primitive_desc_t pd = NULL;
    onednn_op *op = calloc(1, sizeof *op);
    if (!op) {
        snprintf(err, errlen, "oneDNN: out of memory");
        return NULL;
    }
    TRY(dnnl_primitive_desc_create(&pd, desc, NULL, engine, NULL), "primitive_desc_create");
    for (int i = 0; i < nuser + ninternal; i++) {
        int arg = i < nuser ? user[i] : internal[i - nuser];
        const dnnl_memory_desc_t *md = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
        if (i >= nuser && (!md || dnnl_memory_desc_get_size(md) == 0))
            continue;
        if (!md) {
            snprintf(err, errlen, "oneDNN: no memory descriptor for argument %d", arg);
            goto bad;
        }
        if (!add_arg(op, arg, md, i < nuser, err, errlen))
            goto bad;
    }
    TRY(dnnl_primitive_create(&op->prim, pd), "primitive_create");
    dnnl_primitive_desc_destroy(pd);
    return op;
bad:
    if (pd)
        dnnl_primitive_desc_destroy(pd);
    onednn_destroy(op);
    return NULL;
}

static bool plain_2d(dnnl_memory_desc_t *md, int rows, int cols, char *err, size_t errlen)
{
    dnnl_dims_t dims = {rows, cols};
    TRY(dnnl_memory_desc_init_by_tag(md, 2, dims, dnnl_f32, dnnl_ab), "memory_desc_init");
    return true;
bad:
    return false;
}

/* [batch,] rows × cols of `type`, row-major; `transposed`: stored as
 * cols × rows (the logical matrix is read column-major). */
static bool matrix(dnnl_memory_desc_t *md, int batch, int rows, int cols, bool transposed, dnnl_data_type_t type,
                   char *err, size_t errlen)
{
    dnnl_dims_t dims2 = {rows, cols}, dims3 = {batch, rows, cols};
    if (batch == 1)
        TRY(dnnl_memory_desc_init_by_tag(md, 2, dims2, type, transposed ? dnnl_ba : dnnl_ab), "memory_desc_init");
    else
        TRY(dnnl_memory_desc_init_by_tag(md, 3, dims3, type, transposed ? dnnl_acb : dnnl_abc), "memory_desc_init");
    return true;
bad:
    return false;
}

onednn_op *onednn_matmul_create(int M, int N, int K, char *err, size_t errlen)
{
    return onednn_matmul_create_ex(1, M, N, K, false, false, err, errlen);
}

onednn_op *onednn_matmul_create_ex(int batch, int M, int N, int K, bool b_transposed, bool bf16_inputs, char *err,
                                   size_t errlen)
{
    onednn_type in = bf16_inputs ? ONEDNN_BF16 : ONEDNN_F32;
    return onednn_matmul_create_typed(batch, M, N, K, b_transposed, in, in, ONEDNN_F32, err, errlen);
}

onednn_op *onednn_matmul_create_typed(int batch, int M, int N, int K, bool b_transposed, onednn_type src,
                                      onednn_type weights, onednn_type dst, char *err, size_t errlen)
{
    static const dnnl_data_type_t types[] = {[ONEDNN_F32] = dnnl_f32, [ONEDNN_BF16] = dnnl_bf16, [ONEDNN_U8] = dnnl_u8,
                                             [ONEDNN_S8] = dnnl_s8, [ONEDNN_S32] = dnnl_s32};
    dnnl_memory_desc_t a, b, c;
    dnnl_matmul_desc_t d;
    last_unimplemented = false;
    if (!ensure_engine(err, errlen) || !matrix(&a, batch, M, K, false, types[src], err, errlen) ||
        !matrix(&b, batch, K, N, b_transposed, types[weights], err, errlen) ||
        !matrix(&c, batch, M, N, false, types[dst], err, errlen))
        return NULL;
    TRY(dnnl_matmul_desc_init(&d, &a, &b, NULL, &c), "matmul_desc_init");
    const int user[] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST};
    return build(&d, user, 3, NULL, 0, err, errlen);
bad:
    return NULL;
}

onednn_op *onednn_softmax_create(int rows, int cols, char *err, size_t errlen)
{
    dnnl_memory_desc_t x;
    dnnl_softmax_desc_t d;
    if (!ensure_engine(err, errlen) || !plain_2d(&x, rows, cols, err, errlen))
        return NULL;
    TRY(dnnl_softmax_forward_desc_init(&d, dnnl_forward_inference, &x, 1), "softmax_desc_init");
    const int user[] = {DNNL_ARG_SRC, DNNL_ARG_DST};
    return build(&d, user, 2, NULL, 0, err, errlen);
bad:
    return NULL;
}

/* Separate scale (G) and shift (B), each [cols]; eps 1e-5.  Inference mode
 * computes the statistics itself; mean/variance buffers are supplied only if
 * the primitive descriptor asks for them. */
onednn_op *onednn_layernorm_create(int rows, int cols, char *err, size_t errlen)
{
    dnnl_memory_desc_t x;
    dnnl_layer_normalization_desc_t d;
    if (!ensure_engine(err, errlen) || !plain_2d(&x, rows, cols, err, errlen))
        return NULL;
    TRY(dnnl_layer_normalization_forward_desc_init(&d, dnnl_forward_inference, &x, NULL, 1.0e-5f,
                                                   dnnl_use_scale | dnnl_use_shift),
        "layer_normalization_desc_init");
    const int user[] = {DNNL_ARG_SRC, DNNL_ARG_SCALE, DNNL_ARG_SHIFT, DNNL_ARG_DST};
    const int internal[] = {DNNL_ARG_MEAN, DNNL_ARG_VARIANCE};
    return build(&d, user, 4, internal, 2, err, errlen);
bad:
    return NULL;
}

bool onednn_run(onednn_op *op, void *const *args, char *err, size_t errlen)
{
    if (!op) {
        snprintf(err, errlen, "oneDNN: no primitive");
        return false;
    }
    for (int i = 0; i < op->nuser; i++)
        TRY(dnnl_memory_set_data_handle(op->exec[i].memory, args[i]), "memory_set_data_handle");
    TRY(dnnl_primitive_execute(op->prim, stream, op->nexec, op->exec), "primitive_execute");
    TRY(dnnl_stream_wait(stream), "stream_wait");
    return true;
bad:
    return false;
}

const char *onednn_version(void)
{
    static char buf[96];
    const dnnl_version_t *v = dnnl_version();
    const char *rt = v->cpu_runtime == DNNL_RUNTIME_OMP        ? "OpenMP"
                     : v->cpu_runtime == DNNL_RUNTIME_TBB      ? "TBB"
                     : v->cpu_runtime == DNNL_RUNTIME_SEQ      ? "sequential"
                     : v->cpu_runtime == DNNL_RUNTIME_THREADPOOL ? "threadpool"
                                                               : "other";
    snprintf(buf, sizeof buf, "oneDNN %d.%d.%d (cpu runtime: %s)", v->major, v->minor, v->patch, rt);
    return buf;
}
