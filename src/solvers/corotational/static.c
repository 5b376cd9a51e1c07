/* Static equilibrium of the corotational solver (the solver table's `equilibrium`): Newton iterations
 * on the warped stiffness, each one the step machinery of step.c in its static mode.
 *
 * With the statics flag, one "step" of step.c with dt = 1 and v = 0 solves
 *     (K(x) + mu M) dx = f_el(x) + f_ext + M g            (eq 3.8 with mu in place of 1/dt^2)
 * under the constraints (dx lands a held node on its target), supports (their held rows) and the
 * contact active set (frictional, colliders held still, the contacts of the last iteration kept),
 * and moves x by dx: with mu = 0 a Newton iteration on the stiffness-warping tangent
 * K = sum_e R_e K_e R_e^T. That tangent leaves out the derivative of the element rotations, which is
 * not small when elements turn while they strain (a bending cantilever: the linear first step leaves
 * an unbalanced force ~100 times the load, and plain Newton then cycles). So the iteration is a
 * pseudo-transient continuation (Kelley & Keyes, SIAM J. Numer. Anal. 35, 1998): a mass shift mu,
 * started after the first step at 1e-6 of trace(K) / trace(M) and set by switched evolution
 * relaxation, mu_k+1 = mu_k |r_k+1| / |r_k|, grows where the unbalanced force grew and shrinks to
 * 0 (Newton) as it falls; a step that made it a hundred times worse is undone with ten times the
 * shift. Measured on a 1 x 0.1 x 0.1 m cantilever (1,496 nodes, tip load, 0.034 m deflection):
 * converged to 1e-9 of the load in 8 iterations, where the unshifted iteration cycled.
 *
 * The merit is the unbalanced force on the free dofs at the start of an iteration (step.c computes
 * it while it assembles), of a state that meets the constraints: an iteration that had to move held
 * rows (targets not reached yet, nodes found inside a collider) neither converges nor serves as a
 * yardstick. Converged when the merit is at most tolerance times the force scale, the larger of the
 * load ||f_ext + M g|| and the reactions of the first iteration (a body driven only by prescribed
 * displacements or pressed by a collider has no load: its reactions are its forces). Measured: 5-8
 * iterations on the Lame sphere, the three-point bend and the Hertz indentation of
 * validation/corotational.lua. Plastic flow does not advance (it is a rate: a static state has
 * none). After the last iteration the contacts' forces are recorded for the contact probes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "solvers/corotational/corot.h"

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

/* ||reactions||: the forces the constraints, supports and contacts exerted in the last iteration
 * (the impulses of their rows with dt = 1), the force scale of a problem driven by them alone */
static double reaction_norm(const cl_corot *s) {
  double r2 = 0.0;
  for (int32_t q = 0; q < s->nislands; ++q) {
    const cl_corot_island *isl = &s->islands[q];
    for (int32_t l = 0; l < isl->nnodes; ++l)
      if (isl->role[l] != CL_COROT_FREE)
        for (int k = 0; k < 3; ++k) {
          r2 += isl->cimp[3 * l + k] * isl->cimp[3 * l + k];
          if (isl->role[l] == CL_COROT_CONTACT && isl->nsup[l]) r2 += isl->simp[3 * l + k] * isl->simp[3 * l + k];
        }
  }
  return sqrt(r2);
}

/* sum of the trace of K's diagonal blocks over sum of masses (1/s^2): the scale of the shift, read
 * from the matrices of an iteration with no shift */
static double stiffness_over_mass(const cl_corot *s, const cl_body_state *st) {
  double k = 0.0, m = 0.0;
  for (int32_t q = 0; q < s->nislands; ++q) {
    const cl_corot_island *isl = &s->islands[q];
    const cl_bsr *A = isl->A;
    for (int32_t i = 0; i < A->n; ++i) {
      const double *d = A->val + 9 * A->diag[i];
      k += d[0] + d[4] + d[8];
      m += 3.0 * st->m[isl->nodes[i]];
    }
  }
  return m > 0.0 ? k / m : 0.0;
}

/* Record each live contact's force (the impulse of its rows with dt = 1, N) at its node, for the
 * world's contact probes: once, for the iteration the solve ended with. */
static void record_contacts(const cl_corot *s, const cl_body_state *st, const cl_collider_view *view) {
  for (int32_t q = 0; q < s->nislands; ++q) {
    const cl_corot_island *isl = &s->islands[q];
    for (int32_t l = 0; l < isl->nnodes; ++l)
      if (isl->role[l] == CL_COROT_CONTACT && isl->contact[l] != 0)
        cl_collider_record(&view->shapes[isl->ccol[l]], st->x + 3 * (size_t)isl->nodes[l], isl->cimp + 3 * (size_t)l);
  }
}

cl_status cl_corot_equilibrium(void *solver, cl_body_state *st, const cl_step_input *in, const cl_static_def *opt,
                               cl_static_report *report) {
  cl_corot *s = solver;
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
  double ref = load, merit_prev = INFINITY, merit = INFINITY, scale = 0.0;
  int32_t it = 0, rejected = 0;
  cl_status r = CL_OK, warn = CL_OK;
  s->statics = 1;
  s->static_shift = 0.0;
  for (it = 0; it < opt->max_iterations; ++it) {
    memset(st->v, 0, sizeof(double) * n3);
    memcpy(x_start, st->x, sizeof(double) * n3);
    s->keep_contacts = it > 0;
    s->static_res2 = s->static_imposed2 = 0.0;
    cl_step_report rep = {0, 0.0};
    r = cl_corot_step(s, st, &one, &rep);
    if (r < 0) break;
    if (r > warn) warn = r;
    merit = sqrt(s->static_res2);
    /* The merit is the unbalanced force of a state that meets the constraints. An iteration that had
     * to move held rows (targets not yet reached, nodes found inside a collider: the first one of a
     * problem driven by prescribed displacements or a penetrating collider) started from a state that
     * did not: its merit is neither converged nor a yardstick for the next one. */
    double moved2 = 0.0;
    for (size_t d = 0; d < n3; ++d) moved2 += (st->x[d] - x_start[d]) * (st->x[d] - x_start[d]);
    const int feasible = !(s->static_imposed2 > 1e-12 * moved2);
    if (it == 0) {
      /* the force scale: the load, or what the constraints and contacts carry when they drive it */
      ref = fmax(load, reaction_norm(s));
      scale = stiffness_over_mass(s, st);
    }
    if (!isfinite(merit)) {
      r = cl_fail(CL_ERR_NUMERICAL, "static solve: the unbalanced force became non-finite at iteration %d", (int)it + 1);
      break;
    }
    if (!(ref > 0.0)) break;                                /* no load, nothing held away from rest */
    if (feasible && merit <= opt->tolerance * ref) break;  /* x_start was converged; keep the last tiny step */
    if (it == 0) s->static_shift = 1e-6 * scale;
    if (!feasible) { /* no comparison with a state that broke a constraint */
      merit_prev = INFINITY;
      continue;
    }
    if (merit > 100.0 * merit_prev) {
      /* the last step was far too long: back to where it started, with a larger shift */
      memcpy(st->x, x_prev, sizeof(double) * n3);
      s->static_shift *= 10.0;
      ++rejected;
      continue;
    }
    /* switched evolution relaxation: the shift follows the unbalanced force, shrinking to 0 (Newton)
     * as it does and growing where it grew */
    if (merit_prev < INFINITY) {
      s->static_shift *= merit / merit_prev;
      if (s->static_shift < 1e-12 * scale) s->static_shift = 0.0;
    }
    merit_prev = merit;
    memcpy(x_prev, x_start, sizeof(double) * n3);
  }
  if (r >= 0) record_contacts(s, st, in->colliders);
  s->statics = 0;
  s->keep_contacts = 0;
  s->static_shift = 0.0;
  memset(st->v, 0, sizeof(double) * n3);
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
