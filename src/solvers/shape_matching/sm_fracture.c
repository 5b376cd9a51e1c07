/* The topology operation (paper sec 3.3), applied after the dynamics to the events the criterion
 * raised, largest first:
 *
 *  1. split: the cluster is cut by the plane through its current centre of mass x_c whose normal is
 *     the direction of largest stretch; members on the positive side move to a new cluster (the
 *     event's normal when the criterion gives one, else the first left singular vector U e_1 of
 *     F^e: the paper writes V_max, the material direction, and tests world positions against it;
 *     U e_1 = R V_max is the same plane carried into the world by the cluster's rotation, which is
 *     what a test on world positions needs once a cluster has turned). Both halves keep F^p, the
 *     hardening variable and the collision proxy, and each gets the half-space of its side (in rest
 *     coordinates, normal F^T n) added to its proxy.
 *  2. propagate (eq 15, Figure 3): a member i of the split cluster that also belongs to clusters d
 *     on the other side of the plane, sign((x_i - x_c) . n) != sign((x_d - x_c) . n), is split: a new
 *     particle q (a copy of i: position, velocity, rest position; origin i) takes over i's memberships
 *     in those clusters, and the mass is divided by membership weight, m_q = m_i W_q / W_i. Every
 *     cluster keeps exactly its mass share, so no other cluster's rest state changes.
 *  3. outliers: a member still farther than (1 + gamma) x outlier x its rest distance from a cluster's
 *     centre is split off into a new particle that belongs to that cluster only (the rest distance is
 *     floored at a tenth of the cluster width, so a member sitting on the centre is not split by any
 *     small motion);
 *  4. delete clusters with fewer than four members or less than min_cluster_mass of the initial mean
 *     cluster mass; their particles' mass shares go to the particles' other clusters, and a particle
 *     left in no cluster becomes debris (it keeps its mass and flies freely; see sm_internal.h).
 *
 * Clusters that hold both held and free particles break only at ten times the criterion's threshold
 * (the authors give clusters crossing a moving or twisting plane ten times the toughness).
 *
 * The paper re-checks Sigma_max > tau before each split because its queue is filled before the
 * dynamics. Here the criterion reads the measure taken after the dynamics, and a split leaves every
 * other cluster's F unchanged (step 2 only renames members, at the same positions and mass shares),
 * so an event stays valid until its own cluster is split; a cluster is split at most once per event.
 * Steps 3 and 4 run when at least one split happened (the world applies topology bookkeeping only
 * then). Only the clusters touched are recomputed, and every particle and cluster whose memberships
 * change is marked, so that topology_changed updates the membership lists, the reverse index, the
 * bonds and the pieces of those only (sm_props.c), once per fracturing step. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/timer.h"
#include "solvers/shape_matching/sm_internal.h"

/* Mark particle i for topology_changed: its membership list or reverse-index entries change; and
 * cluster c, whose bonds (members) and maybe piece change (see the topology bookkeeping block of
 * sm_internal.h). Every change of a reverse-index entry goes through here: an entry that moves in
 * the pool (new index, maybe a new cluster) is unlinked and linked again, and w~ = w / W_i changes
 * only with W_i, which changes only when memberships of i are moved to a new particle or deleted,
 * again by unlink and link; cl_sm_cluster_props recomputes w~ of the other members of a cluster to
 * the same bits. tests/c/test_sm_topology.c checks the result against a rebuild from scratch after
 * every fracturing step. */
static inline void mark(cl_sm *s, int32_t i, int32_t c) {
  if (!s->tdirty[i]) {
    s->tdirty[i] = 1;
    s->tdlist[s->tdcount++] = i;
  }
  if (!s->cdirty[c]) {
    s->cdirty[c] = 1;
    s->cdlist[s->cdcount++] = c;
  }
}

static void unlink_m(cl_sm *s, int32_t i, int64_t k) {
  mark(s, i, s->mc[k]);
  int64_t *at = &s->phead[i];
  while (*at >= 0 && *at != k) at = &s->mnext[*at];
  if (*at == k) {
    *at = s->mnext[k];
    s->pnm[i]--;
  }
}

static void link_m(cl_sm *s, int32_t i, int64_t k) {
  mark(s, i, s->mc[k]);
  s->mnext[k] = s->phead[i];
  s->phead[i] = k;
  s->pnm[i]++;
}

/* Copy pool entry `from` to `to` (rest offsets and per-step data are recomputed later). */
static void copy_entry(cl_sm *s, int64_t from, int64_t to) {
  s->mp[to] = s->mp[from];
  s->mc[to] = s->mc[from];
  s->mw[to] = s->mw[from];
  s->mwt[to] = s->mwt[from];
  s->mwm[to] = s->mwm[from];
  memcpy(s->mr + 3 * to, s->mr + 3 * from, 3 * sizeof(double));
  s->orest[to] = s->orest[from];
}

/* A new particle copied from i, with no memberships and no mass yet. */
static cl_status new_particle(cl_sm *s, cl_body_state *st, int32_t i, int32_t *out) {
  int32_t q = st->n;
  if (q == INT32_MAX) return cl_fail(CL_ERR_OUT_OF_MEMORY, "solver 'shape_matching': too many particles");
  CL_TRY(cl_body_state_resize(st, q + 1));
  CL_TRY(cl_sm_grow_particles(s, q + 1));
  memcpy(st->x + 3 * (size_t)q, st->x + 3 * (size_t)i, 3 * sizeof(double));
  memcpy(st->v + 3 * (size_t)q, st->v + 3 * (size_t)i, 3 * sizeof(double));
  memcpy(st->X + 3 * (size_t)q, st->X + 3 * (size_t)i, 3 * sizeof(double));
  st->origin[q] = i;
  /* q sits where i sits: if i is still where the last measure saw it, so is q, and the clusters
   * whose member i becomes q keep their sums (same position, weight and member order) */
  if (s->xmeas_n == q) {
#ifndef NDEBUG
    memcpy(s->xmeas + 3 * (size_t)q, s->xmeas + 3 * (size_t)i, 3 * sizeof(double));
#endif
    s->xmeas_n = q + 1;
  }
  st->m[q] = 0.0;
  s->W[q] = 0.0;
  s->flags[q] = 0;
  s->held[q] = 0;
  s->phead[q] = -1;
  s->pnm[q] = 0;
  s->n = q + 1;
  *out = q;
  return CL_OK;
}

/* Move the memberships ks[0..nk) of particle i to a new particle, dividing the mass by weight. */
static cl_status split_particle(cl_sm *s, cl_body_state *st, int32_t i, const int64_t *ks, int32_t nk) {
  double Wq = 0.0;
  for (int32_t a = 0; a < nk; ++a) Wq += s->mw[ks[a]];
  double Wi = s->W[i];
  if (nk <= 0 || nk >= s->pnm[i] || !(Wq < Wi)) return CL_OK; /* i must keep a cluster */
  int32_t q;
  CL_TRY(new_particle(s, st, i, &q));
  double mi = st->m[i];
  st->m[q] = mi * (Wq / Wi);
  st->m[i] = mi * ((Wi - Wq) / Wi);
  s->W[q] = Wq;
  s->W[i] = Wi - Wq;
  for (int32_t a = 0; a < nk; ++a) {
    int64_t k = ks[a];
    unlink_m(s, i, k);
    s->mp[k] = q;
    link_m(s, q, k);
    s->mwt[k] = s->mw[k] / Wq; /* w~ m (mwm) is unchanged: the cluster keeps its exact mass */
  }
  for (int64_t k = s->phead[i]; k >= 0; k = s->mnext[k]) s->mwt[k] = s->mw[k] / s->W[i];
  s->stats.particle_splits++;
  return CL_OK;
}

/* World centre of mass of cluster d at the current positions, cached under `stamp`. */
static const double *world_com(cl_sm *s, const cl_body_state *st, int32_t d, int32_t stamp) {
  if (s->stamp[d] != stamp) {
    double M = 0.0, c[3] = {0, 0, 0};
    for (int64_t k = s->moff[d]; k < (int64_t)s->moff[d] + s->mcnt[d]; ++k) {
      const double *x = st->x + 3 * (size_t)s->mp[k];
      for (int j = 0; j < 3; ++j) c[j] += s->mwm[k] * x[j];
      M += s->mwm[k];
    }
    for (int j = 0; j < 3; ++j) s->wcom[3 * (size_t)d + j] = M > 0.0 ? c[j] / M : 0.0;
    s->stamp[d] = stamp;
  }
  return s->wcom + 3 * (size_t)d;
}

/* Append a copy of cluster c's planes plus one more (n, d) at the end of the plane pool as the
 * plane list of cluster `to`. */
static cl_status planes_plus(cl_sm *s, int32_t c, int32_t to, const double *n, double d) {
  int32_t cnt = s->plcnt[c];
  int64_t at = s->pltop;
  CL_TRY(cl_sm_grow_planes(s, at + cnt + 1));
  memmove(s->planes + 4 * at, s->planes + 4 * (int64_t)s->ploff[c], sizeof(double) * 4 * (size_t)cnt);
  double *p = s->planes + 4 * (at + cnt);
  p[0] = n[0];
  p[1] = n[1];
  p[2] = n[2];
  p[3] = d;
  s->ploff[to] = (int32_t)at;
  s->plcnt[to] = cnt + 1;
  s->pltop = at + cnt + 1;
  return CL_OK;
}

static inline double side_of(const double *x, const double *o, const double *n) {
  return (x[0] - o[0]) * n[0] + (x[1] - o[1]) * n[1] + (x[2] - o[2]) * n[2];
}

/* Split cluster c (steps 1 and 2). Returns 1 when split, 0 when not (one side empty). */
static int split_cluster(cl_sm *s, cl_body_state *st, int32_t c, const double *normal, int32_t stamp,
                         cl_status *err) {
  *err = CL_OK;
  double com[3];
  cl_mat3 F;
  cl_sm_cluster_F(s, st, c, com, &F);
  double n[3];
  double nn = normal ? sqrt(normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2]) : 0.0;
  if (nn > 0.5 && isfinite(nn)) {
    for (int j = 0; j < 3; ++j) n[j] = normal[j] / nn;
  } else {
    cl_mat3 Fpi, U, V;
    cl_vec3 sg;
    memcpy(Fpi.m, s->Fp_inv + 9 * (size_t)c, sizeof Fpi.m);
    cl_mat3 Fe = cl_mat3_mul(&F, &Fpi);
    if (cl_svd3_fast(&Fe, &U, &sg, &V) < 0) return 0;
    n[0] = U.m[0];
    n[1] = U.m[3];
    n[2] = U.m[6];
  }
  const int64_t k0 = s->moff[c], k1 = k0 + s->mcnt[c];
  int32_t npos = 0;
  for (int64_t k = k0; k < k1; ++k) npos += side_of(st->x + 3 * (size_t)s->mp[k], com, n) > 0.0;
  if (npos == 0 || npos == s->mcnt[c]) return 0;
  cl_status r = cl_sm_grow_clusters(s, s->ncl + 1);
  if (r >= 0) r = cl_sm_grow_pool(s, s->mtop + npos);
  if (r < 0) {
    *err = r;
    return 0;
  }
  const int32_t c2 = s->ncl++;
  s->nlive++;
  /* partition: positive members to the end of the pool (cluster c2), negative ones compacted */
  int64_t w = k0, top = s->mtop;
  for (int64_t k = k0; k < k1; ++k) {
    int32_t i = s->mp[k];
    int pos = side_of(st->x + 3 * (size_t)i, com, n) > 0.0;
    int64_t to = pos ? top++ : w++;
    if (to == k) continue;
    unlink_m(s, i, k);
    copy_entry(s, k, to);
    if (pos) s->mc[to] = c2;
    link_m(s, i, to);
  }
  s->mcnt[c] = (int32_t)(w - k0);
  s->moff[c2] = (int32_t)s->mtop;
  s->mcnt[c2] = npos;
  s->mtop = top;
  s->alive[c2] = 1;
  s->mdead[c2] = 0;
  memcpy(s->Fp + 9 * (size_t)c2, s->Fp + 9 * (size_t)c, 9 * sizeof(double));
  memcpy(s->Fp_inv + 9 * (size_t)c2, s->Fp_inv + 9 * (size_t)c, 9 * sizeof(double));
  s->hard[c2] = s->hard[c];
  memcpy(s->pcen + 3 * (size_t)c2, s->pcen + 3 * (size_t)c, 3 * sizeof(double));
  s->radius[c2] = s->radius[c];
  s->stamp[c2] = 0;
  s->touched[c2] = 0;
  memcpy(s->com + 3 * (size_t)c2, com, sizeof com);
  /* the crack plane in rest coordinates: normal F^T n through the rest centre */
  cl_vec3 N = cl_vec3_normalize(cl_mat3_tmul_vec(&F, cl_vec3_make(n[0], n[1], n[2])));
  if (cl_vec3_norm2(N) == 0.0) N = cl_vec3_make(n[0], n[1], n[2]);
  double Nv[3] = {N.x, N.y, N.z}, Nm[3] = {-N.x, -N.y, -N.z};
  double d0 = -cl_vec3_dot(N, cl_vec3_load(s->rcom, c));
  r = planes_plus(s, c, c2, Nm, -d0);
  if (r >= 0) r = planes_plus(s, c, c, Nv, d0);
  if (r >= 0) r = cl_sm_add_sibling(s, c, c2);
  if (r < 0) {
    *err = r;
    return 1;
  }
  cl_sm_cluster_props(s, st, c);
  cl_sm_cluster_props(s, st, c2);
  s->stamp[c] = s->stamp[c2] = 0;
  s->stats.fractures++;

  /* eq 15: split members that also belong to clusters on the other side */
  int64_t buf[64];
  for (int half = 0; half < 2; ++half) {
    int32_t cc = half ? c2 : c;
    for (int64_t k = s->moff[cc]; k < (int64_t)s->moff[cc] + s->mcnt[cc]; ++k) {
      int32_t i = s->mp[k];
      int side_i = side_of(st->x + 3 * (size_t)i, com, n) > 0.0;
      int32_t nk = 0;
      for (int64_t l = s->phead[i]; l >= 0 && nk < 64; l = s->mnext[l]) {
        int32_t d = s->mc[l];
        if (d == c || d == c2 || !s->alive[d]) continue;
        int side_d = side_of(world_com(s, st, d, stamp), com, n) > 0.0;
        if (side_d != side_i) buf[nk++] = l;
      }
      if (nk > 0) {
        r = split_particle(s, st, i, buf, nk);
        if (r < 0) {
          *err = r;
          return 1;
        }
      }
    }
  }
  return 1;
}

static void delete_cluster(cl_sm *s, cl_body_state *st, int32_t c) {
  s->alive[c] = 0;
  s->nlive--;
  s->stats.clusters_deleted++;
  for (int64_t k = s->moff[c]; k < (int64_t)s->moff[c] + s->mcnt[c]; ++k) {
    int32_t i = s->mp[k];
    unlink_m(s, i, k);
    s->W[i] -= s->mw[k];
    if (s->pnm[i] == 0) {
      s->flags[i] |= SM_DEBRIS;
      s->W[i] = 0.0;
      continue;
    }
    for (int64_t l = s->phead[i]; l >= 0; l = s->mnext[l]) s->touched[s->mc[l]] = 1;
  }
  s->mcnt[c] = 0;
  s->touched[c] = 0;
}

cl_status cl_sm_fracture(cl_sm *s, cl_body_state *st, const cl_fracture_event *ev, int32_t count, int32_t *applied) {
  double t0 = cl_time_ms();
  *applied = 0;
  static const int32_t first_stamp = 1;
  int32_t stamp = first_stamp;
  for (int32_t e = 0; e < count; ++e) {
    if (ev[e].kind != CL_EVENT_SPLIT_UNIT) continue; /* the only kind in caps.applies */
    int32_t c = ev[e].split_unit.unit;
    if (c < 0 || c >= s->ncl || !s->alive[c] || s->mcnt[c] < 2) continue;
    /* a cluster that straddles held and free particles (at a clamp or a pulling plane) needs ten
     * times the stretch the criterion asked for, as in the authors' code, or it breaks off at the
     * clamp first; the criterion's threshold is value - priority */
    if (s->clampc[c] && !(ev[e].value > 10.0 * (ev[e].value - ev[e].priority))) continue;
    /* a fresh stamp per event: the centres move with the renaming of members (not in space) */
    ++stamp;
    cl_status err;
    int split = split_cluster(s, st, c, ev[e].split_unit.normal, stamp, &err);
    if (err < 0) return err;
    *applied += split;
  }
  if (*applied == 0) {
    s->stats.fracture_ms = cl_time_ms() - t0;
    s->stats.fracture_ms_total += s->stats.fracture_ms;
    return CL_OK;
  }
  /* the member sums the proxies kept (sm_collide.c, psum_ok) predate the splits: new clusters and
   * changed members have none. The world's next measure comes after the next step, which drops them
   * anyway; a measure before it (a script reading body:unit_field between steps) must sum afresh, or
   * it took stale sums for the new clusters and the next step's goal pass reused them (the armadillo
   * blew up at frame 124 when its unit fields were read at frame 120) */
  s->psum_ok = 0;
  /* outliers, against each live cluster's current centre */
  ++stamp;
  const double factor = (1.0 + s->p.gamma) * s->p.outlier;
  for (int32_t c = 0; c < s->ncl; ++c) {
    /* only members shared with another cluster are tested, so a cluster that was alone in its
     * piece at the last topology update (calone: none of its members shared then, nor since) needs
     * no centre; late in a brittle run that is most clusters and about half the memberships */
    if (!s->alive[c] || (c < s->pncl && s->calone[c])) continue;
    const int64_t k0 = s->moff[c], k1 = k0 + s->mcnt[c];
    const double *com = world_com(s, st, c, stamp);
    double cm[3] = {com[0], com[1], com[2]};
    for (int64_t k = k0; k < k1; ++k) {
      int32_t i = s->mp[k];
      /* max(|offset|, width / 10), kept by cl_sm_cluster_props with the offsets */
      const double rest = s->orest[k];
      double dx = st->x[3 * (size_t)i] - cm[0], dy = st->x[3 * (size_t)i + 1] - cm[1],
             dz = st->x[3 * (size_t)i + 2] - cm[2];
      /* the distance test on every member, then whether the member is shared (pnm >= 2): one
       * rarely taken branch per member instead of an unpredictable one on pnm (same decisions) */
      const int far = dx * dx + dy * dy + dz * dz > factor * factor * rest * rest;
      if (far & (s->pnm[i] >= 2)) CL_TRY(split_particle(s, st, i, &k, 1));
    }
  }
  /* delete small clusters */
  const double min_mass = s->p.min_cluster_mass * s->mean_cluster_mass0;
  for (int32_t c = 0; c < s->ncl; ++c)
    if (s->alive[c] && (s->mcnt[c] < 4 || s->mass[c] < min_mass)) delete_cluster(s, st, c);
  for (int32_t c = 0; c < s->ncl; ++c)
    if (s->touched[c]) {
      s->touched[c] = 0;
      if (s->alive[c]) cl_sm_cluster_props(s, st, c);
    }
  for (int32_t c = 0; c < s->ncl; ++c) s->stamp[c] = 0;
  s->stats.fracture_ms = cl_time_ms() - t0;
  s->stats.fracture_ms_total += s->stats.fracture_ms;
  return CL_OK;
}
