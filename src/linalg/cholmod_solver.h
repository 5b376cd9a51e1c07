/* Sparse Cholesky of a BSR 3x3 SPD matrix through CHOLMOD (SuiteSparse; Chen, Davis, Hager &
 * Rajamanickam, ACM TOMS 35(3), 2008), with the symbolic and numeric phases apart:
 *
 *   cl_cholmod_create(A, fixed, &c)   once per pattern: the CSC pattern of A's upper triangle and a
 *                                     map from each CSC entry to its BSR value
 *   cl_cholmod_analyse(c)             optional, at bind time: the symbolic analysis (else done by
 *                                     the first factorisation): the fill-reducing ordering P as
 *                                     CHOLMOD picks it (AMD, METIS if better; postordered), then the
 *                                     supernodal LL' structure of P A P^T in its natural order, with
 *                                     a map from A's values to the lower triangle of P A P^T
 *   cl_cholmod_factorize(c, A)        whenever values change: copy values through the map (a
 *                                     gather, no search), analyse on the first call only, then the
 *                                     numeric factorisation of P A P^T (CHOLMOD reads it as it is:
 *                                     no permuted transpose per factorisation)
 *   cl_cholmod_solve(c, b, x)         x = A^-1 b = P^T (P A P^T)^-1 P b into caller buffers;
 *                                     CHOLMOD's solve workspaces are kept between calls
 *                                     (cholmod_l_solve2)
 *
 * The 64-bit-index CHOLMOD API (cholmod_l_*) is used so that large factors cannot overflow int.
 *
 * Constraints: dofs with fixed[d] != 0 are factorised as identity rows/columns (their coupling
 * values are replaced by 0 and the diagonal by 1 while copying; the pattern stays the same). So
 * x[d] = b[d] there, and with b zero on fixed dofs the factor is the exact inverse of the projected
 * matrix: that is what cl_cholmod_precond gives a projected CG (cg.h, CL_PRECOND_USER). The mask can
 * be changed with cl_cholmod_set_fixed without a new analysis. */
#ifndef CL_LINALG_CHOLMOD_SOLVER_H
#define CL_LINALG_CHOLMOD_SOLVER_H

#include <stdint.h>

#include "cleave/status.h"
#include "linalg/bsr.h"

typedef struct cl_cholmod cl_cholmod;

typedef struct cl_cholmod_stats {
  int32_t analyses;        /* symbolic analyses done (1 after the first factorisation) */
  int32_t factorizations;  /* numeric factorisations attempted */
  int32_t solves;
  int64_t n;               /* scalar dimension 3n */
  int64_t nnz_a;           /* entries of the upper triangle given to CHOLMOD */
  double nnz_l;            /* entries in L (CHOLMOD's lnz) */
  double flops;            /* flops of the last factorisation (CHOLMOD's fl) */
  int32_t ordering;        /* CHOLMOD_NATURAL/AMD/METIS/NESDIS... chosen (L->ordering) */
  int32_t supernodal;      /* 1 if L is supernodal */
  double analyse_ms, factorize_ms, solve_ms; /* wall time of the last call of each */
} cl_cholmod_stats;

/* Build the CSC pattern of A's upper triangle (A square, with diagonal blocks) and the value map.
 * fixed (3n flags, copied) may be NULL. No values are read yet. */
cl_status cl_cholmod_create(const cl_bsr *A, const uint8_t *fixed, cl_cholmod **out);
void cl_cholmod_destroy(cl_cholmod *c);

/* Replace the constraint mask (NULL = none); takes effect at the next factorisation. */
cl_status cl_cholmod_set_fixed(cl_cholmod *c, const uint8_t *fixed);

/* Symbolic analysis now (fill-reducing ordering, supernodes, the pattern of L): it reads only the
 * pattern, so a solver can do it at bind time. cl_cholmod_factorize calls it when none was done.
 * Counted in stats.analyses. */
cl_status cl_cholmod_analyse(cl_cholmod *c);

/* Force a new symbolic analysis at the next factorisation (after the pattern of A changed, create a
 * new object instead: this is for experimenting with orderings). */
void cl_cholmod_invalidate_analysis(cl_cholmod *c);

/* Copy A's current values and factorise (analysing first if not done yet). A must have the pattern
 * given to cl_cholmod_create. Returns CL_WARN_NOT_POSDEF with the failing column when a pivot is
 * not positive (the factor is then unusable until a successful factorisation), CL_ERR_NUMERICAL if
 * A holds NaN/Inf, CL_ERR_OUT_OF_MEMORY or CL_ERR_EXTERNAL with CHOLMOD's message otherwise. */
cl_status cl_cholmod_factorize(cl_cholmod *c, const cl_bsr *A);

/* x = A^-1 b (3n doubles each; b and x may be the same buffer). Needs a successful factorisation
 * (CL_ERR_STATE otherwise). */
cl_status cl_cholmod_solve(cl_cholmod *c, const double *b, double *x);

/* cl_precond_fn adapter (cg.h): z = A_old^-1 r with the last factor; ctx is the cl_cholmod. */
cl_status cl_cholmod_precond(void *ctx, const double *r, double *z);

/* How cl_cholmod_solve applies the factor (linalg/supernodal_solve.h): CHOLMOD's own supernodal
 * solve (cholmod_l_solve2), or cleave's sweeps over the same factor in double or with the values
 * rounded to single precision (a preconditioner; half the memory traffic). Takes effect at the next
 * factorisation; the own sweeps need a supernodal factor and fall back to CHOLMOD otherwise.
 * `threads` (>= 1) is how many threads the own sweeps use (the result does not depend on it). */
typedef enum cl_cholmod_solve_mode {
  CL_CHOLMOD_SOLVE_CHOLMOD = 0,
  CL_CHOLMOD_SOLVE_DOUBLE = 1,
  CL_CHOLMOD_SOLVE_SINGLE = 2
} cl_cholmod_solve_mode;
cl_status cl_cholmod_set_solve_mode(cl_cholmod *c, cl_cholmod_solve_mode mode, int threads);
void cl_cholmod_get_stats(const cl_cholmod *c, cl_cholmod_stats *stats);

#endif
