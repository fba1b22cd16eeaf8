/* cache.h — the disk kernel cache (docs/facade.md "The host and the kernel
 * cache", docs/simd.md "Kernel cache"): compiled kernels kept on disk,
 * shared by every process of the same tilec build on this host, one file
 * per kernel in a directory of the user's own that no one else can write.
 * tilec_compile uses it by itself; these calls say where it is and what it
 * holds, empty it, and open another file of the directory the way entries
 * are opened (a tool's own records, such as `tilec tune`'s tune.tsv).
 *
 * Environment: TILEC_CACHE=0 (no cache) or memory (no disk cache),
 * TILEC_CACHE_DIR (default $XDG_CACHE_HOME/tilec, else ~/.cache/tilec),
 * TILEC_CACHE_MAX_MB (the size cap, default 512), read at each call. */
#ifndef TILEC_CACHE_H
#define TILEC_CACHE_H

#include "tilec/api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The bytes a directory name needs at most, its NUL included. */
#define TILEC_CACHE_DIR_MAX 4096

typedef enum {
    TILEC_CACHE_USABLE = 0, /* dir names the directory, made (mode 0700) if missing */
    TILEC_CACHE_OFF,        /* TILEC_CACHE is 0 or memory, or no place is named (no TILEC_CACHE_DIR,
                               XDG_CACHE_HOME or HOME) */
    TILEC_CACHE_REFUSED     /* it cannot be made, is not a directory, is not the user's or is writable by
                               group or others: warning SIMD-C01 on stderr (once per process) */
} tilec_cache_state;

/* The directory of the disk cache, NUL-terminated in dir (when usable). */
TILEC_API tilec_cache_state tilec_cache_dir(char dir[TILEC_CACHE_DIR_MAX]);
/* The entries in `dir` (only files named and made as the cache makes them:
 * <16 hex digits>.tko, the user's own regular files no one else can write):
 * how many, and their bytes. */
TILEC_API void tilec_cache_stats(const char *dir, uint64_t *entries, uint64_t *bytes);
/* Removes those entries from `dir` (and the temporary files of writes that
 * never finished; nothing else); returns how many entries it removed. */
TILEC_API uint64_t tilec_cache_clear(const char *dir);
/* The size cap in MiB the cache trims its directory to after each store,
 * oldest entries first: TILEC_CACHE_MAX_MB (decimal digits), else 512.
 * False, after warning SIMD-C02 on stderr, when the variable is malformed
 * or its bytes overflow 64 bits: then nothing is trimmed. */
TILEC_API bool tilec_cache_max_mb(uint64_t *mib);
/* Another file of the directory, opened as entries are: for reading ("r")
 * or appending ("a", created mode 0600).  NULL when it cannot be opened or
 * is not the user's own regular file that no one else can write: never
 * through a symlink, never waiting on a FIFO. */
TILEC_API FILE *tilec_cache_open(const char *path, const char *mode);
/* This build of tilec, as the cache keys entries with it: the GNU build ID
 * of the binary holding the library (any rebuild changes it) in lower-case
 * hex digits, NUL-terminated in buf[0..size) (41 bytes hold a 20-byte
 * SHA-1 ID); false when there is none (then nothing is cached on disk) or
 * it does not fit. */
TILEC_API bool tilec_cache_build_id(char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
