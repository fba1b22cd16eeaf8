/* The CUDA driver adapter (src/gpu/cuda.c) without a GPU: a driver that
 * cannot be loaded is GPU-D01, on this machine and with the default
 * "libcuda.so.1" wherever it is absent (where it loads, open succeeds and
 * names a device, or reports GPU-D03 for a driver without a device); a
 * driver lacking an entry point is GPU-D02 naming it; a failing cuInit is
 * GPU-D03 with the driver's error name and text; the context stays usable
 * after each.  Against the fake driver (tests/gpu/fake_cuda_driver.c):
 * device properties; device memory round trips, 0-byte allocations, out of
 * device memory (GPU-D06); a rejected PTX with its JIT log (GPU-D04), a
 * missing entry (GPU-D05); launches passing their parameters, timing's mean,
 * shapes refused before launching (GPU-D08); every call works from a thread
 * that has no current context; a faulting kernel (GPU-D07) poisons the
 * context until it is closed; host allocation failure (GPU-M01); nothing
 * left unreleased. */
#include "diag_util.h"
#include "gpu/cuda.h"
#include "harness.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Opening must fail with exactly one diagnostic `code` containing `text`. */
static void expect_refused(tilec_context *ctx, const char *code, const char *text) {
    gpu_cuda *g = (gpu_cuda *)&g; /* not NULL: open must clear it */
    CHECK(gpu_cuda_open(ctx, &g) == TILEC_E_UNSUPPORTED);
    CHECK(g == NULL);
    CHECK_MSG(tilec_diag_count(ctx) == 1 && has_diag_in(ctx, code, text), "want one %s containing '%s'", code, text);
    flush_diags_in(ctx);
}

/* The fake driver's own counters, through its handle. */
static int (*fake_outstanding)(void);
static long (*fake_launches)(void);

static void *fake_symbol(void *library, const char *name) {
    void *address = dlsym(library, name);
    CHECK_MSG(address != NULL, "the fake driver lacks %s", name);
    return address;
}

/* Device memory from a thread that never made the context current. */
typedef struct {
    gpu_cuda *g;
    tilec_status status;
} thread_job;

static void *use_from_thread(void *arg) {
    thread_job *job = arg;
    tilec_context *ctx;
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return NULL;
    gpu_device_ptr p = 0;
    uint32_t in = 0xdeadbeef, out = 0;
    job->status = gpu_cuda_alloc(job->g, ctx, sizeof in, &p);
    if (job->status == TILEC_OK) job->status = gpu_cuda_upload(job->g, ctx, p, &in, sizeof in);
    if (job->status == TILEC_OK) job->status = gpu_cuda_download(job->g, ctx, &out, p, sizeof out);
    if (job->status == TILEC_OK && out != in) job->status = TILEC_E_RUNTIME;
    gpu_cuda_free(job->g, p);
    flush_diags_in(ctx);
    tilec_context_destroy(ctx);
    return NULL;
}

static const char *FILL_PTX = ".version 8.0\n.target sm_90\n.visible .entry fill(.param .u64 out, .param .u32 value)\n{ ret; }\n";

static void fake_device(tilec_context *ctx) {
    gpu_cuda *g = NULL;
    CHECK(gpu_cuda_open(ctx, &g) == TILEC_OK && g);
    flush_diags_in(ctx);
    if (!g) return;
    CHECK(!strcmp(gpu_cuda_device_name(g), "fake"));
    CHECK(gpu_cuda_compute_capability(g) == 90 && gpu_cuda_multiprocessors(g) == 4);
    CHECK(gpu_cuda_max_grid(g) == 65535 && gpu_cuda_max_block(g) == 1024);
    CHECK(gpu_cuda_total_memory(g) == (uint64_t)1 << 30);

    /* memory: a round trip, zeroing, 0 bytes, too many bytes */
    uint32_t in[16], out[16];
    for (int i = 0; i < 16; i++) in[i] = 1000u + (uint32_t)i;
    gpu_device_ptr p = 0, none = 1;
    CHECK(gpu_cuda_alloc(g, ctx, sizeof in, &p) == TILEC_OK && p);
    CHECK(gpu_cuda_upload(g, ctx, p, in, sizeof in) == TILEC_OK);
    CHECK(gpu_cuda_download(g, ctx, out, p, sizeof out) == TILEC_OK && !memcmp(in, out, sizeof in));
    CHECK(gpu_cuda_zero(g, ctx, p, 8 * sizeof(uint32_t)) == TILEC_OK);
    CHECK(gpu_cuda_download(g, ctx, out, p, sizeof out) == TILEC_OK && out[7] == 0 && out[8] == 1008);
    CHECK(gpu_cuda_alloc(g, ctx, 0, &none) == TILEC_OK && none == 0);
    CHECK(gpu_cuda_upload(g, ctx, 0, in, 0) == TILEC_OK && gpu_cuda_zero(g, ctx, 0, 0) == TILEC_OK);
    gpu_cuda_free(g, 0);
    CHECK(tilec_diag_count(ctx) == 0);
    gpu_device_ptr huge = 1;
    CHECK(gpu_cuda_alloc(g, ctx, (uint64_t)1 << 31, &huge) == TILEC_E_NOMEM && huge == 0);
    CHECK(has_diag_in(ctx, "GPU-D06", "allocating 2147483648 bytes of device memory: CUDA_ERROR_OUT_OF_MEMORY"));
    flush_diags_in(ctx);

    /* the calls from another thread make the context current themselves */
    thread_job job = {g, TILEC_E_INTERNAL};
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, use_from_thread, &job) == 0 && pthread_join(thread, NULL) == 0);
    CHECK(job.status == TILEC_OK);

    /* modules: rejected PTX with its log, a missing entry, then `fill` */
    gpu_cuda_module *m = (gpu_cuda_module *)&m;
    CHECK(gpu_cuda_load(g, ctx, "syntax error", "fill", &m) == TILEC_E_UNSUPPORTED && !m);
    CHECK(has_diag_in(ctx, "GPU-D04", "rejected the PTX of fill: CUDA_ERROR_INVALID_PTX"));
    CHECK(has_diag_in(ctx, "GPU-D04", "JIT log:\nptxas application ptx input, line 1; fatal : fake syntax error"));
    flush_diags_in(ctx);
    CHECK(gpu_cuda_load(g, ctx, FILL_PTX, "missing", &m) == TILEC_E_ARG && !m);
    CHECK(has_diag_in(ctx, "GPU-D05", "no kernel 'missing': CUDA_ERROR_NOT_FOUND"));
    flush_diags_in(ctx);
    CHECK(gpu_cuda_load(g, ctx, FILL_PTX, "fill", &m) == TILEC_OK && m);
    flush_diags_in(ctx);
    if (m) {
        uint32_t value = 77;
        void *params[] = {&p, &value};
        CHECK(gpu_cuda_launch(g, ctx, m, 2, 8, params) == TILEC_OK);
        CHECK(gpu_cuda_download(g, ctx, out, p, sizeof out) == TILEC_OK && out[0] == 77 && out[15] == 77);
        long before = fake_launches();
        double ms = -1;
        CHECK(gpu_cuda_time(g, ctx, m, 2, 8, params, 3, 4, &ms) == TILEC_OK && ms == 0.25);
        CHECK(fake_launches() == before + 7);
        flush_diags_in(ctx);

        /* shapes the device cannot run: refused, nothing launched */
        before = fake_launches();
        CHECK(gpu_cuda_launch(g, ctx, m, 65536, 8, params) == TILEC_E_UNSUPPORTED);
        CHECK(has_diag_in(ctx, "GPU-D08", "fill: grid of 65536 blocks exceeds the device's max grid x 65535"));
        CHECK(gpu_cuda_launch(g, ctx, m, 1, 1025, params) == TILEC_E_UNSUPPORTED);
        CHECK(has_diag_in(ctx, "GPU-D08", "block of 1025 threads exceeds the device's max threads per block 1024"));
        CHECK(gpu_cuda_time(g, ctx, m, 65536, 8, params, 1, 1, &ms) == TILEC_E_UNSUPPORTED);
        CHECK(gpu_cuda_launch(g, ctx, m, 0, 8, params) == TILEC_E_ARG);
        CHECK(gpu_cuda_time(g, ctx, m, 2, 8, params, 0, 0, &ms) == TILEC_E_ARG && ms == 0);
        CHECK(tilec_diag_count(ctx) == 5 && !strcmp(last_diag_code(ctx), "GPU-D08"));
        CHECK(fake_launches() == before);
        flush_diags_in(ctx);
    }

    /* a faulting kernel: GPU-D07, and the context is poisoned until closed */
    gpu_cuda_module *faulty = NULL;
    CHECK(gpu_cuda_load(g, ctx, ".entry faulty", "faulty", &faulty) == TILEC_OK && faulty);
    if (faulty) {
        CHECK(gpu_cuda_launch(g, ctx, faulty, 1, 32, NULL) == TILEC_E_RUNTIME);
        CHECK(has_diag_in(ctx, "GPU-D07", "running faulty (grid 1, block 32): CUDA_ERROR_LAUNCH_FAILED"));
        gpu_device_ptr later = 1;
        CHECK(gpu_cuda_alloc(g, ctx, 4, &later) == TILEC_E_RUNTIME && later == 0);
        CHECK(has_diag_in(ctx, "GPU-D06", "CUDA_ERROR_LAUNCH_FAILED"));
        double ms = -1;
        CHECK(gpu_cuda_time(g, ctx, faulty, 1, 32, NULL, 0, 1, &ms) == TILEC_E_RUNTIME && ms == 0);
        CHECK(!strcmp(last_diag_code(ctx), "GPU-D07"));
        flush_diags_in(ctx);
    }
    gpu_cuda_unload(g, faulty);
    gpu_cuda_unload(g, m);
    gpu_cuda_unload(g, NULL);
    gpu_cuda_free(g, p);
    gpu_cuda_close(g);
    CHECK(fake_outstanding() == 0);

    /* reopened: a fresh context */
    CHECK(gpu_cuda_open(ctx, &g) == TILEC_OK && g);
    p = 0;
    CHECK(g && gpu_cuda_alloc(g, ctx, 4, &p) == TILEC_OK && p);
    if (g) gpu_cuda_free(g, p);

    /* host allocation failure: GPU-M01, nothing left behind */
    m = (gpu_cuda_module *)&m;
    tilec_context_fail_allocation_after(ctx, 0);
    CHECK(g && gpu_cuda_load(g, ctx, FILL_PTX, "fill", &m) == TILEC_E_NOMEM && !m);
    gpu_cuda_close(g);
    g = (gpu_cuda *)&g;
    CHECK(gpu_cuda_open(ctx, &g) == TILEC_E_NOMEM && !g);
    tilec_context_fail_allocation_after(ctx, -1);
    CHECK(tilec_diag_count(ctx) == 2 && !strcmp(last_diag_code(ctx), "GPU-M01"));
    flush_diags_in(ctx);
    CHECK(fake_outstanding() == 0);
    gpu_cuda_close(NULL);
}

int main(void) {
    tilec_context *ctx;
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;

    /* a driver path that does not exist; twice, the context still usable */
    const char *missing = "/nonexistent/tilec-test/libcuda.so.1";
    setenv("TILEC_CUDA_DRIVER", missing, 1);
    expect_refused(ctx, "GPU-D01", "no CUDA driver: /nonexistent/tilec-test/libcuda.so.1 could not be loaded (");
    expect_refused(ctx, "GPU-D01", "no CUDA driver");
    void *block = tilec_alloc(ctx, 64);
    CHECK(block != NULL);
    tilec_free(ctx, block);

    /* the default driver: absent here (GPU-D01); where it loads, a device
     * (or, on a machine with the driver but no GPU, GPU-D03) */
    unsetenv("TILEC_CUDA_DRIVER");
    void *libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!libcuda) {
        expect_refused(ctx, "GPU-D01", "no CUDA driver: libcuda.so.1 could not be loaded");
    } else {
        dlclose(libcuda); /* before any cuInit: safe */
        gpu_cuda *g = NULL;
        tilec_status st = gpu_cuda_open(ctx, &g);
        if (st == TILEC_OK) {
            CHECK(g && gpu_cuda_device_name(g)[0] != '\0');
            CHECK(g && gpu_cuda_compute_capability(g) >= 10 && gpu_cuda_multiprocessors(g) > 0);
            fprintf(stderr, "libcuda.so.1: device 0 is %s, sm_%u\n", g ? gpu_cuda_device_name(g) : "?",
                    g ? gpu_cuda_compute_capability(g) : 0);
            gpu_cuda_close(g);
        } else {
            CHECK(st == TILEC_E_UNSUPPORTED && !g && tilec_diag_count(ctx) == 1 && has_diag_in(ctx, "GPU-D03", NULL));
        }
        flush_diags_in(ctx);
    }

    /* a driver lacking an entry point */
    setenv("TILEC_CUDA_DRIVER", FAKE_CUDA_DRIVER_PARTIAL, 1);
    expect_refused(ctx, "GPU-D02", "lacks cuEventDestroy_v2");

    /* cuInit fails: no device */
    setenv("TILEC_CUDA_DRIVER", FAKE_CUDA_DRIVER, 1);
    setenv("FAKE_CUDA_INIT_RESULT", "100", 1);
    expect_refused(ctx, "GPU-D03", "cuInit: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)");
    unsetenv("FAKE_CUDA_INIT_RESULT");

    /* the fake device, with its counters read through its own handle */
    void *fake = dlopen(FAKE_CUDA_DRIVER, RTLD_NOW | RTLD_LOCAL);
    CHECK_MSG(fake != NULL, "%s", dlerror());
    if (fake) {
        void *outstanding = fake_symbol(fake, "fake_cuda_outstanding"), *launches = fake_symbol(fake, "fake_cuda_launches");
        memcpy(&fake_outstanding, &outstanding, sizeof outstanding);
        memcpy(&fake_launches, &launches, sizeof launches);
        if (outstanding && launches) fake_device(ctx);
        dlclose(fake); /* the adapter keeps its own reference */
    }
    unsetenv("TILEC_CUDA_DRIVER");
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
