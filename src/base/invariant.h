/* invariant.h — internal invariants, which like every error are values (a
 * diagnostic and a status), never a crash of the host process.  A violated
 * invariant is a bug in tilec, never bad input (bad input gets its
 * own diagnostic).  The condition is evaluated in every build:
 *   - debug builds (no NDEBUG: CMAKE_BUILD_TYPE=Debug, `make test-asan`,
 *     `make fuzz`) print it and abort, like assert(), so a fuzzer or a
 *     debugger stops right there;
 *   - release builds (NDEBUG: Release, RelWithDebInfo) append one diagnostic
 *     TILEC-I01 with status TILEC_E_INTERNAL naming the condition and its
 *     source line, and the macro evaluates to false; the caller returns an
 *     error (TILEC_E_INTERNAL) and the host process goes on.
 *
 *   if (!TILEC_INVARIANT(ctx, n <= capacity)) return TILEC_E_INTERNAL;
 *
 * `ctx` may be NULL (the diagnostic is then dropped, the result still false). */
#ifndef TILEC_BASE_INVARIANT_H
#define TILEC_BASE_INVARIANT_H

#include "base/context.h"
#include <stdbool.h>

#define TILEC_INVARIANT(ctx, cond) \
    ((cond) ? true : tilec_invariant_failed((ctx), #cond, __FILE__, __LINE__))

/* A point that must not be reached (the default of an exhaustive switch):
 * TILEC_INVARIANT with a condition that is false, described by `what`. */
#define TILEC_UNREACHABLE(ctx, what) tilec_invariant_failed((ctx), (what), __FILE__, __LINE__)

/* Reports (release) or aborts (debug); returns false. */
bool tilec_invariant_failed(tilec_context *ctx, const char *what, const char *file, int line);

#endif
