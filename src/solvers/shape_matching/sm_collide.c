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
 * contact of a piece with itself (a folding sheet) is not handled.
 *
 * Pairs are found with a sweep over the clusters' world bounding spheres (sorted by the low end of
 * their x interval). The pushes follow a fixed order, so the result does not depend on the thread
 * count: proxy by proxy in sweep order, each of its members (in member order) out of each proxy it
 * acts with (in sweep order), every push moving the particle before the next test (Gauss-Seidel);
 * the proxies stay as they were at the start of the call. Each direction (members of c into d) is
 * met once, when c's turn comes.
 *
 * Contact between different bodies (contact_bounds and contact_pair of the solver table, called by
 * the world after every body's step, world/body_contact.c): `bounds` gives the particles' box widened by twice the
 * largest proxy radius of the last refresh (O(n), no member pass: bodies far apart cost little) and
 * marks the proxies stale; `pair` first refreshes the stale proxies (world centre, radius, F, F^-1)
 * at the positions the steps ended with (the ones computed inside the step predate the world's
 * colliders and the self push-out), then sweeps the
 * two bodies' sorted sphere lists together and, for every overlapping pair of clusters (c of body
 * A, d of body B), pushes the members of c out of d and the members of d out of c with the same
 * exit as above. Unlike the push between pieces, the reaction is applied: the correction is split
 * by mass, the particle (m_i) moving M_d / (m_i + M_d) of it and cluster d (mass M_d) taking the
 * opposite impulse J = m_i di as a rigid motion about its step-start centre c_d,
 *   member l moves by w~_ld (-J / M_d + w x (xold_l - c_d)),  w = -I_d^+ ((xold_i - c_d) x J),
 * with I_d the cluster's inertia at the step start (the step's own Iinv). Every correction changes
 * velocities by displacement / dt, so x = xold + dt v still holds for the free particles and the
 * momenta at the end of the step equal those with step-start lever arms: linear momentum and, when
 * I_d has full rank, angular momentum of the two bodies are conserved to rounding (tested; the step
 * itself conserves them without damping). Not conserved: energy (the correction is a projection, a
 * pushed particle's approach speed is removed or reversed by `restitution`), and momentum given to
 * held members (a held particle neither moves nor takes a share: its constraint absorbs it). The
 * proxies are not updated between corrections of one call (Gauss-Seidel over the pairs, fixed
 * order: the cluster whose sphere starts lower along x first, so swapping the bodies gives the
 * same corrections). Debris particles and clusters of fewer than 10 members take no part. Each
 * body's own `restitution` scales the push out of its proxies; `self_collisions = 0` turns a
 * body's proxies off for other bodies too. Like the push between pieces, a particle can only be
 * pushed out the side it entered if it moves less than about a proxy's depth per (sub)step: the
 * closing speed times the substep should stay below the particle spacing (20 cm cubes of 2 cm
 * spacing closing at 2 m/s: 1.5 cm deepest with two substeps of 1/120 s, 5.7 cm with one step of
 * 1/60 s). `pair` expects both bodies to have stepped since their last topology change (the world
 * guarantees it): it reads the step's xold, centres and inertias. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "base/error.h"
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

/* *p grown (or shrunk) to `bytes`; 0 when realloc fails (*p is then unchanged). */
static int resize(void **p, size_t bytes) {
  void *q = realloc(*p, bytes > 0 ? bytes : 1);
  if (!q) return 0;
  *p = q;
  return 1;
}

/* Room for the root sets of every cluster slot (the new ones not current); 0 when it cannot be had. */
static int roots_reserve(cl_sm *s) {
  if (s->ncl <= s->rcl_cap) return 1;
  const int32_t cap = s->ccap > s->ncl ? s->ccap : s->ncl;
  int ok = resize((void **)&s->rbits, sizeof(uint64_t *) * (size_t)cap);
  ok &= resize((void **)&s->rlo, sizeof(int32_t) * (size_t)cap);
  ok &= resize((void **)&s->rnw, sizeof(int32_t) * (size_t)cap);
  ok &= resize((void **)&s->rcap, sizeof(int32_t) * (size_t)cap);
  ok &= resize((void **)&s->rok, (size_t)cap);
  if (!ok) return 0;
  for (int32_t c = s->rcl_cap; c < cap; ++c) s->rbits[c] = NULL, s->rcap[c] = 0, s->rok[c] = 0;
  s->rcl_cap = cap;
  return 1;
}

/* The root set of cluster c as a bitset (see rbits), rebuilt when not current; NULL when there is
 * no memory for it. */
static const uint64_t *roots_of(cl_sm *s, const cl_body_state *st, int32_t c) {
  if (s->rok[c]) return s->rbits[c];
  const int32_t *o = st->origin;
  int32_t lo = INT32_MAX, hi = -1;
  for (int64_t k = s->moff[c]; k < (int64_t)s->moff[c] + s->mcnt[c]; ++k) {
    int32_t r = s->mp[k];
    while (o[r] != r) r = o[r];
    lo = r < lo ? r : lo, hi = r > hi ? r : hi;
  }
  if (hi < 0) lo = hi = 0;
  const int32_t wlo = lo / 64, nw = hi / 64 - wlo + 1;
  if (nw > s->rcap[c]) {
    if (!resize((void **)&s->rbits[c], sizeof(uint64_t) * (size_t)nw)) return NULL;
    s->rcap[c] = nw;
  }
  uint64_t *b = s->rbits[c];
  memset(b, 0, sizeof(uint64_t) * (size_t)nw);
  for (int64_t k = s->moff[c]; k < (int64_t)s->moff[c] + s->mcnt[c]; ++k) {
    int32_t r = s->mp[k];
    while (o[r] != r) r = o[r];
    b[r / 64 - wlo] |= (uint64_t)1 << (r % 64);
  }
  s->rlo[c] = wlo, s->rnw[c] = nw, s->rok[c] = 1;
  s->roots_built++;
  return b;
}

/* Whether clusters c and d hold copies of one original particle (followed through st->origin to the
 * particle sampled at bind). The authors' code keeps such clusters "neighbours" (World::doFracture
 * keeps a neighbour while the two share a particle id, and a split particle keeps its id), and
 * neighbours never collide: they were one material across the crack that separated them. An AND
 * of the two clusters' root sets over the words both cover (after a fracture the armadillo asks
 * this of ~500 pairs of clusters of ~1800 members per step: a pass over both clusters' members
 * for each was a tenth of its instructions). Without the sets (no memory) it marks c's roots with a
 * fresh stamp and looks for one among d's; without that array either it answers 0, the rule
 * without this exclusion. */
static int share_origin(cl_sm *s, const cl_body_state *st, int32_t c, int32_t d) {
  const int32_t *o = st->origin;
  if (!(s->no_shortcuts & 4) && roots_reserve(s)) {
    const uint64_t *bc = roots_of(s, st, c), *bd = bc ? roots_of(s, st, d) : NULL;
    if (bc && bd) {
      const int32_t lo = s->rlo[c] > s->rlo[d] ? s->rlo[c] : s->rlo[d];
      const int32_t ec = s->rlo[c] + s->rnw[c], ed = s->rlo[d] + s->rnw[d], hi = ec < ed ? ec : ed;
      for (int32_t w = lo; w < hi; ++w)
        if (bc[w - s->rlo[c]] & bd[w - s->rlo[d]]) return 1;
      return 0;
    }
  }
  if (!s->ostamp) return 0;
  if (++s->ostamp_now == 0) { /* wrapped: no stamp may look current */
    memset(s->ostamp, 0, sizeof(uint32_t) * (size_t)s->ocap);
    s->ostamp_now = 1;
  }
  const uint32_t now = s->ostamp_now;
  for (int64_t k = s->moff[c]; k < (int64_t)s->moff[c] + s->mcnt[c]; ++k) {
    int32_t r = s->mp[k];
    while (o[r] != r) r = o[r];
    s->ostamp[r] = now;
  }
  for (int64_t k = s->moff[d]; k < (int64_t)s->moff[d] + s->mcnt[d]; ++k) {
    int32_t r = s->mp[k];
    while (o[r] != r) r = o[r];
    if (s->ostamp[r] == now) return 1;
  }
  return 0;
}

/* Whether the proxies of clusters c and d act on each other (besides their spheres overlapping):
 * not the two halves of a split (adjacent), different pieces unless proxy_whole, and no shared
 * original particle with proxy_origins. */
static int proxies_act_now(cl_sm *s, const cl_body_state *st, int32_t c, int32_t d) {
  if (!s->p.proxy_whole && s->cpiece[c] == s->cpiece[d]) return 0;
  if (adjacent(s, c, d)) return 0;
  return !(s->p.proxy_origins && share_origin(s, st, c, d));
}

static inline int64_t pair_slot(uint64_t key, int64_t cap) {
  return (int64_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
}

void cl_sm_pairs_forget(cl_sm *s) {
  for (int32_t j = 0; j < s->cdcount; ++j) /* their root sets too */
    if (s->cdlist[j] < s->rcl_cap) s->rok[s->cdlist[j]] = 0;
  if (s->pa_count == 0) return;
  if (!s->p.proxy_whole) { /* a split may have moved unmarked clusters to a new piece */
    memset(s->pa_key, 0, sizeof(uint64_t) * (size_t)s->pa_cap);
    s->pa_count = 0;
    return;
  }
  /* the answers of unmarked pairs stay, moved to a fresh table (open addressing has no deletion) */
  uint64_t *key = calloc((size_t)s->pa_cap, sizeof *key);
  uint8_t *val = malloc((size_t)s->pa_cap);
  if (!key || !val) { /* then none stays */
    free(key);
    free(val);
    memset(s->pa_key, 0, sizeof(uint64_t) * (size_t)s->pa_cap);
    s->pa_count = 0;
    return;
  }
  int64_t kept = 0;
  for (int64_t j = 0; j < s->pa_cap; ++j) {
    const uint64_t k = s->pa_key[j];
    if (!k || s->cdirty[(int32_t)(k >> 32) - 1] || s->cdirty[(int32_t)(k & 0xffffffffu) - 1]) continue;
    int64_t h = pair_slot(k, s->pa_cap);
    while (key[h]) h = (h + 1) & (s->pa_cap - 1);
    key[h] = k;
    val[h] = s->pa_val[j];
    ++kept;
  }
  free(s->pa_key);
  free(s->pa_val);
  s->pa_key = key;
  s->pa_val = val;
  s->pa_count = kept;
}

/* Room for one more answer at a load of at most a half; 0 when the table cannot grow. */
static int pairs_room(cl_sm *s) {
  if (2 * (s->pa_count + 1) <= s->pa_cap) return 1;
  const int64_t cap = s->pa_cap ? 2 * s->pa_cap : 4096;
  uint64_t *key = calloc((size_t)cap, sizeof *key);
  uint8_t *val = malloc((size_t)cap);
  if (!key || !val) {
    free(key);
    free(val);
    return 0;
  }
  for (int64_t j = 0; j < s->pa_cap; ++j) { /* the answers kept, rehashed */
    if (!s->pa_key[j]) continue;
    int64_t h = pair_slot(s->pa_key[j], cap);
    while (key[h]) h = (h + 1) & (cap - 1);
    key[h] = s->pa_key[j];
    val[h] = s->pa_val[j];
  }
  free(s->pa_key);
  free(s->pa_val);
  s->pa_key = key;
  s->pa_val = val;
  s->pa_cap = cap;
  return 1;
}

/* Whether the proxies of c and d act on each other, kept per pair until the memberships or the
 * pieces change (an intact body meets the same few thousand overlapping pairs at every step, and
 * share_origin is a pass over both clusters' members). The same answers as asking every time. */
static int proxies_act(cl_sm *s, const cl_body_state *st, int32_t c, int32_t d) {
  const uint64_t key = c < d ? ((uint64_t)c + 1) << 32 | ((uint64_t)d + 1) : ((uint64_t)d + 1) << 32 | ((uint64_t)c + 1);
  if (s->pa_cap) {
    int64_t h = pair_slot(key, s->pa_cap);
    for (; s->pa_key[h]; h = (h + 1) & (s->pa_cap - 1))
      if (s->pa_key[h] == key) return s->pa_val[h];
  }
  const int v = proxies_act_now(s, st, c, d);
  if (pairs_room(s)) {
    int64_t h = pair_slot(key, s->pa_cap);
    while (s->pa_key[h]) h = (h + 1) & (s->pa_cap - 1);
    s->pa_key[h] = key;
    s->pa_val[h] = (uint8_t)v;
    s->pa_count++;
  }
  return v;
}

/* Where particle position x leaves the proxy of cluster d: returns 1 when x is inside, with *dx =
 * restitution x (exit point - x) and *depth = |exit point - x|. */
static int proxy_exit(const cl_sm *s, const double *x, int32_t d, cl_vec3 *dx, double *depth) {
  /* the operations of cl_vec3_sub / cl_vec3_norm / cl_mat3_mul_vec / cl_vec3_add written out on
   * the arrays, in the same order (bitwise the same values), without copying F and F^-1 of every
   * candidate: most candidates are rejected before F is needed */
  const double *com = s->wcom + 3 * (size_t)d;
  const double r0 = x[0] - com[0], r1 = x[1] - com[1], r2 = x[2] - com[2];
  const double *Fi = s->Finv + 9 * (size_t)d, *rcp = s->rcom + 3 * (size_t)d, *cp = s->pcen + 3 * (size_t)d;
  const cl_vec3 X = cl_vec3_make(rcp[0] + (Fi[0] * r0 + Fi[1] * r1 + Fi[2] * r2),
                                 rcp[1] + (Fi[3] * r0 + Fi[4] * r1 + Fi[5] * r2),
                                 rcp[2] + (Fi[6] * r0 + Fi[7] * r1 + Fi[8] * r2));
  const cl_vec3 cen = cl_vec3_make(cp[0], cp[1], cp[2]);
  const cl_vec3 off = cl_vec3_sub(X, cen);
  const double R = s->radius[d], ro2 = cl_vec3_norm2(off);
  /* well outside the rest sphere (a margin far above the rounding of the root): no root needed;
   * tested before the world distance, whose root most points then do not need (the two tests
   * are independent, so their order changes no result) */
  if (!(ro2 < R * R * (1.0 + 1e-9))) return 0;
  const double dist = sqrt(r0 * r0 + r1 * r1 + r2 * r2);
  if (!(dist < s->wrad[d]) || !(dist > 0.0)) return 0;
  const double ro = sqrt(ro2);
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
  cl_mat3 F;
  memcpy(F.m, s->F + 9 * (size_t)d, sizeof F.m);
  const cl_vec3 xi = cl_vec3_make(x[0], x[1], x[2]), cv = cl_vec3_make(com[0], com[1], com[2]);
  const cl_vec3 rc = cl_vec3_make(rcp[0], rcp[1], rcp[2]), r = cl_vec3_make(r0, r1, r2);
  cl_vec3 target = cl_vec3_add(cv, cl_mat3_mul_vec(&F, cl_vec3_sub(Y, rc)));
  cl_vec3 radial = cl_vec3_madd(cv, s->wrad[d] / dist, r);
  if (cl_vec3_norm2(cl_vec3_sub(radial, xi)) < cl_vec3_norm2(cl_vec3_sub(target, xi))) target = radial;
  cl_vec3 full = cl_vec3_sub(target, xi);
  *depth = cl_vec3_norm(full);
  *dx = cl_vec3_scale(full, s->p.restitution);
  return 1;
}

/* Push particle i out of the proxy of cluster d (same body); returns 1 when it moved. */
static int push_out(cl_sm *s, cl_body_state *st, int32_t i, int32_t d, double dt) {
  cl_vec3 dx;
  double depth;
  double *x = st->x + 3 * (size_t)i;
  if (!proxy_exit(s, x, d, &dx, &depth)) return 0;
  s->proxy_pushes++;
  if (s->cull_track && !s->moved[i]) { /* the particle left the box its clusters had at the start
                                         * of the call, and the proxies' kept sums of its clusters
                                         * are stale (psum_ok); marked at its first push, from the
                                         * reverse index (contiguous; the step keeps it current),
                                         * not the membership chain (a cache miss per cluster) */
    s->moved[i] = 1;
    if (s->pk_k) /* and its entry put on the cluster's list (see pk_k) */
      for (int32_t a = s->pofs[i]; a < s->pofs[i + 1]; ++a) {
        const int32_t c = s->pc[a], e = s->pk_n++;
        s->pk_k[e] = (int32_t)(s->plist[a] - s->moff[c]);
        s->pk_next[e] = s->cpos[c];
        s->cpos[c] = e + 1;
      }
    else
      for (int32_t a = s->pofs[i]; a < s->pofs[i + 1]; ++a) s->cpos[s->pc[a]] = 1;
  }
  x[0] += dx.x;
  x[1] += dx.y;
  x[2] += dx.z;
  if (s->p.proxy_velocity) {
    double *v = st->v + 3 * (size_t)i;
    v[0] += dx.x / dt;
    v[1] += dx.y / dt;
    v[2] += dx.z / dt;
  }
  return 1;
}

static int plane_reject(const cl_sm *s, int32_t q, const double *x);
static inline int box_culled(cl_sm *s, const double *lo, const double *hi, int32_t q);

typedef struct span {
  double lo;
  int32_t c;
} span;

static int by_lo(const void *a, const void *b) {
  const span *x = a, *y = b;
  if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
  return (x->c > y->c) - (x->c < y->c);
}

/* Culling (the pieces of a shattered body are mostly neighbours across a crack whose world spheres
 * overlap, while few of their members reach into each other's proxies: 85 % of the pair directions
 * of the weak brittle plate push nothing). Only shortcuts: a pair direction P -> Q (members of P
 * into the proxy of Q) is skipped, for the members of P not pushed yet in the call, when no member
 * of P can pass proxy_exit's test, so no result changes (a member pushed during the call has left
 * the box and meets Q as in the plain algorithm). Two tests on the box of P's members at the start
 * of the call:
 *  - the box lies outside Q's world sphere (wcom, wrad) by more than the rounding of the distance;
 *  - the box lies on the outer side of one of Q's planes. proxy_exit evaluates a plane on the rest
 *    position X = r_Q + F_Q^-1 (x - wcom_Q), h = n . X + e, which is affine in x:
 *    h = m . (x - wcom_Q) + k with m = F_Q^-T n and k = n . r_Q + e (the world plane), and its
 *    smallest value over a box is at a corner. When that bound exceeds the rounding of both
 *    evaluations, every member has h >= 0 and proxy_exit returns 0. Rounding: h as proxy_exit
 *    computes it is off by at most ~10 eps (|e| + |n|_1 (|r_Q|_inf + 2 M ||F_Q^-1||_inf)) and the bound
 *    by ~10 eps (|e| + |n|_1 |r_Q|_inf + 6 M |n|_1 ||F_Q^-1||_inf), M the largest coordinate
 *    magnitude of the box and wcom_Q; the margin used is 1e-11 (a + b M) with
 *    a = max over planes (|e| + |n|_1 |r_Q|_inf) and b = 8 max |n|_1 ||F_Q^-1||_inf, a thousand times the
 *    rounding and far below any physical length. A NaN anywhere fails the tests: no cull. */

static inline double maxd(double a, double b) { return b > a ? b : a; }

/* a > b ? a : b and a < b ? a : b as the one SSE2 instruction each is (maxsd, minsd: the same
 * values, NaN and signed zeros included). Written as ?: gcc 12 turned them into branches where the
 * result is squared or summed, and the culls' branches mispredict (callgrind --branch-sim: the
 * block tests' plane terms and box distances were 30 % of the 20k ductile plate's mispredictions). */
static inline double max_sd(double a, double b) {
#ifdef __SSE2__
  return _mm_cvtsd_f64(_mm_max_sd(_mm_set_sd(a), _mm_set_sd(b)));
#else
  return a > b ? a : b;
#endif
}
static inline double min_sd(double a, double b) {
#ifdef __SSE2__
  return _mm_cvtsd_f64(_mm_min_sd(_mm_set_sd(a), _mm_set_sd(b)));
#else
  return a < b ? a : b;
#endif
}

/* The term of a world plane m . (x - c) at the box corner where it is smallest: m_k (lo_k - c_k) for
 * m_k >= 0, m_k (hi_k - c_k) otherwise, taken as the smaller of the two products (lo <= hi: rounding
 * keeps the order, so it is the same product up to the sign of a zero, which no test sees). */
static inline double plane_low(double m, double lo, double c, double hi) {
  return min_sd(m * (lo - c), m * (hi - c));
}

/* Room for the culling data of every cluster and plane; 0 when it cannot be had (then nothing is
 * culled: the results are the same, only slower). */
static int cull_reserve(cl_sm *s) {
  if (s->ncl > s->cull_cap) {
    const size_t cap = (size_t)(s->ccap > s->ncl ? s->ccap : s->ncl);
    int ok = resize((void **)&s->cbox, sizeof(double) * 6 * cap);
    ok &= resize((void **)&s->ctol, sizeof(double) * cap);
    ok &= resize((void **)&s->csw, sizeof(double) * 4 * cap);
    ok &= resize((void **)&s->cord, sizeof(int32_t) * cap);
    ok &= resize((void **)&s->cpofs, sizeof(int32_t) * (cap + 1));
    ok &= resize((void **)&s->cpos, sizeof(int32_t) * cap);
    ok &= resize((void **)&s->cstamp, sizeof(uint32_t) * cap);
    ok &= resize((void **)&s->bfirst, sizeof(int64_t) * cap);
    if (!ok) return 0;
    for (size_t c = (size_t)s->cull_cap; c < cap; ++c) s->cstamp[c] = 0; /* no planes yet */
    s->cull_cap = (int32_t)cap;
  }
  if (s->pltop > s->cwpl_cap) {
    const int64_t cap = s->plcap > s->pltop ? s->plcap : s->pltop;
    if (!resize((void **)&s->cwpl, sizeof(double) * 4 * (size_t)cap)) return 0;
    s->cwpl_cap = cap;
  }
  return 1;
}

void cl_sm_collide_release(cl_sm *s) {
  free(s->cbox);
  free(s->ctol);
  free(s->cwpl);
  free(s->csw);
  free(s->cord);
  free(s->cpos);
  free(s->cstamp);
  free(s->cpofs);
  free(s->cpr);
  free(s->cpart);
  free(s->ostamp);
  free(s->pa_key);
  free(s->pa_val);
  free(s->bbox);
  free(s->btested);
  free(s->pk_k);
  free(s->pk_next);
  free(s->bfirst);
  for (int32_t c = 0; c < s->rcl_cap; ++c) free(s->rbits[c]);
  free(s->rbits);
  free(s->rlo);
  free(s->rnw);
  free(s->rcap);
  free(s->rok);
}

/* The world planes of cluster c and their margin 1e-11 (a + b M) (see the culling comment), from
 * its F^-1, once per call and only for the proxies a pair asks about (stamp cull_call). */
static void need_planes(cl_sm *s, int32_t c) {
  if (s->cstamp[c] == s->cull_call) return;
  s->cstamp[c] = s->cull_call;
  const double *r = s->rcom + 3 * (size_t)c, *f = s->Finv + 9 * (size_t)c;
  double fin = 0.0; /* ||F^-1||_inf */
  for (int i = 0; i < 3; ++i) fin = maxd(fin, fabs(f[3 * i]) + fabs(f[3 * i + 1]) + fabs(f[3 * i + 2]));
  const double rin = maxd(fabs(r[0]), maxd(fabs(r[1]), fabs(r[2])));
  double a = 0.0, b = 0.0;
  for (int32_t j = 0; j < s->plcnt[c]; ++j) {
    const int64_t at = (int64_t)s->ploff[c] + j;
    const double *pl = s->planes + 4 * at;
    double *w = s->cwpl + 4 * at;
    w[0] = pl[0] * f[0] + pl[1] * f[3] + pl[2] * f[6];
    w[1] = pl[0] * f[1] + pl[1] * f[4] + pl[2] * f[7];
    w[2] = pl[0] * f[2] + pl[1] * f[5] + pl[2] * f[8];
    w[3] = pl[0] * r[0] + pl[1] * r[1] + pl[2] * r[2] + pl[3];
    const double n1 = fabs(pl[0]) + fabs(pl[1]) + fabs(pl[2]);
    a = maxd(a, fabs(pl[3]) + n1 * rin);
    b = maxd(b, 8.0 * n1 * fin);
  }
  s->ctol[c] = 1e-11 * (a + b * s->cull_mag);
}

/* Whether no point of the box lo, hi (3 each) can be inside the proxy of cluster q (see the culling
 * comment); M (cull_mag) bounds every coordinate involved and ctol[q] is q's plane margin for it. */
static inline int box_culled(cl_sm *s, const double *lo, const double *hi, int32_t q) {
  const double *cq = s->wcom + 3 * (size_t)q;
  double d2 = 0.0;
  for (int j = 0; j < 3; ++j) {
    const double t = cq[j] < lo[j] ? lo[j] - cq[j] : (cq[j] > hi[j] ? cq[j] - hi[j] : 0.0);
    d2 += t * t;
  }
  const double lim = s->wrad[q] * (1.0 + 1e-9) + 1e-12 * s->cull_mag;
  if (d2 > lim * lim) return 1;
  need_planes(s, q); /* only now: the directions the sphere settles do not need q's planes */
  const double tol = s->ctol[q];
  /* the newest planes first: the crack between two pieces is usually the last split of each */
  const double *w0 = s->cwpl + 4 * (int64_t)s->ploff[q];
  for (int32_t j = s->plcnt[q] - 1; j >= 0; --j) {
    const double *w = w0 + 4 * j;
    double h = w[3];
    for (int k = 0; k < 3; ++k) h += plane_low(w[k], lo[k], cq[k], hi[k]);
    if (h > tol) return 1;
  }
  return 0;
}

/* Whether no member of cluster p can be inside the proxy of cluster q: the box of its members. */
static int direction_culled(cl_sm *s, int32_t p, int32_t q) {
  const double *lo = s->cbox + 6 * (size_t)p;
  return box_culled(s, lo, lo + 3, q);
}

/* box_culled for the many blocks of one direction: q's centre, the squared limit and (once a
 * block needs them) its world planes kept in registers, the distance to the box branch-free (the
 * blocks of a direction straddle the sphere's surface: the branches mispredicted). The same
 * decisions as box_culled: max(lo - c, c - hi, 0) is the distance along an axis whenever lo <= hi
 * (a NaN centre gives 0 in both, an empty box +inf). */
typedef struct block_cull {
  double c0, c1, c2, lim2, tol;
  const double *w0;
  int32_t q, np;
  int rest;          /* the rest-sphere test's data below are set (1), or it is not made (-1) */
  double A[9], b[3]; /* X - cen = b + A (x - wcom): q's rest position of x, from its centre (pcen) */
  double lim, marg;  /* its radius R (1 + 1e-9) and the margin over the rounding */
} block_cull;

static inline void block_cull_begin(cl_sm *s, int32_t q, block_cull *bc) {
  const double *cq = s->wcom + 3 * (size_t)q;
  const double lim = s->wrad[q] * (1.0 + 1e-9) + 1e-12 * s->cull_mag;
  bc->c0 = cq[0], bc->c1 = cq[1], bc->c2 = cq[2], bc->lim2 = lim * lim, bc->q = q;
  bc->w0 = NULL; /* the planes when a block first needs them */
  /* and the rest sphere, which pays only where the world sphere is much larger than the proxy
   * (large overlapping clusters, the armadillo's: 4-7 % of its frame; the plates' and the cheese's
   * clusters lose 1-3 % to it) */
  bc->rest = s->wrad[q] > 1.25 * s->radius[q] ? 0 : -1;
}

/* Whether no point of the box lo, hi can pass proxy_exit's rest-sphere test (|X - cen|^2 <
 * R^2 (1 + 1e-9) at X = r_q + F_q^-1 (x - wcom_q)): X is affine in x, so over the box it stays
 * within E = |(|F^-1| e)| of its value D at the box's centre (e the half extents, |F^-1| taken entry
 * by entry); when D - E exceeds R (1 + 1e-9) by more than the rounding of both evaluations
 * (margin 1e-9 (R + |b|_1 + 3 ||F^-1||_inf M), M bounding every coordinate), no member is inside
 * q's proxy. The world sphere (radius wrad: the farthest member) is much larger than the proxy
 * (the rest sphere around the c-means centre) where large clusters overlap: in the armadillo
 * 99 % of the members inside a partner's world sphere were outside its proxy. */
static inline int block_outside_rest(cl_sm *s, block_cull *bc, const double *lo) {
  if (bc->rest < 0) return 0;
  if (!bc->rest) {
    const int32_t q = bc->q;
    const double *f = s->Finv + 9 * (size_t)q, *r = s->rcom + 3 * (size_t)q, *cp = s->pcen + 3 * (size_t)q;
    double ainf = 0.0;
    for (int i = 0; i < 3; ++i) {
      ainf = maxd(ainf, fabs(f[3 * i]) + fabs(f[3 * i + 1]) + fabs(f[3 * i + 2]));
      bc->b[i] = r[i] - cp[i];
    }
    memcpy(bc->A, f, sizeof bc->A);
    const double R = s->radius[q];
    bc->lim = R * (1.0 + 1e-9);
    bc->marg = 1e-9 * (R + fabs(bc->b[0]) + fabs(bc->b[1]) + fabs(bc->b[2]) + 3.0 * ainf * s->cull_mag);
    bc->rest = 1;
  }
  const double *hi = lo + 3, *A = bc->A;
  const double u0 = 0.5 * (lo[0] + hi[0]) - bc->c0, u1 = 0.5 * (lo[1] + hi[1]) - bc->c1, u2 = 0.5 * (lo[2] + hi[2]) - bc->c2;
  const double e0 = 0.5 * (hi[0] - lo[0]), e1 = 0.5 * (hi[1] - lo[1]), e2 = 0.5 * (hi[2] - lo[2]);
  double D2 = 0.0, E2 = 0.0;
  for (int i = 0; i < 3; ++i) {
    const double *a = A + 3 * i;
    const double v = bc->b[i] + a[0] * u0 + a[1] * u1 + a[2] * u2;
    const double w = fabs(a[0]) * e0 + fabs(a[1]) * e1 + fabs(a[2]) * e2;
    D2 += v * v;
    E2 += w * w;
  }
  return sqrt(D2) - sqrt(E2) - bc->marg > bc->lim;
}

static inline double axis_gap(double lo, double c, double hi) {
  return max_sd(max_sd(lo - c, c - hi), 0.0);
}

/* The tests of block_culled after the sphere's: the rest sphere, then the planes (out of line: the
 * sphere settles most blocks, and the whole test inlined was too large for the compiler to inline
 * into the block loop). */
static int block_culled_rest(cl_sm *s, block_cull *bc, const double *lo) {
  const double *hi = lo + 3;
  if (block_outside_rest(s, bc, lo)) {
    s->proxy_rculled++;
    return 1;
  }
  if (!bc->w0) {
    need_planes(s, bc->q);
    bc->tol = s->ctol[bc->q];
    bc->w0 = s->cwpl + 4 * (int64_t)s->ploff[bc->q];
    bc->np = s->plcnt[bc->q];
  }
  const double cq[3] = {bc->c0, bc->c1, bc->c2};
  for (int32_t j = bc->np - 1; j >= 0; --j) {
    const double *w = bc->w0 + 4 * j;
    double h = w[3];
    for (int k = 0; k < 3; ++k) h += plane_low(w[k], lo[k], cq[k], hi[k]);
    if (h > bc->tol) return 1;
  }
  return 0;
}

static inline int block_culled(cl_sm *s, block_cull *bc, const double *lo) {
  const double *hi = lo + 3;
  const double t0 = axis_gap(lo[0], bc->c0, hi[0]), t1 = axis_gap(lo[1], bc->c1, hi[1]),
               t2 = axis_gap(lo[2], bc->c2, hi[2]);
  if (t0 * t0 + t1 * t1 + t2 * t2 > bc->lim2) return 1;
  return block_culled_rest(s, bc, lo);
}

/* Whether point x lies on the outer side of one of q's planes by more than the rounding (then
 * proxy_exit returns 0 for it): the test of direction_culled for a single point, before the
 * costlier exact test (three quarters of the points inside a proxy's world sphere are rejected by a
 * plane: the pieces of a shattered body touch across their cracks). */
static int plane_reject(const cl_sm *s, int32_t q, const double *x) {
  const double *cq = s->wcom + 3 * (size_t)q;
  const double r0 = x[0] - cq[0], r1 = x[1] - cq[1], r2 = x[2] - cq[2];
  const double tol = s->ctol[q];
  const double *w0 = s->cwpl + 4 * (int64_t)s->ploff[q];
  for (int32_t j = s->plcnt[q] - 1; j >= 0; --j) {
    const double *w = w0 + 4 * j;
    if (w[3] + w[0] * r0 + w[1] * r1 + w[2] * r2 > tol) return 1;
  }
  return 0;
}

/* The bound M of the culling margins: no coordinate of a member's box, of a proxy's centre, or of
 * a pushed particle exceeds it (a push leaves the particle inside the pushing proxy's world
 * sphere: |x| <= |wcom| + wrad). Starts a new call for need_planes. */
static void cull_begin(cl_sm *s) {
  double M = 0.0;
  for (int32_t c = 0; c < s->ncl; ++c) {
    if (!(s->wrad[c] > 0.0)) continue;
    const double *b = s->cbox + 6 * (size_t)c, *w = s->wcom + 3 * (size_t)c;
    for (int k = 0; k < 6; ++k) M = maxd(M, fabs(b[k]));
    for (int k = 0; k < 3; ++k) M = maxd(M, fabs(w[k]) + s->wrad[c]);
  }
  s->cull_mag = M;
  if (++s->cull_call == 0) { /* wrapped: no stamp may look current */
    for (int32_t c = 0; c < s->cull_cap; ++c) s->cstamp[c] = 0;
    s->cull_call = 1;
  }
}

/* Where block b of a cluster's blocks and superblock j (SM_SUPER consecutive blocks) sit in bbox,
 * from bfirst: each superblock's box just before its blocks' (one stream per cluster). */
static inline int64_t block_at(int64_t b) { return b + b / SM_SUPER + 1; }
static inline int64_t super_at(int64_t j) { return j * (SM_SUPER + 1); }

/* The first box of every cluster that may have a proxy (bfirst, -1 for the others), room for all
 * blocks and superblocks and the flags of one cluster's blocks; 0 when the room cannot be had (then
 * no cluster has blocks: bfirst all -1). */
static int blocks_reserve(cl_sm *s) {
  int64_t nb = 0, most = 0;
  for (int32_t c = 0; c < s->ncl; ++c) {
    if (!s->alive[c] || s->mcnt[c] < SM_PROXY_MIN_MEMBERS) {
      s->bfirst[c] = -1;
      continue;
    }
    s->bfirst[c] = nb;
    const int64_t b = (s->mcnt[c] + SM_BLOCK - 1) / SM_BLOCK;
    nb += b + (b + SM_SUPER - 1) / SM_SUPER;
    most = b > most ? b : most;
  }
  if (most > s->btcap) {
    if (!resize((void **)&s->btested, (size_t)most)) {
      for (int32_t c = 0; c < s->ncl; ++c) s->bfirst[c] = -1;
      return 0;
    }
    s->btcap = most;
  }
  if (nb > s->bcap) {
    const int64_t cap = nb + nb / 4 + 64;
    if (!resize((void **)&s->bbox, sizeof(double) * 6 * (size_t)cap)) {
      for (int32_t c = 0; c < s->ncl; ++c) s->bfirst[c] = -1;
      return 0;
    }
    s->bcap = cap;
  }
  return 1;
}

/* Current centre, F, F^-1 and world radius of every cluster with a proxy (wrad = -1 without one),
 * at the positions of st; with `cull`, also the box of the members, the boxes of their blocks
 * (clusters with bfirst >= 0) and the world planes. Each cluster writes only its own slots: any
 * thread count gives the same. */
static void update_proxies(cl_sm *s, const cl_body_state *st, int cull) {
  const int32_t ncl = s->ncl;
  const int chunk = cl_sm_chunk(s);
#pragma omp parallel for num_threads(s->threads) schedule(dynamic, chunk) if (cl_sm_parallel(s))
  for (int32_t c = 0; c < ncl; ++c) {
    s->wrad[c] = -1.0;
    if (!s->alive[c] || s->mcnt[c] < SM_PROXY_MIN_MEMBERS) continue;
    double com[3];
    cl_mat3 F, Fi;
    if (cull) /* the sums also serve the measure (psum_ok) */
      cl_sm_cluster_F_keep(s, st, c, com, &F);
    else
      cl_sm_cluster_F(s, st, c, com, &F);
    if (cl_mat3_inverse(&F, &Fi) != CL_OK) continue;
    double r2 = 0.0;
    double l0 = INFINITY, l1 = INFINITY, l2 = INFINITY, h0 = -INFINITY, h1 = -INFINITY, h2 = -INFINITY;
    const int64_t k0 = s->moff[c], k1 = k0 + s->mcnt[c];
    double *bb = cull && s->bfirst[c] >= 0 ? s->bbox + 6 * (size_t)s->bfirst[c] : NULL;
    double sb[6] = {INFINITY, INFINITY, INFINITY, -INFINITY, -INFINITY, -INFINITY}; /* the superblock's */
    for (int64_t kb = k0, b = 0; kb < k1; kb += SM_BLOCK, ++b) { /* block by block (the cluster's box is theirs) */
      const int64_t ke = kb + SM_BLOCK < k1 ? kb + SM_BLOCK : k1;
      double b0 = INFINITY, b1 = INFINITY, b2 = INFINITY, u0 = -INFINITY, u1 = -INFINITY, u2 = -INFINITY;
      for (int64_t k = kb; k < ke; ++k) {
        const double *x = st->x + 3 * (size_t)s->mp[k];
        double dx = x[0] - com[0], dy = x[1] - com[1], dz = x[2] - com[2];
        const double e2 = dx * dx + dy * dy + dz * dz;
        r2 = e2 > r2 ? e2 : r2; /* fmax without the call: a NaN e2 is skipped as fmax does */
        b0 = x[0] < b0 ? x[0] : b0, u0 = x[0] > u0 ? x[0] : u0;
        b1 = x[1] < b1 ? x[1] : b1, u1 = x[1] > u1 ? x[1] : u1;
        b2 = x[2] < b2 ? x[2] : b2, u2 = x[2] > u2 ? x[2] : u2;
      }
      if (bb) {
        double *o = bb + 6 * block_at(b);
        o[0] = b0, o[1] = b1, o[2] = b2, o[3] = u0, o[4] = u1, o[5] = u2;
        sb[0] = b0 < sb[0] ? b0 : sb[0], sb[3] = u0 > sb[3] ? u0 : sb[3];
        sb[1] = b1 < sb[1] ? b1 : sb[1], sb[4] = u1 > sb[4] ? u1 : sb[4];
        sb[2] = b2 < sb[2] ? b2 : sb[2], sb[5] = u2 > sb[5] ? u2 : sb[5];
        if (b % SM_SUPER == SM_SUPER - 1 || ke == k1) { /* the superblock's last block */
          memcpy(bb + 6 * super_at(b / SM_SUPER), sb, sizeof sb);
          sb[0] = sb[1] = sb[2] = INFINITY, sb[3] = sb[4] = sb[5] = -INFINITY;
        }
      }
      l0 = b0 < l0 ? b0 : l0, h0 = u0 > h0 ? u0 : h0;
      l1 = b1 < l1 ? b1 : l1, h1 = u1 > h1 ? u1 : h1;
      l2 = b2 < l2 ? b2 : l2, h2 = u2 > h2 ? u2 : h2;
    }
    memcpy(s->wcom + 3 * (size_t)c, com, sizeof com);
    memcpy(s->F + 9 * (size_t)c, F.m, sizeof F.m);
    memcpy(s->Finv + 9 * (size_t)c, Fi.m, sizeof Fi.m);
    s->wrad[c] = sqrt(r2);
    if (cull) {
      double *b = s->cbox + 6 * (size_t)c;
      b[0] = l0, b[1] = l1, b[2] = l2, b[3] = h0, b[4] = h1, b[5] = h2;
    }
  }
  double rmax = -1.0;
  for (int32_t c = 0; c < ncl; ++c) rmax = fmax(rmax, s->wrad[c]);
  s->contact_rmax = rmax;
}

/* The proxies' bounding spheres as x intervals sorted by their low end (ties by cluster), in
 * s->spans; returns how many. */
static int32_t sorted_spans(cl_sm *s) {
  _Static_assert(sizeof(span) <= 2 * sizeof(double), "span fits the per-cluster scratch");
  span *sp = s->spans;
  int32_t m = 0;
  for (int32_t c = 0; c < s->ncl; ++c)
    if (s->wrad[c] > 0.0) {
      sp[m].lo = s->wcom[3 * (size_t)c] - s->wrad[c];
      sp[m].c = c;
      ++m;
    }
  qsort(sp, (size_t)m, sizeof *sp, by_lo);
  return m;
}

/* The same list (same order: the order by (lo, c) is total) from the order of the last call:
 * the kept proxies in their old order, new ones appended, then an insertion sort, which costs
 * O(m) while the proxies move little between steps; beyond 16 moves per proxy, qsort. Also packs
 * the spheres (x, y, z, r) in that order into csw for the sweep. */
static int32_t sweep_order(cl_sm *s) {
  span *sp = s->spans;
  int32_t *pos = s->cpos;
  for (int32_t c = 0; c < s->ncl; ++c) pos[c] = 0;
  int32_t m = 0;
  for (int32_t a = 0; a < s->nord; ++a) {
    const int32_t c = s->cord[a];
    if (c < s->ncl && s->wrad[c] > 0.0 && !pos[c]) {
      pos[c] = 1;
      sp[m].lo = s->wcom[3 * (size_t)c] - s->wrad[c];
      sp[m].c = c;
      ++m;
    }
  }
  for (int32_t c = 0; c < s->ncl; ++c)
    if (s->wrad[c] > 0.0 && !pos[c]) {
      sp[m].lo = s->wcom[3 * (size_t)c] - s->wrad[c];
      sp[m].c = c;
      ++m;
    }
  int64_t moves = 0, budget = 16 * (int64_t)m + 1024;
  for (int32_t a = 1; a < m && moves <= budget; ++a) {
    const span v = sp[a];
    int32_t b = a;
    while (b > 0 && by_lo(&sp[b - 1], &v) > 0) {
      sp[b] = sp[b - 1];
      --b;
      ++moves;
    }
    sp[b] = v;
  }
  if (moves > budget) qsort(sp, (size_t)m, sizeof *sp, by_lo);
  for (int32_t a = 0; a < m; ++a) {
    const int32_t c = sp[a].c;
    s->cord[a] = c;
    double *w = s->csw + 4 * (size_t)a;
    w[0] = s->wcom[3 * (size_t)c], w[1] = s->wcom[3 * (size_t)c + 1], w[2] = s->wcom[3 * (size_t)c + 2];
    w[3] = s->wrad[c];
  }
  s->nord = m;
  return m;
}

static int spheres_overlap(const cl_sm *a, int32_t c, const cl_sm *b, int32_t d) {
  double rr = a->wrad[c] + b->wrad[d];
  return cl_vec3_norm2(cl_vec3_sub(cl_vec3_load(a->wcom, c), cl_vec3_load(b->wcom, d))) < rr * rr;
}

/* Room for `pairs` pairs and their partner entries; 0 when it cannot be had. */
static int pairs_reserve(cl_sm *s, int64_t pairs) {
  if (pairs <= s->cpr_cap) return 1;
  int64_t cap = s->cpr_cap ? s->cpr_cap : 1024;
  while (cap < pairs) cap *= 2;
  int ok = resize((void **)&s->cpr, sizeof(int32_t) * 2 * (size_t)cap);
  ok &= resize((void **)&s->cpart, sizeof(int32_t) * 2 * (size_t)cap);
  if (!ok) return 0;
  s->cpr_cap = cap;
  return 1;
}

/* The pairs of proxies that act on each other (world spheres overlap, different pieces, not split
 * from each other) by a sweep along x over the spheres packed in sweep order (csw), then every
 * proxy's partners in CSR by sweep position: cpofs[a] .. cpofs[a + 1] in cpart, in sweep order
 * (the pairs come out ordered by their first, then their second member). Returns 0 when the pair
 * list cannot grow (the caller then takes the plain loops). */
static int find_partners(cl_sm *s, const cl_body_state *st, int32_t m) {
  int64_t np = 0;
  int32_t *cnt = s->cpofs;
  for (int32_t a = 0; a <= m; ++a) cnt[a] = 0;
  for (int32_t a = 0; a < m; ++a) {
    const double *u = s->csw + 4 * (size_t)a;
    const double hi = u[0] + u[3];
    const int32_t c = s->cord[a];
    for (int32_t b = a + 1; b < m; ++b) {
      const double *v = s->csw + 4 * (size_t)b;
      if (!(v[0] - v[3] <= hi)) break; /* lo of b (the sweep's key, the same value) */
      const double rr = u[3] + v[3], e0 = u[0] - v[0], e1 = u[1] - v[1], e2 = u[2] - v[2];
      if (!(e0 * e0 + e1 * e1 + e2 * e2 < rr * rr)) continue;
      const int32_t d = s->cord[b];
      if (!proxies_act(s, st, c, d)) continue;
      if (np == s->cpr_cap && !pairs_reserve(s, np + 1)) return 0;
      s->cpr[2 * np] = a, s->cpr[2 * np + 1] = b;
      ++cnt[a + 1], ++cnt[b + 1];
      ++np;
    }
  }
  for (int32_t a = 0; a < m; ++a) cnt[a + 1] += cnt[a];
  /* fill in pair order: a's partners before it (pairs (e, a), e ascending) come first, then the
   * ones after it (pairs (a, b), b ascending); cnt[a] runs as the fill cursor and ends at the next
   * start, so it is shifted back below */
  for (int64_t k = 0; k < np; ++k) {
    const int32_t a = s->cpr[2 * k], b = s->cpr[2 * k + 1];
    s->cpart[cnt[a]++] = b;
    s->cpart[cnt[b]++] = a;
  }
  for (int32_t a = m; a > 0; --a) cnt[a] = cnt[a - 1];
  cnt[0] = 0;
  return 1;
}

/* The members of proxy c (its sweep position a) pushed out of its partners' proxies: partner by
 * partner in sweep order, each partner's test over c's members in member order. A direction
 * c -> d whose culling test passed on the box of c's members at the start of the call is skipped
 * for the members not pushed since (they are still in that box); a pushed member meets every
 * partner after. The members do not act on each other (a push moves only its own particle, the
 * proxies stay fixed during the call), so each member meets the same partners in the same order
 * and from the same positions as in a member-by-member loop (the order the header describes): the
 * results are those of that loop bit for bit, while the inner loop keeps one sphere in registers
 * and reads the held flag only for the members inside it. */
static void push_cluster(cl_sm *s, cl_body_state *st, int32_t a, double dt) {
  const int32_t c = s->cord[a], t0 = s->cpofs[a], np = s->cpofs[a + 1] - t0;
  const int64_t k0 = s->moff[c], k1 = k0 + s->mcnt[c];
  const int32_t *mp = s->mp;
  const double *x = st->x;
  const int blocks = s->bfirst[c] >= 0;
  /* the pushed members of c by pool entry (strain limiting's particle lists are free here): those
   * pushed out of an earlier proxy of the call (cpos marks their clusters and heads their lists),
   * then the ones pushed below */
  int32_t *pushed = s->sl_list, npushed = 0;
  if (s->cpos[c] && s->pk_k) /* from the cluster's list (in push order, which changes nothing: the
                              * members' tests below do not act on each other) */
    for (int32_t e = s->cpos[c]; e > 0; e = s->pk_next[e - 1]) pushed[npushed++] = s->pk_k[e - 1];
  else if (s->cpos[c]) /* a pushed particle is never held */
    for (int64_t k = k0; k < k1; ++k)
      if (s->moved[mp[k]]) pushed[npushed++] = (int32_t)(k - k0);
  for (int32_t j = 0; j < np; ++j) {
    const int32_t d = s->cord[s->cpart[t0 + j]];
    const double *cd = s->wcom + 3 * (size_t)d;
    const double e0 = cd[0], e1 = cd[1], e2 = cd[2], r2 = s->wrad[d] * s->wrad[d] * (1.0 + 1e-9);
    const int32_t nb = npushed;
    const int all = direction_culled(s, c, d);
    if (all) s->proxy_culled++;
    /* the members the culling leaves (none when the whole box is culled; those of the blocks whose
     * box is not culled otherwise), each tested once, in member order */
    int some = 0; /* a block was culled */
    block_cull bc;
    block_cull_begin(s, d, &bc);
    const double *bb = blocks ? s->bbox + 6 * (size_t)s->bfirst[c] : NULL;
    uint8_t *tested = s->btested; /* per block (with blocks): its members were tested below */
    if (!all)
      for (int64_t ks = k0, sj = 0; ks < k1; ks += SM_SUPER * SM_BLOCK, ++sj) {
        const int64_t b0 = sj * SM_SUPER, kse = ks + SM_SUPER * SM_BLOCK < k1 ? ks + SM_SUPER * SM_BLOCK : k1;
        if (blocks && block_culled(s, &bc, bb + 6 * super_at(sj))) { /* all its blocks at once */
          some = 1;
          s->proxy_sculled++;
          const int64_t nbk = (kse - ks + SM_BLOCK - 1) / SM_BLOCK;
          s->proxy_bculled += nbk;
          memset(tested + b0, 0, (size_t)nbk);
          continue;
        }
        for (int64_t kb = ks, b = b0; kb < kse; kb += SM_BLOCK, ++b) {
          if (blocks && block_culled(s, &bc, bb + 6 * block_at(b))) {
            some = 1;
            s->proxy_bculled++;
            tested[b] = 0;
            continue;
          }
          if (blocks) tested[b] = 1;
          const int64_t ke = kb + SM_BLOCK < k1 ? kb + SM_BLOCK : k1;
          /* the block's members inside d's world sphere as a mask first (branch-free: a third of
           * them are, unpredictably), then those in member order; a push moves only its own
           * particle, so the mask is what the member-by-member tests would find */
          _Static_assert(SM_BLOCK <= 32, "a block's members fit the mask");
          uint32_t in = 0;
          for (int64_t k = kb; k < ke; ++k) {
            const double *xi = x + 3 * (size_t)mp[k];
            const double dx = xi[0] - e0, dy = xi[1] - e1, dz = xi[2] - e2;
            in |= (uint32_t)(dx * dx + dy * dy + dz * dz < r2) << (k - kb);
          }
          for (; in; in &= in - 1) {
            const int64_t k = kb + __builtin_ctz(in);
            const int32_t i = mp[k];
            if (s->held[i]) continue;
            const int first = !s->moved[i];
            if (!plane_reject(s, d, x + 3 * (size_t)i) && push_out(s, st, i, d, dt) && first)
              pushed[npushed++] = (int32_t)(k - k0);
          }
        }
      }
    if (!all && !some) continue;
    /* the members pushed before this partner that the culling skipped: they left the box */
    for (int32_t t = 0; t < nb; ++t) {
      if (!all && tested[pushed[t] / SM_BLOCK]) continue; /* tested above */
      const int32_t i = mp[k0 + pushed[t]];
      const double *xi = x + 3 * (size_t)i;
      const double dx = xi[0] - e0, dy = xi[1] - e1, dz = xi[2] - e2;
      if (!(dx * dx + dy * dy + dz * dz < r2)) continue;
      need_planes(s, d); /* a direction the sphere culled has not asked for them */
      if (!plane_reject(s, d, xi)) push_out(s, st, i, d, dt);
    }
  }
}

/* Room for one list entry per membership (a particle's memberships are listed at its first push
 * only); without it (pk_k NULL) a cluster's pushed members are found by a pass over its members. */
static void pushed_lists_reserve(cl_sm *s, int64_t entries) {
  s->pk_n = 0;
  if (entries <= s->pk_cap && s->pk_k) return;
  const int64_t cap = entries + entries / 4 + 64;
  int ok = resize((void **)&s->pk_k, sizeof(int32_t) * (size_t)cap);
  ok &= resize((void **)&s->pk_next, sizeof(int32_t) * (size_t)cap);
  if (!ok) {
    free(s->pk_k);
    s->pk_k = NULL;
    s->pk_cap = 0;
    return;
  }
  s->pk_cap = cap;
}

/* The plain algorithm (tests: bit 4 of no_shortcuts; also taken when the scratch cannot grow):
 * every proxy in sweep order, every member, every other proxy it acts with in sweep order, the
 * exact test alone. */
static void self_collide_plain(cl_sm *s, cl_body_state *st, double dt) {
  const span *sp = s->spans;
  const int32_t m = sorted_spans(s);
  for (int32_t a = 0; a < m; ++a) {
    const int32_t c = sp[a].c;
    for (int64_t k = s->moff[c]; k < (int64_t)s->moff[c] + s->mcnt[c]; ++k) {
      const int32_t i = s->mp[k];
      if (s->held[i]) continue;
      for (int32_t b = 0; b < m; ++b) {
        const int32_t d = sp[b].c;
        if (b == a || !spheres_overlap(s, c, s, d) || !proxies_act(s, st, c, d)) continue;
        const double *x = st->x + 3 * (size_t)i, *cd = s->wcom + 3 * (size_t)d;
        const double dx = x[0] - cd[0], dy = x[1] - cd[1], dz = x[2] - cd[2];
        if (dx * dx + dy * dy + dz * dz < s->wrad[d] * s->wrad[d] * (1.0 + 1e-9)) push_out(s, st, i, d, dt);
      }
    }
  }
}

void cl_sm_self_collide(cl_sm *s, cl_body_state *st, double dt) {
  s->psum_ok = 0;
  if (s->p.proxy_origins && s->ocap == 0) { /* roots are particles sampled at bind: < n, for good */
    uint32_t *o = realloc(s->ostamp, sizeof(uint32_t) * (size_t)st->n);
    if (o) {
      memset(o + s->ocap, 0, sizeof(uint32_t) * (size_t)(st->n - s->ocap));
      s->ostamp = o;
      s->ocap = st->n;
    }
  }
  const int cull = !(s->no_shortcuts & 4) && cull_reserve(s);
  if (cull) blocks_reserve(s);
  update_proxies(s, st, cull);
  if (!cull) {
    self_collide_plain(s, st, dt);
    return;
  }
  cull_begin(s);
  const int32_t m = sweep_order(s);
  if (!find_partners(s, st, m)) {
    self_collide_plain(s, st, dt);
    return;
  }
  /* no particle pushed yet (moved is strain limiting's scratch, free here) */
  memset(s->moved, 0, (size_t)st->n);
  for (int32_t c = 0; c < s->ncl; ++c) s->cpos[c] = 0;
  pushed_lists_reserve(s, s->pofs[st->n]);
  s->cull_track = 1;
  for (int32_t a = 0; a < m; ++a)
    if (s->cpofs[a + 1] > s->cpofs[a]) push_cluster(s, st, a, dt);
  s->cull_track = 0;
  s->psum_ok = 1; /* cpos now marks the clusters whose kept sums are stale */
}

/* ---- contact between two bodies ------------------------------------------------------------ */

typedef struct body_side {
  cl_sm *s;
  cl_body_state *st;
} body_side;

/* The members of cluster c of body P that are inside the proxy of cluster d of body Q, pushed out
 * with the reaction on d's members (see the header comment). */
static void push_pair(body_side P, int32_t c, body_side Q, int32_t d, double dt, cl_contact_report *rep) {
  const cl_sm *p = P.s, *q = Q.s;
  const double *cd = q->wcom + 3 * (size_t)d;
  const double far2 = q->wrad[d] * q->wrad[d] * (1.0 + 1e-9);
  const double Md = q->mass[d];
  if (!(Md > 0.0)) return;
  const int64_t q0 = q->moff[d], q1 = q0 + q->mcnt[d];
  for (int64_t k = p->moff[c]; k < (int64_t)p->moff[c] + p->mcnt[c]; ++k) {
    const int32_t i = p->mp[k];
    double *x = P.st->x + 3 * (size_t)i;
    double ex = x[0] - cd[0], ey = x[1] - cd[1], ez = x[2] - cd[2];
    if (ex * ex + ey * ey + ez * ez >= far2) continue;
    if (p->held[i]) continue;
    cl_vec3 dx;
    double depth;
    if (!proxy_exit(q, x, d, &dx, &depth)) continue;
    /* split the correction by mass, as two bodies in contact (m_i against the cluster's M_d): the
     * particle takes M_d / (m_i + M_d) of it, the cluster the rest in the opposite direction */
    const double mi = P.st->m[i];
    const double fi = Md / (mi + Md);
    double *v = P.st->v + 3 * (size_t)i;
    const double di[3] = {fi * dx.x, fi * dx.y, fi * dx.z};
    for (int j = 0; j < 3; ++j) {
      x[j] += di[j];
      v[j] += di[j] / dt;
    }
    /* the cluster takes the opposite impulse J = m_i di as a rigid motion about its centre, with
     * lever arms at the step-start positions (see the header comment): translation t = -J / M_d and
     * rotation w = -I_d^+ ((xold_i - c_d) x J), member l moving by w~_ld (t + w x (xold_l - c_d)) */
    const cl_vec3 J = cl_vec3_make(mi * di[0], mi * di[1], mi * di[2]);
    const cl_vec3 t = cl_vec3_scale(J, -1.0 / Md);
    const cl_vec3 cdo = cl_vec3_load(q->com, d);
    cl_mat3 Iinv;
    memcpy(Iinv.m, q->Iinv + 9 * (size_t)d, sizeof Iinv.m);
    const cl_vec3 w = cl_vec3_scale(
        cl_mat3_mul_vec(&Iinv, cl_vec3_cross(cl_vec3_sub(cl_vec3_load(p->xold, i), cdo), J)), -1.0);
    for (int64_t l = q0; l < q1; ++l) {
      const int32_t jn = q->mp[l];
      if (q->held[jn]) continue; /* a held member takes no share: its constraint absorbs it */
      const cl_vec3 u = cl_vec3_add(t, cl_vec3_cross(w, cl_vec3_sub(cl_vec3_load(q->xold, jn), cdo)));
      const double f = q->mwt[l];
      double *xj = Q.st->x + 3 * (size_t)jn, *vj = Q.st->v + 3 * (size_t)jn;
      const double dj[3] = {f * u.x, f * u.y, f * u.z};
      for (int j = 0; j < 3; ++j) {
        xj[j] += dj[j];
        vj[j] += dj[j] / dt;
      }
    }
    rep->contacts += 1;
    if (depth > rep->max_depth) rep->max_depth = depth;
  }
}

/* Both directions for a pair of overlapping proxies: the cluster whose sphere starts lower along x
 * goes first, so swapping the two bodies gives the same sequence of corrections. */
static void pair_clusters(body_side A, int32_t c, body_side B, int32_t d, double dt, cl_contact_report *rep) {
  if (!spheres_overlap(A.s, c, B.s, d)) return;
  push_pair(A, c, B, d, dt, rep);
  push_pair(B, d, A, c, dt, rep);
}

static void mark_held(cl_sm *s, const cl_constraint_set *cs, int32_t on) {
  if (!cs) return;
  for (int32_t j = 0; j < cs->count; ++j) s->held[cs->nodes[j]] = on ? j + 1 : 0;
}

/* Growth of the largest proxy radius since its last refresh that the box still covers. Clusters
 * are held near their rest shape (strain limiting keeps members within gamma x width of their
 * goals), so doubling is ample. */
enum { SM_CONTACT_SLACK = 2 };

/* The box of the particles widened by SM_CONTACT_SLACK times the largest proxy radius: every proxy
 * lies in the sphere of its cluster's members about their centre, which is inside the particles'
 * box. O(particles): bodies far apart cost no member pass. The proxies themselves are refreshed by
 * the pair op, once, when the box meets another body's. */
cl_status cl_sm_contact_bounds(void *solver, const cl_body_state *st, double *lo, double *hi) {
  cl_sm *s = solver;
  for (int k = 0; k < 3; ++k) {
    lo[k] = INFINITY;
    hi[k] = -INFINITY;
  }
  if (!s || !st) return cl_fail(CL_ERR_INVALID_ARGUMENT, "shape_matching contact bounds: NULL solver or state");
  if (!s->p.self_collisions || s->nlive == 0) return CL_OK;
  if (st->n > s->pcap)
    return cl_fail(CL_ERR_STATE, "solver 'shape_matching' (%s): state has %d nodes, solver knows %d", s->label,
                   st->n, s->n);
  s->contact_stale = 1;
  if (!(s->contact_rmax > 0.0)) { /* never refreshed (or no proxy at the last refresh) */
    update_proxies(s, st, 0);
    s->contact_stale = 0;
  }
  if (!(s->contact_rmax > 0.0)) return CL_OK; /* no cluster has a proxy */
  /* plain compares in locals (fmin/fmax keep NaN semantics and do not vectorise); the world
   * checks the positions are finite after every step */
  double l0 = INFINITY, l1 = INFINITY, l2 = INFINITY, h0 = -INFINITY, h1 = -INFINITY, h2 = -INFINITY;
  const double *x = st->x;
  for (int32_t i = 0; i < st->n; ++i) {
    const double a = x[3 * (size_t)i], b = x[3 * (size_t)i + 1], c = x[3 * (size_t)i + 2];
    l0 = a < l0 ? a : l0;
    h0 = a > h0 ? a : h0;
    l1 = b < l1 ? b : l1;
    h1 = b > h1 ? b : h1;
    l2 = c < l2 ? c : l2;
    h2 = c > h2 ? c : h2;
  }
  lo[0] = l0, lo[1] = l1, lo[2] = l2;
  hi[0] = h0, hi[1] = h1, hi[2] = h2;
  const double margin = SM_CONTACT_SLACK * s->contact_rmax;
  for (int k = 0; k < 3; ++k) {
    lo[k] -= margin;
    hi[k] += margin;
  }
  return CL_OK;
}

cl_status cl_sm_contact_pair(void *va, cl_body_state *sa, const cl_constraint_set *ca, void *vb,
                                 cl_body_state *sb, const cl_constraint_set *cb, double dt,
                                 cl_contact_report *rep) {
  cl_sm *a = va, *b = vb;
  if (!a || !b || !sa || !sb || !rep)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "shape_matching contact pair: NULL solver, state or report");
  if (a == b || sa == sb)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "shape_matching contact pair: a body cannot be paired with itself "
                                            "(pieces of one body collide inside its step)");
  if (!(dt > 0.0) || !isfinite(dt))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "shape_matching contact pair: dt = %g s, must be > 0 and finite", dt);
  if (!a->p.self_collisions || !b->p.self_collisions) return CL_OK;
  if (sa->n > a->pcap || sb->n > b->pcap)
    return cl_fail(CL_ERR_STATE, "shape_matching contact pair: a state has more nodes than its solver knows");
  /* proxies at the positions the steps ended with (once per body and substep) */
  if (a->contact_stale) update_proxies(a, sa, 0);
  if (b->contact_stale) update_proxies(b, sb, 0);
  a->contact_stale = b->contact_stale = 0;
  a->psum_ok = b->psum_ok = 0; /* the pushes below move particles of both */
  mark_held(a, ca, 1);
  mark_held(b, cb, 1);
  body_side A = {a, sa}, B = {b, sb};
  const span *pa = a->spans, *pb = b->spans;
  const int32_t ma = sorted_spans(a), mb = sorted_spans(b);
  /* merged sweep of the two sorted lists: each item meets the other body's items that start
   * inside its interval, so every overlapping pair is met exactly once (ties: a's item first) */
  int32_t i = 0, j = 0;
  while (i < ma && j < mb) {
    if (pa[i].lo <= pb[j].lo) {
      const int32_t c = pa[i].c;
      const double hi = a->wcom[3 * (size_t)c] + a->wrad[c];
      for (int32_t k = j; k < mb && pb[k].lo <= hi; ++k) pair_clusters(A, c, B, pb[k].c, dt, rep);
      ++i;
    } else {
      const int32_t d = pb[j].c;
      const double hi = b->wcom[3 * (size_t)d] + b->wrad[d];
      for (int32_t k = i; k < ma && pa[k].lo <= hi; ++k) pair_clusters(B, d, A, pa[k].c, dt, rep);
      ++j;
    }
  }
  mark_held(a, ca, 0);
  mark_held(b, cb, 0);
  return CL_OK;
}
