/* clock.h — milliseconds on the monotonic clock, for the compile-time
 * breakdowns the drivers and backends report. */
#ifndef TILEC_BASE_CLOCK_H
#define TILEC_BASE_CLOCK_H

#include <time.h>

static inline double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

#endif
