/* disk_cache.h — compiled kernels on disk, shared by every process of the
 * same tilec build on this host (docs/simd.md "Kernel cache").  An entry is
 * one file, <dir>/<hash>.tko: its full key (so a hash collision or a stale
 * file is a miss, never wrong code), the backend's counters, the SLEEF
 * symbols the code calls, and the host object code with its checksum.
 * Files are written to a temporary name and renamed into place (atomic, so
 * concurrent processes are safe); a file that does not parse or check is
 * removed and the kernel rebuilt; the directory is kept under a size cap
 * (oldest entries go first). */
#ifndef TILEC_SIMD_DISK_CACHE_H
#define TILEC_SIMD_DISK_CACHE_H

#include "base/strbuf.h"
#include "simd/simd.h"

#include <limits.h>

typedef struct {
    simd_counters counters;
    simd_object code;
} disk_entry;

/* The directory: $TILEC_CACHE_DIR, else $XDG_CACHE_HOME/tilec, else
 * $HOME/.cache/tilec, created if missing.  False (no disk cache) when
 * TILEC_CACHE is 0 or "memory", or no directory can be made. */
bool disk_cache_dir(char dir[PATH_MAX]);
/* This build of tilec, for keys: the GNU build ID of the binary holding this
 * code (any rebuild changes it); false when there is none (then nothing is
 * cached on disk). */
bool disk_cache_build_id(char *buf, size_t size);

typedef enum { DISK_ABSENT, DISK_LOADED, DISK_CORRUPT } disk_lookup;
/* Looks `key` up; DISK_CORRUPT when a file was there but unreadable,
 * truncated, for another key or failing its checksum (it is removed).
 * `out->code.object` must be initialized. */
disk_lookup disk_cache_load(const char *dir, const strbuf *key, disk_entry *out);
/* Writes the entry (best effort: a failure only means no entry), then
 * trims the directory to $TILEC_CACHE_MAX_MB (default 512) MiB. */
void disk_cache_store(const char *dir, const strbuf *key, const disk_entry *e);
/* The entries in `dir`: how many and their bytes; clear removes them (and
 * the temporary files of writes that never finished), returning how many
 * entries it removed. */
void disk_cache_stats(const char *dir, uint64_t *entries, uint64_t *bytes);
uint64_t disk_cache_clear(const char *dir);

#endif
