/* Test-only linear elasticity on linear tets, assembled into a BSR matrix: makes symmetric positive
 * (semi)definite systems from real tet meshes for the linear algebra tests. */
#ifndef CL_TEST_ELASTIC_ASSEMBLY_H
#define CL_TEST_ELASTIC_ASSEMBLY_H

#include <stdint.h>

#include "geom/mesh.h"
#include "linalg/bsr.h"

/* Element stiffness of a linear tet (x: 4 nodes x 3 coordinates), 12x12 row-major, dof order
 * (node a, component i) -> 3a + i:  K_ab,ij = V (lambda g_a,i g_b,j + mu (g_a,j g_b,i + delta_ij g_a.g_b)),
 * g_a the gradient of the a-th barycentric coordinate, V the volume (Zienkiewicz & Taylor, "The
 * Finite Element Method", vol. 1, ch. 6). Returns the signed volume. */
double cl_test_tet_stiffness(const double *x, double young, double poisson, double *Ke);

/* Barycentric gradients g (4 x 3, row a = grad of the a-th coordinate) of a tet x (4 x 3); returns
 * the signed volume. */
double cl_test_tet_gradients(const double *x, double *g);

/* The scalar P1 Laplacian (K_ab = V g_a . g_b) repeated on the three components: K_ab * I3 blocks.
 * A Poisson-like system for smoother tests (singular until some dofs are fixed). */
cl_status cl_test_assemble_laplace(const cl_mesh *mesh, cl_bsr *A, const int64_t *slots);

/* A = K + mass_coeff * M for the whole mesh, M the lumped mass matrix with unit density
 * (V/4 per node of each tet, times the 3x3 identity). A's values are zeroed first; A must have the
 * pattern of the mesh's tets and slots must come from cl_bsr_cell_slots. */
cl_status cl_test_assemble_elastic(const cl_mesh *mesh, double young, double poisson, double mass_coeff,
                                   cl_bsr *A, const int64_t *slots);

/* Build pattern, slots and the matrix in one call (caller frees *A with cl_bsr_destroy and *slots
 * with free). */
cl_status cl_test_elastic_system(const cl_mesh *mesh, double young, double poisson, double mass_coeff,
                                 cl_bsr **A, int64_t **slots);

/* Move every node not on the bounding box by a pseudo-random offset of up to `amount` (m) per axis
 * (same seed, same mesh), so test meshes are irregular; fails with CL_ERR_MESH if a tet inverts. */
cl_status cl_test_jitter_interior(cl_mesh *mesh, double amount, uint64_t seed);

/* The unit cube [0,1]^3 tetrahedralized by TetGen (quality 1.5, tets below max_volume m^3), or NULL
 * (with a printed reason) when the TetGen bridge cannot make it. */
cl_mesh *cl_test_tetgen_box(double max_volume);

/* Dense copy of a BSR matrix (3n x 3n row-major, caller frees). */
double *cl_test_bsr_to_dense(const cl_bsr *A);

/* ||b_f - (A x)_f|| / ||b_f - A_fc x_c|| over the free dofs (fixed may be NULL), from scratch: the
 * relative residual a linear solve with held dofs must reach. */
double cl_test_true_residual(const cl_bsr *A, const double *b, const double *x, const uint8_t *fixed);

/* The 2-node system A = [[d I, o I], [o I, d I]] (eigenvalues d + o and d - o, diagonal blocks d I),
 * or NULL if the pattern cannot be made. */
cl_bsr *cl_test_two_node(double d, double o);

/* splitmix64 in [0, 1): deterministic test data. */
double cl_test_rand01(uint64_t *state);

#endif
