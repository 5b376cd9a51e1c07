/* cmocka assertions for cleave statuses and floating-point comparisons, shared by the C tests.
 * Include after <cmocka.h>. */
#ifndef CL_TEST_ASSERTS_H
#define CL_TEST_ASSERTS_H

#include <math.h>
#include <string.h>

#include "cleave/status.h"

/* |a - b| <= tol; NaN fails. */
#define assert_near(a, b, tol)                                                                     \
  do {                                                                                             \
    double a_ = (a), b_ = (b);                                                                     \
    if (!(fabs(a_ - b_) <= (tol)))                                                                 \
      fail_msg("%s = %.17g, expected %.17g (tolerance %g)", #a, a_, b_, (double)(tol));            \
  } while (0)

/* The call returns CL_OK; otherwise fail with its status and message. */
#define assert_ok(expr)                                                                            \
  do {                                                                                             \
    cl_status s_ = (expr);                                                                         \
    if (s_ != CL_OK) fail_msg("%s: %s: %s", #expr, cl_status_name(s_), cl_last_error());           \
  } while (0)

/* The call returns `status` and cl_last_error() contains `text`. */
#define assert_error(expr, status, text)                                                           \
  do {                                                                                             \
    cl_status s_ = (expr);                                                                         \
    if (s_ != (status))                                                                            \
      fail_msg("%s gave %s (%s), expected %s", #expr, cl_status_name(s_), cl_last_error(), #status); \
    if (!strstr(cl_last_error(), (text))) fail_msg("message '%s' lacks '%s'", cl_last_error(), (text)); \
  } while (0)

#endif
