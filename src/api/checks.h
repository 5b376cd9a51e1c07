/* The argument checks the public functions (src/api/) start with: each failure names the function,
 * the argument and what is allowed. */
#ifndef CL_API_CHECKS_H
#define CL_API_CHECKS_H

#include <stdint.h>

#include "base/error.h"

#define CHECK_NULL(p, fn)                                                          \
  do {                                                                             \
    if (!(p)) return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, #p);   \
  } while (0)

static inline cl_status check_capacity(const char *fn, int64_t capacity, int64_t need, const char *unit) {
  if (capacity < need)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: capacity %lld is too small, %lld %s needed", fn, (long long)capacity,
                   (long long)need, unit);
  return CL_OK;
}

#endif
