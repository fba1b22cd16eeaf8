/* options.h — the compile option table's internal face (options.def; the
 * public one is tilec_compile_options_default, _set, _get and
 * tilec_compile_option_info in tilec.h): the words of the enum options, for
 * reports that print them. */
#ifndef TILEC_OPTIONS_OPTIONS_H
#define TILEC_OPTIONS_OPTIONS_H

#include "tilec/tilec.h"

/* "auto", "on" or "off" for a tilec_fuse, tilec_pack or tilec_split value
 * (they share the order); "?" for another value. */
const char *options_mode_name(unsigned mode);

#endif
