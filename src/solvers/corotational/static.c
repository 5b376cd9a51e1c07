/* Static equilibrium of the corotational solver (the solver table's `equilibrium`): the continuation
 * loop of fem/static_solve.h over Newton iterations on the warped stiffness
 * K = sum_e R_e K_e R_e^T, each one a step of step.c in its static mode (dt = 1, v = 0, A = K + mu M,
 * eq 3.8 with mu in place of 1/dt^2). That tangent leaves out the derivative of the element rotations,
 * which is why the continuation's shift is needed here: measured on a 1 x 0.1 x 0.1 m cantilever
 * (1,496 nodes, tip load, 0.034 m deflection): converged to 1e-9 of the load in 8 iterations, where
 * the unshifted iteration cycled. The force reference, the feasibility rule of the merit and the
 * iteration counts of the statics validations are in fem/static_solve.h. Plastic flow does not
 * advance (it is a rate: a static state has none). After the last iteration the contacts' forces
 * are recorded for the contact probes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fem/static_solve.h"
#include "solvers/corotational/corot.h"

/* sum of the trace of K's diagonal blocks over sum of masses (1/s^2): the scale of the shift, read
 * from the matrices of an iteration with no shift */
static double stiffness_over_mass(const cl_corot *s, const cl_body_state *st) {
  double k = 0.0, m = 0.0;
  for (int32_t q = 0; q < s->nislands; ++q) {
    const cl_corot_island *isl = &s->islands[q];
    const cl_bsr *A = isl->sys.A;
    for (int32_t i = 0; i < A->n; ++i) {
      const double *d = A->val + 9 * A->diag[i];
      k += d[0] + d[4] + d[8];
      m += 3.0 * st->m[isl->nodes[i]];
    }
  }
  return m > 0.0 ? k / m : 0.0;
}

/* One static iteration (fem/static_solve.h): the merit, reactions and imposed displacement summed
 * over the islands. */
static cl_status iterate(void *solver, cl_body_state *st, const cl_step_input *one, double shift, int keep_contacts,
                         int want_scale, cl_fem_static_result *out) {
  cl_corot *s = solver;
  s->statics = 1;
  s->static_shift = shift;
  s->keep_contacts = keep_contacts;
  s->static_res2 = 0.0;
  cl_step_report rep = {0, 0.0};
  const cl_status r = cl_corot_step(s, st, one, &rep);
  double react2 = 0.0, imposed2 = 0.0;
  int32_t reprojected = 0;
  for (int32_t q = 0; q < s->nislands; ++q) {
    react2 += cl_fem_system_reaction2(&s->islands[q].sys);
    imposed2 += s->islands[q].sys.imposed2;
    reprojected += s->islands[q].sys.reprojected;
  }
  out->merit = sqrt(s->static_res2);
  out->reactions = sqrt(react2);
  out->imposed2 = imposed2;
  out->reprojected = reprojected;
  if (want_scale) out->k_over_m = stiffness_over_mass(s, st);
  return r;
}

/* The contact forces of the equilibrium, for the world's contact probes. */
static void record_contacts(void *solver, const cl_body_state *st, const cl_collider_view *view) {
  const cl_corot *s = solver;
  for (int32_t q = 0; q < s->nislands; ++q) cl_fem_system_record_contacts(&s->islands[q].sys, st, view);
}

cl_status cl_corot_equilibrium(void *solver, cl_body_state *st, const cl_step_input *in, const cl_static_def *opt,
                               cl_static_report *report) {
  cl_corot *s = solver;
  static const cl_fem_static_ops ops = {iterate, record_contacts};
  const cl_status r = cl_fem_static_solve(s, &ops, st, in, opt, report);
  s->statics = 0;
  s->keep_contacts = 0;
  s->static_shift = 0.0;
  return r;
}
