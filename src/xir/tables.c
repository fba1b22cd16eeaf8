/* tables.c — XIR names, arities and classes from the X-macro tables in xir.h. */
#include "xir/xir.h"

#include <string.h>

static const char *const kind_names[XIR_INST_KIND_COUNT] = {
    [XIR_INST_INVALID] = "invalid",
#define X(e, name) [XIR_INST_##e] = name,
    XIR_INST_KINDS(X)
#undef X
};

const char *xir_inst_kind_name(xir_inst_kind k) {
    return (unsigned)k < XIR_INST_KIND_COUNT ? kind_names[k] : "invalid";
}

static const struct {
    const char *name;
    unsigned arity;
    xir_op_class cls;
} op_table[XIR_OP_COUNT] = {
    [XIR_OP_INVALID] = {"invalid", 0, XIR_OPC_NUMERIC},
#define X(e, name, arity, cls) [XIR_OP_##e] = {name, arity, XIR_OPC_##cls},
    XIR_ARITH_OPS(X)
#undef X
};

const char *xir_arith_name(xir_arith_op op) { return (unsigned)op < XIR_OP_COUNT ? op_table[op].name : "invalid"; }
unsigned xir_arith_arity(xir_arith_op op) { return (unsigned)op < XIR_OP_COUNT ? op_table[op].arity : 0; }
xir_op_class xir_arith_class(xir_arith_op op) {
    return (unsigned)op < XIR_OP_COUNT ? op_table[op].cls : XIR_OPC_NUMERIC;
}

tir_scalar xir_arith_operand_type(xir_arith_op op, unsigned i, tir_scalar type) {
    xir_op_class cls = xir_arith_class(op);
    return cls == XIR_OPC_SELECT && i == 0 ? TIR_BOOL : cls == XIR_OPC_DOT && i > 0 ? TIR_U32 : type;
}

tir_scalar xir_dot_acc(xir_arith_op op) { return op == XIR_OP_DOT_BF16X2 ? TIR_F32 : TIR_I32; }

xir_arith_op xir_arith_from_name(const char *name, size_t len) {
    for (int op = 1; op < XIR_OP_COUNT; op++)
        if (strlen(op_table[op].name) == len && !memcmp(op_table[op].name, name, len)) return (xir_arith_op)op;
    return XIR_OP_INVALID;
}

static const struct {
    const char *name;
    bool uniform;
} special_table[XIR_SPECIAL_COUNT] = {
    [XIR_SPECIAL_INVALID] = {"invalid", false},
#define X(e, name, uniform) [XIR_SPECIAL_##e] = {name, uniform},
    XIR_SPECIALS(X)
#undef X
};

const char *xir_special_name(xir_special s) {
    return (unsigned)s < XIR_SPECIAL_COUNT ? special_table[s].name : "invalid";
}
bool xir_special_is_uniform(xir_special s) { return (unsigned)s < XIR_SPECIAL_COUNT && special_table[s].uniform; }

xir_special xir_special_from_name(const char *name, size_t len) {
    for (int s = 1; s < XIR_SPECIAL_COUNT; s++)
        if (strlen(special_table[s].name) == len && !memcmp(special_table[s].name, name, len)) return (xir_special)s;
    return XIR_SPECIAL_INVALID;
}
