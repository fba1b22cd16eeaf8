/* fault.c — the diagnostic a fault site reports (fault.h). */
#include "base/fault.h"

#include <stdio.h>

tilec_status tir_fault_report(tilec_context *ctx, const tir_fault_site *s, int64_t value) {
    char target[160];
    if (s->target) snprintf(target, sizeof target, "%%%s", s->target);
    else snprintf(target, sizeof target, "value #%u", s->target_id);
    const char *access = s->store ? "store to" : "load from";
    switch (s->kind) {
    case TIR_FAULT_ASSUME:
        return tilec_error(ctx, TILEC_E_RUNTIME, "TIR-I07", s->loc,
                           "%s %s in '@%s' with bounds=assume is out of bounds: axis %u covers [%lld, %lld + %llu) "
                           "but the view's extent is %llu",
                           access, target, s->func, s->axis, (long long)value, (long long)value,
                           (unsigned long long)s->count, (unsigned long long)s->extent);
    case TIR_FAULT_SCALAR:
        return tilec_error(ctx, TILEC_E_RUNTIME, "TIR-I08", s->loc,
                           "scalar %s %s in '@%s': index %lld along axis %u is outside [0, %llu)", access, target,
                           s->func, (long long)value, s->axis, (unsigned long long)s->extent);
    default:
        return tilec_error(ctx, TILEC_E_RUNTIME, "TIR-I09", s->loc,
                           "extract from %s in '@%s': coordinate %lld along '%s' is outside [0, %llu)", target, s->func,
                           (long long)value, s->axis_label ? s->axis_label : "?", (unsigned long long)s->extent);
    }
}
