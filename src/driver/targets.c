/* targets.c — the pipeline's targets (pipeline.h): what differs between
 *
 *   cpu          this host's cores: the SIMD backend's JIT (or an
 *                ahead-of-time object), the planner seeing the described
 *                host (base/host.h), the kernel's own or a borrowed runtime
 *   cuda         an NVIDIA GPU: the GPU target info (W = 32, CTAs), PTX from
 *                the NVPTX backend, the CUDA driver loaded when a kernel is
 *                made (docs/gpu.md)
 *   modeled-cpu  a thread pool of --workers with packets of --width, never
 *                the host (the CLI's planning commands: reproducible plans)
 *   modeled-cuda the GPU target info of a default device
 *   xir, xir-cuda the modeled targets, their lowering run by the XIR
 *                interpreter (interpret.c: `tilec run --xir`)
 *
 * as functions that gate the stages; none runs stages of its own. */
#include "driver/pipeline.h"

#include "base/clock.h"
#include "base/host.h"
#include "gpu/cuda.h"
#include "options/options.h"
#include "rt/pool.h"
#include "tir/ir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- cpu ---- */

/* The packet width of `o` (its option, else TILEC_SIMD_WIDTH, else the
 * described host's); 0 and TILEC-O01 when invalid, or TILEC-O02 when the
 * host description (TILEC_HOST) is. */
static uint32_t packet_width(tilec_context *ctx, const tilec_compile_options *o) {
    host_desc host;
    char why[256];
    if (!host_current(&host, why, sizeof why)) {
        tilec_error(ctx, TILEC_E_ARG, "TILEC-O02", tilec_no_loc(), "TILEC_HOST: %s", why);
        return 0;
    }
    uint32_t width = simd_resolve_width(o->width, getenv("TILEC_SIMD_WIDTH"));
    if (!width)
        tilec_error(ctx, TILEC_E_ARG, "TILEC-O01", tilec_no_loc(),
                    "packet width must be 1, 2, 4, 8 or 16 (option %u, TILEC_SIMD_WIDTH '%s')", o->width,
                    getenv("TILEC_SIMD_WIDTH") ? getenv("TILEC_SIMD_WIDTH") : "");
    return width;
}

/* The runtime the kernel dispatches on, borrowed or its own, and the
 * worker count it is planned for; an ahead-of-time kernel has no runtime
 * (the program linking it brings one) and is planned for o->threads. */
static tilec_status attach_runtime(tilec_context *ctx, tilec_kernel *k, const tilec_compile_options *o) {
    tilec_status st = TILEC_OK;
    if (k->aot) {
        st = rt_resolve_worker_count(ctx, o->threads, &k->workers);
    } else if (o->runtime) {
        k->runtime = o->runtime;
    } else {
        k->owns_runtime = true;
        st = tilec_runtime_create(ctx, o->threads, &k->runtime);
    }
    if (!st && k->runtime) k->workers = tilec_runtime_workers(k->runtime);
    return st;
}

/* Width and workers; with a kernel to make, the kernel and its runtime. */
static tilec_status cpu_prepare(pipeline *p) {
    if (!(p->width = packet_width(p->ctx, &p->o))) return TILEC_E_ARG;
    p->host_width = !p->o.width && !getenv("TILEC_SIMD_WIDTH");
    if (!p->make_kernel) {
        if (p->o.runtime) return p->workers = tilec_runtime_workers(p->o.runtime), TILEC_OK;
        return rt_resolve_worker_count(p->ctx, p->o.threads, &p->workers);
    }
    tilec_status st = pipeline_kernel_start(p);
    if (st) return st;
    p->k->aot = p->aot;
    st = attach_runtime(p->ctx, p->k, &p->o);
    p->workers = p->k->workers;
    return st;
}

/* The planner's target for the described host (checked by packet_width):
 * a thread pool of `workers` with packets of `width`, the host's vector
 * registers, and its caches where known (else the modeled defaults). */
static void host_pool(plan_thread_pool *target, uint32_t width, uint32_t workers) {
    plan_thread_pool_init(target, width, workers);
    target->vector_registers = simd_host_vector_registers(width);
    target->dots = (simd_host_dot_bf16(width) ? PLAN_DOT_BF16 : 0) | (simd_host_dot_int8(width) ? PLAN_DOT_INT8 : 0);
    host_desc host;
    if (!host_current(&host, NULL, 0)) return;
    if (host.l1d_bytes) target->l1d_bytes = host.l1d_bytes;
    if (host.l2_bytes) target->l2_bytes = host.l2_bytes;
    if (host.l3_bytes) target->l3_bytes = host.l3_bytes;
}

static tilec_status cpu_planner(pipeline *p, tilec_compile_options *po) {
    (void)po;
    host_pool(&p->info.pool, p->width, p->workers);
    p->info_of = &p->info.pool.info;
    return TILEC_OK;
}

static tilec_status cpu_empty(pipeline *p) {
    tilec_status st = tilec_compile_empty(p->ctx, p->k, p->f, p->width, &p->o);
    p->k->times.verify = p->ms[TILEC_STAGE_VERIFY];
    p->k->times.total = now_ms() - p->verified;
    return st;
}

/* The parameters the dispatch keeps apart from every other one (each pair
 * must not overlap for the kernel to run: lower_arg.disjoint). */
static uint64_t apart_args(const lower_result *lowered) {
    uint64_t apart = 0;
    size_t n = lowered->arg_count < 64 ? lowered->arg_count : 64;
    for (size_t a = 0; a < n; a++) {
        bool alone = n == lowered->arg_count;
        for (size_t b = 0; b < n && alone; b++)
            alone = a == b || (lowered->args[a].disjoint >> b & 1) || (lowered->args[b].disjoint >> a & 1);
        if (alone) apart |= 1ull << a;
    }
    return apart;
}

/* The write-only parameters whose stores stream past the caches
 * (tilec_stores): auto, when the parameters together span at least 3/4 of
 * the last-level cache — the output would be evicted before any reuse
 * (glibc's memcpy uses the same bound for its non-temporal copies). */
static uint64_t streaming_args(const lower_result *lowered, tilec_stores policy, uint64_t l3_bytes, uint64_t footprint) {
    uint64_t written = 0;
    for (size_t a = 0; a < lowered->arg_count && a < 64; a++)
        if (lowered->args[a].usage == TIR_USE_WRITE) written |= 1ull << a;
    if (policy == TILEC_STORES_STREAMING) return written;
    if (policy == TILEC_STORES_CACHED || footprint / 3 < l3_bytes / 4) return 0;
    return written;
}

/* The bytes the arguments span: the lowering's, or for a kernel with
 * runtime sizes at the sizes it was planned at (sized: that kernel, else
 * NULL). */
static uint64_t footprint(const lower_result *lr, const tir_module *sized) {
    uint64_t bytes = 0, volume;
    for (size_t a = 0; !sized && a < lr->arg_count; a++) bytes += lr->args[a].min_bytes;
    const tir_func *f = sized ? tir_module_func(sized, 0) : NULL;
    for (size_t a = 0; f && a < tir_func_param_count(f); a++) {
        const tir_type *t = tir_value_type(tir_func_param(f, a));
        if (tir_space_volume(tir_type_space(t), &volume)) bytes += volume * tir_scalar_size(tir_type_elem(t));
    }
    return bytes;
}

bool pipeline_sized_streams(const pipeline *p) {
    if (p->target != &PIPELINE_CPU || p->o.stores == TILEC_STORES_CACHED) return false;
    if (p->o.stores == TILEC_STORES_STREAMING) return true;
    return p->sized && footprint(NULL, p->sized) / 3 >= p->info.pool.l3_bytes / 4;
}

/* What the SIMD backend is told of a lowering beside the record. */
static simd_facts lowering_facts(const lower_result *lr, uint32_t width, tilec_stores stores, uint64_t l3_bytes,
                                 const tir_module *sized) {
    return (simd_facts){.width = width,
                        .required_packet_width = lr->required_packet_width,
                        .streaming_args = streaming_args(lr, stores, l3_bytes, footprint(lr, sized)),
                        .apart_args = apart_args(lr)};
}

tilec_status pipeline_native_lowered(tilec_context *ctx, const lower_result *lr, const tilec_compile_options *o,
                                     simd_kernel **out) {
    plan_thread_pool host;
    host_pool(&host, o->width, 1);
    simd_facts d = lowering_facts(lr, o->width, o->stores, host.l3_bytes, NULL);
    return simd_compile(ctx, lr->kernel, o, &d, out);
}

/* Native code for the lowered kernel, the kernel's launch and times, then
 * its panel copy kernels and its unfused twin (program.c). */
static tilec_status cpu_emit(pipeline *p) {
    tilec_kernel *k = p->k;
    const lower_result *lr = &p->lowered;
    double t3 = now_ms();
    simd_facts d = lowering_facts(lr, p->width, p->o.stores, p->info.pool.l3_bytes, p->sized);
    tilec_status st = tilec_compile_native(p->ctx, k, lr->kernel, &p->o, &d);
    double t4 = now_ms();
    if (st) return st;
    /* a cache hit ran no LLVM: its lookup is the whole backend time */
    simd_compile_times backend = strcmp(k->cache, "hit") ? simd_kernel_compile_times(k->native)
                                                         : (simd_compile_times){.emit_ms = t4 - t3};
    k->times = (tilec_compile_times){.verify = p->ms[TILEC_STAGE_VERIFY],
                                     .plan = p->ms[TILEC_STAGE_PLAN],
                                     .lower = p->ms[TILEC_STAGE_LOWER],
                                     .llvm = backend.emit_ms,
                                     .jit = backend.jit_ms,
                                     .total = t4 - p->verified,
                                     .optimize = backend.optimize_ms,
                                     .codegen = backend.codegen_ms};
    k->flops = tilec_count_mma_flops(p->f);
    if (!pipeline_take_launch(k, p->f, &p->plan, lr) || !tilec_kernel_take_fault_sites(k, lr))
        return tilec_error(p->ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory describing a kernel");
    if (lr->packed && (st = program_compile_packs(p))) return st;
    return program_compile_unfused(p);
}

const pipeline_target PIPELINE_CPU = {"cpu", cpu_prepare, cpu_planner, cpu_empty, true, cpu_emit};

/* ---- cuda ---- */

/* The architecture PTX is generated for on a device of compute capability
 * cc: its own when LLVM's NVPTX target knows it, else the newest it knows
 * below (PTX runs on later architectures: the driver compiles it). */
static const char *device_arch(uint32_t cc) {
    for (uint32_t c = cc; c >= 60; c--) {
        char name[16];
        snprintf(name, sizeof name, "sm_%u", c);
        if (options_gpu_arch(name)) return options_gpu_arch(name);
    }
    return NULL;
}

/* With a kernel to make: the driver first, so no compile is wasted without
 * one and the plan and the PTX are for the device that will run them. */
static tilec_status cuda_prepare(pipeline *p) {
    if (p->aot)
        return tilec_error(p->ctx, TILEC_E_UNSUPPORTED, "TILEC-AOT03", tilec_no_loc(),
                           "ahead-of-time objects are CPU code; the CUDA target has tilec_emit_ptx");
    p->width = PLAN_GPU_WARP;
    p->sm = p->o.gpu_arch;
    if (!p->make_kernel) return TILEC_OK;
    tilec_status st = pipeline_kernel_start(p);
    if (!st) st = gpu_cuda_open(p->ctx, &p->k->cuda);
    if (st) return st;
    uint32_t cc = gpu_cuda_compute_capability(p->k->cuda);
    if (!p->sm) p->sm = device_arch(cc);
    if (!p->sm)
        return tilec_error(p->ctx, TILEC_E_UNSUPPORTED, "GPU-O02", tilec_no_loc(),
                           "the device '%s' has compute capability %u.%u; the NVPTX target starts at sm_60",
                           gpu_cuda_device_name(p->k->cuda), cc / 10, cc % 10);
    p->multiprocessors = gpu_cuda_multiprocessors(p->k->cuda);
    return TILEC_OK;
}

static tilec_status cuda_planner(pipeline *p, tilec_compile_options *po) {
    plan_gpu_init(&p->info.gpu, p->multiprocessors);
    p->info_of = &p->info.gpu.info;
    return plan_gpu_options(p->ctx, po);
}

static tilec_status cuda_empty(pipeline *p) {
    return tilec_error(p->ctx, TILEC_E_UNSUPPORTED, "GPU-U02",
                       tilec_no_loc(), "'%s': its root domain has no instances; the CUDA target launches no empty grid",
                       tir_func_name(p->f));
}

/* The argument table and launch geometry the dispatch needs, and the
 * parameters it copies back. */
static bool take_gpu_launch(tilec_kernel *k, const tir_func *f, const plan_result *plan, const lower_result *lr) {
    k->params = tilec_alloc(k->ctx, (lr->arg_count ? lr->arg_count : 1) * sizeof *k->params);
    k->gpu_written = tilec_alloc(k->ctx, lr->arg_count ? lr->arg_count : 1);
    if (!k->params || !k->gpu_written) return false;
    k->prog.user_args = (uint32_t)lr->arg_count;
    for (size_t i = 0; i < lr->arg_count; i++) {
        k->params[i] = (rt_param){lr->args[i].elem, lr->args[i].min_bytes};
        k->gpu_written[i] = (lr->args[i].usage & TIR_USE_WRITE) != 0;
        k->arg_bytes += lr->args[i].min_bytes;
    }
    k->prog.desc = (rt_kernel){.name = strbuf_cstr(&k->name),
                               .arg_count = (uint32_t)lr->arg_count,
                               .params = k->params,
                               .dispatch_size = lr->dispatch_size,
                               .block_size = lr->block_size};
    if (f->sym_count && !kernel_sizes_make(k, f, lr->local_lanes)) return false; /* the launch at each dispatch's sizes */
    tilec_plan_label(plan, f->sym_count != 0, &k->plan);
    strbuf_append(&k->plan_realization, lr->realization ? lr->realization : "");
    return !k->plan.failed && !k->plan_realization.failed && tilec_kernel_take_fault_sites(k, lr);
}

/* PTX; with a kernel to make, loaded by the driver. */
static tilec_status cuda_emit(pipeline *p) {
    gpu_options go = {.sm = p->sm, .capture_ir = p->o.capture_ir};
    tilec_status st = gpu_compile(p->ctx, p->lowered.kernel, &go, &p->ptx);
    tilec_kernel *k = p->k;
    if (st || !k) return st;
    if (!take_gpu_launch(k, p->f, &p->plan, &p->lowered))
        return tilec_error(p->ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory describing a kernel");
    k->gpu = p->ptx;
    p->ptx = NULL;
    k->flops = tilec_count_mma_flops(p->f);
    k->times = (tilec_compile_times){.verify = p->ms[TILEC_STAGE_VERIFY],
                                     .plan = p->ms[TILEC_STAGE_PLAN],
                                     .lower = p->ms[TILEC_STAGE_LOWER],
                                     .llvm = gpu_kernel_emit_ms(k->gpu),
                                     .jit = gpu_kernel_llvm_ms(k->gpu)};
    st = gpu_cuda_load(k->cuda, p->ctx, gpu_kernel_ptx(k->gpu), gpu_kernel_entry(k->gpu), &k->module);
    k->times.total = now_ms() - p->started;
    return st;
}

const pipeline_target PIPELINE_CUDA = {"cuda", cuda_prepare, cuda_planner, cuda_empty, false, cuda_emit};

/* ---- modeled targets: the command line's reproducible plans ---- */

static tilec_status modeled_cpu_prepare(pipeline *p) {
    p->width = p->o.width ? p->o.width : 8;
    p->workers = p->modeled_workers;
    return pipeline_kernel_start(p); /* the xir targets make one: no runtime */
}

static tilec_status modeled_cpu_planner(pipeline *p, tilec_compile_options *po) {
    plan_thread_pool_init(&p->info.pool, p->width, p->workers);
    p->info_of = &p->info.pool.info;
    return TILEC_OK;
}

static tilec_status modeled_cuda_prepare(pipeline *p) {
    p->width = PLAN_GPU_WARP;
    return pipeline_kernel_start(p); /* the xir targets make one: no runtime */
}

const pipeline_target PIPELINE_MODELED_CPU = {"modeled-cpu", modeled_cpu_prepare, modeled_cpu_planner, NULL, false,
                                              NULL};
const pipeline_target PIPELINE_MODELED_CUDA = {"modeled-cuda", modeled_cuda_prepare, cuda_planner, NULL, false, NULL};
const pipeline_target PIPELINE_XIR = {"xir", modeled_cpu_prepare, modeled_cpu_planner, pipeline_xir_empty, false,
                                      pipeline_xir_emit};
const pipeline_target PIPELINE_XIR_CUDA = {"xir-cuda", modeled_cuda_prepare, cuda_planner, pipeline_xir_empty, false,
                                           pipeline_xir_emit};
