/* cuda.c — see cuda.h.  The CUDA driver API through dlopen: the few types
 * and prototypes used are declared here (the toolkit's cuda.h is not needed
 * to build), every entry point is listed once in CUDA_ENTRY_POINTS and
 * resolved in one loop, by its exported name (the _v2 names where the
 * driver versioned the call; cuda.h's macros would pick those too).
 *
 * The driver library stays loaded once cuInit ran: the driver starts threads
 * of its own, and unloading code they may run in is not safe.  A later open
 * gets the same library back (dlopen counts references), so this costs
 * nothing per open.  Before cuInit (a missing entry point) it is unloaded.
 *
 * A kernel that faults leaves the CUDA context in a sticky error state: every
 * later call on it fails (GPU-D06/D07 naming the fault) until the gpu_cuda is
 * closed and the primary context released. */
#include "gpu/cuda.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The driver's types, as cuda.h declares them on 64-bit hosts. */
typedef int cu_result; /* CUresult; 0 is CUDA_SUCCESS */
typedef int cu_device;
typedef struct cu_context_opaque *cu_context;
typedef struct cu_module_opaque *cu_module;
typedef struct cu_function_opaque *cu_function;
typedef struct cu_event_opaque *cu_event;
typedef struct cu_stream_opaque *cu_stream; /* NULL: the default stream */

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
    CU_JIT_ERROR_LOG_BUFFER = 5,
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};

/* The CUDA driver API is 64-bit only: size_t is its 64-bit byte count. */
_Static_assert(sizeof(size_t) == sizeof(uint64_t), "the CUDA driver API needs a 64-bit host");
_Static_assert(sizeof(void *) == sizeof(cu_result (*)(void)), "dlsym results are stored as function pointers");

/* Every driver entry point used: its exported name and its parameters (all
 * return a cu_result). */
#define CUDA_ENTRY_POINTS(X) \
    X(cuInit, (unsigned flags)) \
    X(cuGetErrorName, (cu_result error, const char **name)) \
    X(cuGetErrorString, (cu_result error, const char **text)) \
    X(cuDeviceGetCount, (int *count)) \
    X(cuDeviceGet, (cu_device *device, int ordinal)) \
    X(cuDeviceGetName, (char *name, int length, cu_device device)) \
    X(cuDeviceGetAttribute, (int *value, int attribute, cu_device device)) \
    X(cuDeviceTotalMem_v2, (size_t *bytes, cu_device device)) \
    X(cuDevicePrimaryCtxRetain, (cu_context *context, cu_device device)) \
    X(cuDevicePrimaryCtxRelease_v2, (cu_device device)) \
    X(cuCtxSetCurrent, (cu_context context)) \
    X(cuCtxSynchronize, (void)) \
    X(cuMemAlloc_v2, (uint64_t *pointer, size_t bytes)) \
    X(cuMemFree_v2, (uint64_t pointer)) \
    X(cuMemcpyHtoD_v2, (uint64_t dst, const void *src, size_t bytes)) \
    X(cuMemcpyDtoH_v2, (void *dst, uint64_t src, size_t bytes)) \
    X(cuMemsetD8_v2, (uint64_t dst, unsigned char value, size_t bytes)) \
    X(cuModuleLoadDataEx, (cu_module *module, const void *image, unsigned count, int *options, void **values)) \
    X(cuModuleGetFunction, (cu_function *function, cu_module module, const char *name)) \
    X(cuModuleUnload, (cu_module module)) \
    X(cuLaunchKernel, (cu_function function, unsigned grid_x, unsigned grid_y, unsigned grid_z, unsigned block_x, \
                       unsigned block_y, unsigned block_z, unsigned shared_bytes, cu_stream stream, void **params, \
                       void **extra)) \
    X(cuEventCreate, (cu_event *event, unsigned flags)) \
    X(cuEventRecord, (cu_event event, cu_stream stream)) \
    X(cuEventSynchronize, (cu_event event)) \
    X(cuEventElapsedTime, (float *ms, cu_event start, cu_event end)) \
    X(cuEventDestroy_v2, (cu_event event))

typedef struct {
#define X(name, params) cu_result (*name) params;
    CUDA_ENTRY_POINTS(X)
#undef X
} cuda_api;

static const struct {
    const char *name;
    size_t offset;
} CUDA_SYMBOLS[] = {
#define X(name, params) {#name, offsetof(cuda_api, name)},
    CUDA_ENTRY_POINTS(X)
#undef X
};

struct gpu_cuda {
    tilec_context *owner; /* allocated in it */
    void *library;
    cuda_api api;
    cu_device device;
    cu_context context; /* device 0's primary context, retained */
    char name[256];
    uint32_t capability, multiprocessors, max_block, max_grid;
    uint64_t total_memory;
};

struct gpu_cuda_module {
    tilec_context *owner;
    cu_module module;
    cu_function function;
    char entry[]; /* for messages */
};

/* "CUDA_ERROR_X (the driver's text)" for a driver result, into buf. */
static void describe(const gpu_cuda *g, cu_result result, char *buf, size_t size) {
    const char *name = NULL, *text = NULL;
    if (g->api.cuGetErrorName(result, &name) != CUDA_SUCCESS || !name) {
        snprintf(buf, size, "CUDA error %d", result);
        return;
    }
    if (g->api.cuGetErrorString(result, &text) != CUDA_SUCCESS || !text) text = "no description";
    snprintf(buf, size, "%s (%s)", name, text);
}

/* Appends "<what>: CUDA_ERROR_X (the driver's text)" as `code`; returns status. */
static tilec_status driver_error(const gpu_cuda *g, tilec_context *ctx, tilec_status status, const char *code,
                                 cu_result result, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static tilec_status driver_error(const gpu_cuda *g, tilec_context *ctx, tilec_status status, const char *code,
                                 cu_result result, const char *fmt, ...) {
    char what[512], why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    describe(g, result, why, sizeof why);
    return tilec_error(ctx, status, code, tilec_no_loc(), "%s: %s", what, why);
}

/* Makes g's context current on this thread (every call does, first). */
static tilec_status bind(const gpu_cuda *g, tilec_context *ctx) {
    cu_result r = g->api.cuCtxSetCurrent(g->context);
    return r == CUDA_SUCCESS ? TILEC_OK : driver_error(g, ctx, TILEC_E_UNSUPPORTED, "GPU-D03", r, "cuCtxSetCurrent");
}

/* Loads the library and resolves CUDA_SYMBOLS (GPU-D01, GPU-D02). */
static tilec_status load_driver(gpu_cuda *g, tilec_context *ctx, const char *path) {
    g->library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!g->library) {
        const char *why = dlerror();
        return tilec_error(ctx, TILEC_E_UNSUPPORTED, "GPU-D01", tilec_no_loc(),
                           "no CUDA driver: %s could not be loaded (%s)", path, why ? why : "no reason given");
    }
    for (size_t i = 0; i < sizeof CUDA_SYMBOLS / sizeof CUDA_SYMBOLS[0]; i++) {
        void *address = dlsym(g->library, CUDA_SYMBOLS[i].name);
        if (!address) {
            dlclose(g->library); /* cuInit has not run: nothing of it is running */
            g->library = NULL;
            return tilec_error(ctx, TILEC_E_UNSUPPORTED, "GPU-D02", tilec_no_loc(), "the CUDA driver %s lacks %s",
                               path, CUDA_SYMBOLS[i].name);
        }
        /* An object pointer into a function-pointer slot: POSIX guarantees
         * the representation, and memcpy keeps -Wpedantic quiet. */
        memcpy((char *)&g->api + CUDA_SYMBOLS[i].offset, &address, sizeof address);
    }
    return TILEC_OK;
}

/* cuInit, device 0, its properties, its primary context (GPU-D03). */
static tilec_status open_device(gpu_cuda *g, tilec_context *ctx, const char *path) {
    const cuda_api *api = &g->api;
    cu_result r = api->cuInit(0);
    if (r != CUDA_SUCCESS) return driver_error(g, ctx, TILEC_E_UNSUPPORTED, "GPU-D03", r, "%s: cuInit", path);
    int count = 0;
    r = api->cuDeviceGetCount(&count);
    if (r != CUDA_SUCCESS) return driver_error(g, ctx, TILEC_E_UNSUPPORTED, "GPU-D03", r, "%s: cuDeviceGetCount", path);
    if (count < 1)
        return tilec_error(ctx, TILEC_E_UNSUPPORTED, "GPU-D03", tilec_no_loc(), "%s: no CUDA device (the driver reports %d)",
                           path, count);
    r = api->cuDeviceGet(&g->device, 0);
    if (r == CUDA_SUCCESS) r = api->cuDeviceGetName(g->name, (int)sizeof g->name - 1, g->device);
    uint32_t major = 0, minor = 0;
    const struct {
        int attribute;
        uint32_t *value;
    } queries[] = {
        {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &g->max_block},
        {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, &g->max_grid},
        {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &g->multiprocessors},
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &major},
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &minor},
    };
    for (size_t i = 0; r == CUDA_SUCCESS && i < sizeof queries / sizeof queries[0]; i++) {
        int value = 0;
        r = api->cuDeviceGetAttribute(&value, queries[i].attribute, g->device);
        *queries[i].value = value > 0 ? (uint32_t)value : 0;
    }
    size_t total = 0;
    if (r == CUDA_SUCCESS) r = api->cuDeviceTotalMem_v2(&total, g->device);
    if (r != CUDA_SUCCESS)
        return driver_error(g, ctx, TILEC_E_UNSUPPORTED, "GPU-D03", r, "%s: querying CUDA device 0", path);
    g->name[sizeof g->name - 1] = '\0';
    g->capability = major * 10 + minor;
    g->total_memory = total;
    r = api->cuDevicePrimaryCtxRetain(&g->context, g->device);
    if (r != CUDA_SUCCESS)
        return driver_error(g, ctx, TILEC_E_UNSUPPORTED, "GPU-D03", r, "%s: retaining device 0's primary context", path);
    tilec_status st = bind(g, ctx);
    if (st != TILEC_OK) {
        api->cuDevicePrimaryCtxRelease_v2(g->device);
        g->context = NULL;
    }
    return st;
}

tilec_status gpu_cuda_open(tilec_context *ctx, gpu_cuda **out) {
    *out = NULL;
    const char *env = getenv("TILEC_CUDA_DRIVER");
    const char *path = env && *env ? env : "libcuda.so.1";
    gpu_cuda *g = tilec_alloc(ctx, sizeof *g);
    if (!g) return tilec_error(ctx, TILEC_E_NOMEM, "GPU-M01", tilec_no_loc(), "out of memory");
    g->owner = ctx;
    tilec_status st = load_driver(g, ctx, path);
    if (st == TILEC_OK) st = open_device(g, ctx, path);
    if (st != TILEC_OK) {
        tilec_free(ctx, g); /* a failed cuInit keeps the library loaded, as above */
        return st;
    }
    *out = g;
    return TILEC_OK;
}

void gpu_cuda_close(gpu_cuda *g) {
    if (!g) return;
    g->api.cuDevicePrimaryCtxRelease_v2(g->device);
    tilec_free(g->owner, g);
}

const char *gpu_cuda_device_name(const gpu_cuda *g) { return g->name; }
uint32_t gpu_cuda_compute_capability(const gpu_cuda *g) { return g->capability; }
uint32_t gpu_cuda_multiprocessors(const gpu_cuda *g) { return g->multiprocessors; }
uint64_t gpu_cuda_total_memory(const gpu_cuda *g) { return g->total_memory; }
uint32_t gpu_cuda_max_block(const gpu_cuda *g) { return g->max_block; }
uint32_t gpu_cuda_max_grid(const gpu_cuda *g) { return g->max_grid; }

tilec_status gpu_cuda_load(gpu_cuda *g, tilec_context *ctx, const char *ptx, const char *entry,
                           gpu_cuda_module **out) {
    *out = NULL;
    tilec_status st = bind(g, ctx);
    if (st != TILEC_OK) return st;
    size_t entry_length = strlen(entry);
    gpu_cuda_module *m = tilec_alloc(ctx, sizeof *m + entry_length + 1);
    if (!m) return tilec_error(ctx, TILEC_E_NOMEM, "GPU-M01", tilec_no_loc(), "out of memory");
    m->owner = ctx;
    memcpy(m->entry, entry, entry_length + 1);
    char log[8192] = "";
    int options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, (void *)(uintptr_t)sizeof log};
    cu_result r = g->api.cuModuleLoadDataEx(&m->module, ptx, 2, options, values);
    if (r != CUDA_SUCCESS) {
        /* The driver's verdict before its log: a long log is what the
         * diagnostic's length limit cuts. */
        char why[256];
        describe(g, r, why, sizeof why);
        log[sizeof log - 1] = '\0';
        st = tilec_error(ctx, TILEC_E_UNSUPPORTED, "GPU-D04", tilec_no_loc(), "the CUDA driver rejected the PTX of %s: %s%s%s",
                         entry, why, log[0] ? "; JIT log:\n" : " (no JIT log)", log);
    } else {
        r = g->api.cuModuleGetFunction(&m->function, m->module, entry);
        if (r == CUDA_SUCCESS) {
            *out = m;
            return TILEC_OK;
        }
        st = driver_error(g, ctx, TILEC_E_ARG, "GPU-D05", r, "the PTX module has no kernel '%s'", entry);
        g->api.cuModuleUnload(m->module);
    }
    tilec_free(ctx, m);
    return st;
}

void gpu_cuda_unload(gpu_cuda *g, gpu_cuda_module *m) {
    if (!m) return;
    g->api.cuCtxSetCurrent(g->context);
    g->api.cuModuleUnload(m->module);
    tilec_free(m->owner, m);
}

tilec_status gpu_cuda_alloc(gpu_cuda *g, tilec_context *ctx, uint64_t bytes, gpu_device_ptr *out) {
    *out = 0;
    if (!bytes) return TILEC_OK;
    tilec_status st = bind(g, ctx);
    if (st != TILEC_OK) return st;
    cu_result r = g->api.cuMemAlloc_v2(out, bytes);
    if (r == CUDA_SUCCESS) return TILEC_OK;
    *out = 0;
    return driver_error(g, ctx, r == CUDA_ERROR_OUT_OF_MEMORY ? TILEC_E_NOMEM : TILEC_E_RUNTIME, "GPU-D06", r,
                        "allocating %llu bytes of device memory", (unsigned long long)bytes);
}

void gpu_cuda_free(gpu_cuda *g, gpu_device_ptr p) {
    if (!p) return;
    g->api.cuCtxSetCurrent(g->context);
    g->api.cuMemFree_v2(p);
}

tilec_status gpu_cuda_upload(gpu_cuda *g, tilec_context *ctx, gpu_device_ptr dst, const void *src,
                             uint64_t bytes) {
    if (!bytes) return TILEC_OK;
    tilec_status st = bind(g, ctx);
    if (st != TILEC_OK) return st;
    cu_result r = g->api.cuMemcpyHtoD_v2(dst, src, bytes);
    return r == CUDA_SUCCESS ? TILEC_OK
                             : driver_error(g, ctx, TILEC_E_RUNTIME, "GPU-D06", r, "copying %llu bytes to the device",
                                            (unsigned long long)bytes);
}

tilec_status gpu_cuda_download(gpu_cuda *g, tilec_context *ctx, void *dst, gpu_device_ptr src, uint64_t bytes) {
    if (!bytes) return TILEC_OK;
    tilec_status st = bind(g, ctx);
    if (st != TILEC_OK) return st;
    cu_result r = g->api.cuMemcpyDtoH_v2(dst, src, bytes);
    return r == CUDA_SUCCESS ? TILEC_OK
                             : driver_error(g, ctx, TILEC_E_RUNTIME, "GPU-D06", r, "copying %llu bytes from the device",
                                            (unsigned long long)bytes);
}

tilec_status gpu_cuda_zero(gpu_cuda *g, tilec_context *ctx, gpu_device_ptr dst, uint64_t bytes) {
    if (!bytes) return TILEC_OK;
    tilec_status st = bind(g, ctx);
    if (st != TILEC_OK) return st;
    cu_result r = g->api.cuMemsetD8_v2(dst, 0, bytes);
    return r == CUDA_SUCCESS ? TILEC_OK
                             : driver_error(g, ctx, TILEC_E_RUNTIME, "GPU-D06", r, "zeroing %llu bytes of device memory",
                                            (unsigned long long)bytes);
}

/* GPU-D08 for a shape the device cannot run; then makes the context current. */
static tilec_status prepare_launch(const gpu_cuda *g, tilec_context *ctx, const gpu_cuda_module *m, uint32_t grid_x,
                                   uint32_t block_x) {
    if (!grid_x || !block_x)
        return tilec_error(ctx, TILEC_E_ARG, "GPU-D08", tilec_no_loc(), "%s: an empty launch (grid %u, block %u)",
                           m->entry, grid_x, block_x);
    if (grid_x > g->max_grid)
        return tilec_error(ctx, TILEC_E_UNSUPPORTED, "GPU-D08", tilec_no_loc(),
                           "%s: grid of %u blocks exceeds the device's max grid x %u", m->entry, grid_x, g->max_grid);
    if (block_x > g->max_block)
        return tilec_error(ctx, TILEC_E_UNSUPPORTED, "GPU-D08", tilec_no_loc(),
                           "%s: block of %u threads exceeds the device's max threads per block %u", m->entry, block_x,
                           g->max_block);
    return bind(g, ctx);
}

static cu_result launch(const gpu_cuda *g, const gpu_cuda_module *m, uint32_t grid_x, uint32_t block_x, void **params) {
    return g->api.cuLaunchKernel(m->function, grid_x, 1, 1, block_x, 1, 1, 0, NULL, params, NULL);
}

tilec_status gpu_cuda_launch(gpu_cuda *g, tilec_context *ctx, const gpu_cuda_module *m, uint32_t grid_x,
                             uint32_t block_x, void **params) {
    tilec_status st = prepare_launch(g, ctx, m, grid_x, block_x);
    if (st != TILEC_OK) return st;
    cu_result r = launch(g, m, grid_x, block_x, params);
    if (r != CUDA_SUCCESS)
        return driver_error(g, ctx, TILEC_E_RUNTIME, "GPU-D07", r, "launching %s (grid %u, block %u)", m->entry, grid_x,
                            block_x);
    r = g->api.cuCtxSynchronize();
    if (r != CUDA_SUCCESS)
        return driver_error(g, ctx, TILEC_E_RUNTIME, "GPU-D07", r, "running %s (grid %u, block %u)", m->entry, grid_x,
                            block_x);
    return TILEC_OK;
}

tilec_status gpu_cuda_time(gpu_cuda *g, tilec_context *ctx, const gpu_cuda_module *m, uint32_t grid_x,
                           uint32_t block_x, void **params, uint32_t warmup, uint32_t reps, double *ms) {
    *ms = 0;
    if (!reps)
        return tilec_error(ctx, TILEC_E_ARG, "GPU-D08", tilec_no_loc(), "%s: timing needs at least one repetition",
                           m->entry);
    tilec_status st = prepare_launch(g, ctx, m, grid_x, block_x);
    if (st != TILEC_OK) return st;
    const cuda_api *api = &g->api;
    cu_event start = NULL, end = NULL;
    /* One chain of steps; the first failure names its step. */
    const char *step = "creating the timing events for";
    cu_result r = api->cuEventCreate(&start, 0);
    if (r == CUDA_SUCCESS) r = api->cuEventCreate(&end, 0);
    if (r == CUDA_SUCCESS) step = "launching";
    for (uint32_t i = 0; r == CUDA_SUCCESS && i < warmup; i++) r = launch(g, m, grid_x, block_x, params);
    if (r == CUDA_SUCCESS) {
        step = "recording the start event for";
        r = api->cuEventRecord(start, NULL);
    }
    if (r == CUDA_SUCCESS) step = "launching";
    for (uint32_t i = 0; r == CUDA_SUCCESS && i < reps; i++) r = launch(g, m, grid_x, block_x, params);
    if (r == CUDA_SUCCESS) {
        step = "recording the end event for";
        r = api->cuEventRecord(end, NULL);
    }
    if (r == CUDA_SUCCESS) {
        step = "running";
        r = api->cuEventSynchronize(end);
    }
    float elapsed = 0;
    if (r == CUDA_SUCCESS) {
        step = "timing";
        r = api->cuEventElapsedTime(&elapsed, start, end);
    }
    if (end) api->cuEventDestroy_v2(end);
    if (start) api->cuEventDestroy_v2(start);
    if (r != CUDA_SUCCESS)
        return driver_error(g, ctx, TILEC_E_RUNTIME, "GPU-D07", r, "%s %s (grid %u, block %u)", step, m->entry, grid_x,
                            block_x);
    *ms = (double)elapsed / reps;
    return TILEC_OK;
}
