/* types.c — dimensions, IndexSpaces and types.  Spaces and types are interned
 * per module (structural equality == pointer equality); a dim is an identity,
 * its label only a name for diagnostics and text. */
#include "tir/form.h"
#include "base/checked.h"

#include <stdio.h>
#include <string.h>

tir_dim *tir_dim_new(tir_module *m, const char *label) {
    tir_dim *d = ARENA_NEW(&m->arena, tir_dim);
    if (!d) return NULL;
    d->id = ++m->dim_count;
    d->label = arena_strdup(&m->arena, label ? label : "d");
    return d->label ? d : NULL;
}

tir_dim *tir_dim_positional(tir_module *m, uint32_t from_right) {
    while (m->positional.len <= from_right)
        if (!VEC_PUSH(m->ctx, &m->positional, NULL)) return NULL;
    if (!m->positional.data[from_right]) {
        char label[32];
        snprintf(label, sizeof label, "positional.%u", from_right);
        m->positional.data[from_right] = tir_dim_new(m, label);
    }
    return m->positional.data[from_right];
}

const char *tir_dim_label(const tir_dim *d) { return d->label; }
uint32_t tir_dim_id(const tir_dim *d) { return d->id; }

/* The interning key of a space is its axes array: (dim, extent) pairs with no
 * padding, compared as bytes; the space stores its own copy. */
_Static_assert(sizeof(tir_axis) == 16, "tir_axis has no padding");

tir_space *tir_space_make(tir_module *m, size_t rank, tir_dim *const *dims, const uint64_t *extents) {
    for (size_t i = 0; i < rank; i++) {
        if (!dims[i]) {
            tilec_error(m->ctx, TILEC_E_ARG, "TIR-B01", tilec_no_loc(), "index space axis %zu has no dimension", i);
            return NULL;
        }
        if (tir_extent_is_symbolic(extents[i]) && !tir_extent_form(m, extents[i])) {
            tilec_error(m->ctx, TILEC_E_ARG, "TIR-B55", tilec_no_loc(),
                        "index space axis %zu has extent %#llx: at or above 2^63 and not a runtime size of this module",
                        i, (unsigned long long)extents[i]);
            return NULL;
        }
        for (size_t j = 0; j < i; j++)
            if (dims[j] == dims[i]) {
                tilec_error(m->ctx, TILEC_E_SHAPE, "TIR-B02", tilec_no_loc(),
                            "dimension '%s' appears twice in an index space", dims[i]->label);
                return NULL;
            }
    }
    /* Spaces are small; a rank above 16 builds its lookup key on the heap. */
    tir_axis local[16] = {{0}}, *key = local;
    if (rank > sizeof local / sizeof local[0] && !(key = tilec_alloc(m->ctx, rank * sizeof *key))) return NULL;
    for (size_t i = 0; i < rank; i++) key[i] = (tir_axis){dims[i], extents[i]};
    tir_space *s = hashmap_get(&m->spaces, key, rank * sizeof *key);
    if (!s && (s = arena_alloc(&m->arena, sizeof *s + rank * sizeof(tir_axis)))) {
        s->rank = (uint32_t)rank;
        if (rank) memcpy(s->axes, key, rank * sizeof *key);
        if (!hashmap_put(&m->spaces, s->axes, rank * sizeof *key, s)) s = NULL;
    }
    if (key != local) tilec_free(m->ctx, key);
    return s;
}

tir_space *tir_space_positional(tir_module *m, size_t rank, const uint64_t *extents) {
    tir_dim *dims[64];
    if (rank > 64) {
        tilec_error(m->ctx, TILEC_E_ARG, "TIR-B01", tilec_no_loc(), "positional space rank %zu exceeds 64", rank);
        return NULL;
    }
    for (size_t i = 0; i < rank; i++)
        if (!(dims[i] = tir_dim_positional(m, (uint32_t)(rank - 1 - i)))) return NULL;
    return tir_space_make(m, rank, dims, extents);
}

size_t tir_space_rank(const tir_space *s) { return s->rank; }
tir_dim *tir_space_dim(const tir_space *s, size_t axis) { return s->axes[axis].dim; }
uint64_t tir_space_extent(const tir_space *s, size_t axis) { return s->axes[axis].extent; }

int tir_space_find(const tir_space *s, const tir_dim *d) {
    for (uint32_t i = 0; i < s->rank; i++)
        if (s->axes[i].dim == d) return (int)i;
    return -1;
}

bool tir_space_volume(const tir_space *s, uint64_t *volume) {
    uint64_t v = 1;
    if (!tir_space_is_static(s)) return false;
    for (uint32_t i = 0; i < s->rank; i++)
        if (s->axes[i].extent == 0) {
            *volume = 0;
            return true;
        }
    for (uint32_t i = 0; i < s->rank; i++)
        if (!checked_mul_u64(v, s->axes[i].extent, &v)) return false;
    *volume = v;
    return true;
}

bool tir_space_broadcasts_to(const tir_space *from, const tir_space *to) {
    for (uint32_t i = 0; i < from->rank; i++) {
        int j = tir_space_find(to, from->axes[i].dim);
        if (j < 0 || (from->axes[i].extent != 1 && from->axes[i].extent != to->axes[j].extent)) return false;
    }
    return true;
}

tir_space *tir_space_join(tir_module *m, size_t n, tir_space *const *spaces) {
    /* Start from the first operand of largest rank, then merge every operand. */
    const tir_space *start = NULL;
    for (size_t i = 0; i < n; i++)
        if (spaces[i] && (!start || spaces[i]->rank > start->rank)) start = spaces[i];
    if (!start) return tir_space_make(m, 0, NULL, NULL);
    VEC(tir_dim *) dims = {0};
    VEC(uint64_t) extents = {0};
    tir_space *result = NULL;
    bool conflict = false;
    for (uint32_t i = 0; i < start->rank; i++)
        if (!VEC_PUSH(m->ctx, &dims, start->axes[i].dim) || !VEC_PUSH(m->ctx, &extents, start->axes[i].extent))
            goto done;
    for (size_t k = 0; k < n; k++) {
        const tir_space *s = spaces[k];
        if (!s) continue;
        for (uint32_t i = 0; i < s->rank; i++) {
            size_t j = 0;
            while (j < dims.len && dims.data[j] != s->axes[i].dim) j++;
            uint64_t e = s->axes[i].extent;
            if (j == dims.len) {
                if (!VEC_PUSH(m->ctx, &dims, s->axes[i].dim) || !VEC_PUSH(m->ctx, &extents, e)) goto done;
            } else if (extents.data[j] == 1) {
                extents.data[j] = e;
            } else if (e != 1 && e != extents.data[j]) {
                strbuf l, r;
                strbuf_init(&l, m->ctx), strbuf_init(&r, m->ctx);
                tir_extent_print(&l, m, extents.data[j]), tir_extent_print(&r, m, e);
                tilec_error(m->ctx, TILEC_E_SHAPE, "TIR-B03", tilec_no_loc(),
                            "cannot join dimension '%s': extent %s against %s", s->axes[i].dim->label,
                            l.data ? l.data : "?", r.data ? r.data : "?");
                strbuf_free(&l), strbuf_free(&r);
                conflict = true;
                goto done;
            }
        }
    }
    result = tir_space_make(m, dims.len, dims.data, extents.data);
done:
    if (!result && !conflict)
        tilec_error(m->ctx, TILEC_E_NOMEM, "TIR-M01", tilec_no_loc(), "out of memory joining index spaces");
    VEC_FREE(m->ctx, &dims);
    VEC_FREE(m->ctx, &extents);
    return result;
}

/* A type's interning key, stored right after the type. */
typedef struct {
    uint32_t kind, elem;
    const tir_space *space;
} type_key;
_Static_assert(sizeof(type_key) == 16, "type_key has no padding");

typedef struct {
    tir_type type;
    type_key key;
} interned_type;

static tir_type *intern_type(tir_module *m, tir_type_kind kind, tir_scalar elem, tir_space *space) {
    type_key key = {(uint32_t)kind, (uint32_t)elem, space};
    tir_type *found = hashmap_get(&m->types, &key, sizeof key);
    if (found) return found;
    interned_type *t = ARENA_NEW(&m->arena, interned_type);
    if (!t) return NULL;
    t->type.kind = kind;
    t->type.elem = elem;
    t->type.space = space;
    t->key = key;
    return hashmap_put(&m->types, &t->key, sizeof t->key, &t->type) ? &t->type : NULL;
}

tir_type *tir_type_index(tir_module *m) {
    if (!m->index_type) m->index_type = intern_type(m, TIR_TYPE_INDEX, TIR_SCALAR_INVALID, NULL);
    return m->index_type;
}

static bool valid_scalar(tir_module *m, tir_scalar s) {
    if (s > TIR_SCALAR_INVALID && s < TIR_SCALAR_COUNT) return true;
    tilec_error(m->ctx, TILEC_E_TYPE, "TIR-B04", tilec_no_loc(), "invalid scalar type %d", (int)s);
    return false;
}

tir_type *tir_type_scalar(tir_module *m, tir_scalar s) {
    return valid_scalar(m, s) ? intern_type(m, TIR_TYPE_SCALAR, s, NULL) : NULL;
}

tir_type *tir_type_tile(tir_module *m, tir_scalar s, tir_space *space) {
    if (space && !tir_space_is_static(space)) {
        strbuf text;
        strbuf_init(&text, m->ctx);
        for (uint32_t i = 0; i < space->rank; i++)
            if (tir_extent_is_symbolic(space->axes[i].extent)) {
                strbuf_printf(&text, "%s=", space->axes[i].dim->label);
                tir_extent_print(&text, m, space->axes[i].extent);
                break;
            }
        tilec_error(m->ctx, TILEC_E_SHAPE, "TIR-B56", tilec_no_loc(),
                    "a tile's extents must be static, and %s depends on a runtime size (a tile is held in "
                    "registers or private memory of a size known when compiling)",
                    text.data ? text.data : "an axis");
        strbuf_free(&text);
        return NULL;
    }
    return valid_scalar(m, s) && space ? intern_type(m, TIR_TYPE_TILE, s, space) : NULL;
}

tir_type *tir_type_view(tir_module *m, tir_scalar s, tir_space *space) {
    return valid_scalar(m, s) && space ? intern_type(m, TIR_TYPE_VIEW, s, space) : NULL;
}

tir_type_kind tir_type_kind_of(const tir_type *t) { return t->kind; }
tir_scalar tir_type_elem(const tir_type *t) { return t->kind == TIR_TYPE_INDEX ? TIR_I64 : t->elem; }
tir_space *tir_type_space(const tir_type *t) { return t->space; }
