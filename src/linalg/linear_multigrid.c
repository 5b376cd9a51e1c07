/* Entry "galerkin_mg" of the linear-solver table (linear_solver.h): the Galerkin multigrid of
 * multigrid.h in two modes.
 *
 *   analyse  the hierarchy for A's pattern, def's grid spec and rest positions (cl_mg_analyse)
 *   setup    the Galerkin products for A's values and the set-up's mask, smoothers, coarse factor
 *   solve    mode fixed: mg_cycles V-cycles from x (the paper's mode), stopping early once the
 *            residual meets rel_tol (tested where a cycle knows it: after its pre-smoothing on the
 *            finest level, fixed_cycles); the residual reached is reported, and not meeting rel_tol is
 *            the warning CL_WARN_NOT_CONVERGED with reason max_iterations, as for any iteration cap.
 *            mode pcg: CG (cg.h) preconditioned by one V-cycle from zero, to rel_tol.
 *
 * A solve whose mask differs from the set-up's rebuilds the coarse matrices for it first (one
 * Galerkin product per level and the coarse factor; counted in cl_mg_stats.rebuilds), so that both
 * modes stay exact on the new mask: the hierarchy is only right for the mask it was made with. When
 * the set-up failed (a singular diagonal block, a non-positive pivot at the coarsest level) block-Jacobi
 * PCG solves instead until the next set-up, as the cholmod entry does: it reports the reason. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/timer.h"
#include "linalg/linear_solver.h"
#include "linalg/multigrid_internal.h"
#include "linalg/vec.h"

typedef struct mg_entry {
  cl_mg *mg;
  cl_cg_workspace *ws;
  double *tmp;                     /* 3n */
  int32_t n;
  const cl_linear_solver_def *def; /* of the solve running: the preconditioner reads it */
  int64_t analyses, solves, iterations;
  /* mg_reuse (rent or buy, flops): the prices of a full set-up and of one CG iteration (a V-cycle and
   * a product with A), the iterations of the first solve after the last full set-up (-1: none yet), the
   * extra iterations' price since, and whether the set-up in use kept older coarse levels */
  double setup_flops, iter_flops, debt;
  int32_t fresh_iterations, last_iterations;
  int first_solve;                 /* the next solve is the first after a set-up */
  int kept;
} mg_entry;

static cl_status mge_create(void **data) {
  mg_entry *e = cl_calloc(1, sizeof *e, "Galerkin multigrid linear solver");
  if (!e) return CL_ERR_OUT_OF_MEMORY;
  cl_status s = cl_mg_create(&e->mg);
  if (s < 0) {
    free(e);
    return s;
  }
  *data = e;
  return CL_OK;
}

static void mge_destroy(void *data) {
  mg_entry *e = data;
  if (!e) return;
  cl_mg_destroy(e->mg);
  cl_cg_workspace_destroy(e->ws);
  free(e->tmp);
  free(e);
}

static cl_status mge_analyse(void *data, const cl_linear_solver_def *def, const cl_bsr *A) {
  mg_entry *e = data;
  cl_cg_workspace_destroy(e->ws);
  free(e->tmp);
  e->ws = NULL;
  e->n = A->n;
  e->tmp = cl_malloc(sizeof(double) * (3 * (size_t)A->n + 1), "Galerkin multigrid work");
  if (!e->tmp) return CL_ERR_OUT_OF_MEMORY;
  CL_TRY(cl_cg_workspace_create(A->n, &e->ws));
  CL_TRY(cl_mg_analyse(e->mg, def, A));
  e->analyses++;
  return CL_OK;
}

/* The flops of a full set-up and of one preconditioned CG iteration, for the rent-or-buy rule of
 * mg_reuse: per block of a fine level, 1080 for its part of P^T A P ((12x3)(3x3)(3x12) products) and
 * 18 for each smoothing sweep, the residual and (level 0) CG's product with A; the coarsest level's
 * factorisation (CHOLMOD's count; n^3/3 dense) and solve (4 nnz(L); 2 n^2; the CG iterations' products). */
static void price(mg_entry *e, const cl_linear_solver_def *def) {
  cl_mg_stats st;
  cl_mg_get_stats(e->mg, &st);
  double setup = 0.0, iter = 18.0 * (double)st.level[0].blocks;
  for (int32_t l = 0; l + 1 < st.levels; ++l) {
    const double nb = (double)st.level[l].blocks;
    setup += 1080.0 * nb;
    iter += 18.0 * nb * (double)(def->mg_pre_sweeps + def->mg_post_sweeps + 1);
  }
  const mg_coarse *c = &e->mg->coarse;
  const double n = (double)c->n;
  if (c->chol) {
    cl_cholmod_stats cs;
    cl_cholmod_get_stats(c->chol, &cs);
    setup += cs.flops;
    iter += 4.0 * cs.nnz_l;
  } else if (c->dense) {
    setup += n * n * n / 3.0;
    iter += 2.0 * n * n;
  } else if (st.levels > 0) {
    iter += (double)def->mg_coarse_iterations * 18.0 * (double)st.level[st.levels - 1].blocks;
  }
  e->setup_flops = setup;
  e->iter_flops = iter;
}

/* A set-up of every level for A (update: a new mask on the matrix of a full set-up, cl_mg_update_mask,
 * which makes again only what the mask changes; the result is the same). */
static cl_status full_setup(mg_entry *e, const cl_linear_solver_def *def, const cl_bsr *A, const uint8_t *fixed,
                            int update, int *why) {
  cl_status s =
      update && !e->kept ? cl_mg_update_mask(e->mg, def, A, fixed, why) : cl_mg_setup(e->mg, def, A, fixed, why);
  e->kept = 0;
  e->debt = 0.0;
  e->fresh_iterations = -1;
  e->first_solve = 1;
  if (s >= 0) price(e, def);
  return s;
}

/* mg_reuse: keep the coarse levels of the last full set-up for A? Only in mode pcg, with the same mask,
 * once a solve after the full set-up told its iterations, while the extra iterations since cost less
 * than a full set-up and the last solve needed at most refactor_iterations more iterations than that
 * first solve (a multigrid's own count varies with the problem: 20-40 on the same bar for 2 or 1
 * sweeps, so the cap is on the extra ones). */
static int keep_coarse(const mg_entry *e, const cl_linear_solver_def *def, const uint8_t *fixed) {
  return def->mg_reuse && def->mg_mode == CL_MG_MODE_PCG && def->refactor_iterations > 0 && cl_mg_usable(e->mg) &&
         cl_mg_same_mask(e->mg, fixed) && e->fresh_iterations >= 0 && e->debt < e->setup_flops &&
         e->last_iterations - e->fresh_iterations <= def->refactor_iterations;
}

static cl_status mge_setup(void *data, const cl_linear_solver_def *def, const cl_bsr *A, const uint8_t *fixed,
                           cl_solve_reason *reason) {
  mg_entry *e = data;
  int why = CL_SOLVE_CONVERGED;
  cl_status s;
  if (keep_coarse(e, def, fixed)) {
    s = cl_mg_refresh_fine(e->mg, A, &why);
    e->kept = 1;
    e->first_solve = 1;
  } else {
    s = full_setup(e, def, A, fixed, 0, &why);
  }
  *reason = (cl_solve_reason)why;
  return s;
}

/* cl_precond_fn: z = B r, one V-cycle from zero. */
static cl_status vcycle_precond(void *ctx, const double *r, double *z) {
  mg_entry *e = ctx;
  return cl_mg_cycle(e->mg, e->def, r, z, 1);
}

/* ||b_f - (A x)_f|| with the residual into r (zero on fixed dofs). */
static double residual_norm(const cl_bsr *A, const double *b, const double *x, const uint8_t *fixed, double *r) {
  return sqrt(cl_bsr_residual(A, b, x, fixed, r));
}

/* Mode fixed: up to mg_cycles V-cycles from x, stopping once the residual meets rel_tol. The test
 * runs where the residual is known without a pass over A of its own: on the x the solve starts from
 * (read off the first cycle's first sweep, cl_mg_cycle_stop's `first`: a start that meets the
 * tolerance is returned as it came), on the residual each cycle computes after its pre-smoothing for
 * the restriction (the solve then returns that iterate, whose residual meets the tolerance) and after
 * the last cycle (the residual reported). So a solve of c cycles reads A for residuals c + 1 times,
 * not 2 c + 1; its iterate is bitwise the same unless it stops early, and then it has had more sweeps
 * than a stop after the previous whole cycle would have given it (test_fixed_mode_stop). */
static cl_status fixed_cycles(mg_entry *e, const cl_linear_solver_def *def, const cl_bsr *A, const double *b,
                              double *x, const uint8_t *fixed, cl_linear_result *res, double ref, double *factor) {
  double *r = e->ws->r;
  const double stop = def->rel_tol * ref;
  double r0 = 0.0, rk = 0.0;
  int32_t k = 0;
  int stopped = 0;
  while (!stopped && k < def->mg_cycles) { /* mg_cycles >= 1: the first cycle always starts */
    double rpre = 0.0;
    cl_status s = cl_mg_cycle_stop(e->mg, def, b, x, stop, k == 0 ? &r0 : NULL, &rpre, &stopped);
    if (s < 0) {
      res->reason = CL_SOLVE_BREAKDOWN;
      res->iterations += k;
      return cl_fail_context(s, "galerkin_mg: V-cycle %d: ", k + 1);
    }
    if (k == 0 && !isfinite(r0)) {
      res->reason = CL_SOLVE_NON_FINITE;
      return cl_fail(CL_ERR_NUMERICAL, "galerkin_mg: the initial residual is %g", r0);
    }
    if (k == 0 && !(r0 > stop)) { /* met as it came: no cycle */
      rk = r0;
      break;
    }
    ++k;
    if (!isfinite(rpre)) {
      res->reason = CL_SOLVE_NON_FINITE;
      res->iterations += k;
      return cl_fail(CL_ERR_NUMERICAL, "galerkin_mg: the residual became %g in V-cycle %d (after its pre-smoothing)",
                     rpre, k);
    }
    if (stopped) rk = rpre;
  }
  if (k > 0 && !stopped) {
    rk = residual_norm(A, b, x, fixed, r);
    if (!isfinite(rk)) {
      res->reason = CL_SOLVE_NON_FINITE;
      res->iterations += k;
      return cl_fail(CL_ERR_NUMERICAL, "galerkin_mg: the residual became %g after V-cycle %d", rk, k);
    }
  }
  res->iterations += k;
  res->rel_residual = rk / ref;
  *factor = k > 0 && r0 > 0.0 ? pow(rk / r0, 1.0 / k) : 0.0;
  if (rk <= stop) {
    res->reason = CL_SOLVE_CONVERGED;
    return CL_OK;
  }
  res->reason = CL_SOLVE_MAX_ITERATIONS;
  return cl_fail(CL_WARN_NOT_CONVERGED,
                 "galerkin_mg: %d V-cycles (mg_cycles, mode fixed) left the relative residual at %.3g > rel_tol %.3g "
                 "(the iteration cap)", k, rk / ref, def->rel_tol);
}

static cl_status mge_solve(void *data, const cl_linear_solver_def *def, const cl_bsr *A, const double *b, double *x,
                           const uint8_t *fixed, cl_linear_result *res) {
  mg_entry *e = data;
  const uint64_t t0 = cl_time_ns();
  const int64_t n3 = 3 * (int64_t)A->n;
  e->solves++;
  if (!cl_mg_same_mask(e->mg, fixed)) {
    /* the hierarchy is only right for its own mask: rebuild the coarse matrices for this one (the rows
     * the mask changes) */
    int why = CL_SOLVE_CONVERGED;
    const int first = e->first_solve;
    cl_status s = full_setup(e, def, A, fixed, 1, &why);
    e->first_solve = first; /* a re-solve with contacts held stays out of the reuse bookkeeping */
    e->mg->st.rebuilds++;
    res->factorizations++;
    if (s < 0) {
      res->reason = (cl_solve_reason)why;
      return s;
    }
  }
  if (!cl_mg_usable(e->mg)) {
    cl_status s = cl_linear_cg(A, def, CL_PRECOND_BLOCK_JACOBI, NULL, NULL, e->ws, b, x, fixed, res);
    e->iterations += res->iterations;
    return s;
  }
  if (!cl_vec_all_finite(n3, b) || !cl_vec_all_finite(n3, x)) {
    res->reason = CL_SOLVE_NON_FINITE;
    return cl_fail(CL_ERR_NUMERICAL, "galerkin_mg: the %s has NaN or Inf",
                   cl_vec_all_finite(n3, b) ? "initial guess" : "right-hand side");
  }
  /* the reference ||b_f - A_fc x_c|| (cg.h); mode fixed reads the initial residual off its first sweep
   * (fixed_cycles), so it needs the reference alone: from the blocks of held columns, not a pass */
  double r0 = 0.0, ref;
  if (def->mg_mode == CL_MG_MODE_FIXED) {
    ref = fixed ? sqrt(cl_cg_reference_norm2(A, b, x, fixed)) : cl_vec_norm(n3, b);
  } else {
    double *r = e->ws->r, *xc = e->tmp;
    for (int64_t d = 0; d < n3; ++d) xc[d] = fixed && fixed[d] ? x[d] : 0.0;
    /* the reference ||b_f - A_fc x_c|| and the initial residual in one pass over A (cl_bsr_residual_pair);
     * from a zero guess on the free dofs they are the same */
    int zero_free = 1, zero = 1;
    for (int64_t d = 0; d < n3 && zero_free; ++d) zero_free = x[d] == xc[d];
    for (int64_t d = 0; d < n3 && zero_free && zero; ++d) zero = xc[d] == 0.0;
    double ref2 = 0.0;
    /* x = 0 everywhere (held dofs at rest too, as a hanging body's): r = the masked b, without reading A */
    r0 = sqrt(zero_free ? cl_bsr_residual(A, b, zero ? NULL : x, fixed, r)
                        : cl_bsr_residual_pair(A, b, x, xc, fixed, r, &ref2));
    ref = zero_free ? r0 : sqrt(ref2);
  }
  res->ref_norm = ref;
  double factor = 0.0;
  int32_t cycles = 0;
  cl_status s;
  if (ref == 0.0) { /* the reduced right-hand side is zero: so is the solution (as in cg.h) */
    for (int64_t d = 0; d < n3; ++d)
      if (!(fixed && fixed[d])) x[d] = 0.0;
    res->reason = CL_SOLVE_CONVERGED;
    res->rel_residual = 0.0;
    s = CL_OK;
  } else if (def->mg_mode == CL_MG_MODE_FIXED) {
    const int64_t before = e->mg->st.cycles;
    s = fixed_cycles(e, def, A, b, x, fixed, res, ref, &factor);
    cycles = (int32_t)(e->mg->st.cycles - before);
  } else {
    e->def = def;
    const int32_t before = res->iterations;
    s = cl_linear_cg(A, def, CL_PRECOND_USER, vcycle_precond, e, e->ws, b, x, fixed, res);
    if (s == CL_WARN_NOT_CONVERGED && e->kept) {
      /* the kept coarse levels were too stale: a full set-up, and CG again from where it stopped */
      int why = CL_SOLVE_CONVERGED;
      cl_status f = full_setup(e, def, A, fixed, 0, &why);
      res->factorizations++;
      if (f < 0) {
        res->reason = (cl_solve_reason)why;
        return f;
      }
      if (cl_mg_usable(e->mg)) s = cl_linear_cg(A, def, CL_PRECOND_USER, vcycle_precond, e, e->ws, b, x, fixed, res);
      e->first_solve = 0; /* this solve's count mixes both set-ups: the next full one measures again */
    }
    cycles = res->iterations - before;
    if (e->first_solve) {
      e->first_solve = 0;
      e->last_iterations = cycles;
      if (e->fresh_iterations < 0 && !e->kept) e->fresh_iterations = cycles;
      else if (e->kept && cycles > e->fresh_iterations) e->debt += (cycles - e->fresh_iterations) * e->iter_flops;
    }
    if (cycles > 0 && r0 > 0.0) factor = pow(res->rel_residual * ref / r0, 1.0 / cycles);
  }
  e->iterations += res->iterations;
  cl_mg_note_solve(e->mg, 1e-6 * (double)(cl_time_ns() - t0), cycles, factor);
  return s;
}

static void mge_stats(const void *data, cl_linear_solver_stats *out) {
  const mg_entry *e = data;
  cl_mg_stats st;
  cl_mg_get_stats(e->mg, &st);
  out->analyses = e->analyses;
  out->factorizations = st.setups;
  out->solves = e->solves;
  out->iterations = e->iterations;
  out->n = 3 * (int64_t)e->n;
  if (e->mg->coarse.chol) {
    cl_cholmod_stats cs;
    cl_cholmod_get_stats(e->mg->coarse.chol, &cs);
    out->factor_flops = cs.flops;
    out->factor_entries = cs.nnz_l;
  }
}

const cl_mg *cl_linear_multigrid_object(const void *data) { return data ? ((const mg_entry *)data)->mg : NULL; }

static cl_status mge_refresh_diagonal(void *data, const cl_bsr *A) {
  mg_entry *e = data;
  return cl_mg_refresh_smoother(e->mg, A);
}

const cl_linear_solver_ops cl_linear_multigrid_ops = {
    .name = "galerkin_mg",
    .help = "Galerkin multigrid (linear-blend-skinning coarse levels from farthest point sampling): fixed V-cycles, "
            "or CG preconditioned by one V-cycle; needs the nodes' rest positions",
    .reuses_setup = 0,
    .create = mge_create,
    .destroy = mge_destroy,
    .analyse = mge_analyse,
    .setup = mge_setup,
    .solve = mge_solve,
    .stats = mge_stats,
    .refresh_diagonal = mge_refresh_diagonal,
};
