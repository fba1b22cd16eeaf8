/* emit.c — `tilec emit-llvm FILE.tir` and `tilec emit-asm FILE.tir`: compile
 * the kernel natively (the options of `tilec run`) and print the optimized
 * LLVM IR or the host assembly of its packet entry, as the JIT produced it;
 * `tilec emit-ptx FILE.tir`: the PTX of the CUDA target (no GPU needed). */
#include "native.h"

static int emit(const cli_command *cmd, tilec_context *ctx, int argc, char **argv, bool parse_only, bool assembly) {
    cli_native_request r;
    int code = cli_native_request_scan(ctx, cmd, argc, argv, &r);
    if (code == CLI_CONTINUE && !parse_only) {
        tir_module *m = cli_load_module(ctx, r.path, &r.defines);
        const tir_func *f = m ? cli_pick_kernel(m, cmd->name, r.kernel) : NULL;
        code = CLI_EXIT_FAIL;
        if (f) {
            tilec_compile_options o = cli_options_native(&r.options);
            o.capture_ir = !assembly;
            o.capture_asm = assembly;
            o.threads = o.threads ? o.threads : 1; /* nothing runs: no pool threads needed */
            tilec_kernel *k = cli_native_compile(ctx, &o, f, NULL);
            if (k) {
                printf("; %s\n", tilec_kernel_realization(k));
                fputs(assembly ? tilec_kernel_asm(k) : tilec_kernel_ir(k), stdout);
                code = CLI_EXIT_OK;
            }
            tilec_kernel_destroy(k);
        }
        tir_module_destroy(m);
    }
    cli_native_request_free(&r);
    return code;
}

static int emit_llvm_main(tilec_context *ctx, int argc, char **argv, bool parse_only) {
    return emit(&cli_emit_llvm_command, ctx, argc, argv, parse_only, false);
}

static int emit_asm_main(tilec_context *ctx, int argc, char **argv, bool parse_only) {
    return emit(&cli_emit_asm_command, ctx, argc, argv, parse_only, true);
}

static int emit_ptx_main(tilec_context *ctx, int argc, char **argv, bool parse_only) {
    cli_native_request r;
    int code = cli_native_request_scan(ctx, &cli_emit_ptx_command, argc, argv, &r);
    if (code == CLI_CONTINUE && !parse_only) {
        tir_module *m = cli_load_module(ctx, r.path, &r.defines);
        const tir_func *f = m ? cli_pick_kernel(m, cli_emit_ptx_command.name, r.kernel) : NULL;
        code = CLI_EXIT_FAIL;
        if (f) {
            tilec_compile_options o = cli_options_native(&r.options);
            if (tilec_emit_ptx(ctx, f, &o, cli_write_stdout, NULL)) cli_fail_diags(ctx);
            else code = CLI_EXIT_OK;
        }
        tir_module_destroy(m);
    }
    cli_native_request_free(&r);
    return code;
}

#define EMIT_HELP(what) \
    "\n" \
    "Compiles one kernel of FILE.tir natively (verify, plan, lower, vectorize, JIT)\n" \
    "and prints its " what ", after a '; ' line with the realization items.\n" \
    "\n" \
    "Options:\n" CLI_NATIVE_COMMAND_HELP \
    "\n" \
    "Exit status: 0 ok, 1 error in the file or the compilation, 2 usage error.\n"

const cli_command cli_emit_llvm_command = {
    "emit-llvm",
    "print the optimized LLVM IR of a kernel's native code",
    "usage: tilec emit-llvm FILE.tir [--kernel NAME] [-D NAME=VALUE]... [native options]\n" EMIT_HELP(
        "optimized LLVM IR (after default<O3>)"),
    emit_llvm_main,
    NULL,
};

const cli_command cli_emit_asm_command = {
    "emit-asm",
    "print the host assembly of a kernel's native code",
    "usage: tilec emit-asm FILE.tir [--kernel NAME] [-D NAME=VALUE]... [native options]\n" EMIT_HELP(
        "host assembly"),
    emit_asm_main,
    NULL,
};

const cli_command cli_emit_ptx_command = {
    "emit-ptx",
    "print the PTX of a kernel for an NVIDIA GPU (no GPU needed)",
    "usage: tilec emit-ptx FILE.tir [--kernel NAME] [-D NAME=VALUE]... [--sm ARCH] [planner options]\n"
    "\n"
    "Plans one kernel of FILE.tir for the CUDA target (a warp of 32 lanes per packet,\n"
    "CTAs of 32..1024 threads), lowers it at W = 32 and prints the PTX LLVM's NVPTX\n"
    "backend generates for ARCH (default sm_90), as `tilec run --target cuda` loads it.\n"
    "Math functions come from CUDA's libdevice (TILEC_LIBDEVICE, CUDA_HOME, or\n"
    "/usr/local/cuda).  docs/gpu.md.\n"
    "\n"
    "Options:\n" CLI_NATIVE_COMMAND_HELP
    "\n"
    "Exit status: 0 ok, 1 error in the file or the compilation, 2 usage error.\n",
    emit_ptx_main,
    NULL,
};
