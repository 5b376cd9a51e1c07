/* The world: bodies (a mesh or particle set, a material, a solver, optionally a fracture
 * criterion), boundary conditions, colliders and probes, advanced by a fixed step pipeline:
 *   external forces and colliders -> solver step -> measure -> evaluate criteria ->
 *   apply topology changes -> notify solver -> probes and statistics.
 * Ids are uint32_t handles with a generation (0 = none); a stale id gives CL_ERR_STALE_ID. */
#ifndef CLEAVE_WORLD_H
#define CLEAVE_WORLD_H

#ifndef CL_FFI_CDEF
#include "cleave/status.h"
#include "cleave/mesh.h"
#ifdef __cplusplus
extern "C" {
#endif
#endif

typedef struct cl_world cl_world;
typedef uint32_t cl_id;

/* ---- parameters: every solver and criterion publishes a table of these ---------------------- */

/* What a parameter's value means. The value is a double (C callers give numbers) except for text
 * parameters; the kind tells a front end how to present it: Lua takes a boolean as true/false and a
 * choice by one of its names, and hands C the number. */
typedef enum cl_param_kind {
  CL_PARAM_NUMBER = 0,  /* a real number in [min, max] */
  CL_PARAM_INTEGER = 1, /* an integer in [min, max]: a count, a cap */
  CL_PARAM_BOOLEAN = 2, /* 0 = false, 1 = true (min 0, max 1) */
  CL_PARAM_CHOICE = 3,  /* the index 0 .. n-1 of one of the n names in `choices` (min 0, max n-1) */
  CL_PARAM_TEXT = 4     /* a string (cl_param.text; default cl_param_info.text), at most
                         * CL_PARAM_TEXT_MAX characters of printable ASCII, e.g. a multigrid grid spec
                         * "50/1000/all"; its meaning is checked by the solver or criterion at bind */
} cl_param_kind;
enum { CL_PARAM_TEXT_MAX = 255 };

/* Tables of these are written with designated initialisers ({.name = ..., .kind = ...}), so a new
 * member never breaks them; a member left out is 0 / NULL. */
typedef struct cl_param_info {
  const char *name;    /* e.g. "alpha" */
  const char *unit;    /* e.g. "Pa", "1" for dimensionless */
  const char *help;    /* one line */
  double value;        /* default (for a choice: its index) */
  double min, max;     /* allowed closed range */
  int32_t kind;        /* a cl_param_kind: every kind but CL_PARAM_NUMBER takes integers only */
  const char *choices; /* CL_PARAM_CHOICE: the names of the values 0, 1, ... in order, separated by
                          '|', e.g. "pcg|cholmod" (identifiers); NULL for the other kinds */
  const char *text;    /* CL_PARAM_TEXT: the default; NULL for the other kinds */
} cl_param_info;

typedef struct cl_param {
  const char *name;
  double value;        /* every kind but text */
  const char *text;    /* a text parameter's value (NULL for the other kinds) */
} cl_param;

typedef enum cl_registry { CL_REGISTRY_SOLVER = 0, CL_REGISTRY_CRITERION = 1 } cl_registry;
/* Number of registered solvers or criteria, and the name of the i-th. */
int32_t cl_registry_count(cl_registry which);
const char *cl_registry_name(cl_registry which, int32_t i);
/* The parameter table of a solver or criterion: *table points to static storage. */
cl_status cl_param_table(cl_registry which, const char *name, const cl_param_info **table,
                         int32_t *count);

/* What a registered solver does with a body, for front ends that say so to their users. */
typedef struct cl_solver_info {
  int32_t uses_moduli;  /* 1: the material's young and poisson set the stiffness of its dynamics; 0: they
                         * feed only its stress and energy read-outs (shape_matching: its stiffness
                         * comes from alpha and the iterations) */
  int32_t static_solve; /* 1: cl_world_solve_static can solve its bodies */
} cl_solver_info;
cl_status cl_solver_get_info(const char *name, cl_solver_info *info);

/* ---- world ---------------------------------------------------------------------------------- */

typedef struct cl_world_def {
  double dt;            /* s; time step, > 0 */
  double gravity[3];    /* m/s^2 */
  int32_t substeps;     /* solver steps per cl_world_step call's step, >= 1 */
  int32_t threads;      /* OpenMP threads, 0 = all cores */
  uint64_t seed;        /* for anything random (sampling, clustering) */
  int32_t internal;     /* set by cl_world_def_default; catches a def nobody initialised */
} cl_world_def;
void cl_world_def_default(cl_world_def *def);
cl_status cl_world_create(const cl_world_def *def, cl_world **out);
void cl_world_destroy(cl_world *world);
cl_status cl_world_set_gravity(cl_world *world, const double *g);

/* ---- bodies --------------------------------------------------------------------------------- */

/* The same fields mean the same in every solver; docs/LUA_API.md ("Plasticity") has the table of
 * what each solver measures them against. */
typedef struct cl_material_def {
  double density;          /* kg/m^3, > 0 */
  double young;            /* Young's modulus, Pa, > 0 */
  double poisson;          /* Poisson's ratio, in [0, 0.5) */
  double plastic_yield;    /* yield threshold on the deviatoric elastic strain (a strain, 0 = yields at
                              once); < 0 disables plasticity */
  double plastic_flow;     /* flow rate k, 1/s, >= 0: each step of dt flows the fraction k dt of the
                              strain beyond the yield (capped when k dt >= 1); 0 = no flow */
  double plastic_hardening;/* work hardening K (1): the yield grows by K x the solver's hardening variable */
  double plastic_max;      /* cap on the plastic strain (thesis "max"), <= 0 for none */
} cl_material_def;

typedef struct cl_body_def {
  const char *name;          /* for messages; may be NULL */
  const char *solver;        /* registered solver name, e.g. "corotational" */
  cl_material_def material;
  const cl_param *params;    /* solver parameters by name (checked against its table) */
  int32_t param_count;
  const char *criterion;     /* fracture criterion name, NULL or "" for none */
  const cl_param *criterion_params;
  int32_t criterion_param_count;
  int32_t internal;          /* set by cl_body_def_default */
} cl_body_def;
void cl_body_def_default(cl_body_def *def);
/* Add a body built from `mesh` (copied; tets, or a point set, or a closed surface the solver
 * samples). The solver binds (rest-state precomputation) here, so parameter errors surface now. */
cl_status cl_world_add_body(cl_world *world, const cl_body_def *def, const cl_mesh *mesh,
                            cl_id *body);
cl_status cl_world_remove_body(cl_world *world, cl_id body);

typedef struct cl_body_info {
  int32_t nodes;       /* simulation nodes or particles (grows with fracture) */
  int32_t units;       /* integration units: tets or clusters */
  int32_t surface_triangles;
  int32_t pieces;      /* connected components */
  double mass;         /* kg */
} cl_body_info;
cl_status cl_body_get_info(const cl_world *world, cl_id body, cl_body_info *info);

/* One statistic of a body's solver: a figure the solver chose or measured that the body info does
 * not carry, e.g. shape matching's "clusters" and "cluster_radius" (the values clustering actually
 * used when the parameters said "automatic") or the corotational solver's "cg_iterations". Names
 * are identifiers; name, unit and help are static strings owned by the library. */
typedef struct cl_body_stat {
  const char *name;    /* e.g. "cluster_radius" */
  const char *unit;    /* e.g. "m", "m^3", "1"; "" for counts */
  const char *help;    /* one line */
  double value;
} cl_body_stat;
/* The body's solver statistics: fills out[0 .. min(*count, capacity)) and sets *count to the number
 * the solver reports (0 for a solver without statistics). out may be NULL when capacity is 0, to
 * ask for the count. The order of names is fixed per solver. */
cl_status cl_body_copy_stats(const cl_world *world, cl_id body, cl_body_stat *out, int32_t capacity,
                             int32_t *count);
/* One statistic by name; CL_ERR_NOT_FOUND lists the names this body's solver reports. */
cl_status cl_body_get_stat(const cl_world *world, cl_id body, const char *name, double *value);
/* Copy current positions / velocities (3 doubles per node), or rest positions. */
cl_status cl_body_copy_positions(const cl_world *world, cl_id body, double *xyz, int64_t capacity);
cl_status cl_body_copy_velocities(const cl_world *world, cl_id body, double *v, int64_t capacity);
cl_status cl_body_copy_rest_positions(const cl_world *world, cl_id body, double *xyz, int64_t capacity);
/* The piece of every node (capacity >= nodes int32 labels, 0..pieces-1 in order of first
 * appearance; nodes joined by the body's cells or bonds share a piece, a node in none is its own;
 * a solver with a connectivity of its own decides: graph_fem's unbroken edges): the labels the
 * piece count of cl_body_get_info comes from, to colour pictures or locate cracks by piece. */
cl_status cl_body_copy_piece_labels(const cl_world *world, cl_id body, int32_t *labels, int64_t capacity);
/* Set every node's velocity (3 doubles per node, count = 3 * nodes): initial conditions, a throw,
 * a restart. Takes effect at the next step; nodes held by a condition keep following it. A value
 * that is not finite is refused naming the node. */
cl_status cl_body_set_velocities(cl_world *world, cl_id body, const double *v, int64_t count);
/* Set a rigid velocity field v_i = linear + angular x (x_i - c), c = the body's centre of mass now
 * (linear in m/s, angular in rad/s, 3 doubles each; angular may be NULL for a translation). */
cl_status cl_body_set_rigid_velocity(cl_world *world, cl_id body, const double *linear, const double *angular);
/* Current surface triangles (3 node indices each) for output and snapshots. */
cl_status cl_body_copy_surface(const cl_world *world, cl_id body, int32_t *tris, int64_t capacity);

/* The one per-unit layout every solver fills (row-major 3x3 matrices), so criteria and probes do
 * not depend on the solver. */
typedef enum cl_unit_field {
  CL_UNIT_DEFORMATION_GRADIENT = 0, /* F, 9 per unit */
  CL_UNIT_STRESS = 1,               /* Cauchy stress, Pa, 9 per unit */
  CL_UNIT_PLASTIC_STRAIN = 2,       /* plastic deformation / strain, 9 per unit */
  CL_UNIT_CENTER = 3,               /* current centre, 3 per unit */
  CL_UNIT_DAMAGE = 4                /* damage in [0, 1], 1 per unit (0 for solvers without damage) */
} cl_unit_field;
cl_status cl_body_copy_unit_field(const cl_world *world, cl_id body, cl_unit_field field,
                                  double *out, int64_t capacity);
/* Write the body's current state: .vtu (tets or points, with displacement, velocity, stress) or
 * .obj / .off (the current surface, with the vertices it uses only). */
cl_status cl_body_write(const cl_world *world, cl_id body, const char *path);

/* ---- regions and boundary conditions ------------------------------------------------------- */

typedef enum cl_region_kind {
  CL_REGION_ALL = 0,
  CL_REGION_SLAB = 1,    /* lo <= x[axis] <= hi */
  CL_REGION_BOX = 2,     /* lo <= x <= hi componentwise */
  CL_REGION_SPHERE = 3,  /* |x - center| <= radius */
  CL_REGION_INDICES = 4  /* an explicit list of node indices */
} cl_region_kind;

/* Regions select nodes by their rest positions when the condition is added. */
typedef struct cl_region_def {
  cl_region_kind kind;
  int32_t axis;            /* slab: 0 = x, 1 = y, 2 = z */
  double lo[3], hi[3];     /* slab: lo[0]/hi[0] bound the coordinate; box: corners (m) */
  double center[3];        /* sphere centre, m */
  double radius;           /* sphere radius, m */
  const int32_t *indices;  /* explicit node indices (copied) */
  int32_t count;
} cl_region_def;
void cl_region_def_default(cl_region_def *def, cl_region_kind kind);

typedef enum cl_motion_kind {
  CL_MOTION_FIXED = 0,     /* held at rest position */
  CL_MOTION_TRANSLATE = 1, /* x(t) = x0 + velocity * t */
  CL_MOTION_ROTATE = 2,    /* rigid rotation at `rate` about the line (center, axis) */
  CL_MOTION_TWIST = 3      /* rotation at `rate` about `axis` through the region's centroid */
} cl_motion_kind;

typedef struct cl_motion_def {
  cl_motion_kind kind;
  double velocity[3];      /* m/s, translate */
  double axis[3];          /* rotate/twist axis (normalised internally, must be non-zero) */
  double center[3];        /* m, a point on the rotate axis */
  double rate;             /* rad/s */
  double start;            /* s; motion begins (region held before) */
  double duration;         /* s; motion stops after this and the region is held; inf = never */
  double release;          /* s; the region is let go at this time; inf = never */
} cl_motion_def;
void cl_motion_def_default(cl_motion_def *def, cl_motion_kind kind);

/* Fix or drive the selected nodes of a body. Fixed and driven nodes are constraints, not springs. */
cl_status cl_world_constrain(cl_world *world, cl_id body, const cl_region_def *region,
                             const cl_motion_def *motion, cl_id *condition);
/* Apply a total external force (N) to the region, spread by mass. */
cl_status cl_world_apply_force(cl_world *world, cl_id body, const cl_region_def *region,
                               const double *force, cl_id *condition);

/* Supports: the selected nodes are held in some directions only and free in the others. */
typedef enum cl_support_kind {
  CL_SUPPORT_PLANE = 0, /* each node keeps its component along `normal` and slides in the plane: a
                           roller, a sliding support, a symmetry plane; normal = an axis holds one
                           component of the node */
  CL_SUPPORT_LINE = 1   /* each node keeps its components across `normal` and slides along the line
                           with direction `normal` */
} cl_support_kind;

typedef struct cl_support_def {
  cl_support_kind kind;
  double normal[3];    /* plane normal or line direction, non-zero (normalised internally) */
  double velocity;     /* m/s, plane supports: the plane moves along its normal at this speed
                          (displacement control, e.g. a loading pin); 0 = fixed */
  double start;        /* s; the motion begins (held before) */
  double duration;     /* s; the motion stops after this and the plane is held; inf = never */
  double release;      /* s; the nodes are let go at this time; inf = never */
} cl_support_def;
void cl_support_def_default(cl_support_def *def, cl_support_kind kind);
/* Hold the region's nodes in some directions (a support). Where supports meet on a node their held
 * directions add up (a roller in x and one in y leave the node free in z only); a node fixed or
 * driven by cl_world_constrain is held by that condition alone. */
cl_status cl_world_support(cl_world *world, cl_id body, const cl_region_def *region, const cl_support_def *support,
                           cl_id *condition);

/* Surface loads on the boundary triangles whose three nodes the region selects (tet bodies, or
 * bodies whose solver gives a surface), integrated with area weights (a third of each triangle's
 * force to each of its nodes: the consistent load of linear triangles under a uniform load). */
typedef enum cl_surface_load_kind {
  CL_LOAD_TRACTION = 0, /* a force per unit rest area (a vector) */
  CL_LOAD_PRESSURE = 1  /* a pressure normal to the surface, pushing into the body when positive */
} cl_surface_load_kind;

typedef struct cl_surface_load_def {
  cl_surface_load_kind kind;
  double traction[3];  /* Pa (N/m^2), traction loads */
  double pressure;     /* Pa, pressure loads: > 0 pushes along the inward normal */
  int32_t follow;      /* pressure: 1 = normal and area of the current (deformed) surface, a follower
                          load; 0 = of the rest surface (a dead load) */
  double ramp;         /* s: the load grows linearly from 0 to full over this time after it is added
                          (0 = full at once) */
} cl_surface_load_def;
void cl_surface_load_def_default(cl_surface_load_def *def, cl_surface_load_kind kind);
cl_status cl_world_apply_surface_load(cl_world *world, cl_id body, const cl_region_def *region,
                                      const cl_surface_load_def *load, cl_id *condition);
/* The total force (N, 3) a force or surface-load condition applies now (a surface load over the
 * current surface for a follower pressure). */
cl_status cl_condition_total_force(cl_world *world, cl_id condition, double *force);

cl_status cl_world_remove_condition(cl_world *world, cl_id condition);
/* Number of nodes a condition selected (a region that selects nothing is an error when added). */
cl_status cl_condition_node_count(const cl_world *world, cl_id condition, int32_t *count);

/* ---- colliders ------------------------------------------------------------------------------ */

typedef enum cl_collider_kind {
  CL_COLLIDER_PLANE = 0,  /* half-space below the plane through `center` with outward `normal` */
  CL_COLLIDER_SPHERE = 1,
  CL_COLLIDER_BOX = 2     /* oriented box: center, half extents, rotation (row-major) */
} cl_collider_kind;

typedef struct cl_collider_def {
  cl_collider_kind kind;
  double center[3];        /* m */
  double normal[3];        /* plane outward normal */
  double radius;           /* sphere, m */
  double half_extents[3];  /* box, m */
  double rotation[9];      /* box orientation, row-major */
  double velocity[3];      /* kinematic linear velocity, m/s */
  double angular_velocity[3]; /* kinematic angular velocity about center, rad/s */
  double friction;         /* Coulomb coefficient, >= 0; default 0 (frictionless) */
  double restitution;      /* in [0, 1] */
  /* Kinematic motion in time (from the time the collider is added): it rests until `start`, its
   * speed grows linearly over `ramp` to `velocity` (and `angular_velocity`), it moves for `duration`
   * (counted from start, ramp included) and then stops and holds its pose. Or, with path_count > 0,
   * its centre follows the piecewise-linear path through the rows (t, x, y, z) of `path` (times from
   * when it is added, increasing; held at the first point before and at the last after; copied),
   * turning at angular_velocity while it moves. Not for dynamic colliders. */
  double start;            /* s, >= 0; default 0 */
  double ramp;             /* s, >= 0; default 0 (full speed at once) */
  double duration;         /* s, > 0, inf = never stops; default inf */
  const double *path;      /* 4 path_count doubles, or NULL */
  int32_t path_count;      /* rows of path, 0 = none */
  /* Two-way rigid bodies (docs/RIGID_BODIES.md). With dynamic = 1 the collider (sphere or box) is a
   * rigid body: center, rotation, velocity and angular_velocity are its initial state, the world
   * moves it under gravity, and it takes the opposite of every impulse it gives to nodes. */
  int32_t dynamic;         /* 0 = kinematic (scripted), 1 = dynamic rigid body */
  double mass;             /* kg, > 0 when dynamic */
  double inertia[3];       /* principal moments about the centre along the box axes (body frame),
                            * kg m^2; all 0 = uniform solid of the shape */
  int32_t hinged;          /* 1 = pendulum: turns only about the fixed line (hinge_point, hinge_axis) */
  double hinge_point[3];   /* m, a point of the hinge line (fixed in the world) */
  double hinge_axis[3];    /* hinge direction, non-zero (normalised internally) */
  /* A non-physical scene device, the projectiles of Jones et al. (I3D 2016; their code's
   * `momentumScale`): with momentum_scale = s > 0, a node the collider touches is pushed to its
   * surface and s x the collider's surface velocity is ADDED to the node's velocity, every step it
   * touches, instead of the restitution and friction response (which it replaces). It injects
   * momentum without bound (nothing takes it back), so it is a way to reproduce their scenes, not a
   * contact model. Kinematic colliders only; 0 (default) = ordinary contact. */
  double momentum_scale;   /* 1, >= 0 */
} cl_collider_def;
void cl_collider_def_default(cl_collider_def *def, cl_collider_kind kind);
cl_status cl_world_add_collider(cl_world *world, const cl_collider_def *def, cl_id *collider);
cl_status cl_world_remove_collider(cl_world *world, cl_id collider);
/* Current centre (3 doubles) of a collider. */
cl_status cl_collider_get_center(const cl_world *world, cl_id collider, double *center);
/* Current linear velocity of the centre (m/s), angular velocity (rad/s, world frame) and orientation
 * (9 doubles, row-major, columns = body axes) of a collider, kinematic or dynamic. */
cl_status cl_collider_get_velocity(const cl_world *world, cl_id collider, double *velocity);
cl_status cl_collider_get_angular_velocity(const cl_world *world, cl_id collider, double *omega);
cl_status cl_collider_get_rotation(const cl_world *world, cl_id collider, double *rotation);

/* ---- sculpting tools ------------------------------------------------------------------------ */

/* Scripted tools that act on one body (Mandal, Chaudhuri and Chaudhuri, GRAPP 2025, sec 4: knives,
 * deformation brushes and anchoring tools). Their ids are condition ids: cl_world_remove_condition
 * removes a tool, cl_condition_node_count counts the nodes a brush or anchor holds, a reaction probe
 * on a brush or anchor reads the force it exerts, and removing the body removes its tools. Every
 * time of a tool counts from when it is added, as a collider path's. Knives and brushes move like
 * kinematic colliders: from `center` at `velocity` (rest until `start`, speed up over `ramp`, move
 * for `duration`), or along the piecewise-linear `path` of rows (t, x, y, z) (held at its first
 * point before and at its last after; copied). A tool that does not touch the body (a knife whose
 * swept surface crossed no edge of the body's mesh, on the step of its last sweep; a brush or anchor
 * that found no node when it started) makes that step return CL_WARN_NO_EFFECT, once per tool. */
typedef enum cl_tool_kind {
  CL_TOOL_KNIFE = 0,  /* cuts: a blade segment; every step the quad it swept since one step back (two
                         triangles) goes to the body's solver as cut_surface events */
  CL_TOOL_BRUSH = 1,  /* pushes: a sphere that takes the nodes inside it when it starts moving and
                         moves them with its displacement (a grab brush) */
  CL_TOOL_ANCHOR = 2  /* holds: the nodes of a region, where they are at its start time */
} cl_tool_kind;

typedef struct cl_knife_def {
  double blade[6];         /* the blade's two end points (m), relative to the knife's position; distinct */
  double center[3];        /* m, the knife's position when added (without a path) */
  double velocity[3];      /* m/s */
  double start;            /* s, >= 0 */
  double ramp;             /* s, >= 0 */
  double duration;         /* s, > 0, inf = never stops (such a knife never says it missed) */
  const double *path;      /* 4 path_count doubles (t, x, y, z), or NULL */
  int32_t path_count;      /* rows of path, 0 = none */
  int32_t internal;        /* set by cl_knife_def_default */
} cl_knife_def;
void cl_knife_def_default(cl_knife_def *def);
/* Add a knife cutting `body`. The body's solver must apply cut_surface events (the error names the
 * solvers that do); the knife must move (a velocity or a path through two distinct points). */
cl_status cl_world_add_knife(cl_world *world, cl_id body, const cl_knife_def *def, cl_id *knife);

typedef struct cl_brush_def {
  double center[3];        /* m, the brush's centre when added (without a path) */
  double radius;           /* m, > 0: it takes the nodes within this distance of its centre */
  double velocity[3];      /* m/s */
  double start;            /* s, >= 0 */
  double ramp;             /* s, >= 0 */
  double duration;         /* s, > 0, inf = never stops */
  const double *path;      /* 4 path_count doubles (t, x, y, z), or NULL */
  int32_t path_count;      /* rows of path, 0 = none */
  double release;          /* s, >= when it starts: the nodes are let go then; inf = held at the end pose */
  int32_t internal;        /* set by cl_brush_def_default */
} cl_brush_def;
void cl_brush_def_default(cl_brush_def *def);
/* Add a brush on `body`: when its motion begins (start, or the path's first time) it takes the
 * nodes whose current positions lie within radius of its centre, and from then on moves each by the
 * brush's displacement since then, x_j(t) = x_j(t_0) + c(t) - c(t_0): exact constraints, any solver. */
cl_status cl_world_add_brush(cl_world *world, cl_id body, const cl_brush_def *def, cl_id *brush);

typedef struct cl_anchor_def {
  double start;            /* s, >= 0: the anchor takes the region's nodes at this time */
  double release;          /* s, >= start: it lets them go; inf = never */
  int32_t internal;        /* set by cl_anchor_def_default */
} cl_anchor_def;
void cl_anchor_def_default(cl_anchor_def *def);
/* Add an anchor on `body`: at `start` it takes the nodes the region selects by their current
 * positions (an index region: those nodes) and holds them where they are then; before, they move
 * freely. Any solver. */
cl_status cl_world_add_anchor(cl_world *world, cl_id body, const cl_region_def *region, const cl_anchor_def *def,
                              cl_id *anchor);

typedef struct cl_tool_info {
  int32_t kind;            /* cl_tool_kind */
  int32_t started;         /* 1 once its start time has come (a brush or anchor has taken its nodes) */
  int32_t finished;        /* 1 once its motion has ended (knife, brush) */
  int32_t nodes;           /* brush, anchor: nodes it holds (0 before it starts) */
  int32_t touched;         /* knife: its swept surface has crossed an edge of the body's mesh;
                              brush, anchor: it took at least one node */
  int64_t triangles;       /* knife: swept triangles handed to the solver so far */
  double position[3];      /* knife, brush: the position (centre) now, m */
  double blade[6];         /* knife: the blade's end points now, m */
} cl_tool_info;
cl_status cl_tool_get_info(const cl_world *world, cl_id tool, cl_tool_info *info);

/* ---- probes --------------------------------------------------------------------------------- */

typedef enum cl_probe_kind {
  CL_PROBE_REACTION = 0,      /* force (N, 3) the constraint `condition` exerts on the body */
  CL_PROBE_DISTANCE = 1,      /* distance (m, 1) between two material points a, b (rest positions) */
  CL_PROBE_VOLUME = 2,        /* body volume (m^3, 1) */
  CL_PROBE_KINETIC_ENERGY = 3,/* J, 1 */
  CL_PROBE_ELASTIC_ENERGY = 4,/* J, 1 */
  CL_PROBE_PIECES = 5,        /* connected components (1) */
  CL_PROBE_PHASE_TIME = 6,    /* wall time of the last step per phase (ms, CL_PHASE_COUNT) */
  CL_PROBE_CONTACT = 7        /* force (N, 3) the collider `collider` exerted on the body over the last
                                 step (impulse / dt), and its point of application (m, 3): the contact
                                 points weighted by the size of their impulses; the collider's centre
                                 when they did not touch. After cl_world_solve_static: the contact
                                 force of the equilibrium */
} cl_probe_kind;

typedef enum cl_phase {
  CL_PHASE_FORCES = 0, CL_PHASE_SOLVE = 1, CL_PHASE_MEASURE = 2, CL_PHASE_CRITERIA = 3,
  CL_PHASE_TOPOLOGY = 4, CL_PHASE_PROBES = 5, CL_PHASE_COUNT = 6
} cl_phase;

typedef struct cl_probe_def {
  cl_probe_kind kind;
  cl_id body;
  cl_id condition;         /* reaction probes */
  cl_id collider;          /* contact probes */
  double a[3], b[3];       /* distance probes: material points at rest, m */
} cl_probe_def;
void cl_probe_def_default(cl_probe_def *def, cl_probe_kind kind);
cl_status cl_world_add_probe(cl_world *world, const cl_probe_def *def, cl_id *probe);
/* Number of values a probe yields, and its current values. */
cl_status cl_probe_size(const cl_world *world, cl_id probe, int32_t *count);
cl_status cl_probe_read(const cl_world *world, cl_id probe, double *out, int64_t capacity);

/* ---- stepping ------------------------------------------------------------------------------- */

typedef struct cl_world_stats {
  int64_t steps;           /* steps taken */
  double time;             /* simulated time, s */
  double phase_ms[6];      /* wall time of the last step per cl_phase, ms */
  double step_ms;          /* wall time of the last step, ms */
  int32_t iterations;      /* linear solver iterations of the last step (0 if none) */
  double residual;         /* relative residual of the last solve */
  int32_t fracture_events; /* in the last step */
} cl_world_stats;

/* ---- static equilibrium -------------------------------------------------------------------- */

typedef struct cl_static_def {
  int32_t load_steps;      /* >= 1: gravity, forces, surface loads and the displacements that fixed,
                              driven and supported regions prescribe (from where the nodes are) grow
                              to full in this many equal increments (large deformation); default 1 */
  int32_t max_iterations;  /* Newton iterations per increment, >= 1; default 50 */
  double tolerance;        /* converged when the unbalanced force on the free dofs (with what the
                              contacts' friction cones cannot hold) is at most this
                              times the force scale: the larger of the load and the reactions of
                              the first iteration (what supports, constraints and contacts carry
                              when prescribed displacements or a penetrating collider drive the
                              body), in (0, 1); default 1e-6. A follower pressure is settled to
                              the same relative change */
} cl_static_def;
void cl_static_def_default(cl_static_def *def);

typedef struct cl_static_report {
  int32_t increments;      /* load increments solved */
  int32_t iterations;      /* Newton iterations, summed over increments and bodies */
  double residual;         /* largest final unbalanced force relative to the load */
} cl_static_report;

/* Move every body to static equilibrium under the current loads, gravity, fixed/driven regions (their
 * targets at the current time), supports and colliders (frictional contact, colliders held still),
 * with Newton iterations on the solvers' stiffness, globalised by pseudo-transient continuation (a
 * mass shift that follows the unbalanced force, a step that makes it a hundred times worse undone);
 * a pressure on the current surface is rebuilt at each equilibrium until it settles. Velocities are
 * zero afterwards; reaction probes read the equilibrium reactions and contact probes the
 * equilibrium contact forces. Time does not advance.
 * Errors: a solver without a static solve (names it), a piece of a body whose rigid motions the
 * constraints and supports leave free (names the modes), a non-finite state; CL_WARN_NOT_CONVERGED
 * with the residual when max_iterations did not reach the tolerance. report may be NULL. */
cl_status cl_world_solve_static(cl_world *world, const cl_static_def *def, cl_static_report *report);

/* Advance by `steps` steps of dt. NaN or a failed solve stops the world with CL_ERR_NUMERICAL and
 * a message naming the body, step and cause; later steps return CL_ERR_STATE. A warning (e.g. a
 * linear solve that did not converge) is returned but the world goes on. */
cl_status cl_world_step(cl_world *world, int32_t steps);
cl_status cl_world_get_stats(const cl_world *world, cl_world_stats *stats);

#ifndef CL_FFI_CDEF
#ifdef __cplusplus
}
#endif
#endif
#endif
