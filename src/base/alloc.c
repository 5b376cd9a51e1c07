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

size_t cl_grow_capacity(size_t capacity, size_t need, size_t limit) {
  size_t cap = capacity ? capacity : 16;
  while (cap < need) {
    const size_t step = cap / 2 + 16;
    if (step > limit || cap > limit - step) return limit > need ? limit : need; /* the step would pass it */
    cap += step;
  }
  return cap < limit ? cap : (limit > need ? limit : need);
}

cl_status cl_resize(void **p, size_t count, size_t elem, const char *what) {
  if (elem && count > SIZE_MAX / elem)
    return cl_fail(CL_ERR_OUT_OF_MEMORY, "out of memory: %zu elements of %zu bytes for %s exceed the address space",
                   count, elem, what ? what : "an array");
  const size_t bytes = count * elem;
  void *q = realloc(*p, bytes ? bytes : 1);
  if (!q)
    return cl_fail(CL_ERR_OUT_OF_MEMORY, "out of memory growing %s to %zu elements (%zu bytes)",
                   what ? what : "an array", count, bytes);
  *p = q;
  return CL_OK;
}

cl_status cl_reserve(void **p, size_t *capacity, size_t need, size_t elem) {
  if (need <= *capacity) return CL_OK;
  const size_t cap = cl_grow_capacity(*capacity, need, SIZE_MAX / (elem ? elem : 1));
  CL_TRY(cl_resize(p, cap, elem, "an array")); /* fails with the sizes if need is beyond the address space */
  *capacity = cap;
  return CL_OK;
}
