/* metadata.c — the accessors of tilec.h over a compiled kernel: its
 * argument table, width, workers, realization strings (driver/describe.c
 * builds them), code and times. */
#include "driver/kernel.h"
#include "plan/gpu_target.h"

size_t tilec_kernel_arg_count(const tilec_kernel *k) { return k->prog.user_args; }
tir_scalar tilec_kernel_arg_elem(const tilec_kernel *k, size_t index) { return k->params[index].elem; }
unsigned tilec_kernel_arg_use(const tilec_kernel *k, size_t index) {
    return k && index < k->prog.user_args ? k->arg_use[index] : 0;
}
const char *tilec_kernel_arg_name(const tilec_kernel *k, size_t index) {
    return k && index < k->prog.user_args ? k->arg_names[index] : NULL;
}
uint64_t tilec_kernel_arg_min_bytes(const tilec_kernel *k, size_t index) { return k->params[index].min_bytes; }
uint64_t tilec_kernel_arg_bytes(const tilec_kernel *k, size_t index, const int64_t *dims) {
    const tilec_kernel *m = k ? kernel_main(k) : NULL;
    if (!m || index >= m->prog.user_args) return 0;
    const rt_size *bytes = m->prog.dim_count && m->prog.arg_bytes ? &m->prog.arg_bytes[index] : NULL;
    if (!bytes || !bytes->count) return m->params[index].min_bytes; /* a view of static extents */
    int64_t v;
    return dims && rt_size_eval(bytes, dims, m->prog.dim_count, &v) && v >= 0 ? (uint64_t)v : 0;
}

uint32_t tilec_kernel_width(const tilec_kernel *k) {
    k = kernel_main(k);
    if (k->xir) return k->xir->packet_width;
    if (k->reference) return 1; /* one program at a time */
    return k->gpu ? PLAN_GPU_WARP : simd_kernel_width(tilec_kernel_native(k));
}
uint32_t tilec_kernel_workers(const tilec_kernel *k) { return k->workers; }
static const tilec_kernel *work_of(const tilec_kernel *k) {
    k = kernel_main(k);
    return k->split_partial ? k->split_partial : k;
}
uint32_t tilec_kernel_block_size(const tilec_kernel *k) { return work_of(k)->prog.desc.block_size; }
uint32_t tilec_kernel_dispatch_size(const tilec_kernel *k) { return work_of(k)->prog.desc.dispatch_size; }
uint32_t tilec_kernel_pack_count(const tilec_kernel *k) { return k->prog.packs; }
const char *tilec_kernel_realization(const tilec_kernel *k) { return strbuf_cstr(&k->realization); }
const char *tilec_kernel_json(const tilec_kernel *k) { return strbuf_cstr(&k->json); }
const char *tilec_kernel_plan_realization(const tilec_kernel *k) { return strbuf_cstr(&k->plan_realization); }
/* A CUDA kernel's assembly is its PTX (always kept: the driver loaded it). */
const char *tilec_kernel_backend_realization(const tilec_kernel *k) {
    k = kernel_main(k);
    if (k->xir || k->reference) return "";
    return k->gpu ? gpu_kernel_realization(k->gpu) : simd_kernel_realization(tilec_kernel_native(k));
}
const char *tilec_kernel_ir(const tilec_kernel *k) {
    k = kernel_main(k);
    if (k->xir || k->reference) return NULL;
    return k->gpu ? gpu_kernel_ir(k->gpu) : simd_kernel_ir(tilec_kernel_native(k)); }
const char *tilec_kernel_asm(const tilec_kernel *k) {
    k = kernel_main(k);
    if (k->xir || k->reference) return NULL;
    return k->gpu ? gpu_kernel_ptx(k->gpu) : simd_kernel_asm(tilec_kernel_native(k));
}
uint64_t tilec_kernel_flops(const tilec_kernel *k) { return k->flops; }
tilec_compile_times tilec_kernel_compile_times(const tilec_kernel *k) { return k->times; }
