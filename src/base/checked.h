/* checked.h — overflow-checked integer arithmetic.  Each checked_* returns
 * false (and leaves *out unspecified) when the exact result does not fit;
 * each saturated_* returns the exact result clamped to its type's range
 * (sizes and work estimates that must not wrap). */
#ifndef TILEC_BASE_CHECKED_H
#define TILEC_BASE_CHECKED_H

#include <stdbool.h>
#include <stdint.h>

static inline bool checked_add_u64(uint64_t a, uint64_t b, uint64_t *out) { return !__builtin_add_overflow(a, b, out); }
static inline bool checked_mul_u64(uint64_t a, uint64_t b, uint64_t *out) { return !__builtin_mul_overflow(a, b, out); }
static inline bool checked_add_i64(int64_t a, int64_t b, int64_t *out) { return !__builtin_add_overflow(a, b, out); }
static inline bool checked_sub_i64(int64_t a, int64_t b, int64_t *out) { return !__builtin_sub_overflow(a, b, out); }
static inline bool checked_mul_i64(int64_t a, int64_t b, int64_t *out) { return !__builtin_mul_overflow(a, b, out); }

static inline uint64_t saturated_add_u64(uint64_t a, uint64_t b) {
    uint64_t r;
    return checked_add_u64(a, b, &r) ? r : UINT64_MAX;
}
static inline uint64_t saturated_mul_u64(uint64_t a, uint64_t b) {
    uint64_t r;
    return checked_mul_u64(a, b, &r) ? r : UINT64_MAX;
}
static inline int64_t saturated_add_i64(int64_t a, int64_t b) {
    int64_t r;
    return checked_add_i64(a, b, &r) ? r : b < 0 ? INT64_MIN : INT64_MAX;
}
static inline int64_t saturated_mul_i64(int64_t a, int64_t b) {
    int64_t r;
    return checked_mul_i64(a, b, &r) ? r : (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
}

#endif
