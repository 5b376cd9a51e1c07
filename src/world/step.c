/* The fixed step pipeline (DESIGN.md, "Interchangeable solvers"):
 *
 *   for each substep:  FORCES   collider poses, external forces, constraint targets
 *                      SOLVE    solver step per body, NaN check, reaction accumulation
 *                      CONTACT  bodies against bodies: broad phase over the solvers' boxes, then
 *                               the solver's pair op on overlapping pairs (body_contact.c)
 *   MEASURE   per-unit F and stress of bodies that have a criterion
 *   CRITERIA  evaluate -> candidate events
 *   TOPOLOGY  sort events, the solver's fracture op, topology_changed, world bookkeeping
 *   PROBES    reactions averaged over the substeps, statistics
 *
 * Each phase is timed with the monotonic clock (like Table 1 of papers/000). Nothing allocates in
 * a step unless a topology change or a fracture event list needs to grow. Any error stops the
 * world: its state may be half-advanced, so later steps get CL_ERR_STATE with the first message. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/timer.h"
#include "world/body_contact.h"
#include "world/rigid_contact.h"
#include "world/world.h"

static cl_status stop(cl_world *w, cl_status s) { return cl_world_stop(w, s); }

/* f_ext = sum over the body's force conditions of F m_i / (mass of the region). Returns whether
 * the body has any force condition. Masses are read every step since fracture can move them. */
static int build_forces(cl_world *w, cl_body *b) {
  int any = 0;
  for (int32_t i = 0; i < w->conditions.slots; ++i) {
    cl_condition *c = cl_pool_at(&w->conditions, i);
    if (!c || c->body != b->id || c->kind != CL_CONDITION_FORCE) continue;
    if (!any) memset(b->f_ext, 0, sizeof(double) * 3 * (size_t)b->state.n);
    any = 1;
    double M = 0.0;
    for (int32_t j = 0; j < c->count; ++j) M += b->state.m[c->nodes[j]];
    if (!(M > 0.0)) continue;
    for (int32_t j = 0; j < c->count; ++j) {
      int32_t n = c->nodes[j];
      double s = b->state.m[n] / M;
      for (int k = 0; k < 3; ++k) b->f_ext[3 * n + k] += c->force[k] * s;
    }
  }
  return any;
}

/* Merge the body's active constraints for the substep [t0, t1]; a node in several conditions keeps
 * the first (in slot order). */
static void build_constraints(cl_world *w, cl_body *b, double t0, double t1) {
  for (int32_t j = 0; j < b->c_count; ++j) b->slot[b->c_nodes[j]] = -1;
  int32_t n = 0;
  for (int32_t i = 0; i < w->conditions.slots; ++i) {
    cl_condition *c = cl_pool_at(&w->conditions, i);
    if (!c || c->body != b->id || !cl_condition_active(c, t0)) continue;
    for (int32_t j = 0; j < c->count; ++j) {
      int32_t node = c->nodes[j];
      if (b->slot[node] >= 0) continue;
      b->slot[node] = n;
      b->c_nodes[n] = node;
      cl_condition_target(c, j, t1, b->c_x + 3 * n, b->c_v + 3 * n);
      b->c_r[3 * n] = b->c_r[3 * n + 1] = b->c_r[3 * n + 2] = 0.0;
      ++n;
    }
  }
  b->c_count = n;
}

/* Add the reactions the solver reported to every active condition that holds the node. */
static void accumulate_reactions(cl_world *w, cl_body *b, double t0) {
  for (int32_t i = 0; i < w->conditions.slots; ++i) {
    cl_condition *c = cl_pool_at(&w->conditions, i);
    if (!c || c->body != b->id || !cl_condition_active(c, t0)) continue;
    for (int32_t j = 0; j < c->count; ++j) {
      int32_t s = b->slot[c->nodes[j]];
      if (s < 0) continue;
      for (int k = 0; k < 3; ++k) c->reaction_acc[k] += b->c_r[3 * s + k];
    }
  }
}

/* World bookkeeping after the solver changed a body's topology. */
static cl_status after_topology(cl_world *w, cl_body *b) {
  CL_TRY(cl_body_sync_nodes(b));
  if (b->state.n > b->nodes_seen) {
    for (int32_t i = 0; i < w->conditions.slots; ++i) {
      cl_condition *c = cl_pool_at(&w->conditions, i);
      if (c && c->body == b->id) CL_TRY(cl_condition_follow_origins(c, &b->state, b->nodes_seen));
    }
    CL_TRY(cl_world_reserve_constraints(w, b));
    b->nodes_seen = b->state.n;
  }
  return CL_OK;
}

static cl_status one_step(cl_world *w, cl_status *warning) {
  double phase[CL_PHASE_COUNT] = {0};
  double t_begin = cl_time_ms(), t_mark;
  const int32_t sub = w->def.substeps;
  const double h = w->def.dt / sub;
  const long long step_no = (long long)w->steps + 1;
  int32_t iterations = 0;
  double residual = 0.0;
  cl_collider_view view = {0, w->shapes};

  for (int32_t i = 0; i < w->conditions.slots; ++i) {
    cl_condition *c = cl_pool_at(&w->conditions, i);
    if (c) c->reaction_acc[0] = c->reaction_acc[1] = c->reaction_acc[2] = 0.0;
  }

  for (int32_t s = 0; s < sub; ++s) {
    /* times from the step count, not accumulated, so k dt stays exact where it can */
    double t0 = ((double)w->steps + (double)s / sub) * w->def.dt;
    double t1 = ((double)w->steps + (double)(s + 1) / sub) * w->def.dt;

    t_mark = cl_time_ms();
    view.count = 0;
    cl_rigid_predict(w, h, t1); /* dynamic colliders: free motion to t1 (rigid.c) */
    for (int32_t i = 0; i < w->colliders.slots; ++i) {
      cl_collider *c = cl_pool_at(&w->colliders, i);
      if (!c) continue;
      cl_collider_pose(c, t1, &w->shapes[view.count]);
      cl_status pst = cl_collider_check_pose(c, &w->shapes[view.count], step_no, t1);
      if (pst < 0) return stop(w, pst);
      if (c->def.dynamic) w->shapes[view.count].impulse = c->impulse;
      view.count++;
    }
    for (int32_t i = 0; i < w->bodies.slots; ++i) {
      cl_body *b = cl_pool_at(&w->bodies, i);
      if (!b) continue;
      if (s == 0) b->has_forces = build_forces(w, b);
      build_constraints(w, b, t0, t1);
    }
    phase[CL_PHASE_FORCES] += cl_time_ms() - t_mark;

    t_mark = cl_time_ms();
    for (int32_t i = 0; i < w->bodies.slots; ++i) {
      cl_body *b = cl_pool_at(&w->bodies, i);
      if (!b) continue;
      cl_step_input in = {h, t0, w->gravity, b->has_forces ? b->f_ext : NULL,
                          {b->c_count, b->c_nodes, b->c_x, b->c_v, b->c_r}, &view, w->threads};
      cl_step_report rep = {0, 0.0};
      cl_status st = b->ops->step(b->solver, &b->state, &in, &rep);
      if (st < 0)
        return stop(w, cl_fail_context(st, "%s: solver '%s' failed at step %lld (t = %g s): ", b->label,
                                       b->ops->name, step_no, t0));
      if (st > 0) {
        cl_fail_context(st, "%s: step %lld: ", b->label, step_no);
        if (st > *warning) *warning = st;
      }
      int32_t bad = -1;
      const char *what = "value";
      if (!cl_body_state_finite(&b->state, &bad, &what))
        return stop(w, cl_fail(CL_ERR_NUMERICAL,
                               "%s: non-finite %s of node %d after the solver step (solver '%s') at step %lld "
                               "(t = %g s); the world is stopped: try a smaller dt, more substeps or a softer "
                               "material", b->label, what, bad, b->ops->name, step_no, t1));
      if (CL_VALIDATE && (st = cl_body_validate(b, CL_VALIDATE_SOLVE)) < 0) return stop(w, st);
      iterations += rep.iterations;
      if (rep.residual > residual) residual = rep.residual;
      accumulate_reactions(w, b, t0);
      cl_watch_drive_work(w, b, h);
    }
    cl_status cst = cl_world_body_contacts(w, h, NULL); /* timed with SOLVE */
    if (cst < 0) return stop(w, cl_fail_context(cst, "step %lld (t = %g s): ", step_no, t0));
    cl_rigid_apply_impulses(w); /* the nodes push the dynamic colliders back */
    cl_rigid_contacts(w, h, t1, NULL); /* rigid against rigid (rigid_contact.c) */
    phase[CL_PHASE_SOLVE] += cl_time_ms() - t_mark;
  }

  double t_end = ((double)w->steps + 1.0) * w->def.dt;
  int32_t events = 0;
  for (int32_t i = 0; i < w->bodies.slots; ++i) {
    cl_body *b = cl_pool_at(&w->bodies, i);
    if (!b || !b->cops) continue;
    t_mark = cl_time_ms();
    cl_status st = cl_body_measure(b);
    if (st >= 0 && CL_VALIDATE) st = cl_body_validate(b, CL_VALIDATE_MEASURE);
    if (st < 0) return stop(w, cl_fail_context(st, "step %lld (t = %g s): ", step_no, t_end));
    phase[CL_PHASE_MEASURE] += cl_time_ms() - t_mark;

    t_mark = cl_time_ms();
    b->events.count = 0;
    st = b->cops->evaluate(b->criterion, &b->units, &b->state, w->def.dt, &b->events);
    if (st >= 0 && CL_VALIDATE) st = cl_body_validate(b, CL_VALIDATE_CRITERIA);
    if (st < 0)
      return stop(w, cl_fail_context(st, "%s: criterion '%s' failed at step %lld (t = %g s): ", b->label,
                                     b->cops->name, step_no, t_end));
    phase[CL_PHASE_CRITERIA] += cl_time_ms() - t_mark;

    if (b->events.count == 0) continue;
    t_mark = cl_time_ms();
    cl_event_list_sort(&b->events);
    int32_t applied = 0;
    st = b->ops->fracture(b->solver, &b->state, b->events.items, b->events.count, &applied);
    if (st >= 0 && applied > 0) b->state.topology_version++;
    if (st >= 0 && applied > 0 && b->ops->topology_changed) st = b->ops->topology_changed(b->solver, &b->state);
    if (st >= 0 && applied > 0) st = after_topology(w, b);
    if (st >= 0 && CL_VALIDATE) st = cl_body_validate(b, CL_VALIDATE_TOPOLOGY);
    if (st < 0)
      return stop(w, cl_fail_context(st, "%s: fracture (solver '%s') failed at step %lld (t = %g s): ", b->label,
                                     b->ops->name, step_no, t_end));
    int32_t bad = -1;
    const char *what = "value";
    if (!cl_body_state_finite(&b->state, &bad, &what))
      return stop(w, cl_fail(CL_ERR_NUMERICAL, "%s: non-finite %s of node %d after fracture at step %lld (t = %g s)",
                             b->label, what, bad, step_no, t_end));
    events += applied;
    phase[CL_PHASE_TOPOLOGY] += cl_time_ms() - t_mark;
  }

  t_mark = cl_time_ms();
  for (int32_t i = 0; i < w->conditions.slots; ++i) {
    cl_condition *c = cl_pool_at(&w->conditions, i);
    if (c)
      for (int k = 0; k < 3; ++k) c->reaction[k] = c->reaction_acc[k] / sub;
  }
  w->steps += 1;
  w->time = t_end;
  cl_status wst = cl_watch_step(w, step_no, t_end); /* energy growing without a source (watch.c) */
  if (wst < 0) return stop(w, wst);
  phase[CL_PHASE_PROBES] += cl_time_ms() - t_mark;

  cl_world_stats *st = &w->stats;
  st->steps = w->steps;
  st->time = w->time;
  for (int k = 0; k < CL_PHASE_COUNT; ++k) st->phase_ms[k] = phase[k];
  st->step_ms = cl_time_ms() - t_begin;
  st->iterations = iterations;
  st->residual = residual;
  st->fracture_events = events;
  return CL_OK;
}

cl_status cl_world_advance(cl_world *w, int32_t steps) {
  if (w->stopped)
    return cl_fail(CL_ERR_STATE, "the world stopped on an error and cannot step; the error was: %s",
                   w->stop_message);
  cl_status warning = CL_OK;
  char warn_message[1024] = "";
  for (int32_t i = 0; i < steps; ++i) {
    cl_status before = warning;
    cl_status s = one_step(w, &warning);
    if (s < 0) return s;
    if (warning > before || (warning > CL_OK && !warn_message[0]))
      snprintf(warn_message, sizeof warn_message, "%s", cl_last_error());
  }
  if (warning > CL_OK) return cl_fail(warning, "%s", warn_message);
  return CL_OK;
}
