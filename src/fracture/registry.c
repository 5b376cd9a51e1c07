/* The fracture-criterion registry: built-in criteria in a static table (filled as criteria land)
 * plus criteria registered at run time by tests and plugins. */
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "fracture/criterion.h"

/* Built-in criteria; NULL terminates the list. */
extern const cl_criterion_ops cl_cluster_stretch_criterion_ops; /* fracture/cluster_stretch.c */
extern const cl_criterion_ops cl_separation_tensor_criterion_ops; /* fracture/separation_tensor.c */
extern const cl_criterion_ops cl_plastic_excess_criterion_ops;    /* fracture/plastic_excess.c */
extern const cl_criterion_ops cl_edge_stress_criterion_ops;       /* fracture/edge_stress.c */
static const cl_criterion_ops *const k_builtin[] = {&cl_cluster_stretch_criterion_ops, &cl_separation_tensor_criterion_ops,
                                                    &cl_plastic_excess_criterion_ops, &cl_edge_stress_criterion_ops,
                                                    NULL};

enum { CL_MAX_REGISTERED = 32 };
static const cl_criterion_ops *g_registered[CL_MAX_REGISTERED];
static int32_t g_nregistered;

static int32_t builtin_count(void) {
  int32_t n = 0;
  while (k_builtin[n]) ++n;
  return n;
}

int32_t cl_criterion_count(void) { return builtin_count() + g_nregistered; }

const cl_criterion_ops *cl_criterion_at(int32_t i) {
  int32_t nb = builtin_count();
  if (i < 0) return NULL;
  if (i < nb) return k_builtin[i];
  if (i - nb < g_nregistered) return g_registered[i - nb];
  return NULL;
}

static const cl_criterion_ops *find(const char *name) {
  for (int32_t i = 0; i < cl_criterion_count(); ++i)
    if (strcmp(cl_criterion_at(i)->name, name) == 0) return cl_criterion_at(i);
  return NULL;
}

cl_status cl_criterion_find(const char *name, const cl_criterion_ops **ops) {
  if (ops) *ops = NULL;
  char names[1024];
  size_t used = 0;
  names[0] = '\0';
  int32_t n = cl_criterion_count();
  if (n == 0) snprintf(names, sizeof names, "(none registered)");
  for (int32_t i = 0; i < n && used + 1 < sizeof names; ++i) {
    int w = snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", cl_criterion_at(i)->name);
    if (w < 0) break;
    used += (size_t)w;
  }
  if (!name || !name[0])
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "no criterion name given; registered criteria: %s", names);
  const cl_criterion_ops *c = find(name);
  if (!c) return cl_fail(CL_ERR_NOT_FOUND, "unknown fracture criterion '%s'; registered criteria: %s", name, names);
  if (ops) *ops = c;
  return CL_OK;
}

cl_status cl_criterion_register(const cl_criterion_ops *ops) {
  if (!ops || !ops->name || !ops->name[0])
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_criterion_register: NULL table or empty name");
  const cl_criterion_ops *old = find(ops->name);
  if (old == ops) return CL_OK;
  if (old)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_criterion_register: the name '%s' is taken by another criterion",
                   ops->name);
  if (!ops->create || !ops->destroy || !ops->bind || !ops->evaluate)
    return cl_fail(CL_ERR_INVALID_ARGUMENT,
                   "cl_criterion_register: criterion '%s' lacks a required function (create, destroy, "
                   "bind, evaluate)", ops->name);
  if (!ops->caps.reads || !ops->caps.emits ||
      (ops->caps.reads & ~((1u << CL_UNIT_KIND_COUNT) - 1u)) || (ops->caps.emits & ~((1u << CL_EVENT_KIND_COUNT) - 1u)))
    return cl_fail(CL_ERR_INVALID_ARGUMENT,
                   "cl_criterion_register: criterion '%s' must declare the unit kinds it reads and the event kinds it "
                   "raises (caps)", ops->name);
  if (ops->param_count < 0 || (ops->param_count > 0 && !ops->params))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_criterion_register: criterion '%s' has a bad parameter table",
                   ops->name);
  if (g_nregistered >= CL_MAX_REGISTERED)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_criterion_register: at most %d criteria can be registered",
                   CL_MAX_REGISTERED);
  g_registered[g_nregistered++] = ops;
  return CL_OK;
}
