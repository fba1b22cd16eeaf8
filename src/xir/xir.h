/* xir.h — XIR: tilec's per-worker SSA program (what one logical worker, one
 * lane, does).  The SIMD backend vectorizes it across packets of W lanes; a GPU
 * backend would run it one worker per thread.  XIR is an in-memory IR owned by
 * its module (arena), with use lists so passes can rewrite it freely.
 *
 * Model: module → functions → basic blocks → instructions.  Every instruction
 * is a value (VOID-typed when it produces nothing).  Other values: interned
 * constants, function arguments (buffers), special registers.  PHIs come first
 * in a block, one terminator (br / cond_br / ret) ends it.
 *
 * Fixed conventions (docs/xir.md):
 * - select operand order is (condition, if_true, if_false) — the same order as
 *   TileIR's `select`;
 * - integer div/mod by zero give 0 and MIN / -1 wraps (as the TileIR
 *   interpreter); float→int casts truncate, saturate and map NaN to 0;
 * - buffer indices are u64 element indices; gep indices any integer type;
 * - special registers are u32 and 1-D (the x component). */
#ifndef TILEC_XIR_H
#define TILEC_XIR_H

#include "base/arena.h"
#include "base/hashmap.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "tilec/scalar.h" /* tir_scalar: XIR shares the scalar element types */

/* ---- types ---- */
typedef enum {
    XIR_TYPE_VOID = 1,
    XIR_TYPE_SCALAR, /* elem: tir_scalar */
    XIR_TYPE_ARRAY,  /* a local array reference: elem type, count */
    XIR_TYPE_PTR,    /* a pointer to one local array element */
    XIR_TYPE_BUFFER  /* a kernel buffer argument of elem type */
} xir_type_kind;

typedef struct xir_type xir_type;
struct xir_type {
    xir_type_kind kind;
    tir_scalar scalar; /* SCALAR, and the element of ARRAY/PTR/BUFFER */
    uint64_t count;    /* ARRAY */
};

/* ---- instruction kinds: X(enum suffix, text name) ---- */
#define XIR_INST_KINDS(X) \
    X(ARITH, "arith") X(CAST, "cast") X(BITCAST, "bitcast") X(PHI, "phi") \
    X(ALLOCA, "alloca") X(GEP, "gep") X(LOAD, "load") X(STORE, "store") \
    X(BUFFER_READ, "buffer_read") X(BUFFER_WRITE, "buffer_write") \
    X(BUFFER_ADDRESS, "buffer_address") X(WARP_READ_LANE, "warp_read_lane") X(WARP_SYNC, "warp_sync") \
    X(FAULT, "fault") \
    X(BR, "br") X(COND_BR, "cond_br") X(RET, "ret")

typedef enum {
    XIR_INST_INVALID = 0,
#define X(e, name) XIR_INST_##e,
    XIR_INST_KINDS(X)
#undef X
    XIR_INST_KIND_COUNT
} xir_inst_kind;

/* ---- arithmetic opcodes: X(enum suffix, text name, arity, class) ----
 * Classes: NUMERIC (same-type numeric operands), INTEGER (integers only),
 * FLOAT (floats only), BITWISE (integers or bool), COMPARE (bool result),
 * SELECT (cond, if_true, if_false), DOT (an accumulator of xir_dot_acc(op)
 * and two u32 words, each a group of narrow elements, element j in bits
 * 8j.. or 16j..).  fma a, b, c = a·b + c rounded once.  The dots are what one
 * lane of a dot-product instruction does:
 *   dot_bf16x2 acc, x, y  (f32; AVX512-BF16 vdpbf16ps): acc + x.hi·y.hi,
 *     then + x.lo·y.lo (the bf16 halves), each an fma rounded to nearest
 *     even, with subnormal inputs (the halves and acc) read as zero and a
 *     subnormal sum after either step flushed to zero of its sign;
 *   dot_u8i8x4 acc, x, y  (i32; AVX512-VNNI vpdpbusd): acc + Σ u8(x_j)·i8(y_j)
 *     over the 4 bytes, wrapping;
 *   dot_i16x2 acc, x, y   (i32; AVX512-VNNI vpdpwssd): acc + Σ i16(x_j)·i16(y_j)
 *     over the 2 halves, wrapping
 * (xir/eval.c, xir_dot_*). */
#define XIR_ARITH_OPS(X) \
    X(ADD, "add", 2, NUMERIC) X(SUB, "sub", 2, NUMERIC) X(MUL, "mul", 2, NUMERIC) \
    X(DIV, "div", 2, NUMERIC) X(MOD, "mod", 2, INTEGER) X(NEG, "neg", 1, NUMERIC) \
    X(MIN, "min", 2, NUMERIC) X(MAX, "max", 2, NUMERIC) X(ABS, "abs", 1, NUMERIC) \
    X(EXP, "exp", 1, FLOAT) X(LOG, "log", 1, FLOAT) X(SQRT, "sqrt", 1, FLOAT) \
    X(TANH, "tanh", 1, FLOAT) X(FMA, "fma", 3, FLOAT) \
    X(ERF, "erf", 1, FLOAT) X(SIN, "sin", 1, FLOAT) X(COS, "cos", 1, FLOAT) X(TAN, "tan", 1, FLOAT) \
    X(ASIN, "asin", 1, FLOAT) X(ACOS, "acos", 1, FLOAT) X(ATAN, "atan", 1, FLOAT) X(SINH, "sinh", 1, FLOAT) \
    X(COSH, "cosh", 1, FLOAT) X(EXPM1, "expm1", 1, FLOAT) X(LOG1P, "log1p", 1, FLOAT) X(EXP2, "exp2", 1, FLOAT) \
    X(LOG2, "log2", 1, FLOAT) X(LOG10, "log10", 1, FLOAT) X(CBRT, "cbrt", 1, FLOAT) X(POW, "pow", 2, FLOAT) \
    X(ATAN2, "atan2", 2, FLOAT) X(FLOOR, "floor", 1, FLOAT) X(CEIL, "ceil", 1, FLOAT) X(ROUND, "round", 1, FLOAT) \
    X(TRUNC, "trunc", 1, FLOAT) \
    X(AND, "and", 2, BITWISE) X(OR, "or", 2, BITWISE) X(XOR, "xor", 2, BITWISE) \
    X(NOT, "not", 1, BITWISE) X(SHL, "shl", 2, INTEGER) X(SHR, "shr", 2, INTEGER) \
    X(EQ, "eq", 2, COMPARE) X(NE, "ne", 2, COMPARE) X(LT, "lt", 2, COMPARE) \
    X(LE, "le", 2, COMPARE) X(GT, "gt", 2, COMPARE) X(GE, "ge", 2, COMPARE) \
    X(SELECT, "select", 3, SELECT) X(DOT_BF16X2, "dot_bf16x2", 3, DOT) X(DOT_U8I8X4, "dot_u8i8x4", 3, DOT) \
    X(DOT_I16X2, "dot_i16x2", 3, DOT)

typedef enum {
    XIR_OP_INVALID = 0,
#define X(e, name, arity, cls) XIR_OP_##e,
    XIR_ARITH_OPS(X)
#undef X
    XIR_OP_COUNT
} xir_arith_op;

typedef enum {
    XIR_OPC_NUMERIC, XIR_OPC_INTEGER, XIR_OPC_FLOAT, XIR_OPC_BITWISE, XIR_OPC_COMPARE, XIR_OPC_SELECT, XIR_OPC_DOT
} xir_op_class;

/* ---- special registers (u32, 1-D): X(enum suffix, text name, uniform in a packet) ---- */
#define XIR_SPECIALS(X) \
    X(DISPATCH_ID, "dispatch_id", false) X(WARP_LANE_ID, "warp_lane_id", false) \
    X(BLOCK_ID, "block_id", true) X(DISPATCH_SIZE, "dispatch_size", true) \
    X(BLOCK_SIZE, "block_size", true) X(WARP_SIZE, "warp_size", true)

typedef enum {
    XIR_SPECIAL_INVALID = 0,
#define X(e, name, uniform) XIR_SPECIAL_##e,
    XIR_SPECIALS(X)
#undef X
    XIR_SPECIAL_COUNT
} xir_special;

/* ---- values ---- */
typedef enum { XIR_VALUE_CONST = 1, XIR_VALUE_ARG, XIR_VALUE_SPECIAL, XIR_VALUE_INST } xir_value_kind;

typedef struct xir_module xir_module;
typedef struct xir_func xir_func;
typedef struct xir_block xir_block;
typedef struct xir_inst xir_inst;
typedef struct xir_value xir_value;
typedef struct xir_use xir_use;

struct xir_use {
    xir_inst *user;
    uint32_t index;
    xir_value *value;
    xir_use *prev, *next; /* in value->uses while the user is attached */
    bool linked;
};

/* Constant payload: the bit pattern of the value in its type, widened to 64
 * bits (ints sign/zero-extended, f32 as the exact double, bool 0/1). */
typedef union {
    int64_t i;
    uint64_t u;
    double f;
} xir_bits;

struct xir_value {
    xir_value_kind kind;
    xir_type *type;
    uint32_t id; /* unique per function for args/insts; per module for constants/specials */
    const char *name;
    xir_use *uses;
    uint32_t use_count;
    xir_bits constant;   /* CONST */
    xir_special special; /* SPECIAL */
    uint32_t arg_index;  /* ARG */
};

struct xir_inst {
    xir_value value; /* must be first: an instruction is its result value */
    xir_inst_kind kind;
    xir_arith_op op;  /* ARITH */
    xir_func *func;
    xir_block *parent; /* NULL while detached */
    xir_inst *prev, *next;
    xir_use **operands;
    uint32_t operand_count, operand_capacity;
    /* PHI: incoming[i] is the predecessor of operand i.  BR: targets[0];
     * COND_BR: targets[0] when true, targets[1] when false. */
    xir_block **incoming;
    uint32_t incoming_capacity;
    xir_block *targets[2];
    xir_type *alloca_type; /* ALLOCA: the array type (also the result type) */
};

struct xir_block {
    xir_func *func;
    uint32_t id;
    const char *name;
    xir_block *prev, *next;
    xir_inst *first, *last;
};

typedef struct {
    const char *name;
    tir_scalar elem;
    xir_value *value;
} xir_arg;

struct xir_func {
    xir_module *module;
    const char *name;
    VEC(xir_value *) args;
    xir_block *first, *last; /* first is the entry block */
    uint32_t next_value_id, next_block_id;
    uint32_t block_size;    /* logical workers per runtime block */
};

struct xir_module {
    tilec_context *ctx;
    arena arena;
    VEC(xir_func *) funcs;
    hashmap types;     /* interned types (module.c), key stored after each */
    hashmap constants; /* interned constants: (type, exact bits) -> value */
    xir_value *specials[XIR_SPECIAL_COUNT];
    uint32_t next_global_id;
    /* TILEC_OK while usable; else why it is not: TILEC_E_NOMEM (an allocation
     * failed, reported once as XIR-M01) or TILEC_E_INTERNAL (a pass found a
     * broken invariant, TILEC-I01).  The first failure stays. */
    tilec_status failed;
};

/* ---- tables ---- */
const char *xir_inst_kind_name(xir_inst_kind k);
const char *xir_arith_name(xir_arith_op op);
unsigned xir_arith_arity(xir_arith_op op);
xir_op_class xir_arith_class(xir_arith_op op);
/* The type of operand i of `op` whose first value operand is of `type`:
 * `type`, bool for a select's condition, u32 for a DOT's words. */
tir_scalar xir_arith_operand_type(xir_arith_op op, unsigned i, tir_scalar type);
/* The accumulator (and result) type of a DOT opcode. */
tir_scalar xir_dot_acc(xir_arith_op op);
xir_arith_op xir_arith_from_name(const char *name, size_t len);
const char *xir_special_name(xir_special s);
bool xir_special_is_uniform(xir_special s);
xir_special xir_special_from_name(const char *name, size_t len);

/* ---- module, types, constants ---- */
xir_module *xir_module_create(tilec_context *ctx);
void xir_module_destroy(xir_module *m);
xir_type *xir_type_void(xir_module *m);
xir_type *xir_type_scalar(xir_module *m, tir_scalar s);
xir_type *xir_type_array(xir_module *m, tir_scalar elem, uint64_t count);
xir_type *xir_type_ptr(xir_module *m, tir_scalar elem);
xir_type *xir_type_buffer(xir_module *m, tir_scalar elem);
static inline bool xir_type_is_scalar(const xir_type *t, tir_scalar s) {
    return t->kind == XIR_TYPE_SCALAR && t->scalar == s;
}
/* Appends the text spelling of a type ("f32", "array<f32, 64>", "ptr<f32>",
 * "buffer<f32>", "void"). */
void xir_type_print(strbuf *out, const xir_type *t);

xir_value *xir_const_int(xir_module *m, tir_scalar s, int64_t v);   /* wrapped to the type */
xir_value *xir_const_uint(xir_module *m, tir_scalar s, uint64_t v); /* wrapped to the type */
xir_value *xir_const_float(xir_module *m, tir_scalar s, double v);  /* f32: rounded */
xir_value *xir_const_bool(xir_module *m, bool v);
xir_value *xir_const_zero(xir_module *m, tir_scalar s);
xir_value *xir_const_bits(xir_module *m, tir_scalar s, xir_bits bits); /* exact payload */
xir_value *xir_special_value(xir_module *m, xir_special s);

/* ---- functions, blocks ---- */
xir_func *xir_func_new(xir_module *m, const char *name);
xir_value *xir_func_add_buffer(xir_func *f, const char *name, tir_scalar elem);
xir_block *xir_block_new(xir_func *f, const char *name); /* appended to the function */
void xir_block_erase(xir_block *b); /* its instructions must be unused */

/* ---- instructions (detached creation + insertion) ---- */
xir_inst *xir_inst_new(xir_func *f, xir_inst_kind kind, xir_type *type);
bool xir_inst_add_operand(xir_inst *inst, xir_value *v);
bool xir_phi_add_incoming(xir_inst *phi, xir_value *v, xir_block *from);
void xir_inst_insert_end(xir_inst *inst, xir_block *b);
void xir_inst_insert_before(xir_inst *inst, xir_inst *position);
void xir_inst_detach(xir_inst *inst);
void xir_inst_set_operand(xir_inst *inst, uint32_t index, xir_value *v);
void xir_inst_remove_operand(xir_inst *inst, uint32_t index); /* PHI incoming removal */
bool xir_inst_erase(xir_inst *inst); /* false when the result is still used */
void xir_value_replace_all_uses(xir_value *from, xir_value *to);
/* Whether a buffer_read of a buffer of `elem` with result type `t` reads a
 * word: a u32 holding the 4 (1-byte elements) or 2 (2-byte) consecutive
 * elements from index·4 (·2) on, the first in the low bits (little-endian
 * memory); the index counts words.  The lowering reads an mma's operands
 * whose groups already lie in memory so (docs/lowering.md "Dot products"). */
static inline bool xir_is_word_read(tir_scalar elem, const xir_type *t) {
    return t && t->kind == XIR_TYPE_SCALAR && t->scalar == TIR_U32 && tir_scalar_size(elem) < 4;
}
static inline xir_value *xir_operand(const xir_inst *inst, uint32_t i) { return inst->operands[i]->value; }
static inline bool xir_inst_is_terminator(const xir_inst *inst) {
    return inst->kind == XIR_INST_BR || inst->kind == XIR_INST_COND_BR || inst->kind == XIR_INST_RET;
}
static inline xir_inst *xir_value_inst(xir_value *v) { return v->kind == XIR_VALUE_INST ? (xir_inst *)v : NULL; }
xir_inst *xir_block_terminator(const xir_block *b); /* NULL if none */
/* Successor blocks of b's terminator (0, 1 or 2). */
unsigned xir_block_successors(const xir_block *b, xir_block *out[2]);

/* ---- builder: appends at the end of the current block ---- */
typedef struct {
    xir_module *module;
    xir_func *func;
    xir_block *block;
} xir_builder;

static inline void xir_builder_at_end(xir_builder *b, xir_block *block) { b->block = block; }
/* Result type: bool for comparisons, the operand type otherwise (select: the
 * value operands').  Operands are not checked here; xir_verify does. */
xir_value *xir_build_arith(xir_builder *b, xir_arith_op op, xir_value *x, xir_value *y, xir_value *z);
xir_value *xir_build_unary(xir_builder *b, xir_arith_op op, xir_value *x);
xir_value *xir_build_binary(xir_builder *b, xir_arith_op op, xir_value *x, xir_value *y);
xir_value *xir_build_select(xir_builder *b, xir_value *cond, xir_value *if_true, xir_value *if_false);
xir_value *xir_build_cast(xir_builder *b, xir_value *x, tir_scalar to); /* returns x if already `to` */
xir_value *xir_build_bitcast(xir_builder *b, xir_value *x, tir_scalar to);
xir_inst *xir_build_phi(xir_builder *b, xir_type *type);
xir_value *xir_build_alloca(xir_builder *b, tir_scalar elem, uint64_t count);
xir_value *xir_build_gep(xir_builder *b, xir_value *array, xir_value *index);
xir_value *xir_build_load(xir_builder *b, xir_value *ptr);
void xir_build_store(xir_builder *b, xir_value *ptr, xir_value *value);
xir_value *xir_build_buffer_read(xir_builder *b, xir_value *buffer, xir_value *index);
xir_value *xir_build_buffer_read_word(xir_builder *b, xir_value *buffer, xir_value *index); /* xir_is_word_read */
void xir_build_buffer_write(xir_builder *b, xir_value *buffer, xir_value *index, xir_value *value);
/* Reports a bounds fault: the access of fault site `site` (u32, an index
 * into the kernel's site table) is out of range with `value` (i64). */
void xir_build_fault(xir_builder *b, xir_value *site, xir_value *value);
xir_value *xir_build_buffer_address(xir_builder *b, xir_value *buffer);
xir_value *xir_build_warp_read_lane(xir_builder *b, xir_value *value, xir_value *lane);
/* Every lane of the packet reaches this point before any goes on, and the
 * memory effects of each lane before it are seen by every lane after it
 * (docs/xir.md "warp_sync"). */
void xir_build_warp_sync(xir_builder *b);
void xir_build_br(xir_builder *b, xir_block *target);
void xir_build_cond_br(xir_builder *b, xir_value *cond, xir_block *if_true, xir_block *if_false);
void xir_build_ret(xir_builder *b);
/* True when some allocation failed while building (reported once as XIR-M01)
 * or a pass failed internally (TILEC-I01); xir_module_status says which. */
bool xir_module_failed(const xir_module *m);
tilec_status xir_module_status(const xir_module *m);

#endif
