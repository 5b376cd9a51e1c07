/* Dense vector helpers for the iterative solvers. n is the number of doubles (3 per node).
 * OpenMP is used above CL_VEC_PAR_MIN entries, where a parallel region costs less than the loop;
 * reductions use a static schedule, so a result is reproducible for a given thread count. */
#ifndef CL_LINALG_VEC_H
#define CL_LINALG_VEC_H

#include <stdint.h>

enum { CL_VEC_PAR_MIN = 32768 };

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
