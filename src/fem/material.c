/* Hyperelastic models in the singular values (fem/material.h has the energies and references). */
#include <math.h>
#include <string.h>

#include "base/error.h"
#include "fem/material.h"
#include "fem/tet.h"

const char *cl_fem_model_name(cl_fem_model m) {
  switch (m) {
    case CL_FEM_COROTATED: return "corotated";
    case CL_FEM_STVK: return "stvk";
    case CL_FEM_STABLE_NEOHOOKEAN: return "stable_neohookean";
    case CL_FEM_MODEL_COUNT: break;
  }
  return "unknown";
}

void cl_fem_material_init(cl_fem_material *mat, cl_fem_model model, double young, double poisson) {
  const double lam = young * poisson / ((1.0 + poisson) * (1.0 - 2.0 * poisson));
  const double mu = young / (2.0 * (1.0 + poisson));
  mat->model = model;
  mat->lambda = lam;
  mat->mu = mu;
  mat->alpha = 1.0;
  if (model == CL_FEM_STABLE_NEOHOOKEAN) {
    /* Smith et al. 2018 sec 3.4: mu' = 4/3 mu, lambda' = lambda + 5/6 mu match linear elasticity at
     * small strain; alpha puts the rest state at P = 0 with the log term */
    mat->mu = 4.0 / 3.0 * mu;
    mat->lambda = lam + 5.0 / 6.0 * mu;
    mat->alpha = 1.0 + 0.75 * mat->mu / mat->lambda;
  }
}

double cl_fem_psi_sigma(const cl_fem_material *mat, const double s[3], double *g, double *H) {
  const double lam = mat->lambda, mu = mat->mu;
  double psi = 0.0, gg[3], HH[9];
  switch (mat->model) {
    case CL_FEM_COROTATED: {
      const double tr = s[0] + s[1] + s[2] - 3.0;
      for (int i = 0; i < 3; ++i) {
        psi += mu * (s[i] - 1.0) * (s[i] - 1.0);
        gg[i] = 2.0 * mu * (s[i] - 1.0) + lam * tr;
        for (int j = 0; j < 3; ++j) HH[3 * i + j] = lam + (i == j ? 2.0 * mu : 0.0);
      }
      psi += 0.5 * lam * tr * tr;
      break;
    }
    case CL_FEM_STVK: {
      double e[3], tr = 0.0;
      for (int i = 0; i < 3; ++i) {
        e[i] = 0.5 * (s[i] * s[i] - 1.0);
        tr += e[i];
        psi += mu * e[i] * e[i];
      }
      psi += 0.5 * lam * tr * tr;
      for (int i = 0; i < 3; ++i) {
        const double t = 2.0 * mu * e[i] + lam * tr;
        gg[i] = t * s[i];
        for (int j = 0; j < 3; ++j) HH[3 * i + j] = i == j ? t + s[i] * s[i] * (2.0 * mu + lam) : lam * s[i] * s[j];
      }
      break;
    }
    case CL_FEM_STABLE_NEOHOOKEAN:
    default: {
      const double I = s[0] * s[0] + s[1] * s[1] + s[2] * s[2], J = s[0] * s[1] * s[2], a = mat->alpha;
      const double Jd[3] = {s[1] * s[2], s[0] * s[2], s[0] * s[1]};
      psi = 0.5 * mu * (I - 3.0) + 0.5 * lam * (J - a) * (J - a) - 0.5 * mu * log(I + 1.0);
      const double q = 1.0 / (I + 1.0);
      for (int i = 0; i < 3; ++i) {
        gg[i] = mu * s[i] * (1.0 - q) + lam * (J - a) * Jd[i];
        for (int j = 0; j < 3; ++j) {
          if (i == j) {
            HH[3 * i + j] = mu * (1.0 - q) + 2.0 * mu * s[i] * s[i] * q * q + lam * Jd[i] * Jd[i];
          } else {
            const int k = 3 - i - j;
            HH[3 * i + j] = 2.0 * mu * s[i] * s[j] * q * q + lam * (Jd[i] * Jd[j] + (J - a) * s[k]);
          }
        }
      }
      break;
    }
  }
  if (g) memcpy(g, gg, sizeof gg);
  if (H) memcpy(H, HH, sizeof HH);
  return psi;
}

/* a = (g_i - g_j) / (s_i - s_j). For an isotropic energy g_i - g_j vanishes with s_i - s_j, and the
 * quotient tends to H_ii - H_ij (the derivative along s_i - s_j): that limit `lim` is used below a
 * relative gap of 1e-6, where the quotient would lose digits; its error is of the order of the gap
 * times the third derivative. (Clamping the gap instead, as for b below, made the tangent of a nearly
 * uniformly strained element wrong by up to 100 % on this mode, and Newton iterations of a static
 * solve converge only linearly.) */
static double ratio_difference(double num, double den, double lim, double scale) {
  if (fabs(den) < 1e-6 * scale) return lim;
  return num / den;
}

/* b = (g_i + g_j) / (s_i + s_j): the numerator need not vanish with the denominator (an element
 * flattened or inverted so that s_i = -s_j), so the denominator's size is kept above 1e-6 (relative)
 * and such elements get a finite stiffness; where it is exactly zero, `lim` = H_ii + H_ij (the
 * derivative along s_i + s_j, the limit where the numerator vanishes too). */
static double ratio_sum(double num, double den, double lim, double scale) {
  const double eps = 1e-6 * scale;
  if (fabs(den) < 1e-12 * scale) return lim;
  if (fabs(den) < eps) den = den < 0.0 ? -eps : eps;
  return num / den;
}

cl_status cl_fem_piola(const cl_fem_material *mat, const cl_mat3 *F, double *psi, cl_mat3 *P, double *dPdF,
                       int project) {
  cl_mat3 U, V;
  cl_vec3 sv;
  /* the fast SVD: cl_svd3's contract and accuracy, about 2x cheaper (base/mat3.h); where singular
   * values repeat it may choose other vectors, which P and dP/dF do not depend on */
  cl_status st = cl_svd3_fast(F, &U, &sv, &V);
  if (st < 0) return cl_fail(CL_ERR_NUMERICAL, "material: the deformation gradient has no SVD (non-finite?)");
  const double s[3] = {sv.x, sv.y, sv.z};
  double g[3], H[9];
  const double e = cl_fem_psi_sigma(mat, s, g, H);
  if (psi) *psi = e;
  if (P) { /* P = U diag(g) V^T */
    for (int p = 0; p < 3; ++p)
      for (int q = 0; q < 3; ++q) {
        double sum = 0.0;
        for (int i = 0; i < 3; ++i) sum += U.m[3 * p + i] * g[i] * V.m[3 * q + i];
        P->m[3 * p + q] = sum;
      }
  }
  if (!dPdF) return CL_OK;
  /* the tangent in the frame of U and V: block A on the diagonal entries, 2x2 blocks per pair */
  double A[9];
  memcpy(A, H, sizeof A);
  /* a positive definite A (Sylvester: its leading minors; the corotated model's always is) is its
   * own projection: the eigen-decomposition would give it back up to rounding */
  const double m2 = A[0] * A[4] - A[1] * A[3];
  const int definite = A[0] > 0.0 && m2 > 0.0 && A[2] * (A[3] * A[7] - A[4] * A[6]) - A[5] * (A[0] * A[7] - A[1] * A[6]) + A[8] * m2 > 0.0;
  if (project && !definite) {
    cl_mat3 Am, Q;
    cl_vec3 ev;
    memcpy(Am.m, A, sizeof A);
    if (cl_eig_sym3(&Am, &ev, &Q) >= 0) {
      const double l[3] = {fmax(ev.x, 0.0), fmax(ev.y, 0.0), fmax(ev.z, 0.0)};
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          A[3 * i + j] = Q.m[3 * i] * l[0] * Q.m[3 * j] + Q.m[3 * i + 1] * l[1] * Q.m[3 * j + 1] +
                         Q.m[3 * i + 2] * l[2] * Q.m[3 * j + 2];
    }
  }
  const double scale = fabs(s[0]) + fabs(s[1]) + fabs(s[2]) + 1e-300;
  double pa[3], pb[3]; /* per pair (0,1), (0,2), (1,2): eigenvalues a (of (1,1)) and b (of (1,-1)) */
  static const int pi[3] = {0, 0, 1}, pj[3] = {1, 2, 2};
  for (int k = 0; k < 3; ++k) {
    const int i = pi[k], j = pj[k];
    pa[k] = ratio_difference(g[i] - g[j], s[i] - s[j], H[3 * i + i] - H[3 * i + j], scale);
    pb[k] = ratio_sum(g[i] + g[j], s[i] + s[j], H[3 * i + i] + H[3 * i + j], scale);
    if (project) {
      pa[k] = fmax(pa[k], 0.0);
      pb[k] = fmax(pb[k], 0.0);
    }
  }
  /* column (r, c): dF = e_r e_c^T, i.e. dF^ = U^T dF V with entries U_ri V_cj */
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) {
      double dF[9], dP[9];
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) dF[3 * i + j] = U.m[3 * r + i] * V.m[3 * c + j];
      for (int i = 0; i < 3; ++i) dP[4 * i] = A[3 * i] * dF[0] + A[3 * i + 1] * dF[4] + A[3 * i + 2] * dF[8];
      for (int k = 0; k < 3; ++k) {
        const int i = pi[k], j = pj[k];
        const double h = 0.5 * (pa[k] + pb[k]), o = 0.5 * (pa[k] - pb[k]);
        dP[3 * i + j] = h * dF[3 * i + j] + o * dF[3 * j + i];
        dP[3 * j + i] = o * dF[3 * i + j] + h * dF[3 * j + i];
      }
      /* back: dP = (U dP^) V^T, two 3x3 products */
      double T[9];
      for (int p = 0; p < 3; ++p)
        for (int j = 0; j < 3; ++j)
          T[3 * p + j] = U.m[3 * p] * dP[j] + U.m[3 * p + 1] * dP[3 + j] + U.m[3 * p + 2] * dP[6 + j];
      for (int p = 0; p < 3; ++p)
        for (int q = 0; q < 3; ++q)
          dPdF[9 * (3 * p + q) + 3 * r + c] =
              T[3 * p] * V.m[3 * q] + T[3 * p + 1] * V.m[3 * q + 1] + T[3 * p + 2] * V.m[3 * q + 2];
    }
  return CL_OK;
}

/* g_0..g_3 (12) from the rows g_1..g_3 of Dm^-1. */
static void gradients(const double *Dminv, double *g) {
  for (int k = 0; k < 3; ++k) {
    g[3 + k] = Dminv[k];
    g[6 + k] = Dminv[3 + k];
    g[9 + k] = Dminv[6 + k];
    g[k] = -(g[3 + k] + g[6 + k] + g[9 + k]);
  }
}

void cl_fem_element_forces(const cl_mat3 *P, double V, const double *Dminv, double *f) {
  double g[12];
  gradients(Dminv, g);
  for (int a = 0; a < 4; ++a)
    for (int r = 0; r < 3; ++r)
      f[3 * a + r] = -V * (P->m[3 * r] * g[3 * a] + P->m[3 * r + 1] * g[3 * a + 1] + P->m[3 * r + 2] * g[3 * a + 2]);
}

/* K_ab = V g_a^T dP/dF g_b (blocks 3x3, K_{ar,bs} = V sum_cd g_a[c] dP_rc/dF_sd g_b[d]). As
 * g_0 = -(g_1 + g_2 + g_3), node 0's blocks are minus the sums of the others, and dP/dF is a
 * Hessian (symmetric), so K_ba = K_ab^T: the six blocks 1 <= a <= b <= 3 (fem/tet.h's upper form)
 * are made from M_b = dP/dF g_b (a 9 x 3 per b). */
void cl_fem_element_stiffness_upper(const double *dPdF, double V, const double *Dminv, double *Ku) {
  double g[12], M[3][27];
  gradients(Dminv, g);
  for (int b = 1; b < 4; ++b) {
    const double *gb = g + 3 * b;
    for (int rc = 0; rc < 9; ++rc)
      for (int s = 0; s < 3; ++s) {
        const double *row = dPdF + 9 * rc + 3 * s;
        M[b - 1][3 * rc + s] = row[0] * gb[0] + row[1] * gb[1] + row[2] * gb[2];
      }
  }
  double *B = Ku;
  for (int a = 1; a < 4; ++a) {
    const double va[3] = {V * g[3 * a], V * g[3 * a + 1], V * g[3 * a + 2]};
    for (int b = a; b < 4; ++b, B += 9) {
      const double *Mb = M[b - 1];
      for (int r = 0; r < 3; ++r)
        for (int s = 0; s < 3; ++s)
          B[3 * r + s] = va[0] * Mb[9 * r + s] + va[1] * Mb[9 * r + 3 + s] + va[2] * Mb[9 * r + 6 + s];
    }
  }
}

void cl_fem_element_stiffness(const double *dPdF, double V, const double *Dminv, double *K) {
  double Ku[CL_TET_UPPER];
  cl_fem_element_stiffness_upper(dPdF, V, Dminv, Ku);
  cl_tet_stiffness_expand(Ku, 0, K);
}
