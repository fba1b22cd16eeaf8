/* host.c — `tilec host [--host SPEC]`: the host description every native
 * command plans and generates code for (base/host.h, docs/cli.md "Host
 * description"), as those commands see it. */
#include "cli.h"

#include "base/host.h"
#include "tilec/host.h"

#include <inttypes.h>
#include <stdlib.h>

enum { OPT_HOST = 1 };

/* 32768 → "32 KiB", 1310720 → "1280 KiB", 0 → "unknown". */
static void print_size(const char *label, uint64_t bytes) {
    if (!bytes) printf("%s unknown", label);
    else if (bytes % (1u << 20) == 0) printf("%s %" PRIu64 " MiB", label, bytes >> 20);
    else printf("%s %" PRIu64 " KiB", label, bytes >> 10);
}

static int host_main(tilec_context *ctx, int argc, char **argv, bool parse_only) {
    static const cli_option options[] = {{"--host", true, OPT_HOST}, {NULL, false, 0}};
    cli_scanner s = cli_scanner_start("host", argc, argv);
    const char *spec = getenv("TILEC_HOST"), *value;
    for (int id; (id = cli_scan(&s, options, &value)) != CLI_SCAN_END;) {
        if (id == CLI_SCAN_HELP) {
            cli_print_help(&cli_host_command);
            return CLI_EXIT_OK;
        }
        if (id == CLI_SCAN_ERROR) return CLI_EXIT_USAGE;
        if (id == CLI_SCAN_POSITIONAL) return cli_usage_error("host", "unexpected argument '%s'", value);
        spec = value;
    }
    host_desc d;
    char why[256];
    if (!host_check(spec, why, sizeof why)) return cli_usage_error("host", "%s", why);
    if (parse_only) return CLI_CONTINUE;
    if (!host_describe(spec, &d, why, sizeof why)) return cli_fail("host", "%s", why);
    if (setenv("TILEC_HOST", spec ? spec : "native", 1)) return cli_fail("host", "cannot set TILEC_HOST");
    const char *cpu, *features;
    bool ok = tilec_host_codegen(ctx, &cpu, &features) == TILEC_OK;
    if (ok) {
        uint32_t w = tilec_host_width();
        printf("host: %s\n", spec && *spec ? spec : "native");
        printf("packet width: %u f32 lanes, %u vector registers\n", w, tilec_host_vector_registers(w));
        print_size("caches: L1d", d.l1d_bytes);
        print_size(", L2", d.l2_bytes);
        print_size(", L3", d.l3_bytes);
        printf("\ncores: %u\ndot products: %s\ncode generation: %s %s\n", d.cores, tilec_host_dot_products(w), cpu,
               features);
    }
    return ok ? CLI_EXIT_OK : cli_fail("host", "cannot query the host CPU through LLVM");
}

const cli_command cli_host_command = {
    "host",
    "show the host description kernels are planned and generated for",
    "usage: tilec host [--host SPEC]\n"
    "\n"
    "Prints the host description the native commands use: TILEC_HOST, or SPEC\n"
    "(native, zen4, zen5, xeon-spr or avx2-laptop, plus overrides such as\n"
    "zen4,l2=2M,cores=8): the packet width and vector registers the planner\n"
    "sees, the caches of its cost model, the cores (the default worker count),\n"
    "and the CPU and enabled features code is generated for (a profile's CPU\n"
    "with the features both it and this machine have).\n"
    "\n"
    "Options:\n"
    "  --host SPEC     the description to show (default: TILEC_HOST, else native)\n"
    "  -h, --help      show this help\n"
    "\n"
    "Exit status: 0 ok, 1 the CPU cannot be queried, 2 usage error (a malformed SPEC).\n",
    host_main,
    NULL,
};
