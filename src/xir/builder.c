/* builder.c — XIR construction helpers: create an instruction with its result
 * type, add operands, append at the builder's block.  Typing is the
 * verifier's job (xir_verify); the builder only infers result types.  Any
 * allocation failure marks the module failed and yields NULL. */
#include "xir/xir.h"

static xir_inst *emit(xir_builder *b, xir_inst_kind kind, xir_type *type, unsigned n, xir_value *const *ops) {
    if (b->module->failed) return NULL;
    xir_inst *inst = xir_inst_new(b->func, kind, type);
    if (!inst) return NULL;
    for (unsigned i = 0; i < n; i++)
        if (!xir_inst_add_operand(inst, ops[i])) return NULL;
    xir_inst_insert_end(inst, b->block);
    return inst;
}

static xir_value *result(xir_inst *inst) { return inst ? &inst->value : NULL; }

xir_value *xir_build_arith(xir_builder *b, xir_arith_op op, xir_value *x, xir_value *y, xir_value *z) {
    xir_value *ops[3] = {x, y, z};
    unsigned n = xir_arith_arity(op);
    for (unsigned i = 0; i < n; i++)
        if (!ops[i]) return NULL;
    xir_op_class cls = xir_arith_class(op);
    xir_type *type = cls == XIR_OPC_COMPARE ? xir_type_scalar(b->module, TIR_BOOL)
                   : cls == XIR_OPC_SELECT  ? y->type
                                            : x->type;
    xir_inst *inst = emit(b, XIR_INST_ARITH, type, n, ops);
    if (inst) inst->op = op;
    return result(inst);
}

xir_value *xir_build_unary(xir_builder *b, xir_arith_op op, xir_value *x) { return xir_build_arith(b, op, x, NULL, NULL); }

xir_value *xir_build_binary(xir_builder *b, xir_arith_op op, xir_value *x, xir_value *y) {
    return xir_build_arith(b, op, x, y, NULL);
}

xir_value *xir_build_select(xir_builder *b, xir_value *cond, xir_value *if_true, xir_value *if_false) {
    return xir_build_arith(b, XIR_OP_SELECT, cond, if_true, if_false);
}

xir_value *xir_build_cast(xir_builder *b, xir_value *x, tir_scalar to) {
    if (!x) return NULL;
    if (xir_type_is_scalar(x->type, to)) return x;
    return result(emit(b, XIR_INST_CAST, xir_type_scalar(b->module, to), 1, &x));
}

xir_value *xir_build_bitcast(xir_builder *b, xir_value *x, tir_scalar to) {
    if (!x) return NULL;
    return result(emit(b, XIR_INST_BITCAST, xir_type_scalar(b->module, to), 1, &x));
}

xir_inst *xir_build_phi(xir_builder *b, xir_type *type) {
    if (b->module->failed) return NULL;
    xir_inst *phi = xir_inst_new(b->func, XIR_INST_PHI, type);
    if (!phi) return NULL;
    /* PHIs go before the block's first non-PHI instruction. */
    xir_inst *pos = b->block->first;
    while (pos && pos->kind == XIR_INST_PHI) pos = pos->next;
    if (pos) xir_inst_insert_before(phi, pos);
    else xir_inst_insert_end(phi, b->block);
    return phi;
}

xir_value *xir_build_alloca(xir_builder *b, tir_scalar elem, uint64_t count) {
    xir_type *type = xir_type_array(b->module, elem, count);
    xir_inst *inst = emit(b, XIR_INST_ALLOCA, type, 0, NULL);
    if (inst) inst->alloca_type = type;
    return result(inst);
}

xir_value *xir_build_gep(xir_builder *b, xir_value *array, xir_value *index) {
    if (!array || !index) return NULL;
    xir_value *ops[2] = {array, index};
    return result(emit(b, XIR_INST_GEP, xir_type_ptr(b->module, array->type->scalar), 2, ops));
}

xir_value *xir_build_load(xir_builder *b, xir_value *ptr) {
    if (!ptr) return NULL;
    return result(emit(b, XIR_INST_LOAD, xir_type_scalar(b->module, ptr->type->scalar), 1, &ptr));
}

void xir_build_store(xir_builder *b, xir_value *ptr, xir_value *value) {
    xir_value *ops[2] = {ptr, value};
    if (ptr && value) emit(b, XIR_INST_STORE, xir_type_void(b->module), 2, ops);
}

static xir_value *buffer_read(xir_builder *b, xir_value *buffer, xir_value *index, bool word) {
    if (!buffer || !index) return NULL;
    xir_value *ops[2] = {buffer, index};
    return result(emit(b, XIR_INST_BUFFER_READ, xir_type_scalar(b->module, word ? TIR_U32 : buffer->type->scalar), 2, ops));
}

xir_value *xir_build_buffer_read(xir_builder *b, xir_value *buffer, xir_value *index) {
    return buffer_read(b, buffer, index, false);
}

xir_value *xir_build_buffer_read_word(xir_builder *b, xir_value *buffer, xir_value *index) {
    return buffer_read(b, buffer, index, true);
}

void xir_build_buffer_write(xir_builder *b, xir_value *buffer, xir_value *index, xir_value *value) {
    xir_value *ops[3] = {buffer, index, value};
    if (buffer && index && value) emit(b, XIR_INST_BUFFER_WRITE, xir_type_void(b->module), 3, ops);
}

void xir_build_fault(xir_builder *b, xir_value *site, xir_value *value) {
    xir_value *ops[2] = {site, value};
    if (site && value) emit(b, XIR_INST_FAULT, xir_type_void(b->module), 2, ops);
}

xir_value *xir_build_buffer_address(xir_builder *b, xir_value *buffer) {
    if (!buffer) return NULL;
    return result(emit(b, XIR_INST_BUFFER_ADDRESS, xir_type_scalar(b->module, TIR_U64), 1, &buffer));
}

void xir_build_warp_sync(xir_builder *b) { emit(b, XIR_INST_WARP_SYNC, xir_type_void(b->module), 0, NULL); }

xir_value *xir_build_warp_read_lane(xir_builder *b, xir_value *value, xir_value *lane) {
    if (!value || !lane) return NULL;
    xir_value *ops[2] = {value, lane};
    return result(emit(b, XIR_INST_WARP_READ_LANE, value->type, 2, ops));
}

void xir_build_br(xir_builder *b, xir_block *target) {
    xir_inst *inst = emit(b, XIR_INST_BR, xir_type_void(b->module), 0, NULL);
    if (inst) inst->targets[0] = target;
}

void xir_build_cond_br(xir_builder *b, xir_value *cond, xir_block *if_true, xir_block *if_false) {
    if (!cond) return;
    xir_inst *inst = emit(b, XIR_INST_COND_BR, xir_type_void(b->module), 1, &cond);
    if (inst) inst->targets[0] = if_true, inst->targets[1] = if_false;
}

void xir_build_ret(xir_builder *b) { emit(b, XIR_INST_RET, xir_type_void(b->module), 0, NULL); }
