/* verify.c — tir_verify: the TileIR verifier's entry point, the kernel rules
 * (V01) and one program-order walk per kernel that checks structure (V02–V05),
 * operand records (V07), visibility (V08), foreign values (V09) and the closure
 * of combine blocks (V25), and hands each op to the per-kind rules
 * (verify_ops.c); use lists are checked after the walk (verify_uses.c).  A
 * reduce's combine block is walked right after its body, with every normal
 * rule.  See docs/verifier.md for every code.
 *
 * Invariants: the module is never mutated; every violation is reported (the
 * walk does not stop at the first), but an op whose operands or results are
 * broken skips its per-kind rules so one fault gives one diagnostic.  Visibility
 * is tracked with one state per value id, so the walk is linear in the IR. */
#include "tir/verify.h"
#include "tir/form.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- diagnostics ---- */

const char *verify_op_name(const tir_op *op) {
    if (op->kind == TIR_OP_ELEMENTWISE && op->ew > TIR_EW_INVALID && op->ew < TIR_EW_COUNT) return tir_ew_name(op->ew);
    return tir_op_kind_name(op->kind);
}

const char *verify_value_str(const tir_value *value, char *buf, size_t n) {
    if (value->name)
        snprintf(buf, n, "'%%%s'", value->name);
    else
        snprintf(buf, n, "value #%u", value->id);
    return buf;
}

const char *verify_type_str(const tir_module *m, const tir_type *t, char *buf, size_t n) {
    if (!t) {
        snprintf(buf, n, "(no type)");
        return buf;
    }
    switch (t->kind) {
    case TIR_TYPE_INDEX: snprintf(buf, n, "index"); return buf;
    case TIR_TYPE_SCALAR: snprintf(buf, n, "%s", tir_scalar_name(t->elem)); return buf;
    case TIR_TYPE_TILE:
    case TIR_TYPE_VIEW: break;
    default: snprintf(buf, n, "(type of unknown kind %d)", (int)t->kind); return buf;
    }
    size_t len =
        (size_t)snprintf(buf, n, "%s<%s>[", t->kind == TIR_TYPE_TILE ? "tile" : "view", tir_scalar_name(t->elem));
    for (uint32_t i = 0; t->space && i < t->space->rank && len < n; i++) {
        const tir_axis *ax = &t->space->axes[i];
        const tir_form *f = tir_extent_form(m, ax->extent);
        strbuf text;
        strbuf_init(&text, m->ctx);
        if (f) tir_form_print(&text, f);
        len += f ? (size_t)snprintf(buf + len, n - len, "%s%s=%s", i ? ", " : "", ax->dim ? ax->dim->label : "?",
                                    text.data ? text.data : "?")
                 : (size_t)snprintf(buf + len, n - len, "%s%s=%llu", i ? ", " : "", ax->dim ? ax->dim->label : "?",
                                    (unsigned long long)ax->extent);
        strbuf_free(&text);
    }
    if (len < n) snprintf(buf + len, n - len, "]");
    return buf;
}

static void report(verifier *v, tilec_loc loc, int rule, const char *prefix, const char *fmt, va_list ap) {
    char detail[768], code[16];
    vsnprintf(detail, sizeof detail, fmt, ap);
    snprintf(code, sizeof code, "TIR-V%02d", rule);
    tilec_error(v->ctx, TILEC_E_VERIFY, code, loc, "%s%s", prefix, detail);
    v->errors++;
}

static const char *kernel_name(const verifier *v) { return v->func && v->func->name ? v->func->name : "?"; }

void verify_op_error(verifier *v, const tir_op *op, int rule, const char *fmt, ...) {
    char prefix[256], name[128] = "";
    const tir_value *r0 = op->result_count ? op->results[0] : NULL;
    if (r0 && r0->name) snprintf(name, sizeof name, " ('%%%s')", r0->name);
    snprintf(prefix, sizeof prefix, "kernel '@%s': '%s' op #%u%s: ", kernel_name(v), verify_op_name(op), op->id, name);
    va_list ap;
    va_start(ap, fmt);
    report(v, op->loc, rule, prefix, fmt, ap);
    va_end(ap);
}

void verify_value_error(verifier *v, const tir_value *value, int rule, const char *fmt, ...) {
    char prefix[384], what[160];
    tilec_loc loc = v->func ? v->func->loc : tilec_no_loc();
    verify_value_str(value, what, sizeof what);
    const tir_op *owner = value->def_block ? value->def_block->parent_op : NULL;
    if (value->def_op) {
        snprintf(prefix, sizeof prefix, "kernel '@%s': %s (result %u of '%s' op #%u): ", kernel_name(v), what,
                 value->index, verify_op_name(value->def_op), value->def_op->id);
        loc = value->def_op->loc;
    } else if (owner) {
        snprintf(prefix, sizeof prefix, "kernel '@%s': %s (argument %u of the body of '%s' op #%u): ", kernel_name(v),
                 what, value->index, verify_op_name(owner), owner->id);
        loc = owner->loc;
    } else if (value->def_block) {
        snprintf(prefix, sizeof prefix, "kernel '@%s': parameter %u (%s): ", kernel_name(v), value->index, what);
    } else {
        snprintf(prefix, sizeof prefix, "kernel '@%s': %s (defined nowhere): ", kernel_name(v), what);
    }
    va_list ap;
    va_start(ap, fmt);
    report(v, loc, rule, prefix, fmt, ap);
    va_end(ap);
}

void verify_func_error(verifier *v, const tir_func *f, int rule, const char *fmt, ...) {
    char prefix[192];
    snprintf(prefix, sizeof prefix, "kernel '@%s': ", f->name ? f->name : "?");
    va_list ap;
    va_start(ap, fmt);
    report(v, f->loc, rule, prefix, fmt, ap);
    va_end(ap);
}

/* Reports against the op owning `b`, or the kernel for its body. */
#define BLOCK_ERROR(v, owner, rule, ...)                                                                               \
    ((owner) ? verify_op_error((v), (owner), (rule), __VA_ARGS__)                                                      \
             : verify_func_error((v), (v)->func, (rule), __VA_ARGS__))

/* ---- module-local types and spaces (interned, so membership is by address) ---- */

static int compare_entries(const void *a, const void *b) {
    uintptr_t x = (uintptr_t)((const verify_ptr_entry *)a)->ptr, y = (uintptr_t)((const verify_ptr_entry *)b)->ptr;
    return x < y ? -1 : x > y;
}

static const verify_ptr_entry *set_find(const verify_ptr_set *set, const void *ptr) {
    verify_ptr_entry key = {ptr, false};
    return set->len ? bsearch(&key, set->items, set->len, sizeof key, compare_entries) : NULL;
}

/* Rule 4: axes name distinct dims created by this module. */
static bool space_well_formed(const tir_module *m, const tir_space *s) {
    for (uint32_t i = 0; i < s->rank; i++) {
        const tir_dim *d = s->axes[i].dim;
        if (!d || d->id == 0 || d->id > m->dim_count) return false;
        for (uint32_t j = 0; j < i; j++)
            if (s->axes[j].dim == d) return false;
    }
    return true;
}

static bool build_sets(verifier *v) {
    const tir_module *m = v->module;
    v->types.items = tilec_alloc(v->ctx, m->types.count * sizeof *v->types.items);
    v->spaces.items = tilec_alloc(v->ctx, m->spaces.count * sizeof *v->spaces.items);
    if (!v->types.items || !v->spaces.items) return false;
    for (size_t i = 0; i < m->types.capacity; i++)
        if (m->types.slots[i].key) v->types.items[v->types.len++] = (verify_ptr_entry){m->types.slots[i].value, true};
    for (size_t i = 0; i < m->spaces.capacity; i++) {
        const tir_space *s = m->spaces.slots[i].value;
        if (m->spaces.slots[i].key) v->spaces.items[v->spaces.len++] = (verify_ptr_entry){s, space_well_formed(m, s)};
    }
    qsort(v->types.items, v->types.len, sizeof *v->types.items, compare_entries);
    qsort(v->spaces.items, v->spaces.len, sizeof *v->spaces.items, compare_entries);
    return true;
}

bool verify_space_local(const verifier *v, const tir_space *s) {
    const verify_ptr_entry *e = s ? set_find(&v->spaces, s) : NULL;
    return e && e->ok;
}

/* NULL when `t` is a valid type of this module, otherwise why not; *rule is
 * `base` (4 for results, 5 for block arguments) or 17 for an unknown kind. */
static const char *type_problem(const verifier *v, const tir_type *t, int base, int *rule) {
    *rule = base;
    if (!t) return "has no type";
    if (t->kind < TIR_TYPE_INDEX || t->kind > TIR_TYPE_VIEW) {
        *rule = 17;
        return "has a type of unknown kind (types are index, scalar, tile or view; TileIR has no Memory, "
               "MemoryState or opaque types)";
    }
    if (!set_find(&v->types, t)) return "has a type that belongs to another module";
    if (t->kind == TIR_TYPE_INDEX) return NULL;
    if (t->elem <= TIR_SCALAR_INVALID || t->elem >= TIR_SCALAR_COUNT) return "has a type with an invalid element type";
    if (t->kind == TIR_TYPE_SCALAR) return NULL;
    const verify_ptr_entry *s = t->space ? set_find(&v->spaces, t->space) : NULL;
    if (!s)
        return t->space ? "has a type over an index space of another module"
                        : "has a tile or view type without an index space";
    if (!s->ok) return "has a type over a malformed index space (a missing, repeated or foreign dimension)";
    return NULL;
}

/* ---- value and op registration (rule 3) ---- */

static const tir_func *value_func(const tir_value *val) {
    if (val->def_op) return val->def_op->func;
    return val->def_block ? val->def_block->func : NULL;
}

/* Claims the value's id for it; false when the id is out of range or taken. */
static void register_value(verifier *v, const tir_value *val, verify_value_state state, bool type_ok,
                           const tir_block *combine) {
    char other[160];
    if (val->id >= v->value_slots) {
        verify_value_error(v, val, 3, "value id %u is out of range (the kernel allocated %u value ids)", val->id,
                           v->value_slots);
        v->lists_checkable = false;
        return;
    }
    verify_value_slot *slot = &v->values[val->id];
    if (slot->value == val) return; /* listed twice; its record check reported that */
    if (slot->value) {
        verify_value_error(v, val, 3, "value id %u is also the id of %s", val->id,
                           verify_value_str(slot->value, other, sizeof other));
        v->lists_checkable = false;
        return;
    }
    *slot = (verify_value_slot){.value = val, .state = state, .type_ok = type_ok, .combine = combine};
}

static void set_state(verifier *v, const tir_value *val, verify_value_state state) {
    if (val && val->id < v->value_slots && v->values[val->id].value == val) v->values[val->id].state = state;
}

/* False when the op was already walked (the op lists are cyclic).  An op whose
 * id cannot index the table (out of range or taken) is kept in a short list
 * instead, so a revisit of it is caught too. */
static bool register_op(verifier *v, const tir_op *op) {
    if (v->walked.len >= v->op_slots) {
        verify_func_error(v, v->func, 2, "its blocks list more ops than the kernel ever created (a cyclic op list)");
        v->aborted = true;
        return false;
    }
    verify_op_slot *slot = op->id < v->op_slots ? &v->ops[op->id] : NULL;
    bool revisit = slot && slot->op == op;
    for (size_t i = 0; !revisit && i < v->idless.len; i++) revisit = v->idless.data[i] == op;
    if (revisit) {
        verify_op_error(v, op, 2, "is listed twice (its block's op list is cyclic or the op is in two blocks)");
        v->lists_checkable = false;
        return false;
    }
    if (!VEC_PUSH(v->ctx, &v->walked, op)) {
        v->oom = v->aborted = true;
        return false;
    }
    if (slot && !slot->op) {
        slot->op = op;
        slot->first_operand = v->operand_total;
        v->operand_total += op->operand_count;
        return true;
    }
    if (!VEC_PUSH(v->ctx, &v->idless, op)) {
        v->oom = v->aborted = true;
        return false;
    }
    if (slot)
        verify_op_error(v, op, 3, "op id %u is also the id of another op, '%s'", op->id, verify_op_name(slot->op));
    else
        verify_op_error(v, op, 3, "op id %u is out of range (the kernel allocated %u op ids)", op->id, v->op_slots);
    v->lists_checkable = false;
    return true;
}

/* ---- operands (rules 7, 8, 9) ---- */

/* "the body of 'serial' op #4", "the combine block of 'reduce' op #4" or "the
 * kernel body": where `val` is defined. */
static const char *def_place(const tir_value *val, char *buf, size_t n) {
    const tir_block *home = val->def_op ? val->def_op->parent : val->def_block;
    const tir_op *owner = home ? home->parent_op : NULL;
    if (owner)
        snprintf(buf, n, "the %s of '%s' op #%u", home == owner->combine ? "combine block" : "body",
                 verify_op_name(owner), owner->id);
    else
        snprintf(buf, n, "the kernel body");
    return buf;
}

/* Rule 8: `val` (of this kernel) is visible at operand i of `op`. */
static bool check_visible(verifier *v, const tir_op *op, uint32_t i, const tir_value *val) {
    char what[160], where[160];
    if (val->id >= v->value_slots) return false; /* reported at its definition (rule 3) */
    const verify_value_slot *slot = &v->values[val->id];
    if (slot->value && slot->value != val) return false; /* id clash, rule 3 */
    verify_value_str(val, what, sizeof what);
    switch (slot->value ? slot->state : VERIFY_UNSEEN) {
    case VERIFY_VISIBLE: return slot->type_ok; /* a badly typed value was reported where it is defined */
    case VERIFY_PENDING:
        verify_op_error(v, op, 8, "operand %u (%s) is a result of this op or of an op enclosing it", i, what);
        return false;
    case VERIFY_RETIRED:
        verify_op_error(v, op, 8, "operand %u (%s) is defined in %s, which does not enclose this use", i, what,
                        def_place(val, where, sizeof where));
        return false;
    case VERIFY_UNSEEN: break;
    }
    if (val->def_op && !val->def_op->parent)
        verify_op_error(v, op, 8, "operand %u (%s) is defined by '%s' op #%u, which is detached from the IR", i, what,
                        verify_op_name(val->def_op), val->def_op->id);
    else if (val->def_op)
        verify_op_error(v, op, 8, "operand %u (%s) is used before its definition by '%s' op #%u", i, what,
                        verify_op_name(val->def_op), val->def_op->id);
    else
        verify_op_error(v, op, 8, "operand %u (%s) is an argument of %s, which does not enclose this use", i, what,
                        def_place(val, where, sizeof where));
    return false;
}

/* Rule 25: inside a combine block, `val` (of this kernel) must be defined in
 * that block.  A value the walk has not met yet is left to rule 8. */
static bool check_closed(verifier *v, const tir_op *op, uint32_t i, const tir_value *val,
                         const verify_block_ctx *where) {
    char what[160], place[160];
    if (!where->combine || val->id >= v->value_slots) return true;
    const verify_value_slot *slot = &v->values[val->id];
    if (slot->value != val || slot->combine == where->combine) return true;
    const tir_op *reduce = where->combine->parent_op;
    verify_op_error(v, op, 25,
                    "operand %u (%s) is defined in %s, outside the combine block of 'reduce' op #%u (a combine block "
                    "sees only its own arguments and values)",
                    i, verify_value_str(val, what, sizeof what), def_place(val, place, sizeof place), reduce->id);
    return false;
}

static bool check_operands(verifier *v, const tir_op *op, const verify_block_ctx *where) {
    char what[160];
    bool ok = true;
    for (uint32_t i = 0; i < op->operand_count; i++) {
        const tir_use *u = op->operands[i];
        if (!u) {
            verify_op_error(v, op, 7, "operand %u has no use record", i);
            v->lists_checkable = false;
            ok = false;
            continue;
        }
        if (u->user != op || u->index != i) {
            verify_op_error(v, op, 7, "the use record of operand %u names op #%u, operand %u", i,
                            u->user ? u->user->id : 0, u->index);
            v->lists_checkable = false;
        }
        const tir_value *val = u->value;
        if (!val) {
            verify_op_error(v, op, 7, "operand %u is missing (its use names no value)", i);
            ok = false;
            continue;
        }
        const tir_func *home = value_func(val);
        if (home != v->func) {
            verify_op_error(v, op, 9, "operand %u (%s) belongs to %s%s%s", i, verify_value_str(val, what, sizeof what),
                            home ? "kernel '@" : "no kernel", home && home->name ? home->name : "", home ? "'" : "");
            ok = false;
            continue;
        }
        if (!check_closed(v, op, i, val, where) || !check_visible(v, op, i, val)) ok = false;
    }
    return ok;
}

/* ---- definitions (rules 4, 5) ---- */

static bool check_results(verifier *v, const tir_op *op, const verify_block_ctx *where) {
    bool ok = true;
    for (uint32_t i = 0; i < op->result_count; i++) {
        const tir_value *r = op->results[i];
        if (!r) {
            verify_op_error(v, op, 4, "result %u is missing", i);
            ok = false;
            continue;
        }
        bool placed = r->def_op == op && !r->def_block && r->index == i;
        if (!placed)
            verify_value_error(v, r, 4, "is listed as result %u of '%s' op #%u, but its definition record disagrees", i,
                               verify_op_name(op), op->id);
        int rule;
        const char *why = type_problem(v, r->type, 4, &rule);
        if (why) verify_value_error(v, r, rule, "%s", why);
        register_value(v, r, VERIFY_PENDING, placed && !why, where->combine);
        ok = ok && placed && !why;
    }
    return ok;
}

static void check_args(verifier *v, const tir_block *b, const verify_block_ctx *where) {
    char type[256];
    for (uint32_t i = 0; i < b->arg_count; i++) {
        const tir_value *a = b->args[i];
        if (!a) {
            BLOCK_ERROR(v, where->owner, 5, "block argument %u is missing", i);
            continue;
        }
        bool placed = a->def_block == b && !a->def_op && a->index == i;
        if (!placed)
            verify_value_error(v, a, 5, "is listed as block argument %u, but its definition record disagrees", i);
        int rule;
        const char *why = type_problem(v, a->type, 5, &rule);
        if (why)
            verify_value_error(v, a, rule, "%s", why);
        else if (!where->owner && a->type->kind != TIR_TYPE_VIEW)
            verify_value_error(v, a, 1, "kernel parameters must be views, not %s",
                               verify_type_str(v->func->module, a->type, type, sizeof type));
        register_value(v, a, VERIFY_VISIBLE, placed && !why, where->combine);
    }
}

/* ---- the walk ---- */

static void walk_block(verifier *v, const tir_block *b, const verify_block_ctx *where);

static void walk_op(verifier *v, const tir_block *b, const tir_op *op, const verify_block_ctx *where) {
    if (op->func != v->func) verify_op_error(v, op, 2, "its kernel pointer names another kernel");
    if (op->parent != b) verify_op_error(v, op, 2, "its parent pointer does not name the block that lists it");
    bool kind_ok = op->kind > TIR_OP_INVALID && op->kind < TIR_OP_KIND_COUNT;
    if (!kind_ok)
        verify_op_error(v, op, 10, "unknown op kind %d (op kinds are a closed set; TileIR has no custom ops)",
                        (int)op->kind);
    bool operands_ok = check_operands(v, op, where);
    bool results_ok = check_results(v, op, where);
    if (kind_ok) {
        verify_op_placement(v, op, where);
        if (operands_ok && results_ok) verify_op_kind(v, op, where);
    }
    if (kind_ok && tir_op_is_region(op) && op->body) {
        if (op->body->parent_op != op || op->body->func != v->func) {
            verify_op_error(v, op, 2, "its body block's parent pointers name another op or kernel");
        } else {
            verify_block_ctx inner = {op, results_ok, op->kind == TIR_OP_MAP ? op : where->map, where->outer_scope,
                                      where->combine};
            if (op->kind == TIR_OP_PARALLEL && op->scope > TIR_SCOPE_AUTO && op->scope < TIR_SCOPE_COUNT)
                inner.outer_scope = op->scope;
            walk_block(v, op->body, &inner);
        }
    }
    /* A combine block on another kind was reported (rule 21) and is not walked.
     * The reduce's results are still pending here, so the block cannot use them. */
    if (kind_ok && op->kind == TIR_OP_REDUCE && op->combine) {
        if (op->combine->parent_op != op || op->combine->func != v->func || op->combine == op->body) {
            verify_op_error(v, op, 2, "its combine block's parent pointers name another op or kernel");
        } else {
            if (operands_ok && results_ok) verify_op_combine(v, op);
            verify_block_ctx inner = {op, results_ok, where->map, where->outer_scope, op->combine};
            walk_block(v, op->combine, &inner);
        }
    }
    for (uint32_t i = 0; i < op->result_count; i++) set_state(v, op->results[i], VERIFY_VISIBLE);
}

static void walk_block(verifier *v, const tir_block *b, const verify_block_ctx *where) {
    if (b->func != v->func) BLOCK_ERROR(v, where->owner, 2, "its block's kernel pointer names another kernel");
    check_args(v, b, where);
    const tir_op *prev = NULL;
    uint32_t count = 0;
    bool complete = true;
    for (const tir_op *op = b->first; op && !v->aborted; op = op->next) {
        if (!register_op(v, op)) {
            complete = false;
            break;
        }
        if (op->prev != prev) verify_op_error(v, op, 2, "its previous-op link does not name the op before it");
        walk_op(v, b, op, where);
        prev = op;
        count++;
    }
    if (v->aborted) return;
    if (complete && b->last != prev)
        BLOCK_ERROR(v, where->owner, 2, "its block's last-op pointer does not name the last op in the list");
    if (complete && where->owner && (!prev || prev->kind != TIR_OP_YIELD))
        verify_op_error(v, where->owner, 19, "its %s does not end with a yield",
                        b == where->owner->combine ? "combine block" : "body");
    /* Leaving the block: nothing defined here is visible any more. */
    for (uint32_t i = 0; i < b->arg_count; i++) set_state(v, b->args[i], VERIFY_RETIRED);
    const tir_op *op = b->first;
    for (uint32_t k = 0; k < count; k++, op = op->next)
        for (uint32_t i = 0; i < op->result_count; i++) set_state(v, op->results[i], VERIFY_RETIRED);
}

/* ---- kernels (rule 1) ---- */

static bool check_func(verifier *v, size_t index) {
    const tir_module *m = v->module;
    const tir_func *f = m->funcs.data[index];
    if (!f) {
        tilec_error(v->ctx, TILEC_E_VERIFY, "TIR-V01", tilec_no_loc(), "kernel #%zu of the module is missing", index);
        v->errors++;
        return false;
    }
    if (f->module != m) verify_func_error(v, f, 1, "its module pointer names another module");
    if (!f->name || !*f->name) verify_func_error(v, f, 1, "kernel #%zu has an empty name", index);
    if (f->name) {
        /* a table, not a scan of the kernels before: verifying n kernels stays O(n) */
        size_t len = strlen(f->name);
        uintptr_t first = (uintptr_t)hashmap_get(&v->names, f->name, len);
        if (first)
            verify_func_error(v, f, 1, "the name is also used by kernel #%zu (kernel names must be unique)",
                              (size_t)first - 1);
        else if (!hashmap_put(&v->names, f->name, len, (void *)(index + 1)))
            v->oom = true;
    }
    if (!f->body) {
        verify_func_error(v, f, 1, "it has no body block");
        return false;
    }
    if (f->body->parent_op || f->body->func != f) {
        verify_func_error(v, f, 2, "its body block's parent pointers name another op or kernel");
        return false;
    }
    return true;
}

static void verify_func(verifier *v, const tir_func *f) {
    v->func = f;
    v->value_slots = f->next_value_id;
    v->op_slots = f->next_op_id;
    v->values = tilec_alloc(v->ctx, (size_t)v->value_slots * sizeof *v->values);
    v->ops = tilec_alloc(v->ctx, (size_t)v->op_slots * sizeof *v->ops);
    v->walked.len = 0;
    v->idless.len = 0;
    v->operand_total = 0;
    v->aborted = false;
    v->lists_checkable = true;
    if (!v->values || !v->ops) {
        v->oom = true;
    } else {
        verify_block_ctx root = {NULL, true, NULL, TIR_SCOPE_AUTO, NULL};
        walk_block(v, f->body, &root);
        if (!v->aborted) verify_use_lists(v);
    }
    tilec_free(v->ctx, v->values);
    tilec_free(v->ctx, v->ops);
    v->values = NULL;
    v->ops = NULL;
}

tilec_status tir_verify(tilec_context *ctx, const tir_module *m) {
    if (!ctx || !m) return TILEC_E_ARG;
    verifier v = {.ctx = ctx, .module = m};
    hashmap_init(&v.names, ctx);
    if (!build_sets(&v)) v.oom = true;
    for (size_t i = 0; i < m->funcs.len && !v.oom; i++)
        if (check_func(&v, i)) verify_func(&v, m->funcs.data[i]);
    hashmap_free(&v.names);
    tilec_free(ctx, v.types.items);
    tilec_free(ctx, v.spaces.items);
    VEC_FREE(ctx, &v.walked);
    VEC_FREE(ctx, &v.idless);
    if (v.oom) return tilec_error(ctx, TILEC_E_NOMEM, "TIR-M01", tilec_no_loc(), "out of memory verifying TileIR");
    return v.errors ? TILEC_E_VERIFY : TILEC_OK;
}
