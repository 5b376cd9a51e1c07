/* Dense vector helpers (see vec.h). Each is one streaming pass; the `if` clause keeps small vectors
 * serial because a fork/join costs more than the loop below ~30k entries. */
#include "linalg/vec.h"

#include <math.h>
#include <string.h>

double cl_vec_dot(int64_t n, const double *restrict x, const double *restrict y) {
  double part[CL_VEC_CHUNKS];
#pragma omp parallel for schedule(static) if (n > CL_VEC_PAR_MIN)
  for (int c = 0; c < CL_VEC_CHUNKS; ++c) {
    int64_t lo, hi;
    cl_vec_chunk(n, c, &lo, &hi);
    double s = 0.0;
    for (int64_t i = lo; i < hi; ++i) s += x[i] * y[i];
    part[c] = s;
  }
  return cl_vec_sum_parts(part);
}

double cl_vec_norm(int64_t n, const double *x) { return sqrt(cl_vec_dot(n, x, x)); }

void cl_vec_axpy(int64_t n, double a, const double *restrict x, double *restrict y) {
#pragma omp parallel for schedule(static) if (n > CL_VEC_PAR_MIN)
  for (int64_t i = 0; i < n; ++i) y[i] += a * x[i];
}

void cl_vec_xpby(int64_t n, const double *restrict x, double b, double *restrict y) {
#pragma omp parallel for schedule(static) if (n > CL_VEC_PAR_MIN)
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] + b * y[i];
}

void cl_vec_scale(int64_t n, double a, double *x) {
#pragma omp parallel for schedule(static) if (n > CL_VEC_PAR_MIN)
  for (int64_t i = 0; i < n; ++i) x[i] *= a;
}

void cl_vec_copy(int64_t n, const double *x, double *y) {
  if (n > 0 && x != y) memmove(y, x, sizeof(double) * (size_t)n);
}

void cl_vec_fill(int64_t n, double a, double *x) {
#pragma omp parallel for schedule(static) if (n > CL_VEC_PAR_MIN)
  for (int64_t i = 0; i < n; ++i) x[i] = a;
}

int cl_vec_all_finite(int64_t n, const double *x) {
  int ok = 1;
#pragma omp parallel for schedule(static) reduction(&& : ok) if (n > CL_VEC_PAR_MIN)
  for (int64_t i = 0; i < n; ++i) ok = ok && isfinite(x[i]);
  return ok;
}
