/* The plasticity-based criterion ("plastic_excess"): O'Malley's thesis ch. 5.6.
 *
 * A material whose plastic strain has reached its cap (material.plastic_max) cannot flow further;
 * the flow it would still make is the "excess". The thesis stores the corresponding excess plastic
 * force on the nodes and breaks a node when their magnitudes add up past a threshold:
 *   p_excess = sum_i |f_i,excess|                                                     (eq 5.10)
 *   n = normalize(sum_i f_i,excess)                                                   (eq 5.11)
 * summed over the elements i around the node, accumulated step after step until the node breaks
 * (the fractured node's excess is then cleared; the solver reduces the plasticity of the elements
 * around it, its parameter plastic_relief).
 *
 * What the criterion sees is solver-agnostic (cl_unit_fields): F, and the plastic strain eps_p in
 * the element's rest frame. The excess is computed from them with the flow rule the corotational
 * solver uses (solvers/corotational/plasticity.c, thesis sec 3.2.3): for an element whose plastic
 * strain sits at the cap (||eps_p||_F >= (1 - 1e-6) max; below it the solver absorbed all flow), with
 * R the polar rotation of F and e' the deviator of the elastic strain sym(R^T F) - I - eps_p,
 *   trial = eps_p + min(1, creep dt) (1 - yield_eff / ||e'||) e'   if ||e'|| > yield_eff,
 *   excess = trial - max trial / ||trial||   (the part the cap refuses),
 * and its force on corner a is the stress of that strain turned into nodal forces like the elastic
 * ones: f_a = -V R sigma(excess) g_a (V, g_a: rest volume and barycentric gradients, R rotating to
 * the world). Elements below the cap cost one norm, so the criterion stays cheap (sec 5.7).
 *
 * Needs tets and a material with plasticity (plastic_yield >= 0) and a cap (plastic_max > 0).
 * Options as separation_tensor: largest_only, min_island_elements. Priority = p_excess / toughness. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/mat3.h"
#include "fem/tet.h"
#include "fracture/criterion.h"
#include "fracture/islands.h"

typedef struct pex {
  double toughness;
  int largest_only;
  int32_t min_island;
  double lambda, mu, yield, flow, hardening, max;
  int32_t cap;
  double *mag;              /* per node: accumulated sum of |f_excess| (eq 5.10), N */
  double *vec;              /* 3 per node: accumulated sum of f_excess (eq 5.11), N */
  int32_t *elem;            /* per node: an element touching it */
  cl_islands islands; /* piece sizes, for min_island_elements */
} pex;

/* Indices of the parameter values bind receives. */
enum { PEX_TOUGHNESS, PEX_LARGEST_ONLY, PEX_MIN_ISLAND, PEX_PARAM_COUNT };

static const cl_param_info k_params[PEX_PARAM_COUNT] = {
    [PEX_TOUGHNESS] = {.name = "toughness", .unit = "N",
     .help = "a node fails when its accumulated excess plastic force sum |f| exceeds this (thesis eq 5.10)",
     .value = 1.0, .min = 0.0, .max = 1e300},
    [PEX_LARGEST_ONLY] = CL_ISLANDS_PARAM_LARGEST_ONLY,
    [PEX_MIN_ISLAND] = CL_ISLANDS_PARAM_MIN_ELEMENTS,
};

static cl_status pex_create(void **out) {
  pex *s = cl_calloc(1, sizeof *s, "plastic excess criterion");
  if (!s) return CL_ERR_OUT_OF_MEMORY;
  cl_islands_init(&s->islands);
  *out = s;
  return CL_OK;
}

static void pex_destroy(void *p) {
  pex *s = p;
  if (!s) return;
  free(s->mag);
  free(s->vec);
  free(s->elem);
  cl_islands_free(&s->islands);
  free(s);
}

static cl_status pex_bind(void *p, const cl_criterion_bind_input *in) {
  pex *s = p;
  const cl_material_def *m = in->material;
  if (m->plastic_yield < 0.0 || !(m->plastic_max > 0.0))
    return cl_fail(CL_ERR_INVALID_ARGUMENT,
                   "criterion 'plastic_excess' needs plasticity with a cap: material plastic_yield = %g (must be >= 0) "
                   "and plastic_max = %g (must be > 0); the excess is the plastic flow beyond the cap (thesis 5.6)",
                   m->plastic_yield, m->plastic_max);
  s->toughness = in->params[PEX_TOUGHNESS];
  s->largest_only = in->params[PEX_LARGEST_ONLY] != 0.0;
  s->min_island = (int32_t)in->params[PEX_MIN_ISLAND];
  s->mu = m->young / (2.0 * (1.0 + m->poisson));
  s->lambda = m->young * m->poisson / ((1.0 + m->poisson) * (1.0 - 2.0 * m->poisson));
  s->yield = m->plastic_yield;
  s->flow = m->plastic_flow;
  s->hardening = m->plastic_hardening;
  s->max = m->plastic_max;
  return CL_OK;
}

/* Grow the per-node arrays; accumulated excess of existing nodes is kept, new nodes start at 0. */
static cl_status grow(pex *s, int32_t n) {
  if (n <= s->cap) return CL_OK;
  const size_t cap = cl_grow_capacity((size_t)s->cap, (size_t)n, INT32_MAX);
  CL_TRY(CL_RESIZE(s->mag, cap, "plastic_excess's accumulated |f_excess| per node"));
  CL_TRY(CL_RESIZE(s->vec, 3 * cap, "plastic_excess's accumulated f_excess per node"));
  CL_TRY(CL_RESIZE(s->elem, cap, "plastic_excess's element per node"));
  memset(s->mag + s->cap, 0, sizeof(double) * (cap - (size_t)s->cap));
  memset(s->vec + 3 * (size_t)s->cap, 0, sizeof(double) * 3 * (cap - (size_t)s->cap));
  s->cap = (int32_t)cap;
  return CL_OK;
}

static double frob(const cl_mat3 *a) { return cl_mat3_frobenius(a); }

/* The excess plastic strain of element e (rest frame) and its rotation; 0 if none. */
static int excess_strain(const pex *s, const cl_unit_fields *u, int32_t e, double dt, cl_mat3 *excess, cl_mat3 *R) {
  cl_mat3 ep;
  memcpy(ep.m, u->plastic + 9 * (size_t)e, sizeof ep.m);
  const double np = frob(&ep);
  if (np < (1.0 - 1e-6) * s->max) return 0; /* below the cap: the solver absorbed the flow */
  cl_mat3 F;
  memcpy(F.m, u->F + 9 * (size_t)e, sizeof F.m);
  if (cl_polar3(&F, R, NULL) < 0) return 0;
  cl_mat3 eps = cl_fem_corot_strain(R, &F);
  cl_mat3 d = cl_mat3_sub(&eps, &ep);
  const double tr3 = cl_mat3_trace(&d) / 3.0;
  d.m[0] -= tr3;
  d.m[4] -= tr3;
  d.m[8] -= tr3;
  const double nd = frob(&d);
  double y = s->yield + s->hardening * np;
  if (y < 0.0) y = 0.0;
  if (!(nd > y)) return 0;
  double rate = s->flow * dt;
  if (rate > 1.0) rate = 1.0;
  cl_mat3 step = cl_mat3_scale(&d, rate * (1.0 - y / nd));
  cl_mat3 trial = cl_mat3_add(&ep, &step);
  const double nt = frob(&trial);
  if (!(nt > s->max)) return 0;
  *excess = cl_mat3_scale(&trial, 1.0 - s->max / nt);
  return 1;
}

static cl_status pex_evaluate(void *p, const cl_unit_fields *u, const cl_body_state *st, double dt,
                              cl_event_list *events) {
  pex *s = p;
  if (st->cell_size != 4 || u->count != st->ncells)
    return cl_fail(CL_ERR_STATE, "plastic_excess: %d units for %d tets: the solver's units are not its tets",
                   u->count, st->ncells);
  const int32_t n = st->n, ne = st->ncells;
  CL_TRY(grow(s, n));
  CL_TRY(cl_islands_update(&s->islands, st, "plastic_excess"));
  for (int32_t i = 0; i < n; ++i) s->elem[i] = -1;
  for (int32_t e = 0; e < ne; ++e) {
    const int32_t *t = st->cells + 4 * e;
    for (int a = 0; a < 4; ++a)
      if (s->elem[t[a]] < 0) s->elem[t[a]] = e;
    cl_mat3 ex, R;
    if (!excess_strain(s, u, e, dt, &ex, &R)) continue;
    /* rest gradients g_a: rows of Dm^-1 (a = 1..3), g_0 = -(g_1 + g_2 + g_3) */
    cl_mat3 G;
    double V0;
    if (!cl_fem_gradients(st->X, t, &G, &V0)) continue;
    /* f_a = -V R sigma(excess) g_a, the element's corotational forces for the excess strain */
    const cl_mat3 sig = cl_fem_linear_stress(s->lambda, s->mu, &ex);
    const cl_mat3 P = cl_mat3_mul(&R, &sig);
    double f[12];
    cl_fem_stress_forces(&P, G.m, u->volume[e], f);
    for (int a = 1; a < 5; ++a) { /* corners 1, 2, 3, then 0 */
      const int c = a & 3;
      const cl_vec3 fa = cl_vec3_load(f, c);
      s->mag[t[c]] += cl_vec3_norm(fa);
      for (int k = 0; k < 3; ++k) s->vec[3 * (size_t)t[c] + k] += f[3 * c + k];
    }
  }
  cl_fracture_event best = cl_event_split_node(-1, -1, NULL, 0.0, 0.0);
  for (int32_t i = 0; i < n; ++i) {
    if (!(s->mag[i] > s->toughness) || s->elem[i] < 0) continue;
    if (cl_islands_elements_of(&s->islands, i) <= s->min_island) continue;
    cl_vec3 nrm = cl_vec3_normalize(cl_vec3_load(s->vec, i)); /* eq 5.11 */
    if (cl_vec3_norm2(nrm) == 0.0) continue;                 /* balanced: no plane */
    const double normal[3] = {nrm.x, nrm.y, nrm.z};
    cl_fracture_event e =
        cl_event_split_node(i, s->elem[i], normal, s->mag[i] / (s->toughness > 0.0 ? s->toughness : 1.0), s->mag[i]);
    if (s->largest_only) {
      if (best.split_node.node < 0 || e.priority > best.priority) best = e;
      continue;
    }
    CL_TRY(cl_event_push(events, &e));
    s->mag[i] = 0.0; /* "the fracture node has its excess plastic force cleared" (sec 5.6) */
    s->vec[3 * (size_t)i] = s->vec[3 * (size_t)i + 1] = s->vec[3 * (size_t)i + 2] = 0.0;
  }
  const int32_t bn = best.split_node.node;
  if (s->largest_only && bn >= 0) {
    CL_TRY(cl_event_push(events, &best));
    s->mag[bn] = 0.0;
    s->vec[3 * (size_t)bn] = s->vec[3 * (size_t)bn + 1] = s->vec[3 * (size_t)bn + 2] = 0.0;
  }
  return CL_OK;
}

const cl_criterion_ops cl_plastic_excess_criterion_ops = {
    .name = "plastic_excess",
    .help = "accumulated excess plastic force per node (flow beyond the plastic cap) against the toughness (O'Malley 2015 "
            "ch. 5.6, eqs 5.10-5.11)",
    .params = k_params,
    .param_count = 3,
    .caps = {.reads = CL_UNIT_BIT(CL_UNITS_TETS), .emits = CL_EVENT_BIT(CL_EVENT_SPLIT_NODE)},
    .create = pex_create,
    .destroy = pex_destroy,
    .bind = pex_bind,
    .evaluate = pex_evaluate,
};
