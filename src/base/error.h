/* Internal error reporting: set the thread's message and return the status in one expression,
 *   if (n < 0) return cl_fail(CL_ERR_PARSE, "%s:%d: negative vertex count %d", path, line, n);
 * The public side is cl_last_error() in include/cleave/status.h. */
#ifndef CL_BASE_ERROR_H
#define CL_BASE_ERROR_H

#include "cleave/status.h"

#if defined(__GNUC__)
#define CL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CL_PRINTF(f, a)
#endif

/* Record a formatted message for cl_last_error() and return `status`. */
cl_status cl_fail(cl_status status, const char *fmt, ...) CL_PRINTF(2, 3);
/* Prepend context to the current message ("body 'bar': " + message) and return `status`. */
cl_status cl_fail_context(cl_status status, const char *fmt, ...) CL_PRINTF(2, 3);

/* Check a double parameter against a closed range; NaN fails. The message names the parameter,
 * its value and the allowed range. */
cl_status cl_check_range(const char *name, double value, double lo, double hi);
/* Same for a positive finite value (> 0). */
cl_status cl_check_positive(const char *name, double value);

#define CL_TRY(expr)                     \
  do {                                   \
    cl_status cl_try_s_ = (expr);        \
    if (cl_try_s_ < 0) return cl_try_s_; \
  } while (0)

#endif
