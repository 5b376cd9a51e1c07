/* The solver registry: the built-in solvers in a static table (filled as solvers land), plus
 * solvers registered at run time by tests and plugins. */
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "solvers/solver.h"

/* Built-in solvers. Each solver folder provides a `const cl_solver_ops cl_<name>_solver_ops`; it is
 * declared here rather than through the solver's header, so this file knows nothing else of the
 * solvers. NULL terminates the list (C forbids an empty initialiser). */
extern const cl_solver_ops cl_corotational_solver_ops;   /* solvers/corotational/solver.c */
extern const cl_solver_ops cl_shape_matching_solver_ops; /* solvers/shape_matching/sm_solver.c */
extern const cl_solver_ops cl_graph_fem_solver_ops;      /* solvers/graph_fem/solver.c */
static const cl_solver_ops *const k_builtin[] = {&cl_corotational_solver_ops, &cl_shape_matching_solver_ops,
                                                  &cl_graph_fem_solver_ops, NULL};

enum { CL_MAX_REGISTERED = 32 };
static const cl_solver_ops *g_registered[CL_MAX_REGISTERED];
static int32_t g_nregistered;

static int32_t builtin_count(void) {
  int32_t n = 0;
  while (k_builtin[n]) ++n;
  return n;
}

int32_t cl_solver_count(void) { return builtin_count() + g_nregistered; }

const cl_solver_ops *cl_solver_at(int32_t i) {
  int32_t nb = builtin_count();
  if (i < 0) return NULL;
  if (i < nb) return k_builtin[i];
  if (i - nb < g_nregistered) return g_registered[i - nb];
  return NULL;
}

static const cl_solver_ops *find(const char *name) {
  for (int32_t i = 0; i < cl_solver_count(); ++i) {
    const cl_solver_ops *ops = cl_solver_at(i);
    if (strcmp(ops->name, name) == 0) return ops;
  }
  return NULL;
}

/* "a, b, c" or "(none)" into buf. */
static void list_names(char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  int32_t n = cl_solver_count();
  if (n == 0) {
    snprintf(buf, size, "(none registered)");
    return;
  }
  for (int32_t i = 0; i < n && used + 1 < size; ++i) {
    int w = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", cl_solver_at(i)->name);
    if (w < 0) break;
    used += (size_t)w;
  }
}

cl_status cl_solver_find(const char *name, const cl_solver_ops **ops) {
  if (ops) *ops = NULL;
  char names[1024];
  list_names(names, sizeof names);
  if (!name || !name[0])
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "no solver name given; registered solvers: %s", names);
  const cl_solver_ops *s = find(name);
  if (!s) return cl_fail(CL_ERR_NOT_FOUND, "unknown solver '%s'; registered solvers: %s", name, names);
  if (ops) *ops = s;
  return CL_OK;
}

cl_status cl_solver_register(const cl_solver_ops *ops) {
  if (!ops || !ops->name || !ops->name[0])
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_solver_register: NULL table or empty name");
  const cl_solver_ops *old = find(ops->name);
  if (old == ops) return CL_OK;
  if (old)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_solver_register: the name '%s' is taken by another solver",
                   ops->name);
  if (!ops->create || !ops->destroy || !ops->bind || !ops->step || !ops->unit_count || !ops->measure ||
      !ops->elastic_energy)
    return cl_fail(CL_ERR_INVALID_ARGUMENT,
                   "cl_solver_register: solver '%s' lacks a required function (create, destroy, bind, "
                   "step, unit_count, measure, elastic_energy)", ops->name);
  if (ops->param_count < 0 || (ops->param_count > 0 && !ops->params))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_solver_register: solver '%s' has a bad parameter table",
                   ops->name);
  if ((int)ops->caps.units < 0 || ops->caps.units >= CL_UNIT_KIND_COUNT ||
      (ops->caps.applies & ~((1u << CL_EVENT_KIND_COUNT) - 1u)))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_solver_register: solver '%s' declares unknown unit or event kinds",
                   ops->name);
  if (ops->caps.applies && !ops->fracture)
    return cl_fail(CL_ERR_INVALID_ARGUMENT,
                   "cl_solver_register: solver '%s' declares fracture events it applies but has no fracture op",
                   ops->name);
  if (!ops->contact_bounds != !ops->contact_pair)
    return cl_fail(CL_ERR_INVALID_ARGUMENT,
                   "cl_solver_register: solver '%s' has one of contact_bounds and contact_pair without the other",
                   ops->name);
  if (g_nregistered >= CL_MAX_REGISTERED)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_solver_register: at most %d solvers can be registered",
                   CL_MAX_REGISTERED);
  g_registered[g_nregistered++] = ops;
  return CL_OK;
}
