/* cache.c — `tilec cache stats|clear`: the disk kernel cache
 * (docs/simd.md "Kernel cache"): where it is, how many entries and bytes it
 * holds, and removing them. */
#include "cli.h"

#include "tilec/cache.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int cache_main(tilec_context *ctx, int argc, char **argv, bool parse_only) {
    (void)ctx;
    static const cli_option no_options[] = {{NULL, false, 0}};
    cli_scanner s = cli_scanner_start("cache", argc, argv);
    const char *action = NULL, *value;
    for (int id; (id = cli_scan(&s, no_options, &value)) != CLI_SCAN_END;) {
        if (id == CLI_SCAN_HELP) {
            cli_print_help(&cli_cache_command);
            return CLI_EXIT_OK;
        }
        if (id == CLI_SCAN_ERROR) return CLI_EXIT_USAGE;
        if (action) return cli_usage_error("cache", "unexpected argument '%s'", value);
        if (strcmp(value, "stats") && strcmp(value, "clear"))
            return cli_usage_error("cache", "expected stats or clear, not '%s'", value);
        action = value;
    }
    if (!action) return cli_usage_error("cache", "missing stats or clear");
    if (parse_only) return CLI_CONTINUE;
    char dir[TILEC_CACHE_DIR_MAX];
    switch (tilec_cache_dir(dir)) {
    case TILEC_CACHE_OFF:
        printf("kernel cache: no disk cache (TILEC_CACHE=%s, or none of TILEC_CACHE_DIR, XDG_CACHE_HOME, HOME set)\n",
               getenv("TILEC_CACHE") ? getenv("TILEC_CACHE") : "unset");
        return CLI_EXIT_OK;
    case TILEC_CACHE_REFUSED: /* SIMD-C01 says why; nothing in it is touched */
        return CLI_EXIT_FAIL;
    case TILEC_CACHE_USABLE:
        break;
    }
    if (!strcmp(action, "clear")) {
        uint64_t removed = tilec_cache_clear(dir);
        printf("kernel cache %s: removed %" PRIu64 " entries\n", dir, removed);
        return CLI_EXIT_OK;
    }
    uint64_t entries, bytes, mib;
    tilec_cache_stats(dir, &entries, &bytes);
    printf("kernel cache %s: %" PRIu64 " entries, %" PRIu64 " bytes (", dir, entries, bytes);
    if (tilec_cache_max_mb(&mib))
        printf("cap %" PRIu64 " MiB)\n", mib);
    else
        printf("no cap: TILEC_CACHE_MAX_MB is malformed)\n");
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
    "  clear   remove every entry (only files named and made as entries are)\n"
    "\n"
    "Environment: TILEC_CACHE=0 (no cache), TILEC_CACHE=memory (no disk cache),\n"
    "TILEC_CACHE_DIR (default $XDG_CACHE_HOME/tilec, else ~/.cache/tilec; made\n"
    "0700, and refused when not yours or writable by group or others: whoever\n"
    "can write it can run code in tilec), TILEC_CACHE_MAX_MB (default 512; the\n"
    "oldest entries go first; a malformed value trims nothing).\n"
    "\n"
    "Exit status: 0 ok, 1 the directory is refused (SIMD-C01), 2 usage error.\n",
    cache_main,
    NULL,
};
