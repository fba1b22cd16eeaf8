/* kernel.c — simd_compile: analysis, emission, JIT; the compiled kernel owns
 * its LLJIT, counters, realization string and optional IR/assembly text. */
#include "simd/emit.h"

#include "base/clock.h"

#include <stdlib.h>
#include <string.h>

struct simd_kernel {
    tilec_context *ctx;
    uint32_t uses; /* simd_kernel_retain adds one, simd_kernel_destroy releases one */
    jit_session jit;
    simd_entry_fn entry;
    uint32_t width, block_size;
    simd_counters counters;
    simd_compile_times times;
    strbuf realization, ir, asm_text;
    bool has_ir, has_asm;
};

static void free_info(tilec_context *ctx, simd_emit_info *info) {
    for (size_t i = 0; i < info->n_sleef; i++) tilec_free(ctx, (void *)info->sleef[i]);
}

static tilec_status check_input(tilec_context *ctx, const xir_func *f, uint32_t w, uint32_t required) {
    if (!f) return tilec_error(ctx, TILEC_E_ARG, "SIMD-O01", tilec_no_loc(), "no XIR function given");
    if (!w)
        return tilec_error(ctx, TILEC_E_ARG, "SIMD-O01", tilec_no_loc(),
                           "packet width (option or TILEC_SIMD_WIDTH) is not 1, 2, 4, 8 or 16");
    if (!f->block_size || f->block_size % w)
        return tilec_error(ctx, TILEC_E_ARG, "SIMD-O02", tilec_no_loc(),
                           "block size %u of '%s' is not a positive multiple of the packet width %u", f->block_size,
                           f->name, w);
    if (!f->first) return tilec_error(ctx, TILEC_E_ARG, "SIMD-O03", tilec_no_loc(), "'%s' has no blocks", f->name);
    if (required && required != w)
        return tilec_error(ctx, TILEC_E_ARG, "SIMD-O04", tilec_no_loc(),
                           "'%s' was lowered for packets of exactly %u lanes (packet-local) and cannot run at width %u",
                           f->name, required, w);
    return TILEC_OK;
}

tilec_status simd_compile(tilec_context *ctx, const xir_func *f, const tilec_compile_options *o, const simd_facts *d,
                          simd_kernel **out) {
    return simd_compile_keeping(ctx, f, o, d, out, NULL);
}

/* The realization string and times of a kernel whose entry is set. */
static void describe(simd_kernel *k, double emit_ms, double jit_ms) {
    strbuf_printf(&k->realization, "backend=simd; W=%u; ", k->width);
#define X(name) strbuf_printf(&k->realization, #name "=%llu; ", (unsigned long long)k->counters.name);
    SIMD_COUNTERS(X)
#undef X
    k->times = (simd_compile_times){.emit_ms = emit_ms,
                                    .jit_ms = jit_ms,
                                    .optimize_ms = k->jit.optimize_ms,
                                    .codegen_ms = jit_ms - k->jit.optimize_ms};
    strbuf_printf(&k->realization, "emit_ms=%.3f; optimize_ms=%.3f; codegen_ms=%.3f; jit_ms=%.3f;", k->times.emit_ms,
                  k->times.optimize_ms, k->times.codegen_ms, k->times.jit_ms);
}

static simd_kernel *kernel_new(tilec_context *ctx, uint32_t w, uint32_t block_size) {
    simd_kernel *k = tilec_alloc(ctx, sizeof *k);
    if (!k) return NULL;
    k->ctx = ctx;
    k->uses = 1;
    k->width = w;
    k->block_size = block_size;
    strbuf_init(&k->realization, ctx);
    strbuf_init(&k->ir, ctx);
    strbuf_init(&k->asm_text, ctx);
    return k;
}

tilec_status simd_kernel_from_object(tilec_context *ctx, uint32_t w, uint32_t block_size, const simd_counters *counters,
                                     const char *const *sleef, size_t n_sleef, const char *object, size_t len,
                                     simd_kernel **out) {
    *out = NULL;
    double t0 = now_ms();
    simd_kernel *k = kernel_new(ctx, w, block_size);
    if (!k) return tilec_error(ctx, TILEC_E_NOMEM, "SIMD-M02", tilec_no_loc(), "out of memory");
    jit_host host;
    bool host_ok = jit_host_init(&host);
    (void)jit_begin(&k->jit);
    uint64_t address = host_ok ? jit_link(ctx, &k->jit, &host, object, len, "tilec_entry", sleef, n_sleef) : 0;
    jit_host_free(&host);
    k->entry = address ? (simd_entry_fn)(uintptr_t)address : NULL;
    if (!k->entry) {
        simd_kernel_destroy(k);
        return host_ok ? TILEC_E_UNSUPPORTED
                       : tilec_error(ctx, TILEC_E_UNSUPPORTED, "SIMD-J01", tilec_no_loc(), "cannot query the host CPU");
    }
    k->counters = *counters;
    describe(k, 0, now_ms() - t0);
    *out = k;
    return TILEC_OK;
}

/* Analyzes f and emits its packet entry `entry_name` for `host` into m
 * (the bodies o asks for); info is filled (free_info is due either way). */
static tilec_status emit_kernel(tilec_context *ctx, const xir_func *f, const tilec_compile_options *o,
                                const simd_facts *d, uint32_t w, const jit_host *host, LLVMModuleRef m,
                                const char *entry_name, simd_emit_info *info) {
    simd_analysis an;
    memset(info, 0, sizeof *info);
    if (!simd_analyze(ctx, f, w, &an)) return TILEC_E_NOMEM;
    /* A packet-local kernel's packet is one whole program (dispatch_size is
     * programs × W), so specializing it needs no masked body at all. */
    simd_bodies bodies = !o->full_packet_specialization || w == 1 ? SIMD_BODIES_MASKED
                         : d->required_packet_width                 ? SIMD_BODIES_FULL
                                                                    : SIMD_BODIES_MASKED_AND_FULL;
    tilec_status st = simd_emit(ctx, f, &an, host, w, bodies, d->streaming_args, d->apart_args, m, entry_name, info);
    simd_analysis_free(&an);
    return st;
}

/* The checked input of a compilation at width w and its kernel, empty. */
static tilec_status begin(tilec_context *ctx, const xir_func *f, const simd_facts *d, uint32_t w, simd_kernel **k) {
    tilec_status st = check_input(ctx, f, w, d->required_packet_width);
    if (st) return st;
    if (!(*k = kernel_new(ctx, w, f->block_size)))
        return tilec_error(ctx, TILEC_E_NOMEM, "SIMD-M02", tilec_no_loc(), "out of memory");
    return TILEC_OK;
}

tilec_status simd_kernel_emit_into(tilec_context *ctx, const xir_func *f, const tilec_compile_options *options,
                                   const simd_facts *facts, const jit_host *host, LLVMModuleRef m,
                                   const char *entry_name, simd_kernel **out) {
    *out = NULL;
    tilec_compile_options o = options ? *options : tilec_compile_options_default();
    simd_facts d = facts ? *facts : (simd_facts){0};
    uint32_t w = simd_resolve_width(d.width, NULL);
    double t0 = now_ms();
    simd_kernel *k;
    tilec_status st = begin(ctx, f, &d, w, &k);
    if (st) return st;
    simd_emit_info info;
    st = emit_kernel(ctx, f, &o, &d, w, host, m, entry_name, &info);
    free_info(ctx, &info);
    if (st) {
        simd_kernel_destroy(k);
        return st;
    }
    k->counters = info.counters;
    describe(k, now_ms() - t0, 0);
    *out = k;
    return TILEC_OK;
}

tilec_status simd_compile_keeping(tilec_context *ctx, const xir_func *f, const tilec_compile_options *options,
                                  const simd_facts *facts, simd_kernel **out, simd_object *keep) {
    *out = NULL;
    tilec_compile_options o = options ? *options : tilec_compile_options_default();
    simd_facts d = facts ? *facts : (simd_facts){0};
    uint32_t w = simd_resolve_width(d.width, getenv("TILEC_SIMD_WIDTH"));
    double t0 = now_ms();
    simd_kernel *k;
    tilec_status st = begin(ctx, f, &d, w, &k);
    if (st) return st;
    jit_host host;
    if (!jit_host_init(&host)) {
        jit_host_free(&host);
        simd_kernel_destroy(k);
        return tilec_error(ctx, TILEC_E_UNSUPPORTED, "SIMD-J01", tilec_no_loc(), "cannot query the host CPU");
    }
    LLVMContextRef c = jit_begin(&k->jit);
    LLVMModuleRef m = LLVMModuleCreateWithNameInContext(f->name, c);
    simd_emit_info info;
    st = emit_kernel(ctx, f, &o, &d, w, &host, m, "tilec_entry", &info);
    double t1 = now_ms();
    if (!st) {
        strbuf object;
        strbuf_init(&object, ctx);
        uint64_t address = 0;
        if (jit_compile_object(ctx, &k->jit, &host, m, o.capture_ir ? &k->ir : NULL,
                               o.capture_asm ? &k->asm_text : NULL, &object))
            address = jit_link(ctx, &k->jit, &host, object.data, object.len, "tilec_entry", info.sleef, info.n_sleef);
        if (address && keep) { /* the cache's copy: the object code and the symbols it needs */
            strbuf_append_n(&keep->object, object.data, object.len);
            keep->n_sleef = 0;
            for (size_t i = 0; i < info.n_sleef && i < SIMD_OBJECT_MAX_SLEEF; i++)
                snprintf(keep->sleef[keep->n_sleef++], sizeof keep->sleef[0], "%s", info.sleef[i]);
            keep->complete = !keep->object.failed && info.n_sleef <= SIMD_OBJECT_MAX_SLEEF;
        }
        strbuf_free(&object);
        k->entry = address ? (simd_entry_fn)(uintptr_t)address : NULL;
        if (!k->entry) st = TILEC_E_UNSUPPORTED;
    } else {
        LLVMDisposeModule(m);
    }
    free_info(ctx, &info);
    jit_host_free(&host);
    if (st) {
        simd_kernel_destroy(k);
        return st;
    }
    k->has_ir = o.capture_ir;
    k->has_asm = o.capture_asm;
    k->counters = info.counters;
    describe(k, t1 - t0, now_ms() - t1);
    *out = k;
    return TILEC_OK;
}

simd_entry_fn simd_kernel_entry(const simd_kernel *k) { return k->entry; }
uint32_t simd_kernel_width(const simd_kernel *k) { return k->width; }
const simd_counters *simd_kernel_counters(const simd_kernel *k) { return &k->counters; }
simd_compile_times simd_kernel_compile_times(const simd_kernel *k) { return k->times; }
const char *simd_kernel_realization(const simd_kernel *k) { return strbuf_cstr((strbuf *)&k->realization); }
const char *simd_kernel_ir(const simd_kernel *k) { return k->has_ir ? strbuf_cstr((strbuf *)&k->ir) : NULL; }
const char *simd_kernel_asm(const simd_kernel *k) { return k->has_asm ? strbuf_cstr((strbuf *)&k->asm_text) : NULL; }

simd_kernel *simd_kernel_retain(simd_kernel *k) {
    k->uses++;
    return k;
}

void simd_kernel_destroy(simd_kernel *k) {
    if (!k || --k->uses) return;
    jit_destroy(&k->jit);
    strbuf_free(&k->realization);
    strbuf_free(&k->ir);
    strbuf_free(&k->asm_text);
    tilec_free(k->ctx, k);
}

uint64_t simd_kernel_workspace_bytes(const simd_kernel *k) { return k->counters.workspace_bytes; }

bool simd_kernel_run_all(const simd_kernel *k, const simd_buffer_arg *args, uint32_t dispatch_size,
                         fault_record *faults) {
    uint32_t blocks = (uint32_t)(((uint64_t)dispatch_size + k->block_size - 1) / k->block_size);
    size_t bytes = (size_t)k->counters.workspace_bytes;
    unsigned char *raw = bytes ? tilec_alloc(k->ctx, bytes + 63) : NULL;
    if (bytes && !raw) return false;
    void *workspace = raw ? raw + (64 - (uintptr_t)raw % 64) % 64 : NULL;
    *faults = (fault_record){0};
    if (blocks) k->entry(args, 0, blocks, dispatch_size, workspace, faults);
    tilec_free(k->ctx, raw);
    return true;
}
