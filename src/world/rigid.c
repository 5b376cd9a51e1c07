/* Dynamic (two-way) rigid colliders: spheres and boxes with mass and inertia, free or on a hinge,
 * moved by the world and pushed back by the nodes they push (docs/RIGID_BODIES.md).
 *
 * State: a dynamic collider's internal def copy IS its state (center c, rotation R, velocity v,
 * angular velocity w), valid at time t_add; cl_collider_pose then gives the pose at t_add exactly,
 * so the kinematic code paths (poses, cl_collider_get_center) need no special case.
 *
 * One substep of length h (step.c):
 *   1. predict  (here, before the solvers): gravity only.
 *        free:   c += h v + h^2 g / 2,  v += h g   (exact for constant g)
 *                R <- exp(h [w]x) R,  w = (R I R^T)^-1 L with L = I_w w kept (torque-free)
 *        hinge:  theta' += h a.(r x M g) / I_a,  rotate by h theta' about (p, a)   (symplectic Euler)
 *   2. the solvers project their nodes with cl_collider_project_mass, which adds -m_i dv_i and its
 *      moment about c into collider->impulse (J, Lc): equal and opposite momentum.
 *   3. apply   (here, after the solvers):
 *        free:   v += J / M,  w += I_w^-1 Lc
 *        hinge:  theta' += a.(Lc + r x J) / I_a   (the hinge takes the rest of the impulse)
 * with r = c - p, I_a = a^T I_w a + M (|r|^2 - (r.a)^2) (parallel axis theorem). */
#include <math.h>
#include <string.h>

#include "base/error.h"
#include "base/mat3.h"
#include "world/world.h"

cl_status cl_rigid_check(const cl_collider_def *d) {
  if (d->dynamic != 0 && d->dynamic != 1)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "collider: dynamic = %d must be 0 (kinematic) or 1", (int)d->dynamic);
  if (!d->dynamic) return CL_OK;
  if (d->kind != CL_COLLIDER_SPHERE && d->kind != CL_COLLIDER_BOX)
    return cl_fail(CL_ERR_INVALID_ARGUMENT,
                   "dynamic collider: kind %d cannot be dynamic; only a sphere (1) or a box (2) can (a plane "
                   "has no finite mass)", (int)d->kind);
  /* a tiny mass or inertia turns the nodes' impulses into an overflowing velocity (world.h) */
  if (!(d->mass >= CL_LIMIT_MASS_MIN && d->mass <= CL_LIMIT_MASS_MAX))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "dynamic collider: mass = %g kg is outside the allowed range [%g, %g] kg",
                   d->mass, CL_LIMIT_MASS_MIN, CL_LIMIT_MASS_MAX);
  int zero = 0;
  for (int k = 0; k < 3; ++k) {
    if (d->inertia[k] != 0.0 && !(d->inertia[k] >= CL_LIMIT_INERTIA_MIN && d->inertia[k] <= CL_LIMIT_INERTIA_MAX))
      return cl_fail(CL_ERR_INVALID_ARGUMENT,
                     "dynamic collider: inertia[%d] = %g kg m^2 is outside the allowed range [%g, %g] kg m^2 (all 0 = "
                     "from the shape)", k, d->inertia[k], CL_LIMIT_INERTIA_MIN, CL_LIMIT_INERTIA_MAX);
    zero += d->inertia[k] == 0.0;
  }
  if (zero != 0 && zero != 3)
    return cl_fail(CL_ERR_INVALID_ARGUMENT,
                   "dynamic collider: inertia (%g, %g, %g) kg m^2 must be all positive, or all 0 for a uniform solid",
                   d->inertia[0], d->inertia[1], d->inertia[2]);
  if (d->hinged != 0 && d->hinged != 1)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "dynamic collider: hinged = %d must be 0 or 1", (int)d->hinged);
  if (!d->hinged) return CL_OK;
  double a2 = 0.0;
  for (int k = 0; k < 3; ++k) {
    if (!isfinite(d->hinge_axis[k]))
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "dynamic collider: hinge_axis[%d] = %g must be finite", k,
                     d->hinge_axis[k]);
    a2 += d->hinge_axis[k] * d->hinge_axis[k];
  }
  CL_TRY(cl_check_vec3_limit("dynamic collider: hinge_point", d->hinge_point, CL_LIMIT_COORD, "m"));
  if (!(a2 > 1e-300))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "dynamic collider: hinge_axis (%g, %g, %g) must be non-zero",
                   d->hinge_axis[0], d->hinge_axis[1], d->hinge_axis[2]);
  return CL_OK;
}

/* Principal moments about the centre in the body frame: given, or a uniform solid sphere
 * (2/5 M r^2) or box (M/3 (b^2 + c^2) with half extents a, b, c). */
void cl_rigid_body_inertia(const cl_collider_def *d, double I[3]) {
  if (d->inertia[0] > 0.0) {
    for (int k = 0; k < 3; ++k) I[k] = d->inertia[k];
    return;
  }
  if (d->kind == CL_COLLIDER_SPHERE) {
    I[0] = I[1] = I[2] = 0.4 * d->mass * d->radius * d->radius;
    return;
  }
  const double *h = d->half_extents;
  I[0] = d->mass / 3.0 * (h[1] * h[1] + h[2] * h[2]);
  I[1] = d->mass / 3.0 * (h[0] * h[0] + h[2] * h[2]);
  I[2] = d->mass / 3.0 * (h[0] * h[0] + h[1] * h[1]);
}

/* y = R diag(s) R^T x (world inertia for s = I, its inverse for s = 1/I). */
void cl_rigid_apply_inertia(const double R[9], const double s[3], const double x[3], double y[3]) {
  double q[3];
  for (int k = 0; k < 3; ++k) q[k] = s[k] * (R[k] * x[0] + R[3 + k] * x[1] + R[6 + k] * x[2]);
  for (int i = 0; i < 3; ++i) y[i] = R[3 * i] * q[0] + R[3 * i + 1] * q[1] + R[3 * i + 2] * q[2];
}

static void cross(const double a[3], const double b[3], double c[3]) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* R <- Q R, then re-orthonormalise the columns (Gram-Schmidt) so rounding does not accumulate. */
static void turn(double R[9], const double Q[9]) {
  double N[9];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) N[3 * i + j] = Q[3 * i] * R[j] + Q[3 * i + 1] * R[3 + j] + Q[3 * i + 2] * R[6 + j];
  double e0[3] = {N[0], N[3], N[6]}, e1[3] = {N[1], N[4], N[7]}, e2[3];
  double n0 = sqrt(dot(e0, e0));
  for (int k = 0; k < 3; ++k) e0[k] /= n0;
  double p = dot(e0, e1);
  for (int k = 0; k < 3; ++k) e1[k] -= p * e0[k];
  double n1 = sqrt(dot(e1, e1));
  for (int k = 0; k < 3; ++k) e1[k] /= n1;
  cross(e0, e1, e2);
  for (int k = 0; k < 3; ++k) {
    R[3 * k] = e0[k];
    R[3 * k + 1] = e1[k];
    R[3 * k + 2] = e2[k];
  }
}

/* Unit hinge axis, the lever r = c - p and the moment of inertia about the hinge line. */
static double hinge_frame(const cl_collider_def *d, double a[3], double r[3]) {
  double n = sqrt(dot(d->hinge_axis, d->hinge_axis));
  for (int k = 0; k < 3; ++k) {
    a[k] = d->hinge_axis[k] / n;
    r[k] = d->center[k] - d->hinge_point[k];
  }
  double I[3], Ia[3];
  cl_rigid_body_inertia(d, I);
  cl_rigid_apply_inertia(d->rotation, I, a, Ia);
  double ra = dot(r, a);
  return dot(a, Ia) + d->mass * (dot(r, r) - ra * ra);
}

void cl_rigid_predict(cl_world *w, double h, double t1) {
  for (int32_t i = 0; i < w->colliders.slots; ++i) {
    cl_collider *c = cl_pool_at(&w->colliders, i);
    if (!c || !c->def.dynamic) continue;
    cl_collider_def *d = &c->def;
    memset(c->impulse, 0, sizeof c->impulse);
    const double *g = w->gravity;
    double Q[9];
    if (d->hinged) {
      double a[3], r[3], rg[3], phi[3], rn[3];
      double Ia = hinge_frame(d, a, r);
      double theta_dot = dot(d->angular_velocity, a);
      double Mg[3] = {d->mass * g[0], d->mass * g[1], d->mass * g[2]};
      cross(r, Mg, rg);
      theta_dot += h * dot(a, rg) / Ia;
      for (int k = 0; k < 3; ++k) phi[k] = h * theta_dot * a[k];
      cl_rotation_vector(phi, Q);
      for (int k = 0; k < 3; ++k) rn[k] = Q[3 * k] * r[0] + Q[3 * k + 1] * r[1] + Q[3 * k + 2] * r[2];
      turn(d->rotation, Q);
      for (int k = 0; k < 3; ++k) {
        d->center[k] = d->hinge_point[k] + rn[k];
        d->angular_velocity[k] = theta_dot * a[k];
      }
      cross(d->angular_velocity, rn, d->velocity);
    } else {
      double I[3], Iinv[3], L[3], phi[3];
      cl_rigid_body_inertia(d, I);
      for (int k = 0; k < 3; ++k) Iinv[k] = 1.0 / I[k];
      cl_rigid_apply_inertia(d->rotation, I, d->angular_velocity, L);
      for (int k = 0; k < 3; ++k) {
        d->center[k] += h * d->velocity[k] + 0.5 * h * h * g[k];
        d->velocity[k] += h * g[k];
        phi[k] = h * d->angular_velocity[k];
      }
      cl_rotation_vector(phi, Q);
      turn(d->rotation, Q);
      cl_rigid_apply_inertia(d->rotation, Iinv, L, d->angular_velocity);
    }
    c->t_add = t1;
  }
}

void cl_rigid_apply_impulses(cl_world *w) {
  for (int32_t i = 0; i < w->colliders.slots; ++i) {
    cl_collider *c = cl_pool_at(&w->colliders, i);
    if (!c || !c->def.dynamic) continue;
    cl_collider_def *d = &c->def;
    const double *J = c->impulse, *Lc = c->impulse + 3;
    if (d->hinged) {
      double a[3], r[3], rJ[3];
      double Ia = hinge_frame(d, a, r);
      cross(r, J, rJ);
      double theta_dot = dot(d->angular_velocity, a) + (dot(a, Lc) + dot(a, rJ)) / Ia;
      for (int k = 0; k < 3; ++k) d->angular_velocity[k] = theta_dot * a[k];
      cross(d->angular_velocity, r, d->velocity);
    } else {
      double I[3], Iinv[3], dw[3];
      cl_rigid_body_inertia(d, I);
      for (int k = 0; k < 3; ++k) Iinv[k] = 1.0 / I[k];
      cl_rigid_apply_inertia(d->rotation, Iinv, Lc, dw);
      for (int k = 0; k < 3; ++k) {
        d->velocity[k] += J[k] / d->mass;
        d->angular_velocity[k] += dw[k];
      }
    }
  }
}

/* ---- public getters ------------------------------------------------------------------------ */

static cl_status get_pose(const cl_world *world, cl_id id, const char *fn, const double *out,
                          cl_collider_shape *s) {
  if (!world) return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: world is NULL", fn);
  if (!out) return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: output pointer is NULL", fn);
  cl_collider *c;
  CL_TRY(cl_world_collider(world, id, &c));
  cl_collider_pose(c, world->time, s);
  return CL_OK;
}

cl_status cl_collider_get_velocity(const cl_world *world, cl_id collider, double *velocity) {
  cl_collider_shape s;
  CL_TRY(get_pose(world, collider, "cl_collider_get_velocity", velocity, &s));
  for (int k = 0; k < 3; ++k) velocity[k] = s.velocity[k];
  return CL_OK;
}

cl_status cl_collider_get_angular_velocity(const cl_world *world, cl_id collider, double *omega) {
  cl_collider_shape s;
  CL_TRY(get_pose(world, collider, "cl_collider_get_angular_velocity", omega, &s));
  for (int k = 0; k < 3; ++k) omega[k] = s.omega[k];
  return CL_OK;
}

cl_status cl_collider_get_rotation(const cl_world *world, cl_id collider, double *rotation) {
  cl_collider_shape s;
  CL_TRY(get_pose(world, collider, "cl_collider_get_rotation", rotation, &s));
  for (int k = 0; k < 9; ++k) rotation[k] = s.R[k];
  return CL_OK;
}
