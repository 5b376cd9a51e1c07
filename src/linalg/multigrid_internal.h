/* The Galerkin multigrid's hierarchy object, shared by its files (multigrid.c: analysis and set-up,
 * multigrid_cycle.c: the V-cycle, multigrid_coarse.c: the coarsest level's solvers). Not for callers:
 * they use multigrid.h. */
#ifndef CL_LINALG_MULTIGRID_INTERNAL_H
#define CL_LINALG_MULTIGRID_INTERNAL_H

#include <stdint.h>

#include "linalg/bsr.h"
#include "linalg/cg.h"
#include "linalg/cholmod_solver.h"
#include "linalg/linear_solver.h"
#include "linalg/multigrid.h"
#include "linalg/multigrid_galerkin.h"
#include "linalg/multigrid_transfer.h"
#include "linalg/node_coloring.h"

typedef struct mg_level {
  const cl_bsr *A;      /* level 0: the set-up's matrix (the caller's); below: own */
  cl_bsr *own;          /* A_l for l >= 1 */
  cl_mg_transfer T;     /* P_l to level l + 1 (not at the coarsest level) */
  cl_mg_galerkin G;     /* the plan of A_{l+1} = P_l^T A_l P_l */
  int32_t *handles;     /* l >= 1: the mesh node of each handle */
  int32_t nhandles;
  int64_t blocks;       /* of A_l's pattern (level 0: the analysed one; A may be gone by now) */
  double *dinv;         /* 9 n: the smoother's inverted diagonal blocks (not at the coarsest level) */
  cl_node_coloring colors; /* of A_l's pattern, for mg_smoother colored_gauss_seidel (not at the coarsest) */
  double *b, *x, *r;    /* 3 n each: right-hand side, iterate, residual of the cycle at this level (at
                           level 0, whose right-hand side and iterate are the caller's, b and x are the
                           work of the first residual: x as it came, the first sweep's updates) */
  int32_t regularized;  /* pivots the last set-up raised (cl_mg_regularize) */
  double *trace;        /* l >= 1: each handle's diagonal block trace before regularisation */
  uint8_t *raised;      /* l >= 1: pivots regularisation raised in each handle */
  int32_t *list;        /* l >= 1: work of cl_mg_update_mask, the handle rows to make again ... */
  uint8_t *mark;        /* ... and a flag per handle */
  double ms;            /* time spent at this level (smoothing, transfers; the coarse solve) */
} mg_level;

typedef struct mg_coarse {
  int32_t kind;         /* cl_mg_coarse of the analysis */
  cl_linear_solver *ls; /* CL_MG_COARSE_CHOLMOD: the "cholmod" entry (a factor, reused by rent or buy) */
  const cl_cholmod *chol; /* its CHOLMOD object (statistics) */
  double *dense;        /* CL_MG_COARSE_DENSE: the factor L, row-major n x n (lower triangle) */
  int32_t n;            /* scalar unknowns of the coarsest level */
  int64_t iterations;   /* CL_MG_COARSE_CHOLMOD: CG iterations of its solves, all solves */
  cl_cg_workspace *ws;  /* CL_MG_COARSE_CG */
} mg_coarse;

struct cl_mg {
  int32_t nlev;         /* 1 + coarse levels; 0 before analysis */
  mg_level lev[CL_MG_MAX_COARSE + 1];
  mg_coarse coarse;
  uint8_t *fixed;       /* 3 n_0: the set-up's mask */
  int32_t *changed;     /* n_0: work of cl_mg_update_mask, the nodes whose mask changes */
  int has_fixed;        /* fixed holds a mask with a flag set */
  int usable;           /* the last set-up succeeded */
  int32_t threads;      /* the analysis' thread count (work arrays) */
  cl_mg_stats st;       /* sizes and timings (levels' smooth_ms kept in lev[].ms) */
};

/* multigrid_coarse.c: the coarsest level's solver for the analysed pattern, its factor, its solve
 * x = A_L^-1 b (or the approximation by mg_coarse_iterations of CG from zero). */
cl_status cl_mg_coarse_analyse(mg_coarse *c, const cl_linear_solver_def *def, const cl_bsr *A);
cl_status cl_mg_coarse_factor(mg_coarse *c, const cl_linear_solver_def *def, const cl_bsr *A);
cl_status cl_mg_coarse_solve(mg_coarse *c, const cl_linear_solver_def *def, const cl_bsr *A, const double *b,
                             double *x);
void cl_mg_coarse_free(mg_coarse *c);

#endif
