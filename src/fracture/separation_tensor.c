/* The separation-tensor criterion ("separation_tensor"): O'Brien & Hodgins, "Graphical modeling and
 * animation of brittle fracture", SIGGRAPH 1999, sec. 4, as used by O'Malley's thesis ch. 5.2-5.3.
 *
 * Per element (thesis sec 5.2), from the stress sigma the solver measured (cl_unit_fields.stress):
 *   eigen-decomposition sigma = sum_i v_i n_i n_i^T                                   (eq 5.4-5.5)
 *   sigma+ = sum_i max(0, v_i) m(n_i),  sigma- = sum_i min(0, v_i) m(n_i) = sigma - sigma+
 *   with m(a) = a a^T / |a| (0 for a = 0)                                              (eq 5.3)
 *   the element's tensile and compressive forces on its corner a                       (eq 5.6)
 *     f+_a = -v sigma+ grad N_a,   f-_a = -v sigma- grad N_a,
 * where v and grad N_a (the gradients of the barycentric coordinates) are those of the element's
 * CURRENT shape, so that f+_a + f-_a is the element's internal force on node a for the stress given.
 * Per node (thesis sec 5.3), with F+ and F- the sums of the f+ and f- its elements exert on it:
 *   zeta = 1/2 ( -m(F+) + sum m(f+) + m(F-) - sum m(f-) )                              (eq 5.7)
 * The largest eigenvalue of zeta, if positive and above the toughness (N), fails the node; its
 * eigenvector is the normal of the crack plane. A node pulled evenly from all sides (F+ = 0) gets
 * the full sum of its tensile forces; a node on which the pulls do not balance (a free surface) keeps
 * only the part that is not carried away as net force: cracks start where material is torn apart.
 *
 * Options: largest_only = 1 raises only the largest event of the step (the thesis, sec 5.4), 0 all
 * above the toughness (the world sorts them, the solver applies them in priority order). Nodes on an
 * island (connected piece) of at most min_island_elements elements are not checked (sec 5.4: such
 * fractures only make single-tet debris). Priority = measure / threshold: eigenvalue / toughness, or
 * lambda / A_n / strength.
 *
 * Additions (not in the papers; docs/solvers/corotational.md, "Clean cracks"):
 *   - strength > 0 (Pa): the eigenvalue is compared per unit area, lambda / A_n against the strength,
 *     A_n = 1/2 sum_e v_e |grad N_a . n| the node's share of the section normal to the crack normal n
 *     (current volumes and gradients). Under a uniform stress s n n^T an interior node has F+ = 0 and
 *     zeta = 1/2 sum_e v_e s |n . grad N_a| n n^T (eqs 5.6-5.7), so lambda / A_n = s exactly: a
 *     stress against a stress. The eigenvalue alone grows with the size of the elements around the
 *     node, so on a mesh graded at a notch root the toughness test picked coarse interior nodes
 *     first (the notched bar: 13 pieces, the crack 0.2 m from the notch).
 *   - crack_tips: cl_islands_select's rule (fracture/islands.h): nodes next to a crack wait for it
 *     and a piece starts at most one new crack per step.
 *
 * Needs tetrahedral units (cell_size 4, one unit per cell, as the corotational and other tet
 * solvers measure). The per-node scratch grows with the node count (fracture appends nodes); the
 * island labels are recomputed only when the topology version changes. */
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

typedef struct sep {
  double toughness;
  double strength;          /* Pa; > 0: compare the eigenvalue per unit area (see the file comment) */
  int largest_only;
  int crack_tips;
  int32_t min_island;
  int32_t cap;              /* nodes the scratch holds */
  double *fp, *fm;          /* 3 per node: sums of tensile and compressive forces, N */
  double *mp, *mm;          /* 6 per node: sums of m(f+) and m(f-) (xx yy zz xy yz zx), N */
  double *lam;              /* per node: largest eigenvalue of zeta (N), -1 if not checked */
  double *nrm;              /* 3 per node: its unit eigenvector, the crack plane's normal */
  double *area;             /* per node: A_n, its share of the section normal to nrm, m^2 */
  int32_t *elem;            /* per node: an element that touches it (the event's unit) */
  cl_islands islands;       /* piece sizes, for min_island_elements */
  int32_t ecap;
  double *ef;               /* 36 per element: f+ (12), f- (12), v grad N_a (12) of its corners */
} sep;

/* Indices of the parameter values bind receives. */
enum { SEP_TOUGHNESS, SEP_LARGEST_ONLY, SEP_MIN_ISLAND, SEP_STRENGTH, SEP_CRACK_TIPS, SEP_PARAM_COUNT };

static const cl_param_info k_params[SEP_PARAM_COUNT] = {
    [SEP_TOUGHNESS] = {.name = "toughness", .unit = "N",
     .help = "material toughness: a node fails when the largest eigenvalue of its separation tensor exceeds it "
             "(O'Brien & Hodgins 1999); not used when strength > 0",
     .value = 10.0, .min = 0.0, .max = 1e300},
    [SEP_LARGEST_ONLY] = CL_ISLANDS_PARAM_LARGEST_ONLY,
    [SEP_MIN_ISLAND] = CL_ISLANDS_PARAM_MIN_ELEMENTS,
    [SEP_STRENGTH] = {.name = "strength", .unit = "Pa",
     .help = "> 0: a node fails when the largest eigenvalue divided by the node's area across the crack plane "
             "(a tensile stress) exceeds this, instead of the toughness test; 0 = the toughness test",
     .value = 0.0, .min = 0.0, .max = 1e300},
    [SEP_CRACK_TIPS] = CL_ISLANDS_PARAM_CRACK_TIPS,
};

static cl_status sep_create(void **out) {
  sep *s = cl_calloc(1, sizeof *s, "separation tensor criterion");
  if (!s) return CL_ERR_OUT_OF_MEMORY;
  cl_islands_init(&s->islands);
  *out = s;
  return CL_OK;
}

static void sep_destroy(void *p) {
  sep *s = p;
  if (!s) return;
  free(s->fp);
  free(s->fm);
  free(s->mp);
  free(s->mm);
  free(s->lam);
  free(s->nrm);
  free(s->area);
  free(s->elem);
  cl_islands_free(&s->islands);
  free(s->ef);
  free(s);
}

static cl_status sep_bind(void *p, const cl_criterion_bind_input *in) {
  sep *s = p;
  s->toughness = in->params[SEP_TOUGHNESS];
  s->largest_only = in->params[SEP_LARGEST_ONLY] != 0.0;
  s->min_island = (int32_t)in->params[SEP_MIN_ISLAND];
  s->strength = in->params[SEP_STRENGTH];
  s->crack_tips = in->params[SEP_CRACK_TIPS] != 0.0;
  return CL_OK;
}

static cl_status grow(sep *s, int32_t n, int32_t ne) {
  if (n > s->cap) {
    const size_t cap = cl_grow_capacity((size_t)s->cap, (size_t)n, INT32_MAX);
    CL_TRY(CL_RESIZE(s->fp, 3 * cap, "separation_tensor's tensile force sums per node"));
    CL_TRY(CL_RESIZE(s->fm, 3 * cap, "separation_tensor's compressive force sums per node"));
    CL_TRY(CL_RESIZE(s->mp, 6 * cap, "separation_tensor's tensile m(f) sums per node"));
    CL_TRY(CL_RESIZE(s->mm, 6 * cap, "separation_tensor's compressive m(f) sums per node"));
    CL_TRY(CL_RESIZE(s->lam, cap, "separation_tensor's largest eigenvalue per node"));
    CL_TRY(CL_RESIZE(s->nrm, 3 * cap, "separation_tensor's crack normal per node"));
    CL_TRY(CL_RESIZE(s->area, cap, "separation_tensor's section area per node"));
    CL_TRY(CL_RESIZE(s->elem, cap, "separation_tensor's element per node"));
    s->cap = (int32_t)cap;
  }
  if (ne > s->ecap) {
    CL_TRY(CL_RESIZE(s->ef, 36 * (size_t)ne, "separation_tensor's corner forces per element"));
    s->ecap = ne;
  }
  return CL_OK;
}

/* m(a) added to a symmetric 6-vector with weight w. */
static inline void add_m(double *m6, const double *a, double w) {
  double n = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  if (!(n > 0.0)) return;
  double c = w / n;
  m6[0] += c * a[0] * a[0];
  m6[1] += c * a[1] * a[1];
  m6[2] += c * a[2] * a[2];
  m6[3] += c * a[0] * a[1];
  m6[4] += c * a[1] * a[2];
  m6[5] += c * a[2] * a[0];
}

/* Tensile and compressive corner forces of element e (eqs 5.4-5.6) into out[0..23], and v grad N_a
 * of its corners into out[24..35]; all 0 if degenerate. */
static void element_forces(const cl_unit_fields *u, const cl_body_state *st, int32_t e, double *out) {
  memset(out, 0, sizeof(double) * 36);
  cl_mat3 G; /* rows: current gradients of barycentric coordinates 1..3 */
  double v;
  if (!cl_fem_gradients(st->x, st->cells + 4 * e, &G, &v)) return;
  v = fabs(v);
  if (!(v > 0.0)) return;
  cl_mat3 sig;
  memcpy(sig.m, u->stress + 9 * (size_t)e, sizeof sig.m);
  cl_vec3 ev;
  cl_mat3 Q;
  if (cl_eig_sym3(&sig, &ev, &Q) < 0) return;
  cl_mat3 sp = cl_mat3_zero();
  const double lam[3] = {ev.x, ev.y, ev.z};
  for (int i = 0; i < 3; ++i)
    if (lam[i] > 0.0) cl_mat3_add_outer(&sp, lam[i], cl_mat3_col(&Q, i), cl_mat3_col(&Q, i));
  cl_mat3 sym = cl_mat3_sym(&sig);
  cl_mat3 sm = cl_mat3_sub(&sym, &sp);
  cl_fem_stress_forces(&sp, G.m, v, out);
  cl_fem_stress_forces(&sm, G.m, v, out + 12);
  double *vg = out + 24; /* corner 0: -(g_1 + g_2 + g_3) */
  for (int a = 1; a < 4; ++a)
    for (int k = 0; k < 3; ++k) {
      vg[3 * a + k] = v * G.m[3 * (a - 1) + k];
      vg[k] -= vg[3 * a + k];
    }
}

static cl_status sep_evaluate(void *p, const cl_unit_fields *u, const cl_body_state *st, double dt,
                              cl_event_list *events) {
  (void)dt;
  sep *s = p;
  if (st->cell_size != 4 || u->count != st->ncells)
    return cl_fail(CL_ERR_STATE, "separation_tensor: %d units for %d tets: the solver's units are not its tets",
                   u->count, st->ncells);
  const int32_t n = st->n, ne = st->ncells;
  CL_TRY(grow(s, n, ne));
  CL_TRY(cl_islands_update(&s->islands, st, "separation_tensor"));
#pragma omp parallel for schedule(static) if (ne > 4096)
  for (int32_t e = 0; e < ne; ++e) element_forces(u, st, e, s->ef + 36 * (size_t)e);
  memset(s->fp, 0, sizeof(double) * 3 * (size_t)n);
  memset(s->fm, 0, sizeof(double) * 3 * (size_t)n);
  memset(s->mp, 0, sizeof(double) * 6 * (size_t)n);
  memset(s->mm, 0, sizeof(double) * 6 * (size_t)n);
  for (int32_t i = 0; i < n; ++i) s->elem[i] = -1;
  for (int32_t e = 0; e < ne; ++e) {
    const double *f = s->ef + 36 * (size_t)e;
    for (int a = 0; a < 4; ++a) {
      const int32_t i = st->cells[4 * e + a];
      const double *fp = f + 3 * a, *fm = f + 12 + 3 * a;
      for (int k = 0; k < 3; ++k) {
        s->fp[3 * i + k] += fp[k];
        s->fm[3 * i + k] += fm[k];
      }
      add_m(s->mp + 6 * (size_t)i, fp, 1.0);
      add_m(s->mm + 6 * (size_t)i, fm, 1.0);
      if (s->elem[i] < 0) s->elem[i] = e;
    }
  }
  /* per node: the largest eigenvalue of zeta and its eigenvector */
  for (int32_t i = 0; i < n; ++i) {
    s->lam[i] = -1.0;
    if (s->elem[i] < 0 || cl_islands_elements_of(&s->islands, i) <= s->min_island) continue;
    double z[6] = {0, 0, 0, 0, 0, 0};
    add_m(z, s->fp + 3 * (size_t)i, -1.0);
    add_m(z, s->fm + 3 * (size_t)i, 1.0);
    for (int k = 0; k < 6; ++k) z[k] += s->mp[6 * (size_t)i + k] - s->mm[6 * (size_t)i + k];
    /* zeta = z / 2 (eq 5.7) */
    cl_mat3 zeta = {{0.5 * z[0], 0.5 * z[3], 0.5 * z[5], 0.5 * z[3], 0.5 * z[1], 0.5 * z[4], 0.5 * z[5], 0.5 * z[4],
                     0.5 * z[2]}};
    cl_vec3 ev;
    cl_mat3 Q;
    if (cl_eig_sym3(&zeta, &ev, &Q) < 0 || !(ev.x > 0.0)) continue;
    const cl_vec3 nrm = cl_mat3_col(&Q, 0);
    s->lam[i] = ev.x;
    s->nrm[3 * (size_t)i] = nrm.x;
    s->nrm[3 * (size_t)i + 1] = nrm.y;
    s->nrm[3 * (size_t)i + 2] = nrm.z;
  }
  /* Per unit area (strength > 0; not in the papers, see the file comment): the node's share of the
   * section normal to its crack plane, A_n = 1/2 sum_e v_e |grad N_a . n|. */
  if (s->strength > 0.0) {
    memset(s->area, 0, sizeof(double) * (size_t)n);
    for (int32_t e = 0; e < ne; ++e) {
      const double *vg = s->ef + 36 * (size_t)e + 24;
      for (int a = 0; a < 4; ++a) {
        const int32_t i = st->cells[4 * e + a];
        if (!(s->lam[i] > 0.0)) continue;
        const double *nv = s->nrm + 3 * (size_t)i;
        s->area[i] += 0.5 * fabs(vg[3 * a] * nv[0] + vg[3 * a + 1] * nv[1] + vg[3 * a + 2] * nv[2]);
      }
    }
  }
  const double threshold = s->strength > 0.0 ? s->strength : s->toughness;
  for (int32_t i = 0; i < n; ++i) {
    if (!(s->lam[i] > 0.0)) continue;
    double value = s->lam[i];
    if (s->strength > 0.0) {
      if (!(s->area[i] > 0.0)) continue;
      value /= s->area[i];
    }
    if (!(value > threshold)) continue;
    cl_fracture_event e = cl_event_split_node(i, s->elem[i], s->nrm + 3 * (size_t)i,
                                              value / (threshold > 0.0 ? threshold : 1.0), value);
    CL_TRY(cl_event_push(&s->islands.candidates, &e));
  }
  return cl_islands_select(&s->islands, s->crack_tips, s->largest_only, events);
}

const cl_criterion_ops cl_separation_tensor_criterion_ops = {
    .name = "separation_tensor",
    .help = "largest eigenvalue of the per-node separation tensor of tensile/compressive element forces against the "
            "toughness (O'Brien & Hodgins 1999; O'Malley 2015 ch. 5.2-5.3)",
    .params = k_params,
    .param_count = SEP_PARAM_COUNT,
    .caps = {.reads = CL_UNIT_BIT(CL_UNITS_TETS), .emits = CL_EVENT_BIT(CL_EVENT_SPLIT_NODE)},
    .create = sep_create,
    .destroy = sep_destroy,
    .bind = sep_bind,
    .evaluate = sep_evaluate,
};
