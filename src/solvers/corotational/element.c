/* Elements of the corotational solver: rest precomputation and the per-step element update, on the
 * shared linear-tet code of fem/tet.h (edge matrices, Dm^-1, volumes, lumped masses, strain, stress,
 * nodal forces, rotated gradients; the equations are there).
 *
 * Stiffness warping (Mueller & Gross 2004; thesis sec 3.2.5, Alg. 2): the element's stiffness in the
 * world frame is R K_e R^T, whose blocks are those of K_e with the rotated gradients h_a = R g_a. So
 * instead of storing the 12x12 K_e and computing R K_ab R^T (two 3x3 products per block) the update
 * stores h (12 doubles) and assembly.c builds each block from two outer products: cheaper and no
 * per-element matrix in memory.
 *
 * Elastic forces (the K x + f_u of eqs 3.8/3.10 and Alg. 3, rotated): f_a = -V R sigma_c g_a with
 * sigma_c the stress of eps = sym(R^T F) - I - eps_p, and f_0 = -(f_1 + f_2 + f_3), so the net force
 * is exactly zero. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "fem/tet.h"
#include "solvers/corotational/corot.h"

cl_status cl_corot_elements_init(cl_corot *s, const cl_body_state *st) {
  CL_TRY(cl_fem_rest_shapes(st->X, st->cells, st->ncells, s->Dminv, s->vol));
  double v = 0.0;
  for (int32_t e = 0; e < st->ncells; ++e) v += s->vol[e];
  s->mean_volume = v / (st->ncells > 0 ? st->ncells : 1);
  return CL_OK;
}

void cl_corot_lump_masses(const cl_corot *s, cl_body_state *st) {
  cl_fem_lump_masses(st->n, st->cells, st->ncells, s->vol, s->density, st->m);
}

cl_mat3 cl_corot_stress(const cl_corot *s, const cl_mat3 *eps) { return cl_fem_linear_stress(s->lambda, s->mu, eps); }

/* F of element e at the state's current positions. */
static cl_mat3 deformation_gradient(const cl_corot *s, const cl_body_state *st, int32_t e) {
  return cl_fem_deformation_gradient(st->x, st->cells + 4 * e, s->Dminv + 9 * (size_t)e);
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
  cl_mat3 eps = cl_fem_corot_strain(R, F);
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
    cl_mat3 eps = cl_fem_corot_strain(&R, &F);
    double *ep6 = s->eps_p + 6 * (size_t)e;
    if (plastic) cl_corot_plastic_flow(s, &eps, dt, ep6);
    cl_mat3 ep = cl_corot_sym_from6(ep6);
    cl_mat3 ee = cl_mat3_sub(&eps, &ep);
    cl_mat3 sig = cl_corot_stress(s, &ee);
    /* P = R sigma_c: f_a = -V P g_a, and the rotated gradients h_a = R g_a for assembly */
    cl_mat3 P = cl_mat3_mul(&R, &sig);
    memcpy(s->Re + 9 * (size_t)e, R.m, sizeof R.m);
    const double *Di = s->Dminv + 9 * (size_t)e;
    cl_fem_stress_forces(&P, Di, s->vol[e], s->f + 12 * (size_t)e);
    cl_fem_rotated_gradients(&R, Di, s->h + 12 * (size_t)e);
  }
  if (bad != INT32_MAX) {
    const int32_t *t = st->cells + 4 * bad;
    return cl_fail(CL_ERR_NUMERICAL,
                   "element %d (nodes %d %d %d %d) has a non-finite deformation gradient (NaN or Inf in the "
                   "positions)", bad, t[0], t[1], t[2], t[3]);
  }
  return CL_OK;
}
