/* object.c — `tilec compile FILE.tir -o KERNEL.o [--header KERNEL.h]`:
 * compiles one kernel ahead of time (tilec_compile_aot) into an object file
 * a C program links against the runtime library, and its C header
 * (docs/aot.md).  Each file is replaced atomically (base/file.h), and an
 * output that names the source or the other output is a usage error before
 * anything is written: replacing the source would lose it. */
#define _XOPEN_SOURCE 700 /* realpath is X/Open, not plain POSIX */
#include "native.h"

#include "base/file.h"
#include "base/strbuf.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static tilec_status collect(void *user, const char *bytes, size_t n) {
    strbuf_append_n(user, bytes, n);
    return ((strbuf *)user)->failed ? TILEC_E_NOMEM : TILEC_OK;
}

/* "tilec compile FILE -D N=4 …": the command line, for the header. */
static void source_line(strbuf *s, int argc, char **argv) {
    strbuf_append(s, "tilec");
    for (int i = 0; i < argc; i++) strbuf_printf(s, " %s", argv[i]);
}

/* `path` with its directory resolved (symbolic links, ".", ".."): the
 * name a file not written yet will have; false when the directory does not
 * resolve (writing there fails anyway). */
static bool canonical_path(const char *path, char out[PATH_MAX]) {
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX], real[PATH_MAX];
    size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0; /* "/x": the root, "/" kept */
    if (dir_len >= sizeof dir) return false;
    memcpy(dir, path, dir_len);
    dir[dir_len] = '\0';
    if (!realpath(dir_len ? dir : ".", real)) return false;
    return snprintf(out, PATH_MAX, "%s/%s", real, slash ? slash + 1 : path) < PATH_MAX;
}

/* Whether a and b name one file: the same inode when both exist (hard and
 * symbolic links included), else the same path once their directories are
 * resolved. */
static bool same_file(const char *a, const char *b) {
    struct stat sa, sb;
    bool has_a = stat(a, &sa) == 0, has_b = stat(b, &sb) == 0;
    if (has_a && has_b) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (has_a || has_b) return false;
    char ca[PATH_MAX], cb[PATH_MAX];
    return canonical_path(a, ca) && canonical_path(b, cb) ? !strcmp(ca, cb) : !strcmp(a, b);
}

/* The usage error of outputs that would overwrite the source or each other
 * (CLI_CONTINUE when they are all distinct). */
static int check_outputs(const cli_native_request *r) {
    const char *name = cli_compile_command.name;
    if (same_file(r->output, r->path))
        return cli_usage_error(name, "-o '%s' is the source file '%s': nothing was written", r->output, r->path);
    if (r->header && same_file(r->header, r->path))
        return cli_usage_error(name, "--header '%s' is the source file '%s': nothing was written", r->header, r->path);
    if (r->header && same_file(r->header, r->output))
        return cli_usage_error(name, "--header '%s' is the object file '%s' (-o): nothing was written", r->header,
                               r->output);
    return CLI_CONTINUE;
}

static int compile_main(tilec_context *ctx, int argc, char **argv, bool parse_only) {
    cli_native_request r;
    int code = cli_aot_request_scan(ctx, &cli_compile_command, argc, argv, &r);
    if (code == CLI_CONTINUE) code = check_outputs(&r);
    if (code == CLI_CONTINUE && !parse_only) {
        tilec_compile_options o = cli_options_native(&r.options);
        if (!cli_options_given(&r.options, "--width")) o.width = 0; /* the target CPU's, not TILEC_SIMD_WIDTH's */
        tir_module *m = cli_load_chosen(ctx, "compile", r.path, r.kernel, &r.defines, &o);
        const tir_func *f = m ? cli_pick_kernel(m, "compile", r.kernel) : NULL;
        code = CLI_EXIT_FAIL;
        if (f) {
            strbuf object, header, source;
            strbuf_init(&object, ctx);
            strbuf_init(&header, ctx);
            strbuf_init(&source, ctx);
            source_line(&source, argc, argv);
            tilec_aot_options ao = {.cpu = r.cpu, .symbol = r.symbol, .source = strbuf_cstr(&source)};
            tilec_status st = tilec_compile_aot(ctx, f, &o, &ao, collect, &object, r.header ? collect : NULL, &header);
            if (!st) st = file_write(ctx, r.output, &(file_piece){object.data, object.len}, 1);
            if (!st && r.header) st = file_write(ctx, r.header, &(file_piece){header.data, header.len}, 1);
            code = st ? cli_fail_diags(ctx) : CLI_EXIT_OK;
            if (!st) {
                printf("@%s: %s (%zu bytes)%s%s\n", tir_func_name(f), r.output, object.len, r.header ? ", " : "",
                       r.header ? r.header : "");
                printf("  link: cc … %s $(pkg-config --cflags --libs tilec-rt)\n", r.output);
            }
            strbuf_free(&object);
            strbuf_free(&header);
            strbuf_free(&source);
        }
        tir_module_destroy(m);
    }
    cli_native_request_free(&r);
    return code;
}

const cli_command cli_compile_command = {
    "compile",
    "compile a kernel ahead of time to an object file and a C header",
    "usage: tilec compile FILE.tir -o KERNEL.o [--header KERNEL.h] [--cpu CPU] [--name SYMBOL]\n"
    "                     [--kernel NAME] [-D NAME=VALUE]... [native options]\n"
    "\n"
    "Compiles one kernel of FILE.tir ahead of time (verify, plan, lower, vectorize,\n"
    "generate code) into a relocatable object that a C program links against the\n"
    "runtime library (pkg-config tilec-rt: no LLVM at run time), and optionally the\n"
    "C header declaring its entry points (docs/aot.md):\n"
    "  int SYMBOL(const float *X, float *Y, ...)   typed, on the default runtime\n"
    "  tilec_status SYMBOL_dispatch(ctx, rt, n, args)   checked tilec_buffers\n"
    "\n"
    "Options:\n"
    "  -o FILE           the object file to write (required; not the source file)\n"
    "  --header FILE     the C header to write (not the source or the object file)\n"
    "  --cpu CPU         native (default: this machine's CPU and features), x86-64-v2,\n"
    "                    x86-64-v3 (AVX2) or x86-64-v4 (AVX-512)\n"
    "  --name SYMBOL     the C name of the entry points (default: the kernel's); one\n"
    "                    that would collide in the program (main, free, …) is refused\n"
    CLI_NATIVE_COMMAND_HELP
    "\n"
    "Here --threads is the worker count the kernel is planned for (it runs with any\n"
    "runtime) and --width defaults to the target CPU's natural width.\n"
    "\n"
    "Exit status: 0 ok, 1 error in the file or the compilation, 2 usage error.\n",
    compile_main,
    NULL,
};
