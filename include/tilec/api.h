/* api.h — what every public header shares: the library's version and the
 * export marker of its entry points.
 *
 * The shared library libtilec.so exports exactly the functions declared
 * TILEC_API in include/tilec/ (all named tilec_* or tir_*); everything else
 * in it is hidden (built with -fvisibility=hidden), and the installed static
 * libtilec.a keeps only the same symbols global. */
#ifndef TILEC_API_H
#define TILEC_API_H

/* The version of the headers; tilec_version() gives the library's. */
#define TILEC_VERSION_MAJOR 0
#define TILEC_VERSION_MINOR 15
#define TILEC_VERSION_PATCH 0
#define TILEC_VERSION_STRING "0.15.0"
/* MAJOR·10000 + MINOR·100 + PATCH, for #if comparisons. */
#define TILEC_VERSION (TILEC_VERSION_MAJOR * 10000 + TILEC_VERSION_MINOR * 100 + TILEC_VERSION_PATCH)

#if defined(TILEC_BUILDING_LIBRARY) && defined(__GNUC__)
#define TILEC_API __attribute__((visibility("default")))
#else
#define TILEC_API
#endif

#endif
