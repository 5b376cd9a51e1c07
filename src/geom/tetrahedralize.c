/* Tetrahedralization of a closed surface through TetGen, and the checks that keep TetGen from ever
 * seeing input it would crash or loop on: closedness and orientation, degenerate triangles,
 * self-intersections. Cavities (inner shells oriented into the cavity, as in a hollow sphere) get a
 * hole point so TetGen leaves them empty. */
#include "geom/tetrahedralize.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/progress.h"
#include "geom/bvh.h"
#include "geom/components.h"
#include "geom/tet.h"
#include "geom/tetgen_bridge.h"

void cl_tetgen_def_default(cl_tetgen_def *def) {
  if (!def) return;
  memset(def, 0, sizeof *def);
  def->max_radius_edge = 2.0; /* TetGen's own default for -q; it terminates reliably */
  def->min_dihedral = 0.0;
  def->max_volume = 0.0;
  def->max_steiner = -1;
  def->verbose = 0;
}

/* ---- closedness ------------------------------------------------------------------------------ */

typedef struct half_edge {
  uint64_t key;   /* (min << 32) | max of the two vertices */
  int32_t tri;
  int32_t fwd;    /* 1 when the triangle walks the edge from min to max */
} half_edge;

static int cmp_half_edge(const void *pa, const void *pb) {
  const half_edge *a = pa, *b = pb;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return (a->tri > b->tri) - (a->tri < b->tri);
}

static cl_status check_surface_kind(const cl_mesh *s, const char *fn) {
  if (!s) return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: surface is NULL", fn);
  if (s->kind != CL_MESH_TRIANGLES)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: the mesh holds %s, a triangle surface is needed", fn,
                   s->kind == CL_MESH_TETS ? "tets" : "points");
  if (s->ncells < 4)
    return cl_fail(CL_ERR_MESH, "%s: %d triangles cannot enclose a volume (at least 4 are needed)", fn, s->ncells);
  return CL_OK;
}

static void sub3(const double *a, const double *b, double *c);
static void cross3(const double *a, const double *b, double *c);

/* Orientation per connected shell: each must separate solid behind its triangles from outside in
 * front of them. Tested at the largest triangle of each shell, a little in front of it (winding
 * number of the whole surface ~0) and a little behind (~1). A whole cube plus a separate inward-facing
 * cube passed the edge test, and TetGen then filled both while sampling left the inverted one
 * empty; a cavity (an inner shell facing into the void, as in a hollow sphere) passes. A single
 * shell is left to the volume tests of tetrahedralize and sampling, which call it inside out. */
static cl_status check_shells(const cl_mesh *s) {
  int32_t *plabel = cl_malloc(sizeof(int32_t) * (size_t)s->npoints, "component labels");
  if (!plabel) return CL_ERR_OUT_OF_MEMORY;
  int32_t ncomp = 0;
  cl_status st = cl_components(s->npoints, s->cells, s->ncells, 3, plabel, &ncomp);
  if (st >= 0 && ncomp <= 1) {
    free(plabel);
    return CL_OK;
  }
  int32_t *best = st >= 0 ? cl_malloc(sizeof(int32_t) * (size_t)(ncomp > 0 ? ncomp : 1), "shell triangles") : NULL;
  double *area = st >= 0 ? cl_malloc(sizeof(double) * (size_t)(ncomp > 0 ? ncomp : 1), "shell areas") : NULL;
  int32_t *ntri = st >= 0 ? cl_calloc((size_t)(ncomp > 0 ? ncomp : 1), sizeof(int32_t), "shell sizes") : NULL;
  cl_bvh bvh;
  memset(&bvh, 0, sizeof bvh);
  if (st >= 0 && (!best || !area || !ntri)) st = CL_ERR_OUT_OF_MEMORY;
  if (st >= 0) {
    for (int32_t c = 0; c < ncomp; ++c) best[c] = -1, area[c] = -1.0;
    for (int32_t t = 0; t < s->ncells; ++t) {
      const int32_t *v = s->cells + 3 * (size_t)t;
      int32_t c = plabel[v[0]];
      double e1[3], e2[3], n[3];
      sub3(s->x + 3 * (size_t)v[1], s->x + 3 * (size_t)v[0], e1);
      sub3(s->x + 3 * (size_t)v[2], s->x + 3 * (size_t)v[0], e2);
      cross3(e1, e2, n);
      double a = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
      ntri[c]++;
      if (a > area[c]) area[c] = a, best[c] = t;
    }
    st = cl_bvh_build(s->x, s->cells, s->ncells, 1, &bvh);
  }
  for (int32_t c = 0; c < ncomp && st >= 0; ++c) {
    if (best[c] < 0 || !(area[c] > 0.0)) continue;
    const int32_t *v = s->cells + 3 * (size_t)best[c];
    double e1[3], e2[3], n[3], g[3], front[3], back[3];
    sub3(s->x + 3 * (size_t)v[1], s->x + 3 * (size_t)v[0], e1);
    sub3(s->x + 3 * (size_t)v[2], s->x + 3 * (size_t)v[0], e2);
    cross3(e1, e2, n);
    const double eps = 1e-3 * sqrt(0.5 * area[c]); /* a thousandth of the triangle's size */
    for (int k = 0; k < 3; ++k) {
      g[k] = (s->x[3 * v[0] + k] + s->x[3 * v[1] + k] + s->x[3 * v[2] + k]) / 3.0;
      front[k] = g[k] + eps * n[k] / area[c];
      back[k] = g[k] - eps * n[k] / area[c];
    }
    const double wf = cl_bvh_winding_number(&bvh, front, 2.0), wb = cl_bvh_winding_number(&bvh, back, 2.0);
    if (fabs(wf) < 0.5 && fabs(wb - 1.0) < 0.5) continue;
    st = cl_fail(CL_ERR_MESH,
                 "surface orientation: the shell of %d triangles around (%g, %g, %g) (%d of %d shells) %s; every "
                 "triangle must be counter-clockwise seen from outside the solid, and an inner shell bounding a "
                 "cavity must lie inside another shell",
                 ntri[c], g[0], g[1], g[2], c + 1, ncomp,
                 wf < -0.5 ? "is inside out (its triangles face into the solid it encloses)"
                           : "overlaps the solid of another shell (a solid inside a solid)");
  }
  cl_bvh_free(&bvh);
  free(best);
  free(area);
  free(ntri);
  free(plabel);
  return st;
}

cl_status cl_mesh_check_closed(const cl_mesh *s) {
  CL_TRY(check_surface_kind(s, "cl_mesh_check_closed"));
  size_t ne = 3 * (size_t)s->ncells;
  half_edge *he = cl_malloc(sizeof *he * ne, "edge list");
  if (!he) return CL_ERR_OUT_OF_MEMORY;
  for (int32_t t = 0; t < s->ncells; ++t)
    for (int k = 0; k < 3; ++k) {
      int32_t a = s->cells[3 * (size_t)t + k], b = s->cells[3 * (size_t)t + (k + 1) % 3];
      if (a < 0 || a >= s->npoints || b < 0 || b >= s->npoints || a == b) {
        free(he);
        return cl_fail(CL_ERR_MESH, "triangle %d has a bad edge (%d, %d) (points in [0, %d), distinct)", t, a, b,
                       s->npoints);
      }
      int32_t lo = a < b ? a : b, hi = a < b ? b : a;
      half_edge *h = &he[3 * (size_t)t + k];
      h->key = ((uint64_t)(uint32_t)lo << 32) | (uint32_t)hi;
      h->tri = t;
      h->fwd = a < b;
    }
  qsort(he, ne, sizeof *he, cmp_half_edge);
  /* Report the bad edge whose first triangle comes first, so the message is stable. */
  size_t bad = ne, bad_n = 0;
  int32_t bad_tri = INT32_MAX;
  for (size_t i = 0; i < ne;) {
    size_t j = i + 1;
    while (j < ne && he[j].key == he[i].key) ++j;
    size_t n = j - i;
    int ok = n == 2 && he[i].fwd + he[i + 1].fwd == 1;
    if (!ok && he[i].tri < bad_tri) {
      bad = i;
      bad_n = n;
      bad_tri = he[i].tri;
    }
    i = j;
  }
  if (bad == ne) {
    free(he);
    return check_shells(s);
  }
  int32_t a = (int32_t)(he[bad].key >> 32), b = (int32_t)(he[bad].key & 0xffffffffu);
  const double *pa = s->x + 3 * (size_t)a, *pb = s->x + 3 * (size_t)b;
  cl_status st;
  if (bad_n == 1)
    st = cl_fail(CL_ERR_MESH,
                 "surface is not closed: edge (%d, %d) from (%g, %g, %g) to (%g, %g, %g) belongs to triangle %d only "
                 "(a hole or crack in the surface)",
                 a, b, pa[0], pa[1], pa[2], pb[0], pb[1], pb[2], he[bad].tri);
  else if (bad_n > 2)
    st = cl_fail(CL_ERR_MESH,
                 "surface is not edge-manifold: edge (%d, %d) from (%g, %g, %g) to (%g, %g, %g) is shared by %zu "
                 "triangles (%d, %d, %d, ...)",
                 a, b, pa[0], pa[1], pa[2], pb[0], pb[1], pb[2], bad_n, he[bad].tri, he[bad + 1].tri, he[bad + 2].tri);
  else
    st = cl_fail(CL_ERR_MESH,
                 "surface orientation is inconsistent: triangles %d and %d both run edge (%d, %d) from (%g, %g, %g) to "
                 "(%g, %g, %g) in the same direction (every triangle must be counter-clockwise seen from outside)",
                 he[bad].tri, he[bad + 1].tri, a, b, pa[0], pa[1], pa[2], pb[0], pb[1], pb[2]);
  free(he);
  return st;
}

/* ---- self-intersection ----------------------------------------------------------------------- */

static void sub3(const double *a, const double *b, double *r) {
  r[0] = a[0] - b[0];
  r[1] = a[1] - b[1];
  r[2] = a[2] - b[2];
}
static void cross3(const double *a, const double *b, double *r) {
  r[0] = a[1] * b[2] - a[2] * b[1];
  r[1] = a[2] * b[0] - a[0] * b[2];
  r[2] = a[0] * b[1] - a[1] * b[0];
}
static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static double orient2d(const double *a, const double *b, const double *c) {
  return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

/* Closed 2D tests on the projection that drops the normal's dominant axis. */
static int point_in_tri2(const double *p, const double *a, const double *b, const double *c) {
  double d0 = orient2d(a, b, p), d1 = orient2d(b, c, p), d2 = orient2d(c, a, p);
  return (d0 >= 0 && d1 >= 0 && d2 >= 0) || (d0 <= 0 && d1 <= 0 && d2 <= 0);
}
static int on_segment2(const double *p, const double *a, const double *b) {
  return fmin(a[0], b[0]) <= p[0] && p[0] <= fmax(a[0], b[0]) && fmin(a[1], b[1]) <= p[1] && p[1] <= fmax(a[1], b[1]);
}
static int segments_meet2(const double *p, const double *q, const double *a, const double *b) {
  double d1 = orient2d(a, b, p), d2 = orient2d(a, b, q), d3 = orient2d(p, q, a), d4 = orient2d(p, q, b);
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) return 1;
  if (d1 == 0 && on_segment2(p, a, b)) return 1;
  if (d2 == 0 && on_segment2(q, a, b)) return 1;
  if (d3 == 0 && on_segment2(a, p, q)) return 1;
  if (d4 == 0 && on_segment2(b, p, q)) return 1;
  return 0;
}

static void project2(const double *p, int drop, double *out) {
  int i0 = drop == 0 ? 1 : 0, i1 = drop == 2 ? 1 : 2;
  out[0] = p[i0];
  out[1] = p[i1];
}

int cl_segment_triangle_intersect(const double *e0, const double *e1, const double *a, const double *b,
                                  const double *c, double tol) {
  double ab[3], ac[3], n[3], r0[3], r1[3];
  sub3(b, a, ab);
  sub3(c, a, ac);
  cross3(ab, ac, n);
  double nl = sqrt(dot3(n, n));
  if (nl == 0.0) return 0; /* degenerate triangles are reported separately */
  sub3(e0, a, r0);
  sub3(e1, a, r1);
  double s0 = dot3(n, r0) / nl, s1 = dot3(n, r1) / nl;
  if (fabs(s0) <= tol) s0 = 0.0;
  if (fabs(s1) <= tol) s1 = 0.0;
  if ((s0 > 0 && s1 > 0) || (s0 < 0 && s1 < 0)) return 0;
  int drop = 0;
  if (fabs(n[1]) > fabs(n[drop])) drop = 1;
  if (fabs(n[2]) > fabs(n[drop])) drop = 2;
  double A[2], B[2], C[2];
  project2(a, drop, A);
  project2(b, drop, B);
  project2(c, drop, C);
  if (s0 == 0.0 && s1 == 0.0) { /* coplanar: an endpoint inside or a crossing with an edge */
    double P[2], Q[2];
    project2(e0, drop, P);
    project2(e1, drop, Q);
    return point_in_tri2(P, A, B, C) || point_in_tri2(Q, A, B, C) || segments_meet2(P, Q, A, B) ||
           segments_meet2(P, Q, B, C) || segments_meet2(P, Q, C, A);
  }
  double t = s0 / (s0 - s1), x[3], X[2];
  for (int k = 0; k < 3; ++k) x[k] = e0[k] + t * (e1[k] - e0[k]);
  project2(x, drop, X);
  return point_in_tri2(X, A, B, C);
}

typedef struct si_ctx {
  const cl_mesh *s;
  double tol;
  int32_t hit_a, hit_b;
} si_ctx;

static int pair_intersects(int32_t ta, int32_t tb, void *vctx) {
  si_ctx *ctx = vctx;
  const cl_mesh *s = ctx->s;
  const int32_t *u = s->cells + 3 * (size_t)ta, *v = s->cells + 3 * (size_t)tb;
  int shared = 0, su = -1, sv = -1;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      if (u[i] == v[j]) {
        ++shared;
        su = i;
        sv = j;
      }
  const double *P[3], *Q[3];
  for (int i = 0; i < 3; ++i) {
    P[i] = s->x + 3 * (size_t)u[i];
    Q[i] = s->x + 3 * (size_t)v[i];
  }
  int hit = 0;
  if (shared == 0) {
    /* Non-coplanar triangles meet iff an edge of one crosses the other; coplanar ones iff an edge
     * crosses or a vertex lies inside, which the coplanar branch of the segment test covers. */
    for (int i = 0; i < 3 && !hit; ++i) {
      hit = cl_segment_triangle_intersect(P[i], P[(i + 1) % 3], Q[0], Q[1], Q[2], ctx->tol) ||
            cl_segment_triangle_intersect(Q[i], Q[(i + 1) % 3], P[0], P[1], P[2], ctx->tol);
    }
  } else if (shared == 1) {
    /* Sharing vertex w: (w, a, b) and (w, c, d) meet elsewhere iff segment ab meets the second
     * triangle or segment cd meets the first. */
    hit = cl_segment_triangle_intersect(P[(su + 1) % 3], P[(su + 2) % 3], Q[0], Q[1], Q[2], ctx->tol) ||
          cl_segment_triangle_intersect(Q[(sv + 1) % 3], Q[(sv + 2) % 3], P[0], P[1], P[2], ctx->tol);
  } else if (shared == 3) {
    hit = 1; /* the same triangle twice */
  }
  if (hit) {
    ctx->hit_a = ta;
    ctx->hit_b = tb;
  }
  return hit;
}

static double bbox_diagonal(const cl_mesh *s) {
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int32_t i = 0; i < s->npoints; ++i)
    for (int k = 0; k < 3; ++k) {
      lo[k] = fmin(lo[k], s->x[3 * i + k]);
      hi[k] = fmax(hi[k], s->x[3 * i + k]);
    }
  if (s->npoints == 0) return 0.0;
  return sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
}

static cl_status check_degenerate_triangles(const cl_mesh *s, double diag) {
  /* Relative to the model size: TetGen's own tolerance is 1e-8 of the bounding box. */
  double min_area = 1e-14 * diag * diag;
  for (int32_t t = 0; t < s->ncells; ++t) {
    const int32_t *v = s->cells + 3 * (size_t)t;
    double e1[3], e2[3], n[3];
    sub3(s->x + 3 * (size_t)v[1], s->x + 3 * (size_t)v[0], e1);
    sub3(s->x + 3 * (size_t)v[2], s->x + 3 * (size_t)v[0], e2);
    cross3(e1, e2, n);
    double area = 0.5 * sqrt(dot3(n, n));
    if (!(area > min_area))
      return cl_fail(CL_ERR_MESH, "triangle %d (points %d, %d, %d) is degenerate: area %g m^2 (its corners are collinear)",
                     t, v[0], v[1], v[2], area);
  }
  return CL_OK;
}

cl_status cl_surface_check_self_intersections(const cl_mesh *s) {
  CL_TRY(check_surface_kind(s, "cl_surface_check_self_intersections"));
  double diag = bbox_diagonal(s);
  CL_TRY(check_degenerate_triangles(s, diag));
  cl_bvh bvh;
  CL_TRY(cl_bvh_build(s->x, s->cells, s->ncells, 0, &bvh));
  si_ctx ctx = {s, 1e-12 * diag, -1, -1};
  int hit = cl_bvh_overlapping_pairs(&bvh, 0.0, pair_intersects, &ctx);
  cl_bvh_free(&bvh);
  if (!hit) return CL_OK;
  const int32_t *u = s->cells + 3 * (size_t)ctx.hit_a, *v = s->cells + 3 * (size_t)ctx.hit_b;
  double cu[3], cv[3];
  for (int k = 0; k < 3; ++k) {
    cu[k] = (s->x[3 * u[0] + k] + s->x[3 * u[1] + k] + s->x[3 * u[2] + k]) / 3.0;
    cv[k] = (s->x[3 * v[0] + k] + s->x[3 * v[1] + k] + s->x[3 * v[2] + k]) / 3.0;
  }
  return cl_fail(CL_ERR_MESH,
                 "surface self-intersects: triangle %d (points %d, %d, %d; centroid (%g, %g, %g)) crosses triangle %d "
                 "(points %d, %d, %d; centroid (%g, %g, %g))",
                 ctx.hit_a, u[0], u[1], u[2], cu[0], cu[1], cu[2], ctx.hit_b, v[0], v[1], v[2], cv[0], cv[1], cv[2]);
}

/* ---- cavities -------------------------------------------------------------------------------- */

/* Volume enclosed by the triangles (of one label), by the divergence theorem: the sum of the signed
 * volumes of the cones from the origin over the triangles. */
static double signed_volume_of(const cl_mesh *s, const int32_t *tri_label, int32_t label) {
  static const double origin[3] = {0.0, 0.0, 0.0};
  double vol = 0.0;
  for (int32_t t = 0; t < s->ncells; ++t) {
    if (tri_label && tri_label[t] != label) continue;
    const int32_t *v = s->cells + 3 * (size_t)t;
    vol += cl_tet_volume(origin, s->x + 3 * (size_t)v[0], s->x + 3 * (size_t)v[1], s->x + 3 * (size_t)v[2]);
  }
  return vol;
}

/* A point inside every cavity: each connected shell with negative enclosed volume bounds a void
 * (its normals point into it). From the centroid of its largest triangle, step along the normal half
 * way to the next surface hit, and keep the point if the winding number says it lies outside the
 * solid. *holes_out is malloc'd (3 doubles per hole). */
static cl_status find_cavity_points(const cl_mesh *s, double **holes_out, int32_t *nholes_out) {
  *holes_out = NULL;
  *nholes_out = 0;
  int32_t *plabel = cl_malloc(sizeof(int32_t) * (size_t)s->npoints, "component labels");
  if (!plabel) return CL_ERR_OUT_OF_MEMORY;
  int32_t ncomp;
  cl_status st = cl_components(s->npoints, s->cells, s->ncells, 3, plabel, &ncomp);
  if (st < 0) {
    free(plabel);
    return st;
  }
  int32_t *tlabel = cl_malloc(sizeof(int32_t) * (size_t)s->ncells, "component labels");
  double *holes = cl_malloc(sizeof(double) * 3 * (size_t)(ncomp > 0 ? ncomp : 1), "hole points");
  cl_bvh bvh;
  memset(&bvh, 0, sizeof bvh);
  if (!tlabel || !holes) {
    st = CL_ERR_OUT_OF_MEMORY;
    goto done;
  }
  for (int32_t t = 0; t < s->ncells; ++t) tlabel[t] = plabel[s->cells[3 * (size_t)t]];
  int32_t nh = 0;
  for (int32_t c = 0; c < ncomp; ++c) {
    int has_tri = 0;
    for (int32_t t = 0; t < s->ncells && !has_tri; ++t) has_tri = tlabel[t] == c;
    if (!has_tri || signed_volume_of(s, tlabel, c) >= 0) continue;
    if (!bvh.nodes) {
      st = cl_bvh_build(s->x, s->cells, s->ncells, 1, &bvh);
      if (st < 0) goto done;
    }
    int32_t best = -1;
    double best_area = -1.0, best_n[3] = {0, 0, 0};
    for (int32_t t = 0; t < s->ncells; ++t) {
      if (tlabel[t] != c) continue;
      const int32_t *v = s->cells + 3 * (size_t)t;
      double e1[3], e2[3], n[3];
      sub3(s->x + 3 * (size_t)v[1], s->x + 3 * (size_t)v[0], e1);
      sub3(s->x + 3 * (size_t)v[2], s->x + 3 * (size_t)v[0], e2);
      cross3(e1, e2, n);
      double a = sqrt(dot3(n, n));
      if (a > best_area) {
        best_area = a;
        best = t;
        for (int k = 0; k < 3; ++k) best_n[k] = n[k] / a;
      }
    }
    const int32_t *v = s->cells + 3 * (size_t)best;
    double g[3], th;
    for (int k = 0; k < 3; ++k) g[k] = (s->x[3 * v[0] + k] + s->x[3 * v[1] + k] + s->x[3 * v[2] + k]) / 3.0;
    if (cl_bvh_ray_first_hit(&bvh, g, best_n, 0.0, best, &th) < 0) continue;
    double h[3];
    for (int k = 0; k < 3; ++k) h[k] = g[k] + 0.5 * th * best_n[k];
    double w = cl_bvh_winding_number(&bvh, h, 2.0);
    if (fabs(w) < 0.5) {
      memcpy(holes + 3 * (size_t)nh, h, sizeof h);
      ++nh;
    }
  }
  *holes_out = holes;
  *nholes_out = nh;
  holes = NULL;
done:
  cl_bvh_free(&bvh);
  free(holes);
  free(tlabel);
  free(plabel);
  return st;
}

/* ---- TetGen ---------------------------------------------------------------------------------- */

/* Keep only points some tet uses, renumbering the tets. */
static cl_status compact_points(double *x, int32_t *npoints, int32_t *tets, int32_t ntets) {
  int32_t *map = cl_malloc(sizeof(int32_t) * (size_t)(*npoints > 0 ? *npoints : 1), "point map");
  if (!map) return CL_ERR_OUT_OF_MEMORY;
  for (int32_t i = 0; i < *npoints; ++i) map[i] = -1;
  for (size_t i = 0; i < 4 * (size_t)ntets; ++i) map[tets[i]] = 0;
  int32_t n = 0;
  for (int32_t i = 0; i < *npoints; ++i)
    if (map[i] == 0) {
      map[i] = n;
      if (n != i) memmove(x + 3 * (size_t)n, x + 3 * (size_t)i, 3 * sizeof(double));
      ++n;
    }
  for (size_t i = 0; i < 4 * (size_t)ntets; ++i) tets[i] = map[tets[i]];
  free(map);
  *npoints = n;
  return CL_OK;
}

/* 30-bit Morton key (10 bits per axis) of p in the box [lo, lo + ext]. */
static uint32_t morton_key(const double *p, const double *lo, const double *ext) {
  uint32_t key = 0;
  uint32_t q[3];
  for (int k = 0; k < 3; ++k) {
    double t = ext[k] > 0.0 ? (p[k] - lo[k]) / ext[k] : 0.0;
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    q[k] = (uint32_t)(t * 1023.0);
  }
  for (int b = 9; b >= 0; --b)
    for (int k = 0; k < 3; ++k) key = (key << 1) | ((q[k] >> b) & 1u);
  return key;
}

typedef struct keyed {
  uint32_t key;
  int32_t index;
} keyed;

static int keyed_cmp(const void *pa, const void *pb) {
  const keyed *a = pa, *b = pb;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return (a->index > b->index) - (a->index < b->index);
}

/* Spatial order for what TetGen appends: the Steiner points (indices >= `fixed_points`, which keep
 * their input numbering) and all tets are sorted along a Morton (Z-order) curve. TetGen emits them in
 * the order of its insertion and memory pools, which scatters neighbours across the arrays; the
 * solvers walk tets around each node and nodes around each tet every step, and with neighbours
 * close in memory those walks hit the cache (the corotational assembly ran 3x faster on the 28k-tet
 * Charpy bar, docs/BENCHMARKS.md). The mesh is the same; only the numbering changes. */
static cl_status spatial_order(double *x, int32_t np, int32_t *tets, int32_t nt, int32_t fixed_points) {
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, ext[3];
  for (int32_t i = 0; i < np; ++i)
    for (int k = 0; k < 3; ++k) {
      lo[k] = fmin(lo[k], x[3 * (size_t)i + k]);
      hi[k] = fmax(hi[k], x[3 * (size_t)i + k]);
    }
  for (int k = 0; k < 3; ++k) ext[k] = hi[k] - lo[k];
  const int32_t nmax = np > nt ? np : nt;
  keyed *kv = cl_malloc(sizeof(keyed) * (size_t)(nmax > 0 ? nmax : 1), "spatial order");
  int32_t *map = cl_malloc(sizeof(int32_t) * (size_t)(np > 0 ? np : 1), "spatial order");
  double *xs = cl_malloc(sizeof(double) * 3 * (size_t)(np > 0 ? np : 1), "spatial order");
  int32_t *ts = cl_malloc(sizeof(int32_t) * 4 * (size_t)(nt > 0 ? nt : 1), "spatial order");
  if (!kv || !map || !xs || !ts) {
    free(kv), free(map), free(xs), free(ts);
    return CL_ERR_OUT_OF_MEMORY;
  }
  if (fixed_points < 0) fixed_points = 0;
  if (fixed_points > np) fixed_points = np;
  int32_t ns = np - fixed_points;
  for (int32_t i = 0; i < ns; ++i) {
    kv[i].key = morton_key(x + 3 * (size_t)(fixed_points + i), lo, ext);
    kv[i].index = fixed_points + i;
  }
  qsort(kv, (size_t)ns, sizeof(keyed), keyed_cmp);
  for (int32_t i = 0; i < fixed_points; ++i) map[i] = i;
  for (int32_t i = 0; i < ns; ++i) map[kv[i].index] = fixed_points + i;
  for (int32_t i = 0; i < np; ++i) memcpy(xs + 3 * (size_t)map[i], x + 3 * (size_t)i, 3 * sizeof(double));
  memcpy(x, xs, sizeof(double) * 3 * (size_t)np);
  for (int32_t t = 0; t < nt; ++t) {
    double c[3] = {0.0, 0.0, 0.0};
    for (int a = 0; a < 4; ++a) {
      int32_t *v = tets + 4 * (size_t)t + a;
      *v = map[*v];
      for (int k = 0; k < 3; ++k) c[k] += 0.25 * x[3 * (size_t)*v + k];
    }
    kv[t].key = morton_key(c, lo, ext);
    kv[t].index = t;
  }
  qsort(kv, (size_t)nt, sizeof(keyed), keyed_cmp);
  for (int32_t t = 0; t < nt; ++t) memcpy(ts + 4 * (size_t)t, tets + 4 * (size_t)kv[t].index, 4 * sizeof(int32_t));
  memcpy(tets, ts, sizeof(int32_t) * 4 * (size_t)nt);
  free(kv), free(map), free(xs), free(ts);
  return CL_OK;
}

/* Sizes TetGen meshes in double precision. A surface much smaller or larger than these was given in
 * the wrong unit (sizes are metres), and one far thinner than it is wide is flat: its volume and
 * intersection tests would drown in rounding and name the wrong defect ("inside out",
 * "self-intersects", a zero-volume output tet). */
static const double MIN_SIZE = 1e-9, MAX_SIZE = 1e9, MIN_THICKNESS = 2e-5; /* 1e-5 gave flat tets */

static cl_status check_extent(const cl_mesh *s) {
  double lo[3], hi[3];
  for (int k = 0; k < 3; ++k) lo[k] = hi[k] = s->x[k];
  for (int32_t i = 1; i < s->npoints; ++i)
    for (int k = 0; k < 3; ++k) {
      lo[k] = fmin(lo[k], s->x[3 * i + k]);
      hi[k] = fmax(hi[k], s->x[3 * i + k]);
    }
  double e[3] = {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]};
  double big = fmax(e[0], fmax(e[1], e[2])), small = fmin(e[0], fmin(e[1], e[2]));
  if (!(big >= MIN_SIZE && big <= MAX_SIZE))
    return cl_fail(CL_ERR_MESH,
                   "surface is %g x %g x %g m: its largest extent is outside the range TetGen meshes reliably, [%g, "
                   "%g] m; sizes are in metres (mesh:fit(size) or mesh:scale(s) rescales it)",
                   e[0], e[1], e[2], MIN_SIZE, MAX_SIZE);
  if (!(small >= MIN_THICKNESS * big))
    return cl_fail(CL_ERR_MESH,
                   "surface is %g x %g x %g m: it is flat (its thinnest extent is %.3g of its largest; at least %g is "
                   "needed to mesh it in double precision); give it a thickness",
                   e[0], e[1], e[2], small / big, MIN_THICKNESS);
  return CL_OK;
}

/* ---- graded meshes: size zones ------------------------------------------------------------------ */

static const double PI = 3.14159265358979323846;

/* Distance between the boxes [alo, ahi] and [blo, bhi] (0 when they overlap). */
static double box_distance(const double *alo, const double *ahi, const double *blo, const double *bhi) {
  double d2 = 0.0;
  for (int k = 0; k < 3; ++k) {
    const double e = ahi[k] < blo[k] ? blo[k] - ahi[k] : (alo[k] > bhi[k] ? alo[k] - bhi[k] : 0.0);
    d2 += e * e;
  }
  return sqrt(d2);
}

/* The longest edge the zones allow for a tet whose bounding box is [lo, hi] (m), INFINITY where none
 * bounds it: the distance to a zone is the distance between the boxes, so a large tet that reaches
 * into a thin zone (its centroid and corners all outside) is split too. */
static double zone_size(const cl_mesh_size_zone *z, int32_t n, const double *lo, const double *hi) {
  double h = INFINITY;
  for (int32_t i = 0; i < n; ++i) {
    const double d = box_distance(lo, hi, z[i].lo, z[i].hi);
    if (d > 0.0 && z[i].growth == 0.0) continue;
    h = fmin(h, z[i].size + z[i].growth * d);
  }
  return h;
}

typedef struct zone_sizing {
  const cl_mesh_size_zone *zones;
  int32_t count;
} zone_sizing;

/* TetGen's refinement asks this of every tet it checks: split it when an edge is longer than the
 * zones allow where it is. Each split inserts the circumcentre, so edges shrink towards the bound
 * and, with a positive bound that grows at most linearly, the refinement terminates as TetGen's own
 * volume bound does. */
static int zone_too_big(const void *ctx, const double *a, const double *b, const double *c, const double *d) {
  const zone_sizing *zs = ctx;
  const double *v[4] = {a, b, c, d};
  double lo[3], hi[3], lmax2 = 0.0;
  for (int k = 0; k < 3; ++k) {
    lo[k] = fmin(fmin(a[k], b[k]), fmin(c[k], d[k]));
    hi[k] = fmax(fmax(a[k], b[k]), fmax(c[k], d[k]));
  }
  for (int i = 0; i < 4; ++i)
    for (int j = i + 1; j < 4; ++j) {
      const double e0 = v[i][0] - v[j][0], e1 = v[i][1] - v[j][1], e2 = v[i][2] - v[j][2];
      lmax2 = fmax(lmax2, e0 * e0 + e1 * e1 + e2 * e2);
    }
  const double h = zone_size(zs->zones, zs->count, lo, hi);
  return lmax2 > h * h;
}

static cl_status check_zones(const cl_tetgen_def *def, int quality) {
  if (def->zone_count < 0)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "tetgen zone_count = %d: must be >= 0", (int)def->zone_count);
  if (def->zone_count == 0) return CL_OK;
  if (!def->zones)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "tetgen zone_count = %d with zones NULL", (int)def->zone_count);
  if (!quality)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "tetgen size zones need the quality refinement that applies them: set "
                   "max_radius_edge >= 1 (quality = 2 in Lua)");
  for (int32_t i = 0; i < def->zone_count; ++i) {
    const cl_mesh_size_zone *z = def->zones + i;
    for (int k = 0; k < 3; ++k) {
      if (!isfinite(z->lo[k]) || !isfinite(z->hi[k]))
        return cl_fail(CL_ERR_INVALID_ARGUMENT, "tetgen zone %d: lo[%d] = %g, hi[%d] = %g m must be finite", (int)i + 1,
                       k, z->lo[k], k, z->hi[k]);
      if (z->lo[k] > z->hi[k])
        return cl_fail(CL_ERR_INVALID_ARGUMENT, "tetgen zone %d: lo[%d] = %g m is above hi[%d] = %g m", (int)i + 1, k,
                       z->lo[k], k, z->hi[k]);
    }
    if (!(z->size > 0.0) || isinf(z->size))
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "tetgen zone %d: size = %g m must be positive and finite", (int)i + 1,
                     z->size);
    if (!(z->growth >= 0.0) || isinf(z->growth))
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "tetgen zone %d: growth = %g must be finite and >= 0", (int)i + 1,
                     z->growth);
  }
  return CL_OK;
}

/* The number of regular tets (volume h^3 / (6 sqrt 2) for edge h) that would fill the parts of the
 * body's bounding box [blo, bhi] each zone bounds: an estimate of the mesh's size (TetGen's tets
 * are smaller than regular ones, a few per regular tet). Per zone, the box clipped to the bounding
 * box, then the shells at distance s around it, whose area is the derivative of Steiner's formula
 * for a box of sides a, b, c: S + 2 pi (a + b + c) s + 4 pi s^2 (an overestimate near the bounding
 * box's faces), integrated on a geometric grid of s to the bounding box's diagonal. */
static double zone_tet_estimate(const cl_mesh_size_zone *zones, int32_t n, const double *blo, const double *bhi) {
  const double per = 6.0 * sqrt(2.0); /* regular tets per h^3 */
  double diag = 0.0;
  for (int k = 0; k < 3; ++k) diag += (bhi[k] - blo[k]) * (bhi[k] - blo[k]);
  diag = sqrt(diag);
  double total = 0.0;
  for (int32_t i = 0; i < n; ++i) {
    const cl_mesh_size_zone *z = zones + i;
    double e[3];
    for (int k = 0; k < 3; ++k) e[k] = fmax(0.0, fmin(z->hi[k], bhi[k]) - fmax(z->lo[k], blo[k]));
    const double h3 = z->size * z->size * z->size;
    total += e[0] * e[1] * e[2] * per / h3;
    if (z->growth == 0.0) continue;
    const double S = 2.0 * (e[0] * e[1] + e[1] * e[2] + e[2] * e[0]), M = 2.0 * PI * (e[0] + e[1] + e[2]);
    /* s from size / 100 to diag, 400 geometric intervals, midpoint rule; [0, s0] as one slab */
    const double s0 = 0.01 * z->size, q = pow(diag / s0, 1.0 / 400.0);
    total += S * s0 * per / h3;
    for (double s = s0; s < diag; s *= q) {
      const double sm = s * sqrt(q), ds = s * (q - 1.0), h = z->size + z->growth * sm;
      total += (S + M * sm + 4.0 * PI * sm * sm) * ds * per / (h * h * h);
    }
  }
  return total;
}

cl_status cl_mesh_tetrahedralize(const cl_mesh *surface, const cl_tetgen_def *def, cl_mesh **out) {
  if (!out) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_tetrahedralize: out is NULL");
  *out = NULL;
  if (!def) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_tetrahedralize: def is NULL (fill it with cl_tetgen_def_default)");
  CL_TRY(check_surface_kind(surface, "cl_mesh_tetrahedralize"));
  /* TetGen's refinement does not terminate for radius-edge bounds below 1 (Si 2015, ACM TOMS 41(2),
   * sec. 4: termination is proven for ratios above 2 and works in practice down to about 1.1). */
  if (!(def->max_radius_edge == 0.0 || (def->max_radius_edge >= 1.0 && isfinite(def->max_radius_edge))))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "tetgen max_radius_edge = %g: must be 0 (no quality bound) or in [1, inf)",
                   def->max_radius_edge);
  if (!(def->min_dihedral >= 0.0 && def->min_dihedral < 70.0))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "tetgen min_dihedral = %g degrees: must be in [0, 70)", def->min_dihedral);
  if (!(def->max_volume >= 0.0 && isfinite(def->max_volume)))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "tetgen max_volume = %g m^3: must be 0 (unbounded) or > 0", def->max_volume);
  if (def->max_steiner < -1)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "tetgen max_steiner = %d: must be -1 (unbounded) or >= 0", def->max_steiner);
  if (def->verbose != 0 && def->verbose != 1)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "tetgen verbose = %d: must be 0 or 1", def->verbose);
  int quality = def->max_radius_edge > 0 || def->min_dihedral > 0;
  CL_TRY(check_zones(def, quality));

  CL_TRY(cl_mesh_validate(surface, "surface"));
  CL_TRY(check_extent(surface));
  CL_TRY(cl_mesh_check_closed(surface));
  double vol = signed_volume_of(surface, NULL, 0);
  if (!(vol > 0))
    return cl_fail(CL_ERR_MESH,
                   "surface encloses a volume of %g m^3 <= 0: it is inside out (triangles must be counter-clockwise "
                   "seen from outside)",
                   vol);
  CL_TRY(cl_surface_check_self_intersections(surface));
  if (def->max_volume > 0 && vol / def->max_volume > 2e7)
    return cl_fail(CL_ERR_INVALID_ARGUMENT,
                   "tetgen max_volume = %g m^3 would give more than %.3g tets for a volume of %g m^3 (limit 2e7)",
                   def->max_volume, vol / def->max_volume, vol);
  double zone_tets = 0.0;
  if (def->zone_count > 0) {
    double blo[3] = {INFINITY, INFINITY, INFINITY}, bhi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int32_t i = 0; i < surface->npoints; ++i)
      for (int k = 0; k < 3; ++k) {
        blo[k] = fmin(blo[k], surface->x[3 * (size_t)i + k]);
        bhi[k] = fmax(bhi[k], surface->x[3 * (size_t)i + k]);
      }
    zone_tets = zone_tet_estimate(def->zones, def->zone_count, blo, bhi);
    if (zone_tets > 2e6)
      return cl_fail(CL_ERR_INVALID_ARGUMENT,
                     "tetgen size zones would give about %.3g tets (%.3g regular tets of the bounded edge lengths; "
                     "limit 2e6 of those): raise a zone's size or growth", 4.0 * zone_tets, zone_tets);
  }

  char sw[200];
  int len = snprintf(sw, sizeof sw, "pz%s", def->verbose ? "V" : "Q");
  if (quality) {
    /* a dihedral bound alone uses TetGen's default ratio 2 */
    double ratio = def->max_radius_edge > 0 ? def->max_radius_edge : 2.0;
    len += snprintf(sw + len, sizeof sw - (size_t)len, "q%.10g", ratio);
    if (def->min_dihedral > 0) len += snprintf(sw + len, sizeof sw - (size_t)len, "/%.10g", def->min_dihedral);
  }
  if (def->max_volume > 0) len += snprintf(sw + len, sizeof sw - (size_t)len, "a%.10g", def->max_volume);
  /* TetGen's quality refinement need not terminate for strict bounds (ratios near 1, dihedral
   * bounds above about 20 degrees, small input angles such as the Charpy notch): it keeps adding
   * Steiner points. Without a cap from the caller, cap it well above what a terminating run needs
   * (about 0.65 points per max_volume of volume, a few per surface point), so a runaway stops in
   * seconds and is reported instead of hanging. */
  double auto_cap = -1;
  if (def->max_steiner >= 0) {
    len += snprintf(sw + len, sizeof sw - (size_t)len, "S%d", def->max_steiner);
  } else if (quality) {
    auto_cap = 20000.0 + 20.0 * surface->npoints + (def->max_volume > 0 ? 4.0 * vol / def->max_volume : 0.0) +
               4.0 * zone_tets;
    if (auto_cap > 1e9) auto_cap = 1e9;
    len += snprintf(sw + len, sizeof sw - (size_t)len, "S%.0f", auto_cap);
  }

  double *holes;
  int32_t nholes;
  CL_TRY(find_cavity_points(surface, &holes, &nholes));
  double *x = NULL;
  int32_t *tets = NULL, np = 0, nt = 0;
  /* TetGen reports nothing while it runs (only with verbose): say what it was given before a large
   * run, and how long it took after */
  cl_progress progress;
  cl_progress_begin(&progress, "tetrahedralize");
  if (surface->ncells >= 20000) {
    char what[512];
    snprintf(what, sizeof what, "TetGen is meshing %d triangles (switches -%s); it reports nothing until it ends%s",
             surface->ncells, sw, quality ? " (a quality bound on a large surface can take minutes; max_steiner "
                                            "bounds the work)" : "");
    cl_progress_note(&progress, what);
  }
  const zone_sizing zs = {def->zones, def->zone_count};
  const cl_tetgen_sizing sizing = {zone_too_big, &zs};
  cl_status st = cl_tetgen_run(surface->x, surface->npoints, surface->cells, surface->ncells, holes, nholes, sw,
                               def->zone_count > 0 ? &sizing : NULL, &x, &np, &tets, &nt);
  free(holes);
  if (st < 0) return cl_fail_context(st, "tetrahedralize (switches -%s): ", sw);
  {
    char summary[96];
    snprintf(summary, sizeof summary, "%d tets, %d points", nt, np);
    cl_progress_end(&progress, summary);
  }
  /* TetGen keeps every input point, so the count beyond them is the Steiner points it added */
  int cap_reached = auto_cap >= 0 && (double)np - surface->npoints >= auto_cap;
  cl_mesh *m = NULL;
  st = compact_points(x, &np, tets, nt);
  if (st >= 0) st = spatial_order(x, np, tets, nt, surface->npoints);
  if (st >= 0) st = cl_mesh_alloc(CL_MESH_TETS, np, nt, &m);
  if (st >= 0) {
    memcpy(m->x, x, sizeof(double) * 3 * (size_t)np);
    memcpy(m->cells, tets, sizeof(int32_t) * 4 * (size_t)nt);
    st = cl_mesh_validate(m, "TetGen output");
    if (st == CL_ERR_MESH)
      st = cl_fail_context(st, "TetGen's mesh has a flat tet: the surface has parts too thin for double precision "
                               "at this size; thicken them, or mesh coarser (a larger max_volume, a lower quality). "
                               "Detail: ");
  }
  free(x);
  free(tets);
  if (st < 0) {
    cl_mesh_destroy(m);
    return st;
  }
  *out = m;
  if (cap_reached)
    return cl_fail(CL_WARN_NOT_CONVERGED,
                   "TetGen stopped at %.0f Steiner points before meeting the quality bound (-%s): the bounds are too "
                   "strict for this surface; the mesh is returned as it stands (%d tets). Relax them (quality, C's "
                   "max_radius_edge, >= 1.2; min_dihedral <= 18), or set max_volume or max_steiner",
                   auto_cap, sw, m->ncells);
  return CL_OK;
}
