/* The internal solver interface. Every solver fills one cl_solver_ops table (PETSc's KSP is the
 * model: a table of function pointers plus private data behind a void pointer) and is chosen per
 * body by name. The world never knows which solver runs: it reads the body's state through the
 * shared cl_body_state below, passes forces, constraints and colliders through plain view structs,
 * and gets per-unit deformation and stress back in one layout (cl_unit_fields), so fracture criteria
 * and probes are solver-agnostic.
 *
 * Layering: this header depends only on the public headers and base/. Solvers must not include
 * world/ or api/ headers; everything they need arrives through the structs declared here.
 *
 * Lifetime of one body's solver:
 *   create -> bind (once) -> { step -> [measure] -> [fracture -> topology_changed] }* -> destroy
 * destroy is also called after a failed bind or create-only, so it must accept partial state. */
#ifndef CL_SOLVERS_SOLVER_H
#define CL_SOLVERS_SOLVER_H

#include <stddef.h>
#include <stdint.h>

#include "cleave/world.h"

/* ---- body state: shared by the world and the solver ---------------------------------------- */

/* Per-node state of one body, structure of arrays (x[3*i + k] is coordinate k of node i). The world
 * owns the struct and frees it; the solver fills it in bind and advances it in step. Solvers may
 * grow it (fracture adds nodes) with cl_body_state_resize, which may move the arrays: never keep a
 * pointer into them across calls.
 *
 * The state is the one truth: a solver reads x and v from it at every step and must not keep its own
 * copy between steps, since the world, tests and scripts may set positions and velocities between
 * steps (initial conditions, teleports). Caches derived from x (factorizations) are fine.
 *
 * Topology rule: a topology operation may only APPEND nodes and may rewrite cells, but existing node
 * indices keep their meaning (a node is never renumbered or removed). New nodes record in origin[]
 * the node they were copied from, so the world can carry constraints and regions over to them. */
typedef struct cl_body_state {
  int32_t n;           /* live nodes (particles) */
  int32_t capacity;    /* allocated nodes */
  double *x;           /* 3n current positions, m */
  double *v;           /* 3n velocities, m/s */
  double *X;           /* 3n rest (material) positions, m */
  double *m;           /* n lumped masses, kg (> 0) */
  int32_t *origin;     /* n: the node this node was copied from by fracture; i itself for bound nodes */
  /* Connectivity the world uses for pieces, volume, surfaces and material-point lookup:
   * cell_size 4 = tetrahedra (positively oriented at rest), 2 = bonds between particles (e.g. shared
   * cluster membership), 0 = none (every node is its own piece). */
  int32_t cell_size;
  int32_t ncells;
  int32_t cells_capacity; /* in cells */
  int32_t *cells;         /* cell_size * ncells node indices */
  int64_t topology_version; /* changes whenever cells change or nodes are appended: the world bumps
                             * it after a fracture op that applied events; a solver changing topology
                             * anywhere else bumps it itself. The world's caches (surface, pieces)
                             * are keyed on it. */
} cl_body_state;

/* Make room for `nodes` nodes (content kept; new entries uninitialised). */
cl_status cl_body_state_reserve(cl_body_state *s, int32_t nodes);
/* Set the node count; nodes added get zero x, v, X, m and origin[i] = i. */
cl_status cl_body_state_resize(cl_body_state *s, int32_t nodes);
/* Make room for `ncells` cells of `cell_size` indices (content kept when cell_size is unchanged;
 * ncells itself is not changed). */
cl_status cl_body_state_reserve_cells(cl_body_state *s, int32_t cell_size, int32_t ncells);
/* Free the arrays and zero the struct. */
void cl_body_state_free(cl_body_state *s);
/* Total mass (kg), and 1 if every x and v is finite else 0 with the first bad node in *bad_node and
 * which array ("position" / "velocity") in *what. */
double cl_body_state_mass(const cl_body_state *s);
int cl_body_state_finite(const cl_body_state *s, int32_t *bad_node, const char **what);

/* ---- what the world hands to a step -------------------------------------------------------- */

/* Nodes held by fixed or driven boundary conditions for one (sub)step. The world merges the body's
 * active conditions (a node in several keeps the first). The solver must end the step with
 * x[nodes[j]] == target_x[j] and v[nodes[j]] == target_v[j] exactly (constraints, not springs), and
 * write into reaction[3j..3j+2] the force (N) it had to apply to node nodes[j] to do so, averaged
 * over the step (impulse / dt): the world's reaction probes sum these. */
typedef struct cl_constraint_set {
  int32_t count;
  const int32_t *nodes;    /* count node indices, distinct */
  const double *target_x;  /* 3 count positions at the end of the step, m */
  const double *target_v;  /* 3 count velocities at the end of the step, m/s */
  double *reaction;        /* 3 count, output: constraint force on each node, N */
} cl_constraint_set;

/* A collider's pose at the end of the current (sub)step, in world coordinates. A kinematic
 * collider's motion is scripted; a dynamic one (impulse != NULL) is moved by the world, which reads
 * back what the nodes gave it through cl_collider_project_mass. Plane: the half-space (x - center) . normal < 0 is
 * solid. Box: local coordinates R^T (x - center) within +-half are solid. */
typedef struct cl_collider_shape {
  cl_collider_kind kind;
  double center[3];        /* m */
  double normal[3];        /* plane, unit */
  double radius;           /* sphere, m */
  double half[3];          /* box half extents, m */
  double R[9];             /* box orientation, row-major; columns are the box axes in world frame */
  double velocity[3];      /* m/s, of the centre */
  double omega[3];         /* rad/s, about the centre */
  double friction;         /* Coulomb coefficient >= 0 */
  double restitution;      /* [0, 1] */
  /* Dynamic (two-way) colliders: where the impulse the nodes give back to the collider is summed,
   * 6 doubles: linear (N s) and angular about `center` (N m s). NULL for a kinematic collider
   * (docs/RIGID_BODIES.md). cl_collider_project_mass adds to it when it moves a node; a solver that
   * holds contact nodes as constraints of an implicit solve may instead add the held rows' actual
   * reactions itself (the corotational solver does, corotational/step.c). */
  double *impulse;
} cl_collider_shape;

typedef struct cl_collider_view {
  int32_t count;
  const cl_collider_shape *shapes;
} cl_collider_view;

/* Push one point out of every collider it penetrates (projection to the nearest surface point) and
 * change its velocity relative to the collider's surface velocity: the normal part is reflected with
 * the restitution if approaching, the tangential part loses mu * (normal velocity change) (Coulomb
 * friction as a velocity-level impulse, cf. Bridson, Fedkiw & Anderson, SIGGRAPH 2002, sec. 7.2).
 * x and v are 3 doubles, changed in place. Returns the number of colliders touched.
 * Solvers call this for every free node or particle after their position update; the world
 * implements it (world/colliders.c) so all solvers collide alike. */
int cl_collider_project(const cl_collider_view *view, double *x, double *v);
/* The same for a node of mass m (kg): every dynamic collider touched (shape->impulse != NULL) also
 * receives the opposite of the node's momentum change, -m (v_after - v_before), and its moment
 * about the collider's centre taken at the contact point, so the pair conserves momentum. Safe to
 * call from several OpenMP threads at once (atomic adds). Solvers call this one. */
int cl_collider_project_mass(const cl_collider_view *view, double *x, double *v, double m);
/* A box [lo, hi] outside which no point penetrates any collider of the view (the shapes' own
 * boxes, widened by far more than the rounding of the penetration tests), so a solver can skip
 * cl_collider_project* for points outside it without changing any result. Returns 0 (and no box)
 * when the view is empty or holds a plane, which is unbounded. */
int cl_collider_view_box(const cl_collider_view *view, double lo[3], double hi[3]);

/* Everything one solver step sees besides the body state. */
typedef struct cl_step_input {
  double dt;                        /* s, this (sub)step, > 0 */
  double time;                      /* s, world time at the start of this (sub)step */
  const double *gravity;            /* 3, m/s^2, acts on every node */
  const double *f_ext;              /* 3n external forces on nodes, N (force conditions), or NULL */
  cl_constraint_set constraints;    /* fixed and driven nodes, with their reaction output */
  const cl_collider_view *colliders;/* never NULL; count may be 0 */
  int32_t threads;                  /* OpenMP threads the world allows, >= 1 */
} cl_step_input;

/* What a step reports back for statistics (zero for solvers without iterative solves). */
typedef struct cl_step_report {
  int32_t iterations;  /* linear solver iterations */
  double residual;     /* relative residual of the last solve */
} cl_step_report;

/* ---- per-unit measures: the one layout criteria and probes read ---------------------------- */

/* Integration units are tets for FEM solvers, clusters for shape matching. All matrices are 3x3
 * row-major. The world owns the arrays (sized by unit_count before measure is called). */
typedef struct cl_unit_fields {
  int32_t count;     /* units filled */
  double *F;         /* 9 count deformation gradients */
  double *stress;    /* 9 count Cauchy stress, Pa */
  double *plastic;   /* 9 count plastic strain (zero without plasticity) */
  double *center;    /* 3 count current centres, m */
  double *volume;    /* count rest volumes, m^3 */
} cl_unit_fields;

/* ---- fracture events: raised by criteria, applied by the solver ---------------------------- */

/* One candidate crack. The criterion says where and how urgent; the solver's topology operation
 * decides how (split a cluster, replicate a node along the plane, cut edges). */
typedef struct cl_fracture_event {
  int32_t unit;        /* unit that failed */
  int32_t node;        /* node at which to split, or -1 to let the solver choose */
  double priority;     /* larger goes first (e.g. stress / toughness) */
  double normal[3];    /* crack plane normal (unit), zero when the criterion has no direction */
  double value;        /* the criterion's raw value, for statistics */
} cl_fracture_event;

typedef struct cl_event_list {
  cl_fracture_event *items;
  int32_t count;
  size_t capacity;
} cl_event_list;
/* Append an event (grows the list; allocation happens only on steps that raise events). */
cl_status cl_event_push(cl_event_list *list, const cl_fracture_event *event);
void cl_event_list_free(cl_event_list *list);

/* ---- parameters ---------------------------------------------------------------------------- */

/* Resolve named parameters against a table: values[i] starts at table[i].value and is overwritten
 * by the given parameter of the same name. Errors: an unknown name (CL_ERR_NOT_FOUND, the message
 * lists the valid names), a NULL name, a name given twice, NaN, a value outside [min, max] or not an
 * integer where one is required (CL_ERR_INVALID_ARGUMENT, the message gives range and unit).
 * `owner` names the table in messages, e.g. "solver 'corotational'". */
cl_status cl_params_resolve(const char *owner, const cl_param_info *table, int32_t count,
                            const cl_param *given, int32_t ngiven, double *values);
/* Index of `name` in the table, or -1. */
int32_t cl_param_index(const cl_param_info *table, int32_t count, const char *name);

/* ---- the solver table ---------------------------------------------------------------------- */

/* What bind receives. All of it is valid only during the call: copy what is needed. */
typedef struct cl_bind_input {
  const cl_mesh *mesh;             /* tets, points or a closed surface (solvers reject what they cannot use) */
  const cl_material_def *material; /* already range-checked by the world */
  const double *params;            /* one value per entry of ops->params, defaults filled in, checked */
  const char *body_name;           /* for messages ("body 3" if unnamed) */
  uint64_t seed;                   /* for anything random */
  int32_t threads;                 /* >= 1 */
} cl_bind_input;

typedef struct cl_solver_ops {
  const char *name;                 /* registry key, e.g. "corotational" */
  const char *help;                 /* one line: method and paper */
  const cl_param_info *params;      /* static table */
  int32_t param_count;

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
   * reported) and the colliders (cl_collider_project on free nodes). May return a warning
   * (CL_WARN_NOT_CONVERGED): the world passes it on and continues. An error stops the world.
   * No allocation here after the first call (except after a topology change). */
  cl_status (*step)(void *solver, cl_body_state *state, const cl_step_input *in, cl_step_report *report);
  /* Number of integration units (tets or clusters) now. */
  int32_t (*unit_count)(const void *solver);
  /* Fill out->F, stress, plastic, center, volume for every unit (out->count = unit_count). */
  cl_status (*measure)(void *solver, const cl_body_state *state, cl_unit_fields *out);
  /* Elastic (stored) energy of the current state, J. */
  cl_status (*elastic_energy)(void *solver, const cl_body_state *state, double *energy);

  /* Optional (NULL when absent): */
  /* Current volume, m^3, for solvers whose state has no tets (cell_size != 4); the world sums
   * signed tet volumes itself otherwise. */
  cl_status (*volume)(void *solver, const cl_body_state *state, double *volume);
  /* Surface triangles (3 node indices each, outward) for solvers without tets; *tris stays owned by
   * the solver and valid until the next step or topology change. The world computes tet boundaries. */
  cl_status (*surface)(void *solver, const cl_body_state *state, const int32_t **tris, int32_t *ntris);
  /* The topology operation: apply the events (sorted by decreasing priority) that are still valid
   * after the earlier ones, appending nodes / rewriting cells under the topology rule above.
   * *applied = number applied. A solver without it cannot take a fracture criterion. */
  cl_status (*fracture)(void *solver, cl_body_state *state, const cl_fracture_event *events,
                        int32_t count, int32_t *applied);
  /* Called once after a step's events were applied: redo what topology invalidates (refactor,
   * recluster, rebuild a multigrid level, resize scratch arrays). */
  cl_status (*topology_changed)(void *solver, cl_body_state *state);
  /* Optional (NULL: the solver reports none). Statistics of the bound solver as name/value pairs
   * (cleave/world.h cl_body_stat, static strings): fill out[0 .. min(*count, capacity)) and set
   * *count to the number the solver reports, always the same names in the same order; out is NULL
   * when capacity is 0. Read-only and cheap: no allocation, called between steps. Tables written
   * positionally must list it (NULL) after topology_changed. */
  cl_status (*stats)(const void *solver, const cl_body_state *state, cl_body_stat *out, int32_t capacity,
                     int32_t *count);
} cl_solver_ops;

/* ---- contact between bodies (optional; solvers/contact.c) --------------------------------- */

/* What one pair op did, for statistics and tests. */
typedef struct cl_contact_report {
  int32_t contacts;  /* corrections applied (e.g. particle pushed out of a proxy) */
  double max_depth;  /* m, deepest penetration found (before any restitution factor) */
} cl_contact_report;

/* Contact between different bodies of one solver. These ops sit beside cl_solver_ops rather than
 * in it: adding a member to cl_solver_ops would leave every table written positionally before it
 * short of an initialiser (-Wmissing-field-initializers, an error under CLEAVE_WERROR). A solver
 * that has them is listed in solvers/contact.c; cl_solver_contact finds them.
 *
 * The world calls them inside each (sub)step after every body's step (docs/ARCHITECTURE.md):
 * bounds on each body that has them, then pair on every two bodies with the same contact ops whose
 * boxes overlap, in a fixed order (by body slot), so results do not depend on the thread count. */
typedef struct cl_solver_contact_ops {
  const cl_solver_ops *solver; /* the solver these ops belong to */
  /* An axis-aligned box (lo, hi: 3 each, m) that holds all of the body's collision geometry at
   * `state` (the positions at the end of its step): the world's broad phase, so keep it cheap; the
   * solver may mark its geometry stale here and refresh it in pair. lo[0] > hi[0] means the body
   * has nothing to collide with (proxies switched off). */
  cl_status (*bounds)(void *solver, const cl_body_state *state, double *lo, double *hi);
  /* Resolve contact between body a and body b (a != b, both bound to this solver, bounds called on
   * both since their last step). ca and cb are the bodies' constraint sets of the (sub)step: held
   * nodes must stay at their targets. Both bodies must be treated alike (swapping a and b may only
   * change the result by rounding and order). Positions and velocities change in place; dt is the
   * (sub)step. No allocation. */
  cl_status (*pair)(void *a, cl_body_state *sa, const cl_constraint_set *ca, void *b, cl_body_state *sb,
                    const cl_constraint_set *cb, double dt, cl_contact_report *report);
} cl_solver_contact_ops;

/* The contact ops of a solver, or NULL when its bodies do not collide with other bodies. */
const cl_solver_contact_ops *cl_solver_contact(const cl_solver_ops *ops);

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
 * is a table missing a required function. Not thread-safe: register before creating worlds. */
cl_status cl_solver_register(const cl_solver_ops *ops);
int32_t cl_solver_count(void);
const cl_solver_ops *cl_solver_at(int32_t i);
/* Find a solver by name; CL_ERR_NOT_FOUND lists the registered names. */
cl_status cl_solver_find(const char *name, const cl_solver_ops **ops);

#endif
