/* Interchangeable linear solvers for the symmetric positive definite block systems of the FEM
 * solvers (PETSc KSP style: each entry fills a table of functions and keeps its data behind a
 * pointer; a caller names the entry and never knows which one runs). The symbolic and numeric
 * phases are apart, as in CSparse and CHOLMOD:
 *
 *   cl_linear_solver_create("cholmod", &def, &ls)   by name; cl_linear_solver_name(i) lists them
 *   cl_linear_solver_analyse(ls, A)                 once per sparsity pattern (orderings, symbolic
 *                                                   factor, workspaces): reads only A's pattern
 *   cl_linear_solver_setup(ls, A, fixed)            whenever the values change (a factorisation):
 *                                                   any matrix with the analysed pattern
 *   cl_linear_solver_solve(ls, b, x, fixed, &res)   as often as wanted; x on entry is the initial
 *                                                   guess (a warm start), on return the solution
 *
 * The system: A x = b with A a square cl_bsr (3x3 blocks, full symmetric storage), symmetric positive
 * definite on the free dofs. Dofs with fixed[d] != 0 (3n flags, NULL = none) keep the value they
 * have in x: A_ff x_f = b_f - A_fc x_c, exact Dirichlet conditions with A unmodified (cg.h). The
 * mask of a solve may differ from the one of the last set-up (nodes held by contacts found after
 * it): an entry whose set-up depends on the mask (a factor) then serves as a preconditioner of the
 * projected CG, which is exact on the new mask.
 *
 * Not converging is a reason code, never a crash: every solve fills res->reason (cl_solve_reason in
 * cg.h) and returns CL_OK (converged), CL_WARN_NOT_CONVERGED (iteration cap; x holds the last
 * iterate) or an error (< 0: not positive definite, breakdown, NaN/Inf) with a message naming it.
 *
 * The entries, in this order (the index is what a numeric parameter such as the corotational
 * solver's linear_solver = 0/1/2 selects; cl_linear_solver_name(i) gives the name of entry i):
 *   0 "pcg"      conjugate gradients with the block-Jacobi preconditioner (inverted 3x3 diagonal
 *                blocks). No symbolic work; the set-up records A (the inverted blocks depend on the
 *                solve's mask and are made by each solve, cg.h).
 *   1 "cholmod"  a sparse Cholesky factor (cholmod_solver.h: CHOLMOD's fill-reducing ordering and
 *                supernodal factor) as the preconditioner of CG. With a fresh factor CG stops after
 *                one iteration: a direct solve with a residual check (option direct_fresh: the direct
 *                solve alone, without the check). Option reuse_factor (below):
 *                the factor of an older matrix stays the preconditioner for later set-ups while the
 *                extra iterations cost less than a new factorisation ("rent or buy"). A
 *                factorisation that finds a non-positive pivot (a warning) leaves block-Jacobi PCG
 *                in charge until the next one.
 *   2 "galerkin_mg"  the Galerkin multigrid of Mandal et al. 2025 / Xian et al. 2019 (multigrid.h,
 *                docs/solvers/graph_fem.md): analyse = the hierarchy (farthest point sampling on
 *                geodesic distances, skinning prolongations, the patterns of R A P and the scatter
 *                that fills them), setup = the Galerkin products and the coarse factor, solve =
 *                mg_cycles V-cycles (mode fixed, the paper's) or CG preconditioned by one symmetric
 *                V-cycle (mode pcg). It needs the nodes' rest positions (mg_positions). Option
 *                mg_reuse (below): in mode pcg, a set-up may keep the coarse levels of an older matrix
 *                while that pays (rent or buy, as reuse_factor for cholmod); reuses_setup stays 0 for
 *                it: its finest level always smooths with the matrix of now, so def.wrap never applies.
 * Entries ignore the options of others (the mg_ fields below are checked for everyone, so a def
 * stays valid whichever entry it is given to). */
#ifndef CL_LINALG_LINEAR_SOLVER_H
#define CL_LINALG_LINEAR_SOLVER_H

#include <stdint.h>

#include "cleave/status.h"
#include "linalg/bsr.h"
#include "linalg/cg.h"
#include "linalg/cholmod_solver.h"
#include "linalg/multigrid.h"

/* A change of basis around a preconditioner made from an older matrix, for entries that keep a
 * set-up across matrices (cholmod with reuse_factor). The corotational solver uses it to turn an old
 * factor by the nodes' rotations since it was made: z = Q A_f^-1 Q^T r. */
typedef struct cl_precond_wrap {
  /* z = W(r), given inner (z = M^-1 r with the preconditioner of the last numeric set-up; inner may
   * be applied in place). W must stay symmetric positive definite. NULL: no wrap (z = M^-1 r). */
  cl_status (*apply)(void *ctx, cl_precond_fn inner, void *inner_ctx, const double *r, double *z);
  /* Called after every numeric set-up the entry makes (also inside a solve that renews a stale
   * factor), so the wrap can take the present state as its new reference. May be NULL. */
  void (*refreshed)(void *ctx);
  void *ctx;
} cl_precond_wrap;

/* Options of a solver instance; cl_linear_solver_configure changes them between solves. */
typedef struct cl_linear_solver_def {
  double rel_tol;              /* stop at ||r|| <= rel_tol ||b_f - A_fc x_c||, in (0, 1); default 1e-8 */
  int32_t max_iter;            /* CG iteration cap per solve, >= 0; default 1000 */
  int32_t threads;             /* threads an entry may use for its own kernels, >= 1; default 1 */
  /* cholmod */
  int reuse_factor;            /* 1: a set-up keeps the factor of an older matrix while it pays (rent or
                                  buy, refactor_iterations); 0: every set-up factorises. Default 1 */
  int32_t refactor_iterations; /* with reuse: refactor at the next set-up once a solve needed more CG
                                  iterations than this; 0 = at every set-up. >= 0, default 30 */
  int32_t factor_solve;        /* how the factor is applied: cl_cholmod_solve_mode (0, 1, 2); default 0 */
  int direct_fresh;            /* 1: a solve whose factor was made for its very matrix and mask (by the
                                  last set-up, or renewed since) is the factor's direct solve, x = A^-1 b,
                                  without CG: no product with A and no residual check (rel_residual is
                                  reported as 0, iterations as 1); 0: CG always. 0 or 1, default 0 (the
                                  multigrid's coarsest level sets it) */
  cl_precond_wrap wrap;        /* optional, see above; default none */
  /* galerkin_mg (multigrid.h). Read by the analysis: mg_grid, mg_positions, mg_position_count,
     mg_coarse_solver (a change takes effect at the next analysis); by every set-up and solve: the rest */
  char mg_grid[CL_MG_GRID_CHARS]; /* grid spec, coarsest level first as in the paper: the vertex counts of
                                  the coarse levels, strictly increasing, then "all" ("50/all",
                                  "50/1000/all"); each count in [1, nodes with a neighbour]. Default
                                  "50/all" */
  const double *mg_positions;  /* rest positions of the matrix's nodes, 3 per node (m): the geodesic
                                  distances and the skinning frames. Read (not kept) by the analysis;
                                  required there. Default NULL */
  int32_t mg_position_count;   /* nodes in mg_positions: must be the matrix's block rows. Default 0 */
  int32_t mg_smoother;         /* cl_mg_smoother: 0 jacobi (damped block Jacobi), 1 gauss_seidel (forward
                                  before, backward after), 2 symmetric_gauss_seidel, 3 colored_gauss_seidel
                                  (multicolour block order, parallel). Default 1 */
  int32_t mg_pre_sweeps;       /* sweeps before the restriction on every level but the coarsest, [0, 1000];
                                  default 2 */
  int32_t mg_post_sweeps;      /* sweeps after the prolongation, [0, 1000]; mode pcg needs mg_post_sweeps =
                                  mg_pre_sweeps >= 1 (a symmetric cycle). Default 2 */
  double mg_omega;             /* damping of the Jacobi smoother, (0, 1]; default 0.5 */
  int32_t mg_coarse_solver;    /* cl_mg_coarse: 0 cg, 1 cholmod, 2 dense; default 1 */
  int32_t mg_coarse_iterations;/* CG iterations of the coarse solve 0 (cg), [1, 100000]; default 20 */
  int32_t mg_mode;             /* cl_mg_mode: 0 fixed (mg_cycles V-cycles), 1 pcg (CG preconditioned by one
                                  V-cycle, to rel_tol, at most max_iter iterations). Default 1 */
  int32_t mg_cycles;           /* V-cycles per solve in mode fixed, [1, 100000]; default 1 (Algorithm 2: one
                                  pass down and up per solve) */
  double mg_regularization;    /* a pivot of a coarse handle's 12x12 diagonal block below this times the
                                  block's mean diagonal is a null direction, raised to the mean diagonal
                                  (cl_mg_regularize), [1e-14, 1e-2]; default 1e-10 */
  int32_t mg_reuse;            /* mode pcg: 1 = a set-up may keep the coarse levels (Galerkin products and
                                  coarse factor) of an earlier one, refreshing only the finest level (its
                                  matrix and the smoother's diagonal blocks), while it pays: the rent-or-buy
                                  rule of reuse_factor counted in flops (the extra CG iterations against
                                  the first solve after a full set-up, priced per V-cycle, against the
                                  price of a full set-up), and not after a solve needed more than
                                  refactor_iterations iterations beyond that first solve's (0: never
                                  keep). A solve that reaches
                                  max_iter with kept coarse levels makes a full set-up and starts again.
                                  The V-cycle stays a symmetric positive definite preconditioner (a
                                  Galerkin coarse matrix of an older A is still one). 0 = a full set-up
                                  every time; default 0 */
} cl_linear_solver_def;

void cl_linear_solver_def_default(cl_linear_solver_def *def);

/* Result of one solve. */
typedef struct cl_linear_result {
  cl_solve_reason reason;  /* why it stopped */
  int32_t iterations;      /* CG iterations of this solve, over every attempt (see factorizations) */
  double rel_residual;     /* final ||r|| / ||b_f - A_fc x_c|| (free dofs) */
  double ref_norm;         /* ||b_f - A_fc x_c|| */
  int32_t factorizations;  /* numeric set-ups made inside the solve: a stale factor that let CG reach
                              its cap is renewed and the solve retried once */
} cl_linear_result;

/* Counters of an instance since its creation. */
typedef struct cl_linear_solver_stats {
  int64_t analyses;        /* symbolic analyses (0 for entries without a symbolic phase, e.g. "pcg") */
  int64_t factorizations;  /* numeric factorisations attempted (failed ones too; 0 for "pcg") */
  int64_t solves;
  int64_t iterations;      /* CG iterations summed over the solves */
  int64_t n;               /* scalar unknowns 3 n of the analysed pattern (0 before analysis) */
  double factor_flops;     /* flops of the last factorisation (0 without one) */
  double factor_entries;   /* entries of the last factor (nnz(L); 0 without one) */
} cl_linear_solver_stats;

typedef struct cl_linear_solver cl_linear_solver;

/* ---- the table ---- */

/* Number of entries, and the name / one-line description of entry i (NULL outside [0, count)). The
 * order is fixed (see the top of the file), so numeric choices map to names in one place. */
int32_t cl_linear_solver_count(void);
const char *cl_linear_solver_name(int32_t i);
const char *cl_linear_solver_help(int32_t i);
/* Index of the entry called `name`, or -1. */
int32_t cl_linear_solver_find(const char *name);

/* ---- an instance ---- */

/* A solver of entry `name` with options def (NULL = defaults). An unknown name is
 * CL_ERR_INVALID_ARGUMENT listing the names there are. */
cl_status cl_linear_solver_create(const char *name, const cl_linear_solver_def *def, cl_linear_solver **out);
void cl_linear_solver_destroy(cl_linear_solver *ls);
/* Replace the options (checked: the parameter, its value and range are named on error). Takes effect
 * at the next set-up or solve, e.g. the tolerance of the next solve. */
cl_status cl_linear_solver_configure(cl_linear_solver *ls, const cl_linear_solver_def *def);
/* The entry's name, and whether its preconditioner may come from an older matrix than the one of the
 * solve (then def.wrap applies). */
const char *cl_linear_solver_entry(const cl_linear_solver *ls);
int cl_linear_solver_reuses_setup(const cl_linear_solver *ls);

/* Symbolic phase for A's pattern (A square with a diagonal block in every row). Again after the
 * pattern changed: the old set-up is dropped. */
cl_status cl_linear_solver_analyse(cl_linear_solver *ls, const cl_bsr *A);
/* Numeric phase: A must have the analysed pattern (same block rows and blocks) and stays in use by
 * the solves until the next set-up (not copied: keep it alive). fixed: the mask a factor is made
 * with (NULL = none). Returns CL_OK, CL_WARN_NOT_POSDEF when a factorisation met a non-positive
 * pivot (the solves then fall back to block-Jacobi PCG), or an error (NaN/Inf in A: the reason is
 * then CL_SOLVE_NON_FINITE, see cl_linear_solver_reason). */
cl_status cl_linear_solver_setup(cl_linear_solver *ls, const cl_bsr *A, const uint8_t *fixed);
/* Solve A x = b with the matrix of the last set-up (b and x: 3n doubles; fixed as above). res may be
 * NULL. CL_ERR_STATE before a set-up. */
/* A's values changed on some diagonal blocks since the set-up, in place (a contact's friction
 * stiffness, fem/system.h): before the next solve an entry that keeps the diagonal renews it
 * (galerkin_mg: its finest level's smoother, one pass over the diagonal); a factor or coarse levels
 * made at the set-up stay, as a preconditioner for the matrix of now. */
void cl_linear_solver_diagonal_changed(cl_linear_solver *ls);
cl_status cl_linear_solver_solve(cl_linear_solver *ls, const double *b, double *x, const uint8_t *fixed,
                                 cl_linear_result *res);
/* Why the last set-up or solve stopped or failed. */
cl_solve_reason cl_linear_solver_reason(const cl_linear_solver *ls);
void cl_linear_solver_get_stats(const cl_linear_solver *ls, cl_linear_solver_stats *out);
/* The CHOLMOD object of a "cholmod" instance after analysis (for its detailed statistics:
 * cl_cholmod_get_stats); NULL for other entries or before analysis. */
const cl_cholmod *cl_linear_solver_cholmod(const cl_linear_solver *ls);
/* The hierarchy of a "galerkin_mg" instance (for its statistics: cl_mg_get_stats, and its levels);
 * NULL for other entries. */
const cl_mg *cl_linear_solver_multigrid(const cl_linear_solver *ls);

/* ---- for entries ---- */

/* What an entry fills (linear_pcg.c, linear_cholmod.c, linear_multigrid.c; registered in linear_solver.c). The wrapper
 * checks every argument and the phase order before calling, so entries see only valid input: A with
 * the analysed pattern, b and x non-NULL, def checked. */
typedef struct cl_linear_solver_ops {
  const char *name;
  const char *help;
  int reuses_setup;  /* its preconditioner may be older than the matrix (cl_precond_wrap applies) */
  cl_status (*create)(void **data);
  void (*destroy)(void *data);
  cl_status (*analyse)(void *data, const cl_linear_solver_def *def, const cl_bsr *A);
  /* sets *reason when it fails or warns (CL_SOLVE_CONVERGED = the set-up is usable as made) */
  cl_status (*setup)(void *data, const cl_linear_solver_def *def, const cl_bsr *A, const uint8_t *fixed,
                     cl_solve_reason *reason);
  cl_status (*solve)(void *data, const cl_linear_solver_def *def, const cl_bsr *A, const double *b, double *x,
                     const uint8_t *fixed, cl_linear_result *res);
  void (*stats)(const void *data, cl_linear_solver_stats *out);
  /* optional: A's diagonal blocks changed since the set-up (cl_linear_solver_diagonal_changed); an
   * entry whose preconditioner keeps something of that diagonal renews it here */
  cl_status (*refresh_diagonal)(void *data, const cl_bsr *A);
} cl_linear_solver_ops;

extern const cl_linear_solver_ops cl_linear_pcg_ops;
extern const cl_linear_solver_ops cl_linear_cholmod_ops;
extern const cl_linear_solver_ops cl_linear_multigrid_ops;
/* For entries: one CG run (cg.h) on A x = b with def's tolerance and iteration cap and the
 * preconditioner pc (fn and ctx for CL_PRECOND_USER), added to res: iterations summed over runs;
 * reason, residual and reference norm of this run. Returns cl_cg_solve's status. */
cl_status cl_linear_cg(const cl_bsr *A, const cl_linear_solver_def *def, cl_precond pc, cl_precond_fn fn, void *ctx,
                       cl_cg_workspace *ws, const double *b, double *x, const uint8_t *fixed, cl_linear_result *res);
/* The CHOLMOD object inside a "cholmod" entry's data (NULL before analysis). */
const cl_cholmod *cl_linear_cholmod_object(const void *data);
/* The hierarchy inside a "galerkin_mg" entry's data. */
const cl_mg *cl_linear_multigrid_object(const void *data);

#endif
