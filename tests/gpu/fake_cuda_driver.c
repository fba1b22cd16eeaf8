/* fake_cuda_driver.c — a stand-in for libcuda that src/gpu/cuda.c loads in
 * tests (TILEC_CUDA_DRIVER=<this library>), so the adapter's failure paths
 * and its bookkeeping run on machines without a GPU.  It exports the entry
 * points cuda.c resolves and behaves like a small device:
 *   - cuInit returns $FAKE_CUDA_INIT_RESULT when set (100 is
 *     CUDA_ERROR_NO_DEVICE), else success; one device, "fake", sm_90,
 *     4 multiprocessors, max grid x 65535, max block 1024;
 *   - device memory is host memory (malloc); more than 1 GiB is
 *     CUDA_ERROR_OUT_OF_MEMORY;
 *   - every call but the device queries needs the primary context current
 *     on the calling thread (CUDA_ERROR_INVALID_CONTEXT otherwise), so a
 *     caller that forgets cuCtxSetCurrent fails the way the real one does;
 *   - PTX containing "syntax error" is rejected with a JIT log; a kernel is
 *     found when its name occurs in the PTX; kernel "fill" stores the u32
 *     *params[1] into grid*block elements at the device pointer *params[0];
 *     kernel "fill_sized" (a kernel with runtime sizes: its parameters
 *     Y, the dims, the dispatch size, the fault record) stores the u32
 *     dispatch size into min(grid*block, dims[0]) elements at Y;
 *     kernel "faulty" fails at the next synchronize with
 *     CUDA_ERROR_LAUNCH_FAILED, sticky until the primary context's last
 *     release, as on a real device;
 *   - each launch "takes" 0.25 ms between two events.
 * fake_cuda_outstanding() counts what is not released yet (allocations,
 * modules, events, primary context retains), fake_cuda_launches() the
 * launches, fake_cuda_last_grid() the last launch's grid.  Built with -DFAKE_CUDA_LACKS_EVENT_DESTROY it lacks
 * cuEventDestroy_v2, as a too-old or broken driver would lack a symbol. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int cu_result;
enum {
    SUCCESS = 0,
    INVALID_VALUE = 1,
    OUT_OF_MEMORY = 2,
    NO_DEVICE = 100,
    INVALID_CONTEXT = 201,
    INVALID_PTX = 218,
    NOT_FOUND = 500,
    LAUNCH_FAILED = 719,
};

static const struct {
    cu_result result;
    const char *name, *text;
} ERRORS[] = {
    {SUCCESS, "CUDA_SUCCESS", "no error"},
    {INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
};

typedef struct {
    char image[512];
    char function[64]; /* the function handle points here */
} fake_module;

typedef struct {
    long launches; /* at the event's record */
} fake_event;

static int primary; /* its address is the primary context */
static int retains, outstanding;
static long launches;
static cu_result sticky;          /* a faulted kernel's error */
static _Thread_local void *current; /* the calling thread's current context */

int fake_cuda_outstanding(void) { return outstanding; }
long fake_cuda_launches(void) { return launches; }
static unsigned last_grid;
unsigned fake_cuda_last_grid(void) { return last_grid; }

/* Releasing needs only the context; everything else also fails with a
 * sticky error. */
static cu_result bound(void) { return current != &primary ? INVALID_CONTEXT : SUCCESS; }
static cu_result ready(void) { return bound() != SUCCESS ? INVALID_CONTEXT : sticky; }

static cu_result describe(cu_result error, const char **out, int text) {
    for (size_t i = 0; i < sizeof ERRORS / sizeof ERRORS[0]; i++)
        if (ERRORS[i].result == error) {
            *out = text ? ERRORS[i].text : ERRORS[i].name;
            return SUCCESS;
        }
    *out = NULL;
    return INVALID_VALUE;
}

cu_result cuGetErrorName(cu_result error, const char **name) { return describe(error, name, 0); }
cu_result cuGetErrorString(cu_result error, const char **text) { return describe(error, text, 1); }

cu_result cuInit(unsigned flags) {
    const char *forced = getenv("FAKE_CUDA_INIT_RESULT");
    return flags ? INVALID_VALUE : forced ? atoi(forced) : SUCCESS;
}

cu_result cuDeviceGetCount(int *count) {
    *count = 1;
    return SUCCESS;
}

cu_result cuDeviceGet(int *device, int ordinal) {
    *device = ordinal;
    return ordinal == 0 ? SUCCESS : INVALID_VALUE;
}

cu_result cuDeviceGetName(char *name, int length, int device) {
    snprintf(name, (size_t)length, "fake");
    return device == 0 ? SUCCESS : INVALID_VALUE;
}

cu_result cuDeviceGetAttribute(int *value, int attribute, int device) {
    switch (attribute) {
    case 1: *value = 1024; break;  /* max threads per block */
    case 5: *value = 65535; break; /* max grid x */
    case 16: *value = 4; break;    /* multiprocessors */
    case 75: *value = 9; break;    /* compute capability */
    case 76: *value = 0; break;
    default: return INVALID_VALUE;
    }
    return device == 0 ? SUCCESS : INVALID_VALUE;
}

cu_result cuDeviceTotalMem_v2(size_t *bytes, int device) {
    *bytes = (size_t)1 << 30;
    return device == 0 ? SUCCESS : INVALID_VALUE;
}

cu_result cuDevicePrimaryCtxRetain(void **context, int device) {
    *context = &primary;
    retains++, outstanding++;
    return device == 0 ? SUCCESS : INVALID_VALUE;
}

cu_result cuDevicePrimaryCtxRelease_v2(int device) {
    if (device != 0 || retains == 0) return INVALID_VALUE;
    if (--retains == 0) sticky = SUCCESS; /* the context is destroyed with its error */
    outstanding--;
    return SUCCESS;
}

cu_result cuCtxSetCurrent(void *context) {
    current = context;
    return SUCCESS;
}

cu_result cuCtxSynchronize(void) { return ready(); }

cu_result cuMemAlloc_v2(uint64_t *pointer, size_t bytes) {
    cu_result r = ready();
    if (r != SUCCESS) return r;
    if (bytes == 0) return INVALID_VALUE;
    void *p = bytes <= (size_t)1 << 30 ? malloc(bytes) : NULL;
    if (!p) return OUT_OF_MEMORY;
    *pointer = (uint64_t)(uintptr_t)p;
    outstanding++;
    return SUCCESS;
}

cu_result cuMemFree_v2(uint64_t pointer) {
    cu_result r = bound();
    if (r != SUCCESS) return r;
    free((void *)(uintptr_t)pointer);
    outstanding--;
    return SUCCESS;
}

cu_result cuMemcpyHtoD_v2(uint64_t dst, const void *src, size_t bytes) {
    cu_result r = ready();
    if (r == SUCCESS) memcpy((void *)(uintptr_t)dst, src, bytes);
    return r;
}

cu_result cuMemcpyDtoH_v2(void *dst, uint64_t src, size_t bytes) {
    cu_result r = ready();
    if (r == SUCCESS) memcpy(dst, (const void *)(uintptr_t)src, bytes);
    return r;
}

cu_result cuMemsetD8_v2(uint64_t dst, unsigned char value, size_t bytes) {
    cu_result r = ready();
    if (r == SUCCESS) memset((void *)(uintptr_t)dst, value, bytes);
    return r;
}

cu_result cuModuleLoadDataEx(fake_module **module, const void *image, unsigned count, int *options, void **values) {
    cu_result r = ready();
    if (r != SUCCESS) return r;
    char *log = NULL;
    size_t log_size = 0;
    for (unsigned i = 0; i < count; i++) {
        if (options[i] == 5) log = values[i];
        if (options[i] == 6) log_size = (size_t)(uintptr_t)values[i];
    }
    if (strstr(image, "syntax error")) {
        if (log && log_size) snprintf(log, log_size, "ptxas application ptx input, line 1; fatal : fake syntax error");
        return INVALID_PTX;
    }
    fake_module *m = calloc(1, sizeof *m);
    if (!m) return OUT_OF_MEMORY;
    snprintf(m->image, sizeof m->image, "%s", (const char *)image);
    *module = m;
    outstanding++;
    return SUCCESS;
}

cu_result cuModuleGetFunction(char **function, fake_module *module, const char *name) {
    cu_result r = ready();
    if (r != SUCCESS) return r;
    if (!strstr(module->image, name) || strlen(name) >= sizeof module->function) return NOT_FOUND;
    strcpy(module->function, name);
    *function = module->function;
    return SUCCESS;
}

cu_result cuModuleUnload(fake_module *module) {
    cu_result r = bound();
    if (r != SUCCESS) return r;
    free(module);
    outstanding--;
    return SUCCESS;
}

cu_result cuLaunchKernel(const char *function, unsigned grid_x, unsigned grid_y, unsigned grid_z, unsigned block_x,
                         unsigned block_y, unsigned block_z, unsigned shared_bytes, void *stream, void **params,
                         void **extra) {
    cu_result r = ready();
    if (r != SUCCESS) return r;
    if (!grid_x || !grid_y || !grid_z || !block_x || !block_y || !block_z || grid_x > 65535 || block_x > 1024)
        return INVALID_VALUE;
    launches++;
    last_grid = grid_x;
    if (!strcmp(function, "faulty")) sticky = LAUNCH_FAILED;
    if (!strcmp(function, "fill_sized")) { /* (Y, dims, dispatch size, faults): min(grid·block, dims[0]) elements */
        uint32_t *out = (uint32_t *)(uintptr_t)*(const uint64_t *)params[0];
        const int64_t *dims = (const int64_t *)(uintptr_t)*(const uint64_t *)params[1];
        for (int64_t i = 0; i < (int64_t)grid_x * block_x && i < dims[0]; i++) out[i] = *(const uint32_t *)params[2];
    }
    if (!strcmp(function, "fill")) {
        uint32_t *out = (uint32_t *)(uintptr_t)*(const uint64_t *)params[0];
        for (uint64_t i = 0; i < (uint64_t)grid_x * block_x; i++) out[i] = *(const uint32_t *)params[1];
    }
    return SUCCESS;
}

cu_result cuEventCreate(fake_event **event, unsigned flags) {
    cu_result r = ready();
    if (r != SUCCESS) return r;
    *event = calloc(1, sizeof **event);
    if (!*event) return OUT_OF_MEMORY;
    outstanding++;
    return SUCCESS;
}

cu_result cuEventRecord(fake_event *event, void *stream) {
    cu_result r = ready();
    if (r == SUCCESS) event->launches = launches;
    return r;
}

cu_result cuEventSynchronize(fake_event *event) { return ready(); }

cu_result cuEventElapsedTime(float *ms, fake_event *start, fake_event *end) {
    cu_result r = ready();
    if (r == SUCCESS) *ms = 0.25f * (float)(end->launches - start->launches);
    return r;
}

#ifndef FAKE_CUDA_LACKS_EVENT_DESTROY
cu_result cuEventDestroy_v2(fake_event *event) {
    free(event); /* valid even with a sticky error, as in the real driver */
    outstanding--;
    return SUCCESS;
}
#endif
