/* interp_exec.c — one lane of the XIR interpreter: instruction execution, the
 * PHI parallel copy on each CFG edge, private arrays and buffer accesses.
 *
 * A lane runs from the entry block until `ret`, or until it reaches a
 * warp_read_lane, where it stops (BLOCKED, pc at that instruction) for the
 * packet scheduler in interp.c to perform the exchange.  Every index is checked
 * before memory is touched: buffers against size_bytes / element size, local
 * arrays against their count; private elements remember whether they were
 * written, so a read of a never-stored element is an error rather than a value. */
#include "xir/interp_impl.h"

#include "base/invariant.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

tilec_status xi_fail(xi_run *r, const xi_lane *lane, const xir_inst *inst, tilec_status status, const char *code,
                     const char *fmt, ...) {
    char msg[256], vl[64], bl[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return tilec_error(r->ctx, status, code, tilec_no_loc(), "%s %s in block %s of '%s' (dispatch id %u, lane %u): %s",
                       xir_inst_kind_name(inst->kind), xi_value_label(&inst->value, vl, sizeof vl),
                       xi_block_label(inst->parent, bl, sizeof bl), r->func->name, lane->dispatch_id, lane->lane, msg);
}

tilec_status xi_count_step(xi_run *r, const xi_lane *lane, const xir_inst *inst) {
    if (++r->steps <= r->options.max_steps) return TILEC_OK;
    return xi_fail(r, lane, inst, TILEC_E_BUDGET, "XIR-I05", "step budget of %llu instructions exceeded",
                   (unsigned long long)r->options.max_steps);
}

static uint32_t special(const xi_run *r, const xi_lane *lane, xir_special s) {
    switch (s) {
    case XIR_SPECIAL_DISPATCH_ID: return lane->dispatch_id;
    case XIR_SPECIAL_WARP_LANE_ID: return lane->dispatch_id % r->width;
    case XIR_SPECIAL_BLOCK_ID: return lane->dispatch_id / r->block_size;
    case XIR_SPECIAL_DISPATCH_SIZE: return r->dispatch_size;
    case XIR_SPECIAL_BLOCK_SIZE: return r->block_size;
    case XIR_SPECIAL_WARP_SIZE: return r->width;
    default: return 0; /* preparation admits only the registers above */
    }
}

tilec_status xi_read(xi_run *r, xi_lane *lane, const xir_inst *user, const xir_value *v, scalar_cell *out) {
    switch (v->kind) {
    case XIR_VALUE_INST:
        if (!lane->defined[v->id]) {
            char vl[64];
            return xi_fail(r, lane, user, TILEC_E_RUNTIME, "XIR-I10",
                           "operand %s has no value in this lane (read on a path that did not compute it)",
                           xi_value_label(v, vl, sizeof vl));
        }
        *out = lane->values[v->id];
        return TILEC_OK;
    case XIR_VALUE_CONST: *out = xir_cell_of_bits(v->type->scalar, v->constant); return TILEC_OK;
    case XIR_VALUE_SPECIAL: out->u = special(r, lane, v->special); return TILEC_OK;
    case XIR_VALUE_ARG: break; /* buffers are only operands of buffer instructions, which index args directly */
    }
    out->u = 0;
    return TILEC_OK;
}

void xi_define(xi_lane *lane, const xir_inst *inst, scalar_cell value) {
    lane->values[inst->value.id] = value;
    lane->defined[inst->value.id] = 1;
}

void xi_lane_start(xi_run *r, xi_lane *lane, uint32_t dispatch_id) {
    lane->dispatch_id = dispatch_id;
    lane->status = XI_RUNNING;
    memset(lane->defined, 0, r->func->next_value_id);
    lane->block = r->func->first;
    lane->pc = r->blocks[lane->block->id].body;
    lane->mem_used = 0;
    lane->private_bytes = 0;
    lane->arrays.len = 0;
}

/* ---- control flow ---- */

/* Takes target k of the current block's terminator: all PHI sources of the
 * edge are read before any PHI is assigned (the parallel-copy rule). */
static tilec_status take_edge(xi_run *r, xi_lane *lane, const xir_inst *term, unsigned k) {
    const xi_edge *e = &r->blocks[lane->block->id].edges[k];
    tilec_status st;
    for (uint32_t i = 0; i < e->count; i++)
        if ((st = xi_read(r, lane, e->phis[i], e->sources[i], &r->scratch[i]))) return st;
    for (uint32_t i = 0; i < e->count; i++) {
        if ((st = xi_count_step(r, lane, e->phis[i]))) return st;
        xi_define(lane, e->phis[i], r->scratch[i]);
    }
    lane->block = term->targets[k];
    lane->pc = r->blocks[lane->block->id].body;
    return TILEC_OK;
}

/* An index operand as text, in its own signedness. */
static const char *index_text(tir_scalar t, scalar_cell x, char *buf, size_t n) {
    if (tir_scalar_is_signed(t)) snprintf(buf, n, "%lld", (long long)x.i);
    else snprintf(buf, n, "%llu", (unsigned long long)x.u);
    return buf;
}

/* ---- private arrays ---- */

static tilec_status alloca_array(xi_run *r, xi_lane *lane, const xir_inst *inst) {
    const xir_type *t = inst->alloca_type;
    size_t es = tir_scalar_size(t->scalar);
    uint64_t limit = r->options.max_private_bytes;
    if (lane->arrays.len >= XI_MAX_ALLOCATIONS)
        return xi_fail(r, lane, inst, TILEC_E_BUDGET, "XIR-I06", "more than %u private allocations in one lane",
                       (unsigned)XI_MAX_ALLOCATIONS);
    if (t->count > XI_MAX_ARRAY_COUNT)
        return xi_fail(r, lane, inst, TILEC_E_BUDGET, "XIR-I06", "array of %llu elements exceeds the limit of %llu",
                       (unsigned long long)t->count, (unsigned long long)XI_MAX_ARRAY_COUNT);
    if (t->count > (limit - lane->private_bytes) / es)
        return xi_fail(r, lane, inst, TILEC_E_BUDGET, "XIR-I06",
                       "private memory budget of %llu bytes per lane exceeded (%llu bytes in use, %llu requested)",
                       (unsigned long long)limit, (unsigned long long)lane->private_bytes,
                       (unsigned long long)t->count * es);
    size_t need = (size_t)t->count * (es + 1); /* elements, then written flags */
    if (lane->mem_cap - lane->mem_used < need) {
        size_t cap = lane->mem_cap ? lane->mem_cap : 4096;
        while (cap - lane->mem_used < need) cap *= 2;
        unsigned char *mem = tilec_grow(r->ctx, lane->mem, lane->mem_cap, cap);
        if (!mem)
            return xi_fail(r, lane, inst, TILEC_E_NOMEM, "XIR-I04", "out of memory for %llu private bytes",
                           (unsigned long long)cap);
        lane->mem = mem;
        lane->mem_cap = cap;
    }
    xi_array a = {.offset = lane->mem_used, .count = (uint32_t)t->count, .elem = t->scalar};
    if (!VEC_PUSH(r->ctx, &lane->arrays, a))
        return xi_fail(r, lane, inst, TILEC_E_NOMEM, "XIR-I04", "out of memory recording a private allocation");
    if (a.count) memset(lane->mem + a.offset + a.count * es, 0, a.count); /* fresh storage: nothing written yet */
    lane->mem_used += need;
    lane->private_bytes += t->count * es;
    xi_define(lane, inst, (scalar_cell){.u = lane->arrays.len - 1});
    return TILEC_OK;
}

static tilec_status gep(xi_run *r, xi_lane *lane, const xir_inst *inst, const scalar_cell *x) {
    const xi_array *a = &lane->arrays.data[x[0].u];
    uint64_t index;
    if (!xi_index(xir_operand(inst, 1)->type->scalar, x[1], &index) || index >= a->count) {
        char vl[64], il[32];
        return xi_fail(r, lane, inst, TILEC_E_RUNTIME, "XIR-I08", "index %s out of range [0, %u) of local array %s",
                       index_text(xir_operand(inst, 1)->type->scalar, x[1], il, sizeof il), a->count,
                       xi_value_label(xir_operand(inst, 0), vl, sizeof vl));
    }
    xi_define(lane, inst, (scalar_cell){.u = x[0].u << 32 | index});
    return TILEC_OK;
}

/* The element a pointer cell designates, and its written flag. */
static unsigned char *element(xi_lane *lane, scalar_cell ptr, unsigned char **flag, tir_scalar *elem) {
    const xi_array *a = &lane->arrays.data[ptr.u >> 32];
    uint32_t index = (uint32_t)ptr.u;
    size_t es = tir_scalar_size(a->elem);
    *flag = lane->mem + a->offset + (size_t)a->count * es + index;
    *elem = a->elem;
    return lane->mem + a->offset + (size_t)index * es;
}

static tilec_status load(xi_run *r, xi_lane *lane, const xir_inst *inst, const scalar_cell *x) {
    unsigned char *flag;
    tir_scalar elem;
    unsigned char *p = element(lane, x[0], &flag, &elem);
    if (!*flag) {
        char vl[64];
        return xi_fail(r, lane, inst, TILEC_E_RUNTIME, "XIR-I09",
                       "reads element %u of a local array that was never stored (through %s)", (uint32_t)x[0].u,
                       xi_value_label(xir_operand(inst, 0), vl, sizeof vl));
    }
    xi_define(lane, inst, xi_load_elem(elem, p));
    return TILEC_OK;
}

static void store(xi_lane *lane, const scalar_cell *x) {
    unsigned char *flag;
    tir_scalar elem;
    unsigned char *p = element(lane, x[0], &flag, &elem);
    xi_store_elem(elem, p, x[1]);
    *flag = 1;
}

/* ---- buffers ---- */

/* The address of element x[1] of the buffer operand, or an XIR-I07 error. */
static tilec_status buffer_element(xi_run *r, xi_lane *lane, const xir_inst *inst, const scalar_cell *x,
                                   unsigned char **out) {
    const xir_value *buf = xir_operand(inst, 0);
    const tir_buffer *arg = &r->args[buf->arg_index];
    size_t es = tir_scalar_size(inst->kind == XIR_INST_BUFFER_READ ? inst->value.type->scalar : buf->type->scalar); /* a word read counts words */
    uint64_t index, count = arg->size_bytes / es;
    if (!xi_index(xir_operand(inst, 1)->type->scalar, x[1], &index) || index >= count) {
        char vl[64], il[32];
        return xi_fail(r, lane, inst, TILEC_E_RUNTIME, "XIR-I07", "index %s out of range [0, %llu) of buffer %s",
                       index_text(xir_operand(inst, 1)->type->scalar, x[1], il, sizeof il), (unsigned long long)count,
                       xi_value_label(buf, vl, sizeof vl));
    }
    *out = (unsigned char *)arg->data + index * es;
    return TILEC_OK;
}

/* A bounds fault: recorded (the first one keeps its site and value) when the
 * run has a fault record, else the run fails with XIR-I14. */
static tilec_status fault(xi_run *r, xi_lane *lane, const xir_inst *inst, const scalar_cell *x) {
    fault_record *rec = r->options.faults;
    if (!rec)
        return xi_fail(r, lane, inst, TILEC_E_RUNTIME, "XIR-I14", "bounds fault at site %llu: value %lld is out of range",
                       (unsigned long long)x[0].u, (long long)x[1].i);
    if (rec->count++ == 0) rec->site = (uint32_t)x[0].u, rec->value = x[1].i;
    return TILEC_OK;
}

/* ---- instructions ---- */

/* Executes one non-PHI instruction other than warp_read_lane. */
static tilec_status exec(xi_run *r, xi_lane *lane, const xir_inst *inst) {
    scalar_cell x[3];
    tilec_status st;
    /* preparation: every non-PHI instruction has at most 3 */
    if (!TILEC_INVARIANT(r->ctx, inst->operand_count <= 3)) return TILEC_E_INTERNAL;
    for (uint32_t i = 0; i < inst->operand_count; i++)
        if ((st = xi_read(r, lane, inst, xir_operand(inst, i), &x[i]))) return st;
    lane->pc = inst->next;
    unsigned char *p;
    switch (inst->kind) {
    /* preparation checked the operand types that xir/eval.h relies on */
    case XIR_INST_ARITH: {
        uint32_t typed = inst->op == XIR_OP_SELECT ? 1 : 0;
        scalar_cell result;
        if (!TILEC_INVARIANT(r->ctx, xir_cell_arith(inst->op, xir_operand(inst, typed)->type->scalar, x, &result)))
            return TILEC_E_INTERNAL;
        xi_define(lane, inst, result);
        return TILEC_OK;
    }
    case XIR_INST_CAST:
        xi_define(lane, inst, xir_cell_cast(xir_operand(inst, 0)->type->scalar, inst->value.type->scalar, x[0]));
        return TILEC_OK;
    case XIR_INST_BITCAST:
        xi_define(lane, inst, xir_cell_bitcast(xir_operand(inst, 0)->type->scalar, inst->value.type->scalar, x[0]));
        return TILEC_OK;
    case XIR_INST_ALLOCA: return alloca_array(r, lane, inst);
    case XIR_INST_GEP: return gep(r, lane, inst, x);
    case XIR_INST_LOAD: return load(r, lane, inst, x);
    case XIR_INST_STORE: store(lane, x); return TILEC_OK;
    case XIR_INST_BUFFER_READ:
        if ((st = buffer_element(r, lane, inst, x, &p))) return st;
        xi_define(lane, inst, xi_load_elem(inst->value.type->scalar, p));
        return TILEC_OK;
    case XIR_INST_BUFFER_WRITE:
        if ((st = buffer_element(r, lane, inst, x, &p))) return st;
        xi_store_elem(xir_operand(inst, 0)->type->scalar, p, x[2]);
        return TILEC_OK;
    case XIR_INST_FAULT: return fault(r, lane, inst, x);
    case XIR_INST_BUFFER_ADDRESS:
        xi_define(lane, inst, (scalar_cell){.u = (uint64_t)(uintptr_t)r->args[xir_operand(inst, 0)->arg_index].data});
        return TILEC_OK;
    case XIR_INST_BR: return take_edge(r, lane, inst, 0);
    case XIR_INST_COND_BR: return take_edge(r, lane, inst, x[0].u ? 0 : 1);
    case XIR_INST_RET: lane->status = XI_RETURNED; return TILEC_OK;
    default: break;
    }
    TILEC_UNREACHABLE(r->ctx, "exec: PHIs run on edges, warp_read_lane and warp_sync in the scheduler");
    return TILEC_E_INTERNAL;
}

tilec_status xi_lane_run(xi_run *r, xi_lane *lane) {
    while (lane->status == XI_RUNNING) {
        const xir_inst *inst = lane->pc;
        if (inst->kind == XIR_INST_WARP_READ_LANE || inst->kind == XIR_INST_WARP_SYNC) {
            lane->status = XI_BLOCKED;
            break;
        }
        tilec_status st = xi_count_step(r, lane, inst);
        if (!st) st = exec(r, lane, inst);
        if (st) return st;
    }
    return TILEC_OK;
}
