/* faults.c — a kernel's bounds-fault reporting: it keeps its own copy
 * of the lowering's fault-site table (the TileIR module may be gone by the
 * time it dispatches) and the runtime calls back here when a dispatch
 * recorded faults, so the diagnostic is the reference interpreter's
 * (base/fault.h). */
#include "driver/kernel.h"

#include "base/invariant.h"

#include <string.h>

static size_t string_bytes(const char *s) { return s ? strlen(s) + 1 : 0; }

/* Copies s into the block at *at (advancing it); NULL stays NULL. */
static const char *copy_string(char **at, const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    memcpy(*at, s, n);
    const char *copy = *at;
    *at += n;
    return copy;
}

static tilec_status report(const void *user, tilec_context *ctx, const fault_record *faults) {
    const tilec_kernel *k = user;
    if (!TILEC_INVARIANT(ctx, faults->site < k->fault_site_count)) return TILEC_E_INTERNAL;
    return tir_fault_report(ctx, &k->fault_sites[faults->site], faults->value);
}

bool tilec_kernel_take_fault_sites(tilec_kernel *k, const lower_result *lr) {
    k->prog.desc.report_fault = report;
    k->prog.desc.fault_user = k;
    size_t n = lr->fault_site_count, bytes = n * sizeof *k->fault_sites;
    if (!n) return true;
    for (size_t i = 0; i < n; i++) {
        const tir_fault_site *s = &lr->fault_sites[i];
        bytes += string_bytes(s->target) + string_bytes(s->func) + string_bytes(s->axis_label) + string_bytes(s->loc.file);
    }
    k->fault_sites = tilec_alloc(k->ctx, bytes);
    if (!k->fault_sites) return false;
    char *strings = (char *)(k->fault_sites + n);
    for (size_t i = 0; i < n; i++) {
        tir_fault_site s = lr->fault_sites[i];
        s.target = copy_string(&strings, s.target);
        s.func = copy_string(&strings, s.func);
        s.axis_label = copy_string(&strings, s.axis_label);
        s.loc.file = copy_string(&strings, s.loc.file);
        k->fault_sites[i] = s;
    }
    k->fault_site_count = n;
    return true;
}
