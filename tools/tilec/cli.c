/* cli.c — option scanning, error messages, -D defines and module loading shared
 * by the subcommands (see cli.h). */
#include "cli.h"

#include "base/file.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

cli_scanner cli_scanner_start(const char *command, int argc, char **argv) {
    cli_scanner s = {command, argc, argv, 1, false, NULL};
    return s;
}

/* The id of the option in `options` that `arg` names (its value in *value),
 * 0 when none does, or CLI_SCAN_ERROR after printing a usage error. */
static int match_option(cli_scanner *s, const cli_option *options, const char *arg, const char **value) {
    for (const cli_option *o = options; o->name; o++) {
        size_t n = strlen(o->name);
        if (strncmp(arg, o->name, n)) continue;
        const char *rest = arg + n;
        bool short_option = n == 2;
        if (*rest == 0) {
            if (!o->takes_value) return o->id;
            if (s->next >= s->argc) {
                cli_usage_error(s->command, "option '%s' needs a value", o->name);
                return CLI_SCAN_ERROR;
            }
            *value = s->argv[s->next++];
            return o->id;
        }
        if (short_option && o->takes_value) {
            *value = rest; /* -DN=4 */
            return o->id;
        }
        if (*rest == '=' && !short_option) {
            if (!o->takes_value) {
                cli_usage_error(s->command, "option '%s' takes no value", o->name);
                return CLI_SCAN_ERROR;
            }
            *value = rest + 1;
            return o->id;
        }
    }
    return 0;
}

int cli_scan(cli_scanner *s, const cli_option *options, const char **value) {
    *value = NULL;
    if (s->next >= s->argc) return CLI_SCAN_END;
    const char *arg = s->argv[s->next++];
    if (!s->options_done && !strcmp(arg, "--")) {
        s->options_done = true;
        return cli_scan(s, options, value);
    }
    if (s->options_done || arg[0] != '-' || arg[1] == 0) {
        *value = arg;
        return CLI_SCAN_POSITIONAL;
    }
    if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) return CLI_SCAN_HELP;
    int id = match_option(s, options, arg, value);
    if (!id && s->more) id = match_option(s, s->more, arg, value);
    if (id) return id;
    cli_usage_error(s->command, "unknown option '%s'", arg);
    return CLI_SCAN_ERROR;
}

static void vprint_error(const char *command, const char *fmt, va_list ap) {
    fprintf(stderr, "tilec%s%s: error: ", command ? " " : "", command ? command : "");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int cli_usage_error(const char *command, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vprint_error(command, fmt, ap);
    va_end(ap);
    fprintf(stderr, "Try 'tilec %s%s--help'.\n", command ? command : "", command ? " " : "");
    return CLI_EXIT_USAGE;
}

int cli_fail(const char *command, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vprint_error(command, fmt, ap);
    va_end(ap);
    return CLI_EXIT_FAIL;
}

int cli_fail_diags(tilec_context *ctx) {
    tilec_diag_print(ctx, stderr);
    tilec_diag_clear(ctx);
    return CLI_EXIT_FAIL;
}

bool cli_split_assignment(const char *text, const char **name, size_t *name_len, const char **value) {
    const char *eq = strchr(text, '=');
    if (!eq || eq == text || eq[1] == 0) return false;
    *name = text;
    *name_len = (size_t)(eq - text);
    *value = eq + 1;
    return true;
}

bool cli_parse_u64(const char *text, uint64_t *out) {
    if (!isdigit((unsigned char)text[0])) return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end) return false;
    *out = v;
    return true;
}

bool cli_parse_width(const char *command, const char *text, uint32_t *out) {
    uint64_t w;
    /* A power of two up to 16: the widths lower_kernel and the SIMD backend take. */
    if (cli_parse_u64(text, &w) && w >= 1 && w <= 16 && (w & (w - 1)) == 0) {
        *out = (uint32_t)w;
        return true;
    }
    cli_usage_error(command, "--width needs a packet width 1, 2, 4, 8 or 16, not '%s'", text);
    return false;
}

void cli_defines_init(cli_defines *d, tilec_context *ctx) {
    memset(d, 0, sizeof *d);
    d->ctx = ctx;
}

void cli_defines_free(cli_defines *d) {
    for (size_t i = 0; i < d->items.len; i++) tilec_free(d->ctx, (void *)d->items.data[i].name);
    VEC_FREE(d->ctx, &d->items);
}

/* NAME is an identifier as in the text form; VALUE a decimal 64-bit integer. */
static bool parse_define(const char *text, tir_define *def, size_t *name_len, const char **problem) {
    const char *name, *value;
    if (!cli_split_assignment(text, &name, name_len, &value)) {
        *problem = "expected NAME=VALUE";
        return false;
    }
    bool ident = isalpha((unsigned char)name[0]) || name[0] == '_';
    for (size_t i = 1; i < *name_len; i++)
        ident = ident && (isalnum((unsigned char)name[i]) || name[i] == '_' || name[i] == '.');
    if (!ident) {
        *problem = "NAME is not an identifier";
        return false;
    }
    errno = 0;
    char *end;
    def->value = strtoll(value, &end, 10);
    if (errno || *end || !(isdigit((unsigned char)value[0]) || value[0] == '-' || value[0] == '+')) {
        *problem = "VALUE is not a 64-bit integer";
        return false;
    }
    def->name = name;
    return true;
}

bool cli_defines_add(cli_defines *d, const char *command, const char *text) {
    tir_define def;
    size_t n;
    const char *problem;
    if (!parse_define(text, &def, &n, &problem)) {
        cli_usage_error(command, "malformed -D '%s' (%s)", text, problem);
        return false;
    }
    char *copy = tilec_alloc(d->ctx, n + 1);
    if (copy) memcpy(copy, def.name, n);
    def.name = copy;
    if (!copy || !VEC_PUSH(d->ctx, &d->items, def)) {
        tilec_free(d->ctx, copy);
        cli_fail(command, "out of memory");
        return false;
    }
    return true;
}

/* text (read from path) parsed with the defines and verified; NULL after
 * printing the diagnostics. */
static tir_module *parse_verified(tilec_context *ctx, const char *path, const char *text, size_t length,
                                  const cli_defines *defines) {
    tir_module *m = NULL;
    tilec_status st = tir_parse(ctx, text, length, path, defines->items.data, defines->items.len, &m);
    if (st == TILEC_OK && m && tir_verify(ctx, m) == TILEC_OK) return m;
    if (st == TILEC_OK && !m) tilec_error(ctx, TILEC_E_PARSE, "TILEC-CLI01", tilec_no_loc(), "%s: parse produced no module", path);
    tir_module_destroy(m);
    cli_fail_diags(ctx);
    return NULL;
}

tir_module *cli_load_module(tilec_context *ctx, const char *path, const cli_defines *defines) {
    char *text;
    size_t length;
    if (file_read(ctx, path, &text, &length) != TILEC_OK) {
        cli_fail_diags(ctx);
        return NULL;
    }
    tir_module *m = parse_verified(ctx, path, text, length, defines);
    tilec_free(ctx, text);
    return m;
}

/* "choosing B, U for @k: 3/6" on stderr while measuring (a terminal's line
 * rewritten). */
static void choose_progress(void *user, uint64_t total, uint64_t index, double us) {
    (void)us;
    if (total) /* every combination */
        fprintf(stderr, "\r%s: %" PRIu64 "/%" PRIu64 "%s", (const char *)user, index + 1, total,
                index + 1 == total ? "\n" : "");
    else /* a search: how many so far (the line ends with the choice's) */
        fprintf(stderr, "\r%s: %" PRIu64 " measured", (const char *)user, index + 1);
    fflush(stderr);
}

/* The open chosen parameters of `kernel` in text, chosen for o and added to
 * defines; the choice on stderr.  false after printing the diagnostics. */
static bool choose(tilec_context *ctx, const char *command, const char *path, const char *text, size_t length,
                   const char *kernel, cli_defines *defines, const tilec_compile_options *o) {
    tilec_chosen chosen[8];
    size_t count = 0;
    char why[512], label[160];
    snprintf(label, sizeof label, "tilec %s: measuring the chosen parameters of %s", command, path);
    tilec_choose_options co = {.progress = isatty(2) ? choose_progress : NULL, .user = label, .why = why,
                               .why_size = sizeof why};
    if (tilec_choose_params(ctx, text, length, path, kernel, defines->items.data, defines->items.len, o, &co, chosen,
                            sizeof chosen / sizeof chosen[0], &count))
        return cli_fail_diags(ctx), false;
    for (size_t i = 0; i < count; i++) {
        char def[sizeof chosen[i].name + 24];
        snprintf(def, sizeof def, "%.63s=%" PRId64, chosen[i].name, chosen[i].value);
        if (!cli_defines_add(defines, command, def)) return false;
    }
    if (count) fprintf(stderr, "%stilec %s: chose %s\n", co.progress ? "\r\033[K" : "", command, why);
    return true;
}

tir_module *cli_load_chosen(tilec_context *ctx, const char *command, const char *path, const char *kernel,
                            cli_defines *defines, const tilec_compile_options *o) {
    if (!o) return cli_load_module(ctx, path, defines);
    char *text;
    size_t length;
    if (file_read(ctx, path, &text, &length) != TILEC_OK) {
        cli_fail_diags(ctx);
        return NULL;
    }
    tir_module *m =
        choose(ctx, command, path, text, length, kernel, defines, o) ? parse_verified(ctx, path, text, length, defines)
                                                                      : NULL;
    tilec_free(ctx, text);
    return m;
}

tilec_status cli_write_stdout(void *user, const char *bytes, size_t n) {
    (void)user;
    return fwrite(bytes, 1, n, stdout) == n ? TILEC_OK : TILEC_E_IO;
}

void cli_print_help(const cli_command *c) {
    fputs(c->help, stdout);
    if (c->help_more) fputs(c->help_more, stdout);
}

int cli_scan_file_command(const cli_command *cmd, int argc, char **argv, cli_defines *defines, const char **path) {
    static const cli_option options[] = {{"-D", true, 1}, {NULL, false, 0}};
    cli_scanner s = cli_scanner_start(cmd->name, argc, argv);
    const char *value;
    int id;
    *path = NULL;
    while ((id = cli_scan(&s, options, &value)) != CLI_SCAN_END) {
        if (id == CLI_SCAN_HELP) {
            cli_print_help(cmd);
            return CLI_EXIT_OK;
        }
        if (id == CLI_SCAN_ERROR) return CLI_EXIT_USAGE;
        if (id == CLI_SCAN_POSITIONAL) {
            if (*path) return cli_usage_error(cmd->name, "unexpected argument '%s'", value);
            *path = value;
        } else if (!cli_defines_add(defines, cmd->name, value)) {
            return CLI_EXIT_USAGE;
        }
    }
    return *path ? CLI_CONTINUE : cli_usage_error(cmd->name, "missing FILE.tir");
}

const tir_func *cli_pick_kernel(const tir_module *m, const char *command, const char *name) {
    size_t n = tir_module_func_count(m);
    if (name) {
        const tir_func *f = tir_module_find_func(m, name);
        if (!f) cli_fail(command, "no kernel named '%s'", name);
        return f;
    }
    if (n == 1) return tir_module_func(m, 0);
    if (n == 0) {
        cli_fail(command, "the file has no kernel");
    } else {
        cli_fail(command, "the file has %zu kernels; choose one with --kernel NAME:", n);
        for (size_t i = 0; i < n; i++) fprintf(stderr, "  @%s\n", tir_func_name(tir_module_func(m, i)));
    }
    return NULL;
}
