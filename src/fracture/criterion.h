/* The internal fracture-criterion interface. A criterion decides WHERE and HOW URGENTLY a body
 * breaks; it never touches topology. The split of duties, per world step:
 *
 *   solver measure  -> cl_unit_fields (F, Cauchy stress, plastic strain, centre, rest volume per
 *                      integration unit: the same layout for every solver)
 *   criterion evaluate (this table) -> candidate cl_fracture_events, each with a priority
 *   world           -> sorts events by decreasing priority
 *   solver fracture (cl_solver_ops.fracture, "apply") -> the solver's own topology operation
 *                      (split a cluster, replicate a node along the crack plane, cut graph edges),
 *                      skipping events made invalid by earlier ones
 *   solver topology_changed -> rebuild what the new topology invalidates
 *
 * so any criterion can drive any solver that has a topology operation. Each criterion documents the
 * paper and equation it implements beside its evaluate function. */
#ifndef CL_FRACTURE_CRITERION_H
#define CL_FRACTURE_CRITERION_H

#include "solvers/solver.h"

/* What bind receives; valid only during the call. */
typedef struct cl_criterion_bind_input {
  const double *params;            /* one per entry of ops->params, defaults filled in, checked */
  const cl_material_def *material;
  const char *solver;              /* name of the body's solver (some criteria need tets) */
  const cl_body_state *state;      /* the bound rest state */
  const char *body_name;
} cl_criterion_bind_input;

typedef struct cl_criterion_ops {
  const char *name;                /* registry key, e.g. "cluster_stretch" */
  const char *help;                /* one line: what it tests, which paper */
  const cl_param_info *params;
  int32_t param_count;

  cl_status (*create)(void **criterion);
  /* Accepts NULL and half-bound criteria. */
  void (*destroy)(void *criterion);
  /* Check parameter combinations and the body (e.g. CL_ERR_INVALID_ARGUMENT when a criterion needs
   * tets and the state has none); precompute thresholds. */
  cl_status (*bind)(void *criterion, const cl_criterion_bind_input *in);
  /* Read the per-unit measures (units->count of them) and the state; append candidate events to
   * `out` (cl_event_push; the world empties it before the call). Must not change anything else.
   * dt is the step just taken (s), for rate-dependent criteria. */
  cl_status (*evaluate)(void *criterion, const cl_unit_fields *units, const cl_body_state *state,
                        double dt, cl_event_list *out);
} cl_criterion_ops;

/* Registry (fracture/registry.c), with the same rules as cl_solver_register: the same table twice
 * is a no-op, a taken name or a missing function is CL_ERR_INVALID_ARGUMENT; not thread-safe. */
cl_status cl_criterion_register(const cl_criterion_ops *ops);
int32_t cl_criterion_count(void);
const cl_criterion_ops *cl_criterion_at(int32_t i);
/* CL_ERR_NOT_FOUND lists the registered names. */
cl_status cl_criterion_find(const char *name, const cl_criterion_ops **ops);

#endif
