/* disk_cache.c — the on-disk kernel cache (disk_cache.h).  File layout:
 *   "TILEC-KERNEL 1\n"
 *   "key LEN\n" LEN bytes "\n"
 *   "counters C1 C2 ...\n"              (SIMD_COUNTERS order)
 *   "sleef N NAME1 NAME2 ...\n"
 *   "object LEN FNV64\n" LEN bytes
 * FNV64 covers the counters and sleef lines and the object bytes: a
 * damaged counter (workspace_bytes sizes a buffer) or symbol name is caught
 * like damaged code.  It catches accidents, not edits (anyone can recompute
 * it): what keeps foreign code out is the trust checks (disk_cache.h). */
#define _GNU_SOURCE /* dladdr, dl_iterate_phdr */
#include "simd/disk_cache.h"
#include "base/hash.h"

#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char MAGIC[] = "TILEC-KERNEL 1\n";
static const char SUFFIX[] = ".tko";
static const char TEMPORARY_PREFIX[] = ".tmp-"; /* then PID-HEX */
static const char HEX[] = "0123456789abcdef";

/* ---- trust ---- */

enum { WARNING_MAX = PATH_MAX + 256 };

/* What each warning said last, under warning_lock: the library's only
 * mutable state besides LLVM's once-flag, the AOT runtime's and the pool
 * registry (tests/tilec/test_threads.c lists them), so that a process
 * compiling many kernels is told once, not once per compile. */
static pthread_mutex_t warning_lock = PTHREAD_MUTEX_INITIALIZER;
static char dir_warning_said[WARNING_MAX], cap_warning_said[WARNING_MAX];

/* A warning on stderr: the compile it concerns goes on uncached, so no
 * diagnostic carries it.  Every compile asks again, so each call site
 * remembers what it `said` last and says each warning once per process. */
__attribute__((format(printf, 3, 4))) static void warn(char said[WARNING_MAX], const char *code, const char *fmt, ...) {
    char text[WARNING_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&warning_lock);
    if (strcmp(text, said)) {
        memcpy(said, text, sizeof text);
        fprintf(stderr, "warning[%s]: %s\n", code, text);
    }
    pthread_mutex_unlock(&warning_lock);
}

/* mkdir -p, each directory it makes private (the XDG base directories are
 * 0700 too) */
static bool make_dirs(char *path) {
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        bool ok = mkdir(path, 0700) == 0 || errno == EEXIST;
        *p = '/';
        if (!ok) return false;
    }
    return mkdir(path, 0700) == 0 || errno == EEXIST;
}

disk_dir_state disk_cache_dir(char dir[PATH_MAX]) {
    const char *mode = getenv("TILEC_CACHE");
    if (mode && (!strcmp(mode, "0") || !strcmp(mode, "memory"))) return DISK_DIR_OFF;
    const char *explicit_dir = getenv("TILEC_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n = explicit_dir && *explicit_dir ? snprintf(dir, PATH_MAX, "%s", explicit_dir)
            : xdg && *xdg               ? snprintf(dir, PATH_MAX, "%s/tilec", xdg)
            : home && *home             ? snprintf(dir, PATH_MAX, "%s/.cache/tilec", home)
                                        : -1;
    if (n <= 0) return DISK_DIR_OFF;
    char why[128] = "";
    struct stat st;
    if (n >= PATH_MAX) {
        snprintf(why, sizeof why, "is longer than %d bytes", PATH_MAX - 1);
    } else if (!make_dirs(dir) || stat(dir, &st)) {
        snprintf(why, sizeof why, "cannot be made (%s)", strerror(errno));
    } else if (!S_ISDIR(st.st_mode)) {
        snprintf(why, sizeof why, "is not a directory");
    } else if (st.st_uid != geteuid()) {
        snprintf(why, sizeof why, "is owned by uid %u, not by you (uid %u)", (unsigned)st.st_uid, (unsigned)geteuid());
    } else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        snprintf(why, sizeof why, "is writable by group or others (mode %04o)", (unsigned)(st.st_mode & 07777));
    }
    if (!why[0]) return DISK_DIR_USABLE;
    warn(dir_warning_said, "SIMD-C01",
         "kernel cache directory '%s' %s: the disk cache is off (whoever can write it could run code in this "
         "process; docs/simd.md \"Kernel cache\")",
         dir, why);
    return DISK_DIR_REFUSED;
}

bool disk_cache_max_mb(uint64_t *mib) {
    const char *text = getenv("TILEC_CACHE_MAX_MB");
    *mib = 512;
    if (!text || !*text) return true;
    errno = 0;
    unsigned long long v = strtoull(text, NULL, 10);
    /* digits only: strtoull would take "-5" (as 2^64 - 5), " 5" and "5x" */
    if (!text[strspn(text, "0123456789")] && !errno && v <= UINT64_MAX >> 20) {
        *mib = v;
        return true;
    }
    warn(cap_warning_said, "SIMD-C02",
         "TILEC_CACHE_MAX_MB='%.64s' is not a size in MiB (decimal digits, at most %" PRIu64
         "): the kernel cache is not trimmed",
         text, UINT64_MAX >> 20);
    return false;
}

/* A file of the directory is ours when the cache could have written it: the
 * user's own regular file that no one else can write. */
static bool ours(const struct stat *st) {
    return S_ISREG(st->st_mode) && st->st_uid == geteuid() && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* Opens a file of the directory (created 0600 with O_CREAT), -1 unless it is
 * ours: no symlink is followed, and O_NONBLOCK keeps a FIFO from waiting for
 * a writer (it means nothing to a regular file). */
static int open_ours(const char *path, int flags, struct stat *st) {
    int fd = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
    if (fd >= 0 && (fstat(fd, st) || !ours(st))) {
        close(fd);
        fd = -1;
    }
    return fd;
}

FILE *disk_cache_open(const char *path, const char *mode) {
    struct stat st;
    int fd = open_ours(path, mode[0] == 'a' ? O_WRONLY | O_APPEND | O_CREAT : O_RDONLY, &st);
    FILE *f = fd >= 0 ? fdopen(fd, mode) : NULL;
    if (fd >= 0 && !f) close(fd);
    return f;
}

/* ---- the build ID ---- */

typedef struct {
    const void *base; /* the load address of the binary holding this code */
    char *out;
    size_t size;
    bool found;
} build_id_search;

static int find_build_id(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    build_id_search *s = data;
    /* the object whose ELF header (its first loaded byte) is dladdr's base */
    bool holds = false;
    for (int i = 0; i < info->dlpi_phnum && !holds; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD && info->dlpi_phdr[i].p_offset == 0)
            holds = (const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr) == s->base;
    if (!holds) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE) continue;
        const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)(const void *)p;
            const char *name = p + sizeof *nh, *desc = name + ((nh->n_namesz + 3) & ~3u);
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(name, "GNU", 4) &&
                desc + nh->n_descsz <= end) {
                size_t used = 0;
                for (uint32_t k = 0; k < nh->n_descsz && used + 3 < s->size; k++)
                    used += (size_t)snprintf(s->out + used, s->size - used, "%02x", (unsigned char)desc[k]);
                s->found = used > 0;
                return 1;
            }
            p = desc + ((nh->n_descsz + 3) & ~3u);
        }
    }
    return 1;
}

bool disk_cache_build_id(char *buf, size_t size) {
    Dl_info info;
    if (!dladdr((void *)(uintptr_t)&disk_cache_build_id, &info) || !info.dli_fbase) return false;
    build_id_search s = {info.dli_fbase, buf, size, false};
    dl_iterate_phdr(find_build_id, &s);
    return s.found;
}

/* ---- entries ---- */

static void entry_path(char *path, size_t size, const char *dir, const strbuf *key) {
    snprintf(path, size, "%s/%016" PRIx64 "%s", dir, fnv64(key->data, key->len), SUFFIX);
}

/* Reads "WORD NUMBER\n" at *p; false when it is not there. */
static bool read_number(const char **p, const char *end, const char *word, uint64_t *out) {
    size_t n = strlen(word);
    if ((size_t)(end - *p) < n + 2 || memcmp(*p, word, n) || (*p)[n] != ' ') return false;
    char *stop;
    errno = 0;
    *out = strtoull(*p + n + 1, &stop, 10);
    if (errno || stop >= end || stop == *p + n + 1) return false;
    *p = stop;
    return true;
}

static bool read_all(int fd, char *data, size_t size) {
    while (size) {
        ssize_t got = read(fd, data, size);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        data += got, size -= (size_t)got;
    }
    return true;
}

disk_lookup disk_cache_load(const char *dir, const strbuf *key, disk_entry *out) {
    char path[PATH_MAX + 32];
    entry_path(path, sizeof path, dir, key);
    struct stat st;
    int fd = open_ours(path, O_RDONLY, &st);
    if (fd < 0) return DISK_ABSENT; /* none, or not the cache's to read or remove */
    /* larger than any entry store writes: rejected unread.  NUL-terminated,
     * so no number parse can run past the end. */
    bool ok = st.st_size > 0 && (uint64_t)st.st_size <= DISK_CACHE_MAX_ENTRY_BYTES;
    char *data = ok ? malloc((size_t)st.st_size + 1) : NULL;
    ok = data && read_all(fd, data, (size_t)st.st_size);
    if (data) data[st.st_size] = 0;
    close(fd);
    const char *p = data, *end = data ? data + st.st_size : NULL;
    uint64_t len = 0, sum = 0, n = 0;
    ok = ok && (size_t)(end - p) > sizeof MAGIC - 1 && !memcmp(p, MAGIC, sizeof MAGIC - 1);
    if (ok) p += sizeof MAGIC - 1;
    /* the key, byte for byte */
    ok = ok && read_number(&p, end, "key", &len) && *p == '\n' && (uint64_t)(end - p) > len + 1 && len == key->len &&
         !memcmp(p + 1, key->data, len) && p[1 + len] == '\n';
    if (ok) p += len + 2;
    const char *meta = p; /* the counters and sleef lines, in the checksum */
    ok = ok && (size_t)(end - p) > 9 && !memcmp(p, "counters", 8);
    if (ok) p += 8;
#define X(name) \
    if (ok) { \
        char *stop; \
        errno = 0; \
        out->counters.name = strtoull(p, &stop, 10); \
        ok = !errno && stop > p && stop < end; \
        p = stop; \
    }
    SIMD_COUNTERS(X)
#undef X
    ok = ok && *p == '\n';
    if (ok) p++;
    ok = ok && read_number(&p, end, "sleef", &n) && n <= SIMD_OBJECT_MAX_SLEEF;
    for (uint64_t i = 0; ok && i < n; i++) {
        const char *word = ++p;
        while (p < end && *p != ' ' && *p != '\n') p++;
        size_t wl = (size_t)(p - word);
        ok = p < end && wl > 0 && wl < sizeof out->code.sleef[0];
        if (ok) memcpy(out->code.sleef[i], word, wl), out->code.sleef[i][wl] = 0;
    }
    out->code.n_sleef = (size_t)n;
    ok = ok && *p == '\n';
    if (ok) p++;
    size_t meta_len = ok ? (size_t)(p - meta) : 0;
    ok = ok && read_number(&p, end, "object", &len);
    if (ok) {
        char *stop;
        /* exactly the 16 lowercase hex digits store wrote */
        ok = end - p > 17 && *p == ' ' && strspn(p + 1, "0123456789abcdef") >= 16;
        sum = ok ? strtoull(p, &stop, 16) : 0;
        ok = ok && stop == p + 17 && *stop == '\n' && (uint64_t)(end - stop - 1) == len &&
             fnv64_more(fnv64(meta, meta_len), stop + 1, len) == sum;
        if (ok) strbuf_append_n(&out->code.object, stop + 1, len), ok = !out->code.object.failed;
    }
    free(data);
    if (ok) return DISK_LOADED;
    unlink(path); /* not an entry of this key, or damaged: rebuilt by the caller */
    return DISK_CORRUPT;
}

typedef struct {
    char name[NAME_MAX + 1];
    time_t mtime;
    uint64_t bytes;
} file_info;

static int older_first(const void *a, const void *b) {
    const file_info *x = a, *y = b;
    return x->mtime < y->mtime ? -1 : x->mtime > y->mtime;
}

/* "<16 hex digits>.tko", as entry_path names entries */
static bool entry_name(const char *name) {
    return strspn(name, HEX) == 16 && !strcmp(name + 16, SUFFIX);
}

/* ".tmp-PID-HEX", as store names its temporary files */
static bool temporary_name(const char *name) {
    size_t n = sizeof TEMPORARY_PREFIX - 1;
    if (strncmp(name, TEMPORARY_PREFIX, n)) return false;
    size_t pid = strspn(name + n, "0123456789");
    if (!pid || name[n + pid] != '-') return false;
    const char *hex = name + n + pid + 1;
    size_t digits = strspn(hex, HEX);
    return digits >= 1 && digits <= 16 && !hex[digits];
}

/* The files of dir with a `shaped` name that are ours (malloc'd; *n of
 * them): nothing else is counted, trimmed or cleared. */
static file_info *list_files(const char *dir, bool (*shaped)(const char *name), size_t *n) {
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) return NULL;
    size_t cap = 0;
    file_info *files = NULL;
    for (struct dirent *e; (e = readdir(d));) {
        if (!shaped(e->d_name)) continue;
        char path[PATH_MAX + NAME_MAX + 2];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) || !ours(&st)) continue;
        if (*n == cap) {
            file_info *g = realloc(files, (cap = cap ? 2 * cap : 64) * sizeof *files);
            if (!g) break;
            files = g;
        }
        snprintf(files[*n].name, sizeof files[*n].name, "%s", e->d_name);
        files[*n].mtime = st.st_mtime;
        files[(*n)++].bytes = (uint64_t)st.st_size;
    }
    closedir(d);
    return files;
}

static bool remove_file(const char *dir, const char *name) {
    char path[PATH_MAX + NAME_MAX + 2];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return unlink(path) == 0;
}

static void trim(const char *dir) {
    uint64_t mib;
    if (!disk_cache_max_mb(&mib)) return;
    uint64_t cap = mib << 20, total = 0;
    size_t n;
    file_info *files = list_files(dir, entry_name, &n);
    for (size_t i = 0; i < n; i++) total += files[i].bytes;
    if (total > cap) {
        qsort(files, n, sizeof *files, older_first);
        for (size_t i = 0; i < n && total > cap - cap / 4; i++)
            if (remove_file(dir, files[i].name)) total -= files[i].bytes;
    }
    free(files);
}

void disk_cache_store(const char *dir, const strbuf *key, const disk_entry *e) {
    char path[PATH_MAX + 32], tmp[PATH_MAX + 64];
    entry_path(path, sizeof path, dir, key);
    struct stat st;
    if (!lstat(path, &st) && !ours(&st)) return; /* not the cache's to replace */
    char meta[4096 + SIMD_OBJECT_MAX_SLEEF * 50];
    size_t m = (size_t)snprintf(meta, sizeof meta, "counters");
#define X(name) m += (size_t)snprintf(meta + m, sizeof meta - m, " %llu", (unsigned long long)e->counters.name);
    SIMD_COUNTERS(X)
#undef X
    m += (size_t)snprintf(meta + m, sizeof meta - m, "\nsleef %zu", e->code.n_sleef);
    for (size_t i = 0; i < e->code.n_sleef; i++)
        m += (size_t)snprintf(meta + m, sizeof meta - m, " %s", e->code.sleef[i]);
    m += (size_t)snprintf(meta + m, sizeof meta - m, "\n");
    /* 128: the magic and the "key" and "object" lines' words and numbers */
    if (m >= sizeof meta || key->len + m + e->code.object.len + 128 > DISK_CACHE_MAX_ENTRY_BYTES) return;
    snprintf(tmp, sizeof tmp, "%s/%s%ld-%" PRIx64, dir, TEMPORARY_PREFIX, (long)getpid(),
             fnv64(key->data, key->len) ^ (uint64_t)clock());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!f) {
        if (fd >= 0) close(fd);
        return;
    }
    fputs(MAGIC, f);
    fprintf(f, "key %zu\n", key->len);
    fwrite(key->data, 1, key->len, f);
    fputc('\n', f);
    fwrite(meta, 1, m, f);
    fprintf(f, "object %zu %016" PRIx64 "\n", e->code.object.len,
            fnv64_more(fnv64(meta, m), e->code.object.data, e->code.object.len));
    fwrite(e->code.object.data, 1, e->code.object.len, f);
    bool ok = !ferror(f);
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path)) unlink(tmp);
    trim(dir);
}

void disk_cache_stats(const char *dir, uint64_t *entries, uint64_t *bytes) {
    size_t n;
    file_info *files = list_files(dir, entry_name, &n);
    *entries = n;
    *bytes = 0;
    for (size_t i = 0; i < n; i++) *bytes += files[i].bytes;
    free(files);
}

/* Removes the files list_files(dir, shaped) names; how many went. */
static uint64_t remove_files(const char *dir, bool (*shaped)(const char *name)) {
    size_t n;
    uint64_t removed = 0;
    file_info *files = list_files(dir, shaped, &n);
    for (size_t i = 0; i < n; i++) removed += remove_file(dir, files[i].name);
    free(files);
    return removed;
}

uint64_t disk_cache_clear(const char *dir) {
    uint64_t removed = remove_files(dir, entry_name);
    remove_files(dir, temporary_name); /* what a process killed while writing an entry left behind */
    return removed;
}
