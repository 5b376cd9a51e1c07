/* Block-sparse-row (BSR) matrices of 3x3 blocks: the stiffness, mass and system matrices of every
 * node-based solver (one block per pair of nodes, three displacement components per node).
 *
 * Storage choice: FULL symmetric storage (both the (i,j) and the (j,i) block are kept). It costs
 * twice the memory of a triangle, but SpMV then walks each row once with no scatter to other rows,
 * so it parallelises over rows without atomics or colouring, and reading one row gives a whole
 * equation for Gauss-Seidel. The CHOLMOD wrapper copies the upper triangle out of it.
 *
 * Lifecycle (symbolic and numeric phases apart, as in CSparse/CHOLMOD):
 *   cl_bsr_from_cells(...)        once per topology: pattern (sorted columns), values zeroed
 *   cl_bsr_cell_slots(...)        once per topology: where each element's blocks live
 *   per step: cl_bsr_zero, cl_bsr_add_cell for every element (a pure scatter-add, no search),
 *             cl_bsr_apply_dirichlet (optional), then solve.
 * Blocks are row-major 3x3: val[9*s + 3*r + c] is component (r, c) of block slot s.
 * Dof numbering: dof 3*node + component. */
#ifndef CL_LINALG_BSR_H
#define CL_LINALG_BSR_H

#include <stdint.h>

#include "cleave/status.h"

typedef struct cl_bsr {
  int32_t n;         /* block rows (nodes); the matrix is 3n x 3n */
  int32_t n_cols;    /* block columns; equal to n for everything built here (kept for P/R later) */
  int64_t nnzb;      /* stored blocks */
  int64_t *row_ptr;  /* n + 1: blocks of row i are slots row_ptr[i] .. row_ptr[i+1]-1 */
  int32_t *col;      /* nnzb block-column indices, strictly increasing within a row */
  int64_t *diag;     /* n: slot of the diagonal block (i,i) of each row (-1 if absent) */
  double *val;       /* 9 * nnzb values */
} cl_bsr;

/* Build the pattern of a square BSR matrix from cells (elements): every pair of nodes sharing a
 * cell gets a block, and every node gets its diagonal block (also nodes in no cell, so a free
 * node's row is not empty). cells holds cell_size node indices per cell, each in [0, n_nodes).
 * Values are zero. A repeated node within a cell is allowed (it just adds nothing). */
cl_status cl_bsr_from_cells(int32_t n_nodes, const int32_t *cells, int32_t ncells, int32_t cell_size,
                            cl_bsr **out);

/* Build a square BSR matrix from an explicit pattern (copied): row_ptr (n+1), col (row_ptr[n]
 * entries in [0, n)). Columns are sorted and duplicates removed; the diagonal is added if missing.
 * For patterns that do not come from cells (a Galerkin coarse operator R A P). */
cl_status cl_bsr_from_pattern(int32_t n, const int64_t *row_ptr, const int32_t *col, cl_bsr **out);

/* A deep copy (pattern and values). */
cl_status cl_bsr_copy(const cl_bsr *A, cl_bsr **out);
void cl_bsr_destroy(cl_bsr *A);

/* Slot of block (i, j), or -1 if (i, j) is not in the pattern (binary search in row i). */
int64_t cl_bsr_find(const cl_bsr *A, int32_t i, int32_t j);

/* For each cell, the cell_size^2 slots of its blocks: slots[(c*cell_size + a)*cell_size + b] is the
 * slot of block (cells[c][a], cells[c][b]). slots holds ncells * cell_size^2 entries (16 per tet).
 * Computed once, it turns assembly into a scatter-add with no search. CL_ERR_INVALID_ARGUMENT if a
 * block is missing from the pattern (the cells are not the ones the pattern was built from). */
cl_status cl_bsr_cell_slots(const cl_bsr *A, const int32_t *cells, int32_t ncells, int32_t cell_size,
                            int64_t *slots);

/* Greedy colouring of cells so that no two cells of one colour share a node: assembly can then run
 * one colour at a time with an OpenMP loop over that colour's cells and no atomics. Writes
 * color[ncells] and returns the number of colours in *ncolors (tet meshes need ~20-30). */
cl_status cl_bsr_color_cells(int32_t n_nodes, const int32_t *cells, int32_t ncells, int32_t cell_size,
                             int32_t *color, int32_t *ncolors);

/* All values to zero (pattern kept). */
void cl_bsr_zero(cl_bsr *A);

/* A(slot) += B (row-major 3x3). */
static inline void cl_bsr_add_block(cl_bsr *A, int64_t slot, const double *B) {
  double *v = A->val + 9 * slot;
  for (int k = 0; k < 9; ++k) v[k] += B[k];
}

/* Scatter-add a dense element matrix Ke of size (3*cell_size)^2, row-major, dof order
 * (node a, component r) -> 3a + r, into the blocks listed by cell_slots (the cell_size^2 slots of
 * this cell, from cl_bsr_cell_slots). */
void cl_bsr_add_cell(cl_bsr *A, const int64_t *cell_slots, int32_t cell_size, const double *Ke);

/* Dirichlet conditions by modifying the system, keeping it symmetric: for every fixed dof d
 * (fixed[d] != 0, 3n entries) with known value xd[d], first move the column to the right-hand side
 * (b[f] -= A[f][d] * xd[d] for free f), then zero row d and column d, put 1 on the diagonal and set
 * b[d] = xd[d]. b and xd may both be NULL to modify only the matrix; otherwise both are needed.
 * The projected CG (cl_cg_solve with a mask) is the alternative that leaves A untouched. */
cl_status cl_bsr_apply_dirichlet(cl_bsr *A, const uint8_t *fixed, const double *xd, double *b);

/* Copy the diagonal blocks: D[9i..9i+8] = A(i,i) (zero if the pattern has no diagonal block). */
void cl_bsr_diag_blocks(const cl_bsr *A, double *D);

/* Inverted diagonal blocks for block Jacobi / block Gauss-Seidel: Dinv[9i..] = A(i,i)^-1, where
 * rows and columns of fixed dofs (fixed may be NULL) are replaced by the identity (scaled to the
 * free entries, so the singularity test stays relative to them) before inverting and zeroed in the
 * inverse, so Dinv maps a residual that is zero on fixed dofs to a correction that is zero there too. CL_ERR_NUMERICAL naming the node if a block is singular or not finite. */
cl_status cl_bsr_diag_inverse(const cl_bsr *A, const uint8_t *fixed, double *Dinv);
/* The same for the blocks of nodes[0 .. count-1] only (the others of Dinv keep their values). */
cl_status cl_bsr_diag_inverse_nodes(const cl_bsr *A, const uint8_t *fixed, const int32_t *nodes, int32_t count,
                                    double *Dinv);

/* Bytes held by the matrix (pattern and values), for reports. */
int64_t cl_bsr_bytes(const cl_bsr *A);

/* ---- products (spmv.c); OpenMP over rows, no atomics. A must be square (n_cols == n). ---- */

/* s += B x for one 3x3 block B (row-major) and 3-vector x: each row's three products summed first,
 * then added, the order every row product of spmv.c keeps (so sums over a row agree to the bit). */
static inline void cl_bsr_block_mul_add(const double *B, const double *x, double *s) {
  s[0] += B[0] * x[0] + B[1] * x[1] + B[2] * x[2];
  s[1] += B[3] * x[0] + B[4] * x[1] + B[5] * x[2];
  s[2] += B[6] * x[0] + B[7] * x[1] + B[8] * x[2];
}

/* y = A x. x and y have 3n entries and must not overlap. */
void cl_bsr_spmv(const cl_bsr *A, const double *x, double *y);
/* y = alpha A x + beta y (beta == 0 ignores the old y, even NaN). */
void cl_bsr_spmv_axpby(const cl_bsr *A, double alpha, const double *x, double beta, double *y);
/* r = b - A x, returns ||r||^2 restricted to free dofs (fixed may be NULL); fixed entries of r are
 * set to zero. One pass: the residual kernel of CG and of the smoothers. x = NULL is a zero x: r is
 * the masked b, the same sums without reading A. */
double cl_bsr_residual(const cl_bsr *A, const double *b, const double *x, const uint8_t *fixed,
                       double *r);

/* The same, r = b - A x with ||r||^2 returned, and in the same pass over A the squared norm of the
 * masked residual of a second vector, b - A y, into *ry2 (not stored): one read of A for two
 * residuals. Each sum is the one cl_bsr_residual makes, to the bit. */
double cl_bsr_residual_pair(const cl_bsr *A, const double *b, const double *x, const double *y, const uint8_t *fixed,
                            double *r, double *ry2);

#endif
