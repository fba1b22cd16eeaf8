/* The root mapping: root order π and root axis tiles (realize/root_map.h), ported
 * from upstream test_tile_xir cases 1 and 2 (ref/upstream-tests-bench.md §1.1).
 *
 * Kernel: a 1-, 2- or 3-D root whose program adds 1 to O[row-major(root
 * coordinate)].  For every root-order permutation of 12, 4×6, 4×1×6, 4×6×3
 * and 1×5×1, untiled and with each factor set of case 1:
 *   - the element each dispatch ordinal visits, read two ways from the
 *     emitted XIR — evaluating the store-address DAG, and running the XIR
 *     interpreter on the dispatch prefix 0..j (exactly one new element) —
 *     equals an independent outer-block / inner-element reference model, and
 *     so does the host decode;
 *   - every element is visited exactly once at every W;
 *   - a tiling whose reference sequence equals the untiled one lowers to
 *     byte-identical XIR text and reports `plain`; any other tiling changes
 *     both the sequence and the text (33 identity and 16 other cases, counted
 *     by hand below);
 *   - the decode-arithmetic count moves exactly as the emitted div/mod/mul/add.
 * Literal sequences for 4×6: order {1,0}; order {0,1} with tiles {2,3}.
 * Refusals (case 2), with their exact messages, both from lower_kernel and
 * from plan_root_map_check: tiles {2}, {2,3,1}, {0,3}, {3,3}, {8,3},
 * {2,UINT32_MAX}; orders {0}, {0,0}, {0,2}; a 65536×65536 root with tiles
 * 256×256. */
#include "lower_fixture.h"

#include "realize/root_map.h"

#include <stdint.h>

enum { MAX_VOLUME = 72 };

/* ---- kernel and observations ---- */

/* O[flat(root coordinate)] += 1. */
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

static const tir_space *root_domain(const tir_module *m) {
    return tir_op_domain(tir_block_first(tir_func_body(tir_module_func(m, 0))));
}

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

/* The element of each dispatch ordinal, from the store-address DAG. */
static bool store_sequence(const lower_result *r, uint64_t *seq) {
    const xir_inst *store = the_store(r->kernel);
    bool ok = store != NULL;
    for (uint64_t j = 0; ok && j < r->dispatch_size; j++) ok = eval(xir_operand(store, 1), j, &seq[j]);
    return ok;
}

/* The element of each dispatch ordinal, observed on the XIR interpreter at
 * W = 1: running the prefix 0..j leaves exactly one more element at 1 than
 * the prefix 0..j-1, and every other element unchanged. */
static bool interpreted_sequence(const lower_result *r, uint64_t *seq) {
    uint64_t volume = r->dispatch_size;
    float out[MAX_VOLUME];
    bool seen[MAX_VOLUME] = {false}, ok = volume <= MAX_VOLUME;
    for (uint64_t j = 0; ok && j < volume; j++) {
        for (uint64_t k = 0; k < volume; k++) out[k] = 0.0f;
        tir_buffer arg = {out, sizeof *out * volume};
        ok = xir_interpret(ctx, r->kernel, (uint32_t)j + 1, 1, 1, &arg) == TILEC_OK;
        unsigned fresh = 0;
        for (uint64_t k = 0; ok && k < volume; k++) {
            if (out[k] == 1.0f && !seen[k]) fresh++, seq[j] = k;
            else ok = out[k] == (seen[k] ? 1.0f : 0.0f);
        }
        ok = ok && fresh == 1;
        if (ok) seen[seq[j]] = true;
    }
    return ok;
}

/* Every element exactly once, at every packet width. */
static bool visits_once(const lower_result *r) {
    uint64_t volume = r->dispatch_size;
    float out[MAX_VOLUME];
    bool ok = volume <= MAX_VOLUME;
    for (uint32_t w = 1; ok && w <= 16; w *= 2) {
        for (uint64_t k = 0; k < volume; k++) out[k] = 0.0f;
        tir_buffer arg = {out, sizeof *out * volume};
        ok = xir_interpret(ctx, r->kernel, r->dispatch_size, w, 1, &arg) == TILEC_OK;
        for (uint64_t k = 0; ok && k < volume; k++) ok = out[k] == 1.0f;
    }
    return ok;
}

/* ---- the independent reference ---- */

/* Dispatch ordinal j → row-major element: j enumerates tile blocks (outer)
 * and the elements inside a block (inner), both row-major in π order; the
 * coordinate is block · tile + element.  tiles NULL = untiled. */
static uint64_t reference_element(const uint64_t *extents, uint32_t rank, const uint32_t *order, const uint32_t *tiles,
                                  uint64_t j) {
    uint64_t tile_volume = 1, coord[3] = {0}, element = 0;
    for (uint32_t a = 0; a < rank; a++) tile_volume *= tiles ? tiles[a] : 1;
    uint64_t block = j / tile_volume, inside = j % tile_volume;
    for (uint32_t t = rank; t-- > 0;) {
        uint32_t a = order[t];
        uint64_t tile = tiles ? tiles[a] : 1, blocks = extents[a] / tile;
        coord[a] = block % blocks * tile + inside % tile;
        block /= blocks;
        inside /= tile;
    }
    for (uint32_t a = 0; a < rank; a++) element = element * extents[a] + coord[a];
    return element;
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

/* ---- one lowering, checked against the reference ---- */

typedef struct {
    lower_result r;
    strbuf text; /* the printed module */
    uint64_t seq[MAX_VOLUME];
    plan_root_map map;
    int64_t div, mod, mul, add; /* emitted arithmetic instructions of each kind */
} lowered;

static bool lower_checked(tir_module *m, const uint64_t *extents, uint32_t rank, const uint32_t *order,
                          const uint32_t *tiles, lowered *out) {
    lowering o = lowering_default();
    o.choice.order = order;
    o.choice.order_len = rank;
    o.choice.tiles = tiles;
    o.choice.tiles_len = tiles ? rank : 0;
    strbuf_init(&out->text, ctx);
    if (!lower_ok(tir_module_func(m, 0), &o, &out->r)) return false;
    CHECK(xir_print_to_strbuf(out->r.module, &out->text));
    CHECK(plan_root_map_make(ctx, root_domain(m), order, rank, tiles, tiles ? rank : 0, &out->map) == TILEC_OK);
    out->div = (int64_t)count_insts(out->r.kernel, XIR_INST_ARITH, XIR_OP_DIV);
    out->mod = (int64_t)count_insts(out->r.kernel, XIR_INST_ARITH, XIR_OP_MOD);
    out->mul = (int64_t)count_insts(out->r.kernel, XIR_INST_ARITH, XIR_OP_MUL);
    out->add = (int64_t)count_insts(out->r.kernel, XIR_INST_ARITH, XIR_OP_ADD);

    uint64_t volume = out->r.dispatch_size, observed[MAX_VOLUME], coords[3];
    bool stored = volume <= MAX_VOLUME && store_sequence(&out->r, out->seq);
    bool interpreted = stored && interpreted_sequence(&out->r, observed);
    bool matches = stored && interpreted, decoded = stored;
    for (uint64_t j = 0; stored && j < volume; j++) {
        uint64_t want = reference_element(extents, rank, order, tiles, j);
        matches = matches && out->seq[j] == want && observed[j] == want;
        plan_root_map_decode(&out->map, j, coords);
        uint64_t element = 0;
        for (uint32_t a = 0; a < rank; a++) element = element * extents[a] + coords[a];
        decoded = decoded && element == want;
    }
    CHECK_MSG(stored && interpreted, "%u-D root order starting %u: sequence not observable", rank, order[0]);
    CHECK_MSG(matches, "%u-D root order starting %u%s: the visit sequence differs from the reference", rank, order[0],
              tiles ? " (tiled)" : "");
    CHECK_MSG(decoded, "%u-D root: the host decode differs from the reference", rank);
    CHECK_MSG(visits_once(&out->r), "%u-D root: some element is not visited exactly once", rank);
    return true;
}

static void lowered_free(lowered *l) {
    lower_result_free(&l->r);
    strbuf_free(&l->text);
}

static unsigned identity_cases, changed_cases;

/* The tiled lowering against the untiled one of the same order. */
static void compare_tiling(tir_module *m, const uint64_t *extents, uint32_t rank, const uint32_t *order,
                           const uint32_t *tiles, const lowered *plain) {
    lowered tiled;
    if (!lower_checked(m, extents, rank, order, tiles, &tiled)) return;
    bool identity = true;
    for (uint64_t j = 0; j < plain->r.dispatch_size; j++)
        identity = identity && reference_element(extents, rank, order, tiles, j) ==
                                   reference_element(extents, rank, order, NULL, j);
    bool same_text = !strcmp(strbuf_cstr(&tiled.text), strbuf_cstr(&plain->text));
    bool same_sequence = !memcmp(tiled.seq, plain->seq, sizeof *tiled.seq * plain->r.dispatch_size);
    CHECK_MSG(same_text == identity && same_sequence == identity,
              "%u-D root, order starting %u, tiles starting %u: identity %d but same text %d, same sequence %d", rank,
              order[0], tiles[0], identity, same_text, same_sequence);
    CHECK(tiled.map.plain == identity && plan_root_map_same(&tiled.map, &plain->map) == identity);
    identity ? identity_cases++ : changed_cases++;

    /* The cost prior counts exactly the decode instructions the lowering adds. */
    plan_root_arithmetic a = plan_root_map_decode_arithmetic(&tiled.map), b = plan_root_map_decode_arithmetic(&plain->map);
    CHECK(tiled.div - plain->div == (int64_t)a.div - b.div && tiled.mod - plain->mod == (int64_t)a.mod - b.mod);
    CHECK(tiled.mul - plain->mul == (int64_t)a.mul - b.mul && tiled.add - plain->add == (int64_t)a.add - b.add);

    char expect[128], *p = expect;
    p += sprintf(p, "; fixed_root_axis_tiles=[");
    for (uint32_t i = 0; i < rank; i++) p += sprintf(p, "%s%u", i ? "," : "", tiles[i]);
    sprintf(p, "]; root_temporal_cache_cost=unmodeled; dispatch_size=");
    CHECK_STR_CONTAINS(tiled.r.realization, expect);
    lowered_free(&tiled);
}

/* Every permutation, untiled and with each of `n_tilings` factor sets. */
static void check_root(const uint64_t *extents, uint32_t rank, const uint32_t (*tilings)[3], size_t n_tilings) {
    tir_module *m = root_kernel(extents, rank);
    if (!m) return;
    uint32_t order[3];
    for (uint32_t a = 0; a < rank; a++) order[a] = a;
    do {
        lowered plain;
        if (!lower_checked(m, extents, rank, order, NULL, &plain)) continue;
        CHECK(plain.map.plain && !strstr(plain.r.realization, "root_axis_tiles"));
        for (size_t i = 0; i < n_tilings; i++) compare_tiling(m, extents, rank, order, tilings[i], &plain);
        lowered_free(&plain);
    } while (next_permutation(order, rank));
    tir_module_destroy(m);
}

static void test_traversal(void) {
    static const uint64_t d1[] = {12}, d2[] = {4, 6}, d3[] = {4, 1, 6}, d4[] = {4, 6, 3}, d5[] = {1, 5, 1};
    static const uint32_t t1[][3] = {{1}, {3}, {12}};
    static const uint32_t t2[][3] = {{1, 1}, {1, 3}, {4, 6}, {2, 3}, {2, 1}};
    static const uint32_t t3[][3] = {{1, 1, 1}, {2, 1, 3}, {4, 1, 6}};
    static const uint32_t t4[][3] = {{1, 1, 1}, {2, 3, 1}, {4, 6, 3}};
    check_root(d1, 1, t1, 3);
    check_root(d2, 2, t2, 5);
    check_root(d3, 3, t3, 3);
    check_root(d4, 3, t4, 3);
    check_root(d5, 3, NULL, 0);
    /* Identity: 12 all 3; 4×6: 1×1, 4×6 both orders, 1×3 in {0,1}, 2×1 in
     * {1,0}; 4×1×6 and 4×6×3: all-ones and full extents in all 6 orders. */
    CHECK_MSG(identity_cases == 33 && changed_cases == 16, "identity %u, changed %u", identity_cases, changed_cases);
}

/* Literal sequences of a 4×6 root. */
static void check_literal(const uint32_t *order, const uint32_t *tiles, const uint64_t *expect) {
    static const uint64_t extents[] = {4, 6};
    tir_module *m = root_kernel(extents, 2);
    lowered l;
    if (m && lower_checked(m, extents, 2, order, tiles, &l)) {
        for (uint64_t j = 0; j < 24; j++) CHECK_MSG(l.seq[j] == expect[j], "ordinal %llu", (unsigned long long)j);
        lowered_free(&l);
    }
    tir_module_destroy(m);
}

static void test_literal_sequences(void) {
    static const uint32_t columns[] = {1, 0}, rows[] = {0, 1}, tiles[] = {2, 3};
    static const uint64_t by_columns[] = {0, 6, 12, 18, 1, 7, 13, 19, 2, 8, 14, 20,
                                          3, 9, 15, 21, 4, 10, 16, 22, 5, 11, 17, 23};
    static const uint64_t tiled[] = {0, 1, 2, 6, 7, 8, 3, 4, 5, 9, 10, 11, 12, 13, 14, 18, 19, 20, 15, 16, 17, 21, 22, 23};
    check_literal(columns, NULL, by_columns);
    check_literal(rows, tiles, tiled);
}

/* ---- the map itself ---- */

static void test_canonical_map(void) {
    static const uint64_t extents[] = {4, 6};
    tir_module *m = root_kernel(extents, 2);
    if (!m) return;
    const tir_space *d = root_domain(m);
    static const uint32_t rows[] = {0, 1}, columns[] = {1, 0}, t23[] = {2, 3}, t21[] = {2, 1}, t11[] = {1, 1};
    plan_root_map tiled, plain, by_columns, merged, ones;
    CHECK(plan_root_map_make(ctx, d, rows, 2, t23, 2, &tiled) == TILEC_OK);
    CHECK(plan_root_map_make(ctx, d, NULL, 0, NULL, 0, &plain) == TILEC_OK);
    CHECK(plan_root_map_make(ctx, d, columns, 2, NULL, 0, &by_columns) == TILEC_OK);
    CHECK(plan_root_map_make(ctx, d, columns, 2, t21, 2, &merged) == TILEC_OK);
    CHECK(plan_root_map_make(ctx, d, NULL, 0, t11, 2, &ones) == TILEC_OK);
    /* 4×6 in {0,1} by {2,3}: digits (axis, extent, scale) 0:2·2, 1:2·3, 0:2·1, 1:3·1. */
    static const uint64_t axis[] = {0, 1, 0, 1}, extent[] = {2, 2, 2, 3}, scale[] = {2, 3, 1, 1}, divisor[] = {12, 6, 3, 1};
    CHECK(tiled.digit_count == 4 && tiled.volume == 24 && !tiled.plain && !tiled.identity);
    for (uint32_t t = 0; t < 4 && tiled.digit_count == 4; t++) {
        const plan_root_digit *g = &tiled.digits[t];
        CHECK(g->axis == axis[t] && g->extent == extent[t] && g->scale == scale[t] && g->divisor == divisor[t]);
        CHECK(g->needs_mod == (t > 0));
    }
    plan_root_arithmetic a = plan_root_map_decode_arithmetic(&tiled);
    CHECK(a.div == 3 && a.mod == 3 && a.mul == 2 && a.add == 2);
    a = plan_root_map_decode_arithmetic(&plain);
    CHECK(a.div == 1 && a.mod == 1 && a.mul == 0 && a.add == 0);
    CHECK(plain.plain && plain.identity && plain.digit_count == 2);
    /* {2,1} in {1,0}: the two digits of axis 0 chain and merge into the plain map. */
    CHECK(merged.plain && !merged.identity && plan_root_map_same(&merged, &by_columns));
    CHECK(merged.digit_count == 2 && merged.digits[1].axis == 0 && merged.digits[1].extent == 4 &&
          merged.digits[1].scale == 1);
    CHECK(ones.plain && ones.identity && plan_root_map_same(&ones, &plain) && !plan_root_map_same(&plain, &by_columns));
    /* Unit axes carry no digit, so their order does not matter. */
    static const uint64_t thin[] = {1, 5, 1};
    tir_module *m3 = root_kernel(thin, 3);
    static const uint32_t reversed[] = {2, 1, 0};
    plan_root_map r3;
    if (m3) {
        CHECK(plan_root_map_make(ctx, root_domain(m3), reversed, 3, NULL, 0, &r3) == TILEC_OK);
        CHECK(r3.identity && r3.digit_count == 1 && r3.digits[0].axis == 1 && !r3.digits[0].needs_mod);
    }
    tir_module_destroy(m3);
    tir_module_destroy(m);
}

/* ---- refusals ---- */

/* Exactly one diagnostic, with this code and exactly this message. */
static bool only_diag(const char *code, const char *message) {
    bool ok = tilec_diag_count(ctx) == 1 && !strcmp(tilec_diag_at(ctx, 0)->code, code) &&
              !strcmp(tilec_diag_at(ctx, 0)->message, message);
    if (!ok) tilec_diag_print(ctx, stderr);
    tilec_diag_clear(ctx);
    return ok;
}

static void check_refused(const tir_module *m, const uint32_t *order, size_t order_len, const uint32_t *tiles,
                          size_t tiles_len, const char *code, const char *message) {
    lowering o = lowering_default();
    o.choice.order = order;
    o.choice.order_len = order_len;
    o.choice.tiles = tiles;
    o.choice.tiles_len = tiles_len;
    lower_result r;
    tilec_diag_clear(ctx);
    CHECK(lower_kernel(ctx, tir_module_func(m, 0), &o.record, &o.choice, &r) == TILEC_E_ARG && !r.module && !r.realization);
    CHECK_MSG(only_diag(code, message), "lower: expected %s '%s'", code, message);
    CHECK(plan_root_map_check(ctx, root_domain(m), order, order_len, tiles, tiles_len) == TILEC_E_ARG);
    CHECK_MSG(only_diag(code, message), "check: expected %s '%s'", code, message);
    plan_root_map map;
    CHECK(plan_root_map_make(ctx, root_domain(m), order, order_len, tiles, tiles_len, &map) == TILEC_E_ARG);
    tilec_diag_clear(ctx);
}

static void test_refusals(void) {
    static const uint64_t extents[] = {4, 6};
    static const char *count = "XIR root axis tiles must specify every original axis",
                      *divisor = "XIR root axis tiles must be positive divisors of the original extents",
                      *permutation = "XIR root axis order must be a complete permutation";
    tir_module *m = root_kernel(extents, 2);
    if (!m) return;
    static const uint32_t t2[] = {2}, t231[] = {2, 3, 1}, t03[] = {0, 3}, t33[] = {3, 3}, t83[] = {8, 3},
                          tmax[] = {2, UINT32_MAX};
    check_refused(m, NULL, 0, t2, 1, "LOWER-O05", count);
    check_refused(m, NULL, 0, t231, 3, "LOWER-O05", count);
    check_refused(m, NULL, 0, t03, 2, "LOWER-O06", divisor);
    check_refused(m, NULL, 0, t33, 2, "LOWER-O06", divisor);
    check_refused(m, NULL, 0, t83, 2, "LOWER-O06", divisor);
    check_refused(m, NULL, 0, tmax, 2, "LOWER-O06", divisor);
    static const uint32_t o0[] = {0}, o00[] = {0, 0}, o02[] = {0, 2}, t23[] = {2, 3};
    check_refused(m, o0, 1, NULL, 0, "LOWER-O03", permutation);
    check_refused(m, o00, 2, NULL, 0, "LOWER-O03", permutation);
    check_refused(m, o02, 2, NULL, 0, "LOWER-O03", permutation);
    check_refused(m, o02, 2, t23, 2, "LOWER-O03", permutation); /* a valid tiling does not excuse the order */
    tir_module_destroy(m);

    /* 65536×65536 by 256×256: 2^32 dispatch ordinals do not fit in u32.  The
     * lowering refuses the root at admission; the shared check refuses the
     * mapping on its own. */
    static const uint32_t t256[] = {256, 256};
    tir_module *h = parse_kernel("kernel @huge(%O: view<f32>[O.0=65536, O.1=65536]) {\n"
                                 "  parallel (%c0: d0=65536, %c1: d1=65536) {\n"
                                 "    %one = const f32 1.0\n"
                                 "    store %O[%c0, %c1], %one\n  }\n}\n",
                                 NULL, 0);
    if (!h) return;
    lowering o = lowering_default();
    o.choice.tiles = t256;
    o.choice.tiles_len = 2;
    lower_result r;
    CHECK(lower_kernel(ctx, tir_module_func(h, 0), &o.record, &o.choice, &r) != TILEC_OK && !r.module);
    CHECK(has_diag("LOWER-A05", "volume"));
    tilec_diag_clear(ctx);
    CHECK(plan_root_map_check(ctx, root_domain(h), NULL, 0, t256, 2) == TILEC_E_ARG);
    CHECK(only_diag("LOWER-O07", "XIR root domain volume must be between 1 and 4294967295"));
    tir_module_destroy(h);
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    test_traversal();
    test_literal_sequences();
    test_canonical_map();
    test_refusals();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
