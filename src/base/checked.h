/* checked.h — overflow-checked integer arithmetic.  Each returns false (and leaves
 * *out unspecified) when the exact result does not fit. */
#ifndef TILEC_BASE_CHECKED_H
#define TILEC_BASE_CHECKED_H

#include <stdbool.h>
#include <stdint.h>

static inline bool checked_add_u64(uint64_t a, uint64_t b, uint64_t *out) { return !__builtin_add_overflow(a, b, out); }
static inline bool checked_mul_u64(uint64_t a, uint64_t b, uint64_t *out) { return !__builtin_mul_overflow(a, b, out); }
static inline bool checked_add_i64(int64_t a, int64_t b, int64_t *out) { return !__builtin_add_overflow(a, b, out); }
static inline bool checked_sub_i64(int64_t a, int64_t b, int64_t *out) { return !__builtin_sub_overflow(a, b, out); }
static inline bool checked_mul_i64(int64_t a, int64_t b, int64_t *out) { return !__builtin_mul_overflow(a, b, out); }

#endif
