/* Linear tetrahedral elements, shared by the FEM solvers (the corotational solver today, the
 * graph-based FEM next) and by the criteria that need element geometry (separation tensor, plastic
 * excess). This layer knows base/, geom/ and linalg/ only: never solvers/, fracture/ or world/.
 *
 * Notation (O'Malley's thesis, "the thesis" below, ch. 3 and 5; Mueller & Gross, "Interactive virtual
 * materials", GI 2004). A tet with corners x_0..x_3 has the edge matrix D = [x_1 - x_0, x_2 - x_0,
 * x_3 - x_0] (geom/tet.h) and volume det(D) / 6; at rest D = Dm, V = det(Dm) / 6. The rows of D^-1 are
 * the gradients g_1, g_2, g_3 of the barycentric coordinates, g_0 = -(g_1 + g_2 + g_3), so the
 * deformation gradient is F = Ds Dm^-1 = sum_a x_a g_a^T.
 *
 * Corotational linear elasticity: R the rotation of F (polar or other, the caller's choice), the
 * small strain of the unrotated shape eps = sym(R^T F) - I (minus a plastic strain, if any), the
 * stress sigma = lambda tr(eps) I + 2 mu eps, and the elastic forces on the corners
 *     f_a = -V R sigma g_a  (a = 1..3),   f_0 = -(f_1 + f_2 + f_3)                   (thesis Alg. 3)
 * which is -R K_e (R^T x - X) because B u is exactly the small strain of R^T F: one 3x3 stress per
 * element instead of a 12x12 product, and the net force is exactly zero. The element stiffness
 * (thesis eq 5.1, K = V B^T D B) written per 3x3 block is
 *     K_ab = V (lambda g_a g_b^T + mu g_b g_a^T + mu (g_a . g_b) I)
 * (Zienkiewicz & Taylor vol. 1 ch. 6), and the warped stiffness R K_e R^T (thesis sec 3.2.5) has the
 * same blocks with the rotated gradients h_a = R g_a, since dot products do not change under R. A
 * solver that keeps h (12 doubles) builds any block from two outer products, with no 12x12 matrix
 * per element in memory.
 *
 * Hot per-element kernels are inline here (they run inside the solvers' element and assembly loops);
 * the rest-state functions are in tet.c. */
#ifndef CL_FEM_TET_H
#define CL_FEM_TET_H

#include <stdint.h>

#include "base/mat3.h"
#include "cleave/status.h"
#include "geom/tet.h"

/* ---- rest state (tet.c) ---- */

/* For every tet of cells (4 node indices each) over the rest positions X (3 per node): Dm^-1 (9 per
 * tet, row-major, row a-1 = g_a) and the rest volume V = det(Dm) / 6 (m^3). An inverted tet, or one
 * whose volume is not above 1e-12 times the cube of its longest edge (degenerate), is CL_ERR_MESH
 * naming the tet, its nodes and its volume. */
cl_status cl_fem_rest_shapes(const double *X, const int32_t *cells, int32_t ncells, double *Dminv, double *vol);

/* Lumped masses (thesis sec 3.2.4): m_i = sum over the tets of node i of density V / 4 (kg), for the n
 * nodes (m is overwritten; a node in no tet gets 0). vol: rest volumes (m^3), density in kg/m^3. */
void cl_fem_lump_masses(int32_t n, const int32_t *cells, int32_t ncells, const double *vol, double density,
                        double *m);

/* Gradients of the barycentric coordinates of the tet t at the positions x (the current shape, or the
 * rest shape with X): rows of *G are g_1, g_2, g_3 (g_0 = -(g_1 + g_2 + g_3)); *volume gets the signed
 * volume (m^3). Returns 0 when D is singular (G is then not set), 1 otherwise. */
int cl_fem_gradients(const double *x, const int32_t *t, cl_mat3 *G, double *volume);

/* The 12x12 stiffness K_ab of one tet from its rotated gradients h (12: h_0..h_3; the rest gradients
 * g with R = I), rest volume V and the Lame parameters (Pa), row-major with dof 3 a + r: the blocks
 * of cl_fem_stiffness_block_add with c = 1. For solvers that assemble whole element matrices and for
 * tests; the corotational solver builds blocks in its row-wise gather instead. */
void cl_fem_corot_stiffness(const double *h, double V, double lambda, double mu, double *K);

/* ---- per element, per step (inline) ---- */

/* F = Ds Dm^-1 of tet t at the positions x, with Dminv its 9 rest values. */
static inline cl_mat3 cl_fem_deformation_gradient(const double *x, const int32_t *t, const double *Dminv) {
  cl_mat3 Ds = cl_tet_edges_of(x, t), Di;
  for (int k = 0; k < 9; ++k) Di.m[k] = Dminv[k];
  return cl_mat3_mul(&Ds, &Di);
}

/* Total small strain of the unrotated shape, sym(R^T F) - I (R^T F is already symmetric for the
 * polar R; other rotations leave a skew part, which does no work). */
static inline cl_mat3 cl_fem_corot_strain(const cl_mat3 *R, const cl_mat3 *F) {
  cl_mat3 RtF = cl_mat3_mul_tn(R, F);
  cl_mat3 eps = cl_mat3_sym(&RtF);
  eps.m[0] -= 1.0;
  eps.m[4] -= 1.0;
  eps.m[8] -= 1.0;
  return eps;
}

/* Isotropic linear stress sigma = lambda tr(eps) I + 2 mu eps (Pa; lambda, mu in Pa). */
static inline cl_mat3 cl_fem_linear_stress(double lambda, double mu, const cl_mat3 *eps) {
  cl_mat3 sig = cl_mat3_scale(eps, 2.0 * mu);
  const double l = lambda * cl_mat3_trace(eps);
  sig.m[0] += l;
  sig.m[4] += l;
  sig.m[8] += l;
  return sig;
}

/* Nodal forces of a stress P on a tet of volume V with barycentric gradients G (9, row a-1 = g_a):
 * f_a = -V P g_a for a = 1..3 and f_0 = -(f_1 + f_2 + f_3), into f (12, N). P = R sigma gives the
 * corotational elastic forces (see the top); P = sigma with the current gradients and volume the
 * forces of a Cauchy stress on the current shape (thesis eq 5.6). */
static inline void cl_fem_stress_forces(const cl_mat3 *P, const double *G, double V, double *f) {
  f[0] = f[1] = f[2] = 0.0;
  for (int a = 1; a < 4; ++a) {
    const cl_vec3 g = cl_vec3_make(G[3 * (a - 1)], G[3 * (a - 1) + 1], G[3 * (a - 1) + 2]);
    const cl_vec3 fa = cl_vec3_scale(cl_mat3_mul_vec(P, g), -V);
    f[3 * a] = fa.x, f[3 * a + 1] = fa.y, f[3 * a + 2] = fa.z;
    for (int k = 0; k < 3; ++k) f[k] -= f[3 * a + k];
  }
}

/* Rotated gradients h_a = R g_a (a = 1..3) and h_0 = -(h_1 + h_2 + h_3) into h (12), from G (9, row
 * a-1 = g_a): what the warped stiffness blocks are made of. */
static inline void cl_fem_rotated_gradients(const cl_mat3 *R, const double *G, double *h) {
  h[0] = h[1] = h[2] = 0.0;
  for (int a = 1; a < 4; ++a) {
    const cl_vec3 g = cl_vec3_make(G[3 * (a - 1)], G[3 * (a - 1) + 1], G[3 * (a - 1) + 2]);
    const cl_vec3 ha = cl_mat3_mul_vec(R, g);
    h[3 * a] = ha.x, h[3 * a + 1] = ha.y, h[3 * a + 2] = ha.z;
    for (int k = 0; k < 3; ++k) h[k] -= h[3 * a + k];
  }
}

/* B += c (lambda h_a h_b^T + mu h_b h_a^T + mu (h_a . h_b) I): block (a, b) of the warped element
 * stiffness times c / V, with the factors of corner a made once per row of blocks by the caller:
 * la = c lambda h_a and ma = c mu h_a (so c = V gives K_ab, c = V s a scaled one). B is row-major 3x3. */
static inline void cl_fem_stiffness_block_add(const double *la, const double *ma, const double *hb, double *B) {
  const double dd = ma[0] * hb[0] + ma[1] * hb[1] + ma[2] * hb[2];
  B[0] += la[0] * hb[0] + hb[0] * ma[0] + dd;
  B[1] += la[0] * hb[1] + hb[0] * ma[1];
  B[2] += la[0] * hb[2] + hb[0] * ma[2];
  B[3] += la[1] * hb[0] + hb[1] * ma[0];
  B[4] += la[1] * hb[1] + hb[1] * ma[1] + dd;
  B[5] += la[1] * hb[2] + hb[1] * ma[2];
  B[6] += la[2] * hb[0] + hb[2] * ma[0];
  B[7] += la[2] * hb[1] + hb[2] * ma[1];
  B[8] += la[2] * hb[2] + hb[2] * ma[2] + dd;
}

/* ---- a tet's stiffness from its corners 1-3 (inline) ----
 *
 * The rows of the gradient operator sum to zero over the corners (g_0 = -(g_1 + g_2 + g_3), and an
 * edge's strain row is -m at one end, +m at the other), so a tet's stiffness K (symmetric, 16 blocks
 * of 3x3) is known from its six blocks K_ab with 1 <= a <= b <= 3: K_ba = K_ab^T,
 *     K_0b = -(K_1b + K_2b + K_3b),   K_b0 = K_0b^T,   K_00 = -(K_01 + K_02 + K_03).
 * The element passes store these 54 numbers (CL_TET_UPPER) instead of the 144 of K (a third of the
 * memory traffic between the element pass and the assembly), and the row of blocks a corner needs is
 * made from them when it is added, by the same operations in the same order, so to the bit what the
 * full matrix held. Order of the six: (1,1) (1,2) (1,3) (2,2) (2,3) (3,3), each row-major. */
enum { CL_TET_UPPER = 54 };
enum {
  CL_TET_SYM00 = 1, /* make K_00 symmetric to the bit: its off-diagonal pairs replaced by their mean */
  CL_TET_FREE0 = 2  /* corner 0 carries nothing: its blocks are exactly zero */
};

/* The index in Ku of block (a, b), 1 <= a <= b <= 3. */
static inline int cl_tet_upper_index(int a, int b) {
  static const int8_t k_up[4][4] = {{-1, -1, -1, -1}, {-1, 0, 1, 2}, {-1, 1, 3, 4}, {-1, 2, 4, 5}};
  return k_up[a][b];
}

/* Block (a, b) of K, 1 <= a, b <= 3, element (r, s), from the six upper blocks Ku. */
static inline double cl_tet_upper_at(const double *Ku, int a, int b, int r, int s) {
  return a <= b ? Ku[9 * cl_tet_upper_index(a, b) + 3 * r + s] : Ku[9 * cl_tet_upper_index(b, a) + 3 * s + r];
}

/* Corner 0's blocks: C + 9 b = K_0b (b = 1..3, minus the sums of the columns' other blocks) and C = K_00
 * (minus the sum of those), each row-major, with the flags above. K_b0 = K_0b^T. */
static inline void cl_tet_upper_corner0(const double *Ku, int flags, double *C) {
  if (flags & CL_TET_FREE0) {
    for (int k = 0; k < 36; ++k) C[k] = 0.0;
    return;
  }
  for (int b = 1; b < 4; ++b)
    for (int r = 0; r < 3; ++r)
      for (int s = 0; s < 3; ++s)
        C[9 * b + 3 * r + s] =
            -(cl_tet_upper_at(Ku, 1, b, r, s) + cl_tet_upper_at(Ku, 2, b, r, s) + cl_tet_upper_at(Ku, 3, b, r, s));
  for (int k = 0; k < 9; ++k) C[k] = -(C[9 + k] + C[18 + k] + C[27 + k]);
  if (flags & CL_TET_SYM00)
    for (int i = 0; i < 3; ++i)
      for (int j = i + 1; j < 3; ++j) C[3 * i + j] = C[3 * j + i] = 0.5 * (C[3 * i + j] + C[3 * j + i]);
}

/* Row a of K's blocks (R: 4 blocks of 3x3 row-major, R + 9 b = K_ab) from the six upper blocks Ku
 * and corner 0's blocks C (cl_tet_upper_corner0). */
static inline void cl_tet_stiffness_row(const double *Ku, const double *C, int a, double *R) {
  if (a == 0) {
    for (int k = 0; k < 36; ++k) R[k] = C[k];
    return;
  }
  for (int r = 0; r < 3; ++r)
    for (int s = 0; s < 3; ++s) {
      R[3 * r + s] = C[9 * a + 3 * s + r];
      for (int b = 1; b < 4; ++b) R[9 * b + 3 * r + s] = cl_tet_upper_at(Ku, a, b, r, s);
    }
}

/* The whole 12x12 K (row-major, dof 3 a + r) from the six upper blocks Ku and the flags above. */
static inline void cl_tet_stiffness_expand(const double *Ku, int flags, double *K) {
  double C[36];
  cl_tet_upper_corner0(Ku, flags, C);
  for (int a = 0; a < 4; ++a) {
    double R[36];
    cl_tet_stiffness_row(Ku, C, a, R);
    for (int r = 0; r < 3; ++r)
      for (int b = 0; b < 4; ++b)
        for (int s = 0; s < 3; ++s) K[12 * (3 * a + r) + 3 * b + s] = R[9 * b + 3 * r + s];
  }
}

#endif
