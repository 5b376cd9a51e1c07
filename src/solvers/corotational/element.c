/* Elements of the corotational solver: rest precomputation and the per-step element update.
 *
 * Linear tet with corners x_0..x_3, rest edge matrix Dm = [X_1 - X_0, X_2 - X_0, X_3 - X_0] and rest
 * volume V = det(Dm) / 6. The rows of Dm^-1 are the gradients g_1, g_2, g_3 of the barycentric
 * coordinates, g_0 = -(g_1 + g_2 + g_3), so F = Ds Dm^-1 = sum_a x_a g_a^T.
 *
 * Element stiffness (thesis eq 5.1, K = V B^T D B, written per 3x3 block; Zienkiewicz & Taylor vol.
 * 1 ch. 6):  K_ab = V (lambda g_a g_b^T + mu g_b g_a^T + mu (g_a . g_b) I).
 * Stiffness warping (Mueller & Gross 2004; thesis sec 3.2.5, Alg. 2): the element's stiffness in the
 * world frame is R K_e R^T, whose blocks are the same expression with the rotated gradients
 * h_a = R g_a (dot products are rotation invariant). So instead of storing the 12x12 K_e and
 * computing R K_ab R^T (two 3x3 products per block) the update stores h (12 doubles) and assembly
 * builds each block from two outer products: cheaper and no per-element matrix in memory.
 *
 * Elastic forces (the K x + f_u of eqs 3.8/3.10 and Alg. 3, rotated): with u = R^T x - X,
 *   K_e u = V sigma_c g_a per corner, sigma_c = lambda tr(eps) I + 2 mu eps, eps = sym(R^T F) - I - eps_p,
 * because B u is exactly the small strain of R^T F. So f_a = -V R sigma_c g_a: one 3x3 stress per
 * element instead of a 12x12 product; f_0 = -(f_1 + f_2 + f_3) makes the net force exactly zero. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "solvers/corotational/corot.h"

static cl_mat3 edge_matrix(const double *x, const int32_t *t) {
  cl_mat3 D;
  for (int k = 0; k < 3; ++k)
    for (int a = 0; a < 3; ++a) D.m[3 * k + a] = x[3 * t[a + 1] + k] - x[3 * t[0] + k];
  return D;
}

cl_status cl_corot_elements_init(cl_corot *s, const cl_body_state *st) {
  for (int32_t e = 0; e < st->ncells; ++e) {
    const int32_t *t = st->cells + 4 * e;
    cl_mat3 Dm = edge_matrix(st->X, t);
    double V = cl_mat3_det(&Dm) / 6.0;
    /* a scale for "degenerate": the volume of the cube on the longest edge, times 1e-12 */
    double lmax = 0.0;
    for (int a = 0; a < 3; ++a) {
      cl_vec3 c = cl_mat3_col(&Dm, a);
      lmax = fmax(lmax, cl_vec3_norm(c));
    }
    if (!(V > 1e-12 * lmax * lmax * lmax) || !isfinite(V))
      return cl_fail(CL_ERR_MESH,
                     "tet %d (nodes %d %d %d %d) is %s at rest: volume %g m^3 (longest edge %g m); the "
                     "corotational solver needs positively oriented tets with non-zero volume",
                     e, t[0], t[1], t[2], t[3], V < 0.0 ? "inverted" : "degenerate", V, lmax);
    cl_mat3 inv;
    if (cl_mat3_inverse(&Dm, &inv) < 0)
      return cl_fail(CL_ERR_MESH, "tet %d (nodes %d %d %d %d) has a singular rest shape (volume %g m^3)",
                     e, t[0], t[1], t[2], t[3], V);
    memcpy(s->Dminv + 9 * (size_t)e, inv.m, sizeof inv.m);
    s->vol[e] = V;
  }
  return CL_OK;
}

void cl_corot_lump_masses(const cl_corot *s, cl_body_state *st) {
  for (int32_t i = 0; i < st->n; ++i) st->m[i] = 0.0;
  for (int32_t e = 0; e < st->ncells; ++e) {
    double q = 0.25 * s->density * s->vol[e];
    for (int a = 0; a < 4; ++a) st->m[st->cells[4 * e + a]] += q;
  }
}

cl_mat3 cl_corot_stress(const cl_corot *s, const cl_mat3 *eps) {
  cl_mat3 sig = cl_mat3_scale(eps, 2.0 * s->mu);
  double l = s->lambda * cl_mat3_trace(eps);
  sig.m[0] += l;
  sig.m[4] += l;
  sig.m[8] += l;
  return sig;
}

/* F of element e at the state's current positions. */
static cl_mat3 deformation_gradient(const cl_corot *s, const cl_body_state *st, int32_t e) {
  cl_mat3 Ds = edge_matrix(st->x, st->cells + 4 * e), Dminv;
  memcpy(Dminv.m, s->Dminv + 9 * (size_t)e, sizeof Dminv.m);
  return cl_mat3_mul(&Ds, &Dminv);
}

/* Total strain in the rest frame: sym(R^T F) - I (R^T F is already symmetric for the polar R). */
static cl_mat3 total_strain(const cl_mat3 *R, const cl_mat3 *F) {
  cl_mat3 RtF = cl_mat3_mul_tn(R, F);
  cl_mat3 eps = cl_mat3_sym(&RtF);
  eps.m[0] -= 1.0;
  eps.m[4] -= 1.0;
  eps.m[8] -= 1.0;
  return eps;
}

cl_status cl_corot_element_strain(const cl_corot *s, const cl_body_state *st, int32_t e, cl_mat3 *F, cl_mat3 *R,
                                  cl_mat3 *eps_elastic) {
  *F = deformation_gradient(s, st, e);
  cl_status r = cl_corot_rotation((int)s->p[CL_COROT_ROTATION], F, R);
  if (r < 0) {
    const int32_t *t = st->cells + 4 * e;
    return cl_fail(CL_ERR_NUMERICAL, "element %d (nodes %d %d %d %d) has a non-finite deformation gradient",
                   e, t[0], t[1], t[2], t[3]);
  }
  cl_mat3 eps = total_strain(R, F);
  cl_mat3 ep = cl_corot_sym_from6(s->eps_p + 6 * (size_t)e);
  *eps_elastic = cl_mat3_sub(&eps, &ep);
  return CL_OK;
}

cl_status cl_corot_update_elements(cl_corot *s, const cl_body_state *st, double dt, int advance_plastic) {
  const int32_t ne = st->ncells;
  const int method = (int)s->p[CL_COROT_ROTATION];
  const int plastic = advance_plastic && s->plastic;
  int32_t bad = INT32_MAX;
#pragma omp parallel for schedule(static) num_threads(s->threads) reduction(min : bad) if (ne > 512)
  for (int32_t e = 0; e < ne; ++e) {
    cl_mat3 F = deformation_gradient(s, st, e), R;
    if (cl_corot_rotation(method, &F, &R) < 0) {
      if (e < bad) bad = e;
      continue;
    }
    cl_mat3 eps = total_strain(&R, &F);
    double *ep6 = s->eps_p + 6 * (size_t)e;
    if (plastic) cl_corot_plastic_flow(s, &eps, dt, ep6);
    cl_mat3 ep = cl_corot_sym_from6(ep6);
    cl_mat3 ee = cl_mat3_sub(&eps, &ep);
    cl_mat3 sig = cl_corot_stress(s, &ee);
    /* P = R sigma_c; f_a = -V P g_a for a = 1..3 (g_a = row a-1 of Dm^-1) */
    cl_mat3 P = cl_mat3_mul(&R, &sig);
    memcpy(s->Re + 9 * (size_t)e, R.m, sizeof R.m);
    const double *Di = s->Dminv + 9 * (size_t)e;
    double *f = s->f + 12 * (size_t)e, *h = s->h + 12 * (size_t)e;
    const double V = s->vol[e];
    for (int k = 0; k < 3; ++k) f[k] = h[k] = 0.0;
    for (int a = 1; a < 4; ++a) {
      cl_vec3 g = cl_vec3_make(Di[3 * (a - 1)], Di[3 * (a - 1) + 1], Di[3 * (a - 1) + 2]);
      cl_vec3 fa = cl_vec3_scale(cl_mat3_mul_vec(&P, g), -V);
      cl_vec3 ha = cl_mat3_mul_vec(&R, g);
      f[3 * a] = fa.x, f[3 * a + 1] = fa.y, f[3 * a + 2] = fa.z;
      h[3 * a] = ha.x, h[3 * a + 1] = ha.y, h[3 * a + 2] = ha.z;
      for (int k = 0; k < 3; ++k) {
        f[k] -= f[3 * a + k];
        h[k] -= h[3 * a + k];
      }
    }
  }
  if (bad != INT32_MAX) {
    const int32_t *t = st->cells + 4 * bad;
    return cl_fail(CL_ERR_NUMERICAL,
                   "element %d (nodes %d %d %d %d) has a non-finite deformation gradient (NaN or Inf in the "
                   "positions)", bad, t[0], t[1], t[2], t[3]);
  }
  return CL_OK;
}
