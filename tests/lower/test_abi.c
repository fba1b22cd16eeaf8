/* Typed ABI and dispatch metadata, and the root mapping.
 *
 * GEMM 17×19×13 with 2×3×4 blocks: dispatch 63, arguments A/B/C of 884/988/
 * 1292 bytes with usages R/R/W, buffer arguments named and ordered as the
 * TileIR parameters, block size B.  Root traversal: for every permutation of
 * 1-, 2- and 3-D roots (unit axes included), a kernel that increments its own
 * row-major element visits every element exactly once on the XIR interpreter
 * at every W, and the store address of each dispatch ordinal — evaluated from
 * the emitted XIR — follows the outer-to-inner order exactly. */
#include "lower_fixture.h"

#include "plan/root_map.h"

static void test_gemm_abi(void) {
    char path[512];
    snprintf(path, sizeof path, "%s/examples/gemm.tir", TILEC_SOURCE_DIR);
    size_t n;
    char *text = read_file(path, &n);
    tir_define d[6] = {{"M", 17}, {"N", 19}, {"K", 13}, {"BM", 2}, {"BN", 3}, {"BK", 4}};
    tir_module *m = text ? parse_kernel(text, d, 6) : NULL;
    free(text);
    if (!m) return;
    lower_options o = lower_options_default();
    o.block_size = 32;
    lower_result r;
    if (lower_ok(tir_module_func(m, 0), &o, &r)) {
        static const char *names[] = {"A", "B", "C"};
        static const uint64_t bytes[] = {884, 988, 1292};
        static const unsigned usage[] = {LOWER_USAGE_READ, LOWER_USAGE_READ, LOWER_USAGE_WRITE};
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

/* ---- root traversal ---- */

/* Evaluates an integer XIR expression of dispatch_id (consts, the special
 * register, casts, add/sub/mul/div/mod on nonnegative values). */
static bool eval(const xir_value *v, uint64_t j, uint64_t *out) {
    if (v->kind == XIR_VALUE_CONST) return *out = v->constant.u, true;
    if (v->kind == XIR_VALUE_SPECIAL) return v->special == XIR_SPECIAL_DISPATCH_ID && (*out = j, true);
    const xir_inst *i = (const xir_inst *)v;
    if (v->kind != XIR_VALUE_INST) return false;
    uint64_t a, b;
    if (i->kind == XIR_INST_CAST) return eval(xir_operand(i, 0), j, out);
    if (i->kind != XIR_INST_ARITH || !eval(xir_operand(i, 0), j, &a) || !eval(xir_operand(i, 1), j, &b)) return false;
    switch (i->op) {
    case XIR_OP_ADD: *out = a + b; return true;
    case XIR_OP_SUB: *out = a - b; return true;
    case XIR_OP_MUL: *out = a * b; return true;
    case XIR_OP_DIV: *out = b ? a / b : 0; return true;
    case XIR_OP_MOD: *out = b ? a % b : 0; return true;
    default: return false;
    }
}

static const xir_inst *the_store(const xir_func *f) {
    for (xir_block *b = f->first; b; b = b->next)
        for (xir_inst *i = b->first; i; i = i->next)
            if (i->kind == XIR_INST_BUFFER_WRITE) return i;
    return NULL;
}

/* Independent reference: dispatch ordinal j under order π (outer → inner)
 * to the row-major element of the root coordinate. */
static uint64_t reference_element(const uint64_t *extents, uint32_t rank, const uint32_t *order, uint64_t j) {
    uint64_t coord[8], element = 0;
    for (uint32_t t = rank; t-- > 0;) {
        coord[order[t]] = j % extents[order[t]];
        j /= extents[order[t]];
    }
    for (uint32_t a = 0; a < rank; a++) element = element * extents[a] + coord[a];
    return element;
}

/* The kernel: O[flat(root coordinate)] += 1. */
static tir_module *root_kernel(const uint64_t *extents, uint32_t rank) {
    char text[1024], *p = text;
    uint64_t volume = 1;
    for (uint32_t a = 0; a < rank; a++) volume *= extents[a];
    p += sprintf(p, "kernel @root(%%O: view<f32>[O.0=%llu]) {\n  parallel (", (unsigned long long)volume);
    for (uint32_t a = 0; a < rank; a++) p += sprintf(p, "%s%%c%u: d%u=%llu", a ? ", " : "", a, a, (unsigned long long)extents[a]);
    p += sprintf(p, ") {\n    %%f0 = const index 0\n");
    for (uint32_t a = 0; a < rank; a++)
        p += sprintf(p, "    %%e%u = const index %llu\n    %%g%u = mul %%f%u, %%e%u\n    %%f%u = add %%g%u, %%c%u\n", a,
                     (unsigned long long)extents[a], a, a, a, a + 1, a, a);
    sprintf(p, "    %%x = load %%O[%%f%u]\n    %%one = const f32 1.0\n    %%y = add %%x, %%one\n"
               "    store %%O[%%f%u], %%y\n  }\n}\n", rank, rank);
    return parse_kernel(text, NULL, 0);
}

static bool next_permutation(uint32_t *p, uint32_t n) {
    int i = (int)n - 2;
    while (i >= 0 && p[i] > p[i + 1]) i--;
    if (i < 0) return false;
    int j = (int)n - 1;
    while (p[j] < p[i]) j--;
    uint32_t t = p[i];
    p[i] = p[j], p[j] = t;
    for (uint32_t a = (uint32_t)i + 1, b = n - 1; a < b; a++, b--) t = p[a], p[a] = p[b], p[b] = t;
    return true;
}

static void check_root(const uint64_t *extents, uint32_t rank) {
    tir_module *m = root_kernel(extents, rank);
    if (!m) return;
    tir_func *f = tir_module_func(m, 0);
    uint32_t order[8];
    for (uint32_t a = 0; a < rank; a++) order[a] = a;
    do {
        lower_options o = lower_options_default();
        o.root_axis_order = order;
        o.root_axis_order_len = rank;
        lower_result r;
        if (!lower_ok(f, &o, &r)) continue;
        uint64_t volume = r.dispatch_size;
        const xir_inst *store = the_store(r.kernel);
        bool sequence_ok = store != NULL;
        for (uint64_t j = 0; sequence_ok && j < volume; j++) {
            uint64_t element;
            sequence_ok = eval(xir_operand(store, 1), j, &element) &&
                          element == reference_element(extents, rank, order, j);
        }
        CHECK_MSG(sequence_ok, "root %u-D order starting %u: store addresses differ from the reference", rank, order[0]);
        float *out = malloc(sizeof *out * volume);
        for (uint32_t w = 1; w <= 16; w *= 2) {
            for (uint64_t k = 0; k < volume; k++) out[k] = 0.0f;
            tir_buffer arg = {out, sizeof *out * volume};
            CHECK(xir_interpret(ctx, r.kernel, r.dispatch_size, w, 1, &arg) == TILEC_OK);
            bool once = true;
            for (uint64_t k = 0; k < volume; k++) once = once && out[k] == 1.0f;
            CHECK_MSG(once, "root %u-D: some element is not visited exactly once at W=%u", rank, w);
        }
        free(out);
        lower_result_free(&r);
    } while (next_permutation(order, rank));
    tilec_diag_clear(ctx);
    tir_module_destroy(m);
}

static void test_root_traversal(void) {
    static const uint64_t d1[] = {12}, d2[] = {4, 6}, d3[] = {4, 6, 3}, d4[] = {4, 1, 6}, d5[] = {1, 5, 1};
    check_root(d1, 1);
    check_root(d2, 2);
    check_root(d3, 3);
    check_root(d4, 3);
    check_root(d5, 3);
    /* The literal sequence of a 4×6 root in order {1, 0}: columns outer. */
    tir_module *m = root_kernel(d2, 2);
    static const uint32_t order[] = {1, 0};
    lower_options o = lower_options_default();
    o.root_axis_order = order;
    o.root_axis_order_len = 2;
    lower_result r;
    if (m && lower_ok(tir_module_func(m, 0), &o, &r)) {
        static const uint64_t expect[] = {0, 6, 12, 18, 1, 7, 13, 19, 2, 8, 14, 20, 3, 9, 15, 21, 4, 10, 16, 22, 5, 11, 17, 23};
        const xir_inst *store = the_store(r.kernel);
        for (uint64_t j = 0; store && j < 24; j++) {
            uint64_t element = UINT64_MAX;
            CHECK(eval(xir_operand(store, 1), j, &element) && element == expect[j]);
        }
        CHECK_STR_CONTAINS(r.realization, "root_order=[1,0];");
        lower_result_free(&r);
    }
    tir_module_destroy(m);
    /* The host-side decode agrees with the independent reference. */
    plan_root_map map;
    tir_module *m3 = root_kernel(d3, 3);
    static const uint32_t o3[] = {2, 0, 1};
    if (m3) {
        tir_op *root = tir_block_first(tir_func_body(tir_module_func(m3, 0)));
        CHECK(plan_root_map_make(ctx, tir_op_domain(root), o3, 3, &map) == TILEC_OK && !map.identity);
        for (uint64_t j = 0; j < 72; j++) {
            uint64_t c[3];
            plan_root_map_decode(&map, j, c);
            CHECK((c[0] * 6 + c[1]) * 3 + c[2] == reference_element(d3, 3, o3, j));
        }
    }
    tir_module_destroy(m3);
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    test_gemm_abi();
    test_root_traversal();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
