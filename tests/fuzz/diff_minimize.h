/* diff_minimize.h — delta debugging of a failing case file: removes kernel
 * statements (a line) and whole regions (a line ending in `{` through its
 * matching `}`) while the caller's test says the failure persists, then the
 * parameters the kernel no longer needs (from the `kernel` line, with their
 * `bind=` lines).  Comment lines (the case header) are kept.  A candidate
 * that no longer parses simply does not fail, so the test decides validity. */
#ifndef TILEC_TESTS_DIFF_MINIMIZE_H
#define TILEC_TESTS_DIFF_MINIMIZE_H

#include <stdbool.h>
#include <stddef.h>

/* True when `text` still shows the failure being minimized. */
typedef bool (*diff_still_fails)(const char *text, void *env);

/* The smallest text found (malloc'd; a copy of `text` when nothing could
 * go); *tests counts the candidates tried.  Stops after max_tests. */
char *diff_minimize(const char *text, diff_still_fails test, void *env, size_t max_tests, size_t *tests);

#endif
