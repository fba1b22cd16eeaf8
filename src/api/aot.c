/* aot.c — tilec_compile_aot: a kernel compiled ahead of time into one
 * object file a C program links against the runtime library (docs/aot.md).
 *
 *   the pipeline of tilec_compile, its native code emitted into one SIMD
 *   object for the target CPU (simd/aot.h) instead of compiled → the
 *   kernel's programs (rt/program.h) written as the blob of aot_format.h →
 *   the descriptor and the C entry points added, the object generated →
 *   the C header describing them.
 *
 * Nothing runs here and no thread pool is created: the kernel is planned for
 * o->threads workers (0: TILEC_THREADS, else this machine's cores), and runs
 * on whatever runtime the program brings. */
#include "api/aot_write.h"
#include "driver/pipeline.h"

#include "base/fault.h"
#include "tir/form.h"
#include "tir/ir.h"

#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* ---- the blob ---- */

typedef struct {
    strbuf *out;
    const tilec_kernel *nodes[64]; /* node i's kernel, in the order written */
    uint32_t count;
    bool overflow;
} blob_writer;

void aot_put_u32(strbuf *s, uint32_t v) { strbuf_append_n(s, (const char *)&v, sizeof v); }
void aot_put_u64(strbuf *s, uint64_t v) { strbuf_append_n(s, (const char *)&v, sizeof v); }
void aot_put_str(strbuf *s, const char *text) {
    if (!text) {
        aot_put_u32(s, AOT_NONE);
        return;
    }
    aot_put_u32(s, (uint32_t)strlen(text));
    strbuf_append_n(s, text, strlen(text));
}

void aot_put_dims(strbuf *s, const rt_dim *dims, uint32_t count) {
    aot_put_u32(s, count);
    for (uint32_t i = 0; i < count; i++) {
        aot_put_str(s, dims[i].name);
        aot_put_u64(s, (uint64_t)dims[i].lo);
        aot_put_u64(s, (uint64_t)dims[i].hi);
    }
}

/* Numbers k and its helper kernels depth-first (k first): a child's index
 * is always larger than its parent's. */
static uint32_t number(blob_writer *w, const tilec_kernel *k) {
    if (!k) return AOT_NONE;
    if (w->count == sizeof w->nodes / sizeof w->nodes[0]) {
        w->overflow = true;
        return AOT_NONE;
    }
    uint32_t at = w->count++;
    w->nodes[at] = k;
    for (uint32_t i = 0; i < k->prog.packs; i++) number(w, k->pack[i]);
    number(w, k->split_partial);
    number(w, k->split_combine);
    number(w, k->unfused);
    return at;
}

/* A size program (rt/sizes.h): its steps. */
static void put_size(strbuf *s, const rt_size *z) {
    aot_put_u32(s, z->count);
    for (uint32_t i = 0; i < z->count; i++) {
        aot_put_u64(s, (uint64_t)z->steps[i].arg);
        aot_put_u32(s, z->steps[i].op);
    }
}

static uint32_t index_of(const blob_writer *w, const tilec_kernel *k) {
    for (uint32_t i = 0; k && i < w->count; i++)
        if (w->nodes[i] == k) return i;
    return AOT_NONE;
}

static void put_node(blob_writer *w, const tilec_kernel *k) {
    strbuf *s = w->out;
    const rt_program *p = &k->prog;
    aot_put_str(s, strbuf_cstr(&k->name));
    /* a split program checks its arguments with its partial kernel's descriptor (entry included) */
    aot_put_u32(s, (k->split_partial ? k->split_partial : k)->aot_entry);
    aot_put_u32(s, p->desc.arg_count);
    aot_put_u32(s, p->user_args);
    for (uint32_t i = 0; i < p->desc.arg_count; i++) {
        aot_put_u32(s, (uint32_t)p->desc.params[i].elem);
        aot_put_u64(s, p->desc.params[i].min_bytes);
    }
    aot_put_u32(s, p->desc.dispatch_size);
    aot_put_u32(s, p->desc.block_size);
    aot_put_u64(s, p->desc.blocks_per_task);
    aot_put_u64(s, p->desc.workspace_bytes);
    aot_put_u32(s, p->packs);
    for (uint32_t i = 0; i < p->packs; i++) {
        aot_put_u32(s, index_of(w, k->pack[i]));
        aot_put_u32(s, p->packed_param[i]);
        aot_put_u64(s, p->pack_offset[i]);
        aot_put_u64(s, p->pack_bytes[i]);
    }
    aot_put_u64(s, p->scratch_bytes);
    aot_put_u32(s, index_of(w, k->split_partial));
    aot_put_u32(s, index_of(w, k->split_combine));
    aot_put_u32(s, p->split_carries);
    for (uint32_t i = 0; i < p->split_carries; i++) {
        aot_put_u64(s, p->split_bytes[i]);
        aot_put_u32(s, (uint32_t)p->split_elem[i]);
    }
    aot_put_u32(s, index_of(w, k->unfused));
    aot_put_u32(s, p->disjoint != NULL);
    for (uint32_t i = 0; p->disjoint && i < p->user_args; i++) {
        aot_put_u64(s, p->disjoint[i]);
        aot_put_u64(s, p->disjoint_or_equal[i]);
    }
    aot_put_u32(s, p->dim_count);
    if (p->dim_count) { /* the launch at each dispatch's sizes */
        put_size(s, &p->dispatch_size);
        for (uint32_t i = 0; i < p->user_args; i++) put_size(s, p->arg_bytes ? &p->arg_bytes[i] : &(rt_size){0});
    }
    aot_put_u32(s, (uint32_t)k->fault_site_count);
    for (size_t i = 0; i < k->fault_site_count; i++) {
        const tir_fault_site *f = &k->fault_sites[i];
        aot_put_u32(s, (uint32_t)f->kind);
        aot_put_u32(s, f->store);
        aot_put_str(s, f->target);
        aot_put_u32(s, f->target_id);
        aot_put_str(s, f->func);
        aot_put_str(s, f->axis_label);
        aot_put_u32(s, f->axis);
        aot_put_u64(s, f->extent);
        aot_put_u64(s, f->count);
        aot_put_str(s, f->loc.file);
        aot_put_u32(s, f->loc.line);
        aot_put_u32(s, f->loc.column);
    }
}

/* A kernel with runtime sizes is its buckets' variants, numbered in
 * order; the bucket table says which serves each. */
tilec_status aot_write_kernel_blob(tilec_context *ctx, const tilec_kernel *k, const simd_aot *a, strbuf *out) {
    blob_writer w = {.out = out};
    if (k->bucket_count)
        for (uint32_t v = 0; v < k->variant_count; v++) number(&w, k->variants[v]);
    else
        number(&w, k);
    if (w.overflow)
        return tilec_error(ctx, TILEC_E_UNSUPPORTED, "TILEC-AOT02", tilec_no_loc(),
                           "'@%s' needs more than %zu programs (helper kernels) in one object",
                           strbuf_cstr(&k->name), sizeof w.nodes / sizeof w.nodes[0]);
    aot_put_u32(out, AOT_FORMAT);
    aot_put_str(out, simd_aot_features(a));
    aot_put_str(out, tilec_version());
    aot_put_str(out, simd_aot_cpu(a));
    aot_put_dims(out, k->dims, k->dim_count);
    aot_put_u32(out, k->bucket_count);
    for (uint32_t b = 0; b < k->bucket_count; b++) {
        for (uint32_t i = 0; i < k->dim_count; i++) {
            aot_put_u64(out, (uint64_t)k->buckets[b].lo[i]);
            aot_put_u64(out, (uint64_t)k->buckets[b].hi[i]);
        }
        aot_put_u32(out, index_of(&w, k->variants[k->bucket_variant[b]]));
    }
    aot_put_u32(out, w.count);
    for (uint32_t i = 0; i < w.count; i++) put_node(&w, w.nodes[i]);
    return out->failed ? tilec_error(ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory describing the object")
                       : TILEC_OK;
}

/* ---- the header ---- */

const char *aot_c_type(tir_scalar s) {
    switch (s) {
    case TIR_BOOL: return "bool";
    case TIR_I8: return "int8_t";
    case TIR_U8: return "uint8_t";
    case TIR_I16: return "int16_t";
    case TIR_U16: return "uint16_t";
    case TIR_I32: return "int32_t";
    case TIR_U32: return "uint32_t";
    case TIR_I64: return "int64_t";
    case TIR_U64: return "uint64_t";
    case TIR_F32: return "float";
    case TIR_F16:
    case TIR_BF16: return "uint16_t"; /* the bits */
    default: return "double";
    }
}

/* A read-only parameter of one element (a scalar parameter, `%a: f32`) is
 * passed by value. */
static bool by_value(const tir_value *v) {
    uint64_t volume = 0;
    return tir_value_read_only(v) && tir_space_volume(tir_type_space(tir_value_type(v)), &volume) && volume == 1;
}

static bool c_identifier(const char *s) {
    if (!s || !(isalpha((unsigned char)*s) || *s == '_')) return false;
    for (const char *c = s; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_') return false;
    return strlen(s) < 200;
}

static bool c_keyword(const char *s) {
    /* C17's, and C23's without a leading underscore */
    static const char *const words[] = {
        "alignas", "alignof", "auto", "bool", "break", "case", "char", "const", "constexpr", "continue",
        "default", "do", "double", "else", "enum", "extern", "false", "float", "for", "goto", "if", "inline",
        "int", "long", "nullptr", "register", "restrict", "return", "short", "signed", "sizeof", "static",
        "static_assert", "struct", "switch", "thread_local", "true", "typedef", "typeof", "typeof_unqual",
        "union", "unsigned", "void", "volatile", "while",
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (!strcmp(s, words[i])) return true;
    return false;
}

bool aot_c_name(const char *s) { return c_identifier(s) && !c_keyword(s); }

/* Why `symbol` cannot name the entry points (NULL: it can).  SYMBOL and
 * SYMBOL`suffix` become global symbols of every program the object is
 * linked into, so besides being a C identifier and no keyword the name must
 * collide with nothing there: not a name C reserves (a leading underscore)
 * nor main; not in the namespaces of the runtime library and of SLEEF (the
 * object calls into both); and neither name defined by a library this
 * process has loaded — the C and math libraries above all: an object
 * defining `free` would replace libc's for the whole program.  (A library
 * this process does not load is not seen: docs/aot.md.) */
const char *aot_symbol_problem(const char *symbol, const char *suffix, char *why, size_t size) {
    if (!aot_c_name(symbol)) return "is not a C identifier for the entry points";
    if (symbol[0] == '_') return "is reserved by C (a leading underscore)";
    if (!strcmp(symbol, "main")) return "is the program's main";
    static const char *const prefixes[] = {"tilec_", "TILEC_", "tir_", "TIR_", "Sleef_"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (!strncmp(symbol, prefixes[i], strlen(prefixes[i])))
            return "is in the runtime library's namespace (tilec_, tir_) or SLEEF's (Sleef_)";
    char suffixed[256];
    snprintf(suffixed, sizeof suffixed, "%s%s", symbol, suffix);
    const char *names[] = {symbol, suffixed}, *taken = NULL;
    void *loaded = dlopen(NULL, RTLD_LAZY); /* this program and every library it loaded */
    for (size_t i = 0; loaded && !taken && i < 2; i++)
        if (dlsym(loaded, names[i])) taken = names[i];
    if (loaded) dlclose(loaded);
    if (!taken) return NULL;
    snprintf(why, size,
             "would define %s, a function or variable of a library already (the C or math library, ...): the "
             "object would replace it in every program it is linked into",
             taken);
    return why;
}

/* The parameter's name in C ("argI" when it has none that can be one). */
static const char *param_name(const tir_value *v, char buf[32]) {
    if (aot_c_name(tir_value_name(v))) return tir_value_name(v);
    snprintf(buf, 32, "arg%zu", tir_value_index(v));
    return buf;
}

static void param_decl(strbuf *h, const tir_value *v, bool with_name) {
    const char *type = aot_c_type(tir_type_elem(tir_value_type(v)));
    if (by_value(v)) strbuf_printf(h, "%s", type);
    else strbuf_printf(h, "%s%s *", tir_value_read_only(v) ? "const " : "", type);
    char buf[32];
    if (with_name) strbuf_printf(h, "%s%s", by_value(v) ? " " : "", param_name(v, buf));
}

void aot_header_open(strbuf *h, const char *symbol) {
    char guard[160];
    size_t n = 0;
    for (const char *c = symbol; *c && n + 10 < sizeof guard; c++) guard[n++] = (char)toupper((unsigned char)*c);
    memcpy(guard + n, "_TILEC_H", 9);
    strbuf_printf(h, "#ifndef %s\n#define %s\n\n#include <tilec/aot.h>\n\n#include <stdbool.h>\n#include <stddef.h>\n"
                     "#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n",
                  guard, guard);
}

void aot_header_close(strbuf *h) { strbuf_append(h, "\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n"); }

static void write_header(strbuf *h, const tilec_kernel *k, const tir_func *f, const char *symbol, const simd_aot *a,
                         const char *source) {
    strbuf_printf(h, "/* %s.h — generated by tilec %s (`tilec compile`, docs/aot.md); do not edit.\n", symbol,
                  tilec_version());
    if (source) strbuf_printf(h, " * Source: %s\n", source);
    strbuf_printf(h, " * Kernel '@%s'", tir_func_name(f));
    for (size_t i = 0; i < tir_func_shape_param_count(f); i++) {
        int64_t value;
        const char *name = tir_func_shape_param(f, i, &value);
        const tir_form *form = f->shape_params[i].form; /* a runtime size, or a form of them */
        strbuf_printf(h, "%s%s", i ? ", " : " with ", name);
        if (form && form->kind == TIR_FORM_SYM && !strcmp(form->sym->name, name))
            strbuf_printf(h, ": %lld..%lld", (long long)form->sym->lo, (long long)form->sym->hi);
        else if (form) strbuf_append(h, "="), tir_form_print(h, form);
        else strbuf_printf(h, "=%lld", (long long)value);
    }
    strbuf_printf(h, "; target %s, W=%u, planned for %u workers: %s.\n", simd_aot_cpu(a), tilec_kernel_width(k),
                  k->workers, strbuf_cstr(&k->plan));
    strbuf_printf(h, " * Link the object with the runtime library: cc … %s.o $(pkg-config --libs tilec-rt). */\n",
                  symbol);
    aot_header_open(h, symbol);
    strbuf_printf(h, "/* Parameters, in order (sizes checked by %s_dispatch; %s trusts them):\n", symbol, symbol);
    for (size_t i = 0; i < tir_func_param_count(f); i++) {
        const tir_value *v = tir_func_param(f, i);
        const tir_space *sp = tir_type_space(tir_value_type(v));
        char buf[32];
        strbuf_printf(h, " *   %-10s %s[", param_name(v, buf),
                      tir_scalar_name(tir_type_elem(tir_value_type(v))));
        for (size_t d = 0; d < tir_space_rank(sp); d++) {
            if (d) strbuf_append(h, ", ");
            tir_extent_print(h, f->module, tir_space_extent(sp, d));
        }
        strbuf_printf(h, "]  %s, ", by_value(v) ? "by value" : tir_value_read_only(v) ? "read" : "written");
        if (tir_space_is_static(sp)) strbuf_printf(h, "%llu bytes\n", (unsigned long long)k->params[i].min_bytes);
        else strbuf_append(h, "its bytes at the runtime sizes\n");
    }
    for (uint32_t i = 0; i < k->dim_count; i++)
        strbuf_printf(h, "%s%s in %lld..%lld", i ? ", " : " * Runtime sizes (int64_t), after the parameters: ",
                      k->dims[i].name, (long long)k->dims[i].lo, (long long)k->dims[i].hi);
    if (k->dim_count) strbuf_append(h, "\n");
    strbuf_printf(h, " */\n\n/* Runs '@%s' on the default runtime (tilec_aot_default_runtime): 0, or a\n"
                     " * tilec_status whose message tilec_aot_last_error() returns. */\nint %s(",
                  tir_func_name(f), symbol);
    for (size_t i = 0; i < tir_func_param_count(f); i++) {
        if (i) strbuf_append(h, ", ");
        param_decl(h, tir_func_param(f, i), true);
    }
    for (uint32_t i = 0; i < k->dim_count; i++) { /* a size's name, or dimI when it cannot be one in C */
        strbuf_printf(h, "%sint64_t ", i || tir_func_param_count(f) ? ", " : "");
        if (aot_c_name(k->dims[i].name)) strbuf_append(h, k->dims[i].name);
        else strbuf_printf(h, "dim%u", i);
    }
    strbuf_printf(h, "%s);\n\n/* The same on checked buffers (tilec_buffer, parameter order)%s\n"
                     " * on rt (NULL: the default runtime), diagnostics into ctx (NULL: the calling\n"
                     " * thread's). */\n"
                     "tilec_status %s_dispatch(tilec_context *ctx, tilec_runtime *rt, size_t n, const tilec_buffer "
                     "*args%s);\n",
                  tir_func_param_count(f) || k->dim_count ? "" : "void",
                  k->dim_count ? " and the runtime\n * sizes (dims[0..n_dims), in their order)" : "", symbol,
                  k->dim_count ? ", size_t n_dims, const int64_t *dims" : "");
}

void aot_compile_options(const simd_aot *a, tilec_compile_options *o) {
    if (!o->width) o->width = simd_aot_width(a);
    o->runtime = NULL;
    o->capture_ir = o->capture_asm = false;
}

/* ---- the driver ---- */

tilec_status aot_hand_over(tilec_context *ctx, const strbuf *object, tir_write_fn write_object, void *object_user,
                           const strbuf *header, tir_write_fn write_header_text, void *header_user) {
    if (object->failed || header->failed)
        return tilec_error(ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory holding the object");
    tilec_status st = write_object(object_user, object->data, object->len);
    return !st && write_header_text ? write_header_text(header_user, header->data, header->len) : st;
}

static tilec_status entry_points(tilec_context *ctx, const tilec_kernel *k, const tir_func *f, const char *symbol,
                                 const strbuf *blob, simd_aot *a, strbuf *object) {
    size_t n = tir_func_param_count(f);
    simd_aot_param *params = tilec_alloc(ctx, (n ? n : 1) * sizeof *params);
    if (!params) return tilec_error(ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory");
    for (size_t i = 0; i < n; i++)
        params[i] = (simd_aot_param){k->params[i].elem, by_value(tir_func_param(f, i)), k->params[i].min_bytes};
    simd_aot_entry_points ep = {symbol, AOT_MAGIC, blob->data, blob->len, params, n, k->dim_count, false};
    tilec_status st = simd_aot_finish(a, &ep, object);
    tilec_free(ctx, params);
    return st;
}

tilec_status tilec_compile_aot(tilec_context *ctx, const tir_func *f, const tilec_compile_options *options,
                               const tilec_aot_options *aot, tir_write_fn write_object, void *object_user,
                               tir_write_fn write_header_text, void *header_user) {
    if (!ctx || !f || !write_object)
        return tilec_error(ctx, TILEC_E_ARG, "TILEC-A01", tilec_no_loc(), "tilec_compile_aot: NULL argument");
    tilec_aot_options ao = aot ? *aot : (tilec_aot_options){0};
    const char *symbol = ao.symbol ? ao.symbol : tir_func_name(f);
    char why[512];
    const char *problem = aot_symbol_problem(symbol, "_dispatch", why, sizeof why);
    if (problem)
        return tilec_error(ctx, TILEC_E_ARG, "TILEC-AOT01", tilec_no_loc(), "'%s' %s (give another with --name)",
                           symbol, problem);
    tilec_compile_options o = options ? *options : tilec_compile_options_default();
    simd_aot *a;
    tilec_status st = simd_aot_begin(ctx, ao.cpu, &a);
    if (st) return st;
    aot_compile_options(a, &o);
    tilec_kernel *k = NULL;
    st = pipeline_compile(ctx, f, &o, a, &k);
    strbuf blob, object, header;
    strbuf_init(&blob, ctx);
    strbuf_init(&object, ctx);
    strbuf_init(&header, ctx);
    if (!st) st = aot_write_kernel_blob(ctx, k, a, &blob);
    if (!st) st = entry_points(ctx, k, f, symbol, &blob, a, &object);
    if (!st && write_header_text) {
        write_header(&header, k, f, symbol, a, ao.source);
        aot_header_close(&header);
    }
    if (!st) st = aot_hand_over(ctx, &object, write_object, object_user, &header, write_header_text, header_user);
    strbuf_free(&blob);
    strbuf_free(&object);
    strbuf_free(&header);
    tilec_kernel_destroy(k);
    simd_aot_destroy(a);
    return st;
}
