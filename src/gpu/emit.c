/* emit.c — XIR → LLVM IR for nvptx64-nvidia-cuda: one XIR lane is one CUDA
 * thread, so every XIR value is a plain scalar and every XIR block one LLVM
 * block with its own branches (the hardware handles divergence; no masks,
 * no predicated regions).  Blocks are emitted in reverse post-order, so a
 * value is emitted before its uses; PHI incomings are filled at the end,
 * from the LLVM block each XIR block ends in (a fault or a math function's
 * edge repair splits its block).
 *
 * Memory: buffers are global pointers (addrspace 1) indexed by element;
 * private arrays are allocas in the entry block (registers when their
 * indices fold, local memory otherwise).  warp_read_lane is
 * llvm.nvvm.shfl.sync.idx.i32 over the full warp, on 32-bit pieces of the
 * value.  Arithmetic is codegen/scalar.h's; math functions call libdevice
 * (__nv_expf / __nv_exp), resolved when ptx.c links it in, with
 * codegen/math_edges.h's repairs at the range edges. */
#include "gpu/emit.h"

#include "codegen/math_edges.h"
#include "codegen/scalar.h"
#include "base/fault.h"
#include "xir/cfg.h"

#include <stdio.h>
#include <string.h>

enum { GLOBAL = 1 }; /* NVPTX's global address space */

typedef struct {
    cg_builder g; /* first: the math callback finds the emitter from it */
    tilec_context *ctx;
    const xir_func *f;
    gpu_emit_info *info;
    bool host;            /* GPU_EMIT_HOST */
    LLVMTypeRef gptr;
    LLVMValueRef fn, dsize, faults, tid, ctaid;
    LLVMValueRef *val;               /* by value id */
    LLVMValueRef *bufptr;            /* by argument index */
    LLVMBasicBlockRef *entry_bb, *exit_bb; /* by block id */
} emitter;

static LLVMValueRef sreg(emitter *e, const char *name) {
    return cg_intrinsic(&e->g, name, NULL, 0, NULL, 0);
}

static LLVMValueRef special(emitter *e, xir_special s) {
    cg_builder *g = &e->g;
    switch (s) {
    case XIR_SPECIAL_DISPATCH_ID:
        return LLVMBuildAdd(g->b, LLVMBuildMul(g->b, e->ctaid, cg_const_i32(g, e->f->block_size), ""), e->tid, "");
    case XIR_SPECIAL_WARP_LANE_ID: return LLVMBuildAnd(g->b, e->tid, cg_const_i32(g, 31), "");
    case XIR_SPECIAL_BLOCK_ID: return e->ctaid;
    case XIR_SPECIAL_DISPATCH_SIZE: return e->dsize;
    case XIR_SPECIAL_BLOCK_SIZE: return cg_const_i32(g, e->f->block_size);
    case XIR_SPECIAL_WARP_SIZE: return cg_const_i32(g, 32);
    default: return cg_const_i32(g, 0);
    }
}

static LLVMValueRef get(emitter *e, const xir_value *v) {
    switch (v->kind) {
    case XIR_VALUE_CONST: return cg_constant(&e->g, v);
    case XIR_VALUE_SPECIAL: return special(e, v->special);
    case XIR_VALUE_ARG: return e->bufptr[v->arg_index];
    default: return e->val[v->id];
    }
}

/* libdevice's name of a math function: __nv_<stem>f for f32, __nv_<stem>
 * for f64 (the SLEEF stems of scalar/math_ops.h are C's names, as libdevice's);
 * on the host SLEEF's scalar Sleef_<stem>f_u10 / Sleef_<stem>_u10. */
static LLVMValueRef libdevice_call(cg_builder *g, const char *stem, tir_scalar t, LLVMValueRef *x, unsigned argc) {
    emitter *e = (emitter *)g;
    char name[48];
    if (e->host) {
        snprintf(name, sizeof name, "Sleef_%s%s_u10", stem, t == TIR_F32 ? "f" : "");
        bool known = false;
        for (uint32_t i = 0; i < e->info->n_sleef; i++) known |= !strcmp(e->info->sleef[i], name);
        if (!known && e->info->n_sleef < GPU_EMIT_MAX_SLEEF)
            snprintf(e->info->sleef[e->info->n_sleef++], sizeof e->info->sleef[0], "%s", name);
    } else {
        snprintf(name, sizeof name, "__nv_%s%s", stem, t == TIR_F32 ? "f" : "");
    }
    LLVMTypeRef ft_arg = cg_scalar_type(g, t), params[2] = {ft_arg, ft_arg};
    LLVMTypeRef ft = LLVMFunctionType(ft_arg, params, argc, false);
    LLVMValueRef fn = LLVMGetNamedFunction(g->m, name);
    if (!fn) fn = LLVMAddFunction(g->m, name, ft);
    e->info->math_calls++;
    return LLVMBuildCall2(g->b, ft, fn, x, argc, "");
}

/* libdevice (SLEEF on the host), with the lanes off at the range edges
 * recomputed (codegen/math_edges.h): SLEEF's premature overflows, and the
 * same formulas on the device, where they only use exp, log and pow. */
static LLVMValueRef math(cg_builder *g, const char *stem, tir_scalar t, LLVMValueRef *x, unsigned argc) {
    return cg_math_edges(g, libdevice_call, stem, t, x, libdevice_call(g, stem, t, x, argc));
}

static LLVMValueRef element(emitter *e, tir_scalar s, LLVMValueRef base, const xir_value *index) {
    LLVMValueRef idx = LLVMBuildIntCast2(e->g.b, get(e, index), e->g.i64, tir_scalar_is_signed(index->type->scalar), "");
    return LLVMBuildGEP2(e->g.b, cg_mem_type(&e->g, s), base, &idx, 1, "");
}

static LLVMValueRef load(emitter *e, tir_scalar s, LLVMValueRef p) {
    LLVMValueRef l = LLVMBuildLoad2(e->g.b, cg_mem_type(&e->g, s), p, "");
    LLVMSetAlignment(l, cg_align_of(s));
    return cg_from_mem(&e->g, s, l);
}

static void store(emitter *e, tir_scalar s, LLVMValueRef v, LLVMValueRef p) {
    LLVMSetAlignment(LLVMBuildStore(e->g.b, cg_to_mem(&e->g, s, v), p), cg_align_of(s));
}

/* value from lane `lane` of the warp: shfl.sync.idx on each 32-bit piece
 * (narrower values widened, 64-bit ones split). */
static LLVMValueRef read_lane(emitter *e, const xir_inst *i) {
    cg_builder *g = &e->g;
    const xir_value *value = xir_operand(i, 0), *lane_v = xir_operand(i, 1);
    tir_scalar s = value->type->scalar;
    LLVMValueRef v = get(e, value);
    LLVMValueRef lane = LLVMBuildIntCast2(g->b, get(e, lane_v), g->i32, false, "");
    lane = LLVMBuildAnd(g->b, lane, cg_const_i32(g, 31), "");
    unsigned bits = s == TIR_BOOL ? 1 : (unsigned)tir_scalar_size(s) * 8;
    LLVMTypeRef it = LLVMIntTypeInContext(g->c, bits);
    LLVMValueRef x = LLVMBuildBitCast(g->b, v, it, "");
    LLVMValueRef wide = bits <= 32 ? LLVMBuildZExt(g->b, x, g->i32, "") : NULL;
    LLVMValueRef pieces[2] = {wide, NULL};
    if (bits == 64) {
        pieces[0] = LLVMBuildTrunc(g->b, x, g->i32, "");
        pieces[1] = LLVMBuildTrunc(g->b, LLVMBuildLShr(g->b, x, cg_const_i64(g, 32), ""), g->i32, "");
    }
    for (int k = 0; k < 2 && pieces[k]; k++) {
        LLVMValueRef args[4] = {cg_const_i32(g, 0xffffffffu), pieces[k], lane, cg_const_i32(g, 31)};
        pieces[k] = cg_intrinsic(g, "llvm.nvvm.shfl.sync.idx.i32", NULL, 0, args, 4);
    }
    e->info->shuffles++;
    LLVMValueRef r;
    if (bits == 64) {
        LLVMValueRef lo = LLVMBuildZExt(g->b, pieces[0], g->i64, ""), hi = LLVMBuildZExt(g->b, pieces[1], g->i64, "");
        r = LLVMBuildOr(g->b, lo, LLVMBuildShl(g->b, hi, cg_const_i64(g, 32), ""), "");
    } else {
        r = bits < 32 ? LLVMBuildTrunc(g->b, pieces[0], it, "") : pieces[0];
    }
    return LLVMBuildBitCast(g->b, r, cg_scalar_type(g, s), "");
}

/* The record's count is incremented atomically; only the fault that raised
 * it from 0 writes value and site (base/fault.h). */
static void fault(emitter *e, const xir_inst *i, const xir_block *b) {
    cg_builder *g = &e->g;
    LLVMValueRef old = LLVMBuildAtomicRMW(g->b, LLVMAtomicRMWBinOpAdd, e->faults, cg_const_i64(g, 1),
                                          LLVMAtomicOrderingMonotonic, false);
    LLVMBasicBlockRef first = LLVMAppendBasicBlockInContext(g->c, e->fn, "fault_first");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->c, e->fn, "fault_done");
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, old, cg_const_i64(g, 0), ""), first, done);
    LLVMPositionBuilderAtEnd(g->b, first);
    LLVMValueRef at_value = cg_const_i64(g, FAULT_RECORD_VALUE_OFFSET), at_site = cg_const_i64(g, FAULT_RECORD_SITE_OFFSET);
    LLVMBuildStore(g->b, get(e, xir_operand(i, 1)), LLVMBuildGEP2(g->b, g->i8, e->faults, &at_value, 1, ""));
    LLVMBuildStore(g->b, get(e, xir_operand(i, 0)), LLVMBuildGEP2(g->b, g->i8, e->faults, &at_site, 1, ""));
    LLVMBuildBr(g->b, done);
    LLVMPositionBuilderAtEnd(g->b, done);
    e->exit_bb[b->id] = done;
    e->info->fault_sites++;
}

static void emit_inst(emitter *e, const xir_inst *i, const xir_block *b) {
    cg_builder *g = &e->g;
    LLVMValueRef r = NULL;
    switch (i->kind) {
    case XIR_INST_ARITH: {
        unsigned n = xir_arith_arity(i->op);
        LLVMValueRef x[3] = {NULL, NULL, NULL};
        for (unsigned k = 0; k < n; k++) x[k] = get(e, xir_operand(i, k));
        tir_scalar t = xir_operand(i, i->op == XIR_OP_SELECT ? 1 : 0)->type->scalar;
        r = cg_arith(g, i->op, t, x[0], x[1], x[2]);
        e->exit_bb[b->id] = LLVMGetInsertBlock(g->b); /* a math function's edge repair branches */
        break;
    }
    case XIR_INST_CAST: r = cg_convert(g, xir_operand(i, 0)->type->scalar, i->value.type->scalar, get(e, xir_operand(i, 0))); break;
    case XIR_INST_BITCAST: r = LLVMBuildBitCast(g->b, get(e, xir_operand(i, 0)), cg_scalar_type(g, i->value.type->scalar), ""); break;
    case XIR_INST_PHI: r = LLVMBuildPhi(g->b, cg_scalar_type(g, i->value.type->scalar), ""); break;
    case XIR_INST_ALLOCA: break; /* placed in the entry block up front */
    case XIR_INST_GEP: r = element(e, i->value.type->scalar, get(e, xir_operand(i, 0)), xir_operand(i, 1)); break;
    case XIR_INST_LOAD: r = load(e, i->value.type->scalar, get(e, xir_operand(i, 0))); break;
    case XIR_INST_STORE: store(e, xir_operand(i, 1)->type->scalar, get(e, xir_operand(i, 1)), get(e, xir_operand(i, 0))); break;
    case XIR_INST_BUFFER_READ: {
        tir_scalar s = i->value.type->scalar;
        r = load(e, s, element(e, s, get(e, xir_operand(i, 0)), xir_operand(i, 1)));
        break;
    }
    case XIR_INST_BUFFER_WRITE: {
        const xir_value *v = xir_operand(i, 2);
        store(e, v->type->scalar, get(e, v), element(e, v->type->scalar, get(e, xir_operand(i, 0)), xir_operand(i, 1)));
        break;
    }
    case XIR_INST_FAULT: fault(e, i, b); break;
    case XIR_INST_BUFFER_ADDRESS: r = LLVMBuildPtrToInt(g->b, get(e, xir_operand(i, 0)), g->i64, ""); break;
    case XIR_INST_WARP_READ_LANE: r = read_lane(e, i); break;
    case XIR_INST_WARP_SYNC: { /* bar.warp.sync: the warp's threads meet, memory ordered among them */
        LLVMValueRef all = cg_const_i32(g, 0xffffffffu);
        cg_intrinsic(g, "llvm.nvvm.bar.warp.sync", NULL, 0, &all, 1);
        e->info->syncs++;
        break;
    }
    case XIR_INST_BR: LLVMBuildBr(g->b, e->entry_bb[i->targets[0]->id]); break;
    case XIR_INST_COND_BR:
        LLVMBuildCondBr(g->b, get(e, xir_operand(i, 0)), e->entry_bb[i->targets[0]->id], e->entry_bb[i->targets[1]->id]);
        break;
    case XIR_INST_RET: LLVMBuildRetVoid(g->b); break;
    default: break;
    }
    if (r) e->val[i->value.id] = r;
}

static void fill_phis(emitter *e, const xir_cfg *cfg) {
    for (uint32_t k = 0; k < cfg->rpo_count; k++)
        for (const xir_inst *i = cfg->rpo[k]->first; i && i->kind == XIR_INST_PHI; i = i->next)
            for (uint32_t q = 0; q < i->operand_count; q++) {
                const xir_block *from = i->incoming[q];
                if (!xir_cfg_reachable(cfg, from)) continue;
                LLVMBasicBlockRef bb = e->exit_bb[from->id];
                LLVMPositionBuilderBefore(e->g.b, LLVMGetBasicBlockTerminator(bb));
                LLVMValueRef v = get(e, xir_operand(i, q));
                LLVMAddIncoming(e->val[i->value.id], &v, &bb, 1);
            }
}

static void mark_param(emitter *e, unsigned index, const char *attribute) {
    unsigned kind = LLVMGetEnumAttributeKindForName(attribute, strlen(attribute));
    LLVMAddAttributeAtIndex(e->fn, index, LLVMCreateEnumAttribute(e->g.c, kind, 0));
}

/* Whether some buffer_write stores into buffer argument v. */
static bool written(const xir_value *v) {
    for (const xir_use *u = v->uses; u; u = u->next)
        if (u->user->kind == XIR_INST_BUFFER_WRITE && u->index == 0) return true;
    return false;
}

/* The kernel's signature and its nvvm.annotations: a kernel, at most B
 * threads per block (ptxas sizes registers for it). */
/* The host's: (buffers, dispatch_size, faults, thread, block); the
 * buffers are loaded from their array in the prologue. */
static void declare_host_function(emitter *e, const char *entry) {
    cg_builder *g = &e->g;
    LLVMTypeRef params[5] = {e->gptr, g->i32, e->gptr, g->i32, g->i32};
    e->fn = LLVMAddFunction(g->m, entry, LLVMFunctionType(LLVMVoidTypeInContext(g->c), params, 5, false));
    e->dsize = LLVMGetParam(e->fn, 1);
    e->faults = LLVMGetParam(e->fn, 2);
}

static void declare_kernel(emitter *e, const char *entry) {
    cg_builder *g = &e->g;
    size_t n = e->f->args.len;
    if (e->host) {
        declare_host_function(e, entry);
        return;
    }
    LLVMTypeRef params[n + 2];
    for (size_t a = 0; a < n; a++) params[a] = e->gptr;
    params[n] = g->i32;
    params[n + 1] = e->gptr;
    e->fn = LLVMAddFunction(g->m, entry, LLVMFunctionType(LLVMVoidTypeInContext(g->c), params, (unsigned)n + 2, false));
    for (size_t a = 0; a < n; a++) {
        e->bufptr[a] = LLVMGetParam(e->fn, (unsigned)a);
        const char *name = e->f->args.data[a]->name;
        if (name) LLVMSetValueName2(e->bufptr[a], name, strlen(name));
        /* arguments never overlap (the launch ABI: gpu.h), so each is
         * noalias; one the kernel never writes is also readonly, which
         * lets its loads go through the read-only data cache (ld.global.nc) */
        mark_param(e, (unsigned)a + 1, "noalias");
        if (!written(e->f->args.data[a])) mark_param(e, (unsigned)a + 1, "readonly");
    }
    e->dsize = LLVMGetParam(e->fn, (unsigned)n);
    e->faults = LLVMGetParam(e->fn, (unsigned)n + 1);
    LLVMValueRef kernel[3] = {e->fn, LLVMMDStringInContext(g->c, "kernel", 6), cg_const_i32(g, 1)};
    LLVMValueRef maxntid[3] = {e->fn, LLVMMDStringInContext(g->c, "maxntidx", 8), cg_const_i32(g, e->f->block_size)};
    LLVMAddNamedMetadataOperand(g->m, "nvvm.annotations", LLVMMDNodeInContext(g->c, kernel, 3));
    LLVMAddNamedMetadataOperand(g->m, "nvvm.annotations", LLVMMDNodeInContext(g->c, maxntid, 3));
}

/* The prologue: thread and block ids, allocas, the exit of threads past
 * dispatch_size. */
static void emit_prologue(emitter *e, const xir_cfg *cfg) {
    cg_builder *g = &e->g;
    LLVMBasicBlockRef start = LLVMAppendBasicBlockInContext(g->c, e->fn, "start");
    for (uint32_t k = 0; k < cfg->rpo_count; k++)
        e->entry_bb[cfg->rpo[k]->id] = e->exit_bb[cfg->rpo[k]->id] = LLVMAppendBasicBlockInContext(g->c, e->fn, "");
    LLVMBasicBlockRef gone = LLVMAppendBasicBlockInContext(g->c, e->fn, "inactive");
    LLVMPositionBuilderAtEnd(g->b, start);
    if (e->host) {
        e->tid = LLVMGetParam(e->fn, 3);
        e->ctaid = LLVMGetParam(e->fn, 4);
        for (size_t a = 0; a < e->f->args.len; a++) {
            LLVMValueRef at = cg_const_i64(g, a);
            e->bufptr[a] = LLVMBuildLoad2(g->b, e->gptr, LLVMBuildGEP2(g->b, e->gptr, LLVMGetParam(e->fn, 0), &at, 1, ""), "");
        }
    } else {
        e->tid = sreg(e, "llvm.nvvm.read.ptx.sreg.tid.x");
        e->ctaid = sreg(e, "llvm.nvvm.read.ptx.sreg.ctaid.x");
    }
    for (const xir_block *b = e->f->first; b; b = b->next)
        for (const xir_inst *i = b->first; i; i = i->next)
            if (i->kind == XIR_INST_ALLOCA) {
                const xir_type *t = i->alloca_type;
                LLVMTypeRef at = LLVMArrayType2(cg_mem_type(g, t->scalar), t->count ? t->count : 1);
                e->val[i->value.id] = LLVMBuildAlloca(g->b, at, "");
                e->info->private_arrays++;
            }
    LLVMValueRef id = special(e, XIR_SPECIAL_DISPATCH_ID);
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntULT, id, e->dsize, ""), e->entry_bb[e->f->first->id], gone);
    LLVMPositionBuilderAtEnd(g->b, gone);
    LLVMBuildRetVoid(g->b);
}

/* The first warp instruction of f, which the host cannot run; NULL if none. */
static const xir_inst *warp_instruction(const xir_func *f) {
    for (const xir_block *b = f->first; b; b = b->next)
        for (const xir_inst *i = b->first; i; i = i->next)
            if (i->kind == XIR_INST_WARP_READ_LANE || i->kind == XIR_INST_WARP_SYNC) return i;
    return NULL;
}

tilec_status gpu_emit(tilec_context *ctx, const xir_func *f, LLVMModuleRef m, const char *entry, gpu_emit_info *info) {
    emitter e = {.ctx = ctx, .f = f, .info = info, .host = info->mode == GPU_EMIT_HOST};
    const xir_inst *warp = e.host ? warp_instruction(f) : NULL;
    if (warp)
        return tilec_error(ctx, TILEC_E_UNSUPPORTED, "GPU-U03", tilec_no_loc(),
                           "'%s': %s needs a warp; the host runs one thread at a time", f->name,
                           xir_inst_kind_name(warp->kind));
    if (f->block_size % 32 || f->block_size > 1024)
        return tilec_error(ctx, TILEC_E_UNSUPPORTED, "GPU-U01", tilec_no_loc(),
                           "'%s': block size %u is not a whole number of warps up to 1024 threads", f->name,
                           f->block_size);
    xir_cfg cfg;
    if (!xir_cfg_build(ctx, f, false, &cfg))
        return tilec_error(ctx, TILEC_E_NOMEM, "GPU-M01", tilec_no_loc(), "out of memory emitting '%s'", f->name);
    cg_builder_init(&e.g, m, 1, true, math);
    e.gptr = LLVMPointerTypeInContext(e.g.c, e.host ? 0 : GLOBAL);
    size_t nv = f->next_value_id + 1, nb = f->next_block_id + 1;
    e.val = tilec_alloc(ctx, nv * sizeof *e.val);
    e.bufptr = tilec_alloc(ctx, (f->args.len + 1) * sizeof *e.bufptr);
    e.entry_bb = tilec_alloc(ctx, nb * sizeof *e.entry_bb);
    e.exit_bb = tilec_alloc(ctx, nb * sizeof *e.exit_bb);
    tilec_status st = TILEC_OK;
    if (!e.val || !e.bufptr || !e.entry_bb || !e.exit_bb) {
        st = tilec_error(ctx, TILEC_E_NOMEM, "GPU-M01", tilec_no_loc(), "out of memory emitting '%s'", f->name);
    } else {
        declare_kernel(&e, entry);
        emit_prologue(&e, &cfg);
        for (uint32_t k = 0; k < cfg.rpo_count; k++) {
            const xir_block *b = cfg.rpo[k];
            LLVMPositionBuilderAtEnd(e.g.b, e.entry_bb[b->id]);
            for (const xir_inst *i = b->first; i; i = i->next) emit_inst(&e, i, b);
        }
        fill_phis(&e, &cfg);
    }
    void *tables[] = {e.val, e.bufptr, e.entry_bb, e.exit_bb};
    for (size_t k = 0; k < sizeof tables / sizeof tables[0]; k++) tilec_free(ctx, tables[k]);
    if (e.g.b) LLVMDisposeBuilder(e.g.b);
    xir_cfg_free(&cfg);
    return st;
}
