/* The statistics op of the corotational solver: the size of the mesh it solves (tets, nodes, the
 * islands of thesis sec 5.1.2 that are solved as independent systems) and what the last linear solve
 * and the CHOLMOD reuse did, as the solver-agnostic name/value pairs of cl_body_copy_stats. */
#include "solvers/corotational/stats.h"

#include "base/error.h"
#include "solvers/corotational/corot.h"

/* Order and names are part of the interface (docs/LUA_API.md, body:stats()). */
enum {
  ST_TETS,
  ST_NODES,
  ST_ISLANDS,
  ST_STEPS,
  ST_CG_ITERATIONS,
  ST_CG_RESIDUAL,
  ST_FACTORIZATIONS,
  ST_FACTORIZATIONS_TOTAL,
  ST_ANALYSES_TOTAL,
  ST_ELEMENT_MS,
  ST_ASSEMBLY_MS,
  ST_SOLVE_MS,
  ST_UPDATE_MS,
  ST_COUNT
};

static const cl_stat_info k_names[ST_COUNT] = {
    [ST_TETS] = {"tets", "", "tetrahedra (elements) now"},
    [ST_NODES] = {"nodes", "", "nodes now (grows with fracture)"},
    [ST_ISLANDS] = {"islands", "", "connected components solved as separate systems"},
    [ST_STEPS] = {"steps", "", "solver steps (substeps) taken"},
    [ST_CG_ITERATIONS] = {"cg_iterations", "", "CG iterations of the last step, summed over islands"},
    [ST_CG_RESIDUAL] = {"cg_residual", "1", "largest relative CG residual of the last step"},
    [ST_FACTORIZATIONS] = {"factorizations", "", "numeric set-ups in the last step (CHOLMOD factorisations, multigrid set-ups)"},
    [ST_FACTORIZATIONS_TOTAL] = {"factorizations_total", "", "numeric set-ups so far (CHOLMOD factorisations, multigrid set-ups)"},
    [ST_ANALYSES_TOTAL] = {"analyses_total", "", "symbolic analyses so far (CHOLMOD orderings, multigrid hierarchies)"},
    [ST_ELEMENT_MS] = {"element_ms", "ms", "rotations, strain, plasticity and element stiffness of the last step"},
    [ST_ASSEMBLY_MS] = {"assembly_ms", "ms", "assembly of the linear system (A and b) of the last step"},
    [ST_SOLVE_MS] = {"solve_ms", "ms", "linear solves of the last step (factorisations and contact rounds included)"},
    [ST_UPDATE_MS] = {"update_ms", "ms", "position update, colliders and reactions of the last step"},
};

cl_status cl_corot_stats_op(const void *solver, const cl_body_state *state, cl_body_stat *out, int32_t capacity,
                            int32_t *count) {
  if (!solver || !state) return cl_fail(CL_ERR_INVALID_ARGUMENT, "corotational stats: NULL argument");
  const cl_corot *s = solver;
  double v[ST_COUNT];
  v[ST_TETS] = s->ntets;
  v[ST_NODES] = state->n;
  v[ST_ISLANDS] = s->nislands;
  v[ST_STEPS] = (double)s->timing.steps;
  v[ST_CG_ITERATIONS] = s->timing.iterations;
  v[ST_CG_RESIDUAL] = s->timing.residual;
  v[ST_FACTORIZATIONS] = s->timing.factorizations;
  v[ST_FACTORIZATIONS_TOTAL] = (double)s->timing.total_factorizations;
  v[ST_ANALYSES_TOTAL] = (double)s->timing.total_analyses;
  v[ST_ELEMENT_MS] = s->timing.element_ms;
  v[ST_ASSEMBLY_MS] = s->timing.assembly_ms;
  v[ST_SOLVE_MS] = s->timing.solve_ms;
  v[ST_UPDATE_MS] = s->timing.update_ms;
  return cl_solver_stats_copy("corotational", k_names, v, ST_COUNT, out, capacity, count);
}
