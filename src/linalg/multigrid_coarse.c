/* The solve at the coarsest level of the Galerkin multigrid (Algorithm 2's last level): a few CG
 * iterations (the paper: "a Conjugate Gradient (CG) solver with 20 cycles or a direct solver", sec
 * 4.1), a CHOLMOD factor, or a dense Cholesky factor for small coarsest levels. The coarse matrix is
 * positive definite by construction (cl_mg_regularize), so a failing factorisation means A itself is
 * not positive definite on the free dofs.
 *
 * The CHOLMOD kind is the linear-solver table's "cholmod" entry (linear_cholmod.c) on the coarse
 * matrix: CG preconditioned by a factor, to the relative residual CL_MG_COARSE_TOL. With the def's
 * reuse_factor (the default) a set-up keeps the factor of an older coarse matrix while the extra CG
 * iterations cost less than a new factorisation (the entry's rent-or-buy rule with its forecast), so
 * the coarse solve stays exact to that tolerance while the factorisation, 0.49 ms for the 600
 * unknowns of "50/all" (the handle graph is nearly dense, and the contact rounds of one step set the
 * hierarchy up 2-3 times), is paid only when it pays; reuse_factor = 0 factorises at every set-up. A
 * factor of the coarse matrix of now solves directly, without CG (the entry's direct_fresh: 0.03 ms
 * against 0.12 ms for CG's one iteration with its products and residual check). One thread: the factor is too small
 * for threads (two BLAS threads: 4.5 against 2.9 ms on the Charpy bar; CHOLMOD's own OpenMP teams:
 * 2.0-2.3 against 0.63 ms, docs/solvers/graph_fem.md "The coarsest level's cost"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "linalg/multigrid_internal.h"

void cl_mg_coarse_free(mg_coarse *c) {
  cl_linear_solver_destroy(c->ls);
  cl_cg_workspace_destroy(c->ws);
  free(c->dense);
  memset(c, 0, sizeof *c);
}

/* The "cholmod" entry's options for the coarse level: its tolerance, one thread, the reuse rule of the
 * multigrid's own def. */
static void coarse_def(const cl_linear_solver_def *def, cl_linear_solver_def *cd) {
  cl_linear_solver_def_default(cd);
  cd->rel_tol = CL_MG_COARSE_TOL;
  cd->max_iter = CL_MG_COARSE_MAX_ITER;
  cd->threads = 1;
  cd->reuse_factor = def->reuse_factor;
  cd->refactor_iterations = def->refactor_iterations;
  cd->direct_fresh = 1; /* a fresh factor solves directly: 0.03 ms against 0.12 for CG's one iteration */
}

cl_status cl_mg_coarse_analyse(mg_coarse *c, const cl_linear_solver_def *def, const cl_bsr *A) {
  cl_mg_coarse_free(c);
  const int32_t kind = def->mg_coarse_solver;
  c->kind = kind;
  c->n = 3 * A->n;
  switch (kind) {
    case CL_MG_COARSE_CHOLMOD: {
      cl_linear_solver_def cd;
      coarse_def(def, &cd);
      CL_TRY(cl_linear_solver_create("cholmod", &cd, &c->ls));
      CL_TRY(cl_linear_solver_analyse(c->ls, A));
      c->chol = cl_linear_solver_cholmod(c->ls);
      return CL_OK;
    }
    case CL_MG_COARSE_DENSE:
      if (c->n > CL_MG_DENSE_MAX)
        return cl_fail(CL_ERR_INVALID_ARGUMENT,
                       "parameter 'mg_coarse_solver' = %d (dense) takes at most %d unknowns; the coarsest level has %d "
                       "(use 1, cholmod, or 0, cg, or fewer vertices at the coarsest level of 'mg_grid')",
                       kind, CL_MG_DENSE_MAX, c->n);
      c->dense = cl_malloc(sizeof(double) * (size_t)c->n * (size_t)c->n, "dense coarse factor");
      return c->dense ? CL_OK : CL_ERR_OUT_OF_MEMORY;
    default:
      return cl_cg_workspace_create(A->n, &c->ws);
  }
}

/* L L^T = A (row-major, lower triangle of L in place; the upper triangle is left as it is). Row by row
 * (Cholesky-Banachiewicz), so the inner products run over contiguous rows. Returns the first row with
 * a non-positive pivot, or -1. */
static int32_t dense_cholesky(double *L, int32_t n) {
  for (int32_t i = 0; i < n; ++i) {
    double *li = L + (int64_t)n * i;
    for (int32_t j = 0; j <= i; ++j) {
      const double *lj = L + (int64_t)n * j;
      double s = li[j];
      for (int32_t k = 0; k < j; ++k) s -= li[k] * lj[k];
      if (j < i) {
        li[j] = s / lj[j];
      } else {
        if (!(s > 0.0)) return i;
        li[i] = sqrt(s);
      }
    }
  }
  return -1;
}

cl_status cl_mg_coarse_factor(mg_coarse *c, const cl_linear_solver_def *def, const cl_bsr *A) {
  if (c->kind == CL_MG_COARSE_CHOLMOD) {
    cl_linear_solver_def cd;
    coarse_def(def, &cd); /* reuse_factor may have changed since the analysis (cl_linear_solver_configure) */
    CL_TRY(cl_linear_solver_configure(c->ls, &cd));
    return cl_linear_solver_setup(c->ls, A, NULL);
  }
  if (c->kind != CL_MG_COARSE_DENSE) return CL_OK;
  const int32_t n = c->n;
  memset(c->dense, 0, sizeof(double) * (size_t)n * (size_t)n);
  for (int32_t i = 0; i < A->n; ++i)
    for (int64_t s = A->row_ptr[i]; s < A->row_ptr[i + 1]; ++s) {
      const int32_t j = A->col[s];
      for (int r = 0; r < 3; ++r)
        for (int e = 0; e < 3; ++e) c->dense[(int64_t)n * (3 * i + r) + 3 * j + e] = A->val[9 * s + 3 * r + e];
    }
  const int32_t bad = dense_cholesky(c->dense, n);
  if (bad >= 0)
    return cl_fail(CL_WARN_NOT_POSDEF, "dense Cholesky of the coarsest level: non-positive pivot at unknown %d of %d",
                   bad, n);
  return CL_OK;
}

cl_status cl_mg_coarse_solve(mg_coarse *c, const cl_linear_solver_def *def, const cl_bsr *A, const double *b,
                             double *x) {
  switch (c->kind) {
    case CL_MG_COARSE_CHOLMOD: {
      memset(x, 0, sizeof(double) * (size_t)c->n);
      cl_linear_result res;
      cl_status s = cl_linear_solver_solve(c->ls, b, x, NULL, &res);
      c->iterations += res.iterations;
      return s;
    }
    case CL_MG_COARSE_DENSE: {
      const int32_t n = c->n;
      const double *L = c->dense;
      for (int32_t i = 0; i < n; ++i) { /* L y = b */
        double s = b[i];
        const double *li = L + (int64_t)n * i;
        for (int32_t k = 0; k < i; ++k) s -= li[k] * x[k];
        x[i] = s / li[i];
      }
      for (int32_t i = n - 1; i >= 0; --i) { /* L^T x = y, by rows of L (contiguous) */
        const double *li = L + (int64_t)n * i;
        const double xi = x[i] / li[i];
        x[i] = xi;
        for (int32_t k = 0; k < i; ++k) x[k] -= li[k] * xi;
      }
      return CL_OK;
    }
    default: {
      /* a fixed number of block-Jacobi CG iterations from zero; the iteration cap is the expected stop */
      memset(x, 0, sizeof(double) * (size_t)c->n);
      cl_cg_def cg;
      cl_cg_def_default(&cg);
      cg.rel_tol = 1e-14;
      cg.max_iter = def->mg_coarse_iterations;
      cl_status s = cl_cg_solve(A, b, x, &cg, c->ws, NULL);
      return s == CL_WARN_NOT_CONVERGED ? CL_OK : s;
    }
  }
}
