/* options.h — the compile option table's internal face (options.def; the
 * public one is tilec_compile_options_default, _set, _get and
 * tilec_compile_option_info in tilec.h): the words of the enum options, for
 * reports that print them, and the GPU architectures `gpu_arch` names. */
#ifndef TILEC_OPTIONS_OPTIONS_H
#define TILEC_OPTIONS_OPTIONS_H

#include "tilec/tilec.h"

/* "auto", "on" or "off" for a tilec_fuse, tilec_pack or tilec_split value
 * (they share the order); "?" for another value. */
const char *options_mode_name(unsigned mode);

/* The architecture named `name` when LLVM 19's NVPTX target generates code
 * for it, as a static string; NULL otherwise. */
const char *options_gpu_arch(const char *name);
/* Those architectures, comma-separated (for diagnostics). */
#define OPTIONS_GPU_ARCHS "sm_60, sm_61, sm_62, sm_70, sm_72, sm_75, sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a"

#endif
