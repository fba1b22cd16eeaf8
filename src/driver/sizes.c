/* sizes.c — what a dispatch of a kernel compiled for a range of sizes
 * computes from its runtime sizes (docs/tir.md "Runtime sizes"): the
 * dispatch size (the root domain's volume times the lanes per program) and
 * each argument's bytes (its view's volume times the element size), as
 * size programs (rt/sizes.h) written from the TileIR extent forms.  The
 * runtime evaluates them at every dispatch, so no TileIR travels with the
 * kernel. */
#include "driver/kernel.h"

#include "base/checked.h"
#include "tir/form.h"

typedef struct {
    tilec_context *ctx;
    const tir_module *m;
    VEC(rt_size_step) steps;
    bool failed;
} writer;

static void step(writer *w, rt_size_op op, int64_t arg) {
    if (!w->failed && !VEC_PUSH(w->ctx, &w->steps, ((rt_size_step){arg, op}))) w->failed = true;
}

static void form_steps(writer *w, const tir_form *f);

static void ival_steps(writer *w, tir_ival v) {
    if (v.form) form_steps(w, v.form);
    else step(w, RT_SIZE_CONST, v.c);
}

static void form_steps(writer *w, const tir_form *f) {
    switch (f->kind) {
    case TIR_FORM_SYM: step(w, RT_SIZE_DIM, f->sym->index); return;
    case TIR_FORM_LINEAR:
        step(w, RT_SIZE_CONST, f->c);
        for (uint32_t i = 0; i < f->term_count; i++) {
            form_steps(w, f->terms[i].atom);
            step(w, RT_SIZE_CONST, f->terms[i].coef);
            step(w, RT_SIZE_MUL, 0);
            step(w, RT_SIZE_ADD, 0);
        }
        return;
    case TIR_FORM_DIV:
    case TIR_FORM_CEIL_DIV:
    case TIR_FORM_MOD:
        ival_steps(w, f->a);
        step(w, RT_SIZE_CONST, f->c);
        step(w, f->kind == TIR_FORM_DIV ? RT_SIZE_DIV : f->kind == TIR_FORM_MOD ? RT_SIZE_MOD : RT_SIZE_CEIL_DIV, 0);
        return;
    case TIR_FORM_MIN:
    case TIR_FORM_MAX:
        ival_steps(w, f->a);
        ival_steps(w, f->b);
        step(w, f->kind == TIR_FORM_MIN ? RT_SIZE_MIN : RT_SIZE_MAX, 0);
        return;
    }
}

/* factor · Π extents of s, the static extents folded into the factor
 * (the runtime's short way: CONST c then DIM k, MUL per size); its first
 * step's index in *at. */
static void volume_steps(writer *w, const tir_space *s, int64_t factor, uint32_t *at) {
    *at = (uint32_t)w->steps.len;
    for (uint32_t i = 0; i < s->rank; i++)
        if (!tir_extent_is_symbolic(s->axes[i].extent))
            factor = (int64_t)saturated_mul_u64((uint64_t)factor, s->axes[i].extent); /* admitted: fits */
    step(w, RT_SIZE_CONST, factor);
    for (uint32_t i = 0; i < s->rank; i++) {
        const tir_form *f = tir_extent_form(w->m, s->axes[i].extent);
        if (!f) continue;
        form_steps(w, f);
        step(w, RT_SIZE_MUL, 0);
    }
}

static const tir_op *root_of(const tir_func *f) {
    for (const tir_op *op = f->body->first; op; op = op->next)
        if (op->kind == TIR_OP_PARALLEL) return op;
    return NULL;
}

bool kernel_sizes_make(tilec_kernel *k, const tir_func *f, uint32_t lanes) {
    writer w = {k->ctx, f->module, {0}, false};
    uint32_t n = k->prog.user_args, begin[64 + 1];
    const tir_op *root = root_of(f);
    if (n > 64) return false; /* the lowering admitted f: at most 64 parameters */
    begin[n] = 0;
    if (root) volume_steps(&w, root->domain, lanes, &begin[n]); /* (none: a reference kernel without one) */
    for (uint32_t i = 0; i < n; i++) {
        const tir_value *p = f->body->args[i];
        if (tir_space_is_static(p->type->space)) begin[i] = (uint32_t)w.steps.len; /* empty: its min_bytes */
        else volume_steps(&w, p->type->space, (int64_t)tir_scalar_size(p->type->elem), &begin[i]);
    }
    if (w.failed || !(k->arg_sizes = tilec_alloc(k->ctx, (n ? n : 1) * sizeof *k->arg_sizes))) {
        VEC_FREE(k->ctx, &w.steps);
        return false;
    }
    k->size_steps = w.steps.data; /* owned by the kernel from here */
    uint32_t end = (uint32_t)w.steps.len;
    for (uint32_t i = 0; i < n; i++) { /* written in order: each runs to the next one's start */
        uint32_t next = i + 1 < n ? begin[i + 1] : end;
        k->arg_sizes[i] = (rt_size){k->size_steps + begin[i], next - begin[i]};
    }
    k->prog.dim_count = f->sym_count;
    k->prog.size_serial = rt_size_serial();
    k->prog.dispatch_size = (rt_size){k->size_steps ? k->size_steps + begin[n] : NULL, (n ? begin[0] : end) - begin[n]};
    k->prog.arg_bytes = k->arg_sizes;
    return true;
}
