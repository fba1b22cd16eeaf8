/* verify_uses.c — use-list consistency, after the walk: every value's use list
 * holds exactly the operand records of attached ops that name it (rule 9), and
 * every such record is in its value's list (rule 7).
 *
 * Each operand of each walked op has one slot in a flat table (the op's
 * first_operand plus the operand index); walking a list marks the slot its entry
 * resolves to, so a duplicate, a stale entry and a missing operand are each
 * found once, in time linear in the number of uses.  Runs only when op ids,
 * value ids and operand records are sound, since list entries are resolved
 * through them. */
#include "tir/verify.h"

/* The flat operand slot `u` resolves to, or -1 when it is no operand record of
 * an attached op naming `val`. */
static long resolve(const verifier *v, const tir_value *val, const tir_use *u) {
    const tir_op *user = u->user;
    if (u->value != val || !u->linked || !user || user->id >= v->op_slots || v->ops[user->id].op != user ||
        u->index >= user->operand_count || user->operands[u->index] != u)
        return -1;
    return (long)v->ops[user->id].first_operand + u->index;
}

/* Walks one value's list; false (after reporting) when it is corrupt. */
static bool check_list(verifier *v, const tir_value *val, bool *found) {
    const tir_use *prev = NULL;
    uint32_t length = 0;
    for (const tir_use *u = val->uses; u; prev = u, u = u->next) {
        if (u->prev != prev) {
            verify_value_error(v, val, 9, "its use list is not consistently doubly linked");
            return false;
        }
        length++;
        /* An attached op of another kernel using this value is reported there
         * (rule 9, foreign operand); its record is otherwise sound. */
        const tir_op *user = u->user;
        if (user && user->func != v->func && user->parent && u->value == val && u->index < user->operand_count &&
            user->operands[u->index] == u)
            continue;
        long slot = resolve(v, val, u);
        if (slot < 0) {
            verify_value_error(v, val, 9,
                               "its use list holds a use that is not an operand of an attached op (a stale or "
                               "corrupted use%s%u)",
                               u->user ? " by op #" : "", u->user ? u->user->id : 0);
            return false;
        }
        if (found[slot]) {
            verify_value_error(v, val, 9, "its use list holds operand %u of op #%u twice", u->index, u->user->id);
            return false;
        }
        found[slot] = true;
    }
    if (length != val->use_count) {
        verify_value_error(v, val, 9, "its use count says %u but its use list holds %u uses", val->use_count, length);
        return false;
    }
    return true;
}

void verify_use_lists(verifier *v) {
    if (!v->lists_checkable) return;
    bool *found = tilec_alloc(v->ctx, v->operand_total * sizeof *found);
    if (!found) {
        v->oom = true;
        return;
    }
    for (uint32_t id = 0; id < v->value_slots; id++) {
        verify_value_slot *slot = &v->values[id];
        if (slot->value && !check_list(v, slot->value, found)) slot->list_broken = true;
    }
    char what[160];
    for (size_t k = 0; k < v->walked.len; k++) {
        const tir_op *op = v->walked.data[k];
        for (uint32_t i = 0; i < op->operand_count; i++) {
            const tir_value *val = op->operands[i]->value;
            if (!val || val->id >= v->value_slots) continue;
            const verify_value_slot *slot = &v->values[val->id];
            /* Foreign or unattached values and already-reported lists are skipped. */
            if (slot->value != val || slot->list_broken || found[v->ops[op->id].first_operand + i]) continue;
            verify_op_error(v, op, 7, "operand %u (%s) is missing from its value's use list", i,
                            verify_value_str(val, what, sizeof what));
        }
    }
    tilec_free(v->ctx, found);
}
