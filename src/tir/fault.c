/* fault.c — the fault site of a TileIR access (fault.h). */
#include "tir/fault.h"

tir_fault_site tir_fault_site_of(const tir_op *op, uint32_t axis) {
    const tir_value *target = op->operands[0]->value;
    const tir_space *space = target->type->space;
    tir_fault_site s = {
        .kind = op->kind == TIR_OP_EXTRACT ? TIR_FAULT_EXTRACT : op->domain ? TIR_FAULT_ASSUME : TIR_FAULT_SCALAR,
        .store = op->kind == TIR_OP_VIEW_STORE,
        .target = target->name,
        .target_id = target->id,
        .func = op->func->name,
        .axis_label = space->axes[axis].dim->label,
        .axis = axis,
        .extent = space->axes[axis].extent,
        .count = op->domain ? tir_op_span(op, axis) : 1, /* the view elements the access spans */
        .loc = op->loc,
    };
    return s;
}
