/* interp_value.c — cells in memory for the XIR interpreter: the native
 * element encoding of loads and stores, and integer cells as indices.  f32
 * elements move as bit patterns (the cell form of xir/eval.h, which defines
 * every scalar operation), so NaN payloads survive a store and a load.
 * Other types use the encoding TileIR's interpreter shares (scalar/cell.h:
 * scalar_read / scalar_write). */
#include "xir/interp_impl.h"

#include <string.h>

scalar_cell xi_load_elem(tir_scalar t, const unsigned char *p) {
    if (t != TIR_F32) return scalar_read(t, p);
    uint32_t bits;
    memcpy(&bits, p, sizeof bits);
    return (scalar_cell){.u = bits};
}

void xi_store_elem(tir_scalar t, unsigned char *p, scalar_cell x) {
    if (t != TIR_F32) {
        scalar_write(t, p, x);
        return;
    }
    uint32_t bits = (uint32_t)x.u;
    memcpy(p, &bits, sizeof bits);
}

bool xi_index(tir_scalar t, scalar_cell x, uint64_t *out) {
    if (tir_scalar_is_signed(t) && x.i < 0) return false;
    *out = x.u;
    return true;
}
