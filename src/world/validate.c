/* Internal invariant checks of a body between the phases of a step (world.h, cl_body_validate):
 * what every solver, criterion and world phase promises the next one. The step calls them only in
 * builds configured with -DCLEAVE_VALIDATE=ON (the sanitizer job of CI), since they read every node
 * and cell of every body after every phase; the function itself is always built so tests can hand it
 * a broken body and see the message. */
#include <math.h>
#include <stdio.h>

#include "base/error.h"
#include "world/world.h"

static cl_status broken(const cl_body *b, const char *phase, const char *what) {
  return cl_fail(CL_ERR_STATE, "%s: internal invariant broken after %s: %s (a bug in cleave or in the solver '%s', "
                 "not in your script; please report it)", b->label, phase, what, b->ops ? b->ops->name : "?");
}

static int finite_all(const double *a, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!isfinite(a[i])) return 0;
  return 1;
}

static cl_status check_state(const cl_body *b, const char *phase) {
  const cl_body_state *st = &b->state;
  char what[256];
  if (st->n < 0 || st->n > st->capacity) {
    snprintf(what, sizeof what, "%d nodes with room for %d", st->n, st->capacity);
    return broken(b, phase, what);
  }
  if (st->n > b->node_capacity && b->node_capacity > 0) {
    snprintf(what, sizeof what, "%d nodes but the world's per-node arrays hold %d", st->n, b->node_capacity);
    return broken(b, phase, what);
  }
  if (!(st->cell_size == 0 || st->cell_size == 2 || st->cell_size == 4) || st->ncells < 0 ||
      (st->cell_size > 0 && st->ncells > st->cells_capacity)) {
    snprintf(what, sizeof what, "%d cells of size %d with room for %d", st->ncells, st->cell_size, st->cells_capacity);
    return broken(b, phase, what);
  }
  const int64_t nidx = (int64_t)st->cell_size * st->ncells;
  for (int64_t j = 0; j < nidx; ++j)
    if (st->cells[j] < 0 || st->cells[j] >= st->n) {
      snprintf(what, sizeof what, "cell %lld refers to node %d of %d", (long long)(j / st->cell_size), st->cells[j],
               st->n);
      return broken(b, phase, what);
    }
  for (int32_t i = 0; i < st->n; ++i) {
    if (st->origin[i] < 0 || st->origin[i] > i) {
      snprintf(what, sizeof what, "node %d has origin %d (origins name an earlier node or the node itself)", i,
               st->origin[i]);
      return broken(b, phase, what);
    }
    if (!(st->m[i] >= 0.0) || !isfinite(st->m[i])) {
      snprintf(what, sizeof what, "node %d has mass %g", i, st->m[i]);
      return broken(b, phase, what);
    }
  }
  int32_t bad = -1;
  const char *arr = "value";
  if (!cl_body_state_finite(st, &bad, &arr)) {
    snprintf(what, sizeof what, "non-finite %s of node %d", arr, bad);
    return broken(b, phase, what);
  }
  if (!finite_all(st->X, 3 * (int64_t)st->n)) return broken(b, phase, "a non-finite rest position");
  return CL_OK;
}

static cl_status check_units(const cl_body *b, const char *phase) {
  const cl_unit_fields *u = &b->units;
  char what[256];
  const int32_t count = b->ops->unit_count(b->solver);
  if (u->count != count || u->count > b->units_capacity) {
    snprintf(what, sizeof what, "%d measured units, the solver has %d, room for %d", u->count, count,
             b->units_capacity);
    return broken(b, phase, what);
  }
  if (b->ops->caps.units == CL_UNITS_TETS && b->state.cell_size == 4 && count != b->state.ncells) {
    snprintf(what, sizeof what, "%d tet units for %d tets", count, b->state.ncells);
    return broken(b, phase, what);
  }
  const int64_t n = u->count;
  if (!finite_all(u->F, 9 * n) || !finite_all(u->stress, 9 * n) || !finite_all(u->plastic, 9 * n) ||
      !finite_all(u->center, 3 * n) || !finite_all(u->volume, n) || !finite_all(u->damage, n))
    return broken(b, phase, "a non-finite unit measure (F, stress, plastic strain, centre, volume or damage)");
  return CL_OK;
}

static cl_status check_events(const cl_body *b, const char *phase) {
  char what[256];
  for (int32_t e = 0; e < b->events.count; ++e) {
    const cl_fracture_event *ev = &b->events.items[e];
    const uint32_t bit = CL_EVENT_BIT(ev->kind);
    if ((int)ev->kind < 0 || ev->kind >= CL_EVENT_KIND_COUNT || !(b->cops->caps.emits & bit) ||
        !(b->ops->caps.applies & bit)) {
      snprintf(what, sizeof what, "event %d of kind %d is not one the criterion '%s' declares or the solver applies", e,
               (int)ev->kind, b->cops->name);
      return broken(b, phase, what);
    }
    const int32_t unit = cl_event_unit(ev);
    if (unit >= b->units.count || isnan(ev->priority)) {
      snprintf(what, sizeof what, "event %d names unit %d of %d (priority %g)", e, unit, b->units.count, ev->priority);
      return broken(b, phase, what);
    }
    if (ev->kind == CL_EVENT_SPLIT_NODE && (ev->split_node.node < 0 || ev->split_node.node >= b->state.n)) {
      snprintf(what, sizeof what, "event %d splits node %d of %d", e, ev->split_node.node, b->state.n);
      return broken(b, phase, what);
    }
  }
  return CL_OK;
}

static cl_status check_constraints(const cl_body *b, const char *phase) {
  char what[256];
  for (int32_t j = 0; j < b->c_count; ++j) {
    const int32_t node = b->c_nodes[j];
    if (node < 0 || node >= b->state.n || b->slot[node] != j) {
      snprintf(what, sizeof what, "constraint %d holds node %d of %d (slot %d)", j, node, b->state.n,
               node >= 0 && node < b->state.n ? b->slot[node] : -1);
      return broken(b, phase, what);
    }
    if (!finite_all(b->c_x + 3 * j, 3) || !finite_all(b->c_v + 3 * j, 3) || !finite_all(b->c_r + 3 * j, 3)) {
      snprintf(what, sizeof what, "a non-finite target or reaction of held node %d", node);
      return broken(b, phase, what);
    }
  }
  return CL_OK;
}

cl_status cl_body_validate(const cl_body *b, cl_validate_phase phase) {
  static const char *const names[] = {"bind", "the solver step", "measure", "the criterion", "fracture"};
  const char *name = names[phase];
  CL_TRY(check_state(b, name));
  switch (phase) {
    case CL_VALIDATE_SOLVE: return check_constraints(b, name);
    case CL_VALIDATE_MEASURE: return check_units(b, name);
    case CL_VALIDATE_CRITERIA: return check_events(b, name);
    case CL_VALIDATE_BIND:
    case CL_VALIDATE_TOPOLOGY: break;
  }
  return CL_OK;
}
