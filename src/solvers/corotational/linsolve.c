/* The linear solve of one island: A dv = r0 with r0 = b - A v, so that v' = v + dv (eq 3.8 solved
 * for the velocity change rather than the velocity). Solving for the change keeps the stopping test
 * ||r|| <= tol ||r0|| about the forces of the step, not about the momentum M v: a body flying at
 * 10 m/s would otherwise meet a 1e-6 tolerance with velocity errors of 1e-5 m/s, far above the
 * speeds of its vibration. The warm start is the previous step's dv (velocity changes are smooth in
 * time), kept per island.
 *
 * Constraints: projected CG (linalg/cg.h) with the constrained dofs' dv fixed at the value that puts
 * the node on its target (step.c), i.e. exact Dirichlet conditions: A_ff dv_f = r0_f - A_fc dv_c.
 *
 * Solvers (parameter linear_solver):
 *  0  PCG with the block-Jacobi preconditioner (inverted 3x3 diagonal blocks).
 *  1  CHOLMOD. The symbolic analysis is done once per island pattern (the island cache of islands.c
 *     keeps it across fractures elsewhere); a numeric factorisation of A is reused for several steps
 *     as the preconditioner of CG, and redone before the next step when the work spent on the extra
 *     iterations of the old factor has exceeded the cost of the factorisation ("rent or buy", costs
 *     counted in flops so that runs are reproducible),
 *     when CG needed more than refactor_iterations iterations, when the constraint mask changed, or
 *     at once when CG with the old factor did not converge. refactor_iterations = 0 refactors every
 *     step: a direct solve (CG then stops after one iteration). Islands under
 *     CL_COROT_CHOLMOD_MIN_NODES nodes use PCG.
 *
 * Warped preconditioner (warp_preconditioner = 1, default): what makes an old factor go stale in a
 * corotational solve is mostly rotation, A = M + dt^2 sum_e R_e K_e R_e^T. If node i has turned by
 * Q_i = Rn_i Rf_i^T since the factorisation (Rn: its rotation now, Rf: then; a node's rotation is
 * the polar factor of the volume-weighted sum of its elements' rotations), the matrix is close to
 * Q A_f Q^T with Q = blockdiag(Q_i), so the preconditioner applies
 *     z = Q A_f^-1 Q^T r,
 * symmetric positive definite like A_f, two 3x3 products per node more than the plain one. Stiffness
 * warping applied to the preconditioner: a factor then stays good through large rotations and is
 * redone far less often. */
#include <math.h>
#include <string.h>

#include "base/error.h"
#include "solvers/corotational/corot.h"

/* Rn: node rotations from the element rotations of this step. */
static void node_rotations(const cl_corot *s, cl_corot_island *isl) {
#pragma omp parallel for schedule(static) num_threads(s->threads) if (isl->nnodes > 2048)
  for (int32_t l = 0; l < isl->nnodes; ++l) {
    const int32_t i = isl->nodes[l];
    cl_mat3 S = cl_mat3_zero(), R;
    for (int32_t q = s->inc_ptr[i]; q < s->inc_ptr[i + 1]; ++q) {
      const int32_t e = s->inc[q] >> 2;
      const double *Re = s->Re + 9 * (size_t)e, w = s->vol[e];
      for (int k = 0; k < 9; ++k) S.m[k] += w * Re[k];
    }
    if (cl_polar3(&S, &R, NULL) < 0) R = cl_mat3_identity();
    memcpy(isl->Rn + 9 * (size_t)l, R.m, sizeof R.m);
  }
}

/* z = Q A_f^-1 Q^T r (ctx: the island; Q set by the caller for this solve). */
static cl_status warped_precond(void *ctx, const double *r, double *z) {
  cl_corot_island *isl = ctx;
  const int32_t nn = isl->nnodes;
  for (int32_t l = 0; l < nn; ++l) {
    const double *Q = isl->Q + 9 * (size_t)l, *rl = r + 3 * (size_t)l;
    double *t = isl->tmp + 3 * (size_t)l;
    t[0] = Q[0] * rl[0] + Q[3] * rl[1] + Q[6] * rl[2];
    t[1] = Q[1] * rl[0] + Q[4] * rl[1] + Q[7] * rl[2];
    t[2] = Q[2] * rl[0] + Q[5] * rl[1] + Q[8] * rl[2];
  }
  CL_TRY(cl_cholmod_solve(isl->chol, isl->tmp, isl->tmp));
  for (int32_t l = 0; l < nn; ++l) {
    const double *Q = isl->Q + 9 * (size_t)l, *t = isl->tmp + 3 * (size_t)l;
    double *zl = z + 3 * (size_t)l;
    zl[0] = Q[0] * t[0] + Q[1] * t[1] + Q[2] * t[2];
    zl[1] = Q[3] * t[0] + Q[4] * t[1] + Q[5] * t[2];
    zl[2] = Q[6] * t[0] + Q[7] * t[1] + Q[8] * t[2];
  }
  return CL_OK;
}

static cl_status factorize(cl_corot *s, cl_corot_island *isl, int32_t index) {
  const uint8_t *mask = isl->ncons ? isl->fixed : NULL;
  if (!isl->chol) {
    cl_status r = cl_cholmod_create(isl->A, mask, &isl->chol);
    if (r < 0) return cl_fail_context(r, "island %d: ", index);
      } else {
    CL_TRY(cl_cholmod_set_fixed(isl->chol, mask));
  }
  /* the thread count may change between steps: set it with the mode before every factorisation */
  CL_TRY(cl_cholmod_set_solve_mode(isl->chol, (cl_cholmod_solve_mode)(int)s->p[CL_COROT_FACTOR_SOLVE], s->threads));
  cl_status r = cl_cholmod_factorize(isl->chol, isl->A);
  cl_cholmod_stats cs;
  cl_cholmod_get_stats(isl->chol, &cs);
  /* costs in flops, so the policy is deterministic (no clock): the factorisation's count from CHOLMOD;
   * one preconditioned iteration = the two triangular solves (4 flops per entry of L) and a product
   * with A (18 per 3x3 block), weighted 4x because they stream memory where the factorisation runs
   * dense BLAS-3 (the ratio of time per flop measured on the benchmark machine) */
  isl->factor_cost = cs.flops;
  isl->iteration_cost = 4.0 * (4.0 * cs.nnz_l + 18.0 * (double)isl->A->nnzb);
  isl->rent = 0.0;
  s->timing.factorizations++;
  s->timing.total_factorizations++;
  isl->factor_ok = r == CL_OK;
  isl->refactor = 0;
  isl->solves_on_factor = 0;
  memcpy(isl->fixed_factor, isl->fixed, 3 * (size_t)isl->nnodes);
  memcpy(isl->Rf, isl->Rn, sizeof(double) * 9 * (size_t)isl->nnodes);
  if (r < 0) return cl_fail_context(r, "island %d: ", index);
  return CL_OK; /* a non-positive pivot (warning) leaves factor_ok = 0: PCG takes over this step */
}

static cl_status run_cg(cl_corot *s, cl_corot_island *isl, cl_precond pc, cl_cg_result *res) {
  cl_cg_def def;
  cl_cg_def_default(&def);
  def.precond = pc;
  def.rel_tol = s->p[CL_COROT_TOLERANCE] * isl->tol_scale;
  if (def.rel_tol > 0.5) def.rel_tol = 0.5;
  def.max_iter = (int32_t)s->p[CL_COROT_MAX_ITERATIONS];
  def.fixed = isl->ncons ? isl->fixed : NULL;
  if (pc == CL_PRECOND_USER && s->p[CL_COROT_WARP_PRECONDITIONER] != 0.0) {
    /* Q_l = Rn_l Rf_l^T for this solve */
    for (int32_t l = 0; l < isl->nnodes; ++l) {
      cl_mat3 Rn, Rf;
      memcpy(Rn.m, isl->Rn + 9 * (size_t)l, sizeof Rn.m);
      memcpy(Rf.m, isl->Rf + 9 * (size_t)l, sizeof Rf.m);
      cl_mat3 Q = cl_mat3_mul_nt(&Rn, &Rf);
      memcpy(isl->Q + 9 * (size_t)l, Q.m, sizeof Q.m);
    }
    def.user_fn = warped_precond;
    def.user_ctx = isl;
  } else if (pc == CL_PRECOND_USER) {
    def.user_fn = cl_cholmod_precond;
    def.user_ctx = isl->chol;
  }
  return cl_cg_solve(isl->A, isl->r0, isl->dv, &def, isl->ws, res);
}

/* The tolerance reference (parameter tolerance_reference). CG solves A dv = r0 and measures its
 * residual against the reduced right-hand side ||r0_f - A_fc dv_c||. The residual is the same as that
 * of eq 3.8 itself (A v' - b = A dv - r0), so "CG to tol on eq 3.8", ||A v' - b||_f <= tol ||b_f -
 * A_fc v'_c||, is the CG tolerance tol scaled by ||b_f - A_fc v'_c|| / ||r0_f - A_fc dv_c||. */
static double tolerance_scale(const cl_corot *s, cl_corot_island *isl) {
  if (s->p[CL_COROT_TOLERANCE_REFERENCE] != 0.0) return 1.0;
  /* Both norms in one pass over A that reads the values of a block only when its column node is
   * held: A_fc touches just the few blocks next to constrained nodes, so this costs a walk over
   * the column indices instead of two full products with A. */
  const cl_bsr *A = isl->A;
  const uint8_t *fx = isl->fixed;
  const double *v = isl->v, *dv = isl->dv;
  double bb = 0.0, rr = 0.0;
  for (int32_t i = 0; i < A->n; ++i) {
    double qb[3] = {0.0, 0.0, 0.0}, qr[3] = {0.0, 0.0, 0.0}; /* (A_fc v'_c)_i, (A_fc dv_c)_i */
    for (int64_t q = A->row_ptr[i]; q < A->row_ptr[i + 1]; ++q) {
      const int32_t j = A->col[q];
      const uint8_t *fj = fx + 3 * (size_t)j;
      if (!(fj[0] | fj[1] | fj[2])) continue;
      const double *B = A->val + 9 * q;
      for (int c = 0; c < 3; ++c) {
        if (!fj[c]) continue;
        const double d = dv[3 * (size_t)j + c], u = v[3 * (size_t)j + c] + d;
        for (int r = 0; r < 3; ++r) {
          qb[r] += B[3 * r + c] * u;
          qr[r] += B[3 * r + c] * d;
        }
      }
    }
    for (int r = 0; r < 3; ++r) {
      const size_t k = 3 * (size_t)i + (size_t)r;
      if (fx[k]) continue;
      bb += (isl->b[k] - qb[r]) * (isl->b[k] - qb[r]);
      rr += (isl->r0[k] - qr[r]) * (isl->r0[k] - qr[r]);
    }
  }
  if (!(rr > 0.0) || !(bb > 0.0) || !isfinite(bb / rr)) return 1.0;
  return sqrt(bb / rr);
}

/* The initial guess of the step's first solve (parameter warm_start). dv holds the last step's
 * solution; with warm_start = 1 and two solved steps behind, the free dofs start from the linear
 * extrapolation dv_n + (dv_n - dv_{n-1}). For a smooth motion dv is a smooth function of time,
 * so the constant guess is off by O(dt |d dv/dt|) and the linear one by O(dt^2 |d2 dv/dt2|): the
 * initial residual, and with it the iterations CG needs to reach the tolerance, shrink. Held dofs
 * keep the value step.c set. */
static void warm_start(const cl_corot *s, cl_corot_island *isl) {
  const int64_t n3 = 3 * (int64_t)isl->nnodes;
  const int extrapolate = s->p[CL_COROT_WARM_START] != 0.0 && isl->has_prev >= 2;
  double *dv = isl->dv, *prev = isl->dv_prev;
  const uint8_t *fixed = isl->fixed;
  for (int64_t d = 0; d < n3; ++d) {
    const double now = dv[d];
    if (extrapolate && !fixed[d]) dv[d] = 2.0 * now - prev[d];
    prev[d] = now;
  }
  if (isl->has_prev < 2) isl->has_prev++;
}

cl_status cl_corot_solve_island(cl_corot *s, cl_corot_island *isl, int32_t index, int resolve, cl_step_report *rep) {
  if (isl->ncons == isl->nnodes) return CL_OK; /* every node held: nothing to solve */
  if (!resolve) warm_start(s, isl);
  isl->tol_scale = tolerance_scale(s, isl);
  cl_cg_result res;
  cl_status r;
  const int chol = (int)s->p[CL_COROT_LINEAR_SOLVER] == CL_COROT_SOLVER_CHOLMOD &&
                   isl->nnodes >= CL_COROT_CHOLMOD_MIN_NODES;
  if (chol) {
    const int32_t limit = (int32_t)s->p[CL_COROT_REFACTOR_ITERATIONS];
    int64_t analyses_before = 0;
    if (isl->chol) {
      cl_cholmod_stats cs;
      cl_cholmod_get_stats(isl->chol, &cs);
      analyses_before = cs.analyses;
    }
    /* a re-solve with contact nodes held keeps the factor of the step's first solve: a factor made
     * with another constraint mask is still a symmetric positive definite preconditioner on the free
     * dofs (the projected CG zeroes the held ones) */
    const int mask_changed = !resolve && memcmp(isl->fixed, isl->fixed_factor, 3 * (size_t)isl->nnodes) != 0;
    if (!resolve) node_rotations(s, isl);
    if (!isl->chol || (!resolve && (isl->refactor || mask_changed || limit == 0)) || !isl->factor_ok)
      CL_TRY(factorize(s, isl, index));
    if (isl->factor_ok) {
      r = run_cg(s, isl, CL_PRECOND_USER, &res);
      if (r == CL_WARN_NOT_CONVERGED && isl->solves_on_factor > 0) {
        /* the old factor is too far from A: refactor and try once more */
        rep->iterations += res.iterations;
        CL_TRY(factorize(s, isl, index));
        if (isl->factor_ok) r = run_cg(s, isl, CL_PRECOND_USER, &res);
        else r = run_cg(s, isl, CL_PRECOND_BLOCK_JACOBI, &res);
      }
      isl->solves_on_factor++;
      if (res.iterations > limit) isl->refactor = 1;
      /* Rent or buy: the iterations beyond the one a fresh factor needs are the rent paid for an old
       * factor; once the rent paid since the factorisation exceeds what it cost, buy a new one. This
       * costs at most twice the best fixed refactoring interval, whatever the motion. */
      if (res.iterations > 1) isl->rent += isl->iteration_cost * (double)(res.iterations - 1);
      if (isl->rent > isl->factor_cost) isl->refactor = 1;
    } else {
      r = run_cg(s, isl, CL_PRECOND_BLOCK_JACOBI, &res);
    }
    cl_cholmod_stats cs;
    cl_cholmod_get_stats(isl->chol, &cs);
    s->timing.total_analyses += cs.analyses - analyses_before;
  } else {
    r = run_cg(s, isl, CL_PRECOND_BLOCK_JACOBI, &res);
  }
  rep->iterations += res.iterations;
  res.rel_residual /= isl->tol_scale; /* against the chosen reference */
  if (res.rel_residual > rep->residual) rep->residual = res.rel_residual;
  if (r < 0)
    return cl_fail_context(r, "island %d (%d nodes): linear solve: ", index, isl->nnodes);
  if (r == CL_WARN_NOT_CONVERGED)
    return cl_fail(CL_WARN_NOT_CONVERGED,
                   "island %d (%d nodes): CG did not converge in %d iterations (relative residual %.3g, "
                   "tolerance %.3g); raise the solver parameter max_iterations, use linear_solver = 1 "
                   "(CHOLMOD) or a smaller dt", index, isl->nnodes, res.iterations, res.rel_residual,
                   s->p[CL_COROT_TOLERANCE]);
  return r;
}
