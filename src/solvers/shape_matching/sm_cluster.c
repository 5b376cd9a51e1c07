/* Overlapping clusters by the fuzzy c-means variant of Jones, Martin, Levine, Shinar and Bargteil
 * ("Clustering and collision detection for clustered shape matching", MIG 2015), which the paper
 * uses (sec 3.1, "Clustering"):
 *   1. k centres start at k distinct particles drawn with the world's seed, and a few rounds of
 *      k-means (Lloyd) on the rest positions spread them out;
 *   2. then, alternately: every particle within the radius r of a centre is a member of that
 *      cluster (a particle reached by none joins its nearest centre), the member weights are the
 *      fuzzy c-means memberships restricted to those clusters,
 *          w_ic = d_ic^(-2/(m-1)) / sum_j d_ij^(-2/(m-1)),          (Bezdek's c-means update)
 *      which sum to one over the particle's clusters, and every centre moves to the
 *      sum(w^m m X) / sum(w^m m) of its members; until the centres stop moving;
 *   3. clusters left with fewer than four members (too few to define F) are dropped and their
 *      particles reassigned.
 * Everything is sequential with a seeded generator, so a seed gives the same clusters on every run
 * and thread count. The count and radius used are reported in the solver statistics. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/rng.h"
#include "geom/hash_grid.h"
#include "geom/morton.h"
#include "solvers/shape_matching/sm_internal.h"

typedef struct pairs {
  int32_t *c, *i;  /* cluster, particle */
  double *d2;      /* squared distance (regularised) */
  double *u;       /* weight */
  size_t n, cap;
} pairs;

static cl_status pairs_push(pairs *P, int32_t c, int32_t i, double d2) {
  if (P->n == P->cap) {
    const size_t cap = cl_grow_capacity(P->cap, P->n + 1, SIZE_MAX / sizeof(double));
    CL_TRY(CL_RESIZE(P->c, cap, "shape matching: cluster pairs"));
    CL_TRY(CL_RESIZE(P->i, cap, "shape matching: cluster pairs"));
    CL_TRY(CL_RESIZE(P->d2, cap, "shape matching: cluster pairs"));
    CL_TRY(CL_RESIZE(P->u, cap, "shape matching: cluster pairs"));
    P->cap = cap;
  }
  P->c[P->n] = c;
  P->i[P->n] = i;
  P->d2[P->n] = d2;
  P->n++;
  return CL_OK;
}

static void pairs_free(pairs *P) {
  free(P->c);
  free(P->i);
  free(P->d2);
  free(P->u);
  memset(P, 0, sizeof *P);
}

static double dist2(const double *a, const double *b) {
  double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
  return dx * dx + dy * dy + dz * dz;
}

static int32_t nearest(const double *cen, int32_t k, const double *p) {
  int32_t best = 0;
  double bd = INFINITY;
  for (int32_t j = 0; j < k; ++j) {
    double d = dist2(cen + 3 * j, p);
    if (d < bd) {
      bd = d;
      best = j;
    }
  }
  return best;
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

typedef struct ctx {
  const cl_body_state *st;
  const cl_hash_grid *grid;
  double r, eps2, expo, fuzz;
  int32_t *qbuf;
  int32_t qcap;
  int32_t *cnt;      /* per particle */
  int32_t *ofs;      /* per particle CSR over pairs */
  int32_t *byp;      /* pair ids sorted by particle */
  size_t byp_cap;
} ctx;

/* Membership pairs for the current centres (cluster-major, particles ascending), weights normalised
 * per particle. */
static cl_status memberships(ctx *C, const double *cen, int32_t k, pairs *P) {
  const cl_body_state *st = C->st;
  const int32_t n = st->n;
  P->n = 0;
  for (int32_t j = 0; j < k; ++j) {
    int32_t found = cl_hash_grid_query(C->grid, cen + 3 * j, C->r, C->qbuf, C->qcap);
    if (found > C->qcap) {
      CL_TRY(CL_RESIZE(C->qbuf, (size_t)found, "shape matching: neighbour query"));
      C->qcap = found;
      found = cl_hash_grid_query(C->grid, cen + 3 * j, C->r, C->qbuf, C->qcap);
    }
    qsort(C->qbuf, (size_t)found, sizeof(int32_t), cmp_i32);
    for (int32_t a = 0; a < found; ++a) {
      int32_t i = C->qbuf[a];
      CL_TRY(pairs_push(P, j, i, dist2(st->X + 3 * i, cen + 3 * j) + C->eps2));
    }
  }
  memset(C->cnt, 0, sizeof(int32_t) * (size_t)n);
  for (size_t q = 0; q < P->n; ++q) C->cnt[P->i[q]]++;
  for (int32_t i = 0; i < n; ++i)
    if (C->cnt[i] == 0) {
      int32_t j = nearest(cen, k, st->X + 3 * i);
      CL_TRY(pairs_push(P, j, i, dist2(st->X + 3 * i, cen + 3 * j) + C->eps2));
      C->cnt[i] = 1;
    }
  /* particle-major index of the pairs */
  if (P->n > C->byp_cap) {
    CL_TRY(CL_RESIZE(C->byp, P->n, "shape matching: cluster pairs"));
    C->byp_cap = P->n;
  }
  C->ofs[0] = 0;
  for (int32_t i = 0; i < n; ++i) C->ofs[i + 1] = C->ofs[i] + C->cnt[i];
  memcpy(C->cnt, C->ofs, sizeof(int32_t) * (size_t)n);
  for (size_t q = 0; q < P->n; ++q) C->byp[C->cnt[P->i[q]]++] = (int32_t)q;
  /* w_ic = d_ic^-2e / sum_j d_ij^-2e with e = 1/(m-1); computed as (d_min/d)^2e for range */
  for (int32_t i = 0; i < n; ++i) {
    double dmin = INFINITY;
    for (int32_t a = C->ofs[i]; a < C->ofs[i + 1]; ++a) dmin = fmin(dmin, P->d2[C->byp[a]]);
    double sum = 0.0;
    for (int32_t a = C->ofs[i]; a < C->ofs[i + 1]; ++a) {
      int32_t q = C->byp[a];
      P->u[q] = pow(dmin / P->d2[q], C->expo);
      sum += P->u[q];
    }
    for (int32_t a = C->ofs[i]; a < C->ofs[i + 1]; ++a) P->u[C->byp[a]] /= sum;
  }
  return CL_OK;
}

cl_status cl_sm_cluster(cl_sm *s, const cl_body_state *st, double V, uint64_t seed) {
  const int32_t n = st->n;
  int32_t k = s->p.cluster_count;
  double r = s->p.cluster_radius;
  if (k == 0 && r > 0.0) {
    /* the count as a double first: a tiny radius gives more clusters than an int32 holds */
    const double kd = fmax(1.0, floor(V / (r * r * r) + 0.5));
    if (!(kd <= (double)(n / 4 > 1 ? n / 4 : 1)))
      return cl_fail(CL_ERR_INVALID_ARGUMENT,
                     "solver 'shape_matching': cluster_radius = %g m gives about %.3g clusters for this body's "
                     "%g m^3, but its %d particles allow at most %d (4 per cluster); use cluster_radius >= %.3g m, "
                     "or 0 for automatic", r, kd, V, n, n / 4 > 1 ? n / 4 : 1, cbrt(V / (n / 4 > 1 ? n / 4 : 1)));
    k = (int32_t)kd;
  }
  if (k == 0) k = n / 40 > 1 ? n / 40 : 1;
  if (k > n)
    return cl_fail(CL_ERR_INVALID_ARGUMENT,
                   "solver 'shape_matching': cluster_count = %d is more than the %d particles (each cluster needs "
                   "at least 4 members)", k, n);
  if (k > n / 4 && k > 1)
    return cl_fail(CL_ERR_INVALID_ARGUMENT,
                   "solver 'shape_matching': cluster_count = %d leaves fewer than 4 of the %d particles per cluster "
                   "(at most %d clusters)", k, n, n / 4 > 1 ? n / 4 : 1);
  if (!(r > 0.0)) r = cbrt(V / k);
  if (!(r > 0.0) || !isfinite(r))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "solver 'shape_matching': cannot choose a cluster radius (volume %g m^3)",
                   V);

  cl_status status = CL_OK;
  double *cen = malloc(sizeof(double) * 3 * (size_t)k);
  double *acc = malloc(sizeof(double) * 4 * (size_t)k);
  int32_t *assign = malloc(sizeof(int32_t) * (size_t)n);
  int32_t *perm = malloc(sizeof(int32_t) * (size_t)n);
  ctx C = {st, NULL, r, 1e-6 * r * r, 1.0 / (s->p.fuzziness - 1.0), s->p.fuzziness, NULL, 0, NULL, NULL, NULL, 0};
  C.cnt = malloc(sizeof(int32_t) * (size_t)(n + 1));
  C.ofs = malloc(sizeof(int32_t) * (size_t)(n + 1));
  pairs P = {0};
  cl_hash_grid grid = {0};
  int32_t iters = 0;
  if (!cen || !acc || !assign || !perm || !C.cnt || !C.ofs) {
    status = cl_fail(CL_ERR_OUT_OF_MEMORY, "solver 'shape_matching': out of memory clustering %d particles", n);
    goto done;
  }

  /* 1. seeded distinct starting particles (partial Fisher-Yates), then Lloyd rounds */
  cl_rng rng;
  cl_rng_seed(&rng, seed ^ 0x636c7573746572ull);
  for (int32_t i = 0; i < n; ++i) perm[i] = i;
  for (int32_t j = 0; j < k; ++j) {
    int32_t t = j + (int32_t)cl_rng_below(&rng, (uint64_t)(n - j));
    int32_t tmp = perm[j];
    perm[j] = perm[t];
    perm[t] = tmp;
    memcpy(cen + 3 * j, st->X + 3 * perm[j], 3 * sizeof(double));
  }
  for (int32_t i = 0; i < n; ++i) assign[i] = -1;
  for (int round = 0; round < 10; ++round) {
    int changed = 0;
    for (int32_t i = 0; i < n; ++i) {
      int32_t j = nearest(cen, k, st->X + 3 * i);
      changed |= j != assign[i];
      assign[i] = j;
    }
    if (!changed) break;
    memset(acc, 0, sizeof(double) * 4 * (size_t)k);
    for (int32_t i = 0; i < n; ++i) {
      double *a = acc + 4 * assign[i];
      for (int d = 0; d < 3; ++d) a[d] += st->m[i] * st->X[3 * i + d];
      a[3] += st->m[i];
    }
    for (int32_t j = 0; j < k; ++j)
      if (acc[4 * j + 3] > 0.0)
        for (int d = 0; d < 3; ++d) cen[3 * j + d] = acc[4 * j + d] / acc[4 * j + 3];
  }

  /* 2. fuzzy c-means restricted to the radius */
  status = cl_hash_grid_build(&grid, st->X, n, r);
  if (status < 0) goto done;
  C.grid = &grid;
  for (;;) {
    int32_t maxit = s->p.cluster_iterations;
    for (int32_t it = 0; it < maxit; ++it) {
      ++iters;
      status = memberships(&C, cen, k, &P);
      if (status < 0) goto done;
      /* centres: sum(u^m m X) / sum(u^m m); u is divided by the cluster's largest weight first
       * (the ratio is unchanged and u^m cannot underflow for a large exponent m) */
      for (int32_t j = 0; j < k; ++j) acc[4 * j] = 0.0;
      for (size_t q = 0; q < P.n; ++q) acc[4 * P.c[q]] = fmax(acc[4 * P.c[q]], P.u[q]);
      for (size_t q = 0; q < P.n; ++q) P.d2[q] = P.u[q] / acc[4 * P.c[q]]; /* d2 is free now */
      memset(acc, 0, sizeof(double) * 4 * (size_t)k);
      for (size_t q = 0; q < P.n; ++q) {
        double wm = pow(P.d2[q], C.fuzz) * st->m[P.i[q]];
        double *a = acc + 4 * P.c[q];
        for (int d = 0; d < 3; ++d) a[d] += wm * st->X[3 * P.i[q] + d];
        a[3] += wm;
      }
      double move = 0.0;
      for (int32_t j = 0; j < k; ++j) {
        if (!(acc[4 * j + 3] > 0.0)) continue;
        double c2[3];
        for (int d = 0; d < 3; ++d) c2[d] = acc[4 * j + d] / acc[4 * j + 3];
        move = fmax(move, dist2(c2, cen + 3 * j));
        memcpy(cen + 3 * j, c2, sizeof c2);
      }
      if (sqrt(move) < 1e-4 * r) break;
    }
    status = memberships(&C, cen, k, &P);
    if (status < 0) goto done;
    /* 3. drop clusters with fewer than 4 members and redo the memberships */
    int32_t *members = assign; /* reuse as per-cluster counts (k <= n) */
    memset(members, 0, sizeof(int32_t) * (size_t)k);
    for (size_t q = 0; q < P.n; ++q) members[P.c[q]]++;
    int32_t kept = 0;
    for (int32_t j = 0; j < k; ++j)
      if (members[j] >= 4 || k == 1) memmove(cen + 3 * kept++, cen + 3 * j, 3 * sizeof(double));
    if (kept == k) break;
    if (kept == 0) {
      status = cl_fail(CL_ERR_INVALID_ARGUMENT,
                       "solver 'shape_matching': no cluster of radius %g m holds 4 particles; raise cluster_radius", r);
      goto done;
    }
    k = kept;
  }

  /* 4. the clusters renumbered along the Z-order curve of their centres (geom/morton.h). The
   *    seeded draw of step 1 leaves them in random order, so consecutive clusters lay far apart and
   *    each cluster loop of a step (member sums, goal pass, strain limiting) fetched its members'
   *    positions and sums from memory anew, although every particle sits in about three clusters;
   *    in centre order the next cluster's members are mostly those just visited, still in the
   *    cache. Only the numbering changes: the clusters, members and weights are the same. */
  status = cl_morton_order(cen, k, perm); /* perm[j]: the old index of new cluster j (perm holds n >= k) */
  if (status < 0) goto done;
  for (int32_t j = 0; j < k; ++j) {
    assign[perm[j]] = j; /* old -> new (assign holds n >= k) */
    memcpy(acc + 3 * (size_t)j, cen + 3 * (size_t)perm[j], 3 * sizeof(double));
  }
  memcpy(cen, acc, sizeof(double) * 3 * (size_t)k);
  for (size_t q = 0; q < P.n; ++q) P.c[q] = assign[P.c[q]];

  /* the pool: cluster-major (a stable counting sort: orphans were appended after the queries) */
  status = cl_sm_grow_clusters(s, k);
  if (status >= 0) status = cl_sm_grow_pool(s, (int64_t)P.n);
  if (status < 0) goto done;
  s->ncl = k;
  s->nlive = k;
  s->mtop = (int64_t)P.n;
  memset(s->mcnt, 0, sizeof(int32_t) * (size_t)k);
  for (size_t q = 0; q < P.n; ++q) s->mcnt[P.c[q]]++;
  int64_t off = 0;
  for (int32_t j = 0; j < k; ++j) {
    s->moff[j] = (int32_t)off;
    off += s->mcnt[j];
    s->mcnt[j] = 0;
  }
  for (size_t q = 0; q < P.n; ++q) {
    int32_t j = P.c[q];
    int64_t at = (int64_t)s->moff[j] + s->mcnt[j]++;
    s->mp[at] = P.i[q];
    s->mc[at] = j;
    s->mw[at] = P.u[q];
  }
  for (int32_t j = 0; j < k; ++j) {
    s->alive[j] = 1;
    s->mdead[j] = 0;
    memcpy(s->pcen + 3 * j, cen + 3 * j, 3 * sizeof(double));
    s->radius[j] = r;
  }
  s->stats.cluster_count = k;
  s->stats.cluster_radius = r;
  s->stats.clustering_iterations = iters;

done:
  free(cen);
  free(acc);
  free(assign);
  free(perm);
  free(C.cnt);
  free(C.ofs);
  free(C.byp);
  free(C.qbuf);
  pairs_free(&P);
  cl_hash_grid_free(&grid);
  return status;
}
