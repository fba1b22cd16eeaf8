/* npy.c — the .npy reader and writer (format: NumPy's numpy/lib/format.py).
 *
 * File layout: "\x93NUMPY", major and minor version bytes, the header length
 * (2 bytes little-endian in version 1, 4 bytes in versions 2 and 3), then the
 * header: a Python dict literal {'descr': ..., 'fortran_order': ..., 'shape':
 * (...)} padded with spaces and '\n', then the raw C-order data.
 *
 * Invariants: no length read from the file is trusted before it is checked
 * (header size cap, checked volume arithmetic, data size against the bytes the
 * file holds); every failure frees what it allocated and zeroes *out.  Every
 * diagnostic names the file first (file_diag). */
#include "base/npy.h"
#include "base/checked.h"
#include "base/file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "npy.c copies little-endian file data as is; big-endian hosts need byte swapping"
#endif

static const char magic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};
enum {
    ARRAY_ALIGN = 64,             /* np.save aligns the data to 64 bytes */
    GROWTH_AXIS_MAX_DIGITS = 21,  /* np.save pads the dict for in-place growth */
    MAX_HEADER_BYTES = 1 << 20,   /* NumPy itself refuses more than 10000 by default */
    STREAM_CHUNK_BYTES = 1 << 20, /* first buffer for data from a stream that cannot seek */
};

static const struct {
    const char *descr;
    size_t size;
    const char *name;
} dtype_info[NPY_DTYPE_COUNT] = {
    [NPY_INVALID] = {"", 0, "invalid"},
#define X(e, descr, size, name) [NPY_##e] = {descr, size, name},
    NPY_DTYPES(X)
#undef X
};

static bool dtype_valid(npy_dtype t) { return t > NPY_INVALID && t < NPY_DTYPE_COUNT; }

const char *npy_dtype_name(npy_dtype t) { return dtype_info[dtype_valid(t) ? t : NPY_INVALID].name; }
const char *npy_dtype_descr(npy_dtype t) { return dtype_info[dtype_valid(t) ? t : NPY_INVALID].descr; }
size_t npy_dtype_size(npy_dtype t) { return dtype_info[dtype_valid(t) ? t : NPY_INVALID].size; }

bool npy_volume(size_t rank, const uint64_t *shape, uint64_t *volume) {
    uint64_t v = 1;
    for (size_t i = 0; i < rank; i++)
        if (!checked_mul_u64(v, shape[i], &v)) return false;
    *volume = v;
    return true;
}

/* Bytes of data an array of this shape holds; false when it overflows size_t. */
static bool data_bytes(npy_dtype t, size_t rank, const uint64_t *shape, size_t *bytes) {
    uint64_t volume, total;
    if (!npy_volume(rank, shape, &volume) || !checked_mul_u64(volume, npy_dtype_size(t), &total) ||
        total > SIZE_MAX)
        return false;
    *bytes = (size_t)total;
    return true;
}

void npy_array_free(tilec_context *ctx, npy_array *a) {
    tilec_free(ctx, a->data);
    a->data = NULL;
    a->size_bytes = 0;
}

/* ---- header dict parser ---- */

typedef struct {
    tilec_context *ctx;
    const char *path;
    const char *start, *p, *end;
} cursor;

static tilec_status malformed(cursor *c, const char *what) {
    return file_diag(c->ctx, TILEC_E_IO, "TILEC-NPY03", c->path, "malformed header: %s (header byte %zu)",
                     what, (size_t)(c->p - c->start));
}

static void skip_space(cursor *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) c->p++;
}

static bool accept(cursor *c, char ch) {
    skip_space(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return true;
    }
    return false;
}

static bool accept_word(cursor *c, const char *word) {
    size_t n = strlen(word);
    skip_space(c);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n)) return false;
    c->p += n;
    return true;
}

/* A Python string literal without escapes: '...' or "...". */
static bool parse_string(cursor *c, const char **text, size_t *len) {
    skip_space(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"')) return false;
    char quote = *c->p;
    const char *q = c->p + 1;
    while (q < c->end && *q != quote && *q != '\\' && *q != '\n') q++;
    if (q >= c->end || *q != quote) return false;
    *text = c->p + 1;
    *len = (size_t)(q - *text);
    c->p = q + 1;
    return true;
}

/* (d0, d1, ...) of non-negative integers; a single element needs its comma. */
static tilec_status parse_shape(cursor *c, npy_array *out) {
    if (!accept(c, '(')) return malformed(c, "'shape' must be a tuple");
    size_t rank = 0;
    bool trailing_comma = false;
    while (!accept(c, ')')) {
        if (rank > 0 && !trailing_comma) return malformed(c, "expected ',' or ')' in 'shape'");
        skip_space(c);
        if (c->p >= c->end || *c->p < '0' || *c->p > '9')
            return malformed(c, "'shape' entries must be non-negative integers");
        uint64_t d = 0;
        while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
            if (!checked_mul_u64(d, 10, &d) || !checked_add_u64(d, (uint64_t)(*c->p - '0'), &d))
                return file_diag(c->ctx, TILEC_E_IO, "TILEC-NPY08", c->path,
                                 "shape dimension %zu does not fit in 64 bits", rank);
            c->p++;
        }
        if (c->p < c->end && *c->p == 'L') c->p++; /* Python 2 long literal */
        if (rank == NPY_MAX_RANK)
            return file_diag(c->ctx, TILEC_E_IO, "TILEC-NPY08", c->path, "shape has more than %d dimensions",
                             NPY_MAX_RANK);
        out->shape[rank++] = d;
        trailing_comma = accept(c, ',');
    }
    if (rank == 1 && !trailing_comma) return malformed(c, "'shape' (n) is not a tuple; write (n,)");
    out->rank = rank;
    return TILEC_OK;
}

/* descr: optional byte order, kind letter, element size ("<f4", "|b1", "f8"). */
static tilec_status decode_descr(cursor *c, const char *text, size_t len, npy_array *out) {
    char order = '=';
    const char *kind = text;
    if (len > 0 && text[0] && strchr("<>|=", text[0])) {
        order = text[0];
        kind++;
    }
    size_t kind_len = len - (size_t)(kind - text);
    for (npy_dtype t = NPY_INVALID + 1; t < NPY_DTYPE_COUNT; t++) {
        const char *d = dtype_info[t].descr;
        if (kind_len != strlen(d + 1) || memcmp(kind, d + 1, kind_len)) continue;
        if (order == '>' && dtype_info[t].size > 1)
            return file_diag(c->ctx, TILEC_E_IO, "TILEC-NPY05", c->path,
                             "big-endian dtype '%.*s' is not supported; save little-endian data "
                             "(e.g. a.astype('%s'))",
                             (int)len, text, d);
        out->dtype = t;
        return TILEC_OK;
    }
    return file_diag(c->ctx, TILEC_E_IO, "TILEC-NPY06", c->path,
                     "unsupported dtype '%.*s' (supported: |b1 |i1 |u1 <i2 <u2 <i4 <u4 <i8 <u8 <f2 <f4 <f8, "
                     "|V2 for bf16)",
                     (int)(len > 32 ? 32 : len), text);
}

static tilec_status parse_header_dict(cursor *c, npy_array *out) {
    bool have_descr = false, have_order = false, have_shape = false, fortran = false;
    const char *descr = NULL;
    size_t descr_len = 0;
    if (!accept(c, '{')) return malformed(c, "expected '{'");
    while (!accept(c, '}')) {
        const char *key;
        size_t key_len;
        if (!parse_string(c, &key, &key_len)) return malformed(c, "expected a quoted key or '}'");
        if (!accept(c, ':')) return malformed(c, "expected ':' after a key");
        bool *seen;
        if (key_len == 5 && !memcmp(key, "descr", 5)) {
            seen = &have_descr;
            skip_space(c);
            if (c->p < c->end && (*c->p == '[' || *c->p == '{'))
                return file_diag(c->ctx, TILEC_E_IO, "TILEC-NPY06", c->path,
                                 "structured dtypes are not supported");
            if (!parse_string(c, &descr, &descr_len)) return malformed(c, "'descr' must be a string");
        } else if (key_len == 13 && !memcmp(key, "fortran_order", 13)) {
            seen = &have_order;
            if (accept_word(c, "True"))
                fortran = true;
            else if (!accept_word(c, "False"))
                return malformed(c, "'fortran_order' must be True or False");
        } else if (key_len == 5 && !memcmp(key, "shape", 5)) {
            seen = &have_shape;
            tilec_status st = parse_shape(c, out);
            if (st != TILEC_OK) return st;
        } else {
            return malformed(c, "unknown key (expected 'descr', 'fortran_order', 'shape')");
        }
        if (*seen) return malformed(c, "duplicate key");
        *seen = true;
        if (!accept(c, ',')) {
            if (accept(c, '}')) break;
            return malformed(c, "expected ',' or '}' after a value");
        }
    }
    skip_space(c);
    if (c->p != c->end) return malformed(c, "unexpected text after the dict");
    if (!have_descr || !have_order || !have_shape)
        return malformed(c, !have_descr ? "missing key 'descr'"
                            : !have_order ? "missing key 'fortran_order'"
                                          : "missing key 'shape'");
    /* Column-major data differs from C order only with two or more axes. */
    if (fortran && out->rank > 1)
        return file_diag(c->ctx, TILEC_E_IO, "TILEC-NPY04", c->path,
                         "fortran_order is True; save a C-ordered array (np.ascontiguousarray)");
    return decode_descr(c, descr, descr_len, out);
}

/* ---- reader ---- */

/* The error of a read that got `got` of `n` bytes: an I/O error or a
 * truncated file. */
static tilec_status short_read(tilec_context *ctx, const char *path, FILE *f, const char *what, size_t n,
                               size_t got) {
    if (ferror(f)) return file_diag(ctx, TILEC_E_IO, "TILEC-IO01", path, "cannot read: %s", strerror(errno));
    return file_diag(ctx, TILEC_E_IO, "TILEC-NPY07", path, "truncated file: %s needs %zu bytes, only %zu present",
                     what, n, got);
}

/* Reads exactly n bytes into buf. */
static tilec_status read_exact(tilec_context *ctx, const char *path, FILE *f, void *buf, size_t n,
                               const char *what) {
    size_t got = fread(buf, 1, n, f);
    return got == n ? TILEC_OK : short_read(ctx, path, f, what, n, got);
}

/* Reads the `need` data bytes into a new buffer (out->data).  When the size
 * of what is left is known it was checked to be `need`; otherwise (a pipe)
 * the buffer grows with the bytes actually read, so a stream shorter than its
 * header declares fails having allocated about what it held. */
static tilec_status read_data(tilec_context *ctx, const char *path, FILE *f, size_t need, bool size_known,
                              npy_array *out) {
    size_t cap = size_known || need < STREAM_CHUNK_BYTES ? need : STREAM_CHUNK_BYTES, got = 0;
    char *buf = tilec_alloc(ctx, cap);
    while (buf) {
        got += fread(buf + got, 1, cap - got, f);
        if (got < cap || cap == need) break; /* done, at the end of the stream, or failed */
        size_t next = cap > need / 2 ? need : cap * 2;
        char *grown = tilec_grow(ctx, buf, cap, next);
        if (!grown) tilec_free(ctx, buf);
        buf = grown;
        cap = next;
    }
    if (!buf) return file_diag(ctx, TILEC_E_NOMEM, "TILEC-IO01", path, "out of memory for %zu bytes", cap);
    if (got < need) {
        tilec_free(ctx, buf);
        return short_read(ctx, path, f, "the data", need, got);
    }
    out->data = buf;
    return TILEC_OK;
}

/* Bytes from the current position to the end, or -1 when the stream cannot seek. */
static off_t bytes_left(FILE *f) {
    off_t here = ftello(f);
    if (here < 0 || fseeko(f, 0, SEEK_END) != 0) return -1;
    off_t end = ftello(f);
    if (fseeko(f, here, SEEK_SET) != 0 || end < here) return -1;
    return end - here;
}

static tilec_status read_stream(tilec_context *ctx, const char *path, FILE *f, const npy_read_options *o,
                                npy_array *out) {
    unsigned char prefix[12];
    size_t got = fread(prefix, 1, 8, f);
    if (ferror(f)) return file_diag(ctx, TILEC_E_IO, "TILEC-IO01", path, "cannot read: %s", strerror(errno));
    if (got == 0) return file_diag(ctx, TILEC_E_IO, "TILEC-NPY01", path, "empty file, not a .npy file");
    if (memcmp(prefix, magic, got < 6 ? got : 6))
        return file_diag(ctx, TILEC_E_IO, "TILEC-NPY01", path, "not a .npy file (bad magic)");
    if (got < 8)
        return file_diag(ctx, TILEC_E_IO, "TILEC-NPY07", path, "truncated file: ends inside the magic string");
    unsigned major = prefix[6], minor = prefix[7];
    if (major < 1 || major > 3 || minor != 0)
        return file_diag(ctx, TILEC_E_IO, "TILEC-NPY02", path,
                         "unsupported .npy format version %u.%u (supported: 1.0, 2.0, 3.0)", major, minor);
    size_t length_bytes = major == 1 ? 2 : 4;
    tilec_status st = read_exact(ctx, path, f, prefix + 8, length_bytes, "the header length");
    if (st != TILEC_OK) return st;
    size_t header_len = (size_t)prefix[8] | (size_t)prefix[9] << 8;
    if (major > 1) header_len |= (size_t)prefix[10] << 16 | (size_t)prefix[11] << 24;
    if (header_len > MAX_HEADER_BYTES)
        return file_diag(ctx, TILEC_E_IO, "TILEC-NPY03", path, "malformed header: length %zu exceeds %d bytes",
                         header_len, MAX_HEADER_BYTES);

    char *header = tilec_alloc(ctx, header_len);
    if (!header) return file_diag(ctx, TILEC_E_NOMEM, "TILEC-IO01", path, "out of memory reading the header");
    st = read_exact(ctx, path, f, header, header_len, "the header");
    if (st == TILEC_OK) {
        /* Versions 1 and 2 are latin-1, 3 is UTF-8: the dict itself is ASCII. */
        cursor c = {ctx, path, header, header, header + header_len};
        st = parse_header_dict(&c, out);
    }
    tilec_free(ctx, header);
    if (st != TILEC_OK) return st;

    size_t need;
    if (!data_bytes(out->dtype, out->rank, out->shape, &need))
        return file_diag(ctx, TILEC_E_IO, "TILEC-NPY08", path, "shape is too large: its byte size overflows");
    out->size_bytes = need;
    if (o && o->accept && (st = o->accept(o->user, out)) != TILEC_OK) return st;
    if (o && o->header_only) return TILEC_OK;
    if (o && o->into && o->into_bytes != need)
        return file_diag(ctx, TILEC_E_SHAPE, "TILEC-NPY11", path,
                         "the data has %zu bytes, the destination holds %zu", need, o->into_bytes);
    off_t left = bytes_left(f);
    if (left >= 0 && (uint64_t)left < need)
        return file_diag(ctx, TILEC_E_IO, "TILEC-NPY07", path,
                         "truncated data: the shape needs %zu bytes, the file holds %lld", need, (long long)left);
    if (left >= 0 && (uint64_t)left > need)
        return file_diag(ctx, TILEC_E_IO, "TILEC-NPY09", path, "%lld unexpected bytes after the data",
                         (long long)((uint64_t)left - need));
    st = o && o->into ? read_exact(ctx, path, f, o->into, need, "the data")
                      : read_data(ctx, path, f, need, left >= 0, out);
    if (st != TILEC_OK) return st;
    if (fgetc(f) != EOF)
        return file_diag(ctx, TILEC_E_IO, "TILEC-NPY09", path, "unexpected bytes after the data");
    return TILEC_OK;
}

tilec_status npy_read(tilec_context *ctx, const char *path, npy_array *out) {
    return npy_read_with(ctx, path, NULL, out);
}

tilec_status npy_read_with(tilec_context *ctx, const char *path, const npy_read_options *o, npy_array *out) {
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) return file_diag(ctx, TILEC_E_IO, "TILEC-IO01", path, "cannot open: %s", strerror(errno));
    tilec_status st = read_stream(ctx, path, f, o, out);
    fclose(f);
    if (st != TILEC_OK) {
        npy_array_free(ctx, out);
        memset(out, 0, sizeof *out);
    }
    return st;
}

/* ---- writer ---- */

static tilec_status check_array(tilec_context *ctx, const char *path, const npy_array *a, size_t *bytes) {
    if (!dtype_valid(a->dtype))
        return file_diag(ctx, TILEC_E_ARG, "TILEC-NPY10", path, "cannot write an array of invalid dtype %d",
                         (int)a->dtype);
    if (a->rank > NPY_MAX_RANK)
        return file_diag(ctx, TILEC_E_ARG, "TILEC-NPY10", path, "cannot write rank %zu (at most %d)", a->rank,
                         NPY_MAX_RANK);
    if (!data_bytes(a->dtype, a->rank, a->shape, bytes))
        return file_diag(ctx, TILEC_E_ARG, "TILEC-NPY10", path, "cannot write: the shape's byte size overflows");
    return TILEC_OK;
}

tilec_status npy_format_header(tilec_context *ctx, const npy_array *a, unsigned version, strbuf *out) {
    size_t bytes;
    tilec_status st = check_array(ctx, "(header)", a, &bytes);
    if (st != TILEC_OK) return st;
    if (version > 2)
        return file_diag(ctx, TILEC_E_ARG, "TILEC-NPY10", "(header)", "cannot write format version %u (use 1 or 2)",
                         version);
    /* Exactly np.save: repr() of each value, keys sorted, then growth padding
     * for the first axis. */
    strbuf dict;
    strbuf_init(&dict, ctx);
    strbuf_printf(&dict, "{'descr': '%s', 'fortran_order': False, 'shape': (", npy_dtype_descr(a->dtype));
    for (size_t i = 0; i < a->rank; i++)
        strbuf_printf(&dict, "%s%llu", i ? ", " : "", (unsigned long long)a->shape[i]);
    strbuf_append(&dict, a->rank == 1 ? ",), }" : "), }");
    if (a->rank > 0) {
        int digits = snprintf(NULL, 0, "%llu", (unsigned long long)a->shape[0]);
        for (int i = digits; i < GROWTH_AXIS_MAX_DIGITS; i++) strbuf_append(&dict, " ");
    }
    /* np.save pads to the next multiple of 64, a whole 64 when already aligned. */
    size_t hlen = dict.len + 1; /* with the final '\n' */
    size_t padded_v1 = hlen + (ARRAY_ALIGN - (10 + hlen) % ARRAY_ALIGN);
    if (version == 0) version = padded_v1 <= 65535 ? 1 : 2;
    size_t prefix_len = version == 1 ? 10 : 12;
    size_t padded = version == 1 ? padded_v1 : hlen + (ARRAY_ALIGN - (12 + hlen) % ARRAY_ALIGN);
    if (version == 1 && padded > 65535) {
        strbuf_free(&dict);
        return file_diag(ctx, TILEC_E_ARG, "TILEC-NPY10", "(header)",
                         "header of %zu bytes does not fit format version 1", padded);
    }
    unsigned char head[12];
    memcpy(head, magic, 6);
    head[6] = (unsigned char)version;
    head[7] = 0;
    for (size_t i = 0; i < prefix_len - 8; i++) head[8 + i] = (unsigned char)(padded >> (8 * i));
    strbuf_append_n(out, (const char *)head, prefix_len);
    strbuf_append_n(out, dict.data ? dict.data : "", dict.len);
    for (size_t i = hlen; i < padded; i++) strbuf_append(out, " ");
    strbuf_append(out, "\n");
    bool failed = dict.failed || out->failed;
    strbuf_free(&dict);
    return failed ? file_diag(ctx, TILEC_E_NOMEM, "TILEC-IO01", "(header)", "out of memory") : TILEC_OK;
}

tilec_status npy_write(tilec_context *ctx, const char *path, const npy_array *a, unsigned version) {
    size_t bytes = 0; /* set by check_array; zeroed for -O2 -Wmaybe-uninitialized */
    tilec_status st = check_array(ctx, path, a, &bytes);
    if (st != TILEC_OK) return st;
    if (a->size_bytes != bytes || (bytes > 0 && !a->data))
        return file_diag(ctx, TILEC_E_ARG, "TILEC-NPY10", path, "array holds %zu bytes, its shape needs %zu",
                         a->data ? a->size_bytes : 0, bytes);
    strbuf header;
    strbuf_init(&header, ctx);
    st = npy_format_header(ctx, a, version, &header);
    if (st != TILEC_OK) {
        strbuf_free(&header);
        return st;
    }
    /* Through a temporary file: a failed write never leaves a half-written
     * file that looks valid, and never removes the file it was to replace. */
    file_piece pieces[2] = {{header.data, header.len}, {a->data, bytes}};
    st = file_write(ctx, path, pieces, 2);
    strbuf_free(&header);
    return st;
}
