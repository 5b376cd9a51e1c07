/* The coarse matrices made positive definite where the skinning prolongation's null space leaves
 * them singular, and the check that the rest of each handle's block is (see cl_mg_regularize in
 * multigrid_galerkin.h, and docs/solvers/graph_fem.md, "Degenerate clusters and regularisation"). */
#include <math.h>
#include <string.h>

#include "linalg/multigrid_galerkin.h"

/* Cholesky of the 12 x 12 block B (row-major; L overwrites the lower triangle) in which the pivots
 * flagged null[] are set to `pivot` (adding the difference to that diagonal entry, recorded in add[]).
 * With null == NULL, every pivot not above floor is flagged instead (null_out, may be NULL). Returns the
 * smallest unflagged pivot (INFINITY if none). */
static double flagged_cholesky(double *B, const uint8_t *null, double floor, double pivot, double *add,
                               uint8_t *null_out) {
  double smallest = INFINITY;
  for (int i = 0; i < 12; ++i) {
    double p = B[13 * i];
    for (int k = 0; k < i; ++k) p -= B[12 * i + k] * B[12 * i + k];
    const int flag = null ? null[i] : !(p > floor);
    if (null_out) null_out[i] = (uint8_t)flag;
    if (add) add[i] = 0.0;
    if (flag) {
      if (add) add[i] = pivot - p;
      p = pivot;
    } else if (p < smallest) {
      smallest = p;
    }
    if (!(p > 0.0)) p = pivot; /* an indefinite block (reported by the caller): keep going */
    const double l = sqrt(p);
    B[13 * i] = l;
    for (int r = i + 1; r < 12; ++r) {
      double v = B[12 * r + i];
      for (int k = 0; k < i; ++k) v -= B[12 * r + k] * B[12 * i + k];
      B[12 * r + i] = v / l;
    }
  }
  return smallest;
}

/* The Gram matrix G = (D P_k)^T (D P_k) of handle k's columns of the masked prolongation, in the
 * unknowns' order 3 e + c (sub-node e, component c): G[3e+c][3f+c] = sum over the members i whose
 * component c is free of w_i[e] w_i[f]. */
static void gram(const cl_mg_transfer *t, const uint8_t *fixed, int32_t k, double *G) {
  memset(G, 0, sizeof(double) * 144);
  for (int32_t m = t->member_ptr[k]; m < t->member_ptr[k + 1]; ++m) {
    const int32_t i = t->members[m];
    const double *w = t->w + 4 * (int64_t)i;
    for (int c = 0; c < 3; ++c) {
      if (fixed && fixed[3 * (int64_t)i + c]) continue;
      for (int e = 0; e < 4; ++e)
        for (int f = 0; f < 4; ++f) G[12 * (3 * e + c) + 3 * f + c] += w[e] * w[f];
    }
  }
}

/* Handle k's 12 x 12 diagonal block (s = its mean diagonal, or `mean` for a zero block): the null
 * space of D P_k from its Gram matrix, the same elimination on the block with those pivots set to s
 * (written back into Ac when apply), and the smallest other pivot relative to s (*rel). Returns the
 * number of pivots set. */
static int32_t regularize_handle(const cl_mg_galerkin *g, const cl_mg_transfer *t, const uint8_t *fixed, double tau,
                                 double mean, int32_t k, int apply, cl_bsr *Ac, double *rel) {
  double B[144], G[144], add[12], *slot[12];
  uint8_t null[12];
  gram(t, fixed, k, G);
  double gmean = 0.0;
  for (int i = 0; i < 12; ++i) gmean += G[13 * i] / 12.0;
  flagged_cholesky(G, NULL, tau * gmean, gmean > 0.0 ? gmean : 1.0, NULL, null);
  double tr = 0.0;
  for (int c = 0; c < 4; ++c)
    for (int d = 0; d < 4; ++d) {
      const double *v = Ac->val + 9 * (Ac->row_ptr[4 * k + c] + 4 * (int64_t)g->hdiag[k] + d);
      for (int r = 0; r < 3; ++r)
        for (int e = 0; e < 3; ++e) B[12 * (3 * c + r) + 3 * d + e] = v[3 * r + e];
    }
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 3; ++r) {
      slot[3 * c + r] = Ac->val + 9 * (Ac->row_ptr[4 * k + c] + 4 * (int64_t)g->hdiag[k] + c) + 4 * r;
      tr += B[13 * (3 * c + r)];
    }
  const double s = tr > 0.0 ? tr / 12.0 : mean;
  *rel = flagged_cholesky(B, null, 0.0, s, add, NULL) / s;
  int32_t raised = 0;
  for (int i = 0; i < 12; ++i) {
    if (apply) *slot[i] += add[i];
    raised += null[i];
  }
  return raised;
}

static double block_trace(const cl_mg_galerkin *g, const cl_bsr *Ac, int32_t k) {
  double tr = 0.0;
  for (int c = 0; c < 4; ++c) {
    const double *v = Ac->val + 9 * (Ac->row_ptr[4 * k + c] + 4 * (int64_t)g->hdiag[k] + c);
    tr += v[0] + v[4] + v[8];
  }
  return tr;
}

/* Handles list[0 .. count-1] (list NULL: all, count = nh), with the traces of the others in trace. */
static int32_t regularize(const cl_mg_galerkin *g, const cl_mg_transfer *t, const uint8_t *fixed, double tau,
                          cl_bsr *Ac, const int32_t *list, int32_t count, double *trace, uint8_t *per,
                          int32_t *bad_handle, double *bad_pivot) {
  const int32_t nh = g->nh;
  for (int32_t q = 0; q < count; ++q) {
    const int32_t k = list ? list[q] : q;
    trace[k] = block_trace(g, Ac, k);
  }
  /* the mean of the handles' mean diagonals, for a handle whose block is zero */
  double mean = 0.0;
  int32_t nonzero = 0;
  for (int32_t k = 0; k < nh; ++k)
    if (trace[k] > 0.0 && isfinite(trace[k])) {
      mean += trace[k] / 12.0;
      nonzero++;
    }
  mean = nonzero ? mean / nonzero : 1.0;
  int32_t raised = 0, bad = nh;
#pragma omp parallel for schedule(static) reduction(+ : raised) reduction(min : bad) if (count > 256)
  for (int32_t q = 0; q < count; ++q) {
    const int32_t k = list ? list[q] : q;
    double rel;
    const int32_t r = regularize_handle(g, t, fixed, tau, mean, k, 1, Ac, &rel);
    per[k] = (uint8_t)r;
    raised += r;
    if (!(rel >= tau) && k < bad) bad = k;
  }
  *bad_handle = bad < nh ? bad : -1;
  *bad_pivot = 0.0;
  if (bad < nh) regularize_handle(g, t, fixed, tau, mean, bad, 0, Ac, bad_pivot); /* for the message */
  return raised;
}

int32_t cl_mg_regularize(const cl_mg_galerkin *g, const cl_mg_transfer *t, const uint8_t *fixed, double tau,
                         cl_bsr *Ac, double *trace, uint8_t *raised, int32_t *bad_handle, double *bad_pivot) {
  return regularize(g, t, fixed, tau, Ac, NULL, g->nh, trace, raised, bad_handle, bad_pivot);
}

int32_t cl_mg_regularize_handles(const cl_mg_galerkin *g, const cl_mg_transfer *t, const uint8_t *fixed, double tau,
                                 cl_bsr *Ac, const int32_t *list, int32_t count, double *trace, uint8_t *raised,
                                 int32_t *bad_handle, double *bad_pivot) {
  return regularize(g, t, fixed, tau, Ac, list, count, trace, raised, bad_handle, bad_pivot);
}
