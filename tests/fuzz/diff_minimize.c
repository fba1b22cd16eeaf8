/* diff_minimize.c — delta debugging over statement lines and regions
 * (diff_minimize.h).  The text is held as an array of lines with a `keep`
 * flag; a unit is one statement line or a region (opening line through its
 * closing brace).  Each round first tries removing chunks of units (halves,
 * quarters, ... — classic ddmin on the complement), then single units from
 * the last to the first (uses before their definitions), and repeats until
 * a round removes nothing; at the end, unused parameters go (with their
 * `bind=` lines). */
#include "diff_minimize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char **line;
    bool *keep;
    size_t n;
} lines;

typedef struct {
    size_t first, last; /* line range, inclusive */
} unit;

static void split(const char *text, lines *l) {
    size_t n = 1;
    for (const char *p = text; *p; p++) n += *p == '\n';
    l->line = calloc(n, sizeof *l->line);
    l->keep = calloc(n, sizeof *l->keep);
    l->n = 0;
    for (const char *p = text; *p;) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        l->line[l->n] = strndup(p, len);
        l->keep[l->n++] = true;
        p += len + (end != NULL);
    }
}

static char *join(const lines *l, const bool *keep) {
    size_t size = 1;
    for (size_t i = 0; i < l->n; i++)
        if (keep[i]) size += strlen(l->line[i]) + 1;
    char *text = malloc(size), *p = text;
    for (size_t i = 0; i < l->n; i++)
        if (keep[i]) {
            size_t len = strlen(l->line[i]);
            memcpy(p, l->line[i], len);
            p += len;
            *p++ = '\n';
        }
    *p = 0;
    return text;
}

static const char *trimmed(const char *s) {
    while (*s == ' ' || *s == '\t') s++;
    return s;
}

static bool opens(const char *s) {
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\r')) n--;
    return n && s[n - 1] == '{';
}

/* Units among the kept lines: statements and regions inside the kernel. */
static size_t find_units(const lines *l, unit *out) {
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (!l->keep[i]) continue;
        const char *t = trimmed(l->line[i]);
        if (!*t || !strncmp(t, "//", 2) || !strncmp(t, "kernel", 6) || *t == '}') continue;
        size_t last = i;
        if (opens(t)) { /* through the matching closing brace */
            int depth = 0;
            for (size_t j = i; j < l->n; j++) {
                if (!l->keep[j]) continue;
                const char *u = trimmed(l->line[j]);
                if (*u == '}' && opens(u)) continue; /* `} combine (..) (..) {`: closes a body, opens the next */
                if (opens(u)) depth++;
                else if (*u == '}') depth--;
                if (depth == 0) {
                    last = j;
                    break;
                }
            }
        }
        out[n++] = (unit){i, last};
    }
    return n;
}

typedef struct {
    lines *l;
    diff_still_fails test;
    void *env;
    size_t max_tests, *tests;
} search;

/* Tries dropping units [from, to); keeps the removal when the failure persists. */
static bool try_drop(search *s, const unit *u, size_t from, size_t to) {
    if (*s->tests >= s->max_tests) return false;
    bool *keep = malloc(s->l->n * sizeof *keep);
    memcpy(keep, s->l->keep, s->l->n * sizeof *keep);
    for (size_t k = from; k < to; k++)
        for (size_t i = u[k].first; i <= u[k].last; i++) keep[i] = false;
    char *text = join(s->l, keep);
    ++*s->tests;
    bool fails = s->test(text, s->env);
    free(text);
    if (fails) memcpy(s->l->keep, keep, s->l->n * sizeof *keep);
    free(keep);
    return fails;
}

/* One round; true when something was removed. */
static bool round_once(search *s) {
    unit *u = malloc(s->l->n * sizeof *u);
    size_t n = find_units(s->l, u);
    bool removed = false;
    /* chunks of the outermost units (regions cover their contents) */
    size_t top = 0;
    unit *outer = malloc((n ? n : 1) * sizeof *outer);
    for (size_t k = 0; k < n; k++)
        if (!top || u[k].first > outer[top - 1].last) outer[top++] = u[k];
    for (size_t parts = 2; parts <= top && top >= 2;) {
        size_t size = (top + parts - 1) / parts;
        bool hit = false;
        for (size_t from = top; from > 0 && !hit;) {
            size_t start = from > size ? from - size : 0;
            if (try_drop(s, outer, start, from)) {
                hit = removed = true;
                memmove(outer + start, outer + from, (top - from) * sizeof *outer);
                top -= from - start;
            }
            from = start;
        }
        if (!hit) parts *= 2;
        else if (parts > 2) parts--;
    }
    free(outer);
    /* single units, last first, re-reading the units after each removal */
    n = find_units(s->l, u);
    for (size_t k = n; k-- > 0;) {
        if (k >= n) continue;
        if (try_drop(s, u, k, k + 1)) {
            removed = true;
            n = find_units(s->l, u);
        }
    }
    free(u);
    return removed;
}

/* The kernel line's parameters: [start, end) byte ranges of "%P: ... view<..>[...]". */
static size_t find_params(const char *line, size_t *start, size_t *end, size_t max) {
    const char *open = strchr(line, '(');
    size_t n = 0;
    if (!open) return 0;
    int depth = 0;
    size_t from = (size_t)(open - line) + 1;
    for (size_t i = from; line[i] && n < max; i++) {
        char c = line[i];
        if (c == '[' || c == '<' || c == '(') depth++;
        else if ((c == ']' || c == '>') && depth) depth--;
        else if ((c == ',' && depth == 0) || (c == ')' && depth == 0)) {
            while (line[from] == ' ') from++;
            if (i > from) start[n] = from, end[n++] = i;
            from = i + 1;
            if (c == ')') break;
        } else if (c == ')') depth--;
    }
    return n;
}

/* Tries removing each parameter (and its `bind=` header line). */
static bool drop_params(search *s) {
    bool removed = false;
    for (size_t k = 0; k < s->l->n; k++) {
        if (!s->l->keep[k] || strncmp(trimmed(s->l->line[k]), "kernel", 6)) continue;
        size_t start[64], end[64];
        for (size_t n = find_params(s->l->line[k], start, end, 64), p = n; p-- > 0 && *s->tests < s->max_tests;) {
            char *line = s->l->line[k], name[64];
            size_t len = strcspn(line + start[p] + 1, ":");
            snprintf(name, sizeof name, "%.*s", (int)(len < 63 ? len : 63), line + start[p] + 1);
            /* the line without parameter p (and its separator) */
            size_t cut_from = p ? end[p - 1] : start[p], cut_to = p ? end[p] : (p + 1 < n ? start[p + 1] : end[p]);
            char *shorter = malloc(strlen(line) + 1);
            snprintf(shorter, strlen(line) + 1, "%.*s%s", (int)cut_from, line, line + cut_to);
            char bind[96];
            snprintf(bind, sizeof bind, "// fuzz_diff: bind=%s:", name);
            bool *keep = malloc(s->l->n * sizeof *keep);
            memcpy(keep, s->l->keep, s->l->n * sizeof *keep);
            for (size_t i = 0; i < s->l->n; i++)
                if (!strncmp(s->l->line[i], bind, strlen(bind))) keep[i] = false;
            s->l->line[k] = shorter;
            char *text = join(s->l, keep);
            ++*s->tests;
            if (s->test(text, s->env)) {
                memcpy(s->l->keep, keep, s->l->n * sizeof *keep);
                free(line);
                removed = true;
                n = find_params(shorter, start, end, 64);
                if (p > n) p = n;
            } else {
                s->l->line[k] = line;
                free(shorter);
            }
            free(text);
            free(keep);
        }
    }
    return removed;
}

char *diff_minimize(const char *text, diff_still_fails test, void *env, size_t max_tests, size_t *tests) {
    lines l;
    split(text, &l);
    size_t count = 0;
    search s = {&l, test, env, max_tests, tests ? tests : &count};
    while (round_once(&s) && *s.tests < max_tests) {
    }
    drop_params(&s);
    char *out = join(&l, l.keep);
    for (size_t i = 0; i < l.n; i++) free(l.line[i]);
    free(l.line);
    free(l.keep);
    return out;
}
