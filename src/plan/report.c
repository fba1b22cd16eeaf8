/* report.c — the planner's report as text (plan_report_text): the target,
 * the search, the cost coefficients, the chosen candidate with every cost
 * term, the packet-local, packing and split decisions, and with `explain`
 * every admitted candidate ranked in the planner's order and every
 * rejection with its reason.  `tilec plan` prints it, and tilec_explain
 * (tilec.h) hands it to a caller.  The same report as JSON
 * (plan_report_json, `tilec plan --json`), and the planner's items of a
 * kernel's realization string (plan_report_describe). */
#include "plan/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Integers as integers, other numbers in the shortest %g form that reads
 * back to v. */
const char *plan_number(char buf[32], double v) {
    if (!isfinite(v)) return strcpy(buf, "null");
    if (v == floor(v) && fabs(v) < 1e15) {
        snprintf(buf, 32, "%.0f", v);
        return buf;
    }
    for (int precision = 1; precision <= 17; precision++) {
        snprintf(buf, 32, "%.*g", precision, v);
        if (strtod(buf, NULL) == v) break;
    }
    return buf;
}

static void print_order(strbuf *out, const plan_candidate *c) {
    strbuf_append(out, "[");
    for (uint32_t t = 0; t < c->rank; t++) strbuf_printf(out, "%s%u", t ? "," : "", c->order[t]);
    strbuf_append(out, "]");
}

/* Candidates in the planner's order (plan_choice_before). */
static int by_score(const void *a, const void *b) {
    const plan_choice *x = *(const plan_choice *const *)a, *y = *(const plan_choice *const *)b;
    return plan_choice_before(x, y) ? -1 : plan_choice_before(y, x) ? 1 : 0;
}

const plan_choice **plan_ranking(tilec_context *ctx, const plan_result *p) {
    const plan_choice **rank = tilec_alloc(ctx, sizeof *rank * (p->candidates.len + 1));
    if (!rank) return NULL;
    for (size_t i = 0; i < p->candidates.len; i++) rank[i] = &p->candidates.data[i];
    qsort(rank, p->candidates.len, sizeof *rank, by_score);
    return rank;
}

/* The fusion level after the dispatch size. */
static const char *plan_fusion_words(uint32_t level) {
    return level == 0 ? "" : level == 1 ? ", fused" : ", fused, costly values recomputed";
}

static void text_choice(strbuf *out, const plan_choice *c) {
    char b[9][32], spills[64] = "";
    const plan_work *w = &c->work;
    if (w->spill_accesses > 0)
        snprintf(spills, sizeof spills, ", %s of them register spills", plan_number(b[8], w->spill_accesses));
    strbuf_printf(out, "chosen: candidate #%u: root order ", c->candidate.index);
    print_order(out, &c->candidate);
    strbuf_printf(out, ", block %u, W %u, local lanes %u, blocks per task %llu, dispatch %llu%s\n", c->candidate.block_size,
                  c->candidate.packet_width, c->candidate.local_lanes, (unsigned long long)c->candidate.blocks_per_task,
                  (unsigned long long)c->candidate.dispatch_size, plan_fusion_words(c->candidate.fused));
    if (c->candidate.tiled) {
        strbuf_append(out, "  root tiles [");
        for (uint32_t a = 0; a < c->candidate.rank; a++) strbuf_printf(out, "%s%u", a ? "," : "", c->candidate.tiles[a]);
        strbuf_append(out, "]\n");
    }
    strbuf_printf(out,
                  "  schedule: %llu packets, %llu blocks, grain %llu, %llu tasks, %llu active workers; critical packets "
                  "%llu, blocks %llu, tasks %llu\n",
                  (unsigned long long)w->packet_count, (unsigned long long)w->block_count,
                  (unsigned long long)w->blocks_per_task, (unsigned long long)w->task_count,
                  (unsigned long long)w->active_workers, (unsigned long long)w->critical_packets,
                  (unsigned long long)w->critical_blocks, (unsigned long long)w->critical_tasks);
    strbuf_printf(out,
                  "  work per packet: arithmetic %s (%s operations, root decode %s), memory %s (view: %s broadcast, %s "
                  "contiguous, %s gathered%s; %s private%s)\n",
                  plan_number(b[0], w->arithmetic_per_packet), plan_number(b[1], w->arithmetic_ops), plan_number(b[2], w->decode_ops),
                  plan_number(b[3], w->memory_per_packet), plan_number(b[4], w->broadcast_loads), plan_number(b[5], w->contiguous_accesses),
                  plan_number(b[6], w->gathered_accesses), w->ragged_packets ? ", doubled: ragged fast axis" : "",
                  plan_number(b[7], w->private_accesses), spills);
    strbuf_printf(out, "  cache lines fetched (reuse-distance model): L1d %s, L2 %s, L3 %s\n",
                  plan_number(b[0], w->cache_lines[0]), plan_number(b[1], w->cache_lines[1]),
                  plan_number(b[2], w->cache_lines[2]));
    strbuf_printf(out, "  resources: %llu snapshot bytes per worker in %llu arrays; budget %llu bytes\n",
                  (unsigned long long)c->resources.snapshot_bytes_per_worker,
                  (unsigned long long)c->resources.snapshot_allocations,
                  (unsigned long long)c->limits.max_snapshot_bytes_per_worker);
    strbuf_printf(out,
                  "  cost: arithmetic %s + memory %s + dispatch %s + imbalance %s + task %s + activation %s + cache %s = "
                  "score %s\n",
                  plan_number(b[0], c->cost.arithmetic), plan_number(b[1], c->cost.memory), plan_number(b[2], c->cost.dispatch),
                  plan_number(b[3], c->cost.imbalance), plan_number(b[4], c->cost.task), plan_number(b[5], c->cost.activation),
                  plan_number(b[6], c->cost.cache), plan_number(b[7], c->cost.score));
}

/* "8·r0 + 2·r1 + 3 + [0, 7]" (or "[0, 47]") for axis x of a known access. */
static void text_axis(strbuf *out, const plan_access *a, uint32_t x) {
    const plan_access_axis *ax = &a->axes[x];
    bool any = false;
    for (uint32_t j = 0; j < a->roots; j++) {
        if (!ax->scale[j]) continue;
        strbuf_printf(out, "%s%lld·r%u", any ? " + " : "", (long long)ax->scale[j], j);
        any = true;
    }
    if (ax->offset) strbuf_printf(out, "%s%lld", any ? " + " : "", (long long)ax->offset);
    strbuf_printf(out, "%s[%lld, %lld]", any || ax->offset ? " + " : "", (long long)ax->lo, (long long)ax->hi);
}

static void text_accesses(strbuf *out, const plan_result *p) {
    strbuf_printf(out, "access summaries (%zu; r = root coordinates, per view axis):\n", p->accesses.count);
    for (size_t i = 0; i < p->accesses.count; i++) {
        const plan_access *a = &p->accesses.items[i];
        strbuf_printf(out, "  op #%u %s %%%s: ", a->op->id, a->store ? "store" : "load",
                      a->op->operands[0]->value->name);
        if (!a->known) {
            strbuf_printf(out, "unknown (%s)\n", a->why);
            continue;
        }
        for (uint32_t x = 0; x < a->rank; x++) {
            strbuf_append(out, x ? "; " : "");
            text_axis(out, a, x);
        }
        strbuf_printf(out, " — %llu elements per program%s%s%s\n", (unsigned long long)a->elements,
                      a->exact ? ", exact" : ", a bound", a->clipped ? ", clipped to the view" : "",
                      a->never ? ", never runs" : "");
    }
}

static void text_footprints(strbuf *out, const plan_result *p) {
    strbuf_printf(out, "view footprints per program (r = root coordinates):\n");
    for (size_t i = 0; i < p->footprints.count; i++) {
        const plan_footprint *v = &p->footprints.views[i];
        const char *name = "?";
        for (size_t k = 0; k < p->accesses.count; k++)
            if (p->accesses.items[k].param == v->param) name = p->accesses.items[k].op->operands[0]->value->name;
        strbuf_printf(out, "  %%%s: %llu bytes in %llu lines, moves with", name, (unsigned long long)v->bytes,
                      (unsigned long long)v->lines);
        bool any = false;
        for (uint32_t a = 0; a < 64; a++)
            if (v->depends >> a & 1) strbuf_printf(out, "%s r%u", any ? "," : "", a), any = true;
        strbuf_printf(out, "%s%s%s", any ? "" : " none", v->known ? "" : " (unknown: the whole view)",
                      v->shared ? "" : v->read_only ? ", read-only" : ", written");
        if (v->shared) strbuf_printf(out, ", read-only, shared by %llu programs", (unsigned long long)v->sharers);
        strbuf_append(out, "\n");
    }
}

static void text_rejections(strbuf *out, const plan_result *p) {
    strbuf_printf(out, "rejected candidates (%zu):\n", p->rejected.len);
    for (size_t i = 0; i < p->rejected.len; i++) {
        const plan_rejection *r = &p->rejected.data[i];
        strbuf_printf(out, "  #%u order ", r->candidate.index);
        print_order(out, &r->candidate);
        strbuf_printf(out, " block %u local %u grain %llu: [%s] %s\n", r->candidate.block_size, r->candidate.local_lanes,
                      (unsigned long long)r->candidate.blocks_per_task, plan_reject_stage_name(r->stage), r->reason);
    }
}

static void text_ranking(strbuf *out, const plan_result *p, const plan_choice *const *rank) {
    strbuf_printf(out, "ranked candidates (%zu, by score; ties by reused load bytes, then enumeration order):\n",
                  p->candidates.len);
    strbuf_printf(out, "  %4s %5s %-10s %5s %5s %5s %12s %12s %10s %10s %8s %10s %12s %12s %12s\n", "rank", "#", "order",
                  "block", "local", "grain", "arithmetic", "memory", "dispatch", "imbalance", "task", "activation", "cache",
                  "score", "reused");
    for (size_t i = 0; i < p->candidates.len; i++) {
        const plan_choice *c = rank[i];
        char order[64] = "[";
        for (uint32_t t = 0; t < c->candidate.rank && strlen(order) < 50; t++)
            snprintf(order + strlen(order), sizeof order - strlen(order), "%s%u", t ? "," : "", c->candidate.order[t]);
        strcat(order, "]");
        strbuf_printf(out, "  %4zu %5u %-10s %5u %5u %5llu %12.1f %12.1f %10.1f %10.1f %8.1f %10.1f %12.1f %12.1f %12.0f%s\n",
                      i + 1, c->candidate.index, order, c->candidate.block_size, c->candidate.local_lanes,
                      (unsigned long long)c->work.blocks_per_task, c->cost.arithmetic, c->cost.memory, c->cost.dispatch,
                      c->cost.imbalance, c->cost.task, c->cost.activation, c->cost.cache, c->cost.score,
                      c->work.reused_load_bytes,
                      i == 0 ? "  <- chosen" : "");
    }
}

void plan_report_text(strbuf *out, const plan_result *p, const plan_choice *const *rank, bool explain) {
    char b[32];
    strbuf_printf(out, "@%s: plan for target %s (W=%u, %u workers, %u task chunks per worker)\n", p->kernel,
                  p->target_name, p->target.packet_width, p->target.worker_count, p->target.task_chunks_per_worker);
    strbuf_printf(out,
                  "search: %llu candidates (%llu root orders x %llu block widths x %llu local widths x task grains): %zu "
                  "admitted, %zu rejected",
                  (unsigned long long)p->candidate_count, (unsigned long long)p->root_orders,
                  (unsigned long long)p->block_widths, (unsigned long long)p->local_widths, p->candidates.len,
                  p->rejected.len);
    if (p->tilings) strbuf_printf(out, "; %llu of them root tilings of the best order", (unsigned long long)p->tilings);
    if (p->duplicate_orders)
        strbuf_printf(out, "; %llu root orders or tilings skipped (their canonical map repeats an earlier one)",
                      (unsigned long long)p->duplicate_orders);
    strbuf_append(out, "\n");
    strbuf_printf(out, "cost policy: %s; coefficients:", p->policy);
#define X(field) strbuf_printf(out, " " #field " %s", plan_number(b, p->coefficients.field));
    PLAN_COEFFICIENTS(X)
#undef X
    strbuf_append(out, "\n");
    if (p->ok) text_choice(out, plan_selected(p));
    if (p->local_axis)
        strbuf_printf(out,
                      "packet-local candidates (local lanes %u): axis '%s' of extent %llu split over the lanes, %llu "
                      "slot%s per lane%s%s%s; every other axis whole on every lane\n",
                      p->target.packet_width, p->local_axis, (unsigned long long)p->local_extent,
                      (unsigned long long)p->local_slots, p->local_slots == 1 ? "" : "s",
                      p->local_contraction_axes ? "; contracted axes split too (" : "",
                      p->local_contraction_axes ? p->local_contraction_axes : "", p->local_contraction_axes ? ")" : "");
    if (p->local_passed_over) strbuf_printf(out, "  (axis chosen after refusing %s)\n", p->local_passed_over);
    if (p->ok)
        strbuf_printf(out, "packing (%s): %s%s\n", options_mode_name(p->options.pack), p->packing.count ? "" : "none: ",
                      p->packing.why);
    if (p->ok)
        strbuf_printf(out, "split (%s): %s%s\n", options_mode_name(p->options.split), p->split.reduce ? "" : "none: ",
                      p->split.why);
    if (explain) text_accesses(out, p);
    if (explain) text_footprints(out, p);
    if (explain && rank) text_ranking(out, p, rank);
    if (explain) text_rejections(out, p);
}

/* The planner's items of a kernel's realization string (see report.h). */
void plan_report_describe(strbuf *s, const plan_result *p) {
    const plan_choice *c = plan_selected(p);
    const tilec_compile_options *o = &p->options;
    strbuf_printf(s,
                  "planner=exact; target=%s; candidates=%llu; admitted_candidates=%zu; rejected_candidates=%zu; "
                  "cost_policy=%s; custom_cost_policy=%d; ",
                  p->target_name, (unsigned long long)p->candidate_count, p->candidates.len, p->rejected.len,
                  p->policy, p->custom_policy);
#define X(term) strbuf_printf(s, "cost_" #term "=%.17g; ", c->cost.term);
    PLAN_COST_TERMS(X)
#undef X
    strbuf_printf(s,
                  "planned_block=%u; planned_local_lanes=%u; blocks_per_task=%llu; task_count=%llu; "
                  "active_workers=%llu; cpu_workers=%u; l1d_bytes=%llu; l2_bytes=%llu; l3_bytes=%llu; "
                  "vector_registers=%u; spill_accesses=%.17g; reused_load_bytes=%.17g; critical_packets=%llu; critical_blocks=%llu; "
                  "critical_tasks=%llu; cache_lines_l1=%.17g; cache_lines_l2=%.17g; cache_lines_l3=%.17g; "
                  "fuse=%s; fused=%u; ",
                  c->candidate.block_size, c->candidate.local_lanes, (unsigned long long)c->work.blocks_per_task,
                  (unsigned long long)c->work.task_count, (unsigned long long)c->work.active_workers,
                  p->target.worker_count, (unsigned long long)p->target.l1d_bytes,
                  (unsigned long long)p->target.l2_bytes, (unsigned long long)p->target.l3_bytes,
                  p->target.vector_registers, c->work.spill_accesses, c->work.reused_load_bytes, (unsigned long long)c->work.critical_packets,
                  (unsigned long long)c->work.critical_blocks, (unsigned long long)c->work.critical_tasks,
                  c->work.cache_lines[0], c->work.cache_lines[1], c->work.cache_lines[2], options_mode_name(o->fuse),
                  c->candidate.fused);
}

/* ---- JSON (`tilec plan --json`) ---- */

static void json_string(strbuf *out, const char *s) {
    strbuf_printf(out, "%c", '"');
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') strbuf_printf(out, "\\%c", ch);
        else if (ch < 0x20) strbuf_printf(out, "\\u%04x", ch);
        else strbuf_printf(out, "%c", ch);
    }
    strbuf_printf(out, "%c", '"');
}

static void json_u32_array(strbuf *out, const uint32_t *a, size_t n) {
    if (!n) {
        strbuf_append(out, "null");
        return;
    }
    strbuf_printf(out, "%c", '[');
    for (size_t i = 0; i < n; i++) strbuf_printf(out, "%s%u", i ? ", " : "", a[i]);
    strbuf_printf(out, "%c", ']');
}

static void json_candidate_fields(strbuf *out, const plan_candidate *c, const char *indent) {
    strbuf_printf(out, "%s\"index\": %u,\n%s\"order\": ", indent, c->index, indent);
    json_u32_array(out, c->order, c->rank);
    strbuf_printf(out,
            ",\n%s\"block_size\": %u,\n%s\"local_lanes\": %u,\n%s\"blocks_per_task\": %llu,\n%s\"packet_width\": %u,\n"
            "%s\"dispatch_size\": %llu,\n%s\"fused\": %s,\n%s\"fusion_level\": %u,\n%s\"tiles\": ",
            indent, c->block_size, indent, c->local_lanes, indent, (unsigned long long)c->blocks_per_task, indent,
            c->packet_width, indent, (unsigned long long)c->dispatch_size, indent, c->fused ? "true" : "false", indent,
            c->fused, indent);
    if (c->tiled) json_u32_array(out, c->tiles, c->rank);
    else strbuf_append(out, "null");
    strbuf_append(out, ",\n");
}

static void json_work(strbuf *out, const plan_work *w, const char *indent) {
    char b[32];
    strbuf_printf(out, "%s\"work\": {", indent);
#define D(field) strbuf_printf(out, "\"" #field "\": %s, ", plan_number(b, w->field));
#define U(field) strbuf_printf(out, "\"" #field "\": %llu, ", (unsigned long long)w->field);
    D(arithmetic_per_packet) D(memory_per_packet) D(arithmetic_ops) D(decode_ops) D(broadcast_loads)
    D(contiguous_accesses) D(gathered_accesses) D(private_accesses) D(spill_accesses)
    strbuf_printf(out, "\"ragged_packets\": %s, ", w->ragged_packets ? "true" : "false");
    D(reused_load_bytes)
    strbuf_printf(out, "\"cache_lines\": [%s, ", plan_number(b, w->cache_lines[0]));
    strbuf_printf(out, "%s, ", plan_number(b, w->cache_lines[1]));
    strbuf_printf(out, "%s], ", plan_number(b, w->cache_lines[2]));
    U(packet_count) U(block_count) U(task_count) U(active_workers) U(blocks_per_task) U(critical_packets)
    U(critical_blocks)
#undef D
#undef U
    strbuf_printf(out, "\"critical_tasks\": %llu}", (unsigned long long)w->critical_tasks);
}

static void json_cost(strbuf *out, const plan_cost *c, const char *indent) {
    char b[32];
    strbuf_printf(out, "%s\"cost\": {", indent);
    const char *sep = "";
#define X(term) strbuf_printf(out, "%s\"" #term "\": %s", sep, plan_number(b, c->term)), sep = ", ";
    PLAN_COST_TERMS(X)
#undef X
    strbuf_printf(out, "%c", '}');
}

static void json_resources(strbuf *out, bool present, const plan_resources *r, const plan_resource_limits *l,
                           const char *indent) {
    if (!present) {
        strbuf_printf(out, "%s\"resources\": null,\n%s\"resource_limits\": null", indent, indent);
        return;
    }
    strbuf_printf(out,
            "%s\"resources\": {\"snapshot_bytes_per_worker\": %llu, \"snapshot_allocations\": %llu},\n"
            "%s\"resource_limits\": {\"max_snapshot_bytes_per_worker\": %llu}",
            indent, (unsigned long long)r->snapshot_bytes_per_worker, (unsigned long long)r->snapshot_allocations,
            indent, (unsigned long long)l->max_snapshot_bytes_per_worker);
}

static void json_choice(strbuf *out, const plan_choice *c, const char *indent) {
    char inner[16];
    snprintf(inner, sizeof inner, "%s  ", indent);
    strbuf_append(out, "{\n");
    json_candidate_fields(out, &c->candidate, inner);
    json_work(out, &c->work, inner);
    strbuf_append(out, ",\n");
    json_cost(out, &c->cost, inner);
    strbuf_append(out, ",\n");
    json_resources(out, true, &c->resources, &c->limits, inner);
    strbuf_printf(out, "\n%s}", indent);
}

static void json_rejection(strbuf *out, const plan_rejection *r) {
    strbuf_append(out, "{\n");
    json_candidate_fields(out, &r->candidate, "      ");
    strbuf_printf(out, "      \"stage\": \"%s\",\n      \"reason\": ", plan_reject_stage_name(r->stage));
    json_string(out, r->reason);
    strbuf_append(out, ",\n");
    json_resources(out, r->analyzed, &r->resources, &r->limits, "      ");
    if (r->scored) {
        strbuf_append(out, ",\n");
        json_work(out, &r->work, "      ");
        strbuf_append(out, ",\n");
        json_cost(out, &r->cost, "      ");
    }
    strbuf_append(out, "\n    }");
}

/* One access summary (plan/access.h): its op, view, kind, and either the
 * box per view axis or why it is unknown. */
static void json_access(strbuf *out, const plan_access *a, size_t i) {
    strbuf_printf(out, "%s{\"op\": %u, \"view\": ", i ? ",\n    " : "\n    ", a->op->id);
    json_string(out, a->op->operands[0]->value->name);
    strbuf_printf(out, ", \"kind\": \"%s\", \"known\": %s", a->store ? "store" : "load", a->known ? "true" : "false");
    if (!a->known) {
        strbuf_append(out, ", \"why\": ");
        json_string(out, a->why);
        strbuf_printf(out, "%c", '}');
        return;
    }
    strbuf_printf(out, ", \"exact\": %s, \"clipped\": %s, \"never\": %s, \"elements\": %llu, \"axes\": [",
            a->exact ? "true" : "false", a->clipped ? "true" : "false", a->never ? "true" : "false",
            (unsigned long long)a->elements);
    for (uint32_t x = 0; x < a->rank; x++) {
        strbuf_append(out, x ? ", {\"scale\": [" : "{\"scale\": [");
        for (uint32_t j = 0; j < a->roots; j++) strbuf_printf(out, "%s%lld", j ? ", " : "", (long long)a->axes[x].scale[j]);
        strbuf_printf(out, "], \"offset\": %lld, \"lo\": %lld, \"hi\": %lld}", (long long)a->axes[x].offset,
                (long long)a->axes[x].lo, (long long)a->axes[x].hi);
    }
    strbuf_append(out, "]}");
}

void plan_report_json(strbuf *out, const plan_result *p, const plan_choice *const *rank, bool explain) {
    char b[32];
    const tilec_compile_options *o = &p->options;
    strbuf_append(out, "{\n  \"kernel\": ");
    json_string(out, p->kernel);
    strbuf_printf(out, ",\n  \"ok\": %s,\n  \"target\": {\"name\": ", p->ok ? "true" : "false");
    json_string(out, p->target_name);
    strbuf_printf(out,
            ", \"packet_width\": %u, \"worker_count\": %u, \"task_chunks_per_worker\": %u, \"task_grain\": %s, "
            "\"l1d_bytes\": %llu, \"l2_bytes\": %llu, \"l3_bytes\": %llu, \"vector_registers\": %u},\n",
            p->target.packet_width, p->target.worker_count, p->target.task_chunks_per_worker,
            p->task_grain ? "true" : "false", (unsigned long long)p->target.l1d_bytes,
            (unsigned long long)p->target.l2_bytes, (unsigned long long)p->target.l3_bytes,
            p->target.vector_registers);
    strbuf_printf(out, "  \"options\": {\"block_size\": %u, \"root_axis_order\": ", o->block_size);
    json_u32_array(out, o->root_axis_order, o->root_axis_order_len);
    strbuf_append(out, ", \"root_axis_tiles\": ");
    json_u32_array(out, o->root_axis_tiles, o->root_axis_tiles_len);
    strbuf_printf(out,
            ", \"max_candidates\": %llu, \"max_unrolled_tile_elements\": %u, \"max_unrolled_region_work\": %llu, "
            "\"reduction_partitions\": %u, \"max_recipe_depth\": %u, \"local_lanes\": %u, \"blocks_per_task\": %u, "
            "\"search_task_grain\": %s, \"fuse\": \"%s\", \"pack\": \"%s\", \"split\": \"%s\", "
            "\"split_chunks\": %u},\n",
            (unsigned long long)o->max_candidates, o->max_unrolled_tile_elements,
            (unsigned long long)PLAN_MAX_UNROLLED_REGION_WORK, o->reduction_partitions, (unsigned)PLAN_MAX_RECIPE_DEPTH,
            o->local_lanes, o->blocks_per_task, o->search_task_grain ? "true" : "false",
            options_mode_name(o->fuse), options_mode_name(o->pack),
            options_mode_name(o->split), o->split_chunks);
    strbuf_append(out, "  \"cost_policy\": ");
    json_string(out, p->policy);
    strbuf_printf(out, ",\n  \"custom_cost_policy\": %s,\n  \"coefficients\": {", p->custom_policy ? "true" : "false");
    const char *sep = "";
#define X(field) strbuf_printf(out, "%s\"" #field "\": %s", sep, plan_number(b, p->coefficients.field)), sep = ", ";
    PLAN_COEFFICIENTS(X)
#undef X
    strbuf_printf(out,
            "},\n  \"search\": {\"root_orders\": %llu, \"duplicate_orders\": %llu, \"tilings\": %llu, \"block_widths\": %llu, "
            "\"local_widths\": %llu, \"candidates\": %llu, \"admitted\": %zu, \"rejected\": %zu},\n  \"local_axis\": ",
            (unsigned long long)p->root_orders, (unsigned long long)p->duplicate_orders, (unsigned long long)p->tilings,
            (unsigned long long)p->block_widths,
            (unsigned long long)p->local_widths, (unsigned long long)p->candidate_count, p->candidates.len,
            p->rejected.len);
    if (p->local_axis) {
        strbuf_append(out, "{\"dim\": ");
        json_string(out, p->local_axis);
        strbuf_printf(out, ", \"extent\": %llu, \"slots\": %llu, \"contraction_axes\": ", (unsigned long long)p->local_extent,
                (unsigned long long)p->local_slots);
        if (p->local_contraction_axes) json_string(out, p->local_contraction_axes);
        else strbuf_append(out, "null");
        strbuf_append(out, ", \"passed_over\": ");
        if (p->local_passed_over) json_string(out, p->local_passed_over);
        else strbuf_append(out, "null");
        strbuf_printf(out, "%c", '}');
    } else {
        strbuf_append(out, "null");
    }
    strbuf_append(out, ",\n  \"packing\": ");
    if (p->ok) {
        strbuf_append(out, "{\"packs\": [");
        for (uint32_t i = 0; i < p->packing.count; i++) {
            const plan_pack *k = &p->packing.packs[i];
            strbuf_append(out, i ? ", {\"operand\": " : "{\"operand\": ");
            json_string(out, k->load->operands[0]->value->name);
            strbuf_printf(out, ", \"elem\": \"%s\", \"tiles\": %llu, \"tile_elements\": %llu, \"bytes\": %llu, \"reuse\": %llu}",
                    tir_scalar_name(k->elem), (unsigned long long)k->instances, (unsigned long long)k->tile_elements,
                    (unsigned long long)k->bytes, (unsigned long long)k->reuse);
        }
        strbuf_append(out, "], \"why\": ");
        json_string(out, p->packing.why);
        strbuf_printf(out, "%c", '}');
    } else {
        strbuf_append(out, "null");
    }
    strbuf_append(out, ",\n  \"split\": ");
    if (p->ok) {
        const plan_split *s = &p->split;
        strbuf_printf(out, "{\"split\": %s, \"trips\": %llu, \"chunks\": %u, \"chunk_trips\": %llu, \"tail_trips\": %llu, "
                     "\"workspace_bytes\": %llu, \"modeled_gain\": %.4g, \"why\": ",
                s->reduce ? "true" : "false", (unsigned long long)s->trips, s->chunks, (unsigned long long)s->chunk_trips,
                (unsigned long long)s->tail_trips, (unsigned long long)s->workspace_bytes, s->modeled_gain);
        json_string(out, s->why);
        strbuf_printf(out, "%c", '}');
    } else {
        strbuf_append(out, "null");
    }
    strbuf_append(out, ",\n  \"selected\": ");
    if (p->ok) json_choice(out, plan_selected(p), "  ");
    else strbuf_append(out, "null");
    if (explain) {
        strbuf_append(out, ",\n  \"accesses\": [");
        for (size_t i = 0; i < p->accesses.count; i++) json_access(out, &p->accesses.items[i], i);
        strbuf_append(out, "],\n  \"footprints\": [");
        for (size_t i = 0; i < p->footprints.count; i++) {
            const plan_footprint *v = &p->footprints.views[i];
            strbuf_printf(out, "%s{\"param\": %u, \"read_only\": %s, \"known\": %s, \"shared\": %s, \"bytes\": %llu, "
                         "\"depends\": [",
                    i ? ", " : "", v->param, v->read_only ? "true" : "false", v->known ? "true" : "false",
                    v->shared ? "true" : "false", (unsigned long long)v->bytes);
            for (uint32_t a = 0, n = 0; a < 64; a++)
                if (v->depends >> a & 1) strbuf_printf(out, "%s%u", n++ ? ", " : "", a);
            strbuf_printf(out, "], \"sharers\": %llu}", (unsigned long long)v->sharers);
        }
        strbuf_append(out, "],\n  \"ranking\": [");
        for (size_t i = 0; rank && i < p->candidates.len; i++) {
            strbuf_append(out, i ? ", " : "");
            json_choice(out, rank[i], "    ");
        }
        strbuf_append(out, "],\n  \"rejected\": [");
        for (size_t i = 0; i < p->rejected.len; i++) {
            strbuf_append(out, i ? ", " : "");
            json_rejection(out, &p->rejected.data[i]);
        }
        strbuf_printf(out, "%c", ']');
    }
    strbuf_append(out, "\n}\n");
}
