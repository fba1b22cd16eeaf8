/* lowering.h — the command-line face of the TileIR → XIR lowering, shared by
 * `tilec lower`, `tilec run --xir` and `tilec plan`: the fixed-plan options
 * (--block, --width, --order, --tiles, --partitions, --max-unrolled,
 * --check-bounds, --separate-mma), which
 * constrain the planner (planning.h), planning then lowering, and a printer for the
 * lowering's metadata. */
#ifndef TILEC_CLI_LOWERING_H
#define TILEC_CLI_LOWERING_H

#include "cli.h"
#include "lower/lower.h"
#include "planning.h"

enum { CLI_LOWER_MAX_AXES = 64 };

typedef struct {
    lower_options options;
    uint32_t order[CLI_LOWER_MAX_AXES];
    uint32_t tiles[CLI_LOWER_MAX_AXES];
    cli_planning planning;
} cli_lowering;

/* Option ids for cli_option tables; they start at 100 so commands can add theirs. */
enum {
    OPT_LOWER_BLOCK = 100,
    OPT_LOWER_WIDTH,
    OPT_LOWER_ORDER,
    OPT_LOWER_TILES,
    OPT_LOWER_PARTITIONS,
    OPT_LOWER_MAX_UNROLLED,
    OPT_LOWER_CHECK_BOUNDS,
    OPT_LOWER_SEPARATE_MMA
};
#define CLI_LOWERING_OPTIONS \
    {"--block", true, OPT_LOWER_BLOCK}, {"--width", true, OPT_LOWER_WIDTH}, {"--order", true, OPT_LOWER_ORDER}, \
        {"--tiles", true, OPT_LOWER_TILES}, \
        {"--partitions", true, OPT_LOWER_PARTITIONS}, {"--max-unrolled", true, OPT_LOWER_MAX_UNROLLED}, \
        {"--check-bounds", false, OPT_LOWER_CHECK_BOUNDS}, {"--separate-mma", false, OPT_LOWER_SEPARATE_MMA}, \
        CLI_PLANNING_OPTIONS
#define CLI_LOWERING_HELP \
    "  --block B         logical workers per runtime block (default 0: planned)\n" \
    "  --width W         packet width: 1, 2, 4, 8 or 16 (default 8)\n" \
    "  --order I,J,...   exact root axis order, outer to inner (default: planned)\n" \
    "  --tiles A,B,...   root axis tiles, one factor per root axis as written, each\n" \
    "                    dividing its extent: visit A x B x ... blocks (default: none)\n" \
    "  --partitions P    partial accumulators of closed reductions, 1..16 (default 4)\n" \
    "  --max-unrolled N  largest tile kept as unrolled SSA values (default 64)\n" \
    "  --check-bounds    check every scalar access, extract and bounds=assume subtile at\n" \
    "                    run time, also those proven in range (default: unproven ones)\n" \
    "  --separate-mma    round each float mma step's product and sum separately\n" \
    "                    instead of once (one fma per step, the default)\n" CLI_PLANNING_HELP

void cli_lowering_init(cli_lowering *l);
/* Handles one lowering option (id from CLI_LOWERING_OPTIONS); prints a usage
 * error for `command` and returns false when the value is malformed. */
bool cli_lowering_option(cli_lowering *l, const char *command, int id, const char *value);
/* The kernel the native pipeline plans for f: f with its nested root
 * parallels flattened (plan/flatten.h) into *flat (destroy it after use),
 * or f itself (*flat NULL) when there are none to flatten or no memory. */
const tir_func *cli_flatten(tilec_context *ctx, const tir_func *f, tir_module **flat);
/* Plans f (the options above are constraints) and lowers the selected plan;
 * on failure prints the diagnostics and returns false.  `packing` (NULL: not
 * wanted) receives the plan's packing decision (out->packed: its packs). */
bool cli_lower(tilec_context *ctx, const cli_lowering *l, const tir_func *f, lower_result *out, plan_packing *packing);
/* Writes the metadata as `//` comment lines (valid XIR text). */
void cli_print_lowering_metadata(FILE *out, const lower_result *r);

#endif
