/* The collider projection every solver calls to keep its nodes or particles out of colliders
 * (contract/colliders.h): penetration tests of planes, spheres and oriented boxes, the velocity
 * response with restitution and Coulomb friction, the reaction on dynamic colliders. */
#include <math.h>

#include "contract/colliders.h"

/* Penetration test: if x is inside the shape, return 1 with the projection point p on its surface
 * and the outward unit normal n there. Every test is written so that a NaN (a point or a pose that
 * overflowed) means "no contact": a NaN compares false, so each test asks for the contact case. */
int cl_collider_penetration(const cl_collider_shape *s, const double *x, double *p, double *n) {
  double d[3] = {x[0] - s->center[0], x[1] - s->center[1], x[2] - s->center[2]};
  switch (s->kind) {
    case CL_COLLIDER_PLANE: {
      double phi = d[0] * s->normal[0] + d[1] * s->normal[1] + d[2] * s->normal[2];
      if (!(phi < 0.0)) return 0;
      for (int k = 0; k < 3; ++k) {
        n[k] = s->normal[k];
        p[k] = x[k] - phi * n[k];
      }
      return 1;
    }
    case CL_COLLIDER_SPHERE: {
      const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      /* most points are well outside: decided without the root (a margin far above its rounding,
       * so the points it rejects are exactly those the test below would) */
      if (!(r2 <= s->radius * s->radius * (1.0 + 1e-9))) return 0;
      double r = sqrt(r2);
      if (r >= s->radius) return 0;
      if (r > 0.0) {
        for (int k = 0; k < 3; ++k) n[k] = d[k] / r;
      } else { /* the exact centre has no nearest direction: leave upwards (+y) */
        n[0] = 0.0;
        n[1] = 1.0;
        n[2] = 0.0;
      }
      for (int k = 0; k < 3; ++k) p[k] = s->center[k] + s->radius * n[k];
      return 1;
    }
    case CL_COLLIDER_BOX: {
      /* local coordinates q = R^T d; leave through the face with the least penetration */
      double q[3];
      for (int k = 0; k < 3; ++k) q[k] = s->R[k] * d[0] + s->R[3 + k] * d[1] + s->R[6 + k] * d[2];
      int axis = -1;
      double best = INFINITY;
      for (int k = 0; k < 3; ++k) {
        double depth = s->half[k] - fabs(q[k]);
        if (!(depth > 0.0)) return 0; /* so axis is set below */
        if (depth < best) {
          best = depth;
          axis = k;
        }
      }
      double sign = q[axis] >= 0.0 ? 1.0 : -1.0;
      q[axis] = sign * s->half[axis];
      for (int k = 0; k < 3; ++k) {
        n[k] = sign * s->R[3 * k + axis];
        p[k] = s->center[k] + s->R[3 * k] * q[0] + s->R[3 * k + 1] * q[1] + s->R[3 * k + 2] * q[2];
      }
      return 1;
    }
  }
  return 0;
}

void cl_collider_surface_velocity(const cl_collider_shape *s, const double *p, double *v) {
  const double r[3] = {p[0] - s->center[0], p[1] - s->center[1], p[2] - s->center[2]};
  v[0] = s->velocity[0] + s->omega[1] * r[2] - s->omega[2] * r[1];
  v[1] = s->velocity[1] + s->omega[2] * r[0] - s->omega[0] * r[2];
  v[2] = s->velocity[2] + s->omega[0] * r[1] - s->omega[1] * r[0];
}

/* Add impulse I at point p to the shape's contact record (atomic adds when `atomic`). */
static void record(const cl_collider_shape *s, const double *p, const double *I, int atomic) {
  const double w = sqrt(I[0] * I[0] + I[1] * I[1] + I[2] * I[2]);
  const double add[7] = {I[0], I[1], I[2], w * p[0], w * p[1], w * p[2], w};
  for (int k = 0; k < 7; ++k) {
    if (atomic) {
#ifdef _OPENMP
#pragma omp atomic
#endif
      s->contact[k] += add[k];
    } else {
      s->contact[k] += add[k];
    }
  }
}

void cl_collider_record(const cl_collider_shape *s, const double *p, const double *I) {
  if (s->contact) record(s, p, I, 0);
}

int cl_collider_project(const cl_collider_view *view, double *x, double *v) {
  return cl_collider_project_mass(view, x, v, 0.0);
}

/* Add the reaction of a node's momentum change dp (N s) at contact point p to a dynamic collider:
 * -dp and -(p - c) x dp. Atomic: shape matching projects its particles in an OpenMP loop. */
static void give_back(const cl_collider_shape *s, const double *p, const double *dp) {
  double r[3] = {p[0] - s->center[0], p[1] - s->center[1], p[2] - s->center[2]};
  double J[6] = {-dp[0], -dp[1], -dp[2], -(r[1] * dp[2] - r[2] * dp[1]), -(r[2] * dp[0] - r[0] * dp[2]),
                 -(r[0] * dp[1] - r[1] * dp[0])};
  for (int k = 0; k < 6; ++k) {
#ifdef _OPENMP
#pragma omp atomic
#endif
    s->impulse[k] += J[k];
  }
}

int cl_collider_project_mass(const cl_collider_view *view, double *x, double *v, double mass) {
  int touched = 0;
  if (!view) return 0;
  for (int32_t c = 0; c < view->count; ++c) {
    const cl_collider_shape *s = &view->shapes[c];
    double p[3], n[3];
    if (!cl_collider_penetration(s, x, p, n)) continue;
    ++touched;
    for (int k = 0; k < 3; ++k) x[k] = p[k];
    double vs[3];
    cl_collider_surface_velocity(s, p, vs);
    if (s->momentum_scale > 0.0) {
      /* the authors' projectile (projectile.cpp of strainLimitingForClusteredShapeMatching): the
       * push to the surface leaves v alone, and v gains momentumScale x the projectile's velocity */
      double dp[3];
      for (int k = 0; k < 3; ++k) {
        dp[k] = mass * s->momentum_scale * vs[k];
        v[k] += s->momentum_scale * vs[k];
      }
      if (s->contact && mass > 0.0) record(s, p, dp, 1);
      continue;
    }
    double vr[3] = {v[0] - vs[0], v[1] - vs[1], v[2] - vs[2]};
    double vn = vr[0] * n[0] + vr[1] * n[1] + vr[2] * n[2];
    if (vn >= 0.0) continue; /* already separating: position fix only */
    /* normal: vn -> -e vn, a change dvn = (1 + e)|vn|; tangential: Coulomb, |vt| shrinks by
     * mu dvn and stops at zero (static friction) */
    double dvn = -(1.0 + s->restitution) * vn;
    double vt[3] = {vr[0] - vn * n[0], vr[1] - vn * n[1], vr[2] - vn * n[2]};
    double vtn = sqrt(vt[0] * vt[0] + vt[1] * vt[1] + vt[2] * vt[2]);
    double keep = vtn > 0.0 ? fmax(0.0, 1.0 - s->friction * dvn / vtn) : 0.0;
    double v0[3] = {v[0], v[1], v[2]};
    for (int k = 0; k < 3; ++k) v[k] = vs[k] + keep * vt[k] - s->restitution * vn * n[k];
    if ((s->impulse || s->contact) && mass > 0.0) {
      double dp[3] = {mass * (v[0] - v0[0]), mass * (v[1] - v0[1]), mass * (v[2] - v0[2])};
      if (s->impulse) give_back(s, p, dp);
      if (s->contact) record(s, p, dp, 1);
    }
  }
  return touched;
}

int cl_collider_view_box(const cl_collider_view *view, double lo[3], double hi[3]) {
  if (!view || view->count <= 0) return 0;
  for (int k = 0; k < 3; ++k) lo[k] = INFINITY, hi[k] = -INFINITY;
  for (int32_t c = 0; c < view->count; ++c) {
    const cl_collider_shape *s = &view->shapes[c];
    double e[3];
    switch (s->kind) {
      case CL_COLLIDER_SPHERE:
        e[0] = e[1] = e[2] = s->radius;
        break;
      case CL_COLLIDER_BOX: /* the box's axes are R's columns: half-width along world axis k */
        for (int k = 0; k < 3; ++k)
          e[k] = fabs(s->R[3 * k]) * s->half[0] + fabs(s->R[3 * k + 1]) * s->half[1] + fabs(s->R[3 * k + 2]) * s->half[2];
        break;
      default:
        return 0;
    }
    for (int k = 0; k < 3; ++k) {
      /* a relative and an absolute margin, both far above the rounding of penetration() */
      const double m = 1e-9 * e[k] + 1e-12 * (fabs(s->center[k]) + e[k]);
      const double a = s->center[k] - e[k] - m, b = s->center[k] + e[k] + m;
      if (!(a <= b)) return 0; /* NaN */
      lo[k] = a < lo[k] ? a : lo[k];
      hi[k] = b > hi[k] ? b : hi[k];
    }
  }
  return 1;
}
