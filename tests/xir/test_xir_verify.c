/* The XIR verifier: one or more negative cases per rule (XIR-V01..V25),
 * written as text where the text can state the violation and made by
 * corrupting built modules where it cannot (linkage, foreign values, use
 * lists); each must report exactly its code.  Messages name the kernel, the
 * block and the instruction as printed. */
#include "xir_test.h"
#include "xir/cfg.h"

#include <stdlib.h>

/* Verifies m and checks that it fails with diagnostics of `code` only, one of
 * them containing `message` (when not NULL). */
static void expect_only(const char *what, const xir_module *m, const char *code, const char *message) {
    tilec_diag_clear(ctx);
    tilec_status st = xir_verify(ctx, m);
    CHECK_MSG(st == TILEC_E_VERIFY, "%s: status %d, expected %s", what, (int)st, code);
    bool found = message == NULL;
    for (size_t i = 0; i < tilec_diag_count(ctx); i++) {
        const tilec_diag *d = tilec_diag_at(ctx, i);
        CHECK_MSG(!strcmp(d->code, code), "%s: unexpected %s: %s", what, d->code, d->message);
        if (message && strstr(d->message, message)) found = true;
    }
    CHECK_MSG(tilec_diag_count(ctx) > 0, "%s: no diagnostic", what);
    CHECK_MSG(found, "%s: no %s message contains '%s'", what, code, message ? message : "");
    tilec_diag_clear(ctx);
}

#define HEADER "kernel @k(%A: buffer<f32>, %I: buffer<i32>) block_size=64 {\n^entry:\n"

static const struct {
    const char *code, *text, *message;
} text_cases[] = {
    {"XIR-V02", "kernel @k() block_size=0 {\n^entry:\n  ret\n}", "block_size is 0"},
    {"XIR-V03", "kernel @k() block_size=64 {\n}", "no blocks"},
    {"XIR-V05", HEADER "  %x = add f32 1.0, f32 2.0 : f32\n}", "does not end with a terminator"},
    {"XIR-V05", HEADER "  cond_br bool true, ^b, ^c\n^b:\n^c:\n  ret\n}", "kernel @k, block ^b: the block is empty"},
    {"XIR-V06", HEADER "  ret\n  ret\n}", "'ret': a terminator before the end of the block"},
    {"XIR-V07", HEADER "  br ^b\n^b:\n  %x = add f32 1.0, f32 1.0 : f32\n  %p = phi f32 [f32 1.0, ^entry]\n  ret\n}",
     "'%p = phi f32 [f32 1.0, ^entry]': a PHI after a non-PHI"},
    {"XIR-V08", HEADER "  %c = eq warp_lane_id, u32 0\n  cond_br %c, ^entry, ^exit\n^exit:\n  ret\n}",
     "the entry block is the target of a branch"},
    {"XIR-V09", HEADER "  ret\n^dead:\n  ret\n}", "block ^dead: the block is unreachable"},
    {"XIR-V11",
     HEADER "  %c = eq warp_lane_id, u32 0\n  cond_br %c, ^a, ^b\n^a:\n  br ^b\n^b:\n"
            "  %p = phi f32 [f32 1.0, ^a]\n  ret\n}",
     "no incoming value for predecessor ^entry"},
    {"XIR-V11",
     HEADER "  %c = eq warp_lane_id, u32 0\n  cond_br %c, ^a, ^b\n^a:\n  br ^b\n^b:\n"
            "  %p = phi f32 [f32 1.0, ^a], [f32 2.0, ^entry], [f32 3.0, ^b]\n  br ^c\n^c:\n  ret\n}",
     "incoming block 2 (^b) is not a predecessor"},
    {"XIR-V11",
     HEADER "  %c = eq warp_lane_id, u32 0\n  cond_br %c, ^a, ^b\n^a:\n  br ^b\n^b:\n"
            "  %p = phi f32 [f32 1.0, ^a], [f32 2.0, ^entry], [f32 3.0, ^a]\n  ret\n}",
     "incoming block 2 (^a) is listed twice"},
    {"XIR-V12", HEADER "  %x = add f32 1.0 : f32\n  ret\n}", "has 1 operands, expected 2"},
    {"XIR-V12", HEADER "  %x = buffer_read %A : f32\n  ret\n}", "has 1 operands, expected 2"},
    {"XIR-V12", HEADER "  ret %A\n}", "has 1 operands, expected 0"},
    {"XIR-V15", HEADER "  %y = add %x, f32 1.0 : f32\n  %x = add f32 1.0, f32 2.0 : f32\n  ret\n}",
     "operand 0 (%x, defined in ^entry) does not dominate this use"},
    {"XIR-V15", HEADER "  %x = add %x, f32 1.0 : f32\n  ret\n}", "does not dominate this use"},
    {"XIR-V15",
     HEADER "  %c = eq warp_lane_id, u32 0\n  cond_br %c, ^a, ^b\n^a:\n  %v = add f32 1.0, f32 2.0 : f32\n  br ^b\n"
            "^b:\n  %w = add %v, f32 1.0 : f32\n  ret\n}",
     "'%w = add %v, f32 1.0 : f32': operand 0 (%v, defined in ^a) does not dominate this use"},
    {"XIR-V15",
     HEADER "  %c = eq warp_lane_id, u32 0\n  cond_br %c, ^a, ^b\n^a:\n  %v = add f32 1.0, f32 2.0 : f32\n  br ^b\n"
            "^b:\n  %p = phi f32 [%v, ^a], [%v, ^entry]\n  ret\n}",
     "operand 1 (%v, defined in ^a) does not dominate the end of incoming block ^entry"},
    {"XIR-V16", HEADER "  %x = add f32 1.0, f64 2.0 : f32\n  ret\n}",
     "kernel @k, block ^entry, '%x = add f32 1.0, f64 2.0 : f32': operand 1 (f64 2.0: f64) must have the type of the "
     "first value operand"},
    {"XIR-V16", HEADER "  %x = mod f32 1.0, f32 2.0 : f32\n  ret\n}", "operand 0 (f32 1.0: f32) must be an integer"},
    {"XIR-V16", HEADER "  %x = exp i32 1 : i32\n  ret\n}", "must be a float"},
    {"XIR-V16", HEADER "  %x = and f32 1.0, f32 1.0 : f32\n  ret\n}", "must be an integer or bool"},
    {"XIR-V16", HEADER "  %x = neg bool true : bool\n  ret\n}", "must be a number"},
    {"XIR-V16", HEADER "  %x = select i32 1, f32 1.0, f32 2.0 : f32\n  ret\n}", "must be bool (the condition"},
    {"XIR-V16", HEADER "  %x = select bool true, f32 1.0, i32 2 : f32\n  ret\n}", "operand 2"},
    {"XIR-V16", HEADER "  %b = buffer_address %A\n  %x = lt %A, %A\n  ret\n}", "operand 0 (%A: buffer<f32>)"},
    {"XIR-V17", HEADER "  %x = add f32 1.0, f32 2.0 : f64\n  ret\n}", "result type is f64, expected f32"},
    {"XIR-V17", HEADER "  %x = select bool true, f32 1.0, f32 2.0 : i32\n  ret\n}", "expected f32"},
    {"XIR-V17", HEADER "  %x = buffer_read %A, u64 0 : i32\n  ret\n}", "result type is i32, expected f32"},
    {"XIR-V17", HEADER "  %x = buffer_read %A, u64 0 : u32\n  ret\n}", "result type is u32, expected f32"}, /* a word of 4-byte elements */
    {"XIR-V17", HEADER "  %a = alloca array<i32, 4>\n  %p = gep %a, i32 0 : ptr<f32>\n  ret\n}",
     "result type is ptr<f32>, expected ptr<i32>"},
    {"XIR-V17", HEADER "  %a = alloca array<i32, 4>\n  %p = gep %a, i32 0 : ptr<i32>\n  %v = load %p : u32\n  ret\n}",
     "expected i32"},
    {"XIR-V17", HEADER "  %w = warp_read_lane f32 1.0, u32 0 : f64\n  ret\n}", "expected f32"},
    {"XIR-V18", HEADER "  %x = bitcast f32 1.0 to f64\n  ret\n}", "same size"},
    {"XIR-V18", HEADER "  %x = bitcast bool true to u8\n  ret\n}", "non-bool"},
    {"XIR-V18", HEADER "  %x = cast f32 1.0 to ptr<f32>\n  ret\n}", "target type must be a scalar"},
    {"XIR-V18", HEADER "  %x = cast %A to u64\n  ret\n}", "operand 0 (%A: buffer<f32>) must be a scalar"},
    {"XIR-V19", HEADER "  %a = alloca array<f32, 0>\n  ret\n}", "N >= 1"},
    {"XIR-V19", HEADER "  %a = alloca f32\n  ret\n}", "array<T, N>"},
    {"XIR-V20", HEADER "  %p = gep %A, i64 0 : ptr<f32>\n  ret\n}", "must be a local array"},
    {"XIR-V20", HEADER "  %a = alloca array<f32, 2>\n  %p = gep %a, f32 0.0 : ptr<f32>\n  ret\n}",
     "must be an integer index"},
    {"XIR-V21", HEADER "  %a = alloca array<f32, 2>\n  %v = load %a : f32\n  ret\n}", "must be a pointer"},
    {"XIR-V21", HEADER "  %a = alloca array<f32, 2>\n  %p = gep %a, u8 1 : ptr<f32>\n  store %p, i32 1\n  ret\n}",
     "operand 1 (i32 1: i32) must have the pointer's element type"},
    {"XIR-V22", HEADER "  %x = buffer_read %A, u32 0 : f32\n  ret\n}", "must be a u64 index"},
    {"XIR-V22", HEADER "  buffer_write %A, u64 0, i32 1\n  ret\n}", "must have the buffer's element type"},
    {"XIR-V22", HEADER "  %x = buffer_read f32 1.0, u64 0 : f32\n  ret\n}", "must be a buffer argument"},
    {"XIR-V22", HEADER "  %a = alloca array<f32, 2>\n  %x = buffer_address %a\n  ret\n}", "must be a buffer argument"},
    {"XIR-V23", HEADER "  %w = warp_read_lane f32 1.0, u64 0 : f32\n  ret\n}", "must be a u32 lane"},
    {"XIR-V23", HEADER "  %w = warp_read_lane %A, u32 0 : f32\n  ret\n}", "must be a scalar"},
    {"XIR-V24", HEADER "  cond_br i32 1, ^a, ^b\n^a:\n  ret\n^b:\n  ret\n}", "operand 0 (i32 1: i32) must be bool"},
    {"XIR-V25", HEADER "  br ^b\n^b:\n  %p = phi f32 [f64 1.0, ^entry]\n  ret\n}", "must have the PHI's type"},
    {"XIR-V25", HEADER "  %a = alloca array<f32, 2>\n  %q = gep %a, i32 0 : ptr<f32>\n  br ^b\n^b:\n"
                       "  %p = phi ptr<f32> [%q, ^entry]\n  ret\n}",
     "a PHI has a scalar type"},
};

static void test_text_cases(void) {
    for (size_t k = 0; k < sizeof text_cases / sizeof text_cases[0]; k++) {
        xir_module *m = parse_ok(text_cases[k].text);
        if (!m) continue;
        char what[32];
        snprintf(what, sizeof what, "text case %zu", k);
        expect_only(what, m, text_cases[k].code, text_cases[k].message);
        xir_module_destroy(m);
    }
}

/* ---- rules that text cannot break ---- */

/* kernel @NAME(%o: buffer<i32>) { ^entry: %x = add block_id, u32 1; buffer_write %o, u64 0, (cast %x); ret } */
typedef struct {
    xir_module *m;
    xir_func *f;
    xir_block *entry;
    xir_value *out;
    xir_inst *add, *cast, *write;
} small;

static small make_small(xir_module *m, const char *name) {
    small s = {.m = m};
    s.f = xir_func_new(m, name);
    s.out = xir_func_add_buffer(s.f, "o", TIR_I32);
    s.entry = xir_block_new(s.f, "entry");
    xir_builder b = {m, s.f, s.entry};
    s.add = xir_value_inst(xir_build_binary(&b, XIR_OP_ADD, xir_special_value(m, XIR_SPECIAL_BLOCK_ID),
                                            xir_const_uint(m, TIR_U32, 1)));
    s.cast = xir_value_inst(xir_build_cast(&b, &s.add->value, TIR_I32));
    xir_build_buffer_write(&b, s.out, xir_const_uint(m, TIR_U64, 0), &s.cast->value);
    s.write = s.entry->last;
    xir_build_ret(&b);
    return s;
}

static void test_kernel_names(void) {
    xir_module *m = xir_module_create(ctx);
    make_small(m, "k");
    CHECK(verifies(m));
    make_small(m, "k");
    expect_only("duplicate kernel", m, "XIR-V01", "a second kernel of this name");
    xir_module_destroy(m);
    m = xir_module_create(ctx);
    make_small(m, "a b");
    expect_only("invalid kernel name", m, "XIR-V01", "kernel @a b: the kernel name is empty or not a NAME");
    xir_module_destroy(m);
}

static void test_linkage(void) {
    xir_module *m = xir_module_create(ctx);
    small s = make_small(m, "k"), t = make_small(m, "t");
    s.cast->parent = t.entry;
    expect_only("instruction parent", m, "XIR-V04", "instruction list is corrupted");
    s.cast->parent = s.entry;
    s.entry->func = t.f;
    expect_only("block function", m, "XIR-V04", "block list is corrupted");
    s.entry->func = s.f;
    s.entry->last = s.cast;
    expect_only("block last", m, "XIR-V04", "last instruction");
    s.entry->last = s.write->next;
    s.f->args.data[0]->arg_index = 3;
    expect_only("argument index", m, "XIR-V04", "argument 0");
    s.f->args.data[0]->arg_index = 0;
    /* a cycle in the instruction list ends the walk with a report */
    xir_inst *ret = s.entry->last;
    ret->next = s.entry->first;
    expect_only("cycle", m, "XIR-V04", NULL);
    ret->next = NULL;
    CHECK(verifies(m));
    xir_module_destroy(m);
}

static void test_branch_targets(void) {
    xir_module *m = xir_module_create(ctx);
    small s = make_small(m, "k"), t = make_small(m, "t");
    xir_inst *ret = s.entry->last;
    ret->kind = XIR_INST_BR;
    ret->targets[0] = t.entry;
    expect_only("foreign target", m, "XIR-V10", "branch target 0 is not a block of this kernel");
    ret->targets[0] = NULL;
    expect_only("missing target", m, "XIR-V10", "'br ^?'");
    ret->kind = XIR_INST_RET;
    CHECK(verifies(m));
    xir_module_destroy(m);
}

static void test_foreign_values(void) {
    xir_module *m = xir_module_create(ctx), *other = xir_module_create(ctx);
    small s = make_small(m, "k"), t = make_small(m, "t");
    xir_inst_set_operand(s.write, 0, t.out);
    expect_only("argument of another kernel", m, "XIR-V13", "operand 0 is not a value of this kernel");
    xir_inst_set_operand(s.write, 0, s.out);
    xir_inst_set_operand(s.cast, 0, &t.add->value);
    expect_only("instruction of another kernel", m, "XIR-V13", NULL);
    xir_inst_set_operand(s.cast, 0, &s.add->value);
    xir_inst_set_operand(s.write, 1, xir_const_uint(other, TIR_U64, 0));
    expect_only("constant of another module", m, "XIR-V13", NULL);
    xir_inst_set_operand(s.write, 1, xir_const_uint(m, TIR_U64, 0));
    xir_inst_set_operand(s.add, 0, xir_special_value(other, XIR_SPECIAL_BLOCK_ID));
    expect_only("special register of another module", m, "XIR-V13", NULL);
    xir_inst_set_operand(s.add, 0, xir_special_value(m, XIR_SPECIAL_BLOCK_ID));
    /* a detached instruction is no longer a value of the kernel */
    xir_inst_detach(s.add);
    expect_only("detached instruction", m, "XIR-V13", "'%0 = cast %? to i32'");
    xir_inst_insert_before(s.add, s.cast);
    CHECK(verifies(m));
    /* a missing operand */
    xir_inst_set_operand(s.cast, 0, NULL);
    expect_only("missing operand", m, "XIR-V12", "operand 0 is missing");
    xir_inst_set_operand(s.cast, 0, &s.add->value);
    s.add->op = XIR_OP_INVALID;
    expect_only("invalid opcode", m, "XIR-V12", "unknown instruction kind or opcode");
    s.add->op = XIR_OP_ADD;
    CHECK(verifies(m));
    xir_module_destroy(other);
    xir_module_destroy(m);
}

static void test_use_lists(void) {
    xir_module *m = xir_module_create(ctx);
    small s = make_small(m, "k");
    s.add->value.use_count++;
    expect_only("use count", m, "XIR-V14", "the use list of %0 is inconsistent (use count 2)");
    s.add->value.use_count--;
    s.cast->operands[0]->index = 1;
    expect_only("use index", m, "XIR-V14", "does not point back");
    s.cast->operands[0]->index = 0;
    /* a constant whose use list still holds a use of a detached instruction */
    xir_use *u = s.write->operands[1];
    u->user = s.cast;
    expect_only("constant use list", m, "XIR-V14", NULL);
    u->user = s.write;
    CHECK(verifies(m));
    xir_module_destroy(m);
}

/* Messages quote the instruction as printed, with the block's name. */
static void test_messages(void) {
    xir_module *m = parse_ok("kernel @msg(%o: buffer<f32>) block_size=64 {\n^start:\n  br ^2\n^2:\n"
                             "  %sum = add f32 1.0, i32 2 : f32\n  buffer_write %o, u64 0, %sum\n  ret\n}\n");
    if (!m) return;
    tilec_diag_clear(ctx);
    CHECK(xir_verify(ctx, m) == TILEC_E_VERIFY && tilec_diag_count(ctx) == 1);
    const char *message = last_diag() ? last_diag()->message : "";
    CHECK(!strcmp(message, "kernel @msg, block ^2, '%sum = add f32 1.0, i32 2 : f32': operand 1 (i32 2: i32) must "
                           "have the type of the first value operand"));
    CHECK(last_diag() && last_diag()->loc.line == 0);
    tilec_diag_clear(ctx);
    xir_module_destroy(m);
    CHECK(xir_verify(ctx, NULL) == TILEC_E_ARG && !strcmp(last_code(), "XIR-V00"));
    tilec_diag_clear(ctx);
}

/* Several violations in one kernel are all reported; the structural ones stop
 * the kernel's later checks, and other kernels are still checked. */
static void test_many(void) {
    xir_module *m = parse_ok("kernel @a() block_size=64 {\n^e:\n  %x = add f32 1.0, i32 2 : f64\n  ret\n"
                             "^dead:\n  ret\n}\n"
                             "kernel @b() block_size=64 {\n^e:\n  %y = add u8 1 : u8\n  ret\n  ret\n}\n");
    if (!m) return;
    tilec_diag_clear(ctx);
    CHECK(xir_verify(ctx, m) == TILEC_E_VERIFY);
    const char *codes[] = {"XIR-V09", "XIR-V16", "XIR-V06", "XIR-V12"};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        bool seen = false;
        for (size_t k = 0; k < tilec_diag_count(ctx); k++) seen |= !strcmp(tilec_diag_at(ctx, k)->code, codes[i]);
        CHECK_MSG(seen, "%s not reported", codes[i]);
    }
    tilec_diag_clear(ctx);
    xir_module_destroy(m);
}

/* Dominators on random CFGs (loops, irreducible ones, unreachable blocks)
 * against the definition: a dominates b iff every path from the entry to b
 * passes through a, i.e. b cannot be reached once a is removed. */
static bool reaches_without(const xir_func *f, const xir_block *avoid, const xir_block *target) {
    const xir_block *stack[16];
    bool seen[16] = {false};
    int depth = 0;
    if (f->first == avoid) return false;
    stack[depth++] = f->first;
    seen[f->first->id] = true;
    while (depth) {
        const xir_block *b = stack[--depth], *succ[2];
        if (b == target) return true;
        unsigned n = xir_block_successors(b, (xir_block **)succ);
        for (unsigned i = 0; i < n; i++)
            if (succ[i] != avoid && !seen[succ[i]->id]) seen[succ[i]->id] = true, stack[depth++] = succ[i];
    }
    return false;
}

static void test_dominators(void) {
    uint64_t state = 12345;
    for (int round = 0; round < 400; round++) {
        xir_module *m = xir_module_create(ctx);
        xir_func *f = xir_func_new(m, "k");
        xir_block *blocks[12];
        unsigned n = 2 + (unsigned)(round % 11);
        for (unsigned i = 0; i < n; i++) blocks[i] = xir_block_new(f, NULL);
        for (unsigned i = 0; i < n; i++) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            unsigned r = (unsigned)(state >> 33);
            xir_builder b = {m, f, blocks[i]};
            xir_block *t0 = blocks[1 + r % (n - 1)], *t1 = blocks[1 + (r / 16) % (n - 1)];
            if (r % 5 == 0) xir_build_ret(&b);
            else if (r % 5 == 1) xir_build_br(&b, t0);
            else xir_build_cond_br(&b, xir_const_bool(m, r % 3 == 0), t0, t1);
        }
        xir_cfg cfg;
        CHECK(xir_cfg_build(ctx, f, true, &cfg));
        for (unsigned a = 0; a < n; a++) {
            bool reachable = reaches_without(f, NULL, blocks[a]);
            CHECK(xir_cfg_reachable(&cfg, blocks[a]) == reachable);
            for (unsigned b = 0; b < n; b++) {
                bool want = reachable && reaches_without(f, NULL, blocks[b]) &&
                            (a == b || !reaches_without(f, blocks[a], blocks[b]));
                CHECK_MSG(xir_cfg_dominates(&cfg, blocks[a], blocks[b]) == want, "round %d: %u dom %u", round, a, b);
            }
        }
        xir_cfg_free(&cfg);
        xir_module_destroy(m);
    }
}

static void test_allocation_failures(void) {
    xir_module *m = parse_ok(text_cases[0].text);
    if (!m) return;
    bool finished = false;
    for (long n = 0; !finished && n < 1000; n++) {
        tilec_diag_clear(ctx);
        tilec_context_fail_allocation_after(ctx, n);
        tilec_status st = xir_verify(ctx, m);
        tilec_context_fail_allocation_after(ctx, -1);
        finished = st == TILEC_E_VERIFY;
        if (!finished)
            CHECK_MSG(st == TILEC_E_NOMEM && !strcmp(last_code(), "XIR-M01"), "allocation %ld: %d", n, (int)st);
    }
    CHECK(finished);
    tilec_diag_clear(ctx);
    xir_module_destroy(m);
}

int main(void) {
    CHECK(tilec_context_create(NULL, &ctx) == TILEC_OK);
    test_text_cases();
    test_kernel_names();
    test_linkage();
    test_branch_targets();
    test_foreign_values();
    test_use_lists();
    test_messages();
    test_many();
    test_dominators();
    test_allocation_failures();
    /* every code V01..V25 has a negative case above */
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
