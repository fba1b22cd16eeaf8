/* verify_ops.c — per-operation verifier rules: attributes (V06), per-kind
 * typing and shape (V11–V16, V18–V20), field placement (V21), purity (V22),
 * attribute ranges (V23), and a reduce's combine block: its placement and
 * arguments (V24) and what it may contain (V25; its closure is checked with
 * the operands, in verify.c).  The elementwise and mma rules come from typing.c, the
 * same code the builder types with.
 *
 * Precondition of verify_op_kind: the op's kind is valid and its operands and
 * results are present, visible and well typed (verify.c checked them), so the
 * rules here may dereference every operand and result type. */
#include "tir/typing.h"
#include "tir/verify.h"

#include <stdio.h>

#define OP_ERROR(rule, ...) verify_op_error(v, op, (rule), __VA_ARGS__)

static tir_value *operand(const tir_op *op, uint32_t i) { return op->operands[i]->value; }

static const char *type_str(const verifier *v, const tir_type *t, char *buf, size_t n) {
    return verify_type_str(v->func->module, t, buf, n);
}

/* ---- rules 6, 21, 22, 23: need only a valid kind ---- */

static bool literal_is_default(const tir_literal *lit) { return lit->kind == TIR_LIT_BOOL && lit->as.u == 0; }

/* Rule 21: each optional field appears only on the kinds that take it. */
static void check_fields(verifier *v, const tir_op *op, const verify_block_ctx *where) {
    tir_op_kind k = op->kind;
    bool access = k == TIR_OP_VIEW_LOAD || k == TIR_OP_VIEW_STORE;
    const tir_type *r0 = op->result_count && op->results[0] ? op->results[0]->type : NULL;
    bool tile_constant = k == TIR_OP_CONSTANT && r0 && r0->kind == TIR_TYPE_TILE;
    if (op->body && !tir_op_is_region(op))
        OP_ERROR(21, "owns a body block, but only parallel, serial, pipeline, reduce and map ops have one");
    if (op->combine && k != TIR_OP_REDUCE) OP_ERROR(21, "owns a combine block, but only reduce ops take one");
    if (op->domain && !(tir_op_is_region(op) || access || tile_constant))
        OP_ERROR(21, "has a domain, but only regions, maps, subtile loads/stores and tile constants take one");
    if (op->bounds != TIR_BOUNDS_ZERO && !(access && op->domain))
        OP_ERROR(21, "has a bounds mode, but only subtile loads and stores take one");
    if (op->strides && !(access && op->domain))
        OP_ERROR(21, "has strides, but only subtile loads and stores take them");
    if (op->has_fill && !(k == TIR_OP_VIEW_LOAD && op->domain))
        OP_ERROR(21, "has a fill operand, but only subtile loads take one");
    if (op->masked && !(k == TIR_OP_VIEW_LOAD && !op->domain))
        OP_ERROR(21, "is masked, but only scalar loads take a mask");
    if (op->policy != TIR_REDUCE_UNORDERED_TREE && k != TIR_OP_REDUCE)
        OP_ERROR(21, "has reduction policy '%s', but only reduce ops take a policy",
                 tir_reduction_policy_name(op->policy));
    if (op->scope != TIR_SCOPE_AUTO && k != TIR_OP_PARALLEL)
        OP_ERROR(21, "has execution scope '%s', but only parallel ops take a scope", tir_exec_scope_name(op->scope));
    if ((op->stages != 0 || op->initiation_interval != 1) && k != TIR_OP_PIPELINE)
        OP_ERROR(21, "has stages=%llu ii=%llu, but only pipeline ops take them", (unsigned long long)op->stages,
                 (unsigned long long)op->initiation_interval);
    if (op->stage_name && k != TIR_OP_STAGE) OP_ERROR(21, "has a stage name, but only stage ops take one");
    if (!op->allow_reassociation && k != TIR_OP_MMA) OP_ERROR(21, "is marked 'ordered', but only mma ops take that");
    if (op->ew != TIR_EW_INVALID && k != TIR_OP_ELEMENTWISE)
        OP_ERROR(21, "has an elementwise opcode, but is not an elementwise op");
    if (!literal_is_default(&op->literal) && k != TIR_OP_CONSTANT)
        OP_ERROR(21, "has a literal, but only constants take one");
    /* A concrete parallel scope may not nest outward (device < group < ... < vector). */
    if (k == TIR_OP_PARALLEL && op->scope > TIR_SCOPE_AUTO && op->scope < TIR_SCOPE_COUNT &&
        where->outer_scope != TIR_SCOPE_AUTO && op->scope < where->outer_scope)
        OP_ERROR(21, "parallel scope '%s' cannot nest inside scope '%s'", tir_exec_scope_name(op->scope),
                 tir_exec_scope_name(where->outer_scope));
}

/* Rules 6 and 23: attribute values, on the kinds that take them. */
static void check_attributes(verifier *v, const tir_op *op) {
    switch (op->kind) {
    case TIR_OP_CONSTANT:
        if ((unsigned)op->literal.kind > TIR_LIT_FLOAT)
            OP_ERROR(6, "its literal has no value (unknown literal kind %d)", (int)op->literal.kind);
        break;
    case TIR_OP_STAGE:
        if (op->stage_name && !*op->stage_name) OP_ERROR(6, "its stage name is empty (omit the name instead)");
        break;
    case TIR_OP_PIPELINE:
        if (op->stages > UINT32_MAX)
            OP_ERROR(23, "stages=%llu does not fit in 32 bits", (unsigned long long)op->stages);
        if (op->initiation_interval < 1 || op->initiation_interval > UINT32_MAX)
            OP_ERROR(23, "ii=%llu is outside [1, 4294967295]", (unsigned long long)op->initiation_interval);
        break;
    case TIR_OP_REDUCE:
        if ((unsigned)op->policy >= TIR_REDUCE_POLICY_COUNT)
            OP_ERROR(23, "reduction policy %d is not one of the four policies", (int)op->policy);
        break;
    case TIR_OP_PARALLEL:
        if ((unsigned)op->scope >= TIR_SCOPE_COUNT) OP_ERROR(23, "execution scope %d is unknown", (int)op->scope);
        break;
    case TIR_OP_VIEW_LOAD:
    case TIR_OP_VIEW_STORE:
        if (op->domain && op->bounds != TIR_BOUNDS_ZERO && op->bounds != TIR_BOUNDS_ASSUME)
            OP_ERROR(23, "bounds mode %d is neither zero nor assume", (int)op->bounds);
        break;
    default: break;
    }
}

void verify_op_placement(verifier *v, const tir_op *op, const verify_block_ctx *where) {
    check_attributes(v, op);
    check_fields(v, op, where);
    bool effect = op->kind == TIR_OP_VIEW_LOAD || op->kind == TIR_OP_VIEW_STORE;
    /* Rule 25 first: a combine block is pure and loop-free at any depth. */
    if (where->combine && (effect || tir_op_is_loop(op) || op->kind == TIR_OP_PARALLEL || op->kind == TIR_OP_IF))
        OP_ERROR(25, "%s are not allowed inside a combine block (it is nested in that of 'reduce' op #%u)",
                 effect ? "memory effects" : "loops, parallel and if regions", where->combine->parent_op->id);
    else if (where->map && effect)
        OP_ERROR(22, "memory effects are not allowed inside a map (it is nested in 'map' op #%u)", where->map->id);
}

/* Rule 24. */
void verify_op_combine(verifier *v, const tir_op *op) {
    char t[256], w[256];
    if (op->policy != TIR_REDUCE_UNORDERED_TREE && op->policy != TIR_REDUCE_ORDERED_TREE) {
        if ((unsigned)op->policy < TIR_REDUCE_POLICY_COUNT) /* else rule 23 */
            OP_ERROR(24, "has a combine block, but its policy '%s' pins one evaluation order (only unordered_tree "
                         "and ordered_tree reduces may have one)",
                     tir_reduction_policy_name(op->policy));
        return;
    }
    uint32_t k = op->result_count;
    if (!k) {
        OP_ERROR(24, "has a combine block, but carries nothing to combine");
        return;
    }
    const tir_block *c = op->combine;
    if (c->arg_count != 2 * k) {
        OP_ERROR(24, "its combine block has %u arguments, but %u carries need %u (the left state, then the right)",
                 c->arg_count, k, 2 * k);
        return;
    }
    for (uint32_t i = 0; i < c->arg_count; i++) {
        const tir_value *arg = c->args[i];
        if (!arg || !arg->type) continue; /* rule 5, reported when the block is walked */
        const tir_type *want = op->results[i % k]->type;
        if (arg->type != want) {
            OP_ERROR(24, "combine argument %u (%s state, carry %u) has type %s, expected %s", i,
                     i < k ? "left" : "right", i % k, type_str(v, arg->type, t, sizeof t), type_str(v, want, w, sizeof w));
            return;
        }
    }
}

/* ---- per-kind rules ---- */

static bool expect_counts(verifier *v, const tir_op *op, int rule, uint32_t operands, uint32_t results) {
    if (op->operand_count == operands && op->result_count == results) return true;
    OP_ERROR(rule, "takes %u operands and %u results, has %u and %u", operands, results, op->operand_count,
             op->result_count);
    return false;
}

/* Rule 11. */
static void check_constant(verifier *v, const tir_op *op, const verify_block_ctx *where) {
    char t[256];
    if (!expect_counts(v, op, 11, 0, 1)) return;
    const tir_type *type = op->results[0]->type;
    if (type->kind == TIR_TYPE_VIEW) {
        OP_ERROR(11, "a constant cannot be a view");
        return;
    }
    if (type->kind == TIR_TYPE_TILE && op->domain != type->space)
        OP_ERROR(11, "its domain differs from the space of its type %s", type_str(v, type, t, sizeof t));
    if ((unsigned)op->literal.kind > TIR_LIT_FLOAT) return; /* rule 6 */
    tir_scalar s = tir_type_elem(type);
    if ((op->literal.kind == TIR_LIT_BOOL) != (s == TIR_BOOL))
        OP_ERROR(11, "a constant of type %s needs a %s literal", type_str(v, type, t, sizeof t),
                 s == TIR_BOOL ? "boolean" : "numeric");
    else if (op->literal.kind == TIR_LIT_FLOAT && !tir_scalar_is_float(s))
        OP_ERROR(11, "a constant of type %s cannot take a fractional literal", type_str(v, type, t, sizeof t));
}

/* Rule 12, CAST: any element type to any, keeping scalar-vs-tile. */
static void check_cast(verifier *v, const tir_op *op) {
    char a[256], r[256];
    const tir_type *from = operand(op, 0)->type, *to = op->results[0]->type;
    if (!tir_type_is_ew_operand(from)) {
        OP_ERROR(12, "operand 0 must be an index, scalar or tile, not %s", type_str(v, from, a, sizeof a));
        return;
    }
    bool ok = from->kind == TIR_TYPE_TILE ? to->kind == TIR_TYPE_TILE && to->space == from->space
                                          : to->kind == TIR_TYPE_SCALAR;
    if (!ok)
        OP_ERROR(12, "a cast of %s cannot produce %s (a cast keeps the shape and changes only the element type)",
                 type_str(v, from, a, sizeof a), type_str(v, to, r, sizeof r));
}

/* Rule 12: the builder's typing (typing.c) must give exactly the stored type. */
static void check_elementwise(verifier *v, const tir_op *op, const verify_block_ctx *where) {
    char a[256], r[256];
    if (op->ew <= TIR_EW_INVALID || op->ew >= TIR_EW_COUNT) {
        OP_ERROR(12, "invalid elementwise opcode %d", (int)op->ew);
        return;
    }
    if (!expect_counts(v, op, 12, tir_ew_arity(op->ew), 1)) return;
    if (op->ew == TIR_EW_CAST) {
        check_cast(v, op);
        return;
    }
    tir_value *operands[3];
    for (uint32_t i = 0; i < op->operand_count; i++) operands[i] = operand(op, i);
    tir_ew_typing t;
    tir_ew_type(op->ew, operands, &t);
    switch (t.status) {
    case TIR_EW_TYPING_OK: break;
    case TIR_EW_TYPING_OPERAND_KIND:
        OP_ERROR(12, "operand %zu must be an index, scalar or tile, not %s", t.operand,
                 type_str(v, operands[t.operand]->type, a, sizeof a));
        return;
    case TIR_EW_TYPING_ELEM_DIFFER:
        OP_ERROR(12, "operand element types differ (%s and %s in operand %zu)", tir_scalar_name(t.elem),
                 tir_scalar_name(tir_value_elem(operands[t.operand])), t.operand);
        return;
    case TIR_EW_TYPING_CONDITION: OP_ERROR(12, "the condition must be bool, not %s", tir_scalar_name(t.elem)); return;
    case TIR_EW_TYPING_ELEM_CLASS:
        OP_ERROR(12, "'%s' is not defined for element type %s%s", tir_ew_name(op->ew), tir_scalar_name(t.elem),
                 tir_scalar_is_half(t.elem) ? HALF_HINT : "");
        return;
    }
    const tir_type *result = op->results[0]->type;
    tir_type_kind kind = tir_ew_result_kind(&t);
    bool ok = result->kind == kind;
    if (ok && kind == TIR_TYPE_TILE)
        ok = result->elem == t.result && tir_space_is_join(result->space, t.n_spaces, t.spaces);
    else if (ok && kind == TIR_TYPE_SCALAR)
        ok = result->elem == t.result;
    if (!ok) {
        char want[128];
        size_t len = 0;
        for (uint32_t i = 0; i < op->operand_count && len < sizeof a; i++)
            len += (size_t)snprintf(a + len, sizeof a - len, "%s%s", i ? ", " : "",
                                    type_str(v, operands[i]->type, r, sizeof r));
        if (kind == TIR_TYPE_TILE)
            snprintf(want, sizeof want, "tile<%s> over the identity join of the operand spaces",
                     tir_scalar_name(t.result));
        else
            snprintf(want, sizeof want, "%s", kind == TIR_TYPE_INDEX ? "index" : tir_scalar_name(t.result));
        OP_ERROR(12, "its result type %s is not what its operands (%s) give: %s", type_str(v, result, r, sizeof r), a,
                 want);
    }
}

/* Index or integer scalar: what coordinates and view indices accept. */
static bool check_indices(verifier *v, const tir_op *op, int rule, uint32_t first, uint32_t n) {
    char t[256];
    for (uint32_t i = first; i < first + n; i++)
        if (!tir_type_is_integer_scalar(operand(op, i)->type)) {
            OP_ERROR(rule, "operand %u must be an index or integer scalar, not %s", i,
                     type_str(v, operand(op, i)->type, t, sizeof t));
            return false;
        }
    return true;
}

/* Rule 13. */
static void check_extract(verifier *v, const tir_op *op, const verify_block_ctx *where) {
    char t[256];
    if (op->operand_count < 1 || op->result_count != 1) {
        OP_ERROR(13, "needs a tile operand and one result");
        return;
    }
    const tir_type *tile = operand(op, 0)->type;
    if (tile->kind != TIR_TYPE_TILE) {
        OP_ERROR(13, "operand 0 must be a tile, not %s", type_str(v, tile, t, sizeof t));
        return;
    }
    if (op->operand_count != tile->space->rank + 1) {
        OP_ERROR(13, "the tile has rank %u but %u indices are given", tile->space->rank, op->operand_count - 1);
        return;
    }
    if (!check_indices(v, op, 13, 1, tile->space->rank)) return;
    const tir_type *r = op->results[0]->type;
    if (r->kind != TIR_TYPE_SCALAR || r->elem != tile->elem)
        OP_ERROR(13, "its result must be a %s scalar, not %s", tir_scalar_name(tile->elem), type_str(v, r, t, sizeof t));
}

/* Block arguments of a region or map body: rank Index coordinates, then `carries`. */
static void check_body_args(verifier *v, const tir_op *op, int rule, uint32_t rank, tir_value *const *carries,
                            uint32_t n_carries) {
    char t[256];
    const tir_block *body = op->body;
    if (body->arg_count != rank + n_carries) {
        OP_ERROR(rule, "its body has %u arguments, but a domain of rank %u and %u carries need %u", body->arg_count,
                 rank, n_carries, rank + n_carries);
        return;
    }
    for (uint32_t i = 0; i < body->arg_count; i++) {
        const tir_value *arg = body->args[i];
        if (!arg || !arg->type) continue; /* rule 5, reported when the body is walked */
        const tir_type *want = i < rank ? NULL : carries[i - rank]->type;
        bool ok = want ? arg->type == want : arg->type->kind == TIR_TYPE_INDEX;
        if (!ok) {
            char w[256];
            OP_ERROR(rule, "body argument %u has type %s, expected %s", i, type_str(v, arg->type, t, sizeof t),
                     want ? type_str(v, want, w, sizeof w) : "index");
            return;
        }
    }
}

/* Rule 14. */
static void check_map(verifier *v, const tir_op *op, const verify_block_ctx *where) {
    char t[256];
    if (!expect_counts(v, op, 14, 0, 1)) return;
    const tir_type *r = op->results[0]->type;
    if (r->kind != TIR_TYPE_TILE) {
        OP_ERROR(14, "its result must be a tile, not %s", type_str(v, r, t, sizeof t));
        return;
    }
    if (!op->domain || !verify_space_local(v, op->domain)) {
        OP_ERROR(14, "%s", op->domain ? "its domain is not an index space of this module" : "it has no domain");
        return;
    }
    if (op->domain != r->space) {
        OP_ERROR(14, "its domain differs from the space of its result %s", type_str(v, r, t, sizeof t));
        return;
    }
    if (!op->body) {
        OP_ERROR(14, "it has no body block");
        return;
    }
    check_body_args(v, op, 14, op->domain->rank, NULL, 0);
}

/* Rule 15. */
static void check_mma(verifier *v, const tir_op *op, const verify_block_ctx *where) {
    char t[256], why[256];
    if (!expect_counts(v, op, 15, 3, 1)) return;
    for (uint32_t i = 0; i < 3; i++)
        if (!tir_type_is_mma_operand(operand(op, i)->type)) {
            OP_ERROR(15, "operand %u must be a numeric tile, not %s", i, type_str(v, operand(op, i)->type, t, sizeof t));
            return;
        }
    const tir_type *c = operand(op, 2)->type;
    if (tir_scalar_is_half(c->elem))
        OP_ERROR(15, "its accumulator is %s%s", tir_scalar_name(c->elem), HALF_HINT);
    else if (op->results[0]->type != c)
        OP_ERROR(15, "its result type %s differs from the accumulator's %s",
                 type_str(v, op->results[0]->type, t, sizeof t), type_str(v, c, why, sizeof why));
    else if (tir_mma_dims_error(operand(op, 0)->type->space, operand(op, 1)->type->space, c->space, why, sizeof why))
        OP_ERROR(15, "%s", why);
}

/* Rule 16: loads and stores, subtile (with a domain) or scalar. */
static void check_access(verifier *v, const tir_op *op, const verify_block_ctx *where) {
    char t[256], w[256], name[160];
    bool load = op->kind == TIR_OP_VIEW_LOAD;
    if (op->operand_count < 1) {
        OP_ERROR(16, "it has no view operand");
        return;
    }
    const tir_value *view = operand(op, 0);
    if (view->type->kind != TIR_TYPE_VIEW) {
        OP_ERROR(16, "operand 0 (%s) must be a view, not %s", verify_value_str(view, name, sizeof name),
                 type_str(v, view->type, t, sizeof t));
        return;
    }
    if (!load && view->read_only) {
        OP_ERROR(16, "stores through %s, a read-only (const) view", verify_value_str(view, name, sizeof name));
        return;
    }
    uint32_t rank = view->type->space->rank;
    tir_scalar elem = view->type->elem;
    if (op->domain && !verify_space_local(v, op->domain)) {
        OP_ERROR(16, "its tile space is not an index space of this module");
        return;
    }
    if (op->domain && op->domain->rank != rank) {
        OP_ERROR(16, "its tile space has rank %u but the view has rank %u", op->domain->rank, rank);
        return;
    }
    for (uint32_t a = 0; op->domain && op->strides && a < rank; a++) {
        if (!tir_stride_valid(op->domain->axes[a].extent, op->strides[a])) {
            OP_ERROR(16, "its stride %llu along tile axis %u is 0 or spans past 2^63 elements",
                     (unsigned long long)op->strides[a], a);
            return;
        }
    }
    uint32_t extra = load ? (op->domain ? op->has_fill : 2u * op->masked) : 1u;
    if (!expect_counts(v, op, 16, rank + 1 + extra, load)) return;
    if (!check_indices(v, op, 16, 1, rank)) return;
    /* The element or tile type every access must agree with. */
    const tir_type *data = load ? op->results[0]->type : operand(op, rank + 1)->type;
    bool ok = op->domain ? data->kind == TIR_TYPE_TILE && data->elem == elem && data->space == op->domain
                         : data->kind == TIR_TYPE_SCALAR && data->elem == elem;
    if (!ok) {
        if (op->domain)
            snprintf(w, sizeof w, "tile<%s> over its tile space", tir_scalar_name(elem));
        else
            snprintf(w, sizeof w, "%s scalar", tir_scalar_name(elem));
        OP_ERROR(16, "%s must be a %s, not %s", load ? "its result" : "the stored value", w,
                 type_str(v, data, t, sizeof t));
        return;
    }
    if (load && op->domain && op->has_fill) {
        const tir_type *fill = operand(op, rank + 1)->type;
        if (fill->kind != TIR_TYPE_SCALAR || fill->elem != elem)
            OP_ERROR(16, "the fill must be a %s scalar, not %s", tir_scalar_name(elem), type_str(v, fill, t, sizeof t));
    }
    if (load && !op->domain && op->masked) {
        const tir_type *pred = operand(op, rank + 1)->type, *fallback = operand(op, rank + 2)->type;
        if (pred->kind != TIR_TYPE_SCALAR || pred->elem != TIR_BOOL)
            OP_ERROR(16, "the mask must be a bool scalar, not %s", type_str(v, pred, t, sizeof t));
        else if (fallback->kind != TIR_TYPE_SCALAR || fallback->elem != elem)
            OP_ERROR(16, "the fallback must be a %s scalar, not %s", tir_scalar_name(elem),
                     type_str(v, fallback, t, sizeof t));
    }
}

/* Rule 18: parallel, serial, pipeline, reduce. */
static void check_region(verifier *v, const tir_op *op, const verify_block_ctx *where) {
    char t[256], w[256];
    const char *bad_domain = !op->domain                          ? "it has no domain"
                             : !verify_space_local(v, op->domain) ? "its domain is not an index space of this module"
                             : !op->domain->rank                  ? "its domain has rank 0 (regions need rank >= 1)"
                                                                  : NULL;
    if (bad_domain) {
        OP_ERROR(18, "%s", bad_domain);
        return;
    }
    if (!op->body) {
        OP_ERROR(18, "it has no body block");
        return;
    }
    if (op->kind == TIR_OP_PARALLEL) {
        if (op->operand_count || op->result_count) {
            OP_ERROR(18, "a parallel region carries no values, but it has %u operands and %u results",
                     op->operand_count, op->result_count);
            return;
        }
    } else {
        if (op->operand_count != op->result_count) {
            OP_ERROR(18, "it has %u initial carries but %u results", op->operand_count, op->result_count);
            return;
        }
        for (uint32_t i = 0; i < op->result_count; i++) {
            const tir_type *init = operand(op, i)->type, *r = op->results[i]->type;
            if (r->kind == TIR_TYPE_VIEW) {
                OP_ERROR(18, "carry %u is a view (views cannot be carried)", i);
                return;
            }
            if (init != r) {
                OP_ERROR(18, "carry %u starts as %s but its result is %s", i, type_str(v, init, t, sizeof t),
                         type_str(v, r, w, sizeof w));
                return;
            }
        }
    }
    check_body_args(v, op, 18, op->domain->rank, op->results, op->result_count);
}

/* Rule 18 for if: a rank-0 domain (no coordinates), a body, the carries'
 * initial values then a bool scalar condition as operands, one result per
 * carry of its type. */
static void check_if(verifier *v, const tir_op *op, const verify_block_ctx *where) {
    char t[256], w[256];
    if (!op->domain || !verify_space_local(v, op->domain) || op->domain->rank || !op->body) {
        OP_ERROR(18, "an if needs a body and a rank-0 domain of this module");
        return;
    }
    const tir_value *cond = op->operand_count ? operand(op, op->operand_count - 1) : NULL;
    if (!cond || op->operand_count != op->result_count + 1 || cond->type->kind != TIR_TYPE_SCALAR ||
        cond->type->elem != TIR_BOOL) {
        OP_ERROR(18, "an if takes its %u initial carries then a bool scalar condition, but it has %u operands",
                 op->result_count, op->operand_count);
        return;
    }
    for (uint32_t i = 0; i < op->result_count; i++) {
        const tir_type *init = operand(op, i)->type, *r = op->results[i]->type;
        if (r->kind == TIR_TYPE_VIEW || init != r) {
            OP_ERROR(18, "carry %u starts as %s but its result is %s (views cannot be carried)", i,
                     type_str(v, init, t, sizeof t), type_str(v, r, w, sizeof w));
            return;
        }
    }
    check_body_args(v, op, 18, 0, op->results, op->result_count);
}

/* Rule 19. */
static void check_yield(verifier *v, const tir_op *op, const verify_block_ctx *where) {
    char t[256], w[256];
    if (op->result_count) OP_ERROR(19, "a yield has no results, this one has %u", op->result_count);
    if (op->next) OP_ERROR(19, "it is not the last op of its block");
    const tir_op *owner = where->owner;
    if (!owner) {
        OP_ERROR(19, "it is in the kernel body, which has no terminator");
        return;
    }
    if (!where->owner_ok) return; /* the owner's results were reported */
    if (owner->kind == TIR_OP_MAP) {
        const tir_type *r = owner->result_count == 1 ? owner->results[0]->type : NULL;
        if (!r || r->kind != TIR_TYPE_TILE) return; /* rule 14 */
        const tir_type *e = op->operand_count == 1 ? operand(op, 0)->type : NULL;
        if (!e || e->kind != TIR_TYPE_SCALAR || e->elem != r->elem)
            OP_ERROR(19, "the body of 'map' op #%u must yield one %s scalar%s%s", owner->id, tir_scalar_name(r->elem),
                     e ? ", not " : "", e ? type_str(v, e, t, sizeof t) : "");
        return;
    }
    if (op->operand_count != owner->result_count) {
        OP_ERROR(19, "yields %u values, but '%s' op #%u has %u results", op->operand_count, verify_op_name(owner),
                 owner->id, owner->result_count);
        return;
    }
    for (uint32_t i = 0; i < op->operand_count; i++)
        if (operand(op, i)->type != owner->results[i]->type) {
            OP_ERROR(19, "yielded value %u has type %s, but result %u of '%s' op #%u is %s", i,
                     type_str(v, operand(op, i)->type, t, sizeof t), i, verify_op_name(owner), owner->id,
                     type_str(v, owner->results[i]->type, w, sizeof w));
            return;
        }
}

/* Rule 20. */
static void check_stage(verifier *v, const tir_op *op, const verify_block_ctx *where) {
    if (!expect_counts(v, op, 20, 0, 0)) return;
    if (where->owner && where->owner->kind == TIR_OP_PIPELINE) return;
    if (where->owner)
        OP_ERROR(20, "a stage must be directly in a pipeline body, not in the body of '%s' op #%u",
                 verify_op_name(where->owner), where->owner->id);
    else
        OP_ERROR(20, "a stage must be directly in a pipeline body, not in the kernel body");
}

typedef void (*kind_rule)(verifier *v, const tir_op *op, const verify_block_ctx *where);

static const kind_rule kind_rules[TIR_OP_KIND_COUNT] = {
    [TIR_OP_CONSTANT] = check_constant, [TIR_OP_ELEMENTWISE] = check_elementwise,
    [TIR_OP_MAP] = check_map,           [TIR_OP_EXTRACT] = check_extract,
    [TIR_OP_MMA] = check_mma,           [TIR_OP_VIEW_LOAD] = check_access,
    [TIR_OP_VIEW_STORE] = check_access, [TIR_OP_PARALLEL] = check_region,
    [TIR_OP_SERIAL] = check_region,     [TIR_OP_PIPELINE] = check_region,
    [TIR_OP_STAGE] = check_stage,       [TIR_OP_REDUCE] = check_region,
    [TIR_OP_YIELD] = check_yield,       [TIR_OP_IF] = check_if,
};

void verify_op_kind(verifier *v, const tir_op *op, const verify_block_ctx *where) {
    kind_rules[op->kind](v, op, where);
}
