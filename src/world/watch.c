/* The blow-up watch (docs/GUARANTEES.md): a simulation whose energy grows without a source is
 * stopped the step it is seen, with the body, the step and the quantity named, instead of running
 * on to Inf and NaN and writing them to every output.
 *
 * Energy bookkeeping, all upper bounds (J):
 *   budget  = kinetic energy given to bodies and dynamic colliders when added or set (initial
 *             velocities, set_velocity) + the work the world's sources can have done since:
 *               gravity          |M g . (c_now - c_before)|      (c the centre of mass; exact for
 *                                                                  constant g, summed in absolute value)
 *               external forces  sum_i |f_i| max_i |v_i| dt_elapsed  (force conditions, surface loads)
 *               drives           sum_j |r_j . v_j| h              (reaction times target velocity, per
 *                                                                  substep, step.c calls below)
 *   reach   = what kinematic colliders can give by hitting: 1/2 M_b (2 V_c)^2 per body, V_c the
 *             fastest surface speed near the body (|v| + |w| times its distance)
 *   floor   = 1/2 M_b (0.1 L_b / dt)^2 per body, L_b the rest size: motion of a tenth of the body per
 *             step, so that rounding in a world with no source at all is never a blow-up.
 * The world stops when the kinetic energy of bodies and dynamic colliders exceeds
 * CL_WATCH_FACTOR (budget + reach + floor). A healthy scene stays far below (contact projection and
 * fracture can create energy, but by factors of a few, docs/RIGID_BODIES.md); an unstable integration
 * grows exponentially and crosses the line within a few steps of leaving it.
 *
 * Cost: one pass over m, x, v of every body every CL_WATCH_EVERY steps (the x and v finite test of
 * every step stays in step.c), and a pass over the held nodes of each substep. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "world/world.h"

enum { CL_WATCH_EVERY = 4 };
static const double CL_WATCH_FACTOR = 1e6;

/* Mass, centre of mass, kinetic energy and the largest speed squared of a body's nodes, and the sum
 * of the external forces' sizes (1-norm, an upper bound of the 2-norm) when f is given. */
typedef struct body_sums {
  double mass, cm[3], kinetic, vmax2, fsum;
} body_sums;

static body_sums sums_of(const cl_body_state *s, const double *f) {
  body_sums r = {0.0, {0.0, 0.0, 0.0}, 0.0, 0.0, 0.0};
  double mx = 0.0, my = 0.0, mz = 0.0, e = 0.0, vm = 0.0, M = 0.0;
  const double *x = s->x, *v = s->v, *m = s->m;
  for (int32_t i = 0; i < s->n; ++i) {
    const double mi = m[i];
    const double v2 = v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2];
    M += mi;
    mx += mi * x[3 * i];
    my += mi * x[3 * i + 1];
    mz += mi * x[3 * i + 2];
    e += mi * v2;
    vm = v2 > vm ? v2 : vm;
  }
  if (f) {
    double fs = 0.0;
    for (int64_t j = 0; j < 3 * (int64_t)s->n; ++j) fs += fabs(f[j]);
    r.fsum = fs;
  }
  r.mass = M;
  if (M > 0.0) r.cm[0] = mx / M, r.cm[1] = my / M, r.cm[2] = mz / M;
  r.kinetic = 0.5 * e;
  r.vmax2 = vm;
  return r;
}

static double collider_kinetic(const cl_collider *c) {
  const cl_collider_def *d = &c->def;
  double I[3], L[3];
  cl_rigid_body_inertia(d, I);
  cl_rigid_apply_inertia(d->rotation, I, d->angular_velocity, L);
  double v2 = 0.0, wl = 0.0;
  for (int k = 0; k < 3; ++k) v2 += d->velocity[k] * d->velocity[k], wl += d->angular_velocity[k] * L[k];
  return 0.5 * d->mass * v2 + 0.5 * wl;
}

void cl_watch_add_energy(cl_world *w, double joules) {
  if (joules > 0.0) w->watch.budget += joules;
}

void cl_watch_body_added(cl_world *w, cl_body *b) {
  body_sums s = sums_of(&b->state, NULL);
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int32_t i = 0; i < b->state.n; ++i)
    for (int k = 0; k < 3; ++k) {
      lo[k] = fmin(lo[k], b->state.X[3 * i + k]);
      hi[k] = fmax(hi[k], b->state.X[3 * i + k]);
    }
  double d2 = 0.0;
  for (int k = 0; k < 3; ++k) d2 += (hi[k] - lo[k]) * (hi[k] - lo[k]);
  b->watch.size = sqrt(d2);
  memcpy(b->watch.cm, s.cm, sizeof s.cm);
  cl_watch_add_energy(w, s.kinetic);
}

void cl_watch_collider_added(cl_world *w, cl_collider *c) {
  memcpy(c->watch_cm, c->def.center, sizeof c->watch_cm);
  if (c->def.dynamic) cl_watch_add_energy(w, collider_kinetic(c));
}

void cl_watch_drive_work(cl_world *w, const cl_body *b, double h) {
  double p = 0.0;
  for (int32_t j = 0; j < b->c_count; ++j) {
    const double *r = b->c_r + 3 * j, *v = b->c_v + 3 * j;
    p += fabs(r[0] * v[0] + r[1] * v[1] + r[2] * v[2]);
  }
  w->watch.budget += p * h;
}

/* The fastest surface speed of a kinematic collider within the reach of a body (m/s). */
static double collider_speed_near(const cl_collider_shape *s, const double *cm, double size) {
  double v = sqrt(s->velocity[0] * s->velocity[0] + s->velocity[1] * s->velocity[1] + s->velocity[2] * s->velocity[2]);
  double wn = sqrt(s->omega[0] * s->omega[0] + s->omega[1] * s->omega[1] + s->omega[2] * s->omega[2]);
  if (wn > 0.0) {
    double d = sqrt((cm[0] - s->center[0]) * (cm[0] - s->center[0]) + (cm[1] - s->center[1]) * (cm[1] - s->center[1]) +
                    (cm[2] - s->center[2]) * (cm[2] - s->center[2]));
    v += wn * (d + size);
  }
  return v;
}

cl_status cl_watch_step(cl_world *w, long long step_no, double t) {
  if (step_no % CL_WATCH_EVERY != 0) return CL_OK;
  const double *g = w->gravity;
  const double elapsed = CL_WATCH_EVERY * w->def.dt;
  double kinetic = 0.0, reach = 0.0, floor_e = 0.0, worst = -1.0;
  const cl_body *worst_body = NULL;
  for (int32_t i = 0; i < w->bodies.slots; ++i) {
    cl_body *b = cl_pool_at(&w->bodies, i);
    if (!b) continue;
    body_sums s = sums_of(&b->state, b->has_forces ? b->f_ext : NULL);
    double dc[3] = {s.cm[0] - b->watch.cm[0], s.cm[1] - b->watch.cm[1], s.cm[2] - b->watch.cm[2]};
    w->watch.budget += s.mass * fabs(g[0] * dc[0] + g[1] * dc[1] + g[2] * dc[2]);
    memcpy(b->watch.cm, s.cm, sizeof s.cm);
    /* force conditions and surface loads: the step's f_ext (step.c builds it) */
    if (b->has_forces) w->watch.budget += s.fsum * sqrt(s.vmax2) * elapsed;
    double vc = 0.0;
    for (int32_t j = 0; j < w->colliders.slots; ++j) {
      const cl_collider *c = cl_pool_at(&w->colliders, j);
      if (!c || c->def.dynamic) continue;
      cl_collider_shape pose;
      cl_collider_pose(c, t, &pose);
      vc = fmax(vc, collider_speed_near(&pose, s.cm, b->watch.size));
    }
    reach += 0.5 * s.mass * 4.0 * vc * vc;
    const double vf = 0.1 * b->watch.size / w->def.dt;
    floor_e += 0.5 * s.mass * vf * vf;
    kinetic += s.kinetic;
    if (!(s.kinetic <= worst)) {
      worst = s.kinetic;
      worst_body = b;
    }
  }
  double rigid = 0.0;
  for (int32_t j = 0; j < w->colliders.slots; ++j) {
    cl_collider *c = cl_pool_at(&w->colliders, j);
    if (!c || !c->def.dynamic) continue;
    const double *cc = c->def.center;
    double dc[3] = {cc[0] - c->watch_cm[0], cc[1] - c->watch_cm[1], cc[2] - c->watch_cm[2]};
    w->watch.budget += c->def.mass * fabs(g[0] * dc[0] + g[1] * dc[1] + g[2] * dc[2]);
    memcpy(c->watch_cm, cc, sizeof c->watch_cm);
    rigid += collider_kinetic(c);
    /* kinematic colliders push dynamic ones too (rigid_contact.c) */
    const double size = c->def.kind == CL_COLLIDER_SPHERE ? c->def.radius
                                                         : sqrt(c->def.half_extents[0] * c->def.half_extents[0] +
                                                                c->def.half_extents[1] * c->def.half_extents[1] +
                                                                c->def.half_extents[2] * c->def.half_extents[2]);
    double vc = 0.0;
    for (int32_t k = 0; k < w->colliders.slots; ++k) {
      const cl_collider *o = cl_pool_at(&w->colliders, k);
      if (!o || o->def.dynamic) continue;
      cl_collider_shape pose;
      cl_collider_pose(o, t, &pose);
      vc = fmax(vc, collider_speed_near(&pose, cc, size));
    }
    reach += 0.5 * c->def.mass * 4.0 * vc * vc;
    const double vf = 0.1 * size / w->def.dt; /* overlapping colliders are pushed apart: see the floor */
    floor_e += 0.5 * c->def.mass * vf * vf;
  }
  const double allowed = CL_WATCH_FACTOR * (w->watch.budget + reach + floor_e);
  if (kinetic + rigid <= allowed) return CL_OK;
  if (worst_body && worst >= rigid)
    return cl_fail(CL_ERR_NUMERICAL,
                   "%s: kinetic energy %.3g J at step %lld (t = %g s) is more than %.0e times what gravity, forces, "
                   "drives, colliders and the initial velocities can have given the world (%.3g J): the simulation "
                   "is blowing up (solver '%s'); the world is stopped. Try a smaller dt or more substeps, a softer "
                   "material, or solver parameters that converge (cl.help(\"%s\"))",
                   worst_body->label, worst, step_no, t, CL_WATCH_FACTOR, w->watch.budget + reach + floor_e,
                   worst_body->ops->name, worst_body->ops->name);
  return cl_fail(CL_ERR_NUMERICAL,
                 "dynamic colliders: kinetic energy %.3g J at step %lld (t = %g s) is more than %.0e times what the "
                 "sources can have given the world (%.3g J): the simulation is blowing up; the world is stopped. "
                 "Give the dynamic colliders more mass, or use a smaller dt or more substeps",
                 rigid, step_no, t, CL_WATCH_FACTOR, w->watch.budget + reach + floor_e);
}
