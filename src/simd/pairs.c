/* pairs.c — the partner of a pair store (analysis.h): two buffer writes of
 * every other element whose indices differ by exactly one fill the same
 * 2W-element span, so the emitter interleaves their values into two
 * contiguous vector stores instead of 2W scalar or masked ones.
 *
 * Index offsets are proved on linear forms: an integer value is Σ c·leaf +
 * k over `add`, `sub`, `mul` by a constant and same-width casts (all ring
 * operations modulo 2^64, as addresses wrap); anything else is a leaf.  Two
 * forms with equal leaf coefficients differ by a constant.
 *
 * The earlier write moves down to its partner, so nothing between them may
 * observe or change what it writes or its partner writes: only pure
 * instructions, private memory, and writes to the same buffer at a constant
 * offset from it whose span touches neither, and accesses of other buffers
 * when the dispatch keeps a's buffer apart from every other argument
 * (simd_facts.apart_args); any other buffer access (arguments may alias),
 * a fault or the block's end stops the search. */
#include "simd/analysis.h"

enum { MAX_TERMS = 12, MAX_DEPTH = 8, MAX_SCAN = 96 };

typedef struct {
    const xir_value *leaf[MAX_TERMS];
    int64_t coeff[MAX_TERMS];
    uint32_t n;
    int64_t k;
    bool ok;
} linear;

static void add_term(linear *f, const xir_value *leaf, int64_t c) {
    for (uint32_t i = 0; i < f->n; i++)
        if (f->leaf[i] == leaf) {
            f->coeff[i] = (int64_t)((uint64_t)f->coeff[i] + (uint64_t)c);
            return;
        }
    if (f->n == MAX_TERMS) {
        f->ok = false;
        return;
    }
    f->leaf[f->n] = leaf;
    f->coeff[f->n++] = c;
}

static bool const_of(const xir_value *v, int64_t *k) {
    if (v->kind != XIR_VALUE_CONST || !tir_scalar_is_integer(v->type->scalar)) return false;
    *k = (int64_t)v->constant.u;
    return true;
}

/* f += scale · v */
static void accumulate(linear *f, const xir_value *v, int64_t scale, int depth) {
    int64_t k;
    if (!f->ok) return;
    if (const_of(v, &k)) {
        f->k = (int64_t)((uint64_t)f->k + (uint64_t)scale * (uint64_t)k);
        return;
    }
    const xir_inst *i = v->kind == XIR_VALUE_INST ? (const xir_inst *)v : NULL;
    if (i && depth < MAX_DEPTH) {
        if (i->kind == XIR_INST_CAST && tir_scalar_is_integer(xir_operand(i, 0)->type->scalar) &&
            tir_scalar_size(xir_operand(i, 0)->type->scalar) == tir_scalar_size(v->type->scalar)) {
            accumulate(f, xir_operand(i, 0), scale, depth + 1);
            return;
        }
        if (i->kind == XIR_INST_ARITH && (i->op == XIR_OP_ADD || i->op == XIR_OP_SUB)) {
            accumulate(f, xir_operand(i, 0), scale, depth + 1);
            accumulate(f, xir_operand(i, 1), i->op == XIR_OP_SUB ? (int64_t)(0 - (uint64_t)scale) : scale, depth + 1);
            return;
        }
        if (i->kind == XIR_INST_ARITH && i->op == XIR_OP_MUL) {
            for (unsigned side = 0; side < 2; side++)
                if (const_of(xir_operand(i, side), &k)) {
                    accumulate(f, xir_operand(i, 1 - side), (int64_t)((uint64_t)scale * (uint64_t)k), depth + 1);
                    return;
                }
        }
    }
    add_term(f, v, scale);
}

/* b − a when it is a constant. */
static bool offset(const xir_value *a, const xir_value *b, int64_t *d) {
    linear f = {.ok = true};
    accumulate(&f, b, 1, 0);
    accumulate(&f, a, -1, 0);
    for (uint32_t i = 0; f.ok && i < f.n; i++) f.ok = f.coeff[i] == 0;
    *d = f.k;
    return f.ok;
}

static bool passes(const xir_inst *i) {
    switch (i->kind) {
    case XIR_INST_ARITH:
    case XIR_INST_CAST:
    case XIR_INST_BITCAST:
    case XIR_INST_GEP:
    case XIR_INST_ALLOCA:
    case XIR_INST_LOAD:
    case XIR_INST_STORE:
    case XIR_INST_WARP_READ_LANE:
    case XIR_INST_WARP_SYNC: return true; /* no meaning for a packet in lockstep */
    default: return false;
    }
}

/* Whether a write at offset d from a (every other element, W lanes) misses
 * both a's span and its partner's at offset s. */
static bool spans_apart(int64_t d, int64_t s, uint32_t width) {
    int64_t near = d % 2 == 0 ? d : d - s;
    uint64_t m = near < 0 ? 0 - (uint64_t)near : (uint64_t)near;
    return m >= 2ull * width;
}

const xir_inst *simd_pair_partner(const xir_inst *a, uint32_t width, uint64_t apart, int *sign) {
    const xir_value *buffer = xir_operand(a, 0), *index = xir_operand(a, 1);
    bool alone = buffer->kind == XIR_VALUE_ARG && buffer->arg_index < 64 && (apart >> buffer->arg_index & 1);
    int64_t between[MAX_SCAN];
    uint32_t n = 0, scanned = 0;
    for (const xir_inst *i = a->next; i && scanned++ < MAX_SCAN; i = i->next) {
        if (passes(i)) continue;
        /* another buffer, when a's overlaps none */
        bool access = i->kind == XIR_INST_BUFFER_READ || i->kind == XIR_INST_BUFFER_WRITE;
        if (alone && access && xir_operand(i, 0) != buffer) continue;
        int64_t d;
        if (i->kind != XIR_INST_BUFFER_WRITE || xir_operand(i, 0) != buffer || !offset(index, xir_operand(i, 1), &d))
            return NULL;
        if ((d == 1 || d == -1) && xir_operand(i, 2)->type == xir_operand(a, 2)->type) {
            for (uint32_t k = 0; k < n; k++)
                if (!spans_apart(between[k], d, width)) return NULL;
            *sign = (int)d;
            return i;
        }
        between[n++] = d;
    }
    return NULL;
}
