/* admit.c — admission of a kernel to the XIR realization (see admit.h).  One
 * walk over the kernel; the first violation is reported and ends the walk. */
#include "realize/admit.h"
#include "tir/form.h"
#include "rewrite/flatten.h"

#include "base/checked.h"
#include "base/context.h"

static const char *const refusal_code[PLAN_REFUSAL_COUNT] = {
    [PLAN_ADMITTED] = "LOWER-A",
#define X(e, code, reason) [PLAN_REFUSE_##e] = code,
    PLAN_REFUSALS(X)
#undef X
};

const char *plan_refusal_code(plan_refusal r) {
    return (unsigned)r < PLAN_REFUSAL_COUNT ? refusal_code[r] : "LOWER-A";
}

typedef struct {
    tilec_context *ctx;
    const tir_func *f;
    plan_admission *out;
} admitter;

static tilec_status refuse(admitter *a, plan_refusal r, tilec_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static tilec_status refuse(admitter *a, plan_refusal r, tilec_loc loc, const char *fmt, ...) {
    char message[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    a->out->refusal = r;
    return tilec_error(a->ctx, r == PLAN_REFUSE_NO_KERNEL ? TILEC_E_ARG : TILEC_E_UNSUPPORTED, plan_refusal_code(r),
                       loc, "kernel '@%s' is not admitted to XIR lowering: %s", a->f ? a->f->name : "?", message);
}

/* Extents within uint32, and (for tiles and domains) the volume too. */
static tilec_status check_space(admitter *a, const tir_space *s, bool is_view, tilec_loc loc, const char *what) {
    if (s->rank > PLAN_MAX_RANK)
        return refuse(a, PLAN_REFUSE_RANK, loc, "%s has rank %u, more than %d", what, s->rank, PLAN_MAX_RANK);
    uint64_t volume = 1;
    bool fits = true;
    for (uint32_t i = 0; i < s->rank; i++) {
        uint64_t e = tir_extent_max(a->f->module, s->axes[i].extent); /* a runtime size at its largest */
        if (e > UINT32_MAX)
            return refuse(a, PLAN_REFUSE_EXTENT, loc, "%s: %s extent %llu of axis '%s' exceeds 4294967295", what,
                          tir_extent_is_symbolic(s->axes[i].extent) ? "the largest" : "static", (unsigned long long)e,
                          s->axes[i].dim->label);
        fits = fits && checked_mul_u64(volume, e, &volume);
    }
    if (!is_view && (!fits || volume > UINT32_MAX))
        return refuse(a, PLAN_REFUSE_VOLUME, loc, "%s: volume %s exceeds 4294967295", what,
                      fits ? "(too large)" : "(overflows 64 bits)");
    return TILEC_OK;
}

static tilec_status check_value(admitter *a, const tir_value *v, tilec_loc loc) {
    if (v->type->kind != TIR_TYPE_TILE) return TILEC_OK;
    return check_space(a, v->type->space, false, loc, "a tile");
}

static bool is_param(const admitter *a, const tir_value *v) {
    return v->type->kind == TIR_TYPE_VIEW && !v->def_op && v->def_block == a->f->body;
}

static tilec_status check_block(admitter *a, const tir_block *b);

static tilec_status check_op(admitter *a, const tir_op *op) {
    tilec_status st;
    if (op->kind == TIR_OP_PARALLEL) {
        const char *why = plan_flatten_why(a->f);
        return refuse(a, PLAN_REFUSE_BINDING, op->loc,
                      "execution binding: nested parallel op #%u has no XIR realization (only the root parallel maps "
                      "to workers, and it is flattened into the root only when perfectly nested%s%s)",
                      op->id, why ? ": " : "", why ? why : "");
    }
    for (uint32_t i = 0; i < op->operand_count; i++) {
        const tir_value *v = op->operands[i]->value;
        if (v && v->type->kind == TIR_TYPE_VIEW && !is_param(a, v))
            return refuse(a, PLAN_REFUSE_VIEW_ACCESS, op->loc,
                          "'%s' op #%u accesses a view that is not a kernel parameter", tir_op_kind_name(op->kind), op->id);
    }
    for (uint32_t i = 0; i < op->result_count; i++)
        if ((st = check_value(a, op->results[i], op->loc))) return st;
    if (op->domain && (st = check_space(a, op->domain, false, op->loc, "a domain"))) return st;
    if (op->body) {
        for (uint32_t i = 0; i < op->body->arg_count; i++)
            if ((st = check_value(a, op->body->args[i], op->loc))) return st;
        if ((st = check_block(a, op->body))) return st;
    }
    return TILEC_OK;
}

static tilec_status check_block(admitter *a, const tir_block *b) {
    for (const tir_op *op = b->first; op; op = op->next) {
        tilec_status st = check_op(a, op);
        if (st) return st;
    }
    return TILEC_OK;
}

static tilec_status check_params(admitter *a) {
    const tir_block *body = a->f->body;
    for (uint32_t i = 0; i < body->arg_count; i++) {
        const tir_value *p = body->args[i];
        tilec_status st = check_space(a, p->type->space, true, a->f->loc, "a view parameter");
        if (st) return st;
        uint64_t volume;
        if (!tir_space_volume_max(a->f->module, p->type->space, &volume) || volume > (uint64_t)INT64_MAX ||
            !checked_mul_u64(volume, tir_scalar_size(p->type->elem), &volume))
            return refuse(a, PLAN_REFUSE_VIEW_SIZE, a->f->loc, "view parameter %u ('%%%s') has more bytes than 64 bits address", i,
                          p->name ? p->name : "?");
    }
    return TILEC_OK;
}

/* The root block: constants, elementwise ops and exactly one parallel. */
static tilec_status check_root(admitter *a) {
    tir_op *root = NULL;
    unsigned parallels = 0;
    for (tir_op *op = a->f->body->first; op; op = op->next) {
        if (op->kind == TIR_OP_PARALLEL) {
            parallels++;
            if (!root) root = op;
        } else if (op->kind != TIR_OP_CONSTANT && op->kind != TIR_OP_ELEMENTWISE) {
            return refuse(a, PLAN_REFUSE_ROOT_OP, op->loc,
                          "the kernel body may hold only constants, elementwise ops and the root parallel; found '%s' "
                          "op #%u outside the parallel",
                          tir_op_kind_name(op->kind), op->id);
        }
    }
    if (parallels != 1)
        return refuse(a, PLAN_REFUSE_ROOT_PARALLEL_COUNT, a->f->loc, "XIR lowering needs exactly one root parallel, found %u",
                      parallels);
    if (root->scope != TIR_SCOPE_AUTO && root->scope != TIR_SCOPE_WORKER)
        return refuse(a, PLAN_REFUSE_BINDING, root->loc,
                      "execution binding scope=%s of the root parallel is not realized (supported: auto, worker)",
                      tir_exec_scope_name(root->scope));
    tilec_status st = check_space(a, root->domain, false, root->loc, "the root domain");
    if (st) return st;
    uint64_t volume;
    tir_space_volume_max(a->f->module, root->domain, &volume); /* checked above: fits */
    if (volume == 0) return refuse(a, PLAN_REFUSE_EMPTY_DOMAIN, root->loc, "the root parallel's domain is empty");
    a->out->root = root;
    a->out->domain = root->domain;
    a->out->volume = (uint32_t)volume;
    a->out->sized = !tir_space_is_static(root->domain);
    return TILEC_OK;
}

tilec_status plan_admit(tilec_context *ctx, const tir_func *f, plan_admission *out) {
    *out = (plan_admission){0};
    admitter a = {ctx, f, out};
    if (!f || !f->body) return refuse(&a, PLAN_REFUSE_NO_KERNEL, tilec_no_loc(), "no kernel given");
    tilec_status st = check_params(&a);
    if (!st) st = check_root(&a);
    for (const tir_op *op = f->body->first; !st && op; op = op->next) {
        if (op == out->root) {
            for (uint32_t i = 0; !st && i < op->body->arg_count; i++) st = check_value(&a, op->body->args[i], op->loc);
            if (!st) st = check_block(&a, op->body);
        } else {
            st = check_op(&a, op);
        }
    }
    if (st) {
        out->root = NULL;
        out->domain = NULL;
        out->volume = 0;
    }
    return st;
}

const tir_op *plan_find_store(const tir_op *op) {
    if (op->kind == TIR_OP_VIEW_STORE) return op;
    for (const tir_op *o = op->body ? op->body->first : NULL; o; o = o->next) {
        const tir_op *s = plan_find_store(o);
        if (s) return s;
    }
    return NULL;
}

bool plan_root_empty(const tir_func *f) {
    for (const tir_op *op = f->body->first; op; op = op->next) {
        if (op->kind != TIR_OP_PARALLEL) continue;
        for (uint32_t i = 0; i < op->domain->rank; i++) /* a runtime size may be 0 too: then the dispatch is empty */
            if (op->domain->axes[i].extent == 0) return true;
        return false;
    }
    return false;
}

/* Whether block b (inside an if) emits a loop. */
static bool emits_loop(const tir_block *b, uint64_t max_unrolled) {
    for (const tir_op *op = b->first; op; op = op->next) {
        uint64_t n;
        if (op->kind == TIR_OP_MMA || tir_op_is_loop(op) || op->kind == TIR_OP_PARALLEL ||
            (op->kind == TIR_OP_MAP && (!tir_space_volume(op->domain, &n) || n > max_unrolled)))
            return true;
        for (uint32_t i = 0; i < op->result_count; i++)
            if (op->results[i]->type->kind == TIR_TYPE_TILE &&
                (!tir_space_volume(op->results[i]->type->space, &n) || n > max_unrolled))
                return true;
        if (op->domain && op->kind == TIR_OP_VIEW_STORE && (!tir_space_volume(op->domain, &n) || n > max_unrolled))
            return true;
        if (op->body && emits_loop(op->body, max_unrolled)) return true;
    }
    return false;
}

static const tir_op *branch_in(const tir_block *b, uint64_t max_unrolled) {
    for (const tir_op *op = b->first; op; op = op->next) {
        if (op->kind == TIR_OP_IF && emits_loop(op->body, max_unrolled)) return op;
        const tir_op *inner = op->body ? branch_in(op->body, max_unrolled) : NULL;
        if (inner) return inner;
    }
    return NULL;
}

const tir_op *plan_branch_with_loop(const tir_func *f, uint64_t max_unrolled) {
    return branch_in(f->body, max_unrolled);
}
