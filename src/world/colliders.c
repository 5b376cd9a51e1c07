/* Colliders (plane, sphere, oriented box) in the world: checks of their definitions and their poses
 * over time, which the step turns into the collider views solvers see. The projection the solvers
 * call lives in the contract layer (contract/colliders.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
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

cl_status cl_kinematic_check(const cl_collider_def *d, const char *what) {
  char name[64];
  if (!(d->start >= 0.0) || isinf(d->start))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: start = %g s must be finite and >= 0", what, d->start);
  if (!(d->ramp >= 0.0) || isinf(d->ramp))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: ramp = %g s must be finite and >= 0", what, d->ramp);
  if (!(d->duration > 0.0))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: duration = %g s must be > 0 (inf = never stops)", what, d->duration);
  if (d->ramp > d->duration)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: ramp = %g s is longer than duration = %g s", what, d->ramp,
                   d->duration);
  /* ranges, so that the pose c + v t stays finite over any run (world.h) */
  snprintf(name, sizeof name, "%s: center", what);
  CL_TRY(cl_check_vec3_limit(name, d->center, CL_LIMIT_COORD, "m"));
  snprintf(name, sizeof name, "%s: velocity", what);
  CL_TRY(cl_check_vec3_limit(name, d->velocity, CL_LIMIT_SPEED, "m/s"));
  if (d->path_count < 0 || (d->path_count > 0 && !d->path))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: path_count = %d needs a path of 4 doubles per row", what,
                   (int)d->path_count);
  if (d->path_count == 0) return CL_OK;
  if (d->dynamic)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: a dynamic collider cannot follow a path (the world moves it)", what);
  for (int32_t r = 0; r < d->path_count; ++r) {
    const double *row = d->path + 4 * r;
    for (int k = 0; k < 4; ++k)
      if (!isfinite(row[k]))
        return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s path: row %d has a non-finite value (%g)", what, (int)r + 1,
                       row[k]);
    snprintf(name, sizeof name, "%s path: position", what);
    cl_status st = cl_check_vec3_limit(name, row + 1, CL_LIMIT_COORD, "m");
    if (st < 0) return cl_fail_context(st, "row %d: ", (int)r + 1);
    if (row[0] < 0.0)
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s path: row %d: time %g s is negative", what, (int)r + 1, row[0]);
    if (r > 0 && !(row[0] > row[-4]))
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s path: row %d: time %g s does not come after %g s (times must "
                     "increase)", what, (int)r + 1, row[0], row[-4]);
  }
  return CL_OK;
}

cl_status cl_collider_check(const cl_collider_def *d) {
  if (d->kind < CL_COLLIDER_PLANE || d->kind > CL_COLLIDER_BOX)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "collider kind %d is not one of plane (0), sphere (1), box (2)",
                   (int)d->kind);
  /* the centre, velocity and path (cl_kinematic_check) and the spin within ranges, so that the pose
   * c + v t and the spin stay finite over any run (world.h) */
  CL_TRY(cl_kinematic_check(d, "collider"));
  CL_TRY(cl_check_vec3_limit("collider: angular_velocity", d->angular_velocity, CL_LIMIT_SPIN, "rad/s"));
  if (!(d->friction >= 0.0) || isinf(d->friction)) {
    static const char *const kinds[3] = {"plane", "sphere", "box"};
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s collider: friction = %g must be finite and >= 0 (a Coulomb coefficient)",
                   kinds[d->kind], d->friction);
  }
  if (!(d->restitution >= 0.0 && d->restitution <= 1.0))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "collider: restitution = %g is outside [0, 1]", d->restitution);
  if (!(d->momentum_scale >= 0.0) || isinf(d->momentum_scale))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "collider: momentum_scale = %g must be finite and >= 0",
                   d->momentum_scale);
  if (d->dynamic && d->momentum_scale != 0.0)
    return cl_fail(CL_ERR_INVALID_ARGUMENT,
                   "collider: momentum_scale = %g needs a kinematic collider (a dynamic one would have to take "
                   "the momentum back)", d->momentum_scale);
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

/* Where a kinematic collider is at time tau after it was added: *dist the distance its centre moved
 * along `velocity` in units of velocity (seconds at full speed), *speed the fraction of full speed
 * now (start, ramp, duration), or the path's point and slope. */
static void motion_at(const cl_collider_def *d, double tau, double *dist, double *speed) {
  const double u = tau - d->start, D = d->duration, r = d->ramp;
  if (u <= 0.0) {
    *dist = *speed = 0.0;
    return;
  }
  /* speed s(u) = min(u / r, 1) while u < D, 0 after; dist = integral of s */
  const double ue = u < D ? u : D;
  if (r > 0.0 && ue < r) {
    *dist = 0.5 * ue * ue / r;
    *speed = u < D ? ue / r : 0.0;
  } else {
    *dist = (r > 0.0 ? 0.5 * r : 0.0) + (ue - r);
    *speed = u < D ? 1.0 : 0.0;
  }
}

/* The path's centre and velocity at time tau (piecewise linear, held outside its times); returns
 * whether it is moving (inside a segment). */
static int path_at(const cl_collider_def *d, double tau, double *x, double *v) {
  const double *p = d->path;
  const int32_t n = d->path_count;
  v[0] = v[1] = v[2] = 0.0;
  if (tau <= p[0] || n == 1) {
    for (int k = 0; k < 3; ++k) x[k] = p[1 + k];
    return 0;
  }
  if (tau >= p[4 * (n - 1)]) {
    for (int k = 0; k < 3; ++k) x[k] = p[4 * (n - 1) + 1 + k];
    return 0;
  }
  int32_t r = 1;
  while (p[4 * r] < tau) ++r;
  const double *a = p + 4 * (r - 1), *b = p + 4 * r;
  const double h = b[0] - a[0], f = (tau - a[0]) / h;
  for (int k = 0; k < 3; ++k) {
    x[k] = a[1 + k] + f * (b[1 + k] - a[1 + k]);
    v[k] = (b[1 + k] - a[1 + k]) / h;
  }
  return 1;
}

double cl_kinematic_at(const cl_collider_def *d, double tau, double *x, double *v, double *speed) {
  double dist = 0.0;
  if (d->path_count > 0) {
    *speed = path_at(d, tau, x, v);
    /* turning happens only while it moves: the time spent inside the path's segments */
    const double t0 = d->path[0], t1 = d->path[4 * (d->path_count - 1)];
    return tau <= t0 ? 0.0 : (tau >= t1 ? t1 - t0 : tau - t0);
  }
  motion_at(d, tau, &dist, speed);
  for (int k = 0; k < 3; ++k) {
    x[k] = d->center[k] + d->velocity[k] * dist;
    v[k] = d->velocity[k] * *speed;
  }
  return dist;
}

cl_status cl_kinematic_own_path(cl_collider_def *d, double **copy) {
  *copy = NULL;
  if (d->path_count <= 0) return CL_OK;
  *copy = cl_malloc(sizeof(double) * 4 * (size_t)d->path_count, "path");
  if (!*copy) return CL_ERR_OUT_OF_MEMORY;
  memcpy(*copy, d->path, sizeof(double) * 4 * (size_t)d->path_count);
  d->path = *copy;
  return CL_OK;
}

void cl_kinematic_span(const cl_collider_def *d, double *begin, double *end) {
  if (d->path_count > 0) {
    *begin = d->path[0];
    *end = d->path[4 * (d->path_count - 1)];
    return;
  }
  *begin = d->start;
  *end = d->start + d->duration;
}

void cl_collider_pose(const cl_collider *c, double t, cl_collider_shape *s) {
  const cl_collider_def *d = &c->def;
  double tau = t - c->t_add, dist = tau, speed = 1.0, xc[3], vc[3];
  if (d->dynamic) {
    /* a dynamic collider's def is its state at t_add (rigid.c): constant velocity until then */
    for (int k = 0; k < 3; ++k) {
      xc[k] = d->center[k] + d->velocity[k] * tau;
      vc[k] = d->velocity[k];
    }
  } else {
    dist = cl_kinematic_at(d, tau, xc, vc, &speed);
  }
  double Q[9];
  rotation(d->angular_velocity, dist, Q);
  s->kind = d->kind;
  s->radius = d->radius;
  s->friction = d->friction;
  s->restitution = d->restitution;
  s->momentum_scale = d->momentum_scale;
  s->impulse = NULL; /* step.c points dynamic colliders at their accumulator */
  s->contact = NULL; /* and every collider at the contact record of the body stepping */
  for (int k = 0; k < 3; ++k) {
    s->center[k] = xc[k];
    s->velocity[k] = vc[k];
    s->omega[k] = d->angular_velocity[k] * speed;
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
