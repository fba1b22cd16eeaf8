/* module.c — XIR containers: module, interned types and constants, special
 * registers, functions, blocks, instructions, use lists and mutation.
 * Invariant: an instruction's operand uses are linked into their values' use
 * lists exactly while the instruction is attached to a block.  Allocation
 * failure marks the module failed (one XIR-M01 diagnostic) and returns NULL.
 * Types and constants are interned in base/hashmap tables. */
#include "xir/xir.h"
#include "base/half.h"

#include "base/ilist.h"

#include <string.h>

static void *oom(xir_module *m) {
    if (!m->failed) {
        tilec_error(m->ctx, TILEC_E_NOMEM, "XIR-M01", tilec_no_loc(), "out of memory building XIR");
        m->failed = TILEC_E_NOMEM;
    }
    return NULL;
}

bool xir_module_failed(const xir_module *m) { return m->failed != TILEC_OK; }
tilec_status xir_module_status(const xir_module *m) { return m->failed; }

xir_module *xir_module_create(tilec_context *ctx) {
    xir_module *m = tilec_alloc(ctx, sizeof *m);
    if (!m) {
        tilec_error(ctx, TILEC_E_NOMEM, "XIR-M01", tilec_no_loc(), "out of memory creating an XIR module");
        return NULL;
    }
    m->ctx = ctx;
    arena_init(&m->arena, ctx);
    hashmap_init(&m->types, ctx);
    hashmap_init(&m->constants, ctx);
    return m;
}

void xir_module_destroy(xir_module *m) {
    if (!m) return;
    for (size_t i = 0; i < m->funcs.len; i++) VEC_FREE(m->ctx, &m->funcs.data[i]->args);
    VEC_FREE(m->ctx, &m->funcs);
    hashmap_free(&m->types);
    hashmap_free(&m->constants);
    arena_destroy(&m->arena);
    tilec_free(m->ctx, m);
}

/* ---- types ---- */

/* An interned object is allocated with its hash-map key right after it, so
 * the key lives as long as the module.  Keys have no padding bytes: they are
 * compared as bytes. */
typedef struct {
    uint32_t kind, scalar;
    uint64_t count;
} type_key;
_Static_assert(sizeof(type_key) == 16, "type_key has no padding");

typedef struct {
    xir_type type;
    type_key key;
} interned_type;

static xir_type *intern_type(xir_module *m, xir_type_kind kind, tir_scalar s, uint64_t count) {
    type_key key = {(uint32_t)kind, (uint32_t)s, count};
    xir_type *found = hashmap_get(&m->types, &key, sizeof key);
    if (found) return found;
    interned_type *t = ARENA_NEW(&m->arena, interned_type);
    if (!t) return oom(m);
    t->type.kind = kind;
    t->type.scalar = s;
    t->type.count = count;
    t->key = key;
    if (!hashmap_put(&m->types, &t->key, sizeof t->key, &t->type)) return oom(m);
    return &t->type;
}

xir_type *xir_type_void(xir_module *m) { return intern_type(m, XIR_TYPE_VOID, TIR_SCALAR_INVALID, 0); }
xir_type *xir_type_scalar(xir_module *m, tir_scalar s) { return intern_type(m, XIR_TYPE_SCALAR, s, 0); }
xir_type *xir_type_array(xir_module *m, tir_scalar e, uint64_t n) { return intern_type(m, XIR_TYPE_ARRAY, e, n); }
xir_type *xir_type_ptr(xir_module *m, tir_scalar e) { return intern_type(m, XIR_TYPE_PTR, e, 0); }
xir_type *xir_type_buffer(xir_module *m, tir_scalar e) { return intern_type(m, XIR_TYPE_BUFFER, e, 0); }

void xir_type_print(strbuf *out, const xir_type *t) {
    switch (t->kind) {
    case XIR_TYPE_VOID: strbuf_append(out, "void"); break;
    case XIR_TYPE_SCALAR: strbuf_append(out, tir_scalar_name(t->scalar)); break;
    case XIR_TYPE_ARRAY:
        strbuf_printf(out, "array<%s, %llu>", tir_scalar_name(t->scalar), (unsigned long long)t->count);
        break;
    case XIR_TYPE_PTR: strbuf_printf(out, "ptr<%s>", tir_scalar_name(t->scalar)); break;
    case XIR_TYPE_BUFFER: strbuf_printf(out, "buffer<%s>", tir_scalar_name(t->scalar)); break;
    }
}

/* ---- constants and special registers ---- */

/* Normalizes a payload to its type: ints wrap to their width, f32 rounds. */
static xir_bits normalize(tir_scalar s, xir_bits b) {
    switch (s) {
    case TIR_BOOL: b.u = b.u != 0; break;
    case TIR_I8: b.i = (int8_t)b.u; break;
    case TIR_I16: b.i = (int16_t)b.u; break;
    case TIR_I32: b.i = (int32_t)b.u; break;
    case TIR_U8: b.u = (uint8_t)b.u; break;
    case TIR_U16: b.u = (uint16_t)b.u; break;
    case TIR_U32: b.u = (uint32_t)b.u; break;
    case TIR_F32: b.f = (double)(float)b.f; break;
    case TIR_F16: b.f = half_to_double(half_from_double(b.f)); break;
    case TIR_BF16: b.f = bf16_to_double(bf16_from_double(b.f)); break;
    default: break;
    }
    return b;
}

typedef struct {
    const xir_type *type;
    uint64_t bits;
} const_key;
_Static_assert(sizeof(const_key) == 16, "const_key has no padding");

typedef struct {
    xir_value value;
    const_key key;
} interned_const;

xir_value *xir_const_bits(xir_module *m, tir_scalar s, xir_bits bits) {
    bits = normalize(s, bits);
    xir_type *type = xir_type_scalar(m, s);
    if (!type) return NULL;
    const_key key = {type, bits.u}; /* exact bits: -0.0 != 0.0 */
    xir_value *found = hashmap_get(&m->constants, &key, sizeof key);
    if (found) return found;
    interned_const *c = ARENA_NEW(&m->arena, interned_const);
    if (!c) return oom(m);
    xir_value *v = &c->value;
    v->kind = XIR_VALUE_CONST;
    v->type = type;
    v->id = m->next_global_id++;
    v->constant = bits;
    c->key = key;
    if (!hashmap_put(&m->constants, &c->key, sizeof c->key, v)) return oom(m);
    return v;
}

xir_value *xir_const_int(xir_module *m, tir_scalar s, int64_t v) {
    xir_bits b;
    if (tir_scalar_is_float(s)) b.f = (double)v;
    else b.i = v;
    return xir_const_bits(m, s, b);
}

xir_value *xir_const_uint(xir_module *m, tir_scalar s, uint64_t v) {
    xir_bits b;
    if (tir_scalar_is_float(s)) b.f = (double)v;
    else b.u = v;
    return xir_const_bits(m, s, b);
}

xir_value *xir_const_float(xir_module *m, tir_scalar s, double v) {
    xir_bits b = {.f = v};
    return xir_const_bits(m, s, b);
}

xir_value *xir_const_bool(xir_module *m, bool v) { return xir_const_uint(m, TIR_BOOL, v); }

xir_value *xir_const_zero(xir_module *m, tir_scalar s) {
    return tir_scalar_is_float(s) ? xir_const_float(m, s, 0.0) : xir_const_uint(m, s, 0);
}

xir_value *xir_special_value(xir_module *m, xir_special s) {
    if (s <= XIR_SPECIAL_INVALID || s >= XIR_SPECIAL_COUNT) return NULL;
    if (m->specials[s]) return m->specials[s];
    xir_value *v = ARENA_NEW(&m->arena, xir_value);
    if (!v || !(v->type = xir_type_scalar(m, TIR_U32))) return oom(m);
    v->kind = XIR_VALUE_SPECIAL;
    v->special = s;
    v->id = m->next_global_id++;
    return m->specials[s] = v;
}

/* ---- functions and blocks ---- */

xir_func *xir_func_new(xir_module *m, const char *name) {
    xir_func *f = ARENA_NEW(&m->arena, xir_func);
    if (!f || !(f->name = arena_strdup(&m->arena, name)) || !VEC_PUSH(m->ctx, &m->funcs, f)) return oom(m);
    f->module = m;
    f->block_size = 64;
    return f;
}

xir_value *xir_func_add_buffer(xir_func *f, const char *name, tir_scalar elem) {
    xir_module *m = f->module;
    xir_value *v = ARENA_NEW(&m->arena, xir_value);
    if (!v || !(v->type = xir_type_buffer(m, elem))) return oom(m);
    v->kind = XIR_VALUE_ARG;
    v->id = f->next_value_id++;
    v->arg_index = (uint32_t)f->args.len;
    if ((name && !(v->name = arena_strdup(&m->arena, name))) || !VEC_PUSH(m->ctx, &f->args, v)) return oom(m);
    return v;
}

xir_block *xir_block_new(xir_func *f, const char *name) {
    xir_module *m = f->module;
    xir_block *b = ARENA_NEW(&m->arena, xir_block);
    if (!b || (name && !(b->name = arena_strdup(&m->arena, name)))) return oom(m);
    b->func = f;
    b->id = f->next_block_id++;
    ILIST_APPEND(f->first, f->last, b);
    return b;
}

void xir_block_erase(xir_block *b) {
    while (b->last) {
        xir_inst *inst = b->last;
        xir_inst_detach(inst);
    }
    xir_func *f = b->func;
    ILIST_REMOVE(f->first, f->last, b);
}

xir_inst *xir_block_terminator(const xir_block *b) {
    return b->last && xir_inst_is_terminator(b->last) ? b->last : NULL;
}

unsigned xir_block_successors(const xir_block *b, xir_block *out[2]) {
    xir_inst *t = xir_block_terminator(b);
    if (!t || t->kind == XIR_INST_RET) return 0;
    out[0] = t->targets[0];
    if (t->kind == XIR_INST_BR) return 1;
    out[1] = t->targets[1];
    return 2;
}

/* ---- instructions and uses ---- */

xir_inst *xir_inst_new(xir_func *f, xir_inst_kind kind, xir_type *type) {
    xir_module *m = f->module;
    xir_inst *inst = ARENA_NEW(&m->arena, xir_inst);
    if (!inst || !type) return oom(m);
    inst->value.kind = XIR_VALUE_INST;
    inst->value.type = type;
    inst->value.id = f->next_value_id++;
    inst->kind = kind;
    inst->func = f;
    return inst;
}

static void link_use(xir_use *u) {
    xir_value *v = u->value;
    ILIST_PUSH_FRONT(v->uses, u);
    v->use_count++;
    u->linked = true;
}

static void unlink_use(xir_use *u) {
    if (!u->linked) return;
    xir_value *v = u->value;
    ILIST_REMOVE_HEADED(v->uses, u);
    v->use_count--;
    u->linked = false;
}

bool xir_inst_add_operand(xir_inst *inst, xir_value *v) {
    xir_module *m = inst->func->module;
    if (!v) return false;
    xir_use *u = ARENA_NEW(&m->arena, xir_use);
    if (!u) return oom(m), false;
    if (inst->operand_count == inst->operand_capacity) {
        uint32_t cap = inst->operand_capacity ? inst->operand_capacity * 2 : 4;
        xir_use **ops = ARENA_ARRAY(&m->arena, xir_use *, cap);
        if (!ops) return oom(m), false;
        if (inst->operand_count) memcpy(ops, inst->operands, inst->operand_count * sizeof *ops);
        inst->operands = ops;
        inst->operand_capacity = cap;
    }
    u->user = inst;
    u->index = inst->operand_count;
    u->value = v;
    inst->operands[inst->operand_count++] = u;
    if (inst->parent) link_use(u);
    return true;
}

bool xir_phi_add_incoming(xir_inst *phi, xir_value *v, xir_block *from) {
    xir_module *m = from->func->module;
    if (phi->incoming_capacity < phi->operand_count + 1) {
        uint32_t cap = phi->incoming_capacity ? phi->incoming_capacity * 2 : 4;
        xir_block **in = ARENA_ARRAY(&m->arena, xir_block *, cap);
        if (!in) return oom(m), false;
        if (phi->operand_count) memcpy(in, phi->incoming, phi->operand_count * sizeof *in);
        phi->incoming = in;
        phi->incoming_capacity = cap;
    }
    uint32_t index = phi->operand_count;
    if (!xir_inst_add_operand(phi, v)) return false;
    phi->incoming[index] = from;
    return true;
}

void xir_inst_detach(xir_inst *inst) {
    xir_block *b = inst->parent;
    if (!b) return;
    ILIST_REMOVE(b->first, b->last, inst);
    inst->parent = NULL;
    for (uint32_t i = 0; i < inst->operand_count; i++) unlink_use(inst->operands[i]);
}

static void attach(xir_inst *inst, xir_block *b) {
    inst->parent = b;
    for (uint32_t i = 0; i < inst->operand_count; i++)
        if (inst->operands[i]->value) link_use(inst->operands[i]);
}

void xir_inst_insert_end(xir_inst *inst, xir_block *b) {
    xir_inst_detach(inst);
    ILIST_APPEND(b->first, b->last, inst);
    attach(inst, b);
}

void xir_inst_insert_before(xir_inst *inst, xir_inst *position) {
    xir_inst_detach(inst);
    xir_block *b = position->parent;
    ILIST_INSERT_BEFORE(b->first, inst, position);
    attach(inst, b);
}

void xir_inst_set_operand(xir_inst *inst, uint32_t index, xir_value *v) {
    xir_use *u = inst->operands[index];
    unlink_use(u);
    u->value = v;
    if (inst->parent && v) link_use(u);
}

void xir_inst_remove_operand(xir_inst *inst, uint32_t index) {
    unlink_use(inst->operands[index]);
    for (uint32_t i = index + 1; i < inst->operand_count; i++) {
        inst->operands[i - 1] = inst->operands[i];
        inst->operands[i - 1]->index = i - 1;
        if (inst->incoming) inst->incoming[i - 1] = inst->incoming[i];
    }
    inst->operand_count--;
}

bool xir_inst_erase(xir_inst *inst) {
    if (inst->value.use_count) return false;
    xir_inst_detach(inst);
    return true;
}

void xir_value_replace_all_uses(xir_value *from, xir_value *to) {
    if (from == to) return;
    while (from->uses) {
        xir_use *u = from->uses;
        unlink_use(u);
        u->value = to;
        link_use(u);
    }
}
