/* Triangle BVH: build, overlapping pairs, ray casts and the fast winding number. */
#include "geom/bvh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"


enum { LEAF_SIZE = 4, STACK_MAX = 128 };

static const double FOUR_PI = 12.566370614359172953850573533118;

static void tri_centroid(const cl_bvh *b, int32_t t, double *c) {
  const int32_t *v = b->tris + 3 * (size_t)t;
  for (int k = 0; k < 3; ++k) c[k] = (b->x[3 * v[0] + k] + b->x[3 * v[1] + k] + b->x[3 * v[2] + k]) / 3.0;
}

/* Quickselect: reorder order[lo..hi) so that the element at `mid` has the centroid coordinate it
 * would have after sorting on axis `ax`, smaller ones before, larger after. */
static void select_median(const double *cent, int32_t *order, int32_t lo, int32_t hi, int32_t mid, int ax) {
  while (hi - lo > 1) {
    double pivot = cent[3 * order[(lo + hi) / 2] + ax];
    int32_t i = lo, j = hi - 1;
    while (i <= j) {
      while (cent[3 * order[i] + ax] < pivot) ++i;
      while (cent[3 * order[j] + ax] > pivot) --j;
      if (i <= j) {
        int32_t tmp = order[i];
        order[i] = order[j];
        order[j] = tmp;
        ++i;
        --j;
      }
    }
    if (mid <= j) hi = j + 1;
    else if (mid >= i) lo = i;
    else return;
  }
}

static void node_bounds(cl_bvh *b, cl_bvh_node *n, int32_t first, int32_t count) {
  for (int k = 0; k < 3; ++k) {
    n->lo[k] = INFINITY;
    n->hi[k] = -INFINITY;
  }
  for (int32_t s = first; s < first + count; ++s) {
    const int32_t *v = b->tris + 3 * (size_t)b->order[s];
    for (int a = 0; a < 3; ++a)
      for (int k = 0; k < 3; ++k) {
        double xv = b->x[3 * v[a] + k];
        if (xv < n->lo[k]) n->lo[k] = xv;
        if (xv > n->hi[k]) n->hi[k] = xv;
      }
  }
}

/* Far-field moments of one node, computed from its triangle range (each triangle contributes at
 * its centroid; Barill et al. 2018, eq. 13 truncated after the second-order term). */
static void node_moments(cl_bvh *b, int32_t id, int32_t first, int32_t count) {
  double area_sum = 0.0, c[3] = {0, 0, 0}, n[3] = {0, 0, 0}, m[9] = {0};
  for (int32_t s = first; s < first + count; ++s) {
    const int32_t *v = b->tris + 3 * (size_t)b->order[s];
    const double *p0 = b->x + 3 * v[0], *p1 = b->x + 3 * v[1], *p2 = b->x + 3 * v[2];
    double e1[3], e2[3], an[3];
    for (int k = 0; k < 3; ++k) {
      e1[k] = p1[k] - p0[k];
      e2[k] = p2[k] - p0[k];
    }
    an[0] = 0.5 * (e1[1] * e2[2] - e1[2] * e2[1]);
    an[1] = 0.5 * (e1[2] * e2[0] - e1[0] * e2[2]);
    an[2] = 0.5 * (e1[0] * e2[1] - e1[1] * e2[0]);
    double a = sqrt(an[0] * an[0] + an[1] * an[1] + an[2] * an[2]);
    for (int k = 0; k < 3; ++k) {
      c[k] += a * (p0[k] + p1[k] + p2[k]) / 3.0;
      n[k] += an[k];
    }
    area_sum += a;
  }
  if (area_sum > 0) {
    for (int k = 0; k < 3; ++k) c[k] /= area_sum;
  } else {
    for (int k = 0; k < 3; ++k) c[k] = 0.5 * (b->nodes[id].lo[k] + b->nodes[id].hi[k]);
  }
  double r2 = 0.0;
  for (int32_t s = first; s < first + count; ++s) {
    const int32_t *v = b->tris + 3 * (size_t)b->order[s];
    const double *p0 = b->x + 3 * v[0], *p1 = b->x + 3 * v[1], *p2 = b->x + 3 * v[2];
    double e1[3], e2[3], an[3], d[3];
    for (int k = 0; k < 3; ++k) {
      e1[k] = p1[k] - p0[k];
      e2[k] = p2[k] - p0[k];
      d[k] = (p0[k] + p1[k] + p2[k]) / 3.0 - c[k];
    }
    an[0] = 0.5 * (e1[1] * e2[2] - e1[2] * e2[1]);
    an[1] = 0.5 * (e1[2] * e2[0] - e1[0] * e2[2]);
    an[2] = 0.5 * (e1[0] * e2[1] - e1[1] * e2[0]);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) m[3 * i + j] += d[i] * an[j];
    for (int a = 0; a < 3; ++a) {
      const double *p = b->x + 3 * v[a];
      double dd = (p[0] - c[0]) * (p[0] - c[0]) + (p[1] - c[1]) * (p[1] - c[1]) + (p[2] - c[2]) * (p[2] - c[2]);
      if (dd > r2) r2 = dd;
    }
  }
  memcpy(b->wn_c + 3 * (size_t)id, c, sizeof c);
  memcpy(b->wn_n + 3 * (size_t)id, n, sizeof n);
  memcpy(b->wn_m + 9 * (size_t)id, m, sizeof m);
  b->wn_r[id] = sqrt(r2);
}

void cl_bvh_free(cl_bvh *b) {
  if (!b) return;
  free(b->nodes);
  free(b->order);
  free(b->wn_c);
  free(b->wn_n);
  free(b->wn_m);
  free(b->wn_r);
  memset(b, 0, sizeof *b);
}

cl_status cl_bvh_build(const double *x, const int32_t *tris, int32_t ntris, int winding, cl_bvh *b) {
  if (!b || !x || !tris || ntris < 1) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_bvh_build: empty or NULL input");
  memset(b, 0, sizeof *b);
  b->x = x;
  b->tris = tris;
  b->ntris = ntris;
  size_t cap = 2 * (size_t)ntris;
  b->nodes = cl_malloc(sizeof *b->nodes * cap, "BVH nodes");
  b->order = cl_malloc(sizeof *b->order * (size_t)ntris, "BVH order");
  double *cent = cl_malloc(sizeof(double) * 3 * (size_t)ntris, "BVH centroids");
  if (!b->nodes || !b->order || !cent) {
    free(cent);
    cl_bvh_free(b);
    return CL_ERR_OUT_OF_MEMORY;
  }
  for (int32_t t = 0; t < ntris; ++t) {
    b->order[t] = t;
    tri_centroid(b, t, cent + 3 * (size_t)t);
  }
  /* Depth-first build with an explicit stack of (node, first, count). Median splits keep the
   * depth at log2(n / LEAF_SIZE) + 1, far below STACK_MAX. */
  int32_t stack[STACK_MAX][3];
  int sp = 0;
  b->nnodes = 1;
  stack[sp][0] = 0;
  stack[sp][1] = 0;
  stack[sp][2] = ntris;
  ++sp;
  while (sp > 0) {
    --sp;
    int32_t id = stack[sp][0], first = stack[sp][1], count = stack[sp][2];
    cl_bvh_node *n = &b->nodes[id];
    node_bounds(b, n, first, count);
    if (count <= LEAF_SIZE) {
      n->first = first;
      n->count = count;
      continue;
    }
    double clo[3] = {INFINITY, INFINITY, INFINITY}, chi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int32_t s = first; s < first + count; ++s)
      for (int k = 0; k < 3; ++k) {
        double c = cent[3 * b->order[s] + k];
        clo[k] = fmin(clo[k], c);
        chi[k] = fmax(chi[k], c);
      }
    int ax = 0;
    for (int k = 1; k < 3; ++k)
      if (chi[k] - clo[k] > chi[ax] - clo[ax]) ax = k;
    int32_t half = count / 2;
    select_median(cent, b->order, first, first + count, first + half, ax);
    int32_t left = b->nnodes;
    b->nnodes += 2;
    n->first = left;
    n->count = 0;
    stack[sp][0] = left + 1;
    stack[sp][1] = first + half;
    stack[sp][2] = count - half;
    ++sp;
    stack[sp][0] = left;
    stack[sp][1] = first;
    stack[sp][2] = half;
    ++sp;
  }
  free(cent);
  if (winding) {
    size_t nn = (size_t)b->nnodes;
    b->wn_c = cl_malloc(sizeof(double) * 3 * nn, "BVH winding data");
    b->wn_n = cl_malloc(sizeof(double) * 3 * nn, "BVH winding data");
    b->wn_m = cl_malloc(sizeof(double) * 9 * nn, "BVH winding data");
    b->wn_r = cl_malloc(sizeof(double) * nn, "BVH winding data");
    if (!b->wn_c || !b->wn_n || !b->wn_m || !b->wn_r) {
      cl_bvh_free(b);
      return CL_ERR_OUT_OF_MEMORY;
    }
    /* Each node's triangle range is contiguous in order[]: recover it by walking to the leaves.
     * Ranges are recomputed top-down with the same stack discipline. */
    int32_t rs[STACK_MAX][3];
    int rp = 0;
    rs[rp][0] = 0;
    rs[rp][1] = 0;
    rs[rp][2] = ntris;
    ++rp;
    while (rp > 0) {
      --rp;
      int32_t id = rs[rp][0], first = rs[rp][1], count = rs[rp][2];
      node_moments(b, id, first, count);
      const cl_bvh_node *n = &b->nodes[id];
      if (n->count > 0) continue;
      int32_t half = count / 2;
      rs[rp][0] = n->first + 1;
      rs[rp][1] = first + half;
      rs[rp][2] = count - half;
      ++rp;
      rs[rp][0] = n->first;
      rs[rp][1] = first;
      rs[rp][2] = half;
      ++rp;
    }
  }
  return CL_OK;
}

double cl_triangle_solid_angle(const double *a, const double *b, const double *c, const double *p) {
  double u[3], v[3], w[3];
  for (int k = 0; k < 3; ++k) {
    u[k] = a[k] - p[k];
    v[k] = b[k] - p[k];
    w[k] = c[k] - p[k];
  }
  double lu = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
  double lv = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  double lw = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
  double det = u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
               u[2] * (v[0] * w[1] - v[1] * w[0]);
  double uv = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
  double vw = v[0] * w[0] + v[1] * w[1] + v[2] * w[2];
  double wu = w[0] * u[0] + w[1] * u[1] + w[2] * u[2];
  /* tan(Omega / 2) = det / (|u||v||w| + (u.v)|w| + (v.w)|u| + (w.u)|v|) */
  return 2.0 * atan2(det, lu * lv * lw + uv * lw + vw * lu + wu * lv);
}

double cl_bvh_winding_number(const cl_bvh *b, const double *p, double beta) {
  double omega = 0.0;
  int32_t stack[STACK_MAX];
  int sp = 0;
  stack[sp++] = 0;
  while (sp > 0) {
    int32_t id = stack[--sp];
    const cl_bvh_node *n = &b->nodes[id];
    const double *c = b->wn_c + 3 * (size_t)id;
    double r[3] = {c[0] - p[0], c[1] - p[1], c[2] - p[2]};
    double d2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    double rad = b->wn_r[id];
    if (n->count == 0 && d2 > beta * beta * rad * rad) {
      /* Omega ~ N . g(R) + sum_ij J_ij M_ij with R = c - p, g(R) = R / |R|^3 the field of a unit
       * dipole and J = grad g = I / |R|^3 - 3 R R^T / |R|^5 (symmetric, traceless). */
      const double *nn = b->wn_n + 3 * (size_t)id, *m = b->wn_m + 9 * (size_t)id;
      double d = sqrt(d2), inv3 = 1.0 / (d2 * d), inv5 = inv3 / d2;
      double first = (nn[0] * r[0] + nn[1] * r[1] + nn[2] * r[2]) * inv3;
      double rmr = 0.0;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) rmr += r[i] * m[3 * i + j] * r[j];
      double second = (m[0] + m[4] + m[8]) * inv3 - 3.0 * rmr * inv5;
      omega += first + second;
      continue;
    }
    if (n->count > 0) {
      for (int32_t s = n->first; s < n->first + n->count; ++s) {
        const int32_t *v = b->tris + 3 * (size_t)b->order[s];
        omega += cl_triangle_solid_angle(b->x + 3 * v[0], b->x + 3 * v[1], b->x + 3 * v[2], p);
      }
      continue;
    }
    stack[sp++] = n->first;
    stack[sp++] = n->first + 1;
  }
  return omega / FOUR_PI;
}

static int boxes_overlap(const cl_bvh_node *a, const cl_bvh_node *b, double pad) {
  for (int k = 0; k < 3; ++k)
    if (a->lo[k] > b->hi[k] + pad || b->lo[k] > a->hi[k] + pad) return 0;
  return 1;
}

static int tri_boxes_overlap(const cl_bvh *b, int32_t s, int32_t t, double pad) {
  const int32_t *u = b->tris + 3 * (size_t)s, *v = b->tris + 3 * (size_t)t;
  for (int k = 0; k < 3; ++k) {
    double ulo = fmin(fmin(b->x[3 * u[0] + k], b->x[3 * u[1] + k]), b->x[3 * u[2] + k]);
    double uhi = fmax(fmax(b->x[3 * u[0] + k], b->x[3 * u[1] + k]), b->x[3 * u[2] + k]);
    double vlo = fmin(fmin(b->x[3 * v[0] + k], b->x[3 * v[1] + k]), b->x[3 * v[2] + k]);
    double vhi = fmax(fmax(b->x[3 * v[0] + k], b->x[3 * v[1] + k]), b->x[3 * v[2] + k]);
    if (ulo > vhi + pad || vlo > uhi + pad) return 0;
  }
  return 1;
}

int cl_bvh_overlapping_pairs(const cl_bvh *b, double pad, int (*fn)(int32_t, int32_t, void *), void *ctx) {
  /* Simultaneous descent of the tree against itself; a pair (i, j) with i <= j is visited once. The
   * stack holds at most depth * 3 pairs per level, bounded by 3 * STACK_MAX. */
  int32_t stack[3 * STACK_MAX][2];
  int sp = 0;
  stack[sp][0] = 0;
  stack[sp][1] = 0;
  ++sp;
  while (sp > 0) {
    --sp;
    int32_t ia = stack[sp][0], ib = stack[sp][1];
    const cl_bvh_node *a = &b->nodes[ia], *c = &b->nodes[ib];
    if (ia != ib && !boxes_overlap(a, c, pad)) continue;
    if (a->count > 0 && c->count > 0) {
      for (int32_t s = a->first; s < a->first + a->count; ++s) {
        int32_t t0 = ia == ib ? s + 1 : c->first;
        for (int32_t t = t0; t < c->first + c->count; ++t) {
          int32_t ta = b->order[s], tb = b->order[t];
          if (!tri_boxes_overlap(b, ta, tb, pad)) continue;
          int r = ta < tb ? fn(ta, tb, ctx) : fn(tb, ta, ctx);
          if (r) return r;
        }
      }
      continue;
    }
    if (ia == ib) { /* inner node against itself: both children against themselves and each other */
      stack[sp][0] = a->first;
      stack[sp][1] = a->first;
      ++sp;
      stack[sp][0] = a->first + 1;
      stack[sp][1] = a->first + 1;
      ++sp;
      stack[sp][0] = a->first;
      stack[sp][1] = a->first + 1;
      ++sp;
      continue;
    }
    /* descend the larger (or the only inner) node */
    int split_a = c->count > 0 || (a->count == 0 && (a->hi[0] - a->lo[0]) + (a->hi[1] - a->lo[1]) + (a->hi[2] - a->lo[2]) >=
                                                       (c->hi[0] - c->lo[0]) + (c->hi[1] - c->lo[1]) + (c->hi[2] - c->lo[2]));
    if (split_a) {
      stack[sp][0] = a->first;
      stack[sp][1] = ib;
      ++sp;
      stack[sp][0] = a->first + 1;
      stack[sp][1] = ib;
      ++sp;
    } else {
      stack[sp][0] = ia;
      stack[sp][1] = c->first;
      ++sp;
      stack[sp][0] = ia;
      stack[sp][1] = c->first + 1;
      ++sp;
    }
  }
  return 0;
}

static int ray_box(const cl_bvh_node *n, const double *o, const double *inv, double tmin, double tmax) {
  for (int k = 0; k < 3; ++k) {
    double t0 = (n->lo[k] - o[k]) * inv[k], t1 = (n->hi[k] - o[k]) * inv[k];
    if (t0 > t1) {
      double tmp = t0;
      t0 = t1;
      t1 = tmp;
    }
    if (t0 > tmin) tmin = t0;
    if (t1 < tmax) tmax = t1;
    if (tmin > tmax) return 0;
  }
  return 1;
}

int32_t cl_bvh_ray_first_hit(const cl_bvh *b, const double *o, const double *d, double tmin, int32_t skip,
                             double *t_hit) {
  double inv[3];
  for (int k = 0; k < 3; ++k) inv[k] = d[k] != 0.0 ? 1.0 / d[k] : (d[k] >= 0 ? INFINITY : -INFINITY);
  double best = INFINITY;
  int32_t hit = -1;
  int32_t stack[STACK_MAX];
  int sp = 0;
  stack[sp++] = 0;
  while (sp > 0) {
    const cl_bvh_node *n = &b->nodes[stack[--sp]];
    if (!ray_box(n, o, inv, tmin, best)) continue;
    if (n->count == 0) {
      stack[sp++] = n->first;
      stack[sp++] = n->first + 1;
      continue;
    }
    for (int32_t s = n->first; s < n->first + n->count; ++s) {
      int32_t t = b->order[s];
      if (t == skip) continue;
      const int32_t *v = b->tris + 3 * (size_t)t;
      const double *p0 = b->x + 3 * v[0], *p1 = b->x + 3 * v[1], *p2 = b->x + 3 * v[2];
      double e1[3], e2[3], pv[3], tv[3], qv[3];
      for (int k = 0; k < 3; ++k) {
        e1[k] = p1[k] - p0[k];
        e2[k] = p2[k] - p0[k];
        tv[k] = o[k] - p0[k];
      }
      pv[0] = d[1] * e2[2] - d[2] * e2[1];
      pv[1] = d[2] * e2[0] - d[0] * e2[2];
      pv[2] = d[0] * e2[1] - d[1] * e2[0];
      double det = e1[0] * pv[0] + e1[1] * pv[1] + e1[2] * pv[2];
      if (det == 0.0) continue;
      double id = 1.0 / det;
      double u = (tv[0] * pv[0] + tv[1] * pv[1] + tv[2] * pv[2]) * id;
      if (u < 0.0 || u > 1.0) continue;
      qv[0] = tv[1] * e1[2] - tv[2] * e1[1];
      qv[1] = tv[2] * e1[0] - tv[0] * e1[2];
      qv[2] = tv[0] * e1[1] - tv[1] * e1[0];
      double w = (d[0] * qv[0] + d[1] * qv[1] + d[2] * qv[2]) * id;
      if (w < 0.0 || u + w > 1.0) continue;
      double tt = (e2[0] * qv[0] + e2[1] * qv[1] + e2[2] * qv[2]) * id;
      if (tt > tmin && tt < best) {
        best = tt;
        hit = t;
      }
    }
  }
  if (hit >= 0 && t_hit) *t_hit = best;
  return hit;
}
