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

/* f_ext at time t: the body's force conditions (spread by mass) and surface loads (area weighted,
 * ramped, a follower pressure on the current surface). Returns whether the body has any. */
int cl_world_build_forces(cl_world *w, cl_body *b, double t) {
  int any = 0;
  for (int32_t i = 0; i < w->conditions.slots; ++i) {
    cl_condition *c = cl_pool_at(&w->conditions, i);
    if (!c || c->body != b->id || (c->kind != CL_CONDITION_FORCE && c->kind != CL_CONDITION_SURFACE_LOAD)) continue;
    if (!any) memset(b->f_ext, 0, sizeof(double) * 3 * (size_t)b->state.n);
    any = 1;
    cl_condition_add_forces(c, &b->state, t, 1.0, b->f_ext);
  }
  return any;
}

/* Add the held directions of support condition c to the node's support slot p (Gram-Schmidt against
 * the slot's directions; a direction the slot already holds is skipped: the first condition wins),
 * with targets: the slot's point keeps a . x_target for each held a. */
static void merge_support(cl_body *b, int32_t p, const cl_condition *c, const double *tx, const double *tv) {
  double *axes = b->s_axes + 9 * p, *px = b->s_x + 3 * p, *pv = b->s_v + 3 * p;
  for (int q = 0; q < c->held && b->s_held[p] < 3; ++q) {
    const double *a = c->axes + 3 * q;
    double u[3] = {a[0], a[1], a[2]};
    double cx = a[0] * tx[0] + a[1] * tx[1] + a[2] * tx[2], cv = a[0] * tv[0] + a[1] * tv[1] + a[2] * tv[2];
    for (int h = 0; h < b->s_held[p]; ++h) {
      const double *e = axes + 3 * h;
      const double d = e[0] * a[0] + e[1] * a[1] + e[2] * a[2];
      for (int k = 0; k < 3; ++k) u[k] -= d * e[k];
      /* the target along e is already e . p: what this condition asks along u is what is left */
      cx -= d * (e[0] * px[0] + e[1] * px[1] + e[2] * px[2]);
      cv -= d * (e[0] * pv[0] + e[1] * pv[1] + e[2] * pv[2]);
    }
    const double un = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    if (!(un > 1e-6)) continue; /* (nearly) a direction the node is held in already */
    double *e = axes + 3 * b->s_held[p]++;
    for (int k = 0; k < 3; ++k) {
      e[k] = u[k] / un;
      px[k] += cx / un * e[k];
      pv[k] += cv / un * e[k];
    }
  }
}

/* Merge the body's active constraints and supports for the substep [t0, t1]. A node in several
 * constraints keeps the first (in slot order); a constrained node ignores its supports; a node's
 * supports add their held directions up, and one held in all three directions joins the
 * constraints with the point the directions agree on. */
void cl_world_build_constraints(cl_world *w, cl_body *b, double t0, double t1) {
  for (int32_t j = 0; j < b->c_count; ++j) b->slot[b->c_nodes[j]] = -1;
  for (int32_t j = 0; j < b->s_count; ++j) b->pslot[b->s_nodes[j]] = -1;
  int32_t n = 0, ns = 0;
  int any_support = 0;
  for (int32_t i = 0; i < w->conditions.slots; ++i) {
    cl_condition *c = cl_pool_at(&w->conditions, i);
    if (!c || c->body != b->id || !cl_condition_active(c, t0)) continue;
    if (c->kind == CL_CONDITION_SUPPORT) {
      any_support = 1;
      continue;
    }
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
  if (any_support) {
    for (int32_t i = 0; i < w->conditions.slots; ++i) {
      cl_condition *c = cl_pool_at(&w->conditions, i);
      if (!c || c->body != b->id || c->kind != CL_CONDITION_SUPPORT || !cl_condition_active(c, t0)) continue;
      for (int32_t j = 0; j < c->count; ++j) {
        const int32_t node = c->nodes[j];
        if (b->slot[node] >= 0) continue;
        int32_t p = b->pslot[node];
        if (p < 0) {
          p = b->pslot[node] = ns++;
          b->s_nodes[p] = node;
          b->s_held[p] = 0;
          memset(b->s_axes + 9 * p, 0, 9 * sizeof(double));
          memset(b->s_x + 3 * p, 0, 3 * sizeof(double));
          memset(b->s_v + 3 * p, 0, 3 * sizeof(double));
          memset(b->s_r + 3 * p, 0, 3 * sizeof(double));
        }
        double tx[3], tv[3];
        cl_condition_target(c, j, t1, tx, tv);
        merge_support(b, p, c, tx, tv);
      }
    }
    /* held in all three directions: a constraint (the slot's point is then the full target) */
    int32_t kept = 0;
    for (int32_t p = 0; p < ns; ++p) {
      const int32_t node = b->s_nodes[p];
      if (b->s_held[p] == 3) {
        b->pslot[node] = -1;
        b->slot[node] = n;
        b->c_nodes[n] = node;
        memcpy(b->c_x + 3 * n, b->s_x + 3 * p, 3 * sizeof(double));
        memcpy(b->c_v + 3 * n, b->s_v + 3 * p, 3 * sizeof(double));
        b->c_r[3 * n] = b->c_r[3 * n + 1] = b->c_r[3 * n + 2] = 0.0;
        ++n;
        continue;
      }
      if (kept != p) {
        b->s_nodes[kept] = node;
        b->s_held[kept] = b->s_held[p];
        memcpy(b->s_axes + 9 * kept, b->s_axes + 9 * p, 9 * sizeof(double));
        memcpy(b->s_x + 3 * kept, b->s_x + 3 * p, 3 * sizeof(double));
        memcpy(b->s_v + 3 * kept, b->s_v + 3 * p, 3 * sizeof(double));
      }
      b->pslot[node] = kept++;
    }
    ns = kept;
  }
  b->c_count = n;
  b->s_count = ns;
}

/* Add the reactions the solver reported to every active condition that holds the node. A support
 * gets the part of the node's reaction along its own held directions. */
void cl_world_accumulate_reactions(cl_world *w, cl_body *b, double t0) {
  for (int32_t i = 0; i < w->conditions.slots; ++i) {
    cl_condition *c = cl_pool_at(&w->conditions, i);
    if (!c || c->body != b->id || !cl_condition_active(c, t0)) continue;
    for (int32_t j = 0; j < c->count; ++j) {
      const int32_t node = c->nodes[j];
      const double *r = NULL;
      if (b->slot[node] >= 0) r = b->c_r + 3 * b->slot[node];
      else if (b->pslot[node] >= 0) r = b->s_r + 3 * b->pslot[node];
      if (!r) continue;
      if (c->kind != CL_CONDITION_SUPPORT) {
        for (int k = 0; k < 3; ++k) c->reaction_acc[k] += r[k];
        continue;
      }
      for (int q = 0; q < c->held; ++q) {
        const double *a = c->axes + 3 * q, d = a[0] * r[0] + a[1] * r[1] + a[2] * r[2];
        for (int k = 0; k < 3; ++k) c->reaction_acc[k] += d * a[k];
      }
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

/* Contact probes (world.h): before a body's step every collider records into its scratch (zeroed),
 * after it the scratch of each probed collider is added to the probes of that body. */
void cl_world_contact_records_on(cl_world *w, cl_collider_view *view) {
  memset(w->contact_scratch, 0, sizeof(double) * 7 * (size_t)view->count);
  for (int32_t c = 0; c < view->count; ++c) w->shapes[c].contact = w->contact_scratch + 7 * c;
}

void cl_world_contact_records_off(cl_world *w, const cl_body *b, cl_collider_view *view, double scale) {
  for (int32_t c = 0; c < view->count; ++c) w->shapes[c].contact = NULL;
  for (int32_t i = 0; i < w->probes.slots; ++i) {
    cl_probe *p = cl_pool_at(&w->probes, i);
    if (!p || p->def.kind != CL_PROBE_CONTACT || p->def.body != b->id) continue;
    cl_collider *c = NULL;
    if (cl_pool_get(&w->colliders, p->def.collider, "collider", (void **)&c) < 0) continue;
    const int32_t k = w->shape_of_slot[cl_pool_slot(p->def.collider)];
    if (k < 0) continue;
    for (int q = 0; q < 7; ++q) p->contact[q] += scale * w->contact_scratch[7 * k + q];
    for (int q = 0; q < 3; ++q) p->center[q] = w->shapes[k].center[q];
  }
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
  for (int32_t i = 0; w->contact_probes && i < w->probes.slots; ++i) {
    cl_probe *p = cl_pool_at(&w->probes, i);
    if (p && p->def.kind == CL_PROBE_CONTACT) memset(p->contact, 0, sizeof p->contact);
  }

  for (int32_t s = 0; s < sub; ++s) {
    /* times from the step count, not accumulated, so k dt stays exact where it can */
    double t0 = ((double)w->steps + (double)s / sub) * w->def.dt;
    double t1 = ((double)w->steps + (double)(s + 1) / sub) * w->def.dt;

    t_mark = cl_time_ms();
    /* brushes and anchors whose time has come take their nodes (tools.c) */
    cl_status tst = cl_world_start_tools(w, t0);
    if (tst < 0) return stop(w, cl_fail_context(tst, "step %lld (t = %g s): ", step_no, t0));
    view.count = 0;
    cl_rigid_predict(w, h, t1); /* dynamic colliders: free motion to t1 (rigid.c) */
    for (int32_t i = 0; i < w->colliders.slots; ++i) {
      cl_collider *c = cl_pool_at(&w->colliders, i);
      w->shape_of_slot[i] = c ? view.count : -1;
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
      b->has_forces = cl_world_build_forces(w, b, t1);
      cl_world_build_constraints(w, b, t0, t1);
    }
    phase[CL_PHASE_FORCES] += cl_time_ms() - t_mark;

    t_mark = cl_time_ms();
    for (int32_t i = 0; i < w->bodies.slots; ++i) {
      cl_body *b = cl_pool_at(&w->bodies, i);
      if (!b) continue;
      cl_step_input in = {.dt = h,
                          .time = t0,
                          .gravity = w->gravity,
                          .f_ext = b->has_forces ? b->f_ext : NULL,
                          .constraints = {b->c_count, b->c_nodes, b->c_x, b->c_v, b->c_r},
                          .supports = {b->s_count, b->s_nodes, b->s_held, b->s_axes, b->s_x, b->s_v, b->s_r},
                          .colliders = &view,
                          .threads = w->threads};
      cl_step_report rep = {0, 0.0};
      if (w->contact_probes) cl_world_contact_records_on(w, &view);
      cl_status st = b->ops->step(b->solver, &b->state, &in, &rep);
      if (w->contact_probes) cl_world_contact_records_off(w, b, &view, 1.0);
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
      cl_world_accumulate_reactions(w, b, t0);
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
    if (!b) continue;
    b->events.count = 0;
    cl_status st;
    if (b->cops) {
      t_mark = cl_time_ms();
      st = cl_body_measure(b);
      if (st >= 0 && CL_VALIDATE) st = cl_body_validate(b, CL_VALIDATE_MEASURE);
      if (st < 0) return stop(w, cl_fail_context(st, "step %lld (t = %g s): ", step_no, t_end));
      phase[CL_PHASE_MEASURE] += cl_time_ms() - t_mark;

      t_mark = cl_time_ms();
      st = b->cops->evaluate(b->criterion, &b->units, &b->state, w->def.dt, &b->events);
      if (st >= 0 && CL_VALIDATE) st = cl_body_validate(b, CL_VALIDATE_CRITERIA);
      if (st < 0)
        return stop(w, cl_fail_context(st, "%s: criterion '%s' failed at step %lld (t = %g s): ", b->label,
                                       b->cops->name, step_no, t_end));
      phase[CL_PHASE_CRITERIA] += cl_time_ms() - t_mark;
    }
    /* the knives' swept triangles join the criterion's events: one sort, one fracture call */
    t_mark = cl_time_ms();
    st = cl_world_knife_events(w, b, (double)w->steps * w->def.dt, t_end);
    if (st < 0) return stop(w, cl_fail_context(st, "%s: knife at step %lld (t = %g s): ", b->label, step_no, t_end));
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
  if (w->tool_warning[0]) { /* a tool that did nothing (tools.c) */
    cl_fail(CL_WARN_NO_EFFECT, "%s", w->tool_warning);
    if (*warning < CL_WARN_NO_EFFECT) *warning = CL_WARN_NO_EFFECT;
    w->tool_warning[0] = '\0';
  }
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
