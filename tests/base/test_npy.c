/* .npy reader and writer: exact header bytes against NumPy's output, round trips
 * of every dtype and rank, hand-written variants NumPy also reads, one case per
 * diagnostic, and truncation / corruption loops that must fail cleanly. */
#include "base/npy.h"
#include "diag_util.h"
#include "harness.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static tilec_context *ctx;
static char dir[64];
static char path[128];

static void write_bytes(const char *p, const void *bytes, size_t n) {
    FILE *f = fopen(p, "wb");
    CHECK(f != NULL);
    if (!f) return;
    CHECK(fwrite(bytes, 1, n, f) == n);
    fclose(f);
}

/* Reads the whole file; *n gets its length.  Caller frees. */
static unsigned char *slurp(const char *p, size_t *n) {
    FILE *f = fopen(p, "rb");
    *n = 0;
    if (!f) return NULL;
    unsigned char *buf = malloc(1 << 16);
    *n = fread(buf, 1, 1 << 16, f);
    fclose(f);
    return buf;
}

/* "\x93NUMPY" v1.0, the header length, `dict`, `spaces` spaces and '\n': what
 * np.save writes (the space counts below were taken from NumPy 1.24). */
static size_t expected_v1(unsigned char *out, const char *dict, size_t spaces) {
    size_t hlen = strlen(dict) + spaces + 1;
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    out[8] = (unsigned char)(hlen & 0xff);
    out[9] = (unsigned char)(hlen >> 8);
    memcpy(out + 10, dict, strlen(dict));
    memset(out + 10 + strlen(dict), ' ', spaces);
    out[10 + hlen - 1] = '\n';
    return 10 + hlen;
}

static npy_array make(npy_dtype t, size_t rank, const uint64_t *shape, void *data) {
    npy_array a;
    memset(&a, 0, sizeof a);
    a.dtype = t;
    a.rank = rank;
    for (size_t i = 0; i < rank; i++) a.shape[i] = shape[i];
    uint64_t volume = 0;
    npy_volume(rank, shape, &volume);
    a.size_bytes = (size_t)volume * npy_dtype_size(t);
    a.data = data;
    return a;
}

static bool header_is(const npy_array *a, unsigned version, const unsigned char *want, size_t n) {
    strbuf s;
    strbuf_init(&s, ctx);
    bool ok = npy_format_header(ctx, a, version, &s) == TILEC_OK && s.len == n && !memcmp(s.data, want, n);
    if (!ok) fprintf(stderr, "header mismatch: got %zu bytes: %s\n", s.len, s.len > 10 ? s.data + 10 : "");
    strbuf_free(&s);
    return ok;
}

static void test_header_bytes(void) {
    unsigned char want[512];
    size_t n;
    uint64_t s23[2] = {2, 3};
    npy_array a = make(NPY_F32, 2, s23, NULL);
    n = expected_v1(want, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 58);
    CHECK(n == 128 && want[8] == 'v' && want[9] == 0);
    CHECK(header_is(&a, 0, want, n));
    CHECK(header_is(&a, 1, want, n));

    a = make(NPY_F64, 0, NULL, NULL);
    n = expected_v1(want, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", 62);
    CHECK(header_is(&a, 0, want, n));

    uint64_t s5 = 5, s0 = 0;
    a = make(NPY_BOOL, 1, &s5, NULL);
    n = expected_v1(want, "{'descr': '|b1', 'fortran_order': False, 'shape': (5,), }", 60);
    CHECK(header_is(&a, 0, want, n));
    a = make(NPY_I32, 1, &s0, NULL);
    n = expected_v1(want, "{'descr': '<i4', 'fortran_order': False, 'shape': (0,), }", 60);
    CHECK(header_is(&a, 0, want, n));

    /* The growth padding counts the digits of the first extent only. */
    uint64_t big[2] = {123456, 7};
    a = make(NPY_U16, 2, big, NULL);
    n = expected_v1(want, "{'descr': '<u2', 'fortran_order': False, 'shape': (123456, 7), }", 53);
    CHECK(header_is(&a, 0, want, n));
    uint64_t s11[11] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    a = make(NPY_U8, 11, s11, NULL);
    n = expected_v1(want,
                    "{'descr': '|u1', 'fortran_order': False, 'shape': (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11), }", 29);
    CHECK(header_is(&a, 0, want, n));
    uint64_t s306[3] = {3, 0, 2};
    a = make(NPY_U64, 3, s306, NULL);
    n = expected_v1(want, "{'descr': '<u8', 'fortran_order': False, 'shape': (3, 0, 2), }", 55);
    CHECK(header_is(&a, 0, want, n));

    /* Growth padding pushes the header past 128 bytes. */
    uint64_t ones[20];
    for (int i = 0; i < 20; i++) ones[i] = 1;
    a = make(NPY_F64, 20, ones, NULL);
    n = expected_v1(want,
                    "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "
                    "1, 1, 1, 1, 1, 1), }",
                    68);
    CHECK(n == 192 && want[8] == 0xb6);
    CHECK(header_is(&a, 0, want, n));
    /* Already 64-aligned before padding: NumPy still adds a whole 64 bytes. */
    uint64_t s14[14] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 10, 10};
    a = make(NPY_F64, 14, s14, NULL);
    n = expected_v1(want,
                    "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 10, 10), }",
                    84);
    CHECK(n == 192);
    CHECK(header_is(&a, 0, want, n));

    /* Version 2: four length bytes, same alignment (numpy.lib.format.write_array
     * with version=(2, 0)). */
    uint64_t s4 = 4;
    a = make(NPY_I64, 1, &s4, NULL);
    const char *dict = "{'descr': '<i8', 'fortran_order': False, 'shape': (4,), }";
    memcpy(want, "\x93NUMPY\x02\x00\x74\x00\x00\x00", 12);
    memcpy(want + 12, dict, strlen(dict));
    memset(want + 12 + strlen(dict), ' ', 58);
    want[127] = '\n';
    CHECK(12 + strlen(dict) + 58 + 1 == 128);
    CHECK(header_is(&a, 2, want, 128));

    /* The file is the header followed by the raw data. */
    float data[6] = {0, 1, 2, 3, 4, 5};
    a = make(NPY_F32, 2, s23, data);
    CHECK(npy_write(ctx, path, &a, 0) == TILEC_OK);
    size_t got;
    unsigned char *file = slurp(path, &got);
    n = expected_v1(want, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 58);
    CHECK(got == n + sizeof data && !memcmp(file, want, n) && !memcmp(file + n, data, sizeof data));
    free(file);
}

static void round_trip(npy_dtype t, size_t rank, const uint64_t *shape, unsigned version) {
    npy_array a = make(t, rank, shape, NULL);
    unsigned char *data = malloc(a.size_bytes ? a.size_bytes : 1);
    for (size_t i = 0; i < a.size_bytes; i++) data[i] = (unsigned char)(i * 37 + 11);
    if (t == NPY_BOOL)
        for (size_t i = 0; i < a.size_bytes; i++) data[i] &= 1;
    a.data = data;
    CHECK(npy_write(ctx, path, &a, version) == TILEC_OK);
    npy_array b;
    tilec_status st = npy_read(ctx, path, &b);
    CHECK_MSG(st == TILEC_OK, "%s rank %zu v%u", npy_dtype_name(t), rank, version);
    CHECK(b.dtype == t && b.rank == rank && b.size_bytes == a.size_bytes);
    CHECK(!memcmp(b.shape, a.shape, sizeof a.shape));
    CHECK(b.size_bytes == 0 || !memcmp(b.data, data, a.size_bytes));
    npy_array_free(ctx, &b);
    CHECK(b.data == NULL);
    free(data);
}

static void test_round_trips(void) {
    static const uint64_t shapes[][4] = {{7}, {2, 3}, {3, 1, 4}, {2, 2, 2, 2}, {0}, {3, 0}, {0, 5, 2}, {1000}};
    static const size_t ranks[] = {1, 2, 3, 4, 1, 2, 3, 1};
    for (npy_dtype t = NPY_INVALID + 1; t < NPY_DTYPE_COUNT; t++) {
        round_trip(t, 0, NULL, 0);
        for (size_t s = 0; s < sizeof ranks / sizeof ranks[0]; s++) {
            round_trip(t, ranks[s], shapes[s], 0);
            round_trip(t, ranks[s], shapes[s], 2);
        }
    }
    CHECK(tilec_diag_count(ctx) == 0);
    /* Rank NPY_MAX_RANK still fits a version-1 header. */
    uint64_t many[NPY_MAX_RANK];
    for (int i = 0; i < NPY_MAX_RANK; i++) many[i] = i % 7 == 0 ? 2 : 1;
    round_trip(NPY_I16, NPY_MAX_RANK, many, 0);
    size_t got;
    unsigned char *file = slurp(path, &got);
    CHECK(file && file[6] == 1);
    free(file);
}

/* Puts magic, version, header length and `dict` into buf; returns the size. */
static size_t npy_head(unsigned char *buf, unsigned major, const char *dict) {
    size_t hlen = strlen(dict);
    size_t prefix = major == 1 ? 10 : 12;
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)major;
    buf[7] = 0;
    for (size_t i = 0; i < prefix - 8; i++) buf[8 + i] = (unsigned char)(hlen >> (8 * i));
    memcpy(buf + prefix, dict, hlen);
    return prefix + hlen;
}

/* Writes prefix + header (with its length field) + `data_bytes` zero bytes. */
static void write_npy(unsigned major, const char *dict, size_t data_bytes) {
    unsigned char buf[4096];
    size_t head = npy_head(buf, major, dict);
    memset(buf + head, 0, data_bytes);
    write_bytes(path, buf, head + data_bytes);
}

/* Reads `path` and returns the status; checks the failure contract. */
static tilec_status read_back(npy_array *a) {
    tilec_diag_clear(ctx);
    tilec_status st = npy_read(ctx, path, a);
    if (st != TILEC_OK) {
        CHECK(a->data == NULL && a->rank == 0 && a->dtype == NPY_INVALID);
        CHECK(tilec_diag_count(ctx) > 0);
        CHECK_STR_CONTAINS(tilec_diag_at(ctx, 0)->message, path);
    }
    return st;
}

static void accepts(unsigned major, const char *dict, size_t data_bytes, npy_dtype t, size_t rank,
                    uint64_t first) {
    write_npy(major, dict, data_bytes);
    npy_array a;
    tilec_status st = read_back(&a);
    CHECK_MSG(st == TILEC_OK, "rejected %s: %s", dict, tilec_diag_count(ctx) ? tilec_diag_at(ctx, 0)->message : "");
    CHECK_MSG(a.dtype == t && a.rank == rank && (rank == 0 || a.shape[0] == first), "%s", dict);
    npy_array_free(ctx, &a);
}

static void rejects(unsigned major, const char *dict, size_t data_bytes, const char *code) {
    write_npy(major, dict, data_bytes);
    npy_array a;
    CHECK_MSG(read_back(&a) != TILEC_OK, "accepted %s", dict);
    CHECK_MSG(!strcmp(last_diag_code(ctx), code), "%s: got %s, want %s", dict, last_diag_code(ctx), code);
}

static void test_variants(void) {
    /* What other writers (old NumPy, Python 2, hand edits) produce. */
    accepts(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}", 24, NPY_F32, 2, 2);
    accepts(1, "{\"shape\": (3,), \"descr\": \"<i8\", \"fortran_order\": False}\n", 24, NPY_I64, 1, 3);
    accepts(1, "  { 'descr' : '<u4' ,'fortran_order':False,'shape':( 2 , ) , }   \n", 8, NPY_U32, 1, 2);
    accepts(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2L, 3L), }\n", 24, NPY_I32, 2, 2);
    accepts(1, "{'descr': '<u1', 'fortran_order': False, 'shape': (4,), }\n", 4, NPY_U8, 1, 4);
    accepts(1, "{'descr': '>i1', 'fortran_order': False, 'shape': (4,), }\n", 4, NPY_I8, 1, 4);
    accepts(1, "{'descr': 'f8', 'fortran_order': False, 'shape': (), }\n", 8, NPY_F64, 0, 0);
    accepts(1, "{'descr': '=i2', 'fortran_order': False, 'shape': (1,), }\n", 2, NPY_I16, 1, 1);
    /* With at most one axis Fortran order is C order. */
    accepts(1, "{'descr': '<f8', 'fortran_order': True, 'shape': (5,), }\n", 40, NPY_F64, 1, 5);
    accepts(2, "{'descr': '|b1', 'fortran_order': False, 'shape': (3, 1), }\n", 3, NPY_BOOL, 2, 3);
    accepts(3, "{'descr': '<u8', 'fortran_order': False, 'shape': (1,), }\n", 8, NPY_U64, 1, 1);
    accepts(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 18446744073709551615), }", 0, NPY_F32, 2, 0);
}

static void test_malformed(void) {
    const char *ok_tail = "'fortran_order': False, 'shape': (2,), }\n";
    char dict[256];
    /* magic and version */
    write_bytes(path, "", 0);
    npy_array a;
    CHECK(read_back(&a) != TILEC_OK && !strcmp(last_diag_code(ctx), "TILEC-NPY01"));
    write_bytes(path, "hello world, not numpy", 22);
    CHECK(read_back(&a) != TILEC_OK && !strcmp(last_diag_code(ctx), "TILEC-NPY01"));
    write_bytes(path, "\x93NUMPX\x01\x00\x10\x00", 10);
    CHECK(read_back(&a) != TILEC_OK && !strcmp(last_diag_code(ctx), "TILEC-NPY01"));
    write_bytes(path, "\x93NUMPY\x04\x00\x10\x00", 10);
    CHECK(read_back(&a) != TILEC_OK && !strcmp(last_diag_code(ctx), "TILEC-NPY02"));
    CHECK_STR_CONTAINS(tilec_diag_at(ctx, 0)->message, "version 4.0");
    write_bytes(path, "\x93NUMPY\x01\x01\x10\x00", 10);
    CHECK(read_back(&a) != TILEC_OK && !strcmp(last_diag_code(ctx), "TILEC-NPY02"));
    write_bytes(path, "\x93NUMPY\x00\x00\x10\x00", 10);
    CHECK(read_back(&a) != TILEC_OK && !strcmp(last_diag_code(ctx), "TILEC-NPY02"));

    /* layout, byte order, dtype */
    rejects(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }\n", 24, "TILEC-NPY04");
    rejects(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }\n", 8, "TILEC-NPY05");
    rejects(1, "{'descr': '>i8', 'fortran_order': False, 'shape': (2,), }\n", 16, "TILEC-NPY05");
    static const char *const bad_dtypes[] = {"<c8", "|O", "<U3", "|S4", "<M8[ns]", "|V8", "<f16",
                                             "<i3", "", "<", "b1x"};
    for (size_t i = 0; i < sizeof bad_dtypes / sizeof bad_dtypes[0]; i++) {
        snprintf(dict, sizeof dict, "{'descr': '%s', %s", bad_dtypes[i], ok_tail);
        rejects(1, dict, 8, "TILEC-NPY06");
    }
    rejects(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }\n", 8, "TILEC-NPY06");

    /* header dict syntax */
    static const char *const bad_dicts[] = {
        "",
        "'descr': '<f4', 'fortran_order': False, 'shape': (2,)",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), ",
        "{'descr': '<f4', 'fortran_order': False}",
        "{'fortran_order': False, 'shape': (2,)}",
        "{'descr': '<f4', 'shape': (2,)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}",
        "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': [2]}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2 3)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2,,)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2.0,)}",
        "{'descr': '<f4', 'fortran_order': false, 'shape': (2,)}",
        "{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}",
        "{'descr': <f4, 'fortran_order': False, 'shape': (2,)}",
        "{'descr': '<f4, 'fortran_order': False, 'shape': (2,)}",
        "{'descr': '<f4' 'fortran_order': False, 'shape': (2,)}",
        "{'descr' '<f4', 'fortran_order': False, 'shape': (2,)}",
        "{descr: '<f4', 'fortran_order': False, 'shape': (2,)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}}",
        "{'descr': '<\\f4', 'fortran_order': False, 'shape': (2,)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2,),,}",
    };
    for (size_t i = 0; i < sizeof bad_dicts / sizeof bad_dicts[0]; i++) rejects(1, bad_dicts[i], 8, "TILEC-NPY03");
    /* A header length no sane file has. */
    write_bytes(path, "\x93NUMPY\x02\x00\x00\x00\x00\x01", 12);
    CHECK(read_back(&a) != TILEC_OK && !strcmp(last_diag_code(ctx), "TILEC-NPY03"));

    /* sizes */
    rejects(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }\n", 8, "TILEC-NPY07");
    rejects(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n", 9, "TILEC-NPY09");
    rejects(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (18446744073709551616,), }\n", 8, "TILEC-NPY08");
    rejects(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 2), }\n", 8,
            "TILEC-NPY08");
    rejects(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904,), }\n", 8, "TILEC-NPY08");
    /* A huge but representable shape is caught before anything is allocated. */
    rejects(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000,), }\n", 8, "TILEC-NPY07");
    strcpy(dict, "{'descr': '|u1', 'fortran_order': False, 'shape': (");
    for (int i = 0; i < NPY_MAX_RANK + 1; i++) strcat(dict, "1,");
    strcat(dict, "), }\n");
    rejects(1, dict, 1, "TILEC-NPY08");
    /* header length field promises more than the file has */
    write_bytes(path, "\x93NUMPY\x01\x00\x40\x00{'descr'", 18);
    CHECK(read_back(&a) != TILEC_OK && !strcmp(last_diag_code(ctx), "TILEC-NPY07"));

    /* files */
    snprintf(dict, sizeof dict, "%s/does-not-exist.npy", dir);
    CHECK(npy_read(ctx, dict, &a) == TILEC_E_IO && !strcmp(last_diag_code(ctx), "TILEC-IO01"));
    CHECK_STR_CONTAINS(tilec_diag_at(ctx, tilec_diag_count(ctx) - 1)->message, "does-not-exist.npy");
    CHECK(npy_read(ctx, dir, &a) == TILEC_E_IO && !strcmp(last_diag_code(ctx), "TILEC-IO01"));

    /* writer argument checks */
    uint64_t s2 = 2;
    float f2[2] = {1, 2};
    npy_array w = make(NPY_F32, 1, &s2, f2);
    w.size_bytes = 4;
    CHECK(npy_write(ctx, path, &w, 0) == TILEC_E_ARG && !strcmp(last_diag_code(ctx), "TILEC-NPY10"));
    w = make(NPY_INVALID, 1, &s2, f2);
    CHECK(npy_write(ctx, path, &w, 0) == TILEC_E_ARG && !strcmp(last_diag_code(ctx), "TILEC-NPY10"));
    w = make(NPY_F32, 1, &s2, f2);
    CHECK(npy_write(ctx, path, &w, 3) == TILEC_E_ARG && !strcmp(last_diag_code(ctx), "TILEC-NPY10"));
    snprintf(dict, sizeof dict, "%s/no/such/dir.npy", dir);
    CHECK(npy_write(ctx, dict, &w, 0) == TILEC_E_IO && !strcmp(last_diag_code(ctx), "TILEC-IO01"));
    tilec_diag_clear(ctx);
}

/* Every proper prefix of a valid file is an error, never a crash or a success. */
static void truncate_everywhere(unsigned version) {
    uint64_t shape[2] = {2, 3};
    double data[6] = {1, 2, 3, 4, 5, 6};
    npy_array w = make(NPY_F64, 2, shape, data);
    CHECK(npy_write(ctx, path, &w, version) == TILEC_OK);
    size_t n;
    unsigned char *file = slurp(path, &n);
    CHECK(file && n == 128 + sizeof data);
    int failures = 0;
    for (size_t cut = 0; cut < n; cut++) {
        write_bytes(path, file, cut);
        npy_array a;
        if (read_back(&a) == TILEC_OK) {
            failures++;
            npy_array_free(ctx, &a);
        }
    }
    CHECK_MSG(failures == 0, "%d truncated files were accepted", failures);
    write_bytes(path, file, n);
    npy_array a;
    CHECK(read_back(&a) == TILEC_OK && !memcmp(a.data, data, sizeof data));
    npy_array_free(ctx, &a);
    free(file);
}

/* Corrupts header bytes of a valid file with a fixed pseudo-random sequence;
 * every outcome must be a clean success or a clean diagnostic. */
static void corrupt_headers(void) {
    uint64_t shape[2] = {3, 4};
    int32_t data[12] = {0};
    npy_array w = make(NPY_I32, 2, shape, data);
    CHECK(npy_write(ctx, path, &w, 0) == TILEC_OK);
    size_t n;
    unsigned char *file = slurp(path, &n);
    uint64_t state = 12345;
    static const unsigned char interesting[] = {'(', ')', ',', '\'', '"', '{', '}', ':', ' ', '0', '9', 'L',
                                                '<', '>', '|', 0, 0xff, '\n', '-', 'T', 'F'};
    int ok = 0, failed = 0;
    for (int round = 0; round < 3000; round++) {
        unsigned char copy[256];
        memcpy(copy, file, n);
        int flips = 1 + round % 3;
        for (int k = 0; k < flips; k++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            size_t at = (size_t)(state >> 33) % 128;
            copy[at] = interesting[(state >> 20) % sizeof interesting];
        }
        write_bytes(path, copy, n);
        npy_array a;
        if (read_back(&a) == TILEC_OK) {
            uint64_t volume;
            CHECK(npy_volume(a.rank, a.shape, &volume) && volume * npy_dtype_size(a.dtype) == a.size_bytes);
            ok++;
            npy_array_free(ctx, &a);
        } else {
            failed++;
        }
    }
    CHECK(ok > 0 && failed > 0); /* both outcomes were exercised */
    free(file);
}

static void test_allocation_failure(void) {
    uint64_t shape[1] = {4};
    float data[4] = {1, 2, 3, 4};
    npy_array w = make(NPY_F32, 1, shape, data);
    CHECK(npy_write(ctx, path, &w, 0) == TILEC_OK);
    for (long k = 0; k < 2; k++) {
        tilec_context_fail_allocation_after(ctx, k);
        npy_array a;
        CHECK(npy_read(ctx, path, &a) == TILEC_E_NOMEM && a.data == NULL);
        tilec_context_fail_allocation_after(ctx, -1);
    }
    tilec_context_fail_allocation_after(ctx, 0);
    CHECK(npy_write(ctx, path, &w, 0) == TILEC_E_NOMEM);
    tilec_context_fail_allocation_after(ctx, -1);
    tilec_diag_clear(ctx);
}

/* ---- streams and size-first reading ---- */

/* An allocator that remembers the largest block asked for. */
static void *tracking_alloc(void *user, size_t size) {
    size_t *largest = user;
    if (size > *largest) *largest = size;
    return malloc(size);
}
static void tracking_free(void *user, void *ptr) {
    (void)user;
    free(ptr);
}

/* A pipe fed by a child: a v1 header with `dict`, then `data_bytes` bytes
 * (byte i is i·7 mod 256).  *reader gets its read end as a path. */
static pid_t feed_pipe(const char *dict, size_t data_bytes, char *reader, size_t size, int *fd) {
    int p[2];
    CHECK(pipe(p) == 0);
    pid_t child = fork();
    if (child == 0) {
        close(p[0]);
        unsigned char buf[4096];
        size_t head = npy_head(buf, 1, dict);
        bool ok = write(p[1], buf, head) == (ssize_t)head;
        for (size_t done = 0; ok && done < data_bytes;) {
            size_t n = data_bytes - done < sizeof buf ? data_bytes - done : sizeof buf;
            for (size_t i = 0; i < n; i++) buf[i] = (unsigned char)((done + i) * 7);
            ok = write(p[1], buf, n) == (ssize_t)n;
            done += n;
        }
        _exit(ok ? 0 : 1);
    }
    close(p[1]);
    *fd = p[0];
    snprintf(reader, size, "/dev/fd/%d", p[0]);
    return child;
}

/* 192 bytes of data behind a header that declares 2 GiB of f32. */
static pid_t feed_huge_pipe(char *reader, size_t size, int *fd) {
    return feed_pipe("{'descr': '<f4', 'fortran_order': False, 'shape': (536870912,), }\n", 192, reader, size, fd);
}

static void end_pipe(pid_t child, int fd) {
    close(fd);
    waitpid(child, NULL, 0); /* the child may have died of SIGPIPE: fine */
}

typedef struct {
    int calls;
    npy_array seen;
    tilec_status verdict;
} acceptor;

static tilec_status accept_or_refuse(void *user, const npy_array *header) {
    acceptor *a = user;
    a->calls++;
    a->seen = *header;
    if (a->verdict != TILEC_OK) tilec_error(ctx, a->verdict, "TEST-01", tilec_no_loc(), "refused by the test");
    return a->verdict;
}

/* A context whose allocator records the largest request in *largest. */
static tilec_context *tracking_context(size_t *largest) {
    tilec_allocator tracking = {tracking_alloc, tracking_free, largest};
    tilec_context *tc = NULL;
    CHECK(tilec_context_create(&tracking, &tc) == TILEC_OK);
    return tc;
}

static void test_streams(void) {
    size_t largest = 0;
    tilec_context *tc = tracking_context(&largest);
    char reader[64];
    int fd;
    /* 192 bytes behind a header declaring 2 GiB: truncated, and nothing near
     * 2 GiB was allocated (the old reader allocated and zeroed all of it). */
    pid_t child = feed_huge_pipe(reader, sizeof reader, &fd);
    npy_array a;
    CHECK(npy_read(tc, reader, &a) == TILEC_E_IO && !strcmp(last_diag_code(tc), "TILEC-NPY07"));
    CHECK(has_diag_in(tc, "TILEC-NPY07", "the data needs 2147483648 bytes, only 192 present"));
    CHECK_MSG(largest <= (2u << 20), "largest allocation %zu bytes", largest);
    CHECK(a.data == NULL && a.size_bytes == 0);
    end_pipe(child, fd);

    /* A complete stream of 3 MiB + 4 bytes: the buffer grows to exactly the data. */
    size_t n = (3u << 20) + 4;
    char dict[128];
    snprintf(dict, sizeof dict, "{'descr': '|u1', 'fortran_order': False, 'shape': (%zu,), }\n", n);
    largest = 0;
    child = feed_pipe(dict, n, reader, sizeof reader, &fd);
    CHECK(npy_read(tc, reader, &a) == TILEC_OK && a.size_bytes == n && a.dtype == NPY_U8);
    int wrong = 0;
    for (size_t i = 0; a.data && i < n; i++) wrong += ((unsigned char *)a.data)[i] != (unsigned char)(i * 7);
    CHECK(wrong == 0 && largest == n);
    npy_array_free(tc, &a);
    end_pipe(child, fd);

    /* One byte more than declared: bytes after the data. */
    child = feed_pipe("{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }\n", 7, reader, sizeof reader, &fd);
    CHECK(npy_read(tc, reader, &a) == TILEC_E_IO && !strcmp(last_diag_code(tc), "TILEC-NPY09"));
    end_pipe(child, fd);
    tilec_context_destroy(tc);
}

/* accept sees the header before anything is allocated for the data; `into`
 * takes the data without allocating. */
static void test_read_with(void) {
    const char *dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n";
    write_npy(1, dict, 24);
    acceptor refuse = {0, {0}, TILEC_E_SHAPE};
    npy_read_options o = {accept_or_refuse, &refuse, NULL, 0, false};
    npy_array a;
    tilec_diag_clear(ctx);
    CHECK(npy_read_with(ctx, path, &o, &a) == TILEC_E_SHAPE && !strcmp(last_diag_code(ctx), "TEST-01"));
    CHECK(refuse.calls == 1 && refuse.seen.dtype == NPY_F32 && refuse.seen.rank == 2 && refuse.seen.shape[1] == 3);
    CHECK(refuse.seen.size_bytes == 24 && refuse.seen.data == NULL && a.data == NULL);

    /* A pipe declaring 2 GiB is refused by accept before a data byte is read. */
    size_t largest = 0;
    tilec_context *tc = tracking_context(&largest);
    char reader[64];
    int fd;
    pid_t child = feed_huge_pipe(reader, sizeof reader, &fd);
    refuse.calls = 0;
    CHECK(npy_read_with(tc, reader, &o, &a) == TILEC_E_SHAPE && refuse.calls == 1);
    CHECK_MSG(largest < 4096, "largest allocation %zu bytes", largest);
    end_pipe(child, fd);

    /* Into the caller's buffer: no allocation for the data. */
    float into[6] = {0};
    acceptor take = {0, {0}, TILEC_OK};
    o = (npy_read_options){accept_or_refuse, &take, into, sizeof into, false};
    float data[6] = {1, 2, 3, 4, 5, 6};
    uint64_t shape[2] = {2, 3};
    npy_array w = make(NPY_F32, 2, shape, data);
    CHECK(npy_write(ctx, path, &w, 0) == TILEC_OK);
    largest = 0;
    CHECK(npy_read_with(tc, path, &o, &a) == TILEC_OK && take.calls == 1 && a.data == NULL);
    CHECK(a.size_bytes == sizeof data && !memcmp(into, data, sizeof data) && largest < 4096);
    /* A destination of the wrong size is refused before anything is read. */
    o.into_bytes = sizeof into - 4;
    CHECK(npy_read_with(tc, path, &o, &a) == TILEC_E_SHAPE && !strcmp(last_diag_code(tc), "TILEC-NPY11"));
    CHECK(has_diag_in(tc, "TILEC-NPY11", "the data has 24 bytes, the destination holds 20"));
    /* A short pipe into a buffer: truncated. */
    child = feed_pipe("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n", 10, reader, sizeof reader,
                      &fd);
    o = (npy_read_options){NULL, NULL, into, sizeof into, false};
    CHECK(npy_read_with(tc, reader, &o, &a) == TILEC_E_IO && !strcmp(last_diag_code(tc), "TILEC-NPY07"));
    end_pipe(child, fd);
    tilec_context_destroy(tc);
    tilec_diag_clear(ctx);
}

/* A failed write never removes its target: not a device node (the old
 * writer deleted /dev/full after ENOSPC), not an existing file.  The rules of
 * file_write are tested in test_file.c. */
static void test_failed_write(void) {
    uint64_t shape[1] = {4};
    float data[4] = {1, 2, 3, 4};
    npy_array w = make(NPY_F32, 1, shape, data);
    struct stat st;
    if (stat("/dev/full", &st) == 0) {
        CHECK(npy_write(ctx, "/dev/full", &w, 0) == TILEC_E_IO && !strcmp(last_diag_code(ctx), "TILEC-IO01"));
        CHECK(has_diag_in(ctx, "TILEC-IO01", "/dev/full: cannot write: No space left on device"));
        CHECK(stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode));
    }
    CHECK(npy_write(ctx, path, &w, 0) == TILEC_OK);
    w.size_bytes = 0; /* an invalid array is refused before the file is touched */
    CHECK(npy_write(ctx, path, &w, 0) == TILEC_E_ARG);
    npy_array a;
    CHECK(read_back(&a) == TILEC_OK && a.size_bytes == sizeof data && !memcmp(a.data, data, sizeof data));
    npy_array_free(ctx, &a);
    tilec_diag_clear(ctx);
}

static void test_names(void) {
    CHECK(!strcmp(npy_dtype_name(NPY_F32), "f32") && !strcmp(npy_dtype_descr(NPY_BOOL), "|b1"));
    CHECK(npy_dtype_size(NPY_U64) == 8 && npy_dtype_size(NPY_INVALID) == 0);
    CHECK(!strcmp(npy_dtype_name((npy_dtype)99), "invalid") && npy_dtype_size((npy_dtype)99) == 0);
    uint64_t v, huge[2] = {UINT64_MAX, 2};
    CHECK(npy_volume(0, NULL, &v) && v == 1);
    CHECK(!npy_volume(2, huge, &v));
}

int main(void) {
    CHECK(tilec_context_create(NULL, &ctx) == TILEC_OK);
    strcpy(dir, "/tmp/tilec-npy-XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/a.npy", dir);
    test_names();
    test_header_bytes();
    test_round_trips();
    test_variants();
    test_malformed();
    truncate_everywhere(1);
    truncate_everywhere(2);
    corrupt_headers();
    test_allocation_failure();
    test_failed_write();
    test_streams();
    test_read_with();
    remove(path);
    rmdir(dir);
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
