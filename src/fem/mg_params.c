/* The Galerkin multigrid's solver parameters shared by the FEM solvers (mg_params.h). */
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "fem/mg_params.h"

cl_status cl_fem_mg_grid_text(const char *solver, const char *text, int32_t nodes, char out[CL_MG_GRID_CHARS],
                              int32_t *largest) {
  if (!text) text = "50/all";
  if (strlen(text) >= CL_MG_GRID_CHARS)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "solver '%s': parameter 'grid' = \"%.40s...\" is longer than %d characters",
                   solver, text, CL_MG_GRID_CHARS - 1);
  cl_mg_grid g;
  cl_status r = cl_mg_grid_parse(text, &g);
  if (r < 0) {
    /* linalg names its option 'mg_grid'; a body's parameter is 'grid' */
    char msg[512];
    snprintf(msg, sizeof msg, "%s", cl_last_error());
    static const char key[] = "parameter 'mg_grid'";
    const char *rest = strstr(msg, key);
    if (rest) return cl_fail(r, "solver '%s': parameter 'grid'%s", solver, rest + sizeof key - 1);
    return cl_fail_context(r, "solver '%s', parameter 'grid': ", solver);
  }
  /* count[0] is the finest coarse level, the largest */
  if (nodes > 0 && g.count[0] > nodes)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "solver '%s': parameter 'grid' = \"%s\" asks for %d vertices at level 1, "
                   "but the body has %d nodes; every count must be in [1, %d]", solver, text, g.count[0], nodes, nodes);
  snprintf(out, CL_MG_GRID_CHARS, "%s", text);
  if (largest) *largest = g.count[0];
  return CL_OK;
}

void cl_fem_mg_def(cl_linear_solver_def *def, const double *p, const char *grid) {
  snprintf(def->mg_grid, sizeof def->mg_grid, "%s", grid);
  def->mg_mode = p[CL_FEM_MG_MODE] != 0.0 ? CL_MG_MODE_FIXED : CL_MG_MODE_PCG;
  def->mg_cycles = (int32_t)p[CL_FEM_MG_CYCLES];
  def->mg_smoother = (int32_t)p[CL_FEM_MG_SMOOTHER];
  def->mg_pre_sweeps = def->mg_post_sweeps = (int32_t)p[CL_FEM_MG_SWEEPS];
  def->mg_coarse_solver = (int32_t)p[CL_FEM_MG_COARSE];
}
