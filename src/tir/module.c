/* module.c — TileIR containers: module, function, block, op, value, use lists,
 * and the O(1) mutation primitives (detach, insert, move, set operand, RAUW,
 * erase).  Invariant: an op's operand uses are linked into their values' use
 * lists exactly while the op is attached to a block. */
#include "tir/form.h"

#include "base/ilist.h"

#include <ctype.h>
#include <string.h>

tir_module *tir_module_create(tilec_context *ctx) {
    tir_module *m = tilec_alloc(ctx, sizeof *m);
    if (!m) {
        tilec_error(ctx, TILEC_E_NOMEM, "TIR-M01", tilec_no_loc(), "out of memory creating a module");
        return NULL;
    }
    m->ctx = ctx;
    arena_init(&m->arena, ctx);
    hashmap_init(&m->func_names, ctx);
    hashmap_init(&m->spaces, ctx);
    hashmap_init(&m->types, ctx);
    hashmap_init(&m->form_keys, ctx);
    return m;
}

void tir_module_destroy(tir_module *m) {
    if (!m) return;
    VEC_FREE(m->ctx, &m->funcs);
    VEC_FREE(m->ctx, &m->positional);
    hashmap_free(&m->func_names);
    hashmap_free(&m->spaces);
    hashmap_free(&m->types);
    VEC_FREE(m->ctx, &m->forms);
    hashmap_free(&m->form_keys);
    arena_destroy(&m->arena);
    tilec_free(m->ctx, m);
}

tilec_context *tir_module_context(const tir_module *m) { return m->ctx; }
size_t tir_module_func_count(const tir_module *m) { return m->funcs.len; }
tir_func *tir_module_func(const tir_module *m, size_t index) {
    return index < m->funcs.len ? m->funcs.data[index] : NULL;
}

tir_func *tir_module_find_func(const tir_module *m, const char *name) {
    return hashmap_get(&m->func_names, name, strlen(name));
}

static void *oom(tir_module *m) {
    tilec_error(m->ctx, TILEC_E_NOMEM, "TIR-M01", tilec_no_loc(), "out of memory building TileIR");
    return NULL;
}

tir_func *tir_func_new(tir_module *m, const char *name) {
    if (!name || !*name) {
        tilec_error(m->ctx, TILEC_E_ARG, "TIR-M02", tilec_no_loc(), "kernel name must not be empty");
        return NULL;
    }
    if (tir_module_find_func(m, name)) {
        tilec_error(m->ctx, TILEC_E_ARG, "TIR-M03", tilec_no_loc(), "kernel '@%s' is defined twice", name);
        return NULL;
    }
    tir_func *f = ARENA_NEW(&m->arena, tir_func);
    if (!f || !(f->name = arena_strdup(&m->arena, name))) return oom(m);
    f->module = m;
    if (!(f->body = tir_block_new(f, NULL)) || !hashmap_put(&m->func_names, f->name, strlen(f->name), f))
        return oom(m);
    if (!VEC_PUSH(m->ctx, &m->funcs, f)) {
        hashmap_remove(&m->func_names, f->name, strlen(f->name));
        return oom(m);
    }
    return f;
}

tir_value *tir_func_add_param(tir_func *f, const char *name, tir_type *view_type, bool read_only) {
    tir_module *m = f->module;
    if (!view_type || view_type->kind != TIR_TYPE_VIEW) {
        tilec_error(m->ctx, TILEC_E_TYPE, "TIR-M04", f->loc, "parameter '%s' of '@%s' must be a view",
                    name ? name : "?", f->name);
        return NULL;
    }
    if (f->body->first) {
        tilec_error(m->ctx, TILEC_E_SCOPE, "TIR-M05", f->loc,
                    "parameters of '@%s' must be added before its body", f->name);
        return NULL;
    }
    for (uint32_t i = 0; name && i < f->body->arg_count; i++) {
        const char *other = f->body->args[i]->name;
        if (other && !strcmp(other, name)) {
            tilec_error(m->ctx, TILEC_E_ARG, "TIR-M06", f->loc, "parameter '%s' of '@%s' is declared twice",
                        name, f->name);
            return NULL;
        }
    }
    tir_value *v = tir_block_add_arg(f->body, view_type);
    if (!v) return NULL;
    v->read_only = read_only;
    if (name && !tir_value_set_name(m, v, name)) return NULL;
    return v;
}

tir_value *tir_func_add_view(tir_func *f, const char *name, tir_scalar elem, size_t rank,
                             const uint64_t *extents, bool read_only) {
    tir_module *m = f->module;
    tir_dim *dims[64];
    if (rank > 64) {
        tilec_error(m->ctx, TILEC_E_ARG, "TIR-M04", f->loc, "view '%s' rank %zu exceeds 64", name, rank);
        return NULL;
    }
    char label[256];
    for (size_t i = 0; i < rank; i++) {
        snprintf(label, sizeof label, "%s.%zu", name ? name : "arg", i);
        if (!(dims[i] = tir_dim_new(m, label))) return oom(m);
    }
    tir_space *space = tir_space_make(m, rank, dims, extents);
    return space ? tir_func_add_param(f, name, tir_type_view(m, elem, space), read_only) : NULL;
}

tir_value *tir_func_add_scalar(tir_func *f, const char *name, tir_scalar elem) {
    uint64_t one = 1;
    return tir_func_add_view(f, name, elem, 1, &one, true);
}

const char *tir_func_name(const tir_func *f) { return f->name; }
tir_module *tir_func_module(const tir_func *f) { return f->module; }
tir_block *tir_func_body(const tir_func *f) { return f->body; }
size_t tir_func_param_count(const tir_func *f) { return f->body->arg_count; }
tir_value *tir_func_param(const tir_func *f, size_t index) {
    return index < f->body->arg_count ? f->body->args[index] : NULL;
}
static unsigned block_use(const tir_block *b, const tir_value *param) {
    unsigned use = 0;
    for (const tir_op *op = b->first; op; op = op->next) {
        if (op->kind == TIR_OP_VIEW_LOAD && op->operands[0]->value == param) use |= TIR_USE_READ;
        if (op->kind == TIR_OP_VIEW_STORE && op->operands[0]->value == param) use |= TIR_USE_WRITE;
        if (op->body) use |= block_use(op->body, param);
    }
    return use;
}
unsigned tir_func_param_use(const tir_func *f, size_t index) {
    return index < f->body->arg_count ? block_use(f->body, f->body->args[index]) : 0;
}
size_t tir_func_shape_param_count(const tir_func *f) { return f->shape_param_count; }
const int64_t *tir_func_shape_param_choices(const tir_func *f, size_t index, size_t *count) {
    bool chosen = index < f->shape_param_count && f->shape_params[index].choices;
    if (count) *count = chosen ? f->shape_params[index].choice_count : 0;
    return chosen ? f->shape_params[index].choices : NULL;
}
const char *tir_func_shape_param(const tir_func *f, size_t index, int64_t *value) {
    if (index >= f->shape_param_count) return NULL;
    if (value) *value = f->shape_params[index].value;
    return f->shape_params[index].name;
}

size_t tir_func_symbol_count(const tir_func *f) { return f->sym_count; }
const char *tir_func_symbol(const tir_func *f, size_t index, int64_t *lo, int64_t *hi) {
    if (index >= f->sym_count) return NULL;
    if (lo) *lo = f->syms[index]->lo;
    if (hi) *hi = f->syms[index]->hi;
    return f->syms[index]->name;
}

tilec_status tir_func_add_symbol(tir_func *f, const char *name, int64_t lo, int64_t hi, uint64_t *extent) {
    tilec_context *ctx = f->module->ctx;
    bool ident = name && (*name == '_' || isalpha((unsigned char)*name));
    for (const char *c = name; ident && *c; c++) ident = *c == '_' || isalnum((unsigned char)*c);
    if (!ident || !extent) {
        tilec_error(ctx, TILEC_E_ARG, "TIR-M02", f->loc,
                    "a runtime size needs an identifier for its name ([A-Za-z_][A-Za-z0-9_]*) and an extent to return");
        return TILEC_E_ARG;
    }
    for (uint32_t i = 0; i < f->sym_count; i++)
        if (!strcmp(f->syms[i]->name, name)) {
            tilec_error(ctx, TILEC_E_ARG, "TIR-M06", f->loc, "runtime size '%s' of '@%s' is declared twice", name,
                        f->name);
            return TILEC_E_ARG;
        }
    const tir_sym *s = tir_sym_add(f, name, lo, hi);
    const tir_form *form = s ? tir_sym_form(f->module, s) : NULL;
    if (s && !form) oom(f->module);
    if (!form) return tilec_diag_count(ctx) ? tilec_diag_at(ctx, tilec_diag_count(ctx) - 1)->status : TILEC_E_NOMEM;
    *extent = tir_form_extent(form);
    return TILEC_OK;
}

/* ---- objects ---- */

tir_block *tir_block_new(tir_func *f, tir_op *parent_op) {
    tir_block *b = ARENA_NEW(&f->module->arena, tir_block);
    if (!b) return oom(f->module);
    b->func = f;
    b->parent_op = parent_op;
    return b;
}

static tir_value *new_value(tir_func *f, tir_type *type) {
    tir_value *v = ARENA_NEW(&f->module->arena, tir_value);
    if (!v) return oom(f->module);
    v->id = f->next_value_id++;
    v->type = type;
    return v;
}

/* Appends to an arena-backed pointer array, doubling its capacity. */
static bool push_pointer(tir_module *m, void ***items, uint32_t *count, uint32_t *capacity, void *item) {
    if (*count == *capacity) {
        uint32_t cap = *capacity ? *capacity * 2 : 4;
        void **p = ARENA_ARRAY(&m->arena, void *, cap);
        if (!p) return oom(m), false;
        if (*count) memcpy(p, *items, *count * sizeof *p);
        *items = p;
        *capacity = cap;
    }
    (*items)[(*count)++] = item;
    return true;
}

tir_value *tir_block_add_arg(tir_block *b, tir_type *type) {
    tir_value *v = new_value(b->func, type);
    if (!v) return NULL;
    v->def_block = b;
    v->index = b->arg_count;
    if (!push_pointer(b->func->module, (void ***)&b->args, &b->arg_count, &b->arg_capacity, v)) return NULL;
    return v;
}

tir_op *tir_op_new(tir_func *f, tir_op_kind kind, tilec_loc loc) {
    tir_op *op = ARENA_NEW(&f->module->arena, tir_op);
    if (!op) return oom(f->module);
    op->id = f->next_op_id++;
    op->kind = kind;
    op->func = f;
    op->loc = loc;
    op->allow_reassociation = true;
    op->initiation_interval = 1;
    return op;
}

static void link_use(tir_use *u) {
    tir_value *v = u->value;
    ILIST_PUSH_FRONT(v->uses, u);
    v->use_count++;
    u->linked = true;
}

static void unlink_use(tir_use *u) {
    if (!u->linked) return;
    tir_value *v = u->value;
    ILIST_REMOVE_HEADED(v->uses, u);
    v->use_count--;
    u->linked = false;
}

bool tir_op_add_operand(tir_op *op, tir_value *v) {
    tir_module *m = op->func->module;
    tir_use *u = ARENA_NEW(&m->arena, tir_use);
    if (!u) return oom(m), false;
    u->user = op;
    u->index = op->operand_count;
    u->value = v;
    if (!push_pointer(m, (void ***)&op->operands, &op->operand_count, &op->operand_capacity, u)) return false;
    if (op->parent && v) link_use(u);
    return true;
}

tir_value *tir_op_add_result(tir_op *op, tir_type *type) {
    tir_value *v = new_value(op->func, type);
    if (!v) return NULL;
    v->def_op = op;
    v->index = op->result_count;
    if (!push_pointer(op->func->module, (void ***)&op->results, &op->result_count, &op->result_capacity, v))
        return NULL;
    return v;
}

bool tir_value_set_name(tir_module *m, tir_value *v, const char *name) {
    v->name = name ? arena_strdup(&m->arena, name) : NULL;
    return !name || v->name || oom(m);
}

/* ---- inspection ---- */

tir_op *tir_block_first(const tir_block *b) { return b->first; }
tir_op *tir_block_last(const tir_block *b) { return b->last; }
size_t tir_block_arg_count(const tir_block *b) { return b->arg_count; }
tir_value *tir_block_arg(const tir_block *b, size_t index) { return index < b->arg_count ? b->args[index] : NULL; }
tir_op *tir_block_parent(const tir_block *b) { return b->parent_op; }

tir_op_kind tir_op_kind_of(const tir_op *op) { return op->kind; }
tir_ew_op tir_op_ew(const tir_op *op) { return op->ew; }
tir_op *tir_op_next(const tir_op *op) { return op->next; }
tir_op *tir_op_prev(const tir_op *op) { return op->prev; }
tir_block *tir_op_parent(const tir_op *op) { return op->parent; }
size_t tir_op_operand_count(const tir_op *op) { return op->operand_count; }
tir_value *tir_op_operand(const tir_op *op, size_t index) {
    return index < op->operand_count ? op->operands[index]->value : NULL;
}
size_t tir_op_result_count(const tir_op *op) { return op->result_count; }
tir_value *tir_op_result(const tir_op *op, size_t index) {
    return index < op->result_count ? op->results[index] : NULL;
}
tir_block *tir_op_body(const tir_op *op) { return op->body; }
tir_block *tir_op_combine(const tir_op *op) { return op->combine; }
tir_space *tir_op_domain(const tir_op *op) { return op->domain; }
tilec_loc tir_op_loc(const tir_op *op) { return op->loc; }
uint32_t tir_op_id(const tir_op *op) { return op->id; }

tir_type *tir_value_type(const tir_value *v) { return v->type; }
const char *tir_value_name(const tir_value *v) { return v->name; }
tir_op *tir_value_def(const tir_value *v) { return v->def_op; }
tir_block *tir_value_owner_block(const tir_value *v) { return v->def_block; }
size_t tir_value_index(const tir_value *v) { return v->index; }
size_t tir_value_use_count(const tir_value *v) { return v->use_count; }
bool tir_value_read_only(const tir_value *v) { return v->read_only; }

/* ---- mutation ---- */

void tir_op_detach(tir_op *op) {
    tir_block *b = op->parent;
    if (!b) return;
    ILIST_REMOVE(b->first, b->last, op);
    op->parent = NULL;
    for (uint32_t i = 0; i < op->operand_count; i++) unlink_use(op->operands[i]);
}

static void attach(tir_op *op, tir_block *b) {
    op->parent = b;
    for (uint32_t i = 0; i < op->operand_count; i++)
        if (op->operands[i]->value) link_use(op->operands[i]);
}

void tir_op_insert_before(tir_op *op, tir_op *position) {
    tir_op_detach(op);
    tir_block *b = position->parent;
    ILIST_INSERT_BEFORE(b->first, op, position);
    attach(op, b);
}

void tir_op_insert_end(tir_op *op, tir_block *block) {
    tir_op_detach(op);
    ILIST_APPEND(block->first, block->last, op);
    attach(op, block);
}

void tir_op_move_before(tir_op *op, tir_op *position) {
    if (op != position) tir_op_insert_before(op, position);
}

tilec_status tir_op_set_operand(tir_op *op, size_t index, tir_value *v) {
    if (index >= op->operand_count) return TILEC_E_ARG;
    tir_use *u = op->operands[index];
    unlink_use(u);
    u->value = v;
    if (op->parent && v) link_use(u);
    return TILEC_OK;
}

/* Erases every op of `b`, last first; their results are used only inside `b`. */
static void clear_block(tir_block *b) {
    while (b->last) {
        tir_op *inner = b->last;
        for (uint32_t i = 0; i < inner->result_count; i++) {
            while (inner->results[i]->uses) {
                tir_use *u = inner->results[i]->uses;
                unlink_use(u);
                u->value = NULL;
            }
        }
        tir_op_erase(inner);
    }
}

tilec_status tir_op_erase(tir_op *op) {
    tir_module *m = op->func->module;
    for (uint32_t i = 0; i < op->result_count; i++)
        if (op->results[i]->use_count)
            return tilec_error(m->ctx, TILEC_E_ARG, "TIR-M07", op->loc,
                               "cannot erase '%s' op #%u: result %u still has %u uses",
                               tir_op_kind_name(op->kind), op->id, i, op->results[i]->use_count);
    /* Erase nested ops first so their uses of outer values disappear (a
     * combine block uses none, but its ops leave the use lists all the same). */
    if (op->body) clear_block(op->body);
    if (op->combine) clear_block(op->combine);
    tir_op_detach(op);
    return TILEC_OK;
}

tilec_status tir_value_replace_all_uses(tir_value *from, tir_value *to) {
    if (from == to) return TILEC_OK;
    if (!to || from->type != to->type) return TILEC_E_TYPE;
    while (from->uses) {
        tir_use *u = from->uses;
        unlink_use(u);
        u->value = to;
        link_use(u);
    }
    return TILEC_OK;
}
