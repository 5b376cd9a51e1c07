/* Linear-blend-skinning prolongation of the Galerkin multigrid (see multigrid_transfer.h). */
#include "linalg/multigrid_transfer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/mat3.h"

cl_status cl_mg_frames(int32_t npoints, const double *x, const int32_t *label, int32_t k, cl_mg_frame *frames) {
  memset(frames, 0, sizeof *frames * (size_t)k);
  double *cov = cl_calloc(9 * (size_t)k + 1, sizeof(double), "multigrid cluster frames");
  if (!cov) return CL_ERR_OUT_OF_MEMORY;
  /* centroids, then covariances about them (two passes: no cancellation for clusters far from the origin) */
  for (int32_t i = 0; i < npoints; ++i) {
    const int32_t h = label[i];
    if (h < 0) continue;
    for (int c = 0; c < 3; ++c) frames[h].c[c] += x[3 * (int64_t)i + c];
    frames[h].count++;
  }
  for (int32_t h = 0; h < k; ++h)
    if (frames[h].count > 0)
      for (int c = 0; c < 3; ++c) frames[h].c[c] /= (double)frames[h].count;
  for (int32_t i = 0; i < npoints; ++i) {
    const int32_t h = label[i];
    if (h < 0) continue;
    double d[3];
    for (int c = 0; c < 3; ++c) d[c] = x[3 * (int64_t)i + c] - frames[h].c[c];
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) cov[9 * (int64_t)h + 3 * r + c] += d[r] * d[c];
  }
  for (int32_t h = 0; h < k; ++h) {
    cl_mg_frame *f = &frames[h];
    if (f->count == 0) continue;
    cl_mat3 C;
    for (int q = 0; q < 9; ++q) C.m[q] = cov[9 * (int64_t)h + q] / (double)f->count;
    cl_vec3 ev;
    cl_mat3 Q;
    if (cl_eig_sym3(&C, &ev, &Q) < 0) continue;
    const double lam[3] = {ev.x, ev.y, ev.z}; /* descending */
    for (int e = 0; e < 3; ++e) {
      if (!(lam[e] > CL_MG_AXIS_TOL * lam[0]) || !(lam[e] > 0.0)) break;
      const double s = sqrt(lam[e]);
      for (int r = 0; r < 3; ++r) {
        f->F[3 * r + e] = Q.m[3 * r + e] * s;
        f->Finv[3 * e + r] = Q.m[3 * r + e] / s;
      }
      f->live = e + 1;
    }
  }
  free(cov);
  return CL_OK;
}

/* handle[] given: the member lists (counting sort, ascending within a handle) and the arrays. */
static cl_status alloc_transfer(int32_t n_fine, int32_t k, cl_mg_transfer *t) {
  memset(t, 0, sizeof *t);
  t->n_fine = n_fine;
  t->n_handles = k;
  t->handle = cl_malloc(sizeof(int32_t) * ((size_t)n_fine + 1), "multigrid transfer");
  t->w = cl_calloc(4 * (size_t)n_fine + 1, sizeof(double), "multigrid transfer");
  t->member_ptr = cl_calloc((size_t)k + 1, sizeof(int32_t), "multigrid transfer");
  t->members = cl_malloc(sizeof(int32_t) * ((size_t)n_fine + 1), "multigrid transfer");
  t->frame = cl_calloc((size_t)k + 1, sizeof(cl_mg_frame), "multigrid transfer");
  if (!t->handle || !t->w || !t->member_ptr || !t->members || !t->frame) {
    cl_mg_transfer_free(t);
    return CL_ERR_OUT_OF_MEMORY;
  }
  return CL_OK;
}

static cl_status build_members(cl_mg_transfer *t) {
  const int32_t k = t->n_handles;
  memset(t->member_ptr, 0, sizeof(int32_t) * ((size_t)k + 1));
  for (int32_t i = 0; i < t->n_fine; ++i)
    if (t->handle[i] >= 0) t->member_ptr[t->handle[i] + 1]++;
  for (int32_t h = 0; h < k; ++h) t->member_ptr[h + 1] += t->member_ptr[h];
  int32_t *fill = cl_malloc(sizeof(int32_t) * ((size_t)k + 1), "multigrid transfer");
  if (!fill) return CL_ERR_OUT_OF_MEMORY;
  memcpy(fill, t->member_ptr, sizeof(int32_t) * (size_t)k);
  for (int32_t i = 0; i < t->n_fine; ++i) {
    const int32_t h = t->handle[i];
    if (h >= 0) t->members[fill[h]++] = i;
  }
  free(fill);
  t->degenerate = 0;
  for (int32_t h = 0; h < k; ++h)
    if (t->frame[h].live < 3) t->degenerate++;
  return CL_OK;
}

cl_status cl_mg_transfer_from_nodes(int32_t n, const double *x, const int32_t *label, int32_t k, cl_mg_transfer *t) {
  CL_TRY(alloc_transfer(n, k, t));
  cl_status st = cl_mg_frames(n, x, label, k, t->frame);
  if (st < 0) {
    cl_mg_transfer_free(t);
    return st;
  }
  for (int32_t i = 0; i < n; ++i) {
    const int32_t h = label[i];
    t->handle[i] = h;
    if (h < 0) continue;
    const cl_mg_frame *f = &t->frame[h];
    double d[3];
    for (int c = 0; c < 3; ++c) d[c] = x[3 * (int64_t)i + c] - f->c[c];
    double *w = t->w + 4 * (int64_t)i;
    /* Yhat_i = [Finv (y_i - c); 1] (eq 16 in the handle's frame) */
    for (int e = 0; e < 3; ++e) w[e] = f->Finv[3 * e] * d[0] + f->Finv[3 * e + 1] * d[1] + f->Finv[3 * e + 2] * d[2];
    w[3] = 1.0;
  }
  st = build_members(t);
  if (st < 0) cl_mg_transfer_free(t);
  return st;
}

cl_status cl_mg_transfer_from_handles(int32_t kf, const cl_mg_frame *fine, const int32_t *parent, int32_t kc,
                                      const cl_mg_frame *coarse, cl_mg_transfer *t) {
  CL_TRY(alloc_transfer(4 * kf, kc, t));
  memcpy(t->frame, coarse, sizeof *coarse * (size_t)kc);
  for (int32_t j = 0; j < kf; ++j) {
    const int32_t k = parent[j];
    for (int e = 0; e < 4; ++e) t->handle[4 * j + e] = k;
    if (k < 0) continue;
    const cl_mg_frame *fj = &fine[j], *fk = &coarse[k];
    double *w = t->w + 16 * (int64_t)j; /* 4 sub-nodes x 4 weights */
    /* eq 18 in frames: sub-node e < 3 of j takes column e of M = Finv_k F_j */
    for (int e = 0; e < 3; ++e)
      for (int d = 0; d < 3; ++d)
        w[4 * e + d] = fk->Finv[3 * d] * fj->F[e] + fk->Finv[3 * d + 1] * fj->F[3 + e] + fk->Finv[3 * d + 2] * fj->F[6 + e];
    /* the translation sub-node: j's centre in k's frame, [Finv_k (c_j - c_k); 1] */
    double g[3];
    for (int c = 0; c < 3; ++c) g[c] = fj->c[c] - fk->c[c];
    for (int d = 0; d < 3; ++d) w[12 + d] = fk->Finv[3 * d] * g[0] + fk->Finv[3 * d + 1] * g[1] + fk->Finv[3 * d + 2] * g[2];
    w[15] = 1.0;
  }
  cl_status st = build_members(t);
  if (st < 0) cl_mg_transfer_free(t);
  return st;
}

void cl_mg_transfer_free(cl_mg_transfer *t) {
  if (!t) return;
  free(t->handle);
  free(t->w);
  free(t->member_ptr);
  free(t->members);
  free(t->frame);
  memset(t, 0, sizeof *t);
}

void cl_mg_prolong_add(const cl_mg_transfer *t, const double *xc, const uint8_t *fixed, double *xf) {
  const int32_t n = t->n_fine;
#pragma omp parallel for schedule(static) if (n > 8192)
  for (int32_t i = 0; i < n; ++i) {
    const int32_t k = t->handle[i];
    if (k < 0) continue;
    const double *w = t->w + 4 * (int64_t)i, *q = xc + 12 * (int64_t)k;
    double *y = xf + 3 * (int64_t)i;
    for (int c = 0; c < 3; ++c) {
      if (fixed && fixed[3 * (int64_t)i + c]) continue;
      y[c] += w[0] * q[c] + w[1] * q[3 + c] + w[2] * q[6 + c] + w[3] * q[9 + c];
    }
  }
}

void cl_mg_restrict(const cl_mg_transfer *t, const double *rf, double *rc) {
  const int32_t k = t->n_handles;
#pragma omp parallel for schedule(static) if (k > 256)
  for (int32_t h = 0; h < k; ++h) {
    double acc[12] = {0};
    for (int32_t m = t->member_ptr[h]; m < t->member_ptr[h + 1]; ++m) {
      const int32_t i = t->members[m];
      const double *w = t->w + 4 * (int64_t)i, *r = rf + 3 * (int64_t)i;
      for (int e = 0; e < 4; ++e)
        for (int c = 0; c < 3; ++c) acc[3 * e + c] += w[e] * r[c];
    }
    memcpy(rc + 12 * (int64_t)h, acc, sizeof acc);
  }
}
