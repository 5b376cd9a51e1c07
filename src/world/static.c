/* Static equilibrium of the world (cl_world_solve_static): load stepping around each body's solver
 * `equilibrium` op, and the check that constraints and supports hold every rigid motion of every
 * piece (a free rigid mode makes the stiffness singular: the error names the modes).
 *
 * Load steps: increment j of L scales gravity, forces and surface loads by s = j / L, and puts each
 * held node's target (and each supported node's held components) at x0 + s (target - x0), x0 where
 * the node was when the solve began, so large prescribed displacements are reached gradually too.
 * Targets are those of the current world time; time does not advance. Colliders stay where they are
 * (contact as in the solvers' steps, without the colliders moving). A pressure on the current surface
 * is rebuilt at each equilibrium and the body solved again until it settles. Contact probes read the contact
 * forces of the equilibrium: the solver records them (forces, dt = 1) once it has converged, and the
 * probes, which read a record over the world's dt, get them times dt. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "geom/components.h"
#include "world/world.h"

/* Jacobi eigenvalues of a symmetric 6x6 matrix (in place: the diagonal ends as the eigenvalues, V's
 * columns the eigenvectors). Small and exact enough for a rank test. */
static void jacobi6(double A[36], double V[36]) {
  for (int i = 0; i < 36; ++i) V[i] = (i % 7 == 0) ? 1.0 : 0.0;
  for (int sweep = 0; sweep < 50; ++sweep) {
    double off = 0.0;
    for (int p = 0; p < 6; ++p)
      for (int q = p + 1; q < 6; ++q) off += A[6 * p + q] * A[6 * p + q];
    if (off < 1e-300) return;
    for (int p = 0; p < 6; ++p)
      for (int q = p + 1; q < 6; ++q) {
        const double apq = A[6 * p + q];
        if (fabs(apq) < 1e-300) continue;
        const double theta = (A[6 * q + q] - A[6 * p + p]) / (2.0 * apq);
        const double t = (theta >= 0.0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
        const double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
        for (int k = 0; k < 6; ++k) { /* columns p, q */
          const double akp = A[6 * k + p], akq = A[6 * k + q];
          A[6 * k + p] = c * akp - s * akq;
          A[6 * k + q] = s * akp + c * akq;
        }
        for (int k = 0; k < 6; ++k) { /* rows p, q */
          const double apk = A[6 * p + k], aqk = A[6 * q + k];
          A[6 * p + k] = c * apk - s * aqk;
          A[6 * q + k] = s * apk + c * aqk;
        }
        for (int k = 0; k < 6; ++k) {
          const double vkp = V[6 * k + p], vkq = V[6 * k + q];
          V[6 * k + p] = c * vkp - s * vkq;
          V[6 * k + q] = s * vkp + c * vkq;
        }
      }
  }
}

/* Add the held direction a of node position x to G = sum (a . u_m)(a . u_n) over the rigid modes
 * u_m of the piece (translations e_k, rotations e_k x (x - c), lengths scaled by L). */
static void add_direction(double G[36], const double *a, const double *x, const double *c, double L) {
  const double r[3] = {(x[0] - c[0]) / L, (x[1] - c[1]) / L, (x[2] - c[2]) / L};
  /* a . (e_k x r) = e_k . (r x a) */
  const double rxa[3] = {r[1] * a[2] - r[2] * a[1], r[2] * a[0] - r[0] * a[2], r[0] * a[1] - r[1] * a[0]};
  const double u[6] = {a[0], a[1], a[2], rxa[0], rxa[1], rxa[2]};
  for (int m = 0; m < 6; ++m)
    for (int n = 0; n < 6; ++n) G[6 * m + n] += u[m] * u[n];
}

/* The free rigid modes of a piece, as text ("translation along x, rotation about (0, 0, 1)"), or ""
 * when none. */
static void free_modes(const double G0[36], char *out, size_t size) {
  double G[36], V[36];
  memcpy(G, G0, sizeof G);
  jacobi6(G, V);
  double top = 0.0;
  for (int m = 0; m < 6; ++m) top = fmax(top, G[7 * m]);
  size_t used = 0;
  out[0] = '\0';
  static const char *const axis[3] = {"x", "y", "z"};
  for (int m = 0; m < 6 && used + 1 < size; ++m) {
    if (G[7 * m] > 1e-9 * top && top > 0.0) continue;
    const double *v = V + m; /* column m: v[6 k] */
    double t2 = 0.0, r2 = 0.0;
    for (int k = 0; k < 3; ++k) {
      t2 += v[6 * k] * v[6 * k];
      r2 += v[6 * (k + 3)] * v[6 * (k + 3)];
    }
    const int rot = r2 > t2, off = rot ? 3 : 0;
    int big = 0, count = 0;
    for (int k = 0; k < 3; ++k) {
      if (fabs(v[6 * (k + off)]) > fabs(v[6 * (big + off)])) big = k;
      count += fabs(v[6 * (k + off)]) > 1e-6;
    }
    int w;
    if (count == 1)
      w = snprintf(out + used, size - used, "%s%s %s %s", used ? ", " : "", rot ? "rotation" : "translation",
                   rot ? "about" : "along", axis[big]);
    else
      w = snprintf(out + used, size - used, "%s%s %s (%.2f, %.2f, %.2f)", used ? ", " : "",
                   rot ? "rotation" : "translation", rot ? "about" : "along", v[6 * off], v[6 * (off + 1)],
                   v[6 * (off + 2)]);
    if (w < 0) break;
    used += (size_t)w;
  }
}

/* Every piece of the body must have its six rigid modes held by the merged constraints and
 * supports (colliders do not count: a contact may let go). */
static cl_status check_rigid_modes(cl_body *b) {
  const cl_body_state *st = &b->state;
  int32_t pieces = 1;
  int32_t *label = calloc((size_t)st->n + 1, sizeof *label);
  if (!label) return cl_fail(CL_ERR_OUT_OF_MEMORY, "static solve: out of memory");
  if (st->cell_size > 0 && st->ncells > 0) {
    cl_status s = cl_body_piece_labels(b, label, &pieces);
    if (s < 0) {
      free(label);
      return s;
    }
  }
  double *G = calloc((size_t)pieces * 36, sizeof *G), *c = calloc((size_t)pieces * 4, sizeof *c);
  cl_status r = CL_OK;
  if (!G || !c) {
    r = cl_fail(CL_ERR_OUT_OF_MEMORY, "static solve: out of memory");
    goto done;
  }
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int32_t i = 0; i < st->n; ++i) {
    double *ci = c + 4 * label[i];
    for (int k = 0; k < 3; ++k) {
      ci[k] += st->x[3 * i + k];
      lo[k] = fmin(lo[k], st->x[3 * i + k]);
      hi[k] = fmax(hi[k], st->x[3 * i + k]);
    }
    ci[3] += 1.0;
  }
  for (int32_t p = 0; p < pieces; ++p)
    for (int k = 0; k < 3; ++k) c[4 * p + k] /= c[4 * p + 3] > 0.0 ? c[4 * p + 3] : 1.0;
  const double L = fmax(1e-300, fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2])));
  static const double e[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  for (int32_t j = 0; j < b->c_count; ++j) {
    const int32_t i = b->c_nodes[j];
    for (int k = 0; k < 3; ++k) add_direction(G + 36 * label[i], e + 3 * k, st->x + 3 * i, c + 4 * label[i], L);
  }
  for (int32_t j = 0; j < b->s_count; ++j) {
    const int32_t i = b->s_nodes[j];
    for (int k = 0; k < b->s_held[j]; ++k)
      add_direction(G + 36 * label[i], b->s_axes + 9 * j + 3 * k, st->x + 3 * i, c + 4 * label[i], L);
  }
  for (int32_t p = 0; p < pieces; ++p) {
    char modes[512];
    free_modes(G + 36 * p, modes, sizeof modes);
    if (!modes[0]) continue;
    r = cl_fail(CL_ERR_INVALID_ARGUMENT,
                "static solve: %s%s can still move as a rigid body (%s): its fixed, driven and supported nodes do "
                "not hold it there (colliders do not count, a contact may let go); hold it with world:fix or "
                "world:support (a symmetry plane, a roller)", b->label, pieces > 1 ? " has a piece that" : "", modes);
    break;
  }
done:
  free(label);
  free(G);
  free(c);
  return r;
}

/* Equilibria per load step at most while a follower pressure settles. */
enum { FOLLOWER_PASSES = 20 };

/* Whether a body carries a pressure on its current surface (a follower load). */
static int has_follower_load(const cl_world *w, const cl_body *b) {
  for (int32_t i = 0; i < w->conditions.slots; ++i) {
    const cl_condition *c = cl_pool_at(&w->conditions, i);
    if (c && c->body == b->id && c->kind == CL_CONDITION_SURFACE_LOAD && c->load.kind == CL_LOAD_PRESSURE &&
        c->load.follow)
      return 1;
  }
  return 0;
}

void cl_static_def_default(cl_static_def *def) {
  if (!def) return;
  memset(def, 0, sizeof *def);
  def->load_steps = 1;
  def->max_iterations = 50;
  def->tolerance = 1e-6;
}

cl_status cl_world_static(cl_world *w, const cl_static_def *def, cl_static_report *report) {
  cl_static_report total = {0, 0, 0.0};
  const double t = w->time;
  cl_collider_view view = {0, w->shapes};
  for (int32_t i = 0; i < w->colliders.slots; ++i) {
    cl_collider *c = cl_pool_at(&w->colliders, i);
    if (w->shape_of_slot) w->shape_of_slot[i] = c ? view.count : -1;
    if (!c) continue;
    cl_collider_pose(c, t, &w->shapes[view.count]);
    memset(w->shapes[view.count].velocity, 0, 3 * sizeof(double)); /* held still */
    memset(w->shapes[view.count].omega, 0, 3 * sizeof(double));
    view.count++;
  }
  /* brushes and anchors whose start time has come take their nodes (tools.c), as a step would */
  CL_TRY(cl_world_start_tools(w, t));
  /* every body first: a solver that cannot, free rigid modes */
  for (int32_t i = 0; i < w->bodies.slots; ++i) {
    cl_body *b = cl_pool_at(&w->bodies, i);
    if (!b) continue;
    if (!b->ops->equilibrium)
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "static solve: %s uses solver '%s', which has no static solve (it has no "
                     "stiffness to solve with); step it to rest instead, or use a FEM solver such as 'corotational'",
                     b->label, b->ops->name);
    cl_world_build_constraints(w, b, t, t);
    CL_TRY(check_rigid_modes(b));
  }
  cl_status warn = CL_OK;
  for (int32_t i = 0; i < w->bodies.slots; ++i) {
    cl_body *b = cl_pool_at(&w->bodies, i);
    if (!b) continue;
    cl_body_state *st = &b->state;
    double *x0 = cl_malloc(sizeof(double) * 3 * (size_t)st->n, "static solve positions");
    if (!x0) return CL_ERR_OUT_OF_MEMORY;
    double *f_prev = NULL; /* the forces of the last pass, for a body with a follower pressure */
    if (has_follower_load(w, b) && !(f_prev = cl_malloc(sizeof(double) * 3 * (size_t)st->n, "static solve forces"))) {
      free(x0);
      return CL_ERR_OUT_OF_MEMORY;
    }
    memcpy(x0, st->x, sizeof(double) * 3 * (size_t)st->n);
    cl_status s = CL_OK;
    for (int32_t j = 1; j <= def->load_steps && s >= 0; ++j) {
      const double f = (double)j / def->load_steps;
      const double g[3] = {f * w->gravity[0], f * w->gravity[1], f * w->gravity[2]};
      b->has_forces = cl_world_build_forces(w, b, t);
      if (b->has_forces)
        for (int64_t d = 0; d < 3 * (int64_t)st->n; ++d) b->f_ext[d] *= f;
      cl_world_build_constraints(w, b, t, t);
      for (int32_t q = 0; q < b->c_count; ++q)
        for (int k = 0; k < 3; ++k) {
          double *tx = b->c_x + 3 * q + k;
          const double x = x0[3 * b->c_nodes[q] + k];
          *tx = x + f * (*tx - x);
          b->c_v[3 * q + k] = 0.0;
        }
      for (int32_t q = 0; q < b->s_count; ++q)
        for (int k = 0; k < 3; ++k) {
          double *tx = b->s_x + 3 * q + k;
          const double x = x0[3 * b->s_nodes[q] + k];
          *tx = x + f * (*tx - x);
          b->s_v[3 * q + k] = 0.0;
        }
      cl_step_input in = {.dt = 1.0,
                          .time = t,
                          .gravity = g,
                          .f_ext = b->has_forces ? b->f_ext : NULL,
                          .constraints = {b->c_count, b->c_nodes, b->c_x, b->c_v, b->c_r},
                          .supports = {b->s_count, b->s_nodes, b->s_held, b->s_axes, b->s_x, b->s_v, b->s_r},
                          .colliders = &view,
                          .threads = w->threads};
      /* A follower pressure depends on where the surface ends: the solver holds f_ext fixed, so
       * the forces are rebuilt at its equilibrium and it is solved again until they stop changing
       * (a fixed point; each pass starts next to the last equilibrium). */
      for (int32_t pass = 0;; ++pass) {
        cl_static_report rep = {0, 0, 0.0};
        if (w->contact_probes) { /* the last equilibrium's contact forces only */
          for (int32_t q = 0; q < w->probes.slots; ++q) {
            cl_probe *p = cl_pool_at(&w->probes, q);
            if (p && p->def.kind == CL_PROBE_CONTACT && p->def.body == b->id) memset(p->contact, 0, sizeof p->contact);
          }
          cl_world_contact_records_on(w, &view);
        }
        s = b->ops->equilibrium(b->solver, st, &in, def, &rep);
        if (w->contact_probes) cl_world_contact_records_off(w, b, &view, w->def.dt);
        total.iterations += rep.iterations;
        total.residual = fmax(total.residual, rep.residual);
        if (s > warn) warn = s;
        if (s < 0) {
          cl_fail_context(s, "%s: load step %d of %d: ", b->label, (int)j, (int)def->load_steps);
          break;
        }
        if (!f_prev) break;
        memcpy(f_prev, b->f_ext, sizeof(double) * 3 * (size_t)st->n);
        cl_world_build_forces(w, b, t);
        double df2 = 0.0, f2 = 0.0;
        for (int64_t d = 0; d < 3 * (int64_t)st->n; ++d) {
          b->f_ext[d] *= f;
          df2 += (b->f_ext[d] - f_prev[d]) * (b->f_ext[d] - f_prev[d]);
          f2 += b->f_ext[d] * b->f_ext[d];
        }
        if (df2 <= def->tolerance * def->tolerance * f2) break;
        if (pass + 1 >= FOLLOWER_PASSES) {
          warn = cl_fail(CL_WARN_NOT_CONVERGED, "static solve: %s: the follower pressure still changed by %.3g of "
                         "the load after %d equilibria at load step %d; raise load_steps", b->label,
                         sqrt(df2 / f2), (int)FOLLOWER_PASSES, (int)j);
          break;
        }
      }
    }
    free(x0);
    free(f_prev);
    if (s < 0) return s;
    int32_t bad = -1;
    const char *what = "value";
    if (!cl_body_state_finite(st, &bad, &what))
      return cl_fail(CL_ERR_NUMERICAL, "static solve: %s: non-finite %s of node %d", b->label, what, bad);
    /* the reactions of the last increment are the equilibrium reactions */
    for (int32_t q = 0; q < w->conditions.slots; ++q) {
      cl_condition *c = cl_pool_at(&w->conditions, q);
      if (c && c->body == b->id) c->reaction_acc[0] = c->reaction_acc[1] = c->reaction_acc[2] = 0.0;
    }
    cl_world_accumulate_reactions(w, b, t);
    for (int32_t q = 0; q < w->conditions.slots; ++q) {
      cl_condition *c = cl_pool_at(&w->conditions, q);
      if (c && c->body == b->id) memcpy(c->reaction, c->reaction_acc, sizeof c->reaction);
    }
  }
  total.increments = def->load_steps;
  if (report) *report = total;
  if (warn > 0) return cl_fail(warn, "%s", cl_last_error());
  if (w->tool_warning[0]) { /* a tool that took no node */
    cl_fail(CL_WARN_NO_EFFECT, "%s", w->tool_warning);
    w->tool_warning[0] = '\0';
    return CL_WARN_NO_EFFECT;
  }
  return CL_OK;
}
