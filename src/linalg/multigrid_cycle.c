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
  double *first;  /* NULL, or: the residual norm of the x the cycle starts from goes here (taken from
                     the first sweep when the smoother can, cl_smooth_gauss_seidel_residual), and a
                     start that meets `at` stops the cycle before anything changes x */
  double *save, *delta; /* 3n work for that (level 0's own b and x, which its cycle does not use) */
  int before;     /* stopped on that first residual: x is as it came, no cycle was made */
} cycle_stop;

/* The pre-smoothing of level 0 when the residual of the x it starts from is wanted: the first forward
 * sweep of (symmetric) Gauss-Seidel gives it, the same sweeps to the bit; other smoothers (and no
 * sweep) need a pass of their own first. Returns ||b - A x0||^2 on the free dofs; x is x0 again when
 * that meets the stop (stop->stopped). */
static double smooth_first(const cl_linear_solver_def *def, mg_level *L, const uint8_t *fixed, const double *b,
                           double *x, cycle_stop *stop) {
  const int32_t sweeps = def->mg_pre_sweeps;
  const int gs = def->mg_smoother == CL_MG_SMOOTH_GAUSS_SEIDEL, sgs = def->mg_smoother == CL_MG_SMOOTH_SYMMETRIC_GS;
  if (sweeps < 1 || !(gs || sgs)) {
    const double rr = cl_bsr_residual(L->A, b, x, fixed, L->r);
    if (!(sqrt(rr) > stop->at)) stop->stopped = 1;
    else smooth(def, L, fixed, 0, sweeps, b, x);
    return rr;
  }
  const size_t n3 = 3 * (size_t)L->A->n;
  memcpy(stop->save, x, sizeof(double) * n3);
  const double rr = cl_smooth_gauss_seidel_residual(L->A, L->dinv, fixed, b, x, stop->delta);
  if (!(sqrt(rr) > stop->at)) {
    memcpy(x, stop->save, sizeof(double) * n3);
    stop->stopped = 1;
    return rr;
  }
  if (gs) {
    cl_smooth_gauss_seidel(L->A, L->dinv, fixed, CL_SWEEP_FORWARD, sweeps - 1, b, x);
  } else { /* symmetric: the first sweep's backward half, then the others whole */
    cl_smooth_gauss_seidel(L->A, L->dinv, fixed, CL_SWEEP_BACKWARD, 1, b, x);
    cl_smooth_gauss_seidel(L->A, L->dinv, fixed, CL_SWEEP_SYMMETRIC, sweeps - 1, b, x);
  }
  return rr;
}

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
  if (stop && stop->first) {
    *stop->first = sqrt(smooth_first(def, L, fixed, b, x, stop));
    if (stop->stopped) {
      stop->rnorm = *stop->first;
      stop->before = 1;
      L->ms += 1e-6 * (double)(cl_time_ns() - t0);
      return CL_OK;
    }
  } else {
    smooth(def, L, fixed, 0, def->mg_pre_sweeps, b, x);
  }
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
                           double *first, double *rnorm, int *stopped) {
  if (!mg || mg->nlev < 1 || !mg->usable)
    return cl_fail(CL_ERR_STATE, "Galerkin multigrid: a V-cycle needs a successful set-up");
  /* (a hierarchy has a coarse level: the finest level smooths) */
  cycle_stop st = {stop, 0.0, 0, first, mg->lev[0].x, mg->lev[0].b, 0};
  const cl_status s = cycle(mg, def, 0, b, x, 0, &st);
  *rnorm = st.rnorm;
  *stopped = st.stopped;
  if (!st.before) mg->st.cycles++; /* not when x met the stop as it came */
  return s;
}
