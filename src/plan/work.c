/* work.c — work extraction (see work.h).  One walk of the admitted kernel in
 * program order with a repetition factor `rep` (dynamic executions per
 * program); every charge follows the representation plan's decision for the
 * value or op, mirroring what the lowerer emits for it:
 *
 *   arithmetic  one per executed scalar/splat/element operation (constant
 *               scalars fold to nothing), 2·outputs·contraction for mma, the
 *               partial combines of partitioned reductions, 2 per runtime
 *               loop iteration (increment, compare) plus its coordinate
 *               decode, (4 + 3·rank) per runtime-indexed extract, one
 *               address add per view element, and the root decode once
 *               (the math library's calls weigh PLAN_MATH_OPS; a packet-local
 *               butterfly step 3, 7 when the lanes' validity travels with it)
 *   private     one vector access per private array element written (ARRAY
 *               definitions, definition snapshots, carry copies) or read at
 *               a runtime index (ARRAY, snapshot): every lane at the same
 *               slot, interleaved, so one W-wide access; a gather instead
 *               for an extract whose index the lanes may not share; recipes
 *               charge their op and their operands' reads at every element
 *               read; an unrolled mma whose live vectors exceed the
 *               target's registers adds its spills (mma_spills)
 *   view        one access per element, classified by its lane pattern
 *
 * Lane patterns.  The lanes of a packet are W consecutive dispatch ordinals;
 * the root map's host decode of the first packet gives each lane's
 * coordinate offsets on the "varying" root axes (those of the innermost
 * digits the packet spans: at most log2(W) + 1 of them).  A scalar's slope is
 * its derivative with respect to each varying coordinate: integer constants
 * and non-root values 0 (every lane runs the same iteration), a root
 * coordinate 1 on its own axis, add/sub/neg/cast of known slopes, mul by a
 * known constant, any op of slope-0 operands; everything else (extracts,
 * loads, carries) is unknown.  An access's lane offsets are then
 * Σ slope·stride·offset: all 0 on a load → broadcast, exactly ±lane →
 * contiguous, exactly 2·lane → pairs (two contiguous accesses), anything
 * else or unknown → gathered.  Packets are uniform when
 * the innermost digits tile every aligned packet the same way (their
 * cumulative extents divide W until one is a multiple of W); otherwise the
 * view memory is doubled (ragged packets straddle the innermost digits).
 *
 * Packet-local (repr->options.local): a packet is one program, so the work
 * of a packet is one program's work in slot space (every count is a slot
 * count).  The one varying "axis" is the lane: root coordinates are uniform,
 * a coordinate on D has slope 1 (e = W·q + lane), and a tile access moves by
 * the view stride of its D axis per lane (stride 1: contiguous).  Packets are
 * never ragged; each reduction over D adds its butterfly (2 per step, log2 W
 * steps or fewer for short rows, + 2) and
 * the root decode adds the program ordinal and the lane. */
#include "plan/work.h"

#include "base/context.h"
#include "scalar/math_ops.h"

#include <math.h>
#include <string.h>

enum { MAX_VARYING = 12, MAX_LANES = 1024 };

typedef struct {
    bool known, has_value;
    int64_t value;
    double slope[MAX_VARYING]; /* per varying axis */
} slope_info;

typedef struct {
    const plan_repr *r;
    slope_info *slopes; /* by value id */
    uint32_t varying;   /* number of varying axes */
    uint32_t axis[MAX_VARYING];
    uint32_t lanes;                         /* lanes of the first packet: min(W, volume) */
    int64_t (*offset)[MAX_LANES];           /* [varying][lane]: coordinate offset from lane 0 */
    double arith, broadcast, contiguous, gathered, priv, priv_gathered;
    double spills;                          /* of priv: register spill reloads and stores */
    uint32_t registers;                     /* the target's vector registers; 0 unknown */
    uint32_t dots;                          /* the target's dot products (PLAN_DOT_*) */
    uint64_t *roots;                        /* by value id: root axes the value may depend on (bits) */
    bool *broadcast_tile;                   /* by value id: loaded with every lane at one address */
    uint32_t inner;                         /* the innermost root digit's axis; 64: none */
    uint32_t packet_width;
    uint64_t reuse_capacity;                /* the L2: larger panels earn no reuse; 0 unknown: none do */
    double reused;                          /* bytes of loads the next program reads again */
} walker;

/* A runtime loop over s (in slot space when packet-local) executed `rep`
 * times: increment + compare + the coordinate decode of the flat index (a
 * div and a mod per non-unit axis, except the div by 1 and the mod of the
 * leading axis). */
static void runtime_traversal(walker *w, const tir_space *s, double rep) {
    const plan_local *local = w->r->options.local;
    uint32_t nonunit = 0;
    for (uint32_t i = 0; i < s->rank; i++) nonunit += plan_local_extent(local, &s->axes[i]) != 1;
    double decode = nonunit ? 2.0 * (nonunit - 1) : 0;
    w->arith += rep * (double)plan_local_volume(local, s) * (2 + decode);
}

static void snapshot(walker *w, const tir_value *v, double rep) {
    const plan_value *pv = plan_value_of(w->r, v);
    if (pv->snapshot) w->priv += rep * (double)pv->count;
}

static bool view_charge(walker *w, const tir_op *op, double times);

/* Operations one elementwise op costs per element: a math-library call
 * (scalar/math_ops.h's SLEEF functions, and sigmoid's exp: a SLEEF u10
 * polynomial of some 20-40 instructions per packet) PLAN_MATH_OPS, rsqrt's
 * sqrt and divide 2, everything else one. */
static double ew_ops(const tir_op *op) {
    switch (op->ew) {
#define CALL(e, dbl, flt, stem) case TIR_EW_##e:
        TIR_SLEEF_MATH1(CALL) TIR_SLEEF_MATH2(CALL)
#undef CALL
    case TIR_EW_SIGMOID: return PLAN_MATH_OPS;
    case TIR_EW_RSQRT: return 2;
    default: return 1;
    }
}

/* `times` reads of elements of v at constant (runtime = false) or runtime
 * flat indices, as lw_read realizes them. */
static void read_elements(walker *w, const tir_value *v, bool runtime, double times) {
    if (v->type->kind != TIR_TYPE_TILE || times == 0) return;
    const plan_value *pv = plan_value_of(w->r, v);
    switch (pv->form) {
    case PLAN_FORM_SSA:
        if (runtime && pv->count > 1) w->priv += times; /* the definition snapshot */
        break;
    case PLAN_FORM_ARRAY: w->priv += times; break;
    case PLAN_FORM_RECIPE: {
        const tir_op *op = v->def_op;
        if (op->kind == TIR_OP_MAP) { /* a coordinate map's body */
            w->arith += times * pv->ops;
            break;
        }
        w->arith += times * ew_ops(op);
        for (uint32_t i = 0; i < op->operand_count; i++) read_elements(w, op->operands[i]->value, runtime, times);
        break;
    }
    case PLAN_FORM_STREAM: /* a view read and its address */
        view_charge(w, v->def_op, times);
        w->arith += times;
        break;
    default: break; /* scalars and splats are SSA values */
    }
}

/* ---- slopes ---- */

static slope_info *slope_of(walker *w, const tir_value *v) { return &w->slopes[v->id]; }

static void set_uniform(walker *w, const tir_value *v) { *slope_of(w, v) = (slope_info){.known = true}; }

static bool uniform(const walker *w, const slope_info *s) {
    if (!s->known) return false;
    for (uint32_t v = 0; v < w->varying; v++)
        if (s->slope[v] != 0) return false;
    return true;
}

static void slope_constant(walker *w, const tir_op *op) {
    const tir_value *res = op->results[0];
    if (res->type->kind == TIR_TYPE_TILE) return;
    slope_info *s = slope_of(w, res);
    *s = (slope_info){.known = true};
    if (op->literal.kind == TIR_LIT_INT) s->has_value = true, s->value = op->literal.as.i;
    if (op->literal.kind == TIR_LIT_UINT && op->literal.as.u <= INT64_MAX) s->has_value = true, s->value = (int64_t)op->literal.as.u;
    if (op->literal.kind == TIR_LIT_BOOL) s->has_value = true, s->value = op->literal.as.b;
}

/* out = a·x + b·y per varying axis. */
static void combine(walker *w, slope_info *out, double a, const slope_info *x, double b, const slope_info *y) {
    out->known = true;
    for (uint32_t v = 0; v < w->varying; v++) out->slope[v] = a * x->slope[v] + b * y->slope[v];
}

static void slope_elementwise(walker *w, const tir_op *op) {
    const tir_value *res = op->results[0];
    if (res->type->kind == TIR_TYPE_TILE) return;
    const slope_info *x = slope_of(w, op->operands[0]->value);
    const slope_info *y = op->operand_count > 1 ? slope_of(w, op->operands[1]->value) : x;
    bool all_uniform = true;
    for (uint32_t i = 0; i < op->operand_count; i++) all_uniform = all_uniform && uniform(w, slope_of(w, op->operands[i]->value));
    slope_info *out = slope_of(w, res);
    if (all_uniform) {
        set_uniform(w, res);
        return;
    }
    if (!x->known || !y->known) return;
    switch (op->ew) {
    case TIR_EW_ADD: combine(w, out, 1, x, 1, y); break;
    case TIR_EW_SUB: combine(w, out, 1, x, -1, y); break;
    case TIR_EW_NEG: combine(w, out, -1, x, 0, x); break;
    case TIR_EW_CAST: combine(w, out, 1, x, 0, x); break;
    case TIR_EW_MUL:
        if (x->has_value) combine(w, out, (double)x->value, y, 0, y);
        else if (y->has_value) combine(w, out, (double)y->value, x, 0, x);
        break;
    default: break;
    }
}

/* Packet-local, on a target with int8 dot products: 4 when a load's
 * innermost axis is a dot product's word (the lanes then read consecutive
 * words in place, plan/pack.h), else 0. */
static uint64_t dot_word(const walker *w, const tir_op *op) {
    bool words = w->r->options.local && (w->dots & PLAN_DOT_INT8) && op->kind == TIR_OP_VIEW_LOAD && op->domain &&
                 plan_local_dot_word_axis(op, op->domain->rank - 1);
    return words ? 4 : 0;
}

/* One view access of `op` (load or store, tile or scalar), `times` times;
 * true when it is a broadcast load (every lane at one address). */
static bool view_charge(walker *w, const tir_op *op, double times) {
    const tir_space *view = op->operands[0]->value->type->space;
    double slope[MAX_VARYING] = {0}, stride = 1;
    bool known = true;
    for (uint32_t a = view->rank; a-- > 0 && known;) {
        const slope_info *s = slope_of(w, op->operands[1 + a]->value);
        known = s->known;
        for (uint32_t v = 0; known && v < w->varying; v++) slope[v] += s->slope[v] * stride;
        if (op->domain && plan_local_is_axis(w->r->options.local, &op->domain->axes[a]))
            slope[0] += stride * (double)tir_op_stride(op, a); /* the lane's element moves along D */
        stride *= (double)view->axes[a].extent;
    }
    uint64_t word = dot_word(w, op);
    bool zero = known, up = known, down = known, pairs = known && w->lanes > 1, words = known && word;
    for (uint32_t l = 0; known && l < w->lanes; l++) {
        double offset = 0;
        for (uint32_t v = 0; v < w->varying; v++) offset += slope[v] * (double)w->offset[v][l];
        zero = zero && offset == 0;
        up = up && offset == l;
        down = down && offset == -(double)l;
        pairs = pairs && offset == 2.0 * l;
        words = words && offset == (double)(word * l);
    }
    if (words) w->contiguous += times / (double)word;
    else if (zero && op->kind == TIR_OP_VIEW_LOAD) w->broadcast += times;
    else if (up || down) w->contiguous += times;
    else if (pairs) w->contiguous += 2 * times; /* two vector accesses of the span (docs/simd.md "Memory") */
    else w->gathered += times;
    return zero && op->kind == TIR_OP_VIEW_LOAD;
}

/* Adjacent panel reuse: a load whose origin does not depend on the
 * innermost root digit's axis reads the same bytes in the next program. */
static void view_reuse(walker *w, const tir_op *op, double times) {
    const tir_space *view = op->operands[0]->value->type->space;
    uint64_t roots = 0;
    for (uint32_t a = 0; a < view->rank; a++) roots |= w->roots[op->operands[1 + a]->value->id];
    if (op->kind != TIR_OP_VIEW_LOAD || w->inner >= 64 || (roots >> w->inner & 1)) return;
    /* bytes a packet requests: every lane's element, packet-local one per
     * access unless the access is split over the lanes along D.  The panel
     * is reused only if it can stay in the L2 until the next program (seed
     * 002 §5: D <= capacity; the panel itself bounds D from below). */
    const plan_local *local = w->r->options.local;
    bool split = !local || (op->domain && plan_local_has_axis(local, op->domain));
    double bytes = times * (split ? (double)w->packet_width : 1) * (double)tir_scalar_size(tir_value_elem(op->operands[0]->value));
    if (bytes <= (double)w->reuse_capacity) w->reused += bytes;
}

static void view_access(walker *w, const tir_op *op, double times) {
    bool broadcast = view_charge(w, op, times);
    if (op->kind == TIR_OP_VIEW_LOAD) w->broadcast_tile[op->results[0]->id] = broadcast;
    view_reuse(w, op, times);
}

/* ---- ops ---- */

/* Every lane runs the same iteration of a region; packet-local, a
 * coordinate on D still differs by one per lane. */
static void region_coordinates(walker *w, const tir_op *op) {
    for (uint32_t i = 0; i < op->domain->rank; i++) {
        set_uniform(w, op->body->args[i]);
        if (plan_local_is_axis(w->r->options.local, &op->domain->axes[i])) slope_of(w, op->body->args[i])->slope[0] = 1;
    }
}

static void walk_block(walker *w, const tir_block *b, double rep);

static void walk_elementwise(walker *w, const tir_op *op, double rep) {
    const tir_value *res = op->results[0];
    const plan_value *pv = plan_value_of(w->r, res);
    slope_elementwise(w, op);
    switch (pv->form) {
    case PLAN_FORM_SCALAR:
        if (!pv->constant) w->arith += rep * ew_ops(op);
        return;
    case PLAN_FORM_SPLAT: w->arith += rep * ew_ops(op); return;
    case PLAN_FORM_RECIPE: return; /* charged where it is read */
    default: break;
    }
    bool runtime = pv->form == PLAN_FORM_ARRAY;
    double n = rep * (double)pv->count;
    w->arith += n * ew_ops(op);
    for (uint32_t i = 0; i < op->operand_count; i++) read_elements(w, op->operands[i]->value, runtime, n);
    if (runtime) {
        w->priv += n;
        runtime_traversal(w, res->type->space, rep);
    }
    snapshot(w, res, rep);
}

static void walk_extract(walker *w, const tir_op *op, double rep) {
    const tir_value *tile = op->operands[0]->value;
    bool constant = true;
    for (uint32_t i = 1; i < op->operand_count; i++) constant = constant && plan_value_of(w->r, op->operands[i]->value)->constant;
    if (!constant) w->arith += rep * (4 + 3.0 * tile->type->space->rank);
    /* at an index the lanes may not share, a private read is a gather (on
     * the distributed axis each lane reads its own slot q, which they share) */
    bool shared = true;
    const tir_space *s = tile->type->space;
    for (uint32_t i = 1; i < op->operand_count; i++)
        shared = shared && (uniform(w, slope_of(w, op->operands[i]->value)) ||
                            plan_local_is_axis(w->r->options.local, &s->axes[i - 1]));
    double before = w->priv;
    read_elements(w, tile, !constant, rep);
    if (!shared) w->priv_gathered += w->priv - before, w->priv = before;
}

static void walk_view(walker *w, const tir_op *op, double rep) {
    if (!op->domain) {
        view_access(w, op, rep);
        return;
    }
    const plan_op *po = plan_op_of(w->r, op);
    double n = rep * (double)po->count;
    if (op->kind == TIR_OP_VIEW_LOAD && plan_value_of(w->r, op->results[0])->form == PLAN_FORM_STREAM) {
        view_reuse(w, op, n); /* the panel once; each read is charged where it is read */
        return;
    }
    view_access(w, op, n);
    w->arith += n; /* base + element offset */
    if (op->kind == TIR_OP_VIEW_STORE) {
        read_elements(w, op->operands[op->operand_count - 1]->value, po->runtime, n);
    } else {
        if (po->runtime) w->priv += n;
        snapshot(w, op->results[0], rep);
    }
    if (po->runtime && !plan_store_joined(w->r, op)) runtime_traversal(w, op->domain, rep); /* joined: the first store's loop */
}

static void walk_map(walker *w, const tir_op *op, double rep) {
    const plan_op *po = plan_op_of(w->r, op);
    if (plan_value_of(w->r, op->results[0])->form == PLAN_FORM_RECIPE) {
        walk_block(w, op->body, 0); /* charged where it is read */
        return;
    }
    double n = rep * (double)po->count;
    walk_block(w, op->body, n);
    if (po->runtime) {
        w->priv += n;
        runtime_traversal(w, op->domain, rep);
    }
    snapshot(w, op->results[0], rep);
}

/* A buffered (ARRAY) carry: init copy, then per trip next ← yield and
 * current ← next, each a runtime copy loop. */
static void buffered_carry(walker *w, const tir_op *op, uint32_t j, double rep, double trips) {
    const plan_value *pv = plan_value_of(w->r, op->body->args[op->domain->rank + j]);
    double n = (double)pv->count, init = rep * n, per_trip = rep * trips * n;
    read_elements(w, op->operands[j]->value, true, init);
    w->priv += init;
    read_elements(w, op->body->last->operands[j]->value, true, per_trip);
    w->priv += 3 * per_trip;
    w->arith += 2 * init + 4 * per_trip;
}

static void walk_loop(walker *w, const tir_op *op, double rep) {
    const plan_op *po = plan_op_of(w->r, op);
    double trips = (double)po->count + po->local_tail;
    walk_block(w, op->body, rep * trips);
    if (po->lane_order) { /* a lane read and an update per element */
        w->arith += rep * 2.0 * (double)plan_local_dim_in(w->r->options.local, op->domain)->extent;
        return;
    }
    if (po->partitioned) {
        w->arith += rep * po->partitions; /* partials into a total, then the seed */
        if (po->local)
            w->arith += rep * (plan_local_butterfly_ops(w->r->options.local,
                                                          plan_local_dim_in(w->r->options.local, op->domain)) + 2);
        if (po->bulk_loop) {
            uint64_t P = po->partitions, bulk = po->count - po->count % P;
            w->arith += rep * 2.0 * (double)(bulk / P - 1);
        }
        return;
    }
    runtime_traversal(w, op->domain, rep);
    for (uint32_t j = 0; j < op->result_count; j++)
        if (plan_value_of(w->r, op->body->args[op->domain->rank + j])->form == PLAN_FORM_ARRAY)
            buffered_carry(w, op, j, rep, trips);
}

/* The vectors an unrolled mma keeps live: its accumulators, and each
 * unrolled operand whose elements feed several of a lane's outputs (it lacks
 * an output axis of more than one slot), since the lowering folds the
 * outputs one after the other over the whole contraction.  An operand read
 * by one output per lane is used once, and a broadcast-loaded one (every
 * lane the same element: a `{1to16}` memory operand of the fma) is read
 * again from memory; neither needs a register of its own. */
static double mma_live_vectors(const walker *w, const tir_op *op) {
    const plan_local *local = w->r->options.local;
    const tir_space *sc = op->results[0]->type->space;
    double live = (double)plan_value_of(w->r, op->results[0])->count;
    for (uint32_t i = 0; i < 2; i++) {
        const tir_value *x = op->operands[i]->value;
        const plan_value *pv = plan_value_of(w->r, x);
        if (x->type->kind != TIR_TYPE_TILE || pv->form != PLAN_FORM_SSA || w->broadcast_tile[x->id]) continue;
        bool reused = false;
        for (uint32_t a = 0; a < sc->rank; a++)
            reused = reused || (tir_space_find(x->type->space, sc->axes[a].dim) < 0 &&
                                plan_local_extent(local, &sc->axes[a]) > 1);
        if (reused) live += (double)pv->count;
    }
    return live;
}

/* Register pressure: when an unrolled mma's live vectors exceed the
 * target's registers, the excess share of its operand and accumulator
 * reads comes from the stack, and as much is stored there: two private
 * accesses per term, scaled by that share (a prior, in the spirit of the
 * gathered-lane one; measured: gemm 512³ with 8×8 blocks one program per
 * lane keeps 192 live vectors against 32 zmm and runs 1.3-2.4× slower than
 * packet-local, which keeps 16). */
static void mma_spills(walker *w, const tir_op *op, const plan_op *po, double terms) {
    if (!w->registers || po->runtime || po->contraction_runtime) return;
    double live = mma_live_vectors(w, op);
    if (live <= w->registers) return;
    double spills = 2 * terms * (live - w->registers) / live;
    w->priv += spills;
    w->spills += spills;
}

static void walk_mma(walker *w, const tir_op *op, double rep) {
    const plan_op *po = plan_op_of(w->r, op);
    double n = rep * (double)po->count, terms = n * (double)po->contraction;
    bool runtime_operands = po->runtime || po->contraction_runtime;
    w->arith += 2 * terms;
    mma_spills(w, op, po, terms);
    read_elements(w, op->operands[0]->value, runtime_operands, terms);
    read_elements(w, op->operands[1]->value, runtime_operands, terms);
    read_elements(w, op->operands[2]->value, po->runtime, n);
    if (po->runtime) {
        w->priv += n;
        runtime_traversal(w, op->results[0]->type->space, rep);
    }
    if (po->contraction_runtime) w->arith += 2 * (po->runtime ? terms : rep * (double)po->contraction);
    /* over D: each output's lane partials meet in a butterfly, then the seed */
    const plan_local_dim *d = plan_mma_over_local(w->r->options.local, op);
    if (d) w->arith += n * (plan_local_butterfly_ops(w->r->options.local, d) + 2);
    snapshot(w, op->results[0], rep);
}

/* Root-axis dependence: a result depends on what its operands depend on; a
 * root coordinate on its own axis; region coordinates on nothing more than
 * their bounds; carries and region results on everything (not analyzed). */
static void track_roots(walker *w, const tir_op *op) {
    uint64_t deps = 0;
    for (uint32_t i = 0; i < op->operand_count; i++) deps |= w->roots[op->operands[i]->value->id];
    bool region = op->body != NULL;
    for (uint32_t i = 0; i < op->result_count; i++) w->roots[op->results[i]->id] = region ? ~0ull : deps;
    for (uint32_t i = 0; region && i < op->body->arg_count; i++) {
        bool coordinate = op->domain && i < op->domain->rank;
        uint64_t own = op->kind == TIR_OP_PARALLEL && i < 64 ? 1ull << i : 0;
        w->roots[op->body->args[i]->id] = op->kind == TIR_OP_PARALLEL ? own : coordinate ? 0 : ~0ull;
    }
}

static void walk_op(walker *w, const tir_op *op, double rep) {
    track_roots(w, op);
    switch (op->kind) {
    case TIR_OP_CONSTANT: slope_constant(w, op); break;
    case TIR_OP_ELEMENTWISE: walk_elementwise(w, op, rep); break;
    case TIR_OP_EXTRACT: walk_extract(w, op, rep); break;
    case TIR_OP_VIEW_LOAD:
    case TIR_OP_VIEW_STORE: walk_view(w, op, rep); break;
    case TIR_OP_MAP:
        region_coordinates(w, op);
        walk_map(w, op, rep);
        break;
    case TIR_OP_SERIAL:
    case TIR_OP_PIPELINE:
    case TIR_OP_REDUCE:
        region_coordinates(w, op);
        walk_loop(w, op, rep);
        break;
    case TIR_OP_MMA: walk_mma(w, op, rep); break;
    case TIR_OP_IF: /* charged as taken, plus the branch */
        w->arith += rep;
        walk_block(w, op->body, rep);
        for (uint32_t j = 0; j < op->result_count; j++)
            if (plan_value_of(w->r, op->body->args[j])->form == PLAN_FORM_ARRAY) buffered_carry(w, op, j, rep, 1);
        break;
    case TIR_OP_PARALLEL:
        for (uint32_t i = 0; i < op->domain->rank; i++) {
            slope_info *s = slope_of(w, op->body->args[i]);
            *s = (slope_info){.known = true};
            for (uint32_t v = 0; v < w->varying; v++) s->slope[v] = w->axis[v] == i;
        }
        walk_block(w, op->body, rep);
        break;
    default: break; /* stage, yield */
    }
}

static void walk_block(walker *w, const tir_block *b, double rep) {
    for (const tir_op *op = b->first; op; op = op->next) walk_op(w, op, rep);
}

/* The first packet's lanes: which axes vary and by how much.  Packet-local,
 * only the lane varies (no root axis: axis[0] names none). */
static void lane_pattern(walker *w, const plan_root_map *map, uint32_t packet_width) {
    uint64_t coords[PLAN_MAX_RANK], first[PLAN_MAX_RANK];
    if (w->r->options.local) {
        w->lanes = packet_width;
        w->varying = 1;
        w->axis[0] = UINT32_MAX;
        for (uint32_t l = 0; l < w->lanes; l++) w->offset[0][l] = l;
        return;
    }
    w->lanes = (uint32_t)(map->volume < packet_width ? map->volume : packet_width);
    plan_root_map_decode(map, 0, first);
    w->varying = 0;
    for (uint32_t l = 1; l < w->lanes; l++) {
        plan_root_map_decode(map, l, coords);
        for (uint32_t a = 0; a < map->rank; a++) {
            if (coords[a] == first[a]) continue;
            uint32_t v = 0;
            while (v < w->varying && w->axis[v] != a) v++;
            if (v == w->varying) w->axis[w->varying++] = a; /* <= log2(W) + 1 digits vary */
            w->offset[v][l] = (int64_t)coords[a] - (int64_t)first[a];
        }
    }
}

/* Every aligned packet has the first packet's pattern when the innermost
 * digits' cumulative extents divide W until one is a multiple of W. */
static bool packets_uniform(const plan_root_map *map, uint32_t packet_width) {
    uint64_t product = 1;
    for (uint32_t t = map->digit_count; t-- > 0;) {
        product *= map->digits[t].extent;
        if (product % packet_width == 0) return true;
        if (packet_width % product) return false;
    }
    return packet_width == 1;
}

tilec_status plan_extract_work(const plan_repr *repr, const plan_root_map *map, const plan_target *target,
                               const plan_cost_coefficients *c, plan_work *out) {
    uint32_t packet_width = target->packet_width;
    walker w = {.r = repr, .inner = map->digit_count ? map->digits[map->digit_count - 1].axis : 64,
                .packet_width = packet_width, .reuse_capacity = target->l2_bytes,
                .registers = target->vector_registers, .dots = target->dots};
    size_t values = repr->value_count ? repr->value_count : 1;
    w.slopes = tilec_alloc(repr->ctx, sizeof *w.slopes * values);
    w.offset = tilec_alloc(repr->ctx, sizeof *w.offset * MAX_VARYING);
    w.roots = tilec_alloc(repr->ctx, sizeof *w.roots * values);
    w.broadcast_tile = tilec_alloc(repr->ctx, sizeof *w.broadcast_tile * values);
    if (w.roots) memset(w.roots, 0, sizeof *w.roots * values);
    if (w.broadcast_tile) memset(w.broadcast_tile, 0, sizeof *w.broadcast_tile * values);
    if (!w.slopes || !w.offset || !w.roots || !w.broadcast_tile) {
        tilec_free(repr->ctx, w.slopes);
        tilec_free(repr->ctx, w.offset);
        tilec_free(repr->ctx, w.roots);
        tilec_free(repr->ctx, w.broadcast_tile);
        return tilec_error(repr->ctx, TILEC_E_NOMEM, "PLAN-M01", tilec_no_loc(), "out of memory extracting work");
    }
    lane_pattern(&w, map, packet_width);
    /* The root decode, once: its integer operations and one widening cast
     * per decoded axis. */
    plan_root_arithmetic decode = plan_root_map_decode_arithmetic(map);
    bool decoded[PLAN_MAX_RANK] = {false};
    double casts = 0;
    for (uint32_t t = 0; t < map->digit_count; t++) {
        casts += !decoded[map->digits[t].axis];
        decoded[map->digits[t].axis] = true;
    }
    w.arith = decode.div + decode.mod + decode.mul + decode.add + casts + (repr->options.local ? 2 : 0);
    out->decode_ops = w.arith;
    walk_block(&w, repr->func->body, 1);
    tilec_free(repr->ctx, w.slopes);
    tilec_free(repr->ctx, w.offset);
    tilec_free(repr->ctx, w.roots);
    tilec_free(repr->ctx, w.broadcast_tile);

    double W = packet_width;
    double view = w.broadcast * c->broadcast_load + w.contiguous * c->contiguous_memory +
                  w.gathered * c->gathered_lane * W;
    out->ragged_packets = !repr->options.local && !packets_uniform(map, packet_width);
    if (out->ragged_packets) view *= 2;
    out->arithmetic_ops = w.arith;
    out->broadcast_loads = w.broadcast;
    out->contiguous_accesses = w.contiguous;
    out->gathered_accesses = w.gathered;
    out->private_accesses = w.priv + w.priv_gathered;
    out->spill_accesses = w.spills;
    out->reused_load_bytes = w.reused;
    out->arithmetic_per_packet = w.arith * c->arithmetic;
    out->memory_per_packet = view + w.priv * c->contiguous_memory + w.priv_gathered * c->gathered_lane * W;
    return TILEC_OK;
}
