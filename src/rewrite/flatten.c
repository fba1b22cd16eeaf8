/* flatten.c — nested root parallels flattened (flatten.h).  The levels
 * are found from the root down; the new kernel is built with the clone
 * map of tir/clone.h, as the split kernels are (split.c). */
#include "rewrite/flatten.h"

#include "rewrite/limits.h"
#include "tir/builder.h"
#include "tir/clone.h"

#include <stdio.h>

enum { MAX_LEVELS = PLAN_MAX_RANK };

static const tir_op *root_parallel(const tir_func *f) {
    for (const tir_op *op = f->body->first; op; op = op->next)
        if (op->kind == TIR_OP_PARALLEL) return op;
    return NULL;
}

/* Work a flattened instance may repeat: cheap, pure, reading only
 * read-only parameters. */
static bool repeatable(const tir_func *f, const tir_op *op) {
    switch (op->kind) {
    case TIR_OP_CONSTANT:
    case TIR_OP_ELEMENTWISE:
    case TIR_OP_EXTRACT: return true;
    case TIR_OP_VIEW_LOAD: {
        const tir_value *view = op->operands[0]->value;
        return view->def_block == f->body && view->read_only;
    }
    default: return false;
    }
}

/* The inner parallel of `outer`'s body: its only parallel, the last op but
 * the yield; NULL when there is none.  *why: what stops flattening it. */
static const tir_op *inner_of(const tir_func *f, const tir_op *outer, const char **why) {
    const tir_op *inner = NULL;
    for (const tir_op *op = outer->body->first; op; op = op->next)
        if (op->kind == TIR_OP_PARALLEL) inner = op;
    if (!inner) return NULL;
    for (const tir_op *op = inner->next; op; op = op->next)
        if (op->kind != TIR_OP_YIELD) *why = "work follows the nested parallel in its parent's body";
    for (const tir_op *op = outer->body->first; op != inner && !*why; op = op->next)
        if (!repeatable(f, op))
            *why = "the work before the nested parallel is not only constants, elementwise ops, extracts and "
                   "loads of read-only parameters (each flat instance would repeat it)";
    if (inner->scope != TIR_SCOPE_AUTO && inner->scope != TIR_SCOPE_WORKER && !*why)
        *why = "the nested parallel's execution binding is not auto or worker";
    return inner;
}

/* The levels root, inner, inner's inner, …; 0 when flattening does not
 * apply, with *why set when there is a nested parallel it cannot take. */
static uint32_t levels(const tir_func *f, const tir_op **level, const char **why) {
    *why = NULL;
    const tir_op *root = root_parallel(f);
    if (!root) return 0;
    uint32_t n = 0, rank = 0;
    for (const tir_op *p = root; p; p = inner_of(f, p, why)) {
        if (n == MAX_LEVELS || (rank += p->domain->rank) > PLAN_MAX_RANK) {
            *why = "the flat domain would have too many axes";
            return 0;
        }
        level[n++] = p;
        if (*why) break;
    }
    if (n < 2) return 0;
    if (*why) return 0;
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = a; b < n; b++)
            for (uint32_t i = 0; i < level[a]->domain->rank; i++)
                for (uint32_t j = a == b ? i + 1 : 0; j < level[b]->domain->rank; j++)
                    if (level[a]->domain->axes[i].dim == level[b]->domain->axes[j].dim) {
                        *why = "a nested parallel reuses a dim of an enclosing one";
                        return 0;
                    }
    return n;
}

bool plan_flatten_applies(const tir_func *f) {
    const tir_op *level[MAX_LEVELS];
    const char *why;
    return levels(f, level, &why) > 0;
}

const char *plan_flatten_why(const tir_func *f) {
    const tir_op *level[MAX_LEVELS];
    const char *why;
    return levels(f, level, &why) ? NULL : why;
}

typedef struct {
    tir_builder *b;
    tir_clone_map map;
} rewrite;

static void emit_clone(rewrite *w, const tir_op *op) {
    tir_op *c = tir_clone_op(w->b->func, op, &w->map);
    if (c) tir_builder_emit(w->b, c);
    else tir_builder_fail(w->b, TILEC_E_NOMEM, "PLAN-M01", "out of memory copying op #%u", op->id);
}

static void build(rewrite *w, tir_module *m, const tir_func *f, const tir_op *const *level, uint32_t n) {
    tir_func *g = tir_func_new(m, f->name);
    for (uint32_t i = 0; g && i < f->body->arg_count; i++) {
        const tir_value *p = f->body->args[i];
        tir_type *t = tir_clone_type(&w->map, p->type);
        tir_value *q = t ? tir_func_add_param(g, p->name, t, p->read_only) : NULL;
        if (!q) return;
        tir_clone_map_set(&w->map, p, q);
    }
    if (!g || !(w->b = tir_builder_create(g))) return;
    for (const tir_op *o = f->body->first; o != level[0]; o = o->next) emit_clone(w, o);
    tir_dim *dims[PLAN_MAX_RANK];
    uint64_t ext[PLAN_MAX_RANK];
    uint32_t rank = 0;
    for (uint32_t l = 0; l < n; l++)
        for (uint32_t a = 0; a < level[l]->domain->rank; a++, rank++) {
            dims[rank] = tir_clone_dim(&w->map, level[l]->domain->axes[a].dim);
            ext[rank] = level[l]->domain->axes[a].extent;
            if (!dims[rank]) return;
        }
    tir_builder_set_loc(w->b, level[0]->loc);
    tir_space *space = tir_space_make(m, rank, dims, ext);
    tir_region_opts opts = {.scope = level[0]->scope};
    tir_op *r = space ? tir_region_begin(w->b, TIR_OP_PARALLEL, space, &opts, 0, NULL) : NULL;
    if (!r) return;
    rank = 0;
    for (uint32_t l = 0; l < n; l++)
        for (uint32_t a = 0; a < level[l]->domain->rank; a++)
            tir_clone_map_set(&w->map, level[l]->body->args[a], tir_region_coord(r, rank++));
    for (uint32_t l = 0; l < n; l++)
        for (const tir_op *o = level[l]->body->first; o && o != (l + 1 < n ? level[l + 1] : NULL); o = o->next)
            if (o->kind != TIR_OP_YIELD) emit_clone(w, o);
    tir_region_end(w->b, r, 0, NULL);
}

tir_module *plan_flatten_build(tilec_context *ctx, const tir_func *f) {
    const tir_op *level[MAX_LEVELS];
    const char *why;
    uint32_t n = levels(f, level, &why);
    rewrite w = {0};
    tir_module *m = n ? tir_module_create(ctx) : NULL;
    tilec_status st = TILEC_E_NOMEM;
    if (m && tir_clone_map_init(ctx, f, m, &w.map)) {
        build(&w, m, f, level, n);
        st = w.b ? tir_builder_status(w.b) : TILEC_E_NOMEM;
        tir_builder_destroy(w.b);
        tir_clone_map_free(&w.map);
    }
    if (st) {
        if (st == TILEC_E_NOMEM)
            tilec_error(ctx, TILEC_E_NOMEM, "PLAN-M01", tilec_no_loc(), "out of memory flattening '@%s'", f->name);
        tir_module_destroy(m);
        return NULL;
    }
    return m;
}
