/* memory.h — the up-front memory check of `tilec run` and `tilec bench`:
 * before allocating a kernel's argument buffers (and, for --check and --xir,
 * the reference interpreter's copy), the total is compared with the memory
 * the process can still get, and a run that cannot fit is refused with a
 * diagnostic giving both numbers instead of being killed by the kernel's
 * out-of-memory killer half-way through zero-filling its buffers.
 *
 * Available memory is the least of what is known:
 *   - MemAvailable of /proc/meminfo (else free pages from sysconf), the memory
 *     that can be had without swapping;
 *   - the RLIMIT_AS soft limit (`ulimit -v`) less the address space mapped
 *     now (/proc/self/statm);
 *   - the RLIMIT_DATA soft limit (`ulimit -d`) less the data segment now.
 * Only the buffers are counted: compiling, the thread pool and the
 * interpreters need some more, which is why the limits are not rounded up.
 *
 * Diagnostic: TILEC-CLI05 (status TILEC_E_NOMEM). */
#ifndef TILEC_CLI_MEMORY_H
#define TILEC_CLI_MEMORY_H

#include "base/context.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    bool known;         /* false when no source could be read */
    uint64_t bytes;     /* the least of the sources */
    const char *source; /* which one: "MemAvailable in /proc/meminfo", ... */
} cli_memory;

cli_memory cli_memory_available(void);

/* TILEC_OK when `need` bytes (`what`: "the buffers of this run (...)") fit
 * in the available memory, or when it is unknown; else appends TILEC-CLI05
 * with the total and the available bytes and returns TILEC_E_NOMEM. */
tilec_status cli_memory_check(tilec_context *ctx, uint64_t need, const char *what);

/* "12.0 GiB", "512 bytes": n in the largest binary unit not above it. */
void cli_format_bytes(char *buf, size_t size, uint64_t n);

#endif
