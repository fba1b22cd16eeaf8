/* test_options.c — the compile option table (src/options): the defaults,
 * every option read and written back by name, lists kept by the context,
 * the cost coefficients by name, the table's rows for tools and bindings,
 * and TILEC-O01 / TILEC-M01 for what cannot be set. */
#include "../harness.h"

#include "base/context.h" /* tilec_context_fail_allocation_after */
#include "tilec/tilec.h"

#include <stdint.h>
#include <string.h>

static tilec_context *ctx;

static const char *first_message(void) {
    const tilec_diag *d = tilec_diag_count(ctx) ? tilec_diag_at(ctx, 0) : NULL;
    return d ? d->message : "";
}

/* The defaults are the values the planner and backend were tuned with. */
static void test_defaults(void) {
    tilec_compile_options d = tilec_compile_options_default();
    CHECK(d.max_candidates == 1024 && d.max_unrolled_tile_elements == 64 && d.reduction_partitions == 4);
    CHECK(d.local_lanes == 0 && d.block_size == 0 && d.blocks_per_task == 0 && d.split_chunks == 0);
    CHECK(d.fused_mma && d.full_packet_specialization && !d.check_bounds && !d.search_tiles && !d.search_task_grain);
    CHECK(d.fuse == TILEC_FUSE_AUTO && d.pack == TILEC_PACK_AUTO && d.split == TILEC_SPLIT_AUTO &&
          d.stores == TILEC_STORES_AUTO && d.target == TILEC_TARGET_CPU && !d.gpu_arch && !d.runtime);
    CHECK(!d.root_axis_order && !d.root_axis_order_len && !d.root_axis_tiles && !d.root_axis_tiles_len);
    const tilec_cost_coefficients c = d.cost;
    CHECK(c.arithmetic == 1 && c.broadcast_load == 1 && c.contiguous_memory == 2 && c.gathered_lane == 2);
    CHECK(c.block_dispatch == 128 && c.task_dispatch == 0 && c.worker_activation == 8000);
    CHECK(c.l1_line == 0 && c.l2_line == 0 && c.l3_line == 0);
}

/* The table's rows: unique names and flags, every flag a long option,
 * switches only for 0/1 options, NULL past the last. */
static void test_rows(void) {
    size_t n = 0;
    const tilec_option_info *a, *b;
    for (; (a = tilec_compile_option_info(n)); n++) {
        CHECK_MSG(a->name && a->expects && a->expects[0] && a->help && a->help[0], "row %zu", n);
        CHECK_MSG(!a->flag || !strncmp(a->flag, "--", 2), "%s", a->name);
        CHECK_MSG(!a->flag_sets || !strcmp(a->expects, "0 or 1"), "%s: a switch sets 0 or 1", a->name);
        for (size_t j = 0; j < n; j++) {
            b = tilec_compile_option_info(j);
            CHECK_MSG(strcmp(a->name, b->name), "%s twice", a->name);
            CHECK_MSG(!a->flag || !b->flag || strcmp(a->flag, b->flag), "%s twice", a->flag);
        }
    }
    CHECK(n >= 30 && !tilec_compile_option_info(n) && !tilec_compile_option_info(SIZE_MAX));
}

/* Every option's default text reads back into the same value, and a
 * second value into that value. */
static void test_round_trip(void) {
    static const struct {
        const char *name, *value;
    } other[] = {
        {"threads", "3"}, {"width", "16"}, {"local_lanes", "8"}, {"block_size", "64"}, {"blocks_per_task", "4"},
        {"search_task_grain", "1"}, {"search_tiles", "1"}, {"max_candidates", "17179869184"}, {"max_unrolled", "0"},
        {"reduction_partitions", "2"}, {"order", "2,0,1"}, {"tiles", "4,1,2"}, {"bucket_cuts", "2,64,1024"},
        {"check_bounds", "1"},
        {"fused_mma", "0"}, {"fuse", "off"}, {"pack", "on"}, {"split", "off"}, {"split_chunks", "5"},
        {"full_packet_specialization", "0"}, {"stores", "streaming"}, {"capture_ir", "1"}, {"capture_asm", "1"},
        {"target", "cuda"}, {"gpu_arch", "sm_80"}, {"cost.arithmetic", "3"}, {"cost.broadcast_load", "0.5"},
        {"cost.contiguous_memory", "1.25"}, {"cost.gathered_lane", "7"}, {"cost.block_dispatch", "64"},
        {"cost.task_dispatch", "9"}, {"cost.worker_activation", "100"}, {"cost.l1_line", "1"},
        {"cost.l2_line", "4"}, {"cost.l3_line", "16"},
    };
    size_t rows = 0;
    while (tilec_compile_option_info(rows)) rows++;
    CHECK_MSG(rows == sizeof other / sizeof other[0], "every row has a second value here (%zu rows)", rows);
    tilec_compile_options d = tilec_compile_options_default();
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        char text[128], back[128];
        tilec_compile_options o = tilec_compile_options_default();
        CHECK_MSG(tilec_compile_options_get(ctx, &d, other[i].name, text, sizeof text) == TILEC_OK, "%s", other[i].name);
        CHECK_MSG(tilec_compile_options_set(ctx, &o, other[i].name, text) == TILEC_OK && !memcmp(&o, &d, sizeof o),
                  "%s: the default '%s' reads back", other[i].name, text);
        CHECK_MSG(tilec_compile_options_set(ctx, &o, other[i].name, other[i].value) == TILEC_OK, "%s=%s",
                  other[i].name, other[i].value);
        CHECK_MSG(memcmp(&o, &d, sizeof o), "%s=%s changes the options", other[i].name, other[i].value);
        CHECK_MSG(tilec_compile_options_get(ctx, &o, other[i].name, back, sizeof back) == TILEC_OK &&
                      !strcmp(back, other[i].value),
                  "%s: '%s' reads back as '%s'", other[i].name, other[i].value, back);
    }
}

/* Lists live in the context; "" is none; malformed lists change nothing. */
static void test_lists(void) {
    tilec_compile_options o = tilec_compile_options_default();
    CHECK(tilec_compile_options_set(ctx, &o, "order", "2,0,1") == TILEC_OK);
    CHECK(o.root_axis_order_len == 3 && o.root_axis_order[0] == 2 && o.root_axis_order[1] == 0 &&
          o.root_axis_order[2] == 1);
    CHECK(tilec_compile_options_set(ctx, &o, "tiles", "4294967295") == TILEC_OK && o.root_axis_tiles_len == 1 &&
          o.root_axis_tiles[0] == UINT32_MAX);
    const char *bad[] = {"1,,2", "1,", ",1", "a", "4294967296", "-1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tilec_diag_clear(ctx);
        CHECK_MSG(tilec_compile_options_set(ctx, &o, "order", bad[i]) == TILEC_E_ARG &&
                      strstr(first_message(), "comma-separated unsigned integers"),
                  "'%s': %s", bad[i], first_message());
    }
    CHECK(o.root_axis_order_len == 3 && o.root_axis_order[0] == 2);
    char many[64 * 2 + 8] = "";
    for (int i = 0; i < 65; i++) strcat(many, i ? ",1" : "1");
    tilec_diag_clear(ctx);
    CHECK(tilec_compile_options_set(ctx, &o, "tiles", many) == TILEC_E_ARG);
    many[strlen(many) - 2] = 0; /* 64 entries */
    CHECK(tilec_compile_options_set(ctx, &o, "tiles", many) == TILEC_OK && o.root_axis_tiles_len == 64);
    CHECK(tilec_compile_options_set(ctx, &o, "order", "") == TILEC_OK && !o.root_axis_order && !o.root_axis_order_len);
    /* no memory for the list: TILEC-M01, the options unchanged */
    tilec_diag_clear(ctx);
    tilec_context_fail_allocation_after(ctx, 0);
    CHECK(tilec_compile_options_set(ctx, &o, "order", "1,0") == TILEC_E_NOMEM && !o.root_axis_order);
    tilec_context_fail_allocation_after(ctx, -1);
    CHECK(tilec_diag_count(ctx) && !strcmp(tilec_diag_at(ctx, 0)->code, "TILEC-M01"));
    /* without a context there is nowhere to keep a list */
    CHECK(tilec_compile_options_set(NULL, &o, "order", "1,0") == TILEC_E_NOMEM);
    tilec_diag_clear(ctx);
}

/* What cannot be set or written: TILEC-O01 with what the option reads. */
static void test_refusals(void) {
    tilec_compile_options o = tilec_compile_options_default(), before = o;
    static const struct {
        const char *name, *value, *why;
    } bad[] = {{"cost.l2_line", "fast", "'cost.l2_line': 'fast' is not a number"},
               {"cost.l2_line", "", "is not a number"},
               {"cost.speed", "1", "unknown compile option 'cost.speed'"},
               {"search_task_grain", "2", "0 or 1"},
               {"target", "gpu", "cpu or cuda"},
               {"gpu_arch", "sm_99", "one of sm_60"},
               {"runtime", "0", "unknown compile option 'runtime'"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tilec_diag_clear(ctx);
        CHECK(tilec_compile_options_set(ctx, &o, bad[i].name, bad[i].value) == TILEC_E_ARG);
        CHECK_MSG(strstr(first_message(), bad[i].why), "%s=%s: %s", bad[i].name, bad[i].value, first_message());
    }
    CHECK(!memcmp(&o, &before, sizeof o));
    char small[4];
    tilec_diag_clear(ctx);
    CHECK(tilec_compile_options_get(ctx, &o, "max_candidates", small, sizeof small) == TILEC_E_ARG &&
          strstr(first_message(), "needs more than 4 bytes"));
    CHECK(tilec_compile_options_get(ctx, &o, "cost.task_dispatch", small, sizeof small) == TILEC_OK &&
          !strcmp(small, "0"));
    CHECK(tilec_compile_options_get(ctx, &o, "nope", small, sizeof small) == TILEC_E_ARG);
    CHECK(tilec_compile_options_get(ctx, NULL, "pack", small, sizeof small) == TILEC_E_ARG);
    tilec_diag_clear(ctx);
}

int main(void) {
    CHECK(tilec_context_create(NULL, &ctx) == TILEC_OK);
    test_defaults();
    test_rows();
    test_round_trip();
    test_lists();
    test_refusals();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
