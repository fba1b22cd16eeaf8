/* report.c — a lowering's metadata as `//` comment lines, so the text that
 * precedes the XIR module still parses as XIR (`tilec lower`): the dispatch
 * size, block, packet widths, every argument's element type, bytes and use,
 * which streamed arguments must not overlap, and the realization string. */
#include "lower/lower.h"

#include "base/strbuf.h"

void lower_report_metadata(strbuf *out, const lower_result *r) {
    strbuf_printf(out, "// dispatch_size=%u block_size=%u packet_width=%u required_packet_width=%u\n", r->dispatch_size,
            r->block_size, r->packet_width, r->required_packet_width);
    for (size_t i = 0; i < r->arg_count; i++) {
        const lower_arg *a = &r->args[i];
        strbuf_printf(out, "// arg %zu %%%s: %s, at least %llu bytes, %s%s\n", i, a->name, tir_scalar_name(a->elem),
                (unsigned long long)a->min_bytes, a->usage & TIR_USE_READ ? "read" : "",
                a->usage == (TIR_USE_READ | TIR_USE_WRITE) ? "+write"
                : a->usage & TIR_USE_WRITE                     ? "write"
                : a->usage ? "" : "unused");
        for (size_t j = 0; j < r->arg_count && j < 64; j++)
            if ((a->disjoint | a->disjoint_or_equal) >> j & 1)
                strbuf_printf(out, "//   streamed: %%%s must not overlap %%%s%s (else the unfused kernel runs)\n", a->name,
                        r->args[j].name, a->disjoint_or_equal >> j & 1 ? " unless they start together" : "");
    }
    strbuf_printf(out, "// realization: %s\n", r->realization ? r->realization : "");
}
