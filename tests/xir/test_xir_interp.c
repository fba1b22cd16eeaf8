/* XIR interpreter, execution model: the PHI parallel-copy swap kernel of
 * upstream-tests-bench.md §1.4 at every width and active-lane count, tail masks
 * (dispatch sizes not multiples of W or B), special registers per lane, PHI
 * step accounting and the step budget, a value read on a path that did not
 * compute it, argument checking, and malformed IR refused before running. */
#include "xir_interp_fixture.h"

#include <stdint.h>

static const uint32_t WIDTHS[] = {1, 2, 4, 8, 16};
enum { N_WIDTHS = sizeof WIDTHS / sizeof WIDTHS[0] };

/* ---- the swap kernel ---- */

/* block 64; lane = dispatch_id; a0 = lane + 1; b0 = lane + 9; a loop whose
 * header PHIs (i, a, b) swap a and b each trip (no temporaries); trips = 3, or
 * lane % 3 + 1 when `varying`; the exit writes a to buf[2 lane], b to
 * buf[2 lane + 1]. */
static xkernel swap_kernel(bool varying) {
    xkernel k = xk_open(varying ? "swap_varying" : "swap_uniform", 64);
    xir_builder *b = &k.b;
    xir_value *buf = xir_func_add_buffer(k.f, "buf", TIR_U32);
    xir_block *entry = b->block, *header = xir_block_new(k.f, "header"), *body = xir_block_new(k.f, "body"),
              *exit = xir_block_new(k.f, "exit");
    xir_value *lane = xk_special(&k, XIR_SPECIAL_DISPATCH_ID);
    xir_value *a0 = xk_bin(&k, XIR_OP_ADD, lane, xk_u32(&k, 1)), *b0 = xk_bin(&k, XIR_OP_ADD, lane, xk_u32(&k, 9));
    xir_value *trips = varying ? xk_bin(&k, XIR_OP_ADD, xk_bin(&k, XIR_OP_MOD, lane, xk_u32(&k, 3)), xk_u32(&k, 1))
                               : xk_u32(&k, 3);
    xir_build_br(b, header);

    xir_builder_at_end(b, header);
    xir_inst *i = xir_build_phi(b, xir_type_scalar(k.m, TIR_U32)), *a = xir_build_phi(b, xir_type_scalar(k.m, TIR_U32)),
             *bb = xir_build_phi(b, xir_type_scalar(k.m, TIR_U32));
    xir_build_cond_br(b, xk_bin(&k, XIR_OP_LT, &i->value, trips), body, exit);

    xir_builder_at_end(b, body);
    xir_value *i1 = xk_bin(&k, XIR_OP_ADD, &i->value, xk_u32(&k, 1));
    xir_build_br(b, header);

    xir_phi_add_incoming(i, xk_u32(&k, 0), entry);
    xir_phi_add_incoming(i, i1, body);
    xir_phi_add_incoming(a, a0, entry);
    xir_phi_add_incoming(a, &bb->value, body); /* a <- b */
    xir_phi_add_incoming(bb, b0, entry);
    xir_phi_add_incoming(bb, &a->value, body); /* b <- a */

    xir_builder_at_end(b, exit);
    xir_value *at = xk_bin(&k, XIR_OP_MUL, lane, xk_u32(&k, 2));
    xk_write(&k, buf, at, &a->value);
    xk_write(&k, buf, xk_bin(&k, XIR_OP_ADD, at, xk_u32(&k, 1)), &bb->value);
    xir_build_ret(b);
    return k;
}

static void test_swap_parallel_copy(void) {
    for (int varying = 0; varying < 2; varying++) {
        xkernel k = swap_kernel(varying);
        for (int wi = 0; wi < N_WIDTHS; wi++) {
            uint32_t w = WIDTHS[wi];
            for (uint32_t active = 0; active <= w; active++) {
                uint32_t mem[32];
                for (int e = 0; e < 32; e++) mem[e] = 0xdeadbeefu;
                tir_buffer arg = xbuf(mem, sizeof mem);
                if (!xk_run_ok(&k, active, w, 1, &arg)) continue;
                for (uint32_t lane = 0; lane < 16; lane++) {
                    uint32_t trips = varying ? lane % 3 + 1 : 3;
                    bool even = trips % 2 == 0;
                    uint32_t want_a = lane < active ? lane + (even ? 1 : 9) : 0xdeadbeefu;
                    uint32_t want_b = lane < active ? lane + (even ? 9 : 1) : 0xdeadbeefu;
                    CHECK_MSG(mem[2 * lane] == want_a && mem[2 * lane + 1] == want_b,
                              "%s W=%u active=%u lane %u: a=%u b=%u, wanted %u %u", k.f->name, w, active, lane,
                              mem[2 * lane], mem[2 * lane + 1], want_a, want_b);
                }
            }
        }
        xk_close(&k);
    }
}

/* ---- tail masks and special registers ---- */

/* out[6 j + s] = special register s (in XIR_SPECIALS order) of worker j. */
static xkernel specials_kernel(uint32_t block_size) {
    xkernel k = xk_open("specials", block_size);
    xir_value *out = xir_func_add_buffer(k.f, "out", TIR_U32);
    xir_value *base = xk_bin(&k, XIR_OP_MUL, xk_special(&k, XIR_SPECIAL_DISPATCH_ID), xk_u32(&k, 6));
    for (int s = XIR_SPECIAL_INVALID + 1; s < XIR_SPECIAL_COUNT; s++)
        xk_write(&k, out, xk_bin(&k, XIR_OP_ADD, base, xk_u32(&k, (uint32_t)s - 1)), xk_special(&k, (xir_special)s));
    xir_build_ret(&k.b);
    return k;
}

static void test_special_registers(void) {
    static const struct {
        uint32_t n, w, b;
    } cases[] = {{37, 4, 8}, {50, 16, 16}, {5, 1, 3}, {64, 8, 64}, {100, 2, 6}, {33, 16, 48}, {1, 16, 16}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        uint32_t n = cases[c].n, w = cases[c].w, bs = cases[c].b;
        xkernel k = specials_kernel(bs);
        /* The buffer holds exactly N workers' records: a tail lane that ran
         * would write out of range and fail the run. */
        uint32_t out[6 * 100 + 6];
        for (size_t e = 0; e < sizeof out / sizeof out[0]; e++) out[e] = 0xdeadbeefu;
        tir_buffer arg = xbuf(out, 6 * sizeof(uint32_t) * n);
        if (xk_run_ok(&k, n, w, 1, &arg)) {
            int bad = 0;
            for (uint32_t j = 0; j < n; j++) {
                uint32_t want[6] = {j, j % w, j / bs, n, bs, w};
                for (int s = 0; s < 6; s++) bad += out[6 * j + s] != want[s];
            }
            for (int e = 0; e < 6; e++) bad += out[6 * n + e] != 0xdeadbeefu;
            CHECK_MSG(bad == 0, "N=%u W=%u B=%u: %d wrong words", n, w, bs, bad);
        }
        xk_close(&k);
    }
}

/* buf[dispatch_id] = dispatch_id + 1 on a buffer of exactly N words, for many
 * N that are not multiples of W or B, and N = 0. */
static void test_tail_masks(void) {
    uint32_t mem[80];
    for (int wi = 0; wi < N_WIDTHS; wi++) {
        uint32_t w = WIDTHS[wi];
        uint32_t blocks[] = {w, 2 * w, 48};
        for (int bi = 0; bi < 3; bi++) {
            if (blocks[bi] % w) continue;
            xkernel k = xk_open("ids", blocks[bi]);
            xir_value *out = xir_func_add_buffer(k.f, "out", TIR_U32);
            xir_value *id = xk_special(&k, XIR_SPECIAL_DISPATCH_ID);
            xk_write(&k, out, id, xk_bin(&k, XIR_OP_ADD, id, xk_u32(&k, 1)));
            xir_build_ret(&k.b);
            for (uint32_t n = 0; n <= 70; n += 1 + n / 8) {
                for (int e = 0; e < 80; e++) mem[e] = 0;
                tir_buffer arg = xbuf(mem, n * sizeof(uint32_t));
                if (!xk_run_ok(&k, n, w, 1, &arg)) continue;
                int bad = 0;
                for (uint32_t e = 0; e < 80; e++) bad += mem[e] != (e < n ? e + 1 : 0);
                CHECK_MSG(bad == 0, "N=%u W=%u B=%u: %d wrong words", n, w, blocks[bi], bad);
            }
            xk_close(&k);
        }
    }
}

/* ---- steps and budgets ---- */

/* entry: br next; next: p = phi [0, entry]; ret — three steps per worker (a
 * PHI assignment is one). */
static void test_step_budget_exact(void) {
    xkernel k = xk_open("steps", 4);
    xir_block *entry = k.b.block, *next = xir_block_new(k.f, "next");
    xir_build_br(&k.b, next);
    xir_builder_at_end(&k.b, next);
    xir_inst *p = xir_build_phi(&k.b, xir_type_scalar(k.m, TIR_U32));
    xir_phi_add_incoming(p, xk_u32(&k, 0), entry);
    xir_build_ret(&k.b);
    xir_interp_options o = xir_interp_default_options();
    o.max_steps = 6;
    CHECK(xk_run_with(&k, 2, 2, 0, NULL, &o) == TILEC_OK);
    o.max_steps = 5;
    expect_error(xk_run_with(&k, 2, 2, 0, NULL, &o), TILEC_E_BUDGET, "XIR-I05", "step budget of 5");
    xk_close(&k);
}

static void test_infinite_loop(void) {
    xkernel k = xk_open("forever", 1);
    xir_block *loop = xir_block_new(k.f, "loop");
    xir_build_br(&k.b, loop);
    xir_builder_at_end(&k.b, loop);
    xir_build_br(&k.b, loop);
    xir_interp_options o = xir_interp_default_options();
    o.max_steps = 100000;
    expect_error(xk_run_with(&k, 1, 1, 0, NULL, &o), TILEC_E_BUDGET, "XIR-I05", "dispatch id 0");
    xk_close(&k);
}

/* ---- dominance violations at runtime ---- */

/* entry: cond_br id == 0, then, merge; then: x = id + 5; br merge;
 * merge: out[id] = x.  Worker 0 computed x; worker 1 did not. */
static void test_value_without_definition(void) {
    xkernel k = xk_open("undominated", 2);
    k.malformed = true; /* XIR-V15 */
    xir_value *out = xir_func_add_buffer(k.f, "out", TIR_U32);
    xir_block *then = xir_block_new(k.f, "then"), *merge = xir_block_new(k.f, "merge");
    xir_value *id = xk_special(&k, XIR_SPECIAL_DISPATCH_ID);
    xir_build_cond_br(&k.b, xk_bin(&k, XIR_OP_EQ, id, xk_u32(&k, 0)), then, merge);
    xir_builder_at_end(&k.b, then);
    xir_value *x = xk_bin(&k, XIR_OP_ADD, id, xk_u32(&k, 5));
    x->name = "x";
    xir_build_br(&k.b, merge);
    xir_builder_at_end(&k.b, merge);
    xk_write(&k, out, id, x);
    xir_build_ret(&k.b);
    uint32_t mem[2] = {0, 0};
    tir_buffer arg = xbuf(mem, sizeof mem);
    CHECK(xk_run_ok(&k, 1, 1, 1, &arg) && mem[0] == 5);
    expect_error(xk_run_with(&k, 2, 1, 1, &arg, NULL), TILEC_E_RUNTIME, "XIR-I10", "%x has no value");
    xk_close(&k);
}

/* ---- arguments ---- */

static void test_arguments(void) {
    xkernel k = xk_open("args", 8);
    xir_value *out = xir_func_add_buffer(k.f, "out", TIR_U32);
    xk_write(&k, out, xk_special(&k, XIR_SPECIAL_DISPATCH_ID), xk_u32(&k, 7));
    xir_build_ret(&k.b);
    uint32_t mem[8];
    tir_buffer arg = xbuf(mem, sizeof mem);

    CHECK(xir_interpret(NULL, k.f, 1, 1, 1, &arg) == TILEC_E_ARG);
    expect_error(xir_interpret(ctx, NULL, 1, 1, 1, &arg), TILEC_E_ARG, "XIR-I01", "no XIR function");
    static const uint32_t bad_widths[] = {0, 3, 5, 48, 64};
    for (size_t i = 0; i < sizeof bad_widths / sizeof bad_widths[0]; i++)
        expect_error(xir_interpret(ctx, k.f, 8, bad_widths[i], 1, &arg), TILEC_E_ARG, "XIR-I01", "packet width");
    k.f->block_size = 12;
    expect_error(xir_interpret(ctx, k.f, 8, 8, 1, &arg), TILEC_E_ARG, "XIR-I01", "block size 12");
    k.f->block_size = 0;
    expect_error(xir_interpret(ctx, k.f, 8, 1, 1, &arg), TILEC_E_ARG, "XIR-I01", "block size 0");
    k.f->block_size = 8;
    expect_error(xir_interpret(ctx, k.f, 8, 8, 0, NULL), TILEC_E_ARG, "XIR-I01", "1 buffer arguments, 0 given");
    tir_buffer two[2] = {arg, arg};
    expect_error(xir_interpret(ctx, k.f, 8, 8, 2, two), TILEC_E_ARG, "XIR-I01", "2 given");
    expect_error(xir_interpret(ctx, k.f, 8, 8, 1, NULL), TILEC_E_ARG, "XIR-I01", "NULL argument array");
    tir_buffer null_data = xbuf(NULL, 4);
    expect_error(xir_interpret(ctx, k.f, 1, 1, 1, &null_data), TILEC_E_RUNTIME, "XIR-I02", "%out");
    /* NULL data is fine with size 0 as long as nothing is accessed */
    null_data.size_bytes = 0;
    CHECK(xk_run_ok(&k, 0, 1, 1, &null_data));
    expect_error(xir_interpret(ctx, k.f, 1, 1, 1, &null_data), TILEC_E_RUNTIME, "XIR-I07", "[0, 0)");
    /* the context stays usable */
    CHECK(xk_run_ok(&k, 8, 8, 1, &arg) && mem[0] == 7 && mem[7] == 7);
    xk_close(&k);
}

/* ---- malformed IR refused before running ---- */

static void expect_refused(xkernel *k, const char *needle) {
    uint32_t mem[4] = {0};
    tir_buffer arg = xbuf(mem, sizeof mem);
    size_t n_args = k->f->args.len;
    expect_error(xk_run_with(k, 4, 1, n_args, &arg, NULL), TILEC_E_VERIFY, "XIR-I03", needle);
    CHECK_MSG(mem[0] == 0, "a refused kernel ran");
}

/* Every case writes out[0] = 1 first, so running at all would be visible. */
static xkernel start_refusal(const char *name) {
    xkernel k = xk_open(name, 1);
    k.malformed = true; /* what the interpreter refuses, the verifier rejects too */
    xir_value *out = xir_func_add_buffer(k.f, "out", TIR_U32);
    xk_write(&k, out, xk_u32(&k, 0), xk_u32(&k, 1));
    return k;
}

static void test_refusals(void) {
    xkernel k = start_refusal("no_terminator");
    expect_refused(&k, "does not end with a terminator");
    xk_close(&k);

    k = start_refusal("empty");
    xir_build_ret(&k.b);
    xir_block_new(k.f, "empty");
    expect_refused(&k, "'empty' does not end with a terminator");
    xk_close(&k);

    k = start_refusal("terminator_inside");
    xir_build_ret(&k.b);
    xk_bin(&k, XIR_OP_ADD, xk_u32(&k, 1), xk_u32(&k, 2));
    xir_build_ret(&k.b);
    expect_refused(&k, "terminator before the block's end");
    xk_close(&k);

    k = start_refusal("mixed_types");
    xk_bin(&k, XIR_OP_ADD, xk_u32(&k, 1), xir_const_int(k.m, TIR_I64, 2));
    xir_build_ret(&k.b);
    expect_refused(&k, "operands of different types");
    xk_close(&k);

    k = start_refusal("float_bitwise");
    xk_bin(&k, XIR_OP_XOR, xir_const_float(k.m, TIR_F32, 1), xir_const_float(k.m, TIR_F32, 2));
    xir_build_ret(&k.b);
    expect_refused(&k, "not supported by the opcode");
    xk_close(&k);

    k = start_refusal("bool_bitcast");
    xir_build_bitcast(&k.b, xir_const_bool(k.m, true), TIR_U8);
    xir_build_ret(&k.b);
    expect_refused(&k, "bool has no bit pattern");
    xk_close(&k);

    k = start_refusal("size_bitcast");
    xir_build_bitcast(&k.b, xk_u32(&k, 1), TIR_F64);
    xir_build_ret(&k.b);
    expect_refused(&k, "different sizes");
    xk_close(&k);

    /* a PHI without an incoming value for one of its predecessors */
    k = start_refusal("phi_incoming");
    xir_block *entry = k.b.block, *left = xir_block_new(k.f, "left"), *join = xir_block_new(k.f, "join");
    xir_build_cond_br(&k.b, xir_const_bool(k.m, true), left, join);
    xir_builder_at_end(&k.b, left);
    xir_build_br(&k.b, join);
    xir_builder_at_end(&k.b, join);
    xir_inst *p = xir_build_phi(&k.b, xir_type_scalar(k.m, TIR_U32));
    xir_phi_add_incoming(p, xk_u32(&k, 1), left);
    xir_build_ret(&k.b);
    expect_refused(&k, "no incoming value for predecessor 'entry'");
    /* two different values for one predecessor are ambiguous */
    xir_phi_add_incoming(p, xk_u32(&k, 2), entry);
    xir_phi_add_incoming(p, xk_u32(&k, 3), entry);
    expect_refused(&k, "two different incoming values");
    xk_close(&k);

    k = start_refusal("phi_in_entry");
    xir_inst *q = xir_build_phi(&k.b, xir_type_scalar(k.m, TIR_U32));
    xir_phi_add_incoming(q, xk_u32(&k, 1), k.b.block);
    xir_build_br(&k.b, k.b.block);
    expect_refused(&k, "PHI in the entry block");
    xk_close(&k);

    k = start_refusal("phi_late");
    xir_block *second = xir_block_new(k.f, "second");
    xir_build_br(&k.b, second);
    xir_builder_at_end(&k.b, second);
    xir_value *sum = xk_bin(&k, XIR_OP_ADD, xk_u32(&k, 1), xk_u32(&k, 2));
    xir_inst *late = xir_inst_new(k.f, XIR_INST_PHI, xir_type_scalar(k.m, TIR_U32));
    xir_phi_add_incoming(late, sum, k.f->first);
    xir_inst_insert_end(late, second);
    xir_build_ret(&k.b);
    expect_refused(&k, "PHI after a non-PHI");
    xk_close(&k);

    /* a branch to a block that was erased from the function */
    k = start_refusal("erased_target");
    xir_block *gone = xir_block_new(k.f, "gone");
    xir_build_br(&k.b, gone);
    xir_builder_at_end(&k.b, gone);
    xir_build_ret(&k.b);
    xir_block_erase(gone);
    expect_refused(&k, "branch target is not a block of this function");
    xk_close(&k);

    /* an operand computed in another function */
    k = start_refusal("foreign_operand");
    xir_func *g = xir_func_new(k.m, "other");
    xir_builder gb = {k.m, g, xir_block_new(g, "entry")};
    xir_value *foreign = xir_build_binary(&gb, XIR_OP_ADD, xk_u32(&k, 1), xk_u32(&k, 1));
    xk_bin(&k, XIR_OP_ADD, foreign, xk_u32(&k, 1));
    xir_build_ret(&k.b);
    expect_refused(&k, "operand 0 is missing or not a value of this function");
    xk_close(&k);

    /* a buffer of another function */
    k = start_refusal("foreign_buffer");
    xir_func *h = xir_func_new(k.m, "third");
    xir_value *hb = xir_func_add_buffer(h, "hb", TIR_U32);
    xir_build_buffer_read(&k.b, hb, xk_u64(&k, 0));
    xir_build_ret(&k.b);
    expect_refused(&k, "operand 0");
    xk_close(&k);

    k = xk_open("no_blocks", 1);
    xir_func *empty = xir_func_new(k.m, "nothing");
    expect_error(xir_interpret(ctx, empty, 1, 1, 0, NULL), TILEC_E_VERIFY, "XIR-I03", "has no blocks");
    xk_close(&k);
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    test_swap_parallel_copy();
    test_special_registers();
    test_tail_masks();
    test_step_budget_exact();
    test_infinite_loop();
    test_value_without_definition();
    test_arguments();
    test_refusals();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
