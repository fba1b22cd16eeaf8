/* file_write: a file is replaced through a temporary file renamed into place;
 * a failure (a full device, a file-size limit, a read-only directory) never
 * removes or changes the existing file and leaves no temporary file behind;
 * non-regular targets (/dev/null, /dev/full, a FIFO) are written in place
 * and never removed; symbolic links are followed; permission bits are kept.
 * Also file_read on what file_write wrote. */
#include "base/file.h"
#include "diag_util.h"
#include "harness.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static tilec_context *ctx;
static char dir[64];

static char *in_dir(char *buf, size_t size, const char *name) {
    snprintf(buf, size, "%s/%s", dir, name);
    return buf;
}

static tilec_status write_text(const char *path, const char *text) {
    file_piece pieces[2] = {{text, strlen(text) / 2}, {text + strlen(text) / 2, strlen(text) - strlen(text) / 2}};
    return file_write(ctx, path, pieces, 2);
}

/* Whether `path` holds exactly `text`. */
static bool holds(const char *path, const char *text) {
    char *data;
    size_t n;
    if (file_read(ctx, path, &data, &n) != TILEC_OK) return false;
    bool same = n == strlen(text) && !memcmp(data, text, n);
    tilec_free(ctx, data);
    return same;
}

/* Entries of the directory whose names start with '.', but . and ..: the
 * temporary files a failed write must not leave. */
static int hidden_entries(const char *d) {
    DIR *h = opendir(d);
    int n = 0;
    if (!h) return -1;
    for (struct dirent *e; (e = readdir(h));)
        if (e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(h);
    return n;
}

static mode_t mode_of(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? st.st_mode : 0;
}

static void test_replace(void) {
    char p[128];
    in_dir(p, sizeof p, "a.txt");
    CHECK(write_text(p, "first contents") == TILEC_OK && holds(p, "first contents"));
    /* A new file gets 0666 minus the umask. */
    mode_t mask = umask(022);
    umask(mask);
    CHECK((mode_of(p) & 0777) == (0666 & ~mask));
    /* An existing file keeps its permission bits. */
    CHECK(chmod(p, 0640) == 0);
    CHECK(write_text(p, "second") == TILEC_OK && holds(p, "second"));
    CHECK((mode_of(p) & 07777) == 0640);
    /* Empty pieces and no pieces write an empty file. */
    CHECK(file_write(ctx, p, NULL, 0) == TILEC_OK && holds(p, ""));
    CHECK(hidden_entries(dir) == 0);
    /* A bare name is relative to the working directory. */
    char cwd[256];
    CHECK(getcwd(cwd, sizeof cwd) != NULL && chdir(dir) == 0);
    CHECK(write_text("bare.txt", "bare") == TILEC_OK && holds("bare.txt", "bare") && hidden_entries(".") == 0);
    CHECK(unlink("bare.txt") == 0 && chdir(cwd) == 0);
    tilec_diag_clear(ctx);
}

static void test_symlink(void) {
    char target[128], link[128];
    in_dir(target, sizeof target, "target.txt");
    in_dir(link, sizeof link, "link.txt");
    CHECK(write_text(target, "old") == TILEC_OK && symlink("target.txt", link) == 0);
    CHECK(write_text(link, "through the link") == TILEC_OK);
    struct stat st;
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode)); /* the link stays a link */
    CHECK(holds(target, "through the link"));
    CHECK(hidden_entries(dir) == 0);
    unlink(link);
    unlink(target);
    tilec_diag_clear(ctx);
}

/* A write that fails midway (the file-size limit, as a full disk would) keeps
 * the old file and removes its temporary file. */
static void test_failed_write_keeps_the_file(void) {
    char p[128];
    in_dir(p, sizeof p, "kept.txt");
    CHECK(write_text(p, "precious") == TILEC_OK);
    static char big[4096];
    memset(big, 'x', sizeof big);
    big[sizeof big - 1] = 0;
    struct rlimit old, small = {1024, 0};
    CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0);
    small.rlim_max = old.rlim_max;
    void (*handler)(int) = signal(SIGXFSZ, SIG_IGN); /* EFBIG instead of the signal */
    CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0);
    tilec_status st = write_text(p, big);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, handler);
    CHECK(st == TILEC_E_IO && !strcmp(last_diag_code(ctx), "TILEC-IO01"));
    CHECK(has_diag_in(ctx, "TILEC-IO01", "cannot write: File too large; the existing file is unchanged"));
    CHECK(holds(p, "precious"));
    CHECK(hidden_entries(dir) == 0);
    /* A new file that cannot be written is not created. */
    char fresh[128];
    in_dir(fresh, sizeof fresh, "fresh.txt");
    CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0);
    signal(SIGXFSZ, SIG_IGN);
    st = write_text(fresh, big);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, handler);
    CHECK(st == TILEC_E_IO && has_diag_in(ctx, "TILEC-IO01", "no file was created"));
    CHECK(access(fresh, F_OK) != 0 && hidden_entries(dir) == 0);
    unlink(p);
    tilec_diag_clear(ctx);
}

/* Whether replacing `path` by "replaced" is refused with a message that
 * contains `why`.  Root ignores permissions, so as root the attempt runs in a
 * child process as user `nobody`; a note says when that is not possible. */
static void check_refused_unprivileged(const char *path, const char *why) {
    bool as_root = geteuid() == 0;
    pid_t child = as_root ? fork() : 0;
    if (child == 0) {
        bool dropped = !as_root || (setgid(65534) == 0 && setuid(65534) == 0);
        tilec_diag_clear(ctx);
        bool refused = write_text(path, "replaced") == TILEC_E_IO && has_diag_in(ctx, "TILEC-IO01", why);
        if (as_root) _exit(!dropped ? 2 : refused ? 0 : 1);
        CHECK_MSG(refused, "%s: not refused with '%s'", path, why);
        return;
    }
    int status = 0;
    CHECK(child > 0 && waitpid(child, &status, 0) == child);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) != 1, "%s: not refused with '%s'", path, why);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 2) fprintf(stderr, "note: could not drop root; skipped\n");
}

/* The directory holds the temporary file: a read-only one refuses the write
 * with a clear message and the file stays as it was. */
static void test_read_only_directory(void) {
    char sub[128], p[160];
    in_dir(sub, sizeof sub, "ro");
    snprintf(p, sizeof p, "%s/kept.txt", sub);
    CHECK(mkdir(sub, 0755) == 0 && write_text(p, "read-only dir") == TILEC_OK);
    CHECK(chmod(p, 0666) == 0 && chmod(sub, 0555) == 0 && chmod(dir, 0711) == 0);
    check_refused_unprivileged(p, "cannot create a temporary file next to it");
    check_refused_unprivileged(p, "Permission denied; the existing file is unchanged");
    CHECK(holds(p, "read-only dir") && hidden_entries(sub) == 0);
    chmod(sub, 0755);
    chmod(dir, 0700);
    unlink(p);
    rmdir(sub);
    tilec_diag_clear(ctx);
}

/* A file its writer may not write is not replaced, though renaming over it in
 * a writable directory would work (the rename would also drop its mode). */
static void test_read_only_file(void) {
    char sub[128], p[160];
    in_dir(sub, sizeof sub, "rw");
    snprintf(p, sizeof p, "%s/read-only.txt", sub);
    CHECK(mkdir(sub, 0777) == 0 && chmod(sub, 0777) == 0 && chmod(dir, 0711) == 0);
    CHECK(write_text(p, "not mine to change") == TILEC_OK && chmod(p, 0444) == 0);
    check_refused_unprivileged(p, "cannot write: Permission denied; the existing file is unchanged");
    CHECK(holds(p, "not mine to change") && hidden_entries(sub) == 0);
    chmod(dir, 0700);
    unlink(p);
    rmdir(sub);
    tilec_diag_clear(ctx);
}

/* Devices are written in place and never removed: /dev/null takes anything,
 * /dev/full reports a full disk; both are still there afterwards. */
static void test_devices(void) {
    struct stat st;
    CHECK(write_text("/dev/null", "discarded") == TILEC_OK);
    CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
    if (stat("/dev/full", &st) != 0) {
        fprintf(stderr, "note: no /dev/full; skipped\n");
        return;
    }
    tilec_diag_clear(ctx);
    CHECK(write_text("/dev/full", "nowhere to go") == TILEC_E_IO);
    CHECK(has_diag_in(ctx, "TILEC-IO01", "/dev/full: cannot write: No space left on device"));
    CHECK(stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode));
    /* A directory is not written into. */
    tilec_diag_clear(ctx);
    CHECK(write_text(dir, "x") == TILEC_E_IO && has_diag_in(ctx, "TILEC-IO01", "Is a directory"));
    tilec_diag_clear(ctx);
}

/* A FIFO is written in place (a reader gets the bytes) and stays a FIFO. */
static void test_fifo(void) {
    char fifo[128], copy[128];
    in_dir(fifo, sizeof fifo, "fifo");
    in_dir(copy, sizeof copy, "fifo-copy.txt");
    CHECK(mkfifo(fifo, 0600) == 0);
    pid_t reader = fork();
    if (reader == 0) {
        FILE *in = fopen(fifo, "rb"), *out = fopen(copy, "wb");
        char buf[256];
        size_t n = in ? fread(buf, 1, sizeof buf, in) : 0;
        _exit(in && out && fwrite(buf, 1, n, out) == n && fclose(out) == 0 ? 0 : 1);
    }
    CHECK(reader > 0 && write_text(fifo, "through a pipe") == TILEC_OK);
    int status = 1;
    CHECK(waitpid(reader, &status, 0) == reader && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(holds(copy, "through a pipe"));
    struct stat st;
    CHECK(stat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
    CHECK(hidden_entries(dir) == 0);
    unlink(fifo);
    unlink(copy);
    tilec_diag_clear(ctx);
}

static void test_missing_directory(void) {
    char p[128];
    in_dir(p, sizeof p, "no/such/dir.txt");
    CHECK(write_text(p, "x") == TILEC_E_IO && has_diag_in(ctx, "TILEC-IO01", "No such file or directory"));
    /* A dangling symbolic link cannot be resolved: an error, the link stays. */
    char link[128];
    in_dir(link, sizeof link, "dangling");
    CHECK(symlink("no/such/target", link) == 0);
    CHECK(write_text(link, "x") == TILEC_E_IO && has_diag_in(ctx, "TILEC-IO01", "cannot resolve the symbolic link"));
    struct stat st;
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    unlink(link);
    tilec_diag_clear(ctx);
}

static void test_allocation_failure(void) {
    char p[128];
    in_dir(p, sizeof p, "nomem.txt");
    tilec_context_fail_allocation_after(ctx, 0);
    CHECK(write_text(p, "x") == TILEC_E_NOMEM);
    tilec_context_fail_allocation_after(ctx, -1);
    CHECK(access(p, F_OK) != 0 && hidden_entries(dir) == 0);
    tilec_diag_clear(ctx);
}

int main(void) {
    CHECK(tilec_context_create(NULL, &ctx) == TILEC_OK);
    strcpy(dir, "/tmp/tilec-file-XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    test_replace();
    test_symlink();
    test_failed_write_keeps_the_file();
    test_read_only_directory();
    test_read_only_file();
    test_devices();
    test_fifo();
    test_missing_directory();
    test_allocation_failure();
    char p[128];
    unlink(in_dir(p, sizeof p, "a.txt"));
    CHECK(rmdir(dir) == 0);
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
