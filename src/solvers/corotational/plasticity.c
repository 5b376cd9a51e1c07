/* Plastic flow of the corotational solver (thesis sec 3.2.3: yield, creep, max; Mueller & Gross 2004
 * sec 4.3; O'Brien, Bargteil & Hodgins 2002 eq 21 for the "fraction of the excess" form).
 *
 * Per element, with the total strain eps = S - I in the element's rest frame and the stored plastic
 * strain eps_p, the elastic strain is eps_e = eps - eps_p. Plastic flow is volume preserving, so it
 * is driven by the deviator e' = eps_e - tr(eps_e)/3 I:
 *
 *   yield_eff = yield + hardening ||eps_p||_F                       (linear work hardening)
 *   if ||e'||_F > yield_eff:
 *     eps_p += min(1, creep dt) (1 - yield_eff / ||e'||_F) e'       (a fraction of the excess)
 *   if max > 0 and ||eps_p||_F > max:  eps_p *= max / ||eps_p||_F   (the thesis's plastic max)
 *
 * creep (material.plastic_flow) is a rate in 1/s, so the result does not depend on dt except
 * through the cap min(1, creep dt): creep dt >= 1 moves the whole excess at once (perfect
 * plasticity). The part clipped by the cap is the "excess plastic" that the plastic_excess
 * criterion (fracture/plastic_excess.c, thesis sec 5.6) turns into a per-node force. */
#include <math.h>

#include "solvers/corotational/corot.h"

cl_mat3 cl_corot_sym_from6(const double *e) {
  cl_mat3 m = {{e[0], e[3], e[5], e[3], e[1], e[4], e[5], e[4], e[2]}};
  return m;
}

void cl_corot_sym_to6(const cl_mat3 *m, double *e) {
  e[0] = m->m[0];
  e[1] = m->m[4];
  e[2] = m->m[8];
  e[3] = 0.5 * (m->m[1] + m->m[3]);
  e[4] = 0.5 * (m->m[5] + m->m[7]);
  e[5] = 0.5 * (m->m[2] + m->m[6]);
}

/* Frobenius norm of a symmetric matrix stored as 6 (off-diagonals count twice). */
static double norm6(const double *e) {
  return sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + 2.0 * (e[3] * e[3] + e[4] * e[4] + e[5] * e[5]));
}

int cl_corot_plastic_flow(const cl_corot *s, const cl_mat3 *eps_total, double dt, double *eps_p) {
  double t6[6], d[6];
  cl_corot_sym_to6(eps_total, t6);
  for (int k = 0; k < 6; ++k) d[k] = t6[k] - eps_p[k];
  double tr3 = (d[0] + d[1] + d[2]) / 3.0;
  d[0] -= tr3;
  d[1] -= tr3;
  d[2] -= tr3;
  double n = norm6(d);
  double yield = s->yield + s->hardening * norm6(eps_p);
  if (yield < 0.0) yield = 0.0;
  if (n > yield && n > 0.0) {
    double rate = s->flow * dt;
    if (rate > 1.0) rate = 1.0;
    double c = rate * (1.0 - yield / n);
    for (int k = 0; k < 6; ++k) eps_p[k] += c * d[k];
  }
  if (s->plastic_max > 0.0) {
    double np = norm6(eps_p);
    if (np > s->plastic_max) {
      double c = s->plastic_max / np;
      for (int k = 0; k < 6; ++k) eps_p[k] *= c;
      return 1;
    }
  }
  return 0;
}
