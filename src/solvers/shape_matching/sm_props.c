/* Storage and rest properties of clusters (paper sec 3.1, "Clustered Shape Matching"):
 * a particle's mass is shared among its clusters by w~_ic = w_ic / sum_d w_id, and each cluster's
 * mass, rest centre of mass r_c (eq 7 at rest), rest offsets p_i = X_i - r_c and
 * A_rr = sum_i w~_ic m_i p_i p_i^T (eq 3) use that share. A_rr^-1 is taken as a pseudo-inverse
 * (sec 3.3: fracture can leave clusters flat or thin) and F^p is reset to I when it clamps.
 * Everything here is per cluster, so a fracture recomputes only the clusters it touched. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "geom/components.h"
#include "solvers/shape_matching/sm_internal.h"

/* cl_resize of *p from `old` to `cap` elements of `size` bytes, zeroing the new part */
static cl_status regrow(void **p, size_t old, size_t cap, size_t size, const char *what) {
  CL_TRY(cl_resize(p, cap, size, what));
  if (cap > old) memset((char *)*p + old * size, 0, (cap - old) * size);
  return CL_OK;
}

static size_t next_cap(size_t cap, size_t need) {
  if (cap >= need) return cap;
  size_t c = cap ? cap : 64;
  while (c < need) c += c / 2 + 64;
  return c;
}

cl_status cl_sm_grow_particles(cl_sm *s, int32_t n) {
  if (n <= s->pcap) return CL_OK;
  size_t old = (size_t)s->pcap, cap = next_cap(old, (size_t)n);
  CL_TRY(regrow((void **)&s->W, old, cap, sizeof(double), "particle weights"));
  CL_TRY(regrow((void **)&s->flags, old, cap, sizeof(uint8_t), "particle flags"));
  CL_TRY(regrow((void **)&s->held, old, cap, sizeof(int32_t), "particle flags"));
  CL_TRY(regrow((void **)&s->moved, old, cap, sizeof(uint8_t), "particle flags"));
  CL_TRY(regrow((void **)&s->vdirty, old, cap, sizeof(uint8_t), "particle flags"));
  CL_TRY(regrow((void **)&s->mark, old, cap, sizeof(uint8_t), "particle flags"));
  CL_TRY(regrow((void **)&s->sl_list, 2 * old, 2 * cap, sizeof(int32_t), "particle lists"));
  CL_TRY(regrow((void **)&s->xold, 3 * old, 3 * cap, sizeof(double), "particle scratch"));
  CL_TRY(regrow((void **)&s->pdisp, old, cap, sizeof(double), "particle scratch"));
  CL_TRY(regrow((void **)&s->vold, 3 * old, 3 * cap, sizeof(double), "particle scratch"));
  CL_TRY(regrow((void **)&s->acc, 3 * old, 3 * cap, sizeof(double), "particle scratch"));
  CL_TRY(regrow((void **)&s->gacc, 3 * old, 3 * cap, sizeof(double), "particle scratch"));
  CL_TRY(regrow((void **)&s->dsum, 3 * old, 3 * cap, sizeof(double), "particle scratch"));
  CL_TRY(regrow((void **)&s->dvsh, 3 * old, 3 * cap, sizeof(double), "particle scratch"));
#ifndef NDEBUG /* only builds with assertions check the measure's positions (sm_step.c) */
  CL_TRY(regrow((void **)&s->xmeas, 3 * old, 3 * cap, sizeof(double), "particle scratch"));
#endif
  CL_TRY(regrow((void **)&s->pofs, old + 1, cap + 1, sizeof(int32_t), "reverse index"));
  CL_TRY(regrow((void **)&s->phead, old, cap, sizeof(int64_t), "membership lists"));
  CL_TRY(regrow((void **)&s->pnm, old, cap, sizeof(int32_t), "membership lists"));
  CL_TRY(regrow((void **)&s->tdirty, old, cap, sizeof(uint8_t), "topology marks"));
  CL_TRY(regrow((void **)&s->tdlist, old, cap, sizeof(int32_t), "topology marks"));
  for (size_t i = old; i < cap; ++i) s->phead[i] = -1;
  s->pcap = (int32_t)cap;
  return CL_OK;
}

cl_status cl_sm_grow_clusters(cl_sm *s, int32_t ncl) {
  if (ncl <= s->ccap) return CL_OK;
  size_t o = (size_t)s->ccap, c = next_cap(o, (size_t)ncl);
  CL_TRY(regrow((void **)&s->alive, o, c, sizeof(uint8_t), "clusters"));
  CL_TRY(regrow((void **)&s->moff, o, c, sizeof(int32_t), "clusters"));
  CL_TRY(regrow((void **)&s->mcnt, o, c, sizeof(int32_t), "clusters"));
  CL_TRY(regrow((void **)&s->mass, o, c, sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->rcom, 3 * o, 3 * c, sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->width, o, c, sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->Arr_inv, 9 * o, 9 * c, sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->clamped, o, c, sizeof(uint8_t), "clusters"));
  CL_TRY(regrow((void **)&s->Fp, 9 * o, 9 * c, sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->Fp_inv, 9 * o, 9 * c, sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->hard, o, c, sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->pcen, 3 * o, 3 * c, sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->radius, o, c, sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->ploff, o, c, sizeof(int32_t), "clusters"));
  CL_TRY(regrow((void **)&s->plcnt, o, c, sizeof(int32_t), "clusters"));
  CL_TRY(regrow((void **)&s->com, 3 * o, 3 * c, sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->Rt, 9 * o, 9 * c, sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->scom, 3 * o, 3 * c, sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->Iinv, 9 * o, 9 * c, sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->ga, 3 * o, 3 * c, sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->gw, 3 * o, 3 * c, sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->sig, 3 * o, 3 * c, sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->Vp, 9 * o, 9 * c, sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->F, 9 * o, 9 * c, sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->Finv, 9 * o, 9 * c, sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->msum, SM_MSUM * o, SM_MSUM * c, sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->mok, o, c, sizeof(uint8_t), "clusters"));
  CL_TRY(regrow((void **)&s->mdead, o, c, sizeof(uint8_t), "clusters"));
  CL_TRY(regrow((void **)&s->gpack, SM_GPACK * o, SM_GPACK * c, sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->sl_sum, 15 * o, 15 * c, sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->sl_T, 9 * o, 9 * c, sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->sl_y, 3 * o, 3 * c, sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->sl_g, o, c, sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->sl_d, o, c, sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->sl_s, o, c, sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->sl_k, o, c, sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->sl_f, o, c, sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->sl_ok, o, c, sizeof(uint8_t), "clusters"));
  CL_TRY(regrow((void **)&s->sl_touch, o, c, sizeof(uint32_t), "clusters"));
  CL_TRY(regrow((void **)&s->pabs, o, c, sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->active, o, c, sizeof(uint8_t), "clusters"));
  CL_TRY(regrow((void **)&s->clampc, o, c, sizeof(uint8_t), "clusters"));
  CL_TRY(regrow((void **)&s->cadj_ofs, o + 1, c + 1, sizeof(int32_t), "clusters"));
  CL_TRY(regrow((void **)&s->stamp, o, c, sizeof(int32_t), "clusters"));
  CL_TRY(regrow((void **)&s->wcom, 3 * o, 3 * c, sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->wrad, o, c, sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->touched, o, c, sizeof(uint8_t), "clusters"));
  CL_TRY(regrow(&s->spans, o, c, 2 * sizeof(double), "clusters"));
  CL_TRY(regrow((void **)&s->cpiece, o, c, sizeof(int32_t), "clusters"));
  CL_TRY(regrow((void **)&s->uf, o, c, sizeof(int32_t), "clusters"));
  CL_TRY(regrow((void **)&s->pmap, o, c, sizeof(int32_t), "clusters"));
  CL_TRY(regrow((void **)&s->agrow, o, c, sizeof(int32_t), "clusters"));
  CL_TRY(regrow((void **)&s->calone, o, c, sizeof(uint8_t), "clusters"));
  CL_TRY(regrow((void **)&s->cdirty, o, c, sizeof(uint8_t), "clusters"));
  CL_TRY(regrow((void **)&s->cdlist, o, c, sizeof(int32_t), "clusters"));
  CL_TRY(regrow((void **)&s->bofs, o + 1, c + 1, sizeof(int32_t), "clusters"));
  s->ccap = (int32_t)c;
  return CL_OK;
}

cl_status cl_sm_grow_pool(cl_sm *s, int64_t need) {
  if (need <= s->mcap) return CL_OK;
  if (need > (int64_t)INT32_MAX * 4)
    return cl_fail(CL_ERR_OUT_OF_MEMORY, "solver 'shape_matching': %lld memberships", (long long)need);
  size_t o = (size_t)s->mcap, c = next_cap(o, (size_t)need);
  CL_TRY(regrow((void **)&s->mp, o, c, sizeof(int32_t), "memberships"));
  CL_TRY(regrow((void **)&s->mc, o, c, sizeof(int32_t), "memberships"));
  CL_TRY(regrow((void **)&s->mw, o, c, sizeof(double), "memberships"));
  CL_TRY(regrow((void **)&s->mwt, o, c, sizeof(double), "memberships"));
  CL_TRY(regrow((void **)&s->mwm, o, c, sizeof(double), "memberships"));
  CL_TRY(regrow((void **)&s->mr, 3 * o, 3 * c, sizeof(double), "memberships"));
  CL_TRY(regrow((void **)&s->mnext, o, c, sizeof(int64_t), "memberships"));
  CL_TRY(regrow((void **)&s->orest, o, c, sizeof(double), "memberships"));
  s->mcap = (int64_t)c;
  return CL_OK;
}

cl_status cl_sm_grow_planes(cl_sm *s, int64_t need) {
  if (need <= s->plcap) return CL_OK;
  size_t o = (size_t)s->plcap, c = next_cap(o, (size_t)need);
  CL_TRY(regrow((void **)&s->planes, 4 * o, 4 * c, sizeof(double), "collision planes"));
  s->plcap = (int64_t)c;
  return CL_OK;
}

void cl_sm_particle_weights(cl_sm *s, const cl_body_state *st) {
  for (int32_t i = 0; i < st->n; ++i) s->W[i] = 0.0;
  for (int32_t c = 0; c < s->ncl; ++c) {
    if (!s->alive[c]) continue;
    for (int64_t k = s->moff[c]; k < (int64_t)s->moff[c] + s->mcnt[c]; ++k) s->W[s->mp[k]] += s->mw[k];
  }
}

void cl_sm_cluster_props(cl_sm *s, const cl_body_state *st, int32_t c) {
  const int64_t k0 = s->moff[c], k1 = k0 + s->mcnt[c];
  s->mok[c] = 0; /* weights, mass and rest centre change: the kept member sums are stale */
  double M = 0.0;
  cl_vec3 sum = cl_vec3_zero();
  for (int64_t k = k0; k < k1; ++k) {
    int32_t i = s->mp[k];
    s->mwt[k] = s->mw[k] / s->W[i];
    s->mwm[k] = s->mwt[k] * st->m[i];
    M += s->mwm[k];
    sum = cl_vec3_madd(sum, s->mwm[k], cl_vec3_load(st->X, i));
  }
  s->mass[c] = M;
  cl_vec3 r = M > 0.0 ? cl_vec3_scale(sum, 1.0 / M) : cl_vec3_zero();
  cl_vec3_store(s->rcom, c, r);
  cl_mat3 A = cl_mat3_zero();
  double width = 0.0, pabs = 0.0;
  for (int64_t k = k0; k < k1; ++k) {
    cl_vec3 p = cl_vec3_sub(cl_vec3_load(st->X, s->mp[k]), r);
    cl_vec3_store(s->mr, (int32_t)k, p);
    cl_mat3_add_outer(&A, s->mwm[k], p, p);
    double d = cl_vec3_norm(p);
    s->orest[k] = d;
    if (d > width) width = d;
    pabs += s->mwm[k] * d;
  }
  s->width[c] = width;
  /* the outlier test's rest distance (sm_fracture.c): fmax(|p|, floor) without the library call,
   * NaN handled as fmax does */
  const double floor_c = 0.1 * width;
  for (int64_t k = k0; k < k1; ++k) {
    const double nr = s->orest[k];
    s->orest[k] = nr > floor_c ? nr : (floor_c == floor_c ? floor_c : nr);
  }
  s->pabs[c] = pabs;
  cl_mat3 Ainv;
  cl_status ps = cl_pinv3(&A, s->p.pinv_threshold, &Ainv);
  if (ps < 0) Ainv = cl_mat3_zero();
  memcpy(s->Arr_inv + 9 * (size_t)c, Ainv.m, sizeof Ainv.m);
  /* sec 3.3: "if any of the singular values are thresholded, we set F^p = I" */
  s->clamped[c] = ps != CL_OK;
  if (s->clamped[c]) {
    cl_mat3 I = cl_mat3_identity();
    memcpy(s->Fp + 9 * (size_t)c, I.m, sizeof I.m);
    memcpy(s->Fp_inv + 9 * (size_t)c, I.m, sizeof I.m);
  }
}

/* The reverse index holds `total` entries. */
static cl_status grow_rindex(cl_sm *s, int64_t total) {
  if (total <= s->plist_cap) return CL_OK;
  size_t o = (size_t)s->plist_cap, cap = next_cap(o, (size_t)total);
  CL_TRY(regrow((void **)&s->plist, o, cap, sizeof(int64_t), "reverse index"));
  CL_TRY(regrow((void **)&s->pc, o, cap, sizeof(int32_t), "reverse index"));
  CL_TRY(regrow((void **)&s->pwt, o, cap, sizeof(double), "reverse index"));
  s->plist_cap = (int64_t)cap;
  return CL_OK;
}

cl_status cl_sm_reverse_index(cl_sm *s, int32_t n) {
  int64_t total = 0;
  for (int32_t c = 0; c < s->ncl; ++c)
    if (s->alive[c]) total += s->mcnt[c];
  CL_TRY(grow_rindex(s, total));
  s->memberships = total;
  s->rn = n;
  int32_t *ofs = s->pofs;
  memset(ofs, 0, sizeof(int32_t) * (size_t)(n + 1));
  for (int32_t c = 0; c < s->ncl; ++c) {
    if (!s->alive[c]) continue;
    for (int64_t k = s->moff[c]; k < (int64_t)s->moff[c] + s->mcnt[c]; ++k) ofs[s->mp[k] + 1]++;
  }
  for (int32_t i = 0; i < n; ++i) ofs[i + 1] += ofs[i];
  /* fill in pool order with a moving cursor (acc's first n ints are free scratch here) */
  int32_t *cursor = (int32_t *)s->acc;
  memcpy(cursor, ofs, sizeof(int32_t) * (size_t)n);
  for (int32_t c = 0; c < s->ncl; ++c) {
    if (!s->alive[c]) continue;
    for (int64_t k = s->moff[c]; k < (int64_t)s->moff[c] + s->mcnt[c]; ++k) {
      int32_t a = cursor[s->mp[k]]++;
      s->plist[a] = k;
      s->pc[a] = c;
      s->pwt[a] = s->mwt[k];
    }
  }
  return CL_OK;
}

cl_status cl_sm_bonds(cl_sm *s, cl_body_state *st) {
  int64_t nb = 0;
  for (int32_t c = 0; c < s->ncl; ++c)
    if (s->alive[c] && s->mcnt[c] > 1) nb += s->mcnt[c] - 1;
  if (nb > INT32_MAX / 8) return cl_fail(CL_ERR_OUT_OF_MEMORY, "solver 'shape_matching': too many bonds");
  CL_TRY(cl_body_state_reserve_cells(st, 2, (int32_t)(nb > 0 ? nb : 1)));
  int64_t b = 0;
  for (int32_t c = 0; c < s->ncl; ++c) {
    s->bofs[c] = (int32_t)b; /* where the cluster's bonds start, for cl_sm_bonds_update */
    if (!s->alive[c] || s->mcnt[c] < 2) continue;
    int32_t first = s->mp[s->moff[c]];
    for (int64_t k = (int64_t)s->moff[c] + 1; k < (int64_t)s->moff[c] + s->mcnt[c]; ++k) {
      st->cells[2 * b] = first;
      st->cells[2 * b + 1] = s->mp[k];
      ++b;
    }
  }
  st->ncells = (int32_t)b;
  s->bofs[s->ncl] = (int32_t)b;
  s->bncl = s->ncl;
  return CL_OK;
}

/* Jones et al. 2015 trim a cluster's collision sphere where the body ends: along the principal
 * axes of the cluster's rest positions, a side on which the members reach less than `thr` r from
 * the sphere centre gets the half-space bounded by the outermost member. */
cl_status cl_sm_boundary_planes(cl_sm *s, const cl_body_state *st) {
  double thr = s->p.boundary_planes;
  for (int32_t c = 0; c < s->ncl; ++c) {
    s->ploff[c] = (int32_t)s->pltop;
    s->plcnt[c] = 0;
    if (!s->alive[c] || !(thr > 0.0) || s->mcnt[c] < 1) continue;
    const int64_t k0 = s->moff[c], k1 = k0 + s->mcnt[c];
    cl_vec3 r = cl_vec3_load(s->rcom, c);
    cl_mat3 C = cl_mat3_zero();
    for (int64_t k = k0; k < k1; ++k) {
      cl_vec3 p = cl_vec3_sub(cl_vec3_load(st->X, s->mp[k]), r);
      cl_mat3_add_outer(&C, 1.0, p, p);
    }
    cl_vec3 ev;
    cl_mat3 Q;
    if (cl_eig_sym3(&C, &ev, &Q) < 0) continue;
    cl_vec3 cen = cl_vec3_load(s->pcen, c);
    for (int a = 0; a < 3; ++a) {
      cl_vec3 nrm = cl_mat3_col(&Q, a);
      double lo = INFINITY, hi = -INFINITY;
      for (int64_t k = k0; k < k1; ++k) {
        double d = cl_vec3_dot(nrm, cl_vec3_load(st->X, s->mp[k]));
        if (d < lo) lo = d;
        if (d > hi) hi = d;
      }
      double mid = cl_vec3_dot(nrm, cen);
      double lim = thr * s->radius[c];
      for (int side = 0; side < 2; ++side) {
        double reach = side == 0 ? hi - mid : mid - lo;
        if (!(reach < lim)) continue;
        CL_TRY(cl_sm_grow_planes(s, s->pltop + 1));
        double *pl = s->planes + 4 * s->pltop;
        double sg = side == 0 ? 1.0 : -1.0;
        pl[0] = sg * nrm.x;
        pl[1] = sg * nrm.y;
        pl[2] = sg * nrm.z;
        pl[3] = side == 0 ? -hi : lo; /* inside: n . X + d <= 0 */
        s->pltop++;
        s->plcnt[c]++;
      }
    }
  }
  return CL_OK;
}

void cl_sm_link_lists(cl_sm *s, int32_t n) {
  for (int32_t i = 0; i < n; ++i) {
    s->phead[i] = -1;
    s->pnm[i] = 0;
  }
  /* walk the pool backwards so each list comes out in pool order */
  for (int32_t c = s->ncl - 1; c >= 0; --c) {
    if (!s->alive[c]) continue;
    for (int64_t k = (int64_t)s->moff[c] + s->mcnt[c] - 1; k >= s->moff[c]; --k) {
      int32_t i = s->mp[k];
      s->mnext[k] = s->phead[i];
      s->phead[i] = k;
      s->pnm[i]++;
    }
  }
}

cl_status cl_sm_add_sibling(cl_sm *s, int32_t a, int32_t b) {
  if (s->nsib + 1 > s->sibcap) {
    size_t o = (size_t)s->sibcap, c = next_cap(o, (size_t)s->nsib + 1);
    CL_TRY(regrow((void **)&s->sib, 2 * o, 2 * c, sizeof(int32_t), "cluster pairs"));
    s->sibcap = (int64_t)c;
  }
  s->sib[2 * s->nsib] = a;
  s->sib[2 * s->nsib + 1] = b;
  s->nsib++;
  return CL_OK;
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* Split siblings per cluster (CSR, sorted): the two halves of a split do not collide. Clusters
 * that share a particle are in the same piece, and proxies act between pieces only, so they need no
 * list. */
cl_status cl_sm_adjacency(cl_sm *s, int32_t n) {
  (void)n;
  int32_t ncl = s->ncl;
  int32_t *cnt = s->cadj_ofs;
  memset(cnt, 0, sizeof(int32_t) * (size_t)(ncl + 1));
  for (int64_t e = 0; e < s->nsib; ++e) {
    cnt[s->sib[2 * e] + 1]++;
    cnt[s->sib[2 * e + 1] + 1]++;
  }
  for (int32_t c = 0; c < ncl; ++c) cnt[c + 1] += cnt[c];
  int64_t total = cnt[ncl];
  if (total > s->cadj_cap) {
    size_t o = (size_t)s->cadj_cap, c = next_cap(o, (size_t)total);
    CL_TRY(regrow((void **)&s->cadj, o, c, sizeof(int32_t), "cluster siblings"));
    s->cadj_cap = (int64_t)c;
  }
  int32_t *cur = s->stamp; /* free scratch here */
  memcpy(cur, cnt, sizeof(int32_t) * (size_t)ncl);
  for (int64_t e = 0; e < s->nsib; ++e) {
    int32_t a = s->sib[2 * e], b = s->sib[2 * e + 1];
    s->cadj[cur[a]++] = b;
    s->cadj[cur[b]++] = a;
  }
  for (int32_t c = 0; c < ncl; ++c) {
    int32_t len = cnt[c + 1] - cnt[c];
    if (len > 16) {
      qsort(s->cadj + cnt[c], (size_t)len, sizeof(int32_t), cmp_i32);
    } else if (len > 1) {
      /* most lists hold a few siblings: insertion sort gives the same sorted list without qsort's
       * call overhead (and, the lists being in pair order already, see cl_sm_adjacency_update, it
       * only checks them) */
      int32_t *v = s->cadj + cnt[c];
      for (int32_t a = 1; a < len; ++a) {
        int32_t x = v[a], b = a;
        for (; b > 0 && v[b - 1] > x; --b) v[b] = v[b - 1];
        v[b] = x;
      }
    }
    s->stamp[c] = 0;
  }
  s->ancl = ncl;
  s->asib = s->nsib;
  return CL_OK;
}

/* Sibling lists in place. A pair (c, c2) is recorded when c2 = ncl is created, so every pair adds
 * to c's list a slot larger than all before it, and a new cluster's list starts with its parent,
 * smaller than itself: each list in pair order is already sorted. The update therefore moves each
 * list up by the number of new entries below it (from the last cluster down, stopping where
 * nothing moves any more) and appends the new pairs in order. */
cl_status cl_sm_adjacency_update(cl_sm *s) {
  const int32_t ncl = s->ncl, c0 = s->ancl;
  const int64_t e0 = s->asib, e1 = s->nsib;
  if (c0 > ncl || e0 > e1) return cl_sm_adjacency(s, 0);
  int32_t *ofs = s->cadj_ofs, *grow = s->agrow;
  const int32_t old_total = ofs[c0];
  const int64_t total = old_total + 2 * (e1 - e0);
  if (total > INT32_MAX) return cl_fail(CL_ERR_OUT_OF_MEMORY, "solver 'shape_matching': %lld cluster siblings", (long long)total);
  if (total > s->cadj_cap) {
    size_t o = (size_t)s->cadj_cap, c = next_cap(o, (size_t)total);
    CL_TRY(regrow((void **)&s->cadj, o, c, sizeof(int32_t), "cluster siblings"));
    s->cadj_cap = (int64_t)c;
  }
  for (int64_t e = e0; e < e1; ++e) {
    grow[s->sib[2 * e]]++;
    grow[s->sib[2 * e + 1]]++;
  }
  int32_t *adj = s->cadj;
  int32_t cum = (int32_t)(total - old_total); /* new entries in clusters 0..c */
  int32_t end_old = old_total;                /* old end of cluster c's list */
  ofs[ncl] = (int32_t)total;
  for (int32_t c = ncl - 1; c >= 0; --c) {
    const int32_t start_old = c < c0 ? ofs[c] : old_total, had = end_old - start_old;
    const int32_t g = grow[c];
    cum -= g;
    const int32_t start = start_old + cum;
    if (cum > 0 && had > 0) memmove(adj + start, adj + start_old, sizeof(int32_t) * (size_t)had);
    if (g > 0) grow[c] = start + had; /* where its new entries go */
    ofs[c] = start;
    end_old = start_old;
    if (cum == 0 && c <= c0) break; /* the lists below did not move */
  }
  for (int64_t e = e0; e < e1; ++e) {
    const int32_t a = s->sib[2 * e], b = s->sib[2 * e + 1];
    adj[grow[a]++] = b;
    adj[grow[b]++] = a;
  }
  for (int64_t e = e0; e < e1; ++e) grow[s->sib[2 * e]] = grow[s->sib[2 * e + 1]] = 0;
  s->ancl = ncl;
  s->asib = e1;
  return CL_OK;
}

/* After a piece numbering (cpiece 0..npieces-1, -1 for no piece): which clusters are alone in their
 * piece (calone), counting the clusters per piece in uf (free once the labels are set). */
static void mark_alone(cl_sm *s) {
  int32_t *count = s->uf;
  for (int32_t l = 0; l < s->npieces; ++l) count[l] = 0;
  for (int32_t c = 0; c < s->ncl; ++c)
    if (s->cpiece[c] >= 0) count[s->cpiece[c]]++;
  for (int32_t c = 0; c < s->ncl; ++c) s->calone[c] = s->cpiece[c] >= 0 && count[s->cpiece[c]] == 1;
}

cl_status cl_sm_pieces(cl_sm *s, const cl_body_state *st) {
  if (st->n > s->plabel_cap) {
    CL_TRY(CL_RESIZE(s->plabel, (size_t)st->n, "shape matching: piece labels"));
    s->plabel_cap = st->n;
  }
  int32_t count = 0;
  CL_TRY(cl_components(st->n, st->cells, st->ncells, 2, s->plabel, &count));
  /* pieces holding clusters: debris particles are components of their own */
  int32_t pieces = 0;
  for (int32_t c = 0; c < s->ncl; ++c) {
    s->cpiece[c] = -1;
    if (s->alive[c] && s->mcnt[c] > 0) s->cpiece[c] = s->plabel[s->mp[s->moff[c]]];
  }
  /* number the components holding clusters 0..pieces-1 in slot order of first appearance (labels
   * are 0..count-1), the numbering of cl_sm_pieces_from_lists and cl_sm_pieces_update */
  for (int32_t l = 0; l < count; ++l) s->plabel[l] = -1;
  for (int32_t c = 0; c < s->ncl; ++c) {
    const int32_t l = s->cpiece[c];
    if (l < 0) continue;
    if (s->plabel[l] < 0) s->plabel[l] = pieces++;
    s->cpiece[c] = s->plabel[l];
  }
  s->npieces = pieces;
  s->pncl = s->ncl;
  mark_alone(s);
  return CL_OK;
}

static int32_t uf_find(int32_t *parent, int32_t c) {
  while (parent[c] != c) {
    parent[c] = parent[parent[c]]; /* path halving */
    c = parent[c];
  }
  return c;
}

/* Joins cluster c, whose set has root r, to the set of the first cluster seen holding each of its
 * members (owner[i] < 0: none yet, and c becomes the owner). The lower root wins, so every root is
 * its set's lowest slot. */
static void join_members(const cl_sm *s, int32_t *parent, int32_t *owner, int32_t c, int32_t r) {
  for (int64_t k = s->moff[c]; k < (int64_t)s->moff[c] + s->mcnt[c]; ++k) {
    const int32_t i = s->mp[k];
    if (owner[i] < 0) {
      owner[i] = c;
      continue;
    }
    int32_t d = uf_find(parent, owner[i]);
    if (d == r) continue;
    if (d < r) {
      parent[r] = d;
      r = d;
    } else {
      parent[d] = r;
    }
  }
}

/* Pieces without the bonds: cl_sm_pieces labels the particles through every bond (a union-find
 * over all particles, then passes over them), but two clusters are in one piece exactly when a
 * chain of shared particles joins them, so a union-find over the cluster slots, joining each
 * cluster to the first cluster seen holding each of its members, gives the same partition of the
 * clusters in O(slots + memberships). The pool is read in order and the per-particle array (plabel,
 * 4 bytes a particle) stays in cache, where walking the membership lists would jump through the
 * pool. The root of a set is its lowest slot, so numbering the roots in slot order gives each
 * cluster its label in one ascending pass. */
static cl_status grow_plabel(cl_sm *s, int32_t n) {
  if (n <= s->plabel_cap) return CL_OK;
  int64_t want = (int64_t)n + n / 4 + 64; /* headroom: fracture adds particles every step */
  int32_t cap = want > INT32_MAX ? INT32_MAX : (int32_t)want;
  CL_TRY(CL_RESIZE(s->plabel, (size_t)cap, "shape matching: piece labels"));
  s->plabel_cap = cap;
  return CL_OK;
}

cl_status cl_sm_pieces_from_lists(cl_sm *s, int32_t n) {
  CL_TRY(grow_plabel(s, n));
  int32_t *owner = s->plabel, *parent = s->uf;
  for (int32_t i = 0; i < n; ++i) owner[i] = -1;
  for (int32_t c = 0; c < s->ncl; ++c) {
    parent[c] = c;
    if (!s->alive[c]) continue;
    join_members(s, parent, owner, c, c); /* c is its set's root: it joins only lower slots */
  }
  int32_t pieces = 0;
  for (int32_t c = 0; c < s->ncl; ++c) {
    s->cpiece[c] = -1;
    if (!s->alive[c] || s->mcnt[c] <= 0) continue;
    int32_t r = uf_find(parent, c);
    /* r <= c is a live cluster with members: labelled already */
    s->cpiece[c] = r == c ? pieces++ : s->cpiece[r];
  }
  s->npieces = pieces;
  s->pncl = s->ncl;
  mark_alone(s);
  return CL_OK;
}

/* Incremental pieces. A fracture only takes memberships away (a split divides a cluster, eq 15 and
 * the outlier step move memberships to new particles, deletion drops them), so pieces only split,
 * and only where a cluster changed: every change of a membership marks its cluster (cdirty). The
 * clusters of the pieces holding a marked cluster, and the new clusters (split from marked ones),
 * are joined again as in cl_sm_pieces_from_lists; every other piece keeps its clusters. Late in a
 * brittle run a step touches a few pieces of hundreds. One pass in slot order then numbers the
 * pieces by their lowest slots, as the full computation does. */
cl_status cl_sm_pieces_update(cl_sm *s, int32_t n) {
  const int32_t c0 = s->pncl, ncl = s->ncl;
  if (c0 <= 0 || c0 > ncl) return cl_sm_pieces_from_lists(s, n);
  CL_TRY(grow_plabel(s, n));
  int32_t *owner = s->plabel, *parent = s->uf, *map = s->pmap, *lab = s->cpiece;
  const int32_t np = s->npieces;
  if (np < 0 || np > c0) return cl_sm_pieces_from_lists(s, n);
  for (int32_t l = 0; l < np; ++l) map[l] = -1;
  for (int32_t t = 0; t < s->cdcount; ++t) {
    const int32_t c = s->cdlist[t];
    if (c >= c0 || lab[c] < 0) continue;
    if (lab[c] >= np) return cl_sm_pieces_from_lists(s, n); /* not labels of this numbering */
    map[lab[c]] = -2; /* a piece to join again */
  }
  /* parent >= 0: the cluster takes part (a union-find root or child); -1: its piece is kept */
  for (int32_t c = 0; c < ncl; ++c) {
    if (c < c0 && lab[c] >= np) return cl_sm_pieces_from_lists(s, n);
    parent[c] = c >= c0 || (lab[c] >= 0 && map[lab[c]] == -2) ? c : -1;
    if (parent[c] < 0 || !s->alive[c]) continue;
    for (int64_t k = s->moff[c]; k < (int64_t)s->moff[c] + s->mcnt[c]; ++k) owner[s->mp[k]] = -1;
  }
  for (int32_t c = 0; c < ncl; ++c) {
    if (parent[c] < 0 || !s->alive[c]) continue;
    join_members(s, parent, owner, c, uf_find(parent, c));
  }
  int32_t pieces = 0;
  for (int32_t c = 0; c < ncl; ++c) {
    if (!s->alive[c] || s->mcnt[c] <= 0) {
      lab[c] = -1;
      continue;
    }
    if (parent[c] >= 0) {
      const int32_t r = uf_find(parent, c);
      lab[c] = r == c ? pieces++ : lab[r]; /* r < c is labelled already */
    } else {
      const int32_t l = lab[c];
      if (map[l] < 0) map[l] = pieces++;
      lab[c] = map[l];
    }
  }
  s->npieces = pieces;
  s->pncl = ncl;
  mark_alone(s);
  return CL_OK;
}

void cl_sm_relink_marked(cl_sm *s) {
  for (int32_t t = 0; t < s->tdcount; ++t) {
    const int32_t i = s->tdlist[t];
    /* insertion sort of the (short) list by pool index: ascending pool index is pool order, and
     * since live clusters' ranges lie in slot order it is also cluster order */
    int64_t head = -1;
    for (int64_t k = s->phead[i]; k >= 0;) {
      const int64_t next = s->mnext[k];
      int64_t *at = &head;
      while (*at >= 0 && *at < k) at = &s->mnext[*at];
      s->mnext[k] = *at;
      *at = k;
      k = next;
    }
    s->phead[i] = head;
  }
}

void cl_sm_clear_marks(cl_sm *s) {
  for (int32_t t = 0; t < s->tdcount; ++t) s->tdirty[s->tdlist[t]] = 0;
  s->tdcount = 0;
  for (int32_t t = 0; t < s->cdcount; ++t) s->cdirty[s->cdlist[t]] = 0;
  s->cdcount = 0;
}

/* First marked index in [i, end), or end: eight marks per test over the long unmarked stretches. */
static int32_t next_marked(const uint8_t *mark, int32_t i, int32_t end) {
  while (i < end && (i & 7)) {
    if (mark[i]) return i;
    ++i;
  }
  for (; i + 8 <= end; i += 8) {
    uint64_t w;
    memcpy(&w, mark + i, sizeof w);
    if (w) break;
  }
  while (i < end && !mark[i]) ++i;
  return i;
}

/* Writes particle i's reverse-index entries from its membership list, from entry a on; returns the
 * entry after its last. */
static int32_t write_entries(cl_sm *s, int32_t i, int32_t a) {
  for (int64_t k = s->phead[i]; k >= 0; k = s->mnext[k], ++a) {
    s->plist[a] = k;
    s->pc[a] = s->mc[k];
    s->pwt[a] = s->mwt[k];
  }
  return a;
}

/* The reverse index in place. A particle that existed at the last build never gains memberships
 * (a split moves its members within the pool, eq 15 and the outlier step move some of them to a
 * new particle, deletion drops some), so its new entries start at or before its old ones and one
 * left-to-right pass can move every unmarked run down by the entries dropped before it (nothing
 * to move before the first drop) and rewrite each marked particle from its list; new particles,
 * last in index order, are appended. Any count that breaks this or the total (a change the marks
 * missed) falls back to the rebuild from scratch. */
cl_status cl_sm_reverse_index_update(cl_sm *s, int32_t n) {
  const int32_t n0 = s->rn < n ? s->rn : n;
  int32_t *ofs = s->pofs;
  const int32_t old_total = ofs[n0];
  int64_t add = 0;
  for (int32_t i = n0; i < n; ++i) add += s->pnm[i];
  if ((int64_t)old_total + add > INT32_MAX)
    return cl_fail(CL_ERR_OUT_OF_MEMORY, "solver 'shape_matching': %lld memberships", (long long)(old_total + add));
  CL_TRY(grow_rindex(s, (int64_t)old_total + add));
  int64_t *plist = s->plist;
  int32_t *pc = s->pc;
  double *pwt = s->pwt;
  int32_t shift = 0; /* entries dropped before particle i */
  for (int32_t i = 0; i < n0;) {
    const int32_t j = next_marked(s->tdirty, i, n0);
    if (shift > 0 && j > i) {
      const int32_t a0 = ofs[i], len = ofs[j] - a0;
      memmove(plist + a0 - shift, plist + a0, sizeof(int64_t) * (size_t)len);
      memmove(pc + a0 - shift, pc + a0, sizeof(int32_t) * (size_t)len);
      memmove(pwt + a0 - shift, pwt + a0, sizeof(double) * (size_t)len);
      for (int32_t t = i; t < j; ++t) ofs[t] -= shift;
    }
    if (j >= n0) break;
    const int32_t a0 = ofs[j], had = ofs[j + 1] - a0, has = s->pnm[j];
    if (has > had) goto rebuild;
    ofs[j] = a0 - shift;
    write_entries(s, j, ofs[j]);
    shift += had - has;
    i = j + 1;
  }
  ofs[n0] = old_total - shift;
  for (int32_t i = n0; i < n; ++i) {
    ofs[i + 1] = write_entries(s, i, ofs[i]);
  }
  int64_t total = 0;
  for (int32_t c = 0; c < s->ncl; ++c)
    if (s->alive[c]) total += s->mcnt[c];
  if (ofs[n] != total) goto rebuild;
  s->memberships = total;
  s->rn = n;
  return CL_OK;
rebuild:
  cl_sm_link_lists(s, n);
  return cl_sm_reverse_index(s, n);
}

/* Bonds of cluster c: a star from its first member, so mcnt - 1 of a live cluster. */
static int32_t bond_count(const cl_sm *s, int32_t c) { return s->alive[c] && s->mcnt[c] > 1 ? s->mcnt[c] - 1 : 0; }

static void write_star(const cl_sm *s, int32_t *cells, int32_t c) {
  const int64_t k0 = s->moff[c], k1 = k0 + s->mcnt[c];
  const int32_t first = s->mp[k0];
  for (int64_t k = k0 + 1; k < k1; ++k, cells += 2) {
    cells[0] = first;
    cells[1] = s->mp[k];
  }
}

/* The bonds in place, as the reverse index: a cluster that existed at the last build only loses
 * members or dies, so unmarked runs move down and marked clusters are rewritten; new clusters, last
 * in slot order, are appended. The result is cl_sm_bonds' (the world's pieces and output read
 * them); anything unexpected falls back to it. */
cl_status cl_sm_bonds_update(cl_sm *s, cl_body_state *st) {
  const int32_t c0 = s->bncl < s->ncl ? s->bncl : s->ncl;
  int32_t *bo = s->bofs;
  const int32_t old_total = bo[c0];
  if (st->cell_size != 2 || st->ncells != old_total || s->bncl > s->ncl) return cl_sm_bonds(s, st);
  int64_t add = 0;
  for (int32_t c = c0; c < s->ncl; ++c) add += bond_count(s, c);
  if ((int64_t)old_total + add > INT32_MAX / 8) return cl_fail(CL_ERR_OUT_OF_MEMORY, "solver 'shape_matching': too many bonds");
  CL_TRY(cl_body_state_reserve_cells(st, 2, (int32_t)(old_total + add > 0 ? old_total + add : 1)));
  int32_t *cells = st->cells;
  int32_t shift = 0;
  for (int32_t c = 0; c < c0;) {
    const int32_t d = next_marked(s->cdirty, c, c0);
    if (shift > 0 && d > c) {
      const int32_t b0 = bo[c], len = bo[d] - b0;
      memmove(cells + 2 * (b0 - shift), cells + 2 * b0, sizeof(int32_t) * 2 * (size_t)len);
      for (int32_t t = c; t < d; ++t) bo[t] -= shift;
    }
    if (d >= c0) break;
    const int32_t b0 = bo[d], had = bo[d + 1] - b0, has = bond_count(s, d);
    if (has > had) return cl_sm_bonds(s, st);
    bo[d] = b0 - shift;
    if (has > 0) write_star(s, cells + 2 * (size_t)bo[d], d);
    shift += had - has;
    c = d + 1;
  }
  bo[c0] = old_total - shift;
  for (int32_t c = c0; c < s->ncl; ++c) {
    const int32_t has = bond_count(s, c);
    if (has > 0) write_star(s, cells + 2 * (size_t)bo[c], c);
    bo[c + 1] = bo[c] + has;
  }
  st->ncells = bo[s->ncl];
  s->bncl = s->ncl;
  return CL_OK;
}
