/* Entry "pcg" of the linear-solver table (linear_solver.h): CG with the block-Jacobi preconditioner
 * (cg.h). The analysis sizes the CG workspace; there is no numeric set-up to keep, because the
 * inverted diagonal blocks depend on the solve's constraint mask and cl_cg_solve makes them (one pass
 * over the diagonal, cheap next to a single CG iteration). */
#include <stdlib.h>

#include "base/alloc.h"
#include "base/error.h"
#include "linalg/linear_solver.h"

typedef struct pcg {
  cl_cg_workspace *ws;
  int64_t n3, solves, iterations;
} pcg;

static cl_status pcg_create(void **data) {
  pcg *p = cl_calloc(1, sizeof *p, "PCG linear solver");
  if (!p) return CL_ERR_OUT_OF_MEMORY;
  *data = p;
  return CL_OK;
}

static void pcg_destroy(void *data) {
  pcg *p = data;
  if (!p) return;
  cl_cg_workspace_destroy(p->ws);
  free(p);
}

static cl_status pcg_analyse(void *data, const cl_linear_solver_def *def, const cl_bsr *A) {
  (void)def;
  pcg *p = data;
  p->n3 = 3 * (int64_t)A->n;
  if (p->ws && p->ws->n >= A->n) return CL_OK;
  cl_cg_workspace_destroy(p->ws);
  p->ws = NULL;
  return cl_cg_workspace_create(A->n, &p->ws);
}

static cl_status pcg_setup(void *data, const cl_linear_solver_def *def, const cl_bsr *A, const uint8_t *fixed,
                           cl_solve_reason *reason) {
  (void)data, (void)def, (void)A, (void)fixed, (void)reason;
  return CL_OK;
}

static cl_status pcg_solve(void *data, const cl_linear_solver_def *def, const cl_bsr *A, const double *b, double *x,
                           const uint8_t *fixed, cl_linear_result *res) {
  pcg *p = data;
  cl_status r = cl_linear_cg(A, def, CL_PRECOND_BLOCK_JACOBI, NULL, NULL, p->ws, b, x, fixed, res);
  p->solves++;
  p->iterations += res->iterations;
  return r;
}

static void pcg_stats(const void *data, cl_linear_solver_stats *out) {
  const pcg *p = data;
  out->n = p->n3;
  out->solves = p->solves;
  out->iterations = p->iterations;
}

const cl_linear_solver_ops cl_linear_pcg_ops = {
    .name = "pcg",
    .help = "conjugate gradients with the block-Jacobi preconditioner (inverted 3x3 diagonal blocks)",
    .reuses_setup = 0,
    .create = pcg_create,
    .destroy = pcg_destroy,
    .analyse = pcg_analyse,
    .setup = pcg_setup,
    .solve = pcg_solve,
    .stats = pcg_stats,
};
