/* ilist.h — intrusive doubly-linked list operations shared by the IRs (TileIR
 * ops in blocks, XIR instructions and blocks, use lists).  A node has `prev`
 * and `next` fields; a list is a (first, last) pair of lvalues in its owner, or
 * a lone head pointer for use lists (ILIST_PUSH_FRONT / ILIST_REMOVE with a
 * NULL-tolerant last).  The macros evaluate their arguments more than once:
 * pass plain variables or fields. */
#ifndef TILEC_BASE_ILIST_H
#define TILEC_BASE_ILIST_H

#include <stddef.h>

/* Unlinks `node` from the list (first, last) and clears its links. */
#define ILIST_REMOVE(first, last, node) \
    do { \
        if ((node)->prev) (node)->prev->next = (node)->next; \
        else (first) = (node)->next; \
        if ((node)->next) (node)->next->prev = (node)->prev; \
        else (last) = (node)->prev; \
        (node)->prev = (node)->next = NULL; \
    } while (0)

#define ILIST_APPEND(first, last, node) \
    do { \
        (node)->prev = (last); \
        (node)->next = NULL; \
        if (last) (last)->next = (node); \
        else (first) = (node); \
        (last) = (node); \
    } while (0)

/* Inserts `node` before `position`, which is in the list whose head is `first`. */
#define ILIST_INSERT_BEFORE(first, node, position) \
    do { \
        (node)->next = (position); \
        (node)->prev = (position)->prev; \
        if ((position)->prev) (position)->prev->next = (node); \
        else (first) = (node); \
        (position)->prev = (node); \
    } while (0)

/* Head-only lists (use lists): push at the front, remove anywhere. */
#define ILIST_PUSH_FRONT(head, node) \
    do { \
        (node)->prev = NULL; \
        (node)->next = (head); \
        if (head) (head)->prev = (node); \
        (head) = (node); \
    } while (0)

#define ILIST_REMOVE_HEADED(head, node) \
    do { \
        if ((node)->prev) (node)->prev->next = (node)->next; \
        else (head) = (node)->next; \
        if ((node)->next) (node)->next->prev = (node)->prev; \
        (node)->prev = (node)->next = NULL; \
    } while (0)

#endif
