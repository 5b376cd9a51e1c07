/* Dense vector helpers for the iterative solvers. n is the number of doubles (3 per node).
 *
 * Reductions are deterministic and independent of the thread count: the range is cut into
 * CL_VEC_CHUNKS fixed chunks, each summed in order, and the chunk sums are added in order. So a
 * CG solve gives bitwise the same iterates with 1 or 2 threads (OpenMP's own reduction clause
 * combines partial sums in whatever order threads finish). OpenMP is used above CL_VEC_PAR_MIN
 * entries, where a parallel region costs less than the loop. */
#ifndef CL_LINALG_VEC_H
#define CL_LINALG_VEC_H

#include <stdint.h>

enum { CL_VEC_PAR_MIN = 32768, CL_VEC_CHUNKS = 256 };

/* Chunk c of a range of n items cut into CL_VEC_CHUNKS pieces: [*lo, *hi). */
static inline void cl_vec_chunk(int64_t n, int c, int64_t *lo, int64_t *hi) {
  const int64_t size = (n + CL_VEC_CHUNKS - 1) / CL_VEC_CHUNKS;
  int64_t a = (int64_t)c * size, b = a + size;
  *lo = a < n ? a : n;
  *hi = b < n ? b : n;
}
/* Sum of the CL_VEC_CHUNKS partial sums, in order. */
static inline double cl_vec_sum_parts(const double *part) {
  double s = 0.0;
  for (int c = 0; c < CL_VEC_CHUNKS; ++c) s += part[c];
  return s;
}

/* x . y */
double cl_vec_dot(int64_t n, const double *x, const double *y);
/* ||x||_2 */
double cl_vec_norm(int64_t n, const double *x);
/* y += a x */
void cl_vec_axpy(int64_t n, double a, const double *x, double *y);
/* y = x + b y (the CG direction update p = z + beta p) */
void cl_vec_xpby(int64_t n, const double *x, double b, double *y);
/* x *= a */
void cl_vec_scale(int64_t n, double a, double *x);
/* y = x */
void cl_vec_copy(int64_t n, const double *x, double *y);
/* x = a everywhere */
void cl_vec_fill(int64_t n, double a, double *x);
/* 1 if every entry is finite, else 0 */
int cl_vec_all_finite(int64_t n, const double *x);

#endif
