/* Block Jacobi and block Gauss-Seidel sweeps (see smoothers.h). */
#include "linalg/smoothers.h"

void cl_smooth_jacobi(const cl_bsr *A, const double *dinv, const uint8_t *fixed, double omega,
                      int32_t sweeps, const double *b, double *x, double *work) {
  const int32_t n = A->n;
  for (int32_t k = 0; k < sweeps; ++k) {
    cl_bsr_residual(A, b, x, fixed, work); /* zero on fixed dofs */
#pragma omp parallel for schedule(static) if (n > 8192)
    for (int32_t i = 0; i < n; ++i) {
      const double *m = dinv + 9 * (int64_t)i;
      const double *r = work + 3 * (int64_t)i;
      double *xi = x + 3 * (int64_t)i;
      /* dinv has zero rows for fixed dofs, so those stay unchanged */
      xi[0] += omega * (m[0] * r[0] + m[1] * r[1] + m[2] * r[2]);
      xi[1] += omega * (m[3] * r[0] + m[4] * r[1] + m[5] * r[2]);
      xi[2] += omega * (m[6] * r[0] + m[7] * r[1] + m[8] * r[2]);
    }
  }
}

/* x_i += dx = D^-1 t, dx stored when d is not NULL (the increment formed first, then added: the same
 * rounding in every sweep that uses it). */
static inline void gs_update(const double *m, double t0, double t1, double t2, double *xi, double *d) {
  const double d0 = m[0] * t0 + m[1] * t1 + m[2] * t2;
  const double d1 = m[3] * t0 + m[4] * t1 + m[5] * t2;
  const double d2 = m[6] * t0 + m[7] * t1 + m[8] * t2;
  xi[0] += d0;
  xi[1] += d1;
  xi[2] += d2;
  if (d) d[0] = d0, d[1] = d1, d[2] = d2;
}

/* One node's update in correction form: t = b_i - (A x)_i with the current x, x_i += D^-1 t. */
static inline void gs_node(const cl_bsr *A, const double *dinv, const uint8_t *fixed, const double *b,
                           double *x, int32_t i) {
  double t0 = b[3 * (int64_t)i], t1 = b[3 * (int64_t)i + 1], t2 = b[3 * (int64_t)i + 2];
  for (int64_t s = A->row_ptr[i]; s < A->row_ptr[i + 1]; ++s) {
    const double *v = A->val + 9 * s;
    const double *xj = x + 3 * (int64_t)A->col[s];
    t0 -= v[0] * xj[0] + v[1] * xj[1] + v[2] * xj[2];
    t1 -= v[3] * xj[0] + v[4] * xj[1] + v[5] * xj[2];
    t2 -= v[6] * xj[0] + v[7] * xj[1] + v[8] * xj[2];
  }
  if (fixed) { /* a fixed dof's residual must not leak into its free neighbours through dinv */
    if (fixed[3 * (int64_t)i]) t0 = 0.0;
    if (fixed[3 * (int64_t)i + 1]) t1 = 0.0;
    if (fixed[3 * (int64_t)i + 2]) t2 = 0.0;
  }
  gs_update(dinv + 9 * (int64_t)i, t0, t1, t2, x + 3 * (int64_t)i, NULL);
}

double cl_smooth_gauss_seidel_residual(const cl_bsr *A, const double *dinv, const uint8_t *fixed, const double *b,
                                       double *x, double *delta) {
  const int32_t n = A->n;
  double rr = 0.0;
  for (int32_t i = 0; i < n; ++i) {
    double t[3] = {b[3 * (int64_t)i], b[3 * (int64_t)i + 1], b[3 * (int64_t)i + 2]}, u[3] = {0.0, 0.0, 0.0};
    for (int64_t s = A->row_ptr[i]; s < A->row_ptr[i + 1]; ++s) {
      const double *v = A->val + 9 * s;
      const int32_t j = A->col[s];
      const double *xj = x + 3 * (int64_t)j;
      t[0] -= v[0] * xj[0] + v[1] * xj[1] + v[2] * xj[2];
      t[1] -= v[3] * xj[0] + v[4] * xj[1] + v[5] * xj[2];
      t[2] -= v[6] * xj[0] + v[7] * xj[1] + v[8] * xj[2];
      if (j < i) cl_bsr_block_mul_add(v, delta + 3 * (int64_t)j, u); /* rows before i moved by dx_j */
    }
    for (int c = 0; c < 3; ++c) {
      if (fixed && fixed[3 * (int64_t)i + c]) {
        t[c] = 0.0; /* as gs_node: the residual of a fixed dof is zero and must not leak */
        continue;
      }
      const double r = t[c] + u[c];
      rr += r * r;
    }
    gs_update(dinv + 9 * (int64_t)i, t[0], t[1], t[2], x + 3 * (int64_t)i, delta + 3 * (int64_t)i);
  }
  return rr;
}

/* Rows ahead of a backward sweep whose blocks are prefetched. Walking the rows downwards streams the
 * matrix through memory in descending order, which the hardware prefetcher of the benchmark machine
 * (AMD EPYC) does not follow: a backward sweep took 4x the time of a forward one. Asking for the cache
 * lines of a row a few rows ahead brings it back to the forward speed (measured: distance 2 recovers
 * most of it, 4-6 all). */
enum { GS_PREFETCH_ROWS = 5 };


void cl_smooth_gauss_seidel(const cl_bsr *A, const double *dinv, const uint8_t *fixed, cl_sweep dir,
                            int32_t sweeps, const double *b, double *x) {
  const int32_t n = A->n;
  for (int32_t k = 0; k < sweeps; ++k) {
    if (dir != CL_SWEEP_BACKWARD)
      for (int32_t i = 0; i < n; ++i) gs_node(A, dinv, fixed, b, x, i);
    if (dir != CL_SWEEP_FORWARD)
      for (int32_t i = n - 1; i >= 0; --i) {
        if (i >= GS_PREFETCH_ROWS) { /* (written out here: gcc 12 -O2 dropped it from an inline helper) */
          const char *lo = (const char *)(A->val + 9 * A->row_ptr[i - GS_PREFETCH_ROWS]);
          const char *hi = (const char *)(A->val + 9 * A->row_ptr[i - GS_PREFETCH_ROWS + 1]);
          for (const char *p = lo; p < hi; p += 64) __builtin_prefetch(p, 0, 0);
        }
        gs_node(A, dinv, fixed, b, x, i);
      }
  }
}

/* Rows from which the blocks of a colour are shared among threads: below, a colour's work is shorter
 * than the threads' barrier. */
enum { GS_COLOR_PAR_ROWS = 2048 };

void cl_smooth_gauss_seidel_colors(const cl_bsr *A, const double *dinv, const uint8_t *fixed, cl_sweep dir,
                                   int32_t sweeps, const cl_node_coloring *c, int32_t threads, const double *b,
                                   double *x) {
  const int nt = threads > 1 && A->n >= GS_COLOR_PAR_ROWS ? threads : 1;
  const int32_t nc = c->colors, size = c->size, n = A->n;
#pragma omp parallel num_threads(nt) if (nt > 1)
  for (int32_t k = 0; k < sweeps; ++k) {
    if (dir != CL_SWEEP_BACKWARD)
      for (int32_t q = 0; q < nc; ++q) {
#pragma omp for schedule(static)
        for (int32_t m = c->ptr[q]; m < c->ptr[q + 1]; ++m) {
          const int32_t lo = c->block[m] * size, hi = lo + size < n ? lo + size : n;
          for (int32_t i = lo; i < hi; ++i) gs_node(A, dinv, fixed, b, x, i);
        }
      }
    if (dir != CL_SWEEP_FORWARD)
      for (int32_t q = nc - 1; q >= 0; --q) {
#pragma omp for schedule(static)
        for (int32_t m = c->ptr[q + 1] - 1; m >= c->ptr[q]; --m) {
          const int32_t lo = c->block[m] * size, hi = lo + size < n ? lo + size : n;
          for (int32_t i = hi - 1; i >= lo; --i) {
            if (i - GS_PREFETCH_ROWS >= lo) { /* as in the backward sweep above */
              const char *pl = (const char *)(A->val + 9 * A->row_ptr[i - GS_PREFETCH_ROWS]);
              const char *ph = (const char *)(A->val + 9 * A->row_ptr[i - GS_PREFETCH_ROWS + 1]);
              for (const char *p = pl; p < ph; p += 64) __builtin_prefetch(p, 0, 0);
            }
            gs_node(A, dinv, fixed, b, x, i);
          }
        }
      }
  }
}
