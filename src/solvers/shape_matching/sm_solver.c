/* The shape-matching solver table (solvers/solver.h): create, destroy, bind (particles, clusters,
 * rest properties, bonds), the unit count (cluster slots), topology_changed and the statistics. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "solvers/shape_matching/sm_internal.h"
#include "solvers/shape_matching/sm_stats.h"

static cl_status sm_create(void **out) {
  cl_sm *s = calloc(1, sizeof *s);
  if (!s) return cl_fail(CL_ERR_OUT_OF_MEMORY, "solver 'shape_matching': out of memory");
  *out = s;
  return CL_OK;
}

static void sm_destroy(void *p) {
  cl_sm *s = p;
  if (!s) return;
  void *arrays[] = {s->W,     s->flags, s->held,   s->xold,    s->vold,  s->acc,   s->dsum,   s->dvsh,  s->alive,
                    s->moff,  s->mcnt,  s->mass,   s->rcom,    s->width, s->Arr_inv, s->clamped, s->Fp, s->Fp_inv,
                    s->hard,  s->pcen,  s->radius, s->ploff,   s->plcnt, s->com,   s->Rt,     s->Iinv,  s->ga,
                    s->gw,    s->sig,   s->Vp,     s->F,       s->active, s->mp,   s->mc,     s->mw,    s->mwt,
                    s->mwm,   s->mr,    s->pofs,    s->plist, s->pc,
                    s->pwt,   s->planes, s->phead, s->mnext, s->pnm,
                    s->cadj_ofs, s->cadj, s->sib, s->stamp, s->wcom, s->wrad, s->touched, s->Finv, s->spans, s->cpiece, s->plabel, s->moved, s->vdirty, s->clampc, s->scom, s->mark, s->sl_list, s->msum, s->xmeas,
                    s->mok, s->mdead, s->sl_sum, s->sl_T, s->sl_y, s->sl_g, s->sl_d, s->sl_s, s->sl_k, s->sl_f, s->sl_ok, s->sl_touch,
                    s->pabs, s->pdisp, s->gpack, s->tdirty, s->tdlist, s->cdirty, s->cdlist, s->bofs, s->uf, s->pmap, s->agrow, s->calone, s->orest, s->gsc, s->gacc};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i) free(arrays[i]);
  cl_sm_collide_release(s);
  free(s);
}

/* Rest properties of every cluster from scratch (bind only). */
static void all_props(cl_sm *s, const cl_body_state *st) {
  cl_sm_particle_weights(s, st);
  for (int32_t c = 0; c < s->ncl; ++c)
    if (s->alive[c]) cl_sm_cluster_props(s, st, c);
}

static cl_status sm_bind(void *p, const cl_bind_input *in, cl_body_state *st) {
  cl_sm *s = p;
  const cl_material_def *mat = in->material;
  snprintf(s->label, sizeof s->label, "%s", in->body_name ? in->body_name : "body");
  cl_sm_params_read(in->params, &s->p);
  s->density = mat->density;
  s->mu = mat->young / (2.0 * (1.0 + mat->poisson));
  s->lambda = mat->young * mat->poisson / ((1.0 + mat->poisson) * (1.0 - 2.0 * mat->poisson));
  s->plastic = mat->plastic_yield >= 0.0 && mat->plastic_flow > 0.0;
  s->yield = mat->plastic_yield;
  s->flow = mat->plastic_flow;
  s->hardening = mat->plastic_hardening;
  s->plastic_max = mat->plastic_max;
  s->threads = in->threads > 0 ? in->threads : 1;

  double V = 0.0;
  CL_TRY(cl_sm_make_particles(s, in, st, &V));
  CL_TRY(cl_sm_grow_particles(s, st->n));
  s->n = st->n;
  CL_TRY(cl_sm_cluster(s, st, V, in->seed));
  for (int32_t c = 0; c < s->ncl; ++c) {
    cl_mat3 I = cl_mat3_identity();
    memcpy(s->Fp + 9 * (size_t)c, I.m, sizeof I.m);
    memcpy(s->Fp_inv + 9 * (size_t)c, I.m, sizeof I.m);
    s->hard[c] = 0.0;
  }
  all_props(s, st);
  double total = 0.0;
  for (int32_t c = 0; c < s->ncl; ++c) total += s->mass[c];
  s->mean_cluster_mass0 = s->ncl > 0 ? total / s->ncl : 0.0;
  s->pltop = 0;
  CL_TRY(cl_sm_boundary_planes(s, st));
  cl_sm_link_lists(s, st->n);
  CL_TRY(cl_sm_adjacency(s, st->n));
  CL_TRY(cl_sm_reverse_index(s, st->n));
  CL_TRY(cl_sm_bonds(s, st));
  CL_TRY(cl_sm_pieces_from_lists(s, st->n));
  for (int32_t c = 0; c < s->ncl; ++c) cl_vec3_store(s->com, c, cl_vec3_load(s->rcom, c));
  return CL_OK;
}

/* Clustered shape matching holds a body only as stiffly as dt and the iterations let it (young sets
 * stresses, not the motion): under a load it cannot hold, a body stretches without bound (a
 * cantilever hanging from one end grew to 7x its rest radius of gyration at 1/60 s, 4500x at
 * dt = 0.5) while every number stays finite. Every 16 steps the body's radius of gyration about its
 * centre of mass (rigid motion leaves it unchanged) is compared with the rest one; beyond 1.5x, before
 * any fracture (pieces flying apart grow it legitimately), the step returns a warning, once per body. */
static cl_status check_stretch(cl_sm *s, const cl_body_state *st, const cl_step_input *in) {
  if (s->stretch_warned || s->stats.fractures > 0 || ++s->stretch_clock % 16 != 0) return CL_OK;
  double M = 0.0, c[3] = {0, 0, 0}, C[3] = {0, 0, 0};
  for (int32_t i = 0; i < st->n; ++i) {
    M += st->m[i];
    for (int k = 0; k < 3; ++k) c[k] += st->m[i] * st->x[3 * i + k], C[k] += st->m[i] * st->X[3 * i + k];
  }
  if (!(M > 0.0)) return CL_OK;
  double g = 0.0, G = 0.0;
  for (int32_t i = 0; i < st->n; ++i)
    for (int k = 0; k < 3; ++k) {
      const double d = st->x[3 * i + k] - c[k] / M, D = st->X[3 * i + k] - C[k] / M;
      g += st->m[i] * d * d, G += st->m[i] * D * D;
    }
  if (!(g > 2.25 * G)) return CL_OK; /* (1.5x)^2 */
  s->stretch_warned = 1;
  return cl_fail(CL_WARN_INACCURATE,
                 "solver 'shape_matching': the body has stretched to %.3gx its rest size (radius of gyration about "
                 "its centre of mass) at t = %g s without breaking: it is not holding its load, and the motion is "
                 "far from what the material would do; use a smaller dt (now %g s), more iterations, or a lighter "
                 "load (reported once per body)", sqrt(g / G), in->time, in->dt);
}

static cl_status sm_step(void *p, cl_body_state *st, const cl_step_input *in, cl_step_report *rep) {
  cl_sm *s = p;
  s->threads = in->threads > 0 ? in->threads : 1;
  cl_status r = cl_sm_step(s, st, in, rep);
  if (r < 0) return r;
  cl_status w = check_stretch(s, st, in);
  return w > r ? w : r;
}

/* Pool entries of live clusters, compacted when more than half of the pool is holes left by splits
 * and deletions (cluster order and member order are kept). Returns 1 when it compacted: every pool
 * index changed, so the membership lists and the reverse index need a rebuild from scratch. */
static int compact_pool(cl_sm *s) {
  int64_t live = 0;
  for (int32_t c = 0; c < s->ncl; ++c)
    if (s->alive[c]) live += s->mcnt[c];
  if (s->mtop <= 2 * live + 4096) return 0;
  int64_t w = 0;
  for (int32_t c = 0; c < s->ncl; ++c) {
    if (!s->alive[c]) {
      s->moff[c] = (int32_t)w;
      s->mcnt[c] = 0;
      continue;
    }
    int64_t k0 = s->moff[c];
    s->moff[c] = (int32_t)w;
    for (int64_t k = k0; k < k0 + s->mcnt[c]; ++k, ++w) {
      if (k == w) continue;
      s->mp[w] = s->mp[k];
      s->mc[w] = s->mc[k];
      s->mw[w] = s->mw[k];
      s->mwt[w] = s->mwt[k];
      s->mwm[w] = s->mwm[k];
      memcpy(s->mr + 3 * w, s->mr + 3 * k, 3 * sizeof(double));
      s->orest[w] = s->orest[k];
    }
  }
  s->mtop = w;
  return 1;
}

static cl_status sm_topology_changed(void *p, cl_body_state *st) {
  cl_sm *s = p;
  cl_sm_pairs_forget(s); /* before the marks are cleared */
  /* the kept member sums stay valid: compacting the pool keeps each cluster's member order, and the
   * fracture op cleared the clusters whose memberships or weights it changed */
  CL_TRY(cl_sm_grow_particles(s, st->n));
  s->n = st->n;
  cl_status r;
  if (compact_pool(s)) {
    cl_sm_link_lists(s, st->n);
    r = cl_sm_reverse_index(s, st->n);
    if (r >= 0) r = cl_sm_bonds(s, st);
    if (r >= 0) r = cl_sm_pieces_from_lists(s, st->n);
  } else {
    /* only what the fracture op marked changed: those lists back in pool order (the order the
     * step's gathers sum in, as a rebuild would give), their reverse-index entries and bonds, and
     * the pieces that held a marked cluster */
    cl_sm_relink_marked(s);
    r = cl_sm_reverse_index_update(s, st->n);
    if (r >= 0) r = cl_sm_bonds_update(s, st);
    if (r >= 0) r = cl_sm_pieces_update(s, st->n);
  }
  cl_sm_clear_marks(s);
  CL_TRY(r);
  return cl_sm_adjacency_update(s);
}

static cl_status sm_fracture(void *p, cl_body_state *st, const cl_fracture_event *ev, int32_t count,
                             int32_t *applied) {
  cl_sm *s = p;
  cl_status r = cl_sm_fracture(s, st, ev, count, applied);
  if (r < 0) s->msum_ok = 0; /* (a split clears the kept sums of the clusters it changes, only) */
  return r;
}

static int32_t sm_unit_count(const void *p) { return ((const cl_sm *)p)->ncl; }

static cl_status sm_measure(void *p, const cl_body_state *st, cl_unit_fields *out) { return cl_sm_measure(p, st, out); }

static cl_status sm_energy(void *p, const cl_body_state *st, double *e) { return cl_sm_energy(p, st, e); }

static cl_status sm_volume(void *p, const cl_body_state *st, double *v) { return cl_sm_volume(p, st, v); }

cl_status cl_shape_matching_stats(const void *solver, cl_sm_stats *out) {
  if (!solver || !out) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_shape_matching_stats: NULL argument");
  const cl_sm *s = solver;
  *out = s->stats;
  out->particles = s->n;
  out->units = s->ncl;
  out->clusters = s->nlive;
  int64_t m = 0;
  for (int32_t c = 0; c < s->ncl; ++c)
    if (s->alive[c]) m += s->mcnt[c];
  out->memberships = m;
  int32_t debris = 0;
  for (int32_t i = 0; i < s->n; ++i) debris += (s->flags[i] & SM_DEBRIS) != 0;
  out->debris = debris;
  out->cluster_pieces = s->npieces;
  out->mean_clusters_per_particle = s->n - debris > 0 ? (double)m / (double)(s->n - debris) : 0.0;
  return CL_OK;
}

int32_t cl_shape_matching_particle_clusters(const void *solver, int32_t node) {
  const cl_sm *s = solver;
  if (!s || node < 0 || node >= s->n) return -1;
  return s->pofs[node + 1] - s->pofs[node];
}

const cl_solver_ops cl_shape_matching_solver_ops = {
    .name = "shape_matching",
    .help = "clustered shape matching with plasticity and ductile fracture (Jones et al., I3D 2016)",
    .params = cl_sm_param_table,
    .param_count = SM_P_COUNT,
    /* clusters split along a plane (sec 3.3); goals and projections are momentum-conserving
     * (conformance: angular momentum to rounding in free flight); young and poisson only give the
     * stress and energy read-outs their scale (sm_measure.c): the goals pull with alpha */
    .caps = {.units = CL_UNITS_CLUSTERS,
             .applies = CL_EVENT_BIT(CL_EVENT_SPLIT_UNIT),
             .conserves_angular_momentum = 1,
             .moduli_readouts_only = 1},
    .create = sm_create,
    .destroy = sm_destroy,
    .bind = sm_bind,
    .step = sm_step,
    .unit_count = sm_unit_count,
    .measure = sm_measure,
    .elastic_energy = sm_energy,
    .volume = sm_volume,
    .fracture = sm_fracture,
    .topology_changed = sm_topology_changed,
    .stats = cl_sm_stats_op,
    .contact_bounds = cl_sm_contact_bounds,
    .contact_pair = cl_sm_contact_pair,
};
