#include "base/alloc.h"

#include <stdint.h>
#include <stdlib.h>

#include "base/error.h"

void *cl_malloc(size_t bytes, const char *what) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) cl_fail(CL_ERR_OUT_OF_MEMORY, "out of memory allocating %zu bytes for %s", bytes, what);
  return p;
}

void *cl_calloc(size_t count, size_t size, const char *what) {
  void *p = calloc(count ? count : 1, size ? size : 1);
  if (!p) cl_fail(CL_ERR_OUT_OF_MEMORY, "out of memory allocating %zu x %zu bytes for %s", count, size, what);
  return p;
}

cl_status cl_reserve(void **p, size_t *capacity, size_t need, size_t elem) {
  if (need <= *capacity) return CL_OK;
  size_t cap = *capacity ? *capacity : 16;
  while (cap < need) cap += cap / 2 + 16;
  if (cap > SIZE_MAX / elem) return cl_fail(CL_ERR_OUT_OF_MEMORY, "array of %zu elements is too large", need);
  void *q = realloc(*p, cap * elem);
  if (!q) return cl_fail(CL_ERR_OUT_OF_MEMORY, "out of memory growing an array to %zu elements", cap);
  *p = q;
  *capacity = cap;
  return CL_OK;
}
