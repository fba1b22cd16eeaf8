/* ptx.c — gpu_compile (see gpu.h): a module for nvptx64-nvidia-cuda, the
 * kernel emitted into it (emit.c), libdevice linked in when the kernel
 * calls a math function (only the functions it calls stay: everything but
 * the kernel is made internal before LLVM's O3 pipeline, whose NVVMReflect
 * pass resolves libdevice's __nvvm_reflect queries: no flush to zero), and
 * PTX from the NVPTX target machine.
 *
 * The NVPTX target registers once per process (pthread_once), like the
 * native one in simd/jit.c.  Every compile has its own LLVM context. */
#include "gpu/gpu.h"

#include "base/clock.h"
#include "gpu/emit.h"
#include "options/options.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TRIPLE "nvptx64-nvidia-cuda"
/* PTX ISA 8.0 (CUDA 12.0): every architecture below, and the oldest driver
 * that runs sm_90 code. */
#define PTX_FEATURES "+ptx80"

struct gpu_kernel {
    tilec_context *ctx;
    char *ptx, *ir, *entry, *realization;
    char sm[16];
    uint32_t block_size, arg_count;
    double emit_ms, llvm_ms;
};

static pthread_once_t nvptx_once = PTHREAD_ONCE_INIT;

static void initialize_nvptx(void) {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
}

/* path into out when it is readable */
static bool readable(const char *path, char *out, size_t size) {
    return !access(path, R_OK) && (size_t)snprintf(out, size, "%s", path) < size;
}

bool gpu_find_libdevice(char *out, size_t size) {
    static const char *const fixed[] = {"/usr/local/cuda/nvvm/libdevice/libdevice.10.bc",
                                        "/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc",
                                        "/usr/local/cuda-13.0/nvvm/libdevice/libdevice.10.bc",
                                        "/usr/local/cuda-12.8/nvvm/libdevice/libdevice.10.bc",
                                        "/usr/local/cuda-12.6/nvvm/libdevice/libdevice.10.bc",
                                        "/usr/local/cuda-12.4/nvvm/libdevice/libdevice.10.bc"};
    const char *env = getenv("TILEC_LIBDEVICE");
    if (env && *env) return readable(env, out, size);
    const char *home = getenv("CUDA_HOME");
    char from_home[1024];
    if (home && *home &&
        (size_t)snprintf(from_home, sizeof from_home, "%s/nvvm/libdevice/libdevice.10.bc", home) < sizeof from_home &&
        readable(from_home, out, size))
        return true;
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        if (readable(fixed[i], out, size)) return true;
    return false;
}

static char *copy_string(tilec_context *ctx, const char *s, size_t n) {
    char *r = tilec_alloc(ctx, n + 1);
    if (r) {
        memcpy(r, s, n);
        r[n] = 0;
    }
    return r;
}

static tilec_status llvm_error(tilec_context *ctx, const char *code, const char *what, const char *name, char *msg) {
    tilec_status st = tilec_error(ctx, TILEC_E_INTERNAL, code, tilec_no_loc(), "'%s': %s: %s", name, what,
                                  msg ? msg : "(no message)");
    if (msg) LLVMDisposeMessage(msg);
    return st;
}

/* Links libdevice into m (which calls __nv_* functions). */
static tilec_status link_libdevice(tilec_context *ctx, LLVMModuleRef m, const char *name) {
    char path[1024];
    if (!gpu_find_libdevice(path, sizeof path))
        return tilec_error(ctx, TILEC_E_UNSUPPORTED, "GPU-L01", tilec_no_loc(),
                           "'%s' calls math functions, which the GPU backend takes from CUDA's libdevice, and no "
                           "libdevice.10.bc was found (set TILEC_LIBDEVICE to its path, or CUDA_HOME)",
                           name);
    LLVMMemoryBufferRef buf;
    char *msg = NULL;
    if (LLVMCreateMemoryBufferWithContentsOfFile(path, &buf, &msg))
        return tilec_error(ctx, TILEC_E_IO, "GPU-L02", tilec_no_loc(), "cannot read libdevice '%s': %s", path,
                           msg ? msg : "?");
    LLVMModuleRef lib;
    LLVMBool bad = LLVMParseBitcodeInContext2(LLVMGetModuleContext(m), buf, &lib);
    LLVMDisposeMemoryBuffer(buf);
    if (bad)
        return tilec_error(ctx, TILEC_E_IO, "GPU-L02", tilec_no_loc(), "libdevice '%s' is not LLVM bitcode", path);
    LLVMSetTarget(lib, TRIPLE);
    LLVMSetDataLayout(lib, LLVMGetDataLayoutStr(m));
    if (LLVMLinkModules2(m, lib)) /* consumes lib */
        return tilec_error(ctx, TILEC_E_INTERNAL, "GPU-L03", tilec_no_loc(), "linking libdevice '%s' failed", path);
    return TILEC_OK;
}

/* Everything but the kernel becomes internal, so O3 keeps only what it
 * calls (and inlines that). */
static void internalize(LLVMModuleRef m, const char *entry) {
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
        if (!LLVMIsDeclaration(fn) && strcmp(LLVMGetValueName(fn), entry)) LLVMSetLinkage(fn, LLVMInternalLinkage);
    for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
        if (!LLVMIsDeclaration(g)) LLVMSetLinkage(g, LLVMInternalLinkage);
}

static tilec_status generate(tilec_context *ctx, const xir_func *f, const gpu_options *o, gpu_kernel *k,
                             LLVMContextRef c) {
    char *msg = NULL;
    LLVMTargetRef target;
    if (LLVMGetTargetFromTriple(TRIPLE, &target, &msg)) return llvm_error(ctx, "GPU-J01", "no NVPTX target", f->name, msg);
    LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, TRIPLE, k->sm, PTX_FEATURES, LLVMCodeGenLevelAggressive,
                                                      LLVMRelocDefault, LLVMCodeModelDefault);
    if (!tm) return tilec_error(ctx, TILEC_E_INTERNAL, "GPU-J01", tilec_no_loc(), "no NVPTX target machine for %s", k->sm);
    LLVMModuleRef m = LLVMModuleCreateWithNameInContext(f->name, c);
    LLVMSetTarget(m, TRIPLE);
    LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(tm);
    char *layout_text = LLVMCopyStringRepOfTargetData(layout);
    LLVMSetDataLayout(m, layout_text);
    LLVMDisposeMessage(layout_text);
    LLVMDisposeTargetData(layout);

    double t0 = now_ms();
    gpu_emit_info info = {0};
    tilec_status st = gpu_emit(ctx, f, m, k->entry, &info);
    double t1 = now_ms();
    char *invalid = NULL; /* an emitter bug must not reach LLVM's passes */
    if (!st && LLVMVerifyModule(m, LLVMReturnStatusAction, &invalid))
        st = llvm_error(ctx, "GPU-J04", "the emitted LLVM IR does not verify", f->name, invalid), invalid = NULL;
    if (invalid) LLVMDisposeMessage(invalid);
    if (!st && info.math_calls) st = link_libdevice(ctx, m, f->name);
    if (!st) {
        internalize(m, k->entry);
        LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
        LLVMErrorRef err = LLVMRunPasses(m, "default<O3>", tm, po);
        LLVMDisposePassBuilderOptions(po);
        if (err) st = llvm_error(ctx, "GPU-J02", "LLVM's optimization failed", f->name, LLVMGetErrorMessage(err));
    }
    if (!st && o->capture_ir) {
        char *ir = LLVMPrintModuleToString(m);
        k->ir = copy_string(ctx, ir, strlen(ir));
        LLVMDisposeMessage(ir);
    }
    LLVMMemoryBufferRef ptx = NULL;
    if (!st && LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMAssemblyFile, &msg, &ptx))
        st = llvm_error(ctx, "GPU-J03", "PTX generation failed", f->name, msg);
    if (!st) k->ptx = copy_string(ctx, LLVMGetBufferStart(ptx), LLVMGetBufferSize(ptx));
    if (ptx) LLVMDisposeMemoryBuffer(ptx);
    k->emit_ms = t1 - t0;
    k->llvm_ms = now_ms() - t1;
    if (!st) {
        char text[256];
        snprintf(text, sizeof text,
                 "target=cuda; sm=%s; ptx_isa=8.0; block=%u; math_calls=%u; libdevice=%s; shuffles=%u; "
                 "warp_syncs=%u; private_arrays=%u; fault_sites=%u; emit_ms=%.3f; llvm_ms=%.3f",
                 k->sm, k->block_size, info.math_calls, info.math_calls ? "linked" : "none", info.shuffles,
                 info.syncs, info.private_arrays, info.fault_sites, k->emit_ms, k->llvm_ms);
        k->realization = copy_string(ctx, text, strlen(text));
    }
    if (!st && (!k->ptx || !k->realization || (o->capture_ir && !k->ir)))
        st = tilec_error(ctx, TILEC_E_NOMEM, "GPU-M01", tilec_no_loc(), "out of memory keeping the PTX of '%s'", f->name);
    LLVMDisposeModule(m);
    LLVMDisposeTargetMachine(tm);
    return st;
}

tilec_status gpu_compile(tilec_context *ctx, const xir_func *f, const gpu_options *options, gpu_kernel **out) {
    *out = NULL;
    gpu_options o = options ? *options : (gpu_options){0};
    const char *sm = o.sm ? o.sm : GPU_DEFAULT_SM;
    if (!options_gpu_arch(sm))
        return tilec_error(ctx, TILEC_E_ARG, "GPU-O01", tilec_no_loc(),
                           "GPU architecture '%s' is not one LLVM 19's NVPTX target generates code for (" OPTIONS_GPU_ARCHS ")",
                           sm);
    if (pthread_once(&nvptx_once, initialize_nvptx))
        return tilec_error(ctx, TILEC_E_INTERNAL, "GPU-J01", tilec_no_loc(), "the NVPTX target did not initialize");
    gpu_kernel *k = tilec_alloc(ctx, sizeof *k);
    if (!k) return tilec_error(ctx, TILEC_E_NOMEM, "GPU-M01", tilec_no_loc(), "out of memory compiling '%s'", f->name);
    memset(k, 0, sizeof *k);
    k->ctx = ctx;
    snprintf(k->sm, sizeof k->sm, "%s", sm);
    k->block_size = f->block_size;
    k->arg_count = (uint32_t)f->args.len;
    k->entry = copy_string(ctx, f->name, strlen(f->name));
    LLVMContextRef c = LLVMContextCreate();
    tilec_status st = k->entry ? generate(ctx, f, &o, k, c)
                               : tilec_error(ctx, TILEC_E_NOMEM, "GPU-M01", tilec_no_loc(), "out of memory");
    LLVMContextDispose(c);
    if (st) {
        gpu_kernel_destroy(k);
        return st;
    }
    *out = k;
    return TILEC_OK;
}

const char *gpu_kernel_ptx(const gpu_kernel *k) { return k->ptx; }
const char *gpu_kernel_entry(const gpu_kernel *k) { return k->entry; }
const char *gpu_kernel_sm(const gpu_kernel *k) { return k->sm; }
const char *gpu_kernel_ir(const gpu_kernel *k) { return k->ir; }
uint32_t gpu_kernel_block_size(const gpu_kernel *k) { return k->block_size; }
uint32_t gpu_kernel_arg_count(const gpu_kernel *k) { return k->arg_count; }
double gpu_kernel_emit_ms(const gpu_kernel *k) { return k->emit_ms; }
double gpu_kernel_llvm_ms(const gpu_kernel *k) { return k->llvm_ms; }
const char *gpu_kernel_realization(const gpu_kernel *k) { return k->realization; }

void gpu_kernel_destroy(gpu_kernel *k) {
    if (!k) return;
    tilec_free(k->ctx, k->ptx);
    tilec_free(k->ctx, k->ir);
    tilec_free(k->ctx, k->entry);
    tilec_free(k->ctx, k->realization);
    tilec_free(k->ctx, k);
}
