/* Allocation that reports failure through cl_fail. Growable arrays:
 *   if (cl_reserve((void **)&a, &cap, n + 1, sizeof *a)) return CL_ERR_OUT_OF_MEMORY; */
#ifndef CL_BASE_ALLOC_H
#define CL_BASE_ALLOC_H

#include <stddef.h>

#include "cleave/status.h"

/* malloc/calloc that set an "out of memory" message naming `what` when they fail. */
void *cl_malloc(size_t bytes, const char *what);
void *cl_calloc(size_t count, size_t size, const char *what);
/* Make *p hold at least `need` elements of `elem` bytes (capacity grows geometrically). */
cl_status cl_reserve(void **p, size_t *capacity, size_t need, size_t elem);

#endif
