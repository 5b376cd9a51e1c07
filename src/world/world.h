/* Internal layout of the world and its objects. The public functions (api/world_api.c) check their
 * arguments and then call the functions declared here, which assume valid input.
 *
 * Ownership: the world owns bodies, conditions, colliders and probes through four generational
 * pools (ids.c). A body owns its solver, criterion and state. Conditions and probes refer to bodies
 * by id; removing a body removes its conditions and probes, removing a condition removes the
 * reaction probes on it (their ids become stale). */
#ifndef CL_WORLD_WORLD_H
#define CL_WORLD_WORLD_H

#include <stddef.h>
#include <stdint.h>

#include "cleave/world.h"
#include "fracture/criterion.h"
#include "solvers/solver.h"

/* Value of the `internal` marker of cl_world_def and cl_body_def set by their *_def_default. */
enum { CL_DEF_MARKER = 0x636c6466 };

/* ---- sane ranges (docs/GUARANTEES.md) ------------------------------------------------------- */

/* What a user may set, checked where it is set. Far beyond any mechanical scene, yet small enough
 * that no product the step forms (x + v t, m v^2, I^-1 L, g t^2) can overflow a double, so a
 * value that passes these checks cannot turn into an Inf or a NaN by itself. */
#define CL_LIMIT_COORD 1e9      /* m: |coordinate| of centres, hinge points, rest positions */
#define CL_LIMIT_SPEED 3e8      /* m/s: |velocity| (the speed of light) */
#define CL_LIMIT_SPIN 1e9       /* rad/s: |angular velocity| */
#define CL_LIMIT_SIZE_MIN 1e-9  /* m: collider radius, half extents */
#define CL_LIMIT_SIZE_MAX 1e9
#define CL_LIMIT_MASS_MIN 1e-9  /* kg: dynamic collider mass */
#define CL_LIMIT_MASS_MAX 1e15
#define CL_LIMIT_INERTIA_MIN 1e-30 /* kg m^2: given principal moments */
#define CL_LIMIT_INERTIA_MAX 1e30
#define CL_LIMIT_GRAVITY 1e9    /* m/s^2: |gravity| */
#define CL_LIMIT_FORCE 1e15     /* N: |force| of a force condition */
#define CL_LIMIT_YOUNG 1e13     /* Pa: Young's modulus (diamond's is 1.2e12) */
#define CL_LIMIT_DENSITY 1e6    /* kg/m^3 (osmium's is 2.3e4) */

/* |v| <= limit for a 3-vector, else CL_ERR_INVALID_ARGUMENT "<what> = (x, y, z) <unit>: |<what>| = n
 * is outside the allowed range [0, limit] <unit>" (NaN and Inf fail too). */
cl_status cl_check_vec3_limit(const char *what, const double *v, double limit, const char *unit);

/* ---- generational ids (ids.c) -------------------------------------------------------------- */

/* An id packs, from the low bits: slot (14 bits, so at most 16383 live objects of a kind), kind
 * (2 bits), world tag (6 bits, catches ids from another world) and generation (10 bits, bumped
 * when a slot is freed, never 0, so an id is never 0). */
typedef enum cl_id_kind { CL_ID_BODY = 0, CL_ID_CONDITION = 1, CL_ID_COLLIDER = 2, CL_ID_PROBE = 3 } cl_id_kind;

typedef struct cl_pool {
  void **items;         /* per slot, NULL when free */
  uint16_t *generation; /* per slot */
  int32_t slots;        /* slots in use or freed */
  int32_t capacity;
  int32_t *free_slots;
  int32_t nfree;
  int32_t live;
  cl_id_kind kind;
  uint32_t tag;
} cl_pool;

void cl_pool_init(cl_pool *pool, cl_id_kind kind, uint32_t tag);
/* Free the pool's arrays (not the items). */
void cl_pool_free(cl_pool *pool);
cl_status cl_pool_add(cl_pool *pool, void *item, cl_id *id);
/* The item of a live id, else NULL (no message). */
void *cl_pool_find(const cl_pool *pool, cl_id id);
/* The item of a live id, else CL_ERR_STALE_ID (destroyed, another world, another kind) or
 * CL_ERR_INVALID_ARGUMENT (id 0) with a message naming `what`. */
cl_status cl_pool_get(const cl_pool *pool, cl_id id, const char *what, void **item);
/* Remove a live id and return its item (NULL if not live). */
void *cl_pool_remove(cl_pool *pool, cl_id id);
/* The slot of an id (no check: for ids already found live). */
int32_t cl_pool_slot(cl_id id);
/* Item in slot i (NULL for a free slot), for iteration over 0..pool->slots-1. */
static inline void *cl_pool_at(const cl_pool *pool, int32_t slot) { return pool->items[slot]; }
/* A fresh tag for a new world, 1..63. */
uint32_t cl_world_next_tag(void);

/* ---- bodies (body.c) ----------------------------------------------------------------------- */

typedef struct cl_body {
  cl_id id;
  char label[96];                    /* "body 'bar' (id 123)" for messages */
  char *name;
  cl_material_def material;
  const cl_solver_ops *ops;
  void *solver;
  double *params;                    /* one per ops->params entry */
  char **ptexts;                     /* one per ops->params entry: a text parameter's value (owned) */
  const cl_criterion_ops *cops;      /* NULL without fracture */
  void *criterion;
  double *cparams;
  char **ctexts;                     /* the same for the criterion's parameters */
  cl_body_state state;

  /* Per-node arrays the world owns, sized to node_capacity (>= state.n). */
  int32_t node_capacity;
  double *f_ext;                     /* 3 per node, N, force conditions */
  int has_forces;                    /* f_ext holds this step's forces (else NULL goes to the solver) */
  int32_t *slot;                     /* constraint slot of each node, -1 if free */
  int32_t *pslot;                    /* support slot of each node, -1 if none */

  /* The merged constraint set of the current substep. */
  int32_t c_count, c_capacity;
  int32_t *c_nodes;
  double *c_x, *c_v, *c_r;
  /* The merged support set (contract/step.h cl_support_set) of the current substep. */
  int32_t s_count, s_capacity;
  int32_t *s_nodes;
  int8_t *s_held;
  double *s_axes, *s_x, *s_v, *s_r;

  /* Per-unit measures, sized to units_capacity. */
  cl_unit_fields units;
  int32_t units_capacity;
  cl_event_list events;

  /* Caches keyed by state.topology_version (-1 = not computed). */
  int32_t *tris;                     /* surface triangles */
  int32_t ntris;
  int64_t surface_version;
  int32_t pieces;
  int64_t pieces_version;
  int32_t nodes_seen;                /* state.n when conditions were last carried over */
  struct {
    double cm[3];                    /* centre of mass at the last energy check, m */
    double size;                     /* rest bounding-box diagonal, m */
  } watch;                           /* the blow-up watch (watch.c) */
} cl_body;

/* Create and bind a body; the world assigns the id afterwards. */
cl_status cl_body_new(const cl_world *world, const cl_body_def *def, const cl_mesh *mesh, cl_body **out);
void cl_body_free(cl_body *body);
/* Set the label from the name and id. */
void cl_body_set_label(cl_body *body);
/* Grow the world-owned per-node arrays to the state's node count (after fracture). */
cl_status cl_body_sync_nodes(cl_body *body);
/* Measure into body->units (grown as needed). */
cl_status cl_body_measure(cl_body *body);
/* Surface triangles, recomputed when topology changed. */
cl_status cl_body_surface(cl_body *body);
/* Connected components, recomputed when topology changed. */
cl_status cl_body_pieces(cl_body *body, int32_t *pieces);
/* Piece label (0 .. count-1) per node when labels is not NULL (n entries), and the count: the
 * solver's own connectivity when it has one (ops->pieces), else the components of the cells. */
cl_status cl_body_piece_labels(cl_body *body, int32_t *labels, int32_t *count);
/* Current volume (m^3): signed tet volumes, or the solver's volume op. */
cl_status cl_body_volume(cl_body *body, double *volume);
double cl_body_kinetic_energy(const cl_body *body);

/* ---- internal invariants (validate.c) ------------------------------------------------------ */

/* The phase a check follows. */
typedef enum cl_validate_phase {
  CL_VALIDATE_BIND = 0,     /* the state the solver bound */
  CL_VALIDATE_SOLVE = 1,    /* + the merged constraints and their reactions */
  CL_VALIDATE_MEASURE = 2,  /* + the unit fields: count, finite values */
  CL_VALIDATE_CRITERIA = 3, /* + the events: kinds both sides declared, indices in range */
  CL_VALIDATE_TOPOLOGY = 4
} cl_validate_phase;
/* Check what the phase promises the next (state sizes, cell indices in range, origins, finite
 * positions, velocities, masses, unit fields and constraint targets; event kinds and indices).
 * CL_ERR_STATE naming the body, the phase and the broken invariant. The step calls it after every
 * phase when built with -DCLEAVE_VALIDATE=ON (CL_VALIDATE below); tests call it directly. */
cl_status cl_body_validate(const cl_body *body, cl_validate_phase phase);
#ifdef CLEAVE_VALIDATE
enum { CL_VALIDATE = 1 };
#else
enum { CL_VALIDATE = 0 };
#endif
cl_status cl_body_fill_info(cl_body *body, cl_body_info *info);

/* ---- regions (regions.c) ------------------------------------------------------------------- */

/* Check a region def (not against a body). */
cl_status cl_region_check(const cl_region_def *region);
/* Select nodes by rest position (a tolerance of 1e-9 of the rest bounding-box diagonal on box and
 * slab faces, so a face computed as 0.19999999999999998 is inside "x >= 0.2"). *nodes is malloc'd.
 * No node selected is CL_ERR_INVALID_ARGUMENT naming the region and the body's bounding box. */
cl_status cl_region_select(const cl_region_def *region, const cl_body *body, int32_t **nodes, int32_t *count);
/* The same selection by the positions P (3 per node: state.X, or state.x for the current ones),
 * without the error: no node selected is *count = 0 and *nodes = NULL. */
cl_status cl_region_pick(const cl_region_def *region, const cl_body *body, const double *P, int32_t **nodes,
                         int32_t *count);
/* "sphere of radius 0.1 at (0, 0, 0)", ... for messages. */
void cl_region_describe(const cl_region_def *region, char *buf, size_t size);
/* The bounding box of n points P (3 each); zero for n = 0. */
void cl_node_bounds(const double *P, int32_t n, double lo[3], double hi[3]);

/* ---- boundary conditions (conditions.c) ---------------------------------------------------- */

typedef enum cl_condition_kind {
  CL_CONDITION_CONSTRAIN = 0,    /* fixed or driven: all three components */
  CL_CONDITION_FORCE = 1,        /* a total force spread by mass */
  CL_CONDITION_SUPPORT = 2,      /* some components held (cl_support_def) */
  CL_CONDITION_SURFACE_LOAD = 3, /* traction or pressure on boundary triangles */
  CL_CONDITION_KNIFE = 4         /* a knife (tools.c): holds no node, hands swept triangles to the solver */
} cl_condition_kind;

struct cl_tool;

/* What a new condition is, beside its nodes: the member for its kind. */
typedef struct cl_condition_spec {
  cl_condition_kind kind;
  const cl_motion_def *motion;        /* CONSTRAIN */
  const double *force;                /* FORCE, N */
  const cl_support_def *support;      /* SUPPORT */
  const cl_surface_load_def *load;    /* SURFACE_LOAD */
} cl_condition_spec;

typedef struct cl_condition {
  cl_id id;
  cl_id body;
  cl_condition_kind kind;
  int32_t count, capacity;
  int32_t *nodes;
  double *x0;                  /* 3 per node: position when added (constraints), m */
  cl_motion_def motion;        /* axis normalised */
  double center[3];            /* rotation centre: motion.center, or the centroid of x0 for twist */
  double t_add;                /* world time when added, s */
  double force[3];             /* total force, N (force conditions) */
  cl_support_def support;      /* support conditions: normal normalised */
  double axes[9];              /* support conditions: the held directions (rows), `held` of them */
  int32_t held;
  cl_surface_load_def load;    /* surface loads */
  int32_t ntris;               /* surface loads: boundary triangles loaded (3 node indices each) */
  int32_t *tris;
  double *rest_area;           /* surface loads: 3 per triangle, the rest area vector (outward, m^2) */
  struct cl_tool *tool;        /* knives, brushes and anchors (tools.c; a brush or an anchor is a
                                * constraint whose nodes it takes when it starts); NULL otherwise */
  double reaction[3];          /* force on the body over the last step, N */
  double reaction_acc[3];      /* sum over the substeps of the current step */
} cl_condition;

cl_status cl_motion_check(const cl_motion_def *motion);
cl_status cl_support_check(const cl_support_def *support);
cl_status cl_surface_load_check(const cl_surface_load_def *load);
/* Create a condition over the given nodes (taken over: freed with the condition). A surface load
 * also takes the body's boundary triangles whose nodes are all among `nodes` (none is an error). */
cl_status cl_condition_new(const cl_condition_spec *spec, cl_body *body, int32_t *nodes, int32_t count, double t_add,
                           cl_condition **out);
void cl_condition_free(cl_condition *c);
/* Whether a constraint or support holds during the substep starting at t0 (not yet released). */
int cl_condition_active(const cl_condition *c, double t0);
/* Target position and velocity of the condition's j-th node at time t (constraints and supports; for
 * a support only the held components mean anything). */
void cl_condition_target(const cl_condition *c, int32_t j, double t, double *x, double *v);
/* Add the forces (N) of a force or surface-load condition at time t to f (3 per node of the body's
 * state); `scale` multiplies them (load stepping). Follower pressure uses the current positions. */
void cl_condition_add_forces(const cl_condition *c, const cl_body_state *st, double t, double scale, double *f);
/* Carry the condition over to nodes appended by fracture: node i >= first whose origin is in the
 * condition joins it with the origin's x0. */
cl_status cl_condition_follow_origins(cl_condition *c, const cl_body_state *state, int32_t first);

/* ---- tools (tools.c): knives, brushes, anchors ----------------------------------------------- */

typedef struct cl_tool {
  cl_tool_kind kind;
  int32_t number;              /* 1, 2, ... in the order tools were added to the world: "knife #2" */
  cl_collider_def track;       /* knife, brush: the kinematic motion (kinematic members only) */
  double *path;                /* the copy of track.path */
  double blade[6];             /* knife: end points relative to its position, m */
  double radius;               /* brush, m */
  cl_region_def region;        /* anchor (region.indices points at `indices`) */
  int32_t *indices;
  double t_start;              /* world time it starts: a brush or anchor takes its nodes, s */
  double t_end;                /* world time its motion ends (inf: never, and for an anchor), s */
  double release;              /* brush, anchor: when it lets its nodes go, s after it was added (inf) */
  double grab_center[3];       /* brush: its centre when it took its nodes, m */
  int started, finished;
  int done;                    /* knife: swept for the last time */
  int touched;                 /* knife: crossed an edge of the body's mesh; brush, anchor: took a node */
  int warned;                  /* CL_WARN_NO_EFFECT was given */
  int64_t triangles;           /* knife: swept triangles handed to the solver */
} cl_tool;

/* Free a tool and what it owns; accepts NULL. */
void cl_tool_free(cl_tool *tool);
/* Add a tool (taken over: freed on failure) to body b: a knife condition, or a constraint condition
 * without nodes until the tool starts. Times in the tool are from when it is added; this makes them
 * world times. */
cl_status cl_world_insert_tool(cl_world *world, cl_body *body, cl_tool *tool, cl_id *id);
/* Start every tool whose start time has come by the substep beginning at t0: brushes and anchors
 * take their nodes (current positions). Called before the constraints are merged. */
cl_status cl_world_start_tools(cl_world *world, double t0);
/* The knives of body b at the end of the step [t0, t1]: the swept quads pushed onto b->events as
 * cut_surface events, the touch check, the end of the motion (a knife that ends untouched warns). */
cl_status cl_world_knife_events(cl_world *world, cl_body *body, double t0, double t1);
/* Target position and velocity of a brush's j-th node at time t. */
void cl_tool_target(const cl_condition *c, int32_t j, double t, double *x, double *v);
/* What cl_tool_get_info reports, at world time t. */
void cl_tool_fill_info(const cl_condition *c, double t, cl_tool_info *info);

/* ---- colliders (colliders.c) --------------------------------------------------------------- */

typedef struct cl_collider {
  cl_id id;
  int32_t number;              /* 1, 2, ...: the order the world's colliders were added in, which is
                                * how messages name a collider (ids mean nothing to a user) */
  cl_collider_def def;         /* normal normalised */
  double t_add;                /* world time when added, s; a dynamic collider's def holds its
                                * current state and t_add the time of that state (rigid.c) */
  double impulse[6];           /* dynamic: impulse the nodes gave it over the current substep,
                                * linear (N s) and angular about the centre (N m s) */
  double watch_cm[3];          /* centre at the last energy check, m (watch.c) */
  double *path;                /* kinematic: the copy of def.path (def.path points at it) */
} cl_collider;

cl_status cl_collider_check(const cl_collider_def *def);
/* Kinematic motion, shared by kinematic colliders and the tools that move (knives, brushes): the
 * members center, velocity, start, ramp, duration, path and path_count of a cl_collider_def (the
 * public header documents them), at the time tau (s) after the object was added.
 * cl_kinematic_check: those members finite, times >= 0, ramp <= duration, path times increasing;
 * messages start with `what` ("collider", "knife", ...).
 * cl_kinematic_at: the centre x (m) and its velocity v (m/s) at tau, *speed the fraction of full
 * speed (1 inside a path's segments); returns the time spent moving at full speed (s), the angle
 * of a spinning collider over its angular speed.
 * cl_kinematic_span: when the motion begins and ends (tau, s; end = inf for one that never stops). */
cl_status cl_kinematic_check(const cl_collider_def *def, const char *what);
double cl_kinematic_at(const cl_collider_def *def, double tau, double *x, double *v, double *speed);
void cl_kinematic_span(const cl_collider_def *def, double *begin, double *end);
/* Copy def's path (when it has one) into *copy (malloc'd, owned by the caller) and point def at it;
 * *copy = NULL without a path. */
cl_status cl_kinematic_own_path(cl_collider_def *def, double **copy);
/* Free a collider and what it owns (its path); accepts NULL. */
void cl_collider_free(cl_collider *c);
/* "dynamic box collider #2" for messages. */
const char *cl_collider_label(const cl_collider *c, char *buf, size_t size);
/* CL_ERR_NUMERICAL naming the collider when a pose the step computed is not finite (a dynamic
 * collider pushed beyond what a double holds), else CL_OK. */
cl_status cl_collider_check_pose(const cl_collider *c, const cl_collider_shape *pose, long long step, double t);
/* The collider's pose at world time t (kinematic: centre moves with velocity, orientation turns with
 * the angular velocity about the centre, both from t_add). */
void cl_collider_pose(const cl_collider *c, double t, cl_collider_shape *shape);

/* ---- dynamic rigid colliders (rigid.c, docs/RIGID_BODIES.md) ------------------------------- */

/* Check the dynamic part of a def (called by cl_collider_check). */
cl_status cl_rigid_check(const cl_collider_def *def);
/* Move every dynamic collider's state from t0 to t1 = t0 + h under gravity alone (before the solvers
 * see the poses at t1), and zero its impulse accumulator. */
void cl_rigid_predict(cl_world *world, double h, double t1);
/* Apply the impulses the solvers accumulated over the substep to the velocities. */
void cl_rigid_apply_impulses(cl_world *world);
/* Principal moments of inertia about the centre, body frame: the def's, or those of a uniform solid
 * sphere or box of its mass (kg m^2). */
void cl_rigid_body_inertia(const cl_collider_def *def, double I[3]);
/* y = R diag(s) R^T x: the world-frame inertia for s = I, its inverse for s = 1/I (R row-major,
 * columns the body axes). */
void cl_rigid_apply_inertia(const double R[9], const double s[3], const double x[3], double y[3]);

/* ---- probes (probes.c) --------------------------------------------------------------------- */

typedef struct cl_material_point {
  int32_t tet;     /* containing tet at rest, or -1 */
  double w[4];     /* barycentric weights in that tet */
  int32_t node;    /* nearest node at rest when not in a tet */
} cl_material_point;

typedef struct cl_probe {
  cl_id id;
  cl_probe_def def;
  cl_material_point a, b;
  double contact[7];           /* contact probes: the record of the current step (contract/colliders.h) */
  double center[3];            /* contact probes: the collider's centre at the end of the last step */
} cl_probe;

cl_status cl_probe_new(cl_world *world, const cl_probe_def *def, cl_probe **out);
int32_t cl_probe_value_count(const cl_probe *p);
/* "kinetic energy of body 'bar'" for messages. */
const char *cl_probe_kind_name(const cl_probe *p);
cl_status cl_probe_eval(cl_world *world, const cl_probe *p, double *out);

/* ---- the world (world.c) and its step (step.c) --------------------------------------------- */

struct cl_world {
  cl_world_def def;
  double gravity[3];
  int32_t threads;             /* >= 1 */
  uint32_t tag;
  int64_t steps;
  double time;                 /* s */
  cl_pool bodies, conditions, colliders, probes;
  int32_t colliders_added;     /* numbers colliders for messages (cl_collider.number) */
  int32_t tools_added;         /* numbers tools for messages (cl_tool.number) */
  void *rigid_scratch;         /* rigid contact broad phase (rigid_contact.c): boxes and pairs */
  size_t rigid_scratch_size;
  int64_t *rigid_pairs;
  int64_t rigid_pairs_cap;
  cl_collider_shape *shapes;   /* current collider poses, one per live collider */
  int32_t nshapes, shapes_capacity;
  double *contact_scratch;     /* 7 per shape: what one body's step recorded (contact probes) */
  int32_t *shape_of_slot;      /* per collider slot: its index in shapes this substep, -1 if none */
  int32_t contact_probes;      /* live contact probes (the step records contact only when > 0) */
  cl_world_stats stats;
  char tool_warning[512];      /* the CL_WARN_NO_EFFECT of the current step ("" = none) */
  int stopped;
  char stop_message[1024];
  struct {
    double budget;             /* J: energy the sources can have given (watch.c) */
  } watch;
};

cl_status cl_world_new(const cl_world_def *def, cl_world **out);
void cl_world_free(cl_world *world);
/* Lookups with a message on failure (CL_ERR_STALE_ID / CL_ERR_INVALID_ARGUMENT). */
cl_status cl_world_body(const cl_world *world, cl_id id, cl_body **body);
cl_status cl_world_condition(const cl_world *world, cl_id id, cl_condition **c);
cl_status cl_world_collider(const cl_world *world, cl_id id, cl_collider **c);
cl_status cl_world_probe(const cl_world *world, cl_id id, cl_probe **p);

cl_status cl_world_insert_body(cl_world *world, cl_body *body, cl_id *id);
void cl_world_delete_body(cl_world *world, cl_id id);
/* Add a constraint or force condition over a region of a body; CL_WARN_ALL_FIXED when every node of
 * the body is now constrained. */
cl_status cl_world_insert_condition(cl_world *world, cl_body *body, const cl_region_def *region,
                                    const cl_condition_spec *spec, cl_id *id);
void cl_world_delete_condition(cl_world *world, cl_id id);
/* Grow the body's merged constraint buffers to the total node count of its constraints, so that
 * steps do not allocate (called when conditions are added or carried over to new nodes). */
cl_status cl_world_reserve_constraints(cl_world *world, cl_body *body);
cl_status cl_world_insert_collider(cl_world *world, const cl_collider_def *def, cl_id *id);
void cl_world_delete_collider(cl_world *world, cl_id id);
cl_status cl_world_insert_probe(cl_world *world, const cl_probe_def *def, cl_id *id);

/* The state of a body, for tests and internal tools that set up initial conditions. */
cl_body_state *cl_world_body_state(cl_world *world, cl_id body);

/* ---- the blow-up watch (watch.c, docs/GUARANTEES.md) --------------------------------------- */

/* Energy given to the world from outside the step (a velocity set by the user), J. */
void cl_watch_add_energy(cl_world *world, double joules);
/* A body was added or had its velocities set: its kinetic energy joins the budget. */
void cl_watch_body_added(cl_world *world, cl_body *body);
void cl_watch_collider_added(cl_world *world, cl_collider *collider);
/* After a body's solver substep of length h: the work its drives can have done. */
void cl_watch_drive_work(cl_world *world, const cl_body *body, double h);
/* After a step: CL_ERR_NUMERICAL naming the body when the kinetic energy grew far beyond what the
 * sources can have given (checked every few steps). */
cl_status cl_watch_step(cl_world *world, long long step, double t);

/* Stop the world on the error just recorded: later steps return CL_ERR_STATE with its message. */
cl_status cl_world_stop(cl_world *world, cl_status s);

/* Advance `steps` steps (step.c). */
cl_status cl_world_advance(cl_world *world, int32_t steps);
/* Phases of a step the static solve shares (step.c): the body's external forces at time t into
 * body->f_ext (returns whether it has any); its merged constraints and supports for the substep
 * [t0, t1]; the reactions the solver reported added to its active conditions. */
int cl_world_build_forces(cl_world *world, cl_body *body, double t);
void cl_world_build_constraints(cl_world *world, cl_body *body, double t0, double t1);
void cl_world_accumulate_reactions(cl_world *world, cl_body *body, double t0);
/* Contact probes: before a body's solve every collider of the view records into its scratch
 * (zeroed); after it the scratch of each probed collider, times `scale`, is added to the contact
 * probes of that body (1 in a step; dt in the static solve, whose solver records forces and whose
 * probes read a record over dt). */
void cl_world_contact_records_on(cl_world *world, cl_collider_view *view);
void cl_world_contact_records_off(cl_world *world, const cl_body *body, cl_collider_view *view, double scale);
/* Static equilibrium of every body (static.c). */
cl_status cl_world_static(cl_world *world, const cl_static_def *def, cl_static_report *report);

#endif
