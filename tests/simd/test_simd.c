/* SIMD backend on hand-written XIR, natively against the W-lane interpreter:
 * the PHI parallel-copy swap at every width and every active count (and the
 * varying-trip variant refused as SIMD-U01), every arithmetic class on
 * integer and float types with special values (div/mod by 0 and -1, MIN,
 * NaN and ±0 in min/max, min/max of fabs-shaped operands, saturating casts, SLEEF math), varying diamonds
 * with nested branches, buffer writes and uniform reads in predicated
 * blocks, private arrays and warp_read_lane (the tests/xir files), access
 * realization counters, the text dumps, and the width resolution. */
#include "simd_fixture.h"

#include "base/host.h"

static const uint32_t SMALL[] = {1, 3, 16, 37, 64, 100};

static void check_text(const char *label, const char *text, const uint32_t *dispatches, size_t nd, size_t bytes,
                       double tol) {
    xir_module *m = parse_xir(text);
    if (!m) return;
    for (size_t i = 0; i < m->funcs.len; i++) check_all_widths(label, m->funcs.data[i], dispatches, nd, bytes, tol);
    xir_module_destroy(m);
}

/* ---- the PHI swap ---- */

static const char swap_text[] =
    "kernel @swap(%buf: buffer<u32>) block_size=64 {\n"
    "^entry:\n"
    "  %a0 = add dispatch_id, u32 1 : u32\n"
    "  %b0 = add dispatch_id, u32 9 : u32\n"
    "  br ^header\n"
    "^header:\n"
    "  %i = phi u32 [u32 0, ^entry], [%i1, ^body]\n"
    "  %a = phi u32 [%a0, ^entry], [%b, ^body]\n"
    "  %b = phi u32 [%b0, ^entry], [%a, ^body]\n"
    "  %more = lt %i, TRIPS\n"
    "  cond_br %more, ^body, ^exit\n"
    "^body:\n"
    "  %i1 = add %i, u32 1 : u32\n"
    "  br ^header\n"
    "^exit:\n"
    "  %at = mul dispatch_id, u32 2 : u32\n"
    "  %at64 = cast %at to u64\n"
    "  buffer_write %buf, %at64, %a\n"
    "  %at1 = add %at, u32 1 : u32\n"
    "  %at164 = cast %at1 to u64\n"
    "  buffer_write %buf, %at164, %b\n"
    "  ret\n"
    "}\n";

static char *with_trips(const char *trips) {
    static char text[2048];
    const char *at = strstr(swap_text, "TRIPS");
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - swap_text), swap_text, trips, at + 5);
    return text;
}

static void test_swap(void) {
    xir_module *m = parse_xir(with_trips("u32 3"));
    if (!m) return;
    uint32_t d[33];
    for (uint32_t i = 0; i < 33; i++) d[i] = i + 1; /* every active count of the tail packet, every W */
    check_all_widths("swap", m->funcs.data[0], d, 33, 2 * 64 * 4, 0);
    xir_module_destroy(m);

    /* Trip counts that differ per lane: the loop exit is varying. */
    char text[2048];
    snprintf(text, sizeof text, "%s", with_trips("%trips"));
    char *p = strstr(text, "  br ^header\n");
    char fixed[2300];
    snprintf(fixed, sizeof fixed, "%.*s  %%t = mod dispatch_id, u32 3 : u32\n  %%trips = add %%t, u32 1 : u32\n%s",
             (int)(p - text), text, p);
    m = parse_xir(fixed);
    if (!m) return;
    tilec_compile_options o_record = tilec_compile_options_default();
    simd_facts o = {0};
    o.width = 8;
    simd_kernel *k = NULL;
    CHECK(simd_compile(ctx, m->funcs.data[0], &o_record, &o, &k) == TILEC_E_UNSUPPORTED && !k);
    CHECK(has_diag("SIMD-U01"));
    tilec_diag_clear(ctx);
    xir_module_destroy(m);
}

/* ---- arithmetic classes ---- */

/* A kernel applying every op in `ops` (binary or unary) to A[i], B[i] of type
 * `ty` and writing result k of lane i to O[i·n + k]; comparisons are written
 * as 1/0, casts go to `via` and back. */
static void arith_kernel(const char *label, const char *ty, const char *const *ops, size_t n, double tol) {
    char text[16384];
    size_t len = (size_t)snprintf(text, sizeof text,
                                  "kernel @%s(%%A: buffer<%s>, %%B: buffer<%s>, %%O: buffer<%s>) block_size=32 {\n"
                                  "^entry:\n  %%id = cast dispatch_id to u64\n"
                                  "  %%a = buffer_read %%A, %%id : %s\n  %%b = buffer_read %%B, %%id : %s\n"
                                  "  %%base = mul %%id, u64 %zu : u64\n",
                                  label, ty, ty, ty, ty, ty, n);
    static const char *const compares[] = {"eq", "ne", "lt", "le", "gt", "ge"};
    static const char *const unary[] = {"neg", "abs", "not", "sqrt", "exp", "log", "tanh"};
    size_t k = 0;
    for (size_t i = 0; i < n; i++, k++) {
        bool cmp = false, un = false;
        for (size_t c = 0; c < 6; c++) cmp |= !strcmp(ops[i], compares[c]);
        for (size_t c = 0; c < 7; c++) un |= !strcmp(ops[i], unary[c]);
        if (cmp)
            len += (size_t)snprintf(text + len, sizeof text - len,
                                    "  %%c%zu = %s %%a, %%b\n  %%r%zu = select %%c%zu, %s 1, %s 0 : %s\n", k, ops[i], k,
                                    k, ty, ty, ty);
        else if (un)
            len += (size_t)snprintf(text + len, sizeof text - len, "  %%r%zu = %s %%a : %s\n", k, ops[i], ty);
        else if (!strcmp(ops[i], "fma")) /* a·b + a, one rounding */
            len += (size_t)snprintf(text + len, sizeof text - len, "  %%r%zu = fma %%a, %%b, %%a : %s\n", k, ty);
        else
            len += (size_t)snprintf(text + len, sizeof text - len, "  %%r%zu = %s %%a, %%b : %s\n", k, ops[i], ty);
    }
    for (size_t i = 0; i < k; i++)
        len += (size_t)snprintf(text + len, sizeof text - len,
                                "  %%o%zu = add %%base, u64 %zu : u64\n  buffer_write %%O, %%o%zu, %%r%zu\n", i, i, i, i);
    snprintf(text + len, sizeof text - len, "  ret\n}\n");
    check_text(label, text, SMALL, sizeof SMALL / sizeof SMALL[0], 100 * (n) * 8, tol);
}

static void test_arith(void) {
    static const char *const iops[] = {"add", "sub", "mul", "div", "mod", "min", "max", "and", "or", "xor", "shl",
                                       "shr", "neg", "abs", "not", "eq", "ne", "lt", "le", "gt", "ge"};
    static const char *const uops[] = {"add", "sub", "mul", "div", "mod", "min", "max", "and", "or", "xor", "shl",
                                       "shr", "abs", "not", "eq", "ne", "lt", "le", "gt", "ge"};
    static const char *const fops[] = {"add", "sub", "mul", "div", "min", "max", "neg", "abs", "sqrt",
                                       "exp", "log", "tanh", "fma", "eq", "ne", "lt", "le", "gt", "ge"};
    arith_kernel("arith_i32", "i32", iops, sizeof iops / sizeof iops[0], 0);
    arith_kernel("arith_i64", "i64", iops, sizeof iops / sizeof iops[0], 0);
    arith_kernel("arith_i8", "i8", iops, sizeof iops / sizeof iops[0], 0);
    arith_kernel("arith_u32", "u32", uops, sizeof uops / sizeof uops[0], 0);
    arith_kernel("arith_u16", "u16", uops, sizeof uops / sizeof uops[0], 0);
    arith_kernel("arith_f32", "f32", fops, sizeof fops / sizeof fops[0], 2e-5);
    arith_kernel("arith_f64", "f64", fops, sizeof fops / sizeof fops[0], 2e-5);
}

/* min/max of every pair of operand shapes LLVM's InstCombine rewrites
 * around: a, |a|, -|a|, |a| + 0, -a, b, ±0, 1.  Twice a fold that strips
 * the fabs from a compare made min/max wrong for negative inputs (found by
 * fuzz_diff); the inputs hold every pair of NaN, ±0, ±inf, ±1.  Each pair
 * reloads its operands after the previous store (which LLVM cannot prove
 * independent), so every shape has one use, as the folds require. */
static void test_minmax_shapes(const char *ty) {
    static const char *const shapes[] = {"a", "abs", "nabs", "absz", "neg", "b", "ZERO", "NZERO", "ONE"};
    enum { N = sizeof shapes / sizeof shapes[0] };
    static char text[65536];
    size_t len = (size_t)snprintf(text, sizeof text,
                                  "kernel @minmax_%s(%%A: buffer<%s>, %%B: buffer<%s>, %%O: buffer<%s>) block_size=32 {\n"
                                  "^entry:\n  %%id = cast dispatch_id to u64\n  %%base = mul %%id, u64 %d : u64\n",
                                  ty, ty, ty, ty, 2 * N * N);
    size_t k = 0;
    for (int op = 0; op < 2; op++)
        for (size_t i = 0; i < N; i++)
            for (size_t j = 0; j < N; j++, k++) {
                len += (size_t)snprintf(text + len, sizeof text - len,
                                        "  %%a%zu = buffer_read %%A, %%id : %s\n  %%b%zu = buffer_read %%B, %%id : %s\n"
                                        "  %%abs%zu = abs %%a%zu : %s\n  %%nabs%zu = neg %%abs%zu : %s\n"
                                        "  %%absz%zu = add %%abs%zu, %s 0.0 : %s\n  %%neg%zu = neg %%a%zu : %s\n",
                                        k, ty, k, ty, k, k, ty, k, k, ty, k, k, ty, ty, k, k, ty);
                char x[2][24];
                for (int s = 0; s < 2; s++) {
                    const char *sh = shapes[s ? j : i];
                    if (!strcmp(sh, "ZERO")) snprintf(x[s], sizeof x[s], "%s 0.0", ty);
                    else if (!strcmp(sh, "NZERO")) snprintf(x[s], sizeof x[s], "%s -0.0", ty);
                    else if (!strcmp(sh, "ONE")) snprintf(x[s], sizeof x[s], "%s 1.0", ty);
                    else snprintf(x[s], sizeof x[s], "%%%s%zu", sh, k);
                }
                len += (size_t)snprintf(text + len, sizeof text - len,
                                        "  %%r%zu = %s %s, %s : %s\n  %%o%zu = add %%base, u64 %zu : u64\n"
                                        "  buffer_write %%O, %%o%zu, %%r%zu\n",
                                        k, op ? "max" : "min", x[0], x[1], ty, k, k, k, k);
            }
    snprintf(text + len, sizeof text - len, "  ret\n}\n");
    char label[32];
    snprintf(label, sizeof label, "minmax_shapes_%s", ty);
    check_text(label, text, SMALL, sizeof SMALL / sizeof SMALL[0], 100 * 2 * N * N * 8, 0);
}

/* Casts between every pair of a representative type set (saturating
 * float→int with NaN → 0, int→float rounding, to-bool and from-bool). */
static void test_casts(void) {
    static const char *const types[] = {"i8", "u8", "i32", "u32", "i64", "u64", "f32", "f64", "bool"};
    enum { N = sizeof types / sizeof types[0] };
    for (size_t s = 0; s < N; s++) {
        char text[8192];
        size_t len = (size_t)snprintf(text, sizeof text,
                                      "kernel @casts(%%A: buffer<%s>, %%O: buffer<u64>, %%F: buffer<f64>) block_size=16 {\n"
                                      "^entry:\n  %%id = cast dispatch_id to u64\n  %%a = buffer_read %%A, %%id : %s\n"
                                      "  %%base = mul %%id, u64 %d : u64\n",
                                      types[s], types[s], N);
        for (size_t t = 0; t < N; t++) {
            bool fl = types[t][0] == 'f';
            len += (size_t)snprintf(text + len, sizeof text - len,
                                    "  %%c%zu = cast %%a to %s\n  %%w%zu = cast %%c%zu to %s\n"
                                    "  %%o%zu = add %%base, u64 %zu : u64\n  buffer_write %%%s, %%o%zu, %%w%zu\n",
                                    t, types[t], t, t, fl ? "f64" : "u64", t, t, fl ? "F" : "O", t, t);
        }
        snprintf(text + len, sizeof text - len, "  ret\n}\n");
        char label[32];
        snprintf(label, sizeof label, "casts_from_%s", types[s]);
        check_text(label, text, SMALL, sizeof SMALL / sizeof SMALL[0], 100 * N * 8, 0);
    }
}

/* ---- varying control flow ---- */

static const char diamond_text[] =
    "kernel @diamond_write(%A: buffer<i32>, %O: buffer<i32>) block_size=32 {\n"
    "^entry:\n"
    "  %id = cast dispatch_id to u64\n"
    "  %a = buffer_read %A, %id : i32\n"
    "  %neg = lt %a, i32 0\n"
    "  cond_br %neg, ^then, ^else\n"
    "^then:\n"
    "  %n = neg %a : i32\n"
    "  buffer_write %O, %id, %n\n"
    "  %q = div i32 100, %a : i32\n"
    "  br ^join\n"
    "^else:\n"
    "  %two = mul %a, i32 2 : i32\n"
    "  %i2 = add %id, u64 128 : u64\n"
    "  buffer_write %O, %i2, %two\n"
    "  %m = mod i32 77, %a : i32\n"
    "  %big = gt %a, i32 10\n"
    "  cond_br %big, ^inner, ^join\n"
    "^inner:\n"
    "  %i3 = add %id, u64 256 : u64\n"
    "  buffer_write %O, %i3, %a\n"
    "  %u = buffer_read %A, u64 3 : i32\n"
    "  %s = mul %id, u64 3 : u64\n"
    "  %g = buffer_read %A, %s : i32\n"
    "  %ug = add %u, %g : i32\n"
    "  br ^join\n"
    "^join:\n"
    "  %v = phi i32 [%q, ^then], [%m, ^else], [%ug, ^inner]\n"
    "  %w = phi i32 [%a, ^then], [%two, ^else], [%a, ^inner]\n"
    "  %i4 = add %id, u64 384 : u64\n"
    "  %vw = add %v, %w : i32\n"
    "  buffer_write %O, %i4, %vw\n"
    "  ret\n"
    "}\n";

/* A uniform loop around a varying triangle with a private array. */
static const char loop_triangle_text[] =
    "kernel @loop_triangle(%A: buffer<f32>, %O: buffer<f32>) block_size=64 {\n"
    "^entry:\n"
    "  %arr = alloca array<f32, 8>\n"
    "  %id = cast dispatch_id to u64\n"
    "  br ^header\n"
    "^header:\n"
    "  %k = phi u32 [u32 0, ^entry], [%k1, ^latch]\n"
    "  %acc = phi f32 [f32 0.0, ^entry], [%acc2, ^latch]\n"
    "  %more = lt %k, u32 8\n"
    "  cond_br %more, ^body, ^exit\n"
    "^body:\n"
    "  %k64 = cast %k to u64\n"
    "  %row = mul %id, u64 8 : u64\n"
    "  %at = add %row, %k64 : u64\n"
    "  %x = buffer_read %A, %at : f32\n"
    "  %slot = gep %arr, %k : ptr<f32>\n"
    "  store %slot, %x\n"
    "  %pos = gt %x, f32 0.0\n"
    "  cond_br %pos, ^add, ^latch\n"
    "^add:\n"
    "  %e = exp %x : f32\n"
    "  %lane = cast warp_lane_id to u32\n"
    "  %pick = and %lane, u32 7 : u32\n"
    "  %vs = gep %arr, %pick : ptr<f32>\n"
    "  %old = load %slot : f32\n"
    "  store %vs, %e\n"
    "  %sum = add %acc, %old : f32\n"
    "  br ^latch\n"
    "^latch:\n"
    "  %acc2 = phi f32 [%acc, ^body], [%sum, ^add]\n"
    "  %k1 = add %k, u32 1 : u32\n"
    "  br ^header\n"
    "^exit:\n"
    "  %l = cast dispatch_id to u32\n"
    "  %q = mod %l, u32 8 : u32\n"
    "  %p = gep %arr, %q : ptr<f32>\n"
    "  %y = load %p : f32\n"
    "  %z = add %y, %acc : f32\n"
    "  buffer_write %O, %id, %z\n"
    "  %first = warp_read_lane %z, u32 0 : f32\n"
    "  %half = shr warp_lane_id, u32 1 : u32\n"
    "  %peer = warp_read_lane %z, %half : f32\n"
    "  %zz = add %first, %peer : f32\n"
    "  %i400 = add %id, u64 400 : u64\n"
    "  buffer_write %O, %i400, %zz\n"
    "  ret\n"
    "}\n";

/* Lanes below 21 take the arm: whole packets above it skip the block
 * (reads, math, an integer division, a write), a packet across 21 runs it
 * masked; the join sees the skipped block's results only on inactive lanes,
 * and a dominated cheap block computes on them before its own mask drops it. */
static const char skipped_arm_text[] =
    "kernel @skipped_arm(%A: buffer<i32>, %O: buffer<i32>) block_size=64 {\n"
    "^entry:\n"
    "  %id = cast dispatch_id to u64\n"
    "  %low = lt dispatch_id, u32 21\n"
    "  cond_br %low, ^arm, ^join\n"
    "^arm:\n"
    "  %a = buffer_read %A, %id : i32\n"
    "  %q = div i32 1000, %a : i32\n"
    "  %i1 = add %id, u64 128 : u64\n"
    "  buffer_write %O, %i1, %q\n"
    "  %big = gt %a, i32 3\n"
    "  cond_br %big, ^cheap, ^join\n"
    "^cheap:\n"
    "  %q2 = mul %q, i32 3 : i32\n"
    "  br ^join\n"
    "^join:\n"
    "  %v = phi i32 [i32 -1, ^entry], [%q, ^arm], [%q2, ^cheap]\n"
    "  buffer_write %O, %id, %v\n"
    "  ret\n"
    "}\n";

static void test_skipped_blocks(void) {
    check_text("skipped_arm", skipped_arm_text, SMALL, sizeof SMALL / sizeof SMALL[0], 256 * 4, 0);
    xir_module *m = parse_xir(skipped_arm_text);
    if (!m) return;
    simd_kernel *k = compile_with(m->funcs.data[0], 8, true);
    CHECK(k != NULL);
    if (k) CHECK(simd_kernel_counters(k)->skippable_blocks == 1 && simd_kernel_counters(k)->predicated_regions == 1);
    simd_kernel_destroy(k);
    xir_module_destroy(m);
}

static void test_control_flow(void) {
    test_skipped_blocks();
    check_text("diamond_write", diamond_text, SMALL, sizeof SMALL / sizeof SMALL[0], 512 * 4, 0);
    check_text("loop_triangle", loop_triangle_text, SMALL, sizeof SMALL / sizeof SMALL[0], 100 * 8 * 4, 2e-5);
}

/* The interpreter's own XIR test files (memory.xir writes buffer addresses,
 * which differ between two runs by construction). */
static void test_xir_files(void) {
    static const char *const files[] = {"diamond", "loop", "forward", "constants"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/tests/xir/%s.xir", TILEC_SOURCE_DIR, files[i]);
        size_t n;
        char *text = read_file(path, &n);
        CHECK_MSG(text != NULL, "cannot read %s", path);
        if (text) check_text(files[i], text, SMALL, sizeof SMALL / sizeof SMALL[0], 16384, 2e-5);
        free(text);
    }
}

/* ---- access realization counters and text dumps ---- */

static const char rows_text[] =
    "kernel @rows(%X: buffer<f32>, %Y: buffer<f32>) block_size=64 {\n"
    "^entry:\n"
    "  %id = cast dispatch_id to u64\n"
    "  %row = div %id, u64 16 : u64\n"
    "  %col = mod %id, u64 16 : u64\n"
    "  %r16 = mul %row, u64 16 : u64\n"
    "  %at = add %r16, %col : u64\n"
    "  %x = buffer_read %X, %at : f32\n"
    "  %s = buffer_read %X, u64 5 : f32\n"
    "  %r = buffer_read %X, %row : f32\n"
    "  %t = mul %id, u64 3 : u64\n"
    "  %g = buffer_read %X, %t : f32\n"
    "  %y = add %x, %s : f32\n"
    "  %y2 = add %y, %r : f32\n"
    "  %y3 = add %y2, %g : f32\n"
    "  %e = exp %y3 : f32\n"
    "  buffer_write %Y, %at, %e\n"
    "  ret\n"
    "}\n";

/* Pairs (docs/simd.md "Memory"): lane l reads X[2(id) + 1] and writes
 * Y[2(id)] and, after a read of X, Y[2(id) + 1]: both reads are pair loads;
 * the two writes join into contiguous stores only when the dispatch keeps Y
 * apart from X (apart_args), since the read of X lies between them. */
static const char pairs_text[] =
    "kernel @pairs(%X: buffer<f32>, %Y: buffer<f32>) block_size=64 {\n"
    "^entry:\n"
    "  %id = cast dispatch_id to u64\n"
    "  %e = mul %id, u64 2 : u64\n"
    "  %o = add %e, u64 1 : u64\n"
    "  %a = buffer_read %X, %o : f32\n"
    "  buffer_write %Y, %e, %a\n"
    "  %b = buffer_read %X, %e : f32\n"
    "  %c = mul %b, f32 2.0 : f32\n"
    "  buffer_write %Y, %o, %c\n"
    "  ret\n"
    "}\n";

static void test_pairs(void) {
    static const uint32_t dispatches[] = {64, 40, 7};
    check_text("pairs", pairs_text, dispatches, 3, 1024, 0);
    xir_module *m = parse_xir(pairs_text);
    for (uint32_t apart = 0; m && apart < 2; apart++) {
        tilec_compile_options o_record = tilec_compile_options_default();
        simd_facts o = {0};
        o.width = 8;
        o.apart_args = apart ? 2 : 0; /* %Y */
        simd_kernel *k = NULL;
        CHECK(simd_compile(ctx, m->funcs.data[0], &o_record, &o, &k) == TILEC_OK);
        flush_diags();
        const simd_counters *c = k ? simd_kernel_counters(k) : NULL;
        CHECK_MSG(c && c->pair_loads == 2 && c->gathers == 0 && c->scatters == 0 &&
                      c->joined_pair_stores == (apart ? 1u : 0u) && c->pair_stores == (apart ? 0u : 2u),
                  "apart=%u: %llu pair loads, %llu pair stores, %llu joined", apart,
                  c ? (unsigned long long)c->pair_loads : 0, c ? (unsigned long long)c->pair_stores : 0,
                  c ? (unsigned long long)c->joined_pair_stores : 0);
        simd_kernel_destroy(k);
    }
    xir_module_destroy(m);
}

/* The f32 lanes of one register of the ISA code is generated for. */
static uint32_t codegen_lanes(void) {
    strbuf cpu, features;
    strbuf_init(&cpu, ctx);
    strbuf_init(&features, ctx);
    uint32_t lanes = 0, registers;
    if (simd_host_codegen(&cpu, &features)) host_isa_vector_unit(strbuf_cstr(&features), &lanes, &registers);
    CHECK(lanes == 4 || lanes == 8 || lanes == 16);
    strbuf_free(&cpu);
    strbuf_free(&features);
    return lanes ? lanes : 4;
}

static void test_counters(void) {
    xir_module *m = parse_xir(rows_text);
    if (!m) return;
    check_all_widths("rows", m->funcs.data[0], SMALL, sizeof SMALL / sizeof SMALL[0], 4096, 2e-5);
    for (uint32_t w = 2; w <= 16; w *= 2) {
        tilec_compile_options o_record = tilec_compile_options_default();
        simd_facts o = {0};
        o.width = w;
        o_record.capture_ir = o_record.capture_asm = w == 16;
        simd_kernel *k = NULL;
        CHECK(simd_compile(ctx, m->funcs.data[0], &o_record, &o, &k) == TILEC_OK);
        flush_diags();
        if (!k) continue;
        const simd_counters *c = simd_kernel_counters(k);
        CHECK_MSG(c->contiguous_loads == 1 && c->contiguous_stores == 1, "W=%u: row access not contiguous", w);
        CHECK_MSG(c->broadcast_loads == 2, "W=%u: %llu broadcasts, expected 2 (uniform and packet-equal index)", w,
                  (unsigned long long)c->broadcast_loads);
        CHECK_MSG(c->gathers == 1 && c->scatters == 0, "W=%u: only the strided read gathers", w);
        /* one SLEEF call per chunk of the ISA code is generated for (the
         * described host's features this machine has): 16 f32 lanes with
         * AVX-512F, 8 with AVX2 */
        uint32_t native = codegen_lanes();
        CHECK_MSG(c->math_calls == (w > native ? w / native : 1), "W=%u: %llu math calls", w,
                  (unsigned long long)c->math_calls);
        CHECK_STR_CONTAINS(simd_kernel_realization(k), "contiguous_loads=1;");
        if (w == 16) {
            const char *ir = simd_kernel_ir(k), *as = simd_kernel_asm(k);
            CHECK_STR_CONTAINS(ir, "llvm.masked.load.v16f32");
            CHECK_STR_CONTAINS(ir, "Sleef_expf");
            CHECK(ir && !strstr(ir, "@expf"));
            CHECK_STR_CONTAINS(as, "Sleef_expf");
        } else {
            CHECK(simd_kernel_ir(k) == NULL && simd_kernel_asm(k) == NULL);
        }
        simd_kernel_destroy(k);
    }
    xir_module_destroy(m);
}

/* Named refusals: a loop inside a varying branch, private arrays above the
 * 16 MiB workspace limit per packet.  Private arrays up to 64 KiB per packet
 * live on the stack, larger ones in the workspace: both run. */
static const char loop_in_branch_text[] =
    "kernel @loop_in_branch(%O: buffer<u32>) block_size=16 {\n"
    "^entry:\n"
    "  %odd = and dispatch_id, u32 1 : u32\n"
    "  %c = eq %odd, u32 1\n"
    "  cond_br %c, ^header, ^join\n"
    "^header:\n"
    "  %i = phi u32 [u32 0, ^entry], [%i1, ^header]\n"
    "  %i1 = add %i, u32 1 : u32\n"
    "  %more = lt %i1, u32 4\n"
    "  cond_br %more, ^header, ^join\n"
    "^join:\n"
    "  %id = cast dispatch_id to u64\n"
    "  buffer_write %O, %id, dispatch_id\n"
    "  ret\n"
    "}\n";

static const char big_private_text[] =
    "kernel @big(%O: buffer<f32>) block_size=16 {\n"
    "^entry:\n"
    "  %a = alloca array<f32, SIZE>\n"
    "  %p = gep %a, i64 7 : ptr<f32>\n"
    "  store %p, f32 1.5\n"
    "  %v = load %p : f32\n"
    "  %id = cast dispatch_id to u64\n"
    "  buffer_write %O, %id, %v\n"
    "  ret\n"
    "}\n";

static void expect_refusal(const char *text, uint32_t w, const char *code) {
    xir_module *m = parse_xir(text);
    if (!m) return;
    tilec_compile_options o_record = tilec_compile_options_default();
    simd_facts o = {0};
    o.width = w;
    simd_kernel *k = NULL;
    CHECK(simd_compile(ctx, m->funcs.data[0], &o_record, &o, &k) != TILEC_OK && !k);
    CHECK_MSG(has_diag(code), "expected %s", code);
    tilec_diag_clear(ctx);
    xir_module_destroy(m);
}

static char *big_private(const char *size) {
    static char text[1024];
    const char *at = strstr(big_private_text, "SIZE");
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - big_private_text), big_private_text, size, at + 4);
    return text;
}

static void test_refusals(void) {
    expect_refusal(loop_in_branch_text, 8, "SIMD-U02");
    expect_refusal(big_private("524288"), 16, "SIMD-M01"); /* 32 MiB per packet */
    /* 2048 f32 x 4 lanes = 32 KiB on the stack; x 16 lanes = 128 KiB in the workspace. */
    xir_module *m = parse_xir(big_private("2048"));
    if (!m) return;
    uint32_t d[] = {5, 16, 33};
    for (uint32_t w = 4; w <= 16; w *= 4) {
        simd_kernel *k = compile_at(m->funcs.data[0], w);
        if (!k) continue;
        CHECK(simd_kernel_counters(k)->private_bytes == 2048 * 4 * w);
        CHECK(simd_kernel_workspace_bytes(k) == (w == 16 ? 2048 * 4 * 16 : 0));
        for (size_t i = 0; i < 3; i++) run_compare("big", m->funcs.data[0], k, w, d[i], 256, 0);
        simd_kernel_destroy(k);
    }
    xir_module_destroy(m);
}

static void test_width_resolution(void) {
    uint32_t host = simd_host_width();
    CHECK(host == 4 || host == 8 || host == 16);
    CHECK(simd_resolve_width(2, "16") == 2);
    CHECK(simd_resolve_width(0, "16") == 16);
    CHECK(simd_resolve_width(0, "1") == 1);
    CHECK(simd_resolve_width(0, "3") == 0);
    CHECK(simd_resolve_width(0, "8x") == 0);
    CHECK(simd_resolve_width(0, NULL) == host);
    CHECK(simd_resolve_width(6, NULL) == 0);
    xir_module *m = parse_xir(with_trips("u32 3"));
    if (!m) return;
    tilec_compile_options o_record = tilec_compile_options_default();
    simd_facts o = {0};
    o.width = 5;
    simd_kernel *k = NULL;
    CHECK(simd_compile(ctx, m->funcs.data[0], &o_record, &o, &k) == TILEC_E_ARG && has_diag("SIMD-O01"));
    tilec_diag_clear(ctx);
    /* Width 0 follows TILEC_SIMD_WIDTH; two kernels of one function are
     * independent (destroying one leaves the other runnable). */
    setenv("TILEC_SIMD_WIDTH", "4", 1);
    simd_kernel *a = compile_at(m->funcs.data[0], 0), *b2 = compile_at(m->funcs.data[0], 0);
    unsetenv("TILEC_SIMD_WIDTH");
    CHECK(a && b2 && simd_kernel_width(a) == 4 && simd_kernel_width(b2) == 4);
    simd_kernel_destroy(a);
    if (b2) run_compare("swap after destroy", m->funcs.data[0], b2, 4, 37, 2 * 64 * 4, 0);
    simd_kernel_destroy(b2);
    xir_module_destroy(m);
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    test_width_resolution();
    test_swap();
    test_arith();
    test_minmax_shapes("f32");
    test_minmax_shapes("f64");
    test_casts();
    test_control_flow();
    test_xir_files();
    test_counters();
    test_pairs();
    test_refusals();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
