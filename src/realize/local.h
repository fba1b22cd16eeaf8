/* local.h — admission of a kernel to the packet-local realization
 * (local_lanes = W: packet-local distribution preserves the split
 * coordinate), shared by the planner and the lowerer.
 *
 * One root program runs on a whole packet of W lanes: physical worker j runs
 * program u = j / W on lane j % W, so dispatch = programs × W.  The program's
 * distributed axis D is the innermost nonunit axis of the first store that
 * has one (the output's contiguous axis; without such a store, none: every
 * value replicated); when that choice is refused, the next store's, then
 * each tile load's in program order, and the first that admits is D (the
 * first choice's refusal is the one reported); every nonunit axis on D's
 * dim has one extent N >= 1.  D is
 * split over the lanes: element e of D lives on lane e % W in slot q = e / W,
 * so a lane holds S = ceil(N/W) slots and only the last slot can be partly
 * invalid (e >= N).  Every other axis is held whole by every lane; a value
 * without D is replicated (the same on every lane).  The root coordinates
 * are the same on every lane.  A kernel without a nonunit axis (N = 1) has
 * no D: every lane evaluates the whole program and only lane 0 stores.
 *
 * Admitted ops (the realization is sufficient for exactly these):
 *   constants, elementwise ops, extracts whose index on D is the coordinate of
 *   the enclosing map/reduce over D (the split coordinate: it reads slot q),
 *   loads and stores, maps, closed unordered reductions, ordered loops and
 *   reductions whose domain has no D (every lane walks them in step), ordered
 *   folds of one update over D (each element read from its lane in order,
 *   at most PLAN_LOCAL_MAX_ORDERED_STEPS), and mma
 *   (each lane folds its own output slots; a contraction over D folds the
 *   lane's slots and combines the lanes, or, for an ordered mma, reads each
 *   contracted element from its lane in order); nothing of a region or mma
 *   inside a region over D.
 * Everything else keeps the whole-program realization (local_lanes = 1) and
 * is refused with a named reason: D's dim with a second extent, an empty
 * axis, an ordered loop over D, an ordered mma contracting D over more than
 * PLAN_LOCAL_MAX_ORDERED_STEPS elements, shifted extracts,
 * nested regions over D, a root domain on D, a dispatch (programs × W)
 * beyond uint32, or a reduction over D and another nonunit axis (its
 * partitions cover D's slots only). */
#ifndef TILEC_REALIZE_LOCAL_H
#define TILEC_REALIZE_LOCAL_H

#include "realize/admit.h"

/* X(enum suffix, diagnostic code, short reason) */
#define PLAN_LOCAL_REFUSALS(X) \
    X(AXES, "LOWER-L01", "two extents of the distributed axis") \
    X(EMPTY, "LOWER-L02", "empty distributed axis") \
    X(ORDERED, "LOWER-L03", "ordered loop or reduction") \
    X(MMA, "LOWER-L04", "long ordered mma over the distributed axis") \
    X(EXTRACT, "LOWER-L05", "extract off the split coordinate") \
    X(NESTED, "LOWER-L06", "region inside a region over the distributed axis") \
    X(ROOT, "LOWER-L07", "root domain on the distributed axis") \
    X(DISPATCH, "LOWER-L08", "dispatch exceeds uint32") \
    X(REDUCE_AXES, "LOWER-L09", "reduction over the distributed axis and another axis") \
    X(TWO_DIMS, "LOWER-L10", "two distributed axes in one value")

typedef enum {
    PLAN_LOCAL_ADMITTED = 0,
#define X(e, code, reason) PLAN_LOCAL_REFUSE_##e,
    PLAN_LOCAL_REFUSALS(X)
#undef X
    PLAN_LOCAL_REFUSAL_COUNT
} plan_local_refusal;

const char *plan_local_refusal_code(plan_local_refusal r);

enum { PLAN_LOCAL_MAX_DIMS = 4 };

/* An ordered mma or fold over D reads each element from its lane, one
 * unrolled step each: at most this many steps. */
enum { PLAN_LOCAL_MAX_ORDERED_STEPS = 4096 };

/* One distributed dim: its nonunit axes (all of extent N) are split over
 * the lanes. */
typedef struct {
    const tir_dim *dim;
    uint64_t extent;     /* N >= 2 */
    uint64_t slots;      /* S = ceil(N / W) */
    uint64_t full_slots; /* floor(N / W): slots valid on every lane */
} plan_local_dim;

typedef struct {
    plan_local_refusal refusal; /* PLAN_LOCAL_ADMITTED when admitted */
    char why[256];              /* refusal: "<reason>: <the op or axis>" */
    char passed_over[320];      /* admitted after refusing the first choice of D: "'m': <why>"; else "" */
    uint32_t lanes;             /* W */
    uint32_t dim_count;         /* 0: no nonunit axis (replicated) */
    plan_local_dim dims[PLAN_LOCAL_MAX_DIMS]; /* dims[0] is D */
} plan_local;

/* Decides admission of the admitted kernel f (its plan_admit result) for W
 * lanes; returns whether it is admitted (out->why says why not).  Pure: no
 * diagnostic, so the planner can record the reason as a rejection. */
bool plan_local_admit(const tir_func *f, const plan_admission *admission, uint32_t lanes, plan_local *out);

/* Whether a runtime traversal over the space is peeled: its one slot-space
 * nonunit axis is distributed with a partly valid last slot (N mod W != 0),
 * so the loop covers the full slots and the last one is visited once more
 * after it (a body it emits is emitted twice).  The lowerer's traversal and
 * the representation plan's emission counts both ask this. */
bool plan_local_peels(const plan_local *local, const tir_space *s);
/* Whether the root is peeled: packet-local (its coordinates are the same on
 * every lane, so a branch on them is uniform) with an axis of ceil_div(A, k)
 * programs over runtime sizes.  Its body is emitted twice (lower.c): for the
 * programs whose blocks lie wholly inside A on every such axis, with their
 * coordinates bounded by floor(A/k) - 1, and for the rest, guarded. */
bool plan_local_peels_root(const plan_local *local, const tir_func *f, const tir_space *root);
/* The distributed dim of the axis: a nonunit axis on a distributed dim (a
 * unit axis of that dim is not; NULL local: none), else NULL. */
const plan_local_dim *plan_local_dim_of(const plan_local *local, const tir_axis *axis);
/* Whether the axis is distributed (plan_local_dim_of is not NULL). */
bool plan_local_is_axis(const plan_local *local, const tir_axis *axis);

/* Whether tile axis `axis` of a load of bytes (u8/i8) is an int8 dot
 * product's word: the view's own axis of 4 elements (the layout declares
 * its words, as models/llama/gemv_q8q.tir does), whole in the tile, and
 * contracted by an mma on the loaded tile.  D is then the next axis out
 * (plan_local_admit), so that each lane reads one word, and plan/pack.h may
 * read the words in place. */
bool plan_local_dot_word_axis(const tir_op *load, uint32_t axis);
/* The slot-space extent of an axis: S for a distributed one, else the extent.  NULL local:
 * the whole-program realization (the extent itself). */
uint64_t plan_local_extent(const plan_local *local, const tir_axis *axis);
/* The slot-space volume of a space (admitted: fits). */
uint64_t plan_local_volume(const plan_local *local, const tir_space *s);
/* The butterfly steps of a reduction over the distributed dim d: log2 W,
 * or when no slot is full (N < W) only the steps whose partner lanes 0 ^ k
 * can hold an element (k < N): lane 0's root, which is broadcast, is then
 * complete. */
uint32_t plan_local_butterfly_steps(const plan_local *local, const plan_local_dim *d);
/* Operations of that butterfly, as lw_packet_combine emits them: per step
 * a partner lane, its read and the combine (3); when no slot is full the
 * lanes' validity travels too (a second read, two selects and an or: 7). */
uint32_t plan_local_butterfly_ops(const plan_local *local, const plan_local_dim *d);
/* Whether the space has a distributed axis. */
bool plan_local_has_axis(const plan_local *local, const tir_space *s);
/* The space's distributed dim (admitted: at most one), else NULL. */
const plan_local_dim *plan_local_dim_in(const plan_local *local, const tir_space *s);

#endif
