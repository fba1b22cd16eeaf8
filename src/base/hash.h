/* hash.h — 64-bit FNV-1a: the disk kernel cache's file names and
 * checksums, the CLI's buffer checksums and `tilec tune`'s cache keys.
 * Fast and stable across runs and hosts; not cryptographic. */
#ifndef TILEC_BASE_HASH_H
#define TILEC_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

/* h extended by n bytes of data. */
static inline uint64_t fnv64_more(uint64_t h, const void *data, size_t n) {
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* The hash of n bytes of data. */
static inline uint64_t fnv64(const void *data, size_t n) { return fnv64_more(0xcbf29ce484222325ull, data, n); }

#endif
