/* fault.h — the fault site (base/fault.h) of a TileIR access: what the
 * reference interpreter and lowering record for an access that may leave its
 * view or tile, so that both report the same diagnostic for it. */
#ifndef TILEC_TIR_FAULT_H
#define TILEC_TIR_FAULT_H

#include "base/fault.h"
#include "tir/ir.h"

/* The site of `op`'s access (a subtile or scalar view access, or an
 * extract) along `axis`. */
tir_fault_site tir_fault_site_of(const tir_op *op, uint32_t axis);

#endif
