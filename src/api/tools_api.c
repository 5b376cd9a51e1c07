/* The public functions of the sculpting tools (cleave/world.h, "sculpting tools"): argument checks
 * and error text, then world/tools.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/checks.h"
#include "base/alloc.h"
#include "base/error.h"
#include "contract/capabilities.h"
#include "solvers/solver.h"
#include "world/world.h"

void cl_knife_def_default(cl_knife_def *def) {
  if (!def) return;
  memset(def, 0, sizeof *def);
  def->blade[0] = -0.5;
  def->blade[3] = 0.5;
  def->duration = INFINITY;
  def->internal = CL_DEF_MARKER;
}

void cl_brush_def_default(cl_brush_def *def) {
  if (!def) return;
  memset(def, 0, sizeof *def);
  def->radius = 0.1;
  def->duration = INFINITY;
  def->release = INFINITY;
  def->internal = CL_DEF_MARKER;
}

void cl_anchor_def_default(cl_anchor_def *def) {
  if (!def) return;
  memset(def, 0, sizeof *def);
  def->release = INFINITY;
  def->internal = CL_DEF_MARKER;
}

/* A new tool of `kind` moving as the kinematic members say (the path copied), with its start and
 * end times from its motion. */
static cl_status new_tool(cl_tool_kind kind, const cl_collider_def *track, cl_tool **out) {
  *out = NULL;
  cl_tool *t = cl_calloc(1, sizeof *t, "tool");
  if (!t) return CL_ERR_OUT_OF_MEMORY;
  t->kind = kind;
  t->track = *track;
  t->release = INFINITY;
  if (cl_kinematic_own_path(&t->track, &t->path) < 0) {
    cl_tool_free(t);
    return CL_ERR_OUT_OF_MEMORY;
  }
  cl_kinematic_span(&t->track, &t->t_start, &t->t_end);
  *out = t;
  return CL_OK;
}

/* The kinematic members of a knife or brush def, as a collider def the motion functions take. */
static cl_collider_def track_of(const double *center, const double *velocity, double start, double ramp,
                                double duration, const double *path, int32_t path_count) {
  cl_collider_def d;
  cl_collider_def_default(&d, CL_COLLIDER_SPHERE);
  memcpy(d.center, center, sizeof d.center);
  memcpy(d.velocity, velocity, sizeof d.velocity);
  d.start = start;
  d.ramp = ramp;
  d.duration = duration;
  d.path = path;
  d.path_count = path_count;
  memset(d.angular_velocity, 0, sizeof d.angular_velocity);
  return d;
}

/* CL_ERR_INVALID_ARGUMENT unless the body's solver applies cut_surface events; the message names
 * the solvers that do. */
static cl_status check_can_cut(const cl_body *b) {
  const uint32_t cut = CL_EVENT_BIT(CL_EVENT_CUT_SURFACE);
  if (b->ops->caps.applies & cut) return CL_OK;
  char applies[128], names[512];
  size_t used = 0;
  names[0] = '\0';
  for (int32_t i = 0; i < cl_solver_count() && used + 1 < sizeof names; ++i) {
    const cl_solver_ops *s = cl_solver_at(i);
    if (!(s->caps.applies & cut)) continue;
    int w = snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "", s->name);
    if (w < 0) break;
    used += (size_t)w;
  }
  cl_event_kinds_list(b->ops->caps.applies, applies, sizeof applies);
  return cl_fail(CL_ERR_INVALID_ARGUMENT, "knife: %s uses solver '%s', which cannot be cut (a knife hands it "
                 "cut_surface events and it applies %s); solvers that can: %s", b->label, b->ops->name, applies,
                 used ? names : "none");
}

/* Whether a motion moves at all: a velocity, or a path through two distinct points. */
static int moves(const cl_collider_def *d) {
  if (d->path_count == 0) return d->velocity[0] != 0.0 || d->velocity[1] != 0.0 || d->velocity[2] != 0.0;
  for (int32_t r = 1; r < d->path_count; ++r)
    for (int k = 1; k < 4; ++k)
      if (d->path[4 * r + k] != d->path[k]) return 1;
  return 0;
}

cl_status cl_world_add_knife(cl_world *world, cl_id body, const cl_knife_def *def, cl_id *knife) {
  CHECK_NULL(knife, "cl_world_add_knife");
  *knife = 0;
  CHECK_NULL(world, "cl_world_add_knife");
  CHECK_NULL(def, "cl_world_add_knife");
  if (def->internal != CL_DEF_MARKER)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_knife_def not initialised: call cl_knife_def_default");
  cl_body *b;
  CL_TRY(cl_world_body(world, body, &b));
  CL_TRY(check_can_cut(b));
  CL_TRY(cl_check_vec3_limit("knife: blade end a", def->blade, CL_LIMIT_COORD, "m"));
  CL_TRY(cl_check_vec3_limit("knife: blade end b", def->blade + 3, CL_LIMIT_COORD, "m"));
  const double *a = def->blade, *e = def->blade + 3;
  const double len = sqrt((e[0] - a[0]) * (e[0] - a[0]) + (e[1] - a[1]) * (e[1] - a[1]) + (e[2] - a[2]) * (e[2] - a[2]));
  const double size = fmax(fmax(fabs(a[0]), fabs(a[1])), fmax(fmax(fabs(a[2]), fabs(e[0])), fmax(fabs(e[1]), fabs(e[2]))));
  if (!(len > 1e-12 * size))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "knife: the blade's end points (%g, %g, %g) and (%g, %g, %g) coincide (its "
                   "length %g m must be > 0)", a[0], a[1], a[2], e[0], e[1], e[2], len);
  const cl_collider_def track =
      track_of(def->center, def->velocity, def->start, def->ramp, def->duration, def->path, def->path_count);
  CL_TRY(cl_kinematic_check(&track, "knife"));
  if (!moves(&track))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "knife: it never moves (%s), so it can cut nothing: give a non-zero "
                   "velocity or a path through two distinct points",
                   track.path_count ? "every point of its path is the same" : "velocity = (0, 0, 0) m/s");
  cl_tool *t;
  CL_TRY(new_tool(CL_TOOL_KNIFE, &track, &t));
  memcpy(t->blade, def->blade, sizeof t->blade);
  return cl_world_insert_tool(world, b, t, knife);
}

cl_status cl_world_add_brush(cl_world *world, cl_id body, const cl_brush_def *def, cl_id *brush) {
  CHECK_NULL(brush, "cl_world_add_brush");
  *brush = 0;
  CHECK_NULL(world, "cl_world_add_brush");
  CHECK_NULL(def, "cl_world_add_brush");
  if (def->internal != CL_DEF_MARKER)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_brush_def not initialised: call cl_brush_def_default");
  cl_body *b;
  CL_TRY(cl_world_body(world, body, &b));
  if (!(def->radius >= CL_LIMIT_SIZE_MIN && def->radius <= CL_LIMIT_SIZE_MAX))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "brush: radius = %g m is outside the allowed range [%g, %g] m", def->radius,
                   CL_LIMIT_SIZE_MIN, CL_LIMIT_SIZE_MAX);
  const cl_collider_def track =
      track_of(def->center, def->velocity, def->start, def->ramp, def->duration, def->path, def->path_count);
  CL_TRY(cl_kinematic_check(&track, "brush"));
  cl_tool *t;
  CL_TRY(new_tool(CL_TOOL_BRUSH, &track, &t));
  if (!(def->release >= t->t_start)) {
    const double start = t->t_start;
    cl_tool_free(t);
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "brush: release = %g s must be >= %g s, when it starts (it would never "
                   "hold anything); inf = never", def->release, start);
  }
  t->radius = def->radius;
  t->release = def->release;
  return cl_world_insert_tool(world, b, t, brush);
}

cl_status cl_world_add_anchor(cl_world *world, cl_id body, const cl_region_def *region, const cl_anchor_def *def,
                              cl_id *anchor) {
  CHECK_NULL(anchor, "cl_world_add_anchor");
  *anchor = 0;
  CHECK_NULL(world, "cl_world_add_anchor");
  CHECK_NULL(region, "cl_world_add_anchor");
  CHECK_NULL(def, "cl_world_add_anchor");
  if (def->internal != CL_DEF_MARKER)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_anchor_def not initialised: call cl_anchor_def_default");
  cl_body *b;
  CL_TRY(cl_world_body(world, body, &b));
  CL_TRY(cl_region_check(region));
  if (!(def->start >= 0.0) || isinf(def->start))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "anchor: start = %g s must be finite and >= 0", def->start);
  if (!(def->release >= def->start))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "anchor: release = %g s must be >= start = %g s (inf = never)",
                   def->release, def->start);
  cl_tool *t = cl_calloc(1, sizeof *t, "anchor");
  if (!t) return CL_ERR_OUT_OF_MEMORY;
  t->kind = CL_TOOL_ANCHOR;
  t->region = *region;
  t->t_start = def->start;
  t->t_end = INFINITY;
  t->release = def->release;
  if (region->kind == CL_REGION_INDICES) {
    /* the indices are copied and checked now (nodes are only ever appended) */
    for (int32_t j = 0; j < region->count; ++j)
      if (region->indices[j] < 0 || region->indices[j] >= b->state.n) {
        cl_tool_free(t);
        return cl_fail(CL_ERR_INVALID_ARGUMENT, "anchor: index region: indices[%d] = %d is outside the nodes [0, %d) "
                       "of %s", j, region->indices[j], b->state.n, b->label);
      }
    t->indices = cl_malloc(sizeof(int32_t) * (size_t)region->count, "anchor indices");
    if (!t->indices) {
      cl_tool_free(t);
      return CL_ERR_OUT_OF_MEMORY;
    }
    memcpy(t->indices, region->indices, sizeof(int32_t) * (size_t)region->count);
    t->region.indices = t->indices;
  } else {
    t->region.indices = NULL;
  }
  return cl_world_insert_tool(world, b, t, anchor);
}

cl_status cl_tool_get_info(const cl_world *world, cl_id tool, cl_tool_info *info) {
  CHECK_NULL(world, "cl_tool_get_info");
  CHECK_NULL(info, "cl_tool_get_info");
  cl_condition *c;
  CL_TRY(cl_world_condition(world, tool, &c));
  if (!c->tool)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_tool_get_info: the condition is not a tool (a knife, brush or anchor)");
  cl_tool_fill_info(c, world->time, info);
  return CL_OK;
}
