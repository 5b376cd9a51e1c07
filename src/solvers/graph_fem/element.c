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
  /* damages are in [0, 1], never NaN nor -0 (fracture.c raises them only to larger values), where
   * fmax is this comparison (and a call into libm: gcc does not inline fmax) */
  for (int k = 0; k < 6; ++k) {
    const double a = s->damage[s->tet_edge[6 * (size_t)e + k]], b = s->edamage[6 * (size_t)e + k];
    d[k] = a > b ? a : b;
  }
}

/* G_d of element e (fem/edge_elastic.h, eq L) for its damages d; 0 for a degenerate tet. */
static int degraded_edge_stiffness(const cl_gfem *s, const cl_body_state *st, int32_t e, const double *d, double *Gd) {
  double G[36], T[36];
  if (!cl_fem_edge_stiffness_of(st->X, st->cells + 4 * (size_t)e, s->lambda0, s->mu0, T, G)) return 0;
  cl_fem_edge_degrade(G, d, Gd);
  return 1;
}

/* The edges at each corner of a tet (geom/tet_edges.h order) and the sign of the corner in the edge
 * (-1: its first corner a_k, +1: its second b_k). */
static const int k_node_edges[4][3] = {{0, 1, 2}, {0, 3, 4}, {1, 3, 5}, {2, 4, 5}};
static const double k_node_sign[4][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {1, 1, 1}};

/* Element e's edge basis (s->edg, CL_GFEM_EDG per tet): G_d (36), the unit rest directions n_k (18,
 * from corner a_k to b_k) and 1 / L_k (6) of its edges, the fit vectors g_k (18), whether the
 * undamaged edges span space (1) and the largest damage of its edges (1). The rotation is fitted to
 * the undamaged edges (weighted least squares of F D_k = d_k, weights w_k = 1 - d_k): F_w =
 * (sum w d D^T)(sum w D D^T)^-1 = sum_k d_k g_k^T with g_k = w_k B^-1 D_k, B = sum w D D^T
 * (symmetric), which depends on the rest shape and the damage only, so it is made here, when the
 * damage changes. */
static void build_degraded(cl_gfem *s, const cl_body_state *st, int32_t e) {
  double d[6];
  double *Gd = s->edg + CL_GFEM_EDG * (size_t)e, *n = Gd + 36, *il = Gd + 54, *g = Gd + 60;
  s->kdirty[e] = 0;
  memset(Gd, 0, sizeof(double) * CL_GFEM_EDG);
  cl_gfem_element_damage(s, e, d);
  double dmax = 0.0; /* what the measure reports as the tet's damage */
  for (int k = 0; k < 6; ++k) dmax = fmax(dmax, d[k]);
  Gd[79] = dmax;
  if (!degraded_edge_stiffness(s, st, e, d, Gd)) return; /* degenerate: no stiffness (bind refuses such tets) */
  const int32_t *t = st->cells + 4 * (size_t)e;
  cl_mat3 B = cl_mat3_zero();
  double D[6][3], scale = 0.0;
  for (int k = 0; k < 6; ++k) {
    const double *Xa = st->X + 3 * (size_t)t[k_pair[k][0]], *Xb = st->X + 3 * (size_t)t[k_pair[k][1]];
    for (int c = 0; c < 3; ++c) D[k][c] = Xb[c] - Xa[c];
    const double L2 = D[k][0] * D[k][0] + D[k][1] * D[k][1] + D[k][2] * D[k][2], L = sqrt(L2);
    for (int c = 0; c < 3; ++c) n[3 * k + c] = D[k][c] / L;
    il[k] = 1.0 / L;
    const double w = 1.0 - d[k];
    if (!(w > 0.0)) continue;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) B.m[3 * i + j] += w * D[k][i] * D[k][j];
    scale += w * L2;
  }
  cl_mat3 Bi;
  if (!(scale > 0.0) || !(fabs(cl_mat3_det(&B)) > 1e-9 * scale * scale * scale) || cl_mat3_inverse(&B, &Bi) < 0)
    return; /* the undamaged edges do not span space: the element keeps its rotation */
  for (int k = 0; k < 6; ++k) {
    const double w = 1.0 - d[k];
    if (!(w > 0.0)) continue;
    for (int i = 0; i < 3; ++i)
      g[3 * k + i] = w * (Bi.m[3 * i] * D[k][0] + Bi.m[3 * i + 1] * D[k][1] + Bi.m[3 * i + 2] * D[k][2]);
  }
  Gd[78] = 1.0;
}

/* A damaged element in its edge basis (the header): f = -R K0_d (R^T x - X), K = R K0_d R^T, psi =
 * 1/2 u^T K0_d u and its stress R (T^T G_d e) R^T, each from G_d and m_k = R n_k / L_k. */
static void update_damaged(cl_gfem *s, const cl_body_state *st, int32_t e) {
  if (s->kdirty[e]) build_degraded(s, st, e);
  const int32_t *t = st->cells + 4 * (size_t)e;
  const double *Gd = s->edg + CL_GFEM_EDG * (size_t)e, *n = Gd + 36, *il = Gd + 54, *g = Gd + 60, V = s->vol[e];
  double d[6][3];
  for (int k = 0; k < 6; ++k) {
    const double *xa = st->x + 3 * (size_t)t[k_pair[k][0]], *xb = st->x + 3 * (size_t)t[k_pair[k][1]];
    for (int c = 0; c < 3; ++c) d[k][c] = xb[c] - xa[c];
  }
  /* the rotation: the polar factor of F_w = sum_k d_k g_k^T, or the last one (build_degraded) */
  double *Rs = s->Re + 9 * (size_t)e;
  if (Gd[78] != 0.0) {
    cl_mat3 Fw = cl_mat3_zero(), R;
    for (int k = 0; k < 6; ++k)
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) Fw.m[3 * i + j] += d[k][i] * g[3 * k + j];
    /* the division-free iteration where F_w is near a rotation (small strain: nearly always), the
     * same polar factor to rounding */
    if (cl_polar3_near(&Fw, &R, NULL) || cl_polar3(&Fw, &R, NULL) >= 0) memcpy(Rs, R.m, sizeof R.m);
  }
  double r[6][3], m[6][3], ed[6], ge[6];
  for (int k = 0; k < 6; ++k) {
    const double *nk = n + 3 * k;
    for (int i = 0; i < 3; ++i) {
      r[k][i] = Rs[3 * i] * nk[0] + Rs[3 * i + 1] * nk[1] + Rs[3 * i + 2] * nk[2];
      m[k][i] = r[k][i] * il[k];
    }
    ed[k] = m[k][0] * d[k][0] + m[k][1] * d[k][1] + m[k][2] * d[k][2] - 1.0;
  }
  double psi = 0.0;
  for (int k = 0; k < 6; ++k) {
    double sum = 0.0;
    for (int l = 0; l < 6; ++l) sum += Gd[6 * k + l] * ed[l];
    ge[k] = sum;
    psi += 0.5 * V * ed[k] * sum;
  }
  /* f_q = -V sum_{k at q} s_kq (G_d e)_k m_k; c[q][k] = sum_{l at q} s_lq G_d,kl m_l (G_d B, by
   * corner). The rows of B sum to zero over the corners (-m_k + m_k), so corner 0's force and blocks
   * are minus the sums of the others' */
  double *f = s->fe + 12 * (size_t)e, c[4][6][3];
  for (int q = 1; q < 4; ++q) {
    const int *E = k_node_edges[q];
    const double *sg = k_node_sign[q];
    for (int i = 0; i < 3; ++i)
      f[3 * q + i] = -V * (sg[0] * ge[E[0]] * m[E[0]][i] + sg[1] * ge[E[1]] * m[E[1]][i] + sg[2] * ge[E[2]] * m[E[2]][i]);
    for (int k = 0; k < 6; ++k) {
      const double w0 = sg[0] * Gd[6 * k + E[0]], w1 = sg[1] * Gd[6 * k + E[1]], w2 = sg[2] * Gd[6 * k + E[2]];
      for (int i = 0; i < 3; ++i) c[q][k][i] = w0 * m[E[0]][i] + w1 * m[E[1]][i] + w2 * m[E[2]][i];
    }
  }
  for (int i = 0; i < 3; ++i) f[i] = -(f[3 + i] + f[6 + i] + f[9 + i]);
  /* K = V B^T (G_d B): K_pq = V sum_{k at p} s_kp m_k c[q][k]^T for 1 <= p <= q, stored in fem/tet.h's
   * upper form (K_qp = K_pq^T, K_0q = -(K_1q + K_2q + K_3q) made where it is added); K_00 is made
   * symmetric to the bit there, as the other blocks are (CL_TET_SYM00) */
  double *Ku = s->Ke + CL_TET_UPPER * (size_t)e;
  for (int p = 1; p < 4; ++p) {
    const int *E = k_node_edges[p];
    double a[3][3];
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 3; ++i) a[j][i] = V * k_node_sign[p][j] * m[E[j]][i];
    for (int q = p; q < 4; ++q, Ku += 9) {
      const double *c0 = c[q][E[0]], *c1 = c[q][E[1]], *c2 = c[q][E[2]];
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          const double v = a[0][i] * c0[j] + a[1][i] * c1[j] + a[2][i] * c2[j];
          Ku[3 * i + j] = v;
          if (p == q) Ku[3 * j + i] = v; /* a diagonal block: the later (j, i) overwrites, symmetric */
        }
    }
  }
  s->kform[e] = CL_TET_SYM00;
  /* a corner 0 whose edges are all broken (zero rows of G_d) carries exactly nothing: the sums would
   * leave rounding there (the other corners are made directly, so theirs are exact zeros) */
  if (Gd[0] == 0.0 && Gd[7] == 0.0 && Gd[14] == 0.0) {
    s->kform[e] |= CL_TET_FREE0;
    f[0] = f[1] = f[2] = 0.0;
  }
  s->psi[e] = psi;
  /* sigma = sum_k (G_d e)_k r_k r_k^T, r_k = R n_k */
  double sv[6] = {0, 0, 0, 0, 0, 0};
  for (int k = 0; k < 6; ++k) {
    const double gk = ge[k], *rk = r[k];
    sv[0] += gk * rk[0] * rk[0], sv[1] += gk * rk[1] * rk[1], sv[2] += gk * rk[2] * rk[2];
    sv[3] += gk * rk[0] * rk[1], sv[4] += gk * rk[1] * rk[2], sv[5] += gk * rk[0] * rk[2];
  }
  double *sigma = s->sig + 9 * (size_t)e;
  sigma[0] = sv[0], sigma[4] = sv[1], sigma[8] = sv[2];
  sigma[1] = sigma[3] = sv[3], sigma[5] = sigma[7] = sv[4], sigma[2] = sigma[6] = sv[5];
  const cl_mat3 F = cl_fem_deformation_gradient(st->x, t, s->Dminv + 9 * (size_t)e);
  memcpy(s->Fe + 9 * (size_t)e, F.m, sizeof F.m);
}

void cl_gfem_element_matrix(const cl_gfem *s, int32_t e, double *K) {
  if (s->use_h && !s->dmg[e] && s->hk[e]) cl_fem_corot_stiffness(s->h + 12 * (size_t)e, s->vol[e], s->lambda0, s->mu0, K);
  else cl_tet_stiffness_expand(s->Ke + CL_TET_UPPER * (size_t)e, s->kform[e], K);
}

void cl_gfem_store_stress(cl_gfem *s, int32_t e, const cl_mat3 *F, const cl_mat3 *P) {
  const double J = cl_mat3_det(F), iJ = fabs(J) > 1e-12 ? 1.0 / J : 0.0;
  const cl_mat3 PFt = cl_mat3_mul_nt(P, F);
  double *sigma = s->sig + 9 * (size_t)e;
  for (int k = 0; k < 9; ++k) sigma[k] = PFt.m[k] * iJ;
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
  cl_mat3 P;
  double dPdF[81], psi;
  /* a lagged step (lagged.c) keeps its A: forces, energy and stress alone, P in closed form (warped.c,
   * without the rotation but for the corotated model) */
  if (s->forces_only && cl_gfem_closed_form_piola(&s->mat, &F, NULL, &P, &psi)) {
    cl_fem_element_forces(&P, s->vol[e], s->Dminv + 9 * (size_t)e, s->fe + 12 * (size_t)e);
    cl_gfem_store_stress(s, e, &F, &P);
    s->psi[e] = s->vol[e] * psi;
    return 1;
  }
  if (s->use_h) { /* warped.c; beyond warp_limit (-1) the model's element below */
    const int w = cl_gfem_warped_element(s, &F, e);
    if (w >= 0) return w;
  }
  if (cl_fem_piola(&s->mat, &F, &psi, &P, dPdF, !s->exact_tangent) < 0) return 0;
  cl_fem_element_forces(&P, s->vol[e], s->Dminv + 9 * (size_t)e, s->fe + 12 * (size_t)e);
  cl_fem_element_stiffness_upper(dPdF, s->vol[e], s->Dminv + 9 * (size_t)e, s->Ke + CL_TET_UPPER * (size_t)e);
  s->kform[e] = 0;
  cl_gfem_store_stress(s, e, &F, &P);
  s->psi[e] = s->vol[e] * psi;
  return 1;
}

/* Does the last pass hold for these positions and parameters (and did it make the stiffness when
 * this pass must)? */
static int key_holds(const cl_gfem *s, const cl_body_state *st) {
  return s->key_valid && s->key_exact == s->exact_tangent && (s->forces_only || !s->key_forces) &&
         memcmp(s->pkey, s->p, sizeof s->pkey) == 0 &&
         memcmp(s->xkey, st->x, sizeof(double) * 3 * (size_t)s->nnodes) == 0;
}

/* The pass asks for the data of the element ELEM_PREFETCH ahead: its corners' positions (scattered over
 * x), a damaged element's edge basis and rotation (damaged tets lie scattered among the intact ones,
 * so the hardware's stream prefetcher does not fetch their 640 bytes: the first read of the basis was
 * the pass's most sampled instruction) and the lines its stiffness goes to. Written inline: gcc drops
 * __builtin_prefetch from a small helper it finds free of side effects. 4 and 8 ahead measured the
 * same. */
enum { ELEM_PREFETCH = 4 };

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
   * first: most steps have none or a few, and a parallel region for a few costs more than they do;
   * a damaged element made again costs about 2 us, so beyond 64 of them the threads share them) */
  int32_t count = s->ntets;
  if (holds) {
    count = 0;
    for (int32_t e = 0; e < s->ntets; ++e)
      if (s->kdirty[e]) s->redo[count++] = e;
  }
#pragma omp parallel for schedule(dynamic, 64) num_threads(s->threads) if (count > 64)
  for (int32_t i = 0; i < count; ++i) {
    const int32_t e = holds ? s->redo[i] : i;
    if (i + ELEM_PREFETCH < count) {
      const int32_t ep = holds ? s->redo[i + ELEM_PREFETCH] : i + ELEM_PREFETCH;
      const int32_t *tp = st->cells + 4 * (size_t)ep;
      for (int a = 0; a < 4; ++a) __builtin_prefetch(st->x + 3 * (size_t)tp[a], 0, 3);
      if (s->dmg[ep]) {
        const char *p = (const char *)(s->edg + CL_GFEM_EDG * (size_t)ep);
        for (int k = 0; k < CL_GFEM_EDG * 8; k += 64) __builtin_prefetch(p + k, 0, 3);
        __builtin_prefetch(s->Re + 9 * (size_t)ep, 1, 3);
        __builtin_prefetch(s->Re + 9 * (size_t)ep + 8, 1, 3);
      }
      if (s->dmg[ep] || !s->hk[ep]) { /* its stiffness is written as Ke (the last pass's guess for an intact one) */
        const char *q = (const char *)(s->Ke + CL_TET_UPPER * (size_t)ep);
        for (int k = 0; k < CL_TET_UPPER * 8; k += 64) __builtin_prefetch(q + k, 1, 3);
      }
    }
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
  if (!holds || count > 0) s->key_forces = s->forces_only; /* a pass that held and redid nothing keeps its stiffness */
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
