/* interp_prepare.c — everything the XIR interpreter checks before running, and
 * the tables it runs from.
 *
 * The interpreter does not call xir_verify.  It refuses (XIR-I03) exactly what
 * it could not execute safely or unambiguously: blocks without a single final
 * terminator, PHIs after non-PHIs or in the entry block, branch targets or
 * operands that are not part of the function, operand counts and types an
 * instruction cannot use, and PHIs without (or with two different) incoming
 * values for a predecessor.  Dominance is not checked statically: a value read
 * on a path where it was not computed is a runtime error (XIR-I10).
 *
 * Output: r->blocks[id] for every block in the function's list, with the first
 * non-PHI instruction and, per terminator target, the PHI assignments of that
 * edge (the parallel copy executed when control takes it). */
#include "xir/interp_impl.h"

#include <stdarg.h>
#include <stdio.h>

static tilec_status broken(xi_run *r, const xir_block *b, const xir_inst *inst, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static tilec_status broken(xi_run *r, const xir_block *b, const xir_inst *inst, const char *fmt, ...) {
    char msg[256], vl[64], bl[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (inst)
        return tilec_error(r->ctx, TILEC_E_VERIFY, "XIR-I03", tilec_no_loc(),
                           "cannot interpret function '%s': %s %s in block %s: %s", r->func->name,
                           xir_inst_kind_name(inst->kind), xi_value_label(&inst->value, vl, sizeof vl),
                           xi_block_label(b, bl, sizeof bl), msg);
    return tilec_error(r->ctx, TILEC_E_VERIFY, "XIR-I03", tilec_no_loc(), "cannot interpret function '%s': %s%s%s",
                       r->func->name, b ? "block " : "", b ? xi_block_label(b, bl, sizeof bl) : "", msg);
}

static bool is_scalar(const xir_type *t) {
    return t && t->kind == XIR_TYPE_SCALAR && t->scalar > TIR_SCALAR_INVALID && t->scalar < TIR_SCALAR_COUNT;
}
static bool is_integer(const xir_type *t) { return is_scalar(t) && tir_scalar_is_integer(t->scalar); }
static bool is_bool(const xir_type *t) { return is_scalar(t) && t->scalar == TIR_BOOL; }
static bool is_kind(const xir_type *t, xir_type_kind k) {
    return t && t->kind == k && t->scalar > TIR_SCALAR_INVALID && t->scalar < TIR_SCALAR_COUNT;
}

static bool block_in_func(const xi_run *r, const xir_block *b) {
    return b && b->func == r->func && b->id < r->func->next_block_id && r->blocks[b->id].listed;
}

/* An operand value execution can read: an attached instruction of this
 * function, one of its arguments, a constant or a special register. */
static bool operand_ok(const xi_run *r, const xir_value *v) {
    if (!v || !v->type) return false;
    switch (v->kind) {
    case XIR_VALUE_CONST: return is_scalar(v->type);
    case XIR_VALUE_SPECIAL:
        return v->special > XIR_SPECIAL_INVALID && v->special < XIR_SPECIAL_COUNT && is_scalar(v->type) &&
               v->type->scalar == TIR_U32;
    case XIR_VALUE_ARG:
        return v->arg_index < r->func->args.len && r->func->args.data[v->arg_index] == v &&
               is_kind(v->type, XIR_TYPE_BUFFER);
    case XIR_VALUE_INST: {
        const xir_inst *def = (const xir_inst *)v;
        return def->func == r->func && v->id < r->func->next_value_id && block_in_func(r, def->parent) &&
               v->type->kind != XIR_TYPE_VOID;
    }
    }
    return false;
}

static const xir_type *op_type(const xir_inst *inst, uint32_t i) { return xir_operand(inst, i)->type; }

/* Operand count and types of an arithmetic instruction, per its class. */
static const char *check_arith(const xir_inst *inst) {
    xir_arith_op op = inst->op;
    if (op <= XIR_OP_INVALID || op >= XIR_OP_COUNT) return "unknown arithmetic opcode";
    if (inst->operand_count != xir_arith_arity(op)) return "wrong number of operands";
    xir_op_class cls = xir_arith_class(op);
    uint32_t first = cls == XIR_OPC_SELECT ? 1 : 0;
    const xir_type *t = op_type(inst, first);
    for (uint32_t i = first; i < inst->operand_count; i++)
        if (cls == XIR_OPC_DOT && i > 0 ? !xir_type_is_scalar(op_type(inst, i), TIR_U32) : op_type(inst, i) != t)
            return "operands of different types";
    if (cls == XIR_OPC_SELECT && !is_bool(op_type(inst, 0))) return "select condition is not bool";
    bool ok;
    switch (cls) {
    case XIR_OPC_NUMERIC: ok = is_scalar(t) && t->scalar != TIR_BOOL; break;
    case XIR_OPC_INTEGER: ok = is_integer(t); break;
    case XIR_OPC_FLOAT: ok = is_scalar(t) && tir_scalar_is_float(t->scalar); break;
    case XIR_OPC_BITWISE: ok = is_integer(t) || is_bool(t); break;
    case XIR_OPC_DOT: ok = is_scalar(t) && t->scalar == xir_dot_acc(op); break;
    default: ok = is_scalar(t); break; /* COMPARE, SELECT */
    }
    if (!ok) return "operand type not supported by the opcode";
    if (cls == XIR_OPC_COMPARE ? !is_bool(inst->value.type) : inst->value.type != t)
        return "result type does not match the operands";
    return NULL;
}

static bool buffer_operand(const xir_inst *inst, uint32_t i) {
    return xir_operand(inst, i)->kind == XIR_VALUE_ARG;
}

/* Operand count and types of one instruction; NULL when usable. */
static const char *check_types(const xir_inst *inst) {
    const xir_type *rt = inst->value.type;
    uint32_t n = inst->operand_count;
    switch (inst->kind) {
    case XIR_INST_ARITH: return check_arith(inst);
    case XIR_INST_CAST:
        return n == 1 && is_scalar(op_type(inst, 0)) && is_scalar(rt) ? NULL : "needs a scalar operand and result";
    case XIR_INST_BITCAST:
        if (n != 1 || !is_scalar(op_type(inst, 0)) || !is_scalar(rt)) return "needs a scalar operand and result";
        if (op_type(inst, 0)->scalar == TIR_BOOL || rt->scalar == TIR_BOOL) return "bool has no bit pattern to cast";
        return tir_scalar_size(op_type(inst, 0)->scalar) == tir_scalar_size(rt->scalar) ? NULL
                                                                                        : "types of different sizes";
    case XIR_INST_PHI:
        if (n == 0 || !rt || rt->kind == XIR_TYPE_VOID) return "needs a type and incoming values";
        for (uint32_t i = 0; i < n; i++)
            if (op_type(inst, i) != rt || !inst->incoming || !inst->incoming[i])
                return "incoming value of another type or without a block";
        return NULL;
    case XIR_INST_ALLOCA:
        return n == 0 && is_kind(rt, XIR_TYPE_ARRAY) && inst->alloca_type == rt ? NULL : "needs an array type";
    case XIR_INST_GEP:
        return n == 2 && is_kind(op_type(inst, 0), XIR_TYPE_ARRAY) && is_integer(op_type(inst, 1)) &&
                       is_kind(rt, XIR_TYPE_PTR) && rt->scalar == op_type(inst, 0)->scalar
                   ? NULL
                   : "needs an array, an integer index and a pointer result of the element type";
    case XIR_INST_LOAD:
        return n == 1 && is_kind(op_type(inst, 0), XIR_TYPE_PTR) && is_scalar(rt) && rt->scalar == op_type(inst, 0)->scalar
                   ? NULL
                   : "needs a pointer and a result of its element type";
    case XIR_INST_STORE:
        return n == 2 && is_kind(op_type(inst, 0), XIR_TYPE_PTR) && is_scalar(op_type(inst, 1)) &&
                       op_type(inst, 1)->scalar == op_type(inst, 0)->scalar
                   ? NULL
                   : "needs a pointer and a value of its element type";
    case XIR_INST_BUFFER_READ:
        return n == 2 && buffer_operand(inst, 0) && is_integer(op_type(inst, 1)) && is_scalar(rt) &&
                       (rt->scalar == op_type(inst, 0)->scalar || xir_is_word_read(op_type(inst, 0)->scalar, rt))
                   ? NULL
                   : "needs a buffer argument, an integer index and a result of the element type (or a u32 word of them)";
    case XIR_INST_BUFFER_WRITE:
        return n == 3 && buffer_operand(inst, 0) && is_integer(op_type(inst, 1)) && is_scalar(op_type(inst, 2)) &&
                       op_type(inst, 2)->scalar == op_type(inst, 0)->scalar
                   ? NULL
                   : "needs a buffer argument, an integer index and a value of the element type";
    case XIR_INST_BUFFER_ADDRESS:
        return n == 1 && buffer_operand(inst, 0) && is_scalar(rt) && rt->scalar == TIR_U64
                   ? NULL
                   : "needs a buffer argument and a u64 result";
    case XIR_INST_WARP_READ_LANE:
        return n == 2 && is_scalar(op_type(inst, 0)) && is_integer(op_type(inst, 1)) && rt == op_type(inst, 0)
                   ? NULL
                   : "needs a scalar value, an integer lane and a result of the value's type";
    case XIR_INST_WARP_SYNC: return n == 0 && rt && rt->kind == XIR_TYPE_VOID ? NULL : "takes no operands";
    case XIR_INST_FAULT:
        return n == 2 && is_scalar(op_type(inst, 0)) && op_type(inst, 0)->scalar == TIR_U32 && is_scalar(op_type(inst, 1)) &&
                       op_type(inst, 1)->scalar == TIR_I64
                   ? NULL
                   : "needs a u32 site and an i64 value";
    case XIR_INST_BR: return n == 0 ? NULL : "takes no operands";
    case XIR_INST_COND_BR: return n == 1 && is_bool(op_type(inst, 0)) ? NULL : "needs one bool condition";
    case XIR_INST_RET: return n == 0 ? NULL : "takes no operands";
    default: return "unknown instruction kind";
    }
}

static tilec_status check_inst(xi_run *r, const xir_block *b, const xir_inst *inst) {
    if (inst->func != r->func || inst->parent != b || inst->value.id >= r->func->next_value_id)
        return broken(r, b, inst, "instruction does not belong to this block");
    for (uint32_t i = 0; i < inst->operand_count; i++)
        if (!inst->operands[i] || !operand_ok(r, inst->operands[i]->value))
            return broken(r, b, inst, "operand %u is missing or not a value of this function", i);
    const char *why = check_types(inst);
    if (why) return broken(r, b, inst, "%s", why);
    unsigned targets = inst->kind == XIR_INST_BR ? 1 : inst->kind == XIR_INST_COND_BR ? 2 : 0;
    for (unsigned t = 0; t < targets; t++)
        if (!block_in_func(r, inst->targets[t])) return broken(r, b, inst, "branch target is not a block of this function");
    return TILEC_OK;
}

/* Block shape: PHIs first (none in the entry block), exactly one terminator,
 * at the end. */
static tilec_status check_block(xi_run *r, const xir_block *b) {
    if (!b->last || !xir_inst_is_terminator(b->last)) return broken(r, b, NULL, " does not end with a terminator");
    bool past_phis = false;
    for (const xir_inst *inst = b->first; inst; inst = inst->next) {
        tilec_status st = check_inst(r, b, inst);
        if (st) return st;
        if (inst->kind == XIR_INST_PHI) {
            if (past_phis) return broken(r, b, inst, "PHI after a non-PHI instruction");
            if (b == r->func->first) return broken(r, b, inst, "PHI in the entry block (it has no incoming edge)");
        } else if (!past_phis) {
            past_phis = true;
            r->blocks[b->id].body = inst;
        }
        if (xir_inst_is_terminator(inst) && inst != b->last) return broken(r, b, inst, "terminator before the block's end");
    }
    return TILEC_OK;
}

/* The parallel copy of the edge from `from` (target `k`) into `to`. */
static tilec_status build_edge(xi_run *r, const xir_block *from, unsigned k, const xir_block *to) {
    xi_edge *e = &r->blocks[from->id].edges[k];
    uint32_t n = 0;
    for (const xir_inst *p = to->first; p && p->kind == XIR_INST_PHI; p = p->next) n++;
    if (n > r->max_phis) r->max_phis = n;
    if (n == 0) return TILEC_OK;
    e->phis = ARENA_ARRAY(&r->arena, const xir_inst *, n);
    e->sources = ARENA_ARRAY(&r->arena, const xir_value *, n);
    if (!e->phis || !e->sources)
        return tilec_error(r->ctx, TILEC_E_NOMEM, "XIR-I04", tilec_no_loc(), "out of memory preparing the XIR interpreter");
    for (const xir_inst *p = to->first; p && p->kind == XIR_INST_PHI; p = p->next) {
        const xir_value *src = NULL;
        for (uint32_t i = 0; i < p->operand_count; i++) {
            if (p->incoming[i] != from) continue;
            if (src && src != xir_operand(p, i))
                return broken(r, to, p, "two different incoming values for one predecessor");
            src = xir_operand(p, i);
        }
        char bl[64];
        if (!src)
            return broken(r, to, p, "no incoming value for predecessor %s", xi_block_label(from, bl, sizeof bl));
        e->phis[e->count] = p;
        e->sources[e->count++] = src;
    }
    return TILEC_OK;
}

tilec_status xi_prepare(xi_run *r) {
    const xir_func *f = r->func;
    r->blocks = ARENA_ARRAY(&r->arena, xi_block, f->next_block_id ? f->next_block_id : 1);
    if (!r->blocks)
        return tilec_error(r->ctx, TILEC_E_NOMEM, "XIR-I04", tilec_no_loc(), "out of memory preparing the XIR interpreter");
    if (!f->first) return broken(r, NULL, NULL, "the function has no blocks");
    for (const xir_block *b = f->first; b; b = b->next) {
        if (b->func != f || b->id >= f->next_block_id || r->blocks[b->id].listed)
            return broken(r, b, NULL, " is not a (unique) block of this function");
        r->blocks[b->id].listed = true;
    }
    tilec_status st;
    for (const xir_block *b = f->first; b; b = b->next)
        if ((st = check_block(r, b))) return st;
    for (const xir_block *b = f->first; b; b = b->next) {
        xir_block *succ[2];
        unsigned n = xir_block_successors(b, succ);
        for (unsigned k = 0; k < n; k++)
            if ((st = build_edge(r, b, k, succ[k]))) return st;
    }
    return TILEC_OK;
}
