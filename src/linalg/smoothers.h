/* Relaxation sweeps on a BSR 3x3 system A x = b, the smoothers of a multigrid cycle (Trottenberg,
 * Oosterlee & Schuller, "Multigrid", 2001, sec. 2.1): weighted block Jacobi and block Gauss-Seidel
 * (forward, backward, symmetric). Block means a node's 3x3 diagonal block is inverted exactly, which
 * suits elasticity where the three components of a node are strongly coupled.
 *
 * dinv holds the inverted diagonal blocks from cl_bsr_diag_inverse(A, fixed, dinv) (9n doubles),
 * computed once per numeric update of A. Dofs with fixed[d] != 0 (fixed may be NULL) are never
 * changed, matching the projected CG in cg.h; dinv must have been made with the same mask.
 * The sweeps allocate nothing and return nothing: with valid inputs they cannot fail. */
#ifndef CL_LINALG_SMOOTHERS_H
#define CL_LINALG_SMOOTHERS_H

#include <stdint.h>

#include "linalg/bsr.h"
#include "linalg/node_coloring.h"

typedef enum cl_sweep {
  CL_SWEEP_FORWARD = 0,   /* nodes 0 .. n-1 */
  CL_SWEEP_BACKWARD = 1,  /* nodes n-1 .. 0 */
  CL_SWEEP_SYMMETRIC = 2  /* forward then backward: a symmetric smoother, usable inside PCG */
} cl_sweep;

/* `sweeps` times: x <- x + omega D^-1 (b - A x). work holds 3n doubles. omega ~ 2/3 for a smoother
 * (the classic choice for Laplace-like operators). OpenMP over rows. */
void cl_smooth_jacobi(const cl_bsr *A, const double *dinv, const uint8_t *fixed, double omega,
                      int32_t sweeps, const double *b, double *x, double *work);

/* `sweeps` times, in node order `dir`: x_i <- x_i + D_ii^-1 (b_i - sum_j A_ij x_j), using the newest
 * x_j. Serial (each update reads the previous ones). */
void cl_smooth_gauss_seidel(const cl_bsr *A, const double *dinv, const uint8_t *fixed, cl_sweep dir,
                            int32_t sweeps, const double *b, double *x);

/* One forward Gauss-Seidel sweep, the one cl_smooth_gauss_seidel(..., CL_SWEEP_FORWARD, 1, ...) makes
 * to the bit, that also returns ||b - A x0||^2 on the free dofs for the x0 it starts from. Row i's
 * correction t_i = b_i - (A x)_i sees the new values of the rows before it, so the residual of x0 is
 * r_i = t_i + sum_{j<i} A_ij dx_j with dx_j their updates (kept in delta, 3n): products with blocks
 * the sweep reads anyway, where a residual pass would read A once more (the first residual of a
 * multigrid solve, linear_multigrid.c). */
double cl_smooth_gauss_seidel_residual(const cl_bsr *A, const double *dinv, const uint8_t *fixed, const double *b,
                                       double *x, double *delta);

/* The same in the multicolour order of `c` (node_coloring.h, made for A's pattern): forward = colours
 * 0 .. C-1, backward = C-1 .. 0 (its adjoint, so forward before and backward after keep a V-cycle
 * symmetric); the nodes of one colour update in parallel on `threads` threads (from a few thousand
 * rows on). The result does not depend on the thread count. */
void cl_smooth_gauss_seidel_colors(const cl_bsr *A, const double *dinv, const uint8_t *fixed, cl_sweep dir,
                                   int32_t sweeps, const cl_node_coloring *c, int32_t threads, const double *b,
                                   double *x);

#endif
