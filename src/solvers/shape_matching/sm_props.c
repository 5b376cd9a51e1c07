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

/* realloc of *p from `old` to `cap` elements of `size` bytes, zeroing the new part */
static cl_status regrow(void **p, size_t old, size_t cap, size_t size, const char *what) {
  size_t bytes = cap * size;
  void *q = realloc(*p, bytes > 0 ? bytes : 1);
  if (!q) return cl_fail(CL_ERR_OUT_OF_MEMORY, "solver 'shape_matching': out of memory growing %s", what);
  if (cap > old) memset((char *)q + old * size, 0, (cap - old) * size);
  *p = q;
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
  CL_TRY(regrow((void **)&s->mark, old, cap, sizeof(uint8_t), "particle flags"));
  CL_TRY(regrow((void **)&s->sl_list, 2 * old, 2 * cap, sizeof(int32_t), "particle lists"));
  CL_TRY(regrow((void **)&s->xold, 3 * old, 3 * cap, sizeof(double), "particle scratch"));
  CL_TRY(regrow((void **)&s->pdisp, old, cap, sizeof(double), "particle scratch"));
  CL_TRY(regrow((void **)&s->vold, 3 * old, 3 * cap, sizeof(double), "particle scratch"));
  CL_TRY(regrow((void **)&s->acc, 3 * old, 3 * cap, sizeof(double), "particle scratch"));
  CL_TRY(regrow((void **)&s->dsum, 3 * old, 3 * cap, sizeof(double), "particle scratch"));
  CL_TRY(regrow((void **)&s->dvsh, 3 * old, 3 * cap, sizeof(double), "particle scratch"));
  CL_TRY(regrow((void **)&s->xmeas, 3 * old, 3 * cap, sizeof(double), "particle scratch"));
  CL_TRY(regrow((void **)&s->pofs, old + 1, cap + 1, sizeof(int32_t), "reverse index"));
  CL_TRY(regrow((void **)&s->phead, old, cap, sizeof(int64_t), "membership lists"));
  CL_TRY(regrow((void **)&s->pnm, old, cap, sizeof(int32_t), "membership lists"));
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
    if (d > width) width = d;
    pabs += s->mwm[k] * d;
  }
  s->width[c] = width;
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

cl_status cl_sm_reverse_index(cl_sm *s, int32_t n) {
  int64_t total = 0;
  for (int32_t c = 0; c < s->ncl; ++c)
    if (s->alive[c]) total += s->mcnt[c];
  if (total > s->plist_cap) {
    size_t o = (size_t)s->plist_cap, cap = next_cap(o, (size_t)total);
    CL_TRY(regrow((void **)&s->plist, o, cap, sizeof(int64_t), "reverse index"));
    CL_TRY(regrow((void **)&s->pc, o, cap, sizeof(int32_t), "reverse index"));
    CL_TRY(regrow((void **)&s->pwt, o, cap, sizeof(double), "reverse index"));
    s->plist_cap = (int64_t)cap;
  }
  s->memberships = total;
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
    if (!s->alive[c] || s->mcnt[c] < 2) continue;
    int32_t first = s->mp[s->moff[c]];
    for (int64_t k = (int64_t)s->moff[c] + 1; k < (int64_t)s->moff[c] + s->mcnt[c]; ++k) {
      st->cells[2 * b] = first;
      st->cells[2 * b + 1] = s->mp[k];
      ++b;
    }
  }
  st->ncells = (int32_t)b;
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
    if (cnt[c + 1] - cnt[c] > 1) qsort(s->cadj + cnt[c], (size_t)(cnt[c + 1] - cnt[c]), sizeof(int32_t), cmp_i32);
    s->stamp[c] = 0;
  }
  return CL_OK;
}

cl_status cl_sm_pieces(cl_sm *s, const cl_body_state *st) {
  if (st->n > s->plabel_cap) {
    int32_t *l = realloc(s->plabel, sizeof(int32_t) * (size_t)st->n);
    if (!l) return cl_fail(CL_ERR_OUT_OF_MEMORY, "solver 'shape_matching': out of memory (pieces)");
    s->plabel = l;
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
  /* count distinct labels among clusters (labels are 0..count-1) */
  for (int32_t i = 0; i < st->n; ++i) s->plabel[i] = 0;
  for (int32_t c = 0; c < s->ncl; ++c)
    if (s->cpiece[c] >= 0 && !s->plabel[s->cpiece[c]]) {
      s->plabel[s->cpiece[c]] = 1;
      ++pieces;
    }
  s->npieces = pieces;
  return CL_OK;
}
