/* npy.h — NumPy .npy files: read format versions 1, 2 and 3, write 1 and 2.
 *
 * Only what kernels exchange is supported: C order, little-endian (one-byte
 * types in any byte order), and the dtypes of npy_dtype.  The writer produces
 * byte-for-byte what NumPy's np.save writes (sorted dict keys, growth padding,
 * 64-byte aligned header ending in '\n').  Nothing here knows about tiles: the
 * CLI maps dtypes to TileIR scalars.
 *
 * Diagnostics (status TILEC_E_IO unless noted; the message names the file):
 *   TILEC-IO01   the file cannot be opened, read or written
 *   TILEC-NPY01  bad magic (not a .npy file)
 *   TILEC-NPY02  unsupported format version
 *   TILEC-NPY03  malformed header (dict syntax, missing/unknown/duplicate keys)
 *   TILEC-NPY04  fortran_order is True
 *   TILEC-NPY05  big-endian data
 *   TILEC-NPY06  unsupported dtype
 *   TILEC-NPY07  truncated file (header or data)
 *   TILEC-NPY08  shape out of range (rank above NPY_MAX_RANK, size overflow)
 *   TILEC-NPY09  bytes after the data
 *   TILEC-NPY10  invalid array given to the writer (status TILEC_E_ARG)
 *   TILEC-NPY11  the data does not fit the caller's destination buffer
 *                (npy_read_with `into`; status TILEC_E_SHAPE)
 *
 * Memory: nothing is allocated from a size the file declares before it is
 * checked.  A seekable file must hold exactly the declared data (NPY07/NPY09)
 * before a byte of it is allocated; from a pipe or another stream that cannot
 * seek, the data is read into a buffer that grows with the bytes actually
 * read (1 MiB, then doubling up to the declared size), so a short stream fails
 * with NPY07 having allocated about what it held.  npy_read_with's `accept`
 * sees the header before anything is allocated for the data, and `into`
 * reads the data into the caller's buffer without allocating at all. */
#ifndef TILEC_BASE_NPY_H
#define TILEC_BASE_NPY_H

#include "base/context.h"
#include "base/strbuf.h"
#include <stdbool.h>
#include <stdint.h>

/* X(enum suffix, NumPy descr as np.save writes it, element size, short name) */
#define NPY_DTYPES(X) \
    X(BOOL, "|b1", 1, "bool") \
    X(I8, "|i1", 1, "i8") X(U8, "|u1", 1, "u8") X(I16, "<i2", 2, "i16") X(U16, "<u2", 2, "u16") \
    X(I32, "<i4", 4, "i32") X(U32, "<u4", 4, "u32") X(I64, "<i8", 8, "i64") X(U64, "<u8", 8, "u64") \
    X(F32, "<f4", 4, "f32") X(F64, "<f8", 8, "f64") X(F16, "<f2", 2, "f16") \
    X(BF16, "|V2", 2, "bf16") /* bf16: two opaque bytes (NumPy has no bfloat16; ml_dtypes views them) */

typedef enum {
    NPY_INVALID = 0,
#define X(e, descr, size, name) NPY_##e,
    NPY_DTYPES(X)
#undef X
    NPY_DTYPE_COUNT
} npy_dtype;

#define NPY_MAX_RANK 64 /* NumPy 2's NPY_MAXDIMS */

typedef struct {
    npy_dtype dtype;
    size_t rank;                   /* 0 for a scalar array */
    uint64_t shape[NPY_MAX_RANK];
    void *data;                    /* C-order, little-endian elements */
    size_t size_bytes;             /* volume × element size */
} npy_array;

const char *npy_dtype_name(npy_dtype t);  /* "f32"; "invalid" when out of range */
const char *npy_dtype_descr(npy_dtype t); /* NumPy's descr: "<f4", "|b1" */
size_t npy_dtype_size(npy_dtype t);       /* 0 when invalid */
/* Number of elements (1 for rank 0); false on overflow. */
bool npy_volume(size_t rank, const uint64_t *shape, uint64_t *volume);

/* Reads `path` into *out; out->data is allocated from ctx (npy_array_free).
 * On failure *out is zeroed and diagnostics say why. */
tilec_status npy_read(tilec_context *ctx, const char *path, npy_array *out);

/* What npy_read_with is told besides the path; zero-initialize unused fields. */
typedef struct {
    /* Called once, after the header is parsed and before any byte of the data
     * is allocated or read, with header->dtype, rank, shape and size_bytes set
     * (data NULL).  Returns TILEC_OK to read on, or the status of a diagnostic
     * it appended to stop.  NULL accepts every header. */
    tilec_status (*accept)(void *user, const npy_array *header);
    void *user;
    /* NULL: the data goes to a new allocation (out->data).  Otherwise it is read
     * into this buffer, which must hold exactly the data's size (TILEC-NPY11
     * otherwise, before anything is read); out->data stays NULL, and on failure
     * the buffer's contents are unspecified. */
    void *into;
    size_t into_bytes;
    /* Stop after the header: out describes the array (data NULL) and
     * nothing of the data is read or checked. */
    bool header_only;
} npy_read_options;

/* npy_read with the options above (NULL: as npy_read). */
tilec_status npy_read_with(tilec_context *ctx, const char *path, const npy_read_options *o, npy_array *out);
void npy_array_free(tilec_context *ctx, npy_array *a);

/* The header NumPy writes for `a` with format `version` (1 or 2; 0 picks the
 * oldest that fits, as np.save does): magic, version, length, dict, padding. */
tilec_status npy_format_header(tilec_context *ctx, const npy_array *a, unsigned version, strbuf *out);

/* Writes `a` to `path` (header from npy_format_header, then the data) with
 * file_write: through a temporary file renamed into place, written directly
 * only into an existing non-regular file (a device, a FIFO); a failure never
 * removes an existing file (base/file.h). */
tilec_status npy_write(tilec_context *ctx, const char *path, const npy_array *a, unsigned version);

#endif
