/* The XIR text form: every fixture in tests/xir/ is canonical (prints back to
 * its own text, comments aside) and a fixed point of parse+print; modules made
 * with the builder (loops with PHI back-edges, diamonds, allocas, buffer ops,
 * every opcode, casts, special registers, every constant spelling, awkward
 * names) round-trip; parse errors carry their code and file:line:col; mutated
 * input never crashes the parser; allocation failures are reported. */
#include "examples_util.h"
#include "xir_test.h"

#include <math.h>
#include <stdlib.h>

/* text must reparse to a module that verifies and prints to the same text */
static void check_fixed_point(const char *what, const char *text) {
    xir_module *m = NULL;
    tilec_status st = xir_parse(ctx, text, strlen(text), what, &m);
    CHECK_MSG(st == TILEC_OK, "%s: printed text does not parse:\n%s", what, text);
    if (!m) {
        tilec_diag_print(ctx, stderr);
        return;
    }
    CHECK_MSG(verifies(m), "%s: the reparsed module does not verify", what);
    char *again = print_text(m);
    CHECK_MSG(again && !strcmp(again, text), "%s: not a fixed point\n--- first\n%s--- second\n%s", what, text,
              again ? again : "(null)");
    free(again);
    xir_module_destroy(m);
}

/* Verifies m, prints it and checks the fixed point; returns the text. */
static char *check_roundtrip(const char *what, const xir_module *m) {
    CHECK_MSG(verifies(m), "%s: the module does not verify", what);
    char *text = print_text(m);
    CHECK_MSG(text != NULL, "%s: printing failed", what);
    if (text) check_fixed_point(what, text);
    return text;
}

/* ---- fixtures ---- */

/* The text without its comment lines. */
static char *strip_comments(const char *text) {
    char *out = malloc(strlen(text) + 1), *o = out;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) + 1 : strlen(line);
        if (strncmp(line, "//", 2)) memcpy(o, line, n), o += n;
        line += n;
    }
    *o = '\0';
    return out;
}

/* One fixture parses, and prints exactly as written (comments aside). */
static bool check_fixture(const char *path, const char *name, const char *text, size_t len, void *env) {
    (void)path, (void)env;
    xir_module *m = NULL;
    CHECK_MSG(xir_parse(ctx, text, len, name, &m) == TILEC_OK, "%s does not parse", name);
    if (m) {
        char *printed = check_roundtrip(name, m);
        char *expected = strip_comments(text);
        CHECK_MSG(printed && !strcmp(printed, expected), "%s is not canonical; it prints as\n%s", name,
                  printed ? printed : "(null)");
        free(expected);
        free(printed);
        xir_module_destroy(m);
    } else {
        tilec_diag_print(ctx, stderr);
    }
    return true;
}

static void test_fixtures(void) {
    int count = for_each_source(TILEC_SOURCE_DIR "/tests/xir", ".xir", check_fixture, NULL);
    CHECK(count >= 5);
}

/* ---- builder-made modules ---- */

/* A kernel using every instruction kind, every opcode, casts, every special
 * register, a diamond and a loop with PHI back-edges. */
static xir_module *build_everything(void) {
    xir_module *m = xir_module_create(ctx);
    xir_func *f = xir_func_new(m, "everything");
    f->block_size = 256;
    xir_value *A = xir_func_add_buffer(f, "A", TIR_F32), *B = xir_func_add_buffer(f, "B", TIR_I32);
    xir_value *C = xir_func_add_buffer(f, NULL, TIR_U64);
    xir_block *entry = xir_block_new(f, "entry"), *then = xir_block_new(f, NULL), *join = xir_block_new(f, "join");
    xir_block *header = xir_block_new(f, "loop"), *body = xir_block_new(f, NULL), *exit = xir_block_new(f, "exit");
    xir_builder b = {m, f, entry};
    /* specials and casts */
    xir_value *id = xir_build_cast(&b, xir_special_value(m, XIR_SPECIAL_DISPATCH_ID), TIR_U64);
    xir_value *u32sum = xir_special_value(m, XIR_SPECIAL_WARP_LANE_ID);
    for (xir_special s = XIR_SPECIAL_BLOCK_ID; s < XIR_SPECIAL_COUNT; s++)
        u32sum = xir_build_binary(&b, XIR_OP_ADD, u32sum, xir_special_value(m, s));
    xir_value *x = xir_build_buffer_read(&b, A, id);
    xir_value *x64 = xir_build_cast(&b, x, TIR_F64);
    xir_value *n = xir_build_buffer_read(&b, B, id);
    xir_value *n8 = xir_build_cast(&b, n, TIR_U8);
    /* every opcode, on types of its class */
    for (xir_arith_op op = XIR_OP_ADD; op < XIR_OP_COUNT; op++) {
        switch (xir_arith_class(op)) {
        case XIR_OPC_NUMERIC:
            xir_build_arith(&b, op, x, x, NULL);
            xir_build_arith(&b, op, n, xir_const_int(m, TIR_I32, -3), NULL);
            xir_build_arith(&b, op, n8, xir_const_uint(m, TIR_U8, 200), NULL);
            break;
        case XIR_OPC_INTEGER:
            xir_build_arith(&b, op, n, xir_const_int(m, TIR_I32, 5), NULL);
            xir_build_arith(&b, op, id, xir_const_uint(m, TIR_U64, 3), NULL);
            break;
        case XIR_OPC_FLOAT: /* unary ones ignore the extra operands; fma takes three */
            xir_build_arith(&b, op, x, x, x);
            xir_build_arith(&b, op, x64, x64, x64);
            break;
        case XIR_OPC_BITWISE:
            xir_build_arith(&b, op, u32sum, xir_const_uint(m, TIR_U32, 0xff00ff00u), NULL);
            xir_build_arith(&b, op, xir_const_bool(m, true), xir_build_binary(&b, XIR_OP_LT, x, x), NULL);
            break;
        case XIR_OPC_COMPARE:
            xir_build_arith(&b, op, x64, xir_const_float(m, TIR_F64, -1.25), NULL);
            xir_build_arith(&b, op, xir_build_cast(&b, n, TIR_I8), xir_const_int(m, TIR_I8, -128), NULL);
            break;
        case XIR_OPC_SELECT: break;
        case XIR_OPC_DOT:
            xir_build_arith(&b, op, op == XIR_OP_DOT_BF16X2 ? x : n, u32sum, xir_const_uint(m, TIR_U32, 0x3f80bf80u));
            break;
        }
    }
    xir_value *positive = xir_build_binary(&b, XIR_OP_GT, x, xir_const_zero(m, TIR_F32));
    xir_value *relu = xir_build_select(&b, positive, x, xir_const_zero(m, TIR_F32));
    xir_value *bits = xir_build_bitcast(&b, relu, TIR_U32);
    xir_value *back = xir_build_bitcast(&b, bits, TIR_F32);
    xir_value *tile = xir_build_alloca(&b, TIR_F32, 4);
    xir_build_store(&b, xir_build_gep(&b, tile, xir_const_int(m, TIR_I64, 0)), back);
    xir_build_buffer_write(&b, C, id, xir_build_buffer_address(&b, C));
    xir_build_cond_br(&b, positive, then, join);
    /* diamond (a triangle: entry -> then -> join, entry -> join) */
    xir_builder_at_end(&b, then);
    xir_value *shuffled = xir_build_warp_read_lane(&b, relu, xir_const_uint(m, TIR_U32, 3));
    xir_build_warp_sync(&b);
    xir_build_br(&b, join);
    xir_builder_at_end(&b, join);
    xir_inst *merged = xir_build_phi(&b, xir_type_scalar(m, TIR_F32));
    xir_phi_add_incoming(merged, shuffled, then);
    xir_phi_add_incoming(merged, xir_const_float(m, TIR_F32, 0.5), entry);
    xir_build_br(&b, header);
    /* loop: header{phis, compare, cond_br} -> body -> header, header -> exit */
    xir_builder_at_end(&b, header);
    xir_inst *i = xir_build_phi(&b, xir_type_scalar(m, TIR_I64));
    xir_inst *acc = xir_build_phi(&b, xir_type_scalar(m, TIR_F32));
    xir_value *more = xir_build_binary(&b, XIR_OP_LT, &i->value, xir_const_int(m, TIR_I64, 4));
    xir_build_cond_br(&b, more, body, exit);
    xir_builder_at_end(&b, body);
    xir_value *slot = xir_build_load(&b, xir_build_gep(&b, tile, &i->value));
    xir_value *acc_next = xir_build_binary(&b, XIR_OP_ADD, &acc->value, slot);
    xir_value *i_next = xir_build_binary(&b, XIR_OP_ADD, &i->value, xir_const_int(m, TIR_I64, 1));
    xir_build_br(&b, header);
    xir_phi_add_incoming(i, xir_const_int(m, TIR_I64, 0), join);
    xir_phi_add_incoming(i, i_next, body);
    xir_phi_add_incoming(acc, &merged->value, join);
    xir_phi_add_incoming(acc, acc_next, body);
    xir_builder_at_end(&b, exit);
    xir_build_buffer_write(&b, A, id, &acc->value);
    xir_build_fault(&b, xir_const_int(m, TIR_U32, 7), xir_const_int(m, TIR_I64, -3));
    xir_build_ret(&b);
    CHECK(!xir_module_failed(m));
    return m;
}

static size_t count_kind(const xir_func *f, xir_inst_kind kind) {
    size_t n = 0;
    for (const xir_block *b = f->first; b; b = b->next)
        for (const xir_inst *inst = b->first; inst; inst = inst->next) n += inst->kind == kind;
    return n;
}

static void test_builder_roundtrip(void) {
    xir_module *m = build_everything();
    char *text = check_roundtrip("everything", m);
    CHECK(text != NULL);
    if (text) {
        /* spellings */
        CHECK_STR_CONTAINS(text,
                           "kernel @everything(%A: buffer<f32>, %B: buffer<i32>, %0: buffer<u64>) block_size=256 {");
        CHECK_STR_CONTAINS(text, "^entry:\n  %1 = cast dispatch_id to u64\n");
        CHECK_STR_CONTAINS(text, "add warp_lane_id, block_id : u32");
        CHECK_STR_CONTAINS(text, "dispatch_size");
        CHECK_STR_CONTAINS(text, "warp_size : u32");
        CHECK_STR_CONTAINS(text, "= alloca array<f32, 4>\n");
        CHECK_STR_CONTAINS(text, "= gep %");
        CHECK_STR_CONTAINS(text, ", i64 0 : ptr<f32>\n");
        CHECK_STR_CONTAINS(text, "= buffer_address %0\n");
        CHECK_STR_CONTAINS(text, "  fault u32 7, i64 -3\n");
        CHECK_STR_CONTAINS(text, ", u32 3 : f32\n");
        CHECK_STR_CONTAINS(text, "cond_br %");
        CHECK_STR_CONTAINS(text, ", ^bb0, ^join\n^bb0:\n");
        CHECK_STR_CONTAINS(text, "= phi f32 [%");
        CHECK_STR_CONTAINS(text, ", ^bb0], [f32 0.5, ^entry]\n");
        CHECK_STR_CONTAINS(text, "= phi i64 [i64 0, ^join], [%");
        CHECK_STR_CONTAINS(text, ", ^bb1]\n");
        CHECK_STR_CONTAINS(text, "= lt %");
        CHECK_STR_CONTAINS(text, ", f64 -1.25\n");
        CHECK_STR_CONTAINS(text, ", i8 -128\n");
        CHECK_STR_CONTAINS(text, ", u32 4278255360 : u32\n");
        CHECK_STR_CONTAINS(text, "= not bool true : bool\n");
        CHECK_STR_CONTAINS(text, "= bitcast %");
        CHECK_STR_CONTAINS(text, " to u32\n");
        CHECK_STR_CONTAINS(text, "\n  warp_sync\n");
        for (xir_arith_op op = XIR_OP_ADD; op < XIR_OP_COUNT; op++) {
            char spelled[32];
            snprintf(spelled, sizeof spelled, " = %s ", xir_arith_name(op));
            CHECK_STR_CONTAINS(text, spelled);
        }
        /* the parsed module has the same structure */
        xir_module *again = parse_ok(text);
        if (again) {
            const xir_func *f = m->funcs.data[0], *g = again->funcs.data[0];
            CHECK(g->block_size == 256 && g->args.len == 3 && g->next_block_id == f->next_block_id);
            for (xir_inst_kind k = XIR_INST_ARITH; k < XIR_INST_KIND_COUNT; k++)
                CHECK_MSG(count_kind(f, k) == count_kind(g, k) && count_kind(f, k) > 0, "kind %s",
                          xir_inst_kind_name(k));
            /* the loop header's PHI takes its back-edge value from the body */
            const xir_block *header = g->first->next->next->next;
            CHECK(header->name && !strcmp(header->name, "loop"));
            const xir_inst *phi = header->first;
            CHECK(phi->kind == XIR_INST_PHI && phi->operand_count == 2);
            CHECK(phi->incoming[1] == header->next && xir_operand(phi, 1)->kind == XIR_VALUE_INST);
            CHECK(((xir_inst *)xir_operand(phi, 1))->parent == header->next);
            CHECK(phi->value.use_count == 3); /* compare, gep, increment */
            xir_module_destroy(again);
        }
    }
    free(text);
    xir_module_destroy(m);
}

/* The text states select's operands as (condition, if_true, if_false). */
static void test_select_order(void) {
    xir_module *m = parse_ok("kernel @k(%o: buffer<i32>) block_size=1 {\n^entry:\n"
                             "  %c = eq warp_lane_id, u32 0\n"
                             "  %s = select %c, i32 7, i32 9 : i32\n"
                             "  buffer_write %o, u64 0, %s\n  ret\n}\n");
    if (!m) return;
    const xir_inst *s = m->funcs.data[0]->first->first->next;
    CHECK(s->kind == XIR_INST_ARITH && s->op == XIR_OP_SELECT);
    CHECK(xir_operand(s, 0) == &s->prev->value);
    CHECK(xir_operand(s, 1)->constant.i == 7 && xir_operand(s, 2)->constant.i == 9);
    xir_module_destroy(m);
}

/* Names the printer must rewrite: duplicates, invalid characters, the
 * numbered forms; unnamed values are numbered in order. */
static void test_names(void) {
    xir_module *m = xir_module_create(ctx);
    xir_func *f = xir_func_new(m, "names");
    xir_value *o = xir_func_add_buffer(f, "7", TIR_I32);
    xir_block *first = xir_block_new(f, "bb1"), *second = xir_block_new(f, "x"), *third = xir_block_new(f, "x");
    xir_block *fourth = xir_block_new(f, "a b");
    xir_builder b = {m, f, first};
    xir_value *v1 = xir_build_cast(&b, xir_special_value(m, XIR_SPECIAL_BLOCK_ID), TIR_I32);
    v1->name = "x";
    xir_value *v2 = xir_build_binary(&b, XIR_OP_ADD, v1, v1);
    v2->name = "x";
    xir_value *v3 = xir_build_binary(&b, XIR_OP_MUL, v2, v1);
    v3->name = "a-b";
    xir_value *v4 = xir_build_binary(&b, XIR_OP_SUB, v3, v2);
    v4->name = "x.1";
    xir_build_br(&b, second);
    xir_builder_at_end(&b, second);
    xir_build_br(&b, third);
    xir_builder_at_end(&b, third);
    xir_build_br(&b, fourth);
    xir_builder_at_end(&b, fourth);
    xir_build_buffer_write(&b, o, xir_const_uint(m, TIR_U64, 0), v4);
    xir_build_ret(&b);
    char *text = check_roundtrip("names", m);
    CHECK(text && !strcmp(text, "kernel @names(%0: buffer<i32>) block_size=64 {\n"
                                "^bb0:\n"
                                "  %x = cast block_id to i32\n"
                                "  %1 = add %x, %x : i32\n"
                                "  %2 = mul %1, %x : i32\n"
                                "  %x.1 = sub %2, %1 : i32\n"
                                "  br ^x\n"
                                "^x:\n"
                                "  br ^bb1\n"
                                "^bb1:\n"
                                "  br ^bb2\n"
                                "^bb2:\n"
                                "  buffer_write %0, u64 0, %x.1\n"
                                "  ret\n"
                                "}\n"));
    free(text);
    xir_module_destroy(m);
}

/* Invalid modules print to text that parses back to the same structure, so
 * the verifier can judge either. */
static void test_invalid_roundtrip(void) {
    xir_module *m = xir_module_create(ctx);
    xir_func *f = xir_func_new(m, "bad");
    f->block_size = 0;
    xir_block *entry = xir_block_new(f, "entry"), *open = xir_block_new(f, "open");
    xir_builder b = {m, f, entry};
    xir_value *one = xir_const_float(m, TIR_F32, 1.0);
    xir_value *sum = xir_build_binary(&b, XIR_OP_ADD, one, xir_const_int(m, TIR_I32, 2));
    xir_inst_add_operand(xir_value_inst(sum), one); /* three operands */
    xir_inst *cast = xir_inst_new(f, XIR_INST_CAST, xir_type_scalar(m, TIR_U8)); /* no operand */
    xir_inst_insert_end(cast, entry);
    xir_build_phi(&b, xir_type_array(m, TIR_F32, 2)); /* placed first, without incoming values */
    xir_inst *ret = xir_inst_new(f, XIR_INST_RET, xir_type_scalar(m, TIR_I64));
    xir_inst_add_operand(ret, sum);
    xir_inst_insert_end(ret, entry);
    xir_build_br(&b, open);
    xir_builder_at_end(&b, open);
    xir_build_load(&b, &cast->value);
    CHECK(!xir_module_failed(m));
    CHECK(xir_verify(ctx, m) == TILEC_E_VERIFY);
    tilec_diag_clear(ctx);
    char *text = print_text(m);
    CHECK(text && !strcmp(text, "kernel @bad() block_size=0 {\n"
                                "^entry:\n"
                                "  %0 = phi array<f32, 2>\n"
                                "  %1 = add f32 1.0, i32 2, f32 1.0 : f32\n"
                                "  %2 = cast to u8\n"
                                "  ret %1\n"
                                "  br ^open\n"
                                "^open:\n"
                                "  %3 = load %2 : u8\n"
                                "}\n"));
    xir_module *again = text ? parse_ok(text) : NULL;
    char *reprinted = again ? print_text(again) : NULL;
    CHECK(reprinted && !strcmp(reprinted, text));
    free(reprinted);
    free(text);
    xir_module_destroy(again);
    xir_module_destroy(m);
}

/* Floats read back bit-exactly, in the shortest spelling. */
static void test_float_spellings(void) {
    static const struct {
        tir_scalar type;
        double value;
        const char *text;
    } cases[] = {
        {TIR_F32, 0.1, "f32 0.1"},       {TIR_F64, 0.1, "f64 0.1"},
        {TIR_F32, 100.0, "f32 100.0"},   {TIR_F64, -0.0, "f64 -0.0"},
        {TIR_F32, 1e30, "f32 1e+30"},    {TIR_F64, 1e-5, "f64 1e-05"},
        {TIR_F32, 16777217.0, "f32 16777216.0"}, /* rounded to f32 when made */
        {TIR_F64, 4503599627370497.0, "f64 4503599627370497.0"},
        {TIR_F32, 1.0 / 3.0, "f32 0.33333334"},
        {TIR_F64, 1.0 / 3.0, "f64 0.3333333333333333"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        xir_module *m = xir_module_create(ctx);
        xir_func *f = xir_func_new(m, "k");
        xir_value *o = xir_func_add_buffer(f, "o", cases[k].type);
        xir_builder b = {m, f, xir_block_new(f, "entry")};
        xir_value *c = xir_const_float(m, cases[k].type, cases[k].value);
        xir_build_buffer_write(&b, o, xir_const_uint(m, TIR_U64, 0), c);
        xir_build_ret(&b);
        char *text = check_roundtrip("float", m);
        CHECK_STR_CONTAINS(text, cases[k].text);
        xir_module *again = text ? parse_ok(text) : NULL;
        if (again) {
            const xir_value *d = xir_operand(again->funcs.data[0]->first->first, 2);
            CHECK_MSG(d->constant.u == c->constant.u, "%s does not read back exactly", cases[k].text);
        }
        xir_module_destroy(again);
        free(text);
        xir_module_destroy(m);
    }
}

/* ---- errors ---- */

static void test_parse_errors(void) {
    static const struct {
        const char *text, *code;
        uint32_t line, column;
    } cases[] = {
        {"kernel @k( block_size=64 {}", "XIR-P01", 1, 12},
        {"kern @k() block_size=64 {}", "XIR-P01", 1, 1},
        {"kernel @k() block_size=64 {\n^e:\n  %x = frob u32 1 : u32\n  ret\n}", "XIR-P02", 3, 8},
        {"kernel @k() block_size=64 {\n^e:\n  %x = arith u32 1 : u32\n  ret\n}", "XIR-P02", 3, 8},
        {"kernel @k() block_size=64 {\n^e:\n  %x = add %y, u32 1 : u32\n  ret\n}", "XIR-P03", 3, 12},
        {"kernel @k() block_size=64 {\n^e:\n  %x = add u32 1, u32 1 : u32\n  %x = add u32 1, u32 1 : u32\n  ret\n}",
         "XIR-P04", 4, 3},
        {"kernel @k() block_size=64 {\n^e:\n  br ^e\n^e:\n  ret\n}", "XIR-P04", 4, 1},
        {"kernel @k() block_size=64 {\n^e:\n  ret\n}\nkernel @k() block_size=64 {\n^e:\n  ret\n}", "XIR-P04", 5, 8},
        {"kernel @k(%a: buffer<f32>, %a: buffer<f32>) block_size=64 {\n^e:\n  ret\n}", "XIR-P04", 1, 28},
        {"kernel @k() block_size=64 {\n^e:\n  br ^nowhere\n}", "XIR-P05", 3, 6},
        {"kernel @k() block_size=64 {\n^e:\n  %x = add u32 1, u32 1 : f128\n  ret\n}", "XIR-P06", 3, 27},
        {"kernel @k(%a: f32) block_size=64 {\n^e:\n  ret\n}", "XIR-P06", 1, 15},
        {"kernel @k() block_size=64 {\n^e:\n  %x = add u8 256, u8 1 : u8\n  ret\n}", "XIR-P07", 3, 15},
        {"kernel @k() block_size=64 {\n^e:\n  %x = add i8 -129, i8 1 : i8\n  ret\n}", "XIR-P07", 3, 15},
        {"kernel @k() block_size=64 {\n^e:\n  %x = add u8 -1, u8 1 : u8\n  ret\n}", "XIR-P07", 3, 15},
        {"kernel @k() block_size=64 {\n^e:\n  %x = add f32 1.5x, f32 1.0 : f32\n  ret\n}", "XIR-P07", 3, 16},
        {"kernel @k() block_size=64 {\n^e:\n  %x = add f32 1e39, f32 1.0 : f32\n  ret\n}", "XIR-P07", 3, 16},
        {"kernel @k() block_size=64 {\n^e:\n  %x = add f32 nan:0x7f800001, f32 1.0 : f32\n  ret\n}", "XIR-P07", 3, 20},
        {"kernel @k() block_size=64 {\n^e:\n  %x = add f64 nan:0x3ff0000000000000, f64 1.0 : f64\n  ret\n}", "XIR-P07",
         3, 20},
        {"kernel @k() block_size=64 {\n^e:\n  %x = add i32 1.5, i32 1 : i32\n  ret\n}", "XIR-P07", 3, 16},
        {"kernel @k() block_size=4294967296 {\n^e:\n  ret\n}", "XIR-P07", 1, 24},
        {"kernel @k() block_size=64 {\n^e:\n  %x = add u32 1, u32 $ : u32\n  ret\n}", "XIR-P08", 3, 23},
        {"kernel @k() block_size=64 {\n^e:\n  ret\n", "XIR-P09", 4, 1},
        {"kernel @k() block_size=64 {\n  ret\n}", "XIR-P10", 2, 3},
        {"kernel @k() block_size=64 {\n^e:\n  add u32 1, u32 1 : u32\n  ret\n}", "XIR-P11", 3, 3},
        {"kernel @k() block_size=64 {\n^e:\n  %r = ret\n}", "XIR-P11", 3, 3},
        {"kernel @k() block_size=64 {\n^e:\n  %x = add lane_id, u32 1 : u32\n  ret\n}", "XIR-P12", 3, 12},
        {"kernel @k() block_size=64 {\n^e:\n  %x = add bool maybe, bool true : bool\n  ret\n}", "XIR-P01", 3, 17},
        {"kernel @k() block_size=64 {\n^e:\n  %x = phi f32 [f32 1.0 ^e]\n  ret\n}", "XIR-P01", 3, 25},
        {"kernel @k() block_size=64 {\n^e:\n  %x = alloca array<f32 4>\n  ret\n}", "XIR-P01", 3, 25},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tilec_diag_clear(ctx);
        xir_module *m = (xir_module *)1;
        tilec_status st = xir_parse(ctx, cases[k].text, strlen(cases[k].text), "bad.xir", &m);
        const tilec_diag *d = last_diag();
        CHECK_MSG(st == TILEC_E_PARSE && !m && tilec_diag_count(ctx) == 1, "case %zu: status %d", k, (int)st);
        if (!d) continue;
        CHECK_MSG(!strcmp(d->code, cases[k].code), "case %zu: code %s, expected %s (%s)", k, d->code, cases[k].code,
                  d->message);
        CHECK_MSG(d->loc.file && !strcmp(d->loc.file, "bad.xir") && d->loc.line == cases[k].line &&
                      d->loc.column == cases[k].column,
                  "case %zu: at %u:%u, expected %u:%u (%s)", k, (unsigned)d->loc.line, (unsigned)d->loc.column,
                  (unsigned)cases[k].line, (unsigned)cases[k].column, d->message);
    }
    tilec_diag_clear(ctx);
    xir_module *m = NULL;
    CHECK(xir_parse(ctx, NULL, 0, NULL, &m) == TILEC_E_ARG && !m && !strcmp(last_code(), "XIR-P00"));
    CHECK(xir_parse(ctx, "", 0, NULL, NULL) == TILEC_E_ARG);
    /* the empty text is the empty module */
    CHECK(xir_parse(ctx, "", 0, NULL, &m) == TILEC_OK && m && m->funcs.len == 0);
    xir_module_destroy(m);
    /* messages name what was found */
    tilec_diag_clear(ctx);
    const char *bad = "kernel @k() block_size=64 {\n^e:\n  br ^nowhere\n}";
    xir_parse(ctx, bad, strlen(bad), "f.xir", &m);
    const char *message = last_diag() ? last_diag()->message : "";
    CHECK_STR_CONTAINS(message, "unknown block '^nowhere'");
    tilec_diag_clear(ctx);
}

/* Mutated fixtures: the parser reports an error or builds a module that the
 * verifier and printer handle; nothing crashes. */
static void test_mutations(void) {
    size_t len;
    char *text = read_file(TILEC_SOURCE_DIR "/tests/xir/memory.xir", &len);
    CHECK(text != NULL);
    if (!text) return;
    static const char alphabet[] = "%^@:=,[]<>(){}-0123456789.xe abcdefghijklmnopqrstuvwxyz_\n/";
    uint64_t state = 0x9e3779b97f4a7c15ULL;
    char *buf = malloc(len + 16);
    int parsed = 0;
    for (int round = 0; round < 3000; round++) {
        memcpy(buf, text, len);
        size_t n = len;
        for (int edits = 1 + round % 4; edits > 0; edits--) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            size_t at = (size_t)(state >> 33) % n;
            char c = alphabet[(state >> 20) % (sizeof alphabet - 1)];
            switch ((state >> 10) % 3) {
            case 0: buf[at] = c; break;                                         /* replace */
            case 1: memmove(buf + at, buf + at + 1, n - at - 1), n--; break;    /* delete */
            default: memmove(buf + at + 1, buf + at, n - at), buf[at] = c, n++; /* insert */
            }
        }
        xir_module *m = NULL;
        tilec_status st = xir_parse(ctx, buf, n, "mutated.xir", &m);
        CHECK(st == TILEC_OK || st == TILEC_E_PARSE);
        CHECK((st == TILEC_OK) == (m != NULL));
        if (st != TILEC_OK) CHECK(tilec_diag_count(ctx) == 1 && last_diag()->loc.line > 0);
        if (m) {
            parsed++;
            tilec_status vs = xir_verify(ctx, m);
            CHECK(vs == TILEC_OK || vs == TILEC_E_VERIFY);
            free(print_text(m));
        }
        xir_module_destroy(m);
        tilec_diag_clear(ctx);
    }
    CHECK_MSG(parsed > 0 && parsed < 3000, "%d of 3000 mutants parse", parsed);
    free(buf);
    free(text);
}

/* ---- files and allocation failures ---- */

static void test_print_file(void) {
    size_t len;
    char *text = read_file(TILEC_SOURCE_DIR "/tests/xir/loop.xir", &len);
    xir_module *m = text ? parse_ok(text) : NULL;
    if (!m) {
        free(text);
        return;
    }
    FILE *f = tmpfile();
    CHECK(f && xir_print_file(m, f) == TILEC_OK);
    if (f) {
        rewind(f);
        char got[4096];
        size_t n = fread(got, 1, sizeof got - 1, f);
        got[n] = '\0';
        char *expected = print_text(m);
        CHECK(expected && !strcmp(got, expected));
        free(expected);
        fclose(f);
    }
    CHECK(xir_print_file(m, NULL) == TILEC_E_ARG && !strcmp(last_code(), "XIR-M02"));
    tilec_diag_clear(ctx);
    xir_module_destroy(m);
    free(text);
}

static void test_allocation_failures(void) {
    size_t len;
    char *text = read_file(TILEC_SOURCE_DIR "/tests/xir/memory.xir", &len);
    if (!text) return;
    bool finished = false;
    for (long n = 0; !finished && n < 100000; n++) {
        tilec_diag_clear(ctx);
        tilec_context_fail_allocation_after(ctx, n);
        xir_module *m = NULL;
        tilec_status st = xir_parse(ctx, text, len, "memory.xir", &m);
        strbuf s;
        strbuf_init(&s, ctx);
        if (st == TILEC_OK) st = xir_verify(ctx, m);
        if (st == TILEC_OK && !xir_print_to_strbuf(m, &s)) st = TILEC_E_NOMEM;
        tilec_context_fail_allocation_after(ctx, -1);
        finished = st == TILEC_OK;
        if (!finished) {
            CHECK_MSG(st == TILEC_E_NOMEM, "allocation %ld: status %d", n, (int)st);
            CHECK_MSG(tilec_diag_count(ctx) > 0 && !strcmp(last_code(), "XIR-M01"), "allocation %ld failed silently",
                      n);
        }
        strbuf_free(&s);
        xir_module_destroy(m);
    }
    CHECK(finished);
    tilec_diag_clear(ctx);
    free(text);
}

int main(void) {
    CHECK(tilec_context_create(NULL, &ctx) == TILEC_OK);
    test_fixtures();
    test_builder_roundtrip();
    test_select_order();
    test_names();
    test_invalid_roundtrip();
    test_float_spellings();
    test_parse_errors();
    test_mutations();
    test_print_file();
    test_allocation_failures();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
