/* The edge criterion of graph-based FEM ("edge_stress"): Mandal, Chaudhuri and Chaudhuri, GRAPP 2025
 * ("the paper"), sec 3.1, eq 1 and Algorithm 1, with a regularised variant. docs/solvers/graph_fem.md,
 * "Fracture", has the equations, the choices and what they were measured to do.
 *
 * mode = "threshold" (the paper): every step, the stress sigma of each tet is projected on the
 * current direction n of each of its six edges,
 *     sigma_n = n^T sigma n = sum_ij sigma_ij n_i n_j                                       (eq 1)
 * and an edge whose largest sigma_n over the tets around it exceeds the tensile strength breaks for
 * good (damage 1, in every element that has it). Eq 1 as printed lists the shear terms once
 * (sigma_xy cos phi_x cos phi_y + ...); the tensor projection counts each twice (sigma_xy and
 * sigma_yx), so the printed form under-weights shear: a misprint, the tensor form is used here. The
 * paper projects the Piola-Kirchhoff stress; this criterion reads the Cauchy stress every solver
 * measures (cl_unit_fields), the normal traction on the plane across the edge, equal at the small
 * strains where brittle cracks start.
 *
 * mode = "softening" (not in the paper): the threshold's all-or-nothing damage dissipates an energy
 * that shrinks with the element size, and a single broken edge leaves its elements carrying most of
 * their stress, so damage spreads in a band before anything separates. Here each element is a crack
 * band (Bazant and Oh 1983) of its own width (Oliver 1989), and its damage is carried by its six
 * edges inside it (damage_edge events with in_unit):
 *   - initiation: the largest principal value sigma_1 of the element's effective stress
 *     sigma_eff = lambda tr(E) I + 2 mu E (E the Green strain, rest frame, so rotations do not count)
 *     reaches the strength f_t; its direction m then gives the band width h, the element's extent
 *     along m;
 *   - softening: with kappa the largest sigma_1 / E so far (damage never heals), the traction is the
 *     softening law's sigma(w) (softening_law: linear, or the bilinear law of the fib Model Code
 *     2010) at the crack opening w = h_b (kappa - sigma / E), the strain beyond the elastic part
 *     spread over the band; the damage D = 1 - sigma / (E kappa) is raised on all six edges of the
 *     element alone, so its energy is (1 - D) W (fem/edge_elastic.h, eq L: a secant damage model);
 *   - regularisation: the element dissipates r V int sigma de_cr with r = W / (V E kappa^2 / 2) at
 *     initiation (1 in uniaxial tension), so with the band h_b = r h every element dissipates
 *     V G_f / h and a crack G_f per unit area whatever the mesh. An element wider than E over the
 *     law's steepest slope would snap back: it breaks at once and dissipates more; bind warns
 *     (CL_WARN_CLAMPED) when the longest edge is that long.
 *   At D = 1 the element is gone: its edges hold nothing inside it, and an edge is cut in the graph
 *   once every element that has it is gone (graph_fem, edges.c), so a band of broken elements
 *   splits the body and a node whose elements are all broken moves freely.
 *
 * diffusion_radius R_d (the paper's crack diffusion kernel of support R_d, whose shape it leaves
 * open): when an edge breaks (reaches damage 1) by its own stress, or an element's crack band
 * breaks (its six edges), every edge whose rest midpoint lies at distance r < R_d from its rest midpoint
 * gets damage at least 1 - r / R_d in every element (a hat kernel), so a larger R_d gives more
 * diffuse cracks. R_d = 0 turns it off.
 *
 * hinge_angle (not in the paper; 0 = off): parts that meet only through a node or a line of nodes
 * turn about it without straining the tets beside it, so no stress breaks the joint and the never
 * remeshed body stays one piece (a crack that stops a row of elements short of a face). Around
 * each node next to a broken tet, the live tets are grouped by shared faces; a group turned by more
 * than hinge_angle against the node's largest group breaks through (damage 1 in its tets' six
 * edges, in_unit), which frees the node from it.
 *
 * Events: damage_edge (a, b, a tet of the edge, damage, priority = sigma_n / f_t or kappa / eps_0,
 * or the hinge's angle / hinge_angle).
 * Solvers that damage edges (caps.applies has damage_edge): graph_fem. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/mat3.h"
#include "fracture/criterion.h"
#include "geom/hash_grid.h"
#include "geom/tet_edges.h"

enum { ES_THRESHOLD = 0, ES_SOFTENING = 1 };

typedef struct es {
  double strength;      /* f_t, Pa */
  int mode;
  double gf;            /* G_f, J/m^2 */
  double rd;            /* R_d, m */
  double young, lambda, mu;
  int32_t n, ntets, nedges;
  int32_t *edge;        /* 2 per edge, a < b */
  int32_t *tet_edge;    /* 6 per tet */
  int32_t *edge_tet;    /* per edge: one tet that has it (the event's unit) */
  int32_t *et_ptr, *et; /* per edge (CSR): the tets that have it, each as 6 tet + its local edge */
  int32_t threads;      /* OpenMP threads of evaluate */
  double *sent;         /* per edge: damage raised in every element (threshold, diffusion) */
  double *sig;          /* per edge scratch: largest projected stress of this step (threshold) */
  int32_t *broke;       /* scratch: edges that broke or were cut through this step (for R_d) */
  cl_hash_grid grid;    /* rest midpoints, for the diffusion kernel */
  int grid_built;

  /* softening: the crack of each element */
  uint8_t *cracked;     /* per tet: 1 once its crack started */
  double *kappa;        /* per tet: largest sigma_1 / E so far */
  double *band;         /* per tet: its energy-equivalent band width r h, m */
  int law;              /* ES_LINEAR or ES_BILINEAR */
  int npts;             /* the law's corners (w_i, sigma_i), w_0 = 0, sigma_0 = f_t, last sigma = 0 */
  double lw[4], ls[4];  /* crack opening (m) and traction (Pa) at the corners */
  double *dsent;        /* per tet: damage raised on its six edges */

  /* hinge rule (hinge_angle > 0): the tets around each node */
  double hinge;         /* the relative rotation (rad) at which a hinge breaks; 0 = off */
  int32_t *nt_ptr;      /* n + 1: node -> tets (CSR) */
  int32_t *nt;          /* the tets of each node */
  int32_t maxdeg;       /* most tets around one node */
  uint8_t *killed;      /* per tet: broken by the hinge rule */
  uint8_t *gone;        /* per tet scratch: tet_gone of this step */
  int32_t *hseen;       /* per node: gone tets around it when its star was last found to be one group */
  uint8_t *hot;         /* per tet scratch (softening): its Gershgorin bound calls for the eigenvalues */
  int32_t *hl;          /* scratch, 3 maxdeg: a star's live tets, their groups, the group's root */
  double *hvol;         /* per tet: rest volume */
  double *hacc;         /* scratch, 10 maxdeg: per group, the weighted sum of F and the weight */
} es;

enum { ES_STRENGTH, ES_MODE, ES_FRACTURE_ENERGY, ES_DIFFUSION_RADIUS, ES_LAW, ES_HINGE, ES_PARAM_COUNT };
enum { ES_LINEAR = 0, ES_BILINEAR = 1 };

static const cl_param_info k_params[ES_PARAM_COUNT] = {
    [ES_STRENGTH] = {.name = "strength", .unit = "Pa",
                     .help = "tensile strength f_t: an edge breaks when the normal stress along it reaches this "
                             "(threshold, eq 1), or an element's crack starts when its largest principal stress "
                             "does (softening)",
                     .value = 1e5, .min = 0.0, .max = 1e300},
    [ES_MODE] = {.name = "mode", .unit = "1",
                 .help = "threshold: the paper's all-or-nothing edge damage at the strength; softening: a crack "
                         "band per element on its six edges, the softening_law dissipating fracture_energy per "
                         "crack area whatever the mesh size",
                 .value = ES_THRESHOLD, .min = 0.0, .max = 1.0, .kind = CL_PARAM_CHOICE, .choices = "threshold|softening"},
    [ES_FRACTURE_ENERGY] = {.name = "fracture_energy", .unit = "J/m^2",
                            .help = "G_f, energy per unit crack area of the softening mode (concrete ~100-150, glass "
                                    "~10, steel ~1e4 and up)",
                            .value = 100.0, .min = 0.0, .max = 1e300},
    [ES_DIFFUSION_RADIUS] = {.name = "diffusion_radius", .unit = "m",
                             .help = "R_d: a broken edge damages the edges within this distance by 1 - r / R_d (more "
                                     "diffuse cracks); 0 = off",
                             .value = 0.0, .min = 0.0, .max = 1e300},
    [ES_LAW] = {.name = "softening_law", .unit = "1",
                .help = "traction against crack opening of the softening mode, both with area fracture_energy: linear "
                        "(f_t to 0 at w_c = 2 G_f / f_t) or bilinear (fib Model Code 2010: f_t (1 - 0.8 w / w_1) up to "
                        "w_1 = G_f / f_t, then f_t (0.25 - 0.05 w / w_1) to 0 at 5 w_1; concrete)",
                .value = ES_LINEAR, .min = 0.0, .max = 1.0, .kind = CL_PARAM_CHOICE, .choices = "linear|bilinear"},
    [ES_HINGE] = {.name = "hinge_angle", .unit = "rad",
                  .help = "break hinges: where the live tets around a node fall into groups that share no face (parts "
                          "joined only through that node or an edge line, free to turn about it), the tets of a "
                          "group turned by more than this against the node's largest group break; 0 = off",
                  .value = 0.0, .min = 0.0, .max = 3.2},
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
  free(s->et_ptr);
  free(s->et);
  free(s->gone);
  free(s->hseen);
  free(s->hot);
  free(s->sent);
  free(s->sig);
  free(s->broke);
  free(s->cracked);
  free(s->kappa);
  free(s->band);
  free(s->dsent);
  free(s->nt_ptr);
  free(s->nt);
  free(s->killed);
  free(s->hl);
  free(s->hvol);
  free(s->hacc);
  if (s->grid_built) cl_hash_grid_free(&s->grid);
  free(s);
}

/* The hinge rule's tables: the tets around each node, their rest volumes. */
static cl_status hinge_bind(es *s, const cl_body_state *st) {
  const size_t nt = (size_t)s->ntets;
  s->nt_ptr = cl_calloc((size_t)s->n + 1, sizeof(int32_t), "edge_stress hinges");
  s->nt = cl_malloc(sizeof(int32_t) * 4 * nt, "edge_stress hinges");
  s->killed = cl_calloc(nt, 1, "edge_stress hinges");
  s->gone = cl_calloc(nt, 1, "edge_stress hinges");
  s->hseen = cl_calloc((size_t)s->n, sizeof(int32_t), "edge_stress hinges");
  s->hvol = cl_malloc(sizeof(double) * nt, "edge_stress hinges");
  if (!s->nt_ptr || !s->nt || !s->killed || !s->gone || !s->hseen || !s->hvol) return CL_ERR_OUT_OF_MEMORY;
  for (size_t t = 0; t < 4 * nt; ++t) s->nt_ptr[st->cells[t] + 1]++;
  s->maxdeg = 0;
  for (int32_t i = 0; i < s->n; ++i) {
    if (s->nt_ptr[i + 1] > s->maxdeg) s->maxdeg = s->nt_ptr[i + 1];
    s->nt_ptr[i + 1] += s->nt_ptr[i];
  }
  int32_t *fill = cl_malloc(sizeof(int32_t) * ((size_t)s->n + 1), "edge_stress hinges");
  s->hl = cl_malloc(sizeof(int32_t) * 2 * ((size_t)s->maxdeg + 1), "edge_stress hinges");
  s->hacc = cl_malloc(sizeof(double) * 10 * ((size_t)s->maxdeg + 1), "edge_stress hinges");
  if (!fill || !s->hl || !s->hacc) {
    free(fill);
    return CL_ERR_OUT_OF_MEMORY;
  }
  memcpy(fill, s->nt_ptr, sizeof(int32_t) * (size_t)s->n);
  for (size_t t = 0; t < nt; ++t) {
    const int32_t *v = st->cells + 4 * t;
    for (int a = 0; a < 4; ++a) s->nt[fill[v[a]]++] = (int32_t)t;
    const double *X0 = st->X + 3 * (size_t)v[0];
    double d[3][3];
    for (int a = 0; a < 3; ++a)
      for (int c = 0; c < 3; ++c) d[a][c] = st->X[3 * (size_t)v[a + 1] + c] - X0[c];
    s->hvol[t] = fabs(d[0][0] * (d[1][1] * d[2][2] - d[1][2] * d[2][1]) - d[0][1] * (d[1][0] * d[2][2] - d[1][2] * d[2][0]) +
                      d[0][2] * (d[1][0] * d[2][1] - d[1][1] * d[2][0])) / 6.0;
  }
  free(fill);
  return CL_OK;
}

static cl_status es_bind(void *p, const cl_criterion_bind_input *in) {
  es *s = p;
  const cl_body_state *st = in->state;
  s->strength = in->params[ES_STRENGTH];
  s->mode = (int)in->params[ES_MODE];
  s->gf = in->params[ES_FRACTURE_ENERGY];
  s->rd = in->params[ES_DIFFUSION_RADIUS];
  s->law = (int)in->params[ES_LAW];
  s->hinge = in->params[ES_HINGE];
  s->threads = in->threads > 0 ? in->threads : 1;
  const double ft = s->strength, gf = s->gf;
  if (s->law == ES_BILINEAR) { /* fib Model Code 2010, sec 5.1.5.2 */
    s->npts = 3;
    s->lw[0] = 0.0, s->ls[0] = ft;
    s->lw[1] = gf / ft, s->ls[1] = 0.2 * ft;
    s->lw[2] = 5.0 * gf / ft, s->ls[2] = 0.0;
  } else {
    s->npts = 2;
    s->lw[0] = 0.0, s->ls[0] = ft;
    s->lw[1] = 2.0 * gf / ft, s->ls[1] = 0.0;
  }
  const double E = in->material->young, nu = in->material->poisson;
  s->young = E;
  s->lambda = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
  s->mu = E / (2.0 * (1.0 + nu));
  if (!(s->strength > 0.0) || !isfinite(s->strength))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "criterion 'edge_stress': strength = %g Pa must be > 0 and finite",
                   s->strength);
  if (s->mode == ES_SOFTENING && !(s->gf > 0.0 && isfinite(s->gf)))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "criterion 'edge_stress': mode = \"softening\" needs fracture_energy > 0 "
                   "J/m^2 and finite (got %g)", s->gf);
  if (!(s->rd >= 0.0) || !isfinite(s->rd))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "criterion 'edge_stress': diffusion_radius = %g m must be >= 0 and finite",
                   s->rd);
  if (st->cell_size != 4 || st->ncells < 1)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "criterion 'edge_stress' needs a body of tets (solver '%s' has %d cells of "
                   "%d nodes)", in->solver, st->ncells, st->cell_size);
  s->n = st->n;
  s->ntets = st->ncells;
  s->tet_edge = cl_malloc(sizeof(int32_t) * 6 * (size_t)s->ntets, "edge_stress edges");
  if (!s->tet_edge) return CL_ERR_OUT_OF_MEMORY;
  CL_TRY(cl_tet_edge_list(st->n, st->ncells, st->cells, &s->edge, &s->nedges, s->tet_edge));
  const size_t ne = (size_t)s->nedges, nt = (size_t)s->ntets;
  s->edge_tet = cl_malloc(sizeof(int32_t) * ne, "edge_stress edges");
  s->sent = cl_calloc(ne, sizeof(double), "edge_stress edges");
  s->sig = cl_malloc(sizeof(double) * ne, "edge_stress edges");
  /* softening lists the six edges of every element that breaks in a step: up to 6 per tet */
  s->broke = cl_malloc(sizeof(int32_t) * (s->mode == ES_SOFTENING ? 6 * nt + 1 : ne + 1), "edge_stress edges");
  if (!s->edge_tet || !s->sent || !s->sig || !s->broke) return CL_ERR_OUT_OF_MEMORY;
  s->et_ptr = cl_calloc(ne + 1, sizeof(int32_t), "edge_stress edges");
  s->et = cl_malloc(sizeof(int32_t) * 6 * nt, "edge_stress edges");
  if (!s->et_ptr || !s->et) return CL_ERR_OUT_OF_MEMORY;
  for (size_t j = 0; j < 6 * nt; ++j) s->et_ptr[s->tet_edge[j] + 1]++;
  for (size_t q = 0; q < ne; ++q) s->et_ptr[q + 1] += s->et_ptr[q];
  /* filled in tet order, each start moved on to the next edge's, then moved back */
  for (size_t j = 0; j < 6 * nt; ++j) s->et[s->et_ptr[s->tet_edge[j]]++] = (int32_t)j;
  for (size_t q = ne; q > 0; --q) s->et_ptr[q] = s->et_ptr[q - 1];
  s->et_ptr[0] = 0;
  if (s->mode == ES_SOFTENING) {
    s->hot = cl_malloc(nt, "edge_stress cracks");
    if (!s->hot) return CL_ERR_OUT_OF_MEMORY;
    s->cracked = cl_calloc(nt, 1, "edge_stress cracks");
    s->kappa = cl_calloc(nt, sizeof(double), "edge_stress cracks");
    s->band = cl_calloc(nt, sizeof(double), "edge_stress cracks");
    s->dsent = cl_calloc(nt, sizeof(double), "edge_stress cracks");
    if (!s->cracked || !s->kappa || !s->band || !s->dsent)
      return CL_ERR_OUT_OF_MEMORY;
  }
  if (s->hinge > 0.0) CL_TRY(hinge_bind(s, st));
  for (int32_t t = s->ntets - 1; t >= 0; --t)
    for (int k = 0; k < 6; ++k) s->edge_tet[s->tet_edge[6 * (size_t)t + k]] = t;
  double *mid = cl_malloc(sizeof(double) * 3 * (ne ? ne : 1), "edge_stress edges");
  if (!mid) return CL_ERR_OUT_OF_MEMORY;
  double longest = 0.0;
  int32_t too_long = 0;
  /* the widest band that softens without snapping back: E over the law's steepest slope */
  double steep = 0.0;
  for (int i = 0; i + 1 < s->npts; ++i) steep = fmax(steep, (s->ls[i] - s->ls[i + 1]) / (s->lw[i + 1] - s->lw[i]));
  const double lmax = s->young / steep;
  for (size_t q = 0; q < ne; ++q) {
    const double *a = st->X + 3 * (size_t)s->edge[2 * q], *b = st->X + 3 * (size_t)s->edge[2 * q + 1];
    const double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const double L = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    for (int c = 0; c < 3; ++c) mid[3 * q + c] = 0.5 * (a[c] + b[c]);
    longest = fmax(longest, L);
    too_long += L > lmax;
  }
  cl_status r = CL_OK;
  if (s->rd > 0.0) {
    r = cl_hash_grid_build(&s->grid, mid, s->nedges, s->rd);
    s->grid_built = r >= 0;
  }
  free(mid);
  if (r < 0) return r;
  if (s->mode == ES_SOFTENING && too_long)
    return cl_fail(CL_WARN_CLAMPED, "criterion 'edge_stress' on %s: %d of %d edges (longest %.3g m) are longer than "
                   "E / (the softening law's steepest slope) = %.3g m: an element that wide would snap back "
                   "instead of softening, so it breaks at once and dissipates more than G_f. Refine the mesh below that length",
                   in->body_name ? in->body_name : "the body", too_long, s->nedges, longest, lmax);
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

/* eq 1 for every tet and edge: the largest n^T sigma n per edge (n along the current edge), edge by
 * edge over the tets that have it (each edge's unit direction once; a max in any order is the same
 * max, so every thread count gives the same numbers). The tensor projection sum_ij sigma_ij n_i n_j
 * with each shear pair summed (sigma_xy + sigma_yx) n_x n_y, which is the symmetric stress's
 * 2 sigma_xy n_x n_y. */
static void project_stresses(es *s, const cl_unit_fields *u, const cl_body_state *st) {
#pragma omp parallel for schedule(static, 1024) num_threads(s->threads) if (s->nedges > 8192)
  for (int32_t q = 0; q < s->nedges; ++q) {
    double best = -INFINITY;
    const double *a = st->x + 3 * (size_t)s->edge[2 * q], *b = st->x + 3 * (size_t)s->edge[2 * q + 1];
    double n[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (s->sent[q] < 1.0 && l > 0.0) {
      for (int c = 0; c < 3; ++c) n[c] /= l;
      const double w[6] = {n[0] * n[0], n[1] * n[1], n[2] * n[2], n[0] * n[1], n[1] * n[2], n[0] * n[2]};
      for (int32_t j = s->et_ptr[q]; j < s->et_ptr[q + 1]; ++j) {
        const double *S = u->stress + 9 * (size_t)(s->et[j] / 6);
        const double sn = S[0] * w[0] + S[4] * w[1] + S[8] * w[2] + (S[1] + S[3]) * w[3] + (S[5] + S[7]) * w[4] +
                          (S[2] + S[6]) * w[5];
        if (sn > best) best = sn;
      }
    }
    s->sig[q] = best;
  }
}

static cl_status threshold(es *s, const cl_unit_fields *u, const cl_body_state *st, cl_event_list *out,
                           int32_t *nbroke) {
  project_stresses(s, u, st);
  for (int32_t q = 0; q < s->nedges; ++q) {
    if (!(s->sig[q] > s->strength) || s->sent[q] >= 1.0) continue;
    s->sent[q] = 1.0;
    s->broke[(*nbroke)++] = q;
    cl_fracture_event e = cl_event_damage_edge(s->edge[2 * q], s->edge[2 * q + 1], s->edge_tet[q], 1.0,
                                               s->sig[q] / s->strength, s->sig[q]);
    CL_TRY(cl_event_push(out, &e));
  }
  return CL_OK;
}

/* The Green strain E = (F^T F - I) / 2 (rest frame, so rotations leave it unchanged). */
static cl_mat3 green_strain(const double *Fm) {
  cl_mat3 F, E;
  memcpy(F.m, Fm, sizeof F.m);
  E = cl_mat3_mul_tn(&F, &F);
  for (int k = 0; k < 9; ++k) E.m[k] *= 0.5;
  for (int k = 0; k < 3; ++k) E.m[4 * k] -= 0.5;
  return E;
}

/* The effective stress sigma_eff = lambda tr(E) I + 2 mu E of the Green strain E. */
static cl_mat3 effective_stress(const es *s, const cl_mat3 *Eg) {
  const cl_mat3 E = *Eg;
  const double tr = E.m[0] + E.m[4] + E.m[8];
  cl_mat3 S;
  for (int k = 0; k < 9; ++k) S.m[k] = 2.0 * s->mu * E.m[k];
  for (int k = 0; k < 3; ++k) S.m[4 * k] += s->lambda * tr;
  return S;
}

/* A crack starts in tet t with effective stress S, Green strain Eg and largest principal stress
 * sigma_1 along m: its energy-equivalent band width r h, from its width along m (h) and the energy
 * it releases per unit damage (r). */
static void start_crack(es *s, const cl_body_state *st, int32_t t, const double *m, const cl_mat3 *S,
                        const cl_mat3 *Eg, double sigma1) {
  s->cracked[t] = 1;
  const int32_t *v = st->cells + 4 * (size_t)t;
  double lo = INFINITY, hi = -INFINITY;
  for (int a = 0; a < 4; ++a) {
    const double *X = st->X + 3 * (size_t)v[a];
    const double q = X[0] * m[0] + X[1] * m[1] + X[2] * m[2];
    lo = fmin(lo, q);
    hi = fmax(hi, q);
  }
  const double h = hi - lo;
  /* r = W / (E kappa^2 / 2) with W = sigma_eff : E / 2 (energy densities): 1 in uniaxial tension */
  double w = 0.0;
  for (int k = 0; k < 9; ++k) w += 0.5 * S->m[k] * Eg->m[k];
  double r = w / (0.5 * sigma1 * sigma1 / s->young);
  if (!(r > 0.05)) r = 0.05;
  s->band[t] = r * h;
}

/* The traction of the softening law at the largest equivalent strain k of an element of band width
 * hb: sigma = law(w) with the crack opening w = hb (k - sigma / E) (the strain beyond the elastic
 * part, spread over the band), solved piece by piece of the law. 0 once the crack is open; also for
 * a band so wide that a piece would snap back (1 + slope hb / E <= 0: it breaks at once). */
static double law_traction(const es *s, double k, double hb) {
  for (int i = 0; i + 1 < s->npts; ++i) {
    const double slope = (s->ls[i + 1] - s->ls[i]) / (s->lw[i + 1] - s->lw[i]); /* < 0 */
    const double den = 1.0 + slope * hb / s->young;
    if (!(den > 0.0)) return 0.0;
    const double sig = (s->ls[i] + slope * (hb * k - s->lw[i])) / den;
    if (hb * (k - sig / s->young) <= s->lw[i + 1]) return sig > 0.0 ? sig : 0.0;
  }
  return 0.0;
}

static cl_status softening(es *s, const cl_unit_fields *u, const cl_body_state *st, cl_event_list *out,
                           int32_t *nbroke) {
  const double e0 = s->strength / s->young;
  /* Gershgorin's bound on sigma_1 first (in parallel: it reads and writes tet t alone): nothing
   * happens to an element without a crack unless sigma_1 > f_t, nor to a cracked one unless
   * sigma_1 / E > kappa (its damage follows kappa alone), and most elements are far below both */
  const double mu2 = 2.0 * s->mu;
#pragma omp parallel for schedule(static, 1024) num_threads(s->threads) if (s->ntets > 8192)
  for (int32_t t = 0; t < s->ntets; ++t) {
    s->hot[t] = 0;
    if (s->dsent[t] >= 1.0) continue;
    /* the six entries of E = (F^T F - I) / 2 from the columns of F, then row i of sigma_eff:
     * 2 mu E_ii + lambda tr E on the diagonal, 2 mu E_ij beside it. Rounded otherwise than the
     * eigenvalues' input below, so the bound is widened by far more than its rounding (1e-12 of its
     * terms' sizes): a tet near the limit gets its eigenvalues rather than being passed over */
    const double *F = u->F + 9 * (size_t)t;
    double E[3][3];
    for (int i = 0; i < 3; ++i)
      for (int j = i; j < 3; ++j)
        E[i][j] = E[j][i] = 0.5 * (F[i] * F[j] + F[3 + i] * F[3 + j] + F[6 + i] * F[6 + j] - (i == j ? 1.0 : 0.0));
    const double ltr = s->lambda * (E[0][0] + E[1][1] + E[2][2]);
    double bound = -INFINITY, size = 0.0;
    for (int i = 0; i < 3; ++i) {
      const double d = mu2 * E[i][i] + ltr, a = fabs(mu2 * E[i][(i + 1) % 3]), b = fabs(mu2 * E[i][(i + 2) % 3]);
      bound = fmax(bound, d + a + b);
      size = fmax(size, fabs(mu2 * E[i][i]) + fabs(ltr) + a + b);
    }
    bound += 1e-12 * size;
    s->hot[t] = s->cracked[t] ? bound > s->young * s->kappa[t] : bound > s->strength;
  }
  for (int32_t t = 0; t < s->ntets; ++t) {
    if (!s->hot[t]) continue;
    const cl_mat3 Eg = green_strain(u->F + 9 * (size_t)t);
    const cl_mat3 S = effective_stress(s, &Eg);
    cl_vec3 ev;
    cl_mat3 Q;
    if (cl_eig_sym3(&S, &ev, &Q) < 0) continue;
    if (!s->cracked[t]) {
      if (!(ev.x > s->strength)) continue;
      const double m[3] = {Q.m[0], Q.m[3], Q.m[6]};
      start_crack(s, st, t, m, &S, &Eg, ev.x);
    }
    const double keq = ev.x / s->young;
    if (keq > s->kappa[t]) s->kappa[t] = keq;
    const double k = s->kappa[t];
    if (!(k > e0)) continue;
    const double D = 1.0 - law_traction(s, k, s->band[t]) / (s->young * k);
    /* raise in steps of 1e-3 (and always the final break), so a slowly opening crack does not
     * rebuild its element's stiffness every step for nothing */
    if (!(D >= 1.0 || D > s->dsent[t] + 1e-3)) continue;
    s->dsent[t] = D;
    const int32_t *tq = s->tet_edge + 6 * (size_t)t;
    for (int q = 0; q < 6; ++q) {
      if (D >= 1.0) s->broke[(*nbroke)++] = tq[q];
      cl_fracture_event e = cl_event_damage_edge_in(s->edge[2 * tq[q]], s->edge[2 * tq[q] + 1], t, D, k / e0, k);
      CL_TRY(cl_event_push(out, &e));
    }
  }
  return CL_OK;
}

/* Is tet t gone, broken through by this criterion (its crack band open, all six edges broken, or
 * broken by the hinge rule)? */
static int tet_gone(const es *s, int32_t t) {
  if (s->killed[t]) return 1;
  if (s->mode == ES_SOFTENING) return s->dsent[t] >= 1.0;
  for (int k = 0; k < 6; ++k)
    if (s->sent[s->tet_edge[6 * (size_t)t + k]] < 1.0) return 0;
  return 1;
}

static int32_t uf_find(int32_t *g, int32_t i) {
  while (g[i] != i) i = g[i] = g[g[i]];
  return i;
}

/* Do tets a and b share a face (three nodes)? */
static int share_face(const int32_t *a, const int32_t *b) {
  int n = 0;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) n += a[i] == b[j];
  return n == 3;
}

/* The hinge rule (docs/solvers/graph_fem.md, "Hinges"). The live tets around node p are grouped by
 * shared faces (union-find on the star). Around a node of an intact mesh, or of a crack front,
 * they form one group; two or more groups mean parts joined only through p (and perhaps an edge
 * line through it): a hinge, which carries no moment about its line, so its tets rotate rigidly
 * without the strain that would break them. Each group's rotation is the polar factor of its
 * tets' mean F (weighted by rest volume times 1 - D); a group turned against the largest group by
 * more than hinge_angle breaks: its tets (in this star) break through, damage 1 on their six edges
 * inside them, which frees p from that part. */
static cl_status hinges(es *s, const cl_unit_fields *u, const cl_body_state *st, cl_event_list *out) {
  int32_t *live = s->hl, *grp = s->hl + s->maxdeg + 1;
#pragma omp parallel for schedule(static, 1024) num_threads(s->threads) if (s->ntets > 8192)
  for (int32_t t = 0; t < s->ntets; ++t) s->gone[t] = (uint8_t)tet_gone(s, t);
  for (int32_t p = 0; p < s->n; ++p) {
    int32_t m = 0, gone = 0;
    for (int32_t q = s->nt_ptr[p]; q < s->nt_ptr[p + 1]; ++q) gone += s->gone[s->nt[q]];
    /* tets never come back, so an unchanged count is an unchanged set: a star found to be one group
     * (or fewer than two live tets) with this many gone is still one */
    if (!gone || gone == s->hseen[p]) continue;
    for (int32_t q = s->nt_ptr[p]; q < s->nt_ptr[p + 1]; ++q)
      if (!s->gone[s->nt[q]]) live[m++] = s->nt[q];
    if (m < 2) {
      s->hseen[p] = gone;
      continue;
    }
    for (int32_t i = 0; i < m; ++i) grp[i] = i;
    for (int32_t i = 0; i < m; ++i)
      for (int32_t j = i + 1; j < m; ++j)
        if (share_face(st->cells + 4 * (size_t)live[i], st->cells + 4 * (size_t)live[j])) {
          const int32_t a = uf_find(grp, i), b = uf_find(grp, j);
          if (a != b) grp[a] = b;
        }
    int32_t groups = 0;
    for (int32_t i = 0; i < m; ++i) groups += uf_find(grp, i) == i;
    if (groups < 2) {
      s->hseen[p] = gone;
      continue;
    }
    memset(s->hacc, 0, sizeof(double) * 10 * (size_t)m);
    for (int32_t i = 0; i < m; ++i) {
      const int32_t t = live[i];
      double *acc = s->hacc + 10 * (size_t)uf_find(grp, i);
      const double w = s->hvol[t] * (s->mode == ES_SOFTENING ? 1.0 - s->dsent[t] : 1.0);
      for (int k = 0; k < 9; ++k) acc[k] += w * u->F[9 * (size_t)t + k];
      acc[9] += w;
    }
    int32_t big = -1;
    for (int32_t i = 0; i < m; ++i)
      if (grp[i] == i && (big < 0 || s->hacc[10 * (size_t)i + 9] > s->hacc[10 * (size_t)big + 9])) big = i;
    cl_mat3 A, Rb, R;
    memcpy(A.m, s->hacc + 10 * (size_t)big, sizeof A.m);
    if (cl_polar3(&A, &Rb, NULL) < 0) continue;
    for (int32_t g = 0; g < m; ++g) {
      if (grp[g] != g || g == big) continue;
      memcpy(A.m, s->hacc + 10 * (size_t)g, sizeof A.m);
      if (cl_polar3(&A, &R, NULL) < 0) continue;
      const cl_mat3 Q = cl_mat3_mul_tn(&Rb, &R);
      const double angle = acos(fmax(-1.0, fmin(1.0, 0.5 * (cl_mat3_trace(&Q) - 1.0))));
      if (!(angle > s->hinge)) continue;
      for (int32_t i = 0; i < m; ++i) {
        const int32_t t = live[i];
        if (uf_find(grp, i) != g || s->killed[t]) continue;
        s->killed[t] = s->gone[t] = 1;
        if (s->mode == ES_SOFTENING) s->dsent[t] = 1.0;
        const int32_t *tq = s->tet_edge + 6 * (size_t)t;
        for (int q = 0; q < 6; ++q) {
          cl_fracture_event e = cl_event_damage_edge_in(s->edge[2 * tq[q]], s->edge[2 * tq[q] + 1], t, 1.0,
                                                        angle / s->hinge, angle);
          CL_TRY(cl_event_push(out, &e));
        }
      }
    }
  }
  return CL_OK;
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
  if (s->mode == ES_THRESHOLD)
    CL_TRY(threshold(s, u, st, out, &nbroke));
  else
    CL_TRY(softening(s, u, st, out, &nbroke));
  if (s->hinge > 0.0) CL_TRY(hinges(s, u, st, out));
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
            "Chaudhuri, GRAPP 2025) against a strength, or a softening crack band per element on its six edges "
            "with a fracture energy; crack diffusion radius R_d",
    .params = k_params,
    .param_count = ES_PARAM_COUNT,
    .caps = {.reads = CL_UNIT_BIT(CL_UNITS_TETS), .emits = CL_EVENT_BIT(CL_EVENT_DAMAGE_EDGE)},
    .create = es_create,
    .destroy = es_destroy,
    .bind = es_bind,
    .evaluate = es_evaluate,
};
