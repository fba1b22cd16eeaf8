/* fault.h — the record of a run's bounds faults.  A `fault` (XIR) reports
 * that an access the bounds analysis could not prove in range was out of
 * range, and the access itself did not happen.  Native code (written by the
 * SIMD backend's JIT code, atomically from every worker), the runtime that
 * turns it into a diagnostic, and the XIR interpreter share this record.
 *
 * Invariant: the layout is fixed (the SIMD backend addresses the fields by
 * byte offset: count 0, value 8, site 16).  Only the fault that raised count
 * from 0 writes value and site, so after the run they describe one real
 * fault (with several workers, not necessarily the first in program order). */
#ifndef TILEC_BASE_FAULT_H
#define TILEC_BASE_FAULT_H

#include <stdint.h>

typedef struct {
    uint64_t count; /* faults in the run */
    int64_t value;  /* the out-of-range index or origin of the recorded fault */
    uint32_t site;  /* its index in the kernel's fault-site table */
    uint32_t reserved;
} fault_record;

enum { FAULT_RECORD_COUNT_OFFSET = 0, FAULT_RECORD_VALUE_OFFSET = 8, FAULT_RECORD_SITE_OFFSET = 16 };

#endif
