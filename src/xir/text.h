/* text.h — the XIR text form (docs/xir.md, "Text form"): a canonical printer
 * and a parser that reads it back, so that print(parse(print(m))) == print(m)
 * byte for byte.  Also the printer's naming of values and blocks, which the
 * verifier reuses so its messages quote instructions exactly as printed. */
#ifndef TILEC_XIR_TEXT_H
#define TILEC_XIR_TEXT_H

#include "xir/xir.h"

#include <stdio.h>

/* Appends the canonical text of `m` to `out`; false when memory runs out (then
 * `out` holds a prefix and an XIR-M01 diagnostic is recorded).  Malformed IR
 * (no verifier ran) prints without crashing: an operand that is missing or not
 * of the function prints as `%?`, a missing block as `^?`. */
bool xir_print_to_strbuf(const xir_module *m, strbuf *out);
/* Writes the canonical text to `out`: TILEC_E_NOMEM, or TILEC_E_IO (XIR-M02)
 * when the write fails, TILEC_E_ARG for a NULL argument. */
tilec_status xir_print_file(const xir_module *m, FILE *out);

/* Parses XIR text (`len` bytes; `filename` is used in locations and may be
 * NULL).  On success *out owns a new module (not verified: run xir_verify).
 * On failure *out is NULL, the status is TILEC_E_PARSE (or TILEC_E_NOMEM /
 * TILEC_E_ARG) and one XIR-P.. diagnostic locates the first error. */
tilec_status xir_parse(tilec_context *ctx, const char *text, size_t len, const char *filename, xir_module **out);

/* ---- naming (internal to the printer and the verifier) ---- */

/* The printed names of one function's values and blocks.  A value or block
 * keeps its name when that is a valid NAME not taken before it in the function
 * and not of the numbered form (all digits for values, `bb` + digits for
 * blocks); the others are numbered in order: %0, %1, ... and ^bb0, ^bb1, ...
 * Walks are bounded by the id counters, so even corrupted lists terminate. */
typedef struct {
    const xir_func *func;
    uint32_t value_count, block_count; /* func->next_value_id, next_block_id */
    const xir_value **values;          /* by id: the value of the function with that id */
    const char **value_names;          /* by id, without the sigil */
    const xir_block **blocks;
    const char **block_names;
    arena storage;
} xir_names;

/* False when memory runs out (nothing reported). */
bool xir_names_init(xir_names *names, tilec_context *ctx, const xir_func *f);
void xir_names_free(xir_names *names);
/* Operand spelling: `%name`, `f32 1.5`, `dispatch_id`, or `%?`. */
void xir_print_operand(strbuf *out, const xir_names *names, const xir_value *v);
void xir_print_block_ref(strbuf *out, const xir_names *names, const xir_block *b);
/* One instruction as printed, without indentation or newline. */
void xir_print_inst(strbuf *out, const xir_names *names, const xir_inst *inst);

/* Whether instructions of kind k produce a value, so the text names them
 * (`%name = ...`): all but store, buffer_write, warp_sync, fault, br,
 * cond_br and ret. */
static inline bool xir_inst_has_result(xir_inst_kind k) {
    return k != XIR_INST_STORE && k != XIR_INST_BUFFER_WRITE && k != XIR_INST_WARP_SYNC && k != XIR_INST_FAULT &&
           k != XIR_INST_BR && k != XIR_INST_COND_BR && k != XIR_INST_RET;
}

/* Whether the numbered-name rules above reserve `name` (so a value or block
 * with that name prints as a number, and the parser drops it). */
bool xir_name_is_numbered_value(const char *name, size_t len);
bool xir_name_is_numbered_block(const char *name, size_t len);
/* Whether `name` is a non-empty NAME ([A-Za-z0-9_.]+). */
bool xir_name_is_valid(const char *name, size_t len);

#endif
