/* plan.c — `tilec plan FILE.tir`: run the execution planner on one kernel and
 * print the chosen plan with every cost term; --explain adds every admitted
 * candidate ranked in the planner's order (score; ties by reused load bytes, then enumeration) and every rejection
 * with its reason; --json prints the same as one JSON object.
 *
 * JSON is deterministic: keys in a fixed order, numbers in the shortest
 * decimal form that reads back to the same double, non-finite numbers (only
 * possible in rejected costs) as null.  docs/planner.md shows the schema. */
#include "lowering.h"
#include "plan/report.h"

enum { OPT_DEFINE = 1, OPT_KERNEL, OPT_EXPLAIN, OPT_JSON };

static const cli_option options[] = {
    {"-D", true, OPT_DEFINE},          {"--kernel", true, OPT_KERNEL}, {"--explain", false, OPT_EXPLAIN},
    {"--json", false, OPT_JSON},       {NULL, false, 0},
};

typedef struct {
    cli_defines defines;
    cli_options options;
    const char *path, *kernel;
    bool explain, json;
} plan_request;

static int scan(plan_request *r, int argc, char **argv) {
    cli_scanner s = cli_scanner_start("plan", argc, argv);
    s.more = r->options.flags;
    const char *value;
    int id;
    while ((id = cli_scan(&s, options, &value)) != CLI_SCAN_END) {
        switch (id) {
        case CLI_SCAN_HELP: fputs(cli_plan_command.help, stdout); return CLI_EXIT_OK;
        case CLI_SCAN_ERROR: return CLI_EXIT_USAGE;
        case CLI_SCAN_POSITIONAL:
            if (r->path) return cli_usage_error("plan", "unexpected argument '%s'", value);
            r->path = value;
            break;
        case OPT_DEFINE:
            if (!cli_defines_add(&r->defines, "plan", value)) return CLI_EXIT_USAGE;
            break;
        case OPT_KERNEL: r->kernel = value[0] == '@' ? value + 1 : value; break;
        case OPT_EXPLAIN: r->explain = true; break;
        case OPT_JSON: r->json = true; break;
        default:
            if (!cli_options_take(&r->options, "plan", id, value)) return CLI_EXIT_USAGE;
        }
    }
    return r->path ? CLI_CONTINUE : cli_usage_error("plan", "missing FILE.tir");
}

/* ---- JSON ---- */

static void json_string(FILE *out, const char *s) {
    fputc('"', out);
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(out, "\\%c", ch);
        else if (ch < 0x20) fprintf(out, "\\u%04x", ch);
        else fputc(ch, out);
    }
    fputc('"', out);
}

static void json_u32_array(FILE *out, const uint32_t *a, size_t n) {
    if (!n) {
        fputs("null", out);
        return;
    }
    fputc('[', out);
    for (size_t i = 0; i < n; i++) fprintf(out, "%s%u", i ? ", " : "", a[i]);
    fputc(']', out);
}

static void json_candidate_fields(FILE *out, const plan_candidate *c, const char *indent) {
    fprintf(out, "%s\"index\": %u,\n%s\"order\": ", indent, c->index, indent);
    json_u32_array(out, c->order, c->rank);
    fprintf(out,
            ",\n%s\"block_size\": %u,\n%s\"local_lanes\": %u,\n%s\"blocks_per_task\": %llu,\n%s\"packet_width\": %u,\n"
            "%s\"dispatch_size\": %llu,\n%s\"fused\": %s,\n%s\"fusion_level\": %u,\n%s\"tiles\": ",
            indent, c->block_size, indent, c->local_lanes, indent, (unsigned long long)c->blocks_per_task, indent,
            c->packet_width, indent, (unsigned long long)c->dispatch_size, indent, c->fused ? "true" : "false", indent,
            c->fused, indent);
    if (c->tiled) json_u32_array(out, c->tiles, c->rank);
    else fputs("null", out);
    fputs(",\n", out);
}

static void json_work(FILE *out, const plan_work *w, const char *indent) {
    char b[32];
    fprintf(out, "%s\"work\": {", indent);
#define D(field) fprintf(out, "\"" #field "\": %s, ", plan_number(b, w->field));
#define U(field) fprintf(out, "\"" #field "\": %llu, ", (unsigned long long)w->field);
    D(arithmetic_per_packet) D(memory_per_packet) D(arithmetic_ops) D(decode_ops) D(broadcast_loads)
    D(contiguous_accesses) D(gathered_accesses) D(private_accesses) D(spill_accesses)
    fprintf(out, "\"ragged_packets\": %s, ", w->ragged_packets ? "true" : "false");
    D(reused_load_bytes)
    fprintf(out, "\"cache_lines\": [%s, ", plan_number(b, w->cache_lines[0]));
    fprintf(out, "%s, ", plan_number(b, w->cache_lines[1]));
    fprintf(out, "%s], ", plan_number(b, w->cache_lines[2]));
    U(packet_count) U(block_count) U(task_count) U(active_workers) U(blocks_per_task) U(critical_packets)
    U(critical_blocks)
#undef D
#undef U
    fprintf(out, "\"critical_tasks\": %llu}", (unsigned long long)w->critical_tasks);
}

static void json_cost(FILE *out, const plan_cost *c, const char *indent) {
    char b[32];
    fprintf(out, "%s\"cost\": {", indent);
    const char *sep = "";
#define X(term) fprintf(out, "%s\"" #term "\": %s", sep, plan_number(b, c->term)), sep = ", ";
    PLAN_COST_TERMS(X)
#undef X
    fputc('}', out);
}

static void json_resources(FILE *out, bool present, const plan_resources *r, const plan_resource_limits *l,
                           const char *indent) {
    if (!present) {
        fprintf(out, "%s\"resources\": null,\n%s\"resource_limits\": null", indent, indent);
        return;
    }
    fprintf(out,
            "%s\"resources\": {\"snapshot_bytes_per_worker\": %llu, \"snapshot_allocations\": %llu},\n"
            "%s\"resource_limits\": {\"max_snapshot_bytes_per_worker\": %llu}",
            indent, (unsigned long long)r->snapshot_bytes_per_worker, (unsigned long long)r->snapshot_allocations,
            indent, (unsigned long long)l->max_snapshot_bytes_per_worker);
}

static void json_choice(FILE *out, const plan_choice *c, const char *indent) {
    char inner[16];
    snprintf(inner, sizeof inner, "%s  ", indent);
    fputs("{\n", out);
    json_candidate_fields(out, &c->candidate, inner);
    json_work(out, &c->work, inner);
    fputs(",\n", out);
    json_cost(out, &c->cost, inner);
    fputs(",\n", out);
    json_resources(out, true, &c->resources, &c->limits, inner);
    fprintf(out, "\n%s}", indent);
}

static void json_rejection(FILE *out, const plan_rejection *r) {
    fputs("{\n", out);
    json_candidate_fields(out, &r->candidate, "      ");
    fprintf(out, "      \"stage\": \"%s\",\n      \"reason\": ", plan_reject_stage_name(r->stage));
    json_string(out, r->reason);
    fputs(",\n", out);
    json_resources(out, r->analyzed, &r->resources, &r->limits, "      ");
    if (r->scored) {
        fputs(",\n", out);
        json_work(out, &r->work, "      ");
        fputs(",\n", out);
        json_cost(out, &r->cost, "      ");
    }
    fputs("\n    }", out);
}

/* One access summary (plan/access.h): its op, view, kind, and either the
 * box per view axis or why it is unknown. */
static void json_access(FILE *out, const plan_access *a, size_t i) {
    fprintf(out, "%s{\"op\": %u, \"view\": ", i ? ",\n    " : "\n    ", a->op->id);
    json_string(out, a->op->operands[0]->value->name);
    fprintf(out, ", \"kind\": \"%s\", \"known\": %s", a->store ? "store" : "load", a->known ? "true" : "false");
    if (!a->known) {
        fputs(", \"why\": ", out);
        json_string(out, a->why);
        fputc('}', out);
        return;
    }
    fprintf(out, ", \"exact\": %s, \"clipped\": %s, \"never\": %s, \"elements\": %llu, \"axes\": [",
            a->exact ? "true" : "false", a->clipped ? "true" : "false", a->never ? "true" : "false",
            (unsigned long long)a->elements);
    for (uint32_t x = 0; x < a->rank; x++) {
        fputs(x ? ", {\"scale\": [" : "{\"scale\": [", out);
        for (uint32_t j = 0; j < a->roots; j++) fprintf(out, "%s%lld", j ? ", " : "", (long long)a->axes[x].scale[j]);
        fprintf(out, "], \"offset\": %lld, \"lo\": %lld, \"hi\": %lld}", (long long)a->axes[x].offset,
                (long long)a->axes[x].lo, (long long)a->axes[x].hi);
    }
    fputs("]}", out);
}

static void print_json(FILE *out, const plan_result *p, const plan_choice **rank, bool explain) {
    char b[32];
    const plan_options *o = &p->options;
    fputs("{\n  \"kernel\": ", out);
    json_string(out, p->kernel);
    fprintf(out, ",\n  \"ok\": %s,\n  \"target\": {\"name\": ", p->ok ? "true" : "false");
    json_string(out, p->target_name);
    fprintf(out,
            ", \"packet_width\": %u, \"worker_count\": %u, \"task_chunks_per_worker\": %u, \"task_grain\": %s, "
            "\"l1d_bytes\": %llu, \"l2_bytes\": %llu, \"l3_bytes\": %llu, \"vector_registers\": %u},\n",
            p->target.packet_width, p->target.worker_count, p->target.task_chunks_per_worker,
            p->task_grain ? "true" : "false", (unsigned long long)p->target.l1d_bytes,
            (unsigned long long)p->target.l2_bytes, (unsigned long long)p->target.l3_bytes,
            p->target.vector_registers);
    fprintf(out, "  \"options\": {\"block_size\": %u, \"root_axis_order\": ", o->block_size);
    json_u32_array(out, o->root_axis_order, o->root_axis_order_len);
    fputs(", \"root_axis_tiles\": ", out);
    json_u32_array(out, o->root_axis_tiles, o->root_axis_tiles_len);
    fprintf(out,
            ", \"max_candidates\": %llu, \"max_unrolled_tile_elements\": %u, \"max_unrolled_region_work\": %llu, "
            "\"reduction_partitions\": %u, \"max_recipe_depth\": %u, \"local_lanes\": %u, \"blocks_per_task\": %u, "
            "\"search_task_grain\": %s, \"fuse\": \"%s\", \"pack\": \"%s\", \"split\": \"%s\", "
            "\"split_chunks\": %u},\n",
            (unsigned long long)o->max_candidates, o->max_unrolled_tile_elements,
            (unsigned long long)o->max_unrolled_region_work, o->reduction_partitions, o->max_recipe_depth,
            o->local_lanes, o->blocks_per_task, o->search_task_grain ? "true" : "false",
            options_mode_name(o->fuse), options_mode_name(o->pack),
            options_mode_name(o->split), o->split_chunks);
    fputs("  \"cost_policy\": ", out);
    json_string(out, p->policy);
    fprintf(out, ",\n  \"custom_cost_policy\": %s,\n  \"coefficients\": {", p->custom_policy ? "true" : "false");
    const char *sep = "";
#define X(field) fprintf(out, "%s\"" #field "\": %s", sep, plan_number(b, p->coefficients.field)), sep = ", ";
    PLAN_COEFFICIENTS(X)
#undef X
    fprintf(out,
            "},\n  \"search\": {\"root_orders\": %llu, \"duplicate_orders\": %llu, \"tilings\": %llu, \"block_widths\": %llu, "
            "\"local_widths\": %llu, \"candidates\": %llu, \"admitted\": %zu, \"rejected\": %zu},\n  \"local_axis\": ",
            (unsigned long long)p->root_orders, (unsigned long long)p->duplicate_orders, (unsigned long long)p->tilings,
            (unsigned long long)p->block_widths,
            (unsigned long long)p->local_widths, (unsigned long long)p->candidate_count, p->candidates.len,
            p->rejected.len);
    if (p->local_axis) {
        fputs("{\"dim\": ", out);
        json_string(out, p->local_axis);
        fprintf(out, ", \"extent\": %llu, \"slots\": %llu, \"contraction_axes\": ", (unsigned long long)p->local_extent,
                (unsigned long long)p->local_slots);
        if (p->local_contraction_axes) json_string(out, p->local_contraction_axes);
        else fputs("null", out);
        fputs(", \"passed_over\": ", out);
        if (p->local_passed_over) json_string(out, p->local_passed_over);
        else fputs("null", out);
        fputc('}', out);
    } else {
        fputs("null", out);
    }
    fputs(",\n  \"packing\": ", out);
    if (p->ok) {
        fputs("{\"packs\": [", out);
        for (uint32_t i = 0; i < p->packing.count; i++) {
            const plan_pack *k = &p->packing.packs[i];
            fputs(i ? ", {\"operand\": " : "{\"operand\": ", out);
            json_string(out, k->load->operands[0]->value->name);
            fprintf(out, ", \"elem\": \"%s\", \"tiles\": %llu, \"tile_elements\": %llu, \"bytes\": %llu, \"reuse\": %llu}",
                    tir_scalar_name(k->elem), (unsigned long long)k->instances, (unsigned long long)k->tile_elements,
                    (unsigned long long)k->bytes, (unsigned long long)k->reuse);
        }
        fputs("], \"why\": ", out);
        json_string(out, p->packing.why);
        fputc('}', out);
    } else {
        fputs("null", out);
    }
    fputs(",\n  \"split\": ", out);
    if (p->ok) {
        const plan_split *s = &p->split;
        fprintf(out, "{\"split\": %s, \"trips\": %llu, \"chunks\": %u, \"chunk_trips\": %llu, \"tail_trips\": %llu, "
                     "\"workspace_bytes\": %llu, \"modeled_gain\": %.4g, \"why\": ",
                s->reduce ? "true" : "false", (unsigned long long)s->trips, s->chunks, (unsigned long long)s->chunk_trips,
                (unsigned long long)s->tail_trips, (unsigned long long)s->workspace_bytes, s->modeled_gain);
        json_string(out, s->why);
        fputc('}', out);
    } else {
        fputs("null", out);
    }
    fputs(",\n  \"selected\": ", out);
    if (p->ok) json_choice(out, plan_selected(p), "  ");
    else fputs("null", out);
    if (explain) {
        fputs(",\n  \"accesses\": [", out);
        for (size_t i = 0; i < p->accesses.count; i++) json_access(out, &p->accesses.items[i], i);
        fputs("],\n  \"footprints\": [", out);
        for (size_t i = 0; i < p->footprints.count; i++) {
            const plan_footprint *v = &p->footprints.views[i];
            fprintf(out, "%s{\"param\": %u, \"read_only\": %s, \"known\": %s, \"shared\": %s, \"bytes\": %llu, "
                         "\"depends\": [",
                    i ? ", " : "", v->param, v->read_only ? "true" : "false", v->known ? "true" : "false",
                    v->shared ? "true" : "false", (unsigned long long)v->bytes);
            for (uint32_t a = 0, n = 0; a < 64; a++)
                if (v->depends >> a & 1) fprintf(out, "%s%u", n++ ? ", " : "", a);
            fprintf(out, "], \"sharers\": %llu}", (unsigned long long)v->sharers);
        }
        fputs("],\n  \"ranking\": [", out);
        for (size_t i = 0; rank && i < p->candidates.len; i++) {
            fputs(i ? ", " : "", out);
            json_choice(out, rank[i], "    ");
        }
        fputs("],\n  \"rejected\": [", out);
        for (size_t i = 0; i < p->rejected.len; i++) {
            fputs(i ? ", " : "", out);
            json_rejection(out, &p->rejected.data[i]);
        }
        fputc(']', out);
    }
    fputs("\n}\n", out);
}

static int plan_main(tilec_context *ctx, int argc, char **argv, bool parse_only) {
    plan_request r = {0};
    cli_defines_init(&r.defines, ctx);
    cli_options_init(&r.options, ctx, CLI_FLAGS_MODELED);
    int code = scan(&r, argc, argv);
    if (code == CLI_CONTINUE && !parse_only) {
        tir_module *m = cli_load_module(ctx, r.path, &r.defines);
        const tir_func *f = m ? cli_pick_kernel(m, "plan", r.kernel) : NULL;
        tir_module *flat = NULL;
        if (f) f = cli_flatten(ctx, f, &flat);
        code = CLI_EXIT_FAIL;
        if (f) {
            plan_result p;
            tilec_status st = cli_plan(ctx, &r.options, f, &p);
            const plan_choice **rank = r.explain ? plan_ranking(ctx, &p) : NULL;
            if (r.explain && !rank) st = st ? st : TILEC_E_NOMEM;
            /* A plan, or an explanation of why there is none. */
            if (!st || (r.explain && p.candidate_count)) {
                if (r.json) print_json(stdout, &p, rank, r.explain);
                else {
                    strbuf text;
                    strbuf_init(&text, ctx);
                    plan_report_text(&text, &p, rank, r.explain);
                    fputs(strbuf_cstr(&text), stdout);
                    strbuf_free(&text);
                }
            }
            code = st ? cli_fail_diags(ctx) : CLI_EXIT_OK;
            tilec_free(ctx, rank);
            plan_result_free(&p);
        }
        tir_module_destroy(flat);
        tir_module_destroy(m);
    }
    cli_defines_free(&r.defines);
    return code;
}

const cli_command cli_plan_command = {
    "plan",
    "plan how a kernel's programs map onto packets, blocks and CPU tasks",
    "usage: tilec plan FILE.tir [--explain] [--json] [--kernel NAME] [options] [-D NAME=VALUE]...\n"
    "\n"
    "Parses and verifies FILE.tir and runs the execution planner on one kernel\n"
    "for the modeled CPU thread-pool target: an exact search over root axis\n"
    "orders, block widths, local widths and task grains under the uncalibrated\n"
    "cost prior (docs/planner.md). Prints the chosen plan (order, block, W, local\n"
    "lanes, grain, dispatch size, schedule, resources) with every cost term.\n"
    "\n"
    "Options:\n"
    "  --explain         also rank every admitted candidate with its cost terms and\n"
    "                    list every rejected candidate with its reason\n"
    "  --json            print the same as one JSON object (stable keys and numbers)\n"
    "  --kernel NAME     the kernel to plan (needed when the file has several)\n" CLI_LOWERING_HELP
    "  -D NAME=VALUE     override shape parameter NAME (repeatable)\n"
    "  -h, --help        show this help\n"
    "\n"
    "Constraints (--block, --order, --grain, --local-lanes) are exact, not hints.\n"
    "Exit status: 0 planned, 1 the file has errors or no candidate is admitted\n"
    "(with --explain the rejections are still printed), 2 usage error.\n",
    plan_main,
};
