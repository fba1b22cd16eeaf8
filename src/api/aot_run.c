/* aot_run.c — the runtime side of ahead-of-time objects (tilec/aot.h): an
 * object's blob (aot_format.h) read into programs (rt/program.h) at its
 * first dispatch, then every dispatch through rt_program_dispatch, as a JIT
 * kernel's.  Part of the runtime library: no LLVM here.
 *
 * Process-wide state, all created once (pthread_once) and kept for the
 * life of the process: the default runtime and the context its pool
 * allocates through; the context loaded programs live in, used only under
 * load_lock; the key of each thread's own context (destroyed with the
 * thread).  An object's loaded programs (aot_loaded) hang off its
 * descriptor's pointer slot, published with release and read with acquire
 * ordering. */
#include "tilec/aot.h"

#include "base/fault.h"
#include "api/aot_read.h"
#include "rt/runtime.h"

#include <cpuid.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- process state ---- */

static pthread_once_t once = PTHREAD_ONCE_INIT, load_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t thread_key;
static bool thread_key_ok;
static tilec_context *load_ctx;     /* loaded programs (under load_lock) */
static tilec_context *runtime_ctx;  /* the default runtime's pool */
static tilec_runtime *default_runtime;
static char default_error[512];     /* why there is no default runtime */

typedef struct {
    tilec_context *ctx;
    char *text; /* the last rendered diagnostics */
} thread_state;

static void thread_state_free(void *p) {
    thread_state *t = p;
    tilec_context_destroy(t->ctx);
    free(t->text);
    free(t);
}

static void init_process(void) {
    thread_key_ok = !pthread_key_create(&thread_key, thread_state_free);
    if (tilec_context_create(NULL, &runtime_ctx) || tilec_runtime_create(runtime_ctx, 0, &default_runtime)) {
        if (runtime_ctx) tilec_diag_render(runtime_ctx, default_error, sizeof default_error);
        else snprintf(default_error, sizeof default_error, "out of memory creating the default runtime\n");
        default_runtime = NULL;
    }
}

static thread_state *this_thread(void) {
    if (pthread_once(&once, init_process) || !thread_key_ok) return NULL;
    thread_state *t = pthread_getspecific(thread_key);
    if (t) return t;
    if (!(t = calloc(1, sizeof *t))) return NULL;
    if (tilec_context_create(NULL, &t->ctx) || pthread_setspecific(thread_key, t)) {
        tilec_context_destroy(t->ctx);
        free(t);
        return NULL;
    }
    return t;
}

static void init_load(void) { tilec_context_create(NULL, &load_ctx); }

tilec_status aot_load_once(tilec_context *ctx, const aot_descriptor *d, aot_load_fn load, void **out) {
    void *l = __atomic_load_n(d->loaded, __ATOMIC_ACQUIRE);
    if (!l) {
        if (pthread_once(&load_once, init_load) || !load_ctx)
            return tilec_error(ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory");
        pthread_mutex_lock(&load_lock);
        l = __atomic_load_n(d->loaded, __ATOMIC_ACQUIRE);
        tilec_status st = l ? TILEC_OK : load(ctx, load_ctx, d, &l);
        if (!st) __atomic_store_n(d->loaded, l, __ATOMIC_RELEASE);
        pthread_mutex_unlock(&load_lock);
        if (st) return st;
    }
    *out = l;
    return TILEC_OK;
}

tilec_runtime *tilec_aot_default_runtime(void) {
    return pthread_once(&once, init_process) ? NULL : default_runtime;
}

/* ---- reading the blob ---- */

typedef struct {
    rt_program prog;
    rt_param *params;
    uint64_t *masks; /* [2·user args]: disjoint, then disjoint_or_equal */
    rt_size *arg_bytes; /* [user args], a program with runtime sizes' */
    tir_fault_site *sites;
    uint32_t site_count;
    char *name;
} aot_node;

/* A bucket of runtime sizes and the program serving it. */
typedef struct {
    int64_t lo[RT_MAX_DIMS], hi[RT_MAX_DIMS];
    rt_program *prog;
} aot_bucket;

/* What an object's descriptor points to once loaded: its kernel, or, for
 * a kernel with runtime sizes, the sizes and the program of each bucket. */
typedef struct {
    rt_program *kernel; /* no buckets: the one program */
    const char *name;
    uint32_t dim_count, bucket_count;
    rt_dim dims[RT_MAX_DIMS];
    aot_bucket *buckets;
} aot_loaded;

/* A size program (steps in load_ctx). */
static void get_size(aot_reader *r, rt_size *z) {
    z->count = aot_get_u32(r);
    z->steps = NULL;
    if (r->bad || !z->count) return;
    rt_size_step *steps = z->count <= 4096 ? tilec_alloc(r->ctx, z->count * sizeof *steps) : NULL;
    if (!steps) {
        r->bad = true;
        return;
    }
    for (uint32_t i = 0; i < z->count; i++) {
        steps[i].arg = aot_get_i64(r);
        steps[i].op = aot_get_u32(r);
    }
    z->steps = steps;
}

static tilec_status report_fault(const void *user, tilec_context *ctx, const fault_record *faults) {
    const aot_node *node = user;
    if (faults->site >= node->site_count)
        return tilec_error(ctx, TILEC_E_RUNTIME, "RT-F01", tilec_no_loc(), "%s: out-of-range access at fault site %u",
                           node->name ? node->name : "kernel", faults->site);
    return tir_fault_report(ctx, &node->sites[faults->site], faults->value);
}

/* A sub-program's node index: after `self`, before `count` (NULL: none). */
static rt_program *child(aot_reader *r, aot_node *nodes, uint32_t self, uint32_t count, uint32_t index) {
    if (index == AOT_NONE) return NULL;
    if (index <= self || index >= count) {
        r->bad = true;
        return NULL;
    }
    return &nodes[index].prog;
}

static void read_node(aot_reader *r, aot_node *nodes, uint32_t self, uint32_t count, const aot_descriptor *d) {
    aot_node *n = &nodes[self];
    rt_program *p = &n->prog;
    n->name = aot_get_str(r);
    uint32_t entry = aot_get_u32(r);
    uint32_t args = aot_get_u32(r);
    p->user_args = aot_get_u32(r);
    if (r->bad || args > 4096 || p->user_args > args || (entry != AOT_NONE && entry >= d->entry_count)) {
        r->bad = true;
        return;
    }
    n->params = tilec_alloc(r->ctx, (args ? args : 1) * sizeof *n->params);
    if (!n->params) {
        r->bad = true;
        return;
    }
    for (uint32_t i = 0; i < args; i++) {
        n->params[i].elem = (tir_scalar)aot_get_u32(r);
        n->params[i].min_bytes = aot_get_u64(r);
    }
    p->desc = (rt_kernel){.name = n->name,
                          .entry = entry == AOT_NONE ? NULL : (rt_entry)d->entries[entry],
                          .arg_count = args,
                          .params = n->params};
    p->desc.dispatch_size = aot_get_u32(r);
    p->desc.block_size = aot_get_u32(r);
    p->desc.blocks_per_task = aot_get_u64(r);
    p->desc.workspace_bytes = aot_get_u64(r);
    p->packs = aot_get_u32(r);
    if (p->packs > RT_MAX_PACKS) r->bad = true;
    for (uint32_t i = 0; !r->bad && i < p->packs; i++) {
        p->pack[i] = child(r, nodes, self, count, aot_get_u32(r));
        p->packed_param[i] = aot_get_u32(r);
        p->pack_offset[i] = aot_get_u64(r);
        p->pack_bytes[i] = aot_get_u64(r);
    }
    uint64_t scratch = aot_get_u64(r);
    p->split_partial = child(r, nodes, self, count, aot_get_u32(r));
    p->split_combine = child(r, nodes, self, count, aot_get_u32(r));
    p->split_carries = aot_get_u32(r);
    if (p->split_carries > RT_SPLIT_MAX_CARRIES) r->bad = true;
    for (uint32_t i = 0; !r->bad && i < p->split_carries; i++) {
        p->split_bytes[i] = aot_get_u64(r);
        p->split_elem[i] = (tir_scalar)aot_get_u32(r);
    }
    p->unfused = child(r, nodes, self, count, aot_get_u32(r));
    if (aot_get_u32(r) && !r->bad) {
        if (!(n->masks = tilec_alloc(r->ctx, 2 * (p->user_args ? p->user_args : 1) * sizeof *n->masks))) r->bad = true;
        for (uint32_t i = 0; !r->bad && i < p->user_args; i++) {
            n->masks[i] = aot_get_u64(r);
            n->masks[p->user_args + i] = aot_get_u64(r);
        }
        p->disjoint = n->masks;
        p->disjoint_or_equal = n->masks + p->user_args;
    }
    p->dim_count = aot_get_u32(r);
    if (p->dim_count > RT_MAX_DIMS) r->bad = true;
    if (p->dim_count && !r->bad) {
        get_size(r, &p->dispatch_size);
        if (!(n->arg_bytes = tilec_alloc(r->ctx, (p->user_args ? p->user_args : 1) * sizeof *n->arg_bytes))) r->bad = true;
        for (uint32_t i = 0; !r->bad && i < p->user_args; i++) get_size(r, &n->arg_bytes[i]);
        p->arg_bytes = n->arg_bytes;
        p->size_serial = rt_size_serial();
    }
    n->site_count = aot_get_u32(r);
    if (r->bad || n->site_count > (uint32_t)(r->end - r->at)) {
        r->bad = true;
        return;
    }
    if (n->site_count && !(n->sites = tilec_alloc(r->ctx, n->site_count * sizeof *n->sites))) r->bad = true;
    for (uint32_t i = 0; !r->bad && i < n->site_count; i++) {
        tir_fault_site *s = &n->sites[i];
        s->kind = (tir_fault_kind)aot_get_u32(r);
        s->store = aot_get_u32(r) != 0;
        s->target = aot_get_str(r);
        s->target_id = aot_get_u32(r);
        s->func = aot_get_str(r);
        s->axis_label = aot_get_str(r);
        s->axis = aot_get_u32(r);
        s->extent = aot_get_u64(r);
        s->count = aot_get_u64(r);
        s->loc.file = aot_get_str(r);
        s->loc.line = aot_get_u32(r);
        s->loc.column = aot_get_u32(r);
    }
    p->desc.report_fault = report_fault;
    p->desc.fault_user = n;
    /* a split's workspace may follow a runtime size: its scratch then starts
     * empty and grows at the dispatch that needs it */
    if (!r->bad && (scratch || p->split_carries) && rt_program_alloc_scratch(r->ctx, p, scratch, "scratch"))
        r->bad = true;
}

/* What dispatch relies on (once every node is read): the steps' argument
 * tables fit together, and a program's helpers run at its runtime sizes
 * (a copy of static panels may run at none). */
static bool fits(const rt_program *p) {
    uint32_t args = p->desc.arg_count, user = p->user_args;
    for (uint32_t i = 0; i < p->packs; i++) /* a copy runs at none or at the program's sizes */
        if (p->pack[i] && p->pack[i]->dim_count && p->pack[i]->dim_count != p->dim_count) return false;
    const rt_program *helpers[3] = {p->split_partial, p->split_combine, p->unfused};
    for (int i = 0; i < 3; i++)
        if (helpers[i] && helpers[i]->dim_count != p->dim_count) return false;
    if (p->dim_count && !p->split_partial && !p->dispatch_size.count) return false;
    if (p->packs) {
        bool ok = args == user + p->packs && p->scratch;
        for (uint32_t i = 0; ok && i < p->packs; i++)
            ok = p->pack[i] && p->packed_param[i] < user && p->pack[i]->desc.arg_count == 2 &&
                 p->pack_offset[i] <= p->scratch_bytes && p->pack_bytes[i] <= p->scratch_bytes - p->pack_offset[i];
        return ok;
    }
    if (p->split_partial)
        return p->split_combine && args == user && p->split_partial->user_args == user + p->split_carries &&
               p->split_combine->user_args == user + p->split_carries && (p->scratch || !p->split_carries);
    return args == user && (!p->unfused || p->unfused->user_args == user);
}

/* ---- the CPU ----
 *
 * Every feature LLVM's x86 host detection reports (and so a `--cpu native`
 * object may use), and every other instruction-set feature LLVM 19's code
 * generation knows (APX's nf and zu): where cpuid reports it, and the
 * register state the OS must save for it (XCR0), as LLVM's detection
 * requires it — stricter for APX (XCR0 bit 19) and AVX10 (the AVX-512
 * state), whose instructions fault without it.  Two have no cpuid bit and
 * run on every x86-64 CPU: "nopl", and "branch-hint", whose jump prefixes a
 * CPU without it ignores.  The rest of LLVM's feature names are tunings
 * (no instructions of their own).  A name missing here cannot be checked,
 * and an object naming it does not load (TILEC-AOT11). */

enum { REG_EAX, REG_EBX, REG_ECX, REG_EDX };
enum { STATE_NONE, STATE_AVX, STATE_AVX512, STATE_AMX, STATE_APX };
enum { LEAF_ALWAYS = 0 }; /* no cpuid bit: present on every x86-64 CPU */

typedef struct {
    const char *name;
    uint32_t leaf, subleaf;
    uint8_t reg, bit, state;
    const char *also; /* another feature it needs (NULL: none) */
} cpu_feature;

#define L1(reg, bit, state) 1, 0, REG_##reg, bit, STATE_##state
#define L7(reg, bit, state) 7, 0, REG_##reg, bit, STATE_##state
#define L7S1(reg, bit, state) 7, 1, REG_##reg, bit, STATE_##state
#define EXT1(reg, bit, state) 0x80000001u, 0, REG_##reg, bit, STATE_##state
#define EXT8(reg, bit) 0x80000008u, 0, REG_##reg, bit, STATE_NONE
static const cpu_feature CPU_FEATURES[] = {
    {"nopl", LEAF_ALWAYS, 0, 0, 0, STATE_NONE, NULL}, {"branch-hint", LEAF_ALWAYS, 0, 0, 0, STATE_NONE, NULL},
    {"x87", L1(EDX, 0, NONE), NULL}, {"cx8", L1(EDX, 8, NONE), NULL}, {"cmov", L1(EDX, 15, NONE), NULL},
    {"mmx", L1(EDX, 23, NONE), NULL}, {"fxsr", L1(EDX, 24, NONE), NULL}, {"sse", L1(EDX, 25, NONE), NULL},
    {"sse2", L1(EDX, 26, NONE), NULL}, {"sse3", L1(ECX, 0, NONE), NULL}, {"pclmul", L1(ECX, 1, NONE), NULL},
    {"ssse3", L1(ECX, 9, NONE), NULL}, {"fma", L1(ECX, 12, AVX), NULL}, {"cx16", L1(ECX, 13, NONE), NULL},
    {"sse4.1", L1(ECX, 19, NONE), NULL}, {"sse4.2", L1(ECX, 20, NONE), NULL}, {"crc32", L1(ECX, 20, NONE), NULL},
    {"movbe", L1(ECX, 22, NONE), NULL}, {"popcnt", L1(ECX, 23, NONE), NULL}, {"aes", L1(ECX, 25, NONE), NULL},
    {"xsave", L1(ECX, 26, AVX), NULL}, {"avx", L1(ECX, 28, AVX), NULL}, {"f16c", L1(ECX, 29, AVX), NULL},
    {"rdrnd", L1(ECX, 30, NONE), NULL},
    {"sahf", EXT1(ECX, 0, NONE), NULL}, {"lzcnt", EXT1(ECX, 5, NONE), NULL}, {"sse4a", EXT1(ECX, 6, NONE), NULL},
    {"prfchw", EXT1(ECX, 8, NONE), NULL}, {"xop", EXT1(ECX, 11, AVX), NULL}, {"lwp", EXT1(ECX, 15, NONE), NULL},
    {"fma4", EXT1(ECX, 16, AVX), NULL}, {"tbm", EXT1(ECX, 21, NONE), NULL}, {"mwaitx", EXT1(ECX, 29, NONE), NULL},
    {"64bit", EXT1(EDX, 29, NONE), NULL},
    {"clzero", EXT8(EBX, 0), NULL}, {"rdpru", EXT8(EBX, 4), NULL}, {"wbnoinvd", EXT8(EBX, 9), NULL},
    {"fsgsbase", L7(EBX, 0, NONE), NULL}, {"sgx", L7(EBX, 2, NONE), NULL}, {"bmi", L7(EBX, 3, NONE), NULL},
    {"avx2", L7(EBX, 5, AVX), NULL}, {"bmi2", L7(EBX, 8, NONE), NULL}, {"invpcid", L7(EBX, 10, NONE), NULL},
    {"rtm", L7(EBX, 11, NONE), NULL}, {"avx512f", L7(EBX, 16, AVX512), NULL},
    {"evex512", L7(EBX, 16, AVX512), NULL}, {"avx512dq", L7(EBX, 17, AVX512), NULL},
    {"rdseed", L7(EBX, 18, NONE), NULL}, {"adx", L7(EBX, 19, NONE), NULL},
    {"avx512ifma", L7(EBX, 21, AVX512), NULL}, {"clflushopt", L7(EBX, 23, NONE), NULL},
    {"clwb", L7(EBX, 24, NONE), NULL}, {"avx512cd", L7(EBX, 28, AVX512), NULL}, {"sha", L7(EBX, 29, NONE), NULL},
    {"avx512bw", L7(EBX, 30, AVX512), NULL}, {"avx512vl", L7(EBX, 31, AVX512), NULL},
    {"avx512vbmi", L7(ECX, 1, AVX512), NULL}, {"pku", L7(ECX, 4, NONE), NULL}, {"waitpkg", L7(ECX, 5, NONE), NULL},
    {"avx512vbmi2", L7(ECX, 6, AVX512), NULL}, {"shstk", L7(ECX, 7, NONE), NULL}, {"gfni", L7(ECX, 8, NONE), NULL},
    {"vaes", L7(ECX, 9, AVX), NULL}, {"vpclmulqdq", L7(ECX, 10, AVX), NULL},
    {"avx512vnni", L7(ECX, 11, AVX512), NULL}, {"avx512bitalg", L7(ECX, 12, AVX512), NULL},
    {"avx512vpopcntdq", L7(ECX, 14, AVX512), NULL}, {"rdpid", L7(ECX, 22, NONE), NULL},
    {"kl", L7(ECX, 23, NONE), NULL}, {"cldemote", L7(ECX, 25, NONE), NULL}, {"movdiri", L7(ECX, 27, NONE), NULL},
    {"movdir64b", L7(ECX, 28, NONE), NULL}, {"enqcmd", L7(ECX, 29, NONE), NULL},
    {"uintr", L7(EDX, 5, NONE), NULL}, {"avx512vp2intersect", L7(EDX, 8, AVX512), NULL},
    {"serialize", L7(EDX, 14, NONE), NULL}, {"tsxldtrk", L7(EDX, 16, NONE), NULL},
    {"pconfig", L7(EDX, 18, NONE), NULL}, {"amx-bf16", L7(EDX, 22, AMX), NULL},
    {"avx512fp16", L7(EDX, 23, AVX512), NULL}, {"amx-tile", L7(EDX, 24, AMX), NULL},
    {"amx-int8", L7(EDX, 25, AMX), NULL},
    {"sha512", L7S1(EAX, 0, NONE), NULL}, {"sm3", L7S1(EAX, 1, NONE), NULL}, {"sm4", L7S1(EAX, 2, NONE), NULL},
    {"raoint", L7S1(EAX, 3, NONE), NULL}, {"avxvnni", L7S1(EAX, 4, AVX), NULL},
    {"avx512bf16", L7S1(EAX, 5, AVX512), NULL}, {"cmpccxadd", L7S1(EAX, 7, NONE), NULL},
    {"amx-fp16", L7S1(EAX, 21, AMX), NULL}, {"hreset", L7S1(EAX, 22, NONE), NULL},
    {"avxifma", L7S1(EAX, 23, AVX), NULL}, {"avxvnniint8", L7S1(EDX, 4, AVX), NULL},
    {"avxneconvert", L7S1(EDX, 5, AVX), NULL}, {"amx-complex", L7S1(EDX, 8, AMX), NULL},
    {"avxvnniint16", L7S1(EDX, 10, AVX), NULL}, {"prefetchi", L7S1(EDX, 14, NONE), NULL},
    {"usermsr", L7S1(EDX, 15, NONE), NULL}, {"avx10.1-256", L7S1(EDX, 19, AVX512), NULL},
    {"egpr", L7S1(EDX, 21, APX), NULL}, {"push2pop2", L7S1(EDX, 21, APX), NULL}, {"ppx", L7S1(EDX, 21, APX), NULL},
    {"ndd", L7S1(EDX, 21, APX), NULL}, {"ccmp", L7S1(EDX, 21, APX), NULL}, {"cf", L7S1(EDX, 21, APX), NULL},
    {"nf", L7S1(EDX, 21, APX), NULL}, {"zu", L7S1(EDX, 21, APX), NULL},
    {"xsaveopt", 0xd, 1, REG_EAX, 0, STATE_AVX, NULL}, {"xsavec", 0xd, 1, REG_EAX, 1, STATE_AVX, NULL},
    {"xsaves", 0xd, 1, REG_EAX, 3, STATE_AVX, NULL},
    {"ptwrite", 0x14, 0, REG_EBX, 4, STATE_NONE, NULL},
    {"widekl", 0x19, 0, REG_EBX, 2, STATE_NONE, NULL},
    {"avx10.1-512", 0x24, 0, REG_EBX, 18, STATE_AVX512, "avx10.1-256"},
};
#undef L1
#undef L7
#undef L7S1
#undef EXT1
#undef EXT8
enum { CPU_FEATURE_COUNT = sizeof CPU_FEATURES / sizeof CPU_FEATURES[0] };
_Static_assert(CPU_FEATURE_COUNT <= 128, "aot_cpu holds 128 features");

static int feature_index(const char *name, size_t n) {
    for (int i = 0; i < CPU_FEATURE_COUNT; i++)
        if (strlen(CPU_FEATURES[i].name) == n && !memcmp(CPU_FEATURES[i].name, name, n)) return i;
    return -1;
}

static bool cpu_has(const aot_cpu *cpu, int i) { return cpu->bits[i / 64] >> (i % 64) & 1; }

/* cpuid(leaf, subleaf) into r[4], false when the CPU has no such leaf
 * (above the highest basic or extended leaf, or leaf 7's subleaf count). */
static bool cpuid(uint32_t leaf, uint32_t subleaf, uint32_t r[4]) {
    uint32_t max = __get_cpuid_max(leaf & 0x80000000u, NULL);
    if (!max || leaf > max) return false;
    if (leaf == 7 && subleaf) {
        __cpuid_count(7, 0, r[0], r[1], r[2], r[3]);
        if (subleaf > r[0]) return false;
    }
    __cpuid_count(leaf, subleaf, r[0], r[1], r[2], r[3]);
    return true;
}

void aot_cpu_detect(aot_cpu *cpu) {
    memset(cpu, 0, sizeof *cpu);
    /* the register state the OS saves (XCR0), when it lets us read it (OSXSAVE) */
    uint32_t r[4] = {0}, xcr0 = 0, xcr0_high = 0;
    if (cpuid(1, 0, r) && (r[REG_ECX] >> 27 & 1)) __asm__("xgetbv" : "=a"(xcr0), "=d"(xcr0_high) : "c"(0));
    bool avx = (xcr0 & 0x6) == 0x6 && (r[REG_ECX] >> 28 & 1);
    bool state[] = {
        [STATE_NONE] = true,
        [STATE_AVX] = avx,
        [STATE_AVX512] = avx && (xcr0 & 0xe0) == 0xe0,
        [STATE_AMX] = (xcr0 & 0x60000) == 0x60000,
        [STATE_APX] = xcr0 >> 19 & 1,
    };
    for (int i = 0; i < CPU_FEATURE_COUNT; i++) {
        const cpu_feature *f = &CPU_FEATURES[i];
        bool on = f->leaf == LEAF_ALWAYS || (cpuid(f->leaf, f->subleaf, r) && (r[f->reg] >> f->bit & 1));
        if (on && state[f->state]) cpu->bits[i / 64] |= 1ull << (i % 64);
    }
    /* a feature that needs another: only with it */
    for (int i = 0; i < CPU_FEATURE_COUNT; i++) {
        const char *also = CPU_FEATURES[i].also;
        if (also && !cpu_has(cpu, feature_index(also, strlen(also)))) cpu->bits[i / 64] &= ~(1ull << (i % 64));
    }
}

/* Appends " name" (n bytes) to the list, cut at its size. */
static void list_add(char *list, size_t size, const char *name, size_t n) {
    size_t at = strlen(list);
    snprintf(list + at, size - at, "%s%.*s", at ? " " : "", (int)n, name);
}

bool aot_cpu_check(const char *features, const aot_cpu *cpu, aot_cpu_report *r) {
    r->lacks[0] = r->unknown[0] = '\0';
    for (const char *p = features; p && *p;) {
        size_t n = strcspn(p, ",");
        if (*p == '+') {
            int i = feature_index(p + 1, n - 1);
            if (i < 0) list_add(r->unknown, sizeof r->unknown, p + 1, n - 1);
            else if (!cpu_has(cpu, i)) list_add(r->lacks, sizeof r->lacks, p + 1, n - 1);
        }
        p += n + (p[n] == ',');
    }
    return !r->lacks[0] && !r->unknown[0];
}

/* Checks this CPU against the object's features (once the format is known
 * to be ours). */
static tilec_status check_cpu(tilec_context *ctx, const char *features, const char *target) {
    aot_cpu cpu;
    aot_cpu_report r;
    aot_cpu_detect(&cpu);
    if (aot_cpu_check(features, &cpu, &r)) return TILEC_OK;
    target = target ? target : "another CPU";
    if (r.lacks[0])
        tilec_error(ctx, TILEC_E_UNSUPPORTED, "TILEC-AOT11", tilec_no_loc(),
                    "the object was compiled for %s, this CPU lacks: %s (compile it with --cpu native on this "
                    "machine, or for a level it has: x86-64-v2, x86-64-v3, x86-64-v4)",
                    target, r.lacks);
    if (r.unknown[0])
        tilec_error(ctx, TILEC_E_UNSUPPORTED, "TILEC-AOT11", tilec_no_loc(),
                    "the object was compiled for %s with CPU features this runtime cannot check: %s (compile it "
                    "with this tilec, or for a level: x86-64-v2, x86-64-v3, x86-64-v4)",
                    target, r.unknown);
    return TILEC_E_UNSUPPORTED;
}

/* The object's runtime sizes and buckets, each bucket's node among the
 * `count` read after them (fixed up once they are). */
static void read_sizes(aot_reader *r, aot_loaded *l, uint32_t *bucket_node) {
    aot_get_dims(r, l->dims, &l->dim_count);
    l->bucket_count = aot_get_u32(r);
    if (!r->bad && (l->bucket_count > 64 || (l->bucket_count > 0) != (l->dim_count > 0))) r->bad = true;
    if (!r->bad && l->bucket_count && !(l->buckets = tilec_alloc(r->ctx, l->bucket_count * sizeof *l->buckets)))
        r->bad = true;
    for (uint32_t b = 0; !r->bad && b < l->bucket_count; b++) {
        for (uint32_t i = 0; i < l->dim_count; i++) {
            l->buckets[b].lo[i] = aot_get_i64(r);
            l->buckets[b].hi[i] = aot_get_i64(r);
        }
        bucket_node[b] = aot_get_u32(r);
    }
}

/* The object's programs, read at its first dispatch (aot_load_once) into
 * `into`. */
static tilec_status load(tilec_context *ctx, tilec_context *into, const aot_descriptor *d, void **out) {
    if (d->magic != AOT_MAGIC)
        return tilec_error(ctx, TILEC_E_UNSUPPORTED, "TILEC-AOT10", tilec_no_loc(),
                           "the object was not made for this runtime (tilec %s reads object format %u; the object's "
                           "descriptor says %#llx): compile it again with this tilec",
                           tilec_version(), AOT_FORMAT, (unsigned long long)d->magic);
    aot_reader r = {d->blob, d->blob + d->blob_bytes, false, into};
    uint32_t format = aot_get_u32(&r);
    char *features = aot_get_str(&r), *version = aot_get_str(&r), *cpu = aot_get_str(&r);
    if (!features) r.bad = true;
    tilec_status st = format == AOT_FORMAT && !r.bad ? check_cpu(ctx, features, cpu) : TILEC_OK;
    aot_loaded *l = tilec_alloc(into, sizeof *l);
    uint32_t bucket_node[64];
    if (l) memset(l, 0, sizeof *l), read_sizes(&r, l, bucket_node);
    uint32_t count = aot_get_u32(&r);
    aot_node *nodes = NULL;
    if (!st && l && !r.bad && count && count <= 64 && (nodes = tilec_alloc(into, count * sizeof *nodes))) {
        memset(nodes, 0, count * sizeof *nodes);
        for (uint32_t i = 0; i < count && !r.bad; i++) read_node(&r, nodes, i, count, d);
        for (uint32_t i = 0; i < count && !r.bad; i++) r.bad = !fits(&nodes[i].prog);
        for (uint32_t b = 0; !r.bad && b < l->bucket_count; b++) {
            /* a bucket of one point may be a static program (the kernel specialized there) */
            r.bad = bucket_node[b] >= count || (nodes[bucket_node[b]].prog.dim_count != l->dim_count &&
                                                nodes[bucket_node[b]].prog.dim_count != 0);
            if (!r.bad) l->buckets[b].prog = &nodes[bucket_node[b]].prog;
        }
        r.bad = r.bad || (!l->bucket_count && nodes[0].prog.dim_count);
    } else {
        r.bad = true;
    }
    if (!st && (r.bad || r.at != r.end))
        st = tilec_error(ctx, TILEC_E_UNSUPPORTED, "TILEC-AOT12", tilec_no_loc(),
                         "the object's kernel description is damaged (made by tilec %s)", version ? version : "?");
    if (!st) {
        l->kernel = &nodes[0].prog;
        l->name = nodes[0].name ? nodes[0].name : "kernel";
        *out = l;
    }
    /* on failure what was read stays in into (freed with the process) */
    return st;
}

tilec_status aot_kernel_load(tilec_context *ctx, const aot_descriptor *d) {
    void *l = NULL;
    return aot_load_once(ctx, d, load, &l);
}

/* ---- dispatch ---- */

/* The program serving dims (checked against the sizes' ranges, which the
 * buckets cover). */
static rt_program *bucket_program(const aot_loaded *l, const int64_t *dims) {
    for (uint32_t b = 0; b < l->bucket_count; b++)
        if (rt_dims_within(l->buckets[b].lo, l->buckets[b].hi, l->dim_count, dims)) return l->buckets[b].prog;
    return NULL;
}

enum { TYPED_MAX_ARGS = 64 };

/* `typed`: the typed entry's call, which trusts its pointers: a buffer of
 * a runtime-size parameter comes with 0 bytes and is taken to have the
 * bytes the kernel reads at these sizes. */
static tilec_status dispatch(tilec_context *ctx, tilec_runtime *rt, const tilec_aot_kernel *k, size_t n,
                             const tilec_buffer *args, size_t n_dims, const int64_t *dims, bool typed) {
    if (!k) return tilec_error(ctx, TILEC_E_ARG, "TILEC-D01", tilec_no_loc(), "tilec_aot_dispatch: no kernel");
    void *loaded = NULL;
    tilec_status st = aot_load_once(ctx, (const aot_descriptor *)k, load, &loaded);
    if (st) return st;
    const aot_loaded *l = loaded;
    st = rt_check_dims(ctx, l->name, l->dims, l->dim_count, n_dims, dims,
                                    "dispatch it with tilec_aot_dispatch_dims");
    if (st) return st;
    rt_program *p = l->bucket_count ? bucket_program(l, dims) : l->kernel;
    if (!p) return tilec_error(ctx, TILEC_E_INTERNAL, "RT-D10", tilec_no_loc(), "%s: no bucket holds these sizes", l->name);
    if (!rt) rt = tilec_aot_default_runtime();
    if (!rt)
        return tilec_error(ctx, TILEC_E_RUNTIME, "RT-P03", tilec_no_loc(), "no default runtime: %s", default_error);
    tilec_buffer trusted[TYPED_MAX_ARGS];
    if (typed && l->dim_count && n == p->user_args && n <= TYPED_MAX_ARGS && args) {
        memcpy(trusted, args, n * sizeof *args);
        for (size_t i = 0; i < n; i++) { /* (a bucket of one point runs a static program: its own bytes) */
            int64_t bytes = (int64_t)p->desc.params[i].min_bytes;
            if (!trusted[i].size_bytes && (!p->arg_bytes || !p->arg_bytes[i].count ||
                                           (rt_size_eval(&p->arg_bytes[i], dims, p->dim_count, &bytes) && bytes >= 0)))
                trusted[i].size_bytes = (size_t)bytes;
        }
        args = trusted;
    }
    return rt_runtime_dispatch(ctx, rt, p, n, args, dims);
}

/* A dispatch into the calling thread's context, cleared first: it holds
 * this call's diagnostics only (tilec_aot_last_error), however many calls
 * failed before. */
static tilec_status dispatch_here(tilec_runtime *rt, const tilec_aot_kernel *k, size_t n, const tilec_buffer *args,
                                  size_t n_dims, const int64_t *dims, bool typed) {
    thread_state *t = this_thread();
    if (!t) return TILEC_E_NOMEM;
    tilec_diag_clear(t->ctx);
    return dispatch(t->ctx, rt, k, n, args, n_dims, dims, typed);
}

tilec_status tilec_aot_dispatch_dims(tilec_context *ctx, tilec_runtime *rt, const tilec_aot_kernel *k, size_t n,
                                     const tilec_buffer *args, size_t n_dims, const int64_t *dims) {
    return ctx ? dispatch(ctx, rt, k, n, args, n_dims, dims, false) : dispatch_here(rt, k, n, args, n_dims, dims, false);
}

tilec_status tilec_aot_dispatch(tilec_context *ctx, tilec_runtime *rt, const tilec_aot_kernel *k, size_t n,
                                const tilec_buffer *args) {
    return tilec_aot_dispatch_dims(ctx, rt, k, n, args, 0, NULL);
}

tilec_status tilec_aot_call_dims(const tilec_aot_kernel *k, size_t n, const tilec_buffer *args, size_t n_dims,
                                 const int64_t *dims) {
    return dispatch_here(NULL, k, n, args, n_dims, dims, true);
}

tilec_status tilec_aot_call(const tilec_aot_kernel *k, size_t n, const tilec_buffer *args) {
    return tilec_aot_call_dims(k, n, args, 0, NULL);
}

const char *tilec_aot_last_error(void) {
    thread_state *t = this_thread();
    if (!t) return "out of memory (no context for this thread)";
    size_t need = tilec_diag_render(t->ctx, NULL, 0) + 1;
    char *text = realloc(t->text, need);
    if (!text) return "out of memory rendering the diagnostics";
    t->text = text;
    tilec_diag_render(t->ctx, text, need);
    return text;
}
