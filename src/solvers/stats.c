/* The shared part of the solvers' optional stats op (solver.h): argument checks and the copy of
 * names, units, help and values into the caller's array. */
#include "base/error.h"
#include "solvers/solver.h"

cl_status cl_solver_stats_copy(const char *solver, const cl_stat_info *info, const double *values, int32_t n,
                               cl_body_stat *out, int32_t capacity, int32_t *count) {
  if (!count) return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s stats: count is NULL", solver);
  if (capacity < 0 || (capacity > 0 && !out))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s stats: capacity %d needs an output array", solver, (int)capacity);
  *count = n;
  for (int32_t i = 0; i < n && i < capacity; ++i) {
    out[i].name = info[i].name;
    out[i].unit = info[i].unit;
    out[i].help = info[i].help;
    out[i].value = values[i];
  }
  return CL_OK;
}
