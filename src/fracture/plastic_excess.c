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
 * Additions (not in the thesis; docs/solvers/corotational.md, "Clean cracks"):
 *   - plane = "principal": the normal is the principal direction of the excess stress around the node,
 *     the eigenvector of the largest eigenvalue of T = sum_i V_i R_i sigma(excess_i) R_i^T over its
 *     elements (summed like p_excess). Eq 5.11's net force vanishes at a node pulled evenly from both
 *     sides, the interior of a necking ligament, and there points anywhere;
 *   - strength > 0: p_excess is compared per unit area, p_excess / (2 A) against the strength (Pa),
 *     A = 1/4 sum_e V_e |g_a| the node's mean section (rest volumes and gradients; for a uniform excess
 *     stress s along any axis p_excess / (2 A) is about s): the sum of eq 5.10 grows with the size of
 *     the elements around the node, so on a graded mesh it picks the coarse elements first;
 *   - crack_tips: cl_islands_select's rule (fracture/islands.h).
 *
 * Needs tets and a material with plasticity (plastic_yield >= 0) and a cap (plastic_max > 0).
 * Options as separation_tensor: largest_only, min_island_elements, crack_tips. Priority = measure /
 * threshold. */
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
  double strength;          /* Pa; > 0: compare per unit area */
  int largest_only;
  int crack_tips;
  int principal;            /* plane: 0 net force (eq 5.11), 1 principal direction of sum m(f) */
  int refused;              /* excess: 0 the refused flow of each step, summed over steps; 1 the flow refused so far */
  int32_t ecap;             /* elements the shadow state holds */
  double *shadow;           /* 9 per element: the plastic strain the element would have without the cap */
  unsigned char *active;    /* per element: the shadow is running (the element sits at the cap) */
  int32_t min_island;
  double lambda, mu, yield, flow, hardening, max;
  int32_t cap;
  double *mag;              /* per node: accumulated sum of |f_excess| (eq 5.10), N */
  double *vec;              /* 3 per node: accumulated sum of f_excess (eq 5.11), N */
  double *ten;              /* 6 per node: sum of V R sigma(excess) R^T (xx yy zz xy yz zx), N m */
  double *area;             /* per node: A = 1/4 sum_e V_e |g_a| (rest), m^2, for the topology of `area_version` */
  int64_t area_version;
  int32_t *elem;            /* per node: an element touching it */
  cl_islands islands; /* piece sizes, for min_island_elements */
} pex;

/* Indices of the parameter values bind receives. */
enum {
  PEX_TOUGHNESS,
  PEX_LARGEST_ONLY,
  PEX_MIN_ISLAND,
  PEX_STRENGTH,
  PEX_CRACK_TIPS,
  PEX_PLANE,
  PEX_EXCESS,
  PEX_PARAM_COUNT
};

static const cl_param_info k_params[PEX_PARAM_COUNT] = {
    [PEX_TOUGHNESS] = {.name = "toughness", .unit = "N",
     .help = "a node fails when its accumulated excess plastic force sum |f| exceeds this (thesis eq 5.10)",
     .value = 1.0, .min = 0.0, .max = 1e300},
    [PEX_LARGEST_ONLY] = CL_ISLANDS_PARAM_LARGEST_ONLY,
    [PEX_MIN_ISLAND] = CL_ISLANDS_PARAM_MIN_ELEMENTS,
    [PEX_STRENGTH] = {.name = "strength", .unit = "Pa",
     .help = "> 0: a node fails when its accumulated excess force per unit area of its section exceeds this, "
             "instead of the toughness test; 0 = the toughness test (eq 5.10)",
     .value = 0.0, .min = 0.0, .max = 1e300},
    [PEX_CRACK_TIPS] = CL_ISLANDS_PARAM_CRACK_TIPS,
    [PEX_PLANE] = {.name = "plane", .unit = "1",
     .help = "crack plane normal: net_force = the direction of the summed excess forces (eq 5.11); principal = "
             "the principal direction of the excess stress around the node",
     .value = 1.0, .min = 0.0, .max = 1.0, .kind = CL_PARAM_CHOICE, .choices = "net_force|principal"},
    [PEX_EXCESS] = {.name = "excess", .unit = "1",
     .help = "per_step = the flow the cap refuses in each step, summed over the steps (eq 5.10 stored step after "
             "step); refused = the plastic strain the cap has refused so far (an uncapped copy of the plastic "
             "state minus the capped one), which stops growing when the straining stops",
     .value = 1.0, .min = 0.0, .max = 1.0, .kind = CL_PARAM_CHOICE, .choices = "per_step|refused"},
};

static cl_status pex_create(void **out) {
  pex *s = cl_calloc(1, sizeof *s, "plastic excess criterion");
  if (!s) return CL_ERR_OUT_OF_MEMORY;
  cl_islands_init(&s->islands);
  s->area_version = -1;
  *out = s;
  return CL_OK;
}

static void pex_destroy(void *p) {
  pex *s = p;
  if (!s) return;
  free(s->mag);
  free(s->vec);
  free(s->ten);
  free(s->area);
  free(s->shadow);
  free(s->active);
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
  s->strength = in->params[PEX_STRENGTH];
  s->crack_tips = in->params[PEX_CRACK_TIPS] != 0.0;
  s->principal = in->params[PEX_PLANE] != 0.0;
  s->refused = in->params[PEX_EXCESS] != 0.0;
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
  CL_TRY(CL_RESIZE(s->ten, 6 * cap, "plastic_excess's excess stress per node"));
  CL_TRY(CL_RESIZE(s->area, cap, "plastic_excess's section area per node"));
  CL_TRY(CL_RESIZE(s->elem, cap, "plastic_excess's element per node"));
  memset(s->mag + s->cap, 0, sizeof(double) * (cap - (size_t)s->cap));
  memset(s->vec + 3 * (size_t)s->cap, 0, sizeof(double) * 3 * (cap - (size_t)s->cap));
  memset(s->ten + 6 * (size_t)s->cap, 0, sizeof(double) * 6 * (cap - (size_t)s->cap));
  s->area_version = -1;
  s->cap = (int32_t)cap;
  return CL_OK;
}

static double frob(const cl_mat3 *a) { return cl_mat3_frobenius(a); }

/* The flow rule of the corotational solver applied to element e from the plastic strain `from` (rest
 * frame): its rotation R, and the flow of one step min(1, flow dt) (1 - yield_eff / ||e'||) e' into
 * *step, e' the deviator of the elastic strain sym(R^T F) - I - from. Returns 0 if it does not yield. */
static int flow_step(const pex *s, const cl_unit_fields *u, int32_t e, double dt, const cl_mat3 *from, cl_mat3 *R,
                     cl_mat3 *step) {
  cl_mat3 F;
  memcpy(F.m, u->F + 9 * (size_t)e, sizeof F.m);
  if (cl_polar3(&F, R, NULL) < 0) return 0;
  cl_mat3 eps = cl_fem_corot_strain(R, &F);
  cl_mat3 d = cl_mat3_sub(&eps, from);
  const double tr3 = cl_mat3_trace(&d) / 3.0;
  d.m[0] -= tr3;
  d.m[4] -= tr3;
  d.m[8] -= tr3;
  const double nd = frob(&d);
  double y = s->yield + s->hardening * frob(from);
  if (y < 0.0) y = 0.0;
  if (!(nd > y)) return 0;
  double rate = s->flow * dt;
  if (rate > 1.0) rate = 1.0;
  *step = cl_mat3_scale(&d, rate * (1.0 - y / nd));
  return 1;
}

/* The excess plastic strain of element e (rest frame) and its rotation; 0 if none (excess =
 * "per_step": the part of this step's flow the cap refuses). */
static int excess_strain(const pex *s, const cl_unit_fields *u, int32_t e, double dt, cl_mat3 *excess, cl_mat3 *R) {
  cl_mat3 ep, step;
  memcpy(ep.m, u->plastic + 9 * (size_t)e, sizeof ep.m);
  if (frob(&ep) < (1.0 - 1e-6) * s->max) return 0; /* below the cap: the solver absorbed the flow */
  if (!flow_step(s, u, e, dt, &ep, R, &step)) return 0;
  cl_mat3 trial = cl_mat3_add(&ep, &step);
  const double nt = frob(&trial);
  if (!(nt > s->max)) return 0;
  *excess = cl_mat3_scale(&trial, 1.0 - s->max / nt);
  return 1;
}

/* The flow the cap has refused element e so far (excess = "refused"): while the element sits at the cap,
 * an uncapped copy of its plastic strain (the shadow) follows the same flow rule from the moment it
 * reached the cap; the excess is the shadow minus the capped strain. A static state stops the shadow at
 * the yield surface, so the excess stops growing when the straining stops. Returns 0 if none. */
static int refused_strain(pex *s, const cl_unit_fields *u, int32_t e, double dt, cl_mat3 *excess, cl_mat3 *R) {
  cl_mat3 ep;
  memcpy(ep.m, u->plastic + 9 * (size_t)e, sizeof ep.m);
  double *sh = s->shadow + 9 * (size_t)e;
  if (frob(&ep) < (1.0 - 1e-6) * s->max) { /* below the cap: the solver absorbed the flow */
    s->active[e] = 0;
    return 0;
  }
  if (!s->active[e]) {
    memcpy(sh, ep.m, sizeof ep.m);
    s->active[e] = 1;
  }
  cl_mat3 S, step;
  memcpy(S.m, sh, sizeof S.m);
  if (flow_step(s, u, e, dt, &S, R, &step)) {
    S = cl_mat3_add(&S, &step);
    memcpy(sh, S.m, sizeof S.m);
  } else {
    cl_mat3 F;
    memcpy(F.m, u->F + 9 * (size_t)e, sizeof F.m);
    if (cl_polar3(&F, R, NULL) < 0) return 0;
  }
  *excess = cl_mat3_sub(&S, &ep);
  return frob(excess) > 0.0;
}

static cl_status grow_elements(pex *s, int32_t ne) {
  if (ne <= s->ecap) return CL_OK;
  CL_TRY(CL_RESIZE(s->shadow, 9 * (size_t)ne, "plastic_excess's uncapped plastic strain per element"));
  CL_TRY(CL_RESIZE(s->active, (size_t)ne, "plastic_excess's element at the cap"));
  memset(s->active + s->ecap, 0, (size_t)(ne - s->ecap));
  s->ecap = ne;
  return CL_OK;
}

/* A = 1/4 sum_e V_e |g_a| per node, from the rest shape (strength > 0; redone when the topology changes). */
static void node_areas(pex *s, const cl_body_state *st) {
  if (s->area_version == st->topology_version) return;
  memset(s->area, 0, sizeof(double) * (size_t)st->n);
  for (int32_t e = 0; e < st->ncells; ++e) {
    const int32_t *t = st->cells + 4 * e;
    cl_mat3 G;
    double V;
    if (!cl_fem_gradients(st->X, t, &G, &V)) continue;
    V = fabs(V);
    cl_vec3 g0 = cl_vec3_zero();
    for (int a = 1; a < 4; ++a) {
      const cl_vec3 g = cl_vec3_make(G.m[3 * (a - 1)], G.m[3 * (a - 1) + 1], G.m[3 * (a - 1) + 2]);
      s->area[t[a]] += 0.25 * V * cl_vec3_norm(g);
      g0 = cl_vec3_sub(g0, g);
    }
    s->area[t[0]] += 0.25 * V * cl_vec3_norm(g0);
  }
  s->area_version = st->topology_version;
}

static void clear_node(pex *s, int32_t i) {
  s->mag[i] = 0.0;
  for (int k = 0; k < 3; ++k) s->vec[3 * (size_t)i + k] = 0.0;
  for (int k = 0; k < 6; ++k) s->ten[6 * (size_t)i + k] = 0.0;
}

static cl_status pex_evaluate(void *p, const cl_unit_fields *u, const cl_body_state *st, double dt,
                              cl_event_list *events) {
  pex *s = p;
  if (st->cell_size != 4 || u->count != st->ncells)
    return cl_fail(CL_ERR_STATE, "plastic_excess: %d units for %d tets: the solver's units are not its tets",
                   u->count, st->ncells);
  const int32_t n = st->n, ne = st->ncells;
  CL_TRY(grow(s, n));
  CL_TRY(grow_elements(s, ne));
  CL_TRY(cl_islands_update(&s->islands, st, "plastic_excess"));
  if (s->strength > 0.0) node_areas(s, st);
  if (s->refused) { /* the sums describe the state, not a history */
    memset(s->mag, 0, sizeof(double) * (size_t)n);
    memset(s->vec, 0, sizeof(double) * 3 * (size_t)n);
    memset(s->ten, 0, sizeof(double) * 6 * (size_t)n);
  }
  for (int32_t i = 0; i < n; ++i) s->elem[i] = -1;
  for (int32_t e = 0; e < ne; ++e) {
    const int32_t *t = st->cells + 4 * e;
    for (int a = 0; a < 4; ++a)
      if (s->elem[t[a]] < 0) s->elem[t[a]] = e;
    cl_mat3 ex, R;
    if (!(s->refused ? refused_strain(s, u, e, dt, &ex, &R) : excess_strain(s, u, e, dt, &ex, &R))) continue;
    /* rest gradients g_a: rows of Dm^-1 (a = 1..3), g_0 = -(g_1 + g_2 + g_3) */
    cl_mat3 G;
    double V0;
    if (!cl_fem_gradients(st->X, t, &G, &V0)) continue;
    /* f_a = -V R sigma(excess) g_a, the element's corotational forces for the excess strain */
    const cl_mat3 sig = cl_fem_linear_stress(s->lambda, s->mu, &ex);
    const cl_mat3 P = cl_mat3_mul(&R, &sig);
    double f[12];
    cl_fem_stress_forces(&P, G.m, u->volume[e], f);
    /* the excess stress in the world, V R sigma R^T, for plane = principal */
    const cl_mat3 Rt = cl_mat3_transpose(&R);
    const cl_mat3 W = cl_mat3_mul(&P, &Rt);
    const double V = u->volume[e];
    const double w6[6] = {V * W.m[0], V * W.m[4], V * W.m[8], V * W.m[1], V * W.m[5], V * W.m[2]};
    for (int a = 1; a < 5; ++a) { /* corners 1, 2, 3, then 0 */
      const int c = a & 3;
      const cl_vec3 fa = cl_vec3_load(f, c);
      s->mag[t[c]] += cl_vec3_norm(fa);
      for (int k = 0; k < 3; ++k) s->vec[3 * (size_t)t[c] + k] += f[3 * c + k];
      for (int k = 0; k < 6; ++k) s->ten[6 * (size_t)t[c] + k] += w6[k];
    }
  }
  const double threshold = s->strength > 0.0 ? s->strength : s->toughness;
  for (int32_t i = 0; i < n; ++i) {
    if (!(s->mag[i] > 0.0) || s->elem[i] < 0) continue;
    double value = s->mag[i]; /* eq 5.10 */
    if (s->strength > 0.0) {
      if (!(s->area[i] > 0.0)) continue;
      value /= 2.0 * s->area[i];
    }
    if (!(value > threshold)) continue;
    if (cl_islands_elements_of(&s->islands, i) <= s->min_island) continue;
    cl_vec3 nrm;
    if (s->principal) {
      const double *z = s->ten + 6 * (size_t)i;
      const cl_mat3 T = {{z[0], z[3], z[5], z[3], z[1], z[4], z[5], z[4], z[2]}};
      cl_vec3 ev;
      cl_mat3 Q;
      if (cl_eig_sym3(&T, &ev, &Q) < 0) continue;
      nrm = cl_mat3_col(&Q, 0);
    } else {
      nrm = cl_vec3_normalize(cl_vec3_load(s->vec, i)); /* eq 5.11 */
    }
    if (cl_vec3_norm2(nrm) == 0.0) continue; /* balanced: no plane */
    const double normal[3] = {nrm.x, nrm.y, nrm.z};
    cl_fracture_event e =
        cl_event_split_node(i, s->elem[i], normal, value / (threshold > 0.0 ? threshold : 1.0), value);
    CL_TRY(cl_event_push(&s->islands.candidates, &e));
  }
  const int32_t first = events->count;
  CL_TRY(cl_islands_select(&s->islands, s->crack_tips, s->largest_only, events));
  /* "the fracture node has its excess plastic force cleared" (sec 5.6); with excess = refused that is
   * the refused strain of its elements (the solver relieves their plasticity too, plastic_relief) */
  for (int32_t k = first; k < events->count; ++k) {
    clear_node(s, events->items[k].split_node.node);
    if (s->refused) s->elem[events->items[k].split_node.node] = -2;
  }
  if (s->refused && events->count > first)
    for (int32_t e = 0; e < ne; ++e) {
      const int32_t *t = st->cells + 4 * e;
      if (s->elem[t[0]] == -2 || s->elem[t[1]] == -2 || s->elem[t[2]] == -2 || s->elem[t[3]] == -2) s->active[e] = 0;
    }
  return CL_OK;
}

const cl_criterion_ops cl_plastic_excess_criterion_ops = {
    .name = "plastic_excess",
    .help = "accumulated excess plastic force per node (flow beyond the plastic cap) against the toughness (O'Malley 2015 "
            "ch. 5.6, eqs 5.10-5.11)",
    .params = k_params,
    .param_count = PEX_PARAM_COUNT,
    .caps = {.reads = CL_UNIT_BIT(CL_UNITS_TETS), .emits = CL_EVENT_BIT(CL_EVENT_SPLIT_NODE)},
    .create = pex_create,
    .destroy = pex_destroy,
    .bind = pex_bind,
    .evaluate = pex_evaluate,
};
