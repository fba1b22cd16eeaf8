/* capture.c — mutable variables with inferred loop carries (the forwarding-
 * definition algorithm, docs/tir.md "Capture").
 *
 * Opening a SERIAL/PIPELINE/REDUCE with tir_capture_begin gives every live
 * variable a private forwarding definition inside the body (a placeholder cast
 * of its current value).  At tir_capture_end a variable whose value is no longer
 * its own forwarder is carried: the pre-loop value becomes an operand, the body
 * gets a block argument, the final value is yielded, and the variable points at
 * the loop result.  Forwarders are then replaced by the block argument (carried)
 * or the pre-loop value (not carried) and erased.  Distinct forwarders keep
 * copies distinct (`b = a` before a loop stays the initial value) and make swaps
 * simultaneous. */
#include "tir/builder.h"

static bool oom(tir_builder *b) {
    tir_builder_fail(b, TILEC_E_NOMEM, "TIR-M01", "out of memory building TileIR");
    return false;
}

/* A placeholder standing for `v` inside the body; erased at region end. */
static tir_value *forwarder(tir_builder *b, tir_block *body, tir_value *v) {
    tir_op *op = tir_op_new(b->func, TIR_OP_ELEMENTWISE, b->loc);
    if (!op || !tir_op_add_operand(op, v)) return NULL;
    op->ew = TIR_EW_CAST;
    tir_value *r = tir_op_add_result(op, v->type);
    if (r) tir_op_insert_end(op, body);
    return r;
}

bool tir_builder_push_frame(tir_builder *b, tir_op *op, bool capture) {
    tir_frame frame = {op, op ? op->body : b->func->body, capture, b->slots.len, b->slots.len};
    for (size_t i = 0; op && i < b->vars.len; i++) {
        tir_var *var = b->vars.data[i];
        if (!var->live) continue;
        tir_frame_slot slot = {var, var->value, NULL};
        if (capture) {
            if (!(slot.forwarder = forwarder(b, op->body, var->value))) return oom(b);
            var->value = slot.forwarder;
        }
        if (!VEC_PUSH(b->module->ctx, &b->slots, slot)) return oom(b);
    }
    frame.slot_end = b->slots.len;
    if (!VEC_PUSH(b->module->ctx, &b->frames, frame)) return oom(b);
    return true;
}

bool tir_capture_check_unmutated(tir_builder *b, tir_frame *frame) {
    bool ok = true;
    for (size_t i = frame->slot_begin; i < frame->slot_end; i++) {
        tir_frame_slot *slot = &b->slots.data[i];
        if (!slot->var->live || slot->var->value == slot->before) continue;
        if (ok)
            tir_builder_fail(b, TILEC_E_SCOPE, "TIR-C01",
                             "cannot mutate an outer variable inside %s (only serial, pipeline and reduce "
                             "regions carry values)",
                             tir_frame_is_combine(frame)   ? "a combine block"
                             : frame->op->kind == TIR_OP_MAP ? "a map"
                                                             : "a parallel or explicit region");
        slot->var->value = slot->before; /* roll back */
        ok = false;
    }
    return ok;
}

void tir_capture_retire_vars(tir_builder *b, size_t depth) {
    for (size_t i = 0; i < b->vars.len; i++)
        if (b->vars.data[i]->depth > depth) b->vars.data[i]->live = false;
}

static bool check_var(tir_builder *b, tir_var *v) {
    if (b->status != TILEC_OK) return false;
    if (!v || !v->live) {
        tir_builder_fail(b, TILEC_E_SCOPE, "TIR-C02", "variable used after the region that declared it closed");
        return false;
    }
    return true;
}

tir_var *tir_var_new(tir_builder *b, tir_value *init) {
    if (!b || b->status != TILEC_OK) return NULL;
    if (!init || !tir_builder_visible(b, init)) {
        tir_builder_fail(b, TILEC_E_SCOPE, "TIR-C03", "a variable needs a visible initial value");
        return NULL;
    }
    tir_var *v = tilec_alloc(b->module->ctx, sizeof *v);
    if (!v || !VEC_PUSH(b->module->ctx, &b->vars, v)) {
        tilec_free(b->module->ctx, v);
        oom(b);
        return NULL;
    }
    v->value = init;
    v->depth = b->frames.len;
    v->live = true;
    return v;
}

tir_value *tir_var_get(tir_builder *b, tir_var *v) { return check_var(b, v) ? v->value : NULL; }

tilec_status tir_var_set(tir_builder *b, tir_var *v, tir_value *value) {
    if (!b) return TILEC_E_ARG;
    if (!check_var(b, v)) return b->status;
    if (!value || !tir_builder_visible(b, value)) {
        tir_builder_fail(b, TILEC_E_SCOPE, "TIR-C03", "assigned value is not visible here");
        return b->status;
    }
    if (value->type != v->value->type) {
        tir_builder_fail(b, TILEC_E_TYPE, "TIR-C04", "assignment changes a variable's type");
        return b->status;
    }
    v->value = value;
    return TILEC_OK;
}

tir_var *tir_var_copy(tir_builder *b, tir_var *v) { return check_var(b, v) ? tir_var_new(b, v->value) : NULL; }

tir_op *tir_capture_begin(tir_builder *b, tir_op_kind kind, tir_space *domain, const tir_region_opts *opts) {
    if (!b || b->status != TILEC_OK) return NULL;
    /* Open it as an explicit region, then turn its frame into a capture frame. */
    tir_op *op = tir_region_begin(b, kind, domain, opts, 0, NULL);
    if (!op) return NULL;
    if (kind == TIR_OP_PARALLEL) return op;
    b->frames.len--;
    b->slots.len = b->frames.data[b->frames.len].slot_begin;
    return tir_builder_push_frame(b, op, true) ? op : NULL;
}

tilec_status tir_capture_end(tir_builder *b, tir_op *region) {
    if (!b) return TILEC_E_ARG;
    if (b->status != TILEC_OK) return b->status;
    tir_frame *frame = tir_builder_top(b);
    if (!region || frame->op != region || frame->block != region->body || !tir_op_is_loop(region)) {
        if (region && region->kind == TIR_OP_PARALLEL) return tir_region_end(b, region, 0, NULL);
        tir_builder_fail(b, TILEC_E_SCOPE, "TIR-B35", "region closed out of order (it is not the innermost open region)");
        return b->status;
    }
    VEC(tir_value *) finals = {0};
    for (size_t i = frame->slot_begin; i < frame->slot_end; i++) {
        tir_frame_slot *slot = &b->slots.data[i];
        if (!slot->var->live || slot->var->value == slot->forwarder) continue;
        if (!tir_op_add_operand(region, slot->before) || !tir_op_add_result(region, slot->before->type) ||
            !tir_block_add_arg(region->body, slot->before->type) ||
            !VEC_PUSH(b->module->ctx, &finals, slot->var->value)) {
            VEC_FREE(b->module->ctx, &finals);
            return oom(b), b->status;
        }
    }
    tir_op *y = tir_op_new(b->func, TIR_OP_YIELD, b->loc);
    bool ok = y != NULL;
    for (size_t i = 0; ok && i < finals.len; i++) ok = tir_op_add_operand(y, finals.data[i]);
    VEC_FREE(b->module->ctx, &finals);
    if (!ok) return oom(b), b->status;
    tir_op_insert_end(y, region->body);
    /* Resolve forwarders and point variables past the loop. */
    uint32_t carried = 0;
    for (size_t i = frame->slot_begin; i < frame->slot_end; i++) {
        tir_frame_slot *slot = &b->slots.data[i];
        bool is_carried = slot->var->live && slot->var->value != slot->forwarder;
        tir_value *replacement = is_carried ? region->body->args[region->domain->rank + carried] : slot->before;
        tir_value_replace_all_uses(slot->forwarder, replacement);
        tir_op_erase(slot->forwarder->def_op);
        if (is_carried) slot->var->value = region->results[carried++];
        else if (slot->var->value == slot->forwarder) slot->var->value = slot->before;
    }
    b->slots.len = frame->slot_begin;
    b->frames.len--;
    tir_capture_retire_vars(b, b->frames.len);
    return TILEC_OK;
}
