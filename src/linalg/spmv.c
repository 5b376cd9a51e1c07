/* Sparse matrix-vector products for BSR 3x3 matrices.
 *
 * SpMV is memory bound: per block it streams 72 bytes of values and 4 bytes of column index and
 * does 18 flops, while x is reused from cache (neighbouring nodes have neighbouring numbers on the
 * meshes we build). So the kernel is written to stream: one pass over each row, three running sums
 * in registers, no writes other than the three results of the row. Rows are split statically among
 * threads (full symmetric storage means no row writes to another row: no atomics). */
#include <stddef.h>

#include "linalg/bsr.h"
#include "linalg/vec.h"

/* Threads only pay off above a few thousand rows (fork/join costs ~ a few microseconds). */
#define CL_SPMV_PAR_ROWS 2048

static inline void row_product(const cl_bsr *A, int32_t i, const double *x, double *y3) {
  const int64_t e = A->row_ptr[i + 1];
  const int32_t *restrict col = A->col;
  const double *restrict v = A->val;
  double s0 = 0.0, s1 = 0.0, s2 = 0.0;
  for (int64_t s = A->row_ptr[i]; s < e; ++s) {
    const double *restrict b = v + 9 * s;
    const double *restrict xj = x + 3 * (int64_t)col[s];
    const double x0 = xj[0], x1 = xj[1], x2 = xj[2];
    s0 += b[0] * x0 + b[1] * x1 + b[2] * x2;
    s1 += b[3] * x0 + b[4] * x1 + b[5] * x2;
    s2 += b[6] * x0 + b[7] * x1 + b[8] * x2;
  }
  y3[0] = s0;
  y3[1] = s1;
  y3[2] = s2;
}

/* Two products of row i in one pass over its blocks, each summed as row_product sums it. */
static inline void row_product_pair(const cl_bsr *A, int32_t i, const double *x, const double *y, double *t3,
                                    double *u3) {
  const int64_t e = A->row_ptr[i + 1];
  const int32_t *restrict col = A->col;
  const double *restrict v = A->val;
  double t[3] = {0.0, 0.0, 0.0}, u[3] = {0.0, 0.0, 0.0};
  for (int64_t s = A->row_ptr[i]; s < e; ++s) {
    cl_bsr_block_mul_add(v + 9 * s, x + 3 * (int64_t)col[s], t);
    cl_bsr_block_mul_add(v + 9 * s, y + 3 * (int64_t)col[s], u);
  }
  for (int k = 0; k < 3; ++k) {
    t3[k] = t[k];
    u3[k] = u[k];
  }
}

void cl_bsr_spmv(const cl_bsr *A, const double *restrict x, double *restrict y) {
  const int32_t n = A->n;
#pragma omp parallel for schedule(static) if (n > CL_SPMV_PAR_ROWS)
  for (int32_t i = 0; i < n; ++i) row_product(A, i, x, y + 3 * (int64_t)i);
}

void cl_bsr_spmv_axpby(const cl_bsr *A, double alpha, const double *restrict x, double beta,
                       double *restrict y) {
  const int32_t n = A->n;
#pragma omp parallel for schedule(static) if (n > CL_SPMV_PAR_ROWS)
  for (int32_t i = 0; i < n; ++i) {
    double t[3];
    row_product(A, i, x, t);
    double *yi = y + 3 * (int64_t)i;
    if (beta == 0.0) {
      for (int r = 0; r < 3; ++r) yi[r] = alpha * t[r];
    } else {
      for (int r = 0; r < 3; ++r) yi[r] = alpha * t[r] + beta * yi[r];
    }
  }
}

double cl_bsr_residual(const cl_bsr *A, const double *restrict b, const double *restrict x,
                       const uint8_t *fixed, double *restrict r) {
  const int32_t n = A->n;
  double part[CL_VEC_CHUNKS]; /* chunked over rows: deterministic for any thread count (vec.h) */
#pragma omp parallel for schedule(static) if (n > CL_SPMV_PAR_ROWS)
  for (int c = 0; c < CL_VEC_CHUNKS; ++c) {
    int64_t lo, hi;
    cl_vec_chunk(n, c, &lo, &hi);
    double rr = 0.0;
    for (int32_t i = (int32_t)lo; i < (int32_t)hi; ++i) {
      double t[3] = {0.0, 0.0, 0.0};
      if (x) row_product(A, i, x, t);
      for (int k = 0; k < 3; ++k) {
        const int64_t d = 3 * (int64_t)i + k;
        double v = (fixed && fixed[d]) ? 0.0 : b[d] - t[k];
        r[d] = v;
        rr += v * v;
      }
    }
    part[c] = rr;
  }
  return cl_vec_sum_parts(part);
}

double cl_bsr_residual_pair(const cl_bsr *A, const double *restrict b, const double *restrict x,
                            const double *restrict y, const uint8_t *fixed, double *restrict r, double *ry2) {
  const int32_t n = A->n;
  double part[CL_VEC_CHUNKS], party[CL_VEC_CHUNKS];
#pragma omp parallel for schedule(static) if (n > CL_SPMV_PAR_ROWS)
  for (int c = 0; c < CL_VEC_CHUNKS; ++c) {
    int64_t lo, hi;
    cl_vec_chunk(n, c, &lo, &hi);
    double rr = 0.0, ry = 0.0;
    for (int32_t i = (int32_t)lo; i < (int32_t)hi; ++i) {
      double t[3], u[3];
      row_product_pair(A, i, x, y, t, u);
      for (int k = 0; k < 3; ++k) {
        const int64_t d = 3 * (int64_t)i + k;
        const int held = fixed && fixed[d];
        const double v = held ? 0.0 : b[d] - t[k], w = held ? 0.0 : b[d] - u[k];
        r[d] = v;
        rr += v * v;
        ry += w * w;
      }
    }
    part[c] = rr;
    party[c] = ry;
  }
  *ry2 = cl_vec_sum_parts(party);
  return cl_vec_sum_parts(part);
}
