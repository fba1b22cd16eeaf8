/* Typed ABI and dispatch metadata (the root mapping is test_root_map.c).
 *
 * GEMM 17×19×13 with 2×3×4 blocks: dispatch 63, arguments A/B/C of 884/988/
 * 1292 bytes with usages R/R/W, buffer arguments named and ordered as the
 * TileIR parameters, block size B. */
#include "lower_fixture.h"

static void test_gemm_abi(void) {
    char path[512];
    snprintf(path, sizeof path, "%s/examples/gemm.tir", TILEC_SOURCE_DIR);
    size_t n;
    char *text = read_file(path, &n);
    tir_define d[6] = {{"M", 17}, {"N", 19}, {"K", 13}, {"BM", 2}, {"BN", 3}, {"BK", 4}};
    tir_module *m = text ? parse_kernel(text, d, 6) : NULL;
    free(text);
    if (!m) return;
    lowering o = lowering_default();
    o.choice.block = 32;
    lower_result r;
    if (lower_ok(tir_module_func(m, 0), &o, &r)) {
        static const char *names[] = {"A", "B", "C"};
        static const uint64_t bytes[] = {884, 988, 1292};
        static const unsigned usage[] = {TIR_USE_READ, TIR_USE_READ, TIR_USE_WRITE};
        CHECK(r.dispatch_size == 63 && r.block_size == 32 && r.kernel->block_size == 32);
        CHECK(r.required_packet_width == 0 && r.packet_width == 8);
        CHECK(!strcmp(r.kernel->name, "gemm"));
        CHECK(r.arg_count == 3 && r.kernel->args.len == 3);
        for (size_t i = 0; i < 3 && r.arg_count == 3; i++) {
            CHECK(!strcmp(r.args[i].name, names[i]) && r.args[i].elem == TIR_F32);
            CHECK(r.args[i].min_bytes == bytes[i] && r.args[i].usage == usage[i]);
            const xir_value *a = r.kernel->args.data[i];
            CHECK(a->kind == XIR_VALUE_ARG && a->arg_index == i && !strcmp(a->name, names[i]));
            CHECK(a->type->kind == XIR_TYPE_BUFFER && a->type->scalar == TIR_F32);
        }
        CHECK_STR_CONTAINS(r.realization, "plan=fixed; local_lanes=1; block=32; width=8; root_order=[0,1]; "
                                          "dispatch_size=63; required_packet_width=0;");
        /* One PHI per accumulator element, no private arrays. */
        CHECK(r.counters.phi_carries == 1 && r.resources.snapshot_allocations == 0);
        CHECK(count_insts(r.kernel, XIR_INST_PHI, XIR_OP_INVALID) >= 6);
        lower_result_free(&r);
    }
    CHECK(tir_verify(ctx, m) == TILEC_OK);
    tir_module_destroy(m);
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    test_gemm_abi();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
