/* jit.c — see jit.h.  Every kernel gets its own LLJIT (so a kernel can be
 * destroyed independently); the JIT's target machine is created from the
 * host CPU and features at CodeGenLevelAggressive, the same target the
 * optimization pipeline ran for.  SLEEF symbols are bound explicitly with
 * absolute addresses: no process-wide symbol search.
 *
 * LLVM's native target registration writes process-wide registries without
 * a lock, so it runs exactly once per process (pthread_once), whichever
 * thread compiles first; this once-flag and its result are the JIT's only
 * mutable static state (tests/tilec/test_threads.c lists the library's).  Everything else is per kernel (context, JIT,
 * target machine) or per call. */
#include "simd/jit.h"

#include "base/host.h"
#include "scalar/math_ops.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* The SLEEF 3.5 dispatcher entry points the emitter may call: every width
 * of every SLEEF-backed math function (scalar/math_ops.h).  sleef.h declares
 * the 16-wide ones only under __AVX512F__, so they are declared here by
 * their symbol names; their prototypes do not matter (they are only taken
 * as addresses). */
#define SLEEF_WIDTHS(op, dbl, flt, stem) \
    X(Sleef_##stem##f_u10) X(Sleef_##stem##f4_u10) X(Sleef_##stem##f8_u10) X(Sleef_##stem##f16_u10) \
    X(Sleef_##stem##_u10) X(Sleef_##stem##d2_u10) X(Sleef_##stem##d4_u10) X(Sleef_##stem##d8_u10)
#define SLEEF_SYMBOLS TIR_SLEEF_MATH1(SLEEF_WIDTHS) TIR_SLEEF_MATH2(SLEEF_WIDTHS)

#define X(name) extern void sleef_sym_##name(void) __asm__(#name);
SLEEF_SYMBOLS
#undef X

void *jit_sleef_address(const char *name) {
#define X(sym) \
    if (!strcmp(name, #sym)) return (void *)(uintptr_t)&sleef_sym_##sym;
    SLEEF_SYMBOLS
#undef X
    return NULL;
}

static pthread_once_t llvm_once = PTHREAD_ONCE_INIT;
static bool llvm_native_ready; /* written inside llvm_once only */

static void initialize_llvm(void) {
    /* Each returns true (LLVMBool 1) on failure: no native target built in. */
    llvm_native_ready = !LLVMInitializeNativeTarget() && !LLVMInitializeNativeAsmPrinter() &&
                        !LLVMInitializeNativeAsmParser();
}

/* The features a host profile (base/host.h) decides: the vector ISA.  A
 * feature of this machine in this list that the profile lacks is turned
 * off; the others (cmov, xsave, ...) stay as detected. */
static const char *const PROFILE_ISA[] = {
    "sse3",         "ssse3",        "sse4.1",        "sse4.2",          "sse4a",        "popcnt",       "avx",
    "avx2",         "fma",          "fma4",          "xop",             "f16c",         "bmi",          "bmi2",
    "lzcnt",        "movbe",        "evex512",       "avx512f",         "avx512cd",     "avx512bw",     "avx512dq",
    "avx512vl",     "avx512ifma",   "avx512vbmi",    "avx512vbmi2",     "avx512vnni",   "avx512bitalg", "avx512vpopcntdq",
    "avx512bf16",   "avx512fp16",   "avx512vp2intersect", "avxvnni",    "avxvnniint8",  "avxvnniint16", "avxifma",
    "avxneconvert", "gfni",         "vaes",          "vpclmulqdq",      "amx-tile",     "amx-bf16",     "amx-int8",
    "amx-fp16",     "amx-complex",  "avx10.1-256",   "avx10.1-512",
};

/* Turns off, in place, every feature of `features` in PROFILE_ISA that the
 * profile's `isa` (NULL: none, this machine's) does not enable, and every one
 * d turns off ("-feature" items): a "+x" becomes "-x", the length does not
 * change. */
static void restrict_to_host(char *features, const host_desc *d) {
    for (char *p = features; p && *p;) {
        char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)len - 1, p + 1);
        bool off = host_turns_off(d, name);
        for (size_t i = 0; d->isa && !off && i < sizeof PROFILE_ISA / sizeof *PROFILE_ISA; i++)
            off = !strcmp(PROFILE_ISA[i], name) && !host_isa_has(d->isa, name);
        if (*p == '+' && off) *p = '-';
        p = end ? end + 1 : NULL;
    }
}

/* The emitter's facts of h->features. */
static void feature_flags(jit_host *h) {
    h->avx512f = host_isa_has(h->features, "avx512f");
    h->avx2 = host_isa_has(h->features, "avx2");
    h->sse4a = host_isa_has(h->features, "sse4a"); /* AMD: 8-byte non-temporal stores */
    h->f16c = host_isa_has(h->features, "f16c");   /* vcvtph2ps / vcvtps2ph */
    /* a feature LLVM would turn off with one it needs ("-avx512f" turns off
     * every AVX-512 extension) is not counted on */
    bool avx512 = h->avx512f && host_isa_has(h->features, "avx512bw");
    h->avx512bf16 = avx512 && host_isa_has(h->features, "avx512bf16");
    h->avx512vnni = avx512 && host_isa_has(h->features, "avx512vnni");
    h->avx512vl = avx512 && host_isa_has(h->features, "avx512vl");
}

bool jit_host_init(jit_host *h) {
    memset(h, 0, sizeof *h);
    if (pthread_once(&llvm_once, initialize_llvm) || !llvm_native_ready) return false;
    host_desc d;
    if (!host_current(&d, NULL, 0)) return false;
    h->triple = LLVMGetDefaultTargetTriple();
    h->cpu = d.cpu ? LLVMCreateMessage(d.cpu) : LLVMGetHostCPUName();
    h->features = LLVMGetHostCPUFeatures();
    if (!h->triple || !h->cpu || !h->features) return false;
    restrict_to_host(h->features, &d);
    feature_flags(h);
    /* the planner's vector unit is the profile's, whatever this machine has */
    host_isa_vector_unit(d.isa ? d.isa : h->features, &h->lanes, &h->registers);
    return true;
}

bool jit_host_init_named(jit_host *h, const char *cpu) {
    const char *level = host_isa_level(cpu);
    if (!jit_host_init(h) || !level) return false;
    LLVMDisposeMessage(h->cpu);
    LLVMDisposeMessage(h->features);
    h->cpu = LLVMCreateMessage(cpu);
    h->features = LLVMCreateMessage(level);
    feature_flags(h);
    host_isa_vector_unit(h->features, &h->lanes, &h->registers);
    return true;
}

void jit_host_free(jit_host *h) {
    LLVMDisposeMessage(h->triple);
    LLVMDisposeMessage(h->cpu);
    LLVMDisposeMessage(h->features);
    memset(h, 0, sizeof *h);
}

/* The target machine of h: for the JIT (default relocations, the JIT's
 * code model) or for an object file a C program links (position-
 * independent, the default code model). */
static LLVMTargetMachineRef machine(const jit_host *h, bool pic) {
    LLVMTargetRef target;
    char *err = NULL;
    if (LLVMGetTargetFromTriple(h->triple, &target, &err)) {
        LLVMDisposeMessage(err);
        return NULL;
    }
    return LLVMCreateTargetMachine(target, h->triple, h->cpu, h->features, LLVMCodeGenLevelAggressive,
                                   pic ? LLVMRelocPIC : LLVMRelocDefault,
                                   pic ? LLVMCodeModelDefault : LLVMCodeModelJITDefault);
}

LLVMContextRef jit_begin(jit_session *s) {
    memset(s, 0, sizeof *s);
    s->tsc = LLVMOrcCreateNewThreadSafeContext();
    return LLVMOrcThreadSafeContextGetContext(s->tsc);
}

static uint64_t fail(tilec_context *ctx, const char *what, char *msg) {
    tilec_error(ctx, TILEC_E_UNSUPPORTED, "SIMD-J01", tilec_no_loc(), "%s: %s", what, msg ? msg : "(no message)");
    return 0;
}

static uint64_t fail_error(tilec_context *ctx, const char *what, LLVMErrorRef e) {
    char *msg = LLVMGetErrorMessage(e);
    fail(ctx, what, msg);
    LLVMDisposeErrorMessage(msg);
    return 0;
}

static bool emit_asm(LLVMTargetMachineRef tm, LLVMModuleRef m, strbuf *out) {
    LLVMMemoryBufferRef buf = NULL;
    char *err = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMAssemblyFile, &err, &buf)) {
        LLVMDisposeMessage(err);
        return false;
    }
    strbuf_append_n(out, LLVMGetBufferStart(buf), LLVMGetBufferSize(buf));
    LLVMDisposeMemoryBuffer(buf);
    return !out->failed;
}

/* Defines the SLEEF symbols the module calls in the JIT's main dylib. */
static LLVMErrorRef bind_sleef(LLVMOrcLLJITRef jit, const char *const *names, size_t n) {
    if (!n) return NULL;
    LLVMOrcCSymbolMapPair pairs[64];
    if (n > sizeof pairs / sizeof pairs[0]) n = sizeof pairs / sizeof pairs[0];
    for (size_t i = 0; i < n; i++) {
        pairs[i].Name = LLVMOrcLLJITMangleAndIntern(jit, names[i]);
        pairs[i].Sym.Address = (LLVMOrcExecutorAddress)(uintptr_t)jit_sleef_address(names[i]);
        pairs[i].Sym.Flags.GenericFlags = LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable;
        pairs[i].Sym.Flags.TargetFlags = 0;
    }
    LLVMOrcMaterializationUnitRef mu = LLVMOrcAbsoluteSymbols(pairs, n);
    return LLVMOrcJITDylibDefine(LLVMOrcLLJITGetMainJITDylib(jit), mu);
}

static bool compile_object(tilec_context *ctx, const jit_host *h, bool pic, LLVMModuleRef m, strbuf *ir_text,
                           strbuf *asm_text, strbuf *object, double *optimize_ms) {
    char *msg = NULL;
    if (LLVMVerifyModule(m, LLVMReturnStatusAction, &msg)) {
        fail(ctx, "the generated LLVM module does not verify", msg);
        LLVMDisposeMessage(msg);
        LLVMDisposeModule(m);
        return false;
    }
    LLVMDisposeMessage(msg);
    LLVMTargetMachineRef tm = machine(h, pic);
    if (!tm) {
        LLVMDisposeModule(m);
        return fail(ctx, "no LLVM target for the host", h->triple);
    }
    LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(tm);
    LLVMSetModuleDataLayout(m, layout);
    LLVMDisposeTargetData(layout);
    LLVMSetTarget(m, h->triple);
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    LLVMErrorRef e = LLVMRunPasses(m, "default<O3>", tm, po);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *optimize_ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6;
    LLVMDisposePassBuilderOptions(po);
    bool ok = !e;
    if (e) fail_error(ctx, "LLVM optimization failed", e);
    if (ok && ir_text) {
        char *text = LLVMPrintModuleToString(m);
        strbuf_append(ir_text, text);
        LLVMDisposeMessage(text);
        ok = !ir_text->failed;
    }
    if (ok && asm_text) ok = emit_asm(tm, m, asm_text);
    if (!ok && !e) fail(ctx, "capturing the IR/assembly text failed", NULL);
    LLVMMemoryBufferRef buf = NULL;
    if (ok) {
        if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMObjectFile, &msg, &buf)) {
            fail(ctx, "emitting the object code failed", msg);
            LLVMDisposeMessage(msg);
            ok = false;
        } else {
            strbuf_append_n(object, LLVMGetBufferStart(buf), LLVMGetBufferSize(buf));
            LLVMDisposeMemoryBuffer(buf);
            ok = !object->failed;
            if (!ok) fail(ctx, "out of memory holding the object code", NULL);
        }
    }
    LLVMDisposeTargetMachine(tm);
    LLVMDisposeModule(m);
    return ok;
}

bool jit_compile_object(tilec_context *ctx, jit_session *s, const jit_host *h, LLVMModuleRef m, strbuf *ir_text,
                        strbuf *asm_text, strbuf *object) {
    return compile_object(ctx, h, false, m, ir_text, asm_text, object, &s->optimize_ms);
}

bool jit_compile_pic_object(tilec_context *ctx, const jit_host *h, LLVMModuleRef m, strbuf *object) {
    double optimize_ms;
    return compile_object(ctx, h, true, m, NULL, NULL, object, &optimize_ms);
}

uint64_t jit_link(tilec_context *ctx, jit_session *s, const jit_host *h, const char *object, size_t len,
                  const char *entry, const char *const *sleef, size_t n_sleef) {
    LLVMTargetMachineRef tm = machine(h, false);
    if (!tm) return fail(ctx, "no LLVM target for the host", h->triple);
    if (!s->tsc) s->tsc = LLVMOrcCreateNewThreadSafeContext();
    /* The JIT takes its own target machine (ownership moves to the builder). */
    LLVMOrcJITTargetMachineBuilderRef jtmb = LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(tm);
    LLVMOrcLLJITBuilderRef builder = LLVMOrcCreateLLJITBuilder();
    LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(builder, jtmb);
    LLVMErrorRef e;
    if ((e = LLVMOrcCreateLLJIT(&s->jit, builder))) {
        s->jit = NULL;
        return fail_error(ctx, "cannot create the LLJIT", e);
    }
    if ((e = bind_sleef(s->jit, sleef, n_sleef))) return fail_error(ctx, "cannot bind the SLEEF symbols", e);
    LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(object, len, "tilec_kernel");
    if ((e = LLVMOrcLLJITAddObjectFile(s->jit, LLVMOrcLLJITGetMainJITDylib(s->jit), buf)))
        return fail_error(ctx, "cannot add the object code to the JIT", e);
    LLVMOrcExecutorAddress address = 0;
    if ((e = LLVMOrcLLJITLookup(s->jit, &address, entry))) return fail_error(ctx, "entry lookup failed", e);
    return address;
}

void jit_destroy(jit_session *s) {
    if (s->jit) LLVMConsumeError(LLVMOrcDisposeLLJIT(s->jit));
    if (s->tsc) LLVMOrcDisposeThreadSafeContext(s->tsc);
    memset(s, 0, sizeof *s);
}
