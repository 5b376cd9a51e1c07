/* The linear tet's elasticity on its edges and its degradation by damaged edges; see edge_elastic.h. */
#include "fem/edge_elastic.h"

#include <math.h>
#include <string.h>

#include "geom/tet_edges.h"

/* Gauss-Jordan inverse of a 6x6 matrix with partial pivoting; 0 when singular. */
static int invert6(const double *A, double *Ai) {
  double M[6][12];
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 12; ++j) M[i][j] = j < 6 ? A[6 * i + j] : (j - 6 == i ? 1.0 : 0.0);
  for (int c = 0; c < 6; ++c) {
    int p = c;
    for (int r = c + 1; r < 6; ++r)
      if (fabs(M[r][c]) > fabs(M[p][c])) p = r;
    if (!(fabs(M[p][c]) > 1e-14)) return 0;
    if (p != c)
      for (int j = 0; j < 12; ++j) {
        const double t = M[c][j];
        M[c][j] = M[p][j];
        M[p][j] = t;
      }
    const double inv = 1.0 / M[c][c];
    for (int j = 0; j < 12; ++j) M[c][j] *= inv;
    for (int r = 0; r < 6; ++r) {
      if (r == c || M[r][c] == 0.0) continue;
      const double f = M[r][c];
      for (int j = 0; j < 12; ++j) M[r][j] -= f * M[c][j];
    }
  }
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) Ai[6 * i + j] = M[i][6 + j];
  return 1;
}

/* T of tet t, and b when b is not NULL; 0 for a zero-length edge. */
static int edge_directions(const double *X, const int32_t *t, double *b, double *T) {
  if (b) memset(b, 0, sizeof(double) * 72);
  for (int k = 0; k < 6; ++k) {
    const int ca = cl_tet_edge_corners[k][0], cb = cl_tet_edge_corners[k][1];
    const double *Xa = X + 3 * (size_t)t[ca], *Xb = X + 3 * (size_t)t[cb];
    const double d[3] = {Xb[0] - Xa[0], Xb[1] - Xa[1], Xb[2] - Xa[2]};
    const double L = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (!(L > 0.0)) return 0;
    const double n[3] = {d[0] / L, d[1] / L, d[2] / L};
    double *row = T + 6 * k;
    row[0] = n[0] * n[0];
    row[1] = n[1] * n[1];
    row[2] = n[2] * n[2];
    row[3] = n[0] * n[1];
    row[4] = n[1] * n[2];
    row[5] = n[2] * n[0];
    if (b)
      for (int c = 0; c < 3; ++c) {
        b[12 * k + 3 * cb + c] = n[c] / L;
        b[12 * k + 3 * ca + c] = -n[c] / L;
      }
  }
  return 1;
}

int cl_fem_edge_frame(const double *X, const int32_t *t, double *b, double *T) {
  if (!edge_directions(X, t, b, T)) return 0;
  double Ti[36];
  return invert6(T, Ti);
}

int cl_fem_edge_stiffness_of(const double *X, const int32_t *t, double lambda, double mu, double *T, double *G) {
  return edge_directions(X, t, NULL, T) && cl_fem_edge_stiffness(T, lambda, mu, G);
}

int cl_fem_edge_stiffness(const double *T, double lambda, double mu, double *G) {
  double Ti[36], C[36], M[36];
  if (!invert6(T, Ti)) return 0;
  /* isotropic small-strain elasticity, Voigt form with engineering shears */
  memset(C, 0, sizeof C);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) C[6 * i + j] = lambda;
    C[7 * i] += 2.0 * mu;
    C[7 * (i + 3)] = mu;
  }
  for (int i = 0; i < 6; ++i) /* M = C T^-1 */
    for (int j = 0; j < 6; ++j) {
      double sum = 0.0;
      for (int k = 0; k < 6; ++k) sum += C[6 * i + k] * Ti[6 * k + j];
      M[6 * i + j] = sum;
    }
  for (int i = 0; i < 6; ++i) /* G = T^-T M */
    for (int j = 0; j < 6; ++j) {
      double sum = 0.0;
      for (int k = 0; k < 6; ++k) sum += Ti[6 * k + i] * M[6 * k + j];
      G[6 * i + j] = sum;
    }
  for (int i = 0; i < 6; ++i) /* exactly symmetric */
    for (int j = i + 1; j < 6; ++j) G[6 * i + j] = G[6 * j + i] = 0.5 * (G[6 * i + j] + G[6 * j + i]);
  return 1;
}

/* Condense edge k out of S (one step of Gaussian elimination on a symmetric matrix), leaving row and
 * column k exactly zero. */
static void condense(double *S, int k) {
  const double skk = S[7 * k];
  double trace = 0.0;
  for (int i = 0; i < 6; ++i) trace += fabs(S[7 * i]);
  if (skk > 1e-14 * trace) {
    double g[6];
    for (int i = 0; i < 6; ++i) g[i] = S[6 * i + k];
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) S[6 * i + j] -= g[i] * g[j] / skk;
  }
  for (int i = 0; i < 6; ++i) S[6 * i + k] = S[6 * k + i] = 0.0;
}

void cl_fem_edge_degrade(const double *G, const double *d, double *Gd) {
  double dc[6];
  int order[6], m = 0;
  for (int k = 0; k < 6; ++k) {
    dc[k] = d[k] > 1.0 ? 1.0 : d[k];
    if (dc[k] > 0.0) order[m++] = k;
  }
  for (int i = 1; i < m; ++i) /* descending damage (insertion sort of at most 6) */
    for (int j = i; j > 0 && dc[order[j]] > dc[order[j - 1]]; --j) {
      const int t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  const double top = m ? dc[order[0]] : 0.0;
  for (int i = 0; i < 36; ++i) Gd[i] = (1.0 - top) * G[i];
  if (!m) return;
  double S[36];
  memcpy(S, G, sizeof S);
  for (int i = 0; i < m; ++i) {
    condense(S, order[i]);
    const double now = dc[order[i]], next = i + 1 < m ? dc[order[i + 1]] : 0.0;
    if (now > next)
      for (int q = 0; q < 36; ++q) Gd[q] += (now - next) * S[q];
  }
  for (int i = 0; i < m; ++i) /* a broken edge's row and column: exact zeros, not rounding */
    if (dc[order[i]] >= 1.0)
      for (int j = 0; j < 6; ++j) Gd[6 * j + order[i]] = Gd[6 * order[i] + j] = 0.0;
}

double cl_fem_edge_energy(const double *G, const double *e) {
  double w = 0.0;
  for (int i = 0; i < 6; ++i) {
    double s = 0.0;
    for (int j = 0; j < 6; ++j) s += G[6 * i + j] * e[j];
    w += e[i] * s;
  }
  return 0.5 * w;
}

void cl_fem_edge_strains(const double *T, const double *eps, double *e) {
  const double v[6] = {eps[0], eps[4], eps[8], eps[1] + eps[3], eps[5] + eps[7], eps[2] + eps[6]};
  for (int k = 0; k < 6; ++k) {
    double s = 0.0;
    for (int j = 0; j < 6; ++j) s += T[6 * k + j] * v[j];
    e[k] = s;
  }
}
