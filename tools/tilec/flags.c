/* flags.c — see flags.h.  The table's flags become cli_option entries whose
 * id is CLI_FLAG_ID + the option's row; the command line's own flags follow
 * them.  Values are read by tilec_compile_options_set; this file only checks
 * what is the command line's own (--width's and --threads' ranges) and keeps
 * the usage lines the command line has always printed. */
#include "flags.h"

#include "base/host.h"

#include <stdlib.h>
#include <string.h>

/* The command line's own flags, after the table's rows. */
enum { OWN_WORKERS = 0, OWN_COST, OWN_PROFILE, OWN_HOST, OWN_PRINT_AFTER, OWN_STOP_AFTER, OWN_VERIFY_EACH, OWN_COUNT };
static const struct {
    const char *flag;
    unsigned groups;
    bool takes_value;
} OWN[OWN_COUNT] = {
    [OWN_WORKERS] = {"--workers", CLI_FLAGS_MODELED | CLI_FLAGS_NATIVE, true}, /* native commands refuse it */
    [OWN_COST] = {"--cost", CLI_FLAGS_MODELED | CLI_FLAGS_NATIVE, true},
    [OWN_PROFILE] = {"--profile", CLI_FLAGS_MODELED | CLI_FLAGS_NATIVE, true},
    [OWN_HOST] = {"--host", CLI_FLAGS_NATIVE, true},
    [OWN_PRINT_AFTER] = {"--print-after", CLI_FLAGS_STAGES, true},
    [OWN_STOP_AFTER] = {"--stop-after", CLI_FLAGS_STAGES, true},
    [OWN_VERIFY_EACH] = {"--verify-each", CLI_FLAGS_STAGES, false},
};

/* Table flags only native execution takes: a modeled target has no
 * threads, host stores or GPU architecture. */
static const char *const NATIVE_ONLY[] = {"--threads", "--no-full-packets", "--stores", "--sm", NULL};

/* The usage lines of flags whose wording predates the table (the rest say
 * "FLAG: 'VALUE' is not EXPECTS"). */
static const struct {
    const char *flag, *format;
} USAGE[] = {
    {"--block", "option value '%s' is not a non-negative 32-bit integer"},
    {"--partitions", "option value '%s' is not a non-negative 32-bit integer"},
    {"--max-unrolled", "option value '%s' is not a non-negative 32-bit integer"},
    {"--grain", "option value '%s' is not a non-negative integer in range"},
    {"--local-lanes", "option value '%s' is not a non-negative integer in range"},
    {"--max-candidates", "option value '%s' is not a non-negative integer in range"},
    {"--split-chunks", "option value '%s' is not a non-negative integer in range"},
    {"--workers", "option value '%s' is not a non-negative integer in range"},
    {"--order", "--order needs comma-separated axis numbers, not '%s'"},
    {"--tiles", "--tiles needs comma-separated factors, one per root axis, not '%s'"},
    {"--bucket-cuts", "--bucket-cuts needs comma-separated sizes, not '%s'"},
    {"--threads", "--threads needs a worker count 1..1024, not '%s'"},
};

static bool listed(const char *const *list, const char *flag) {
    for (; *list; list++)
        if (!strcmp(*list, flag)) return true;
    return false;
}

static bool usage(const char *command, const char *flag, const char *value, const char *expects) {
    for (size_t i = 0; i < sizeof USAGE / sizeof USAGE[0]; i++)
        if (!strcmp(USAGE[i].flag, flag)) {
            char line[512];
            snprintf(line, sizeof line, USAGE[i].format, value);
            cli_usage_error(command, "%s", line);
            return false;
        }
    cli_usage_error(command, "%s: '%s' is not %s", flag, value, expects);
    return false;
}

void cli_options_init(cli_options *c, tilec_context *ctx, unsigned groups) {
    memset(c, 0, sizeof *c);
    c->ctx = ctx;
    c->o = tilec_compile_options_default();
    c->workers = 8;
    c->stop_after = TILEC_STAGE_EMIT;
    size_t n = 0;
    const tilec_option_info *info;
    for (size_t i = 0; (info = tilec_compile_option_info(i)); i++) {
        if (i >= 64 || n + OWN_COUNT + 1 >= CLI_MAX_FLAGS) abort(); /* `given` and `flags` hold every row */
        if (!info->flag || (!(groups & CLI_FLAGS_NATIVE) && listed(NATIVE_ONLY, info->flag))) continue;
        c->flags[n++] = (cli_option){info->flag, info->flag_sets == NULL, CLI_FLAG_ID + (int)i};
    }
    for (size_t i = 0; i < OWN_COUNT; i++)
        if (OWN[i].groups & groups)
            c->flags[n++] = (cli_option){OWN[i].flag, OWN[i].takes_value, CLI_FLAG_ID + CLI_MAX_FLAGS + (int)i};
    c->flags[n] = (cli_option){NULL, false, 0};
}

/* Sets option `name` from text; a usage error for `flag` when it is not
 * one of its values. */
static bool set(cli_options *c, const char *command, const char *flag, const char *name, const char *value,
                const char *expects) {
    size_t diags = tilec_diag_count(c->ctx);
    if (value[0] && tilec_compile_options_set(c->ctx, &c->o, name, value) == TILEC_OK) return true;
    tilec_diag_truncate(c->ctx, diags);
    return usage(command, flag, value, expects);
}

/* "NAME=VALUE" for one coefficient; VALUE any strtod number (the planner
 * rejects negative and non-finite ones with a diagnostic). */
static bool take_cost(cli_options *c, const char *command, const char *text) {
    const char *name, *value;
    size_t len;
    if (!cli_split_assignment(text, &name, &len, &value))
        return cli_usage_error(command, "--cost needs NAME=VALUE, not '%s'", text), false;
    char option[64];
    snprintf(option, sizeof option, "cost.%.*s", (int)(len < 48 ? len : 48), name);
    const tilec_option_info *info = NULL;
    for (size_t i = 0; (info = tilec_compile_option_info(i)) && strcmp(info->name, option);) i++;
    if (!info || len >= 48) {
        cli_usage_error(command, "--cost: unknown coefficient '%.*s'", (int)len, name);
        return false;
    }
    size_t diags = tilec_diag_count(c->ctx);
    if (tilec_compile_options_set(c->ctx, &c->o, option, value) == TILEC_OK) return true;
    tilec_diag_truncate(c->ctx, diags);
    cli_usage_error(command, "--cost %.*s: '%s' is not a number", (int)len, name, value);
    return false;
}

/* --profile FILE: one NAME=VALUE coefficient per line; blank lines and
 * lines starting with '#' are skipped.  A usage error names the line. */
static bool take_profile(cli_options *c, const char *command, const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return cli_usage_error(command, "--profile: cannot read '%s'", path), false;
    char line[512];
    bool ok = true;
    for (unsigned n = 1; ok && fgets(line, sizeof line, f); n++) {
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0] || line[0] == '#') continue;
        if (!strchr(line, '=')) {
            cli_usage_error(command, "--profile %s:%u: expected NAME=VALUE, found '%s'", path, n, line);
            ok = false;
        } else {
            ok = take_cost(c, command, line);
        }
    }
    fclose(f);
    return ok;
}

/* STAGE[,STAGE...] into bits (1u << stage), or a usage error. */
static bool take_stages(cli_options *c, const char *command, const char *flag, const char *value, unsigned *bits) {
    char name[32];
    for (const char *s = value;; s++) {
        size_t len = strcspn(s, ",");
        tilec_stage stage;
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), s);
        size_t diags = tilec_diag_count(c->ctx);
        if (len >= sizeof name || tilec_stage_parse(c->ctx, name, &stage) != TILEC_OK) {
            tilec_diag_truncate(c->ctx, diags);
            return cli_usage_error(command, "%s: '%.*s' is not a stage (flatten, verify, plan, split, lower or emit)",
                                   flag, (int)len, s),
                   false;
        }
        *bits |= 1u << stage;
        if (!s[len]) return true;
        s += len;
    }
}

static bool take_own(cli_options *c, const char *command, int own, const char *value) {
    uint64_t v;
    char why[256];
    switch (own) {
    case OWN_WORKERS:
        c->workers_given = true;
        if (cli_parse_u64(value, &v) && v <= UINT32_MAX) return c->workers = (uint32_t)v, true;
        return usage(command, "--workers", value, NULL);
    case OWN_COST: return take_cost(c, command, value);
    case OWN_PROFILE: return take_profile(c, command, value);
    case OWN_HOST:
        if (!host_check(value, why, sizeof why)) return cli_usage_error(command, "--host: %s", why), false;
        c->host = value;
        return true;
    case OWN_PRINT_AFTER: return take_stages(c, command, "--print-after", value, &c->print_after);
    case OWN_STOP_AFTER: {
        unsigned bits = 0;
        if (strchr(value, ',')) return cli_usage_error(command, "--stop-after takes one stage, not '%s'", value), false;
        if (!take_stages(c, command, "--stop-after", value, &bits)) return false;
        c->stop_after = (tilec_stage)__builtin_ctz(bits);
        return true;
    }
    case OWN_VERIFY_EACH: c->verify_each = true; return true;
    default: return false;
    }
}

bool cli_options_take(cli_options *c, const char *command, int id, const char *value) {
    c->any_given = true;
    if (id >= CLI_FLAG_ID + CLI_MAX_FLAGS) return take_own(c, command, id - CLI_FLAG_ID - CLI_MAX_FLAGS, value);
    size_t row = (size_t)(id - CLI_FLAG_ID);
    const tilec_option_info *info = tilec_compile_option_info(row);
    c->given |= 1ull << row;
    if (info->flag_sets) value = info->flag_sets;
    uint64_t v;
    if (!strcmp(info->flag, "--width")) { /* one rule for every command: a width lowering realizes */
        uint32_t w;
        return cli_parse_width(command, value, &w) && set(c, command, info->flag, info->name, value, info->expects);
    }
    if (!strcmp(info->flag, "--threads") && (!cli_parse_u64(value, &v) || v == 0 || v > 1024))
        return usage(command, info->flag, value, info->expects);
    return set(c, command, info->flag, info->name, value, info->expects);
}

bool cli_options_given(const cli_options *c, const char *flag) {
    if (!strcmp(flag, "--workers")) return c->workers_given;
    if (!strcmp(flag, "--host")) return c->host != NULL; /* set once checked: a bad one ends the command */
    const tilec_option_info *info;
    for (size_t i = 0; (info = tilec_compile_option_info(i)); i++)
        if (info->flag && !strcmp(info->flag, flag)) return c->given >> i & 1;
    return false;
}

uint32_t cli_options_modeled_width(const cli_options *c) { return c->o.width ? c->o.width : 8; }

tilec_pipeline_config cli_options_pipeline(const cli_options *c, tilec_stage last, bool modeled) {
    tilec_pipeline_config p = tilec_pipeline_config_default();
    p.stop_after = c->stop_after < last ? c->stop_after : last;
    p.print_after = c->print_after;
    p.verify_after = c->verify_each ? (1u << TILEC_STAGE_COUNT) - 1 : 0;
    p.modeled = modeled;
    p.modeled_workers = c->workers;
    p.write = cli_write_stdout;
    return p;
}

tilec_compile_options cli_options_native(const cli_options *c) {
    /* every layer reads the one host description from TILEC_HOST; set only
     * here, once the command runs */
    if (c->host) setenv("TILEC_HOST", c->host, 1);
    return c->o;
}
