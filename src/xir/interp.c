/* interp.c — the W-lane XIR interpreter's entry point: argument checks, run
 * setup, the packet loop and warp_read_lane exchanges
 * (docs/xir-interpreter.md).
 *
 * Packet p covers dispatch ids [p·W, p·W + W) ∩ [0, N); only those lanes run
 * (the tail mask).  Within a packet the lanes run one at a time, in lane order,
 * each until it returns or reaches a warp_read_lane.  When no lane can run on,
 * every lane that has not returned is blocked; they must all be at the same
 * instruction, and then the exchange delivers to each the requested lane's
 * operand value, simultaneously, and they resume.  Lanes enter every exchange
 * together, so they have executed the same sequence of exchanges and "the
 * same instruction" is also the same dynamic occurrence of it. */
#include "xir/interp_impl.h"

#include <stdio.h>

xir_interp_options xir_interp_default_options(void) {
    return (xir_interp_options){.max_steps = XIR_INTERP_DEFAULT_MAX_STEPS,
                                .max_private_bytes = XIR_INTERP_DEFAULT_MAX_PRIVATE_BYTES};
}

const char *xi_value_label(const xir_value *v, char *buf, size_t n) {
    if (v->kind == XIR_VALUE_SPECIAL) snprintf(buf, n, "%s", xir_special_name(v->special));
    else if (v->kind == XIR_VALUE_CONST) snprintf(buf, n, "(constant)");
    else if (v->name) snprintf(buf, n, "%%%s", v->name);
    else snprintf(buf, n, "%%%u", v->id);
    return buf;
}

const char *xi_block_label(const xir_block *b, char *buf, size_t n) {
    if (!b) snprintf(buf, n, "(none)");
    else if (b->name) snprintf(buf, n, "'%s'", b->name);
    else snprintf(buf, n, "#%u", b->id);
    return buf;
}

/* ---- warp exchanges ---- */

/* Which lane `lane` asks for, or an error if it cannot be read. */
static tilec_status source_lane(xi_run *r, xi_lane *lane, const xir_inst *at, uint32_t *out) {
    scalar_cell x;
    uint64_t src;
    tilec_status st = xi_read(r, lane, at, xir_operand(at, 1), &x);
    if (st) return st;
    if (!xi_index(xir_operand(at, 1)->type->scalar, x, &src) || src >= r->width)
        return xi_fail(r, lane, at, TILEC_E_RUNTIME, "XIR-I11", "lane %lld is outside the packet of %u lanes",
                       tir_scalar_is_signed(xir_operand(at, 1)->type->scalar) ? (long long)x.i : (long long)x.u,
                       r->width);
    if (src >= r->active)
        return xi_fail(r, lane, at, TILEC_E_RUNTIME, "XIR-I12",
                       "reads lane %llu, which is inactive (dispatch id %llu >= dispatch size %u)",
                       (unsigned long long)src, (unsigned long long)(lane->dispatch_id - lane->lane + src),
                       r->dispatch_size);
    if (r->lanes[src].status == XI_RETURNED)
        return xi_fail(r, lane, at, TILEC_E_RUNTIME, "XIR-I12", "reads lane %llu, which has already returned",
                       (unsigned long long)src);
    *out = (uint32_t)src;
    return TILEC_OK;
}

/* A warp_sync: every active lane waits at it (none returned, none
 * elsewhere), then all go on. */
static tilec_status sync_lanes(xi_run *r, const xir_inst *at) {
    for (uint32_t l = 0; l < r->active; l++) {
        xi_lane *lane = &r->lanes[l];
        if (lane->status == XI_RETURNED)
            return xi_fail(r, lane, at, TILEC_E_RUNTIME, "XIR-I13",
                           "lane %u returned while the other lanes wait at warp_sync", lane->lane);
    }
    for (uint32_t l = 0; l < r->active; l++) {
        xi_lane *lane = &r->lanes[l];
        tilec_status st = xi_count_step(r, lane, at);
        if (st) return st;
        lane->pc = at->next;
        lane->status = XI_RUNNING;
    }
    return TILEC_OK;
}

/* Performs the exchange (warp_read_lane) or the synchronization
 * (warp_sync) all blocked lanes of the packet wait for. */
static tilec_status exchange(xi_run *r) {
    const xi_lane *first = NULL;
    for (uint32_t l = 0; l < r->active; l++) {
        const xi_lane *lane = &r->lanes[l];
        if (lane->status != XI_BLOCKED) continue;
        if (!first) {
            first = lane;
        } else if (lane->pc != first->pc) {
            char vl[64], bl[64];
            return xi_fail(r, lane, lane->pc, TILEC_E_RUNTIME, "XIR-I13",
                           "lanes diverged at %s: lane %u waits at %s in block %s",
                           xir_inst_kind_name(first->pc->kind), first->lane,
                           xi_value_label(&first->pc->value, vl, sizeof vl),
                           xi_block_label(first->pc->parent, bl, sizeof bl));
        }
    }
    const xir_inst *at = first->pc;
    if (at->kind == XIR_INST_WARP_SYNC) return sync_lanes(r, at);
    tilec_status st;
    /* Read every delivered value before any lane's result is assigned. */
    for (uint32_t l = 0; l < r->active; l++) {
        xi_lane *lane = &r->lanes[l];
        uint32_t src = 0;
        if (lane->status != XI_BLOCKED) continue;
        if ((st = xi_count_step(r, lane, at)) || (st = source_lane(r, lane, at, &src)) ||
            (st = xi_read(r, &r->lanes[src], at, xir_operand(at, 0), &r->scratch[l])))
            return st;
    }
    for (uint32_t l = 0; l < r->active; l++) {
        xi_lane *lane = &r->lanes[l];
        if (lane->status != XI_BLOCKED) continue;
        xi_define(lane, at, r->scratch[l]);
        lane->pc = at->next;
        lane->status = XI_RUNNING;
    }
    return TILEC_OK;
}

/* ---- packets ---- */

static tilec_status run_packets(xi_run *r) {
    for (uint64_t base = 0; base < r->dispatch_size; base += r->width) {
        uint64_t left = r->dispatch_size - base;
        r->active = left < r->width ? (uint32_t)left : r->width;
        for (uint32_t l = 0; l < r->active; l++) xi_lane_start(r, &r->lanes[l], (uint32_t)(base + l));
        for (;;) {
            bool blocked = false;
            for (uint32_t l = 0; l < r->active; l++) {
                tilec_status st = xi_lane_run(r, &r->lanes[l]);
                if (st) return st;
                blocked |= r->lanes[l].status == XI_BLOCKED;
            }
            if (!blocked) break;
            tilec_status st = exchange(r);
            if (st) return st;
        }
    }
    return TILEC_OK;
}

/* ---- entry point ---- */

static tilec_status check_call(tilec_context *ctx, const xir_func *f, uint32_t width, size_t n_args,
                               const tir_buffer *args) {
    if (!f) return tilec_error(ctx, TILEC_E_ARG, "XIR-I01", tilec_no_loc(), "no XIR function given");
    if (width != 1 && width != 2 && width != 4 && width != 8 && width != 16 && width != 32)
        return tilec_error(ctx, TILEC_E_ARG, "XIR-I01", tilec_no_loc(),
                           "packet width %u of '%s' is not 1, 2, 4, 8, 16 or 32", width, f->name);
    if (f->block_size == 0 || f->block_size % width)
        return tilec_error(ctx, TILEC_E_ARG, "XIR-I01", tilec_no_loc(),
                           "block size %u of '%s' is not a positive multiple of the packet width %u", f->block_size,
                           f->name, width);
    if (n_args != f->args.len)
        return tilec_error(ctx, TILEC_E_ARG, "XIR-I01", tilec_no_loc(), "'%s' takes %zu buffer arguments, %zu given",
                           f->name, f->args.len, n_args);
    if (n_args && !args)
        return tilec_error(ctx, TILEC_E_ARG, "XIR-I01", tilec_no_loc(), "NULL argument array for '%s'", f->name);
    for (size_t i = 0; i < n_args; i++)
        if (!args[i].data && args[i].size_bytes) {
            char vl[64];
            return tilec_error(ctx, TILEC_E_RUNTIME, "XIR-I02", tilec_no_loc(),
                               "argument %zu (%s) of '%s' has NULL data and %zu bytes", i,
                               xi_value_label(f->args.data[i], vl, sizeof vl), f->name, args[i].size_bytes);
        }
    return TILEC_OK;
}

/* Per-run storage: the lanes' value tables and the staging area. */
static tilec_status allocate_lanes(xi_run *r) {
    size_t values = r->func->next_value_id ? r->func->next_value_id : 1;
    r->lanes = ARENA_ARRAY(&r->arena, xi_lane, r->width);
    r->scratch = ARENA_ARRAY(&r->arena, scalar_cell, r->max_phis > r->width ? r->max_phis : r->width);
    if (!r->lanes || !r->scratch) goto oom;
    for (uint32_t l = 0; l < r->width; l++) {
        xi_lane *lane = &r->lanes[l];
        lane->lane = l;
        lane->values = ARENA_ARRAY(&r->arena, scalar_cell, values);
        lane->defined = ARENA_ARRAY(&r->arena, unsigned char, values);
        if (!lane->values || !lane->defined) goto oom;
    }
    return TILEC_OK;
oom:
    return tilec_error(r->ctx, TILEC_E_NOMEM, "XIR-I04", tilec_no_loc(), "out of memory setting up the XIR interpreter");
}

tilec_status xir_interpret_with(tilec_context *ctx, const xir_func *f, uint32_t dispatch_size, uint32_t packet_width,
                                size_t n_args, const tir_buffer *args, const xir_interp_options *options) {
    if (!ctx) return TILEC_E_ARG;
    tilec_status st = check_call(ctx, f, packet_width, n_args, args);
    if (st) return st;
    xi_run r = {.ctx = ctx, .func = f, .options = options ? *options : xir_interp_default_options(),
                .dispatch_size = dispatch_size, .width = packet_width, .block_size = f->block_size, .args = args};
    arena_init(&r.arena, ctx);
    st = xi_prepare(&r);
    if (!st) st = allocate_lanes(&r);
    if (!st) st = run_packets(&r);
    if (r.lanes)
        for (uint32_t l = 0; l < r.width; l++) {
            tilec_free(ctx, r.lanes[l].mem);
            VEC_FREE(ctx, &r.lanes[l].arrays);
        }
    arena_destroy(&r.arena);
    return st;
}

tilec_status xir_interpret(tilec_context *ctx, const xir_func *f, uint32_t dispatch_size, uint32_t packet_width,
                           size_t n_args, const tir_buffer *args) {
    return xir_interpret_with(ctx, f, dispatch_size, packet_width, n_args, args, NULL);
}
