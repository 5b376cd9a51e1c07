/* Static equilibrium of the graph-based FEM (the solver table's `equilibrium`): the continuation loop
 * of fem/static_solve.h over Newton iterations on the model's projected tangent (exact where the
 * energy is convex, so the shift mostly stays 0 and the iteration converges quadratically), each one
 * a step of step.c in static mode: dt = 1, v = 0, A = K + mu M, b = f_el + f_ext + M g. Damage does
 * not change during a static solve (the criterion runs between world steps). After the last
 * iteration the contacts' forces are recorded for the contact probes. */
#include <math.h>

#include "fem/static_solve.h"
#include "solvers/graph_fem/gfem.h"

/* trace of K's diagonal blocks over the masses (1/s^2), from an unshifted iteration's matrix */
static double stiffness_over_mass(const cl_gfem *s, const cl_body_state *st) {
  const cl_bsr *A = s->sys.A;
  double k = 0.0, m = 0.0;
  for (int32_t i = 0; i < A->n; ++i) {
    const double *d = A->val + 9 * A->diag[i];
    k += d[0] + d[4] + d[8];
    m += 3.0 * st->m[i];
  }
  return m > 0.0 ? k / m : 0.0;
}

static cl_status iterate(void *solver, cl_body_state *st, const cl_step_input *one, double shift, int keep_contacts,
                         int want_scale, cl_fem_static_result *out) {
  cl_gfem *s = solver;
  s->sys.statics = 1;
  s->static_shift = shift;
  s->keep_contacts = keep_contacts;
  cl_step_report rep = {0, 0.0};
  const cl_status r = cl_gfem_step(s, st, one, &rep);
  out->merit = sqrt(s->static_res2);
  out->reactions = sqrt(cl_fem_system_reaction2(&s->sys));
  out->imposed2 = s->sys.imposed2;
  out->reprojected = s->sys.reprojected;
  if (want_scale) out->k_over_m = stiffness_over_mass(s, st);
  return r;
}

/* The contact forces of the equilibrium, for the world's contact probes. */
static void record_contacts(void *solver, const cl_body_state *st, const cl_collider_view *view) {
  const cl_gfem *s = solver;
  cl_fem_system_record_contacts(&s->sys, st, view);
}

cl_status cl_gfem_equilibrium(void *solver, cl_body_state *st, const cl_step_input *in, const cl_static_def *opt,
                              cl_static_report *report) {
  cl_gfem *s = solver;
  static const cl_fem_static_ops ops = {iterate, record_contacts};
  const cl_status r = cl_fem_static_solve(s, &ops, st, in, opt, report);
  s->sys.statics = 0;
  s->keep_contacts = 0;
  s->static_shift = 0.0;
  return r;
}
