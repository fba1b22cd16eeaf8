/* interp.c — tir_interpret: binds the arguments, measures every value against
 * the budgets, carves one slot per SSA value from a single pool and prepares
 * every op once (operand slots, broadcast strides, mma contraction offsets,
 * constant contents) before interp_exec.c runs the body.
 *
 * The interpreter expects IR the builder or parser produced (ideally verified),
 * but never trusts it for memory safety: everything execution relies on
 * (operand kinds, ranks, extents, broadcast compatibility, terminators) is
 * checked here and refused with TIR-I06 instead of being assumed. */
#include "tir/interp.h"

#include "base/checked.h"

#include <stdarg.h>
#include <stdio.h>

static tilec_status malformed(interp *it, const tir_op *op, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static tilec_status malformed(interp *it, const tir_op *op, const char *fmt, ...) {
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return tilec_error(it->ctx, TILEC_E_VERIFY, "TIR-I06", op->loc, "cannot interpret '%s' op #%u in '@%s': %s",
                       tir_op_kind_name(op->kind), op->id, it->func->name, why);
}

static tilec_status out_of_memory(interp *it) {
    return tilec_error(it->ctx, TILEC_E_NOMEM, "TIR-I05", it->func->loc,
                       "out of memory interpreting '@%s'", it->func->name);
}

const char *interp_label(const tir_value *v, char *buf, size_t n) {
    if (v->name) snprintf(buf, n, "%%%s", v->name);
    else snprintf(buf, n, "value #%u", v->id);
    return buf;
}

bool interp_literal(tir_scalar t, tir_literal lit, scalar_cell *out) {
    scalar_cell c;
    tir_scalar from;
    switch (lit.kind) {
    case TIR_LIT_BOOL: c.u = lit.as.b; from = TIR_BOOL; break;
    case TIR_LIT_INT: c.i = lit.as.i; from = TIR_I64; break;
    case TIR_LIT_UINT: c.u = lit.as.u; from = TIR_U64; break;
    case TIR_LIT_FLOAT: c.f = lit.as.f; from = TIR_F64; break;
    default: return false;
    }
    *out = scalar_cast(from, t, c);
    return true;
}

/* ---- arguments ---- */

static tilec_status bind_arguments(interp *it, size_t n_args, const tir_buffer *args) {
    const tir_func *f = it->func;
    size_t n_params = f->body->arg_count;
    if (n_args != n_params)
        return tilec_error(it->ctx, TILEC_E_ARG, "TIR-I01", f->loc, "kernel '@%s' takes %zu argument%s, got %zu",
                           f->name, n_params, n_params == 1 ? "" : "s", n_args);
    if (n_args && !args)
        return tilec_error(it->ctx, TILEC_E_RUNTIME, "TIR-I02", f->loc,
                           "kernel '@%s': the argument array is NULL", f->name);
    if (n_params && !(it->views = ARENA_ARRAY(&it->arena, interp_view, n_params))) return out_of_memory(it);
    char name[128];
    for (size_t i = 0; i < n_params; i++) {
        const tir_value *p = f->body->args[i];
        if (p->type->kind != TIR_TYPE_VIEW)
            return tilec_error(it->ctx, TILEC_E_VERIFY, "TIR-I06", f->loc,
                               "kernel '@%s': parameter %zu is not a view", f->name, i);
        const tir_space *space = p->type->space;
        size_t elem_size = tir_scalar_size(p->type->elem);
        uint64_t volume, bytes;
        bool addressable = space->rank <= TIR_INTERP_MAX_RANK;
        for (uint32_t a = 0; a < space->rank; a++) addressable = addressable && space->axes[a].extent <= INT64_MAX;
        if (!addressable || !tir_space_volume(space, &volume) ||
            !checked_mul_u64(volume, elem_size, &bytes) || bytes > SIZE_MAX)
            return tilec_error(it->ctx, TILEC_E_BUDGET, "TIR-I04", f->loc,
                               "kernel '@%s': parameter %s is too large to address", f->name,
                               interp_label(p, name, sizeof name));
        if (!args[i].data)
            return tilec_error(it->ctx, TILEC_E_RUNTIME, "TIR-I02", f->loc,
                               "kernel '@%s': argument %zu (%s) has no data (NULL)", f->name, i,
                               interp_label(p, name, sizeof name));
        if (args[i].size_bytes < bytes)
            return tilec_error(it->ctx, TILEC_E_RUNTIME, "TIR-I03", f->loc,
                               "kernel '@%s': argument %zu (%s) has %zu bytes but its view of %llu %s elements "
                               "needs %llu", f->name, i, interp_label(p, name, sizeof name), args[i].size_bytes,
                               (unsigned long long)volume, tir_scalar_name(p->type->elem),
                               (unsigned long long)bytes);
        interp_view *v = &it->views[i];
        v->data = args[i].data;
        v->elem = p->type->elem;
        v->elem_size = elem_size;
        v->space = space;
        v->read_only = p->read_only;
        if (space->rank && !(v->strides = ARENA_ARRAY(&it->arena, uint64_t, space->rank))) return out_of_memory(it);
        uint64_t stride = 1; /* bounded by the volume, which fits */
        for (uint32_t a = space->rank; a-- > 0;) {
            v->strides[a] = stride;
            stride *= space->axes[a].extent;
        }
    }
    return TILEC_OK;
}

/* ---- storage ---- */

static interp_slot *slot_of(interp *it, const tir_value *v) {
    if (!v || v->id >= it->func->next_value_id) return NULL;
    interp_slot *s = &it->slots[v->id];
    return s->value == v ? s : NULL;
}

static bool is_param(const interp *it, const tir_value *v) {
    return v->def_block == it->func->body && v->index < it->func->body->arg_count &&
           it->func->body->args[v->index] == v;
}

/* The cells value `v` needs; TIR-I04 for a tile above the per-tile limit. */
static tilec_status value_volume(interp *it, const tir_op *op, const tir_value *v, uint64_t *volume) {
    char name[128];
    *volume = 1;
    if (v->type->kind == TIR_TYPE_VIEW)
        return malformed(it, op, "%s is a view that is not a kernel parameter", interp_label(v, name, sizeof name));
    if (v->type->kind != TIR_TYPE_TILE) return TILEC_OK;
    if (v->type->space->rank > TIR_INTERP_MAX_RANK)
        return malformed(it, op, "%s has rank %u, above the interpreter's limit %d", interp_label(v, name, sizeof name),
                         v->type->space->rank, TIR_INTERP_MAX_RANK);
    if (!tir_space_volume(v->type->space, volume) || *volume > TIR_INTERP_MAX_TILE_ELEMS)
        return tilec_error(it->ctx, TILEC_E_BUDGET, "TIR-I04", op->loc,
                           "tile %s of '@%s' has more elements than the interpreter's limit of %llu",
                           interp_label(v, name, sizeof name), it->func->name,
                           (unsigned long long)TIR_INTERP_MAX_TILE_ELEMS);
    return TILEC_OK;
}

static tilec_status add_volume(interp *it, const tir_op *op, const tir_value *v, uint64_t *total) {
    uint64_t volume;
    tilec_status st = value_volume(it, op, v, &volume);
    if (st) return st;
    if (volume > TIR_INTERP_MAX_CELLS - *total)
        return tilec_error(it->ctx, TILEC_E_BUDGET, "TIR-I04", op->loc,
                           "the values of '@%s' need more than the interpreter's limit of %llu elements",
                           it->func->name, (unsigned long long)TIR_INTERP_MAX_CELLS);
    *total += volume;
    return TILEC_OK;
}

/* Sums the cells of every op result and region block argument in `b` and its
 * nested bodies, so that the budget is checked before anything is allocated. */
static tilec_status measure_block(interp *it, const tir_block *b, uint64_t *total) {
    for (const tir_op *op = b->first; op; op = op->next) {
        tilec_status st = TILEC_OK;
        for (uint32_t i = 0; !st && i < op->result_count; i++) st = add_volume(it, op, op->results[i], total);
        for (uint32_t i = 0; !st && op->body && i < op->body->arg_count; i++)
            st = add_volume(it, op, op->body->args[i], total);
        if (!st && op->body) st = measure_block(it, op->body, total);
        if (st) return st;
    }
    return TILEC_OK;
}

/* Gives `v` its slot, carved from the cell pool. */
static tilec_status alloc_slot(interp *it, const tir_op *op, const tir_value *v) {
    char name[128];
    uint64_t volume;
    if (v->id >= it->func->next_value_id || it->slots[v->id].value)
        return malformed(it, op, "%s has an invalid or duplicate id", interp_label(v, name, sizeof name));
    tilec_status st = value_volume(it, op, v, &volume);
    if (st) return st;
    if (volume > it->pool_size - it->cells_used)
        return malformed(it, op, "%s was not found while measuring", interp_label(v, name, sizeof name));
    interp_slot *s = &it->slots[v->id];
    s->cells = it->pool + it->cells_used;
    it->cells_used += volume;
    s->value = v;
    s->volume = volume;
    s->elem = tir_value_elem(v);
    return TILEC_OK;
}

/* ---- per-op preparation ---- */

static bool is_tile(const interp_slot *s) { return s && s->value->type->kind == TIR_TYPE_TILE; }
static bool is_scalar(const interp_slot *s) { return s && s->value->type->kind != TIR_TYPE_TILE; }
static bool is_integer_scalar(const interp_slot *s) { return is_scalar(s) && tir_type_is_integer_scalar(s->value->type); }

/* Row-major element strides of `space` (arena; NULL for rank 0 or on failure). */
static uint64_t *row_major_strides(interp *it, const tir_space *space) {
    uint64_t *st = space->rank ? ARENA_ARRAY(&it->arena, uint64_t, space->rank) : NULL;
    uint64_t stride = 1;
    for (uint32_t a = space->rank; st && a-- > 0;) {
        st[a] = stride;
        stride *= space->axes[a].extent;
    }
    return st;
}

/* Constants are filled once: nothing else writes their slots. */
static tilec_status prepare_constant(interp *it, const tir_op *op, interp_step *s) {
    if (op->operand_count || op->result_count != 1) return malformed(it, op, "a constant has one result");
    scalar_cell value;
    if (!interp_literal(s->out[0]->elem, op->literal, &value))
        return malformed(it, op, "its literal has an unknown kind %d", (int)op->literal.kind);
    for (uint64_t n = 0; n < s->out[0]->volume; n++) s->out[0]->cells[n] = value;
    return TILEC_OK;
}

static tilec_status prepare_elementwise(interp *it, const tir_op *op, interp_step *s) {
    tir_ew_op ew = op->ew;
    unsigned arity = ew > TIR_EW_INVALID && ew < TIR_EW_COUNT ? tir_ew_arity(ew) : 0;
    if (!arity || op->operand_count != arity || op->result_count != 1)
        return malformed(it, op, "bad opcode or operand count");
    for (unsigned k = 0; k < arity; k++)
        if (!s->in[k]) return malformed(it, op, "operand %u must be an index, scalar or tile", k);
    tir_scalar elem = s->in[ew == TIR_EW_SELECT ? 1 : 0]->elem;
    bool defined = ew == TIR_EW_CAST ? scalar_ew_defined(ew, s->out[0]->elem) : scalar_ew_defined(ew, elem);
    if (ew == TIR_EW_SELECT) defined = defined && s->in[0]->elem == TIR_BOOL;
    if (!defined) return malformed(it, op, "'%s' is not defined on %s", tir_ew_name(ew), tir_scalar_name(elem));
    const tir_type *rt = op->results[0]->type;
    uint32_t rank = rt->kind == TIR_TYPE_TILE ? rt->space->rank : 0;
    if (rank && !(s->strides = ARENA_ARRAY(&it->arena, uint64_t, (size_t)arity * rank))) return out_of_memory(it);
    for (unsigned k = 0; k < arity; k++) {
        if (!is_tile(s->in[k])) continue;
        if (rt->kind != TIR_TYPE_TILE) return malformed(it, op, "tile operand %u but a scalar result", k);
        const tir_space *sp = s->in[k]->value->type->space;
        uint64_t stride = 1;
        for (uint32_t a = sp->rank; a-- > 0;) {
            int r = tir_space_find(rt->space, sp->axes[a].dim);
            uint64_t e = sp->axes[a].extent;
            if (r < 0 || (e != 1 && e != rt->space->axes[r].extent))
                return malformed(it, op, "operand %u does not broadcast to the result space along '%s'", k,
                                 sp->axes[a].dim->label);
            s->strides[(size_t)k * rank + (size_t)r] = e == 1 ? 0 : stride;
            stride *= e;
        }
    }
    return TILEC_OK;
}

static tilec_status prepare_extract(interp *it, const tir_op *op, interp_step *s) {
    if (op->operand_count < 1 || !is_tile(s->in[0]) || op->result_count != 1 || !is_scalar(s->out[0]) ||
        op->operand_count != 1 + s->in[0]->value->type->space->rank)
        return malformed(it, op, "needs a tile, one index per axis and a scalar result");
    for (uint32_t i = 1; i < op->operand_count; i++)
        if (!is_integer_scalar(s->in[i])) return malformed(it, op, "index %u is not an integer scalar", i - 1);
    s->strides = row_major_strides(it, s->in[0]->value->type->space);
    return s->strides || op->operand_count == 1 ? TILEC_OK : out_of_memory(it);
}

/* c[o] += a·b: strides of a and b along c's axes, and one (a, b) offset pair per
 * step of the contraction, its dims taken in a's axis order, lexicographically. */
static tilec_status prepare_mma(interp *it, const tir_op *op, interp_step *s) {
    if (op->operand_count != 3 || op->result_count != 1 || !is_tile(s->in[0]) || !is_tile(s->in[1]) ||
        !is_tile(s->in[2]) || s->in[2]->value->type != op->results[0]->type)
        return malformed(it, op, "needs tiles a, b, c and a result of c's type");
    const tir_space *sa = s->in[0]->value->type->space, *sb = s->in[1]->value->type->space,
                    *sc = s->in[2]->value->type->space;
    const tir_space *spaces[3] = {sa, sb, sc};
    for (int x = 0; x < 3; x++)
        for (uint32_t i = 0; i < spaces[x]->rank; i++) {
            const tir_axis *ax = &spaces[x]->axes[i];
            int seen = 0;
            for (int y = 0; y < 3; y++) {
                int j = y == x ? -1 : tir_space_find(spaces[y], ax->dim);
                if (j < 0) continue;
                seen++;
                if (spaces[y]->axes[j].extent != ax->extent)
                    return malformed(it, op, "dimension '%s' has different extents", ax->dim->label);
            }
            if (!seen) return malformed(it, op, "dimension '%s' appears in only one operand", ax->dim->label);
        }
    uint64_t *stride_a = row_major_strides(it, sa), *stride_b = row_major_strides(it, sb);
    uint32_t rc = sc->rank;
    if ((sa->rank && !stride_a) || (sb->rank && !stride_b) ||
        (rc && !(s->strides = ARENA_ARRAY(&it->arena, uint64_t, 2 * (size_t)rc))))
        return out_of_memory(it);
    for (uint32_t r = 0; r < rc; r++) {
        int ja = tir_space_find(sa, sc->axes[r].dim), jb = tir_space_find(sb, sc->axes[r].dim);
        s->strides[r] = ja >= 0 ? stride_a[ja] : 0;
        s->strides[rc + r] = jb >= 0 ? stride_b[jb] : 0;
    }
    /* The contraction: a's axes that b has and c lacks. */
    uint32_t k_axis[TIR_INTERP_MAX_RANK], k_in_b[TIR_INTERP_MAX_RANK], nk = 0;
    uint64_t k_volume = 1;
    for (uint32_t i = 0; i < sa->rank; i++) {
        int jb = tir_space_find(sb, sa->axes[i].dim);
        if (jb < 0 || tir_space_find(sc, sa->axes[i].dim) >= 0) continue;
        k_axis[nk] = i;
        k_in_b[nk++] = (uint32_t)jb;
        k_volume *= sa->axes[i].extent; /* at most a's volume, which is bounded */
    }
    s->k_volume = k_volume;
    s->k_off_a = ARENA_ARRAY(&it->arena, uint64_t, k_volume);
    s->k_off_b = ARENA_ARRAY(&it->arena, uint64_t, k_volume);
    if (!s->k_off_a || !s->k_off_b) return out_of_memory(it);
    uint64_t idx[TIR_INTERP_MAX_RANK] = {0}, off_a = 0, off_b = 0;
    for (uint64_t n = 0; n < k_volume; n++) {
        s->k_off_a[n] = off_a;
        s->k_off_b[n] = off_b;
        for (uint32_t d = nk; d-- > 0;) {
            uint64_t e = sa->axes[k_axis[d]].extent;
            off_a += stride_a[k_axis[d]];
            off_b += stride_b[k_in_b[d]];
            if (++idx[d] < e) break;
            off_a -= stride_a[k_axis[d]] * e;
            off_b -= stride_b[k_in_b[d]] * e;
            idx[d] = 0;
        }
    }
    return TILEC_OK;
}

/* Loads and stores: a view, one integer index per view axis, then the
 * op-specific trailing operands. */
static tilec_status prepare_access(interp *it, const tir_op *op, interp_step *s) {
    const tir_value *view = op->operand_count ? op->operands[0]->value : NULL;
    if (!view || view->type->kind != TIR_TYPE_VIEW || !is_param(it, view))
        return malformed(it, op, "operand 0 must be a kernel view parameter");
    s->view = &it->views[view->index];
    uint32_t rank = s->view->space->rank;
    bool load = op->kind == TIR_OP_VIEW_LOAD, subtile = op->domain != NULL;
    if (!load && s->view->read_only) return malformed(it, op, "stores to a const view");
    uint32_t trailing = load ? (subtile ? op->has_fill : 2u * op->masked) : 1;
    if (op->operand_count != 1 + rank + trailing || op->result_count != (load ? 1u : 0u))
        return malformed(it, op, "needs the view, %u indices and %u more operands", rank, trailing);
    for (uint32_t i = 1; i <= rank; i++)
        if (!is_integer_scalar(s->in[i])) return malformed(it, op, "index %u is not an integer scalar", i - 1);
    if (subtile && op->domain->rank != rank) return malformed(it, op, "tile rank differs from the view rank");
    const interp_slot *value = load ? s->out[0] : s->in[1 + rank];
    if (subtile ? !is_tile(value) || value->value->type->space != op->domain || value->elem != s->view->elem
                : !is_scalar(value) || value->elem != s->view->elem)
        return malformed(it, op, "the %s must be a %s of the view's element type", load ? "result" : "value",
                         subtile ? "tile over the access domain" : "scalar");
    if (load && subtile && op->has_fill && (!is_scalar(s->in[1 + rank]) || s->in[1 + rank]->elem != s->view->elem))
        return malformed(it, op, "the fill must be a scalar of the view's element type");
    if (load && op->masked &&
        (!is_scalar(s->in[1 + rank]) || s->in[1 + rank]->elem != TIR_BOOL || !is_scalar(s->in[2 + rank]) ||
         s->in[2 + rank]->elem != s->view->elem))
        return malformed(it, op, "the mask must be a bool scalar and the fallback a scalar of the view's type");
    return TILEC_OK;
}

static tilec_status prepare_block(interp *it, const tir_block *b);

/* Regions: domain coordinates and carries as block arguments, a terminating
 * yield, and matching carry/result types. */
static tilec_status prepare_region(interp *it, const tir_op *op, interp_step *s) {
    const tir_block *body = op->body;
    const tir_space *domain = op->domain;
    if (!body || !domain || domain->rank > TIR_INTERP_MAX_RANK) return malformed(it, op, "needs a body and a domain");
    for (uint32_t a = 0; a < domain->rank; a++)
        if (domain->axes[a].extent > (uint64_t)INT64_MAX)
            return malformed(it, op, "extent of '%s' exceeds the Index range", domain->axes[a].dim->label);
    bool map = op->kind == TIR_OP_MAP, cond = op->kind == TIR_OP_IF;
    uint32_t carries = tir_op_carry_count(op);
    if (cond && (domain->rank || op->operand_count != carries + 1 || !is_scalar(s->in[carries]) ||
                 s->in[carries]->elem != TIR_BOOL))
        return malformed(it, op, "an if needs a rank-0 domain, its initial carries and a bool scalar condition");
    if (body->arg_count != domain->rank + carries || op->operand_count != carries + cond ||
        (op->kind == TIR_OP_PARALLEL && op->result_count) || (map && op->result_count != 1))
        return malformed(it, op, "block arguments, operands and results do not match the domain and carries");
    if (body->arg_count && !(s->body_args = ARENA_ARRAY(&it->arena, interp_slot *, body->arg_count)))
        return out_of_memory(it);
    for (uint32_t i = 0; i < body->arg_count; i++) {
        tilec_status st = alloc_slot(it, op, body->args[i]);
        if (st) return st;
        s->body_args[i] = &it->slots[body->args[i]->id];
        if (i < domain->rank && body->args[i]->type->kind != TIR_TYPE_INDEX)
            return malformed(it, op, "coordinate argument %u is not an index", i);
        if (i >= domain->rank && (body->args[i]->type != op->results[i - domain->rank]->type ||
                                  body->args[i]->type != op->operands[i - domain->rank]->value->type))
            return malformed(it, op, "carry %u has mismatched types", i - domain->rank);
    }
    tilec_status st = prepare_block(it, body);
    if (st) return st;
    const tir_op *yield = body->last;
    uint32_t n_yield = map ? 1 : carries;
    if (!yield || yield->kind != TIR_OP_YIELD || yield->operand_count != n_yield)
        return malformed(it, op, "the body must end with a yield of %u value%s", n_yield, n_yield == 1 ? "" : "s");
    s->yields = it->steps[yield->id].in;
    for (uint32_t i = 0; i < n_yield; i++) {
        const interp_slot *y = s->yields[i];
        bool ok = map ? is_scalar(y) && y->elem == s->out[0]->elem : y && y->value->type == op->results[i]->type;
        if (!ok) return malformed(it, op, "yielded value %u does not match its %s", i, map ? "element type" : "carry");
    }
    if (map && op->results[0]->type->space != domain) return malformed(it, op, "the result space is not the domain");
    return TILEC_OK;
}

static tilec_status prepare_op(interp *it, const tir_op *op) {
    if (op->id >= it->func->next_op_id || it->steps[op->id].out) return malformed(it, op, "invalid or duplicate id");
    interp_step *s = &it->steps[op->id];
    if ((op->operand_count && !(s->in = ARENA_ARRAY(&it->arena, interp_slot *, op->operand_count))) ||
        !(s->out = ARENA_ARRAY(&it->arena, interp_slot *, op->result_count ? op->result_count : 1)))
        return out_of_memory(it);
    char name[128];
    for (uint32_t i = 0; i < op->operand_count; i++) {
        const tir_value *v = op->operands[i]->value;
        if (v->type->kind == TIR_TYPE_VIEW) {
            if (!is_param(it, v)) return malformed(it, op, "operand %u is a view that is not a kernel parameter", i);
        } else if (!(s->in[i] = slot_of(it, v))) {
            return malformed(it, op, "operand %u (%s) is not defined before this use", i, interp_label(v, name, sizeof name));
        }
    }
    for (uint32_t i = 0; i < op->result_count; i++) {
        tilec_status st = alloc_slot(it, op, op->results[i]);
        if (st) return st;
        s->out[i] = &it->slots[op->results[i]->id];
    }
    switch (op->kind) {
    case TIR_OP_CONSTANT: return prepare_constant(it, op, s);
    case TIR_OP_ELEMENTWISE: return prepare_elementwise(it, op, s);
    case TIR_OP_EXTRACT: return prepare_extract(it, op, s);
    case TIR_OP_MMA: return prepare_mma(it, op, s);
    case TIR_OP_VIEW_LOAD:
    case TIR_OP_VIEW_STORE: return prepare_access(it, op, s);
    case TIR_OP_PARALLEL:
    case TIR_OP_SERIAL:
    case TIR_OP_PIPELINE:
    case TIR_OP_REDUCE:
    case TIR_OP_IF:
    case TIR_OP_MAP: return prepare_region(it, op, s);
    case TIR_OP_STAGE: return TILEC_OK;
    case TIR_OP_YIELD:
        if (op != op->parent->last || !op->parent->parent_op)
            return malformed(it, op, "a yield must end the body of a region");
        return TILEC_OK;
    default: return malformed(it, op, "unknown op kind %d", (int)op->kind);
    }
}

static tilec_status prepare_block(interp *it, const tir_block *b) {
    for (const tir_op *op = b->first; op; op = op->next) {
        if (op->parent != b) return malformed(it, op, "the op's parent link is broken");
        tilec_status st = prepare_op(it, op);
        if (st) return st;
    }
    return TILEC_OK;
}

tilec_status tir_interpret(tilec_context *ctx, const tir_func *f, size_t n_args, const tir_buffer *args) {
    return tir_interpret_traced(ctx, f, n_args, args, NULL);
}

tilec_status tir_interpret_traced(tilec_context *ctx, const tir_func *f, size_t n_args, const tir_buffer *args,
                                  const tir_interp_trace *trace) {
    if (!ctx) return TILEC_E_ARG;
    if (!f) return tilec_error(ctx, TILEC_E_ARG, "TIR-I01", tilec_no_loc(), "tir_interpret: no kernel given");
    if (f->sym_count) /* its extents are forms, not numbers */
        return tilec_error(ctx, TILEC_E_ARG, "TIR-I10", f->loc,
                           "kernel '@%s' has runtime sizes: run it at given sizes (tir_func_specialize, or "
                           "tilec_dispatch_dims of its reference kernel)",
                           f->name);
    interp it = {.ctx = ctx, .func = f, .trace = trace};
    arena_init(&it.arena, ctx);
    tilec_status st = TILEC_OK;
    if ((f->next_value_id && !(it.slots = ARENA_ARRAY(&it.arena, interp_slot, f->next_value_id))) ||
        (f->next_op_id && !(it.steps = ARENA_ARRAY(&it.arena, interp_step, f->next_op_id))))
        st = out_of_memory(&it);
    if (!st) st = bind_arguments(&it, n_args, args);
    if (!st) st = measure_block(&it, f->body, &it.pool_size);
    /* One pool for every value (at least one cell, so the pointer is valid). */
    if (!st && !(it.pool = ARENA_ARRAY(&it.arena, scalar_cell, it.pool_size ? it.pool_size : 1)))
        st = out_of_memory(&it);
    if (!st) st = prepare_block(&it, f->body);
    if (!st) st = interp_run_block(&it, f->body);
    arena_destroy(&it.arena);
    return st;
}
