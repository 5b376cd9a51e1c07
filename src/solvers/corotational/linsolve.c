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
 * Solvers: the entry of linalg's linear-solver table (linalg/linear_solver.h) whose index is the
 * parameter linear_solver (0 "pcg", 1 "cholmod", 2 "galerkin_mg"); each island owns an instance,
 * analysed once per island pattern (the island cache of islands.c keeps it across fractures
 * elsewhere), set up at the step's first solve and solved again without a new set-up when contacts
 * add held nodes (step.c). Islands under CL_COROT_CHOLMOD_MIN_NODES nodes always use "pcg": a
 * factorisation costs more there; with galerkin_mg so do islands no bigger than the grid's finest
 * coarse level.
 *  0  "pcg": CG with the block-Jacobi preconditioner (inverted 3x3 diagonal blocks).
 *  1  "cholmod": a CHOLMOD factor of A as the preconditioner of CG, reused for several steps
 *     (reuse_factor) and redone by the table's rules: when the iterations the old factor costs have
 *     exceeded the cost of a factorisation ("rent or buy", counted in flops so that runs are
 *     reproducible), when CG needed more than refactor_iterations iterations, when the constraint mask
 *     changed, or at once when CG with the old factor did not converge. refactor_iterations = 0
 *     refactors every step: a direct solve (CG then stops after one iteration).
 *  2  "galerkin_mg": CG preconditioned by one V-cycle of the Galerkin multigrid (or the paper's fixed
 *     cycles, mg_mode), the hierarchy made from the rest positions of the island's nodes in island
 *     order; its parameters are graph_fem's (fem/mg_params.h). The coarse levels are kept across
 *     steps by the same rent-or-buy rule (linalg's mg_reuse; refactor_iterations = 0: a full set-up
 *     every step). The warp below does not apply: the finest level smooths with the matrix of now,
 *     and the coarse space of per-handle affine maps contains the rotated ones (only the coarse
 *     matrix goes stale, and the rule renews it). docs/solvers/corotational.md has the argument.
 *
 * Warped preconditioner (warp_preconditioner = 1, default), what stays here because it is about
 * corotation: what makes an old factor go stale in a corotational solve is mostly rotation,
 * A = M + dt^2 sum_e R_e K_e R_e^T. If node i has turned by Q_i = Rn_i Rf_i^T since the factorisation
 * (Rn: its rotation now, Rf: then; a node's rotation is the polar factor of the volume-weighted sum of
 * its elements' rotations), the matrix is close to Q A_f Q^T with Q = blockdiag(Q_i), so the
 * preconditioner applies
 *     z = Q A_f^-1 Q^T r,
 * symmetric positive definite like A_f, two 3x3 products per node more than the plain one: the
 * table's cl_precond_wrap around the factor. Stiffness warping applied to the preconditioner: a factor
 * then stays good through large rotations and is redone far less often.
 *
 * Local frames (fem/system.c): a supported or contact node's rows and columns are turned into its basis
 * F_i (A_ij <- F_i A_ij F_j^T). A factor made with the frames Fs is then stale wherever the frames
 * changed since, above all within a step, when the contacts found after the first solve are turned
 * into their frames and the island is solved again with the same set-up: with the xyz matrix
 * A ~ Q A_xyz,f Q^T and A_f = Fs A_xyz,f Fs^T, the matrix now is F Q Fs^T A_f Fs Q^T F^T, so the
 * wrap's per-node rotation is G_i = F_i Q_i Fs_i^T (F = I for a node without a frame). Without it,
 * CG with the factor of the frame-free matrix took 2340 iterations over the twelve contact rounds of
 * the Hertz indentation's first static iteration (36k tets) where the rounds that follow took 3-4
 * each. The wrap is therefore in place for every reused factor; warp_preconditioner = false only
 * leaves Q = I. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "fem/mg_params.h"
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

/* The wrap's reference: the factor was just made, so the node rotations of now become Rf and the
 * frames of now Fs (and G is recomputed before its next use). */
static void warp_refreshed(void *ctx) {
  cl_corot_island *isl = ctx;
  if (isl->warp_rot) memcpy(isl->Rf, isl->Rn, sizeof(double) * 9 * (size_t)isl->nnodes);
  cl_fem_frames_snapshot(&isl->sys, isl->Fs);
  isl->q_stale = 1;
}

/* z = G A_f^-1 G^T r, with inner(t) = A_f^-1 t (ctx: the island). G_l = F_l Rn_l Rf_l^T Fs_l^T (the
 * rotations only with warp_preconditioner, the frames always: fem/system.h) is made once per change
 * of Rn, Rf or a frame (the system counts its changes of frame in frames_version), at the first use
 * after it. */
static cl_status warped_precond(void *ctx, cl_precond_fn inner, void *inner_ctx, const double *r, double *z) {
  cl_corot_island *isl = ctx;
  const int32_t nn = isl->nnodes;
  if (isl->q_stale || isl->q_frames != isl->sys.frames_version) {
    for (int32_t l = 0; l < nn; ++l) {
      cl_mat3 Q = cl_mat3_identity();
      if (isl->warp_rot) {
        cl_mat3 Rn, Rf;
        memcpy(Rn.m, isl->Rn + 9 * (size_t)l, sizeof Rn.m);
        memcpy(Rf.m, isl->Rf + 9 * (size_t)l, sizeof Rf.m);
        Q = cl_mat3_mul_nt(&Rn, &Rf);
      }
      cl_fem_frame_turn(&isl->sys, l, isl->Fs + 9 * (size_t)l, isl->warp_rot ? Q.m : NULL, isl->Q + 9 * (size_t)l);
    }
    isl->q_stale = 0;
    isl->q_frames = isl->sys.frames_version;
  }
  return cl_fem_turned_precond(nn, isl->Q, isl->tmp, inner, inner_ctx, r, z);
}

/* The table entry an island uses: the one the parameter linear_solver names, but pcg for islands
 * under CL_COROT_CHOLMOD_MIN_NODES nodes and, with galerkin_mg, for islands with no more nodes than the
 * grid's finest coarse level (fracture makes such chips; a hierarchy is no coarser than the island). */
static int32_t island_entry(const cl_corot *s, const cl_corot_island *isl) {
  const int32_t entry = (int32_t)s->p[CL_COROT_LINEAR_SOLVER];
  if (isl->nnodes < CL_COROT_CHOLMOD_MIN_NODES) return CL_COROT_SOLVER_PCG;
  if (entry == CL_COROT_SOLVER_GALERKIN_MG && isl->nnodes <= s->grid_largest) return CL_COROT_SOLVER_PCG;
  return entry;
}

/* The options of this solve: the tolerance (tol_scale, below), the iteration cap, the reuse rules,
 * the multigrid's parameters and the warp. */
static void solve_def(const cl_corot *s, cl_corot_island *isl, int warp, cl_linear_solver_def *def) {
  cl_linear_solver_def_default(def);
  def->rel_tol = s->p[CL_COROT_TOLERANCE] * isl->tol_scale;
  if (def->rel_tol > 0.5) def->rel_tol = 0.5;
  def->max_iter = (int32_t)s->p[CL_COROT_MAX_ITERATIONS];
  def->threads = s->threads;
  def->reuse_factor = 1;
  def->refactor_iterations = (int32_t)s->p[CL_COROT_REFACTOR_ITERATIONS];
  def->factor_solve = (int32_t)s->p[CL_COROT_FACTOR_SOLVE];
  cl_fem_mg_def(def, s->p + CL_COROT_GRID, s->grid);
  def->mg_reuse = 1; /* refactor_iterations = 0 turns it off, as for the CHOLMOD factor */
  if (warp) {
    def->wrap.apply = warped_precond;
    def->wrap.refreshed = warp_refreshed;
    def->wrap.ctx = isl;
  }
}

/* The island's instance of its entry (island_entry), made and analysed for the island's pattern on
 * first use, or again if the choice changed. The multigrid's analysis reads the rest positions of the
 * island's nodes, gathered in island order (a node replicated by fracture has its original's). */
static cl_status island_solver(cl_corot *s, cl_corot_island *isl, int32_t index, cl_linear_solver_stats *before) {
  const int32_t entry = island_entry(s, isl);
  const char *name = cl_linear_solver_name(entry);
  cl_linear_solver_get_stats(NULL, before); /* zeros: a new instance counts its analysis in this step */
  if (isl->ls && name && strcmp(cl_linear_solver_entry(isl->ls), name) == 0) {
    cl_linear_solver_get_stats(isl->ls, before);
    return CL_OK;
  }
  cl_linear_solver_destroy(isl->ls);
  isl->ls = NULL;
  cl_linear_solver_def def;
  solve_def(s, isl, 0, &def);
  double *X = NULL;
  cl_status r = CL_OK;
  if (entry == CL_COROT_SOLVER_GALERKIN_MG) {
    X = cl_malloc(sizeof(double) * 3 * (size_t)isl->nnodes, "island rest positions");
    if (!X || !s->X) r = X ? cl_fail(CL_ERR_STATE, "internal: no rest positions for the multigrid") : CL_ERR_OUT_OF_MEMORY;
    for (int32_t l = 0; r >= 0 && l < isl->nnodes; ++l)
      memcpy(X + 3 * (size_t)l, s->X + 3 * (size_t)isl->nodes[l], 3 * sizeof(double));
    def.mg_positions = X;
    def.mg_position_count = isl->nnodes;
  }
  if (r >= 0) r = cl_linear_solver_create(name, &def, &isl->ls);
  if (r >= 0) r = cl_linear_solver_analyse(isl->ls, isl->sys.A);
  free(X);
  if (r < 0) {
    cl_linear_solver_destroy(isl->ls); /* the next solve tries again from scratch */
    isl->ls = NULL;
    const char *keys = entry == CL_COROT_SOLVER_GALERKIN_MG ? " (params grid and mg_*)" : "";
    return cl_fail_context(r, "island %d (%d nodes), linear solver '%s'%s: ", index, isl->nnodes, name, keys);
  }
  return CL_OK;
}

/* Configure the island's instance for this solve (solve_def). */
static cl_status configure(const cl_corot *s, cl_corot_island *isl, int warp) {
  cl_linear_solver_def def;
  solve_def(s, isl, warp, &def);
  return cl_linear_solver_configure(isl->ls, &def);
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
  const cl_bsr *A = isl->sys.A;
  const uint8_t *fx = isl->sys.fixed;
  const double *v = isl->sys.v, *dv = isl->sys.dv;
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
      bb += (isl->sys.b[k] - qb[r]) * (isl->sys.b[k] - qb[r]);
      rr += (isl->sys.r0[k] - qr[r]) * (isl->sys.r0[k] - qr[r]);
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
  double *dv = isl->sys.dv, *prev = isl->sys.dv_prev;
  const uint8_t *fixed = isl->sys.fixed;
  for (int64_t d = 0; d < n3; ++d) {
    const double now = dv[d];
    if (extrapolate && !fixed[d]) dv[d] = 2.0 * now - prev[d];
    prev[d] = now;
  }
  if (isl->has_prev < 2) isl->has_prev++;
}

cl_status cl_corot_solve_island(cl_corot *s, cl_corot_island *isl, int32_t index, int resolve, cl_step_report *rep) {
  if (isl->sys.nfull == isl->nnodes) return CL_OK; /* every node held: nothing to solve */
  if (!resolve) warm_start(s, isl);
  isl->tol_scale = tolerance_scale(s, isl);
  cl_linear_solver_stats before, after;
  CL_TRY(island_solver(s, isl, index, &before));
  /* the wrap follows the frames of every reused factor; it turns it by the node rotations only with
   * warp_preconditioner */
  const int warp = cl_linear_solver_reuses_setup(isl->ls);
  isl->warp_rot = warp && s->p[CL_COROT_WARP_PRECONDITIONER] != 0.0;
  CL_TRY(configure(s, isl, warp));
  const uint8_t *mask = isl->sys.ncons ? isl->sys.fixed : NULL;
  cl_status r;
  if (!resolve) {
    /* the step's first solve: new values of A, so a set-up (which may keep an older factor). A re-solve
     * with contact nodes held keeps the set-up of the step's first solve: a factor made with another
     * constraint mask is still a symmetric positive definite preconditioner on the free dofs (the
     * projected CG zeroes the held ones) */
    if (isl->warp_rot) node_rotations(s, isl);
    isl->q_stale = 1; /* new rotations, and this step's frames */
    r = cl_linear_solver_setup(isl->ls, isl->sys.A, mask);
    if (r < 0) return cl_fail_context(r, "island %d: ", index);
  }
  cl_linear_result res;
  r = cl_linear_solver_solve(isl->ls, isl->sys.r0, isl->sys.dv, mask, &res);
  cl_linear_solver_get_stats(isl->ls, &after);
  s->timing.factorizations += (int32_t)(after.factorizations - before.factorizations);
  s->timing.total_factorizations += after.factorizations - before.factorizations;
  s->timing.total_analyses += after.analyses - before.analyses;
  rep->iterations += res.iterations;
  res.rel_residual /= isl->tol_scale; /* against the chosen reference */
  if (res.rel_residual > rep->residual) rep->residual = res.rel_residual;
  if (r < 0)
    return cl_fail_context(r, "island %d (%d nodes): linear solve: ", index, isl->nnodes);
  /* the paper's fixed-cycle multigrid stops where its cycles stop by design (as in graph_fem): its
   * residual is in the statistics, not a warning every step */
  if (r == CL_WARN_NOT_CONVERGED && strcmp(cl_linear_solver_entry(isl->ls), "galerkin_mg") == 0 &&
      s->p[CL_COROT_GRID + CL_FEM_MG_MODE] != 0.0)
    return CL_OK;
  if (r == CL_WARN_NOT_CONVERGED)
    return cl_fail(CL_WARN_NOT_CONVERGED,
                   "island %d (%d nodes): CG did not converge in %d iterations (relative residual %.3g, "
                   "tolerance %.3g); raise the solver parameter max_iterations, use linear_solver = \"cholmod\" "
                   "or a smaller dt", index, isl->nnodes, res.iterations, res.rel_residual,
                   s->p[CL_COROT_TOLERANCE]);
  return r;
}
