/* file.h — whole-file reading for the text form and the CLI.  The contents are
 * allocated from the context and NUL-terminated (embedded NULs are kept and
 * counted in *length). */
#ifndef TILEC_BASE_FILE_H
#define TILEC_BASE_FILE_H

#include "base/context.h"

/* On failure appends TILEC-IO01 ("PATH: cannot open: reason") and sets *data
 * to NULL.  Free *data with tilec_free. */
tilec_status file_read(tilec_context *ctx, const char *path, char **data, size_t *length);

#endif
