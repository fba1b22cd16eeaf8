/* kernel_cache.c — the disk kernel cache as the public API shows it
 * (tilec/cache.h: tilec_cache_dir, _stats, _clear, _max_mb, _open,
 * _build_id): the SIMD backend's disk cache (simd/disk_cache.h) under
 * public names. */
#include "tilec/cache.h"

#include "simd/disk_cache.h"

#include <string.h>

_Static_assert(PATH_MAX <= TILEC_CACHE_DIR_MAX, "a cache directory fits TILEC_CACHE_DIR_MAX");
_Static_assert((int)TILEC_CACHE_USABLE == (int)DISK_DIR_USABLE && (int)TILEC_CACHE_OFF == (int)DISK_DIR_OFF &&
                   (int)TILEC_CACHE_REFUSED == (int)DISK_DIR_REFUSED,
               "the public states are the disk cache's");

tilec_cache_state tilec_cache_dir(char dir[TILEC_CACHE_DIR_MAX]) { return (tilec_cache_state)disk_cache_dir(dir); }

void tilec_cache_stats(const char *dir, uint64_t *entries, uint64_t *bytes) { disk_cache_stats(dir, entries, bytes); }

uint64_t tilec_cache_clear(const char *dir) { return disk_cache_clear(dir); }

bool tilec_cache_max_mb(uint64_t *mib) { return disk_cache_max_mb(mib); }

FILE *tilec_cache_open(const char *path, const char *mode) { return disk_cache_open(path, mode); }

bool tilec_cache_build_id(char *buf, size_t size) {
    char id[256]; /* room for any ID a linker writes */
    if (!disk_cache_build_id(id, sizeof id) || strlen(id) >= size) return false;
    memcpy(buf, id, strlen(id) + 1);
    return true;
}
