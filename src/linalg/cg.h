/* Conjugate gradients (Hestenes & Stiefel 1952) and preconditioned CG (Saad, "Iterative Methods
 * for Sparse Linear Systems", 2nd ed., Algorithm 9.1) on a symmetric positive definite BSR matrix.
 *
 * Constraints: projected CG. Dofs with fixed[d] != 0 keep the value they have in x on entry, and
 * the iteration runs in the subspace of free dofs (residual, directions and preconditioned residual
 * are zero on fixed dofs). This solves A_ff x_f = b_f - A_fc x_c with A unmodified, so the same
 * matrix serves several constraint sets. (The other way, cl_bsr_apply_dirichlet, modifies A.)
 *
 * Stopping: ||r_k|| <= rel_tol * ||b_f - A_fc x_c||, the norm of the right-hand side of the reduced
 * system (||b|| when nothing is fixed), with r_k the recursively updated residual on free dofs. */
#ifndef CL_LINALG_CG_H
#define CL_LINALG_CG_H

#include <stdint.h>

#include "cleave/status.h"
#include "linalg/bsr.h"

typedef enum cl_precond {
  CL_PRECOND_NONE = 0,         /* plain CG */
  CL_PRECOND_JACOBI = 1,       /* M = diag(A) */
  CL_PRECOND_BLOCK_JACOBI = 2, /* M = block-diag(A): inverted 3x3 diagonal blocks */
  CL_PRECOND_USER = 3          /* z = M^-1 r by user_fn (e.g. a CHOLMOD factor of an older A) */
} cl_precond;

/* z = M^-1 r for a user preconditioner; M must be symmetric positive definite. r and z have 3n
 * entries; r is zero on fixed dofs and z is projected (zeroed there) after the call. Return CL_OK or
 * an error status (with cl_fail), which stops the solve. */
typedef cl_status (*cl_precond_fn)(void *ctx, const double *r, double *z);

typedef struct cl_cg_def {
  cl_precond precond;    /* default CL_PRECOND_BLOCK_JACOBI */
  double rel_tol;        /* relative residual to reach, in (0, 1); default 1e-8 */
  int32_t max_iter;      /* iteration cap, >= 0; default 1000 */
  const uint8_t *fixed;  /* 3n flags, non-zero = dof fixed at its value in x; NULL = none */
  cl_precond_fn user_fn; /* for CL_PRECOND_USER */
  void *user_ctx;        /* passed to user_fn */
} cl_cg_def;

void cl_cg_def_default(cl_cg_def *def);

/* Why a linear solve stopped (in the spirit of PETSc's KSPConvergedReason): every solve of cg.h and of
 * the linear-solver table (linear_solver.h) sets one, so a caller can react to the cause instead of
 * parsing the message. */
typedef enum cl_solve_reason {
  CL_SOLVE_CONVERGED = 0,      /* the tolerance was met (status CL_OK) */
  CL_SOLVE_MAX_ITERATIONS = 1, /* the iteration cap was reached first (status CL_WARN_NOT_CONVERGED) */
  CL_SOLVE_NOT_POSDEF = 2,     /* the matrix is not positive definite on the free dofs: p^T A p <= 0, a
                                  non-positive pivot, or a singular / non-positive diagonal block */
  CL_SOLVE_BREAKDOWN = 3,      /* the preconditioner broke down: r^T M^-1 r <= 0, or it returned an error */
  CL_SOLVE_NON_FINITE = 4,     /* NaN or Inf in the matrix, right-hand side, initial guess or an iterate */
  CL_SOLVE_INVALID = 5         /* bad arguments, out of memory or a library failure: see cl_last_error() */
} cl_solve_reason;

/* "converged", "max_iterations", "not_positive_definite", "breakdown", "non_finite", "invalid". */
const char *cl_solve_reason_name(cl_solve_reason reason);

typedef struct cl_cg_result {
  cl_solve_reason reason; /* why the solve stopped */
  int32_t iterations;   /* CG iterations done (0 if the initial x already met the tolerance) */
  double rel_residual;  /* final ||r|| / reference norm (see above) */
  double ref_norm;      /* the reference norm ||b_f - A_fc x_c|| */
} cl_cg_result;

/* Vectors for one system size, allocated once and reused by every solve (no allocation per solve). */
typedef struct cl_cg_workspace {
  int32_t n;            /* nodes the workspace was made for (solves need A->n <= n) */
  double *r, *z, *p, *q;/* 3n each */
  double *dinv;         /* 9n: inverted diagonal (Jacobi: 3n used) */
} cl_cg_workspace;

cl_status cl_cg_workspace_create(int32_t n_nodes, cl_cg_workspace **out);
void cl_cg_workspace_destroy(cl_cg_workspace *ws);

/* Solve A x = b, starting from the x given (warm start). res->reason tells why it stopped (above).
 * Returns CL_OK when converged,
 * CL_WARN_NOT_CONVERGED at the iteration cap (x holds the last iterate, res the residual reached),
 * CL_ERR_NUMERICAL on NaN/Inf in the data or iterates, or on breakdown: p^T A p <= 0 ("matrix not
 * positive definite") or r^T M^-1 r <= 0 ("preconditioner not positive definite"). If the reduced
 * right-hand side is exactly zero, the free dofs are set to zero. After an error x holds the last
 * iterate (or is unchanged if the error came before the first iteration). res may be NULL. */
cl_status cl_cg_solve(const cl_bsr *A, const double *b, double *x, const cl_cg_def *def,
                      cl_cg_workspace *ws, cl_cg_result *res);

/* ||b_f - A_fc x_c||^2: the squared norm of the reduced right-hand side for the values x holds on the
 * fixed dofs (fixed: 3n flags, not NULL), the reference a solve's relative residual is measured
 * against. Reads only the blocks whose column node has a fixed dof (a walk over the column indices,
 * not a product with A). */
double cl_cg_reference_norm2(const cl_bsr *A, const double *b, const double *x, const uint8_t *fixed);

#endif
