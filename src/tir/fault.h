/* fault.h — out-of-range accesses in TileIR terms and their diagnostics,
 * shared by the reference interpreter and native code so that both report
 * the same code and message for the same access:
 *   TIR-I07  a subtile load/store with bounds=assume leaves its view
 *   TIR-I08  a scalar load/store index is outside its view
 *   TIR-I09  an extract coordinate is outside its tile
 * A site describes one access along one axis statically; the offending
 * index, origin or coordinate is known only when the access happens.
 * Strings are borrowed (from the TileIR module, or copies a kernel owns). */
#ifndef TILEC_TIR_FAULT_H
#define TILEC_TIR_FAULT_H

#include "tir/ir.h"

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

/* The site of `op`'s access (a subtile or scalar view access, or an
 * extract) along `axis`. */
tir_fault_site tir_fault_site_of(const tir_op *op, uint32_t axis);
/* Appends the diagnostic of `site` faulting with `value` (the index,
 * origin or coordinate); returns TILEC_E_RUNTIME. */
tilec_status tir_fault_report(tilec_context *ctx, const tir_fault_site *site, int64_t value);

#endif
