/* The continuation loop of a static solve; see static_solve.h. */
#include "fem/static_solve.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"

/* ||f_ext + M g|| over all nodes. */
static double load_norm(const cl_body_state *st, const cl_step_input *in) {
  double s = 0.0;
  for (int32_t i = 0; i < st->n; ++i)
    for (int k = 0; k < 3; ++k) {
      const double f = st->m[i] * in->gravity[k] + (in->f_ext ? in->f_ext[3 * (size_t)i + k] : 0.0);
      s += f * f;
    }
  return sqrt(s);
}

cl_status cl_fem_static_solve(void *solver, const cl_fem_static_ops *ops, cl_body_state *st, const cl_step_input *in,
                              const cl_static_def *opt, cl_static_report *report) {
  const size_t n3 = 3 * (size_t)st->n;
  double *x_start = cl_malloc(sizeof(double) * n3, "static solve positions");
  double *x_prev = cl_malloc(sizeof(double) * n3, "static solve positions");
  if (!x_start || !x_prev) {
    free(x_start);
    free(x_prev);
    return CL_ERR_OUT_OF_MEMORY;
  }
  cl_step_input one = *in;
  one.dt = 1.0;
  const double load = load_norm(st, in);
  double ref = 0.0, merit_prev = INFINITY, merit = INFINITY, scale = 0.0, shift = 0.0;
  int32_t it = 0, rejected = 0;
  /* The polish: Newton's iterations keep each contact's first normal (cl_fem_system_begin), so on a
   * curved collider an equilibrium leaves its contact nodes on the tangent planes of their first
   * contact points, off the surface by about the square of their slide over twice the radius. Once
   * converged, one iteration moves the kept contacts to the surface under their nodes (keep_contacts
   * 2) and the loop converges again; its gap is then of the order of the square of that iteration's
   * own slide. Only spheres are curved among the colliders (a plane's or a box face's normal does not
   * turn), so only they ask for it. 0: not yet, 1: this iteration, 2: done (or not needed). */
  int polish = 2;
  for (int32_t c = 0; in->colliders && c < in->colliders->count; ++c)
    if (in->colliders->shapes[c].kind == CL_COLLIDER_SPHERE) polish = 0; /* planes and boxes are flat */
  cl_status r = CL_OK, warn = CL_OK;
  for (it = 0; it < opt->max_iterations; ++it) {
    memset(st->v, 0, sizeof(double) * n3);
    memcpy(x_start, st->x, sizeof(double) * n3);
    cl_fem_static_result res = {0.0, 0.0, 0.0, 0.0, 0};
    const int polishing = polish == 1 && it > 0;
    r = ops->iterate(solver, st, &one, shift, it == 0 ? 0 : polishing ? 2 : 1, it == 0, &res);
    if (r < 0) break;
    if (r > warn) warn = r;
    merit = res.merit;
    /* The merit is the unbalanced force of a state that meets the constraints (header): an iteration
     * whose held rows had to move, by more than rounding against the whole move, is no comparison. */
    double moved2 = 0.0;
    for (size_t d = 0; d < n3; ++d) moved2 += (st->x[d] - x_start[d]) * (st->x[d] - x_start[d]);
    const int feasible = !(res.imposed2 > 1e-12 * moved2);
    if (it == 0) {
      /* the force scale: the load, or what the constraints and contacts carry when they drive it */
      ref = fmax(load, res.reactions);
      scale = res.k_over_m;
    }
    if (!isfinite(merit)) {
      r = cl_fail(CL_ERR_NUMERICAL, "static solve: the unbalanced force became non-finite at iteration %d", (int)it + 1);
      break;
    }
    if (!(ref > 0.0)) break; /* no load, nothing held away from rest */
    if (polishing) {
      polish = 2;
      if (res.reprojected > 0) { /* contacts moved: converge again from the polished state */
        merit_prev = INFINITY;
        continue;
      }
    }
    if (feasible && merit <= opt->tolerance * ref) { /* x_start was converged; keep the last tiny step */
      if (polish == 0) {
        polish = 1;
        continue;
      }
      break;
    }
    if (it == 0) shift = 1e-6 * scale;
    if (!feasible) { /* no comparison with a state that broke a constraint */
      merit_prev = INFINITY;
      continue;
    }
    if (merit > 100.0 * merit_prev) {
      /* the last step was far too long: back to where it started, with a larger shift */
      memcpy(st->x, x_prev, sizeof(double) * n3);
      shift *= 10.0;
      ++rejected;
      continue;
    }
    /* switched evolution relaxation: the shift follows the unbalanced force, shrinking to 0 (Newton)
     * as it does and growing where it grew */
    if (merit_prev < INFINITY) {
      shift *= merit / merit_prev;
      if (shift < 1e-12 * scale) shift = 0.0;
    }
    merit_prev = merit;
    memcpy(x_prev, x_start, sizeof(double) * n3);
  }
  memset(st->v, 0, sizeof(double) * n3);
  if (r >= 0 && ops->record_contacts && in->colliders) ops->record_contacts(solver, st, in->colliders);
  free(x_start);
  free(x_prev);
  report->iterations = it + (it < opt->max_iterations);
  report->residual = ref > 0.0 ? merit / ref : 0.0;
  if (r < 0) return cl_fail_context(r, "static solve: ");
  if (it >= opt->max_iterations)
    return cl_fail(CL_WARN_NOT_CONVERGED, "static solve did not converge in %d Newton iterations: unbalanced force %.3g "
                   "of the load (tolerance %.3g, %d steps rejected); raise max_iterations or load_steps",
                   (int)opt->max_iterations, report->residual, opt->tolerance, (int)rejected);
  return warn;
}
