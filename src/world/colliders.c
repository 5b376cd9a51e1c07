/* Colliders (plane, sphere, oriented box) in the world: checks of their definitions and their poses
 * over time, which the step turns into the collider views solvers see. The projection the solvers
 * call lives in the contract layer (contract/colliders.c). */
#include <math.h>
#include <stdio.h>

#include "base/error.h"
#include "base/mat3.h"
#include "world/world.h"

static cl_status check_size(const char *what, int k, double v) {
  if (!(v >= CL_LIMIT_SIZE_MIN && v <= CL_LIMIT_SIZE_MAX)) {
    if (k >= 0)
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s[%d] = %g m is outside the allowed range [%g, %g] m", what, k, v,
                     CL_LIMIT_SIZE_MIN, CL_LIMIT_SIZE_MAX);
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s = %g m is outside the allowed range [%g, %g] m", what, v,
                   CL_LIMIT_SIZE_MIN, CL_LIMIT_SIZE_MAX);
  }
  return CL_OK;
}

cl_status cl_collider_check(const cl_collider_def *d) {
  if (d->kind < CL_COLLIDER_PLANE || d->kind > CL_COLLIDER_BOX)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "collider kind %d is not one of plane (0), sphere (1), box (2)",
                   (int)d->kind);
  /* ranges, so that the pose c + v t and the spin stay finite over any run (world.h) */
  CL_TRY(cl_check_vec3_limit("collider: center", d->center, CL_LIMIT_COORD, "m"));
  CL_TRY(cl_check_vec3_limit("collider: velocity", d->velocity, CL_LIMIT_SPEED, "m/s"));
  CL_TRY(cl_check_vec3_limit("collider: angular_velocity", d->angular_velocity, CL_LIMIT_SPIN, "rad/s"));
  if (!(d->friction >= 0.0) || isinf(d->friction))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "collider: friction = %g must be finite and >= 0", d->friction);
  if (!(d->restitution >= 0.0 && d->restitution <= 1.0))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "collider: restitution = %g is outside [0, 1]", d->restitution);
  CL_TRY(cl_rigid_check(d));
  switch (d->kind) {
    case CL_COLLIDER_PLANE: {
      double n2 = 0.0;
      for (int k = 0; k < 3; ++k) {
        if (!isfinite(d->normal[k]))
          return cl_fail(CL_ERR_INVALID_ARGUMENT, "plane collider: normal[%d] = %g must be finite", k, d->normal[k]);
        n2 += d->normal[k] * d->normal[k];
      }
      if (!(n2 > 0.0))
        return cl_fail(CL_ERR_INVALID_ARGUMENT, "plane collider: the normal (%g, %g, %g) must be non-zero",
                       d->normal[0], d->normal[1], d->normal[2]);
      return CL_OK;
    }
    case CL_COLLIDER_SPHERE:
      return check_size("sphere collider: radius", -1, d->radius);
    case CL_COLLIDER_BOX: {
      for (int k = 0; k < 3; ++k) CL_TRY(check_size("box collider: half_extents", k, d->half_extents[k]));
      const double *R = d->rotation;
      for (int k = 0; k < 9; ++k)
        if (!isfinite(R[k]))
          return cl_fail(CL_ERR_INVALID_ARGUMENT, "box collider: rotation[%d] = %g must be finite", k, R[k]);
      /* R^T R = I and det R = +1 to 1e-6: a rotation, not a scaling or a reflection */
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
          double s = R[a] * R[b] + R[3 + a] * R[3 + b] + R[6 + a] * R[6 + b];
          if (fabs(s - (a == b ? 1.0 : 0.0)) > 1e-6)
            return cl_fail(CL_ERR_INVALID_ARGUMENT,
                           "box collider: rotation is not orthonormal ((R^T R)[%d][%d] = %g)", a, b, s);
        }
      double det = R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) +
                   R[2] * (R[3] * R[7] - R[4] * R[6]);
      if (det < 0.0) return cl_fail(CL_ERR_INVALID_ARGUMENT, "box collider: rotation is a reflection (det = %g)", det);
      return CL_OK;
    }
  }
  return CL_OK;
}

/* The rotation by |w| t about w (identity for w = 0 or t = 0). */
static void rotation(const double *w, double t, double Q[9]) {
  double n = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
  double th = n * t;
  if (!(n > 0.0) || th == 0.0) {
    for (int k = 0; k < 9; ++k) Q[k] = (k % 4 == 0) ? 1.0 : 0.0;
    return;
  }
  const double a[3] = {w[0] / n, w[1] / n, w[2] / n};
  cl_rotation_axis_angle(a, th, Q);
}

void cl_collider_pose(const cl_collider *c, double t, cl_collider_shape *s) {
  const cl_collider_def *d = &c->def;
  double dt = t - c->t_add;
  double Q[9];
  rotation(d->angular_velocity, dt, Q);
  s->kind = d->kind;
  s->radius = d->radius;
  s->friction = d->friction;
  s->restitution = d->restitution;
  s->impulse = NULL; /* step.c points dynamic colliders at their accumulator */
  for (int k = 0; k < 3; ++k) {
    s->center[k] = d->center[k] + d->velocity[k] * dt;
    s->velocity[k] = d->velocity[k];
    s->omega[k] = d->angular_velocity[k];
    s->half[k] = d->half_extents[k];
    s->normal[k] = Q[3 * k] * d->normal[0] + Q[3 * k + 1] * d->normal[1] + Q[3 * k + 2] * d->normal[2];
  }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      s->R[3 * i + j] = Q[3 * i] * d->rotation[j] + Q[3 * i + 1] * d->rotation[3 + j] + Q[3 * i + 2] * d->rotation[6 + j];
}

const char *cl_collider_label(const cl_collider *c, char *buf, size_t size) {
  static const char *kinds[] = {"plane", "sphere", "box"};
  const char *kind = c->def.kind >= 0 && c->def.kind <= 2 ? kinds[c->def.kind] : "collider";
  snprintf(buf, size, "%s %s collider #%d", c->def.dynamic ? "dynamic" : "kinematic", kind, c->number);
  return buf;
}

cl_status cl_collider_check_pose(const cl_collider *c, const cl_collider_shape *s, long long step, double t) {
  /* value * 0 is 0 for a finite value and NaN otherwise: one sum tests every number of the pose */
  double z = 0.0;
  for (int k = 0; k < 3; ++k) z += s->center[k] * 0.0 + s->velocity[k] * 0.0 + s->omega[k] * 0.0;
  for (int k = 0; k < 9; ++k) z += s->R[k] * 0.0;
  if (z == 0.0) return CL_OK;
  char name[64];
  return cl_fail(CL_ERR_NUMERICAL,
                 "%s: its pose is no longer finite at step %lld (t = %g s): centre (%g, %g, %g) m, velocity (%g, %g, "
                 "%g) m/s, angular velocity (%g, %g, %g) rad/s; the world is stopped. %s",
                 cl_collider_label(c, name, sizeof name), step, t, s->center[0], s->center[1], s->center[2],
                 s->velocity[0], s->velocity[1], s->velocity[2], s->omega[0], s->omega[1], s->omega[2],
                 c->def.dynamic ? "A dynamic collider this fast was pushed by far more than its mass can take: give "
                                  "it a larger mass (and inertia), or use a smaller dt or more substeps"
                                : "Its centre + velocity x time overflowed: keep the centre and velocity within "
                                  "their ranges");
}
