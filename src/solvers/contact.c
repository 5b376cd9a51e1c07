/* Which solvers have contact ops between bodies (solver.h, cl_solver_contact_ops). A static list
 * like the built-in table of registry.c; the ops live in the solver's folder. */
#include <stddef.h>

#include "solvers/shape_matching/sm_internal.h"
#include "solvers/solver.h"

static const cl_solver_contact_ops *const k_contact[] = {&cl_shape_matching_contact_ops, NULL};

const cl_solver_contact_ops *cl_solver_contact(const cl_solver_ops *ops) {
  if (!ops) return NULL;
  for (int i = 0; k_contact[i]; ++i)
    if (k_contact[i]->solver == ops) return k_contact[i];
  return NULL;
}
