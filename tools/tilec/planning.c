/* planning.c — see planning.h.  Values are range-checked by the planner
 * itself (coefficients, local lanes, grains, budgets); this file only turns
 * text into numbers and names into fields. */
#include "planning.h"

#include "plan/gpu_target.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cli_planning_init(cli_planning *p) {
    p->workers = 8;
    p->options = plan_options_default();
}

static bool parse_u32(const char *text, uint32_t *out) {
    uint64_t v;
    if (!cli_parse_u64(text, &v) || v > UINT32_MAX) return false;
    *out = (uint32_t)v;
    return true;
}

/* "NAME=VALUE" for one coefficient; VALUE any strtod number (the planner
 * rejects negative and non-finite ones with a diagnostic). */
static bool parse_cost(cli_planning *p, const char *command, const char *text) {
    const char *name, *value;
    size_t len;
    if (!cli_split_assignment(text, &name, &len, &value))
        return cli_usage_error(command, "--cost needs NAME=VALUE, not '%s'", text), false;
    char *end;
    double v = strtod(value, &end);
    if (*end || end == value) return cli_usage_error(command, "--cost %.*s: '%s' is not a number", (int)len, name, value), false;
#define X(field) \
    if (len == strlen(#field) && !strncmp(name, #field, len)) { \
        p->options.cost.field = v; \
        return true; \
    }
    PLAN_COEFFICIENTS(X)
#undef X
    cli_usage_error(command, "--cost: unknown coefficient '%.*s'", (int)len, name);
    return false;
}

/* --profile FILE: one NAME=VALUE coefficient per line; blank lines and
 * lines starting with '#' are skipped.  A usage error names the line. */
static bool load_profile(cli_planning *p, const char *command, const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return cli_usage_error(command, "--profile: cannot read '%s'", path), false;
    char line[512];
    bool ok = true;
    for (unsigned n = 1; ok && fgets(line, sizeof line, f); n++) {
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0] || line[0] == '#') continue;
        if (!strchr(line, '=')) {
            cli_usage_error(command, "--profile %s:%u: expected NAME=VALUE, found '%s'", path, n, line);
            ok = false;
        } else {
            ok = parse_cost(p, command, line);
        }
    }
    fclose(f);
    return ok;
}

/* --pack, --split: auto, on or off as the mode's value; -1 after a usage error. */
static int parse_mode(const char *command, const char *option, const char *text) {
    unsigned m;
    if (plan_mode_parse(text, &m)) return (int)m;
    cli_usage_error(command, "%s: '%s' is not auto, on or off", option, text);
    return -1;
}

bool cli_planning_option(cli_planning *p, const char *command, int id, const char *value) {
    plan_options *o = &p->options;
    bool ok = false;
    switch (id) {
    case OPT_PLAN_WORKERS: ok = parse_u32(value, &p->workers); break;
    case OPT_PLAN_TARGET:
        if (strcmp(value, "cpu") && strcmp(value, "cuda")) {
            cli_usage_error(command, "--target: '%s' is not cpu or cuda", value);
            return false;
        }
        p->gpu = !strcmp(value, "cuda");
        return true;
    case OPT_PLAN_GRAIN: ok = parse_u32(value, &o->blocks_per_task); break;
    case OPT_PLAN_SEARCH_GRAIN: o->search_task_grain = true; return true;
    case OPT_PLAN_SEARCH_TILES: o->search_tiles = true; return true;
    case OPT_PLAN_LOCAL_LANES: ok = parse_u32(value, &o->local_lanes); break;
    case OPT_PLAN_MAX_CANDIDATES: ok = cli_parse_u64(value, &o->max_candidates); break;
    case OPT_PLAN_COST: return parse_cost(p, command, value);
    case OPT_PLAN_PROFILE: return load_profile(p, command, value);
    case OPT_PLAN_FUSE: {
        int m = parse_mode(command, "--fuse", value);
        if (m >= 0) o->fuse = (tilec_fuse)m;
        return m >= 0;
    }
    case OPT_PLAN_PACK: {
        int m = parse_mode(command, "--pack", value);
        if (m >= 0) o->pack = (plan_pack_mode)m;
        return m >= 0;
    }
    case OPT_PLAN_SPLIT: {
        int m = parse_mode(command, "--split", value);
        if (m >= 0) o->split = (tilec_split)m;
        return m >= 0;
    }
    case OPT_PLAN_SPLIT_CHUNKS: ok = parse_u32(value, &o->split_chunks); break;
    default: break;
    }
    if (!ok) cli_usage_error(command, "option value '%s' is not a non-negative integer in range", value);
    return ok;
}

tilec_status cli_plan(tilec_context *ctx, const cli_planning *p, const lower_options *lo, const tir_func *f,
                      plan_result *out) {
    plan_options o = p->options;
    o.block_size = lo->block_size;
    o.root_axis_order = lo->root_axis_order;
    o.root_axis_order_len = lo->root_axis_order_len;
    o.root_axis_tiles = lo->root_axis_tiles;
    o.root_axis_tiles_len = lo->root_axis_tiles_len;
    o.max_unrolled_tile_elements = lo->max_unrolled_tile_elements;
    o.max_unrolled_region_work = lo->max_unrolled_region_work;
    o.reduction_partitions = lo->reduction_partitions;
    o.max_recipe_depth = lo->max_recipe_depth;
    if (p->gpu) {
        tilec_status st = plan_gpu_options(ctx, &o);
        if (st) {
            memset(out, 0, sizeof *out); /* an empty result: the caller frees it */
            return st;
        }
        plan_gpu gpu;
        plan_gpu_init(&gpu, 0);
        return plan_kernel(ctx, f, &o, &gpu.info, out);
    }
    plan_thread_pool pool;
    plan_thread_pool_init(&pool, lo->packet_width, p->workers);
    return plan_kernel(ctx, f, &o, &pool.info, out);
}
