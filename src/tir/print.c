/* print.c — the canonical TileIR text form (docs/tir.md).
 *
 * The output is deterministic and parses back to the same IR, so that
 * print(parse(print(m))) == print(m) byte for byte:
 *  - two-space indentation; every attribute with a default is printed
 *    (bounds=, policy=, stages= ii=), `scope=` only when not auto, `stride [...]`
 *    only when a stride is not 1, `ordered` on
 *    mma that forbids reassociation; the empty yield closing a parallel or a
 *    carry-less loop is omitted (the parser re-inserts it); no `: type`;
 *  - a value keeps its name unless that name is visible at its definition
 *    (the parser forbids shadowing) or is not a valid VALUE; then, as for
 *    unnamed values, it gets a fresh number %0, %1, ... that is not visible;
 *    a region's results are named before its body but bound after it, exactly
 *    as the parser binds them;
 *  - dims are named per kernel in order of first appearance: a dim keeps its
 *    (sanitized) label unless another dim of the kernel took it first, then it
 *    becomes `label#2`, `label#3`, ..., skipping every label some dim of the
 *    kernel already has;
 *  - floats print as the shortest "%.<p>g" (p <= 17) that reads back as the
 *    same double, always with a '.' or an exponent; inf, -inf and nan as words;
 *  - a reduce's combine block follows its body as ` combine (%l, ..) (%r, ..)
 *    {..}`; its names are chosen against an empty visible set, since it sees
 *    no outer value (the parser reads it against an empty name table);
 *  - kernel shape parameters are not printed: the IR is specialized; its
 *    runtime sizes are, as `<NAME: LO..HI, ...>`, and extents and index
 *    constants over them as their forms (tir/form.h).
 * Malformed IR (no verifier ran) still prints without crashing: a missing or
 * foreign value prints as `%?`. */
#include "tir/text.h"
#include "base/symtab.h"
#include "tir/form.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    strbuf *out;
    const tir_module *m;
    const tir_func *f;
    arena names; /* every printed name */
    bool failed;
    symtab visible;      /* value names visible at the current point */
    const char **value_names; /* by value id */
    size_t value_name_count;
    uint64_t fresh;
    symtab labels;       /* sanitized labels of every dim of the kernel */
    symtab dims_taken;   /* dim names given out in this kernel */
    /* By dim id, for the whole module: dim_names[id] is this kernel's name
     * for the dim when dim_kernel[id] == kernel (1 + its index), so a kernel
     * costs its own dims, not a table of every dim of the module. */
    const char **dim_names;
    size_t *dim_kernel;
    size_t dim_name_count, kernel;
} printer;

static bool is_alpha(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_name_char(char c) { return is_alpha(c) || is_digit(c) || c == '.'; }

static char *keep(printer *pr, const char *s, size_t n) {
    char *copy = arena_strndup(&pr->names, s, n);
    if (!copy) pr->failed = true;
    return copy;
}

static bool put(printer *pr, symtab *t, const char *name) {
    if (!symtab_put(t, name, strlen(name), (void *)name)) pr->failed = true;
    return !pr->failed;
}

static bool has(const symtab *t, const char *name) { return symtab_get(t, name, strlen(name)) != NULL; }

/* `text` made into an IDENT: invalid characters become '_', a leading digit or
 * dot gets a '_' prefix, an empty text becomes `fallback`. */
static char *sanitize_ident(printer *pr, const char *text, size_t n, const char *fallback) {
    if (!n) return keep(pr, fallback, strlen(fallback));
    bool prefix = !is_alpha(text[0]) && is_name_char(text[0]);
    char *s = arena_alloc(&pr->names, n + 2);
    if (!s) return pr->failed = true, NULL;
    size_t k = 0;
    if (prefix) s[k++] = '_';
    for (size_t i = 0; i < n; i++) s[k++] = is_name_char(text[i]) ? text[i] : '_';
    return s;
}

/* A dim label as DIM := IDENT [ '#' DIGITS ]; *stem_len is the IDENT part. */
static char *sanitize_label(printer *pr, const char *label, size_t *stem_len) {
    size_t n = label ? strlen(label) : 0, stem = n;
    const char *hash = n ? strrchr(label, '#') : NULL;
    if (hash && hash != label && hash[1]) {
        const char *d = hash + 1;
        while (is_digit(*d)) d++;
        if (!*d) stem = (size_t)(hash - label);
    }
    char *s = sanitize_ident(pr, label ? label : "", stem, "d");
    if (!s) return NULL;
    *stem_len = strlen(s);
    if (stem == n) return s;
    size_t total = *stem_len + (n - stem);
    char *full = arena_alloc(&pr->names, total + 1);
    if (!full) return pr->failed = true, NULL;
    memcpy(full, s, *stem_len);
    memcpy(full + *stem_len, label + stem, n - stem);
    return full;
}

/* ---- dims ---- */

static void collect_space(printer *pr, const tir_space *s) {
    for (uint32_t i = 0; s && i < s->rank; i++) {
        size_t stem;
        char *label = sanitize_label(pr, s->axes[i].dim->label, &stem);
        if (label && !has(&pr->labels, label)) put(pr, &pr->labels, label);
    }
}

static void collect_block(printer *pr, const tir_block *b) {
    for (uint32_t i = 0; i < b->arg_count; i++) collect_space(pr, b->args[i]->type->space);
    for (const tir_op *op = b->first; op && !pr->failed; op = op->next) {
        collect_space(pr, op->domain);
        for (uint32_t i = 0; i < op->result_count; i++) collect_space(pr, op->results[i]->type->space);
        if (op->body) collect_block(pr, op->body);
        if (op->combine) collect_block(pr, op->combine);
    }
}

static const char *dim_name(printer *pr, const tir_dim *d) {
    bool cached = d->id < pr->dim_name_count;
    if (cached && pr->dim_kernel[d->id] == pr->kernel) return pr->dim_names[d->id];
    size_t stem;
    char *name = sanitize_label(pr, d->label, &stem);
    if (!name) return "d";
    if (has(&pr->dims_taken, name)) {
        char buf[32];
        for (unsigned long n = 2;; n++) {
            int k = snprintf(buf, sizeof buf, "#%lu", n);
            char *candidate = arena_alloc(&pr->names, stem + (size_t)k + 1);
            if (!candidate) return pr->failed = true, "d";
            memcpy(candidate, name, stem);
            memcpy(candidate + stem, buf, (size_t)k + 1);
            if (!has(&pr->dims_taken, candidate) && !has(&pr->labels, candidate)) {
                name = candidate;
                break;
            }
        }
    }
    put(pr, &pr->dims_taken, name);
    if (cached) {
        pr->dim_names[d->id] = name;
        pr->dim_kernel[d->id] = pr->kernel;
    }
    return name;
}

/* ---- values ---- */

static bool owned(const printer *pr, const tir_value *v) {
    const tir_func *home = v->def_op ? v->def_op->func : v->def_block ? v->def_block->func : NULL;
    return home == pr->f && v->id < pr->value_name_count;
}

/* The name `v` will be defined with; not yet visible. */
static const char *choose_name(printer *pr, const tir_value *v) {
    if (v->name && *v->name) {
        size_t n = strlen(v->name);
        char *s = keep(pr, v->name, n);
        if (!s) return "?";
        for (size_t i = 0; i < n; i++)
            if (!is_name_char(s[i])) s[i] = '_';
        if (!has(&pr->visible, s)) return s;
    }
    char buf[24];
    do snprintf(buf, sizeof buf, "%llu", (unsigned long long)pr->fresh++);
    while (has(&pr->visible, buf));
    const char *s = keep(pr, buf, strlen(buf));
    return s ? s : "?";
}

static void bind_name(printer *pr, const tir_value *v, const char *name) {
    if (owned(pr, v)) pr->value_names[v->id] = name;
    put(pr, &pr->visible, name);
}

static void define_value(printer *pr, const tir_value *v) { bind_name(pr, v, choose_name(pr, v)); }

static void print_value(printer *pr, const tir_value *v) {
    const char *name = v && owned(pr, v) ? pr->value_names[v->id] : NULL;
    strbuf_append(pr->out, "%");
    strbuf_append(pr->out, name ? name : "?");
}

static const tir_value *operand(const tir_op *op, size_t i) {
    return i < op->operand_count ? op->operands[i]->value : NULL;
}

/* Operands [from, to) separated by ", ". */
static void print_operands(printer *pr, const tir_op *op, size_t from, size_t to) {
    for (size_t i = from; i < to; i++) {
        if (i > from) strbuf_append(pr->out, ", ");
        print_value(pr, operand(op, i));
    }
}

/* ---- types and literals ---- */

static void print_space(printer *pr, const tir_space *s) {
    strbuf_append(pr->out, "[");
    for (uint32_t i = 0; s && i < s->rank; i++) {
        strbuf_printf(pr->out, "%s%s=", i ? ", " : "", dim_name(pr, s->axes[i].dim));
        tir_extent_print(pr->out, pr->m, s->axes[i].extent);
    }
    strbuf_append(pr->out, "]");
}

static void print_type(printer *pr, const tir_type *t) {
    switch (t->kind) {
    case TIR_TYPE_INDEX: strbuf_append(pr->out, "index"); return;
    case TIR_TYPE_SCALAR: strbuf_append(pr->out, tir_scalar_name(t->elem)); return;
    case TIR_TYPE_TILE:
    case TIR_TYPE_VIEW:
        strbuf_printf(pr->out, "%s<%s>", t->kind == TIR_TYPE_TILE ? "tile" : "view", tir_scalar_name(t->elem));
        print_space(pr, t->space);
        return;
    }
}

static void print_double(printer *pr, double d) {
    if (isnan(d) || isinf(d)) {
        strbuf_append(pr->out, isnan(d) ? "nan" : d > 0 ? "inf" : "-inf");
        return;
    }
    /* The fewest significant digits that read back exactly (17 always do)... */
    char buf[48];
    int digits = 1;
    for (; digits < 17; digits++) {
        snprintf(buf, sizeof buf, "%.*e", digits - 1, d);
        if (strtod(buf, NULL) == d) break;
    }
    snprintf(buf, sizeof buf, "%.*e", digits - 1, d);
    /* ...written without an exponent when it is small: 100.0, not 1e+02. */
    int exponent = atoi(strchr(buf, 'e') + 1);
    if (exponent >= -4 && exponent < 17) {
        snprintf(buf, sizeof buf, "%.*g", digits > exponent + 1 ? digits : exponent + 1, d);
        if (strtod(buf, NULL) != d) snprintf(buf, sizeof buf, "%.17g", d);
    }
    strbuf_append(pr->out, buf);
    if (!strpbrk(buf, ".e")) strbuf_append(pr->out, ".0");
}

static void print_literal(printer *pr, const tir_type *type, tir_literal lit) {
    if (tir_scalar_is_float(tir_type_elem(type))) {
        double d = lit.kind == TIR_LIT_FLOAT ? lit.as.f
                   : lit.kind == TIR_LIT_UINT ? (double)lit.as.u
                   : lit.kind == TIR_LIT_INT  ? (double)lit.as.i
                                              : (double)lit.as.b;
        print_double(pr, d);
        return;
    }
    switch (lit.kind) {
    case TIR_LIT_BOOL: strbuf_append(pr->out, lit.as.b ? "true" : "false"); return;
    case TIR_LIT_INT: strbuf_printf(pr->out, "%lld", (long long)lit.as.i); return;
    case TIR_LIT_UINT: strbuf_printf(pr->out, "%llu", (unsigned long long)lit.as.u); return;
    case TIR_LIT_FLOAT: print_double(pr, lit.as.f); return;
    }
}

/* ---- ops ---- */

static void print_block(printer *pr, const tir_block *b, const tir_op *region, int depth);

static void print_results(printer *pr, const tir_op *op) {
    for (uint32_t i = 0; i < op->result_count; i++) {
        define_value(pr, op->results[i]);
        if (i) strbuf_append(pr->out, ", ");
        print_value(pr, op->results[i]);
    }
    if (op->result_count) strbuf_append(pr->out, " = ");
}

static const char *bounds_name(tir_bounds b) { return b == TIR_BOUNDS_ASSUME ? "assume" : "zero"; }

static size_t index_count(const tir_op *op, size_t trailing) {
    return op->operand_count > trailing + 1 ? op->operand_count - trailing - 1 : 0;
}

/* "KEYWORD %view[i, j] [tile SPACE [stride [s, t]] bounds=MODE]": what loads
 * and stores share (the stride clause only when a stride is not 1). */
static void print_access(printer *pr, const tir_op *op, const char *keyword, size_t n) {
    strbuf_printf(pr->out, "%s ", keyword);
    print_value(pr, operand(op, 0));
    strbuf_append(pr->out, "[");
    print_operands(pr, op, 1, 1 + n);
    strbuf_append(pr->out, "]");
    if (op->domain) {
        strbuf_append(pr->out, " tile ");
        print_space(pr, op->domain);
        for (uint32_t a = 0; op->strides && a < op->domain->rank; a++)
            strbuf_printf(pr->out, "%s%llu%s", a ? ", " : " stride [", (unsigned long long)op->strides[a],
                          a + 1 == op->domain->rank ? "]" : "");
        strbuf_printf(pr->out, " bounds=%s", bounds_name(op->bounds));
    }
}

static void print_load(printer *pr, const tir_op *op) {
    size_t extra = op->has_fill ? 1 : op->masked ? 2 : 0, n = index_count(op, extra);
    print_access(pr, op, "load", n);
    if (op->domain && op->has_fill) {
        strbuf_append(pr->out, " fill ");
        print_value(pr, operand(op, 1 + n));
    } else if (!op->domain && op->masked) {
        strbuf_append(pr->out, " mask ");
        print_value(pr, operand(op, 1 + n));
        strbuf_append(pr->out, " else ");
        print_value(pr, operand(op, 2 + n));
    }
}

static void print_store(printer *pr, const tir_op *op) {
    size_t n = index_count(op, 1);
    print_access(pr, op, "store", n);
    strbuf_append(pr->out, ", ");
    print_value(pr, operand(op, 1 + n));
}

/* `(%c: dim=extent, ...)`: the region's coordinates, defined in the new scope. */
static void print_coords(printer *pr, const tir_op *op) {
    strbuf_append(pr->out, " (");
    uint32_t rank = op->domain ? op->domain->rank : 0;
    for (uint32_t i = 0; i < rank && i < op->body->arg_count; i++) {
        if (i) strbuf_append(pr->out, ", ");
        define_value(pr, op->body->args[i]);
        print_value(pr, op->body->args[i]);
        strbuf_printf(pr->out, ": %s=", dim_name(pr, op->domain->axes[i].dim));
        tir_extent_print(pr->out, pr->m, op->domain->axes[i].extent);
    }
    strbuf_append(pr->out, ")");
}

static void print_region_attrs(printer *pr, const tir_op *op) {
    if (op->kind == TIR_OP_PARALLEL && op->scope != TIR_SCOPE_AUTO)
        strbuf_printf(pr->out, " scope=%s", tir_exec_scope_name(op->scope));
    if (op->kind == TIR_OP_PIPELINE)
        strbuf_printf(pr->out, " stages=%llu ii=%llu", (unsigned long long)op->stages,
                      (unsigned long long)op->initiation_interval);
    if (op->kind == TIR_OP_REDUCE) strbuf_printf(pr->out, " policy=%s", tir_reduction_policy_name(op->policy));
}

/* ` iter(%arg = %init, ...) -> (type, ...)` */
static void print_carries(printer *pr, const tir_op *op) {
    uint32_t rank = op->domain ? op->domain->rank : 0, n = op->kind == TIR_OP_IF ? op->result_count : op->operand_count;
    if (!n) return;
    strbuf_append(pr->out, " iter(");
    for (uint32_t i = 0; i < n; i++) {
        if (i) strbuf_append(pr->out, ", ");
        const tir_value *arg = rank + i < op->body->arg_count ? op->body->args[rank + i] : NULL;
        if (arg) define_value(pr, arg);
        print_value(pr, arg);
        strbuf_append(pr->out, " = ");
        print_value(pr, operand(op, i));
    }
    strbuf_append(pr->out, ") -> (");
    for (uint32_t i = 0; i < n; i++) {
        if (i) strbuf_append(pr->out, ", ");
        const tir_value *typed = i < op->result_count ? op->results[i] : operand(op, i);
        if (typed) print_type(pr, typed->type);
    }
    strbuf_append(pr->out, ")");
}

/* ` combine (%l, ...) (%r, ...) {...}`: a reduce's combine block.  It sees
 * none of the enclosing names (the parser reads it against an empty table),
 * so it is printed against an empty visible set, set aside and restored. */
static void print_combine(printer *pr, const tir_op *op, int depth) {
    const tir_block *c = op->combine;
    uint32_t k = op->result_count < c->arg_count ? op->result_count : c->arg_count;
    symtab outer = pr->visible;
    symtab_init(&pr->visible, pr->m->ctx);
    strbuf_append(pr->out, " combine (");
    for (uint32_t i = 0; i < c->arg_count; i++) {
        if (i == k) strbuf_append(pr->out, ") (");
        else if (i) strbuf_append(pr->out, ", ");
        define_value(pr, c->args[i]);
        print_value(pr, c->args[i]);
    }
    strbuf_append(pr->out, k == c->arg_count ? ") () {\n" : ") {\n");
    print_block(pr, c, op, depth + 1);
    strbuf_indent(pr->out, depth);
    strbuf_append(pr->out, "}");
    symtab_free(&pr->visible);
    pr->visible = outer;
}

/* A map or region: results are named now and bound after the body. */
static void print_region(printer *pr, const tir_op *op, int depth) {
    const char **names = op->result_count ? arena_alloc(&pr->names, op->result_count * sizeof *names) : NULL;
    if ((op->result_count && !names) || !symtab_push_scope(&pr->visible)) {
        pr->failed = true;
        return;
    }
    for (uint32_t i = 0; i < op->result_count; i++) {
        names[i] = choose_name(pr, op->results[i]);
        put(pr, &pr->visible, names[i]); /* distinct from each other, undone below */
        strbuf_printf(pr->out, "%s%%%s", i ? ", " : "", names[i]);
    }
    symtab_pop_scope(&pr->visible);
    if (op->result_count) strbuf_append(pr->out, " = ");
    strbuf_append(pr->out, tir_op_kind_name(op->kind));
    if (!symtab_push_scope(&pr->visible)) {
        pr->failed = true;
        return;
    }
    if (op->body) {
        if (op->kind == TIR_OP_IF) { /* its condition: the last operand */
            strbuf_append(pr->out, " ");
            print_value(pr, operand(op, op->operand_count - 1));
        } else {
            print_coords(pr, op);
        }
        if (op->kind == TIR_OP_MAP) {
            strbuf_printf(pr->out, " -> %s", op->result_count ? tir_scalar_name(op->results[0]->type->elem) : "?");
        } else {
            print_region_attrs(pr, op);
            print_carries(pr, op);
        }
        strbuf_append(pr->out, " {\n");
        print_block(pr, op->body, op, depth + 1);
        strbuf_indent(pr->out, depth);
        strbuf_append(pr->out, "}");
        if (op->combine) print_combine(pr, op, depth);
    }
    symtab_pop_scope(&pr->visible);
    for (uint32_t i = 0; i < op->result_count; i++) bind_name(pr, op->results[i], names[i]);
}

static void print_string(printer *pr, const char *s) {
    strbuf_append(pr->out, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        char ch = c < 0x20 || c == 0x7f || c == '"' ? '_' : (char)c;
        strbuf_append_n(pr->out, &ch, 1);
    }
    strbuf_append(pr->out, "\"");
}

static void print_op(printer *pr, const tir_op *op, int depth) {
    strbuf_indent(pr->out, depth);
    switch (op->kind) {
    case TIR_OP_MAP:
    case TIR_OP_PARALLEL:
    case TIR_OP_SERIAL:
    case TIR_OP_PIPELINE:
    case TIR_OP_REDUCE:
    case TIR_OP_IF: print_region(pr, op, depth); break;
    case TIR_OP_CONSTANT:
        print_results(pr, op);
        strbuf_append(pr->out, "const ");
        if (op->result_count) {
            print_type(pr, op->results[0]->type);
            strbuf_append(pr->out, " ");
            if (op->form) tir_form_print(pr->out, op->form);
            else print_literal(pr, op->results[0]->type, op->literal);
        }
        break;
    case TIR_OP_ELEMENTWISE:
        print_results(pr, op);
        strbuf_printf(pr->out, "%s ", tir_ew_name(op->ew));
        print_operands(pr, op, 0, op->ew == TIR_EW_CAST ? 1 : op->operand_count);
        if (op->ew == TIR_EW_CAST && op->result_count)
            strbuf_printf(pr->out, " to %s", tir_scalar_name(tir_type_elem(op->results[0]->type)));
        break;
    case TIR_OP_EXTRACT:
        print_results(pr, op);
        strbuf_append(pr->out, "extract ");
        print_value(pr, operand(op, 0));
        strbuf_append(pr->out, "[");
        print_operands(pr, op, 1, op->operand_count);
        strbuf_append(pr->out, "]");
        break;
    case TIR_OP_MMA:
        print_results(pr, op);
        strbuf_append(pr->out, "mma ");
        print_operands(pr, op, 0, op->operand_count);
        if (!op->allow_reassociation) strbuf_append(pr->out, " ordered");
        break;
    case TIR_OP_VIEW_LOAD:
        print_results(pr, op);
        print_load(pr, op);
        break;
    case TIR_OP_VIEW_STORE: print_store(pr, op); break;
    case TIR_OP_STAGE:
        strbuf_append(pr->out, "stage");
        if (op->stage_name && *op->stage_name) { /* an empty name is no name */
            strbuf_append(pr->out, " ");
            print_string(pr, op->stage_name);
        }
        break;
    case TIR_OP_YIELD:
        strbuf_append(pr->out, op->operand_count ? "yield " : "yield");
        print_operands(pr, op, 0, op->operand_count);
        break;
    default: strbuf_printf(pr->out, "// op of unknown kind %d", (int)op->kind); break;
    }
    strbuf_append(pr->out, "\n");
}

/* The closing yield the parser inserts by itself is not printed. */
static bool implicit_yield(const tir_op *op, const tir_op *region) {
    return op->kind == TIR_OP_YIELD && !op->next && !op->operand_count && region &&
           (region->kind == TIR_OP_PARALLEL ||
            ((tir_op_is_loop(region) || region->kind == TIR_OP_IF) && !region->result_count));
}

static void print_block(printer *pr, const tir_block *b, const tir_op *region, int depth) {
    for (const tir_op *op = b->first; op && !pr->failed; op = op->next)
        if (!implicit_yield(op, region)) print_op(pr, op, depth);
}

/* ---- kernels ---- */

static void print_kernel(printer *pr, const tir_func *f, const char *name) {
    pr->f = f;
    pr->fresh = 0;
    pr->value_name_count = f->next_value_id;
    pr->value_names = ARENA_ARRAY(&pr->names, const char *, pr->value_name_count ? pr->value_name_count : 1);
    pr->kernel++;
    symtab_free(&pr->labels);
    symtab_free(&pr->dims_taken);
    symtab_free(&pr->visible);
    if (!pr->value_names || !symtab_push_scope(&pr->visible)) {
        pr->failed = true;
        return;
    }
    collect_block(pr, f->body);
    strbuf_printf(pr->out, "kernel @%s", name);
    for (uint32_t i = 0; i < f->sym_count; i++)
        strbuf_printf(pr->out, "%s%s: %lld..%lld%s", i ? ", " : "<", f->syms[i]->name, (long long)f->syms[i]->lo,
                      (long long)f->syms[i]->hi, i + 1 == f->sym_count ? ">" : "");
    strbuf_append(pr->out, "(");
    for (uint32_t i = 0; i < f->body->arg_count; i++) {
        const tir_value *param = f->body->args[i];
        define_value(pr, param);
        if (i) strbuf_append(pr->out, ", ");
        print_value(pr, param);
        strbuf_append(pr->out, param->read_only ? ": const " : ": ");
        print_type(pr, param->type);
    }
    strbuf_append(pr->out, ") {\n");
    print_block(pr, f->body, NULL, 1);
    strbuf_append(pr->out, "}\n");
}

bool tir_print_to_strbuf(const tir_module *m, strbuf *out) {
    printer pr;
    memset(&pr, 0, sizeof pr);
    pr.out = out;
    pr.m = m;
    arena_init(&pr.names, m->ctx);
    symtab_init(&pr.visible, m->ctx);
    symtab_init(&pr.labels, m->ctx);
    symtab_init(&pr.dims_taken, m->ctx);
    symtab kernels;
    symtab_init(&kernels, m->ctx);
    pr.dim_name_count = (size_t)m->dim_count + 1;
    pr.dim_names = ARENA_ARRAY(&pr.names, const char *, pr.dim_name_count);
    pr.dim_kernel = ARENA_ARRAY(&pr.names, size_t, pr.dim_name_count);
    pr.failed = !pr.dim_names || !pr.dim_kernel;
    for (size_t i = 0; i < m->funcs.len && !pr.failed; i++) {
        const tir_func *f = m->funcs.data[i];
        char *base = sanitize_ident(&pr, f->name, strlen(f->name), "kernel"), *name = base;
        for (unsigned long n = 2; name && has(&kernels, name); n++) { /* sanitizing may merge names */
            name = arena_alloc(&pr.names, strlen(base) + 24);
            if (name) sprintf(name, "%s_%lu", base, n);
            else pr.failed = true;
        }
        if (!name || !put(&pr, &kernels, name)) break;
        if (i) strbuf_append(out, "\n");
        print_kernel(&pr, f, name);
    }
    symtab_free(&kernels);
    symtab_free(&pr.visible);
    symtab_free(&pr.labels);
    symtab_free(&pr.dims_taken);
    arena_destroy(&pr.names);
    bool ok = !pr.failed && !out->failed;
    if (!ok) tilec_error(m->ctx, TILEC_E_NOMEM, "TIR-M01", tilec_no_loc(), "out of memory printing a module");
    return ok;
}

tilec_status tir_print(const tir_module *m, tir_write_fn write, void *user) {
    if (!m || !write) return TILEC_E_ARG;
    strbuf s;
    strbuf_init(&s, m->ctx);
    tilec_status status = tir_print_to_strbuf(m, &s) ? write(user, strbuf_cstr(&s), s.len) : TILEC_E_NOMEM;
    strbuf_free(&s);
    return status;
}

static tilec_status write_file(void *user, const char *bytes, size_t n) {
    return fwrite(bytes, 1, n, (FILE *)user) == n ? TILEC_OK : TILEC_E_IO;
}

tilec_status tir_print_file(const tir_module *m, FILE *out) {
    if (!m || !out) return TILEC_E_ARG;
    tilec_status status = tir_print(m, write_file, out);
    if (status == TILEC_E_IO) tilec_error(m->ctx, TILEC_E_IO, "TIR-M08", tilec_no_loc(), "writing the printed module failed");
    return status;
}
