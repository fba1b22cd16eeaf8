/* invariant.c — the one place that decides what a violated internal invariant
 * does (invariant.h): abort in debug builds, a TILEC-I01 diagnostic in release
 * builds.  Release builds compile no abort path here. */
#include "base/invariant.h"

#ifndef NDEBUG
#include <stdio.h>
#include <stdlib.h>
#endif

bool tilec_invariant_failed(tilec_context *ctx, const char *what, const char *file, int line) {
#ifndef NDEBUG
    (void)ctx;
    fprintf(stderr, "%s:%d: tilec internal invariant failed: %s\n", file, line, what);
    fflush(stderr);
    abort();
#else
    tilec_error(ctx, TILEC_E_INTERNAL, "TILEC-I01", tilec_no_loc(),
                "internal error: invariant '%s' failed at %s:%d (a bug in tilec; please report it)", what, file, line);
    return false;
#endif
}
