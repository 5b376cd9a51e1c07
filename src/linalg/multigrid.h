/* The Galerkin multigrid of the linear-solver table's entry "galerkin_mg" (linear_multigrid.c): a
 * hierarchy of coarse spaces made by linear blend skinning (Xian, Tong & Liu, "A scalable Galerkin
 * multigrid method for real-time simulation of deformable objects", ACM TOG 38(6), 2019; Mandal,
 * Chaudhuri & Chaudhuri, GRAPP 2025, sec 3.2-3.3, Algorithm 2). The equations and the design
 * choices are written down in docs/solvers/graph_fem.md, "The Galerkin multigrid".
 *
 *   level 0        the caller's matrix A_0 = A (3x3 blocks, one block row per mesh node)
 *   level l >= 1   A_l = P_{l-1}^T A_{l-1} P_{l-1} (eq 14), 12 unknowns per handle (an affine map,
 *                  eq 16) stored as a cl_bsr with 4 block rows ("sub-nodes") per handle
 *
 * The phases follow the table's:
 *   cl_mg_analyse  the grid spec, farthest point sampling on geodesic distances (multigrid_sampling.h),
 *                  the clusters, frames and weights of P (multigrid_transfer.h), the patterns of the
 *                  coarse matrices and the scatter that fills them (multigrid_galerkin.h), the coarse
 *                  solver's symbolic work (multigrid_coarse.c)
 *   cl_mg_setup    the Galerkin products for A's values and the set-up's mask (multigrid_galerkin.c)
 *                  made positive definite on the prolongation's null space (multigrid_regularize.c),
 *                  the smoothers' inverted diagonal blocks, the coarsest level's factor
 *   cl_mg_cycle    one V-cycle (eqs 5, 9-13)
 * The fixed-cycle and PCG modes are the entry's (linear_multigrid.c). */
#ifndef CL_LINALG_MULTIGRID_H
#define CL_LINALG_MULTIGRID_H

#include <stdint.h>

#include "cleave/status.h"
#include "linalg/bsr.h"

/* Values of cl_linear_solver_def.mg_smoother: the relaxation on every level but the coarsest. */
typedef enum cl_mg_smoother {
  CL_MG_SMOOTH_JACOBI = 0,       /* damped block Jacobi, x += omega D^-1 (b - A x) */
  CL_MG_SMOOTH_GAUSS_SEIDEL = 1, /* block Gauss-Seidel: forward sweeps before the coarse correction,
                                    backward after (so the V-cycle is symmetric) */
  CL_MG_SMOOTH_SYMMETRIC_GS = 2, /* each sweep forward then backward, before and after */
  CL_MG_SMOOTH_COLORED_GS = 3    /* block Gauss-Seidel in a multicolour order (node_coloring.h): colours
                                    forward before, backward after; a colour's nodes in parallel */
} cl_mg_smoother;

/* Values of cl_linear_solver_def.mg_coarse_solver: the solve at the coarsest level. */
typedef enum cl_mg_coarse {
  CL_MG_COARSE_CG = 0,      /* mg_coarse_iterations of block-Jacobi CG from zero (the paper's choice) */
  CL_MG_COARSE_CHOLMOD = 1, /* CG preconditioned by a CHOLMOD factor to CL_MG_COARSE_TOL (the "cholmod"
                               entry: with reuse_factor the factor of an older coarse matrix is kept
                               while it pays, otherwise one is made at every set-up); a factor of the
                               coarse matrix of now solves directly (direct_fresh) */
  CL_MG_COARSE_DENSE = 2    /* a dense Cholesky factor (up to CL_MG_DENSE_MAX unknowns) */
} cl_mg_coarse;

/* Values of cl_linear_solver_def.mg_mode. */
typedef enum cl_mg_mode {
  CL_MG_MODE_FIXED = 0, /* mg_cycles V-cycles from the initial guess (the paper's mode); stops early at rel_tol */
  CL_MG_MODE_PCG = 1    /* CG preconditioned by one V-cycle, to rel_tol */
} cl_mg_mode;

/* The relative residual of the coarse solve of CL_MG_COARSE_CHOLMOD. Far below what one V-cycle
 * reduces (0.2-0.8), so the cycle is the exact-coarse-solve cycle to this accuracy, in both modes;
 * loose enough that a kept factor needs a few iterations only (tests/c/test_multigrid_cycle.c bounds
 * the difference to a fresh factor's cycle). */
#define CL_MG_COARSE_TOL 1e-8

enum {
  CL_MG_MAX_COARSE = 7,    /* coarse levels a grid spec may ask for */
  CL_MG_GRID_CHARS = 64,   /* size of cl_linear_solver_def.mg_grid with its terminating zero */
  CL_MG_DENSE_MAX = 6000,  /* unknowns of the coarsest level the dense Cholesky accepts */
  CL_MG_COLOR_BLOCK = 64,  /* nodes per block of the multicolour Gauss-Seidel (node_coloring.h) */
  CL_MG_COARSE_MAX_ITER = 200 /* CG iterations of one coarse solve (CL_MG_COARSE_CHOLMOD; a stale factor
                                 is renewed at this cap) */
};

/* ---- the grid spec (paper sec 4.1) ---- */

/* "50/1000/all": the vertex counts of the coarse levels, coarsest first as the paper writes it, then
 * "all" (the finest level: every node). Parsed into hierarchy order: count[0] is level 1 (the finest
 * coarse level, 1000 here), count[coarse_levels - 1] the coarsest (50). */
typedef struct cl_mg_grid {
  int32_t coarse_levels;              /* 1 .. CL_MG_MAX_COARSE */
  int32_t count[CL_MG_MAX_COARSE];    /* handles of level l + 1, strictly decreasing */
} cl_mg_grid;

/* Parse a grid spec. CL_ERR_INVALID_ARGUMENT naming the parameter 'mg_grid', its value and what is
 * wrong: empty, a token that is not a whole number >= 1, no "all" at the end or "all" elsewhere, no
 * coarse level ("all" alone), levels out of order (counts must increase towards "all"), too many
 * levels. Spaces around the tokens are allowed. */
cl_status cl_mg_grid_parse(const char *spec, cl_mg_grid *out);

/* The grid against a mesh of n nodes of which `connected` share an element with another node: no
 * level may ask for more vertices than the mesh has, nor than those (multigrid_sampling.h). */
cl_status cl_mg_grid_check(const cl_mg_grid *grid, const char *spec, int32_t n, int32_t connected);

/* ---- the hierarchy ---- */

struct cl_linear_solver_def;
typedef struct cl_mg cl_mg;
struct cl_mg_transfer;

typedef struct cl_mg_level_stats {
  int32_t nodes;        /* 3x3 block rows: mesh nodes at level 0, 4 per handle below */
  int32_t handles;      /* 0 at level 0 */
  int64_t blocks;       /* stored 3x3 blocks of A_l */
  int32_t degenerate;   /* handles whose cluster is flat, a line or a point (an axis dropped, see
                           multigrid_transfer.h) */
  int32_t regularized;  /* unknowns whose pivot the last set-up raised (zero rows, near-null directions) */
  double smooth_ms;     /* time spent smoothing (or in the coarse solve) at this level, all solves */
  int32_t colors;       /* colours of the multicolour block order (node_coloring.h; 0 at the coarsest) */
} cl_mg_level_stats;

typedef struct cl_mg_stats {
  int32_t levels;                           /* 1 + coarse levels; 0 before analysis */
  cl_mg_level_stats level[CL_MG_MAX_COARSE + 1];
  double analyse_ms;                        /* the last analysis: sampling, transfers, patterns */
  double setup_ms;                          /* the last set-up, everything */
  double galerkin_ms;                       /* of which the Galerkin products (eq 14) */
  double coarse_factor_ms;                  /* of which the coarsest level's factorisation */
  int64_t setups;                           /* set-ups, and rebuilds of the coarse matrices a solve */
  int64_t reuses;                           /* set-ups that kept the coarse levels (cl_mg_refresh_fine) */
  int64_t rebuilds;                         /* made because its mask differed from the set-up's */
  int64_t mask_updates;                     /* of which by cl_mg_update_mask (the rows that change) */
  int64_t cycles;                           /* V-cycles over all solves */
  int64_t coarse_factorizations;            /* factorisations of the coarsest level (CL_MG_COARSE_CHOLMOD) */
  int64_t coarse_iterations;                /* CG iterations of its coarse solves */
  double solve_ms;                          /* the last solve */
  double cycle_factor;                      /* the last solve's residual reduction per V-cycle (fixed
                                               mode) or per PCG iteration: (r_k / r_0)^(1/k); 0 if
                                               no cycle ran */
} cl_mg_stats;

cl_status cl_mg_create(cl_mg **out);
void cl_mg_destroy(cl_mg *mg);

/* Symbolic phase for A's pattern with def's grid spec (mg_grid), rest positions (mg_positions,
 * mg_position_count: must be A->n nodes, finite) and coarse solver. Reads def only here for those;
 * the positions are not kept. */
cl_status cl_mg_analyse(cl_mg *mg, const struct cl_linear_solver_def *def, const cl_bsr *A);

/* Numeric phase for A (the analysed pattern) and the mask `fixed` (3n flags or NULL): the coarse
 * matrices (eq 14 with the masked prolongation, see multigrid_galerkin.h), the smoothers' diagonals and
 * the coarsest factor. CL_ERR_NUMERICAL for NaN/Inf anywhere in A, held rows and columns included
 * (*reason CL_SOLVE_NON_FINITE; checked as the first Galerkin product reads A, not by a pass of its own),
 * CL_WARN_NOT_POSDEF when a diagonal block is singular or the coarse factor met a non-positive pivot
 * (*reason CL_SOLVE_NOT_POSDEF: the hierarchy is then unusable until the next set-up). */
cl_status cl_mg_setup(cl_mg *mg, const struct cl_linear_solver_def *def, const cl_bsr *A, const uint8_t *fixed,
                      int *reason);

/* The cheap set-up of a kept hierarchy: A (the analysed pattern, new values) becomes the finest level's
 * matrix and the smoother's diagonal blocks are inverted again for it and the mask of the last full
 * set-up; the coarse matrices and the coarsest factor stay those of the older matrix. Needs a usable
 * hierarchy. Returns as cl_mg_setup (on failure the hierarchy is unusable until the next full set-up). */
cl_status cl_mg_refresh_fine(cl_mg *mg, const cl_bsr *A, int *reason);
/* The finest level's smoother diagonal inverted again from A (its values changed in place on some
 * diagonal blocks since the set-up: cl_linear_solver_diagonal_changed); the coarse levels stay.
 * Nothing to do before a usable set-up. CL_WARN_NOT_POSDEF on a singular block. */
cl_status cl_mg_refresh_smoother(cl_mg *mg, const cl_bsr *A);

/* The set-up again for a new mask `fixed` (3 n flags, NULL = none) on the matrix of the last set-up,
 * whose values may since have changed only in the rows and columns of the nodes whose mask changes (a
 * contact round of fem/system.h turns exactly those into their frames). Makes again only the rows of
 * the level-1 matrix that read those nodes (their handles' and their neighbours' handles' rows: a row
 * comes out to the bit as a whole set-up makes it, cl_mg_galerkin_product_rows), the coarser levels,
 * the smoothers' diagonal blocks and the coarse factor; the result is the full set-up's. Falls back to
 * cl_mg_setup without a usable set-up of this matrix or when more than a quarter of the nodes change.
 * Returns as cl_mg_setup (NaN/Inf: in the rows it makes again, which hold every value that may have
 * changed). */
cl_status cl_mg_update_mask(cl_mg *mg, const struct cl_linear_solver_def *def, const cl_bsr *A, const uint8_t *fixed,
                            int *reason);

/* Whether the last set-up left a usable hierarchy, and whether `fixed` is the mask it was made with. */
int cl_mg_usable(const cl_mg *mg);
int cl_mg_same_mask(const cl_mg *mg, const uint8_t *fixed);

/* One V-cycle on A x = b (A and mask of the last set-up): x on entry is the initial guess and is
 * updated in place; fixed dofs of x are never changed. With zero_guess != 0 x is taken as zero
 * (not read), as when the cycle is a preconditioner. Returns CL_OK or an error of the coarse solve. */
cl_status cl_mg_cycle(cl_mg *mg, const struct cl_linear_solver_def *def, const double *b, double *x, int zero_guess);

/* One V-cycle from x as cl_mg_cycle (zero_guess 0) that stops after the finest level's pre-smoothing
 * when the residual there, ||b - A x|| on the free dofs (computed for the restriction anyway), is at
 * most `stop` (or not finite): *rnorm gets that norm, *stopped 1 (x is then the pre-smoothed iterate,
 * whose residual norm *rnorm is) or 0 (the cycle went on; x's residual is not known). Mode fixed's
 * stop test (linear_multigrid.c), with no residual pass over A of its own between cycles.
 * first (NULL = not wanted): *first gets the residual norm of the x the cycle starts from, read off
 * the first pre-smoothing sweep where the smoother allows (block Gauss-Seidel and its symmetric form:
 * cl_smooth_gauss_seidel_residual; the others make a residual pass first); when it is at most `stop`
 * the cycle stops there with x as it came (*stopped 1, *rnorm = *first, not counted as a cycle). */
cl_status cl_mg_cycle_stop(cl_mg *mg, const struct cl_linear_solver_def *def, const double *b, double *x,
                           double stop, double *first, double *rnorm, int *stopped);

/* Record a solve's time and measured factor in the statistics (called by the entry). */
void cl_mg_note_solve(cl_mg *mg, double ms, int32_t cycles, double factor);

void cl_mg_get_stats(const cl_mg *mg, cl_mg_stats *out);

/* For tests and benchmarks: the matrix of level l (level 0: the one of the last set-up; NULL outside
 * [0, levels)), the transfer from level l to l + 1 (NULL outside [0, levels - 1)), and the handles of
 * coarse level l >= 1 as mesh node indices (their count is the grid's; NULL otherwise). */
const cl_bsr *cl_mg_level_matrix(const cl_mg *mg, int32_t l);
const struct cl_mg_transfer *cl_mg_level_transfer(const cl_mg *mg, int32_t l);
const int32_t *cl_mg_level_handles(const cl_mg *mg, int32_t l);

#endif
