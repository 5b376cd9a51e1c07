/* One V-cycle of the Galerkin multigrid (Mandal et al. 2025, Algorithm 2 and eqs 5, 9-13):
 *
 *   level l < L:  pre-smooth A_l x_l = b_l (a few sweeps: the high-frequency error goes)
 *                 r_l = b_l - A_l x_l                                     (eqs 5, 12)
 *                 b_{l+1} = R_l r_l = P_l^T r_l,  x_{l+1} = 0              (eqs 9-10)
 *                 cycle at level l + 1                                     (eq 11)
 *                 x_l += P_l x_{l+1}                                       (eq 13)
 *                 post-smooth
 *   level L:      x_L = A_L^-1 b_L (or mg_coarse_iterations of CG)
 *
 * Constraints, at level 0 only: the smoothers leave fixed dofs alone and the residual is zero there
 * (cl_bsr_residual with the mask), the restriction therefore reads only free residuals, and the
 * prolonged correction is dropped on fixed dofs (D P, multigrid_transfer.h). The coarse matrices were
 * made with the same D (multigrid_galerkin.h), so every level solves the projected system A_ff.
 *
 * Symmetry, for the PCG mode: with the same number of sweeps before and after, and the sweeps after
 * the adjoints of those before (Jacobi: itself; Gauss-Seidel: forward before, backward after;
 * symmetric Gauss-Seidel: itself), and an exact coarse solve, the cycle from a zero guess is a
 * symmetric positive definite operator z = B r (Trottenberg, Oosterlee & Schuller 2001, sec 2.4). */
#include <math.h>
#include <string.h>

#include "base/error.h"
#include "base/timer.h"
#include "linalg/multigrid_internal.h"
#include "linalg/smoothers.h"

static void smooth(const cl_linear_solver_def *def, mg_level *L, const uint8_t *fixed, int after, int32_t sweeps,
                   const double *b, double *x) {
  if (sweeps <= 0) return;
  switch (def->mg_smoother) {
    case CL_MG_SMOOTH_JACOBI:
      cl_smooth_jacobi(L->A, L->dinv, fixed, def->mg_omega, sweeps, b, x, L->r);
      break;
    case CL_MG_SMOOTH_COLORED_GS:
      cl_smooth_gauss_seidel_colors(L->A, L->dinv, fixed, after ? CL_SWEEP_BACKWARD : CL_SWEEP_FORWARD, sweeps,
                                    &L->colors, def->threads, b, x);
      break;
    case CL_MG_SMOOTH_GAUSS_SEIDEL:
      cl_smooth_gauss_seidel(L->A, L->dinv, fixed, after ? CL_SWEEP_BACKWARD : CL_SWEEP_FORWARD, sweeps, b, x);
      break;
    default:
      cl_smooth_gauss_seidel(L->A, L->dinv, fixed, CL_SWEEP_SYMMETRIC, sweeps, b, x);
      break;
  }
}

/* stop (level 0 only, NULL elsewhere): the early stop of cl_mg_cycle_stop. */
typedef struct cycle_stop {
  double at;      /* stop when the residual after pre-smoothing is at most this */
  double rnorm;   /* that residual's norm */
  int stopped;
} cycle_stop;

static cl_status cycle(cl_mg *mg, const cl_linear_solver_def *def, int32_t l, const double *b, double *x,
                       int zero_guess, cycle_stop *stop) {
  mg_level *L = &mg->lev[l];
  const int64_t n3 = 3 * (int64_t)L->A->n;
  uint64_t t0 = cl_time_ns();
  if (l == mg->nlev - 1) {
    cl_status s = cl_mg_coarse_solve(&mg->coarse, def, L->A, b, x);
    L->ms += 1e-6 * (double)(cl_time_ns() - t0);
    return s;
  }
  const uint8_t *fixed = l == 0 && mg->has_fixed ? mg->fixed : NULL;
  if (zero_guess) memset(x, 0, sizeof(double) * (size_t)n3);
  smooth(def, L, fixed, 0, def->mg_pre_sweeps, b, x);
  const double rr = cl_bsr_residual(L->A, b, x, fixed, L->r); /* zero on fixed dofs */
  if (stop) {
    stop->rnorm = sqrt(rr);
    if (!(stop->rnorm > stop->at)) { /* met (or NaN: the caller reports it) */
      stop->stopped = 1;
      L->ms += 1e-6 * (double)(cl_time_ns() - t0);
      return CL_OK;
    }
  }
  mg_level *C = &mg->lev[l + 1];
  cl_mg_restrict(&L->T, L->r, C->b);
  L->ms += 1e-6 * (double)(cl_time_ns() - t0);
  CL_TRY(cycle(mg, def, l + 1, C->b, C->x, 1, NULL));
  t0 = cl_time_ns();
  cl_mg_prolong_add(&L->T, C->x, fixed, x);
  smooth(def, L, fixed, 1, def->mg_post_sweeps, b, x);
  L->ms += 1e-6 * (double)(cl_time_ns() - t0);
  return CL_OK;
}

cl_status cl_mg_cycle(cl_mg *mg, const cl_linear_solver_def *def, const double *b, double *x, int zero_guess) {
  if (!mg || mg->nlev < 1 || !mg->usable)
    return cl_fail(CL_ERR_STATE, "Galerkin multigrid: a V-cycle needs a successful set-up");
  mg->st.cycles++;
  return cycle(mg, def, 0, b, x, zero_guess, NULL);
}

cl_status cl_mg_cycle_stop(cl_mg *mg, const cl_linear_solver_def *def, const double *b, double *x, double stop,
                           double *rnorm, int *stopped) {
  if (!mg || mg->nlev < 1 || !mg->usable)
    return cl_fail(CL_ERR_STATE, "Galerkin multigrid: a V-cycle needs a successful set-up");
  mg->st.cycles++;
  cycle_stop st = {stop, 0.0, 0}; /* (a hierarchy has a coarse level: the finest level smooths) */
  const cl_status s = cycle(mg, def, 0, b, x, 0, &st);
  *rnorm = st.rnorm;
  *stopped = st.stopped;
  return s;
}
