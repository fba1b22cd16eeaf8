/* The disk cache's entries (src/simd/disk_cache.c): an entry reads back
 * exactly as stored (counters, SLEEF names, object bytes); every truncation
 * and every single-byte change of the file is detected (DISK_CORRUPT, the
 * file removed), never loaded — a damaged counter or symbol name would size
 * a buffer or bind a call wrongly; another key with the same file is a
 * mismatch; TILEC_CACHE=memory and =0 mean no directory.  A sparse 2 GiB
 * file named like the entry is removed without being read (the peak memory
 * stays far below its size: no timing involved).  A directory writable by
 * others, a regular file or a path below one is refused; TILEC_CACHE_MAX_MB
 * takes decimal digits whose bytes fit 64 bits, nothing else. */
#include "harness.h"
#include "simd/disk_cache.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static char *only_file(void) {
    static char path[256];
    char cmd[128];
    snprintf(cmd, sizeof cmd, "ls %s/*.tko 2>/dev/null", dir);
    FILE *p = popen(cmd, "r");
    path[0] = 0;
    if (p && fgets(path, sizeof path, p)) path[strcspn(path, "\n")] = 0;
    if (p) pclose(p);
    return path[0] ? path : NULL;
}

int main(void) {
    tilec_context *ctx;
    if (tilec_context_create(NULL, &ctx)) return 1;
    snprintf(dir, sizeof dir, "/tmp/tilec-disk-cache-XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    setenv("TILEC_CACHE_DIR", dir, 1);
    unsetenv("TILEC_CACHE");
    char got_dir[PATH_MAX];
    CHECK(disk_cache_dir(got_dir) == DISK_DIR_USABLE && !strcmp(got_dir, dir));
    char id[128];
    CHECK(disk_cache_build_id(id, sizeof id) && strlen(id) >= 16);

    strbuf key;
    strbuf_init(&key, ctx);
    strbuf_append(&key, "a key\nwith lines and \x01 bytes");
    disk_entry e;
    memset(&e, 0, sizeof e);
    strbuf_init(&e.code.object, ctx);
    for (int i = 0; i < 300; i++) strbuf_append_n(&e.code.object, (const char *)&i, 1);
    e.counters.gathers = 7, e.counters.workspace_bytes = 4096, e.counters.math_calls = 3;
    snprintf(e.code.sleef[0], sizeof e.code.sleef[0], "Sleef_expf16_u10");
    snprintf(e.code.sleef[1], sizeof e.code.sleef[1], "Sleef_logf16_u10");
    e.code.n_sleef = 2;
    disk_cache_store(dir, &key, &e);
    const char *path = only_file();
    CHECK(path != NULL);
    if (!path) TEST_MAIN_END();
    size_t size = 0;
    char *good = read_file(path, &size);
    CHECK(good && size > 300);

    disk_entry r;
    memset(&r, 0, sizeof r);
    strbuf_init(&r.code.object, ctx);
    CHECK(disk_cache_load(dir, &key, &r) == DISK_LOADED);
    CHECK(r.counters.gathers == 7 && r.counters.workspace_bytes == 4096 && r.counters.math_calls == 3 &&
          r.code.n_sleef == 2 && !strcmp(r.code.sleef[1], "Sleef_logf16_u10") && r.code.object.len == 300 &&
          !memcmp(r.code.object.data, e.code.object.data, 300));

    /* another key that lands in the same file name is a mismatch */
    strbuf other;
    strbuf_init(&other, ctx);
    strbuf_append(&other, "another key");
    CHECK(disk_cache_load(dir, &other, &r) == DISK_ABSENT); /* its own file name: absent */

    /* every truncation and every one-byte change: detected, removed */
    unsigned undetected = 0, trials = 0;
    for (size_t at = 0; at < size && good; at += (at < 200 ? 1 : 7)) {
        for (int kind = 0; kind < 2; kind++) {
            FILE *f = fopen(path, "wb");
            if (!f) continue;
            if (kind == 0) {
                fwrite(good, 1, at, f); /* truncated to `at` bytes */
            } else {
                char c = (char)(good[at] ^ (1 << (at % 8)));
                fwrite(good, 1, at, f), fputc(c, f), fwrite(good + at + 1, 1, size - at - 1, f);
            }
            fclose(f);
            strbuf_free(&r.code.object);
            strbuf_init(&r.code.object, ctx);
            trials++;
            if (disk_cache_load(dir, &key, &r) != DISK_CORRUPT || access(path, F_OK) == 0) {
                undetected++;
                fprintf(stderr, "undetected: %s at %zu ('%c')\n", kind ? "flip" : "truncate", at, good[at]);
            }
        }
    }
    CHECK_MSG(undetected == 0 && trials > 200, "%u of %u damaged entries were not detected", undetected, trials);

    /* a 2 GiB entry: rejected by its size, before any of it is read */
    if (good) {
        FILE *f = fopen(path, "wb");
        if (f) fwrite(good, 1, size, f), fclose(f);
        CHECK(truncate(path, (off_t)2 << 30) == 0);
        struct rusage before, after;
        getrusage(RUSAGE_SELF, &before);
        strbuf_free(&r.code.object);
        strbuf_init(&r.code.object, ctx);
        CHECK(disk_cache_load(dir, &key, &r) == DISK_CORRUPT && access(path, F_OK) != 0);
        getrusage(RUSAGE_SELF, &after);
        CHECK_MSG(after.ru_maxrss - before.ru_maxrss < 64 << 10, "loading a 2 GiB entry raised the peak by %ld KiB",
                  after.ru_maxrss - before.ru_maxrss);
    }

    setenv("TILEC_CACHE", "memory", 1);
    CHECK(disk_cache_dir(got_dir) == DISK_DIR_OFF);
    setenv("TILEC_CACHE", "0", 1);
    CHECK(disk_cache_dir(got_dir) == DISK_DIR_OFF);
    unsetenv("TILEC_CACHE");
    /* a directory others can write, or none at all, is refused (SIMD-C01) */
    chmod(dir, 0770);
    CHECK(disk_cache_dir(got_dir) == DISK_DIR_REFUSED);
    chmod(dir, 0700);
    CHECK(disk_cache_dir(got_dir) == DISK_DIR_USABLE);
    char file[96];
    snprintf(file, sizeof file, "%s/plain", dir);
    FILE *plain = fopen(file, "w");
    if (plain) fclose(plain);
    setenv("TILEC_CACHE_DIR", file, 1);
    CHECK(disk_cache_dir(got_dir) == DISK_DIR_REFUSED);
    snprintf(file + strlen(file), sizeof file - strlen(file), "/below");
    setenv("TILEC_CACHE_DIR", file, 1);
    CHECK(disk_cache_dir(got_dir) == DISK_DIR_REFUSED);
    setenv("TILEC_CACHE_DIR", dir, 1);
    *strrchr(file, '/') = 0;
    unlink(file);

    /* TILEC_CACHE_MAX_MB: decimal digits whose bytes fit 64 bits, else no cap
     * (SIMD-C02) */
    static const struct {
        const char *text;
        bool ok;
        uint64_t mib;
    } caps[] = {{"", true, 512},   {"0", true, 0},     {"17592186044415", true, 17592186044415u},
                {"abc", false, 0}, {"-5", false, 0},   {"17592186044416", false, 0},
                {" 5", false, 0},  {"5x", false, 0},   {"99999999999999999999", false, 0}};
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        uint64_t mib = 0;
        setenv("TILEC_CACHE_MAX_MB", caps[i].text, 1);
        bool ok = disk_cache_max_mb(&mib);
        CHECK_MSG(ok == caps[i].ok && (!ok || mib == caps[i].mib), "TILEC_CACHE_MAX_MB='%s': %d %llu", caps[i].text,
                  ok, (unsigned long long)mib);
    }
    unsetenv("TILEC_CACHE_MAX_MB");
    uint64_t mib = 0;
    CHECK(disk_cache_max_mb(&mib) && mib == 512);

    uint64_t n, bytes;
    disk_cache_store(dir, &key, &e);
    disk_cache_stats(dir, &n, &bytes);
    CHECK(n == 1 && bytes == size);
    CHECK(disk_cache_clear(dir) == 1);
    disk_cache_stats(dir, &n, &bytes);
    CHECK(n == 0 && bytes == 0);

    free(good);
    strbuf_free(&r.code.object);
    strbuf_free(&e.code.object);
    strbuf_free(&key);
    strbuf_free(&other);
    rmdir(dir);
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
