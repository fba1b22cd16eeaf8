/* diff_gen_ops.c — the generator's value half (diff_gen_internal.h):
 * constants, elementwise ops (with safe operands built for div/log/sqrt/exp
 * when none is at hand), casts, selects, extracts, maps, explicit and library
 * reductions, mma, serial/pipeline loops, sugar, and the statement mix.
 *
 * Loop carries follow an assume-guarantee rule: each carry gets assumed facts
 * (covering its initial value) before its body is generated, and the value
 * it yields must keep it inside them for every iteration — an accumulation
 * `carry op x` is checked over the trip count, anything else by inclusion;
 * the carry itself always qualifies.  Closed reductions never let the body
 * see their carry except in the update. */
#include "diff_gen_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static tir_type_kind kind_of(const gen_val *v) { return tir_type_kind_of(tir_value_type(v->v)); }
static bool is_float(tir_scalar s) { return s == TIR_F32 || s == TIR_F64; }
static bool nonempty(const gen_val *v) { return v->f.lo <= v->f.hi; }

tir_scalar gen_pick_elem(gen *g, int kind) {
    double r = (double)gen_below(g, 1000) / 1000;
    if (kind == 1 || (kind != 2 && r < 0.55)) return g->floats[gen_below(g, (uint32_t)g->n_floats)];
    if (kind == 0 && r > 0.9) return TIR_BOOL;
    return g->ints[gen_below(g, (uint32_t)g->n_ints)];
}

gen_val gen_const_scalar(gen *g, tir_scalar s) {
    if (s == TIR_BOOL) {
        bool v = gen_chance(g, 0.5);
        return gen_push(g, tir_const_bool(g->b, v), diff_facts_range(s, v, v, 0, false));
    }
    if (is_float(s)) {
        double v = g->c.exact_inputs || gen_chance(g, 0.3) ? gen_range(g, -32, 32) / 8.0 : (double)gen_range(g, -2000, 2000) / 997.0;
        if (s == TIR_F32) v = (double)(float)v;
        if (gen_chance(g, 0.04)) v = -0.0;
        return gen_push(g, tir_const_float(g->b, s, v), diff_facts_const(s, v));
    }
    int64_t v = gen_range(g, tir_scalar_is_signed(s) ? -20 : 0, 20);
    return gen_push(g, tir_const_int(g->b, s, v), diff_facts_const(s, (double)v));
}

void gen_note_stored(gen *g, tir_scalar s, const diff_facts *f) {
    if (!is_float(s)) return;
    g->all_exact = g->all_exact && diff_facts_exact(f);
    g->max_ea = fmax(g->max_ea, f->ea);
    g->max_er = fmax(g->max_er, f->er);
}

/* ---- shapes ---- */

typedef struct {
    tir_dim *d[GEN_DIMS + 4];
    uint64_t e[GEN_DIMS + 4];
    uint32_t rank;
} shape;

static void shape_of(const gen_val *v, shape *s) {
    s->rank = 0;
    if (!gen_is_tile(v)) return;
    tir_space *sp = tir_type_space(tir_value_type(v->v));
    s->rank = (uint32_t)tir_space_rank(sp);
    for (uint32_t i = 0; i < s->rank; i++) s->d[i] = tir_space_dim(sp, i), s->e[i] = tir_space_extent(sp, i);
}

/* The identity join of the operands' spaces fits the rank and volume limits. */
static bool join_fits(const gen_val *const *ops, size_t n) {
    shape start = {0}, s;
    size_t first = n;
    for (size_t i = 0; i < n; i++) {
        shape_of(ops[i], &s);
        if (first == n || s.rank > start.rank) start = s, first = i;
    }
    for (size_t i = 0; i < n; i++) {
        shape_of(ops[i], &s);
        for (uint32_t a = 0; a < s.rank; a++) {
            uint32_t j = 0;
            while (j < start.rank && start.d[j] != s.d[a]) j++;
            if (j == start.rank) {
                if (start.rank == GEN_DIMS + 3) return false;
                start.d[j] = s.d[a], start.e[j] = s.e[a], start.rank++;
            } else if (s.e[a] > start.e[j]) {
                start.e[j] = s.e[a];
            }
        }
    }
    uint64_t vol = 1;
    for (uint32_t i = 0; i < start.rank; i++) vol *= start.e[i];
    return start.rank <= GEN_MAX_RANK && vol <= GEN_MAX_VOLUME;
}

static int dim_index(gen *g, tir_dim *d) {
    for (int i = 0; i < g->n_dims; i++)
        if (g->dims[i] == d) return i;
    return -1;
}

/* ---- filters ---- */

typedef struct {
    tir_scalar elem;  /* INVALID: any */
    bool exact;       /* facts exact */
    bool scalar;      /* no tiles */
    bool tile;        /* tiles only (rank >= 1) */
    bool no_index;    /* no Index values */
} req;

static bool matches(gen *g, const gen_val *v, const void *env) {
    (void)g;
    const req *r = env;
    tir_type_kind k = kind_of(v);
    if (k == TIR_TYPE_VIEW || !nonempty(v)) return false;
    if (r->elem != TIR_SCALAR_INVALID && gen_elem(v) != r->elem) return false;
    if (r->exact && !diff_facts_exact(&v->f)) return false;
    if (r->scalar && k == TIR_TYPE_TILE) return false;
    if (r->tile && (k != TIR_TYPE_TILE || gen_rank(v) == 0)) return false;
    if (r->no_index && k == TIR_TYPE_INDEX) return false;
    return gen_rank(v) <= GEN_MAX_RANK;
}

/* A visible value of type elem (or a new constant). */
static gen_val value_of(gen *g, tir_scalar elem, bool exact, bool scalar) {
    req r = {elem, exact, scalar, false, false};
    gen_val v;
    if (gen_chance(g, 0.9) && gen_pick(g, matches, &r, &v)) return v;
    return gen_const_scalar(g, elem);
}

static gen_val emit_ew(gen *g, tir_ew_op op, const gen_val *a, const gen_val *b, const diff_facts *f) {
    return gen_push(g, b ? tir_ew2(g->b, op, a->v, b->v) : tir_ew1(g->b, op, a->v), *f);
}

/* A float constant c of type s, exact. */
static gen_val float_const(gen *g, tir_scalar s, double c) { return gen_push(g, tir_const_float(g->b, s, c), diff_facts_const(s, c)); }

/* Clamps a float value into [-k, k]. */
static gen_val clamp(gen *g, gen_val v, double k) {
    tir_scalar s = gen_elem(&v);
    gen_val lo = float_const(g, s, -k), hi = float_const(g, s, k);
    diff_facts f1, f2;
    if (!diff_facts_ew(TIR_EW_MIN, s, &v.f, &hi.f, &f1)) return v;
    gen_val m = emit_ew(g, TIR_EW_MIN, &v, &hi, &f1);
    if (!diff_facts_ew(TIR_EW_MAX, s, &m.f, &lo.f, &f2)) return m;
    return emit_ew(g, TIR_EW_MAX, &m, &lo, &f2);
}

/* abs(v) + c, a value bounded away from zero. */
static gen_val away_from_zero(gen *g, gen_val v, double c) {
    tir_scalar s = gen_elem(&v);
    diff_facts fa, fs;
    if (!diff_facts_ew(TIR_EW_ABS, s, &v.f, NULL, &fa)) return v;
    gen_val a = emit_ew(g, TIR_EW_ABS, &v, NULL, &fa), k = float_const(g, s, c);
    if (!diff_facts_ew(TIR_EW_ADD, s, &a.f, &k.f, &fs)) return v;
    return emit_ew(g, TIR_EW_ADD, &a, &k, &fs);
}

/* ---- elementwise ---- */

static const tir_ew_op FLOAT_OPS[] = {TIR_EW_ADD, TIR_EW_ADD, TIR_EW_SUB, TIR_EW_SUB, TIR_EW_MUL, TIR_EW_MUL,
                                      TIR_EW_DIV, TIR_EW_NEG, TIR_EW_ABS, TIR_EW_MIN, TIR_EW_MAX, TIR_EW_EXP,
                                      TIR_EW_LOG, TIR_EW_SQRT, TIR_EW_TANH, TIR_EW_ERF, TIR_EW_SIGMOID,
                                      TIR_EW_ATAN, TIR_EW_SIN, TIR_EW_COS, TIR_EW_FLOOR};
static const tir_ew_op INT_OPS[] = {TIR_EW_ADD, TIR_EW_SUB, TIR_EW_MUL, TIR_EW_DIV, TIR_EW_MOD,
                                    TIR_EW_NEG, TIR_EW_ABS, TIR_EW_MIN, TIR_EW_MAX};
static const tir_ew_op CMP_OPS[] = {TIR_EW_EQ, TIR_EW_NE, TIR_EW_LT, TIR_EW_LE, TIR_EW_GT, TIR_EW_GE};
static const tir_ew_op LOGIC_OPS[] = {TIR_EW_AND, TIR_EW_OR, TIR_EW_NOT};

#define PICK(g, table) (table)[gen_below((g), (uint32_t)(sizeof(table) / sizeof *(table)))]

/* Replaces a float operand the op cannot take by one it can. */
static gen_val make_safe(gen *g, tir_ew_op op, gen_val v) {
    switch (op) {
    case TIR_EW_LOG: return away_from_zero(g, v, 1.0);
    case TIR_EW_SQRT: return diff_facts_exact(&v.f) && gen_chance(g, 0.5) ? away_from_zero(g, v, 0.0) : away_from_zero(g, v, 0.5);
    case TIR_EW_EXP: return clamp(g, v, 4.0);
    case TIR_EW_DIV: return away_from_zero(g, v, 1.0);
    default: return v;
    }
}

static bool gen_ew(gen *g) {
    int cls = (int)gen_below(g, 100);
    tir_ew_op op;
    tir_scalar elem;
    bool exact_only = false;
    if (cls < 55) elem = gen_pick_elem(g, 1), op = PICK(g, FLOAT_OPS);
    else if (cls < 78) elem = gen_pick_elem(g, 2), op = PICK(g, INT_OPS);
    else if (cls < 92) elem = gen_pick_elem(g, 0), op = PICK(g, CMP_OPS), exact_only = true;
    else elem = TIR_BOOL, op = PICK(g, LOGIC_OPS);
    bool inexact = op == TIR_EW_EXP || op == TIR_EW_LOG || op == TIR_EW_TANH || op == TIR_EW_SQRT || op == TIR_EW_DIV ||
                   op == TIR_EW_ERF || op == TIR_EW_SIGMOID || op == TIR_EW_ATAN || op == TIR_EW_SIN || op == TIR_EW_COS;
    if (g->c.exact_inputs && inexact && gen_chance(g, 0.6))
        op = TIR_EW_ADD;
    if (op == TIR_EW_NEG && !tir_scalar_is_signed(elem) && !is_float(elem)) op = TIR_EW_SUB;
    if (tir_ew_arity(op) == 2 && elem == TIR_BOOL && tir_ew_class_of(op) == TIR_EWC_NUMERIC) return false;
    req r = {elem, exact_only, false, false, false};
    gen_val a, b;
    if (!gen_pick(g, matches, &r, &a)) a = gen_const_scalar(g, elem);
    bool binary = tir_ew_arity(op) == 2;
    if (binary) {
        r.scalar = !gen_chance(g, 0.6);
        if (!gen_pick(g, matches, &r, &b)) b = gen_const_scalar(g, elem);
        const gen_val *ops[2] = {&a, &b};
        if (!join_fits(ops, 2)) return false;
    }
    if (gen_chance(g, 0.5) && binary) { /* either operand order */
        gen_val t = a;
        a = b, b = t;
    }
    diff_facts f;
    if (!diff_facts_ew(op, elem, &a.f, binary ? &b.f : NULL, &f)) {
        g->stats->retries++;
        if (!is_float(elem)) return false;
        if (op == TIR_EW_DIV) b = make_safe(g, op, b);
        else a = make_safe(g, op, a);
        if (!gen_live(g) || !diff_facts_ew(op, elem, &a.f, binary ? &b.f : NULL, &f)) return false;
    }
    emit_ew(g, op, &a, binary ? &b : NULL, &f);
    return gen_live(g);
}

static bool gen_cast(gen *g) {
    req r = {TIR_SCALAR_INVALID, false, false, false, false};
    gen_val v;
    if (!gen_pick(g, matches, &r, &v)) return false;
    tir_scalar from = gen_elem(&v), to = gen_chance(g, 0.15) ? TIR_BOOL : gen_pick_elem(g, 3);
    if (gen_chance(g, 0.1)) to = from; /* f32 → f32 rounds in the reference */
    diff_facts f;
    if (!diff_facts_cast(from, to, &v.f, &f)) return false;
    gen_push(g, tir_cast(g->b, v.v, to), f);
    return gen_live(g);
}

/* A bool condition: a visible one, or a fresh comparison of exact values. */
static gen_val condition(gen *g, bool scalar) {
    req r = {TIR_BOOL, false, scalar, false, false};
    gen_val c;
    if (gen_chance(g, 0.6) && gen_pick(g, matches, &r, &c)) return c;
    tir_scalar elem = gen_pick_elem(g, 3);
    gen_val a = value_of(g, elem, true, scalar), b = value_of(g, elem, true, true);
    diff_facts f;
    tir_ew_op op = PICK(g, CMP_OPS);
    if (!diff_facts_exact(&a.f) || !diff_facts_ew(op, elem, &a.f, &b.f, &f)) return gen_const_scalar(g, TIR_BOOL);
    return emit_ew(g, op, &a, &b, &f);
}

static bool gen_select(gen *g) {
    tir_scalar elem = gen_pick_elem(g, 0);
    gen_val c = condition(g, gen_chance(g, 0.5)), t = value_of(g, elem, false, false), f = value_of(g, elem, false, false);
    if (!gen_live(g)) return false;
    const gen_val *ops[3] = {&t, &f, &c};
    if (!join_fits(ops, 3)) return false;
    gen_push(g, tir_select(g->b, c.v, t.v, f.v), diff_facts_select(&t.f, &f.f));
    return gen_live(g);
}

static bool gen_const(gen *g) {
    tir_scalar s = gen_pick_elem(g, 0);
    if (gen_chance(g, 0.5)) return gen_const_scalar(g, s).v != NULL;
    int d = (int)gen_below(g, (uint32_t)g->n_dims);
    uint64_t e = gen_chance(g, 0.3) ? 1 : g->ext[d];
    tir_space *sp = gen_space(g, 1, &d, &e);
    tir_literal lit;
    diff_facts f;
    if (is_float(s)) {
        double v = gen_range(g, -16, 16) / 4.0;
        lit = (tir_literal){TIR_LIT_FLOAT, {.f = v}}, f = diff_facts_const(s, v);
    } else if (s == TIR_BOOL) {
        bool v = gen_chance(g, 0.5);
        lit = (tir_literal){TIR_LIT_BOOL, {.b = v}}, f = diff_facts_range(s, v, v, 0, false);
    } else {
        int64_t v = gen_range(g, 0, 9);
        lit = (tir_literal){TIR_LIT_INT, {.i = v}}, f = diff_facts_const(s, (double)v);
    }
    gen_push(g, tir_const(g->b, tir_type_tile(g->m, s, sp), lit), f);
    return gen_live(g);
}

static bool gen_extract(gen *g) {
    req r = {TIR_SCALAR_INVALID, false, false, true, false};
    gen_val t;
    if (!gen_pick(g, matches, &r, &t)) return false;
    shape s;
    shape_of(&t, &s);
    tir_value *idx[GEN_MAX_RANK];
    for (uint32_t i = 0; i < s.rank; i++) {
        if (g->local_mode && s.e[i] > 1) { /* only at the coordinate of an enclosing map/reduce over a */
            gen_val c;
            if (!gen_coord(g, s.e[i], dim_index(g, s.d[i]), &c)) return false;
            idx[i] = c.v;
        } else if (g->oob_left && gen_chance(g, 0.05)) {
            g->oob_left = false;
            idx[i] = gen_index_const(g, (int64_t)s.e[i] + gen_range(g, 0, 2)).v;
        } else {
            idx[i] = gen_index_in(g, s.e[i], dim_index(g, s.d[i])).v;
        }
    }
    if (!gen_live(g)) return false;
    gen_push(g, tir_extract(g->b, t.v, s.rank, idx), t.f);
    return gen_live(g);
}

/* ---- regions ---- */

/* Opens a nested body: returns the saved context. */
typedef struct {
    size_t mark;
    int in_pipeline_top;
    bool bound[GEN_DIMS];
} body_state;

static body_state body_open(gen *g) {
    body_state s = {g->n_vals, g->in_pipeline_top, {0}};
    memcpy(s.bound, g->dim_bound, sizeof s.bound);
    g->in_pipeline_top = 0;
    g->depth++;
    return s;
}

static void body_close(gen *g, const body_state *s) {
    g->n_vals = s->mark;
    g->in_pipeline_top = s->in_pipeline_top;
    memcpy(g->dim_bound, s->bound, sizeof s->bound);
    g->depth--;
}

/* Up to `n` distinct unbound dims in random order. */
static int free_dims(gen *g, int *out, int n) {
    int k = 0;
    for (int tries = 0; tries < 16 && k < n; tries++) {
        int d = (int)gen_below(g, (uint32_t)g->n_dims), dup = 0;
        for (int i = 0; i < k; i++) dup |= out[i] == d;
        if (!dup && !g->dim_bound[d]) out[k++] = d;
    }
    return k;
}

static bool scalar_of_elem(gen *g, const gen_val *v, const void *env) {
    (void)g;
    const tir_scalar *elem = env;
    tir_type_kind k = kind_of(v);
    return nonempty(v) && gen_elem(v) == *elem && (k == TIR_TYPE_SCALAR || (k == TIR_TYPE_INDEX && *elem == TIR_I64));
}

static bool gen_map(gen *g) {
    if (g->depth >= GEN_MAX_DEPTH + 1) return false;
    int dims[2];
    uint32_t rank = gen_chance(g, 0.08) ? 0 : (uint32_t)free_dims(g, dims, gen_chance(g, 0.6) ? 1 : 2);
    uint64_t ext[2], vol = 1;
    for (uint32_t i = 0; i < rank; i++) vol *= (ext[i] = gen_chance(g, 0.15) ? 1 : g->ext[dims[i]]);
    if (vol > GEN_MAX_VOLUME) return false;
    tir_scalar elem = gen_pick_elem(g, 0);
    tir_op *map = tir_map_begin(g->b, gen_space(g, rank, dims, ext), elem);
    if (!map) return (g->failed = true), false;
    body_state st = body_open(g);
    g->in_map++;
    for (uint32_t i = 0; i < rank; i++) {
        gen_val c = gen_push(g, tir_region_coord(map, i), diff_facts_range(TIR_I64, 0, (double)ext[i] - 1, 0, false));
        g->vals[g->n_vals - 1].dim = ext[i] == g->ext[dims[i]] ? dims[i] : -1;
        g->dim_bound[dims[i]] = true;
        (void)c;
    }
    gen_block(g, gen_range(g, 1, 4));
    gen_val y;
    if (!gen_pick(g, scalar_of_elem, &elem, &y)) {
        req r = {TIR_SCALAR_INVALID, false, true, false, true};
        gen_val v;
        diff_facts f;
        if (gen_pick(g, matches, &r, &v) && diff_facts_cast(gen_elem(&v), elem, &v.f, &f))
            y = gen_push(g, tir_cast(g->b, v.v, elem), f);
        else
            y = gen_const_scalar(g, elem);
    }
    g->in_map--;
    body_close(g, &st);
    if (!gen_live(g)) return false;
    gen_push(g, tir_map_end(g->b, map, y.v), y.f);
    return gen_live(g);
}

/* The facts of ±v (an interval symmetric around 0). */
static diff_facts symmetric(const diff_facts *f) {
    diff_facts s = *f;
    if (f->lo <= f->hi) s.lo = -diff_facts_bound(f), s.hi = diff_facts_bound(f);
    return s;
}

static tir_reduction_policy random_policy(gen *g) { return (tir_reduction_policy)gen_below(g, TIR_REDUCE_POLICY_COUNT); }
static bool regroups(tir_reduction_policy p) { return p == TIR_REDUCE_UNORDERED_TREE || p == TIR_REDUCE_ORDERED_TREE; }

/* The coordinates that read element `coord` of tile t: the region's
 * coordinates for its dims, in-range indices elsewhere. */
static void tile_indices(gen *g, const shape *s, const tir_dim *const *rd, const gen_val *rc, int nr, tir_value **idx) {
    for (uint32_t i = 0; i < s->rank; i++) {
        idx[i] = NULL;
        for (int j = 0; j < nr; j++)
            if (rd[j] == s->d[i]) idx[i] = rc[j].v;
        if (!idx[i]) idx[i] = gen_index_in(g, s->e[i], dim_index(g, s->d[i])).v;
    }
}

/* reduce over one or two axes of a tile, with an explicit body. */
static bool gen_reduce(gen *g) {
    if (g->depth >= GEN_MAX_DEPTH + 1) return false;
    req r = {TIR_SCALAR_INVALID, false, false, true, false};
    gen_val t;
    if (!gen_pick(g, matches, &r, &t) || gen_elem(&t) == TIR_BOOL) return false;
    shape s;
    shape_of(&t, &s);
    int axes[2], n_axes = 0;
    for (uint32_t i = 0; i < s.rank && n_axes < 2; i++) {
        int d = dim_index(g, s.d[i]);
        if (d >= 0 && !g->dim_bound[d] && (n_axes == 0 || gen_chance(g, 0.3))) axes[n_axes++] = (int)i;
    }
    if (g->local_mode) { /* over the nonunit axis, if any: its extract needs this coordinate */
        n_axes = 0;
        for (uint32_t i = 0; i < s.rank; i++)
            if (s.e[i] > 1 && !g->dim_bound[dim_index(g, s.d[i])]) axes[0] = (int)i, n_axes = 1;
        if (!n_axes && s.rank) axes[0] = 0, n_axes = !g->dim_bound[dim_index(g, s.d[0])];
    }
    if (!n_axes) return false;
    tir_scalar elem = gen_elem(&t);
    tir_dim *rd[2];
    uint64_t re[2];
    double n = 1;
    for (int i = 0; i < n_axes; i++) rd[i] = s.d[axes[i]], re[i] = s.e[axes[i]], n *= (double)re[i];
    tir_reduction_policy policy = g->local_mode ? TIR_REDUCE_UNORDERED_TREE : random_policy(g);
    gen_val seed = value_of(g, elem, false, true);
    if (kind_of(&seed) == TIR_TYPE_INDEX) seed = gen_const_scalar(g, elem);
    tir_region_opts opts = {.policy = policy};
    tir_op *red = tir_region_begin(g->b, TIR_OP_REDUCE, tir_space_make(g->m, (size_t)n_axes, rd, re), &opts, 1, &seed.v);
    if (!red) return (g->failed = true), false;
    body_state st = body_open(g);
    gen_val rc[2];
    for (int i = 0; i < n_axes; i++) {
        rc[i] = gen_push(g, tir_region_coord(red, (size_t)i), diff_facts_range(TIR_I64, 0, (double)re[i] - 1, 0, false));
        int d = dim_index(g, rd[i]);
        g->vals[g->n_vals - 1].dim = d;
        g->dim_bound[d] = true;
    }
    tir_value *idx[GEN_MAX_RANK];
    tile_indices(g, &s, (const tir_dim *const *)rd, rc, n_axes, idx);
    gen_val x = gen_push(g, tir_extract(g->b, t.v, s.rank, idx), t.f);
    if (gen_chance(g, 0.4) && gen_live(g)) { /* x·x, |x| or x·c */
        diff_facts f;
        int k = (int)gen_below(g, 3);
        if (k == 0 && diff_facts_ew(TIR_EW_MUL, elem, &x.f, &x.f, &f)) x = emit_ew(g, TIR_EW_MUL, &x, &x, &f);
        else if (k == 1 && diff_facts_ew(TIR_EW_ABS, elem, &x.f, NULL, &f)) x = emit_ew(g, TIR_EW_ABS, &x, NULL, &f);
        else if (k == 2) {
            gen_val c = gen_const_scalar(g, elem);
            if (diff_facts_ew(TIR_EW_MUL, elem, &x.f, &c.f, &f)) x = emit_ew(g, TIR_EW_MUL, &x, &c, &f);
        }
    }
    /* the update: closed (carry op x) or an ordered form the body reads the carry in */
    static const tir_ew_op closed[] = {TIR_EW_ADD, TIR_EW_ADD, TIR_EW_MAX, TIR_EW_MIN, TIR_EW_MUL};
    tir_ew_op op = PICK(g, closed);
    bool open_form = !g->local_mode && gen_chance(g, 0.25);
    diff_facts result;
    /* x - carry or carry - x: bounded like a sum of ±x from ±seed */
    diff_facts seed_f = open_form ? symmetric(&seed.f) : seed.f, x_f = open_form ? symmetric(&x.f) : x.f;
    if (open_form) op = TIR_EW_SUB;
    if (!diff_facts_fold(op == TIR_EW_SUB ? TIR_EW_ADD : op, elem, &seed_f, &x_f, n, regroups(policy), &result)) {
        g->stats->retries++;
        op = TIR_EW_MAX, open_form = false;
        diff_facts_fold(op, elem, &seed.f, &x.f, n, regroups(policy), &result);
    }
    if (op == TIR_EW_MUL && !is_float(elem)) result = diff_facts_any(elem);
    tir_value *carry = tir_region_carry(red, 0), *upd;
    bool carry_first = gen_chance(g, 0.5);
    upd = carry_first ? tir_ew2(g->b, op, carry, x.v) : tir_ew2(g->b, op, x.v, carry);
    body_close(g, &st);
    if (!upd || !gen_live(g) || tir_region_end(g->b, red, 1, &upd)) return (g->failed = true), false;
    gen_push(g, tir_op_result(red, 0), result);
    return gen_live(g);
}

/* The library's reduce.add/max/min over some axes of a tile. */
static bool gen_reduce_sugar(gen *g) {
    req r = {TIR_SCALAR_INVALID, false, false, true, false};
    gen_val t;
    if (!gen_pick(g, matches, &r, &t) || gen_elem(&t) == TIR_BOOL) return false;
    shape s;
    shape_of(&t, &s);
    tir_dim *dims[GEN_MAX_RANK];
    size_t nd = 0;
    double n = 1;
    for (uint32_t i = 0; i < s.rank; i++)
        if (gen_chance(g, 0.5) || (i == s.rank - 1 && !nd)) dims[nd++] = s.d[i], n *= (double)s.e[i];
    tir_scalar elem = gen_elem(&t);
    tir_reduction_policy policy = g->local_mode ? TIR_REDUCE_UNORDERED_TREE : random_policy(g);
    tir_reducer red = (tir_reducer)gen_below(g, 3);
    diff_facts f, seed = red == TIR_REDUCER_ADD ? diff_facts_const(elem, 0) : diff_facts_const(elem, INFINITY);
    if (!is_float(elem) && red != TIR_REDUCER_ADD) seed = diff_facts_any(elem);
    tir_ew_op op = red == TIR_REDUCER_ADD ? TIR_EW_ADD : red == TIR_REDUCER_MAX ? TIR_EW_MAX : TIR_EW_MIN;
    if (!diff_facts_fold(op, elem, &seed, &t.f, n, regroups(policy), &f)) {
        g->stats->retries++;
        red = TIR_REDUCER_MAX, op = TIR_EW_MAX;
        diff_facts_fold(op, elem, &seed, &t.f, n, regroups(policy), &f);
    }
    if (op != TIR_EW_ADD && is_float(elem)) f.lo = fmin(f.lo, t.f.lo), f.hi = fmax(f.hi, t.f.hi);
    gen_push(g, tir_lib_reduce(g->b, t.v, nd, dims, red, policy), f);
    return gen_live(g);
}

/* A tile of exactly this type: visible, loaded, broadcast or constant. */
typedef struct {
    tir_type *type;
} type_env;

static bool has_type(gen *g, const gen_val *v, const void *env) {
    (void)g;
    return nonempty(v) && tir_value_type(v->v) == ((const type_env *)env)->type;
}

static bool broadcasts(gen *g, const gen_val *v, const void *env) {
    (void)g;
    const type_env *e = env;
    return nonempty(v) && gen_is_tile(v) && gen_elem(v) == tir_type_elem(e->type) &&
           tir_space_broadcasts_to(tir_type_space(tir_value_type(v->v)), tir_type_space(e->type));
}

static gen_val tile_operand(gen *g, tir_scalar elem, uint32_t rank, const int *dims, const uint64_t *ext, bool zeros) {
    tir_space *sp = gen_space(g, rank, dims, ext);
    type_env env = {tir_type_tile(g->m, elem, sp)};
    gen_val v;
    if (!zeros && gen_chance(g, 0.7) && gen_pick(g, has_type, &env, &v)) return v;
    if (!zeros && gen_chance(g, 0.6) && gen_load_space(g, elem, rank, dims, ext, &v)) return v;
    if (!zeros && gen_chance(g, 0.5) && gen_pick(g, broadcasts, &env, &v))
        return gen_push(g, tir_lib_broadcast_to(g->b, v.v, sp), v.f);
    double c = zeros ? 0 : is_float(elem) ? gen_range(g, -8, 8) / 4.0 : gen_range(g, 0, 5);
    tir_literal lit = is_float(elem) ? (tir_literal){TIR_LIT_FLOAT, {.f = c}} : (tir_literal){TIR_LIT_INT, {.i = (int64_t)c}};
    return gen_push(g, tir_const(g->b, env.type, lit), diff_facts_const(elem, c));
}

static bool gen_mma(gen *g) {
    int d[GEN_DIMS] = {0, 1, 2, 3, 4};
    for (int i = 0; i < g->n_dims; i++) d[i] = i;
    for (int i = g->n_dims - 1; i > 0; i--) {
        int j = (int)gen_below(g, (uint32_t)i + 1), t = d[i];
        d[i] = d[j], d[j] = t;
    }
    int m = d[0], n = d[1], k = d[2];
    bool batch = g->n_dims > 3 && gen_chance(g, 0.15);
    bool no_m = gen_chance(g, 0.1);
    uint64_t e[GEN_DIMS];
    for (int i = 0; i < g->n_dims; i++) e[i] = gen_chance(g, 0.15) ? 1 : g->ext[i];
    tir_scalar acc = gen_pick_elem(g, 3), ea = acc, eb = acc;
    if (gen_chance(g, 0.35)) ea = gen_pick_elem(g, 3);
    if (gen_chance(g, 0.35)) eb = gen_pick_elem(g, 3);
    int ad[3], bd[3], cd[3];
    uint32_t ar = 0, br = 0, cr = 0;
    if (batch) ad[ar++] = d[3], bd[br++] = d[3], cd[cr++] = d[3];
    bool at = gen_chance(g, 0.3), bt = gen_chance(g, 0.3), ct = gen_chance(g, 0.2);
    if (no_m) ad[ar++] = k;
    else if (at) ad[ar++] = k, ad[ar++] = m;
    else ad[ar++] = m, ad[ar++] = k;
    if (bt) bd[br++] = n, bd[br++] = k;
    else bd[br++] = k, bd[br++] = n;
    if (no_m) cd[cr++] = n;
    else if (ct) cd[cr++] = n, cd[cr++] = m;
    else cd[cr++] = m, cd[cr++] = n;
    uint64_t ae[3], be[3], ce[3], va = 1, vb = 1, vc = 1;
    for (uint32_t i = 0; i < ar; i++) va *= (ae[i] = e[ad[i]]);
    for (uint32_t i = 0; i < br; i++) vb *= (be[i] = e[bd[i]]);
    for (uint32_t i = 0; i < cr; i++) vc *= (ce[i] = e[cd[i]]);
    if (va > GEN_MAX_VOLUME || vb > GEN_MAX_VOLUME || vc > 64) return false;
    gen_val a = tile_operand(g, ea, ar, ad, ae, false), b = tile_operand(g, eb, br, bd, be, false);
    gen_val c = tile_operand(g, acc, cr, cd, ce, gen_chance(g, 0.4));
    if (!gen_live(g)) return false;
    bool ordered = gen_chance(g, 0.5);
    diff_facts f;
    /* a fused step rounds a·b + acc once: like a regrouped sum, its f64 bits
     * match the reference's only when the products are exact */
    bool regroup = !ordered || !g->c.separate_mma;
    if (!diff_facts_mma(ea, &a.f, eb, &b.f, acc, &c.f, (double)e[k], regroup, &f)) {
        g->stats->retries++;
        return false;
    }
    gen_push(g, tir_mma(g->b, a.v, b.v, c.v, !ordered), f);
    return gen_live(g);
}

/* ---- loops ---- */

/* Facts a float carry may assume, covering its initial value. */
static diff_facts assumed(gen *g, const gen_val *init) {
    tir_scalar s = gen_elem(init);
    if (!is_float(s)) return kind_of(init) == TIR_TYPE_INDEX ? diff_facts_any(TIR_I64) : diff_facts_any(s);
    static const double widen[] = {1, 4, 16, 256};
    double w = fmax(diff_facts_bound(&init->f), 1) * widen[gen_below(g, 4)];
    diff_facts f = init->f;
    f.lo = fmin(f.lo, -w), f.hi = fmax(f.hi, w);
    if (!diff_facts_exact(&f) || gen_chance(g, 0.4)) {
        f.ea += gen_chance(g, 0.5) ? 1e-5 : 1e-4;
        f.er += gen_chance(g, 0.5) ? 1e-5 : 1e-4;
        f.grid = DIFF_GRID_NONE;
    } else if (f.grid != DIFF_GRID_NONE) {
        f.grid += gen_range(g, 0, 2);
    }
    f.special = f.special || gen_chance(g, 0.5);
    return f;
}

typedef struct {
    const gen_val *carry;
} yield_env;

/* x may combine with the carry (carry first) without changing its type. */
static bool fits_carry(gen *g, const gen_val *v, const void *env) {
    (void)g;
    const gen_val *c = ((const yield_env *)env)->carry;
    if (!nonempty(v) || gen_elem(v) != gen_elem(c) || kind_of(v) == TIR_TYPE_VIEW) return false;
    if (kind_of(v) == TIR_TYPE_INDEX) return kind_of(c) == TIR_TYPE_INDEX;
    if (!gen_is_tile(v)) return true;
    return gen_is_tile(c) && tir_space_broadcasts_to(tir_type_space(tir_value_type(v->v)), tir_type_space(tir_value_type(c->v)));
}

/* The value the loop yields for `carry` (facts fc, initial facts init, n iterations). */
static tir_value *yield_for(gen *g, const gen_val *carry, const diff_facts *init, double n) {
    tir_scalar s = gen_elem(carry);
    yield_env env = {carry};
    gen_val x;
    int form = (int)gen_below(g, 10);
    if (form < 6 && gen_pick(g, fits_carry, &env, &x)) { /* accumulate */
        diff_facts f;
        if (s == TIR_BOOL) {
            tir_ew_op op = gen_chance(g, 0.5) ? TIR_EW_AND : TIR_EW_OR;
            return tir_ew2(g->b, op, carry->v, x.v);
        }
        if (!is_float(s)) {
            tir_ew_op op = PICK(g, INT_OPS);
            if (tir_ew_arity(op) == 1 || (op == TIR_EW_NEG)) op = TIR_EW_ADD;
            return tir_ew2(g->b, op, carry->v, x.v);
        }
        tir_ew_op op = gen_chance(g, 0.6) ? (gen_chance(g, 0.7) ? TIR_EW_ADD : TIR_EW_SUB) : (gen_chance(g, 0.5) ? TIR_EW_MIN : TIR_EW_MAX);
        if (op == TIR_EW_MIN || op == TIR_EW_MAX) {
            if (diff_facts_within(&x.f, &carry->f)) return tir_ew2(g->b, op, carry->v, x.v);
        } else {
            /* carry + x: the sum of x from init; carry - x and x - carry: of ±x from ±init */
            bool rsub = op == TIR_EW_SUB && !gen_is_tile(&x) && gen_chance(g, 0.5);
            diff_facts from = rsub ? symmetric(init) : *init;
            diff_facts xs = op == TIR_EW_SUB ? symmetric(&x.f) : x.f;
            if (!diff_facts_fold(TIR_EW_ADD, s, &from, &xs, n, false, &f) || !diff_facts_within(&f, &carry->f)) {
                double room = (fmin(carry->f.hi, -carry->f.lo) - diff_facts_bound(init)) / fmax(n, 1);
                double k = room >= 1 ? floor(room) : room >= 0.25 ? 0.25 : 0;
                if (k > 0) x = clamp(g, x, k), xs = op == TIR_EW_SUB ? symmetric(&x.f) : x.f;
            }
            if (diff_facts_fold(TIR_EW_ADD, s, &from, &xs, n, false, &f) && diff_facts_within(&f, &carry->f))
                return rsub ? tir_ew2(g->b, op, x.v, carry->v) : tir_ew2(g->b, op, carry->v, x.v);
        }
        g->stats->retries++;
    }
    if (form < 8) { /* select between the carry and a value inside its facts */
        if (gen_pick(g, fits_carry, &env, &x) && diff_facts_within(&x.f, &carry->f)) {
            gen_val c = condition(g, true);
            if (!gen_live(g)) return NULL;
            /* the join starts from the first value operand of largest rank: the carry, for a tile x */
            bool carry_first = gen_is_tile(&x) || gen_chance(g, 0.5);
            return carry_first ? tir_select(g->b, c.v, carry->v, x.v) : tir_select(g->b, c.v, x.v, carry->v);
        }
    }
    /* any value of the carry's exact type inside its facts (another carry: a swap) */
    type_env te = {tir_value_type(carry->v)};
    if (gen_pick(g, has_type, &te, &x) && diff_facts_within(&x.f, &carry->f)) return x.v;
    return carry->v;
}

static bool is_carriable(gen *g, const gen_val *v, const void *env) {
    (void)g, (void)env;
    return nonempty(v) && kind_of(v) != TIR_TYPE_VIEW && gen_volume(v) <= 64 && gen_rank(v) <= GEN_MAX_RANK;
}

static bool gen_loop(gen *g) {
    if (g->depth >= GEN_MAX_DEPTH) return false;
    bool pipeline = gen_chance(g, 0.4);
    uint32_t rank = gen_chance(g, 0.85) ? 1 : 2;
    tir_dim *ld[2];
    uint64_t le[2];
    double n = 1;
    for (uint32_t i = 0; i < rank; i++) {
        char label[16];
        snprintf(label, sizeof label, "l%u", g->fresh++);
        ld[i] = tir_dim_new(g->m, label);
        le[i] = gen_chance(g, 0.04) ? 0 : (uint64_t)gen_range(g, 1, 6);
        n *= (double)le[i];
    }
    int n_carry = gen_chance(g, 0.2) ? 0 : gen_range(g, 1, 3);
    gen_val init[3];
    tir_value *iv[3];
    for (int i = 0; i < n_carry; i++) {
        if (!gen_chance(g, 0.8) || !gen_pick(g, is_carriable, NULL, &init[i])) init[i] = gen_const_scalar(g, gen_pick_elem(g, 0));
        iv[i] = init[i].v;
    }
    tir_region_opts opts = {0};
    if (pipeline) opts.stages = (uint64_t)gen_range(g, 0, 3), opts.initiation_interval = (uint64_t)gen_range(g, 1, 2);
    tir_op *loop = tir_region_begin(g->b, pipeline ? TIR_OP_PIPELINE : TIR_OP_SERIAL, tir_space_make(g->m, rank, ld, le),
                                    &opts, (size_t)n_carry, iv);
    if (!loop) return (g->failed = true), false;
    body_state st = body_open(g);
    g->in_pipeline_top = pipeline;
    for (uint32_t i = 0; i < rank; i++)
        gen_push(g, tir_region_coord(loop, i), diff_facts_range(TIR_I64, 0, fmax((double)le[i] - 1, 0), 0, false));
    gen_val carry[3];
    for (int i = 0; i < n_carry; i++) carry[i] = gen_push(g, tir_region_carry(loop, (size_t)i), assumed(g, &init[i]));
    gen_block(g, gen_range(g, 1, 5));
    g->in_pipeline_top = 0;
    tir_value *y[3];
    for (int i = 0; i < n_carry && gen_live(g); i++) y[i] = yield_for(g, &carry[i], &init[i].f, n);
    diff_facts fc[3];
    for (int i = 0; i < n_carry; i++) fc[i] = carry[i].f;
    body_close(g, &st);
    if (!gen_live(g) || tir_region_end(g->b, loop, (size_t)n_carry, y)) return (g->failed = true), false;
    for (int i = 0; i < n_carry; i++) gen_push(g, tir_op_result(loop, (size_t)i), fc[i]);
    return gen_live(g);
}

/* ---- mergeable reductions (split across programs) ---- */

typedef enum { MERGE_ADD, MERGE_ADD_OFFSET, MERGE_MUL, MERGE_MAX, MERGE_MIN } merge_op;

/* A constant carry value: a scalar, or a tile splat of this space. */
static gen_val carry_const(gen *g, tir_scalar s, bool tile, uint32_t rank, const int *dims, const uint64_t *ext, double v) {
    if (!tile) return is_float(s) ? float_const(g, s, v) : gen_push(g, tir_const_int(g->b, s, (int64_t)v), diff_facts_const(s, v));
    tir_type *t = tir_type_tile(g->m, s, gen_space(g, rank, dims, ext));
    tir_literal lit = is_float(s) ? (tir_literal){TIR_LIT_FLOAT, {.f = v}} : (tir_literal){TIR_LIT_INT, {.i = (int64_t)v}};
    return gen_push(g, tir_const(g->b, t, lit), diff_facts_const(s, v));
}

static tir_ew_op merge_ew(merge_op m) {
    return m == MERGE_MUL ? TIR_EW_MUL : m == MERGE_MAX ? TIR_EW_MAX : m == MERGE_MIN ? TIR_EW_MIN : TIR_EW_ADD;
}

/* min(max(v, -k), k) whatever v's facts: finite (min/max drop NaN: IEEE
 * minimumNumber/maximumNumber), exact when v is. */
static gen_val clamp_finite(gen *g, gen_val v, double k) {
    tir_scalar s = gen_elem(&v);
    gen_val lo = float_const(g, s, -k), hi = float_const(g, s, k);
    diff_facts f = v.f;
    f.special = false;
    f.lo = v.f.special || v.f.lo > v.f.hi ? -k : fmax(v.f.lo, -k);
    f.hi = v.f.special || v.f.lo > v.f.hi ? k : fmin(v.f.hi, k);
    return gen_push(g, tir_ew2(g->b, TIR_EW_MIN, tir_ew2(g->b, TIR_EW_MAX, v.v, lo.v), hi.v), f);
}

static double unit_of(tir_scalar s) { return s == TIR_F64 ? 0x1p-53 : 0x1p-24; }

/* The online-softmax state (m, s[, o]) over x (scalar) and v (a tile for o):
 *   m' = max(m, x), c = exp(m - m'), e = exp(x - m'), s' = s·c + e, o' = o·c + e·v
 * merged by rescaling both states to the larger max.  Returns the yields. */
static void softmax_update(gen *g, tir_op *red, int k, tir_value *x, tir_value *v, tir_value **y) {
    tir_value *m = tir_region_carry(red, 0), *s = tir_region_carry(red, 1);
    tir_value *m1 = gen_chance(g, 0.5) ? tir_ew2(g->b, TIR_EW_MAX, m, x) : tir_ew2(g->b, TIR_EW_MAX, x, m);
    tir_value *c = tir_ew1(g->b, TIR_EW_EXP, tir_ew2(g->b, TIR_EW_SUB, m, m1));
    tir_value *e = tir_ew1(g->b, TIR_EW_EXP, tir_ew2(g->b, TIR_EW_SUB, x, m1));
    y[0] = m1;
    y[1] = tir_ew2(g->b, TIR_EW_ADD, tir_ew2(g->b, TIR_EW_MUL, s, c), e);
    if (k == 3) {
        tir_value *o = tir_region_carry(red, 2);
        y[2] = tir_ew2(g->b, TIR_EW_ADD, tir_ew2(g->b, TIR_EW_MUL, o, c), tir_ew2(g->b, TIR_EW_MUL, v, e));
    }
}

static void softmax_merge(gen *g, tir_op *red, int k, tir_value **y) {
    tir_value *lm = tir_combine_arg(red, 0), *rm = tir_combine_arg(red, (size_t)k);
    tir_value *mm = tir_ew2(g->b, TIR_EW_MAX, lm, rm);
    tir_value *el = tir_ew1(g->b, TIR_EW_EXP, tir_ew2(g->b, TIR_EW_SUB, lm, mm));
    tir_value *er = tir_ew1(g->b, TIR_EW_EXP, tir_ew2(g->b, TIR_EW_SUB, rm, mm));
    y[0] = mm;
    for (int i = 1; i < k; i++)
        y[i] = tir_ew2(g->b, TIR_EW_ADD, tir_ew2(g->b, TIR_EW_MUL, tir_combine_arg(red, (size_t)i), el),
                       tir_ew2(g->b, TIR_EW_MUL, tir_combine_arg(red, (size_t)(k + i)), er));
}

bool gen_split_reduce(gen *g) {
    if (g->depth != 1 || g->in_map || !gen_live(g)) return false;
    g->no_store = true; /* in the body too: trips may run in any order */
    /* the domain: the first axis (the one a split chunks) of 2..40 trips, sometimes a second one */
    int nax = gen_chance(g, 0.2) ? 2 : 1;
    tir_dim *rd[2];
    uint64_t re[2];
    double n = 1;
    for (int a = 0; a < nax; a++) {
        char label[16];
        snprintf(label, sizeof label, "r%u", g->fresh++);
        rd[a] = tir_dim_new(g->m, label);
        re[a] = a ? (uint64_t)gen_range(g, 1, 3) : gen_chance(g, 0.5) ? (uint64_t)gen_range(g, 2, 8) : (uint64_t)gen_range(g, 9, 40);
        n *= (double)re[a];
    }
    bool softmax = gen_chance(g, 0.25);
    tir_scalar fl = g->floats[gen_below(g, (uint32_t)g->n_floats)];
    int k = softmax ? (re[0] * (nax > 1 ? re[1] : 1) <= 24 && gen_chance(g, 0.6) ? 3 : 2) : gen_range(g, 1, 3);
    tir_scalar elem[3];
    bool tile[3];
    uint32_t rank[3];
    int dims[3][GEN_MAX_RANK];
    uint64_t ext[3][GEN_MAX_RANK];
    merge_op op[3];
    int64_t offset[3] = {0, 0, 0};
    gen_val init[3];
    tir_value *iv[3];
    for (int j = 0; j < k; j++) {
        elem[j] = softmax ? fl : gen_pick_elem(g, 3);
        tile[j] = softmax ? j == 2 : gen_chance(g, 0.4);
        rank[j] = 0;
        if (tile[j] && !gen_chance(g, 0.08)) { /* rank 1-2 over distinct tile dims, at most 64 elements */
            rank[j] = (uint32_t)free_dims(g, dims[j], gen_chance(g, 0.7) ? 1 : 2);
            uint64_t vol = 1;
            for (uint32_t a = 0; a < rank[j]; a++) vol *= (ext[j][a] = gen_chance(g, 0.2) ? 1 : g->ext[dims[j][a]]);
            for (uint32_t a = 0; vol > 64 && a < rank[j]; a++) vol /= ext[j][a], ext[j][a] = 1;
            if (!rank[j] && gen_chance(g, 0.5)) tile[j] = false; /* else a tile of rank 0 */
        }
        if (softmax) {
            op[j] = j == 0 ? MERGE_MAX : MERGE_ADD;
            init[j] = carry_const(g, elem[j], tile[j], rank[j], dims[j], ext[j], j == 0 ? -INFINITY : 0.0);
        } else {
            static const merge_op ops[] = {MERGE_ADD, MERGE_ADD, MERGE_ADD_OFFSET, MERGE_MUL, MERGE_MAX, MERGE_MIN};
            op[j] = ops[gen_below(g, 6)];
            if (op[j] == MERGE_ADD_OFFSET && is_float(elem[j])) op[j] = MERGE_ADD;
            type_env te = {tile[j] ? tir_type_tile(g->m, elem[j], gen_space(g, rank[j], dims[j], ext[j])) : NULL};
            gen_val v;
            if (op[j] == MERGE_ADD) {
                init[j] = carry_const(g, elem[j], tile[j], rank[j], dims[j], ext[j], gen_chance(g, 0.1) && is_float(elem[j]) ? -0.0 : 0.0);
            } else if (op[j] == MERGE_MUL) {
                init[j] = carry_const(g, elem[j], tile[j], rank[j], dims[j], ext[j], 1.0);
            } else if (op[j] == MERGE_ADD_OFFSET) { /* chunks each start at c: merge(l, r) = l + (r - c) */
                offset[j] = gen_range(g, tir_scalar_is_signed(elem[j]) ? -20 : 1, 20);
                init[j] = carry_const(g, elem[j], tile[j], rank[j], dims[j], ext[j], (double)offset[j]);
            } else if (is_float(elem[j]) && gen_chance(g, 0.4)) { /* max/min: any start value is idempotent */
                init[j] = carry_const(g, elem[j], tile[j], rank[j], dims[j], ext[j], op[j] == MERGE_MAX ? -INFINITY : INFINITY);
            } else if (!tile[j] && gen_chance(g, 0.6) && gen_pick(g, scalar_of_elem, &elem[j], &v) && kind_of(&v) == TIR_TYPE_SCALAR) {
                init[j] = v;
            } else if (tile[j] && gen_chance(g, 0.5) && gen_pick(g, has_type, &te, &v)) {
                init[j] = v;
            } else {
                gen_val c = gen_const_scalar(g, elem[j]);
                init[j] = tile[j] ? gen_push(g, tir_lib_full(g->b, gen_space(g, rank[j], dims[j], ext[j]), c.v), c.f) : c;
            }
        }
        iv[j] = init[j].v;
    }
    if (!gen_live(g)) return false;
    tir_region_opts opts = {.policy = gen_chance(g, 0.5) ? TIR_REDUCE_UNORDERED_TREE : TIR_REDUCE_ORDERED_TREE};
    tir_op *red = tir_region_begin(g->b, TIR_OP_REDUCE, tir_space_make(g->m, (size_t)nax, rd, re), &opts, (size_t)k, iv);
    if (!red) return (g->failed = true), false;
    body_state st = body_open(g);
    gen_val rc[2];
    for (int a = 0; a < nax; a++)
        rc[a] = gen_push(g, tir_region_coord(red, (size_t)a), diff_facts_range(TIR_I64, 0, (double)re[a] - 1, 0, false));
    /* what the body reads at the coordinate: one load per carry (softmax: the score x and the value row v) */
    gen_val x[3];
    for (int j = 0; j < k; j++) {
        bool scalar_x = softmax ? j != 2 : !tile[j] || gen_chance(g, 0.2);
        if (softmax && j == 1) {
            x[1] = x[0];
            continue;
        }
        const gen_val *at = nax > 1 && gen_chance(g, 0.3) ? &rc[1] : &rc[0];
        uint64_t trips = at == &rc[0] ? re[0] : re[1];
        if (!gen_load_at(g, elem[j], at, trips, scalar_x ? 0 : rank[j], dims[j], ext[j], &x[j])) {
            if (!gen_live(g)) return false;
            x[j] = gen_const_scalar(g, elem[j]);
        }
    }
    tir_value *y[3];
    diff_facts res[3];
    if (softmax) { /* the score: finite and small (min/max drop NaN: IEEE minimumNumber) */
        x[0] = diff_facts_exact(&x[0].f) ? clamp_finite(g, x[0], 4.0) : float_const(g, fl, gen_range(g, -16, 16) / 4.0);
        gen_val v = x[k == 3 ? 2 : 0];
        if (k == 3) { /* the value row: finite */
            v = diff_facts_exact(&v.f) ? clamp_finite(g, v, 8.0) : carry_const(g, fl, false, 0, NULL, NULL, 1.5);
        }
        gen_block(g, gen_range(g, 0, 2));
        softmax_update(g, red, k, x[0].v, v.v, y);
        double u = unit_of(fl), B = fmax(diff_facts_bound(&v.f), 1);
        res[0] = x[0].f;
        res[1] = diff_facts_range(fl, 1, n, DIFF_GRID_NONE, false);
        res[1].er = (8 * n + 8) * u;
        if (k == 3) {
            res[2] = diff_facts_range(fl, -n * B, n * B, DIFF_GRID_NONE, false);
            res[2].ea = B * n * (2 * n + 8) * u;
        }
    } else {
        gen_block(g, gen_range(g, 0, 3)); /* the generator's statements (no stores) may read the loads */
        for (int j = 0; j < k && gen_live(g); j++) {
            gen_val cv = {tir_region_carry(red, (size_t)j), init[j].f, -1}, u = x[j];
            yield_env env = {&cv};
            if (gen_chance(g, 0.4) && !gen_pick(g, fits_carry, &env, &u)) u = x[j];
            tir_ew_op e = merge_ew(op[j]);
            if (!diff_facts_fold(e, elem[j], &init[j].f, &u.f, n, true, &res[j]) && is_float(elem[j])) {
                g->stats->retries++;
                if (e == TIR_EW_ADD) u = clamp(g, u, 1.0);
                if (e != TIR_EW_ADD || !diff_facts_fold(e, elem[j], &init[j].f, &u.f, n, true, &res[j])) {
                    /* max: the start value stays an identity */
                    op[j] = MERGE_MAX, e = TIR_EW_MAX;
                    diff_facts_fold(e, elem[j], &init[j].f, &u.f, n, true, &res[j]);
                }
            }
            if ((e == TIR_EW_MAX || e == TIR_EW_MIN) && is_float(elem[j]) && init[j].f.lo > init[j].f.hi)
                res[j].lo = fmin(res[j].lo, u.f.lo), res[j].hi = fmax(res[j].hi, u.f.hi);
            if (!is_float(elem[j]) && e != TIR_EW_MAX && e != TIR_EW_MIN) res[j] = diff_facts_any(elem[j]);
            tir_value *c = cv.v;
            /* the join starts from the first operand of largest rank: the carry, for a tile u */
            y[j] = gen_is_tile(&u) || gen_chance(g, 0.5) ? tir_ew2(g->b, e, c, u.v) : tir_ew2(g->b, e, u.v, c);
        }
    }
    body_close(g, &st);
    if (!gen_live(g) || tir_region_end(g->b, red, (size_t)k, y)) return (g->failed = true), false;
    if (!tir_combine_begin(g->b, red)) return (g->failed = true), false;
    tir_value *merged[3];
    if (softmax) {
        softmax_merge(g, red, k, merged);
    } else {
        for (int j = 0; j < k; j++) {
            tir_value *l = tir_combine_arg(red, (size_t)j), *r = tir_combine_arg(red, (size_t)(k + j));
            if (op[j] == MERGE_ADD_OFFSET) r = tir_ew2(g->b, TIR_EW_SUB, r, tir_const_int(g->b, elem[j], offset[j]));
            bool swap = gen_chance(g, 0.5); /* every merge here commutes */
            merged[j] = tir_ew2(g->b, merge_ew(op[j]), swap ? r : l, swap ? l : r);
        }
    }
    if (!gen_live(g) || tir_combine_end(g->b, red, (size_t)k, merged)) return (g->failed = true), false;
    /* the split= option: chunks in 2..trips (tails included), off, or the facade's choice */
    int r = (int)gen_below(g, 10);
    if (!g->split_chosen) /* a later mergeable reduce leaves it: the first one is split */
        g->c.split = r < 2 ? 0 : r < 3 ? -1 : gen_chance(g, 0.5) ? gen_range(g, 2, re[0] < 4 ? (int)re[0] : 4) : gen_range(g, 2, (int)re[0]);
    g->split_chosen = true;
    g->no_store = false;
    gen_val out[3];
    for (int j = 0; j < k; j++) out[j] = gen_push(g, tir_op_result(red, (size_t)j), res[j]);
    for (int j = 0; j < k && gen_live(g); j++)
        if (gen_chance(g, 0.85)) gen_store(g, &out[j]);
    g->stats->statements++;
    return gen_live(g);
}

/* ---- sugar ---- */

static bool gen_sugar(gen *g) {
    int which = (int)gen_below(g, 4);
    gen_val t;
    req r = {TIR_SCALAR_INVALID, false, false, true, false};
    if (which == 0) { /* iota */
        int d = (int)gen_below(g, (uint32_t)g->n_dims);
        gen_push(g, tir_lib_iota(g->b, g->dims[d], g->ext[d]), diff_facts_range(TIR_I64, 0, (double)g->ext[d] - 1, 0, false));
        return gen_live(g);
    }
    if (which == 1) { /* full */
        req rs = {TIR_SCALAR_INVALID, false, true, false, true};
        gen_val v;
        if (!gen_pick(g, matches, &rs, &v)) return false;
        int dims[2];
        uint32_t rank = (uint32_t)free_dims(g, dims, gen_chance(g, 0.5) ? 1 : 2);
        uint64_t ext[2], vol = 1;
        for (uint32_t i = 0; i < rank; i++) vol *= (ext[i] = g->ext[dims[i]]);
        if (!rank || vol > GEN_MAX_VOLUME) return false;
        gen_push(g, tir_lib_full(g->b, gen_space(g, rank, dims, ext), v.v), v.f);
        return gen_live(g);
    }
    if (!gen_pick(g, matches, &r, &t)) return false;
    shape s;
    shape_of(&t, &s);
    int dims[GEN_MAX_RANK];
    uint64_t ext[GEN_MAX_RANK];
    for (uint32_t i = 0; i < s.rank; i++) dims[i] = dim_index(g, s.d[i]), ext[i] = s.e[i];
    if (which == 2) { /* broadcast: widen unit axes, maybe append one dim */
        uint32_t rank = s.rank;
        for (uint32_t i = 0; i < rank; i++)
            if (ext[i] == 1 && gen_chance(g, 0.7)) ext[i] = g->ext[dims[i]];
        if (rank < GEN_MAX_RANK && gen_chance(g, 0.6)) {
            int d = (int)gen_below(g, (uint32_t)g->n_dims), dup = 0;
            for (uint32_t i = 0; i < rank; i++) dup |= dims[i] == d;
            if (!dup) dims[rank] = d, ext[rank] = g->ext[d], rank++;
        }
        uint64_t vol = 1;
        for (uint32_t i = 0; i < rank; i++) vol *= ext[i];
        if (vol > GEN_MAX_VOLUME) return false;
        gen_push(g, tir_lib_broadcast_to(g->b, t.v, gen_space(g, rank, dims, ext)), t.f);
        return gen_live(g);
    }
    /* relabel: every axis to a distinct dim of the same canonical extent (unit axes anywhere) */
    int to[GEN_MAX_RANK];
    for (uint32_t i = 0; i < s.rank; i++) {
        int found = -1;
        for (int tries = 0; tries < 12 && found < 0; tries++) {
            int d = (int)gen_below(g, (uint32_t)g->n_dims), dup = 0;
            for (uint32_t j = 0; j < i; j++) dup |= to[j] == d;
            if (!dup && (ext[i] == 1 || g->ext[d] == ext[i])) found = d;
        }
        if (found < 0) return false;
        to[i] = found;
    }
    gen_push(g, tir_lib_relabel(g->b, t.v, gen_space(g, s.rank, to, ext)), t.f);
    return gen_live(g);
}

/* ---- the statement mix ---- */

typedef enum {
    S_LOAD_TILE, S_LOAD_SCALAR, S_EW, S_CAST, S_SELECT, S_CONST, S_EXTRACT, S_MAP, S_REDUCE, S_REDUCE_SUGAR,
    S_MMA, S_LOOP, S_STORE, S_SUGAR, S_COUNT
} stmt_kind;

/* weights: outside maps, inside maps (no memory effects) */
static const int WEIGHTS[S_COUNT][2] = {
    [S_LOAD_TILE] = {14, 0}, [S_LOAD_SCALAR] = {5, 0}, [S_EW] = {26, 30}, [S_CAST] = {6, 6},
    [S_SELECT] = {7, 8},     [S_CONST] = {3, 4},       [S_EXTRACT] = {6, 14}, [S_MAP] = {5, 3},
    [S_REDUCE] = {6, 8},     [S_REDUCE_SUGAR] = {5, 3}, [S_MMA] = {5, 2},   [S_LOOP] = {6, 2},
    [S_STORE] = {8, 0},      [S_SUGAR] = {4, 3},
};

static bool is_storable_value(gen *g, const gen_val *v, const void *env) {
    (void)g, (void)env;
    return kind_of(v) != TIR_TYPE_INDEX && kind_of(v) != TIR_TYPE_VIEW && gen_rank(v) <= GEN_MAX_RANK &&
           (!gen_is_tile(v) || gen_rank(v) > 0);
}

static bool run_statement(gen *g, stmt_kind k) {
    gen_val v;
    switch (k) {
    case S_LOAD_TILE: return gen_load_tile(g);
    case S_LOAD_SCALAR: return gen_load_scalar(g);
    case S_EW: return gen_ew(g);
    case S_CAST: return gen_cast(g);
    case S_SELECT: return gen_select(g);
    case S_CONST: return gen_const(g);
    case S_EXTRACT: return gen_extract(g);
    case S_MAP: return gen_map(g);
    case S_REDUCE: return gen_reduce(g);
    case S_REDUCE_SUGAR: return gen_reduce_sugar(g);
    case S_MMA: return gen_mma(g);
    case S_LOOP: return gen_loop(g);
    case S_STORE: return gen_pick(g, is_storable_value, NULL, &v) && gen_store(g, &v);
    case S_SUGAR: return gen_sugar(g);
    default: return false;
    }
}

/* Row kernels: no loops or mma; map bodies hold no regions (sugar is maps).
 * Before the root parallel only constants and elementwise ops (admission). */
static int weight(const gen *g, int k) {
    int w = WEIGHTS[k][g->in_map ? 1 : 0];
    if (g->depth == 0 && k != S_EW && k != S_CAST && k != S_SELECT && k != S_CONST) return 0; /* before the root */
    if (g->local_mode && (k == S_MMA || k == S_LOOP)) return 0;
    if (g->local_mode && g->in_map && (k == S_MAP || k == S_REDUCE || k == S_REDUCE_SUGAR || k == S_SUGAR)) return 0;
    return w;
}

bool gen_statement(gen *g) {
    int total = 0;
    for (int k = 0; k < S_COUNT; k++) total += weight(g, k);
    for (int tries = 0; tries < 6 && gen_live(g); tries++) {
        int r = (int)gen_below(g, (uint32_t)total), k = 0;
        while (r >= weight(g, k)) r -= weight(g, k++);
        if (run_statement(g, (stmt_kind)k)) {
            g->stats->statements++;
            return true;
        }
        g->stats->retries++;
    }
    return false;
}

void gen_block(gen *g, int statements) {
    for (int i = 0; i < statements && gen_live(g); i++) {
        if (g->in_pipeline_top && gen_chance(g, 0.3)) {
            static const char *const names[] = {NULL, "load", "compute", "update"};
            tir_stage(g->b, names[gen_below(g, 4)]);
        }
        gen_statement(g);
    }
}
