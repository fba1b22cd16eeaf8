/* disk_cache.c — the on-disk kernel cache (disk_cache.h).  File layout:
 *   "TILEC-KERNEL 1\n"
 *   "key LEN\n" LEN bytes "\n"
 *   "counters C1 C2 ...\n"              (SIMD_COUNTERS order)
 *   "sleef N NAME1 NAME2 ...\n"
 *   "object LEN FNV64\n" LEN bytes
 * FNV64 covers the counters and sleef lines and the object bytes: a
 * damaged counter (workspace_bytes sizes a buffer) or symbol name is caught
 * like damaged code. */
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char MAGIC[] = "TILEC-KERNEL 1\n";
static const char SUFFIX[] = ".tko";

/* mkdir -p */
static bool make_dirs(char *path) {
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        bool ok = mkdir(path, 0755) == 0 || errno == EEXIST;
        *p = '/';
        if (!ok) return false;
    }
    return mkdir(path, 0755) == 0 || errno == EEXIST;
}

bool disk_cache_dir(char dir[PATH_MAX]) {
    const char *mode = getenv("TILEC_CACHE");
    if (mode && (!strcmp(mode, "0") || !strcmp(mode, "memory"))) return false;
    const char *explicit_dir = getenv("TILEC_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n = explicit_dir && *explicit_dir ? snprintf(dir, PATH_MAX, "%s", explicit_dir)
            : xdg && *xdg               ? snprintf(dir, PATH_MAX, "%s/tilec", xdg)
            : home && *home             ? snprintf(dir, PATH_MAX, "%s/.cache/tilec", home)
                                        : -1;
    return n > 0 && n < PATH_MAX && make_dirs(dir);
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

disk_lookup disk_cache_load(const char *dir, const strbuf *key, disk_entry *out) {
    char path[PATH_MAX + 32];
    entry_path(path, sizeof path, dir, key);
    FILE *f = fopen(path, "rb");
    if (!f) return DISK_ABSENT;
    struct stat st;
    /* NUL-terminated, so no number parse can run past the end */
    char *data = fstat(fileno(f), &st) == 0 && st.st_size > 0 ? malloc((size_t)st.st_size + 1) : NULL;
    bool ok = data && fread(data, 1, (size_t)st.st_size, f) == (size_t)st.st_size;
    if (data) data[st.st_size] = 0;
    fclose(f);
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

/* The entries of dir (malloc'd; *n of them). */
static file_info *list_entries(const char *dir, size_t *n) {
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) return NULL;
    size_t cap = 0;
    file_info *files = NULL;
    for (struct dirent *e; (e = readdir(d));) {
        size_t l = strlen(e->d_name);
        if (l <= sizeof SUFFIX - 1 || strcmp(e->d_name + l - (sizeof SUFFIX - 1), SUFFIX)) continue;
        char path[PATH_MAX + NAME_MAX + 2];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st)) continue;
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

static void trim(const char *dir) {
    const char *cap_text = getenv("TILEC_CACHE_MAX_MB");
    uint64_t cap = (cap_text && *cap_text ? strtoull(cap_text, NULL, 10) : 512) << 20, total = 0;
    size_t n;
    file_info *files = list_entries(dir, &n);
    for (size_t i = 0; i < n; i++) total += files[i].bytes;
    if (total > cap) {
        qsort(files, n, sizeof *files, older_first);
        for (size_t i = 0; i < n && total > cap - cap / 4; i++) {
            char path[PATH_MAX + NAME_MAX + 2];
            snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
            if (!unlink(path)) total -= files[i].bytes;
        }
    }
    free(files);
}

void disk_cache_store(const char *dir, const strbuf *key, const disk_entry *e) {
    char path[PATH_MAX + 32], tmp[PATH_MAX + 64];
    entry_path(path, sizeof path, dir, key);
    snprintf(tmp, sizeof tmp, "%s/.tmp-%ld-%" PRIx64, dir, (long)getpid(), fnv64(key->data, key->len) ^ (uint64_t)clock());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!f) {
        if (fd >= 0) close(fd);
        return;
    }
    char meta[4096 + SIMD_OBJECT_MAX_SLEEF * 50];
    size_t m = (size_t)snprintf(meta, sizeof meta, "counters");
#define X(name) m += (size_t)snprintf(meta + m, sizeof meta - m, " %llu", (unsigned long long)e->counters.name);
    SIMD_COUNTERS(X)
#undef X
    m += (size_t)snprintf(meta + m, sizeof meta - m, "\nsleef %zu", e->code.n_sleef);
    for (size_t i = 0; i < e->code.n_sleef; i++) m += (size_t)snprintf(meta + m, sizeof meta - m, " %s", e->code.sleef[i]);
    m += (size_t)snprintf(meta + m, sizeof meta - m, "\n");
    fputs(MAGIC, f);
    fprintf(f, "key %zu\n", key->len);
    fwrite(key->data, 1, key->len, f);
    fputc('\n', f);
    fwrite(meta, 1, m, f);
    fprintf(f, "object %zu %016" PRIx64 "\n", e->code.object.len,
            fnv64_more(fnv64(meta, m), e->code.object.data, e->code.object.len));
    fwrite(e->code.object.data, 1, e->code.object.len, f);
    bool ok = !ferror(f) && m < sizeof meta;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path)) unlink(tmp);
    trim(dir);
}

void disk_cache_stats(const char *dir, uint64_t *entries, uint64_t *bytes) {
    size_t n;
    file_info *files = list_entries(dir, &n);
    *entries = n;
    *bytes = 0;
    for (size_t i = 0; i < n; i++) *bytes += files[i].bytes;
    free(files);
}

uint64_t disk_cache_clear(const char *dir) {
    size_t n;
    uint64_t removed = 0;
    file_info *files = list_entries(dir, &n);
    for (size_t i = 0; i < n; i++) {
        char path[PATH_MAX + NAME_MAX + 2];
        snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
        removed += unlink(path) == 0;
    }
    free(files);
    /* and what a process killed while writing an entry left behind */
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));)
        if (!strncmp(e->d_name, ".tmp-", 5)) {
            char path[PATH_MAX + NAME_MAX + 2];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    if (d) closedir(d);
    return removed;
}
