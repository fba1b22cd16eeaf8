/* file.c — see file.h.  Reads in growing chunks so pipes and special files work
 * too; the buffer always has room for the terminating NUL.  Writes through a
 * temporary file renamed into place (file.h lists the rules). */
#define _XOPEN_SOURCE 700 /* realpath is X/Open, not plain POSIX */
#include "base/file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

tilec_status file_diag(tilec_context *ctx, tilec_status status, const char *code, const char *path, const char *fmt,
                       ...) {
    char message[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    tilec_loc loc = {path, 0, 0};
    return tilec_error(ctx, status, code, loc, "%s: %s", path, message);
}

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

/* ---- writing ---- */


/* Writes every piece to fd, resuming after partial writes and signals; on
 * failure returns false with errno set. */
static bool write_pieces(int fd, const file_piece *pieces, size_t count) {
    for (size_t i = 0; i < count; i++) {
        const char *p = pieces[i].data;
        size_t left = pieces[i].size;
        while (left > 0) {
            ssize_t n = write(fd, p, left);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                if (n == 0) errno = EIO;
                return false;
            }
            p += n;
            left -= (size_t)n;
        }
    }
    return true;
}

/* A target that exists and is not a regular file: written in place, never
 * removed (renaming over a device node would replace the node). */
static tilec_status write_in_place(tilec_context *ctx, const char *path, const file_piece *pieces, size_t count) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return file_diag(ctx, TILEC_E_IO, "TILEC-IO01", path, "cannot open for writing: %s", strerror(errno));
    bool ok = write_pieces(fd, pieces, count);
    int err = errno;
    if (close(fd) != 0 && ok) {
        ok = false;
        err = errno;
    }
    return ok ? TILEC_OK : file_diag(ctx, TILEC_E_IO, "TILEC-IO01", path, "cannot write: %s", strerror(err));
}

/* Six name characters from a few varying values: not secret, only unlikely
 * to collide (O_EXCL catches a collision, and the caller tries again). */
static void temporary_suffix(char *out, unsigned attempt, const void *salt) {
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    uint64_t h = (uint64_t)now.tv_nsec ^ (uint64_t)now.tv_sec << 30 ^ (uint64_t)getpid() << 12 ^
                 (uint64_t)(uintptr_t)salt ^ (uint64_t)attempt * 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 6; i++) {
        h = (h ^ (h >> 31)) * 0xBF58476D1CE4E5B9ull;
        out[i] = alphabet[(h >> 40) % (sizeof alphabet - 1)];
    }
    out[6] = 0;
}

/* Creates "DIR/.NAME.XXXXXX" next to `target` (O_EXCL, mode `mode` minus the
 * umask); its name goes to `tmp`.  Returns the descriptor or -1 with errno. */
static int create_temporary(const char *target, char *tmp, size_t tmp_size, mode_t mode) {
    const char *slash = strrchr(target, '/');
    int dir_len = slash ? (int)(slash - target + 1) : 0;
    const char *name = slash ? slash + 1 : target;
    int fd = -1;
    errno = EEXIST;
    for (unsigned attempt = 0; fd < 0 && errno == EEXIST && attempt < 100; attempt++) {
        char suffix[8];
        temporary_suffix(suffix, attempt, tmp);
        /* The name is cut so that the temporary name stays within NAME_MAX. */
        snprintf(tmp, tmp_size, "%.*s.%.200s.%s", dir_len, target, name, suffix);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    }
    return fd;
}

tilec_status file_write(tilec_context *ctx, const char *path, const file_piece *pieces, size_t count) {
    struct stat st;
    bool exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode))
        return file_diag(ctx, TILEC_E_IO, "TILEC-IO01", path, "cannot write: %s", strerror(EISDIR));
    if (exists && !S_ISREG(st.st_mode)) return write_in_place(ctx, path, pieces, count);
    /* Renaming would replace a file its writer may not write: refuse, as
     * writing in place would. */
    if (exists && faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) != 0)
        return file_diag(ctx, TILEC_E_IO, "TILEC-IO01", path, "cannot write: %s; the existing file is unchanged",
                         strerror(errno));
    /* Renaming over a symbolic link would replace the link: follow it. */
    char resolved[PATH_MAX];
    const char *target = path;
    struct stat link;
    if (lstat(path, &link) == 0 && S_ISLNK(link.st_mode)) {
        if (!realpath(path, resolved))
            return file_diag(ctx, TILEC_E_IO, "TILEC-IO01", path, "cannot resolve the symbolic link: %s",
                             strerror(errno));
        target = resolved;
    }
    size_t tmp_size = strlen(target) + 16;
    char *tmp = tilec_alloc(ctx, tmp_size);
    if (!tmp) return file_diag(ctx, TILEC_E_NOMEM, "TILEC-IO01", path, "out of memory");
    /* An existing file keeps its permission bits; a new one gets the umask's. */
    int fd = create_temporary(target, tmp, tmp_size, exists ? S_IRUSR | S_IWUSR : 0666);
    const char *kept = exists ? "the existing file is unchanged" : "no file was created";
    tilec_status result = TILEC_OK;
    if (fd < 0) {
        result = file_diag(ctx, TILEC_E_IO, "TILEC-IO01", path,
                           "cannot create a temporary file next to it (%s): %s; %s", tmp, strerror(errno), kept);
    } else {
        bool ok = (!exists || fchmod(fd, st.st_mode & 07777) == 0) && write_pieces(fd, pieces, count);
        int err = errno;
        if (close(fd) != 0 && ok) {
            ok = false;
            err = errno;
        }
        if (ok && rename(tmp, target) != 0) {
            ok = false;
            err = errno;
        }
        if (!ok) {
            unlink(tmp); /* only what this call created */
            result = file_diag(ctx, TILEC_E_IO, "TILEC-IO01", path, "cannot write: %s; %s", strerror(err), kept);
        }
    }
    tilec_free(ctx, tmp);
    return result;
}
