/* split.c — the partial and combine kernels of a split reduction
 * (plan_split_build; see split.h). */
#include "rewrite/split.h"

#include "tir/builder.h"
#include "tir/clone.h"
#include "tir/form.h"

#include <stdio.h>
#include <string.h>

uint64_t plan_split_carry_bytes(const tir_value *v) {
    uint64_t n = 1;
    if (v->type->space) tir_space_volume(v->type->space, &n);
    return n * tir_scalar_size(v->type->elem);
}

typedef struct {
    tilec_context *ctx;
    const plan_split *s;
    const tir_op **ops; /* the root body's ops */
    bool *needed;       /* which of them the kernel being built copies */
    uint32_t count, reduce_at;
    const tir_func *src;
    tir_module *m;
    tir_clone_map map;
    tir_builder *b;
    tir_value *workspace[PLAN_SPLIT_MAX_CARRIES];
    const tir_space *root_space; /* the source root's domain in the kernel being built */
} rewrite;

/* The op of the root body that contains `user` (itself when it is one). */
static const tir_op *root_level(const tir_op *root, const tir_op *user) {
    while (user && user->parent != root->body) user = user->parent ? user->parent->parent_op : NULL;
    return user;
}

/* Marks, from the last op of the root body back, every op whose results
 * a marked op reads (at any depth): needed[i] for ops[i].  The reduce
 * (ops[skip]) is marked by the caller or not at all: in the combine kernel
 * its results come from the merges. */
static void mark_needed(const tir_op *root, const tir_op *const *ops, uint32_t count, uint32_t skip, bool *needed) {
    for (uint32_t i = count; i-- > 0;)
        for (uint32_t r = 0; i != skip && r < ops[i]->result_count && !needed[i]; r++)
            for (const tir_use *u = ops[i]->results[r]->uses; u && !needed[i]; u = u->next) {
                const tir_op *top = root_level(root, u->user);
                for (uint32_t j = i + 1; j < count && !needed[i]; j++) needed[i] = ops[j] == top && needed[j];
            }
}

/* A constructor returned NULL: make sure the builder's status says so. */
static void failed(rewrite *w, const char *what) {
    if (!tir_builder_status(w->b)) tir_builder_fail(w->b, TILEC_E_NOMEM, "PLAN-M01", "cannot build %s", what);
}

static tir_value *emit_clone(rewrite *w, const tir_op *op) {
    tir_op *c = tir_clone_op(w->b->func, op, &w->map);
    if (!c) {
        tir_builder_fail(w->b, TILEC_E_NOMEM, "PLAN-M01", "out of memory copying op #%u", op->id);
        return NULL;
    }
    tir_builder_emit(w->b, c);
    return c->result_count ? c->results[0] : NULL;
}

/* Carry i's workspace view in f: [P·S·a0, a1, …] for a carry tile
 * [a0, a1, …], [P·S] for a scalar, P the root's programs (a form when a
 * root axis is a runtime size: one at most, pipeline.c). */
static tir_value *workspace_view(rewrite *w, tir_func *f, uint32_t i, bool read_only) {
    const tir_type *t = w->s->reduce->results[i]->type;
    uint32_t rank = t->space ? t->space->rank : 1;
    uint64_t ext[PLAN_MAX_RANK];
    for (uint32_t a = 0; a < rank; a++) ext[a] = t->space ? t->space->axes[a].extent : 1;
    tir_ival rows = tir_ival_const((int64_t)(ext[0] * w->s->chunks));
    for (uint32_t a = 0; a < w->root_space->rank; a++) {
        uint64_t e = w->root_space->axes[a].extent;
        const tir_form *form = tir_extent_form(w->m, e);
        if (form && rows.form) return NULL; /* two sized axes: the planner splits no such root */
        if (form ? tir_ival_scale(w->m, tir_ival_form(form), rows.c, &rows) : tir_ival_scale(w->m, rows, (int64_t)e, &rows))
            return NULL;
    }
    ext[0] = rows.form ? tir_form_extent(rows.form) : (uint64_t)rows.c;
    char name[256];
    snprintf(name, sizeof name, "%s_split%u", w->src->name, i);
    return tir_func_add_view(f, name, t->elem, rank, ext, read_only);
}

/* The kernel's parameters (the source's views, then the workspace views,
 * read-only in the combine kernel) and its root parallel over the source's
 * root axes, plus `split=S` when `chunked`; maps the source's coordinates. */
static tir_op *begin_kernel(rewrite *w, const char *suffix, bool chunked) {
    char name[256];
    snprintf(name, sizeof name, "%s_%s", w->src->name, suffix);
    tir_func *f = tir_func_new(w->m, name);
    if (!f) return NULL;
    for (uint32_t i = 0; i < w->src->sym_count; i++) /* the same runtime sizes, in the same order */
        if (!tir_sym_add(f, w->src->syms[i]->name, w->src->syms[i]->lo, w->src->syms[i]->hi)) return NULL;
    w->map.forms_to = f;
    for (uint32_t i = 0; i < w->src->body->arg_count; i++) {
        const tir_value *p = w->src->body->args[i];
        tir_type *t = tir_clone_type(&w->map, p->type);
        tir_value *q = t ? tir_func_add_param(f, p->name, t, p->read_only) : NULL;
        if (!q) return NULL;
        tir_clone_map_set(&w->map, p, q);
    }
    const tir_op *root = w->s->root;
    if (!(w->root_space = tir_clone_space(&w->map, root->domain))) return NULL;
    for (uint32_t i = 0; i < w->s->reduce->result_count; i++)
        if (!(w->workspace[i] = workspace_view(w, f, i, !chunked))) return NULL;
    if (!(w->b = tir_builder_create(f))) return NULL;
    /* the kernel-level constants and elementwise ops before the root
     * parallel (admission allows no others), which its body may read */
    for (const tir_op *o = w->src->body->first; o != root; o = o->next) emit_clone(w, o);
    tir_builder_set_loc(w->b, root->loc);
    tir_dim *dims[PLAN_MAX_RANK + 1];
    uint64_t ext[PLAN_MAX_RANK + 1];
    uint32_t rank = root->domain->rank;
    for (uint32_t a = 0; a < rank; a++) {
        dims[a] = w->root_space->axes[a].dim;
        ext[a] = w->root_space->axes[a].extent;
    }
    if (chunked) {
        dims[rank] = tir_dim_new(w->m, "split");
        ext[rank++] = w->s->chunks;
    }
    tir_space *space = tir_space_make(w->m, rank, dims, ext);
    tir_region_opts opts = {.scope = root->scope};
    tir_op *r = space ? tir_region_begin(w->b, TIR_OP_PARALLEL, space, &opts, 0, NULL) : NULL;
    for (uint32_t a = 0; r && a < root->domain->rank; a++) tir_clone_map_set(&w->map, root->body->args[a], tir_region_coord(r, a));
    return r;
}

/* An extent of ival v. */
static uint64_t ival_extent(tir_ival v) { return v.form ? tir_form_extent(v.form) : (uint64_t)v.c; }

/* How the reduce's trips are shared, in the function being built: each
 * chunk runs `chunk` trips from s·chunk, the first `rest` chunks one more,
 * trip S·chunk + s, and the combine kernel's tail the `tail` trips from
 * S·chunk, merged last.  The r trips past S·chunk are the rest when the
 * reduce is unordered_tree (any order; each chunk then takes at most one,
 * so no program folds them alone after the others), else the tail (the
 * chunks stay consecutive and in order).  Static trips: chunk = n / S,
 * r = n − S·chunk.  Trips a runtime size's form n: chunk = n / S, or for
 * ceil_div(A, k) (blocks of k over A, the last one partial) (A / k) / S,
 * the full blocks only, so every chunk's loop is proven inside A
 * (lower/bounds.c) and the partial block is among the r (at most S; an
 * extra trip or the tail keeps its guards).  A chunk of no trips yields the
 * reduce's initial carries, which the merge folds in as the static split
 * folds every chunk's start. */
typedef struct {
    tir_ival chunk, rest, tail;
} sharing;

static bool chunking(rewrite *w, sharing *out) {
    const tir_form *n = tir_extent_form(w->src->module, w->s->reduce->domain->axes[0].extent);
    uint64_t S = w->s->chunks;
    bool spread = w->s->spread;
    tir_ival r = tir_ival_const((int64_t)w->s->tail_trips);
    out->chunk = tir_ival_const((int64_t)w->s->chunk_trips);
    tir_form_status st = TIR_FORM_OK;
    if (n) {
        tir_ival t, whole, done;
        st = tir_form_translate(w->b->func, n, &t);
        whole = t;
        if (!st && tir_form_is_blocks(n)) st = tir_ival_divide(w->m, t.form->a, '/', t.form->c, &whole);
        if (!st) st = tir_ival_divide(w->m, whole, '/', (int64_t)S, &out->chunk);
        if (!st) st = tir_ival_scale(w->m, out->chunk, -(int64_t)S, &done);
        if (!st) st = tir_ival_add(w->m, t, done, &r);
    }
    out->rest = spread ? r : tir_ival_const(0);
    out->tail = spread ? tir_ival_const(0) : r;
    if (st) failed(w, "the chunks' trips");
    return !st;
}

/* lin(program) · S: the first workspace slot of this program. */
static tir_value *first_slot(rewrite *w, tir_op *r) {
    tir_value *lin = tir_const_index(w->b, 0);
    for (uint32_t a = 0; a < w->root_space->rank; a++) {
        uint64_t e = w->root_space->axes[a].extent;
        const tir_form *form = tir_extent_form(w->m, e);
        tir_value *extent = form ? tir_const_index_ival(w->b, form, 0) : tir_const_index(w->b, (int64_t)e);
        lin = tir_ew2(w->b, TIR_EW_ADD, tir_ew2(w->b, TIR_EW_MUL, lin, extent), tir_region_coord(r, a));
    }
    return tir_ew2(w->b, TIR_EW_MUL, lin, tir_const_index(w->b, w->s->chunks));
}

/* The origin of slot `slot` in carry i's workspace view. */
static void slot_origin(rewrite *w, uint32_t i, tir_value *slot, tir_value **origin, uint32_t *rank) {
    const tir_type *t = w->s->reduce->results[i]->type;
    *rank = t->space ? t->space->rank : 1;
    origin[0] = t->space ? tir_ew2(w->b, TIR_EW_MUL, slot, tir_const_index(w->b, (int64_t)t->space->axes[0].extent)) : slot;
    for (uint32_t a = 1; a < *rank; a++) origin[a] = tir_const_index(w->b, 0);
}

static void load_state(rewrite *w, tir_value *slot, tir_value **state) {
    for (uint32_t i = 0; i < w->s->reduce->result_count; i++) {
        tir_value *origin[PLAN_MAX_RANK];
        uint32_t rank;
        slot_origin(w, i, slot, origin, &rank);
        const tir_type *t = w->s->reduce->results[i]->type;
        state[i] = t->space ? tir_load_tile(w->b, w->workspace[i], origin, tir_clone_space(&w->map, t->space),
                                            TIR_BOUNDS_ASSUME, NULL)
                            : tir_load_elem(w->b, w->workspace[i], origin, NULL, NULL);
    }
}

/* The reduce over first-axis trips [base, base + trips), from the carries
 * `from` (NULL: the reduce's initial carries, mapped); its results in `out`. */
static void emit_chunk(rewrite *w, tir_value *base, uint64_t trips, tir_value *const *from, tir_value **out) {
    const tir_op *red = w->s->reduce;
    tir_dim *dims[PLAN_MAX_RANK];
    uint64_t ext[PLAN_MAX_RANK];
    for (uint32_t a = 0; a < red->domain->rank; a++) {
        dims[a] = tir_clone_dim(&w->map, red->domain->axes[a].dim);
        ext[a] = a ? red->domain->axes[a].extent : trips;
    }
    tir_space *space = tir_space_make(w->m, red->domain->rank, dims, ext);
    uint32_t k = red->result_count;
    tir_value *init[PLAN_SPLIT_MAX_CARRIES], *yields[PLAN_SPLIT_MAX_CARRIES];
    for (uint32_t i = 0; i < k; i++) init[i] = from ? from[i] : tir_clone_map_get(&w->map, red->operands[i]->value);
    tir_region_opts opts = {.policy = red->policy};
    tir_op *r = space ? tir_region_begin(w->b, TIR_OP_REDUCE, space, &opts, k, init) : NULL;
    if (!r) {
        failed(w, "a chunk's reduce");
        for (uint32_t i = 0; i < k; i++) out[i] = NULL;
        return;
    }
    const tir_block *body = red->body;
    tir_clone_map_set(&w->map, body->args[0], tir_ew2(w->b, TIR_EW_ADD, tir_region_coord(r, 0), base));
    for (uint32_t a = 1; a < red->domain->rank; a++) tir_clone_map_set(&w->map, body->args[a], tir_region_coord(r, a));
    for (uint32_t i = 0; i < k; i++) tir_clone_map_set(&w->map, body->args[red->domain->rank + i], tir_region_carry(r, i));
    for (const tir_op *o = body->first; o && o->kind != TIR_OP_YIELD; o = o->next) emit_clone(w, o);
    for (uint32_t i = 0; i < k; i++) yields[i] = tir_clone_map_get(&w->map, body->last->operands[i]->value);
    tir_region_end(w->b, r, k, yields);
    for (uint32_t i = 0; i < k; i++) out[i] = r->results[i];
}

/* state = combine(state, right), the combine block inlined. */
static void emit_merge(rewrite *w, tir_value **state, tir_value *const *right) {
    const tir_block *cb = w->s->reduce->combine;
    uint32_t k = w->s->reduce->result_count;
    for (uint32_t i = 0; i < k; i++) {
        tir_clone_map_set(&w->map, cb->args[i], state[i]);
        tir_clone_map_set(&w->map, cb->args[k + i], right[i]);
    }
    for (const tir_op *o = cb->first; o && o->kind != TIR_OP_YIELD; o = o->next) emit_clone(w, o);
    for (uint32_t i = 0; i < k; i++) state[i] = tir_clone_map_get(&w->map, cb->last->operands[i]->value);
}

/* Copies the root body's ops before the reduce that are marked needed. */
static void emit_prologue(rewrite *w) {
    for (uint32_t i = 0; i < w->reduce_at; i++)
        if (w->needed[i]) emit_clone(w, w->ops[i]);
}

static void build_partial(rewrite *w) {
    tir_op *r = begin_kernel(w, "partial", true);
    if (!r) return;
    uint32_t k = w->s->reduce->result_count;
    /* the whole prologue: a load the reduce does not read may still fault,
     * and the original program would report it (stores are refused) */
    for (uint32_t i = 0; i < w->count; i++) w->needed[i] = i < w->reduce_at;
    emit_prologue(w);
    tir_value *s = tir_region_coord(r, w->s->root->domain->rank), *state[PLAN_SPLIT_MAX_CARRIES];
    sharing sh;
    if (!chunking(w, &sh)) return;
    tir_value *chunk = tir_const_index_ival(w->b, sh.chunk.form, sh.chunk.c);
    emit_chunk(w, tir_ew2(w->b, TIR_EW_MUL, s, chunk), ival_extent(sh.chunk), NULL, state);
    if (sh.rest.form || sh.rest.c) { /* the first `rest` chunks: one more trip, S·chunk + s */
        tir_value *more = tir_ew2(w->b, TIR_EW_LT, s, tir_const_index_ival(w->b, sh.rest.form, sh.rest.c));
        tir_op *one = tir_if_begin(w->b, more, k, state);
        if (!one) return;
        tir_value *carries[PLAN_SPLIT_MAX_CARRIES];
        for (uint32_t i = 0; i < k; i++) carries[i] = tir_region_carry(one, i);
        tir_value *at = tir_ew2(w->b, TIR_EW_ADD, tir_ew2(w->b, TIR_EW_MUL, tir_const_index(w->b, (int64_t)w->s->chunks), chunk), s);
        emit_chunk(w, at, 1, carries, carries);
        tir_region_end(w->b, one, k, carries);
        for (uint32_t i = 0; i < k; i++) state[i] = one->results[i];
    }
    tir_value *slot = tir_ew2(w->b, TIR_EW_ADD, first_slot(w, r), s);
    /* the largest carry first: packet-local programs split the innermost
     * axis of the first store (realize/local.h), which should be the widest
     * state's row (attention's accumulator [.., dv], not its row max) */
    uint32_t order[PLAN_SPLIT_MAX_CARRIES];
    uint64_t size[PLAN_SPLIT_MAX_CARRIES];
    for (uint32_t i = 0; i < k; i++) {
        size[i] = plan_split_carry_bytes(w->s->reduce->results[i]);
        uint32_t j = i;
        for (; j > 0 && size[order[j - 1]] < size[i]; j--) order[j] = order[j - 1];
        order[j] = i;
    }
    for (uint32_t o = 0; o < k && !tir_builder_status(w->b); o++) {
        uint32_t i = order[o];
        tir_value *origin[PLAN_MAX_RANK];
        uint32_t rank;
        slot_origin(w, i, slot, origin, &rank);
        if (state[i]->type->kind == TIR_TYPE_TILE)
            tir_store_tile(w->b, w->workspace[i], origin, state[i], TIR_BOUNDS_ASSUME);
        else
            tir_store_elem(w->b, w->workspace[i], origin, state[i]);
    }
    tir_region_end(w->b, r, 0, NULL);
}

static void build_combine(rewrite *w) {
    tir_op *r = begin_kernel(w, "combine", false);
    if (!r) return;
    const tir_op *red = w->s->reduce;
    uint32_t k = red->result_count;
    for (uint32_t i = 0; i < w->count; i++) w->needed[i] = i > w->reduce_at;
    /* a tail folds the reduce's body from its initial carries */
    w->needed[w->reduce_at] = !w->s->spread && (w->s->tail_trips > 0 || tir_extent_is_symbolic(red->domain->axes[0].extent));
    mark_needed(w->s->root, w->ops, w->count, w->reduce_at, w->needed);
    emit_prologue(w);
    tir_value *first = first_slot(w, r), *state[PLAN_SPLIT_MAX_CARRIES], *right[PLAN_SPLIT_MAX_CARRIES];
    load_state(w, first, state);
    tir_dim *d = tir_dim_new(w->m, "chunk");
    uint64_t merges = w->s->chunks - 1;
    tir_space *space = d ? tir_space_make(w->m, 1, &d, &merges) : NULL;
    tir_region_opts opts = {0};
    tir_op *loop = space ? tir_region_begin(w->b, TIR_OP_SERIAL, space, &opts, k, state) : NULL;
    if (!loop) {
        failed(w, "the merge loop");
        return;
    }
    tir_value *slot = tir_ew2(w->b, TIR_EW_ADD, tir_ew2(w->b, TIR_EW_ADD, first, tir_region_coord(loop, 0)), tir_const_index(w->b, 1));
    load_state(w, slot, right);
    for (uint32_t i = 0; i < k; i++) state[i] = tir_region_carry(loop, i);
    emit_merge(w, state, right);
    tir_region_end(w->b, loop, k, state);
    for (uint32_t i = 0; i < k; i++) state[i] = loop->results[i];
    sharing sh;
    tir_ival at;
    if (!chunking(w, &sh)) return;
    if (sh.tail.form || sh.tail.c) {
        if (tir_ival_scale(w->m, sh.chunk, (int64_t)w->s->chunks, &at)) {
            failed(w, "the tail's start");
            return;
        }
        emit_chunk(w, tir_const_index_ival(w->b, at.form, at.c), ival_extent(sh.tail), NULL, right);
        emit_merge(w, state, right);
    }
    for (uint32_t i = 0; i < k; i++) tir_clone_map_set(&w->map, red->results[i], state[i]);
    for (const tir_op *o = red->next; o && o->kind != TIR_OP_YIELD; o = o->next) emit_clone(w, o);
    tir_region_end(w->b, r, 0, NULL);
}

tir_module *plan_split_build(tilec_context *ctx, const tir_func *f, const plan_split *s) {
    rewrite w = {.ctx = ctx, .s = s, .src = f};
    for (const tir_op *o = s->root->body->first; o; o = o->next) w.count++;
    w.ops = tilec_alloc(ctx, w.count * sizeof *w.ops);
    w.needed = tilec_alloc(ctx, w.count * sizeof *w.needed);
    tilec_status st = TILEC_E_NOMEM;
    if (w.ops && w.needed && (w.m = tir_module_create(ctx)) && tir_clone_map_init(ctx, f, w.m, &w.map)) {
        uint32_t i = 0;
        for (const tir_op *o = s->root->body->first; o; o = o->next, i++) {
            w.ops[i] = o;
            if (o == s->reduce) w.reduce_at = i;
        }
        st = TILEC_OK;
        for (int pass = 0; pass < 2 && !st; pass++) {
            (pass ? build_combine : build_partial)(&w);
            st = w.b ? tir_builder_status(w.b) : TILEC_E_NOMEM;
            tir_builder_destroy(w.b);
            w.b = NULL;
        }
        tir_clone_map_free(&w.map);
    }
    tilec_free(ctx, w.ops);
    tilec_free(ctx, w.needed);
    if (st) {
        if (st == TILEC_E_NOMEM)
            tilec_error(ctx, TILEC_E_NOMEM, "PLAN-M01", tilec_no_loc(), "out of memory building the split kernels");
        tir_module_destroy(w.m);
        return NULL;
    }
    return w.m;
}
