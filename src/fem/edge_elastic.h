/* The linear tet's small-strain elasticity written on its six edges (graph-based FEA: Khodabakhshi,
 * Reddy and Srinivasa 2016; the graph-based FEM of Mandal et al. 2023, 2025), and its degradation
 * by damaged edges. Shared by the graph_fem solver (the damaged element's energy, force and
 * stiffness) and the edge_stress criterion (the energy a crack releases). docs/solvers/graph_fem.md,
 * "Fracture", has the derivation.
 *
 * Edge k of a tet joins corners (a_k, b_k) (geom/tet_edges.h order), rest length L_k, unit rest
 * direction n_k. Its small strain is e_k = n_k^T eps n_k, so e = T eps with eps in Voigt form with
 * engineering shears (xx, yy, zz, 2xy, 2yz, 2zx) and row k of T = (n_x^2, n_y^2, n_z^2, n_x n_y,
 * n_y n_z, n_z n_x). For a non-degenerate tet T is invertible, and the elastic energy density
 * 1/2 eps^T C eps is 1/2 e^T G e with G = T^-T C T^-1 (6x6, symmetric positive definite); the
 * stress is sigma = C eps = T^T G e = sum_k (G e)_k n_k n_k^T. In terms of corner displacements u
 * (12, in the element's rest frame), e = b u with row k of b = (n_k . (u_b - u_a)) / L_k.
 *
 * Damage d_k in [0, 1] per edge. A broken edge (d = 1) carries no force and holds nothing: its strain
 * is left free, the energy minimised over it, i.e. G is replaced by its Schur complement on the
 * other edges (static condensation, S(E) for a set E of condensed edges, rows and columns of E zero).
 * Partial damage interpolates by levels: with the distinct positive damages D_1 > D_2 > ... > D_m
 * (D_{m+1} = 0) and E_i the edges with d >= D_i,
 *     G_d = (1 - D_1) G + sum_i (D_i - D_{i+1}) S(E_i)                                        (L)
 * a convex combination of positive semi-definite matrices, so G_d is symmetric positive
 * semi-definite; G_d = G without damage, G_d = S(E) when the edges of E have d = 1 and the others 0,
 * and for one set E at damage D the energy (1 - D) W(G) + D W(S(E)) is linear in D. */
#ifndef CL_FEM_EDGE_ELASTIC_H
#define CL_FEM_EDGE_ELASTIC_H

#include <stdint.h>

/* The edge frame of tet t (4 node indices into the rest positions X, 3 per node): b (6x12,
 * row-major, 1/m) and T (6x6). Returns 0 for a degenerate tet (a zero-length edge or a singular T). */
int cl_fem_edge_frame(const double *X, const int32_t *t, double *b, double *T);

/* G = T^-T C T^-1 (6x6, Pa) for the Lame parameters lambda, mu (Pa). Returns 0 if T is singular. */
int cl_fem_edge_stiffness(const double *T, double lambda, double mu, double *G);

/* T and G of tet t at once: the same numbers as cl_fem_edge_frame then cl_fem_edge_stiffness, with one
 * inverse of T instead of two and without b (what an element that only needs G pays). Returns 0 for a
 * degenerate tet, as cl_fem_edge_frame. */
int cl_fem_edge_stiffness_of(const double *X, const int32_t *t, double lambda, double mu, double *T, double *G);

/* G_d of eq (L) for the damages d (6, clamped to [0, 1]). Gd may not alias G. */
void cl_fem_edge_degrade(const double *G, const double *d, double *Gd);

/* 1/2 e^T G e (Pa, an energy density) for the edge strains e (6). */
double cl_fem_edge_energy(const double *G, const double *e);

/* The edge strains e = T eps of the symmetric strain tensor eps (3x3, row-major). */
void cl_fem_edge_strains(const double *T, const double *eps, double *e);

#endif
