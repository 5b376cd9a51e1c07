/* Galerkin coarse matrices A_c = P^T D A D P (Mandal et al. 2025, eq 14 with R = P^T) for the
 * skinning prolongation of multigrid_transfer.h, by a scatter planned once per pattern.
 *
 * D is the constraint mask of the finest level (D = diag(1 - fixed), identity below it): with the
 * masked prolongation D P the coarse correction never moves a fixed dof, and A_c is the Galerkin
 * operator of the projected system A_ff that the projected CG and the smoothers solve (cg.h). Rows and
 * columns of fixed dofs are dropped from each fine block on the fly, so a new mask costs one product
 * and no new plan.
 *
 * With one handle k(i) and 4 weights w_i per fine node (multigrid_transfer.h), the 3x3 block of A_c
 * between sub-node (j, c) and sub-node (k, d) is
 *   A_c[(j,c),(k,d)] = sum_{a in j} w_a[c] sum_{b in k, (a,b) stored} w_b[d] D_a A_ab D_b.
 * The product runs in two stages per fine row a: first the row's blocks are summed per coarse handle k
 * of their column, B_{a,k,d} = sum_b w_b[d] D_a A_ab D_b (36 multiply-adds per fine block), then
 * each B goes into the 16 coarse blocks of handle pair (j, k) weighted by w_a[c] (144 per distinct
 * pair, and a row meets one to three handles): about a quarter of the work of scattering every fine
 * block into 16 coarse blocks directly. The plan (analysis) gives every fine block the position of its
 * coarse handle pair in the handle row, and the coarse pattern is made so that the 4 x 4 sub-node
 * blocks of a handle pair are contiguous in each of the 4 rows: no search in the product.
 *
 * Parallel over coarse handles (each thread writes only its handles' rows), so the result does not
 * depend on the thread count. */
#ifndef CL_LINALG_MULTIGRID_GALERKIN_H
#define CL_LINALG_MULTIGRID_GALERKIN_H

#include <stdint.h>

#include "cleave/status.h"
#include "linalg/bsr.h"
#include "linalg/multigrid_transfer.h"

typedef struct cl_mg_galerkin {
  int32_t nh;          /* coarse handles */
  int64_t *hptr;       /* nh + 1: the handle graph of A_c (handle pairs with a stored fine block) */
  int32_t *hcol;       /* sorted within a row; the diagonal pair is always there */
  int32_t *pos;        /* per fine slot: position of (k(row), k(col)) in handle row k(row), minus
                          hptr[k(row)]; -1 when either node has no handle */
  int32_t max_row;     /* longest handle row */
  int32_t *hdiag;      /* nh: position of the pair (k, k) in row k, minus hptr[k] */
  double *work;        /* per thread: 36 max_row accumulators; 2 max_row ints of book-keeping */
  int32_t *iwork;
  int32_t threads;     /* threads the work arrays are made for */
} cl_mg_galerkin;

/* Plan A_c = P^T A P for A's pattern (A->n == t->n_fine) and make A_c's pattern (values zero):
 * 4 t->n_handles block rows. threads: the most the products will use (>= 1). */
cl_status cl_mg_galerkin_analyse(const cl_bsr *A, const cl_mg_transfer *t, int32_t threads, cl_mg_galerkin *g,
                                 cl_bsr **Ac);
void cl_mg_galerkin_free(cl_mg_galerkin *g);

/* Ac = P^T D A D P with the values of A (the analysed pattern) and the mask fixed (3 A->n flags, NULL =
 * none). threads <= the analysed count. Returns 1 when every value of the rows of A it reads is finite
 * (the rows of the nodes that have a handle, whole: values the mask drops included), 0 otherwise (Ac
 * is then not usable): the check of the set-up's matrix costs no pass over A of its own. */
int cl_mg_galerkin_product(const cl_mg_galerkin *g, const cl_mg_transfer *t, const cl_bsr *A, const uint8_t *fixed,
                           int32_t threads, cl_bsr *Ac);

/* The same for the handle rows rows[0 .. count-1] only (each row is made whole from A, so a row comes
 * out as cl_mg_galerkin_product makes it, to the bit); the other rows keep their values. Returns
 * whether the rows of A its members read are finite. */
int cl_mg_galerkin_product_rows(const cl_mg_galerkin *g, const cl_mg_transfer *t, const cl_bsr *A,
                                const uint8_t *fixed, int32_t threads, const int32_t *rows, int32_t count,
                                cl_bsr *Ac);

/* Make A_c positive definite where the Galerkin product leaves it singular, and check that the rest
 * of it is. A_c = P^T D A D P with A positive definite on the free dofs has exactly the null space of
 * D P, which splits over the handles (their clusters are disjoint): a handle's null directions are
 * those of its columns D P_k, the directions its nodes cannot show (a dropped frame axis, a handle
 * whose nodes are all fixed, a handle whose free nodes are flat). They are found from the Gram matrix
 * G_k = (D P_k)^T D P_k (a pivot of its Cholesky factorisation below tau times its mean diagonal),
 * and the same elimination on the handle's diagonal block B_k = P_k^T D A D P_k sets those pivots to
 * s_k = trace(B_k) / 12 (adding the difference to that diagonal entry; a zero block takes the mean of
 * the others). The null space of D P_k and that of B_k are the same when A is positive definite
 * (column q of D P_k depends on the earlier ones in the A inner product iff it does in the Euclidean
 * one), so each B_k + E_k, and with them A_c + E, is positive definite, and a null direction is as
 * well conditioned as its block. Any other pivot of B_k below tau s_k means A is not positive definite
 * on the range of D P_k: *bad_handle is then the first such handle (else -1) and *bad_pivot its
 * smallest such pivot over s_k. fixed: the mask of level 0 (3 t->n_fine flags), NULL below. Returns
 * the number of pivots set. trace (nh): out, each handle's block trace before the change, for
 * cl_mg_regularize_handles; raised (nh): out, the pivots set in each handle. */
int32_t cl_mg_regularize(const cl_mg_galerkin *g, const cl_mg_transfer *t, const uint8_t *fixed, double tau,
                         cl_bsr *Ac, double *trace, uint8_t *raised, int32_t *bad_handle, double *bad_pivot);

/* The same for the handles list[0 .. count-1] only, whose rows cl_mg_galerkin_product_rows has just
 * made again (the others keep their values, already regularised); trace holds the others' traces
 * from the last call and gets these. With the mean over all traces taken in the same order, the
 * handles come out as a whole cl_mg_regularize makes them. Returns the pivots set in them. */
int32_t cl_mg_regularize_handles(const cl_mg_galerkin *g, const cl_mg_transfer *t, const uint8_t *fixed, double tau,
                                 cl_bsr *Ac, const int32_t *list, int32_t count, double *trace, uint8_t *raised,
                                 int32_t *bad_handle, double *bad_pivot);

#endif
