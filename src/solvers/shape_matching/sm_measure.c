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

/* F and F^e of live cluster c at the current positions (keep: also keep the member sums for the
 * next step, or take the ones the proxies kept); returns whether it took those. */
static int cluster_Fe(cl_sm *s, const cl_body_state *st, int32_t c, int keep, double *com, cl_mat3 *F,
                      cl_mat3 *Fe) {
  const int kept = keep && s->psum_ok && s->wrad[c] > 0.0 && !s->cpos[c];
  if (kept) /* the proxies summed these very positions (sm_collide.c) */
    cl_sm_cluster_F_kept(s, c, com, F);
  else if (keep)
    cl_sm_cluster_F_keep(s, st, c, com, F);
  else
    cl_sm_cluster_F(s, st, c, com, F);
  if (!s->plastic) { /* F^p = I */
    *Fe = *F;
    return kept;
  }
  cl_mat3 Fpi;
  memcpy(Fpi.m, s->Fp_inv + 9 * (size_t)c, sizeof Fpi.m);
  *Fe = cl_mat3_mul(F, &Fpi);
  return kept;
}

/* The Cauchy stress of the header from F^e = R S without the SVD:
 * sigma J = P F^e^T = 2 mu (F^e F^e^T - R F^e^T) + lambda tr(S - I) R F^e^T, tr S = R : F^e (the
 * same as U diag(p_i s_i) U^T; averaged with its transpose, symmetric to the last bit as that one). */
static void stress_polar(double mu, double la, const cl_mat3 *Fe, const cl_mat3 *R, double *S) {
  const double *f = Fe->m, *r = R->m;
  double trS = 0.0;
  for (int k = 0; k < 9; ++k) trS += r[k] * f[k];
  double J = cl_mat3_det(Fe);
  if (fabs(J) < 1e-12) J = J < 0.0 ? -1e-12 : 1e-12;
  const double a = 2.0 * mu / J, b = (la * (trS - 3.0) - 2.0 * mu) / J;
  double t[9];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const double ff = f[3 * i] * f[3 * j] + f[3 * i + 1] * f[3 * j + 1] + f[3 * i + 2] * f[3 * j + 2];
      const double rf = r[3 * i] * f[3 * j] + r[3 * i + 1] * f[3 * j + 1] + r[3 * i + 2] * f[3 * j + 2];
      t[3 * i + j] = a * ff + b * rf;
    }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) S[3 * i + j] = 0.5 * (t[3 * i + j] + t[3 * j + i]);
}

cl_status cl_sm_measure(cl_sm *s, const cl_body_state *st, cl_unit_fields *out) {
  const int32_t ncl = s->ncl < out->count ? s->ncl : out->count;
  const double mu = s->mu, la = s->lambda;
  int bad = 0;
  int64_t reused = 0;
  const int chunk = cl_sm_chunk(s);
  /* a deleted slot measures constants (below): written once per unit buffer, not every step (half
   * the slots of a shattered body; the world keeps its buffer, growing it by realloc) */
  if (out->F != s->mdead_out) {
    memset(s->mdead, 0, (size_t)s->ncl);
    s->mdead_out = out->F;
  }
#pragma omp parallel for num_threads(s->threads) schedule(dynamic, chunk) reduction(| : bad) reduction(+ : reused) \
    if (cl_sm_parallel(s))
  for (int32_t c = 0; c < ncl; ++c) {
    double *F = out->F + 9 * (size_t)c, *S = out->stress + 9 * (size_t)c, *P = out->plastic + 9 * (size_t)c;
    double *cen = out->center + 3 * (size_t)c;
    if (!s->alive[c]) {
      if (s->mdead[c]) continue;
      s->mdead[c] = 1;
      cl_mat3 I = cl_mat3_identity();
      memcpy(F, I.m, sizeof I.m);
      memset(S, 0, 9 * sizeof(double));
      memset(P, 0, 9 * sizeof(double));
      memcpy(cen, s->com + 3 * (size_t)c, 3 * sizeof(double));
      out->volume[c] = 0.0;
      continue;
    }
    cl_mat3 Fm, Fe;
    cl_sm_decomp dc;
    double com[3];
    reused += cluster_Fe(s, st, c, 1, com, &Fm, &Fe);
    if (cl_sm_decompose(s, &Fe, &dc) < 0) {
      bad = 1;
      continue;
    }
    cl_sm_keep_decomp(s, c, &dc); /* with the sums, for the next step's goal pass */
    s->mok[c] = 1;
    memcpy(F, Fm.m, sizeof Fm.m);
    memcpy(cen, com, sizeof com);
    for (int k = 0; k < 9; ++k) P[k] = s->Fp[9 * (size_t)c + k] - (k % 4 == 0 ? 1.0 : 0.0);
    out->volume[c] = s->mass[c] / s->density;
    if (!dc.svd) {
      stress_polar(mu, la, &Fe, &dc.R, S);
      continue;
    }
    const cl_vec3 sg = dc.sig;
    const cl_mat3 U = dc.U;
    double tr = sg.x + sg.y + sg.z - 3.0;
    double J = sg.x * sg.y * sg.z;
    if (fabs(J) < 1e-12) J = J < 0.0 ? -1e-12 : 1e-12;
    double d[3] = {(2.0 * mu * (sg.x - 1.0) + la * tr) * sg.x / J, (2.0 * mu * (sg.y - 1.0) + la * tr) * sg.y / J,
                   (2.0 * mu * (sg.z - 1.0) + la * tr) * sg.z / J};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        S[3 * i + j] = U.m[3 * i] * d[0] * U.m[3 * j] + U.m[3 * i + 1] * d[1] * U.m[3 * j + 1] +
                       U.m[3 * i + 2] * d[2] * U.m[3 * j + 2];
  }
  out->count = ncl;
  s->psum_reused += reused;
  for (int32_t c = ncl; c < s->ncl; ++c) s->mok[c] = 0; /* not measured now: older sums */
  s->msum_ok = 0;
  if (!bad && st->n <= s->pcap) {
#ifndef NDEBUG /* what the step checks the flag against (sm_step.c) */
    memcpy(s->xmeas, st->x, sizeof(double) * 3 * (size_t)st->n);
#endif
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
    cl_mat3 F, Fe, U, V;
    cl_vec3 sg;
    double com[3];
    cluster_Fe(s, st, c, 0, com, &F, &Fe);
    if (cl_svd3_fast(&Fe, &U, &sg, &V) < 0)
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
