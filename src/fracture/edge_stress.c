/* The edge criterion of graph-based FEM ("edge_stress"): Mandal, Chaudhuri and Chaudhuri, GRAPP 2025
 * ("the paper"), sec 3.1, eq 1 and Algorithm 1, with a regularised variant.
 *
 * mode = "threshold" (the paper): every step, the stress sigma of each tet is projected on the
 * current direction n of each of its six edges,
 *     sigma_n = n^T sigma n = sum_ij sigma_ij n_i n_j                                       (eq 1)
 * and an edge whose largest sigma_n over the tets around it exceeds the tensile strength breaks for
 * good (damage 1). Eq 1 as printed lists the shear terms once (sigma_xy cos phi_x cos phi_y + ...);
 * the tensor projection counts each twice (sigma_xy and sigma_yx), so the printed form under-weights
 * shear: a misprint, the tensor form is used here. The paper projects the Piola-Kirchhoff stress;
 * this criterion reads the Cauchy stress every solver measures (cl_unit_fields), the normal traction
 * on the plane across the edge, equal at the small strains where brittle cracks start.
 *
 * mode = "softening" (not in the paper): all-or-nothing damage at a stress threshold dissipates an
 * energy that shrinks with the element size, so results depend on the mesh. Here each edge follows a
 * linear softening law in its own strain eps = |x_b - x_a| / L - 1 (L its rest length), with
 * kappa = the largest eps so far: stress E eps up to eps_0 = f_t / E, then falling linearly to zero at
 *     eps_f = 2 G_f / (f_t L)
 * so the energy per unit crack area, (f_t eps_f / 2) L, is the fracture energy G_f whatever the edge
 * length (the crack band of Bazant and Oh 1983, with the band width the edge's length). The solver
 * condenses a damaged edge's strain in proportion to d (graph_fem/element.c), so a 1D chain of edges
 * carries (1 - d) E eps; the damage that puts the law's stress there is
 * d = 1 - sigma(kappa) / (E kappa). An edge longer than
 * 2 E G_f / f_t^2 would snap back (eps_f < eps_0): its strength is lowered to sqrt(2 E G_f / L) so it
 * still dissipates G_f, and bind warns (CL_WARN_CLAMPED) with the count.
 *
 * diffusion_radius R_d (the paper's crack diffusion kernel of support R_d, whose shape it leaves
 * open): when an edge breaks (reaches damage 1) by its own stress or strain, every edge whose rest
 * midpoint lies at distance r < R_d from its rest midpoint gets damage at least 1 - r / R_d (a hat
 * kernel), so a larger R_d gives more diffuse cracks. R_d = 0 turns it off.
 *
 * Events: damage_edge (a, b, a tet of the edge, damage, priority = sigma_n / f_t or kappa / eps_0).
 * Solvers that damage edges (caps.applies has damage_edge): graph_fem. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "fracture/criterion.h"
#include "geom/hash_grid.h"
#include "geom/tet_edges.h"

enum { ES_THRESHOLD = 0, ES_SOFTENING = 1 };

typedef struct es {
  double strength;      /* f_t, Pa */
  int mode;
  double gf;            /* G_f, J/m^2 */
  double rd;            /* R_d, m */
  double young;
  int32_t n, ntets, nedges;
  int32_t *edge;        /* 2 per edge, a < b */
  int32_t *tet_edge;    /* 6 per tet */
  int32_t *edge_tet;    /* per edge: one tet that has it (the event's unit) */
  double *len;          /* per edge: rest length, m */
  double *ft;           /* per edge: strength (lowered for long edges in softening mode), Pa */
  double *kappa;        /* per edge: largest strain so far (softening) */
  double *sent;         /* per edge: damage already raised */
  double *sig;          /* per edge scratch: largest projected stress of this step (threshold) */
  int32_t *broke;       /* scratch: edges that broke by their own measure this step */
  cl_hash_grid grid;    /* rest midpoints, for the diffusion kernel */
  int grid_built;
} es;

enum { ES_STRENGTH, ES_MODE, ES_FRACTURE_ENERGY, ES_DIFFUSION_RADIUS, ES_PARAM_COUNT };

static const cl_param_info k_params[ES_PARAM_COUNT] = {
    [ES_STRENGTH] = {.name = "strength", .unit = "Pa",
                     .help = "tensile strength f_t: an edge breaks (threshold) or starts to soften (softening) when "
                             "the normal stress along it reaches this (eq 1)",
                     .value = 1e5, .min = 0.0, .max = 1e300},
    [ES_MODE] = {.name = "mode", .unit = "1",
                 .help = "threshold: the paper's all-or-nothing damage at the strength; softening: linear softening "
                         "per edge dissipating fracture_energy per crack area whatever the mesh size",
                 .value = ES_THRESHOLD, .min = 0.0, .max = 1.0, .kind = CL_PARAM_CHOICE, .choices = "threshold|softening"},
    [ES_FRACTURE_ENERGY] = {.name = "fracture_energy", .unit = "J/m^2",
                            .help = "G_f, energy per unit crack area of the softening mode (concrete ~100, glass ~10)",
                            .value = 100.0, .min = 0.0, .max = 1e300},
    [ES_DIFFUSION_RADIUS] = {.name = "diffusion_radius", .unit = "m",
                             .help = "R_d: a broken edge damages the edges within this distance by 1 - r / R_d (more "
                                     "diffuse cracks); 0 = off",
                             .value = 0.0, .min = 0.0, .max = 1e300},
};

static cl_status es_create(void **out) {
  es *s = cl_calloc(1, sizeof *s, "edge_stress criterion");
  if (!s) return CL_ERR_OUT_OF_MEMORY;
  *out = s;
  return CL_OK;
}

static void es_destroy(void *p) {
  es *s = p;
  if (!s) return;
  free(s->edge);
  free(s->tet_edge);
  free(s->edge_tet);
  free(s->len);
  free(s->ft);
  free(s->kappa);
  free(s->sent);
  free(s->sig);
  free(s->broke);
  if (s->grid_built) cl_hash_grid_free(&s->grid);
  free(s);
}

static cl_status es_bind(void *p, const cl_criterion_bind_input *in) {
  es *s = p;
  const cl_body_state *st = in->state;
  s->strength = in->params[ES_STRENGTH];
  s->mode = (int)in->params[ES_MODE];
  s->gf = in->params[ES_FRACTURE_ENERGY];
  s->rd = in->params[ES_DIFFUSION_RADIUS];
  s->young = in->material->young;
  if (!(s->strength > 0.0))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "criterion 'edge_stress': strength = %g Pa must be > 0", s->strength);
  if (s->mode == ES_SOFTENING && !(s->gf > 0.0))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "criterion 'edge_stress': mode = \"softening\" needs fracture_energy > 0 "
                   "J/m^2 (got %g)", s->gf);
  if (st->cell_size != 4 || st->ncells < 1)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "criterion 'edge_stress' needs a body of tets (solver '%s' has %d cells of "
                   "%d nodes)", in->solver, st->ncells, st->cell_size);
  s->n = st->n;
  s->ntets = st->ncells;
  s->tet_edge = cl_malloc(sizeof(int32_t) * 6 * (size_t)s->ntets, "edge_stress edges");
  if (!s->tet_edge) return CL_ERR_OUT_OF_MEMORY;
  CL_TRY(cl_tet_edge_list(st->n, st->ncells, st->cells, &s->edge, &s->nedges, s->tet_edge));
  const size_t ne = (size_t)s->nedges;
  s->edge_tet = cl_malloc(sizeof(int32_t) * ne, "edge_stress edges");
  s->len = cl_malloc(sizeof(double) * ne, "edge_stress edges");
  s->ft = cl_malloc(sizeof(double) * ne, "edge_stress edges");
  s->kappa = cl_calloc(ne, sizeof(double), "edge_stress edges");
  s->sent = cl_calloc(ne, sizeof(double), "edge_stress edges");
  s->sig = cl_malloc(sizeof(double) * ne, "edge_stress edges");
  s->broke = cl_malloc(sizeof(int32_t) * ne, "edge_stress edges");
  double *mid = cl_malloc(sizeof(double) * 3 * ne, "edge_stress edges");
  if (!s->edge_tet || !s->len || !s->ft || !s->kappa || !s->sent || !s->sig || !s->broke || !mid) {
    free(mid);
    return CL_ERR_OUT_OF_MEMORY;
  }
  for (int32_t t = s->ntets - 1; t >= 0; --t)
    for (int k = 0; k < 6; ++k) s->edge_tet[s->tet_edge[6 * (size_t)t + k]] = t;
  const double lmax = 2.0 * s->young * s->gf / (s->strength * s->strength);
  int32_t lowered = 0;
  double longest = 0.0;
  for (size_t q = 0; q < ne; ++q) {
    const double *a = st->X + 3 * (size_t)s->edge[2 * q], *b = st->X + 3 * (size_t)s->edge[2 * q + 1];
    const double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    s->len[q] = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    for (int c = 0; c < 3; ++c) mid[3 * q + c] = 0.5 * (a[c] + b[c]);
    s->ft[q] = s->strength;
    if (s->mode == ES_SOFTENING && s->len[q] >= lmax) {
      /* 2 G_f / (f L) = f / E at f = sqrt(2 E G_f / L); keep eps_f a little above eps_0 */
      s->ft[q] = 0.99 * sqrt(2.0 * s->young * s->gf / s->len[q]);
      ++lowered;
      longest = fmax(longest, s->len[q]);
    }
  }
  cl_status r = CL_OK;
  if (s->rd > 0.0) {
    r = cl_hash_grid_build(&s->grid, mid, s->nedges, s->rd);
    s->grid_built = r >= 0;
  }
  free(mid);
  if (r < 0) return r;
  if (lowered)
    return cl_fail(CL_WARN_CLAMPED, "criterion 'edge_stress' on %s: %d of %d edges (longest %.3g m) are longer than "
                   "2 E G_f / f_t^2 = %.3g m, where linear softening would snap back; their strength is lowered to "
                   "sqrt(2 E G_f / L) so each still dissipates G_f. Refine the mesh below that length to keep f_t = "
                   "%g Pa everywhere", in->body_name ? in->body_name : "the body", lowered, s->nedges, longest, lmax,
                   s->strength);
  return CL_OK;
}

typedef struct spread_ctx {
  es *s;
  int32_t from;
  cl_event_list *out;
  cl_status status;
} spread_ctx;

/* The diffusion kernel: edge id at squared distance d2 from the broken edge gets 1 - r / R_d. */
static int spread(void *ctx, int32_t id, double d2) {
  spread_ctx *c = ctx;
  es *s = c->s;
  const double d = 1.0 - sqrt(d2) / s->rd;
  if (id == c->from || !(d > s->sent[id])) return 0;
  s->sent[id] = d;
  cl_fracture_event e = cl_event_damage_edge(s->edge[2 * id], s->edge[2 * id + 1], s->edge_tet[id], d, d, d);
  c->status = cl_event_push(c->out, &e);
  return c->status < 0;
}

/* eq 1 for every tet and edge: the largest n^T sigma n per edge (n along the current edge). */
static void project_stresses(es *s, const cl_unit_fields *u, const cl_body_state *st) {
  for (int32_t q = 0; q < s->nedges; ++q) s->sig[q] = -INFINITY;
  for (int32_t t = 0; t < s->ntets; ++t) {
    const double *S = u->stress + 9 * (size_t)t;
    for (int k = 0; k < 6; ++k) {
      const int32_t q = s->tet_edge[6 * (size_t)t + k];
      if (s->sent[q] >= 1.0) continue;
      const double *a = st->x + 3 * (size_t)s->edge[2 * q], *b = st->x + 3 * (size_t)s->edge[2 * q + 1];
      double n[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
      const double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
      if (!(l > 0.0)) continue;
      for (int c = 0; c < 3; ++c) n[c] /= l;
      double sn = 0.0;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) sn += S[3 * i + j] * n[i] * n[j];
      if (sn > s->sig[q]) s->sig[q] = sn;
    }
  }
}

static cl_status es_evaluate(void *p, const cl_unit_fields *u, const cl_body_state *st, double dt,
                             cl_event_list *out) {
  (void)dt;
  es *s = p;
  if (st->n != s->n || st->ncells != s->ntets || u->count != s->ntets)
    return cl_fail(CL_ERR_STATE, "criterion 'edge_stress': the body changed (%d nodes, %d tets, %d units; bound with "
                   "%d nodes and %d tets): it needs a solver that never remeshes", st->n, st->ncells, u->count, s->n,
                   s->ntets);
  int32_t nbroke = 0;
  if (s->mode == ES_THRESHOLD) {
    project_stresses(s, u, st);
    for (int32_t q = 0; q < s->nedges; ++q) {
      if (!(s->sig[q] > s->ft[q]) || s->sent[q] >= 1.0) continue;
      s->sent[q] = 1.0;
      s->broke[nbroke++] = q;
      cl_fracture_event e =
          cl_event_damage_edge(s->edge[2 * q], s->edge[2 * q + 1], s->edge_tet[q], 1.0, s->sig[q] / s->ft[q], s->sig[q]);
      CL_TRY(cl_event_push(out, &e));
    }
  } else {
    for (int32_t q = 0; q < s->nedges; ++q) {
      if (s->sent[q] >= 1.0) continue;
      const double *a = st->x + 3 * (size_t)s->edge[2 * q], *b = st->x + 3 * (size_t)s->edge[2 * q + 1];
      const double d3[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
      const double eps = sqrt(d3[0] * d3[0] + d3[1] * d3[1] + d3[2] * d3[2]) / s->len[q] - 1.0;
      if (eps > s->kappa[q]) s->kappa[q] = eps;
      const double k = s->kappa[q], e0 = s->ft[q] / s->young, ef = 2.0 * s->gf / (s->ft[q] * s->len[q]);
      if (!(k > e0)) continue;
      double d = 1.0;
      if (k < ef) {
        const double sigma = s->ft[q] * (ef - k) / (ef - e0); /* the law's stress at kappa */
        d = 1.0 - sigma / (s->young * k);
      }
      /* raise in steps of 1e-3 (and always the final break), so a slowly opening edge does not
       * rebuild its elements' stiffness every step for nothing */
      if (!(d >= 1.0 || d > s->sent[q] + 1e-3)) continue;
      if (d >= 1.0) s->broke[nbroke++] = q;
      s->sent[q] = d;
      cl_fracture_event e = cl_event_damage_edge(s->edge[2 * q], s->edge[2 * q + 1], s->edge_tet[q], d, k / e0, k);
      CL_TRY(cl_event_push(out, &e));
    }
  }
  if (s->rd > 0.0)
    for (int32_t i = 0; i < nbroke; ++i) {
      const int32_t q = s->broke[i];
      const double *a = st->X + 3 * (size_t)s->edge[2 * q], *b = st->X + 3 * (size_t)s->edge[2 * q + 1];
      const double mid[3] = {0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1]), 0.5 * (a[2] + b[2])};
      spread_ctx c = {s, q, out, CL_OK};
      cl_hash_grid_visit(&s->grid, mid, s->rd, spread, &c);
      CL_TRY(c.status);
    }
  return CL_OK;
}

const cl_criterion_ops cl_edge_stress_criterion_ops = {
    .name = "edge_stress",
    .help = "graph-based FEM edge fracture: element stress projected on each edge (eq 1 of Mandal, Chaudhuri and "
            "Chaudhuri, GRAPP 2025) against a strength, or linear softening with a fracture energy; crack diffusion "
            "radius R_d",
    .params = k_params,
    .param_count = ES_PARAM_COUNT,
    .caps = {.reads = CL_UNIT_BIT(CL_UNITS_TETS), .emits = CL_EVENT_BIT(CL_EVENT_DAMAGE_EDGE)},
    .create = es_create,
    .destroy = es_destroy,
    .bind = es_bind,
    .evaluate = es_evaluate,
};
