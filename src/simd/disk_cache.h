/* disk_cache.h — compiled kernels on disk, shared by every process of the
 * same tilec build on this host (docs/simd.md "Kernel cache").  An entry is
 * one file, <dir>/<hash>.tko: its full key (so a hash collision or a stale
 * file is a miss, never wrong code), the backend's counters, the SLEEF
 * symbols the code calls, and the host object code with its checksum.
 * Files are written to a temporary name and renamed into place (atomic, so
 * concurrent processes are safe); a file that does not parse or check is
 * removed and the kernel rebuilt; the directory is kept under a size cap
 * (oldest entries go first).
 *
 * Trust: whoever can write the directory can run code in every process that
 * uses it (the checksum only catches accidents), so only a directory of the
 * user's own that no one else can write is used (SIMD-C01 otherwise), and
 * only files in it that are the user's own regular files, writable by no one
 * else, are read, trimmed or cleared: a symlink, a FIFO, a file of another
 * shape or name is neither read nor removed.  Warnings go to stderr, once
 * each per process, since the compile they concern succeeds (uncached). */
#ifndef TILEC_SIMD_DISK_CACHE_H
#define TILEC_SIMD_DISK_CACHE_H

#include "base/strbuf.h"
#include "simd/simd.h"

#include <limits.h>
#include <stdio.h>

typedef struct {
    simd_counters counters;
    simd_object code;
} disk_entry;

/* The largest entry the cache writes and reads: a file above it is not one
 * of ours, so it is rejected by its size, unread. */
#define DISK_CACHE_MAX_ENTRY_BYTES ((uint64_t)256 << 20)

typedef enum { DISK_DIR_USABLE, DISK_DIR_OFF, DISK_DIR_REFUSED } disk_dir_state;
/* The directory: $TILEC_CACHE_DIR, else $XDG_CACHE_HOME/tilec, else
 * $HOME/.cache/tilec, created (mode 0700) if missing.  DISK_DIR_OFF when
 * TILEC_CACHE is 0 or "memory" or no place is named; DISK_DIR_REFUSED, after
 * warning SIMD-C01, when it cannot be made, is not a directory, is not the
 * user's or is writable by group or others. */
disk_dir_state disk_cache_dir(char dir[PATH_MAX]);
/* The size cap in MiB: $TILEC_CACHE_MAX_MB (decimal digits), else 512.
 * False, after warning SIMD-C02, when the variable is malformed or its bytes
 * overflow: then nothing is trimmed (a typo must not empty the cache). */
bool disk_cache_max_mb(uint64_t *mib);
/* Another file of the directory (tune.tsv), opened as entries are: for
 * reading ("r") or appending ("a", created 0600).  NULL when it cannot be
 * opened or is not the user's own regular file that no one else can write:
 * never through a symlink, never waiting on a FIFO. */
FILE *disk_cache_open(const char *path, const char *mode);
/* This build of tilec, for keys: the GNU build ID of the binary holding this
 * code (any rebuild changes it); false when there is none (then nothing is
 * cached on disk). */
bool disk_cache_build_id(char *buf, size_t size);

typedef enum { DISK_ABSENT, DISK_LOADED, DISK_CORRUPT } disk_lookup;
/* Looks `key` up; DISK_CORRUPT when the user's own file was there but
 * larger than DISK_CACHE_MAX_ENTRY_BYTES, unreadable, truncated, for another
 * key or failing its checksum (it is removed); DISK_ABSENT also when the
 * file is not one the cache could have written (see "Trust"; it is kept).
 * `out->code.object` must be initialized. */
disk_lookup disk_cache_load(const char *dir, const strbuf *key, disk_entry *out);
/* Writes the entry (best effort: a failure, an entry above
 * DISK_CACHE_MAX_ENTRY_BYTES or a foreign file in its place only means no
 * entry), then trims the directory to disk_cache_max_mb. */
void disk_cache_store(const char *dir, const strbuf *key, const disk_entry *e);
/* The entries in `dir` (only files named and made as the cache makes them):
 * how many and their bytes; clear removes them (and the temporary files of
 * writes that never finished), returning how many entries it removed. */
void disk_cache_stats(const char *dir, uint64_t *entries, uint64_t *bytes);
uint64_t disk_cache_clear(const char *dir);

#endif
