/* cache.c — the per-context kernel cache (cache.h).  The cache lives in the
 * context's extension slot, created at the first cached compile and
 * destroyed with the context (which outlives its kernels, so every use but
 * the cache's own is gone by then).  Contexts are single-threaded, so the
 * use counts need no atomics. */
#include "simd/cache.h"

#include "base/hashmap.h"
#include "base/strbuf.h"
#include "simd/disk_cache.h"
#include "simd/jit.h"
#include "xir/text.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    char *key; /* NULL: free slot */
    size_t len;
    simd_kernel *kernel;
} cache_entry;

typedef struct {
    tilec_context *ctx;
    hashmap map;                             /* key -> cache_entry * */
    cache_entry entries[SIMD_CACHE_ENTRIES]; /* a ring: the oldest is replaced */
    size_t next;
} simd_cache;

const char *simd_cache_outcome_name(simd_cache_outcome o) {
    static const char *const names[] = {"off", "miss", "hit", "disk", "rebuilt"};
    return names[o];
}

static void entry_clear(simd_cache *c, cache_entry *e) {
    if (!e->key) return;
    hashmap_remove(&c->map, e->key, e->len);
    simd_kernel_destroy(e->kernel);
    tilec_free(c->ctx, e->key);
    memset(e, 0, sizeof *e);
}

static void cache_destroy(void *p) {
    simd_cache *c = p;
    for (size_t i = 0; i < SIMD_CACHE_ENTRIES; i++) entry_clear(c, &c->entries[i]);
    hashmap_free(&c->map);
    tilec_free(c->ctx, c);
}

static simd_cache *cache_of(tilec_context *ctx) {
    simd_cache *c = tilec_context_extension(ctx);
    if (c) return c;
    if (!(c = tilec_alloc(ctx, sizeof *c))) return NULL;
    c->ctx = ctx;
    hashmap_init(&c->map, ctx);
    tilec_context_set_extension(ctx, c, cache_destroy);
    return c;
}

static bool enabled(const tilec_compile_options *o) {
    const char *env = getenv("TILEC_CACHE");
    return !o->capture_ir && !o->capture_asm && !(env && !strcmp(env, "0"));
}

/* The disk's key: this build of tilec and the host, then the memory key.
 * False when there is no disk cache (or no build ID to key it by). */
static bool disk_key(const strbuf *memory_key, strbuf *out, char dir[PATH_MAX]) {
    char id[128];
    jit_host h;
    if (disk_cache_dir(dir) != DISK_DIR_USABLE || !disk_cache_build_id(id, sizeof id)) return false;
    bool ok = jit_host_init(&h);
    if (ok) strbuf_printf(out, "tilec build %s host %s %s %s\n", id, h.triple, h.cpu, h.features);
    jit_host_free(&h);
    strbuf_append_n(out, memory_key->data, memory_key->len);
    return ok && !out->failed;
}

/* A memory miss: the kernel from the disk cache, or compiled (and then
 * stored there). */
static tilec_status disk_compile(tilec_context *ctx, const xir_func *f, const tilec_compile_options *o,
                                 const simd_facts *d, const strbuf *memory_key, simd_kernel **out,
                                 simd_cache_outcome *outcome) {
    char dir[PATH_MAX];
    strbuf key;
    strbuf_init(&key, ctx);
    disk_entry entry;
    memset(&entry, 0, sizeof entry);
    strbuf_init(&entry.code.object, ctx);
    bool disk = disk_key(memory_key, &key, dir);
    disk_lookup found = disk ? disk_cache_load(dir, &key, &entry) : DISK_ABSENT;
    tilec_status st = TILEC_E_UNSUPPORTED;
    if (found == DISK_LOADED) {
        size_t diags = tilec_diag_count(ctx);
        const char *names[SIMD_OBJECT_MAX_SLEEF];
        for (size_t i = 0; i < entry.code.n_sleef; i++) names[i] = entry.code.sleef[i];
        st = simd_kernel_from_object(ctx, simd_resolve_width(d->width, getenv("TILEC_SIMD_WIDTH")), f->block_size,
                                     &entry.counters, names, entry.code.n_sleef, entry.code.object.data,
                                     entry.code.object.len, out);
        if (st) tilec_diag_truncate(ctx, diags); /* an entry that does not link: rebuilt below */
        *outcome = SIMD_CACHE_DISK;
    }
    if (st) {
        strbuf_free(&entry.code.object);
        memset(&entry, 0, sizeof entry);
        strbuf_init(&entry.code.object, ctx);
        *outcome = found == DISK_ABSENT ? SIMD_CACHE_MISS : SIMD_CACHE_REBUILT;
        st = simd_compile_keeping(ctx, f, o, d, out, disk ? &entry.code : NULL);
        if (!st && disk && entry.code.complete) {
            entry.counters = *simd_kernel_counters(*out);
            disk_cache_store(dir, &key, &entry);
        }
    }
    strbuf_free(&entry.code.object);
    strbuf_free(&key);
    return st;
}

tilec_status simd_compile_cached(tilec_context *ctx, const xir_func *f, const tilec_compile_options *options,
                                 const simd_facts *facts, simd_kernel **out, simd_cache_outcome *outcome) {
    tilec_compile_options o = options ? *options : tilec_compile_options_default();
    simd_facts d = facts ? *facts : (simd_facts){0};
    simd_cache *c = enabled(&o) && f ? cache_of(ctx) : NULL;
    *outcome = SIMD_CACHE_OFF;
    if (!c) return simd_compile(ctx, f, &o, &d, out);
    strbuf key;
    strbuf_init(&key, ctx);
    strbuf_printf(&key, "simd-cache-v1 W=%u full=%d streaming=%llx apart=%llx required=%u func=%s\n",
                  simd_resolve_width(d.width, getenv("TILEC_SIMD_WIDTH")),
                  (int)o.full_packet_specialization, (unsigned long long)d.streaming_args,
                  (unsigned long long)d.apart_args, d.required_packet_width, f->name);
    if (!xir_print_to_strbuf(f->module, &key) || key.failed) { /* no memory for the key: compile uncached */
        strbuf_free(&key);
        return simd_compile(ctx, f, &o, &d, out);
    }
    cache_entry *e = hashmap_get(&c->map, key.data, key.len);
    if (e) {
        strbuf_free(&key);
        *outcome = SIMD_CACHE_HIT;
        *out = simd_kernel_retain(e->kernel);
        return TILEC_OK;
    }
    tilec_status st = disk_compile(ctx, f, &o, &d, &key, out, outcome);
    if (st) {
        strbuf_free(&key);
        return st;
    }
    e = &c->entries[c->next];
    entry_clear(c, e); /* the oldest goes */
    char *copy = tilec_alloc(ctx, key.len);
    if (copy) memcpy(copy, key.data, key.len);
    if (copy && hashmap_put(&c->map, copy, key.len, e)) {
        *e = (cache_entry){copy, key.len, simd_kernel_retain(*out)};
        c->next = (c->next + 1) % SIMD_CACHE_ENTRIES;
    } else {
        tilec_free(ctx, copy); /* not cached, still compiled */
    }
    strbuf_free(&key);
    return TILEC_OK;
}
