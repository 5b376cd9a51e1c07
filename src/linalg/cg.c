/* (Preconditioned) conjugate gradients with projection onto free dofs. See cg.h.
 *
 * Every vector update is fused with the dot product that follows it, so one CG iteration streams
 * the matrix once and the vectors about 8 times (x, r, z, p, q): that is what bounds its speed. */
#include "linalg/cg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "linalg/vec.h"

const char *cl_solve_reason_name(cl_solve_reason reason) {
  switch (reason) {
    case CL_SOLVE_CONVERGED: return "converged";
    case CL_SOLVE_MAX_ITERATIONS: return "max_iterations";
    case CL_SOLVE_NOT_POSDEF: return "not_positive_definite";
    case CL_SOLVE_BREAKDOWN: return "breakdown";
    case CL_SOLVE_NON_FINITE: return "non_finite";
    case CL_SOLVE_INVALID: return "invalid";
  }
  return "unknown";
}

void cl_cg_def_default(cl_cg_def *def) {
  if (!def) return;
  memset(def, 0, sizeof *def);
  def->precond = CL_PRECOND_BLOCK_JACOBI;
  def->rel_tol = 1e-8;
  def->max_iter = 1000;
}

cl_status cl_cg_workspace_create(int32_t n_nodes, cl_cg_workspace **out) {
  if (!out) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_cg_workspace_create: out is NULL");
  *out = NULL;
  if (n_nodes < 0) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_cg_workspace_create: n_nodes = %d < 0", n_nodes);
  cl_cg_workspace *ws = cl_calloc(1, sizeof *ws, "CG workspace");
  if (!ws) return CL_ERR_OUT_OF_MEMORY;
  size_t n3 = 3 * (size_t)n_nodes + 1;
  ws->n = n_nodes;
  ws->r = cl_malloc(sizeof(double) * n3, "CG workspace");
  ws->z = cl_malloc(sizeof(double) * n3, "CG workspace");
  ws->p = cl_malloc(sizeof(double) * n3, "CG workspace");
  ws->q = cl_malloc(sizeof(double) * n3, "CG workspace");
  ws->dinv = cl_malloc(sizeof(double) * 3 * n3, "CG workspace");
  if (!ws->r || !ws->z || !ws->p || !ws->q || !ws->dinv) {
    cl_cg_workspace_destroy(ws);
    return CL_ERR_OUT_OF_MEMORY;
  }
  *out = ws;
  return CL_OK;
}

void cl_cg_workspace_destroy(cl_cg_workspace *ws) {
  if (!ws) return;
  free(ws->r);
  free(ws->z);
  free(ws->p);
  free(ws->q);
  free(ws->dinv);
  free(ws);
}

/* ---- fused kernels ---------------------------------------------------------------------------- */

/* Each reduction below sums CL_VEC_CHUNKS fixed chunks in order (vec.h), so CG is bitwise
 * reproducible whatever the thread count. */

/* q = A p, zeroed on fixed dofs; returns p . q. */
static double spmv_dot(const cl_bsr *A, const double *restrict p, const uint8_t *fixed, double *restrict q) {
  cl_bsr_spmv(A, p, q);
  const int64_t n3 = 3 * (int64_t)A->n;
  if (!fixed) return cl_vec_dot(n3, p, q);
  double part[CL_VEC_CHUNKS];
#pragma omp parallel for schedule(static) if (n3 > CL_VEC_PAR_MIN)
  for (int c = 0; c < CL_VEC_CHUNKS; ++c) {
    int64_t lo, hi;
    cl_vec_chunk(n3, c, &lo, &hi);
    double s = 0.0;
    for (int64_t i = lo; i < hi; ++i) {
      if (fixed[i]) q[i] = 0.0;
      s += p[i] * q[i];
    }
    part[c] = s;
  }
  return cl_vec_sum_parts(part);
}

/* x += a p; r -= a q; returns r . r */
static double update_xr(int64_t n3, double a, const double *restrict p, const double *restrict q,
                        double *restrict x, double *restrict r) {
  double part[CL_VEC_CHUNKS];
#pragma omp parallel for schedule(static) if (n3 > CL_VEC_PAR_MIN)
  for (int c = 0; c < CL_VEC_CHUNKS; ++c) {
    int64_t lo, hi;
    cl_vec_chunk(n3, c, &lo, &hi);
    double s = 0.0;
    for (int64_t i = lo; i < hi; ++i) {
      x[i] += a * p[i];
      r[i] -= a * q[i];
      s += r[i] * r[i];
    }
    part[c] = s;
  }
  return cl_vec_sum_parts(part);
}

/* z = M^-1 r for the built-in preconditioners; returns r . z. dinv is zero on fixed dofs, so z
 * comes out projected. */
static double apply_jacobi(int64_t n3, const double *restrict dinv, const double *restrict r,
                           double *restrict z) {
  double part[CL_VEC_CHUNKS];
#pragma omp parallel for schedule(static) if (n3 > CL_VEC_PAR_MIN)
  for (int c = 0; c < CL_VEC_CHUNKS; ++c) {
    int64_t lo, hi;
    cl_vec_chunk(n3, c, &lo, &hi);
    double s = 0.0;
    for (int64_t i = lo; i < hi; ++i) {
      z[i] = dinv[i] * r[i];
      s += r[i] * z[i];
    }
    part[c] = s;
  }
  return cl_vec_sum_parts(part);
}

static double apply_block_jacobi(int32_t n, const double *restrict dinv, const double *restrict r,
                                 double *restrict z) {
  double part[CL_VEC_CHUNKS];
#pragma omp parallel for schedule(static) if (n > CL_VEC_PAR_MIN / 3)
  for (int c = 0; c < CL_VEC_CHUNKS; ++c) {
    int64_t lo, hi;
    cl_vec_chunk(n, c, &lo, &hi);
    double s = 0.0;
    for (int64_t i = lo; i < hi; ++i) {
      const double *m = dinv + 9 * i;
      const double *ri = r + 3 * i;
      double *zi = z + 3 * i;
      const double r0 = ri[0], r1 = ri[1], r2 = ri[2];
      zi[0] = m[0] * r0 + m[1] * r1 + m[2] * r2;
      zi[1] = m[3] * r0 + m[4] * r1 + m[5] * r2;
      zi[2] = m[6] * r0 + m[7] * r1 + m[8] * r2;
      s += r0 * zi[0] + r1 * zi[1] + r2 * zi[2];
    }
    part[c] = s;
  }
  return cl_vec_sum_parts(part);
}

static cl_status setup_jacobi(const cl_bsr *A, const uint8_t *fixed, double *dinv) {
  for (int32_t i = 0; i < A->n; ++i)
    for (int c = 0; c < 3; ++c) {
      const int64_t d = 3 * (int64_t)i + c;
      if (fixed && fixed[d]) {
        dinv[d] = 0.0;
        continue;
      }
      double a = A->diag[i] >= 0 ? A->val[9 * A->diag[i] + 4 * c] : 0.0;
      if (!(a > 0.0) || !isfinite(a))
        return cl_fail(CL_ERR_NUMERICAL,
                       "Jacobi preconditioner: diagonal entry %lld is %g; the matrix is not positive definite",
                       (long long)d, a);
      dinv[d] = 1.0 / a;
    }
  return CL_OK;
}

/* z = M^-1 r, projected; returns r . z through *rz. */
static cl_status precondition(const cl_bsr *A, const cl_cg_def *def, cl_cg_workspace *ws,
                              const double *r, double *z, double *rz) {
  const int64_t n3 = 3 * (int64_t)A->n;
  switch (def->precond) {
    case CL_PRECOND_JACOBI: *rz = apply_jacobi(n3, ws->dinv, r, z); return CL_OK;
    case CL_PRECOND_BLOCK_JACOBI: *rz = apply_block_jacobi(A->n, ws->dinv, r, z); return CL_OK;
    case CL_PRECOND_USER: {
      cl_status s = def->user_fn(def->user_ctx, r, z);
      if (s < 0) return cl_fail_context(s, "CG user preconditioner: ");
      if (def->fixed)
        for (int64_t i = 0; i < n3; ++i)
          if (def->fixed[i]) z[i] = 0.0;
      *rz = cl_vec_dot(n3, r, z);
      return CL_OK;
    }
    case CL_PRECOND_NONE: break;
  }
  *rz = cl_vec_dot(n3, r, r);
  return CL_OK;
}

/* Record why the solve stopped and pass the status on (the message is already set by cl_fail). */
static cl_status halt(cl_cg_result *res, cl_solve_reason why, cl_status status) {
  if (res) res->reason = why;
  return status;
}

/* Why a diagonal preconditioner could not be made: NaN/Inf in a diagonal block, or (all finite) a
 * singular or non-positive one. Only read after a failure. */
static cl_solve_reason diagonal_failure(const cl_bsr *A) {
  for (int32_t i = 0; i < A->n; ++i)
    if (A->diag[i] >= 0 && !cl_vec_all_finite(9, A->val + 9 * A->diag[i])) return CL_SOLVE_NON_FINITE;
  return CL_SOLVE_NOT_POSDEF;
}

double cl_cg_reference_norm2(const cl_bsr *A, const double *b, const double *x, const uint8_t *fixed) {
  double part[CL_VEC_CHUNKS]; /* chunked over rows: deterministic for any thread count (vec.h) */
#pragma omp parallel for schedule(static) if (A->n > CL_VEC_PAR_MIN / 3)
  for (int ch = 0; ch < CL_VEC_CHUNKS; ++ch) {
    int64_t lo, hi;
    cl_vec_chunk(A->n, ch, &lo, &hi);
    double sum = 0.0;
    for (int64_t i = lo; i < hi; ++i) {
      double t[3] = {0.0, 0.0, 0.0};
      for (int64_t q = A->row_ptr[i]; q < A->row_ptr[i + 1]; ++q) {
        const uint8_t *fj = fixed + 3 * (int64_t)A->col[q];
        if (!(fj[0] | fj[1] | fj[2])) continue;
        const double *B = A->val + 9 * q, *xj = x + 3 * (int64_t)A->col[q];
        for (int c = 0; c < 3; ++c)
          if (fj[c])
            for (int r = 0; r < 3; ++r) t[r] += B[3 * r + c] * xj[c];
      }
      for (int r = 0; r < 3; ++r) {
        const int64_t d = 3 * i + r;
        if (!fixed[d]) sum += (b[d] - t[r]) * (b[d] - t[r]);
      }
    }
    part[ch] = sum;
  }
  return cl_vec_sum_parts(part);
}

cl_status cl_cg_solve(const cl_bsr *A, const double *b, double *x, const cl_cg_def *def,
                      cl_cg_workspace *ws, cl_cg_result *res) {
  if (res) memset(res, 0, sizeof *res);
  const cl_solve_reason bad = CL_SOLVE_INVALID;
  if (!A || !b || !x || !def || !ws) return halt(res, bad, cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_cg_solve: NULL argument"));
  if (A->n_cols != A->n) return halt(res, bad, cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_cg_solve: matrix is not square"));
  if (ws->n < A->n)
    return halt(res, bad, cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_cg_solve: workspace for %d nodes, matrix has %d",
                                  ws->n, A->n));
  if (!(def->rel_tol > 0.0 && def->rel_tol < 1.0))
    return halt(res, bad, cl_fail(CL_ERR_INVALID_ARGUMENT, "parameter 'rel_tol' = %g is outside its allowed range (0, 1)",
                                  def->rel_tol));
  if (def->max_iter < 0)
    return halt(res, bad, cl_fail(CL_ERR_INVALID_ARGUMENT, "parameter 'max_iter' = %d must be >= 0", def->max_iter));
  if ((int)def->precond < CL_PRECOND_NONE || (int)def->precond > CL_PRECOND_USER)
    return halt(res, bad, cl_fail(CL_ERR_INVALID_ARGUMENT, "parameter 'precond' = %d is not one of none (0), jacobi (1), "
                                  "block_jacobi (2), user (3)", (int)def->precond));
  if (def->precond == CL_PRECOND_USER && !def->user_fn)
    return halt(res, bad, cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_cg_solve: precond is user (3) but user_fn is NULL"));

  const int64_t n3 = 3 * (int64_t)A->n;
  const uint8_t *fixed = def->fixed;
  const cl_solve_reason nan = CL_SOLVE_NON_FINITE;
  if (!cl_vec_all_finite(n3, b)) return halt(res, nan, cl_fail(CL_ERR_NUMERICAL, "cl_cg_solve: right-hand side has NaN or Inf"));
  if (!cl_vec_all_finite(n3, x)) return halt(res, nan, cl_fail(CL_ERR_NUMERICAL, "cl_cg_solve: initial guess has NaN or Inf"));

  if (def->precond == CL_PRECOND_JACOBI) {
    cl_status s = setup_jacobi(A, fixed, ws->dinv);
    if (s < 0) return halt(res, diagonal_failure(A), s);
  }
  if (def->precond == CL_PRECOND_BLOCK_JACOBI) {
    cl_status s = cl_bsr_diag_inverse(A, fixed, ws->dinv);
    if (s < 0) return halt(res, diagonal_failure(A), cl_fail_context(s, "block-Jacobi preconditioner: "));
  }
  double *r = ws->r, *p = ws->p, *q = ws->q;
  double *z = def->precond == CL_PRECOND_NONE ? ws->r : ws->z; /* z = r without a preconditioner */

  /* Reference norm ||b_f - A_fc x_c||: the reduced right-hand side (x_c = x on fixed dofs, 0 elsewhere). */
  double ref;
  if (fixed) {
    ref = sqrt(cl_cg_reference_norm2(A, b, x, fixed));
  } else {
    ref = cl_vec_norm(n3, b);
  }
  if (!isfinite(ref)) return halt(res, nan, cl_fail(CL_ERR_NUMERICAL, "cl_cg_solve: the matrix has NaN or Inf entries"));
  if (res) res->ref_norm = ref;
  if (ref == 0.0) { /* the reduced system is homogeneous: its solution is zero */
    for (int64_t i = 0; i < n3; ++i)
      if (!fixed || !fixed[i]) x[i] = 0.0;
    return CL_OK;
  }

  double rr = cl_bsr_residual(A, b, x, fixed, r);
  if (!isfinite(rr))
    return halt(res, nan, cl_fail(CL_ERR_NUMERICAL, "cl_cg_solve: initial residual is not finite (NaN or Inf in the matrix)"));
  const double stop = def->rel_tol * ref;
  if (res) res->rel_residual = sqrt(rr) / ref;
  if (sqrt(rr) <= stop) return CL_OK;

  double rz;
  cl_status ps = precondition(A, def, ws, r, z, &rz);
  if (ps < 0) return halt(res, CL_SOLVE_BREAKDOWN, ps);
  if (!(rz > 0.0) || !isfinite(rz))
    return halt(res, isfinite(rz) ? CL_SOLVE_BREAKDOWN : nan,
                cl_fail(CL_ERR_NUMERICAL, "CG: preconditioner not positive definite (r^T M^-1 r = %g)", rz));
  cl_vec_copy(n3, z, p);

  for (int32_t k = 0; k < def->max_iter; ++k) {
    const double pap = spmv_dot(A, p, fixed, q);
    if (!(pap > 0.0)) {
      if (isnan(pap)) return halt(res, nan, cl_fail(CL_ERR_NUMERICAL, "CG: NaN in p^T A p at iteration %d", k));
      return halt(res, CL_SOLVE_NOT_POSDEF,
                  cl_fail(CL_ERR_NUMERICAL, "CG: matrix not positive definite (p^T A p = %g at iteration %d)", pap, k));
    }
    const double alpha = rz / pap;
    rr = update_xr(n3, alpha, p, q, x, r);
    if (res) {
      res->iterations = k + 1;
      res->rel_residual = sqrt(rr) / ref;
    }
    if (!isfinite(rr)) return halt(res, nan, cl_fail(CL_ERR_NUMERICAL, "CG: residual became %g at iteration %d", rr, k + 1));
    if (sqrt(rr) <= stop) return CL_OK;
    double rz_new = rr; /* without a preconditioner z = r, so r^T z is the r^T r just computed */
    if (def->precond != CL_PRECOND_NONE) {
      ps = precondition(A, def, ws, r, z, &rz_new);
      if (ps < 0) return halt(res, CL_SOLVE_BREAKDOWN, ps);
    }
    if (!(rz_new > 0.0) || !isfinite(rz_new))
      return halt(res, isfinite(rz_new) ? CL_SOLVE_BREAKDOWN : nan,
                  cl_fail(CL_ERR_NUMERICAL, "CG: preconditioner not positive definite (r^T M^-1 r = %g at iteration %d)",
                          rz_new, k + 1));
    cl_vec_xpby(n3, z, rz_new / rz, p);
    rz = rz_new;
  }
  return halt(res, CL_SOLVE_MAX_ITERATIONS,
              cl_fail(CL_WARN_NOT_CONVERGED, "CG reached its iteration cap %d with relative residual %.3g > %.3g",
                      def->max_iter, sqrt(rr) / ref, def->rel_tol));
}
