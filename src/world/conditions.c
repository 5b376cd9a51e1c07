/* Boundary conditions: fixed and driven regions (exact constraints on nodes), supports (some
 * components held: rollers, sliding and symmetry planes), external forces and surface loads
 * (traction, pressure).
 *
 * Motion timing. All times are world times (s). A driven region holds its nodes at the positions x0
 * they had when the condition was added until t0 = max(start, t_add); it then moves for `duration`
 * seconds and is held at its final pose; from `release` on, its nodes are free. With
 * tau = clamp(t - t0, 0, duration) the target of node j is
 *   fixed      x0_j
 *   translate  x0_j + velocity tau
 *   rotate     c + R(axis, rate tau) (x0_j - c), c = motion.center
 *   twist      the same with c = the centroid of the region's x0
 * and its velocity is the time derivative (zero outside (t0, t0 + duration]); R is Rodrigues'
 * rotation. Targets are evaluated from x0 at every step (never accumulated), so a twist has turned by
 * exactly rate * tau up to rounding. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "geom/boundary.h"
#include "world/world.h"

cl_status cl_motion_check(const cl_motion_def *m) {
  if (m->kind < CL_MOTION_FIXED || m->kind > CL_MOTION_TWIST)
    return cl_fail(CL_ERR_INVALID_ARGUMENT,
                   "motion kind %d is not one of fixed (0), translate (1), rotate (2), twist (3)", (int)m->kind);
  /* ranges (world.h): a drive faster than these made the linear solve see Inf ("the matrix has NaN
   * or Inf entries") without saying which key was to blame */
  CL_TRY(cl_check_vec3_limit("motion: velocity", m->velocity, CL_LIMIT_SPEED, "m/s"));
  CL_TRY(cl_check_vec3_limit("motion: center", m->center, CL_LIMIT_COORD, "m"));
  for (int k = 0; k < 3; ++k)
    if (!isfinite(m->axis[k]))
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "motion: axis[%d] = %g must be finite", k, m->axis[k]);
  if (!(fabs(m->rate) <= CL_LIMIT_SPIN))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "motion: rate = %g rad/s is outside the allowed range [-%g, %g] rad/s",
                   m->rate, CL_LIMIT_SPIN, CL_LIMIT_SPIN);
  if (m->kind == CL_MOTION_ROTATE || m->kind == CL_MOTION_TWIST) {
    double n2 = m->axis[0] * m->axis[0] + m->axis[1] * m->axis[1] + m->axis[2] * m->axis[2];
    if (!(n2 > 0.0))
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "motion: the %s axis (%g, %g, %g) must be non-zero",
                     m->kind == CL_MOTION_ROTATE ? "rotate" : "twist", m->axis[0], m->axis[1], m->axis[2]);
  }
  if (!(m->start >= 0.0) || isinf(m->start))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "motion: start = %g s must be finite and >= 0", m->start);
  if (!(m->duration >= 0.0))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "motion: duration = %g s must be >= 0 (inf = never stops)", m->duration);
  if (!(m->release >= 0.0))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "motion: release = %g s must be >= 0 (inf = never)", m->release);
  return CL_OK;
}

cl_status cl_support_check(const cl_support_def *d) {
  if (d->kind != CL_SUPPORT_PLANE && d->kind != CL_SUPPORT_LINE)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "support kind %d is not one of plane (0), line (1)", (int)d->kind);
  double n2 = 0.0;
  for (int k = 0; k < 3; ++k) {
    if (!isfinite(d->normal[k]))
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "support: normal[%d] = %g must be finite", k, d->normal[k]);
    n2 += d->normal[k] * d->normal[k];
  }
  if (!(n2 > 1e-300))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "support: the %s (%g, %g, %g) must be non-zero",
                   d->kind == CL_SUPPORT_PLANE ? "plane normal" : "line direction", d->normal[0], d->normal[1],
                   d->normal[2]);
  if (!isfinite(d->velocity))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "support: velocity = %g m/s must be finite", d->velocity);
  if (d->kind == CL_SUPPORT_LINE && d->velocity != 0.0)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "support: a line support cannot move (velocity = %g m/s); drive the "
                   "nodes with a motion, or use a plane support, whose plane moves along its normal", d->velocity);
  if (!(d->start >= 0.0) || isinf(d->start))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "support: start = %g s must be finite and >= 0", d->start);
  if (!(d->duration >= 0.0))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "support: duration = %g s must be >= 0 (inf = never stops)", d->duration);
  if (!(d->release >= 0.0))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "support: release = %g s must be >= 0 (inf = never)", d->release);
  return CL_OK;
}

cl_status cl_surface_load_check(const cl_surface_load_def *d) {
  if (d->kind != CL_LOAD_TRACTION && d->kind != CL_LOAD_PRESSURE)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "surface load kind %d is not one of traction (0), pressure (1)",
                   (int)d->kind);
  for (int k = 0; k < 3; ++k)
    if (!isfinite(d->traction[k]))
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "surface load: traction[%d] = %g Pa must be finite", k, d->traction[k]);
  if (!isfinite(d->pressure))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "surface load: pressure = %g Pa must be finite", d->pressure);
  if (d->follow != 0 && d->follow != 1)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "surface load: follow = %d must be 0 (rest surface) or 1 (current surface)",
                   (int)d->follow);
  if (!(d->ramp >= 0.0) || isinf(d->ramp))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "surface load: ramp = %g s must be finite and >= 0", d->ramp);
  return CL_OK;
}

/* The held directions of a support (rows of c->axes): the normal of a plane; two unit vectors
 * across a line's direction. */
static void support_axes(cl_condition *c) {
  const double *n = c->support.normal;
  memset(c->axes, 0, sizeof c->axes);
  if (c->support.kind == CL_SUPPORT_PLANE) {
    for (int k = 0; k < 3; ++k) c->axes[k] = n[k];
    c->held = 1;
    return;
  }
  /* a unit vector across n: n x e, with e the axis least aligned with n; then n x that */
  int m = fabs(n[0]) <= fabs(n[1]) && fabs(n[0]) <= fabs(n[2]) ? 0 : (fabs(n[1]) <= fabs(n[2]) ? 1 : 2);
  double e[3] = {0, 0, 0};
  e[m] = 1.0;
  double u[3] = {n[1] * e[2] - n[2] * e[1], n[2] * e[0] - n[0] * e[2], n[0] * e[1] - n[1] * e[0]};
  double un = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
  for (int k = 0; k < 3; ++k) u[k] /= un;
  const double w[3] = {n[1] * u[2] - n[2] * u[1], n[2] * u[0] - n[0] * u[2], n[0] * u[1] - n[1] * u[0]};
  for (int k = 0; k < 3; ++k) {
    c->axes[k] = u[k];
    c->axes[3 + k] = w[k];
  }
  c->held = 2;
}

/* The boundary triangles of the body whose three nodes are all selected (mark[i] != 0), with their
 * rest area vectors. */
static cl_status surface_triangles(cl_condition *c, cl_body *body, const unsigned char *mark) {
  CL_TRY(cl_body_surface(body));
  /* A surface load needs a closed, oriented boundary: its triangles carry the area a traction
   * integrates over and the outward normal a pressure pushes against (the loaded triangles may be a
   * patch of it, such as the inner surface of a shell). A body of particles alone (shape matching)
   * has none: no area, no inside or outside, so there is nothing a pressure could mean. */
  if (body->ntris == 0)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s has no boundary surface to load: solver '%s' gives its particles no "
                   "surface triangles, so a %s has no area to act on%s; spread a total force with world:force "
                   "(cl_world_apply_force), or use a tet body (solver 'corotational')", body->label, body->ops->name,
                   c->load.kind == CL_LOAD_PRESSURE ? "pressure" : "traction",
                   c->load.kind == CL_LOAD_PRESSURE ? " and no outward normal to push against" : "");
  int32_t count = 0;
  for (int32_t t = 0; t < body->ntris; ++t) {
    const int32_t *v = body->tris + 3 * t;
    count += mark[v[0]] && mark[v[1]] && mark[v[2]];
  }
  if (count == 0)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "the region selects %d nodes but no boundary triangle of %s (all three "
                   "corners of a triangle must be in the region): a surface load needs boundary faces",
                   c->count, body->label);
  c->tris = cl_malloc(sizeof(int32_t) * 3 * (size_t)count, "surface load triangles");
  c->rest_area = cl_malloc(sizeof(double) * 3 * (size_t)count, "surface load areas");
  if (!c->tris || !c->rest_area) return CL_ERR_OUT_OF_MEMORY;
  const double *X = body->state.X;
  for (int32_t t = 0; t < body->ntris; ++t) {
    const int32_t *v = body->tris + 3 * t;
    if (!(mark[v[0]] && mark[v[1]] && mark[v[2]])) continue;
    int32_t *w = c->tris + 3 * c->ntris;
    w[0] = v[0], w[1] = v[1], w[2] = v[2];
    cl_triangle_area_vector(X + 3 * v[0], X + 3 * v[1], X + 3 * v[2], c->rest_area + 3 * c->ntris);
    c->ntris++;
  }
  return CL_OK;
}

cl_status cl_condition_new(const cl_condition_spec *spec, cl_body *body, int32_t *nodes, int32_t count, double t_add,
                           cl_condition **out) {
  *out = NULL;
  cl_condition *c = cl_calloc(1, sizeof *c, "condition");
  if (!c) {
    free(nodes);
    return CL_ERR_OUT_OF_MEMORY;
  }
  const cl_condition_kind kind = spec->kind;
  c->kind = kind;
  c->body = body->id;
  c->nodes = nodes;
  c->count = c->capacity = count;
  c->t_add = t_add;
  if (kind == CL_CONDITION_CONSTRAIN || kind == CL_CONDITION_SUPPORT) {
    if (kind == CL_CONDITION_CONSTRAIN) {
      c->motion = *spec->motion;
    } else {
      /* a support moves like a translate motion along its normal, with the support's timing */
      const cl_support_def *d = spec->support;
      c->support = *d;
      const double n = sqrt(d->normal[0] * d->normal[0] + d->normal[1] * d->normal[1] + d->normal[2] * d->normal[2]);
      for (int k = 0; k < 3; ++k) c->support.normal[k] = d->normal[k] / n;
      cl_motion_def_default(&c->motion, CL_MOTION_TRANSLATE);
      for (int k = 0; k < 3; ++k) c->motion.velocity[k] = c->support.velocity * c->support.normal[k];
      c->motion.start = d->start;
      c->motion.duration = d->duration;
      c->motion.release = d->release;
      support_axes(c);
    }
    c->x0 = cl_malloc(sizeof(double) * 3 * (size_t)count, "condition positions");
    if (!c->x0) {
      cl_condition_free(c);
      return CL_ERR_OUT_OF_MEMORY;
    }
    double centroid[3] = {0, 0, 0};
    for (int32_t j = 0; j < count; ++j)
      for (int k = 0; k < 3; ++k) {
        c->x0[3 * j + k] = body->state.x[3 * nodes[j] + k];
        centroid[k] += c->x0[3 * j + k] / count;
      }
    const cl_motion_def *motion = &c->motion;
    double n = sqrt(motion->axis[0] * motion->axis[0] + motion->axis[1] * motion->axis[1] +
                    motion->axis[2] * motion->axis[2]);
    for (int k = 0; k < 3; ++k) {
      c->motion.axis[k] = n > 0.0 ? motion->axis[k] / n : 0.0;
      c->center[k] = motion->kind == CL_MOTION_TWIST ? centroid[k] : motion->center[k];
    }
  } else if (kind == CL_CONDITION_FORCE) {
    for (int k = 0; k < 3; ++k) c->force[k] = spec->force[k];
  } else {
    c->load = *spec->load;
    unsigned char *mark = calloc((size_t)body->state.n, 1);
    if (!mark) {
      cl_condition_free(c);
      return cl_fail(CL_ERR_OUT_OF_MEMORY, "out of memory selecting loaded triangles");
    }
    for (int32_t j = 0; j < count; ++j) mark[nodes[j]] = 1;
    cl_status st = surface_triangles(c, body, mark);
    free(mark);
    if (st < 0) {
      cl_condition_free(c);
      return st;
    }
  }
  *out = c;
  return CL_OK;
}

void cl_condition_free(cl_condition *c) {
  if (!c) return;
  free(c->nodes);
  free(c->x0);
  free(c->tris);
  free(c->rest_area);
  cl_tool_free(c->tool);
  free(c);
}

int cl_condition_active(const cl_condition *c, double t0) {
  if (c->kind != CL_CONDITION_CONSTRAIN && c->kind != CL_CONDITION_SUPPORT) return 0;
  /* released from the first substep that starts at or after `release`; the tolerance keeps a
   * release time equal to a step boundary (k dt) on the boundary despite rounding in k dt */
  double r = c->motion.release;
  if (isinf(r)) return 1;
  return t0 < r - 1e-12 * fmax(1.0, fabs(r));
}

void cl_condition_target(const cl_condition *c, int32_t j, double t, double *x, double *v) {
  if (c->tool && c->tool->kind == CL_TOOL_BRUSH) {
    cl_tool_target(c, j, t, x, v);
    return;
  }
  const cl_motion_def *m = &c->motion;
  const double *x0 = c->x0 + 3 * j;
  double t0 = fmax(m->start, c->t_add);
  double tau = t - t0;
  int moving = tau > 0.0 && tau <= m->duration;
  if (tau < 0.0) tau = 0.0;
  if (tau > m->duration) tau = m->duration;
  switch (m->kind) {
    case CL_MOTION_FIXED:
      for (int k = 0; k < 3; ++k) {
        x[k] = x0[k];
        v[k] = 0.0;
      }
      return;
    case CL_MOTION_TRANSLATE:
      for (int k = 0; k < 3; ++k) {
        x[k] = x0[k] + m->velocity[k] * tau;
        v[k] = moving ? m->velocity[k] : 0.0;
      }
      return;
    case CL_MOTION_ROTATE:
    case CL_MOTION_TWIST: {
      /* Rodrigues: R p = p cos(th) + (a x p) sin(th) + a (a . p)(1 - cos(th)), a the unit axis */
      const double *a = m->axis;
      double th = m->rate * tau, cs = cos(th), sn = sin(th);
      double p[3] = {x0[0] - c->center[0], x0[1] - c->center[1], x0[2] - c->center[2]};
      double axp[3] = {a[1] * p[2] - a[2] * p[1], a[2] * p[0] - a[0] * p[2], a[0] * p[1] - a[1] * p[0]};
      double ap = a[0] * p[0] + a[1] * p[1] + a[2] * p[2];
      double r[3];
      for (int k = 0; k < 3; ++k) {
        r[k] = p[k] * cs + axp[k] * sn + a[k] * ap * (1.0 - cs);
        x[k] = c->center[k] + r[k];
      }
      /* v = omega x r with omega = rate * a */
      double w = moving ? m->rate : 0.0;
      v[0] = w * (a[1] * r[2] - a[2] * r[1]);
      v[1] = w * (a[2] * r[0] - a[0] * r[2]);
      v[2] = w * (a[0] * r[1] - a[1] * r[0]);
      return;
    }
  }
}

/* The load factor of a surface load at time t: ramps linearly from 0 at t_add to 1 at t_add + ramp. */
static double load_factor(const cl_condition *c, double t) {
  if (!(c->load.ramp > 0.0)) return 1.0;
  const double f = (t - c->t_add) / c->load.ramp;
  return f <= 0.0 ? 0.0 : (f >= 1.0 ? 1.0 : f);
}

void cl_condition_add_forces(const cl_condition *c, const cl_body_state *st, double t, double scale, double *f) {
  if (c->kind == CL_CONDITION_FORCE) {
    /* a total force spread by mass; masses are read every time since fracture can move them */
    double M = 0.0;
    for (int32_t j = 0; j < c->count; ++j) M += st->m[c->nodes[j]];
    if (!(M > 0.0)) return;
    for (int32_t j = 0; j < c->count; ++j) {
      const int32_t n = c->nodes[j];
      const double w = scale * st->m[n] / M;
      for (int k = 0; k < 3; ++k) f[3 * n + k] += c->force[k] * w;
    }
    return;
  }
  if (c->kind != CL_CONDITION_SURFACE_LOAD) return;
  const double s = scale * load_factor(c, t);
  if (s == 0.0) return;
  for (int32_t q = 0; q < c->ntris; ++q) {
    const int32_t *v = c->tris + 3 * q;
    double F[3];
    if (c->load.kind == CL_LOAD_TRACTION) {
      /* t |A_rest|: a force per unit rest area */
      const double *A = c->rest_area + 3 * q;
      const double area = sqrt(A[0] * A[0] + A[1] * A[1] + A[2] * A[2]);
      for (int k = 0; k < 3; ++k) F[k] = c->load.traction[k] * area;
    } else {
      /* -p A with A the outward area vector (current or rest): pushes inwards for p > 0 */
      double A[3];
      if (c->load.follow)
        cl_triangle_area_vector(st->x + 3 * v[0], st->x + 3 * v[1], st->x + 3 * v[2], A);
      else
        memcpy(A, c->rest_area + 3 * q, sizeof A);
      for (int k = 0; k < 3; ++k) F[k] = -c->load.pressure * A[k];
    }
    for (int a = 0; a < 3; ++a)
      for (int k = 0; k < 3; ++k) f[3 * v[a] + k] += s * F[k] / 3.0;
  }
}

cl_status cl_condition_follow_origins(cl_condition *c, const cl_body_state *s, int32_t first) {
  if (first >= s->n) return CL_OK;
  /* where each node sits in the condition, -1 if absent */
  int32_t *where = malloc(sizeof(int32_t) * (size_t)s->n);
  if (!where) return cl_fail(CL_ERR_OUT_OF_MEMORY, "out of memory carrying a condition over new nodes");
  for (int32_t i = 0; i < s->n; ++i) where[i] = -1;
  for (int32_t j = 0; j < c->count; ++j) where[c->nodes[j]] = j;
  cl_status st = CL_OK;
  /* increasing order: a copy of a copy finds its parent already placed */
  for (int32_t i = first; i < s->n; ++i) {
    int32_t o = s->origin[i];
    if (o < 0 || o >= s->n || o == i || where[o] < 0 || where[i] >= 0) continue;
    if (c->count == c->capacity) {
      const size_t cap = cl_grow_capacity((size_t)c->capacity, (size_t)c->count + 1, INT32_MAX);
      if ((st = CL_RESIZE(c->nodes, cap, "a condition's nodes carried over to new nodes")) < 0) break;
      if (c->x0 && (st = CL_RESIZE(c->x0, 3 * cap, "a condition's rest positions of new nodes")) < 0) break;
      c->capacity = (int32_t)cap;
    }
    int32_t j = c->count++;
    c->nodes[j] = i;
    if (c->x0)
      for (int k = 0; k < 3; ++k) c->x0[3 * j + k] = c->x0[3 * where[o] + k];
    where[i] = j;
  }
  free(where);
  return st;
}
