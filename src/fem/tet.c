/* Rest-state precomputation and whole-element matrices of linear tets. See tet.h. */
#include "fem/tet.h"

#include <math.h>
#include <string.h>

#include "base/error.h"

cl_status cl_fem_rest_shapes(const double *X, const int32_t *cells, int32_t ncells, double *Dminv, double *vol) {
  for (int32_t e = 0; e < ncells; ++e) {
    const int32_t *t = cells + 4 * (int64_t)e;
    const cl_mat3 Dm = cl_tet_edges_of(X, t);
    const double V = cl_tet_volume_of_edges(&Dm);
    /* a scale for "degenerate": the volume of the cube on the longest edge, times 1e-12 */
    double lmax = 0.0;
    for (int a = 0; a < 3; ++a) {
      cl_vec3 c = cl_mat3_col(&Dm, a);
      lmax = fmax(lmax, cl_vec3_norm(c));
    }
    if (!(V > 1e-12 * lmax * lmax * lmax) || !isfinite(V))
      return cl_fail(CL_ERR_MESH,
                     "tet %d (nodes %d %d %d %d) is %s at rest: volume %g m^3 (longest edge %g m); linear tet "
                     "elements need positively oriented tets with non-zero volume",
                     e, t[0], t[1], t[2], t[3], V < 0.0 ? "inverted" : "degenerate", V, lmax);
    cl_mat3 inv;
    if (cl_mat3_inverse(&Dm, &inv) < 0)
      return cl_fail(CL_ERR_MESH, "tet %d (nodes %d %d %d %d) has a singular rest shape (volume %g m^3)",
                     e, t[0], t[1], t[2], t[3], V);
    memcpy(Dminv + 9 * (size_t)e, inv.m, sizeof inv.m);
    vol[e] = V;
  }
  return CL_OK;
}

void cl_fem_lump_masses(int32_t n, const int32_t *cells, int32_t ncells, const double *vol, double density,
                        double *m) {
  for (int32_t i = 0; i < n; ++i) m[i] = 0.0;
  for (int32_t e = 0; e < ncells; ++e) {
    const double q = 0.25 * density * vol[e];
    for (int a = 0; a < 4; ++a) m[cells[4 * (int64_t)e + a]] += q;
  }
}

int cl_fem_gradients(const double *x, const int32_t *t, cl_mat3 *G, double *volume) {
  const cl_mat3 D = cl_tet_edges_of(x, t);
  *volume = cl_tet_volume_of_edges(&D);
  return cl_mat3_inverse(&D, G) >= 0;
}

void cl_fem_corot_stiffness(const double *h, double V, double lambda, double mu, double *K) {
  memset(K, 0, sizeof(double) * 144);
  for (int a = 0; a < 4; ++a) {
    const double *ha = h + 3 * a;
    const double la[3] = {V * lambda * ha[0], V * lambda * ha[1], V * lambda * ha[2]};
    const double ma[3] = {V * mu * ha[0], V * mu * ha[1], V * mu * ha[2]};
    for (int b = 0; b < 4; ++b) {
      double B[9] = {0.0};
      cl_fem_stiffness_block_add(la, ma, h + 3 * b, B);
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) K[(3 * a + r) * 12 + 3 * b + c] = B[3 * r + c];
    }
  }
}
