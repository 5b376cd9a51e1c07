/* The linear-solver table: the registry of entries by name and the instance wrapper that checks
 * arguments and the order of the phases before an entry sees them. See linear_solver.h. */
#include "linalg/linear_solver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"

/* Order is part of the interface (numeric choices index it): append new entries at the end. */
static const cl_linear_solver_ops *const k_entries[] = {&cl_linear_pcg_ops, &cl_linear_cholmod_ops,
                                                        &cl_linear_multigrid_ops};
enum { ENTRY_COUNT = (int)(sizeof k_entries / sizeof k_entries[0]) };

struct cl_linear_solver {
  const cl_linear_solver_ops *ops;
  void *data;
  cl_linear_solver_def def;
  int32_t n;             /* block rows of the analysed pattern; -1 before analysis */
  int64_t nnzb;          /* its blocks */
  const cl_bsr *A;       /* matrix of the last set-up; NULL before one */
  cl_solve_reason reason;
  int diag_changed;      /* cl_linear_solver_diagonal_changed since the last solve */
};

int32_t cl_linear_solver_count(void) { return ENTRY_COUNT; }

const char *cl_linear_solver_name(int32_t i) { return i >= 0 && i < ENTRY_COUNT ? k_entries[i]->name : NULL; }

const char *cl_linear_solver_help(int32_t i) { return i >= 0 && i < ENTRY_COUNT ? k_entries[i]->help : NULL; }

int32_t cl_linear_solver_find(const char *name) {
  if (!name) return -1;
  for (int32_t i = 0; i < ENTRY_COUNT; ++i)
    if (strcmp(k_entries[i]->name, name) == 0) return i;
  return -1;
}

void cl_linear_solver_def_default(cl_linear_solver_def *def) {
  if (!def) return;
  memset(def, 0, sizeof *def);
  def->rel_tol = 1e-8;
  def->max_iter = 1000;
  def->threads = 1;
  def->reuse_factor = 1;
  def->refactor_iterations = 30;
  def->factor_solve = CL_CHOLMOD_SOLVE_CHOLMOD;
  snprintf(def->mg_grid, sizeof def->mg_grid, "%s", "50/all");
  def->mg_smoother = CL_MG_SMOOTH_GAUSS_SEIDEL;
  def->mg_pre_sweeps = 2;
  def->mg_post_sweeps = 2;
  def->mg_omega = 0.5;
  def->mg_coarse_solver = CL_MG_COARSE_CHOLMOD;
  def->mg_coarse_iterations = 20;
  def->mg_mode = CL_MG_MODE_PCG;
  def->mg_cycles = 1;
  def->mg_regularization = 1e-10;
}

/* The galerkin_mg options (the grid spec's text is parsed here too, so a bad one fails at create or
 * configure, before any analysis). */
static cl_status check_multigrid(const cl_linear_solver_def *def) {
  if (!memchr(def->mg_grid, '\0', sizeof def->mg_grid))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "linear solver: parameter 'mg_grid' is not a terminated string of at "
                   "most %d characters", CL_MG_GRID_CHARS - 1);
  cl_mg_grid grid;
  const cl_status gs = cl_mg_grid_parse(def->mg_grid, &grid);
  if (gs < 0) return cl_fail_context(gs, "linear solver: ");
  if (def->mg_position_count < 0)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "linear solver: parameter 'mg_position_count' = %d must be >= 0",
                   def->mg_position_count);
  if (def->mg_smoother < CL_MG_SMOOTH_JACOBI || def->mg_smoother > CL_MG_SMOOTH_COLORED_GS)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "linear solver: parameter 'mg_smoother' = %d is outside [0, 3] (0 jacobi, "
                   "1 gauss_seidel, 2 symmetric_gauss_seidel, 3 colored_gauss_seidel)", def->mg_smoother);
  if (def->mg_pre_sweeps < 0 || def->mg_pre_sweeps > 1000)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "linear solver: parameter 'mg_pre_sweeps' = %d is outside [0, 1000]",
                   def->mg_pre_sweeps);
  if (def->mg_post_sweeps < 0 || def->mg_post_sweeps > 1000)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "linear solver: parameter 'mg_post_sweeps' = %d is outside [0, 1000]",
                   def->mg_post_sweeps);
  if (def->mg_pre_sweeps + def->mg_post_sweeps < 1)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "linear solver: parameters 'mg_pre_sweeps' and 'mg_post_sweeps' are both 0; "
                   "a V-cycle needs at least one smoothing sweep");
  if (!(def->mg_omega > 0.0 && def->mg_omega <= 1.0))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "linear solver: parameter 'mg_omega' = %g is outside (0, 1]", def->mg_omega);
  if (def->mg_coarse_solver < CL_MG_COARSE_CG || def->mg_coarse_solver > CL_MG_COARSE_DENSE)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "linear solver: parameter 'mg_coarse_solver' = %d is outside [0, 2] (0 cg, "
                   "1 cholmod, 2 dense)", def->mg_coarse_solver);
  if (def->mg_coarse_iterations < 1 || def->mg_coarse_iterations > 100000)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "linear solver: parameter 'mg_coarse_iterations' = %d is outside [1, 100000]",
                   def->mg_coarse_iterations);
  if (def->mg_mode != CL_MG_MODE_FIXED && def->mg_mode != CL_MG_MODE_PCG)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "linear solver: parameter 'mg_mode' = %d is outside [0, 1] (0 fixed "
                   "V-cycles, 1 pcg)", def->mg_mode);
  if (def->mg_mode == CL_MG_MODE_PCG && def->mg_pre_sweeps != def->mg_post_sweeps)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "linear solver: parameter 'mg_post_sweeps' = %d must equal 'mg_pre_sweeps' = "
                   "%d in mode pcg (the preconditioner must be a symmetric cycle)", def->mg_post_sweeps,
                   def->mg_pre_sweeps);
  if (def->mg_cycles < 1 || def->mg_cycles > 100000)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "linear solver: parameter 'mg_cycles' = %d is outside [1, 100000]",
                   def->mg_cycles);
  if (def->mg_reuse != 0 && def->mg_reuse != 1)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "linear solver: parameter 'mg_reuse' = %d is outside [0, 1]", def->mg_reuse);
  if (!(def->mg_regularization >= 1e-14 && def->mg_regularization <= 1e-2))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "linear solver: parameter 'mg_regularization' = %g is outside [1e-14, 1e-2]",
                   def->mg_regularization);
  return CL_OK;
}

static cl_status check_def(const cl_linear_solver_def *def) {
  if (!(def->rel_tol > 0.0 && def->rel_tol < 1.0))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "linear solver: parameter 'rel_tol' = %g is outside its allowed range (0, 1)",
                   def->rel_tol);
  if (def->max_iter < 0)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "linear solver: parameter 'max_iter' = %d must be >= 0", def->max_iter);
  if (def->threads < 1 || def->threads > 1024)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "linear solver: parameter 'threads' = %d is outside [1, 1024]",
                   def->threads);
  if (def->reuse_factor != 0 && def->reuse_factor != 1)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "linear solver: parameter 'reuse_factor' = %d must be 0 or 1",
                   def->reuse_factor);
  if (def->refactor_iterations < 0)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "linear solver: parameter 'refactor_iterations' = %d must be >= 0",
                   def->refactor_iterations);
  if (def->direct_fresh != 0 && def->direct_fresh != 1)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "linear solver: parameter 'direct_fresh' = %d must be 0 or 1",
                   def->direct_fresh);
  if (def->factor_solve < CL_CHOLMOD_SOLVE_CHOLMOD || def->factor_solve > CL_CHOLMOD_SOLVE_SINGLE)
    return cl_fail(CL_ERR_INVALID_ARGUMENT,
                   "linear solver: parameter 'factor_solve' = %d is outside [0, 2] (0 CHOLMOD's solve, 1 cleave's "
                   "sweeps in double, 2 in single precision)", def->factor_solve);
  return check_multigrid(def);
}

cl_status cl_linear_solver_create(const char *name, const cl_linear_solver_def *def, cl_linear_solver **out) {
  if (!out) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_linear_solver_create: out is NULL");
  *out = NULL;
  const int32_t i = cl_linear_solver_find(name);
  if (i < 0) {
    char list[256] = "";
    for (int32_t k = 0; k < ENTRY_COUNT; ++k) {
      size_t len = strlen(list);
      snprintf(list + len, sizeof list - len, "%s\"%s\"", k ? ", " : "", k_entries[k]->name);
    }
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "linear solver \"%s\" does not exist; the linear solvers are %s",
                   name ? name : "(null)", list);
  }
  cl_linear_solver_def d;
  if (def) d = *def;
  else cl_linear_solver_def_default(&d);
  CL_TRY(check_def(&d));
  cl_linear_solver *ls = cl_calloc(1, sizeof *ls, "linear solver");
  if (!ls) return CL_ERR_OUT_OF_MEMORY;
  ls->ops = k_entries[i];
  ls->def = d;
  ls->n = -1;
  cl_status r = ls->ops->create(&ls->data);
  if (r < 0) {
    free(ls);
    return r;
  }
  *out = ls;
  return CL_OK;
}

void cl_linear_solver_destroy(cl_linear_solver *ls) {
  if (!ls) return;
  ls->ops->destroy(ls->data);
  free(ls);
}

cl_status cl_linear_solver_configure(cl_linear_solver *ls, const cl_linear_solver_def *def) {
  if (!ls || !def) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_linear_solver_configure: NULL argument");
  CL_TRY(check_def(def));
  ls->def = *def;
  return CL_OK;
}

const char *cl_linear_solver_entry(const cl_linear_solver *ls) { return ls ? ls->ops->name : NULL; }

int cl_linear_solver_reuses_setup(const cl_linear_solver *ls) { return ls ? ls->ops->reuses_setup : 0; }

cl_status cl_linear_solver_analyse(cl_linear_solver *ls, const cl_bsr *A) {
  if (!ls || !A) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_linear_solver_analyse: NULL argument");
  if (A->n < 1 || A->n_cols != A->n)
    return cl_fail(CL_ERR_INVALID_ARGUMENT,
                   "linear solver \"%s\": the matrix must be square with >= 1 block row (n %d, n_cols %d)",
                   ls->ops->name, A->n, A->n_cols);
  ls->n = -1;
  ls->A = NULL;
  ls->reason = CL_SOLVE_CONVERGED;
  cl_status r = ls->ops->analyse(ls->data, &ls->def, A);
  if (r < 0) {
    ls->reason = CL_SOLVE_INVALID;
    return cl_fail_context(r, "linear solver \"%s\": analysis: ", ls->ops->name);
  }
  ls->n = A->n;
  ls->nnzb = A->nnzb;
  return r;
}

cl_status cl_linear_solver_setup(cl_linear_solver *ls, const cl_bsr *A, const uint8_t *fixed) {
  if (!ls || !A) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_linear_solver_setup: NULL argument");
  if (ls->n < 0)
    return cl_fail(CL_ERR_STATE, "linear solver \"%s\": set-up before analysis (call cl_linear_solver_analyse)",
                   ls->ops->name);
  if (A->n != ls->n || A->nnzb != ls->nnzb || A->n_cols != A->n)
    return cl_fail(CL_ERR_INVALID_ARGUMENT,
                   "linear solver \"%s\": the matrix has %d block rows and %lld blocks; the analysed pattern has %d "
                   "and %lld (analyse again after a change of pattern)", ls->ops->name, A->n, (long long)A->nnzb,
                   ls->n, (long long)ls->nnzb);
  ls->reason = CL_SOLVE_CONVERGED;
  cl_status r = ls->ops->setup(ls->data, &ls->def, A, fixed, &ls->reason);
  ls->A = A; /* also after a warning or an error: a solve falls back or sets the factor up again */
  ls->diag_changed = 0;
  return r;
}

cl_status cl_linear_solver_solve(cl_linear_solver *ls, const double *b, double *x, const uint8_t *fixed,
                                 cl_linear_result *res) {
  cl_linear_result local;
  if (!res) res = &local;
  memset(res, 0, sizeof *res);
  res->reason = CL_SOLVE_INVALID;
  if (!ls || !b || !x) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_linear_solver_solve: NULL argument");
  if (!ls->A) {
    ls->reason = CL_SOLVE_INVALID;
    return cl_fail(CL_ERR_STATE, "linear solver \"%s\": solve before a set-up (call cl_linear_solver_setup)",
                   ls->ops->name);
  }
  res->reason = CL_SOLVE_CONVERGED;
  if (ls->diag_changed && ls->ops->refresh_diagonal) {
    cl_status d = ls->ops->refresh_diagonal(ls->data, ls->A);
    if (d < 0) return d;
  }
  ls->diag_changed = 0;
  cl_status r = ls->ops->solve(ls->data, &ls->def, ls->A, b, x, fixed, res);
  ls->reason = res->reason;
  return r;
}

void cl_linear_solver_diagonal_changed(cl_linear_solver *ls) {
  if (ls) ls->diag_changed = 1;
}

cl_solve_reason cl_linear_solver_reason(const cl_linear_solver *ls) { return ls ? ls->reason : CL_SOLVE_INVALID; }

void cl_linear_solver_get_stats(const cl_linear_solver *ls, cl_linear_solver_stats *out) {
  if (!out) return;
  memset(out, 0, sizeof *out);
  if (ls) ls->ops->stats(ls->data, out);
}

cl_status cl_linear_cg(const cl_bsr *A, const cl_linear_solver_def *def, cl_precond pc, cl_precond_fn fn, void *ctx,
                       cl_cg_workspace *ws, const double *b, double *x, const uint8_t *fixed, cl_linear_result *res) {
  cl_cg_def cg;
  cl_cg_def_default(&cg);
  cg.precond = pc;
  cg.rel_tol = def->rel_tol;
  cg.max_iter = def->max_iter;
  cg.fixed = fixed;
  cg.user_fn = fn;
  cg.user_ctx = ctx;
  cl_cg_result cr;
  cl_status r = cl_cg_solve(A, b, x, &cg, ws, &cr);
  res->reason = cr.reason;
  res->iterations += cr.iterations;
  res->rel_residual = cr.rel_residual;
  res->ref_norm = cr.ref_norm;
  return r;
}

const cl_cholmod *cl_linear_solver_cholmod(const cl_linear_solver *ls) {
  return ls && ls->ops == &cl_linear_cholmod_ops ? cl_linear_cholmod_object(ls->data) : NULL;
}

const cl_mg *cl_linear_solver_multigrid(const cl_linear_solver *ls) {
  return ls && ls->ops == &cl_linear_multigrid_ops ? cl_linear_multigrid_object(ls->data) : NULL;
}
