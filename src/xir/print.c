/* print.c — the canonical XIR text form (docs/xir.md, "Text form").
 *
 * The output is deterministic and parses back to the same IR, so that
 * print(parse(print(m))) == print(m) byte for byte:
 *  - functions in module order, blocks and instructions in list order, two
 *    spaces before each instruction, a blank line between functions;
 *  - names as xir_names gives them (kept when valid and unique, else numbered);
 *  - an instruction states its result type unless its opcode fixes it
 *    (comparisons: bool, buffer_address: u64) or its syntax already spells it
 *    (cast/bitcast `to T`, `phi T`, `alloca T`);
 *  - constants are `TYPE LITERAL`; floats are the shortest decimal that reads
 *    back to the same f32 (strtof) or f64 (strtod), always with a '.' or an
 *    exponent; `inf`, `-inf`, `nan` for the default quiet NaN and `nan:0xBITS`
 *    (the IEEE bits at the type's width; f16 and bf16, held as a double, the
 *    double's) for any other NaN.
 * The printer is total on malformed IR: operand lists are printed as they are
 * (the parser reads any count back; the verifier judges it). */
#include "xir/text.h"
#include "base/symtab.h"
#include "xir/eval.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- names ---- */

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_name_char(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == '.' || is_digit(c);
}

bool xir_name_is_valid(const char *name, size_t len) {
    if (!name || !len) return false;
    for (size_t i = 0; i < len; i++)
        if (!is_name_char(name[i])) return false;
    return true;
}

static bool all_digits(const char *s, size_t len) {
    if (!len) return false;
    for (size_t i = 0; i < len; i++)
        if (!is_digit(s[i])) return false;
    return true;
}

bool xir_name_is_numbered_value(const char *name, size_t len) { return all_digits(name, len); }
bool xir_name_is_numbered_block(const char *name, size_t len) {
    return len > 2 && name[0] == 'b' && name[1] == 'b' && all_digits(name + 2, len - 2);
}

/* The printed name of one value or block: its own when usable, else the next
 * number (formatted with `prefix`). */
static const char *choose_name(arena *storage, symtab *taken, const char *own,
                               bool (*numbered)(const char *, size_t), const char *prefix, uint32_t *counter,
                               bool *ok) {
    size_t len = own ? strlen(own) : 0;
    if (xir_name_is_valid(own, len) && !numbered(own, len) && !symtab_get(taken, own, len)) {
        if (!symtab_put(taken, own, len, (void *)own)) *ok = false;
        return own;
    }
    char buf[32];
    snprintf(buf, sizeof buf, "%s%" PRIu32, prefix, (*counter)++);
    const char *name = arena_strdup(storage, buf);
    if (!name) *ok = false;
    return name;
}

void xir_names_free(xir_names *names) {
    arena_destroy(&names->storage);
    *names = (xir_names){0};
}

bool xir_names_init(xir_names *names, tilec_context *ctx, const xir_func *f) {
    *names = (xir_names){.func = f, .value_count = f->next_value_id, .block_count = f->next_block_id};
    arena_init(&names->storage, ctx);
    arena *a = &names->storage;
    names->values = ARENA_ARRAY(a, const xir_value *, names->value_count + 1);
    names->value_names = ARENA_ARRAY(a, const char *, names->value_count + 1);
    names->blocks = ARENA_ARRAY(a, const xir_block *, names->block_count + 1);
    names->block_names = ARENA_ARRAY(a, const char *, names->block_count + 1);
    bool ok = names->values && names->value_names && names->blocks && names->block_names;
    symtab taken_values, taken_blocks;
    symtab_init(&taken_values, ctx);
    symtab_init(&taken_blocks, ctx);
    uint32_t value_counter = 0, block_counter = 0;
    /* arguments, then instructions in block order; a repeated or out-of-range
     * id means a corrupted list, and ends that walk */
    for (size_t i = 0; ok && i < f->args.len; i++) {
        const xir_value *v = f->args.data[i];
        if (!v || v->id >= names->value_count || names->values[v->id]) break;
        names->values[v->id] = v;
        names->value_names[v->id] =
            choose_name(a, &taken_values, v->name, xir_name_is_numbered_value, "", &value_counter, &ok);
    }
    for (const xir_block *b = f->first; ok && b; b = b->next) {
        if (b->id >= names->block_count || names->blocks[b->id]) break;
        names->blocks[b->id] = b;
        names->block_names[b->id] =
            choose_name(a, &taken_blocks, b->name, xir_name_is_numbered_block, "bb", &block_counter, &ok);
        for (const xir_inst *inst = b->first; ok && inst; inst = inst->next) {
            const xir_value *v = &inst->value;
            if (v->id >= names->value_count || names->values[v->id]) break;
            names->values[v->id] = v;
            if (xir_inst_has_result(inst->kind))
                names->value_names[v->id] =
                    choose_name(a, &taken_values, v->name, xir_name_is_numbered_value, "", &value_counter, &ok);
        }
    }
    symtab_free(&taken_values);
    symtab_free(&taken_blocks);
    if (!ok) xir_names_free(names);
    return ok;
}

/* ---- literals ---- */

/* Whether `text` reads back as exactly `d` in type t (f32: via strtof). */
static bool reads_back(tir_scalar t, const char *text, double d) {
    if (t == TIR_F32) return strtof(text, NULL) == (float)d;
    return strtod(text, NULL) == d;
}

static void print_float(strbuf *out, tir_scalar t, xir_bits bits) {
    double d = bits.f;
    if (isnan(d)) {
        /* f16 and bf16 constants are held as a double: the parser reads
         * their `nan:0xBITS` as the double's bits, so they are spelled so */
        uint64_t raw = t == TIR_F32 ? xir_bits_raw(t, bits) : bits.u;
        if (raw == (t == TIR_F32 ? UINT64_C(0x7fc00000) : UINT64_C(0x7ff8000000000000)))
            strbuf_append(out, "nan");
        else
            strbuf_printf(out, "nan:0x%0*" PRIx64, t == TIR_F32 ? 8 : 16, raw);
        return;
    }
    if (isinf(d)) {
        strbuf_append(out, d > 0 ? "inf" : "-inf");
        return;
    }
    /* The fewest significant digits that read back exactly... */
    int max_digits = t == TIR_F32 ? 9 : 17, digits = 1;
    char buf[64];
    for (; digits < max_digits; digits++) {
        snprintf(buf, sizeof buf, "%.*e", digits - 1, d);
        if (reads_back(t, buf, d)) break;
    }
    snprintf(buf, sizeof buf, "%.*e", digits - 1, d);
    /* ...written without an exponent when it is moderate: 100.0, not 1e+02. */
    int exponent = atoi(strchr(buf, 'e') + 1);
    if (exponent >= -4 && exponent < 17) {
        char fixed[64];
        snprintf(fixed, sizeof fixed, "%.*g", digits > exponent + 1 ? digits : exponent + 1, d);
        if (reads_back(t, fixed, d)) memcpy(buf, fixed, sizeof buf);
    }
    strbuf_append(out, buf);
    if (!strpbrk(buf, ".e")) strbuf_append(out, ".0");
}

static void print_constant(strbuf *out, const xir_value *v) {
    tir_scalar t = v->type->scalar;
    strbuf_printf(out, "%s ", tir_scalar_name(t));
    if (t == TIR_BOOL) strbuf_append(out, v->constant.u ? "true" : "false");
    else if (tir_scalar_is_float(t)) print_float(out, t, v->constant);
    else if (tir_scalar_is_signed(t)) strbuf_printf(out, "%" PRId64, v->constant.i);
    else strbuf_printf(out, "%" PRIu64, v->constant.u);
}

/* ---- instructions ---- */

void xir_print_operand(strbuf *out, const xir_names *names, const xir_value *v) {
    if (!v) {
        strbuf_append(out, "%?");
        return;
    }
    switch (v->kind) {
    case XIR_VALUE_CONST:
        if (v->type && v->type->kind == XIR_TYPE_SCALAR) {
            print_constant(out, v);
            return;
        }
        break;
    case XIR_VALUE_SPECIAL: strbuf_append(out, xir_special_name(v->special)); return;
    case XIR_VALUE_ARG:
    case XIR_VALUE_INST:
        if (v->id < names->value_count && names->values[v->id] == v && names->value_names[v->id]) {
            strbuf_printf(out, "%%%s", names->value_names[v->id]);
            return;
        }
        break;
    }
    strbuf_append(out, "%?");
}

void xir_print_block_ref(strbuf *out, const xir_names *names, const xir_block *b) {
    bool known = b && b->id < names->block_count && names->blocks[b->id] == b;
    if (known) strbuf_printf(out, "^%s", names->block_names[b->id]);
    else strbuf_append(out, "^?");
}

static void print_type(strbuf *out, const xir_type *t) {
    if (t) xir_type_print(out, t);
    else strbuf_append(out, "void");
}

static void print_operands(strbuf *out, const xir_names *names, const xir_inst *inst) {
    for (uint32_t i = 0; i < inst->operand_count; i++) {
        strbuf_append(out, i ? ", " : " ");
        xir_print_operand(out, names, xir_operand(inst, i));
    }
}

void xir_print_inst(strbuf *out, const xir_names *names, const xir_inst *inst) {
    if (xir_inst_has_result(inst->kind)) {
        xir_print_operand(out, names, &inst->value);
        strbuf_append(out, " = ");
    }
    switch (inst->kind) {
    case XIR_INST_ARITH:
        strbuf_append(out, xir_arith_name(inst->op));
        print_operands(out, names, inst);
        if (xir_arith_class(inst->op) != XIR_OPC_COMPARE) {
            strbuf_append(out, " : ");
            print_type(out, inst->value.type);
        }
        return;
    case XIR_INST_CAST:
    case XIR_INST_BITCAST:
        strbuf_append(out, xir_inst_kind_name(inst->kind));
        print_operands(out, names, inst);
        strbuf_append(out, " to ");
        print_type(out, inst->value.type);
        return;
    case XIR_INST_PHI:
        strbuf_append(out, "phi ");
        print_type(out, inst->value.type);
        for (uint32_t i = 0; i < inst->operand_count; i++) {
            strbuf_append(out, i ? ", [" : " [");
            xir_print_operand(out, names, xir_operand(inst, i));
            strbuf_append(out, ", ");
            xir_print_block_ref(out, names, inst->incoming ? inst->incoming[i] : NULL);
            strbuf_append(out, "]");
        }
        return;
    case XIR_INST_ALLOCA:
        strbuf_append(out, "alloca ");
        print_type(out, inst->alloca_type ? inst->alloca_type : inst->value.type);
        return;
    case XIR_INST_GEP:
    case XIR_INST_LOAD:
    case XIR_INST_BUFFER_READ:
    case XIR_INST_WARP_READ_LANE:
        strbuf_append(out, xir_inst_kind_name(inst->kind));
        print_operands(out, names, inst);
        strbuf_append(out, " : ");
        print_type(out, inst->value.type);
        return;
    case XIR_INST_BR:
    case XIR_INST_COND_BR: {
        strbuf_append(out, xir_inst_kind_name(inst->kind));
        print_operands(out, names, inst);
        unsigned targets = inst->kind == XIR_INST_BR ? 1 : 2;
        for (unsigned i = 0; i < targets; i++) {
            strbuf_append(out, i || inst->operand_count ? ", " : " ");
            xir_print_block_ref(out, names, inst->targets[i]);
        }
        return;
    }
    default: /* store, buffer_write, buffer_address, fault, ret (and invalid kinds) */
        strbuf_append(out, xir_inst_kind_name(inst->kind));
        print_operands(out, names, inst);
        return;
    }
}

/* ---- module ---- */

static bool print_func(strbuf *out, const xir_func *f) {
    xir_names names;
    if (!xir_names_init(&names, out->ctx, f)) return false;
    strbuf_printf(out, "kernel @%s(", f->name ? f->name : "");
    for (size_t i = 0; i < f->args.len; i++) {
        if (i) strbuf_append(out, ", ");
        xir_print_operand(out, &names, f->args.data[i]);
        strbuf_append(out, ": ");
        print_type(out, f->args.data[i] ? f->args.data[i]->type : NULL);
    }
    strbuf_printf(out, ") block_size=%" PRIu32 " {\n", f->block_size);
    for (const xir_block *b = f->first; b; b = b->next) {
        if (b->id >= names.block_count || names.blocks[b->id] != b) break; /* corrupted list */
        xir_print_block_ref(out, &names, b);
        strbuf_append(out, ":\n");
        for (const xir_inst *inst = b->first; inst; inst = inst->next) {
            if (inst->value.id >= names.value_count || names.values[inst->value.id] != &inst->value) break;
            strbuf_append(out, "  ");
            xir_print_inst(out, &names, inst);
            strbuf_append(out, "\n");
        }
    }
    strbuf_append(out, "}\n");
    xir_names_free(&names);
    return !out->failed;
}

bool xir_print_to_strbuf(const xir_module *m, strbuf *out) {
    bool ok = !out->failed;
    for (size_t i = 0; ok && i < m->funcs.len; i++) {
        if (i) strbuf_append(out, "\n");
        ok = print_func(out, m->funcs.data[i]);
    }
    if (!ok) tilec_error(out->ctx, TILEC_E_NOMEM, "XIR-M01", tilec_no_loc(), "out of memory printing XIR");
    return ok;
}

tilec_status xir_print_file(const xir_module *m, FILE *out) {
    if (!m) return TILEC_E_ARG;
    if (!out) return tilec_error(m->ctx, TILEC_E_ARG, "XIR-M02", tilec_no_loc(), "xir_print_file: NULL file");
    strbuf s;
    strbuf_init(&s, m->ctx);
    tilec_status status = TILEC_OK;
    if (!xir_print_to_strbuf(m, &s)) status = TILEC_E_NOMEM;
    else if (fwrite(strbuf_cstr(&s), 1, s.len, out) != s.len || fflush(out) != 0)
        status = tilec_error(m->ctx, TILEC_E_IO, "XIR-M02", tilec_no_loc(), "cannot write the XIR text");
    strbuf_free(&s);
    return status;
}
