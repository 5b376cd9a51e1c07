/* Collider views and the projection every solver calls to keep its nodes out of colliders. Part of
 * the simulation contract (src/contract/): the world fills the views from its colliders
 * (world/colliders.c), solvers only read them and call the projection, so every solver collides
 * alike without knowing the world. */
#ifndef CL_CONTRACT_COLLIDERS_H
#define CL_CONTRACT_COLLIDERS_H

#include <stdint.h>

#include "cleave/world.h"

/* A collider's pose at the end of the current (sub)step, in world coordinates. A kinematic
 * collider's motion is scripted; a dynamic one (impulse != NULL) is moved by the world, which reads
 * back what the nodes gave it through cl_collider_project_mass. Plane: the half-space
 * (x - center) . normal < 0 is solid. Box: local coordinates R^T (x - center) within +-half are
 * solid. */
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
  double momentum_scale;   /* the momentum kick of cl_collider_def (0 = none) */
  /* Dynamic (two-way) colliders: where the impulse the nodes give back to the collider is summed,
   * 6 doubles: linear (N s) and angular about `center` (N m s). NULL for a kinematic collider
   * (docs/RIGID_BODIES.md). cl_collider_project_mass adds to it when it moves a node; a solver that
   * holds contact nodes as constraints of an implicit solve may instead add the held rows' actual
   * reactions itself (the corotational solver does, corotational/step.c). */
  double *impulse;
  /* Where the contact a body makes with this collider is recorded for probes (the world points it at
   * an accumulator before each body's step, NULL when nothing is recorded): cl_collider_record adds
   * to it. 7 doubles: the impulse the collider gave the body (N s, 3), and sum w p (3) and sum w (1)
   * with w the size of each node's impulse and p its contact point, for the point of application. */
  double *contact;
} cl_collider_shape;

typedef struct cl_collider_view {
  int32_t count;
  const cl_collider_shape *shapes;
} cl_collider_view;

/* If x lies inside the shape: 1, with p the nearest point of its surface (where x is pushed to) and n
 * the outward unit normal there; else 0 (also for non-finite x or a non-finite shape). */
int cl_collider_penetration(const cl_collider_shape *shape, const double *x, double *p, double *n);
/* The velocity of the shape's surface at point p: v_c + omega x (p - c). */
void cl_collider_surface_velocity(const cl_collider_shape *shape, const double *p, double *v);
/* Record that the collider gave a node the impulse I (N s) at point p (for contact-force probes;
 * nothing if shape->contact is NULL). Not thread-safe: solvers that project in parallel record
 * through cl_collider_project_mass, which makes the adds atomic. */
void cl_collider_record(const cl_collider_shape *shape, const double *p, const double *I);

/* Push one point out of every collider it penetrates (projection to the nearest surface point) and
 * change its velocity relative to the collider's surface velocity: the normal part is reflected with
 * the restitution if approaching, the tangential part loses mu * (normal velocity change) (Coulomb
 * friction as a velocity-level impulse, cf. Bridson, Fedkiw & Anderson, SIGGRAPH 2002, sec. 7.2).
 * A shape with momentum_scale s > 0 instead adds s x its surface velocity to v (the momentum kick,
 * see cl_collider_def), whether the point approaches or not.
 * x and v are 3 doubles, changed in place. Returns the number of colliders touched. */
int cl_collider_project(const cl_collider_view *view, double *x, double *v);
/* The same for a node of mass m (kg): every dynamic collider touched (shape->impulse != NULL) also
 * receives the opposite of the node's momentum change, -m (v_after - v_before), and its moment
 * about the collider's centre taken at the contact point, so the pair conserves momentum. Safe to
 * call from several OpenMP threads at once (atomic adds). Solvers call this one for every free node
 * or particle after their position update. */
int cl_collider_project_mass(const cl_collider_view *view, double *x, double *v, double m);
/* A box [lo, hi] outside which no point penetrates any collider of the view (the shapes' own
 * boxes, widened by far more than the rounding of the penetration tests), so a solver can skip
 * cl_collider_project* for points outside it without changing any result. Returns 0 (and no box)
 * when the view is empty or holds a plane, which is unbounded. */
int cl_collider_view_box(const cl_collider_view *view, double lo[3], double hi[3]);

#endif
