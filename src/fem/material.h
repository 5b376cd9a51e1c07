/* Hyperelastic material models for tetrahedral FEM, chosen by name and shared by the FEM solvers
 * (the graph-based FEM picks one per body; tests compare them). Each is isotropic, written in the
 * signed singular values sigma of F (Irving, Teran and Fedkiw 2004), with Lame parameters set from
 * Young's modulus E and Poisson's ratio nu so that all three agree with linear elasticity at small
 * strain:
 *
 *   corotated (linear corotational)  psi = mu sum (s_i - 1)^2 + lambda/2 (sum s_i - 3)^2
 *        = mu |S - I|^2 + lambda/2 tr(S - I)^2 with F = R S; the energy of stiffness warping
 *        (Mueller & Gross 2004; McAdams et al. 2011)
 *   stvk (St. Venant-Kirchhoff)      psi = mu |E|^2 + lambda/2 tr(E)^2, E = (F^T F - I)/2,
 *        i.e. mu sum e_i^2 + lambda/2 (sum e_i)^2 with e_i = (s_i^2 - 1)/2
 *   stable_neohookean (Smith, de Goes and Kim, "Stable Neo-Hookean Flesh Simulation", ACM TOG
 *        37(2) 2018, sec. 3.4: the energy with the rest-stability term)
 *        psi = mu'/2 (I_C - 3) + lambda'/2 (J - alpha)^2 - mu'/2 log(I_C + 1),
 *        I_C = sum s_i^2, J = s_1 s_2 s_3, alpha = 1 + 3 mu' / (4 lambda') (P = 0 at F = I),
 *        mu' = 4/3 mu, lambda' = lambda + 5/6 mu (their reparametrisation: the small-strain limit
 *        is then linear elasticity with E and nu; derived again in docs/solvers/graph_fem.md).
 *
 * First Piola stress P = U diag(dpsi/ds_i) V^T (isotropy). The tangent dP/dF comes from the
 * singular-value form (Teran, Sifakis, Irving, Fedkiw, "Robust quasistatic finite elements and flesh
 * simulation", SCA 2005, sec. 5): in the frame of U and V it is one 3x3 block A_ij = d2psi/ds_i ds_j on
 * the diagonal entries of dF and, for each pair i < j, a 2x2 block on (dF_ij, dF_ji) with eigenvalues
 *     a = (psi_i - psi_j) / (s_i - s_j),   b = (psi_i + psi_j) / (s_i + s_j)
 * (their limits where the denominators vanish). Projected: the negative eigenvalues of A and the
 * negative a, b are set to zero, so the tangent is symmetric positive semi-definite wherever the
 * energy is not convex (compression of St. Venant-Kirchhoff, inversion). */
#ifndef CL_FEM_MATERIAL_H
#define CL_FEM_MATERIAL_H

#include <stdint.h>

#include "base/mat3.h"
#include "cleave/status.h"

typedef enum cl_fem_model {
  CL_FEM_COROTATED = 0,
  CL_FEM_STVK = 1,
  CL_FEM_STABLE_NEOHOOKEAN = 2,
  CL_FEM_MODEL_COUNT
} cl_fem_model;

/* "corotated", "stvk", "stable_neohookean"; the names in that order separated by '|' (a parameter
 * table's choices). */
const char *cl_fem_model_name(cl_fem_model m);
#define CL_FEM_MODEL_CHOICES "corotated|stvk|stable_neohookean"

/* A model's parameters (lambda, mu in Pa, the model's own, see above) from E (Pa) and nu. */
typedef struct cl_fem_material {
  cl_fem_model model;
  double lambda, mu;    /* the model's own parameters (stable Neo-Hookean: lambda', mu') */
  double alpha;         /* stable Neo-Hookean's rest offset, 1 + 3 mu' / (4 lambda') */
} cl_fem_material;
void cl_fem_material_init(cl_fem_material *mat, cl_fem_model model, double young, double poisson);

/* psi(s) (J/m^3) with its gradient g (3) and Hessian H (9, row-major) in the signed singular values
 * s; g or H may be NULL. */
double cl_fem_psi_sigma(const cl_fem_material *mat, const double s[3], double *g, double *H);

/* Energy density psi, first Piola stress P and, when dPdF is not NULL, the tangent dP/dF as a 9x9
 * matrix (row-major; row 3 r + c is d P_rc, column 3 s + d is d F_sd), projected to be positive
 * semi-definite when `project` is set. Errors only for a non-finite F (CL_ERR_NUMERICAL). */
cl_status cl_fem_piola(const cl_fem_material *mat, const cl_mat3 *F, double *psi, cl_mat3 *P, double *dPdF,
                       int project);

/* The forces f (12: corners 0..3) of a tet of rest volume V and rest gradients Dminv (rows g_1..g_3)
 * under the stress P: f_a = -V P g_a, f_0 = -(f_1 + f_2 + f_3). */
void cl_fem_element_forces(const cl_mat3 *P, double V, const double *Dminv, double *f);
/* Its stiffness K = -df/dx (12x12, row-major, dof 3 a + r): K_(a r)(b s) = V sum_cd dPdF_(r c)(s d)
 * g_a,c g_b,d. Symmetric; positive semi-definite when dPdF is. */
void cl_fem_element_stiffness(const double *dPdF, double V, const double *Dminv, double *K);
/* The same K in fem/tet.h's upper form: its six blocks K_ab, 1 <= a <= b <= 3 (54 numbers); the whole
 * K is cl_tet_stiffness_expand(Ku, 0, K), to the bit. */
void cl_fem_element_stiffness_upper(const double *dPdF, double V, const double *Dminv, double *Ku);

#endif
