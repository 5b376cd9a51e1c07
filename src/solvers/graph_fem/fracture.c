/* The topology operation of the graph-based FEM: the mesh is never remeshed (the paper's sec 3.1);
 * events only damage edges. A damage_edge event raises the damage of the edge between its two nodes
 * (damage never heals: d = max(d, event)) in every element that has it, or, with in_unit, inside its
 * unit only (a crack crossing that element); a cut_surface event (a blade's swept triangle: knives,
 * the paper's "user initiates the crack lines") breaks every edge whose current segment crosses the
 * triangle; a split_unit event (a criterion that judges units, such as cluster_stretch, whose crack
 * plane is normal to the largest stretch) breaks the edges of the tet that its plane through the
 * tet's centroid separates. The elements around a changed edge get a new degraded stiffness
 * (element.c) and start from their current rotation. */
#include <math.h>
#include <string.h>

#include "base/error.h"
#include "fem/tet.h"
#include "solvers/graph_fem/gfem.h"

/* Element e takes part in damage from now on: a newly damaged element starts from the rotation of
 * its current F; its degraded stiffness is stale. */
static void touch_element(cl_gfem *s, const cl_body_state *st, int32_t e) {
  if (!s->dmg[e]) {
    const int32_t *t = st->cells + 4 * (size_t)e;
    const cl_mat3 F = cl_fem_deformation_gradient(st->x, t, s->Dminv + 9 * (size_t)e);
    cl_mat3 R = cl_mat3_identity();
    if (cl_polar3(&F, &R, NULL) < 0) R = cl_mat3_identity();
    memcpy(s->Re + 9 * (size_t)e, R.m, sizeof R.m);
    s->dmg[e] = 1;
  }
  s->kdirty[e] = 1;
}

/* Mark the elements around edge k (a, b). */
static void touch(cl_gfem *s, const cl_body_state *st, int32_t k) {
  const int32_t a = s->edge[2 * (size_t)k], b = s->edge[2 * (size_t)k + 1];
  for (int32_t q = s->inc_ptr[a]; q < s->inc_ptr[a + 1]; ++q) {
    const int32_t e = s->inc[q] >> 2;
    const int32_t *t = st->cells + 4 * (size_t)e;
    if (t[0] != b && t[1] != b && t[2] != b && t[3] != b) continue;
    touch_element(s, st, e);
  }
}

/* Edge k no longer joins its nodes: count it once. */
static void cut_edge(cl_gfem *s, int32_t k) {
  if (s->cut[k]) return;
  s->cut[k] = 1;
  s->broken_edges++;
}

/* Raise edge k's damage in every element to d; 1 if it changed. */
static int raise_damage(cl_gfem *s, const cl_body_state *st, int32_t k, double d) {
  if (!(d > s->damage[k])) return 0;
  if (d > 1.0) d = 1.0;
  s->damage[k] = d;
  if (d >= 1.0) cut_edge(s, k);
  touch(s, st, k);
  return 1;
}

/* Raise the damage of edge k (a, b) inside element e only to d; 1 if it changed, 0 also when e does
 * not have the edge. */
static int raise_local(cl_gfem *s, const cl_body_state *st, int32_t e, int32_t k, double d) {
  if (e < 0 || e >= s->ntets) return 0;
  int j = -1;
  for (int q = 0; q < 6; ++q)
    if (s->tet_edge[6 * (size_t)e + q] == k) j = q;
  double *de = j >= 0 ? s->edamage + 6 * (size_t)e + j : NULL;
  if (!de || !(d > *de)) return 0;
  if (d > 1.0) d = 1.0;
  if (*de < 1.0 && d >= 1.0 && ++s->edge_local_broken[k] == s->edge_tets[k]) cut_edge(s, k);
  *de = d;
  touch_element(s, st, e);
  return 1;
}

/* Does segment pq cross triangle abc (Moller-Trumbore, the segment's parameter in [0, 1])? */
static int segment_crosses(const double *p, const double *q, const double *tri) {
  const double *a = tri, *b = tri + 3, *c = tri + 6;
  const double d[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
  const double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  const double h[3] = {d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2], d[0] * e2[1] - d[1] * e2[0]};
  const double det = e1[0] * h[0] + e1[1] * h[1] + e1[2] * h[2];
  const double scale = (e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]) * sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (!(fabs(det) > 1e-14 * scale)) return 0; /* parallel */
  const double inv = 1.0 / det, sv[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
  const double u = inv * (sv[0] * h[0] + sv[1] * h[1] + sv[2] * h[2]);
  if (u < 0.0 || u > 1.0) return 0;
  const double qv[3] = {sv[1] * e1[2] - sv[2] * e1[1], sv[2] * e1[0] - sv[0] * e1[2], sv[0] * e1[1] - sv[1] * e1[0]};
  const double v = inv * (d[0] * qv[0] + d[1] * qv[1] + d[2] * qv[2]);
  if (v < 0.0 || u + v > 1.0) return 0;
  const double t = inv * (e2[0] * qv[0] + e2[1] * qv[1] + e2[2] * qv[2]);
  return t >= 0.0 && t <= 1.0;
}

static int32_t cut(cl_gfem *s, const cl_body_state *st, const double *tri) {
  double lo[3], hi[3];
  for (int k = 0; k < 3; ++k) {
    lo[k] = fmin(tri[k], fmin(tri[3 + k], tri[6 + k]));
    hi[k] = fmax(tri[k], fmax(tri[3 + k], tri[6 + k]));
  }
  int32_t n = 0;
  for (int32_t k = 0; k < s->nedges; ++k) {
    if (s->damage[k] >= 1.0) continue;
    const double *p = st->x + 3 * (size_t)s->edge[2 * k], *q = st->x + 3 * (size_t)s->edge[2 * k + 1];
    int outside = 0;
    for (int c = 0; c < 3 && !outside; ++c) outside = fmax(p[c], q[c]) < lo[c] || fmin(p[c], q[c]) > hi[c];
    if (outside || !segment_crosses(p, q, tri)) continue;
    n += raise_damage(s, st, k, 1.0);
  }
  return n;
}

/* Split tet e along the plane through its current centroid with normal n: break each of its six
 * edges whose ends lie strictly on opposite sides. A zero normal (the criterion leaves the plane to
 * the solver) is taken along the tet's longest current edge, the one the tet stretches most. Returns
 * the number of edges broken now. */
static int32_t split_tet(cl_gfem *s, const cl_body_state *st, int32_t e, const double *normal) {
  if (e < 0 || e >= s->ntets) return 0;
  const int32_t *t = st->cells + 4 * (size_t)e;
  static const int pair[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
  double c[3] = {0, 0, 0}, n[3] = {normal[0], normal[1], normal[2]};
  for (int i = 0; i < 4; ++i)
    for (int k = 0; k < 3; ++k) c[k] += 0.25 * st->x[3 * (size_t)t[i] + k];
  if (!(n[0] * n[0] + n[1] * n[1] + n[2] * n[2] > 0.0)) {
    double longest = -1.0;
    for (int q = 0; q < 6; ++q) {
      const double *a = st->x + 3 * (size_t)t[pair[q][0]], *b = st->x + 3 * (size_t)t[pair[q][1]];
      const double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
      const double l2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      if (l2 > longest) {
        longest = l2;
        memcpy(n, d, sizeof n);
      }
    }
  }
  double side[4];
  for (int i = 0; i < 4; ++i) {
    const double *x = st->x + 3 * (size_t)t[i];
    side[i] = n[0] * (x[0] - c[0]) + n[1] * (x[1] - c[1]) + n[2] * (x[2] - c[2]);
  }
  int32_t broken = 0;
  for (int q = 0; q < 6; ++q) {
    if (!(side[pair[q][0]] * side[pair[q][1]] < 0.0)) continue;
    const int32_t k = cl_gfem_edge(s, t[pair[q][0]], t[pair[q][1]]);
    if (k >= 0) broken += raise_damage(s, st, k, 1.0);
  }
  return broken;
}

cl_status cl_gfem_fracture(void *solver, cl_body_state *st, const cl_fracture_event *events, int32_t count,
                           int32_t *applied) {
  cl_gfem *s = solver;
  *applied = 0;
  for (int32_t i = 0; i < count; ++i) {
    const cl_fracture_event *ev = &events[i];
    switch (ev->kind) {
      case CL_EVENT_DAMAGE_EDGE: {
        const int32_t k = cl_gfem_edge(s, ev->damage_edge.a, ev->damage_edge.b);
        if (k < 0 || !isfinite(ev->damage_edge.damage)) break;
        if (ev->damage_edge.in_unit)
          *applied += raise_local(s, st, ev->damage_edge.unit, k, ev->damage_edge.damage);
        else
          *applied += raise_damage(s, st, k, ev->damage_edge.damage);
        break;
      }
      case CL_EVENT_CUT_SURFACE: {
        int finite = 1;
        for (int c = 0; c < 9; ++c) finite &= isfinite(ev->cut_surface.tri[c]) != 0;
        if (finite) *applied += cut(s, st, ev->cut_surface.tri) > 0;
        break;
      }
      case CL_EVENT_SPLIT_UNIT: {
        int finite = 1;
        for (int c = 0; c < 3; ++c) finite &= isfinite(ev->split_unit.normal[c]) != 0;
        if (finite) *applied += split_tet(s, st, ev->split_unit.unit, ev->split_unit.normal) > 0;
        break;
      }
      case CL_EVENT_SPLIT_NODE: /* not in caps.applies: the world never hands these over */
      case CL_EVENT_KIND_COUNT:
        break;
    }
  }
  if (*applied) s->damage_version++;
  return CL_OK;
}
