/* memory.c — see memory.h.  Every source is optional: a file that cannot be
 * read or a limit that is not set is left out, never guessed. */
#include "memory.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* MemAvailable in bytes from /proc/meminfo. */
static bool meminfo_available(uint64_t *bytes) {
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return false;
    char line[256];
    bool found = false;
    unsigned long long kib;
    while (!found && fgets(line, sizeof line, f))
        found = sscanf(line, "MemAvailable: %llu kB", &kib) == 1;
    fclose(f);
    if (found) *bytes = (uint64_t)kib * 1024;
    return found;
}

/* Field `index` (0: total size, 5: data + stack) of /proc/self/statm, in bytes. */
static uint64_t statm_bytes(int index) {
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long fields[7] = {0};
    if (f) {
        if (fscanf(f, "%llu %llu %llu %llu %llu %llu %llu", &fields[0], &fields[1], &fields[2], &fields[3],
                   &fields[4], &fields[5], &fields[6]) != 7)
            memset(fields, 0, sizeof fields);
        fclose(f);
    }
    long page = sysconf(_SC_PAGESIZE);
    return (uint64_t)fields[index] * (uint64_t)(page > 0 ? page : 4096);
}

/* A soft limit less what is in use now; false when the limit is not set. */
static bool limit_left(int resource, int statm_index, uint64_t *bytes) {
    struct rlimit r;
    if (getrlimit(resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return false;
    uint64_t used = statm_bytes(statm_index);
    *bytes = (uint64_t)r.rlim_cur > used ? (uint64_t)r.rlim_cur - used : 0;
    return true;
}

static void consider(cli_memory *m, bool known, uint64_t bytes, const char *source) {
    if (known && (!m->known || bytes < m->bytes)) {
        m->known = true;
        m->bytes = bytes;
        m->source = source;
    }
}

cli_memory cli_memory_available(void) {
    cli_memory m = {false, 0, NULL};
    uint64_t bytes = 0;
    bool physical = meminfo_available(&bytes);
    consider(&m, physical, bytes, "MemAvailable in /proc/meminfo");
    if (!physical) {
        long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        consider(&m, pages > 0 && page > 0, (uint64_t)pages * (uint64_t)page, "free physical pages");
    }
    bool limited = limit_left(RLIMIT_AS, 0, &bytes);
    consider(&m, limited, bytes, "RLIMIT_AS (ulimit -v) less the address space in use");
    limited = limit_left(RLIMIT_DATA, 5, &bytes);
    consider(&m, limited, bytes, "RLIMIT_DATA (ulimit -d) less the data segment in use");
    return m;
}

void cli_format_bytes(char *buf, size_t size, uint64_t n) {
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (n < 1024) {
        snprintf(buf, size, "%" PRIu64 " bytes", n);
        return;
    }
    double v = (double)n / 1024;
    size_t u = 0;
    while (v >= 1024 && u + 1 < sizeof units / sizeof units[0]) {
        v /= 1024;
        u++;
    }
    snprintf(buf, size, "%.1f %s", v, units[u]);
}

tilec_status cli_memory_check(tilec_context *ctx, uint64_t need, const char *what) {
    cli_memory m = cli_memory_available();
    if (!m.known || need <= m.bytes) return TILEC_OK;
    char need_text[32], have_text[32];
    cli_format_bytes(need_text, sizeof need_text, need);
    cli_format_bytes(have_text, sizeof have_text, m.bytes);
    return tilec_error(ctx, TILEC_E_NOMEM, "TILEC-CLI05", tilec_no_loc(),
                       "not enough memory: %s need %" PRIu64 " bytes (%s), but only %" PRIu64
                       " bytes (%s) are available (%s); nothing was allocated",
                       what, need, need_text, m.bytes, have_text, m.source);
}
