/* host.h — the one description of the machine tilec plans and generates code
 * for: its CPU name and vector ISA, data caches and core count.
 *
 * Every fact the planner, the code generator or the runtime takes from the
 * machine comes from here, so one setting pins them all: the environment
 * variable TILEC_HOST (the CLI's --host sets it) names
 *
 *   native                 this machine: sysfs caches, online cores, and the
 *                          ISA LLVM detects (the default);
 *   zen4, zen5, xeon-spr,  a built-in profile: the machine it describes,
 *   avx2-laptop            whatever this one is;
 *
 * optionally followed by overrides, "zen4,l2=2M,cores=8" (keys l1d, l2, l3
 * with K/M/G suffixes, cores), and "-feature" items that turn an ISA feature
 * of the code generation off ("zen4,-avx512bf16": the fallback of what the
 * feature would do; the planner sees it too, the packet width stays).  A profile fixes what the planner sees (packet
 * width, vector registers, caches, cores), so a test that pins one gets the
 * same plans on every machine.  Code is generated for the profile's CPU with
 * the features both the profile and this machine have, so it always runs
 * here (only slower where this machine lacks a feature the profile has).
 * Nothing here knows LLVM: the native ISA is filled in by the JIT. */
#ifndef TILEC_BASE_HOST_H
#define TILEC_BASE_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *name; /* "native" or the profile's name (static storage) */
    const char *cpu;  /* LLVM CPU name; NULL: this machine's */
    const char *isa;  /* the profile's vector ISA, LLVM features "+avx2,+fma,..."; NULL: this machine's */
    uint64_t l1d_bytes, l2_bytes, l3_bytes; /* per core L1d and L2, shared L3; 0: unknown */
    uint32_t cores;                         /* online cores (>= 1) */
    char off[128];                          /* "-feature" items: LLVM feature names turned off, comma-separated */
} host_desc;

/* The description `spec` (TILEC_HOST's grammar above; NULL or "" is
 * native).  False with a message naming what is wrong in err (err_size
 * bytes: "host 'SPEC': ...") for an unknown profile, key or malformed
 * value. */
bool host_describe(const char *spec, host_desc *out, char *err, size_t err_size);
/* Whether `spec` is well formed, as host_describe says, without reading
 * this machine (a command line checked before anything runs). */
bool host_check(const char *spec, char *err, size_t err_size);
/* host_describe(getenv("TILEC_HOST"), ...). */
bool host_current(host_desc *out, char *err, size_t err_size);

/* The natural f32 vector width and register count of an LLVM feature list:
 * AVX-512F 16 lanes in 32 registers, AVX2 8 in 16, else SSE's 4 in 16. */
void host_isa_vector_unit(const char *features, uint32_t *lanes, uint32_t *registers);
/* Whether `features` enables `name` ("+name" as a whole entry). */
bool host_isa_has(const char *features, const char *name);
/* Whether d turns `name` off (a "-name" item). */
bool host_turns_off(const host_desc *d, const char *name);

/* The features of a psABI level "x86-64-v2", "x86-64-v3" or "x86-64-v4"
 * (ahead-of-time objects for a baseline); NULL for any other name. */
const char *host_isa_level(const char *name);

/* The profiles' names, comma-separated, for messages and --help. */
const char *host_profile_names(void);

/* Reads the data caches cpu0 sees from sysfs (`dir` is normally
 * /sys/devices/system/cpu/cpu0/cache: indexN/level, type, size): L1 Data,
 * L2 and L3 Unified (or Data).  Levels it cannot read are left as they are;
 * returns whether it read all three. */
bool host_read_caches(const char *dir, uint64_t *l1d_bytes, uint64_t *l2_bytes, uint64_t *l3_bytes);
/* This machine's CPU as /proc/cpuinfo names it: its first "model name" line
 * (NUL-terminated in out, cut at size; "" when unknown).  What measurements
 * recorded per machine are keyed by (a host profile describes the machine
 * planned for, not the one timed). */
void host_cpu_model(char *out, size_t size);

#endif
