/* pack.c — the TileIR kernel that copies a pack's tiles into its panels
 * (plan_pack_build; see pack.h). */
#include "rewrite/pack.h"

#include "tir/form.h"

#include <stdio.h>
#include <string.h>

/* A fresh dim per label; a label already used gets a numeric suffix. */
static tir_dim *fresh_dim(tir_module *m, tir_dim **made, uint32_t n, const char *label, uint32_t index) {
    char name[96];
    snprintf(name, sizeof name, "%s", label);
    for (uint32_t i = 0; i < n; i++)
        if (made[i] && !strcmp(made[i]->label, name)) {
            snprintf(name, sizeof name, "%s_%u", label, index);
            break;
        }
    return tir_dim_new(m, name);
}

static tir_value *ew2(tir_builder *b, tir_ew_op op, tir_value *x, tir_value *y) {
    tir_value *xy[2] = {x, y};
    return tir_ew(b, op, 2, xy);
}

/* The body of the copy's one program: load the tile at the original origin
 * (same strides, bounds and fill), reorder it into storage order, cast it to
 * the panels' type, store it at row inst·e(order[0]). */
static void build_body(tir_builder *b, tir_module *m, const plan_pack *p, tir_op *root, tir_value *src,
                       tir_value *dst) {
    const tir_op *load = p->load;
    const tir_space *ts = load->domain;
    uint32_t rank = ts->rank;
    tir_value *origin[PLAN_MAX_RANK], *inst = tir_const_index(b, 0);
    for (uint32_t a = 0; a < rank; a++) {
        origin[a] = tir_const_index(b, p->offset[a]);
        if (p->coord_of[a] < 0) continue;
        tir_value *c = tir_region_coord(root, (size_t)p->coord_of[a]);
        if (p->scale[a] != 1) c = ew2(b, TIR_EW_MUL, c, tir_const_index(b, p->scale[a]));
        origin[a] = p->offset[a] ? ew2(b, TIR_EW_ADD, c, origin[a]) : c;
    }
    for (uint32_t i = 0; i < p->coord_count; i++) /* (the first extent multiplies nothing) */
        inst = i ? ew2(b, TIR_EW_ADD, ew2(b, TIR_EW_MUL, inst, tir_const_index(b, (int64_t)p->extents[i])),
                       tir_region_coord(root, i))
                 : tir_region_coord(root, 0);
    tir_dim *dims[PLAN_MAX_RANK], *sdims[PLAN_MAX_RANK + 1];
    uint64_t ext[PLAN_MAX_RANK], sext[PLAN_MAX_RANK + 1];
    for (uint32_t a = 0; a < rank; a++) {
        dims[a] = fresh_dim(m, dims, a, ts->axes[a].dim->label, a);
        ext[a] = ts->axes[a].extent;
    }
    for (uint32_t j = 0; j < rank; j++) {
        sdims[j] = dims[p->order[j]];
        sext[j] = ext[p->order[j]];
    }
    uint32_t srank = rank;
    if (p->paired) { /* the pair axis counts pairs; the pair's two elements innermost */
        for (uint32_t j = 0; j < rank; j++)
            if (p->order[j] == p->pair_axis) {
                sdims[j] = tir_dim_new(m, "pairs");
                sext[j] /= 2;
            }
        sdims[srank] = tir_dim_new(m, "pair");
        sext[srank++] = 2;
    }
    tir_value *fill = NULL;
    if (load->has_fill) {
        const tir_value *f = load->operands[load->operand_count - 1]->value;
        fill = tir_const(b, tir_type_scalar(m, tir_value_elem(f)), f->def_op->literal);
    }
    tir_space *space = tir_space_make(m, rank, dims, ext);
    tir_value *tile = tir_load_tile_strided(b, src, origin, space, load->strides, TIR_BOUNDS_ZERO, fill);
    bool identity = !p->paired;
    for (uint32_t j = 0; j < rank; j++) identity = identity && p->order[j] == j;
    if (!identity && tile) { /* map over the storage order, extracting from the loaded tile */
        tir_op *map = tir_map_begin(b, tir_space_make(m, srank, sdims, sext), tir_value_elem(tile));
        tir_value *at[PLAN_MAX_RANK];
        for (uint32_t a = 0; a < rank; a++)
            if (!p->paired || a != p->pair_axis) at[a] = tir_index(b, dims[a]);
        if (p->paired) { /* element 2i + 1 - pair: the later element first (rewrite/pack.h) */
            for (uint32_t j = 0; j < rank; j++)
                if (p->order[j] == p->pair_axis) at[p->pair_axis] = tir_index(b, sdims[j]);
            tir_value *twice = ew2(b, TIR_EW_MUL, at[p->pair_axis], tir_const_index(b, 2));
            tir_value *later = ew2(b, TIR_EW_SUB, tir_const_index(b, 1), tir_index(b, sdims[rank]));
            at[p->pair_axis] = ew2(b, TIR_EW_ADD, twice, later);
        }
        tile = tir_map_end(b, map, tir_extract(b, tile, rank, at));
    }
    if (tile && p->elem != tir_value_elem(tile)) tile = tir_cast(b, tile, p->elem); /* widened: exact */
    tir_value *row[PLAN_MAX_RANK + 1];
    row[0] = ew2(b, TIR_EW_MUL, inst, tir_const_index(b, (int64_t)sext[0]));
    for (uint32_t j = 1; j < srank; j++) row[j] = tir_const_index(b, 0);
    tir_store_tile(b, dst, row, tile, TIR_BOUNDS_ASSUME);
}

/* An extent of f's module as pf's: itself, or its form over pf's sizes
 * (false on NOMEM). */
static bool extent_in(const tir_func *f, const tir_func *pf, uint64_t extent, uint64_t scale, uint64_t *out) {
    const tir_form *form = tir_extent_form(f->module, extent);
    if (!form) return *out = extent * scale, true;
    tir_ival v;
    if (tir_form_translate(pf, form, &v) || tir_ival_scale(pf->module, v, (int64_t)scale, &v)) return false;
    *out = v.form ? tir_form_extent(v.form) : (uint64_t)v.c;
    return true;
}

tir_module *plan_pack_build(tilec_context *ctx, const tir_func *f, const plan_pack *p) {
    tir_module *m = tir_module_create(ctx);
    if (!m) {
        tilec_error(ctx, TILEC_E_NOMEM, "PLAN-M01", tilec_no_loc(), "out of memory building the packing kernel");
        return NULL;
    }
    const tir_value *view = p->load->operands[0]->value;
    const tir_space *vs = view->type->space, *ts = p->load->domain;
    char name[160];
    snprintf(name, sizeof name, "%s_pack_%s", f->name, view->name);
    tir_func *pf = tir_func_new(m, name);
    /* a pack over a runtime size (its first coordinate's extent, its view's):
     * the copy is a kernel of the same sizes, its panels that many tiles */
    bool ok = pf != NULL;
    for (uint32_t i = 0; ok && i < f->sym_count; i++)
        ok = tir_sym_add(pf, f->syms[i]->name, f->syms[i]->lo, f->syms[i]->hi) != NULL;
    uint64_t vext[PLAN_MAX_RANK], pext[PLAN_MAX_RANK + 1], coords[PLAN_PACK_MAX_COORDS], rest = 1;
    for (uint32_t i = 1; i < p->coord_count; i++) rest *= p->extents[i];
    for (uint32_t a = 0; ok && a < vs->rank; a++) {
        ok = extent_in(f, pf, vs->axes[a].extent, 1, &vext[a]);
        pext[a] = ts->axes[p->order[a]].extent / (p->paired && p->order[a] == p->pair_axis ? 2 : 1);
    }
    uint32_t prank = vs->rank;
    if (p->paired) pext[prank++] = 2;
    /* ≤ bytes ≤ UINT32_MAX (plan_pack_decide) */
    ok = ok && (p->coord_count ? extent_in(f, pf, p->extents[0], pext[0] * rest, &pext[0]) : true);
    for (uint32_t i = 0; ok && i < p->coord_count; i++) ok = extent_in(f, pf, p->extents[i], 1, &coords[i]);
    tir_value *src = ok ? tir_func_add_view(pf, "src", view->type->elem, vs->rank, vext, true) : NULL;
    tir_value *dst = src ? tir_func_add_view(pf, "dst", p->elem, prank, pext, false) : NULL;
    tir_builder *b = dst ? tir_builder_create(pf) : NULL;
    tilec_status st = b ? TILEC_OK : TILEC_E_NOMEM;
    if (b) {
        tir_builder_set_loc(b, p->load->loc);
        /* one program per tile; a tile without coordinates is one program */
        tir_dim *dims[PLAN_PACK_MAX_COORDS];
        uint64_t one = 1;
        for (uint32_t i = 0; i < p->coord_count; i++) {
            const tir_value *c = p->coords[i];
            const tir_op *region = c->def_block->parent_op;
            dims[i] = fresh_dim(m, dims, i, region->domain->axes[c->index].dim->label, i);
        }
        if (!p->coord_count) dims[0] = tir_dim_new(m, "tile");
        tir_space *space = p->coord_count ? tir_space_make(m, p->coord_count, dims, coords)
                                          : tir_space_make(m, 1, dims, &one);
        tir_region_opts opts = {.scope = TIR_SCOPE_AUTO};
        tir_op *root = tir_region_begin(b, TIR_OP_PARALLEL, space, &opts, 0, NULL);
        if (root) {
            build_body(b, m, p, root, src, dst);
            tir_region_end(b, root, 0, NULL);
        }
        st = tir_builder_status(b);
        tir_builder_destroy(b);
    }
    if (st) {
        if (st == TILEC_E_NOMEM)
            tilec_error(ctx, TILEC_E_NOMEM, "PLAN-M01", tilec_no_loc(), "out of memory building the packing kernel");
        tir_module_destroy(m);
        return NULL;
    }
    return m;
}
