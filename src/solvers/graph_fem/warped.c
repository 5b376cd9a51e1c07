/* The warped tangent of graph_fem (parameter tangent = warped; docs/solvers/graph_fem.md, "The
 * warped tangent"): an intact element keeps its model's forces and energy, computed here in closed
 * form without an SVD,
 *   corotated          P = 2 mu (F - R) + lambda tr(R^T F - I) R
 *   stvk               P = F (2 mu E + lambda tr(E) I),  E = (F^T F - I) / 2
 *   stable_neohookean  P = mu' (1 - 1 / (I_C + 1)) F + lambda' (J - alpha) cof(F),  cof(F) = dJ/dF
 * (the derivatives of the energies of fem/material.h; R the polar rotation of F, so R^T F = S), and
 * takes for its stiffness the rotated small-strain element of the corotational solver,
 *   K_ab = V (lambda0 h_a h_b^T + mu0 h_b h_a^T + mu0 (h_a . h_b) I),   h_a = R g_a
 * with lambda0, mu0 the Lame constants of E and nu (fem/tet.h's warped blocks): only the 12 numbers
 * h are stored, and the assembly makes the blocks (assembly.c). For the corotated model this is
 * stiffness warping (Mueller and Gross 2004): the model's tangent without the rotation's derivative.
 * Equilibria are the model's (the forces are); a step's linearisation is not. */
#include <math.h>
#include <string.h>

#include "base/error.h"
#include "fem/tet.h"
#include "solvers/graph_fem/gfem.h"

/* The polar rotation: the division-free iteration for near-rotations, else cl_polar3. */
static int rotation_of(const cl_mat3 *F, cl_mat3 *R) {
  if (cl_polar3_near(F, R, NULL)) return 1;
  return cl_polar3(F, R, NULL) >= 0;
}

int cl_gfem_closed_form_piola(const cl_fem_material *m, const cl_mat3 *Fp, cl_mat3 *Rout, cl_mat3 *Pout, double *psi_out) {
  const cl_mat3 F = *Fp;
  cl_mat3 R = cl_mat3_identity();
  /* only the corotated P needs the rotation (and the caller that asks for it): skip the iteration else */
  if ((Rout || m->model == CL_FEM_COROTATED) && !rotation_of(&F, &R)) return 0;
  cl_mat3 P;
  double psi = 0.0;
  switch (m->model) {
    case CL_FEM_COROTATED: {
      const cl_mat3 S = cl_mat3_mul_tn(&R, &F);
      const double tr = S.m[0] + S.m[4] + S.m[8] - 3.0;
      double n2 = 0.0;
      for (int k = 0; k < 9; ++k) {
        const double d = S.m[k] - (k % 4 == 0 ? 1.0 : 0.0);
        n2 += d * d;
      }
      psi = m->mu * n2 + 0.5 * m->lambda * tr * tr;
      for (int k = 0; k < 9; ++k) P.m[k] = 2.0 * m->mu * (F.m[k] - R.m[k]) + m->lambda * tr * R.m[k];
      break;
    }
    case CL_FEM_STVK: {
      cl_mat3 E = cl_mat3_mul_tn(&F, &F);
      E.m[0] -= 1.0;
      E.m[4] -= 1.0;
      E.m[8] -= 1.0;
      E = cl_mat3_scale(&E, 0.5);
      const double tr = E.m[0] + E.m[4] + E.m[8];
      double n2 = 0.0;
      for (int k = 0; k < 9; ++k) n2 += E.m[k] * E.m[k];
      psi = m->mu * n2 + 0.5 * m->lambda * tr * tr;
      cl_mat3 Sk = cl_mat3_scale(&E, 2.0 * m->mu);
      Sk.m[0] += m->lambda * tr;
      Sk.m[4] += m->lambda * tr;
      Sk.m[8] += m->lambda * tr;
      P = cl_mat3_mul(&F, &Sk);
      break;
    }
    default: { /* stable Neo-Hookean */
      double ic = 0.0;
      for (int k = 0; k < 9; ++k) ic += F.m[k] * F.m[k];
      const double J = cl_mat3_det(&F);
      /* cof(F) = dJ/dF: the cross products of F's columns */
      const double *f = F.m;
      const double cof[9] = {f[4] * f[8] - f[5] * f[7], f[5] * f[6] - f[3] * f[8], f[3] * f[7] - f[4] * f[6],
                             f[2] * f[7] - f[1] * f[8], f[0] * f[8] - f[2] * f[6], f[1] * f[6] - f[0] * f[7],
                             f[1] * f[5] - f[2] * f[4], f[2] * f[3] - f[0] * f[5], f[0] * f[4] - f[1] * f[3]};
      const double a = m->mu * (1.0 - 1.0 / (ic + 1.0)), b = m->lambda * (J - m->alpha);
      for (int k = 0; k < 9; ++k) P.m[k] = a * F.m[k] + b * cof[k];
      psi = 0.5 * m->mu * (ic - 3.0) + 0.5 * m->lambda * (J - m->alpha) * (J - m->alpha) - 0.5 * m->mu * log(ic + 1.0);
      break;
    }
  }
  if (!isfinite(psi)) return 0;
  for (int k = 0; k < 9; ++k)
    if (!isfinite(P.m[k])) return 0;
  if (Rout) *Rout = R;
  *Pout = P;
  if (psi_out) *psi_out = psi;
  return 1;
}

int cl_gfem_warped_element(cl_gfem *s, const cl_mat3 *Fp, int32_t e) {
  const double *Di = s->Dminv + 9 * (size_t)e;
  const cl_mat3 F = *Fp;
  /* beyond warp_limit the small-strain stiffness under-estimates a stiffening model's tangent enough
   * to make the step unstable (the soft hanging sphere blew up): the model's element there */
  const cl_mat3 C = cl_mat3_mul_tn(&F, &F);
  double d2 = 0.0;
  for (int k = 0; k < 9; ++k) {
    const double d = C.m[k] - (k % 4 == 0 ? 1.0 : 0.0);
    d2 += d * d;
  }
  s->hk[e] = s->p[GF_WARP_LIMIT] > 0.0 && !(d2 > s->p[GF_WARP_LIMIT] * s->p[GF_WARP_LIMIT]);
  if (!s->hk[e]) return -1;
  cl_mat3 R, P;
  double psi;
  if (!cl_gfem_closed_form_piola(&s->mat, &F, &R, &P, &psi)) return 0;
  cl_fem_element_forces(&P, s->vol[e], Di, s->fe + 12 * (size_t)e);
  cl_fem_rotated_gradients(&R, Di, s->h + 12 * (size_t)e);
  cl_gfem_store_stress(s, e, &F, &P);
  s->psi[e] = s->vol[e] * psi;
  return 1;
}
