/* version.c — the library's version (runtime.h: tilec_version). */
#include "tilec/runtime.h"

const char *tilec_version(void) { return TILEC_VERSION_STRING; }
