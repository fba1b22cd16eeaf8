/* diff_gen.c — the generator's skeleton and memory half (diff_gen.h,
 * diff_gen_internal.h): the random stream, the visible-value stack, index
 * expressions with exact intervals, the kernel's buffers and views (input
 * buffers read anywhere; row-partitioned buffers written and read only in
 * the instance's own rows, through any number of aliasing views at whole-row
 * offsets), tile/scalar/masked loads, stores, and diff_generate itself.
 *
 * An access is `bounds=assume`, or a scalar access unmasked, only when the
 * interval of every index proves it in range for every instance and loop
 * iteration — except, in some kernels when the `oob` option allows it, one
 * access out of range on purpose. */
#include "diff_gen_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- random choices ---- */

uint64_t gen_rand(gen *g) { /* splitmix64 */
    uint64_t z = (g->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint32_t gen_below(gen *g, uint32_t n) { return n ? (uint32_t)(gen_rand(g) % n) : 0; }
bool gen_chance(gen *g, double p) { return (double)(gen_rand(g) >> 11) * 0x1.0p-53 < p; }
int gen_range(gen *g, int lo, int hi) { return lo + (int)gen_below(g, (uint32_t)(hi - lo + 1)); }

/* ---- visible values ---- */

bool gen_live(gen *g) { return !g->failed && tir_builder_status(g->b) == TILEC_OK; }

gen_val gen_push(gen *g, tir_value *v, diff_facts f) {
    gen_val x = {v, f, -1};
    if (!v) {
        if (!g->failed) g->why = "a builder call returned no value";
        g->failed = true;
        return x;
    }
    if (g->n_vals == g->cap_vals) {
        g->cap_vals = g->cap_vals ? 2 * g->cap_vals : 64;
        g->vals = realloc(g->vals, g->cap_vals * sizeof *g->vals);
    }
    g->vals[g->n_vals++] = x;
    return x;
}

bool gen_pick(gen *g, gen_filter ok, const void *env, gen_val *out) {
    enum { MAX = 512 };
    size_t cand[MAX], n = 0;
    bool unused_only = gen_chance(g, 0.5); /* grows chains instead of dead branches */
    for (int pass = 0; pass < 2 && !n; pass++, unused_only = false)
        for (size_t i = g->n_vals; i-- > 0 && n < MAX;)
            if ((!unused_only || tir_value_use_count(g->vals[i].v) == 0) && ok(g, &g->vals[i], env)) cand[n++] = i;
    if (!n) return false;
    /* newest first; squaring favours recent values */
    double r = (double)(gen_rand(g) >> 11) * 0x1.0p-53;
    *out = g->vals[cand[(size_t)(r * r * (double)n)]];
    return true;
}

tir_scalar gen_elem(const gen_val *v) { return tir_type_elem(tir_value_type(v->v)); }
bool gen_is_tile(const gen_val *v) { return tir_type_kind_of(tir_value_type(v->v)) == TIR_TYPE_TILE; }
uint32_t gen_rank(const gen_val *v) {
    return gen_is_tile(v) ? (uint32_t)tir_space_rank(tir_type_space(tir_value_type(v->v))) : 0;
}
uint64_t gen_volume(const gen_val *v) {
    uint64_t n = 1;
    if (gen_is_tile(v)) tir_space_volume(tir_type_space(tir_value_type(v->v)), &n);
    return n;
}

tir_space *gen_space(gen *g, uint32_t rank, const int *dims, const uint64_t *ext) {
    tir_dim *d[GEN_MAX_RANK + 2];
    for (uint32_t i = 0; i < rank; i++) d[i] = g->dims[dims[i]];
    return tir_space_make(g->m, rank, d, ext);
}

/* ---- index values ---- */

static diff_facts index_facts(int64_t lo, int64_t hi) { return diff_facts_range(TIR_I64, (double)lo, (double)hi, 0, false); }

gen_val gen_index_const(gen *g, int64_t v) { return gen_push(g, tir_const_index(g->b, v), index_facts(v, v)); }

gen_val gen_index_add(gen *g, gen_val a, gen_val b) {
    diff_facts f;
    diff_facts_ew(TIR_EW_ADD, TIR_I64, &a.f, &b.f, &f);
    return gen_push(g, tir_ew2(g->b, TIR_EW_ADD, a.v, b.v), f);
}

gen_val gen_index_mul_const(gen *g, gen_val a, int64_t k) {
    if (k == 1) return a;
    gen_val c = gen_index_const(g, k);
    diff_facts f;
    diff_facts_ew(TIR_EW_MUL, TIR_I64, &a.f, &c.f, &f);
    return gen_push(g, tir_ew2(g->b, TIR_EW_MUL, a.v, c.v), f);
}

static bool is_small_index(gen *g, const gen_val *v, const void *env) {
    (void)g, (void)env;
    return tir_type_kind_of(tir_value_type(v->v)) == TIR_TYPE_INDEX && v->f.lo >= -64 && v->f.hi <= 64;
}

/* Sometimes an index of another integer type (its value when it fits, the
 * wrapped one otherwise; `must_fit`: only when it fits). */
static gen_val retype(gen *g, gen_val v, bool must_fit) {
    static const tir_scalar types[] = {TIR_I8, TIR_U8, TIR_I16, TIR_U16, TIR_I32, TIR_U32, TIR_I64, TIR_U64};
    if (!gen_chance(g, 0.1)) return v;
    tir_scalar s = types[gen_below(g, 8)];
    diff_facts f;
    diff_facts_cast(TIR_I64, s, &v.f, &f);
    if (must_fit && (f.lo != v.f.lo || f.hi != v.f.hi)) return v;
    return gen_push(g, tir_cast(g->b, v.v, s), f);
}

static gen_val origin_value(gen *g, uint64_t e, uint64_t t) {
    gen_val v;
    int64_t span = (int64_t)e - (int64_t)t;
    if (gen_chance(g, 0.02)) { /* far away: the guards must not overflow */
        static const int64_t far[] = {INT64_MAX - 2, INT64_MIN + 2, (int64_t)1 << 62, -((int64_t)1 << 62)};
        return gen_index_const(g, far[gen_below(g, 4)]);
    }
    if (gen_chance(g, 0.5) && gen_pick(g, is_small_index, NULL, &v)) {
        int64_t scale = gen_chance(g, 0.6) ? 1 : gen_chance(g, 0.5) ? 2 : (int64_t)(t ? t : 1);
        v = gen_index_mul_const(g, v, scale);
        int64_t c = gen_chance(g, 0.7) ? -(int64_t)v.f.lo + gen_range(g, 0, span > 0 ? (int)span : 0) : gen_range(g, -3, 3);
        return c ? gen_index_add(g, v, gen_index_const(g, c)) : v;
    }
    if (gen_chance(g, 0.75) && span >= 0) return gen_index_const(g, gen_range(g, 0, (int)span));
    return gen_index_const(g, gen_range(g, -2, (int)span + 2));
}

gen_val gen_index_origin(gen *g, uint64_t e, uint64_t t) { return retype(g, origin_value(g, e, t), false); }

typedef struct {
    uint64_t e;
    int dim;
} index_in_env;

static bool is_coord_of(gen *g, const gen_val *v, const void *env) {
    (void)g;
    const index_in_env *x = env;
    return v->dim == x->dim && v->f.lo == 0 && v->f.hi == (double)x->e - 1;
}

bool gen_coord(gen *g, uint64_t e, int dim, gen_val *out) {
    index_in_env env = {e, dim};
    return gen_pick(g, is_coord_of, &env, out);
}

static bool is_index_within(gen *g, const gen_val *v, const void *env) {
    (void)g;
    const index_in_env *x = env;
    tir_scalar s = gen_elem(v);
    bool integer = tir_type_kind_of(tir_value_type(v->v)) != TIR_TYPE_TILE && tir_scalar_is_integer(s);
    return integer && v->f.lo >= 0 && v->f.hi <= (double)x->e - 1;
}

static bool is_nonneg_index(gen *g, const gen_val *v, const void *env) {
    (void)g, (void)env;
    return tir_type_kind_of(tir_value_type(v->v)) == TIR_TYPE_INDEX && v->f.lo >= 0;
}

static gen_val index_in(gen *g, uint64_t e, int dim) {
    index_in_env env = {e, dim};
    gen_val v;
    if (e > 1 && dim >= 0 && gen_chance(g, 0.8) && gen_coord(g, e, dim, &v)) return v;
    if (gen_chance(g, 0.4) && gen_pick(g, is_index_within, &env, &v)) return v;
    if (e > 1 && gen_chance(g, 0.2) && gen_pick(g, is_nonneg_index, NULL, &v)) {
        gen_val m = gen_index_const(g, (int64_t)e);
        return gen_push(g, tir_ew2(g->b, TIR_EW_MOD, v.v, m.v), index_facts(0, (int64_t)e - 1));
    }
    return gen_index_const(g, gen_range(g, 0, (int)e - 1));
}

gen_val gen_index_in(gen *g, uint64_t e, int dim) { return retype(g, index_in(g, e, dim), true); }

/* ---- buffers and views ---- */

diff_facts gen_input_facts(gen *g, tir_scalar s) {
    if ((s == TIR_F32 || s == TIR_F64) && g->c.edge_inputs) return diff_facts_any(s);
    if (s == TIR_F32 || s == TIR_F64)
        return g->c.exact_inputs ? diff_facts_range(s, -8, 8, 3, g->c.specials)
                                 : diff_facts_range(s, -2, 2, DIFF_GRID_NONE, g->c.specials);
    if (s == TIR_BOOL) return diff_facts_range(s, 0, 1, 0, false);
    if (g->c.specials && !g->c.exact_inputs) return diff_facts_any(s);
    return diff_facts_range(s, tir_scalar_is_signed(s) ? -30 : 0, 30, 0, false);
}

static uint64_t rows_volume(const uint64_t *ext, uint32_t rank, uint32_t from) {
    uint64_t n = 1;
    for (uint32_t i = from; i < rank; i++) n *= ext[i];
    return n;
}

/* A new parameter bound to buffer `bi` (its owner when it is the first). */
static int new_param(gen *g, int bi, uint64_t offset, uint64_t shift, uint32_t rank, const uint64_t *ext, bool writable) {
    if (g->n_par == GEN_MAX_PARAMS) return -1;
    int pi = g->n_par;
    if (g->failed) return -1; /* after a restart request the pass only winds down: record nothing more */
    gen_param_spec want = {g->buf[bi].elem, rank, {0}, writable};
    memcpy(want.ext, ext, rank * sizeof *ext);
    if (pi == g->specs->n) { /* unknown: record it and start again */
        g->specs->v[g->specs->n++] = want;
        g->restart = g->failed = true;
        return -1;
    }
    const gen_param_spec *have = &g->specs->v[pi];
    if (have->elem != want.elem || have->rank != rank || have->writable != writable ||
        memcmp(have->ext, want.ext, sizeof want.ext)) {
        g->failed = true;
        g->why = "the passes diverged"; /* a generator bug */
        return -1;
    }
    g->n_par++;
    gen_param *p = &g->par[pi];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%c", 'A' + pi);
    p->buffer = bi, p->offset = offset, p->shift = shift, p->rank = rank, p->writable = writable;
    memcpy(p->ext, ext, rank * sizeof *ext);
    p->view = g->spec_views[pi];
    if (g->buf[bi].owner < 0) {
        g->buf[bi].owner = pi;
    } else if (g->c.n_binds < DIFF_MAX_BINDS) {
        diff_bind *b = &g->c.binds[g->c.n_binds++];
        memcpy(b->param, p->name, sizeof p->name);
        memcpy(b->owner, g->par[g->buf[bi].owner].name, sizeof p->name);
        b->offset = offset;
    } else {
        g->failed = true;
        g->why = "too many bindings";
    }
    return pi;
}

static int new_buffer(gen *g, tir_scalar elem, uint32_t rank, const uint64_t *ext, bool partitioned, uint32_t bs,
                      diff_facts content) {
    if (g->n_buf == GEN_MAX_BUFFERS || g->n_par == GEN_MAX_PARAMS) return -1;
    int bi = g->n_buf++;
    gen_buffer *b = &g->buf[bi];
    b->elem = elem, b->rank = rank, b->partitioned = partitioned, b->bs = bs, b->content = content, b->owner = -1;
    memcpy(b->ext, ext, rank * sizeof *ext);
    if (new_param(g, bi, 0, 0, rank, ext, partitioned) >= 0) return bi;
    g->n_buf--; /* no memory without its owner */
    return -1;
}

/* The facts a new written buffer promises for everything it will hold. */
static diff_facts envelope(gen *g, tir_scalar elem, const diff_facts *first) {
    diff_facts in = gen_input_facts(g, elem), f = first ? diff_facts_hull(&in, first) : in;
    if (elem != TIR_F32 && elem != TIR_F64) return tir_scalar_is_integer(elem) ? diff_facts_any(elem) : f;
    static const double widen[] = {8, 64, 1024};
    double w = widen[gen_below(g, 3)];
    f.lo = fmin(f.lo, -w), f.hi = fmax(f.hi, w);
    if (!diff_facts_exact(&f) || gen_chance(g, g->c.exact_inputs ? 0.25 : 0.6)) {
        static const double errs[] = {1e-5, 1e-4, 1e-3};
        f.ea = fmax(f.ea, errs[gen_below(g, 3)]);
        f.er = fmax(f.er, errs[gen_below(g, 3)]);
        f.grid = DIFF_GRID_NONE;
    } else if (f.grid != DIFF_GRID_NONE) {
        f.grid += gen_range(g, 0, 3);
    }
    f.special = f.special || gen_chance(g, 0.3);
    return f;
}

/* A partitioned buffer for tiles whose axis-0 extent is t0. */
static int new_partitioned(gen *g, tir_scalar elem, uint32_t rank, uint64_t t0, const uint64_t *trailing,
                           const diff_facts *first) {
    uint32_t bs = t0 > 4 ? (uint32_t)t0 : (uint32_t)gen_range(g, t0 ? (int)t0 : 1, 4);
    uint64_t ext[GEN_MAX_RANK];
    ext[0] = (g->P - 1) * bs + (uint64_t)gen_range(g, 1, (int)bs);
    for (uint32_t i = 1; i < rank; i++) ext[i] = trailing[i];
    return new_buffer(g, elem, rank, ext, true, bs, envelope(g, elem, first));
}

/* A new view of input buffer `bi`: any shape that fits after a random offset. */
static int alias_input(gen *g, int bi, uint32_t rank) {
    gen_buffer *b = &g->buf[bi];
    uint64_t vol = rows_volume(b->ext, b->rank, 0);
    if (vol < 2) return -1;
    uint64_t off = gen_below(g, (uint32_t)(vol / 2 + 1)), room = vol - off, ext[GEN_MAX_RANK];
    if (rank == 1) ext[0] = room - gen_below(g, (uint32_t)(room / 2 + 1));
    else {
        for (uint32_t i = 1; i < rank; i++) ext[i] = 1 + gen_below(g, 4);
        uint64_t inner = rows_volume(ext, rank, 1);
        if (inner > room) return -1;
        ext[0] = room / inner;
    }
    return ext[0] ? new_param(g, bi, off, 0, rank, ext, false) : -1;
}

/* A new view of partitioned buffer `bi` whose row r is the buffer's row r + shift. */
static int alias_partitioned(gen *g, int bi, bool writable) {
    gen_buffer *b = &g->buf[bi];
    uint64_t shift = gen_below(g, b->ext[0] > 2 ? 3 : (uint32_t)b->ext[0]), ext[GEN_MAX_RANK];
    memcpy(ext, b->ext, sizeof ext);
    ext[0] = b->ext[0] - shift - (gen_chance(g, 0.3) && b->ext[0] - shift > 1 ? 1 : 0);
    return new_param(g, bi, shift * rows_volume(b->ext, b->rank, 1), shift, b->rank, ext, writable);
}

/* The origin of the instance's rows in view p, plus delta. */
static gen_val row_origin(gen *g, const gen_param *p, uint32_t delta) {
    const gen_buffer *b = &g->buf[p->buffer];
    gen_val base = gen_index_mul_const(g, g->L, b->bs);
    int64_t c = (int64_t)delta - (int64_t)p->shift;
    return c ? gen_index_add(g, base, gen_index_const(g, c)) : base;
}

static bool in_range(const gen_val *o, uint64_t t, uint64_t e) { return o->f.lo >= 0 && o->f.hi + (double)t <= (double)e; }

/* A random parameter bound to buffer bi (writable ones only if asked). */
static int param_of(gen *g, int bi, bool writable) {
    int cand[GEN_MAX_PARAMS], n = 0;
    for (int i = 0; i < g->n_par; i++)
        if (g->par[i].buffer == bi && (!writable || g->par[i].writable)) cand[n++] = i;
    return n ? cand[gen_below(g, (uint32_t)n)] : -1;
}

/* A buffer satisfying the request, or -1. */
static int find_buffer(gen *g, tir_scalar elem, uint32_t rank, bool partitioned, uint64_t t0) {
    int cand[GEN_MAX_BUFFERS], n = 0;
    for (int i = 0; i < g->n_buf; i++) {
        gen_buffer *b = &g->buf[i];
        if (b->elem == elem && b->rank == rank && b->partitioned == partitioned && (!partitioned || b->bs >= t0))
            cand[n++] = i;
    }
    return n ? cand[gen_below(g, (uint32_t)n)] : -1;
}

void gen_tile_axes(gen *g, uint32_t rank, int *dims, uint64_t *ext) {
    int order[GEN_DIMS];
    for (int i = 0; i < g->n_dims; i++) order[i] = i;
    for (int i = g->n_dims - 1; i > 0; i--) {
        int j = (int)gen_below(g, (uint32_t)i + 1), t = order[i];
        order[i] = order[j], order[j] = t;
    }
    uint64_t vol = 1;
    for (uint32_t i = 0; i < rank; i++) {
        dims[i] = order[i];
        ext[i] = gen_chance(g, 0.25) ? 1 : g->ext[dims[i]];
        vol *= ext[i];
    }
    for (uint32_t i = 0; vol > (gen_chance(g, 0.8) ? 64 : GEN_MAX_VOLUME) && i < rank; i++) vol /= ext[i], ext[i] = 1;
}

/* Strides for a tile access over axes [from, rank) (docs/tir.md "Strided
 * tiles"): mostly none (NULL), else 1–3 per axis; *span gets each axis's
 * span, what its bounds are checked against. */
static const uint64_t *gen_strides(gen *g, uint32_t from, uint32_t rank, const uint64_t *ext, uint64_t *strides,
                                   uint64_t *span) {
    bool strided = gen_chance(g, 0.2);
    for (uint32_t i = 0; i < rank; i++) {
        strides[i] = strided && i >= from ? (uint64_t)gen_range(g, 1, 3) : 1;
        span[i] = ext[i] ? (ext[i] - 1) * strides[i] + 1 : 0;
    }
    return strided ? strides : NULL;
}

/* The loaded tile: bounds, fill and facts, for view p at `origin`. */
static bool emit_load(gen *g, const gen_param *p, tir_value **origin, const gen_val *ov, uint32_t rank, const int *dims,
                      const uint64_t *ext, gen_val *out) {
    /* a partitioned buffer's rows are its programs': no stride along them */
    uint64_t strides[GEN_MAX_RANK], span[GEN_MAX_RANK];
    const uint64_t *st = gen_strides(g, g->buf[p->buffer].partitioned ? 1 : 0, rank, ext, strides, span);
    bool fits = true;
    for (uint32_t i = 0; i < rank; i++) fits = fits && in_range(&ov[i], span[i], p->ext[i]);
    tir_bounds bounds = fits && gen_chance(g, 0.5) ? TIR_BOUNDS_ASSUME : TIR_BOUNDS_ZERO;
    if (!fits && g->oob_left && gen_chance(g, 0.2)) bounds = TIR_BOUNDS_ASSUME, g->oob_left = false;
    diff_facts f = g->buf[p->buffer].content;
    tir_value *fill = NULL;
    tir_scalar elem = g->buf[p->buffer].elem;
    if (bounds == TIR_BOUNDS_ZERO) {
        diff_facts zero = diff_facts_const(elem, 0);
        if (gen_chance(g, 0.3)) {
            gen_val fv = gen_const_scalar(g, elem);
            fill = fv.v;
            zero = fv.f;
        }
        if (!fits) f = diff_facts_hull(&f, &zero);
    }
    tir_space *space = gen_space(g, rank, dims, ext);
    *out = gen_push(g, tir_load_tile_strided(g->b, p->view, origin, space, st, bounds, fill), f);
    return out->v != NULL;
}

bool gen_load_space(gen *g, tir_scalar elem, uint32_t rank, const int *dims, const uint64_t *ext, gen_val *out) {
    if (g->in_map) return false;
    int bi = find_buffer(g, elem, rank, false, 0), pi;
    if (bi >= 0 && gen_chance(g, 0.6)) {
        pi = param_of(g, bi, false);
    } else {
        uint64_t vext[GEN_MAX_RANK];
        for (uint32_t i = 0; i < rank; i++) vext[i] = (uint64_t)gen_range(g, ext[i] > 2 ? (int)ext[i] - 2 : 1, (int)ext[i] + 4);
        bi = new_buffer(g, elem, rank, vext, false, 0, gen_input_facts(g, elem));
        pi = bi >= 0 ? g->buf[bi].owner : -1;
    }
    if (pi < 0) return false;
    const gen_param *p = &g->par[pi];
    tir_value *origin[GEN_MAX_RANK];
    gen_val ov[GEN_MAX_RANK];
    for (uint32_t i = 0; i < rank; i++) origin[i] = (ov[i] = gen_index_origin(g, p->ext[i], ext[i])).v;
    return gen_live(g) && emit_load(g, p, origin, ov, rank, dims, ext, out);
}

static tir_value *range_predicate(gen *g, const gen_val *idx, uint64_t e);

bool gen_load_at(gen *g, tir_scalar elem, const gen_val *i, uint64_t n, uint32_t rank, const int *dims,
                 const uint64_t *ext, gen_val *out) {
    if (g->in_map) return false;
    uint32_t vrank = rank ? rank : (uint32_t)gen_range(g, 1, 2);
    uint64_t t0 = rank ? ext[0] : 1;
    int64_t stride = gen_chance(g, 0.6) ? 1 : rank ? (int64_t)t0 : 2;
    int bi = find_buffer(g, elem, vrank, false, 0);
    if (bi < 0 || gen_chance(g, 0.6)) {
        uint64_t vext[GEN_MAX_RANK];
        int64_t need = (int64_t)(n - 1) * stride + (int64_t)t0 + gen_range(g, gen_chance(g, 0.7) ? 0 : -2, 3);
        vext[0] = need > 0 ? (uint64_t)need : 1;
        for (uint32_t k = 1; k < vrank; k++) vext[k] = rank ? ext[k] + (uint64_t)gen_range(g, 0, 3) : (uint64_t)gen_range(g, 1, 6);
        bi = new_buffer(g, elem, vrank, vext, false, 0, gen_input_facts(g, elem));
        if (bi < 0) return false;
    }
    const gen_param *p = &g->par[param_of(g, bi, false)];
    gen_val o0 = gen_index_mul_const(g, *i, stride);
    int c = gen_chance(g, 0.7) ? 0 : gen_range(g, -1, 2);
    if (c) o0 = gen_index_add(g, o0, gen_index_const(g, c));
    o0 = retype(g, o0, false);
    if (!gen_live(g)) return false;
    if (rank) {
        tir_value *origin[GEN_MAX_RANK];
        gen_val ov[GEN_MAX_RANK];
        origin[0] = (ov[0] = o0).v;
        for (uint32_t k = 1; k < rank; k++) origin[k] = (ov[k] = gen_index_origin(g, p->ext[k], ext[k])).v;
        return gen_live(g) && emit_load(g, p, origin, ov, rank, dims, ext, out);
    }
    tir_value *idx[GEN_MAX_RANK], *pred = NULL, *fallback = NULL;
    idx[0] = o0.v;
    for (uint32_t k = 1; k < vrank; k++) idx[k] = gen_index_in(g, p->ext[k], -1).v;
    diff_facts f = g->buf[bi].content;
    if (!in_range(&o0, 1, p->ext[0])) {
        if (g->oob_left && gen_chance(g, 0.3)) {
            g->oob_left = false;
        } else {
            pred = range_predicate(g, &o0, p->ext[0]);
            gen_val fb = gen_const_scalar(g, elem);
            fallback = fb.v;
            f = diff_facts_hull(&f, &fb.f);
        }
    }
    if (!gen_live(g)) return false;
    *out = gen_push(g, tir_load_elem(g->b, p->view, idx, pred, fallback), f);
    return gen_live(g);
}

bool gen_load_tile(gen *g) {
    if (g->in_map) return false;
    tir_scalar elem = gen_pick_elem(g, 0);
    uint32_t rank = gen_chance(g, 0.35) ? 1 : gen_chance(g, 0.8) ? 2 : 3;
    int dims[GEN_MAX_RANK];
    uint64_t ext[GEN_MAX_RANK];
    gen_tile_axes(g, rank, dims, ext);
    gen_val out;
    if (!gen_chance(g, 0.4)) {
        int bi = find_buffer(g, elem, rank, false, 0);
        if (bi >= 0 && gen_chance(g, 0.25)) {
            int pi = alias_input(g, bi, rank);
            if (pi >= 0) {
                const gen_param *p = &g->par[pi];
                tir_value *origin[GEN_MAX_RANK];
                gen_val ov[GEN_MAX_RANK];
                for (uint32_t i = 0; i < rank; i++) origin[i] = (ov[i] = gen_index_origin(g, p->ext[i], ext[i])).v;
                return gen_live(g) && emit_load(g, p, origin, ov, rank, dims, ext, &out);
            }
        }
        return gen_load_space(g, elem, rank, dims, ext, &out);
    }
    /* the instance's own rows of a written buffer */
    int bi = find_buffer(g, elem, rank, true, 1);
    if (bi < 0) {
        bi = new_partitioned(g, elem, rank, ext[0], ext, NULL);
        if (bi < 0) return false;
    }
    gen_buffer *b = &g->buf[bi];
    if (ext[0] > b->bs) ext[0] = 1;
    int pi = gen_chance(g, 0.3) ? alias_partitioned(g, bi, gen_chance(g, 0.3)) : param_of(g, bi, false);
    if (pi < 0) pi = b->owner;
    const gen_param *p = &g->par[pi];
    tir_value *origin[GEN_MAX_RANK];
    gen_val ov[GEN_MAX_RANK];
    origin[0] = (ov[0] = row_origin(g, p, (uint32_t)gen_below(g, (uint32_t)(b->bs - ext[0] + 1)))).v;
    for (uint32_t i = 1; i < rank; i++) origin[i] = (ov[i] = gen_index_origin(g, p->ext[i], ext[i])).v;
    return gen_live(g) && emit_load(g, p, origin, ov, rank, dims, ext, &out);
}

/* idx >= 0 and idx < e, as a bool scalar. */
static tir_value *range_predicate(gen *g, const gen_val *idx, uint64_t e) {
    gen_val zero = gen_index_const(g, 0), end = gen_index_const(g, (int64_t)e);
    tir_value *i = idx->v; /* compared as i64: an unsigned index above INT64_MAX is out of range */
    if (tir_type_kind_of(tir_value_type(i)) != TIR_TYPE_INDEX) i = tir_cast(g->b, i, TIR_I64);
    tir_value *lo = tir_ew2(g->b, TIR_EW_GE, i, zero.v), *hi = tir_ew2(g->b, TIR_EW_LT, i, end.v);
    return tir_ew2(g->b, TIR_EW_AND, lo, hi);
}

static bool is_bool_scalar(gen *g, const gen_val *v, const void *env) {
    (void)g, (void)env;
    return tir_type_kind_of(tir_value_type(v->v)) == TIR_TYPE_SCALAR && gen_elem(v) == TIR_BOOL;
}

bool gen_load_scalar(gen *g) {
    if (g->in_map) return false;
    tir_scalar elem = gen_pick_elem(g, 0);
    uint32_t rank = (uint32_t)gen_range(g, 1, 3);
    bool partitioned = gen_chance(g, 0.4);
    int bi = find_buffer(g, elem, rank, partitioned, 1);
    if (bi < 0) {
        uint64_t ext[GEN_MAX_RANK];
        for (uint32_t i = 0; i < rank; i++) ext[i] = (uint64_t)gen_range(g, 1, 9);
        bi = partitioned ? new_partitioned(g, elem, rank, 1, ext, NULL)
                         : new_buffer(g, elem, rank, ext, false, 0, gen_input_facts(g, elem));
        if (bi < 0) return false;
    }
    gen_buffer *b = &g->buf[bi];
    int pi = param_of(g, bi, false);
    const gen_param *p = &g->par[pi];
    tir_value *idx[GEN_MAX_RANK];
    gen_val iv[GEN_MAX_RANK];
    bool fits = true;
    for (uint32_t i = 0; i < rank; i++) {
        if (i == 0 && partitioned) iv[i] = row_origin(g, p, gen_below(g, b->bs));
        else iv[i] = gen_chance(g, 0.7) ? gen_index_in(g, p->ext[i], -1) : gen_index_origin(g, p->ext[i], 1);
        idx[i] = iv[i].v;
        fits = fits && in_range(&iv[i], 1, p->ext[i]);
    }
    if (!gen_live(g)) return false;
    diff_facts f = b->content;
    tir_value *pred = NULL, *fallback = NULL;
    bool oob = !fits && g->oob_left && gen_chance(g, 0.3);
    if (oob) g->oob_left = false;
    if ((!fits && !oob) || gen_chance(g, 0.2)) {
        gen_val pv;
        if (fits && gen_pick(g, is_bool_scalar, NULL, &pv)) pred = pv.v;
        for (uint32_t i = 0; i < rank; i++) {
            if (in_range(&iv[i], 1, p->ext[i])) continue;
            tir_value *r = range_predicate(g, &iv[i], p->ext[i]);
            pred = pred ? tir_ew2(g->b, TIR_EW_AND, pred, r) : r;
        }
        if (!pred) pred = tir_const_bool(g->b, gen_chance(g, 0.8));
        gen_val fb = gen_const_scalar(g, elem);
        fallback = fb.v;
        f = diff_facts_hull(&f, &fb.f);
    }
    gen_push(g, tir_load_elem(g->b, p->view, idx, pred, fallback), f);
    return gen_live(g);
}

/* A writable view of a partitioned buffer that can hold `stored` in tiles
 * whose axis-0 extent is t0: an existing one, a new alias, or a new buffer
 * (trailing extents as given).  NULL when the kernel has no room left. */
static const gen_param *store_target(gen *g, tir_scalar elem, uint32_t rank, uint64_t t0, const uint64_t *trailing,
                                     const diff_facts *stored) {
    int bi = find_buffer(g, elem, rank, true, t0);
    if (bi >= 0 && !diff_facts_within(stored, &g->buf[bi].content)) bi = -1;
    if (bi < 0 && (bi = new_partitioned(g, elem, rank, t0, trailing, stored)) < 0) return NULL;
    int pi = param_of(g, bi, true);
    if (pi < 0 || gen_chance(g, 0.2)) pi = alias_partitioned(g, bi, true);
    return &g->par[pi < 0 ? g->buf[bi].owner : pi];
}

/* Stores a scalar: needs a row delta in range for every instance. */
static bool store_scalar(gen *g, const gen_val *v, const diff_facts *stored) {
    uint32_t rank = (uint32_t)gen_range(g, 1, 3);
    uint64_t ext[GEN_MAX_RANK];
    for (uint32_t i = 0; i < rank; i++) ext[i] = (uint64_t)gen_range(g, 1, 5);
    const gen_param *p = store_target(g, gen_elem(v), rank, 1, ext, stored);
    if (!p) return false;
    const gen_buffer *b = &g->buf[p->buffer];
    /* rows L·bs + delta - shift must lie in [0, ext0) for every L */
    int64_t lo = (int64_t)p->shift, hi = (int64_t)p->ext[0] - 1 - (int64_t)((g->P - 1) * b->bs) + (int64_t)p->shift;
    if (hi > (int64_t)b->bs - 1) hi = (int64_t)b->bs - 1;
    bool oob = g->oob_left && gen_chance(g, 0.1);
    if (lo > hi && !oob) return false;
    if (oob) g->oob_left = false;
    tir_value *idx[GEN_MAX_RANK];
    idx[0] = row_origin(g, p, (uint32_t)(lo > hi ? gen_below(g, b->bs) : (uint64_t)gen_range(g, (int)lo, (int)hi))).v;
    for (uint32_t i = 1; i < rank; i++) idx[i] = gen_index_in(g, p->ext[i], -1).v;
    return gen_live(g) && tir_store_elem(g->b, p->view, idx, v->v) == TILEC_OK;
}

static bool store_tile(gen *g, const gen_val *v, const diff_facts *stored) {
    tir_scalar elem = gen_elem(v);
    uint32_t rank = gen_rank(v);
    tir_space *space = tir_type_space(tir_value_type(v->v));
    uint64_t ext[GEN_MAX_RANK] = {0};
    for (uint32_t i = 0; i < rank; i++) ext[i] = tir_space_extent(space, i);
    uint64_t trailing[GEN_MAX_RANK];
    for (uint32_t i = 1; i < rank; i++) trailing[i] = ext[i] + (uint64_t)gen_range(g, ext[i] > 1 ? -1 : 0, 3);
    const gen_param *p = store_target(g, elem, rank, ext[0], trailing, stored);
    if (!p) return false;
    const gen_buffer *b = &g->buf[p->buffer];
    tir_value *origin[GEN_MAX_RANK];
    gen_val ov[GEN_MAX_RANK];
    origin[0] = (ov[0] = row_origin(g, p, (uint32_t)gen_below(g, (uint32_t)(b->bs - ext[0] + 1)))).v;
    for (uint32_t i = 1; i < rank; i++) origin[i] = (ov[i] = gen_index_origin(g, p->ext[i], ext[i])).v;
    /* strides only on trailing axes: axis 0 keeps each program's row block */
    uint64_t strides[GEN_MAX_RANK], span[GEN_MAX_RANK];
    const uint64_t *st = gen_strides(g, 1, rank, ext, strides, span);
    bool fits = true;
    for (uint32_t i = 0; i < rank; i++) fits = fits && in_range(&ov[i], span[i], p->ext[i]);
    tir_bounds bounds = fits && gen_chance(g, 0.5) ? TIR_BOUNDS_ASSUME : TIR_BOUNDS_ZERO;
    if (!fits && g->oob_left && gen_chance(g, 0.2)) bounds = TIR_BOUNDS_ASSUME, g->oob_left = false;
    return gen_live(g) && tir_store_tile_strided(g->b, p->view, origin, v->v, st, bounds) == TILEC_OK;
}

bool gen_store(gen *g, const gen_val *v) {
    if (g->in_map || g->no_store || !v->v) return false;
    uint32_t rank = gen_rank(v);
    if (rank > GEN_MAX_RANK || (gen_is_tile(v) && rank == 0)) return false;
    tir_scalar elem = gen_elem(v);
    if (tir_type_kind_of(tir_value_type(v->v)) == TIR_TYPE_INDEX) return false;
    diff_facts stored = diff_facts_stored(elem, &v->f);
    bool ok = gen_is_tile(v) ? store_tile(g, v, &stored) : store_scalar(g, v, &stored);
    if (ok) gen_note_stored(g, elem, &stored);
    return ok;
}

/* ---- the kernel ---- */

static void choose_options(gen *g) {
    diff_case *c = &g->c;
    static const uint32_t widths[] = {1, 2, 4, 8, 16};
    c->width = g->size_width ? g->size_width : widths[gen_below(g, 5)];
    c->threads = gen_chance(g, 0.5) ? 1 : 2;
    c->local_lanes = gen_chance(g, 0.6) ? 0 : gen_chance(g, 0.6) ? 1 : c->width;
    if (g->local_mode) c->local_lanes = gen_chance(g, 0.5) ? c->width : 0;
    c->block = gen_chance(g, 0.7) ? 0 : c->width * (uint32_t)gen_range(g, 1, 1024 / c->width < 4 ? 1024 / (int)c->width : 4);
    c->partitions = gen_chance(g, 0.5) ? 0 : (uint32_t)gen_range(g, 1, 16);
    c->unrolled_set = gen_chance(g, 0.4);
    static const uint32_t unrolled[] = {0, 4, 16, 64, 128};
    c->unrolled = c->unrolled_set ? unrolled[gen_below(g, 5)] : 0;
    c->grain = gen_chance(g, 0.7) ? 0 : (uint32_t)gen_range(g, 1, 4);
    c->search_grain = !c->grain && gen_chance(g, 0.2);
    c->full_packets = gen_chance(g, 0.8);
    c->separate_mma = gen_chance(g, 0.3);
    c->pack = gen_chance(g, 0.4) ? 1 : gen_chance(g, 0.1) ? 2 : 0;
    c->fuse = gen_chance(g, 0.4) ? 1 : gen_chance(g, 0.1) ? 2 : 0;
    c->stores = gen_chance(g, 0.3) ? 2 : 0;
    if (gen_chance(g, 0.2)) {
        c->order_len = (uint32_t)g->grank;
        c->order[0] = 0, c->order[1] = 1;
        if (g->grank == 2 && gen_chance(g, 0.5)) c->order[0] = 1, c->order[1] = 0;
    }
    if (!g->empty_domain && gen_chance(g, 0.15)) { /* an empty axis has no tiles to choose */
        c->tiles_len = (uint32_t)g->grank;
        for (int i = 0; i < g->grank; i++) {
            uint32_t d;
            do d = (uint32_t)gen_range(g, 1, (int)g->G[i]);
            while (g->G[i] % d);
            c->tiles[i] = d;
        }
    }
}

static void choose_types(gen *g) {
    int r = (int)gen_below(g, 20);
    g->n_floats = 0;
    if (r < 14) g->floats[g->n_floats++] = TIR_F32;
    else if (r < 17) g->floats[g->n_floats++] = TIR_F64;
    else g->floats[g->n_floats++] = TIR_F32, g->floats[g->n_floats++] = TIR_F64;
    static const tir_scalar others[] = {TIR_I64, TIR_U8, TIR_I8, TIR_I16, TIR_U16, TIR_U32, TIR_U64};
    g->n_ints = 0;
    g->ints[g->n_ints++] = gen_chance(g, 0.7) ? TIR_I32 : others[gen_below(g, 7)];
    if (gen_chance(g, 0.4)) {
        tir_scalar s = others[gen_below(g, 7)];
        if (s != g->ints[0]) g->ints[g->n_ints++] = s;
    }
}

/* An edge size in [lo, hi] for the sizes family: a small multiple of the
 * packet width W, or one off it (a tail of W-1 lanes, a single lane), or a
 * prime or power of two (±1) that is no multiple of the usual tile extents. */
static uint64_t edge_size(gen *g, uint64_t lo, uint64_t hi) {
    static const uint64_t fixed[] = {1, 2, 3, 5, 7, 11, 13, 17, 31, 37, 61, 63, 64, 65, 97, 127, 128, 129, 251, 255, 256};
    for (;;) {
        uint64_t w = g->size_width, v = gen_chance(g, 0.5) ? (uint64_t)gen_range(g, 1, 3) * w + (uint64_t)gen_range(g, 0, 2) - 1
                                                           : fixed[gen_below(g, sizeof fixed / sizeof *fixed)];
        if (v >= lo && v <= hi) return v;
    }
}

/* The sizes family's root domain: edge sizes, and in some kernels one axis
 * empty.  Either the root domain is large (up to 130 instances, tile dims up
 * to 65) or the tile dims are (up to 256, at most 8 instances), not both:
 * the reference and XIR interpreters' time grows with the product (nested
 * maps of 128 × 97 elements in 97 instances took 50 s a case). */
static void choose_root_sizes(gen *g) {
    static const uint32_t widths[] = {1, 2, 4, 8, 16};
    g->size_width = widths[gen_below(g, 5)];
    bool wide_tiles = gen_chance(g, 0.5);
    uint64_t max_p = wide_tiles ? 8 : 130;
    g->size_dim_max = wide_tiles ? 256 : 65;
    g->G[0] = edge_size(g, 1, max_p);
    g->G[1] = g->grank == 2 ? edge_size(g, 1, max_p / g->G[0]) : 1;
    g->P = g->G[0] * g->G[1];
    g->empty_domain = gen_chance(g, 0.15);
    g->empty_axis = g->empty_domain ? (int)gen_below(g, (uint32_t)g->grank) : -1;
}

static void choose_dims(gen *g) {
    static const uint64_t small[] = {1, 2, 3, 4, 5, 7, 8}, large[] = {9, 12, 16, 17, 31, 33, 64, 65};
    g->n_dims = gen_range(g, 3, GEN_DIMS);
    for (int i = 0; i < g->n_dims; i++) {
        char label[2] = {(char)('a' + i), 0};
        g->dims[i] = tir_dim_new(g->m, label);
        g->ext[i] = g->sizes ? edge_size(g, 1, g->size_dim_max) : gen_chance(g, 0.75) ? small[gen_below(g, 7)] : large[gen_below(g, 8)];
        if (i && gen_chance(g, 0.15)) g->ext[i] = g->ext[i - 1]; /* equal extents make relabel possible */
        if (g->local_mode) g->ext[i] = i ? 1 : g->sizes ? edge_size(g, 2, g->size_dim_max) : (uint64_t)gen_range(g, 2, 100);
    }
}

static tilec_status write_text(void *user, const char *bytes, size_t n) {
    return fwrite(bytes, 1, n, user) == n ? TILEC_OK : TILEC_E_IO;
}

static bool is_storable(gen *g, const gen_val *v, const void *env) {
    (void)g, (void)env;
    return tir_type_kind_of(tir_value_type(v->v)) != TIR_TYPE_INDEX && gen_rank(v) <= GEN_MAX_RANK &&
           (!gen_is_tile(v) || gen_rank(v) > 0);
}

/* The root body: constants, the parallel with the instance ordinal L, the
 * statements, and a few final stores. */
static void build(gen *g) {
    g->mergeable = !g->local_mode && !g->math && gen_chance(g, 0.3);
    for (int n = g->math ? 0 : gen_range(g, 0, 2); n > 0; n--) { /* math kernels: only math results to compare in ulps */
        if (gen_chance(g, 0.5)) gen_index_const(g, gen_range(g, -4, 8));
        else gen_const_scalar(g, gen_pick_elem(g, 0));
    }
    if (g->n_vals && gen_chance(g, 0.3)) gen_statement(g); /* constants and elementwise ops may precede the root */
    tir_dim *gd[2] = {tir_dim_new(g->m, "g0"), tir_dim_new(g->m, "g1")};
    uint64_t extents[2] = {g->G[0], g->G[1]};
    if (g->empty_domain) extents[g->empty_axis] = 0;
    tir_space *domain = tir_space_make(g->m, (size_t)g->grank, gd, extents);
    tir_region_opts scope = {.scope = gen_chance(g, 0.2) ? TIR_SCOPE_WORKER : TIR_SCOPE_AUTO};
    tir_op *par = tir_region_begin(g->b, TIR_OP_PARALLEL, domain, &scope, 0, NULL);
    if (!par) {
        g->failed = true;
        return;
    }
    size_t mark = g->n_vals;
    gen_val coord[2];
    for (int i = 0; i < g->grank; i++) coord[i] = gen_push(g, tir_region_coord(par, (size_t)i), index_facts(0, (int64_t)g->G[i] - 1));
    g->L = g->grank == 1 ? coord[0] : gen_index_add(g, gen_index_mul_const(g, coord[0], (int64_t)g->G[1]), coord[1]);
    g->L.f = index_facts(0, (int64_t)g->P - 1);
    g->depth = 1;
    if (g->mergeable) { /* a mergeable reduce, before the first store */
        g->no_store = true;
        gen_block(g, gen_range(g, 0, 3));
        gen_split_reduce(g);
        g->no_store = false;
        if (gen_chance(g, 0.15)) { /* another one, after a store: copied whole into the combine kernel */
            gen_block(g, gen_range(g, 0, 2));
            gen_split_reduce(g);
        }
    }
    if (g->math) gen_math_block(g);
    else gen_block(g, g->budget);
    for (int n = gen_range(g, 2, 4), tries = 0; n > 0 && tries < 12 && gen_live(g); tries++) {
        gen_val v;
        if (!gen_pick(g, is_storable, NULL, &v)) break;
        if (gen_store(g, &v)) n--;
    }
    g->n_vals = mark;
    if (gen_live(g)) tir_region_end(g->b, par, 0, NULL);
}

/* One pass; *restart when it met a parameter the specs did not know yet. */
static char *generate_pass(uint64_t seed, uint64_t index, const diff_gen_options *o, diff_gen_stats *stats,
                           gen_param_specs *specs, bool *restart, char *why, size_t why_len) {
    static const diff_gen_options defaults = {0, false, 0, 0};
    diff_gen_stats ignored;
    gen g;
    memset(&g, 0, sizeof g);
    g.specs = specs;
    g.o = o ? o : &defaults;
    g.stats = stats ? stats : &ignored;
    memset(g.stats, 0, sizeof *g.stats);
    g.rng = seed * 0x2545f4914f6cdd1dull ^ (index + 1) * 0x9e3779b97f4a7c15ull;
    gen_rand(&g);
    diff_case_default(&g.c);
    g.c.seed = seed, g.c.index = index;
    gen family = {.rng = seed * 0x9e3779b97f4a7c15ull ^ (index + 1) * 0x2545f4914f6cdd1dull ^ 0xfa111e5ull};
    g.sizes = gen_below(&family, 100) < g.o->sizes_pct;
    g.math = gen_below(&family, 100) < g.o->math_pct;
    g.c.exact_inputs = gen_chance(&g, 0.6) && !g.math;
    g.c.edge_inputs = g.math;
    g.c.specials = gen_chance(&g, 0.3) && !g.math; /* edge inputs have their own */
    g.c.input_seed = gen_rand(&g) % 1000000007u;
    g.all_exact = true;
    g.budget = (int)(g.o->max_statements ? g.o->max_statements : 24);
    g.budget = gen_range(&g, g.budget / 4 + 1, g.budget);
    g.grank = gen_chance(&g, 0.75) ? 1 : 2;
    static const uint64_t extents[] = {1, 1, 2, 3, 4, 5, 6, 7, 9, 13};
    g.G[0] = extents[gen_below(&g, 10)], g.G[1] = g.grank == 2 ? extents[gen_below(&g, 7)] : 1;
    g.P = g.G[0] * g.G[1];
    g.empty_axis = -1;
    if (g.sizes) choose_root_sizes(&g);
    g.local_mode = gen_chance(&g, 0.2);
    g.oob_left = g.o->oob && gen_chance(&g, 0.3) && !g.empty_domain; /* nothing runs: no fault */
    choose_types(&g);
    choose_options(&g);

    tilec_context *ctx = NULL;
    char *text = NULL;
    size_t size = 0;
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) {
        snprintf(why, why_len, "no context");
        return NULL;
    }
    g.m = tir_module_create(ctx);
    g.f = g.m ? tir_func_new(g.m, "fuzz") : NULL;
    for (int i = 0; g.f && i < specs->n; i++) {
        char name[2] = {(char)('A' + i), 0};
        const gen_param_spec *p = &specs->v[i];
        if (!(g.spec_views[i] = tir_func_add_view(g.f, name, p->elem, p->rank, p->ext, !p->writable))) g.f = NULL;
    }
    g.b = g.f ? tir_builder_create(g.f) : NULL;
    if (g.b) {
        choose_dims(&g);
        build(&g);
    }
    if (g.restart) {
        /* start again with the new parameter */
    } else if (!g.b || !gen_live(&g)) {
        const tilec_diag *d = tilec_diag_count(ctx) ? tilec_diag_at(ctx, 0) : NULL;
        snprintf(why, why_len, "builder: %s %s", d ? d->code : "-", d ? d->message : g.why ? g.why : "(no diagnostic)");
    } else {
        g.c.bitwise = g.all_exact && !g.math;
        g.c.by_ulps = g.math;
        g.c.ulps = g.math ? g.math_ulps : 1;
        g.c.atol = fmax(2e-5, 4 * g.max_ea);
        g.c.rtol = fmax(2e-5, 4 * g.max_er);
        FILE *out = open_memstream(&text, &size);
        diff_case_print(&g.c, out);
        tilec_status st = tir_print(g.m, write_text, out);
        fclose(out);
        if (st) {
            free(text);
            text = NULL;
            snprintf(why, why_len, "printing failed");
        }
    }
    *restart = g.restart;
    if (g.restart) free(text), text = NULL;
    tir_builder_destroy(g.b);
    tir_module_destroy(g.m);
    tilec_context_destroy(ctx);
    free(g.vals);
    return text;
}

char *diff_generate(uint64_t seed, uint64_t index, const diff_gen_options *o, diff_gen_stats *stats, char *why,
                    size_t why_len) {
    gen_param_specs specs = {.n = 0};
    for (int pass = 0; pass <= GEN_MAX_PARAMS; pass++) {
        bool restart = false;
        char *text = generate_pass(seed, index, o, stats, &specs, &restart, why, why_len);
        if (!restart) return text;
    }
    snprintf(why, why_len, "more than %d parameters", GEN_MAX_PARAMS);
    return NULL;
}
