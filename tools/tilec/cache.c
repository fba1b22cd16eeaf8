/* cache.c — `tilec cache stats|clear`: the disk kernel cache
 * (docs/simd.md "Kernel cache"): where it is, how many entries and bytes it
 * holds, and removing them. */
#include "cli.h"

#include "simd/disk_cache.h"

#include <stdlib.h>
#include <string.h>

static int cache_main(tilec_context *ctx, int argc, char **argv, bool parse_only) {
    (void)ctx;
    if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        fputs(cli_cache_command.help, stdout);
        return CLI_EXIT_OK;
    }
    if (argc != 2 || (strcmp(argv[1], "stats") && strcmp(argv[1], "clear")))
        return cli_usage_error("cache", argc < 2 ? "missing stats or clear" : "expected stats or clear, not '%s'",
                               argc < 2 ? "" : argv[1]);
    if (parse_only) return CLI_CONTINUE;
    char dir[PATH_MAX];
    if (!disk_cache_dir(dir)) {
        printf("kernel cache: no disk cache (TILEC_CACHE=%s, or no usable directory)\n",
               getenv("TILEC_CACHE") ? getenv("TILEC_CACHE") : "unset");
        return CLI_EXIT_OK;
    }
    uint64_t entries, bytes;
    if (!strcmp(argv[1], "clear")) {
        uint64_t removed = disk_cache_clear(dir);
        printf("kernel cache %s: removed %llu entries\n", dir, (unsigned long long)removed);
        return CLI_EXIT_OK;
    }
    disk_cache_stats(dir, &entries, &bytes);
    const char *cap = getenv("TILEC_CACHE_MAX_MB");
    printf("kernel cache %s: %llu entries, %llu bytes (cap %s MiB)\n", dir, (unsigned long long)entries,
           (unsigned long long)bytes, cap && *cap ? cap : "512");
    return CLI_EXIT_OK;
}

const cli_command cli_cache_command = {
    "cache",
    "show or clear the disk kernel cache",
    "usage: tilec cache stats|clear\n"
    "\n"
    "Compiled kernels are cached in memory per context and on disk, shared by\n"
    "the processes of the same tilec build (docs/simd.md \"Kernel cache\").\n"
    "  stats   the directory, its entries and their bytes\n"
    "  clear   remove every entry\n"
    "\n"
    "Environment: TILEC_CACHE=0 (no cache), TILEC_CACHE=memory (no disk cache),\n"
    "TILEC_CACHE_DIR (default $XDG_CACHE_HOME/tilec, else ~/.cache/tilec),\n"
    "TILEC_CACHE_MAX_MB (default 512; the oldest entries go first).\n",
    cache_main,
};
