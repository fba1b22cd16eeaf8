/* pack.c — which tile loads are packed (plan_pack_decide; see pack.h).
 * The copy kernel is rewrite/pack.c's. */
#include "plan/pack.h"

#include "plan/affine.h"
#include "plan/target.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Writes the decision (or a refusal) into `why`; returns `ok`. */
static bool say(char *why, size_t size, bool ok, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static bool say(char *why, size_t size, bool ok, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, size, fmt, ap);
    va_end(ap);
    return ok;
}

/* ---- the walk: coordinates in scope, stores seen so far ---- */

enum { WALK_MAX = 8 }; /* qualifying loads considered */

typedef struct {
    const tir_func *f;
    const tir_op *root;
    const plan_local *local;
    uint32_t inner_axis;          /* innermost nonunit root axis of the plan's order; rank: none */
    const tir_value *scope[PLAN_PACK_MAX_COORDS * 4];
    uint64_t scope_extent[PLAN_PACK_MAX_COORDS * 4];
    uint32_t scope_len;
    bool store_before;            /* a store precedes the current top-level op or is inside it */
    plan_pack found[WALK_MAX];    /* the loads that qualify, in program order */
    uint32_t found_count;
    const tir_op *mmas[WALK_MAX]; /* the mma ops, in program order */
    uint32_t mma_count;
    char refused[256];            /* why the others did not, "; "-separated */
} walker;

static int scope_index(const walker *w, const tir_value *v) {
    for (uint32_t i = 0; i < w->scope_len; i++)
        if (w->scope[i] == v) return (int)i;
    return -1;
}

/* Whether the tile is one contiguous run of its view: unit axes, then at
 * most one partial axis, then whole axes. */
static bool contiguous(const tir_space *tile, const tir_space *view) {
    uint32_t a = 0;
    while (a < tile->rank && tile->axes[a].extent == 1) a++;
    for (a++; a < tile->rank; a++)
        if (tile->axes[a].extent != view->axes[a].extent) return false;
    return true;
}

/* The accumulator type every user of `load` (an mma operand a or b, each
 * with the same float accumulator) converts it to, when it is f16/bf16;
 * else its own type. */
static tir_scalar widened_elem(const tir_op *load) {
    const tir_value *v = load->results[0];
    tir_scalar e = tir_value_elem(v), to = e;
    if (e != TIR_F16 && e != TIR_BF16) return e;
    for (const tir_use *u = v->uses; u; u = u->next) {
        if (u->user->kind != TIR_OP_MMA || u->index >= 2) return e;
        tir_scalar c = tir_value_elem(u->user->results[0]);
        if (c != TIR_F32 && c != TIR_F64) return e;
        if (to != e && c != to) return e;
        to = c;
    }
    return to;
}

#define REFUSE(...) say(why, size, false, __VA_ARGS__)

/* Fills p for `op` or says in `why` why it cannot be packed. */
static bool qualify(walker *w, const tir_op *op, plan_pack *p, char *why, size_t size) {
    memset(p, 0, sizeof *p);
    p->load = op;
    const tir_value *view = op->operands[0]->value;
    const tir_space *vs = view->type->space, *ts = op->domain;
    p->param = view->index;
    p->elem = tir_value_elem(view);
    if (!view->read_only) return REFUSE("'%%%s' is writable", view->name);
    if (op->bounds != TIR_BOUNDS_ZERO) return REFUSE("the load of '%%%s' is bounds=assume", view->name);
    if (op->has_fill && !(op->operands[op->operand_count - 1]->value->def_op &&
                          op->operands[op->operand_count - 1]->value->def_op->kind == TIR_OP_CONSTANT))
        return REFUSE("the fill of '%%%s' is not a constant", view->name);
    if (w->store_before) return REFUSE("a store precedes the load of '%%%s'", view->name);
    p->contiguous = !op->strides && contiguous(ts, vs);
    bool used[PLAN_PACK_MAX_COORDS * 4] = {false};
    for (uint32_t a = 0; a < vs->rank; a++) {
        plan_affine x;
        if (!plan_affine_of(op->operands[1 + a]->value, &x) || x.count > 1)
            return REFUSE("origin %u of '%%%s' is not c*s+o over one coordinate", a, view->name);
        int i = x.count ? scope_index(w, x.coord[0]) : -1;
        if (x.count && (i < 0 || used[i]))
            return REFUSE("origin %u of '%%%s' is not c*s+o over one coordinate", a, view->name);
        if (i >= 0) used[i] = true;
        p->coord_of[a] = i; /* scope index for now */
        p->scale[a] = x.count ? x.scale[0] : 0;
        p->offset[a] = x.offset;
    }
    /* coordinates used, in scope order (root axes, then loops outer → inner) */
    int32_t renumber[PLAN_PACK_MAX_COORDS * 4];
    p->instances = 1;
    p->reuse = 1;
    for (uint32_t i = 0; i < w->scope_len; i++) {
        renumber[i] = -1;
        bool root = i < w->root->domain->rank;
        if (!used[i]) {
            if (root) p->reuse *= w->scope_extent[i];
            continue;
        }
        if (root && i == w->inner_axis) p->inner = true;
        if (p->coord_count == PLAN_PACK_MAX_COORDS)
            return REFUSE("'%%%s' depends on more than %d coordinates", view->name, PLAN_PACK_MAX_COORDS);
        renumber[i] = (int32_t)p->coord_count;
        p->coords[p->coord_count] = w->scope[i];
        p->extents[p->coord_count++] = w->scope_extent[i];
        p->instances *= w->scope_extent[i]; /* ≤ Π of uint32 extents of at most 8 axes: checked below */
    }
    if (!p->instances) return REFUSE("the load of '%%%s' never runs (an empty loop)", view->name);
    for (uint32_t a = 0; a < vs->rank; a++)
        if (p->coord_of[a] >= 0) p->coord_of[a] = renumber[p->coord_of[a]];
    /* storage order: the tile's axes, the distributed one innermost */
    uint32_t n = 0, d = ts->rank;
    for (uint32_t a = 0; a < ts->rank; a++) {
        if (plan_local_is_axis(w->local, &ts->axes[a])) d = a;
        else p->order[n++] = a;
    }
    if (d < ts->rank) p->order[n++] = d;
    uint64_t stride = 1;
    for (uint32_t j = ts->rank; j-- > 0;) {
        p->stride[p->order[j]] = stride;
        stride *= ts->axes[p->order[j]].extent;
    }
    p->tile_elements = stride;
    uint64_t view_bytes = 1;
    for (uint32_t a = 0; a < vs->rank; a++) view_bytes *= vs->axes[a].extent;
    view_bytes *= tir_scalar_size(view->type->elem);
    if (__builtin_mul_overflow(p->instances, p->tile_elements, &p->bytes) ||
        __builtin_mul_overflow(p->bytes, (uint64_t)tir_scalar_size(view->type->elem), &p->bytes) ||
        p->bytes > UINT32_MAX || p->bytes / 8 > view_bytes)
        return REFUSE("the tiles of '%%%s' overlap: packing would copy more than 8x the view", view->name);
    return true;
}

#undef REFUSE

static void walk(walker *w, const tir_block *b, bool top) {
    for (const tir_op *op = b->first; op; op = op->next) {
        if (top && plan_find_store(op)) w->store_before = true;
        if (op->kind == TIR_OP_MMA && w->mma_count < WALK_MAX) w->mmas[w->mma_count++] = op;
        if (op->kind == TIR_OP_VIEW_LOAD && op->domain && w->found_count < WALK_MAX) {
            char why[160];
            if (qualify(w, op, &w->found[w->found_count], why, sizeof why)) w->found_count++;
            else {
                size_t n = strlen(w->refused);
                snprintf(w->refused + n, sizeof w->refused - n, "%s%s", n ? "; " : "", why);
            }
        }
        if ((op->kind == TIR_OP_SERIAL || op->kind == TIR_OP_PIPELINE) &&
            w->scope_len + op->domain->rank <= PLAN_PACK_MAX_COORDS * 4) {
            uint32_t saved = w->scope_len;
            for (uint32_t a = 0; a < op->domain->rank; a++) {
                w->scope[w->scope_len] = op->body->args[a];
                w->scope_extent[w->scope_len++] = op->domain->axes[a].extent;
            }
            walk(w, op->body, false);
            w->scope_len = saved;
        }
    }
}

/* Whether the load's value keeps no private copy whose size the planner
 * priced in the view's type (SSA without a snapshot, or streamed). */
static bool no_private_copy(const plan_repr *repr, const tir_op *load) {
    if (!repr) return false;
    const plan_value *v = plan_value_of(repr, load->results[0]);
    return (v->form == PLAN_FORM_SSA && !v->snapshot) || v->form == PLAN_FORM_STREAM;
}

/* Appends one clause to the packing's words. */
static void tell(plan_packing *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void tell(plan_packing *out, const char *fmt, ...) {
    size_t n = strlen(out->why);
    if (n && n + 2 < sizeof out->why) n += (size_t)snprintf(out->why + n, sizeof out->why - n, "; ");
    va_list ap;
    va_start(ap, fmt);
    if (n < sizeof out->why) vsnprintf(out->why + n, sizeof out->why - n, fmt, ap);
    va_end(ap);
}

/* ---- groups: the operands of a dot-product mma ---- */

/* The qualifying load defining `v`, when v is a tile without a private copy
 * (the lowering then reads its panels in words where the mma uses it) with
 * one use and each tile read by at least 2 programs; else NULL. */
static plan_pack *dot_operand(walker *w, const plan_repr *repr, const tir_value *v) {
    if (!v->uses || v->uses->next || !repr) return NULL;
    for (uint32_t i = 0; i < w->found_count; i++)
        if (w->found[i].load == v->def_op && w->found[i].reuse >= 2 && no_private_copy(repr, v->def_op))
            return &w->found[i];
    return NULL;
}

/* The dot an mma of operands a, b into c can run on a host with `dots`
 * (plan/pack.h): the group size G (0: none) and A's panels' element type:
 * bf16 pairs into f32 (reassociable: the dot flushes subnormals), u8 × i8
 * quads into i32, i8 × i8 quads with A biased to u8 and B's sums subtracted
 * (rewrite/pack.h), and u8 × u8 as i16 pairs (exact: integer sums wrap the
 * same in any grouping). */
static uint32_t dot_group(const tir_op *mma, uint32_t dots, tir_scalar *elem) {
    tir_scalar a = tir_value_elem(mma->operands[0]->value), b = tir_value_elem(mma->operands[1]->value);
    tir_scalar c = tir_value_elem(mma->results[0]);
    bool bytes = (a == TIR_I8 || a == TIR_U8) && (b == TIR_I8 || b == TIR_U8);
    if ((dots & PLAN_DOT_BF16) && a == TIR_BF16 && b == TIR_BF16 && c == TIR_F32 && mma->allow_reassociation)
        return *elem = TIR_BF16, 2;
    if (!(dots & PLAN_DOT_INT8) || !bytes || c != TIR_I32) return 0;
    if (a != b || a == TIR_I8) return *elem = a == TIR_I8 && b == TIR_I8 ? TIR_U8 : a, 4; /* i8 × i8: A biased (pack.h) */
    return *elem = TIR_I16, 2;
}

/* Lays p out in groups of G along tile axis `axis` (pack.h): the other axes
 * in tile order, the group axis, the distributed one, a group's elements;
 * its panels of `elem`. */
static void lay_out_groups(plan_pack *p, const plan_local *local, uint32_t axis, uint32_t group, tir_scalar elem) {
    const tir_space *ts = p->load->domain;
    uint32_t n = 0, d = ts->rank;
    for (uint32_t a = 0; a < ts->rank; a++) {
        if (plan_local_is_axis(local, &ts->axes[a])) d = a;
        else if (a != axis) p->order[n++] = a;
    }
    p->order[n++] = axis;
    if (d < ts->rank) p->order[n++] = d;
    uint64_t stride = group;
    for (uint32_t j = ts->rank; j-- > 0;) {
        uint32_t a = p->order[j];
        p->stride[a] = stride;
        stride *= a == axis ? ts->axes[a].extent / group : ts->axes[a].extent;
    }
    p->bytes = p->bytes / tir_scalar_size(p->elem) * tir_scalar_size(elem);
    p->elem = elem;
    p->group = group;
    p->group_axis = axis;
}

/* Whether the tile load defining v, an mma operand contracting `k`, can be
 * read in place in words of G elements of its view (`out` filled): one use
 * (streamed), no private copy, k its view's innermost axis, of a static
 * extent G divides, walked at stride 1 from a multiple of G over a multiple
 * of G elements, not distributed, the fill zero.  Each word is then G
 * consecutive elements of one group, all in bounds or none. */
static bool in_place_words(const plan_repr *repr, const plan_local *local, const tir_value *v, const tir_dim *k,
                           uint32_t group, plan_pack *out) {
    const tir_op *load = v->def_op;
    if (!v->uses || v->uses->next || !load || load->kind != TIR_OP_VIEW_LOAD || !load->domain || load->has_fill ||
        !no_private_copy(repr, load))
        return false;
    const tir_space *ts = load->domain, *vs = load->operands[0]->value->type->space;
    uint32_t a = ts->rank - 1;
    plan_affine x;
    if (ts->axes[a].dim != k || tir_extent_is_symbolic(vs->axes[a].extent) || vs->axes[a].extent % group ||
        ts->axes[a].extent % group || tir_op_stride(load, a) != 1 || plan_local_is_axis(local, &ts->axes[a]) ||
        !plan_affine_of(load->operands[1 + a]->value, &x) || x.offset % group)
        return false;
    for (uint32_t t = 0; t < x.count; t++)
        if (x.scale[t] % (int64_t)group) return false;
    *out = (plan_pack){.load = load, .param = load->operands[0]->value->index, .elem = tir_value_elem(v),
                       .group = group, .group_axis = a};
    return true;
}

/* Groups both operands of every mma that a dot product can run (docs/
 * lowering.md "Dot products"; dot_group): packet-local with the
 * distributed dim among the outputs, one contracted dim whose extent G
 * divides, and either both operands loads that qualify (dot_operand),
 * panels within the bytes a pack may hold, or (u8 × i8 quads, no bias)
 * both read in place (in_place_words).  Returns how many mmas were grouped
 * into panels. */
static uint32_t group_dot_operands(walker *w, const plan_repr *repr, const plan_local *local, uint32_t dots,
                                   plan_packing *out) {
    uint32_t grouped = 0;
    for (uint32_t i = 0; i < w->mma_count && local && 2 * (grouped + 1) <= PLAN_MAX_PACKS; i++) {
        const tir_op *mma = w->mmas[i];
        const tir_space *sa = mma->operands[0]->value->type->space, *sc = mma->results[0]->type->space;
        plan_pack *pa = dot_operand(w, repr, mma->operands[0]->value);
        plan_pack *pb = dot_operand(w, repr, mma->operands[1]->value);
        tir_scalar elem[2] = {TIR_BF16, TIR_BF16};
        uint32_t group = dot_group(mma, dots, &elem[0]);
        elem[1] = group == 4 ? tir_value_elem(mma->operands[1]->value) : elem[0];
        bool distributed = false;
        for (uint32_t a = 0; a < sc->rank; a++) distributed = distributed || plan_local_is_axis(local, &sc->axes[a]);
        const tir_dim *k = NULL;
        uint32_t contracted = 0;
        for (uint32_t a = 0; a < sa->rank; a++)
            if (tir_space_find(sc, sa->axes[a].dim) < 0) contracted++, k = sa->axes[a].dim;
        if (!group || !distributed || contracted != 1) continue;
        if ((!pa || !pb || pa == pb) && group == 4 && elem[0] == tir_value_elem(mma->operands[0]->value) &&
            elem[0] != elem[1] && out->word_count + 2 <= 2 * PLAN_MAX_PACKS &&
            in_place_words(repr, local, mma->operands[0]->value, k, group, &out->words[out->word_count]) &&
            in_place_words(repr, local, mma->operands[1]->value, k, group, &out->words[out->word_count + 1])) {
            const char *a = mma->operands[0]->value->def_op->operands[0]->value->name;
            const char *b = mma->operands[1]->value->def_op->operands[0]->value->name;
            tell(out, "'%%%s' and '%%%s' read in place in words of %u along %s", a, b, group, k->label);
            out->word_count += 2;
            continue;
        }
        if (!pa || !pb || pa == pb) continue;
        bool offset = group == 4 && elem[0] == TIR_U8 && tir_value_elem(mma->operands[0]->value) == TIR_I8;
        int ka = tir_space_find(pa->load->domain, k), kb = tir_space_find(pb->load->domain, k);
        const tir_space *tb = pb->load->domain;
        if (offset && (tb->rank != 2 || kb != 0 || !plan_local_is_axis(local, &tb->axes[1]))) { /* sums: one row */
            group = 2, offset = false;
            elem[0] = elem[1] = TIR_I16;
        }
        if (ka < 0 || kb < 0 || pa->load->domain->axes[ka].extent % group ||
            plan_local_is_axis(local, &pa->load->domain->axes[ka]) ||
            pa->bytes / tir_scalar_size(pa->elem) * tir_scalar_size(elem[0]) > UINT32_MAX ||
            pb->bytes / tir_scalar_size(pb->elem) * tir_scalar_size(elem[1]) + (offset ? pb->instances * 4 * tb->axes[1].extent : 0) >
                UINT32_MAX)
            continue;
        lay_out_groups(pa, local, (uint32_t)ka, group, elem[0]);
        lay_out_groups(pb, local, (uint32_t)kb, group, elem[1]);
        if (offset) {
            pa->biased = true;
            pb->sums = (uint32_t)tb->axes[1].extent;
            pb->bytes += pb->instances * pb->sums * 4;
        }
        grouped++;
    }
    return grouped;
}

/* Whether auto packs the reuse candidate p (else says why not). */
static bool reuse_pays(plan_packing *out, const plan_pack *p, plan_pack_mode mode, uint64_t l2_bytes) {
    const char *name = p->load->operands[0]->value->name;
    if (mode != PLAN_PACK_AUTO) return true;
    if (p->reuse < 4) {
        tell(out, "'%%%s': each tile is read by %llu programs (auto packs from 4)", name, (unsigned long long)p->reuse);
        return false;
    }
    if (p->bytes <= l2_bytes) {
        tell(out, "'%%%s': %llu packed bytes fit the L2 (%llu)", name, (unsigned long long)p->bytes,
             (unsigned long long)l2_bytes);
        return false;
    }
    if (!l2_bytes) {
        tell(out, "'%%%s': the L2 size is unknown", name);
        return false;
    }
    return true;
}

/* Whether auto widens p (else says why not): each tile read by at least 2
 * programs; and a load on the innermost root axis, which every outer
 * program streams again, only while its widened panels stay within 4× the
 * L2 (measured, gemm_bf16 on one thread: widening A gains 1.2× at 1024³ with
 * 4 MiB of panels and loses 1.7× at 4096³ with 64 MiB: twice the bytes of
 * the bf16 rows it replaces, streamed per column of programs). */
static bool widening_pays(plan_packing *out, const plan_pack *p, uint64_t ratio, uint64_t l2_bytes) {
    const char *name = p->load->operands[0]->value->name;
    if (p->reuse < 2) {
        tell(out, "'%%%s': each tile is read by one program", name);
        return false;
    }
    if (p->inner && (!l2_bytes || p->bytes * ratio > 4 * l2_bytes)) {
        tell(out, "'%%%s': %llu widened bytes, re-read by every outer program, exceed 4x the L2 (%llu)", name,
             (unsigned long long)(p->bytes * ratio), (unsigned long long)l2_bytes);
        return false;
    }
    return true;
}

bool plan_pack_decide(const tir_func *f, const plan_admission *admission, const plan_local *local,
                      const uint32_t *order, plan_pack_mode mode, uint64_t l2_bytes, uint32_t dots,
                      const plan_repr *repr, plan_packing *out) {
    memset(out, 0, sizeof *out);
    if (mode == PLAN_PACK_OFF) return say(out->why, sizeof out->why, false, "off");
    const tir_op *root = admission->root;
    if (root->domain->rank > PLAN_PACK_MAX_COORDS * 2)
        return say(out->why, sizeof out->why, false, "root rank above %d", PLAN_PACK_MAX_COORDS * 2);
    walker walked = {.f = f, .root = root, .local = local, .inner_axis = root->domain->rank}, *w = &walked;
    for (uint32_t t = root->domain->rank; t-- > 0;)
        if (root->domain->axes[order[t]].extent > 1) {
            w->inner_axis = order[t];
            break;
        }
    for (uint32_t a = 0; a < root->domain->rank; a++) {
        w->scope[w->scope_len] = root->body->args[a];
        w->scope_extent[w->scope_len++] = root->domain->axes[a].extent;
    }
    walk(w, root->body, true);
    if (w->refused[0] || !w->found_count) tell(out, "%s", w->refused[0] ? w->refused : "no tile load");
    uint32_t grouped_left = dots ? 2 * group_dot_operands(w, repr, local, dots, out) : 0; /* packed first, in program order */
    if (grouped_left) tell(out, "mma operands grouped for dot products");
    bool reused = false; /* the reuse candidate was decided */
    for (uint32_t i = 0; i < w->found_count && out->count < PLAN_MAX_PACKS; i++) {
        plan_pack *p = &w->found[i];
        const char *name = p->load->operands[0]->value->name;
        if (p->group) {
            out->packs[out->count++] = *p;
            grouped_left--;
            tell(out, "'%%%s': %llu tiles of %llu elements (%llu bytes of %s, in groups of %u along %s), each read by "
                 "%llu programs", name, (unsigned long long)p->instances, (unsigned long long)p->tile_elements,
                 (unsigned long long)p->bytes, tir_scalar_name(p->elem), p->group,
                 p->load->domain->axes[p->group_axis].dim->label, (unsigned long long)p->reuse);
            continue;
        }
        if (plan_packing_find_words(out, p->load)) continue; /* read in place, told above */
        if (out->count + grouped_left >= PLAN_MAX_PACKS) {
            tell(out, "'%%%s': the packs are taken by grouped operands", name);
            continue;
        }
        tir_scalar wide = widened_elem(p->load);
        uint64_t ratio = tir_scalar_size(wide) / tir_scalar_size(p->elem);
        bool widenable = wide != p->elem && no_private_copy(repr, p->load) && p->bytes <= UINT32_MAX / ratio;
        bool widen = widenable && (mode == PLAN_PACK_ON || widening_pays(out, p, ratio, l2_bytes));
        bool reuse = !reused && !p->inner && !p->contiguous;
        reused = reused || reuse;
        if (!widen && (p->contiguous || !reuse)) { /* a widenable load's refusal is told already */
            if (!widenable)
                tell(out, p->contiguous ? "the tiles of '%%%s' are already contiguous"
                                        : "'%%%s' depends on the innermost root axis",
                     name);
            continue;
        }
        if (!widen && !reuse_pays(out, p, mode, l2_bytes)) continue;
        if (widen) {
            p->bytes *= ratio;
            p->elem = wide;
        }
        out->packs[out->count++] = *p;
        tell(out, "'%%%s': %llu tiles of %llu elements (%llu bytes%s%s), each read by %llu programs", name,
             (unsigned long long)p->instances, (unsigned long long)p->tile_elements, (unsigned long long)p->bytes,
             widen ? ", widened to " : "", widen ? tir_scalar_name(wide) : "", (unsigned long long)p->reuse);
    }
    return out->count > 0;
}
