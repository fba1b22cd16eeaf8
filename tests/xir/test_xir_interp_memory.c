/* XIR interpreter, memory: per-lane privacy of local arrays (checked while the
 * lanes of a packet are interleaved by a warp exchange), fresh storage per
 * alloca execution, uninitialized reads, local and buffer index checks, the
 * private memory budget at its exact boundary, element encodings of every type,
 * u32 word reads of a byte buffer,
 * arrays through PHIs, buffer aliasing and buffer_address, bounds faults. */
#include "xir_interp_fixture.h"

#include <math.h>
#include <stdint.h>

static xir_value *gep_u32(xkernel *k, xir_value *array, uint32_t i) {
    return xir_build_gep(&k->b, array, xk_u32(k, i));
}

/* Each lane stores its own values into slot 2 of its array, then all lanes
 * meet at a warp exchange (so every lane has stored before any lane loads),
 * then each lane loads slot 2 and writes it out. */
static void test_private_arrays_per_lane(void) {
    xkernel k = xk_open("privacy", 16);
    xir_value *out = xir_func_add_buffer(k.f, "out", TIR_I32);
    xir_value *id = xk_special(&k, XIR_SPECIAL_DISPATCH_ID);
    xir_value *arr = xir_build_alloca(&k.b, TIR_I32, 4);
    xir_value *mine = xir_build_cast(&k.b, xk_bin(&k, XIR_OP_MUL, id, xk_u32(&k, 7)), TIR_I32);
    xir_build_store(&k.b, gep_u32(&k, arr, 2), mine);
    xir_value *sync = xir_build_warp_read_lane(&k.b, id, xk_u32(&k, 0));
    xir_value *got = xir_build_load(&k.b, gep_u32(&k, arr, 2));
    xk_write(&k, out, id, xk_bin(&k, XIR_OP_ADD, got, xir_build_cast(&k.b, sync, TIR_I32)));
    xir_build_ret(&k.b);
    for (uint32_t w = 1; w <= 16; w *= 2) {
        int32_t mem[37];
        tir_buffer arg = xbuf(mem, sizeof mem);
        if (!xk_run_ok(&k, 37, w, 1, &arg)) continue;
        int bad = 0;
        for (int32_t j = 0; j < 37; j++) bad += mem[j] != 7 * j + (j - j % (int32_t)w);
        CHECK_MSG(bad == 0, "W=%u: %d lanes saw another lane's array", w, bad);
    }
    xk_close(&k);
}

/* for i in 0..2: arr = alloca; if i == 0: arr[0] = 5; out[i] = arr[0].
 * The second execution of the alloca is fresh storage: reading it fails. */
static void test_alloca_fresh_per_execution(void) {
    xkernel k = xk_open("fresh", 1);
    xir_value *out = xir_func_add_buffer(k.f, "out", TIR_I32);
    xir_block *entry = k.b.block, *loop = xir_block_new(k.f, "loop"), *first = xir_block_new(k.f, "first"),
              *use = xir_block_new(k.f, "use"), *done = xir_block_new(k.f, "done");
    xir_build_br(&k.b, loop);
    xir_builder_at_end(&k.b, loop);
    xir_inst *i = xir_build_phi(&k.b, xir_type_scalar(k.m, TIR_U32));
    xir_value *arr = xir_build_alloca(&k.b, TIR_I32, 1);
    xir_value *slot = gep_u32(&k, arr, 0);
    xir_build_cond_br(&k.b, xk_bin(&k, XIR_OP_EQ, &i->value, xk_u32(&k, 0)), first, use);
    xir_builder_at_end(&k.b, first);
    xir_build_store(&k.b, slot, xir_const_int(k.m, TIR_I32, 5));
    xir_build_br(&k.b, use);
    xir_builder_at_end(&k.b, use);
    xk_write(&k, out, &i->value, xir_build_load(&k.b, slot));
    xir_value *next = xk_bin(&k, XIR_OP_ADD, &i->value, xk_u32(&k, 1));
    xir_build_cond_br(&k.b, xk_bin(&k, XIR_OP_LT, next, xk_u32(&k, 2)), loop, done);
    xir_builder_at_end(&k.b, done);
    xir_build_ret(&k.b);
    xir_phi_add_incoming(i, xk_u32(&k, 0), entry);
    xir_phi_add_incoming(i, next, use);
    int32_t mem[2] = {-1, -1};
    tir_buffer arg = xbuf(mem, sizeof mem);
    expect_error(xk_run_with(&k, 1, 1, 1, &arg, NULL), TILEC_E_RUNTIME, "XIR-I09", "never stored");
    CHECK(mem[0] == 5 && mem[1] == -1); /* the first iteration's write happened */
    xk_close(&k);
}

/* Worker 0 stores, every worker loads: lane 0's next run (worker 1 at W=1)
 * starts with fresh private memory. */
static void test_private_memory_per_run(void) {
    xkernel k = xk_open("per_run", 1);
    xir_value *out = xir_func_add_buffer(k.f, "out", TIR_F32);
    xir_block *store = xir_block_new(k.f, "store"), *load = xir_block_new(k.f, "load");
    xir_value *id = xk_special(&k, XIR_SPECIAL_DISPATCH_ID);
    xir_value *arr = xir_build_alloca(&k.b, TIR_F32, 3);
    xir_build_cond_br(&k.b, xk_bin(&k, XIR_OP_EQ, id, xk_u32(&k, 0)), store, load);
    xir_builder_at_end(&k.b, store);
    xir_build_store(&k.b, gep_u32(&k, arr, 1), xir_const_float(k.m, TIR_F32, 2.5));
    xir_build_br(&k.b, load);
    xir_builder_at_end(&k.b, load);
    xk_write(&k, out, id, xir_build_load(&k.b, gep_u32(&k, arr, 1)));
    xir_build_ret(&k.b);
    float mem[2] = {0, 0};
    tir_buffer arg = xbuf(mem, sizeof mem);
    expect_error(xk_run_with(&k, 2, 1, 1, &arg, NULL), TILEC_E_RUNTIME, "XIR-I09", "dispatch id 1");
    CHECK(mem[0] == 2.5f && mem[1] == 0);
    xk_close(&k);
}

/* out[0] = arr[index] after storing every element, index read from a buffer. */
static void test_local_index_range(void) {
    static const tir_scalar index_types[] = {TIR_I32, TIR_U64, TIR_I8};
    for (size_t t = 0; t < 3; t++) {
        tir_scalar it = index_types[t];
        xkernel k = xk_open("gep_range", 1);
        xir_value *idx = xir_func_add_buffer(k.f, "idx", it), *out = xir_func_add_buffer(k.f, "out", TIR_U16);
        xir_value *arr = xir_build_alloca(&k.b, TIR_U16, 5);
        for (uint32_t e = 0; e < 5; e++)
            xir_build_store(&k.b, gep_u32(&k, arr, e), xir_const_uint(k.m, TIR_U16, 100 + e));
        xir_value *i = xir_build_buffer_read(&k.b, idx, xk_u64(&k, 0));
        xir_build_buffer_write(&k.b, out, xk_u64(&k, 0), xir_build_load(&k.b, xir_build_gep(&k.b, arr, i)));
        xir_build_ret(&k.b);
        int64_t values[] = {4, 0, 5, -1, 127};
        for (int v = 0; v < 5; v++) {
            unsigned char ib[8] = {0};
            int32_t i32v = (int32_t)values[v];
            uint64_t u64v = (uint64_t)values[v];
            int8_t i8v = (int8_t)values[v];
            memcpy(ib, it == TIR_I32 ? (void *)&i32v : it == TIR_U64 ? (void *)&u64v : (void *)&i8v,
                   tir_scalar_size(it));
            uint16_t o = 0;
            tir_buffer args[2] = {xbuf(ib, tir_scalar_size(it)), xbuf(&o, sizeof o)};
            if (values[v] >= 0 && values[v] < 5) {
                CHECK(xk_run_ok(&k, 1, 1, 2, args) && o == 100 + values[v]);
            } else {
                const char *want = values[v] == 5   ? "index 5 out of range [0, 5)"
                                 : values[v] == 127 ? "index 127 out of range"
                                 : it == TIR_U64    ? "index 18446744073709551615 out of range"
                                                    : "index -1 out of range";
                expect_error(xk_run_with(&k, 1, 1, 2, args, NULL), TILEC_E_RUNTIME, "XIR-I08", want);
            }
        }
        xk_close(&k);
    }
}

/* Allocations of 16 f64 (128 bytes) each, `repeats` times in a loop. */
static xkernel budget_kernel(uint32_t repeats) {
    xkernel k = xk_open("budget", 4);
    xir_block *entry = k.b.block, *loop = xir_block_new(k.f, "loop"), *done = xir_block_new(k.f, "done");
    xir_build_br(&k.b, loop);
    xir_builder_at_end(&k.b, loop);
    xir_inst *i = xir_build_phi(&k.b, xir_type_scalar(k.m, TIR_U32));
    xir_build_alloca(&k.b, TIR_F64, 16);
    xir_value *next = xk_bin(&k, XIR_OP_ADD, &i->value, xk_u32(&k, 1));
    xir_build_cond_br(&k.b, xk_bin(&k, XIR_OP_LT, next, xk_u32(&k, repeats)), loop, done);
    xir_builder_at_end(&k.b, done);
    xir_build_ret(&k.b);
    xir_phi_add_incoming(i, xk_u32(&k, 0), entry);
    xir_phi_add_incoming(i, next, loop);
    return k;
}

static void test_private_budget(void) {
    xkernel k = budget_kernel(3);
    xir_interp_options o = xir_interp_default_options();
    o.max_private_bytes = 3 * 128;
    CHECK(xk_run_with(&k, 4, 4, 0, NULL, &o) == TILEC_OK); /* per lane, not per packet */
    o.max_private_bytes = 3 * 128 - 1;
    expect_error(xk_run_with(&k, 4, 4, 0, NULL, &o), TILEC_E_BUDGET, "XIR-I06", "budget of 383 bytes");
    xk_close(&k);
    /* the default budget is 16 MiB per lane */
    k = xk_open("huge", 1);
    xir_build_alloca(&k.b, TIR_U8, (UINT64_C(16) << 20) + 1);
    xir_build_ret(&k.b);
    expect_error(xk_run_with(&k, 1, 1, 0, NULL, NULL), TILEC_E_BUDGET, "XIR-I06", "16777217 requested");
    xk_close(&k);
    /* element indices are 32-bit: a larger array is refused whatever the budget */
    k = xk_open("too_many", 1);
    xir_build_alloca(&k.b, TIR_U8, UINT64_C(1) << 32);
    xir_build_ret(&k.b);
    o.max_private_bytes = UINT64_MAX;
    expect_error(xk_run_with(&k, 1, 1, 0, NULL, &o), TILEC_E_BUDGET, "XIR-I06", "array of 4294967296 elements");
    xk_close(&k);
}

/* out[index] = 7 with index from a buffer, on a 4-element buffer. */
static void test_buffer_index_range(void) {
    xkernel k = xk_open("buffer_range", 1);
    k.malformed = true; /* an i64 index (XIR-V22), so that it can be negative */
    xir_value *idx = xir_func_add_buffer(k.f, "idx", TIR_I64), *out = xir_func_add_buffer(k.f, "out", TIR_U32);
    xir_value *i = xir_build_buffer_read(&k.b, idx, xk_u64(&k, 0));
    xir_build_buffer_write(&k.b, out, xk_u64(&k, 0), xk_u32(&k, 1)); /* happens before the failing write */
    xir_build_buffer_write(&k.b, out, i, xk_u32(&k, 7));
    xir_build_ret(&k.b);
    uint32_t mem[5];
    static const int64_t bad[] = {4, -1, INT64_MAX, INT64_MIN};
    for (size_t c = 0; c < 4; c++) {
        int64_t index = bad[c];
        for (int e = 0; e < 5; e++) mem[e] = 0xdeadbeefu;
        tir_buffer args[2] = {xbuf(&index, sizeof index), xbuf(mem, 4 * sizeof(uint32_t))};
        expect_error(xk_run_with(&k, 1, 1, 2, args, NULL), TILEC_E_RUNTIME, "XIR-I07", "out of range [0, 4) of buffer %out");
        CHECK(mem[0] == 1 && mem[4] == 0xdeadbeefu);
    }
    int64_t three = 3;
    tir_buffer args[2] = {xbuf(&three, sizeof three), xbuf(mem, 4 * sizeof(uint32_t))};
    CHECK(xk_run_ok(&k, 1, 1, 2, args) && mem[3] == 7);
    /* a partial trailing element is not an element: 15 bytes hold 3 */
    args[1].size_bytes = 15;
    expect_error(xk_run_with(&k, 1, 1, 2, args, NULL), TILEC_E_RUNTIME, "XIR-I07", "[0, 3)");
    /* the index buffer itself is range-checked too */
    args[0].size_bytes = 7;
    expect_error(xk_run_with(&k, 1, 1, 2, args, NULL), TILEC_E_RUNTIME, "XIR-I07", "buffer %idx");
    xk_close(&k);
}

/* Copies in[j] → private array → out[j] for every element type; bool bytes
 * other than 0/1 read as true and are written as 1; f32 bit patterns (NaN
 * payloads, -0) survive. */
static void test_element_types(void) {
    for (int t = TIR_SCALAR_INVALID + 1; t < TIR_SCALAR_COUNT; t++) {
        if (tir_scalar_is_half((tir_scalar)t)) continue; /* not XIR types yet (XIR-V27) */
        tir_scalar s = (tir_scalar)t;
        xkernel k = xk_open("copy", 4);
        xir_value *in = xir_func_add_buffer(k.f, "in", s), *out = xir_func_add_buffer(k.f, "out", s);
        xir_value *id = xk_special(&k, XIR_SPECIAL_DISPATCH_ID), *id64 = xir_build_cast(&k.b, id, TIR_U64);
        xir_value *arr = xir_build_alloca(&k.b, s, 4);
        xir_value *p = xir_build_gep(&k.b, arr, id);
        xir_build_store(&k.b, p, xir_build_buffer_read(&k.b, in, id64));
        xir_build_buffer_write(&k.b, out, id64, xir_build_load(&k.b, p));
        xir_build_ret(&k.b);
        unsigned char src[40], dst[40];
        for (int e = 0; e < 40; e++) src[e] = (unsigned char)(0x5a + 37 * e), dst[e] = 0xee;
        if (s == TIR_F32) {
            uint32_t pats[4] = {0x7f800001u, 0xffc01234u, 0x80000000u, 0x3f800000u};
            memcpy(src, pats, sizeof pats);
        }
        size_t size = tir_scalar_size(s);
        tir_buffer args[2] = {xbuf(src, 4 * size), xbuf(dst, 4 * size)};
        if (xk_run_ok(&k, 4, 4, 2, args)) {
            if (s == TIR_BOOL) {
                CHECK(dst[0] == 1 && dst[1] == 1 && dst[2] == 1 && dst[3] == 1);
            } else {
                CHECK_MSG(!memcmp(src, dst, 4 * size), "%s elements changed in a copy", tir_scalar_name(s));
            }
            CHECK_MSG(dst[4 * size] == 0xee, "%s: byte after the buffer touched", tir_scalar_name(s));
        }
        xk_close(&k);
    }
}

/* A word read (xir.h xir_is_word_read): lane i reads u32 word i of a u8
 * buffer, its 4 bytes from 4i on, the first in the low bits; the index
 * counts words, so 9 bytes hold 2 of them. */
static void test_word_reads(void) {
    xkernel k = xk_open("words", 2);
    xir_value *in = xir_func_add_buffer(k.f, "in", TIR_U8), *out = xir_func_add_buffer(k.f, "out", TIR_U32);
    xir_value *id = xir_build_cast(&k.b, xk_special(&k, XIR_SPECIAL_DISPATCH_ID), TIR_U64);
    xir_build_buffer_write(&k.b, out, id, xir_build_buffer_read_word(&k.b, in, id));
    xir_build_ret(&k.b);
    unsigned char src[9] = {0x01, 0x02, 0x03, 0x84, 0xf5, 0x06, 0x07, 0x08, 0xee};
    uint32_t dst[2] = {0, 0};
    tir_buffer args[2] = {xbuf(src, 8), xbuf(dst, sizeof dst)};
    if (xk_run_ok(&k, 2, 2, 2, args)) CHECK(dst[0] == 0x84030201u && dst[1] == 0x080706f5u);
    args[0].size_bytes = 7; /* word 1 is partial: not a word */
    expect_error(xk_run_with(&k, 2, 2, 2, args, NULL), TILEC_E_RUNTIME, "XIR-I07", "out of range [0, 1) of buffer %in");
    xk_close(&k);
}

/* A PHI carries array references: two arrays swap roles every trip (the
 * current/next pattern), each trip writes next[0] = current[0] + 1. */
static void test_array_phi(void) {
    xkernel k = xk_open("array_phi", 1);
    k.malformed = true; /* PHIs of arrays (XIR-V25), which the interpreter runs */
    xir_value *out = xir_func_add_buffer(k.f, "out", TIR_I64);
    xir_block *entry = k.b.block, *loop = xir_block_new(k.f, "loop"), *done = xir_block_new(k.f, "done");
    xir_value *x = xir_build_alloca(&k.b, TIR_I64, 1), *y = xir_build_alloca(&k.b, TIR_I64, 1);
    xir_build_store(&k.b, gep_u32(&k, x, 0), xir_const_int(k.m, TIR_I64, 40));
    xir_build_br(&k.b, loop);
    xir_builder_at_end(&k.b, loop);
    xir_type *at = x->type;
    xir_inst *i = xir_build_phi(&k.b, xir_type_scalar(k.m, TIR_U32)), *cur = xir_build_phi(&k.b, at),
             *nxt = xir_build_phi(&k.b, at);
    xir_value *v = xir_build_load(&k.b, gep_u32(&k, &cur->value, 0));
    xir_build_store(&k.b, gep_u32(&k, &nxt->value, 0), xk_bin(&k, XIR_OP_ADD, v, xir_const_int(k.m, TIR_I64, 1)));
    xir_value *i1 = xk_bin(&k, XIR_OP_ADD, &i->value, xk_u32(&k, 1));
    xir_build_cond_br(&k.b, xk_bin(&k, XIR_OP_LT, i1, xk_u32(&k, 3)), loop, done);
    xir_builder_at_end(&k.b, done);
    xir_build_buffer_write(&k.b, out, xk_u64(&k, 0), xir_build_load(&k.b, gep_u32(&k, x, 0)));
    xir_build_buffer_write(&k.b, out, xk_u64(&k, 1), xir_build_load(&k.b, gep_u32(&k, y, 0)));
    xir_build_ret(&k.b);
    xir_phi_add_incoming(i, xk_u32(&k, 0), entry);
    xir_phi_add_incoming(i, i1, loop);
    xir_phi_add_incoming(cur, x, entry);
    xir_phi_add_incoming(cur, &nxt->value, loop);
    xir_phi_add_incoming(nxt, y, entry);
    xir_phi_add_incoming(nxt, &cur->value, loop);
    int64_t mem[2] = {0, 0};
    tir_buffer arg = xbuf(mem, sizeof mem);
    /* trips: y = 41, x = 42, y = 43 */
    CHECK(xk_run_ok(&k, 1, 1, 1, &arg) && mem[0] == 42 && mem[1] == 43);
    xk_close(&k);
}

/* Two arguments bound to the same memory: accesses go straight to memory, in
 * program order (XIR has no snapshot semantics of its own). */
static void test_aliasing_and_address(void) {
    xkernel k = xk_open("alias", 1);
    xir_value *a = xir_func_add_buffer(k.f, "a", TIR_F64), *b = xir_func_add_buffer(k.f, "b", TIR_F64),
              *addr = xir_func_add_buffer(k.f, "addr", TIR_U64);
    xir_build_buffer_write(&k.b, a, xk_u64(&k, 1), xir_const_float(k.m, TIR_F64, 6.5));
    xir_value *seen = xir_build_buffer_read(&k.b, b, xk_u64(&k, 1));
    xir_build_buffer_write(&k.b, b, xk_u64(&k, 0), xk_bin(&k, XIR_OP_MUL, seen, xir_const_float(k.m, TIR_F64, 2)));
    xir_build_buffer_write(&k.b, addr, xk_u64(&k, 0), xir_build_buffer_address(&k.b, a));
    xir_build_buffer_write(&k.b, addr, xk_u64(&k, 1), xir_build_buffer_address(&k.b, b));
    xir_build_ret(&k.b);
    double mem[2] = {0, 0};
    uint64_t addrs[2] = {0, 0};
    tir_buffer args[3] = {xbuf(mem, sizeof mem), xbuf(mem, sizeof mem), xbuf(addrs, sizeof addrs)};
    CHECK(xk_run_ok(&k, 1, 1, 3, args) && mem[1] == 6.5 && mem[0] == 13.0);
    CHECK(addrs[0] == (uint64_t)(uintptr_t)mem && addrs[1] == addrs[0]);
    xk_close(&k);
}

/* An uninitialized read straight after the alloca, with the error naming the
 * lane and the instruction. */
static void test_uninitialized_read(void) {
    xkernel k = xk_open("uninit", 8);
    xir_value *out = xir_func_add_buffer(k.f, "out", TIR_I32);
    xir_value *arr = xir_build_alloca(&k.b, TIR_I32, 8);
    xir_value *id = xk_special(&k, XIR_SPECIAL_DISPATCH_ID);
    /* lanes store slot id, then read slot (id + 1) % 8: never written */
    xir_build_store(&k.b, xir_build_gep(&k.b, arr, id), xir_const_int(k.m, TIR_I32, 1));
    xir_value *other = xk_bin(&k, XIR_OP_MOD, xk_bin(&k, XIR_OP_ADD, id, xk_u32(&k, 1)), xk_u32(&k, 8));
    xir_value *v = xir_build_load(&k.b, xir_build_gep(&k.b, arr, other));
    v->name = "v";
    xk_write(&k, out, id, v);
    xir_build_ret(&k.b);
    int32_t mem[8];
    tir_buffer arg = xbuf(mem, sizeof mem);
    expect_error(xk_run_with(&k, 8, 8, 1, &arg, NULL), TILEC_E_RUNTIME, "XIR-I09",
                 "load %v in block 'entry' of 'uninit' (dispatch id 0, lane 0): reads element 1");
    xk_close(&k);
}

/* Every allocation of a run fails in turn: each failure is reported as
 * XIR-I04 out of memory (never a crash or a leak), and then the run works. */
static void test_allocation_failures(void) {
    xkernel k = xk_open("oom", 4);
    xir_block *entry = k.b.block, *next = xir_block_new(k.f, "next");
    xir_value *arr = xir_build_alloca(&k.b, TIR_U8, 70000); /* lane memory grows past its first size */
    xir_build_store(&k.b, gep_u32(&k, arr, 69999), xir_const_uint(k.m, TIR_U8, 1));
    xir_value *x = xir_build_load(&k.b, gep_u32(&k, arr, 69999));
    xir_build_br(&k.b, next);
    xir_builder_at_end(&k.b, next);
    xir_inst *p = xir_build_phi(&k.b, x->type);
    xir_phi_add_incoming(p, x, entry);
    xir_build_ret(&k.b);
    bool finished = false;
    long n = 0;
    for (; n < 1000 && !finished; n++) {
        tilec_context_fail_allocation_after(ctx, n);
        tilec_status st = xir_interpret(ctx, k.f, 8, 4, 0, NULL);
        tilec_context_fail_allocation_after(ctx, -1);
        finished = st == TILEC_OK;
        if (!finished) {
            CHECK_MSG(st == TILEC_E_NOMEM, "allocation %ld: status %s", n, tilec_status_name(st));
            size_t d = tilec_diag_count(ctx);
            CHECK_MSG(d <= 1 && (d == 0 || !strcmp(tilec_diag_at(ctx, 0)->code, "XIR-I04")),
                      "allocation %ld: %zu diagnostics", n, d);
        }
        tilec_diag_clear(ctx);
    }
    CHECK(finished && n > 3);
    xk_close(&k);
}

/* Lanes with an odd dispatch id fault (site 7, value -id) before their
 * write: with a record the run goes on, counts every fault, keeps the
 * first (lane order) and every write happens; without one the first fault
 * fails the run with XIR-I14. */
static void test_faults(void) {
    xkernel k = xk_open("faults", 16);
    xir_value *out = xir_func_add_buffer(k.f, "out", TIR_U32);
    xir_value *id = xk_special(&k, XIR_SPECIAL_DISPATCH_ID);
    xir_block *report = xir_block_new(k.f, "report"), *write = xir_block_new(k.f, "write");
    xir_build_cond_br(&k.b, xk_bin(&k, XIR_OP_EQ, xk_bin(&k, XIR_OP_AND, id, xk_u32(&k, 1)), xk_u32(&k, 1)), report,
                      write);
    xir_builder_at_end(&k.b, report);
    xir_value *value = xir_build_unary(&k.b, XIR_OP_NEG, xir_build_cast(&k.b, id, TIR_I64));
    xir_build_fault(&k.b, xk_u32(&k, 7), value);
    xir_build_br(&k.b, write);
    xir_builder_at_end(&k.b, write);
    xk_write(&k, out, id, id);
    xir_build_ret(&k.b);
    uint32_t mem[12];
    tir_buffer arg = xbuf(mem, sizeof mem);
    for (uint32_t w = 1; w <= 16; w *= 2) {
        fault_record faults = {0};
        xir_interp_options o = xir_interp_default_options();
        o.faults = &faults;
        memset(mem, 0xff, sizeof mem);
        CHECK(xk_run_with(&k, 12, w, 1, &arg, &o) == TILEC_OK);
        CHECK_MSG(faults.count == 6 && faults.site == 7 && faults.value == -1, "W=%u: %llu faults, site %u, value %lld",
                  w, (unsigned long long)faults.count, faults.site, (long long)faults.value);
        for (uint32_t j = 0; j < 12; j++) CHECK(mem[j] == j);
        expect_error(xk_run_with(&k, 12, w, 1, &arg, NULL), TILEC_E_RUNTIME, "XIR-I14",
                     "bounds fault at site 7: value -1 is out of range");
    }
    xk_close(&k);
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    test_faults();
    test_private_arrays_per_lane();
    test_alloca_fresh_per_execution();
    test_private_memory_per_run();
    test_local_index_range();
    test_private_budget();
    test_buffer_index_range();
    test_element_types();
    test_word_reads();
    test_array_phi();
    test_aliasing_and_address();
    test_uninitialized_read();
    test_allocation_failures();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
