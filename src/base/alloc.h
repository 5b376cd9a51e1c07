/* Allocation that reports failure through cl_fail, naming what ran out.
 *
 * Growable arrays: one array with its own capacity,
 *   if (cl_reserve((void **)&a, &cap, n + 1, sizeof *a)) return CL_ERR_OUT_OF_MEMORY;
 * several arrays sharing one capacity (per-node scratch of a solver or criterion):
 *   if (n > s->cap) {
 *     const size_t cap = cl_grow_capacity((size_t)s->cap, (size_t)n, INT32_MAX);
 *     CL_TRY(CL_RESIZE(s->force, 3 * cap, "node forces"));
 *     CL_TRY(CL_RESIZE(s->label, cap, "node labels"));
 *     s->cap = (int32_t)cap;
 *   }
 * (an array that grew before a later one failed is only larger than s->cap says: still valid). */
#ifndef CL_BASE_ALLOC_H
#define CL_BASE_ALLOC_H

#include <stddef.h>

#include "cleave/status.h"

/* malloc/calloc that set an "out of memory" message naming `what` when they fail. */
void *cl_malloc(size_t bytes, const char *what);
void *cl_calloc(size_t count, size_t size, const char *what);

/* The capacity to grow an array to so that it holds `need` elements: at least need, geometric
 * (capacity + capacity / 2 + 16 until it suffices) so that n one-by-one appends cost O(n) copies,
 * and at most `limit` (limit >= need; e.g. INT32_MAX for int32_t counts). */
size_t cl_grow_capacity(size_t capacity, size_t need, size_t limit);

/* Resize *p to `count` elements of `elem` bytes (realloc: the contents up to the smaller size are
 * kept, new elements are uninitialised). On failure *p is unchanged and the message names `what` and
 * the size asked for. */
cl_status cl_resize(void **p, size_t count, size_t elem, const char *what);
/* cl_resize with the element size taken from the pointer's type. */
#define CL_RESIZE(ptr, count, what) cl_resize((void **)&(ptr), (count), sizeof *(ptr), (what))

/* Make *p hold at least `need` elements of `elem` bytes (capacity grows by cl_grow_capacity). */
cl_status cl_reserve(void **p, size_t *capacity, size_t need, size_t elem);

#endif
