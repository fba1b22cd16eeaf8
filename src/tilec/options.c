/* options.c — tilec_compile_options by name, for language bindings
 * (tilec.h: tilec_compile_options_size, _init, _set).  One table: each
 * option's name, its field and how its text is read. */
#include "tilec/tilec.h"

#include "base/context.h"
#include "gpu/gpu.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef enum { OPT_U32, OPT_U64, OPT_MODE, OPT_STORES, OPT_BOOL, OPT_TARGET, OPT_ARCH } option_kind;

static const struct {
    const char *name;
    option_kind kind;
    size_t offset;
} options[] = {
    {"threads", OPT_U32, offsetof(tilec_compile_options, threads)},
    {"width", OPT_U32, offsetof(tilec_compile_options, width)},
    {"local_lanes", OPT_U32, offsetof(tilec_compile_options, local_lanes)},
    {"block_size", OPT_U32, offsetof(tilec_compile_options, block_size)},
    {"blocks_per_task", OPT_U32, offsetof(tilec_compile_options, blocks_per_task)},
    {"max_candidates", OPT_U64, offsetof(tilec_compile_options, max_candidates)},
    {"max_unrolled", OPT_U32, offsetof(tilec_compile_options, max_unrolled_tile_elements)},
    {"reduction_partitions", OPT_U32, offsetof(tilec_compile_options, reduction_partitions)},
    {"split_chunks", OPT_U32, offsetof(tilec_compile_options, split_chunks)},
    {"fuse", OPT_MODE, offsetof(tilec_compile_options, fuse)},
    {"pack", OPT_MODE, offsetof(tilec_compile_options, pack)},
    {"split", OPT_MODE, offsetof(tilec_compile_options, split)},
    {"stores", OPT_STORES, offsetof(tilec_compile_options, stores)},
    {"check_bounds", OPT_BOOL, offsetof(tilec_compile_options, check_bounds)},
    {"fused_mma", OPT_BOOL, offsetof(tilec_compile_options, fused_mma)},
    {"search_tiles", OPT_BOOL, offsetof(tilec_compile_options, search_tiles)},
    {"target", OPT_TARGET, offsetof(tilec_compile_options, target)},
    {"gpu_arch", OPT_ARCH, offsetof(tilec_compile_options, gpu_arch)},
};

/* The words of the enum options, in their enums' order (AUTO = 0, ...). */
static const char *const MODES[] = {"auto", "on", "off", NULL};
static const char *const STORES[] = {"auto", "cached", "streaming", NULL};
static const char *const TARGETS[] = {"cpu", "cuda", NULL};

size_t tilec_compile_options_size(void) { return sizeof(tilec_compile_options); }

void tilec_compile_options_init(tilec_compile_options *o) {
    if (o) *o = tilec_compile_options_default();
}

static int word_index(const char *const *words, const char *value) {
    for (int i = 0; words[i]; i++)
        if (!strcmp(words[i], value)) return i;
    return -1;
}

static bool read_unsigned(const char *value, uint64_t max, uint64_t *out) {
    char *end;
    errno = 0;
    unsigned long long v = value[0] >= '0' && value[0] <= '9' ? strtoull(value, &end, 10) : 0;
    if (value[0] < '0' || value[0] > '9' || *end || errno || v > max) return false;
    *out = v;
    return true;
}

tilec_status tilec_compile_options_set(tilec_context *ctx, tilec_compile_options *o, const char *name,
                                       const char *value) {
    if (!o || !name || !value)
        return tilec_error(ctx, TILEC_E_ARG, "TILEC-O01", tilec_no_loc(), "tilec_compile_options_set: NULL argument");
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
        if (strcmp(options[i].name, name)) continue;
        char *field = (char *)o + options[i].offset;
        uint64_t v = 0;
        int w = -1;
        switch (options[i].kind) {
        case OPT_U32:
            if (!read_unsigned(value, UINT32_MAX, &v)) break;
            *(uint32_t *)(void *)field = (uint32_t)v;
            return TILEC_OK;
        case OPT_U64:
            if (!read_unsigned(value, UINT64_MAX, &v)) break;
            *(uint64_t *)(void *)field = v;
            return TILEC_OK;
        case OPT_BOOL:
            if (strcmp(value, "0") && strcmp(value, "1")) break;
            *(bool *)(void *)field = value[0] == '1';
            return TILEC_OK;
        case OPT_MODE: /* tilec_fuse, tilec_pack, tilec_split share the order auto, on, off */
            if ((w = word_index(MODES, value)) < 0) break;
            if (options[i].offset == offsetof(tilec_compile_options, fuse)) o->fuse = (tilec_fuse)w;
            else if (options[i].offset == offsetof(tilec_compile_options, pack)) o->pack = (tilec_pack)w;
            else o->split = (tilec_split)w;
            return TILEC_OK;
        case OPT_STORES:
            if ((w = word_index(STORES, value)) < 0) break;
            o->stores = (tilec_stores)w;
            return TILEC_OK;
        case OPT_TARGET:
            if ((w = word_index(TARGETS, value)) < 0) break;
            o->target = (tilec_target)w;
            return TILEC_OK;
        case OPT_ARCH: /* a static name: the option outlives the caller's text */
            if (!gpu_sm_name(value)) break;
            o->gpu_arch = gpu_sm_name(value);
            return TILEC_OK;
        }
        return tilec_error(ctx, TILEC_E_ARG, "TILEC-O01", tilec_no_loc(),
                           "compile option '%s': '%s' is not %s", name, value,
                           options[i].kind == OPT_MODE     ? "auto, on or off"
                           : options[i].kind == OPT_STORES ? "auto, cached or streaming"
                           : options[i].kind == OPT_BOOL   ? "0 or 1"
                           : options[i].kind == OPT_TARGET ? "cpu or cuda"
                           : options[i].kind == OPT_ARCH   ? "one of " GPU_SM_LIST
                                                           : "an unsigned integer in range");
    }
    return tilec_error(ctx, TILEC_E_ARG, "TILEC-O01", tilec_no_loc(), "unknown compile option '%s'", name);
}
