/* file.c — see file.h.  Reads in growing chunks so pipes and special files work
 * too; the buffer always has room for the terminating NUL. */
#include "base/file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

tilec_status file_read(tilec_context *ctx, const char *path, char **data, size_t *length) {
    *data = NULL;
    *length = 0;
    tilec_loc loc = {path, 0, 0};
    FILE *f = fopen(path, "rb");
    if (!f) return tilec_error(ctx, TILEC_E_IO, "TILEC-IO01", loc, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 4096, len = 0;
    char *buf = tilec_alloc(ctx, cap);
    tilec_status st = TILEC_OK;
    while (buf) {
        if (len + 1 == cap) {
            char *grown = tilec_grow(ctx, buf, cap, cap * 2);
            if (!grown) {
                tilec_free(ctx, buf);
                buf = NULL;
                break;
            }
            buf = grown;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - 1 - len, f);
        len += got;
        if (got == 0) break;
    }
    if (!buf) {
        st = tilec_error(ctx, TILEC_E_NOMEM, "TILEC-IO01", loc, "%s: out of memory reading the file", path);
    } else if (ferror(f)) {
        st = tilec_error(ctx, TILEC_E_IO, "TILEC-IO01", loc, "%s: cannot read: %s", path, strerror(errno));
        tilec_free(ctx, buf);
    } else {
        buf[len] = 0;
        *data = buf;
        *length = len;
    }
    fclose(f);
    return st;
}
