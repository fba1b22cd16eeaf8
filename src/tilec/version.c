/* version.c — the library's version and the LLVM it was built against
 * (tilec.h: tilec_version, tilec_llvm_version). */
#include "tilec/tilec.h"

#include <llvm/Config/llvm-config.h>

const char *tilec_version(void) { return TILEC_VERSION_STRING; }

const char *tilec_llvm_version(void) { return LLVM_VERSION_STRING; }
