/* The facade's CUDA target end to end on the fake driver
 * (tests/gpu/fake_cuda_driver.c: device memory is host memory, kernel
 * "fill" stores the u32 of its second parameter into grid × block u32
 * elements at its first, kernel "faulty" fails the context):
 *
 * - tilec_compile with target cuda opens the driver, plans for the device
 *   (its 4 multiprocessors, its sm_90), loads the PTX and finds the entry;
 *   the realization says target=cuda, the device and the architecture;
 * - tilec_dispatch of @fill: the launch ABI (buffer 0 first, the dispatch
 *   size second: the fake writes 64 where the kernel itself would write 7),
 *   the copy back of a written argument, the untouched sentinels past it;
 * - arguments checked before anything runs (RT-D04) and overlapping ones
 *   refused (GPU-D09), no launch for either;
 * - a kernel with runtime sizes: one launch per dispatch on the grid its
 *   sizes give, the dims a device buffer after the arguments, the bytes
 *   checked at those sizes (RT-D04), a size out of range RT-D10, the timed
 *   form refused (TILEC-D02: it takes no sizes);
 * - tilec_dispatch_gpu_timed: warmup + reps launches, the time per timed
 *   launch from the events (the fake's 0.25 ms a launch), the results
 *   copied back; no repetition is GPU-D08, a CPU kernel TILEC-D02;
 * - a kernel that fails on the device (GPU-D07), the context usable for
 *   diagnostics, every driver object released once the kernels are gone. */
#include "harness.h"

#include "tilec/tilec.h"

#include <dlfcn.h>
#include <stdlib.h>

static tilec_context *ctx;
static int (*fake_outstanding)(void);
static long (*fake_launches)(void);
static unsigned (*fake_last_grid)(void);

/* `text` parsed into *m and its kernel compiled for the CUDA target with
 * options o (target set here); NULL after a failed CHECK. */
static tilec_kernel *compile_cuda(const char *text, tilec_compile_options o, tir_module **m) {
    *m = NULL;
    CHECK(tir_parse(ctx, text, strlen(text), "fake.tir", NULL, 0, m) == TILEC_OK);
    o.target = TILEC_TARGET_CUDA;
    tilec_kernel *k = NULL;
    CHECK(*m && tilec_compile(ctx, tir_module_func(*m, 0), &o, &k) == TILEC_OK && k);
    if (!k) tilec_diag_print(ctx, stderr);
    return k;
}

/* A fill kernel in blocks of 64 threads, one program per lane: the fake
 * fills grid × block elements, exactly the view. */
static tilec_kernel *compile_fill(const char *text, tir_module **m) {
    tilec_compile_options o = tilec_compile_options_default();
    o.block_size = 64;
    o.local_lanes = 1;
    return compile_cuda(text, o, m);
}

static bool has(const char *code, const char *text) {
    for (size_t i = 0; i < tilec_diag_count(ctx); i++) {
        const tilec_diag *d = tilec_diag_at(ctx, i);
        if (!strcmp(d->code, code) && strstr(d->message, text)) return true;
    }
    tilec_diag_print(ctx, stderr);
    return false;
}

static const char *FILL = "kernel @fill(%Y: view<u32>[Y.0=64]) {\n"
                          "  parallel (%i: i=64) {\n"
                          "    %v = const u32 7\n"
                          "    store %Y[%i], %v\n"
                          "  }\n"
                          "}\n";

static void test_fill(void) {
    tir_module *m;
    tilec_kernel *k = compile_fill(FILL, &m);
    if (!k) {
        tir_module_destroy(m);
        return;
    }
    CHECK(tilec_kernel_target(k) == TILEC_TARGET_CUDA && tilec_kernel_width(k) == 32);
    const char *r = tilec_kernel_realization(k);
    CHECK_STR_CONTAINS(r, "target=cuda; sm=sm_90; device=fake; W=32; block=64; dispatch=64");
    CHECK_STR_CONTAINS(tilec_kernel_asm(k), ".visible .entry fill(");
    CHECK_STR_CONTAINS(tilec_kernel_backend_realization(k), "target=cuda; sm=sm_90");

    uint32_t mem[64 + 4];
    for (int i = 0; i < 68; i++) mem[i] = 0xdeadbeef;
    tilec_buffer arg = {mem, 64 * sizeof(uint32_t), TIR_U32};
    long before = fake_launches();
    CHECK(tilec_dispatch(ctx, k, 1, &arg) == TILEC_OK);
    CHECK(fake_launches() == before + 1);
    int wrong = 0;
    for (int i = 0; i < 64; i++) wrong += mem[i] != 64;
    CHECK_MSG(wrong == 0, "%d elements are not the dispatch size the fake stored", wrong);
    for (int i = 64; i < 68; i++) CHECK(mem[i] == 0xdeadbeef);

    /* checked before anything runs */
    arg.size_bytes = 60 * sizeof(uint32_t);
    CHECK(tilec_dispatch(ctx, k, 1, &arg) == TILEC_E_RUNTIME && has("RT-D04", "at least 256"));
    CHECK(fake_launches() == before + 1);
    tilec_diag_clear(ctx);
    tilec_kernel_destroy(k);
    tir_module_destroy(m);
}

/* A kernel with runtime sizes: one variant per bucket plan, each launched
 * on a grid from the dispatch's sizes, the dims after the arguments (the
 * fake's fill_sized stores the dispatch size into dims[0] elements; its
 * range starts at 2, as a bucket of one point would be a static kernel,
 * whose parameters the fake does not tell apart by its name). */
static const char *FILL_SIZED = "kernel @fill_sized<N: 2..4096>(%Y: view<u32>[Y.0=N]) {\n"
                                "  parallel (%i: i=N) {\n"
                                "    %v = const u32 7\n"
                                "    store %Y[%i], %v\n"
                                "  }\n"
                                "}\n";

static void test_fill_sized(void) {
    tir_module *m;
    tilec_kernel *k = compile_fill(FILL_SIZED, &m);
    if (k) {
        CHECK(tilec_kernel_target(k) == TILEC_TARGET_CUDA && tilec_kernel_dim_count(k) == 1);
        static uint32_t mem[3000 + 4];
        static const int64_t sizes[] = {2, 100, 3000};
        for (size_t s = 0; s < 3; s++) {
            int64_t n = sizes[s];
            for (int i = 0; i < 3004; i++) mem[i] = 0xdeadbeef;
            tilec_buffer arg = {mem, (size_t)n * sizeof(uint32_t), TIR_U32};
            long before = fake_launches();
            CHECK(tilec_dispatch_dims(ctx, k, 1, &arg, 1, &n) == TILEC_OK && fake_launches() == before + 1);
            CHECK_MSG(fake_last_grid() == (unsigned)((n + 63) / 64), "N=%lld: grid %u", (long long)n, fake_last_grid());
            int wrong = 0;
            for (int64_t i = 0; i < n; i++) wrong += mem[i] != (uint32_t)n;
            CHECK_MSG(wrong == 0 && mem[n] == 0xdeadbeef, "N=%lld: %d elements are not the dispatch size", (long long)n,
                      wrong);
        }
        /* the buffer checked at the sizes; a size outside the range refused; no launch */
        int64_t n = 100, far = 5000;
        tilec_buffer short_arg = {mem, 99 * sizeof(uint32_t), TIR_U32};
        long before = fake_launches();
        CHECK(tilec_dispatch_dims(ctx, k, 1, &short_arg, 1, &n) == TILEC_E_RUNTIME && has("RT-D04", "at least 400"));
        CHECK(tilec_dispatch_dims(ctx, k, 1, &short_arg, 1, &far) == TILEC_E_ARG && has("RT-D10", "outside its range"));
        double ms;
        CHECK(tilec_dispatch_gpu_timed(ctx, k, 1, &short_arg, 0, 1, &ms) == TILEC_E_ARG && has("TILEC-D02", "runtime sizes"));
        CHECK(fake_launches() == before);
        tilec_diag_clear(ctx);
    }
    tilec_kernel_destroy(k);
    tir_module_destroy(m);
}

static void test_timed(void) {
    tir_module *m;
    tilec_kernel *k = compile_fill(FILL, &m);
    if (k) {
        uint32_t mem[64];
        memset(mem, 0, sizeof mem);
        tilec_buffer arg = {mem, sizeof mem, TIR_U32};
        long before = fake_launches();
        double ms = -1;
        CHECK(tilec_dispatch_gpu_timed(ctx, k, 1, &arg, 2, 3, &ms) == TILEC_OK);
        CHECK_MSG(fake_launches() == before + 5, "%ld launches", fake_launches() - before);
        CHECK_MSG(ms == 0.25, "%g ms per launch", ms);
        CHECK(mem[0] == 64 && mem[63] == 64);

        CHECK(tilec_dispatch_gpu_timed(ctx, k, 1, &arg, 0, 0, &ms) == TILEC_E_ARG && has("GPU-D08", "repetition"));
        tilec_diag_clear(ctx);
        CHECK(tilec_dispatch_gpu_timed(ctx, k, 1, &arg, 0, 1, NULL) == TILEC_E_ARG && has("TILEC-D02", "ms"));
        tilec_diag_clear(ctx);
        CHECK(fake_launches() == before + 5);
    }
    tilec_kernel_destroy(k);
    tir_module_destroy(m);

    /* a CPU kernel is not timed here */
    tir_module *cpu_m = NULL;
    tilec_kernel *cpu_k = NULL;
    CHECK(tir_parse(ctx, FILL, strlen(FILL), "fill.tir", NULL, 0, &cpu_m) == TILEC_OK &&
          tilec_compile(ctx, tir_module_func(cpu_m, 0), NULL, &cpu_k) == TILEC_OK);
    uint32_t mem[64];
    tilec_buffer arg = {mem, sizeof mem, TIR_U32};
    double ms;
    CHECK(tilec_dispatch_gpu_timed(ctx, cpu_k, 1, &arg, 0, 1, &ms) == TILEC_E_ARG && has("TILEC-D02", "CPU"));
    tilec_diag_clear(ctx);
    CHECK(tilec_dispatch_gpu_timed(ctx, NULL, 1, &arg, 0, 1, &ms) == TILEC_E_ARG && has("TILEC-D01", "no kernel"));
    tilec_diag_clear(ctx);
    tilec_kernel_destroy(cpu_k);
    tir_module_destroy(cpu_m);
}

static void test_overlap(void) {
    tir_module *m;
    tilec_kernel *k = compile_cuda("kernel @copy(%X: const view<f32>[X.0=64], %Y: view<f32>[Y.0=64]) {\n"
                                   "  parallel (%i: i=64) {\n"
                                   "    %x = load %X[%i] tile [a=1]\n"
                                   "    store %Y[%i] tile [a=1], %x\n"
                                   "  }\n"
                                   "}\n",
                                   tilec_compile_options_default(), &m);
    if (k) {
        float mem[80] = {0};
        tilec_buffer args[2] = {{mem, 64 * sizeof(float), TIR_F32}, {mem + 16, 64 * sizeof(float), TIR_F32}};
        long before = fake_launches();
        CHECK(tilec_dispatch(ctx, k, 2, args) == TILEC_E_UNSUPPORTED && has("GPU-D09", "arguments 0 and 1 overlap"));
        CHECK(fake_launches() == before);
        tilec_diag_clear(ctx);
    }
    tilec_kernel_destroy(k);
    tir_module_destroy(m);
}

static void test_device_failure(void) {
    tir_module *m;
    tilec_kernel *k = compile_cuda("kernel @faulty(%Y: view<f32>[Y.0=32]) {\n"
                                   "  parallel (%i: i=32) {\n"
                                   "    %v = const f32 1.0\n"
                                   "    store %Y[%i], %v\n"
                                   "  }\n"
                                   "}\n",
                                   tilec_compile_options_default(), &m);
    if (k) {
        float mem[32];
        tilec_buffer arg = {mem, sizeof mem, TIR_F32};
        CHECK(tilec_dispatch(ctx, k, 1, &arg) == TILEC_E_RUNTIME && has("GPU-D07", "CUDA_ERROR_LAUNCH_FAILED"));
        tilec_diag_clear(ctx);
    }
    tilec_kernel_destroy(k);
    tir_module_destroy(m);
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    setenv("TILEC_CUDA_DRIVER", FAKE_CUDA_DRIVER, 1);
    void *fake = dlopen(FAKE_CUDA_DRIVER, RTLD_NOW | RTLD_LOCAL);
    void *outstanding = fake ? dlsym(fake, "fake_cuda_outstanding") : NULL;
    void *launches = fake ? dlsym(fake, "fake_cuda_launches") : NULL;
    void *grid = fake ? dlsym(fake, "fake_cuda_last_grid") : NULL;
    CHECK(outstanding && launches && grid);
    if (outstanding && launches && grid) {
        memcpy(&fake_outstanding, &outstanding, sizeof outstanding);
        memcpy(&fake_launches, &launches, sizeof launches);
        memcpy(&fake_last_grid, &grid, sizeof grid);
        test_fill();
        test_fill_sized();
        test_timed();
        test_overlap();
        test_device_failure();
        CHECK_MSG(fake_outstanding() == 0, "%d driver objects left", fake_outstanding());
    }
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
