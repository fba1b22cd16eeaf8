/* lower.c — the lowering driver.  lower_kernel reads as the pipeline:
 *
 *   admit → validate options → map root → representation plan + static
 *   resources (budget) → emit (arguments, root values, root program) →
 *   check emitted storage against the plan → cleanup (verify, fold, DCE,
 *   CFG simplification, verify) → result metadata
 *
 * The TileIR kernel is only read.  On any failure the partial module is
 * destroyed and `out` stays empty. */
#include "lower/internal.h"
#include "realize/stream.h"
#include "tir/form.h"
#include "xir/passes.h"

#include <string.h>

static tilec_status check_options(tilec_context *ctx, const tilec_compile_options *o, const realize_choice *c) {
    uint32_t w = c->packet_width;
    if (w != 1 && w != 2 && w != 4 && w != 8 && w != 16 && w != 32)
        return tilec_error(ctx, TILEC_E_ARG, "LOWER-O02", tilec_no_loc(), "packet width %u is not one of 1, 2, 4, 8, 16, 32",
                           w);
    if (c->block < 1 || c->block > 1024 || c->block % w)
        return tilec_error(ctx, TILEC_E_ARG, "LOWER-O01", tilec_no_loc(),
                           "block width %u is invalid: it must be in 1..1024 and a multiple of the packet width %u",
                           c->block, w);
    if (o->reduction_partitions < 1 || o->reduction_partitions > 16)
        return tilec_error(ctx, TILEC_E_ARG, "LOWER-O04", tilec_no_loc(), "reduction_partitions %u is outside 1..16",
                           o->reduction_partitions);
    if (c->lanes != 1 && c->lanes != w)
        return tilec_error(ctx, TILEC_E_ARG, "LOWER-O08", tilec_no_loc(),
                           "local_lanes %u is neither 1 (one program per lane) nor the packet width %u", c->lanes,
                           w);
    return TILEC_OK;
}

/* A root digit's extent as u32: a constant, or a runtime size's value. */
static xir_value *digit_extent(lowerer *lw, const plan_root_digit *d) {
    return tir_extent_is_symbolic(d->extent) ? lw_cast(lw, lw_extent_value(lw, d->extent), TIR_U32)
                                             : xir_const_uint(lw->m, TIR_U32, d->extent);
}

/* The root program's coordinates: decoded from the program ordinal digit
 * by digit (u32 div/mod by static extents, or by runtime sizes' values,
 * times the digit's scale, summed per axis), each widened to Index with
 * interval [0, extent-1] right after its axis's last digit.  An axis without
 * digits is 0.  A plain map (one scale-1 digit per non-unit axis) emits
 * exactly div, mod, cast per axis.  The ordinal is dispatch_id, or
 * packet-local dispatch_id / W (the same on every lane of a packet, since
 * blocks hold whole packets) with the lane warp_lane_id = dispatch_id mod W
 * (set up by lower_root). */
static void decode_root(lowerer *lw, const tir_op *root, const plan_root_map *map, xir_value **coords) {
    xir_value *j = xir_special_value(lw->m, XIR_SPECIAL_DISPATCH_ID);
    if (lw->local) j = lw_arith(lw, XIR_OP_DIV, j, xir_const_uint(lw->m, TIR_U32, lw->local->lanes), NULL);
    uint32_t last[PLAN_MAX_RANK];
    for (uint32_t a = 0; a < map->rank; a++) coords[a] = NULL;
    for (uint32_t t = 0; t < map->digit_count; t++) last[map->digits[t].axis] = t;
    for (uint32_t t = 0; t < map->digit_count; t++) {
        const plan_root_digit *d = &map->digits[t];
        xir_value *divisor = d->divisor ? xir_const_uint(lw->m, TIR_U32, d->divisor) : NULL;
        for (uint32_t i = t + 1; !d->divisor && i < map->digit_count; i++) /* inside runtime sizes: their product */
            divisor = i == t + 1 ? digit_extent(lw, &map->digits[i])
                                 : lw_arith(lw, XIR_OP_MUL, divisor, digit_extent(lw, &map->digits[i]), NULL);
        xir_value *q = d->divisor == 1 ? j : lw_arith(lw, XIR_OP_DIV, j, divisor, NULL);
        if (d->needs_mod) q = lw_arith(lw, XIR_OP_MOD, q, digit_extent(lw, d), NULL);
        if (d->scale != 1) q = lw_arith(lw, XIR_OP_MUL, q, xir_const_uint(lw->m, TIR_U32, d->scale), NULL);
        if (coords[d->axis]) q = lw_arith(lw, XIR_OP_ADD, coords[d->axis], q, NULL);
        coords[d->axis] = q;
        if (last[d->axis] == t) {
            coords[d->axis] = lw_cast(lw, q, TIR_I64);
            lw_coordinate_range(lw, coords[d->axis], root->domain->axes[d->axis].extent);
        }
    }
    for (uint32_t a = 0; a < map->rank; a++)
        if (!coords[a]) coords[a] = lw_i64(lw, 0);
}

/* The root program.  A peeled root (plan_local_peels_root) is two uniform
 * if-diamonds: the programs whose blocks lie wholly inside their runtime
 * sizes run a body whose coordinates, decoded again there, are bounded by
 * floor(A/k) - 1 (so guards against A are proven away); the others run the
 * body with the coordinates' own bounds. */
static void lower_root(lowerer *lw, const tir_op *root, const plan_root_map *map) {
    if (lw->local) {
        lw->lane_id = xir_special_value(lw->m, XIR_SPECIAL_WARP_LANE_ID);
        lw->lane = lw_cast(lw, lw->lane_id, TIR_I64);
        lw_set_range(lw, lw->lane, 0, (int64_t)lw->local->lanes - 1);
    }
    xir_value *coords[PLAN_MAX_RANK];
    decode_root(lw, root, map, coords);
    if (!plan_op_of(lw->plan, root)->peeled) {
        lw_bind_coord_values(lw, root, coords);
        lower_block(lw, root->body, NULL);
        return;
    }
    const tir_form *blocks[PLAN_MAX_RANK]; /* an axis of ceil_div(A, k) programs, else NULL */
    xir_value *inside = NULL;
    for (uint32_t a = 0; a < map->rank; a++) {
        blocks[a] = tir_extent_form(lw->tf->module, root->domain->axes[a].extent);
        if (!tir_form_is_blocks(blocks[a])) {
            blocks[a] = NULL;
            continue;
        }
        xir_value *lt = lw_arith(lw, XIR_OP_LT, coords[a], lw_whole_blocks(lw, blocks[a]), NULL);
        inside = inside ? lw_arith(lw, XIR_OP_AND, inside, lt, NULL) : lt;
    }
    xir_value *outside = lw_arith(lw, XIR_OP_NOT, inside, NULL, NULL);
    lw_if arm;
    lw_if_begin(lw, &arm, inside);
    xir_value *whole[PLAN_MAX_RANK];
    decode_root(lw, root, map, whole);
    for (uint32_t a = 0; a < map->rank; a++)
        if (blocks[a]) lw_set_sym_bound(lw, whole[a], blocks[a]->a.form, blocks[a]->c, -1);
    lw_bind_coord_values(lw, root, whole);
    lower_block(lw, root->body, NULL);
    lw_if_end(lw, &arm);
    lw_if_begin(lw, &arm, outside);
    lw_bind_coord_values(lw, root, coords);
    lower_block(lw, root->body, NULL);
    lw_if_end(lw, &arm);
    lw->counters.peeled_roots++;
}

/* Loads packed in groups, or read in place in words, are streamed: the mma
 * reads each word where it uses it (an SSA tile without a snapshot, all
 * the planner admits there, holds nothing else: plan/pack.h). */
static void stream_groups(plan_repr *repr, const plan_packing *packing) {
    for (uint32_t i = 0; packing && i < packing->count; i++)
        if (packing->packs[i].group) repr->values[packing->packs[i].load->results[0]->id].form = PLAN_FORM_STREAM;
    for (uint32_t i = 0; packing && i < packing->word_count; i++)
        repr->values[packing->words[i].load->results[0]->id].form = PLAN_FORM_STREAM;
}

/* "<parameter>_packed" */
static const char *packed_name(lowerer *lw, const plan_pack *p) {
    const char *view = p->load->operands[0]->value->name;
    size_t n = strlen(view);
    char *s = arena_alloc(&lw->arena, n + sizeof "_packed");
    if (s) {
        memcpy(s, view, n);
        memcpy(s + n, "_packed", sizeof "_packed");
    }
    return s ? s : "packed";
}

/* Module, kernel, one buffer argument per view parameter (and the packed
 * panels), then the root block's values and the root program. */
static void emit(lowerer *lw, const plan_root_map *map) {
    const tir_block *body = lw->tf->body;
    if (!(lw->m = xir_module_create(lw->ctx))) {
        lw->status = TILEC_E_NOMEM;
        return;
    }
    lw->b.module = lw->m;
    if (!(lw->f = lw->b.func = xir_func_new(lw->m, lw->tf->name))) {
        lw->status = TILEC_E_NOMEM; /* reported by the module (XIR-M01) */
        return;
    }
    lw->f->block_size = lw->choice->block;
    for (uint32_t i = 0; i < body->arg_count; i++) {
        const tir_value *p = body->args[i];
        lw->buffers[i] = xir_func_add_buffer(lw->f, p->name, p->type->elem);
    }
    for (uint32_t i = 0; lw->choice->packing && i < lw->choice->packing->count; i++) {
        const plan_pack *p = &lw->choice->packing->packs[i];
        lw->packed[i] = xir_func_add_buffer(lw->f, packed_name(lw, p), plan_pack_panel_type(p));
    }
    lw_sizes_begin(lw);
    lw->entry = xir_block_new(lw->f, "entry");
    xir_block *code = xir_block_new(lw->f, "body");
    if (!lw_ok(lw)) return;
    xir_builder_at_end(&lw->b, code);
    for (const tir_op *op = body->first; op && lw_ok(lw); op = op->next) {
        if (op->kind == TIR_OP_PARALLEL) lower_root(lw, op, map);
        else lower_op(lw, op);
    }
    if (!lw_ok(lw)) return;
    xir_build_ret(&lw->b);
    xir_builder_at_end(&lw->b, lw->entry);
    xir_build_br(&lw->b, code);
    (void)lw_ok(lw); /* a failure of the last instructions becomes the status */
}

/* The storage the emitted XIR really allocates must be what the plan said. */
static void check_storage(lowerer *lw, const plan_resources *planned) {
    uint64_t count = 0, bytes = 0;
    for (xir_block *b = lw->f->first; b; b = b->next)
        for (xir_inst *i = b->first; i; i = i->next)
            if (i->kind == XIR_INST_ALLOCA) {
                count++;
                bytes += i->alloca_type->count * tir_scalar_size(i->alloca_type->scalar);
            }
    if (count != planned->snapshot_allocations || bytes != planned->snapshot_bytes_per_worker)
        lw_fail(lw, TILEC_E_INTERNAL, "LOWER-I02",
                "internal error: emitted %llu private arrays of %llu bytes, but the static analysis planned %llu of "
                "%llu bytes",
                (unsigned long long)count, (unsigned long long)bytes,
                (unsigned long long)planned->snapshot_allocations, (unsigned long long)planned->snapshot_bytes_per_worker);
}

/* The XIR cleanup passes; they verify the module before and after, so a
 * lowering bug that breaks an XIR rule is reported here. */
static void cleanup(lowerer *lw) {
    tilec_status st = xir_cleanup(lw->ctx, lw->m);
    if (st == TILEC_E_VERIFY)
        lw_fail(lw, TILEC_E_INTERNAL, "LOWER-I03", "internal error: the emitted XIR does not verify (diagnostics above)");
    else if (st && !lw->status)
        lw->status = st; /* out of memory or internal, reported by the module (XIR-M01, TILEC-I01) */
}

/* The packed parameters, comma-separated ("none": nothing packed). */
static const char *packed_operands(lowerer *lw) {
    const plan_packing *p = lw->choice->packing;
    if (!p || !p->count) return "none";
    strbuf s;
    strbuf_init(&s, lw->ctx);
    for (uint32_t i = 0; i < p->count; i++)
        strbuf_printf(&s, "%s%s", i ? "," : "", p->packs[i].load->operands[0]->value->name);
    const char *text = s.failed ? "?" : arena_strdup(&lw->arena, strbuf_cstr(&s));
    strbuf_free(&s);
    return text ? text : "?";
}

static uint64_t packed_bytes(const plan_packing *p) {
    uint64_t n = 0;
    for (uint32_t i = 0; p && i < p->count; i++) n += p->packs[i].bytes;
    return n;
}

static void describe(lowerer *lw, const plan_root_map *map, lower_result *out) {
    strbuf s;
    strbuf_init(&s, lw->ctx);
    strbuf_printf(&s, "plan=fixed; local_lanes=%u; block=%u; width=%u; root_order=[", out->local_lanes, out->block_size,
                  out->packet_width);
    for (uint32_t t = 0; t < map->rank; t++) strbuf_printf(&s, "%s%u", t ? "," : "", map->order[t]);
    strbuf_printf(&s, "]");
    if (lw->choice->tiles_len) {
        strbuf_printf(&s, "; fixed_root_axis_tiles=[");
        for (size_t a = 0; a < lw->choice->tiles_len; a++)
            strbuf_printf(&s, "%s%u", a ? "," : "", lw->choice->tiles[a]);
        strbuf_printf(&s, "]; root_temporal_cache_cost=unmodeled");
    }
    if (lw->local) {
        const plan_local_dim *d = lw->local->dim_count ? &lw->local->dims[0] : NULL;
        strbuf_printf(&s, "; local_axis=%s; local_extent=%llu; local_slots=%llu", d ? d->dim->label : "none",
                      (unsigned long long)(d ? d->extent : 1), (unsigned long long)(d ? d->slots : 1));
        for (uint32_t i = 1; i < lw->local->dim_count; i++)
            strbuf_printf(&s, "%s%s=%llu", i == 1 ? "; local_contraction_axes=" : ",", lw->local->dims[i].dim->label,
                          (unsigned long long)lw->local->dims[i].extent);
    }
    strbuf_printf(&s,
                  "; dispatch_size=%u; required_packet_width=%u; static_snapshot_bytes_per_worker=%llu; "
                  "static_snapshot_allocations=%llu; snapshot_budget=%llu; max_unrolled_tile_elements=%u; "
                  "max_unrolled_region_work=%llu; unordered_reduction_partitions=%u; max_recipe_depth=%u; "
                  "mma_steps=%s; packed_operand=%s; packed_bytes=%llu; ",
                  out->dispatch_size, out->required_packet_width,
                  (unsigned long long)out->resources.snapshot_bytes_per_worker,
                  (unsigned long long)out->resources.snapshot_allocations, (unsigned long long)lw->choice->snapshot_budget,
                  lw->opt->max_unrolled_tile_elements, (unsigned long long)lw->choice->max_unrolled_region_work,
                  lw->opt->reduction_partitions, lw->choice->max_recipe_depth, lw->opt->fused_mma ? "fused" : "separate",
                  packed_operands(lw), (unsigned long long)packed_bytes(lw->choice->packing));
#define X(name) strbuf_printf(&s, #name "=%llu; ", (unsigned long long)out->counters.name);
    LOWER_COUNTERS(X)
#undef X
    if (s.failed || !(out->realization = arena_strdup(&lw->m->arena, strbuf_cstr(&s))))
        lw_fail(lw, TILEC_E_NOMEM, "LOWER-M01", "out of memory describing the realization");
    strbuf_free(&s);
}

static void fill_result(lowerer *lw, const plan_root_map *map, const plan_resources *res, lower_result *out) {
    const tir_block *body = lw->tf->body;
    const plan_packing *packing = lw->choice->packing;
    out->packed = packing ? packing->count : 0;
    out->arg_count = body->arg_count + out->packed;
    out->args = arena_alloc(&lw->m->arena, sizeof *out->args * (out->arg_count ? out->arg_count : 1));
    if (!out->args) {
        lw_fail(lw, TILEC_E_NOMEM, "LOWER-M01", "out of memory describing the arguments");
        return;
    }
    for (uint32_t i = 0; i < body->arg_count; i++) {
        const tir_value *p = body->args[i];
        uint64_t volume = 0; /* a view over runtime sizes: its bytes are the dispatch's (0 here) */
        tir_space_volume(p->type->space, &volume); /* admitted: fits */
        out->args[i] = (lower_arg){p->name, p->type->elem, volume * tir_scalar_size(p->type->elem),
                                   tir_func_param_use(lw->tf, i), 0, 0};
    }
    const plan_repr *r = lw->plan;
    for (uint32_t i = 0; i < r->params; i++)
        for (uint32_t j = 0; j < r->params; j++) {
            uint8_t g = r->guards[i * r->params + j];
            if (g == PLAN_GUARD_DISJOINT) out->args[i].disjoint |= 1ull << j;
            if (g == PLAN_GUARD_DISJOINT_OR_EQUAL) out->args[i].disjoint_or_equal |= 1ull << j;
        }
    for (uint32_t i = 0; i < out->packed; i++)
        out->args[body->arg_count + i] = (lower_arg){lw->packed[i]->name, plan_pack_copy_type(&packing->packs[i]),
                                                     packing->packs[i].bytes, TIR_USE_READ, 0, 0};
    if (lw->sites.len) {
        tir_fault_site *sites = arena_alloc(&lw->m->arena, sizeof *sites * lw->sites.len);
        if (!sites) {
            lw_fail(lw, TILEC_E_NOMEM, "LOWER-M01", "out of memory describing the fault sites");
            return;
        }
        memcpy(sites, lw->sites.data, sizeof *sites * lw->sites.len);
        out->fault_sites = sites;
        out->fault_site_count = lw->sites.len;
    }
    out->local_lanes = lw->local ? lw->local->lanes : 1;
    out->dispatch_size = (uint32_t)map->volume * out->local_lanes; /* admitted: fits; 0 when the dispatch's sizes set it */
    out->block_size = lw->choice->block;
    out->packet_width = lw->choice->packet_width;
    out->required_packet_width = lw->local ? lw->local->lanes : 0;
    out->resources = *res;
    out->counters = lw->counters;
    out->counters.xir_instructions = lw->f->next_value_id - lw->f->args.len;
    describe(lw, map, out);
}

tilec_status lower_kernel(tilec_context *ctx, const tir_func *f, const tilec_compile_options *options,
                          const realize_choice *choice, lower_result *out) {
    if (!ctx || !out) return TILEC_E_ARG;
    memset(out, 0, sizeof *out);
    tilec_compile_options defaults = tilec_compile_options_default();
    realize_choice default_choice = realize_choice_default();
    const tilec_compile_options *o = options ? options : &defaults;
    const realize_choice *c = choice ? choice : &default_choice;

    plan_admission admission;
    tilec_status st = plan_admit(ctx, f, &admission);
    if (!st) st = check_options(ctx, o, c);
    plan_root_map map;
    if (!st) st = plan_root_map_make(ctx, admission.domain, c->order, c->order_len, c->tiles, c->tiles_len, &map);
    if (st) return st;

    plan_local local;
    bool packet_local = c->lanes > 1;
    if (packet_local && !plan_local_admit(f, &admission, c->lanes, &local))
        return tilec_error(ctx, TILEC_E_UNSUPPORTED, plan_local_refusal_code(local.refusal), tilec_no_loc(),
                           "kernel '@%s' is not admitted to packet-local lowering (local_lanes=%u): %s", f->name,
                           c->lanes, local.why);
    plan_repr_options ro = {.record = o,
                            .max_unrolled_region_work = c->max_unrolled_region_work,
                            .max_recipe_depth = c->max_recipe_depth,
                            .local = packet_local ? &local : NULL};
    plan_repr_set_fusion(&ro, c->fused);
    plan_repr repr;
    if ((st = plan_represent(ctx, f, &admission, &ro, &repr))) return st;
    stream_groups(&repr, c->packing);
    plan_resources res;
    st = plan_resources_of(&repr, &res);
    if (!st && res.snapshot_bytes_per_worker > c->snapshot_budget)
        st = tilec_error(ctx, TILEC_E_BUDGET, "LOWER-B02", tilec_no_loc(),
                         "snapshot storage budget: kernel '@%s' needs %llu bytes of private snapshots per worker "
                         "(%llu arrays), which exceeds max_local_bytes %llu",
                         f->name, (unsigned long long)res.snapshot_bytes_per_worker,
                         (unsigned long long)res.snapshot_allocations, (unsigned long long)c->snapshot_budget);
    if (st) {
        plan_repr_free(&repr);
        return st;
    }

    lowerer lw = {.ctx = ctx, .tf = f, .opt = o, .choice = c, .plan = &repr, .local = ro.local};
    arena_init(&lw.arena, ctx);
    lw.vals = tilec_alloc(ctx, sizeof *lw.vals * (f->next_value_id ? f->next_value_id : 1));
    lw.buffers = tilec_alloc(ctx, sizeof *lw.buffers * (f->body->arg_count ? f->body->arg_count : 1));
    lw.site_of_op = tilec_alloc(ctx, sizeof *lw.site_of_op * (f->next_op_id ? f->next_op_id : 1));
    if (!lw.vals || !lw.buffers || !lw.site_of_op)
        lw.status = tilec_error(ctx, TILEC_E_NOMEM, "LOWER-M01", tilec_no_loc(), "out of memory lowering kernel '@%s'", f->name);
    else emit(&lw, &map);
    if (!lw.status) check_storage(&lw, &res);
    if (!lw.status) cleanup(&lw);
    if (!lw.status) fill_result(&lw, &map, &res, out);

    st = lw.status;
    tilec_free(ctx, lw.vals);
    tilec_free(ctx, lw.buffers);
    tilec_free(ctx, lw.site_of_op);
    VEC_FREE(ctx, &lw.ranges);
    VEC_FREE(ctx, &lw.sites);
    arena_destroy(&lw.arena);
    plan_repr_free(&repr);
    if (st) {
        xir_module_destroy(lw.m);
        memset(out, 0, sizeof *out);
        return st;
    }
    out->module = lw.m;
    out->kernel = lw.f;
    return TILEC_OK;
}

void lower_result_free(lower_result *r) {
    if (!r) return;
    xir_module_destroy(r->module);
    memset(r, 0, sizeof *r);
}
