/* split.h — whether a mergeable reduce is split across programs, and into
 * how many chunks (docs/lowering.md "Split reductions").  The split's
 * record (plan_split) and the partial and combine kernels it makes are
 * rewrite/split.h's. */
#ifndef TILEC_PLAN_SPLIT_H
#define TILEC_PLAN_SPLIT_H

#include "realize/admit.h"
#include "rewrite/split.h"

#include "tilec/tilec.h"

/* Decides the split of the verified kernel f for `workers` workers:
 * `chunks` 0 lets the model choose (auto splits when it models at least a
 * 1.25× shorter makespan; on takes the best S ≥ 2), else exactly that many
 * (which must be in 2..n: bad_chunks says it is not).  Returns whether f is
 * split; `why` says why or why not.  Pure: no diagnostics. */
bool plan_split_decide(const tir_func *f, tilec_split mode, uint32_t chunks, uint32_t workers, plan_split *out);
/* The modeled gain (unsplit makespan over split) of `chunks` chunks of a
 * reduce of `trips` trips in each of `programs` programs on `workers`
 * workers, the trips past the chunks' spread over them (an unordered_tree
 * reduce) or the combine's tail; chunks past the trips are empty (a
 * runtime size's split at a small size). */
double plan_split_gain(uint64_t programs, uint64_t trips, uint32_t chunks, uint32_t workers, bool spread);

#endif
