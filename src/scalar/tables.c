/* tables.c — name/size/class lookups generated from the X-macro tables in
 * tilec/scalar.h (scalar types, elementwise opcodes) and tilec/tir.h (op
 * kinds, reduction policies, execution scopes).  Nothing else in tilec
 * spells these names.  The runtime library links this file (not tir/): it
 * exports every public table function (docs/aot.md "The runtime library"). */
#include "tilec/scalar.h"
#include "tilec/tir.h" /* TIR_OP_KINDS, TIR_REDUCTION_POLICIES, TIR_EXEC_SCOPES */

#include <string.h>

static const struct {
    const char *name;
    size_t size;
} scalar_table[TIR_SCALAR_COUNT] = {
    [TIR_SCALAR_INVALID] = {"invalid", 0},
#define X(e, name, size) [TIR_##e] = {name, size},
    TIR_SCALARS(X)
#undef X
};

const char *tir_scalar_name(tir_scalar s) {
    return (unsigned)s < TIR_SCALAR_COUNT ? scalar_table[s].name : "invalid";
}
size_t tir_scalar_size(tir_scalar s) { return (unsigned)s < TIR_SCALAR_COUNT ? scalar_table[s].size : 0; }
bool tir_scalar_is_float(tir_scalar s) { return s == TIR_F32 || s == TIR_F64 || tir_scalar_is_half(s); }
bool tir_scalar_is_half(tir_scalar s) { return s == TIR_F16 || s == TIR_BF16; }
bool tir_scalar_is_integer(tir_scalar s) { return s >= TIR_I8 && s <= TIR_U64; }
bool tir_scalar_is_signed(tir_scalar s) {
    return s == TIR_I8 || s == TIR_I16 || s == TIR_I32 || s == TIR_I64 || tir_scalar_is_float(s);
}

tir_scalar tir_scalar_from_name(const char *name, size_t len) {
    for (int s = 1; s < TIR_SCALAR_COUNT; s++)
        if (strlen(scalar_table[s].name) == len && !memcmp(scalar_table[s].name, name, len))
            return (tir_scalar)s;
    return TIR_SCALAR_INVALID;
}

static const char *const op_kind_names[TIR_OP_KIND_COUNT] = {
    [TIR_OP_INVALID] = "invalid",
#define X(e, name) [TIR_OP_##e] = name,
    TIR_OP_KINDS(X)
#undef X
};

const char *tir_op_kind_name(tir_op_kind k) {
    return (unsigned)k < TIR_OP_KIND_COUNT ? op_kind_names[k] : "invalid";
}

static const struct {
    const char *name;
    unsigned arity;
    tir_ew_class cls;
} ew_table[TIR_EW_COUNT] = {
    [TIR_EW_INVALID] = {"invalid", 0, TIR_EWC_NUMERIC},
#define X(e, name, arity, cls) [TIR_EW_##e] = {name, arity, TIR_EWC_##cls},
    TIR_EW_OPCODES(X)
#undef X
};

const char *tir_ew_name(tir_ew_op op) { return (unsigned)op < TIR_EW_COUNT ? ew_table[op].name : "invalid"; }
unsigned tir_ew_arity(tir_ew_op op) { return (unsigned)op < TIR_EW_COUNT ? ew_table[op].arity : 0; }
tir_ew_class tir_ew_class_of(tir_ew_op op) {
    return (unsigned)op < TIR_EW_COUNT ? ew_table[op].cls : TIR_EWC_NUMERIC;
}

tir_ew_op tir_ew_from_name(const char *name, size_t len) {
    for (int op = 1; op < TIR_EW_COUNT; op++)
        if (strlen(ew_table[op].name) == len && !memcmp(ew_table[op].name, name, len))
            return (tir_ew_op)op;
    return TIR_EW_INVALID;
}

static const char *const policy_names[TIR_REDUCE_POLICY_COUNT] = {
#define X(e, name) [TIR_REDUCE_##e] = name,
    TIR_REDUCTION_POLICIES(X)
#undef X
};

const char *tir_reduction_policy_name(tir_reduction_policy p) {
    return (unsigned)p < TIR_REDUCE_POLICY_COUNT ? policy_names[p] : "invalid";
}

static const char *const scope_names[TIR_SCOPE_COUNT] = {
#define X(e, name) [TIR_SCOPE_##e] = name,
    TIR_EXEC_SCOPES(X)
#undef X
};

const char *tir_exec_scope_name(tir_exec_scope s) {
    return (unsigned)s < TIR_SCOPE_COUNT ? scope_names[s] : "invalid";
}
