/* The internal fracture-criterion interface. A criterion decides WHERE and HOW URGENTLY a body
 * breaks; it never touches topology. The split of duties, per world step:
 *
 *   solver measure  -> cl_unit_fields (F, Cauchy stress, plastic strain, centre, rest volume per
 *                      integration unit: the same layout for every solver)
 *   criterion evaluate (this table) -> candidate cl_fracture_events (contract/events.h: split a
 *                      node, split a unit, damage an edge, cut along a surface), each with a priority
 *   world           -> sorts events by decreasing priority
 *   solver fracture (cl_solver_ops.fracture, "apply") -> the solver's own topology operation
 *                      (split a cluster, replicate a node along the crack plane, cut graph edges),
 *                      skipping events made invalid by earlier ones
 *   solver topology_changed -> rebuild what the new topology invalidates
 *
 * so a criterion can drive any solver whose capabilities fit its own (contract/capabilities.h: the
 * units it reads, the events it raises and the solver applies); the world checks that when a body
 * is added and names the criteria that do fit otherwise. Criteria include only the contract layer,
 * never solvers/ or world/. Each criterion documents the paper and equation it implements beside
 * its evaluate function. */
#ifndef CL_FRACTURE_CRITERION_H
#define CL_FRACTURE_CRITERION_H

#include "cleave/world.h"
#include "contract/capabilities.h"
#include "contract/events.h"
#include "contract/params.h"
#include "contract/state.h"
#include "contract/units.h"

/* What bind receives; valid only during the call. */
typedef struct cl_criterion_bind_input {
  const double *params;            /* one per entry of ops->params, defaults filled in, checked */
  const cl_material_def *material;
  const char *solver;              /* name of the body's solver, for messages only */
  const cl_solver_caps *caps;      /* what the body's solver does (its units, the events it applies) */
  const cl_body_state *state;      /* the bound rest state */
  const char *body_name;
  const char *const *texts;        /* one per entry of ops->params: a text parameter's value (valid
                                    * during bind only), NULL for the others; may be NULL if the
                                    * table has no text parameters */
  int32_t threads;                 /* threads its evaluate may use (OpenMP; 0 or 1 = one) */
} cl_criterion_bind_input;

/* A criterion's table. Write it with designated initialisers, so a member added later is NULL / zero
 * in every table that does not set it. */
typedef struct cl_criterion_ops {
  const char *name;                /* registry key, e.g. "cluster_stretch" */
  const char *help;                /* one line: what it tests, which paper */
  const cl_param_info *params;
  int32_t param_count;
  cl_criterion_caps caps;          /* the units it reads and the events it raises */

  cl_status (*create)(void **criterion);
  /* Accepts NULL and half-bound criteria. */
  void (*destroy)(void *criterion);
  /* Check parameter combinations and the body's material; precompute thresholds. The world has
   * already checked that the solver's capabilities fit the criterion's. */
  cl_status (*bind)(void *criterion, const cl_criterion_bind_input *in);
  /* Read the per-unit measures (units->count of them) and the state; append candidate events to
   * `out` (cl_event_push; the world empties it before the call). Must not change anything else.
   * dt is the step just taken (s), for rate-dependent criteria. */
  cl_status (*evaluate)(void *criterion, const cl_unit_fields *units, const cl_body_state *state,
                        double dt, cl_event_list *out);
} cl_criterion_ops;

/* Registry (fracture/registry.c), with the same rules as cl_solver_register: the same table twice
 * is a no-op, a taken name, a missing function or empty capabilities is CL_ERR_INVALID_ARGUMENT;
 * not thread-safe. */
cl_status cl_criterion_register(const cl_criterion_ops *ops);
int32_t cl_criterion_count(void);
const cl_criterion_ops *cl_criterion_at(int32_t i);
/* CL_ERR_NOT_FOUND lists the registered names. */
cl_status cl_criterion_find(const char *name, const cl_criterion_ops **ops);

#endif
