/* text.h — internal entry points of the TileIR text form (print.c), for tests
 * and the CLI.  The public API (tir_print, tir_print_file, tir_parse) is in
 * tilec/tir.h; the format is specified in docs/tir.md. */
#ifndef TILEC_TIR_TEXT_H
#define TILEC_TIR_TEXT_H

#include "base/strbuf.h"
#include "tilec/tir.h"

/* Appends the canonical text of `m` to `out`; false when memory runs out
 * (then `out` holds a prefix and a TIR-M01 diagnostic is recorded). */
bool tir_print_to_strbuf(const tir_module *m, strbuf *out);

#endif
