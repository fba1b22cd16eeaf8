/* test_host.c — the host description (base/host.h): the profiles and
 * TILEC_HOST's grammar, every malformed form refused with a message that
 * names it, the ISA helpers, and the native caches read from a sysfs-shaped
 * directory. */
#include "base/host.h"

#include "harness.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_profiles(void) {
    char err[256];
    host_desc d;
    CHECK(host_describe("zen4", &d, err, sizeof err));
    CHECK(!strcmp(d.name, "zen4") && !strcmp(d.cpu, "znver4") && d.l1d_bytes == 32u << 10 &&
          d.l2_bytes == 1u << 20 && d.l3_bytes == 32u << 20 && d.cores == 2);
    CHECK(host_isa_has(d.isa, "avx512bf16") && host_isa_has(d.isa, "avx512f") && !host_isa_has(d.isa, "amx-tile"));
    CHECK(host_describe("xeon-spr", &d, err, sizeof err) && host_isa_has(d.isa, "amx-tile") && d.l2_bytes == 2u << 20);
    CHECK(host_describe("zen5", &d, err, sizeof err) && d.l1d_bytes == 48u << 10);
    CHECK(host_describe("avx2-laptop", &d, err, sizeof err) && host_isa_has(d.isa, "avx2") &&
          !host_isa_has(d.isa, "avx512f"));
    uint32_t lanes, registers;
    host_isa_vector_unit(d.isa, &lanes, &registers);
    CHECK(lanes == 8 && registers == 16);
    CHECK(host_describe("zen4", &d, err, sizeof err));
    host_isa_vector_unit(d.isa, &lanes, &registers);
    CHECK(lanes == 16 && registers == 32);
    host_isa_vector_unit("+sse2,+sse4.1", &lanes, &registers);
    CHECK(lanes == 4 && registers == 16);
    /* a whole entry only: "+avx512f" is not "+avx512fp16", "-avx2" is off */
    CHECK(!host_isa_has("+avx512fp16,-avx2", "avx512f") && !host_isa_has("+avx512fp16,-avx2", "avx2"));
    /* native: this machine, at least one core; NULL and "" are native too */
    CHECK(host_describe("native", &d, err, sizeof err) && !d.cpu && !d.isa && d.cores >= 1);
    CHECK(host_describe(NULL, &d, err, sizeof err) && !strcmp(d.name, "native"));
    CHECK(host_describe("", &d, err, sizeof err) && !strcmp(d.name, "native"));
    CHECK(host_isa_level("x86-64-v3") && host_isa_has(host_isa_level("x86-64-v3"), "avx2") &&
          !host_isa_level("znver4"));
}

static void test_overrides(void) {
    char err[256];
    host_desc d;
    CHECK(host_describe("zen4,l2=2M,cores=8,l1d=48K,l3=1G", &d, err, sizeof err));
    CHECK(d.l2_bytes == 2u << 20 && d.cores == 8 && d.l1d_bytes == 48u << 10 && d.l3_bytes == 1u << 30);
    CHECK(host_describe("native,l2=512K", &d, err, sizeof err) && d.l2_bytes == 512u << 10);
    CHECK(host_check("native,l2=512K", err, sizeof err) && host_check("avx2-laptop,cores=3", err, sizeof err));
    /* -FEATURE items: listed in order, the profile's ISA string untouched */
    CHECK(host_describe("zen4,-avx512bf16,l2=2M,-avx512vnni", &d, err, sizeof err) && !strcmp(d.off, "avx512bf16,avx512vnni") &&
          d.l2_bytes == 2u << 20 && host_isa_has(d.isa, "avx512bf16"));
    CHECK(host_turns_off(&d, "avx512bf16") && host_turns_off(&d, "avx512vnni") && !host_turns_off(&d, "avx512") &&
          !host_turns_off(&d, "avx512bf"));
    CHECK(host_describe("zen4", &d, err, sizeof err) && !d.off[0] && !host_turns_off(&d, "avx512bf16"));
    CHECK(host_check("native,-avx2", err, sizeof err) && host_check("avx2-laptop,-fma,-sse4.2", err, sizeof err));
    static const struct {
        const char *spec, *message;
    } bad[] = {
        {"zen9", "unknown host 'zen9' (native, zen4"},
        {"zen4x", "unknown host 'zen4x'"},
        {"zen4,l2=abc", "l2='abc' is not a cache size"},
        {"zen4,l2=0", "l2='0' is not a cache size"},
        {"zen4,l2=99999999999999999999K", "is not a cache size"},
        {"zen4,l2=2T", "is not a cache size"},
        {"zen4,cores=0", "cores='0' is not a core count"},
        {"zen4,cores=5000", "cores='5000'"},
        {"zen4,cores=2K", "cores='2K'"},
        {"zen4,ways=8", "unknown key 'ways'"},
        {"zen4,l2", "'l2' is not key=value"},
        {"zen4,", "'' is not key=value"},
        {"zen4,-", "'-' is not -FEATURE"},
        {"zen4,-AVX2", "'-AVX2' is not -FEATURE"},
        {"zen4,-avx 2", "is not -FEATURE"},
        {"zen4,-avx512vp2intersect,-avx512vp2intersect,-avx512vp2intersect,-avx512vp2intersect,"
         "-avx512vp2intersect,-avx512vp2intersect,-avx512vp2intersect,-avx512vp2intersect",
         "too many -FEATURE items"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        CHECK_MSG(!host_check(bad[i].spec, err, sizeof err), "%s checked", bad[i].spec);
        CHECK_MSG(!host_describe(bad[i].spec, &d, err, sizeof err), "%s accepted", bad[i].spec);
        CHECK_MSG(strstr(err, bad[i].message), "%s: '%s' lacks '%s'", bad[i].spec, err, bad[i].message);
    }
}

/* Host caches from a sysfs-shaped directory: L1 Data (the Instruction
 * cache of the same level ignored), L2 and L3 Unified, sizes with K/M
 * suffixes; a missing or malformed level keeps what was there. */
static void write_file(const char *dir, const char *name, const char *text) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void make_index(const char *root, int i, const char *level, const char *type, const char *size) {
    char dir[400];
    snprintf(dir, sizeof dir, "%s/index%d", root, i);
    CHECK(mkdir(dir, 0700) == 0);
    write_file(dir, "level", level);
    write_file(dir, "type", type);
    write_file(dir, "size", size);
}

static void test_host_caches(void) {
    char root[] = "/tmp/tilec-caches-XXXXXX";
    if (!mkdtemp(root)) {
        CHECK_MSG(false, "mkdtemp failed");
        return;
    }
    make_index(root, 0, "1\n", "Data\n", "48K\n");
    make_index(root, 1, "1\n", "Instruction\n", "32K\n");
    make_index(root, 2, "2\n", "Unified\n", "2048K\n");
    make_index(root, 3, "3\n", "Unified\n", "32M\n");
    uint64_t l1 = 1, l2 = 2, l3 = 3;
    CHECK(host_read_caches(root, &l1, &l2, &l3));
    CHECK(l1 == 48u << 10 && l2 == 2u << 20 && l3 == 32u << 20);
    /* a malformed L3 size: that level is kept, the call reports it */
    char path[512];
    snprintf(path, sizeof path, "%s/index3", root);
    write_file(path, "size", "lots\n");
    l3 = 7;
    CHECK(!host_read_caches(root, &l1, &l2, &l3) && l3 == 7 && l2 == 2u << 20);
    uint64_t a = 5, b = 6, c = 7;
    CHECK(!host_read_caches("/nonexistent/tilec", &a, &b, &c) && a == 5 && b == 6 && c == 7);
    for (int i = 0; i < 4; i++) {
        static const char *const names[] = {"level", "type", "size"};
        for (int n = 0; n < 3; n++) {
            snprintf(path, sizeof path, "%s/index%d/%s", root, i, names[n]);
            remove(path);
        }
        snprintf(path, sizeof path, "%s/index%d", root, i);
        rmdir(path);
    }
    rmdir(root);
}

int main(void) {
    test_profiles();
    test_overrides();
    test_host_caches();
    TEST_MAIN_END();
}
