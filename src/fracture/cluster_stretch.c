/* Criterion "cluster_stretch" (Jones, Martin, Levine, Shinar and Bargteil, "Ductile Fracture for
 * Clustered Shape Matching", I3D 2016, sec 3.3): a unit whose largest stretch exceeds its toughness
 * breaks, largest excess first, across the plane orthogonal to its direction of largest stretch.
 *
 *   F^e   = F (F^p)^-1 = U Sigma V^T              (eq 9; F^p = I + the unit's plastic field)
 *   s     = Sigma_max - 1                          (a strain: the authors' scene files give the
 *                                                   toughness as a threshold on Sigma_max - 1,
 *                                                   0.001 to 0.22)
 *   tau_c = tau_0 (1 + tau_b exp(-tau_f t_c))      (eq 16, t_c: time since the unit last broke;
 *                                                   the paper prints tau_0 (1 + tau_b) e^(tau_f t),
 *                                                   the authors' code applies the form used here,
 *                                                   a boost that falls back to tau_0)
 *   event when s > tau_c: priority s - tau_c, normal U e_1 (the world image of V_max), value s.
 *
 * With relax = 1 (the default, as in the authors' code, where "delayRepeatedFracture" is on unless a
 * scene turns it off) the other remedy of the paper against "particle spray" is used as well as
 * the boost: a unit that broke may not break again until s <= tau_c. relax = 0 leaves the boost
 * alone.
 *
 * The criterion learns that a unit broke from the units themselves: shape matching splits a cluster
 * by keeping part of it under its index and appending the rest as a new unit, and it never changes
 * another cluster's mass (eq 15 divides particle masses so every cluster keeps its share). So a unit
 * whose rest volume dropped, or a unit that did not exist at the last evaluation, has just broken.
 * Units with zero volume (deleted clusters) are skipped. For solvers whose units are tets the test
 * works on F of each tet, with the plastic field read as a small plastic strain. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/mat3.h"
#include "fracture/criterion.h"

/* Indices of the parameter values bind receives. */
enum { CS_TOUGHNESS, CS_BOOST, CS_FALLOFF, CS_RELAX, CS_PARAM_COUNT };

static const cl_param_info k_params[CS_PARAM_COUNT] = {
    [CS_TOUGHNESS] = {.name = "toughness", .unit = "1", .help = "stretch threshold tau_0 on Sigma_max - 1 of F^e (a strain)",
     .value = 0.1, .min = 0.0, .max = 1e9},
    [CS_BOOST] = {.name = "boost", .unit = "1", .help = "toughness boost tau_b after a unit breaks (eq 16); 0 = none", .value = 0.0,
     .min = 0.0, .max = 1e6},
    [CS_FALLOFF] = {.name = "falloff", .unit = "1/s", .help = "decay rate tau_f of the boost (eq 16)", .value = 0.0, .min = 0.0,
     .max = 1e9},
    [CS_RELAX] = {.name = "relax", .unit = "1",
     .help = "a unit that broke may break again only after its stretch fell below the toughness (the authors' "
             "default)",
     .value = 1.0, .min = 0.0, .max = 1.0, .kind = CL_PARAM_BOOLEAN},
};

typedef struct cs {
  double tau0, boost, falloff;
  int relax;
  int32_t known, cap;   /* units seen at the last evaluation, array capacity */
  double *volume;       /* rest volume at the last evaluation */
  double *since;        /* s since the unit last broke (inf: never) */
  uint8_t *locked;      /* relax: broke and has not relaxed yet */
} cs;

static cl_status cs_create(void **out) {
  cs *c = calloc(1, sizeof *c);
  if (!c) return cl_fail(CL_ERR_OUT_OF_MEMORY, "criterion 'cluster_stretch': out of memory");
  *out = c;
  return CL_OK;
}

static void cs_destroy(void *p) {
  cs *c = p;
  if (!c) return;
  free(c->volume);
  free(c->since);
  free(c->locked);
  free(c);
}

static cl_status cs_bind(void *p, const cl_criterion_bind_input *in) {
  cs *c = p;
  c->tau0 = in->params[CS_TOUGHNESS];
  c->boost = in->params[CS_BOOST];
  c->falloff = in->params[CS_FALLOFF];
  c->relax = in->params[CS_RELAX] != 0.0;
  return CL_OK;
}

static cl_status grow(cs *c, int32_t n) {
  if (n <= c->cap) return CL_OK;
  const size_t cap = cl_grow_capacity((size_t)c->cap, (size_t)n, INT32_MAX);
  CL_TRY(CL_RESIZE(c->volume, cap, "cluster_stretch unit volumes"));
  CL_TRY(CL_RESIZE(c->since, cap, "cluster_stretch break times"));
  CL_TRY(CL_RESIZE(c->locked, cap, "cluster_stretch unit flags"));
  c->cap = (int32_t)cap;
  return CL_OK;
}

/* An upper bound of the largest singular value of F: the largest eigenvalue of the symmetric
 * B = F^T F is q + 2 p cos(phi) <= q + 2 p in the trigonometric solution of its characteristic
 * cubic, with q = tr(B) / 3 and p = |B - q I|_F / sqrt(6) (Smith, CACM 4(4), 1961). NaN when F is
 * not finite. */
static double sigma_max_bound(const cl_mat3 *F) {
  const double *f = F->m;
  double b00 = f[0] * f[0] + f[3] * f[3] + f[6] * f[6], b11 = f[1] * f[1] + f[4] * f[4] + f[7] * f[7];
  double b22 = f[2] * f[2] + f[5] * f[5] + f[8] * f[8], b01 = f[0] * f[1] + f[3] * f[4] + f[6] * f[7];
  double b02 = f[0] * f[2] + f[3] * f[5] + f[6] * f[8], b12 = f[1] * f[2] + f[4] * f[5] + f[7] * f[8];
  double q = (b00 + b11 + b22) / 3.0;
  double p2 = (b00 - q) * (b00 - q) + (b11 - q) * (b11 - q) + (b22 - q) * (b22 - q) +
              2.0 * (b01 * b01 + b02 * b02 + b12 * b12);
  return sqrt(q + 2.0 * sqrt(p2 / 6.0));
}

static cl_status cs_evaluate(void *p, const cl_unit_fields *u, const cl_body_state *state, double dt,
                             cl_event_list *out) {
  (void)state;
  cs *c = p;
  const int32_t n = u->count;
  CL_TRY(grow(c, n));
  /* units without plastic deformation (all of them without plasticity) have F^p = I + 0, bitwise
   * the identity: its inverse, computed once, is bitwise what inverting each unit's F^p gives */
  const cl_mat3 I = cl_mat3_identity();
  cl_mat3 Iinv;
  const int have_iinv = cl_mat3_inverse(&I, &Iinv) == CL_OK;
  for (int32_t j = 0; j < n; ++j) {
    const double vol = u->volume[j];
    int broke = 0;
    if (j >= c->known) {
      c->since[j] = INFINITY;
      c->locked[j] = 0;
      broke = c->known > 0; /* a unit appended after the first evaluation is half of a split */
    } else if (vol < c->volume[j] * (1.0 - 1e-9)) {
      broke = vol > 0.0;
    }
    c->volume[j] = vol;
    if (broke) {
      c->since[j] = 0.0;
      c->locked[j] = (uint8_t)c->relax;
    }
    if (!(vol > 0.0)) continue;
    /* F^e = F (I + P)^-1 and its largest singular value */
    cl_mat3 F, Fp, Fpi;
    memcpy(F.m, u->F + 9 * (size_t)j, sizeof F.m);
    memcpy(Fp.m, u->plastic + 9 * (size_t)j, sizeof Fp.m);
    Fp.m[0] += 1.0;
    Fp.m[4] += 1.0;
    Fp.m[8] += 1.0;
    cl_mat3 Fe = F;
    if (have_iinv && memcmp(Fp.m, I.m, sizeof I.m) == 0)
      Fe = cl_mat3_mul(&F, &Iinv);
    else if (cl_mat3_inverse(&Fp, &Fpi) == CL_OK)
      Fe = cl_mat3_mul(&F, &Fpi);
    double tau = c->tau0;
    if (c->boost > 0.0 && isfinite(c->since[j])) tau *= 1.0 + c->boost * exp(-c->falloff * c->since[j]);
    /* most units are far below their toughness: a bound on Sigma_max settles them without the SVD
     * (the same decisions: the margin is far above the rounding of either) */
    if (sigma_max_bound(&Fe) - 1.0 < tau - 1e-9) {
      c->since[j] += dt;
      c->locked[j] = 0;
      continue;
    }
    cl_mat3 U, V;
    cl_vec3 sg;
    if (cl_svd3_fast(&Fe, &U, &sg, &V) < 0) {
      c->since[j] += dt;
      continue;
    }
    double strain = sg.x - 1.0;
    c->since[j] += dt;
    if (c->locked[j]) {
      if (strain <= tau) c->locked[j] = 0;
      continue;
    }
    if (!(strain > tau)) continue;
    const double normal[3] = {U.m[0], U.m[3], U.m[6]};
    cl_fracture_event e = cl_event_split_unit(j, normal, strain - tau, strain);
    CL_TRY(cl_event_push(out, &e));
  }
  c->known = n;
  return CL_OK;
}

const cl_criterion_ops cl_cluster_stretch_criterion_ops = {
    .name = "cluster_stretch",
    .help = "largest stretch of F^e against a toughness, boosted after a break (Jones et al., I3D 2016, sec 3.3)",
    .params = k_params,
    .param_count = 4,
    /* it reads F (and the plastic field) only, so any kind of unit will do */
    .caps = {.reads = CL_UNIT_BIT(CL_UNITS_TETS) | CL_UNIT_BIT(CL_UNITS_CLUSTERS) | CL_UNIT_BIT(CL_UNITS_PARTICLES),
             .emits = CL_EVENT_BIT(CL_EVENT_SPLIT_UNIT)},
    .create = cs_create,
    .destroy = cs_destroy,
    .bind = cs_bind,
    .evaluate = cs_evaluate,
};
