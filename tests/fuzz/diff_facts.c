/* diff_facts.c — the value-facts algebra of the differential fuzzer's
 * generator (see diff_facts.h for the model).  Every rule is conservative for
 * the interval and exactness parts; the error part is a typical-case bound
 * that the driver multiplies by a safety factor when it sets tolerances. */
#include "diff_facts.h"

#include <float.h>
#include <math.h>

static bool is_float(tir_scalar s) { return s == TIR_F32 || s == TIR_F64; }

/* Unit roundoff and significand bits of a float type. */
static double unit(tir_scalar s) { return s == TIR_F64 ? ldexp(1.0, -53) : ldexp(1.0, -24); }
static int significand_bits(tir_scalar s) { return s == TIR_F64 ? 53 : 24; }
/* Finite magnitudes a value of type s may reach without overflow trouble. */
static double max_finite(tir_scalar s) { return s == TIR_F64 ? 1e300 : 1e30; }

static void int_range(tir_scalar s, double *lo, double *hi) {
    size_t bits = 8 * tir_scalar_size(s);
    if (s == TIR_BOOL) *lo = 0, *hi = 1;
    else if (tir_scalar_is_signed(s)) *lo = -ldexp(1.0, (int)bits - 1), *hi = ldexp(1.0, (int)bits - 1) - 1;
    else *lo = 0, *hi = ldexp(1.0, (int)bits) - 1;
}

static bool empty(const diff_facts *f) { return f->lo > f->hi; }

double diff_facts_bound(const diff_facts *f) { return empty(f) ? 0 : fmax(fabs(f->lo), fabs(f->hi)); }

diff_facts diff_facts_range(tir_scalar s, double lo, double hi, int grid, bool special) {
    diff_facts f = {lo, hi, 0, 0, is_float(s) ? grid : 0, is_float(s) && special};
    return f;
}

diff_facts diff_facts_any(tir_scalar s) {
    if (is_float(s)) return diff_facts_range(s, -max_finite(s), max_finite(s), DIFF_GRID_NONE, true);
    double lo, hi;
    int_range(s, &lo, &hi);
    return diff_facts_range(s, lo, hi, 0, false);
}

/* The smallest grid (up to 60) that holds v exactly, or NONE. */
static int grid_of(double v) {
    if (!isfinite(v)) return 0;
    for (int g = 0; g <= 60; g++)
        if (ldexp(v, g) == nearbyint(ldexp(v, g))) return g;
    return DIFF_GRID_NONE;
}

diff_facts diff_facts_const(tir_scalar s, double v) {
    if (!isfinite(v)) return diff_facts_range(s, 1, 0, 0, true);
    return diff_facts_range(s, v, v, grid_of(v), false);
}

/* Integers: [lo, hi] when the type holds it, else the type's range (wraps). */
static diff_facts int_result(tir_scalar s, double lo, double hi) {
    double tlo, thi;
    int_range(s, &tlo, &thi);
    if (!(lo >= tlo && hi <= thi)) lo = tlo, hi = thi;
    return diff_facts_range(s, lo, hi, 0, false);
}

/* True when the exact values of magnitude <= bound on grid g are representable. */
static bool fits_grid(tir_scalar s, double bound, int g) {
    return g != DIFF_GRID_NONE && ldexp(bound, g) <= ldexp(1.0, significand_bits(s));
}

static int grid_max(int a, int b) { return a > b ? a : b; }

/* Checks a float result against the caps; false when it must not be generated. */
static bool finish(tir_scalar s, diff_facts *out) {
    if (!empty(out) && diff_facts_bound(out) > max_finite(s)) return false;
    if (!(out->ea <= DIFF_ERR_CAP && out->er <= DIFF_ERR_CAP)) return false;
    if (!diff_facts_exact(out)) out->grid = DIFF_GRID_NONE;
    return true;
}

/* An exact result on grid g: exact when representable, else one rounding of
 * native f32 (f64 operations round identically on both sides). */
static void exact_or_rounded(tir_scalar s, int g, diff_facts *out) {
    double b = diff_facts_bound(out);
    if (s == TIR_F64 || fits_grid(s, b, g)) {
        out->grid = fits_grid(s, b, g) ? g : DIFF_GRID_NONE;
        out->ea = out->er = 0;
    } else {
        out->grid = DIFF_GRID_NONE;
        out->ea = 0;
        out->er = 2 * unit(s);
    }
}

diff_facts diff_facts_hull(const diff_facts *a, const diff_facts *b) {
    diff_facts f = *a;
    if (empty(a)) f.lo = b->lo, f.hi = b->hi;
    else if (!empty(b)) f.lo = fmin(a->lo, b->lo), f.hi = fmax(a->hi, b->hi);
    f.ea = fmax(a->ea, b->ea);
    f.er = fmax(a->er, b->er);
    f.grid = grid_max(a->grid, b->grid);
    f.special = a->special || b->special;
    return f;
}

bool diff_facts_within(const diff_facts *in, const diff_facts *outer) {
    bool interval = empty(in) || (in->lo >= outer->lo && in->hi <= outer->hi);
    return interval && in->ea <= outer->ea && in->er <= outer->er && in->grid <= outer->grid &&
           (!in->special || outer->special);
}

diff_facts diff_facts_select(const diff_facts *t, const diff_facts *f) { return diff_facts_hull(t, f); }

/* Interval of the products of [a] and [b]. */
static void mul_interval(const diff_facts *a, const diff_facts *b, double *lo, double *hi) {
    double p[4] = {a->lo * b->lo, a->lo * b->hi, a->hi * b->lo, a->hi * b->hi};
    *lo = *hi = p[0];
    for (int i = 1; i < 4; i++) *lo = fmin(*lo, p[i]), *hi = fmax(*hi, p[i]);
}

static bool contains_zero(const diff_facts *f) { return !empty(f) && f->lo - f->ea <= 0 && f->hi + f->ea >= 0; }

static bool int_ew(tir_ew_op op, tir_scalar s, const diff_facts *a, const diff_facts *b, diff_facts *out) {
    double tlo, thi, lo, hi;
    int_range(s, &tlo, &thi);
    double ma = diff_facts_bound(a);
    switch (op) {
    case TIR_EW_ADD: *out = int_result(s, a->lo + b->lo, a->hi + b->hi); return true;
    case TIR_EW_SUB: *out = int_result(s, a->lo - b->hi, a->hi - b->lo); return true;
    case TIR_EW_MUL:
        mul_interval(a, b, &lo, &hi);
        *out = int_result(s, lo, hi);
        return true;
    case TIR_EW_DIV: /* |a / b| <= |a|; b = 0 gives 0; MIN / -1 wraps to MIN */
        *out = a->lo >= 0 && b->lo >= 0 ? int_result(s, 0, a->hi) : int_result(s, fmax(-ma, tlo), fmin(ma, thi));
        return true;
    case TIR_EW_MOD: { /* |a mod b| <= min(|a|, |b| - 1), the dividend's sign */
        double r = fmin(ma, fmax(diff_facts_bound(b) - 1, 0));
        *out = int_result(s, a->lo >= 0 ? 0 : -r, a->hi <= 0 ? 0 : r);
        return true;
    }
    case TIR_EW_NEG: *out = a->lo <= tlo ? int_result(s, tlo, thi) : int_result(s, -a->hi, -a->lo); return true;
    case TIR_EW_ABS:
        if (a->lo <= tlo && tir_scalar_is_signed(s)) *out = int_result(s, tlo, thi);
        else *out = int_result(s, a->lo >= 0 ? a->lo : a->hi <= 0 ? -a->hi : 0, ma);
        return true;
    case TIR_EW_MIN: *out = int_result(s, fmin(a->lo, b->lo), fmin(a->hi, b->hi)); return true;
    case TIR_EW_MAX: *out = int_result(s, fmax(a->lo, b->lo), fmax(a->hi, b->hi)); return true;
    default: return false;
    }
}


static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

/* The facts of f(a) for a monotone increasing f with range [lo, hi] and
 * Lipschitz constant L. */
static void bounded(const diff_facts *a, double (*fn)(double), double lo, double hi, double L, double u,
                    diff_facts *f) {
    f->lo = empty(a) ? lo : fn(a->lo), f->hi = empty(a) ? hi : fn(a->hi);
    if (a->special) f->lo = lo, f->hi = hi;
    f->ea = L * (a->ea + a->er * diff_facts_bound(a)) + 4 * u * fmax(fabs(lo), fabs(hi));
}

static bool float_ew(tir_ew_op op, tir_scalar s, const diff_facts *a, const diff_facts *b, diff_facts *out) {
    double u = unit(s), ba = diff_facts_bound(a), bb = b ? diff_facts_bound(b) : 0;
    bool exact_a = diff_facts_exact(a), exact_b = !b || diff_facts_exact(b);
    diff_facts f = {0, 0, 0, 0, DIFF_GRID_NONE, a->special || (b && b->special)};
    bool binary = tir_ew_arity(op) == 2;
    if (binary && (empty(a) || empty(b)) && op != TIR_EW_MIN && op != TIR_EW_MAX) {
        /* only ±inf/NaN on one side: the result has no finite values */
        if (op == TIR_EW_DIV && !empty(a)) return false;
        f.lo = 1, f.hi = 0;
        f.ea = fmax(a->ea, b->ea), f.er = fmax(a->er, b->er);
        *out = f;
        return finish(s, out);
    }
    switch (op) {
    case TIR_EW_ADD:
    case TIR_EW_SUB:
        f.lo = op == TIR_EW_ADD ? a->lo + b->lo : a->lo - b->hi;
        f.hi = op == TIR_EW_ADD ? a->hi + b->hi : a->hi - b->lo;
        if (exact_a && exact_b) {
            *out = f;
            exact_or_rounded(s, grid_max(a->grid, b->grid), out);
            return finish(s, out);
        }
        f.ea = a->ea + b->ea + a->er * ba + b->er * bb;
        f.er = 2 * u;
        break;
    case TIR_EW_MUL:
        /* an inexact factor near zero times an infinity: NaN on one side, inf on the other */
        if ((!exact_a && contains_zero(a) && b->special) || (!exact_b && contains_zero(b) && a->special)) return false;
        mul_interval(a, b, &f.lo, &f.hi);
        if (exact_a && exact_b) {
            *out = f;
            int g = a->grid == DIFF_GRID_NONE || b->grid == DIFF_GRID_NONE ? DIFF_GRID_NONE : a->grid + b->grid;
            exact_or_rounded(s, g, out);
            return finish(s, out);
        }
        f.ea = ba * b->ea + bb * a->ea + a->ea * b->ea + a->ea * b->er * bb + b->ea * a->er * ba;
        f.er = a->er + b->er + a->er * b->er + 2 * u;
        break;
    case TIR_EW_DIV: {
        if (empty(b) || (b->lo <= 0 && b->hi >= 0)) return false;
        double low = fmin(fabs(b->lo), fabs(b->hi)), ry = b->ea / low + b->er;
        if (!(ry <= 0.01) || low < 1e-3) return false;
        double q[4] = {a->lo / b->lo, a->lo / b->hi, a->hi / b->lo, a->hi / b->hi};
        f.lo = f.hi = q[0];
        for (int i = 1; i < 4; i++) f.lo = fmin(f.lo, q[i]), f.hi = fmax(f.hi, q[i]);
        if (b->special) f.lo = fmin(f.lo, 0), f.hi = fmax(f.hi, 0); /* x / inf */
        if (exact_a && exact_b && s == TIR_F64) break;
        f.ea = a->ea / low * (1 + 2 * ry);
        f.er = a->er + 1.02 * ry + 2 * a->er * ry + 2 * u;
        break;
    }
    case TIR_EW_NEG: f = *a, f.lo = -a->hi, f.hi = -a->lo; break;
    case TIR_EW_ABS:
        f = *a;
        f.lo = empty(a) ? 1 : a->lo >= 0 ? a->lo : a->hi <= 0 ? -a->hi : 0;
        f.hi = empty(a) ? 0 : ba;
        break;
    case TIR_EW_MIN:
    case TIR_EW_MAX:
        if (empty(a) || empty(b)) {
            f = diff_facts_hull(a, b);
            break;
        }
        f.lo = op == TIR_EW_MIN ? fmin(a->lo, b->lo) : fmax(a->lo, b->lo);
        f.hi = op == TIR_EW_MIN ? fmin(a->hi, b->hi) : fmax(a->hi, b->hi);
        f.ea = fmax(a->ea, b->ea), f.er = fmax(a->er, b->er);
        f.grid = grid_max(a->grid, b->grid);
        break;
    case TIR_EW_EXP: {
        if (empty(a) || a->hi > 12 || a->lo < -30) return false;
        double d = a->ea + a->er * ba;
        if (!(d <= 0.01)) return false;
        f.lo = exp(a->lo), f.hi = exp(a->hi);
        if (a->special) f.lo = 0; /* exp(-inf) */
        f.er = 1.02 * d + 4 * u;
        break;
    }
    case TIR_EW_LOG: {
        if (empty(a) || a->lo < 0.25) return false;
        double r = a->ea / a->lo + a->er;
        if (!(r <= 0.01)) return false;
        f.lo = log(a->lo), f.hi = log(a->hi);
        f.ea = 1.02 * r + 4 * u * fmax(fmax(fabs(f.lo), fabs(f.hi)), 1);
        break;
    }
    case TIR_EW_SQRT:
        if (empty(a) || a->lo < 0) return false;
        f.lo = sqrt(a->lo), f.hi = sqrt(a->hi);
        if (exact_a) {
            if (s == TIR_F32) f.er = 2 * u; /* f64: both sides correctly rounded */
        } else {
            if (a->lo <= 0) return false;
            double r = a->ea / a->lo + a->er;
            if (!(r <= 0.01)) return false;
            f.er = 0.51 * r + 2 * u;
        }
        break;
    case TIR_EW_TANH:
        f.lo = empty(a) ? -1 : tanh(a->lo), f.hi = empty(a) ? 1 : tanh(a->hi);
        if (a->special) f.lo = fmin(f.lo, -1), f.hi = fmax(f.hi, 1);
        f.ea = a->ea + a->er * ba + 4 * u;
        break;
    /* bounded and Lipschitz (constant L): the input's absolute error times L,
     * plus a few ulps of the result's magnitude (≤ 1 ulp natively, 2 for
     * sigmoid); inf gives the range's ends, NaN NaN on both sides */
    case TIR_EW_ERF: bounded(a, erf, -1, 1, 1.13, u, &f); break;
    case TIR_EW_SIGMOID: bounded(a, sigmoid, 0, 1, 0.25, u, &f); break;
    case TIR_EW_ATAN: bounded(a, atan, -M_PI / 2, M_PI / 2, 1, u, &f); break;
    case TIR_EW_SIN:
    case TIR_EW_COS:
        if (a->special || (!empty(a) && fmax(fabs(a->lo), fabs(a->hi)) > 1e4)) return false; /* sin inf: NaN */
        f.lo = -1, f.hi = 1;
        f.ea = a->ea + a->er * ba + 4 * u;
        break;
    case TIR_EW_FLOOR:
        f.lo = empty(a) ? 1 : floor(a->lo), f.hi = empty(a) ? 0 : floor(a->hi);
        if (exact_a) {
            *out = f;
            return finish(s, out);
        }
        f.ea = a->ea + a->er * ba + 1; /* an inexact input may cross an integer */
        break;
    default: return false;
    }
    *out = f;
    return finish(s, out);
}

bool diff_facts_ew(tir_ew_op op, tir_scalar elem, const diff_facts *a, const diff_facts *b, diff_facts *out) {
    switch (tir_ew_class_of(op)) {
    case TIR_EWC_COMPARE:
        /* a comparison of inexact values could flip */
        if (!diff_facts_exact(a) || !diff_facts_exact(b)) return false;
        *out = diff_facts_range(TIR_BOOL, 0, 1, 0, false);
        return true;
    case TIR_EWC_LOGICAL: *out = diff_facts_range(TIR_BOOL, 0, 1, 0, false); return true;
    case TIR_EWC_CAST:
    case TIR_EWC_SELECT: return false;
    default: return is_float(elem) ? float_ew(op, elem, a, b, out) : int_ew(op, elem, a, b, out);
    }
}

bool diff_facts_cast(tir_scalar from, tir_scalar to, const diff_facts *a, diff_facts *out) {
    if (to == TIR_BOOL) {
        if (!diff_facts_exact(a)) return false; /* x != 0 of an inexact x */
        *out = diff_facts_range(TIR_BOOL, 0, 1, 0, false);
        return true;
    }
    if (is_float(from) && is_float(to)) {
        *out = *a;
        if (to == TIR_F32 && !empty(a) && diff_facts_bound(a) > 3e38) out->special = true;
        if (!diff_facts_exact(a)) out->er += 2 * unit(TIR_F32);
        else if (to == TIR_F32 && !fits_grid(TIR_F32, diff_facts_bound(a), a->grid)) out->grid = DIFF_GRID_NONE;
        return finish(to, out);
    }
    if (!is_float(from) && is_float(to)) { /* one correctly rounded conversion on both sides */
        *out = diff_facts_range(to, a->lo, a->hi, 0, false);
        if (!fits_grid(to, diff_facts_bound(a), 0)) out->grid = DIFF_GRID_NONE;
        return true;
    }
    if (is_float(from)) { /* truncate and saturate; NaN → 0 */
        if (!diff_facts_exact(a)) return false;
        if (a->special || empty(a)) *out = diff_facts_any(to);
        else {
            double lo, hi;
            int_range(to, &lo, &hi);
            *out = diff_facts_range(to, fmax(fmin(trunc(a->lo), 0), lo), fmin(fmax(trunc(a->hi), 0), hi), 0, false);
        }
        return true;
    }
    *out = int_result(to, a->lo, a->hi); /* keeps the low bits: the same value when it fits */
    return true;
}

bool diff_facts_fold(tir_ew_op op, tir_scalar elem, const diff_facts *seed, const diff_facts *x, double n, bool regroup,
                     diff_facts *out) {
    if (n <= 0) {
        *out = *seed;
        return true;
    }
    if (op == TIR_EW_MIN || op == TIR_EW_MAX) {
        *out = diff_facts_hull(seed, x);
        if (!empty(seed) && !empty(x)) {
            out->lo = op == TIR_EW_MIN ? fmin(seed->lo, x->lo) : fmax(seed->lo, x->lo);
            out->hi = op == TIR_EW_MIN ? fmin(seed->hi, x->hi) : fmax(seed->hi, x->hi);
        }
        return true;
    }
    if (!is_float(elem)) {
        if (op == TIR_EW_ADD) *out = int_result(elem, seed->lo + n * fmin(x->lo, 0), seed->hi + n * fmax(x->hi, 0));
        else if (op == TIR_EW_MUL) *out = diff_facts_any(elem);
        else return false;
        return true;
    }
    if (empty(seed) || empty(x)) return false;
    double u = unit(elem), bs = diff_facts_bound(seed), bx = diff_facts_bound(x);
    bool exact = diff_facts_exact(seed) && diff_facts_exact(x);
    diff_facts f = {0, 0, 0, 0, DIFF_GRID_NONE, seed->special || x->special};
    if (op == TIR_EW_ADD) {
        /* partial sums of any subset lie in the widened interval */
        f.lo = seed->lo + n * fmin(x->lo, 0), f.hi = seed->hi + n * fmax(x->hi, 0);
        if (exact && !regroup && elem == TIR_F64) {
            f.grid = grid_max(seed->grid, x->grid);
            if (!fits_grid(elem, diff_facts_bound(&f), f.grid)) f.grid = DIFF_GRID_NONE;
        } else if (exact && fits_grid(elem, diff_facts_bound(&f), grid_max(seed->grid, x->grid))) {
            f.grid = grid_max(seed->grid, x->grid);
        } else {
            f.ea = seed->ea + seed->er * bs + n * (x->ea + x->er * bx) + 2 * u * n * (bs + sqrt(n) * bx);
            f.er = 2 * u * n;
        }
    } else if (op == TIR_EW_MUL) {
        if (bx > 1 || n > 16 || seed->ea || x->ea) return false; /* keeps |product| <= |seed| */
        f.lo = -bs, f.hi = bs;
        if (x->lo >= 0 && seed->lo >= 0) f.lo = 0;
        int g = seed->grid == DIFF_GRID_NONE || x->grid == DIFF_GRID_NONE ? DIFF_GRID_NONE : seed->grid + (int)n * x->grid;
        if (exact && ((!regroup && elem == TIR_F64) || fits_grid(elem, bs, g))) f.grid = fits_grid(elem, bs, g) ? g : DIFF_GRID_NONE;
        else f.er = seed->er + n * (x->er + 2 * u);
    } else {
        return false;
    }
    *out = f;
    return finish(elem, out);
}

bool diff_facts_mma(tir_scalar a_elem, const diff_facts *a, tir_scalar b_elem, const diff_facts *b, tir_scalar acc,
                    const diff_facts *c, double k, bool regroup, diff_facts *out) {
    diff_facts ca = *a, cb = *b, p;
    if (a_elem != acc && !diff_facts_cast(a_elem, acc, a, &ca)) return false;
    if (b_elem != acc && !diff_facts_cast(b_elem, acc, b, &cb)) return false;
    if (!diff_facts_ew(TIR_EW_MUL, acc, &ca, &cb, &p)) return false;
    return diff_facts_fold(TIR_EW_ADD, acc, c, &p, k, regroup, out);
}

diff_facts diff_facts_stored(tir_scalar s, const diff_facts *v) {
    diff_facts f = *v;
    if (is_float(s) && !diff_facts_exact(v)) f.er += unit(s);
    return f;
}
