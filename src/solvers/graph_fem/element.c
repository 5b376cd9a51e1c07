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
 * Without damage G_d = G and K0_d is the linear element exactly. A node all of whose edges in the
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

/* K0_d = V b^T G_d b of element e, and its stress map Sd = T^T G_d b: the small-strain stress
 * sigma = C eps = T^T G_d e (fem/edge_elastic.h) of the corner displacements u in the element's
 * frame, e = b u, in Voigt order (xx, yy, zz, xy, yz, zx). Both from Gb = G_d b; K0_d is symmetric,
 * its lower half the mirror of the upper. */
static void build_degraded(cl_gfem *s, const cl_body_state *st, int32_t e) {
  double b[72], T[36], G[36], Gb[72];
  double *K = s->K0d + 144 * (size_t)e, *M = s->Sd + 72 * (size_t)e;
  s->kdirty[e] = 0;
  if (!degraded_edge_stiffness(s, st, e, b, T, G)) { /* degenerate: no stiffness (bind refuses such tets) */
    memset(K, 0, sizeof(double) * 144);
    memset(M, 0, sizeof(double) * 72);
    return;
  }
  for (int i = 0; i < 6; ++i)
    for (int q = 0; q < 12; ++q) {
      double t = 0.0;
      for (int j = 0; j < 6; ++j) t += G[6 * i + j] * b[12 * j + q];
      Gb[12 * i + q] = t;
    }
  const double V = s->vol[e];
  for (int p = 0; p < 12; ++p)
    for (int q = p; q < 12; ++q) {
      double sum = 0.0;
      for (int i = 0; i < 6; ++i) sum += b[12 * i + p] * Gb[12 * i + q];
      K[12 * p + q] = K[12 * q + p] = V * sum;
    }
  for (int i = 0; i < 6; ++i)
    for (int q = 0; q < 12; ++q) {
      double sum = 0.0;
      for (int k = 0; k < 6; ++k) sum += T[6 * k + i] * Gb[12 * k + q];
      M[12 * i + q] = sum;
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

/* A damaged element: f = -R K0_d (R^T x - X), K = R K0_d R^T, psi = 1/2 u^T K0_d u, and its stress
 * R (Sd u) R^T (the degraded small-strain stress turned by R). */
static void update_damaged(cl_gfem *s, const cl_body_state *st, int32_t e) {
  if (s->kdirty[e]) build_degraded(s, st, e);
  cl_mat3 R;
  memcpy(R.m, s->Re + 9 * (size_t)e, sizeof R.m);
  if (fitted_rotation(s, st, e, &R)) memcpy(s->Re + 9 * (size_t)e, R.m, sizeof R.m);
  const int32_t *t = st->cells + 4 * (size_t)e;
  const double *K0 = s->K0d + 144 * (size_t)e, *M = s->Sd + 72 * (size_t)e;
  double u[12], ku[12];
  for (int a = 0; a < 4; ++a) {
    const double *x = st->x + 3 * (size_t)t[a], *X = st->X + 3 * (size_t)t[a];
    for (int i = 0; i < 3; ++i)
      u[3 * a + i] = R.m[i] * x[0] + R.m[3 + i] * x[1] + R.m[6 + i] * x[2] - X[i];
  }
  double psi = 0.0;
  for (int p = 0; p < 12; ++p) {
    double sum = 0.0;
    for (int q = 0; q < 12; ++q) sum += K0[12 * p + q] * u[q];
    ku[p] = sum;
    psi += 0.5 * u[p] * sum;
  }
  double *f = s->fe + 12 * (size_t)e, *K = s->Ke + 144 * (size_t)e;
  for (int a = 0; a < 4; ++a)
    for (int i = 0; i < 3; ++i)
      f[3 * a + i] = -(R.m[3 * i] * ku[3 * a] + R.m[3 * i + 1] * ku[3 * a + 1] + R.m[3 * i + 2] * ku[3 * a + 2]);
  /* K_ab = R K0_ab R^T for a <= b; K_ba = K_ab^T (K0_d is symmetric) */
  for (int a = 0; a < 4; ++a)
    for (int b = a; b < 4; ++b) {
      double blk[9], T[9];
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) blk[3 * i + j] = K0[12 * (3 * a + i) + 3 * b + j];
      for (int i = 0; i < 3; ++i) /* T = R blk */
        for (int j = 0; j < 3; ++j)
          T[3 * i + j] = R.m[3 * i] * blk[j] + R.m[3 * i + 1] * blk[3 + j] + R.m[3 * i + 2] * blk[6 + j];
      for (int i = 0; i < 3; ++i) /* K_ab = T R^T */
        for (int j = 0; j < 3; ++j) {
          const double v = T[3 * i] * R.m[3 * j] + T[3 * i + 1] * R.m[3 * j + 1] + T[3 * i + 2] * R.m[3 * j + 2];
          K[12 * (3 * a + i) + 3 * b + j] = K[12 * (3 * b + j) + 3 * a + i] = v;
        }
    }
  s->psi[e] = psi;
  /* the stress: sigma_r = Sd u in the element's frame, sigma = R sigma_r R^T */
  double sv[6];
  for (int i = 0; i < 6; ++i) {
    double sum = 0.0;
    for (int q = 0; q < 12; ++q) sum += M[12 * i + q] * u[q];
    sv[i] = sum;
  }
  const cl_mat3 Sr = {{sv[0], sv[3], sv[5], sv[3], sv[1], sv[4], sv[5], sv[4], sv[2]}};
  const cl_mat3 RS = cl_mat3_mul(&R, &Sr), sigma = cl_mat3_mul_nt(&RS, &R);
  const cl_mat3 F = cl_fem_deformation_gradient(st->x, t, s->Dminv + 9 * (size_t)e);
  memcpy(s->sig + 9 * (size_t)e, sigma.m, sizeof sigma.m);
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
#pragma omp parallel for schedule(dynamic, 256) num_threads(s->threads) if (s->ntets > 2048)
  for (int32_t e = 0; e < s->ntets; ++e) {
    if (holds && !s->kdirty[e]) continue; /* only the elements whose damage changed */
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
