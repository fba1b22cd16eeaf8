/* body.c — lowers the ops of a block in program order, dispatching on the op
 * kind.  Yields are read by the op that owns the region; stages are cuts in
 * an ordered loop and emit nothing. */
#include "lower/internal.h"

void lower_op(lowerer *lw, const tir_op *op) {
    switch (op->kind) {
    case TIR_OP_CONSTANT: lower_constant(lw, op); break;
    case TIR_OP_ELEMENTWISE: lower_elementwise(lw, op); break;
    case TIR_OP_EXTRACT: lower_extract(lw, op); break;
    case TIR_OP_MMA: lower_mma(lw, op); break;
    case TIR_OP_VIEW_LOAD: lower_load(lw, op); break;
    case TIR_OP_VIEW_STORE: /* packet-local: other lanes' accesses before and after are ordered with it */
        lw_warp_sync(lw);
        lower_store(lw, op);
        lw_warp_sync(lw);
        break;
    case TIR_OP_MAP: lower_map(lw, op); break;
    case TIR_OP_SERIAL:
    case TIR_OP_PIPELINE:
    case TIR_OP_REDUCE: lower_loop(lw, op); break;
    case TIR_OP_IF: lower_if(lw, op); break;
    case TIR_OP_STAGE:
    case TIR_OP_YIELD: break;
    default: lw_internal(lw, "'%s' op #%u has no lowering here", tir_op_kind_name(op->kind), op->id); break;
    }
}

void lower_block(lowerer *lw, const tir_block *b, const tir_op *skip) {
    for (const tir_op *op = b->first; op && lw_ok(lw); op = op->next)
        if (op != skip) lower_op(lw, op);
}
