/* replay.c — the `make test` side of the fuzz targets: a main that feeds
 * every file named, and every file under every directory named (recursively,
 * in name order, dot files skipped), to the target's LLVMFuzzerTestOneInput
 * once, as libFuzzer does when it loads a corpus.  tests/CMakeLists.txt links
 * it with each tests/fuzz/fuzz_*.c listed in the Makefile's FUZZ_SEEDS table
 * into a ctest fuzz.NAME over that target's seeds, in the normal (gcc) build:
 * the committed corpora and the crash reproducers kept in them run on every
 * `make test` without clang, and under ASan/UBSan in `make test-asan`.
 * A target's checks abort, so a failing input fails the test; the file being
 * fed is printed first so the log names it.  Finding no input at all fails
 * too: a moved corpus must not make the test vacuous. */
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads the whole file into a malloc'ed buffer (never NULL on success, even
 * for an empty file); false when it cannot. */
static bool slurp(const char *path, uint8_t **data, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    size_t capacity = 4096, n = 0;
    uint8_t *buf = malloc(capacity);
    size_t got;
    while (buf && (got = fread(buf + n, 1, capacity - n, f)) > 0) {
        n += got;
        if (n == capacity) {
            uint8_t *bigger = realloc(buf, capacity *= 2);
            if (!bigger) free(buf);
            buf = bigger;
        }
    }
    bool ok = buf && !ferror(f);
    fclose(f);
    if (!ok) {
        free(buf);
        return false;
    }
    *data = buf;
    *size = n;
    return true;
}

static int skip_dot_files(const struct dirent *e) { return e->d_name[0] != '.'; }

/* Feeds `path` (a file, or a directory walked recursively); counts the inputs
 * fed in *fed; false after an error it printed. */
static bool replay(const char *path, size_t *fed) {
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: cannot stat %s\n", path);
        return false;
    }
    if (S_ISDIR(st.st_mode)) {
        struct dirent **entries;
        int n = scandir(path, &entries, skip_dot_files, alphasort);
        if (n < 0) {
            fprintf(stderr, "replay: cannot list %s\n", path);
            return false;
        }
        bool ok = true;
        for (int i = 0; i < n; i++) {
            size_t len = strlen(path) + strlen(entries[i]->d_name) + 2;
            char *child = malloc(len);
            if (child) snprintf(child, len, "%s/%s", path, entries[i]->d_name);
            ok = child && replay(child, fed) && ok;
            free(child);
            free(entries[i]);
        }
        free(entries);
        return ok;
    }
    uint8_t *data;
    size_t size;
    if (!slurp(path, &data, &size)) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        return false;
    }
    printf("replay: %s (%zu bytes)\n", path, size);
    fflush(stdout);
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    ++*fed;
    return true;
}

int main(int argc, char **argv) {
    size_t fed = 0;
    bool ok = true;
    for (int i = 1; i < argc; i++) ok = replay(argv[i], &fed) && ok;
    printf("replay: %zu inputs\n", fed);
    if (fed == 0) fprintf(stderr, "replay: no input found\n");
    return ok && fed > 0 ? 0 : 1;
}
