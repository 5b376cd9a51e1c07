/* Cyclic Jacobi for the smallest eigenvalue; see dense_eig.h. */
#include "support/dense_eig.h"

#include <math.h>
#include <string.h>

double cl_test_min_eigenvalue(const double *M, int n) {
  double A[144];
  memcpy(A, M, sizeof(double) * (size_t)(n * n));
  for (int sweep = 0; sweep < 60; ++sweep)
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) {
        const double apq = A[n * p + q];
        if (fabs(apq) < 1e-300) continue;
        const double th = (A[n * q + q] - A[n * p + p]) / (2 * apq);
        const double t = (th >= 0 ? 1 : -1) / (fabs(th) + sqrt(th * th + 1)), c = 1 / sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < n; ++k) {
          const double akp = A[n * k + p], akq = A[n * k + q];
          A[n * k + p] = c * akp - s * akq;
          A[n * k + q] = s * akp + c * akq;
        }
        for (int k = 0; k < n; ++k) {
          const double apk = A[n * p + k], aqk = A[n * q + k];
          A[n * p + k] = c * apk - s * aqk;
          A[n * q + k] = s * apk + c * aqk;
        }
      }
  double lo = INFINITY;
  for (int i = 0; i < n; ++i) lo = fmin(lo, A[(n + 1) * i]);
  return lo;
}

