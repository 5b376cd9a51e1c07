/* The internal solver interface. Every solver fills one cl_solver_ops table (PETSc's KSP is the
 * model: a table of function pointers plus private data behind a void pointer) and is chosen per
 * body by name. The world never knows which solver runs: it reads the body's state through the
 * shared cl_body_state below, passes forces, constraints and colliders through plain view structs,
 * and gets per-unit deformation and stress back in one layout (cl_unit_fields), so fracture criteria
 * and probes are solver-agnostic.
 *
 * Layering: this header depends only on the public headers, base/ and the simulation contract
 * (contract/: body state, unit fields, step input, constraint and collider views, fracture events,
 * parameters, capabilities), which the fracture criteria include too. Solvers must not include
 * world/ or api/ headers, nor another solver's folder; everything they need arrives through the
 * contract's structs.
 *
 * Lifetime of one body's solver:
 *   create -> bind (once) -> { step -> [measure] -> [fracture -> topology_changed] }* -> destroy
 * destroy is also called after a failed bind or create-only, so it must accept partial state. */
#ifndef CL_SOLVERS_SOLVER_H
#define CL_SOLVERS_SOLVER_H

#include <stddef.h>
#include <stdint.h>

#include "cleave/world.h"
#include "contract/capabilities.h"
#include "contract/events.h"
#include "contract/params.h"
#include "contract/state.h"
#include "contract/step.h"
#include "contract/units.h"

/* ---- the solver table ---------------------------------------------------------------------- */

/* What bind receives. All of it is valid only during the call: copy what is needed. */
typedef struct cl_bind_input {
  const cl_mesh *mesh;             /* tets, points or a closed surface (solvers reject what they cannot use) */
  const cl_material_def *material; /* already range-checked by the world */
  const double *params;            /* one value per entry of ops->params, defaults filled in, checked */
  const char *body_name;           /* for messages ("body 3" if unnamed) */
  uint64_t seed;                   /* for anything random */
  int32_t threads;                 /* >= 1 */
  const char *const *texts;        /* one per entry of ops->params: a text parameter's value (valid
                                    * during bind only: copy what you keep), NULL for the others */
} cl_bind_input;

/* What one contact pair op did, for statistics and tests. */
typedef struct cl_contact_report {
  int32_t contacts;  /* corrections applied (e.g. particle pushed out of a proxy) */
  double max_depth;  /* m, deepest penetration found (before any restitution factor) */
} cl_contact_report;

/* A solver's table. Write it with designated initialisers ({.name = ..., .step = ...}), so that a
 * member added later is NULL / zero in every table that does not set it. */
typedef struct cl_solver_ops {
  const char *name;                 /* registry key, e.g. "corotational" */
  const char *help;                 /* one line: method and paper */
  const cl_param_info *params;      /* static table */
  int32_t param_count;
  /* What its units are, which fracture events its `fracture` op applies, what it conserves: the
   * world, the criteria and the conformance tests decide from these, never from `name`. */
  cl_solver_caps caps;

  /* Allocate the solver's private data (no rest state yet). */
  cl_status (*create)(void **solver);
  /* Free everything create and bind allocated; accepts NULL and half-bound solvers. */
  void (*destroy)(void *solver);
  /* Rest-state precomputation and symbolic work (element matrices, clusters, sparsity, ordering,
   * multigrid hierarchy); fill `state` (n, x = X, v = 0, m, origin, cells). Errors name the body
   * and the problem (CL_ERR_MESH for unusable input, CL_ERR_INVALID_ARGUMENT for parameter
   * combinations the table's ranges cannot express). */
  cl_status (*bind)(void *solver, const cl_bind_input *in, cl_body_state *state);
  /* Advance x and v by in->dt under gravity, in->f_ext, the constraints (exactly met, reactions
   * reported) and the colliders (cl_collider_project_mass on free nodes). May return a warning
   * (CL_WARN_NOT_CONVERGED): the world passes it on and continues. An error stops the world.
   * No allocation here after the first call (except after a topology change). */
  cl_status (*step)(void *solver, cl_body_state *state, const cl_step_input *in, cl_step_report *report);
  /* Number of integration units (caps.units: tets, clusters or particles) now. */
  int32_t (*unit_count)(const void *solver);
  /* Fill out->F, stress, plastic, center, volume for every unit (out->count = unit_count). */
  cl_status (*measure)(void *solver, const cl_body_state *state, cl_unit_fields *out);
  /* Elastic (stored) energy of the current state, J. */
  cl_status (*elastic_energy)(void *solver, const cl_body_state *state, double *energy);

  /* ---- optional (NULL when absent) ---- */
  /* Current volume, m^3, for solvers whose state has no tets (cell_size != 4); the world sums
   * signed tet volumes itself otherwise. */
  cl_status (*volume)(void *solver, const cl_body_state *state, double *volume);
  /* Surface triangles (3 node indices each, outward); *tris stays owned by the solver and valid until
   * the next step or topology change. Without it the world computes the tets' boundary (solvers
   * without tets need it; a tet solver gives it when its surface is not the cells' boundary, e.g.
   * graph_fem's surface splits along damaged edges). */
  cl_status (*surface)(void *solver, const cl_body_state *state, const int32_t **tris, int32_t *ntris);
  /* The topology operation: apply the events (sorted by decreasing priority, only of the kinds in
   * caps.applies) that are still valid after the earlier ones, appending nodes / rewriting cells
   * under the topology rule of contract/state.h. *applied = number applied. Required when
   * caps.applies is not 0. */
  cl_status (*fracture)(void *solver, cl_body_state *state, const cl_fracture_event *events,
                        int32_t count, int32_t *applied);
  /* Called once after a step's events were applied: redo what topology invalidates (refactor,
   * recluster, rebuild a multigrid level, resize scratch arrays). */
  cl_status (*topology_changed)(void *solver, cl_body_state *state);
  /* Statistics of the bound solver as name/value pairs (cleave/world.h cl_body_stat, static
   * strings): fill out[0 .. min(*count, capacity)) and set *count to the number the solver reports,
   * always the same names in the same order; out is NULL when capacity is 0. Read-only and cheap:
   * no allocation, called between steps. NULL: the solver reports none. */
  cl_status (*stats)(const void *solver, const cl_body_state *state, cl_body_stat *out, int32_t capacity,
                     int32_t *count);

  /* Connected pieces (optional): *count, and a label (0 .. count-1) per node when labels is not NULL,
   * for solvers whose connectivity is not their cells' (graph_fem: the unbroken edges). Without it the
   * world counts the components of the cells. */
  cl_status (*pieces)(void *solver, const cl_body_state *state, int32_t *labels, int32_t *count);

  /* Static equilibrium (optional; a solver without it cannot take cl_world_solve_static): move
   * state->x to where the elastic forces balance in->gravity and in->f_ext under in's constraints,
   * supports and colliders (colliders held still; in->dt is not used), velocities left zero, by
   * Newton iterations on the solver's stiffness with a line search, until the unbalanced force on
   * the free dofs is at most opt->tolerance times the load (or the first unbalanced force). The
   * constraint and support reactions of `in` are written as for a step. report->iterations and
   * ->residual are set; CL_WARN_NOT_CONVERGED after opt->max_iterations. */
  cl_status (*equilibrium)(void *solver, cl_body_state *state, const cl_step_input *in, const cl_static_def *opt,
                           cl_static_report *report);

  /* Contact between different bodies of this solver (both optional, both or neither). The world
   * calls them inside each (sub)step after every body's step (docs/ARCHITECTURE.md): contact_bounds
   * on each body that has them, then contact_pair on every two bodies of the same solver whose boxes
   * overlap, in a fixed order (by body slot), so results do not depend on the thread count. */
  /* An axis-aligned box (lo, hi: 3 each, m) that holds all of the body's collision geometry at
   * `state` (the positions at the end of its step): the world's broad phase, so keep it cheap; the
   * solver may mark its geometry stale here and refresh it in contact_pair. lo[0] > hi[0] means the
   * body has nothing to collide with (proxies switched off). */
  cl_status (*contact_bounds)(void *solver, const cl_body_state *state, double *lo, double *hi);
  /* Resolve contact between body a and body b (a != b, both bound to this solver, bounds called on
   * both since their last step). ca and cb are the bodies' constraint sets of the (sub)step: held
   * nodes must stay at their targets. Both bodies must be treated alike (swapping a and b may only
   * change the result by rounding and order). Positions and velocities change in place; dt is the
   * (sub)step. No allocation. */
  cl_status (*contact_pair)(void *a, cl_body_state *sa, const cl_constraint_set *ca, void *b,
                            cl_body_state *sb, const cl_constraint_set *cb, double dt, cl_contact_report *report);
} cl_solver_ops;

/* ---- statistics (solvers/stats.c) ----------------------------------------------------------- */

/* One statistic a solver reports: static strings (see cl_body_stat). */
typedef struct cl_stat_info {
  const char *name, *unit, *help;
} cl_stat_info;
/* The body of a stats op: checks the arguments (naming `solver` in the message), sets *count = n
 * and fills out[0 .. min(n, capacity)) from the parallel arrays info and values. */
cl_status cl_solver_stats_copy(const char *solver, const cl_stat_info *info, const double *values, int32_t n,
                               cl_body_stat *out, int32_t capacity, int32_t *count);

/* ---- registry (solvers/registry.c) --------------------------------------------------------- */

/* Register a solver (tests, plugins). The table must outlive every world that uses it. Registering
 * the same table twice is a no-op; another table under a taken name is CL_ERR_INVALID_ARGUMENT, as
 * is a table missing a required function or whose capabilities contradict its functions (events
 * applied without a fracture op, one contact op without the other). Not thread-safe: register before creating worlds. */
cl_status cl_solver_register(const cl_solver_ops *ops);
int32_t cl_solver_count(void);
const cl_solver_ops *cl_solver_at(int32_t i);
/* Find a solver by name; CL_ERR_NOT_FOUND lists the registered names. */
cl_status cl_solver_find(const char *name, const cl_solver_ops **ops);

#endif
