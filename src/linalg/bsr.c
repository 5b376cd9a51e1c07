/* BSR matrices of 3x3 blocks: pattern construction, assembly helpers, Dirichlet rows, diagonal
 * blocks. See bsr.h for the storage choice. */
#include "linalg/bsr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"

static cl_status bsr_alloc(int32_t n, int64_t nnzb, cl_bsr **out) {
  cl_bsr *A = cl_calloc(1, sizeof *A, "BSR matrix");
  if (!A) return CL_ERR_OUT_OF_MEMORY;
  A->n = n;
  A->n_cols = n;
  A->nnzb = nnzb;
  A->row_ptr = cl_malloc(sizeof(int64_t) * ((size_t)n + 1), "BSR row pointers");
  A->diag = cl_malloc(sizeof(int64_t) * ((size_t)n + 1), "BSR diagonal slots");
  A->col = cl_malloc(sizeof(int32_t) * ((size_t)nnzb + 1), "BSR column indices");
  A->val = cl_calloc(9 * (size_t)nnzb + 1, sizeof(double), "BSR values");
  if (!A->row_ptr || !A->diag || !A->col || !A->val) {
    cl_bsr_destroy(A);
    return CL_ERR_OUT_OF_MEMORY;
  }
  *out = A;
  return CL_OK;
}

void cl_bsr_destroy(cl_bsr *A) {
  if (!A) return;
  free(A->row_ptr);
  free(A->col);
  free(A->diag);
  free(A->val);
  free(A);
}

/* Rows are short (a tet node has ~15 neighbours), so insertion sort beats qsort's call overhead. */
static void sort_i32(int32_t *a, int64_t n) {
  for (int64_t i = 1; i < n; ++i) {
    int32_t v = a[i];
    int64_t j = i - 1;
    while (j >= 0 && a[j] > v) {
      a[j + 1] = a[j];
      --j;
    }
    a[j + 1] = v;
  }
}

static void fill_diag(cl_bsr *A) {
  for (int32_t i = 0; i < A->n; ++i) {
    A->diag[i] = -1;
    for (int64_t s = A->row_ptr[i]; s < A->row_ptr[i + 1]; ++s)
      if (A->col[s] == i) {
        A->diag[i] = s;
        break;
      }
  }
}

static cl_status check_cells(int32_t n_nodes, const int32_t *cells, int32_t ncells, int32_t cell_size,
                             const char *fn) {
  if (n_nodes < 0 || ncells < 0)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: negative count (nodes %d, cells %d)", fn, n_nodes, ncells);
  if (cell_size < 1 || cell_size > 64)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: cell_size = %d outside [1, 64]", fn, cell_size);
  if (ncells > 0 && !cells) return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: cells is NULL", fn);
  for (int64_t k = 0; k < (int64_t)ncells * cell_size; ++k)
    if (cells[k] < 0 || cells[k] >= n_nodes)
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: cell %lld refers to node %d, outside [0, %d)", fn,
                     (long long)(k / cell_size), cells[k], n_nodes);
  return CL_OK;
}

/* Node -> incident cells, as a CSR (ptr has n_nodes + 1 entries). */
static cl_status node_cells(int32_t n_nodes, const int32_t *cells, int32_t ncells, int32_t cell_size,
                            int64_t **ptr_out, int32_t **idx_out) {
  int64_t *ptr = cl_calloc((size_t)n_nodes + 1, sizeof *ptr, "node-cell incidence");
  int32_t *idx = cl_malloc(sizeof *idx * ((size_t)ncells * (size_t)cell_size + 1), "node-cell incidence");
  if (!ptr || !idx) {
    free(ptr);
    free(idx);
    return CL_ERR_OUT_OF_MEMORY;
  }
  for (int64_t k = 0; k < (int64_t)ncells * cell_size; ++k) ptr[cells[k] + 1]++;
  for (int32_t i = 0; i < n_nodes; ++i) ptr[i + 1] += ptr[i];
  for (int32_t c = 0; c < ncells; ++c)
    for (int32_t a = 0; a < cell_size; ++a) {
      int32_t v = cells[(int64_t)c * cell_size + a];
      idx[ptr[v]++] = c;
    }
  for (int32_t i = n_nodes; i > 0; --i) ptr[i] = ptr[i - 1];
  ptr[0] = 0;
  *ptr_out = ptr;
  *idx_out = idx;
  return CL_OK;
}

cl_status cl_bsr_from_cells(int32_t n_nodes, const int32_t *cells, int32_t ncells, int32_t cell_size,
                            cl_bsr **out) {
  if (!out) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_bsr_from_cells: out is NULL");
  *out = NULL;
  CL_TRY(check_cells(n_nodes, cells, ncells, cell_size, "cl_bsr_from_cells"));
  int64_t *inc_ptr;
  int32_t *inc;
  CL_TRY(node_cells(n_nodes, cells, ncells, cell_size, &inc_ptr, &inc));
  /* mark[j] == i while row i is being gathered: each neighbour is counted once without a set. */
  int32_t *mark = cl_malloc(sizeof *mark * ((size_t)n_nodes + 1), "BSR build marks");
  int64_t *row_ptr = cl_malloc(sizeof *row_ptr * ((size_t)n_nodes + 1), "BSR build rows");
  if (!mark || !row_ptr) {
    free(mark);
    free(row_ptr);
    free(inc_ptr);
    free(inc);
    return CL_ERR_OUT_OF_MEMORY;
  }
  /* pass 1: row lengths */
  for (int32_t i = 0; i < n_nodes; ++i) mark[i] = -1;
  row_ptr[0] = 0;
  for (int32_t i = 0; i < n_nodes; ++i) {
    int64_t len = 1;
    mark[i] = i;
    for (int64_t e = inc_ptr[i]; e < inc_ptr[i + 1]; ++e) {
      const int32_t *cv = cells + (int64_t)inc[e] * cell_size;
      for (int32_t a = 0; a < cell_size; ++a)
        if (mark[cv[a]] != i) {
          mark[cv[a]] = i;
          ++len;
        }
    }
    row_ptr[i + 1] = row_ptr[i] + len;
  }
  cl_bsr *A;
  cl_status s = bsr_alloc(n_nodes, row_ptr[n_nodes], &A);
  if (s < 0) {
    free(mark);
    free(row_ptr);
    free(inc_ptr);
    free(inc);
    return s;
  }
  memcpy(A->row_ptr, row_ptr, sizeof *row_ptr * ((size_t)n_nodes + 1));
  /* pass 2: fill and sort */
  for (int32_t i = 0; i < n_nodes; ++i) mark[i] = -1;
  for (int32_t i = 0; i < n_nodes; ++i) {
    int64_t p = A->row_ptr[i];
    A->col[p++] = i;
    mark[i] = i;
    for (int64_t e = inc_ptr[i]; e < inc_ptr[i + 1]; ++e) {
      const int32_t *cv = cells + (int64_t)inc[e] * cell_size;
      for (int32_t a = 0; a < cell_size; ++a)
        if (mark[cv[a]] != i) {
          mark[cv[a]] = i;
          A->col[p++] = cv[a];
        }
    }
    sort_i32(A->col + A->row_ptr[i], p - A->row_ptr[i]);
  }
  fill_diag(A);
  free(mark);
  free(row_ptr);
  free(inc_ptr);
  free(inc);
  *out = A;
  return CL_OK;
}

cl_status cl_bsr_from_pattern(int32_t n, const int64_t *row_ptr, const int32_t *col, cl_bsr **out) {
  if (!out) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_bsr_from_pattern: out is NULL");
  *out = NULL;
  if (n < 0 || !row_ptr) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_bsr_from_pattern: n = %d or row_ptr NULL", n);
  if (row_ptr[0] != 0) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_bsr_from_pattern: row_ptr[0] = %lld, must be 0", (long long)row_ptr[0]);
  for (int32_t i = 0; i < n; ++i)
    if (row_ptr[i + 1] < row_ptr[i])
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_bsr_from_pattern: row_ptr decreases at row %d", i);
  if (row_ptr[n] > 0 && !col) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_bsr_from_pattern: col is NULL");
  for (int64_t k = 0; k < row_ptr[n]; ++k)
    if (col[k] < 0 || col[k] >= n)
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_bsr_from_pattern: column %d at entry %lld outside [0, %d)",
                     col[k], (long long)k, n);
  /* worst case: every row gains its diagonal */
  int32_t *tmp = cl_malloc(sizeof *tmp * ((size_t)row_ptr[n] + (size_t)n + 1), "BSR pattern");
  int64_t *rp = cl_malloc(sizeof *rp * ((size_t)n + 1), "BSR pattern");
  if (!tmp || !rp) {
    free(tmp);
    free(rp);
    return CL_ERR_OUT_OF_MEMORY;
  }
  int64_t p = 0;
  rp[0] = 0;
  for (int32_t i = 0; i < n; ++i) {
    int64_t start = p;
    tmp[p++] = i;
    for (int64_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) tmp[p++] = col[k];
    sort_i32(tmp + start, p - start);
    int64_t w = start; /* dedupe in place */
    for (int64_t k = start; k < p; ++k)
      if (k == start || tmp[k] != tmp[w - 1]) tmp[w++] = tmp[k];
    p = w;
    rp[i + 1] = p;
  }
  cl_bsr *A;
  cl_status s = bsr_alloc(n, p, &A);
  if (s == CL_OK) {
    memcpy(A->row_ptr, rp, sizeof *rp * ((size_t)n + 1));
    memcpy(A->col, tmp, sizeof *tmp * (size_t)p);
    fill_diag(A);
    *out = A;
  }
  free(tmp);
  free(rp);
  return s;
}

cl_status cl_bsr_copy(const cl_bsr *A, cl_bsr **out) {
  if (!A || !out) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_bsr_copy: NULL argument");
  cl_bsr *B;
  CL_TRY(bsr_alloc(A->n, A->nnzb, &B));
  B->n_cols = A->n_cols;
  memcpy(B->row_ptr, A->row_ptr, sizeof(int64_t) * ((size_t)A->n + 1));
  memcpy(B->diag, A->diag, sizeof(int64_t) * ((size_t)A->n + 1));
  memcpy(B->col, A->col, sizeof(int32_t) * (size_t)A->nnzb);
  memcpy(B->val, A->val, sizeof(double) * 9 * (size_t)A->nnzb);
  *out = B;
  return CL_OK;
}

int64_t cl_bsr_find(const cl_bsr *A, int32_t i, int32_t j) {
  if (i < 0 || i >= A->n) return -1;
  int64_t lo = A->row_ptr[i], hi = A->row_ptr[i + 1];
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (A->col[mid] < j)
      lo = mid + 1;
    else
      hi = mid;
  }
  return (lo < A->row_ptr[i + 1] && A->col[lo] == j) ? lo : -1;
}

cl_status cl_bsr_cell_slots(const cl_bsr *A, const int32_t *cells, int32_t ncells, int32_t cell_size,
                            int64_t *slots) {
  if (!A || (ncells > 0 && !slots)) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_bsr_cell_slots: NULL argument");
  CL_TRY(check_cells(A->n, cells, ncells, cell_size, "cl_bsr_cell_slots"));
  for (int32_t c = 0; c < ncells; ++c) {
    const int32_t *cv = cells + (int64_t)c * cell_size;
    int64_t *out = slots + (int64_t)c * cell_size * cell_size;
    for (int32_t a = 0; a < cell_size; ++a)
      for (int32_t b = 0; b < cell_size; ++b) {
        int64_t s = cl_bsr_find(A, cv[a], cv[b]);
        if (s < 0)
          return cl_fail(CL_ERR_INVALID_ARGUMENT,
                         "cl_bsr_cell_slots: block (%d, %d) of cell %d is not in the matrix pattern "
                         "(the pattern was built from other cells)", cv[a], cv[b], c);
        out[a * cell_size + b] = s;
      }
  }
  return CL_OK;
}

cl_status cl_bsr_color_cells(int32_t n_nodes, const int32_t *cells, int32_t ncells, int32_t cell_size,
                             int32_t *color, int32_t *ncolors) {
  if (!color || !ncolors) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_bsr_color_cells: NULL argument");
  CL_TRY(check_cells(n_nodes, cells, ncells, cell_size, "cl_bsr_color_cells"));
  int64_t *inc_ptr;
  int32_t *inc;
  CL_TRY(node_cells(n_nodes, cells, ncells, cell_size, &inc_ptr, &inc));
  /* A cell has at most (sum of its nodes' degrees) neighbours, so colours stay below that + 1. */
  int64_t maxdeg = 0;
  for (int32_t i = 0; i < n_nodes; ++i)
    if (inc_ptr[i + 1] - inc_ptr[i] > maxdeg) maxdeg = inc_ptr[i + 1] - inc_ptr[i];
  size_t cap = (size_t)maxdeg * (size_t)cell_size + 2;
  int32_t *stamp = cl_malloc(sizeof *stamp * cap, "cell colouring");
  if (!stamp) {
    free(inc_ptr);
    free(inc);
    return CL_ERR_OUT_OF_MEMORY;
  }
  for (size_t k = 0; k < cap; ++k) stamp[k] = -1;
  for (int32_t c = 0; c < ncells; ++c) color[c] = -1;
  int32_t used = 0;
  for (int32_t c = 0; c < ncells; ++c) {
    const int32_t *cv = cells + (int64_t)c * cell_size;
    for (int32_t a = 0; a < cell_size; ++a)
      for (int64_t e = inc_ptr[cv[a]]; e < inc_ptr[cv[a] + 1]; ++e) {
        int32_t k = color[inc[e]];
        if (k >= 0) stamp[k] = c;
      }
    int32_t k = 0;
    while (stamp[k] == c) ++k;
    color[c] = k;
    if (k + 1 > used) used = k + 1;
  }
  *ncolors = used;
  free(stamp);
  free(inc_ptr);
  free(inc);
  return CL_OK;
}

void cl_bsr_zero(cl_bsr *A) {
  const int64_t n9 = 9 * A->nnzb;
  double *v = A->val;
#pragma omp parallel for schedule(static) if (n9 > 100000)
  for (int64_t k = 0; k < n9; ++k) v[k] = 0.0;
}

/* Block (a, b) of a dense element matrix with m columns into slot s. */
static inline void add_block(double *restrict v, const double *restrict k0, int32_t m) {
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) v[3 * r + c] += k0[r * m + c];
}

void cl_bsr_add_cell(cl_bsr *A, const int64_t *cell_slots, int32_t cell_size, const double *Ke) {
  if (cell_size == 4) { /* tets: constant trip counts let the compiler unroll the 16 blocks */
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b) add_block(A->val + 9 * cell_slots[4 * a + b], Ke + 36 * a + 3 * b, 12);
    return;
  }
  const int32_t m = 3 * cell_size;
  for (int32_t a = 0; a < cell_size; ++a)
    for (int32_t b = 0; b < cell_size; ++b)
      add_block(A->val + 9 * cell_slots[a * cell_size + b], Ke + (3 * a) * m + 3 * b, m);
}

cl_status cl_bsr_apply_dirichlet(cl_bsr *A, const uint8_t *fixed, const double *xd, double *b) {
  if (!A || !fixed) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_bsr_apply_dirichlet: A or fixed is NULL");
  if ((b == NULL) != (xd == NULL))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_bsr_apply_dirichlet: give both b and xd, or neither");
  if (A->n_cols != A->n) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_bsr_apply_dirichlet: matrix is not square");
  if (xd)
    for (int64_t d = 0; d < 3 * (int64_t)A->n; ++d)
      if (fixed[d] && !isfinite(xd[d]))
        return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_bsr_apply_dirichlet: fixed value of dof %lld is %g",
                       (long long)d, xd[d]);
  const int32_t n = A->n;
  /* Rows are independent: each row only writes its own blocks and its own b entries. */
#pragma omp parallel for schedule(static) if (n > 2000)
  for (int32_t i = 0; i < n; ++i) {
    for (int64_t s = A->row_ptr[i]; s < A->row_ptr[i + 1]; ++s) {
      const int64_t j = A->col[s];
      double *v = A->val + 9 * s;
      for (int r = 0; r < 3; ++r) {
        const int64_t dr = 3 * (int64_t)i + r;
        for (int c = 0; c < 3; ++c) {
          const int64_t dc = 3 * j + c;
          if (!fixed[dr] && !fixed[dc]) continue;
          if (b && !fixed[dr]) b[dr] -= v[3 * r + c] * xd[dc];
          v[3 * r + c] = (dr == dc) ? 1.0 : 0.0;
        }
      }
    }
    if (b)
      for (int r = 0; r < 3; ++r)
        if (fixed[3 * (int64_t)i + r]) b[3 * (int64_t)i + r] = xd[3 * (int64_t)i + r];
  }
  for (int32_t i = 0; i < n; ++i)
    if (A->diag[i] < 0)
      for (int r = 0; r < 3; ++r)
        if (fixed[3 * (int64_t)i + r])
          return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_bsr_apply_dirichlet: node %d has no diagonal block", i);
  return CL_OK;
}

void cl_bsr_diag_blocks(const cl_bsr *A, double *D) {
  for (int32_t i = 0; i < A->n; ++i) {
    if (A->diag[i] >= 0)
      memcpy(D + 9 * (int64_t)i, A->val + 9 * A->diag[i], 9 * sizeof(double));
    else
      memset(D + 9 * (int64_t)i, 0, 9 * sizeof(double));
  }
}

/* Inverse of a 3x3 by cofactors; 0 if singular relative to its size or not finite. */
static int inv3(const double *m, double *o) {
  double c00 = m[4] * m[8] - m[5] * m[7];
  double c01 = m[5] * m[6] - m[3] * m[8];
  double c02 = m[3] * m[7] - m[4] * m[6];
  double det = m[0] * c00 + m[1] * c01 + m[2] * c02;
  double s = 0.0;
  for (int k = 0; k < 9; ++k) s = fmax(s, fabs(m[k]));
  if (!isfinite(det) || !(fabs(det) > 1e-14 * s * s * s)) return 0;
  double id = 1.0 / det;
  o[0] = c00 * id;
  o[1] = (m[2] * m[7] - m[1] * m[8]) * id;
  o[2] = (m[1] * m[5] - m[2] * m[4]) * id;
  o[3] = c01 * id;
  o[4] = (m[0] * m[8] - m[2] * m[6]) * id;
  o[5] = (m[2] * m[3] - m[0] * m[5]) * id;
  o[6] = c02 * id;
  o[7] = (m[1] * m[6] - m[0] * m[7]) * id;
  o[8] = (m[0] * m[4] - m[1] * m[3]) * id;
  return 1;
}

/* Dinv's block of node i; 0 when the block is singular or not finite. */
static int diag_inverse_node(const cl_bsr *A, const uint8_t *fixed, double *Dinv, int32_t i) {
  double m[9] = {0};
  if (A->diag[i] >= 0) memcpy(m, A->val + 9 * A->diag[i], sizeof m);
  int fx[3] = {0, 0, 0};
  if (fixed)
    for (int r = 0; r < 3; ++r) fx[r] = fixed[3 * (int64_t)i + r] != 0;
  /* a held row and column become d e_r, d the size of the free part's entries: with 1 there the
   * singularity test of inv3 (relative to the largest entry) called the block of a node held in two
   * rows singular once its stiffness passed 1e7 (det K against 1e-14 K^3; a steel shell's node on
   * two symmetry planes). The held rows' output is zeroed below, so d does not reach the result. */
  double d = 0.0;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      if (!fx[r] && !fx[c]) d = fmax(d, fabs(m[3 * r + c]));
  if (!(d > 0.0) || !isfinite(d)) d = 1.0;
  for (int r = 0; r < 3; ++r)
    if (fx[r])
      for (int c = 0; c < 3; ++c) m[3 * r + c] = m[3 * c + r] = (r == c) ? d : 0.0;
  double *o = Dinv + 9 * (int64_t)i;
  if (!inv3(m, o)) return 0;
  for (int r = 0; r < 3; ++r)
    if (fx[r])
      for (int c = 0; c < 3; ++c) o[3 * r + c] = o[3 * c + r] = 0.0;
  return 1;
}

static cl_status singular_block(const cl_bsr *A, int32_t bad) {
  const double *m = A->diag[bad] >= 0 ? A->val + 9 * A->diag[bad] : NULL;
  return cl_fail(CL_ERR_NUMERICAL, "diagonal block of node %d is singular or not finite (diagonal %g %g %g)", bad,
                 m ? m[0] : 0.0, m ? m[4] : 0.0, m ? m[8] : 0.0);
}

cl_status cl_bsr_diag_inverse_nodes(const cl_bsr *A, const uint8_t *fixed, const int32_t *nodes, int32_t count,
                                    double *Dinv) {
  if (!A || !Dinv || (count > 0 && !nodes))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_bsr_diag_inverse_nodes: NULL argument");
  for (int32_t q = 0; q < count; ++q)
    if (!diag_inverse_node(A, fixed, Dinv, nodes[q])) return singular_block(A, nodes[q]);
  return CL_OK;
}

cl_status cl_bsr_diag_inverse(const cl_bsr *A, const uint8_t *fixed, double *Dinv) {
  if (!A || !Dinv) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_bsr_diag_inverse: NULL argument");
  const int32_t n = A->n;
  int32_t bad = n;
#pragma omp parallel for schedule(static) reduction(min : bad) if (n > 2000)
  for (int32_t i = 0; i < n; ++i)
    if (!diag_inverse_node(A, fixed, Dinv, i) && i < bad) bad = i;
  if (bad < n) return singular_block(A, bad);
  return CL_OK;
}

int64_t cl_bsr_bytes(const cl_bsr *A) {
  if (!A) return 0;
  return (int64_t)sizeof *A + 16 * ((int64_t)A->n + 1) + 4 * A->nnzb + 72 * A->nnzb;
}
