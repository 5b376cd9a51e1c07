/* Cluster proxies for collisions between pieces (paper sec 3.1 "Collision Handling", after Jones,
 * Martin, Levine, Shinar and Bargteil, MIG 2015): each cluster's proxy is a sphere in rest
 * coordinates (centre: the fuzzy c-means centre, radius: the cluster radius) intersected with
 * half-spaces: the planes where the body ends (boundary_planes) and the crack plane of every split
 * that made the cluster (sm_fracture.c). A particle of cluster c that comes inside the proxy of a
 * cluster d of another piece (and that was not split from c, which would make the two halves of a
 * crack repel) is carried into d's rest frame, X = r_d + F_d^-1 (x - x_d), pushed
 * to the nearest point of the proxy's surface (sphere or plane), carried back with F_d and moved
 * `restitution` of the way there; as in the authors' code, the radial projection onto d's world
 * bounding sphere is taken instead when that is nearer. Its velocity changes by the same
 * displacement / dt, as every position correction of the step does. Clusters with fewer than 10
 * members have no proxy (they are unreliable and small).
 *
 * Proxies act between different pieces of the body (connected components of the cluster graph), as
 * the issue asks: an intact body keeps the paper's dynamics exactly (and its momentum), and the
 * contact of a piece with itself (a folding sheet) is not handled. Contact between different bodies
 * would need the world to hand one body's proxies to another's solver, which the solver interface
 * does not do.
 *
 * Pairs are found with a sweep over the clusters' world bounding spheres and handled in a fixed
 * order, so the result does not depend on the thread count. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/shape_matching/sm_internal.h"

enum { SM_PROXY_MIN_MEMBERS = 10 };

static int adjacent(const cl_sm *s, int32_t c, int32_t d) {
  int32_t lo = s->cadj_ofs[c], hi = s->cadj_ofs[c + 1];
  while (lo < hi) {
    int32_t mid = (lo + hi) / 2;
    if (s->cadj[mid] < d) lo = mid + 1;
    else hi = mid;
  }
  return lo < s->cadj_ofs[c + 1] && s->cadj[lo] == d;
}

/* Push particle i out of the proxy of cluster d; returns 1 when it moved. */
static int push_out(cl_sm *s, cl_body_state *st, int32_t i, int32_t d, double dt) {
  double *x = st->x + 3 * (size_t)i;
  cl_vec3 xi = cl_vec3_make(x[0], x[1], x[2]);
  cl_vec3 com = cl_vec3_load(s->wcom, d);
  cl_vec3 r = cl_vec3_sub(xi, com);
  double dist = cl_vec3_norm(r);
  if (!(dist < s->wrad[d]) || !(dist > 0.0)) return 0;
  cl_mat3 F, Fi;
  memcpy(F.m, s->F + 9 * (size_t)d, sizeof F.m);
  memcpy(Fi.m, s->Finv + 9 * (size_t)d, sizeof Fi.m);
  cl_vec3 rc = cl_vec3_load(s->rcom, d);
  cl_vec3 X = cl_vec3_add(rc, cl_mat3_mul_vec(&Fi, r));
  cl_vec3 cen = cl_vec3_load(s->pcen, d);
  cl_vec3 off = cl_vec3_sub(X, cen);
  double ro = cl_vec3_norm(off), R = s->radius[d];
  if (!(ro < R)) return 0;
  /* nearest exit in rest coordinates: the sphere, or one of the planes */
  double best = R - ro;
  cl_vec3 Y = ro > 0.0 ? cl_vec3_add(cen, cl_vec3_scale(off, R / ro)) : cl_vec3_add(cen, cl_vec3_make(R, 0, 0));
  for (int32_t a = 0; a < s->plcnt[d]; ++a) {
    const double *pl = s->planes + 4 * ((int64_t)s->ploff[d] + a);
    double h = pl[0] * X.x + pl[1] * X.y + pl[2] * X.z + pl[3];
    if (h >= 0.0) return 0; /* outside this half-space: outside the proxy */
    if (-h < best) {
      best = -h;
      Y = cl_vec3_madd(X, -h, cl_vec3_make(pl[0], pl[1], pl[2]));
    }
  }
  cl_vec3 target = cl_vec3_add(com, cl_mat3_mul_vec(&F, cl_vec3_sub(Y, rc)));
  cl_vec3 radial = cl_vec3_madd(com, s->wrad[d] / dist, r);
  if (cl_vec3_norm2(cl_vec3_sub(radial, xi)) < cl_vec3_norm2(cl_vec3_sub(target, xi))) target = radial;
  cl_vec3 dx = cl_vec3_scale(cl_vec3_sub(target, xi), s->p.restitution);
  double *v = st->v + 3 * (size_t)i;
  x[0] += dx.x;
  x[1] += dx.y;
  x[2] += dx.z;
  v[0] += dx.x / dt;
  v[1] += dx.y / dt;
  v[2] += dx.z / dt;
  return 1;
}

static void push_members(cl_sm *s, cl_body_state *st, int32_t c, int32_t d, double dt) {
  /* most members of an overlapping pair lie outside d's world sphere: reject them on the squared
   * distance with a margin well above rounding, so push_out's exact test decides the rest as before */
  const double *cd = s->wcom + 3 * (size_t)d;
  const double far2 = s->wrad[d] * s->wrad[d] * (1.0 + 1e-9);
  for (int64_t k = s->moff[c]; k < (int64_t)s->moff[c] + s->mcnt[c]; ++k) {
    int32_t i = s->mp[k];
    const double *x = st->x + 3 * (size_t)i;
    double dx = x[0] - cd[0], dy = x[1] - cd[1], dz = x[2] - cd[2];
    if (dx * dx + dy * dy + dz * dz >= far2) continue;
    if (s->held[i]) continue;
    push_out(s, st, i, d, dt);
  }
}

typedef struct span {
  double lo;
  int32_t c;
} span;

static int by_lo(const void *a, const void *b) {
  const span *x = a, *y = b;
  if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
  return (x->c > y->c) - (x->c < y->c);
}

void cl_sm_self_collide(cl_sm *s, cl_body_state *st, double dt) {
  const int32_t ncl = s->ncl;
  /* current centre, F, F^-1 and world radius of every cluster with a proxy */
#pragma omp parallel for num_threads(s->threads) schedule(dynamic, 4) if (ncl >= 64)
  for (int32_t c = 0; c < ncl; ++c) {
    s->wrad[c] = -1.0;
    if (!s->alive[c] || s->mcnt[c] < SM_PROXY_MIN_MEMBERS) continue;
    double com[3];
    cl_mat3 F, Fi;
    cl_sm_cluster_F(s, st, c, com, &F);
    if (cl_mat3_inverse(&F, &Fi) != CL_OK) continue;
    double r2 = 0.0;
    for (int64_t k = s->moff[c]; k < (int64_t)s->moff[c] + s->mcnt[c]; ++k) {
      const double *x = st->x + 3 * (size_t)s->mp[k];
      double dx = x[0] - com[0], dy = x[1] - com[1], dz = x[2] - com[2];
      r2 = fmax(r2, dx * dx + dy * dy + dz * dz);
    }
    memcpy(s->wcom + 3 * (size_t)c, com, sizeof com);
    memcpy(s->F + 9 * (size_t)c, F.m, sizeof F.m);
    memcpy(s->Finv + 9 * (size_t)c, Fi.m, sizeof Fi.m);
    s->wrad[c] = sqrt(r2);
  }
  /* sweep along x over the bounding spheres */
  _Static_assert(sizeof(span) <= 2 * sizeof(double), "span fits the per-cluster scratch");
  span *sp = s->spans;
  int32_t m = 0;
  for (int32_t c = 0; c < ncl; ++c)
    if (s->wrad[c] > 0.0) {
      sp[m].lo = s->wcom[3 * (size_t)c] - s->wrad[c];
      sp[m].c = c;
      ++m;
    }
  qsort(sp, (size_t)m, sizeof *sp, by_lo);
  for (int32_t a = 0; a < m; ++a) {
    int32_t c = sp[a].c;
    double hi = s->wcom[3 * (size_t)c] + s->wrad[c];
    for (int32_t b = a + 1; b < m && sp[b].lo <= hi; ++b) {
      int32_t d = sp[b].c;
      double rr = s->wrad[c] + s->wrad[d];
      if (cl_vec3_norm2(cl_vec3_sub(cl_vec3_load(s->wcom, c), cl_vec3_load(s->wcom, d))) >= rr * rr) continue;
      if (s->cpiece[c] == s->cpiece[d] || adjacent(s, c, d)) continue;
      push_members(s, st, c, d, dt);
      push_members(s, st, d, c, dt);
    }
  }
}
