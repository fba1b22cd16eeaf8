/* aot_write.h — the writer's side of ahead-of-time objects, shared by a
 * kernel's object (aot.c, tilec_compile_aot) and a module's (module_aot.c,
 * tilec_module_compile_aot): the blob's encoding (aot_format.h), a
 * kernel's description in it, the entry points' C names and the generated
 * header's frame. */
#ifndef TILEC_API_AOT_WRITE_H
#define TILEC_API_AOT_WRITE_H

#include "api/aot_format.h"
#include "driver/kernel.h"

/* The blob's fields (aot_format.h): in the host's byte order; a string is
 * its u32 length (AOT_NONE for NULL) and its bytes. */
void aot_put_u32(strbuf *s, uint32_t v);
void aot_put_u64(strbuf *s, uint64_t v);
void aot_put_str(strbuf *s, const char *text);
/* Runtime sizes: u32 count, then each {str name, i64 lo, i64 hi}. */
void aot_put_dims(strbuf *s, const rt_dim *dims, uint32_t count);

/* o as an object's kernels are compiled under: width 0 is the target's
 * natural one, no runtime (the program brings its own), nothing captured. */
void aot_compile_options(const simd_aot *a, tilec_compile_options *o);

/* k's description (aot_format.h, from its format number on): its programs,
 * their packet entries already in `a`.  TILEC-AOT02 when k needs more
 * programs than one description holds. */
tilec_status aot_write_kernel_blob(tilec_context *ctx, const tilec_kernel *k, const simd_aot *a, strbuf *out);

/* Why `symbol` cannot name an object's entry points, `symbol` and
 * `symbol``suffix` (NULL: it can); `why` holds the longer reasons. */
const char *aot_symbol_problem(const char *symbol, const char *suffix, char *why, size_t size);
/* Whether s can name something in C: an identifier, no keyword. */
bool aot_c_name(const char *s);
/* The C type of an element (f16/bf16: uint16_t, their bits). */
const char *aot_c_type(tir_scalar s);

/* A generated header's frame: the include guard, the includes and C++'s
 * extern "C" around what goes between. */
void aot_header_open(strbuf *h, const char *symbol);
void aot_header_close(strbuf *h);

/* The object, then the header (when write_header is given), each in one
 * call; TILEC-M01 when either ran out of memory being made (nothing
 * written).  The object first: a header that cannot be written leaves the
 * object written (docs/aot.md). */
tilec_status aot_hand_over(tilec_context *ctx, const strbuf *object, tir_write_fn write_object, void *object_user,
                           const strbuf *header, tir_write_fn write_header, void *header_user);

#endif
