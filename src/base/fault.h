/* fault.h — bounds faults: the record of a run's faults, and the fault
 * sites with the one diagnostic each reports.
 *
 * A `fault` (XIR) reports that an access the bounds analysis could not prove
 * in range was out of range, and the access itself did not happen.  Native
 * code (written by the SIMD backend's JIT code, atomically from every
 * worker), the runtime that turns it into a diagnostic, and the XIR
 * interpreter share the record.
 *
 * Invariant: the layout is fixed (the SIMD backend addresses the fields by
 * byte offset: count 0, value 8, site 16).  Only the fault that raised count
 * from 0 writes value and site, so after the run they describe one real
 * fault (with several workers, not necessarily the first in program order). */
#ifndef TILEC_BASE_FAULT_H
#define TILEC_BASE_FAULT_H

#include "base/context.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    uint64_t count; /* faults in the run */
    int64_t value;  /* the out-of-range index or origin of the recorded fault */
    uint32_t site;  /* its index in the kernel's fault-site table */
    uint32_t reserved;
} fault_record;

enum { FAULT_RECORD_COUNT_OFFSET = 0, FAULT_RECORD_VALUE_OFFSET = 8, FAULT_RECORD_SITE_OFFSET = 16 };

/* A fault site: one out-of-range access in TileIR terms, and its diagnostic,
 * shared by the reference interpreter, native code and ahead-of-time objects
 * so that all report the same code and message for the same access:
 *   TIR-I07  a subtile load/store with bounds=assume leaves its view
 *   TIR-I08  a scalar load/store index is outside its view
 *   TIR-I09  an extract coordinate is outside its tile
 * A site describes one access along one axis statically (tir/fault.h makes
 * it from the TileIR op); the offending index, origin or coordinate is known
 * only when the access happens.  Strings are borrowed (from the TileIR
 * module, or copies a kernel owns). */
typedef enum { TIR_FAULT_ASSUME = 1, TIR_FAULT_SCALAR, TIR_FAULT_EXTRACT } tir_fault_kind;

typedef struct {
    tir_fault_kind kind;
    bool store;             /* ASSUME, SCALAR: a store (else a load) */
    const char *target;     /* the view or tile's name (NULL: unnamed, see target_id) */
    uint32_t target_id;     /* its value id */
    const char *func;       /* the kernel's name */
    const char *axis_label; /* EXTRACT: the tile axis's dimension label */
    uint32_t axis;
    uint64_t extent; /* the view's (tile's) extent along the axis */
    uint64_t count;  /* ASSUME: the view elements the subtile spans along the axis */
    tilec_loc loc;
} tir_fault_site;

/* Appends the diagnostic of `site` faulting with `value` (the index,
 * origin or coordinate); returns TILEC_E_RUNTIME. */
tilec_status tir_fault_report(tilec_context *ctx, const tir_fault_site *site, int64_t value);

#endif
