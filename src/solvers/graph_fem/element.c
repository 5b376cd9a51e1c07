/* Per-element forces and stiffness of the graph-based FEM (the paper's sec 3.1-3.2, eqs 2, 6-7).
 *
 * An element none of whose six edges is damaged is exactly the body's hyperelastic model
 * (fem/material.h): P from the model, f_a = -V P g_a, K_e from the projected dP/dF (positive
 * semi-definite). Eq 2's degraded energy Psi_frac = zeta(Psi_e) is left to Mandal et al. 2023; here an
 * element with damaged edges becomes a degraded corotational element whose stiffness lives on its
 * edges, as in graph-based FEA (GraFEA, Khodabakhshi, Reddy and Srinivasa 2016): in the element's
 * rotated frame its small strain and the strains e of its six rest edges are one-to-one, e = T eps,
 * and the energy is V/2 e^T G e (fem/edge_elastic.h). A broken edge carries no force and holds
 * nothing: its strain is condensed out (the Schur complement of G on the other edges), partial damage
 * interpolates by levels (fem/edge_elastic.h, eq L), so G_d stays symmetric positive semi-definite
 * and a broken edge's row and column are zero. (Scaling a broken edge's strain to zero instead holds
 * it at its rest length inside the element: an opening crack then shows as a large spurious strain
 * of the neighbouring edges, which break in turn.)
 *
 * An edge's damage in element e is the larger of its damage in every element (s->damage: the paper's
 * threshold, knife cuts, the diffusion kernel) and its damage in e alone (s->edamage: a crack that
 * crosses e, the softening mode of docs/solvers/graph_fem.md, "Fracture"). With e = b (R^T x - X)
 * (b: edge k's strain (n_k . (u_b - u_a)) / L_k),
 *     Psi_d = V/2 e^T G_d e,   K0_d = V b^T G_d b,   f = -R K0_d (R^T x - X),   K = R K0_d R^T.
 * Without damage G_d = G and K0_d is the linear element exactly. All of it is made on the edges, from
 * G_d (6x6) and the turned edge vectors m_k = R n_k / L_k alone (update_damaged): e_k = m_k . d_k - 1
 * (d_k the current edge: n_k . D_k / L_k = 1), f = -V B^T G_d e and K = V B^T G_d B with row k of B
 * = (-m_k at a_k, +m_k at b_k) (B = b R^T), sigma = sum_k (G_d e)_k (R n_k)(R n_k)^T. A node all of whose edges in the
 * element are broken does not enter e^T G_d e (its edges' rows and columns are zero), so it carries
 * no force and moves freely. R is the rotation of the deformation gradient fitted to the undamaged
 * edges only (weighted least squares of F D_k = d_k, weights 1 - d_k), so the broken edges' nodes do
 * not steer it; when the undamaged edges do not span space (one face left, or fewer) the element
 * keeps the rotation it had. C is the isotropic small-strain elasticity of E and nu, which all three
 * models share at small strain (fem/material.h). */
#include <math.h>
#include <string.h>

#include "base/error.h"
#include "base/timer.h"
#include "fem/edge_elastic.h"
#include "fem/tet.h"
#include "geom/tet_edges.h"
#include "solvers/graph_fem/gfem.h"

#define k_pair cl_tet_edge_corners

/* The damage of element e's six edges (geom/tet_edges.h order): an edge's damage in every element
 * (s->damage: the paper's threshold, knives, the diffusion kernel) or its own crack's (s->edamage). */
void cl_gfem_element_damage(const cl_gfem *s, int32_t e, double *d) {
  for (int k = 0; k < 6; ++k) d[k] = fmax(s->damage[s->tet_edge[6 * (size_t)e + k]], s->edamage[6 * (size_t)e + k]);
}

/* G_d of element e (fem/edge_elastic.h, eq L), with b and T; 0 for a degenerate tet. */
static int degraded_edge_stiffness(const cl_gfem *s, const cl_body_state *st, int32_t e, double *b, double *T,
                                   double *Gd) {
  double G[36], d[6];
  if (!cl_fem_edge_frame(st->X, st->cells + 4 * (size_t)e, b, T)) return 0;
  if (!cl_fem_edge_stiffness(T, s->lambda0, s->mu0, G)) return 0;
  cl_gfem_element_damage(s, e, d);
  cl_fem_edge_degrade(G, d, Gd);
  return 1;
}

/* Element e's edge basis (s->edg, 60 per tet): G_d (36), the unit rest directions n_k (18) and
 * 1 / L_k (6) of its edges (geom/tet_edges.h order, n_k from corner a_k to b_k). */
static void build_degraded(cl_gfem *s, const cl_body_state *st, int32_t e) {
  double b[72], T[36];
  double *Gd = s->edg + 60 * (size_t)e, *n = Gd + 36, *il = Gd + 54;
  s->kdirty[e] = 0;
  if (!degraded_edge_stiffness(s, st, e, b, T, Gd)) { /* degenerate: no stiffness (bind refuses such tets) */
    memset(Gd, 0, sizeof(double) * 60);
    return;
  }
  const int32_t *t = st->cells + 4 * (size_t)e;
  for (int k = 0; k < 6; ++k) {
    const double *Xa = st->X + 3 * (size_t)t[k_pair[k][0]], *Xb = st->X + 3 * (size_t)t[k_pair[k][1]];
    const double D[3] = {Xb[0] - Xa[0], Xb[1] - Xa[1], Xb[2] - Xa[2]};
    const double L = sqrt(D[0] * D[0] + D[1] * D[1] + D[2] * D[2]);
    for (int c = 0; c < 3; ++c) n[3 * k + c] = D[c] / L;
    il[k] = 1.0 / L;
  }
}

/* The rotation of F fitted to the undamaged edges: F_w = (sum w d D^T)(sum w D D^T)^-1, then its polar
 * factor. Returns 0 (R unchanged) when the undamaged edges do not span space. */
static int fitted_rotation(const cl_gfem *s, const cl_body_state *st, int32_t e, cl_mat3 *R) {
  const int32_t *t = st->cells + 4 * (size_t)e;
  cl_mat3 A = cl_mat3_zero(), B = cl_mat3_zero();
  double scale = 0.0;
  for (int k = 0; k < 6; ++k) {
    const double w = 1.0 - fmax(s->damage[s->tet_edge[6 * (size_t)e + k]], s->edamage[6 * (size_t)e + k]);
    if (!(w > 0.0)) continue;
    const int32_t a = t[k_pair[k][0]], bb = t[k_pair[k][1]];
    double D[3], d[3];
    for (int c = 0; c < 3; ++c) {
      D[c] = st->X[3 * (size_t)bb + c] - st->X[3 * (size_t)a + c];
      d[c] = st->x[3 * (size_t)bb + c] - st->x[3 * (size_t)a + c];
    }
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        A.m[3 * i + j] += w * d[i] * D[j];
        B.m[3 * i + j] += w * D[i] * D[j];
      }
    scale += w * (D[0] * D[0] + D[1] * D[1] + D[2] * D[2]);
  }
  if (!(scale > 0.0) || !(fabs(cl_mat3_det(&B)) > 1e-9 * scale * scale * scale)) return 0;
  cl_mat3 Bi, F;
  if (cl_mat3_inverse(&B, &Bi) < 0) return 0;
  F = cl_mat3_mul(&A, &Bi);
  /* the division-free iteration where F_w is near a rotation (small strain: nearly always), the
   * same polar factor to rounding */
  if (cl_polar3_near(&F, R, NULL)) return 1;
  return cl_polar3(&F, R, NULL) >= 0;
}

/* A damaged element in its edge basis (the header): f = -R K0_d (R^T x - X), K = R K0_d R^T, psi =
 * 1/2 u^T K0_d u and its stress R (T^T G_d e) R^T, each from G_d and m_k = R n_k / L_k. */
static void update_damaged(cl_gfem *s, const cl_body_state *st, int32_t e) {
  if (s->kdirty[e]) build_degraded(s, st, e);
  cl_mat3 R;
  memcpy(R.m, s->Re + 9 * (size_t)e, sizeof R.m);
  if (fitted_rotation(s, st, e, &R)) memcpy(s->Re + 9 * (size_t)e, R.m, sizeof R.m);
  const int32_t *t = st->cells + 4 * (size_t)e;
  const double *Gd = s->edg + 60 * (size_t)e, *n = Gd + 36, *il = Gd + 54, V = s->vol[e];
  double r[6][3], m[6][3], ed[6], ge[6];
  for (int k = 0; k < 6; ++k) {
    const int a = k_pair[k][0], b = k_pair[k][1];
    const double *xa = st->x + 3 * (size_t)t[a], *xb = st->x + 3 * (size_t)t[b], *nk = n + 3 * k;
    const double d[3] = {xb[0] - xa[0], xb[1] - xa[1], xb[2] - xa[2]};
    for (int i = 0; i < 3; ++i) {
      r[k][i] = R.m[3 * i] * nk[0] + R.m[3 * i + 1] * nk[1] + R.m[3 * i + 2] * nk[2];
      m[k][i] = r[k][i] * il[k];
    }
    ed[k] = m[k][0] * d[0] + m[k][1] * d[1] + m[k][2] * d[2] - 1.0;
  }
  double psi = 0.0;
  for (int k = 0; k < 6; ++k) {
    double sum = 0.0;
    for (int l = 0; l < 6; ++l) sum += Gd[6 * k + l] * ed[l];
    ge[k] = sum;
    psi += 0.5 * V * ed[k] * sum;
  }
  /* f = -V B^T (G_d e); C = G_d B (6 x 12) */
  double *f = s->fe + 12 * (size_t)e, C[6][12];
  memset(f, 0, sizeof(double) * 12);
  memset(C, 0, sizeof C);
  for (int l = 0; l < 6; ++l) {
    const int a = k_pair[l][0], b = k_pair[l][1];
    for (int i = 0; i < 3; ++i) {
      const double g = V * ge[l] * m[l][i];
      f[3 * a + i] += g;
      f[3 * b + i] -= g;
    }
    for (int k = 0; k < 6; ++k) {
      const double g = Gd[6 * k + l];
      if (g == 0.0) continue; /* a broken edge's row and column */
      for (int i = 0; i < 3; ++i) {
        C[k][3 * a + i] -= g * m[l][i];
        C[k][3 * b + i] += g * m[l][i];
      }
    }
  }
  /* K = V B^T C, blocks (p, q) with q >= p; the others mirrored (K is symmetric) */
  double *K = s->Ke + 144 * (size_t)e;
  memset(K, 0, sizeof(double) * 144);
  for (int k = 0; k < 6; ++k)
    for (int side = 0; side < 2; ++side) {
      const int p = k_pair[k][side];
      const double sg = side ? V : -V;
      for (int i = 0; i < 3; ++i) {
        const double w = sg * m[k][i];
        double *row = K + 12 * (3 * p + i);
        for (int j = 3 * p; j < 12; ++j) row[j] += w * C[k][j];
      }
    }
  for (int p = 0; p < 4; ++p)
    for (int q = p; q < 4; ++q)
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) K[12 * (3 * q + j) + 3 * p + i] = K[12 * (3 * p + i) + 3 * q + j];
  s->psi[e] = psi;
  /* sigma = sum_k (G_d e)_k r_k r_k^T, r_k = R n_k */
  double sg[6] = {0, 0, 0, 0, 0, 0};
  for (int k = 0; k < 6; ++k) {
    const double g = ge[k], *rk = r[k];
    sg[0] += g * rk[0] * rk[0], sg[1] += g * rk[1] * rk[1], sg[2] += g * rk[2] * rk[2];
    sg[3] += g * rk[0] * rk[1], sg[4] += g * rk[1] * rk[2], sg[5] += g * rk[0] * rk[2];
  }
  double *sigma = s->sig + 9 * (size_t)e;
  sigma[0] = sg[0], sigma[4] = sg[1], sigma[8] = sg[2];
  sigma[1] = sigma[3] = sg[3], sigma[5] = sigma[7] = sg[4], sigma[2] = sigma[6] = sg[5];
  const cl_mat3 F = cl_fem_deformation_gradient(st->x, t, s->Dminv + 9 * (size_t)e);
  memcpy(s->Fe + 9 * (size_t)e, F.m, sizeof F.m);
}

void cl_gfem_store_stress(cl_gfem *s, int32_t e, const cl_mat3 *F, const cl_mat3 *P) {
  const double J = cl_mat3_det(F);
  const cl_mat3 PFt = cl_mat3_mul_nt(P, F);
  double *sigma = s->sig + 9 * (size_t)e;
  for (int k = 0; k < 9; ++k) sigma[k] = fabs(J) > 1e-12 ? PFt.m[k] / J : 0.0;
  memcpy(s->Fe + 9 * (size_t)e, F->m, sizeof F->m);
}

/* Force, stiffness, energy, F and stress of element e: 1, or 0 when its deformation has none
 * (non-finite). */
static int update_one(cl_gfem *s, const cl_body_state *st, int32_t e) {
  if (s->dmg[e]) {
    update_damaged(s, st, e);
    return 1;
  }
  const cl_mat3 F = cl_fem_deformation_gradient(st->x, st->cells + 4 * (size_t)e, s->Dminv + 9 * (size_t)e);
  if (s->use_h) { /* warped.c; beyond warp_limit (-1) the model's element below */
    const int w = cl_gfem_warped_element(s, &F, e);
    if (w >= 0) return w;
  }
  cl_mat3 P;
  double dPdF[81], psi;
  if (cl_fem_piola(&s->mat, &F, &psi, &P, dPdF, !s->exact_tangent) < 0) return 0;
  cl_fem_element_forces(&P, s->vol[e], s->Dminv + 9 * (size_t)e, s->fe + 12 * (size_t)e);
  cl_fem_element_stiffness(dPdF, s->vol[e], s->Dminv + 9 * (size_t)e, s->Ke + 144 * (size_t)e);
  cl_gfem_store_stress(s, e, &F, &P);
  s->psi[e] = s->vol[e] * psi;
  return 1;
}

/* Does the last pass hold for these positions and parameters? */
static int key_holds(const cl_gfem *s, const cl_body_state *st) {
  return s->key_valid && s->key_exact == s->exact_tangent && memcmp(s->pkey, s->p, sizeof s->pkey) == 0 &&
         memcmp(s->xkey, st->x, sizeof(double) * 3 * (size_t)s->nnodes) == 0;
}

cl_status cl_gfem_update_elements(cl_gfem *s, const cl_body_state *st) {
  int32_t bad = -1;
  const int holds = key_holds(s, st);
  if (s->prefetched) { /* was the pass the last step ran ahead used? */
    s->prefetched = 0;
    if (holds) {
      s->prefetch_misses = 0;
    } else {
      s->prefetch_misses += s->prefetch_misses < 8;
      s->prefetch_wait = 1 << s->prefetch_misses; /* back off: wait 2, 4, ..., 256 steps */
    }
  }
  s->use_h = s->p[GF_TANGENT] != 0.0 && !s->exact_tangent;
  s->key_valid = 0;
  /* every element, or when the last pass holds only those whose damage changed since (listed
   * first: most steps have none or a few, and a parallel region for them costs more than they do) */
  int32_t count = s->ntets;
  if (holds) {
    count = 0;
    for (int32_t e = 0; e < s->ntets; ++e)
      if (s->kdirty[e]) s->redo[count++] = e;
  }
#pragma omp parallel for schedule(dynamic, 256) num_threads(s->threads) if (count > 2048)
  for (int32_t i = 0; i < count; ++i) {
    const int32_t e = holds ? s->redo[i] : i;
    if (!update_one(s, st, e)) {
#pragma omp critical
      bad = e;
    }
  }
  if (bad >= 0)
    return cl_fail(CL_ERR_NUMERICAL, "%s: element %d has a non-finite deformation gradient", s->body, bad);
  memcpy(s->xkey, st->x, sizeof(double) * 3 * (size_t)s->nnodes);
  memcpy(s->pkey, s->p, sizeof s->pkey);
  s->key_exact = s->exact_tangent;
  s->key_valid = 1;
  return CL_OK;
}

cl_status cl_gfem_prefetch_elements(cl_gfem *s, const cl_body_state *st) {
  if (s->prefetch_wait > 0) {
    s->prefetch_wait--;
    return CL_OK;
  }
  CL_TRY(cl_gfem_update_elements(s, st));
  s->prefetched = 1;
  return CL_OK;
}
