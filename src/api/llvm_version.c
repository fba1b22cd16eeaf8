/* llvm_version.c — the LLVM the library generates code with (tilec.h:
 * tilec_llvm_version); apart from version.c, which the runtime library
 * (no LLVM) shares. */
#include "tilec/tilec.h"

#include <llvm/Config/llvm-config.h>

const char *tilec_llvm_version(void) { return LLVM_VERSION_STRING; }
