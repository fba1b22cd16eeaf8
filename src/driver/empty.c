/* empty.c — a kernel whose root parallel has an empty domain (`-D R=0`):
 * no program instance exists, so nothing runs, as in the reference
 * interpreter.  It still is a kernel like any other: its arguments are
 * checked at dispatch (count, element types, each view's bytes — an empty
 * view needs none), and it has native code — an entry that only returns,
 * compiled (or emitted ahead of time) by the same backend, never called
 * because the dispatch size is 0 — so its metadata, objects and captured
 * IR or assembly need no special case. */
#include "driver/kernel.h"

#include "base/checked.h"
#include "tir/form.h"
#include "xir/xir.h"

/* The bytes a dispatch must pass for view parameter v (saturating); 0
 * when they depend on runtime sizes. */
static uint64_t view_bytes(const tir_value *v) {
    const tir_space *s = v->type->space;
    uint64_t bytes = tir_scalar_size(v->type->elem);
    if (!tir_space_is_static(s)) return 0;
    for (uint32_t i = 0; i < s->rank; i++) bytes = saturated_mul_u64(bytes, s->axes[i].extent);
    return bytes;
}

tilec_status tilec_kernel_tir_params(tilec_context *ctx, tilec_kernel *k, const tir_func *f) {
    uint32_t n = f->body->arg_count;
    if (!(k->params = tilec_alloc(ctx, (n ? n : 1) * sizeof *k->params)))
        return tilec_error(ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory describing a kernel");
    for (uint32_t i = 0; i < n; i++) {
        k->params[i] = (rt_param){f->body->args[i]->type->elem, view_bytes(f->body->args[i])};
        k->arg_bytes += k->params[i].min_bytes;
    }
    k->prog.user_args = n;
    k->prog.desc = (rt_kernel){.name = strbuf_cstr(&k->name), .arg_count = n, .params = k->params};
    return TILEC_OK;
}

tilec_status tilec_kernel_empty_launch(tilec_context *ctx, tilec_kernel *k, const tir_func *f, uint32_t width) {
    tilec_status st = tilec_kernel_tir_params(ctx, k, f);
    if (st) return st;
    k->prog.desc.entry = k->native ? (rt_entry)(void (*)(void))simd_kernel_entry(k->native) : NULL;
    k->prog.desc.block_size = width;
    strbuf_append(&k->plan, "empty");
    strbuf_append(&k->plan_realization, "root domain empty: nothing runs");
    return k->plan.failed || k->plan_realization.failed
               ? tilec_error(ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory describing a kernel")
               : TILEC_OK;
}

tilec_status tilec_compile_empty(tilec_context *ctx, tilec_kernel *k, const tir_func *f, uint32_t width,
                                 const tilec_compile_options *o) {
    xir_module *m = xir_module_create(ctx);
    xir_builder b = {.module = m, .func = m ? xir_func_new(m, f->name) : NULL};
    if (!b.func || !xir_block_new(b.func, "entry")) {
        xir_module_destroy(m);
        return tilec_error(ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory compiling an empty kernel");
    }
    b.func->block_size = width;
    xir_builder_at_end(&b, b.func->first);
    xir_build_ret(&b);
    /* the captures only: `tilec emit-llvm`/`emit-asm` print the entry like
     * any kernel's, whose other backend options do not apply to it */
    tilec_compile_options native = tilec_compile_options_default();
    native.capture_ir = o->capture_ir;
    native.capture_asm = o->capture_asm;
    tilec_status st = tilec_compile_native(ctx, k, b.func, &native, &(simd_facts){.width = width});
    xir_module_destroy(m);
    return st ? st : tilec_kernel_empty_launch(ctx, k, f, width);
}
