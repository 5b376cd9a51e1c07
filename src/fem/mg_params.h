/* The Galerkin multigrid's solver parameters (grid, mg_mode, mg_cycles, mg_smoother, mg_sweeps,
 * mg_coarse), shared by the FEM solvers that offer linalg's "galerkin_mg" entry (graph_fem,
 * corotational): one definition of their names, ranges, defaults and help, one check of the grid
 * text, one translation into the linear-solver table's options (linalg/linear_solver.h).
 *
 * A solver keeps the six parameters together, in this order, from some index `first` of its own
 * parameter table:
 *     [first + CL_FEM_MG_GRID] ... [first + CL_FEM_MG_COARSE]
 * writes CL_FEM_MG_PARAM_INFOS(first) into its static cl_param_info table, checks the grid text at
 * bind (cl_fem_mg_grid_text) and fills a def with cl_fem_mg_def. */
#ifndef CL_FEM_MG_PARAMS_H
#define CL_FEM_MG_PARAMS_H

#include <stdint.h>

#include "cleave/status.h"
#include "linalg/linear_solver.h"

/* Offsets of the six parameters from the solver's first one. */
enum {
  CL_FEM_MG_GRID = 0, /* text: the paper's grid spec, e.g. "50/all" */
  CL_FEM_MG_MODE,     /* choice pcg | fixed (note: the parameter's order, not cl_mg_mode's) */
  CL_FEM_MG_CYCLES,   /* V-cycles per solve in mode fixed */
  CL_FEM_MG_SMOOTHER, /* choice jacobi | gauss_seidel | symmetric_gauss_seidel | colored_gauss_seidel
                         (cl_mg_smoother) */
  CL_FEM_MG_SWEEPS,   /* smoothing sweeps before and after the coarse correction */
  CL_FEM_MG_COARSE,   /* choice cg | cholmod | dense (cl_mg_coarse) */
  CL_FEM_MG_PARAM_COUNT
};

/* The six entries of a cl_param_info table (designated initialisers), from index `first`. */
#define CL_FEM_MG_PARAM_INFOS(first)                                                                                  \
  [(first) + CL_FEM_MG_GRID] = {.name = "grid", .unit = "1",                                                          \
                                .help = "galerkin_mg: the paper's grid spec, vertex counts of the coarse levels "     \
                                        "(coarsest first) then 'all', e.g. \"50/all\" or \"50/1000/all\"",            \
                                .kind = CL_PARAM_TEXT, .text = "50/all"},                                             \
  [(first) + CL_FEM_MG_MODE] = {.name = "mg_mode", .unit = "1",                                                       \
                                .help = "galerkin_mg: pcg = CG preconditioned by one V-cycle, to the tolerance; "     \
                                        "fixed = mg_cycles V-cycles per solve, whatever the residual (the paper's "   \
                                        "Algorithm 2)",                                                               \
                                .value = 0.0, .min = 0.0, .max = 1.0, .kind = CL_PARAM_CHOICE,                        \
                                .choices = "pcg|fixed"},                                                              \
  [(first) + CL_FEM_MG_CYCLES] = {.name = "mg_cycles", .unit = "1",                                                   \
                                  .help = "galerkin_mg, mg_mode = fixed: V-cycles per solve", .value = 1.0,           \
                                  .min = 1.0, .max = 1e5, .kind = CL_PARAM_INTEGER},                                  \
  [(first) + CL_FEM_MG_SMOOTHER] = {.name = "mg_smoother", .unit = "1",                                               \
                                    .help = "galerkin_mg: smoother of the fine levels (damped block Jacobi; block "   \
                                            "Gauss-Seidel, forward before and backward after; symmetric "            \
                                            "Gauss-Seidel; block Gauss-Seidel in multicolour order, parallel)",      \
                                    .value = 1.0, .min = 0.0, .max = 3.0, .kind = CL_PARAM_CHOICE,                    \
                                    .choices = "jacobi|gauss_seidel|symmetric_gauss_seidel|colored_gauss_seidel"},    \
  [(first) + CL_FEM_MG_SWEEPS] = {.name = "mg_sweeps", .unit = "1",                                                   \
                                  .help = "galerkin_mg: smoothing sweeps before the restriction and after the "       \
                                          "prolongation",                                                             \
                                  .value = 2.0, .min = 1.0, .max = 1000.0, .kind = CL_PARAM_INTEGER},                 \
  [(first) + CL_FEM_MG_COARSE] = {.name = "mg_coarse", .unit = "1",                                                   \
                                  .help = "galerkin_mg: the coarsest level's solve (a few CG iterations; CG by a "    \
                                          "CHOLMOD factor kept while it pays; dense Cholesky)",                        \
                                  .value = 1.0, .min = 0.0, .max = 2.0, .kind = CL_PARAM_CHOICE,                      \
                                  .choices = "cg|cholmod|dense"}

/* The grid text of a body (text: the parameter's value; NULL = the default "50/all") checked and
 * copied into out: it must fit, parse (cl_mg_grid_parse) and, when nodes > 0 (give the body's node
 * count when it uses galerkin_mg), ask no level for more vertices than that (as cl_mg_grid_check).
 * CL_ERR_INVALID_ARGUMENT naming the solver, the parameter 'grid', its value and what is wrong. *largest (may be NULL): the vertex count of the
 * finest coarse level. */
cl_status cl_fem_mg_grid_text(const char *solver, const char *text, int32_t nodes, char out[CL_MG_GRID_CHARS],
                              int32_t *largest);

/* The galerkin_mg options of def from the six parameter values p[0..5] (p = the solver's values from
 * `first`) and the checked grid text. Positions are the caller's (def->mg_positions). */
void cl_fem_mg_def(cl_linear_solver_def *def, const double *p, const char *grid);

#endif
