/* aot.c — ahead-of-time objects (aot.h): one LLVM context and module per
 * object, the target CPU's jit_host for emission and code generation, the
 * entries added one by one, then the descriptor and the C entry points.
 * The object records every CPU feature its code may use (the runtime checks
 * each before it runs, docs/aot.md). */
#include "simd/aot.h"

#include "simd/emit.h"

#include <stdio.h>
#include <string.h>

/* A module's object holds every variant and helper of its kernels. */
enum { AOT_MAX_ENTRIES = 1024 };

struct simd_aot {
    tilec_context *ctx;
    jit_host host;
    LLVMContextRef c;
    LLVMModuleRef m; /* NULL once finished */
    LLVMValueRef entries[AOT_MAX_ENTRIES];
    uint32_t entry_count;
    strbuf features; /* simd_aot_features */
};

/* Every x86-64 CPU's features, which LLVM's CPU models imply. */
#define X86_64_BASELINE "+64bit,+cmov,+cx8,+fxsr,+mmx,+nopl,+sse,+sse2,+x87"

/* Settles what the code may use: the feature string LLVM gets, and the
 * object's list of required features (simd_aot_features) — the string plus
 * what the CPU name implies beyond it.  LLVM's host detection (native, or a
 * host profile's CPU name) lists every feature it knows, on or off, so the
 * name adds only the x86-64 baseline; the psABI levels' models add LAHF/SAHF
 * and CRC32 too.  SSE with unaligned memory operands, a tuning of AMD's
 * models that other CPUs fault on (only code without AVX's encodings uses
 * it), is turned off so that nothing outside the list is assumed. */
static bool settle_features(simd_aot *a, bool native) {
    strbuf codegen;
    strbuf_init(&codegen, a->ctx);
    strbuf_printf(&codegen, "%s,-sse-unaligned-mem", a->host.features);
    strbuf_printf(&a->features, "%s,%s%s", X86_64_BASELINE, strbuf_cstr(&codegen), native ? "" : ",+sahf,+crc32");
    bool ok = !codegen.failed && !a->features.failed;
    if (ok) {
        LLVMDisposeMessage(a->host.features);
        a->host.features = LLVMCreateMessage(strbuf_cstr(&codegen));
    }
    strbuf_free(&codegen);
    return ok;
}

tilec_status simd_aot_begin(tilec_context *ctx, const char *cpu, simd_aot **out) {
    *out = NULL;
    bool native = !cpu || !strcmp(cpu, "native");
    simd_aot *a = tilec_alloc(ctx, sizeof *a);
    if (!a) return tilec_error(ctx, TILEC_E_NOMEM, "SIMD-M02", tilec_no_loc(), "out of memory");
    memset(a, 0, sizeof *a);
    a->ctx = ctx;
    bool ok = native ? jit_host_init(&a->host) : jit_host_init_named(&a->host, cpu);
    if (!ok) {
        bool llvm = a->host.triple != NULL; /* the host query worked: the name is what failed */
        jit_host_free(&a->host);
        tilec_free(ctx, a);
        if (!native && llvm)
            return tilec_error(ctx, TILEC_E_ARG, "SIMD-O05", tilec_no_loc(),
                               "unknown target CPU '%s' (native, x86-64-v2, x86-64-v3 or x86-64-v4)", cpu);
        return tilec_error(ctx, TILEC_E_UNSUPPORTED, "SIMD-J01", tilec_no_loc(), "cannot query the host CPU");
    }
    strbuf_init(&a->features, ctx);
    a->c = LLVMContextCreate();
    a->m = LLVMModuleCreateWithNameInContext("tilec_aot", a->c);
    if (!settle_features(a, native)) {
        simd_aot_destroy(a);
        return tilec_error(ctx, TILEC_E_NOMEM, "SIMD-M02", tilec_no_loc(), "out of memory");
    }
    *out = a;
    return TILEC_OK;
}

void simd_aot_destroy(simd_aot *a) {
    if (!a) return;
    if (a->m) LLVMDisposeModule(a->m);
    LLVMContextDispose(a->c);
    jit_host_free(&a->host);
    strbuf_free(&a->features);
    tilec_free(a->ctx, a);
}

uint32_t simd_aot_width(const simd_aot *a) { return a->host.avx512f ? 16 : a->host.avx2 ? 8 : 4; }
const char *simd_aot_cpu(const simd_aot *a) { return a->host.cpu; }
const char *simd_aot_features(const simd_aot *a) { return strbuf_cstr(&a->features); }

tilec_status simd_aot_add(simd_aot *a, const xir_func *f, const tilec_compile_options *options,
                          const simd_facts *facts, simd_kernel **out, uint32_t *entry) {
    *out = NULL;
    if (!a->m || a->entry_count == AOT_MAX_ENTRIES)
        return tilec_error(a->ctx, TILEC_E_UNSUPPORTED, "SIMD-M03", tilec_no_loc(),
                           "an ahead-of-time object holds at most %d packet entries", AOT_MAX_ENTRIES);
    char name[64];
    snprintf(name, sizeof name, "tilec.aot.entry.%u", a->entry_count);
    tilec_status st = simd_kernel_emit_into(a->ctx, f, options, facts, &a->host, a->m, name, out);
    if (st) return st;
    LLVMValueRef fn = LLVMGetNamedFunction(a->m, name);
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    a->entries[a->entry_count] = fn;
    *entry = a->entry_count++;
    return TILEC_OK;
}

/* The LLVM type of a scalar passed by value. */
static LLVMTypeRef value_type(LLVMContextRef c, tir_scalar s) {
    switch (s) {
    case TIR_F32: return LLVMFloatTypeInContext(c);
    case TIR_F64: return LLVMDoubleTypeInContext(c);
    case TIR_BOOL: return LLVMInt1TypeInContext(c);
    default: return LLVMIntTypeInContext(c, (unsigned)tir_scalar_size(s) * 8); /* f16/bf16: their bits */
    }
}

/* The runtime library's function `name` (declared once). */
static LLVMValueRef declare(LLVMModuleRef m, const char *name, LLVMTypeRef type) {
    LLVMValueRef fn = LLVMGetNamedFunction(m, name);
    return fn ? fn : LLVMAddFunction(m, name, type);
}

/* int sym_dispatch(ctx, rt, n, args) → tilec_aot_dispatch(ctx, rt, &d, n, args);
 * with runtime sizes sym_dispatch(ctx, rt, n, args, n_dims, dims) →
 * tilec_aot_dispatch_dims(ctx, rt, &d, n, args, n_dims, dims) */
static void emit_dispatch(simd_aot *a, const simd_aot_entry_points *ep, LLVMValueRef desc) {
    LLVMTypeRef ptr = LLVMPointerTypeInContext(a->c, 0), i32 = LLVMInt32TypeInContext(a->c),
                i64 = LLVMInt64TypeInContext(a->c);
    unsigned sized = ep->dim_count ? 2 : 0;
    LLVMTypeRef callee_t = LLVMFunctionType(i32, (LLVMTypeRef[7]){ptr, ptr, ptr, i64, ptr, i64, ptr}, 5 + sized, false);
    LLVMValueRef callee = declare(a->m, sized ? "tilec_aot_dispatch_dims" : "tilec_aot_dispatch", callee_t);
    char name[256];
    snprintf(name, sizeof name, "%s_dispatch", ep->symbol);
    LLVMValueRef fn =
        LLVMAddFunction(a->m, name, LLVMFunctionType(i32, (LLVMTypeRef[6]){ptr, ptr, i64, ptr, i64, ptr}, 4 + sized, false));
    LLVMBuilderRef b = LLVMCreateBuilderInContext(a->c);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(a->c, fn, "entry"));
    LLVMValueRef args[7] = {LLVMGetParam(fn, 0), LLVMGetParam(fn, 1), desc, LLVMGetParam(fn, 2), LLVMGetParam(fn, 3)};
    if (sized) args[5] = LLVMGetParam(fn, 4), args[6] = LLVMGetParam(fn, 5);
    LLVMBuildRet(b, LLVMBuildCall2(b, callee_t, callee, args, 5 + sized, ""));
    LLVMDisposeBuilder(b);
}

/* int sym_create(ctx, out) → tilec_aot_module_create(ctx, &d, out) */
static void emit_create(simd_aot *a, const simd_aot_entry_points *ep, LLVMValueRef desc) {
    LLVMTypeRef ptr = LLVMPointerTypeInContext(a->c, 0), i32 = LLVMInt32TypeInContext(a->c);
    LLVMTypeRef callee_t = LLVMFunctionType(i32, (LLVMTypeRef[3]){ptr, ptr, ptr}, 3, false);
    LLVMValueRef callee = declare(a->m, "tilec_aot_module_create", callee_t);
    char name[256];
    snprintf(name, sizeof name, "%s_create", ep->symbol);
    LLVMValueRef fn = LLVMAddFunction(a->m, name, LLVMFunctionType(i32, (LLVMTypeRef[2]){ptr, ptr}, 2, false));
    LLVMBuilderRef b = LLVMCreateBuilderInContext(a->c);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(a->c, fn, "entry"));
    LLVMValueRef args[3] = {LLVMGetParam(fn, 0), desc, LLVMGetParam(fn, 1)};
    LLVMBuildRet(b, LLVMBuildCall2(b, callee_t, callee, args, 3, ""));
    LLVMDisposeBuilder(b);
}

/* int sym(P0, …) → tilec_aot_call(&d, n, {{P0 or &P0, bytes, elem}, …});
 * with runtime sizes int sym(P0, …, D0, …) → tilec_aot_call_dims(&d, n,
 * {…}, dims, {D0, …}), a runtime-size parameter's buffer of 0 bytes (the
 * runtime takes its bytes at the dims) */
static bool emit_typed(simd_aot *a, const simd_aot_entry_points *ep, LLVMValueRef desc) {
    LLVMTypeRef ptr = LLVMPointerTypeInContext(a->c, 0), i32 = LLVMInt32TypeInContext(a->c),
                i64 = LLVMInt64TypeInContext(a->c);
    size_t dims = ep->dim_count;
    LLVMTypeRef callee_t = LLVMFunctionType(i32, (LLVMTypeRef[5]){ptr, i64, ptr, i64, ptr}, dims ? 5 : 3, false);
    LLVMValueRef callee = declare(a->m, dims ? "tilec_aot_call_dims" : "tilec_aot_call", callee_t);
    size_t n = ep->param_count;
    LLVMTypeRef *types = tilec_alloc(a->ctx, (n + dims + 1) * sizeof *types);
    if (!types) return false;
    for (size_t i = 0; i < n; i++) types[i] = ep->params[i].by_value ? value_type(a->c, ep->params[i].elem) : ptr;
    for (size_t i = 0; i < dims; i++) types[n + i] = i64;
    LLVMValueRef fn = LLVMAddFunction(a->m, ep->symbol, LLVMFunctionType(i32, types, (unsigned)(n + dims), false));
    tilec_free(a->ctx, types);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(a->c);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(a->c, fn, "entry"));
    /* tilec_buffer: {void *data; size_t size_bytes; tir_scalar elem;} */
    LLVMTypeRef buffer_t = LLVMStructTypeInContext(a->c, (LLVMTypeRef[3]){ptr, i64, i32}, 3, false);
    LLVMValueRef buffers = LLVMBuildArrayAlloca(b, buffer_t, LLVMConstInt(i64, n ? n : 1, false), "buffers");
    for (size_t i = 0; i < n; i++) {
        LLVMValueRef data = LLVMGetParam(fn, (unsigned)i);
        if (ep->params[i].by_value) {
            LLVMValueRef slot = LLVMBuildAlloca(b, LLVMTypeOf(data), "value");
            LLVMBuildStore(b, data, slot);
            data = slot;
        }
        LLVMValueRef at = LLVMBuildGEP2(b, buffer_t, buffers, (LLVMValueRef[1]){LLVMConstInt(i64, i, false)}, 1, "");
        LLVMValueRef fields[3] = {data, LLVMConstInt(i64, ep->params[i].bytes, false),
                                  LLVMConstInt(i32, (unsigned)ep->params[i].elem, false)};
        for (unsigned k = 0; k < 3; k++) LLVMBuildStore(b, fields[k], LLVMBuildStructGEP2(b, buffer_t, at, k, ""));
    }
    LLVMValueRef values = LLVMBuildArrayAlloca(b, i64, LLVMConstInt(i64, dims ? dims : 1, false), "dims");
    for (size_t i = 0; i < dims; i++)
        LLVMBuildStore(b, LLVMGetParam(fn, (unsigned)(n + i)),
                       LLVMBuildGEP2(b, i64, values, (LLVMValueRef[1]){LLVMConstInt(i64, i, false)}, 1, ""));
    LLVMValueRef args[5] = {desc, LLVMConstInt(i64, n, false), buffers, LLVMConstInt(i64, dims, false), values};
    LLVMBuildRet(b, LLVMBuildCall2(b, callee_t, callee, args, dims ? 5 : 3, ""));
    LLVMDisposeBuilder(b);
    return true;
}

static LLVMValueRef private_constant(LLVMModuleRef m, LLVMValueRef init, const char *name) {
    LLVMValueRef g = LLVMAddGlobal(m, LLVMTypeOf(init), name);
    LLVMSetInitializer(g, init);
    LLVMSetGlobalConstant(g, true);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    return g;
}

tilec_status simd_aot_finish(simd_aot *a, const simd_aot_entry_points *ep, strbuf *object) {
    if (!a->m) return tilec_error(a->ctx, TILEC_E_ARG, "SIMD-O03", tilec_no_loc(), "the object was finished already");
    LLVMTypeRef ptr = LLVMPointerTypeInContext(a->c, 0), i64 = LLVMInt64TypeInContext(a->c);
    LLVMValueRef blob = private_constant(a->m, LLVMConstStringInContext(a->c, ep->blob, (unsigned)ep->blob_bytes, true),
                                         "tilec.aot.blob");
    LLVMValueRef entries = private_constant(a->m, LLVMConstArray2(ptr, a->entries, a->entry_count), "tilec.aot.entries");
    LLVMValueRef slot = LLVMAddGlobal(a->m, ptr, "tilec.aot.loaded");
    LLVMSetInitializer(slot, LLVMConstNull(ptr));
    LLVMSetLinkage(slot, LLVMInternalLinkage);
    LLVMValueRef fields[6] = {LLVMConstInt(i64, ep->magic, false), blob, LLVMConstInt(i64, ep->blob_bytes, false),
                              entries, LLVMConstInt(i64, a->entry_count, false), slot};
    LLVMValueRef desc = private_constant(a->m, LLVMConstStructInContext(a->c, fields, 6, false), "tilec.aot.kernel");
    LLVMSetAlignment(desc, 8);
    if (ep->module) emit_create(a, ep, desc);
    else {
        emit_dispatch(a, ep, desc);
        if (!emit_typed(a, ep, desc))
            return tilec_error(a->ctx, TILEC_E_NOMEM, "SIMD-M02", tilec_no_loc(), "out of memory");
    }
    LLVMModuleRef m = a->m;
    a->m = NULL; /* jit_compile_pic_object takes it */
    return jit_compile_pic_object(a->ctx, &a->host, m, object) ? TILEC_OK : TILEC_E_UNSUPPORTED;
}
