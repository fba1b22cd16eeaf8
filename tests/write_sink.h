/* write_sink.h — a tir_write_fn for tests: what is written collected into
 * one NUL-terminated malloc'd text (free its data), the calls counted. */
#ifndef TILEC_TEST_WRITE_SINK_H
#define TILEC_TEST_WRITE_SINK_H

#include "tilec/tir.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    char *data;
    size_t len, calls;
} write_sink;

static inline tilec_status write_sink_append(void *user, const char *bytes, size_t n) {
    write_sink *s = user;
    char *grown = realloc(s->data, s->len + n + 1);
    if (!grown) return TILEC_E_NOMEM;
    memcpy(grown + s->len, bytes, n);
    s->data = grown;
    s->len += n;
    s->calls++;
    s->data[s->len] = 0;
    return TILEC_OK;
}

#endif
