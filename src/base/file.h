/* file.h — whole-file reading and writing for the text form and the CLI.
 *
 * Reading: the contents are allocated from the context and NUL-terminated
 * (embedded NULs are kept and counted in *length).
 *
 * Writing replaces a file as a whole and never destroys what it replaces on
 * failure: the contents go to a temporary file next to the target (".NAME.XXXXXX"
 * in the same directory, so rename() is atomic), which is renamed over the
 * target once complete.  A failure removes only that temporary file; the
 * target keeps its old contents, or stays absent.  Details:
 *   - a symbolic link is followed: its final target is replaced, the link
 *     stays (a link to nothing is an error);
 *   - an existing file keeps its permission bits (owner and group become the
 *     writer's, as with any new file); a new file gets 0666 minus the umask;
 *   - a target that exists and is not a regular file (a character device such
 *     as /dev/null or /dev/full, a FIFO, a terminal) cannot be replaced by
 *     renaming: it is opened for writing as is and written directly, and never
 *     removed, whatever happens;
 *   - the directory must be writable (it holds the temporary file), even when
 *     the target itself is; and an existing target must be writable too,
 *     although renaming over it would not need that;
 *   - nothing is fsync'ed: the replacement is atomic against failures of the
 *     writer (a full disk, an error), not against a power loss; a writer killed
 *     mid-write may leave its temporary file behind.
 * Failures append TILEC-IO01 ("PATH: cannot ...: reason"). */
#ifndef TILEC_BASE_FILE_H
#define TILEC_BASE_FILE_H

#include "base/context.h"

/* Appends a diagnostic about a file: "PATH: message", with loc.file = PATH;
 * returns `status`.  Used by every reader and writer of files. */
tilec_status file_diag(tilec_context *ctx, tilec_status status, const char *code, const char *path, const char *fmt,
                       ...) __attribute__((format(printf, 5, 6)));

/* On failure appends TILEC-IO01 ("PATH: cannot open: reason") and sets *data
 * to NULL.  Free *data with tilec_free. */
tilec_status file_read(tilec_context *ctx, const char *path, char **data, size_t *length);

/* One contiguous part of what file_write writes. */
typedef struct {
    const void *data;
    size_t size;
} file_piece;

/* Replaces `path` by the concatenation of the pieces, as described above. */
tilec_status file_write(tilec_context *ctx, const char *path, const file_piece *pieces, size_t count);

#endif
