/* fuzz_npy.c — libFuzzer target for the .npy reader (src/base/npy.h) and the
 * CLI's --in loader (cli_args_load_npy, tools/tilec/args.h).
 *
 * Any input is read four ways: as a regular file (the reader can seek, so it
 * checks declared sizes against the file before allocating), as a pipe (it
 * cannot seek: the data streams in, as from `--in X=/dev/stdin`), through
 * npy_read_with's header check and caller's buffer, and into parameters of a
 * small kernel as `tilec run --in` does.  Checked on every input:
 *   - no crash and no leak (ASan and LSan under libFuzzer);
 *   - no read holds more than read_bound(size) bytes of the context's memory at
 *     once (the header cap plus three times the input): a 100-byte file declaring
 *     gigabytes is refused, never allocated.  The allocator refuses what would
 *     pass the bound and the target then aborts, so the replay in `make test`
 *     catches it too, without touching the memory;
 *   - the file and the pipe agree: the same status and first diagnostic code
 *     and, on success, the same dtype, shape and bytes, which are the input's
 *     last size_bytes bytes;
 *   - a failure leaves the array zeroed and a diagnostic;
 *   - npy_read_with: `accept` sees the read's header once, before the data;
 *     refusing there is the read's result; `into` gets the same bytes;
 *   - the loader succeeds exactly when the file reads with the parameter's
 *     dtype and shape, and then the buffer holds the file's data.
 * Run with `make fuzz FUZZ_TARGET=fuzz_npy` (needs clang); `make test`
 * replays tests/fuzz/corpus/npy (seeds from make_npy_seeds.py, then crash
 * reproducers) through this same entry (tests/fuzz/replay.c). */
#define _GNU_SOURCE /* memfd_create */
#include "args.h"
#include "base/npy.h"
#include "tir/text.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The reader's fixed allowance: a header may declare up to 1 MiB
 * (MAX_HEADER_BYTES in npy.c), allocated before it is read and freed before
 * the data; a pipe's data starts in a buffer of up to 1 MiB
 * (STREAM_CHUNK_BYTES); SLACK covers the diagnostics.  Beyond that, data needs
 * at most three times the input: a buffer that doubles as a pipe's bytes
 * arrive holds its old and new copies for a moment. */
enum { HEADER_CAP = 1 << 20, SLACK = 64 << 10, PIPE_CAPACITY = 64 << 10 };

static size_t read_bound(size_t input_size) { return HEADER_CAP + SLACK + 3 * input_size; }

/* One parameter per seed shape (make_npy_seeds.py), every dtype family and
 * ranks 0 to 3. */
static const char kernel_text[] = "kernel @params(\n"
                                  "    %F: view<f32>[F.0=2, F.1=3], %B: view<i8>[B.0=5],\n"
                                  "    %Q: view<bool>[Q.0=1, Q.1=1, Q.2=2], %D: view<f64>[D.0=0],\n"
                                  "    %U: view<u16>[U.0=4], %S: view<i64>[], %P: view<u8>[P.0=3],\n"
                                  "    %R: view<f64>[R.0=2], %L: view<i32>[L.0=2, L.1=1]) {\n"
                                  "  parallel (%i: i=1) {\n"
                                  "  }\n"
                                  "}\n";

static void fail(const char *why) {
    fprintf(stderr, "fuzz_npy: %s\n", why);
    abort();
}

/* ---- an allocator that keeps the live bytes under a bound ---- */

typedef struct {
    size_t live, base, bound; /* a read may hold bound bytes above base */
    size_t refused;           /* the largest request refused, 0: none */
} accounting;

typedef union {
    size_t size;
    max_align_t align;
} block_header;

static void *counted_alloc(void *user, size_t size) {
    accounting *a = user;
    /* A read may free what was there before it (the diagnostics array grows). */
    size_t held = a->live > a->base ? a->live - a->base : 0;
    if (size > a->bound || held > a->bound - size) {
        if (size > a->refused) a->refused = size;
        return NULL;
    }
    block_header *h = malloc(sizeof *h + size);
    if (!h) return NULL;
    h->size = size;
    a->live += size;
    return h + 1;
}

static void counted_free(void *user, void *ptr) {
    accounting *a = user;
    if (!ptr) return; /* the context frees NULL as free() does */
    block_header *h = (block_header *)ptr - 1;
    a->live -= h->size;
    free(h);
}

/* ---- the ways in ---- */

typedef struct {
    tilec_status status;
    char code[32]; /* the first diagnostic's; empty on success */
    npy_array array;
} read_result;

/* The name the reader opens for file descriptor fd, as the CLI opens a path. */
static const char *fd_path(char path[32], int fd) {
    snprintf(path, 32, "/proc/self/fd/%d", fd);
    return path;
}

/* Reads what is behind fd (npy_read_with with `o`; NULL: npy_read) and keeps
 * the first diagnostic's code. */
static read_result read_fd(tilec_context *ctx, accounting *a, int fd, const npy_read_options *o) {
    char path[32];
    read_result r;
    a->base = a->live;
    r.status = npy_read_with(ctx, fd_path(path, fd), o, &r.array);
    if (a->refused) fail("the reader asked for more memory than its input can justify");
    r.code[0] = 0;
    if (r.status != TILEC_OK) {
        static const npy_array zero;
        if (tilec_diag_count(ctx) == 0) fail("a failed read left no diagnostic");
        if (memcmp(&r.array, &zero, sizeof zero)) fail("a failed read left a non-empty array");
        const char *code = tilec_diag_at(ctx, 0)->code;
        snprintf(r.code, sizeof r.code, "%s", code ? code : "?");
    }
    return r;
}

static void check_success(const read_result *r, const uint8_t *data, size_t size) {
    uint64_t volume;
    if (!npy_volume(r->array.rank, r->array.shape, &volume) ||
        volume * npy_dtype_size(r->array.dtype) != r->array.size_bytes)
        fail("the data size is not the shape's");
    if (r->array.size_bytes > size || (r->array.size_bytes && !r->array.data) ||
        memcmp(r->array.data, data + size - r->array.size_bytes, r->array.size_bytes))
        fail("the data is not the input's last bytes");
}

static bool same_read(const read_result *x, const read_result *y) {
    if (x->status != y->status) return false;
    if (x->status != TILEC_OK) return !strcmp(x->code, y->code);
    const npy_array *a = &x->array, *b = &y->array;
    return a->dtype == b->dtype && a->rank == b->rank && !memcmp(a->shape, b->shape, a->rank * sizeof *a->shape) &&
           a->size_bytes == b->size_bytes && !memcmp(a->data, b->data, a->size_bytes);
}

/* A pipe holding the input, its write end closed; -1 when it does not fit. */
static int pipe_with(const uint8_t *data, size_t size) {
    int fds[2];
    if (size > PIPE_CAPACITY || pipe(fds) != 0) return -1;
    bool written = write(fds[1], data, size) == (ssize_t)size;
    close(fds[1]);
    if (!written) close(fds[0]);
    return written ? fds[0] : -1;
}

/* What npy_read_with's `accept` expects and answers. */
typedef struct {
    tilec_context *ctx;
    const npy_array *expected; /* the header the plain read returned; NULL: it failed */
    tilec_status answer;       /* TILEC_OK, or refuse with this status */
    unsigned calls;
} acceptor;

static tilec_status accept_header(void *user, const npy_array *header) {
    acceptor *c = user;
    const npy_array *e = c->expected;
    c->calls++;
    if (header->data) fail("accept saw data");
    if (e && (header->dtype != e->dtype || header->rank != e->rank || header->size_bytes != e->size_bytes ||
              memcmp(header->shape, e->shape, e->rank * sizeof *e->shape)))
        fail("accept saw another header than the read returns");
    if (c->answer == TILEC_OK) return TILEC_OK;
    return tilec_error(c->ctx, c->answer, "FUZZ-REFUSED", tilec_no_loc(), "refused by fuzz_npy");
}

/* npy_read_with, the header check the CLI's loader relies on: `accept` sees
 * the header the plain read returns, at most once and before the data, and
 * accepting changes nothing; refusing fails the read with its own status;
 * `into` a buffer of the data's size gets the same bytes (out->data stays
 * NULL), one a byte larger is TILEC-NPY11. */
static void check_read_with(tilec_context *ctx, accounting *a, int fd, const read_result *file) {
    const npy_array *e = file->status == TILEC_OK ? &file->array : NULL;
    acceptor c = {ctx, e, TILEC_OK, 0};
    npy_read_options o = {accept_header, &c, NULL, 0, false};
    tilec_diag_clear(ctx);
    read_result r = read_fd(ctx, a, fd, &o);
    if (!same_read(file, &r) || c.calls > 1) fail("an accepting header check changed the read");
    npy_array_free(ctx, &r.array);
    if (!e) return;
    unsigned char *buffer = malloc(e->size_bytes + 1);
    if (!buffer) fail("out of memory");
    o.into = buffer;
    o.into_bytes = e->size_bytes;
    c.calls = 0;
    tilec_diag_clear(ctx);
    r = read_fd(ctx, a, fd, &o);
    if (r.status != TILEC_OK || r.array.data || c.calls != 1 || memcmp(buffer, e->data, e->size_bytes))
        fail("reading into a buffer of the data's size");
    o.into_bytes = e->size_bytes + 1;
    tilec_diag_clear(ctx);
    r = read_fd(ctx, a, fd, &o);
    if (r.status != TILEC_E_SHAPE || strcmp(r.code, "TILEC-NPY11")) fail("a destination of another size was taken");
    free(buffer);
    o.into = NULL;
    c.answer = TILEC_E_TYPE;
    c.calls = 0;
    tilec_diag_clear(ctx);
    r = read_fd(ctx, a, fd, &o);
    if (r.status != TILEC_E_TYPE || c.calls != 1 || strcmp(r.code, "FUZZ-REFUSED"))
        fail("a refused header was read on");
}

/* Loads the file into every parameter of its element type and into the
 * first of another (each load reads the file again: loading all nine would
 * cost most of the run); a load succeeds exactly when the file reads and
 * matches the parameter. */
static void check_loader(tilec_context *ctx, accounting *a, int fd, const read_result *file) {
    /* Parsed once, in a context of its own that lives as long as the process
     * (parsing it for every input took half the run). */
    static const tir_func *kernel;
    if (!kernel) {
        tilec_context *kernel_ctx;
        tir_module *m = NULL;
        if (tilec_context_create(NULL, &kernel_ctx) != TILEC_OK ||
            tir_parse(kernel_ctx, kernel_text, sizeof kernel_text - 1, "params.tir", NULL, 0, &m) != TILEC_OK)
            fail("the parameter kernel does not parse");
        kernel = tir_module_func(m, 0);
    }
    cli_args args;
    if (cli_args_create(ctx, kernel, &args) != TILEC_OK) fail("cannot allocate the parameters");
    char path[32];
    fd_path(path, fd);
    bool other_tried = false;
    for (size_t i = 0; i < args.count; i++) {
        const cli_param *p = &args.params[i];
        uint64_t bytes = p->volume * tir_scalar_size(p->elem);
        bool same_type =
            file->status == TILEC_OK && !strcmp(npy_dtype_name(file->array.dtype), tir_scalar_name(p->elem));
        if (!same_type && other_tried) continue;
        other_tried = other_tried || !same_type;
        bool fits = same_type && file->array.rank == tir_space_rank(p->space) && file->array.size_bytes == bytes;
        for (size_t k = 0; fits && k < file->array.rank; k++)
            fits = file->array.shape[k] == tir_space_extent(p->space, k);
        a->base = a->live;
        tilec_status st = cli_args_load_npy(&args, i, path);
        if (a->refused) fail("the loader asked for more memory than its input can justify");
        if ((st == TILEC_OK) != fits) fail(fits ? "a matching file was not loaded" : "a mismatched file was loaded");
        if (st != TILEC_OK && tilec_diag_count(ctx) == 0) fail("a failed load left no diagnostic");
        if (st == TILEC_OK && memcmp(args.buffers[i].data, file->array.data, (size_t)bytes))
            fail("the loaded buffer is not the file's data");
        tilec_diag_clear(ctx);
    }
    cli_args_destroy(&args);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    accounting a = {0, 0, read_bound(size), 0};
    tilec_allocator allocator = {counted_alloc, counted_free, &a};
    tilec_context *ctx;
    if (tilec_context_create(&allocator, &ctx) != TILEC_OK) return 0;
    int file_fd = memfd_create("fuzz_npy", 0);
    if (file_fd < 0 || write(file_fd, data, size) != (ssize_t)size) fail("cannot make the input a file");

    read_result file = read_fd(ctx, &a, file_fd, NULL);
    if (file.status == TILEC_OK) check_success(&file, data, size);
    int pipe_fd = pipe_with(data, size);
    if (pipe_fd >= 0) {
        tilec_diag_clear(ctx);
        read_result piped = read_fd(ctx, &a, pipe_fd, NULL);
        if (!same_read(&file, &piped)) fail("the file and the pipe read differently");
        npy_array_free(ctx, &piped.array);
        close(pipe_fd);
    }
    check_read_with(ctx, &a, file_fd, &file);
    tilec_diag_clear(ctx);
    check_loader(ctx, &a, file_fd, &file);

    npy_array_free(ctx, &file.array);
    close(file_fd);
    tilec_context_destroy(ctx);
    return 0;
}
