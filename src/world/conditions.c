/* Boundary conditions: fixed and driven regions (exact constraints on nodes) and external forces.
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

cl_status cl_condition_new(cl_condition_kind kind, const cl_body *body, int32_t *nodes, int32_t count,
                           const cl_motion_def *motion, const double *force, double t_add, cl_condition **out) {
  *out = NULL;
  cl_condition *c = cl_calloc(1, sizeof *c, "condition");
  if (!c) {
    free(nodes);
    return CL_ERR_OUT_OF_MEMORY;
  }
  c->kind = kind;
  c->body = body->id;
  c->nodes = nodes;
  c->count = c->capacity = count;
  c->t_add = t_add;
  if (kind == CL_CONDITION_CONSTRAIN) {
    c->motion = *motion;
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
    double n = sqrt(motion->axis[0] * motion->axis[0] + motion->axis[1] * motion->axis[1] +
                    motion->axis[2] * motion->axis[2]);
    for (int k = 0; k < 3; ++k) {
      c->motion.axis[k] = n > 0.0 ? motion->axis[k] / n : 0.0;
      c->center[k] = motion->kind == CL_MOTION_TWIST ? centroid[k] : motion->center[k];
    }
  } else {
    for (int k = 0; k < 3; ++k) c->force[k] = force[k];
  }
  *out = c;
  return CL_OK;
}

void cl_condition_free(cl_condition *c) {
  if (!c) return;
  free(c->nodes);
  free(c->x0);
  free(c);
}

int cl_condition_active(const cl_condition *c, double t0) {
  if (c->kind != CL_CONDITION_CONSTRAIN) return 0;
  /* released from the first substep that starts at or after `release`; the tolerance keeps a
   * release time equal to a step boundary (k dt) on the boundary despite rounding in k dt */
  double r = c->motion.release;
  if (isinf(r)) return 1;
  return t0 < r - 1e-12 * fmax(1.0, fabs(r));
}

void cl_condition_target(const cl_condition *c, int32_t j, double t, double *x, double *v) {
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
      int32_t cap = c->capacity + c->capacity / 2 + 8;
      int32_t *nn = realloc(c->nodes, sizeof(int32_t) * (size_t)cap);
      if (!nn) {
        st = cl_fail(CL_ERR_OUT_OF_MEMORY, "out of memory carrying a condition over new nodes");
        break;
      }
      c->nodes = nn;
      if (c->kind == CL_CONDITION_CONSTRAIN) {
        double *xx = realloc(c->x0, sizeof(double) * 3 * (size_t)cap);
        if (!xx) {
          st = cl_fail(CL_ERR_OUT_OF_MEMORY, "out of memory carrying a condition over new nodes");
          break;
        }
        c->x0 = xx;
      }
      c->capacity = cap;
    }
    int32_t j = c->count++;
    c->nodes[j] = i;
    if (c->kind == CL_CONDITION_CONSTRAIN)
      for (int k = 0; k < 3; ++k) c->x0[3 * j + k] = c->x0[3 * where[o] + k];
    where[i] = j;
  }
  free(where);
  return st;
}
