/* check.c — bounds checks of the accesses a kernel may get wrong at run
 * time: scalar loads and stores (TIR-I08), extracts (TIR-I09) and subtile
 * accesses with bounds=assume (TIR-I07).  Native code must never touch
 * memory outside the bound buffers, so every such access whose values the
 * interval analysis (bounds.c) cannot prove in range gets a check:
 *
 *   bad  = ∨_a (v_a < 0 ∨ v_a > limit_a)      one term per unproven axis
 *   if bad: fault(site of the first bad axis, its v)
 *   (packet-local: only on lanes whose element of an enclosing map or
 *   reduce over D exists)
 *   the access itself happens only when !bad  (the caller guards it)
 *
 * v_a is an index or coordinate (limit = extent - 1) or a subtile origin
 * (limit = extent - span: the whole subtile, first to last element, inside
 * the view).  A fault
 * site is registered once per (op, axis) and described in TileIR terms
 * (tir/fault.h) so the dispatch reports what the reference interpreter
 * reports.  With check_bounds every axis is checked, proofs or not (a
 * debugging mode that also cross-checks the interval analysis); constant
 * in-range values fold away either way. */
#include "lower/internal.h"

/* The first site of op's axes (registered on first use). */
static uint32_t op_sites(lowerer *lw, const tir_op *op, uint32_t rank) {
    if (!lw->site_of_op[op->id]) {
        for (uint32_t a = 0; a < rank; a++) {
            if (!VEC_PUSH(lw->ctx, &lw->sites, tir_fault_site_of(op, a))) {
                lw_fail(lw, TILEC_E_NOMEM, "LOWER-M01", "out of memory recording fault sites");
                return 0;
            }
        }
        lw->site_of_op[op->id] = (uint32_t)lw->sites.len - rank + 1;
    }
    return lw->site_of_op[op->id] - 1;
}

/* Packet-local, the lanes whose element of an enclosing map/reduce over D
 * is past N (the partly valid last slot) evaluate the body too, with
 * coordinates that exist in no program: their bad indices are no fault
 * (their accesses are skipped all the same).  NULL: every lane is valid. */
static xir_value *lane_valid(lowerer *lw, const tir_op *op) {
    xir_value *valid = NULL;
    for (const tir_block *b = op->parent; lw->local && b && b->parent_op; b = b->parent_op->parent) {
        const tir_op *region = b->parent_op;
        for (uint32_t a = 0; region->domain && a < region->domain->rank; a++) {
            const plan_local_dim *d = plan_local_dim_of(lw->local, &region->domain->axes[a]);
            if (!d) continue;
            lv *coord = lw_lookup(lw, region->body->args[a]);
            xir_value *v = coord ? lw_element_valid(lw, d, coord->value) : NULL;
            if (v) valid = valid ? lw_arith(lw, XIR_OP_AND, valid, v, NULL) : v;
        }
    }
    return valid;
}

xir_value *lw_check_access(lowerer *lw, const tir_op *op, uint32_t rank, xir_value *const *values,
                           const bool *skip) {
    const tir_value *target = op->operands[0]->value;
    const tir_space *space = target->type->space;
    xir_value *bad = NULL, *site = NULL, *value = NULL;
    uint32_t first = op_sites(lw, op, rank);
    /* Walk the axes last to first so the selects name the first bad axis. */
    for (uint32_t a = rank; a-- > 0 && lw_ok(lw);) {
        if (skip && skip[a]) continue;
        uint64_t extent = space->axes[a].extent, count = op->domain ? tir_op_span(op, a) : 1;
        bool proven = op->domain ? lw_axis_proven(lw, values[a], count, extent) : lw_proven_index(lw, values[a], extent);
        if (proven && !lw->opt->check_bounds) {
            lw->counters.bounds_checks_removed++;
            continue;
        }
        /* v > E - count, with E a runtime value when it is a runtime size (E - count may be negative) */
        xir_value *limit = tir_extent_is_symbolic(extent)
                               ? lw_arith(lw, XIR_OP_SUB, lw_extent_value(lw, extent), lw_i64(lw, (int64_t)count), NULL)
                               : lw_i64(lw, (int64_t)(extent - count));
        xir_value *axis_bad =
            count > lw_extent_max(lw, extent)
                ? xir_const_bool(lw->m, true)
                : lw_arith(lw, XIR_OP_OR, lw_arith(lw, XIR_OP_LT, values[a], lw_i64(lw, 0), NULL),
                           lw_arith(lw, XIR_OP_GT, values[a], limit, NULL), NULL);
        int64_t k;
        if (lw_const_int(axis_bad, &k) && !k) { /* a constant in range */
            lw->counters.bounds_checks_removed++;
            continue;
        }
        lw->counters.bounds_checks++;
        xir_value *axis_site = xir_const_int(lw->m, TIR_U32, first + a);
        bad = bad ? lw_arith(lw, XIR_OP_OR, axis_bad, bad, NULL) : axis_bad;
        site = site ? lw_arith(lw, XIR_OP_SELECT, axis_bad, axis_site, site) : axis_site;
        value = value ? lw_arith(lw, XIR_OP_SELECT, axis_bad, values[a], value) : values[a];
    }
    if (!bad || !lw_ok(lw)) return NULL;
    xir_value *valid = lane_valid(lw, op);
    lw_if d;
    lw_if_begin(lw, &d, valid ? lw_arith(lw, XIR_OP_AND, bad, valid, NULL) : bad);
    if (lw_ok(lw)) xir_build_fault(&lw->b, site, value);
    lw_if_end(lw, &d);
    return lw_arith(lw, XIR_OP_NOT, bad, NULL, NULL);
}
