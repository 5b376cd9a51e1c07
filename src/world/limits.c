/* The sane ranges of world.h ("sane ranges"): one check for the 3-vectors users set (centres,
 * velocities, spins, gravity), so every message states the same range the same way. */
#include <math.h>

#include "base/error.h"
#include "world/world.h"

cl_status cl_check_vec3_limit(const char *what, const double *v, double limit, const char *unit) {
  for (int k = 0; k < 3; ++k)
    if (!isfinite(v[k]))
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s[%d] = %g %s must be finite", what, k, v[k], unit);
  /* the norm without overflow: scale by the largest component first */
  double a = fmax(fabs(v[0]), fmax(fabs(v[1]), fabs(v[2])));
  double n = 0.0;
  if (a > 0.0) {
    double x = v[0] / a, y = v[1] / a, z = v[2] / a;
    n = a * sqrt(x * x + y * y + z * z);
  }
  if (!(n <= limit))
    return cl_fail(CL_ERR_INVALID_ARGUMENT,
                   "%s = (%g, %g, %g) %s: its length %g %s is outside the allowed range [0, %g] %s", what, v[0], v[1],
                   v[2], unit, n, unit, limit, unit);
  return CL_OK;
}
