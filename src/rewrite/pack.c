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

/* A scalar integer constant of type t. */
static tir_value *int_const(tir_builder *b, tir_module *m, tir_scalar t, uint64_t v) {
    tir_literal lit = {.kind = TIR_LIT_UINT, .as.u = v};
    return tir_const(b, tir_type_scalar(m, t), lit);
}

/* The tile of `load` (same bounds and fill) at `origin`, over `space` with
 * `strides`, permuted into the storage order `order` (a map extracting from
 * it) unless that is its own. */
static tir_value *load_in_order(tir_builder *b, tir_module *m, const tir_op *load, tir_value *src,
                                tir_value *const *origin, tir_space *space, const uint64_t *strides,
                                const uint32_t *order) {
    uint32_t rank = space->rank;
    tir_value *fill = NULL;
    if (load->has_fill) {
        const tir_value *f = load->operands[load->operand_count - 1]->value;
        fill = tir_const(b, tir_type_scalar(m, tir_value_elem(f)), f->def_op->literal);
    }
    tir_value *tile = tir_load_tile_strided(b, src, origin, space, strides, TIR_BOUNDS_ZERO, fill);
    bool identity = true;
    for (uint32_t j = 0; j < rank; j++) identity = identity && order[j] == j;
    if (identity || !tile) return tile;
    tir_dim *sdims[PLAN_MAX_RANK];
    uint64_t sext[PLAN_MAX_RANK];
    for (uint32_t j = 0; j < rank; j++) {
        sdims[j] = space->axes[order[j]].dim;
        sext[j] = space->axes[order[j]].extent;
    }
    tir_op *map = tir_map_begin(b, tir_space_make(m, rank, sdims, sext), tir_value_elem(tile));
    tir_value *at[PLAN_MAX_RANK];
    for (uint32_t a = 0; a < rank; a++) at[a] = tir_index(b, space->axes[a].dim);
    return tir_map_end(b, map, tir_extract(b, tile, rank, at));
}

/* The body of the copy's one program: load the tile at the original origin
 * (same strides, bounds and fill), reorder it into storage order, cast it to
 * the panels' type, store it at row inst·e(order[0]).  Grouped, the tile is
 * G part tiles along the group axis (its elements G·i + j for each j: G
 * times its stride apart, so each is a vector load), each stored with
 * stride G along the innermost storage axis at position G-1-j (bf16); or,
 * for integers, added into u32 words, part j's bits shifted to bits
 * 8·size·j, and the words stored; integer groups along the innermost
 * storage axis are the tile's elements in order, copied whole
 * (rewrite/pack.h). */
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
    tir_dim *dims[PLAN_MAX_RANK];
    uint64_t ext[PLAN_MAX_RANK], strides[PLAN_MAX_RANK], store_strides[PLAN_MAX_RANK];
    /* integer groups along the innermost storage axis are the tile's own
     * elements in order: copied whole, as an ungrouped pack is */
    bool whole = p->group && plan_pack_copy_type(p) != TIR_U32 && tir_scalar_is_integer(p->elem);
    uint32_t group = p->group && !whole ? p->group : 1, axis = p->group && !whole ? p->group_axis : rank;
    for (uint32_t a = 0; a < rank; a++) {
        dims[a] = fresh_dim(m, dims, a, ts->axes[a].dim->label, a);
        ext[a] = ts->axes[a].extent / (a == axis ? group : 1);
        strides[a] = tir_op_stride(load, a) * (a == axis ? group : 1);
        store_strides[a] = a == rank - 1 ? group : 1;
    }
    tir_space *space = tir_space_make(m, rank, dims, ext);
    tir_value *row[PLAN_MAX_RANK];
    row[0] = ew2(b, TIR_EW_MUL, inst, tir_const_index(b, (int64_t)(ext[p->order[0]] * (rank == 1 ? group : 1))));
    for (uint32_t j = 1; j < rank; j++) row[j] = tir_const_index(b, 0);
    tir_value *at = axis < rank ? origin[axis] : NULL, *last = row[rank - 1]; /* (rank 1: the tile's row) */
    bool words = group > 1 && tir_scalar_is_integer(p->elem);
    tir_value *word = NULL, *sum = NULL;
    if (p->sums) row[0] = ew2(b, TIR_EW_MUL, inst, tir_const_index(b, (int64_t)ext[p->order[0]] + 1));
    for (uint32_t j = 0; j < group; j++) { /* element G·i + j: bf16 at position G-1-j, an integer in bits 8·size·j */
        if (j) origin[axis] = ew2(b, TIR_EW_ADD, at, tir_const_index(b, (int64_t)(j * tir_op_stride(load, axis))));
        tir_value *tile = load_in_order(b, m, load, src, origin, space, strides, p->order);
        if (tile && p->sums) { /* this part's sum over the group axis, in i32 */
            tir_dim *over = space->axes[axis].dim;
            tir_value *part = tir_lib_reduce(b, tir_cast(b, tile, TIR_I32), 1, &over, TIR_REDUCER_ADD,
                                             TIR_REDUCE_UNORDERED_TREE);
            sum = sum ? ew2(b, TIR_EW_ADD, sum, part) : part;
        }
        if (tile && p->biased) /* + 128: every i8 value as a u8 one, exactly */
            tile = tir_cast(b, ew2(b, TIR_EW_ADD, tir_cast(b, tile, TIR_I32), int_const(b, m, TIR_I32, 128)), TIR_U8);
        if (tile && p->elem != tir_value_elem(tile)) tile = tir_cast(b, tile, p->elem); /* widened: exact */
        if (words && tile) { /* its bits, unsigned, at bits 8·size·j of the word (plan_pack_copy_type) */
            tir_scalar bits = tir_scalar_size(p->elem) == 1 ? TIR_U8 : TIR_U16;
            tile = tir_cast(b, tir_cast(b, tile, bits), TIR_U32); /* wraps, then widens: the element's bits */
            uint64_t scale = 1ull << (8 * tir_scalar_size(p->elem) * j);
            if (scale != 1) tile = ew2(b, TIR_EW_MUL, tile, int_const(b, m, TIR_U32, scale));
            word = word ? ew2(b, TIR_EW_ADD, word, tile) : tile; /* the bits do not overlap: exact */
            continue;
        }
        row[rank - 1] = j + 1 == group ? last : ew2(b, TIR_EW_ADD, last, tir_const_index(b, (int64_t)(group - 1 - j)));
        tir_store_tile_strided(b, dst, row, tile, store_strides, TIR_BOUNDS_ASSUME);
    }
    if (word) tir_store_tile(b, dst, row, word, TIR_BOUNDS_ASSUME);
    if (sum) { /* 128 · the sums, as the words of one more row (rewrite/pack.h) */
        tir_value *scaled = tir_cast(b, ew2(b, TIR_EW_MUL, sum, int_const(b, m, TIR_I32, 128)), TIR_U32);
        tir_dim *row_dims[2] = {tir_dim_new(m, "sums"), space->axes[p->order[1]].dim}; /* [1, the other axis] */
        uint64_t row_ext[2] = {1, space->axes[p->order[1]].extent};
        scaled = tir_lib_broadcast_to(b, scaled, tir_space_make(m, 2, row_dims, row_ext));
        row[0] = ew2(b, TIR_EW_ADD, row[0], tir_const_index(b, (int64_t)ext[p->order[0]]));
        tir_store_tile(b, dst, row, scaled, TIR_BOUNDS_ASSUME);
    }
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
    uint64_t vext[PLAN_MAX_RANK], pext[PLAN_MAX_RANK], coords[PLAN_PACK_MAX_COORDS], rest = 1;
    for (uint32_t i = 1; i < p->coord_count; i++) rest *= p->extents[i];
    for (uint32_t a = 0; ok && a < vs->rank; a++) {
        ok = extent_in(f, pf, vs->axes[a].extent, 1, &vext[a]);
        pext[a] = ts->axes[p->order[a]].extent / (p->group && p->order[a] == p->group_axis ? p->group : 1);
    }
    if (p->group && plan_pack_copy_type(p) != TIR_U32) pext[vs->rank - 1] *= p->group; /* a group's elements, innermost */
    if (p->sums) pext[0] += 1; /* the sums' row after each tile */
    /* ≤ bytes ≤ UINT32_MAX (plan_pack_decide) */
    ok = ok && (p->coord_count ? extent_in(f, pf, p->extents[0], pext[0] * rest, &pext[0]) : true);
    for (uint32_t i = 0; ok && i < p->coord_count; i++) ok = extent_in(f, pf, p->extents[i], 1, &coords[i]);
    tir_value *src = ok ? tir_func_add_view(pf, "src", view->type->elem, vs->rank, vext, true) : NULL;
    tir_value *dst = src ? tir_func_add_view(pf, "dst", plan_pack_copy_type(p), vs->rank, pext, false) : NULL;
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
