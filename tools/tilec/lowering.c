/* lowering.c — see lowering.h.  Values are range-checked by lower_kernel
 * itself (block widths, partitions, orders, tiles); this file only turns text
 * into numbers, except --width, which every subcommand validates alike
 * (cli_parse_width). */
#include "lowering.h"
#include "plan/flatten.h"

#include <stdlib.h>
#include <string.h>

void cli_lowering_init(cli_lowering *l) {
    memset(l, 0, sizeof *l);
    l->options = lower_options_default();
    l->options.block_size = 0; /* planned unless --block fixes it */
    cli_planning_init(&l->planning);
}

static bool parse_u32(const char *text, uint32_t *out) {
    uint64_t v;
    if (!cli_parse_u64(text, &v) || v > UINT32_MAX) return false;
    *out = (uint32_t)v;
    return true;
}

/* "2,0,1" into values[0..*n); false when malformed or longer than
 * CLI_LOWER_MAX_AXES. */
static bool parse_list(const char *text, uint32_t *values, size_t *n) {
    const char *p = text;
    *n = 0;
    while (*p) {
        char digits[16];
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof digits || *n == CLI_LOWER_MAX_AXES) return false;
        memcpy(digits, p, len);
        digits[len] = 0;
        if (!parse_u32(digits, &values[(*n)++])) return false;
        p += len;
        if (*p == ',' && !*++p) return false; /* trailing comma */
    }
    return *n > 0;
}

bool cli_lowering_option(cli_lowering *l, const char *command, int id, const char *value) {
    lower_options *o = &l->options;
    bool ok = false;
    uint32_t v = 0;
    switch (id) {
    case OPT_LOWER_BLOCK: ok = parse_u32(value, &o->block_size); break;
    case OPT_LOWER_WIDTH: return cli_parse_width(command, value, &o->packet_width);
    case OPT_LOWER_PARTITIONS: ok = parse_u32(value, &o->reduction_partitions); break;
    case OPT_LOWER_MAX_UNROLLED:
        ok = parse_u32(value, &v);
        o->max_unrolled_tile_elements = v;
        break;
    case OPT_LOWER_CHECK_BOUNDS: o->check_bounds = true; return true;
    case OPT_LOWER_SEPARATE_MMA: o->fused_mma = false; return true;
    case OPT_LOWER_ORDER:
        if (!(ok = parse_list(value, l->order, &o->root_axis_order_len)))
            cli_usage_error(command, "--order needs comma-separated axis numbers, not '%s'", value);
        o->root_axis_order = l->order;
        return ok;
    case OPT_LOWER_TILES:
        if (!(ok = parse_list(value, l->tiles, &o->root_axis_tiles_len)))
            cli_usage_error(command, "--tiles needs comma-separated factors, one per root axis, not '%s'", value);
        o->root_axis_tiles = l->tiles;
        return ok;
    default: return cli_planning_option(&l->planning, command, id, value);
    }
    if (!ok) cli_usage_error(command, "option value '%s' is not a non-negative 32-bit integer", value);
    return ok;
}

const tir_func *cli_flatten(tilec_context *ctx, const tir_func *f, tir_module **flat) {
    *flat = plan_flatten_applies(f) ? plan_flatten_build(ctx, f) : NULL;
    return *flat ? tir_module_func(*flat, 0) : f;
}

bool cli_lower(tilec_context *ctx, const cli_lowering *l, const tir_func *f, lower_result *out, plan_packing *packing) {
    plan_result plan;
    bool ok = cli_plan(ctx, &l->planning, &l->options, f, &plan) == TILEC_OK &&
              plan_lower(ctx, f, &plan, &l->options, out) == TILEC_OK;
    if (ok && packing) *packing = plan.packing;
    plan_result_free(&plan);
    if (!ok) cli_fail_diags(ctx);
    return ok;
}

void cli_print_lowering_metadata(FILE *out, const lower_result *r) {
    fprintf(out, "// dispatch_size=%u block_size=%u packet_width=%u required_packet_width=%u\n", r->dispatch_size,
            r->block_size, r->packet_width, r->required_packet_width);
    for (size_t i = 0; i < r->arg_count; i++) {
        const lower_arg *a = &r->args[i];
        fprintf(out, "// arg %zu %%%s: %s, at least %llu bytes, %s%s\n", i, a->name, tir_scalar_name(a->elem),
                (unsigned long long)a->min_bytes, a->usage & LOWER_USAGE_READ ? "read" : "",
                a->usage == (LOWER_USAGE_READ | LOWER_USAGE_WRITE) ? "+write"
                : a->usage & LOWER_USAGE_WRITE                     ? "write"
                : a->usage ? "" : "unused");
        for (size_t j = 0; j < r->arg_count && j < 64; j++)
            if ((a->disjoint | a->disjoint_or_equal) >> j & 1)
                fprintf(out, "//   streamed: %%%s must not overlap %%%s%s (else the unfused kernel runs)\n", a->name,
                        r->args[j].name, a->disjoint_or_equal >> j & 1 ? " unless they start together" : "");
    }
    fprintf(out, "// realization: %s\n", r->realization ? r->realization : "");
}
