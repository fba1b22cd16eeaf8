/* permutation.c — see permutation.h. */
#include "base/permutation.h"

bool permutation_next(uint32_t *p, uint32_t n) {
    if (n < 2) return false;
    uint32_t i = n - 1;
    while (i > 0 && p[i - 1] >= p[i]) i--;
    if (i == 0) return false;
    uint32_t j = n - 1;
    while (p[j] <= p[i - 1]) j--;
    uint32_t t = p[i - 1];
    p[i - 1] = p[j];
    p[j] = t;
    for (uint32_t a = i, b = n - 1; a < b; a++, b--) t = p[a], p[a] = p[b], p[b] = t;
    return true;
}
