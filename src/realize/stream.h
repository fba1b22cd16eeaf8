/* stream.h — streamed loads: when a bounded tile load may be read from its
 * view at each use instead of being snapshotted into private storage, and
 * what the dispatch must then check (docs/lowering.md "Streamed loads").
 *
 * The snapshot contract says a load sees memory as it was at the load.  A
 * re-read at a later use sees the same values unless a store between the
 * load and that use wrote them.  Instances of `parallel` never write what
 * another reads (docs/tir.md "Regions"), so only the program's own stores
 * matter.  A load L in block B is streamed when every store that may run
 * from L to the last op of B that reads it (the "interval") is harmless:
 *
 *   - a store to another parameter is harmless when the two parameters'
 *     bytes do not overlap at dispatch: a runtime guard;
 *   - the last reader may be a tile store that reads L element for element
 *     ("aligned": same dims and extents, the same origin values, views of the
 *     same shape) — each element is read before it is written and never read
 *     again, so it is harmless on the same parameter, and on another
 *     parameter also when the two start at the same address (in place);
 *   - any other store to L's own parameter refuses the stream.
 *
 * Readers are L's users and, through elementwise results (which may be
 * deferred recipes, evaluated at their own users), theirs. */
#ifndef TILEC_REALIZE_STREAM_H
#define TILEC_REALIZE_STREAM_H

#include "tir/ir.h"

#include <stdbool.h>
#include <stdint.h>

/* A guard on a pair of parameters (load's, store's). */
typedef enum {
    PLAN_GUARD_NONE = 0,
    PLAN_GUARD_DISJOINT_OR_EQUAL, /* stream when disjoint or starting at the same address */
    PLAN_GUARD_DISJOINT,          /* stream only when disjoint */
} plan_guard;

/* Whether the tile load `load` may be streamed; on true, raises the guards
 * it needs in `guards` ([params × params], row = the load's parameter). */
bool plan_stream_legal(const tir_op *load, uint8_t *guards, uint32_t params);

/* Whether two tile stores to one parameter write provably disjoint ranges:
 * on some axis both origins are integer constants at least the tile's
 * extent apart. */
bool plan_stores_disjoint(const tir_op *a, const tir_op *b);

#endif
