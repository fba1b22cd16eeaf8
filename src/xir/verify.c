/* verify.c — the XIR verifier: module rules, then per function its linkage,
 * block structure and operands (the "structural" rules), and only when those
 * hold its CFG (entry, reachability, PHI incoming blocks), operand and result
 * types, and SSA dominance.  Rule N reports XIR-VNN (docs/xir.md).
 *
 * Invariants: the module is only read; every list walk is bounded by the id
 * counters (a repeated or out-of-range id ends it with XIR-V04), so corrupted
 * IR cannot make the verifier loop; side tables are freed on every path. */
#include "xir/verify.h"
#include "base/symtab.h"
#include "xir/cfg.h"
#include "xir/text.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    tilec_context *ctx;
    const xir_module *m;
    size_t errors;   /* violations reported so far */
    bool no_memory;
    const xir_value **constants; /* the module's interned constants, sorted by address */
    size_t constant_count;
    /* the function being checked */
    const xir_func *f;
    xir_names names;
    bool named;          /* names hold the function (its lists are sane) */
    uint32_t *position;  /* by value id: index of an instruction in its block */
    bool broken;         /* a structural rule failed: skip the rest of the function */
    strbuf msg;
} verifier;

/* ---- messages ---- */

/* Starts a message naming the kernel, the block and the instruction. */
static strbuf *begin(verifier *v, const xir_block *b, const xir_inst *inst) {
    strbuf *s = &v->msg;
    s->len = 0;
    if (s->data) s->data[0] = '\0';
    s->failed = false;
    if (v->f) strbuf_printf(s, "kernel @%s", v->f->name ? v->f->name : "");
    if (b) {
        strbuf_append(s, ", block ");
        if (v->named) xir_print_block_ref(s, &v->names, b);
        else strbuf_printf(s, "#%u", (unsigned)b->id);
    }
    if (inst && v->named) {
        strbuf_append(s, ", '");
        xir_print_inst(s, &v->names, inst);
        strbuf_append(s, "'");
    } else if (inst) {
        strbuf_printf(s, ", instruction #%u", (unsigned)inst->value.id);
    }
    if (s->len) strbuf_append(s, ": ");
    return s;
}

static void end(verifier *v, const char *code) {
    v->errors++;
    tilec_error(v->ctx, TILEC_E_VERIFY, code, tilec_no_loc(), "%s",
                v->msg.failed ? "(message lost: out of memory)" : strbuf_cstr(&v->msg));
}

static void report(verifier *v, const char *code, const xir_block *b, const xir_inst *inst, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void report(verifier *v, const char *code, const xir_block *b, const xir_inst *inst, const char *fmt, ...) {
    strbuf *s = begin(v, b, inst);
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    strbuf_append(s, text);
    end(v, code);
}

static void print_value(verifier *v, strbuf *s, const xir_value *value) {
    static const xir_names unnamed; /* constants and special registers need no names */
    xir_print_operand(s, v->named ? &v->names : &unnamed, value);
}

static void print_type(strbuf *s, const xir_type *t) {
    if (t) xir_type_print(s, t);
    else strbuf_append(s, "(no type)");
}

/* "operand I (VALUE: TYPE) <requirement>" */
static void bad_operand(verifier *v, const char *code, const xir_block *b, const xir_inst *inst, uint32_t i,
                        const char *requirement) {
    strbuf *s = begin(v, b, inst);
    const xir_value *value = xir_operand(inst, i);
    strbuf_printf(s, "operand %u (", (unsigned)i);
    print_value(v, s, value);
    strbuf_append(s, ": ");
    print_type(s, value->type);
    strbuf_printf(s, ") %s", requirement);
    end(v, code);
}

/* ---- types ---- */

static bool is_scalar(const xir_type *t) { return t && t->kind == XIR_TYPE_SCALAR; }
static bool is_scalar_of(const xir_type *t, tir_scalar s) { return is_scalar(t) && t->scalar == s; }
static bool is_kind(const xir_type *t, xir_type_kind k) { return t && t->kind == k; }
static const xir_type *operand_type(const xir_inst *inst, uint32_t i) { return xir_operand(inst, i)->type; }

/* XIR-V17 unless the result type is `kind` of `scalar`. */
static void expect_result(verifier *v, const xir_block *b, const xir_inst *inst, xir_type_kind kind,
                          tir_scalar scalar) {
    const xir_type *t = inst->value.type;
    if (t && t->kind == kind && (kind == XIR_TYPE_VOID || t->scalar == scalar)) return;
    xir_type want = {.kind = kind, .scalar = scalar};
    strbuf *s = begin(v, b, inst);
    strbuf_append(s, "result type is ");
    print_type(s, t);
    strbuf_append(s, ", expected ");
    xir_type_print(s, &want);
    end(v, "XIR-V17");
}

static bool class_accepts(xir_op_class cls, tir_scalar s) {
    if (tir_scalar_is_half(s)) return cls == XIR_OPC_SELECT; /* storage types: cast to compute */
    switch (cls) {
    case XIR_OPC_NUMERIC: return s != TIR_BOOL;
    case XIR_OPC_INTEGER: return tir_scalar_is_integer(s);
    case XIR_OPC_FLOAT: return tir_scalar_is_float(s);
    case XIR_OPC_BITWISE: return s == TIR_BOOL || tir_scalar_is_integer(s);
    case XIR_OPC_COMPARE:
    case XIR_OPC_SELECT: return true;
    case XIR_OPC_DOT: return s == TIR_F32 || s == TIR_I32; /* and xir_dot_acc's: check_arith */
    }
    return false;
}

static const char *const class_requirement[] = {
    [XIR_OPC_NUMERIC] = "must be a number (an integer or float type, not bool)",
    [XIR_OPC_INTEGER] = "must be an integer",
    [XIR_OPC_FLOAT] = "must be a float",
    [XIR_OPC_BITWISE] = "must be an integer or bool",
    [XIR_OPC_COMPARE] = "must be a scalar",
    [XIR_OPC_SELECT] = "must be a scalar",
    [XIR_OPC_DOT] = "must be the dot's accumulator type (f32 for dot_bf16x2, i32 for the integer dots)",
};

static void check_arith(verifier *v, const xir_block *b, const xir_inst *inst) {
    xir_op_class cls = xir_arith_class(inst->op);
    uint32_t first = cls == XIR_OPC_SELECT ? 1 : 0;
    if (cls == XIR_OPC_SELECT && !is_scalar_of(operand_type(inst, 0), TIR_BOOL))
        bad_operand(v, "XIR-V16", b, inst, 0, "must be bool (the condition of select)");
    const xir_type *t = operand_type(inst, first);
    if (!is_scalar(t) || !class_accepts(cls, t->scalar) || (cls == XIR_OPC_DOT && t->scalar != xir_dot_acc(inst->op))) {
        bad_operand(v, "XIR-V16", b, inst, first, class_requirement[cls]);
        return;
    }
    for (uint32_t i = first + 1; i < inst->operand_count; i++)
        if (cls == XIR_OPC_DOT ? !is_scalar_of(operand_type(inst, i), TIR_U32) : operand_type(inst, i) != t)
            bad_operand(v, "XIR-V16", b, inst, i,
                        cls == XIR_OPC_DOT ? "must be u32 (a word of narrow elements)" : "must have the type of the first value operand");
    if (cls == XIR_OPC_COMPARE) expect_result(v, b, inst, XIR_TYPE_SCALAR, TIR_BOOL);
    else expect_result(v, b, inst, XIR_TYPE_SCALAR, t->scalar);
}

static void check_types(verifier *v, const xir_block *b, const xir_inst *inst) {
    const xir_type *result = inst->value.type;
    switch (inst->kind) {
    case XIR_INST_ARITH: check_arith(v, b, inst); return;
    case XIR_INST_CAST:
    case XIR_INST_BITCAST: {
        const xir_type *from = operand_type(inst, 0);
        if (!is_scalar(from)) bad_operand(v, "XIR-V18", b, inst, 0, "must be a scalar");
        else if (!is_scalar(result)) report(v, "XIR-V18", b, inst, "the target type must be a scalar");
        else if (inst->kind == XIR_INST_BITCAST &&
                 (from->scalar == TIR_BOOL || result->scalar == TIR_BOOL ||
                  tir_scalar_size(from->scalar) != tir_scalar_size(result->scalar)))
            report(v, "XIR-V18", b, inst, "bitcast needs two non-bool types of the same size");
        return;
    }
    case XIR_INST_PHI:
        if (!is_scalar(result)) {
            report(v, "XIR-V25", b, inst, "a PHI has a scalar type");
            return;
        }
        for (uint32_t i = 0; i < inst->operand_count; i++)
            if (operand_type(inst, i) != result) bad_operand(v, "XIR-V25", b, inst, i, "must have the PHI's type");
        return;
    case XIR_INST_ALLOCA:
        if (!is_kind(inst->alloca_type, XIR_TYPE_ARRAY) || inst->alloca_type->count == 0 ||
            inst->alloca_type != result)
            report(v, "XIR-V19", b, inst, "an alloca allocates an array<T, N> with N >= 1, its result type");
        return;
    case XIR_INST_GEP:
        if (!is_kind(operand_type(inst, 0), XIR_TYPE_ARRAY)) {
            bad_operand(v, "XIR-V20", b, inst, 0, "must be a local array");
            return;
        }
        if (!is_scalar(operand_type(inst, 1)) || !tir_scalar_is_integer(operand_type(inst, 1)->scalar))
            bad_operand(v, "XIR-V20", b, inst, 1, "must be an integer index");
        expect_result(v, b, inst, XIR_TYPE_PTR, operand_type(inst, 0)->scalar);
        return;
    case XIR_INST_LOAD:
    case XIR_INST_STORE:
        if (!is_kind(operand_type(inst, 0), XIR_TYPE_PTR)) {
            bad_operand(v, "XIR-V21", b, inst, 0, "must be a pointer (from gep)");
            return;
        }
        if (inst->kind == XIR_INST_LOAD) {
            expect_result(v, b, inst, XIR_TYPE_SCALAR, operand_type(inst, 0)->scalar);
            return;
        }
        if (!is_scalar_of(operand_type(inst, 1), operand_type(inst, 0)->scalar))
            bad_operand(v, "XIR-V21", b, inst, 1, "must have the pointer's element type");
        expect_result(v, b, inst, XIR_TYPE_VOID, TIR_SCALAR_INVALID);
        return;
    case XIR_INST_BUFFER_READ:
    case XIR_INST_BUFFER_WRITE:
    case XIR_INST_BUFFER_ADDRESS: {
        const xir_type *buffer = operand_type(inst, 0);
        if (!is_kind(buffer, XIR_TYPE_BUFFER)) {
            bad_operand(v, "XIR-V22", b, inst, 0, "must be a buffer argument");
            return;
        }
        if (inst->kind == XIR_INST_BUFFER_ADDRESS) {
            expect_result(v, b, inst, XIR_TYPE_SCALAR, TIR_U64);
            return;
        }
        if (!is_scalar_of(operand_type(inst, 1), TIR_U64)) bad_operand(v, "XIR-V22", b, inst, 1, "must be a u64 index");
        if (inst->kind == XIR_INST_BUFFER_READ) { /* an element, or a word of them (xir.h) */
            expect_result(v, b, inst, XIR_TYPE_SCALAR, xir_is_word_read(buffer->scalar, inst->value.type) ? TIR_U32 : buffer->scalar);
            return;
        }
        if (!is_scalar_of(operand_type(inst, 2), buffer->scalar))
            bad_operand(v, "XIR-V22", b, inst, 2, "must have the buffer's element type");
        expect_result(v, b, inst, XIR_TYPE_VOID, TIR_SCALAR_INVALID);
        return;
    }
    case XIR_INST_WARP_READ_LANE:
        if (!is_scalar(operand_type(inst, 0))) {
            bad_operand(v, "XIR-V23", b, inst, 0, "must be a scalar");
            return;
        }
        if (!is_scalar_of(operand_type(inst, 1), TIR_U32)) bad_operand(v, "XIR-V23", b, inst, 1, "must be a u32 lane");
        expect_result(v, b, inst, XIR_TYPE_SCALAR, operand_type(inst, 0)->scalar);
        return;
    case XIR_INST_FAULT:
        if (!is_scalar_of(operand_type(inst, 0), TIR_U32)) bad_operand(v, "XIR-V26", b, inst, 0, "must be a u32 site");
        if (!is_scalar_of(operand_type(inst, 1), TIR_I64)) bad_operand(v, "XIR-V26", b, inst, 1, "must be an i64 value");
        expect_result(v, b, inst, XIR_TYPE_VOID, TIR_SCALAR_INVALID);
        return;
    case XIR_INST_COND_BR:
        if (!is_scalar_of(operand_type(inst, 0), TIR_BOOL)) bad_operand(v, "XIR-V24", b, inst, 0, "must be bool");
        expect_result(v, b, inst, XIR_TYPE_VOID, TIR_SCALAR_INVALID);
        return;
    default: /* br, ret */
        expect_result(v, b, inst, XIR_TYPE_VOID, TIR_SCALAR_INVALID);
        return;
    }
}

/* ---- structure ---- */

enum { ARITY_OF_OPCODE = -1, ONE_PER_INCOMING = -2 };
static const int operand_counts[XIR_INST_KIND_COUNT] = {
    [XIR_INST_INVALID] = 0, [XIR_INST_ARITH] = ARITY_OF_OPCODE, [XIR_INST_CAST] = 1, [XIR_INST_BITCAST] = 1,
    [XIR_INST_PHI] = ONE_PER_INCOMING, [XIR_INST_ALLOCA] = 0, [XIR_INST_GEP] = 2, [XIR_INST_LOAD] = 1,
    [XIR_INST_STORE] = 2, [XIR_INST_BUFFER_READ] = 2, [XIR_INST_BUFFER_WRITE] = 3, [XIR_INST_BUFFER_ADDRESS] = 1,
    [XIR_INST_WARP_READ_LANE] = 2, [XIR_INST_WARP_SYNC] = 0, [XIR_INST_FAULT] = 2, [XIR_INST_BR] = 0, [XIR_INST_COND_BR] = 1, [XIR_INST_RET] = 0,
};

static int compare_addresses(const void *a, const void *b) {
    uintptr_t x = (uintptr_t) * (const xir_value *const *)a, y = (uintptr_t) * (const xir_value *const *)b;
    return (x > y) - (x < y);
}

static bool is_module_constant(const verifier *v, const xir_value *value) {
    return bsearch(&value, v->constants, v->constant_count, sizeof *v->constants, compare_addresses) != NULL;
}

static bool belongs(const verifier *v, const xir_value *value) {
    switch (value->kind) {
    case XIR_VALUE_CONST: return is_module_constant(v, value);
    case XIR_VALUE_SPECIAL:
        return value->special > XIR_SPECIAL_INVALID && value->special < XIR_SPECIAL_COUNT &&
               v->m->specials[value->special] == value;
    case XIR_VALUE_ARG:
    case XIR_VALUE_INST: return value->id < v->names.value_count && v->names.values[value->id] == value;
    }
    return false;
}

static bool in_function(const verifier *v, const xir_block *b) {
    return b && b->id < v->names.block_count && v->names.blocks[b->id] == b;
}

/* XIR-V04: the lists of blocks, instructions and arguments are consistent;
 * records each instruction's position in its block. */
static void check_linkage(verifier *v) {
    const xir_func *f = v->f;
    uint32_t value_count = f->next_value_id, block_count = f->next_block_id;
    bool *seen_value = tilec_alloc(v->ctx, (size_t)value_count + 1);
    bool *seen_block = tilec_alloc(v->ctx, (size_t)block_count + 1);
    v->position = tilec_alloc(v->ctx, ((size_t)value_count + 1) * sizeof *v->position);
    if (!seen_value || !seen_block || !v->position) {
        v->no_memory = v->broken = true;
    } else {
        for (size_t i = 0; i < f->args.len && !v->broken; i++) {
            const xir_value *a = f->args.data[i];
            if (!a || a->kind != XIR_VALUE_ARG || a->arg_index != i || a->id >= value_count || seen_value[a->id] ||
                !is_kind(a->type, XIR_TYPE_BUFFER)) {
                report(v, "XIR-V04", NULL, NULL, "argument %zu is not a buffer argument of this kernel", i);
                v->broken = true;
            } else {
                seen_value[a->id] = true;
            }
        }
        const xir_block *prev_block = NULL;
        for (const xir_block *b = f->first; b && !v->broken; prev_block = b, b = b->next) {
            if (b->id >= block_count || seen_block[b->id] || b->func != f || b->prev != prev_block) {
                report(v, "XIR-V04", NULL, NULL, "the block list is corrupted at block #%u", (unsigned)b->id);
                v->broken = true;
                break;
            }
            seen_block[b->id] = true;
            const xir_inst *prev = NULL;
            uint32_t position = 0;
            for (const xir_inst *inst = b->first; inst; prev = inst, inst = inst->next) {
                uint32_t id = inst->value.id;
                if (id >= value_count || seen_value[id] || inst->value.kind != XIR_VALUE_INST || inst->parent != b ||
                    inst->func != f || inst->prev != prev) {
                    report(v, "XIR-V04", b, NULL, "the instruction list is corrupted at instruction #%u", (unsigned)id);
                    v->broken = true;
                    break;
                }
                seen_value[id] = true;
                v->position[id] = position++;
            }
            if (!v->broken && b->last != prev) {
                report(v, "XIR-V04", b, NULL, "the block's last instruction is not the end of its list");
                v->broken = true;
            }
        }
        if (!v->broken && f->last != prev_block) {
            report(v, "XIR-V04", NULL, NULL, "the kernel's last block is not the end of its block list");
            v->broken = true;
        }
    }
    tilec_free(v->ctx, seen_value);
    tilec_free(v->ctx, seen_block);
}

static void check_operands(verifier *v, const xir_block *b, const xir_inst *inst) {
    int want = (unsigned)inst->kind < XIR_INST_KIND_COUNT ? operand_counts[inst->kind] : 0;
    if (inst->kind <= XIR_INST_INVALID || inst->kind >= XIR_INST_KIND_COUNT ||
        (inst->kind == XIR_INST_ARITH && (inst->op <= XIR_OP_INVALID || inst->op >= XIR_OP_COUNT))) {
        report(v, "XIR-V12", b, inst, "unknown instruction kind or opcode");
        v->broken = true;
        return;
    }
    if (want == ARITY_OF_OPCODE) want = (int)xir_arith_arity(inst->op);
    if (want != ONE_PER_INCOMING && inst->operand_count != (uint32_t)want) {
        report(v, "XIR-V12", b, inst, "has %u operands, expected %d", (unsigned)inst->operand_count, want);
        v->broken = true;
        return;
    }
    if (inst->kind == XIR_INST_PHI && inst->operand_count && !inst->incoming) {
        report(v, "XIR-V11", b, inst, "a PHI without incoming blocks");
        v->broken = true;
    }
    for (uint32_t i = 0; i < inst->operand_count; i++) {
        const xir_use *u = inst->operands[i];
        if (!u || !u->value) {
            report(v, "XIR-V12", b, inst, "operand %u is missing", (unsigned)i);
            v->broken = true;
        } else if (!belongs(v, u->value)) {
            report(v, "XIR-V13", b, inst,
                   "operand %u is not a value of this kernel (an argument, an instruction in one of its blocks, "
                   "or a constant or special register of the module)",
                   (unsigned)i);
            v->broken = true;
        } else if (u->user != inst || u->index != i || !u->linked) {
            report(v, "XIR-V14", b, inst, "the use record of operand %u does not point back to it", (unsigned)i);
            v->broken = true;
        }
    }
}

static void check_blocks(verifier *v) {
    const xir_func *f = v->f;
    size_t errors_before = v->errors;
    for (const xir_block *b = f->first; b; b = b->next) {
        if (!b->last || !xir_inst_is_terminator(b->last))
            report(v, "XIR-V05", b, NULL, "%s", b->last ? "the block does not end with a terminator (br, cond_br, ret)"
                                                         : "the block is empty (it must end with a terminator)");
        bool past_phis = false;
        for (const xir_inst *inst = b->first; inst; inst = inst->next) {
            if (xir_inst_is_terminator(inst) && inst != b->last)
                report(v, "XIR-V06", b, inst, "a terminator before the end of the block");
            if (inst->kind == XIR_INST_PHI && past_phis)
                report(v, "XIR-V07", b, inst, "a PHI after a non-PHI instruction");
            past_phis |= inst->kind != XIR_INST_PHI;
            unsigned targets = inst->kind == XIR_INST_BR ? 1 : inst->kind == XIR_INST_COND_BR ? 2 : 0;
            for (unsigned t = 0; t < targets; t++)
                if (!in_function(v, inst->targets[t]))
                    report(v, "XIR-V10", b, inst, "branch target %u is not a block of this kernel", t);
            check_operands(v, b, inst);
        }
    }
    if (v->errors != errors_before) v->broken = true;
}

/* XIR-V14 from the values' side: each use in a use list is an operand of an
 * attached instruction, and the list holds exactly use_count uses. */
static void check_use_list(verifier *v, const xir_value *value) {
    uint32_t count = 0;
    const xir_use *prev = NULL, *u = value->uses;
    for (; u && count <= value->use_count; prev = u, u = u->next, count++) {
        const xir_inst *user = u->user;
        if (u->value != value || !u->linked || u->prev != prev || !user || !user->parent ||
            u->index >= user->operand_count || user->operands[u->index] != u)
            break;
    }
    if (!u && count == value->use_count) return;
    strbuf *s = begin(v, NULL, NULL);
    strbuf_append(s, "the use list of ");
    print_value(v, s, value);
    strbuf_printf(s, " is inconsistent (use count %u)", (unsigned)value->use_count);
    end(v, "XIR-V14");
    v->broken = true;
}

/* ---- CFG and dominance ---- */

static void check_phis(verifier *v, const xir_cfg *cfg, const xir_block *b) {
    uint32_t npred = xir_cfg_pred_count(cfg, b);
    xir_block *const *preds = xir_cfg_preds(cfg, b);
    for (const xir_inst *phi = b->first; phi && phi->kind == XIR_INST_PHI; phi = phi->next) {
        for (uint32_t i = 0; i < phi->operand_count; i++) {
            const xir_block *in = phi->incoming[i];
            bool repeated = false;
            for (uint32_t k = 0; k < i; k++) repeated |= phi->incoming[k] == in;
            if (repeated || !in_function(v, in) || !xir_cfg_is_pred(cfg, in, b)) {
                strbuf *s = begin(v, b, phi);
                strbuf_printf(s, "incoming block %u (", (unsigned)i);
                xir_print_block_ref(s, &v->names, in);
                strbuf_append(s, repeated ? ") is listed twice" : ") is not a predecessor of the block");
                end(v, "XIR-V11");
            }
        }
        for (uint32_t k = 0; k < npred; k++) {
            bool listed = false;
            for (uint32_t i = 0; i < phi->operand_count; i++) listed |= phi->incoming[i] == preds[k];
            if (!listed) {
                strbuf *s = begin(v, b, phi);
                strbuf_append(s, "no incoming value for predecessor ");
                xir_print_block_ref(s, &v->names, preds[k]);
                end(v, "XIR-V11");
            }
        }
    }
}

static void check_dominance(verifier *v, const xir_cfg *cfg, const xir_block *b, const xir_inst *inst) {
    for (uint32_t i = 0; i < inst->operand_count; i++) {
        const xir_inst *def = xir_value_inst(xir_operand(inst, i));
        if (!def) continue; /* arguments, constants and special registers dominate everything */
        const xir_block *where = inst->kind == XIR_INST_PHI ? inst->incoming[i] : b;
        bool ok;
        if (inst->kind == XIR_INST_PHI) {
            if (!in_function(v, where) || !xir_cfg_reachable(cfg, where)) continue; /* XIR-V11, XIR-V09 */
            ok = xir_cfg_dominates(cfg, def->parent, where);
        } else {
            ok = def->parent == b ? v->position[def->value.id] < v->position[inst->value.id]
                                  : xir_cfg_dominates(cfg, def->parent, b);
        }
        if (ok) continue;
        strbuf *s = begin(v, b, inst);
        strbuf_printf(s, "operand %u (", (unsigned)i);
        print_value(v, s, &def->value);
        strbuf_append(s, ", defined in ");
        xir_print_block_ref(s, &v->names, def->parent);
        if (inst->kind == XIR_INST_PHI) {
            strbuf_append(s, ") does not dominate the end of incoming block ");
            xir_print_block_ref(s, &v->names, where);
        } else {
            strbuf_append(s, ") does not dominate this use");
        }
        end(v, "XIR-V15");
    }
}

static void check_cfg(verifier *v) {
    const xir_func *f = v->f;
    xir_cfg cfg;
    if (!xir_cfg_build(v->ctx, f, true, &cfg)) {
        v->no_memory = true;
        return;
    }
    if (xir_cfg_pred_count(&cfg, f->first))
        report(v, "XIR-V08", f->first, NULL, "the entry block is the target of a branch");
    for (const xir_block *b = f->first; b; b = b->next) {
        if (!xir_cfg_reachable(&cfg, b)) report(v, "XIR-V09", b, NULL, "the block is unreachable from the entry");
        check_phis(v, &cfg, b);
        for (const xir_inst *inst = b->first; inst; inst = inst->next) {
            check_types(v, b, inst);
            if (xir_cfg_reachable(&cfg, b)) check_dominance(v, &cfg, b, inst);
        }
    }
    xir_cfg_free(&cfg);
}

/* ---- driver ---- */

static void check_function(verifier *v, const xir_func *f, symtab *kernel_names) {
    v->f = f;
    v->broken = false;
    size_t len = f->name ? strlen(f->name) : 0;
    if (!xir_name_is_valid(f->name, len)) report(v, "XIR-V01", NULL, NULL, "the kernel name is empty or not a NAME");
    else if (symtab_get(kernel_names, f->name, len)) report(v, "XIR-V01", NULL, NULL, "a second kernel of this name");
    else if (!symtab_put(kernel_names, f->name, len, (void *)f)) v->no_memory = true;
    if (f->block_size == 0) report(v, "XIR-V02", NULL, NULL, "block_size is 0");
    if (!f->first) {
        report(v, "XIR-V03", NULL, NULL, "the kernel has no blocks (no entry)");
        v->broken = true;
    } else {
        check_linkage(v);
    }
    if (!v->broken && !xir_names_init(&v->names, v->ctx, f)) v->no_memory = v->broken = true;
    v->named = !v->broken;
    if (!v->broken) {
        check_blocks(v);
        for (size_t i = 0; i < f->args.len; i++) check_use_list(v, f->args.data[i]);
        for (const xir_block *b = f->first; b; b = b->next)
            for (const xir_inst *inst = b->first; inst; inst = inst->next) check_use_list(v, &inst->value);
    }
    if (!v->broken) check_cfg(v);
    if (v->named) xir_names_free(&v->names);
    v->named = false;
    tilec_free(v->ctx, v->position);
    v->position = NULL;
    v->f = NULL;
}

static bool collect_constants(verifier *v) {
    const xir_module *m = v->m;
    size_t n = m->constants.count;
    v->constants = tilec_alloc(v->ctx, (n ? n : 1) * sizeof *v->constants);
    if (!v->constants) return false;
    for (size_t i = 0; i < m->constants.capacity; i++)
        if (m->constants.slots[i].key) v->constants[v->constant_count++] = m->constants.slots[i].value;
    qsort(v->constants, v->constant_count, sizeof *v->constants, compare_addresses);
    return true;
}

tilec_status xir_verify(tilec_context *ctx, const xir_module *m) {
    if (!ctx) return TILEC_E_ARG;
    if (!m) return tilec_error(ctx, TILEC_E_ARG, "XIR-V00", tilec_no_loc(), "xir_verify: NULL module");
    verifier v = {.ctx = ctx, .m = m};
    strbuf_init(&v.msg, ctx);
    symtab kernel_names;
    symtab_init(&kernel_names, ctx);
    if (!collect_constants(&v)) v.no_memory = true;
    for (size_t i = 0; i < m->funcs.len && !v.no_memory; i++) check_function(&v, m->funcs.data[i], &kernel_names);
    if (!v.no_memory) {
        for (size_t i = 0; i < v.constant_count; i++) check_use_list(&v, v.constants[i]);
        for (int s = XIR_SPECIAL_INVALID + 1; s < XIR_SPECIAL_COUNT; s++)
            if (m->specials[s]) check_use_list(&v, m->specials[s]);
    }
    symtab_free(&kernel_names);
    tilec_free(ctx, v.constants);
    strbuf_free(&v.msg);
    if (v.no_memory) return tilec_error(ctx, TILEC_E_NOMEM, "XIR-M01", tilec_no_loc(), "out of memory verifying XIR");
    return v.errors ? TILEC_E_VERIFY : TILEC_OK;
}
