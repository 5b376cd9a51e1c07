/* Static equilibrium of the graph-based FEM (the solver table's `equilibrium`): the continuation loop
 * of fem/static_solve.h over Newton iterations on the model's projected tangent (exact where the
 * energy is convex, so the shift mostly stays 0 and the iteration converges quadratically), each one
 * a step of step.c in static mode: dt = 1, v = 0, A = K + mu M, b = f_el + f_ext + M g. Damage does
 * not change during a static solve (the criterion runs between world steps). */
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
                         double *merit, double *k_over_m) {
  cl_gfem *s = solver;
  s->sys.statics = 1;
  s->static_shift = shift;
  s->keep_contacts = keep_contacts;
  cl_step_report rep = {0, 0.0};
  const cl_status r = cl_gfem_step(s, st, one, &rep);
  *merit = sqrt(s->static_res2);
  if (k_over_m) *k_over_m = stiffness_over_mass(s, st);
  return r;
}

cl_status cl_gfem_equilibrium(void *solver, cl_body_state *st, const cl_step_input *in, const cl_static_def *opt,
                              cl_static_report *report) {
  cl_gfem *s = solver;
  const cl_status r = cl_fem_static_solve(s, iterate, st, in, opt, report);
  s->sys.statics = 0;
  s->keep_contacts = 0;
  s->static_shift = 0.0;
  return r;
}
