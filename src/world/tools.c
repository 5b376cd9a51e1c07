/* Scripted sculpting tools: the knives, deformation brushes and anchoring tools of Mandal, Chaudhuri
 * and Chaudhuri (GRAPP 2025, sec 4; "the user initiates the crack lines", sec 3.3), driven by a
 * script instead of a mouse. Each acts on one body and lives in the world's condition pool.
 *
 * Knife. Blade end points a, b relative to the knife's position c(t), a kinematic motion
 * (colliders.c: start/ramp/duration, or a path). Moving from c0 to c1 the blade sweeps the
 * parallelogram A0 B0 B1 A1 (A = c + a, B = c + b); cut along its diagonal A0 B1 into the triangles
 * (A0, B0, B1) and (A0, B1, A1), it reaches the body's solver as two cut_surface events in the same
 * list as the criterion's events (same priority sort, same fracture call, same bookkeeping: step.c).
 * Their priority is +inf: a scripted cut goes before any criterion's event. A sweep across a corner
 * of a path is split at the corner, so the swept surface is the path's and not its chord. The solver
 * decides what a triangle cuts (graph_fem: every unbroken edge whose segment crosses it), at the
 * positions of the step's end. Each step sweeps from the blade's position one step back, [t0 - dt,
 * t1], not [t0, t1]: the solver moves the material during the step, and an edge just ahead of the
 * blade at t0 that the step carried behind the blade's t0 position (a piece sagging as it comes
 * loose drags the uncut material ahead of the blade back across its path) would otherwise never
 * cross a swept triangle, leaving the piece hanging by a few edges. The union of the sweeps is still
 * the surface the blade swept (what was swept twice is cut once), and the step after the motion ends
 * sweeps its last stretch again.
 * Whether the knife has touched the body at all is the world's own test: some edge of the body's
 * tets (current positions) meets one of its triangles (geom's segment-triangle test, independent of
 * the solver's). A knife whose motion ended untouched warns (CL_WARN_NO_EFFECT) once, on the step
 * after its motion ends (its last sweep); a knife that never stops never warns. Bodies without tets
 * cannot tell, so they never warn.
 *
 * Brush (a grab brush, Blender's "grab" that the paper's Fig 10 compares with): when its motion
 * begins at t_s it takes the nodes within `radius` of its centre c(t_s) (current positions) and moves
 * each with its displacement, x_j(t) = x_j(t_s) + c(t) - c(t_s), v_j = c'(t): exact constraints
 * through the world's constraint set, so every solver takes them and reaction probes read the force;
 * held at the end pose after the motion, let go at `release`.
 *
 * Anchor: at its start time it takes the nodes its region selects by current position and holds them
 * where they are (a fixed constraint from then on); before that they are free.
 *
 * A brush or anchor that finds no node when it starts warns (CL_WARN_NO_EFFECT) once. A node that two
 * conditions hold follows the one added first (step.c). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "geom/tet_edges.h"
#include "geom/tetrahedralize.h"
#include "world/world.h"

/* A time reached despite rounding in k dt (the tolerance of cl_condition_active). */
static int reached(double t, double when) { return t >= when - 1e-12 * fmax(1.0, fabs(when)); }

static const char *tool_name(cl_tool_kind kind) {
  return kind == CL_TOOL_KNIFE ? "knife" : kind == CL_TOOL_BRUSH ? "brush" : "anchor";
}

/* Keep the first warning of the step for step.c, which returns it as CL_WARN_NO_EFFECT. */
static void CL_PRINTF(3, 4) warn(cl_world *w, cl_tool *tool, const char *fmt, ...) {
  tool->warned = 1;
  if (w->tool_warning[0]) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(w->tool_warning, sizeof w->tool_warning, fmt, ap);
  va_end(ap);
}

void cl_tool_free(cl_tool *tool) {
  if (!tool) return;
  free(tool->path);
  free(tool->indices);
  free(tool);
}

cl_status cl_world_insert_tool(cl_world *w, cl_body *b, cl_tool *tool, cl_id *id) {
  cl_condition *c = cl_calloc(1, sizeof *c, "tool");
  if (!c) {
    cl_tool_free(tool);
    return CL_ERR_OUT_OF_MEMORY;
  }
  tool->number = ++w->tools_added;
  tool->t_start += w->time;
  tool->t_end += w->time;
  c->kind = tool->kind == CL_TOOL_KNIFE ? CL_CONDITION_KNIFE : CL_CONDITION_CONSTRAIN;
  c->body = b->id;
  c->t_add = w->time;
  c->tool = tool;
  /* brushes and anchors are constraints held at x0 (an anchor) or moved by cl_tool_target (a brush),
   * active until the release; they hold nothing until they start */
  cl_motion_def_default(&c->motion, CL_MOTION_FIXED);
  c->motion.release = w->time + tool->release;
  cl_status s = cl_pool_add(&w->conditions, c, &c->id);
  if (s < 0) {
    cl_condition_free(c);
    return s;
  }
  *id = c->id;
  return CL_OK;
}

/* The tool's position at world time t (knives, brushes) and its velocity. */
static void position_at(const cl_condition *c, double t, double *x, double *v) {
  double speed;
  cl_kinematic_at(&c->tool->track, t - c->t_add, x, v, &speed);
}

/* ---- brushes and anchors: taking nodes ------------------------------------------------------- */

static cl_status take_nodes(cl_world *w, cl_condition *c, double t0) {
  cl_tool *tool = c->tool;
  cl_body *b = cl_pool_find(&w->bodies, c->body);
  if (!b) return CL_OK;
  cl_region_def r = tool->region;
  if (tool->kind == CL_TOOL_BRUSH) {
    double v[3];
    position_at(c, t0, tool->grab_center, v);
    cl_region_def_default(&r, CL_REGION_SPHERE);
    memcpy(r.center, tool->grab_center, sizeof r.center);
    r.radius = tool->radius;
  }
  int32_t *nodes = NULL, count = 0;
  CL_TRY(cl_region_pick(&r, b, b->state.x, &nodes, &count));
  if (count == 0) {
    char what[160];
    double lo[3], hi[3];
    cl_region_describe(&r, what, sizeof what);
    cl_node_bounds(b->state.x, b->state.n, lo, hi);
    warn(w, tool, "%s #%d on %s took no node when it started at t = %g s: the %s holds no node, whose current "
         "bounding box is [%g, %g] x [%g, %g] x [%g, %g]; the %s does nothing", tool_name(tool->kind),
         (int)tool->number, b->label, t0, what, lo[0], hi[0], lo[1], hi[1], lo[2], hi[2], tool_name(tool->kind));
    return CL_OK;
  }
  double *x0 = cl_malloc(sizeof(double) * 3 * (size_t)count, "tool positions");
  if (!x0) {
    free(nodes);
    return CL_ERR_OUT_OF_MEMORY;
  }
  for (int32_t j = 0; j < count; ++j) memcpy(x0 + 3 * j, b->state.x + 3 * (size_t)nodes[j], 3 * sizeof(double));
  c->nodes = nodes;
  c->x0 = x0;
  c->count = c->capacity = count;
  tool->touched = 1;
  return cl_world_reserve_constraints(w, b);
}

cl_status cl_world_start_tools(cl_world *w, double t0) {
  for (int32_t i = 0; i < w->conditions.slots; ++i) {
    cl_condition *c = cl_pool_at(&w->conditions, i);
    if (!c || !c->tool || c->tool->started || !reached(t0, c->tool->t_start)) continue;
    c->tool->started = 1;
    if (c->tool->kind != CL_TOOL_KNIFE) CL_TRY(take_nodes(w, c, t0));
  }
  return CL_OK;
}

void cl_tool_target(const cl_condition *c, int32_t j, double t, double *x, double *v) {
  double p[3];
  position_at(c, t, p, v);
  for (int k = 0; k < 3; ++k) x[k] = c->x0[3 * j + k] + p[k] - c->tool->grab_center[k];
}

/* ---- knives ---------------------------------------------------------------------------------- */

/* Does an edge of the tets of st (current positions) meet triangle tri? */
static int crosses_mesh(const cl_body_state *st, const double *tri) {
  double lo[3], hi[3];
  for (int k = 0; k < 3; ++k) {
    lo[k] = fmin(tri[k], fmin(tri[3 + k], tri[6 + k]));
    hi[k] = fmax(tri[k], fmax(tri[3 + k], tri[6 + k]));
  }
  for (int32_t e = 0; e < st->ncells; ++e) {
    const int32_t *t = st->cells + 4 * (size_t)e;
    for (int q = 0; q < 6; ++q) {
      const double *p = st->x + 3 * (size_t)t[cl_tet_edge_corners[q][0]];
      const double *r = st->x + 3 * (size_t)t[cl_tet_edge_corners[q][1]];
      int outside = 0;
      for (int k = 0; k < 3 && !outside; ++k) outside = fmax(p[k], r[k]) < lo[k] || fmin(p[k], r[k]) > hi[k];
      if (!outside && cl_segment_triangle_intersect(p, r, tri, tri + 3, tri + 6, 0.0)) return 1;
    }
  }
  return 0;
}

/* The two triangles the blade sweeps moving from c0 to c1, as cut_surface events. */
static cl_status sweep(cl_body *b, cl_tool *tool, const double *c0, const double *c1) {
  double A0[3], B0[3], A1[3], B1[3], d[3], e[3];
  for (int k = 0; k < 3; ++k) {
    A0[k] = c0[k] + tool->blade[k];
    B0[k] = c0[k] + tool->blade[3 + k];
    A1[k] = c1[k] + tool->blade[k];
    B1[k] = c1[k] + tool->blade[3 + k];
    d[k] = c1[k] - c0[k];
    e[k] = tool->blade[3 + k] - tool->blade[k];
  }
  /* a blade moving along itself sweeps no area */
  const double n[3] = {e[1] * d[2] - e[2] * d[1], e[2] * d[0] - e[0] * d[2], e[0] * d[1] - e[1] * d[0]};
  const double area = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  const double scale = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]) * sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (!(area > 1e-12 * scale)) return CL_OK;
  double tris[2][9];
  memcpy(tris[0], A0, sizeof A0), memcpy(tris[0] + 3, B0, sizeof B0), memcpy(tris[0] + 6, B1, sizeof B1);
  memcpy(tris[1], A0, sizeof A0), memcpy(tris[1] + 3, B1, sizeof B1), memcpy(tris[1] + 6, A1, sizeof A1);
  for (int q = 0; q < 2; ++q) {
    const cl_fracture_event ev = cl_event_cut_surface(tris[q], INFINITY);
    CL_TRY(cl_event_push(&b->events, &ev));
    tool->triangles++;
    if (!tool->touched && b->state.cell_size == 4) tool->touched = crosses_mesh(&b->state, tris[q]);
  }
  return CL_OK;
}

cl_status cl_world_knife_events(cl_world *w, cl_body *b, double t0, double t1) {
  /* each step sweeps from one step back: material that moved behind the blade during the step (a
   * piece sagging as it comes loose drags the edges just ahead of the blade back across its path)
   * is still cut */
  const double back = t0 - (t1 - t0);
  for (int32_t i = 0; i < w->conditions.slots; ++i) {
    cl_condition *c = cl_pool_at(&w->conditions, i);
    if (!c || c->kind != CL_CONDITION_KNIFE || c->body != b->id || c->tool->done) continue;
    cl_tool *tool = c->tool;
    double prev[3], cur[3], v[3];
    position_at(c, back, prev, v);
    /* the path's corners inside [back, t1], then t1 */
    const cl_collider_def *tr = &tool->track;
    const double tau0 = back - c->t_add, tau1 = t1 - c->t_add;
    for (int32_t r = 0; r <= tr->path_count; ++r) {
      const double tau = r < tr->path_count ? tr->path[4 * r] : tau1;
      if (r < tr->path_count && !(tau > tau0 && tau < tau1)) continue;
      position_at(c, c->t_add + tau, cur, v);
      if (cur[0] != prev[0] || cur[1] != prev[1] || cur[2] != prev[2]) CL_TRY(sweep(b, tool, prev, cur));
      memcpy(prev, cur, sizeof prev);
    }
    tool->finished = reached(t1, tool->t_end);
    /* done once this step swept the last stretch of the motion a second time */
    if (!reached(t0, tool->t_end)) continue;
    tool->done = 1;
    if (!tool->touched && !tool->warned && b->state.cell_size == 4) {
      double lo[3], hi[3];
      cl_node_bounds(b->state.x, b->state.n, lo, hi);
      warn(w, tool, "knife #%d on %s finished its motion at t = %g s without cutting anything: the surface its blade "
           "swept (%lld triangles) crossed no edge of the body, whose current bounding box is [%g, %g] x [%g, %g] x "
           "[%g, %g]; check the blade and the path", (int)tool->number, b->label, tool->t_end,
           (long long)tool->triangles, lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]);
    }
  }
  return CL_OK;
}

/* ---- info ------------------------------------------------------------------------------------ */

void cl_tool_fill_info(const cl_condition *c, double t, cl_tool_info *info) {
  const cl_tool *tool = c->tool;
  memset(info, 0, sizeof *info);
  info->kind = tool->kind;
  info->started = tool->started;
  info->finished = tool->kind == CL_TOOL_KNIFE ? tool->finished : tool->kind == CL_TOOL_BRUSH && reached(t, tool->t_end);
  info->nodes = tool->kind == CL_TOOL_KNIFE ? 0 : c->count;
  info->touched = tool->touched;
  info->triangles = tool->triangles;
  if (tool->kind == CL_TOOL_ANCHOR) return;
  double v[3];
  position_at(c, t, info->position, v);
  if (tool->kind != CL_TOOL_KNIFE) return;
  for (int k = 0; k < 6; ++k) info->blade[k] = info->position[k % 3] + tool->blade[k];
}
