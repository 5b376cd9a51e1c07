/* The prolongation of the Galerkin multigrid from linear blend skinning (Xian, Tong & Liu 2019;
 * Mandal et al. 2025, eqs 16-18): P_l = U_l, R_l = U_l^T.
 *
 * A handle carries an affine map T (3x4, 12 unknowns). A point y of its cluster moves by
 *   u(y) = T Yhat(y),   Yhat(y) = [Finv (y - c); 1],                                   (eq 16)
 * so the block of U for node i of handle j's cluster is w_ij (Yhat_i^T (x) I_3) (eq 17) with the
 * piecewise-constant weights w_ij in {0, 1}: each node belongs to the one handle nearest to it
 * along the mesh (geodesic, multigrid_sampling.h). The paper's Y_i is the homogeneous rest position
 * [y_i; 1]; we write it in the handle's own frame instead, (c, Finv): centred at the cluster's
 * centroid and scaled along its principal axes so that sum_i Yhat_i Yhat_i^T = N I_4 over the cluster
 * (N its nodes). That is a change of basis of the same 12-dimensional space per handle (the Galerkin
 * hierarchy is the same), but it keeps the coarse matrices' diagonal blocks as well conditioned as the
 * cluster allows instead of mixing metres and metres squared.
 *
 * Degenerate clusters: an axis whose variance is below CL_MG_AXIS_TOL times the largest (a flat
 * cluster, a line, a single node or coincident nodes) is dropped: its column of F and row of Finv are
 * zero, so the affine map's column for it moves no node, and the coarse matrix's row for it is zero;
 * the set-up puts a pivot there (multigrid_galerkin.h). Such a handle keeps the translation and the
 * axes its nodes span.
 *
 * Storage: the 12 unknowns of handle j are 4 "sub-nodes" of 3 (block rows 4j .. 4j+3 of the coarse
 * cl_bsr): sub-node e < 3 is column e of T (the response to the e-th frame coordinate), sub-node 3 its
 * translation column. Every fine node i (a mesh node, or a sub-node of a finer level's handle) maps to
 * one coarse handle k with 4 scalar weights: the 3x3 block of P from fine node i to sub-node (k, e) is
 * w_i[e] I_3. Between two coarse levels (eq 18) the same construction applies to the finer handles: the
 * affine map of the coarse handle k restricted to the finer handle j's cluster is again affine, and in
 * j's frame it reads
 *   T_j[:, e] = sum_d T_k[:, d] M[d][e]  (e < 3),  M = Finv_k F_j,
 *   T_j[:, 3] = T_k[:, 3] + sum_d T_k[:, d] g[d],  g = Finv_k (c_j - c_k),
 * so the weights of sub-node (j, e) are column e of M (and 0 for k's translation), those of (j, 3) are
 * [g; 1]: the homogeneous coordinate of j's centre in k's frame, as for a mesh node. The coarse
 * handles' frames come from the mesh nodes of their composite clusters (the union of their finer
 * handles' clusters), so the product P_0 P_1 ... is exactly the skinning of the composite clusters. */
#ifndef CL_LINALG_MULTIGRID_TRANSFER_H
#define CL_LINALG_MULTIGRID_TRANSFER_H

#include <stdint.h>

#include "cleave/status.h"

/* Relative variance below which a cluster's axis is dropped (a thickness ratio of 1e-5). */
#define CL_MG_AXIS_TOL 1e-10

/* A handle's frame: Yhat(y) = [Finv (y - c); 1], y - c = F Yhat on the cluster's affine hull. */
typedef struct cl_mg_frame {
  double c[3];    /* centroid of the cluster's mesh nodes (m) */
  double F[9];    /* row-major; column e = principal axis e times its RMS extent (m); dropped axes zero */
  double Finv[9]; /* row-major; row e = principal axis e divided by its RMS extent (1/m); dropped rows zero */
  int32_t live;   /* axes kept, 0..3 (axes 0 .. live-1, largest extent first) */
  int32_t count;  /* mesh nodes of the cluster */
} cl_mg_frame;

typedef struct cl_mg_transfer {
  int32_t n_fine;      /* 3x3 block rows of the finer level (mesh nodes, or 4 per finer handle) */
  int32_t n_handles;   /* handles of the coarser level (4 block rows each) */
  int32_t *handle;     /* n_fine: the coarse handle of each fine node, -1 for none (its weights are 0) */
  double *w;           /* 4 n_fine: weights of the handle's 4 sub-nodes (see above) */
  int32_t *member_ptr; /* n_handles + 1: the fine nodes of handle k are members[member_ptr[k] ..] */
  int32_t *members;    /* ascending within a handle */
  cl_mg_frame *frame;  /* n_handles: the coarse handles' frames */
  int32_t degenerate;  /* handles with live < 3 */
} cl_mg_transfer;

/* Frames of the k clusters of npoints points x (3 each): label[i] in [0, k) or -1 (in no cluster). */
cl_status cl_mg_frames(int32_t npoints, const double *x, const int32_t *label, int32_t k, cl_mg_frame *frames);

/* The transfer from mesh nodes (n, rest positions x) to k handles: node i belongs to handle label[i]
 * (-1: none). Makes the frames from the clusters. */
cl_status cl_mg_transfer_from_nodes(int32_t n, const double *x, const int32_t *label, int32_t k, cl_mg_transfer *t);

/* The transfer from kf finer handles (frames fine) to kc coarser handles (frames coarse, copied):
 * finer handle j belongs to parent[j] (-1: none). */
cl_status cl_mg_transfer_from_handles(int32_t kf, const cl_mg_frame *fine, const int32_t *parent, int32_t kc,
                                      const cl_mg_frame *coarse, cl_mg_transfer *t);

void cl_mg_transfer_free(cl_mg_transfer *t);

/* xf += D_f P xc (eq 13): xc has 12 n_handles entries, xf 3 n_fine; components with fixed[d] != 0
 * (3 n_fine flags, NULL = none) are left as they are (the masked prolongation). */
void cl_mg_prolong_add(const cl_mg_transfer *t, const double *xc, const uint8_t *fixed, double *xf);

/* rc = P^T rf (eqs 9-10); rf must already be zero on fixed dofs (a masked residual). */
void cl_mg_restrict(const cl_mg_transfer *t, const double *rf, double *rc);

#endif
