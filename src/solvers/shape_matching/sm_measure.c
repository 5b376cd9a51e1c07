/* Per-cluster measures, the one layout criteria and probes read (solvers/solver.h):
 *   F       = A_xr A_rr^+ at the current positions (eq 3), the total deformation gradient;
 *   plastic = F^p - I (zero without plasticity; F^e = F (I + plastic)^-1, eq 9);
 *   stress  = Cauchy stress of the corotated linear material on F^e with the material's Lame
 *             parameters: P = 2 mu (F^e - R) + lambda tr(S - I) R with F^e = R S, sigma = P F^e^T / J;
 *             in singular values sigma = U diag(p_i s_i / J) U^T with p_i = 2 mu (s_i - 1) + lambda tr;
 *   center  = the current weighted centre of mass (eq 7);
 *   volume  = the cluster's rest volume, its mass share / density.
 * Shape matching itself has no stored energy; the energy reported is that same corotated energy
 * V_c (mu ||Sigma - I||^2 + lambda/2 tr(Sigma - I)^2) summed over clusters, zero exactly for rigid
 * motion. Deleted cluster slots measure F = I, zero stress and zero volume. */
#include <math.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "base/error.h"
#include "solvers/shape_matching/sm_internal.h"

/* F, F^e and the SVD of F^e of live cluster c at the current positions (keep: also keep the
 * member sums for the next step). */
static int decompose(cl_sm *s, const cl_body_state *st, int32_t c, int keep, double *com, cl_mat3 *F, cl_mat3 *U,
                     cl_vec3 *sig, cl_mat3 *V) {
  if (keep)
    cl_sm_cluster_F_keep(s, st, c, com, F);
  else
    cl_sm_cluster_F(s, st, c, com, F);
  cl_mat3 Fpi;
  memcpy(Fpi.m, s->Fp_inv + 9 * (size_t)c, sizeof Fpi.m);
  cl_mat3 Fe = cl_mat3_mul(F, &Fpi);
  if (cl_svd3_fast(&Fe, U, sig, V) < 0) return -1;
  if (keep) cl_sm_keep_svd(s, c, U, *sig, V);
  return 0;
}

cl_status cl_sm_measure(cl_sm *s, const cl_body_state *st, cl_unit_fields *out) {
  const int32_t ncl = s->ncl < out->count ? s->ncl : out->count;
  const double mu = s->mu, la = s->lambda;
  int bad = 0;
#pragma omp parallel for num_threads(s->threads) schedule(dynamic, 4) reduction(| : bad) if (cl_sm_parallel(s))
  for (int32_t c = 0; c < ncl; ++c) {
    double *F = out->F + 9 * (size_t)c, *S = out->stress + 9 * (size_t)c, *P = out->plastic + 9 * (size_t)c;
    double *cen = out->center + 3 * (size_t)c;
    if (!s->alive[c]) {
      cl_mat3 I = cl_mat3_identity();
      memcpy(F, I.m, sizeof I.m);
      memset(S, 0, 9 * sizeof(double));
      memset(P, 0, 9 * sizeof(double));
      memcpy(cen, s->com + 3 * (size_t)c, 3 * sizeof(double));
      out->volume[c] = 0.0;
      continue;
    }
    cl_mat3 Fm, U, V;
    cl_vec3 sg;
    double com[3];
    if (decompose(s, st, c, 1, com, &Fm, &U, &sg, &V) < 0) {
      bad = 1;
      continue;
    }
    s->mok[c] = 1;
    memcpy(F, Fm.m, sizeof Fm.m);
    memcpy(cen, com, sizeof com);
    for (int k = 0; k < 9; ++k) P[k] = s->Fp[9 * (size_t)c + k] - (k % 4 == 0 ? 1.0 : 0.0);
    double tr = sg.x + sg.y + sg.z - 3.0;
    double J = sg.x * sg.y * sg.z;
    if (fabs(J) < 1e-12) J = J < 0.0 ? -1e-12 : 1e-12;
    double d[3] = {(2.0 * mu * (sg.x - 1.0) + la * tr) * sg.x / J, (2.0 * mu * (sg.y - 1.0) + la * tr) * sg.y / J,
                   (2.0 * mu * (sg.z - 1.0) + la * tr) * sg.z / J};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        S[3 * i + j] = U.m[3 * i] * d[0] * U.m[3 * j] + U.m[3 * i + 1] * d[1] * U.m[3 * j + 1] +
                       U.m[3 * i + 2] * d[2] * U.m[3 * j + 2];
    out->volume[c] = s->mass[c] / s->density;
  }
  out->count = ncl;
  for (int32_t c = ncl; c < s->ncl; ++c) s->mok[c] = 0; /* not measured now: older sums */
  s->msum_ok = 0;
  if (!bad && st->n <= s->pcap) {
    memcpy(s->xmeas, st->x, sizeof(double) * 3 * (size_t)st->n);
    s->xmeas_n = st->n;
    s->msum_ok = 1;
  }
  if (bad) return cl_fail(CL_ERR_NUMERICAL, "solver 'shape_matching': non-finite cluster deformation in measure");
  return CL_OK;
}

cl_status cl_sm_energy(cl_sm *s, const cl_body_state *st, double *e) {
  double sum = 0.0;
  for (int32_t c = 0; c < s->ncl; ++c) {
    if (!s->alive[c]) continue;
    cl_mat3 F, U, V;
    cl_vec3 sg;
    double com[3];
    if (decompose(s, st, c, 0, com, &F, &U, &sg, &V) < 0)
      return cl_fail(CL_ERR_NUMERICAL, "solver 'shape_matching': cluster %d has a non-finite deformation", c);
    double a = sg.x - 1.0, b = sg.y - 1.0, d = sg.z - 1.0, tr = a + b + d;
    sum += s->mass[c] / s->density * (s->mu * (a * a + b * b + d * d) + 0.5 * s->lambda * tr * tr);
  }
  *e = sum;
  return CL_OK;
}

cl_status cl_sm_volume(cl_sm *s, const cl_body_state *st, double *v) {
  double sum = 0.0;
  for (int32_t c = 0; c < s->ncl; ++c) {
    if (!s->alive[c]) continue;
    cl_mat3 F;
    double com[3];
    cl_sm_cluster_F(s, st, c, com, &F);
    sum += s->mass[c] / s->density * cl_mat3_det(&F);
  }
  for (int32_t i = 0; i < st->n && i < s->pcap; ++i)
    if (s->flags[i] & SM_DEBRIS) sum += st->m[i] / s->density;
  *v = sum;
  return CL_OK;
}
