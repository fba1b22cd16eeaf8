/* diff_run.c — one differential case (diff_run.h): buffers, inputs,
 * reference run, native compile + dispatch, comparison; then the case as a
 * kernel with runtime sizes (diff_sized.h).
 *
 * Memory: each parameter that is no `bind=` target owns one allocation of
 * max(its bytes, every bound view's offset + bytes), with PAD sentinel bytes
 * on both sides; a bound parameter's data points into its owner's.  The
 * reference and the native run get two identical copies.  Inputs are a pure
 * function of (input_seed, owner index, element index), so a case replays
 * exactly. */
#include "diff_run.h"

#include "diff_case.h"
#include "diff_sized.h"
#include "driver/pipeline.h"
#include "gpu/gpu.h"
#include "gpu/host_run.h"
#include "plan/gpu_target.h"
#include "driver/kernel.h"
#include "xir/interp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PAD = 64, MAX_ARGS = 32 };
static const unsigned char SENTINEL = 0xA5;

struct diff_runner {
    tilec_context *ctx;
    tilec_runtime *rt[2];
};

const char *diff_outcome_name(diff_outcome o) {
    static const char *const names[DIFF_OUTCOME_COUNT] = {"ok", "refused", "skipped", "invalid", "mismatch", "error", "crash"};
    return (unsigned)o < DIFF_OUTCOME_COUNT ? names[o] : "?";
}

diff_runner *diff_runner_create(void) {
    diff_runner *r = calloc(1, sizeof *r);
    if (!r || tilec_context_create(NULL, &r->ctx) || tilec_runtime_create(r->ctx, 1, &r->rt[0]) ||
        tilec_runtime_create(r->ctx, 2, &r->rt[1])) {
        diff_runner_destroy(r);
        return NULL;
    }
    return r;
}

void diff_runner_destroy(diff_runner *r) {
    if (!r) return;
    tilec_runtime_destroy(r->rt[0]);
    tilec_runtime_destroy(r->rt[1]);
    tilec_context_destroy(r->ctx);
    free(r);
}

/* ---- inputs ---- */

static uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static void put_int(unsigned char *p, size_t size, int64_t v) {
    for (size_t i = 0; i < size; i++) p[i] = (unsigned char)((uint64_t)v >> (8 * i)); /* little-endian */
}

/* Where the math library's results change regime (inputs=edges): one table
 * per type, as each type's thresholds differ.  The f32 values are floats
 * (the threshold itself, not a double rounded later). */
static const float EDGES_F32[] = {
    0.0f, 1.0f, 0.5f, 2.5f, 0.49999997f, 3.14159274f, 1.57079637f, 1e4f, 8388608.0f, 16777216.0f,
    0x1p-149f, 0x1p-126f, 0x1.fffffcp-127f, 0x1.fffffep127f, 1e-30f, 1e-38f, 1e30f, 1e38f,
    88.7228394f,  /* expf overflows above ln(FLT_MAX) */
    89.4159851f,  /* sinhf/coshf overflow above ln(2·FLT_MAX) */
    88.764206f,   /* sinh/cosh: finite (1.7732698e38), was inf */
    87.3365479f,  /* -x: expf's result becomes subnormal */
    103.972076f,  /* -x: expf's result underflows to 0 */
    128.0f, 126.0f, 149.0f, 150.0f, /* exp2f's thresholds (negated too) */
    38.5318413f,  /* log10(FLT_MAX) */
    0.99999994f,  /* -x: log1p near its pole at -1 */
    1.3005895e38f /* log1p: finite (87.761055), was inf */
};
static const double EDGES_F64[] = {
    0.0, 1.0, 0.5, 2.5, 0.49999999999999994, 3.141592653589793, 1.5707963267948966, 1e4, 0x1p52, 0x1p53,
    0x1p-1074, 0x1p-1022, 0x1.ffffffffffffep-1023, 0x1.fffffffffffffp1023, 1e-300, 1e-308, 1e300, 1e308,
    709.782712893384,   /* exp overflows above ln(DBL_MAX) */
    710.4758600739439,  /* sinh/cosh overflow above ln(2·DBL_MAX) */
    710.43,             /* sinh/cosh: finite (1.7171126e308), was inf */
    708.3964185322641,  /* -x: exp's result becomes subnormal */
    745.1332191019411,  /* -x: exp's result underflows to 0 */
    1024.0, 1022.0, 1074.0, 1075.0, /* exp2's thresholds */
    308.25471555991675, /* log10(DBL_MAX) */
    0.9999999999999999, /* -x: log1p near its pole at -1 */
    88.7228394, 89.4159851 /* the f32 thresholds, for f64 kernels that cast down */
};

/* An inputs=edges float: a table value, its sign flipped in half the cases
 * and moved 0-3 ulps (in the element type) in most; NaN and ±inf; a random
 * bit pattern (every exponent, subnormals, payloads); or uniform in [-2, 2]. */
static double edge_value(tir_scalar s, uint64_t h) {
    uint32_t r = (uint32_t)(h % 100);
    uint64_t k = h >> 8;
    if (r < 20) return (double)(k >> 11) * 0x1.0p-53 * 4 - 2;
    if (r < 25) return r < 22 ? NAN : r < 24 ? INFINITY : -INFINITY;
    if (r < 40) {
        if (s == TIR_F32) {
            uint32_t bits = (uint32_t)k;
            float f;
            memcpy(&f, &bits, 4);
            return f;
        }
        double d;
        memcpy(&d, &k, 8);
        return d;
    }
    bool f32 = s == TIR_F32;
    size_t n = f32 ? sizeof EDGES_F32 / sizeof *EDGES_F32 : sizeof EDGES_F64 / sizeof *EDGES_F64;
    double v = f32 ? EDGES_F32[k % n] : EDGES_F64[k % n];
    if ((k >> 16) & 1) v = -v;
    int steps = (int)((k >> 17) % 7) - 3; /* -3..3 ulps; 0 in a seventh of the cases */
    for (; steps; steps += steps < 0 ? 1 : -1) {
        double to = steps < 0 ? -INFINITY : INFINITY;
        v = f32 ? nextafterf((float)v, (float)to) : nextafter(v, to);
    }
    return v;
}

/* Element i of the owner buffer `owner` (diff_case.h describes the distributions). */
static void input_element(const diff_case *c, tir_scalar s, size_t owner, size_t i, unsigned char *p) {
    uint64_t h = mix(c->input_seed * 1000003u ^ mix(owner * 7919u + i));
    bool special = c->specials && h % 16 == 0;
    if ((s == TIR_F32 || s == TIR_F64) && c->edge_inputs) {
        double v = edge_value(s, h);
        float f = (float)v;
        memcpy(p, s == TIR_F32 ? (const void *)&f : (const void *)&v, tir_scalar_size(s));
    } else if (s == TIR_F32 || s == TIR_F64) {
        static const double specials[] = {0.0, -0.0, INFINITY, -INFINITY, NAN};
        double v = special ? specials[(h >> 8) % 5]
                   : c->exact_inputs ? (double)((int)((h >> 16) % 129) - 64) / 8
                                     : (double)(h >> 11) * 0x1.0p-53 * 4 - 2;
        if (s == TIR_F32) {
            float f = (float)v;
            memcpy(p, &f, 4);
        } else {
            memcpy(p, &v, 8);
        }
    } else if (s == TIR_BOOL) {
        *p = special && h % 32 == 0 ? (unsigned char)(h % 64 < 32 ? 2 : 255) : (unsigned char)((h >> 5) & 1);
    } else {
        size_t size = tir_scalar_size(s), bits = 8 * size;
        bool sign = tir_scalar_is_signed(s);
        int64_t v = (int64_t)((h >> 16) % 61) - 30;
        if (!sign) v = (int64_t)((h >> 16) % 31);
        if (special && !c->exact_inputs) {
            int64_t min = sign ? (bits == 64 ? INT64_MIN : -((int64_t)1 << (bits - 1))) : 0;
            int64_t max = bits == 64 ? (sign ? INT64_MAX : -1) : sign ? ((int64_t)1 << (bits - 1)) - 1 : ((int64_t)1 << bits) - 1;
            const int64_t pick[5] = {min, max, sign ? -1 : 0, 0, 1};
            v = pick[(h >> 8) % 5];
        }
        put_int(p, size, v);
    }
}

/* ---- buffers ---- */

typedef struct {
    size_t n;
    tir_scalar elem[MAX_ARGS];
    size_t bytes[MAX_ARGS];  /* the view's bytes */
    int owner[MAX_ARGS];     /* the parameter owning the memory */
    size_t offset[MAX_ARGS]; /* bytes after the owner's first element */
    size_t total[MAX_ARGS];  /* owners: allocation bytes without pads */
    unsigned char *ref[MAX_ARGS], *nat[MAX_ARGS];
} buffers;

static void buffers_free(buffers *b) {
    for (size_t i = 0; i < b->n; i++) free(b->ref[i]), free(b->nat[i]);
}

static int param_index(const tir_func *f, const char *name) {
    for (size_t i = 0; i < tir_func_param_count(f); i++) {
        const char *p = tir_value_name(tir_func_param(f, i));
        if (p && !strcmp(p, name)) return (int)i;
    }
    return -1;
}

static bool buffers_make(const diff_case *c, const tir_func *f, buffers *b, char *why, size_t why_len) {
    memset(b, 0, sizeof *b);
    b->n = tir_func_param_count(f);
    if (b->n > MAX_ARGS) return snprintf(why, why_len, "too many parameters"), false;
    for (size_t i = 0; i < b->n; i++) {
        const tir_type *t = tir_value_type(tir_func_param(f, i));
        uint64_t volume;
        tir_space_volume(tir_type_space(t), &volume);
        b->elem[i] = tir_type_elem(t);
        b->bytes[i] = volume * tir_scalar_size(b->elem[i]);
        b->owner[i] = (int)i;
    }
    for (size_t k = 0; k < c->n_binds; k++) {
        int p = param_index(f, c->binds[k].param), o = param_index(f, c->binds[k].owner);
        if (p < 0 || o < 0 || p == o)
            return snprintf(why, why_len, "bind=%s:%s names no parameter", c->binds[k].param, c->binds[k].owner), false;
        b->owner[p] = o;
        b->offset[p] = c->binds[k].offset * tir_scalar_size(b->elem[o]);
    }
    for (size_t i = 0; i < b->n; i++)
        if (b->owner[b->owner[i]] != b->owner[i]) return snprintf(why, why_len, "a bound parameter owns memory"), false;
    for (size_t i = 0; i < b->n; i++) {
        size_t o = (size_t)b->owner[i], end = b->offset[i] + b->bytes[i];
        if (end > b->total[o]) b->total[o] = end;
    }
    for (size_t i = 0; i < b->n; i++) {
        if ((size_t)b->owner[i] != i) continue;
        size_t es = tir_scalar_size(b->elem[i]), all = b->total[i] + 2 * PAD;
        b->ref[i] = malloc(all);
        b->nat[i] = malloc(all);
        if (!b->ref[i] || !b->nat[i]) return snprintf(why, why_len, "out of memory"), false;
        memset(b->ref[i], SENTINEL, all);
        for (size_t e = 0; e * es < b->total[i]; e++) input_element(c, b->elem[i], i, e, b->ref[i] + PAD + e * es);
        memcpy(b->nat[i], b->ref[i], all);
    }
    return true;
}

/* ---- comparison ---- */

static double as_double(tir_scalar s, const unsigned char *p) {
    union {
        float f;
        double d;
    } u;
    memcpy(&u, p, tir_scalar_size(s));
    return s == TIR_F32 ? u.f : u.d;
}

/* The float's position on the number line of its type: consecutive values
 * (±inf one step beyond ±max) are consecutive integers, ±0 both 0. */
static int64_t ordinal(tir_scalar s, const unsigned char *p) {
    uint64_t bits = 0, sign = s == TIR_F32 ? 1ull << 31 : 1ull << 63;
    memcpy(&bits, p, tir_scalar_size(s)); /* little-endian: the low bytes */
    return bits & sign ? -(int64_t)(bits & ~sign) : (int64_t)bits;
}

static bool same_element(const diff_case *c, tir_scalar s, const unsigned char *x, const unsigned char *y) {
    size_t es = tir_scalar_size(s);
    if (!memcmp(x, y, es)) return true;
    if (s != TIR_F32 && s != TIR_F64) return false;
    double e = as_double(s, x), a = as_double(s, y);
    if (isnan(e) || isnan(a)) return isnan(e) && isnan(a);
    if (c->by_ulps) {
        int64_t ox = ordinal(s, x), oy = ordinal(s, y); /* the difference may not fit an int64 */
        return (ox > oy ? (uint64_t)ox - (uint64_t)oy : (uint64_t)oy - (uint64_t)ox) <= c->ulps;
    }
    if (c->bitwise) return false;
    return e == a || fabs(a - e) <= c->atol + c->rtol * fabs(e);
}

static void describe(tir_scalar s, const unsigned char *p, char *out, size_t n) {
    if (s == TIR_F32 || s == TIR_F64) {
        snprintf(out, n, s == TIR_F32 ? "%.9g" : "%.17g", as_double(s, p)); /* enough digits to tell ulps apart */
        return;
    }
    uint64_t v = 0;
    size_t es = tir_scalar_size(s);
    for (size_t i = 0; i < es; i++) v |= (uint64_t)p[i] << (8 * i);
    snprintf(out, n, "0x%llx", (unsigned long long)v);
}

/* Every owner allocation, pads included (only the pads: after a bounds
 * fault the outputs are unspecified, docs/facade.md); false with the first
 * difference. */
static bool compare(const diff_case *c, const tir_func *f, const buffers *b, bool pads_only, char *why, size_t why_len) {
    for (size_t i = 0; i < b->n; i++) {
        if ((size_t)b->owner[i] != i) continue;
        size_t es = tir_scalar_size(b->elem[i]), all = b->total[i] + 2 * PAD;
        for (size_t k = 0; k < all; k++) {
            bool pad = k < PAD || k >= PAD + b->total[i];
            if (pad) {
                if (b->nat[i][k] == SENTINEL && b->ref[i][k] == SENTINEL) continue;
                snprintf(why, why_len, "%%%s: the %s pad byte %zu was overwritten (native 0x%02x, reference 0x%02x)",
                         tir_value_name(tir_func_param(f, i)), k < PAD ? "leading" : "trailing",
                         k < PAD ? PAD - k : k - PAD - b->total[i], b->nat[i][k], b->ref[i][k]);
                return false;
            }
            if (pads_only || (k - PAD) % es) continue;
            if (same_element(c, b->elem[i], b->ref[i] + k, b->nat[i] + k)) continue;
            char e[48], a[48];
            describe(b->elem[i], b->ref[i] + k, e, sizeof e);
            describe(b->elem[i], b->nat[i] + k, a, sizeof a);
            snprintf(why, why_len, "%%%s element %zu (%s): reference %s, native %s", tir_value_name(tir_func_param(f, i)),
                     (k - PAD) / es, tir_scalar_name(b->elem[i]), e, a);
            return false;
        }
    }
    return true;
}

/* ---- runs ---- */

static const char *first_code(tilec_context *ctx) {
    return tilec_diag_count(ctx) ? tilec_diag_at(ctx, 0)->code : "";
}

static void set_diag(diff_result *out, tilec_context *ctx, diff_outcome o, const char *what) {
    out->outcome = o;
    snprintf(out->code, sizeof out->code, "%s", first_code(ctx));
    const tilec_diag *d = tilec_diag_count(ctx) ? tilec_diag_at(ctx, 0) : NULL;
    snprintf(out->detail, sizeof out->detail, "%s: %s", what, d ? d->message : "(no diagnostic)");
}

static tilec_compile_options options_of(diff_runner *r, const diff_case *c, bool defaults) {
    tilec_compile_options o = tilec_compile_options_default();
    o.width = c->width;
    o.runtime = r->rt[c->threads > 1];
    o.full_packet_specialization = c->full_packets;
    o.fused_mma = !c->separate_mma; /* the numeric contract, kept by the default-options retry */
    o.pack = (tilec_pack)c->pack;   /* packing never refuses: kept too */
    o.fuse = (tilec_fuse)c->fuse;   /* nor does fusion */
    o.stores = (tilec_stores)c->stores; /* nor do streaming stores */
    /* the split under test, kept too (an unsplittable kernel is not split, never refused) */
    if (c->split == 0) o.split = TILEC_SPLIT_OFF;
    else if (c->split > 0) o.split_chunks = (uint32_t)c->split;
    if (defaults) return o;
    o.block_size = c->block;
    o.blocks_per_task = c->grain;
    o.search_task_grain = c->search_grain;
    o.local_lanes = c->local_lanes;
    if (c->partitions) o.reduction_partitions = c->partitions;
    if (c->unrolled_set) o.max_unrolled_tile_elements = c->unrolled;
    o.root_axis_order = c->order, o.root_axis_order_len = c->order_len;
    o.root_axis_tiles = c->tiles, o.root_axis_tiles_len = c->tiles_len;
    return o;
}

static bool is_refusal(tilec_status st, tilec_context *ctx) {
    return (st == TILEC_E_UNSUPPORTED || st == TILEC_E_BUDGET) && first_code(ctx)[0];
}

/* Compiles (retrying with the default planner options after a refusal). */
static tilec_kernel *compile(diff_runner *r, const diff_case *c, const tir_func *f, diff_result *out) {
    tilec_kernel *k = NULL;
    for (int attempt = 0; attempt < 2; attempt++) {
        tilec_compile_options o = options_of(r, c, attempt == 1);
        tilec_diag_clear(r->ctx);
        tilec_status st = tilec_compile(r->ctx, f, &o, &k);
        if (!st) {
            out->compile_ms += tilec_kernel_compile_times(k).total;
            return k;
        }
        bool refusal = is_refusal(st, r->ctx);
        set_diag(out, r->ctx, refusal ? DIFF_REFUSED : DIFF_ERROR, refusal ? "compile refused" : "compile failed");
        if (!refusal) return NULL;
        if (attempt == 0) out->retried = true;
    }
    return NULL;
}

/* The case's options for the GPU target: pack and split are CPU
 * realizations; a block must be whole warps; packet-local means 32 lanes. */
static tilec_compile_options gpu_case_options(diff_runner *r, const diff_case *c, bool defaults) {
    tilec_compile_options o = options_of(r, c, defaults);
    if (o.block_size % PLAN_GPU_WARP) o.block_size = 0;
    if (o.local_lanes > 1) o.local_lanes = PLAN_GPU_WARP;
    o.pack = o.pack == TILEC_PACK_ON ? TILEC_PACK_OFF : o.pack; /* the case's CPU realizations, dropped */
    o.split = o.split == TILEC_SPLIT_ON ? TILEC_SPLIT_OFF : o.split;
    o.split_chunks = 0;
    o.blocks_per_task = 0;
    o.search_task_grain = false;
    o.runtime = NULL;
    o.target = TILEC_TARGET_CUDA;
    return o;
}

/* f through the CUDA target's pipeline up to its lowering (retrying with
 * the default options after a refusal); false with out set when it is not
 * lowered.  *p is to be freed by the caller when true. */
static bool gpu_lower(diff_runner *r, const diff_case *c, const tir_func *f, pipeline *p, diff_result *out) {
    for (int attempt = 0; attempt < 2; attempt++) {
        tilec_compile_options o = gpu_case_options(r, c, attempt == 1);
        tilec_diag_clear(r->ctx);
        pipeline_init(p, r->ctx, f, &o, &PIPELINE_CUDA, TILEC_STAGE_LOWER);
        tilec_status st = pipeline_run(p);
        if (!st) return true;
        pipeline_free(p);
        bool refusal = is_refusal(st, r->ctx) || st == TILEC_E_ARG;
        if (!refusal) {
            set_diag(out, r->ctx, DIFF_ERROR, "GPU plan failed");
            return false;
        }
    }
    out->gpu = DIFF_GPU_REFUSED;
    return false;
}

/* One run of the GPU plan's XIR from fresh inputs — on the XIR interpreter
 * at W = 32, or (`host`) as the GPU backend's own code on the host, thread
 * by thread (gpu/host_run.h) — compared with the reference's results in
 * ref_b; false with out set when it differs or fails. */
static bool gpu_run_matches(diff_runner *r, const diff_case *c, const tir_func *f, const buffers *ref_b,
                            const lower_result *lowered, bool host, diff_result *out) {
    const char *what = host ? "GPU code on the host" : "GPU plan (W=32, XIR interpreter)";
    buffers b;
    char why[512];
    if (!buffers_make(c, f, &b, why, sizeof why)) {
        buffers_free(&b);
        return true; /* the native run had the same buffers: not reachable */
    }
    tir_buffer args[MAX_ARGS];
    for (size_t i = 0; i < b.n; i++) {
        if (b.ref[i]) memcpy(b.ref[i], ref_b->ref[i], b.total[i] + 2 * PAD); /* the reference's results */
        args[i] = (tir_buffer){b.nat[i] + PAD, b.bytes[i]};
    }
    fault_record faults = {0};
    tilec_diag_clear(r->ctx);
    tilec_status st;
    if (host) {
        st = gpu_host_run(r->ctx, lowered->kernel, lowered->dispatch_size, b.n, args, &faults);
    } else {
        xir_interp_options xo = xir_interp_default_options();
        xo.faults = &faults;
        st = xir_interpret_with(r->ctx, lowered->kernel, lowered->dispatch_size, PLAN_GPU_WARP, b.n, args, &xo);
    }
    bool ok = false;
    if (!host && (st == TILEC_E_BUDGET || (st && !strcmp(first_code(r->ctx), "XIR-I05")))) {
        out->gpu = DIFF_GPU_REFUSED; /* the interpreter's step budget: too big to check this way */
    } else if (st) {
        set_diag(out, r->ctx, DIFF_ERROR, what);
    } else if (faults.count) {
        out->outcome = DIFF_MISMATCH;
        snprintf(out->detail, sizeof out->detail, "%s: %llu bounds faults the reference does not have", what,
                 (unsigned long long)faults.count);
    } else if (!compare(c, f, &b, false, why, sizeof why)) {
        out->outcome = DIFF_MISMATCH;
        snprintf(out->detail, sizeof out->detail, "%s: %s", what, why);
    } else {
        ok = true;
    }
    buffers_free(&b);
    return ok;
}

/* The GPU route (diff_run.h), the reference's results in ref_b: the
 * lowering run, then the same pipeline on to PTX. */
static void run_gpu(diff_runner *r, const diff_case *c, const tir_func *f, const buffers *ref_b, diff_result *out) {
    pipeline p;
    if (!gpu_lower(r, c, f, &p, out)) return;
    const lower_result *lowered = &p.lowered;
    bool ok = gpu_run_matches(r, c, f, ref_b, lowered, false, out);
    /* one program per lane has no warp instructions: its GPU code runs on the host too */
    if (ok && lowered->local_lanes == 1) ok = out->gpu_host = gpu_run_matches(r, c, f, ref_b, lowered, true, out);
    if (ok) {
        tilec_diag_clear(r->ctx);
        p.stop_after = TILEC_STAGE_EMIT;
        tilec_status st = pipeline_run(&p);
        if (st && strcmp(first_code(r->ctx), "GPU-L01")) set_diag(out, r->ctx, DIFF_ERROR, "PTX generation failed");
        else out->gpu = DIFF_GPU_CHECKED;
    }
    pipeline_free(&p);
}

static bool is_runtime_code(const char *code) {
    return !strcmp(code, "TIR-I07") || !strcmp(code, "TIR-I08") || !strcmp(code, "TIR-I09");
}

/* b's reference and native arguments. */
static void bind_args(const buffers *b, tir_buffer *rargs, tilec_buffer *nargs) {
    for (size_t i = 0; i < b->n; i++) {
        size_t o = (size_t)b->owner[i];
        rargs[i] = (tir_buffer){b->ref[o] + PAD + b->offset[i], b->bytes[i]};
        nargs[i] = (tilec_buffer){b->nat[o] + PAD + b->offset[i], b->bytes[i], b->elem[i]};
    }
}

/* The reference's run of f on b: TILEC_OK, or its runtime error when oob
 * allows one (code in ref_code); false (out set) when it refused. */
static bool run_reference(diff_runner *r, const tir_func *f, const buffers *b, bool oob, tilec_status *ref,
                          char *ref_code, diff_result *out) {
    tir_buffer rargs[MAX_ARGS];
    tilec_buffer nargs[MAX_ARGS];
    bind_args(b, rargs, nargs);
    tilec_diag_clear(r->ctx);
    *ref = tir_interpret(r->ctx, f, b->n, rargs);
    snprintf(ref_code, 32, "%s", first_code(r->ctx));
    if (*ref && !(oob && *ref == TILEC_E_RUNTIME && is_runtime_code(ref_code))) {
        set_diag(out, r->ctx, *ref == TILEC_E_BUDGET ? DIFF_SKIPPED : DIFF_INVALID, "reference failed");
        return false;
    }
    return true;
}

/* The native dispatch's status st against the reference's: the same fault
 * (any_fault: a fault, when sizes the generator did not choose may fault
 * at several accesses, whose first differs between the engines' orders),
 * or the same bytes.  Sets out's outcome (OK unless it was retried). */
static void judge(diff_runner *r, const diff_case *c, const tir_func *f, const buffers *b, tilec_status ref,
                  const char *ref_code, tilec_status st, bool any_fault, diff_result *out) {
    char why[512];
    out->faulted = ref != TILEC_OK;
    if (ref) { /* the reference reported an out-of-range access */
        bool same = any_fault ? is_runtime_code(first_code(r->ctx)) : !strcmp(first_code(r->ctx), ref_code);
        if (st != TILEC_E_RUNTIME || !same) {
            out->outcome = DIFF_MISMATCH;
            snprintf(out->code, sizeof out->code, "%s", ref_code);
            snprintf(out->detail, sizeof out->detail, "the reference reports %s, native dispatch %s %s", ref_code,
                     st ? "fails with" : "succeeds", st ? first_code(r->ctx) : "");
        } else if (!compare(c, f, b, true, why, sizeof why)) {
            out->outcome = DIFF_MISMATCH;
            snprintf(out->detail, sizeof out->detail, "after %s: %s", ref_code, why);
        } else if (!out->retried) {
            out->outcome = DIFF_OK;
        }
    } else if (st) {
        set_diag(out, r->ctx, DIFF_ERROR, "dispatch failed");
    } else if (!compare(c, f, b, false, why, sizeof why)) {
        out->outcome = DIFF_MISMATCH;
        snprintf(out->detail, sizeof out->detail, "%s", why);
    } else if (!out->retried) {
        out->outcome = DIFF_OK;
    }
}

static void run_parsed(diff_runner *r, const diff_case *c, const tir_func *f, bool oob, diff_result *out) {
    buffers b;
    char why[512], ref_code[32];
    tilec_status ref;
    if (!buffers_make(c, f, &b, why, sizeof why)) {
        out->outcome = DIFF_INVALID;
        snprintf(out->detail, sizeof out->detail, "%s", why);
        buffers_free(&b);
        return;
    }
    if (!run_reference(r, f, &b, oob, &ref, ref_code, out)) {
        buffers_free(&b);
        return;
    }
    tilec_kernel *k = compile(r, c, f, out);
    if (k) {
        const char *plan = strstr(tilec_kernel_realization(k), "plan=split"); /* plan=split<S>(..)+combine(..) */
        unsigned chunks = 0;
        if (plan && sscanf(plan, "plan=split%u(", &chunks) == 1) out->split = chunks;
        tir_buffer rargs[MAX_ARGS];
        tilec_buffer nargs[MAX_ARGS];
        bind_args(&b, rargs, nargs);
        tilec_diag_clear(r->ctx);
        judge(r, c, f, &b, ref, ref_code, tilec_dispatch(r->ctx, k, b.n, nargs), false, out);
        tilec_kernel_destroy(k);
    }
    if (out->outcome == DIFF_OK && !ref && !c->n_binds) run_gpu(r, c, f, &b, out);
    buffers_free(&b);
}

/* The case as a kernel with runtime sizes (diff_sized.h): compiled once
 * with the case's options and run at each sampled size against the
 * reference of the kernel at those sizes.  A refused compile is counted,
 * not a bug; a mismatch or error replaces out's outcome. */
static void run_sized(diff_runner *r, const diff_case *c, const char *text, bool oob, diff_result *out) {
    diff_sizes s;
    if (c->tiles_len) return; /* root tiles do not divide a runtime size (LOWER-O06) */
    char *t = diff_sized_text(text, c->input_seed, &s);
    if (!t) return;
    tir_module *m = NULL;
    diff_result sized = {0};
    tilec_diag_clear(r->ctx);
    tilec_status st = tir_parse(r->ctx, t, strlen(t), "sized.tir", NULL, 0, &m);
    if (!st) st = tir_verify(r->ctx, m);
    tilec_kernel *k = NULL;
    if (st) set_diag(&sized, r->ctx, DIFF_ERROR, "the kernel made of runtime sizes does not parse and verify");
    else if (!(k = compile(r, c, tir_module_func(m, 0), &sized)) && sized.outcome == DIFF_REFUSED) out->sized = DIFF_SIZED_REFUSED;
    for (uint32_t round = 0; k && round < DIFF_SIZED_ROUNDS && !diff_outcome_is_bug(sized.outcome); round++) {
        int64_t dims[DIFF_MAX_SIZES];
        diff_sized_sample(&s, round, c->input_seed, dims);
        tir_module *at = tir_func_specialize(tir_module_func(m, 0), s.count, dims);
        buffers b;
        char why[512], ref_code[32];
        tilec_status ref;
        if (!at || !buffers_make(c, tir_module_func(at, 0), &b, why, sizeof why)) {
            set_diag(&sized, r->ctx, DIFF_ERROR, "the kernel at sampled sizes cannot be made");
        } else if (run_reference(r, tir_module_func(at, 0), &b, oob || round > 0, &ref, ref_code, &sized)) {
            tir_buffer rargs[MAX_ARGS];
            tilec_buffer nargs[MAX_ARGS];
            bind_args(&b, rargs, nargs);
            tilec_diag_clear(r->ctx);
            judge(r, c, tir_module_func(at, 0), &b, ref, ref_code,
                  tilec_dispatch_dims(r->ctx, k, b.n, nargs, s.count, dims), round > 0, &sized);
            if (diff_outcome_is_bug(sized.outcome)) {
                char detail[sizeof sized.detail];
                memcpy(detail, sized.detail, sizeof detail);
                snprintf(sized.detail, sizeof sized.detail, "with runtime sizes S0..=%lld,%lld,%lld: %.600s",
                         (long long)dims[0], (long long)(s.count > 1 ? dims[1] : 0),
                         (long long)(s.count > 2 ? dims[2] : 0), detail);
            } else {
                out->sized = DIFF_SIZED_CHECKED;
            }
        }
        buffers_free(&b);
        tir_module_destroy(at);
    }
    if (diff_outcome_is_bug(sized.outcome)) {
        out->outcome = sized.outcome;
        snprintf(out->code, sizeof out->code, "%s", sized.code);
        snprintf(out->detail, sizeof out->detail, "%s", sized.detail);
    }
    tilec_kernel_destroy(k);
    tir_module_destroy(m);
    free(t);
}

void diff_run_case(diff_runner *r, const char *text, bool oob, bool sized, diff_result *out) {
    memset(out, 0, sizeof *out);
    diff_case c;
    char why[512];
    if (!diff_case_parse(text, &c, why, sizeof why)) {
        out->outcome = DIFF_INVALID;
        snprintf(out->detail, sizeof out->detail, "header: %s", why);
        return;
    }
    out->mergeable = strstr(text, "} combine (") != NULL;
    out->split_asked = c.split > 0;
    tir_module *m = NULL;
    tilec_diag_clear(r->ctx);
    tilec_status st = tir_parse(r->ctx, text, strlen(text), "case.tir", NULL, 0, &m);
    if (!st) st = tir_verify(r->ctx, m);
    if (st || tir_module_func_count(m) != 1) {
        set_diag(out, r->ctx, DIFF_INVALID, "the kernel does not parse and verify");
    } else {
        run_parsed(r, &c, tir_module_func(m, 0), oob, out);
        if (sized && out->outcome == DIFF_OK && !c.n_binds) run_sized(r, &c, text, oob, out);
        if (c.expect_ok && (out->outcome == DIFF_REFUSED || out->retried)) {
            out->outcome = DIFF_ERROR;
            snprintf(out->detail, sizeof out->detail, "refused (%s), but the case expects ok", out->code);
        }
    }
    tir_module_destroy(m);
    tilec_diag_clear(r->ctx);
}
