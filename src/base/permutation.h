/* permutation.h — stepping through the permutations of 0..n-1 in
 * lexicographic order (the planner's root orders, `tilec tune`'s
 * mappings). */
#ifndef TILEC_BASE_PERMUTATION_H
#define TILEC_BASE_PERMUTATION_H

#include <stdbool.h>
#include <stdint.h>

/* The permutation after `p` (of 0..n-1) in lexicographic order, in place;
 * false after the last (p then unchanged). */
bool permutation_next(uint32_t *p, uint32_t n);

#endif
