/* XIR interpreter, warp_read_lane and warp_sync: butterfly reductions (sum and xor) in a
 * loop at every width 1..32 (32: a GPU warp, whose shuffles these model),
 * broadcasts (from lane 0 and the last lane, in tail packets, of f32 bit
 * patterns), exchanges among the lanes still running, and the errors: a lane
 * outside the packet, an inactive lane, a returned lane, lanes waiting at
 * different instructions or different occurrences; warp_sync ordering the
 * lanes' buffer writes before their reads, and a lane returning before it. */
#include "xir_interp_fixture.h"

#include <stdint.h>

static xir_value *lane_id(xkernel *k) { return xk_special(k, XIR_SPECIAL_WARP_LANE_ID); }
static xir_value *dispatch_id(xkernel *k) { return xk_special(k, XIR_SPECIAL_DISPATCH_ID); }

/* v = id + 1; for (d = 1; d < warp_size; d <<= 1) v = v OP read_lane(v, lane ^ d);
 * out[id] = v. */
static xkernel butterfly_kernel(xir_arith_op op) {
    xkernel k = xk_open(op == XIR_OP_ADD ? "butterfly_sum" : "butterfly_xor", 32);
    xir_value *out = xir_func_add_buffer(k.f, "out", TIR_U32);
    xir_block *entry = k.b.block, *header = xir_block_new(k.f, "header"), *body = xir_block_new(k.f, "body"),
              *exit = xir_block_new(k.f, "exit");
    xir_value *v0 = xk_bin(&k, XIR_OP_ADD, dispatch_id(&k), xk_u32(&k, 1));
    xir_build_br(&k.b, header);
    xir_builder_at_end(&k.b, header);
    xir_inst *d = xir_build_phi(&k.b, xir_type_scalar(k.m, TIR_U32)), *v = xir_build_phi(&k.b, xir_type_scalar(k.m, TIR_U32));
    xir_build_cond_br(&k.b, xk_bin(&k, XIR_OP_LT, &d->value, xk_special(&k, XIR_SPECIAL_WARP_SIZE)), body, exit);
    xir_builder_at_end(&k.b, body);
    xir_value *got = xir_build_warp_read_lane(&k.b, &v->value, xk_bin(&k, XIR_OP_XOR, lane_id(&k), &d->value));
    xir_value *v2 = xk_bin(&k, op, &v->value, got);
    xir_value *d2 = xk_bin(&k, XIR_OP_SHL, &d->value, xk_u32(&k, 1));
    xir_build_br(&k.b, header);
    xir_builder_at_end(&k.b, exit);
    xk_write(&k, out, dispatch_id(&k), &v->value);
    xir_build_ret(&k.b);
    xir_phi_add_incoming(d, xk_u32(&k, 1), entry);
    xir_phi_add_incoming(d, d2, body);
    xir_phi_add_incoming(v, v0, entry);
    xir_phi_add_incoming(v, v2, body);
    return k;
}

static void test_butterflies(void) {
    for (int x = 0; x < 2; x++) {
        xir_arith_op op = x ? XIR_OP_XOR : XIR_OP_ADD;
        xkernel k = butterfly_kernel(op);
        for (uint32_t w = 1; w <= 32; w *= 2) {
            uint32_t n = 3 * w, mem[96];
            tir_buffer arg = xbuf(mem, n * sizeof(uint32_t));
            if (!xk_run_ok(&k, n, w, 1, &arg)) continue;
            int bad = 0;
            for (uint32_t j = 0; j < n; j++) {
                uint32_t want = 0, base = j - j % w;
                for (uint32_t l = 0; l < w; l++) want = op == XIR_OP_ADD ? want + base + l + 1 : want ^ (base + l + 1);
                bad += mem[j] != want;
            }
            CHECK_MSG(bad == 0, "%s W=%u: %d lanes wrong", k.f->name, w, bad);
        }
        /* a tail packet: the butterfly reads a lane past the dispatch */
        uint32_t mem[16];
        tir_buffer arg = xbuf(mem, sizeof mem);
        expect_error(xk_run_with(&k, 7, 8, 1, &arg, NULL), TILEC_E_RUNTIME, "XIR-I12",
                     "reads lane 7, which is inactive (dispatch id 7 >= dispatch size 7)");
        /* ... and in a warp: lane 30's partner 31 (step 1) is past it */
        uint32_t warp[64];
        arg = xbuf(warp, sizeof warp);
        expect_error(xk_run_with(&k, 63, 32, 1, &arg, NULL), TILEC_E_RUNTIME, "XIR-I12",
                     "(dispatch id 62, lane 30): reads lane 31, which is inactive (dispatch id 63 >= dispatch size 63)");
        xk_close(&k);
    }
}

/* out[id] = read_lane(value, src) with value = id * 3 + 1. */
static xkernel broadcast_kernel(xir_value *(*src)(xkernel *)) {
    xkernel k = xk_open("broadcast", 32);
    xir_value *out = xir_func_add_buffer(k.f, "out", TIR_U32);
    xir_value *value = xk_bin(&k, XIR_OP_ADD, xk_bin(&k, XIR_OP_MUL, dispatch_id(&k), xk_u32(&k, 3)), xk_u32(&k, 1));
    xk_write(&k, out, dispatch_id(&k), xir_build_warp_read_lane(&k.b, value, src(&k)));
    xir_build_ret(&k.b);
    return k;
}

static xir_value *first_lane(xkernel *k) { return xk_u32(k, 0); }
static xir_value *last_lane(xkernel *k) {
    return xk_bin(k, XIR_OP_SUB, xk_special(k, XIR_SPECIAL_WARP_SIZE), xk_u32(k, 1));
}
static xir_value *beyond_packet(xkernel *k) { return xk_special(k, XIR_SPECIAL_WARP_SIZE); }
static xir_value *minus_one(xkernel *k) { return xir_const_int(k->m, TIR_I32, -1); }

static void test_broadcasts(void) {
    xkernel k = broadcast_kernel(first_lane);
    for (uint32_t w = 1; w <= 32; w *= 2) {
        uint32_t n = 2 * w + 1, mem[65]; /* the last packet has one active lane */
        tir_buffer arg = xbuf(mem, n * sizeof(uint32_t));
        if (!xk_run_ok(&k, n, w, 1, &arg)) continue;
        int bad = 0;
        for (uint32_t j = 0; j < n; j++) bad += mem[j] != (j - j % w) * 3 + 1;
        CHECK_MSG(bad == 0, "broadcast from lane 0, W=%u: %d wrong", w, bad);
    }
    xk_close(&k);

    k = broadcast_kernel(last_lane);
    for (uint32_t w = 1; w <= 32; w *= 2) {
        uint32_t mem[64];
        tir_buffer arg = xbuf(mem, sizeof mem);
        if (!xk_run_ok(&k, 2 * w, w, 1, &arg)) continue;
        int bad = 0;
        for (uint32_t j = 0; j < 2 * w; j++) bad += mem[j] != (j - j % w + w - 1) * 3 + 1;
        CHECK_MSG(bad == 0, "broadcast from lane W-1, W=%u: %d wrong", w, bad);
    }
    /* ... which is inactive in a tail packet */
    uint32_t mem[32];
    tir_buffer arg = xbuf(mem, sizeof mem);
    expect_error(xk_run_with(&k, 6, 4, 1, &arg, NULL), TILEC_E_RUNTIME, "XIR-I12", "reads lane 3, which is inactive");
    expect_error(xk_run_with(&k, 31, 32, 1, &arg, NULL), TILEC_E_RUNTIME, "XIR-I12", "reads lane 31, which is inactive");
    xk_close(&k);

    k = broadcast_kernel(beyond_packet);
    expect_error(xk_run_with(&k, 4, 4, 1, &arg, NULL), TILEC_E_RUNTIME, "XIR-I11",
                 "lane 4 is outside the packet of 4 lanes");
    expect_error(xk_run_with(&k, 32, 32, 1, &arg, NULL), TILEC_E_RUNTIME, "XIR-I11",
                 "lane 32 is outside the packet of 32 lanes");
    xk_close(&k);
    k = broadcast_kernel(minus_one);
    k.malformed = true; /* an i32 lane (XIR-V23), so that it can be negative */
    expect_error(xk_run_with(&k, 2, 2, 1, &arg, NULL), TILEC_E_RUNTIME, "XIR-I11", "lane -1 is outside");
    xk_close(&k);
}

/* f32 values are exchanged bit for bit (a signalling-NaN pattern, -0). */
static void test_exchange_bits(void) {
    xkernel k = xk_open("bits", 4);
    xir_value *in = xir_func_add_buffer(k.f, "in", TIR_F32), *out = xir_func_add_buffer(k.f, "out", TIR_F32);
    xir_value *id64 = xir_build_cast(&k.b, dispatch_id(&k), TIR_U64);
    xir_value *v = xir_build_buffer_read(&k.b, in, id64);
    xir_value *peer = xk_bin(&k, XIR_OP_XOR, lane_id(&k), xk_u32(&k, 1));
    xir_build_buffer_write(&k.b, out, id64, xir_build_warp_read_lane(&k.b, v, peer));
    xir_build_ret(&k.b);
    uint32_t src[4] = {0x7f800001u, 0x80000000u, 0xffc0abcdu, 0x3f800000u}, dst[4] = {0};
    tir_buffer args[2] = {xbuf(src, sizeof src), xbuf(dst, sizeof dst)};
    CHECK(xk_run_ok(&k, 4, 4, 2, args) && dst[0] == src[1] && dst[1] == src[0] && dst[2] == src[3] &&
          dst[3] == src[2]);
    xk_close(&k);
}

/* Odd lanes return at once; even lanes then exchange among themselves
 * (reading lane 0 works; reading an odd lane does not). */
static xkernel early_return_kernel(bool read_neighbour) {
    xkernel k = xk_open("early_return", 8);
    xir_value *out = xir_func_add_buffer(k.f, "out", TIR_U32);
    xir_block *leave = xir_block_new(k.f, "leave"), *stay = xir_block_new(k.f, "stay");
    xir_value *odd = xk_bin(&k, XIR_OP_AND, lane_id(&k), xk_u32(&k, 1));
    xir_build_cond_br(&k.b, xk_bin(&k, XIR_OP_NE, odd, xk_u32(&k, 0)), leave, stay);
    xir_builder_at_end(&k.b, leave);
    xir_build_ret(&k.b);
    xir_builder_at_end(&k.b, stay);
    xir_value *src = read_neighbour ? xk_bin(&k, XIR_OP_ADD, lane_id(&k), xk_u32(&k, 1)) : xk_u32(&k, 0);
    xir_value *value = xk_bin(&k, XIR_OP_ADD, dispatch_id(&k), xk_u32(&k, 100));
    xk_write(&k, out, dispatch_id(&k), xir_build_warp_read_lane(&k.b, value, src));
    xir_build_ret(&k.b);
    return k;
}

static void test_returned_lanes(void) {
    uint32_t mem[8];
    tir_buffer arg = xbuf(mem, sizeof mem);
    xkernel k = early_return_kernel(false);
    for (int e = 0; e < 8; e++) mem[e] = 0;
    CHECK(xk_run_ok(&k, 8, 4, 1, &arg));
    CHECK(mem[0] == 100 && mem[2] == 100 && mem[4] == 104 && mem[6] == 104);
    CHECK(mem[1] == 0 && mem[3] == 0 && mem[5] == 0 && mem[7] == 0);
    xk_close(&k);
    k = early_return_kernel(true);
    expect_error(xk_run_with(&k, 8, 4, 1, &arg, NULL), TILEC_E_RUNTIME, "XIR-I12",
                 "(dispatch id 0, lane 0): reads lane 1, which has already returned");
    xk_close(&k);
}

/* Lane l runs l % 3 + 1 trips of v = v + read_lane(v, self), then (if
 * `second`) meets the others at one more exchange after the loop.  Without it,
 * lanes leave the loop at different times and the rest exchange without them;
 * with it, a lane that left early waits at the second exchange while others
 * still wait in the loop: an error. */
static xkernel varying_trips_kernel(bool second) {
    xkernel k = xk_open(second ? "occurrences" : "varying_trips", 32);
    xir_value *out = xir_func_add_buffer(k.f, "out", TIR_U32);
    xir_block *entry = k.b.block, *loop = xir_block_new(k.f, "loop"), *exit = xir_block_new(k.f, "exit");
    xir_value *trips = xk_bin(&k, XIR_OP_ADD, xk_bin(&k, XIR_OP_MOD, lane_id(&k), xk_u32(&k, 3)), xk_u32(&k, 1));
    xir_value *v0 = xk_bin(&k, XIR_OP_ADD, dispatch_id(&k), xk_u32(&k, 1));
    xir_build_br(&k.b, loop);
    xir_builder_at_end(&k.b, loop);
    xir_inst *i = xir_build_phi(&k.b, xir_type_scalar(k.m, TIR_U32)), *v = xir_build_phi(&k.b, xir_type_scalar(k.m, TIR_U32));
    xir_value *got = xir_build_warp_read_lane(&k.b, &v->value, lane_id(&k));
    got->name = "in_loop";
    xir_value *v2 = xk_bin(&k, XIR_OP_ADD, &v->value, got);
    xir_value *i2 = xk_bin(&k, XIR_OP_ADD, &i->value, xk_u32(&k, 1));
    xir_build_cond_br(&k.b, xk_bin(&k, XIR_OP_LT, i2, trips), loop, exit);
    xir_builder_at_end(&k.b, exit);
    xir_value *result = v2;
    if (second) result = xir_build_warp_read_lane(&k.b, v2, xk_u32(&k, 0));
    xk_write(&k, out, dispatch_id(&k), result);
    xir_build_ret(&k.b);
    xir_phi_add_incoming(i, xk_u32(&k, 0), entry);
    xir_phi_add_incoming(i, i2, loop);
    xir_phi_add_incoming(v, v0, entry);
    xir_phi_add_incoming(v, v2, loop);
    return k;
}

static void test_varying_trip_exchanges(void) {
    uint32_t mem[40]; /* at W = 32: a full warp and a tail of 8 lanes */
    tir_buffer arg = xbuf(mem, sizeof mem);
    xkernel k = varying_trips_kernel(false);
    for (uint32_t w = 1; w <= 32; w *= 2) {
        if (!xk_run_ok(&k, 40, w, 1, &arg)) continue;
        int bad = 0;
        for (uint32_t j = 0; j < 40; j++) bad += mem[j] != (j + 1) << ((j % w) % 3 + 1);
        CHECK_MSG(bad == 0, "W=%u: %d wrong", w, bad);
    }
    xk_close(&k);
    k = varying_trips_kernel(true);
    CHECK(xk_run_ok(&k, 40, 1, 1, &arg)); /* one lane per packet: nothing to disagree with */
    expect_error(xk_run_with(&k, 16, 4, 1, &arg, NULL), TILEC_E_RUNTIME, "XIR-I13",
                 "(dispatch id 1, lane 1): lanes diverged at warp_read_lane: lane 0 waits at");
    xk_close(&k);
}

/* Lane 0 reads at one instruction, the others at another. */
static void test_divergent_sites(void) {
    xkernel k = xk_open("divergent", 4);
    xir_value *out = xir_func_add_buffer(k.f, "out", TIR_U32);
    xir_block *left = xir_block_new(k.f, "left"), *right = xir_block_new(k.f, "right");
    xir_build_cond_br(&k.b, xk_bin(&k, XIR_OP_EQ, lane_id(&k), xk_u32(&k, 0)), left, right);
    xir_builder_at_end(&k.b, left);
    xir_value *a = xir_build_warp_read_lane(&k.b, dispatch_id(&k), xk_u32(&k, 0));
    a->name = "a";
    xk_write(&k, out, dispatch_id(&k), a);
    xir_build_ret(&k.b);
    xir_builder_at_end(&k.b, right);
    xir_value *b = xir_build_warp_read_lane(&k.b, dispatch_id(&k), xk_u32(&k, 0));
    b->name = "b";
    xk_write(&k, out, dispatch_id(&k), b);
    xir_build_ret(&k.b);
    uint32_t mem[4];
    tir_buffer arg = xbuf(mem, sizeof mem);
    expect_error(xk_run_with(&k, 4, 4, 1, &arg, NULL), TILEC_E_RUNTIME, "XIR-I13",
                 "warp_read_lane %b in block 'right' of 'divergent' (dispatch id 1, lane 1): lanes diverged at "
                 "warp_read_lane: lane 0 waits at %a in block 'left'");
    /* a single active lane has no one to disagree with */
    CHECK(xk_run_ok(&k, 1, 4, 1, &arg) && mem[0] == 0);
    xk_close(&k);
}

/* Each exchange counts one step per participating lane. */
static void test_exchange_steps(void) {
    xkernel k = broadcast_kernel(first_lane);
    /* per lane: mul, add, warp_read_lane, cast, buffer_write, ret */
    xir_interp_options o = xir_interp_default_options();
    uint32_t mem[4];
    tir_buffer arg = xbuf(mem, sizeof mem);
    o.max_steps = 4 * 6;
    CHECK(xk_run_with(&k, 4, 4, 1, &arg, &o) == TILEC_OK);
    o.max_steps = 4 * 6 - 1;
    expect_error(xk_run_with(&k, 4, 4, 1, &arg, &o), TILEC_E_BUDGET, "XIR-I05", NULL);
    xk_close(&k);
}

/* Lane l writes out[id] = id + 1, then (`sync`) meets the others at a
 * warp_sync, then reads its neighbour's element out[base + (l + 1) % W]
 * into next[id].  Without the sync the lanes run one at a time, so each
 * reads its neighbour's element before the neighbour wrote it (0) — the
 * last lane excepted; with it, every write comes before every read.  And
 * `early`: lane 1 returns before the sync, an error. */
static xkernel sync_kernel(bool sync, bool early) {
    xkernel k = xk_open(sync ? "synced" : "unsynced", 32);
    xir_value *out = xir_func_add_buffer(k.f, "out", TIR_U32), *next = xir_func_add_buffer(k.f, "next", TIR_U32);
    xk_write(&k, out, dispatch_id(&k), xk_bin(&k, XIR_OP_ADD, dispatch_id(&k), xk_u32(&k, 1)));
    if (early) {
        xir_block *gone = xir_block_new(k.f, "gone"), *stay = xir_block_new(k.f, "stay");
        xir_build_cond_br(&k.b, xk_bin(&k, XIR_OP_EQ, lane_id(&k), xk_u32(&k, 1)), gone, stay);
        xir_builder_at_end(&k.b, gone);
        xir_build_ret(&k.b);
        xir_builder_at_end(&k.b, stay);
    }
    if (sync) xir_build_warp_sync(&k.b);
    xir_value *w = xk_special(&k, XIR_SPECIAL_WARP_SIZE);
    xir_value *base = xk_bin(&k, XIR_OP_SUB, dispatch_id(&k), lane_id(&k));
    xir_value *peer = xk_bin(&k, XIR_OP_ADD, base, xk_bin(&k, XIR_OP_MOD, xk_bin(&k, XIR_OP_ADD, lane_id(&k), xk_u32(&k, 1)), w));
    xk_write(&k, next, dispatch_id(&k), xir_build_buffer_read(&k.b, out, xir_build_cast(&k.b, peer, TIR_U64)));
    xir_build_ret(&k.b);
    return k;
}

static void test_warp_sync(void) {
    uint32_t out[64], next[64];
    tir_buffer args[2] = {xbuf(out, sizeof out), xbuf(next, sizeof next)};
    for (int sync = 0; sync < 2; sync++) {
        xkernel k = sync_kernel(sync, false);
        for (uint32_t w = 2; w <= 32; w *= 2) {
            memset(out, 0, sizeof out);
            memset(next, 0xff, sizeof next);
            if (!xk_run_ok(&k, 64, w, 2, args)) continue;
            int bad = 0;
            for (uint32_t j = 0; j < 64; j++) {
                uint32_t l = j % w, peer = j - l + (l + 1) % w;
                uint32_t want = sync || l == w - 1 ? peer + 1 : 0; /* unsynced: only the last lane reads a write */
                bad += next[j] != want;
            }
            CHECK_MSG(bad == 0, "%s W=%u: %d lanes wrong", k.f->name, w, bad);
        }
        xk_close(&k);
    }
    xkernel k = sync_kernel(true, true);
    expect_error(xk_run_with(&k, 8, 4, 2, args, NULL), TILEC_E_RUNTIME, "XIR-I13",
                 "lane 1 returned while the other lanes wait at warp_sync");
    xk_close(&k);
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    test_warp_sync();
    test_butterflies();
    test_broadcasts();
    test_exchange_bits();
    test_returned_lanes();
    test_varying_trip_exchanges();
    test_divergent_sites();
    test_exchange_steps();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
