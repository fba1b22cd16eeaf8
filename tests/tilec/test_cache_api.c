/* The disk kernel cache through the public API (tilec/cache.h), in a
 * scratch TILEC_CACHE_DIR: tilec_cache_dir names it (off with
 * TILEC_CACHE=memory, refused when it is a regular file); compiling two
 * kernels makes two entries, which tilec_cache_stats counts with their
 * bytes and tilec_cache_clear removes, leaving the directory's other files
 * alone; tilec_cache_max_mb reads TILEC_CACHE_MAX_MB (512 unset, false when
 * malformed); tilec_cache_open creates, appends and reads a file of the
 * directory (mode 0600) but never through a symlink; tilec_cache_build_id
 * gives this build's ID in hex, false when the buffer is too small. */
#include "harness.h"

#include "tilec/cache.h"
#include "tilec/tilec.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static tilec_context *ctx;
static char dir[64];

/* Compiles a kernel storing `value` (each value its own code: its own
 * entry). */
static void compile_fill(const char *value) {
    char text[256];
    snprintf(text, sizeof text,
             "kernel @fill(%%Y: view<f32>[Y.0=64]) {\n"
             "  parallel (%%i: i=64) {\n"
             "    %%v = const f32 %s\n"
             "    store %%Y[%%i], %%v\n"
             "  }\n"
             "}\n",
             value);
    tir_module *m = NULL;
    tilec_kernel *k = NULL;
    tilec_compile_options o = tilec_compile_options_default();
    o.threads = 1;
    CHECK(tir_parse(ctx, text, strlen(text), "fill.tir", NULL, 0, &m) == TILEC_OK &&
          tilec_compile(ctx, tir_module_func(m, 0), &o, &k) == TILEC_OK);
    if (k) CHECK_STR_CONTAINS(tilec_kernel_realization(k), "cache=miss");
    tilec_kernel_destroy(k);
    tir_module_destroy(m);
}

/* The bytes of the .tko files in dir (from `ls`, not the cache). */
static uint64_t tko_bytes(uint64_t *count) {
    char cmd[160], line[512];
    snprintf(cmd, sizeof cmd, "ls %s/*.tko 2>/dev/null", dir);
    FILE *p = popen(cmd, "r");
    uint64_t bytes = 0;
    *count = 0;
    while (p && fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = 0;
        struct stat st;
        if (!stat(line, &st)) bytes += (uint64_t)st.st_size, ++*count;
    }
    if (p) pclose(p);
    return bytes;
}

static void test_entries(void) {
    char got[TILEC_CACHE_DIR_MAX];
    CHECK(tilec_cache_dir(got) == TILEC_CACHE_USABLE && !strcmp(got, dir));
    uint64_t entries = 99, bytes = 99, files;
    tilec_cache_stats(dir, &entries, &bytes);
    CHECK(entries == 0 && bytes == 0);

    compile_fill("1.0");
    compile_fill("2.0");
    uint64_t on_disk = tko_bytes(&files);
    tilec_cache_stats(dir, &entries, &bytes);
    CHECK_MSG(entries == 2 && files == 2, "%llu entries, %llu files", (unsigned long long)entries,
              (unsigned long long)files);
    CHECK_MSG(bytes == on_disk && bytes > 0, "%llu bytes, %llu on disk", (unsigned long long)bytes,
              (unsigned long long)on_disk);

    /* a file the cache did not make is neither counted nor removed */
    char notes[128];
    snprintf(notes, sizeof notes, "%s/notes.txt", dir);
    FILE *f = fopen(notes, "w");
    CHECK(f && fputs("mine\n", f) >= 0);
    if (f) fclose(f);
    tilec_cache_stats(dir, &entries, &bytes);
    CHECK(entries == 2 && bytes == on_disk);
    CHECK(tilec_cache_clear(dir) == 2);
    tilec_cache_stats(dir, &entries, &bytes);
    CHECK(entries == 0 && bytes == 0 && tko_bytes(&files) == 0 && files == 0);
    CHECK(access(notes, F_OK) == 0);
    CHECK(tilec_cache_clear(dir) == 0);
    unlink(notes);
}

static void test_dir_states(void) {
    char got[TILEC_CACHE_DIR_MAX];
    setenv("TILEC_CACHE", "memory", 1);
    CHECK(tilec_cache_dir(got) == TILEC_CACHE_OFF);
    setenv("TILEC_CACHE", "0", 1);
    CHECK(tilec_cache_dir(got) == TILEC_CACHE_OFF);
    unsetenv("TILEC_CACHE");
    char file[128];
    snprintf(file, sizeof file, "%s/a-file", dir);
    FILE *f = fopen(file, "w");
    if (f) fclose(f);
    setenv("TILEC_CACHE_DIR", file, 1); /* SIMD-C01 on stderr */
    CHECK(tilec_cache_dir(got) == TILEC_CACHE_REFUSED);
    setenv("TILEC_CACHE_DIR", dir, 1);
    unlink(file);
}

static void test_cap(void) {
    uint64_t mib = 0;
    unsetenv("TILEC_CACHE_MAX_MB");
    CHECK(tilec_cache_max_mb(&mib) && mib == 512);
    setenv("TILEC_CACHE_MAX_MB", "64", 1);
    CHECK(tilec_cache_max_mb(&mib) && mib == 64);
    setenv("TILEC_CACHE_MAX_MB", "12x", 1); /* SIMD-C02 on stderr */
    CHECK(!tilec_cache_max_mb(&mib));
    unsetenv("TILEC_CACHE_MAX_MB");
}

static void test_open(void) {
    char path[128], link[128], line[64] = "";
    snprintf(path, sizeof path, "%s/tune.tsv", dir);
    snprintf(link, sizeof link, "%s/linked.tsv", dir);
    CHECK(tilec_cache_open(path, "r") == NULL); /* not there yet */
    for (int i = 0; i < 2; i++) {
        FILE *f = tilec_cache_open(path, "a");
        CHECK(f && fprintf(f, "line %d\n", i) > 0);
        if (f) fclose(f);
    }
    struct stat st;
    CHECK(!stat(path, &st) && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600);
    FILE *f = tilec_cache_open(path, "r");
    CHECK(f && fgets(line, sizeof line, f) && !strcmp(line, "line 0\n") && fgets(line, sizeof line, f) &&
          !strcmp(line, "line 1\n"));
    if (f) fclose(f);
    CHECK(symlink(path, link) == 0);
    CHECK(tilec_cache_open(link, "r") == NULL && tilec_cache_open(link, "a") == NULL);
    uint64_t entries, bytes;
    tilec_cache_stats(dir, &entries, &bytes);
    CHECK(entries == 0 && tilec_cache_clear(dir) == 0 && access(path, F_OK) == 0); /* not an entry */
    unlink(link);
    unlink(path);
}

static void test_build_id(void) {
    char id[128] = "", again[128] = "";
    CHECK(tilec_cache_build_id(id, sizeof id) && strlen(id) >= 16 && strlen(id) % 2 == 0);
    for (const char *p = id; *p; p++) CHECK(isxdigit((unsigned char)*p) && !isupper((unsigned char)*p));
    size_t n = strlen(id);
    CHECK(tilec_cache_build_id(again, n + 1) && !strcmp(again, id)); /* exactly fits */
    CHECK(!tilec_cache_build_id(again, n));                           /* does not */
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    snprintf(dir, sizeof dir, "/tmp/tilec-cache-api-XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    setenv("TILEC_CACHE_DIR", dir, 1);
    unsetenv("TILEC_CACHE");
    test_entries();
    test_dir_states();
    test_cap();
    test_open();
    test_build_id();
    rmdir(dir);
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
