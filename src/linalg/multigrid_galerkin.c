/* Galerkin coarse matrices by a planned scatter (see multigrid_galerkin.h). */
#include "linalg/multigrid_galerkin.h"

#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "base/alloc.h"
#include "base/error.h"

void cl_mg_galerkin_free(cl_mg_galerkin *g) {
  if (!g) return;
  free(g->hptr);
  free(g->hcol);
  free(g->pos);
  free(g->hdiag);
  free(g->work);
  free(g->iwork);
  memset(g, 0, sizeof *g);
}

static int cmp_i32(const void *a, const void *b) {
  const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* The handle graph: pairs (k(a), k(b)) over the stored blocks (a, b), plus every diagonal pair. */
static cl_status handle_graph(const cl_bsr *A, const cl_mg_transfer *t, cl_mg_galerkin *g) {
  const int32_t nh = t->n_handles;
  int32_t *mark = cl_malloc(sizeof(int32_t) * ((size_t)nh + 1), "Galerkin plan");
  g->hptr = cl_calloc((size_t)nh + 1, sizeof(int64_t), "Galerkin plan");
  if (!mark || !g->hptr) {
    free(mark);
    return CL_ERR_OUT_OF_MEMORY;
  }
  for (int32_t k = 0; k < nh; ++k) mark[k] = -1;
  /* count, then fill: two passes over the members' rows */
  for (int pass = 0; pass < 2; ++pass) {
    for (int32_t k = 0; k < nh; ++k) mark[k] = -1;
    for (int32_t j = 0; j < nh; ++j) {
      int64_t cnt = 0, at = pass ? g->hptr[j] : 0;
      mark[j] = j;
      if (pass) g->hcol[at++] = j;
      cnt++;
      for (int32_t m = t->member_ptr[j]; m < t->member_ptr[j + 1]; ++m) {
        const int32_t a = t->members[m];
        for (int64_t s = A->row_ptr[a]; s < A->row_ptr[a + 1]; ++s) {
          const int32_t k = t->handle[A->col[s]];
          if (k < 0 || mark[k] == j) continue;
          mark[k] = j;
          if (pass) g->hcol[at++] = k;
          cnt++;
        }
      }
      if (!pass) g->hptr[j + 1] = cnt;
      else qsort(g->hcol + g->hptr[j], (size_t)cnt, sizeof(int32_t), cmp_i32);
    }
    if (!pass) {
      for (int32_t j = 0; j < nh; ++j) g->hptr[j + 1] += g->hptr[j];
      g->hcol = cl_malloc(sizeof(int32_t) * ((size_t)g->hptr[nh] + 1), "Galerkin plan");
      if (!g->hcol) {
        free(mark);
        return CL_ERR_OUT_OF_MEMORY;
      }
    }
  }
  free(mark);
  return CL_OK;
}

/* pos[s] for every fine slot, hdiag, max_row. */
static cl_status plan_positions(const cl_bsr *A, const cl_mg_transfer *t, cl_mg_galerkin *g) {
  const int32_t nh = t->n_handles;
  int32_t *where = cl_malloc(sizeof(int32_t) * ((size_t)nh + 1), "Galerkin plan");
  g->pos = cl_malloc(sizeof(int32_t) * ((size_t)A->nnzb + 1), "Galerkin plan");
  g->hdiag = cl_malloc(sizeof(int32_t) * ((size_t)nh + 1), "Galerkin plan");
  if (!where || !g->pos || !g->hdiag) {
    free(where);
    return CL_ERR_OUT_OF_MEMORY;
  }
  for (int64_t s = 0; s < A->nnzb; ++s) g->pos[s] = -1;
  g->max_row = 1;
  for (int32_t j = 0; j < nh; ++j) {
    const int64_t lo = g->hptr[j], hi = g->hptr[j + 1];
    if (hi - lo > g->max_row) g->max_row = (int32_t)(hi - lo);
    for (int64_t q = lo; q < hi; ++q) {
      where[g->hcol[q]] = (int32_t)(q - lo);
      if (g->hcol[q] == j) g->hdiag[j] = (int32_t)(q - lo);
    }
    for (int32_t m = t->member_ptr[j]; m < t->member_ptr[j + 1]; ++m) {
      const int32_t a = t->members[m];
      for (int64_t s = A->row_ptr[a]; s < A->row_ptr[a + 1]; ++s) {
        const int32_t k = t->handle[A->col[s]];
        if (k >= 0) g->pos[s] = where[k];
      }
    }
  }
  free(where);
  return CL_OK;
}

/* A_c's pattern: row 4j + c holds the columns 4k + d of every handle k of row j, d = 0..3, so the 4 x 4
 * sub-node blocks of a handle pair are contiguous: slot(4j + c, 4k + d) = row_ptr[4j + c] + 4 q + d
 * for k at position q of handle row j. */
static cl_status coarse_pattern(const cl_mg_galerkin *g, cl_bsr **Ac) {
  const int32_t nh = g->nh, n = 4 * nh;
  int64_t *rp = cl_malloc(sizeof(int64_t) * ((size_t)n + 1), "Galerkin coarse pattern");
  int32_t *col = cl_malloc(sizeof(int32_t) * (16 * (size_t)g->hptr[nh] + 1), "Galerkin coarse pattern");
  if (!rp || !col) {
    free(rp);
    free(col);
    return CL_ERR_OUT_OF_MEMORY;
  }
  int64_t at = 0;
  rp[0] = 0;
  for (int32_t j = 0; j < nh; ++j)
    for (int c = 0; c < 4; ++c) {
      for (int64_t q = g->hptr[j]; q < g->hptr[j + 1]; ++q)
        for (int d = 0; d < 4; ++d) col[at++] = 4 * g->hcol[q] + d;
      rp[4 * j + c + 1] = at;
    }
  cl_status st = cl_bsr_from_pattern(n, rp, col, Ac);
  free(rp);
  free(col);
  if (st < 0) return st;
  for (int32_t r = 0; r < n; ++r) { /* the slot arithmetic above relies on this */
    const int32_t j = r / 4;
    if ((*Ac)->row_ptr[r + 1] - (*Ac)->row_ptr[r] != 4 * (g->hptr[j + 1] - g->hptr[j])) {
      cl_bsr_destroy(*Ac);
      *Ac = NULL;
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "Galerkin plan: the coarse pattern of handle %d is not the expected one",
                     j);
    }
  }
  return CL_OK;
}

cl_status cl_mg_galerkin_analyse(const cl_bsr *A, const cl_mg_transfer *t, int32_t threads, cl_mg_galerkin *g,
                                 cl_bsr **Ac) {
  memset(g, 0, sizeof *g);
  *Ac = NULL;
  if (A->n != t->n_fine)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "Galerkin plan: the matrix has %d block rows, the transfer %d fine nodes",
                   A->n, t->n_fine);
  g->nh = t->n_handles;
  cl_status st = handle_graph(A, t, g);
  if (st >= 0) st = plan_positions(A, t, g);
  if (st >= 0) st = coarse_pattern(g, Ac);
  if (st >= 0) {
    g->threads = threads < 1 ? 1 : threads;
    g->work = cl_malloc(sizeof(double) * 36 * (size_t)g->max_row * (size_t)g->threads, "Galerkin work");
    g->iwork = cl_malloc(sizeof(int32_t) * 2 * (size_t)g->max_row * (size_t)g->threads, "Galerkin work");
    if (!g->work || !g->iwork) st = CL_ERR_OUT_OF_MEMORY;
    else
      for (int64_t q = 0; q < 2 * (int64_t)g->max_row * g->threads; ++q) g->iwork[q] = 0;
  }
  if (st < 0) {
    cl_mg_galerkin_free(g);
    cl_bsr_destroy(*Ac);
    *Ac = NULL;
  }
  return st;
}

/* 0 times a value is 0 for a finite one and NaN for NaN or Inf, so the sum of these over a block is 0
 * exactly when all its values are finite (no branch per value, and no fast-math in this build to fold
 * it away). Summed as a tree and compared once per handle row: a chain of nine dependent adds per
 * block made the product 5 % slower (6.8-6.9 % of a one-thread Charpy step against 6.5 without a
 * check; 6.1-6.3 as a tree, within the noise). */
static inline double block_poison(const double *v) {
  const double a = 0.0 * v[0] + 0.0 * v[1], b = 0.0 * v[2] + 0.0 * v[3];
  const double c = 0.0 * v[4] + 0.0 * v[5], d = 0.0 * v[6] + 0.0 * v[7];
  return ((a + b) + (c + d)) + 0.0 * v[8];
}

/* One coarse handle row j of A_c (its 4 block rows), with the work arrays of the calling thread.
 * Returns whether every value of its members' rows of A is finite (masked values included). */
static int product_row(const cl_mg_galerkin *g, const cl_mg_transfer *t, const cl_bsr *A, const uint8_t *fixed,
                       int32_t j, double *acc, int32_t *seen, int32_t *touched, cl_bsr *Ac) {
  double poison = 0.0; /* 0 while every value read is finite (block_poison) */
  const int32_t row_len = (int32_t)(g->hptr[j + 1] - g->hptr[j]);
  for (int c = 0; c < 4; ++c) {
    double *v = Ac->val + 9 * Ac->row_ptr[4 * j + c];
    memset(v, 0, sizeof(double) * 36 * (size_t)row_len);
  }
  for (int32_t m = t->member_ptr[j]; m < t->member_ptr[j + 1]; ++m) {
    const int32_t a = t->members[m];
    const double *wa = t->w + 4 * (int64_t)a;
    const uint8_t *fa = fixed ? fixed + 3 * (int64_t)a : NULL;
    if (fa && fa[0] && fa[1] && fa[2]) { /* D_a = 0: the row adds nothing, but is checked */
      for (int64_t s = A->row_ptr[a]; s < A->row_ptr[a + 1]; ++s) poison += block_poison(A->val + 9 * s);
      continue;
    }
    int32_t ntouched = 0;
    /* stage 1: B_{a,k,d} = sum_b w_b[d] D_a A_ab D_b, per coarse handle k of the row's columns */
    for (int64_t s = A->row_ptr[a]; s < A->row_ptr[a + 1]; ++s) {
      poison += block_poison(A->val + 9 * s);
      const int32_t q = g->pos[s];
      if (q < 0) continue;
      const int32_t b = A->col[s];
      const double *wb = t->w + 4 * (int64_t)b;
      double blk[9];
      memcpy(blk, A->val + 9 * s, sizeof blk);
      if (fixed) {
        const uint8_t *fb = fixed + 3 * (int64_t)b;
        for (int r = 0; r < 3; ++r)
          for (int cc = 0; cc < 3; ++cc)
            if (fa[r] || fb[cc]) blk[3 * r + cc] = 0.0;
      }
      double *B = acc + 36 * (int64_t)q;
      if (!seen[q]) {
        seen[q] = 1;
        touched[ntouched++] = q;
        memset(B, 0, sizeof(double) * 36);
      }
      for (int d = 0; d < 4; ++d) {
        const double wd = wb[d];
        if (wd == 0.0) continue;
        for (int e = 0; e < 9; ++e) B[9 * d + e] += wd * blk[e];
      }
    }
    /* stage 2: A_c[(j,c),(k,d)] += w_a[c] B_{a,k,d} */
    for (int32_t u = 0; u < ntouched; ++u) {
      const int32_t q = touched[u];
      seen[q] = 0;
      const double *B = acc + 36 * (int64_t)q;
      for (int c = 0; c < 4; ++c) {
        const double wc = wa[c];
        if (wc == 0.0) continue;
        double *dst = Ac->val + 9 * (Ac->row_ptr[4 * j + c] + 4 * (int64_t)q);
        for (int e = 0; e < 36; ++e) dst[e] += wc * B[e];
      }
    }
  }
  return poison == 0.0;
}

int cl_mg_galerkin_product(const cl_mg_galerkin *g, const cl_mg_transfer *t, const cl_bsr *A, const uint8_t *fixed,
                           int32_t threads, cl_bsr *Ac) {
  return cl_mg_galerkin_product_rows(g, t, A, fixed, threads, NULL, g->nh, Ac);
}

int cl_mg_galerkin_product_rows(const cl_mg_galerkin *g, const cl_mg_transfer *t, const cl_bsr *A,
                                const uint8_t *fixed, int32_t threads, const int32_t *rows, int32_t count,
                                cl_bsr *Ac) {
  const int32_t nh = count;
  int nt = threads < 1 ? 1 : threads;
  if (nt > g->threads) nt = g->threads;
  int finite = 1;
#pragma omp parallel num_threads(nt) if (nt > 1 && A->nnzb > 20000 && count >= 4)
  {
    int tid = 0;
#ifdef _OPENMP
    tid = omp_get_thread_num();
#endif
    double *acc = g->work + 36 * (int64_t)g->max_row * tid;
    int32_t *seen = g->iwork + 2 * (int64_t)g->max_row * tid, *touched = seen + g->max_row;
    /* one handle row at a time: "50/all" has 50 rows of about 130 nodes each, and chunks of 16 left
     * one thread a third of the work more than the other */
#pragma omp for schedule(dynamic, 1) reduction(& : finite)
    for (int32_t q = 0; q < nh; ++q)
      finite &= product_row(g, t, A, fixed, rows ? rows[q] : q, acc, seen, touched, Ac);
  }
  return finite;
}
