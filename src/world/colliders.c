/* Colliders (plane, sphere, oriented box) in the world: checks of their definitions and their poses
 * over time, which the step turns into the collider views solvers see. The projection the solvers
 * call lives in the contract layer (contract/colliders.c). */
#include <math.h>

#include "base/error.h"
#include "base/mat3.h"
#include "world/world.h"

cl_status cl_collider_check(const cl_collider_def *d) {
  if (d->kind < CL_COLLIDER_PLANE || d->kind > CL_COLLIDER_BOX)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "collider kind %d is not one of plane (0), sphere (1), box (2)",
                   (int)d->kind);
  for (int k = 0; k < 3; ++k) {
    if (!isfinite(d->center[k]))
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "collider: center[%d] = %g m must be finite", k, d->center[k]);
    if (!isfinite(d->velocity[k]))
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "collider: velocity[%d] = %g m/s must be finite", k, d->velocity[k]);
    if (!isfinite(d->angular_velocity[k]))
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "collider: angular_velocity[%d] = %g rad/s must be finite", k,
                     d->angular_velocity[k]);
  }
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
      if (!(d->radius > 0.0) || isinf(d->radius))
        return cl_fail(CL_ERR_INVALID_ARGUMENT, "sphere collider: radius = %g m must be positive and finite",
                       d->radius);
      return CL_OK;
    case CL_COLLIDER_BOX: {
      for (int k = 0; k < 3; ++k)
        if (!(d->half_extents[k] > 0.0) || isinf(d->half_extents[k]))
          return cl_fail(CL_ERR_INVALID_ARGUMENT, "box collider: half_extents[%d] = %g m must be positive and finite",
                         k, d->half_extents[k]);
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
  s->contact = NULL; /* and every collider at the contact record of the body stepping */
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
