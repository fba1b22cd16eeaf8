/* generate.c — `tilec generate [OPTIONS]`: a Llama-architecture decoder
 * generating tokens, or checked against transformers (--check).  The model
 * is the Python package's tilec.models.llama (docs/models.md), so this
 * command runs it: $TILEC_PYTHON (default python3) with the checkout's
 * package on PYTHONPATH, its library (TILEC_LIBRARY) and its models/
 * (TILEC_MODELS) unless the environment names others.  Every option is the
 * module's (`python -m tilec.models.llama --help`), listed in the help
 * below. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef TILEC_PYTHON_DIR
#define TILEC_PYTHON_DIR "python"
#endif
#ifndef TILEC_MODELS_DIR
#define TILEC_MODELS_DIR "models"
#endif
#ifndef TILEC_LIBRARY_PATH
#define TILEC_LIBRARY_PATH "libtilec.so"
#endif

enum { MAX_ARGS = 256 };

static int generate_main(tilec_context *ctx, int argc, char **argv, bool parse_only) {
    (void)ctx;
    if (argc + 3 > MAX_ARGS) return cli_usage_error("generate", "more than %d arguments", MAX_ARGS - 4);
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            cli_print_help(&cli_generate_command);
            return CLI_EXIT_OK;
        }
    if (parse_only) return CLI_CONTINUE;
    const char *python = getenv("TILEC_PYTHON") ? getenv("TILEC_PYTHON") : "python3";
    const char *path = getenv("PYTHONPATH");
    size_t n = strlen(TILEC_PYTHON_DIR) + (path ? strlen(path) + 1 : 0) + 1;
    char *joined = malloc(n);
    if (!joined) return cli_fail("generate", "out of memory");
    snprintf(joined, n, "%s%s%s", TILEC_PYTHON_DIR, path ? ":" : "", path ? path : "");
    if (setenv("PYTHONPATH", joined, 1) || setenv("TILEC_LIBRARY", TILEC_LIBRARY_PATH, 0) ||
        setenv("TILEC_MODELS", TILEC_MODELS_DIR, 0)) {
        free(joined);
        return cli_fail("generate", "cannot set the environment");
    }
    free(joined);
    char *args[MAX_ARGS] = {(char *)python, "-m", "tilec.models.llama"};
    for (int i = 1; i < argc; i++) args[i + 2] = argv[i];
    fflush(NULL);
    execvp(python, args);
    return cli_fail("generate", "cannot run %s (set TILEC_PYTHON to a Python 3 with NumPy)", python);
}

const cli_command cli_generate_command = {
    "generate",
    "generate tokens with a Llama decoder on tilec's kernels (random or transformers weights)",
    "usage: tilec generate [--model DIR | --config tiny|JSON] [--weights f32|bf16|q8|q8_0]\n"
    "                      [--prompt IDS] [-n N] [--temperature T] [--top-k K] [--seed S]\n"
    "                      [--threads N] [--context N] [--check]\n"
    "\n"
    "Builds a Llama-architecture decoder (tilec.models.llama, docs/models.md):\n"
    "a transformers checkpoint's config.json and safetensors weights with\n"
    "--model, else --config's with random weights from --seed (no download).\n"
    "Prints the generated token ids and a progress line with tokens/s.  --check\n"
    "compares its logits (prompt and each decode step) with transformers'\n"
    "LlamaForCausalLM in PyTorch, and its greedy tokens with those.\n"
    "\n"
    "Runs $TILEC_PYTHON (default python3) -m tilec.models.llama with this\n"
    "checkout's Python package; --check needs torch and transformers there\n"
    "(`scripts/install-deps --bench` puts them in build-bench/venv; `make\n"
    "check-model` runs the check for every weight form).\n"
    "\n"
    "Options:\n"
    "  --model DIR        a checkpoint directory: config.json, *.safetensors\n"
    "  --config C         without --model: tiny (default), or a config as JSON\n"
    "  --weights F        f32 (default), bf16, q8 (int8, one scale per row), or q8_0\n"
    "                     (llama.cpp's Q8_0: a scale per 32 weights, inputs quantized too)\n"
    "  --prompt IDS       the prompt's token ids, comma-separated (1,2,...,8)\n"
    "  -n, --tokens N     tokens to generate (16)\n"
    "  --temperature T    0 (default): greedy; else sampled at T\n"
    "  --top-k K          sample among the K largest logits (0: all)\n"
    "  --seed S           the random weights' seed and the sampler's (0)\n"
    "  --threads N        workers (default TILEC_THREADS, else the cores)\n"
    "  --context N        the longest context (the config's, at most 4096)\n"
    "  --check            compare with transformers instead of generating\n"
    "  -h, --help         show this help\n"
    "\n"
    "Exit status: 0 ok, 1 the model failed or the check did not pass, 2 usage error.\n",
    generate_main,
    NULL,
};
